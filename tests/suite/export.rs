//! `export` (docs/export.md), read back with the parquet crate's own reader: every table of an
//! export of the policy and upstream fixtures holds, file by file, the engine's figures (event
//! by event, call by call, check by check, compaction by compaction, finding by finding); the
//! Parquet types are strict; a folder with an unreadable file, a decompression bomb and a FIFO
//! exports the rest; OUT that exists is refused, and `--force` replaces only our table folders;
//! docs/export.md documents every column; docs/export.md's first DuckDB query runs where the `duckdb`
//! Python package is importable (required when `SURFACE_VIEWER_REQUIRE_DUCKDB` is set, as
//! `.ci/run` does).

use crate::binary::{bin, run};
use crate::common;
use crate::common::repo_root as root;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde_json::Value;
use surface_analysis::audit::audit;
use surface_analysis::cost::{Ledger, ledger_of};
use surface_analysis::policy::{PolicyInput, PolicySettings, ReplayMode, replay};
use surface_cli::{Input, load};
use surface_engine::{CheckReport, EventLog, EventState, Meter, Surface};

/// Every table an export writes, as the tests expect them (not read from the product, so that
/// a table it stops writing fails them).
pub const TABLES: [&str; 6] = [
    "sessions",
    "events",
    "calls",
    "checks",
    "compactions",
    "findings",
];

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A cell read back.
#[derive(Clone, Debug, PartialEq)]
enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
    Time(i64),
}

impl Cell {
    fn int(&self) -> Option<i64> {
        match self {
            Cell::Int(v) => Some(*v),
            Cell::Null => None,
            other => panic!("not an integer: {other:?}"),
        }
    }

    fn text(&self) -> Option<&str> {
        match self {
            Cell::Text(s) => Some(s),
            Cell::Null => None,
            other => panic!("not text: {other:?}"),
        }
    }

    fn flag(&self) -> Option<bool> {
        match self {
            Cell::Bool(b) => Some(*b),
            Cell::Null => None,
            other => panic!("not a flag: {other:?}"),
        }
    }
}

type Row = BTreeMap<String, Cell>;

/// Every row of every part file of `OUT/table`, and each file's key-value metadata.
fn read_table(out: &Path, table: &str) -> (Vec<Row>, Vec<BTreeMap<String, String>>) {
    let folder = out.join(table);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{table}: no part file");
    let (mut rows, mut metadata) = (Vec::new(), Vec::new());
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("part-") && name.ends_with(".parquet") && name.len() == 18,
            "{name}"
        );
        let reader = SerializedFileReader::new(std::fs::File::open(&file).unwrap()).unwrap();
        let kv = reader
            .metadata()
            .file_metadata()
            .key_value_metadata()
            .map(|kv| {
                kv.iter()
                    .map(|k| (k.key.clone(), k.value.clone().unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default();
        metadata.push(kv);
        for row in reader.get_row_iter(None).unwrap() {
            let row = row.unwrap();
            let cells = row
                .get_column_iter()
                .map(|(name, field)| {
                    let cell = match field {
                        Field::Null => Cell::Null,
                        Field::Bool(b) => Cell::Bool(*b),
                        Field::Long(v) => Cell::Int(*v),
                        Field::Int(v) => Cell::Int(i64::from(*v)),
                        Field::Double(v) => Cell::Float(*v),
                        Field::Str(s) => Cell::Text(s.clone()),
                        Field::TimestampMillis(t) => Cell::Time(*t),
                        other => panic!("{table}.{name}: unexpected type {other:?}"),
                    };
                    (name.clone(), cell)
                })
                .collect();
            rows.push(cells);
        }
    }
    (rows, metadata)
}

fn rows_of<'a>(rows: &'a [Row], path: &str) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| r["path"].text() == Some(path))
        .collect()
}

fn fixture_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/fixtures/policy"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".jsonl")
        })
        .collect();
    files.extend(common::upstream_files());
    files.sort();
    files
}

/// Exports the policy and upstream fixture folders into a temporary folder.
fn export_fixtures(extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let policy = root().join("tests/fixtures/policy");
    let upstream = common::upstream_dir();
    let mut args = vec![
        "export",
        policy.to_str().unwrap(),
        upstream.to_str().unwrap(),
        "--to",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let done = run(&args);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done));
    (dir, out)
}

