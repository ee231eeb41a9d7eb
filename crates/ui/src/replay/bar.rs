//! The replay bar: step, jump to replace ops and findings, play/pause with speed, the context
//! strip and a scrubber with markers over the whole log, and "go to seq".

use egui::{Pos2, Rect, Role, Sense, Ui, Vec2, WidgetInfo};

use crate::command::NavCommand;
use crate::command::ReplayCommand;
use crate::command::UiCommand;
use crate::session::loaded::Session;
use crate::strip::axis::Axis;
use crate::strip::context_strip::{StripState, context_strip_ui};
use crate::strip::track::cursor_on_axis;
use crate::theme::{self, Palette};

/// Playback speeds offered, events per second; infinity plays as fast as frames allow.
pub const SPEEDS: [f32; 9] = [
    1.0,
    2.0,
    5.0,
    10.0,
    25.0,
    100.0,
    1000.0,
    10_000.0,
    f32::INFINITY,
];

/// Events a frame applies at first when playing as fast as frames allow.
const FIRST_BURST: usize = 256;
/// The share of a frame the replay may take when playing as fast as frames allow, seconds.
const BURST_BUDGET: f32 = 0.008;

/// How a speed is named in the menu.
pub fn speed_label(speed: f32) -> String {
    if speed.is_finite() {
        format!("{speed}")
    } else {
        "max (as fast as frames allow)".to_string()
    }
}

/// UI-only state of the replay bar.
#[derive(Debug, Default)]
pub struct ReplayState {
    /// True while playing.
    pub playing: bool,
    /// Fractional events owed to playback.
    owed: f32,
    /// Text of the "go to seq" box.
    pub goto_text: String,
    /// Scrubber markers, cached per track width.
    markers: Option<Markers>,
    /// Events per frame at the "max" speed, adapted to how long a frame's replay took.
    burst: usize,
    /// Search hits, the zoomed range and per-column counts over the scrubber.
    marks: crate::replay::scrubber_marks::ScrubberMarks,
}

/// Pixel columns of the scrubber markers for one `(width, events, findings)` triple (the
/// findings' count is `None` while they are computed).
#[derive(Debug)]
struct Markers {
    key: (u32, usize, Option<usize>, bool),
    ops: Vec<f32>,
    findings: Vec<f32>,
}

impl ReplayState {
    /// Drops caches and stops playback (a new log was loaded).
    pub fn reset(&mut self) {
        self.playing = false;
        self.owed = 0.0;
        self.markers = None;
        self.burst = FIRST_BURST;
    }

    /// At the "max" speed: the replay of `steps` events took `seconds`; the next frame's
    /// burst grows while it stays within the budget and shrinks when it went over.
    pub fn adapt(&mut self, steps: usize, seconds: f32) {
        if steps == 0 {
            return;
        }
        self.burst = if seconds < BURST_BUDGET / 2.0 {
            steps.saturating_mul(2)
        } else if seconds > BURST_BUDGET {
            (steps / 2).max(1)
        } else {
            steps
        };
    }

    /// Advances playback by `dt` seconds at `speed` events/s; returns how many steps to take.
    pub fn tick(&mut self, dt: f32, speed: f32) -> usize {
        if !self.playing {
            return 0;
        }
        if !speed.is_finite() {
            return self.burst.max(1);
        }
        self.owed += dt * speed;
        let steps = self.owed.floor();
        self.owed -= steps;
        steps as usize
    }
}

/// Distinct pixel columns for events at `positions` on a track `width` pixels wide over the
/// whole log along `axis`.
pub fn marker_columns(
    positions: impl Iterator<Item = usize>,
    axis: &Axis<'_>,
    width: f32,
) -> Vec<f32> {
    let mut cols: Vec<f32> = positions
        .map(|p| (axis.whole_fraction(p + 1) * width).round())
        .collect();
    cols.dedup();
    cols
}

/// What the strip and the scrubber show besides the session: the zoomed range and the
/// search hits.
pub struct Overview<'a> {
    /// The range the strip shows (`None`: the whole log).
    pub zoom: Option<crate::strip::zoom::Zoom>,
    /// The search hits.
    pub hits: &'a [surface_engine::EventIdx],
    /// The x axis is wall-clock time (when the log has times).
    pub time_axis: bool,
}

