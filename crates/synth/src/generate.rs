//! The configurable generator: turns of a coding agent working on a Rust workspace (bash,
//! read and edit tool calls with plausible outputs), summarizing compactions every K turns
//! (optionally nested) and whenever the meter's estimate reaches the threshold, some of them
//! asked for by a command between turns and some recovering from a model call that overflowed
//! the window, failed compactions, single-node tool-result prunes, and tool calls that fetch
//! again what a compaction dropped.

use std::collections::VecDeque;
use std::io::{self, Write};

use super::SplitMix64;
use super::json::Js;
use super::text::uuid;
use super::writer::{LogWriter, NodeKind, Reply, Streaming, SynthStats};

/// What to generate. [`SynthConfig::default`] is a 10,000-event log with every feature on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthConfig {
    /// Seed of every choice: equal configs produce equal bytes.
    pub seed: u64,
    /// Stop after the first turn that brings the event count (packed members counted) to at
    /// least this many; 0 means no event target.
    pub target_events: u64,
    /// Stop after this many turns; 0 means no turn limit. With neither limit, one turn.
    pub max_turns: u32,
    /// Tool calls per turn, one per step, before the final answer step.
    pub tool_calls_per_turn: u32,
    /// Streamed deltas per assistant message, split between its reasoning block and its
    /// text or tool-call block.
    pub chunks_per_message: u32,
    /// A summarizing compaction at the start of every K-th turn (turns K+1, 2K+1, …),
    /// shadowing everything before the current turn; 0 disables compaction.
    pub compaction_every: u32,
    /// When true, each compaction after the first starts at the previous summary node
    /// (a nested replace); when false, right after it.
    pub nested: bool,
    /// A single-node tool-result prune at the start of every P-th turn; 0 disables pruning.
    pub prune_every: u32,
    /// Pack runs of three or more deltas into `*-chunks` rows (docs/parity.md).
    pub pack: bool,
    /// Lines of output per tool result (roughly; edits are shorter).
    pub tool_output_lines: u32,
    /// The context window `request/context` announces; a compaction also runs at the start
    /// of any turn whose request the meter estimates at 80 % of it or more.
    pub context_window: u64,
    /// Every C-th scheduled compaction is asked for by a command (`/compact`) between turns;
    /// 0 never.
    pub command_every: u32,
    /// Every O-th scheduled compaction recovers from a model call that overflowed the window
    /// (`CONTEXT_WINDOW_EXCEEDED`) inside the turn's first step; 0 never.
    pub overflow_every: u32,
    /// Every F-th scheduled compaction is preceded by an attempt that fails; 0 never.
    pub fail_every: u32,
    /// Percent of tool steps that repeat a call whose result a compaction dropped.
    pub refetch_percent: u32,
    /// Words of prose per streamed delta (four times as many code tokens of arguments), each
    /// content block then about `chunks_per_message / 2` deltas long; 0 cuts each block's
    /// prose (two words a delta) into exactly that many deltas instead.
    pub delta_words: u32,
}

impl Default for SynthConfig {
    fn default() -> Self {
        SynthConfig {
            seed: 0x5EED,
            target_events: 10_000,
            max_turns: 0,
            tool_calls_per_turn: 3,
            chunks_per_message: 40,
            compaction_every: 6,
            nested: true,
            prune_every: 4,
            pack: true,
            tool_output_lines: 24,
            context_window: 8_192,
            command_every: 3,
            overflow_every: 4,
            fail_every: 5,
            refetch_percent: 10,
            delta_words: 0,
        }
    }
}

impl SynthConfig {
    /// The default configuration aiming at `events` events.
    pub fn with_events(events: u64) -> Self {
        SynthConfig {
            target_events: events,
            ..SynthConfig::default()
        }
    }

    /// The shape of the harness's own long sessions at `events` events: almost every event a
    /// streamed `assistant/chunk` of one word (about 176 bytes a line unpacked, 72 packed,
    /// like the harness's 1,009,868-event log of 177.6 MB, 72.7 MB packed), long answers,
    /// short tool outputs, and one or two tool calls a turn.
    pub fn harness(events: u64) -> Self {
        SynthConfig {
            target_events: events,
            tool_calls_per_turn: HARNESS_TOOL_CALLS,
            chunks_per_message: HARNESS_CHUNKS,
            tool_output_lines: HARNESS_OUTPUT_LINES,
            delta_words: 1,
            ..SynthConfig::default()
        }
    }

