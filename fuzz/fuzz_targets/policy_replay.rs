//! Fuzz target: the policy replay (docs/policy.md) over an arbitrary log read by the JSONL
//! reader, with settings drawn from the input's first eight bytes through the one constructor
//! a replay accepts (`PolicySettings::validate`; settings it refuses fall back to the
//! defaults): the input's build, verify and what-if, the inferred settings and the
//! hypothetical curve. Must never panic; each report has one verdict per check point, and
//! every check of a verify (of a what-if, up to its first divergence) measures the meter's
//! total.
#![no_main]

use libfuzzer_sys::fuzz_target;
use surface_analysis::policy::{
    PolicyInput, PolicySettings, PrunerSettings, ReplayMode, Retain, replay,
};
use surface_engine::{Meter, Surface};
use surface_store::read_jsonl;

/// Settings from eight bytes: every threshold, a ratio or token budget (0 included), 0–3
/// retries, 0–2 overflow recoveries, no pruner, the default one or a small one that prunes
/// short results (sometimes one whose head and tail do not fit, which validation refuses),
/// and a summary price or none.
fn settings_of(k: [u8; 8]) -> PolicySettings {
    let threshold_ratio = (f64::from(k[0]) + 1.0) / 256.0;
    let retain = if k[1] & 1 == 0 {
        Retain::Ratio(threshold_ratio * (f64::from(k[1] >> 1) + 1.0) / 129.0)
    } else {
        Retain::Tokens(u64::from(k[2]) * 8)
    };
    let pruner = match k[4] % 3 {
        0 => None,
        1 => Some(PrunerSettings::default()),
        _ => Some(PrunerSettings {
            threshold_chars: u64::from(k[5]),
            head_chars: u64::from(k[6] % 32),
            tail_chars: u64::from(k[6] / 32),
        }),
    };
    PolicySettings {
        threshold_ratio,
        retain,
        compaction_retries: u32::from(k[3] % 4),
        max_overflow_retries: u32::from(k[3] / 4 % 3),
        pruner,
        summary_tokens: (k[7] != 0).then(|| u64::from(k[7])),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((knobs, text)) = data.split_first_chunk::<8>() else {
        return;
    };
    let Some(log) = read_jsonl(text.to_vec(), None) else {
        return;
    };
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let input = PolicyInput::build(&log, &surface, &meter);
    let window = meter.window_at(log.len());
    let settings = match settings_of(*knobs).validate(window) {
        Ok(valid) => valid,
        Err(_) => match PolicySettings::default().validate(window) {
            Ok(valid) => valid,
            Err(e) => panic!("the defaults are refused: {e}"),
        },
    };
    for mode in [ReplayMode::Verify, ReplayMode::WhatIf] {
        let report = replay(&log, &meter, &input, &settings, mode);
        assert_eq!(report.checks.len(), input.checks().len());
        let _ = report.disagreements();
        // Up to the first divergence (all of a verify) a check measures the log as it is.
        let divergent = report.first_divergence.as_ref().map(|d| d.step_start_seq);
        for check in &report.checks {
            if mode == ReplayMode::WhatIf && Some(check.step_start_seq) == divergent {
                break;
            }
            assert_eq!(check.total, meter.at(check.cursor).total, "{check:?}");
        }
        for cursor in 0..=log.len() + 1 {
            let _ = report.curve.total_at(&meter, cursor);
        }
    }
});
