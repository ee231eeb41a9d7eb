//! One session exported, table by table, with the engine's own passes: `check`'s findings and
//! the surface at the end and the harness's meter, over a mapping of the log
//! (`store::open` with `Reading::Map`); then the passes that write the other tables, two at a
//! time as the halves of a `rayon::join` — the events beside the compaction audit and the
//! ledger of model calls (writing `compactions`, the audit then let go), then the policy's
//! input and replays (writing `checks`) beside the `calls` rows — each only when a table
//! written needs it. Beside the log, its surface and its meter, the export holds at most one
//! row group per table, the ledger, the audit (until `compactions` is written) and the
//! policy's input and reports. The `sessions` row, filled as the stages go, is written last.
//! A file truncated while it is read (another program cut it) stops the session at the next
//! stage: its `sessions` row holds the error, and the rows already written (from bytes read
//! before the cut) stay.

use std::path::Path;
use std::sync::Arc;

use surface_analysis::audit::{Audit, LostTerms};
use surface_analysis::cost::{Ledger, LedgerParts, PriceTable, cache_breaks, parts_with};
use surface_analysis::policy::{
    PolicyInput, PolicyReport, PolicySettings, ReplayMode, ValidSettings, replay,
};
use surface_engine::compactions::Scan;
use surface_engine::{DEFAULT_THRESHOLD_RATIO, EventLog, Meter, Surface};
use surface_passes::audit_read_ahead;
use surface_passes::{check_report_of, meter_and_scan_of, tune_session};
use surface_store::{OnTruncate, Opened, Options, Reading, StoreError, open};

use super::part::Part;
use super::sessions::SessionRow;
use super::tables::Tables;
use super::writer::{SessionKey, TableWriter};
use super::{calls, checks, compactions, events, findings, tune};
use crate::Input;
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
    /// The settings of `tune`'s grid (`--tune`), for the `tune` table.
    pub tune: Option<&'a [PolicySettings]>,
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
    let options = Options {
        session: input.session.as_deref(),
        progress: None,
        limits: input.limits(),
        reading: Reading::Map(OnTruncate::Report),
    };
    let opened = open(&input.file, &options);
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
    // Said as it is read; the `findings` table holds each skipped record as a finding.
    crate::load::warn_skipped(&input.file, &surface_engine::skipped(&loaded.log));
    let session_id = Some(loaded.session.id.clone())
        .filter(|s| !s.is_empty())
        .or(id.map(str::to_string));
    let key = Arc::new(SessionKey { session_id, path });
    let outcome = write_tables(&loaded, &key, &input.file, recipe, part)?;
    Ok((key, outcome))
}

/// Every table's rows of a session that was read: `check` and the meter first (each on the
/// pool's threads), then the other passes two at a time ([`write_passes`]), then the `sessions`
/// row from what they all computed.
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
    let settings = match settings_of(recipe.policy, meter.window_at(log.len())) {
        Ok(s) => Some(s),
        Err(e) => {
            row.policy_error(format!("{e:#}"));
            None
        }
    };
    let passes = Passes {
        log,
        surface: &surface,
        meter: &meter,
        scan: &scan,
        key,
        recipe,
        settings: settings.as_ref(),
    };
    let Some(replays) = write_passes(&passes, part, &mut row)? else {
        return stop(part, row);
    };
    if log.text_lost() {
        return stop(part, row);
    }
    if let Some((verify, what_if)) = &replays {
        row.verify(verify);
        if let Some(w) = what_if {
            row.what_if(w);
        }
    }
    if let (Some(settings), Some(out)) = (recipe.tune, part.tune.as_mut()) {
        let tuned = tune_session(log, settings, recipe.prices);
        if log.text_lost() {
            return stop(part, row);
        }
        tune::write(out, key, settings, &tuned)?;
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
        .then(|| audit_read_ahead(p.log, p.surface, p.meter, ratio, p.scan, LostTerms::Read))
}