    fn done(&self, stats: &SynthStats) -> bool {
        let by_events = self.target_events > 0 && stats.events >= self.target_events;
        let by_turns = self.max_turns > 0 && stats.turns >= u64::from(self.max_turns);
        let unbounded = self.target_events == 0 && self.max_turns == 0;
        by_events || by_turns || unbounded
    }
}

/// [`SynthConfig::harness`]: tool calls per turn, deltas per message, lines of tool output.
const HARNESS_TOOL_CALLS: u32 = 1;
const HARNESS_CHUNKS: u32 = 50;
const HARNESS_OUTPUT_LINES: u32 = 4;

/// Start time of generated sessions (2026-08-20, epoch milliseconds).
const START_TIME: i64 = 1_786_123_401_600;

/// Writes a generated session log to `out` (pass a buffered writer for files) and returns
/// what was written.
pub fn generate<W: Write>(config: &SynthConfig, out: W) -> io::Result<SynthStats> {
    let mut w = LogWriter::new(out, config.seed, START_TIME, config.pack);
    w.set_context_window(config.context_window.max(1));
    let per_block = (config.chunks_per_message as usize).div_ceil(2).max(1);
    let words = match config.delta_words {
        0 => {
            w.set_streaming(Streaming::Count(per_block));
            per_block * 2
        }
        n => {
            w.set_streaming(Streaming::Words(n as usize));
            per_block * n as usize
        }
    };
    w.header("/home/dev/src/tidewater")?;
    let mut g = Gen::new(config, words);
    loop {
        g.turn(&mut w)?;
        if config.done(&w.stats()) {
            break;
        }
    }
    Ok(w.finish()?.1)
}

/// How a scheduled compaction runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// At the start of the turn, before its first request.
    Plain,
    /// Asked for by a command between turns.
    Command,
    /// After the turn's first request overflowed the window, inside that step.
    Overflow,
}

/// A tool call the generator made: enough to make it again.
#[derive(Clone, Debug)]
struct Call {
    no: u64,
    name: &'static str,
    arguments: String,
    output: String,
}

/// Calls remembered for refetching.
const RECENT_CALLS: usize = 64;
/// Dropped calls kept as refetch candidates.
const DROPPED_CALLS: usize = 16;

/// The generator's content and memory of tool calls (shared with the policy-driven
/// generator).
pub(super) struct Gen<'c> {
    config: &'c SynthConfig,
    rng: SplitMix64,
    /// Words of prose per block, enough to fill every delta.
    words: usize,
    /// Scheduled compactions so far.
    scheduled: u32,
    /// The latest calls, oldest first.
    recent: VecDeque<Call>,
    /// Calls whose result a compaction or prune dropped.
    dropped: Vec<Call>,
}

impl<'c> Gen<'c> {
    /// Content for `config`, `words` words of prose per content block.
    pub(super) fn new(config: &'c SynthConfig, words: usize) -> Self {
        Gen {
            config,
            rng: SplitMix64::new(config.seed ^ 0x0063_6F6E_7465_6E74),
            words,
            scheduled: 0,
            recent: VecDeque::new(),
            dropped: Vec::new(),
        }
    }

    fn turn<W: Write>(&mut self, w: &mut LogWriter<W>) -> io::Result<()> {
        let style = self.scheduled_style(w.turn() + 1);
        if style == Some(Style::Command) {
            // `/compact` between turns: everything on the surface so far.
            self.compact(w, false, Some(Style::Command))?;
        }
        let turn = w.turn_start()?;
        w.step_start()?;
        let request = self.request();
        let user_seq = w.user_message(&request)?;
        if turn == 1 {
            w.session_title(&title_of(&request), user_seq)?;
            w.request_header(SYSTEM_PROMPT, TOOLS)?;
        }
        self.maybe_prune(w, turn)?;
        let pressure = w.estimated_total() * 5 >= w.context_window() * 4;
        if style == Some(Style::Plain) || (style.is_none() && pressure && turn > 1) {
            self.compact(w, true, style)?;
        }
        for k in 0..self.config.tool_calls_per_turn {
            if k > 0 {
                w.step_end()?;
                w.step_start()?;
            }
            w.request_context()?;
            if k == 0 && style == Some(Style::Overflow) {
                w.overflow()?;
                self.compact(w, true, style)?;
            }
            self.tool_step(w)?;
        }
        if self.config.tool_calls_per_turn > 0 {
            w.step_end()?;
            w.step_start()?;
        }
        w.request_context()?;
        let reasoning = self.prose(REASONING);
        let answer = self.prose(ANSWERS);
        w.assistant(&reasoning, Reply::Text(&answer))?;
        w.step_end()?;
        w.turn_end()
    }

