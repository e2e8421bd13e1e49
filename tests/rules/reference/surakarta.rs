//! Naive Surakarta on a 6 × 6 grid of (row, col), row 0 = rank 1, written from the rules without
//! the fast version's tables: each circuit is a list of track entries — points and explicit
//! loops — walked entry by entry, the loops counted as they are passed; the repetition rule keeps
//! every (grid, player) since the last capture in a vector. Ids `from·36 + to`, as documented.

use super::ReferenceGame;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Track {
    Point(usize, usize),
    Loop,
}

/// A circuit along lines `a` and `5 - a`: up column a, a loop, along row 5 - a eastwards, a loop,
/// down column 5 - a, a loop, along row a westwards, a loop.
fn track(a: usize) -> Vec<Track> {
    let b = 5 - a;
    let mut t = Vec::new();
    for r in 0..6 {
        t.push(Track::Point(r, a));
    }
    t.push(Track::Loop);
    for c in 0..6 {
        t.push(Track::Point(b, c));
    }
    t.push(Track::Loop);
    for r in (0..6).rev() {
        t.push(Track::Point(r, b));
    }
    t.push(Track::Loop);
    for c in (0..6).rev() {
        t.push(Track::Point(a, c));
    }
    t.push(Track::Loop);
    t
}

#[derive(Clone, Debug)]
pub struct RefSurakarta {
    /// 0 empty, 1 P0, 2 P1.
    grid: [[u8; 6]; 6],
    player: usize,
    quiet_plies: usize,
    limit: usize,
    repetition: bool,
    seen: Vec<([[u8; 6]; 6], usize)>,
    result: Option<[f32; 2]>,
}

impl RefSurakarta {
    pub fn new() -> Self {
        Self::with_rules(50, true)
    }

    pub fn with_rules(limit: usize, repetition: bool) -> Self {
        let mut grid = [[0; 6]; 6];
        for (r, row) in grid.iter_mut().enumerate() {
            let owner = match r {
                0 | 1 => 1,
                4 | 5 => 2,
                _ => 0,
            };
            row.fill(owner);
        }
        RefSurakarta {
            grid,
            player: 0,
            quiet_plies: 0,
            limit,
            repetition,
            seen: vec![(grid, 0)],
            result: None,
        }
    }

    fn count(&self, who: u8) -> usize {
        self.grid.iter().flatten().filter(|&&v| v == who).count()
    }

    /// Every (from, to) of the mover, unsorted, possibly repeated.
    fn moves(&self) -> Vec<((usize, usize), (usize, usize))> {
        let me = self.player as u8 + 1;
        let mut out = Vec::new();
        for r in 0..6 {
            for c in 0..6 {
                if self.grid[r][c] != me {
                    continue;
                }
                for dr in -1i32..=1 {
                    for dc in -1i32..=1 {
                        let (nr, nc) = (r as i32 + dr, c as i32 + dc);
                        if (dr, dc) != (0, 0)
                            && (0..6).contains(&nr)
                            && (0..6).contains(&nc)
                            && self.grid[nr as usize][nc as usize] == 0
                        {
                            out.push(((r, c), (nr as usize, nc as usize)));
                        }
                    }
                }
                for a in [1, 2] {
                    out.extend(self.captures(&track(a), (r, c)).map(|to| ((r, c), to)));
                }
            }
        }
        out
    }

    /// The enemy pieces reached from `from` along `track`, both ways from each of its places.
    fn captures<'a>(
        &'a self,
        track: &'a [Track],
        from: (usize, usize),
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        let me = self.player as u8 + 1;
        let n = track.len();
        let starts: Vec<usize> = (0..n)
            .filter(|&i| track[i] == Track::Point(from.0, from.1))
            .collect();
        starts.into_iter().flat_map(move |start| {
            [1, n - 1].into_iter().filter_map(move |step| {
                let mut loops = 0;
                let mut i = start;
                for _ in 0..n {
                    i = (i + step) % n;
                    match track[i] {
                        Track::Loop => loops += 1,
                        Track::Point(r, c) if (r, c) == from => {}
                        Track::Point(r, c) if self.grid[r][c] == 0 => {}
                        Track::Point(r, c) => {
                            let enemy = self.grid[r][c] != me;
                            return (enemy && loops > 0).then_some((r, c));
                        }
                    }
                }
                None
            })
        })
    }

    fn outcome_by_count(&self) -> [f32; 2] {
        let (a, b) = (self.count(1), self.count(2));
        if a > b {
            [1.0, -1.0]
        } else if b > a {
            [-1.0, 1.0]
        } else {
            [0.0, 0.0]
        }
    }
}

impl ReferenceGame for RefSurakarta {
    fn legal(&self) -> Vec<usize> {
        if self.result.is_some() {
            return vec![];
        }
        let mut ids: Vec<usize> = self
            .moves()
            .into_iter()
            .map(|((fr, fc), (tr, tc))| (fr * 6 + fc) * 36 + tr * 6 + tc)
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    fn apply(&mut self, action: usize) {
        assert!(self.legal().contains(&action), "illegal {action}");
        let (from, to) = (action / 36, action % 36);
        let (fr, fc, tr, tc) = (from / 6, from % 6, to / 6, to % 6);
        let me = self.player as u8 + 1;
        let capture = self.grid[tr][tc] != 0;
        self.grid[fr][fc] = 0;
        self.grid[tr][tc] = me;
        self.player = 1 - self.player;
        if capture {
            self.quiet_plies = 0;
            self.seen.clear();
        } else {
            self.quiet_plies += 1;
        }
        let position = (self.grid, self.player);
        let repeated = self.repetition && self.seen.contains(&position);
        self.seen.push(position);
        let mover_wins = if me == 1 { [1.0, -1.0] } else { [-1.0, 1.0] };
        self.result = if self.count(3 - me) == 0 {
            Some(mover_wins)
        } else if self.quiet_plies >= self.limit || repeated {
            Some(self.outcome_by_count())
        } else if self.moves().is_empty() {
            Some(mover_wins)
        } else {
            None
        };
    }

    fn terminal(&self) -> bool {
        self.result.is_some()
    }

    fn returns(&self) -> [f32; 2] {
        self.result.unwrap_or([0.0, 0.0])
    }

    fn score_p0(&self) -> Option<i32> {
        Some(self.count(1) as i32 - self.count(2) as i32)
    }
}
