//! Santorini on 5 × 5 without god powers (docs/games.md; Roxley's 2016 rules, basic game). Each
//! player has two workers. **Setup**: P0 places its two workers on empty squares, then P1 its
//! two (four placement plies, one action each; `placement=false` starts instead from fixed
//! squares, P0 on b2 and d4, P1 on d2 and b4). **Turn**: move one of your workers to an adjacent
//! square (8 directions) holding no worker and no dome, at most one level higher (any number
//! lower), then build on a square adjacent to the moved worker holding no worker and no dome: one
//! level up, a dome on level 3. **Win**: moving a worker up onto level 3 wins at once (no build).
//! **Loss**: a player who cannot move at the start of its turn. Every turn adds a block, so a
//! game has at most 4 + 100 plies and no draw. The block supply of the box (22 / 18 / 14 / 18) is
//! not limited, as computer versions do (the Olympiad's rule was not found).
//!
//! Cell `row·5 + col`, row 0 = rank 1, col 0 = file a. Ids: a placement is its cell (0-24); a
//! turn `25 + (from·8 + move)·8 + build` with directions N, NE, E, SE, S, SW, W, NW (N = towards
//! rank 5); a winning move has no build and uses build 0. Text: `c3` (placement), `b2c3d4` (from,
//! to, build), `b2c3` (a winning move).

use std::fmt;

use super::board_view::{BoardView, Cell, Piece, PieceKind, squares_board, stone};
use super::cell_text::{cell_text, split_cell};
use super::game::{
    Action, EncodingShape, Game, MoveError, Outcome, Player, PositionError, Symmetry,
};
use super::game_params::{GameParams, Param, parse_bool};
use super::registry::GameVisitor;
use super::square_symmetry::{dihedral_cells, dihedral_step, non_identity_cells, table_symmetries};
use super::zobrist;

const SIZE: usize = 5;
const CELLS: usize = SIZE * SIZE;
const FIRST_TURN: usize = CELLS;
const NUM_ACTIONS: usize = FIRST_TURN + CELLS * 64;
/// A dome: no worker stands or builds on it.
const DOME: u8 = 4;
/// An unplaced worker.
const UNPLACED: u8 = u8::MAX;
const NONE: u8 = u8::MAX;

/// N, NE, E, SE, S, SW, W, NW as (row step, column step), row 0 = rank 1.
pub const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// `NEIGHBOURS[cell][d]`: the cell in direction `d`, or `NONE`.
const NEIGHBOURS: [[u8; 8]; CELLS] = {
    let mut table = [[NONE; 8]; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let mut d = 0;
        while d < 8 {
            let row = (cell / SIZE) as i32 + DIRECTIONS[d].0;
            let col = (cell % SIZE) as i32 + DIRECTIONS[d].1;
            if row >= 0 && col >= 0 && row < SIZE as i32 && col < SIZE as i32 {
                table[cell][d] = (row as usize * SIZE + col as usize) as u8;
            }
            d += 1;
        }
        cell += 1;
    }
    table
};

const fn direction_index(step: (i32, i32)) -> usize {
    let mut d = 0;
    while DIRECTIONS[d].0 != step.0 || DIRECTIONS[d].1 != step.1 {
        d += 1;
    }
    d
}

// Zobrist keys: [cell][height 0-4], [player][cell], P1 to move.
const HEIGHT_KEYS: [u64; CELLS * 5] = zobrist::keys(0x5A70_0000_0000_0001);
const WORKER_KEYS: [u64; 2 * CELLS] = zobrist::keys(0x5A70_0000_0000_0002);
const P1_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x5A70_0000_0000_0003)[0];

/// Rule options of Santorini.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SantoriniParams {
    /// The players place their workers first (false: the fixed squares of the module doc).
    pub placement: bool,
}

impl Default for SantoriniParams {
    fn default() -> Self {
        SantoriniParams { placement: true }
    }
}

