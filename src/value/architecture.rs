//! Named, serialisable network architectures (docs/algorithms.md §7): `paper-cnn` and
//! `resnet-b{blocks}c{filters}[-se][-gsp{n}]-fc{n}[-fc{n}]` — `-se`: squeeze-and-excitation in
//! every residual block (ratio 16); `-gsp{n}`: a 1×1 convolution to `n` channels and a global
//! *sum* pooling before the dense layers (a head whose size does not depend on the board's).

use std::fmt;
use std::str::FromStr;

use crate::settings::config_error::ConfigError;

/// A network architecture, independent of the game (the input shape comes from the game's
/// encoding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Architecture {
    /// 3 conv 3×3 layers of 64 filters, padding 'same', a dense layer of 100, one output.
    PaperCnn,
    /// A conv layer, `blocks` residual blocks of two 3×3 convs of `filters`, flatten, dense
    /// hidden layers of the given sizes, one output.
    ResNet {
        blocks: usize,
        filters: usize,
        dense: Vec<usize>,
        /// Squeeze-and-excitation (ratio 16) at the end of every residual block.
        squeeze_excitation: bool,
        /// A 1×1 convolution to this many channels, then a global sum over the board, instead of
        /// flattening the board.
        sum_pool_head: Option<usize>,
    },
}

/// Squeeze-and-excitation's reduction ratio (paper section 9.4, after Hu et al.).
pub const SE_RATIO: usize = 16;

/// Channels of the squeeze-and-excitation bottleneck for `filters` channels.
pub fn se_channels(filters: usize) -> usize {
    (filters / SE_RATIO).max(1)
}

impl Architecture {
    /// Convolutions before the dense layers: `(filters, residual blocks)`.
    pub fn conv_shape(&self) -> (usize, usize) {
        match self {
            Architecture::PaperCnn => (64, 0),
            Architecture::ResNet {
                blocks, filters, ..
            } => (*filters, *blocks),
        }
    }

    /// Sizes of the dense hidden layers.
    pub fn dense(&self) -> Vec<usize> {
        match self {
            Architecture::PaperCnn => vec![100],
            Architecture::ResNet { dense, .. } => dense.clone(),
        }
    }

    /// Multiply-adds of one forward pass on a `[planes, rows, cols]` input, times 2 (FLOPs).
    pub fn flops(&self, planes: usize, rows: usize, cols: usize) -> u64 {
        let cells = (rows * cols) as u64;
        let (filters, blocks) = self.conv_shape();
        let f = filters as u64;
        let mut macs = 0u64;
        match self {
            Architecture::PaperCnn => {
                macs += cells * 9 * planes as u64 * f; // conv 1
                macs += 2 * cells * 9 * f * f; // conv 2, 3
            }
            Architecture::ResNet {
                squeeze_excitation,
                sum_pool_head,
                ..
            } => {
                macs += cells * 9 * planes as u64 * f;
                macs += blocks as u64 * 2 * cells * 9 * f * f;
                if *squeeze_excitation {
                    let s = se_channels(filters) as u64;
                    // Two dense layers and the channel scaling.
                    macs += blocks as u64 * (2 * f * s + cells * f);
                }
                if let Some(head) = sum_pool_head {
                    macs += cells * f * *head as u64;
                }
            }
        }
        let mut width = match self {
            Architecture::ResNet {
                sum_pool_head: Some(head),
                ..
            } => *head as u64,
            _ => cells * f,
        };
        for d in self.dense() {
            macs += width * d as u64;
            width = d as u64;
        }
        macs += width;
        2 * macs
    }
}

impl Architecture {
    /// FLOPs of one training step per position on a `[planes, rows, cols]` input: the forward
    /// pass, then each layer's weight gradient (as many multiply-adds as its forward product)
    /// and its input's gradient (as many again, except the first convolution's: the input needs
    /// none). Element-wise work (activations, Adam) is not counted.
    pub fn training_flops(&self, planes: usize, rows: usize, cols: usize) -> u64 {
        let (filters, _) = self.conv_shape();
        let first_conv = 2 * (rows * cols * 9 * planes * filters) as u64;
        3 * self.flops(planes, rows, cols) - first_conv
    }
}

/// Weights and biases of a layer mapping `inputs` to `outputs` through a `kernel`-cell window
/// (1 for dense layers and 1×1 convolutions, 9 for 3×3 ones); `None` on overflow.
fn layer_parameters(kernel: u64, inputs: u64, outputs: u64) -> Option<u64> {
    kernel
        .checked_mul(inputs)?
        .checked_mul(outputs)?
        .checked_add(outputs)
}

