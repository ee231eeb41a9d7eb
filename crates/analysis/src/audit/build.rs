//! Building the audit: the bracket scan, then one pass over the surface's processed effects
//! (nodes in and out for lost terms, tool calls and results for refetches), with every token
//! figure read from the meter's per-event arrays. O(log length + text of the surface nodes).

use super::facts::Found;
use super::fidelity::FidelityTotals;
use super::kept::KeptFacts;
use super::lost::TermIndex;
use super::model::{
    Audit, CompactionRecord, FailedCompaction, OverThresholdRequest, Refetch, ReplaceAudit,
    ReplaceKind, Trigger,
};
use super::reads::{AuditReading, NodeReads, NodeView};
use super::refetch::{CallIndex, read_message_calls, with_tool_call};
use super::text::call_text_into;
use surface_engine::EventType;
use surface_engine::compactions::mismatch_findings;
use surface_engine::compactions::{Bracket, Link, Prune, Scan, scan_compactions as scan};
use surface_engine::{
    Effect, EventIdx, EventLog, Meter, Surface, SurfaceOp, TypeId, meter::threshold, request_cursor,
};

/// Audits every replace op of `log`. `surface` must be processed to the end (e.g.
/// [`Surface::at_end`]; its cursor does not matter) and `meter` built from it; `ratio` is the
/// threshold ratio (the harness's default is [`surface_engine::DEFAULT_THRESHOLD_RATIO`]).
pub fn audit(log: &EventLog, surface: &Surface, meter: &Meter, ratio: f64) -> Audit {
    audit_scanned(
        log,
        surface,
        meter,
        ratio,
        &scan(log, true),
        LostTerms::Read,
    )
}

/// [`audit`] with every replace's `lost_terms` left empty, for a view that does not show them
/// (the comparison of two runs): every other figure is the same, and no node's text is read
/// but a tool result's call id.
pub fn audit_without_terms(log: &EventLog, surface: &Surface, meter: &Meter, ratio: f64) -> Audit {
    audit_scanned(
        log,
        surface,
        meter,
        ratio,
        &scan(log, true),
        LostTerms::Skipped,
    )
}

/// Whether an audit reads the lost terms of each replace (see [`audit_without_terms`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LostTerms {
    /// Read them ([`audit`]).
    Read,
    /// Leave them empty ([`audit_without_terms`]).
    Skipped,
}

/// [`audit`] or [`audit_without_terms`] with the log's brackets already scanned with the
/// overflow watch (`scan_compactions(log, true)`), so that one scan serves the audit, the cost
/// ledger and the policy input.
pub fn audit_scanned(
    log: &EventLog,
    surface: &Surface,
    meter: &Meter,
    ratio: f64,
    scanned: &Scan,
    terms: LostTerms,
) -> Audit {
    let reading = AuditReading::new(log, surface, scanned, terms == LostTerms::Read);
    let mut walk = AuditWalk::new(&reading, meter, ratio, scanned);
    for block in reading.blocks() {
        walk.take(&block);
    }
    walk.finish()
}

/// The audit's one walk through the log, fed the texts it reads a block at a time: every block
/// of its [`AuditReading`], in order ([`audit_scanned`] reads each as it goes; a shell may read
/// the next on another core meanwhile — the audit is the same).
pub struct AuditWalk<'a> {
    pass: Pass<'a>,
    warnings: Vec<surface_engine::Finding>,
}

