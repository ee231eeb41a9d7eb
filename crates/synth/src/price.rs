//! The harness meter's prices (docs/meter.md) of what the writer writes, computed from the
//! texts before they become JSON — so that the usage, `shadowedTokenCount` and surface sizes a
//! generated log records agree with what the viewer's meter measures in it.

use surface_engine::meter::{OVERHEAD, ceil4, utf16_len};

/// A `text` or `reasoning` block.
pub fn text_block(text: &str) -> u64 {
    ceil4(utf16_len(text)) + OVERHEAD
}

/// A `tool-call` block.
pub fn tool_call_block(name: &str, arguments: &str) -> u64 {
    ceil4(utf16_len(name)) + ceil4(utf16_len(arguments)) + OVERHEAD
}

/// A message of the given block prices.
pub fn message(blocks: &[u64]) -> u64 {
    OVERHEAD + blocks.iter().sum::<u64>()
}

/// A user message of one text block.
pub fn user_message(text: &str) -> u64 {
    message(&[text_block(text)])
}

/// A HEAD `tool/result`: one `tool-result` block holding one text block.
pub fn tool_result(output: &str) -> u64 {
    message(&[text_block(output) + OVERHEAD])
}

/// The request header: the system prompt and the tools' compact JSON text.
pub fn header(system: &str, tools_json: &str) -> u64 {
    text_block(system) + ceil4(utf16_len(tools_json)) + OVERHEAD
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use surface_engine::message_from;
    use surface_engine::meter::{block_price, message_price};

    #[test]
    fn the_same_prices_as_the_meter() {
        let text = "naïve 🦀 text";
        assert_eq!(
            text_block(text),
            block_price(&json!({"type":"text","text":text}))
        );
        assert_eq!(
            tool_call_block("bash", "{\"command\":\"ls\"}"),
            block_price(
                &json!({"type":"tool-call","id":"c","name":"bash","arguments":"{\"command\":\"ls\"}"})
            )
        );
        let data = json!({"message":{"role":"user","content":[{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":"out\n"}],"isError":false}]}});
        let m = message_from(1, surface_engine::EventType::ToolResult, &data).unwrap();
        assert_eq!(tool_result("out\n"), message_price(&m));
        let data = json!({"content":[{"type":"text","text":text}]});
        let m = message_from(1, surface_engine::EventType::UserMessage, &data).unwrap();
        assert_eq!(user_message(text), message_price(&m));
    }
}
