//! The surface panel: the nodes the model sees at the replay cursor, in order, with role, the
//! meter's price, op and a summary (the fixed columns as wide as their texts, a replace's label
//! running into the summary on its own row, so the summaries take the rest of the panel), under
//! the meter's total, window and fill and a selected replace's range told by position; click to
//! select, shift-click to pick a replace range.

use std::collections::HashMap;
use surface_engine::EventType;

use egui::{Align2, FontId, Pos2, Rect, Role, ScrollArea, Sense, Stroke, Ui, Vec2, WidgetInfo};

use surface_engine::{EventIdx, Mode, SurfaceOp};

use crate::command::NavCommand;
use crate::command::PreviewCommand;
use crate::command::WindowCommand;
use crate::command::{SideTab, UiCommand};
use crate::seq_width::NodeColumns;
use crate::session::loaded::{PENDING, PENDING_METER_HOVER, Session};
use crate::summary_cache::SummaryCache;
use crate::theme::{self, Family, Palette};
use crate::timeline::panel::offset_to_reveal;
use crate::view::{RowGeometry, ViewState};
use surface_engine::summarize;

/// UI-only state of the surface panel.
#[derive(Debug, Default)]
pub struct SurfacePanelState {
    summaries: SummaryCache,
    offset: f32,
    viewport_height: f32,
    /// The last reveal, checked once more next frame (see the timeline's).
    retry_reveal: Option<EventIdx>,
    /// `(cursor, event)` → node position, for the range and reveal lookups.
    positions: HashMap<(usize, u32), Option<usize>>,
}

impl SurfacePanelState {
    /// Drops every cache (a new log was loaded); the scroll offset becomes unknown, so the
    /// next reveal always scrolls.
    pub fn reset(&mut self) {
        let viewport_height = self.viewport_height;
        *self = SurfacePanelState {
            offset: f32::NAN,
            viewport_height,
            ..SurfacePanelState::default()
        };
    }

    fn position(&mut self, session: &Session, idx: EventIdx) -> Option<usize> {
        if self.positions.len() > 64 {
            self.positions.clear();
        }
        *self
            .positions
            .entry((session.cursor(), idx.0))
            .or_insert_with(|| session.node_position(idx))
    }
}

/// The role a node plays in the model's messages, from its type.
pub fn role_of(kind: EventType) -> &'static str {
    match kind {
        EventType::UserMessage => "user",
        EventType::AssistantMessage => "assistant",
        EventType::ToolResult => "tool",
        EventType::ContextMessage => "context",
        EventType::SteeringMessage => "steering",
        _ => "?",
    }
}

/// How a node got onto the surface.
pub fn op_label(session: &Session, idx: EventIdx) -> String {
    match session.log.op(idx) {
        SurfaceOp::Append => "append".into(),
        SurfaceOp::Replace { start, end } => format!("replace {start}..{end}"),
        _ if session.surface.mode() == Mode::Legacy => "legacy".into(),
        _ => "?".into(),
    }
}

/// A replace's range told by position (`None` when `idx` is no applied replace): a replace op
/// names the first and the last node it shadows in surface order, so after a head-anchored
/// fold its start seq can be larger than its end — `replace 258..250: from the summary at 258
/// through 250 (9 nodes in surface order; the range is positions on the surface, not seqs)`.
pub fn replace_range_text(session: &Session, idx: EventIdx) -> Option<String> {
    let rep = session.surface.replace_of(idx)?;
    let (a, b) = (
        session.log.event(rep.first).seq,
        session.log.event(rep.last).seq,
    );
    let first = if session.surface.replace_of(rep.first).is_some() {
        match session.log.event_type(rep.first) {
            EventType::ToolResult => format!("the pruned result at {a}"),
            _ => format!("the summary at {a}"),
        }
    } else {
        format!("seq {a}")
    };
    let span = if rep.count > 1 {
        format!("from {first} through {b}")
    } else {
        format!("just {first}")
    };
    let order = if a > b {
        "; the range is positions on the surface, not seqs: the earlier summary came first"
    } else {
        ""
    };
    Some(format!(
        "replace {a}..{b}: {span} ({} in surface order{order})",
        crate::wording::count(rep.count as usize, "node")
    ))
}

