//! One replace before | after: the surface just before and just after it side by side (the
//! shadowed nodes marked, the replacement highlighted), the replacement's text beside the
//! shadowed text with every lost term highlighted, and the refetches it caused as links
//! (selecting one draws its provenance arrows).

use egui::text::{LayoutJob, TextFormat};
use egui::{Align, Layout};
use egui::{Align2, FontId, Pos2, Rect, RichText, Role, ScrollArea, Sense, Ui, Vec2};
use egui::{WidgetInfo, WidgetText};

use surface_analysis::audit::{Detail, ReplaceAudit, detail};
use surface_engine::{EventIdx, Surface, summarize};

use crate::command::NavCommand;
use crate::command::UiCommand;
use crate::session::loaded::Session;
use crate::theme::{self, Family, Palette};
use crate::view::ViewState;

/// Characters of shadowed text laid out (the rest is summarized by a count).
const TEXT_CHARS: usize = 30_000;

/// What the view shows for one replace, built once per replace.
#[derive(Debug)]
struct Compare {
    replace: EventIdx,
    before: Vec<EventIdx>,
    after: Vec<EventIdx>,
    /// The shadowed nodes, sorted (for marking rows).
    shadowed: Vec<EventIdx>,
    detail: Detail,
    /// One-line summaries of the listed nodes.
    lines: std::collections::HashMap<u32, String>,
}

/// The replace shown, and a surface to look before and after it without moving the cursor.
#[derive(Debug, Default)]
pub struct CompareState {
    built: Option<Compare>,
    scratch: Option<Surface>,
}

impl CompareState {
    /// Drops everything (a new log was loaded).
    pub fn reset(&mut self) {
        *self = CompareState::default();
    }

    /// The replace shown, if any.
    pub fn shown(&self) -> Option<EventIdx> {
        self.built.as_ref().map(|c| c.replace)
    }

    /// Seqs of the surface just before and just after the shown replace.
    pub fn lists(&self, session: &Session) -> Option<(Vec<u64>, Vec<u64>)> {
        let c = self.built.as_ref()?;
        let seqs = |v: &[EventIdx]| v.iter().map(|&i| session.log.event(i).seq).collect();
        Some((seqs(&c.before), seqs(&c.after)))
    }

    fn build(&mut self, session: &Session, audit: &ReplaceAudit) {
        if self
            .built
            .as_ref()
            .is_some_and(|c| c.replace == audit.event)
        {
            return;
        }
        let stale = self
            .scratch
            .as_ref()
            .is_none_or(|s| s.processed() < session.surface.processed());
        if stale {
            self.scratch = Some(surface_engine::Surface::clone(&session.surface));
        }
        let Some(scratch) = self.scratch.as_mut() else {
            return;
        };
        let i = audit.event.get();
        scratch.seek(&session.log, i);
        let before: Vec<EventIdx> = scratch.nodes().collect();
        scratch.seek(&session.log, i + 1);
        let after: Vec<EventIdx> = scratch.nodes().collect();
        let mut shadowed = audit.shadowed_nodes.clone();
        shadowed.sort_unstable();
        self.built = Some(Compare {
            replace: audit.event,
            before,
            after,
            shadowed,
            detail: detail(&session.log, audit),
            lines: std::collections::HashMap::new(),
        });
    }
}

/// Shows `audit` (a replace of the open log) before | after.
pub fn compare_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    state: &mut CompareState,
    audit: &ReplaceAudit,
    commands: &mut Vec<UiCommand>,
) {
    state.build(session, audit);
    let Some(c) = state.built.as_mut() else {
        return;
    };
    let pal = theme::palette(ui);
    heading_ui(ui, audit, &pal);
    ui.add_space(theme::SPACE_SMALL);
    ui.columns(2, |cols| {
        let nodes = |n: u64| crate::wording::count(n as usize, "node");
        let before = format!(
            "Before · {} · {} tokens",
            nodes(audit.nodes_before),
            audit.tokens_before
        );
        let after = format!(
            "After · {} · {} tokens",
            nodes(audit.nodes_after),
            audit.tokens_after
        );
        list_ui(
            &mut cols[0],
            session,
            view,
            c,
            Side::Before,
            &before,
            &pal,
            commands,
        );
        list_ui(
            &mut cols[1],
            session,
            view,
            c,
            Side::After,
            &after,
            &pal,
            commands,
        );
    });
    ui.add_space(theme::SPACE_SMALL);
    texts_ui(ui, c, audit, &pal);
    if !audit.lost_terms.is_empty() {
        ui.add_space(theme::SPACE_SMALL);
        let width = ui.available_width();
        ui.with_layout(Layout::top_down(Align::Min), |ui| {
            ui.label(lost_terms_job(audit, &pal, width));
        });
    }
    ui.add_space(theme::SPACE_SMALL);
    super::fidelity::facts_ui(ui, audit, &pal, commands);
    ui.add_space(theme::SPACE_SMALL);
    refetches_ui(ui, audit, &pal, commands);
}

