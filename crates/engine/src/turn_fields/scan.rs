//! The quickest way to the turn pass's fields: one walk over the event's JSON text with the
//! meter's byte scanner, which skips strings in blocks and does not validate again (the store
//! validated every line when it read the log).
//!
//! It reads only the usual shapes, exactly as the serde fast path in [`super`]
//! does: `data` an object; `data.message`, `source` and `error` objects; `content` an array of
//! objects; every string field read a string or `null`. Anything else — another shape, a key
//! or a string with an escape, a key given twice — answers `None`, and the serde paths read
//! the event instead (and decide what such an event means). The tests hold the three paths
//! equal.

use std::borrow::Cow;

use super::parts::{Ids, Parts, Source, UsualData, UsualMessage};
use crate::meter::scan::{Scanner, once};

/// The fields of a well-formed event, or `None` to let the serde paths read it.
pub(super) fn scanned_parts(event_json: &[u8]) -> Option<Parts<'_>> {
    let mut s = Scanner::new(event_json);
    let mut data = None;
    s.object(|s, key| match key {
        b"data" => once(&mut data, read_data(s)?),
        _ => s.skip(),
    })?;
    if !s.rest().is_empty() {
        return None;
    }
    Some(data?.into_parts())
}

fn read_data<'a>(s: &mut Scanner<'a>) -> Option<UsualData<'a>> {
    let mut d = UsualData::default();
    s.object(|s, key| match key {
        b"turn" => once(&mut d.turn, raw(s)?),
        b"step" => once(&mut d.step, raw(s)?),
        b"callId" => once(&mut d.call_id, raw(s)?),
        b"content" => once(&mut d.content, read_blocks(s)?),
        b"message" => once(&mut d.message, read_message(s)?),
        b"error" => once(&mut d.error, read_ids(s)?),
        b"trigger" => once(&mut d.trigger, raw(s)?),
        b"role" => once(&mut d.role, raw(s)?),
        b"id" => once(&mut d.id, raw(s)?),
        b"source" => once(&mut d.source, read_source(s)?),
        b"provenance" => once(&mut d.provenance, raw(s)?),
        _ => s.skip(),
    })?;
    Some(d)
}

fn read_message<'a>(s: &mut Scanner<'a>) -> Option<UsualMessage<'a>> {
    let mut m = UsualMessage::default();
    s.object(|s, key| match key {
        b"role" => once(&mut m.role, raw(s)?),
        b"id" => once(&mut m.id, raw(s)?),
        b"source" => once(&mut m.source, read_source(s)?),
        b"content" => once(&mut m.content, read_blocks(s)?),
        _ => s.skip(),
    })?;
    Some(m)
}

fn read_blocks<'a>(s: &mut Scanner<'a>) -> Option<Vec<Ids<'a>>> {
    let mut blocks = Vec::new();
    s.array(|s| {
        blocks.push(read_ids(s)?);
        Some(())
    })?;
    Some(blocks)
}

fn read_ids<'a>(s: &mut Scanner<'a>) -> Option<Ids<'a>> {
    // Each slot is `Some(None)` once a `null` was read: a key given twice fails either way.
    let (mut kind, mut id, mut tool_call_id, mut code) = (None, None, None, None);
    s.object(|s, key| match key {
        b"type" => once(&mut kind, string_or_null(s)?),
        b"id" => once(&mut id, string_or_null(s)?),
        b"toolCallId" => once(&mut tool_call_id, string_or_null(s)?),
        b"code" => once(&mut code, string_or_null(s)?),
        _ => s.skip(),
    })?;
    Some(Ids {
        kind: kind.flatten(),
        id: id.flatten(),
        tool_call_id: tool_call_id.flatten(),
        code: code.flatten(),
    })
}

