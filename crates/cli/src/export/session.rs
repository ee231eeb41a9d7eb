//! One session exported, table by table, with the engine's own passes: `check`'s findings and
//! the surface at the end (on two cores) and the harness's meter, over a mapping that keeps the
//! log's pages (`store::open_staged`); then the lines the later passes read are copied out of
//! the mapping and its pages let go, and the events are written on this thread beside two
//! more — the compaction audit (§8), and the ledger of model calls (§11) with the
//! policy's replays (§10.4) — each only when a table written needs it and each written as soon
//! as it is known. Beside the log, its surface and its meter, the export holds at most one row
//! group per table, the ledger, the audit and the policy's input and reports (peak RSS in
//! docs/export.md). The `sessions` row, filled as the stages go, is written last. A file
//! truncated while it is read (another program cut it) stops the session at the next stage: its
//! `sessions` row holds the error, and the rows already written (from bytes read before the cut)
//! stay.

use std::path::Path;
use std::sync::Arc;

use surface_engine::audit::{Audit, LostTerms, Scan, audit_scanned};
use surface_engine::cost::{Ledger, PriceTable, parts_with};
use surface_engine::policy::{PolicyInput, PolicyReport, ReplayMode, ValidSettings, replay};
use surface_engine::{DEFAULT_THRESHOLD_RATIO, EventLog, EventType, Meter, Surface};
use surface_passes::{check_report_of, keep_lines_of, meter_and_scan_of};
use surface_store::{OnTruncate, Opened, ResidentBudget, StoreError, open_staged};

use super::beside::beside;
use super::part::Part;
use super::sessions::SessionRow;
use super::tables::Tables;
use super::writer::{SessionKey, TableWriter};
use super::{calls, checks, compactions, events, findings};
use crate::Input;
use crate::pages::releasing;
use crate::policy::{PolicySettingsArgs, settings_of};

/// What the export reads each session with: the policy's settings as given, the price table,
/// and which tables are written.
pub struct Recipe<'a> {
    /// The policy's settings (checked against each session's window).
    pub policy: &'a PolicySettingsArgs,
    /// The price table, when `--prices` was given.
    pub prices: Option<&'a PriceTable>,
    /// The tables written.
    pub tables: Tables,
    /// Each event's JSON in `events` (`--payload`).
    pub payload: bool,
}

/// How a session went.
pub enum Outcome {
    /// Every table written.
    Exported,
    /// Could not be read (or stopped being readable): why.
    Unreadable(String),
}

/// Exports the session `input` names into `part`; `id` is the session id the discovery read,
/// for a file that then cannot be loaded. `Err` only when writing failed.
pub fn export(
    input: &Input,
    id: Option<&str>,
    recipe: &Recipe<'_>,
    part: &mut Part,
) -> anyhow::Result<(Arc<SessionKey>, Outcome)> {
    let path = input.file.display().to_string();
    let limits = input.limits();
    let opened = open_staged(
        &input.file,
        input.session.as_deref(),
        &limits,
        OnTruncate::Report,
    );
    let loaded = match opened {
        Ok(loaded) => loaded,
        Err(e) => {
            let key = Arc::new(SessionKey {
                session_id: id.map(str::to_string),
                path,
            });
            let error = format!("{e:#}");
            part.write_sessions(&key, SessionRow::unreadable(&error))?;
            return Ok((key, Outcome::Unreadable(error)));
        }
    };
    let session_id = Some(loaded.session.id.clone())
        .filter(|s| !s.is_empty())
        .or(id.map(str::to_string));
    let key = Arc::new(SessionKey { session_id, path });
    let budget = export_budget(loaded.log.text_len(), recipe.payload);
    let outcome = releasing(&loaded.log, budget, || {
        write_tables(&loaded, &key, &input.file, recipe, part)
    })?;
    Ok((key, outcome))
}

/// The resident memory an export of a log of `text_len` bytes keeps within: 1.45× the log,
/// under §13's 1.5× by what the passes fault in or allocate between two looks — or 1.2× when
/// the passes after the meter read `every_line` (`--payload`): they fault every page back and
/// hold their own copies of the lines, so the pages are let go sooner.
fn export_budget(text_len: usize, every_line: bool) -> ResidentBudget {
    ResidentBudget::for_log(text_len, if every_line { 120 } else { 145 })
}