/// Shows the surface panel.
pub fn surface_panel_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    state: &mut SurfacePanelState,
    geometry: &mut RowGeometry,
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    header_ui(
        ui,
        session,
        (view.threshold_ratio, view.selected),
        &pal,
        commands,
    );
    let range = match (view.range_start, view.range_end) {
        (Some(a), Some(b)) => match (state.position(session, a), state.position(session, b)) {
            (Some(x), Some(y)) => Some(x.min(y)..=x.max(y)),
            _ => None,
        },
        (Some(a), None) => state.position(session, a).map(|x| x..=x),
        _ => None,
    };
    let mut scroll = ScrollArea::vertical()
        .id_salt("surface-rows")
        .auto_shrink([false, false]);
    let retry = state.retry_reveal.take();
    if let Some(target) = view.reveal.or(retry)
        && let Some(pos) = state.position(session, target)
        && let Some(offset) = offset_to_reveal(
            pos,
            theme::NODE_ROW_HEIGHT,
            state.offset,
            state.viewport_height,
        )
    {
        scroll = scroll.vertical_scroll_offset(offset);
    }
    ui.spacing_mut().item_spacing.y = 0.0;
    let output = scroll.show_rows(
        ui,
        theme::NODE_ROW_HEIGHT,
        session.nodes.len(),
        |ui, rows| {
            let columns = node_columns(ui, session, rows.clone());
            let mut rects = Vec::with_capacity(rows.len());
            for pos in rows {
                let Some(&idx) = session.nodes.get(pos) else {
                    continue;
                };
                let in_range = range.as_ref().is_some_and(|r| r.contains(&pos));
                let rect = node_row_ui(
                    ui,
                    session,
                    view,
                    state,
                    idx,
                    (in_range, &columns),
                    &pal,
                    commands,
                );
                rects.push((idx, rect));
            }
            geometry.surface = rects;
        },
    );
    let resized = state.viewport_height != output.inner_rect.height();
    state.offset = output.state.clamped_offset().y;
    state.viewport_height = output.inner_rect.height();
    geometry.surface_clip = output.inner_rect;
    // Checked again next frame, and for as long as the viewport keeps changing size.
    if let Some(target) = view.reveal.or(retry.filter(|_| resized)) {
        state.retry_reveal = Some(target);
        ui.ctx().request_repaint();
    }
    if session.nodes.is_empty() {
        ui.label(egui::RichText::new("The surface is empty at this cursor.").color(pal.weak_text));
    }
}

fn header_ui(
    ui: &mut Ui,
    session: &Session,
    (ratio, selected): (f64, Option<EventIdx>),
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let at = session
        .cursor_event()
        .map_or("before the first event".to_string(), |i| {
            format!("after seq {}", session.log.event(i).seq)
        });
    ui.horizontal(|ui| {
        ui.heading("Surface");
        ui.label(egui::RichText::new(at).strong());
    });
    ui.horizontal(|ui| {
        let n = session.nodes.len();
        ui.label(format!("{n} node{}", if n == 1 { "" } else { "s" }));
        tokens_label_ui(ui, session, ratio, pal);
        ui.label(
            egui::RichText::new(format!("{} mode", session.surface.mode().as_str()))
                .color(pal.weak_text),
        )
        .on_hover_text("surface: ops decide the surface; legacy: every eligible event is a node");
    });
    if let Some(text) = selected
        .filter(|&i| session.surface.is_on_surface(i))
        .and_then(|i| replace_range_text(session, i))
    {
        ui.label(egui::RichText::new(text).color(pal.family(Family::Compaction)))
            .on_hover_text("The selected node's replace op: its start and end name the first and last node it shadowed, in surface order");
    }
    if let Some(change) = &session.last_change
        && !change.left.is_empty()
    {
        let seqs: Vec<u64> = change
            .left
            .iter()
            .map(|&i| session.log.event(i).seq)
            .collect();
        let text = match (seqs.first(), seqs.last()) {
            (Some(a), Some(b)) if seqs.len() > 1 => {
                format!(
                    "− seq {a}..{b} ({}) left the surface",
                    crate::wording::count(seqs.len(), "node")
                )
            }
            (Some(a), _) => format!("− seq {a} left the surface"),
            _ => String::new(),
        };
        let r =
            ui.add(egui::Button::new(egui::RichText::new(text).color(pal.warning)).frame(false));
        if r.on_hover_text("Select the first node that left").clicked()
            && let Some(&first) = change.left.first()
        {
            commands.push(NavCommand::FollowLink(first).into());
        }
    }
    ui.separator();
}