fn read_source<'a>(s: &mut Scanner<'a>) -> Option<Source<'a>> {
    let (mut kind, mut call_id) = (None, None);
    s.object(|s, key| match key {
        b"kind" => once(&mut kind, string_or_null(s)?),
        b"callId" => once(&mut call_id, string_or_null(s)?),
        _ => s.skip(),
    })?;
    Some(Source {
        kind: kind.flatten(),
        call_id: call_id.flatten(),
    })
}

/// Any value, as its JSON text.
fn raw<'a>(s: &mut Scanner<'a>) -> Option<&'a str> {
    std::str::from_utf8(s.value()?).ok()
}

/// A string without escapes (`Some(Some(text))`) or `null` (`Some(None)`); anything else
/// fails the walk.
fn string_or_null<'a>(s: &mut Scanner<'a>) -> Option<Option<Cow<'a, str>>> {
    if s.at_null() {
        s.skip()?;
        return Some(None);
    }
    let text = s.plain_string()?;
    Some(Some(Cow::Borrowed(std::str::from_utf8(text).ok()?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn_fields::{TurnFields, UNUSUAL_SHAPES, USUAL_SHAPES, build, lenient_parts};

    fn reference(text: &str) -> TurnFields {
        build(lenient_parts(text))
    }

    fn scanned(text: &str) -> Option<TurnFields> {
        scanned_parts(text.as_bytes()).map(build)
    }

    #[test]
    fn usual_shapes_read_as_the_serde_paths_read_them() {
        let more = [
            r#" { "seq" : 4 , "data" : { "turn" : 12 , "content" : [ { "type" : "text" , "text" : "a \" quote } ] and \\ more" } ] } , "seq" : 5 } "#,
            r#"{"data":{"message":{"content":[{"type":"text","text":"x","id":null,"code":null}]},"content":[{"type":"tool-call","id":"ignored"}]}}"#,
            r#"{"data":{"message":{"role":"user"},"content":[{"type":"tool-call","id":"from-data"}]}}"#,
            r#"{"data":{"turn":-1,"step":1.5,"id":"é😀","role":true,"source":{"kind":null,"callId":"c","extra":[1,{"a":"}"}]}}}"#,
            r#"{"data":{}}"#,
        ];
        for c in USUAL_SHAPES.iter().chain(&more) {
            assert_eq!(scanned(c).as_ref(), Some(&reference(c)), "{c}");
        }
    }

    #[test]
    fn other_shapes_are_left_to_the_serde_paths() {
        let more = [
            // Escapes in keys or in read strings, keys given twice.
            r#"{"d\u0061ta":{"turn":1}}"#,
            r#"{"data":{"content":[{"type":"tool\u002dcall","id":"k"}]}}"#,
            r#"{"data":{"turn":1,"turn":2}}"#,
            r#"{"data":{"turn":1},"data":{"turn":2}}"#,
            r#"{"data":{"content":[{"type":"text","type":null}]}}"#,
            r#"{"data":{"error":{"code":null,"code":"X"}}}"#,
            "not json",
        ];
        for c in UNUSUAL_SHAPES.iter().chain(&more) {
            assert!(scanned(c).is_none(), "{c}");
        }
    }

    /// Every event of every upstream fixture: the scan reads what the lenient path reads, and
    /// reads nearly all of them.
    #[test]
    fn upstream_events_read_the_same() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/upstream");
        let (mut events, mut scanned_events) = (0, 0);
        let eras = std::fs::read_dir(root).unwrap().map(|e| e.unwrap().path());
        for era in eras.filter(|p| p.is_dir()) {
            for file in std::fs::read_dir(era).unwrap() {
                let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
                for line in text.lines().filter(|l| l.contains("\"data\"")) {
                    events += 1;
                    if let Some(fields) = scanned(line) {
                        scanned_events += 1;
                        assert_eq!(fields, reference(line), "{line}");
                    }
                }
            }
        }
        assert!(
            scanned_events * 10 >= events * 9,
            "{scanned_events} of {events}"
        );
    }
}
