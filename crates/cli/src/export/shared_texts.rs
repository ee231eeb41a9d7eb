//! The values of a text column whose rows share a few strings (an event's type, a call's
//! model): each distinct string becomes one shared buffer that every cell holding it points to,
//! instead of a copy per cell. Strings are found by address first and then checked by content,
//! so a row freed and another allocated at the same address can never take its value. A column
//! whose strings are all different (messages, payloads) stops looking once [`SharedTexts::MAX`]
//! are kept and none came back; strings longer than [`SharedTexts::LONGEST`] are not kept.

use parquet::data_type::ByteArray;

/// The shared strings of one column.
#[derive(Default)]
pub struct SharedTexts {
    seen: Vec<(usize, ByteArray)>,
    hits: usize,
}

impl SharedTexts {
    /// Strings kept before a column with no repeat stops looking.
    const MAX: usize = 64;

    /// The longest string kept, in bytes: a long text (a payload, a message) is rarely
    /// repeated, and keeping it would hold its copy for the whole row group.
    const LONGEST: usize = 1024;

    /// `text` as a Parquet value, shared with an earlier equal one at the same address.
    pub fn get(&mut self, text: &str) -> ByteArray {
        let address = text.as_ptr() as usize;
        let looking = self.seen.len() < Self::MAX || self.hits > 0;
        let same =
            |(a, shared): &&(usize, ByteArray)| *a == address && shared.data() == text.as_bytes();
        if looking && let Some((_, shared)) = self.seen.iter().find(same) {
            self.hits += 1;
            return shared.clone();
        }
        let value = ByteArray::from(text);
        if self.seen.len() < Self::MAX && text.len() <= Self::LONGEST {
            self.seen.push((address, value.clone()));
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_string_is_shared_and_a_reused_address_is_checked() {
        let mut shared = SharedTexts::default();
        let name = String::from("turn/start");
        let a = shared.get(&name);
        let b = shared.get(&name);
        assert_eq!(a.data().as_ptr(), b.data().as_ptr());
        // Another string written where the first one was: same address, other content.
        let mut reused = name;
        reused.replace_range(.., "step/start");
        let c = shared.get(&reused);
        assert_eq!(c.data(), b"step/start");
        assert_eq!(a.data(), b"turn/start");
    }

    #[test]
    fn a_long_text_is_not_kept() {
        let mut shared = SharedTexts::default();
        let long = "x".repeat(SharedTexts::LONGEST + 1);
        assert_eq!(shared.get(&long).data(), long.as_bytes());
        assert!(shared.seen.is_empty());
        let short = "y".repeat(SharedTexts::LONGEST);
        shared.get(&short);
        assert_eq!(shared.seen.len(), 1);
    }

    #[test]
    fn a_column_of_different_strings_stops_looking() {
        let mut shared = SharedTexts::default();
        let texts: Vec<String> = (0..200).map(|i| format!("message {i}")).collect();
        for t in &texts {
            assert_eq!(shared.get(t).data(), t.as_bytes());
        }
        assert_eq!(shared.seen.len(), SharedTexts::MAX);
        assert_eq!(shared.hits, 0);
    }
}
