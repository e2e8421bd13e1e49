//! One grammar, one error type and one name per setting for every spec a user writes: a game
//! spec, an agent spec, the YAML `search:` section and an experiment's `set:` name a search's
//! settings alike, take spaces after commas alike and fail with the same `ConfigError`.

use descent::arena::AgentSpec;
use descent::experiment::ExperimentConfig;
use descent::games::GameSpec;
use descent::search::SearchSpec;
use descent::selfplay::TrainConfig;
use descent::settings::ConfigError;

/// The self-play search of a training file.
fn yaml_search(yaml: &str) -> Result<SearchSpec, ConfigError> {
    let config = TrainConfig::from_yaml(&format!("game: tic_tac_toe\n{yaml}\n"))?;
    Ok(config.validate()?.athenan().unwrap().search.clone())
}

/// The self-play search of an experiment's variant `set:` (dotted keys).
fn experiment_search(set: &str) -> SearchSpec {
    let text = format!(
        "train_time: 10s\nstage_every: 5s\ngame: tic_tac_toe\nvariants:\n  - name: a\n    set: {{{set}}}\n  - name: b\n"
    );
    let config = ExperimentConfig::from_yaml(&text).unwrap();
    let plan = config
        .plan("x", 1, &|_| anyhow::bail!("no base"))
        .unwrap_or_else(|e| panic!("{set}: {e:#}"));
    plan.variants[0].settings[0]
        .athenan()
        .unwrap()
        .search
        .clone()
}

#[test]
fn a_search_setting_has_one_name_in_agent_specs_yaml_and_experiments() {
    for (agent, yaml, dotted) in [
        (
            "mcts:iters=300, c=0.3",
            "search: {algorithm: mcts, iters: 300, c: 0.3}",
            "search.algorithm: mcts, search.iters: 300, search.c: 0.3",
        ),
        (
            "alphabeta:depth=3, iters=200",
            "search: {algorithm: alphabeta, depth: 3, iters: 200}\nselection: {distribution: epsilon-greedy}",
            "search.algorithm: alphabeta, search.depth: 3, search.iters: 200, selection.distribution: epsilon-greedy",
        ),
        (
            "ubfm:iters=40, time=1s, completed=false",
            "search: {algorithm: ubfm, iters: 40, time: 1s, completed: false}",
            "search.algorithm: ubfm, search.iters: 40, search.time: 1s, search.completed: false",
        ),
    ] {
        // The agent's search as it plays with a network (self-play's always has one).
        let from_agent = SearchSpec::parse(agent, true).unwrap();
        let spaces_nowhere = SearchSpec::parse(&agent.replace(", ", ","), true).unwrap();
        assert_eq!(from_agent, spaces_nowhere, "{agent}");
        assert!(agent.parse::<AgentSpec>().is_ok(), "{agent}");
        assert_eq!(yaml_search(yaml).unwrap(), from_agent, "{yaml}");
        assert_eq!(experiment_search(dotted), from_agent, "{dotted}");
    }
    let spaced: GameSpec = "hex(board_size=13, swap=false)".parse().unwrap();
    assert_eq!(
        spaced,
        "hex( board_size = 13 ,swap=false )".parse().unwrap()
    );
    assert_eq!(spaced.to_string(), "hex(board_size=13,swap=false)");
}

#[test]
fn every_spec_fails_with_the_same_error_naming_the_spec_and_the_key() {
    let game: ConfigError = "hex(board_size=13, size=3)"
        .parse::<GameSpec>()
        .unwrap_err();
    assert_eq!(game.key, "game \"hex(board_size=13, size=3)\"");
    assert!(
        game.message
            .starts_with("unknown key \"size\" for hex (valid keys: board_size=11"),
        "{game}"
    );
    let agent: ConfigError = "mcts:iters=300, size=3".parse::<AgentSpec>().unwrap_err();
    assert_eq!(agent.key, "agent \"mcts:iters=300, size=3\"");
    assert!(
        agent
            .message
            .starts_with("unknown key \"size\" (valid keys: iters"),
        "{agent}"
    );
    for (spec, key) in [
        ("hex(swap=true, swap=false)", "swap"),
        ("go(komi=7, komi=6)", "komi"),
    ] {
        let twice = spec.parse::<GameSpec>().unwrap_err();
        assert_eq!(twice.message, format!("key {key:?} given twice"), "{spec}");
    }
    let twice = "mcts:c=1, c=2".parse::<AgentSpec>().unwrap_err();
    assert!(
        twice.message.starts_with("key \"c\" given twice"),
        "{twice}"
    );
    let bad = "hex(board_size=99)".parse::<GameSpec>().unwrap_err();
    assert!(
        bad.message.starts_with("board_size=\"99\" is not "),
        "{bad}"
    );
    let bad = "mcts:iters=lots".parse::<AgentSpec>().unwrap_err();
    assert!(bad.message.starts_with("iters=\"lots\" is not "), "{bad}");
    let yaml = yaml_search("search: {algorithm: mcts, c: -1}").unwrap_err();
    assert_eq!(yaml.key, "search.c");
}

/// What alpha-beta's self-play needs beside its search.
const GREEDY: &str = "\nselection: {distribution: epsilon-greedy}";

/// Files written before the YAML took the agent spec's names still load, with a notice; an old
/// name beside its new one is refused, naming both.
#[test]
fn old_yaml_search_names_are_read_and_refused_beside_their_new_name() {
    let old = yaml_search("search: {algorithm: mcts, iterations: 300, exploration: 0.3}").unwrap();
    assert_eq!(
        old,
        SearchSpec::parse("mcts:iters=300,c=0.3", true).unwrap()
    );
    let old = yaml_search(&format!(
        "search: {{algorithm: alphabeta, iterations: 200, max_depth: 3}}{GREEDY}"
    ))
    .unwrap();
    assert_eq!(
        old,
        yaml_search(&format!(
            "search: {{algorithm: alphabeta, iters: 200, depth: 3}}{GREEDY}"
        ))
        .unwrap()
    );
    let time_only = yaml_search("search: {iterations: null, time: 1s}").unwrap();
    assert_eq!(
        time_only,
        yaml_search("search: {iters: null, time: 1s}").unwrap()
    );
    let both = yaml_search("search: {iterations: 300, iters: 200}").unwrap_err();
    assert_eq!(both.key, "search.iterations");
    assert!(both.message.contains("search.iters"), "{both}");
    // The run directory's config.yaml is written with the new names only.
    let config = TrainConfig::from_yaml("game: tic_tac_toe\nsearch: {max_depth: 3}\n").unwrap();
    let written = config.to_yaml();
    assert!(
        written.contains("depth: 3") && !written.contains("max_depth"),
        "{written}"
    );
    assert_eq!(config.search.depth, 3);
    let experiment = experiment_search("search.algorithm: mcts, search.exploration: 0.3");
    assert_eq!(
        experiment,
        SearchSpec::parse("mcts:iters=500,c=0.3", true).unwrap()
    );
}
