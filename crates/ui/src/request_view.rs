//! The Request tab: the model call in force at the cursor (docs/meter.md) — a stacked bar of
//! system prompt, tools, messages and free window, the meter's estimate beside the provider's
//! reported usage, what the provider billed for it (uncached / cache read / cache write /
//! output, `request_bill`), the change against the previous request (why the cache missed,
//! `request_change`), the system prompt, the tool list with expandable schemas, and the
//! messages, the prefix identical to the previous request folded into one line.
//! Computed when the cursor's model call changes, never per frame.

use egui::{CollapsingHeader, RichText, ScrollArea, Sense, Ui, Vec2};
use serde_json::Value;

use surface_analysis::cost::{PriceTable, RequestChange};
use surface_engine::{Request, Surface, one_line, request_of_step, text_of_blocks};

use crate::command::NavCommand;
use crate::command::UiCommand;
use crate::compactions::request_changes::RequestChanges;
use crate::request_change::{Known, first_change_label, fold_line, fold_of, fold_tokens};
use crate::session::loaded::Session;
use crate::theme::{self, Palette};

/// Which model call a computed request belongs to: its `step/start`, the meter's length (live
/// follow may complete the step), and the cursor when the request depends on it (a step that
/// has neither chunks nor a message yet).
type RequestKey = (usize, usize, Option<usize>);

/// A computed request and the text shown for it.
#[derive(Debug)]
struct Shown {
    key: RequestKey,
    request: Request,
    /// One line per message.
    message_lines: Vec<String>,
    /// `(name, description, pretty schema)` per tool.
    tools: Vec<(String, String, String)>,
}

/// UI-only state of the Request tab.
#[derive(Debug, Default)]
pub struct RequestViewState {
    shown: Option<Shown>,
    /// A surface of the open log the request's messages are read from (seeking it is cheap).
    scratch: Option<Surface>,
}

impl RequestViewState {
    /// Drops the cache (a new log was loaded).
    pub fn reset(&mut self) {
        *self = RequestViewState::default();
    }

    /// The request computed last, if any.
    pub fn current(&self) -> Option<&Request> {
        self.shown.as_ref().map(|s| &s.request)
    }

    /// The request of the model call at the cursor, recomputed only when that call changes.
    pub fn refresh(&mut self, session: &Session) -> Option<&Request> {
        let cursor = session.cursor();
        let Some(meter) = session.meter() else {
            self.shown = None;
            return None;
        };
        let Some(step) = meter.step_at(cursor).copied() else {
            self.shown = None;
            return None;
        };
        let depends_on_cursor = step.message.is_none() && step.first_chunk.is_none();
        let key = (
            step.start.get(),
            meter.len(),
            depends_on_cursor.then_some(cursor),
        );
        if self.shown.as_ref().is_none_or(|s| s.key != key) {
            let scratch = self
                .scratch
                .get_or_insert_with(|| Surface::new(&session.log));
            let request = request_of_step(&session.log, meter, &step, cursor, scratch);
            self.shown = Some(Shown::new(key, request));
        }
        self.shown.as_ref().map(|s| &s.request)
    }
}

impl Shown {
    fn new(key: RequestKey, request: Request) -> Self {
        let message_lines = request
            .messages
            .iter()
            .map(|m| one_line(&text_of_blocks(&m.content), 120))
            .collect();
        let tools = request
            .tools
            .iter()
            .map(|t| {
                let text = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                let schema = t
                    .get("parameters")
                    .or_else(|| t.get("inputSchema"))
                    .unwrap_or(t);
                (
                    text("name"),
                    text("description"),
                    serde_json::to_string_pretty(schema).unwrap_or_default(),
                )
            })
            .collect();
        Shown {
            key,
            request,
            message_lines,
            tools,
        }
    }
}

