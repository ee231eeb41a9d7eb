//! The first divergence of two runs (docs/compare.md): the two logs are walked side by side in
//! log order — the k-th event of A against the k-th event of B, packed chunk rows expanded into
//! their member events, so a packed and an unpacked copy of one session pair event for event —
//! and the first pair whose type differs, or whose content differs once `seq`, `time`, ids and
//! provenance are left out ([`same_content`]), is the divergence. When one log is a prefix of
//! the other, they diverge where the shorter one ends: its side of the pair is `null`.
//!
//! Members of two packed rows are equal when the rows' `data` are, `dt` (the members' times)
//! left out too: a row is compared once for all its members, none rebuilt.

use std::ops::Range;

use serde::Serialize;
use serde_json::{Value, json};

use super::same_content::{first_difference, same_content, same_row_content};
use surface_engine::{EventIdx, EventLog, EventText, PackedData};

/// What made the pair differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DivergenceKind {
    /// The events' types differ.
    Type,
    /// Same type, other content.
    Content,
    /// A ended here; B goes on.
    AEnded,
    /// B ended here; A goes on.
    BEnded,
}

impl DivergenceKind {
    /// `"type"`, `"content"`, `"a-ended"` or `"b-ended"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DivergenceKind::Type => "type",
            DivergenceKind::Content => "content",
            DivergenceKind::AEnded => "a-ended",
            DivergenceKind::BEnded => "b-ended",
        }
    }
}

/// Where two logs first differ: the index of the pair in log order and each side's event
/// (`None` on the side that ended).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// Events of each log before the pair (all of them pair equal).
    pub index: usize,
    /// What differs.
    pub kind: DivergenceKind,
    /// A's event.
    pub a: Option<EventIdx>,
    /// B's event.
    pub b: Option<EventIdx>,
    /// For a content difference, the path of the first differing value
    /// (`data.message.content[0].text`).
    pub path: Option<String>,
}

/// The first pair of events, in log order, that differ (see the module documentation); `None`
/// when the two logs say the same thing event for event.
pub fn first_split(a: &EventLog, b: &EventLog) -> Option<Split> {
    first_split_in(a, b, 0..shared_len(a, b)).or_else(|| end_split(a, b))
}

/// The pairs both logs have: the shorter log's length.
pub fn shared_len(a: &EventLog, b: &EventLog) -> usize {
    a.len().min(b.len())
}

/// The first pair in `pairs` (indices below [`shared_len`]) whose events differ in type or
/// content; `None` when every pair there is equal. Pairs are judged each on its own, so the
/// pairs can be cut into ranges walked apart (on other threads) and the first range's answer
/// taken: `first_split` is this over all pairs, then [`end_split`].
pub fn first_split_in(a: &EventLog, b: &EventLog, pairs: Range<usize>) -> Option<Split> {
    let pairs = pairs.start..pairs.end.min(shared_len(a, b));
    let (mut members_a, mut members_b) = (Members::new(a), Members::new(b));
    // The last pair of packed rows compared, and whether they give the same members.
    let mut rows: Option<((u32, u32), bool)> = None;
    for i in pairs {
        let idx = EventIdx(i as u32);
        let split = |kind, path| {
            Some(Split {
                index: i,
                kind,
                a: Some(idx),
                b: Some(idx),
                path,
            })
        };
        if a.type_name(idx) != b.type_name(idx) {
            return split(DivergenceKind::Type, None);
        }
        let (ta, tb) = (a.event(idx).text(), b.event(idx).text());
        let packed = |t| matches!(t, EventText::PackedMember { .. });
        if !packed(ta) && !packed(tb) {
            // Byte-equal lines (a fork's shared prefix, a log against itself) are equal
            // without a copy: a plain comparison of the arenas' bytes.
            if matches!(ta, EventText::Line { .. })
                && matches!(tb, EventText::Line { .. })
                && a.same_line_bytes(idx, b, idx)
            {
                continue;
            }
            let (x, y) = (a.event_bytes(idx), b.event_bytes(idx));
            if same_content(&x, &y) {
                continue;
            }
            let path = match (
                serde_json::from_slice(&x).ok(),
                serde_json::from_slice(&y).ok(),
            ) {
                (Some(v), Some(w)) => first_difference(&v, &w),
                _ => None,
            };
            return split(DivergenceKind::Content, path);
        }
        // Members of two rows that give the same members, times apart: equal, with no member
        // rebuilt. Rows compared once per pair.
        if let (
            EventText::PackedMember {
                row: ra,
                member: ma,
            },
            EventText::PackedMember {
                row: rb,
                member: mb,
            },
        ) = (ta, tb)
            && ma == mb
        {
            let same = match rows {
                Some((pair, same)) if pair == (ra, rb) => same,
                _ => {
                    let same = same_rows(a, ra, b, rb);
                    rows = Some(((ra, rb), same));
                    same
                }
            };
            if same {
                continue;
            }
        }
        // A packed member against a line (or rows that differ): as values.
        let (v, w) = (members_a.value(idx), members_b.value(idx));
        let path = match (&v, &w) {
            (Some(v), Some(w)) => first_difference(v, w),
            _ => Some(String::new()),
        };
        if path.is_some() {
            return split(DivergenceKind::Content, path);
        }
    }
    None
}

