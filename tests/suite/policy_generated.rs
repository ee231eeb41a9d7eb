//! Logs the synthetic generator writes while running the policy itself
//! (`surface_synth::generate_with_policy`), across thresholds, retain budgets and with the
//! pruner on and off: `policy` verify with the same settings agrees at every check, and with
//! other settings it disagrees somewhere.

use surface_analysis::policy::{
    CheckKind, PolicyInput, PolicyReport, PolicySettings, PrunerSettings, ReplayMode, Retain,
    replay,
};
use surface_engine::{Meter, Surface};
use surface_store::read_jsonl;
use surface_synth::{CheckRun, PolicySynthConfig, generate_with_policy};

/// A window small enough that ten turns fill it several times.
const WINDOW: u64 = 8_000;

fn generated(settings: PolicySettings, seed: u64) -> (Vec<u8>, CheckRun) {
    let config = PolicySynthConfig {
        seed,
        turns: 10,
        context_window: WINDOW,
        settings,
        big_output_percent: 20,
        tool_output_lines: 30,
        ..PolicySynthConfig::default()
    };
    let mut bytes = Vec::new();
    let (_, run) = generate_with_policy(&config, &mut bytes).unwrap();
    (bytes, run)
}

fn verify(bytes: &[u8], settings: &PolicySettings) -> PolicyReport {
    let log = read_jsonl(bytes.to_vec(), None).unwrap();
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let input = PolicyInput::build(&log, &surface, &meter);
    let settings = settings.validate(meter.window_at(log.len())).unwrap();
    replay(&log, &meter, &input, &settings, ReplayMode::Verify)
}

/// Thresholds × retain budgets, the pruner on and off in turn (each threshold sees both).
fn grid() -> Vec<PolicySettings> {
    let mut all = Vec::new();
    for t in [0.5, 0.7, 0.8, 0.9] {
        for retain in [
            Retain::Ratio(0.1),
            Retain::Ratio(0.3),
            Retain::Tokens(1_000),
        ] {
            let pruner = (all.len() % 2 == 0).then(PrunerSettings::default);
            all.push(PolicySettings {
                threshold_ratio: t,
                retain,
                pruner,
                ..PolicySettings::default()
            });
        }
    }
    all
}

/// The same settings with another threshold, and with another retain budget.
fn others(settings: &PolicySettings) -> [PolicySettings; 2] {
    let t = settings.threshold_ratio;
    let retain = match settings.retain {
        Retain::Ratio(r) => Retain::Tokens((WINDOW as f64 * r) as u64 + 700),
        Retain::Tokens(n) => Retain::Ratio((n + 700) as f64 / WINDOW as f64),
    };
    [
        PolicySettings {
            threshold_ratio: if t > 0.6 { t - 0.2 } else { t + 0.2 },
            ..*settings
        },
        PolicySettings {
            retain,
            ..*settings
        },
    ]
}

#[test]
fn verify_agrees_everywhere_with_the_generating_settings_and_not_with_others() {
    let mut totals = CheckRun::default();
    let (mut with_pressure_summary, mut retain_disagrees) = (0, 0);
    for (k, settings) in grid().into_iter().enumerate() {
        let (bytes, run) = generated(settings, 0x6E4 + k as u64);
        let report = verify(&bytes, &settings);
        let compared = report.checks.iter().filter(|c| c.agrees.is_some()).count();
        assert_eq!(
            report.disagreements(),
            0,
            "{settings:?}: {:?}",
            report.checks.iter().find(|c| c.agrees == Some(false))
        );
        assert!(compared > 10, "{settings:?}: {compared} checks compared");
        assert!(!run.disagrees, "{settings:?}");
        // The policy had work to do: pressure fired in every log, prunes only with a pruner.
        let pressure = |summary: bool| {
            report
                .checks
                .iter()
                .filter(|c| c.trigger == CheckKind::Pressure)
                .filter(|c| !c.summaries.is_empty() || (!summary && !c.pruned.is_empty()))
                .count()
        };
        assert!(pressure(false) > 0, "{settings:?}");
        assert_eq!(report.totals.summaries, report.actual_totals.summaries);
        assert_eq!(report.totals.prunes, report.actual_totals.prunes);
        assert_eq!(run.summaries as usize, report.actual_totals.summaries);
        assert_eq!(run.prunes as usize, report.actual_totals.prunes);
        if settings.pruner.is_none() {
            assert_eq!(run.prunes, 0, "{settings:?}");
        }
        totals.prunes += run.prunes;
        totals.summaries += run.summaries;
        totals.failed += run.failed;
        // Another threshold always disagrees somewhere.
        let [threshold, retain] = others(&settings);
        assert!(
            verify(&bytes, &threshold).disagreements() > 0,
            "{settings:?} generated, {threshold:?} verified"
        );
        if pressure(true) > 0 {
            with_pressure_summary += 1;
            retain_disagrees += usize::from(verify(&bytes, &retain).disagreements() > 0);
        }
    }
    // Across the grid every kind of decision was made, and another retain budget told most
    // logs apart (not all: where the newest node alone outweighs both budgets, the range is
    // the same).
    assert!(totals.prunes > 0 && totals.summaries > 0);
    assert!(
        with_pressure_summary >= 6 && retain_disagrees * 3 >= with_pressure_summary * 2,
        "{retain_disagrees} of {with_pressure_summary}"
    );
}

#[test]
fn the_logs_hold_overflow_recoveries_and_commands_the_policy_decided() {
    let settings = PolicySettings::default();
    let config = PolicySynthConfig {
        seed: 0x0F1,
        turns: 12,
        context_window: WINDOW,
        paste_percent: 40,
        command_every: 4,
        ..PolicySynthConfig::default()
    };
    let mut bytes = Vec::new();
    generate_with_policy(&config, &mut bytes).unwrap();
    let report = verify(&bytes, &settings);
    assert_eq!(report.disagreements(), 0);
    let fired = |kind: CheckKind| {
        report
            .checks
            .iter()
            .filter(|c| c.trigger == kind && c.summaries.iter().any(|s| s.ok))
            .count()
    };
    assert!(fired(CheckKind::Overflow) > 0, "no overflow recovered");
    assert!(fired(CheckKind::Command) > 0, "no command compaction");
    assert!(fired(CheckKind::Pressure) > 0, "no pressure summary");
}

#[test]
fn the_same_config_writes_the_same_bytes() {
    let settings = grid()[5];
    assert_eq!(generated(settings, 7).0, generated(settings, 7).0);
}
