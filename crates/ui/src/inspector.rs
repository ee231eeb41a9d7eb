//! The inspector: the selected event's JSON, derived message (or why it cannot be read),
//! provenance both ways, for a replace the shadowed range beside the replacement's text, and
//! for a prune that rewrote more than its tool result's content the two `data` values side by
//! side with the differing paths highlighted.

use egui::{RichText, ScrollArea, Ui};

use surface_engine::{
    DiffKind, EventIdx, EventState, MarkedLine, Rewrite, marked_lines, message_of, read_message,
    tool_result_rewrite,
};

use crate::command::NavCommand;
use crate::command::UiCommand;
use crate::command::WindowCommand;
use crate::session::loaded::{Session, format_absolute};
use crate::summary_cache::SummaryCache;
use crate::surface_panel::op_label;
use crate::theme::{self, Family, Palette};
use crate::timeline::rows::describe_state_full;
use crate::view::ViewState;
use surface_engine::{summarize, text_of_blocks};

/// Longest JSON shown before it is cut (the full text can still be copied).
const MAX_JSON_CHARS: usize = 100_000;

/// Source and cited-by chips shown before "… and N more" (every chip is a button laid out each
/// frame; the timeline and the surface list them all).
const CHIPS_SHOWN: usize = 200;

/// Most lines of each side of a prune's data comparison.
const MAX_DIFF_LINES: usize = 400;

/// The text shown for one event, computed once per selection.
/// Role and text of an event's derived message (`None`: it has none); `Err` says why the
/// event cannot be read.
type DerivedMessage = Result<Option<(String, String)>, String>;

#[derive(Debug)]
struct Inspected {
    idx: EventIdx,
    pretty: String,
    /// Role and text of the derived message; `Err` says why the event cannot be read.
    message: DerivedMessage,
    /// How a prune carried by this event breaks the prune rule, laid out for display.
    rewrite: Option<RewriteView>,
}

/// One side of a prune's data comparison: which event, and its `data` as marked lines.
#[derive(Debug)]
struct DataSide {
    title: String,
    lines: Vec<MarkedLine>,
}

/// A prune that breaks docs/parity.md, ready to show.
#[derive(Debug)]
struct RewriteView {
    /// The finding's sentence.
    summary: String,
    /// For a data change: the original's and the replacement's `data`, laid out.
    sides: Option<[DataSide; 2]>,
    /// Each differing path, described.
    paths: Vec<String>,
}

impl RewriteView {
    fn new(session: &Session, idx: EventIdx) -> Option<Self> {
        let rewrite = tool_result_rewrite(&session.log, &session.surface, idx)?;
        let summary = rewrite.describe(&session.log);
        let Rewrite::DataChanged {
            original,
            original_data,
            replacement_data,
            diff,
        } = &rewrite
        else {
            return Some(RewriteView {
                summary,
                sides: None,
                paths: Vec::new(),
            });
        };
        let on = |keep: DiffKind| -> Vec<&str> {
            diff.entries
                .iter()
                .filter(|e| e.kind == DiffKind::Changed || e.kind == keep)
                .map(|e| e.path.as_str())
                .collect()
        };
        let left = marked_lines(original_data, &on(DiffKind::OnlyInOriginal));
        let right = marked_lines(replacement_data, &on(DiffKind::OnlyInReplacement));
        let mut paths: Vec<String> = diff.entries.iter().map(|e| e.describe()).collect();
        if diff.total > diff.entries.len() {
            paths.push(format!("… and {} more", diff.total - diff.entries.len()));
        }
        Some(RewriteView {
            summary,
            sides: Some([
                DataSide {
                    title: format!("Original data (seq {})", session.log.event(*original).seq),
                    lines: left,
                },
                DataSide {
                    title: format!("Replacement data (seq {})", session.log.event(idx).seq),
                    lines: right,
                },
            ]),
            paths,
        })
    }
}

