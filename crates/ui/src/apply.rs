//! Applying one [`UiCommand`]: the single place where the session's cursor and the shared
//! selection change, and where side effects (load, save, clipboard) start.

use surface_engine::EventIdx;

use crate::app::ViewerApp;
use crate::chrome::menu_bar::Banner;
use crate::command::{SideTab, UiCommand};
use crate::session::loader::{DialogJob, DialogPurpose, Source, sample_source};
use crate::view::ALL_FAMILIES;

impl ViewerApp {
    /// Applies one command.
    pub(super) fn apply(&mut self, ctx: &egui::Context, command: UiCommand) {
        if self.apply_browser(ctx, &command) || self.apply_nav(ctx, &command) {
            return;
        }
        match command {
            UiCommand::Open(path) => self.start_load(Source::Path(path), None, Some(ctx.clone())),
            UiCommand::OpenDialog => self.open_dialog(ctx, DialogPurpose::Open),
            UiCommand::OpenSample => match sample_source() {
                Some(source) => self.start_load(source, None, Some(ctx.clone())),
                None => {
                    self.chrome.banner = Some(Banner::error(
                        "The bundled sample assets/sample.session.jsonl is missing.",
                    ))
                }
            },
            UiCommand::PickSession(id) => {
                if let Some(path) = self
                    .session
                    .as_ref()
                    .and_then(|s| s.path())
                    .map(|p| p.to_path_buf())
                {
                    self.start_load(Source::Path(path), Some(id), Some(ctx.clone()));
                }
            }
            UiCommand::CancelLoad => {
                if let Some(job) = self.jobs.load.take() {
                    job.cancel();
                    self.chrome.banner = Some(Banner::info(format!(
                        "Loading {} was cancelled.",
                        job.source.label()
                    )));
                }
            }
            UiCommand::ClearRecent => self.prefs.recent.clear(),
            UiCommand::Select { idx, reveal } => {
                self.view.selected = Some(idx);
                if reveal {
                    self.nav.pending_reveal = Some(idx);
                }
            }
            UiCommand::ClearSelection => self.view.selected = None,
            UiCommand::Seek(n) => self.seek(n),
            UiCommand::StepForward => self.seek_by(1),
            UiCommand::StepBack => self.seek_by(-1),
            UiCommand::NextReplace => {
                if let Some(s) = &self.session
                    && let Some(c) = s.next_replace_cursor(s.cursor())
                {
                    self.jump_to(EventIdx(c as u32 - 1));
                }
            }
            UiCommand::PrevReplace => {
                if let Some(s) = &self.session
                    && let Some(c) = s.prev_replace_cursor(s.cursor())
                {
                    self.jump_to(EventIdx(c as u32 - 1));
                }
            }
            UiCommand::NextFinding | UiCommand::PrevFinding => {
                let next = matches!(command, UiCommand::NextFinding);
                if let Some(s) = &self.session
                    && s.findings.is_none()
                {
                    self.chrome.banner = Some(Banner::info(
                        "The findings are still being computed; try again in a moment.",
                    ));
                } else if let Some(s) = &self.session {
                    let from = self.view.selected.or(s.cursor_event());
                    let target = if next {
                        s.next_finding_event(from)
                    } else {
                        s.prev_finding_event(from)
                    };
                    let whole_log = s
                        .findings
                        .as_ref()
                        .map_or(0, |f| f.events.iter().filter(|e| e.is_none()).count());
                    match target {
                        Some(idx) => self.jump_to(idx),
                        None if whole_log > 0 => {
                            self.chrome.banner = Some(Banner::info(format!(
                                "No more findings about an event in that direction; {} about the whole log (no seq): see the Findings tab.",
                                crate::wording::count(whole_log, "finding")
                            )));
                            self.prefs.tab = SideTab::Findings;
                        }
                        None => {
                            self.chrome.banner =
                                Some(Banner::info("No more findings in that direction."))
                        }
                    }
                }
            }
            UiCommand::Home => self.seek(0),
            UiCommand::End => self.seek(usize::MAX),
            UiCommand::TogglePlay => {
                self.panels.replay.playing = !self.panels.replay.playing;
                if self.panels.replay.playing
                    && let Some(s) = self.session.as_mut()
                    && s.cursor() >= s.len()
                {
                    s.seek(0);
                }
            }
            UiCommand::SetSpeed(speed) => self.prefs.speed = speed,
            UiCommand::GoToSeq(seq) => {
                if let Some(s) = self.session.as_mut() {
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
            }
            UiCommand::JumpTo(idx) => {
                if self.session.as_ref().is_some_and(|s| idx.get() < s.len()) {
                    self.jump_to(idx);
                }
            }
            UiCommand::JumpToFinding(n) => {
                self.nav.findings_row = self
                    .session
                    .as_ref()
                    .and_then(|s| s.findings.as_ref()?.order.iter().position(|&k| k == n));
                if let Some(idx) = self
                    .session
                    .as_ref()
                    .and_then(|s| s.findings.as_ref()?.events.get(n).copied().flatten())
                {
                    self.jump_to(idx);
                }
            }
            UiCommand::RangeStart(idx) => {
                self.view.range_start = Some(idx);
                self.view.range_end = None;
            }
            UiCommand::RangeEnd(idx) => {
                if self.view.range_start.is_none() {
                    self.view.range_start = Some(idx);
                }
                self.view.range_end = Some(idx);
            }
            UiCommand::ClearRange => {
                if self.chrome.show_help {
                    self.chrome.show_help = false;
                } else {
                    self.view.range_start = None;
                    self.view.range_end = None;
                }
            }
            UiCommand::Copy(text) => ctx.copy_text(text),
            UiCommand::SaveDialog => self.open_dialog(ctx, DialogPurpose::Save),
            UiCommand::SaveAs(path) => self.save_preview(&path, false),
            UiCommand::SaveAsReplacing(path) => self.save_preview(&path, true),
            UiCommand::SetTheme(choice) => {
                self.prefs.theme = choice;
                choice.apply(ctx);
            }
            UiCommand::ToggleHelp => self.chrome.show_help = !self.chrome.show_help,
            UiCommand::ShowTab(tab) => {
                self.prefs.tab = tab;
                if !self.prefs.layout.side_open {
                    self.prefs.layout.side_open = true;
                }
            }
            UiCommand::FocusSearch => self.panels.search.focus_request = true,
            UiCommand::NextHit | UiCommand::PrevHit => {
                let from = self.view.selected;
                let hit = if matches!(command, UiCommand::NextHit) {
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
            UiCommand::DismissBanner => self.chrome.banner = None,
            UiCommand::ToggleFamily(f) => self.view.filter_mask ^= f.bit(),
            UiCommand::ShowAllFamilies => self.view.filter_mask = ALL_FAMILIES,
            UiCommand::ToggleChain => self.view.whole_chain = !self.view.whole_chain,
            UiCommand::ToggleFollow => self.toggle_follow(),
            UiCommand::SetThresholdRatio(r) => {
                if r > 0.0 && r.is_finite() {
                    self.view.threshold_ratio = r;
                }
            }
            // The fields keep the text being typed; only the settings change.
            UiCommand::SetPolicySettings(settings) => self.panels.policy.settings = settings,
            UiCommand::SetPolicyMode(mode) => self.panels.policy.mode = mode,
            UiCommand::UseInferredSettings => {
                if let Some(report) = self.panels.policy.job.report() {
                    let settings = crate::policy::fields::inside_inferred(
                        &report.inferred,
                        &self.panels.policy.settings,
                    );
                    self.panels.policy.set_settings(settings);
                    // The audit (Compactions tab, strip colours) judges pressure by the same T.
                    self.view.threshold_ratio = settings.threshold_ratio;
                }
            }
            UiCommand::OpenFolderDialog => self.open_dialog(ctx, DialogPurpose::OpenFolder),
            UiCommand::AnalysisLanded(parcel) => {
                self.land_analysis(&parcel);
                // Commands are applied after the panels were drawn: draw the figures now, not
                // at the next input.
                ctx.request_repaint();
            }
            // Applied by `apply_browser`.
            UiCommand::OpenFolder(_)
            | UiCommand::OpenSessionOf { .. }
            | UiCommand::BackToSessions
            | UiCommand::SortSessions(_)
            | UiCommand::ToggleSessionForks(_)
            | UiCommand::SelectSessionRow(_)
            | UiCommand::MoveSessionSelection(_)
            | UiCommand::OpenSelectedSession
            | UiCommand::ClearRecentFolders => {}
            // Applied by `apply_nav`.
            UiCommand::ToggleSidePanel
            | UiCommand::ToggleSurfacePanel
            | UiCommand::NextTurn
            | UiCommand::PrevTurn
            | UiCommand::NextModelCall
            | UiCommand::PrevModelCall
            | UiCommand::MoveSelection(_)
            | UiCommand::MoveSelectionPage(_)
            | UiCommand::SelectListEnd(_)
            | UiCommand::FocusList(_)
            | UiCommand::FollowLink(_)
            | UiCommand::HistoryBack
            | UiCommand::HistoryForward
            | UiCommand::Quit
            | UiCommand::SetZoom(_)
            | UiCommand::ZoomStrip(_)
            | UiCommand::PanStrip(_)
            | UiCommand::ToggleTimeAxis => {}
        }
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

    /// Shows the family of `idx` again if the timeline filter hides it (a search hit must be visible).
    fn ensure_visible_family(&mut self, idx: EventIdx) {
        if let Some(s) = &self.session {
            let family = crate::theme::Family::of(s.log.type_name(idx));
            self.view.filter_mask |= family.bit();
        }
    }

    fn open_dialog(&mut self, ctx: &egui::Context, purpose: DialogPurpose) {
        if self.chrome.dialog.is_some() || self.jobs.synchronous {
            return;
        }
        let suggested = match purpose {
            DialogPurpose::OpenFolder => self.browser.state.as_ref().map(|b| b.root.clone()),
            DialogPurpose::Open => self
                .session
                .as_ref()
                .and_then(|s| s.path())
                .map(|p| p.to_path_buf()),
            DialogPurpose::Save => self.panels.preview.suggested_path(self.session.as_ref()),
        };
        self.chrome.dialog = Some(DialogJob::spawn(purpose, suggested, ctx.clone()));
    }

    fn save_preview(&mut self, path: &std::path::Path, replace: bool) {
        let Some(session) = self.session.as_ref() else {
            return;
        };
        let result =
            crate::preview::pane::save_as_new_log(session, &self.panels.preview, path, replace);
        self.chrome.banner = Some(match result {
            Ok(()) => Banner::info(format!(
                "Saved a copy with the proposed event appended to {}.",
                path.display()
            )),
            Err(e) => Banner::error(format!("Not saved: {e:#}")),
        });
        self.prefs.tab = SideTab::Preview;
    }
}
