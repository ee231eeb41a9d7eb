//! The sessions browser: every session under a folder in one virtualised table — project,
//! title, path, created, last activity, events, compactions, the fleet columns (policy
//! verdict, disagreements, peak fill, cost when priced: `fleet_cells`), errors/warnings, size,
//! format (`JSONL packed` for a log whose chunk rows are packed) —
//! sortable by any column, filterable by text, forks under their parent. Double-click or
//! Enter opens a session; Back (Alt+←) returns here with scroll and sort kept.

use std::collections::HashSet;
use std::path::PathBuf;

use egui::{Key, Modifiers, RichText, Ui};
use egui_extras::{Column as TableColumn, TableBuilder};

use crate::browser::fleet_cells::fleet_cell;
use crate::browser::job::{DiscoveryJob, DiscoveryMessage};
use crate::browser::rows::{BrowserRow, Column, Sort, VisibleRow, visible_rows};
use crate::command::BrowserCommand;
use crate::command::TimelineCommand;
use crate::command::UiCommand;
use crate::session::loaded::format_absolute;
use crate::theme;
use surface_store::UnreadableFile;

/// Messages applied per frame at most, so that a frame stays short.
const MESSAGES_PER_FRAME: usize = 4096;

/// Everything the browser shows and remembers while a session is open.
pub struct BrowserState {
    /// The folder.
    pub root: PathBuf,
    /// Every session found, in arrival order.
    pub rows: Vec<BrowserRow>,
    /// Session files that cannot be read.
    pub unreadable: Vec<UnreadableFile>,
    /// What the walk skipped.
    pub notes: Vec<String>,
    /// Regular files looked at (known once the cheap pass is over).
    pub files_seen: Option<usize>,
    /// Rows whose figures arrived.
    pub figures_done: usize,
    /// The folder could not be read.
    pub failed: Option<String>,
    /// Everything is read.
    pub done: bool,
    /// Sort order.
    pub sort: Sort,
    /// Filter text (words that must all appear).
    pub filter: String,
    /// Rows whose forks are shown.
    pub expanded: HashSet<usize>,
    /// The selected row.
    pub selected: Option<usize>,
    /// Scroll the table to the selected row on the next frame.
    pub(crate) scroll_to_selected: bool,
    /// The table's scroll offset, restored when coming back from a session.
    pub(crate) scroll_offset: f32,
    /// Restore `scroll_offset` on the next frame.
    pub(crate) restore_scroll: bool,
    /// Focus the filter box on the next frame.
    pub(crate) focus_filter: bool,
    /// The discovery prices the sessions (the cost column is shown).
    pub priced: bool,
    visible: Vec<VisibleRow>,
    /// What `visible` and `projects` were computed from.
    visible_key: Option<(Sort, String, u64)>,
    /// Distinct projects among the rows.
    projects: usize,
    /// Sessions and distinct projects among the rows the filter lets through.
    shown: (usize, usize),
    /// Bumped whenever rows, figures or expansion change.
    generation: u64,
    job: Option<DiscoveryJob>,
}

impl BrowserState {
    /// A browser on `root`, filled by `job` (or by [`BrowserState::apply`] when `None`).
    pub fn new(root: PathBuf, job: Option<DiscoveryJob>) -> Self {
        BrowserState {
            root,
            rows: Vec::new(),
            unreadable: Vec::new(),
            notes: Vec::new(),
            files_seen: None,
            figures_done: 0,
            failed: None,
            done: false,
            sort: Sort::default(),
            filter: String::new(),
            expanded: HashSet::new(),
            selected: None,
            scroll_to_selected: false,
            scroll_offset: 0.0,
            restore_scroll: false,
            focus_filter: false,
            priced: false,
            visible: Vec::new(),
            visible_key: None,
            projects: 0,
            shown: (0, 0),
            generation: 0,
            job,
        }
    }

    /// Applies what the background job reported since the last frame. True while it runs.
    pub fn poll(&mut self) -> bool {
        let Some(job) = &self.job else {
            return false;
        };
        let (messages, finished) = job.drain(MESSAGES_PER_FRAME);
        for m in messages {
            self.apply(m);
        }
        if finished || self.done || self.failed.is_some() {
            self.job = None;
        }
        self.job.is_some()
    }

