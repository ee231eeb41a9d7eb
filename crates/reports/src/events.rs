//! `events`' document: the events of a seq range, or those whose JSON holds a text, each with
//! its seq, type and the event's JSON. Built a page at a time: the events past a byte budget
//! are left for the next page, so a range over a whole large log costs one page's work.

use serde_json::{Value, json};
use surface_engine::{EventIdx, EventLog};

use crate::{ReportError, Source};

/// Which events.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// The first seq of the range (inclusive; the first event without it).
    pub from: Option<u64>,
    /// The last seq of the range (inclusive; the last event without it).
    pub to: Option<u64>,
    /// Only events whose JSON text holds this text (ASCII letters in any case).
    pub query: Option<String>,
}

/// The part of the matches one answer carries: skip the first `skip`, then stop before the
/// items pass `max_bytes` of JSON (one item always, so a walk moves on).
#[derive(Clone, Copy, Debug)]
pub struct Page {
    /// Matches already returned.
    pub skip: usize,
    /// The most bytes of items this page may hold.
    pub max_bytes: usize,
}

/// The events `selection` picks, in log order. A seq past the log's last, or a range whose
/// start is after its end, is [`ReportError::Option`].
pub fn matching(source: &Source<'_>, selection: &Selection) -> Result<Vec<EventIdx>, ReportError> {
    let log = source.log;
    let last = log.max_seq().unwrap_or(0);
    for seq in [selection.from, selection.to].into_iter().flatten() {
        if seq > last {
            return Err(ReportError::Option(format!(
                "{}: seq {seq} is past the log's last event (seq {last})",
                source.file
            )));
        }
    }
    let (from, to) = (selection.from.unwrap_or(0), selection.to.unwrap_or(last));
    if from > to {
        return Err(ReportError::Option(format!(
            "from {from} is after to {to}: give a range whose start comes first"
        )));
    }
    let needle = selection.query.as_deref().map(str::to_ascii_lowercase);
    let mut buffer = String::new();
    Ok(log
        .indices()
        .filter(|&i| (from..=to).contains(&log.event(i).seq))
        .filter(|&i| match &needle {
            Some(n) => holds(log, i, n, &mut buffer),
            None => true,
        })
        .collect())
}

fn holds(log: &EventLog, i: EventIdx, needle: &str, buffer: &mut String) -> bool {
    log.with_event_json(i, |text| {
        buffer.clear();
        buffer.push_str(text);
        buffer.make_ascii_lowercase();
        buffer.contains(needle)
    })
}

/// The document of one page of `matches`: the file, the log's event count, the selection,
/// the number of matches, and the page's events; with the index of the first match left for
/// the next page, when some are.
pub fn document(
    source: &Source<'_>,
    selection: &Selection,
    matches: &[EventIdx],
    page: Page,
) -> (Value, Option<usize>) {
    let log = source.log;
    let mut items = Vec::new();
    let mut bytes = 0;
    let mut next = None;
    for (k, &i) in matches.iter().enumerate().skip(page.skip) {
        let item = json!({
            "seq": log.event(i).seq,
            "type": log.type_name(i),
            "event": log.event_value(i),
        });
        let size = item.to_string().len() + 1;
        if !items.is_empty() && bytes + size > page.max_bytes {
            next = Some(k);
            break;
        }
        bytes += size;
        items.push(item);
    }
    let doc = json!({
        "file": source.file,
        "events": log.len(),
        "from": selection.from,
        "to": selection.to,
        "query": selection.query,
        "matched": matches.len(),
        "matches": items,
    });
    (doc, next)
}
