//! The HEAD-era event writer shared by the generator and the scripted samples. It numbers
//! events, keeps time, streams assistant steps as chunks (optionally packed into
//! `*-chunks` rows), and tracks the surface it is building so that every replace it writes
//! names on-surface endpoints and cites every node it shadows.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::SplitMix64;
use super::json::{Js, Nums, Strs, TextBlock};
use super::price;
use super::text::{call_id, code_pieces, code_pieces_by_tokens, prose_pieces};
use super::text::{prose_pieces_by_words, uuid};
use surface_engine::meter::{ceil4, utf16_len};

/// Provider named in model sources and request events.
pub const PROVIDER: &str = "deepseek-official";
/// Model named in model sources and request events.
pub const MODEL: &str = "deepseek-v4-flash";
/// Tokens the provider's chat template adds to every request beyond the meter's prices.
const TEMPLATE_TOKENS: u64 = 8;
/// Tokens of the instructions the summarizer gets besides the text it condenses.
const SUMMARIZER_PROMPT_TOKENS: u64 = 310;
/// The context window announced by `request/context` unless set otherwise.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
/// The failure code of a model call that overflowed the context window.
pub const CONTEXT_WINDOW_EXCEEDED: &str = "CONTEXT_WINDOW_EXCEEDED";
/// The tag the compaction plugin closes a summary with.
const SUMMARY_END: &str = "</compacted-summary>";
/// The framing the compaction plugin puts before a summary (copied from the HEAD fixture).
const SUMMARY_PREAMBLE: &str = "This is an automatically generated checkpoint condensing an earlier span of the conversation to free up context. Treat the captured context as established background and build on it without restating it. Continue the task directly from the messages that follow, without acknowledging this checkpoint.\n\n<compacted-summary>";

/// What kind of surface node the writer put on its tracked surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A `user/message` appended by the user.
    User,
    /// An `assistant/message`.
    Assistant,
    /// A `tool/result` as the tool returned it.
    ToolResult,
    /// A `tool/result` that replaced a pruned one.
    PrunedResult,
    /// A compaction summary `user/message` that replaced a range.
    Summary,
}

impl NodeKind {
    /// True for nodes that entered the surface by a replace.
    pub fn is_replacement(self) -> bool {
        matches!(self, NodeKind::PrunedResult | NodeKind::Summary)
    }
}

/// One node of the writer's tracked surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfaceNode {
    /// The node's seq.
    pub seq: u64,
    /// What it is.
    pub kind: NodeKind,
    /// Turn it was written in.
    pub turn: u32,
    /// Step it was written in (0 outside steps).
    pub step: u32,
    /// For tool results: the number of the call it answers.
    pub call_no: u64,
    /// Its message's price by the harness's meter.
    pub tokens: u64,
    /// For tool results: the result is an error (a prune keeps `isError` as it was).
    pub is_error: bool,
}

/// Counts of what a writer produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynthStats {
    /// Events, with packed rows counted by their members.
    pub events: u64,
    /// Lines written, header included.
    pub lines: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Completed turns.
    pub turns: u64,
    /// Applied summarizing replaces.
    pub compactions: u64,
    /// Applied summarizing replaces whose range starts at an earlier replacement node.
    pub nested_compactions: u64,
    /// Applied single-node tool-result prunes.
    pub prunes: u64,
    /// Summarizing compactions a command asked for (`sourceCommandId`).
    pub command_compactions: u64,
    /// Model calls that failed with `CONTEXT_WINDOW_EXCEEDED`.
    pub overflows: u64,
    /// Compactions that ended with an error and replaced nothing.
    pub failed_compactions: u64,
}

impl SynthStats {
    /// Applied replaces of any kind.
    pub fn replaces(&self) -> u64 {
        self.compactions + self.prunes
    }
}

/// How an assistant step ends: with a text answer or with one tool call.
#[derive(Clone, Copy, Debug)]
pub enum Reply<'a> {
    /// A final text block.
    Text(&'a str),
    /// A tool call with its JSON arguments.
    Tool {
        /// Tool name (`bash`, `read`, `edit`).
        name: &'a str,
        /// The arguments as JSON text.
        arguments: &'a str,
    },
}

/// A tool call the model made, to be answered with [`LogWriter::tool_result`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    /// The call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// JSON arguments.
    pub arguments: String,
    no: u64,
}

impl ToolCall {
    /// The call's number in the session (0 for the first call).
    pub fn number(&self) -> u64 {
        self.no
    }
}

/// How text is cut into streamed deltas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Streaming {
    /// At most this many deltas per content block.
    Count(usize),
    /// About this many words of prose, or four times as many code tokens of arguments,
    /// per delta.
    Words(usize),
}