/// A Santorini position.
#[derive(Clone, Copy, Debug)]
pub struct Santorini {
    heights: [u8; CELLS],
    /// Each player's two workers' cells (`UNPLACED` before placement), the lower cell first.
    workers: [[u8; 2]; 2],
    params: SantoriniParams,
    to_move: Player,
    outcome: Option<Outcome>,
    ply: u8,
    mobility: [u16; 2],
    /// Actions played by each player (several in a row in a turn).
    plies: [u16; 2],
    hash: u64,
}

/// What an action does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Play {
    Place(usize),
    Turn {
        from: usize,
        to: usize,
        build: Option<usize>,
    },
}

impl Santorini {
    fn occupied(&self, cell: usize) -> bool {
        self.workers.iter().flatten().any(|&w| w as usize == cell)
    }

    fn placing(&self) -> bool {
        self.workers[self.to_move.index()][1] == UNPLACED
    }

    /// Calls `f` with every legal action of the mover, in increasing id order (the outcome not
    /// checked).
    fn for_each_action(&self, mut f: impl FnMut(Action)) {
        if self.placing() {
            (0..CELLS)
                .filter(|&cell| !self.occupied(cell))
                .for_each(|cell| f(cell as Action));
            return;
        }
        for from in self.workers[self.to_move.index()] {
            let from = from as usize;
            for (move_dir, &to) in NEIGHBOURS[from].iter().enumerate() {
                if !self.can_step(from, to) {
                    continue;
                }
                let to = to as usize;
                if self.heights[to] == 3 && self.heights[from] < 3 {
                    f(Self::turn_id(from, move_dir, 0));
                    continue;
                }
                for (build_dir, &build) in NEIGHBOURS[to].iter().enumerate() {
                    let free = build as usize == from || !self.occupied(build as usize);
                    if build != NONE && free && self.heights[build as usize] < DOME {
                        f(Self::turn_id(from, move_dir, build_dir));
                    }
                }
            }
        }
    }

    /// Whether a worker on `from` may step onto `to` (`NONE` off the board).
    fn can_step(&self, from: usize, to: u8) -> bool {
        to != NONE
            && !self.occupied(to as usize)
            && self.heights[to as usize] < DOME
            && self.heights[to as usize] <= self.heights[from] + 1
    }

    fn can_move(&self, player: Player) -> bool {
        self.workers[player.index()].iter().any(|&from| {
            NEIGHBOURS[from as usize]
                .iter()
                .any(|&to| self.can_step(from as usize, to))
        })
    }

    fn turn_id(from: usize, move_dir: usize, build_dir: usize) -> Action {
        (FIRST_TURN + (from * 8 + move_dir) * 8 + build_dir) as Action
    }

    /// What `action` does here (`None` for an id that names no square on the board).
    fn decode(&self, action: Action) -> Option<Play> {
        let id = action as usize;
        if id < FIRST_TURN {
            return Some(Play::Place(id));
        }
        let (from, move_dir, build_dir) = (
            (id - FIRST_TURN) / 64,
            (id - FIRST_TURN) / 8 % 8,
            (id - FIRST_TURN) % 8,
        );
        let to = *NEIGHBOURS.get(from)?.get(move_dir)?;
        if to == NONE {
            return None;
        }
        let wins = self.heights[to as usize] == 3 && self.heights[from] < 3;
        let build = NEIGHBOURS[to as usize][build_dir];
        match (wins, build) {
            (true, _) => Some(Play::Turn {
                from,
                to: to as usize,
                build: None,
            }),
            (false, NONE) => None,
            (false, build) => Some(Play::Turn {
                from,
                to: to as usize,
                build: Some(build as usize),
            }),
        }
    }

    fn put_worker(&mut self, player: usize, slot: usize, cell: usize) {
        self.workers[player][slot] = cell as u8;
        self.hash ^= WORKER_KEYS[player * CELLS + cell];
        self.workers[player].sort_unstable();
    }

