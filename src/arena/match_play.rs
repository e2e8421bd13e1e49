//! Matches: `games` games between two agents, alternating colours (the agent is P0 in the even
//! games), each game seeded from the match seed and its index — so a match with iteration budgets
//! replays game for game, whatever the number of threads. In a one-player game P1 never moves:
//! the even games are the agent's alone, the odd ones the opponent's, and the report compares
//! their scores (`MatchReport::scores`).
//!
//! With `Openings` of n plies, games 2k and 2k + 1 start from the same opening — n uniformly
//! random legal moves from the start, drawn from the openings' own seed and k — the agent
//! playing it as P0 in the first and as P1 in the second, so that deterministic players do not
//! play the same game over and over and each opening is played with both colours. The
//! openings' seed is apart from the match's: every match given the same `Openings` plays the
//! same openings.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use serde::Serialize;

use super::agent::{AgentFactory, AgentRng};
use super::score_statistics::ScoreComparison;
use super::statistics::ResultSummary;
use crate::games::{Game, Player};
use crate::search::StopToken;

/// One finished game of a match.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct GameRecord {
    /// Index in the match (0-based).
    pub index: u64,
    /// The seed of the game's random number generator.
    pub seed: u64,
    /// The side the (first-named) agent played: "p0" or "p1".
    pub agent_side: String,
    /// The moves in the game's notation, the opening's included.
    pub moves: Vec<String>,
    /// How many of `moves` were the random opening's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub opening_plies: u32,
    /// The outcome from P0's point of view: 1, 0 or -1.
    pub result_p0: i8,
    /// The outcome from the agent's point of view: 1, 0 or -1.
    pub agent_result: i8,
    /// P0's score minus P1's, in games with a score.
    pub score_p0: Option<i32>,
}

/// A finished match, from the first agent's side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchReport {
    pub agent: String,
    pub opponent: String,
    /// Wins, draws, losses with the agent as P0, then as P1.
    pub as_p0: [u64; 3],
    pub as_p1: [u64; 3],
    pub summary: ResultSummary,
    /// One-player games: the agent's scores against the opponent's (the outcomes, all draws
    /// short of a record, say nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<ScoreComparison>,
    pub games: Vec<GameRecord>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The random openings a match's games start from (none by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Openings {
    /// Random plies before the players take over.
    pub plies: u32,
    /// The seed the openings are drawn from.
    pub seed: u64,
}

impl Openings {
    /// The opening of game `index` from `initial`: the position reached and its moves. Games
    /// 2k and 2k + 1 share it; an opening that ends the game stops there.
    pub fn opening<G: Game>(&self, initial: &G, index: u64) -> (G, Vec<String>) {
        let mut rng = AgentRng::seed_from_u64(game_seed(self.seed, index / 2));
        let (mut position, mut moves, mut actions) = (initial.clone(), Vec::new(), Vec::new());
        for _ in 0..self.plies {
            if position.is_terminal() {
                break;
            }
            position.legal_actions(&mut actions);
            let action = actions[rng.random_range(0..actions.len())];
            moves.push(position.move_to_text(action));
            position.play(action);
        }
        (position, moves)
    }
}

/// The seed of game `index` of a match seeded `seed` (SplitMix64 of both).
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How a match is played: its seed and threads, and when it ends early — no move after
/// `deadline` (the game in play is dropped), no new game once `stop` is stopped (the games in
/// play finish: a Ctrl-C keeps what is played).
#[derive(Clone, Copy, Debug)]
pub struct MatchRun<'a> {
    pub seed: u64,
    pub threads: usize,
    pub deadline: Option<Instant>,
    pub stop: Option<&'a StopToken>,
}

impl<'a> MatchRun<'a> {
    /// A match that plays all its games.
    pub fn new(seed: u64, threads: usize) -> Self {
        MatchRun {
            seed,
            threads,
            deadline: None,
            stop: None,
        }
    }

    /// Starting no new game once `stop` is stopped.
    pub fn stopped_by(self, stop: &'a StopToken) -> Self {
        MatchRun {
            stop: Some(stop),
            ..self
        }
    }

    /// Starting no move after `deadline`.
    pub fn until(self, deadline: Option<Instant>) -> Self {
        MatchRun { deadline, ..self }
    }

    /// The same with another seed.
    pub fn seeded(self, seed: u64) -> Self {
        MatchRun { seed, ..self }
    }

    fn is_stopped(&self) -> bool {
        self.stop.is_some_and(StopToken::is_stopped)
    }
}

