//! Applying the [`NavCommand`]s: seeks and steps, jumps to replace ops, findings, turns, model
//! calls and seqs, selections and links, the list that has the keyboard, and the back/forward
//! history every jump feeds.

use surface_engine::{EventIdx, EventType};

use crate::app::ViewerApp;
use crate::chrome::banner::Banner;
use crate::chrome::command::SideTab;
use crate::command::BrowserCommand;
use crate::nav::command::NavCommand;
use crate::nav::history::Place;
use crate::nav::navigate;
use crate::wording::count;

impl ViewerApp {
    /// Where the user is now (for the history).
    pub(crate) fn place(&self) -> Place {
        Place {
            cursor: self.session.as_ref().map_or(0, |s| s.cursor()),
            selected: self.view.selected,
        }
    }

    /// Applies a command that moves the user.
    pub(crate) fn apply_nav(&mut self, ctx: &egui::Context, command: NavCommand) {
        match command {
            NavCommand::Select { idx, reveal } => {
                self.view.selected = Some(idx);
                if reveal {
                    self.nav.pending_reveal = Some(idx);
                }
            }
            NavCommand::ClearSelection => self.view.selected = None,
            NavCommand::Seek(n) => self.seek(n),
            NavCommand::StepForward => self.seek_by(1),
            NavCommand::StepBack => self.seek_by(-1),
            NavCommand::Home => self.seek(0),
            NavCommand::End => self.seek(usize::MAX),
            NavCommand::NextReplace | NavCommand::PrevReplace => {
                let next = command == NavCommand::NextReplace;
                self.step_replace(next);
            }
            NavCommand::NextFinding | NavCommand::PrevFinding => {
                let next = command == NavCommand::NextFinding;
                self.step_finding(next);
            }
            NavCommand::NextTurn | NavCommand::PrevTurn => {
                let forward = command == NavCommand::NextTurn;
                self.step_to(navigate::TURN_START, forward, "turn");
            }
            NavCommand::NextModelCall | NavCommand::PrevModelCall => {
                let forward = command == NavCommand::NextModelCall;
                self.step_to(navigate::MODEL_CALL_START, forward, "model call");
            }
            NavCommand::GoToSeq(seq) => self.go_to_seq(seq),
            NavCommand::JumpTo(idx) => {
                if self.session.as_ref().is_some_and(|s| idx.get() < s.len()) {
                    self.jump_to(idx);
                }
            }
            NavCommand::JumpToFinding(n) => self.jump_to_finding(n),
            NavCommand::FollowLink(idx) => {
                if self.session.as_ref().is_some_and(|s| idx.get() < s.len()) {
                    self.view.selected = Some(idx);
                    self.nav.pending_reveal = Some(idx);
                }
            }
            NavCommand::MoveSelection(delta) => self.move_selection(delta),
            NavCommand::MoveSelectionPage(pages) => {
                let rows = self.page_rows();
                self.move_selection(pages * rows as isize);
            }
            NavCommand::SelectListEnd(last) => self.select_list_end(last),
            NavCommand::FocusList(list) => self.nav.list_focus = list,
            NavCommand::HistoryBack | NavCommand::HistoryForward => {
                let back = command == NavCommand::HistoryBack;
                self.go_back_or_forward(ctx, back);
            }
        }
    }

    /// Moves the cursor so that `idx` is applied and selects it.
    pub(crate) fn jump_to(&mut self, idx: EventIdx) {
        if let Some(s) = self.session.as_mut() {
            s.seek(idx.get() + 1);
        }
        self.view.selected = Some(idx);
        self.nav.pending_reveal = Some(idx);
    }

    /// Moves the cursor and scrolls the timeline to it (to the first event at the start).
    fn seek(&mut self, target: usize) {
        if let Some(s) = self.session.as_mut() {
            s.seek(target);
            self.nav.pending_reveal = s
                .cursor_event()
                .or_else(|| (!s.is_empty()).then_some(EventIdx(0)));
        }
    }

    fn seek_by(&mut self, delta: isize) {
        if let Some(s) = self.session.as_mut() {
            let target = s.cursor().saturating_add_signed(delta);
            s.seek(target);
            if let Some(idx) = s.cursor_event() {
                self.nav.pending_reveal = Some(idx);
            }
        }
    }

    /// Moves to just after the next (or previous) replace op.
    fn step_replace(&mut self, next: bool) {
        let Some(s) = &self.session else {
            return;
        };
        let cursor = if next {
            s.next_replace_cursor(s.cursor())
        } else {
            s.prev_replace_cursor(s.cursor())
        };
        if let Some(c) = cursor {
            self.jump_to(EventIdx(c as u32 - 1));
        }
    }