/// The parts of the stacked bar: `(label, tokens)` for system, tools, messages and the free
/// window (0 without a window or when the request does not fit), and the bar's full scale.
pub fn bar_parts(request: &Request) -> ([(&'static str, u64); 4], u64) {
    let e = &request.estimate;
    let used = e.total;
    let scale = request.context_window.unwrap_or(used).max(used).max(1);
    (
        [
            ("system prompt", e.system),
            ("tools", e.tools),
            ("messages", e.messages),
            ("free", scale - used),
        ],
        scale,
    )
}

/// Shows the Request tab; `changes` is every request's first change (`None` while computed).
pub fn request_ui(
    ui: &mut Ui,
    session: &Session,
    state: &mut RequestViewState,
    (ratio, prices, changes): (f64, Option<&PriceTable>, Option<&RequestChanges>),
    commands: &mut Vec<UiCommand>,
) {
    let pal = theme::palette(ui);
    if session.meter().is_none() {
        ui.horizontal(|ui| {
            ui.label(format!("Request: {}", crate::session::loaded::PENDING));
        })
        .response
        .on_hover_text(crate::session::loaded::PENDING_METER_HOVER);
        return;
    }
    if state.refresh(session).is_none() {
        ui.label("No model request yet: the cursor is before the first step/start.");
        return;
    }
    let Some(shown) = &state.shown else {
        return;
    };
    let request = &shown.request;
    let known = changes.map_or(Known::Pending, |c| {
        Known::Ready(c.agent_at_cursor(request.cursor))
    });
    let change = match known {
        Known::Ready(change) => change,
        Known::Pending => None,
    };
    ScrollArea::vertical()
        .id_salt("request")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            heading_ui(ui, request, &pal);
            bar_ui(ui, request, &pal);
            figures_ui(ui, request, ratio, &pal);
            crate::request_bill::bill_ui(ui, request, prices, &pal);
            crate::request_change::change_ui(ui, session, known, &pal, commands);
            ui.separator();
            let system = request.system.as_deref();
            CollapsingHeader::new(format!(
                "System prompt · {} tokens",
                request.estimate.system
            ))
            .id_salt("request-system")
            .show(ui, |ui| {
                ui.label(RichText::new(system.unwrap_or("(none)")).monospace());
            });
            CollapsingHeader::new(format!(
                "Tools ({}) · {} tokens",
                shown.tools.len(),
                request.estimate.tools
            ))
            .id_salt("request-tools")
            .show(ui, |ui| {
                for (k, (name, description, schema)) in shown.tools.iter().enumerate() {
                    CollapsingHeader::new(RichText::new(name).monospace().strong())
                        .id_salt(("request-tool", k))
                        .show(ui, |ui| {
                            ui.label(
                                RichText::new(schema)
                                    .monospace()
                                    .size(theme::CODE_LINE_SIZE),
                            );
                        })
                        .header_response
                        .on_hover_text("Expand for the tool's schema");
                    ui.label(RichText::new(one_line(description, 200)).color(pal.weak_text));
                }
            });
            CollapsingHeader::new(format!(
                "Messages ({}) · {} tokens",
                request.messages.len(),
                request.estimate.messages
            ))
            .id_salt("request-messages")
            .default_open(true)
            .show(ui, |ui| {
                messages_ui(ui, session, (shown, change), &pal, commands)
            });
        });
}

fn heading_ui(ui: &mut Ui, request: &Request, pal: &Palette) {
    let opt = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
    ui.horizontal_wrapped(|ui| {
        ui.heading("Model request");
        ui.label(
            RichText::new(format!(
                "turn {} · step {} · step/start seq {}",
                opt(request.turn),
                opt(request.step),
                request.seq
            ))
            .strong(),
        );
    });
    ui.label(
        RichText::new(format!(
            "{} / {} · messages as they stood before seq {}{}",
            request.provider.as_deref().unwrap_or("?"),
            request.model.as_deref().unwrap_or("?"),
            opt(request.messages_before_seq),
            request
                .message_seq
                .map_or(String::new(), |s| format!(" · answered by seq {s}"))
        ))
        .color(pal.weak_text),
    );
}