impl Inspected {
    fn new(session: &Session, idx: EventIdx) -> Self {
        let raw = session.log.event_json(idx);
        let mut pretty = serde_json::from_str::<serde_json::Value>(&raw)
            .ok()
            .and_then(|v| serde_json::to_string_pretty(&v).ok())
            .unwrap_or_else(|| raw.to_string());
        if pretty.len() > MAX_JSON_CHARS {
            let mut cut = MAX_JSON_CHARS;
            while !pretty.is_char_boundary(cut) {
                cut -= 1;
            }
            pretty.truncate(cut);
            pretty.push_str("\n… (cut; use Copy event JSON for the whole event)");
        }
        let message = if session.log.is_eligible(idx) {
            read_message(&session.log, idx)
                .map(|m| m.map(|m| (m.role.clone(), text_of_blocks(&m.content))))
        } else {
            Ok(None)
        };
        Inspected {
            idx,
            pretty,
            message,
            rewrite: RewriteView::new(session, idx),
        }
    }
}

/// UI-only state: the pretty JSON and message text of the selected event.
#[derive(Debug, Default)]
pub struct InspectorState {
    cached: Option<Inspected>,
    /// Summaries of the shadowed nodes a selected replace lists.
    summaries: SummaryCache,
}

impl InspectorState {
    /// Drops caches (a new log was loaded).
    pub fn reset(&mut self) {
        self.cached = None;
        self.summaries.clear();
    }

    fn get(&mut self, session: &Session, idx: EventIdx) -> &Inspected {
        match &mut self.cached {
            Some(c) if c.idx == idx => {}
            slot => *slot = Some(Inspected::new(session, idx)),
        }
        self.cached
            .get_or_insert_with(|| Inspected::new(session, idx))
    }
}

/// Shows the inspector for the selected event.
pub fn inspector_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    state: &mut InspectorState,
    commands: &mut Vec<UiCommand>,
) {
    let Some(idx) = view.selected else {
        ui.label("Select an event in the timeline or a node on the surface.");
        return;
    };
    let pal = theme::palette(ui);
    ScrollArea::vertical()
        .id_salt("inspector")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            header_ui(ui, session, idx, &pal, commands);
            ui.separator();
            provenance_ui(ui, session, idx, &pal, commands);
            if let Some(rep) = session.surface.replace_of(idx) {
                ui.separator();
                replace_ui(
                    ui,
                    session,
                    (idx, rep),
                    &mut state.summaries,
                    &pal,
                    commands,
                );
            }
            let inspected = state.get(session, idx);
            if let Some(view) = &inspected.rewrite {
                ui.separator();
                rewrite_ui(ui, view, &pal);
            }
            message_ui(ui, &inspected.message, &pal);
            ui.separator();
            egui::CollapsingHeader::new("Event JSON")
                .default_open(true)
                .show(ui, |ui| {
                    ui.label(
                        RichText::new(inspected.pretty.as_str())
                            .monospace()
                            .size(12.0),
                    );
                });
        });
}

/// The event's seq and type, its state, time, line, flags, op and price, and the buttons to
/// seek to it and copy its JSON.
fn header_ui(
    ui: &mut Ui,
    session: &Session,
    idx: EventIdx,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let record = *session.log.event(idx);
    let type_name = session.log.type_name(idx);
    ui.horizontal_wrapped(|ui| {
        ui.heading(format!("seq {}", record.seq));
        ui.label(
            RichText::new(type_name)
                .color(pal.family(Family::of(type_name)))
                .strong()
                .monospace(),
        );
    });
    let st = session.surface.state(idx);
    let state_color = pal.state_chip(st);
    ui.label(RichText::new(describe_state_full(session, idx, st)).color(state_color));
    ui.horizontal_wrapped(|ui| {
        if let Some(t) = record.time() {
            ui.label(RichText::new(format_absolute(t)).color(pal.weak_text));
        }
        if record.line > 0 {
            ui.label(RichText::new(format!("line {}", record.line)).color(pal.weak_text));
        }
        if record.is_synthesized() {
            ui.label(RichText::new("synthesized (not in the file)").color(pal.warning));
        }
        if record.is_seed() {
            ui.label(
                RichText::new("inherited from the parent session (fork seed)").color(pal.weak_text),
            );
        }
        if session.log.is_eligible(idx) {
            ui.label(RichText::new(format!("op: {}", op_label(session, idx))).color(pal.weak_text));
            ui.label(
                RichText::new(format!("{} tokens", session.tokens_text(idx))).color(pal.weak_text),
            );
        }
    });
    ui.horizontal(|ui| {
        if ui
            .button("Move cursor here")
            .on_hover_text("Replay up to and including this event")
            .clicked()
        {
            commands.push(NavCommand::Seek(idx.get() + 1).into());
        }
        if ui.button("Copy event JSON").clicked() {
            commands.push(WindowCommand::Copy(session.log.event_json(idx).into_owned()).into());
        }
    });
}