/// Plays `games` games between `agent` and `opponent` on `threads` threads; `on_game` is
/// called after each game (in completion order).
pub fn play_match<G: Game>(
    initial: &G,
    agent: &AgentFactory<G>,
    opponent: &AgentFactory<G>,
    games: u64,
    seed: u64,
    threads: usize,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> MatchReport {
    let from = (initial, Openings::default());
    play_match_from(from, [agent, opponent], games, (seed, threads), on_game)
}

/// `play_match` with each game started from its opening of `openings`.
pub fn play_match_from<G: Game>(
    from: (&G, Openings),
    agents: [&AgentFactory<G>; 2],
    games: u64,
    seed_threads: (u64, usize),
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> MatchReport {
    let run = MatchRun::new(seed_threads.0, seed_threads.1);
    play_match_until(from, agents, games, run, on_game)
}

/// `play_match_from` that ends early as `run` says: past its deadline a game in play is left
/// unfinished and not reported (the report counts the games finished).
pub fn play_match_until<G: Game>(
    (initial, openings): (&G, Openings),
    [agent, opponent]: [&AgentFactory<G>; 2],
    games: u64,
    run: MatchRun<'_>,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> MatchReport {
    let (seed, threads, deadline) = (run.seed, run.threads, run.deadline);
    let next = AtomicU64::new(0);
    let records = Mutex::new(Vec::with_capacity(games as usize));
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, games.max(1) as usize) {
            scope.spawn(|| {
                // A match's network passes stay on its own thread (and core).
                crate::value::direct::cpu_net::keep_passes_on_this_thread();
                let mut players = [agent.build(), opponent.build()];
                // After a stop request (Ctrl-C) no new game starts; those in play finish.
                while !run.is_stopped() {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        break;
                    }
                    let start = openings.opening(initial, index);
                    let seed = game_seed(seed, index);
                    let Some(record) = play_game(start, &mut players, (index, seed), deadline)
                    else {
                        break;
                    };
                    on_game(&record);
                    records.lock().expect("records lock").push(record);
                }
            });
        }
    });
    let records = records.into_inner().expect("records lock");
    let names = [agent.spec.to_string(), opponent.spec.to_string()];
    MatchReport::from_records(names, records, G::ONE_PLAYER)
}

impl MatchReport {
    /// The report of the games `records` (any order) between `agent` and `opponent`; in a
    /// one-player game (`one_player`) it compares their scores too.
    pub fn from_records(
        [agent, opponent]: [String; 2],
        mut records: Vec<GameRecord>,
        one_player: bool,
    ) -> MatchReport {
        records.sort_by_key(|r| r.index);
        let mut tally = [[0u64; 3]; 2];
        for record in &records {
            let side = usize::from(record.agent_side == "p1");
            tally[side][(1 - record.agent_result) as usize] += 1;
        }
        let [as_p0, as_p1] = tally;
        let scores = one_player.then(|| {
            let side_scores = |side: &str| -> Vec<i32> {
                let played = records.iter().filter(|r| r.agent_side == side);
                played.map(|r| r.score_p0.unwrap_or(0)).collect()
            };
            ScoreComparison::new(&side_scores("p0"), &side_scores("p1"))
        });
        MatchReport {
            agent,
            opponent,
            as_p0,
            as_p1,
            summary: ResultSummary::new(
                as_p0[0] + as_p1[0],
                as_p0[1] + as_p1[1],
                as_p0[2] + as_p1[2],
            ),
            scores,
            games: records,
        }
    }
}

/// Plays game `index` of a match from `start` (the opening's position and moves):
/// `players[0]` (the agent) is P0 when `index` is even. `None`: `deadline` came first.
fn play_game<G: Game>(
    (mut position, mut moves): (G, Vec<String>),
    players: &mut [Box<dyn super::agent::Agent<G>>; 2],
    (index, seed): (u64, u64),
    deadline: Option<Instant>,
) -> Option<GameRecord> {
    let opening_plies = moves.len() as u32;
    let mut rng = AgentRng::seed_from_u64(seed);
    let agent_side = if index.is_multiple_of(2) {
        Player::P0
    } else {
        Player::P1
    };
    for player in players.iter_mut() {
        player.new_game();
    }
    while !position.is_terminal() {
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            return None;
        }
        let mover = position.to_move();
        let who = usize::from(mover != agent_side);
        let choice = players[who].choose_move(&position, &mut rng);
        moves.push(position.move_to_text(choice.action));
        position.play(choice.action);
    }
    let result_p0 = position.outcome().expect("the game is over").value_p0() as i8;
    Some(GameRecord {
        index,
        seed,
        agent_side: if agent_side == Player::P0 { "p0" } else { "p1" }.to_string(),
        moves,
        opening_plies,
        result_p0,
        agent_result: result_p0 * agent_side.sign() as i8,
        score_p0: position.score_p0(),
    })
}