    /// The mover after ply `ply` ends: during placement P0 places twice, then P1 twice.
    fn next_mover(&self) -> Player {
        let mover = self.to_move;
        if self.placing() && self.workers[mover.index()][1] == UNPLACED {
            mover
        } else {
            mover.opponent()
        }
    }

    /// The height (0-3, 4 = dome) and worker of a cell (`row` 0 = rank 1, `col` 0 = file a).
    pub fn square(&self, row: usize, col: usize) -> (u8, Option<Player>) {
        let cell = (row * SIZE + col) as u8;
        let worker = [Player::P0, Player::P1]
            .into_iter()
            .find(|p| self.workers[p.index()].contains(&cell));
        (self.heights[cell as usize], worker)
    }

    /// A turn-phase position from 5 rows, rank 5 first, each of 5 squares: a height `0`-`3` or `D`
    /// (a dome), followed by `x` for a P0 worker or `o` for a P1 one (`2x`); `to_move` to play.
    pub fn from_rows(rows: &str, to_move: Player) -> Result<Santorini, PositionError> {
        let invalid = |problem: String| PositionError {
            game: Self::NAME,
            problem,
        };
        let lines: Vec<&str> = rows
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if lines.len() != SIZE {
            return Err(invalid(format!("{} rows, expected {SIZE}", lines.len())));
        }
        let mut position = Santorini::new(&SantoriniParams::default());
        let mut workers: [Vec<u8>; 2] = [vec![], vec![]];
        for (top_row, line) in lines.iter().enumerate() {
            let squares: Vec<&str> = line.split_whitespace().collect();
            if squares.len() != SIZE {
                return Err(invalid(format!(
                    "row {line:?} has {} squares, expected {SIZE}",
                    squares.len()
                )));
            }
            for (col, square) in squares.iter().enumerate() {
                let cell = (SIZE - 1 - top_row) * SIZE + col;
                let (height, worker) = square.split_at(1.min(square.len()));
                position.heights[cell] = match height {
                    "0" | "1" | "2" | "3" => height.parse().expect("a digit"),
                    "D" => DOME,
                    _ => {
                        return Err(invalid(format!(
                            "square {square:?}: expected a height 0-3 or D"
                        )));
                    }
                };
                match worker {
                    "" => {}
                    "x" | "o" if height != "D" => {
                        workers[(worker == "o") as usize].push(cell as u8)
                    }
                    _ => {
                        return Err(invalid(format!(
                            "square {square:?}: expected x or o after the height, not on a dome"
                        )));
                    }
                }
            }
        }
        for (player, cells) in workers.iter().enumerate() {
            if cells.len() != 2 {
                return Err(invalid(format!(
                    "player {player} has {} workers, expected 2",
                    cells.len()
                )));
            }
            position.workers[player] = [cells[0].min(cells[1]), cells[0].max(cells[1])];
        }
        position.to_move = to_move;
        position.ply = 4;
        position.hash = position.hash_from_scratch();
        position.outcome =
            (!position.can_move(to_move)).then(|| Outcome::win_for(to_move.opponent()));
        Ok(position)
    }
}

const fn symmetry_actions(k: usize) -> [Action; NUM_ACTIONS] {
    let cells: [u16; CELLS] = dihedral_cells(k, SIZE);
    let mut image = [0; NUM_ACTIONS];
    let mut cell = 0;
    while cell < CELLS {
        image[cell] = cells[cell];
        let mut m = 0;
        while m < 8 {
            let move_image = direction_index(dihedral_step(k, DIRECTIONS[m].0, DIRECTIONS[m].1));
            let mut b = 0;
            while b < 8 {
                let build_image =
                    direction_index(dihedral_step(k, DIRECTIONS[b].0, DIRECTIONS[b].1));
                image[FIRST_TURN + (cell * 8 + m) * 8 + b] =
                    (FIRST_TURN + (cells[cell] as usize * 8 + move_image) * 8 + build_image)
                        as Action;
                b += 1;
            }
            m += 1;
        }
        cell += 1;
    }
    image
}

