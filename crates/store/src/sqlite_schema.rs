//! Opening a session database strictly read-only and finding out which schema it has, from
//! `PRAGMA user_version` and the columns its tables actually have (docs/parity.md).

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::StoreError;

/// Schema versions written by upstream builds, master and branches (16 never existed).
pub const KNOWN_VERSIONS: [i64; 16] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17];

/// How long a read waits for a writer's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// What the database holds, as far as reading sessions is concerned.
#[derive(Clone, Debug)]
pub struct Schema {
    /// `PRAGMA user_version`.
    pub user_version: i64,
    /// Columns of `sessions`.
    pub session_columns: Vec<String>,
    /// Columns of `events`.
    pub event_columns: Vec<String>,
}

impl Schema {
    /// True when `events` has the column.
    pub fn event_has(&self, column: &str) -> bool {
        self.event_columns
            .iter()
            .any(|c| c.eq_ignore_ascii_case(column))
    }

    /// True when `sessions` has the column.
    pub fn session_has(&self, column: &str) -> bool {
        self.session_columns
            .iter()
            .any(|c| c.eq_ignore_ascii_case(column))
    }

    /// True when `user_version` is one upstream ever wrote.
    pub fn version_is_known(&self) -> bool {
        KNOWN_VERSIONS.contains(&self.user_version)
    }

    /// The `events` column expression for `column`, or `NULL` when the table lacks it.
    pub fn event_column_or_null(&self, column: &'static str) -> &'static str {
        if self.event_has(column) {
            column
        } else {
            "NULL"
        }
    }
}

/// Opens `path` read-only (no writes, no migration, no `immutable`, so a live writer in WAL
/// mode keeps working) with a busy timeout.
pub fn open_read_only(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn =
        Connection::open_with_flags(file_uri(path), flags).map_err(|e| sqlite_error(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| sqlite_error(path, e))?;
    conn.execute_batch("PRAGMA query_only = ON; PRAGMA trusted_schema = OFF;")
        .map_err(|e| sqlite_error(path, e))?;
    Ok(conn)
}

/// Reads the schema and checks that the tables and columns needed for reading exist.
pub fn read_schema(conn: &Connection, path: &Path) -> Result<Schema, StoreError> {
    let user_version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| sqlite_error(path, e))?;
    let schema = Schema {
        user_version,
        session_columns: columns(conn, path, "sessions")?,
        event_columns: columns(conn, path, "events")?,
    };
    let version_note = if schema.version_is_known() {
        format!("schema version {user_version}")
    } else {
        format!(
            "schema version {user_version}, which this viewer does not know (it knows 1-15 and 17)"
        )
    };
    if schema.session_columns.is_empty() || schema.event_columns.is_empty() {
        return Err(StoreError::Sqlite {
            path: path.to_path_buf(),
            message: format!(
                "no `sessions` and `events` tables, so not a deepseek-harness session database ({version_note})"
            ),
        });
    }
    let missing: Vec<String> = [("sessions", "id")]
        .into_iter()
        .filter(|(_, c)| !schema.session_has(c))
        .chain(
            ["session_id", "seq", "type", "data"]
                .into_iter()
                .filter(|c| !schema.event_has(c))
                .map(|c| ("events", c)),
        )
        .map(|(t, c)| format!("{t}.{c}"))
        .collect();
    if !missing.is_empty() {
        return Err(StoreError::Sqlite {
            path: path.to_path_buf(),
            message: format!("{version_note}; missing column(s) {}", missing.join(", ")),
        });
    }
    Ok(schema)
}

/// The column names of `table` (empty when there is no such table).
fn columns(conn: &Connection, path: &Path, table: &str) -> Result<Vec<String>, StoreError> {
    let mut stmt = conn
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .map_err(|e| sqlite_error(path, e))?;
    let names = stmt
        .query_map([table], |r| r.get::<_, String>(0))
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(|e| sqlite_error(path, e))?;
    Ok(names)
}

/// A SQLite error on `path` as a store error.
pub fn sqlite_error(path: &Path, e: rusqlite::Error) -> StoreError {
    StoreError::Sqlite {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// A `file:` URI for `path` (absolute, percent-encoded) that opens it read-only.
fn file_uri(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    #[cfg(unix)]
    let bytes: Vec<u8> = {
        use std::os::unix::ffi::OsStrExt as _;
        abs.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes: Vec<u8> = {
        let s = abs.to_string_lossy().replace('\\', "/");
        if s.starts_with('/') {
            s
        } else {
            format!("/{s}")
        }
        .into_bytes()
    };
    for b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) || (cfg!(not(unix)) && b == b':') {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?mode=ro");
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn uri_escapes_special_characters() {
        assert_eq!(
            file_uri(Path::new("/a b/x?y#%.db")),
            "file:/a%20b/x%3Fy%23%25.db?mode=ro"
        );
    }
}
