//! The salient-term extractor behind the audit's lost terms (docs/audit.md): the things a
//! summary must not drop — file paths, URLs, identifiers with `_`, `::`, `.` or an inner
//! capital, numbers of three or more digits, and error codes — found in a text with their
//! byte spans, so that the same rules count the terms and highlight them.
//!
//! The rules, on tokens (runs of letters, digits and `_ . : / - ~` in one script: CJK
//! characters separate tokens as spaces do, and a token ends where Latin letters meet Cyrillic
//! or Greek ones, so `值src/index.ts` yields `src/index.ts`; a URL runs to the next space,
//! quote, bracket or backtick):
//!
//! - **URL**: `http://…` or `https://…`, without trailing punctuation.
//! - **path**: a token with a `/` that starts with `/`, `./`, `../` or `~/`, has two or more
//!   slashes, or ends in a file name with an extension (`src/parse.rs`); a trailing `:LINE`
//!   or `:LINE:COL` is not part of it. Other slashed tokens (`and/or`, `compaction/start`)
//!   are split at the slashes.
//! - **identifier**: a token (split at `-` and at single `:`) that starts with a letter, `_`
//!   or `.` (leading dots dropped), is at least four characters long and holds `::`, `_`, `.` or an inner capital
//!   after a lowercase letter somewhere (`parse_amount`, `Amount::from_cents`, `whole.parse`,
//!   `InvalidAmount`; not `JSON`, not `Ok`).
//! - **number**: a run of digits and dots not touching a letter, with three or more digits
//!   (`1250`, `-12.50` → `12.50`, `2026` in `2026-03-14`; not `1.87s`, not a hex hash).
//! - **error code**: one to five capitals followed by three or more digits (`E0600`,
//!   `TS2345`); SCREAMING_SNAKE codes (`CONTEXT_WINDOW_EXCEEDED`) are identifiers.
//!
//! Terms are compared exactly (case-sensitive).

use std::ops::Range;

/// The kind of a salient term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TermClass {
    /// A file path.
    Path,
    /// An `http(s)://` URL.
    Url,
    /// An identifier with `_`, `::`, `.` or an inner capital.
    Identifier,
    /// A number of three or more digits.
    Number,
    /// An error code such as `E0600`.
    ErrorCode,
    /// A number with its unit (`1.87s`, `340 ms`, `45%`, `12 tests`): a fact of the audit's
    /// fidelity measure, not a lost term.
    Measure,
}

/// One salient term found in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term<'a> {
    /// The term as written.
    pub text: &'a str,
    /// Its byte range in the text.
    pub span: Range<usize>,
    /// What kind of term it is.
    pub class: TermClass,
}

/// Shortest path, URL or identifier term, in bytes.
pub const MIN_TERM_LEN: usize = 4;
/// Fewest digits of a number term.
pub const MIN_NUMBER_DIGITS: usize = 3;

/// Every salient term of `text`, in order.
pub fn terms(text: &str) -> Vec<Term<'_>> {
    let mut out = Vec::new();
    for_each_term(text, |t| out.push(t));
    out
}

/// Calls `f` with every salient term of `text`, in order (no allocation).
pub fn for_each_term<'a>(text: &'a str, f: impl FnMut(Term<'a>)) {
    for_each_term_with::<true>(text, f);
}

/// [`for_each_term`], with `SKIP_PLAIN_WORDS` passing tokens of ASCII letters that cannot be a
/// term ([`plain_word`]) without classifying them — most tokens of prose and code are such
/// words. The tests run it without the shortcut too and compare.
fn for_each_term_with<'a, const SKIP_PLAIN_WORDS: bool>(
    text: &'a str,
    mut f: impl FnMut(Term<'a>),
) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c < 0x80 && !TOKEN_BYTES[c as usize] {
            i += 1;
            continue;
        }
        if token_char_len(text, i) == 0 {
            i += char_len(c);
            continue;
        }
        if let Some((scheme, end)) = url_end(b, i) {
            let end = trim_end(b, i, end, b".,;:!?");
            if end >= i + scheme + MIN_TERM_LEN {
                f(term(text, i, end, TermClass::Url));
            }
            i = end.max(i + 1);
            while i < b.len() && token_char_len(text, i) > 0 {
                i += token_char_len(text, i);
            }
            continue;
        }
        let start = i;
        let plain;
        (i, plain) = if SKIP_PLAIN_WORDS {
            token_end_and_plain(text, start)
        } else {
            (token_end(text, start), false)
        };
        if !plain {
            token(text, start, i, &mut f);
        }
    }
}

