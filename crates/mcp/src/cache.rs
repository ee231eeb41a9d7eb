//! The opened logs, least recently used first out: a conversation's many calls on one session
//! read it once. An entry is keyed by the canonical path and the session asked for, and holds
//! the file's length and modification time when it was read (with a SQLite file's `-wal`
//! beside it): a file that changed since is read again, as it stands at the call. Each entry
//! also keeps the last few documents built from it, so a cursor walk or a repeated question
//! costs no second pass.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde_json::Value;
use surface_engine::{Skipped, skipped};
use surface_store::{self as store, OnTruncate, ReadLimits, StoreError};

/// How many logs stay open.
pub const LOGS: usize = 4;
/// How many documents each log keeps.
pub const DOCUMENTS: usize = 8;

/// What a file looked like when it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp {
    files: Vec<(u64, Option<SystemTime>)>,
}

impl Stamp {
    fn of(path: &Path) -> Stamp {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let files = [path.to_path_buf(), PathBuf::from(wal)]
            .iter()
            .map(|p| match std::fs::metadata(p) {
                Ok(m) => (m.len(), m.modified().ok()),
                Err(_) => (0, None),
            })
            .collect();
        Stamp { files }
    }
}

/// One opened session and the documents built from it.
pub struct Entry {
    /// The session read.
    pub opened: store::Opened,
    /// The records its reader skipped.
    pub skipped: Vec<Skipped>,
    documents: Mutex<VecDeque<(String, Arc<Value>)>>,
}

impl Entry {
    /// The document stored under `key`, else `build`'s (then stored, the oldest dropped).
    pub fn document<E>(
        &self,
        key: &str,
        build: impl FnOnce(&Entry) -> Result<Value, E>,
    ) -> Result<Arc<Value>, E> {
        if let Some(found) = self.lock().iter().find(|(k, _)| k == key) {
            return Ok(found.1.clone());
        }
        let doc = Arc::new(build(self)?);
        let mut docs = self.lock();
        docs.push_front((key.to_string(), doc.clone()));
        docs.truncate(DOCUMENTS);
        Ok(doc)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(String, Arc<Value>)>> {
        self.documents.lock().unwrap_or_else(|e| e.into_inner())
    }
}

type Key = (PathBuf, Option<String>);

/// The cache.
#[derive(Default)]
pub struct LogCache {
    entries: Mutex<VecDeque<(Key, Stamp, Arc<Entry>)>>,
}

impl LogCache {
    /// The session `session` of the canonical `path`, from the cache when the file has not
    /// changed since it was read, else read now within `limits` (mapped: a truncation under
    /// the mapping reads as zeros and the log says so).
    pub fn open(
        &self,
        path: &Path,
        session: Option<&str>,
        limits: ReadLimits,
    ) -> Result<Arc<Entry>, StoreError> {
        let key = (path.to_path_buf(), session.map(str::to_string));
        let stamp = Stamp::of(path);
        {
            let mut entries = self.lock();
            if let Some(k) = entries.iter().position(|(k, _, _)| *k == key)
                && let Some((key, old, entry)) = entries.remove(k)
                && old == stamp
            {
                entries.push_front((key, old, entry.clone()));
                return Ok(entry);
            }
        }
        let options = store::Options {
            session,
            progress: None,
            limits,
            reading: store::Reading::Map(OnTruncate::Report),
        };
        let opened = store::open(path, &options)?;
        let entry = Arc::new(Entry {
            skipped: skipped(&opened.log),
            opened,
            documents: Mutex::new(VecDeque::new()),
        });
        let mut entries = self.lock();
        entries.retain(|(k, _, _)| *k != key);
        entries.push_front((key, stamp, entry.clone()));
        entries.truncate(LOGS);
        Ok(entry)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(Key, Stamp, Arc<Entry>)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}
