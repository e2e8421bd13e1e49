//! Named, serialisable network architectures (SPEC §7): `paper-cnn` and
//! `resnet-b{blocks}c{filters}-fc{n}[-fc{n}]`.

use std::fmt;
use std::str::FromStr;

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
    },
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
            Architecture::ResNet { .. } => {
                macs += cells * 9 * planes as u64 * f;
                macs += blocks as u64 * 2 * cells * 9 * f * f;
            }
        }
        let mut width = cells * f;
        for d in self.dense() {
            macs += width * d as u64;
            width = d as u64;
        }
        macs += width;
        2 * macs
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
            } => {
                write!(f, "resnet-b{blocks}c{filters}")?;
                for d in dense {
                    write!(f, "-fc{d}")?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for Architecture {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let expected = "expected paper-cnn or resnet-b<blocks>c<filters>-fc<n>[-fc<n>], e.g. resnet-b4c64-fc100";
        if text == "paper-cnn" {
            return Ok(Architecture::PaperCnn);
        }
        let bad = || format!("unknown architecture {text:?}: {expected}");
        let rest = text.strip_prefix("resnet-b").ok_or_else(bad)?;
        let mut parts = rest.split('-');
        let head = parts.next().ok_or_else(bad)?;
        let (blocks, filters) = head.split_once('c').ok_or_else(bad)?;
        let blocks: usize = blocks.parse().map_err(|_| bad())?;
        let filters: usize = filters.parse().map_err(|_| bad())?;
        let dense = parts
            .map(|p| {
                p.strip_prefix("fc")
                    .and_then(|n| n.parse::<usize>().ok())
                    .filter(|&n| n > 0)
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        if filters == 0 || dense.is_empty() || dense.len() > 2 {
            return Err(bad());
        }
        Ok(Architecture::ResNet {
            blocks,
            filters,
            dense,
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
        ] {
            let err = bad.parse::<Architecture>().unwrap_err();
            assert!(err.contains(bad) && err.contains("paper-cnn"), "{err}");
        }
    }

    #[test]
    fn paper_cnn_flops_on_awale() {
        // 7×2×6 input: conv1 12·9·7·64, conv2+3 2·12·9·64·64, dense 768·100, out 100.
        let macs = 12 * 9 * 7 * 64 + 2 * 12 * 9 * 64 * 64 + 768 * 100 + 100;
        assert_eq!(Architecture::PaperCnn.flops(7, 2, 6), 2 * macs as u64);
    }
}