/// A deliberate defect in a compaction, for the problems sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fault {
    /// A correct compaction.
    None,
    /// Leave this shadowed seq out of `sourceEventSeqs` (the replace still applies).
    OmitSource(u64),
    /// Name this seq (not on the surface) as the replace start (the replace is rejected).
    StaleStart(u64),
}

/// A streamed delta block kind.
#[derive(Clone, Copy, Debug)]
enum Delta<'a> {
    Reasoning,
    Text,
    Tool { id: &'a str, name: &'a str },
}

/// Writes one session log, event by event, to `out`.
#[derive(Debug)]
pub struct LogWriter<W: Write> {
    out: W,
    seed: u64,
    pack: bool,
    streaming: Streaming,
    rng: SplitMix64,
    seq: u64,
    time: i64,
    turn: u32,
    step: u32,
    calls: u64,
    surface: Vec<SurfaceNode>,
    surface_tokens: u64,
    header_price: u64,
    context_window: u64,
    in_turn: bool,
    last_input: u64,
    /// Prompt caching by prefix (the samples): a replace keeps only the prompt before its
    /// first changed node cached, new prompt tokens are written to the cache, and summarizer
    /// calls read their fixed instructions from it.
    prefix_cache: bool,
    /// Tokens at the start of the prompt still cached since the last call (`u64::MAX`: all).
    cache_valid: u64,
    /// Summarizer calls written so far.
    summarizer_calls: u64,
    step_chunks: Vec<u64>,
    line: String,
    stats: SynthStats,
}

impl<W: Write> LogWriter<W> {
    /// A writer to `out` whose ids and timings derive from `seed`, starting at `start_time`
    /// (epoch milliseconds); `pack` packs delta runs of three or more into `*-chunks` rows.
    /// Lines are written one `write_all` each: pass a buffered writer for files.
    pub fn new(out: W, seed: u64, start_time: i64, pack: bool) -> Self {
        LogWriter {
            out,
            seed,
            pack,
            streaming: Streaming::Words(1),
            rng: SplitMix64::new(seed ^ 0x7469_6D65),
            seq: 0,
            time: start_time,
            turn: 0,
            step: 0,
            calls: 0,
            surface: Vec::new(),
            surface_tokens: 0,
            header_price: 0,
            context_window: DEFAULT_CONTEXT_WINDOW,
            in_turn: false,
            last_input: 0,
            prefix_cache: false,
            cache_valid: u64::MAX,
            summarizer_calls: 0,
            step_chunks: Vec::new(),
            line: String::with_capacity(4096),
            stats: SynthStats::default(),
        }
    }

    /// Sets how later assistant steps cut their text into deltas.
    pub fn set_streaming(&mut self, streaming: Streaming) {
        self.streaming = streaming;
    }

    /// Caches prompts by prefix from now on: a replace breaks the cache from its first
    /// changed node, calls report cache writes, summarizer calls read their instructions from
    /// the cache (the bundled samples; `gen-log` keeps the plain model).
    pub fn set_prefix_cache(&mut self, on: bool) {
        self.prefix_cache = on;
    }

    /// A replace of the surface from position `first` on: the cached prefix ends there.
    fn break_cache_at(&mut self, first: usize) {
        let before: u64 = self.surface[..first.min(self.surface.len())]
            .iter()
            .map(|n| n.tokens)
            .sum();
        self.cache_valid = self.cache_valid.min(self.header_price + before);
    }

    /// Sets the context window later `request/context` events announce.
    pub fn set_context_window(&mut self, window: u64) {
        self.context_window = window;
    }

    /// The meter's estimate of the next request: the header price plus the surface tokens.
    pub fn estimated_total(&self) -> u64 {
        self.header_price + self.surface_tokens
    }

    /// The context window `request/context` announces.
    pub fn context_window(&self) -> u64 {
        self.context_window
    }

    /// What has been written so far.
    pub fn stats(&self) -> SynthStats {
        self.stats
    }

    /// The surface the written events build, in order.
    pub fn surface(&self) -> &[SurfaceNode] {
        &self.surface
    }

    /// The seq the next event gets.
    pub fn next_seq(&self) -> u64 {
        self.seq
    }

    /// The current turn number (0 before the first turn).
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// The current step number of the open turn (0 before its first step).
    pub fn step(&self) -> u32 {
        self.step
    }

    /// True while a turn is open.
    pub fn in_turn(&self) -> bool {
        self.in_turn
    }

    /// The meter's price of the summary message a compaction with `summary` writes.
    pub fn summary_price(summary: &str) -> u64 {
        price::message(&[
            price::text_block(SUMMARY_PREAMBLE),
            price::text_block(summary),
            price::text_block(SUMMARY_END),
        ])
    }

    /// Flushes and returns the output and the final counts.
    pub fn finish(mut self) -> io::Result<(W, SynthStats)> {
        self.out.flush()?;
        Ok((self.out, self.stats))
    }