impl Architecture {
    /// Trainable parameters of the network for a `[planes, rows, cols]` input, computed without
    /// building it; `None` when the count does not fit in 64 bits.
    pub fn parameter_count(&self, planes: usize, rows: usize, cols: usize) -> Option<u64> {
        let (filters, blocks) = self.conv_shape();
        let f = filters as u64;
        let mut total = layer_parameters(9, planes as u64, f)?;
        let (squeeze_excitation, sum_pool_head) = match self {
            Architecture::PaperCnn => {
                total = total.checked_add(2 * layer_parameters(9, f, f)?)?;
                (false, None)
            }
            Architecture::ResNet {
                squeeze_excitation,
                sum_pool_head,
                ..
            } => (*squeeze_excitation, *sum_pool_head),
        };
        let mut block = layer_parameters(9, f, f)?.checked_mul(2)?;
        if squeeze_excitation {
            let s = se_channels(filters) as u64;
            block = block.checked_add(layer_parameters(1, f, s)? + layer_parameters(1, s, f)?)?;
        }
        total = total.checked_add(block.checked_mul(blocks as u64)?)?;
        let mut width = match sum_pool_head {
            Some(head) => {
                total = total.checked_add(layer_parameters(1, f, head as u64)?)?;
                head as u64
            }
            None => f.checked_mul(rows as u64)?.checked_mul(cols as u64)?,
        };
        for size in self.dense() {
            total = total.checked_add(layer_parameters(1, width, size as u64)?)?;
            width = size as u64;
        }
        total.checked_add(layer_parameters(1, width, 1)?)
    }

    /// Refuses a network too big to allocate (more than `MAX_NET_PARAMETERS`) for inputs of
    /// shape `[planes, rows, cols]`, before anything is built.
    ///
    /// # Errors
    /// More parameters than the limit; the key is the architecture's name.
    pub fn check_size(&self, [planes, rows, cols]: [usize; 3]) -> Result<(), ConfigError> {
        let max = crate::settings::limits::MAX_NET_PARAMETERS;
        let message = match self.parameter_count(planes, rows, cols) {
            Some(count) if count <= max => return Ok(()),
            Some(count) => format!(
                "{count} parameters on a {planes}×{rows}×{cols} input, more than the limit of {max}"
            ),
            None => format!("more parameters than a 64-bit count holds (the limit is {max})"),
        };
        Err(ConfigError::new(self, message))
    }
}

