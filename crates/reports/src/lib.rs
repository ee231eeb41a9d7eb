//! The JSON documents every shell answers with: one module per command, each building its
//! document from an opened log (a [`Source`]) and the command's options. The command line
//! prints them for `--json`; the MCP server returns them as structured results. Nothing here
//! prints, parses arguments or knows which shell asked.

#![forbid(unsafe_code)]

pub mod audit;
pub mod check;
pub mod compare;
pub mod cost;
mod error;
pub mod events;
pub mod folder;
pub mod messages;
pub mod policy;
mod policy_settings;
pub mod preview;
pub mod request;
pub mod sessions;
mod source;
pub mod surface;
pub mod tune;

pub use error::ReportError;
pub use source::Source;
