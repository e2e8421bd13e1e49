//! `GameRecord`, the wire format of a finished self-play game: on every registered game and
//! every learning target, the learner rebuilds exactly the pairs the actor produced (same
//! positions — same hash and same encoding — same targets, same order); bad and hostile
//! records are refused with a reason, never a panic.

use descent::games::{Action, Game, GameExt, GameSpec, GameVisitor, REGISTERED_GAMES, TicTacToe};
use descent::learn::{ActionSelection, Distribution, Exploitation, Targets};
use descent::search::{RandomEvaluator, SearchSpec, TerminalEval};
use descent::selfplay::recipes::athenan::game_record::{
    GameRecord, MAX_PLANE_VALUE, MAX_RECORD_BYTES, RecordCheck, RecordError, RecordOrigin,
    config_hash,
};
use descent::selfplay::recipes::athenan::learnable_game::Finished;
use descent::selfplay::recipes::athenan::learnable_game::LearnableGame;
use descent::selfplay::recipes::athenan::self_play::{SelfPlaySettings, SelfPlayer};
use descent::selfplay::run::run_progress::RunProgress;
use proptest::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

const RUN: &str = "0123456789abcdef";

fn settings(search: &str, targets: Targets) -> SelfPlaySettings {
    SelfPlaySettings {
        search: SearchSpec::parse(search, true).unwrap(),
        terminal_eval: TerminalEval::Classic,
        targets,
        selection: ActionSelection {
            distribution: Distribution::Ordinal,
            exploitation: Exploitation::Fixed(0.5),
            completed: true,
        },
        keep_resolved: None,
    }
}

/// A self-play game from `start` with `search` and `targets`, as the pool hands it over.
fn self_play<G: Game>(start: &G, search: &str, targets: Targets, seed: u64) -> Finished<G> {
    let mut player = SelfPlayer::<G>::new(settings(search, targets));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let game = player.play(
        start,
        &RandomEvaluator { seed },
        &RunProgress::fixed(0.0),
        &mut rng,
    );
    Finished {
        game,
        index: seed,
        net_version: 3,
        net_seconds: 0.25,
    }
}

fn origin<G: Game>(start: &G) -> RecordOrigin {
    let _ = start;
    RecordOrigin {
        game: G::NAME.to_string(),
        config_hash: RUN.to_string(),
        worker: "test-worker".into(),
    }
}

fn check<G: Game>(learner_version: u64) -> RecordCheck<'static> {
    RecordCheck {
        game: G::NAME,
        config_hash: RUN,
        learner_version,
        handed_out: 1 << 40,
        terminal_eval: TerminalEval::Classic,
    }
}

/// Records `finished`, sends it through bytes, replays it, and checks the learner gets what
/// the actor had: the same encoded pairs in the same order, the same targets, the same game.
/// Returns the record's size in bytes and its pairs sent as planes.
fn round_trip<G: Game>(start: &G, finished: &Finished<G>, what: &str) -> (usize, usize) {
    let record = GameRecord::from_game(start, finished, origin(start));
    let bytes = record.to_bytes();
    let decoded = GameRecord::from_bytes(&bytes).unwrap();
    assert_eq!(decoded, record, "{what}");
    let rebuilt = decoded
        .replay(start, &check::<G>(10))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let sent = LearnableGame::from_finished(finished);
    assert_eq!(rebuilt.pairs.len(), sent.pairs.len(), "{what}");
    assert!(
        rebuilt.pairs.inputs == sent.pairs.inputs,
        "{what}: the same network inputs"
    );
    let bits = |targets: &[f32]| targets.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&rebuilt.pairs.targets),
        bits(&sent.pairs.targets),
        "{what}"
    );
    assert_eq!(
        (
            rebuilt.plies,
            rebuilt.outcome,
            rebuilt.final_value_p0.to_bits()
        ),
        (sent.plies, sent.outcome, sent.final_value_p0.to_bits()),
        "{what}"
    );
    assert_eq!(
        (rebuilt.index, rebuilt.net_version, rebuilt.net_seconds),
        (finished.index, 3, 0.25)
    );
    assert_eq!(rebuilt.search, sent.search);
    (bytes.len(), record.extra_pairs.len())
}

