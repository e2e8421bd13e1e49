//! Statistics of one-player games (Morpion Solitaire), where a match is no duel: each agent plays
//! its own games and what counts is the score reached. Each side's mean score with its Student t
//! 95 % interval, the best score, and the two means compared by Welch's t-test (unequal
//! variances; Welch 1947), as scipy's `ttest_ind(x, y, equal_var=False)`.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// One agent's scores.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoreSummary {
    pub games: u64,
    pub mean: f64,
    /// Half-width of the Student t 95 % interval of the mean (null in JSON below 2 games).
    pub ci95: f64,
    pub best: i32,
    /// The sample variance (n − 1 in the denominator).
    #[serde(skip)]
    variance: f64,
}

impl ScoreSummary {
    pub fn new(scores: &[i32]) -> Self {
        let n = scores.len() as f64;
        let mean = scores.iter().map(|&s| s as f64).sum::<f64>() / n.max(1.0);
        let variance = match scores.len() {
            0 | 1 => f64::INFINITY,
            _ => {
                scores
                    .iter()
                    .map(|&s| (s as f64 - mean).powi(2))
                    .sum::<f64>()
                    / (n - 1.0)
            }
        };
        ScoreSummary {
            games: scores.len() as u64,
            mean,
            ci95: t_quantile(n - 1.0) * (variance / n).sqrt(),
            best: scores.iter().copied().max().unwrap_or(0),
            variance,
        }
    }
}

/// The agent's scores against the opponent's.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoreComparison {
    pub agent: ScoreSummary,
    pub opponent: ScoreSummary,
    /// The agent's mean score minus the opponent's.
    pub difference: f64,
    /// Half-width of Welch's 95 % interval of the difference.
    pub difference_ci95: f64,
    /// Welch's two-sided p-value of equal mean scores.
    pub p_value_equal: f64,
}

impl ScoreComparison {
    pub fn new(agent_scores: &[i32], opponent_scores: &[i32]) -> Self {
        let agent = ScoreSummary::new(agent_scores);
        let opponent = ScoreSummary::new(opponent_scores);
        let difference = agent.mean - opponent.mean;
        let (a, b) = (
            agent.variance / agent.games as f64,
            opponent.variance / opponent.games as f64,
        );
        let standard_error = (a + b).sqrt();
        let (difference_ci95, p_value_equal) = if !standard_error.is_finite() {
            (f64::INFINITY, 1.0)
        } else if standard_error == 0.0 {
            // Every game scored alike on each side: the means differ surely or not at all.
            (0.0, if difference == 0.0 { 1.0 } else { 0.0 })
        } else {
            let freedom = (a + b).powi(2)
                / (a * a / (agent.games as f64 - 1.0) + b * b / (opponent.games as f64 - 1.0));
            let t = difference.abs() / standard_error;
            let student = StudentsT::new(0.0, 1.0, freedom).expect("positive degrees of freedom");
            (
                t_quantile(freedom) * standard_error,
                (2.0 * student.sf(t)).min(1.0),
            )
        };
        ScoreComparison {
            agent,
            opponent,
            difference,
            difference_ci95,
            p_value_equal,
        }
    }

    /// The verdict of Welch's 95 % interval of the difference against 0.
    pub fn verdict(&self) -> super::statistics::Verdict {
        let [low, high] = [
            self.difference - self.difference_ci95,
            self.difference + self.difference_ci95,
        ];
        super::statistics::Verdict::of_interval([low, high], 0.0)
    }
}

/// The 97.5 % quantile of Student's t with `freedom` degrees of freedom (infinite below 1).
fn t_quantile(freedom: f64) -> f64 {
    match StudentsT::new(0.0, 1.0, freedom) {
        Ok(student) if freedom >= 1.0 => student.inverse_cdf(0.975),
        _ => f64::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn a_summary_matches_scipy() {
        // scipy: ttest_1samp([30, 34, 41, 29, 52], 0).confidence_interval() → [25.3748, 49.0252].
        let s = ScoreSummary::new(&[30, 34, 41, 29, 52]);
        assert_eq!((s.games, s.best), (5, 52));
        assert!(close(s.mean, 37.2, 1e-12));
        assert!(close(s.ci95, 49.025_179 - 37.2, 1e-5), "{}", s.ci95);
    }

    #[test]
    fn welch_matches_scipy() {
        // scipy: ttest_ind([30, 34, 41, 29, 52], [25, 27, 31, 26], equal_var=False) → t = 2.2322,
        // df = 4.7415, p = 0.078879, interval of the difference [−1.698804, 21.598804].
        let c = ScoreComparison::new(&[30, 34, 41, 29, 52], &[25, 27, 31, 26]);
        assert!(close(c.difference, 37.2 - 27.25, 1e-12));
        assert!(
            close(c.p_value_equal, 0.078_879, 1e-6),
            "{}",
            c.p_value_equal
        );
        assert!(
            close(c.difference_ci95, 21.598_804 - 9.95, 1e-5),
            "{}",
            c.difference_ci95
        );
    }

    #[test]
    fn degenerate_samples_give_honest_answers() {
        let same = ScoreComparison::new(&[40, 40], &[40, 40]);
        assert_eq!((same.p_value_equal, same.difference_ci95), (1.0, 0.0));
        let apart = ScoreComparison::new(&[41, 41], &[40, 40]);
        assert_eq!(apart.p_value_equal, 0.0);
        let one = ScoreComparison::new(&[41], &[40, 38]);
        assert_eq!(
            one.p_value_equal, 1.0,
            "one game says nothing of its spread"
        );
        assert!(one.difference_ci95.is_infinite());
        assert!(ScoreSummary::new(&[7]).ci95.is_infinite());
    }
}
