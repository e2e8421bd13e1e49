//! Statistics of match results (docs/algorithms.md §8, the Awale MCTS thesis, "Method", paper
//! section 8.5).
//!
//! - The exact binomial test of "equal strength" on the decisive games (the sign test: draws
//!   carry no information about which side is stronger and are left out). The Awale MCTS
//!   thesis (N. Marchant, *Playing Awale with MCTS*, 2021) calls a player significantly
//!   better when it wins at least 32 of 50 games: one-sided p ≈ 0.0325.
//! - The Wilson interval of a proportion (better than the normal one near 0 and 1).
//! - The score (draws half a win) with its Wilson interval, and what follows from it: the win −
//!   loss rate (paper section 8.5), which is 2·score − 1, and the Elo difference the score
//!   implies, each with the score's interval mapped through the same function. Wilson counts each
//!   game as one Bernoulli trial, which is conservative when games are drawn and never shrinks
//!   to zero width: 10 wins of 10 give a score in [72.2 %, 100 %], an Elo in [+166, +∞].
//! - The Bradley-Terry model fitted to an all-play-all (draws as half a win each), by Hunter's
//!   MM algorithm, with intervals from the observed information.

use serde::Serialize;
use statrs::distribution::{Binomial, Discrete, DiscreteCDF};

/// The 97.5 % quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// One-sided exact binomial p-value: P(X ≥ k) for X ~ Binomial(n, p).
pub fn binomial_p_at_least(k: u64, n: u64, p: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    let binomial = Binomial::new(p, n).expect("a probability in [0, 1]");
    binomial.sf(k - 1).clamp(0.0, 1.0)
}

/// Two-sided exact binomial p-value of observing `k` successes in `n` trials under success
/// probability `p`: the total probability of the outcomes no more likely than `k` (as R's
/// `binom.test`). 1 when `n` = 0.
pub fn binomial_two_sided_p(k: u64, n: u64, p: f64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let binomial = Binomial::new(p, n).expect("a probability in [0, 1]");
    let observed = binomial.pmf(k);
    // Relative tolerance against rounding, as R's binom.test (1 + 1e-7).
    let threshold = observed * (1.0 + 1e-7);
    let total: f64 = (0..=n)
        .map(|i| binomial.pmf(i))
        .filter(|&q| q <= threshold)
        .sum();
    total.min(1.0)
}

/// The Wilson score interval of a proportion `successes / n` at 95 %: `(low, high)`.
pub fn wilson_interval(successes: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let p = successes / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    // At 0 or n successes the interval ends exactly at 0 or 1 (rounding would leave 1 − 1e-16,
    // a finite Elo where none is bounded).
    let low = if successes <= 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if successes >= n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (low, high)
}

/// Elo difference implied by an expected score `s` in (0, 1): 400 log10(s / (1 − s)).
pub fn elo_from_score(score: f64) -> f64 {
    400.0 * (score / (1.0 - score)).log10()
}

/// Expected score of a player rated `elo_difference` above its opponent.
pub fn score_from_elo(elo_difference: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo_difference / 400.0))
}

/// Wins, draws and losses from one side, with what follows from them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResultSummary {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// (wins + draws / 2) / games.
    pub score: f64,
    /// The Wilson 95 % interval of the score: `[low, high]`.
    pub score_ci95: [f64; 2],
    /// (wins − losses) / games = 2·score − 1, paper section 8.5.
    pub win_minus_loss: f64,
    /// The score's 95 % interval mapped to win − loss: `[low, high]`.
    pub win_minus_loss_ci95: [f64; 2],
    /// Elo difference implied by the score (scores of 0 or 1 are moved half a game inwards).
    pub elo: f64,
    /// The score's 95 % interval mapped to Elo: `[low, high]`, infinite (null in JSON) on the
    /// side where the score's interval reaches 0 or 1 — 10 wins of 10 bound the Elo from below
    /// only.
    pub elo_ci95: [f64; 2],
    /// Exact two-sided binomial p-value of "equal strength" on the decisive games.
    pub p_value_equal: f64,
    /// One-sided p-value of "not stronger": P(at least `wins` of the decisive games).
    pub p_value_better: f64,
    /// What the score's interval says against 50 %: `stronger`, `not_shown` or `weaker`.
    pub verdict: Verdict,
}