#[test]
fn every_table_holds_the_engines_figures_for_every_fixture() {
    let (_dir, out) = export_fixtures(&["--jobs", "2"]);
    let tables: BTreeMap<&str, Vec<Row>> = TABLES
        .into_iter()
        .map(|t| {
            let (rows, metadata) = read_table(&out, t);
            for kv in metadata {
                assert_eq!(
                    kv.get("schema_version").map(String::as_str),
                    Some("1"),
                    "{t}"
                );
                assert_eq!(kv.get("surface_viewer.table").map(String::as_str), Some(t));
            }
            (t, rows)
        })
        .collect();
    let files = fixture_files();
    assert_eq!(tables["sessions"].len(), files.len());
    for file in &files {
        let path = file.to_str().unwrap();
        let input = Input {
            file: file.clone(),
            session: None,
            max_bytes: None,
        };
        let loaded = load(&input, false).unwrap();
        let log = &loaded.log;
        let (report, surface) = surface_cli::check_report_of(log);
        let meter = surface_cli::meter_of(log, &surface);
        let run = Run {
            path,
            log,
            surface: &surface,
            meter: &meter,
        };
        let rows = |table: &str| rows_of(&tables[table], path);

        // sessions: one row, its header's id, the check's verdict.
        let session = rows("sessions");
        assert_eq!(session.len(), 1, "{path}");
        let s = session[0];
        let id = Some(loaded.session.id.as_str()).filter(|id| !id.is_empty());
        assert_eq!(s["session_id"].text(), id, "{path}");
        session_row_is_the_checks(&run, s, &report);
        events_are_the_meters_and_the_surfaces(&run, &rows("events"));
        let ledger = ledger_of(log, &surface, &meter, None);
        calls_are_the_ledgers(&run, s, &rows("calls"), &ledger);
        checks_are_the_verify_replays(&run, s, &rows("checks"));
        compactions_are_the_audits(&run, &rows("compactions"), &ledger);
        findings_are_the_checks(path, &rows("findings"), &report);
    }
}

/// One exported session, as the engine reads it.
struct Run<'a> {
    path: &'a str,
    log: &'a EventLog,
    surface: &'a Surface,
    meter: &'a Meter,
}

fn session_row_is_the_checks(run: &Run<'_>, s: &Row, report: &CheckReport) {
    let (path, log) = (run.path, run.log);
    assert_eq!(s["error"], Cell::Null, "{path}");
    assert_eq!(s["events"].int(), Some(log.len() as i64), "{path}");
    let errors = report.findings.iter().filter(|f| f.is_error()).count();
    assert_eq!(s["errors"].int(), Some(errors as i64), "{path}");
    assert_eq!(
        s["warnings"].int(),
        Some((report.findings.len() - errors) as i64)
    );
    assert_eq!(s["mode"].text(), Some(run.surface.mode().as_str()));
    let window = run.meter.window_at(log.len());
    assert_eq!(s["window"].int(), window.map(|w| w as i64), "{path}");
}

/// events: every event in log order, with the meter's figures and the surface's state.
fn events_are_the_meters_and_the_surfaces(run: &Run<'_>, events: &[&Row]) {
    let Run {
        path,
        log,
        surface,
        meter,
    } = *run;
    assert_eq!(events.len(), log.len(), "{path}");
    let mut on_surface = 0;
    for (idx, row) in log.indices().zip(events) {
        let e = log.event(idx);
        assert_eq!(row["seq"].int(), Some(e.seq as i64), "{path}");
        assert_eq!(row["type"].text(), Some(log.type_name(idx)), "{path}");
        match e.time() {
            Some(t) => assert_eq!(row["time"], Cell::Time(t), "{path}"),
            None => assert_eq!(row["time"], Cell::Null),
        }
        assert_eq!(
            row["total"].int(),
            Some(i64::from(meter.total_after(idx.get()))),
            "{path} seq {}",
            e.seq
        );
        let eligible = log.is_eligible(idx);
        assert_eq!(
            row["price"].int(),
            eligible.then(|| meter.price(idx) as i64),
            "{path}"
        );
        let state = surface.state(idx);
        assert_eq!(row["state"].text(), Some(state.label()));
        assert_eq!(
            row["on_surface"].flag(),
            Some(state == EventState::OnSurface)
        );
        on_surface += usize::from(state == EventState::OnSurface);
        if let EventState::Shadowed { by } = state {
            assert_eq!(row["shadowed_by"].int(), Some(log.event(by).seq as i64));
        }
        assert!(matches!(row["session_id"], Cell::Text(_) | Cell::Null));
    }
    assert_eq!(on_surface, surface.len(), "{path}");
}

/// calls: the ledger's, call by call.
fn calls_are_the_ledgers(run: &Run<'_>, s: &Row, calls: &[&Row], ledger: &Ledger) {
    let path = run.path;
    assert_eq!(calls.len(), ledger.calls.len(), "{path}");
    for (row, call) in calls.iter().zip(&ledger.calls) {
        assert_eq!(row["seq"].int(), Some(call.call.seq as i64));
        assert_eq!(row["kind"].text(), Some(call.call.kind.as_str()));
        assert_eq!(row["reported"].flag(), Some(call.call.reported));
        let reported = |v: u64| call.call.reported.then_some(v as i64);
        assert_eq!(row["uncached"].int(), reported(call.call.tokens.uncached));
        assert_eq!(
            row["cache_read"].int(),
            reported(call.call.tokens.cache_read)
        );
        assert_eq!(row["output"].int(), reported(call.call.tokens.output));
        assert_eq!(row["prompt"].int(), reported(call.prompt));
        let route = &ledger.routes[call.call.route as usize].route;
        assert_eq!(row["model"].text(), route.model.as_deref());
    }
    calls_say_why_the_cache_missed(run, calls);
    assert_eq!(
        s["prompt"].int(),
        Some(ledger.totals.all.prompt as i64),
        "{path}"
    );
}