/// The message derived from the event, or why it could not be read.
fn message_ui(ui: &mut Ui, message: &DerivedMessage, pal: &Palette) {
    match message {
        Ok(Some((role, text))) => {
            ui.separator();
            egui::CollapsingHeader::new(format!("Derived message ({role})"))
                .default_open(true)
                .show(ui, |ui| {
                    ui.label(text.as_str());
                });
        }
        Ok(None) => {}
        Err(reason) => {
            ui.separator();
            egui::CollapsingHeader::new("Derived message (unreadable)")
                .default_open(true)
                .show(ui, |ui| {
                    ui.label(
                        RichText::new(format!(
                            "This event's message could not be read: {reason}. The surface keeps the node, without content."
                        ))
                        .color(pal.error),
                    );
                });
        }
    }
}

/// The prune check: the finding, the differing paths, and the two `data` values side by side
/// with the differing lines highlighted.
fn rewrite_ui(ui: &mut Ui, view: &RewriteView, pal: &Palette) {
    ui.label(RichText::new("Prune rewrites more than the tool result's content").strong());
    let Some(sides) = &view.sides else {
        ui.label(RichText::new(view.summary.as_str()).color(pal.error));
        return;
    };
    ui.label(
        RichText::new("Its data differs from the original's outside the tool-result content:")
            .color(pal.error),
    );
    ui.label(
        RichText::new(view.paths.join(" · "))
            .monospace()
            .color(pal.error),
    );
    ui.columns(2, |cols| {
        let plain = egui::Layout::top_down(egui::Align::Min);
        for (ui, DataSide { title, lines }) in cols.iter_mut().zip(sides) {
            ui.with_layout(plain, |ui| {
                ui.label(RichText::new(title.as_str()).underline());
                for l in lines.iter().take(MAX_DIFF_LINES) {
                    let mut text = RichText::new(l.text.as_str())
                        .monospace()
                        .size(theme::CODE_LINE_SIZE);
                    if l.marked {
                        text = text.color(pal.error).background_color(pal.banner_error_bg);
                    }
                    ui.add(egui::Label::new(text).wrap());
                }
                if lines.len() > MAX_DIFF_LINES {
                    ui.label(format!("… {} more lines", lines.len() - MAX_DIFF_LINES));
                }
            });
        }
    });
}

fn seq_button(
    ui: &mut Ui,
    session: &Session,
    idx: EventIdx,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let type_name = session.log.type_name(idx);
    let text = RichText::new(format!("seq {} {}", session.log.event(idx).seq, type_name))
        .color(pal.family(Family::of(type_name)));
    // The summary is made only while the chip is hovered: a message can cite hundreds of
    // packed chunks, and summarizing one parses its whole row.
    if ui
        .button(text)
        .on_hover_ui(|ui| {
            ui.label(summarize(&session.log, idx));
        })
        .clicked()
    {
        commands.push(NavCommand::FollowLink(idx).into());
    }
}

