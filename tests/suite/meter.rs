//! The token meter (docs/meter.md) against the harness's own output on three upstream
//! fixtures (`tests/fixtures/meter/`), row by row and field by field, through the library and
//! through the binary; the context window of a real log; and the meter's bad-input warnings.

use crate::binary::bin;
use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{Value, json};
use surface_engine::{BaselineKind, EventLog, Meter, Surface, check};
use surface_store as store;

/// The fixtures the harness's meter output was recorded for.
const METERED: [&str; 3] = ["cancel", "compaction-recovery", "packed-chunks"];

fn head_fixture(name: &str) -> PathBuf {
    upstream(&format!("v0-2026-08-20-head/{name}.session.jsonl"))
}

fn expected_rows(name: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/fixtures/meter/{name}.meter.jsonl"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn open(path: &Path) -> EventLog {
    store::open(path, &surface_store::Options::default())
        .unwrap()
        .log
}

#[test]
fn library_figures_equal_the_harness_meter_on_every_row() {
    for name in METERED {
        let log = open(&head_fixture(name));
        let meter = Meter::build(&log, &Surface::at_end(&log));
        let rows = expected_rows(name);
        assert_eq!(rows.len(), log.len(), "{name}: one row per event");
        let mut replay = Surface::new(&log);
        for (i, row) in rows.iter().enumerate() {
            let idx = surface_engine::EventIdx(i as u32);
            replay.seek(&log, i + 1);
            let f = meter.at(i + 1);
            let nodes: Vec<Value> = replay
                .nodes()
                .map(|n| json!([log.event(n).seq, meter.price(n)]))
                .collect();
            let got = json!({
                "seq": log.event(idx).seq,
                "type": log.type_name(idx),
                "total": f.total,
                "surface": f.surface,
                "baseline_kind": f.baseline_kind.as_str(),
                "baseline": f.baseline,
                "nodes": nodes,
            });
            assert_eq!(&got, row, "{name}, row {i}");
        }
    }
}

#[test]
fn compaction_recovery_has_a_128k_window_and_real_tools() {
    let log = open(&head_fixture("compaction-recovery"));
    let meter = Meter::build(&log, &Surface::at_end(&log));
    assert_eq!(meter.window_at(log.len()), Some(128_000));
    assert_eq!(meter.threshold_at(log.len(), 0.8), Some(102_400));
    assert_eq!(meter.window_at(7), None, "the window arrives with seq 7");
    let header = meter.header_at(log.len()).unwrap();
    assert!(header.tools.len() > 3 && header.system.is_some());
    // Usage below the heuristic: the anchors stay estimated.
    assert!(meter.anchors().all(|a| a.kind == BaselineKind::Estimated));
}

#[test]
fn scrubbed_tools_are_a_warning_not_an_error() {
    let log = open(&head_fixture("cancel"));
    let findings = check(&log, &Surface::at_end(&log));
    let meter: Vec<_> = findings
        .iter()
        .filter(|f| f.rule.starts_with("meter."))
        .map(|f| (f.rule, f.seq, f.severity.as_str()))
        .collect();
    assert_eq!(meter, [("meter.bad-tools", Some(7), "warning")]);
}

#[test]
fn tokens_json_equals_the_harness_meter_on_every_row() {
    for name in METERED {
        let out = bin()
            .args(["tokens", "--json"])
            .arg(head_fixture(name))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let rows = doc["rows"].as_array().unwrap();
        let expected = expected_rows(name);
        assert_eq!(rows.len(), expected.len(), "{name}");
        for (i, (got, want)) in rows.iter().zip(&expected).enumerate() {
            for field in [
                "seq",
                "type",
                "total",
                "surface",
                "baseline_kind",
                "baseline",
            ] {
                assert_eq!(got[field], want[field], "{name}, row {i}, {field}");
            }
        }
        assert_eq!(doc["threshold_ratio"], json!(0.8));
    }
}

// --- The fast pricer against the reference ---------------------------------------------

mod fast_equals_reference {
    use super::*;
    use proptest::prelude::*;
    use std::fmt::Write as _;
    use surface_engine::EventIdx;
    use surface_engine::meter::{
        Assembler, chunk_piece, chunk_piece_fast, chunk_piece_reference, node_price,
        node_price_fast, node_price_reference, streamed_price,
    };

