//! Compactions decided by the engine's own policy replay (docs/policy.md) while a log is
//! written: at each check point the log written so far is read back, the policy is replayed
//! over it with the given settings (the same `surface_analysis::policy::replay` the `policy`
//! command runs), and what the policy decides there — prunes, then summaries one attempt at a
//! time — is written exactly as the harness writes it, until the replay agrees with the log.
//!
//! Reading the whole log back at every check costs O(events × checks): meant for the small
//! logs of the bundled samples and of tests, not for the benchmark generator.

use std::io;

use surface_analysis::policy::{
    CheckKind, CheckVerdict, PRUNE_MARKER, PlannedSummary, PolicyInput, PolicySettings,
    PrunerSettings, ReplayMode, replay,
};
use surface_engine::{EventLog, Meter, Surface};

use super::json::Js;
use super::writer::{Fault, LogWriter, NodeKind, SurfaceNode};

/// Writes the summary text of a compaction over the given surface nodes.
pub type SummaryText<'a> = dyn FnMut(&[SurfaceNode]) -> String + 'a;

/// The writer a policy run works on: one that keeps what it wrote in memory.
pub type MemoryWriter = LogWriter<Vec<u8>>;

/// Replays on the log read back in memory at most this many times per check before giving up
/// (prunes, `1 + retries` attempts and a last look, with room to spare).
const ROUNDS_OVER_ATTEMPTS: u32 = 4;

/// What one check point came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckRun {
    /// Tool results pruned.
    pub prunes: u32,
    /// Summaries written (successful attempts).
    pub summaries: u32,
    /// Attempts written as failed (the summary was not smaller than what it replaced).
    pub failed: u32,
    /// The replay still disagrees with the log there (only when the log already held a
    /// compaction the policy would not make, as in the problems sample).
    pub disagrees: bool,
}

impl CheckRun {
    /// The check changed the surface.
    pub fn changed(&self) -> bool {
        self.prunes + self.summaries > 0
    }
}

/// Where the check being settled is.
#[derive(Clone, Copy, Debug)]
enum Point<'c> {
    /// Before the next `step/start`.
    Pressure,
    /// Right after the overflowing model call of the open step.
    Overflow,
    /// A `/compact` command with this id.
    Command(&'c str),
}

/// Runs the policy with fixed settings at every check point a script or generator reaches.
#[derive(Clone, Debug)]
pub struct PolicyRun {
    settings: PolicySettings,
    /// The next summary leaves its first shadowed tool result out of `sourceEventSeqs`.
    omit_result_source: bool,
    /// Totals over the run.
    total: CheckRun,
}

impl PolicyRun {
    /// A run of the policy with `settings` (checked against each log's window as it runs).
    pub fn new(settings: PolicySettings) -> Self {
        PolicyRun {
            settings,
            omit_result_source: false,
            total: CheckRun::default(),
        }
    }

    /// The settings replayed.
    pub fn settings(&self) -> &PolicySettings {
        &self.settings
    }

    /// What every check so far came to, summed.
    pub fn totals(&self) -> CheckRun {
        self.total
    }

    /// The next summary written forgets to cite the first tool result it shadows (the
    /// problems sample's `provenance-incomplete` defect; the replace still applies).
    pub(super) fn omit_next_result_source(&mut self) {
        self.omit_result_source = true;
    }

    /// The pressure check before the next `step/start` (call it right before
    /// [`LogWriter::step_start`]): prunes and summaries written where the policy fires.
    pub fn before_step(
        &mut self,
        w: &mut MemoryWriter,
        text: &mut SummaryText<'_>,
    ) -> io::Result<CheckRun> {
        self.settle(w, Point::Pressure, text)
    }

    /// The recovery after [`LogWriter::overflow`]: the policy's prune and one summary keeping
    /// the newest node. The caller retries the request when the result [`CheckRun::changed`].
    pub fn after_overflow(
        &mut self,
        w: &mut MemoryWriter,
        text: &mut SummaryText<'_>,
    ) -> io::Result<CheckRun> {
        self.settle(w, Point::Overflow, text)
    }

