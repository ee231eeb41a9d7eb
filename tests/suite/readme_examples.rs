//! The command examples of README.md and of every page of docs/, run with the built binary, so
//! neither can drift.
//!
//! Every ```` ```console ```` block is a session: `$ surface-viewer …` lines are commands (a
//! trailing `\` continues one), the lines after a command are its output (stdout, then stderr),
//! compared line by line with trailing spaces ignored. A line holding only `…` stands for any
//! number of lines; without one at the end, the output must end where the block does. In a
//! ```` ```sh ```` block every line that starts with `surface-viewer` runs, its output unchecked.
//! The fence's info string may add `exit=N` (the exit code expected of every command of the
//! block, 0 when absent) and `skip=REASON` (the block needs files outside the repository: it is
//! listed as skipped, never run). README.md's commands run from the repository's root; a docs
//! page's from a scratch folder where `tests/` and `assets/` are the repository's (so an example
//! that writes, `export … --to fleet`, writes there).

use crate::binary::bin;
use crate::common::repo_root as root;
use std::path::Path;

/// One fenced block of README.md.
struct Block {
    /// 1-based line of the opening fence.
    line: usize,
    lang: String,
    exit: i32,
    skip: Option<String>,
    body: Vec<String>,
}

/// One command of a block and the output the README shows for it.
struct Example {
    line: usize,
    command: String,
    exit: i32,
    /// `None` for `sh` blocks: output not shown, not compared.
    expected: Option<Vec<String>>,
}

const ELISION: &str = "…";

