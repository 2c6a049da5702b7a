//! A platform's evidence by metric key: a list kept in key order, each
//! entry carrying its own key. A thousand platforms' evidence is read for
//! every ranking; as a `BTreeMap<String, Evidence>` each platform's score
//! or so metrics took three or four tree nodes of 1.5 KiB and every key
//! twice, as a list they take one allocation at their size. It reads and
//! writes as a map (`{"key": evidence, …}`), as the map did.

use std::fmt;
use std::ops::Index;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Evidence;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvidenceMap(Vec<Evidence>);

impl EvidenceMap {
    pub fn new() -> EvidenceMap {
        EvidenceMap::default()
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|e| e.key.as_str().cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&Evidence> {
        self.position(key).ok().map(|i| &self.0[i])
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Evidence> {
        self.position(key).ok().map(|i| &mut self.0[i])
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_ok()
    }

    /// Add a metric's evidence under its key; what was there before under
    /// that key is handed back.
    pub fn insert(&mut self, evidence: Evidence) -> Option<Evidence> {
        match self.position(&evidence.key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i], evidence)),
            Err(i) => {
                self.0.insert(i, evidence);
                None
            }
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<Evidence> {
        self.position(key).ok().map(|i| self.0.remove(i))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each metric's key and evidence, in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Evidence)> {
        self.0.iter().map(|e| (e.key.as_str(), e))
    }

    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.0.iter().map(|e| e.key.as_str())
    }

    pub fn values(&self) -> std::slice::Iter<'_, Evidence> {
        self.0.iter()
    }

    /// Each metric's evidence, to change all but its key.
    pub fn values_mut(&mut self) -> impl ExactSizeIterator<Item = &mut Evidence> {
        self.0.iter_mut()
    }

    /// From a list already in key order without repeats (as written by
    /// `Serialize`); anything else is put in order, the last of a repeated
    /// key kept, as `collect` does.
    fn from_list(mut list: Vec<Evidence>) -> EvidenceMap {
        if !list.is_sorted_by(|a, b| a.key < b.key) {
            // A stable sort keeps repeats in their order; the last wins.
            list.sort_by(|a, b| a.key.cmp(&b.key));
            list.dedup_by(|later, earlier| {
                let repeat = later.key == earlier.key;
                if repeat {
                    std::mem::swap(later, earlier);
                }
                repeat
            });
        }
        EvidenceMap(list)
    }
}

impl FromIterator<Evidence> for EvidenceMap {
    fn from_iter<I: IntoIterator<Item = Evidence>>(iter: I) -> EvidenceMap {
        EvidenceMap::from_list(iter.into_iter().collect())
    }
}

impl IntoIterator for EvidenceMap {
    type Item = Evidence;
    type IntoIter = std::vec::IntoIter<Evidence>;

    /// Each metric's evidence, in key order.
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl Index<&str> for EvidenceMap {
    type Output = Evidence;

    /// The evidence of `key`; panics where there is none, as a map does
    /// (tests and code that has just checked).
    fn index(&self, key: &str) -> &Evidence {
        self.get(key)
            .unwrap_or_else(|| panic!("no evidence for metric {key}"))
    }
}

impl Serialize for EvidenceMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for e in &self.0 {
            map.serialize_entry(&e.key, e)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for EvidenceMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<EvidenceMap, D::Error> {
        struct Entries;

        impl<'de> Visitor<'de> for Entries {
            type Value = EvidenceMap;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of metric keys to their evidence")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EvidenceMap, A::Error> {
                let mut list = Vec::with_capacity(map.size_hint().unwrap_or(0).min(256));
                while let Some((key, mut evidence)) = map.next_entry::<String, Evidence>()? {
                    // The map's key is the one it was filed under.
                    evidence.key = key;
                    list.push(evidence);
                }
                Ok(EvidenceMap::from_list(list))
            }
        }

        deserializer.deserialize_map(Entries)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    fn evidence(key: &str, value: f64) -> Evidence {
        Evidence::without_sources(key, value, value, value)
    }

    proptest! {
        /// Whatever is inserted, collected or removed, it answers as a
        /// `BTreeMap` keyed the same way does, and lists in the same order.
        #[test]
        fn it_answers_as_a_map_does(
            collected in proptest::collection::vec((0u8..12, -5.0f64..5.0), 0..20),
            inserted in proptest::collection::vec((0u8..12, -5.0f64..5.0), 0..10),
            removed in proptest::collection::vec(0u8..12, 0..5),
        ) {
            let key = |k: u8| format!("m.{k:02}");
            let mut ours: EvidenceMap =
                collected.iter().map(|(k, v)| evidence(&key(*k), *v)).collect();
            let mut theirs: BTreeMap<String, Evidence> =
                collected.iter().map(|(k, v)| (key(*k), evidence(&key(*k), *v))).collect();
            for (k, v) in &inserted {
                prop_assert_eq!(
                    ours.insert(evidence(&key(*k), *v)),
                    theirs.insert(key(*k), evidence(&key(*k), *v))
                );
            }
            for k in &removed {
                prop_assert_eq!(ours.remove(&key(*k)), theirs.remove(&key(*k)));
            }
            prop_assert_eq!(ours.len(), theirs.len());
            for k in 0..12 {
                prop_assert_eq!(ours.get(&key(k)), theirs.get(&key(k)));
                prop_assert_eq!(ours.contains_key(&key(k)), theirs.contains_key(&key(k)));
            }
            let listed: Vec<(&str, &Evidence)> = ours.iter().collect();
            let expected: Vec<(&str, &Evidence)> =
                theirs.iter().map(|(k, e)| (k.as_str(), e)).collect();
            prop_assert_eq!(listed, expected);
            // Written and read as the map is.
            prop_assert_eq!(
                serde_json::to_string(&ours).unwrap(),
                serde_json::to_string(&theirs).unwrap()
            );
            let back: EvidenceMap =
                serde_json::from_str(&serde_json::to_string(&theirs).unwrap()).unwrap();
            prop_assert_eq!(back, ours);
        }
    }

    #[test]
    fn a_map_read_files_each_evidence_under_its_key_in_key_order() {
        let json = r#"{"b": {"key": "b", "value": 2, "min": 2, "max": 2, "runs": [], "details": []},
                       "a": {"key": "x", "value": 1, "min": 1, "max": 1, "runs": [], "details": []}}"#;
        let map: EvidenceMap = serde_json::from_str(json).unwrap();
        assert_eq!(map.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(map["a"].value, 1.0);
        assert!(serde_json::from_str::<EvidenceMap>("[1, 2]").is_err());
    }
}