/// Where the token starting at `start` ends. A token holds one script: letters of another one
/// glued to it (`значениеparse_amount`) end it and start the next token.
fn token_end(text: &str, start: usize) -> usize {
    let mut i = start;
    let mut script = None;
    while i < text.len() {
        match continuing(text, i, &mut script) {
            0 => break,
            len => i += len,
        }
    }
    i
}

/// The length of the character at byte `i` when it continues a token whose letters so far are
/// of `script` (which it then updates), else 0: a character that is not a token's, or a letter
/// of another script.
fn continuing(text: &str, i: usize, script: &mut Option<u32>) -> usize {
    let len = token_char_len(text, i);
    if len > 0
        && let Some(s) = script_of(text, i)
    {
        match *script {
            Some(current) if current != s => return 0,
            _ => *script = Some(s),
        }
    }
    len
}

/// [`token_end`], and whether the token is a [`plain_word`] — read in the same walk, ASCII
/// bytes by one table lookup each (most of a text's bytes are in plain words).
fn token_end_and_plain(text: &str, start: usize) -> (usize, bool) {
    let b = text.as_bytes();
    let mut i = start;
    let mut script = None;
    let (mut lower, mut inner_capital, mut letters_only) = (false, false, true);
    while i < b.len() {
        let c = b[i];
        if c < 0x80 {
            match ASCII_CLASS[c as usize] {
                AsciiClass::Outside => break,
                AsciiClass::Other => letters_only = false,
                class => {
                    if script.is_some_and(|s| s != LATIN) {
                        break;
                    }
                    script = Some(LATIN);
                    match class {
                        AsciiClass::Lower => lower = true,
                        _ => inner_capital |= i > start,
                    }
                }
            }
            i += 1;
            continue;
        }
        match continuing(text, i, &mut script) {
            0 => break,
            len => i += len,
        }
        letters_only = false;
    }
    let plain = letters_only && (i - start < MIN_TERM_LEN || !(lower && inner_capital));
    (i, plain)
}

/// What an ASCII byte is to a token.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AsciiClass {
    /// Not part of a token (a space, a quote, a bracket).
    Outside,
    /// A lowercase letter.
    Lower,
    /// A capital.
    Upper,
    /// A digit or one of `_ . : / - ~`.
    Other,
}

/// [`AsciiClass`] of every ASCII byte.
const ASCII_CLASS: [AsciiClass; 128] = {
    let mut table = [AsciiClass::Outside; 128];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        table[c] = if b.is_ascii_lowercase() {
            AsciiClass::Lower
        } else if b.is_ascii_uppercase() {
            AsciiClass::Upper
        } else if TOKEN_BYTES[c] {
            AsciiClass::Other
        } else {
            AsciiClass::Outside
        };
        c += 1;
    }
    table
};

/// A token of ASCII letters alone that no rule makes a term: under [`MIN_TERM_LEN`] letters,
/// or not both a lowercase letter and a capital past the first letter (`parse`, `JSON`, `The`;
/// not `InvalidAmount`, not `ABcd`). [`token`] finds nothing in it: it has no `/`, `:`, `-`, `.`, `_` or digit.
#[cfg(test)]
fn plain_word(tok: &[u8]) -> bool {
    let (mut lower, mut inner_capital) = (false, false);
    for (k, c) in tok.iter().enumerate() {
        if c.is_ascii_lowercase() {
            lower = true;
        } else if c.is_ascii_uppercase() {
            inner_capital |= k > 0;
        } else {
            return false;
        }
    }
    tok.len() < MIN_TERM_LEN || !(lower && inner_capital)
}