/// Why each request's cache missed: the engine's first change of every call.
fn calls_say_why_the_cache_missed(run: &Run<'_>, calls: &[&Row]) {
    let path = run.path;
    let parts = surface_analysis::cost::parts_of(run.log, run.surface, run.meter);
    let breaks = surface_analysis::cost::cache_breaks(run.log, run.surface, run.meter, &parts);
    for (k, row) in calls.iter().enumerate() {
        let change = breaks.of_call(k).expect("every call has a first change");
        let first = &change.first_change;
        assert_eq!(
            row["first_change"].text(),
            Some(first.cause.as_str()),
            "{path}"
        );
        assert_eq!(
            row["change_block"].text(),
            Some(first.at.block.as_str()),
            "{path}"
        );
        assert_eq!(
            row["change_index"].int(),
            Some(first.at.index as i64),
            "{path}"
        );
        assert_eq!(
            row["change_seq"].int(),
            first.at.seq.map(|s| s as i64),
            "{path}"
        );
        let replace = first.replace_seq.map(|s| s as i64);
        assert_eq!(row["change_replace_seq"].int(), replace, "{path}");
        assert_eq!(
            row["prefix_tokens"].int(),
            Some(change.prefix_tokens as i64),
            "{path}"
        );
        assert_eq!(
            row["resent_tokens"].int(),
            Some(change.resent_tokens as i64),
            "{path}"
        );
        let expected = change.expected_cache_read.map(|v| v as i64);
        assert_eq!(row["expected_cache_read"].int(), expected, "{path}");
        assert_eq!(
            row["provider_miss"].int(),
            change.provider_miss.map(|v| v as i64),
            "{path}"
        );
    }
}

/// checks: the policy's verify replay at the default settings, check by check.
fn checks_are_the_verify_replays(run: &Run<'_>, s: &Row, checks: &[&Row]) {
    let Run {
        path,
        log,
        surface,
        meter,
    } = *run;
    let window = meter.window_at(log.len());
    let valid = PolicySettings::default().validate(window).unwrap();
    let input = PolicyInput::build(log, surface, meter);
    let verify = replay(log, meter, &input, &valid, ReplayMode::Verify);
    assert_eq!(checks.len(), verify.checks.len(), "{path}");
    for (row, check) in checks.iter().zip(&verify.checks) {
        assert_eq!(row["mode"].text(), Some("verify"));
        assert_eq!(
            row["step_start_seq"].int(),
            Some(check.step_start_seq as i64)
        );
        assert_eq!(row["total"].int(), Some(check.total as i64));
        assert_eq!(row["outcome"].text(), Some(check.outcome.as_str()));
        assert_eq!(row["agrees"].flag(), check.agrees, "{path}");
        assert_eq!(row["pruned"].int(), Some(check.pruned.len() as i64));
        assert_eq!(row["threshold_ratio"], Cell::Float(0.8));
    }
    assert_eq!(
        s["disagreements"].int(),
        Some(verify.disagreements() as i64),
        "{path}"
    );
}

/// compactions: every audited replace, then the failed ones.
fn compactions_are_the_audits(run: &Run<'_>, compactions: &[&Row], ledger: &Ledger) {
    let audited = audit(run.log, run.surface, run.meter, 0.8);
    assert_eq!(
        compactions.len(),
        audited.replaces.len() + audited.failed.len(),
        "{}",
        run.path
    );
    for (row, r) in compactions.iter().zip(&audited.replaces) {
        assert_eq!(row["seq"].int(), Some(r.seq as i64));
        assert_eq!(row["kind"].text(), Some(r.kind.as_str()));
        assert_eq!(row["valid"].flag(), Some(r.valid));
        assert_eq!(row["tokens_before"].int(), Some(r.tokens_before as i64));
        assert_eq!(row["tokens_after"].int(), Some(r.tokens_after as i64));
        assert_eq!(row["trigger"].text(), r.trigger.map(|t| t.as_str()));
        assert_eq!(row["lost_terms"].int(), Some(r.lost_terms.len() as i64));
        let cost = ledger.compactions.iter().find(|c| c.seq == r.seq);
        assert_eq!(row["prompt_saved"].int(), cost.map(|c| c.prompt_saved));
    }
    for (row, f) in compactions[audited.replaces.len()..]
        .iter()
        .zip(&audited.failed)
    {
        assert_eq!(row["failed"].flag(), Some(true));
        assert_eq!(row["seq"].int(), Some(f.end_seq as i64));
    }
}

/// findings: check's, in order.
fn findings_are_the_checks(path: &str, findings: &[&Row], report: &CheckReport) {
    assert_eq!(findings.len(), report.findings.len(), "{path}");
    for (row, f) in findings.iter().zip(&report.findings) {
        assert_eq!(row["rule"].text(), Some(f.rule));
        assert_eq!(row["severity"].text(), Some(f.severity.as_str()));
        assert_eq!(row["seq"].int(), f.seq.map(|s| s as i64));
        assert_eq!(row["line"].int(), f.line.map(i64::from));
    }
}

