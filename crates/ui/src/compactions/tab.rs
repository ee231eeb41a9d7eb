//! The Compactions tab: one row per replace op — seq, kind, trigger, fill before → after, tokens
//! saved, summary tokens, lost terms, refetches, and what it cost (summarizer tokens, saved per
//! call × calls after, cache lost, balance; `cost_columns`) — sortable by any column — and the
//! policy replay's verdict on it (the Policy tab's settings, verify); a click jumps the cursor
//! there; below, the selected replace before | after; then the failed compactions and the requests
//! made over the threshold.

use std::sync::Arc;

use egui::WidgetInfo;
use egui::{Align2, FontId, Pos2, Rect, RichText, Role, ScrollArea, Sense, Ui, Vec2};

use surface_analysis::audit::{Audit, ReplaceAudit};
use surface_analysis::cost::{CompactionCost, Ledger, PriceTable};
use surface_analysis::policy::{CANT_JUDGE_NO_WINDOW, ReplayMode};
use surface_engine::EventIdx;

use crate::command::NavCommand;
use crate::command::UiCommand;
use crate::command::{SideTab, WindowCommand};
use crate::compactions::compare::{CompareState, compare_ui};
use crate::compactions::cost_columns;
use crate::compactions::cost_job::LedgerCache;
use crate::compactions::fidelity;
use crate::compactions::job::AuditCache;
use crate::compactions::verdicts::{AS_DECIDED, CompactionVerdicts, RowVerdict};
use crate::nav::reveal::ListScroll;
use crate::policy::tab::PolicyTabState;
use crate::session::loaded::Session;
use crate::theme::{self, Palette};
use crate::view::ViewState;

/// A column of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// The replace's seq (log order).
    Seq,
    /// Summary, prune or other.
    Kind,
    /// Why it ran.
    Trigger,
    /// Fill of the window before.
    Fill,
    /// Tokens saved.
    Saved,
    /// The replacement's tokens.
    Summary,
    /// Lost terms.
    Lost,
    /// Refetches.
    Refetches,
    /// The share of the shadowed text's facts the summary kept.
    Fidelity,
    /// The summarizer call's tokens (docs/cost.md#each-compaction).
    Summarizer,
    /// Saved per call × calls after.
    PromptSaved,
    /// The cache lost.
    CacheLost,
    /// The balance.
    Balance,
}

impl Column {
    /// In display order: the balance beside the kind, in view at any panel width; the audit's
    /// columns and the balance's parts after them (the table scrolls sideways).
    const ALL: [Column; 13] = [
        Column::Seq,
        Column::Kind,
        Column::Balance,
        Column::Trigger,
        Column::Fill,
        Column::Saved,
        Column::Summary,
        Column::Lost,
        Column::Refetches,
        Column::Fidelity,
        Column::Summarizer,
        Column::PromptSaved,
        Column::CacheLost,
    ];

    /// Width of the row's first click target: seq, the policy's short verdict, kind and
    /// balance.
    fn main_width() -> f32 {
        theme::SPACE_SMALL
            + theme::COMPACTION_POLICY_SHORT_WIDTH
            + Column::ALL[..3].iter().map(|c| c.width()).sum::<f32>()
    }

    /// Width of the row's second click target: the audit's figures and the balance's parts.
    fn parts_width() -> f32 {
        Column::ALL[3..].iter().map(|c| c.width()).sum()
    }

    /// The cost columns' index among them (`None`: an audit column).
    fn cost_index(self) -> Option<usize> {
        (self as usize).checked_sub(Column::Summarizer as usize)
    }

    fn width(self) -> f32 {
        match self.cost_index() {
            Some(k) => theme::COMPACTION_COST_COLUMNS[k],
            None => theme::COMPACTION_COLUMNS[self as usize],
        }
    }

