//! Terminal evaluations f_t, the reinforcement heuristics of docs/algorithms.md §5 (paper section
//! 6). Each keeps the order of the classic gain (wins > draws > losses), from P0's point of view.
//! Completion values always use the classic gain b_t; only `v` uses f_t.

use crate::games::{Game, Outcome};

/// Which terminal evaluation to use, with its parameters. Serialised (in network manifests) as
/// `{"kind": "additive_depth", "max_length": 120.0, "estimated": true}`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TerminalEval {
    /// b_t: +1 / 0 / -1 (the network's output layer uses tanh).
    Classic,
    /// For a P0 / P1 win ±l, 0 for a draw, p the plies played: with the game's maximum length
    /// P given, l = P − p + 1; with an estimate P̃ of it (`estimated`, the longest of random
    /// games), l = max(1, P̃ − p) — the paper's two forms (section 6.2.2).
    AdditiveDepth {
        max_length: f32,
        /// Absent from manifests written before the estimated form existed, whose runs used
        /// P − p + 1 with either.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        estimated: bool,
    },
    /// ±P'/p, `mean_length` P' the (empirical) mean game length.
    MultiplicativeDepth { mean_length: f32 },
    /// The game's final score P0 minus P1, at least +1 for a P0 win and at most -1 for a loss.
    Score,
    /// M0/M1 if P0 wins, -M1/M0 if P1 wins (Mi: mean legal actions at player i's turns), 0 if draw.
    Mobility,
    /// max(n0 - n1, 1) if P0 wins, min(n0 - n1, -1) if P1 wins, 0 if draw (ni: pieces on board;
    /// in Awale, whose finished board is empty, the seeds in each row before the final sweep).
    Presence,
}

/// The configuration's name (`learning.terminal_eval`) with the resolved parameter, e.g.
/// `classic`, `additive-depth(max_length=42)`, `additive-depth(estimated max_length=57)`.
impl std::fmt::Display for TerminalEval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TerminalEval::Classic => f.write_str("classic"),
            TerminalEval::AdditiveDepth {
                max_length,
                estimated,
            } => {
                let estimated = if *estimated { "estimated " } else { "" };
                write!(f, "additive-depth({estimated}max_length={max_length})")
            }
            TerminalEval::MultiplicativeDepth { mean_length } => {
                write!(f, "multiplicative-depth(mean_length={mean_length})")
            }
            TerminalEval::Score => f.write_str("score"),
            TerminalEval::Mobility => f.write_str("mobility"),
            TerminalEval::Presence => f.write_str("presence"),
        }
    }
}

/// The largest score or piece difference `TerminalEval::value_bound` allows for (its square
/// stays far within f32's range, so no loss overflows).
pub const SCORE_BOUND: f32 = 10_000.0;

impl TerminalEval {
    /// f_t of a finished game, from P0's point of view. Panics if the game is not over.
    pub fn value_p0<G: Game>(&self, position: &G) -> f32 {
        let outcome = position
            .outcome()
            .expect("terminal evaluation of a position still in play");
        if G::ONE_PLAYER && *self == TerminalEval::Score {
            // The record-based value of a one-player game: its score.
            return position.score_p0().unwrap_or(0) as f32;
        }
        if outcome == Outcome::Draw {
            return 0.0;
        }
        let sign = outcome.value_p0();
        match *self {
            TerminalEval::Classic => sign,
            TerminalEval::AdditiveDepth {
                max_length,
                estimated,
            } => {
                let exact = if estimated { 0.0 } else { 1.0 };
                sign * (max_length - position.ply() as f32 + exact).max(1.0)
            }
            TerminalEval::MultiplicativeDepth { mean_length } => {
                sign * mean_length / position.ply().max(1) as f32
            }
            TerminalEval::Score => {
                let score = position.score_p0().unwrap_or(0) as f32;
                if sign > 0.0 {
                    score.max(1.0)
                } else {
                    score.min(-1.0)
                }
            }
            TerminalEval::Mobility => {
                let sums = position.mobility_sums();
                let turns = position.plies_by_player();
                let mean = |i: usize| {
                    if turns[i] == 0 {
                        1.0
                    } else {
                        (sums[i] as f32 / turns[i] as f32).max(1e-3)
                    }
                };
                if sign > 0.0 {
                    mean(0) / mean(1)
                } else {
                    -mean(1) / mean(0)
                }
            }
            TerminalEval::Presence => {
                let [n0, n1] = position.piece_counts();
                let diff = n0 as f32 - n1 as f32;
                if sign > 0.0 {
                    diff.max(1.0)
                } else {
                    diff.min(-1.0)
                }
            }
        }
    }

