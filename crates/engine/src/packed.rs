//! Packed chunk rows (`text-chunks`, `reasoning-chunks`, `tool-call-chunks`): strict decoding
//! and on-demand rebuilding of their member `assistant/chunk` events (docs/parity.md).

use super::event_type::EventType;
use std::borrow::Cow;

use serde::Deserialize;
use serde_json::json;

/// Which kind of delta a packed row holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkKind {
    /// `text-chunks` → `text-delta`.
    Text,
    /// `reasoning-chunks` → `reasoning-delta`.
    Reasoning,
    /// `tool-call-chunks` → `tool-call-delta`.
    ToolCall,
}

impl ChunkKind {
    /// The packed row tag for a storage `type`, if it is one.
    pub fn from_row_type(type_name: &str) -> Option<Self> {
        match type_name {
            "text-chunks" => Some(ChunkKind::Text),
            "reasoning-chunks" => Some(ChunkKind::Reasoning),
            "tool-call-chunks" => Some(ChunkKind::ToolCall),
            _ => None,
        }
    }
}

/// A packed row in the log's text arena: `text[start..start+len]` is its `data` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedRow {
    /// Delta kind.
    pub kind: ChunkKind,
    /// Byte offset of the `data` object in the text arena.
    pub start: u64,
    /// Byte length of the `data` object.
    pub len: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextRow<'a> {
    turn: u64,
    step: u64,
    index: u64,
    dt: Vec<i64>,
    #[serde(borrow)]
    texts: Vec<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolRow<'a> {
    turn: u64,
    step: u64,
    index: u64,
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    dt: Vec<i64>,
    #[serde(borrow)]
    args: Vec<Cow<'a, str>>,
}

/// A decoded packed row's `data`.
#[derive(Debug)]
pub struct PackedData<'a> {
    kind: ChunkKind,
    turn: u64,
    step: u64,
    index: u64,
    id: Option<Cow<'a, str>>,
    name: Option<Cow<'a, str>>,
    dt: Vec<i64>,
    pieces: Vec<Cow<'a, str>>,
}

impl<'a> PackedData<'a> {
    /// Decodes and validates a row's `data` JSON exactly (unknown keys, wrong types, and a
    /// `dt` whose length is not one less than the member count are errors).
    pub fn parse(kind: ChunkKind, data_json: &'a str) -> Result<Self, String> {
        let data = match kind {
            ChunkKind::Text | ChunkKind::Reasoning => {
                let row: TextRow<'a> =
                    serde_json::from_str(data_json).map_err(|e| format!("bad packed row: {e}"))?;
                PackedData {
                    kind,
                    turn: row.turn,
                    step: row.step,
                    index: row.index,
                    id: None,
                    name: None,
                    dt: row.dt,
                    pieces: row.texts,
                }
            }
            ChunkKind::ToolCall => {
                let row: ToolRow<'a> =
                    serde_json::from_str(data_json).map_err(|e| format!("bad packed row: {e}"))?;
                PackedData {
                    kind,
                    turn: row.turn,
                    step: row.step,
                    index: row.index,
                    id: Some(row.id),
                    name: row.name,
                    dt: row.dt,
                    pieces: row.args,
                }
            }
        };
        if data.pieces.is_empty() {
            return Err("bad packed row: it has no members".into());
        }
        if data.dt.len() + 1 != data.pieces.len() {
            return Err(format!(
                "bad packed row: {} members but {} time gaps (expected {})",
                data.pieces.len(),
                data.dt.len(),
                data.pieces.len() - 1
            ));
        }
        Ok(data)
    }

    /// Number of member events.
    pub fn member_count(&self) -> usize {
        self.pieces.len()
    }

    /// The delta kind of every member.
    pub fn kind(&self) -> ChunkKind {
        self.kind
    }

    /// The block index of every member.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The tool name of a `tool-call-chunks` row, when it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Member `k`'s text (`texts[k]`) or arguments delta (`args[k]`).
    pub fn piece(&self, k: usize) -> Option<&str> {
        self.pieces.get(k).map(|p| p.as_ref())
    }

