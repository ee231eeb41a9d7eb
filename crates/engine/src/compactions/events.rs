//! The compaction events (docs/parity.md) read leniently: `compaction/start`, `summary`,
//! `end` and `prune` (and June's `compact/*`), each field kept when it has its JSON type and
//! reported as a problem when it is missing or mistyped — the audit then shows `null` for it.

use crate::EventType;
use serde_json::Value;

/// Which compaction event an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompactionEvent {
    /// `compaction/start` / `compact/start`.
    Start,
    /// `compaction/summary` / `compact/summary`.
    Summary,
    /// `compaction/end` / `compact/end`.
    End,
    /// `compaction/prune` / `compact/prune`.
    Prune,
}

impl CompactionEvent {
    /// The compaction event an event type names, and whether it is the HEAD spelling
    /// (`compaction/*`, whose events carry a `compactionId`) rather than June's `compact/*`.
    pub fn of(kind: EventType) -> Option<(CompactionEvent, bool)> {
        Some(match kind {
            EventType::CompactionStart => (CompactionEvent::Start, true),
            EventType::CompactionSummary => (CompactionEvent::Summary, true),
            EventType::CompactionEnd => (CompactionEvent::End, true),
            EventType::CompactionPrune => (CompactionEvent::Prune, true),
            EventType::CompactStart => (CompactionEvent::Start, false),
            EventType::CompactSummary => (CompactionEvent::Summary, false),
            EventType::CompactEnd => (CompactionEvent::End, false),
            EventType::CompactPrune => (CompactionEvent::Prune, false),
            _ => return None,
        })
    }
}

/// The `turn` of a `compaction/start`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TurnField {
    /// No `turn` field.
    #[default]
    Absent,
    /// `"turn": null`: the compaction ran outside a turn.
    Null,
    /// `"turn": N`.
    Turn(u64),
}

/// The fields of one compaction event, each `None` when missing or mistyped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompactionFields {
    /// `compactionId`.
    pub compaction_id: Option<String>,
    /// `sourceCommandId`: the compaction was asked for by a command.
    pub source_command_id: Option<String>,
    /// `turn`.
    pub turn: TurnField,
    /// `shadowedSeqs`.
    pub shadowed_seqs: Option<Vec<u64>>,
    /// `shadowedRange` as `(start, end)`.
    pub shadowed_range: Option<(u64, u64)>,
    /// `shadowedTokenCount`.
    pub shadowed_token_count: Option<u64>,
    /// `provider` of the summarizer.
    pub provider: Option<String>,
    /// `model` of the summarizer.
    pub model: Option<String>,
    /// `maxTokens` the summarizer was allowed.
    pub max_tokens: Option<u64>,
    /// `usage` of the summarizer call (an object).
    pub usage: Option<Value>,
    /// `error` of a `compaction/end` (any JSON value but `null`).
    pub error: Option<Value>,
    /// What is missing or mistyped, one phrase each.
    pub problems: Vec<String>,
}

fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        let f = v.as_f64()?;
        (f >= 0.0 && f.fract() == 0.0 && f < 9.0e15).then_some(f as u64)
    })
}

struct Reader<'a> {
    data: &'a Value,
    problems: Vec<String>,
}

impl Reader<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        self.data.get(key).filter(|v| !v.is_null())
    }

    fn missing(&mut self, key: &str) {
        self.problems.push(format!("no {key}"));
    }

    fn string(&mut self, key: &str, required: bool) -> Option<String> {
        match self.get(key) {
            None if required => {
                self.missing(key);
                None
            }
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.problems.push(format!("{key} is not a string"));
                None
            }
        }
    }

    fn count(&mut self, key: &str, required: bool) -> Option<u64> {
        match self.get(key) {
            None if required => {
                self.missing(key);
                None
            }
            None => None,
            Some(v) => {
                let n = count(v);
                if n.is_none() {
                    self.problems
                        .push(format!("{key} is not a non-negative integer"));
                }
                n
            }
        }
    }

    fn seqs(&mut self, key: &str, required: bool) -> Option<Vec<u64>> {
        match self.get(key) {
            None if required => {
                self.missing(key);
                None
            }
            None => None,
            Some(Value::Array(items)) => {
                let seqs: Option<Vec<u64>> = items.iter().map(count).collect();
                if seqs.is_none() {
                    self.problems
                        .push(format!("{key} holds something other than seqs"));
                }
                seqs
            }
            Some(_) => {
                self.problems.push(format!("{key} is not an array"));
                None
            }
        }
    }

    fn range(&mut self, key: &str, required: bool) -> Option<(u64, u64)> {
        match self.get(key) {
            None if required => {
                self.missing(key);
                None
            }
            None => None,
            Some(v) => {
                let pair = v
                    .get("start")
                    .and_then(count)
                    .zip(v.get("end").and_then(count));
                if pair.is_none() {
                    self.problems
                        .push(format!("{key} is not {{start, end}} with seqs"));
                }
                pair
            }
        }
    }

    fn object(&mut self, key: &str) -> Option<Value> {
        match self.get(key) {
            None => None,
            Some(v @ Value::Object(_)) => Some(v.clone()),
            Some(_) => {
                self.problems.push(format!("{key} is not an object"));
                None
            }
        }
    }

    fn turn(&mut self) -> TurnField {
        match self.data.get("turn") {
            None => TurnField::Absent,
            Some(Value::Null) => TurnField::Null,
            Some(v) => match count(v) {
                Some(t) => TurnField::Turn(t),
                None => {
                    self.problems
                        .push("turn is neither null nor a non-negative integer".into());
                    TurnField::Absent
                }
            },
        }
    }
}

