//! The bytes every event's JSON lives in: owned (`Vec<u8>`, what live follow uses) or shared
//! read-only bytes the engine does not own (a memory-mapped file, for the CLI and the viewer).
//!
//! The engine never learns what shared bytes are: it reads them through [`SharedText`], which
//! may also let go of their resident pages ([`TextArena::release_resident`]: a mapped file's
//! pages stay in the page cache and come back on the next read) and say when they were lost
//! ([`TextArena::lost`]: another program truncated the mapped file). Appending to shared bytes
//! ([`TextArena::extend_from_slice`]) first copies them into an owned buffer, once; later
//! appends go to that buffer. Lines of shared bytes that later readers still need can be copied
//! into memory the arena owns ([`TextArena::keep`]); [`TextArena::bytes`] then reads them from
//! the copy, and the shared bytes' pages can be let go for good.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::{Arc, OnceLock};

use crate::kept_lines::{CopyHalf, KeptLines};

/// Read-only bytes held by someone else (the store), kept alive as long as any arena uses them.
pub type SharedBytes = Arc<dyn SharedText>;

/// Read-only bytes the engine does not own. Plain buffers only read; a mapped file may also
/// drop resident pages and report that its file shrank under it.
pub trait SharedText: AsRef<[u8]> + Send + Sync {
    /// Asks that the pages holding `range` stop counting as this process's memory; the bytes
    /// read the same afterwards (they come back from where they live). Nothing by default.
    fn release_resident(&self, _range: std::ops::Range<usize>) {}

    /// [`SharedText::release_resident`] of each of `runs` (in increasing order, within the
    /// bytes); an owner that can let many runs go at once (a mapped file) does so.
    fn release_resident_runs(&self, runs: &[std::ops::Range<usize>]) {
        for run in runs {
            self.release_resident(run.clone());
        }
    }

    /// True once the bytes were lost: another program truncated the file they map, and they
    /// now read as zeros. False by default.
    fn lost(&self) -> bool {
        false
    }

    /// True when another program may change these bytes while they are read (a mapped file:
    /// its pages show the file's current bytes). Then nothing validated once may be trusted on
    /// a second read: a `&str`, a "this string ends here" — readers make such views from a
    /// private copy ([`TextArena::may_change`]). False by default.
    fn may_change(&self) -> bool {
        false
    }
}

impl SharedText for Vec<u8> {}

/// The text arena of an [`crate::EventLog`]. Dereferences to `[u8]`, so
/// `text.get(a..b)`, `text.len()` and slicing work whichever bytes back it.
#[derive(Clone, Default)]
pub struct TextArena {
    /// The bytes when the arena owns them (empty while `shared` is set).
    owned: Vec<u8>,
    /// Bytes someone else owns, read-only. Cloning the arena clones the `Arc`, not the bytes.
    shared: Option<SharedBytes>,
    /// Ranges of the shared bytes copied into memory the arena owns, once (shared by clones:
    /// the same bytes).
    kept: Arc<OnceLock<KeptLines>>,
}

impl TextArena {
    /// An arena over shared read-only bytes (no copy).
    pub fn shared(bytes: SharedBytes) -> Self {
        TextArena {
            owned: Vec::new(),
            shared: Some(bytes),
            kept: Arc::default(),
        }
    }

    /// The bytes of `range`: from the copy [`TextArena::keep`] made when it holds them, else
    /// from the arena. `None` past the end.
    pub fn bytes(&self, range: Range<usize>) -> Option<&[u8]> {
        if let Some(kept) = self.kept.get()
            && let Some(bytes) = kept.get(range.clone())
        {
            return Some(bytes);
        }
        self.get(range)
    }

    /// The bytes of `range` when nobody else can change them: from the copy
    /// [`TextArena::keep`] made, or from the arena when its bytes cannot change
    /// ([`TextArena::may_change`]). `None` when they may change under the reader (a reader
    /// then validates a private copy) or past the end. After [`TextArena::keep`], the lines
    /// the later passes read are borrowed this way instead of copied once per read.
    pub fn stable_bytes(&self, range: Range<usize>) -> Option<&[u8]> {
        if let Some(kept) = self.kept.get()
            && let Some(bytes) = kept.get(range.clone())
        {
            return Some(bytes);
        }
        if self.may_change() {
            return None;
        }
        self.get(range)
    }

