//! A perfect Connect Four solver: the exact score of a position and of each of its moves, by the
//! method Pascal Pons describes in "Solving Connect 4: how to build a perfect AI" — negamax with
//! alpha-beta on bitboards, over the moves that do not hand the opponent an immediate win,
//! centre-first move ordering refined by the threats a move makes, a transposition table of
//! upper and lower bounds, and a null-window search that narrows the score by bisection.
//!
//! Scores are Pons': from the side to move, 0 for a draw, positive for a win — the sooner the
//! larger: a win with the player's own k-th stone from the end of the board scores k, i.e.
//! `(43 − moves) / 2` for a win on the move after `moves` stones — and the opposite for a loss.
//! The empty board scores +1 (P0 wins with its last stone, by the centre column).

use crate::games::{ConnectFour, Game};

const COLS: usize = ConnectFour::COLS;
const ROWS: usize = ConnectFour::ROWS;
const COLUMN_BITS: usize = ConnectFour::COLUMN_BITS;
const BOTTOM: u64 = ConnectFour::BOTTOM;
const BOARD_MASK: u64 = ConnectFour::BOARD_MASK;

const CELLS: i32 = (COLS * ROWS) as i32;
/// Columns from the centre out: the usual best first.
const CENTRE_FIRST: [usize; COLS] = [3, 2, 4, 1, 5, 0, 6];
/// The transposition table's default size (entries; ~40 MB).
const DEFAULT_TABLE_ENTRIES: usize = 1 << 23;

/// A position as the solver sees it: the stones of the side to move and of both sides.
#[derive(Clone, Copy, Debug)]
struct Bits {
    mine: u64,
    occupied: u64,
    moves: i32,
}

fn column_cells(col: usize) -> u64 {
    ((1u64 << ROWS) - 1) << (col * COLUMN_BITS)
}

/// The empty cells that would complete a four for `stones` (any height, playable or not).
fn winning_cells(stones: u64, occupied: u64) -> u64 {
    // Vertical: three stones below the cell.
    let mut cells = (stones << 1) & (stones << 2) & (stones << 3);
    // Horizontal, then the two diagonals: a gap at either end or inside a run of three.
    for shift in [COLUMN_BITS, COLUMN_BITS - 1, COLUMN_BITS + 1] {
        let pair = (stones << shift) & (stones << (2 * shift));
        cells |= pair & (stones << (3 * shift));
        cells |= pair & (stones >> shift);
        let pair = (stones >> shift) & (stones >> (2 * shift));
        cells |= pair & (stones << shift);
        cells |= pair & (stones >> (3 * shift));
    }
    cells & (BOARD_MASK ^ occupied)
}

impl Bits {
    fn of(position: &ConnectFour) -> Bits {
        let stones = position.stones();
        Bits {
            mine: stones[position.to_move().index()],
            occupied: stones[0] | stones[1],
            moves: position.ply() as i32,
        }
    }

    /// The lowest empty cell of every column that has one.
    fn playable(&self) -> u64 {
        (self.occupied + BOTTOM) & BOARD_MASK
    }

    fn play(&mut self, cell: u64) {
        self.mine ^= self.occupied;
        self.occupied |= cell;
        self.moves += 1;
    }

    /// A key unique to the position (< 2^49).
    fn key(&self) -> u64 {
        self.mine + self.occupied
    }

    fn can_win_now(&self) -> bool {
        winning_cells(self.mine, self.occupied) & self.playable() != 0
    }

    /// The playable cells that neither leave an immediate win of the opponent unblocked nor
    /// open the cell below one of its winning cells (empty: every move loses at once).
    fn non_losing_moves(&self) -> u64 {
        let mut playable = self.playable();
        let threats = winning_cells(self.mine ^ self.occupied, self.occupied);
        let forced = playable & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0; // two immediate threats: one cannot block both
            }
            playable = forced;
        }
        playable & !(threats >> 1)
    }

    /// How many winning cells the side to move has after playing `cell`.
    fn threats_after(&self, cell: u64) -> u32 {
        winning_cells(self.mine | cell, self.occupied).count_ones()
    }
}

/// A table of bounds on scores, by position: one `u32` of the key and one byte a slot. With a
/// prime number of slots above 2^17, the slot and the key's low 32 bits determine the key.
struct BoundTable {
    keys: Vec<u32>,
    bounds: Vec<u8>,
}

/// What a slot says of its position's score.
enum Bound {
    Upper(i32),
    Lower(i32),
}

/// The lowest and highest scores a position can have: a loss to the opponent's fourth stone,
/// a win with one's own fourth.
const MIN_SCORE: i32 = -(CELLS / 2) + 3;
const MAX_SCORE: i32 = (CELLS + 1) / 2 - 3;

impl BoundTable {
    fn new(entries: usize) -> BoundTable {
        let size = next_prime(entries.max(1 << 17));
        BoundTable {
            keys: vec![0; size],
            bounds: vec![0; size],
        }
    }

    fn get(&self, key: u64) -> Option<Bound> {
        let slot = (key % self.keys.len() as u64) as usize;
        let stored = self.bounds[slot] as i32;
        if stored == 0 || self.keys[slot] != key as u32 {
            return None;
        }
        Some(if stored > MAX_SCORE - MIN_SCORE + 1 {
            Bound::Lower(stored + 2 * MIN_SCORE - MAX_SCORE - 2)
        } else {
            Bound::Upper(stored + MIN_SCORE - 1)
        })
    }

