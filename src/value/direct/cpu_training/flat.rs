//! Every parameter of a network in one flat vector, each at its own range: the values, Adam's
//! moments and each chunk's gradients share this layout, so summing the chunks' gradients and
//! Adam's step are single passes over one vector, split evenly over rayon's threads.

use std::ops::{Index, IndexMut, Range};

/// Where each parameter lies in the flat vectors.
#[derive(Clone, Debug, Default)]
pub struct FlatLayout {
    ranges: Vec<Range<usize>>,
}

impl FlatLayout {
    /// Parameters of `sizes` elements, one after the other.
    pub fn new(sizes: impl Iterator<Item = usize>) -> FlatLayout {
        let mut start = 0;
        let ranges = sizes
            .map(|size| {
                let range = start..start + size;
                start += size;
                range
            })
            .collect();
        FlatLayout { ranges }
    }

    /// Elements of all parameters together.
    pub fn len(&self) -> usize {
        self.ranges.last().map_or(0, |r| r.end)
    }

    pub fn range(&self, p: usize) -> Range<usize> {
        self.ranges[p].clone()
    }

    pub fn ranges(&self) -> &[Range<usize>] {
        &self.ranges
    }

    /// The parameters read through this layout.
    pub fn view<'a>(&'a self, data: &'a [f32]) -> Params<'a> {
        assert_eq!(data.len(), self.len(), "a flat vector of another network");
        Params {
            data,
            ranges: &self.ranges,
        }
    }

    /// The parameters written through this layout.
    pub fn view_mut<'a>(&'a self, data: &'a mut [f32]) -> ParamsMut<'a> {
        assert_eq!(data.len(), self.len(), "a flat vector of another network");
        ParamsMut {
            data,
            ranges: &self.ranges,
        }
    }
}

/// A flat vector read parameter by parameter: `params[p]` is parameter `p`'s values.
#[derive(Clone, Copy)]
pub struct Params<'a> {
    data: &'a [f32],
    ranges: &'a [Range<usize>],
}

impl Index<usize> for Params<'_> {
    type Output = [f32];
    fn index(&self, p: usize) -> &[f32] {
        &self.data[self.ranges[p].clone()]
    }
}

/// A flat vector written parameter by parameter.
pub struct ParamsMut<'a> {
    data: &'a mut [f32],
    ranges: &'a [Range<usize>],
}

impl Index<usize> for ParamsMut<'_> {
    type Output = [f32];
    fn index(&self, p: usize) -> &[f32] {
        &self.data[self.ranges[p].clone()]
    }
}

impl IndexMut<usize> for ParamsMut<'_> {
    fn index_mut(&mut self, p: usize) -> &mut [f32] {
        &mut self.data[self.ranges[p].clone()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_lie_one_after_the_other() {
        let layout = FlatLayout::new([3, 0, 2].into_iter());
        assert_eq!(layout.len(), 5);
        assert_eq!(layout.range(2), 3..5);
        let data = [1.0, 2.0, 3.0, 4.0, 5.0];
        let params = layout.view(&data);
        assert_eq!(&params[0], &[1.0, 2.0, 3.0]);
        assert!(params[1].is_empty());
        assert_eq!(&params[2], &[4.0, 5.0]);
    }
}