/// Where two logs whose shared pairs are all equal diverge: where the shorter one ends (`None`
/// when they are as long).
pub fn end_split(a: &EventLog, b: &EventLog) -> Option<Split> {
    let shared = shared_len(a, b);
    let next = Some(EventIdx(shared as u32));
    match a.len().cmp(&b.len()) {
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Less => Some(Split {
            index: shared,
            kind: DivergenceKind::AEnded,
            a: None,
            b: next,
            path: None,
        }),
        std::cmp::Ordering::Greater => Some(Split {
            index: shared,
            kind: DivergenceKind::BEnded,
            a: next,
            b: None,
            path: None,
        }),
    }
}

/// Two packed rows of one kind whose `data` give the same members, times apart.
fn same_rows(a: &EventLog, ra: u32, b: &EventLog, rb: u32) -> bool {
    let kinds = (
        a.packed_rows.get(ra as usize).map(|r| r.kind),
        b.packed_rows.get(rb as usize).map(|r| r.kind),
    );
    match (kinds, a.packed_row_bytes(ra), b.packed_row_bytes(rb)) {
        ((Some(x), Some(y)), Some(p), Some(q)) => x == y && same_row_content(&p, &q),
        _ => false,
    }
}

/// Events as JSON values, a packed row's members built from one read of the row (rebuilding
/// each member alone reads its whole row: quadratic in the row's length).
struct Members<'a> {
    log: &'a EventLog,
    /// The row last read and its members' `data`.
    row: Option<(u32, Vec<Value>)>,
}

impl<'a> Members<'a> {
    fn new(log: &'a EventLog) -> Self {
        Members { log, row: None }
    }

    /// The event at `idx` as a value (`seq` and `time` may be missing: they are left out).
    fn value(&mut self, idx: EventIdx) -> Option<Value> {
        let EventText::PackedMember { row, member } = self.log.event(idx).text() else {
            return self.log.event_value(idx);
        };
        if self.row.as_ref().is_none_or(|(r, _)| *r != row) {
            let r = self.log.packed_rows.get(row as usize)?;
            let bytes = self.log.packed_row_bytes(row)?;
            let text = std::str::from_utf8(&bytes).ok()?;
            let data = PackedData::parse(r.kind, text).ok()?;
            let members = (0..data.member_count())
                .map(|k| data.member_data(k))
                .collect();
            self.row = Some((row, members));
        }
        let data = self.row.as_ref()?.1.get(member as usize)?.clone();
        Some(json!({"type": self.log.type_name(idx), "data": data}))
    }
}
