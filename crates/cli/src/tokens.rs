//! `tokens`: the harness's token meter after every event (docs/meter.md), as a table, one
//! JSON document or CSV.

use std::io::{BufWriter, Write as _};

use serde_json::json;

use super::csv_out::CsvWriter;
use super::load::{Loaded, load, write_context};
use super::{EXIT_OK, Input, MeterOptions};
use surface_engine::{EventIdx, EventLog, Meter, Surface};

/// Output format of `tokens`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokensFormat {
    /// A readable table.
    Human,
    /// One JSON document.
    Json,
    /// CSV with a header line.
    Csv,
}

/// The per-event columns, in order.
const COLUMNS: [&str; 8] = [
    "seq",
    "type",
    "total",
    "surface",
    "baseline_kind",
    "baseline",
    "window",
    "threshold",
];

/// Runs `tokens`.
pub fn run(input: &Input, format: TokensFormat, options: &MeterOptions) -> anyhow::Result<u8> {
    let loaded = load(input, false)?;
    let log = &loaded.log;
    let meter = super::meter_of(log, &Surface::at_end(log));
    let ratio = options.threshold_ratio;
    let out = std::io::stdout().lock();
    let mut out = BufWriter::new(out);
    match format {
        TokensFormat::Json => write_json(&mut out, input, &loaded, &meter, ratio)?,
        TokensFormat::Csv => {
            let mut csv = write_context(CsvWriter::new(&mut out, &COLUMNS))?;
            for i in 0..log.len() {
                let r = Row::of(log, &meter, i, ratio);
                write_context(csv.row(&[
                    r.seq.into(),
                    r.type_name.into(),
                    r.total.into(),
                    r.surface.into(),
                    r.kind.into(),
                    r.baseline.into(),
                    r.window.into(),
                    r.threshold.into(),
                ]))?;
            }
        }
        TokensFormat::Human => write_human(&mut out, input, log, &meter, ratio)?,
    }
    write_context(out.flush())?;
    Ok(EXIT_OK)
}

/// One event's row.
struct Row<'a> {
    seq: u64,
    type_name: &'a str,
    total: u64,
    surface: u64,
    kind: &'static str,
    baseline: u64,
    window: Option<u64>,
    threshold: Option<u64>,
}

impl<'a> Row<'a> {
    fn of(log: &'a EventLog, meter: &Meter, i: usize, ratio: f64) -> Self {
        let idx = EventIdx(i as u32);
        let f = meter.at(i + 1);
        Row {
            seq: log.event(idx).seq,
            type_name: log.type_name(idx),
            total: f.total,
            surface: f.surface,
            kind: f.baseline_kind.as_str(),
            baseline: f.baseline,
            window: meter.window_at(i + 1),
            threshold: meter.threshold_at(i + 1, ratio),
        }
    }
}

fn write_json(
    out: &mut impl std::io::Write,
    input: &Input,
    loaded: &Loaded,
    meter: &Meter,
    ratio: f64,
) -> anyhow::Result<()> {
    let log = &loaded.log;
    let end = log.len();
    let head = json!({
        "file": input.file.display().to_string(),
        "events": log.len(),
        "window": meter.window_at(end),
        "threshold_ratio": ratio,
        "threshold": meter.threshold_at(end, ratio),
        "skipped": loaded.skipped,
    });
    // The document is written row by row: a million-event log has a million rows.
    let head = head.to_string();
    let head = head.strip_suffix('}').unwrap_or(&head);
    write_context(write!(out, "{head},\"rows\":["))?;
    for i in 0..log.len() {
        let r = Row::of(log, meter, i, ratio);
        let row = json!({
            "seq": r.seq,
            "type": r.type_name,
            "total": r.total,
            "surface": r.surface,
            "baseline_kind": r.kind,
            "baseline": r.baseline,
            "window": r.window,
            "threshold": r.threshold,
        });
        let sep = if i == 0 { "\n" } else { ",\n" };
        write_context(write!(out, "{sep}{row}"))?;
    }
    write_context(writeln!(out, "\n]}}"))?;
    Ok(())
}

fn write_human(
    out: &mut impl std::io::Write,
    input: &Input,
    log: &EventLog,
    meter: &Meter,
    ratio: f64,
) -> anyhow::Result<()> {
    let end = log.len();
    let last = meter.at(end);
    let window = match (meter.window_at(end), meter.threshold_at(end, ratio)) {
        (Some(w), Some(t)) => format!("window {w}, threshold {t} (ratio {ratio})"),
        _ => "no context window known".to_string(),
    };
    write_context(writeln!(
        out,
        "{}: {} events, {window}; at the end {} tokens ({}), {} on the surface",
        input.file.display(),
        log.len(),
        last.total,
        last.baseline_kind.as_str(),
        last.surface,
    ))?;
    write_context(writeln!(
        out,
        "{:>7}  {:<26} {:>9} {:>9} {:>9}  {:<9}  {:>6}",
        "seq", "type", "total", "surface", "baseline", "kind", "fill"
    ))?;
    for i in 0..log.len() {
        let r = Row::of(log, meter, i, ratio);
        let fill = r.window.map_or(String::new(), |w| {
            format!("{:.1}%", r.total as f64 * 100.0 / w as f64)
        });
        let over = if r.threshold.is_some_and(|t| r.total >= t) {
            "  ▲ over threshold"
        } else {
            ""
        };
        write_context(writeln!(
            out,
            "{:>7}  {:<26} {:>9} {:>9} {:>9}  {:<9}  {:>6}{over}",
            r.seq, r.type_name, r.total, r.surface, r.baseline, r.kind, fill
        ))?;
    }
    Ok(())
}
