//! The bytes every event's JSON lives in: owned (`Vec<u8>`, what live follow uses) or shared
//! read-only bytes the engine does not own (a memory-mapped file, for the CLI and the viewer).
//!
//! The engine never learns what shared bytes are: it reads them through [`SharedText`], which
//! may say when they were lost ([`TextArena::lost`]: another program truncated the mapped
//! file) and whether they may change under the reader. Appending to shared bytes
//! ([`TextArena::extend_from_slice`]) first copies them into an owned buffer, once; later
//! appends go to that buffer.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// Read-only bytes held by someone else (the store), kept alive as long as any arena uses them.
pub type SharedBytes = Arc<dyn SharedText>;

/// Read-only bytes the engine does not own. Plain buffers only read; a mapped file may also
/// report that its file shrank under it.
pub trait SharedText: AsRef<[u8]> + Send + Sync {
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
}

impl TextArena {
    /// An arena over shared read-only bytes (no copy).
    pub fn shared(bytes: SharedBytes) -> Self {
        TextArena {
            owned: Vec::new(),
            shared: Some(bytes),
        }
    }

    /// The bytes of `range`; `None` past the end.
    pub fn bytes(&self, range: Range<usize>) -> Option<&[u8]> {
        self.get(range)
    }

    /// The bytes of `range` when nobody else can change them ([`TextArena::may_change`]).
    /// `None` when they may change under the reader (a reader then validates a private copy)
    /// or past the end.
    pub fn stable_bytes(&self, range: Range<usize>) -> Option<&[u8]> {
        if self.may_change() {
            return None;
        }
        self.get(range)
    }

    /// True when the bytes are shared (not owned by the arena).
    pub fn is_shared(&self) -> bool {
        self.shared.is_some()
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
    /// copy of the whole arena, the first time only, and the shared bytes are dropped): the
    /// arena never writes to bytes it does not own.
    pub fn extend_from_slice(&mut self, more: &[u8]) {
        if let Some(shared) = self.shared.take() {
            let bytes: &[u8] = (*shared).as_ref();
            self.owned = Vec::with_capacity(bytes.len() + more.len());
            self.owned.extend_from_slice(bytes);
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
    fn default_is_empty_and_owned() {
        let arena = TextArena::default();
        assert!(arena.is_empty());
        assert!(!arena.is_shared());
    }
}