static CELL_IMAGES: [[u16; CELLS]; 7] = non_identity_cells(SIZE);
static ACTION_IMAGES: [[Action; NUM_ACTIONS]; 7] = {
    let mut all = [[0; NUM_ACTIONS]; 7];
    let mut k = 0;
    while k < 7 {
        all[k] = symmetry_actions(k + 1);
        k += 1;
    }
    all
};
const SYMMETRIES: [Symmetry; 7] = table_symmetries(&CELL_IMAGES, &ACTION_IMAGES);

impl GameParams for SantoriniParams {
    const NAME: &'static str = Santorini::NAME;
    const DESCRIPTION: &'static str =
        "Santorini, 5 × 5, no god powers: move a worker, then build; climbing onto level 3 wins";
    const PARAMS: &'static [Param<Self>] = &[Param {
        key: "placement",
        meaning: "the players place their workers first (false: fixed squares b2, d4 and d2, b4)",
        set: |p, value| {
            p.placement = parse_bool(value)?;
            Ok(())
        },
        get: |p| p.placement.to_string(),
    }];

    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output {
        visitor.visit(Santorini::new(self))
    }
}

impl Game for Santorini {
    const NAME: &'static str = "santorini";
    const NUM_ACTIONS: usize = NUM_ACTIONS;
    const HAS_DRAWS: bool = false;
    /// Planes over the board, row 0 = rank 1: height 0, 1, 2, 3, dome (one-hot), P0's workers,
    /// P1's workers, P0 to move, the placement phase.
    const ENCODING: EncodingShape = EncodingShape {
        planes: 9,
        rows: SIZE,
        cols: SIZE,
    };
    const ENCODING_VERSION: u32 = 1;
    /// The square's 7 (a winning move's build stays 0 under each: its image is found by play).
    const SYMMETRIES: &'static [Symmetry] = &SYMMETRIES;
    // Action ids depend on the position (see `symmetric_action`).
    const ACTION_IMAGES_BY_TABLE: bool = false;

    type Params = SantoriniParams;

    fn new(params: &SantoriniParams) -> Santorini {
        let mut position = Santorini {
            heights: [0; CELLS],
            workers: [[UNPLACED; 2]; 2],
            params: *params,
            to_move: Player::P0,
            outcome: None,
            ply: 0,
            mobility: [0; 2],
            plies: [0; 2],
            hash: 0,
        };
        if !params.placement {
            let at = |col: usize, rank: usize| ((rank - 1) * SIZE + col) as u8;
            position.workers = [[at(1, 2), at(3, 4)], [at(3, 2), at(1, 4)]];
        }
        position.hash = position.hash_from_scratch();
        position
    }

    fn params(&self) -> &SantoriniParams {
        &self.params
    }

    fn max_game_length(&self) -> usize {
        4 + CELLS * 4
    }

    #[inline]
    fn to_move(&self) -> Player {
        self.to_move
    }

