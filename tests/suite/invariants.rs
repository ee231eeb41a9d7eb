//! What every log read from hostile bytes must still satisfy, so that the "never panics"
//! tests also fail when a reader or a rule gives a wrong answer quietly: the surface at the
//! end equals one rebuilt event by event and one sought back and forth, every reading problem
//! becomes a finding that names its line (or row seq), and no finding names line 0.
#![allow(dead_code)]

use surface_engine::{EventLog, Finding, Surface, check_report};

/// The nodes of `surface` in surface order.
fn nodes(surface: &Surface) -> Vec<u32> {
    surface.nodes().map(|i| i.0).collect()
}

/// Checks the invariants of `log` (named `what` in failures); returns its findings.
pub fn assert_log_invariants(log: &EventLog, what: &str) -> Vec<Finding> {
    let at_end = Surface::at_end(log);
    assert_eq!(at_end.cursor(), log.len(), "{what}: the cursor at the end");
    let mut stepped = Surface::new(log);
    let mut steps = 0;
    while stepped.step_forward(log) {
        steps += 1;
    }
    assert_eq!(steps, log.len(), "{what}: one step per event");
    assert_eq!(
        nodes(&stepped),
        nodes(&at_end),
        "{what}: stepped event by event"
    );
    assert_eq!(stepped.len(), at_end.len(), "{what}: stepped length");
    let mut sought = Surface::at_end(log);
    sought.seek(log, log.len() / 2);
    assert_eq!(
        sought.cursor(),
        log.len() / 2,
        "{what}: sought to the middle"
    );
    sought.seek(log, log.len());
    assert_eq!(
        nodes(&sought),
        nodes(&at_end),
        "{what}: sought back and forth"
    );

    let report = check_report(log, &at_end);
    for p in &log.problems {
        assert!(
            report
                .findings
                .iter()
                .any(|f| f.line == p.line && f.seq == p.seq),
            "{what}: no finding names the problem at line {:?} seq {:?}: {}",
            p.line,
            p.seq,
            p.message
        );
    }
    assert!(
        report.findings.len() >= log.problems.len(),
        "{what}: a finding per problem"
    );
    for f in &report.findings {
        assert!(f.line.is_none_or(|l| l > 0), "{what}: line 0 in {f:?}");
    }
    report.findings
}
