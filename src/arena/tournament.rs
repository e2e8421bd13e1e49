//! All-play-all tournaments: every pair of agents plays a match (both colours), then the score
//! matrix, the significance relation of the Awale MCTS thesis ("i is stronger than j" when i's wins over j
//! are significant by the one-sided exact binomial test at 5 %, draws left out — 32 of 50
//! decisive games), and Bradley-Terry ratings anchored on one agent.

use serde::Serialize;

use super::agent::AgentFactory;
use super::match_play::{GameRecord, MatchReport, game_seed, play_match};
use super::statistics::{Ratings, binomial_p_at_least, bradley_terry};
use crate::games::Game;

/// Significance level of the "stronger than" relation.
pub const SIGNIFICANCE: f64 = 0.05;

#[derive(Clone, Debug, Serialize)]
pub struct TournamentReport {
    pub agents: Vec<String>,
    pub games_per_pair: u64,
    /// `score[i][j]`: the fraction of the points agent i took from agent j (win 1, draw ½);
    /// `None` on the diagonal.
    pub score: Vec<Vec<Option<f64>>>,
    /// `stronger[i][j]`: i beat j significantly (one-sided exact binomial p < 0.05).
    pub stronger: Vec<Vec<bool>>,
    /// `p_value_stronger[i][j]`: the one-sided p-value of "i is not stronger than j".
    pub p_value_stronger: Vec<Vec<Option<f64>>>,
    pub ratings: Ratings,
    /// Every match, `agents[i]` vs `agents[j]` for i < j, in order.
    pub matches: Vec<MatchReport>,
}

/// Plays every pair of `agents` for `games_per_pair` games (even: both colours equally).
pub fn play_tournament<G: Game>(
    initial: &G,
    agents: &[AgentFactory<G>],
    games_per_pair: u64,
    seed: u64,
    threads: usize,
    anchor: usize,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> TournamentReport {
    let k = agents.len();
    let mut points = vec![vec![0.0f64; k]; k];
    let mut games = vec![vec![0.0f64; k]; k];
    let mut p_value_stronger = vec![vec![None; k]; k];
    let mut stronger = vec![vec![false; k]; k];
    let mut matches = Vec::new();
    let mut pair = 0u64;
    for i in 0..k {
        for j in i + 1..k {
            let report = play_match(
                initial,
                &agents[i],
                &agents[j],
                games_per_pair,
                game_seed(seed, pair),
                threads,
                on_game,
            );
            pair += 1;
            let s = &report.summary;
            points[i][j] = s.wins as f64 + 0.5 * s.draws as f64;
            points[j][i] = s.losses as f64 + 0.5 * s.draws as f64;
            games[i][j] = s.games as f64;
            games[j][i] = s.games as f64;
            // j's side of the same sign test: its wins among the decisive games.
            let j_better = binomial_p_at_least(s.losses, s.wins + s.losses, 0.5);
            p_value_stronger[i][j] = Some(s.p_value_better);
            p_value_stronger[j][i] = Some(j_better);
            stronger[i][j] = s.p_value_better < SIGNIFICANCE;
            stronger[j][i] = j_better < SIGNIFICANCE;
            matches.push(report);
        }
    }
    let score = (0..k)
        .map(|i| {
            (0..k)
                .map(|j| (i != j && games[i][j] > 0.0).then(|| points[i][j] / games[i][j]))
                .collect()
        })
        .collect();
    TournamentReport {
        agents: agents.iter().map(|a| a.spec.to_string()).collect(),
        games_per_pair,
        score,
        stronger,
        p_value_stronger,
        ratings: bradley_terry(&points, &games, anchor),
        matches,
    }
}