    fn maybe_prune<W: Write>(&mut self, w: &mut LogWriter<W>, turn: u32) -> io::Result<()> {
        let every = self.config.prune_every;
        if every == 0 || !turn.is_multiple_of(every) {
            return Ok(());
        }
        let target = w
            .surface()
            .iter()
            .position(|n| n.kind == NodeKind::ToolResult && n.turn < turn);
        match target {
            Some(pos) => {
                let no = w.surface()[pos].call_no;
                self.drop_calls(&[no]);
                let text =
                    "[tool output pruned to free context: re-run the tool if the details matter]";
                w.prune(pos, text)
            }
            None => Ok(()),
        }
    }

    /// The style of the compaction scheduled for `turn` (turns K+1, 2K+1, …), if one is.
    fn scheduled_style(&mut self, turn: u32) -> Option<Style> {
        let every = self.config.compaction_every;
        if every == 0 || turn <= 1 || !(turn - 1).is_multiple_of(every) {
            return None;
        }
        self.scheduled += 1;
        let nth = |k: u32| k > 0 && self.scheduled.is_multiple_of(k);
        Some(if nth(self.config.command_every) {
            Style::Command
        } else if nth(self.config.overflow_every) {
            Style::Overflow
        } else {
            Style::Plain
        })
    }

    /// Summarizes the surface up to the node before the current turn's user message (or to
    /// the end, between turns): from the last summary on when nested, else after it.
    fn compact<W: Write>(
        &mut self,
        w: &mut LogWriter<W>,
        in_turn: bool,
        style: Option<Style>,
    ) -> io::Result<()> {
        let surface = w.surface();
        let Some(last) = surface.len().checked_sub(if in_turn { 2 } else { 1 }) else {
            return Ok(());
        };
        let summary_at = surface.iter().rposition(|n| n.kind == NodeKind::Summary);
        let first = match summary_at {
            Some(p) if self.config.nested => p,
            Some(p) => p + 1,
            None => 0,
        };
        if first > last {
            return Ok(());
        }
        let dropped: Vec<u64> = surface[first..=last]
            .iter()
            .filter(|n| n.kind == NodeKind::ToolResult)
            .map(|n| n.call_no)
            .collect();
        self.drop_calls(&dropped);
        let fail = self.config.fail_every;
        if style.is_some() && fail > 0 && self.scheduled.is_multiple_of(fail) {
            w.failed_compaction("the summarizer request timed out", "TIMEOUT")?;
        }
        let summary = self.prose(SUMMARY);
        match style {
            Some(Style::Command) => {
                let command = uuid(self.config.seed ^ 0xC0_33A7D, u64::from(self.scheduled));
                w.compact_on_command(first, last, &summary, &command)
            }
            _ => w.compact(first, last, &summary),
        }
    }

    /// Remembers the calls numbered `nos` as dropped (refetch candidates).
    pub(super) fn drop_calls(&mut self, nos: &[u64]) {
        for &no in nos {
            if let Some(k) = self.recent.iter().position(|c| c.no == no)
                && let Some(call) = self.recent.remove(k)
            {
                if self.dropped.len() == DROPPED_CALLS {
                    self.dropped.remove(0);
                }
                self.dropped.push(call);
            }
        }
    }

    pub(super) fn tool_step<W: Write>(&mut self, w: &mut LogWriter<W>) -> io::Result<()> {
        let reasoning = self.prose(REASONING);
        let refetch =
            !self.dropped.is_empty() && self.rng.chance(u64::from(self.config.refetch_percent));
        let (name, args, output) = if refetch {
            let k = self.rng.below(self.dropped.len() as u64) as usize;
            let c = self.dropped.swap_remove(k);
            (c.name, c.arguments, c.output)
        } else {
            match self.rng.below(10) {
                0..=4 => self.bash(),
                5..=7 => self.read(),
                _ => self.edit(),
            }
        };
        self.call(w, &reasoning, name, args, output)
    }

