//! The `sessions` table: each row as a [`SessionHeader`], the default choice (greatest
//! `created_at`, ties to the later row; docs/check.md) and per-session event counts.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use super::packed_rows::packed_member_count;
use super::sqlite_rows::RowFail;
use super::sqlite_schema::{Schema, sqlite_error};
use super::{SessionInfo, StoreError};
use surface_engine::{ChunkKind, SessionHeader};

/// One `sessions` row.
#[derive(Clone, Debug)]
pub struct SessionRow {
    /// Its rowid (file order), or its position when the table has no rowid.
    pub rowid: i64,
    /// The metadata as a header.
    pub header: SessionHeader,
}

/// Every session row, in rowid order.
pub fn session_rows(conn: &Connection, path: &Path) -> Result<Vec<SessionRow>, StoreError> {
    let rows = query_sessions(
        conn,
        "SELECT rowid AS __sv_rowid, * FROM sessions ORDER BY rowid",
    )
    .or_else(|_| query_sessions(conn, "SELECT * FROM sessions"))
    .map_err(|e| sqlite_error(path, e))?;
    Ok(rows)
}

fn query_sessions(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<SessionRow>> {
    let mut stmt = conn.prepare(sql)?;
    let names: Vec<String> = stmt.column_names().map(str::to_string).collect();
    let col = |n: &str| names.iter().position(|c| c.eq_ignore_ascii_case(n));
    let (rowid_col, id, version, created, cwd, parent, seed, origin, depth, preset) = (
        col("__sv_rowid"),
        col("id"),
        col("version"),
        col("created_at"),
        col("cwd"),
        col("parent_session"),
        col("seed_length"),
        col("origin"),
        col("delegation_depth"),
        col("agent_preset"),
    );
    let mut out = Vec::new();
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let text = |c: Option<usize>| c.and_then(|i| text_of(r.get_ref(i).ok()?));
        let int = |c: Option<usize>| c.and_then(|i| int_of(r.get_ref(i).ok()?));
        let position = out.len() as i64;
        out.push(SessionRow {
            rowid: int(rowid_col).unwrap_or(position),
            header: SessionHeader {
                id: text(id).unwrap_or_default(),
                version: int(version),
                created_at: int(created),
                cwd: text(cwd),
                parent_session: text(parent),
                seed_length: int(seed).and_then(|s| u64::try_from(s).ok()),
                origin: text(origin),
                delegation_depth: int(depth),
                agent_preset: text(preset),
            },
        });
    }
    Ok(out)
}

/// A TEXT value as a string.
fn text_of(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
        _ => None,
    }
}

/// An INTEGER value (a whole REAL, as schema 9's `created_at`, is accepted).
fn int_of(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(f) if f.is_finite() && f.abs() < 9.0e15 => Some(f.trunc() as i64),
        _ => None,
    }
}

/// The session to read: `wanted` by id, else the only one, else the greatest `created_at`
/// with ties going to the later row.
pub fn choose<'r>(
    rows: &'r [SessionRow],
    wanted: Option<&str>,
    path: &Path,
) -> Result<&'r SessionRow, StoreError> {
    if let Some(id) = wanted {
        return rows
            .iter()
            .find(|r| r.header.id == id)
            .ok_or_else(|| StoreError::UnknownSession {
                path: path.to_path_buf(),
                id: id.to_string(),
                available: rows
                    .iter()
                    .map(|r| r.header.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
    }
    rows.iter()
        .max_by_key(|r| (r.header.created_at, r.rowid))
        .ok_or_else(|| StoreError::Sqlite {
            path: path.to_path_buf(),
            message: "the database holds no session".into(),
        })
}

/// The [`SessionInfo`] of a row with its event count.
pub fn info_of(row: &SessionRow, events: u64) -> SessionInfo {
    let h = &row.header;
    SessionInfo {
        id: h.id.clone(),
        created: h.created_at,
        events,
        parent: h.parent_session.clone(),
        seed_length: h.seed_length,
        origin: h.origin.clone(),
    }
}

/// Events per session after packed rows are expanded: scalar rows are counted in SQL, packed
/// rows (`ignorable = 0`) by decoding their member lists (a malformed one, or one past the
/// per-event limit, counts 0, as it yields no event when read). Decoding more than the total
/// limit in all is [`StoreError::TooLarge`].
pub fn event_counts(
    conn: &Connection,
    schema: &Schema,
    path: &Path,
    limits: &crate::ReadLimits,
) -> Result<HashMap<String, u64>, StoreError> {
    let packed = schema.event_has("ignorable");
    let scalar_sql = if packed {
        "SELECT session_id, COUNT(*) FROM events WHERE ignorable IS NOT 0 GROUP BY session_id"
    } else {
        "SELECT session_id, COUNT(*) FROM events GROUP BY session_id"
    };
    let mut counts = HashMap::new();
    // Packed rows are decompressed to be counted: no more than the total limit in all.
    let mut decoded = 0u64;
    // `Ok(true)`: stopped past the total limit.
    let mut run = |counts: &mut HashMap<String, u64>| -> rusqlite::Result<bool> {
        let mut stmt = conn.prepare(scalar_sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let Some(id) = text_of(r.get_ref(0)?) else {
                continue;
            };
            let n: i64 = r.get(1)?;
            *counts.entry(id).or_insert(0) += n.max(0) as u64;
        }
        if !packed {
            return Ok(false);
        }
        let mut stmt =
            conn.prepare("SELECT session_id, type, data FROM events WHERE ignorable = 0")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let Some(id) = text_of(r.get_ref(0)?) else {
                continue;
            };
            let kind = text_of(r.get_ref(1)?).and_then(|t| ChunkKind::from_row_type(&t));
            let data = super::sqlite_rows::data_text(r.get_ref(2)?, limits.event_len());
            decoded = decoded.saturating_add(match &data {
                Ok(json) => json.len() as u64,
                Err(RowFail::TooLong(_)) => limits.event_bytes() + 1,
                Err(RowFail::Bad(_)) => 0,
            });
            if decoded > limits.total_bytes() {
                return Ok(true);
            }
            let members = match (kind, data) {
                (Some(kind), Ok(json)) => packed_member_count(kind, &json).unwrap_or(0),
                _ => 0,
            };
            *counts.entry(id).or_insert(0) += members as u64;
        }
        Ok(false)
    };
    let too_large = run(&mut counts).map_err(|e| sqlite_error(path, e))?;
    if too_large {
        return Err(StoreError::TooLarge {
            path: path.to_path_buf(),
            limit: limits.total_bytes(),
        });
    }
    Ok(counts)
}
