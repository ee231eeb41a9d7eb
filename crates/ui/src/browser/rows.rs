//! The sessions browser's table model, free of egui: the rows found so far, sorting by any
//! column, the text filter, and forks placed under their parent (an expandable tree). The
//! visible list is rebuilt only when something changes, never per frame.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use surface_store::{SessionEntry, SessionFigures};

use crate::browser::fleet::{FleetFigures, float_order};

/// One session in the table: what the cheap pass found, then its full figures.
#[derive(Clone, Debug, PartialEq)]
pub struct BrowserRow {
    /// Found by the cheap pass.
    pub entry: SessionEntry,
    /// The full figures once read (`Err`: why the session could not be read).
    pub figures: Option<Result<SessionFigures, String>>,
    /// The fleet figures once read (policy verdict, peak fill, cost).
    pub fleet: Option<FleetFigures>,
}

impl BrowserRow {
    /// A row without figures yet.
    pub fn new(entry: SessionEntry) -> Self {
        BrowserRow {
            entry,
            figures: None,
            fleet: None,
        }
    }

    /// The figures, when read successfully.
    pub fn figures(&self) -> Option<&SessionFigures> {
        self.figures.as_ref().and_then(|f| f.as_ref().ok())
    }

    /// The latest title known.
    pub fn title(&self) -> Option<&str> {
        self.figures()
            .and_then(|f| f.title.as_deref())
            .or(self.entry.title.as_deref())
    }

    /// Events, when known.
    pub fn events(&self) -> Option<u64> {
        self.figures().map(|f| f.events).or(self.entry.events)
    }

    /// Last activity: the last event's time, else the file's modification time.
    pub fn last_activity(&self) -> Option<i64> {
        self.figures()
            .and_then(|f| f.last_event)
            .or(self.entry.last_activity())
    }

    /// (errors, warnings), when known; a session that cannot be read counts one error.
    pub fn problems(&self) -> Option<(u64, u64)> {
        match &self.figures {
            Some(Ok(f)) => Some((f.errors, f.warnings)),
            Some(Err(_)) => Some((1, 0)),
            None => None,
        }
    }

    fn matches(&self, terms: &[String]) -> bool {
        let e = &self.entry;
        let hay = format!(
            "{}\n{}\n{}\n{}\n{}",
            e.project,
            self.title().unwrap_or(""),
            e.id,
            e.file.display(),
            e.format_label(),
        )
        .to_lowercase();
        terms.iter().all(|t| hay.contains(t.as_str()))
    }
}

/// A sortable column of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    /// The working directory or store folder.
    Project,
    /// The latest `session/title`.
    Title,
    /// Creation time.
    Created,
    /// Time of the last event.
    LastActivity,
    /// Number of events.
    Events,
    /// Replace ops.
    Compactions,
    /// Errors, then warnings.
    Problems,
    /// File size.
    Size,
    /// File format.
    Format,
    /// The file's path (under the folder browsed).
    Path,
    /// The policy's verdict (verify, default settings).
    Policy,
    /// Checks that disagree with the log.
    Disagreements,
    /// The meter's peak total ÷ the window.
    PeakFill,
    /// The session's cost (only with a price file).
    Cost,
}

impl Column {
    /// Every column, in display order.
    pub const ALL: [Column; 14] = [
        Column::Project,
        Column::Title,
        Column::Path,
        Column::Created,
        Column::LastActivity,
        Column::Events,
        Column::Compactions,
        Column::Policy,
        Column::Disagreements,
        Column::PeakFill,
        Column::Cost,
        Column::Problems,
        Column::Size,
        Column::Format,
    ];

    /// The columns shown: every one, the cost only when `priced`.
    pub fn shown(priced: bool) -> Vec<Column> {
        Column::ALL
            .into_iter()
            .filter(|c| priced || *c != Column::Cost)
            .collect()
    }

