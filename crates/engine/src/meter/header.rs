//! The request header in force (`request/header` → `data.header`: system prompt, tools,
//! config), its price, and the equality the meter's anchor is held to (docs/meter.md).

use serde_json::Value;

use super::js_json::stringify;
use super::price::OVERHEAD;
use super::utf16::{ceil4, utf16_len};

/// The config fields that decide whether two headers are the same request.
pub const CONFIG_KEYS: [&str; 6] = [
    "provider",
    "model",
    "reasoningEffort",
    "temperature",
    "maxTokens",
    "stop",
];

/// A request header as the meter sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestHeader {
    /// The system prompt; `None` when absent, empty or not a string.
    pub system: Option<String>,
    /// Each tool definition as compact JavaScript JSON, in order; empty when the tools are
    /// absent, empty or not an array.
    pub tools: Vec<String>,
    /// `config` as written (`Null` when absent).
    pub config: Value,
    /// JavaScript JSON of each of [`CONFIG_KEYS`] in `config`, then of `adapterDefaults`.
    key: Vec<Option<String>>,
    /// The system prompt's and the tools' prices.
    prices: (u64, u64),
}

/// What was wrong with a `request/header`, for the meter's warning findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderProblem {
    /// `data.header` is missing or not an object: no header is in force after it.
    NotAnObject,
    /// `system` is neither a string nor absent: priced as absent.
    SystemNotString,
    /// `tools` is neither an array nor absent (the fixtures' `"{{tools}}"`): priced as absent.
    ToolsNotArray,
}

impl HeaderProblem {
    /// A human sentence.
    pub fn describe(self) -> &'static str {
        match self {
            HeaderProblem::NotAnObject => {
                "request/header data.header is not an object; no header is priced after it"
            }
            HeaderProblem::SystemNotString => {
                "request/header system is not a string; the meter prices no system prompt"
            }
            HeaderProblem::ToolsNotArray => {
                "request/header tools is not an array; the meter prices no tools"
            }
        }
    }
}

impl RequestHeader {
    /// Reads the header of a `request/header` event's `data`. `None` when `data.header` is
    /// not an object; the problems found either way.
    pub fn from_data(data: &Value) -> (Option<RequestHeader>, Vec<HeaderProblem>) {
        let Some(header) = data.get("header").and_then(Value::as_object) else {
            return (None, vec![HeaderProblem::NotAnObject]);
        };
        let mut problems = Vec::new();
        let system = match header.get("system") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()).filter(|s| !s.is_empty()),
            Some(_) => {
                problems.push(HeaderProblem::SystemNotString);
                None
            }
        };
        let tools = match header.get("tools") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items.iter().map(stringify).collect(),
            Some(_) => {
                problems.push(HeaderProblem::ToolsNotArray);
                Vec::new()
            }
        };
        let config = header.get("config").cloned().unwrap_or(Value::Null);
        let mut key: Vec<Option<String>> = CONFIG_KEYS
            .iter()
            .map(|k| config.get(k).map(stringify))
            .collect();
        key.push(header.get("adapterDefaults").map(stringify));
        let system_price = system
            .as_deref()
            .map_or(0, |s| ceil4(utf16_len(s)) + OVERHEAD);
        let tools_price = if tools.is_empty() {
            0
        } else {
            // "[" + the tools joined by "," + "]".
            let len: usize = tools.iter().map(|t| utf16_len(t)).sum::<usize>() + tools.len() + 1;
            ceil4(len) + OVERHEAD
        };
        let header = RequestHeader {
            system,
            tools,
            config,
            key,
            prices: (system_price, tools_price),
        };
        (Some(header), problems)
    }

    /// `⌈len(system)/4⌉ + 4` with a system prompt, else 0.
    pub fn system_price(&self) -> u64 {
        self.prices.0
    }

    /// `⌈len(JSON.stringify(tools))/4⌉ + 4` with tools, else 0.
    pub fn tools_price(&self) -> u64 {
        self.prices.1
    }

    /// The header's price: system prompt plus tools.
    pub fn price(&self) -> u64 {
        self.system_price() + self.tools_price()
    }

    /// The tools as JSON values (for display).
    pub fn tool_values(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|t| serde_json::from_str(t).unwrap_or(Value::Null))
            .collect()
    }

    /// `config.provider` / `config.model` as strings, when they are.
    pub fn config_str(&self, key: &str) -> Option<&str> {
        self.config.get(key).and_then(Value::as_str)
    }

    /// The meter's header equality: the same config fields ([`CONFIG_KEYS`]), the same
    /// `adapterDefaults`, the same system string, and the same tools with identical compact
    /// JSON text, key order included.
    pub fn same_request(&self, other: &RequestHeader) -> bool {
        self.key == other.key && self.system == other.system && self.tools == other.tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn header(v: Value) -> (Option<RequestHeader>, Vec<HeaderProblem>) {
        RequestHeader::from_data(&json!({ "header": v, "reason": "initial" }))
    }

    #[test]
    fn prices_system_and_tools() {
        let (h, problems) = header(json!({
            "config": {"provider": "p", "model": "m"},
            "system": "{{system}}",
            "tools": [{"name": "bash", "parameters": {"type": "object"}}]
        }));
        let h = h.unwrap();
        assert!(problems.is_empty());
        assert_eq!(h.system_price(), 3 + 4);
        // [{"name":"bash","parameters":{"type":"object"}}] is 48 units.
        assert_eq!(h.tools_price(), 12 + 4);
        assert_eq!(h.price(), 23);
    }

    #[test]
    fn placeholders_and_empties_are_absent() {
        let (h, problems) = header(json!({"config": {}, "system": "", "tools": "{{tools}}"}));
        assert_eq!(h.unwrap().price(), 0);
        assert_eq!(problems, [HeaderProblem::ToolsNotArray]);
        let (h, problems) = header(json!({"system": 3, "tools": []}));
        assert_eq!(h.unwrap().price(), 0);
        assert_eq!(problems, [HeaderProblem::SystemNotString]);
        let (h, problems) = header(json!("text"));
        assert!(h.is_none());
        assert_eq!(problems, [HeaderProblem::NotAnObject]);
    }

    #[test]
    fn equality_follows_the_listed_fields() {
        let base = json!({"config": {"provider": "p", "model": "m", "temperature": 1}, "system": "s", "tools": [{"a": 1, "b": 2}]});
        let h = |v: Value| header(v).0.unwrap();
        let a = h(base.clone());
        let mut other_field = base.clone();
        other_field["config"]["note"] = json!("ignored");
        other_field["config"]["temperature"] = json!(1.0);
        assert!(a.same_request(&h(other_field)));
        let mut reordered = base.clone();
        reordered["tools"] = json!([{"b": 2, "a": 1}]);
        assert!(!a.same_request(&h(reordered)));
        let mut model = base.clone();
        model["config"]["model"] = json!("n");
        assert!(!a.same_request(&h(model)));
        let mut flags = base;
        flags["adapterDefaults"] = json!({"thinking": true});
        assert!(!a.same_request(&h(flags)));
    }
}
