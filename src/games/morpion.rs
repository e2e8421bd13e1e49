//! Morpion Solitaire 5D (join five, disjoint version; paper §12.1, docs/games.md): a
//! **one-player** game. The start is a Greek cross of 36 points; a move adds one point so that a
//! line of 5 consecutive points through it — horizontal, vertical, diagonal or anti-diagonal — is
//! entirely occupied, and draws that line; two lines of the same direction may not share any
//! point (5D). The game ends when no line can be drawn; the score is the number of moves (the
//! record is 82, the proven upper bound 84).
//!
//! - **Board**: the grid is unbounded in the rules; here it is a 32 × 32 window with the cross's
//!   10 × 10 box at rows and columns 11-20 (centred: rotation by 180° maps it onto itself). A
//!   line must lie inside the window; the longest known games (82 moves) stay within 16 × 16 of
//!   the centre, so the window changes no game reached in practice.
//! - **Actions**: a line, id = 4 · start + direction, start = 32 · row + column of its first
//!   point, direction 0 `h` (→), 1 `v` (↓), 2 `d` (↘), 3 `a` (↙): 4 096 ids. The new point is
//!   the line's single empty point. Text: `row,column` of the start then the direction letter,
//!   e.g. `11,14v` (rows and columns 0-31 from the top left).
//! - **One player**: P0 moves every turn (`ONE_PLAYER`): every search maximises at every node,
//!   the learner's targets are P0's. Every finished game is a draw except one reaching 84 moves,
//!   a win (the paper's §12.4); the reinforcement heuristic `score` values a finished game by its
//!   score (`TerminalEval::Score` on one-player games), so the network learns the score.
//! - **Symmetries**: rotation by 180° only — it keeps each line's direction; the other
//!   dihedral maps exchange directions, which the per-direction planes of the encoding cannot
//!   follow by a permutation of cells.

use std::fmt;

use super::bitset::Bits;
use super::board_view::{BoardView, Cell, Layout, stone};
use super::game::{Action, EncodingShape, Game, MoveError, Outcome, Player, Symmetry};
use super::game_params::GameParams;
use super::registry::GameVisitor;
use super::zobrist;

const SIZE: usize = 32;
const CELLS: usize = SIZE * SIZE;
const NUM_ACTIONS: usize = 4 * CELLS;
/// The proven upper bound of 5D: a game reaching it is a win (paper §12.4).
pub const WINNING_SCORE: usize = 84;
/// Row and column of the cross's 10 × 10 box's first cell.
const CROSS_OFFSET: usize = 11;
/// Row and column steps of the four directions.
const STEPS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];
const DIRECTION_LETTERS: [char; 4] = ['h', 'v', 'd', 'a'];
/// Marks an id whose line leaves the window.
const OUTSIDE: u16 = u16::MAX;

type Board = Bits<16>;

/// The five cells of each line id (`[OUTSIDE; 5]` for ids leaving the window).
static LINE_CELLS: [[u16; 5]; NUM_ACTIONS] = {
    let mut table = [[OUTSIDE; 5]; NUM_ACTIONS];
    let mut id = 0;
    while id < NUM_ACTIONS {
        let (row, col) = ((id / 4 / SIZE) as isize, (id / 4 % SIZE) as isize);
        let (d_row, d_col) = STEPS[id % 4];
        let (end_row, end_col) = (row + 4 * d_row, col + 4 * d_col);
        if end_row < SIZE as isize && end_col >= 0 && end_col < SIZE as isize {
            let mut k = 0;
            while k < 5 {
                let cell = (row + k * d_row) as usize * SIZE + (col + k * d_col) as usize;
                table[id][k as usize] = cell as u16;
                k += 1;
            }
        }
        id += 1;
    }
    table
};

static LINE_KEYS: [u64; NUM_ACTIONS] = zobrist::keys(0x6d6f_7270_696f_6e35);