    /// The header text.
    pub fn label(self) -> &'static str {
        match self {
            Column::Project => "Project",
            Column::Title => "Title",
            Column::Created => "Created",
            Column::LastActivity => "Last activity",
            Column::Events => "Events",
            Column::Compactions => "Compactions",
            Column::Problems => "Errors / warnings",
            Column::Size => "Size",
            Column::Format => "Format",
            Column::Path => "Path",
            Column::Policy => "Policy",
            Column::Disagreements => "Disagreements",
            Column::PeakFill => "Peak fill",
            Column::Cost => "Cost",
        }
    }

    /// The header's tooltip: what the column holds and how it is computed.
    pub fn meaning(self) -> Option<&'static str> {
        Some(match self {
            Column::Compactions => "Replace ops in the log (summaries and prunes)",
            Column::Policy => {
                "The compaction policy verified with the default settings (as `policy DIR`): agrees, N disagreements, or can't judge (no context window at any check)"
            }
            Column::Disagreements => "Pressure checks whose decision differs from the log's",
            Column::PeakFill => "The meter's peak total ÷ the context window at the end of the log",
            Column::Cost => {
                "Σ tokens × price ÷ per over every call, with the price file (docs/cost.md)"
            }
            _ => return None,
        })
    }

    /// Whether a first click sorts this column descending (numbers and times: biggest first).
    pub fn descending_first(self) -> bool {
        !matches!(
            self,
            Column::Project | Column::Title | Column::Format | Column::Path
        )
    }

    /// Compares two rows by this column; values not known yet (not read) go last either way.
    fn compare(self, a: &BrowserRow, b: &BrowserRow, descending: bool) -> Ordering {
        let flip = |o: Ordering| if descending { o.reverse() } else { o };
        let text = |a: Option<&str>, b: Option<&str>| {
            known_by(a.map(str::to_lowercase), b.map(str::to_lowercase), flip)
        };
        let number = |a: Option<u64>, b: Option<u64>| known_by(a, b, flip);
        match self {
            Column::Project => flip(a.entry.project.cmp(&b.entry.project)),
            Column::Title => text(a.title(), b.title()),
            Column::Created => known_by(a.entry.created, b.entry.created, flip),
            Column::LastActivity => known_by(a.last_activity(), b.last_activity(), flip),
            Column::Events => number(a.events(), b.events()),
            Column::Compactions => number(
                a.figures().map(|f| f.compactions),
                b.figures().map(|f| f.compactions),
            ),
            Column::Problems => known_by(a.problems(), b.problems(), flip),
            Column::Size => flip(a.entry.size.cmp(&b.entry.size)),
            Column::Format => flip(a.entry.format_label().cmp(b.entry.format_label())),
            Column::Path => flip(a.entry.file.cmp(&b.entry.file)),
            Column::Policy => number_by(a, b, flip, |f| Some(f.verdict().rank())),
            Column::Disagreements => number_by(a, b, flip, |f| Some(f.disagreements)),
            Column::PeakFill => float_by(a, b, flip, FleetFigures::peak_fill),
            Column::Cost => float_by(a, b, flip, |f| f.cost),
        }
    }
}

/// Orders rows by a key of their fleet figures; unknown ones last.
fn number_by<T: Ord>(
    a: &BrowserRow,
    b: &BrowserRow,
    flip: impl Fn(Ordering) -> Ordering,
    key: impl Fn(&FleetFigures) -> Option<T>,
) -> Ordering {
    known_by(
        a.fleet.as_ref().and_then(&key),
        b.fleet.as_ref().and_then(&key),
        flip,
    )
}

