//! Facts by kind — paths, commands, identifiers, measured numbers, errors and URLs — read
//! from a text with the lost terms' tokenizer ([`for_each_term`]) and a walk over its lines for
//! what spans words (commands, error messages). The audit's fidelity measure counts them in
//! what a summary shadowed, in the summary, and in what came after it. docs/audit.md, "What a
//! summary kept", states each rule with examples.

use super::terms::{Term, TermClass, for_each_term};

/// A kind of fact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FactKind {
    /// A file path (POSIX or Windows).
    Path,
    /// A command line: a shell tool call's command, a `$ ` line, a quoted program call.
    Command,
    /// A code symbol: `a::b`, `a.b`, CamelCase, snake_case.
    Identifier,
    /// A number with a unit (`1.87s`, `340 ms`, `45%`) or a measured value (`total=1250`).
    Number,
    /// An error message, an error code (`E0308`, `TS2345`) or a failing test's name.
    Error,
    /// An `http(s)://` URL.
    Url,
}

impl FactKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [FactKind; 6] = [
        FactKind::Path,
        FactKind::Command,
        FactKind::Identifier,
        FactKind::Number,
        FactKind::Error,
        FactKind::Url,
    ];

    /// `"path"`, `"command"`, `"identifier"`, `"number"`, `"error"` or `"url"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FactKind::Path => "path",
            FactKind::Command => "command",
            FactKind::Identifier => "identifier",
            FactKind::Number => "number",
            FactKind::Error => "error",
            FactKind::Url => "url",
        }
    }

    /// The kind's position in [`FactKind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Tool names whose call runs a shell command: the text puts a call's name on its own line
/// and its argument values on the lines after it, the command first.
const SHELL_TOOLS: &[&str] = &[
    "bash",
    "shell",
    "sh",
    "exec",
    "exec_command",
    "run_command",
    "run_shell_command",
    "execute_command",
    "terminal",
    "run_terminal_cmd",
    "local_shell",
];

/// Programs whose call, quoted in backticks with its arguments, is a command (`cargo test`).
const PROGRAMS: &[&str] = &[
    "cargo", "git", "npm", "npx", "pnpm", "yarn", "node", "deno", "bun", "python", "python3",
    "pip", "pytest", "uv", "make", "go", "rustc", "rustup", "tsc", "jest", "ls", "cat", "grep",
    "rg", "sed", "awk", "find", "cd", "bash", "sh", "docker", "kubectl", "curl", "mvn", "gradle",
    "dotnet",
];

/// The longest error message kept as a fact, in bytes (a longer line is cut at a character
/// boundary: the message's head is what a summary would quote).
pub const MAX_MESSAGE_LEN: usize = 160;

/// Calls `f` with every fact of `text`: first the terms' (in order), then the commands and
/// error messages of its lines. A fact may come more than once; the caller counts it once.
pub fn for_each_fact(text: &str, mut f: impl FnMut(FactKind, &str)) {
    for_each_term_and_fact(text, |found| match found {
        Found::Term(t, Some(kind)) => f(kind, t.text),
        Found::Term(_, None) => {}
        Found::Fact(kind, fact) => f(kind, fact),
    });
}