    /// Copies `ranges` of shared bytes (in increasing order) into memory the arena owns, so
    /// that [`TextArena::bytes`] reads them without touching the shared bytes again, and lets
    /// go of the shared bytes' resident pages ([`TextArena::release_resident`]) behind the
    /// copy as it goes, and of all of them at the end. Once per arena; nothing for owned bytes.
    /// Returns the bytes copied (0 when nothing was).
    pub fn keep(
        &self,
        ranges: impl IntoIterator<Item = Range<usize>>,
        join: impl FnOnce(CopyHalf<'_>, CopyHalf<'_>),
    ) -> usize {
        if self.shared.is_none() || self.kept.get().is_some() {
            return 0;
        }
        let kept = KeptLines::copy(self, ranges, |behind| self.release_resident(behind), join);
        let copied = kept.len();
        match self.kept.set(kept) {
            Ok(()) => copied,
            Err(_) => 0,
        }
    }

    /// True when the bytes are shared (not owned by the arena).
    pub fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// Lets go of the resident pages of `range` (clamped to the arena) where the bytes are
    /// shared and their owner can (a mapped file); owned bytes stay as they are. What is read
    /// afterwards is unchanged.
    pub fn release_resident(&self, range: std::ops::Range<usize>) {
        if let Some(shared) = &self.shared {
            let end = range.end.min(self.len());
            if range.start < end {
                shared.release_resident(range.start..end);
            }
        }
    }

    /// [`TextArena::release_resident`] of each of `runs` (in increasing order, each within the
    /// arena), at once where the owner can: many short runs cost a mapped file one system call
    /// per thousand.
    pub fn release_resident_runs(&self, runs: &[std::ops::Range<usize>]) {
        if let Some(shared) = &self.shared {
            debug_assert!(runs.iter().all(|r| r.start <= r.end && r.end <= self.len()));
            shared.release_resident_runs(runs);
        }
    }

    /// True when shared bytes were lost under the arena (their file was truncated); see
    /// [`SharedText::lost`].
    pub fn lost(&self) -> bool {
        self.shared.as_ref().is_some_and(|s| s.lost())
    }

    /// True when the bytes are shared and may change under the reader (see
    /// [`SharedText::may_change`]): views that need valid bytes (UTF-8 text, a scanned JSON
    /// value) must then be made from a private copy, as [`crate::EventLog::event_bytes`] and
    /// [`crate::EventLog::event_json`] do.
    pub fn may_change(&self) -> bool {
        self.shared.as_ref().is_some_and(|s| s.may_change())
    }

    /// Appends `more` at the end. Shared bytes are first copied into an owned buffer (one
    /// copy of the whole arena, the first time only, and the shared bytes are let go): the
    /// arena never writes to bytes it does not own.
    pub fn extend_from_slice(&mut self, more: &[u8]) {
        if let Some(shared) = self.shared.take() {
            let bytes: &[u8] = (*shared).as_ref();
            self.owned = Vec::with_capacity(bytes.len() + more.len());
            self.owned.extend_from_slice(bytes);
            // The owned bytes hold everything: no copy of some of it is needed.
            self.kept = Arc::default();
        }
        self.owned.extend_from_slice(more);
    }
}

impl Deref for TextArena {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.shared {
            Some(shared) => (**shared).as_ref(),
            None => &self.owned,
        }
    }
}

impl AsRef<[u8]> for TextArena {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl From<Vec<u8>> for TextArena {
    fn from(bytes: Vec<u8>) -> Self {
        TextArena {
            owned: bytes,
            shared: None,
            kept: Arc::default(),
        }
    }
}

impl From<SharedBytes> for TextArena {
    fn from(bytes: SharedBytes) -> Self {
        TextArena::shared(bytes)
    }
}

/// The kind and the length, never the bytes (an arena can hold hundreds of megabytes).
impl fmt::Debug for TextArena {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_shared() { "shared" } else { "owned" };
        write!(f, "TextArena({kind}, {} bytes)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_turn(first: CopyHalf<'_>, second: CopyHalf<'_>) {
        first();
        second();
    }

