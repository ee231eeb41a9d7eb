//! surface-viewer: audit what an LLM agent actually saw.
//!
//! - [`engine`] — pure: the event model, the surface engine with replay, messages, findings,
//!   repair and replace preview.
//! - [`store`] — reads JSONL, Zstandard JSONL and SQLite session files into the engine's types.
//! - [`cli`] — the headless commands (`check`, `surface`, `messages`, `preview`, `sessions`).
//! - `ui` — the desktop viewer (feature `gui`, on by default).

pub mod cli;
pub mod engine;
pub mod store;
pub mod synth;
#[cfg(feature = "gui")]
pub mod ui;
