//! A small forward scanner over JSON bytes for the meter's fast path: walks objects and
//! arrays, measures strings in UTF-16 units without decoding them (memchr to the next quote
//! or backslash, then a vectorizable count of lead bytes), and skips everything else.
//!
//! It reads text the store already validated (UTF-8, JSON); still, anything it does not
//! expect — a key or a type name with an escape, a repeated key, a malformed token — makes it
//! answer `None`, and the caller falls back to the tree-based reference. It never panics.

use super::utf16::utf16_len_of_utf8;

/// Bytes checked at a time for a quote or a backslash inside a string.
const BLOCK: usize = 32;
/// Bytes of a string looked at one by one before the block scan.
const SHORT: usize = 16;

/// Nesting deeper than this is left to the reference (it has its own recursion limit).
const MAX_DEPTH: usize = 64;

/// A cursor over JSON bytes.
pub struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Scanner { bytes, at: 0 }
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next non-space byte, not consumed.
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.at += 1)
    }

    /// Consumes a string, returning its raw bytes between the quotes and its UTF-16 length.
    pub fn string(&mut self) -> Option<(&'a [u8], usize, bool)> {
        self.eat(b'"')?;
        let start = self.at;
        let bytes = self.bytes;
        let mut at = start;
        let mut units = 0;
        let mut escaped = false;
        // Most strings are short (keys, type names, words): look at their start first.
        let head = bytes.get(at..)?;
        let short = &head[..head.len().min(SHORT)];
        match short.iter().position(|&b| b == b'"' || b == b'\\') {
            Some(k) if short[k] == b'"' => {
                self.at = at + k + 1;
                return Some((&bytes[start..at + k], utf16_len_of_utf8(&short[..k]), false));
            }
            // An escape or no end within reach: the general scan below.
            Some(_) => {}
            None if short.len() == SHORT => {
                units = utf16_len_of_utf8(short);
                at += SHORT;
            }
            None => {}
        }
        loop {
            // Whole blocks without a quote or a backslash: count their lead bytes. The check
            // and the count have no early exit, so both vectorize.
            while let Some(block) = bytes.get(at..at + BLOCK) {
                let special = block
                    .iter()
                    .fold(false, |acc, &b| acc | (b == b'"') | (b == b'\\'));
                if special {
                    break;
                }
                let lead: u8 = block.iter().map(|&b| u8::from((b as i8) >= -64)).sum();
                let four: u8 = block.iter().map(|&b| u8::from(b >= 0xF0)).sum();
                units += usize::from(lead) + usize::from(four);
                at += BLOCK;
            }
            let rest = bytes.get(at..)?;
            let k = memchr::memchr2(b'"', b'\\', rest)?;
            units += utf16_len_of_utf8(&rest[..k]);
            at += k;
            if rest[k] == b'"' {
                self.at = at + 1;
                return Some((&bytes[start..at], units, escaped));
            }
            escaped = true;
            let width = match rest.get(k + 1)? {
                b'u' => 6,
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                _ => return None,
            };
            units += 1;
            at += width;
        }
    }

    /// Consumes a string without escapes and returns its bytes (keys, type names).
    pub fn plain_string(&mut self) -> Option<&'a [u8]> {
        let (raw, _, escaped) = self.string()?;
        (!escaped).then_some(raw)
    }

    /// Consumes a string and returns its UTF-16 length.
    pub fn string_len(&mut self) -> Option<usize> {
        self.string().map(|(_, units, _)| units)
    }

    /// Consumes a non-negative integer (digits only).
    pub fn unsigned(&mut self) -> Option<u64> {
        self.ws();
        let start = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        let digits = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
        let n = digits.parse().ok()?;
        // A fraction or an exponent makes it another number.
        match self.peek()? {
            b'.' | b'e' | b'E' => None,
            _ => Some(n),
        }
    }

    /// Consumes any value and returns its raw bytes.
    pub fn value(&mut self) -> Option<&'a [u8]> {
        self.ws();
        let start = self.at;
        self.skip()?;
        Some(&self.bytes[start..self.at])
    }

    /// Consumes any value. Containers are skipped by counting brackets outside strings (the
    /// text was validated when the log was read).
    pub fn skip(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    let rest = self.bytes.get(self.at..)?;
                    let k = rest
                        .iter()
                        .position(|&b| matches!(b, b'"' | b'{' | b'[' | b'}' | b']'))?;
                    self.at += k;
                    match rest[k] {
                        b'"' => {
                            self.string()?;
                        }
                        b'{' | b'[' => {
                            depth += 1;
                            self.at += 1;
                            if depth > MAX_DEPTH {
                                return None;
                            }
                        }
                        _ => {
                            depth = depth.checked_sub(1)?;
                            self.at += 1;
                            if depth == 0 {
                                return Some(());
                            }
                        }
                    }
                }
            }
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                let start = self.at;
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
                {
                    self.at += 1;
                }
                (self.at > start).then_some(())
            }
            _ => None,
        }
    }

    /// Walks an object: `member(scanner, key)` must consume each member's value. Keys with
    /// escapes make the walk fail.
    pub fn object(
        &mut self,
        mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            let key = self.plain_string()?;
            self.eat(b':')?;
            member(self, key)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Walks an array: `item(scanner)` must consume each item.
    pub fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.peek()? == b']' {
            self.at += 1;
            return Some(());
        }
        loop {
            item(self)?;
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The bytes from the next non-space byte to the end.
    pub fn rest(&mut self) -> &'a [u8] {
        self.ws();
        self.bytes.get(self.at..).unwrap_or(&[])
    }

    /// Moves the cursor `n` bytes on (past a value the caller recognised in [`Self::rest`]).
    pub fn advance(&mut self, n: usize) {
        self.at = (self.at + n).min(self.bytes.len());
    }

    /// Runs `f` and returns what it returned with the bytes it consumed (leading spaces
    /// excluded).
    pub fn consumed<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<(T, &'a [u8])> {
        self.ws();
        let start = self.at;
        let value = f(self)?;
        Some((value, &self.bytes[start..self.at]))
    }

    /// Runs `f`; when it fails, puts the cursor back where it was.
    pub fn attempt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let save = self.at;
        let result = f(self);
        if result.is_none() {
            self.at = save;
        }
        result
    }

    /// True when the next value is `null` (not consumed).
    pub fn at_null(&mut self) -> bool {
        self.peek() == Some(b'n')
    }
}

