//! The envelope scanner against serde_json, differentially: on every fixture line, on mutated
//! fixture lines, on generated JSON envelopes and on token soup, a line the scanner accepts is
//! accepted by serde_json with the same envelope slices at the same offsets; and the lines of
//! real logs take the fast path.

use crate::common;

use std::sync::OnceLock;

use common::*;
use proptest::prelude::*;
use surface_store::{Envelope, ScanOutcome, compare_with_serde, read_jsonl};

/// Every line of every upstream fixture and bundled sample.
fn fixture_lines() -> &'static [String] {
    static LINES: OnceLock<Vec<String>> = OnceLock::new();
    LINES.get_or_init(|| {
        let mut files = upstream_files();
        let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        files.push(assets.join("sample.session.jsonl"));
        files.push(assets.join("problems.session.jsonl"));
        let mut out = Vec::new();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            out.extend(
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string),
            );
        }
        out
    })
}

fn agrees(line: &str) -> Result<ScanOutcome, TestCaseError> {
    compare_with_serde(line).map_err(TestCaseError::fail)
}

#[test]
fn every_fixture_line_the_harness_wrote_takes_the_fast_path() {
    let mut scanned = 0;
    for line in fixture_lines() {
        match compare_with_serde(line) {
            Ok(ScanOutcome::Scanned) => scanned += 1,
            // problems.session.jsonl ends with a torn line on purpose.
            Ok(ScanOutcome::GaveUpSerdeRejects) => assert!(
                !line.ends_with('}'),
                "a complete fixture line was rejected: {line}"
            ),
            other => panic!("{other:?}: {line}"),
        }
    }
    assert!(scanned > 1000, "{scanned}");
}

/// One random edit of a line, at a char boundary so the line stays UTF-8.
#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, &'static str),
    Delete(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

const INSERTS: &[&str] = &[
    "\"",
    "\\",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    " ",
    "\t",
    "\r",
    "\u{c}",
    "\u{0}",
    "\u{1f}",
    "0",
    "1",
    "-",
    "+",
    ".",
    "e",
    "E",
    "u",
    "x",
    "t",
    "n",
    "f",
    "true",
    "null",
    "\\u",
    "\\uD83D",
    "\\uDE00",
    "\\n",
    "\\x",
    "é",
    "\u{feff}",
    "\"seq\":1,",
    "\"type\":\"t\",",
    "\"data\":{},",
    "\"surfaceOp\":null,",
    "[[",
    "]]",
    "{\"a\":",
    "0.",
    ".5",
    "01",
    "1e",
    "\"\"",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), proptest::sample::select(INSERTS)).prop_map(|(i, s)| Edit::Insert(i, s)),
        3 => (any::<usize>(), 1usize..4).prop_map(|(i, n)| Edit::Delete(i, n)),
        1 => (any::<usize>(), 1usize..40).prop_map(|(i, n)| Edit::Duplicate(i, n)),
        1 => any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn boundary(s: &str, i: usize) -> usize {
    let mut i = i % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(line: &mut String, e: &Edit) {
    match *e {
        Edit::Insert(i, what) => {
            let i = boundary(line, i);
            line.insert_str(i, what);
        }
        Edit::Delete(i, n) | Edit::Duplicate(i, n) => {
            let a = boundary(line, i);
            let b = boundary(line, (a + n).min(line.len()));
            if matches!(e, Edit::Delete(..)) {
                line.replace_range(a..b, "");
            } else {
                let copy = line[a..b].to_string();
                line.insert_str(b, &copy);
            }
        }
        Edit::Truncate(i) => {
            let i = boundary(line, i);
            line.truncate(i);
        }
    }
}

/// A JSON string literal with plain text, escapes (lone surrogates included) and non-ASCII.
fn json_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-z /é😀]{0,6}",
        1 => proptest::sample::select(&[
            "\\n", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t", "\\u00e9", "\\uD83D\\uDE00",
            "\\uD83D", "\\uDE00", "\\u0000", "\\uFFFF", "\\uabcd",
        ][..]).prop_map(str::to_string),
    ];
    proptest::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()))
}

fn ws() -> impl Strategy<Value = String> {
    prop_oneof![6 => Just(String::new()), 1 => "[ \t\r\n]{1,3}"]
}

fn json_number() -> impl Strategy<Value = String> {
    "-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,4})?([eE][+-]?[0-9]{1,3})?"
}

