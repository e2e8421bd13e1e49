//! AlphaZero's window of learned positions (`selfplay::recipes::alphazero`): the latest positions
//! of self-play, each with its policy target (the visit distribution over every action id) and its
//! value target (its game's outcome, or a mix of it with the search's value); and the window as a
//! checkpoint file, read back strictly (a damaged file is an error naming what is wrong, never a
//! panic or an allocation beyond the file's size).  File layout, little-endian: the magic
//! `descent-az-window`, the format version (u32), the encoding length E and the action count A (u32
//! each), the position count N (u64), then N records of E + A + 1 f32: the encoding, the policy,
//! the value target (P0's view).

use std::collections::VecDeque;

use anyhow::{bail, ensure};
use rand::Rng;

use crate::games::Game;
use crate::learn::augment::{Augmentation, push_policy_images};

const MAGIC: &[u8] = b"descent-az-window";
const VERSION: u32 = 1;

/// One learned position.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub input: Vec<f32>,
    pub policy: Vec<f32>,
    /// The value target, P0's view: the game's outcome (mixed with the search's root value by
    /// AlphaZero's `q_ratio`).
    pub value_p0: f32,
}

/// Positions gathered for one pass of the network, side by side: their encodings, policy
/// targets and outcomes (the buffers are kept from one batch to the next).
#[derive(Clone, Debug, Default)]
pub struct SampleBatch {
    inputs: Vec<f32>,
    policies: Vec<f32>,
    outcomes: Vec<f32>,
}

impl SampleBatch {
    /// Replaces the batch by `samples`; returns (inputs, policies, outcomes).
    pub fn fill<'a>(
        &mut self,
        samples: impl IntoIterator<Item = &'a Sample>,
    ) -> (&[f32], &[f32], &[f32]) {
        self.fill_rows(samples, |_, _, _| 0)
    }

    /// Replaces the batch by `samples`, each followed by its images under `G`'s symmetries as
    /// `augmentation` says (`learn::augment::push_policy_images`); returns (inputs, policies,
    /// outcomes).
    pub fn fill_with_images<'a, G: Game, R: Rng + ?Sized>(
        &mut self,
        samples: impl IntoIterator<Item = &'a Sample>,
        augmentation: Augmentation,
        rng: &mut R,
    ) -> (&[f32], &[f32], &[f32]) {
        self.fill_rows(samples, |sample, inputs, policies| {
            push_policy_images::<G, R>(
                (&sample.input, &sample.policy),
                augmentation,
                rng,
                inputs,
                policies,
            )
        })
    }

    /// Replaces the batch by `samples`, each followed by the rows `push_images` appends to the
    /// inputs and policies (it returns how many, each with the sample's outcome).
    fn fill_rows<'a>(
        &mut self,
        samples: impl IntoIterator<Item = &'a Sample>,
        mut push_images: impl FnMut(&Sample, &mut Vec<f32>, &mut Vec<f32>) -> usize,
    ) -> (&[f32], &[f32], &[f32]) {
        self.inputs.clear();
        self.policies.clear();
        self.outcomes.clear();
        for sample in samples {
            self.inputs.extend_from_slice(&sample.input);
            self.policies.extend_from_slice(&sample.policy);
            let images = push_images(sample, &mut self.inputs, &mut self.policies);
            self.outcomes
                .extend(std::iter::repeat_n(sample.value_p0, 1 + images));
        }
        (&self.inputs, &self.policies, &self.outcomes)
    }
}

/// The latest positions, at most `capacity`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Window {
    pub samples: VecDeque<Sample>,
    pub capacity: usize,
}

impl Window {
    pub fn new(capacity: usize) -> Window {
        Window {
            samples: VecDeque::new(),
            capacity,
        }
    }

    /// Adds `sample`, forgetting the oldest beyond the capacity.
    pub fn push(&mut self, sample: Sample) {
        self.samples.push_back(sample);
        while self.samples.len() > self.capacity {
            self.samples.pop_front();
        }
    }