#[test]
fn the_checks_hold_the_harness_own_totals_and_a_packed_copy_shares_its_session() {
    let (_dir, out) = export_fixtures(&["--tables", "checks,sessions"]);
    assert!(!out.join("events").exists());
    let (checks, _) = read_table(&out, "checks");
    // p01 ran at the default settings: every pressure check's total is the real loop's.
    let expect: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/fixtures/policy/p01.expect.json")).unwrap(),
    )
    .unwrap();
    for packed in ["p01.jsonl", "p01.packed.jsonl"] {
        let path = root().join("tests/fixtures/policy").join(packed);
        let rows: Vec<&Row> = rows_of(&checks, path.to_str().unwrap())
            .into_iter()
            .filter(|r| r["trigger"].text() == Some("pressure"))
            .collect();
        let expected = expect["checks"].as_array().unwrap();
        assert_eq!(rows.len(), expected.len(), "{packed}");
        for (row, want) in rows.iter().zip(expected) {
            assert_eq!(row["step_start_seq"].int(), want["step_start_seq"].as_i64());
            assert_eq!(row["total"].int(), want["total"].as_i64(), "{packed}");
            assert_eq!(row["threshold"].int(), want["threshold"].as_i64());
            assert_eq!(row["agrees"].flag(), Some(true), "{packed}");
            assert_eq!(row["session_id"].text(), Some("policy-p01"));
        }
    }
    let (sessions, _) = read_table(&out, "sessions");
    let p01: Vec<&Row> = sessions
        .iter()
        .filter(|r| r["session_id"].text() == Some("policy-p01"))
        .collect();
    assert_eq!(p01.len(), 2, "a log and its packed copy: one id, two paths");
    assert_eq!(p01[0]["events"], p01[1]["events"]);
    assert_ne!(p01[0]["packed"], p01[1]["packed"]);
}

#[test]
fn what_if_rows_are_the_policy_commands_own() {
    let p02 = root().join("tests/fixtures/policy/p02.jsonl");
    let p01 = root().join("tests/fixtures/policy/p01.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fleet");
    let args = [
        "export",
        p01.to_str().unwrap(),
        p02.to_str().unwrap(),
        "--to",
        out.to_str().unwrap(),
        "--tables",
        "checks,sessions",
        "--what-if",
        "--threshold-ratio",
        "0.7",
    ];
    let done = run(&args);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done));
    let (checks, _) = read_table(&out, "checks");
    let (sessions, _) = read_table(&out, "sessions");
    for file in [&p01, &p02] {
        let path = file.to_str().unwrap();
        for (mode, flags) in [("verify", vec![]), ("what-if", vec!["--what-if"])] {
            let mut args = vec!["policy", path, "--threshold-ratio", "0.7", "--json"];
            args.extend(flags);
            let policy: Value = serde_json::from_slice(&run(&args).stdout).unwrap();
            let rows: Vec<&Row> = rows_of(&checks, path)
                .into_iter()
                .filter(|r| r["mode"].text() == Some(mode))
                .collect();
            let want = policy["checks"].as_array().unwrap();
            assert_eq!(rows.len(), want.len(), "{path} {mode}");
            for (row, w) in rows.iter().zip(want) {
                assert_eq!(row["step_start_seq"].int(), w["step_start_seq"].as_i64());
                assert_eq!(row["total"].int(), w["total"].as_i64(), "{path} {mode}");
                assert_eq!(row["total_after"].int(), w["total_after"].as_i64());
                assert_eq!(row["outcome"].text(), w["outcome"].as_str());
                assert_eq!(row["exact"].flag(), w["exact"].as_bool());
                assert_eq!(row["agrees"].flag(), w["agrees"].as_bool());
                assert_eq!(row["threshold_ratio"], Cell::Float(0.7));
            }
            let s = rows_of(&sessions, path)[0];
            let prefix = if mode == "verify" { "log" } else { "what_if" };
            let totals = if mode == "verify" {
                &policy["actual_totals"]
            } else {
                &policy["totals"]
            };
            for key in [
                "fired",
                "prunes",
                "summaries",
                "summarized_tokens",
                "peak_total",
            ] {
                assert_eq!(
                    s[&format!("{prefix}_{key}")].int(),
                    totals[key].as_i64(),
                    "{path} {prefix}_{key}"
                );
            }
        }
    }
    // p01 at T 0.7 is p02's run: the what-if of p01 diverges where p02 first fired.
    let s = rows_of(&sessions, p01.to_str().unwrap())[0];
    assert!(s["what_if_first_divergence_seq"].int().is_some());
}