/// Sets `slot` once; a second time means a repeated key, which fails the walk (JSON parsers
/// keep the last value, the fast path does not try to).
pub fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_measured_in_utf16_units() {
        let mut s = Scanner::new(r#" "a\n\u00e9😀\"" "#.as_bytes());
        assert_eq!(s.string_len(), Some(1 + 1 + 1 + 2 + 1));
        assert_eq!(Scanner::new(br#""unterminated"#).string_len(), None);
        assert_eq!(Scanner::new(br#""te\u0078t""#).plain_string(), None);
    }

    #[test]
    fn skips_any_value() {
        let text = br#"{"a":[1,-2.5e3,true,null,{"b":"x}\"]"},[]],"c":{}} tail"#;
        let mut s = Scanner::new(text);
        let raw = s.value().unwrap();
        assert_eq!(raw, &text[..text.len() - 5]);
        assert_eq!(Scanner::new(b"{").skip(), None);
        assert_eq!(Scanner::new(b"]").skip(), None);
    }

    #[test]
    fn walks_objects_and_arrays() {
        let mut keys = Vec::new();
        let mut s = Scanner::new(br#"{"x": [1, 2], "y": "z"}"#);
        s.object(|s, k| {
            keys.push(k.to_vec());
            s.skip()
        })
        .unwrap();
        assert_eq!(keys, [b"x".to_vec(), b"y".to_vec()]);
        let mut n = 0;
        Scanner::new(b"[ 7 , 8 ]")
            .array(|s| {
                n += s.unsigned()?;
                Some(())
            })
            .unwrap();
        assert_eq!(n, 15);
        assert_eq!(Scanner::new(b"1.5").unsigned(), None);
    }
}
