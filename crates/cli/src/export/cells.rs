//! One column's cells of the row group being buffered, read from each row as it is pushed: the
//! values in one vector of their Parquet type — a text column's bytes one after another, with
//! where each value ends ([`TextCells`]) — and, for a nullable column, the definition levels
//! beside them. Buffering by column instead of by row lets a row group be written one
//! contiguous vector at a time (a row-wise buffer of 65,536 rows is read again for every column,
//! each time from main memory), and drops each row as soon as its cells are read.

use bytes::Bytes;
use parquet::column::writer::{ColumnWriter, ColumnWriterImpl};
use parquet::data_type::{ByteArray, ByteArrayType, DataType};

use super::table::Getter;

/// The text values handed to the Parquet writer per batch (here and for the key columns): a
/// multiple of its mini-batch (1,024 values), so that its pages break where one batch of all
/// the rows would.
pub const TEXT_RUN: usize = 8_192;

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
    Text(TextCells),
}

/// A text column's values: their bytes one after another and where each ends — a few bytes a
/// cell beyond its text, where a Parquet value per cell would be 32 (and an allocation for
/// each text not shared). The values are made when the row group is written, a batch at a time,
/// each a slice of the one buffer.
#[derive(Default)]
struct TextCells {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl TextCells {
    /// Adds `text` when there is one; whether there was.
    fn put(&mut self, text: Option<&[u8]>) -> bool {
        let Some(text) = text else {
            return false;
        };
        self.bytes.extend_from_slice(text);
        self.ends.push(self.bytes.len());
        true
    }
}

impl Cells {
    /// Empty cells for a column read by `get`.
    pub fn new<R>(get: &Getter<R>, nullable: bool) -> Self {
        let values = match get {
            Getter::Int64(_) | Getter::Time(_) => Values::Int64(Vec::new()),
            Getter::Int32(_) => Values::Int32(Vec::new()),
            Getter::Double(_) => Values::Double(Vec::new()),
            Getter::Bool(_) => Values::Bool(Vec::new()),
            Getter::Text(_) | Getter::Value(_) => Values::Text(TextCells::default()),
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
            values: Values::Text(TextCells::default()),
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
            (Getter::Text(f), Values::Text(t)) => {
                put_all_texts(t, levels, rows, |r| f(r).map(str::as_bytes))
            }
            (Getter::Value(f), Values::Text(t)) => {
                put_all_texts(t, levels, rows, |r| f(r).map(ByteArray::data))
            }
            _ => Err(anyhow::anyhow!(WRONG_TYPE)),
        }
    }