#[test]
fn the_payload_is_there_only_when_asked_and_types_are_strict() {
    let file = common::upstream("v0-2026-08-20-head/compaction-recovery.session.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    let with = dir.path().join("with");
    for (out, extra) in [(&plain, None), (&with, Some("--payload"))] {
        let mut args = vec![
            "export",
            file.to_str().unwrap(),
            "--to",
            out.to_str().unwrap(),
            "--tables",
            "events",
        ];
        args.extend(extra);
        let done = run(&args);
        assert_eq!(done.status.code(), Some(0), "{}", text(&done));
        let folders: Vec<String> = std::fs::read_dir(out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(folders, ["events"]);
    }
    let (rows, _) = read_table(&plain, "events");
    assert!(!rows[0].contains_key("payload"));
    let (rows, _) = read_table(&with, "events");
    let loaded = load(
        &Input {
            file: file.clone(),
            session: None,
            max_bytes: None,
        },
        false,
    )
    .unwrap();
    for (idx, row) in loaded.log.indices().zip(&rows) {
        let payload: Value = serde_json::from_str(row["payload"].text().unwrap()).unwrap();
        assert_eq!(Some(payload), loaded.log.event_value(idx));
    }
    // The schema as written: strict types, nullable only where a value may be missing.
    let part = with.join("events/part-00000.parquet");
    let reader = SerializedFileReader::new(std::fs::File::open(part).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let described: BTreeMap<String, (String, bool)> = schema
        .columns()
        .iter()
        .map(|c| {
            let t = c.self_type();
            let info = t.get_basic_info();
            let logical = info
                .logical_type_ref()
                .map(|l| format!("{l:?}"))
                .unwrap_or_default();
            (
                c.name().to_string(),
                (
                    format!("{} {logical}", c.physical_type()),
                    info.repetition() == parquet::basic::Repetition::OPTIONAL,
                ),
            )
        })
        .collect();
    assert_eq!(described["seq"], ("INT64 ".to_string(), false));
    assert!(
        described["time"].0.starts_with("INT64 Timestamp")
            && described["time"].0.contains("is_adjusted_to_u_t_c: true")
            && described["time"].0.contains("MILLIS"),
        "{:?}",
        described["time"]
    );
    assert_eq!(described["on_surface"], ("BOOLEAN ".to_string(), false));
    assert_eq!(described["type"], ("BYTE_ARRAY String".to_string(), false));
    assert!(described["turn"].1, "turn is nullable");
    assert!(!described["path"].1, "path is not nullable");
}

#[test]
fn a_folder_with_an_unreadable_file_a_bomb_and_a_fifo_exports_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("logs");
    std::fs::create_dir(&input).unwrap();
    std::fs::copy(
        common::upstream("v0-2026-08-20-head/compaction-recovery.session.jsonl"),
        input.join("good.jsonl"),
    )
    .unwrap();
    // A damaged SQLite store: a session file by its content, unreadable.
    let mut broken = b"SQLite format 3\0".to_vec();
    broken.extend(std::iter::repeat_n(0xAB, 3000));
    std::fs::write(input.join("broken.db"), broken).unwrap();
    // A bomb: a few kilobytes of Zstandard holding 64 MiB of text, past --max-bytes 16M.
    let mut log = br#"{"type":"session","version":0,"id":"bomb","createdAt":0}"#.to_vec();
    log.push(b'\n');
    log.resize(64 << 20, b'\n');
    let bomb = zstd::encode_all(&log[..], 19).unwrap();
    assert!(bomb.len() < 64 << 10);
    std::fs::write(input.join("bomb.jsonl.zstd"), bomb).unwrap();
    let fifo = input.join("pipe");
    let has_fifo = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let out = dir.path().join("out");
    let done = run(&[
        "export",
        input.to_str().unwrap(),
        "--to",
        out.to_str().unwrap(),
        "--max-bytes",
        "16M",
    ]);
    let shown = text(&done);
    assert_eq!(
        done.status.code(),
        Some(1),
        "two sessions unreadable: {shown}"
    );
    if has_fifo {
        assert!(shown.contains("special file"), "{shown}");
    }
    let (sessions, _) = read_table(&out, "sessions");
    let by_name: BTreeMap<String, &Row> = sessions
        .iter()
        .map(|r| {
            let name = Path::new(r["path"].text().unwrap()).file_name().unwrap();
            (name.to_string_lossy().into_owned(), r)
        })
        .collect();
    assert_eq!(
        by_name.keys().collect::<Vec<_>>(),
        ["bomb.jsonl.zstd", "broken.db", "good.jsonl"],
        "{shown}"
    );
    assert_eq!(by_name["good.jsonl"]["error"], Cell::Null);
    assert!(by_name["good.jsonl"]["events"].int().unwrap() > 0);
    let bomb_error = by_name["bomb.jsonl.zstd"]["error"].text().unwrap();
    assert!(bomb_error.contains("16 MiB"), "{bomb_error}");
    assert_eq!(by_name["bomb.jsonl.zstd"]["events"], Cell::Null);
    assert!(by_name["broken.db"]["error"].text().is_some());
    let (events, _) = read_table(&out, "events");
    assert!(!events.is_empty());
    assert!(
        events
            .iter()
            .all(|r| r["path"].text().unwrap().ends_with("good.jsonl"))
    );

    // A FIFO named on the command line is a session that cannot be read.
    if has_fifo {
        let out = dir.path().join("out-fifo");
        let done = run(&[
            "export",
            fifo.to_str().unwrap(),
            "--to",
            out.to_str().unwrap(),
        ]);
        assert_eq!(done.status.code(), Some(2), "{}", text(&done));
        let (sessions, _) = read_table(&out, "sessions");
        assert!(sessions[0]["error"].text().unwrap().contains("FIFO"));
    }
}

#[test]
fn out_that_exists_is_refused_and_force_replaces_only_our_table_folders() {
    let file = common::upstream("v0-2026-08-20-head/compaction-recovery.session.jsonl");
    let other = common::upstream("v0-2026-08-20-head/cancel.session.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let export = |f: &Path, extra: &[&str]| {
        let mut args = vec!["export", f.to_str().unwrap(), "--to", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        run(&args)
    };
    let done = export(&file, &[]);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done));
    std::fs::write(out.join("notes.md"), "mine").unwrap();
    std::fs::create_dir(out.join("mine")).unwrap();
    let before = std::fs::read(out.join("sessions/part-00000.parquet")).unwrap();

    let refused = export(&other, &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("already exists") && message.contains("--force"),
        "{message}"
    );
    assert_eq!(
        std::fs::read(out.join("sessions/part-00000.parquet")).unwrap(),
        before
    );

    let forced = export(&other, &["--force", "--tables", "sessions,events"]);
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced));
    let (sessions, _) = read_table(&out, "sessions");
    assert_eq!(sessions.len(), 1);
    assert!(
        sessions[0]["path"]
            .text()
            .unwrap()
            .ends_with("cancel.session.jsonl")
    );
    // The tables not written stay as they were; foreign files are untouched.
    let (calls, _) = read_table(&out, "calls");
    assert!(calls.iter().all(|r| {
        r["path"]
            .text()
            .unwrap()
            .ends_with("recovery.session.jsonl")
    }));
    assert_eq!(
        std::fs::read_to_string(out.join("notes.md")).unwrap(),
        "mine"
    );
    assert!(out.join("mine").is_dir());

    // A table folder holding something that is not ours is never replaced.
    std::fs::write(out.join("events/README"), "mine").unwrap();
    let refused = export(&file, &["--force"]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("README"));
    assert_eq!(
        std::fs::read_to_string(out.join("events/README")).unwrap(),
        "mine"
    );
    // No temporary folder is left beside OUT.
    let beside: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(beside, ["out"]);

    // A bad flag is refused before anything is written.
    let bad = dir.path().join("never");
    let done = run(&[
        "export",
        file.to_str().unwrap(),
        "--to",
        bad.to_str().unwrap(),
        "--tables",
        "events,bogus",
    ]);
    assert_eq!(done.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&done.stderr).contains("bogus"));
    assert!(!bad.exists());
}