    // --- Low level ------------------------------------------------------------------

    /// Advances the clock by `lo..=hi` milliseconds.
    fn tick(&mut self, lo: u64, hi: u64) {
        self.time += self.rng.range(lo, hi) as i64;
    }

    fn write_line(&mut self) -> io::Result<()> {
        self.out.write_all(self.line.as_bytes())?;
        self.stats.bytes += self.line.len() as u64;
        self.stats.lines += 1;
        Ok(())
    }

    /// Writes a line verbatim (`text` should end with a newline unless it is a torn tail).
    /// It is not counted as an event.
    pub fn raw_line(&mut self, text: &str) -> io::Result<()> {
        self.line.clear();
        self.line.push_str(text);
        self.write_line()
    }

    /// Writes one event line and returns its seq.
    fn emit(
        &mut self,
        type_name: &str,
        data: &str,
        sources: Option<&[u64]>,
        op: Option<&str>,
    ) -> io::Result<u64> {
        let seq = self.seq;
        self.line.clear();
        let l = &mut self.line;
        let _ = write!(
            l,
            "{{\"type\":{},\"seq\":{seq},\"time\":{},\"data\":{data}",
            Js(type_name),
            self.time
        );
        if let Some(s) = sources {
            let _ = write!(l, ",\"sourceEventSeqs\":{}", Nums(s));
        }
        if let Some(op) = op {
            let _ = write!(l, ",\"surfaceOp\":{op}");
        }
        l.push_str("}\n");
        self.write_line()?;
        self.seq += 1;
        self.stats.events += 1;
        Ok(seq)
    }

    fn push_node(&mut self, seq: u64, kind: NodeKind, call_no: u64, tokens: u64) {
        self.surface.push(SurfaceNode {
            seq,
            kind,
            turn: self.turn,
            step: self.step,
            call_no,
            tokens,
            is_error: false,
        });
        self.surface_tokens += tokens;
    }

    // --- Session and turn structure ---------------------------------------------------

    /// Writes the session header line (HEAD shape, `delegationDepth: 0`).
    pub fn header(&mut self, cwd: &str) -> io::Result<()> {
        self.line.clear();
        let _ = writeln!(
            self.line,
            "{{\"type\":\"session\",\"version\":0,\"id\":{},\"createdAt\":{},\"cwd\":{},\"delegationDepth\":0}}",
            Js(&uuid(self.seed, u64::MAX)),
            self.time,
            Js(cwd)
        );
        self.write_line()
    }

    /// Opens the next turn and returns its number.
    pub fn turn_start(&mut self) -> io::Result<u32> {
        self.turn += 1;
        self.step = 0;
        self.in_turn = true;
        self.tick(800, 20_000);
        let data = format!("{{\"turn\":{}}}", self.turn);
        self.emit("turn/start", &data, None, None)?;
        Ok(self.turn)
    }

    /// Closes the open turn as completed.
    pub fn turn_end(&mut self) -> io::Result<()> {
        self.tick(0, 2);
        let data = format!(
            "{{\"turn\":{},\"reason\":{{\"kind\":\"completed\"}}}}",
            self.turn
        );
        self.emit("turn/end", &data, None, None)?;
        self.in_turn = false;
        self.stats.turns += 1;
        Ok(())
    }

    /// Opens the next step of the open turn.
    pub fn step_start(&mut self) -> io::Result<()> {
        self.step += 1;
        self.step_chunks.clear();
        self.tick(1, 12);
        let data = format!("{{\"turn\":{},\"step\":{}}}", self.turn, self.step);
        self.emit("step/start", &data, None, None)?;
        Ok(())
    }

    /// Closes the open step.
    pub fn step_end(&mut self) -> io::Result<()> {
        self.tick(0, 2);
        let data = format!("{{\"turn\":{},\"step\":{}}}", self.turn, self.step);
        self.emit("step/end", &data, None, None)?;
        Ok(())
    }

    /// Appends a user message and returns its seq.
    pub fn user_message(&mut self, text: &str) -> io::Result<u64> {
        self.tick(0, 1);
        let id = uuid(self.seed, self.seq);
        let data = format!(
            "{{\"content\":{},\"source\":{{\"kind\":\"user\"}},\"role\":\"user\",\"id\":{}}}",
            TextBlock(text),
            Js(&id)
        );
        let seq = self.emit("user/message", &data, None, Some("\"append\""))?;
        self.push_node(seq, NodeKind::User, 0, price::user_message(text));
        Ok(seq)
    }

