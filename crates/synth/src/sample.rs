//! The scripted sessions behind `assets/`: a developer asks the agent to fix a failing test
//! in a Rust crate (valid: a tool-result prune, summaries after pressure, an overflow and a
//! `/compact`, nested), and a shorter session with deliberate defects for `check` to find.
//! Every compaction but the problems sample's deliberate one is the one the harness's default
//! policy makes there ([`PolicyRun`]): `policy` agrees with the sample at every check.

use std::collections::VecDeque;
use std::io::{self, Write};

use surface_analysis::policy::PolicySettings;

use super::json::Js;
use super::policy_run::{MemoryWriter, PolicyRun};
use super::sample_fixtures::{fuzz_request, statement_test};
use super::writer::{Fault, LogWriter, Reply, Streaming, SynthStats, ToolCall};

/// Start of the sample sessions (2026-08-18 09:14 UTC, epoch milliseconds).
const SAMPLE_TIME: i64 = 1_787_044_440_000;
/// Seed of the sample's ids and timings.
const SAMPLE_SEED: u64 = 0x1ED9_E125;
/// The context window of the sample's model: small, so that a short session fills it.
const SAMPLE_WINDOW: u64 = 3_072;
/// Tokens by which the fourth turn's request overflows the window.
const FUZZ_OVERSHOOT: u64 = 64;
/// The context window of the problems sample's model.
const PROBLEMS_WINDOW: u64 = 1_100;
/// Seed of the problems sample.
const PROBLEMS_SEED: u64 = 0xBAD_10C5;

/// The summaries of the sample's compactions, in order.
const SAMPLE_SUMMARIES: &[&str] = &[
    SUMMARY_DIAGNOSIS,
    SUMMARY_FIX,
    SUMMARY_REQUEST,
    SUMMARY_WHOLE_PART,
    SUMMARY_COMMAND,
];
/// The summaries of the problems sample's compactions, in order.
const PROBLEMS_SUMMARIES: &[&str] = &[PROBLEMS_SUMMARY_1, PROBLEMS_SUMMARY_3];
/// A summary once the script has run out of them.
const SUMMARY_MORE: &str =
    "The agent continued the task as the user asked; the details are in the messages that follow.";

/// Writes `assets/sample.session.jsonl`: six turns of an agent fixing a failing test in a
/// Rust crate, with reasoning, text and `bash`/`read`/`edit` tool calls, a tool-result
/// prune, and two summarizing compactions, the second nested over the first's summary.
/// `check` finds nothing in it.
pub fn write_sample<W: Write>(out: W) -> io::Result<SynthStats> {
    let mut s = Script::new(SAMPLE_SEED, SAMPLE_SUMMARIES)?;
    s.w.set_context_window(SAMPLE_WINDOW);
    s.sample_turn_1()?;
    s.sample_turn_2()?;
    s.sample_turn_3()?;
    s.sample_turn_4()?;
    s.sample_turn_5()?;
    s.sample_turn_6()?;
    s.finish(out)
}

/// Writes `assets/problems.session.jsonl`: a short session whose `check` findings are
/// exactly `surface.replace.provenance-incomplete`, `surface.replace.start-not-on-surface`,
/// `surface.op-malformed` and `line.torn-tail` (the last line is cut mid-JSON after the
/// last `turn/end` and has no newline).
pub fn write_problems_sample<W: Write>(out: W) -> io::Result<SynthStats> {
    let mut s = Script::new_at(
        PROBLEMS_SEED,
        "/home/dev/src/weatherbot",
        PROBLEMS_SUMMARIES,
    )?;
    s.w.set_context_window(PROBLEMS_WINDOW);
    // Defect 1: the first summary the policy makes forgets to cite a tool result it shadows.
    s.run.omit_next_result_source();
    s.problems_turn_1()?;
    s.problems_turn_2()?;
    s.problems_turn_3()?;
    s.problems_turn_4()?;
    let torn = format!(
        "{{\"type\":\"turn/start\",\"seq\":{},\"time\":{},\"da",
        s.w.next_seq(),
        s.w.time() + 41_250
    );
    s.w.raw_line(&torn)?;
    s.finish(out)
}

struct Script {
    w: MemoryWriter,
    /// The harness's default policy, deciding every compaction as the session goes.
    run: PolicyRun,
    /// The summaries the policy's compactions get, in order.
    summaries: VecDeque<&'static str>,
    /// Seq of the session's first user message.
    first_user: u64,
}

