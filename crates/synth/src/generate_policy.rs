//! The policy-driven generator: sessions of the configurable generator's kind (user turns,
//! model calls with usage, bash/read/edit calls and results, refetches) whose every compaction
//! is the one the engine's policy replay decides with the given settings ([`PolicyRun`]) —
//! pressure checks before each step, recovery when a request overflowed the window, and
//! `/compact` commands between turns — so that `policy` with the same settings agrees with
//! the log at every check.

use std::io::{self, Write};

use surface_analysis::policy::PolicySettings;

use super::SplitMix64;
use super::generate::{
    ANSWERS, Gen, REASONING, SUMMARY, SYSTEM_PROMPT, SynthConfig, TOOLS, title_of,
};
use super::policy_run::{CheckRun, MemoryWriter, PolicyRun};
use super::text::uuid;
use super::writer::{LogWriter, NodeKind, Reply, Streaming, SurfaceNode, SynthStats};

/// What to generate with [`generate_with_policy`].
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySynthConfig {
    /// Seed of every choice: equal configs produce equal bytes.
    pub seed: u64,
    /// Turns of the session.
    pub turns: u32,
    /// Tool calls per turn: between 1 and this many, one per step, before the answer step.
    pub max_tool_calls: u32,
    /// The context window `request/context` announces.
    pub context_window: u64,
    /// The policy's settings (threshold, retain budget, retries, pruner).
    pub settings: PolicySettings,
    /// Lines of an ordinary tool output (roughly).
    pub tool_output_lines: u32,
    /// Lines of a large one: enough to pass the pruner's threshold.
    pub big_output_lines: u32,
    /// Percent of tool outputs that are large.
    pub big_output_percent: u32,
    /// Percent of turns whose user message carries a pasted log of about a third of the
    /// window (the request may overflow it: the policy recovers).
    pub paste_percent: u32,
    /// A `/compact` command between turns before every C-th turn (turns C+1, 2C+1, …); 0 never.
    pub command_every: u32,
    /// Streamed deltas per assistant message.
    pub chunks_per_message: u32,
}

impl Default for PolicySynthConfig {
    fn default() -> Self {
        PolicySynthConfig {
            seed: 0x0090_11C7,
            turns: 8,
            max_tool_calls: 4,
            context_window: 16_000,
            settings: PolicySettings::default(),
            tool_output_lines: 16,
            big_output_lines: 260,
            big_output_percent: 12,
            paste_percent: 15,
            command_every: 5,
            chunks_per_message: 8,
        }
    }
}

/// Start time of policy-driven sessions (2026-08-21, epoch milliseconds).
const START_TIME: i64 = 1_786_209_801_600;

/// Writes a session whose compactions the policy with `config.settings` decided, and returns
/// what was written and what the policy did over it. Fails when the settings cannot run with
/// the window (e.g. a retain budget at the threshold).
pub fn generate_with_policy<W: Write>(
    config: &PolicySynthConfig,
    mut out: W,
) -> io::Result<(SynthStats, CheckRun)> {
    let per_block = (config.chunks_per_message as usize).div_ceil(2).max(1);
    let content = SynthConfig {
        seed: config.seed,
        tool_output_lines: config.tool_output_lines,
        ..SynthConfig::default()
    };
    let mut s = Session {
        config,
        w: LogWriter::new(Vec::new(), config.seed, START_TIME, true),
        run: PolicyRun::new(config.settings),
        content: Gen::new(&content, per_block * 2),
        rng: SplitMix64::new(config.seed ^ 0x706F_6C69_6379),
    };
    s.w.set_context_window(config.context_window.max(1));
    s.w.set_streaming(Streaming::Count(per_block));
    s.w.header("/home/dev/src/tidewater")?;
    for turn in 1..=config.turns.max(1) {
        s.turn(turn)?;
    }
    let run = s.run.totals();
    let (bytes, stats) = s.w.finish()?;
    out.write_all(&bytes)?;
    out.flush()?;
    Ok((stats, run))
}

struct Session<'c> {
    config: &'c PolicySynthConfig,
    w: MemoryWriter,
    run: PolicyRun,
    content: Gen<'c>,
    rng: SplitMix64,
}

impl<'c> Session<'c> {
    fn turn(&mut self, turn: u32) -> io::Result<()> {
        let every = self.config.command_every;
        if every > 0 && turn > 1 && (turn - 1).is_multiple_of(every) {
            let id = uuid(self.config.seed ^ 0xC0_33A7D, u64::from(turn));
            let content = &mut self.content;
            self.run
                .command(&mut self.w, &id, &mut |nodes| summary_of(content, nodes))?;
        }
        self.w.turn_start()?;
        self.step_start()?;
        let mut request = self.content.request();
        if self.rng.chance(u64::from(self.config.paste_percent)) {
            request.push_str("\n\nHere is the log from CI:\n");
            let chars = self.config.context_window * 4 / 3;
            while (request.len() as u64) < chars {
                let line = self.content.prose(REASONING);
                request.push_str(&line);
                request.push('\n');
            }
        }
        let user_seq = self.w.user_message(&request)?;
        if turn == 1 {
            self.w.session_title(&title_of(&request), user_seq)?;
            self.w.request_header(SYSTEM_PROMPT, TOOLS)?;
        }
        let calls = self
            .rng
            .range(1, u64::from(self.config.max_tool_calls.max(1)));
        for k in 0..calls {
            if k > 0 {
                self.w.step_end()?;
                self.step_start()?;
            }
            self.request()?;
            if self.rng.chance(u64::from(self.config.big_output_percent)) {
                self.content
                    .read_step(&mut self.w, self.config.big_output_lines)?;
            } else {
                self.content.tool_step(&mut self.w)?;
            }
        }
        self.w.step_end()?;
        self.step_start()?;
        self.request()?;
        let reasoning = self.content.prose(REASONING);
        let answer = self.content.prose(ANSWERS);
        self.w.assistant(&reasoning, Reply::Text(&answer))?;
        self.w.step_end()?;
        self.w.turn_end()
    }

    /// The policy's pressure check, then the `step/start`.
    fn step_start(&mut self) -> io::Result<()> {
        let content = &mut self.content;
        self.run
            .before_step(&mut self.w, &mut |nodes| summary_of(content, nodes))?;
        self.w.step_start()
    }

    /// A model request; when it does not fit the window the provider refuses it, the policy
    /// recovers and the request is made again.
    fn request(&mut self) -> io::Result<()> {
        self.w.request_context()?;
        if self.w.estimated_total() > self.w.context_window() {
            self.w.overflow()?;
            let content = &mut self.content;
            let recovered = self
                .run
                .after_overflow(&mut self.w, &mut |nodes| summary_of(content, nodes))?;
            if recovered.changed() {
                self.w.request_context()?;
            }
        }
        Ok(())
    }
}

/// A summary of `nodes`; the tool results among them become refetch candidates.
fn summary_of(content: &mut Gen<'_>, nodes: &[SurfaceNode]) -> String {
    let dropped: Vec<u64> = nodes
        .iter()
        .filter(|n| n.kind == NodeKind::ToolResult)
        .map(|n| n.call_no)
        .collect();
    content.drop_calls(&dropped);
    content.prose(SUMMARY)
}