    fn title(self) -> &'static str {
        match self {
            Column::Seq => "seq",
            Column::Kind => "kind",
            Column::Trigger => "trigger",
            Column::Fill => "fill %",
            Column::Saved => "saved",
            Column::Summary => "summary",
            Column::Lost => "lost",
            Column::Refetches => "refetch",
            Column::Fidelity => fidelity::TITLE,
            Column::Summarizer => "summarizer",
            Column::PromptSaved => "saved/call×calls",
            Column::CacheLost => "cache lost",
            Column::Balance => "balance",
        }
    }

    fn hover(self) -> &'static str {
        match self {
            Column::Seq => "The replacing event",
            Column::Kind => {
                "summary (after compaction/summary), prune (after compaction/prune) or other"
            }
            Column::Trigger => {
                "overflow, command, pressure (at or over the threshold) or below-threshold"
            }
            Column::Fill => "The meter's total as a share of the window, before → after",
            Column::Saved => "The meter's total before minus after",
            Column::Summary => "The meter's price of the replacement",
            Column::Lost => {
                "Salient terms of the shadowed text kept nowhere on the surface after it"
            }
            Column::Refetches => "Later calls that fetched again what it dropped",
            Column::Fidelity => fidelity::HOVER,
            Column::Summarizer => cost_columns::SUMMARIZER_FORMULA,
            Column::PromptSaved => cost_columns::SAVED_FORMULA,
            Column::CacheLost => cost_columns::CACHE_LOST_FORMULA,
            Column::Balance => cost_columns::BALANCE_FORMULA,
        }
    }
}

/// The sort key of a replace under `column` (ties keep log order); the cost columns read
/// `ledger`.
fn sort_key(r: &ReplaceAudit, column: Column, ledger: Option<&Ledger>) -> i64 {
    if let Some(k) = column.cost_index() {
        return cost_columns::sort_key(cost_columns::cost_of(ledger, r.event), k);
    }
    match column {
        Column::Seq => r.seq as i64,
        Column::Kind => r.kind as i64,
        Column::Trigger => r.trigger.map_or(-1, |t| t as i64),
        Column::Fill => r.fill().map_or(-1, |(b, _)| (b * 1000.0) as i64),
        Column::Saved => r.tokens_saved(),
        Column::Summary => r.replacement_tokens as i64,
        Column::Lost => r.lost_terms.len() as i64,
        Column::Refetches => r.refetches.len() as i64,
        Column::Fidelity => fidelity::sort_key(r),
        Column::Summarizer | Column::PromptSaved | Column::CacheLost | Column::Balance => 0,
    }
}

/// Row order of `audit` sorted by `column` (descending unless `ascending`).
pub fn sorted_rows(
    audit: &Audit,
    ledger: Option<&Ledger>,
    column: Column,
    ascending: bool,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..audit.replaces.len()).collect();
    order.sort_by_key(|&k| {
        let key = sort_key(&audit.replaces[k], column, ledger);
        (if ascending { key } else { -key }, k)
    });
    order
}

/// The tab's state: the audit, the sort, the replace shown before | after.
#[derive(Debug)]
pub struct CompactionsState {
    /// The audit of the open log.
    pub cache: AuditCache,
    sort: (Column, bool),
    order: Vec<usize>,
    /// The audit, ledger and sort `order` was computed for.
    order_for: Option<(usize, usize, Column, bool)>,
    /// What context costs: the ledger's compaction figures.
    pub cost: LedgerCache,
    /// The replace shown before | after.
    pub compare: CompareState,
    /// The policy's verdict on each compaction.
    pub verdicts: CompactionVerdicts,
    /// The table's scroll, kept on the selected row.
    scroll: ListScroll,
}

impl Default for CompactionsState {
    fn default() -> Self {
        CompactionsState {
            cache: AuditCache::default(),
            sort: (Column::Seq, true),
            order: Vec::new(),
            order_for: None,
            cost: LedgerCache::default(),
            compare: CompareState::default(),
            verdicts: CompactionVerdicts::default(),
            scroll: ListScroll::default(),
        }
    }
}

impl CompactionsState {
    /// Forgets the audit and the shown replace (a new log was loaded).
    pub fn reset(&mut self) {
        self.cache.reset();
        self.cost.reset();
        self.order.clear();
        self.order_for = None;
        self.compare.reset();
        self.verdicts = CompactionVerdicts::default();
    }

    /// Sorts the table by `column`; the same column again flips the direction.
    pub fn sort_by(&mut self, column: Column) {
        self.sort = if self.sort.0 == column {
            (column, !self.sort.1)
        } else {
            (column, column == Column::Seq || column == Column::Kind)
        };
    }

