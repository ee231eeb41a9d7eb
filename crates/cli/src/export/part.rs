//! A set of part files, one per table written (`OUT/<table>/part-NNNNN.parquet`), that one
//! worker at a time writes a session's rows into; and the pool that hands a free set to each
//! worker that finished analysing a session, so no two workers write one file and there are
//! never more sets than workers writing at once.

use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::anyhow;

use super::staging::{Staging, part_name};
use super::table::Table;
use super::tables::Tables;
use super::writer::{SessionKey, TableWriter};
use super::{calls, checks, compactions, events, findings, sessions, tune};

/// Rows written to each table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowCounts {
    /// `sessions`.
    pub sessions: u64,
    /// `events`.
    pub events: u64,
    /// `calls`.
    pub calls: u64,
    /// `checks`.
    pub checks: u64,
    /// `compactions`.
    pub compactions: u64,
    /// `findings`.
    pub findings: u64,
    /// `tune`.
    pub tune: u64,
}

impl RowCounts {
    /// Adds another part's counts.
    pub fn add(&mut self, other: RowCounts) {
        self.sessions += other.sessions;
        self.events += other.events;
        self.calls += other.calls;
        self.checks += other.checks;
        self.compactions += other.compactions;
        self.findings += other.findings;
        self.tune += other.tune;
    }

    /// Each table's rows, in [`TABLE_NAMES`](super::TABLE_NAMES) order.
    pub fn in_table_order(&self) -> [u64; 7] {
        [
            self.sessions,
            self.events,
            self.calls,
            self.checks,
            self.compactions,
            self.findings,
            self.tune,
        ]
    }
}

/// One part file per table written (`None`: the table is not written).
pub struct Part {
    pub(super) sessions: Option<TableWriter<sessions::SessionRow>>,
    pub(super) events: Option<TableWriter<events::EventRow>>,
    pub(super) calls: Option<TableWriter<calls::CallRow>>,
    pub(super) checks: Option<TableWriter<checks::CheckRow>>,
    pub(super) compactions: Option<TableWriter<compactions::CompactionRow>>,
    pub(super) findings: Option<TableWriter<findings::FindingRow>>,
    pub(super) tune: Option<TableWriter<tune::TuneRow>>,
}

/// Creates the part file `number` of `table` when it is written.
fn open<R>(
    on: bool,
    table: &'static Table<R>,
    folder: &Path,
    number: usize,
) -> anyhow::Result<Option<TableWriter<R>>> {
    on.then(|| TableWriter::create(table, &folder.join(table.name).join(part_name(number))))
        .transpose()
}

impl Part {
    /// Creates part `number` of every table in `tables`, under `staging`'s folders.
    pub fn create(
        staging: &Staging,
        number: usize,
        tables: Tables,
        payload: bool,
    ) -> anyhow::Result<Part> {
        let root = staging.folder("");
        let events_table = if payload {
            &events::TABLE_WITH_PAYLOAD
        } else {
            &events::TABLE
        };
        Ok(Part {
            sessions: open(tables.sessions, &sessions::TABLE, &root, number)?,
            events: open(tables.events, events_table, &root, number)?,
            calls: open(tables.calls, &calls::TABLE, &root, number)?,
            checks: open(tables.checks, &checks::TABLE, &root, number)?,
            compactions: open(tables.compactions, &compactions::TABLE, &root, number)?,
            findings: open(tables.findings, &findings::TABLE, &root, number)?,
            tune: open(tables.tune, &tune::TABLE, &root, number)?,
        })
    }

    /// Writes a session's `sessions` row (when that table is written).
    pub fn write_sessions(
        &mut self,
        key: &Arc<SessionKey>,
        row: sessions::SessionRow,
    ) -> anyhow::Result<()> {
        match &mut self.sessions {
            Some(out) => sessions::write(out, key, row),
            None => Ok(()),
        }
    }

    /// Completes every file; the rows each table got. Each table's last row group is written
    /// now: the `events` table's (the largest) beside the `checks` table's, beside the others
    /// (`rayon::join`): for one long session that is most of its `events` and `checks`.
    pub fn finish(self) -> anyhow::Result<RowCounts> {
        fn done<R>(w: Option<TableWriter<R>>) -> anyhow::Result<u64> {
            w.map_or(Ok(0), TableWriter::finish)
        }
        let Part {
            sessions,
            events,
            calls,
            checks,
            compactions,
            findings,
            tune,
        } = self;
        let ((events, checks), rest) = rayon::join(
            || rayon::join(|| done(events), || done(checks)),
            || -> anyhow::Result<_> {
                Ok((
                    done(sessions)?,
                    done(calls)?,
                    done(compactions)?,
                    done(findings)?,
                    done(tune)?,
                ))
            },
        );
        let (sessions, calls, compactions, findings, tune) = rest?;
        Ok(RowCounts {
            sessions,
            calls,
            compactions,
            findings,
            tune,
            events: events?,
            checks: checks?,
        })
    }
}

/// The part sets of an export: a worker takes a free one (or a new one) to write a session's
/// rows, and gives it back.
pub struct Parts<'a> {
    staging: &'a Staging,
    tables: Tables,
    payload: bool,
    free: Mutex<Vec<Part>>,
    created: AtomicUsize,
}

impl<'a> Parts<'a> {
    /// No part yet.
    pub fn new(staging: &'a Staging, tables: Tables, payload: bool) -> Self {
        Parts {
            staging,
            tables,
            payload,
            free: Mutex::new(Vec::new()),
            created: AtomicUsize::new(0),
        }
    }

    /// A free part, or a new one.
    pub fn take(&self) -> anyhow::Result<Part> {
        let free = self.free.lock().ok().and_then(|mut f| f.pop());
        match free {
            Some(part) => Ok(part),
            None => {
                let number = self.created.fetch_add(1, Ordering::Relaxed);
                Part::create(self.staging, number, self.tables, self.payload)
            }
        }
    }

    /// Gives a part back.
    pub fn put(&self, part: Part) {
        if let Ok(mut free) = self.free.lock() {
            free.push(part);
        }
    }

    /// Completes every part (creating part 0 when no session was written, so each table's
    /// folder holds a file with its schema); the rows of each table.
    pub fn finish(self) -> anyhow::Result<RowCounts> {
        let mut parts = self
            .free
            .into_inner()
            .map_err(|_| anyhow!("a worker stopped while writing"))?;
        if self.created.load(Ordering::Relaxed) == 0 {
            parts.push(Part::create(self.staging, 0, self.tables, self.payload)?);
        }
        let mut counts = RowCounts::default();
        for part in parts {
            counts.add(part.finish()?);
        }
        Ok(counts)
    }
}