    /// Applies one message of the discovery.
    pub fn apply(&mut self, message: DiscoveryMessage) {
        self.generation += 1;
        match message {
            DiscoveryMessage::Found(entries) => {
                self.rows.extend(entries.into_iter().map(BrowserRow::new));
            }
            DiscoveryMessage::Unreadable(u) => self.unreadable.push(u),
            DiscoveryMessage::Listed { notes, files_seen } => {
                self.notes = notes;
                self.files_seen = Some(files_seen);
            }
            DiscoveryMessage::Figures {
                row,
                figures,
                fleet,
            } => {
                if let Some(r) = self.rows.get_mut(row) {
                    if r.figures.is_none() {
                        self.figures_done += 1;
                    }
                    r.figures = Some(figures);
                    r.fleet = fleet.map(|f| *f);
                }
            }
            DiscoveryMessage::Done => self.done = true,
            DiscoveryMessage::Failed(why) => self.failed = Some(why),
        }
    }

    /// The table's lines, recomputed only when rows, sort, filter or expansion changed.
    pub fn visible(&mut self) -> &[VisibleRow] {
        let unchanged = self
            .visible_key
            .as_ref()
            .is_some_and(|(sort, filter, generation)| {
                *sort == self.sort && *filter == self.filter && *generation == self.generation
            });
        if !unchanged {
            self.visible = visible_rows(&self.rows, self.sort, &self.filter, &self.expanded);
            self.projects = self
                .rows
                .iter()
                .map(|r| r.entry.project.as_str())
                .collect::<HashSet<_>>()
                .len();
            let shown: HashSet<usize> = self.visible.iter().map(|v| v.row).collect();
            let shown_projects = shown
                .iter()
                .filter_map(|&r| self.rows.get(r))
                .map(|r| r.entry.project.as_str())
                .collect::<HashSet<_>>()
                .len();
            self.shown = (shown.len(), shown_projects);
            self.visible_key = Some((self.sort, self.filter.clone(), self.generation));
        }
        &self.visible
    }

    /// Shows or hides the forks of `row`.
    pub fn toggle_forks(&mut self, row: usize) {
        if !self.expanded.remove(&row) {
            self.expanded.insert(row);
        }
        self.generation += 1;
    }

    /// Moves the selection by `delta` visible lines (selecting the first line when none is).
    pub fn move_selection(&mut self, delta: isize) {
        let selected = self.selected;
        let visible = self.visible();
        if visible.is_empty() {
            return;
        }
        let at = selected.and_then(|s| visible.iter().position(|v| v.row == s));
        let target = match at {
            Some(i) => i.saturating_add_signed(delta).min(visible.len() - 1),
            None => 0,
        };
        self.selected = Some(visible[target].row);
        self.scroll_to_selected = true;
    }

    /// The command that opens row `row` in the viewer.
    pub fn open_command(&self, row: usize) -> Option<BrowserCommand> {
        let e = &self.rows.get(row)?.entry;
        Some(BrowserCommand::OpenSessionOf {
            file: e.file.clone(),
            session: e.session_arg().map(str::to_string),
        })
    }

    /// True while the discovery runs.
    pub fn is_running(&self) -> bool {
        self.job.is_some()
    }

    /// A one-line account of the progress.
    /// (Call after [`BrowserState::visible`], which counts the projects.)
    pub fn status(&self) -> String {
        let sessions = self.rows.len();
        let projects = self.projects;
        let mut s = if self.filter.trim().is_empty() {
            format!(
                "{} in {}",
                crate::wording::count(sessions, "session"),
                crate::wording::count(projects, "project")
            )
        } else {
            format!(
                "{} of {} in {} of {} match the filter",
                self.shown.0,
                crate::wording::count(sessions, "session"),
                self.shown.1,
                crate::wording::count(projects, "project")
            )
        };
        if let Some(why) = &self.failed {
            return format!("{s} — {why}");
        }
        match self.files_seen {
            None => s.push_str(" so far — looking through the folder…"),
            Some(_) if !self.done && self.job.is_some() => s.push_str(&format!(
                " — reading {}/{}",
                self.figures_done,
                self.rows.len()
            )),
            Some(files) => s.push_str(&format!(" ({files} files looked at)")),
        }
        if !self.unreadable.is_empty() {
            s.push_str(&format!(", {} unreadable", self.unreadable.len()));
        }
        s
    }
}

