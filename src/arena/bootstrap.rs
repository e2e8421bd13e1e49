//! The percentile bootstrap of a mean (Efron's; the paper's §8.5 gives each curve point as the
//! mean over the repetitions with a bootstrap interval): resample the values with replacement,
//! take each resample's mean, and read the interval off the means' 2.5 % and 97.5 % quantiles
//! (linear between order statistics, as numpy's default and scipy's
//! `stats.bootstrap(method='percentile')`, the reference the tests are checked against).

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Resamples an experiment's intervals are read from.
pub const RESAMPLES: usize = 10_000;

/// The 95 % percentile-bootstrap interval of the mean of `values` from `resamples` resamples
/// drawn with the generator seeded by `seed` (the same interval for the same seed). One value
/// (or none) gives the degenerate interval at its mean: a bootstrap sees no spread there.
pub fn mean_interval(values: &[f64], resamples: usize, seed: u64) -> [f64; 2] {
    let n = values.len();
    if n <= 1 || resamples == 0 {
        let mean = values.first().copied().unwrap_or(f64::NAN);
        return [mean, mean];
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| values[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    [quantile(&means, 0.025), quantile(&means, 0.975)]
}

/// The `p` quantile of sorted `values`, linear between the order statistics around
/// `p · (len − 1)` (numpy's default).
fn quantile(sorted: &[f64], p: f64) -> f64 {
    let position = p * (sorted.len() - 1) as f64;
    let (below, fraction) = (position.floor() as usize, position.fract());
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + fraction * (sorted[above] - sorted[below])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: scipy 1.17.1, `stats.bootstrap((x,), np.mean, n_resamples=1_000_000,
    /// method='percentile', random_state=1..3)` → [0.49625, 0.74875] for every seed; for the
    /// four values below → [0.375, 0.875]. Our 200 000 resamples are within Monte Carlo error of
    /// them (its standard error at these quantiles is about 0.001).
    #[test]
    fn the_interval_is_scipys_percentile_bootstrap() {
        let x = [0.31, 0.47, 0.52, 0.58, 0.66, 0.71, 0.80, 0.93];
        for seed in [1, 2, 3] {
            let [low, high] = mean_interval(&x, 200_000, seed);
            assert!((low - 0.49625).abs() < 0.003, "{low}");
            assert!((high - 0.74875).abs() < 0.003, "{high}");
        }
        let [low, high] = mean_interval(&[0.25, 0.75, 0.5, 1.0], 200_000, 1);
        assert!(
            (low - 0.375).abs() < 0.01 && (high - 0.875).abs() < 0.01,
            "{low} {high}"
        );
    }

    #[test]
    fn one_value_gives_a_degenerate_interval_and_a_seed_gives_one_interval() {
        assert_eq!(mean_interval(&[0.4], RESAMPLES, 1), [0.4, 0.4]);
        assert!(mean_interval(&[], RESAMPLES, 1)[0].is_nan());
        let values = [0.1, 0.9, 0.5];
        assert_eq!(
            mean_interval(&values, 1000, 7),
            mean_interval(&values, 1000, 7)
        );
    }

    #[test]
    fn quantiles_interpolate_as_numpy() {
        // np.percentile([1, 2, 3, 4], [2.5, 97.5]) → [1.075, 3.925].
        let sorted = [1.0, 2.0, 3.0, 4.0];
        assert!((quantile(&sorted, 0.025) - 1.075).abs() < 1e-12);
        assert!((quantile(&sorted, 0.975) - 3.925).abs() < 1e-12);
    }
}