    /// One tool step reading `lines` lines of a file (a large result, for the pruner).
    pub(super) fn read_step<W: Write>(
        &mut self,
        w: &mut LogWriter<W>,
        lines: u32,
    ) -> io::Result<()> {
        let reasoning = self.prose(REASONING);
        let (name, args, output) = self.read_lines(lines);
        self.call(w, &reasoning, name, args, output)
    }

    /// The model calls `name` with `args`; the tool answers `output`.
    fn call<W: Write>(
        &mut self,
        w: &mut LogWriter<W>,
        reasoning: &str,
        name: &'static str,
        args: String,
        output: String,
    ) -> io::Result<()> {
        let reply = Reply::Tool {
            name,
            arguments: &args,
        };
        if let Some(call) = w.assistant(reasoning, reply)? {
            let failed = name == "bash" && output.ends_with("[exit code: 101]");
            w.tool_result(&call, &output, failed)?;
            if self.recent.len() == RECENT_CALLS {
                self.recent.pop_front();
            }
            self.recent.push_back(Call {
                no: call.number(),
                name,
                arguments: args,
                output,
            });
        }
        Ok(())
    }

    /// Sentences from `table` until the text has enough words to fill every delta.
    pub(super) fn prose(&mut self, table: &[&str]) -> String {
        let mut text = String::new();
        let mut words = 0;
        while words < self.words {
            let s = self.rng.pick(table);
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(s);
            words += s.split_whitespace().count();
        }
        text
    }

    pub(super) fn request(&mut self) -> String {
        let verb = self.rng.pick(REQUESTS);
        let krate = self.rng.pick(CRATES);
        let module = self.rng.pick(MODULES);
        verb.replace("{crate}", krate).replace("{module}", module)
    }

    fn path(&mut self) -> String {
        format!(
            "{}/src/{}.rs",
            self.rng.pick(CRATES),
            self.rng.pick(MODULES)
        )
    }

    fn bash(&mut self) -> (&'static str, String, String) {
        let krate = *self.rng.pick(CRATES);
        let (command, description, output) = match self.rng.below(4) {
            0 => (
                format!("cargo test -p {krate}"),
                format!("Run the {krate} tests"),
                self.test_output(krate),
            ),
            1 => {
                let ident = *self.rng.pick(IDENTS);
                (
                    format!("rg -n \"{ident}\" {krate}/src"),
                    format!("Find uses of {ident}"),
                    self.grep_output(krate, ident),
                )
            }
            2 => (
                "git status --short && git diff --stat".to_string(),
                "Show working tree changes".to_string(),
                self.diff_output(krate),
            ),
            _ => (
                format!("cargo clippy -p {krate} --all-targets -- -D warnings"),
                format!("Lint {krate}"),
                format!(
                    "    Checking {krate} v0.{}.{} (/home/dev/src/tidewater/{krate})\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in {}.{:02}s\n[exit code: 0]",
                    self.rng.below(9),
                    self.rng.below(20),
                    self.rng.range(1, 40),
                    self.rng.below(100)
                ),
            ),
        };
        let args = format!(
            "{{\"command\":{},\"description\":{}}}",
            Js(&command),
            Js(&description)
        );
        ("bash", args, output)
    }

