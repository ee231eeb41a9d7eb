//! A price file (docs/cost.md): `{"currency": "USD", "per": 1000000, "models": {KEY:
//! {"uncached": x, "cache_read": x, "cache_write": x, "output": x}}}`, where KEY is
//! `provider/model`, `model` or `*` and the most specific key that matches a call wins. There
//! are no built-in prices: without a file every figure stays in tokens.
//!
//! Parsed from text (the engine reads no files); an error names the key or field at fault.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::tokens::Tokens;

/// The wildcard key: the price of every model no other key names.
pub const ANY_MODEL: &str = "*";

/// `per` when the file does not say: prices per million tokens.
pub const DEFAULT_PER: f64 = 1_000_000.0;

/// The top-level keys a price file may have.
const TOP_KEYS: [&str; 6] = ["currency", "per", "models", "date", "source", "note"];

/// The fields of one model's price, in the order they are documented.
const PRICE_FIELDS: [&str; 4] = ["uncached", "cache_read", "cache_write", "output"];

/// What is wrong with a price file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PriceError {
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Syntax(String),
    /// A key or field is missing, unknown or of the wrong kind.
    #[error("{key}: {problem}")]
    Field {
        /// Where: `currency`, `models`, `models["deepseek-chat"].cache_read`, …
        key: String,
        /// What is wrong with it.
        problem: String,
    },
}

fn field(key: impl Into<String>, problem: impl Into<String>) -> PriceError {
    PriceError::Field {
        key: key.into(),
        problem: problem.into(),
    }
}

/// One model's prices, each per [`PriceTable::per`] tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ModelPrice {
    /// A prompt token sent at the full price (`inputTokens`).
    pub uncached: f64,
    /// A prompt token read from the cache.
    pub cache_read: f64,
    /// A prompt token written to the cache.
    pub cache_write: f64,
    /// An output token.
    pub output: f64,
}

/// A parsed price file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PriceTable {
    /// The currency the prices are in (`"USD"`).
    pub currency: String,
    /// How many tokens each price is for (default 1,000,000).
    pub per: f64,
    /// The prices by key, in key order.
    pub models: BTreeMap<String, ModelPrice>,
    /// `date`: when the prices were read off the provider's page.
    pub date: Option<String>,
    /// `source`: the page they came from.
    pub source: Option<String>,
}

impl PriceTable {
    /// Parses a price file's text.
    pub fn parse(text: &str) -> Result<PriceTable, PriceError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| PriceError::Syntax(e.to_string()))?;
        let Value::Object(top) = value else {
            return Err(field("(top level)", "is not a JSON object"));
        };
        if let Some(unknown) = top.keys().find(|k| !TOP_KEYS.contains(&k.as_str())) {
            return Err(field(
                format!("{unknown:?}"),
                format!("unknown key (expected {})", TOP_KEYS.join(", ")),
            ));
        }
        let currency = match top.get("currency") {
            Some(Value::String(c)) if !c.trim().is_empty() => c.clone(),
            Some(Value::String(_)) => return Err(field("currency", "is empty")),
            Some(_) => return Err(field("currency", "is not a string")),
            None => return Err(field("currency", "missing (a currency code, e.g. \"USD\")")),
        };
        let per = match top.get("per") {
            None => DEFAULT_PER,
            Some(v) => match v.as_f64() {
                Some(p) if p > 0.0 && p.is_finite() => p,
                _ => return Err(field("per", "is not a positive number")),
            },
        };
        let models = match top.get("models") {
            Some(Value::Object(m)) if !m.is_empty() => m,
            Some(Value::Object(_)) => return Err(field("models", "has no model")),
            Some(_) => return Err(field("models", "is not an object")),
            None => return Err(field("models", "missing")),
        };
        let models = models
            .iter()
            .map(|(key, v)| Ok((key.clone(), model_price(key, v)?)))
            .collect::<Result<_, PriceError>>()?;
        Ok(PriceTable {
            currency,
            per,
            models,
            date: optional_string(&top, "date")?,
            source: optional_string(&top, "source")?,
        })
    }

    /// The price of a model: the entry for `provider/model`, else for `model`, else `*`;
    /// with the key that matched.
    pub fn lookup(
        &self,
        provider: Option<&str>,
        model: Option<&str>,
    ) -> Option<(&str, &ModelPrice)> {
        let get = |key: &str| self.models.get_key_value(key).map(|(k, p)| (k.as_str(), p));
        if let (Some(p), Some(m)) = (provider, model)
            && let Some(found) = get(&format!("{p}/{m}"))
        {
            return Some(found);
        }
        model.and_then(get).or_else(|| get(ANY_MODEL))
    }

    /// `Σ tokens × price / per` of a call's tokens.
    pub fn cost(&self, price: &ModelPrice, tokens: &Tokens) -> f64 {
        (tokens.uncached as f64 * price.uncached
            + tokens.cache_read as f64 * price.cache_read
            + tokens.cache_write as f64 * price.cache_write
            + tokens.output as f64 * price.output)
            / self.per
    }

    /// `tokens × price / per` for one price.
    pub fn of(&self, tokens: f64, price: f64) -> f64 {
        tokens * price / self.per
    }
}

fn optional_string(top: &Map<String, Value>, key: &str) -> Result<Option<String>, PriceError> {
    match top.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(field(key, "is not a string")),
    }
}

