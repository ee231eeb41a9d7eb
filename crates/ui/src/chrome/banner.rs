//! The strips above the panels: the banner (findings, errors, notices that clear themselves
//! after a few seconds) and the load progress with its cancel button.

use egui::{RichText, Ui};

use crate::command::{SessionCommand, SideTab, UiCommand, WindowCommand};
use crate::session::loaded::Session;
use crate::session::loader::LoadJob;
use crate::theme;

/// A one-line message above the panels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Banner {
    /// True for problems, false for information.
    pub is_error: bool,
    /// The message.
    pub text: String,
    /// Offer a button that opens the findings tab.
    pub show_findings: bool,
    /// A notice: it clears itself after [`theme::NOTICE_SECONDS`] (errors and the findings
    /// banner stay until dismissed).
    pub notice: bool,
}

impl Banner {
    /// An error banner.
    pub fn error(text: impl Into<String>) -> Self {
        Banner {
            is_error: true,
            text: text.into(),
            show_findings: false,
            notice: false,
        }
    }

    /// A notice: information that clears itself after a few seconds.
    pub fn info(text: impl Into<String>) -> Self {
        Banner {
            is_error: false,
            text: text.into(),
            show_findings: false,
            notice: true,
        }
    }
}

/// The banner to show right after a session loaded: findings (once computed) and
/// multi-session notes.
pub fn banner_for(session: &Session) -> Option<Banner> {
    let (errors, warnings) = session.finding_counts().unwrap_or((0, 0));
    let mut parts = Vec::new();
    let torn = torn_tail_line(session);
    let unread = unread_part(session, torn);
    let is_error = errors > 0 || unread.is_some();
    parts.extend(unread);
    if let Some(line) = torn {
        // Said first and in words: a cut file is the commonest bad input, and its finding
        // alone reads like one warning among others.
        parts.push(format!(
            "the file ends mid-event at line {line} (still being written, or cut): every event before it is shown"
        ));
    }
    if errors + warnings > 0 {
        parts.push(format!(
            "check found {errors} error(s) and {warnings} warning(s) in this log"
        ));
    }
    if session.sessions.len() > 1 {
        parts.push(format!(
            "this file holds {} sessions; showing {} (Session menu to switch)",
            session.sessions.len(),
            session.info.id
        ));
    }
    if parts.is_empty() {
        return None;
    }
    let mut text = parts.join(" · ");
    if let Some(first) = text.get(..1) {
        text = first.to_uppercase() + &text[1..];
    }
    Some(Banner {
        is_error,
        text,
        show_findings: errors + warnings > 0,
        notice: false,
    })
}

/// What the reader skipped (a line past the per-event limit, one that is not an event, a
/// corrupt frame), said first: what is shown is not the whole log. The torn last line is said
/// on its own.
fn unread_part(session: &Session, torn: Option<u32>) -> Option<String> {
    let skipped: Vec<surface_engine::Skipped> = surface_engine::skipped(&session.log)
        .into_iter()
        .filter(|s| s.line.is_none() || s.line != torn)
        .collect();
    let first = skipped.first()?;
    let place = match (first.line, first.seq) {
        (Some(line), _) => format!("line {line}"),
        (None, Some(seq)) => format!("the row of seq {seq}"),
        (None, None) => "a record".to_string(),
    };
    let count = match skipped.len() {
        1 => "1 record of this log was not read".to_string(),
        n => format!("{n} records of this log were not read"),
    };
    Some(format!("{count}, the first at {place}: {}", first.message))
}

/// The line of the log's torn last line (`line.torn-tail`), once the findings are in.
fn torn_tail_line(session: &Session) -> Option<u32> {
    let torn = surface_engine::Rule::LineTornTail.name();
    session
        .findings
        .as_ref()?
        .list
        .iter()
        .find(|f| f.rule == torn)
        .and_then(|f| f.line)
}

/// The banner.
/// The banner above the panels: an error or the findings banner in a strip of its own; a
/// notice laid over the top of the panels, so that neither its arrival nor its expiry moves
/// what is under it (a click aimed at a control lands on it).
pub fn banner_slot_ui(ui: &mut Ui, banner: &Banner, commands: &mut Vec<UiCommand>) {
    if !banner.notice {
        egui::Panel::top("banner").show(ui, |ui| banner_ui(ui, banner, commands));
        return;
    }
    let room = ui.available_rect_before_wrap();
    let inset = theme::NOTICE_INSET;
    egui::Area::new(egui::Id::unique("notice"))
        .order(egui::Order::Foreground)
        .fixed_pos(room.left_top() + egui::vec2(inset, inset))
        .show(ui.ctx(), |ui| {
            ui.set_width(room.width() - 2.0 * inset);
            banner_ui(ui, banner, commands);
        });
}

/// The banner's frame: its icon and text, Dismiss, and Show findings when it offers it.
pub fn banner_ui(ui: &mut Ui, banner: &Banner, commands: &mut Vec<UiCommand>) {
    let pal = theme::palette(ui);
    let bg = if banner.is_error {
        pal.banner_error_bg
    } else {
        pal.banner_info_bg
    };
    egui::Frame::new()
        .fill(bg)
        .inner_margin(theme::BANNER_MARGIN)
        .corner_radius(theme::CORNER_RADIUS)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                let icon = if banner.is_error { "■" } else { "●" };
                ui.label(RichText::new(format!("{icon} {}", banner.text)).color(pal.text));
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if ui.button("×").on_hover_text("Dismiss").clicked() {
                        commands.push(WindowCommand::DismissBanner.into());
                    }
                    if banner.show_findings && ui.button("Show findings").clicked() {
                        commands.push(WindowCommand::ShowTab(SideTab::Findings).into());
                    }
                });
            });
        });
}

/// The load progress strip with a cancel button.
pub fn loading_ui(ui: &mut Ui, job: &LoadJob, commands: &mut Vec<UiCommand>) {
    ui.horizontal(|ui| {
        ui.label(format!("Loading {}…", job.source.label()));
        let fraction = job.progress.fraction();
        let bar = egui::ProgressBar::new(fraction)
            .show_percentage()
            .desired_width(ui.available_width() - 90.0);
        ui.add(bar);
        if ui.button("Cancel").clicked() {
            commands.push(SessionCommand::CancelLoad.into());
        }
    });
}

/// When the notice `banner` shown since `since` (input time, seconds) clears: `None` for a
/// banner that stays.
pub fn notice_expiry(banner: &Banner, since: f64) -> Option<f64> {
    banner.notice.then_some(since + theme::NOTICE_SECONDS)
}
