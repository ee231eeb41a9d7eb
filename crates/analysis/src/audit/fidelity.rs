//! What a summary kept, as figures: each compaction's facts by kind ([`FactKind`]) with how
//! many survived in its text, how many were needed again while it stood and how many of those
//! it had lost; its fidelity (survived / facts) and needed fidelity (survived ∩ needed /
//! needed); and the session's totals by kind.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::facts::FactKind;
use surface_engine::EventIdx;

/// One fact of a compaction's shadowed text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactRecord {
    /// Its kind (that of its first occurrence).
    pub kind: FactKind,
    /// The fact as the rules normalise it.
    pub text: String,
    /// Whether the summary's text holds it.
    pub survived: bool,
    /// The first later event that needed it while the summary stood (a tool call, a tool
    /// result or a user message).
    pub needed_by: Option<EventIdx>,
    /// That event's seq.
    pub needed_seq: Option<u64>,
}

/// One kind's figures for one compaction.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct KindFidelity {
    /// Distinct facts of the kind in the shadowed text.
    pub facts: u64,
    /// Of them, those the summary's text holds.
    pub survived: u64,
    /// Of them, those needed again while the summary stood.
    pub needed: u64,
    /// Needed and not survived.
    pub needed_lost: u64,
    /// The facts that did not survive, in the order they occur.
    pub lost: Vec<String>,
}

/// One kind's figures over the session (a [`KindFidelity`] without the list).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct KindTotals {
    /// Facts of the kind, summed over the compactions.
    pub facts: u64,
    /// Survived, summed.
    pub survived: u64,
    /// Needed, summed.
    pub needed: u64,
    /// Needed and lost, summed.
    pub needed_lost: u64,
}

/// A figure for each [`FactKind`], serialised as an object keyed by the kinds' names, all six
/// present, in [`FactKind::ALL`]'s order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ByKind<T>(pub [T; 6]);

impl<T> ByKind<T> {
    /// The figure of `kind`.
    pub fn get(&self, kind: FactKind) -> &T {
        &self.0[kind.index()]
    }

    /// Every kind with its figure, in [`FactKind::ALL`]'s order.
    pub fn iter(&self) -> impl Iterator<Item = (FactKind, &T)> {
        FactKind::ALL.into_iter().zip(self.0.iter())
    }
}

impl<T: Serialize> Serialize for ByKind<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(6))?;
        for (kind, value) in self.iter() {
            map.serialize_entry(kind.as_str(), value)?;
        }
        map.end()
    }
}

/// One compaction's fidelity.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Fidelity {
    /// Survived / facts (`null` without facts).
    pub fidelity: Option<f64>,
    /// Survived ∩ needed / needed (`null` when none was needed).
    pub needed_fidelity: Option<f64>,
    /// The figures by kind.
    pub kinds: ByKind<KindFidelity>,
    /// Every fact, lost ones first, then by kind (for a view that lists them).
    #[serde(skip)]
    pub facts: Vec<FactRecord>,
}

impl Fidelity {
    /// The figures of `facts` (each distinct).
    pub fn of(mut facts: Vec<FactRecord>) -> Self {
        let mut kinds = ByKind::<KindFidelity>::default();
        let (mut survived, mut needed, mut needed_kept) = (0u64, 0u64, 0u64);
        for f in &facts {
            let k = &mut kinds.0[f.kind.index()];
            let is_needed = f.needed_by.is_some();
            k.facts += 1;
            k.survived += u64::from(f.survived);
            k.needed += u64::from(is_needed);
            k.needed_lost += u64::from(is_needed && !f.survived);
            if !f.survived {
                k.lost.push(f.text.clone());
            }
            survived += u64::from(f.survived);
            needed += u64::from(is_needed);
            needed_kept += u64::from(is_needed && f.survived);
        }
        let ratio = |a: u64, b: u64| (b > 0).then(|| a as f64 / b as f64);
        facts.sort_by_key(|f| (f.survived, f.kind));
        Fidelity {
            fidelity: ratio(survived, facts.len() as u64),
            needed_fidelity: ratio(needed_kept, needed),
            kinds,
            facts,
        }
    }
}

/// The session's fidelity totals by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FidelityTotals {
    /// The figures by kind, summed over the compactions.
    pub kinds: ByKind<KindTotals>,
}

impl FidelityTotals {
    /// The sums of `compactions`' figures.
    pub fn of<'a>(compactions: impl IntoIterator<Item = &'a Fidelity>) -> Self {
        let mut totals = FidelityTotals::default();
        for c in compactions {
            for (t, k) in totals.kinds.0.iter_mut().zip(c.kinds.0.iter()) {
                t.facts += k.facts;
                t.survived += k.survived;
                t.needed += k.needed;
                t.needed_lost += k.needed_lost;
            }
        }
        totals
    }

    /// Survived / facts of `kind` over the session (`None` without facts).
    pub fn survival(&self, kind: FactKind) -> Option<f64> {
        let k = self.kinds.get(kind);
        (k.facts > 0).then(|| k.survived as f64 / k.facts as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(kind: FactKind, text: &str, survived: bool, needed: bool) -> FactRecord {
        FactRecord {
            kind,
            text: text.into(),
            survived,
            needed_by: needed.then_some(EventIdx(9)),
            needed_seq: needed.then_some(9),
        }
    }

    #[test]
    fn figures_by_kind_and_the_two_ratios() {
        let f = Fidelity::of(vec![
            fact(FactKind::Path, "src/a.rs", true, true),
            fact(FactKind::Path, "src/b.rs", false, true),
            fact(FactKind::Number, "340ms", false, false),
            fact(FactKind::Error, "E0308", true, false),
        ]);
        assert_eq!(f.fidelity, Some(0.5));
        assert_eq!(f.needed_fidelity, Some(0.5));
        let path = f.kinds.get(FactKind::Path);
        assert_eq!(
            (path.facts, path.survived, path.needed, path.needed_lost),
            (2, 1, 2, 1)
        );
        assert_eq!(path.lost, ["src/b.rs"]);
        // Lost ones first, then by kind.
        assert_eq!(f.facts[0].text, "src/b.rs");
        assert_eq!(f.facts[1].text, "340ms");
        let json = serde_json::to_value(&f).unwrap();
        let kinds = json["kinds"].as_object().unwrap();
        let names: Vec<&str> = kinds.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["path", "command", "identifier", "number", "error", "url"]
        );
        assert_eq!(json["kinds"]["url"]["facts"], 0);
        let totals = FidelityTotals::of([&f, &f]);
        assert_eq!(totals.kinds.get(FactKind::Path).needed_lost, 2);
        assert_eq!(totals.survival(FactKind::Number), Some(0.0));
        assert_eq!(totals.survival(FactKind::Url), None);
    }

    #[test]
    fn nothing_needed_or_no_facts_is_null() {
        let f = Fidelity::of(Vec::new());
        assert_eq!((f.fidelity, f.needed_fidelity), (None, None));
        let json = serde_json::to_value(&f).unwrap();
        assert!(json["fidelity"].is_null() && json["needed_fidelity"].is_null());
    }
}
