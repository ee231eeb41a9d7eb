//! Text helpers: cutting a text into streamed delta pieces the way a model streams tokens,
//! and stable UUID-like ids and tool call ids derived from a seed and a seq.

use super::mix;

/// Byte offsets where word tokens start: a token is leading whitespace plus a run of
/// non-whitespace (prose), so pieces keep their leading spaces like real deltas.
fn word_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let mut ws_start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            ws_start.get_or_insert(i);
        } else if let Some(s) = ws_start.take()
            && s > 0
        {
            starts.push(s);
        }
    }
    starts
}

/// Byte offsets where code tokens start: identifier runs, single punctuation characters,
/// and whitespace attached to the token after it (tool call arguments).
fn code_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        let word = c.is_alphanumeric() || c == '_';
        let continues = match prev {
            None => false,
            Some(p) if p.is_whitespace() => true,
            Some(p) => word && (p.is_alphanumeric() || p == '_'),
        };
        if !continues {
            starts.push(i);
        }
        prev = Some(c);
    }
    if starts.is_empty() {
        starts.push(0);
    }
    starts
}

/// Groups the tokens starting at `starts` into at most `n` pieces of nearly equal token
/// counts. The pieces concatenate to `text`.
fn group<'a>(text: &'a str, starts: &[usize], n: usize) -> Vec<&'a str> {
    let tokens = starts.len().max(1);
    let n = n.clamp(1, tokens);
    let mut pieces = Vec::with_capacity(n);
    for i in 0..n {
        let a = starts.get(i * tokens / n).copied().unwrap_or(0);
        let b = if i + 1 == n {
            text.len()
        } else {
            starts
                .get((i + 1) * tokens / n)
                .copied()
                .unwrap_or(text.len())
        };
        pieces.push(&text[a..b]);
    }
    pieces
}

/// Cuts prose into at most `n` streamed pieces at word boundaries.
pub fn prose_pieces(text: &str, n: usize) -> Vec<&str> {
    group(text, &word_starts(text), n)
}

/// Cuts prose into pieces of about `words` words each.
pub fn prose_pieces_by_words(text: &str, words: usize) -> Vec<&str> {
    let starts = word_starts(text);
    let n = starts.len().div_ceil(words.max(1));
    group(text, &starts, n)
}

/// Cuts JSON arguments into at most `n` streamed pieces at token boundaries.
pub fn code_pieces(text: &str, n: usize) -> Vec<&str> {
    group(text, &code_starts(text), n)
}

/// Cuts JSON arguments into pieces of about `tokens` code tokens each.
pub fn code_pieces_by_tokens(text: &str, tokens: usize) -> Vec<&str> {
    let starts = code_starts(text);
    let n = starts.len().div_ceil(tokens.max(1));
    group(text, &starts, n)
}

/// A UUID-v4-looking id derived from `seed` and `x`.
pub fn uuid(seed: u64, x: u64) -> String {
    let a = mix(seed ^ mix(x));
    let b = mix(a ^ 0x5851_F42D_4C95_7F2D);
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | ((b >> 48) & 0x3fff),
        b & 0xffff_ffff_ffff
    )
}

/// A DeepSeek-style tool call id (`call_00_` and 24 base-62 characters) derived from `seed`
/// and `x`.
pub fn call_id(seed: u64, x: u64) -> String {
    const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let base = mix(seed.rotate_left(17) ^ mix(x ^ 0xC2B2_AE3D_27D4_EB4F));
    let mut id = String::from("call_00_");
    for i in 0..24u64 {
        let h = mix(base.wrapping_add(i));
        id.push(ALPHABET[(h % 62) as usize] as char);
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_pieces_concatenate() {
        let text = "The test fails because  the parser\nrejects a leading minus.";
        for n in 1..12 {
            let pieces = prose_pieces(text, n);
            assert!(pieces.len() <= n);
            assert_eq!(pieces.concat(), text);
            assert!(pieces.iter().all(|p| !p.is_empty()));
        }
        assert_eq!(prose_pieces("a b c", 3), ["a", " b", " c"]);
    }

    #[test]
    fn code_pieces_concatenate() {
        let text = r#"{"command": "cargo test -p ledger", "description": "Run tests"}"#;
        for n in 1..40 {
            let pieces = code_pieces(text, n);
            assert_eq!(pieces.concat(), text);
            assert!(pieces.iter().all(|p| !p.is_empty()));
        }
        assert_eq!(
            code_pieces_by_tokens("{\"a\"}", 1),
            ["{", "\"", "a", "\"", "}"]
        );
    }

    #[test]
    fn ids_are_stable_and_distinct() {
        assert_eq!(uuid(1, 2), uuid(1, 2));
        assert_ne!(uuid(1, 2), uuid(1, 3));
        assert_eq!(uuid(7, 9).len(), 36);
        assert_eq!(call_id(1, 2).len(), 32);
        assert_ne!(call_id(1, 2), call_id(2, 2));
    }
}