/// The replacement's text beside the shadowed nodes' text (lost terms marked).
fn texts_ui(ui: &mut Ui, c: &Compare, audit: &ReplaceAudit, pal: &Palette) {
    ui.columns(2, |cols| {
        cols[0].label(
            RichText::new(format!(
                "Replacement · seq {} · {} tokens",
                audit.seq, audit.replacement_tokens
            ))
            .strong(),
        );
        ScrollArea::vertical()
            .id_salt("compare-summary")
            .max_height(theme::COMPARE_TEXT_HEIGHT)
            .auto_shrink([false, true])
            .show(&mut cols[0], |ui| {
                let text = if c.detail.replacement.is_empty() {
                    "(no text)"
                } else {
                    c.detail.replacement.as_str()
                };
                // Left-aligned, not justified like the columns' own layout.
                ui.with_layout(Layout::top_down(Align::Min), |ui| {
                    ui.label(
                        RichText::new(text)
                            .size(theme::COMPACTION_FONT_SIZE)
                            .color(pal.text),
                    );
                });
            });
        cols[1].with_layout(Layout::top_down(Align::Min), |ui| {
            ui.label(
                RichText::new(format!(
                    "Shadowed · {} · {} tokens · {} lost terms",
                    crate::wording::count(audit.shadowed.len(), "node"),
                    audit.shadowed_tokens,
                    audit.lost_terms.len()
                ))
                .strong(),
            );
        });
        let width = cols[1].available_width();
        ScrollArea::vertical()
            .id_salt("compare-shadowed")
            .max_height(theme::COMPARE_TEXT_HEIGHT)
            .auto_shrink([false, true])
            .show(&mut cols[1], |ui| {
                ui.with_layout(Layout::top_down(Align::Min), |ui| {
                    ui.label(shadowed_job(&c.detail, pal, width));
                });
            });
    });
}

/// The later calls that fetched again what this replace dropped, each a link to the call.
fn refetches_ui(ui: &mut Ui, audit: &ReplaceAudit, pal: &Palette, commands: &mut Vec<UiCommand>) {
    if audit.refetches.is_empty() {
        ui.label(
            RichText::new("No refetches: no later call fetched again what this replace dropped.")
                .color(pal.weak_text),
        );
    } else {
        ui.label(RichText::new(format!("Refetches ({})", audit.refetches.len())).strong());
        for f in &audit.refetches {
            let tokens = f
                .tokens
                .map_or("no result yet".to_string(), |t| format!("{t} tokens"));
            let text = format!(
                "seq {} {} again (its earlier result seq {} was shadowed here) · {tokens}",
                f.seq, f.tool, f.original_seq
            );
            let r = ui
                .link(text)
                .on_hover_text("Select the new call: its provenance arrows are drawn");
            if r.clicked() {
                commands.push(NavCommand::FollowLink(f.call).into());
            }
        }
    }
}