/// Shows the replay bar.
#[allow(clippy::too_many_arguments)]
pub fn replay_bar_ui(
    ui: &mut Ui,
    session: &Session,
    state: &mut ReplayState,
    strip: &mut StripState,
    speed: f32,
    ratio: f64,
    overview: Overview<'_>,
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    ui.horizontal(|ui| {
        let b = |ui: &mut Ui, icon: &str, tip: &str| ui.button(icon).on_hover_text(tip).clicked();
        if b(ui, "⇤ Start", "Start: nothing applied (Home)") {
            commands.push(NavCommand::Home.into());
        }
        if b(ui, "◀ op", "Previous replace op (Shift+←)") {
            commands.push(NavCommand::PrevReplace.into());
        }
        if b(ui, "◀ step", "Step back one event (←)") {
            commands.push(NavCommand::StepBack.into());
        }
        let play = if state.playing {
            "‖ Pause"
        } else {
            "▶ Play"
        };
        if b(ui, play, "Play or pause (Space)") {
            commands.push(ReplayCommand::TogglePlay.into());
        }
        if b(ui, "step ▶", "Step forward one event (→)") {
            commands.push(NavCommand::StepForward.into());
        }
        if b(ui, "op ▶", "Next replace op (Shift+→)") {
            commands.push(NavCommand::NextReplace.into());
        }
        if b(ui, "End ⇥", "End: everything applied (End)") {
            commands.push(NavCommand::End.into());
        }
        ui.separator();
        if b(ui, "◁ finding", "Previous finding (Shift+F8)") {
            commands.push(NavCommand::PrevFinding.into());
        }
        if b(ui, "finding ▷", "Next finding (F8)") {
            commands.push(NavCommand::NextFinding.into());
        }
        ui.separator();
        egui::ComboBox::from_label("events/s")
            .selected_text(if speed.is_finite() {
                format!("{speed}")
            } else {
                "max".to_string()
            })
            .show_ui(ui, |ui| {
                for s in SPEEDS {
                    if ui.selectable_label(speed == s, speed_label(s)).clicked() {
                        commands.push(ReplayCommand::SetSpeed(s).into());
                    }
                }
            });
        ui.separator();
        let edit = egui::TextEdit::singleline(&mut state.goto_text)
            .hint_text("go to seq")
            .desired_width(70.0);
        let r = ui.add(edit);
        let go = ui
            .button("Go")
            .on_hover_text("Move the cursor to after this seq and select it")
            .clicked();
        if (go || (r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter))))
            && let Ok(seq) = state.goto_text.trim().parse::<u64>()
        {
            commands.push(NavCommand::GoToSeq(seq).into());
        }
        ui.separator();
        let at = session.cursor_event().map_or("start".to_string(), |i| {
            format!("seq {}", session.log.event(i).seq)
        });
        ui.label(format!(
            "{} / {} events · {at}",
            session.cursor(),
            session.len()
        ));
    });
    context_strip_ui(
        ui,
        session,
        strip,
        (ratio, overview.time_axis),
        overview.zoom,
        commands,
    );
    let time = overview.time_axis && crate::strip::axis::has_time_axis(&session.time);
    let top = ui.cursor().top();
    crate::strip::legend::strip_legend_ui(
        ui,
        strip.legend(time),
        (strip.what_if_toggle(), strip.breaks_toggle()),
        commands,
    );
    // The legend gains lines as the analyses arrive (the audit's triggers, the cache breaks):
    // it takes two lines from the first frame so the panels above do not move when they do.
    let two_lines = 2.0 * ui.spacing().interact_size.y + ui.spacing().item_spacing.y;
    let used = ui.cursor().top() - top;
    if used < two_lines {
        ui.add_space(two_lines - used);
    }
    crate::compare::curve::curve_legend_ui(ui, &strip.compare, commands);
    scrubber_ui(ui, session, state, &overview, &pal, commands);
}