    /// Writes a `session/title` for the message at `message_seq`.
    pub fn session_title(&mut self, title: &str, message_seq: u64) -> io::Result<()> {
        let data = format!(
            "{{\"title\":{},\"messageSeqs\":[{message_seq}],\"source\":{{\"kind\":\"fallback\"}}}}",
            Js(title)
        );
        self.emit("session/title", &data, None, None)?;
        Ok(())
    }

    /// Writes the `request/header` of the first request: system prompt and tool schemas
    /// (`tools` are `(name, description)`; every tool takes a JSON object).
    pub fn request_header(&mut self, system: &str, tools: &[(&str, &str)]) -> io::Result<()> {
        self.tick(0, 1);
        let mut list = String::from("[");
        for (i, (name, description)) in tools.iter().enumerate() {
            if i > 0 {
                list.push(',');
            }
            let _ = write!(
                list,
                "{{\"name\":{},\"description\":{},\"parameters\":{{\"type\":\"object\"}}}}",
                Js(name),
                Js(description)
            );
        }
        list.push(']');
        self.header_price = price::header(system, &list);
        let data = format!(
            "{{\"header\":{{\"config\":{{\"provider\":{},\"model\":{}}},\"system\":{},\"tools\":{list}}},\"reason\":\"initial\"}}",
            Js(PROVIDER),
            Js(MODEL),
            Js(system)
        );
        self.emit("request/header", &data, None, None)?;
        Ok(())
    }

    /// Writes the `request/context` that precedes a model request.
    pub fn request_context(&mut self) -> io::Result<()> {
        self.tick(0, 2);
        let data = format!(
            "{{\"provider\":{},\"model\":{},\"contextWindow\":{}}}",
            Js(PROVIDER),
            Js(MODEL),
            self.context_window
        );
        self.emit("request/context", &data, None, None)?;
        Ok(())
    }

    // --- Assistant steps ----------------------------------------------------------------

