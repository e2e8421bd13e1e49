//! Naive tic-tac-toe on a 3 × 3 grid.

use super::ReferenceGame;

#[derive(Clone, Debug)]
pub struct RefTicTacToe {
    /// cells[3·row + col]: 0 empty, 1 P0, 2 P1.
    pub cells: [u8; 9],
    pub player: usize,
}

impl RefTicTacToe {
    pub fn new() -> Self {
        RefTicTacToe {
            cells: [0; 9],
            player: 0,
        }
    }

    fn winner(&self) -> Option<u8> {
        let lines = [
            [0, 1, 2],
            [3, 4, 5],
            [6, 7, 8],
            [0, 3, 6],
            [1, 4, 7],
            [2, 5, 8],
            [0, 4, 8],
            [2, 4, 6],
        ];
        lines
            .iter()
            .find(|l| {
                self.cells[l[0]] != 0
                    && self.cells[l[0]] == self.cells[l[1]]
                    && self.cells[l[1]] == self.cells[l[2]]
            })
            .map(|l| self.cells[l[0]])
    }
}

impl ReferenceGame for RefTicTacToe {
    fn legal(&self) -> Vec<usize> {
        if self.terminal() {
            return vec![];
        }
        (0..9).filter(|&c| self.cells[c] == 0).collect()
    }

    fn apply(&mut self, cell: usize) {
        assert_eq!(self.cells[cell], 0, "reference: occupied cell");
        self.cells[cell] = self.player as u8 + 1;
        self.player = 1 - self.player;
    }

    fn terminal(&self) -> bool {
        self.winner().is_some() || self.cells.iter().all(|&c| c != 0)
    }

    fn returns(&self) -> [f32; 2] {
        match self.winner() {
            Some(1) => [1.0, -1.0],
            Some(_) => [-1.0, 1.0],
            None => [0.0, 0.0],
        }
    }

    fn score_p0(&self) -> Option<i32> {
        None
    }
}
