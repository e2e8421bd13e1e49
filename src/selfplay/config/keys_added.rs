//! Keys a configuration file does not name. On a run's own file (its resolved configuration,
//! every key written) those are the keys descent gained after the run: resumed, or trained
//! again from a shipped network's file, they take today's defaults, which may not be what the
//! run did. `descent train --resume` names them; networks/README.md lists the shipped files'.

use serde_json::Value;

use super::key_paths::{is_at_or_under, key_paths, value_at};
use super::{RecipeName, SearchSection, TrainConfig};

/// The Athénan recipe's sections, which the other recipes do not read (but for
/// `learning.augment_symmetries`): a key added there is no key of theirs.
const ATHENAN_SECTIONS: [&str; 5] = [
    "search",
    "learning",
    "selection",
    "replay",
    "resolved_states",
];

impl TrainConfig {
    /// The keys of this configuration (defaults filled in) that `text`, the file it was read
    /// from, does not name, each with its value here (`learning.rows_per_evaluation: 0.12`);
    /// a whole section the file lacks is one entry; a key under its old name is named, and the
    /// Athénan sections count only in Athénan runs. Empty for text that is not YAML.
    pub fn keys_not_named_in(&self, text: &str) -> Vec<(String, Value)> {
        let Ok(written) = serde_saphyr::from_str::<Value>(text) else {
            return Vec::new();
        };
        let resolved = serde_json::to_value(self).expect("a config serialises");
        let mut named = key_paths(&written);
        for (old, new) in SearchSection::OLD_NAMES {
            if named.contains(&format!("search.{old}")) {
                named.insert(format!("search.{new}"));
            }
        }
        let mut has = key_paths(&resolved);
        if self.recipe != RecipeName::Athenan {
            has.retain(|key| !athenan_only(key));
        }
        let missing: Vec<&String> = has.difference(&named).collect();
        missing
            .iter()
            .filter(|key| {
                // A key inside a missing section is named by its section.
                !missing
                    .iter()
                    .any(|section| key.as_str() != section.as_str() && is_at_or_under(key, section))
            })
            .map(|key| {
                let value = value_at(&resolved, key).cloned().unwrap_or(Value::Null);
                ((*key).clone(), value)
            })
            .collect()
    }

    /// Of `changes` (dotted keys, as `changed_keys` names them), those that `text`, this
    /// configuration's own file, names: a key the file lacks, or one inside a section it lacks,
    /// did not exist in the descent that wrote it, so a value set there now is no change.
    pub fn changes_named_in(&self, text: &str, changes: Vec<String>) -> Vec<String> {
        let lacking = self.keys_not_named_in(text);
        changes
            .into_iter()
            .filter(|key| !lacking.iter().any(|(new, _)| is_at_or_under(key, new)))
            .collect()
    }
}

/// Whether `key` is in a section only the Athénan recipe reads.
fn athenan_only(key: &str) -> bool {
    let section = key.split('.').next().unwrap_or(key);
    ATHENAN_SECTIONS.contains(&section) && key != "learning.augment_symmetries" && key != "learning"
}