fn scrubber_ui(
    ui: &mut Ui,
    session: &Session,
    state: &mut ReplayState,
    overview: &Overview<'_>,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let (rect, response) = ui.allocate_exact_size(
        Vec2::new(ui.available_width(), theme::SCRUBBER_HEIGHT),
        Sense::click_and_drag(),
    );
    let len = session.len();
    let axis = Axis::of(session, overview.time_axis);
    response.widget_info(|| WidgetInfo {
        value: Some(session.cursor() as f64),
        ..WidgetInfo::labeled(Role::Slider, true, "Replay position")
    });
    let key = (
        rect.width() as u32,
        len,
        session.findings.as_ref().map(|f| f.marks.len()),
        axis.is_time(),
    );
    if state.markers.as_ref().is_none_or(|m| m.key != key) {
        let ops = marker_columns(
            session.replace_ops.iter().map(|e| e.get()),
            &axis,
            rect.width(),
        );
        let findings = marker_columns(
            session.finding_marks().iter().map(|e| e.get()),
            &axis,
            rect.width(),
        );
        state.markers = Some(Markers { key, ops, findings });
    }
    let painter = ui.painter_at(rect);
    let track = Rect::from_x_y_ranges(
        rect.x_range(),
        rect.center().y - theme::SCRUBBER_TRACK_HALF..=rect.center().y + theme::SCRUBBER_TRACK_HALF,
    );
    painter.rect_filled(track, theme::SCRUBBER_TRACK_HALF, pal.track);
    let fx = rect.left() + axis.whole_fraction(session.cursor()) * rect.width();
    painter.rect_filled(
        Rect::from_x_y_ranges(rect.left()..=fx, track.y_range()),
        theme::SCRUBBER_TRACK_HALF,
        pal.track_fill,
    );
    if let Some(markers) = &state.markers {
        paint_markers(&painter, rect, markers, pal);
    }
    state.marks.refresh(
        rect.width(),
        &axis,
        &session.replace_ops,
        session.finding_marks(),
        overview.hits,
    );
    state
        .marks
        .paint(&painter, rect, overview.zoom, axis.extent(), pal);
    painter.circle_filled(
        Pos2::new(fx, rect.center().y),
        theme::SCRUBBER_HANDLE_RADIUS,
        pal.text,
    );
    // The release too: a fast drag's last move and release come in one frame, where the
    // scrubber is no longer dragged; the cursor ends where the button was released.
    if let Some(pos) = response.interact_pointer_pos()
        && (response.clicked() || response.dragged() || response.drag_stopped())
    {
        commands.push(NavCommand::Seek(cursor_on_axis(pos.x, rect, &axis)).into());
    }
    if let Some(pos) = response.hover_pos() {
        let c = cursor_on_axis(pos.x, rect, &axis);
        let tip = c
            .checked_sub(1)
            .map_or("start (nothing applied)".to_string(), |i| {
                let idx = surface_engine::EventIdx(i as u32);
                format!(
                    "after seq {} ({})",
                    session.log.event(idx).seq,
                    session.log.type_name(idx)
                )
            });
        let here = state
            .marks
            .hover_counts(pos.x - rect.left(), theme::SCRUBBER_MARKER_SPACING / 2.0)
            .map_or(String::new(), |h| format!("\n{h}"));
        response.on_hover_text_at_pointer(format!(
            "{tip}{here}\nmagenta: replace ops · red: findings · yellow, bottom edge: search hits · band: the range the context strip shows"
        ));
    }
}

/// The replace ops' markers along the top half of the scrubber, the findings' along the
/// bottom half.
fn paint_markers(painter: &egui::Painter, rect: Rect, markers: &Markers, pal: &Palette) {
    let Markers { ops, findings, .. } = markers;
    // Dense markers would paint the whole track: thin and translucent when crowded.
    let crowded = |n: usize| n as f32 > rect.width() / theme::SCRUBBER_MARKER_SPACING;
    let op_stroke = pal.marker_stroke(true, crowded(ops.len()));
    let finding_stroke = pal.marker_stroke(false, crowded(findings.len()));
    for &x in ops {
        painter.vline(rect.left() + x, rect.top()..=rect.center().y, op_stroke);
    }
    for &x in findings {
        painter.vline(
            rect.left() + x,
            rect.center().y..=rect.bottom(),
            finding_stroke,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn track_math() {
        assert_eq!(
            marker_columns([0usize, 0, 9].into_iter(), &Axis::Index { len: 10 }, 100.0),
            vec![10.0, 100.0]
        );
    }

    #[test]
    fn playback_ticks() {
        let mut s = ReplayState {
            playing: true,
            ..Default::default()
        };
        assert_eq!(s.tick(0.5, 5.0), 2);
        assert_eq!(s.tick(0.1, 5.0), 1);
        s.playing = false;
        assert_eq!(s.tick(1.0, 5.0), 0);
    }
}