/// Rotation by 180°: cell c ↦ 1023 − c; a line keeps its direction and starts at the image of
/// its last cell.
static ROTATED_CELLS: [u16; CELLS] = {
    let mut table = [0u16; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        table[cell] = (CELLS - 1 - cell) as u16;
        cell += 1;
    }
    table
};
static ROTATED_ACTIONS: [Action; NUM_ACTIONS] = {
    let mut table = [0 as Action; NUM_ACTIONS];
    let mut id = 0;
    while id < NUM_ACTIONS {
        let last = LINE_CELLS[id][4];
        table[id] = if last == OUTSIDE {
            id as Action
        } else {
            ((CELLS - 1 - last as usize) * 4 + id % 4) as Action
        };
        id += 1;
    }
    table
};
const SYMMETRIES: [Symmetry; 1] = [Symmetry {
    name: "rot180",
    cell_image: &ROTATED_CELLS,
    action_image: &ROTATED_ACTIONS,
}];

/// The cells of the Greek cross (docs/games.md), in the window.
fn cross() -> Board {
    let mut board = Board::EMPTY;
    let mut add = |row: usize, col: usize| {
        board.insert((row + CROSS_OFFSET) * SIZE + col + CROSS_OFFSET);
    };
    for k in 3..=6 {
        add(0, k);
        add(9, k);
        add(k, 0);
        add(k, 9);
    }
    for k in 0..=3 {
        for (row, col) in [(3, k), (6, k), (3, 9 - k), (6, 9 - k)] {
            add(row, col);
            add(col, row);
        }
    }
    board
}

/// Morpion Solitaire has no parameters (the disjoint version, the paper's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MorpionParams;

/// A Morpion Solitaire 5D position.
#[derive(Clone, Debug)]
pub struct Morpion {
    points: Board,
    /// The points used by a line of each direction.
    used: [Board; 4],
    ply: u16,
    /// Lines drawable here.
    moves_available: u16,
    /// Legal moves summed over the positions before each move.
    mobility: u32,
    /// Rows and columns holding points: `[first row, last row, first column, last column]`.
    extent: [u8; 4],
    hash: u64,
}

impl Morpion {
    /// Whether line `id` can be drawn: inside the window, exactly one of its points empty, none
    /// used by a line of its direction.
    fn can_draw(&self, id: usize) -> bool {
        let cells = &LINE_CELLS[id];
        if cells[0] == OUTSIDE {
            return false;
        }
        let used = &self.used[id % 4];
        let mut empty = 0;
        for &cell in cells {
            let cell = cell as usize;
            if used.contains(cell) {
                return false;
            }
            empty += usize::from(!self.points.contains(cell));
        }
        empty == 1
    }

    /// The ids that may be drawable: lines starting within 4 rows and columns of the points.
    fn candidates(&self) -> impl Iterator<Item = usize> + '_ {
        let [first_row, last_row, first_col, last_col] = self.extent.map(usize::from);
        let rows = first_row.saturating_sub(4)..=last_row.min(SIZE - 1);
        rows.flat_map(move |row| {
            let cols = first_col.saturating_sub(4)..=(last_col + 4).min(SIZE - 1);
            cols.flat_map(move |col| (0..4).map(move |d| 4 * (row * SIZE + col) + d))
        })
    }

    fn count_moves(&self) -> u16 {
        self.candidates().filter(|&id| self.can_draw(id)).count() as u16
    }

    /// The score: lines drawn.
    pub fn score(&self) -> usize {
        self.ply as usize
    }

    fn extend(&mut self, cell: usize) {
        let (row, col) = ((cell / SIZE) as u8, (cell % SIZE) as u8);
        let [first_row, last_row, first_col, last_col] = &mut self.extent;
        *first_row = (*first_row).min(row);
        *last_row = (*last_row).max(row);
        *first_col = (*first_col).min(col);
        *last_col = (*last_col).max(col);
    }
}

impl GameParams for MorpionParams {
    const NAME: &'static str = Morpion::NAME;
    const DESCRIPTION: &'static str = "Morpion Solitaire 5D, one player: add a point completing a line of five, lines of a direction disjoint; score = lines";

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Morpion::new(self))
    }
}

