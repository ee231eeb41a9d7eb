//! One session exported, table by table, with the engine's own passes: `check`'s findings and
//! the surface at the end and the harness's meter, over a mapping of the log
//! (`store::open` with `Reading::Map`); then the passes that write the other tables, two at a
//! time as the halves of a `rayon::join` — the events beside the compaction audit and the
//! policy's input, then the policy's replays (writing `checks`) beside the ledger of model
//! calls (writing `calls`) — each only when a table written needs it. Beside the log, its
//! surface and its meter, the export holds at most one row group per table, the ledger, the
//! audit and the policy's input and reports. The `sessions` row, filled as the stages go, is
//! written last. A file truncated while it is read (another program cut it) stops the session
//! at the next stage: its `sessions` row holds the error, and the rows already written (from
//! bytes read before the cut) stay.

use std::path::Path;
use std::sync::Arc;

use surface_analysis::audit::{Audit, LostTerms};
use surface_analysis::cost::{Ledger, PriceTable, cache_breaks, parts_with};
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
/// pool's threads), then the other passes two at a time ([`write_passes`]), then the
/// `compactions` from the audit and the ledger, and the `sessions` row from what they all
/// computed.
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
    let Some((audited, replays, ledger)) = write_passes(&passes, part)? else {
        return stop(part, row);
    };
    if log.text_lost() {
        return stop(part, row);
    }
    if let (Some(ledger), Some(audit), Some(out)) = (&ledger, &audited, part.compactions.as_mut()) {
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

/// The ledger of a session's model calls, written to `calls` as soon as it is known — only
/// when a table written needs it. `Ok(None)` when the file was cut under its mapping before the
/// table was written (nothing more is).
fn ledger_beside(
    p: &Passes<'_>,
    calls_out: Option<&mut TableWriter<calls::CallRow>>,
) -> anyhow::Result<Option<Option<Ledger>>> {
    let (log, t) = (p.log, p.recipe.tables);
    let parts = (t.calls || t.compactions || t.sessions)
        .then(|| parts_with(log, p.surface, p.meter, p.scan));
    let ledger = parts
        .as_ref()
        .map(|parts| Ledger::build(parts, p.recipe.prices));
    if let (Some(parts), Some(ledger), Some(out)) = (&parts, &ledger, calls_out) {
        // Why each request's cache missed: only for the `calls` table that shows it.
        let breaks = cache_breaks(log, p.surface, p.meter, parts);
        if log.text_lost() {
            return Ok(None);
        }
        calls::write(out, p.key, log, (ledger, &breaks))?;
    }
    Ok(Some(ledger))
}

/// The passes that write `events`, `checks` and `calls`, as two `rayon::join`s: the events
/// beside the audit and the policy's input, then the policy's replays beside the ledger.
/// `Ok(None)` when the file was cut under its mapping before a table was written (nothing more
/// is).
fn write_passes(p: &Passes<'_>, part: &mut Part) -> anyhow::Result<Option<Written>> {
    let Part {
        events: events_out,
        calls,
        checks,
        ..
    } = part;
    let (written, (audited, input)) = rayon::join(
        || match events_out.as_mut() {
            Some(out) => events::write(out, p.key, p.log, p.surface, p.meter, p.recipe.payload),
            None => Ok(()),
        },
        || (audit_beside(p), policy_input(p)),
    );
    written?;
    let (replays, ledger) = rayon::join(
        || replays_beside(p, input, checks.as_mut()),
        || ledger_beside(p, calls.as_mut()),
    );
    let (Some(replays), Some(ledger)) = (replays?, ledger?) else {
        return Ok(None);
    };
    Ok(Some((audited, replays, ledger)))
}

/// What [`write_passes`] computed: the audit, the policy's replays and the ledger (each when a
/// table written needs it).
type Written = (Option<Audit>, Option<Replays>, Option<Ledger>);

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
