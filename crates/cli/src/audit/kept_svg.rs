//! The HTML report's chart of what the summaries kept: one bar per kind of fact, its length the
//! share of the kind's facts that survived over the session, the needed-and-lost share marked
//! in red — an inline SVG with no external reference.

use std::fmt::Write as _;

use surface_analysis::audit::{Audit, FactKind};

use super::kept::percent;

/// Width of the chart, in pixels.
const WIDTH: u32 = 560;
/// Height of one kind's row.
const ROW: u32 = 24;
/// Where the bars start (after the kind's name).
const BAR_X: u32 = 90;
/// Longest bar.
const BAR_WIDTH: u32 = 340;

/// The survival chart, or nothing when no compaction shadowed a fact.
pub fn kept_svg(a: &Audit) -> Option<String> {
    let t = &a.fidelity_totals;
    if t.kinds.iter().all(|(_, k)| k.facts == 0) {
        return None;
    }
    let height = ROW * FactKind::ALL.len() as u32 + 8;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"Survival by kind of fact\" font-family=\"system-ui,sans-serif\" font-size=\"12\">"
    );
    for (row, kind) in FactKind::ALL.into_iter().enumerate() {
        let k = t.kinds.get(kind);
        let y = 4 + ROW * row as u32;
        let share = |n: u64| match k.facts {
            0 => 0,
            facts => (n as f64 / facts as f64 * f64::from(BAR_WIDTH)).round() as u32,
        };
        let kept = share(k.survived);
        let needed_lost = share(k.needed_lost);
        let _ = write!(
            out,
            "<text x=\"0\" y=\"{}\">{}</text><rect x=\"{BAR_X}\" y=\"{}\" width=\"{BAR_WIDTH}\" height=\"14\" fill=\"#eef0f3\"/><rect x=\"{BAR_X}\" y=\"{}\" width=\"{kept}\" height=\"14\" fill=\"#2f6fb0\"/><rect x=\"{}\" y=\"{}\" width=\"{needed_lost}\" height=\"14\" fill=\"#c0392b\"/><text x=\"{}\" y=\"{}\">{} of {} ({})</text>",
            y + 12,
            kind.as_str(),
            y + 1,
            y + 1,
            BAR_X + BAR_WIDTH - needed_lost,
            y + 1,
            BAR_X + BAR_WIDTH + 8,
            y + 12,
            k.survived,
            k.facts,
            percent(t.survival(kind))
        );
    }
    out.push_str("</svg>");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_facts_no_chart_and_a_chart_has_no_external_reference() {
        let mut a = Audit {
            window: None,
            threshold_ratio: 0.8,
            threshold: None,
            replaces: Vec::new(),
            failed: Vec::new(),
            over_threshold_requests: Vec::new(),
            warnings: Vec::new(),
            fidelity_totals: Default::default(),
        };
        assert!(kept_svg(&a).is_none());
        let path = &mut a.fidelity_totals.kinds.0[FactKind::Path.index()];
        (path.facts, path.survived, path.needed, path.needed_lost) = (4, 1, 2, 2);
        let svg = kept_svg(&a).unwrap();
        assert!(svg.contains("1 of 4 (25%)"), "{svg}");
        assert!(
            svg.contains("width=\"85\"") && svg.contains("width=\"170\""),
            "{svg}"
        );
        // The namespace is the only address, and it is not fetched.
        assert_eq!(svg.matches("http").count(), 1);
        assert!(!svg.contains("href"));
    }
}
