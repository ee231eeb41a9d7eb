//! The `findings` table: one row per finding of `check` (docs/check.md, with the meter's and
//! the audit's warnings `check` reports too), in file order.

use std::sync::Arc;

use surface_engine::Finding;

use super::table::{Column, Getter, Table, opt_int};
use super::writer::{SessionKey, TableWriter};

/// One finding.
pub struct FindingRow {
    rule: &'static str,
    severity: &'static str,
    seq: Option<i64>,
    line: Option<i64>,
    offset: Option<i64>,
    message: String,
}

static COLUMNS: [Column<FindingRow>; 6] = [
    Column::required("rule", Getter::Text(|r| Some(r.rule))),
    Column::required("severity", Getter::Text(|r| Some(r.severity))),
    Column::nullable("seq", Getter::Int64(|r| r.seq)),
    Column::nullable("line", Getter::Int64(|r| r.line)),
    Column::nullable("offset", Getter::Int64(|r| r.offset)),
    Column::required("message", Getter::Text(|r| Some(r.message.as_str()))),
];

/// The table.
pub static TABLE: Table<FindingRow> = Table {
    name: "findings",
    columns: &COLUMNS,
};

/// Writes one row per finding.
pub fn write(
    out: &mut TableWriter<FindingRow>,
    key: &Arc<SessionKey>,
    findings: &[Finding],
) -> anyhow::Result<()> {
    for f in findings {
        let row = FindingRow {
            rule: f.rule,
            severity: f.severity.as_str(),
            seq: opt_int(f.seq),
            line: f.line.map(i64::from),
            offset: opt_int(f.offset),
            message: f.message.clone(),
        };
        out.push(key, row)?;
    }
    Ok(())
}