/// The ledger of a session's model calls and what it is built from, when a table written needs
/// it (`calls`, `compactions` or the `sessions` row).
type Ledgered = Option<(LedgerParts, Ledger)>;

/// The audit and the ledger, then the `compactions` rows from both and the row's counts; the
/// audit is let go here, before the second join. `Ok(None)` when the file was cut under its
/// mapping before the table was written (nothing more is).
fn audit_and_ledger(
    p: &Passes<'_>,
    compactions_out: Option<&mut TableWriter<compactions::CompactionRow>>,
    row: &mut SessionRow,
) -> anyhow::Result<Option<Ledgered>> {
    let audited = audit_beside(p);
    let (log, t) = (p.log, p.recipe.tables);
    let Some(parts) = (t.calls || t.compactions || t.sessions)
        .then(|| parts_with(log, p.surface, p.meter, p.scan))
    else {
        return Ok(Some(None));
    };
    let ledger = Ledger::build(&parts, p.recipe.prices);
    if log.text_lost() {
        return Ok(None);
    }
    if let (Some(audit), Some(out)) = (&audited, compactions_out) {
        compactions::write(out, p.key, log, audit, &ledger)?;
    }
    row.ledger(&ledger);
    if let Some(a) = &audited {
        row.audit(a);
    }
    Ok(Some(Some((parts, ledger))))
}

/// The `calls` rows from the ledger, with why each request's cache missed (only for the table
/// that shows it). `Ok(None)` as for [`audit_and_ledger`].
fn calls_beside(
    p: &Passes<'_>,
    ledgered: &Ledgered,
    calls_out: Option<&mut TableWriter<calls::CallRow>>,
) -> anyhow::Result<Option<()>> {
    let log = p.log;
    if let (Some((parts, ledger)), Some(out)) = (ledgered, calls_out) {
        let breaks = cache_breaks(log, p.surface, p.meter, parts);
        if log.text_lost() {
            return Ok(None);
        }
        calls::write(out, p.key, log, (ledger, &breaks))?;
    }
    Ok(Some(()))
}

/// The passes that write `events`, `compactions`, `checks` and `calls` (and fill `row`), as two
/// `rayon::join`s: the events beside the audit and the ledger (which write `compactions`), then
/// the policy's input and replays beside the `calls` rows. The replays, for the `sessions`
/// row; `Ok(None)` when the file was cut under its mapping before a table was written (nothing
/// more is).
fn write_passes(
    p: &Passes<'_>,
    part: &mut Part,
    row: &mut SessionRow,
) -> anyhow::Result<Option<Option<Replays>>> {
    let Part {
        events: events_out,
        calls,
        checks,
        compactions,
        ..
    } = part;
    let (written, ledgered) = rayon::join(
        || match events_out.as_mut() {
            Some(out) => events::write(out, p.key, p.log, p.surface, p.meter, p.recipe.payload),
            None => Ok(()),
        },
        || audit_and_ledger(p, compactions.as_mut(), row),
    );
    written?;
    let Some(ledgered) = ledgered? else {
        return Ok(None);
    };
    let (replays, called) = rayon::join(
        || replays_beside(p, policy_input(p), checks.as_mut()),
        || calls_beside(p, &ledgered, calls.as_mut()),
    );
    let (Some(replays), Some(())) = (replays?, called?) else {
        return Ok(None);
    };
    Ok(Some(replays))
}

/// The policy's input, when its settings fit and a table written needs its replays.
fn policy_input(p: &Passes<'_>) -> Option<PolicyInput> {
    let t = p.recipe.tables;
    p.settings
        .filter(|_| t.checks || t.sessions)
        .map(|_| PolicyInput::build_with(p.log, p.surface, p.meter, p.scan))
}

/// The policy's replays of `input` (verify, and the what-if when asked), written to `checks`.
/// `Ok(None)` as for [`audit_and_ledger`].
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