    /// The rows in display order (replace positions in the audit).
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    fn refresh_order(&mut self, audit: &Arc<Audit>) {
        let ledger = self.cost.ledger().cloned();
        let key = (
            Arc::as_ptr(audit) as usize,
            ledger.as_ref().map_or(0, |l| Arc::as_ptr(l) as usize),
            self.sort.0,
            self.sort.1,
        );
        if self.order_for != Some(key) {
            self.order = sorted_rows(audit, ledger.as_deref(), self.sort.0, self.sort.1);
            self.order_for = Some(key);
        }
    }
}

/// The table's height: as tall as its `rows`, up to a share of the tab (the rest for the
/// focused replace's before | after).
fn table_height(ui: &Ui, rows: usize, focused: bool) -> f32 {
    let share = if focused {
        theme::COMPACTION_TABLE_SHARE
    } else {
        theme::COMPACTION_TABLE_SHARE_ALONE
    };
    // A row's pitch is its height and the spacing between rows (as `show_rows` lays them).
    let pitch = theme::COMPACTION_ROW_HEIGHT + ui.spacing().item_spacing.y;
    // A short table shows whole even beside a before | after: the share bounds long ones.
    let bound = (ui.available_height() * share).max(COMPACTION_ROWS_ALWAYS_SHOWN as f32 * pitch);
    (rows as f32 * pitch).min(bound)
}

/// Rows the table shows whole whenever it has no more (the sample's seven compactions).
const COMPACTION_ROWS_ALWAYS_SHOWN: usize = 8;

/// The ledger and a row's figures in it.
type RowCost<'a> = (
    Option<&'a Ledger>,
    Option<&'a CompactionCost>,
    Option<cost_columns::RequestLink<'a>>,
);

/// Shows the Compactions tab.
pub fn compactions_ui(
    ui: &mut Ui,
    session: &Session,
    view: &ViewState,
    state: &mut CompactionsState,
    policy: &mut PolicyTabState,
    (blocking, prices): (bool, Option<&Arc<PriceTable>>),
    commands: &mut Vec<UiCommand>,
) {
    refresh_jobs(ui, session, view, state, policy, (blocking, prices));
    let Some(audit) = state.cache.audit().cloned() else {
        if session.meter().is_none() {
            // No spinner: it would repaint every frame while the loader needs the cores.
            ui.label(format!(
                "Compactions: {} (the audit prices with the token meter)",
                crate::session::loaded::PENDING
            ));
            return;
        }
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Auditing the compactions…");
        });
        return;
    };
    state.refresh_order(&audit);
    let pal = theme::palette(ui);
    let named = view.threshold_source.named(audit.threshold_ratio);
    summary_ui(ui, (&audit, &named), state.cache.running(), &pal);
    let ledger = state.cost.ledger().cloned();
    if let Some(l) = &ledger {
        cost_columns::session_line_ui(ui, l, &pal);
    }
    if audit.replaces.is_empty() {
        ui.label("The log has no replace op.");
        extras_ui(ui, &audit, commands);
        return;
    }
    // The replace shown below: the selected event when it is a replace, else the last shown.
    let focus = view
        .selected
        .filter(|&i| audit.replace_of(i).is_some())
        .or(state.compare.shown());
    let order = state.order.clone();
    let table_height = table_height(ui, order.len(), focus.is_some());
    // A row selected by a key or a jump is scrolled into view.
    if let Some(row) = view.reveal.and_then(|idx| {
        order
            .iter()
            .position(|&k| audit.replaces.get(k).is_some_and(|r| r.event == idx))
    }) {
        state.scroll.reveal_row(row, theme::COMPACTION_ROW_HEIGHT);
    }
    // The table scrolls sideways, header and rows together, when the panel is narrower.
    ScrollArea::horizontal()
        .id_salt("compactions-wide")
        .auto_shrink([false, true])
        .show(ui, |ui| {
            // As wide as the columns need, so that the sideways scroll reaches them all.
            let wide = Rect::from_min_size(
                ui.cursor().min,
                Vec2::new(row_width(ui), ui.available_height()),
            );
            ui.scope_builder(egui::UiBuilder::new().max_rect(wide), |ui| {
                header_ui(ui, state, &pal);
                let area = ScrollArea::vertical()
                    .id_salt("compactions-table")
                    .max_height(table_height)
                    .auto_shrink([false, true]);
                let (verdicts, changes) = (&state.verdicts, state.cost.changes());
                let ledger = ledger.as_deref();
                let output = state.scroll.area(area).show_rows(
                    ui,
                    theme::COMPACTION_ROW_HEIGHT,
                    order.len(),
                    |ui, rows| {
                        for row in rows {
                            if let Some(r) = order.get(row).and_then(|&k| audit.replaces.get(k)) {
                                let verdict = verdicts.of(r.event.0);
                                let shown = focus == Some(r.event);
                                let link = cost_columns::request_after(changes.map(|c| &**c), r);
                                let cost = (ledger, cost_columns::cost_of(ledger, r.event), link);
                                row_ui(ui, r, (verdict, cost), shown, &pal, commands);
                            }
                        }
                    },
                );
                state.scroll.update(&output, ui.ctx());
            });
            // Room for the sideways scroll bar, which floats over the content's bottom edge:
            // without it the bar hides the last row.
            let bar = ui.spacing().scroll;
            ui.add_space(bar.bar_width + bar.bar_outer_margin);
        });
    ui.separator();
    ScrollArea::vertical()
        .id_salt("compactions-detail")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            match focus.and_then(|f| audit.replace_of(f)) {
                Some(r) => compare_ui(ui, session, view, &mut state.compare, r, commands),
                None => {
                    ui.label(
                        RichText::new(
                            "Click a row (or select a replace in the timeline or on the surface) to see it before | after.",
                        )
                        .color(pal.weak_text),
                    );
                }
            }
            ui.separator();
            extras_ui(ui, &audit, commands);
        });
}

