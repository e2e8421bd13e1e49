//! The share of perfect moves (`arena::perfect_moves`): the shipped set is what the solver's
//! sampler makes with seed 1 and its scores are the solver's; a player reading the scores is
//! perfect and one taking the worst column never is; a random player's count agrees with the
//! share the scores predict; the count does not depend on the threads; bad lines are refused
//! with their number.

use descent::arena::perfect_moves::{
    SHIPPED_POSITIONS, ScoredPosition, ScoredPositionSampler, count_perfect_moves,
    parse_scored_positions,
};
use descent::arena::{Agent, AgentFactory, AgentRng, AgentSpec, MoveChoice};
use descent::games::{Action, ConnectFour, Game};
use descent::search::connect_four_solver::ConnectFourSolver;
use descent::value::NetDevice;

fn shipped() -> Vec<ScoredPosition> {
    parse_scored_positions(SHIPPED_POSITIONS).expect("the shipped set parses")
}

#[test]
fn the_shipped_set_is_the_samplers_output_with_seed_1_and_the_solvers_scores() {
    let positions = shipped();
    assert!(positions.len() >= 1000, "{} positions", positions.len());
    let mut distinct = std::collections::HashSet::new();
    for scored in &positions {
        assert!(scored.is_informative(), "{}", scored.to_line());
        assert!(
            (8..=20).contains(&scored.moves.len()),
            "{}",
            scored.to_line()
        );
        assert!(
            distinct.insert(scored.position().hash()),
            "{}",
            scored.to_line()
        );
    }
    let mut solver = ConnectFourSolver::default();
    // The sampler draws positions one after another: its first five are the file's first five.
    assert_eq!(
        ScoredPositionSampler::new(8..=20, 1, ConnectFourSolver::default())
            .take(5)
            .collect::<Vec<_>>(),
        positions[..5]
    );
    // Deeper positions solve fast: re-score every one from ply 16 on.
    let mut checked = 0;
    for scored in positions.iter().filter(|p| p.moves.len() >= 16) {
        let scores = solver.column_scores(&scored.position());
        assert_eq!(scores, scored.column_scores, "{}", scored.to_line());
        checked += 1;
    }
    assert!(checked >= 200, "{checked}");
}

/// data/connect_four_critical_positions.txt: 600 positions where one or two moves keep the
/// result, the sampler's output with seed 2 and `--max-perfect 2`, scored by the solver.
#[test]
fn the_critical_set_is_the_samplers_output_with_seed_2_at_most_two_perfect_moves() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/connect_four_critical_positions.txt"
    ))
    .unwrap();
    let positions = parse_scored_positions(&text).expect("the critical set parses");
    assert_eq!(positions.len(), 600);
    for scored in &positions {
        assert!(
            (1..=2).contains(&scored.perfect_moves()),
            "{}",
            scored.to_line()
        );
    }
    let sampled: Vec<ScoredPosition> =
        ScoredPositionSampler::new(8..=20, 2, ConnectFourSolver::default())
            .with_max_perfect(2)
            .take(3)
            .collect();
    assert_eq!(sampled, positions[..3]);
    let mut solver = ConnectFourSolver::default();
    for scored in positions.iter().filter(|p| p.moves.len() >= 18) {
        assert_eq!(
            solver.column_scores(&scored.position()),
            scored.column_scores
        );
    }
}

#[test]
fn critical_positions_are_the_shipped_samples_where_at_most_k_moves_keep_the_result() {
    let positions = shipped();
    // The 20 deepest plies solve fastest: sample 16-20, with and without the filter.
    let all: Vec<ScoredPosition> =
        ScoredPositionSampler::new(16..=20, 3, ConnectFourSolver::default())
            .take(60)
            .collect();
    let critical: Vec<ScoredPosition> =
        ScoredPositionSampler::new(16..=20, 3, ConnectFourSolver::default())
            .with_max_perfect(2)
            .take(10)
            .collect();
    let expected: Vec<&ScoredPosition> = all.iter().filter(|p| p.perfect_moves() <= 2).collect();
    assert!(expected.len() >= 10, "{} of 60 critical", expected.len());
    assert_eq!(critical.iter().collect::<Vec<_>>(), expected[..10]);
    for scored in &critical {
        let keeping = (0..7).filter(|&c| scored.is_perfect(c)).count();
        assert!((1..=2).contains(&keeping), "{}", scored.to_line());
    }
    // On the shipped set, the count agrees with the column scores read by hand.
    let line = &positions[0];
    let by_hand = line
        .column_scores
        .iter()
        .flatten()
        .filter(|&&s| s.signum() == line.score().signum())
        .count();
    assert_eq!(line.perfect_moves(), by_hand);
}

/// Plays the column of the best (or the worst) score, as the solver gives them.
struct ScoreReader {
    solver: ConnectFourSolver,
    worst: bool,
}