impl ResultSummary {
    pub fn new(wins: u64, draws: u64, losses: u64) -> Self {
        let games = wins + draws + losses;
        let n = games.max(1) as f64;
        let points = wins as f64 + 0.5 * draws as f64;
        let score = points / n;
        let (low, high) = wilson_interval(points, games as f64);
        let clamp = |s: f64| s.clamp(0.5 / n, 1.0 - 0.5 / n);
        let decisive = wins + losses;
        ResultSummary {
            games,
            wins,
            draws,
            losses,
            score,
            score_ci95: [low, high],
            win_minus_loss: (wins as f64 - losses as f64) / n,
            win_minus_loss_ci95: [2.0 * low - 1.0, 2.0 * high - 1.0],
            elo: elo_from_score(clamp(score)),
            elo_ci95: [elo_from_score(low), elo_from_score(high)],
            p_value_equal: binomial_two_sided_p(wins, decisive, 0.5),
            p_value_better: binomial_p_at_least(wins, decisive, 0.5),
            verdict: Verdict::of_interval([low, high], 0.5),
        }
    }
}

/// What a 95 % interval of a difference says about the agent: its one verdict, from one method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole interval lies above "equal".
    Stronger,
    /// The interval holds "equal": the sample does not tell the two apart.
    NotShown,
    /// The whole interval lies below "equal".
    Weaker,
}

impl Verdict {
    /// The verdict of the interval `[low, high]` about the value `equal` means.
    pub fn of_interval([low, high]: [f64; 2], equal: f64) -> Self {
        if low > equal {
            Verdict::Stronger
        } else if high < equal {
            Verdict::Weaker
        } else {
            Verdict::NotShown
        }
    }

    /// One line for the user: `stronger than the opponent`.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Stronger => "stronger than the opponent",
            Verdict::NotShown => "no difference shown",
            Verdict::Weaker => "weaker than the opponent",
        }
    }
}

impl ResultSummary {
    /// Win − loss with its interval, `+1.00 [+0.44, +1.00]`.
    pub fn win_minus_loss_text(&self) -> String {
        let [low, high] = self.win_minus_loss_ci95;
        format!("{:+.2} [{low:+.2}, {high:+.2}]", self.win_minus_loss)
    }

    /// The Elo difference with its interval, `+512 [+166, +∞]`.
    pub fn elo_with_interval_text(&self) -> String {
        format!(
            "{} [{}, {}]",
            elo_text(self.elo),
            elo_text(self.elo_ci95[0]),
            elo_text(self.elo_ci95[1])
        )
    }
}

/// An Elo difference as text with its sign, `+∞` / `−∞` where unbounded: `+166`, `+∞`.
pub fn elo_text(elo: f64) -> String {
    match elo {
        f64::INFINITY => "+∞".to_string(),
        f64::NEG_INFINITY => "−∞".to_string(),
        _ => format!("{elo:+.0}"),
    }
}

/// A Bradley-Terry fit: one rating per player on the Elo scale, anchored at 0 on one player.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ratings {
    /// Elo-scale ratings, `anchor`'s is 0.
    pub elo: Vec<f64>,
    /// Half-width of each rating's 95 % interval (0 for the anchor).
    pub elo_ci95: Vec<f64>,
    pub anchor: usize,
}