impl<'a> AuditWalk<'a> {
    /// The walk of `reading`'s audit, with `meter` built from its surface, the threshold ratio
    /// `ratio` and the log's brackets `scan` (scanned with the overflow watch).
    pub fn new(reading: &AuditReading<'a>, meter: &'a Meter, ratio: f64, scan: &'a Scan) -> Self {
        let (log, surface) = (reading.log, reading.surface);
        let mut warnings = scan.warnings.clone();
        warnings.extend(mismatch_findings(log, surface, scan));
        warnings.sort_by_key(|f| f.seq);
        let pass = Pass {
            log,
            surface,
            meter,
            ratio,
            scan,
            links: scan.links.iter().peekable(),
            types: Types::of(log),
            terms: TermIndex::default(),
            with_terms: reading.with_terms,
            calls: CallIndex::default(),
            pending: std::collections::HashMap::new(),
            kept: KeptFacts::default(),
            fact_text: String::new(),
            replaces: Vec::new(),
            reported: meter
                .anchors()
                .filter_map(|a| Some((a.message, a.usage?.prompt())))
                .collect(),
            nodes: 0,
        };
        AuditWalk { pass, warnings }
    }

    /// Walks the events of `block`, the block after the last one taken (the first, at first).
    pub fn take(&mut self, block: &NodeReads) {
        for (i, read) in block.events() {
            self.pass.event(EventIdx(i), read);
        }
    }

    /// The audit, once every block was taken.
    pub fn finish(self) -> Audit {
        let AuditWalk { pass, warnings } = self;
        let (log, meter, ratio, scan) = (pass.log, pass.meter, pass.ratio, pass.scan);
        let mut replaces = pass.replaces;
        for (r, fidelity) in replaces.iter_mut().zip(pass.kept.finish()) {
            r.fidelity = fidelity;
        }
        let fidelity_totals = FidelityTotals::of(replaces.iter().map(|r| &r.fidelity));
        let end = log.len();
        Audit {
            window: meter.window_at(end),
            threshold_ratio: ratio,
            threshold: meter.threshold_at(end, ratio),
            replaces,
            failed: failed(log, meter, ratio, scan),
            over_threshold_requests: over_threshold(log, meter, ratio),
            warnings,
            fidelity_totals,
        }
    }
}

/// The ids of the event types the walk tells apart.
struct Types {
    tool_call: Option<TypeId>,
    tool_result: Option<TypeId>,
    assistant: Option<TypeId>,
    user: Option<TypeId>,
}

impl Types {
    fn of(log: &EventLog) -> Self {
        Types {
            tool_call: log.types.id_of(EventType::ToolCall),
            tool_result: log.types.id_of(EventType::ToolResult),
            assistant: log.types.id_of(EventType::AssistantMessage),
            user: log.types.id_of(EventType::UserMessage),
        }
    }
}

struct Pass<'a> {
    log: &'a EventLog,
    surface: &'a Surface,
    meter: &'a Meter,
    ratio: f64,
    scan: &'a Scan,
    /// The replace ops' links to their compactions, from the next event on.
    links: std::iter::Peekable<std::slice::Iter<'a, (EventIdx, Link)>>,
    types: Types,
    terms: TermIndex,
    /// Whether lost terms are looked for (else `terms` stays empty).
    with_terms: bool,
    calls: CallIndex,
    /// Refetching calls waiting for their result: call id → (replace, refetch).
    pending: std::collections::HashMap<String, (usize, usize)>,
    /// The fidelity pass (fed only when lost terms are read).
    kept: KeptFacts,
    /// The text of a tool call, for its facts.
    fact_text: String,
    replaces: Vec<ReplaceAudit>,
    /// `(assistant/message, provider input tokens)` of every anchored model call with usage.
    reported: Vec<(EventIdx, u64)>,
    nodes: u64,
}