/// The length of the character at byte `i` when it belongs in a token (ASCII letters, digits,
/// `_ . : / - ~`, and non-ASCII letters but CJK ones), else 0. `i` is a character boundary.
fn token_char_len(text: &str, i: usize) -> usize {
    let c = text.as_bytes()[i];
    if c < 0x80 {
        return usize::from(is_token_byte(c));
    }
    match text[i..].chars().next() {
        // CJK is written without spaces: its characters separate terms as a space does.
        Some(ch) if ch.is_alphanumeric() && script_of(text, i) != Some(CJK) => ch.len_utf8(),
        _ => 0,
    }
}

/// The writing system of the token character at byte `i`, coarsely: Latin letters (ASCII and
/// the Latin supplements), Greek, Cyrillic, the CJK scripts (Han, kana, Hangul and their
/// punctuation and full-width forms together), else the character's 256-code-point block.
/// `None` for the characters every script shares in a token: digits and `_ . : / - ~`.
fn script_of(text: &str, i: usize) -> Option<u32> {
    let c = text.as_bytes()[i];
    if c < 0x80 {
        return c.is_ascii_alphabetic().then_some(LATIN);
    }
    let ch = u32::from(text[i..].chars().next()?);
    Some(match ch {
        0x00C0..=0x024F | 0x1E00..=0x1EFF => LATIN,
        0x0370..=0x03FF | 0x1F00..=0x1FFF => 1,
        0x0400..=0x052F => 2,
        0x1100..=0x11FF
        | 0x2E80..=0x9FFF
        | 0xA960..=0xA97F
        | 0xAC00..=0xD7FF
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFFEF
        | 0x20000..=0x3FFFF => CJK,
        other => 0x100 + (other >> 8),
    })
}

/// [`script_of`] for Latin letters.
const LATIN: u32 = 0;
/// [`script_of`] for Chinese, Japanese and Korean.
const CJK: u32 = 3;

/// The length of the UTF-8 character whose first byte is `lead`.
fn char_len(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// The byte spans of the terms of `text` for which `keep` is true, in order (to highlight
/// lost terms where they occur).
pub fn spans_where(text: &str, keep: impl Fn(&str) -> bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for_each_term(text, |t| {
        if keep(t.text) {
            out.push(t.span);
        }
    });
    out
}

fn term(text: &str, start: usize, end: usize, class: TermClass) -> Term<'_> {
    Term {
        text: &text[start..end],
        span: start..end,
        class,
    }
}

/// ASCII bytes that belong in a token: letters, digits and `_ . : / \\ - ~`.
const TOKEN_BYTES: [bool; 128] = {
    let mut table = [false; 128];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric()
            || matches!(b, b'_' | b'.' | b':' | b'/' | b'\\' | b'-' | b'~');
        c += 1;
    }
    table
};

fn is_token_byte(c: u8) -> bool {
    c < 128 && TOKEN_BYTES[c as usize]
}

/// The scheme length and the end of a URL starting at `i`, if one starts there.
fn url_end(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let rest = &b[i..];
    let scheme = if rest.starts_with(b"https://") {
        8
    } else if rest.starts_with(b"http://") {
        7
    } else {
        return None;
    };
    let mut end = i + scheme;
    while end < b.len()
        && !b[end].is_ascii_whitespace()
        && !cjk_punctuation(&b[end..])
        && !matches!(
            b[end],
            b'"' | b'\'' | b'`' | b'<' | b'>' | b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'\\'
        )
    {
        end += 1;
    }
    Some((scheme, end))
}

/// Whether `b` starts with CJK or fullwidth punctuation (U+3000–U+303F, U+FF00–U+FF0F,
/// U+FF1A–U+FF20), which ends a URL as a space does (`见https://x.io/y。`).
fn cjk_punctuation(b: &[u8]) -> bool {
    match b {
        [0xE3, 0x80, ..] => true,
        [0xEF, 0xBC, c, ..] => (0x80..=0x8F).contains(c) || (0x9A..=0xA0).contains(c),
        _ => false,
    }
}

fn trim_end(b: &[u8], start: usize, mut end: usize, chars: &[u8]) -> usize {
    while end > start && chars.contains(&b[end - 1]) {
        end -= 1;
    }
    end
}

