//! One session read and analysed for the export, with the engine's own passes: `check`'s
//! findings and the surface at the end (on two cores), the harness's meter, the ledger of
//! model calls (§11), the compaction audit (§8) and the policy's replay (§10.4) — each only
//! when a table that is written needs it. The rows of every table are read from this.

use surface_engine::audit::{Audit, audit};
use surface_engine::cost::{Ledger, PriceTable, ledger_of};
use surface_engine::policy::{PolicyInput, PolicyReport, ReplayMode, replay};
use surface_engine::{CheckReport, EventLog, Meter, Surface};
use surface_passes::{check_report_of, meter_of};
use surface_store::{Format, OnTruncate, SessionInfo, StoreError};

use super::Tables;
use crate::Input;
use crate::load::load_mapped;
use crate::policy::{PolicyOptions, settings_of};

/// What the export reads a session with: the policy's settings as given, the price table,
/// and which tables are written.
pub struct Recipe<'a> {
    /// The policy's settings (checked against each session's window).
    pub policy: &'a PolicyOptions,
    /// The price table, when `--prices` was given.
    pub prices: Option<&'a PriceTable>,
    /// The tables written.
    pub tables: Tables,
}

/// A session, analysed.
pub struct Analysis {
    /// The file's format.
    pub format: Format,
    /// The session read.
    pub session: SessionInfo,
    /// Its log.
    pub log: EventLog,
    /// The surface at the end of the log.
    pub surface: Surface,
    /// `check`'s findings and era.
    pub check: CheckReport,
    /// The harness's meter.
    pub meter: Meter,
    /// The ledger of model calls (for `calls`, `compactions` and `sessions`).
    pub ledger: Option<Ledger>,
    /// The compaction audit at the policy's threshold ratio (for `compactions` and `sessions`).
    pub audit: Option<Audit>,
    /// The policy's replay of the log as it is (for `checks` and `sessions`).
    pub verify: Option<PolicyReport>,
    /// The replay with the log's compactions removed (`--what-if`).
    pub what_if: Option<PolicyReport>,
    /// Why the policy was not replayed: the settings do not hold for this session's window.
    pub policy_error: Option<String>,
}

/// Reads and analyses the session `input` names. A file truncated while it is mapped is this
/// session's error; the other sessions go on.
pub fn analyse(input: &Input, recipe: &Recipe<'_>) -> anyhow::Result<Analysis> {
    let loaded = load_mapped(input, false, OnTruncate::Report)?;
    let log = loaded.log;
    let (check, surface) = check_report_of(&log);
    let meter = meter_of(&log, &surface);
    let t = recipe.tables;
    let window = meter.window_at(log.len());
    let (settings, policy_error) = match settings_of(recipe.policy, window) {
        Ok(s) => (Some(s), None),
        Err(e) => (None, Some(format!("{e:#}"))),
    };
    let ledger = (t.calls || t.compactions || t.sessions)
        .then(|| ledger_of(&log, &surface, &meter, recipe.prices));
    let ratio = settings
        .as_ref()
        .map_or(surface_engine::DEFAULT_THRESHOLD_RATIO, |s| {
            s.threshold_ratio
        });
    let audit = (t.compactions || t.sessions).then(|| audit(&log, &surface, &meter, ratio));
    let (mut verify, mut what_if) = (None, None);
    if let Some(settings) = settings.as_ref()
        && (t.checks || t.sessions)
    {
        let input = PolicyInput::build(&log, &surface, &meter);
        verify = Some(replay(&log, &meter, &input, settings, ReplayMode::Verify));
        if recipe.policy.what_if {
            what_if = Some(replay(&log, &meter, &input, settings, ReplayMode::WhatIf));
        }
    }
    if log.text_lost() {
        // What the passes read after the truncation was zeros: not the session's figures.
        return Err(StoreError::Shrank {
            path: input.file.clone(),
        }
        .into());
    }
    Ok(Analysis {
        format: loaded.format,
        session: loaded.session,
        log,
        surface,
        check,
        meter,
        ledger,
        audit,
        verify,
        what_if,
        policy_error,
    })
}