/// Valid JSON text with random whitespace between tokens.
fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        json_number(),
        json_string(),
        Just("true".to_string()),
        Just("false".to_string()),
        Just("null".to_string()),
    ];
    leaf.prop_recursive(6, 48, 5, |inner| {
        prop_oneof![
            proptest::collection::vec((ws(), inner.clone(), ws()), 0..5).prop_map(|items| {
                let parts: Vec<String> = items.into_iter().map(|(a, v, b)| a + &v + &b).collect();
                format!("[{}]", parts.join(","))
            }),
            proptest::collection::vec((json_string(), ws(), inner), 0..5).prop_map(|members| {
                let parts: Vec<String> = members
                    .into_iter()
                    .map(|(k, w, v)| format!("{w}{k}{w}:{w}{v}{w}"))
                    .collect();
                format!("{{{}}}", parts.join(","))
            }),
        ]
    })
}

const KEYS: &[&str] = &[
    "type",
    "seq",
    "time",
    "data",
    "surfaceOp",
    "sourceEventSeqs",
    "seq0",
    "time0",
    "x",
    "Seq",
    "",
    "typ\\u0065",
];

/// An envelope line: `type` first or not, random keys (repeats possible), random values.
fn envelope_line() -> impl Strategy<Value = (String, bool)> {
    let member = (proptest::sample::select(KEYS), ws(), json_value());
    (
        proptest::option::of(json_string()),
        proptest::collection::vec(member, 0..7),
        any::<prop::sample::Index>(),
        ws(),
    )
        .prop_map(|(type_value, members, at, w)| {
            let mut parts: Vec<(String, String)> = members
                .into_iter()
                .map(|(k, w, v)| (k.to_string(), format!("{w}{v}{w}")))
                .collect();
            if let Some(t) = type_value {
                let i = at.index(parts.len() + 1);
                parts.insert(i, ("type".to_string(), t));
            }
            let mut keys: Vec<&str> = parts.iter().map(|(k, _)| k.as_str()).collect();
            keys.sort_unstable();
            let unique = keys
                .windows(2)
                .all(|p| p[0] != p[1] || !is_envelope_key(p[0]));
            let type_plain = parts
                .iter()
                .any(|(k, v)| k == "type" && v.starts_with('"') && !v.contains('\\'));
            let no_escaped_key = parts.iter().all(|(k, _)| !k.contains('\\'));
            let body: Vec<String> = parts
                .iter()
                .map(|(k, v)| format!("{w}\"{k}\"{w}:{v}"))
                .collect();
            (
                format!("{w}{{{}}}{w}", body.join(",")),
                unique && type_plain && no_escaped_key,
            )
        })
}

fn is_envelope_key(k: &str) -> bool {
    KEYS[..8].contains(&k)
}

/// Through the whole reader: a line serde_json rejects is reported with serde's exact error
/// text, and a line it accepts is not reported as unparseable.
fn reader_reports_exactly_what_serde_rejects(line: &str) -> Result<(), TestCaseError> {
    let log = read_jsonl(format!("{HEADER}\n{line}\n").into_bytes(), None).unwrap();
    let unparseable: Vec<&str> = log
        .problems
        .iter()
        .filter(|p| p.line == Some(2) && p.message.contains("not a JSON event"))
        .map(|p| p.message.as_str())
        .collect();
    let raw = line.strip_suffix('\r').unwrap_or(line);
    let expected = if raw.bytes().all(|b| b.is_ascii_whitespace()) {
        vec![]
    } else {
        match Envelope::from_json(raw) {
            Ok(_) => vec![],
            Err(e) => vec![format!("line is not a JSON event: {e}")],
        }
    };
    prop_assert_eq!(unparseable, expected, "{}", line);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn mutated_fixture_lines_agree_with_serde(
        pick in any::<prop::sample::Index>(),
        edits in proptest::collection::vec(edit(), 1..5),
    ) {
        let lines = fixture_lines();
        let mut line = lines[pick.index(lines.len())].clone();
        for e in &edits {
            apply(&mut line, e);
        }
        agrees(&line)?;
        reader_reports_exactly_what_serde_rejects(&line)?;
    }

    #[test]
    fn generated_envelopes_agree_and_the_unambiguous_ones_are_scanned(
        (line, unambiguous) in envelope_line(),
        edits in proptest::collection::vec(edit(), 0..2),
    ) {
        let outcome = agrees(&line)?;
        if unambiguous {
            prop_assert_eq!(outcome, ScanOutcome::Scanned, "{}", line);
        }
        let mut mutated = line;
        for e in &edits {
            apply(&mut mutated, e);
        }
        agrees(&mutated)?;
        // The reader splits lines at newlines, which the generated whitespace may hold.
        reader_reports_exactly_what_serde_rejects(&mutated.replace('\n', " "))?;
    }

    #[test]
    fn token_soup_agrees_with_serde(
        tokens in proptest::collection::vec(proptest::sample::select(INSERTS), 0..30),
    ) {
        agrees(&format!("{{\"type\":\"t\",\"data\":{}", tokens.concat()))?;
        agrees(&tokens.concat())?;
    }
}