impl Pass<'_> {
    /// Takes in event `idx`, read as `read` when the reading reads it.
    fn event(&mut self, idx: EventIdx, read: Option<NodeView>) {
        let log = self.log;
        let kind = Some(log.event(idx).kind);
        let t = &self.types;
        if t.tool_call.is_some() && kind == t.tool_call {
            with_tool_call(log, idx, |id, name, arguments| {
                self.call(idx, id, name, arguments);
                self.call_needs(idx, name, arguments);
            });
        } else if t.tool_call.is_none() && kind == t.assistant {
            for (id, name, arguments) in read_message_calls(log, idx) {
                self.call(idx, &id, &name, &arguments);
                self.call_needs(idx, &name, &arguments);
            }
        }
        let link = self
            .links
            .next_if(|&&(e, _)| e == idx)
            .map(|&(_, link)| link);
        match self.surface.effect(idx) {
            Some(Effect::Appended) => {
                self.nodes += 1;
                let is = (kind == self.types.tool_result, kind == self.types.user);
                if let Some(read) = read {
                    self.appended(idx, is, &read);
                }
            }
            Some(Effect::Replaced(_)) => {
                self.replaced(idx, link.unwrap_or(Link::Other), read.as_ref())
            }
            _ => {
                if let Some(link) = link {
                    self.rejected(idx, link);
                }
            }
        }
    }

    /// A node entered the surface, read as `read`: its terms and facts kept when they were
    /// read, its text a source of needed facts when it is a tool result or a user message,
    /// and a tool result's call answered.
    fn appended(&mut self, idx: EventIdx, (is_result, is_user): (bool, bool), read: &NodeView) {
        if read.has_found() {
            self.index(idx, read);
        }
        if self.with_terms && (is_result || is_user) && self.kept.watching() {
            let seq = self.log.event(idx).seq;
            match read.has_found() {
                true => self.kept.source_read(idx, seq),
                false => self.kept.source(idx, seq, read.text()),
            }
        }
        if is_result {
            self.result(idx, read.call_id());
        }
    }

    fn call(&mut self, idx: EventIdx, id: &str, name: &str, arguments: &str) {
        let Some(found) = self.calls.call(id, name, arguments) else {
            return;
        };
        let Some(rep) = self.replaces.get_mut(found.replace) else {
            return;
        };
        rep.refetches.push(Refetch {
            seq: self.log.event(idx).seq,
            tool: name.to_string(),
            original_seq: found.original_seq,
            tokens: None,
            result_seq: None,
            call: idx,
            result: None,
        });
        self.pending
            .insert(id.to_string(), (found.replace, rep.refetches.len() - 1));
    }

    /// Takes in the terms and the facts of node `node`, as `read` found them, and keeps them
    /// until a replace shadows it.
    fn index(&mut self, node: EventIdx, read: &NodeView) {
        let (terms, kept) = (&mut self.terms, &mut self.kept);
        kept.start();
        read.for_each_found(|found| match found {
            Found::Term(t, kind) => {
                if let (Some(term), Some(kind)) = (terms.push(t), kind) {
                    kept.term_fact(term, kind, t.text);
                }
            }
            Found::Fact(kind, fact) => kept.fact(kind, fact),
        });
        terms.commit(node.0);
        kept.keep(node);
    }

    /// A tool call's text as a source of needed facts.
    fn call_needs(&mut self, idx: EventIdx, name: &str, arguments: &str) {
        if self.with_terms && self.kept.watching() {
            call_text_into(name, arguments, &mut self.fact_text);
            self.kept
                .source(idx, self.log.event(idx).seq, &self.fact_text);
        }
    }

    fn result(&mut self, idx: EventIdx, call_id: Option<&str>) {
        self.calls.result_entered(idx, call_id);
        let Some((r, k)) = call_id.and_then(|c| self.pending.remove(c)) else {
            return;
        };
        if let Some(refetch) = self
            .replaces
            .get_mut(r)
            .and_then(|a| a.refetches.get_mut(k))
        {
            refetch.tokens = Some(self.meter.price(idx));
            refetch.result_seq = Some(self.log.event(idx).seq);
            refetch.result = Some(idx);
        }
    }

    fn replaced(&mut self, idx: EventIdx, link: Link, read: Option<&NodeView>) {
        let Some(rep) = self.surface.replace_of(idx) else {
            return;
        };
        let shadowed = self.surface.shadowed_nodes(rep);
        let position = self.replaces.len();
        let measured = self.with_terms && !matches!(link, Link::Other);
        self.kept.open(position);
        let mut taken = Vec::with_capacity(shadowed.len());
        let mut shadowed_tokens = 0;
        for &node in shadowed {
            self.kept.shadowed(position, node, measured);
            taken.extend(self.terms.remove(node.0));
            self.calls
                .shadowed(node, self.log.event(node).seq, position);
            shadowed_tokens += self.meter.price(node);
        }
        if let Some(read) = read {
            self.index(idx, read);
        }
        if measured {
            let summary = read.map_or("", |r| r.text());
            self.kept.summary(position, idx, summary);
        }
        let lost_terms = self.terms.lost(&taken);
        let nodes_before = self.nodes;
        self.nodes = self.nodes.saturating_sub(u64::from(rep.count)) + 1;
        let mut audit = self.base(idx, link, nodes_before, self.nodes);
        audit.valid = true;
        audit.shadowed = shadowed.iter().map(|&n| self.log.event(n).seq).collect();
        audit.shadowed_nodes = shadowed.to_vec();
        audit.shadowed_tokens = shadowed_tokens;
        audit.replacement_tokens = self.meter.price(idx);
        audit.lost_terms = lost_terms;
        self.replaces.push(audit);
    }

    fn rejected(&mut self, idx: EventIdx, link: Link) {
        let audit = self.base(idx, link, self.nodes, self.nodes);
        self.replaces.push(audit);
    }

    /// Everything but what applying the op decides.
    fn base(&self, idx: EventIdx, link: Link, nodes_before: u64, nodes_after: u64) -> ReplaceAudit {
        let log = self.log;
        let i = idx.get();
        let (start, end) = match log.op(idx) {
            SurfaceOp::Replace { start, end } => (start, end),
            _ => (0, 0),
        };
        let (kind, compaction, judged) = match link {
            Link::Summary(k) => {
                let b = &self.scan.brackets[k];
                let judged = b.anchor.map(|a| {
                    judge(
                        self.meter,
                        self.ratio,
                        (a, b.check),
                        b.overflow,
                        b.source_command_id().is_some(),
                    )
                });
                (ReplaceKind::Summary, Some(summary_record(log, b)), judged)
            }
            Link::Prune(k) => {
                let p = &self.scan.prunes[k];
                let command = p.fields.source_command_id.is_some();
                let judged = judge(
                    self.meter,
                    self.ratio,
                    (p.event, p.check),
                    p.overflow,
                    command,
                );
                (ReplaceKind::Prune, Some(prune_record(log, p)), Some(judged))
            }
            Link::Other => (ReplaceKind::Other, None, None),
        };
        let (trigger, trigger_tokens) = judged.map_or((None, None), |(t, n)| (t, Some(n)));
        let before = self.reported.partition_point(|&(m, _)| m < idx);
        let after = self.reported.partition_point(|&(m, _)| m <= idx);
        ReplaceAudit {
            seq: log.event(idx).seq,
            kind,
            valid: false,
            start,
            end,
            shadowed: Vec::new(),
            nodes_before,
            nodes_after,
            tokens_before: self.meter.at(i).total,
            tokens_after: self.meter.at(i + 1).total,
            shadowed_tokens: 0,
            replacement_tokens: 0,
            window: self.meter.window_at(i + 1),
            threshold: self.meter.threshold_at(i + 1, self.ratio),
            trigger,
            trigger_tokens,
            reported_before: before
                .checked_sub(1)
                .and_then(|k| self.reported.get(k))
                .map(|r| r.1),
            reported_after: self.reported.get(after).map(|r| r.1),
            compaction,
            lost_terms: Vec::new(),
            refetches: Vec::new(),
            fidelity: Default::default(),
            event: idx,
            shadowed_nodes: Vec::new(),
        }
    }
}

