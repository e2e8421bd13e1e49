//! The files of `configs/` and their documentation: every configuration parses and validates,
//! every experiment plans, and the key blocks of `configs/README.md` are the real defaults.

use std::path::Path;

use descent::experiment::ExperimentConfig;
use descent::selfplay::TrainConfig;

const CONFIGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs");

/// The YAML blocks of configs/README.md, in order.
fn readme_yaml_blocks() -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(CONFIGS).join("README.md")).unwrap();
    text.split("```yaml\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap().to_string())
        .collect()
}

#[test]
fn every_configuration_parses_and_validates() {
    let mut files = 0;
    for entry in std::fs::read_dir(CONFIGS).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("experiment-") {
            let config =
                ExperimentConfig::from_yaml(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let plan = config
                .plan("x", 2, &|base| {
                    Ok(std::fs::read_to_string(Path::new(CONFIGS).join(base))?)
                })
                .unwrap_or_else(|e| panic!("{name}: {e:#}"));
            assert!(plan.variants.len() >= 2, "{name}");
        } else {
            let config = TrainConfig::from_yaml(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let settings = config.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
            // The paper's configurations run as the paper did: one game at a time (Remark 19).
            if name.starts_with("paper-") {
                assert_eq!(settings.run.threads, 1, "{name}");
            }
        }
    }
    assert!(files >= 6);
}

#[test]
fn the_documented_training_keys_are_the_defaults() {
    let blocks = readme_yaml_blocks();
    let documented =
        TrainConfig::from_yaml(&blocks[0]).expect("the README's training block parses");
    let defaults = TrainConfig::from_yaml("game: awale").unwrap();
    assert_eq!(documented, defaults);
}

#[test]
fn the_documented_experiment_keys_are_the_defaults() {
    let blocks = readme_yaml_blocks();
    let documented =
        ExperimentConfig::from_yaml(&blocks[1]).expect("the README's experiment block parses");
    let minimal = ExperimentConfig::from_yaml(
        "train_time: 48h\nstage_every: 1h\nvariants:\n  - name: descent-tree\n",
    )
    .unwrap();
    assert_eq!(documented, minimal);
}