/// A position `plies` moves before the end of a random game (short self-play games).
fn near_the_end<G: Game>(initial: &G, plies: usize, seed: u64) -> G {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut position, mut line, mut actions) = (initial.clone(), Vec::new(), Vec::new());
    while !position.is_terminal() {
        position.legal_actions(&mut actions);
        let action = actions[rng.random_range(0..actions.len())];
        line.push(action);
        position.play(action);
    }
    let mut start = initial.clone();
    for &action in &line[..line.len().saturating_sub(plies)] {
        start.play(action);
    }
    start
}

struct TreeLearningRoundTrip;

impl GameVisitor for TreeLearningRoundTrip {
    type Output = ();
    fn visit<G: Game>(self, initial: G) {
        let start = near_the_end(&initial, 14, 5);
        let finished = self_play(&start, "descent:iters=3", Targets::Tree, 5);
        assert!(!finished.game.pairs.is_empty(), "{}", G::NAME);
        round_trip(&start, &finished, G::NAME);
    }
}

/// Every position of random games encodes within `MAX_PLANE_VALUE` (a record's planes beyond it
/// are refused, so no legal game's may reach it).
struct PlanesWithinTheLimit;

impl GameVisitor for PlanesWithinTheLimit {
    type Output = f32;
    fn visit<G: Game>(self, initial: G) -> f32 {
        let mut largest = 0.0f32;
        let (mut planes, mut actions) = (vec![0.0; G::ENCODING.len()], Vec::new());
        for seed in 0..4 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut position = initial.clone();
            loop {
                position.encode(&mut planes);
                largest = planes.iter().fold(largest, |m, v| m.max(v.abs()));
                if position.is_terminal() {
                    break;
                }
                position.legal_actions(&mut actions);
                position.play(actions[rng.random_range(0..actions.len())]);
            }
        }
        largest
    }
}

#[test]
fn every_game_s_encoding_stays_within_the_plane_limit() {
    for registered in REGISTERED_GAMES {
        let spec: GameSpec = registered.name.parse().unwrap();
        let largest = spec.visit(PlanesWithinTheLimit);
        assert!(
            largest.is_finite() && largest <= MAX_PLANE_VALUE,
            "{}: {largest}",
            registered.name
        );
    }
}

#[test]
fn every_game_s_tree_learning_pairs_arrive_as_they_left() {
    for registered in REGISTERED_GAMES {
        let spec: GameSpec = registered.name.parse().unwrap();
        spec.visit(TreeLearningRoundTrip);
    }
}

#[test]
fn every_search_and_target_round_trips_and_is_far_smaller_than_its_planes() {
    let initial = descent::games::Awale::new(&Default::default());
    for (search, targets) in [
        ("descent:iters=20", Targets::Tree),
        ("ubfm:iters=40", Targets::Tree),
        ("mcts:iters=60", Targets::Tree),
        ("alphabeta:iters=80", Targets::Tree),
        ("descent:iters=20", Targets::Root),
        ("descent:iters=20", Targets::Terminal),
    ] {
        let finished = self_play(&initial, search, targets, 11);
        let what = format!("{search} {targets:?}");
        let (bytes, extras) = round_trip(&initial, &finished, &what);
        let pairs = finished.game.pairs.len();
        // Alpha-beta learns only its exact values: a state under a node holding a bound has no
        // path through learned states and travels as planes.
        if !search.starts_with("alphabeta") {
            assert!(
                extras * 100 <= pairs,
                "{what}: {extras} of {pairs} pairs as planes"
            );
        }
        let planes = finished.game.pairs.len() * descent::games::Awale::ENCODING.len() * 4;
        assert!(
            bytes * 20 < planes,
            "{what}: {bytes} bytes for {} pairs ({planes} bytes of planes)",
            finished.game.pairs.len()
        );
    }
}

