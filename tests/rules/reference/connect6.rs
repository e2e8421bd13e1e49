//! Naive Connect6 on a 19 × 19 grid: after every stone, scan the whole board for six or more in a
//! row in the four directions; the mover is computed from the number of stones on the board
//! (one for Black, then two each, White first).

use super::ReferenceGame;

const N: usize = 19;

#[derive(Clone, Debug)]
pub struct RefConnect6 {
    /// 0 empty, 1 Black (P0), 2 White (P1), row-major.
    grid: Vec<u8>,
    winner: Option<u8>,
}

impl RefConnect6 {
    pub fn new() -> Self {
        RefConnect6 {
            grid: vec![0; N * N],
            winner: None,
        }
    }

    /// 1 or 2: who places the next stone.
    fn mover(&self) -> u8 {
        let stones = self.grid.iter().filter(|&&c| c != 0).count();
        match stones {
            0 => 1,
            // Stones 1 and 2 are White's, 3 and 4 Black's, ...
            k if k.div_ceil(2) % 2 == 1 => 2,
            _ => 1,
        }
    }

    fn has_six(&self, who: u8) -> bool {
        for row in 0..N as i64 {
            for col in 0..N as i64 {
                for (dr, dc) in [(0i64, 1i64), (1, 0), (1, 1), (1, -1)] {
                    let six = (0..6).all(|k| {
                        let (r, c) = (row + k * dr, col + k * dc);
                        (0..N as i64).contains(&r)
                            && (0..N as i64).contains(&c)
                            && self.grid[(r * N as i64 + c) as usize] == who
                    });
                    if six {
                        return true;
                    }
                }
            }
        }
        false
    }
}

impl ReferenceGame for RefConnect6 {
    fn legal(&self) -> Vec<usize> {
        if self.terminal() {
            return vec![];
        }
        (0..N * N).filter(|&c| self.grid[c] == 0).collect()
    }

    fn apply(&mut self, action: usize) {
        let who = self.mover();
        self.grid[action] = who;
        if self.has_six(who) {
            self.winner = Some(who);
        }
    }

    fn terminal(&self) -> bool {
        self.winner.is_some() || self.grid.iter().all(|&c| c != 0)
    }

    fn returns(&self) -> [f32; 2] {
        match self.winner {
            Some(1) => [1.0, -1.0],
            Some(_) => [-1.0, 1.0],
            None => [0.0, 0.0],
        }
    }

    fn score_p0(&self) -> Option<i32> {
        None
    }
}
