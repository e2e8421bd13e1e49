//! Naive Santorini on a 5 × 5 grid of (row, col), row 0 = rank 1: for every worker of the mover,
//! every one of the 8 neighbours it may step onto, then every neighbour of the new square it may
//! build on, written from the rules without the fast version's tables. Ids follow the game's
//! documented numbering (placement = cell; turn `25 + (from·8 + move)·8 + build`, directions N,
//! NE, E, SE, S, SW, W, NW; a winning climb has build 0).

use super::ReferenceGame;

/// A legal action: its id, the worker's square, where it goes, where it builds (none for a
/// winning climb; for a placement, from = to = the square).
type RefAction = (usize, (i64, i64), (i64, i64), Option<(i64, i64)>);

const DIRS: [(i64, i64); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

#[derive(Clone, Debug)]
pub struct RefSantorini {
    height: [[u8; 5]; 5],
    /// Workers' (row, col) per player, in placement order.
    workers: [Vec<(i64, i64)>; 2],
    player: usize,
    winner: Option<usize>,
}

impl RefSantorini {
    pub fn new() -> Self {
        RefSantorini {
            height: [[0; 5]; 5],
            workers: [vec![], vec![]],
            player: 0,
            winner: None,
        }
    }

    fn on_board((r, c): (i64, i64)) -> bool {
        (0..5).contains(&r) && (0..5).contains(&c)
    }

    fn worker_at(&self, at: (i64, i64)) -> bool {
        self.workers.iter().flatten().any(|&w| w == at)
    }

    fn h(&self, (r, c): (i64, i64)) -> u8 {
        self.height[r as usize][c as usize]
    }

    /// (id, from, to, build) of every legal action; build `None` for a winning climb.
    fn actions(&self) -> Vec<RefAction> {
        let mut out = Vec::new();
        if self.workers[self.player].len() < 2 {
            for r in 0..5 {
                for c in 0..5 {
                    if !self.worker_at((r, c)) {
                        out.push(((r * 5 + c) as usize, (r, c), (r, c), None));
                    }
                }
            }
            return out;
        }
        for &from in &self.workers[self.player] {
            for (m, (dr, dc)) in DIRS.iter().enumerate() {
                let to = (from.0 + dr, from.1 + dc);
                if !Self::on_board(to)
                    || self.worker_at(to)
                    || self.h(to) == 4
                    || self.h(to) > self.h(from) + 1
                {
                    continue;
                }
                let base = 25 + ((from.0 * 5 + from.1) as usize * 8 + m) * 8;
                if self.h(to) == 3 && self.h(from) < 3 {
                    out.push((base, from, to, None));
                    continue;
                }
                for (b, (br, bc)) in DIRS.iter().enumerate() {
                    let build = (to.0 + br, to.1 + bc);
                    if Self::on_board(build)
                        && (build == from || !self.worker_at(build))
                        && self.h(build) < 4
                    {
                        out.push((base + b, from, to, Some(build)));
                    }
                }
            }
        }
        out.sort();
        out
    }
}

impl ReferenceGame for RefSantorini {
    fn legal(&self) -> Vec<usize> {
        if self.winner.is_some() {
            return vec![];
        }
        self.actions().into_iter().map(|a| a.0).collect()
    }

    fn apply(&mut self, action: usize) {
        let (_, from, to, build) = self
            .actions()
            .into_iter()
            .find(|a| a.0 == action)
            .expect("legal");
        let me = self.player;
        if self.workers[me].len() < 2 {
            self.workers[me].push(to);
            if self.workers[me].len() == 2 {
                self.player = 1 - me;
            }
            return;
        }
        let slot = self.workers[me].iter().position(|&w| w == from).unwrap();
        self.workers[me][slot] = to;
        match build {
            None => self.winner = Some(me),
            Some((r, c)) => self.height[r as usize][c as usize] += 1,
        }
        self.player = 1 - me;
        if self.winner.is_none()
            && self.workers[self.player].len() == 2
            && self.actions().is_empty()
        {
            self.winner = Some(me);
        }
    }

    fn terminal(&self) -> bool {
        self.winner.is_some()
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
