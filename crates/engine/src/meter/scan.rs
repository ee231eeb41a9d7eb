//! A small forward scanner over JSON bytes for the meter's fast path: walks objects and
//! arrays, measures strings in UTF-16 units without decoding them, and skips everything else.
//! Text is classified 64 bytes at a time into bit masks ([`surface_scan::byte_masks`]), kept
//! while the cursor is in the block, so finding a string's end or a container's next bracket
//! is a shift and a bit count, and a string's length is two population counts per block.
//!
//! It reads text the store already validated (UTF-8, JSON); still, anything it does not
//! expect — a key or a type name with an escape, a repeated key, a malformed token — makes it
//! answer `None`, and the caller falls back to the tree-based reference. It never panics.

use surface_scan::byte_masks::{
    StringMasks, UnitMasks, skip_digits, string_end_mask, string_masks, structural_mask, unit_masks,
};

/// Nesting deeper than this is left to the reference (it has its own recursion limit).
const MAX_DEPTH: usize = 64;

/// A cursor over JSON bytes.
pub struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Strings, the bulk of the text, need only these masks; the structural mask is
    /// classified apart, for the blocks a container skip looks at.
    strings: BlockCache<StringMasks>,
    structural: BlockCache<u64>,
    /// Measuring masks, for blocks with bytes above 0x7F.
    units: BlockCache<UnitMasks>,
}

/// One 64-byte block's classification, kept while the cursor is in the block.
struct BlockCache<T> {
    /// The block classified (`usize::MAX`: none yet).
    block: usize,
    masks: T,
}

impl<T: Copy + Default> BlockCache<T> {
    fn new() -> Self {
        BlockCache {
            block: usize::MAX,
            masks: T::default(),
        }
    }

    /// The masks of block `block` of `bytes`, classified by `classify` the first time.
    #[inline(always)]
    fn get(&mut self, bytes: &[u8], block: usize, classify: fn(&[u8], usize) -> T) -> T {
        if block != self.block {
            self.masks = classify(bytes, block << 6);
            self.block = block;
        }
        self.masks
    }
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Scanner {
            bytes,
            at: 0,
            strings: BlockCache::new(),
            structural: BlockCache::new(),
            units: BlockCache::new(),
        }
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

    /// Consumes a string, returning its raw bytes between the quotes, its UTF-16 length and
    /// whether it has an escape.
    pub fn string(&mut self) -> Option<(&'a [u8], usize, bool)> {
        self.string_measured::<true>()
    }

    /// Consumes a string without measuring it.
    fn skip_string(&mut self) -> Option<()> {
        self.string_measured::<false>().map(|_| ())
    }

    /// Walks a string 64 bytes at a time: the block's special mask says where the next quote
    /// or backslash is, and (when `MEASURE`) its unit masks count the UTF-16 units before it.
    #[inline(always)]
    fn string_measured<const MEASURE: bool>(&mut self) -> Option<(&'a [u8], usize, bool)> {
        self.eat(b'"')?;
        let start = self.at;
        let mut at = start;
        let mut units = 0;
        let mut escaped = false;
        loop {
            let (block, offset) = (at >> 6, at & 63);
            let masks = self.strings.get(self.bytes, block, string_masks);
            let special = masks.special >> offset;
            let span = if special == 0 {
                64 - offset
            } else {
                special.trailing_zeros() as usize
            };
            if MEASURE && span > 0 {
                let range = (u64::MAX >> (64 - span)) << offset;
                units += if masks.high & range == 0 {
                    span
                } else {
                    self.units
                        .get(self.bytes, block, unit_masks)
                        .units(range, span)
                };
            }
            at += span;
            if special == 0 {
                if at >= self.bytes.len() {
                    return None;
                }
                continue;
            }
            // Padding past the end is never special, so `at` is inside the text.
            if self.bytes[at] == b'"' {
                self.at = at + 1;
                return Some((&self.bytes[start..at], units, escaped));
            }
            escaped = true;
            at += match self.bytes.get(at + 1)? {
                b'u' => 6,
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                _ => return None,
            };
            units += usize::from(MEASURE);
        }
    }

