//! The call a `tool/result` answers, read without its content: a forward scan of the event
//! ([`surface_engine::meter::scan::Scanner`], which steps over the result's text 64 bytes at a time)
//! where the event has the usual shape, the borrowed serde parse where it does not, and
//! [`node_text`] where that fails — each answering exactly as the next would.

use std::borrow::Cow;

use serde::Deserialize;

use super::text::{Source, node_text};
use surface_engine::meter::scan::{Scanner, once};
use surface_engine::{EventIdx, EventLog};

/// The call a `tool/result` answers, as [`node_text`] reads it (`message.source.callId`, else
/// `data.callId`, else the first content block's `toolCallId`), without reading its text: the
/// result's content is skipped, not copied (for a pass that needs only the call).
pub fn answered_call(log: &EventLog, idx: EventIdx) -> Option<String> {
    // The scan skips values by their brackets and quotes: it is exact on text the store
    // vouched for as plain JSON (nothing a `Value` parse refuses), and only tried there.
    let plain = log.event(idx).is_plain();
    let read = log.with_event_json(idx, |json| {
        if plain && let Some(call) = scanned_call(json) {
            return Some(call.map(str::to_string));
        }
        parsed_call(json)
    });
    read.unwrap_or_else(|| node_text(log, idx).call_id)
}

/// The borrowed serde parse: `None` when the event does not parse as the shape it expects.
fn parsed_call(json: &str) -> Option<Option<String>> {
    match serde_json::from_str::<CallEvent<'_>>(json) {
        Ok(CallEvent { data: Some(data) }) => {
            let (inner_first, source) = match data.message {
                Some(m) => (m.content, m.source.and_then(|s| s.call_id)),
                None => (None, None),
            };
            let first = inner_first.or(data.content).and_then(|f| f.0);
            Some(source.or(data.call_id).or(first).map(Cow::into_owned))
        }
        Ok(CallEvent { data: None }) => Some(None),
        Err(_) => None,
    }
}

#[derive(Deserialize)]
struct CallEvent<'a> {
    #[serde(borrow)]
    data: Option<CallData<'a>>,
}

#[derive(Deserialize)]
struct CallData<'a> {
    #[serde(borrow)]
    content: Option<FirstBlock<'a>>,
    #[serde(borrow)]
    message: Option<CallInner<'a>>,
    #[serde(rename = "callId", borrow)]
    call_id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct CallInner<'a> {
    #[serde(borrow)]
    content: Option<FirstBlock<'a>>,
    #[serde(borrow)]
    source: Option<Source<'a>>,
}

#[derive(Deserialize)]
struct IdBlock<'a> {
    #[serde(rename = "toolCallId", borrow)]
    tool_call_id: Option<Cow<'a, str>>,
}

/// The `toolCallId` of a content array's first block; the other blocks are skipped.
struct FirstBlock<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for FirstBlock<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = FirstBlock<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of content blocks")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let first = seq
                    .next_element::<IdBlock<'a>>()?
                    .and_then(|b| b.tool_call_id);
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(FirstBlock(first))
            }
        }
        d.deserialize_seq(Visit(std::marker::PhantomData))
    }
}

// --- The scan -------------------------------------------------------------------------
//
// Each reader answers `None` ("not sure: ask the parse") for anything the parse might read
// differently: a key or an id with an escape, a repeated key the parse refuses, a value of
// another type, trailing text. A member given as `null` reads as an absent one, as serde's
// `Option` reads it.

/// What the scan found: `Some(call)` exactly where [`parsed_call`] gives `Some(call)`.
fn scanned_call(json: &str) -> Option<Option<&str>> {
    let mut s = Scanner::new(json.as_bytes());
    let mut data = None;
    s.object(|s, key| match key {
        b"data" => once(&mut data, or_null(s, call_data)?),
        _ => s.skip(),
    })?;
    if !s.rest().is_empty() {
        return None;
    }
    let Some(Some(data)) = data else {
        return Some(None);
    };
    let first = data.inner_first.or(data.content).flatten();
    Some(data.source.or(data.call_id).or(first))
}

/// The members of `data` the call is read from; `None` in a field for absent or `null`.
struct ScannedData<'a> {
    /// `data.content`: `Some(first block's id)` when it is an array.
    content: Option<Option<&'a str>>,
    /// `data.message.content`, likewise.
    inner_first: Option<Option<&'a str>>,
    /// `data.message.source.callId`.
    source: Option<&'a str>,
    /// `data.callId`.
    call_id: Option<&'a str>,
}

fn call_data<'a>(s: &mut Scanner<'a>) -> Option<ScannedData<'a>> {
    let (mut content, mut message, mut call_id) = (None, None, None);
    s.object(|s, key| match key {
        b"content" => once(&mut content, or_null(s, first_block)?),
        b"message" => once(&mut message, or_null(s, call_inner)?),
        b"callId" => once(&mut call_id, or_null(s, id)?),
        _ => s.skip(),
    })?;
    let (inner_first, source) = message.flatten().unwrap_or((None, None));
    Some(ScannedData {
        content: content.flatten(),
        inner_first,
        source,
        call_id: call_id.flatten(),
    })
}

