//! Which tables an export writes (`--tables`, and `tune` with `--tune`), by name.

use anyhow::bail;

/// Every table, in the order `--tables` lists them.
pub const TABLE_NAMES: [&str; 7] = [
    "sessions",
    "events",
    "calls",
    "checks",
    "compactions",
    "findings",
    "tune",
];

/// Which tables are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tables {
    /// `sessions`.
    pub sessions: bool,
    /// `events`.
    pub events: bool,
    /// `calls`.
    pub calls: bool,
    /// `checks`.
    pub checks: bool,
    /// `compactions`.
    pub compactions: bool,
    /// `findings`.
    pub findings: bool,
    /// `tune` (only with `--tune`: it needs a grid).
    pub tune: bool,
}

impl Tables {
    /// From `--tables` (every table without it; `tune` only when `tune`, from `--tune`);
    /// `Err` naming an unknown table, or `tune` named without `--tune`.
    pub fn of(names: Option<&[String]>, tune: bool) -> anyhow::Result<Tables> {
        let Some(names) = names else {
            return Ok(Tables {
                tune,
                ..Tables::every()
            });
        };
        let mut t = Tables::none();
        for name in names {
            match name.trim() {
                "sessions" => t.sessions = true,
                "events" => t.events = true,
                "calls" => t.calls = true,
                "checks" => t.checks = true,
                "compactions" => t.compactions = true,
                "findings" => t.findings = true,
                "tune" if !tune => bail!("--tables: the tune table needs --tune (and its --grid)"),
                "tune" => t.tune = true,
                other => bail!(
                    "--tables: {other:?} is not a table (the tables: {})",
                    TABLE_NAMES.join(", ")
                ),
            }
        }
        // `--tune` adds its table to those named.
        t.tune |= tune;
        if t == Tables::none() {
            bail!("--tables: name at least one of {}", TABLE_NAMES.join(", "));
        }
        Ok(t)
    }

    fn every() -> Tables {
        Tables {
            sessions: true,
            events: true,
            calls: true,
            checks: true,
            compactions: true,
            findings: true,
            tune: false,
        }
    }

    fn none() -> Tables {
        Tables {
            sessions: false,
            events: false,
            calls: false,
            checks: false,
            compactions: false,
            findings: false,
            tune: false,
        }
    }

    /// The names of the tables written, in [`TABLE_NAMES`] order.
    pub fn names(&self) -> Vec<&'static str> {
        let on = [
            self.sessions,
            self.events,
            self.calls,
            self.checks,
            self.compactions,
            self.findings,
            self.tune,
        ];
        TABLE_NAMES
            .iter()
            .zip(on)
            .filter_map(|(n, on)| on.then_some(*n))
            .collect()
    }
}
