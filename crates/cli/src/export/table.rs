//! A table of the export as the Parquet writer sees it: its name and its columns, each a name,
//! a Parquet type (strict: integers as INT64/INT32, flags as BOOLEAN, times as
//! TIMESTAMP(MILLIS) adjusted to UTC, text as UTF-8 strings), whether it may be null, and how to
//! read its value from a row. Every table begins with `session_id` and `path`, which the writer
//! adds from the session the rows belong to.

use std::sync::Arc;

use parquet::basic::{LogicalType, Repetition, TimeUnit, Type as Physical};
use parquet::data_type::ByteArray;
use parquet::schema::types::Type;

/// The value of one cell, read from a row (`None`: null).
pub enum Getter<R> {
    /// INT64.
    Int64(fn(&R) -> Option<i64>),
    /// INT32.
    Int32(fn(&R) -> Option<i32>),
    /// DOUBLE.
    Double(fn(&R) -> Option<f64>),
    /// BOOLEAN.
    Bool(fn(&R) -> Option<bool>),
    /// BYTE_ARRAY holding UTF-8 (logical type STRING).
    Text(for<'a> fn(&'a R) -> Option<&'a str>),
    /// STRING as [`Getter::Text`], from a Parquet value the row holds (an event's type).
    Value(fn(&R) -> Option<&ByteArray>),
    /// INT64 epoch milliseconds (logical type TIMESTAMP(MILLIS, UTC)).
    Time(fn(&R) -> Option<i64>),
}

/// One column of a table.
pub struct Column<R> {
    /// Its name.
    pub name: &'static str,
    /// Whether it may hold null.
    pub nullable: bool,
    /// How to read it from a row.
    pub get: Getter<R>,
}

impl<R> Column<R> {
    /// A column that is never null (a `None` from `get` is an error of the exporter).
    pub const fn required(name: &'static str, get: Getter<R>) -> Self {
        Column {
            name,
            nullable: false,
            get,
        }
    }

    /// A column that may be null.
    pub const fn nullable(name: &'static str, get: Getter<R>) -> Self {
        Column {
            name,
            nullable: true,
            get,
        }
    }

    /// The Parquet type's name as `docs/export.md` writes it.
    pub fn type_name(&self) -> &'static str {
        match self.get {
            Getter::Int64(_) => "INT64",
            Getter::Int32(_) => "INT32",
            Getter::Double(_) => "DOUBLE",
            Getter::Bool(_) => "BOOLEAN",
            Getter::Text(_) | Getter::Value(_) => "STRING",
            Getter::Time(_) => "TIMESTAMP(MILLIS, UTC)",
        }
    }

    /// The column's Parquet schema node.
    fn parquet_type(&self) -> parquet::errors::Result<Type> {
        let (physical, logical) = match self.get {
            Getter::Int64(_) => (Physical::INT64, None),
            Getter::Int32(_) => (Physical::INT32, None),
            Getter::Double(_) => (Physical::DOUBLE, None),
            Getter::Bool(_) => (Physical::BOOLEAN, None),
            Getter::Text(_) | Getter::Value(_) => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
            Getter::Time(_) => (
                Physical::INT64,
                Some(LogicalType::timestamp(true, TimeUnit::MILLIS)),
            ),
        };
        Type::primitive_type_builder(self.name, physical)
            .with_repetition(if self.nullable {
                Repetition::OPTIONAL
            } else {
                Repetition::REQUIRED
            })
            .with_logical_type(logical)
            .build()
    }
}

/// A table: its folder's name and its columns after `session_id` and `path`.
pub struct Table<R: 'static> {
    /// The folder under OUT (`events`, …).
    pub name: &'static str,
    /// The columns, in order.
    pub columns: &'static [Column<R>],
}

/// The two columns every table begins with.
pub const KEY_COLUMNS: [(&str, bool); 2] = [("session_id", true), ("path", false)];

impl<R> Table<R> {
    /// The Parquet schema: `session_id`, `path`, then the table's columns.
    pub fn schema(&self) -> parquet::errors::Result<Arc<Type>> {
        let mut fields = Vec::with_capacity(self.columns.len() + KEY_COLUMNS.len());
        for (name, nullable) in KEY_COLUMNS {
            let key: Column<()> = Column {
                name,
                nullable,
                get: Getter::Text(|_| None),
            };
            fields.push(Arc::new(key.parquet_type()?));
        }
        for c in self.columns {
            fields.push(Arc::new(c.parquet_type()?));
        }
        Ok(Arc::new(
            Type::group_type_builder("schema")
                .with_fields(fields)
                .build()?,
        ))
    }

    /// The names of the text columns, the key columns included.
    pub fn text_columns(&self) -> Vec<&'static str> {
        let keys = KEY_COLUMNS.iter().map(|(name, _)| *name);
        keys.chain(
            self.columns
                .iter()
                .filter(|c| matches!(c.get, Getter::Text(_) | Getter::Value(_)))
                .map(|c| c.name),
        )
        .collect()
    }

    /// Every column as `(name, type, nullable)`, the key columns first (for the docs' table).
    pub fn describe(&self) -> Vec<(&'static str, &'static str, bool)> {
        let keys = KEY_COLUMNS.map(|(name, nullable)| (name, "STRING", nullable));
        keys.into_iter()
            .chain(
                self.columns
                    .iter()
                    .map(|c| (c.name, c.type_name(), c.nullable)),
            )
            .collect()
    }
}

/// `u64` as Parquet's signed INT64 (figures past `i64::MAX` do not occur; they would saturate).
pub fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The null of a compact row's INT64 field (figures saturate at `i64::MAX`, so none is this).
pub const NULL: i64 = i64::MIN;

/// A compact row's INT64 field as a cell.
pub fn or_null(v: i64) -> Option<i64> {
    (v != NULL).then_some(v)
}

/// An optional `u64` as INT64.
pub fn opt_int(v: Option<u64>) -> Option<i64> {
    v.map(int)
}

/// A count as INT64.
pub fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Row {
        n: u64,
        name: Option<String>,
    }

    static COLUMNS: [Column<Row>; 2] = [
        Column::required("n", Getter::Int64(|r| Some(int(r.n)))),
        Column::nullable("name", Getter::Text(|r| r.name.as_deref())),
    ];

    #[test]
    fn the_schema_has_the_key_columns_first_and_strict_types() {
        let table = Table {
            name: "t",
            columns: &COLUMNS,
        };
        let schema = table.schema().unwrap();
        let names: Vec<&str> = schema.get_fields().iter().map(|f| f.name()).collect();
        assert_eq!(names, ["session_id", "path", "n", "name"]);
        let path = &schema.get_fields()[1];
        assert_eq!(path.get_basic_info().repetition(), Repetition::REQUIRED);
        assert_eq!(
            path.get_basic_info().logical_type_ref(),
            Some(&LogicalType::String)
        );
        assert_eq!(
            table.describe()[2..],
            [("n", "INT64", false), ("name", "STRING", true)]
        );
        let row = Row { n: 3, name: None };
        assert!(matches!(COLUMNS[0].get, Getter::Int64(f) if f(&row) == Some(3)));
        assert!(matches!(COLUMNS[1].get, Getter::Text(f) if f(&row).is_none()));
    }

    #[test]
    fn figures_saturate_instead_of_wrapping() {
        assert_eq!(int(u64::MAX), i64::MAX);
        assert_eq!(opt_int(Some(7)), Some(7));
        assert_eq!(count(2), 2);
    }
}
