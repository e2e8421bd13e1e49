//! Naive international draughts on an `n × n` grid of cells (row 0 at the top, Black's side;
//! the dark cells have `row + col` odd), written from the FMJD rules without the fast version's
//! bit sets or tables: captures are found by a recursive walk over coordinates that marks the
//! jumped cells, then only the longest are kept; positions for the repetition rule are whole
//! grids in a map. Ids follow the game's documented numbering: `(from · S + to) · K + k` over the
//! dark squares in PDN order, `k` the rank of the captured set (as a bit mask) among the captures
//! sharing from and to.

use std::collections::HashMap;

use super::ReferenceGame;

const EMPTY: u8 = 0;
const WHITE_MAN: u8 = 1;
const WHITE_KING: u8 = 2;
const BLACK_MAN: u8 = 3;
const BLACK_KING: u8 = 4;

#[derive(Clone, Debug)]
pub struct RefDraughts {
    n: usize,
    grid: Vec<u8>,
    /// 0 = White to move, 1 = Black.
    player: usize,
    plies: usize,
    king_plies: usize,
    ending: Option<usize>,
    ending_plies: usize,
    seen: HashMap<(Vec<u8>, usize), usize>,
    winner: Option<usize>,
    drawn: bool,
    /// Plies of quiet king moves that draw (50 under FMJD), and the ply cap.
    king_ply_limit: usize,
    max_plies: usize,
}

/// A move: cells as (row, col), the captured cells.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RefMove {
    from: (usize, usize),
    to: (usize, usize),
    captured: Vec<(usize, usize)>,
}

impl RefDraughts {
    /// The start under FMJD's draws and a 1 000-ply cap.
    pub fn new(n: usize) -> Self {
        Self::with_limits(n, 25, 1000)
    }

    /// The start with `king_moves` moves each of quiet king play drawing, and a ply cap.
    pub fn with_limits(n: usize, king_moves: usize, max_plies: usize) -> Self {
        let mut grid = vec![EMPTY; n * n];
        let rows = n / 2 - 1;
        for row in 0..n {
            for col in 0..n {
                if (row + col) % 2 == 1 {
                    if row < rows {
                        grid[row * n + col] = BLACK_MAN;
                    } else if row >= n - rows {
                        grid[row * n + col] = WHITE_MAN;
                    }
                }
            }
        }
        let mut game = RefDraughts {
            n,
            grid,
            player: 0,
            plies: 0,
            king_plies: 0,
            ending: None,
            ending_plies: 0,
            seen: HashMap::new(),
            winner: None,
            drawn: false,
            king_ply_limit: 2 * king_moves,
            max_plies,
        };
        game.seen.insert((game.grid.clone(), 0), 1);
        game
    }

    fn owner(piece: u8) -> Option<usize> {
        match piece {
            WHITE_MAN | WHITE_KING => Some(0),
            BLACK_MAN | BLACK_KING => Some(1),
            _ => None,
        }
    }

    fn at(&self, row: i64, col: i64) -> Option<u8> {
        let n = self.n as i64;
        (row >= 0 && col >= 0 && row < n && col < n).then(|| self.grid[(row * n + col) as usize])
    }

    fn square(&self, (row, col): (usize, usize)) -> usize {
        row * (self.n / 2) + col / 2
    }

    fn all_moves(&self) -> Vec<RefMove> {
        let mut captures = Vec::new();
        for row in 0..self.n {
            for col in 0..self.n {
                let piece = self.grid[row * self.n + col];
                if Self::owner(piece) == Some(self.player) {
                    let king = piece == WHITE_KING || piece == BLACK_KING;
                    let mut jumped = Vec::new();
                    self.walk((row, col), (row, col), king, &mut jumped, &mut captures);
                }
            }
        }
        let longest = captures.iter().map(|m: &RefMove| m.captured.len()).max();
        if let Some(longest) = longest {
            captures.retain(|m| m.captured.len() == longest);
            for m in &mut captures {
                m.captured.sort();
            }
            captures.sort_by_key(|m| (m.from, m.to, m.captured.clone()));
            captures.dedup();
            return captures;
        }
        self.steps()
    }

    /// Extends a capture from `at`, `jumped` holding the cells taken so far.
    fn walk(
        &self,
        from: (usize, usize),
        at: (usize, usize),
        king: bool,
        jumped: &mut Vec<(usize, usize)>,
        out: &mut Vec<RefMove>,
    ) {
        let mut extended = false;
        let free = |r: i64, c: i64| {
            self.at(r, c) == Some(EMPTY) || (r, c) == (from.0 as i64, from.1 as i64)
        };
        for (dr, dc) in [(-1i64, -1i64), (-1, 1), (1, -1), (1, 1)] {
            let (mut r, mut c) = (at.0 as i64 + dr, at.1 as i64 + dc);
            if king {
                while self.at(r, c).is_some() && free(r, c) {
                    r += dr;
                    c += dc;
                }
            }
            let Some(piece) = self.at(r, c) else { continue };
            let victim = (r as usize, c as usize);
            let is_enemy = Self::owner(piece) == Some(1 - self.player) && !free(r, c);
            if !is_enemy || jumped.contains(&victim) {
                continue;
            }
            let (mut lr, mut lc) = (r + dr, c + dc);
            while self.at(lr, lc).is_some() && free(lr, lc) {
                extended = true;
                jumped.push(victim);
                self.walk(from, (lr as usize, lc as usize), king, jumped, out);
                jumped.pop();
                if !king {
                    break;
                }
                lr += dr;
                lc += dc;
            }
        }
        if !extended && !jumped.is_empty() {
            out.push(RefMove {
                from,
                to: at,
                captured: jumped.clone(),
            });
        }
    }