    /// The `time` of each member, from the row's first time and the gaps.
    /// Fails when a time leaves the safe-integer range.
    pub fn member_times(&self, time0: i64) -> Result<Vec<i64>, String> {
        member_times(time0, self.dt.iter().copied()).collect()
    }

    /// The `data` object of member `k` as a JSON value.
    pub fn member_data(&self, k: usize) -> serde_json::Value {
        let piece = self.pieces.get(k).map(|p| p.as_ref()).unwrap_or("");
        let chunk = match self.kind {
            ChunkKind::Text => json!({"type": "text-delta", "index": self.index, "text": piece}),
            ChunkKind::Reasoning => {
                json!({"type": "reasoning-delta", "index": self.index, "text": piece})
            }
            ChunkKind::ToolCall => {
                let mut c = json!({
                    "type": "tool-call-delta",
                    "index": self.index,
                    "id": self.id.as_deref().unwrap_or(""),
                });
                if let Some(name) = &self.name {
                    c["name"] = json!(name);
                }
                c["argumentsDelta"] = json!(piece);
                c
            }
        };
        json!({"turn": self.turn, "step": self.step, "chunk": chunk})
    }
}

/// The members' times: `time0`, then each gap added in turn. An item fails (and so does every
/// one after it) when a time leaves the safe-integer range.
pub fn member_times(
    time0: i64,
    gaps: impl Iterator<Item = i64>,
) -> impl Iterator<Item = Result<i64, String>> {
    let mut t = Some(time0);
    std::iter::once(Ok(time0)).chain(gaps.map(move |d| {
        t = t
            .and_then(|t| t.checked_add(d))
            .filter(|t| t.unsigned_abs() < (1u64 << 53));
        t.ok_or_else(|| "bad packed row: member time overflows".to_string())
    }))
}

/// Rebuilds the JSON text of one member event of `row`.
pub fn member_json(row: &PackedRow, text: &[u8], member: u32, seq: u64, time: i64) -> String {
    let start = row.start as usize;
    // A copy first: `text` may be a mapped file another program can change, and the row is
    // checked as UTF-8 and then parsed (see `TextArena::may_change`).
    let bytes = text
        .get(start..start + row.len as usize)
        .unwrap_or(&[])
        .to_vec();
    let copy = String::from_utf8(bytes).ok();
    let data = copy
        .as_deref()
        .and_then(|s| PackedData::parse(row.kind, s).ok())
        .map(|d| d.member_data(member as usize))
        .unwrap_or(serde_json::Value::Null);
    let mut event = json!({"type": EventType::AssistantChunk.spelled(), "seq": seq});
    if time != super::event::NO_TIME {
        event["time"] = json!(time);
    }
    event["data"] = data;
    event.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_row_expands() {
        let json = r#"{"turn":1,"step":2,"index":0,"dt":[1,-1],"texts":["a","b","c"]}"#;
        let d = PackedData::parse(ChunkKind::Text, json).unwrap();
        assert_eq!(d.member_count(), 3);
        assert_eq!(d.member_times(10).unwrap(), vec![10, 11, 10]);
        assert_eq!(
            d.member_data(1),
            json!({"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"b"}})
        );
    }

    #[test]
    fn tool_row_keeps_name_and_id() {
        let json =
            r#"{"turn":1,"step":1,"index":2,"id":"c1","name":"bash","dt":[0],"args":["{","}"]}"#;
        let d = PackedData::parse(ChunkKind::ToolCall, json).unwrap();
        assert_eq!(
            d.member_data(0)["chunk"],
            json!({"type":"tool-call-delta","index":2,"id":"c1","name":"bash","argumentsDelta":"{"})
        );
    }

    #[test]
    fn bad_rows_are_rejected() {
        for bad in [
            r#"{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a"]}"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"],"extra":1}"#,
            r#"{"turn":1.5,"step":1,"index":0,"dt":[],"texts":["a"]}"#,
            r#"{"turn":1,"step":1,"index":0,"dt":[],"texts":[]}"#,
            r#"[1,2]"#,
        ] {
            assert!(PackedData::parse(ChunkKind::Text, bad).is_err(), "{bad}");
        }
    }
}