/// The stacked bar, like a disk-usage bar, with its legend.
fn bar_ui(ui: &mut Ui, request: &Request, pal: &Palette) {
    let (parts, scale) = bar_parts(request);
    let colors = [
        pal.bar_system,
        pal.bar_tools,
        pal.bar_messages,
        pal.bar_free,
    ];
    let (rect, response) = ui.allocate_exact_size(
        Vec2::new(ui.available_width(), theme::REQUEST_BAR_HEIGHT),
        Sense::hover(),
    );
    let painter = ui.painter_at(rect);
    let mut x = rect.left();
    for ((_, tokens), color) in parts.iter().zip(colors) {
        let w = rect.width() * (*tokens as f32 / scale as f32);
        painter.rect_filled(
            egui::Rect::from_x_y_ranges(x..=x + w, rect.y_range()),
            0.0,
            color,
        );
        x += w;
    }
    let tip: Vec<String> = parts
        .iter()
        .map(|(label, tokens)| {
            format!(
                "{label}: {tokens} ({:.1}%)",
                *tokens as f64 * 100.0 / scale as f64
            )
        })
        .collect();
    response.on_hover_text(tip.join("\n"));
    ui.horizontal_wrapped(|ui| {
        for ((label, tokens), color) in parts.iter().zip(colors) {
            if *label == "free" && request.context_window.is_none() {
                continue;
            }
            let (swatch, _) =
                ui.allocate_exact_size(Vec2::splat(theme::SWATCH_SIZE), Sense::hover());
            ui.painter().rect_filled(swatch, 2.0, color);
            ui.label(format!("{label} {tokens}"));
        }
        match request.context_window {
            Some(w) => ui.label(RichText::new(format!("of window {w}")).color(pal.weak_text)),
            None => ui.label(RichText::new("(window unknown)").color(pal.weak_text)),
        };
    });
}

/// The meter's estimate beside the provider's reported usage.
fn figures_ui(ui: &mut Ui, request: &Request, ratio: f64, pal: &Palette) {
    let e = &request.estimate;
    // In a narrow side panel the long labels wrap instead of pushing the figures out of view.
    egui::Grid::new("request-figures")
        .num_columns(2)
        .max_col_width(ui.available_width() * theme::REQUEST_LABEL_SHARE)
        .striped(true)
        .show(ui, |ui| {
            ui.label("estimated (the meter's prices)");
            ui.label(RichText::new(format!("{} tokens", e.total)).strong());
            ui.end_row();
            ui.label("meter total when the messages were fixed");
            ui.label(format!(
                "{} ({} baseline)",
                request.meter.total,
                request.meter.baseline_kind.as_str()
            ));
            ui.end_row();
            if let Some(w) = request.context_window {
                let t = surface_engine::meter::threshold(w, ratio);
                ui.label("window · threshold");
                let over = request.meter.total >= t;
                ui.label(
                    RichText::new(format!(
                        "{w} · {t} ({:.0} %){}",
                        ratio * 100.0,
                        if over { " — over the threshold" } else { "" }
                    ))
                    .color(if over { pal.warning } else { pal.text }),
                );
                ui.end_row();
            }
            ui.label("reported by the provider");
            match &request.reported {
                Some(r) => {
                    ui.label(RichText::new(format!("{} prompt tokens", r.prompt())).strong())
                        .on_hover_text(format!(
                            "input {} + cache read {} + cache write {}; {} output tokens",
                            r.input, r.cache_read, r.cache_write, r.output
                        ));
                    ui.end_row();
                    ui.label("reported − estimated");
                    let diff = r.prompt() as i64 - e.total as i64;
                    ui.label(format!(
                        "{diff:+} ({:+.1}%)",
                        diff as f64 * 100.0 / e.total.max(1) as f64
                    ));
                }
                None => {
                    ui.label(RichText::new("no usage reported").color(pal.weak_text));
                }
            }
            ui.end_row();
        });
}