/// Keyboard of the browser: ↑/↓ select, Enter opens. Returns the commands.
pub fn browser_keys(ctx: &egui::Context, text_focus: bool, commands: &mut Vec<UiCommand>) {
    ctx.input_mut(|i| {
        if i.consume_key(Modifiers::NONE, Key::ArrowDown) {
            commands.push(BrowserCommand::MoveSessionSelection(1).into());
        }
        if i.consume_key(Modifiers::NONE, Key::ArrowUp) {
            commands.push(BrowserCommand::MoveSessionSelection(-1).into());
        }
        if i.consume_key(Modifiers::NONE, Key::PageDown) {
            commands.push(BrowserCommand::MoveSessionSelection(20).into());
        }
        if i.consume_key(Modifiers::NONE, Key::PageUp) {
            commands.push(BrowserCommand::MoveSessionSelection(-20).into());
        }
        if !text_focus && i.consume_key(Modifiers::NONE, Key::Enter) {
            commands.push(BrowserCommand::OpenSelectedSession.into());
        }
        if i.consume_key(Modifiers::COMMAND, Key::F) {
            commands.push(TimelineCommand::FocusSearch.into());
        }
    });
}

/// The whole browser, in the central area.
/// `header` adds to the heading's row (the export's button or progress).
pub fn browser_ui(
    ui: &mut Ui,
    state: &mut BrowserState,
    commands: &mut Vec<UiCommand>,
    header: impl FnOnce(&mut Ui, &mut Vec<UiCommand>),
) {
    let pal = theme::palette(ui);
    state.visible(); // brings the order and counts up to date (only when something changed)
    ui.horizontal(|ui| {
        ui.heading("Sessions");
        ui.label(RichText::new(state.root.display().to_string()).color(pal.weak_text));
        header(ui, commands);
    });
    ui.horizontal(|ui| {
        let filter = egui::TextEdit::singleline(&mut state.filter)
            .hint_text("Filter: project, title, id, path…")
            .desired_width(theme::BROWSER_FILTER_WIDTH);
        let response = ui
            .add(filter)
            .on_hover_text("Words that must all appear (Ctrl+F)");
        if std::mem::take(&mut state.focus_filter) {
            response.request_focus();
        }
        if response.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
            commands.push(BrowserCommand::OpenSelectedSession.into());
        }
        if !state.filter.is_empty() && ui.button("×").on_hover_text("Clear the filter").clicked() {
            state.filter.clear();
        }
        ui.label(state.status());
        if state.is_running() {
            let total = state.rows.len().max(1);
            let fraction = if state.files_seen.is_none() {
                0.0
            } else {
                state.figures_done as f32 / total as f32
            };
            ui.add(
                egui::ProgressBar::new(fraction)
                    .desired_width(theme::BROWSER_PROGRESS_WIDTH)
                    .animate(true),
            );
        }
    });
    if !state.notes.is_empty() || !state.unreadable.is_empty() {
        notes_ui(ui, state);
    }
    ui.separator();
    // Wider than the window (the fleet columns, a narrow window): the table scrolls sideways,
    // its header with it, and keeps its own vertical scrolling. Its offset is not carried over
    // from an earlier run (egui keeps scroll offsets with the window's memory): a browser that
    // reopened scrolled sideways would hide its first columns.
    egui::ScrollArea::horizontal()
        .id_salt(("sessions-table-sideways", std::process::id()))
        .auto_shrink([false, false])
        .show(ui, |ui| table_ui(ui, state, commands));
}

fn notes_ui(ui: &mut Ui, state: &BrowserState) {
    let pal = theme::palette(ui);
    let count = state.notes.len() + state.unreadable.len();
    egui::CollapsingHeader::new(
        RichText::new(format!(
            "{count} note{} (skipped folders, unreadable files)",
            if count == 1 { "" } else { "s" }
        ))
        .color(pal.warning),
    )
    .id_salt("browser-notes")
    .show(ui, |ui| {
        egui::ScrollArea::vertical()
            .max_height(theme::BROWSER_NOTES_HEIGHT)
            .show(ui, |ui| {
                for u in &state.unreadable {
                    ui.label(
                        RichText::new(format!("{}: {}", u.file.display(), u.error))
                            .color(pal.error),
                    );
                }
                for n in &state.notes {
                    ui.label(n);
                }
            });
    });
}

