//! The Parquet writer of one table's part file: rows are buffered up to a row group
//! ([`ROW_GROUP_ROWS`]), then written column by column (Snappy pages, dictionary encoding for
//! repeated text) and dropped, so a writer holds at most one row group whatever the number of
//! sessions. `session_id` and `path` come from the session the rows belong to; each file's
//! key-value metadata carries `schema_version`, the table and the writer.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, anyhow};
use parquet::basic::Compression;
use parquet::column::writer::{ColumnWriter, ColumnWriterImpl};
use parquet::data_type::{ByteArray, DataType};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;

use super::table::{Getter, KEY_COLUMNS, Table};

/// The version of the tables' layout, in every file's key-value metadata: a column renamed,
/// removed or retyped changes it; a column added at the end does not.
pub const SCHEMA_VERSION: &str = "1";

/// Rows per row group: a writer's buffer never holds more.
pub const ROW_GROUP_ROWS: usize = 65_536;

/// The session rows belong to: the two columns every table begins with.
#[derive(Debug, PartialEq, Eq)]
pub struct SessionKey {
    /// The header's session id (`None` when the file could not be read far enough to know it).
    pub session_id: Option<String>,
    /// The source file as found.
    pub path: String,
}

/// One table's part file being written.
pub struct TableWriter<R: 'static> {
    table: &'static Table<R>,
    file: PathBuf,
    writer: SerializedFileWriter<File>,
    rows: Vec<R>,
    /// Per buffered row: its session, an index into `keys`.
    row_keys: Vec<u32>,
    /// The sessions of the buffered rows.
    keys: Vec<Arc<SessionKey>>,
    written: u64,
    row_group_rows: usize,
}

impl<R> TableWriter<R> {
    /// Creates `file` (a new file) for `table`.
    pub fn create(table: &'static Table<R>, file: &Path) -> anyhow::Result<Self> {
        Self::with_row_group_rows(table, file, ROW_GROUP_ROWS)
    }

    /// [`TableWriter::create`] with another row group size (tests).
    pub fn with_row_group_rows(
        table: &'static Table<R>,
        file: &Path,
        row_group_rows: usize,
    ) -> anyhow::Result<Self> {
        let schema = table
            .schema()
            .with_context(|| format!("the {} table's schema", table.name))?;
        // Dictionary encoding only where values repeat (text: types, states, paths); numbers
        // are plain-encoded. Statistics (min, max, nulls) per column chunk, for a reader's
        // pruning of row groups.
        let mut properties = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_dictionary_enabled(false)
            .set_statistics_enabled(EnabledStatistics::Chunk);
        for name in table.text_columns() {
            properties = properties.set_column_dictionary_enabled(ColumnPath::from(name), true);
        }
        let properties = properties
            .set_created_by(format!("surface-viewer {}", env!("CARGO_PKG_VERSION")))
            .set_key_value_metadata(Some(vec![
                KeyValue::new("schema_version".to_string(), SCHEMA_VERSION.to_string()),
                KeyValue::new("surface_viewer.table".to_string(), table.name.to_string()),
            ]))
            .build();
        let out =
            File::create_new(file).with_context(|| format!("cannot create {}", file.display()))?;
        let writer = SerializedFileWriter::new(out, schema, Arc::new(properties))
            .with_context(|| format!("cannot write {}", file.display()))?;
        Ok(TableWriter {
            table,
            file: file.to_path_buf(),
            writer,
            rows: Vec::new(),
            row_keys: Vec::new(),
            keys: Vec::new(),
            written: 0,
            row_group_rows: row_group_rows.max(1),
        })
    }

    /// Adds a row of session `key`, writing a row group when the buffer is full.
    pub fn push(&mut self, key: &Arc<SessionKey>, row: R) -> anyhow::Result<()> {
        if !self.keys.last().is_some_and(|k| Arc::ptr_eq(k, key)) {
            self.keys.push(Arc::clone(key));
        }
        self.row_keys.push((self.keys.len() - 1) as u32);
        self.rows.push(row);
        if self.rows.len() >= self.row_group_rows {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the buffered rows as one row group.
    fn flush(&mut self) -> anyhow::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let context = || format!("cannot write {}", self.file.display());
        let mut group = self.writer.next_row_group().with_context(context)?;
        let mut k = 0;
        while let Some(mut column) = group.next_column().with_context(context)? {
            let written = if k < KEY_COLUMNS.len() {
                write_key(column.untyped(), k, &self.row_keys, &self.keys)
            } else {
                match self.table.columns.get(k - KEY_COLUMNS.len()) {
                    Some(c) => write_column(column.untyped(), &c.get, c.nullable, &self.rows),
                    None => Err(anyhow!("more columns in the schema than in the table")),
                }
            };
            let name = column_name(self.table, k);
            written.with_context(|| format!("column {name} of table {}", self.table.name))?;
            column.close().with_context(context)?;
            k += 1;
        }
        group.close().with_context(context)?;
        self.written += self.rows.len() as u64;
        self.rows.clear();
        self.row_keys.clear();
        self.keys.clear();
        Ok(())
    }

    /// Writes what is buffered and closes the file (a valid Parquet file even with no row).
    /// Returns the rows written.
    pub fn finish(mut self) -> anyhow::Result<u64> {
        self.flush()?;
        self.writer
            .close()
            .with_context(|| format!("cannot finish {}", self.file.display()))?;
        Ok(self.written)
    }
}

/// The name of column `k` of `table`, the key columns counted.
fn column_name<R>(table: &Table<R>, k: usize) -> &'static str {
    match k.checked_sub(KEY_COLUMNS.len()) {
        None => KEY_COLUMNS.get(k).map_or("?", |(n, _)| n),
        Some(c) => table.columns.get(c).map_or("?", |c| c.name),
    }
}