impl Game for Morpion {
    const NAME: &'static str = "morpion";
    const NUM_ACTIONS: usize = NUM_ACTIONS;
    const HAS_DRAWS: bool = true;
    const ONE_PLAYER: bool = true;
    /// Planes over the window: the points, then the points used by a line of each direction
    /// (h, v, d, a).
    const ENCODING: EncodingShape = EncodingShape {
        planes: 5,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;

    type Params = MorpionParams;

    fn new(_params: &MorpionParams) -> Morpion {
        let first = CROSS_OFFSET as u8;
        let last = (CROSS_OFFSET + 9) as u8;
        let mut position = Morpion {
            points: cross(),
            used: [Board::EMPTY; 4],
            ply: 0,
            moves_available: 0,
            mobility: 0,
            extent: [first, last, first, last],
            hash: 0,
        };
        position.moves_available = position.count_moves();
        position
    }

    fn params(&self) -> &MorpionParams {
        &MorpionParams
    }

    /// Each move uses 5 of the at most 4 · 1 024 (point, direction) pairs of the window.
    fn max_game_length(&self) -> usize {
        4 * CELLS / 5
    }

    fn to_move(&self) -> Player {
        Player::P0
    }

    fn ply(&self) -> usize {
        self.ply as usize
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        out.extend(
            self.candidates()
                .filter(|&id| self.can_draw(id))
                .map(|id| id as Action),
        );
    }

    fn is_legal(&self, action: Action) -> bool {
        (action as usize) < NUM_ACTIONS && self.can_draw(action as usize)
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Morpion line {action}\n{self}"
        );
        let id = action as usize;
        for &cell in &LINE_CELLS[id] {
            let cell = cell as usize;
            self.used[id % 4].insert(cell);
            if !self.points.contains(cell) {
                self.points.insert(cell);
                self.extend(cell);
            }
        }
        self.mobility += u32::from(self.moves_available);
        self.hash ^= LINE_KEYS[id];
        self.ply += 1;
        self.moves_available = self.count_moves();
    }

    fn outcome(&self) -> Option<Outcome> {
        match (self.moves_available, self.score() >= WINNING_SCORE) {
            (0, true) => Some(Outcome::WinP0),
            (0, false) => Some(Outcome::Draw),
            _ => None,
        }
    }