/// `data.message`: its content's first id and its source's call id.
type ScannedInner<'a> = (Option<Option<&'a str>>, Option<&'a str>);

fn call_inner<'a>(s: &mut Scanner<'a>) -> Option<ScannedInner<'a>> {
    let (mut content, mut source) = (None, None);
    s.object(|s, key| match key {
        b"content" => once(&mut content, or_null(s, first_block)?),
        b"source" => once(&mut source, or_null(s, source_call)?),
        _ => s.skip(),
    })?;
    Some((content.flatten(), source.flatten().flatten()))
}

fn source_call<'a>(s: &mut Scanner<'a>) -> Option<Option<&'a str>> {
    id_member(s, b"callId")
}

/// An object's member `key` as an id (`None` when absent or `null`), the others skipped.
fn id_member<'a>(s: &mut Scanner<'a>, key: &[u8]) -> Option<Option<&'a str>> {
    let mut found = None;
    s.object(|s, k| {
        if k == key {
            once(&mut found, or_null(s, id)?)
        } else {
            s.skip()
        }
    })?;
    Some(found.flatten())
}

/// A content array: the first block's `toolCallId` (the first block must be an object).
fn first_block<'a>(s: &mut Scanner<'a>) -> Option<Option<&'a str>> {
    let mut first: Option<Option<&'a str>> = None;
    s.array(|s| {
        if first.is_some() {
            return s.skip();
        }
        first = Some(id_member(s, b"toolCallId")?);
        Some(())
    })?;
    Some(first.flatten())
}

/// A string without escapes.
fn id<'a>(s: &mut Scanner<'a>) -> Option<&'a str> {
    std::str::from_utf8(s.plain_string()?).ok()
}