/// What the walk of [`for_each_term_and_fact`] meets, in order.
#[derive(Debug)]
pub enum Found<'t, 'a> {
    /// A salient term, with the kind of fact it is when its own text is a fact.
    Term(&'t Term<'a>, Option<FactKind>),
    /// A fact that is not a term's own text: a measured number without its spaces, a
    /// command, an error message.
    Fact(FactKind, &'t str),
}

/// Calls `f` with every salient term of `text` and every fact, in [`for_each_fact`]'s order:
/// one walk serves the lost terms' index and the facts.
pub fn for_each_term_and_fact<'a>(text: &'a str, mut f: impl FnMut(Found<'_, 'a>)) {
    let mut lines = LineCursor::new(text);
    let mut measure = String::new();
    for_each_term(text, |t| {
        let kind = term_kind(text, &t, &mut lines);
        match kind {
            Some(kind) if t.class == TermClass::Measure => {
                f(Found::Term(&t, None));
                measure.clear();
                measure.extend(t.text.chars().filter(|c| *c != ' '));
                f(Found::Fact(kind, &measure));
            }
            _ => f(Found::Term(&t, kind)),
        }
    });
    let mut f = |kind, fact: &str| f(Found::Fact(kind, fact));
    let mut message = String::new();
    let mut previous = "";
    // The lines as `str::lines` has them, found by one `memchr` walk (a line's `\r` goes with
    // the trimming; the empty line after a last `\n` yields nothing).
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]);
    for end in ends {
        let line = &text[start..end];
        start = end + 1;
        let trimmed = line.trim();
        if let Some(cmd) = trimmed.strip_prefix("$ ") {
            emit_collapsed(cmd, FactKind::Command, &mut message, &mut f);
        } else if SHELL_TOOLS.contains(&previous) && !trimmed.is_empty() {
            emit_collapsed(trimmed, FactKind::Command, &mut message, &mut f);
        }
        quoted_commands(trimmed, &mut message, &mut f);
        if let Some(head) = error_head(trimmed) {
            emit_collapsed(&trimmed[head..], FactKind::Error, &mut message, &mut f);
        }
        previous = trimmed;
    }
}

/// Every distinct fact of `text`, with the kind of its first occurrence, in order.
pub fn facts(text: &str) -> Vec<(FactKind, String)> {
    let mut out: Vec<(FactKind, String)> = Vec::new();
    for_each_fact(text, |kind, fact| {
        if !out.iter().any(|(_, f)| f == fact) {
            out.push((kind, fact.to_string()));
        }
    });
    out
}

/// The kind of fact a term is: a path or identifier on a failing test's line is an error (the
/// test's name); a bare number is one only as a measured value.
fn term_kind(text: &str, t: &Term<'_>, lines: &mut LineCursor<'_>) -> Option<FactKind> {
    Some(match t.class {
        TermClass::Url => FactKind::Url,
        TermClass::ErrorCode => FactKind::Error,
        TermClass::Measure => FactKind::Number,
        TermClass::Number => measured(text.as_bytes(), t.span.start).then_some(FactKind::Number)?,
        TermClass::Path | TermClass::Identifier if lines.failing_test(t.span.start) => {
            FactKind::Error
        }
        TermClass::Path => FactKind::Path,
        TermClass::Identifier => FactKind::Identifier,
    })
}

/// Whether the number starting at byte `start` is a measured value: right after `=` or `:`
/// (with at most one space between), as in `total=1250`, `tokens: 48211`.
fn measured(b: &[u8], start: usize) -> bool {
    let mut k = start;
    if k > 0 && b[k - 1] == b' ' {
        k -= 1;
    }
    k > 0 && matches!(b[k - 1], b'=' | b':')
}

/// Which line of a text a byte offset lies in, for offsets that only grow, and whether that
/// line reports a failing test.
struct LineCursor<'a> {
    text: &'a str,
    /// The current line's byte range.
    start: usize,
    end: usize,
    failing: bool,
}

impl<'a> LineCursor<'a> {
    fn new(text: &'a str) -> Self {
        let mut cursor = LineCursor {
            text,
            start: 0,
            end: 0,
            failing: false,
        };
        cursor.enter(0);
        cursor
    }

    fn enter(&mut self, start: usize) {
        self.start = start;
        self.end = memchr::memchr(b'\n', &self.text.as_bytes()[start..])
            .map_or(self.text.len(), |k| start + k);
        self.failing = failing_test_line(&self.text[start..self.end]);
    }

    fn failing_test(&mut self, offset: usize) -> bool {
        while offset > self.end && self.end < self.text.len() {
            self.enter(self.end + 1);
        }
        self.failing
    }
}

/// A line that names a failing test: it holds the word `FAILED` (between characters that are
/// not ASCII letters) or starts with `FAIL ` (cargo, pytest, jest), or is cargo's
/// `---- NAME stdout ----`.
fn failing_test_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with("FAIL ")
        || (trimmed.starts_with("---- ") && trimmed.ends_with(" stdout ----"))
        || holds_word(line.as_bytes(), b"FAILED", |c| c.is_ascii_alphabetic())
}

