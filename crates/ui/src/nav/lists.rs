//! Moving the selection of the list that has the keyboard (timeline, surface, Compactions
//! table, Findings list) by rows, by pages, or to either end.

use surface_engine::EventIdx;

use crate::app::ViewerApp;
use crate::chrome::command::SideTab;
use crate::nav::navigate::{self, ListKind};
use crate::theme;

impl ViewerApp {
    /// Selects the first (`last` false) or last row of the list that has the keyboard.
    pub(crate) fn select_list_end(&mut self, last: bool) {
        self.move_selection(if last {
            isize::MAX / 2
        } else {
            -isize::MAX / 2
        });
    }

    /// Rows in one page of the list that has the keyboard.
    pub(crate) fn page_rows(&self) -> usize {
        let height = ViewerApp::list_viewport_height(self);
        let row = match self.nav.list_focus {
            ListKind::Timeline => theme::ROW_HEIGHT,
            ListKind::Surface => theme::NODE_ROW_HEIGHT,
            ListKind::Compactions => theme::COMPACTION_ROW_HEIGHT,
            ListKind::Findings => theme::FINDING_ROW_HEIGHT,
        };
        ((height / row).floor() as usize).saturating_sub(1).max(1)
    }

    fn list_viewport_height(&self) -> f32 {
        match self.nav.list_focus {
            ListKind::Timeline => self.panels.timeline.viewport(),
            ListKind::Surface => self.panels.geometry.surface_clip.height(),
            _ => self.panels.geometry.timeline_clip.height() / 3.0,
        }
        .max(theme::ROW_HEIGHT * 2.0)
    }

    /// Moves the selection of the focused list by `delta` rows (clamped to the list).
    pub(crate) fn move_selection(&mut self, delta: isize) {
        let Some(session) = self.session.as_ref() else {
            return;
        };
        match self.nav.list_focus {
            ListKind::Timeline => {
                let len = self.panels.timeline.row_count_of(session);
                let current = self
                    .view
                    .selected
                    .map(|i| match self.panels.timeline.row_of(i) {
                        Ok(row) | Err(row) => row,
                    });
                if let Some(row) = navigate::moved_row(current, delta, len) {
                    let idx = self.panels.timeline.event_at_row(row);
                    self.view.selected = Some(idx);
                    self.nav.pending_reveal = Some(idx);
                }
            }
            ListKind::Surface => {
                let current = self.view.selected.and_then(|i| session.node_position(i));
                if let Some(pos) = navigate::moved_row(current, delta, session.nodes.len())
                    && let Some(&idx) = session.nodes.get(pos)
                {
                    self.view.selected = Some(idx);
                    self.nav.pending_reveal = Some(idx);
                }
            }
            ListKind::Compactions => {
                let rows = self.compaction_events();
                let current = self
                    .view
                    .selected
                    .and_then(|i| rows.iter().position(|&r| r == i));
                if let Some(row) = navigate::moved_row(current, delta, rows.len()) {
                    self.jump_to(rows[row]);
                    self.prefs.tab = SideTab::Compactions;
                }
            }
            ListKind::Findings => {
                let Some(findings) = session.findings.as_ref() else {
                    return;
                };
                let current = self.nav.findings_row;
                if let Some(row) = navigate::moved_row(current, delta, findings.order.len()) {
                    self.nav.findings_row = Some(row);
                    let target = findings
                        .order
                        .get(row)
                        .and_then(|&n| findings.events.get(n).copied().flatten());
                    // A finding about the whole log has no event: the row is selected only.
                    if let Some(idx) = target {
                        self.jump_to(idx);
                    }
                }
            }
        }
    }

    /// The events of the Compactions table's rows, in display order.
    fn compaction_events(&self) -> Vec<EventIdx> {
        let Some(a) = self.panels.compactions.cache.audit() else {
            return Vec::new();
        };
        self.panels
            .compactions
            .order()
            .iter()
            .filter_map(|&k| a.replaces.get(k).map(|r| r.event))
            .collect()
    }
}