    fn prose<'t>(&self, text: &'t str) -> Vec<&'t str> {
        match self.streaming {
            Streaming::Count(n) => prose_pieces(text, n),
            Streaming::Words(w) => prose_pieces_by_words(text, w),
        }
    }

    fn code<'t>(&self, text: &'t str) -> Vec<&'t str> {
        match self.streaming {
            Streaming::Count(n) => code_pieces(text, n),
            Streaming::Words(w) => code_pieces_by_tokens(text, w * 4),
        }
    }

    /// Writes one `assistant/chunk` of the open step.
    fn chunk(&mut self, chunk: &str) -> io::Result<()> {
        let data = format!(
            "{{\"turn\":{},\"step\":{},\"chunk\":{chunk}}}",
            self.turn, self.step
        );
        let seq = self.emit("assistant/chunk", &data, None, None)?;
        self.step_chunks.push(seq);
        Ok(())
    }

    /// Gaps between streamed deltas: mostly a millisecond or two, now and then a stall.
    fn delta_gaps(&mut self, n: usize) -> Vec<i64> {
        (0..n)
            .map(|_| {
                if self.rng.chance(12) {
                    self.rng.range(20, 90) as i64
                } else {
                    self.rng.range(0, 2) as i64
                }
            })
            .collect()
    }

    /// Streams `pieces` of block `index`, packed into one row when allowed.
    fn deltas(&mut self, kind: Delta<'_>, index: u32, pieces: &[&str]) -> io::Result<()> {
        if pieces.is_empty() {
            return Ok(());
        }
        self.tick(0, 3);
        let gaps = self.delta_gaps(pieces.len() - 1);
        if self.pack && pieces.len() >= 3 {
            return self.packed_row(kind, index, pieces, &gaps);
        }
        for (k, piece) in pieces.iter().enumerate() {
            if k > 0 {
                self.time += gaps[k - 1];
            }
            let chunk = match kind {
                Delta::Reasoning => format!(
                    "{{\"type\":\"reasoning-delta\",\"index\":{index},\"text\":{}}}",
                    Js(piece)
                ),
                Delta::Text => format!(
                    "{{\"type\":\"text-delta\",\"index\":{index},\"text\":{}}}",
                    Js(piece)
                ),
                Delta::Tool { id, name } => format!(
                    "{{\"type\":\"tool-call-delta\",\"index\":{index},\"id\":{},\"name\":{},\"argumentsDelta\":{}}}",
                    Js(id),
                    Js(name),
                    Js(piece)
                ),
            };
            self.chunk(&chunk)?;
        }
        Ok(())
    }

    /// Writes a packed `*-chunks` row (docs/parity.md).
    fn packed_row(
        &mut self,
        kind: Delta<'_>,
        index: u32,
        pieces: &[&str],
        gaps: &[i64],
    ) -> io::Result<()> {
        let seq0 = self.seq;
        let (tag, fields) = match kind {
            Delta::Reasoning => ("reasoning-chunks", format!("\"texts\":{}", Strs(pieces))),
            Delta::Text => ("text-chunks", format!("\"texts\":{}", Strs(pieces))),
            Delta::Tool { id, name } => (
                "tool-call-chunks",
                format!(
                    "\"id\":{},\"name\":{},\"dt\":{},\"args\":{}",
                    Js(id),
                    Js(name),
                    Nums(gaps),
                    Strs(pieces)
                ),
            ),
        };
        let dt = match kind {
            Delta::Tool { .. } => String::new(),
            _ => format!("\"dt\":{},", Nums(gaps)),
        };
        self.line.clear();
        let _ = writeln!(
            self.line,
            "{{\"type\":\"{tag}\",\"seq0\":{seq0},\"time0\":{},\"data\":{{\"turn\":{},\"step\":{},\"index\":{index},{dt}{fields}}}}}",
            self.time, self.turn, self.step
        );
        self.write_line()?;
        let n = pieces.len() as u64;
        self.step_chunks.extend(seq0..seq0 + n);
        self.seq += n;
        self.stats.events += n;
        self.time += gaps.iter().sum::<i64>();
        Ok(())
    }

    /// Streams one assistant step — optional reasoning, then a text answer or one tool
    /// call — and appends its `assistant/message` citing every chunk of the step. Returns
    /// the tool call, if the reply is one.
    pub fn assistant(&mut self, reasoning: &str, reply: Reply<'_>) -> io::Result<Option<ToolCall>> {
        self.tick(300, 1_800);
        let mut index = 0;
        if !reasoning.is_empty() {
            self.chunk("{\"type\":\"block-start\",\"index\":0,\"blockType\":\"reasoning\"}")?;
            let pieces = self.prose(reasoning);
            self.deltas(Delta::Reasoning, 0, &pieces)?;
            index = 1;
        }
        let call = match reply {
            Reply::Text(text) => {
                self.chunk(&format!(
                    "{{\"type\":\"block-start\",\"index\":{index},\"blockType\":\"text\"}}"
                ))?;
                let pieces = self.prose(text);
                self.deltas(Delta::Text, index, &pieces)?;
                None
            }
            Reply::Tool { name, arguments } => {
                let call = ToolCall {
                    id: call_id(self.seed, self.calls),
                    name: name.to_string(),
                    arguments: arguments.to_string(),
                    no: self.calls,
                };
                self.calls += 1;
                self.chunk(&format!(
                    "{{\"type\":\"block-start\",\"index\":{index},\"blockType\":\"tool-call\"}}"
                ))?;
                let pieces = self.code(arguments);
                let kind = Delta::Tool { id: &call.id, name };
                self.deltas(kind, index, &pieces)?;
                Some(call)
            }
        };
        let blocks = content_blocks(reasoning, &reply, call.as_ref());
        self.tick(0, 2);
        if !reasoning.is_empty() {
            self.chunk(&format!(
                "{{\"type\":\"block-end\",\"index\":0,\"block\":{}}}",
                blocks[0]
            ))?;
        }
        let last = blocks.last().map_or("{}", String::as_str);
        self.chunk(&format!(
            "{{\"type\":\"block-end\",\"index\":{index},\"block\":{last}}}"
        ))?;
        self.finish_step(reasoning, &reply, &blocks, call.is_some())?;
        Ok(call)
    }

    /// The usage and finish chunks and the `assistant/message` of a step.
    fn finish_step(
        &mut self,
        reasoning: &str,
        reply: &Reply<'_>,
        blocks: &[String],
        tool: bool,
    ) -> io::Result<()> {
        let mut prices = Vec::with_capacity(2);
        if !reasoning.is_empty() {
            prices.push(price::text_block(reasoning));
        }
        prices.push(match reply {
            Reply::Text(t) => price::text_block(t),
            Reply::Tool { name, arguments } if tool => price::tool_call_block(name, arguments),
            Reply::Tool { arguments, .. } => price::text_block(arguments),
        });
        let reasoning_tokens = if reasoning.is_empty() {
            0
        } else {
            ceil4(utf16_len(reasoning))
        };
        // The provider counts the request the meter prices (header and messages) plus its
        // chat template, and its output as the blocks it streamed.
        let output: u64 = prices.iter().sum();
        let input = self.header_price + self.surface_tokens + TEMPLATE_TOKENS;
        let usage = if self.prefix_cache {
            let cached = self.last_input.min(input).min(self.cache_valid) / 128 * 128;
            let written = (input - cached) / 128 * 128;
            self.cache_valid = u64::MAX;
            format!(
                "{{\"inputTokens\":{},\"outputTokens\":{output},\"cacheReadTokens\":{cached},\"cacheWriteTokens\":{written},\"reasoningTokens\":{reasoning_tokens}}}",
                input - cached - written
            )
        } else {
            let cached = self.last_input.min(input) / 128 * 128;
            format!(
                "{{\"inputTokens\":{},\"outputTokens\":{output},\"cacheReadTokens\":{cached},\"reasoningTokens\":{reasoning_tokens}}}",
                input - cached
            )
        };
        self.last_input = input + output;
        self.chunk(&format!("{{\"type\":\"usage\",\"usage\":{usage}}}"))?;
        let kind = if tool { "tool-calls" } else { "stop" };
        self.chunk(&format!(
            "{{\"type\":\"finish\",\"reason\":{{\"kind\":\"{kind}\"}}}}"
        ))?;
        let id = uuid(self.seed, self.seq);
        let data = format!(
            "{{\"turn\":{},\"step\":{},\"message\":{{\"role\":\"assistant\",\"content\":[{}],\"source\":{{\"kind\":\"model\",\"provider\":{},\"model\":{}}},\"id\":{}}},\"usage\":{usage}}}",
            self.turn,
            self.step,
            blocks.join(","),
            Js(PROVIDER),
            Js(MODEL),
            Js(&id)
        );
        let sources = std::mem::take(&mut self.step_chunks);
        let seq = self.emit(
            "assistant/message",
            &data,
            Some(&sources),
            Some("\"append\""),
        )?;
        self.step_chunks = sources;
        self.push_node(seq, NodeKind::Assistant, 0, price::message(&prices));
        Ok(())
    }

    /// Writes the `tool/call` of `call` and then its `tool/result` with `output`.
    pub fn tool_result(&mut self, call: &ToolCall, output: &str, is_error: bool) -> io::Result<()> {
        self.tick(0, 1);
        let data = format!(
            "{{\"turn\":{},\"step\":{},\"callId\":{},\"name\":{},\"arguments\":{}}}",
            self.turn,
            self.step,
            Js(&call.id),
            Js(&call.name),
            Js(&call.arguments)
        );
        let call_seq = self.emit("tool/call", &data, None, None)?;
        self.tick(8, 2_500);
        let id = uuid(self.seed, self.seq);
        let data = tool_result_data(self.turn, self.step, &call.id, &id, output, is_error);
        let seq = self.emit("tool/result", &data, Some(&[call_seq]), Some("\"append\""))?;
        self.push_node(
            seq,
            NodeKind::ToolResult,
            call.no,
            price::tool_result(output),
        );
        if let Some(node) = self.surface.last_mut() {
            node.is_error = is_error;
        }
        Ok(())
    }

    // --- Compaction -------------------------------------------------------------------

    /// A summarizing compaction of the surface nodes at positions `first..=last`:
    /// `compaction/start`, `compaction/summary`, the replacing `user/message`, `compaction/end`
    /// (`"turn": null` outside a turn).
    pub fn compact(&mut self, first: usize, last: usize, summary: &str) -> io::Result<()> {
        self.compact_with(first, last, summary, Fault::None, None)
    }

    /// [`LogWriter::compact`] asked for by the command `command_id` (`sourceCommandId` on
    /// every event of the bracket), e.g. the user's `/compact` between turns.
    pub fn compact_on_command(
        &mut self,
        first: usize,
        last: usize,
        summary: &str,
        command_id: &str,
    ) -> io::Result<()> {
        self.compact_with(first, last, summary, Fault::None, Some(command_id))
            .map(|()| self.stats.command_compactions += 1)
    }

    /// The `"turn"` of a compaction event: the open turn, or null between turns.
    fn turn_json(&self) -> String {
        if self.in_turn {
            self.turn.to_string()
        } else {
            "null".to_string()
        }
    }

    /// [`LogWriter::compact`] with a deliberate defect and an optional command.
    pub(super) fn compact_with(
        &mut self,
        first: usize,
        last: usize,
        summary: &str,
        fault: Fault,
        command: Option<&str>,
    ) -> io::Result<()> {
        let chain: Vec<SurfaceNode> = match self.surface.get(first..=last) {
            Some(c) if !c.is_empty() => c.to_vec(),
            _ => return Err(bad_input("compaction range is not on the tracked surface")),
        };
        let seqs: Vec<u64> = chain.iter().map(|n| n.seq).collect();
        let shadowed_tokens: u64 = chain.iter().map(|n| n.tokens).sum();
        let cid = uuid(self.seed, self.seq ^ 0xC0_4D_AC_7E);
        let turn = self.turn;
        let command = command.map_or(String::new(), |c| format!(",\"sourceCommandId\":{}", Js(c)));
        self.tick(1, 5);
        let start_data = format!(
            "{{\"compactionId\":{}{command},\"turn\":{}}}",
            Js(&cid),
            self.turn_json()
        );
        let start_seq = self.emit("compaction/start", &start_data, None, None)?;
        self.tick(900, 6_000);
        let (s, e) = (seqs[0], seqs[seqs.len() - 1]);
        let prompt = shadowed_tokens + SUMMARIZER_PROMPT_TOKENS;
        let usage = if self.prefix_cache {
            // The summarizer's fixed instructions: written to the cache by the first call,
            // read from it by the later ones.
            let fixed = SUMMARIZER_PROMPT_TOKENS / 128 * 128;
            let (read, write) = if self.summarizer_calls == 0 {
                (0, fixed)
            } else {
                (fixed, 0)
            };
            format!(
                "{{\"inputTokens\":{},\"outputTokens\":{},\"cacheReadTokens\":{read},\"cacheWriteTokens\":{write}}}",
                prompt - fixed,
                ceil4(utf16_len(summary))
            )
        } else {
            format!(
                "{{\"inputTokens\":{prompt},\"outputTokens\":{}}}",
                ceil4(utf16_len(summary))
            )
        };
        self.summarizer_calls += 1;
        let summary_data = format!(
            "{{\"compactionId\":{}{command},\"summary\":{},\"shadowedRange\":{{\"start\":{s},\"end\":{e}}},\"shadowedSeqs\":{},\"shadowedTokenCount\":{shadowed_tokens},\"provider\":{},\"model\":{},\"maxTokens\":4096,\"usage\":{usage}}}",
            Js(&cid),
            TextBlock(summary),
            Nums(&seqs),
            Js(PROVIDER),
            Js(MODEL),
        );
        let summary_seq = self.emit("compaction/summary", &summary_data, None, None)?;
        let mut sources = vec![start_seq, summary_seq];
        sources.extend(seqs.iter().filter(|&&q| fault != Fault::OmitSource(q)));
        let op_start = match fault {
            Fault::StaleStart(stale) => stale,
            _ => s,
        };
        let op = format!("{{\"op\":\"replace\",\"start\":{op_start},\"end\":{e}}}");
        let id = uuid(self.seed, self.seq);
        let data = format!(
            "{{\"content\":[{{\"type\":\"text\",\"text\":{}}},{{\"type\":\"text\",\"text\":{}}},{{\"type\":\"text\",\"text\":{}}}],\"source\":{{\"kind\":\"plugin\",\"plugin\":\"compact\",\"compactionId\":{}}},\"role\":\"user\",\"id\":{}}}",
            Js(SUMMARY_PREAMBLE),
            Js(summary),
            Js(SUMMARY_END),
            Js(&cid),
            Js(&id)
        );
        let seq = self.emit("user/message", &data, Some(&sources), Some(&op))?;
        self.emit("compaction/end", &start_data, None, None)?;
        if let Fault::StaleStart(_) = fault {
            return Ok(());
        }
        let nested = chain[0].kind.is_replacement();
        let tokens = Self::summary_price(summary);
        let node = SurfaceNode {
            seq,
            kind: NodeKind::Summary,
            turn,
            step: self.step,
            call_no: 0,
            tokens,
            is_error: false,
        };
        if self.prefix_cache {
            self.break_cache_at(first);
        }
        self.surface.splice(first..=last, [node]);
        self.surface_tokens = self.surface_tokens + tokens - shadowed_tokens;
        self.stats.compactions += 1;
        self.stats.nested_compactions += u64::from(nested);
        Ok(())
    }

    /// A compaction that fails: `compaction/start`, then `compaction/end` carrying `error`
    /// (the summarizer gave up), and no replace.
    pub fn failed_compaction(&mut self, message: &str, code: &str) -> io::Result<()> {
        let cid = uuid(self.seed, self.seq ^ 0xFA_11_ED);
        self.tick(1, 5);
        let start = format!(
            "{{\"compactionId\":{},\"turn\":{}}}",
            Js(&cid),
            self.turn_json()
        );
        self.emit("compaction/start", &start, None, None)?;
        self.tick(2_000, 30_000);
        let end = format!(
            "{{\"compactionId\":{},\"turn\":{},\"error\":{{\"message\":{},\"code\":{}}}}}",
            Js(&cid),
            self.turn_json(),
            Js(message),
            Js(code)
        );
        self.emit("compaction/end", &end, None, None)?;
        self.stats.failed_compactions += 1;
        Ok(())
    }

    /// The model call of the open step fails because the request exceeded the context
    /// window: a `finish` chunk with `reason.failure.code` `CONTEXT_WINDOW_EXCEEDED`. The
    /// step stays open for the recovery (a compaction, then the call again); the failed
    /// attempt's chunks are not the answer's.
    pub fn overflow(&mut self) -> io::Result<()> {
        self.tick(200, 900);
        self.chunk(&format!(
            "{{\"type\":\"finish\",\"reason\":{{\"kind\":\"error\",\"failure\":{{\"message\":\"the request exceeded the model context window\",\"code\":{}}}}}}}",
            Js(CONTEXT_WINDOW_EXCEEDED)
        ))?;
        self.step_chunks.clear();
        self.stats.overflows += 1;
        Ok(())
    }

    /// Prunes the tool result at surface position `pos`: `compaction/prune`, then a
    /// `tool/result` with the same message id whose content is `placeholder`, replacing that
    /// one node (`start == end`, `sourceEventSeqs: [original]`).
    pub fn prune(&mut self, pos: usize, placeholder: &str) -> io::Result<()> {
        let node = match self.surface.get(pos) {
            Some(n) if n.kind == NodeKind::ToolResult => *n,
            _ => {
                return Err(bad_input(
                    "prune target is not a tool result on the surface",
                ));
            }
        };
        let s = node.seq;
        self.tick(1, 4);
        let data = format!(
            "{{\"shadowedRange\":{{\"start\":{s},\"end\":{s}}},\"shadowedSeqs\":[{s}],\"shadowedTokenCount\":{}}}",
            node.tokens
        );
        self.emit("compaction/prune", &data, None, None)?;
        let call = call_id(self.seed, node.call_no);
        let id = uuid(self.seed, s);
        // Only the result's content changes (docs/parity.md): isError stays.
        let data = tool_result_data(node.turn, node.step, &call, &id, placeholder, node.is_error);
        let op = format!("{{\"op\":\"replace\",\"start\":{s},\"end\":{s}}}");
        let seq = self.emit("tool/result", &data, Some(&[s]), Some(&op))?;
        let tokens = price::tool_result(placeholder);
        if self.prefix_cache {
            self.break_cache_at(pos);
        }
        self.surface[pos] = SurfaceNode {
            seq,
            kind: NodeKind::PrunedResult,
            tokens,
            ..node
        };
        self.surface_tokens = self.surface_tokens + tokens - node.tokens;
        self.stats.prunes += 1;
        Ok(())
    }

    /// Appends a plugin `user/message` carrying `op` verbatim as its `surfaceOp` (the
    /// problems sample uses it for a malformed op). The writer does not track it.
    pub(super) fn plugin_message_with_op(
        &mut self,
        plugin: &str,
        text: &str,
        op: &str,
    ) -> io::Result<u64> {
        self.tick(0, 3);
        let id = uuid(self.seed, self.seq);
        let data = format!(
            "{{\"content\":{},\"source\":{{\"kind\":\"plugin\",\"plugin\":{},\"form\":\"notice\"}},\"role\":\"user\",\"id\":{}}}",
            TextBlock(text),
            Js(plugin),
            Js(&id)
        );
        self.emit("user/message", &data, None, Some(op))
    }

    /// The time of the last event written.
    pub fn time(&self) -> i64 {
        self.time
    }

    /// Lets `ms` milliseconds pass (the user reading and typing between turns).
    pub fn pause(&mut self, ms: i64) {
        self.time += ms;
    }
}