#[test]
fn a_pair_without_a_path_from_the_line_travels_as_planes_in_its_place() {
    let initial = TicTacToe::new(&Default::default());
    let mut finished = self_play(&initial, "descent:iters=30", Targets::Root, 4);
    // A position of another game, not reachable through the learned positions of this one.
    let mut stranger = initial;
    stranger.play_moves("c3 a1 b1").unwrap();
    finished.game.pairs.insert(2, (stranger, 0.75));
    let (_, extras) = round_trip(&initial, &finished, "a stranger");
    assert_eq!(extras, 1);
    let record = GameRecord::from_game(&initial, &finished, origin(&initial));
    assert_eq!(
        (record.extra_pairs.clone(), record.extra_targets.clone()),
        (vec![2], vec![0.75])
    );
}

/// A valid record of a tic-tac-toe game with tree learning, and its start.
fn ttt_record() -> (TicTacToe, GameRecord) {
    let initial = TicTacToe::new(&Default::default());
    let finished = self_play(&initial, "descent:iters=30", Targets::Tree, 2);
    let record = GameRecord::from_game(&initial, &finished, origin(&initial));
    assert!(!record.node_parents.is_empty());
    (initial, record)
}

fn refused(record: &GameRecord, learner_version: u64) -> RecordError {
    let initial = TicTacToe::new(&Default::default());
    let bytes = record.to_bytes();
    let decoded = GameRecord::from_bytes(&bytes).unwrap();
    match decoded.replay(&initial, &check::<TicTacToe>(learner_version)) {
        Ok(_) => panic!("accepted: {record:?}"),
        Err(e) => e,
    }
}

#[test]
fn records_of_another_game_run_or_future_version_are_refused() {
    let (_, record) = ttt_record();
    let mut other = record.clone();
    other.origin.game = "awale".into();
    assert!(matches!(refused(&other, 10), RecordError::OtherGame { .. }));
    let mut other = record.clone();
    other.origin.config_hash = config_hash("game: tic_tac_toe\nseed: 2\n");
    assert!(matches!(refused(&other, 10), RecordError::OtherRun { .. }));
    let e = refused(&record, 2);
    assert_eq!(
        e,
        RecordError::FutureVersion {
            found: 3,
            learner: 2
        }
    );
    assert_eq!(
        e.to_string(),
        "played with network version 3, newer than the learner's 2"
    );
}

/// A change to a record.
type Mutation = Box<dyn Fn(&mut GameRecord)>;

/// Changes to a record's moves, each with what its refusal says.
fn move_mutations() -> Vec<(&'static str, Mutation)> {
    vec![
        ("move 9 at ply 0", Box::new(|r| r.moves[0] = 9)),
        ("is not legal", Box::new(|r| r.moves[1] = r.moves[0])),
        (
            "not over",
            Box::new(|r| {
                r.moves.pop();
                r.pair_nodes.pop();
                r.pair_targets.pop();
            }),
        ),
        (
            "after the end",
            Box::new(|r| {
                // x wins on a1 b1 c1 at ply 5; a sixth move follows.
                r.moves = vec![0, 3, 1, 4, 2, 5];
                r.pair_nodes.truncate(1);
                r.pair_targets.truncate(1);
            }),
        ),
        (
            "not before it",
            Box::new(|r| {
                let n = r.moves.len() as u32 + 1 + r.node_parents.len() as u32;
                r.node_parents[0] = n;
            }),
        ),
        (
            "is not legal",
            Box::new(|r| r.node_actions[0] = Action::MAX),
        ),
        ("pair of node", Box::new(|r| r.pair_nodes[0] = u32::MAX)),
        ("target NaN", Box::new(|r| r.pair_targets[0] = f32::NAN)),
        (
            "target inf",
            Box::new(|r| r.pair_targets[0] = f32::INFINITY),
        ),
        (
            "parents",
            Box::new(|r| {
                r.node_actions.pop();
            }),
        ),
        (
            "targets",
            Box::new(|r| {
                r.pair_targets.push(0.0);
            }),
        ),
        ("extra pairs at [0]", Box::new(|r| r.extra_pairs.push(0))),
        (
            "extra pairs at [1, 1]",
            Box::new(|r| {
                r.extra_pairs = vec![1, 1];
                r.extra_targets = vec![0.0; 2];
                r.extra_planes = vec![0.0; 2 * 27];
            }),
        ),
    ]
}

