//! The keys a run's file does not name (`TrainConfig::keys_not_named_in`): those its descent
//! did not have yet, which a resume names and which are no change to what the run learned.

use crate::common::without_line;

use descent::selfplay::config::TrainConfig;

#[test]
fn a_resolved_file_names_every_key_and_an_older_one_lacks_the_new_keys() {
    let config = TrainConfig::from_yaml("game: connect_four\n").unwrap();
    let resolved = config.to_yaml();
    assert_eq!(config.keys_not_named_in(&resolved), Vec::new());

    // The same file written before `learning.rows_per_evaluation` existed.
    let older = without_line(&resolved, "rows_per_evaluation");
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

#[test]
fn another_recipe_lacks_no_athenan_key_and_an_old_name_names_its_key() {
    let config = TrainConfig::from_yaml(
        "game: connect_four\nrecipe: alphazero\nalphazero:\n  random_opening_plies: 4\n",
    )
    .unwrap();
    let resolved = config.to_yaml();
    let older = without_line(&resolved, "rows_per_evaluation");
    assert_eq!(config.keys_not_named_in(&older), Vec::new());
    let older = without_line(&resolved, "q_ratio");
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
    let without_replay = without_section(&resolved, "replay");
    let missing = config.keys_not_named_in(&without_replay);
    let keys: Vec<&str> = missing.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, vec!["replay"]);

    let short = config.keys_not_named_in("game: connect_four\n");
    assert!(short.iter().any(|(k, _)| k == "run"), "{short:?}");
    assert!(!short.iter().any(|(k, _)| k == "game"), "{short:?}");
}

#[test]
fn a_change_to_a_key_the_file_lacks_is_no_change_and_one_to_a_named_key_is() {
    let trained = TrainConfig::from_yaml("game: connect_four\n").unwrap();
    let resolved = trained.to_yaml();
    // Written before `learning.rows_per_evaluation` and the `replay:` section existed.
    let older = without_section(&without_line(&resolved, "rows_per_evaluation"), "replay");
    let changed = TrainConfig::from_yaml(
        "game: connect_four\nseed: 7\nlearning: {rows_per_evaluation: 0.5}\n\
         replay: {games: 9, duplication: 2}\n",
    )
    .unwrap();
    let changes = changed.changed_keys(&trained);
    assert_eq!(
        changes,
        [
            "learning.rows_per_evaluation",
            "replay.duplication",
            "replay.games",
            "seed"
        ]
    );
    assert_eq!(trained.changes_named_in(&older, changes.clone()), ["seed"]);
    assert_eq!(
        trained.changes_named_in(&resolved, changes.clone()),
        changes
    );
}

/// `text` without its top-level `section:` and the indented lines under it.
fn without_section(text: &str, section: &str) -> String {
    let kept: String = text
        .split_inclusive('\n')
        .scan(false, |in_section, line| {
            if !line.starts_with(' ') {
                *in_section = line.starts_with(&format!("{section}:"));
            }
            Some((!*in_section).then_some(line))
        })
        .flatten()
        .collect();
    assert_ne!(kept, text, "no {section}: in the text");
    kept
}
