//! One column's cells of the row group being buffered, read from each row as it is pushed: the
//! values in one vector of their Parquet type and, for a nullable column, the definition levels
//! beside them. Buffering by column instead of by row lets a row group be written one
//! contiguous vector at a time (a row-wise buffer of 65,536 rows is read again for every column,
//! each time from main memory), and drops each row as soon as its cells are read.

use parquet::column::writer::{ColumnWriter, ColumnWriterImpl};
use parquet::data_type::{ByteArray, DataType};

use super::shared_texts::SharedTexts;
use super::table::Getter;

/// The error of a getter or a schema whose type is not the cells'.
const WRONG_TYPE: &str = "the schema's type differs from the table's";

/// The error of a row without a value in a column that is never null.
const MISSING: &str = "a value of a column that is never null is missing";

/// The buffered cells of one column.
pub struct Cells {
    values: Values,
    /// Per row, 1 for a value and 0 for null; empty for a column that is never null.
    levels: Vec<i16>,
    nullable: bool,
}

/// The values of one column, in the vector of its Parquet type.
enum Values {
    Int64(Vec<i64>),
    Int32(Vec<i32>),
    Double(Vec<f64>),
    Bool(Vec<bool>),
    Text(Vec<ByteArray>, SharedTexts),
}

impl Cells {
    /// Empty cells for a column read by `get`.
    pub fn new<R>(get: &Getter<R>, nullable: bool) -> Self {
        let values = match get {
            Getter::Int64(_) | Getter::Time(_) => Values::Int64(Vec::new()),
            Getter::Int32(_) => Values::Int32(Vec::new()),
            Getter::Double(_) => Values::Double(Vec::new()),
            Getter::Bool(_) => Values::Bool(Vec::new()),
            Getter::Text(_) | Getter::Label(_) | Getter::Value(_) => {
                Values::Text(Vec::new(), SharedTexts::default())
            }
        };
        Cells {
            values,
            levels: Vec::new(),
            nullable,
        }
    }

    /// Empty text cells (the key columns, which the writer fills from the session).
    pub fn text(nullable: bool) -> Self {
        Cells {
            values: Values::Text(Vec::new(), SharedTexts::default()),
            levels: Vec::new(),
            nullable,
        }
    }

    /// Adds the cells `get` reads from each of `rows`, choosing how once for all of them. `Err`
    /// when a column that is never null has none, or `get` is not of the type these cells
    /// were made for.
    pub fn push_all<R>(&mut self, get: &Getter<R>, rows: &[R]) -> anyhow::Result<()> {
        let levels = self.nullable.then_some(&mut self.levels);
        match (get, &mut self.values) {
            (Getter::Int64(f) | Getter::Time(f), Values::Int64(v)) => put_all(v, levels, rows, f),
            (Getter::Int32(f), Values::Int32(v)) => put_all(v, levels, rows, f),
            (Getter::Double(f), Values::Double(v)) => put_all(v, levels, rows, f),
            (Getter::Bool(f), Values::Bool(v)) => put_all(v, levels, rows, f),
            (Getter::Text(f), Values::Text(v, shared)) => {
                put_all(v, levels, rows, |r| f(r).map(|s| shared.get(s)))
            }
            (Getter::Label(f), Values::Text(v, _)) => put_all(v, levels, rows, |r| f(r).map(label)),
            (Getter::Value(f), Values::Text(v, _)) => put_all(v, levels, rows, |r| f(r).cloned()),
            _ => Err(anyhow::anyhow!(WRONG_TYPE)),
        }
    }

    /// Adds a text cell (the key columns, which the writer fills from the session).
    pub fn push_text(&mut self, text: Option<&ByteArray>) -> anyhow::Result<()> {
        let Values::Text(v, _) = &mut self.values else {
            return Err(anyhow::anyhow!(WRONG_TYPE));
        };
        let present = put(v, text.cloned());
        self.level(present)
    }

    /// Records whether the cell just read was a value.
    fn level(&mut self, present: bool) -> anyhow::Result<()> {
        match (self.nullable, present) {
            (true, _) => {
                self.levels.push(i16::from(present));
                Ok(())
            }
            (false, true) => Ok(()),
            (false, false) => Err(anyhow::anyhow!(MISSING)),
        }
    }