    fn shared(bytes: &[u8]) -> TextArena {
        TextArena::shared(Arc::new(bytes.to_vec()))
    }

    #[test]
    fn owned_and_shared_read_the_same() {
        let owned = TextArena::from(b"{\"seq\":0}\n".to_vec());
        let shared = shared(b"{\"seq\":0}\n");
        assert_eq!(&owned[..], &shared[..]);
        assert_eq!(shared.len(), 10);
        assert_eq!(shared.get(1..6), Some(&b"\"seq\""[..]));
        assert!(!owned.is_shared());
        assert!(shared.is_shared());
    }

    #[test]
    fn extending_shared_bytes_copies_them_once_and_leaves_the_source_alone() {
        let source: Arc<Vec<u8>> = Arc::new(b"abc".to_vec());
        let mut arena = TextArena::shared(source.clone());
        arena.extend_from_slice(b"def");
        assert!(!arena.is_shared(), "an extended arena owns its bytes");
        assert_eq!(&arena[..], b"abcdef");
        assert_eq!(&source[..], b"abc", "the shared bytes are never written");
        assert_eq!(
            Arc::strong_count(&source),
            1,
            "the copy let go of the shared bytes"
        );
        arena.extend_from_slice(b"g");
        assert_eq!(&arena[..], b"abcdefg");
    }

    #[test]
    fn clones_of_shared_bytes_share_them() {
        let source: Arc<Vec<u8>> = Arc::new(vec![7; 1000]);
        let arena = TextArena::shared(source.clone());
        let copy = arena.clone();
        assert_eq!(Arc::strong_count(&source), 3);
        assert_eq!(copy.as_ptr(), arena.as_ptr(), "no bytes copied");
        let mut grown = copy.clone();
        grown.extend_from_slice(b"!");
        assert_ne!(grown.as_ptr(), arena.as_ptr());
        assert_eq!(arena.len(), 1000);
        assert_eq!(grown.len(), 1001);
    }

    #[test]
    fn debug_names_the_kind_and_length_not_the_bytes() {
        let owned = format!("{:?}", TextArena::from(b"secret payload".to_vec()));
        let shared = format!("{:?}", shared(b"secret payload"));
        assert_eq!(owned, "TextArena(owned, 14 bytes)");
        assert_eq!(shared, "TextArena(shared, 14 bytes)");
        assert!(!shared.contains("secret"));
    }

    #[test]
    fn releasing_plain_bytes_changes_nothing() {
        let owned = TextArena::from(b"abc".to_vec());
        let shared = shared(b"abc");
        for arena in [&owned, &shared] {
            arena.release_resident(0..100);
            arena.release_resident(3..3);
            assert_eq!(&arena[..], b"abc");
            assert!(!arena.lost());
        }
    }

    #[test]
    fn kept_lines_read_the_same_and_are_kept_once() {
        let arena = shared(b"line0\nline1\nline2\n");
        assert_eq!(arena.bytes(6..11), Some(&b"line1"[..]));
        assert_eq!(arena.keep(std::iter::once(6..11), in_turn), 5);
        assert_eq!(
            arena.keep(std::iter::once(0..5), in_turn),
            0,
            "once per arena"
        );
        for r in [0..5, 6..11, 7..9, 12..17, 0..18] {
            assert_eq!(arena.bytes(r.clone()), arena.get(r));
        }
        assert_eq!(arena.bytes(10..40), None);
        // Owned bytes have nothing to keep; extended shared bytes drop the copy.
        assert_eq!(
            TextArena::from(b"abc".to_vec()).keep(std::iter::once(0..3), in_turn),
            0
        );
        let mut grown = arena.clone();
        grown.extend_from_slice(b"line3\n");
        assert!(grown.kept.get().is_none());
        assert_eq!(grown.bytes(18..23), Some(&b"line3"[..]));
    }

    #[test]
    fn default_is_empty_and_owned() {
        let arena = TextArena::default();
        assert!(arena.is_empty());
        assert!(!arena.is_shared());
    }
}