impl Agent<ConnectFour> for ScoreReader {
    fn new_game(&mut self) {}

    fn choose_move(&mut self, position: &ConnectFour, _: &mut AgentRng) -> MoveChoice {
        let scores = self.solver.column_scores(position);
        let legal = (0..ConnectFour::COLS).filter_map(|c| scores[c].map(|s| (s, c)));
        let (_, column) = if self.worst {
            legal.min().unwrap()
        } else {
            legal.max().unwrap()
        };
        MoveChoice {
            action: column as Action,
            value_p0: None,
        }
    }

    fn set_time_per_move(&mut self, _: std::time::Duration) {}
}

fn reader(worst: bool) -> Box<dyn Agent<ConnectFour>> {
    Box::new(ScoreReader {
        solver: ConnectFourSolver::with_table_entries(1 << 17),
        worst,
    })
}

#[test]
fn a_player_reading_the_scores_is_perfect_and_one_taking_the_worst_never_is() {
    let positions: Vec<ScoredPosition> = shipped()
        .into_iter()
        .filter(|p| p.moves.len() >= 16)
        .take(60)
        .collect();
    let best = count_perfect_moves(&positions, (1, 1, None), &|| reader(false), &|_| {});
    assert_eq!(best.all.positions, 60);
    assert_eq!((best.all.perfect, best.all.fastest), (60, 60));
    assert_eq!(best.won.positions + best.drawn.positions, 60);
    assert_eq!(best.lost.positions, 0, "a lost position is not informative");
    let worst = count_perfect_moves(&positions, (2, 1, None), &|| reader(true), &|_| {});
    assert_eq!((worst.all.positions, worst.all.perfect), (60, 0));
}

fn factory(spec: &str) -> AgentFactory<ConnectFour> {
    let spec: AgentSpec = spec.parse().unwrap();
    AgentFactory::new(spec, "connect_four", &NetDevice::cpu()).unwrap()
}

#[test]
fn a_random_players_count_agrees_with_the_share_the_scores_predict() {
    let positions = shipped();
    let random = factory("random");
    let tally = count_perfect_moves(&positions, (2, 3, None), &|| random.build(), &|_| {});
    // Each position: a Bernoulli draw with p = perfect columns / legal columns.
    let (mut mean, mut variance) = (0.0, 0.0);
    for scored in &positions {
        let legal = scored.column_scores.iter().flatten().count() as f64;
        let perfect = (0..ConnectFour::COLS as Action)
            .filter(|&c| scored.is_perfect(c))
            .count() as f64;
        let p = perfect / legal;
        mean += p;
        variance += p * (1.0 - p);
    }
    let deviation = (tally.all.perfect as f64 - mean).abs() / variance.sqrt();
    assert!(
        deviation < 4.0,
        "{} perfect, expected {mean:.1} ± {:.1}",
        tally.all.perfect,
        variance.sqrt()
    );
    assert!(tally.all.fastest <= tally.all.perfect);
}

#[test]
fn the_count_does_not_depend_on_the_threads() {
    let positions: Vec<ScoredPosition> = shipped().into_iter().take(40).collect();
    let mcts = factory("mcts:iters=60");
    let one = count_perfect_moves(&positions, (1, 9, None), &|| mcts.build(), &|_| {});
    let two = count_perfect_moves(&positions, (2, 9, None), &|| mcts.build(), &|_| {});
    assert_eq!(one, two);
}

#[test]
fn bad_lines_are_refused_with_their_number_and_what_was_expected() {
    let good = "4453 -5 -5 -2 -3 -4 -2 -2";
    for (line, expected) in [
        (
            "4483 -5 -5 -2 -3 -4 -2 -2",
            "ply 3: '8' is not a column 1-7",
        ),
        (
            "4453 -5 -5 -2 -3 -4 -2",
            "6 scores after the moves, expected 7",
        ),
        ("4453 -5 -5 -2 -3 -4 -2 x", "column 7: \"x\" is not a score"),
        (
            "4453 -5 -5 -2 -3 -4 -2 99",
            "column 7: 99 is not a score from -21 to 21",
        ),
        ("1111111 -5 -5 -2 -3 -4 -2 -2", "ply 7"),
        (
            "111111 -5 -5 -2 -3 -4 -2 -2",
            "column 1: full, expected -1000",
        ),
        (
            "1212121 0 0 0 0 0 0 0",
            "the game is over after these moves",
        ),
        ("12121213 0 0 0 0 0 0 0", "ply 8: the game is over"),
        ("121212 0 0 0 0 0 0 0", ""),
    ] {
        let text = format!("# a comment\n{good}\n\n{line}\n");
        match parse_scored_positions(&text) {
            Ok(positions) => assert!(expected.is_empty() && positions.len() == 2, "{line}"),
            Err(error) => assert!(
                error.0.starts_with("line 4: ") && error.0.contains(expected),
                "{line}: {error}"
            ),
        }
    }
}