    /// Moves to the next (or previous) finding's event; says why when there is none.
    fn step_finding(&mut self, next: bool) {
        let Some(s) = &self.session else {
            return;
        };
        let Some(findings) = s.findings.as_ref() else {
            self.chrome.banner = Some(Banner::info(
                "The findings are still being computed; try again in a moment.",
            ));
            return;
        };
        let from = self.view.selected.or(s.cursor_event());
        let target = if next {
            s.next_finding_event(from)
        } else {
            s.prev_finding_event(from)
        };
        let whole_log = findings.events.iter().filter(|e| e.is_none()).count();
        match target {
            Some(idx) => self.jump_to(idx),
            None if whole_log > 0 => {
                self.chrome.banner = Some(Banner::info(format!(
                    "No more findings about an event in that direction; {} about the whole log (no seq): see the Findings tab.",
                    count(whole_log, "finding")
                )));
                self.prefs.tab = SideTab::Findings;
            }
            None => self.chrome.banner = Some(Banner::info("No more findings in that direction.")),
        }
    }

    /// Moves the cursor to "after every event with seq ≤ `seq`" and selects that seq.
    fn go_to_seq(&mut self, seq: u64) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let target = s.log.cursor_for_seq(seq);
        s.seek(target);
        match s.log.find_seq(seq) {
            Some(idx) => {
                self.view.selected = Some(idx);
                self.nav.pending_reveal = Some(idx);
            }
            None => {
                self.chrome.banner = Some(Banner::info(format!(
                    "No event has seq {seq}; the cursor is after the last seq below it."
                )))
            }
        }
    }

    /// Selects finding number `n` in the Findings list and jumps to its event.
    fn jump_to_finding(&mut self, n: usize) {
        let findings = self.session.as_ref().and_then(|s| s.findings.as_ref());
        self.nav.findings_row = findings.and_then(|f| f.order.iter().position(|&k| k == n));
        if let Some(idx) = findings.and_then(|f| f.events.get(n).copied().flatten()) {
            self.jump_to(idx);
        }
    }

    /// Back (or forward) in the history; back from the first place of a session opened in the
    /// browser returns to the browser.
    fn go_back_or_forward(&mut self, ctx: &egui::Context, back: bool) {
        let now = self.place();
        let to = if back {
            self.nav.history.back(now)
        } else {
            self.nav.history.forward(now)
        };
        match to {
            Some(place) => self.go_to_place(place),
            None if back && self.browser.state.is_some() => {
                self.apply_browser(ctx, BrowserCommand::BackToSessions)
            }
            None => {}
        }
    }

    fn go_to_place(&mut self, place: Place) {
        if let Some(s) = self.session.as_mut() {
            s.seek(place.cursor);
            self.view.selected = place.selected.filter(|i| i.get() < s.len());
            self.nav.pending_reveal = self.view.selected.or(s.cursor_event());
        }
    }

    fn step_to(&mut self, event_type: EventType, forward: bool, what: &str) {
        let Some(s) = self.session.as_ref() else {
            return;
        };
        match navigate::step_to_type(&s.log, s.cursor(), event_type, forward) {
            Some(idx) => self.jump_to(idx),
            None => {
                let way = if forward { "after" } else { "before" };
                self.chrome.banner =
                    Some(Banner::info(format!("No {what} starts {way} the cursor.")));
            }
        }
    }

    /// Back and forward from the mouse's side buttons.
    pub(crate) fn history_buttons(&mut self, ctx: &egui::Context) {
        let (back, forward) = ctx.input(|i| {
            let mut back = 0;
            let mut forward = 0;
            for e in &i.events {
                if let egui::Event::PointerButton {
                    button,
                    pressed: true,
                    ..
                } = e
                {
                    match button {
                        egui::PointerButton::Extra1 => back += 1,
                        egui::PointerButton::Extra2 => forward += 1,
                        _ => {}
                    }
                }
            }
            (back, forward)
        });
        for _ in 0..back {
            self.commands.push(NavCommand::HistoryBack.into());
        }
        for _ in 0..forward {
            self.commands.push(NavCommand::HistoryForward.into());
        }
    }
}

impl ViewerApp {
    /// The seq of the event at index `index` (tests).
    pub fn seq_of_event(&self, index: usize) -> Option<u64> {
        let s = self.session.as_ref()?;
        (index < s.len()).then(|| s.log.event(EventIdx(index as u32)).seq)
    }

    /// Places to go back to in the history.
    pub fn history_depth(&self) -> usize {
        self.nav.history.back_len()
    }
}
