//! One session exported, table by table, with the engine's own passes: `check`'s findings and
//! the surface at the end (on two cores), the harness's meter, then the events, the ledger of
//! model calls (§11), the compaction audit (§8) and the policy's replay (§10.4) — each only when
//! a table written needs it, and each written and dropped before the next is computed, so at
//! most one of them is held beside the log, its surface and its meter. The `sessions` row,
//! filled as the stages go, is written last. A file truncated while it is read (another program
//! cut it) stops the session at the next stage: its `sessions` row holds the error, and the
//! rows already written (from bytes read before the cut) stay.

use std::path::Path;
use std::sync::Arc;

use anyhow::anyhow;
use surface_engine::DEFAULT_THRESHOLD_RATIO;
use surface_engine::audit::{LostTerms, audit_scanned};
use surface_engine::cost::{Ledger, PriceTable, parts_with};
use surface_engine::policy::{PolicyInput, ReplayMode, replay};
use surface_passes::{check_report_of, meter_and_scan_of};
use surface_store::{Opened, StoreError, open_for_viewer};

use super::pages::releasing;
use super::part::Part;
use super::sessions::SessionRow;
use super::tables::Tables;
use super::writer::SessionKey;
use super::{calls, checks, compactions, events, findings};
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
    let opened = open_for_viewer(&input.file, input.session.as_deref(), None, &input.limits());
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
    let outcome = releasing(&loaded.log, || {
        write_tables(&loaded, &key, &input.file, recipe, part)
    })?;
    Ok((key, outcome))
}

/// Every table's rows of a session that was read. `check` and the meter first (each on
/// both cores); then, side by side, the events written on this thread while another computes
/// the ledger and the audit, and the policy's replay here after them; then the tables of
/// those. Each stage's result is written and dropped before the session ends.
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
    let t = recipe.tables;
    let costs = || {
        let ledger = (t.calls || t.compactions || t.sessions)
            .then(|| Ledger::build(&parts_with(log, &surface, &meter, &scan), recipe.prices));
        let ratio = settings
            .as_ref()
            .map_or(DEFAULT_THRESHOLD_RATIO, |s| s.threshold_ratio);
        let audited = (t.compactions || t.sessions)
            .then(|| audit_scanned(log, &surface, &meter, ratio, &scan, LostTerms::Read));
        (ledger, audited)
    };
    let (written, costs, replays) = std::thread::scope(|scope| {
        let aside = std::thread::Builder::new()
            .name("surface-viewer-audit".into())
            .spawn_scoped(scope, costs);
        let written = match part.events.as_mut() {
            Some(out) => events::write(out, key, log, &surface, &meter, recipe.payload),
            None => Ok(()),
        };
        let replays = settings
            .as_ref()
            .filter(|_| t.checks || t.sessions)
            .map(|settings| {
                let input = PolicyInput::build_with(log, &surface, &meter, &scan);
                let verify = replay(log, &meter, &input, settings, ReplayMode::Verify);
                let what_if = recipe
                    .policy
                    .what_if
                    .then(|| replay(log, &meter, &input, settings, ReplayMode::WhatIf));
                (verify, what_if)
            });
        // No thread to be had: the ledger and the audit are computed here.
        let costs = match aside {
            Ok(thread) => thread.join().map_err(|_| anyhow!("the audit stopped")),
            Err(_) => Ok(costs()),
        };
        (written, costs, replays)
    });
    written?;
    let (ledger, audited) = costs?;
    if log.text_lost() {
        return stop(part, row);
    }
    if let Some(ledger) = &ledger {
        row.ledger(ledger);
        if let Some(out) = part.calls.as_mut() {
            calls::write(out, key, log, ledger)?;
        }
        if let Some(a) = &audited {
            row.audit(a);
            if let Some(out) = part.compactions.as_mut() {
                compactions::write(out, key, log, a, ledger)?;
            }
        }
    }
    if let Some((verify, what_if)) = &replays {
        row.verify(verify);
        if let Some(w) = what_if {
            row.what_if(w);
        }
        if let Some(out) = part.checks.as_mut() {
            for report in std::iter::once(verify).chain(what_if) {
                checks::write(out, key, log, report)?;
            }
        }
    }
    part.write_sessions(key, row)?;
    Ok(Outcome::Exported)
}