/// `session_id` (k = 0) or `path` (k = 1) of every buffered row.
fn write_key(
    writer: &mut ColumnWriter<'_>,
    k: usize,
    row_keys: &[u32],
    keys: &[Arc<SessionKey>],
) -> anyhow::Result<()> {
    let texts: Vec<Option<ByteArray>> = keys
        .iter()
        .map(|key| match k {
            0 => key.session_id.as_deref().map(ByteArray::from),
            _ => Some(ByteArray::from(key.path.as_str())),
        })
        .collect();
    let nullable = KEY_COLUMNS.get(k).is_some_and(|(_, n)| *n);
    let get = |&i: &u32| texts.get(i as usize).cloned().flatten();
    let ColumnWriter::ByteArrayColumnWriter(w) = writer else {
        return Err(anyhow!("the schema does not make it a string column"));
    };
    write_values(w, row_keys, get, nullable)
}

/// One column of every buffered row.
fn write_column<R>(
    writer: &mut ColumnWriter<'_>,
    get: &Getter<R>,
    nullable: bool,
    rows: &[R],
) -> anyhow::Result<()> {
    match (get, writer) {
        (Getter::Int64(f) | Getter::Time(f), ColumnWriter::Int64ColumnWriter(w)) => {
            write_values(w, rows, f, nullable)
        }
        (Getter::Int32(f), ColumnWriter::Int32ColumnWriter(w)) => {
            write_values(w, rows, f, nullable)
        }
        (Getter::Double(f), ColumnWriter::DoubleColumnWriter(w)) => {
            write_values(w, rows, f, nullable)
        }
        (Getter::Bool(f), ColumnWriter::BoolColumnWriter(w)) => write_values(w, rows, f, nullable),
        (Getter::Text(f), ColumnWriter::ByteArrayColumnWriter(w)) => {
            let mut shared = SharedTexts::default();
            write_values(w, rows, |r| f(r).map(|s| shared.get(s)), nullable)
        }
        _ => Err(anyhow!("the schema's type differs from the table's")),
    }
}

/// The values `get` reads from `rows`, with definition levels when the column is nullable.
fn write_values<T: DataType, R>(
    writer: &mut ColumnWriterImpl<'_, T>,
    rows: &[R],
    mut get: impl FnMut(&R) -> Option<T::T>,
    nullable: bool,
) -> anyhow::Result<()> {
    let mut values = Vec::with_capacity(rows.len());
    let mut levels = Vec::with_capacity(if nullable { rows.len() } else { 0 });
    for row in rows {
        match get(row) {
            Some(v) => {
                values.push(v);
                if nullable {
                    levels.push(1);
                }
            }
            None if nullable => levels.push(0),
            None => return Err(anyhow!("a value of a column that is never null is missing")),
        }
    }
    let levels = nullable.then_some(levels.as_slice());
    writer.write_batch(&values, levels, None)?;
    Ok(())
}

/// The values of a text column whose rows share a few strings (an event's type, its state, a
/// session's path): each distinct string (by address) becomes one shared buffer that every row
/// holding it points to, instead of a copy per row. A column whose strings are all different
/// (messages, payloads) stops looking once [`SharedTexts::MAX`] are kept and none came back.
#[derive(Default)]
struct SharedTexts {
    seen: Vec<(usize, usize, ByteArray)>,
    hits: usize,
}

impl SharedTexts {
    const MAX: usize = 64;

    fn get(&mut self, text: &str) -> ByteArray {
        let key = (text.as_ptr() as usize, text.len());
        let looking = self.seen.len() < Self::MAX || self.hits > 0;
        if looking && let Some((_, _, shared)) = self.seen.iter().find(|(p, n, _)| (*p, *n) == key)
        {
            self.hits += 1;
            return shared.clone();
        }
        let value = ByteArray::from(text);
        if self.seen.len() < Self::MAX {
            self.seen.push((key.0, key.1, value.clone()));
        }
        value
    }
}