/// The messages, one line each: the prefix identical to the previous request folded into one
/// line (expandable), then the first change marked, then the rest.
fn messages_ui(
    ui: &mut Ui,
    session: &Session,
    (shown, change): (&Shown, Option<&RequestChange>),
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let request = &shown.request;
    let count = request.messages.len();
    let folded = change.and_then(fold_of).unwrap_or(0).min(count);
    if let Some(change) = change.filter(|_| folded > 0) {
        // A line that wraps in a narrow panel (a collapsing header's would be cut).
        let id = ui.scope_id().with("request-identical-prefix");
        let open = ui.data(|d| d.get_temp::<bool>(id)).unwrap_or(false);
        let arrow = if open { "▾" } else { "▸" };
        let line = fold_line(folded, fold_tokens(change, request));
        let toggle = ui
            .add(
                egui::Label::new(RichText::new(format!("{arrow} {line}")).color(pal.weak_text))
                    .wrap()
                    .sense(Sense::click()),
            )
            .on_hover_text(
                "The previous request sent these messages too, in this order: the provider's \
                 cache can serve them. Click to list them.",
            );
        if toggle.clicked() {
            ui.data_mut(|d| d.insert_temp(id, !open));
        }
        if open {
            ui.indent("request-identical-prefix-rows", |ui| {
                for k in 0..folded {
                    message_row_ui(ui, session, shown, k, pal, commands);
                }
            });
        }
    }
    for k in folded..count {
        match change.filter(|c| k == folded && c.against.is_some()) {
            Some(change) => first_change_row_ui(ui, session, (shown, change), k, pal, commands),
            None => message_row_ui(ui, session, shown, k, pal, commands),
        }
    }
}

/// The row of the first change, highlighted in its cause's colour under its label.
fn first_change_row_ui(
    ui: &mut Ui,
    session: &Session,
    (shown, change): (&Shown, &RequestChange),
    k: usize,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let color = pal.cache_break(change.first_change.cause);
    egui::Frame::new()
        .fill(color.gamma_multiply(theme::FIRST_CHANGE_ALPHA))
        .corner_radius(theme::CORNER_RADIUS)
        .show(ui, |ui| {
            ui.label(
                RichText::new(first_change_label(change))
                    .color(color)
                    .strong(),
            );
            message_row_ui(ui, session, shown, k, pal, commands);
        });
}

/// Message number `k`: its seq (a link to the node), role, price and first line.
fn message_row_ui(
    ui: &mut Ui,
    session: &Session,
    shown: &Shown,
    k: usize,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let request = &shown.request;
    let (Some(m), Some(price), Some(line)) = (
        request.messages.get(k),
        request.message_prices.get(k),
        shown.message_lines.get(k),
    ) else {
        return;
    };
    ui.horizontal(|ui| {
        let r = ui
            .add(egui::Button::new(RichText::new(format!("{:>6}", m.seq)).monospace()).frame(false))
            .on_hover_text("Select this node");
        if r.clicked()
            && let Some(idx) = session.log.find_seq(m.seq)
        {
            commands.push(NavCommand::FollowLink(idx).into());
        }
        ui.label(
            RichText::new(format!("{:<9}", m.role))
                .monospace()
                .color(pal.weak_text),
        );
        ui.label(
            RichText::new(format!("{price:>6}"))
                .monospace()
                .color(pal.weak_text),
        );
        ui.add(egui::Label::new(line).truncate());
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_scales_to_the_window_or_the_total() {
        let mut r = Request {
            turn: None,
            step: None,
            seq: 0,
            message_seq: None,
            messages_before_seq: None,
            provider: None,
            model: None,
            context_window: Some(1000),
            system: None,
            tools: Vec::new(),
            config: Value::Null,
            messages: Vec::new(),
            message_prices: Vec::new(),
            estimate: surface_engine::Estimate {
                system: 100,
                tools: 200,
                messages: 300,
                total: 600,
            },
            meter: Default::default(),
            reported: None,
            cursor: 0,
        };
        let (parts, scale) = bar_parts(&r);
        assert_eq!(scale, 1000);
        assert_eq!(parts.map(|p| p.1), [100, 200, 300, 400]);
        r.context_window = Some(500);
        assert_eq!(bar_parts(&r).1, 600);
        assert_eq!(bar_parts(&r).0[3].1, 0);
        r.context_window = None;
        assert_eq!(bar_parts(&r).1, 600);
    }
}
