//! What a training step learns from: a minibatch of encoded positions and their targets (values,
//! and for a policy-value network policies), either
//! held contiguously (`Minibatch`, `MinibatchRef`) or gathered where it lies (a replay buffer's
//! pairs) by the threads of the step itself (`MinibatchSource`). Gathering inside the step keeps
//! the step's threads busy from one step to the next: gathered on one thread between steps, the
//! other threads fall asleep and waking them costs more than the gathering (on a 2-core VM, a
//! 25 µs pause between steps of the Awale net made each step 60 µs slower).

use std::ops::Range;

/// `targets.len()` encoded positions laid out contiguously, and their targets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Minibatch {
    pub inputs: Vec<f32>,
    /// Value targets (P0's view), one per position.
    pub targets: Vec<f32>,
    /// Policy targets, a distribution over the action ids per position; empty for a value
    /// network.
    pub policies: Vec<f32>,
}

impl Minibatch {
    /// Empties both vectors, keeping their capacity.
    pub fn clear(&mut self) {
        self.inputs.clear();
        self.targets.clear();
        self.policies.clear();
    }

    pub fn as_ref(&self) -> MinibatchRef<'_> {
        MinibatchRef {
            inputs: &self.inputs,
            targets: &self.targets,
            policies: &self.policies,
        }
    }
}

/// A minibatch held elsewhere: `targets.len()` encoded positions in `inputs`, contiguous, their
/// value targets and (a policy-value network's) policy targets, as `Minibatch` holds them.
#[derive(Clone, Copy, Debug)]
pub struct MinibatchRef<'a> {
    pub inputs: &'a [f32],
    pub targets: &'a [f32],
    pub policies: &'a [f32],
}

/// A minibatch a step reads a range of positions at a time, from any thread.
pub trait MinibatchSource: Sync {
    /// Positions in the minibatch.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The encoded positions `range` of the minibatch, contiguous, and their targets: read in
    /// place, or gathered into `scratch` (emptied first) and read there.
    fn read<'a>(&'a self, range: Range<usize>, scratch: &'a mut Minibatch) -> MinibatchRef<'a>;
}

impl MinibatchSource for MinibatchRef<'_> {
    fn len(&self) -> usize {
        self.targets.len()
    }

    fn read<'a>(&'a self, range: Range<usize>, _: &'a mut Minibatch) -> MinibatchRef<'a> {
        let size = self.inputs.len() / self.targets.len().max(1);
        let actions = self.policies.len() / self.targets.len().max(1);
        MinibatchRef {
            inputs: &self.inputs[range.start * size..range.end * size],
            policies: &self.policies[range.start * actions..range.end * actions],
            targets: &self.targets[range],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_minibatch_reads_its_positions_in_place() {
        let batch = Minibatch {
            inputs: (0..12).map(|i| i as f32).collect(),
            targets: vec![0.5, -0.5, 1.0, 0.0],
            policies: (0..8).map(|i| i as f32 / 10.0).collect(),
        };
        let source = batch.as_ref();
        assert_eq!(source.len(), 4);
        let mut scratch = Minibatch::default();
        let part = source.read(1..3, &mut scratch);
        assert_eq!(part.inputs, &[3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        assert_eq!(part.targets, &[-0.5, 1.0]);
        assert_eq!(part.policies, &[0.2, 0.3, 0.4, 0.5]);
        assert!(scratch.inputs.is_empty(), "nothing copied");
    }
}