    /// The window as a checkpoint file.
    pub fn to_bytes(&self, encoding_len: usize, actions: usize) -> Vec<u8> {
        let record = (encoding_len + actions + 1) * 4;
        let mut bytes = Vec::with_capacity(MAGIC.len() + 20 + self.samples.len() * record);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(encoding_len as u32).to_le_bytes());
        bytes.extend_from_slice(&(actions as u32).to_le_bytes());
        bytes.extend_from_slice(&(self.samples.len() as u64).to_le_bytes());
        for s in &self.samples {
            let floats = s.input.iter().chain(&s.policy).chain([&s.value_p0]);
            floats.for_each(|f| bytes.extend_from_slice(&f.to_le_bytes()));
        }
        bytes
    }

    /// Reads a window file written for positions of `encoding_len` floats and `actions` action
    /// ids, keeping the latest `capacity` positions.
    ///
    /// # Errors
    /// Another file, another game's sizes, a truncated or overlong file, a value not finite.
    pub fn from_bytes(
        bytes: &[u8],
        encoding_len: usize,
        actions: usize,
        capacity: usize,
    ) -> anyhow::Result<Window> {
        let Some(rest) = bytes.strip_prefix(MAGIC) else {
            bail!("not an AlphaZero window file");
        };
        ensure!(rest.len() >= 20, "truncated header");
        let word = |at: usize| u32::from_le_bytes(rest[at..at + 4].try_into().expect("4 bytes"));
        let version = word(0);
        ensure!(
            version == VERSION,
            "window format {version}, expected {VERSION}"
        );
        let (e, a) = (word(4) as usize, word(8) as usize);
        ensure!(
            (e, a) == (encoding_len, actions),
            "positions of {e} inputs and {a} actions, expected {encoding_len} and {actions}"
        );
        let count = u64::from_le_bytes(rest[12..20].try_into().expect("8 bytes"));
        let body = &rest[20..];
        let record = (e + a + 1) * 4;
        ensure!(
            u64::try_from(body.len()).is_ok_and(|len| len == count.saturating_mul(record as u64)),
            "{} bytes of positions for {count} positions of {record} bytes",
            body.len()
        );
        let mut window = Window::new(capacity);
        for chunk in body.chunks_exact(record) {
            let floats: Vec<f32> = chunk
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect();
            ensure!(
                floats.iter().all(|f| f.is_finite()),
                "a position holds a value that is not finite"
            );
            window.push(Sample {
                input: floats[..e].to_vec(),
                policy: floats[e..e + a].to_vec(),
                value_p0: floats[e + a],
            });
        }
        Ok(window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(i: usize) -> Sample {
        Sample {
            input: vec![i as f32, 0.5],
            policy: vec![0.25, 0.75, 0.0],
            value_p0: if i.is_multiple_of(2) { 1.0 } else { -1.0 },
        }
    }

    #[test]
    fn a_window_reads_back_as_written_and_damage_is_refused() {
        let mut window = Window::new(4);
        (0..6).for_each(|i| window.push(sample(i)));
        assert_eq!(window.samples.len(), 4);
        assert_eq!(window.samples[0], sample(2), "the oldest are forgotten");
        let bytes = window.to_bytes(2, 3);
        assert_eq!(Window::from_bytes(&bytes, 2, 3, 4).unwrap(), window);
        assert_eq!(
            Window::from_bytes(&bytes, 2, 3, 2).unwrap().samples[0],
            sample(4)
        );
        let error =
            |bytes: &[u8], e, a| Window::from_bytes(bytes, e, a, 4).unwrap_err().to_string();
        assert!(error(&bytes, 3, 3).contains("expected 3 and 3"));
        assert!(error(&bytes[..bytes.len() - 1], 2, 3).contains("bytes of positions"));
        assert!(error(&bytes[..10], 2, 3).contains("not an AlphaZero window"));
        let mut huge = bytes.clone();
        huge[MAGIC.len() + 12..MAGIC.len() + 20].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(error(&huge, 2, 3).contains("bytes of positions"));
        let mut nan = bytes.clone();
        let last = nan.len() - 4;
        nan[last..].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(error(&nan, 2, 3).contains("not finite"));
    }
}
