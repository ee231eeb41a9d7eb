//! Fuzz target: arbitrary event sequences through the surface engine. Checks that delta
//! processing equals a rebuild, and that stepping back restores every earlier surface.
#![no_main]

use libfuzzer_sys::fuzz_target;
use surface_engine::{EventLog, Surface};
use surface_store::{parse_body, read_jsonl};

/// At most this many events per input. The replay check below keeps a snapshot of the surface
/// at every cursor, O(events²): at 4,096 events (an 8 KiB input) one input took about two
/// seconds under ASan and a 30-minute run tried only 923 inputs. Longer logs add no new
/// engine paths that 512 events cannot reach.
const MAX_EVENTS: usize = 512;

/// Turns each input byte pair into one event line.
fn lines_of(data: &[u8]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut seq: u64 = 0;
    for pair in data.chunks(2).take(MAX_EVENTS) {
        let (a, b) = (pair[0], *pair.get(1).unwrap_or(&0));
        let s = |x: u8| u64::from(x) % (seq + 2);
        let op = match a % 8 {
            0 => None,
            1 | 2 | 3 => Some("\"append\"".to_string()),
            4 | 5 => Some(format!(r#"{{"op":"replace","start":{},"end":{}}}"#, s(b), s(b / 3))),
            6 => Some(r#"{"op":"delete"}"#.to_string()),
            _ => Some("\"append\"".to_string()),
        };
        let kind = if a % 8 == 7 { "tool/call" } else { "user/message" };
        let this_seq = if a & 0x80 != 0 { seq.saturating_sub(1) } else { seq };
        let src = if a & 0x40 != 0 { format!(r#","sourceEventSeqs":[{}]"#, s(b)) } else { String::new() };
        let op = op.map(|o| format!(r#","surfaceOp":{o}"#)).unwrap_or_default();
        lines.push(format!(r#"{{"type":"{kind}","seq":{this_seq},"data":{{}}{src}{op}}}"#));
        seq += 1;
    }
    lines
}

fn log_of(lines: &[String]) -> EventLog {
    let mut text = String::from("{\"type\":\"session\",\"version\":0,\"id\":\"f\",\"createdAt\":0}\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    read_jsonl(text.into_bytes(), None).unwrap_or_default()
}

fn nodes(s: &Surface) -> Vec<u32> {
    s.nodes().map(|i| i.0).collect()
}

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    let lines = lines_of(&data[1..]);
    let cut = usize::from(data[0]) % (lines.len() + 1);
    let full = log_of(&lines);
    let rebuilt = Surface::at_end(&full);

    // Delta processing: a prefix, then the rest appended.
    let mut grown = log_of(&lines[..cut]);
    let mut surface = Surface::at_end(&grown);
    let base = grown.text_len();
    for l in &lines[cut..] {
        grown.append_text(l.as_bytes());
        grown.append_text(b"\n");
    }
    let text = grown.stable_text().unwrap_or_default();
    if let Some(batch) = parse_body(text, base, cut as u32 + 2, None) {
        grown.extend(batch);
    }
    surface.catch_up(&grown);
    assert_eq!(nodes(&surface), nodes(&rebuilt));

    // Replay: forward snapshots equal backward ones at every cursor.
    let mut s = Surface::new(&full);
    let mut forward = vec![nodes(&s)];
    while s.step_forward(&full) {
        forward.push(nodes(&s));
    }
    for n in (0..=full.len()).rev() {
        assert_eq!(nodes(&s), forward[n]);
        s.step_back();
    }
});