#[test]
fn docs_export_md_documents_every_column_with_its_type() {
    let doc = std::fs::read_to_string(root().join("docs/export.md")).unwrap();
    let mut missing = Vec::new();
    for (table, column, kind, nullable) in surface_cli::export::columns() {
        let row = format!(
            "| `{table}` | `{column}` | {kind}{} |",
            if nullable { ", null" } else { "" }
        );
        if !doc.contains(&row) {
            missing.push(row);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/export.md lacks these rows:\n{}",
        missing.join("\n")
    );
    assert!(doc.contains(&format!(
        "`schema_version` = `{}`",
        surface_cli::export::SCHEMA_VERSION
    )));
}

/// Whether DuckDB's Python package is importable (required where
/// `SURFACE_VIEWER_REQUIRE_DUCKDB` is set); says it skips when not.
fn duckdb_importable() -> bool {
    let importable = Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !importable {
        assert!(
            std::env::var_os("SURFACE_VIEWER_REQUIRE_DUCKDB").is_none(),
            "SURFACE_VIEWER_REQUIRE_DUCKDB is set but `python3 -c \"import duckdb\"` fails"
        );
        eprintln!("skipped: the duckdb Python package is not importable here (pip install duckdb)");
    }
    importable
}

/// Runs docs/export.md's section `title`: its `sh` block's `surface-viewer` lines (the folder
/// word `folder` written into a temporary folder), then the `python` block after it there;
/// asserts it prints the `text` block that follows. The lines printed.
fn the_section_runs_as_shown(title: &str, folder: &str) -> Vec<String> {
    let page = std::fs::read_to_string(root().join("docs/export.md")).unwrap();
    let section = page
        .split(&format!("\n## {title}"))
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or_else(|| panic!("docs/export.md has a section {title:?}"));
    let block = |lang: &str, from: usize| -> (String, usize) {
        let open = format!("```{lang}");
        let start = section[from..]
            .find(&open)
            .unwrap_or_else(|| panic!("no ```{lang} block in {title:?}"))
            + from;
        let body = section[start..].find('\n').unwrap() + start + 1;
        let end = section[body..].find("\n```").unwrap() + body;
        (section[body..end].to_string(), end)
    };
    let (export, at) = block("sh", 0);
    let (python, at) = block("python", at);
    let (expected, _) = block("text", at);
    let dir = tempfile::tempdir().unwrap();
    for line in export.lines().filter(|l| l.starts_with("surface-viewer ")) {
        let words: Vec<&str> = line.split_whitespace().skip(1).collect();
        let done = bin()
            .args(words.iter().map(|w| {
                if *w == folder {
                    dir.path().join(folder)
                } else {
                    PathBuf::from(w)
                }
            }))
            .current_dir(root())
            .output()
            .unwrap();
        assert_eq!(done.status.code(), Some(0), "{line}: {}", text(&done));
    }
    let done = Command::new("python3")
        .args(["-c", &python])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(done.status.success(), "{}", text(&done));
    // Trailing spaces and blank lines cannot be seen on the page: neither counts.
    let lines = |text: &str| -> Vec<String> {
        let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    };
    let got = lines(&String::from_utf8_lossy(&done.stdout));
    let want = lines(&expected);
    assert_eq!(got, want, "docs/export.md's {title:?} prints otherwise");
    got
}

/// docs/export.md's first DuckDB query runs as the page shows it.
#[test]
fn the_export_page_s_duckdb_query_runs_as_shown() {
    if duckdb_importable() {
        the_section_runs_as_shown("A first query", "fleet");
    }
}

/// docs/export.md's queries over the policy fixtures exported with the what-if (compactions,
/// disagreements, the fleet what-if, cache) print what the page shows.
#[test]
fn the_export_page_s_fleet_queries_run_as_shown() {
    if duckdb_importable() {
        the_section_runs_as_shown("Queries over an export (DuckDB)", "fleet");
    }
}

/// docs/export.md's frontier query over the `tune` table runs as shown, and picks the settings
/// `tune --json` puts on its frontier (the same grid over the same folder).
#[test]
fn the_tune_tables_frontier_query_picks_tunes_frontier() {
    if !duckdb_importable() {
        return;
    }
    let printed = the_section_runs_as_shown("The frontier from a `tune` table", "tuned");
    let policy = root().join("tests/fixtures/policy");
    let done = run(&[
        "tune",
        policy.to_str().unwrap(),
        "--grid",
        "threshold_ratio=0.6:0.8:0.1",
        "--grid",
        "pruner=on,off",
        "--json",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&done.stdout).unwrap();
    let settings = doc["settings"].as_array().unwrap();
    let described = |i: u64| {
        let s = &settings[i as usize]["settings"];
        (
            s["threshold_ratio"].as_f64().unwrap(),
            !s["pruner"].is_null(),
        )
    };
    let mut frontier: Vec<(f64, bool)> = doc["frontier"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| described(i.as_u64().unwrap()))
        .collect();
    // Each line: `#N T 0.6 pruner on: …`.
    let mut queried: Vec<(f64, bool)> = printed
        .iter()
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            (
                words[2].parse().unwrap(),
                words[4].trim_end_matches(':') == "on",
            )
        })
        .collect();
    let order = |a: &(f64, bool), b: &(f64, bool)| a.partial_cmp(b).unwrap();
    frontier.sort_by(order);
    queried.sort_by(order);
    assert!(
        frontier.len() >= 2,
        "a frontier worth comparing: {frontier:?}"
    );
    assert_eq!(queried, frontier);
}