/// Reads the `data` of a compaction event of `kind`. `head` (the `compaction/*` spelling)
/// requires the fields HEAD always writes; June's `compact/*` events only have their types
/// checked.
pub fn read_fields(kind: CompactionEvent, head: bool, data: &Value) -> CompactionFields {
    if !data.is_object() {
        return CompactionFields {
            problems: vec!["data is not an object".into()],
            ..CompactionFields::default()
        };
    }
    let mut r = Reader {
        data,
        problems: Vec::new(),
    };
    let with_id = head && kind != CompactionEvent::Prune;
    let mut f = CompactionFields {
        compaction_id: r.string("compactionId", with_id),
        source_command_id: r.string("sourceCommandId", false),
        ..CompactionFields::default()
    };
    match kind {
        CompactionEvent::Start => f.turn = r.turn(),
        CompactionEvent::End => {
            f.turn = r.turn();
            f.error = r.get("error").cloned();
        }
        CompactionEvent::Summary => {
            if head && !r.get("summary").is_some_and(Value::is_array) {
                r.problems.push("summary is not an array of blocks".into());
            }
            f.shadowed_range = r.range("shadowedRange", head);
            f.shadowed_seqs = r.seqs("shadowedSeqs", head);
            f.shadowed_token_count = r.count("shadowedTokenCount", head);
            f.provider = r.string("provider", head);
            f.model = r.string("model", head);
            f.max_tokens = r.count("maxTokens", false);
            f.usage = r.object("usage");
        }
        CompactionEvent::Prune => {
            f.shadowed_range = r.range("shadowedRange", head);
            f.shadowed_seqs = r.seqs("shadowedSeqs", head);
            f.shadowed_token_count = r.count("shadowedTokenCount", head);
        }
    }
    f.problems = r.problems;
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names() {
        assert_eq!(
            CompactionEvent::of(EventType::of("compaction/summary")),
            Some((CompactionEvent::Summary, true))
        );
        assert_eq!(
            CompactionEvent::of(EventType::of("compact/prune")),
            Some((CompactionEvent::Prune, false))
        );
        assert_eq!(
            CompactionEvent::of(EventType::of("compaction/marker")),
            None
        );
        assert_eq!(CompactionEvent::of(EventType::of("user/message")), None);
    }

    #[test]
    fn a_well_formed_summary() {
        let data = json!({"compactionId":"c","summary":[],"shadowedRange":{"start":4,"end":4},
            "shadowedSeqs":[4],"shadowedTokenCount":266,"provider":"p","model":"m",
            "maxTokens":32,"usage":{"inputTokens":20,"outputTokens":4}});
        let f = read_fields(CompactionEvent::Summary, true, &data);
        assert_eq!(f.problems, Vec::<String>::new());
        assert_eq!(f.shadowed_seqs, Some(vec![4]));
        assert_eq!(f.shadowed_range, Some((4, 4)));
        assert_eq!(
            (f.shadowed_token_count, f.max_tokens),
            (Some(266), Some(32))
        );
        assert_eq!(f.usage.unwrap()["inputTokens"], 20);
    }

    #[test]
    fn missing_and_mistyped_fields_are_problems_and_unknowns() {
        let data = json!({"summary":[],"shadowedRange":{"start":4},"shadowedSeqs":"4",
            "shadowedTokenCount":-1,"provider":"p","model":7,"usage":"none"});
        let f = read_fields(CompactionEvent::Summary, true, &data);
        assert_eq!(
            f.problems,
            [
                "no compactionId",
                "shadowedRange is not {start, end} with seqs",
                "shadowedSeqs is not an array",
                "shadowedTokenCount is not a non-negative integer",
                "model is not a string",
                "usage is not an object"
            ]
        );
        assert_eq!((f.shadowed_seqs, f.usage, f.model), (None, None, None));
        // June's spelling has no compactionId and checks types only.
        let f = read_fields(CompactionEvent::Start, false, &json!({"turn":1}));
        assert_eq!((f.problems.len(), f.turn), (0, TurnField::Turn(1)));
        let f = read_fields(
            CompactionEvent::End,
            true,
            &json!({"compactionId":"c","turn":null,"error":{"message":"boom"}}),
        );
        assert_eq!(f.turn, TurnField::Null);
        assert_eq!(f.error, Some(json!({"message":"boom"})));
        let f = read_fields(CompactionEvent::Start, true, &json!([1]));
        assert_eq!(f.problems, ["data is not an object"]);
    }
}
