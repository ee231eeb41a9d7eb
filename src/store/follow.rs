//! Live follow of a JSONL log that an agent is still writing: new complete lines are appended
//! to the open log by byte offset (a partial last line is held back until its newline
//! arrives), and a file that was truncated or replaced underneath is detected.
//!
//! The follower never writes: it opens the file read-only for each poll.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use memchr::memrchr;

use super::jsonl::{parse_body, read_jsonl};
use super::{Format, Opened, StoreError, detect_file, open};
use crate::engine::EventLog;

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

/// Follows one JSONL file.
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    /// File bytes consumed into the log: everything up to and including the last newline.
    committed: u64,
    /// Line number the next complete line gets.
    next_line: u32,
    #[cfg(unix)]
    inode: Option<u64>,
}

/// Opens `path` for following: like [`open`], but a last line without its newline is left
/// out (it is read once complete). Only JSONL can be followed by byte offset; other formats
/// are opened normally and returned without a follower.
pub fn open_following(
    path: &Path,
    session: Option<&str>,
) -> Result<(Opened, Option<Follower>), StoreError> {
    if detect_file(path)? != Format::Jsonl {
        return Ok((open(path, session)?, None));
    }
    let mut bytes = std::fs::read(path).map_err(|e| StoreError::io(path, e))?;
    let committed = memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
    bytes.truncate(committed);
    let next_line = memchr::memchr_iter(b'\n', &bytes).count() as u32 + 1;
    let log = read_jsonl(bytes, None).unwrap_or_default();
    let opened = Opened {
        path: path.to_path_buf(),
        format: Format::Jsonl,
        session: super::single_session_info(&log),
        log,
    };
    let follower = Follower {
        path: path.to_path_buf(),
        committed: committed as u64,
        next_line,
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

    /// Reads what was appended since the last poll into `log` (whose text must be this file's
    /// committed bytes, as [`open_following`] returned it).
    pub fn poll(&mut self, log: &mut EventLog) -> Result<FollowUpdate, StoreError> {
        let mut file = File::open(&self.path).map_err(|e| StoreError::io(&self.path, e))?;
        let len = file
            .metadata()
            .map_err(|e| StoreError::io(&self.path, e))?
            .len();
        #[cfg(unix)]
        if inode_of(&self.path) != self.inode {
            return Ok(FollowUpdate::Reload {
                reason: "the file was replaced".into(),
            });
        }
        if len < self.committed {
            return Ok(FollowUpdate::Reload {
                reason: format!("the file shrank from {} to {len} bytes", self.committed),
            });
        }
        if !self.prefix_unchanged(&mut file, log)? {
            return Ok(FollowUpdate::Reload {
                reason: "bytes already read changed".into(),
            });
        }
        if len == self.committed {
            return Ok(FollowUpdate::Unchanged);
        }

        let mut fresh = Vec::with_capacity((len - self.committed) as usize);
        file.seek(SeekFrom::Start(self.committed))
            .and_then(|_| file.take(len - self.committed).read_to_end(&mut fresh))
            .map_err(|e| StoreError::io(&self.path, e))?;
        let Some(last_newline) = memrchr(b'\n', &fresh) else {
            return Ok(FollowUpdate::Unchanged);
        };
        if self.committed == 0 {
            // The file was empty when opened: its header line has arrived now.
            return Ok(FollowUpdate::Reload {
                reason: "the log's first lines arrived".into(),
            });
        }
        fresh.truncate(last_newline + 1);
        let lines = memchr::memchr_iter(b'\n', &fresh).count() as u32;
        let base = log.text.len();
        log.text.extend_from_slice(&fresh);
        let before = log.len();
        if let Some(batch) = parse_body(&log.text, base, self.next_line, None) {
            log.extend(batch);
        }
        self.committed += fresh.len() as u64;
        self.next_line += lines;
        Ok(FollowUpdate::Appended {
            events: log.len() - before,
        })
    }

    /// Compares the tail of the committed prefix with the log's copy of it.
    fn prefix_unchanged(&self, file: &mut File, log: &EventLog) -> Result<bool, StoreError> {
        let n = (self.committed as usize)
            .min(FINGERPRINT)
            .min(log.text.len());
        if n == 0 {
            return Ok(true);
        }
        let mut on_disk = vec![0u8; n];
        file.seek(SeekFrom::Start(self.committed - n as u64))
            .and_then(|_| file.read_exact(&mut on_disk))
            .map_err(|e| StoreError::io(&self.path, e))?;
        Ok(on_disk[..] == log.text[log.text.len() - n..])
    }
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
        let (opened, follower) = open_following(&path, None).unwrap();
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
    fn truncation_and_replacement_ask_for_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.jsonl");
        std::fs::write(&path, format!("{HEADER}{}{}", line(0), line(1))).unwrap();
        let (opened, follower) = open_following(&path, None).unwrap();
        let (mut log, mut follower) = (opened.log, follower.unwrap());
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(20).unwrap();
        assert!(matches!(
            follower.poll(&mut log).unwrap(),
            FollowUpdate::Reload { .. }
        ));

        std::fs::write(&path, format!("{HEADER}{}{}", line(0), line(1))).unwrap();
        let (opened, follower) = open_following(&path, None).unwrap();
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