    /// Stores `bound`, clamped to the scores a position can have (which keeps it true).
    fn put(&mut self, key: u64, bound: Bound) {
        let slot = (key % self.keys.len() as u64) as usize;
        let stored = match bound {
            Bound::Upper(score) => score.clamp(MIN_SCORE, MAX_SCORE) - MIN_SCORE + 1,
            Bound::Lower(score) => {
                score.clamp(MIN_SCORE, MAX_SCORE) + MAX_SCORE - 2 * MIN_SCORE + 2
            }
        };
        self.keys[slot] = key as u32;
        self.bounds[slot] = stored as u8;
    }
}

fn next_prime(n: usize) -> usize {
    let is_prime = |n: usize| {
        n >= 2
            && (2..)
                .take_while(|d| d * d <= n)
                .all(|d| !n.is_multiple_of(d))
    };
    (n..).find(|&n| is_prime(n)).expect("a prime exists")
}

/// A solver with its table (kept from one position to the next: bounds stay true).
pub struct ConnectFourSolver {
    table: BoundTable,
    nodes: u64,
}

impl Default for ConnectFourSolver {
    fn default() -> ConnectFourSolver {
        ConnectFourSolver::with_table_entries(DEFAULT_TABLE_ENTRIES)
    }
}

impl ConnectFourSolver {
    /// A solver whose table has about `entries` slots (at least 2^17).
    pub fn with_table_entries(entries: usize) -> ConnectFourSolver {
        ConnectFourSolver {
            table: BoundTable::new(entries),
            nodes: 0,
        }
    }

    /// Positions searched since the solver was made.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact score of `position` for the side to move; `None` when the game is over.
    pub fn score(&mut self, position: &ConnectFour) -> Option<i32> {
        position
            .outcome()
            .is_none()
            .then(|| self.solve(Bits::of(position)))
    }

    /// The score of each column for the side to move (`None`: the column is full, or the game
    /// is over).
    pub fn column_scores(&mut self, position: &ConnectFour) -> [Option<i32>; COLS] {
        let mut scores = [None; COLS];
        if position.outcome().is_some() {
            return scores;
        }
        let bits = Bits::of(position);
        let playable = bits.playable();
        let wins = winning_cells(bits.mine, bits.occupied);
        for (col, score) in scores.iter_mut().enumerate() {
            let cell = playable & column_cells(col);
            if cell == 0 {
                continue;
            }
            *score = Some(if cell & wins != 0 {
                (CELLS + 1 - bits.moves) / 2
            } else {
                let mut child = bits;
                child.play(cell);
                -self.solve(child)
            });
        }
        scores
    }

    fn solve(&mut self, bits: Bits) -> i32 {
        if bits.can_win_now() {
            return (CELLS + 1 - bits.moves) / 2;
        }
        let mut min = -(CELLS - bits.moves) / 2;
        let mut max = (CELLS + 1 - bits.moves) / 2;
        while min < max {
            let mut probe = min + (max - min) / 2;
            // Probe near 0 first: most positions are decided by who wins, not by how soon.
            if probe <= 0 && min / 2 < probe {
                probe = min / 2;
            } else if probe >= 0 && max / 2 > probe {
                probe = max / 2;
            }
            let found = self.negamax(bits, probe, probe + 1);
            if found <= probe {
                max = found;
            } else {
                min = found;
            }
        }
        min
    }

    /// The score within (`alpha`, `beta`): exact inside, a bound outside. The side to move
    /// cannot win at once.
    fn negamax(&mut self, bits: Bits, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        let candidates = bits.non_losing_moves();
        if candidates == 0 {
            return -(CELLS - bits.moves) / 2;
        }
        if bits.moves >= CELLS - 2 {
            return 0;
        }
        // The opponent cannot win on its next move, nor we on this one.
        let min = -(CELLS - 2 - bits.moves) / 2;
        let max = (CELLS - 1 - bits.moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }
        let key = bits.key();
        match self.table.get(key) {
            Some(Bound::Upper(upper)) if beta > upper => {
                beta = upper;
                if alpha >= beta {
                    return beta;
                }
            }
            Some(Bound::Lower(lower)) if alpha < lower => {
                alpha = lower;
                if alpha >= beta {
                    return alpha;
                }
            }
            _ => {}
        }
        let (moves, count) = ordered_moves(&bits, candidates);
        for &cell in &moves[..count] {
            let mut child = bits;
            child.play(cell);
            let score = -self.negamax(child, -beta, -alpha);
            if score >= beta {
                self.table.put(key, Bound::Lower(score));
                return score;
            }
            alpha = alpha.max(score);
        }
        self.table.put(key, Bound::Upper(alpha));
        alpha
    }
}

/// The cells of `candidates`, most threats first, centre first among equals.
fn ordered_moves(bits: &Bits, candidates: u64) -> ([u64; COLS], usize) {
    let mut moves = [(0u32, 0u64); COLS];
    let mut count = 0;
    for col in CENTRE_FIRST {
        let cell = candidates & column_cells(col);
        if cell == 0 {
            continue;
        }
        let threats = bits.threats_after(cell);
        // Insertion after every move with as many threats or more: stable by centre order.
        let mut at = count;
        while at > 0 && moves[at - 1].0 < threats {
            moves[at] = moves[at - 1];
            at -= 1;
        }
        moves[at] = (threats, cell);
        count += 1;
    }
    (moves.map(|(_, cell)| cell), count)
}