/// Changes to a record's numbers, nodes, targets and planes, each with what its refusal says.
fn content_mutations() -> Vec<(&'static str, Mutation)> {
    vec![
        (
            "but only 1099511627776 were handed out",
            Box::new(|r| r.index = 1 << 63),
        ),
        ("at most 9 plies", Box::new(|r| r.moves = vec![0; 10])),
        (
            "a position sent already",
            Box::new(|r| {
                r.node_parents.push(r.node_parents[0]);
                r.node_actions.push(r.node_actions[0]);
            }),
        ),
        (
            "pairs on",
            Box::new(|r| {
                let nodes = r.moves.len() + 1 + r.node_parents.len();
                r.pair_nodes = vec![0; nodes + 1];
                r.pair_targets = vec![0.0; nodes + 1];
            }),
        ),
        (
            "target 2.5 outside the run's values (at most 2 in magnitude)",
            Box::new(|r| r.pair_targets[0] = 2.5),
        ),
        ("target -1e30", Box::new(|r| r.pair_targets[0] = -1e30)),
        (
            "plane value 2000",
            Box::new(|r| {
                r.extra_pairs = vec![0];
                r.extra_targets = vec![0.0];
                r.extra_planes = vec![2000.0; 27];
            }),
        ),
        (
            "plane value NaN",
            Box::new(|r| {
                r.extra_pairs = vec![0];
                r.extra_targets = vec![0.0];
                r.extra_planes = vec![f32::NAN; 27];
            }),
        ),
    ]
}

/// Changes that make a legal tic-tac-toe record bad, each with what its refusal says.
fn mutations() -> Vec<(&'static str, Mutation)> {
    let mut all = move_mutations();
    all.extend(content_mutations());
    all
}

#[test]
fn illegal_moves_bad_nodes_and_bad_targets_are_refused_with_the_reason() {
    let (_, record) = ttt_record();
    for (expected, mutate) in mutations() {
        let mut bad = record.clone();
        mutate(&mut bad);
        let message = refused(&bad, 10).to_string();
        assert!(message.contains(expected), "{expected:?}: {message}");
    }
}

#[test]
fn garbage_truncated_and_oversized_bytes_are_not_records() {
    let (_, record) = ttt_record();
    let bytes = record.to_bytes();
    for bad in [
        Vec::new(),
        b"hello".to_vec(),
        bytes[..bytes.len() / 2].to_vec(),
        zstd::encode_all(&b"not bincode at all"[..], 1).unwrap(),
    ] {
        assert!(GameRecord::from_bytes(&bad).is_err(), "{bad:?}");
    }
    // A small compressed message that expands past the limit is stopped at the limit.
    let bomb = zstd::encode_all(&vec![0u8; MAX_RECORD_BYTES as usize + 10][..], 19).unwrap();
    assert!(bomb.len() < 1 << 20);
    let e = GameRecord::from_bytes(&bomb).unwrap_err();
    assert!(e.to_string().contains("larger than"), "{e}");
    // Another format number.
    let mut newer = record.clone();
    newer.format = 99;
    assert_eq!(
        GameRecord::from_bytes(&newer.to_bytes()).unwrap_err(),
        RecordError::Format { found: 99 }
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Damaged bytes (before compression: the decoder sees a valid stream of wrong content)
    /// are refused or replay into a legal game, never a panic.
    #[test]
    fn damaged_records_never_panic(flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6)) {
        let (initial, record) = ttt_record();
        let mut plain = bincode::serde::encode_to_vec(&record, bincode::config::standard()).unwrap();
        for (at, byte) in flips {
            let at = at % plain.len();
            plain[at] ^= byte;
        }
        let bytes = zstd::encode_all(plain.as_slice(), 1).unwrap();
        if let Ok(decoded) = GameRecord::from_bytes(&bytes)
            && let Ok(game) = decoded.replay(&initial, &check::<TicTacToe>(u64::MAX))
        {
            prop_assert!(game.pairs.targets.iter().all(|v| v.is_finite()));
        }
    }
}