fn table_ui(ui: &mut Ui, state: &mut BrowserState, commands: &mut Vec<UiCommand>) {
    let pal = theme::palette(ui);
    ui.style_mut().interaction.selectable_labels = false;
    let sort = state.sort;
    let selected = state.selected;
    let scroll_to = state
        .scroll_to_selected
        .then(|| selected.and_then(|s| state.visible().iter().position(|v| v.row == s)))
        .flatten();
    state.scroll_to_selected = false;
    let restore = std::mem::take(&mut state.restore_scroll).then_some(state.scroll_offset);
    // Borrowed out for the frame (no copy), put back below.
    state.visible();
    let visible = std::mem::take(&mut state.visible);
    let rows = &state.rows;
    let root = state.root.as_path();
    let columns = Column::shown(state.priced);
    let header_widths: Vec<f32> = columns.iter().map(|&c| header_width(ui, c)).collect();
    let mut builder = TableBuilder::new(ui)
        .id_salt("sessions-table")
        .striped(true)
        .resizable(true)
        .sense(egui::Sense::click())
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center));
    for (&column, &header) in columns.iter().zip(&header_widths) {
        builder = builder.column(table_column(column, header));
    }
    if let Some(i) = scroll_to {
        builder = builder.scroll_to_row(i, None);
    }
    if let Some(offset) = restore {
        builder = builder.vertical_scroll_offset(offset);
    }
    let output = builder
        .header(theme::BROWSER_ROW_HEIGHT + 4.0, |mut header| {
            for &column in &columns {
                header.col(|ui| {
                    let arrow = match (sort.column == column, sort.descending) {
                        (true, true) => " ▼",
                        (true, false) => " ▲",
                        _ => "",
                    };
                    let label = RichText::new(format!("{}{arrow}", column.label())).strong();
                    let hover = match column.meaning() {
                        Some(m) => format!("{m}\nClick to sort"),
                        None => format!("Sort by {}", column.label().to_lowercase()),
                    };
                    if ui
                        .add(egui::Button::new(label).frame(false))
                        .on_hover_text(hover)
                        .clicked()
                    {
                        commands.push(BrowserCommand::SortSessions(column).into());
                    }
                });
            }
        })
        .body(|body| {
            body.rows(theme::BROWSER_ROW_HEIGHT, visible.len(), |mut row| {
                let line = visible[row.index()];
                let r = &rows[line.row];
                row.set_selected(selected == Some(line.row));
                for &column in &columns {
                    row.col(|ui| cell_ui(ui, column, (line, root), r, rows, &pal, commands));
                }
                let response = row.response();
                let picked = selected.and_then(|s| rows.get(s));
                response.context_menu(|ui| {
                    crate::compare::browse::compare_menu_ui(ui, r, (picked, rows), commands)
                });
                if response.double_clicked() {
                    commands.push(open_command(r).into());
                } else if response.clicked() {
                    commands.push(BrowserCommand::SelectSessionRow(line.row).into());
                }
            });
        });
    state.scroll_offset = output.state.clamped_offset().y;
    let nothing = visible.is_empty();
    state.visible = visible;
    if nothing {
        ui.add_space(theme::SPACE_LARGE);
        let text = if state.rows.is_empty() {
            if state.files_seen.is_some() && !state.is_running() {
                "No session file under this folder."
            } else {
                "Looking for sessions…"
            }
        } else {
            "No session matches the filter."
        };
        // Centred under the table, not in its first column.
        ui.vertical_centered(|ui| ui.label(RichText::new(text).color(pal.weak_text)));
    }
}

fn open_command(r: &BrowserRow) -> BrowserCommand {
    BrowserCommand::OpenSessionOf {
        file: r.entry.file.clone(),
        session: r.entry.session_arg().map(str::to_string),
    }
}

/// The width a column's header needs whole: its title in strong text with room for the sort
/// arrow, and the button's padding.
fn header_width(ui: &Ui, column: Column) -> f32 {
    let title = RichText::new(format!("{} ▼", column.label())).strong();
    let galley = egui::WidgetText::from(title).into_galley(
        ui,
        Some(egui::TextWrapMode::Extend),
        f32::INFINITY,
        egui::TextStyle::Button,
    );
    galley.size().x + 2.0 * ui.spacing().button_padding.x + ui.spacing().item_spacing.x
}

