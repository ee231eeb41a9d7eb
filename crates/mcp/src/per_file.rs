//! The tools on one session file (`check`, `surface`, `messages`, `request`, `audit`,
//! `cost`, `policy`): each reads its arguments, then builds its document from the cached log
//! through surface-reports.

use std::sync::Arc;

use serde_json::{Map, Value};
use surface_engine::{Meter, Surface};
use surface_reports::check::CheckedFile;
use surface_reports::cost::RequestsPart;
use surface_reports::policy::{SettingsText, Spelling};
use surface_reports::{ReportError, Source};

use crate::ToolError;
use crate::args::{AtArgs, AuditArgs, CostArgs, FileArgs, MessagesArgs, PolicyArgs};
use crate::call::{State, ratio_of};
use crate::tools::parse;

impl State {
    /// The document of per-file tool `name` with `args`.
    pub(crate) fn per_file(
        &self,
        name: &str,
        args: &Map<String, Value>,
    ) -> Result<Arc<Value>, ToolError> {
        // A price file that changed since makes another document: its length and time are
        // part of the key.
        let prices = args
            .get("prices")
            .and_then(Value::as_str)
            .and_then(|p| self.roots.resolve(p).ok())
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| (m.len(), m.modified().ok()));
        let key = format!("{name} {} {prices:?}", Value::Object(args.clone()));
        match name {
            "check" => {
                let a: FileArgs = parse(name, args)?;
                self.on_file((&a.path, a.session.as_deref()), key, |source| {
                    let checked = surface_reports::check::checked(source)?;
                    Ok(surface_reports::check::document(
                        CheckedFile::of(source),
                        checked.mode,
                        &checked.era,
                        &checked.findings,
                    ))
                })
            }
            "surface" => {
                let a: AtArgs = parse(name, args)?;
                let ratio = ratio_of(name, a.threshold_ratio)?;
                self.on_file((&a.path, a.session.as_deref()), key, |source| {
                    let at = at_within(source, a.at)?;
                    let surface = Surface::at_seq(source.log, at);
                    let meter = meter_of(source);
                    Ok(surface_reports::surface::document(
                        source, at, &surface, &meter, ratio,
                    ))
                })
            }
            "messages" => {
                let a: MessagesArgs = parse(name, args)?;
                self.on_file((&a.path, a.session.as_deref()), key, |source| {
                    Ok(surface_reports::messages::document(
                        source,
                        at_within(source, a.at)?,
                    )?)
                })
            }
            "request" => {
                let a: AtArgs = parse(name, args)?;
                let ratio = ratio_of(name, a.threshold_ratio)?;
                self.on_file((&a.path, a.session.as_deref()), key, |source| {
                    let at = at_within(source, a.at)?;
                    let request =
                        surface_reports::request::request_of(source, &meter_of(source), at)?;
                    Ok(surface_reports::request::document(
                        source, &request, at, ratio,
                    )?)
                })
            }
            "audit" => {
                let a: AuditArgs = parse(name, args)?;
                let ratio = ratio_of(name, a.threshold_ratio)?;
                self.on_file((&a.path, a.session.as_deref()), key, |source| {
                    let audit = surface_reports::audit::audit_of(source, ratio);
                    Ok(surface_reports::audit::document(source, &audit)?)
                })
            }
            "cost" => self.cost(args, key),
            "policy" => self.policy(args, key),
            _ => Err(ToolError::UnknownTool(name.to_string())),
        }
    }

    fn cost(&self, args: &Map<String, Value>, key: String) -> Result<Arc<Value>, ToolError> {
        let a: CostArgs = parse("cost", args)?;
        let prices = self.prices_in(a.prices.as_deref())?;
        self.on_file((&a.path, a.session.as_deref()), key, |source| {
            let table = prices.as_ref().map(|p| &p.1);
            let (parts, breaks) = if a.requests {
                let (parts, breaks) = surface_passes::ledger_parts_and_breaks_of(source.log);
                (parts, Some(breaks))
            } else {
                (surface_passes::ledger_parts_of(source.log), None)
            };
            let ledger = surface_analysis::cost::Ledger::build(&parts, table);
            let part = breaks.as_ref().map(|b| RequestsPart::new(b, &parts, table));
            Ok(surface_reports::cost::document(
                source,
                prices.as_ref().map(|p| p.0.as_str()),
                &ledger,
                part.as_ref(),
            )?)
        })
    }

    fn policy(&self, args: &Map<String, Value>, key: String) -> Result<Arc<Value>, ToolError> {
        let a: PolicyArgs = parse("policy", args)?;
        let prices = self.prices_in(a.prices.as_deref())?;
        let text = |n: Option<u64>| n.map(|n| n.to_string());
        let settings = SettingsText {
            threshold_ratio: a.threshold_ratio.map(|r| r.to_string()),
            retain_ratio: a.retain_ratio.map(|r| r.to_string()),
            retain_tokens: text(a.retain_tokens),
            compaction_retries: text(a.compaction_retries),
            no_prune: a.no_prune,
            prune: a.prune.clone(),
            summary_tokens: text(a.summary_tokens),
            what_if: a.what_if,
        };
        self.on_file((&a.path, a.session.as_deref()), key, |source| {
            let run = surface_reports::policy::policy_of(
                source.log,
                &settings,
                Spelling::Argument,
                prices.as_ref().map(|p| &p.1),
            )?;
            Ok(surface_reports::policy::document(
                source,
                prices.as_ref().map(|p| p.0.as_str()),
                &run,
            )?)
        })
    }
}

/// The log's meter (the surface at the end priced).
fn meter_of(source: &Source<'_>) -> Meter {
    surface_passes::meter_of(source.log, &Surface::at_end(source.log))
}

/// `at` when the log reaches it: a seq past the last event is an error.
fn at_within(source: &Source<'_>, at: Option<u64>) -> Result<Option<u64>, ToolError> {
    let last = source.log.max_seq().unwrap_or(0);
    match at {
        Some(seq) if seq > last => Err(ToolError::Report(ReportError::Option(format!(
            "{}: seq {seq} is past the log's last event (seq {last})",
            source.file
        )))),
        _ => Ok(at),
    }
}