fn provenance_ui(
    ui: &mut Ui,
    session: &Session,
    idx: EventIdx,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let listed = session.log.sources(idx);
    let sources = session.sources_of(idx);
    ui.label(
        RichText::new(match listed {
            None => "Sources: none (no sourceEventSeqs)".to_string(),
            Some(l) => format!("Sources ({}):", l.len()),
        })
        .strong(),
    );
    ui.horizontal_wrapped(|ui| {
        for &s in sources.iter().take(CHIPS_SHOWN) {
            seq_button(ui, session, s, pal, commands);
        }
        if sources.len() > CHIPS_SHOWN {
            ui.label(format!("… and {} more", sources.len() - CHIPS_SHOWN));
        }
        // Look the listed seqs up again only when some did not resolve to a source.
        let listed = listed.unwrap_or(&[]);
        let unresolved = if sources.len() < listed.len() {
            listed
        } else {
            &[]
        };
        let missing = unresolved
            .iter()
            .filter(|&&seq| session.log.find_seq(seq).is_none());
        for seq in missing.take(CHIPS_SHOWN) {
            ui.label(RichText::new(format!("seq {seq} (no such event)")).color(pal.error));
        }
    });
    let cited = session.cited_by(idx);
    ui.label(RichText::new(format!("Cited by ({}):", cited.len())).strong());
    ui.horizontal_wrapped(|ui| {
        for &c in cited.iter().take(CHIPS_SHOWN) {
            seq_button(ui, session, c, pal, commands);
        }
        if cited.len() > CHIPS_SHOWN {
            ui.label(format!("… and {} more", cited.len() - CHIPS_SHOWN));
        }
    });
}

fn replace_ui(
    ui: &mut Ui,
    session: &Session,
    (idx, rep): (EventIdx, &surface_engine::AppliedReplace),
    summaries: &mut SummaryCache,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let (a, b) = (
        session.log.event(rep.first).seq,
        session.log.event(rep.last).seq,
    );
    ui.label(
        RichText::new(format!(
            "Replace: seq {a}..{b} ({}) → seq {}",
            crate::wording::count(rep.count as usize, "node"),
            session.log.event(idx).seq
        ))
        .strong(),
    );
    if let Some(text) = crate::surface_panel::replace_range_text(session, idx) {
        ui.label(RichText::new(text).color(pal.weak_text));
    }
    if !rep.missing_sources.is_empty() {
        ui.label(
            RichText::new(format!(
                "Not cited in sourceEventSeqs: {:?}",
                rep.missing_sources
            ))
            .color(pal.error),
        );
    }
    let shadowed = session.surface.shadowed_nodes(rep);
    ui.columns(2, |cols| {
        // Columns are justified by default, which stretches wrapped text: use a plain layout.
        let plain = egui::Layout::top_down(egui::Align::Min);
        cols[0].with_layout(plain, |ui| {
            ui.label(RichText::new("Shadowed").underline());
            for &n in shadowed.iter().take(300) {
                let seq = session.log.event(n).seq;
                let cited = !rep.missing_sources.contains(&seq);
                let mark = if cited { "●" } else { "○ not cited:" };
                let color = if cited { pal.shadowed_text } else { pal.error };
                let summary = summaries.get(n, || summarize(&session.log, n));
                let text = RichText::new(format!("{mark} seq {seq}: {summary}")).color(color);
                let r = ui.add(egui::Button::new(text).wrap().frame(false));
                if r.on_hover_text("Select this shadowed event").clicked() {
                    commands.push(NavCommand::FollowLink(n).into());
                }
            }
        });
        cols[1].with_layout(plain, |ui| {
            ui.label(RichText::new("Replacement").underline());
            let text = message_of(&session.log, idx)
                .map(|m| text_of_blocks(&m.content))
                .unwrap_or_default();
            ui.add(egui::Label::new(text).wrap());
        });
    });
    if matches!(session.surface.state(idx), EventState::Shadowed { .. }) {
        ui.label(
            RichText::new("This replacement is itself shadowed at the cursor.")
                .color(pal.weak_text),
        );
    }
}
