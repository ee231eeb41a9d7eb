//! `surface`: the surface nodes at a cursor, and the ops rejected up to it.

use std::io::Write as _;

use serde_json::Value;

use super::load::{Loaded, describe_cursor, load, write_context};
use super::{EXIT_OK, Input, MeterOptions, print_json};
use surface_engine::{EventIdx, EventLog, Meter, Surface, SurfaceOp, one_line, summarize};

/// Runs `surface`.
pub fn run(
    input: &Input,
    at: Option<u64>,
    json: bool,
    repair: bool,
    options: &MeterOptions,
) -> anyhow::Result<u8> {
    let loaded = load(input, repair)?;
    let log = &loaded.log;
    let surface = loaded.surface_at(at);
    let meter = super::meter_of(log, &Surface::at_end(log));
    let shown = Shown {
        loaded: &loaded,
        at,
        nodes: surface.nodes().collect(),
        invalid: surface_reports::surface::rejected(log, &surface),
        meter: &meter,
        surface: &surface,
        threshold_ratio: options.threshold_ratio,
    };
    if json {
        print_json(&shown.json())?;
    } else {
        shown.write_human()?;
    }
    Ok(EXIT_OK)
}

/// What `surface` shows: the nodes at the cursor and the ops rejected up to it.
struct Shown<'a> {
    loaded: &'a Loaded,
    at: Option<u64>,
    nodes: Vec<EventIdx>,
    invalid: Vec<(EventIdx, String)>,
    meter: &'a Meter,
    surface: &'a Surface,
    threshold_ratio: f64,
}

impl Shown<'_> {
    /// The `--json` document (docs/check.md#surface), as surface-reports builds it.
    fn json(&self) -> Value {
        surface_reports::surface::document(
            &self.loaded.source(""),
            self.at,
            self.surface,
            self.meter,
            self.threshold_ratio,
        )
    }

    /// The human listing: a summary line, the fork's seed, one row per node, the rejected ops.
    fn write_human(&self) -> anyhow::Result<()> {
        let log = &self.loaded.log;
        let mut out = std::io::stdout().lock();
        write_context(writeln!(out, "{}", self.headline()))?;
        if let Some(h) = &log.header
            && let Some(parent) = &h.parent_session
        {
            write_context(writeln!(
                out,
                "fork of session {parent}: its first {} events are the inherited seed (seq marked *)",
                h.seed_length.unwrap_or(0)
            ))?;
        }
        write_context(writeln!(
            out,
            "{:>7}  {:<18} {:<16} {:>7}  summary",
            "seq", "type", "op", "tokens"
        ))?;
        for &i in &self.nodes {
            write_context(writeln!(out, "{}", node_row(log, i, self.meter.price(i))))?;
        }
        if !self.invalid.is_empty() {
            write_context(writeln!(out, "rejected ops:"))?;
            for (i, reason) in &self.invalid {
                write_context(writeln!(
                    out,
                    "{:>7}  {:<18} {}",
                    log.event(*i).seq,
                    log.type_name(*i),
                    reason
                ))?;
            }
        }
        Ok(())
    }

    /// "surface at the end — surface mode, N nodes, T tokens on the surface; meter total …".
    fn headline(&self) -> String {
        let (meter, cursor) = (self.meter, self.surface.cursor());
        let figure = meter.at(cursor);
        let window = match (
            meter.window_at(cursor),
            meter.threshold_at(cursor, self.threshold_ratio),
        ) {
            (Some(w), Some(t)) => format!(
                " of window {w} ({:.1}%, threshold {t})",
                figure.total as f64 * 100.0 / w as f64
            ),
            _ => String::new(),
        };
        format!(
            "surface {} — {} mode, {} nodes, {} tokens on the surface; meter total {} ({}){window}",
            describe_cursor(self.at),
            self.surface.mode().as_str(),
            self.nodes.len(),
            figure.surface,
            figure.total,
            figure.baseline_kind.as_str(),
        )
    }
}

/// One node's row of the human listing.
fn node_row(log: &EventLog, i: EventIdx, tokens: u64) -> String {
    let e = log.event(i);
    let op = match log.op(i) {
        SurfaceOp::Replace { start, end } => format!("replace {start}..{end}"),
        _ if e.is_synthesized() => "append (repair)".to_string(),
        SurfaceOp::Append => "append".to_string(),
        _ => "(legacy)".to_string(),
    };
    let seq = if e.is_seed() {
        format!("*{}", e.seq)
    } else {
        e.seq.to_string()
    };
    let summary = one_line(&summarize(log, i), 96);
    format!(
        "{seq:>7}  {:<18} {op:<16} {tokens:>7}  {summary}",
        log.type_name(i)
    )
}