fn trim_start(b: &[u8], mut start: usize, end: usize, chars: &[u8]) -> usize {
    while start < end && chars.contains(&b[start]) {
        start += 1;
    }
    start
}

/// Drops a trailing `:LINE` / `:LINE:COL` (as in `src/parse.rs:14:9`).
fn strip_line_suffix(b: &[u8], start: usize, mut end: usize) -> usize {
    loop {
        let mut k = end;
        while k > start && b[k - 1].is_ascii_digit() {
            k -= 1;
        }
        if k < end && k > start + 1 && b[k - 1] == b':' && b[k - 2] != b':' {
            end = k - 1;
        } else {
            return end;
        }
    }
}

/// Classifies one token `text[start..end]`.
fn token<'a>(text: &'a str, start: usize, end: usize, f: &mut impl FnMut(Term<'a>)) {
    let b = text.as_bytes();
    let mut start = trim_start(b, start, end, b"-:");
    // `./x` and `../x` are paths; other leading dots go (`.5` is a number, `.map` of a method
    // chain is a plain word).
    let rest = &b[start..end];
    let dotted = [&b"./"[..], b"../", b".\\", b"..\\"];
    if !dotted.iter().any(|d| rest.starts_with(d)) {
        start = trim_start(b, start, end, b".");
    }
    let end = trim_end(b, start, end, b".:-/\\");
    if start >= end {
        return;
    }
    let end = strip_line_suffix(b, start, end);
    let tok = &b[start..end];
    if tok.contains(&b'\\') {
        if is_windows_path(tok) {
            f(term(text, start, end, TermClass::Path));
        } else {
            split(text, start, end, b'\\', f);
        }
        return;
    }
    if tok.contains(&b'/') {
        if is_path(tok) {
            f(term(text, start, end, TermClass::Path));
        } else {
            split(text, start, end, b'/', f);
        }
        return;
    }
    if contains_pair(tok, b"::") {
        let s = trim_start(b, start, end, b":");
        if end - s >= MIN_TERM_LEN && tok.iter().any(u8::is_ascii_alphabetic) {
            f(term(text, s, end, TermClass::Identifier));
        }
        return;
    }
    if tok.contains(&b':') {
        split(text, start, end, b':', f);
        return;
    }
    if tok.contains(&b'-') {
        split(text, start, end, b'-', f);
        return;
    }
    word(text, start, end, f);
}

/// Classifies the parts of `text[start..end]` between `sep` bytes as tokens.
fn split<'a>(text: &'a str, start: usize, end: usize, sep: u8, f: &mut impl FnMut(Term<'a>)) {
    let mut s = start;
    for (k, &c) in text.as_bytes()[start..end].iter().enumerate() {
        if c == sep {
            if start + k > s {
                token(text, s, start + k, f);
            }
            s = start + k + 1;
        }
    }
    if end > s {
        token(text, s, end, f);
    }
}

fn contains_pair(tok: &[u8], pair: &[u8; 2]) -> bool {
    tok.windows(2).any(|w| w == pair)
}

fn is_path(tok: &[u8]) -> bool {
    if tok.len() < MIN_TERM_LEN || !tok.iter().any(u8::is_ascii_alphabetic) {
        return false;
    }
    let rooted = tok.starts_with(b"/")
        || tok.starts_with(b"./")
        || tok.starts_with(b"../")
        || tok.starts_with(b"~/");
    let slashes = tok.iter().filter(|&&c| c == b'/').count();
    let last = tok.rsplit(|&c| c == b'/').next().unwrap_or(&[]);
    let extension = last
        .iter()
        .rposition(|&c| c == b'.')
        .is_some_and(|p| p > 0 && last.get(p + 1).is_some_and(u8::is_ascii_alphabetic));
    rooted || slashes >= 2 || extension
}