impl fmt::Display for Architecture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Architecture::PaperCnn => f.write_str("paper-cnn"),
            Architecture::ResNet {
                blocks,
                filters,
                dense,
                squeeze_excitation,
                sum_pool_head,
            } => {
                write!(f, "resnet-b{blocks}c{filters}")?;
                if *squeeze_excitation {
                    f.write_str("-se")?;
                }
                if let Some(head) = sum_pool_head {
                    write!(f, "-gsp{head}")?;
                }
                for d in dense {
                    write!(f, "-fc{d}")?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for Architecture {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<Self, ConfigError> {
        let expected = "expected paper-cnn or resnet-b<blocks>c<filters>[-se][-gsp<n>]-fc<n>[-fc<n>], e.g. resnet-b4c64-fc100 or resnet-b8c128-se-gsp256-fc256";
        if text == "paper-cnn" {
            return Ok(Architecture::PaperCnn);
        }
        let bad = || ConfigError::new("architecture", format!("unknown {text:?}: {expected}"));
        let rest = text.strip_prefix("resnet-b").ok_or_else(bad)?;
        let mut parts = rest.split('-');
        let head = parts.next().ok_or_else(bad)?;
        let (blocks, filters) = head.split_once('c').ok_or_else(bad)?;
        let blocks: usize = blocks.parse().map_err(|_| bad())?;
        let filters: usize = filters.parse().map_err(|_| bad())?;
        let positive = |p: &str, prefix: &str| {
            p.strip_prefix(prefix)
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n > 0)
        };
        let mut parts = parts.peekable();
        let squeeze_excitation = parts.next_if_eq(&"se").is_some();
        let sum_pool_head = match parts.peek() {
            Some(p) if p.starts_with("gsp") => {
                let head = positive(p, "gsp").ok_or_else(bad)?;
                parts.next();
                Some(head)
            }
            _ => None,
        };
        let dense = parts
            .map(|p| positive(p, "fc"))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        if filters == 0 || dense.is_empty() || dense.len() > 2 {
            return Err(bad());
        }
        Ok(Architecture::ResNet {
            blocks,
            filters,
            dense,
            squeeze_excitation,
            sum_pool_head,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in [
            "paper-cnn",
            "resnet-b4c64-fc100",
            "resnet-b8c132-fc256-fc256",
            "resnet-b2c32-se-fc64",
            "resnet-b2c32-gsp48-fc64",
            "resnet-b8c373-se-gsp4453-fc4453",
        ] {
            let a: Architecture = name.parse().unwrap();
            assert_eq!(a.to_string(), name);
        }
        for bad in [
            "cnn",
            "resnet-b4",
            "resnet-b4c64",
            "resnet-bxc64-fc1",
            "resnet-b4c64-fc0",
            "resnet-b1c8-fc1-fc1-fc1",
            "resnet-b1c8-gsp8-se-fc8",
            "resnet-b1c8-gsp0-fc8",
            "resnet-b1c8-se",
            "resnet-b1c8-se-se-fc8",
        ] {
            let err = bad.parse::<Architecture>().unwrap_err().to_string();
            assert!(err.contains(bad) && err.contains("paper-cnn"), "{err}");
        }
    }

    #[test]
    fn parameter_counts_by_hand_and_the_size_limit() {
        // paper-cnn on Awale (7×2×6): conv 7→64, two 64→64, dense 768→100, out 100→1.
        let by_hand = (9 * 7 * 64 + 64) + 2 * (9 * 64 * 64 + 64) + (768 * 100 + 100) + 101;
        assert_eq!(
            Architecture::PaperCnn.parameter_count(7, 2, 6),
            Some(by_hand)
        );
        let a: Architecture = "resnet-b1c32-se-gsp16-fc8".parse().unwrap();
        // stem 7→32, block 2×(32→32), SE 32→2→32 (1×1), head 32→16 (1×1), dense 16→8, out.
        let by_hand = (9 * 7 * 32 + 32)
            + 2 * (9 * 32 * 32 + 32)
            + (32 * 2 + 2 + 2 * 32 + 32)
            + (32 * 16 + 16)
            + (16 * 8 + 8)
            + 9;
        assert_eq!(a.parameter_count(7, 2, 6), Some(by_hand));
        assert!(Architecture::PaperCnn.check_size([7, 2, 6]).is_ok());
        let huge: Architecture = "resnet-b1000c100000-fc100000".parse().unwrap();
        let message = huge.check_size([7, 2, 6]).unwrap_err().to_string();
        assert!(
            message.contains("resnet-b1000c100000-fc100000"),
            "{message}"
        );
        assert!(message.contains("200000000"), "{message}");
        let overflowing: Architecture = format!("resnet-b{0}c{0}-fc{0}", usize::MAX)
            .parse()
            .unwrap();
        assert_eq!(overflowing.parameter_count(7, 2, 6), None);
        assert!(overflowing.check_size([7, 2, 6]).is_err());
    }

    #[test]
    fn paper_cnn_flops_on_awale() {
        // 7×2×6 input: conv1 12·9·7·64, conv2+3 2·12·9·64·64, dense 768·100, out 100.
        let macs = 12 * 9 * 7 * 64 + 2 * 12 * 9 * 64 * 64 + 768 * 100 + 100;
        assert_eq!(Architecture::PaperCnn.flops(7, 2, 6), 2 * macs as u64);
    }

    #[test]
    fn training_counts_three_passes_but_the_inputs_gradient() {
        let forward = Architecture::PaperCnn.flops(7, 2, 6);
        let first_conv = 2 * 12 * 9 * 7 * 64;
        assert_eq!(
            Architecture::PaperCnn.training_flops(7, 2, 6),
            3 * forward - first_conv
        );
    }

    #[test]
    fn resnet_options_flops_on_awale() {
        let a: Architecture = "resnet-b1c32-se-gsp16-fc8".parse().unwrap();
        // stem, one block, its squeeze-excitation (32 → 2 → 32, then scaling every cell),
        // the 1×1 head conv to 16, dense 16 → 8, out.
        let macs = 12 * 9 * 7 * 32
            + 2 * 12 * 9 * 32 * 32
            + (2 * 32 * 2 + 12 * 32)
            + 12 * 32 * 16
            + 16 * 8
            + 8;
        assert_eq!(a.flops(7, 2, 6), 2 * macs as u64);
    }
}
