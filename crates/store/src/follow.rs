//! Live follow of a log that an agent is still writing. JSONL: new complete lines are appended
//! by byte offset, a partial last line is held back until its newline arrives. Zstandard JSONL:
//! new complete frames are decoded (an incomplete final frame waits). SQLite: rows past the
//! last seq read are polled in a short read-only transaction (the writer is never blocked).
//! A file that was truncated or replaced underneath is detected and reported for a reload.
//!
//! The follower never writes: it opens the file read-only for each poll. The followed log owns
//! its text (a copy, never a memory map: the file grows and may be truncated while followed),
//! and new lines are appended to it.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use memchr::memrchr;

use super::jsonl::{parse_body_within, read_jsonl_with};
use super::limits::{ReadLimits, ReadStop};
use super::read_file::ReadFail;
use super::sqlite::read_sqlite_rows_after;
use super::zstd_jsonl::decode_complete_frames;
use super::{Format, Opened, Options, StoreError, detect_file, open};
use surface_engine::{EventLog, LogProblem};

/// Bytes compared at the end of the committed prefix to notice a rewritten file.
const FINGERPRINT: usize = 4096;

/// What a poll found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FollowUpdate {
    /// Nothing new (or only a partial line).
    Unchanged,
    /// `events` new events were appended to the log.
    Appended {
        /// How many events.
        events: usize,
    },
    /// The file was truncated or replaced: the caller must reload it (the reason says why).
    Reload {
        /// Why.
        reason: String,
    },
}

/// Follows one JSONL or Zstandard JSONL file.
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    format: Format,
    /// File bytes consumed: up to the last newline (JSONL) or the last complete frame (zstd).
    committed: u64,
    /// The last file bytes before `committed`, to notice a rewritten file.
    fingerprint: Vec<u8>,
    /// Decoded text after the last newline, waiting for the rest of its line (zstd).
    pending: Vec<u8>,
    /// SQLite: the session followed and the greatest row seq read.
    session: Option<(String, Option<u64>)>,
    /// Line number the next complete line gets.
    next_line: u32,
    /// What the followed log is held to: each new line to the per-event limit, the whole
    /// text (with what is waiting) to the total.
    limits: ReadLimits,
    #[cfg(unix)]
    inode: Option<u64>,
}

/// Opens `path` for following: like [`open`] reading a copy, but what a live writer may still be
/// finishing (a last line without its newline, an incomplete final frame) is left out until
/// complete. The log stays held to `limits` as it grows: a poll that would take its text past
/// the total is [`StoreError::TooLarge`].
pub fn open_following(
    path: &Path,
    session: Option<&str>,
    limits: &ReadLimits,
) -> Result<(Opened, Option<Follower>), StoreError> {
    let format = detect_file(path)?;
    let too_large = |limit| StoreError::TooLarge {
        path: path.to_path_buf(),
        limit,
    };
    if format == Format::Sqlite {
        let options = Options {
            session,
            limits: *limits,
            ..Options::default()
        };
        let opened = open(path, &options)?;
        let last_row = opened
            .log
            .problems
            .iter()
            .filter_map(|p| p.seq)
            .chain(opened.log.max_seq())
            .max();
        let follower = Follower {
            path: path.to_path_buf(),
            format,
            committed: 0,
            fingerprint: Vec::new(),
            pending: Vec::new(),
            session: Some((opened.session.id.clone(), last_row)),
            next_line: 0,
            limits: *limits,
            #[cfg(unix)]
            inode: inode_of(path),
        };
        return Ok((opened, Some(follower)));
    }
    let total = limits.total_bytes();
    let bytes = super::read_file::read_whole(path, total).map_err(|e| match e {
        ReadFail::Io(e) => StoreError::io(path, e),
        ReadFail::TooLarge => too_large(total),
    })?;
    let (mut text, committed, problems, fingerprint) = match format {
        Format::Zstd => {
            let (text, committed, problems) =
                decode_complete_frames(&bytes, 0, total).map_err(|_| too_large(total))?;
            let fingerprint = bytes[committed.saturating_sub(FINGERPRINT)..committed].to_vec();
            (text, committed, problems, fingerprint)
        }
        _ => {
            // The read buffer becomes the log's text: no second copy of a large file.
            let committed = memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
            let fingerprint = bytes[committed.saturating_sub(FINGERPRINT)..committed].to_vec();
            let mut text = bytes;
            text.truncate(committed);
            (text, committed, Vec::new(), fingerprint)
        }
    };
    let cut = memrchr(b'\n', &text).map_or(0, |i| i + 1);
    let pending = text.split_off(cut);
    let next_line = line_count(&text).saturating_add(1);
    let mut log = read_jsonl_with(text, None, limits).unwrap_or_default();
    log.problems.extend(problems);
    let opened = Opened {
        path: path.to_path_buf(),
        format,
        session: super::single_session_info(&log),
        log,
    };
    let follower = Follower {
        path: path.to_path_buf(),
        format,
        committed: committed as u64,
        fingerprint,
        pending,
        session: None,
        next_line,
        limits: *limits,
        #[cfg(unix)]
        inode: inode_of(path),
    };
    Ok((opened, Some(follower)))
}

