//! The kinds of block a streamed message's deltas build (docs/meter.md): what a delta chunk,
//! and a `block-start`'s `blockType` name.

/// The block kinds built from deltas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeltaKind {
    /// `text-delta` / blockType `text`.
    Text,
    /// `reasoning-delta` / blockType `reasoning`.
    Reasoning,
    /// `tool-call-delta` / blockType `tool-call`.
    ToolCall,
}

impl DeltaKind {
    pub(crate) fn of_block_type(name: &str) -> Option<DeltaKind> {
        DeltaKind::of_block_name(name.as_bytes())
    }

    /// The kind a `blockType` names, from its bytes as written (no escapes).
    pub(crate) fn of_block_name(name: &[u8]) -> Option<DeltaKind> {
        match name {
            b"text" => Some(DeltaKind::Text),
            b"reasoning" => Some(DeltaKind::Reasoning),
            b"tool-call" => Some(DeltaKind::ToolCall),
            _ => None,
        }
    }

    pub(crate) fn of_delta_type(name: &str) -> Option<DeltaKind> {
        match name {
            "text-delta" => Some(DeltaKind::Text),
            "reasoning-delta" => Some(DeltaKind::Reasoning),
            "tool-call-delta" => Some(DeltaKind::ToolCall),
            _ => None,
        }
    }
}