    fn test_output(&mut self, krate: &str) -> String {
        let n = self.config.tool_output_lines.max(1) as u64;
        let fail = self.rng.chance(25);
        let mut out = format!(
            "   Compiling {krate} v0.4.2 (/home/dev/src/tidewater/{krate})\n    Finished `test` profile [unoptimized + debuginfo] target(s) in {}.{:02}s\n     Running unittests src/lib.rs (target/debug/deps/{krate}-{:016x})\n\nrunning {n} tests\n",
            self.rng.range(1, 30),
            self.rng.below(100),
            self.rng.next_u64()
        );
        let failing = if fail { self.rng.below(n) } else { n };
        for i in 0..n {
            let module = self.rng.pick(MODULES);
            let ident = self.rng.pick(IDENTS);
            let status = if i == failing { "FAILED" } else { "ok" };
            out.push_str(&format!("test {module}::tests::{ident}_{i} ... {status}\n"));
        }
        if fail {
            out.push_str(&format!(
                "\nfailures:\n\n---- tests stdout ----\nassertion `left == right` failed\n  left: {}\n right: {}\n\ntest result: FAILED. {} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n\nerror: test failed, to rerun pass `-p {krate} --lib`\n[exit code: 101]",
                self.rng.below(1000),
                self.rng.below(1000),
                n - 1
            ));
        } else {
            out.push_str(&format!(
                "\ntest result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{:02}s\n[exit code: 0]",
                self.rng.below(100)
            ));
        }
        out
    }

    fn grep_output(&mut self, krate: &str, ident: &str) -> String {
        let n = self.config.tool_output_lines.max(1) / 2 + 1;
        let mut out = String::new();
        for _ in 0..n {
            let module = self.rng.pick(MODULES);
            let line = self.rng.range(1, 900);
            let code = self.rng.pick(CODE).trim_start();
            out.push_str(&format!(
                "{krate}/src/{module}.rs:{line}:    {code} // {ident}\n"
            ));
        }
        out.push_str("[exit code: 0]");
        out
    }

    fn diff_output(&mut self, krate: &str) -> String {
        let n = self.config.tool_output_lines.max(4) / 4;
        let mut out = String::new();
        for _ in 0..n {
            out.push_str(&format!(" M {krate}/src/{}.rs\n", self.rng.pick(MODULES)));
        }
        for _ in 0..n {
            let (a, d) = (self.rng.range(1, 60), self.rng.range(0, 40));
            let module = self.rng.pick(MODULES);
            out.push_str(&format!(
                " {krate}/src/{module}.rs | {} {}{}\n",
                a + d,
                "+".repeat(a.min(30) as usize),
                "-".repeat(d.min(20) as usize)
            ));
        }
        out.push_str(&format!(" {n} files changed\n[exit code: 0]"));
        out
    }

    fn read(&mut self) -> (&'static str, String, String) {
        self.read_lines(self.config.tool_output_lines)
    }

    fn read_lines(&mut self, lines: u32) -> (&'static str, String, String) {
        let path = self.path();
        let n = u64::from(lines.max(1));
        let offset = self.rng.range(1, 400);
        let args = format!(
            "{{\"file_path\":{},\"offset\":{offset},\"limit\":{n}}}",
            Js(&path)
        );
        let mut out = String::new();
        for i in 0..n {
            out.push_str(&format!("{:>6}\t{}\n", offset + i, self.rng.pick(CODE)));
        }
        ("read", args, out)
    }

    fn edit(&mut self) -> (&'static str, String, String) {
        let path = self.path();
        let old = *self.rng.pick(CODE);
        let new = format!("{old} // {}", self.rng.pick(IDENTS));
        let args = format!(
            "{{\"file_path\":{},\"old_string\":{},\"new_string\":{}}}",
            Js(&path),
            Js(old.trim()),
            Js(new.trim())
        );
        let output = format!("Edited {path}: 1 replacement.");
        ("edit", args, output)
    }
}

/// A session title from the first words of the first request.
pub(super) fn title_of(request: &str) -> String {
    request
        .split_whitespace()
        .take(5)
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) const SYSTEM_PROMPT: &str = "You are an AI agent powered by DeepSeek Harness.\n\nYou are a coding assistant powered by the deepseek-v4-flash model.\n\nVerify your work by running the code or tests. Keep answers brief and factual.\n\nUse the read tool — not shell commands like cat — to inspect text files. Results include line numbers.\n\nUse the edit tool for targeted changes to existing UTF-8 text files.\n\nCheck the [exit code: N] marker on every bash result; investigate failures before moving on.";

pub(super) const TOOLS: &[(&str, &str)] = &[
    (
        "bash",
        "Execute a bash command (`bash -c`) and return its stdout/stderr. Non-zero exits are reported as `[exit code: N]`.",
    ),
    (
        "read",
        "Read a UTF-8 text file and return line-numbered content.",
    ),
    (
        "edit",
        "Edit an existing UTF-8 text file by replacing literal text.",
    ),
];

