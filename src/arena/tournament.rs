//! Tournaments: every pair of agents plays a match (both colours) — or the pairs of a ladder,
//! each agent against an anchor and its neighbour (`ladder_pairs`) — then the score matrix, the
//! significance relation of the Awale MCTS thesis ("i is stronger than j" when i's wins over j are
//! significant by the one-sided exact binomial test at 5 %, draws left out — 32 of 50 decisive
//! games), and Bradley-Terry ratings anchored on one agent.

use serde::Serialize;

use super::agent::AgentFactory;
use super::match_play::{GameRecord, MatchReport, MatchRun, Openings, game_seed, play_match_until};
use super::statistics::{Ratings, binomial_p_at_least, bradley_terry};
use crate::games::Game;
use crate::search::StopToken;

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
    /// The pairs that played, `(i, j)`: every `i < j` in order in an all-play-all.
    pub pairs: Vec<(usize, usize)>,
    /// Every match, `agents[i]` vs `agents[j]` for `pairs[k] = (i, j)`.
    pub matches: Vec<MatchReport>,
}

impl TournamentReport {
    /// The games played in all: every pair's `games_per_pair`, fewer when the matches were
    /// stopped (`MatchRun::stop`).
    pub fn games_played(&self) -> u64 {
        self.matches.iter().map(|m| m.summary.games).sum()
    }

    /// The games agent `agent` played (0 for one whose pairings were never reached).
    pub fn games_of(&self, agent: usize) -> u64 {
        self.pairs
            .iter()
            .zip(&self.matches)
            .filter(|((i, j), _)| *i == agent || *j == agent)
            .map(|(_, m)| m.summary.games)
            .sum()
    }
}

/// Every pair `(i, j)` of `k` agents with `i < j`, in order: an all-play-all.
pub fn all_pairs(k: usize) -> Vec<(usize, usize)> {
    (0..k)
        .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
        .collect()
}

/// The pairs of a ladder of `k` agents: `anchor` against each other agent, and each agent
/// other than the anchor against the next one (by index, the anchor skipped) — 2k − 3 matches
/// instead of k(k − 1)/2, every rating tied to the anchor directly and to its neighbours.
pub fn ladder_pairs(k: usize, anchor: usize) -> Vec<(usize, usize)> {
    let others: Vec<usize> = (0..k).filter(|&i| i != anchor).collect();
    let against_anchor = others.iter().map(|&i| (anchor.min(i), anchor.max(i)));
    let neighbours = others.windows(2).map(|w| (w[0], w[1]));
    against_anchor.chain(neighbours).collect()
}

/// Plays every pair of `agents` for `games_per_pair` games (even: both colours equally).
pub fn play_tournament<G: Game>(
    start: (&G, Openings),
    agents: &[AgentFactory<G>],
    games_per_pair: u64,
    run: MatchRun<'_>,
    anchor: usize,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> TournamentReport {
    let pairs = all_pairs(agents.len());
    play_pairs(
        start,
        agents,
        (&pairs, games_per_pair),
        run,
        anchor,
        on_game,
    )
}

/// Plays the `pairs` of `agents` for `games_per_pair` games each (even: both colours
/// equally), the k-th pair's games seeded from `run`'s seed and k; ratings anchored on
/// `anchor`. Once `run` is stopped no new pairing starts.
pub fn play_pairs<G: Game>(
    start: (&G, Openings),
    agents: &[AgentFactory<G>],
    (pairs, games_per_pair): (&[(usize, usize)], u64),
    run: MatchRun<'_>,
    anchor: usize,
    on_game: &(dyn Fn(&GameRecord) + Sync),
) -> TournamentReport {
    let mut matches = Vec::new();
    for (pair, &(i, j)) in pairs.iter().enumerate() {
        // After a stop request (Ctrl-C) the pairings played so far make the report.
        if run.stop.is_some_and(StopToken::is_stopped) {
            break;
        }
        matches.push(play_match_until(
            start,
            [&agents[i], &agents[j]],
            games_per_pair,
            run.seeded(game_seed(run.seed, pair as u64)),
            on_game,
        ));
    }
    let names: Vec<String> = agents.iter().map(|a| a.spec.to_string()).collect();
    tournament_report(names, (pairs, games_per_pair), matches, anchor)
}

/// The report of the played `matches` of the first `matches.len()` of `pairs` among the agents
/// `names`, `games_per_pair` games planned a pair; ratings anchored on `anchor`.
pub fn tournament_report(
    names: Vec<String>,
    (pairs, games_per_pair): (&[(usize, usize)], u64),
    matches: Vec<MatchReport>,
    anchor: usize,
) -> TournamentReport {
    let k = names.len();
    let mut points = vec![vec![0.0f64; k]; k];
    let mut games = vec![vec![0.0f64; k]; k];
    let mut p_value_stronger = vec![vec![None; k]; k];
    let mut stronger = vec![vec![false; k]; k];
    for (report, &(i, j)) in matches.iter().zip(pairs) {
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
    }
    let score = (0..k)
        .map(|i| {
            (0..k)
                .map(|j| (i != j && games[i][j] > 0.0).then(|| points[i][j] / games[i][j]))
                .collect()
        })
        .collect();
    TournamentReport {
        agents: names,
        games_per_pair,
        score,
        stronger,
        p_value_stronger,
        ratings: bradley_terry(&points, &games, anchor),
        pairs: pairs[..matches.len()].to_vec(),
        matches,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_of_an_all_play_all_and_of_a_ladder() {
        assert_eq!(all_pairs(3), [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(ladder_pairs(4, 0), [(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)]);
        // The anchor in the middle: its neighbours meet each other over it.
        assert_eq!(ladder_pairs(4, 2), [(0, 2), (1, 2), (2, 3), (0, 1), (1, 3)]);
        for k in 2..9 {
            for anchor in 0..k {
                let pairs = ladder_pairs(k, anchor);
                assert_eq!(pairs.len(), 2 * k - 3, "{k} {anchor}");
                assert!(pairs.iter().all(|&(i, j)| i < j && j < k));
                for i in (0..k).filter(|&i| i != anchor) {
                    assert!(pairs.contains(&(anchor.min(i), anchor.max(i))));
                }
            }
        }
    }
}
