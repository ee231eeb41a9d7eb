//! The one CSV writer of every `--csv` (`tokens`, `policy`, and any command after them): a
//! header line, then one line per row, cells separated by commas and lines ended by `\n`
//! (RFC 4180 with Unix line ends).
//!
//! - A text cell is quoted when it holds a comma, a quote, a line feed or a carriage return;
//!   a quote inside is doubled.
//! - A text cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is written
//!   with a leading `'`, so that a spreadsheet shows it instead of evaluating it as a formula:
//!   event type names, tool names and every other text come from the log, which anyone could
//!   have written. Numbers are number cells and are written as they are (`-3` stays `-3`).

use std::borrow::Cow;
use std::io::{self, Write};

/// One cell of a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell<'a> {
    /// Text (quoted and guarded as the module says).
    Text(&'a str),
    /// A whole number.
    Int(i128),
    /// A number with a fraction, as Rust prints it (shortest round trip).
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// Nothing: an empty cell.
    Empty,
}

impl<'a> From<&'a str> for Cell<'a> {
    fn from(text: &'a str) -> Self {
        Cell::Text(text)
    }
}

impl<'a> From<&'a String> for Cell<'a> {
    fn from(text: &'a String) -> Self {
        Cell::Text(text)
    }
}

impl From<u64> for Cell<'_> {
    fn from(n: u64) -> Self {
        Cell::Int(i128::from(n))
    }
}

impl From<i64> for Cell<'_> {
    fn from(n: i64) -> Self {
        Cell::Int(i128::from(n))
    }
}

impl From<usize> for Cell<'_> {
    fn from(n: usize) -> Self {
        Cell::Int(n as i128)
    }
}

impl From<f64> for Cell<'_> {
    fn from(x: f64) -> Self {
        Cell::Float(x)
    }
}

impl From<bool> for Cell<'_> {
    fn from(b: bool) -> Self {
        Cell::Bool(b)
    }
}

impl<'a, T: Into<Cell<'a>>> From<Option<T>> for Cell<'a> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Cell::Empty, Into::into)
    }
}

/// Writes CSV rows to `out`, the header first.
#[derive(Debug)]
pub struct CsvWriter<W: Write> {
    out: W,
    /// Cells per row (the header's).
    columns: usize,
}

impl<W: Write> CsvWriter<W> {
    /// Writes the header line (`columns`, as text cells) and returns the writer.
    pub fn new(out: W, columns: &[&str]) -> io::Result<Self> {
        let mut writer = CsvWriter {
            out,
            columns: columns.len(),
        };
        let header: Vec<Cell<'_>> = columns.iter().map(|&c| Cell::Text(c)).collect();
        writer.line(&header)?;
        Ok(writer)
    }

    /// Writes one row; it must have one cell per column.
    pub fn row(&mut self, cells: &[Cell<'_>]) -> io::Result<()> {
        if cells.len() != self.columns {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a CSV row of {} cells under {} columns",
                    cells.len(),
                    self.columns
                ),
            ));
        }
        self.line(cells)
    }

    /// The writer, for its last flush.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn line(&mut self, cells: &[Cell<'_>]) -> io::Result<()> {
        for (k, cell) in cells.iter().enumerate() {
            if k > 0 {
                self.out.write_all(b",")?;
            }
            match *cell {
                Cell::Text(text) => self.out.write_all(text_cell(text).as_bytes())?,
                Cell::Int(n) => write!(self.out, "{n}")?,
                Cell::Float(x) => write!(self.out, "{x}")?,
                Cell::Bool(b) => write!(self.out, "{b}")?,
                Cell::Empty => {}
            }
        }
        self.out.write_all(b"\n")
    }
}

/// A text cell as written: `'` before a leading formula character, then quoted when needed.
pub fn text_cell(text: &str) -> Cow<'_, str> {
    let guarded: Cow<'_, str> = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    };
    if guarded.contains([',', '"', '\n', '\r']) {
        Cow::Owned(format!("\"{}\"", guarded.replace('"', "\"\"")))
    } else {
        guarded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(columns: &[&str], rows: &[Vec<Cell<'_>>]) -> String {
        let mut w = CsvWriter::new(Vec::new(), columns).unwrap();
        for row in rows {
            w.row(row).unwrap();
        }
        String::from_utf8(w.into_inner()).unwrap()
    }

    #[test]
    fn quotes_commas_and_line_breaks_are_quoted() {
        assert_eq!(text_cell("plain"), "plain");
        assert_eq!(text_cell("a,b"), "\"a,b\"");
        assert_eq!(text_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(text_cell("two\nlines"), "\"two\nlines\"");
        assert_eq!(text_cell("carriage\rreturn"), "\"carriage\rreturn\"");
        assert_eq!(text_cell(""), "");
    }

    #[test]
    fn a_text_cell_that_would_be_a_formula_is_not_one() {
        assert_eq!(text_cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(text_cell("+1"), "'+1");
        assert_eq!(text_cell("-2+3"), "'-2+3");
        assert_eq!(text_cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(text_cell("\t=1"), "'\t=1");
        assert_eq!(text_cell("\r=1"), "\"'\r=1\"");
        // Only at the start.
        assert_eq!(text_cell("a=b"), "a=b");
        assert_eq!(text_cell("tool/call"), "tool/call");
    }

    #[test]
    fn rows_have_the_header_s_cells_and_numbers_stay_numbers() {
        let text = csv(
            &["seq", "type", "total", "delta", "ratio", "ok", "window"],
            &[
                vec![
                    Cell::from(3u64),
                    Cell::from("=cmd|' /C calc'!A0"),
                    Cell::from(12_800u64),
                    Cell::from(-5i64),
                    Cell::from(0.8),
                    Cell::from(true),
                    Cell::from(None::<u64>),
                ],
                vec![
                    Cell::from(4u64),
                    Cell::from("user/message"),
                    Cell::from(0u64),
                    Cell::from(0i64),
                    Cell::from(1.0),
                    Cell::from(false),
                    Cell::from(Some(16_000u64)),
                ],
            ],
        );
        assert_eq!(
            text,
            "seq,type,total,delta,ratio,ok,window\n\
             3,'=cmd|' /C calc'!A0,12800,-5,0.8,true,\n\
             4,user/message,0,0,1,false,16000\n"
        );
        let mut w = CsvWriter::new(Vec::new(), &["a", "b"]).unwrap();
        assert!(w.row(&[Cell::Empty]).is_err());
    }
}
