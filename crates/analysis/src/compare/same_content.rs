//! Whether two events say the same thing (docs/compare.md): their JSON compared as values with
//! the keys that differ between any two runs left out — `seq`, `time`, `sourceEventSeqs` and
//! the ids (`id`, `toolCallId`, `compactionId`, `requestId`, and the three other id keys the
//! harness writes: `callId`, `commandId`, `sourceCommandId`) — wherever they occur.
//!
//! Two steps, the second only when the first cannot tell: a walk over both texts' JSON tokens
//! (keys, scalars as written, brackets; commas, colons and white space skipped) that skips the
//! left-out keys with their values — equal tokens are equal values, with no tree built, so a
//! long shared prefix costs a pass over its bytes —, then, when the tokens differ (keys in
//! another order, `1.0` against `1`, another escape of the same character), the values
//! themselves, which also name the first path where they differ.

use serde_json::Value;

use super::upgrade::upgraded;

/// The keys left out of the comparison, wherever they occur.
pub const LEFT_OUT: [&str; 10] = [
    "seq",
    "time",
    "sourceEventSeqs",
    "id",
    "toolCallId",
    "compactionId",
    "requestId",
    "callId",
    "commandId",
    "sourceCommandId",
];

/// Which keys are left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keys {
    /// [`LEFT_OUT`], for events.
    Events,
    /// [`LEFT_OUT`] and `dt` (the members' times), for the `data` of packed chunk rows.
    Rows,
}

fn left_out(key: &[u8], keys: Keys) -> bool {
    LEFT_OUT.iter().any(|k| k.as_bytes() == key) || (keys == Keys::Rows && key == b"dt")
}

/// The texts of two events say the same thing (see the module documentation). A text that
/// is not JSON equals only the same bytes.
pub fn same_content(a: &[u8], b: &[u8]) -> bool {
    same_leaving(a, b, Keys::Events)
}

/// The `data` of two packed chunk rows give the same members, times apart.
pub fn same_row_content(a: &[u8], b: &[u8]) -> bool {
    same_leaving(a, b, Keys::Rows)
}

fn same_leaving(a: &[u8], b: &[u8], keys: Keys) -> bool {
    if a == b {
        return true;
    }
    match same_tokens(a, b, keys) {
        Some(true) => true,
        _ => match (parse(a), parse(b)) {
            (Some(x), Some(y)) if keys == Keys::Events => first_difference(&x, &y).is_none(),
            (Some(x), Some(y)) => !differs(&x, &y, keys, &mut Vec::new()),
            _ => false,
        },
    }
}

fn parse(text: &[u8]) -> Option<Value> {
    serde_json::from_slice(text).ok()
}

/// The path of the first difference between two events' values (`data.message.content[0].text`;
/// empty for the values themselves), left-out keys skipped and older shapes read as HEAD reads
/// them ([`upgraded`]); `None` when they are equal.
pub fn first_difference(a: &Value, b: &Value) -> Option<String> {
    let (new_a, new_b) = (upgraded(a), upgraded(b));
    let (a, b) = (new_a.as_ref().unwrap_or(a), new_b.as_ref().unwrap_or(b));
    let mut path = Vec::new();
    if differs(a, b, Keys::Events, &mut path) {
        Some(path.concat())
    } else {
        None
    }
}

fn differs(a: &Value, b: &Value, keys: Keys, path: &mut Vec<String>) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let kept = |m: &serde_json::Map<String, Value>| {
                m.keys().filter(|k| !left_out(k.as_bytes(), keys)).count()
            };
            for (k, v) in x.iter().filter(|(k, _)| !left_out(k.as_bytes(), keys)) {
                let dot = if path.is_empty() { "" } else { "." };
                path.push(format!("{dot}{k}"));
                match y.get(k) {
                    Some(w) if !differs(v, w, keys, path) => {}
                    _ => return true,
                }
                path.pop();
            }
            if kept(x) != kept(y) {
                // A key only B has: name the first.
                if let Some(k) = y
                    .keys()
                    .find(|k| !left_out(k.as_bytes(), keys) && !x.contains_key(*k))
                {
                    let dot = if path.is_empty() { "" } else { "." };
                    path.push(format!("{dot}{k}"));
                }
                return true;
            }
            false
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                path.push(format!("[{i}]"));
                if differs(v, w, keys, path) {
                    return true;
                }
                path.pop();
            }
            if x.len() != y.len() {
                path.push(format!("[{}]", x.len().min(y.len())));
                return true;
            }
            false
        }
        (Value::Number(x), Value::Number(y)) => !same_number(x, y),
        _ => a != b,
    }
}

