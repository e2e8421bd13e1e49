//! Naive Othello on an `n × n` grid: for every empty cell, walk the 8 directions cell by cell
//! looking for enemy discs closed by an own one. The start is the four central discs, Black
//! (P0) on the two off-diagonal ones; a player who cannot place passes (id `n²`); the game ends
//! when neither can place.

use super::ReferenceGame;

#[derive(Clone, Debug)]
pub struct RefOthello {
    n: usize,
    /// 0 empty, 1 P0, 2 P1, row-major.
    cells: Vec<u8>,
    player: usize,
}

const STEPS: [(i64, i64); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

impl RefOthello {
    pub fn new(n: usize) -> Self {
        let mut cells = vec![0; n * n];
        let (low, high) = (n / 2 - 1, n / 2);
        cells[low * n + high] = 1;
        cells[high * n + low] = 1;
        cells[low * n + low] = 2;
        cells[high * n + high] = 2;
        RefOthello {
            n,
            cells,
            player: 0,
        }
    }

    /// The cells `player` (1 or 2) flips by placing on `cell`.
    fn flipped(&self, cell: usize, player: u8) -> Vec<usize> {
        let n = self.n as i64;
        let mut all = Vec::new();
        for (dr, dc) in STEPS {
            let (mut r, mut c) = ((cell as i64) / n + dr, (cell as i64) % n + dc);
            let mut line = Vec::new();
            while (0..n).contains(&r) && (0..n).contains(&c) {
                let at = (r * n + c) as usize;
                match self.cells[at] {
                    0 => break,
                    owner if owner == player => {
                        all.extend(line.iter().copied());
                        break;
                    }
                    _ => line.push(at),
                }
                r += dr;
                c += dc;
            }
        }
        all
    }

    fn placements(&self, player: u8) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&cell| self.cells[cell] == 0 && !self.flipped(cell, player).is_empty())
            .collect()
    }

    fn count(&self, player: u8) -> i32 {
        self.cells.iter().filter(|&&c| c == player).count() as i32
    }
}

impl ReferenceGame for RefOthello {
    fn legal(&self) -> Vec<usize> {
        if self.terminal() {
            return Vec::new();
        }
        let moves = self.placements(self.player as u8 + 1);
        if moves.is_empty() {
            vec![self.n * self.n]
        } else {
            moves
        }
    }

    fn apply(&mut self, action: usize) {
        let mover = self.player as u8 + 1;
        if action < self.n * self.n {
            for cell in self.flipped(action, mover) {
                self.cells[cell] = mover;
            }
            self.cells[action] = mover;
        }
        self.player = 1 - self.player;
    }

    fn terminal(&self) -> bool {
        self.placements(1).is_empty() && self.placements(2).is_empty()
    }

    fn returns(&self) -> [f32; 2] {
        if !self.terminal() {
            return [0.0, 0.0];
        }
        match self.count(1).cmp(&self.count(2)) {
            std::cmp::Ordering::Greater => [1.0, -1.0],
            std::cmp::Ordering::Less => [-1.0, 1.0],
            std::cmp::Ordering::Equal => [0.0, 0.0],
        }
    }

    fn score_p0(&self) -> Option<i32> {
        Some(self.count(1) - self.count(2))
    }
}