/// The width of a column: its own, never narrower than its header (`header`).
fn table_column(column: Column, header: f32) -> TableColumn {
    let column = column_width(column);
    column.at_least(header)
}

fn column_width(column: Column) -> TableColumn {
    match column {
        Column::Project => TableColumn::initial(theme::BROWSER_PROJECT_WIDTH)
            .at_least(80.0)
            .clip(true),
        Column::Title => TableColumn::remainder().at_least(160.0).clip(true),
        Column::Path => TableColumn::initial(theme::BROWSER_PATH_WIDTH)
            .at_least(60.0)
            .clip(true),
        Column::Created | Column::LastActivity => {
            TableColumn::initial(theme::BROWSER_TIME_WIDTH).clip(true)
        }
        Column::Problems | Column::Policy => {
            TableColumn::initial(theme::BROWSER_PROBLEMS_WIDTH).clip(true)
        }
        Column::Format => TableColumn::initial(theme::BROWSER_FORMAT_WIDTH).clip(true),
        Column::Events
        | Column::Compactions
        | Column::Disagreements
        | Column::PeakFill
        | Column::Cost
        | Column::Size => TableColumn::initial(theme::BROWSER_NUMBER_WIDTH).clip(true),
    }
}

/// One cell of a row.
fn cell_ui(
    ui: &mut Ui,
    column: Column,
    (line, root): (VisibleRow, &std::path::Path),
    r: &BrowserRow,
    rows: &[BrowserRow],
    pal: &theme::Palette,
    commands: &mut Vec<UiCommand>,
) {
    let e = &r.entry;
    let unknown = || RichText::new("…").color(pal.weak_text);
    match column {
        Column::Project => project_cell(ui, line, r, commands),
        Column::Title => title_cell(ui, r, rows, pal),
        Column::Path => {
            ui.label(RichText::new(path_under(&e.file, root)).color(pal.weak_text))
                .on_hover_text(e.file.display().to_string());
        }
        Column::Created => {
            ui.label(
                e.created
                    .map_or_else(unknown, |t| RichText::new(minutes(t))),
            );
        }
        Column::LastActivity => {
            ui.label(
                r.last_activity()
                    .map_or_else(unknown, |t| RichText::new(minutes(t))),
            );
        }
        Column::Events => {
            ui.label(
                r.events()
                    .map_or_else(unknown, |n| RichText::new(thousands(n))),
            );
        }
        Column::Compactions => {
            ui.label(
                r.figures()
                    .map_or_else(unknown, |f| RichText::new(thousands(f.compactions))),
            );
        }
        Column::Problems => problems_cell(ui, r, pal),
        Column::Policy | Column::Disagreements | Column::PeakFill | Column::Cost => {
            fleet_cell(ui, column, r, pal);
        }
        Column::Size => {
            ui.label(human_size(e.size));
        }
        Column::Format => {
            ui.label(e.format_label());
        }
    }
}

/// Errors and warnings of `check`.
fn problems_cell(ui: &mut Ui, r: &BrowserRow, pal: &theme::Palette) {
    match &r.figures {
        None => {
            ui.label(RichText::new("…").color(pal.weak_text));
        }
        Some(Err(why)) => {
            ui.label(RichText::new("unreadable").color(pal.error))
                .on_hover_text(why.as_str());
        }
        Some(Ok(f)) if f.errors + f.warnings == 0 => {
            ui.label(RichText::new("clean").color(pal.on_surface));
        }
        Some(Ok(f)) => {
            if f.errors > 0 {
                ui.label(RichText::new(format!("{} E", f.errors)).color(pal.error));
            }
            if f.warnings > 0 {
                ui.label(RichText::new(format!("{} W", f.warnings)).color(pal.warning));
            }
        }
    }
}

/// `file` under the folder browsed (`root`), else whole.
fn path_under(file: &std::path::Path, root: &std::path::Path) -> String {
    file.strip_prefix(root)
        .map_or_else(|_| file.display().to_string(), |p| p.display().to_string())
}