/// Whether `word` occurs in `b` with no byte for which `glued` is true beside it. Each
/// occurrence is found from its first byte (`memchr`): the words looked for start with a byte
/// that is rare in the texts read.
fn holds_word(b: &[u8], word: &[u8], glued: impl Fn(u8) -> bool) -> bool {
    memchr::memchr_iter(word[0], b).any(|k| {
        b[k..].starts_with(word)
            && !(k > 0 && glued(b[k - 1]))
            && !b.get(k + word.len()).is_some_and(|&c| glued(c))
    })
}

/// Where the error message of a line starts, if it reports one: a line that starts with
/// `error`, `Error`, `ERROR` or `fatal` followed by `:`, `[` or a space, with a word ending in
/// `Error:` or `Exception:` (`TypeError: …`), or with `thread '…' panicked at`; or the text
/// from `error` on where `: error` follows a location (`src/a.ts(3,5): error TS2345: …`).
fn error_head(line: &str) -> Option<usize> {
    let heads = ["error", "Error", "ERROR", "fatal"];
    let starts_with_head = heads.iter().any(|h| {
        line.strip_prefix(h)
            .is_some_and(|rest| rest.starts_with([':', '[', ' ']))
    });
    let first = &line[..line.bytes().position(|c| c == b' ').unwrap_or(line.len())];
    let typed = first.len() > 6 && (first.ends_with("Error:") || first.ends_with("Exception:"));
    let panicked = line.starts_with("thread '") && line.contains("' panicked at");
    if (starts_with_head || typed || panicked) && line.len() >= 8 {
        return Some(0);
    }
    let b = line.as_bytes();
    memchr::memchr_iter(b':', b)
        .find(|&k| b[k..].starts_with(b": error "))
        .map(|k| k + 2)
}

/// The commands quoted in backticks in `line`: a span whose first word is a known program and
/// that has arguments (`cargo test -p ledger`).
fn quoted_commands(line: &str, buffer: &mut String, f: &mut impl FnMut(FactKind, &str)) {
    if !line.contains('`') {
        return;
    }
    for (k, span) in line.split('`').enumerate() {
        let Some((program, rest)) = span.trim().split_once(' ') else {
            continue;
        };
        if k % 2 == 1 && PROGRAMS.contains(&program) && !rest.trim().is_empty() {
            emit_collapsed(span, FactKind::Command, buffer, f);
        }
    }
}

/// Calls `f` with `text` trimmed, its runs of whitespace made one space, and cut to
/// [`MAX_MESSAGE_LEN`] bytes.
fn emit_collapsed(
    text: &str,
    kind: FactKind,
    buffer: &mut String,
    f: &mut impl FnMut(FactKind, &str),
) {
    collapse_into(text, buffer);
    let mut end = buffer.len().min(MAX_MESSAGE_LEN);
    while !buffer.is_char_boundary(end) {
        end -= 1;
    }
    buffer.truncate(end);
    let fact = buffer.trim_end();
    if !fact.is_empty() {
        f(kind, fact);
    }
}