/// The meter's total at the cursor, the window in force and how full it is.
fn tokens_label_ui(ui: &mut Ui, session: &Session, ratio: f64, pal: &Palette) {
    let (Some(f), Some(meter)) = (session.figure, session.meter()) else {
        ui.label(egui::RichText::new(format!("tokens {PENDING}")).color(pal.weak_text))
            .on_hover_text(PENDING_METER_HOVER);
        return;
    };
    let cursor = session.cursor();
    let window = meter.window_at(cursor);
    let threshold = meter.threshold_at(cursor, ratio);
    let text = match window {
        Some(w) => format!(
            "{} / {w} tokens · {:.1}%",
            f.total,
            f.total as f64 * 100.0 / w as f64
        ),
        None => format!("{} tokens", f.total),
    };
    let color = if threshold.is_some_and(|t| f.total >= t) {
        pal.warning
    } else {
        pal.text
    };
    ui.label(egui::RichText::new(text).color(color).strong())
        .on_hover_text(format!(
            "The harness's token meter: {} tokens ({} baseline), {} of them the surface's messages, {} the header (system prompt and tools).{}",
            f.total,
            f.baseline_kind.as_str(),
            f.surface,
            meter.header_price_at(cursor),
            match (window, threshold) {
                (Some(w), Some(t)) => format!(" Context window {w}; compaction threshold {t} ({:.0}%).", ratio * 100.0),
                _ => " No context window known (no request/context with contextWindow yet).".to_string(),
            }
        ));
}

/// The frame of a surface node's row: its background, the compaction bar of a node in a
/// range (selected or shadowed), and the hover outline. Shared by the surface panel and the
/// Compactions tab's before | after lists.
pub(super) fn paint_node_frame(
    painter: &egui::Painter,
    rect: Rect,
    bg: Option<egui::Color32>,
    marked: bool,
    hovered: bool,
    pal: &Palette,
) {
    if let Some(bg) = bg {
        painter.rect_filled(rect, 0.0, bg);
    }
    if marked {
        painter.vline(
            rect.left() + 1.0,
            rect.y_range(),
            Stroke::new(theme::STROKE_THICK, pal.family(Family::Compaction)),
        );
    }
    if hovered {
        painter.rect_stroke(rect, 0.0, pal.hover_stroke(), egui::StrokeKind::Inside);
    }
}

/// Nodes around the rows shown that also set the columns' widths, so that they do not change
/// with every row scrolled in.
const FIT_AROUND: usize = 100;

/// The fixed columns' widths for the nodes around the rows `rows` shown (all of them on a
/// short surface): as wide as their widest text, the summary column takes the rest.
fn node_columns(ui: &Ui, session: &Session, rows: std::ops::Range<usize>) -> NodeColumns {
    let from = rows.start.saturating_sub(FIT_AROUND);
    let to = rows.end.saturating_add(FIT_AROUND).min(session.nodes.len());
    // The op column fits `append` (or `legacy`): a replace's longer label runs into the
    // summary column on its own row, so the summaries of the other rows keep the room.
    let texts = session.nodes[from..to.max(from)].iter().map(|&idx| {
        let op = match session.log.op(idx) {
            SurfaceOp::Replace { .. } => "append".to_string(),
            _ => op_label(session, idx),
        };
        (
            session.log.event(idx).seq,
            role_of(session.log.event_type(idx)),
            op,
            format!("{:>5}", session.tokens_text(idx)),
        )
    });
    NodeColumns::fit(
        ui,
        texts,
        (
            &FontId::monospace(theme::NODE_FONT_SIZE),
            &FontId::proportional(theme::NODE_FONT_SIZE),
        ),
    )
}