/// The project cell: the forks' toggle (indented by depth) and the project's short name.
fn project_cell(ui: &mut Ui, line: VisibleRow, r: &BrowserRow, commands: &mut Vec<UiCommand>) {
    let e = &r.entry;
    ui.add_space(theme::BROWSER_INDENT * line.depth as f32);
    if line.forks > 0 {
        let icon = if line.expanded { "▼" } else { "▶" };
        let what = if line.expanded { "Hide" } else { "Show" };
        if ui
            .add(egui::Button::new(format!("{icon} {}", line.forks)).small())
            .on_hover_text(format!(
                "{what} the {} fork{} of this session",
                line.forks,
                if line.forks == 1 { "" } else { "s" }
            ))
            .clicked()
        {
            commands.push(BrowserCommand::ToggleSessionForks(line.row).into());
        }
    }
    ui.label(short_project(&e.project))
        .on_hover_text(e.project.as_str());
}

/// The title cell: the title (or why there is none), a fork's arrow and where it forked; the
/// whole row's details on hover.
fn title_cell(ui: &mut Ui, r: &BrowserRow, rows: &[BrowserRow], pal: &theme::Palette) {
    let e = &r.entry;
    if e.parent.is_some() {
        ui.label(RichText::new("↳").color(pal.weak_text));
    }
    let title = match r.title() {
        Some(t) => RichText::new(t),
        None if e.id.is_empty() => RichText::new("(no session header)").italics(),
        None => RichText::new(format!("(untitled) {}", e.id)).italics(),
    };
    // Built only while hovered.
    ui.label(title).on_hover_ui(|ui| {
        ui.label(hover_of(r, rows));
    });
    if let Some(seed) = e.seed_length.filter(|_| e.parent.is_some()) {
        ui.label(RichText::new(format!("after event {seed} of its parent")).color(pal.weak_text));
    }
}

/// The tooltip of a title: id, file, turns, and where a fork branched off.
fn hover_of(r: &BrowserRow, rows: &[BrowserRow]) -> String {
    let e = &r.entry;
    let mut lines = vec![format!("session {}", e.id), e.file.display().to_string()];
    if let Some(f) = r.figures() {
        lines.push(format!(
            "{} turns · {} mode · {} replace ops",
            f.turns, f.mode, f.compactions
        ));
    }
    if let Some(p) = &e.parent {
        let parent_title = rows
            .iter()
            .find(|x| &x.entry.id == p)
            .and_then(|x| x.title().map(|t| format!(" “{t}”")))
            .unwrap_or_else(|| " (not under this folder)".to_string());
        lines.push(match e.seed_length {
            Some(n) => format!(
                "fork of {p}{parent_title}: inherits its first {n} events (the seed boundary is after seq {})",
                n.saturating_sub(1)
            ),
            None => format!("fork of {p}{parent_title}"),
        });
    }
    if let Some(o) = &e.origin {
        lines.push(format!("origin: {o}"));
    }
    lines.push("Double-click or Enter to open".to_string());
    lines.join("\n")
}

/// The last two components of a path-like project name.
fn short_project(project: &str) -> String {
    let parts: Vec<&str> = project
        .split(['/', '\\'])
        .filter(|p| !p.is_empty())
        .collect();
    match parts.len() {
        0 => project.to_string(),
        1 => parts[0].to_string(),
        n => format!("{}/{}", parts[n - 2], parts[n - 1]),
    }
}

/// `YYYY-MM-DD HH:MM` (UTC); `—` for a time the log did not record (the harness writes 0,
/// as the timeline shows it).
fn minutes(millis: i64) -> String {
    if millis <= 0 {
        return "—".to_string();
    }
    let full = format_absolute(millis);
    full.get(..16).unwrap_or(&full).to_string()
}

/// 1234567 → "1,234,567".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes as "980 B", "12.3 kB", "4.5 MB", "1.2 GB".
fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["kB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(human_size(999), "999 B");
        assert_eq!(human_size(12_300), "12.3 kB");
        assert_eq!(human_size(4_500_000), "4.5 MB");
        assert_eq!(short_project("/home/u/src/proj"), "src/proj");
        assert_eq!(short_project("proj"), "proj");
        assert_eq!(minutes(0), "—", "not recorded, not 1970");
        assert_eq!(minutes(-5), "—");
        assert_eq!(minutes(1_786_123_407_414), "2026-08-07 17:23");
        let root = std::path::Path::new("/store");
        assert_eq!(
            path_under(std::path::Path::new("/store/p/a.jsonl"), root),
            "p/a.jsonl"
        );
        assert_eq!(
            path_under(std::path::Path::new("/else/a.jsonl"), root),
            "/else/a.jsonl"
        );
    }
}