/// Orders rows by a float of their fleet figures; unknown ones last.
fn float_by(
    a: &BrowserRow,
    b: &BrowserRow,
    flip: impl Fn(Ordering) -> Ordering,
    key: impl Fn(&FleetFigures) -> Option<f64>,
) -> Ordering {
    match (
        a.fleet.as_ref().and_then(&key),
        b.fleet.as_ref().and_then(&key),
    ) {
        (Some(x), Some(y)) => flip(float_order(x, y)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// Orders known values by `flip(a.cmp(b))`; unknown ones after every known one.
fn known_by<T: Ord>(a: Option<T>, b: Option<T>, flip: impl Fn(Ordering) -> Ordering) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => flip(x.cmp(&y)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// The sort order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    /// The column.
    pub column: Column,
    /// Biggest first.
    pub descending: bool,
}

impl Default for Sort {
    fn default() -> Self {
        Sort {
            column: Column::LastActivity,
            descending: true,
        }
    }
}

impl Sort {
    /// The order after a click on `column`'s header: the same column flips, another column
    /// starts in its natural direction.
    pub fn clicked(self, column: Column) -> Sort {
        if self.column == column {
            Sort {
                column,
                descending: !self.descending,
            }
        } else {
            Sort {
                column,
                descending: column.descending_first(),
            }
        }
    }

    fn compare(self, rows: &[BrowserRow], a: usize, b: usize) -> Ordering {
        let (ra, rb) = (&rows[a], &rows[b]);
        self.column
            .compare(ra, rb, self.descending)
            .then_with(|| ra.entry.file.cmp(&rb.entry.file))
            .then_with(|| ra.entry.id.cmp(&rb.entry.id))
    }
}

/// One line of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VisibleRow {
    /// Index into the rows.
    pub row: usize,
    /// 0 for a session without a parent in the table, 1 for its forks, …
    pub depth: usize,
    /// Number of forks under it.
    pub forks: usize,
    /// Whether its forks are shown.
    pub expanded: bool,
}

/// The lines of the table: roots sorted, each followed by its forks (sorted the same way)
/// when expanded. With a filter, a row is shown when it or one of its forks matches, and the
/// rows on the way to a match are expanded. A parent link that loops is cut.
pub fn visible_rows(
    rows: &[BrowserRow],
    sort: Sort,
    filter: &str,
    expanded: &HashSet<usize>,
) -> Vec<VisibleRow> {
    let terms: Vec<String> = filter.split_whitespace().map(str::to_lowercase).collect();
    let by_id: HashMap<&str, usize> = rows
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, r)| !r.entry.id.is_empty())
        .map(|(i, r)| (r.entry.id.as_str(), i))
        .collect();
    let parent_of = |i: usize| -> Option<usize> {
        let p = *by_id.get(rows[i].entry.parent.as_deref()?)?;
        (p != i).then_some(p)
    };
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); rows.len()];
    let mut roots = Vec::new();
    for i in 0..rows.len() {
        match parent_of(i) {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    let order = |list: &mut Vec<usize>| list.sort_by(|&a, &b| sort.compare(rows, a, b));
    order(&mut roots);
    for list in &mut children {
        order(list);
    }
    // Which subtrees hold a match (computed bottom-up over a DFS order, cycles cut).
    let filtering = !terms.is_empty();
    let mut visited = vec![false; rows.len()];
    let mut dfs_order = Vec::with_capacity(rows.len());
    let mut starts = roots.clone();
    loop {
        for &r in &starts {
            let mut stack = vec![r];
            while let Some(i) = stack.pop() {
                if std::mem::replace(&mut visited[i], true) {
                    continue;
                }
                dfs_order.push(i);
                stack.extend(children[i].iter().rev().copied());
            }
        }
        // Rows on a parent loop were never reached from a root: show them as roots.
        match (0..rows.len()).find(|&i| !visited[i]) {
            Some(i) => {
                roots.push(i);
                starts = vec![i];
            }
            None => break,
        }
    }
    let mut hit = vec![!filtering; rows.len()];
    if filtering {
        for &i in dfs_order.iter().rev() {
            hit[i] = rows[i].matches(&terms) || children[i].iter().any(|&c| hit[c]);
        }
    }
    let mut out = Vec::new();
    let mut shown = vec![false; rows.len()];
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&r| (r, 0)).collect();
    while let Some((i, depth)) = stack.pop() {
        if !hit[i] || std::mem::replace(&mut shown[i], true) {
            continue;
        }
        let kids: Vec<usize> = children[i].iter().copied().filter(|&c| hit[c]).collect();
        let open = !kids.is_empty() && (filtering || expanded.contains(&i));
        out.push(VisibleRow {
            row: i,
            depth,
            forks: kids.len(),
            expanded: open,
        });
        if open {
            stack.extend(kids.iter().rev().map(|&c| (c, depth + 1)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use surface_store::Format;

    fn row(id: &str, parent: Option<&str>, size: u64, title: &str) -> BrowserRow {
        BrowserRow::new(SessionEntry {
            file: format!("/r/{id}/session.jsonl").into(),
            format: Format::Jsonl,
            packed: false,
            size,
            modified: Some(size as i64),
            id: id.into(),
            in_database: false,
            cwd: None,
            project: "p".into(),
            title: Some(title.into()),
            created: Some(size as i64),
            last_event: None,
            parent: parent.map(str::to_string),
            seed_length: parent.map(|_| 5),
            origin: None,
            events: None,
        })
    }

    fn ids(rows: &[BrowserRow], v: &[VisibleRow]) -> Vec<String> {
        v.iter()
            .map(|r| format!("{}{}", "-".repeat(r.depth), rows[r.row].entry.id))
            .collect()
    }

    #[test]
    fn forks_sit_under_their_parent_when_expanded() {
        let rows = vec![
            row("a", None, 10, "alpha"),
            row("b", Some("a"), 30, "beta"),
            row("c", None, 20, "gamma"),
            row("d", Some("b"), 5, "delta"),
        ];
        let size_desc = Sort {
            column: Column::Size,
            descending: true,
        };
        let collapsed = visible_rows(&rows, size_desc, "", &HashSet::new());
        assert_eq!(ids(&rows, &collapsed), ["c", "a"]);
        assert_eq!(collapsed[1].forks, 1);
        let open: HashSet<usize> = [0, 1].into();
        assert_eq!(
            ids(&rows, &visible_rows(&rows, size_desc, "", &open)),
            ["c", "a", "-b", "--d"]
        );
        let asc = size_desc.clicked(Column::Size);
        assert!(!asc.descending);
        assert_eq!(
            ids(&rows, &visible_rows(&rows, asc, "", &open)),
            ["a", "-b", "--d", "c"]
        );
    }

    #[test]
    fn a_filter_keeps_the_path_to_a_match() {
        let rows = vec![
            row("a", None, 10, "alpha"),
            row("b", Some("a"), 30, "beta"),
            row("c", None, 20, "gamma"),
        ];
        let v = visible_rows(&rows, Sort::default(), "BETA", &HashSet::new());
        assert_eq!(ids(&rows, &v), ["a", "-b"]);
        let v = visible_rows(&rows, Sort::default(), "gam", &HashSet::new());
        assert_eq!(ids(&rows, &v), ["c"]);
        assert!(visible_rows(&rows, Sort::default(), "zzz", &HashSet::new()).is_empty());
    }

    #[test]
    fn parent_loops_and_missing_parents_do_not_hide_rows() {
        let rows = vec![
            row("a", Some("b"), 1, "x"),
            row("b", Some("a"), 2, "y"),
            row("c", Some("c"), 3, "z"),
            row("d", Some("elsewhere"), 4, "w"),
        ];
        let all: HashSet<usize> = (0..4).collect();
        let v = visible_rows(&rows, Sort::default(), "", &all);
        let mut seen: Vec<usize> = v.iter().map(|r| r.row).collect();
        seen.sort_unstable();
        assert_eq!(seen, [0, 1, 2, 3]);
    }

    #[test]
    fn unknown_figures_sort_last() {
        let mut rows = vec![row("a", None, 1, "x"), row("b", None, 2, "y")];
        rows[1].figures = Some(Ok(SessionFigures {
            events: 7,
            ..Default::default()
        }));
        let by_events = Sort {
            column: Column::Events,
            descending: false,
        };
        let v = visible_rows(&rows, by_events, "", &HashSet::new());
        assert_eq!(ids(&rows, &v), ["b", "a"]);
    }
}
