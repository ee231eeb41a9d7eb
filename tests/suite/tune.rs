//! `tune` (issue #57): every row equal to `policy DIR --what-if` of its setting, p02's real
//! run predicted from p01 under p02's setting, a folder with an unreadable file swept past
//! it, the HTML page self-contained, and a bad grid refused in one line.

use crate::binary::run_texts;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/policy")
}

fn json_of(args: &[&str], code: i32) -> Value {
    let (got, out, err) = run_texts(args);
    assert_eq!(got, Some(code), "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"))
}

fn folder(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        std::fs::copy(fixtures().join(name), dir.path().join(name)).unwrap();
    }
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn every_row_equals_policy_dir_what_if_of_its_setting() {
    let dir = folder(&["p01.jsonl", "p02.jsonl", "p12.jsonl"]);
    let tune = json_of(
        &[
            "tune",
            s(dir.path()),
            "--grid",
            "threshold_ratio=0.6:0.8:0.1",
            "--grid",
            "pruner=on,off",
            "--json",
        ],
        0,
    );
    let rows = tune["settings"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(tune["sessions"], 3);
    for row in rows {
        let set = &row["settings"];
        let t = set["threshold_ratio"].to_string();
        let mut args = vec![
            "policy",
            s(dir.path()),
            "--what-if",
            "--json",
            "--threshold-ratio",
            &t,
        ];
        if set["pruner"].is_null() {
            args.push("--no-prune");
        }
        // Exit 1: a what-if that diverges.
        let policy = json_of(&args, 1);
        assert_eq!(
            &policy["totals"]["what_if_row"], row,
            "{t} {}",
            set["pruner"]
        );
    }
}

/// p01's sweep under p02's setting, and p02's own baseline.
fn p02_from_p01() -> (Value, Value) {
    let p01 = fixtures().join("p01.jsonl");
    let p02 = fixtures().join("p02.jsonl");
    let predicted = json_of(
        &["tune", s(&p01), "--grid", "threshold_ratio=0.7", "--json"],
        0,
    );
    let real = json_of(
        &["tune", s(&p02), "--grid", "threshold_ratio=0.7", "--json"],
        0,
    );
    (
        predicted["settings"][0].clone(),
        real["baseline"]["totals"].clone(),
    )
}

#[test]
fn p02s_agent_prompt_is_predicted_from_p01_within_15_percent() {
    let (row, real) = p02_from_p01();
    let (guess, truth) = (
        row["totals"]["agent_prompt"]["likely"].as_f64().unwrap(),
        real["agent_prompt"]["likely"].as_f64().unwrap(),
    );
    assert!(
        (guess - truth).abs() <= 0.15 * truth,
        "agent prompt {guess} against p02's {truth}"
    );
    assert_eq!(row["exact_sessions"], 0, "it diverges");
}

#[test]
fn p02s_fired_checks_lie_inside_the_range_predicted_from_p01() {
    let (row, real) = p02_from_p01();
    let fired = real["fired"]["likely"].as_f64().unwrap();
    let (lo, hi) = (
        row["totals"]["fired"]["min"].as_f64().unwrap(),
        row["totals"]["fired"]["max"].as_f64().unwrap(),
    );
    assert!(
        lo <= fired && fired <= hi,
        "p02 fired {fired}, range {lo}–{hi}"
    );
}

#[test]
fn an_unreadable_file_is_a_row_with_its_error_and_the_rest_swept() {
    let dir = folder(&["p01.jsonl", "p02.jsonl"]);
    // Zstandard's magic number, then nothing it can decode.
    std::fs::write(
        dir.path().join("broken.jsonl.zstd"),
        b"\x28\xb5\x2f\xfd\x00\x00garbage",
    )
    .unwrap();
    let tune = json_of(
        &[
            "tune",
            s(dir.path()),
            "--grid",
            "threshold_ratio=0.7,0.8",
            "--json",
        ],
        1,
    );
    assert_eq!(tune["sessions"], 2);
    let list = tune["sessions_list"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    let broken: Vec<&Value> = list.iter().filter(|l| !l["error"].is_null()).collect();
    assert_eq!(broken.len(), 1);
    assert!(
        broken[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("broken.jsonl.zstd")
    );
    assert_eq!(tune["settings"][0]["sessions"], 2);
}

#[test]
fn the_html_page_holds_no_external_reference() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tune.html");
    let (code, _, err) = run_texts(&[
        "tune",
        s(&fixtures().join("p01.jsonl")),
        "--grid",
        "threshold_ratio=0.6,0.7,0.8",
        "--html",
        s(&out),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(
        page.contains("<svg") && page.contains("<polyline"),
        "the chart"
    );
    assert!(page.contains("baseline"));
    // What was swept, counted in words.
    assert!(
        page.contains("1 session swept under 3 settings"),
        "the summary line"
    );
    let svg_ns = "http://www.w3.org/2000/svg";
    let outside = page.replace(svg_ns, "");
    for needle in [
        "src=", "href=", "url(", "@import", "<script", "<link", "http:", "https:", "//",
    ] {
        assert!(!outside.contains(needle), "{needle} in the page");
    }
    // A second run refuses nothing with --force.
    let (code, _, err) = run_texts(&[
        "tune",
        s(&fixtures().join("p01.jsonl")),
        "--grid",
        "threshold_ratio=0.7",
        "--html",
        s(&out),
        "--force",
    ]);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_bad_grid_is_one_line_naming_the_flag_and_exit_2() {
    for grid in ["threshold_ratio=0.9:0.5:0.1", "nope=1", "pruner=sometimes"] {
        let (code, out, err) =
            run_texts(&["tune", s(&fixtures().join("p01.jsonl")), "--grid", grid]);
        assert_eq!(code, Some(2), "{grid}");
        assert!(out.is_empty());
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains("--grid"), "{err}");
    }
}
