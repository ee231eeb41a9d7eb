//! Applying the navigation commands: steps by turn and model call, moving the selection of
//! the list that has the keyboard, following links, panel toggles, and the back/forward
//! history every jump feeds.

use surface_engine::EventIdx;
use surface_engine::EventType;

use crate::app::ViewerApp;
use crate::command::{SideTab, UiCommand};
use crate::nav::history::Place;
use crate::nav::navigate::{self, ListKind};
use crate::strip::axis::Axis;
use crate::strip::zoom::Zoom;
use crate::theme;

/// How a command moves the user, for the history: `Some(true)` a seek (a drag repeats it),
/// `Some(false)` another jump, `None` not a jump (steps, playback, edits).
pub fn jump_kind(command: &UiCommand) -> Option<bool> {
    match command {
        UiCommand::Seek(_) => Some(true),
        UiCommand::GoToSeq(_)
        | UiCommand::JumpTo(_)
        | UiCommand::JumpToFinding(_)
        | UiCommand::NextFinding
        | UiCommand::PrevFinding
        | UiCommand::NextReplace
        | UiCommand::PrevReplace
        | UiCommand::NextTurn
        | UiCommand::PrevTurn
        | UiCommand::NextModelCall
        | UiCommand::PrevModelCall
        | UiCommand::NextHit
        | UiCommand::PrevHit
        | UiCommand::FollowLink(_)
        | UiCommand::Home
        | UiCommand::End => Some(false),
        _ => None,
    }
}

impl ViewerApp {
    /// Where the user is now (for the history).
    pub(crate) fn place(&self) -> Place {
        Place {
            cursor: self.session.as_ref().map_or(0, |s| s.cursor()),
            selected: self.view.selected,
        }
    }

    /// Applies a navigation command; false when `command` is not one.
    pub(crate) fn apply_nav(&mut self, ctx: &egui::Context, command: &UiCommand) -> bool {
        match command {
            UiCommand::ToggleSidePanel => {
                self.prefs.layout.side_open = !self.prefs.layout.side_open;
            }
            UiCommand::ToggleSurfacePanel => {
                self.prefs.layout.surface_open = !self.prefs.layout.surface_open;
            }
            UiCommand::NextTurn | UiCommand::PrevTurn => {
                let forward = matches!(command, UiCommand::NextTurn);
                self.step_to(navigate::TURN_START, forward, "turn");
            }
            UiCommand::NextModelCall | UiCommand::PrevModelCall => {
                let forward = matches!(command, UiCommand::NextModelCall);
                self.step_to(navigate::MODEL_CALL_START, forward, "model call");
            }
            UiCommand::MoveSelection(delta) => self.move_selection(*delta),
            UiCommand::MoveSelectionPage(pages) => {
                let rows = self.page_rows();
                self.move_selection(pages * rows as isize);
            }
            UiCommand::SelectListEnd(last) => self.move_selection(if *last {
                isize::MAX / 2
            } else {
                -isize::MAX / 2
            }),
            UiCommand::FocusList(list) => self.nav.list_focus = *list,
            UiCommand::FollowLink(idx) => {
                if self.session.as_ref().is_some_and(|s| idx.get() < s.len()) {
                    self.view.selected = Some(*idx);
                    self.nav.pending_reveal = Some(*idx);
                }
            }
            UiCommand::HistoryBack | UiCommand::HistoryForward => {
                let now = self.place();
                let to = if matches!(command, UiCommand::HistoryBack) {
                    self.nav.history.back(now)
                } else {
                    self.nav.history.forward(now)
                };
                match to {
                    Some(place) => self.go_to_place(place),
                    None if matches!(command, UiCommand::HistoryBack)
                        && self.browser.state.is_some() =>
                    {
                        self.apply(ctx, UiCommand::BackToSessions)
                    }
                    None => {}
                }
            }
            UiCommand::Quit => ctx.send_viewport_cmd(egui::ViewportCommand::Close),
            UiCommand::SetZoom(zoom) => self.set_zoom(*zoom),
            UiCommand::ZoomStrip(factor) => {
                if let Some(s) = &self.session {
                    let axis = Axis::of(s, self.prefs.time_axis);
                    let extent = axis.extent();
                    let z = Zoom::or_whole(self.view.zoom, extent);
                    let f = axis.fraction(&z, s.cursor());
                    let anchor = if (0.0..=1.0).contains(&f) { f } else { 0.5 };
                    self.set_zoom(Some(z.zoomed(anchor, *factor, extent)));
                }
            }
            UiCommand::PanStrip(by) => {
                if let Some(s) = &self.session {
                    let extent = Axis::of(s, self.prefs.time_axis).extent();
                    let z = Zoom::or_whole(self.view.zoom, extent);
                    self.set_zoom(Some(z.panned(*by, extent)));
                }
            }
            UiCommand::ToggleTimeAxis => self.toggle_time_axis(),
            _ => return false,
        }
        true
    }

    /// Shows `zoom` (in the units of the strip's axis) on the strip (the whole log when it
    /// covers it) and scrolls the timeline to the middle of the range.
    fn set_zoom(&mut self, zoom: Option<Zoom>) {
        let Some(s) = &self.session else {
            return;
        };
        let len = s.len();
        let axis = Axis::of(s, self.prefs.time_axis);
        let extent = axis.extent();
        let zoom = zoom
            .map(|z| z.clamped(extent))
            .filter(|z| !z.is_whole(extent));
        if zoom == self.view.zoom {
            return;
        }
        self.view.zoom = zoom;
        if let Some(z) = zoom
            && len > 0
        {
            let middle = axis.cursor_at(((z.start + z.end) / 2.0).floor());
            self.nav.pending_reveal = Some(EventIdx(middle.min(len - 1) as u32));
        }
    }

    /// Switches the strip's x axis between event index and wall-clock time, keeping the range
    /// shown on the same events (the cursor is an event, so it stays where it is).
    fn toggle_time_axis(&mut self) {
        let from_time = self.prefs.time_axis;
        self.prefs.time_axis = !from_time;
        let Some(s) = &self.session else {
            return;
        };
        let from = Axis::of(s, from_time);
        let to = Axis::of(s, !from_time);
        let before = self.view.zoom;
        self.view.zoom = match self.view.zoom_before_switch.take() {
            Some((previous, set)) if set == before => previous,
            _ => before
                .map(|z| from.convert(z, &to))
                .filter(|z| !z.is_whole(to.extent())),
        };
        self.view.zoom_before_switch = Some((before, self.view.zoom));
        if !to.is_time() && !from_time && !crate::strip::axis::has_time_axis(&s.time) {
            self.chrome.banner = Some(crate::chrome::menu_bar::Banner::info(
                "This log has no timestamps to put on a time axis: the strip stays on the event index.".to_string(),
            ));
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
                self.chrome.banner = Some(crate::chrome::menu_bar::Banner::info(format!(
                    "No {what} starts {way} the cursor."
                )));
            }
        }
    }

    /// Rows in one page of the list that has the keyboard.
    fn page_rows(&self) -> usize {
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
    fn move_selection(&mut self, delta: isize) {
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
            self.commands.push(UiCommand::HistoryBack);
        }
        for _ in 0..forward {
            self.commands.push(UiCommand::HistoryForward);
        }
    }

    /// Applies the queued commands, recording every jump in the history.
    pub(crate) fn apply_recorded(&mut self, ctx: &egui::Context, command: UiCommand) {
        let jump = jump_kind(&command);
        let before = self.place();
        self.apply(ctx, command);
        if let Some(seek) = jump {
            let after = self.place();
            self.nav.history.record(before, after, seek);
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
