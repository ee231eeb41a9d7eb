//! A plain text table for a folder report: a header and rows of cells, the first column (the
//! session) left-aligned and the figures right-aligned, each column as wide as its widest cell.

use std::fmt::Write as _;

/// The table as lines of text, each ending in a newline.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (k, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(k) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let mut out = String::new();
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (k, cell) in row.iter().enumerate() {
            let width = widths.get(k).copied().unwrap_or(0);
            if k == 0 {
                let _ = write!(line, "{cell:<width$}");
            } else {
                let _ = write!(line, "  {cell:>width$}");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_as_wide_as_their_widest_cell() {
        let text = table(
            &["session", "fired"],
            &[
                vec!["a.jsonl".into(), "10 → 13".into()],
                vec!["longer-name.jsonl".into(), "2".into()],
            ],
        );
        assert_eq!(
            text,
            "session              fired\n\
             a.jsonl            10 → 13\n\
             longer-name.jsonl        2\n"
        );
    }
}
