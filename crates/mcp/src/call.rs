//! Answering one tool call: the arguments read, the paths resolved inside the roots, the
//! log taken from the cache (or read), the document built (or taken from the entry), then
//! bounded ([`crate::answer`]) and summed up in words ([`crate::summary`]).

use std::sync::Arc;

use serde_json::{Map, Value};
use surface_analysis::cost::PriceTable;
use surface_reports::Source;
use surface_reports::events::{Page, Selection};
use surface_store::ReadLimits;

use crate::answer::{DEFAULT_MAX_BYTES, page, shorten_strings, start_of};
use crate::args::{CompareArgs, EventsArgs, PageArgs, SessionsArgs};
use crate::cache::{Entry, LogCache};
use crate::tools::{self, parse};
use crate::{Config, Roots, ServeError, ToolError, summary};

/// An answer: the structured result and its summary in words.
#[derive(Debug)]
pub struct Answer {
    /// The document (or its page).
    pub structured: Value,
    /// A short text an agent can read without parsing.
    pub summary: String,
}

/// The server's state: its roots, read limits and opened logs.
pub struct State {
    pub(crate) roots: Roots,
    pub(crate) limits: ReadLimits,
    pub(crate) cache: LogCache,
}

impl State {
    /// The state `config` describes (its roots checked).
    pub fn new(config: &Config) -> Result<State, ServeError> {
        Ok(State {
            roots: Roots::new(&config.roots)?,
            limits: ReadLimits::with_max_bytes(config.read_limit),
            cache: LogCache::default(),
        })
    }

    /// Answers the call of `name` with `arguments`.
    pub fn call(&self, name: &str, arguments: Map<String, Value>) -> Result<Answer, ToolError> {
        let tool = tools::find(name)?;
        let (paging, args) = split_paging(name, arguments)?;
        let max_bytes = paging.max_bytes.map_or(DEFAULT_MAX_BYTES, |b| {
            usize::try_from(b).unwrap_or(usize::MAX)
        });
        let doc = match name {
            "events" => return self.events(&args, &paging, max_bytes),
            "sessions" => self.sessions(&args)?,
            "compare" => Arc::new(self.compare(&args)?),
            "tune" => Arc::new(self.tune(&args)?),
            _ => self.per_file(name, &args)?,
        };
        let structured = page(&doc, name, tool.list, paging.cursor.as_deref(), max_bytes)?;
        Ok(Answer {
            summary: summary::of(name, &structured, tool.list),
            structured,
        })
    }