    /// The lines drawn (which determine the points).
    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        // A drawn line is the one set of 5 used points of its direction starting at its first.
        (0..NUM_ACTIONS)
            .filter(|&id| self.is_drawn(id))
            .fold(0, |hash, id| hash ^ LINE_KEYS[id])
    }

    /// Points as stones (the cross's black, the added white) on the part of the window that
    /// holds them and two cells around, the lines drawn between their ends; a cell is named
    /// `row,column` as the move texts write a line's start.
    fn board_view(&self) -> BoardView {
        let start = cross();
        let [first_row, last_row, first_col, last_col] = self.extent.map(usize::from);
        let rows = first_row.saturating_sub(2)..=(last_row + 2).min(SIZE - 1);
        let cols = first_col.saturating_sub(2)..=(last_col + 2).min(SIZE - 1);
        let (top, left) = (*rows.start(), *cols.start());
        let mut cells = Vec::new();
        for row in rows.clone() {
            for col in cols.clone() {
                let cell = row * SIZE + col;
                let owner = match (self.points.contains(cell), start.contains(cell)) {
                    (true, true) => Some(Player::P0),
                    (true, false) => Some(Player::P1),
                    _ => None,
                };
                cells.push(Cell {
                    id: format!("{row},{col}"),
                    row: row - top,
                    col: col - left,
                    piece: stone(owner),
                    count: None,
                });
            }
        }
        let at = |cell: u16| (cell as usize / SIZE - top, cell as usize % SIZE - left);
        let segments = (0..NUM_ACTIONS)
            .filter(|&id| self.is_drawn(id))
            .map(|id| [at(LINE_CELLS[id][0]), at(LINE_CELLS[id][4])])
            .collect();
        let layout = Layout::Intersections {
            rows: rows.clone().count(),
            cols: cols.clone().count(),
            stars: Vec::new(),
        };
        let labels = (
            cols.map(|c| c.to_string()).collect(),
            rows.map(|r| r.to_string()).collect(),
        );
        BoardView::new(layout, cells, labels).with_segments(segments)
    }

    /// The new point, then the line's first point (its last when the new point is the first):
    /// two clicks name one line.
    fn move_cells(&self, action: Action) -> Vec<String> {
        let cells = &LINE_CELLS[action as usize];
        if cells[0] == OUTSIDE {
            return Vec::new();
        }
        let name = |cell: u16| format!("{},{}", cell as usize / SIZE, cell as usize % SIZE);
        let Some(&new) = cells.iter().find(|&&c| !self.points.contains(c as usize)) else {
            return Vec::new();
        };
        let other = if new == cells[0] { cells[4] } else { cells[0] };
        vec![name(new), name(other)]
    }

    fn score_p0(&self) -> Option<i32> {
        Some(self.ply as i32)
    }

    fn piece_counts(&self) -> [u32; 2] {
        [self.points.len(), 0]
    }

    fn mobility_sums(&self) -> [u32; 2] {
        [self.mobility, 0]
    }

    fn encode(&self, out: &mut [f32]) {
        assert_eq!(out.len(), Self::ENCODING.len(), "one encoded position");
        let boards = [
            &self.points,
            &self.used[0],
            &self.used[1],
            &self.used[2],
            &self.used[3],
        ];
        for (plane, board) in out.chunks_exact_mut(CELLS).zip(boards) {
            for (cell, value) in plane.iter_mut().enumerate() {
                *value = f32::from(u8::from(board.contains(cell)));
            }
        }
    }

    fn apply_symmetry(&self, index: usize) -> Morpion {
        assert_eq!(index, 0, "Morpion has one symmetry");
        let mut image = self.clone();
        image.points = self.points.mapped(&ROTATED_CELLS);
        image.used = self.used.map(|board| board.mapped(&ROTATED_CELLS));
        let last = (SIZE - 1) as u8;
        let [first_row, last_row, first_col, last_col] = self.extent;
        image.extent = [
            last - last_row,
            last - first_row,
            last - last_col,
            last - first_col,
        ];
        image.hash = image.hash_from_scratch();
        image
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let id = action as usize;
        if id >= NUM_ACTIONS {
            return format!("?{action}");
        }
        let start = id / 4;
        format!(
            "{},{}{}",
            start / SIZE,
            start % SIZE,
            DIRECTION_LETTERS[id % 4]
        )
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: "row,column of the line's first point (0-31) then h, v, d or a, e.g. 11,14v"
                .to_string(),
        };
        let text_trimmed = text.trim();
        let direction = text_trimmed
            .chars()
            .last()
            .and_then(|c| {
                DIRECTION_LETTERS
                    .iter()
                    .position(|&d| d == c.to_ascii_lowercase())
            })
            .ok_or_else(unparsable)?;
        let (row, col) = text_trimmed[..text_trimmed.len() - 1]
            .split_once(',')
            .ok_or_else(unparsable)?;
        let parse = |n: &str| n.trim().parse::<usize>().ok().filter(|&n| n < SIZE);
        let (row, col) = (
            parse(row).ok_or_else(unparsable)?,
            parse(col).ok_or_else(unparsable)?,
        );
        Ok((4 * (row * SIZE + col) + direction) as Action)
    }

    fn notation_help() -> &'static str {
        "a line: row,column of its first point (0-31 from the top left) and its direction: h (→), v (↓), d (↘) or a (↙), e.g. 11,14v"
    }
}

impl Morpion {
    /// Whether line `id` is drawn: its 5 points used by its direction, a line starting there.
    fn is_drawn(&self, id: usize) -> bool {
        let cells = &LINE_CELLS[id];
        cells[0] != OUTSIDE
            && cells
                .iter()
                .all(|&c| self.used[id % 4].contains(c as usize))
            && self.starts_a_line(id)
    }