/// Every table's rows of a session that was read. `check` and the meter first (each on
/// both cores), then the copy of the lines the later passes read (on both); then two threads
/// side by side: the policy's input and the events written on this one, the audit and the
/// policy's replays (writing `checks`) on a second, then the ledger (writing `calls`) on
/// whichever is free first; then the `compactions` from the audit and the ledger, and the
/// `sessions` row from what they all computed.
fn write_tables(
    loaded: &Opened,
    key: &Arc<SessionKey>,
    file: &Path,
    recipe: &Recipe<'_>,
    part: &mut Part,
) -> anyhow::Result<Outcome> {
    let log = &loaded.log;
    let (check, surface) = check_report_of(log);
    let mut row = SessionRow::read(loaded.format, &loaded.session, log, surface.mode(), &check);
    // The file shrank under the mapping: what was read after the cut is zeros. Nothing more
    // is written for the session but its `sessions` row, with the error.
    let stop = |part: &mut Part, mut row: SessionRow| {
        let error = StoreError::Shrank {
            path: file.to_path_buf(),
        }
        .to_string();
        row.failed(error.clone());
        part.write_sessions(key, row)?;
        Ok(Outcome::Unreadable(error))
    };
    if log.text_lost() {
        return stop(part, row);
    }
    if let Some(out) = part.findings.as_mut() {
        findings::write(out, key, &check.findings)?;
    }
    drop(check);
    // The compaction brackets (with the overflow watch) are scanned beside the meter, once
    // for the ledger, the audit and the policy input.
    let (meter, scan) = meter_and_scan_of(log, &surface, true);
    row.meter(log, &meter);
    if log.text_lost() {
        return stop(part, row);
    }
    // The read, `check` and the meter needed every page of a mapped log, and kept them. The
    // passes below read the log's messages, calls and results but not its streamed chunks
    // (three quarters of a long log's bytes): those lines are copied out of the mapping, its
    // pages let go behind the copy, so that the passes neither fault them back nor hold them
    // (docs/performance.md, round seventeen). With `--payload` the events table reads every
    // line: nothing is copied, the pages are let go, and `releasing` keeps what the passes
    // fault back within its budget.
    if recipe.payload {
        log.release_resident(0..log.text_len());
    } else {
        // Lets go of every page too, behind the copy.
        keep_lines_of(log, |idx| log.event_type(idx) != EventType::AssistantChunk);
    }
    let settings = match settings_of(recipe.policy, meter.window_at(log.len())) {
        Ok(s) => Some(s),
        Err(e) => {
            row.policy_error(format!("{e:#}"));
            None
        }
    };
    // Two threads, one per core, each with about half the work: the policy's input and the
    // events on this one; the audit and the policy's replays on a second; then the ledger on
    // whichever of the two is free first (which one varies from run to run); each table
    // written there as soon as its rows are known; the compactions, which need the audit and
    // the ledger, after. (Three threads on two cores were scheduled unevenly: the `events`
    // table, the longest pass, got half a core while the audit had a whole one.)
    let passes = Passes {
        log,
        surface: &surface,
        meter: &meter,
        scan: &scan,
        key,
        recipe,
        settings: settings.as_ref(),
    };
    let Part {
        events: events_out,
        calls,
        compactions,
        checks,
        ..
    } = &mut *part;
    let ledger_task = LedgerTask::new(calls.as_mut());
    let (written, ledger_here, beside_events) = std::thread::scope(|scope| {
        let (input_tx, input_rx) = std::sync::mpsc::sync_channel(1);
        let (passes, checks, ledger_task) = (&passes, checks.as_mut(), &ledger_task);
        let beside_events = beside(scope, "surface-viewer-audit", move || {
            let audit = audit_beside(passes);
            // The input comes from the other thread (none when it stopped before it).
            let input = input_rx.recv().ok().flatten();
            let replays = replays_beside(passes, input, checks);
            let ledger = matches!(replays, Ok(Some(_)))
                .then(|| ledger_task.run(passes))
                .flatten();
            (audit, replays, ledger)
        });
        let _ = input_tx.send(policy_input(passes));
        drop(input_tx);
        let written = match events_out.as_mut() {
            Some(out) => events::write(out, key, log, &surface, &meter, recipe.payload),
            None => Ok(()),
        };
        let ledger_here = written.is_ok().then(|| ledger_task.run(passes)).flatten();
        (written, ledger_here, beside_events.join())
    });
    written?;
    let (audited, replays, ledger_beside_events) = beside_events?;
    let Some(replays) = replays? else {
        return stop(part, row);
    };
    // This thread ran it unless the second took it first; `None` inside: the file was cut.
    let Some(ledger) = ledger_here.or(ledger_beside_events).transpose()?.flatten() else {
        return stop(part, row);
    };
    if log.text_lost() {
        return stop(part, row);
    }
    if let (Some(ledger), Some(audit), Some(out)) = (&ledger, &audited, compactions.as_mut()) {
        compactions::write(out, key, log, audit, ledger)?;
    }
    if let Some(ledger) = &ledger {
        row.ledger(ledger);
        if let Some(a) = &audited {
            row.audit(a);
        }
    }
    if let Some((verify, what_if)) = &replays {
        row.verify(verify);
        if let Some(w) = what_if {
            row.what_if(w);
        }
    }
    part.write_sessions(key, row)?;
    Ok(Outcome::Exported)
}