/// Brings the audit, the ledger and the policy's verdicts up to date (on worker threads for a
/// long log), asking for frames while they run.
fn refresh_jobs(
    ui: &Ui,
    session: &Session,
    view: &ViewState,
    state: &mut CompactionsState,
    policy: &mut PolicyTabState,
    (blocking, prices): (bool, Option<&Arc<PriceTable>>),
) {
    let costing = state.cost.ensure(session, prices, Some(ui.ctx()), blocking);
    // The audit's threshold ratio is the view's (the strip's dashed line, Use inferred settings).
    state
        .cache
        .ensure(session, view.threshold_ratio, Some(ui.ctx()), blocking);
    let replaying = policy_verdicts(ui, session, state, policy, (view, blocking));
    if state.cache.poll() || replaying || costing {
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(100));
    }
}

/// The tab's header: the replace ops, the window and the threshold every figure below is
/// judged by, `named` (its ratio and who set it), and the counts.
fn summary_ui(ui: &mut Ui, (audit, named): (&Audit, &str), running: bool, pal: &Palette) {
    let count = |k| audit.replaces.iter().filter(|r| r.kind == k).count();
    use surface_analysis::audit::ReplaceKind::{Other, Prune, Summary};
    ui.horizontal_wrapped(|ui| {
        ui.label(
            RichText::new(format!(
                "{} replace ops: {} summary, {} prune, {} other",
                audit.replaces.len(),
                count(Summary),
                count(Prune),
                count(Other)
            ))
            .strong(),
        );
        let window = match (audit.window, audit.threshold) {
            (Some(w), Some(t)) => format!("window {w}, threshold {t} ({named})"),
            _ => "no window known".to_string(),
        };
        ui.label(RichText::new(window).color(pal.weak_text));
        if running {
            ui.spinner();
        }
    });
    ui.horizontal_wrapped(|ui| {
        let failed = audit.failed.len();
        let over = audit.over_threshold_requests.len();
        let warn = audit.warnings.len();
        let color = |n: usize, c| if n > 0 { c } else { pal.weak_text };
        ui.label(RichText::new(format!("{failed} failed")).color(color(failed, pal.error)));
        ui.label(
            RichText::new(format!(
                "{} over the threshold",
                crate::wording::count(over, "request")
            ))
            .color(color(over, pal.warning)),
        );
        ui.label(
            RichText::new(format!(
                "{} (see Findings)",
                crate::wording::count(warn, "compaction warning")
            ))
            .color(color(warn, pal.warning)),
        );
    });
}