/// A Windows path: rooted at a drive (`C:\`), a share (`\\server`) or `.\` / `..\`, or
/// ending in a file name with an extension (`src\parse.rs`).
fn is_windows_path(tok: &[u8]) -> bool {
    if tok.len() < MIN_TERM_LEN || !tok.iter().any(u8::is_ascii_alphabetic) {
        return false;
    }
    let drive = tok.len() > 3 && tok[0].is_ascii_alphabetic() && &tok[1..3] == b":\\";
    let rooted = drive
        || [&b"\\\\"[..], b".\\", b"..\\"]
            .iter()
            .any(|r| tok.starts_with(r));
    // A colon only as the drive's (`a:b\c` is not a path).
    let colons = tok.iter().filter(|&&c| c == b':').count();
    if colons > usize::from(drive) {
        return false;
    }
    let last = tok.rsplit(|&c| c == b'\\').next().unwrap_or(&[]);
    let extension = last
        .iter()
        .rposition(|&c| c == b'.')
        .is_some_and(|p| p > 0 && last.get(p + 1).is_some_and(u8::is_ascii_alphabetic));
    rooted || extension
}

/// A token without `/`, `:` or `-`: an identifier, an error code or numbers.
fn word<'a>(text: &'a str, start: usize, end: usize, f: &mut impl FnMut(Term<'a>)) {
    let tok = &text.as_bytes()[start..end];
    if tok[0].is_ascii_digit() {
        numbers(text, start, end, f);
        return;
    }
    if is_error_code(tok) {
        f(term(text, start, end, TermClass::ErrorCode));
        return;
    }
    if tok.len() < MIN_TERM_LEN || !tok.iter().any(u8::is_ascii_alphabetic) {
        return;
    }
    let inner_capital =
        tok[1..].iter().any(u8::is_ascii_uppercase) && tok.iter().any(u8::is_ascii_lowercase);
    if tok.contains(&b'_') || tok.contains(&b'.') || inner_capital {
        f(term(text, start, end, TermClass::Identifier));
    }
}

fn is_error_code(tok: &[u8]) -> bool {
    let letters = tok.iter().take_while(|c| c.is_ascii_uppercase()).count();
    let digits = tok.len() - letters;
    (1..=5).contains(&letters)
        && digits >= MIN_NUMBER_DIGITS
        && tok[letters..].iter().all(u8::is_ascii_digit)
}

/// The number terms in `text[start..end]`: runs of digits and dots that touch no letter, and
/// numbers with a unit ([`measure_end`]).
fn numbers<'a>(text: &'a str, start: usize, end: usize, f: &mut impl FnMut(Term<'a>)) {
    let b = text.as_bytes();
    let mut i = start;
    while i < end {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let s = i;
        while i < end && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        let word_byte = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let after_letter = s > start && b[s - 1].is_ascii_alphabetic();
        let touches_letter = after_letter || (i < end && word_byte(b[i]));
        let e = trim_end(b, s, i, b".");
        let digits = b[s..e].iter().filter(|c| c.is_ascii_digit()).count();
        if !touches_letter && digits >= MIN_NUMBER_DIGITS {
            f(term(text, s, e, TermClass::Number));
        }
        if !after_letter && let Some(m) = measure_end(b, e, end) {
            f(term(text, s, m, TermClass::Measure));
        }
        // Skip the rest of an alphanumeric run (`8c1f0e`) so it yields nothing.
        while i < end && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
    }
}

/// Units a measured number is written with (`1.87s`, `340 ms`, `3.2 MB`, `12 tests`).
const UNITS: &[&str] = &[
    "ns", "us", "µs", "ms", "s", "sec", "secs", "seconds", "min", "mins", "minutes", "h", "hours",
    "B", "KB", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "bytes", "k", "x", "tokens", "lines",
    "files", "tests", "cents", "px", "fps", "EUR", "USD",
];