    /// A `/compact` command `command_id` (between turns or at a step boundary): the one
    /// summary the policy makes for it, every event carrying `sourceCommandId`.
    pub fn command(
        &mut self,
        w: &mut MemoryWriter,
        command_id: &str,
        text: &mut SummaryText<'_>,
    ) -> io::Result<CheckRun> {
        self.settle(w, Point::Command(command_id), text)
    }

    fn settle(
        &mut self,
        w: &mut MemoryWriter,
        point: Point<'_>,
        text: &mut SummaryText<'_>,
    ) -> io::Result<CheckRun> {
        let mut run = CheckRun::default();
        let rounds = ROUNDS_OVER_ATTEMPTS + self.settings.compaction_retries;
        for _ in 0..rounds {
            let Some((log, verdict)) = self.verdict(w, point, run)? else {
                break;
            };
            // A command's probe (a failed attempt) agrees with any plan: write the plan.
            let probing = matches!(point, Point::Command(_)) && run.summaries + run.failed == 0;
            if verdict.agrees != Some(false) && !probing {
                run.disagrees = false;
                self.add(run);
                return Ok(run);
            }
            run.disagrees = true;
            let (pruned, logged_summaries) = match &verdict.actual {
                _ if probing => (0, 0),
                Some(a) => (a.pruned.len(), a.summaries.len() + a.failed),
                None => (0, 0),
            };
            if let Some(pruner) = self.settings.pruner
                && pruned == 0
                && logged_summaries == 0
                && !verdict.pruned.is_empty()
            {
                for &seq in &verdict.pruned {
                    prune(w, &log, seq, &pruner)?;
                    run.prunes += 1;
                }
                continue;
            }
            let Some(plan) = verdict.summaries.get(logged_summaries) else {
                break;
            };
            if self.summarise(w, plan, point, text)? {
                run.summaries += 1;
            } else {
                run.failed += 1;
            }
        }
        self.add(run);
        Ok(run)
    }

    fn add(&mut self, run: CheckRun) {
        self.total.prunes += run.prunes;
        self.total.summaries += run.summaries;
        self.total.failed += run.failed;
        self.total.disagrees |= run.disagrees;
    }

    /// Reads the log back with the probe `point` needs and replays the policy: the verdict
    /// of the check being settled, or `None` when there is no check there (before the first
    /// request header).
    fn verdict(
        &self,
        w: &MemoryWriter,
        point: Point<'_>,
        run: CheckRun,
    ) -> io::Result<Option<(EventLog, CheckVerdict)>> {
        let mut bytes = w.written().to_vec();
        let seq = w.next_seq();
        let time = w.time();
        let turn = if w.in_turn() {
            w.turn().to_string()
        } else {
            "null".to_string()
        };
        match point {
            Point::Pressure => bytes.extend_from_slice(
                format!(
                    "{{\"type\":\"step/start\",\"seq\":{seq},\"time\":{time},\"data\":{{\"turn\":{},\"step\":{}}}}}\n",
                    w.turn(),
                    w.step() + 1
                )
                .as_bytes(),
            ),
            // Before the command's first summary the log holds nothing of it: a failed attempt
            // stands in, whose range the replay predicts.
            Point::Command(id) if run.summaries + run.failed == 0 => {
                let data = format!(
                    "\"compactionId\":\"probe\",\"sourceCommandId\":{},\"turn\":{turn}",
                    Js(id)
                );
                bytes.extend_from_slice(
                    format!(
                        "{{\"type\":\"compaction/start\",\"seq\":{seq},\"time\":{time},\"data\":{{{data}}}}}\n{{\"type\":\"compaction/end\",\"seq\":{},\"time\":{time},\"data\":{{{data},\"error\":{{\"message\":\"probe\",\"code\":\"PROBE\"}}}}}}\n",
                        seq + 1
                    )
                    .as_bytes(),
                );
            }
            Point::Command(_) | Point::Overflow => {}
        }
        let log = surface_store::read_jsonl(bytes, None)
            .ok_or_else(|| invalid("the log written so far cannot be read back"))?;
        let surface = Surface::at_end(&log);
        let meter = Meter::build(&log, &surface);
        let input = PolicyInput::build(&log, &surface, &meter);
        let settings = self
            .settings
            .validate(meter.window_at(log.len()))
            .map_err(|e| invalid(&e.to_string()))?;
        let report = replay(&log, &meter, &input, &settings, ReplayMode::Verify);
        let found = report.checks.into_iter().rev().find(|v| match point {
            Point::Pressure => v.trigger == CheckKind::Pressure && v.step_start_seq == seq,
            Point::Overflow => v.trigger == CheckKind::Overflow,
            Point::Command(_) => v.trigger == CheckKind::Command,
        });
        Ok(found.map(|v| (log, v)))
    }