/// Replays the policy with the Policy tab's settings (verify, reusing the tab's job and
/// report) and takes in the verdicts when a new report landed — only one judged by the
/// view's threshold ratio, the one the header names. True while it runs.
fn policy_verdicts(
    ui: &Ui,
    session: &Session,
    state: &mut CompactionsState,
    policy: &mut PolicyTabState,
    (view, blocking): (&ViewState, bool),
) -> bool {
    let valid = session.meter().is_some_and(|meter| {
        policy
            .settings
            .validate(meter.window_at(session.len()))
            .is_ok()
    });
    if valid {
        policy.job.ensure(
            session,
            &policy.settings,
            ReplayMode::Verify,
            Some(ui.ctx()),
            blocking,
        );
    }
    let running = policy.job.poll();
    state.verdicts.refresh(
        policy
            .job
            .landed(ReplayMode::Verify)
            .filter(|(_, report)| valid && report.settings.threshold_ratio == view.threshold_ratio),
    );
    running
}

/// Width of a table row: the panel's, or all the columns' when they need more (it scrolls).
fn row_width(ui: &Ui) -> f32 {
    let columns: f32 = theme::COMPACTION_COLUMNS.iter().sum::<f32>()
        + theme::COMPACTION_COST_COLUMNS.iter().sum::<f32>()
        + theme::COMPACTION_POLICY_SHORT_WIDTH
        + theme::COMPACTION_POLICY_WIDTH;
    ui.available_width().max(columns + theme::SPACE)
}

fn header_ui(ui: &mut Ui, state: &mut CompactionsState, pal: &Palette) {
    let (rect, _) = ui.allocate_exact_size(
        Vec2::new(row_width(ui), theme::COMPACTION_ROW_HEIGHT),
        Sense::hover(),
    );
    let font = FontId::proportional(theme::COMPACTION_FONT_SIZE);
    let mut x = rect.left() + theme::SPACE_SMALL;
    for column in Column::ALL {
        let width = column.width();
        let cell = Rect::from_x_y_ranges(x..=(x + width).min(rect.right()), rect.y_range());
        x += width;
        let response = ui
            .interact(
                cell,
                ui.scope_id().with(("sort", column.title())),
                Sense::click(),
            )
            .on_hover_text(format!("{} — click to sort", column.hover()));
        let arrow = match state.sort {
            (c, true) if c == column => " ▲",
            (c, false) if c == column => " ▼",
            _ => "",
        };
        let title = format!("{}{arrow}", column.title());
        response.widget_info(|| {
            WidgetInfo::labeled(Role::Button, true, format!("sort by {}", column.title()))
        });
        let color = if response.hovered() {
            pal.text
        } else {
            pal.weak_text
        };
        ui.painter().with_clip_rect(cell).text(
            Pos2::new(cell.left(), cell.center().y),
            Align2::LEFT_CENTER,
            title,
            font.clone(),
            color,
        );
        if response.clicked() {
            state.sort_by(column);
        }
        if column == Column::Seq {
            let cell = Rect::from_x_y_ranges(
                x..=(x + theme::COMPACTION_POLICY_SHORT_WIDTH).min(rect.right()),
                rect.y_range(),
            );
            x += theme::COMPACTION_POLICY_SHORT_WIDTH;
            ui.interact(cell, ui.scope_id().with("policy-short"), Sense::hover())
                .on_hover_text(
                    "Whether the policy replay (the Policy tab's settings, verify) makes this \
                     compaction as the log did; what differs is in the last column and the hover",
                );
            ui.painter().with_clip_rect(cell).text(
                Pos2::new(cell.left(), cell.center().y),
                Align2::LEFT_CENTER,
                "policy",
                font.clone(),
                pal.weak_text,
            );
        }
    }
    let cell = Rect::from_x_y_ranges(
        x..=(x + theme::COMPACTION_POLICY_WIDTH).min(rect.right()),
        rect.y_range(),
    );
    ui.interact(cell, ui.scope_id().with("policy-title"), Sense::hover())
        .on_hover_text(
            "The policy replay's verdict on this compaction, with the Policy tab's settings (verify)",
        );
    ui.painter().with_clip_rect(cell).text(
        Pos2::new(cell.left(), cell.center().y),
        Align2::LEFT_CENTER,
        "policy verdict",
        font,
        pal.weak_text,
    );
}