    #[inline]
    fn ply(&self) -> usize {
        self.ply as usize
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_none() {
            self.for_each_action(|a| out.push(a));
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        let mut legal = false;
        if self.outcome.is_none() && (action as usize) < NUM_ACTIONS {
            self.for_each_action(|a| legal |= a == action);
        }
        legal
    }

    fn play(&mut self, action: Action) {
        debug_assert!(
            self.is_legal(action),
            "illegal Santorini action {action}\n{self}"
        );
        let mover = self.to_move;
        let mut count = 0u16;
        self.for_each_action(|_| count += 1);
        self.mobility[mover.index()] += count;
        self.plies[mover.index()] += 1;
        match self.decode(action).expect("a legal action") {
            Play::Place(cell) => self.put_worker(mover.index(), 1, cell),
            Play::Turn { from, to, build } => {
                let slot = self.workers[mover.index()]
                    .iter()
                    .position(|&w| w as usize == from);
                let slot = slot.expect("a worker on the move's square");
                self.hash ^= WORKER_KEYS[mover.index() * CELLS + from];
                self.put_worker(mover.index(), slot, to);
                match build {
                    None => self.outcome = Some(Outcome::win_for(mover)),
                    Some(cell) => {
                        let height = self.heights[cell] as usize;
                        self.hash ^=
                            HEIGHT_KEYS[cell * 5 + height] ^ HEIGHT_KEYS[cell * 5 + height + 1];
                        self.heights[cell] += 1;
                    }
                }
            }
        }
        let next = self.next_mover();
        if next != mover {
            self.hash ^= P1_TO_MOVE_KEY;
        }
        self.to_move = next;
        self.ply += 1;
        if self.outcome.is_none() && !self.placing() && !self.can_move(next) {
            self.outcome = Some(Outcome::win_for(mover));
        }
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let side = if self.to_move == Player::P1 {
            P1_TO_MOVE_KEY
        } else {
            0
        };
        let heights = (0..CELLS).fold(0, |h, cell| {
            h ^ HEIGHT_KEYS[cell * 5 + self.heights[cell] as usize]
        });
        let workers = (0..2).fold(0, |h, p| {
            self.workers[p]
                .iter()
                .filter(|&&w| w != UNPLACED)
                .fold(h, |h, &w| h ^ WORKER_KEYS[p * CELLS + w as usize])
        });
        side ^ heights ^ workers
    }

    fn piece_counts(&self) -> [u32; 2] {
        self.workers
            .map(|w| w.iter().filter(|&&c| c != UNPLACED).count() as u32)
    }

    fn plies_by_player(&self) -> [u32; 2] {
        self.plies.map(u32::from)
    }

    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility.map(u32::from)
    }

    fn encode(&self, out: &mut [f32]) {
        assert_eq!(out.len(), Self::ENCODING.len(), "one encoded position");
        out.fill(0.0);
        for cell in 0..CELLS {
            out[self.heights[cell] as usize * CELLS + cell] = 1.0;
        }
        for (player, workers) in self.workers.iter().enumerate() {
            for &w in workers.iter().filter(|&&w| w != UNPLACED) {
                out[(5 + player) * CELLS + w as usize] = 1.0;
            }
        }
        out[7 * CELLS..8 * CELLS].fill((self.to_move == Player::P0) as u8 as f32);
        out[8 * CELLS..].fill(self.placing() as u8 as f32);
    }

    fn apply_symmetry(&self, index: usize) -> Santorini {
        let table = &CELL_IMAGES[index];
        let mut image = *self;
        for (cell, &target) in table.iter().enumerate() {
            image.heights[target as usize] = self.heights[cell];
        }
        for player in 0..2 {
            for slot in 0..2 {
                let w = self.workers[player][slot];
                image.workers[player][slot] = if w == UNPLACED {
                    w
                } else {
                    table[w as usize] as u8
                };
            }
            image.workers[player].sort_unstable();
        }
        image.hash = image.hash_from_scratch();
        image
    }

    /// A winning move's build is no square, so its image is the image move's build-0 id.
    fn symmetric_action(&self, index: usize, action: Action) -> Action {
        let image = SYMMETRIES[index].action_image[action as usize];
        match self.decode(action) {
            Some(Play::Turn { build: None, .. }) => image - (image - FIRST_TURN as Action) % 8,
            _ => image,
        }
    }

