//! A finding: one rule broken at one place, with the stable rule names of docs/check.md.

use serde::Serialize;

/// Severity of a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Breaks the contract.
    Error,
    /// Suspicious but tolerated.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// The stable rule names (docs/check.md), plus `frame.corrupt` for a Zstandard frame that does
/// not decode, `line.too-long` for a record past the reader's per-event limit and
/// `line.count-overflow` for a file of more than `u32::MAX` lines. Some rules' severity depends on the log's era or on where the problem lies; the
/// default here is what a HEAD-era log gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// `header.missing`
    HeaderMissing,
    /// `header.version`
    HeaderVersion,
    /// `line.unparseable`
    LineUnparseable,
    /// `line.torn-tail`
    LineTornTail,
    /// `frame.corrupt`
    FrameCorrupt,
    /// `line.too-long`: a line, packed row or SQLite row past the reader's per-event limit
    LineTooLong,
    /// `line.count-overflow`: more lines than line numbers (`u32`) count
    LineCountOverflow,
    /// `seq.not-increasing`
    SeqNotIncreasing,
    /// `seq.gap`
    SeqGap,
    /// `provenance.empty`
    ProvenanceEmpty,
    /// `provenance.duplicate`
    ProvenanceDuplicate,
    /// `provenance.forward`
    ProvenanceForward,
    /// `provenance.unknown`
    ProvenanceUnknown,
    /// `provenance.malformed`
    ProvenanceMalformed,
    /// `provenance.on-non-surface-event`
    ProvenanceOnNonSurfaceEvent,
    /// `surface.op-malformed`
    OpMalformed,
    /// `surface.op-on-non-surface-event`
    OpOnNonSurfaceEvent,
    /// `surface.missing-op`
    MissingOp,
    /// `surface.replace.start-not-on-surface`
    StartNotOnSurface,
    /// `surface.replace.end-not-on-surface`
    EndNotOnSurface,
    /// `surface.replace.out-of-order`
    OutOfOrder,
    /// `surface.replace.numeric-order`
    NumericOrder,
    /// `surface.replace.provenance-incomplete`
    ProvenanceIncomplete,
    /// `surface.tool-result-rewrite`
    ToolResultRewrite,
    /// `message.shape`
    MessageShape,
    /// `turn.structure`
    TurnStructure,
    /// `tool.result-without-call`
    ResultWithoutCall,
    /// `repair.open-turn`
    OpenTurn,
    /// `meter.bad-header`
    MeterBadHeader,
    /// `meter.bad-system`
    MeterBadSystem,
    /// `meter.bad-tools`
    MeterBadTools,
    /// `meter.bad-usage`
    MeterBadUsage,
    /// `meter.bad-window`
    MeterBadWindow,
    /// `compaction.bracket`
    CompactionBracket,
    /// `compaction.malformed`
    CompactionMalformed,
    /// `compaction.shadowed-mismatch`
    CompactionShadowedMismatch,
}

impl Rule {
    /// The stable name.
    pub fn name(self) -> &'static str {
        match self {
            Rule::HeaderMissing => "header.missing",
            Rule::HeaderVersion => "header.version",
            Rule::LineUnparseable => "line.unparseable",
            Rule::LineTornTail => "line.torn-tail",
            Rule::FrameCorrupt => "frame.corrupt",
            Rule::LineTooLong => "line.too-long",
            Rule::LineCountOverflow => "line.count-overflow",
            Rule::SeqNotIncreasing => "seq.not-increasing",
            Rule::SeqGap => "seq.gap",
            Rule::ProvenanceEmpty => "provenance.empty",
            Rule::ProvenanceDuplicate => "provenance.duplicate",
            Rule::ProvenanceForward => "provenance.forward",
            Rule::ProvenanceUnknown => "provenance.unknown",
            Rule::ProvenanceMalformed => "provenance.malformed",
            Rule::ProvenanceOnNonSurfaceEvent => "provenance.on-non-surface-event",
            Rule::OpMalformed => "surface.op-malformed",
            Rule::OpOnNonSurfaceEvent => "surface.op-on-non-surface-event",
            Rule::MissingOp => "surface.missing-op",
            Rule::StartNotOnSurface => "surface.replace.start-not-on-surface",
            Rule::EndNotOnSurface => "surface.replace.end-not-on-surface",
            Rule::OutOfOrder => "surface.replace.out-of-order",
            Rule::NumericOrder => "surface.replace.numeric-order",
            Rule::ProvenanceIncomplete => "surface.replace.provenance-incomplete",
            Rule::ToolResultRewrite => "surface.tool-result-rewrite",
            Rule::MessageShape => "message.shape",
            Rule::TurnStructure => "turn.structure",
            Rule::ResultWithoutCall => "tool.result-without-call",
            Rule::OpenTurn => "repair.open-turn",
            Rule::MeterBadHeader => "meter.bad-header",
            Rule::MeterBadSystem => "meter.bad-system",
            Rule::MeterBadTools => "meter.bad-tools",
            Rule::MeterBadUsage => "meter.bad-usage",
            Rule::MeterBadWindow => "meter.bad-window",
            Rule::CompactionBracket => "compaction.bracket",
            Rule::CompactionMalformed => "compaction.malformed",
            Rule::CompactionShadowedMismatch => "compaction.shadowed-mismatch",
        }
    }

    /// The rule's default severity (`check` lowers some for older eras, and `seq.gap` after
    /// the last `turn/end`; see `docs/parity.md`).
    pub fn severity(self) -> Severity {
        match self {
            Rule::HeaderVersion
            | Rule::LineTornTail
            | Rule::NumericOrder
            | Rule::OpenTurn
            | Rule::MeterBadHeader
            | Rule::MeterBadSystem
            | Rule::MeterBadTools
            | Rule::MeterBadUsage
            | Rule::MeterBadWindow
            | Rule::CompactionBracket
            | Rule::CompactionMalformed
            | Rule::CompactionShadowedMismatch => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable rule name.
    pub rule: &'static str,
    /// Severity.
    pub severity: Severity,
    /// The seq it is about.
    pub seq: Option<u64>,
    /// 1-based line, for parse problems (and for any event read from a JSONL line).
    pub line: Option<u32>,
    /// Byte offset in the file, for Zstandard frames.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Human message.
    pub message: String,
}

impl Finding {
    /// A finding of `rule` with its severity.
    pub fn new(
        rule: Rule,
        seq: Option<u64>,
        line: Option<u32>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            rule: rule.name(),
            severity: rule.severity(),
            seq,
            line,
            offset: None,
            message: message.into(),
        }
    }

    /// The same finding with another severity.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// True for an error-level finding.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