/// `text` with its runs of whitespace made one space and trimmed, into `buffer`.
pub fn collapse_into(text: &str, buffer: &mut String) {
    buffer.clear();
    for word in text.split_whitespace() {
        if !buffer.is_empty() {
            buffer.push(' ');
        }
        buffer.push_str(word);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use FactKind::*;

    fn of(text: &str, kind: FactKind) -> Vec<String> {
        facts(text)
            .into_iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, f)| f)
            .collect()
    }

    #[test]
    fn paths_posix_and_windows() {
        assert_eq!(
            of(
                "open src/parse.rs:14:9, /etc/hosts and C:\\Users\\dev\\ledger\\src\\main.rs",
                Path
            ),
            [
                "src/parse.rs",
                "/etc/hosts",
                "C:\\Users\\dev\\ledger\\src\\main.rs"
            ]
        );
        assert_eq!(
            of("see .\\run.ps1 and \\\\server\\share\\notes", Path),
            [".\\run.ps1", "\\\\server\\share\\notes"]
        );
        // Not paths: slashed words, an escape, a regex, a colon before the backslash.
        assert!(of("and/or \\n \\d+\\.\\d+ a:b\\c", Path).is_empty());
        assert_eq!(of("修改了src/index.ts中的函数", Path), ["src/index.ts"]);
    }

    #[test]
    fn commands_from_shell_calls_prompts_and_quotes() {
        let text = "bash\ncargo test   parses_negative_amounts\nread\nsrc/a.rs";
        assert_eq!(of(text, Command), ["cargo test parses_negative_amounts"]);
        assert_eq!(of("$ git status --short", Command), ["git status --short"]);
        assert_eq!(
            of(
                "then run `cargo clippy -D warnings` and `x y` and `cargo`",
                Command
            ),
            ["cargo clippy -D warnings"]
        );
        // The line after a tool that is not a shell, prose about commands, a lone program.
        assert!(of("read\ncargo test\nI ran the tests with cargo", Command).is_empty());
        assert_eq!(of("运行`cargo test`后", Command), ["cargo test"]);
    }

    #[test]
    fn identifiers_but_not_failing_tests() {
        assert_eq!(
            of(
                "Amount::from_cents calls parse_amount on InvalidAmount",
                Identifier
            ),
            ["Amount::from_cents", "parse_amount", "InvalidAmount"]
        );
        assert!(of("JSON Ok The cargo e.g.", Identifier).is_empty());
        let text = "test parse::tests::parses_negative_amounts ... FAILED\nparse_amount";
        assert_eq!(of(text, Identifier), ["parse_amount"]);
    }

    #[test]
    fn numbers_with_units_or_measured() {
        assert_eq!(
            of(
                "finished in 1.87s; 340 ms, 45%, 3.2 MB, 12 tests; total=1250; tokens: 48211",
                Number
            ),
            ["1.87s", "340ms", "45%", "3.2MB", "12tests", "1250", "48211"]
        );
        // Bare numbers, years, hashes and version-like words are not measured numbers.
        assert!(
            of(
                "in 2026 we had 1250 of them; 8c1f0e v1.2.3 2026-03-14",
                Number
            )
            .is_empty()
        );
        assert_eq!(of("耗时340 ms完成", Number), ["340ms"]);
    }

    #[test]
    fn errors_codes_messages_and_failing_tests() {
        let text = "error[E0308]: mismatched types\n\
                    src/a.ts(3,5): error TS2345: Argument of type 'string'\n\
                    test parse::tests::parses_negative_amounts ... FAILED\n\
                    thread 'main' panicked at src/parse.rs:61:9:\n\
                    TypeError: x is not a function";
        assert_eq!(
            of(text, Error),
            [
                "E0308",
                "TS2345",
                "parse::tests::parses_negative_amounts",
                "error[E0308]: mismatched types",
                "error TS2345: Argument of type 'string'",
                "thread 'main' panicked at src/parse.rs:61:9:",
                "TypeError: x is not a function"
            ]
        );
        // Prose about errors is not an error message; `Error` alone is too short.
        assert!(of("The errors went away.\nError\nan error: none", Error).is_empty());
        let long = format!("error: {}", "x".repeat(300));
        assert_eq!(of(&long, Error)[0].len(), MAX_MESSAGE_LEN);
    }

    #[test]
    fn urls() {
        assert_eq!(
            of("docs at https://docs.rs/egui/0.37, 见https://x.io/y。", Url),
            ["https://docs.rs/egui/0.37", "https://x.io/y"]
        );
        assert!(of("http:// and www.example.com", Url).is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        /// The line tests read by `memchr` say what their plain definitions say: a word
        /// `FAILED` between non-letters, the first `: error ` of the line.
        #[test]
        fn line_tests_agree_with_their_definitions(
            line in "(FAILED|FAIL|ED|: error |: |error|x|é|_| |:){0,12}"
        ) {
            let failed = line
                .split(|c: char| !c.is_ascii_alphabetic())
                .any(|w| w == "FAILED");
            proptest::prop_assert_eq!(
                holds_word(line.as_bytes(), b"FAILED", |c| c.is_ascii_alphabetic()),
                failed
            );
            if error_head(&line) != Some(0) {
                proptest::prop_assert_eq!(error_head(&line), line.find(": error ").map(|k| k + 2));
            }
        }
    }

    #[test]
    fn a_fact_comes_once_with_its_first_kind() {
        let text = "parse_amount parse_amount\nFAIL parse_amount";
        assert_eq!(facts(text), [(Identifier, "parse_amount".to_string())]);
    }
}