/// The trigger of a compaction judged at event `anchor` (and, for pressure, at `check`, the
/// first compaction event of the check that wrote it: every prune and summary of one check
/// shares the total the check began with), and the meter's total it was judged by.
fn judge(
    meter: &Meter,
    ratio: f64,
    (anchor, check): (EventIdx, Option<EventIdx>),
    overflow: bool,
    command: bool,
) -> (Option<Trigger>, u64) {
    let mut at = anchor.get() + 1;
    if !overflow && !command {
        at = check.map_or(at, |c| c.get() + 1).min(at);
    }
    let total = meter.at(at).total;
    let trigger = if overflow {
        Some(Trigger::Overflow)
    } else if command {
        Some(Trigger::Command)
    } else {
        meter.window_at(at).map(|w| {
            if total >= threshold(w, ratio) {
                Trigger::Pressure
            } else {
                Trigger::BelowThreshold
            }
        })
    };
    (trigger, total)
}

fn seq_of(log: &EventLog, idx: Option<EventIdx>) -> Option<u64> {
    idx.map(|i| log.event(i).seq)
}

fn summary_record(log: &EventLog, b: &Bracket) -> CompactionRecord {
    let time = |i: Option<EventIdx>| i.and_then(|i| log.event(i).time());
    let s = &b.summary_fields;
    CompactionRecord {
        id: b.id.clone(),
        start_seq: seq_of(log, b.start),
        end_seq: seq_of(log, b.end),
        duration_ms: time(b.end).zip(time(b.start)).map(|(e, s)| e - s),
        provider: s.provider.clone(),
        model: s.model.clone(),
        usage: s.usage.clone(),
        max_tokens: s.max_tokens,
        shadowed_token_count: s.shadowed_token_count,
        shadowed_seqs: s.shadowed_seqs.clone(),
        source_command_id: b.source_command_id().map(str::to_string),
        error: b.end_fields.error.clone(),
    }
}