/// Fits Bradley-Terry strengths to `scores[i][j]`, the points player `i` took from player
/// `j` (a win 1, a draw ½) in `games[i][j]` games. Players that won or lost everything have no
/// finite maximum-likelihood strength; a prior of one drawn game against a virtual player of the
/// anchor's strength keeps every estimate finite (a light regularisation, as BayesElo's).
pub fn bradley_terry(scores: &[Vec<f64>], games: &[Vec<f64>], anchor: usize) -> Ratings {
    let k = scores.len();
    assert!(anchor < k, "the anchor is one of the players");
    // gamma: strengths; the virtual player has strength 1 (the anchor's, after rescaling).
    let mut gamma = vec![1.0f64; k];
    const PRIOR_GAMES: f64 = 1.0;
    for _ in 0..10_000 {
        let mut next = vec![0.0; k];
        for i in 0..k {
            let wins: f64 = scores[i].iter().sum::<f64>() + PRIOR_GAMES * 0.5;
            let mut denominator = PRIOR_GAMES / (gamma[i] + 1.0);
            for j in 0..k {
                let n = games[i][j];
                if i != j && n > 0.0 {
                    denominator += n / (gamma[i] + gamma[j]);
                }
            }
            next[i] = wins / denominator;
        }
        let change = next
            .iter()
            .zip(&gamma)
            .map(|(a, b)| (a.ln() - b.ln()).abs())
            .fold(0.0, f64::max);
        gamma = next;
        if change < 1e-12 {
            break;
        }
    }
    // Observed information of θ = ln γ (the prior included), then the covariance of the
    // differences θ_i − θ_anchor: invert the information with the anchor's row and column
    // removed after re-parametrising (θ_anchor fixed).
    let mut information = vec![vec![0.0f64; k]; k];
    for i in 0..k {
        let p_virtual = gamma[i] / (gamma[i] + 1.0);
        information[i][i] += PRIOR_GAMES * p_virtual * (1.0 - p_virtual);
        for j in 0..k {
            let n = games[i][j];
            if i != j && n > 0.0 {
                let p = gamma[i] / (gamma[i] + gamma[j]);
                let w = n * p * (1.0 - p);
                information[i][i] += w;
                information[i][j] -= w;
            }
        }
    }
    let others: Vec<usize> = (0..k).filter(|&i| i != anchor).collect();
    // The information of the differences δ_i = θ_i − θ_anchor: θ = δ + θ_anchor·1; with the
    // anchor's own parameter profiled out (its column summed into the others' is implicit in
    // fixing it), the reduced matrix is the information with the anchor's row and column removed.
    let reduced: Vec<Vec<f64>> = others
        .iter()
        .map(|&i| others.iter().map(|&j| information[i][j]).collect())
        .collect();
    let covariance = invert(&reduced);
    let to_elo = 400.0 / std::f64::consts::LN_10;
    let mut elo = vec![0.0; k];
    let mut elo_ci95 = vec![0.0; k];
    for (row, &i) in others.iter().enumerate() {
        elo[i] = to_elo * (gamma[i].ln() - gamma[anchor].ln());
        elo_ci95[i] = Z95 * to_elo * covariance[row][row].max(0.0).sqrt();
    }
    Ratings {
        elo,
        elo_ci95,
        anchor,
    }
}

