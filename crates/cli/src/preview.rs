//! `preview`: the replace op that would shadow a surface range, with its validity and totals.

use std::io::Write as _;

use super::load::{describe_cursor, load, write_context};
use super::{EXIT_FINDINGS, EXIT_OK, Input, MeterOptions, print_json};
use surface_engine::{PreviewRequest, Surface, preview_replace};

/// Options of `preview`.
#[derive(Debug, clap::Args)]
pub struct PreviewOptions {
    /// Seq of the first node to shadow.
    #[arg(long, value_name = "S")]
    pub start: u64,
    /// Seq of the last node to shadow (inclusive).
    #[arg(long, value_name = "E")]
    pub end: u64,
    /// The surface to preview against: after every event with seq ≤ SEQ.
    #[arg(long, value_name = "SEQ")]
    pub at: Option<u64>,
    /// The replacement's text.
    #[arg(long, value_name = "TEXT")]
    pub summary: Option<String>,
    /// `time` of the proposed event in epoch ms (default: now).
    #[arg(long, value_name = "MS")]
    pub time: Option<i64>,
    /// One JSON document on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub meter: MeterOptions,
}

/// Runs `preview`.
pub fn run(input: &Input, args: PreviewOptions) -> anyhow::Result<u8> {
    let loaded = load(input, false)?;
    let surface = loaded.surface_at(args.at);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .ok();
    let req = PreviewRequest {
        start: args.start,
        end: args.end,
        summary: args.summary.unwrap_or_else(|| {
            format!(
                "Summary of the conversation from seq {} to seq {}.",
                args.start, args.end
            )
        }),
        time: args.time.or(now),
    };
    let meter = super::meter_of(&loaded.log, &Surface::at_end(&loaded.log));
    let preview = preview_replace(&loaded.log, &surface, &meter, &req);
    let threshold = meter.threshold_at(surface.cursor(), args.meter.threshold_ratio);
    if args.json {
        let file = input.file.display().to_string();
        let doc = surface_reports::preview::document(
            &loaded.source(&file),
            &preview,
            &surface,
            &meter,
            args.meter.threshold_ratio,
        )?;
        print_json(&doc)?;
    } else {
        let mut out = std::io::stdout().lock();
        write_context(writeln!(
            out,
            "replace {}..{} {}: {}",
            args.start,
            args.end,
            describe_cursor(args.at),
            if preview.valid { "valid" } else { "INVALID" }
        ))?;
        for e in &preview.errors {
            write_context(writeln!(out, "  error: {e}"))?;
        }
        for w in &preview.warnings {
            write_context(writeln!(out, "  warning: {w}"))?;
        }
        write_context(writeln!(
            out,
            "  shadows {} node(s): {:?}",
            preview.shadowed.len(),
            preview.shadowed
        ))?;
        let against = threshold.map_or(String::new(), |t| format!(" (threshold {t})"));
        write_context(writeln!(
            out,
            "  before: {} nodes, {} tokens; after: {} nodes, {} tokens{against}",
            preview.before.nodes,
            preview.before.approx_tokens,
            preview.after.nodes,
            preview.after.approx_tokens
        ))?;
        write_context(writeln!(out, "  event: {}", preview.event_line()))?;
    }
    Ok(if preview.valid {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    })
}