/// Numbers compare as the harness's JavaScript reads them: `1.0` is `1`; integers exactly.
fn same_number(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    if let (Some(i), Some(j)) = (x.as_i64(), y.as_i64()) {
        return i == j;
    }
    if let (Some(i), Some(j)) = (x.as_u64(), y.as_u64()) {
        return i == j;
    }
    x.as_f64() == y.as_f64()
}

/// `Some(true)` when both texts give the same tokens once left-out keys are skipped,
/// `Some(false)` when they do not, `None` when a text is not the JSON the walk expects.
fn same_tokens(a: &[u8], b: &[u8], keys: Keys) -> Option<bool> {
    let (mut x, mut y) = (Tokens::new(a, keys), Tokens::new(b, keys));
    loop {
        let (s, t) = (x.next()?, y.next()?);
        if s != t {
            return Some(false);
        }
        if s == Token::End {
            return Some(true);
        }
    }
}

/// A significant JSON token: the bytes of a key or scalar as written, or a bracket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token<'a> {
    Open(u8),
    Close(u8),
    Key(&'a [u8]),
    Scalar(&'a [u8]),
    End,
}

/// The tokens of one JSON text, left-out keys and their values skipped.
struct Tokens<'a> {
    text: &'a [u8],
    /// The keys left out.
    keys: Keys,
    at: usize,
    /// For each open bracket, whether it is an object (`true`) and, then, whether a key is
    /// due next.
    stack: Vec<(bool, bool)>,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a [u8], keys: Keys) -> Self {
        Tokens {
            text,
            keys,
            at: 0,
            stack: Vec::new(),
        }
    }

    fn skip_blank(&mut self) {
        while let Some(&c) = self.text.get(self.at) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b',' | b':') {
                self.at += 1;
            } else {
                break;
            }
        }
    }

    /// The string starting at `self.at` (its opening quote), quotes included.
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        let mut i = start + 1;
        loop {
            i += memchr::memchr2(b'"', b'\\', self.text.get(i..)?)?;
            match self.text[i] {
                b'"' => break,
                _ => i += 2,
            }
        }
        self.at = i + 1;
        self.text.get(start..i + 1)
    }

    /// A number or literal starting at `self.at`.
    fn bare(&mut self) -> Option<&'a [u8]> {
        let start = self.at;
        while let Some(&c) = self.text.get(self.at) {
            if matches!(
                c,
                b',' | b']' | b'}' | b':' | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'[' | b'{'
            ) {
                break;
            }
            self.at += 1;
        }
        (self.at > start).then(|| &self.text[start..self.at])
    }

    /// Skips one whole value starting at `self.at`.
    fn skip_value(&mut self) -> Option<()> {
        self.skip_blank();
        match *self.text.get(self.at)? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *self.text.get(self.at)? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => self.bare().map(|_| ()),
        }
    }

    fn next(&mut self) -> Option<Token<'a>> {
        loop {
            self.skip_blank();
            let Some(&c) = self.text.get(self.at) else {
                return self.stack.is_empty().then_some(Token::End);
            };
            let key_due = matches!(self.stack.last(), Some((true, true)));
            if key_due && c == b'"' {
                let key = self.string()?;
                if left_out(&key[1..key.len() - 1], self.keys) {
                    self.skip_value()?;
                    continue;
                }
                if let Some(top) = self.stack.last_mut() {
                    top.1 = false;
                }
                return Some(Token::Key(key));
            }
            // A value (or a closing bracket): in an object, a key is due after it.
            if let Some(top) = self.stack.last_mut()
                && top.0
            {
                top.1 = true;
            }
            return match c {
                b'{' | b'[' => {
                    self.at += 1;
                    self.stack.push((c == b'{', c == b'{'));
                    Some(Token::Open(c))
                }
                b'}' | b']' => {
                    self.at += 1;
                    self.stack.pop()?;
                    if let Some(top) = self.stack.last_mut()
                        && top.0
                    {
                        top.1 = true;
                    }
                    Some(Token::Close(c))
                }
                b'"' => self.string().map(Token::Scalar),
                _ => self.bare().map(Token::Scalar),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same(a: &str, b: &str) -> bool {
        same_content(a.as_bytes(), b.as_bytes())
    }

    #[test]
    fn seq_time_ids_and_provenance_are_left_out_at_every_depth() {
        assert!(same(
            r#"{"type":"tool/result","seq":5,"time":1,"data":{"message":{"id":"m1","content":[{"type":"tool-result","toolCallId":"a","content":[]}],"source":{"callId":"a"}}},"sourceEventSeqs":[4]}"#,
            r#"{"type":"tool/result","seq":9,"time":7,"data":{"message":{"id":"m2","content":[{"type":"tool-result","toolCallId":"b","content":[]}],"source":{"callId":"b"}}},"sourceEventSeqs":[8]}"#,
        ));
        // A left-out key present on one side only changes nothing.
        assert!(same(
            r#"{"type":"x","seq":1,"data":{"compactionId":"c","n":1}}"#,
            r#"{"type":"x","data":{"n":1},"seq":1}"#
        ));
    }

    #[test]
    fn any_other_difference_is_one() {
        assert!(!same(
            r#"{"type":"x","seq":1,"data":{"n":1}}"#,
            r#"{"type":"x","seq":1,"data":{"n":2}}"#
        ));
        assert!(!same(
            r#"{"type":"x","data":{"n":[1,2]}}"#,
            r#"{"type":"x","data":{"n":[1,2,3]}}"#
        ));
        assert!(!same(
            r#"{"type":"x","data":{"n":1}}"#,
            r#"{"type":"x","data":{"n":1,"m":null}}"#
        ));
        assert!(!same(
            r#"{"type":"x","surfaceOp":"append"}"#,
            r#"{"type":"x"}"#
        ));
        // Strings that only look like keys or brackets are values.
        assert!(!same(
            r#"{"a":"{\"seq\":1}","b":"]"}"#,
            r#"{"a":"{\"seq\":2}","b":"]"}"#
        ));
    }

    #[test]
    fn values_decide_what_tokens_cannot() {
        // Keys in another order, a number written another way, another escape.
        assert!(same(
            r#"{"a":1,"b":[true,null]}"#,
            r#"{"b":[true,null],"a":1}"#
        ));
        assert!(same(r#"{"t":"é"}"#, r#"{"t":"\u00e9"}"#));
        assert!(same(r#"{"n":1.0}"#, r#"{"n":1}"#));
        assert!(!same(r#"{"n":1.5}"#, r#"{"n":1}"#));
    }

    #[test]
    fn the_tokens_never_call_different_texts_equal() {
        // Differences the token walk must see, whatever the spacing.
        for (a, b) in [
            (r#"{"a":[1,2]}"#, r#"{"a":[12]}"#),
            (r#"{"a":{"b":1}}"#, r#"{"a":{"b":1},"c":2}"#),
            (r#"[1,[2]]"#, r#"[[1],2]"#),
            (r#"{"a":"x","b":"y"}"#, r#"{"a":"x" , "b" : "z"}"#),
        ] {
            assert_eq!(
                same_tokens(a.as_bytes(), b.as_bytes(), Keys::Events),
                Some(false),
                "{a} {b}"
            );
        }
        assert_eq!(
            same_tokens(br#"{"a" : [1, 2] }"#, br#"{"a":[1,2]}"#, Keys::Events),
            Some(true)
        );
        // Not JSON: nothing decided by the tokens.
        assert_eq!(same_tokens(b"{\"a\":\"", b"{\"a\":\"", Keys::Events), None);
        assert!(!same_content(b"{\"a\":\"x", b"{\"a\":\"y"));
    }

    #[test]
    fn rows_also_leave_out_their_members_times() {
        let a = br#"{"turn":1,"step":2,"index":0,"dt":[1,1],"texts":["a","b"]}"#;
        let b = br#"{"turn":1,"step":2,"index":0,"dt":[5,9],"texts":["a","b"]}"#;
        let c = br#"{"turn":1,"step":2,"index":0,"dt":[1,1],"texts":["a","c"]}"#;
        assert!(same_row_content(a, b));
        assert!(!same_row_content(a, c));
        assert!(!same_content(a, b));
    }

    #[test]
    fn the_first_difference_names_its_path() {
        let a = json!({"type": "x", "seq": 1, "data": {"m": {"c": [{"t": "a"}, {"t": "b"}]}}});
        let b = json!({"type": "x", "seq": 2, "data": {"m": {"c": [{"t": "a"}, {"t": "c"}]}}});
        assert_eq!(first_difference(&a, &b).as_deref(), Some("data.m.c[1].t"));
        let c = json!({"type": "x", "data": {"m": {"c": [{"t": "a"}]}}});
        assert_eq!(first_difference(&a, &c).as_deref(), Some("data.m.c[1]"));
        let d = json!({"type": "x", "data": {"m": {"c": [{"t": "a"}, {"t": "b"}]}, "n": 1}});
        assert_eq!(first_difference(&a, &d).as_deref(), Some("data.n"));
        assert_eq!(first_difference(&a, &a), None);
        assert_eq!(first_difference(&json!(1), &json!(2)).as_deref(), Some(""));
    }
}
