//! The losses of a policy-value network's outputs, position by position, in plain arithmetic: a
//! value loss of `ValueLoss`'s kind with its slope, and the policy's softmax cross-entropy with
//! its gradient. The direct CPU step's backward pass starts from them, and ExIt's early stopping
//! measures held-out positions with them; burn's tensor version (`PolicyValueNet::losses`) is
//! the reference both are tested against.

use super::policy_value_net::{PolicyValueLoss, VALUE_EPSILON, ValueLoss};

/// One position's value loss of `kind` for the output `v` against the outcome `t` (both P0's
/// view, in [−1, 1]), and its slope `∂loss/∂v`.
pub fn value_loss_and_slope(kind: ValueLoss, v: f32, t: f32) -> (f64, f32) {
    match kind {
        ValueLoss::Mse => (f64::from(v - t).powi(2), 2.0 * (v - t)),
        ValueLoss::CrossEntropy => {
            // On p = (v + 1) / 2 kept within [ε, 1 − ε] (no slope where it is held) and the
            // target's probability (t + 1) / 2.
            let raw = (v + 1.0) / 2.0;
            let p = raw.clamp(VALUE_EPSILON, 1.0 - VALUE_EPSILON);
            let target = (t + 1.0) / 2.0;
            let loss = -(f64::from(target) * f64::from(p).ln()
                + f64::from(1.0 - target) * f64::from(1.0 - p).ln());
            let held = raw != p;
            let slope = if held {
                0.0
            } else {
                (-target / p + (1.0 - target) / (1.0 - p)) / 2.0
            };
            (loss, slope)
        }
        ValueLoss::Off => (0.0, 0.0),
    }
}

/// The cross-entropy `−Σ π log softmax(logits)` of each position's logits (`actions` each)
/// against its target `π`, summed over the positions; its gradient over `batch` into
/// `grad_logits`: `(softmax · Σπ − π) / batch`.
pub fn softmax_cross_entropy_gradient(
    logits: &[f32],
    policies: &[f32],
    actions: usize,
    batch: usize,
    grad_logits: &mut [f32],
) -> f64 {
    let mut sum = 0.0;
    for ((grad, logits), targets) in grad_logits
        .chunks_exact_mut(actions)
        .zip(logits.chunks_exact(actions))
        .zip(policies.chunks_exact(actions))
    {
        let log_sum = log_sum_exp(logits);
        let mass: f32 = targets.iter().sum();
        for ((g, &l), &target) in grad.iter_mut().zip(logits).zip(targets) {
            let log_p = l - log_sum;
            sum -= f64::from(target * log_p);
            *g = (log_p.exp() * mass - target) / batch as f32;
        }
    }
    sum
}

/// `ln Σ exp(logits)`, the largest logit taken out first (no overflow).
fn log_sum_exp(logits: &[f32]) -> f32 {
    let max = logits.iter().fold(f32::NEG_INFINITY, |m, &l| m.max(l));
    max + logits.iter().map(|&l| (l - max).exp()).sum::<f32>().ln()
}

/// The mean losses of outputs `values` and `logits` (`actions` per position) against outcomes
/// `outcomes` (P0's view) and policy targets `policies`: the value loss `kind` and the policy
/// cross-entropy, as `PolicyValueNet::losses` computes them on burn.
pub fn mean_losses(
    (values, logits): (&[f32], &[f32]),
    (outcomes, policies): (&[f32], &[f32]),
    kind: ValueLoss,
) -> PolicyValueLoss {
    let positions = values.len();
    if positions == 0 {
        return PolicyValueLoss {
            value: 0.0,
            policy_cross_entropy: 0.0,
        };
    }
    let value: f64 = values
        .iter()
        .zip(outcomes)
        .map(|(&v, &t)| value_loss_and_slope(kind, v, t).0)
        .sum();
    let actions = logits.len() / positions;
    let cross_entropy: f64 = logits
        .chunks_exact(actions)
        .zip(policies.chunks_exact(actions))
        .map(|(logits, targets)| {
            let log_sum = log_sum_exp(logits);
            let terms = logits.iter().zip(targets);
            -terms
                .map(|(&l, &t)| f64::from(t * (l - log_sum)))
                .sum::<f64>()
        })
        .sum();
    PolicyValueLoss {
        value: (value / positions as f64) as f32,
        policy_cross_entropy: (cross_entropy / positions as f64) as f32,
    }
}