    /// Whether the used points of line `id`'s direction hold a line starting exactly at its
    /// first cell (lines of one direction are disjoint, so used points of a direction split
    /// into runs of multiples of 5 consecutive points; a line starts every 5 from a run's start).
    fn starts_a_line(&self, id: usize) -> bool {
        let used = &self.used[id % 4];
        let (d_row, d_col) = STEPS[id % 4];
        let start = id / 4;
        // The length of the run of used points before the start, in this direction.
        let mut before = 0;
        let (mut row, mut col) = ((start / SIZE) as isize, (start % SIZE) as isize);
        loop {
            row -= d_row;
            col -= d_col;
            let inside = row >= 0 && col >= 0 && row < SIZE as isize && col < SIZE as isize;
            if !inside || !used.contains(row as usize * SIZE + col as usize) {
                break;
            }
            before += 1;
        }
        before % 5 == 0
    }
}

impl fmt::Display for Morpion {
    /// The part of the window holding points, one margin cell around: `o` a point of the
    /// cross, `+` a point added, `.` empty; rows and columns numbered as in the move texts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let start = cross();
        let [first_row, last_row, first_col, last_col] = self.extent.map(usize::from);
        let rows = first_row.saturating_sub(1)..=(last_row + 1).min(SIZE - 1);
        let cols = first_col.saturating_sub(1)..=(last_col + 1).min(SIZE - 1);
        write!(f, "   ")?;
        for col in cols.clone() {
            write!(f, "{:>2}", col % 100)?;
        }
        writeln!(f)?;
        for row in rows {
            write!(f, "{row:>2} ")?;
            for col in cols.clone() {
                let cell = row * SIZE + col;
                let symbol = match (self.points.contains(cell), start.contains(cell)) {
                    (true, true) => 'o',
                    (true, false) => '+',
                    _ => '.',
                };
                write!(f, " {symbol}")?;
            }
            writeln!(f)?;
        }
        write!(
            f,
            "score {}, {} lines drawable",
            self.score(),
            self.moves_available
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::perft::perft;

    #[test]
    fn the_cross_has_36_points_and_28_first_moves() {
        let start = Morpion::new(&MorpionParams);
        assert_eq!(start.points.len(), 36);
        // Every published description of the game: 28 possible first moves.
        assert_eq!(perft(&start, 1), 28);
        assert_eq!(start.to_move(), Player::P0);
        assert_eq!(start.outcome(), None);
    }

    #[test]
    fn a_drawn_line_blocks_its_direction_but_not_the_others() {
        let mut position = Morpion::new(&MorpionParams);
        let mut actions = Vec::new();
        position.legal_actions(&mut actions);
        let first = actions[0];
        position.play(first);
        assert_eq!(position.points.len(), 37);
        assert_eq!(position.score_p0(), Some(1));
        // No other line of the same direction may reuse any of its points.
        let mut after = Vec::new();
        position.legal_actions(&mut after);
        for &id in &after {
            if id as usize % 4 == first as usize % 4 {
                let shared = LINE_CELLS[id as usize]
                    .iter()
                    .any(|c| LINE_CELLS[first as usize].contains(c));
                assert!(!shared, "{} shares a point with {}", id, first);
            }
        }
        assert_eq!(position.hash(), position.hash_from_scratch());
    }

    #[test]
    fn texts_round_trip_and_bad_texts_are_refused() {
        for id in [0, 3, 4 * (11 * 32 + 14) + 1, NUM_ACTIONS - 1] {
            let text = Morpion::action_to_text(Player::P0, id as Action);
            assert_eq!(
                Morpion::action_from_text(Player::P0, &text),
                Ok(id as Action)
            );
        }
        for bad in ["", "11,14", "11,14x", "32,1h", "a,b h", ",h", "11;14v"] {
            assert!(
                Morpion::action_from_text(Player::P0, bad).is_err(),
                "{bad:?}"
            );
        }
    }
}