    fn steps(&self) -> Vec<RefMove> {
        let mut out = Vec::new();
        for row in 0..self.n {
            for col in 0..self.n {
                let piece = self.grid[row * self.n + col];
                if Self::owner(piece) != Some(self.player) {
                    continue;
                }
                let king = piece == WHITE_KING || piece == BLACK_KING;
                let forward = if self.player == 0 { -1 } else { 1 };
                for (dr, dc) in [(-1i64, -1i64), (-1, 1), (1, -1), (1, 1)] {
                    if !king && dr != forward {
                        continue;
                    }
                    let (mut r, mut c) = (row as i64 + dr, col as i64 + dc);
                    while self.at(r, c) == Some(EMPTY) {
                        out.push(RefMove {
                            from: (row, col),
                            to: (r as usize, c as usize),
                            captured: vec![],
                        });
                        if !king {
                            break;
                        }
                        r += dr;
                        c += dc;
                    }
                }
            }
        }
        out.sort_by_key(|m| (m.from, m.to));
        out
    }

    fn slots(&self) -> usize {
        let squares = self.n * self.n / 2;
        (65_536 / (squares * squares)).min(16)
    }

    /// The moves with their ids, in increasing id order.
    fn moves_with_ids(&self) -> Vec<(usize, RefMove)> {
        let squares = self.n * self.n / 2;
        let mask = |m: &RefMove| -> u128 {
            m.captured
                .iter()
                .map(|&cell| 1u128 << self.square(cell))
                .sum()
        };
        let mut keyed: Vec<(usize, usize, u128, RefMove)> = self
            .all_moves()
            .into_iter()
            .map(|m| (self.square(m.from), self.square(m.to), mask(&m), m))
            .collect();
        keyed.sort_by_key(|(f, t, mask, _)| (*f, *t, *mask));
        let mut out = Vec::new();
        for (i, (from, to, _, m)) in keyed.iter().enumerate() {
            let k = keyed[..i]
                .iter()
                .filter(|(f, t, _, _)| (f, t) == (from, to))
                .count();
            out.push(((from * squares + to) * self.slots() + k, m.clone()));
        }
        out
    }

    /// (pieces, kings) of each side.
    fn material(&self) -> [(usize, usize); 2] {
        let count = |kinds: &[u8]| self.grid.iter().filter(|p| kinds.contains(p)).count();
        [
            (count(&[WHITE_MAN, WHITE_KING]), count(&[WHITE_KING])),
            (count(&[BLACK_MAN, BLACK_KING]), count(&[BLACK_KING])),
        ]
    }

    /// 32 plies for three pieces with a king against a lone king, 10 for two or one.
    fn ending_limit(&self) -> Option<usize> {
        let m = self.material();
        for (strong, weak) in [(m[0], m[1]), (m[1], m[0])] {
            if weak == (1, 1) && strong.1 >= 1 {
                return match strong.0 {
                    1 | 2 => Some(10),
                    3 => Some(32),
                    _ => None,
                };
            }
        }
        None
    }
}

impl ReferenceGame for RefDraughts {
    fn legal(&self) -> Vec<usize> {
        if self.terminal() {
            return vec![];
        }
        self.moves_with_ids()
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    }

    fn apply(&mut self, action: usize) {
        let (_, m) = self
            .moves_with_ids()
            .into_iter()
            .find(|(id, _)| *id == action)
            .expect("a legal reference action");
        let n = self.n;
        let mut piece = self.grid[m.from.0 * n + m.from.1];
        let was_king = piece == WHITE_KING || piece == BLACK_KING;
        self.grid[m.from.0 * n + m.from.1] = EMPTY;
        for &(r, c) in &m.captured {
            self.grid[r * n + c] = EMPTY;
        }
        let far_row = if self.player == 0 { 0 } else { n - 1 };
        if !was_king && m.to.0 == far_row {
            piece = if self.player == 0 {
                WHITE_KING
            } else {
                BLACK_KING
            };
        }
        self.grid[m.to.0 * n + m.to.1] = piece;
        self.player = 1 - self.player;
        self.plies += 1;
        let quiet_king_move = was_king && m.captured.is_empty();
        self.king_plies = if quiet_king_move {
            self.king_plies + 1
        } else {
            0
        };
        let ending = self.ending_limit();
        let goes_on = ending.is_some() && ending == self.ending && m.captured.is_empty();
        self.ending_plies = if goes_on { self.ending_plies + 1 } else { 0 };
        self.ending = ending;
        let seen = self
            .seen
            .entry((self.grid.clone(), self.player))
            .or_insert(0);
        *seen += 1;
        let repeated = *seen >= 3;
        if self.all_moves().is_empty() {
            self.winner = Some(1 - self.player);
        } else if repeated
            || self.king_plies >= self.king_ply_limit
            || ending.is_some_and(|limit| self.ending_plies >= limit)
            || self.plies >= self.max_plies
        {
            self.drawn = true;
        }
    }

    fn terminal(&self) -> bool {
        self.winner.is_some() || self.drawn
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
