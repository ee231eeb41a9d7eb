//! Interning of event type names, so each record carries a 4-byte id instead of a string.

use std::collections::HashMap;

use super::event::TypeId;
use super::event_type::EventType;

/// The distinct event type names of one log.
#[derive(Clone, Debug, Default)]
pub struct TypeTable {
    names: Vec<Box<str>>,
    /// The known type behind each name ([`EventType::Other`] for the rest).
    kinds: Vec<EventType>,
    lookup: HashMap<Box<str>, TypeId>,
    /// The id `intern` returned last: runs of one type (stream chunks) skip the hash.
    last: Option<TypeId>,
}

/// Up to this many types, [`TypeTable::intern`] finds a name by scanning instead of hashing.
const LINEAR_SCAN_UP_TO: usize = 48;

impl TypeTable {
    /// The id of `name`, adding it when new.
    pub fn intern(&mut self, name: &str) -> TypeId {
        if let Some(last) = self.last
            && *self.names[last.0 as usize] == *name
        {
            return last;
        }
        // A log has a few dozen types: scanning them (lengths first) beats hashing the name.
        let found = if self.names.len() <= LINEAR_SCAN_UP_TO {
            self.names
                .iter()
                .position(|n| n.len() == name.len() && **n == *name)
                .map(|i| TypeId(i as u32))
        } else {
            self.lookup.get(name).copied()
        };
        if let Some(id) = found {
            self.last = Some(id);
            return id;
        }
        let id = TypeId(self.names.len() as u32);
        self.names.push(name.into());
        self.kinds.push(EventType::of(name));
        self.lookup.insert(name.into(), id);
        self.last = Some(id);
        id
    }

    /// The name behind `id`.
    pub fn name(&self, id: TypeId) -> &str {
        self.names.get(id.0 as usize).map_or("?", |n| n)
    }

    /// The id of `name`, if the log has such events.
    pub fn get(&self, name: &str) -> Option<TypeId> {
        self.lookup.get(name).copied()
    }

    /// True when events of this type may be surface nodes.
    pub fn is_eligible(&self, id: TypeId) -> bool {
        self.kind(id).is_surface_eligible()
    }

    /// The known type behind `id` ([`EventType::Other`] for any other name).
    pub fn kind(&self, id: TypeId) -> EventType {
        self.kinds
            .get(id.0 as usize)
            .copied()
            .unwrap_or(EventType::Other)
    }

    /// The id of the known type `kind`, if the log has such events (`None` for `Other`).
    pub fn id_of(&self, kind: EventType) -> Option<TypeId> {
        self.get(kind.name()?)
    }

    /// Every interned name with its id, in first-seen order.
    pub fn iter(&self) -> impl Iterator<Item = (TypeId, &str)> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, n)| (TypeId(i as u32), &**n))
    }

    /// Number of distinct names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when no name was interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable() {
        let mut t = TypeTable::default();
        let a = t.intern("user/message");
        let b = t.intern("turn/start");
        assert_eq!(t.intern("user/message"), a);
        assert_ne!(a, b);
        assert_eq!(t.name(b), "turn/start");
        assert!(t.is_eligible(a));
        assert!(!t.is_eligible(b));
    }

    #[test]
    fn small_and_large_tables_intern_alike() {
        let mut t = TypeTable::default();
        let names: Vec<String> = (0..3 * LINEAR_SCAN_UP_TO)
            .map(|i| format!("t/{i}"))
            .collect();
        let ids: Vec<TypeId> = names.iter().map(|n| t.intern(n)).collect();
        // Again, in another order, past the scan limit and below it.
        for (n, id) in names.iter().zip(&ids).rev() {
            assert_eq!(t.intern(n), *id);
            assert_eq!(t.get(n), Some(*id));
        }
        assert_eq!(t.intern("t/0"), ids[0]);
    }
}
