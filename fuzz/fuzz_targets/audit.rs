//! Fuzz target: the compaction audit (docs/audit.md) over an arbitrary log read by the JSONL
//! reader, at a threshold ratio drawn from the input's first byte: the audit (with its fidelity
//! pass, whose counts must hold together), each replace's detail and the audit's findings. Must never panic. The audit and the policy read overflow
//! finishes with one detector, so a compaction the audit calls `overflow` is one the policy's
//! input holds in an overflow check — or in a command check: for a compaction that carries a
//! `sourceCommandId` after an overflow, the audit's trigger names the overflow first (§8) and
//! the policy runs the command (§10.3).
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use surface_analysis::audit::{Trigger, audit, detail};
use surface_analysis::policy::{CheckKind, PolicyInput};
use surface_engine::compactions::compaction_findings;
use surface_engine::{EventIdx, Meter, Surface};
use surface_store::read_jsonl;

fuzz_target!(|data: &[u8]| {
    let Some((&knob, text)) = data.split_first() else {
        return;
    };
    let Some(log) = read_jsonl(text.to_vec(), None) else {
        return;
    };
    // (0, 1]: any threshold the command line accepts.
    let ratio = (f64::from(knob) + 1.0) / 256.0;
    let surface = Surface::at_end(&log);
    let meter = Meter::build(&log, &surface);
    let report = audit(&log, &surface, &meter, ratio);
    for replace in &report.replaces {
        let _ = detail(&log, replace);
        // The fidelity pass: what survived or was needed and lost is a part of the whole.
        for (_, k) in replace.fidelity.kinds.iter() {
            assert!(k.survived <= k.facts && k.needed <= k.facts);
            assert!(k.needed_lost <= k.needed && k.lost.len() as u64 == k.facts - k.survived);
        }
    }
    let _ = compaction_findings(&log, &surface);
    // The check the policy's input holds each compaction in, by its replace op's seq; seqs
    // met more than once (a hostile log repeats them) are left out on both sides.
    let input = PolicyInput::build(&log, &surface, &meter);
    let mut policy: BTreeMap<u64, (usize, CheckKind)> = BTreeMap::new();
    for check in input.checks() {
        let summaries = check.log.summaries.iter().filter_map(|s| s.replace_event);
        let prunes = check.log.prunes.iter().filter_map(|p| p.replace_event);
        for event in summaries.chain(prunes) {
            let entry = policy
                .entry(log.event(EventIdx(event)).seq)
                .or_insert((0, check.kind));
            entry.0 += 1;
        }
    }
    let mut audited: BTreeMap<u64, usize> = BTreeMap::new();
    for replace in &report.replaces {
        *audited.entry(replace.seq).or_default() += 1;
    }
    for replace in &report.replaces {
        if replace.trigger != Some(Trigger::Overflow) || audited.get(&replace.seq) != Some(&1) {
            continue;
        }
        if let Some(&(1, kind)) = policy.get(&replace.seq) {
            assert!(
                matches!(kind, CheckKind::Overflow | CheckKind::Command),
                "the replace at seq {}: overflow for the audit, a {kind:?} check for the policy",
                replace.seq
            );
        }
    }
});