/// Prices for mock-a only: p01, its packed copy and p02 are priced, p11 (mock-o) and p12
/// (mock-m) are not.
const MOCK_A_PRICES: &str = r#"{"currency": "EUR", "models": {
    "mock-a": {"uncached": 0.28, "cache_read": 0.028, "cache_write": 0.28, "output": 0.42}}}"#;

/// [`MOCK_A_PRICES`] written as `prices.json` in `dir`.
fn mock_a_prices(dir: &Path) -> PathBuf {
    let prices = dir.join("prices.json");
    std::fs::write(&prices, MOCK_A_PRICES).unwrap();
    prices
}

#[test]
fn an_unpriced_session_costs_null_and_sum_cost_is_the_priced_sessions_sum() {
    let dir = tempfile::tempdir().unwrap();
    let prices = mock_a_prices(dir.path());
    let table = surface_analysis::cost::PriceTable::parse(MOCK_A_PRICES).unwrap();
    let out = dir.path().join("out");
    let policy = root().join("tests/fixtures/policy");
    let done = run(&[
        "export",
        policy.to_str().unwrap(),
        "--to",
        out.to_str().unwrap(),
        "--tables",
        "sessions,calls",
        "--prices",
        prices.to_str().unwrap(),
    ]);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done));
    let (sessions, _) = read_table(&out, "sessions");
    let (calls, _) = read_table(&out, "calls");
    let cost = |r: &Row| match &r["cost"] {
        Cell::Float(x) => Some(*x),
        Cell::Null => None,
        other => panic!("cost: {other:?}"),
    };
    let (mut priced_sum, mut unpriced) = (0.0, 0);
    for s in &sessions {
        let path = s["path"].text().unwrap();
        let opened =
            surface_store::open(Path::new(path), &surface_store::Options::default()).unwrap();
        let log = &opened.log;
        let surface = surface_engine::Surface::at_end(log);
        let meter = surface_passes::meter_of(log, &surface);
        let ledger = ledger_of(log, &surface, &meter, Some(&table));
        let model_priced = !(path.contains("p11") || path.contains("p12"));
        assert_eq!(cost(s), ledger.totals.all.cost, "{path}");
        assert_eq!(
            cost(s).is_some(),
            model_priced,
            "{path}: unpriced is NULL, not 0"
        );
        // A session's cost is the sum of its calls' (no binary noise: the decimal itself).
        let call_costs: Vec<Option<f64>> = rows_of(&calls, path).into_iter().map(cost).collect();
        match cost(s) {
            Some(c) => {
                priced_sum += c;
                let sum: f64 = call_costs.iter().flatten().sum();
                assert!((sum - c).abs() < 1e-12, "{path}: {sum} vs {c}");
                assert_eq!(surface_analysis::cost::round_money(c), c, "{path}: {c}");
            }
            None => {
                unpriced += 1;
                assert!(call_costs.iter().all(Option::is_none), "{path}");
            }
        }
    }
    assert_eq!(unpriced, 2);
    // SUM(cost) over the table — what DuckDB would add up, NULLs skipped — is the priced
    // sessions' sum, and every call's cost is its decimal.
    let sum: f64 = sessions.iter().filter_map(cost).sum();
    assert!((sum - priced_sum).abs() < 1e-12);
    for c in calls.iter().filter_map(cost) {
        assert_eq!(surface_analysis::cost::round_money(c), c);
    }
}

