//! SQLite session databases (schemas 1–17, docs/parity.md), opened strictly read-only.
//!
//! The schema is recognised by `PRAGMA user_version` and, above all, by the columns present:
//! without `source_event_seqs`/`surface_op` (schema 1, master 2 and 3) the log is a legacy
//! log; JSON-text columns up to 15; schema 17 adds Zstandard BLOB `data`, varint BLOB
//! `source_event_seqs` and packed chunk rows (`ignorable = 0`). A version this viewer does
//! not know (16, or later than 17) is read best-effort when the needed columns exist, and
//! refused with [`StoreError::Sqlite`] naming the missing columns otherwise.
//!
//! Everything is read in one short read transaction, which never blocks a writer in WAL mode.

use std::path::Path;

use rusqlite::Connection;

use super::limits::ReadLimits;
use super::progress::LoadProgress;
use super::sqlite_rows::{RawRow, RowReader};
use super::sqlite_schema::{Schema, open_read_only, read_schema, sqlite_error};
use super::sqlite_sessions::{choose, event_counts, info_of, session_rows};
use super::{SessionInfo, StoreError};
use surface_engine::{EventLog, LogProblem, ProblemKind, SessionHeader};

/// Rows between progress reports and cancel checks.
const REPORT_EVERY: u64 = 1024;

/// Lists the sessions of a database, in row order, with their event counts (packed rows
/// counted by members; one past the per-event limit counts none).
pub fn list_sqlite_sessions(
    path: &Path,
    limits: &ReadLimits,
) -> Result<Vec<SessionInfo>, StoreError> {
    let conn = open_read_only(path)?;
    let _read = conn
        .unchecked_transaction()
        .map_err(|e| sqlite_error(path, e))?;
    let schema = read_schema(&conn, path)?;
    let rows = session_rows(&conn, path)?;
    let counts = event_counts(&conn, &schema, path, limits)?;
    Ok(rows
        .iter()
        .map(|r| info_of(r, counts.get(&r.header.id).copied().unwrap_or(0)))
        .collect())
}

/// Reads one session (`session` by id; else the only one, else the most recently created,
/// ties to the later row), holding each row to the per-event limit and the session's text to
/// the total ([`StoreError::TooLarge`]). `Ok(None)` when cancelled.
pub fn read_sqlite(
    path: &Path,
    session: Option<&str>,
    progress: Option<&LoadProgress>,
    limits: &ReadLimits,
) -> Result<Option<(EventLog, SessionInfo)>, StoreError> {
    let conn = open_read_only(path)?;
    let _read = conn
        .unchecked_transaction()
        .map_err(|e| sqlite_error(path, e))?;
    let schema = read_schema(&conn, path)?;
    let rows = session_rows(&conn, path)?;
    let chosen = choose(&rows, session, path)?;
    let reader = RowReader::new(0, limits);
    let Some(reader) = read_events(
        &conn,
        &schema,
        &chosen.header.id,
        path,
        progress,
        reader,
        None,
    )?
    else {
        return Ok(None);
    };
    let (arena, mut batch) = reader.finish();
    if let Some(problem) = version_problem(&chosen.header) {
        batch.problems.insert(0, problem);
    }
    let log = EventLog::new(Some(chosen.header.clone()), arena, batch);
    let info = info_of(chosen, log.len() as u64);
    Ok(Some((log, info)))
}

/// Rows of one session appended since a live follower last read it.
pub struct NewRows {
    /// Text to append to the log's text (the batch's offsets already count from its end).
    pub arena: Vec<u8>,
    /// The new events and problems.
    pub batch: surface_engine::EventBatch,
    /// The greatest row seq read, if any row was new.
    pub max_row_seq: Option<u64>,
    /// The session's greatest row seq now (to notice rows deleted underneath).
    pub session_max_seq: Option<u64>,
}

