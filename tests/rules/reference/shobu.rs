//! Naive Shobu, transcribed from the LINFO1361 rules: a grid of cells per board, (row, column)
//! geometry, every candidate (passive stone, direction, length, aggressive stone) checked from
//! scratch, the legal ids sorted at the end.

use super::ReferenceGame;

/// (row, column) steps: N, NE, E, SE, S, SW, W, NW (row 0 at P0's side).
const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
const NO_PUSH_DRAW: usize = 50;
const MAX_PLIES: usize = 1000;

#[derive(Clone, Debug)]
pub struct RefShobu {
    /// `cells[board][row][column]`: -1 empty, 0 a stone of P0, 1 a stone of P1.
    pub cells: Vec<Vec<Vec<i32>>>,
    pub player: usize,
    pub no_push: usize,
    pub plies: usize,
    /// 0 or 1: that player won; 2: a draw.
    pub winner: Option<usize>,
}

/// The square `k` steps from (row, column) in `direction`, if on the board.
fn step(row: i32, col: i32, direction: usize, k: i32) -> Option<(usize, usize)> {
    let (r, c) = (
        row + k * DIRECTIONS[direction].0,
        col + k * DIRECTIONS[direction].1,
    );
    ((0..4).contains(&r) && (0..4).contains(&c)).then_some((r as usize, c as usize))
}

fn action_id(j: usize, ps: usize, i: usize, as_: usize, direction: usize, length: usize) -> usize {
    ((((j * 16 + ps) * 2 + i) * 16 + as_) * 8 + direction) * 2 + length - 1
}

impl RefShobu {
    pub fn new() -> Self {
        let mut board = vec![vec![-1; 4]; 4];
        board[0] = vec![0; 4];
        board[3] = vec![1; 4];
        RefShobu {
            cells: vec![board; 4],
            player: 0,
            no_push: 0,
            plies: 0,
            winner: None,
        }
    }

    fn passive_ok(&self, board: usize, square: usize, direction: usize, length: usize) -> bool {
        let (row, col) = ((square / 4) as i32, (square % 4) as i32);
        (1..=length as i32).all(|k| {
            step(row, col, direction, k).is_some_and(|(r, c)| self.cells[board][r][c] == -1)
        })
    }

    /// The square of the pushed stone, `Some(None)` for a legal move without a push, `None` for
    /// an illegal move.
    fn aggressive(
        &self,
        board: usize,
        square: usize,
        direction: usize,
        length: usize,
    ) -> Option<Option<(usize, usize)>> {
        let (row, col) = ((square / 4) as i32, (square % 4) as i32);
        let mut pushed = None;
        for k in 1..=length as i32 {
            let (r, c) = step(row, col, direction, k)?;
            let cell = self.cells[board][r][c];
            if cell == self.player as i32 {
                return None;
            }
            if cell != -1 {
                if pushed.is_some() {
                    return None;
                }
                pushed = Some((r, c));
            }
        }
        if pushed.is_some()
            && let Some((r, c)) = step(row, col, direction, length as i32 + 1)
            && self.cells[board][r][c] != -1
        {
            return None;
        }
        Some(pushed)
    }

    fn all_legal(&self) -> Vec<usize> {
        let me = self.player;
        let mut ids = Vec::new();
        for j in 0..2 {
            let passive_board = 2 * me + j;
            for ps in 0..16 {
                if self.cells[passive_board][ps / 4][ps % 4] != me as i32 {
                    continue;
                }
                for direction in 0..8 {
                    for length in 1..=2 {
                        if !self.passive_ok(passive_board, ps, direction, length) {
                            continue;
                        }
                        for i in 0..2 {
                            let board = 2 * i + 1 - j;
                            for as_ in 0..16 {
                                if self.cells[board][as_ / 4][as_ % 4] == me as i32
                                    && self.aggressive(board, as_, direction, length).is_some()
                                {
                                    ids.push(action_id(j, ps, i, as_, direction, length));
                                }
                            }
                        }
                    }
                }
            }
        }
        ids.sort_unstable();
        ids
    }

    fn decide(&mut self) {
        let stones = |board: &Vec<Vec<i32>>, player: i32| {
            board
                .iter()
                .flatten()
                .filter(|&&cell| cell == player)
                .count()
        };
        if self.all_legal().is_empty() {
            self.winner = Some(1 - self.player);
        } else if let Some(board) = self.cells.iter().find(|b| stones(b, 0) * stones(b, 1) == 0) {
            self.winner = Some(if stones(board, 0) == 0 { 1 } else { 0 });
        } else if self.no_push >= NO_PUSH_DRAW || self.plies >= MAX_PLIES {
            self.winner = Some(2);
        }
    }
}

impl ReferenceGame for RefShobu {
    fn legal(&self) -> Vec<usize> {
        if self.winner.is_some() {
            return vec![];
        }
        self.all_legal()
    }

    fn apply(&mut self, id: usize) {
        let length = id % 2 + 1;
        let direction = id / 2 % 8;
        let as_ = id / 16 % 16;
        let i = id / 256 % 2;
        let ps = id / 512 % 16;
        let j = id / 8192;
        let me = self.player;
        let passive_board = 2 * me + j;
        let board = 2 * i + 1 - j;
        let pushed = self
            .aggressive(board, as_, direction, length)
            .expect("a legal aggressive move");
        // Passive move.
        let (row, col) = ((ps / 4) as i32, (ps % 4) as i32);
        let (r, c) = step(row, col, direction, length as i32).unwrap();
        self.cells[passive_board][ps / 4][ps % 4] = -1;
        self.cells[passive_board][r][c] = me as i32;
        // Aggressive move, with its push.
        let (row, col) = ((as_ / 4) as i32, (as_ % 4) as i32);
        if let Some((pr, pc)) = pushed {
            self.cells[board][pr][pc] = -1;
            if let Some((r, c)) = step(row, col, direction, length as i32 + 1) {
                self.cells[board][r][c] = 1 - me as i32;
            }
            self.no_push = 0;
        } else {
            self.no_push += 1;
        }
        let (r, c) = step(row, col, direction, length as i32).unwrap();
        self.cells[board][as_ / 4][as_ % 4] = -1;
        self.cells[board][r][c] = me as i32;
        self.player = 1 - me;
        self.plies += 1;
        self.decide();
    }

    fn terminal(&self) -> bool {
        self.winner.is_some()
    }

    fn returns(&self) -> [f32; 2] {
        match self.winner {
            Some(0) => [1.0, -1.0],
            Some(1) => [-1.0, 1.0],
            _ => [0.0, 0.0],
        }
    }

    fn score_p0(&self) -> Option<i32> {
        let count = |player: i32| {
            self.cells
                .iter()
                .flatten()
                .flatten()
                .filter(|&&c| c == player)
                .count()
        };
        Some(count(0) as i32 - count(1) as i32)
    }
}
