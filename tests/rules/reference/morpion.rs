//! Naive Morpion Solitaire 5D, written from the rules (docs/games.md) without the fast version's
//! tables: points in a `HashSet` of (x, y) with y growing downwards, the cross listed arm by arm
//! as its 12 edges, drawn lines kept as lists of their five points; a line is legal when its five
//! points lie in the 32 × 32 window, exactly one is missing, and no drawn line of its direction
//! holds any of them. Ids `4 · (32 · y + x) + direction` of the first point, directions →, ↓, ↘,
//! ↙, as documented.

use std::collections::HashSet;

use super::ReferenceGame;

const WINDOW: i32 = 32;
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];

#[derive(Clone, Debug)]
pub struct RefMorpion {
    points: HashSet<(i32, i32)>,
    lines: Vec<(usize, Vec<(i32, i32)>)>,
}

impl RefMorpion {
    pub fn new() -> Self {
        // The Greek cross in its 10 × 10 box (x, y from 0), shifted by 11 into the window:
        // the outline of a plus sign, twelve edges of four points.
        let mut points = HashSet::new();
        let edges: [((i32, i32), (i32, i32)); 12] = [
            ((3, 0), (6, 0)),
            ((6, 0), (6, 3)),
            ((6, 3), (9, 3)),
            ((9, 3), (9, 6)),
            ((9, 6), (6, 6)),
            ((6, 6), (6, 9)),
            ((6, 9), (3, 9)),
            ((3, 9), (3, 6)),
            ((3, 6), (0, 6)),
            ((0, 6), (0, 3)),
            ((0, 3), (3, 3)),
            ((3, 3), (3, 0)),
        ];
        for ((x0, y0), (x1, y1)) in edges {
            let (dx, dy) = ((x1 - x0).signum(), (y1 - y0).signum());
            for k in 0..4 {
                points.insert((x0 + k * dx + 11, y0 + k * dy + 11));
            }
        }
        assert_eq!(points.len(), 36);
        RefMorpion {
            points,
            lines: Vec::new(),
        }
    }

    fn line(id: usize) -> (usize, Vec<(i32, i32)>) {
        let direction = id % 4;
        let start = (id / 4) as i32;
        let (x, y) = (start % WINDOW, start / WINDOW);
        let (dx, dy) = DIRECTIONS[direction];
        (
            direction,
            (0..5).map(|k| (x + k * dx, y + k * dy)).collect(),
        )
    }

    fn drawable(&self, id: usize) -> bool {
        let (direction, cells) = Self::line(id);
        let inside = cells
            .iter()
            .all(|&(x, y)| (0..WINDOW).contains(&x) && (0..WINDOW).contains(&y));
        let missing = cells.iter().filter(|c| !self.points.contains(c)).count();
        let overlaps = self
            .lines
            .iter()
            .any(|(d, drawn)| *d == direction && drawn.iter().any(|c| cells.contains(c)));
        inside && missing == 1 && !overlaps
    }
}

impl ReferenceGame for RefMorpion {
    fn legal(&self) -> Vec<usize> {
        (0..4 * 32 * 32).filter(|&id| self.drawable(id)).collect()
    }

    fn apply(&mut self, action: usize) {
        assert!(self.drawable(action), "illegal line {action}");
        let (direction, cells) = Self::line(action);
        self.points.extend(cells.iter().copied());
        self.lines.push((direction, cells));
    }

    fn terminal(&self) -> bool {
        self.legal().is_empty()
    }

    /// A draw, unless the game reached 84 lines (a win).
    fn returns(&self) -> [f32; 2] {
        if self.terminal() && self.lines.len() >= 84 {
            [1.0, -1.0]
        } else {
            [0.0, 0.0]
        }
    }

    fn score_p0(&self) -> Option<i32> {
        Some(self.lines.len() as i32)
    }
}
