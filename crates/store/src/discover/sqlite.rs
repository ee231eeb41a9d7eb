//! The cheap look at a SQLite file: a session store when it has a `sessions` table; then each
//! session row with its event count, latest title and last event time, from SQL alone (one
//! short read transaction, strictly read-only).

use rusqlite::{Connection, OptionalExtension as _};

use super::entry::{Probe, SessionEntry, project_of};
use super::walk::Candidate;
use crate::sqlite_rows::data_text;
use crate::sqlite_schema::{Schema, open_read_only, read_schema};
use crate::sqlite_sessions::{event_counts, session_rows};
use crate::{Format, StoreError};

/// Probes a file whose first bytes are the SQLite magic.
pub fn probe(c: &Candidate, limits: &crate::ReadLimits) -> Probe {
    match read(c, limits) {
        Ok(Some(entries)) => Probe::Sessions(entries),
        Ok(None) => Probe::NotASession,
        Err(e) => Probe::Unreadable(e.to_string()),
    }
}

fn read(
    c: &Candidate,
    limits: &crate::ReadLimits,
) -> Result<Option<Vec<SessionEntry>>, StoreError> {
    let path = c.path.as_path();
    let conn = open_read_only(path)?;
    let err = |e: rusqlite::Error| crate::sqlite_schema::sqlite_error(path, e);
    let has_sessions: bool = conn
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions' COLLATE NOCASE)",
            [],
            |r| r.get(0),
        )
        .map_err(err)?;
    if !has_sessions {
        return Ok(None);
    }
    let _read = conn.unchecked_transaction().map_err(err)?;
    let schema = read_schema(&conn, path)?;
    let rows = session_rows(&conn, path)?;
    let counts = event_counts(&conn, &schema, path, limits)?;
    let several = rows.len() > 1;
    let mut entries = Vec::with_capacity(rows.len());
    for row in rows {
        let h = row.header;
        let title = title_of(&conn, &schema, &h.id).map_err(err)?;
        let last_event = last_time(&conn, &schema, &h.id).map_err(err)?;
        entries.push(SessionEntry {
            packed: false,
            file: c.path.clone(),
            format: Format::Sqlite,
            size: c.size,
            modified: c.modified,
            project: project_of(h.cwd.as_deref(), &c.path),
            events: Some(counts.get(&h.id).copied().unwrap_or(0)),
            in_database: several,
            id: h.id,
            cwd: h.cwd,
            title,
            created: h.created_at,
            last_event,
            parent: h.parent_session,
            seed_length: h.seed_length,
            origin: h.origin,
        });
    }
    Ok(Some(entries))
}

/// The last `session/title` event's title, else the `sessions.title` column (schema 1).
fn title_of(conn: &Connection, schema: &Schema, id: &str) -> rusqlite::Result<Option<String>> {
    let data: Option<String> = conn
        .query_row(
            "SELECT data FROM events WHERE session_id = ?1 AND type = 'session/title' ORDER BY seq DESC LIMIT 1",
            [id],
            |r| {
                let max = crate::ReadLimits::default().event_len();
                Ok(data_text(r.get_ref(0)?, max).ok().map(|t| t.into_owned()))
            },
        )
        .optional()?
        .flatten();
    if let Some(title) = data
        .and_then(|d| serde_json::from_str::<serde_json::Value>(&d).ok())
        .and_then(|v| v.get("title")?.as_str().map(str::to_string))
    {
        return Ok(Some(title));
    }
    if schema.session_has("title") {
        return conn
            .query_row("SELECT title FROM sessions WHERE id = ?1", [id], |r| {
                Ok(r.get::<_, Option<String>>(0).ok().flatten())
            })
            .optional()
            .map(Option::flatten);
    }
    Ok(None)
}

fn last_time(conn: &Connection, schema: &Schema, id: &str) -> rusqlite::Result<Option<i64>> {
    if !schema.event_has("time") {
        return Ok(None);
    }
    conn.query_row(
        "SELECT time FROM events WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1",
        [id],
        |r| Ok(r.get::<_, Option<i64>>(0).ok().flatten()),
    )
    .optional()
    .map(Option::flatten)
}
