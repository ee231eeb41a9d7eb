//! Folders (docs/export.md, issue #38 item 1): `policy DIR` and `cost DIR` on a folder of the
//! policy fixtures — every row equal to the per-file command's JSON on that file, in verify and
//! what-if mode, and the totals the sums of the rows — and on a folder holding an unreadable
//! file, a decompression bomb past `--max-bytes` and a FIFO beside a good session: those rows
//! carry their error, the good one finishes, and the exit codes are `check DIR`'s.

use crate::binary::run_texts;
use crate::common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/policy")
}

fn prices() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets/prices.example.json")
        .display()
        .to_string()
}

fn json_of(args: &[&str], code: i32) -> Value {
    let (got, out, err) = run_texts(args);
    assert_eq!(got, Some(code), "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"))
}

/// A folder with a copy of every policy fixture log.
fn fixture_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "p01.jsonl",
        "p01.packed.jsonl",
        "p02.jsonl",
        "p11.jsonl",
        "p12.jsonl",
    ] {
        std::fs::copy(fixtures().join(name), dir.path().join(name)).unwrap();
    }
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn every_policy_row_equals_policy_file_on_that_file() {
    let dir = fixture_folder();
    let prices = prices();
    for flags in [
        vec![],
        vec!["--what-if", "--threshold-ratio", "0.7", "--prices", &prices],
    ] {
        let mut args = vec!["policy", s(dir.path())];
        args.extend(&flags);
        args.push("--json");
        let doc = json_of(&args, 1);
        let sessions = doc["sessions"].as_array().unwrap();
        assert_eq!(sessions.len(), 5, "{flags:?}");
        let mut fired = 0;
        let mut agent_prompt = 0;
        let mut what_if_prompt = 0;
        for row in sessions {
            let file = row["file"].as_str().unwrap();
            let mut one = vec!["policy", file];
            one.extend(&flags);
            one.push("--json");
            let differs = if row["mode"] == "verify" {
                row["disagreements"].as_u64().unwrap() > 0
            } else {
                !row["first_divergence"].is_null()
            };
            let single = json_of(&one, i32::from(differs));
            for key in [
                "mode",
                "first_divergence",
                "totals",
                "actual_totals",
                "ranges",
                "ledger",
            ] {
                assert_eq!(row[key], single[key], "{file} {flags:?}: {key}");
            }
            let disagreements = single["checks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["agrees"] == false)
                .count();
            assert_eq!(row["disagreements"], disagreements, "{file}");
            fired += row["totals"]["fired"].as_u64().unwrap();
            agent_prompt += row["ledger"]["actual"]["agent_prompt"].as_u64().unwrap();
            what_if_prompt += row["ledger"]["what_if"]["agent_prompt"]
                .as_u64()
                .unwrap_or(0);
        }
        let totals = &doc["totals"];
        assert_eq!(totals["sessions"], 5);
        assert_eq!(totals["replay"]["fired"], fired);
        assert_eq!(totals["ledger"]["actual"]["agent_prompt"], agent_prompt);
        if flags.is_empty() {
            assert!(totals["ledger"]["what_if"].is_null());
            assert!(totals["ranges"].is_null());
        } else {
            assert_eq!(totals["ledger"]["what_if"]["agent_prompt"], what_if_prompt);
            let r = &totals["ranges"]["fired"];
            assert!(r["min"].as_u64() <= r["likely"].as_u64());
            assert!(r["likely"].as_u64() <= r["max"].as_u64());
            assert!(totals["ledger"]["actual"]["cost"].as_f64().unwrap() > 0.0);
        }
    }
    // One worker gives the same document.
    let a = json_of(&["policy", s(dir.path()), "--json"], 1);
    let b = json_of(&["policy", s(dir.path()), "--json", "--jobs", "1"], 1);
    assert_eq!(a, b);
}

#[test]
fn every_cost_row_equals_cost_file_on_that_file() {
    let dir = fixture_folder();
    let prices = prices();
    let doc = json_of(&["cost", s(dir.path()), "--prices", &prices, "--json"], 0);
    let sessions = doc["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 5);
    let mut prompt = 0;
    let mut cost = 0.0;
    for row in sessions {
        let file = row["file"].as_str().unwrap();
        let single = json_of(&["cost", file, "--prices", &prices, "--json"], 0);
        for key in [
            "totals",
            "compaction_totals",
            "caching",
            "cache_noise_median",
            "currency",
        ] {
            assert_eq!(row[key], single[key], "{file}: {key}");
        }
        assert_eq!(row["agent_prompt"], single["totals"]["agent"]["prompt"]);
        prompt += row["totals"]["all"]["prompt"].as_u64().unwrap();
        cost += row["totals"]["all"]["cost"].as_f64().unwrap();
    }
    let totals = &doc["totals"];
    assert_eq!(totals["sessions"], 5);
    assert_eq!(totals["prompt"], prompt);
    assert!((totals["cost"].as_f64().unwrap() - cost).abs() < 1e-9);
    assert_eq!(totals["currency"], "USD");
    // Without prices: no money anywhere.
    let doc = json_of(&["cost", s(dir.path()), "--json"], 0);
    assert!(doc["totals"]["cost"].is_null());
}

/// The members of the cache breaks' totals (docs/cost.md#why-the-cache-missed).
const BREAK_TOTALS: [&str; 6] = [
    "resent_tokens",
    "resent_by_cause",
    "provider_miss",
    "resent_cost_by_cause",
    "resent_cost",
    "provider_miss_cost",
];

#[test]
fn every_cost_rows_cache_misses_are_cost_requests_totals_and_the_fleets_add_up() {
    let dir = fixture_folder();
    let prices = prices();
    let doc = json_of(&["cost", s(dir.path()), "--prices", &prices, "--json"], 0);
    let (mut resent, mut replace, mut missed, mut money) = (0, 0, 0, 0.0);
    for row in doc["sessions"].as_array().unwrap() {
        let file = row["file"].as_str().unwrap();
        let single = json_of(
            &["cost", file, "--requests", "--prices", &prices, "--json"],
            0,
        );
        for key in BREAK_TOTALS {
            assert_eq!(row[key], single[key], "{file}: {key}");
        }
        let by_cause = row["resent_by_cause"].as_object().unwrap();
        let sum: u64 = by_cause.values().map(|v| v.as_u64().unwrap()).sum();
        assert_eq!(Some(sum), row["resent_tokens"].as_u64(), "{file}");
        resent += sum;
        replace += by_cause["replace"].as_u64().unwrap();
        missed += row["provider_miss"].as_u64().unwrap();
        money += row["resent_cost"].as_f64().unwrap();
    }
    let totals = &doc["totals"];
    assert!(replace > 0 && resent > replace, "p01 also breaks on a tool");
    assert_eq!(totals["resent_tokens"], resent);
    assert_eq!(totals["resent_by_cause"]["replace"], replace);
    assert_eq!(totals["provider_miss"], missed);
    assert!((totals["resent_cost"].as_f64().unwrap() - money).abs() < 1e-9);
    let (_, text, _) = run_texts(&["cost", s(dir.path())]);
    let line = format!("over the caching sessions: resent: {resent} tokens — replace {replace}");
    assert!(text.contains(&line), "{text}");
    // The CSV's by-cause columns are the JSON's.
    let (_, csv, _) = run_texts(&["cost", s(dir.path()), "--csv"]);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|&h| h == "resent_replace").unwrap();
    let csv_replace: u64 = (csv.lines().skip(1))
        .map(|l| l.split(',').nth(col).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(csv_replace, replace);
}

#[test]
fn the_reports_have_a_row_per_session_and_the_totals() {
    let dir = fixture_folder();
    let root = s(dir.path());
    let (code, text, err) = run_texts(&["policy", root, "--what-if", "--threshold-ratio", "0.7"]);
    assert_eq!(code, Some(1), "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("session") && lines[0].contains("near"),
        "{text}"
    );
    assert_eq!(lines.len(), 1 + 5 + 1 + 1, "{text}");
    assert!(lines[6].starts_with("total"), "{text}");
    assert!(
        lines[7].contains("the what-if against the logs: fired +"),
        "{text}"
    );
    let p01 = lines.iter().find(|l| l.contains("p01.jsonl")).unwrap();
    assert!(
        p01.contains("10 → 13 (10–16)") && p01.contains("365984 → 342427"),
        "{p01}"
    );
    // No progress bar when stderr is not a terminal.
    assert!(err.is_empty(), "{err:?}");
    let (code, text, _) = run_texts(&["cost", root]);
    assert_eq!(code, Some(0));
    assert!(text.lines().nth(6).unwrap().starts_with("total"), "{text}");
    assert!(text.contains("5 sessions under"), "{text}");
    // CSV: the header, one row per session.
    for (cmd, header) in [
        (
            "policy",
            surface_cli::fleet::policy_dir::CSV_COLUMNS.join(","),
        ),
        ("cost", surface_cli::fleet::cost_dir::CSV_COLUMNS.join(",")),
    ] {
        let (_, csv, _) = run_texts(&[cmd, root, "--csv"]);
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows[0], header);
        assert_eq!(rows.len(), 6, "{csv}");
        let columns = header.split(',').count();
        for row in &rows[1..] {
            assert_eq!(row.split(',').count(), columns, "{row}");
        }
    }
}

/// A Zstandard session whose text, once decompressed, is 64 MiB of blank lines (a 64 kB file).
fn bomb() -> Vec<u8> {
    let mut file = zstd::bulk::compress(format!("{}\n", common::HEADER).as_bytes(), 3).unwrap();
    let mut encoder = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    let block = vec![b'\n'; 1 << 20];
    for _ in 0..64 {
        encoder.write_all(&block).unwrap();
    }
    file.extend(encoder.finish().unwrap());
    file
}

#[test]
fn unreadable_files_a_bomb_and_a_fifo_are_rows_with_their_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixtures().join("p01.jsonl"), dir.path().join("good.jsonl")).unwrap();
    let bomb_bytes = bomb();
    assert!(bomb_bytes.len() < 1 << 20);
    std::fs::write(dir.path().join("bomb.jsonl.zstd"), bomb_bytes).unwrap();
    // Zstandard's magic number, then nothing it can decode.
    std::fs::write(
        dir.path().join("broken.jsonl.zstd"),
        b"\x28\xb5\x2f\xfd\x00\x00garbage",
    )
    .unwrap();
    let fifo = dir.path().join("pipe.jsonl");
    let have_fifo = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|st| st.success());
    let root = s(dir.path());
    let prices = prices();
    for args in [
        vec!["policy", root, "--max-bytes", "16M", "--json"],
        vec!["policy", root, "--max-bytes", "16M", "--what-if", "--json"],
        vec![
            "cost",
            root,
            "--max-bytes",
            "16M",
            "--prices",
            &prices,
            "--json",
        ],
    ] {
        let doc = json_of(&args, 1);
        let rows = doc["sessions"].as_array().unwrap();
        let row = |name: &str| {
            rows.iter()
                .find(|r| r["file"].as_str().unwrap().ends_with(name))
                .unwrap_or_else(|| panic!("{name} in {rows:?}"))
        };
        assert!(row("good.jsonl").get("error").is_none(), "{args:?}");
        assert!(row("good.jsonl")["totals"].is_object());
        let bomb = row("bomb.jsonl.zstd")["error"].as_str().unwrap();
        assert!(bomb.contains("16 MiB"), "{bomb}");
        let broken = row("broken.jsonl.zstd")["error"].as_str().unwrap();
        assert!(broken.contains("Zstandard"), "{broken}");
        assert_eq!(row("broken.jsonl.zstd")["skipped"], false);
        if have_fifo {
            let pipe = row("pipe.jsonl");
            assert_eq!(pipe["skipped"], true);
            assert!(pipe["error"].as_str().unwrap().contains("FIFO"), "{pipe}");
        }
        assert_eq!(doc["totals"]["sessions"], 1);
        assert_eq!(doc["totals"]["unreadable"], 2);
        assert_eq!(doc["totals"]["skipped"], u64::from(have_fifo));
    }
    let (code, text, _) = run_texts(&["policy", root, "--max-bytes", "16M"]);
    assert_eq!(code, Some(1));
    assert!(text.contains("bomb.jsonl.zstd: unreadable: "), "{text}");
    assert!(
        text.contains("1 session under") && text.contains("2 unreadable"),
        "{text}"
    );
    if have_fifo {
        assert!(text.contains("pipe.jsonl: skipped: a FIFO"), "{text}");
    }
    // Nothing readable: exit 2.
    std::fs::remove_file(dir.path().join("good.jsonl")).unwrap();
    for cmd in ["policy", "cost"] {
        let (code, _, err) = run_texts(&[cmd, root, "--max-bytes", "16M"]);
        assert_eq!(code, Some(2), "{cmd}: {err}");
    }
    // A folder with no session file at all: one line, exit 2.
    let empty = tempfile::tempdir().unwrap();
    let (code, _, err) = run_texts(&["policy", s(empty.path())]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no session file"), "{err}");
}
