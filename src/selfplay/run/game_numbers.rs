//! `GameNumbers`: a set of game numbers kept as ranges — the games a distributed learner has
//! taken (learned or dropped), saved in every checkpoint so that a game sent again, before or
//! after a resume, is refused instead of learned twice. Numbers are handed out in order by
//! one counter, so the set is a few ranges whatever the run's length (one more per game lost
//! in a killed worker).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A set of game numbers: disjoint, non-adjacent ranges `start..end`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameNumbers {
    /// `start → end` (exclusive).
    ranges: BTreeMap<u64, u64>,
}

impl GameNumbers {
    /// Whether `number` is in the set.
    pub fn contains(&self, number: u64) -> bool {
        self.ranges
            .range(..=number)
            .next_back()
            .is_some_and(|(_, &end)| number < end)
    }

    /// Adds `number`; false if it was in the set already.
    pub fn insert(&mut self, number: u64) -> bool {
        if self.contains(number) {
            return false;
        }
        let end = number.saturating_add(1);
        let before = self
            .ranges
            .range(..number)
            .next_back()
            .filter(|(_, e)| **e == number)
            .map(|(&s, _)| s);
        let after = self.ranges.remove(&end);
        let start = before.unwrap_or(number);
        self.ranges.insert(start, after.unwrap_or(end));
        true
    }

    /// Numbers in the set.
    pub fn len(&self) -> u64 {
        self.ranges.iter().map(|(s, e)| e - s).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges, in order.
    pub fn ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().map(|(&s, &e)| (s, e))
    }
}

impl Serialize for GameNumbers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.ranges().map(|(s, e)| [s, e]))
    }
}

impl<'de> Deserialize<'de> for GameNumbers {
    /// Ranges `[start, end]` with `start < end`, increasing and apart.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let pairs = Vec::<[u64; 2]>::deserialize(deserializer)?;
        let mut ranges = BTreeMap::new();
        let mut last_end = None;
        for [start, end] in pairs {
            if start >= end || last_end.is_some_and(|last| start <= last) {
                return Err(serde::de::Error::custom(format!(
                    "game numbers: range [{start}, {end}] is empty, out of order or touches the one before"
                )));
            }
            ranges.insert(start, end);
            last_end = Some(end);
        }
        Ok(GameNumbers { ranges })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a plain set: the same members, the same answers to insert, ranges kept
        /// apart, and a round trip through JSON.
        #[test]
        fn behaves_as_a_set(numbers in proptest::collection::vec(0u64..64, 0..80)) {
            let mut set = GameNumbers::default();
            let mut reference = std::collections::BTreeSet::new();
            for n in numbers {
                prop_assert_eq!(set.insert(n), reference.insert(n));
            }
            for n in 0..66 {
                prop_assert_eq!(set.contains(n), reference.contains(&n), "{}", n);
            }
            prop_assert_eq!(set.len(), reference.len() as u64);
            let ranges: Vec<_> = set.ranges().collect();
            for w in ranges.windows(2) {
                prop_assert!(w[0].1 < w[1].0, "{:?}", ranges);
            }
            let json = serde_json::to_string(&set).unwrap();
            prop_assert_eq!(serde_json::from_str::<GameNumbers>(&json).unwrap(), set);
        }
    }

    #[test]
    fn consecutive_numbers_are_one_range_and_extremes_work() {
        let mut set = GameNumbers::default();
        for n in (0..1000).rev() {
            assert!(set.insert(n));
        }
        assert_eq!(set.ranges().collect::<Vec<_>>(), [(0, 1000)]);
        assert!(set.insert(u64::MAX - 1));
        assert!(set.contains(u64::MAX - 1) && !set.contains(u64::MAX));
        assert!(!set.contains(1000) && !set.contains(u64::MAX - 2));
    }

    #[test]
    fn bad_ranges_are_refused() {
        for bad in ["[[3,3]]", "[[5,9],[1,2]]", "[[1,4],[4,6]]", "[[1]]"] {
            assert!(serde_json::from_str::<GameNumbers>(bad).is_err(), "{bad}");
        }
    }
}