fn prune_record(log: &EventLog, p: &Prune) -> CompactionRecord {
    CompactionRecord {
        id: p.fields.compaction_id.clone(),
        start_seq: Some(log.event(p.event).seq),
        shadowed_token_count: p.fields.shadowed_token_count,
        shadowed_seqs: p.fields.shadowed_seqs.clone(),
        source_command_id: p.fields.source_command_id.clone(),
        ..CompactionRecord::default()
    }
}

/// Compactions whose `compaction/end` carries an error and that no replace followed.
fn failed(log: &EventLog, meter: &Meter, ratio: f64, scan: &Scan) -> Vec<FailedCompaction> {
    let mut out: Vec<FailedCompaction> = scan
        .brackets
        .iter()
        .filter(|b| b.replace.is_none())
        .filter_map(|b| {
            let end = b.end?;
            let error = b.end_fields.error.clone()?;
            let trigger = b.anchor.and_then(|a| {
                judge(
                    meter,
                    ratio,
                    (a, b.check),
                    b.overflow,
                    b.source_command_id().is_some(),
                )
                .0
            });
            Some(FailedCompaction {
                id: b.id.clone(),
                start_seq: seq_of(log, b.start),
                end_seq: log.event(end).seq,
                error,
                trigger,
                event: end,
            })
        })
        .collect();
    out.sort_by_key(|f| f.event);
    out
}

/// Model requests whose messages were fixed while the meter was at or over the threshold.
fn over_threshold(log: &EventLog, meter: &Meter, ratio: f64) -> Vec<OverThresholdRequest> {
    meter
        .steps()
        .iter()
        .filter_map(|step| {
            let cursor = request_cursor(log, step, step.start.get() + 1);
            let window = meter.window_at(cursor)?;
            let limit = threshold(window, ratio);
            let tokens = meter.at(cursor).total;
            (tokens >= limit).then(|| OverThresholdRequest {
                seq: log.event(step.start).seq,
                tokens,
                threshold: limit,
                window,
                event: step.start,
                cursor,
            })
        })
        .collect()
}