/// `read`'s value, or `Some(None)` for a `null`.
fn or_null<'a, T>(
    s: &mut Scanner<'a>,
    read: impl FnOnce(&mut Scanner<'a>) -> Option<T>,
) -> Option<Option<T>> {
    if s.at_null() {
        s.skip()?;
        return Some(None);
    }
    read(s).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn both(json: &str) -> (Option<Option<String>>, Option<Option<String>>) {
        let scanned = scanned_call(json).map(|c| c.map(str::to_string));
        (scanned, parsed_call(json))
    }

    /// Wherever the scan answers, it answers as the parse does.
    fn agrees(json: &str) -> Option<Option<String>> {
        let (scanned, parsed) = both(json);
        if scanned.is_some() {
            assert_eq!(scanned, parsed, "{json}");
        }
        scanned
    }

    #[test]
    fn the_harness_shape_is_scanned() {
        let json = r#"{"type":"tool/result","seq":54,"time":1,"data":{"turn":1,"step":1,"message":{"source":{"kind":"tool","callId":"call_a"},"content":[{"type":"tool-result","toolCallId":"call_b","content":[{"type":"text","text":"x \" } ] {"}]}]}}}"#;
        assert_eq!(agrees(json), Some(Some("call_a".into())));
    }

    #[test]
    fn the_call_is_taken_in_the_parses_order() {
        let cases = [
            (
                r#"{"data":{"callId":"c","content":[{"toolCallId":"b"}]}}"#,
                Some("c"),
            ),
            (
                r#"{"data":{"content":[{"toolCallId":"b"},{"toolCallId":"z"}]}}"#,
                Some("b"),
            ),
            // The message's own content wins over the data's, even without an id.
            (
                r#"{"data":{"content":[{"toolCallId":"b"}],"message":{"content":[]}}}"#,
                None,
            ),
            (
                r#"{"data":{"content":[{"toolCallId":"b"}],"message":{"content":null}}}"#,
                Some("b"),
            ),
            (
                r#"{"data":{"message":{"source":null,"content":[{"toolCallId":"m"}]}}}"#,
                Some("m"),
            ),
            (
                r#"{"data":{"message":{"source":{"callId":null}},"callId":"d"}}"#,
                Some("d"),
            ),
            (r#"{"data":{"message":null,"callId":"d"}}"#, Some("d")),
            (r#"{"data":null}"#, None),
            (r#"{"type":"tool/result"}"#, None),
            (r#" { "data" : { "callId" : "s" } } "#, Some("s")),
        ];
        for (json, call) in cases {
            assert_eq!(agrees(json), Some(call.map(str::to_string)), "{json}");
        }
    }

    #[test]
    fn shapes_the_parse_reads_otherwise_are_left_to_it() {
        for json in [
            r#"{"data":{"callId":"a","callId":"b"}}"#,
            r#"{"data":{"callId":1}}"#,
            r#"{"data":{"callId":"a\u0062"}}"#,
            r#"{"d\u0061ta":{"callId":"a"}}"#,
            r#"{"data":{"content":["x"]}}"#,
            r#"{"data":{"content":{"toolCallId":"a"}}}"#,
            r#"{"data":[1]}"#,
            r#"{"data":{}} x"#,
            r#"[]"#,
            r#"{"data":{"message":{"source":{"callId":"a"},"source":{}}}}"#,
        ] {
            assert_eq!(both(json).0, None, "{json}");
        }
    }

    /// A value where the call's reading expects a string: mostly plain strings, sometimes
    /// the values that change it (`null`, a number, an escape, an object).
    fn id_value() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => "[a-c]{0,3}".prop_map(|s| format!("\"{s}\"")),
            1 => Just("null".to_string()),
            1 => Just("7".to_string()),
            1 => Just(r#""q\"\u00e9""#.to_string()),
            1 => Just(r#"{"callId":"x"}"#.to_string()),
        ]
    }

    /// An object of `members` (`None` leaves a member out), in a shuffled order, sometimes
    /// with a member repeated or an unknown one added.
    fn object(members: Vec<(&'static str, Option<String>)>) -> impl Strategy<Value = String> {
        let present: Vec<String> = members
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| format!("\"{k}\":{v}")))
            .collect();
        let len = present.len();
        (Just(present).prop_shuffle(), 0..6usize, 0..len.max(1)).prop_map(
            move |(mut members, extra, pick)| {
                match extra {
                    0 if !members.is_empty() => members.push(members[pick % members.len()].clone()),
                    1 => members.push(r#""other":[1,{"callId":"z"}]"#.to_string()),
                    _ => {}
                }
                format!("{{{}}}", members.join(","))
            },
        )
    }

    /// A content array: blocks with or without a `toolCallId`, sometimes empty, `null`, or
    /// with a first item that is not a block.
    fn content() -> impl Strategy<Value = Option<String>> {
        let block = (prop::option::of(id_value()), any::<bool>()).prop_flat_map(|(id, text)| {
            object(vec![
                ("type", Some(r#""tool-result""#.to_string())),
                ("toolCallId", id),
                ("text", text.then(|| r#""a } ] \" {""#.to_string())),
            ])
        });
        prop_oneof![
            3 => prop::collection::vec(block, 0..3).prop_map(|b| Some(format!("[{}]", b.join(",")))),
            1 => Just(Some("null".to_string())),
            1 => Just(Some(r#"["x"]"#.to_string())),
            1 => Just(None),
        ]
    }

    /// The `data` of a tool result built from every member the call is read from.
    fn call_data() -> impl Strategy<Value = String> {
        let source = prop::option::of(id_value())
            .prop_flat_map(|id| object(vec![("kind", Some(r#""tool""#.into())), ("callId", id)]));
        let source = prop_oneof![
            3 => source.prop_map(Some),
            1 => Just(Some("null".to_string())),
            1 => Just(None),
        ];
        let message = (source, content()).prop_flat_map(|(source, content)| {
            object(vec![("source", source), ("content", content)])
        });
        let message = prop_oneof![
            3 => message.prop_map(Some),
            1 => Just(Some("null".to_string())),
            1 => Just(None),
        ];
        (message, content(), prop::option::of(id_value())).prop_flat_map(
            |(message, content, call_id)| {
                object(vec![
                    ("turn", Some("1".into())),
                    ("message", message),
                    ("content", content),
                    ("callId", call_id),
                ])
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Wherever the scan answers, on any tool result built from the members it reads, it
        /// answers as the parse does.
        #[test]
        fn the_scan_agrees_with_the_parse(data in call_data(), null_data in any::<bool>()) {
            let data = if null_data { "null".to_string() } else { data };
            let json = format!(r#"{{"type":"tool/result","seq":1,"data":{data}}}"#);
            let (scanned, parsed) = both(&json);
            if scanned.is_some() {
                prop_assert_eq!(scanned, parsed, "{}", json);
            }
        }
    }

    /// The generated shapes are mostly ones the scan answers (else the property above would
    /// hold by the scan declining everything).
    #[test]
    fn the_scan_answers_most_generated_shapes() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        let mut runner = TestRunner::deterministic();
        let (mut answered, mut with_id) = (0, 0);
        for _ in 0..1000 {
            let data = call_data().new_tree(&mut runner).unwrap().current();
            let json = format!(r#"{{"data":{data}}}"#);
            if let Some(call) = scanned_call(&json) {
                answered += 1;
                with_id += usize::from(call.is_some());
            }
        }
        assert!(
            answered > 400 && with_id > 200,
            "{answered} answered, {with_id} with an id"
        );
    }

    #[test]
    fn a_torn_event_is_never_scanned() {
        let json = r#"{"data":{"message":{"source":{"callId":"a"}},"content":[{"x":"#;
        for end in 0..json.len() {
            let (scanned, parsed) = both(&json[..end]);
            assert!(scanned.is_none() || scanned == parsed, "{}", &json[..end]);
        }
    }
}