/// The end of the unit after a number ending at `e` in a token ending at `end`: the unit glued
/// to the number to the token's end (`1.87s`), a `%` just after it, or a unit word after one
/// space when the number ends its token (`340 ms`, `12 tests`).
fn measure_end(b: &[u8], e: usize, end: usize) -> Option<usize> {
    if b.get(e) == Some(&b'%') {
        return Some(e + 1);
    }
    let is_unit = |w: &[u8]| UNITS.iter().any(|u| u.as_bytes() == w);
    if e < end {
        return is_unit(&b[e..end]).then_some(end);
    }
    if b.get(e) != Some(&b' ') {
        return None;
    }
    let w = e + 1;
    let mut k = w;
    // ASCII letters, and the two bytes of `µ`.
    while k < b.len() && (b[k].is_ascii_alphabetic() || b[k] == 0xC2 || b[k] == 0xB5) {
        k += 1;
    }
    let boundary = k == b.len() || !is_token_byte(b[k]) || matches!(b[k], b'.' | b':');
    (k > w && boundary && is_unit(&b[w..k])).then_some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(&str, TermClass)> {
        terms(text).into_iter().map(|t| (t.text, t.class)).collect()
    }

    fn texts(text: &str) -> Vec<&str> {
        terms(text).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn paths_with_and_without_line_numbers() {
        use TermClass::Path;
        assert_eq!(
            found("panicked at src/parse.rs:61:9: assertion"),
            [("src/parse.rs", Path)]
        );
        assert_eq!(
            found("Compiling ledger (/home/dev/src/ledger) in target/debug/deps/ledger-8c1f"),
            [
                ("/home/dev/src/ledger", Path),
                ("target/debug/deps/ledger-8c1f", Path)
            ]
        );
        assert_eq!(
            found("see ./run.sh and ~/notes"),
            [("./run.sh", Path), ("~/notes", Path)]
        );
        // Slashed words that are not paths are split, and their parts judged alone.
        assert_eq!(
            texts("and/or compaction/start tidewater-core/src"),
            Vec::<&str>::new()
        );
        assert_eq!(texts("read/parse_amount"), ["parse_amount"]);
    }

    #[test]
    fn urls_lose_trailing_punctuation() {
        assert_eq!(
            found("See https://example.com/a?b=1, or (http://x.io/y)."),
            [
                ("https://example.com/a?b=1", TermClass::Url),
                ("http://x.io/y", TermClass::Url)
            ]
        );
    }

    #[test]
    fn identifiers() {
        use TermClass::Identifier;
        assert_eq!(
            found("`parse_amount` returns InvalidAmount via whole.parse() and Amount::from_cents"),
            [
                ("parse_amount", Identifier),
                ("InvalidAmount", Identifier),
                ("whole.parse", Identifier),
                ("Amount::from_cents", Identifier)
            ]
        );
        assert_eq!(
            texts("parse::tests::parses_negative_amounts ... FAILED"),
            ["parse::tests::parses_negative_amounts"]
        );
        assert_eq!(
            texts("code CONTEXT_WINDOW_EXCEEDED"),
            ["CONTEXT_WINDOW_EXCEEDED"]
        );
        // Not salient: plain words, all caps, one capital, short dotted words, flags.
        assert_eq!(
            texts("Ok JSON CI The e.g. i.e. etc. --all-targets -D warnings cargo"),
            Vec::<&str>::new()
        );
        assert_eq!(
            texts("crate tidewater-core and ParseError-based"),
            ["ParseError"]
        );
        assert_eq!(
            texts("frac.parse::<u64>().ok().map(|d| d * 10).ok_or_else(invalid)"),
            ["frac.parse", "ok_or_else"]
        );
    }

    #[test]
    fn numbers_and_error_codes() {
        use TermClass::{ErrorCode, Number};
        assert_eq!(
            found("error[E0600]: -1250 cents, not -12.50; 2026-03-14"),
            [
                ("E0600", ErrorCode),
                ("1250", Number),
                ("1250 cents", TermClass::Measure),
                ("12.50", Number),
                ("2026", Number)
            ]
        );
        // Short numbers, hashes and uuids are not terms; times and counts with units are
        // measures (a fact of the fidelity measure, not a lost term).
        assert_eq!(
            found("in 1.87s, 12 tests, 8c1f0e6b2d93a4f7 c9e68608-2dff-44bc-a344-b01006272378 .5"),
            [
                ("1.87s", TermClass::Measure),
                ("12 tests", TermClass::Measure)
            ]
        );
        assert_eq!(texts("exit code: 101]"), ["101"]);
    }

    #[test]
    fn spans_of_chosen_terms() {
        let text = "parse_amount in src/a.rs calls parse_amount";
        let spans = spans_where(text, |t| t == "parse_amount");
        assert_eq!(spans, [0..12, 31..43]);
    }

    #[test]
    fn spans_point_into_the_text() {
        let text = "x src/a.rs:3 y 4096";
        for t in terms(text) {
            assert_eq!(&text[t.span.clone()], t.text);
        }
        assert_eq!(terms(text)[0].span, 2..10);
    }

    #[test]
    fn non_ascii_text_and_odd_bytes_never_panic() {
        let text = "é/ü::ß — 日本語 “parse_ämount” ::: /// ... -:- https:// http://é";
        for t in terms(text) {
            assert_eq!(&text[t.span.clone()], t.text);
        }
        assert_eq!(texts(text), ["parse_ämount"]);
        assert_eq!(texts("naïve_value"), ["naïve_value"]);
    }

    /// Every term the tokenizer finds without classifying each token, as a list to compare.
    fn classifying_every_token(text: &str) -> Vec<Term<'_>> {
        let mut out = Vec::new();
        for_each_term_with::<false>(text, |t| out.push(t));
        out
    }

    #[test]
    fn plain_words_are_the_ones_without_terms() {
        for word in ["parse", "JSON", "The", "Ok", "abc", "AbC", "ABCDEF", "xY"] {
            assert!(plain_word(word.as_bytes()), "{word}");
            assert!(classifying_every_token(word).is_empty(), "{word}");
        }
        for word in [
            "InvalidAmount",
            "parseAmount",
            "aBcd",
            "ABcd",
            "E0600",
            "a_b",
            "x.rs",
            "né",
        ] {
            assert!(!plain_word(word.as_bytes()), "{word}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The shortcut for plain words changes nothing: texts drawn from letters of both
        /// cases, digits, the token punctuation, spaces, a URL scheme and non-ASCII letters.
        #[test]
        fn skipping_plain_words_finds_the_same_terms(
            text in "((https?://)|[a-zA-Z]{1,9}|[A-Z][a-z]{2,6}[A-Z][a-z]{0,4}|[0-9]{1,5}|[_.:/~ -]|[éßж値]| ){0,40}"
        ) {
            proptest::prop_assert_eq!(terms(&text), classifying_every_token(&text));
        }

        /// The walk that reads a token's end and plainness at once agrees with the plain walk
        /// and with [`plain_word`], from every character of such texts that starts a token.
        #[test]
        fn the_one_walk_ends_tokens_where_the_plain_walk_does(
            text in "((https?://)|[a-zA-Z]{1,9}|[A-Z][a-z]{2,6}[A-Z][a-z]{0,4}|[0-9]{1,5}|[_.:/~ -]|[éßжαΩ値]| ){0,40}"
        ) {
            for (start, _) in text.char_indices() {
                let (end, plain) = token_end_and_plain(&text, start);
                proptest::prop_assert_eq!(end, token_end(&text, start));
                if end > start {
                    proptest::prop_assert_eq!(plain, plain_word(&text.as_bytes()[start..end]));
                }
            }
        }
    }

    #[test]
    fn terms_end_where_the_script_changes() {
        // CJK is written without spaces: a path or a name glued to it is a term of its own.
        assert_eq!(found("值src/index.ts"), [("src/index.ts", TermClass::Path)]);
        assert_eq!(
            texts("修改了src/index.ts中的parse_amount函数，错误码E0600和1250元"),
            ["src/index.ts", "parse_amount", "E0600", "1250"]
        );
        assert_eq!(texts("ファイルsrc/main.rsを開く"), ["src/main.rs"]);
        assert_eq!(texts("значениеparse_amount"), ["parse_amount"]);
        // Latin letters with diacritics stay in the word they belong to.
        assert_eq!(
            texts("crème_brûlée naïve_value"),
            ["crème_brûlée", "naïve_value"]
        );
        for text in ["值src/index.ts", "a值b", "値:/x/y値"] {
            for t in terms(text) {
                assert_eq!(&text[t.span.clone()], t.text);
            }
        }
    }
}