    /// Writes the buffered cells to `writer` and empties the buffer (keeping its room; the
    /// strings it shared are let go).
    pub fn write_to(&mut self, writer: &mut ColumnWriter<'_>) -> anyhow::Result<()> {
        let levels = self.nullable.then_some(self.levels.as_slice());
        match (&mut self.values, writer) {
            (Values::Int64(v), ColumnWriter::Int64ColumnWriter(w)) => write(w, v, levels),
            (Values::Int32(v), ColumnWriter::Int32ColumnWriter(w)) => write(w, v, levels),
            (Values::Double(v), ColumnWriter::DoubleColumnWriter(w)) => write(w, v, levels),
            (Values::Bool(v), ColumnWriter::BoolColumnWriter(w)) => write(w, v, levels),
            (Values::Text(v, shared), ColumnWriter::ByteArrayColumnWriter(w)) => {
                // The strings shared within this row group only: the next one starts afresh.
                *shared = SharedTexts::default();
                write(w, v, levels)
            }
            _ => Err(anyhow::anyhow!(WRONG_TYPE)),
        }?;
        self.levels.clear();
        Ok(())
    }
}

/// Pushes `value` when there is one; whether there was.
fn put<T>(values: &mut Vec<T>, value: Option<T>) -> bool {
    match value {
        Some(v) => {
            values.push(v);
            true
        }
        None => false,
    }
}

/// Pushes the value `get` reads from each of `rows`, and its level when the column is
/// nullable (`levels` given); `Err` at the first row without a value in a column that is never
/// null.
fn put_all<R, T>(
    values: &mut Vec<T>,
    levels: Option<&mut Vec<i16>>,
    rows: &[R],
    mut get: impl FnMut(&R) -> Option<T>,
) -> anyhow::Result<()> {
    match levels {
        Some(levels) => {
            for row in rows {
                levels.push(i16::from(put(values, get(row))));
            }
        }
        None => {
            for row in rows {
                let value = get(row).ok_or_else(|| anyhow::anyhow!(MISSING))?;
                values.push(value);
            }
        }
    }
    Ok(())
}

/// A label the program holds for its whole run: a Parquet value that points at it, whose
/// copies cost no reference count.
pub fn label(text: &'static str) -> ByteArray {
    ByteArray::from(bytes::Bytes::from_static(text.as_bytes()))
}

/// Writes `values` (and `levels`) as one batch and empties `values`.
fn write<T: DataType>(
    writer: &mut ColumnWriterImpl<'_, T>,
    values: &mut Vec<T::T>,
    levels: Option<&[i16]>,
) -> anyhow::Result<()> {
    writer.write_batch(values, levels, None)?;
    values.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Row {
        n: Option<i64>,
        name: &'static str,
    }

    #[test]
    fn a_nullable_column_keeps_its_levels_and_a_required_one_refuses_null() {
        let get: Getter<Row> = Getter::Int64(|r| r.n);
        let mut nullable = Cells::new(&get, true);
        let rows = [Some(1), None, Some(3)].map(|n| Row { n, name: "" });
        nullable.push_all(&get, &rows[..2]).unwrap();
        nullable.push_all(&get, &rows[2..]).unwrap();
        assert_eq!(nullable.levels, [1, 0, 1]);
        assert!(matches!(&nullable.values, Values::Int64(v) if v == &[1, 3]));
        let mut required = Cells::new(&get, false);
        let error = required.push_all(&get, &rows).unwrap_err().to_string();
        assert!(error.contains("never null"), "{error}");
        let with_all = [Some(4), Some(5)].map(|n| Row { n, name: "" });
        required.push_all(&get, &with_all).unwrap();
        assert!(
            required.levels.is_empty(),
            "no levels for a column never null"
        );
    }

    #[test]
    fn labels_and_texts_become_byte_arrays_and_a_wrong_getter_is_refused() {
        let get: Getter<Row> = Getter::Label(|r| Some(r.name));
        let mut cells = Cells::new(&get, false);
        cells.push_all(&get, &[Row { n: None, name: "a" }]).unwrap();
        cells.push_text(Some(&ByteArray::from("b"))).unwrap();
        let Values::Text(v, _) = &cells.values else {
            panic!("text cells")
        };
        assert_eq!(v, &[ByteArray::from("a"), ByteArray::from("b")]);
        let other: Getter<Row> = Getter::Int64(|r| r.n);
        let row = Row {
            n: Some(1),
            name: "",
        };
        let error = cells.push_all(&other, &[row]).unwrap_err().to_string();
        assert_eq!(error, WRONG_TYPE);
    }
}
