//! Money summed over calls (or over sessions) that may not all be priced. "Unpriced" is never
//! 0: the sum is known only when every item it adds up is priced, and what it does know — the
//! priced items' part and how many it leaves out — is kept beside it for a report to say so
//! ("0.07 USD over 3 of 5 sessions"). The fields are private, so a cost can only be read
//! through [`CostSum::whole`] (`None` unless complete) or [`CostSum::priced_part`].

use super::money::round_money;

/// A sum of costs, each known or not.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CostSum {
    /// Σ of the known costs.
    priced: f64,
    /// Items with a known cost.
    priced_items: u64,
    /// Items without one.
    unpriced_items: u64,
}

impl CostSum {
    /// Adds one item's cost (`None`: it has no price).
    pub fn add(&mut self, cost: Option<f64>) {
        match cost {
            Some(c) => {
                self.priced += c;
                self.priced_items += 1;
            }
            None => self.unpriced_items += 1,
        }
    }

    /// Adds another sum's items.
    pub fn merge(&mut self, other: &CostSum) {
        self.priced += other.priced;
        self.priced_items += other.priced_items;
        self.unpriced_items += other.unpriced_items;
    }

    /// The sum, when every item is priced (rounded as [`round_money`] says); `None` when any
    /// is not.
    pub fn whole(&self) -> Option<f64> {
        (self.unpriced_items == 0).then(|| round_money(self.priced))
    }

    /// The sum of the priced items only, when there are some (`None`: nothing is priced).
    pub fn priced_part(&self) -> Option<f64> {
        (self.priced_items > 0).then(|| round_money(self.priced))
    }

    /// Items with a cost.
    pub fn priced_items(&self) -> u64 {
        self.priced_items
    }

    /// Items without one: left out of [`CostSum::priced_part`].
    pub fn unpriced_items(&self) -> u64 {
        self.unpriced_items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_unpriced_item_makes_the_whole_unknown_and_the_part_says_what_it_covers() {
        let mut s = CostSum::default();
        assert_eq!(s.whole(), Some(0.0), "nothing to pay for costs nothing");
        assert_eq!(s.priced_part(), None);
        s.add(Some(0.1));
        s.add(Some(0.2));
        assert_eq!(s.whole(), Some(0.3), "rounded: not 0.30000000000000004");
        s.add(None);
        assert_eq!(s.whole(), None);
        assert_eq!(s.priced_part(), Some(0.3));
        assert_eq!((s.priced_items(), s.unpriced_items()), (2, 1));
        let mut none = CostSum::default();
        none.add(None);
        assert_eq!((none.whole(), none.priced_part()), (None, None));
        let mut all = CostSum::default();
        all.add(Some(1.0));
        all.merge(&none);
        assert_eq!((all.whole(), all.priced_part()), (None, Some(1.0)));
    }
}