impl Script {
    fn new(seed: u64, summaries: &[&'static str]) -> io::Result<Self> {
        Script::new_at(seed, "/home/dev/src/ledger", summaries)
    }

    fn new_at(seed: u64, cwd: &str, summaries: &[&'static str]) -> io::Result<Self> {
        let mut w = LogWriter::new(Vec::new(), seed, SAMPLE_TIME, true);
        w.set_streaming(Streaming::Words(6));
        w.set_prefix_cache(true);
        w.header(cwd)?;
        Ok(Script {
            w,
            run: PolicyRun::new(PolicySettings::default()),
            summaries: summaries.iter().copied().collect(),
            first_user: 0,
        })
    }

    fn finish<W: Write>(self, mut out: W) -> io::Result<SynthStats> {
        let (bytes, stats) = self.w.finish()?;
        out.write_all(&bytes)?;
        out.flush()?;
        Ok(stats)
    }

    /// The next scripted summary (a generic one when the script has run out).
    fn next_summary(summaries: &mut VecDeque<&'static str>) -> String {
        summaries.pop_front().unwrap_or(SUMMARY_MORE).to_string()
    }

    /// The policy's pressure check, then the next `step/start`.
    fn step(&mut self) -> io::Result<()> {
        let texts = &mut self.summaries;
        self.run
            .before_step(&mut self.w, &mut |_| Script::next_summary(texts))?;
        self.w.step_start()
    }

    /// The `request/context` of a model call. A request over the window is refused by the
    /// provider; the policy recovers (prune, then a summary keeping the newest node) and the
    /// call is made again.
    fn request(&mut self) -> io::Result<()> {
        self.w.request_context()?;
        if self.w.estimated_total() > self.w.context_window() {
            self.w.overflow()?;
            let texts = &mut self.summaries;
            let recovered = self
                .run
                .after_overflow(&mut self.w, &mut |_| Script::next_summary(texts))?;
            if recovered.changed() {
                self.w.request_context()?;
            }
        }
        Ok(())
    }

    /// The user's `/compact` between turns: the policy's summary for the command.
    fn command(&mut self, id: &str) -> io::Result<()> {
        let texts = &mut self.summaries;
        self.run
            .command(&mut self.w, id, &mut |_| Script::next_summary(texts))?;
        Ok(())
    }

    /// Opens a turn with the user's message (the first turn also gets a title and the
    /// request header), `pause_ms` after the previous turn.
    fn open(&mut self, pause_ms: i64, text: &str) -> io::Result<()> {
        self.w.pause(pause_ms);
        let turn = self.w.turn_start()?;
        self.step()?;
        let seq = self.w.user_message(text)?;
        if turn == 1 {
            self.first_user = seq;
            self.w.session_title(&title_of(text), seq)?;
            self.w.request_header(
                SYSTEM_PROMPT,
                &[("bash", BASH_DOC), ("read", READ_DOC), ("edit", EDIT_DOC)],
            )?;
        }
        Ok(())
    }

    /// One tool step (the step is already open): the model calls `name`, the tool answers.
    fn tool(&mut self, reasoning: &str, name: &str, args: &str, output: &str) -> io::Result<()> {
        self.request()?;
        let call: Option<ToolCall> = self.w.assistant(
            reasoning,
            Reply::Tool {
                name,
                arguments: args,
            },
        )?;
        if let Some(call) = call {
            let failed = output.ends_with("[exit code: 101]");
            self.w.tool_result(&call, output, failed)?;
        }
        self.w.step_end()?;
        self.step()
    }

    /// The final answer step, then the end of the turn.
    fn answer(&mut self, reasoning: &str, text: &str) -> io::Result<()> {
        self.request()?;
        self.w.assistant(reasoning, Reply::Text(text))?;
        self.w.step_end()?;
        self.w.turn_end()
    }

    /// Surface position of the last node written before the current turn's user message.
    fn before_current_turn(&self) -> usize {
        self.w.surface().len().saturating_sub(2)
    }

    // --- The sample ----------------------------------------------------------------------

    fn sample_turn_1(&mut self) -> io::Result<()> {
        self.open(0, "CI on main is red: `cargo test` fails in `parse::tests::parses_negative_amounts`. Can you find out why? Just diagnose it for now, don't change anything yet.")?;
        self.tool(
            "Let me reproduce the failure first by running only that test.",
            "bash",
            &bash_args("cargo test parses_negative_amounts", "Run the failing test"),
            TEST_FAILURE,
        )?;
        self.tool(
            "parse_amount returns InvalidAmount for \"-12.50\", so the input is rejected outright rather than parsed to a wrong value. Let me read the parser.",
            "read",
            "{\"file_path\":\"src/parse.rs\"}",
            &numbered(&parse_rs_v1(), 1),
        )?;
        self.answer(
            "The whole part goes through whole.parse() into a u64. \"-12\" is not a valid u64, so the minus sign makes the parse fail and the error is mapped to InvalidAmount. The fraction is parsed separately, so the sign has to be applied to the total: for \"-0.75\" the whole part is \"-0\", which is just zero.",
            "Found it. `parse_amount` (src/parse.rs:14) parses the part before the dot as a `u64`, so any leading `-` makes the parse fail and the function returns `InvalidAmount(\"-12.50\")`, which is exactly the `left` value in the failing assertion.\n\nThe fix is to strip an optional leading `-` first, parse the digits as before, and negate the total in cents. Switching the whole part to `i64` would not be enough: `-12.50` would become `-12 * 100 + 50 = -1150`, and `-0.75` would lose its sign because `-0` parses as `0`.\n\nShall I go ahead with that fix?",
        )
    }

    fn sample_turn_2(&mut self) -> io::Result<()> {
        self.open(48_000, YES_WITH_AMOUNT)?;
        self.tool(
            "I'll strip the sign before splitting on the dot and apply it to the total at the end.",
            "edit",
            &edit_args("src/parse.rs", PARSE_BODY_V1, PARSE_BODY_V2),
            "Edited src/parse.rs: 1 replacement.",
        )?;
        self.tool(
            "Now rerun the failing test.",
            "bash",
            &bash_args(
                "cargo test parses_negative_amounts",
                "Rerun the failing test",
            ),
            COMPILE_ERROR,
        )?;
        self.tool(
            "cents is still a u64 there, so it cannot be negated. Converting the total to i64 before applying the sign fixes it; amounts stay far below i64::MAX.",
            "edit",
            &edit_args(
                "src/parse.rs",
                "    let cents = whole * 100 + frac;",
                "    let cents = (whole * 100 + frac) as i64;",
            ),
            "Edited src/parse.rs: 1 replacement.",
        )?;
        self.tool(
            "It should compile now. I'll run the whole suite, not just the one test, to make sure nothing else depended on the old behaviour.",
            "bash",
            &bash_args("cargo test", "Run all tests"),
            TEST_PASS_ALL,
        )?;
        self.answer(
            "Everything passes, including the doc tests.",
            "Fixed. `parse_amount` now strips an optional leading `-`, parses the digits as before and negates the total in cents, so `-12.50` gives -1250 cents and `-0.75` gives -75. The signature is unchanged.\n\nA first version did not compile (unary `-` on a `u64`); the total is now converted to `i64` before the sign is applied. All 12 unit tests and both doc tests pass.",
        )
    }

    fn sample_turn_3(&mut self) -> io::Result<()> {
        self.open(
            95_000,
            "Nice. Run clippy with `-D warnings` too, CI does that.",
        )?;
        self.tool(
            "Clippy with warnings as errors, on all targets like CI.",
            "bash",
            &bash_args(
                "cargo clippy --all-targets -- -D warnings",
                "Lint with warnings as errors",
            ),
            CLIPPY_CLEAN,
        )?;
        self.answer(
            "No warnings at all.",
            "Clippy is clean: `cargo clippy --all-targets -- -D warnings` finished without a single warning. The fix is ready to push.",
        )
    }

    fn sample_turn_4(&mut self) -> io::Result<()> {
        // The user pastes the fuzzer's report: the request no longer fits the window, the
        // provider refuses it, the policy summarises everything before it inside this step
        // and the call is made again.
        self.w.pause(210_000);
        self.w.turn_start()?;
        self.step()?;
        let over = self.w.context_window() + FUZZ_OVERSHOOT;
        let text = fuzz_request(over.saturating_sub(self.w.estimated_total()));
        self.w.user_message(&text)?;
        // What the summary dropped, the agent fetches again: the first test run, then the
        // whole file (its first read was pruned, then summarised).
        self.tool(
            "The earlier context was condensed. Before touching the parser again, let me make sure the negative-amount fix is still in place.",
            "bash",
            &bash_args("cargo test parses_negative_amounts", "Run the failing test"),
            TEST_PASS_ONE,
        )?;
        self.tool(
            "It passes. My first read of src/parse.rs is no longer in the context, so let me read the current parser again before editing.",
            "read",
            "{\"file_path\":\"src/parse.rs\"}",
            &numbered(&parse_rs_v2(), 1),
        )?;
        self.tool(
            "An empty whole part fails the u64 parse. I'll treat it as zero when a fraction follows. \"--5\" stays invalid because after stripping one sign the second minus is not a digit.",
            "edit",
            &edit_args("src/parse.rs", WHOLE_V1, WHOLE_V2),
            "Edited src/parse.rs: 1 replacement.",
        )?;
        self.tool(
            "Now the tests, next to the negative-amount test.",
            "edit",
            &edit_args("src/parse.rs", TESTS_OLD, TESTS_NEW),
            "Edited src/parse.rs: 1 replacement.",
        )?;
        self.tool(
            "Run the full suite again.",
            "bash",
            &bash_args("cargo test", "Run all tests"),
            TEST_PASS_14,
        )?;
        self.tool(
            "All 14 unit tests and the doc tests pass. Clippy as well, since CI runs it.",
            "bash",
            &bash_args(
                "cargo clippy --all-targets -- -D warnings",
                "Lint with warnings as errors",
            ),
            CLIPPY_CLEAN,
        )?;
        self.answer(
            "Tests and clippy are clean.",
            "Done. An empty whole part now counts as zero when a fraction follows, so `.5` is 50 cents and `-.5` is -50 cents; `--5`, `.` and `-` are still rejected, which covers every input in the fuzzer's report. Two new tests cover this (`parses_amounts_without_whole_part`, `rejects_double_sign_and_bare_dot`), all 14 unit tests pass and clippy is clean.",
        )
    }

    fn sample_turn_5(&mut self) -> io::Result<()> {
        // Between turns the user runs `/compact`: everything so far, starting at the first
        // summary (a nested replace), is summarized again.
        self.w.pause(20_000);
        let command = super::text::uuid(SAMPLE_SEED, 0xC0_33A7D);
        self.command(&command)?;
        self.open(
            44_000,
            "Great. Add an entry to CHANGELOG.md under Unreleased.",
        )?;
        self.tool(
            "Let me look at the changelog's format first.",
            "read",
            "{\"file_path\":\"CHANGELOG.md\",\"limit\":12}",
            &numbered(CHANGELOG, 1),
        )?;
        self.tool(
            "One bullet under Unreleased, in the same style as the existing entry.",
            "edit",
            &edit_args("CHANGELOG.md", CHANGELOG_OLD, CHANGELOG_NEW),
            "Edited CHANGELOG.md: 1 replacement.",
        )?;
        self.answer(
            "",
            "Added under Unreleased: \"Negative amounts such as `-12.50`, and amounts without a whole part such as `.5` and `-.5`, are parsed correctly (they used to be rejected with `InvalidAmount`).\"",
        )
    }

    fn sample_turn_6(&mut self) -> io::Result<()> {
        self.open(37_000, "Perfect. Write me a short PR description.")?;
        self.answer(
            "The checkpoint has the root cause, the sign fix, the leading-dot handling and the new tests; after it I added the changelog entry.",
            PR_DESCRIPTION,
        )
    }

    // --- The problems sample --------------------------------------------------------

    fn problems_turn_1(&mut self) -> io::Result<()> {
        self.open(0, "`cargo test` fails on `config::tests::loads_defaults` since this morning. Can you take a look?")?;
        self.tool(
            "Run just that test to see the panic.",
            "bash",
            &bash_args("cargo test loads_defaults", "Run the failing test"),
            CONFIG_FAILURE,
        )?;
        self.answer(
            "The default config no longer has poll_interval_secs; yesterday's commit renamed it to poll_interval, but Config::load still reads the old key.",
            "`config/default.toml` was changed yesterday to use `poll_interval`, but `Config::load` (src/config.rs:41) still looks up `poll_interval_secs`, so the lookup fails with `MissingKey`. Shall I switch the loader to the new key?",
        )
    }

    fn problems_turn_2(&mut self) -> io::Result<()> {
        self.open(30_000, "Yes, please.")?;
        self.tool(
            "A one-line change in the loader.",
            "edit",
            &edit_args(
                "src/config.rs",
                "table.get(\"poll_interval_secs\")",
                "table.get(\"poll_interval\")",
            ),
            "Edited src/config.rs: 1 replacement.",
        )?;
        self.tool(
            "Rerun the tests.",
            "bash",
            &bash_args("cargo test", "Run all tests"),
            "    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.12s\n     Running unittests src/main.rs (target/debug/deps/weatherbot-0d4e9a1c77b2f3e5)\n\nrunning 8 tests\n........\ntest result: ok. 8 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s\n[exit code: 0]",
        )?;
        self.answer(
            "",
            "Fixed: the loader reads `poll_interval` now and all 8 tests pass.",
        )
    }

    fn problems_turn_3(&mut self) -> io::Result<()> {
        self.open(22_000, "Run clippy as well.")?;
        self.tool(
            "Clippy on all targets.",
            "bash",
            &bash_args("cargo clippy --all-targets -- -D warnings", "Lint"),
            "    Checking weatherbot v0.9.0 (/home/dev/src/weatherbot)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.71s\n[exit code: 0]",
        )?;
        self.answer("", "Clippy is clean.")
    }

    fn problems_turn_4(&mut self) -> io::Result<()> {
        self.open(
            51_000,
            "Thanks. Does anything else in config.rs still use the old key names?",
        )?;
        // Defect 2: a compaction computed from a stale surface names a start that an earlier
        // compaction already shadowed (the first user message). The policy would not have
        // compacted here: its one disagreement with the log.
        let stale = self.first_user;
        let last = self.before_current_turn();
        self.w
            .compact_with(0, last, PROBLEMS_SUMMARY_2, Fault::StaleStart(stale), None)?;
        // Defect 3: a plugin notice with an op that is neither "append" nor a replace.
        let op = format!("{{\"op\":\"insert\",\"after\":{}}}", stale);
        self.w.plugin_message_with_op(
            "todo-reminder",
            "Reminder: the todo list has 1 open item (\"check other renamed keys\").",
            &op,
        )?;
        self.tool(
            "Search for the old suffixed key names.",
            "bash",
            &bash_args("rg -n '_secs\"' src", "Find old key names"),
            "src/config.rs:44:        let timeout = table.get(\"timeout_secs\").and_then(Value::as_integer);\n[exit code: 0]",
        )?;
        self.answer(
            "",
            "One more: `timeout_secs` (src/config.rs:44). `config/default.toml` still uses that name, so it works today, but it will break the same way if the file is renamed. Want me to accept both spellings?",
        )
    }
}

/// A fallback title: the first words of the first message, up to the end of its first clause.
fn title_of(text: &str) -> String {
    let mut words = Vec::new();
    for word in text.split_whitespace().take(6) {
        let end = word.ends_with([':', '.', '?', ',']);
        words.push(word.trim_end_matches([':', '.', '?', ',']));
        if end {
            break;
        }
    }
    words.join(" ")
}

fn bash_args(command: &str, description: &str) -> String {
    format!(
        "{{\"command\":{},\"description\":{}}}",
        Js(command),
        Js(description)
    )
}

fn edit_args(path: &str, old: &str, new: &str) -> String {
    format!(
        "{{\"file_path\":{},\"old_string\":{},\"new_string\":{}}}",
        Js(path),
        Js(old),
        Js(new)
    )
}

/// src/parse.rs as the session finds it: the parser and its tests, with a year of
/// statement lines.
fn parse_rs_v1() -> String {
    let body = PARSE_RS_V1.strip_suffix('}').unwrap_or(PARSE_RS_V1);
    format!("{body}\n{}}}", statement_test())
}

/// src/parse.rs after turn 2: the sign is stripped and the total converted to `i64`.
fn parse_rs_v2() -> String {
    parse_rs_v1().replace(PARSE_BODY_V1, PARSE_BODY_V2).replace(
        "    let cents = whole * 100 + frac;",
        "    let cents = (whole * 100 + frac) as i64;",
    )
}

/// `text` with `cat -n`-style line numbers starting at `first`, as the read tool returns it.
fn numbered(text: &str, first: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (i, line) in text.lines().enumerate() {
        out.push_str(&format!("{:>6}\t{line}\n", first + i));
    }
    out
}

const SYSTEM_PROMPT: &str = "You are an AI agent powered by DeepSeek Harness.\n\nYou are a coding assistant powered by the deepseek-v4-flash model.\n\nVerify your work by running the code or tests. Keep answers brief and factual.\n\nUse the read tool — not shell commands like cat — to inspect text files. Results include line numbers. Use offset and limit to continue reading large files.\n\nUse the edit tool for targeted changes to existing UTF-8 text files. It replaces literal old_string with new_string; by default old_string must appear exactly once.\n\nCheck the [exit code: N] marker on every bash result; investigate failures before moving on.";
const BASH_DOC: &str = "Execute a bash command (`bash -c`) and return its stdout/stderr. Each call runs in a fresh shell. Non-zero exits are reported as `[exit code: N]`.";
const READ_DOC: &str = "Read a UTF-8 text file and return line-numbered content.";
const EDIT_DOC: &str = "Edit an existing UTF-8 text file by replacing literal text.";

const TEST_FAILURE: &str = "   Compiling ledger v0.3.1 (/home/dev/src/ledger)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 2.31s
     Running unittests src/lib.rs (target/debug/deps/ledger-8c1f0e6b2d93a4f7)

running 1 test
test parse::tests::parses_negative_amounts ... FAILED

failures:

---- parse::tests::parses_negative_amounts stdout ----

thread 'parse::tests::parses_negative_amounts' panicked at src/parse.rs:61:9:
assertion `left == right` failed
  left: Err(InvalidAmount(\"-12.50\"))
 right: Ok(Amount { cents: -1250 })
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    parse::tests::parses_negative_amounts

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 11 filtered out; finished in 0.00s

error: test failed, to rerun pass `--lib`
[exit code: 101]";

const PARSE_RS_V1: &str = "//! Parsing of amounts and ledger lines.

use crate::Transaction;
use crate::amount::Amount;
use crate::error::ParseError;

/// Parses a decimal amount such as `12.50` or `-3` into an [`Amount`].
pub fn parse_amount(input: &str) -> Result<Amount, ParseError> {
    let s = input.trim();
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, f),
        None => (s, \"\"),
    };
    let whole: u64 = whole
        .parse()
        .map_err(|_| ParseError::InvalidAmount(input.to_string()))?;
    let frac = parse_fraction(frac).ok_or_else(|| ParseError::InvalidAmount(input.to_string()))?;
    Ok(Amount::from_cents((whole * 100 + frac) as i64))
}

/// At most two decimal places: `5` is 50 cents, `05` is 5 cents.
fn parse_fraction(frac: &str) -> Option<u64> {
    match frac.len() {
        0 => Some(0),
        1 => frac.parse::<u64>().ok().map(|d| d * 10),
        2 => frac.parse().ok(),
        _ => None,
    }
}

/// Parses `2026-03-14  Groceries  -23.40` into a [`Transaction`].
pub fn parse_line(line: &str) -> Result<Transaction, ParseError> {
    let mut fields = line.split(\"  \").map(str::trim).filter(|f| !f.is_empty());
    let date = fields.next().ok_or(ParseError::MissingField(\"date\"))?;
    let payee = fields.next().ok_or(ParseError::MissingField(\"payee\"))?;
    let amount = fields.next().ok_or(ParseError::MissingField(\"amount\"))?;
    Ok(Transaction {
        date: date.parse()?,
        payee: payee.to_string(),
        amount: parse_amount(amount)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_amounts() {
        assert_eq!(parse_amount(\"12.5\"), Ok(Amount::from_cents(1250)));
        assert_eq!(parse_amount(\"3\"), Ok(Amount::from_cents(300)));
    }

    #[test]
    fn rejects_three_decimals() {
        assert!(parse_amount(\"1.234\").is_err());
    }

    #[test]
    fn parses_negative_amounts() {
        assert_eq!(parse_amount(\"-12.50\"), Ok(Amount::from_cents(-1250)));
        assert_eq!(parse_amount(\"-0.75\"), Ok(Amount::from_cents(-75)));
    }
}";

const PARSE_BODY_V1: &str = "    let s = input.trim();
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, f),
        None => (s, \"\"),
    };
    let whole: u64 = whole
        .parse()
        .map_err(|_| ParseError::InvalidAmount(input.to_string()))?;
    let frac = parse_fraction(frac).ok_or_else(|| ParseError::InvalidAmount(input.to_string()))?;
    Ok(Amount::from_cents((whole * 100 + frac) as i64))";

const PARSE_BODY_V2: &str = "    let s = input.trim();
    let invalid = || ParseError::InvalidAmount(input.to_string());
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (whole, frac) = match digits.split_once('.') {
        Some((w, f)) => (w, f),
        None => (digits, \"\"),
    };
    let whole: u64 = whole.parse().map_err(|_| invalid())?;
    let frac = parse_fraction(frac).ok_or_else(invalid)?;
    let cents = whole * 100 + frac;
    Ok(Amount::from_cents(if negative { -cents } else { cents }))";

const TEST_PASS_ONE: &str =
    "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.64s
     Running unittests src/lib.rs (target/debug/deps/ledger-8c1f0e6b2d93a4f7)

running 1 test
test parse::tests::parses_negative_amounts ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 11 filtered out; finished in 0.00s
[exit code: 0]";

/// The user's go-ahead, with the definition of `Amount` pasted for reference: the request it
/// starts is over the policy's threshold (the check ran before the message).
const YES_WITH_AMOUNT: &str = "Yes, go ahead. Keep the signature of `parse_amount` as it is. For reference, this is how `Amount` is defined in src/amount.rs, so you don't have to open it:

```rust
/// An amount of money in cents. Negative amounts are debits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount {
    cents: i64,
}

impl Amount {
    /// The amount of `cents` cents.
    ///
    /// ```
    /// # use ledger::Amount;
    /// assert_eq!(Amount::from_cents(-1250).to_string(), \"-12.50\");
    /// ```
    pub const fn from_cents(cents: i64) -> Self {
        Amount { cents }
    }

    /// The amount in cents.
    pub const fn cents(self) -> i64 {
        self.cents
    }
}

impl std::ops::Add for Amount {
    type Output = Amount;
    fn add(self, other: Amount) -> Amount {
        Amount::from_cents(self.cents + other.cents)
    }
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.cents < 0 { \"-\" } else { \"\" };
        let abs = self.cents.unsigned_abs();
        write!(f, \"{sign}{}.{:02}\", abs / 100, abs % 100)
    }
}
```";

const COMPILE_ERROR: &str = "   Compiling ledger v0.3.1 (/home/dev/src/ledger)
error[E0600]: cannot apply unary operator `-` to type `u64`
  --> src/parse.rs:22:41
   |
22 |     Ok(Amount::from_cents(if negative { -cents } else { cents }))
   |                                         ^^^^^^ cannot apply unary operator `-`
   |
   = note: unsigned values cannot be negated

For more information about this error, try `rustc --explain E0600`.
error: could not compile `ledger` (lib test) due to 1 previous error
[exit code: 101]";

const TEST_PASS_ALL: &str = "   Compiling ledger v0.3.1 (/home/dev/src/ledger)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.87s
     Running unittests src/lib.rs (target/debug/deps/ledger-8c1f0e6b2d93a4f7)

running 12 tests
test amount::tests::adds_amounts ... ok
test amount::tests::displays_cents ... ok
test amount::tests::displays_negative_amounts ... ok
test parse::tests::parses_negative_amounts ... ok
test parse::tests::parses_plain_amounts ... ok
test parse::tests::rejects_three_decimals ... ok
test report::tests::empty_ledger_has_no_rows ... ok
test report::tests::groups_by_month ... ok
test report::tests::totals_include_refunds ... ok
test store::tests::appends_line ... ok
test store::tests::round_trips_file ... ok
test store::tests::skips_comments ... ok

test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s

   Doc-tests ledger

running 2 tests
test src/amount.rs - amount::Amount::from_cents (line 18) ... ok
test src/lib.rs - (line 3) ... ok

test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.24s
[exit code: 0]";

const CLIPPY_CLEAN: &str = "    Checking ledger v0.3.1 (/home/dev/src/ledger)
    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.94s
[exit code: 0]";

const SUMMARY_DIAGNOSIS: &str = "The user reported that CI fails in the test `parses_negative_amounts` (in `parse::tests`) of the `ledger` crate (/home/dev/src/ledger) and asked for a diagnosis only, no changes yet. Running the test showed `parse_amount` rejecting the negative amount of the test with `InvalidAmount`. Reading src/parse.rs: `parse_amount` splits on the dot and parses the whole part as a `u64`, so the leading `-` makes the parse fail; the fraction is parsed separately by `parse_fraction`. The agent reported this and proposed to strip an optional leading `-`, parse the digits as before and negate the total in cents (an `i64` whole part alone would get a negative amount with cents wrong, and lose the sign of one below a unit).";

const SUMMARY_FIX: &str = "The user reported that CI fails in `parse::tests::parses_negative_amounts` in the `ledger` crate (/home/dev/src/ledger). Cause: `parse_amount` in src/parse.rs parsed the whole part as `u64`, so a leading `-` made it return `InvalidAmount`. As asked (keep the `parse_amount` signature; the user pasted `Amount` from src/amount.rs, cents as `i64`), the agent now strips an optional leading `-` before splitting on the dot, parses the digits as before and negates the total in cents; a first attempt did not compile (unary `-` on `u64`) and was fixed by converting the total to `i64`. `cargo test` then passed (12 unit tests, 2 doc tests) and `cargo clippy --all-targets -- -D warnings` was clean.";

const SUMMARY_REQUEST: &str = "Earlier: negative amounts in the `ledger` crate (/home/dev/src/ledger) are fixed. `parse_amount` in src/parse.rs strips an optional leading `-`, parses the digits and negates the total in cents (as `i64`); its signature is unchanged, 12 unit tests and 2 doc tests pass and clippy is clean. Now the user wants `.5` and `-.5` to parse (50 and -50 cents) while `--5` stays an error, with tests for those, and pasted last night's fuzzer report: its crashes are `.5`, `-.5`, `.05`, `-.75` and ` .5` rejected with `InvalidAmount`, and `--5`, `-.`, `.`, `-` and `+.5`, which must stay errors. The agent re-ran `parses_negative_amounts` first: it still passes.";

const SUMMARY_WHOLE_PART: &str = "Negative amounts in the `ledger` crate (/home/dev/src/ledger) are fixed: `parse_amount` in src/parse.rs strips a leading `-` and negates the total in cents, signature unchanged, clippy clean. The user then asked for `.5` and `-.5` to parse (50 and -50 cents) while `--5` stays an error (the fuzzer had reported the same inputs). The agent checked that the negative-amount test still passes, re-read src/parse.rs and edited `parse_amount` so that an empty whole part counts as zero when a fraction follows (`--5` stays invalid: after one sign is stripped the second minus is not a digit). Tests for the new inputs are next.";

const SUMMARY_COMMAND: &str = "The user asked for a fix in the `ledger` crate (/home/dev/src/ledger): `parse_amount` in src/parse.rs rejected negative amounts because it parsed the whole part as `u64`. The agent now strips a leading `-`, parses the digits and negates the total in cents (converted to `i64`); the `parse_amount` signature is unchanged, as the user asked, and `cargo clippy --all-targets -- -D warnings` was clean. The user then asked for `.5` and `-.5` to parse (50 and -50 cents) while `--5` stays an error: an empty whole part now counts as zero when a fraction follows, covered by two new tests (`parses_amounts_without_whole_part`, `rejects_double_sign_and_bare_dot`). All 14 unit tests and 2 doc tests pass.";

const WHOLE_V1: &str = "    let whole: u64 = whole.parse().map_err(|_| invalid())?;";

const WHOLE_V2: &str = "    // `.5` has an empty whole part; a lone `.` or `-` is still invalid.
    let whole: u64 = match whole {
        \"\" if !frac.is_empty() => 0,
        w => w.parse().map_err(|_| invalid())?,
    };";

const TESTS_OLD: &str = "        assert_eq!(parse_amount(\"-0.75\"), Ok(Amount::from_cents(-75)));
    }";

const TESTS_NEW: &str = "        assert_eq!(parse_amount(\"-0.75\"), Ok(Amount::from_cents(-75)));
    }

    #[test]
    fn parses_amounts_without_whole_part() {
        assert_eq!(parse_amount(\".5\"), Ok(Amount::from_cents(50)));
        assert_eq!(parse_amount(\"-.5\"), Ok(Amount::from_cents(-50)));
    }

    #[test]
    fn rejects_double_sign_and_bare_dot() {
        assert!(parse_amount(\"--5\").is_err());
        assert!(parse_amount(\".\").is_err());
        assert!(parse_amount(\"-\").is_err());
    }";

const TEST_PASS_14: &str = "   Compiling ledger v0.3.1 (/home/dev/src/ledger)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.64s
     Running unittests src/lib.rs (target/debug/deps/ledger-8c1f0e6b2d93a4f7)

running 14 tests
test amount::tests::adds_amounts ... ok
test amount::tests::displays_cents ... ok
test amount::tests::displays_negative_amounts ... ok
test parse::tests::parses_amounts_without_whole_part ... ok
test parse::tests::parses_negative_amounts ... ok
test parse::tests::parses_plain_amounts ... ok
test parse::tests::rejects_double_sign_and_bare_dot ... ok
test parse::tests::rejects_three_decimals ... ok
test report::tests::empty_ledger_has_no_rows ... ok
test report::tests::groups_by_month ... ok
test report::tests::totals_include_refunds ... ok
test store::tests::appends_line ... ok
test store::tests::round_trips_file ... ok
test store::tests::skips_comments ... ok

test result: ok. 14 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s

   Doc-tests ledger

running 2 tests
test src/amount.rs - amount::Amount::from_cents (line 18) ... ok
test src/lib.rs - (line 3) ... ok

test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.22s
[exit code: 0]";

const CHANGELOG: &str = "# Changelog

All notable changes to this project are documented here.

## Unreleased

- `ledger report --by-month` groups refunds with their original month.

## 0.3.1 — 2026-07-30

- Fix a panic when a ledger file ends without a newline.
";

const CHANGELOG_OLD: &str =
    "- `ledger report --by-month` groups refunds with their original month.\n";

const CHANGELOG_NEW: &str = "- `ledger report --by-month` groups refunds with their original month.
- Negative amounts such as `-12.50`, and amounts without a whole part such as `.5` and `-.5`, are parsed correctly (they used to be rejected with `InvalidAmount`).
";

const PR_DESCRIPTION: &str = "**Fix parsing of negative amounts**

`parse_amount` parsed the part before the decimal point as a `u64`, so every negative amount (`-12.50`) was rejected with `InvalidAmount`. This broke `parse::tests::parses_negative_amounts` on main.

- Strip an optional leading `-`, parse the digits as before, and negate the total in cents, so `-0.75` keeps its sign.
- Accept an empty whole part when a fraction follows (`.5`, `-.5`); `--5`, `.` and `-` are still errors.
- New tests: `parses_amounts_without_whole_part`, `rejects_double_sign_and_bare_dot`.
- CHANGELOG entry under Unreleased.

`cargo test` passes (14 unit tests, 2 doc tests) and `cargo clippy --all-targets -- -D warnings` is clean. The signature of `parse_amount` is unchanged.";

const CONFIG_FAILURE: &str = "   Compiling weatherbot v0.9.0 (/home/dev/src/weatherbot)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 3.02s
     Running unittests src/main.rs (target/debug/deps/weatherbot-0d4e9a1c77b2f3e5)

running 1 test
test config::tests::loads_defaults ... FAILED

failures:

---- config::tests::loads_defaults stdout ----

thread 'config::tests::loads_defaults' panicked at src/config.rs:88:44:
called `Result::unwrap()` on an `Err` value: MissingKey(\"poll_interval_secs\")
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    config::tests::loads_defaults

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 7 filtered out; finished in 0.00s

error: test failed, to rerun pass `--bin weatherbot`
[exit code: 101]";

const PROBLEMS_SUMMARY_1: &str = "The user reported that `config::tests::loads_defaults` fails. Cause: `config/default.toml` renamed `poll_interval_secs` to `poll_interval`, but `Config::load` still read the old key.";

const PROBLEMS_SUMMARY_2: &str = "The agent switched `Config::load` to the renamed `poll_interval` key; all 8 tests pass and clippy is clean.";

const PROBLEMS_SUMMARY_3: &str = "`Config::load` reads the renamed `poll_interval` key now (the default config had renamed `poll_interval_secs`); all 8 tests pass and clippy is clean. The user asked whether anything else in config.rs still uses the old key names.";