    /// Adds a text cell (the key columns, which the writer fills from the session).
    pub fn push_text(&mut self, text: Option<&ByteArray>) -> anyhow::Result<()> {
        let Values::Text(t) = &mut self.values else {
            return Err(anyhow::anyhow!(WRONG_TYPE));
        };
        let present = t.put(text.map(ByteArray::data));
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

    /// Writes the buffered cells to `writer` and empties the buffer, giving back its room (the
    /// next row group grows its own: a writer between row groups holds only the rows buffered
    /// since, and a table whose session has ended holds no row group's worth of room).
    pub fn write_to(&mut self, writer: &mut ColumnWriter<'_>) -> anyhow::Result<()> {
        let levels = self.nullable.then_some(self.levels.as_slice());
        match (&mut self.values, writer) {
            (Values::Int64(v), ColumnWriter::Int64ColumnWriter(w)) => write(w, v, levels),
            (Values::Int32(v), ColumnWriter::Int32ColumnWriter(w)) => write(w, v, levels),
            (Values::Double(v), ColumnWriter::DoubleColumnWriter(w)) => write(w, v, levels),
            (Values::Bool(v), ColumnWriter::BoolColumnWriter(w)) => write(w, v, levels),
            (Values::Text(t), ColumnWriter::ByteArrayColumnWriter(w)) => write_texts(w, t, levels),
            _ => Err(anyhow::anyhow!(WRONG_TYPE)),
        }?;
        self.levels = Vec::new();
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

/// [`put_all`] for a text column: each row's bytes, as `get` reads them, into `texts`.
fn put_all_texts<R>(
    texts: &mut TextCells,
    levels: Option<&mut Vec<i16>>,
    rows: &[R],
    get: impl for<'a> Fn(&'a R) -> Option<&'a [u8]>,
) -> anyhow::Result<()> {
    match levels {
        Some(levels) => {
            for row in rows {
                levels.push(i16::from(texts.put(get(row))));
            }
        }
        None => {
            for row in rows {
                if !texts.put(get(row)) {
                    return Err(anyhow::anyhow!(MISSING));
                }
            }
        }
    }
    Ok(())
}

/// Writes the text cells (and `levels`) in batches of [`TEXT_RUN`] rows, each value a slice of
/// the one buffer, and lets the cells go.
fn write_texts(
    writer: &mut ColumnWriterImpl<'_, ByteArrayType>,
    texts: &mut TextCells,
    levels: Option<&[i16]>,
) -> anyhow::Result<()> {
    let TextCells { bytes, ends } = std::mem::take(texts);
    let bytes = Bytes::from(bytes);
    let rows = levels.map_or(ends.len(), <[i16]>::len);
    let (mut row, mut value, mut start) = (0, 0, 0);
    let mut batch = Vec::with_capacity(TEXT_RUN.min(ends.len()));
    while row < rows {
        let run = (rows - row).min(TEXT_RUN);
        let run_levels = levels.and_then(|l| l.get(row..row + run));
        let present = run_levels.map_or(run, |l| l.iter().filter(|&&d| d == 1).count());
        batch.clear();
        for &end in ends.get(value..value + present).unwrap_or_default() {
            batch.push(ByteArray::from(bytes.slice(start..end)));
            start = end;
        }
        writer.write_batch(&batch, run_levels, None)?;
        (row, value) = (row + run, value + present);
    }
    Ok(())
}

/// Writes `values` (and `levels`) as one batch and lets `values` go, room and all.
fn write<T: DataType>(
    writer: &mut ColumnWriterImpl<'_, T>,
    values: &mut Vec<T::T>,
    levels: Option<&[i16]>,
) -> anyhow::Result<()> {
    writer.write_batch(values, levels, None)?;
    *values = Vec::new();
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
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
    fn texts_are_kept_in_one_buffer_and_a_wrong_getter_is_refused() {
        let get: Getter<Row> = Getter::Text(|r| Some(r.name));
        let mut cells = Cells::new(&get, false);
        cells.push_all(&get, &[Row { n: None, name: "a" }]).unwrap();
        cells.push_text(Some(&ByteArray::from("bc"))).unwrap();
        let Values::Text(t) = &cells.values else {
            panic!("text cells")
        };
        assert_eq!(
            (t.bytes.as_slice(), t.ends.as_slice()),
            (&b"abc"[..], &[1, 3][..])
        );
        let other: Getter<Row> = Getter::Int64(|r| r.n);
        let row = Row {
            n: Some(1),
            name: "",
        };
        let error = cells.push_all(&other, &[row]).unwrap_err().to_string();
        assert_eq!(error, WRONG_TYPE);
    }

    /// Writes `cells` as the one column of a Parquet file and reads its values back.
    fn written_and_read(mut cells: Cells, nullable: bool) -> Vec<Option<String>> {
        text_column_read_back(nullable, |column| cells.write_to(column).unwrap())
    }

    /// The values of a one-column text file that `write` wrote, read back.
    pub(in crate::export) fn text_column_read_back(
        nullable: bool,
        write: impl FnOnce(&mut ColumnWriter<'_>),
    ) -> Vec<Option<String>> {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        use parquet::file::writer::SerializedFileWriter;
        use parquet::record::Field;
        use parquet::schema::parser::parse_message_type;
        use std::sync::Arc;
        let repetition = if nullable { "optional" } else { "required" };
        let schema = format!("message m {{ {repetition} binary t (STRING); }}");
        let schema = Arc::new(parse_message_type(&schema).unwrap());
        let file = tempfile::tempfile().unwrap();
        let mut writer =
            SerializedFileWriter::new(file.try_clone().unwrap(), schema, Default::default())
                .unwrap();
        let mut group = writer.next_row_group().unwrap();
        let mut column = group.next_column().unwrap().unwrap();
        write(column.untyped());
        column.close().unwrap();
        group.close().unwrap();
        writer.close().unwrap();
        let reader = SerializedFileReader::new(file).unwrap();
        let rows = reader.get_row_iter(None).unwrap();
        rows.map(|row| {
            let row = row.unwrap();
            match row.get_column_iter().next() {
                Some((_, Field::Str(text))) => Some(text.clone()),
                _ => None,
            }
        })
        .collect()
    }

    #[test]
    fn texts_over_several_runs_are_written_in_order_with_their_nulls() {
        // More rows than a run, nulls among them, so that runs hold different numbers of values.
        let texts: Vec<Option<String>> = (0..TEXT_RUN * 2 + 77)
            .map(|i| (i % 3 != 0).then(|| format!("text {i}")))
            .collect();
        for nullable in [true, false] {
            let expected: Vec<Option<String>> = texts
                .iter()
                .filter(|t| nullable || t.is_some())
                .cloned()
                .collect();
            let mut cells = Cells::text(nullable);
            for t in &expected {
                cells
                    .push_text(t.as_deref().map(ByteArray::from).as_ref())
                    .unwrap();
            }
            assert_eq!(
                written_and_read(cells, nullable),
                expected,
                "nullable {nullable}"
            );
        }
    }
}