#[expect(
    clippy::too_many_arguments,
    reason = "a row needs the session, view, caches and the command queue"
)]
fn node_row_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    state: &mut SurfacePanelState,
    idx: EventIdx,
    (in_range, columns): (bool, &NodeColumns),
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) -> Rect {
    let (rect, response) = ui.allocate_exact_size(
        Vec2::new(ui.available_width(), theme::NODE_ROW_HEIGHT),
        Sense::click(),
    );
    let seq = session.log.event(idx).seq;
    let selected = view.selected == Some(idx);
    response.widget_info(|| {
        WidgetInfo::selected(Role::Button, true, selected, format!("node seq {seq}"))
    });
    if !ui.is_rect_visible(rect) {
        return rect;
    }
    let entered = session
        .last_change
        .as_ref()
        .is_some_and(|c| c.entered.contains(&idx));
    let painter = ui.painter_at(rect);
    let bg = if selected {
        Some(pal.selection_bg)
    } else if in_range {
        Some(pal.range_bg)
    } else if entered {
        Some(pal.entered_bg)
    } else {
        None
    };
    paint_node_frame(&painter, rect, bg, in_range, response.hovered(), pal);
    let type_name = session.log.type_name(idx);
    let y = rect.center().y;
    let mono = FontId::monospace(theme::NODE_FONT_SIZE);
    let mut x = rect.left() + theme::SPACE;
    let col = |x: &mut f32, text: String, width: f32, font: FontId, color| {
        let clip = Rect::from_x_y_ranges(*x..=(*x + width - 4.0).min(rect.right()), rect.y_range());
        painter
            .with_clip_rect(clip)
            .text(Pos2::new(*x, y), Align2::LEFT_CENTER, text, font, color);
        *x += width;
    };
    col(&mut x, seq.to_string(), columns.seq, mono.clone(), pal.text);
    col(
        &mut x,
        role_of(session.log.event_type(idx)).to_string(),
        columns.role,
        mono.clone(),
        pal.family(Family::of(type_name)),
    );
    col(
        &mut x,
        format!("{:>5}", session.tokens_text(idx)),
        columns.tokens,
        mono,
        pal.weak_text,
    );
    let op = op_label(session, idx);
    let op_color = if op.starts_with("replace") {
        pal.family(Family::Compaction)
    } else {
        pal.weak_text
    };
    let op_font = FontId::proportional(theme::NODE_FONT_SIZE);
    // A replace's label may be wider than the column: the summary starts after it.
    let op_width = painter
        .layout_no_wrap(op.clone(), op_font.clone(), op_color)
        .size()
        .x
        + theme::COLUMN_MARGIN;
    let op_width = columns.op.max(op_width);
    col(&mut x, op, op_width, op_font, op_color);
    let summary = state
        .summaries
        .get(idx, || summarize(&session.log, idx))
        .to_string();
    let rest = rect.right() - x;
    col(&mut x, summary, rest, FontId::proportional(13.0), pal.text);
    if response.clicked() {
        let shift = ui.input(|i| i.modifiers.shift);
        if shift && view.range_start.is_some() {
            commands.push(PreviewCommand::RangeEnd(idx).into());
            commands.push(WindowCommand::ShowTab(SideTab::Preview).into());
        } else {
            commands.push(NavCommand::FocusList(crate::nav::navigate::ListKind::Surface).into());
            commands.push(NavCommand::Select { idx, reveal: true }.into());
            commands.push(PreviewCommand::RangeStart(idx).into());
        }
    }
    let range = replace_range_text(session, idx).map_or(String::new(), |t| format!("\n{t}"));
    response.on_hover_text_at_pointer(format!(
        "{type_name} · {} tokens (the meter's price){range}\nclick to select, shift-click to end a replace range",
        session.tokens_text(idx)
    ));
    rect
}