fn row_ui(
    ui: &mut Ui,
    r: &ReplaceAudit,
    (verdict, (ledger, cost, link)): (Option<&RowVerdict>, RowCost<'_>),
    shown: bool,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let (rect, _) = ui.allocate_exact_size(
        Vec2::new(row_width(ui), theme::COMPACTION_ROW_HEIGHT),
        Sense::hover(),
    );
    // Three click targets: seq to balance (the row), the audit's figures and the balance's
    // parts, and the policy's verdict, which lie past them (the table scrolls sideways to them
    // in a narrow panel).
    let split = (rect.left() + Column::main_width()).min(rect.right());
    let parts_end = (split + Column::parts_width()).min(rect.right());
    let id = ui.scope_id().with(("compaction-row", r.event.0));
    let response = ui.interact(
        Rect::from_x_y_ranges(rect.left()..=split, rect.y_range()),
        id,
        Sense::click(),
    );
    let parts_response = ui.interact(
        Rect::from_x_y_ranges(split..=parts_end, rect.y_range()),
        id.with("cost"),
        Sense::click(),
    );
    let policy_response = ui.interact(
        Rect::from_x_y_ranges(parts_end..=rect.right(), rect.y_range()),
        id.with("policy"),
        Sense::click(),
    );
    let policy_cell = verdict.map_or("–", |v| v.cell.as_str());
    policy_response.widget_info(|| {
        let mut info =
            WidgetInfo::labeled(Role::Button, true, format!("policy verdict seq {}", r.seq));
        info.current_text_value = Some(policy_cell.to_string());
        info
    });
    response.widget_info(|| {
        let mut info = WidgetInfo::selected(
            Role::Button,
            true,
            shown,
            format!("compaction seq {}", r.seq),
        );
        info.current_text_value = Some(policy_cell.to_string());
        info
    });
    parts_response.widget_info(|| {
        let mut info = WidgetInfo::labeled(
            Role::Button,
            true,
            format!("compaction figures seq {}", r.seq),
        );
        let [summarizer, saved, lost, balance] =
            cost_columns::cells(cost, pal.text, pal).map(|c| c.0);
        info.current_text_value = Some(format!("{summarizer} | {saved} | {lost} | {balance}"));
        info
    });
    if let Some(link) = link {
        cache_lost_link_ui(ui, (rect, parts_end), r, cost, &link, pal, commands);
    }
    let clicked = response.clicked() || parts_response.clicked() || policy_response.clicked();
    let hovered = response.hovered() || parts_response.hovered() || policy_response.hovered();
    if !ui.is_rect_visible(rect) {
        return;
    }
    let painter = ui.painter_at(rect);
    if shown {
        painter.rect_filled(rect, 0.0, pal.selection_bg);
    }
    if hovered {
        painter.rect_stroke(rect, 0.0, pal.hover_stroke(), egui::StrokeKind::Inside);
    }
    paint_cells(&painter, rect, r, (verdict, cost), pal);
    if clicked {
        commands.push(NavCommand::FocusList(crate::nav::navigate::ListKind::Compactions).into());
        commands.push(NavCommand::JumpTo(r.event).into());
    }
    let policy = verdict.map_or_else(
        || {
            "policy: no verdict (the Policy tab's settings are invalid or the replay runs)"
                .to_string()
        },
        |v| format!("policy: {}", v.detail),
    );
    let worked = match (ledger, cost) {
        (Some(l), Some(c)) => format!("\n{}", cost_columns::worked(c, l)),
        _ => String::new(),
    };
    let hover = format!(
        "seq {}: {} → {} tokens · click to move the cursor just after it\n{policy}{worked}",
        r.seq, r.tokens_before, r.tokens_after
    );
    policy_response.on_hover_text_at_pointer(hover.clone());
    parts_response.on_hover_text_at_pointer(hover.clone());
    response.on_hover_text_at_pointer(hover);
}

/// The cache-lost cell's own click target (over the row's second one, the cell ending at
/// `parts_end`): it opens the Request view at the request after the compaction.
fn cache_lost_link_ui(
    ui: &mut Ui,
    (row, parts_end): (Rect, f32),
    r: &ReplaceAudit,
    cost: Option<&CompactionCost>,
    link: &cost_columns::RequestLink<'_>,
    pal: &Palette,
    commands: &mut Vec<UiCommand>,
) {
    let left = (parts_end - Column::CacheLost.width()).max(row.left());
    let cell = Rect::from_x_y_ranges(left..=parts_end, row.y_range());
    let id = ui.scope_id().with(("compaction-cache-lost", r.event.0));
    let response = ui.interact(cell, id, Sense::click());
    let lost = cost_columns::cells(cost, pal.text, pal)[2].0.clone();
    response.widget_info(|| {
        let mut info = WidgetInfo::labeled(Role::Link, true, format!("cache lost seq {}", r.seq));
        info.current_text_value = Some(lost.clone());
        info
    });
    if response.hovered() {
        ui.ctx().set_cursor_icon(egui::CursorIcon::PointingHand);
        let y = cell.bottom() - 2.0;
        ui.painter().hline(
            cell.left()..=(cell.left() + theme::COMPACTION_LINK_UNDERLINE).min(cell.right()),
            y,
            egui::Stroke::new(theme::STROKE_THIN, pal.text),
        );
    }
    if response.clicked() {
        commands.push(NavCommand::JumpTo(link.event).into());
        commands.push(WindowCommand::ShowTab(SideTab::Request).into());
    }
    response.on_hover_text_at_pointer(cost_columns::link_hover(link));
}

/// Paints a row's cells: seq, the policy's short verdict, kind, trigger (with its chip), fill,
/// tokens saved, summary tokens, lost terms, refetches, the four cost cells, and the policy's
/// verdict.
fn paint_cells(
    painter: &egui::Painter,
    rect: Rect,
    r: &ReplaceAudit,
    (verdict, cost): (Option<&RowVerdict>, Option<&CompactionCost>),
    pal: &Palette,
) {
    let policy_cell = verdict.map_or("–", |v| v.cell.as_str());
    let fill = r
        .fill()
        .map_or("–".to_string(), |(b, a)| format!("{b:.0}→{a:.0}"));
    let kind = if r.valid {
        r.kind.as_str().to_string()
    } else {
        format!("{}!", r.kind.as_str())
    };
    let text = if r.valid { pal.text } else { pal.error };
    let policy_color = match short_verdict(verdict) {
        "differs" => pal.error,
        "agrees" => text,
        _ => pal.weak_text,
    };
    let [c0, c1, c2, c3] = cost_columns::cells(cost, text, pal);
    // By the columns' declaration order; painted in display order.
    let mut cells = [
        (r.seq.to_string(), text),
        (kind, text),
        (short_trigger(r).to_string(), pal.trigger(r.trigger)),
        (fill, text),
        (r.tokens_saved().to_string(), text),
        (r.replacement_tokens.to_string(), text),
        (r.lost_terms.len().to_string(), text),
        (r.refetches.len().to_string(), text),
        (fidelity::cell(r), text),
        c0,
        c1,
        c2,
        c3,
    ];
    let font = FontId::monospace(theme::COMPACTION_FONT_SIZE);
    let y = rect.center().y;
    let mut x = rect.left() + theme::SPACE_SMALL;
    for column in Column::ALL {
        let (cell, color) = std::mem::take(&mut cells[column as usize]);
        let width = column.width();
        if column == Column::Trigger {
            let chip = Rect::from_center_size(
                Pos2::new(x + theme::TRIGGER_CHIP / 2.0, y),
                Vec2::splat(theme::TRIGGER_CHIP),
            );
            painter.rect_filled(chip, theme::CORNER_RADIUS / 2.0, pal.trigger(r.trigger));
        }
        let offset = if column == Column::Trigger {
            theme::TRIGGER_CHIP + theme::SPACE_SMALL
        } else {
            0.0
        };
        paint_cell(painter, rect, (x, width), offset, cell, &font, color);
        x += width;
        if column == Column::Seq {
            let width = theme::COMPACTION_POLICY_SHORT_WIDTH;
            let short = short_verdict(verdict);
            paint_cell(painter, rect, (x, width), 0.0, short, &font, policy_color);
            x += width;
        }
    }
    let width = theme::COMPACTION_POLICY_WIDTH;
    paint_cell(
        painter,
        rect,
        (x, width),
        0.0,
        policy_cell,
        &font,
        policy_color,
    );
}

/// Paints `text` in the cell `x .. x + width` of `row` (indented by `indent`), clipped to it.
fn paint_cell(
    painter: &egui::Painter,
    row: Rect,
    (x, width): (f32, f32),
    indent: f32,
    text: impl ToString,
    font: &FontId,
    color: egui::Color32,
) {
    let clip = Rect::from_x_y_ranges(x..=(x + width).min(row.right()), row.y_range());
    painter.with_clip_rect(clip).text(
        Pos2::new(x + indent, row.center().y),
        Align2::LEFT_CENTER,
        text,
        font.clone(),
        color,
    );
}

/// The short policy cell: whether the replay agrees with the log at this compaction.
fn short_verdict(verdict: Option<&RowVerdict>) -> &'static str {
    match verdict {
        Some(v) if v.cell == AS_DECIDED => "agrees",
        Some(v) if v.cell == CANT_JUDGE_NO_WINDOW => "can't judge",
        Some(v) if v.agrees.is_some() => "differs",
        _ => "–",
    }
}