    /// What f_t reads of a terminal position beyond its Zobrist hash (which covers the board,
    /// the scores and the player to move): the ply for the depth heuristics, the ply, the
    /// mobility sums and P0's share of the plies for mobility, the pieces for presence (Awale's are
    /// swept off the final board); 0 when it reads nothing more. The search table keys terminal
    /// states with it, so that two paths to the same final board keep their own values.
    pub fn path_key<G: Game>(&self, position: &G) -> u64 {
        match self {
            TerminalEval::Classic | TerminalEval::Score => 0,
            // The pieces before a final sweep (Awale) are not in the final board's hash.
            TerminalEval::Presence => {
                let [n0, n1] = position.piece_counts();
                (1 + n0 as u64) | ((n1 as u64) << 32)
            }
            TerminalEval::AdditiveDepth { .. } | TerminalEval::MultiplicativeDepth { .. } => {
                position.ply() as u64 + 1
            }
            TerminalEval::Mobility => {
                let [m0, m1] = position.mobility_sums();
                let [p0_plies, _] = position.plies_by_player();
                ((position.ply() as u64 + 1) | (m0 as u64) << 20 | (m1 as u64) << 42)
                    ^ (p0_plies as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            }
        }
    }

    /// The largest magnitude a value of this run may have in `G`: twice the largest |f_t| (the
    /// network's estimates of positions in play lie between the terminal values, and may
    /// overshoot them while it learns). A learning target beyond it is no value of the run:
    /// a game record carrying one is refused. Score and presence are differences of counts
    /// that no registered game takes near `SCORE_BOUND`.
    pub fn value_bound<G: Game>(&self) -> f32 {
        let largest = match *self {
            TerminalEval::Classic => 1.0,
            TerminalEval::AdditiveDepth { max_length, .. } => max_length.max(0.0) + 1.0,
            TerminalEval::MultiplicativeDepth { mean_length } => mean_length.max(1.0),
            // A mean of at most NUM_ACTIONS legal moves over one of at least 1e-3.
            TerminalEval::Mobility => G::NUM_ACTIONS as f32 * 1e3,
            TerminalEval::Score | TerminalEval::Presence => SCORE_BOUND,
        };
        2.0 * largest
    }

    /// Whether values stay within [-1, 1] (a tanh output fits them).
    pub fn is_bounded(&self) -> bool {
        matches!(self, TerminalEval::Classic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Awale, AwaleParams, GameExt, TicTacToe};

    #[test]
    fn names_are_the_configuration_names_with_their_parameters() {
        assert_eq!(TerminalEval::Classic.to_string(), "classic");
        assert_eq!(
            exact_additive(42.0).to_string(),
            "additive-depth(max_length=42)"
        );
        assert_eq!(
            estimated_additive(57.0).to_string(),
            "additive-depth(estimated max_length=57)"
        );
        assert_eq!(
            TerminalEval::MultiplicativeDepth { mean_length: 30.5 }.to_string(),
            "multiplicative-depth(mean_length=30.5)"
        );
        assert_eq!(TerminalEval::Presence.to_string(), "presence");
    }

    fn exact_additive(max_length: f32) -> TerminalEval {
        TerminalEval::AdditiveDepth {
            max_length,
            estimated: false,
        }
    }

    fn estimated_additive(max_length: f32) -> TerminalEval {
        TerminalEval::AdditiveDepth {
            max_length,
            estimated: true,
        }
    }

    fn ttt(moves: &str) -> TicTacToe {
        let mut p = TicTacToe::new(&Default::default());
        p.play_moves(moves).unwrap();
        p
    }

    #[test]
    fn heuristics_on_a_p0_win_in_five_plies() {
        // x: a1 b1 c1 (top row), o: a2 b2. P0 wins at ply 5.
        let p = ttt("a1 a2 b1 b2 c1");
        assert_eq!(TerminalEval::Classic.value_p0(&p), 1.0);
        assert_eq!(exact_additive(9.0).value_p0(&p), 5.0);
        assert_eq!(
            TerminalEval::MultiplicativeDepth { mean_length: 7.5 }.value_p0(&p),
            1.5
        );
        // Mobility: P0 had 9, 7, 5 legal moves (mean 7), P1 8, 6 (mean 7): 7/7.
        assert_eq!(TerminalEval::Mobility.value_p0(&p), 1.0);
        // Presence: 3 - 2 = 1.
        assert_eq!(TerminalEval::Presence.value_p0(&p), 1.0);
        // No score in tic-tac-toe: a win is worth at least 1.
        assert_eq!(TerminalEval::Score.value_p0(&p), 1.0);
    }

    #[test]
    fn heuristics_on_a_p1_win_and_a_draw() {
        // o takes the middle column: x a1 c1 a3, o b1 b2 b3; P1 wins at ply 6.
        let p = ttt("a1 b1 c1 b2 a3 b3");
        assert_eq!(p.outcome(), Some(Outcome::WinP1));
        assert_eq!(TerminalEval::Classic.value_p0(&p), -1.0);
        assert_eq!(exact_additive(9.0).value_p0(&p), -4.0);
        assert_eq!(
            TerminalEval::MultiplicativeDepth { mean_length: 6.0 }.value_p0(&p),
            -1.0
        );
        // P0 had 9, 7, 5 (mean 7), P1 8, 6, 4 (mean 6): -6/7.
        assert!((TerminalEval::Mobility.value_p0(&p) - (-6.0 / 7.0)).abs() < 1e-6);
        // Presence 3 - 3 = 0, kept at most -1 for a loss.
        assert_eq!(TerminalEval::Presence.value_p0(&p), -1.0);
        let draw = ttt("b2 a1 c1 a3 a2 c2 b1 b3 c3");
        assert_eq!(draw.outcome(), Some(Outcome::Draw));
        for h in [
            TerminalEval::Classic,
            TerminalEval::Score,
            TerminalEval::Mobility,
            TerminalEval::Presence,
        ] {
            assert_eq!(h.value_p0(&draw), 0.0);
        }
    }

    #[test]
    fn heuristics_at_their_edges() {
        let p0_win = ttt("a1 a2 b1 b2 c1"); // ply 5
        let p1_win = ttt("a1 b1 c1 b2 a3 b3"); // ply 6
        // Additive depth at and past its length: ±1, never the other sign. P − p + 1 with the
        // game's length, max(1, P̃ − p) with an estimate (section 6.2.2).
        assert_eq!(exact_additive(6.0).value_p0(&p0_win), 2.0);
        assert_eq!(exact_additive(5.0).value_p0(&p0_win), 1.0);
        assert_eq!(exact_additive(3.0).value_p0(&p0_win), 1.0);
        assert_eq!(exact_additive(4.0).value_p0(&p1_win), -1.0);
        assert_eq!(estimated_additive(9.0).value_p0(&p0_win), 4.0);
        assert_eq!(estimated_additive(9.0).value_p0(&p1_win), -3.0);
        assert_eq!(estimated_additive(6.0).value_p0(&p0_win), 1.0);
        assert_eq!(estimated_additive(5.0).value_p0(&p0_win), 1.0);
        // The score of a game without one: a P1 win is still at most -1.
        assert_eq!(TerminalEval::Score.value_p0(&p1_win), -1.0);
    }

    /// Each player's mean number of legal moves at their turns, counted by replaying `moves`.
    fn mean_mobility<G: Game>(initial: &G, moves: &[crate::games::Action]) -> [f32; 2] {
        let mut position = initial.clone();
        let (mut sums, mut turns) = ([0u32; 2], [0u32; 2]);
        let mut actions = Vec::new();
        for &action in moves {
            let mover = (position.to_move() == crate::games::Player::P1) as usize;
            position.legal_actions(&mut actions);
            sums[mover] += actions.len() as u32;
            turns[mover] += 1;
            position.play(action);
        }
        [0, 1].map(|i| sums[i] as f32 / turns[i] as f32)
    }

    /// Mobility on `games` random games of `initial` equals the ratio of means counted by
    /// replaying the moves with their movers; returns how many decided games had unequal
    /// means, P0 wins then P1 wins.
    fn mobility_matches_a_replay<G: Game>(initial: &G, games: usize, seed: u64) -> [usize; 2] {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut unequal = [0, 0];
        for _ in 0..games {
            let mut position = initial.clone();
            let mut moves = Vec::new();
            let mut actions = Vec::new();
            while !position.is_terminal() {
                position.legal_actions(&mut actions);
                let action = actions[rng.random_range(0..actions.len())];
                moves.push(action);
                position.play(action);
            }
            let [m0, m1] = mean_mobility(initial, &moves);
            let expected = match position.outcome().unwrap() {
                Outcome::WinP0 => m0 / m1,
                Outcome::WinP1 => -m1 / m0,
                Outcome::Draw => 0.0,
            };
            let value = TerminalEval::Mobility.value_p0(&position);
            let tolerance = 1e-5 * expected.abs().max(1.0);
            assert!(
                (value - expected).abs() < tolerance,
                "{}: {value} vs {expected}",
                G::NAME
            );
            if (m0 - m1).abs() > 0.1 && expected != 0.0 {
                unequal[(expected < 0.0) as usize] += 1;
            }
        }
        unequal
    }

    #[test]
    fn mobility_is_the_ratio_of_the_players_mean_mobilities() {
        let unequal = mobility_matches_a_replay(&Awale::new(&AwaleParams::default()), 200, 4);
        assert!(unequal[0] > 10 && unequal[1] > 10, "{unequal:?}");
    }

    /// Per mover, not by ply parity: Connect6's two stones a turn, Arimaa's setup and steps,
    /// Santorini's placements (parity gave Connect6's P0 the mean of P1's turns and the reverse).
    #[test]
    fn mobility_counts_each_movers_own_actions() {
        use crate::games::{Arimaa, Connect6, Santorini};
        let decided = mobility_matches_a_replay(&Connect6::new(&Default::default()), 20, 5);
        assert!(decided[0] + decided[1] > 5, "{decided:?}");
        mobility_matches_a_replay(&Arimaa::new(&Default::default()), 4, 6);
        mobility_matches_a_replay(&Santorini::new(&Default::default()), 20, 7);
    }

    #[test]
    fn presence_on_awale_counts_the_rows_before_the_final_sweep() {
        // P0 plays F: sows a and b to 2 each, captures both (f keeps 1: no grand slam), reaches
        // 25 > 24 and the game ends; then P0 sweeps A's 4 seeds, P1 f's 1.
        let mut p = Awale::from_description(
            AwaleParams::default(),
            "4 0 0 0 0 2 / 1 1 0 0 0 1 ; 21 18 ; p0",
        )
        .unwrap();
        p.play(5);
        assert_eq!(p.outcome(), Some(Outcome::WinP0));
        assert_eq!(p.score_p0(), Some(29 - 19));
        assert_eq!(p.piece_counts(), [4, 1]);
        assert_eq!(TerminalEval::Presence.value_p0(&p), 3.0);
        assert_eq!(TerminalEval::Score.value_p0(&p), 10.0);
    }

    #[test]
    fn score_heuristic_uses_awale_seeds() {
        // P0 captures to 25 and P1 takes the 3 seeds of its row: 25 - 23.
        let mut p = Awale::from_description(
            AwaleParams::default(),
            "0 0 0 0 0 1 / 1 3 0 0 0 0 ; 23 20 ; p0",
        )
        .unwrap();
        p.play(5);
        assert_eq!(TerminalEval::Score.value_p0(&p), 2.0);
    }
}