impl LogWriter<Vec<u8>> {
    /// The bytes written so far (a writer into memory).
    pub fn written(&self) -> &[u8] {
        &self.out
    }
}

/// The JSON content blocks of an assistant message.
fn content_blocks(reasoning: &str, reply: &Reply<'_>, call: Option<&ToolCall>) -> Vec<String> {
    let mut blocks = Vec::with_capacity(2);
    if !reasoning.is_empty() {
        blocks.push(format!(
            "{{\"type\":\"reasoning\",\"text\":{}}}",
            Js(reasoning)
        ));
    }
    match (reply, call) {
        (Reply::Tool { name, arguments }, Some(call)) => blocks.push(format!(
            "{{\"type\":\"tool-call\",\"id\":{},\"name\":{},\"arguments\":{}}}",
            Js(&call.id),
            Js(name),
            Js(arguments)
        )),
        (Reply::Text(text), _)
        | (
            Reply::Tool {
                arguments: text, ..
            },
            None,
        ) => blocks.push(format!("{{\"type\":\"text\",\"text\":{}}}", Js(text))),
    }
    blocks
}

/// The HEAD `tool/result` payload: an identified `ToolResultMessage`.
fn tool_result_data(
    turn: u32,
    step: u32,
    call: &str,
    id: &str,
    text: &str,
    is_error: bool,
) -> String {
    format!(
        "{{\"turn\":{turn},\"step\":{step},\"message\":{{\"source\":{{\"kind\":\"tool\",\"callId\":{c}}},\"content\":[{{\"type\":\"tool-result\",\"toolCallId\":{c},\"content\":{},\"isError\":{is_error}}}],\"role\":\"user\",\"id\":{}}}}}",
        TextBlock(text),
        Js(id),
        c = Js(call)
    )
}

fn bad_input(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message.to_string())
}