/// The trigger in a table cell: `below` stands for below-threshold.
fn short_trigger(r: &ReplaceAudit) -> &'static str {
    match r.trigger {
        Some(surface_analysis::audit::Trigger::BelowThreshold) => "below",
        Some(t) => t.as_str(),
        None => "–",
    }
}

/// Failed compactions and requests over the threshold, each a link to its event.
fn extras_ui(ui: &mut Ui, audit: &Audit, commands: &mut Vec<UiCommand>) {
    let link = |ui: &mut Ui, idx: EventIdx, text: String, commands: &mut Vec<UiCommand>| {
        if ui.link(text).clicked() {
            commands.push(NavCommand::JumpTo(idx).into());
        }
    };
    egui::CollapsingHeader::new(format!("Failed compactions ({})", audit.failed.len()))
        .id_salt("compactions-failed")
        .show(ui, |ui| {
            for f in &audit.failed {
                let start = f.start_seq.map_or("?".to_string(), |s| s.to_string());
                link(
                    ui,
                    f.event,
                    format!("failed seq {start}–{}: {}", f.end_seq, one_line(&f.error)),
                    commands,
                );
            }
        });
    egui::CollapsingHeader::new(format!(
        "Requests over the threshold ({})",
        audit.over_threshold_requests.len()
    ))
    .id_salt("compactions-over")
    .show(ui, |ui| {
        let shown = audit.over_threshold_requests.iter().take(500);
        for o in shown {
            link(
                ui,
                o.event,
                format!(
                    "request seq {}: {} ≥ {} tokens",
                    o.seq, o.tokens, o.threshold
                ),
                commands,
            );
        }
        if audit.over_threshold_requests.len() > 500 {
            ui.label(format!(
                "… {} more (surface-viewer audit lists them all)",
                audit.over_threshold_requests.len() - 500
            ));
        }
    });
}