/// What the passes beside the events read.
struct Passes<'a> {
    log: &'a EventLog,
    surface: &'a Surface,
    meter: &'a Meter,
    scan: &'a Scan,
    key: &'a Arc<SessionKey>,
    recipe: &'a Recipe<'a>,
    /// The policy's settings, when they fit the session.
    settings: Option<&'a ValidSettings>,
}

/// The compaction audit of a session, when a table written needs it (`compactions`, or the
/// `sessions` row's audit columns).
fn audit_beside(p: &Passes<'_>) -> Option<Audit> {
    let t = p.recipe.tables;
    let ratio = p
        .settings
        .map_or(DEFAULT_THRESHOLD_RATIO, |s| s.threshold_ratio);
    (t.compactions || t.sessions)
        .then(|| audit_scanned(p.log, p.surface, p.meter, ratio, p.scan, LostTerms::Read))
}

/// The ledger of a session's model calls, written to `calls` as soon as it is known — only
/// when a table written needs it. `Ok(None)` when the file was cut under its mapping before the
/// table was written (nothing more is).
fn ledger_beside(
    p: &Passes<'_>,
    calls_out: Option<&mut TableWriter<calls::CallRow>>,
) -> anyhow::Result<Option<Option<Ledger>>> {
    let (log, t) = (p.log, p.recipe.tables);
    let ledger = (t.calls || t.compactions || t.sessions).then(|| {
        let parts = parts_with(log, p.surface, p.meter, p.scan);
        Ledger::build(&parts, p.recipe.prices)
    });
    if let (Some(ledger), Some(out)) = (&ledger, calls_out) {
        if log.text_lost() {
            return Ok(None);
        }
        calls::write(out, p.key, log, ledger)?;
    }
    Ok(Some(ledger))
}

/// The ledger's work, for whichever of a session's two threads is free first to take.
struct LedgerTask<'w> {
    calls: std::sync::Mutex<Option<Option<&'w mut TableWriter<calls::CallRow>>>>,
}

impl<'w> LedgerTask<'w> {
    fn new(calls: Option<&'w mut TableWriter<calls::CallRow>>) -> Self {
        LedgerTask {
            calls: std::sync::Mutex::new(Some(calls)),
        }
    }

    /// [`ledger_beside`], when no thread has taken it yet; `None` when one has.
    fn run(&self, p: &Passes<'_>) -> Option<anyhow::Result<Option<Option<Ledger>>>> {
        let calls = self.calls.lock().ok()?.take()?;
        Some(ledger_beside(p, calls))
    }
}

/// The policy's input, when its settings fit and a table written needs its replays.
fn policy_input(p: &Passes<'_>) -> Option<PolicyInput> {
    let t = p.recipe.tables;
    p.settings
        .filter(|_| t.checks || t.sessions)
        .map(|_| PolicyInput::build_with(p.log, p.surface, p.meter, p.scan))
}

/// The policy's replays of `input` (verify, and the what-if when asked), written to `checks`.
/// `Ok(None)` as for [`ledger_beside`].
fn replays_beside(
    p: &Passes<'_>,
    input: Option<PolicyInput>,
    checks_out: Option<&mut TableWriter<checks::CheckRow>>,
) -> anyhow::Result<Option<Option<Replays>>> {
    let log = p.log;
    let replays = p.settings.zip(input).map(|(settings, input)| {
        let verify = replay(log, p.meter, &input, settings, ReplayMode::Verify);
        let what_if = p
            .recipe
            .policy
            .what_if
            .then(|| replay(log, p.meter, &input, settings, ReplayMode::WhatIf));
        (verify, what_if)
    });
    if let (Some((verify, what_if)), Some(out)) = (&replays, checks_out) {
        if log.text_lost() {
            return Ok(None);
        }
        for report in std::iter::once(verify).chain(what_if) {
            checks::write(out, p.key, log, report)?;
        }
    }
    Ok(Some(replays))
}

/// The verify replay and the what-if one.
type Replays = (PolicyReport, Option<PolicyReport>);