    /// The document of per-file tool `name` on the session `path`/`session`, from the
    /// entry when the same call was answered before (`key`), else built by `build`.
    pub(crate) fn on_file(
        &self,
        (path, session): (&str, Option<&str>),
        key: String,
        build: impl FnOnce(&Source<'_>) -> Result<Value, ToolError>,
    ) -> Result<Arc<Value>, ToolError> {
        let entry = self.entry(path, session)?;
        entry.document(&key, |entry| build(&source_of(path, entry)))
    }

    /// The opened session `session` of `path` (resolved inside the roots).
    pub(crate) fn entry(&self, path: &str, session: Option<&str>) -> Result<Arc<Entry>, ToolError> {
        let resolved = self.roots.resolve_file(path)?;
        self.cache
            .open(&resolved, session, self.limits)
            .map_err(|e| ToolError::Report(e.into()))
    }

    /// The price file `given` names, read (resolved inside the roots), with its name as
    /// given.
    pub(crate) fn prices_in(
        &self,
        given: Option<&str>,
    ) -> Result<Option<(String, PriceTable)>, ToolError> {
        given
            .map(|given| {
                let path = self.roots.resolve_file(given)?;
                Ok((
                    given.to_string(),
                    surface_reports::cost::read_prices(&path)?,
                ))
            })
            .transpose()
    }

    /// `sessions` of a file, or of a folder (walked without following a link out of the
    /// roots, as `sessions DIR --json`).
    fn sessions(&self, args: &Map<String, Value>) -> Result<Arc<Value>, ToolError> {
        let a: SessionsArgs = parse("sessions", args)?;
        let path = self.roots.resolve(&a.path)?;
        let only = a.session.as_deref();
        if path.is_dir() {
            let bounds = Some(self.roots.folders());
            let threads = surface_store::default_threads();
            let doc = surface_reports::folder::listing(&path, only, &self.limits, threads, bounds)?;
            return Ok(Arc::new(doc));
        }
        let list = surface_reports::sessions::listed(&path, only, &self.limits)?;
        Ok(Arc::new(surface_reports::sessions::document(&list)?))
    }

    fn events(
        &self,
        args: &Map<String, Value>,
        paging: &PageArgs,
        max_bytes: usize,
    ) -> Result<Answer, ToolError> {
        let a: EventsArgs = parse("events", args)?;
        let entry = self.entry(&a.path, a.session.as_deref())?;
        let source = source_of(&a.path, &entry);
        let selection = Selection {
            from: a.from,
            to: a.to,
            query: a.query,
        };
        let matches = surface_reports::events::matching(&source, &selection)?;
        let skip = start_of(paging.cursor.as_deref())?;
        if skip > matches.len() || (skip == matches.len() && skip > 0) {
            return Err(ToolError::Cursor(skip.to_string()));
        }
        let (mut doc, next) = surface_reports::events::document(
            &source,
            &selection,
            &matches,
            Page {
                skip,
                max_bytes: max_bytes.saturating_sub(512),
            },
        );
        shorten_strings(&mut doc);
        if let Some(next) = next {
            doc["next_cursor"] = Value::String(next.to_string());
        }
        Ok(Answer {
            summary: summary::of("events", &doc, &["matches"]),
            structured: doc,
        })
    }

    fn compare(&self, args: &Map<String, Value>) -> Result<Value, ToolError> {
        let a: CompareArgs = parse("compare", args)?;
        let ratio = ratio_of("compare", a.threshold_ratio)?;
        let prices = self.prices_in(a.prices.as_deref())?;
        let entry_a = self.entry(&a.a, a.session_a.as_deref())?;
        let entry_b = self.entry(&a.b, a.session_b.as_deref())?;
        let (sa, sb) = (source_of(&a.a, &entry_a), source_of(&a.b, &entry_b));
        let table = prices.as_ref().map(|(_, t)| t);
        let (analysed_a, analysed_b, comparison) =
            surface_reports::compare::comparison_of(&sa, &sb, ratio, table);
        Ok(surface_reports::compare::document(
            [(&sa, &analysed_a), (&sb, &analysed_b)],
            &comparison,
            ratio,
            (prices.as_ref().map(|(n, _)| n.as_str()), table),
        )?)
    }
}

/// A [`Source`] over an opened session, named as given.
pub(crate) fn source_of<'a>(given: &'a str, entry: &'a Entry) -> Source<'a> {
    Source {
        file: given,
        log: &entry.opened.log,
        format: entry.opened.format,
        session: &entry.opened.session,
        repaired: 0,
        skipped: &entry.skipped,
    }
}

/// The paging arguments apart from the tool's own.
fn split_paging(
    tool: &str,
    mut args: Map<String, Value>,
) -> Result<(PageArgs, Map<String, Value>), ToolError> {
    let mut paging = Map::new();
    for key in ["cursor", "max_bytes"] {
        if let Some(v) = args.remove(key) {
            paging.insert(key.to_string(), v);
        }
    }
    Ok((parse(tool, &paging)?, args))
}

/// The threshold ratio given (positive and finite), else the harness's default.
pub(crate) fn ratio_of(tool: &str, ratio: Option<f64>) -> Result<f64, ToolError> {
    match ratio {
        None => Ok(surface_engine::DEFAULT_THRESHOLD_RATIO),
        Some(r) if r > 0.0 && r.is_finite() => Ok(r),
        Some(r) => Err(ToolError::Argument {
            tool: tool.to_string(),
            message: format!("argument `threshold_ratio`: {r} is not a positive number (e.g. 0.8)"),
        }),
    }
}