fn model_price(key: &str, v: &Value) -> Result<ModelPrice, PriceError> {
    let at = |f: &str| format!("models[{key:?}]{f}");
    let Value::Object(map) = v else {
        return Err(field(at(""), "is not an object"));
    };
    if let Some(unknown) = map.keys().find(|k| !PRICE_FIELDS.contains(&k.as_str())) {
        return Err(field(
            at(&format!(".{unknown}")),
            format!("unknown field (expected {})", PRICE_FIELDS.join(", ")),
        ));
    }
    let mut out = [0.0; 4];
    for (slot, name) in out.iter_mut().zip(PRICE_FIELDS) {
        *slot = match map.get(name) {
            None => return Err(field(at(&format!(".{name}")), "missing")),
            Some(n) => match n.as_f64() {
                Some(x) if x >= 0.0 && x.is_finite() => x,
                _ => {
                    return Err(field(
                        at(&format!(".{name}")),
                        format!("is not a non-negative number ({n})"),
                    ));
                }
            },
        };
    }
    let [uncached, cache_read, cache_write, output] = out;
    Ok(ModelPrice {
        uncached,
        cache_read,
        cache_write,
        output,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"{
        "currency": "USD", "per": 1000000, "date": "2025-10-01",
        "models": {
            "*":                       {"uncached": 1,   "cache_read": 0.1,  "cache_write": 1,   "output": 2},
            "deepseek-chat":           {"uncached": 0.28, "cache_read": 0.028, "cache_write": 0.28, "output": 0.42},
            "acme/deepseek-chat":      {"uncached": 0.5, "cache_read": 0.05, "cache_write": 0.5, "output": 0.8}
        }
    }"#;

    #[test]
    fn the_most_specific_key_wins() {
        let t = PriceTable::parse(FILE).unwrap();
        let key = |p, m| t.lookup(p, m).map(|(k, _)| k);
        assert_eq!(
            key(Some("acme"), Some("deepseek-chat")),
            Some("acme/deepseek-chat")
        );
        assert_eq!(
            key(Some("deepseek"), Some("deepseek-chat")),
            Some("deepseek-chat")
        );
        assert_eq!(key(None, Some("deepseek-chat")), Some("deepseek-chat"));
        assert_eq!(key(Some("acme"), Some("other")), Some("*"));
        assert_eq!(key(None, None), Some("*"));
        assert_eq!(
            t.lookup(Some("acme"), Some("deepseek-chat"))
                .unwrap()
                .1
                .output,
            0.8
        );
    }

    #[test]
    fn without_a_wildcard_an_unknown_model_has_no_price() {
        let t = PriceTable::parse(
            r#"{"currency":"EUR","models":{"m":{"uncached":1,"cache_read":0,"cache_write":1,"output":1}}}"#,
        )
        .unwrap();
        assert_eq!(t.per, DEFAULT_PER);
        assert!(t.lookup(Some("p"), Some("other")).is_none());
        assert!(t.lookup(None, None).is_none());
        assert_eq!(t.lookup(Some("p"), Some("m")).map(|(k, _)| k), Some("m"));
    }

    #[test]
    fn a_call_costs_the_sum_of_its_columns() {
        let t = PriceTable::parse(FILE).unwrap();
        let (_, p) = t.lookup(None, Some("deepseek-chat")).unwrap();
        let tokens = Tokens {
            uncached: 1_000_000,
            cache_read: 2_000_000,
            cache_write: 0,
            output: 500_000,
        };
        let cost = t.cost(p, &tokens);
        assert!((cost - (0.28 + 0.056 + 0.21)).abs() < 1e-12, "{cost}");
    }

    #[test]
    fn an_invalid_file_names_the_key_at_fault() {
        let err = |text: &str| PriceTable::parse(text).unwrap_err().to_string();
        assert!(err("{").starts_with("not valid JSON: "), "{}", err("{"));
        assert_eq!(err("[]"), "(top level): is not a JSON object");
        assert_eq!(
            err(r#"{"models":{}}"#),
            "currency: missing (a currency code, e.g. \"USD\")"
        );
        assert_eq!(err(r#"{"currency":"USD"}"#), "models: missing");
        assert_eq!(
            err(r#"{"currency":"USD","models":{}}"#),
            "models: has no model"
        );
        assert_eq!(
            err(r#"{"currency":"USD","per":0,"models":{}}"#),
            "per: is not a positive number"
        );
        assert_eq!(
            err(r#"{"currency":"USD","modles":{}}"#),
            "\"modles\": unknown key (expected currency, per, models, date, source, note)"
        );
        assert_eq!(
            err(
                r#"{"currency":"USD","models":{"m":{"uncached":1,"cache_read":"0.1","cache_write":1,"output":1}}}"#
            ),
            "models[\"m\"].cache_read: is not a non-negative number (\"0.1\")"
        );
        assert_eq!(
            err(r#"{"currency":"USD","models":{"m":{"uncached":1,"cache_write":1,"output":1}}}"#),
            "models[\"m\"].cache_read: missing"
        );
        assert_eq!(
            err(
                r#"{"currency":"USD","models":{"m":{"uncached":1,"cache_read":0,"cache_write":1,"output":-1}}}"#
            ),
            "models[\"m\"].output: is not a non-negative number (-1)"
        );
        assert_eq!(
            err(
                r#"{"currency":"USD","models":{"m":{"uncached":1,"cached":0,"cache_read":0,"cache_write":1,"output":1}}}"#
            ),
            "models[\"m\"].cached: unknown field (expected uncached, cache_read, cache_write, output)"
        );
        assert_eq!(
            err(r#"{"currency":"USD","models":{"m":3}}"#),
            "models[\"m\"]: is not an object"
        );
    }
}