impl Follower {
    /// The followed file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads what was appended since the last poll into `log` (as [`open_following`] returned
    /// it), through the engine's delta path: only the new lines are parsed.
    pub fn poll(&mut self, log: &mut EventLog) -> Result<FollowUpdate, StoreError> {
        let path = self.path.clone();
        let io = |e| StoreError::io(&path, e);
        let mut file = File::open(&self.path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        #[cfg(unix)]
        if inode_of(&self.path) != self.inode {
            return Ok(reload("the file was replaced"));
        }
        if let Some((id, last_row)) = &self.session {
            return self.poll_sqlite(log, id.clone(), *last_row);
        }
        if len < self.committed {
            return Ok(reload(&format!(
                "the file shrank from {} to {len} bytes",
                self.committed
            )));
        }
        let mut seen = vec![0u8; self.fingerprint.len()];
        file.seek(SeekFrom::Start(self.committed - seen.len() as u64))
            .and_then(|_| file.read_exact(&mut seen))
            .map_err(io)?;
        if seen != self.fingerprint {
            return Ok(reload("bytes already read changed"));
        }
        if len == self.committed {
            return Ok(FollowUpdate::Unchanged);
        }
        let total = self.limits.total_bytes();
        let held = (log.text_len() + self.pending.len()) as u64;
        let room = total.saturating_sub(held);
        let too_large = || StoreError::TooLarge {
            path: path.clone(),
            limit: total,
        };
        if len - self.committed > room && self.format != Format::Zstd {
            return Err(too_large());
        }
        let mut fresh = Vec::with_capacity((len - self.committed) as usize);
        (&mut file)
            .take(len - self.committed)
            .read_to_end(&mut fresh)
            .map_err(io)?;
        let (text, consumed, problems) = match self.format {
            Format::Zstd => {
                decode_complete_frames(&fresh, self.committed, room).map_err(|stop| match stop {
                    ReadStop::TooLarge { .. } | ReadStop::Cancelled => too_large(),
                })?
            }
            _ => {
                let consumed = memrchr(b'\n', &fresh).map_or(0, |i| i + 1);
                fresh.truncate(consumed);
                (fresh, consumed, Vec::new())
            }
        };
        if consumed == 0 {
            return Ok(FollowUpdate::Unchanged);
        }
        if self.committed == 0 {
            // The file was empty when opened: its header has arrived now.
            return Ok(reload("the log's first lines arrived"));
        }
        // Advance the file position and its fingerprint.
        self.fingerprint = fresh_tail(&mut file, self.committed + consumed as u64).map_err(io)?;
        self.committed += consumed as u64;
        self.pending.extend_from_slice(&text);
        Ok(FollowUpdate::Appended {
            events: self.append_complete_lines(log, problems),
        })
    }

    /// SQLite: appends the rows past the last one read.
    fn poll_sqlite(
        &mut self,
        log: &mut EventLog,
        id: String,
        last_row: Option<u64>,
    ) -> Result<FollowUpdate, StoreError> {
        let rows = read_sqlite_rows_after(
            &self.path,
            &id,
            last_row,
            log.text_len() as u64,
            &self.limits,
        )?;
        if rows.session_max_seq < last_row {
            return Ok(reload("rows already read were deleted"));
        }
        let Some(max) = rows.max_row_seq else {
            return Ok(FollowUpdate::Unchanged);
        };
        let before = log.len();
        log.append_text(&rows.arena);
        log.extend(rows.batch);
        self.session = Some((id, Some(max)));
        Ok(FollowUpdate::Appended {
            events: log.len() - before,
        })
    }

    /// Moves the complete lines of `pending` into the log and parses them.
    fn append_complete_lines(&mut self, log: &mut EventLog, problems: Vec<LogProblem>) -> usize {
        let cut = memrchr(b'\n', &self.pending).map_or(0, |i| i + 1);
        let rest = self.pending.split_off(cut);
        let lines = std::mem::replace(&mut self.pending, rest);
        let base = log.append_text(&lines);
        let before = log.len();
        // Appended text is the log's own: always stable.
        let parsed = log
            .stable_text()
            .and_then(|text| parse_body_within(text, base, self.next_line, None, &self.limits));
        if let Some(mut batch) = parsed {
            batch.problems.extend(problems);
            log.extend(batch);
        }
        self.next_line = self.next_line.saturating_add(line_count(&lines));
        log.len() - before
    }
}

fn reload(reason: &str) -> FollowUpdate {
    FollowUpdate::Reload {
        reason: reason.to_string(),
    }
}

/// The line breaks in `text`, as far as a `u32` counts.
fn line_count(text: &[u8]) -> u32 {
    u32::try_from(memchr::memchr_iter(b'\n', text).count()).unwrap_or(u32::MAX)
}

/// The last [`FINGERPRINT`] bytes of the file before `end`.
fn fresh_tail(file: &mut File, end: u64) -> std::io::Result<Vec<u8>> {
    let n = end.min(FINGERPRINT as u64);
    let mut buf = vec![0u8; n as usize];
    file.seek(SeekFrom::Start(end - n))?;
    file.read_exact(&mut buf)?;
    Ok(buf)
}

#[cfg(unix)]
fn inode_of(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path).ok().map(|m| m.ino())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    const HEADER: &str = "{\"type\":\"session\",\"version\":0,\"id\":\"f\",\"createdAt\":1}\n";

