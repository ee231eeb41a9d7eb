//! The replay bar under the panels: its buttons, the context strip and the scrubber (`bar`),
//! and what the scrubber marks (`scrubber_marks`).

pub(crate) mod apply;
pub(crate) mod bar;
pub(crate) mod command;
pub(crate) mod scrubber_marks;