/// Inverse of a small symmetric positive-definite matrix (Gauss-Jordan with partial pivoting).
fn invert(matrix: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = matrix.len();
    let mut a: Vec<Vec<f64>> = matrix
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut r = row.clone();
            r.extend((0..n).map(|j| if i == j { 1.0 } else { 0.0 }));
            r
        })
        .collect();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .expect("non-empty");
        a.swap(col, pivot);
        let p = a[col][col];
        if p.abs() < 1e-300 {
            return vec![vec![f64::INFINITY; n]; n];
        }
        for value in a[col].iter_mut() {
            *value /= p;
        }
        for row in 0..n {
            if row != col {
                let factor = a[row][col];
                if factor != 0.0 {
                    let pivot_row = a[col].clone();
                    for (value, p) in a[row].iter_mut().zip(&pivot_row) {
                        *value -= factor * p;
                    }
                }
            }
        }
    }
    a.into_iter().map(|row| row[n..].to_vec()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_is_the_score_interval_against_one_half() {
        // 14 wins, 1 draw, 5 losses: 72.5 % [50.6, 87.2] lies above 50 %, so "stronger", even
        // though the sign test on the 19 decisive games gives p = 0.064 (another question).
        let s = ResultSummary::new(14, 1, 5);
        assert!((s.score_ci95[0] - 0.506).abs() < 1e-3, "{s:?}");
        assert!((s.p_value_equal - 0.0636).abs() < 1e-3, "{s:?}");
        assert_eq!(s.verdict, Verdict::Stronger);
        assert_eq!(ResultSummary::new(13, 1, 6).verdict, Verdict::NotShown);
        assert_eq!(ResultSummary::new(10, 0, 10).verdict, Verdict::NotShown);
        assert_eq!(ResultSummary::new(5, 1, 14).verdict, Verdict::Weaker);
        assert_eq!(ResultSummary::new(0, 0, 0).verdict, Verdict::NotShown);
    }

    #[test]
    fn intervals_have_their_reference_values() {
        // 60 W / 20 D / 20 L: 70 points of 100, Wilson [0.6041, 0.7810] (R: prop.test(70, 100,
        // correct = FALSE)$conf.int); win − loss 2·score − 1; Elo 400·log10(s / (1 − s)).
        let s = ResultSummary::new(60, 20, 20);
        assert!((s.score_ci95[0] - 0.604_15).abs() < 1e-4, "{s:?}");
        assert!((s.score_ci95[1] - 0.781_05).abs() < 1e-4, "{s:?}");
        assert!((s.win_minus_loss_ci95[0] - 0.208_30).abs() < 1e-4, "{s:?}");
        assert!((s.win_minus_loss_ci95[1] - 0.562_10).abs() < 1e-4, "{s:?}");
        assert!((s.elo - 147.19).abs() < 0.01, "{s:?}");
        assert!((s.elo_ci95[0] - 73.45).abs() < 0.01, "{s:?}");
        assert!((s.elo_ci95[1] - 220.93).abs() < 0.01, "{s:?}");
    }

    /// The intervals stay as wide as the sample allows where every game went one way: 10-0,
    /// 0-10, all draws, one game (a normal interval over per-game results has width 0 there).
    #[test]
    fn intervals_stay_wide_on_one_sided_and_tiny_samples() {
        let all_won = ResultSummary::new(10, 0, 0);
        assert!((all_won.score_ci95[0] - 0.7225).abs() < 1e-3, "{all_won:?}");
        assert_eq!(all_won.score_ci95[1], 1.0);
        assert!((all_won.win_minus_loss_ci95[0] - 0.445).abs() < 1e-3);
        assert_eq!(all_won.win_minus_loss_ci95[1], 1.0);
        assert!((all_won.elo_ci95[0] - 166.2).abs() < 0.1, "{all_won:?}");
        assert_eq!(all_won.elo_ci95[1], f64::INFINITY);
        assert!(all_won.elo.is_finite(), "the estimate itself stays finite");
        assert_eq!(
            format!(
                "{} {}",
                elo_text(all_won.elo_ci95[0]),
                elo_text(all_won.elo_ci95[1])
            ),
            "+166 +∞"
        );
        let all_lost = ResultSummary::new(0, 0, 10);
        assert_eq!(all_lost.win_minus_loss_ci95[0], -1.0);
        assert!((all_lost.win_minus_loss_ci95[1] + 0.445).abs() < 1e-3);
        assert_eq!(all_lost.elo_ci95[0], f64::NEG_INFINITY);
        assert_eq!(elo_text(all_lost.elo_ci95[0]), "−∞");
        let all_drawn = ResultSummary::new(0, 10, 0);
        assert_eq!(all_drawn.win_minus_loss, 0.0);
        let [low, high] = all_drawn.win_minus_loss_ci95;
        assert!(
            (high - 0.526).abs() < 1e-3 && (low + high).abs() < 1e-12,
            "{low} {high}"
        );
        let one = ResultSummary::new(1, 0, 0);
        assert!((one.score_ci95[0] - 0.2065).abs() < 1e-3, "{one:?}");
        assert!(one.win_minus_loss_ci95[0] < -0.5 && one.elo_ci95[0] < -200.0);
        let none = ResultSummary::new(0, 0, 0);
        assert_eq!(none.win_minus_loss_ci95, [-1.0, 1.0]);
    }

    /// The log-likelihood of two players' strengths θ = ln γ, with `bradley_terry`'s prior (one
    /// drawn game each against a virtual player of strength 1), player 0 taking `points` of `n`.
    fn two_player_log_likelihood(theta: [f64; 2], points: f64, n: f64) -> f64 {
        let p = 1.0 / (1.0 + (theta[1] - theta[0]).exp());
        let prior = |t: f64| {
            let q = 1.0 / (1.0 + (-t).exp());
            0.5 * q.ln() + 0.5 * (1.0 - q).ln()
        };
        points * p.ln() + (n - points) * (1.0 - p).ln() + prior(theta[0]) + prior(theta[1])
    }

    #[test]
    fn two_player_bradley_terry_matches_its_likelihood_maximised_here() {
        let (points, n) = (13.5, 20.0);
        let scores = vec![vec![0.0, points], vec![n - points, 0.0]];
        let games = vec![vec![0.0, n], vec![n, 0.0]];
        let ratings = bradley_terry(&scores, &games, 0);
        // Newton's method on the likelihood, derivatives by central differences.
        let ll = |t: [f64; 2]| two_player_log_likelihood(t, points, n);
        let h = 1e-4;
        let mut theta = [0.0f64; 2];
        for _ in 0..100 {
            let grad = |t: [f64; 2], i: usize| {
                let (mut a, mut b) = (t, t);
                a[i] += h;
                b[i] -= h;
                (ll(a) - ll(b)) / (2.0 * h)
            };
            let hess = |i: usize, j: usize| {
                let mut a = theta;
                let mut b = theta;
                a[j] += h;
                b[j] -= h;
                (grad(a, i) - grad(b, i)) / (2.0 * h)
            };
            let g = [grad(theta, 0), grad(theta, 1)];
            let m = [[hess(0, 0), hess(0, 1)], [hess(1, 0), hess(1, 1)]];
            let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
            theta[0] -= (m[1][1] * g[0] - m[0][1] * g[1]) / det;
            theta[1] -= (m[0][0] * g[1] - m[1][0] * g[0]) / det;
        }
        let to_elo = 400.0 / std::f64::consts::LN_10;
        let elo = to_elo * (theta[1] - theta[0]);
        assert!((ratings.elo[1] - elo).abs() < 1e-3, "{ratings:?} vs {elo}");
        // The anchor fixed: the variance of θ₁ is the inverse of −∂²ℓ/∂θ₁².
        let mut a = theta;
        let mut b = theta;
        a[1] += h;
        b[1] -= h;
        let second = (ll(a) - 2.0 * ll(theta) + ll(b)) / (h * h);
        // The normal quantile written out: a wrong `Z95` must not cancel out.
        let half_width = 1.959_963_984_540_054 * to_elo / (-second).sqrt();
        assert!(
            (ratings.elo_ci95[1] - half_width).abs() < 1e-3 * half_width,
            "{ratings:?} vs ±{half_width}"
        );
        assert_eq!(ratings.elo_ci95[0], 0.0);
    }

    #[test]
    fn awale_thesis_threshold_32_of_50() {
        // The Awale MCTS thesis: 32 wins of 50 is significant at 5 % (one-sided p ≈ 0.0325),
        // 31 is not.
        let p32 = binomial_p_at_least(32, 50, 0.5);
        assert!((p32 - 0.03245).abs() < 5e-4, "{p32}");
        assert!(binomial_p_at_least(31, 50, 0.5) > 0.05);
        // Two-sided, symmetric case: twice the one-sided tail.
        let two = binomial_two_sided_p(32, 50, 0.5);
        assert!((two - 2.0 * p32).abs() < 1e-9, "{two}");
        assert!((binomial_two_sided_p(25, 50, 0.5) - 1.0).abs() < 1e-12);
        assert_eq!(binomial_p_at_least(0, 10, 0.5), 1.0);
    }

    #[test]
    fn binomial_against_r() {
        // R: binom.test(7, 10, 0.3)$p.value = 0.01059208 (asymmetric two-sided).
        let p = binomial_two_sided_p(7, 10, 0.3);
        assert!((p - 0.010_592_08).abs() < 1e-7, "{p}");
        // R: binom.test(0, 10)$p.value = 0.001953125 = 2 / 1024.
        assert!((binomial_two_sided_p(0, 10, 0.5) - 2.0 / 1024.0).abs() < 1e-12);
    }

    #[test]
    fn wilson_known_values() {
        // 8 of 10: (0.4902, 0.9433) (Wilson 1927; e.g. R's prop.test without correction).
        let (low, high) = wilson_interval(8.0, 10.0);
        assert!(
            (low - 0.4902).abs() < 1e-3 && (high - 0.9433).abs() < 1e-3,
            "{low} {high}"
        );
        let (low, high) = wilson_interval(0.0, 20.0);
        assert_eq!(low, 0.0);
        assert!((high - 0.1611).abs() < 1e-3, "{high}");
    }

    #[test]
    fn elo_and_score_are_inverse() {
        assert!((elo_from_score(0.75) - 190.848).abs() < 1e-2);
        assert_eq!(elo_from_score(0.5), 0.0);
        for elo in [-400.0, -35.0, 0.0, 120.0, 800.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9);
        }
        let summary = ResultSummary::new(60, 20, 20);
        assert_eq!(summary.score, 0.7);
        assert!((summary.win_minus_loss - 0.4).abs() < 1e-12);
        assert!(summary.elo_ci95[0] < summary.elo && summary.elo < summary.elo_ci95[1]);
        // Sign test on 80 decisive games, 60 wins.
        assert!(summary.p_value_equal < 1e-5);
        assert_eq!(summary.wins + summary.draws + summary.losses, summary.games);
        // All won: a finite Elo, not infinity.
        assert!(ResultSummary::new(10, 0, 0).elo.is_finite());
    }

    #[test]
    fn bradley_terry_recovers_planted_strengths() {
        use rand::{RngExt, SeedableRng};
        let planted = [0.0, 150.0, -200.0, 400.0];
        let k = planted.len();
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(5);
        let mut scores = vec![vec![0.0; k]; k];
        let mut games = vec![vec![0.0; k]; k];
        for i in 0..k {
            for j in 0..k {
                if i < j {
                    for _ in 0..2000 {
                        let p = score_from_elo(planted[i] - planted[j]);
                        let win = rng.random::<f64>() < p;
                        scores[i][j] += win as u8 as f64;
                        scores[j][i] += (!win) as u8 as f64;
                        games[i][j] += 1.0;
                        games[j][i] += 1.0;
                    }
                }
            }
        }
        let ratings = bradley_terry(&scores, &games, 0);
        assert_eq!(ratings.elo[0], 0.0);
        for (i, &truth) in planted.iter().enumerate().skip(1) {
            let error = (ratings.elo[i] - truth).abs();
            assert!(error < 30.0, "player {i}: {} vs {truth}", ratings.elo[i]);
            assert!(
                error < 2.5 * ratings.elo_ci95[i],
                "player {i}: error {error} beyond the interval {}",
                ratings.elo_ci95[i]
            );
            assert!(ratings.elo_ci95[i] > 5.0 && ratings.elo_ci95[i] < 40.0);
        }
    }
}
