//! `preview`: the replace op that would shadow a surface range, with its validity and totals.

use std::io::Write as _;

use super::load::{describe_cursor, load, write_context};
use super::{EXIT_FINDINGS, EXIT_OK, Input, print_json};
use crate::engine::{PreviewRequest, preview_replace};

/// Options of `preview`.
pub struct Args {
    /// First node seq.
    pub start: u64,
    /// Last node seq.
    pub end: u64,
    /// Cursor.
    pub at: Option<u64>,
    /// Replacement text.
    pub summary: Option<String>,
    /// Event time (ms); default now.
    pub time: Option<i64>,
    /// JSON output.
    pub json: bool,
}

/// Runs `preview`.
pub fn run(input: &Input, args: Args) -> anyhow::Result<u8> {
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
    let preview = preview_replace(&loaded.log, &surface, &req);
    if args.json {
        print_json(&preview)?;
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
        write_context(writeln!(
            out,
            "  before: {} nodes, ~{} tokens; after: {} nodes, ~{} tokens",
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
