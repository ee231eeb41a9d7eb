//! Applying the [`TimelineCommand`]s: the family filters, the arrows' reach, the search box's
//! focus (the browser's filter while browsing) and stepping through the search hits.

use surface_engine::EventIdx;

use crate::app::ViewerApp;
use crate::theme::Family;
use crate::timeline::command::TimelineCommand;
use crate::view::ALL_FAMILIES;

impl ViewerApp {
    /// Applies a command of the timeline.
    pub(crate) fn apply_timeline(&mut self, command: TimelineCommand) {
        match command {
            TimelineCommand::ToggleFamily(f) => self.view.filter_mask ^= f.bit(),
            TimelineCommand::ShowAllFamilies => self.view.filter_mask = ALL_FAMILIES,
            TimelineCommand::ToggleChain => self.view.whole_chain = !self.view.whole_chain,
            TimelineCommand::FocusSearch => match self.browser.state.as_mut() {
                Some(b) if self.browser.shown => b.focus_filter = true,
                _ => self.panels.search.focus_request = true,
            },
            TimelineCommand::NextHit | TimelineCommand::PrevHit => {
                let from = self.view.selected;
                let hit = if command == TimelineCommand::NextHit {
                    self.panels.search.next_hit(from)
                } else {
                    self.panels.search.prev_hit(from)
                };
                if let Some(idx) = hit {
                    self.view.selected = Some(idx);
                    self.nav.pending_reveal = Some(idx);
                    self.ensure_visible_family(idx);
                }
            }
        }
    }

    /// Shows the family of `idx` again if the timeline filter hides it (a search hit must be visible).
    fn ensure_visible_family(&mut self, idx: EventIdx) {
        if let Some(s) = &self.session {
            let family = Family::of(s.log.type_name(idx));
            self.view.filter_mask |= family.bit();
        }
    }
}
