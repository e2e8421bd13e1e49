//! Naive Havannah: a grid of cell contents, every chain found by breadth-first search after each
//! move, a ring found by asking of every cell whether the cells not the mover's (that cell
//! apart) let it reach the board's rim. Geometry in cube coordinates `(q, r, s)`, `q + r + s = 0`:
//! a cell is on the board when all three are within `base − 1`, on the rim when one reaches it,
//! a corner when two do; an edge is the rim cells (corners apart) where one given coordinate
//! is `±(base − 1)`. Ids follow OpenSpiel's axial grid: `x = q + c`, `y = c − s`, id `x +
//! y·(2c+1)`.

use std::collections::VecDeque;

use super::ReferenceGame;

/// How a game was won, for tests that want each rule exercised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Win {
    Ring,
    Bridge,
    Fork,
}

#[derive(Clone, Debug)]
pub struct RefHavannah {
    base: i32,
    swap: bool,
    /// 0 empty, 1 P0, 2 P1, by id; off-board ids stay 0 and are never listed.
    cells: Vec<u8>,
    player: usize,
    stones_placed: usize,
    first_stone: Option<usize>,
    pub winner: Option<(usize, Win)>,
    full: bool,
}

impl RefHavannah {
    pub fn new(base: usize, swap: bool) -> Self {
        let side = 2 * base - 1;
        RefHavannah {
            base: base as i32,
            swap,
            cells: vec![0; side * side],
            player: 0,
            stones_placed: 0,
            first_stone: None,
            winner: None,
            full: false,
        }
    }

    fn side(&self) -> i32 {
        2 * self.base - 1
    }

    fn cube(&self, id: usize) -> (i32, i32, i32) {
        let c = self.base - 1;
        let (x, y) = (id as i32 % self.side(), id as i32 / self.side());
        let (q, s) = (x - c, c - y);
        (q, -q - s, s)
    }

    fn id(&self, (q, _r, s): (i32, i32, i32)) -> usize {
        let c = self.base - 1;
        ((q + c) + (c - s) * self.side()) as usize
    }

    fn on_board(&self, (q, r, s): (i32, i32, i32)) -> bool {
        let m = self.base - 1;
        q.abs() <= m && r.abs() <= m && s.abs() <= m
    }

    fn board_ids(&self) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&id| self.on_board(self.cube(id)))
            .collect()
    }

    fn neighbours(&self, id: usize) -> Vec<usize> {
        let (q, r, s) = self.cube(id);
        [
            (1, -1, 0),
            (1, 0, -1),
            (0, 1, -1),
            (-1, 1, 0),
            (-1, 0, 1),
            (0, -1, 1),
        ]
        .iter()
        .map(|(dq, dr, ds)| (q + dq, r + dr, s + ds))
        .filter(|&cube| self.on_board(cube))
        .map(|cube| self.id(cube))
        .collect()
    }

    fn extremes(&self, id: usize) -> Vec<(usize, i32)> {
        let (q, r, s) = self.cube(id);
        [q, r, s]
            .iter()
            .enumerate()
            .filter(|(_, v)| v.abs() == self.base - 1)
            .map(|(axis, v)| (axis, v.signum()))
            .collect()
    }

    /// The cells reachable from `start` through cells `passable` says yes to.
    fn reach(&self, start: usize, passable: impl Fn(usize) -> bool) -> Vec<usize> {
        let mut seen = vec![false; self.cells.len()];
        let mut queue = VecDeque::from([start]);
        seen[start] = true;
        let mut found = Vec::new();
        while let Some(id) = queue.pop_front() {
            found.push(id);
            for n in self.neighbours(id) {
                if !seen[n] && passable(n) {
                    seen[n] = true;
                    queue.push_back(n);
                }
            }
        }
        found
    }

    fn win_of(&self, mover: u8, cell: usize) -> Option<Win> {
        let chain = self.reach(cell, |n| self.cells[n] == mover);
        let mut edges = Vec::new();
        let mut corners = 0;
        for &id in &chain {
            match self.extremes(id).as_slice() {
                [edge] if !edges.contains(edge) => edges.push(*edge),
                [_, _] => corners += 1,
                _ => {}
            }
        }
        let ring = self.board_ids().into_iter().any(|c| {
            self.reach(c, |n| self.cells[n] != mover)
                .iter()
                .all(|&id| self.extremes(id).is_empty())
        });
        if ring {
            Some(Win::Ring)
        } else if corners >= 2 {
            Some(Win::Bridge)
        } else if edges.len() >= 3 {
            Some(Win::Fork)
        } else {
            None
        }
    }
}

impl ReferenceGame for RefHavannah {
    fn legal(&self) -> Vec<usize> {
        if self.terminal() {
            return Vec::new();
        }
        let swap_cell = (self.swap && self.stones_placed == 1 && self.player == 1)
            .then_some(self.first_stone)
            .flatten();
        self.board_ids()
            .into_iter()
            .filter(|&id| self.cells[id] == 0 || Some(id) == swap_cell)
            .collect()
    }

    fn apply(&mut self, action: usize) {
        assert!(self.legal().contains(&action), "illegal {action}");
        let mover = self.player as u8 + 1;
        if self.cells[action] == 0 {
            self.stones_placed += 1;
        }
        self.first_stone.get_or_insert(action);
        self.cells[action] = mover;
        self.winner = self.win_of(mover, action).map(|w| (self.player, w));
        self.full = self.board_ids().iter().all(|&id| self.cells[id] != 0);
        self.player = 1 - self.player;
    }

    fn terminal(&self) -> bool {
        self.winner.is_some() || self.full
    }

    fn returns(&self) -> [f32; 2] {
        match self.winner {
            Some((0, _)) => [1.0, -1.0],
            Some(_) => [-1.0, 1.0],
            None => [0.0, 0.0],
        }
    }

    fn score_p0(&self) -> Option<i32> {
        None
    }
}
