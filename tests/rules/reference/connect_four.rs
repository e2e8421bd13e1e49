//! Naive Connect Four on a 6 × 7 grid with a full rescan for lines.

use super::ReferenceGame;

#[derive(Clone, Debug)]
pub struct RefConnectFour {
    /// grid[row][col], row 0 at the bottom; 0 empty, 1 P0, 2 P1.
    pub grid: [[u8; 7]; 6],
    pub player: usize,
    pub winner: Option<usize>,
    pub moves: usize,
}

impl RefConnectFour {
    pub fn new() -> Self {
        RefConnectFour {
            grid: [[0; 7]; 6],
            player: 0,
            winner: None,
            moves: 0,
        }
    }

    fn four_for(&self, stone: u8) -> bool {
        let dirs = [(0i32, 1i32), (1, 0), (1, 1), (1, -1)];
        for r in 0..6i32 {
            for c in 0..7i32 {
                for (dr, dc) in dirs {
                    if (0..4).all(|k| {
                        let (rr, cc) = (r + k * dr, c + k * dc);
                        (0..6).contains(&rr)
                            && (0..7).contains(&cc)
                            && self.grid[rr as usize][cc as usize] == stone
                    }) {
                        return true;
                    }
                }
            }
        }
        false
    }
}

impl ReferenceGame for RefConnectFour {
    fn legal(&self) -> Vec<usize> {
        if self.terminal() {
            return vec![];
        }
        (0..7).filter(|&c| self.grid[5][c] == 0).collect()
    }

    fn apply(&mut self, col: usize) {
        let row = (0..6)
            .find(|&r| self.grid[r][col] == 0)
            .expect("reference: full column");
        self.grid[row][col] = self.player as u8 + 1;
        self.moves += 1;
        if self.four_for(self.player as u8 + 1) {
            self.winner = Some(self.player);
        }
        self.player = 1 - self.player;
    }

    fn terminal(&self) -> bool {
        self.winner.is_some() || self.moves == 42
    }

    fn returns(&self) -> [f32; 2] {
        match self.winner {
            Some(0) => [1.0, -1.0],
            Some(_) => [-1.0, 1.0],
            None => [0.0, 0.0],
        }
    }

    fn score_p0(&self) -> Option<i32> {
        None
    }
}
