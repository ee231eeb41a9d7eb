//! Stream chunk lines as the harness writes them, built from their parts: the fixtures of the
//! tests of the readers that read such lines by their literals (the meter's `chunk_line.rs`,
//! the store's `delta_envelope.rs`), so that both read the one layout.

/// `chunk` (the JSON of a `data.chunk`) in an `assistant/chunk` event line, laid out as the
/// harness writes it.
pub fn chunk_event_line(chunk: &str) -> String {
    format!(
        r#"{{"type":"assistant/chunk","seq":12,"time":1786000000018,"data":{{"turn":1,"step":3,"chunk":{chunk}}}}}"#
    )
}

/// The JSON of a delta chunk as the harness writes it: `kind` is `text-delta`,
/// `reasoning-delta` or `tool-call-delta`; `text` the delta (a tool call's `argumentsDelta`),
/// `name` a tool call's name if it has one.
pub fn delta_chunk(kind: &str, index: u64, text: &str, name: Option<&str>) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    match (kind, name) {
        ("tool-call-delta", Some(name)) => format!(
            r#"{{"type":"{kind}","index":{index},"id":"c_1","name":{},"argumentsDelta":{quoted}}}"#,
            serde_json::to_string(name).unwrap_or_default()
        ),
        ("tool-call-delta", None) => {
            format!(r#"{{"type":"{kind}","index":{index},"id":"c_1","argumentsDelta":{quoted}}}"#)
        }
        _ => format!(r#"{{"type":"{kind}","index":{index},"text":{quoted}}}"#),
    }
}