/// A page's text, by its path from the repository's root.
fn page(name: &str) -> String {
    let path = root().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn readme() -> String {
    page("README.md")
}

/// The pages of docs/, by their paths from the repository's root, in name order.
fn docs_pages() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ lists")
        .map(|e| {
            e.expect("a docs/ entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    names.sort();
    names
}

fn blocks(name: &str, text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (index, line) in text.lines().enumerate() {
        let Some(info) = line.strip_prefix("```") else {
            if let Some(block) = open.as_mut() {
                block.body.push(line.to_string());
            }
            continue;
        };
        if let Some(block) = open.take() {
            assert!(
                info.trim().is_empty(),
                "{name} line {}: a fence opens inside the block of line {}",
                index + 1,
                block.line
            );
            blocks.push(block);
            continue;
        }
        let (lang, attrs) = info.split_once(' ').unwrap_or((info, ""));
        let mut block = Block {
            line: index + 1,
            lang: lang.to_string(),
            exit: 0,
            skip: None,
            body: Vec::new(),
        };
        let attrs = attrs.trim();
        let (attrs, skip) = match attrs.split_once("skip=") {
            Some((before, reason)) => (before, Some(reason.trim().to_string())),
            None => (attrs, None),
        };
        if let Some(reason) = &skip {
            assert!(
                !reason.is_empty(),
                "{name} line {}: skip= needs a reason",
                block.line
            );
        }
        block.skip = skip;
        for attr in attrs.split_whitespace() {
            match attr.strip_prefix("exit=").map(str::parse) {
                Some(Ok(code)) => block.exit = code,
                _ => panic!(
                    "{name} line {}: unknown fence attribute {attr:?} (exit=N, skip=REASON)",
                    block.line
                ),
            }
        }
        open = Some(block);
    }
    assert!(open.is_none(), "{name} ends inside a fenced block");
    blocks
}

/// Joins a command's `\` continuation lines; returns the command and the lines it used.
fn command_at(body: &[String], start: usize, first: &str) -> (String, usize) {
    let mut command = first.trim_end().to_string();
    let mut used = 1;
    while let Some(stripped) = command.strip_suffix('\\') {
        let next = body
            .get(start + used)
            .unwrap_or_else(|| panic!("a `\\` continues past the block: {command}"));
        command = format!("{} {}", stripped.trim_end(), next.trim());
        used += 1;
    }
    (command, used)
}

fn examples(block: &Block) -> Vec<Example> {
    let mut examples = Vec::new();
    let mut i = 0;
    while i < block.body.len() {
        let line = &block.body[i];
        let command = match block.lang.as_str() {
            "console" => line.strip_prefix("$ "),
            "sh" => line.starts_with("surface-viewer").then_some(line.as_str()),
            _ => None,
        };
        let Some(first) = command else {
            assert!(
                block.lang != "console" || i > 0,
                "line {}: a console block starts with `$ `",
                block.line
            );
            i += 1;
            continue;
        };
        let (command, used) = command_at(&block.body, i, first);
        i += used;
        let expected = (block.lang == "console").then(|| {
            let end = block.body[i..]
                .iter()
                .position(|l| l.starts_with("$ "))
                .map_or(block.body.len(), |n| i + n);
            let shown = block.body[i..end].to_vec();
            i = end;
            shown
        });
        examples.push(Example {
            line: block.line,
            command,
            exit: block.exit,
            expected,
        });
    }
    examples
}

/// Splits a command line as a POSIX shell would for the plain words, quotes and comments the
/// README uses; anything else (pipes, redirections, variables) is refused.
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => words.extend(word.take()),
            '#' if word.is_none() => break,
            '"' | '\'' => {
                let quoted = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(other) => quoted.push(other),
                        None => panic!("unclosed quote in {command:?}"),
                    }
                }
            }
            '|' | '>' | '<' | '$' | ';' | '&' | '`' | '\\' => {
                panic!("{command:?}: the README test runs plain commands only (found {c:?})")
            }
            _ => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

struct Run {
    code: Option<i32>,
    lines: Vec<String>,
}

fn run(command: &str, dir: &Path) -> Run {
    let words = words(command);
    assert_eq!(
        words.first().map(String::as_str),
        Some("surface-viewer"),
        "{command:?}: only surface-viewer runs here; mark the block skip=REASON"
    );
    let out = bin()
        .current_dir(dir)
        .args(&words[1..])
        .output()
        .expect("the binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Run {
        code: out.status.code(),
        lines: text.lines().map(|l| l.trim_end().to_string()).collect(),
    }
}

/// Where `expected` (with `…` elisions) first stops matching `actual`, as a readable diff of
/// the part that differs; `None` when it matches.
fn mismatch(expected: &[String], actual: &[String]) -> Option<String> {
    let segments: Vec<Vec<String>> = expected
        .split(|l| l.trim() == ELISION)
        .map(|s| s.iter().map(|l| l.trim_end().to_string()).collect())
        .collect();
    let open_end = expected.last().is_some_and(|l| l.trim() == ELISION);
    let last = segments.len() - 1;
    let mut at = 0;
    for (n, segment) in segments.iter().enumerate() {
        if segment.is_empty() {
            continue;
        }
        let fits = |p: usize| actual.get(p..p + segment.len()) == Some(segment.as_slice());
        let found = if n == 0 {
            fits(0).then_some(0)
        } else if n == last && !open_end {
            actual
                .len()
                .checked_sub(segment.len())
                .filter(|&p| p >= at && fits(p))
        } else {
            (at..actual.len()).find(|&p| fits(p))
        };
        match found {
            Some(p) => at = p + segment.len(),
            None => {
                // Compare with the place the segment fits best, line for line.
                let best = if n == 0 {
                    0
                } else {
                    (at..actual.len().max(at + 1))
                        .max_by_key(|&p| {
                            let same = segment
                                .iter()
                                .zip(&actual[p.min(actual.len())..])
                                .filter(|(e, a)| e == a)
                                .count();
                            (same, std::cmp::Reverse(p))
                        })
                        .unwrap_or(at)
                };
                let mut diff = String::new();
                for (k, want) in segment.iter().enumerate() {
                    match actual.get(best + k) {
                        Some(got) if got == want => diff.push_str(&format!("    {want}\n")),
                        Some(got) => diff.push_str(&format!("  - {want}\n  + {got}\n")),
                        None => diff.push_str(&format!("  - {want}\n  + (no more output)\n")),
                    }
                }
                return Some(diff);
            }
        }
    }
    (!open_end && at != actual.len()).then(|| {
        let extra: String = actual[at..].iter().map(|l| format!("  + {l}\n")).collect();
        format!("    (the README's block ends here; the output goes on:)\n{extra}")
    })
}

/// What running one page's examples found.
#[derive(Default)]
struct Ran {
    ran: usize,
    compared: usize,
    failures: Vec<String>,
}

/// Runs every example of the page `name` (its text `text`) from `dir`.
fn run_page(name: &str, text: &str, dir: &Path, out: &mut Ran) {
    for block in &blocks(name, text) {
        let examples = examples(block);
        if let Some(reason) = &block.skip {
            eprintln!(
                "{name} line {}: skipped ({} command(s)): {reason}",
                block.line,
                examples.len()
            );
            continue;
        }
        for example in examples {
            out.ran += 1;
            out.compared += usize::from(example.expected.is_some());
            if let Some(problems) = example_problems(&example, dir) {
                out.failures.push(format!(
                    "{name} block at line {}: $ {}\n  {problems}",
                    example.line, example.command
                ));
            }
        }
    }
}

/// What differs between what `example` shows and what it does, run from `dir`.
fn example_problems(example: &Example, dir: &Path) -> Option<String> {
    let got = run(&example.command, dir);
    let mut problems = Vec::new();
    if got.code != Some(example.exit) {
        problems.push(format!(
            "exit code {:?}, the page says {} (fence attribute exit=N)",
            got.code, example.exit
        ));
    }
    if let Some(diff) = example
        .expected
        .as_ref()
        .and_then(|expected| mismatch(expected, &got.lines))
    {
        problems.push(format!(
            "output differs (- page, + actual):\n{diff}  the whole output, to paste (keep the page's `…` lines where it elides):\n{}",
            got.lines
                .iter()
                .map(|l| format!("    | {l}\n"))
                .collect::<String>()
        ));
    }
    (!problems.is_empty()).then(|| problems.join("\n  "))
}

/// No example drifted, and at least `runs` commands ran, `compared` of them with their output:
/// the extractor must find the examples (a page reformatted so that none is recognised would
/// otherwise pass).
fn assert_none_drifted(what: &str, ran: &Ran, (runs, compared): (usize, usize)) {
    eprintln!(
        "{} {what} command(s) run, {} compared with the output shown",
        ran.ran, ran.compared
    );
    assert!(
        ran.failures.is_empty(),
        "{} {what} example(s) drifted:\n\n{}",
        ran.failures.len(),
        ran.failures.join("\n\n")
    );
    assert!(
        ran.ran >= runs && ran.compared >= compared,
        "{what}: {} run, {} compared",
        ran.ran,
        ran.compared
    );
}

#[test]
fn every_readme_example_runs_as_shown() {
    let mut ran = Ran::default();
    run_page("README.md", &readme(), &root(), &mut ran);
    assert_none_drifted("README", &ran, (8, 8));
}

#[test]
fn every_docs_example_runs_as_shown() {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    for shared in ["tests", "assets"] {
        std::os::unix::fs::symlink(root().join(shared), scratch.path().join(shared))
            .expect("a link into the repository");
    }
    let mut ran = Ran::default();
    for name in docs_pages() {
        run_page(&name, &page(&name), scratch.path(), &mut ran);
    }
    // The worked examples of audit, compare, cost, meter and policy, and export's exports.
    assert_none_drifted("docs", &ran, (12, 9));
}

#[test]
fn the_synopsis_names_every_subcommand() {
    let text = readme();
    let synopsis = blocks("README.md", &text)
        .into_iter()
        .find(|b| b.lang == "text" && b.body.iter().any(|l| l.starts_with("surface-viewer check")))
        .expect("README.md has the command synopsis as a ```text block");
    let named: std::collections::BTreeSet<String> = synopsis
        .body
        .iter()
        .filter_map(|l| l.strip_prefix("surface-viewer "))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()))
        .map(str::to_string)
        .collect();
    let help = bin().arg("--help").output().expect("the binary runs");
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let commands: std::collections::BTreeSet<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A command's name is indented by two spaces; wrapped descriptions by more.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| *w != "help")
        .map(str::to_string)
        .collect();
    assert!(commands.len() >= 9, "{help}");
    assert_eq!(named, commands, "README synopsis against --help");
}

#[test]
fn the_matcher_reports_what_differs() {
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    let actual = lines("a\nb\nc\nd");
    assert_eq!(mismatch(&lines("a\nb\nc\nd"), &actual), None);
    assert_eq!(mismatch(&lines("a\n…\nd"), &actual), None);
    assert_eq!(mismatch(&lines("a\nb\n…"), &actual), None);
    assert_eq!(mismatch(&lines("…\nc\n…"), &actual), None);
    let diff = mismatch(&lines("a\nx\n…"), &actual).unwrap();
    assert!(diff.contains("  - x\n  + b\n"), "{diff}");
    let diff = mismatch(&lines("a\nb"), &actual).unwrap();
    assert!(diff.contains("  + c\n  + d\n"), "{diff}");
    assert!(mismatch(&lines("b\n…"), &actual).is_some());
    assert!(mismatch(&lines("a\n…\nc"), &actual).is_some());
    assert_eq!(
        words(r#"surface-viewer preview f --summary "two words" # note"#),
        ["surface-viewer", "preview", "f", "--summary", "two words"]
    );
}
