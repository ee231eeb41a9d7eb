//! The comparison as tests and the shell read it, through the app.

/// The comparison as tests see it.
impl crate::app::ViewerApp {
    /// The first divergence's seqs in A and B, once a comparison is computed (`Some(None)`:
    /// none).
    #[allow(clippy::type_complexity)]
    pub fn compare_divergence(&self) -> Option<Option<(Option<u64>, Option<u64>)>> {
        let r = self.panels.compare.result()?;
        Some(
            r.comparison
                .first_divergence
                .as_ref()
                .map(|d| (d.a_seq, d.b_seq)),
        )
    }

    /// The turns the comparison pairs (0 without one).
    pub fn compare_turns(&self) -> usize {
        self.panels
            .compare
            .result()
            .map_or(0, |r| r.comparison.turns.len())
    }

    /// B's position (an event index of B), once the Compare tab moved it.
    pub fn compare_b_cursor(&self) -> Option<usize> {
        self.panels.compare.b_cursor
    }

    /// Why the last comparison failed.
    pub fn compare_error(&self) -> Option<&str> {
        self.panels.compare.error.as_deref()
    }

    /// What the last file dialog was asked for (none opens in tests), as its purpose's name
    /// (`"Compare"`, `"CompareBeside"`, …).
    pub fn dialog_asked(&self) -> Option<String> {
        self.chrome.dialog_asked.map(|p| format!("{p:?}"))
    }

    /// True when B's curve was drawn over the strip on the last frame.
    pub fn strip_compare_drawn(&self) -> bool {
        self.panels.strip.compare.drawn()
    }
}