const CRATES: &[&str] = &[
    "tidewater-core",
    "tidewater-cli",
    "tidewater-store",
    "tidewater-net",
];

const MODULES: &[&str] = &[
    "config", "parser", "index", "cache", "codec", "schedule", "retry", "session", "wire",
    "metrics",
];

const IDENTS: &[&str] = &[
    "parse_header",
    "decode_frame",
    "retry_budget",
    "flush_pending",
    "shard_for",
    "open_segment",
    "compact_index",
    "read_manifest",
    "with_timeout",
    "resolve_path",
    "merge_ranges",
    "encode_varint",
];

const REQUESTS: &[&str] = &[
    "The {module} tests in {crate} started failing after the last merge. Can you find out why and fix it?",
    "Please add a regression test for the off-by-one in {crate}'s {module} module and fix the bug.",
    "Clippy is complaining about {crate}. Clean up the warnings without changing behaviour.",
    "Refactor the {module} code in {crate} so the error type carries the offending path.",
    "Run the whole {crate} test suite and tell me which tests are slow.",
    "Rename the {module} helpers in {crate} to match the naming in the design doc and update the callers.",
    "Can you check whether {crate} still builds with the minimal feature set and fix what breaks?",
    "Investigate the flaky test in {crate}::{module} — it fails about one run in twenty on CI.",
];

pub(super) const REASONING: &[&str] = &[
    "Let me start by reproducing the failure locally.",
    "The assertion compares the decoded value with the fixture, so the bug is probably in the decoder.",
    "I should look at how the offsets are computed before changing anything.",
    "That output shows the index is built before the segment is flushed.",
    "The helper is only called from two places, so renaming it is safe.",
    "I need to check whether the error path also releases the lock.",
    "The retry loop never resets its budget after a success, which explains the timeouts.",
    "Running the narrower test first will be faster than the whole suite.",
    "The previous edit compiled, so now I should rerun the tests.",
    "This matches what the user described: it only fails with an empty input.",
    "I will keep the public signature unchanged and fix the internals.",
    "The grep shows one more caller in the CLI crate that I need to update too.",
];

pub(super) const ANSWERS: &[&str] = &[
    "The failure came from an off-by-one in the range computation, which is fixed now.",
    "All tests pass again, and clippy is clean.",
    "I kept the public API unchanged; only the internal helper moved.",
    "I added a regression test that covers the empty-input case.",
    "The slow tests are the ones that spin up the full store; the rest finish in milliseconds.",
    "The change touches two files, and the diff is small enough to review in one sitting.",
    "Let me know if you want the same treatment for the other crates.",
    "There is one remaining warning in generated code, which I left alone.",
];

pub(super) const SUMMARY: &[&str] = &[
    "The user asked for fixes in the tidewater workspace.",
    "The agent reproduced the failing tests, traced them to the range computation and fixed it.",
    "Clippy warnings were cleaned up without behaviour changes.",
    "A regression test now covers the empty-input case.",
    "All tests passed at the end of the summarized span.",
    "The user prefers small diffs and an unchanged public API.",
    "Open question: whether the other crates need the same fix.",
];

const CODE: &[&str] = &[
    "pub fn parse_header(input: &[u8]) -> Result<Header, ParseError> {",
    "    let len = u32::from_le_bytes(input[..4].try_into()?) as usize;",
    "    if input.len() < len + 4 {",
    "        return Err(ParseError::Truncated { needed: len + 4, got: input.len() });",
    "    }",
    "    let mut segments = Vec::with_capacity(manifest.segments.len());",
    "    for (i, seg) in manifest.segments.iter().enumerate() {",
    "        let offset = seg.start + i as u64 * SEGMENT_HEADER;",
    "    self.pending.retain(|p| p.deadline > now);",
    "    let budget = self.retry_budget.saturating_sub(1);",
    "    Ok(Header { version, flags, len })",
    "}",
    "#[cfg(test)]",
    "mod tests {",
    "    use super::*;",
    "    #[test]",
    "    fn decodes_empty_frame() {",
    "        assert_eq!(decode_frame(&[]), Err(DecodeError::Empty));",
    "    let shard = shard_for(&key, self.shards.len());",
    "    tracing::debug!(?path, \"opening segment\");",
];