    fn action_to_text(_player: Player, action: Action) -> String {
        let square = |cell: usize| cell_text(cell % SIZE, cell / SIZE + 1);
        let id = action as usize;
        if id < FIRST_TURN {
            return square(id);
        }
        let (from, move_dir, build_dir) = (
            (id - FIRST_TURN) / 64,
            (id - FIRST_TURN) / 8 % 8,
            (id - FIRST_TURN) % 8,
        );
        let to = NEIGHBOURS.get(from).map_or(NONE, |n| n[move_dir]);
        let build = if to == NONE {
            NONE
        } else {
            NEIGHBOURS[to as usize][build_dir]
        };
        match (to, build) {
            (NONE, _) => format!("?{action}"),
            (_, NONE) => format!("{}{}", square(from), square(to as usize)),
            _ => format!(
                "{}{}{}",
                square(from),
                square(to as usize),
                square(build as usize)
            ),
        }
    }

    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        let text = text.trim();
        let unparsable = || MoveError::Unparsable {
            text: text.to_string(),
            expected: Self::notation_help().to_string(),
        };
        if text.chars().any(|c| c.is_ascii_uppercase()) {
            return Err(unparsable());
        }
        let mut cells = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let (col, number, tail) = split_cell(rest).ok_or_else(unparsable)?;
            if col >= SIZE || !(1..=SIZE).contains(&number) || cells.len() == 3 {
                return Err(unparsable());
            }
            cells.push((number - 1) * SIZE + col);
            rest = tail;
        }
        let step = |a: usize, b: usize| NEIGHBOURS[a].iter().position(|&n| n as usize == b);
        match cells[..] {
            [cell] => Ok(cell as Action),
            [from, to] => step(from, to)
                .map(|m| Self::turn_id(from, m, 0))
                .ok_or_else(unparsable),
            [from, to, build] => match (step(from, to), step(to, build)) {
                (Some(m), Some(b)) => Ok(Self::turn_id(from, m, b)),
                _ => Err(unparsable()),
            },
            _ => Err(unparsable()),
        }
    }

    fn move_to_text(&self, action: Action) -> String {
        let text = Self::action_to_text(self.to_move, action);
        match self.decode(action) {
            Some(Play::Turn { build: None, .. }) => text[..4].to_string(),
            _ => text,
        }
    }

    fn notation_help() -> &'static str {
        "lower-case squares: a placement as its square (c3); a turn as from, to and build squares (b2c3d4); a winning climb as from and to (b2c3)"
    }

    /// 5 × 5 squares, rank 5 at the top: each square's level (1-3), a dome as a block, the
    /// workers as stones. A turn is the worker, where it goes, then where it builds.
    fn board_view(&self) -> BoardView {
        let cells = (0..CELLS)
            .map(|cell| {
                let (row, col) = (cell / SIZE, cell % SIZE);
                let (height, worker) = self.square(row, col);
                let piece = match (worker, height) {
                    (Some(owner), _) => stone(Some(owner)),
                    (None, 4) => Some(Piece {
                        owner: None,
                        kind: PieceKind::Block,
                    }),
                    (None, _) => None,
                };
                Cell {
                    id: cell_text(col, row + 1),
                    row: SIZE - 1 - row,
                    col,
                    piece,
                    count: (1..=3).contains(&height).then_some(u32::from(height)),
                }
            })
            .collect();
        squares_board(cells, (SIZE, SIZE), false, true)
    }

    fn move_cells(&self, action: Action) -> Vec<String> {
        let square = |cell: usize| cell_text(cell % SIZE, cell / SIZE + 1);
        match self.decode(action) {
            Some(Play::Place(cell)) => vec![square(cell)],
            Some(Play::Turn { from, to, build }) => [Some(from), Some(to), build]
                .into_iter()
                .flatten()
                .map(square)
                .collect(),
            None => Vec::new(),
        }
    }
}

impl fmt::Display for Santorini {
    /// Ranks 5 to 1 from the top: each square's height (`D` a dome) and `x` / `o` for a P0 / P1
    /// worker.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..SIZE).rev() {
            write!(f, "{}", row + 1)?;
            for col in 0..SIZE {
                let (height, worker) = self.square(row, col);
                let height = if height == DOME {
                    'D'
                } else {
                    (b'0' + height) as char
                };
                let worker = match worker {
                    Some(Player::P0) => 'x',
                    Some(Player::P1) => 'o',
                    None => ' ',
                };
                write!(f, " {height}{worker}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  a  b  c  d  e")?;
        write!(f, "{} to move", self.to_move)
    }
}