    /// Consumes a string without escapes and returns its bytes (keys, type names).
    pub fn plain_string(&mut self) -> Option<&'a [u8]> {
        let (raw, _, escaped) = self.string_measured::<false>()?;
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
        self.at = skip_digits(self.bytes, start);
        let digits = &self.bytes[start..self.at];
        if digits.is_empty() {
            return None;
        }
        // Overflow makes it another number (as `u64::from_str` would refuse it).
        let n = digits.iter().try_fold(0u64, |n, &d| {
            n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })?;
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
            b'"' => self.skip_string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    let (block, offset) = (self.at >> 6, self.at & 63);
                    let structural =
                        self.structural.get(self.bytes, block, structural_mask) >> offset;
                    if structural == 0 {
                        self.at = (block + 1) << 6;
                        if self.at >= self.bytes.len() {
                            return None;
                        }
                        continue;
                    }
                    self.at += structural.trailing_zeros() as usize;
                    match self.bytes[self.at] {
                        b'"' => self.skip_string()?,
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
    pub fn object(&mut self, member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        self.members(member)
    }

    /// Walks the rest of an object after a member's value (the cursor before its `,` or
    /// `}`), as [`Scanner::object`] does.
    pub fn object_rest(
        &mut self,
        member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>,
    ) -> Option<()> {
        match self.peek()? {
            b',' => {
                self.at += 1;
                self.members(member)
            }
            b'}' => {
                self.at += 1;
                Some(())
            }
            _ => None,
        }
    }

    /// Members from a key on, to the object's `}`.
    fn members(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
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

    /// The value of member `head.key` of the object at the cursor, read by `value`; `None`
    /// when the key is absent or repeated, or `value` or the walk fails. The whole object is
    /// walked.
    ///
    /// The harness writes its members in a fixed order with small values first (`{"type":
    /// "…","seq":1,"time":2,"data":…`, `{"turn":1,"step":2,"chunk":…`): when the object starts
    /// exactly as `head` says, those bytes are stepped over a word at a time, without masks or
    /// key matching; any other start takes the general walk.
    pub fn member<T>(
        &mut self,
        head: &Head,
        value: impl FnOnce(&mut Self) -> Option<T>,
    ) -> Option<T> {
        let key = head.key;
        if let Some(at) = head.skip(self.bytes, self.at) {
            self.at = at;
            let found = value(self)?;
            self.object_rest(|s, k| if k == key { None } else { s.skip() })?;
            return Some(found);
        }
        let mut value = Some(value);
        let mut found = None;
        self.object(|s, k| {
            if k == key {
                once(&mut found, (value.take()?)(s)?)
            } else {
                s.skip()
            }
        })?;
        found
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

/// How an object the harness wrote starts, up to the key whose value is wanted (see
/// [`Scanner::member`]): `{"k0":v0,"k1":v1,…,"key":` with no spaces, each `v` digits or a
/// string without escapes or control bytes.
#[derive(Clone, Copy, Debug)]
pub struct Head {
    /// `{"k0":`, `,"k1":`, …, `,"key":`.
    literals: &'static [Literal],
    /// The key whose value is wanted.
    key: &'static [u8],
}

impl Head {
    /// The head `{"before[0]":…,…,"key":` (its literals built at compile time).
    pub const fn new(literals: &'static [Literal], key: &'static [u8]) -> Head {
        Head { literals, key }
    }

    /// Where the wanted value starts when `bytes` from `at` begin as this head says.
    #[inline]
    fn skip(&self, bytes: &[u8], mut at: usize) -> Option<usize> {
        let (last, before) = self.literals.split_last()?;
        for literal in before {
            at = literal.after(bytes, at)?;
            at = plain_value_end(bytes, at)?;
        }
        last.after(bytes, at)
    }
}

/// The end of a value of digits, or of a string without escapes or control bytes, at `at`
/// (digits 8 at a time, a string's end by one 64-byte classification).
#[inline(always)]
fn plain_value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'0'..=b'9' => Some(skip_digits(bytes, at)),
        b'"' => {
            let start = at + 1;
            let mut block = start;
            loop {
                let ends = string_end_mask(bytes, block);
                if ends != 0 {
                    let end = block + ends.trailing_zeros() as usize;
                    return (bytes.get(end) == Some(&b'"')).then_some(end + 1);
                }
                block += 64;
                if block >= bytes.len() {
                    return None;
                }
            }
        }
        _ => None,
    }
}

/// A literal of up to 16 bytes, compared with one 16-byte load where the text allows it.
#[derive(Clone, Copy, Debug)]
pub struct Literal {
    text: &'static [u8],
    word: u128,
    mask: u128,
}

impl Literal {
    /// `text`, at most 16 bytes.
    pub const fn new(text: &'static [u8]) -> Literal {
        assert!(text.len() <= 16);
        let mut word = 0u128;
        let mut k = 0;
        while k < text.len() {
            word |= (text[k] as u128) << (8 * k);
            k += 1;
        }
        let mask = if text.len() == 16 {
            u128::MAX
        } else {
            (1u128 << (8 * text.len())) - 1
        };
        Literal { text, word, mask }
    }

    /// The position after the literal when `bytes` hold it at `at`.
    #[inline(always)]
    pub(crate) fn after(&self, bytes: &[u8], at: usize) -> Option<usize> {
        let end = at + self.text.len();
        let found = match bytes.get(at..at + 16) {
            Some(window) => {
                let window: [u8; 16] = window.try_into().ok()?;
                u128::from_le_bytes(window) & self.mask == self.word
            }
            None => bytes.get(at..end) == Some(self.text),
        };
        found.then_some(end)
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
    use proptest::prelude::*;

    proptest! {
        /// Any string, at any alignment, in any surroundings: its UTF-16 length as JavaScript
        /// counts it, and a skip lands just past it.
        #[test]
        fn measured_strings_equal_javascript_lengths(
            text in "(\\PC|[\"\\\\\n\t]|😀|é){0,200}",
            pad in 0usize..70,
        ) {
            let json = format!("{}[{},{{\"k\":[{}]}}]", " ".repeat(pad),
                serde_json::to_string(&text).unwrap(), serde_json::to_string(&text).unwrap());
            let mut s = Scanner::new(json.as_bytes());
            s.ws();
            s.eat(b'[').unwrap();
            let (_, units, _) = s.string().unwrap();
            prop_assert_eq!(units, text.encode_utf16().count());
            s.eat(b',').unwrap();
            s.skip().unwrap();
            prop_assert_eq!(s.peek(), Some(b']'));
        }
    }

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
