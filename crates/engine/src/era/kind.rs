//! The harness eras a log can be judged by, oldest first, and how each is named.

use std::fmt;

use serde::Serialize;

use crate::finding::Severity;

/// A harness era, oldest first (the order is used to ask "at least this era").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Era {
    /// E1, the ADR and the master before the surface merge (header `version` 1).
    Adr,
    /// E2, surface merged (2026-06-26): markers required, flat payloads.
    SurfaceMerge,
    /// E3, mid-July (2026-07-20): `delegationDepth`, packed rows, identified messages.
    MidJuly,
    /// E4, HEAD (2026-08-20): every rule of docs/parity.md at load.
    Head,
}

impl Era {
    /// Stable id for JSON output (`adr`, `surface-merge`, `mid-july`, `head`).
    pub fn id(self) -> &'static str {
        match self {
            Era::Adr => "adr",
            Era::SurfaceMerge => "surface-merge",
            Era::MidJuly => "mid-july",
            Era::Head => "head",
        }
    }

    /// Short name, e.g. `mid-July`.
    pub fn name(self) -> &'static str {
        match self {
            Era::Adr => "ADR",
            Era::SurfaceMerge => "surface merge",
            Era::MidJuly => "mid-July",
            Era::Head => "HEAD",
        }
    }

    /// Human label with the era's month, e.g. `HEAD (2026-08)`.
    pub fn label(self) -> &'static str {
        match self {
            Era::Adr => "ADR (2026-06)",
            Era::SurfaceMerge => "surface merge (2026-06)",
            Era::MidJuly => "mid-July (2026-07)",
            Era::Head => "HEAD (2026-08)",
        }
    }

    /// The severity of a rule whose harnesses refuse a log from `first` on: an error in that
    /// era and later ones, a warning in older eras whose harness was more lenient
    /// (docs/parity.md).
    pub fn severity_from(self, first: Era) -> Severity {
        if self >= first {
            Severity::Error
        } else {
            Severity::Warning
        }
    }
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}
