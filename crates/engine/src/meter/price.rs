//! The meter's prices of content blocks and messages (docs/meter.md), over parsed JSON
//! values. This is the reference pricer: [`super::raw_price`] prices the same from the raw
//! event text without building a tree, and the tests hold the two equal.

use serde_json::Value;

use super::js_json::stringified_len;
use super::utf16::{ceil4, utf16_len};
use crate::Message;

/// Tokens every message costs for its role framing, and every block for its own framing.
pub const OVERHEAD: u64 = 4;

/// The price of one content block.
///
/// - `text`, `reasoning`: `⌈len(text)/4⌉ + 4`;
/// - `tool-call`: `⌈len(name)/4⌉ + ⌈len(arguments)/4⌉ + 4`;
/// - `tool-result`: the sum of its inner blocks `+ 4`;
/// - anything else — an unknown type, or a known type whose fields do not have their JSON
///   types (a `text` that is not a string) — `⌈len(JSON.stringify(block))/4⌉ + 4`.
pub fn block_price(block: &Value) -> u64 {
    let str_field = |key: &str| block.get(key).and_then(Value::as_str);
    let known = match block.get("type").and_then(Value::as_str) {
        Some("text" | "reasoning") => str_field("text").map(|t| ceil4(utf16_len(t))),
        Some("tool-call") => match (str_field("name"), str_field("arguments")) {
            (Some(name), Some(arguments)) => {
                Some(ceil4(utf16_len(name)) + ceil4(utf16_len(arguments)))
            }
            _ => None,
        },
        Some("tool-result") => block
            .get("content")
            .and_then(Value::as_array)
            .map(|inner| inner.iter().map(block_price).sum()),
        _ => None,
    };
    known.unwrap_or_else(|| ceil4(stringified_len(block))) + OVERHEAD
}

/// The price of a list of blocks as one message: `4 + Σ block`.
pub fn blocks_price<'a>(blocks: impl IntoIterator<Item = &'a Value>) -> u64 {
    OVERHEAD + blocks.into_iter().map(block_price).sum::<u64>()
}

/// The price of a derived message: `4 + Σ block` over its content.
pub fn message_price(message: &Message) -> u64 {
    blocks_price(&message.content)
}

/// The price of a message whose content is one `text` block holding `text` (a summary).
pub fn text_message_price(text: &str) -> u64 {
    OVERHEAD + ceil4(utf16_len(text)) + OVERHEAD
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_reasoning() {
        assert_eq!(block_price(&json!({"type":"text","text":"12345"})), 2 + 4);
        // An emoji is two UTF-16 units: 4 emoji are 8 units, 2 tokens.
        assert_eq!(
            block_price(&json!({"type":"reasoning","text":"😀😀😀😀"})),
            2 + 4
        );
        assert_eq!(block_price(&json!({"type":"text","text":""})), 4);
    }

    #[test]
    fn tool_call_prices_name_and_arguments_text() {
        let b = json!({"type":"tool-call","id":"call_1","name":"bash","arguments":"{\"command\":\"ls\"}"});
        assert_eq!(block_price(&b), 1 + 4 + 4);
    }

    #[test]
    fn tool_result_inside_a_tool_result() {
        let inner = json!({"type":"tool-result","toolCallId":"i","content":[{"type":"text","text":"abcd"}]});
        let outer = json!({"type":"tool-result","toolCallId":"o","content":[inner, {"type":"text","text":"x"}],"isError":false});
        // inner: (1+4) + 4 = 9; text "x": 1 + 4 = 5; outer: 9 + 5 + 4.
        assert_eq!(block_price(&outer), 18);
    }

    #[test]
    fn unknown_blocks_are_priced_by_their_javascript_json() {
        // {"type":"image","w":1,"s":"é\n"} is 32 UTF-16 units: ⌈32/4⌉ + 4.
        let b: Value =
            serde_json::from_str(r#"{ "type": "image", "w": 1.0, "s": "é\n" }"#).unwrap();
        assert_eq!(stringified_len(&b), 32);
        assert_eq!(block_price(&b), 8 + 4);
        // A number in exponent form prints as JavaScript prints it: 1e-7 stays, 1E2 is 100.
        let n: Value = serde_json::from_str(r#"{"type":"x","a":1e-7,"b":1E2}"#).unwrap();
        assert_eq!(
            stringified_len(&n),
            r#"{"type":"x","a":1e-7,"b":100}"#.len()
        );
        // A text block whose text is not a string is priced as an unknown block.
        assert_eq!(block_price(&json!({"type":"text","text":5})), 6 + 4);
        assert_eq!(block_price(&json!(7)), 1 + 4);
    }

    #[test]
    fn messages_add_their_framing() {
        let m = Message {
            seq: 1,
            role: "user".into(),
            content: vec![json!({"type":"text","text":"12345678"})],
            id: None,
            unreadable: None,
        };
        assert_eq!(message_price(&m), 4 + 2 + 4);
        assert_eq!(text_message_price("12345678"), 10);
    }
}