fn heading_ui(ui: &mut Ui, a: &ReplaceAudit, pal: &Palette) {
    ui.horizontal_wrapped(|ui| {
        let (chip, _) = ui.allocate_exact_size(Vec2::splat(theme::TRIGGER_CHIP), Sense::hover());
        ui.painter()
            .rect_filled(chip, theme::CORNER_RADIUS / 2.0, pal.trigger(a.trigger));
        let trigger = a.trigger.map_or("without a trigger", |t| t.as_str());
        let invalid = if a.valid {
            ""
        } else {
            " · invalid, not applied"
        };
        ui.label(
            RichText::new(format!(
                "seq {} · {} · {trigger}{invalid}",
                a.seq,
                a.kind.as_str()
            ))
            .strong(),
        );
    });
    let fill = a.fill().map_or(String::new(), |(b, f)| {
        format!(" · {b:.1}% → {f:.1}% of {}", a.window.unwrap_or(0))
    });
    ui.label(
        RichText::new(format!(
            "{} → {} tokens ({} saved){fill} · {} → {} nodes",
            a.tokens_before,
            a.tokens_after,
            a.tokens_saved(),
            a.nodes_before,
            a.nodes_after
        ))
        .color(pal.weak_text),
    );
    if let Some(c) = &a.compaction {
        let mut parts = Vec::new();
        if let (Some(s), Some(e)) = (c.start_seq, c.end_seq) {
            parts.push(format!("seq {s}–{e}"));
        }
        if let Some(ms) = c.duration_ms {
            parts.push(format!("{ms} ms"));
        }
        if let (Some(p), Some(m)) = (&c.provider, &c.model) {
            parts.push(format!("summarizer {p}/{m}"));
        }
        if let Some(n) = c.shadowed_token_count {
            parts.push(format!(
                "recorded {n} shadowed tokens (meter {})",
                a.shadowed_tokens
            ));
        }
        if let Some(e) = &c.error {
            parts.push(format!("error {e}"));
        }
        if !parts.is_empty() {
            ui.label(RichText::new(parts.join(" · ")).color(pal.weak_text));
        }
    }
    let reported = |v: Option<u64>| v.map_or("–".to_string(), |v| v.to_string());
    ui.label(
        RichText::new(format!(
            "provider input tokens: {} before, {} after",
            reported(a.reported_before),
            reported(a.reported_after)
        ))
        .color(pal.weak_text),
    );
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Before,
    After,
}

#[allow(clippy::too_many_arguments)]
fn list_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    c: &mut Compare,
    side: Side,
    title: &str,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    ui.label(RichText::new(title).strong());
    let nodes = match side {
        Side::Before => c.before.clone(),
        Side::After => c.after.clone(),
    };
    let salt = match side {
        Side::Before => "compare-before",
        Side::After => "compare-after",
    };
    ScrollArea::vertical()
        .id_salt(salt)
        .max_height(theme::COMPARE_LIST_HEIGHT)
        .auto_shrink([false, true])
        .show_rows(ui, theme::COMPACTION_ROW_HEIGHT, nodes.len(), |ui, rows| {
            for row in rows {
                let Some(&idx) = nodes.get(row) else { continue };
                let marked = match side {
                    Side::Before => c.shadowed.binary_search(&idx).is_ok(),
                    Side::After => idx == c.replace,
                };
                let line = c
                    .lines
                    .entry(idx.0)
                    .or_insert_with(|| summarize(&session.log, idx))
                    .clone();
                node_row(ui, session, view, idx, side, marked, &line, pal, commands);
            }
        });
}

