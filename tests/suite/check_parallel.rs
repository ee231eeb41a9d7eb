//! `check` with its two halves on two threads gives the same findings, in the same order, as
//! `check` on one thread: on every upstream fixture (surface and legacy mode) and on a long
//! log full of findings.

use crate::common;

use common::*;
use surface_engine::{
    CheckReport, EventLog, Surface, check_report, check_report_and_surface_joined,
    check_report_joined,
};
use surface_passes::{check_report_of, check_report_of_in};
use surface_store as store;

/// Pools of 1, 2 and 8 workers, whatever the machine has.
fn pools() -> &'static [(usize, rayon::ThreadPool)] {
    static POOLS: std::sync::OnceLock<Vec<(usize, rayon::ThreadPool)>> = std::sync::OnceLock::new();
    POOLS.get_or_init(|| {
        [1, 2, 8]
            .into_iter()
            .map(|n| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build();
                (n, pool.expect("a pool"))
            })
            .collect()
    })
}

fn on_two_threads(log: &EventLog, surface: &Surface) -> CheckReport {
    check_report_joined(log, surface, |turns, rest| {
        std::thread::scope(|scope| {
            let turns = scope.spawn(turns);
            let rest = rest();
            (turns.join().unwrap(), rest)
        })
    })
}

fn rest_first(log: &EventLog, surface: &Surface) -> CheckReport {
    check_report_joined(log, surface, |turns, rest| {
        let rest = rest();
        (turns(), rest)
    })
}

/// The check that builds its own surface in the second half, run serially.
fn building_surface(log: &EventLog) -> CheckReport {
    let (report, surface) = check_report_and_surface_joined(log, |turns, rest| (turns(), rest()));
    assert_eq!(
        surface.cursor(),
        log.len(),
        "the built surface is at the end"
    );
    report
}

fn assert_same(name: &str, log: &EventLog) {
    let surface = Surface::at_end(log);
    let one = check_report(log, &surface);
    let (cli, cli_surface) = check_report_of(log);
    assert_eq!(
        cli_surface.len(),
        surface.len(),
        "{name}: the CLI's surface"
    );
    let mut runs = vec![
        ("two threads".to_string(), on_two_threads(log, &surface)),
        ("rest first".to_string(), rest_first(log, &surface)),
        ("building the surface".to_string(), building_surface(log)),
        ("cli".to_string(), cli),
    ];
    for (workers, pool) in pools() {
        let (report, built) = check_report_of_in(pool, log);
        assert_eq!(
            built.len(),
            surface.len(),
            "{name}: {workers} workers' surface"
        );
        runs.push((format!("{workers} workers"), report));
    }
    for (how, other) in runs {
        assert_eq!(one.findings, other.findings, "{name}: {how}");
        assert_eq!(one.era.era, other.era.era, "{name}: {how}");
    }
}

#[test]
fn upstream_fixtures_check_the_same_either_way() {
    let mut legacy = 0;
    for path in upstream_files() {
        let log = store::open(&path, &surface_store::Options::default())
            .expect("fixture opens")
            .log;
        legacy += usize::from(Surface::at_end(&log).mode().as_str() == "legacy");
        assert_same(&path.display().to_string(), &log);
    }
    assert!(legacy > 0, "the fixtures include legacy-mode logs");
}

/// A log long enough for the command line to use two threads, with findings of most passes:
/// unparseable lines, seq gaps, bad provenance, malformed ops, broken turns, unpaired tool
/// results, bad usage.
fn long_log_with_findings(blocks: u64) -> String {
    let mut lines = Vec::new();
    let mut seq = 0;
    for b in 0..blocks {
        let s = seq;
        lines.push(other(s, "turn/start", &format!(r#"{{"turn":{b}}}"#)));
        lines.push(msg(s + 1, "append", None));
        lines.push(msg(s + 2, "append", Some("[99999999]")));
        lines.push(msg(s + 3, "prepend", None));
        lines.push(format!(
            r#"{{"type":"tool/result","seq":{},"data":{{"callId":"c{b}","content":[]}}}}"#,
            s + 4
        ));
        if b % 7 == 0 {
            lines.push("{not json".to_string());
        }
        lines.push(other(
            s + 6,
            "assistant/message",
            r#"{"content":[],"usage":{"inputTokens":"many"}}"#,
        ));
        if b % 3 != 0 {
            lines.push(other(s + 7, "turn/end", &format!(r#"{{"turn":{b}}}"#)));
        }
        seq += 9;
    }
    text_of(&lines)
}

#[test]
fn a_long_log_full_of_findings_checks_the_same_either_way() {
    let log = log_of(&long_log_with_findings(4_000));
    assert!(log.len() > 20_000, "long enough for two threads");
    let surface = Surface::at_end(&log);
    assert!(check_report(&log, &surface).findings.len() > 10_000);
    assert_same("long log", &log);
}

#[test]
fn a_legacy_log_with_findings_checks_the_same_either_way() {
    // No surfaceOp anywhere: legacy mode, where the surface rules wait for the turn pass.
    let text = long_log_with_findings(300)
        .replace(r#","surfaceOp":"append""#, "")
        .replace(r#","surfaceOp":"prepend""#, "");
    let log = log_of(&text);
    assert_eq!(Surface::at_end(&log).mode().as_str(), "legacy");
    assert_same("legacy log", &log);
}
