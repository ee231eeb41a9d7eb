//! The Parquet writer of one table's part file: rows are read into one buffer per column
//! (`cells.rs`) as they come, up to a row group ([`ROW_GROUP_ROWS`]), then written column by
//! column (Snappy pages, dictionary encoding for repeated text), so a writer holds at most one
//! row group whatever the number of sessions. `session_id` and `path` come from the session
//! the rows belong to; each file's key-value metadata carries `schema_version`, the table and
//! the writer.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, anyhow};
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;

use super::cells::Cells;
use super::key_cells::KeyCells;
pub use super::key_cells::SessionKey;
use super::table::{KEY_COLUMNS, Table};

/// The version of the tables' layout, in every file's key-value metadata: a column renamed,
/// removed or retyped changes it; a column added at the end does not.
pub const SCHEMA_VERSION: &str = "1";

/// Rows per row group: a writer's buffer never holds more.
pub const ROW_GROUP_ROWS: usize = 65_536;

/// Rows staged before their cells are read, a column at a time (they stay in the cache).
const STAGED_ROWS: usize = 256;

/// One table's part file being written.
pub struct TableWriter<R: 'static> {
    table: &'static Table<R>,
    file: PathBuf,
    writer: SerializedFileWriter<File>,
    /// The buffered rows' cells, one per column of the table (the key columns aside).
    cells: Vec<Cells>,
    /// Rows pushed but not yet read into `cells`: read a column at a time over a few hundred
    /// rows ([`STAGED_ROWS`]), so that each column's getter is chosen once per batch instead
    /// of once per cell (a row at a time, the choice among the columns' getters was a quarter
    /// of the `events` table's time).
    staged: Vec<R>,
    /// Per buffered row: its session, an index into `keys`.
    row_keys: Vec<u32>,
    /// The sessions of the buffered rows.
    keys: Vec<Arc<SessionKey>>,
    /// The key columns' cells, reused while row groups hold one session's rows.
    key_cells: KeyCells,
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
            cells: table
                .columns
                .iter()
                .map(|c| Cells::new(&c.get, c.nullable))
                .collect(),
            staged: Vec::with_capacity(STAGED_ROWS.min(row_group_rows.max(1))),
            row_keys: Vec::new(),
            keys: Vec::new(),
            key_cells: KeyCells::default(),
            written: 0,
            row_group_rows: row_group_rows.max(1),
        })
    }

    /// Adds a row of session `key` (its cells read into the buffer a few hundred rows at a
    /// time, the rows then dropped), writing a row group when the buffer is full.
    pub fn push(&mut self, key: &Arc<SessionKey>, row: R) -> anyhow::Result<()> {
        self.staged.push(row);
        if !self.keys.last().is_some_and(|k| Arc::ptr_eq(k, key)) {
            self.keys.push(Arc::clone(key));
        }
        self.row_keys.push((self.keys.len() - 1) as u32);
        if self.row_keys.len() >= self.row_group_rows {
            self.flush()?;
        } else if self.staged.len() >= STAGED_ROWS {
            self.read_staged()?;
        }
        Ok(())
    }

    /// Reads the staged rows' cells into the buffer, a column at a time, and drops the rows.
    fn read_staged(&mut self) -> anyhow::Result<()> {
        for (column, cells) in self.table.columns.iter().zip(&mut self.cells) {
            cells
                .push_all(&column.get, &self.staged)
                .with_context(|| format!("column {} of table {}", column.name, self.table.name))?;
        }
        self.staged.clear();
        Ok(())
    }

    /// Writes the buffered rows as one row group.
    fn flush(&mut self) -> anyhow::Result<()> {
        self.read_staged()?;
        if self.row_keys.is_empty() {
            return Ok(());
        }
        let context = || format!("cannot write {}", self.file.display());
        let mut group = self.writer.next_row_group().with_context(context)?;
        let mut k = 0;
        while let Some(mut column) = group.next_column().with_context(context)? {
            let written = if k < KEY_COLUMNS.len() {
                self.key_cells
                    .write(column.untyped(), k, &self.row_keys, &self.keys)
            } else {
                match self.cells.get_mut(k - KEY_COLUMNS.len()) {
                    Some(cells) => cells.write_to(column.untyped()),
                    None => Err(anyhow!("more columns in the schema than in the table")),
                }
            };
            let name = column_name(self.table, k);
            written.with_context(|| format!("column {name} of table {}", self.table.name))?;
            column.close().with_context(context)?;
            k += 1;
        }
        group.close().with_context(context)?;
        self.written += self.row_keys.len() as u64;
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
