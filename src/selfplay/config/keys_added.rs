//! Keys a configuration file does not name. On a run's own file (its resolved configuration,
//! every key written) those are the keys descent gained after the run: resumed, or trained
//! again from a shipped network's file, they take today's defaults, which may not be what the
//! run did. `descent train --resume` names them; networks/README.md lists the shipped files'.

use std::collections::BTreeSet;

use serde_json::Value;

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
        let mut named = BTreeSet::new();
        key_paths(&written, "", &mut named);
        for (old, new) in SearchSection::OLD_NAMES {
            if named.contains(&format!("search.{old}")) {
                named.insert(format!("search.{new}"));
            }
        }
        let mut has = BTreeSet::new();
        key_paths(&resolved, "", &mut has);
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
                    .any(|section| key.starts_with(&format!("{section}.")))
            })
            .map(|key| {
                let pointer = format!("/{}", key.replace('.', "/"));
                let value = resolved.pointer(&pointer).cloned().unwrap_or(Value::Null);
                ((*key).clone(), value)
            })
            .collect()
    }
}

/// Whether `key` is in a section only the Athénan recipe reads.
fn athenan_only(key: &str) -> bool {
    let section = key.split('.').next().unwrap_or(key);
    ATHENAN_SECTIONS.contains(&section) && key != "learning.augment_symmetries" && key != "learning"
}

/// The dotted path of every key in `value` (`learning.rows_per_evaluation`), sections included.
fn key_paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    if let Value::Object(map) = value {
        for (key, child) in map {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            key_paths(child, &path, out);
            out.insert(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resolved_file_names_every_key_and_an_older_one_lacks_the_new_keys() {
        let config = TrainConfig::from_yaml("game: connect_four\n").unwrap();
        let resolved = config.to_yaml();
        assert_eq!(config.keys_not_named_in(&resolved), Vec::new());

        // The same file written before `learning.rows_per_evaluation` existed.
        let older = without(&resolved, "rows_per_evaluation");
        let config = TrainConfig::from_yaml(&older).unwrap();
        let missing = config.keys_not_named_in(&older);
        assert_eq!(
            missing,
            vec![(
                "learning.rows_per_evaluation".to_string(),
                serde_json::json!(0.12)
            )]
        );
    }

    /// `text` without its lines that contain `needle`.
    fn without(text: &str, needle: &str) -> String {
        let kept: String = text
            .split_inclusive('\n')
            .filter(|line| !line.contains(needle))
            .collect();
        assert_ne!(kept, text, "{needle} not in the text");
        kept
    }

    #[test]
    fn another_recipe_lacks_no_athenan_key_and_an_old_name_names_its_key() {
        let config = TrainConfig::from_yaml(
            "game: connect_four\nrecipe: alphazero\nalphazero:\n  random_opening_plies: 4\n",
        )
        .unwrap();
        let resolved = config.to_yaml();
        let older = without(&resolved, "rows_per_evaluation");
        assert_eq!(config.keys_not_named_in(&older), Vec::new());
        let older = without(&resolved, "q_ratio");
        let keys: Vec<String> = config
            .keys_not_named_in(&older)
            .into_iter()
            .map(|k| k.0)
            .collect();
        assert_eq!(keys, ["alphazero.q_ratio"]);

        let athenan = TrainConfig::from_yaml("game: connect_four\n").unwrap();
        let resolved = athenan.to_yaml();
        assert!(resolved.contains("  iters: 500\n"), "{resolved}");
        let old_name = resolved.replace("  iters: 500\n", "  iterations: 500\n");
        let config = TrainConfig::from_yaml(&old_name).unwrap();
        assert_eq!(config, athenan);
        assert_eq!(config.keys_not_named_in(&old_name), Vec::new());
    }

    #[test]
    fn a_missing_section_is_named_once_and_a_short_file_lacks_most_keys() {
        let config = TrainConfig::from_yaml("game: connect_four\n").unwrap();
        let resolved = config.to_yaml();
        let without_replay: String = resolved
            .split_inclusive('\n')
            .scan(false, |in_replay, line| {
                if !line.starts_with(' ') {
                    *in_replay = line.starts_with("replay:");
                }
                Some((!*in_replay).then_some(line))
            })
            .flatten()
            .collect();
        let missing = config.keys_not_named_in(&without_replay);
        let keys: Vec<&str> = missing.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, vec!["replay"]);

        let short = config.keys_not_named_in("game: connect_four\n");
        assert!(short.iter().any(|(k, _)| k == "run"), "{short:?}");
        assert!(!short.iter().any(|(k, _)| k == "game"), "{short:?}");
    }
}
