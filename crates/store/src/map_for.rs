//! Who a mapping of a log is for: the command line or the desktop viewer (they differ in how
//! pages are populated and what a truncation does).

/// Who a mapping is for (`mapped_file.rs`; elsewhere than on Linux files are always read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapFor {
    /// A short process (the CLI): every page populated at once; a truncation ends the process.
    CommandLine,
    /// The desktop viewer: pages faulted in as read and let go behind; a truncation turns the
    /// mapping into zeros and marks it lost.
    Viewer,
}