#[allow(clippy::too_many_arguments)]
fn node_row(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    idx: EventIdx,
    side: Side,
    marked: bool,
    line: &str,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let (rect, response) = ui.allocate_exact_size(
        Vec2::new(ui.available_width(), theme::COMPACTION_ROW_HEIGHT),
        Sense::click(),
    );
    let seq = session.log.event(idx).seq;
    let selected = view.selected == Some(idx);
    let label = match side {
        Side::Before => format!("before seq {seq}"),
        Side::After => format!("after seq {seq}"),
    };
    response.widget_info(|| WidgetInfo::selected(Role::Button, true, selected, label.clone()));
    if !ui.is_rect_visible(rect) {
        return;
    }
    let painter = ui.painter_at(rect);
    let bg = match (selected, marked, side) {
        (true, _, _) => Some(pal.selection_bg),
        (false, true, Side::Before) => Some(pal.shadowed_bg),
        (false, true, Side::After) => Some(pal.entered_bg),
        _ => None,
    };
    crate::surface_panel::paint_node_frame(&painter, rect, bg, marked, response.hovered(), pal);
    let type_name = session.log.type_name(idx);
    let text_color = if marked && side == Side::Before {
        pal.shadowed_text
    } else {
        pal.text
    };
    let font = FontId::monospace(theme::COMPACTION_FONT_SIZE);
    let y = rect.center().y;
    let mut x = rect.left() + theme::SPACE;
    let seq_width = crate::seq_width::seq_column_width(ui, session, &font);
    let cells = [
        (seq.to_string(), seq_width, pal.text),
        (
            type_name.split('/').next().unwrap_or(type_name).to_string(),
            theme::COMPARE_ROLE_WIDTH,
            pal.family(Family::of(type_name)),
        ),
        (
            format!("{:>5}", session.tokens_text(idx)),
            theme::TOKENS_WIDTH,
            pal.weak_text,
        ),
    ];
    for (text, width, color) in cells {
        let clip = Rect::from_x_y_ranges(x..=(x + width).min(rect.right()), rect.y_range());
        painter.with_clip_rect(clip).text(
            Pos2::new(x, y),
            Align2::LEFT_CENTER,
            text,
            font.clone(),
            color,
        );
        x += width;
    }
    let clip = Rect::from_x_y_ranges(x..=rect.right(), rect.y_range());
    painter.with_clip_rect(clip).text(
        Pos2::new(x, y),
        Align2::LEFT_CENTER,
        line,
        FontId::proportional(theme::COMPACTION_FONT_SIZE),
        text_color,
    );
    if response.clicked() {
        commands.push(NavCommand::FollowLink(idx).into());
    }
}

/// Lost terms shown in the list.
const LOST_SHOWN: usize = 40;

/// `Lost terms (N): a ×3, b, …`, each term on the lost-term colour.
fn lost_terms_job(audit: &ReplaceAudit, pal: &Palette, width: f32) -> WidgetText {
    let size = theme::COMPACTION_FONT_SIZE;
    let plain = TextFormat {
        font_id: FontId::proportional(size),
        color: pal.text,
        ..Default::default()
    };
    let term = TextFormat {
        background: pal.lost_term_bg,
        ..plain.clone()
    };
    let mut job = LayoutJob::default();
    job.wrap.max_width = width;
    job.append(
        &format!("Lost terms ({}): ", audit.lost_terms.len()),
        0.0,
        plain.clone(),
    );
    for (k, t) in audit.lost_terms.iter().take(LOST_SHOWN).enumerate() {
        if k > 0 {
            job.append(", ", 0.0, plain.clone());
        }
        job.append(&t.term, 0.0, term.clone());
        if t.count > 1 {
            job.append(&format!(" ×{}", t.count), 0.0, plain.clone());
        }
    }
    let more = audit.lost_terms.len().saturating_sub(LOST_SHOWN);
    if more > 0 {
        job.append(&format!(", … {more} more"), 0.0, plain);
    }
    job.into()
}

/// The shadowed nodes' texts, each headed by its seq and type, lost terms on their colour.
fn shadowed_job(d: &Detail, pal: &Palette, width: f32) -> WidgetText {
    let size = theme::COMPACTION_FONT_SIZE;
    let plain = TextFormat {
        font_id: FontId::proportional(size),
        color: pal.text,
        ..Default::default()
    };
    let head = TextFormat {
        font_id: FontId::monospace(size),
        color: pal.weak_text,
        ..Default::default()
    };
    let lost = TextFormat {
        background: pal.lost_term_bg,
        ..plain.clone()
    };
    let mut job = LayoutJob::default();
    job.wrap.max_width = width;
    let mut left = TEXT_CHARS;
    for node in &d.shadowed {
        if left == 0 {
            job.append("… (cut)", 0.0, head.clone());
            break;
        }
        job.append(
            &format!("— seq {} {}\n", node.seq, node.type_name),
            0.0,
            head.clone(),
        );
        let cut = node
            .text
            .char_indices()
            .nth(left)
            .map_or(node.text.len(), |(at, _)| at);
        let text = &node.text[..cut];
        left -= text.chars().count().min(left);
        let mut at = 0;
        for span in &node.lost_spans {
            if span.end > text.len() {
                break;
            }
            job.append(&text[at..span.start], 0.0, plain.clone());
            job.append(&text[span.clone()], 0.0, lost.clone());
            at = span.end;
        }
        job.append(&text[at..], 0.0, plain.clone());
        job.append("\n", 0.0, plain.clone());
    }
    job.into()
}