    fn line(seq: u64) -> String {
        format!(
            "{{\"type\":\"user/message\",\"seq\":{seq},\"time\":1,\"data\":{{}},\"surfaceOp\":\"append\"}}\n"
        )
    }

    #[test]
    fn appends_complete_lines_and_holds_back_partial_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.jsonl");
        let mut f = File::create(&path).unwrap();
        write!(f, "{HEADER}{}", line(0)).unwrap();
        let half = line(1);
        f.write_all(&half.as_bytes()[..10]).unwrap();
        f.flush().unwrap();
        let (opened, follower) = open_following(&path, None, &ReadLimits::default()).unwrap();
        let (mut log, mut follower) = (opened.log, follower.unwrap());
        assert_eq!(log.len(), 1);
        assert!(
            log.problems.is_empty(),
            "the partial line is not a problem while following"
        );
        assert_eq!(follower.poll(&mut log).unwrap(), FollowUpdate::Unchanged);
        f.write_all(&half.as_bytes()[10..]).unwrap();
        f.write_all(line(2).as_bytes()).unwrap();
        f.flush().unwrap();
        assert_eq!(
            follower.poll(&mut log).unwrap(),
            FollowUpdate::Appended { events: 2 }
        );
        assert_eq!(
            log.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        assert_eq!(log.events[2].line, 4);
    }

