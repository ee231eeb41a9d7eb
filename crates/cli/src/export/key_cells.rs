//! The cells of the two key columns every table begins with (`session_id`, `path`), which the
//! writer fills from the session each buffered row belongs to. A row group whose rows are all
//! one session's (every row group of a long session) is written from one short vector of that
//! session's value per column ([`TEXT_RUN`] copies), made once and written as many times as the
//! rows need, instead of a copy of the value per row and row group: a million-event session's
//! `events` table would otherwise copy (and count references to) each key two million times,
//! and hold a row group's worth of copies.

use std::sync::Arc;

use anyhow::anyhow;
use parquet::column::writer::ColumnWriter;
use parquet::data_type::ByteArray;

use super::cells::{Cells, TEXT_RUN};
use super::table::KEY_COLUMNS;

/// The session rows belong to: the two columns every table begins with.
#[derive(Debug, PartialEq, Eq)]
pub struct SessionKey {
    /// The header's session id (`None` when the file could not be read far enough to know it).
    pub session_id: Option<String>,
    /// The source file as found.
    pub path: String,
}

/// The reusable cells of the key columns of one session's rows.
#[derive(Default)]
pub struct KeyCells {
    /// The session the vectors below hold the keys of.
    session: Option<Arc<SessionKey>>,
    /// Per key column: the session's value, [`TEXT_RUN`] times (empty when it is null).
    values: [Vec<ByteArray>; KEY_COLUMNS.len()],
    /// Per key column: [`TEXT_RUN`] definition levels (all 1, or all 0 for null).
    levels: [Vec<i16>; KEY_COLUMNS.len()],
}

impl KeyCells {
    /// Writes key column `k` of the buffered rows — row `i` belongs to `keys[row_keys[i]]` —
    /// to `writer`.
    pub fn write(
        &mut self,
        writer: &mut ColumnWriter<'_>,
        k: usize,
        row_keys: &[u32],
        keys: &[Arc<SessionKey>],
    ) -> anyhow::Result<()> {
        let nullable = KEY_COLUMNS.get(k).is_some_and(|(_, n)| *n);
        let [key] = keys else {
            return write_each(writer, k, nullable, row_keys, keys);
        };
        if !self.session.as_ref().is_some_and(|s| Arc::ptr_eq(s, key)) {
            *self = KeyCells {
                session: Some(Arc::clone(key)),
                ..KeyCells::default()
            };
        }
        let value = value_of(key, k);
        let (Some(values), Some(levels)) = (self.values.get_mut(k), self.levels.get_mut(k)) else {
            return Err(anyhow!("no key column {k}"));
        };
        if let Some(v) = &value
            && values.is_empty()
        {
            values.resize(TEXT_RUN, v.clone());
        }
        if nullable && levels.is_empty() {
            levels.resize(TEXT_RUN, i16::from(value.is_some()));
        }
        let ColumnWriter::ByteArrayColumnWriter(w) = writer else {
            return Err(anyhow!("the key column {k} is not text"));
        };
        let mut left = row_keys.len();
        while left > 0 {
            let run = left.min(TEXT_RUN);
            let values = if value.is_some() { &values[..run] } else { &[] };
            w.write_batch(values, nullable.then(|| &levels[..run]), None)?;
            left -= run;
        }
        Ok(())
    }
}

/// Key column `k`'s value for `key` (`None`: null).
fn value_of(key: &SessionKey, k: usize) -> Option<ByteArray> {
    match k {
        0 => key.session_id.as_deref().map(ByteArray::from),
        _ => Some(ByteArray::from(key.path.as_str())),
    }
}

/// Key column `k` of rows of several sessions, a cell per row.
fn write_each(
    writer: &mut ColumnWriter<'_>,
    k: usize,
    nullable: bool,
    row_keys: &[u32],
    keys: &[Arc<SessionKey>],
) -> anyhow::Result<()> {
    let texts: Vec<Option<ByteArray>> = keys.iter().map(|key| value_of(key, k)).collect();
    let mut cells = Cells::text(nullable);
    for &i in row_keys {
        cells.push_text(texts.get(i as usize).and_then(Option::as_ref))?;
    }
    cells.write_to(writer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::cells::tests::text_column_read_back;

    #[test]
    fn one_sessions_keys_over_several_runs_are_one_per_row() {
        let key = Arc::new(SessionKey {
            session_id: None,
            path: "a.jsonl".into(),
        });
        let rows = vec![0; TEXT_RUN * 2 + 5];
        for (k, expected) in [(0, None), (1, Some("a.jsonl".to_string()))] {
            let mut cells = KeyCells::default();
            let nullable = KEY_COLUMNS[k].1;
            let read = text_column_read_back(nullable, |column| {
                cells
                    .write(column, k, &rows, std::slice::from_ref(&key))
                    .unwrap()
            });
            assert_eq!(read, vec![expected; rows.len()], "key column {k}");
        }
    }
}
