//! The hash map of the engine's hot maps over keys read from the log (terms, node indices):
//! fast, and seeded per process so that a log written to collide cannot flood it.

use std::collections::HashMap;

/// A `HashMap` over keys from untrusted logs, with ahash's per-process seeded hasher: the one
/// alias the engine's hot maps over log keys use (the audit's term index and call index).
///
/// Before, these maps used the Fx hash: fast, but fixed, so a log written with keys that
/// collide under it (easy to compute offline) would turn each lookup into a walk of one long
/// probe chain. ahash's `RandomState` mixes a per-process random seed from the OS (and a
/// per-map counter) into every hash, so colliding keys cannot be prepared ahead of the process.
///
/// Measured by `crates/passes/benches/hasher.rs` (the term index's lookups and inserts over
/// the 20k-event generated log's terms and node indices, 8.2k operations; one run, medians, on a
/// loaded 2-core machine): Fx (before) 1.81 ms, std `RandomState` (SipHash-1-3) 2.39 ms,
/// **ahash 1.21 ms**, foldhash fast 1.45 ms, foldhash quality 1.37 ms. ahash is the fastest
/// seeded one, and faster than the fixed Fx hash it replaces.
pub type KeyMap<K, V> = HashMap<K, V, ahash::RandomState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_hash_equal_and_maps_work() {
        let mut map: KeyMap<Box<str>, u32> = KeyMap::default();
        map.insert("parse_amount".into(), 1);
        map.insert("parse_amounts".into(), 2);
        assert_eq!(map.get("parse_amount"), Some(&1));
        assert_eq!(map.get("parse_amounts"), Some(&2));
        assert_eq!(map.get("parse"), None);
    }

    #[test]
    fn the_hasher_is_seeded_not_fixed() {
        // Two maps' states hash the same key differently (a fixed hasher, like Fx, would
        // give one value): which keys collide cannot be worked out ahead of the process.
        let states: Vec<_> = (0..4).map(|_| ahash::RandomState::default()).collect();
        let hashes: std::collections::BTreeSet<u64> =
            states.iter().map(|s| s.hash_one("parse_amount")).collect();
        assert!(hashes.len() > 1, "{hashes:?}");
    }
}