    #[test]
    fn zstd_follows_complete_frames() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.jsonl.zstd");
        let frame = |t: &str| zstd::bulk::compress(t.as_bytes(), 3).unwrap();
        let mut f = File::create(&path).unwrap();
        f.write_all(&frame(HEADER)).unwrap();
        f.write_all(&frame(&line(0))).unwrap();
        let next = frame(&format!("{}{}", line(1), line(2)));
        f.write_all(&next[..next.len() / 2]).unwrap();
        f.flush().unwrap();
        let (opened, follower) = open_following(&path, None, &ReadLimits::default()).unwrap();
        let (mut log, mut follower) = (opened.log, follower.unwrap());
        assert_eq!(log.len(), 1);
        assert!(
            log.problems.is_empty(),
            "an unfinished frame is not a problem while following"
        );
        assert_eq!(follower.poll(&mut log).unwrap(), FollowUpdate::Unchanged);
        f.write_all(&next[next.len() / 2..]).unwrap();
        f.flush().unwrap();
        assert_eq!(
            follower.poll(&mut log).unwrap(),
            FollowUpdate::Appended { events: 2 }
        );
        assert_eq!(
            log.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        assert!(log.problems.is_empty());
    }

    #[test]
    fn sqlite_follows_new_rows_without_blocking_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.db");
        let writer = rusqlite::Connection::open(&path).unwrap();
        writer
            .execute_batch(
                "PRAGMA journal_mode=WAL; PRAGMA user_version=4;
                 CREATE TABLE sessions (id TEXT PRIMARY KEY, version INTEGER NOT NULL, created_at INTEGER NOT NULL,
                   cwd TEXT, parent_session TEXT, seed_length INTEGER);
                 CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
                   time INTEGER NOT NULL, data TEXT NOT NULL, source_event_seqs TEXT, surface_op TEXT,
                   PRIMARY KEY (session_id, seq));
                 INSERT INTO sessions VALUES ('s', 0, 1, NULL, NULL, NULL);",
            )
            .unwrap();
        let insert = |seq: i64| {
            writer
                .execute(
                    "INSERT INTO events VALUES ('s', ?1, 'user/message', 1, '{}', NULL, '\"append\"')",
                    [seq],
                )
                .unwrap();
        };
        insert(0);
        let (opened, follower) = open_following(&path, None, &ReadLimits::default()).unwrap();
        let (mut log, mut follower) = (opened.log, follower.unwrap());
        assert_eq!(log.len(), 1);
        assert_eq!(follower.poll(&mut log).unwrap(), FollowUpdate::Unchanged);
        insert(1);
        insert(2);
        assert_eq!(
            follower.poll(&mut log).unwrap(),
            FollowUpdate::Appended { events: 2 }
        );
        assert_eq!(
            log.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        assert_eq!(
            log.event_value(surface_engine::EventIdx(2)).unwrap()["seq"],
            2
        );
        writer
            .execute("DELETE FROM events WHERE seq >= 1", [])
            .unwrap();
        assert!(matches!(
            follower.poll(&mut log).unwrap(),
            FollowUpdate::Reload { .. }
        ));
    }

    #[test]
    fn truncation_and_replacement_ask_for_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.jsonl");
        std::fs::write(&path, format!("{HEADER}{}{}", line(0), line(1))).unwrap();
        let (opened, follower) = open_following(&path, None, &ReadLimits::default()).unwrap();
        let (mut log, mut follower) = (opened.log, follower.unwrap());
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(20).unwrap();
        assert!(matches!(
            follower.poll(&mut log).unwrap(),
            FollowUpdate::Reload { .. }
        ));

        std::fs::write(&path, format!("{HEADER}{}{}", line(0), line(1))).unwrap();
        let (opened, follower) = open_following(&path, None, &ReadLimits::default()).unwrap();
        let (mut log, mut follower) = (opened.log, follower.unwrap());
        let other = dir.path().join("new.jsonl");
        std::fs::write(&other, format!("{HEADER}{}{}{}", line(0), line(1), line(2))).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(matches!(
            follower.poll(&mut log).unwrap(),
            FollowUpdate::Reload { .. }
        ));
    }
}
