//! Dotted key paths (`learning.rows_per_evaluation`) into a configuration as a JSON value: every
//! key a value holds, the keys two values differ at, and whether a key lies under a section.

use std::collections::BTreeSet;

use serde_json::Value;

/// The dotted path of every key in `value`, sections included (`learning` and
/// `learning.rows_per_evaluation`).
pub(super) fn key_paths(value: &Value) -> BTreeSet<String> {
    let mut paths = BTreeSet::new();
    collect(value, "", &mut paths);
    paths
}

fn collect(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    if let Value::Object(map) = value {
        for (key, child) in map {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            collect(child, &path, out);
            out.insert(path);
        }
    }
}

/// The value at dotted `key` in `value`, if there is one.
pub(super) fn value_at<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.pointer(&format!("/{}", key.replace('.', "/")))
}

/// The dotted keys whose values differ between `mine` and `theirs`, in key order: a key absent
/// on one side counts as null there, and a section that is a section on only one side is one
/// key (its inner keys are not listed).
pub(super) fn differing_keys(mine: &Value, theirs: &Value) -> Vec<String> {
    let is_section_on_both = |key: &str| {
        let section = |value| value_at(value, key).is_some_and(Value::is_object);
        section(mine) && section(theirs)
    };
    let mut keys = key_paths(mine);
    keys.extend(key_paths(theirs));
    keys.into_iter()
        .filter(|key| match key.rsplit_once('.') {
            Some((parent, _)) => is_section_on_both(parent),
            None => true,
        })
        .filter(|key| {
            let (a, b) = (value_at(mine, key), value_at(theirs, key));
            !is_section_on_both(key) && a.unwrap_or(&Value::Null) != b.unwrap_or(&Value::Null)
        })
        .collect()
}

/// Whether dotted `key` is `section` itself or a key inside it (`run.threads` is under `run`;
/// `runs` is not).
pub(super) fn is_at_or_under(key: &str, section: &str) -> bool {
    key.strip_prefix(section)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differing_keys_name_leaves_and_a_section_on_one_side_once() {
        let mine = json!({"a": {"b": 1, "c": {"d": 2}}, "e": 3, "f": {"g": 4}});
        let theirs = json!({"a": {"b": 1, "c": {"d": 5}}, "e": null, "f": 7, "h": 8});
        assert_eq!(differing_keys(&mine, &theirs), ["a.c.d", "e", "f", "h"]);
        assert_eq!(differing_keys(&mine, &mine), Vec::<String>::new());
        assert_eq!(
            key_paths(&mine).into_iter().collect::<Vec<_>>(),
            ["a", "a.b", "a.c", "a.c.d", "e", "f", "f.g"]
        );
    }

    #[test]
    fn a_key_is_under_its_section_and_not_under_a_longer_name() {
        assert!(is_at_or_under("run.threads", "run"));
        assert!(is_at_or_under("run", "run"));
        assert!(!is_at_or_under("runs", "run"));
        assert!(!is_at_or_under("ru", "run"));
    }
}