    /// Writes the policy's summary attempt `plan`: a compaction of exactly its range, or a
    /// failed attempt when the summary would not be smaller than what it replaces (the
    /// harness's not-smaller check). True when it succeeded.
    fn summarise(
        &mut self,
        w: &mut MemoryWriter,
        plan: &PlannedSummary,
        point: Point<'_>,
        text: &mut SummaryText<'_>,
    ) -> io::Result<bool> {
        let position = |seq: u64| w.surface().iter().position(|n| n.seq == seq);
        let (Some(first), Some(last)) = (position(plan.start), position(plan.end)) else {
            return Err(invalid(
                "the policy's summary range is not on the writer's surface",
            ));
        };
        let summary = text(&w.surface()[first..=last]);
        let shadowed: u64 = w.surface()[first..=last].iter().map(|n| n.tokens).sum();
        if MemoryWriter::summary_price(&summary) >= shadowed {
            w.failed_compaction(
                "the summary was not smaller than the messages it would replace",
                "NOT_SMALLER",
            )?;
            return Ok(false);
        }
        let fault = if std::mem::take(&mut self.omit_result_source) {
            w.surface()[first..=last]
                .iter()
                .find(|n| n.kind == NodeKind::ToolResult)
                .map_or(Fault::None, |n| Fault::OmitSource(n.seq))
        } else {
            Fault::None
        };
        let command = match point {
            Point::Command(id) => Some(id),
            _ => None,
        };
        w.compact_with(first, last, &summary, fault, command)?;
        Ok(true)
    }
}

/// Prunes the tool result `seq` as the harness's pruner does: its text keeps the first
/// `head_chars` and the last `tail_chars` code points with the marker between them.
fn prune(
    w: &mut MemoryWriter,
    log: &EventLog,
    seq: u64,
    pruner: &PrunerSettings,
) -> io::Result<()> {
    let pos = w
        .surface()
        .iter()
        .position(|n| n.seq == seq && n.kind == NodeKind::ToolResult)
        .ok_or_else(|| invalid("the policy prunes a tool result not on the writer's surface"))?;
    let text = result_text(log, seq).ok_or_else(|| invalid("a pruned tool result has no text"))?;
    w.prune(pos, &cut(&text, pruner.head_chars, pruner.tail_chars))
}

/// The text a pruned tool result keeps, from the original text blocks of `seq`.
fn result_text(log: &EventLog, seq: u64) -> Option<String> {
    let idx = log.find_seq(seq)?;
    let data = log.data_value(idx);
    let blocks = data.pointer("/message/content/0/content")?.as_array()?;
    let text: String = blocks
        .iter()
        .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some("text"))
        .filter_map(|b| b.get("text").and_then(|t| t.as_str()))
        .collect();
    Some(text)
}

/// The harness's cut of `text`: its first `head` and last `tail` code points around the
/// marker (the text unchanged when it is not longer than both together).
fn cut(text: &str, head: u64, tail: u64) -> String {
    let chars = text.chars().count() as u64;
    if chars <= head + tail {
        return text.to_string();
    }
    let mut out: String = text.chars().take(head as usize).collect();
    out.push_str(PRUNE_MARKER);
    out.extend(text.chars().skip((chars - tail) as usize));
    out
}

fn invalid(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message.to_string())
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn the_cut_keeps_head_and_tail_code_points_around_the_marker() {
        let text = "αβγδεζηθ";
        assert_eq!(
            cut(text, 2, 3),
            format!("αβ{}ζηθ", surface_analysis::policy::PRUNE_MARKER)
        );
        assert_eq!(cut(text, 4, 4), text);
    }
}