/// Reads the rows of session `id` whose seq is greater than `after`, for a log whose text is
/// `base` bytes long, holding the text to `limits` (base included). One short read
/// transaction; never blocks a writer.
pub fn read_sqlite_rows_after(
    path: &Path,
    id: &str,
    after: Option<u64>,
    base: u64,
    limits: &ReadLimits,
) -> Result<NewRows, StoreError> {
    let conn = open_read_only(path)?;
    let _read = conn
        .unchecked_transaction()
        .map_err(|e| sqlite_error(path, e))?;
    let schema = read_schema(&conn, path)?;
    let session_max_seq: Option<i64> = conn
        .query_row(
            "SELECT MAX(seq) FROM events WHERE session_id = ?1",
            [id],
            |r| r.get(0),
        )
        .map_err(|e| sqlite_error(path, e))?;
    let reader = RowReader::new(base, limits);
    let Some(reader) = read_events(&conn, &schema, id, path, None, reader, after)? else {
        return Err(StoreError::Cancelled {
            path: path.to_path_buf(),
        });
    };
    let max_row_seq = reader.max_row_seq;
    let (arena, batch) = reader.finish();
    Ok(NewRows {
        arena,
        batch,
        max_row_seq,
        session_max_seq: session_max_seq.and_then(|s| u64::try_from(s).ok()),
    })
}

/// Reads the session's rows ordered by seq (only those after `after`, when given).
/// `Ok(None)` when cancelled.
fn read_events(
    conn: &Connection,
    schema: &Schema,
    id: &str,
    path: &Path,
    progress: Option<&LoadProgress>,
    mut reader: RowReader,
    after: Option<u64>,
) -> Result<Option<RowReader>, StoreError> {
    let err = |e| sqlite_error(path, e);
    if let Some(p) = progress {
        let total: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM events WHERE session_id = ?1",
                [id],
                |r| r.get(0),
            )
            .map_err(err)?;
        p.set_total(total.max(0) as u64);
    }
    // A follower reads only rows after the last one it saw; a load reads every row, including
    // rows whose seq is not even an integer (they become problems).
    let after_clause = if after.is_some() {
        "AND seq > ?2"
    } else {
        "AND ?2 IS NULL"
    };
    let after = after.map(|a| i64::try_from(a).unwrap_or(i64::MAX));
    let sql = format!(
        "SELECT seq, type, {}, data, {}, {}, {} FROM events WHERE session_id = ?1 {after_clause} ORDER BY seq",
        schema.event_column_or_null("time"),
        schema.event_column_or_null("source_event_seqs"),
        schema.event_column_or_null("surface_op"),
        schema.event_column_or_null("ignorable"),
    );
    let mut stmt = conn.prepare(&sql).map_err(err)?;
    let mut rows = stmt.query(rusqlite::params![id, after]).map_err(err)?;
    let mut since_report = 0;
    while let Some(r) = rows.next().map_err(err)? {
        let raw = RawRow {
            seq: r.get_ref(0).map_err(err)?,
            type_name: r.get_ref(1).map_err(err)?,
            time: r.get_ref(2).map_err(err)?,
            data: r.get_ref(3).map_err(err)?,
            sources: r.get_ref(4).map_err(err)?,
            op: r.get_ref(5).map_err(err)?,
            ignorable: r.get_ref(6).map_err(err)?,
        };
        reader.row(&raw);
        if reader.too_large() {
            return Err(StoreError::TooLarge {
                path: path.to_path_buf(),
                limit: reader.max_total(),
            });
        }
        since_report += 1;
        if since_report == REPORT_EVERY {
            if let Some(p) = progress {
                p.advance(since_report);
                if p.is_cancelled() {
                    return Ok(None);
                }
            }
            since_report = 0;
        }
    }
    if let Some(p) = progress {
        p.advance(since_report);
        if p.is_cancelled() {
            return Ok(None);
        }
    }
    Ok(Some(reader))
}

/// The `header.version` problem for a session-format version other than 0 or 1, as for a
/// JSONL header.
fn version_problem(header: &SessionHeader) -> Option<LogProblem> {
    (!header.version_is_known()).then(|| LogProblem {
        kind: ProblemKind::HeaderVersion,
        line: None,
        seq: None,
        offset: None,
        bytes: None,
        message: format!(
            "sessions.version {} is neither 0 nor 1; reading by structure",
            header
                .version
                .map_or("(missing)".to_string(), |v| v.to_string())
        ),
    })
}