/// `export --tune`'s rows of a session are the figures `tune` sums: over one file, each
/// setting's row (and the baseline's) is `tune FILE --json`'s, every figure and its range, money
/// included where the session is priced and NULL where it is not.
#[test]
fn the_tune_tables_rows_are_tunes_figures_for_each_session() {
    let dir = tempfile::tempdir().unwrap();
    let prices = mock_a_prices(dir.path());
    let prices = prices.to_str().unwrap();
    let grid = [
        "--grid",
        "threshold_ratio=0.6,0.75",
        "--grid",
        "pruner=on,off",
    ];
    let out = dir.path().join("out");
    let files = ["p01.jsonl", "p11.jsonl"].map(|f| root().join("tests/fixtures/policy").join(f));
    let mut args = vec!["export"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    args.extend(["--to", out.to_str().unwrap(), "--tune", "--prices", prices]);
    args.extend(grid);
    let done = run(&args);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done));
    let (rows, _) = read_table(&out, "tune");
    for file in &files {
        let path = file.to_str().unwrap();
        let mut tune_args = vec!["tune", path, "--json", "--prices", prices];
        tune_args.extend(grid);
        let doc: serde_json::Value = serde_json::from_slice(&run(&tune_args).stdout).unwrap();
        let mut wanted = vec![&doc["baseline"]];
        wanted.extend(doc["settings"].as_array().unwrap());
        let got = rows_of(&rows, path);
        assert_eq!(
            got.len(),
            wanted.len(),
            "{path}: the baseline and every setting"
        );
        for (row, want) in got.iter().zip(wanted) {
            assert_eq!(row["allowed"], Cell::Bool(true));
            for (name, span) in want["totals"].as_object().unwrap() {
                for (end, column) in [
                    ("likely", name.clone()),
                    ("min", format!("{name}_min")),
                    ("max", format!("{name}_max")),
                ] {
                    let cell = match &row[column.as_str()] {
                        Cell::Int(v) => Some(*v as f64),
                        Cell::Float(v) => Some(*v),
                        Cell::Null => None,
                        other => panic!("{column}: {other:?}"),
                    };
                    assert_eq!(cell, span[end].as_f64(), "{path} {column}");
                }
            }
            let t = row["threshold_ratio"].clone();
            match want["settings"].get("threshold_ratio") {
                Some(x) => assert_eq!(t, Cell::Float(x.as_f64().unwrap())),
                None => assert_eq!(t, Cell::Null, "the baseline's settings are NULL"),
            }
        }
        let priced = path.contains("p01");
        assert_eq!(
            got.iter().all(|r| r["cost"] != Cell::Null),
            priced,
            "{path}: unpriced is NULL"
        );
    }
}

#[test]
fn the_tune_table_needs_tune_and_grid_needs_tune() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let policy = root().join("tests/fixtures/policy");
    let (policy, out) = (policy.to_str().unwrap(), out.to_str().unwrap());
    let named = run(&["export", policy, "--to", out, "--tables", "sessions,tune"]);
    assert_eq!(named.status.code(), Some(2));
    assert!(
        text(&named).contains("--tables: the tune table needs --tune"),
        "{}",
        text(&named)
    );
    let grid = run(&["export", policy, "--to", out, "--grid", "pruner=on"]);
    assert_eq!(grid.status.code(), Some(2), "{}", text(&grid));
    let bad = run(&[
        "export",
        policy,
        "--to",
        out,
        "--tune",
        "--grid",
        "threshold_ratio=2",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad).contains("threshold_ratio"), "{}", text(&bad));
    assert!(
        !Path::new(out).exists(),
        "nothing written for a refused command line"
    );
}