fn one_line(v: &serde_json::Value) -> String {
    let text = match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Object(m) => m
            .get("message")
            .and_then(|m| m.as_str())
            .map_or_else(|| v.to_string(), str::to_string),
        other => other.to_string(),
    };
    surface_engine::one_line(&text, 120)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_policy_cell_says_whether_this_compaction_is_the_policys() {
        let verdict = |cell: &str, agrees| RowVerdict {
            agrees,
            cell: cell.to_string(),
            detail: String::new(),
        };
        assert_eq!(
            short_verdict(Some(&verdict(AS_DECIDED, Some(true)))),
            "agrees"
        );
        // The check may disagree elsewhere (another summary) while this prune is the policy's.
        assert_eq!(
            short_verdict(Some(&verdict(AS_DECIDED, Some(false)))),
            "agrees"
        );
        let other = verdict("a prune the policy would not make", Some(false));
        assert_eq!(short_verdict(Some(&other)), "differs");
        assert_eq!(short_verdict(Some(&verdict("not compared", None))), "–");
        // No window in force: neutral, never "differs".
        let unjudged = verdict(CANT_JUDGE_NO_WINDOW, None);
        assert_eq!(short_verdict(Some(&unjudged)), "can't judge");
        assert_eq!(short_verdict(None), "–");
    }

    #[test]
    fn sorting_is_stable_and_flips() {
        let session = crate::session::loaded::test_session();
        let mut state = CompactionsState::default();
        state.cache.ensure(&session, 0.8, None, true);
        let audit = Arc::clone(state.cache.audit().unwrap());
        state.refresh_order(&audit);
        assert_eq!(state.order(), [0, 1]);
        state.sort_by(Column::Seq);
        state.refresh_order(&audit);
        assert_eq!(state.order(), [1, 0]);
        // Valid before invalid by nodes saved; equal keys keep log order.
        assert_eq!(sorted_rows(&audit, None, Column::Lost, false), [0, 1]);
        state.sort_by(Column::Saved);
        assert_eq!(state.sort, (Column::Saved, false));
    }
}