    /// A content block as the generator builds it.
    #[derive(Clone, Debug)]
    enum B {
        Text(&'static str, String),
        ToolCall(String, String),
        ToolResult(Vec<B>),
        Unknown(String),
        Odd(String),
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                4 => any::<char>(),
                1 => Just('😀'),
                1 => Just('"'),
                1 => Just('\\'),
                1 => Just('\n'),
                1 => Just('\u{1}'),
                1 => Just('é'),
            ],
            0..24,
        )
        .prop_map(String::from_iter)
    }

    fn number() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("1.0".to_string()),
            Just("1e-7".to_string()),
            Just("1E21".to_string()),
            Just("-0".to_string()),
            Just("123456789012345678901".to_string()),
            Just("2.5e-6".to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| format!("{f:e}")),
            (any::<u32>(), 0u32..30).prop_map(|(m, e)| format!("{m}.5e-{e}")),
        ]
    }

    fn block() -> impl Strategy<Value = B> {
        let leaf = prop_oneof![
            3 => (prop_oneof![Just("text"), Just("reasoning")], text()).prop_map(|(k, t)| B::Text(k, t)),
            2 => (text(), text()).prop_map(|(n, a)| B::ToolCall(n, a)),
            1 => (text(), number()).prop_map(|(t, n)| B::Unknown(format!(
                r#"{{"type":"image","n":{n},"t":{},"z":[true,null,{{"0":1,"a":{n}}}]}}"#,
                serde_json::to_string(&t).unwrap()
            ))),
            1 => number().prop_map(|n| B::Odd(format!(r#"{{"type":"text","text":{n}}}"#))),
            1 => Just(B::Odd(r#"{"type":"tool-call","name":"x"}"#.to_string())),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop::collection::vec(inner, 0..4).prop_map(B::ToolResult)
        })
    }

    /// A JSON string literal, with every non-ASCII character as `\u` escapes when `escape`.
    fn literal(s: &str, escape: bool) -> String {
        if !escape {
            return serde_json::to_string(s).unwrap();
        }
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 || !c.is_ascii() => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        let _ = write!(out, "\\u{u:04X}");
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    /// Whether the fast pricer knows every block of `b` (the shapes it is meant to price).
    fn known(b: &B) -> bool {
        match b {
            B::Text(..) | B::ToolCall(..) => true,
            B::ToolResult(inner) => inner.iter().all(known),
            B::Unknown(_) | B::Odd(_) => false,
        }
    }

    fn render(b: &B, escape: bool) -> String {
        match b {
            B::Text(kind, t) => format!(r#"{{"type":"{kind}", "text" : {}}}"#, literal(t, escape)),
            B::ToolCall(n, a) => format!(
                r#"{{"type":"tool-call","id":"c","name":{},"arguments":{}}}"#,
                literal(n, escape),
                literal(a, escape)
            ),
            B::ToolResult(inner) => format!(
                r#"{{"type":"tool-result","toolCallId":"c","content":[{}],"isError":false}}"#,
                inner
                    .iter()
                    .map(|b| render(b, escape))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            B::Unknown(json) | B::Odd(json) => json.clone(),
        }
    }

    fn event_line(seq: u64, shape: u8, blocks: &[B], escape: bool) -> String {
        let content = format!(
            "[{}]",
            blocks
                .iter()
                .map(|b| render(b, escape))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let data = match shape % 6 {
            0 => format!(
                r#"{{"content":{content},"source":{{"kind":"user"}},"role":"user","id":"u"}}"#
            ),
            1 => format!(
                r#"{{"turn":1,"step":1,"message":{{"role":"assistant","content":{content},"id":"a"}},"usage":{{"inputTokens":3}}}}"#
            ),
            2 => format!(
                r#"{{"turn":1,"step":1,"message":{{"role":"user","content":[{{"type":"tool-result","toolCallId":"c","content":{content}}}]}}}}"#
            ),
            3 => format!(r#"{{"callId":"c","content":{content},"isError":false}}"#),
            4 => format!(r#"{{"content":{content},"source":{{"kind":"plugin"}}}}"#),
            _ => format!(r#"{{"turn":1,"step":1,"content":{content}}}"#),
        };
        let kind = [
            "user/message",
            "assistant/message",
            "tool/result",
            "tool/result",
            "context/message",
            "assistant/message",
        ][shape as usize % 6];
        envelope(kind, seq, &data, shape / 6, r#","surfaceOp":"append""#)
    }

    /// An event line around `data`: the harness's own layout (`{"type":…,"seq":…,"time":…,
    /// "data":…`), which the pricer steps over by bytes, or one it must walk.
    fn envelope(kind: &str, seq: u64, data: &str, layout: u8, tail: &str) -> String {
        match layout % 4 {
            0 => format!(r#"{{"type":"{kind}","seq":{seq},"time":1,"data":{data}{tail}}}"#),
            1 => format!(r#"{{"type": "{kind}", "seq": {seq}, "time": 1, "data": {data}{tail}}}"#),
            2 => format!(r#"{{"data":{data},"type":"{kind}","seq":{seq}{tail}}}"#),
            _ => format!(r#"{{"type":"{kind}","seq":{seq},"time":1.5,"data":{data}{tail}}}"#),
        }
    }

    fn chunk_line(seq: u64, b: &B, which: u8, escape: bool) -> String {
        let chunk = match (which % 5, b) {
            (0, B::Text(kind, t)) => format!(
                r#"{{"type":"{kind}-delta","index":{seq},"text":{}}}"#,
                literal(t, escape)
            ),
            (1, B::ToolCall(n, a)) => format!(
                r#"{{"type":"tool-call-delta","index":2,"id":"c","name":{},"argumentsDelta":{}}}"#,
                literal(n, escape),
                literal(a, escape)
            ),
            (2, _) => format!(
                r#"{{"type":"block-end","index":1,"block":{}}}"#,
                render(b, escape)
            ),
            (3, _) => r#"{"type":"finish","reason":{"kind":"max-tokens"}}"#.to_string(),
            _ => r#"{"type":"block-start","index":0,"blockType":"reasoning"}"#.to_string(),
        };
        let other = r#"{"type":"finish","reason":{"kind":"stop"}}"#;
        let data = match which / 5 % 5 {
            0 => format!(r#"{{"turn":1,"step":1,"chunk":{chunk}}}"#),
            // A repeated key: the last one counts, so the fast walk must give up.
            1 => format!(r#"{{"turn":1,"step":1,"chunk":{chunk},"chunk":{other}}}"#),
            2 => format!(r#"{{"turn":1,"step":1,"chunk":{other},"chunk":{chunk}}}"#),
            3 => format!(r#"{{"chunk":{chunk},"turn":1,"step":"s"}}"#),
            _ => format!(r#"{{"turn":1, "step":1, "chunk":{chunk}, "extra":[1]}}"#),
        };
        envelope("assistant/chunk", seq, &data, which / 25, "")
    }

    /// A packed row: its kind (0 reasoning, 1 text, 2 tool call), block index and pieces.
    fn packed_row(seq0: u64, kind: u8, index: u64, pieces: &[String]) -> String {
        // A gap from each member's time to the next one's.
        let dt = vec!["1"; pieces.len().saturating_sub(1)].join(",");
        let list = pieces
            .iter()
            .map(|p| serde_json::to_string(p).unwrap())
            .collect::<Vec<_>>()
            .join(",");
        let (row, extra, key) = match kind % 3 {
            0 => ("reasoning-chunks", String::new(), "texts"),
            1 => ("text-chunks", String::new(), "texts"),
            // Names of different lengths: which name counts (the last one) shows in the price.
            _ => (
                "tool-call-chunks",
                format!(
                    r#""id":"c","name":"run{}","#,
                    "x".repeat(usize::from(kind / 3 % 4))
                ),
                "args",
            ),
        };
        format!(
            r#"{{"type":"{row}","seq0":{seq0},"time0":1,"data":{{"turn":1,"step":1,"index":{index},{extra}"dt":[{dt}],"{key}":[{list}]}}}}"#
        )
    }

    /// The member-by-member reference of a streamed price.
    fn streamed_reference(log: &EventLog, sources: &[u64]) -> u64 {
        let mut reference = Assembler::default();
        for &s in sources {
            reference.push(chunk_piece_reference(log, log.find_seq(s).unwrap()));
        }
        reference.price()
    }

    #[test]
    fn a_delta_after_a_packed_run_names_the_tool_call() {
        // Two members of a packed tool-call row named `runxxx`, then a delta of its own line
        // naming the same block `n`: the last name counts (⌈1/4⌉, not ⌈6/4⌉).
        let lines = [
            packed_row(1, 11, 0, &["{".to_string(), "}".to_string()]),
            chunk_line(3, &B::ToolCall("n".to_string(), "ab".to_string()), 1, false)
                .replace(r#""index":2"#, r#""index":0"#),
        ];
        let log = log_of(&text_of(&lines));
        for sources in [&[1, 2, 3][..], &[3, 1, 2], &[1, 3, 2], &[2, 1, 3]] {
            assert_eq!(
                streamed_price(&log, sources),
                streamed_reference(&log, sources),
                "{sources:?}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn node_prices_equal_the_reference(
            messages in prop::collection::vec((any::<u8>(), prop::collection::vec(block(), 0..5), any::<bool>()), 1..8),
        ) {
            let lines: Vec<String> = messages
                .iter()
                .enumerate()
                .map(|(k, (shape, blocks, escape))| event_line(k as u64, *shape, blocks, *escape))
                .collect();
            let log = log_of(&text_of(&lines));
            prop_assert_eq!(log.len(), lines.len());
            for (i, (shape, blocks, _)) in log.indices().zip(&messages) {
                let reference = node_price_reference(&log, i);
                prop_assert_eq!(node_price(&log, i), reference, "{}", lines[i.get()]);
                // The fast path ran (and agreed) wherever it is meant to: every shape but the
                // wrapped era (context/message), with only blocks it knows.
                let fast = node_price_fast(&log, i);
                let meant = shape % 6 != 4 && blocks.iter().all(known);
                prop_assert_eq!(fast.is_some(), meant, "{}", lines[i.get()]);
                if let Some(fast) = fast {
                    prop_assert_eq!(fast, reference, "{}", lines[i.get()]);
                }
            }
        }

        #[test]
        fn chunk_pieces_equal_the_reference(
            chunks in prop::collection::vec((block(), any::<u8>(), any::<bool>()), 1..8),
        ) {
            let lines: Vec<String> = chunks
                .iter()
                .enumerate()
                .map(|(k, (b, which, escape))| chunk_line(k as u64, b, *which, *escape))
                .collect();
            let log = log_of(&text_of(&lines));
            prop_assert_eq!(log.len(), lines.len());
            for (k, (line, (b, which, _))) in lines.iter().zip(&chunks).enumerate() {
                let i = EventIdx(k as u32);
                let reference = chunk_piece_reference(&log, i);
                prop_assert_eq!(&chunk_piece(&log, i), &reference, "{}", line);
                // The fast path ran wherever it is meant to: no repeated `chunk` key, and a
                // block-end's block one it knows.
                let fast = chunk_piece_fast(&log, i);
                let meant = !matches!(which / 5 % 5, 1 | 2) && (which % 5 != 2 || known(b));
                prop_assert_eq!(fast.is_some(), meant, "{}", line);
                if let Some(fast) = fast {
                    prop_assert_eq!(fast, reference, "{}", line);
                }
            }
        }

        /// A streamed price over packed rows — members cited in runs, out of order, twice,
        /// partly, or mixed with block-ends — equals the price assembled member by member from
        /// each member's own JSON.
        #[test]
        fn streamed_prices_over_packed_rows_equal_member_by_member(
            rows in prop::collection::vec(
                (any::<u8>(), 0u64..3, prop::collection::vec(text(), 1..6)), 1..4),
            ends in prop::collection::vec((0u64..3, any::<u8>()), 0..4),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 0..40),
            runs in any::<bool>(),
        ) {
            let mut lines = Vec::new();
            let mut seq = 1u64;
            for (kind, index, pieces) in &rows {
                lines.push(packed_row(seq, *kind, *index, pieces));
                seq += pieces.len() as u64;
            }
            // Block-ends, and tool-call deltas of their own lines with names of their own.
            for (index, which) in &ends {
                let line = match which % 3 {
                    0 => chunk_line(seq, &B::Text("text", "end".to_string()), 2, false)
                        .replace(r#""index":1"#, &format!(r#""index":{index}"#)),
                    1 => chunk_line(seq, &B::ToolCall("run".to_string(), "{}".to_string()), 2, false)
                        .replace(r#""index":1"#, &format!(r#""index":{index}"#)),
                    _ => chunk_line(seq, &B::ToolCall("n".repeat(usize::from(which % 7)), "ab".to_string()), 1, false)
                        .replace(r#""index":2"#, &format!(r#""index":{index}"#)),
                };
                lines.push(line);
                seq += 1;
            }
            let log = log_of(&text_of(&lines));
            prop_assert_eq!(log.len() as u64, seq - 1);
            // Every seq in order (runs), or a random pick of seqs (repeats and gaps).
            let sources: Vec<u64> = if runs {
                (1..seq).collect()
            } else {
                picks.iter().map(|p| 1 + p.index(seq as usize - 1) as u64).collect()
            };
            prop_assert_eq!(streamed_price(&log, &sources), streamed_reference(&log, &sources), "{:?}", sources);
        }
    }
}

#[test]
fn a_generated_log_prices_like_the_reference_on_every_thread_count() {
    use surface_engine::meter::{node_price_fast, node_price_reference};
    use surface_synth::{SynthConfig, generate};
    let mut bytes = Vec::new();
    generate(&SynthConfig::with_events(40_000), &mut bytes).unwrap();
    let log = surface_store::read_jsonl(bytes, None).unwrap();
    let surface = Surface::at_end(&log);
    let single = Meter::build(&log, &surface);
    for workers in [1, 2, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        let parallel = surface_passes::meter_of_in(&pool, &log, &surface);
        for c in 0..=log.len() {
            assert_eq!(
                single.at(c),
                parallel.at(c),
                "{workers} workers, cursor {c}"
            );
        }
    }
    let mut fast = 0;
    let mut eligible = 0;
    for i in log.indices().filter(|&i| log.is_eligible(i)) {
        let reference = node_price_reference(&log, i);
        assert_eq!(single.price(i), reference, "seq {}", log.event(i).seq);
        eligible += 1;
        if let Some(price) = node_price_fast(&log, i) {
            assert_eq!(price, reference, "seq {}", log.event(i).seq);
            fast += 1;
        }
    }
    // The generator writes the harness's current shapes: the fast path prices every node.
    assert!(eligible > 1000);
    assert_eq!(fast, eligible);
    // Usage-anchored, with compactions and prunes along the way.
    assert!(single.anchors().any(|a| a.kind == BaselineKind::Usage));
    assert_eq!(
        single.window_at(log.len()),
        Some(SynthConfig::default().context_window)
    );
}

/// Every stream chunk of the real logs and of a generated one reads as the JSON tree reads it
/// (the harness's literal layout, the scan, the tree), and a chunk whose line a `Value` parse
/// refuses reads as no chunk at all: the meter fuzzer's finding, a `time` of
/// `1781831E+54681472` before a `block-start`.
#[test]
fn every_chunk_reads_as_the_json_tree_reads_it() {
    use surface_engine::EventType;
    use surface_engine::meter::{Piece, chunk_piece, chunk_piece_reference};
    let agree = |log: &EventLog, what: &str| {
        let mut chunks = 0;
        for idx in log.indices() {
            if log.event_type(idx) == EventType::AssistantChunk {
                chunks += 1;
                assert_eq!(
                    chunk_piece(log, idx),
                    chunk_piece_reference(log, idx),
                    "{what}, seq {}",
                    log.event(idx).seq
                );
            }
        }
        chunks
    };
    let mut chunks = 0;
    let policy = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/policy");
    let policy_logs = [
        "p01.jsonl",
        "p01.packed.jsonl",
        "p02.jsonl",
        "p11.jsonl",
        "p12.jsonl",
    ]
    .map(|name| policy.join(name));
    for path in upstream_files().into_iter().chain(policy_logs) {
        chunks += agree(&open(&path), &path.display().to_string());
    }
    assert!(chunks > 1_000, "{chunks} chunks read");
    let refused = concat!(
        r#"{"type":"assistant/chunk","seq":3,"time":1781831E+54681472,"data":{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"reasoning"}}}"#,
        "\n",
        r#"{"type":"assistant/chunk","seq":4,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"The"}}}"#,
        "\n",
    );
    let log = log_of(refused);
    assert_eq!(agree(&log, "the fuzzer's log"), 2);
    assert_eq!(chunk_piece(&log, surface_engine::EventIdx(0)), Piece::Other);
}
