//! Move generation of international draughts on an N × N board (N = 8, 10, 12): the board's
//! geometry as neighbour tables over the dark squares, simple moves, and the capture search with
//! the majority rule (only the sequences taking the most pieces are legal), men capturing both
//! ways, flying kings, pieces taken off only after the whole sequence (a jumped piece blocks and
//! cannot be jumped twice; the mover's own square counts as empty).
//!
//! Squares are numbered as PDN does, from 0 here: square `i` is PDN number `i + 1`, counted row
//! by row from the top (Black's back rank), left to right; the dark squares are those with
//! `row + column` odd, so the bottom-left corner (a1) is dark.

/// An off-board neighbour.
pub(super) const NONE: u8 = u8::MAX;
/// The most squares of a supported board (12 × 12).
const MAX_SQUARES: usize = 72;

/// Up-left, up-right, down-left, down-right ("up" = towards row 0, Black's side).
pub(super) const DIRECTIONS: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];

/// The dark squares of an N × N board and their diagonal neighbours.
pub(super) struct Geometry {
    pub side: usize,
    pub squares: usize,
    /// `next[d][s]`: the neighbour of square `s` in direction `d`, or [`NONE`].
    pub next: [[u8; MAX_SQUARES]; 4],
}

impl Geometry {
    /// Row (0 = top) and column (0 = left) of a square.
    #[inline]
    pub const fn row_col(&self, square: usize) -> (usize, usize) {
        let half = self.side / 2;
        let row = square / half;
        (row, 2 * (square % half) + (row + 1) % 2)
    }

    /// The square at `row`, `col`, if it is dark and on the board.
    pub const fn square_at(&self, row: i32, col: i32) -> Option<usize> {
        let n = self.side as i32;
        if row < 0 || col < 0 || row >= n || col >= n || (row + col) % 2 == 0 {
            None
        } else {
            Some(row as usize * (self.side / 2) + col as usize / 2)
        }
    }

    /// The squares of the rows `rows` (a range of rows from the top) as a bit set.
    pub fn rows_mask(&self, rows: std::ops::Range<usize>) -> u128 {
        let half = self.side / 2;
        (rows.start * half..rows.end * half).fold(0, |acc, s| acc | 1 << s)
    }
}

const fn geometry(side: usize) -> Geometry {
    let mut g = Geometry {
        side,
        squares: side * side / 2,
        next: [[NONE; MAX_SQUARES]; 4],
    };
    let mut square = 0;
    while square < g.squares {
        let (row, col) = g.row_col(square);
        let mut d = 0;
        while d < 4 {
            if let Some(next) =
                g.square_at(row as i32 + DIRECTIONS[d].0, col as i32 + DIRECTIONS[d].1)
            {
                g.next[d][square] = next as u8;
            }
            d += 1;
        }
        square += 1;
    }
    g
}

static GEOMETRY_8: Geometry = geometry(8);
static GEOMETRY_10: Geometry = geometry(10);
static GEOMETRY_12: Geometry = geometry(12);

/// The geometry of the N × N board.
///
/// # Panics
/// If N is not 8, 10 or 12.
#[inline(always)]
pub(super) fn geometry_of(side: usize) -> &'static Geometry {
    match side {
        8 => &GEOMETRY_8,
        10 => &GEOMETRY_10,
        12 => &GEOMETRY_12,
        _ => panic!("draughts is played on 8 × 8, 10 × 10 or 12 × 12, not {side} × {side}"),
    }
}

/// One legal move: where the piece starts and ends and the pieces it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct DraughtsMove {
    pub from: u8,
    pub to: u8,
    pub captured: u128,
}

/// The pieces as the mover sees them.
#[derive(Clone, Copy)]
pub(super) struct Sides {
    pub own: u128,
    pub enemy: u128,
    pub kings: u128,
    /// The mover's men move towards row 0 (White) or away from it (Black).
    pub upwards: bool,
}

impl Sides {
    #[inline]
    fn forward(&self) -> [usize; 2] {
        if self.upwards { [0, 1] } else { [2, 3] }
    }
}

/// Every legal move of the mover into `out` (cleared first), sorted by from, to and captured set,
/// each (from, to, captured set) once: the captures taking the most pieces if any, else the
/// simple moves.
pub(super) fn legal_moves(geometry: &Geometry, sides: Sides, out: &mut Vec<DraughtsMove>) {
    out.clear();
    let mut search = CaptureSearch {
        geometry,
        enemy: sides.enemy,
        empty: 0,
        from: 0,
        best: 0,
        out,
    };
    for from in bits(sides.own) {
        search.from = from as u8;
        search.empty = !(sides.own | sides.enemy) | 1 << from;
        if sides.kings >> from & 1 == 1 {
            search.king(from, 0, 0);
        } else {
            search.man(from, 0, 0);
        }
    }
    if search.best == 0 {
        simple_moves(geometry, sides, out);
    }
    out.sort_unstable();
    out.dedup();
}

/// Whether the mover has any legal move (cheaper than listing them).
pub(super) fn has_move(geometry: &Geometry, sides: Sides) -> bool {
    let empty = !(sides.own | sides.enemy);
    let forward = sides.forward();
    bits(sides.own).any(|from| {
        let king = sides.kings >> from & 1 == 1;
        (0..4).any(|d| {
            let next = geometry.next[d][from];
            if next == NONE {
                return false;
            }
            let step = empty >> next & 1 == 1 && (king || forward.contains(&d));
            step || first_jump(geometry, sides.enemy, empty, from, d, king)
        })
    })
}

/// Whether the piece on `from` can take one enemy piece in direction `d`.
fn first_jump(
    geometry: &Geometry,
    enemy: u128,
    empty: u128,
    from: usize,
    d: usize,
    king: bool,
) -> bool {
    let mut square = geometry.next[d][from];
    while king && square != NONE && empty >> square & 1 == 1 {
        square = geometry.next[d][square as usize];
    }
    if square == NONE || enemy >> square & 1 == 0 {
        return false;
    }
    let landing = geometry.next[d][square as usize];
    landing != NONE && empty >> landing & 1 == 1
}

fn simple_moves(geometry: &Geometry, sides: Sides, out: &mut Vec<DraughtsMove>) {
    let empty = !(sides.own | sides.enemy);
    for from in bits(sides.own) {
        let king = sides.kings >> from & 1 == 1;
        for d in 0..4 {
            if !king && !sides.forward().contains(&d) {
                continue;
            }
            let mut to = geometry.next[d][from];
            while to != NONE && empty >> to & 1 == 1 {
                out.push(DraughtsMove {
                    from: from as u8,
                    to,
                    captured: 0,
                });
                if !king {
                    break;
                }
                to = geometry.next[d][to as usize];
            }
        }
    }
}

/// Depth-first search of one piece's capture sequences, keeping those that take the most.
struct CaptureSearch<'a> {
    geometry: &'a Geometry,
    enemy: u128,
    /// Empty squares, the moving piece's own square included.
    empty: u128,
    from: u8,
    /// The most pieces taken by a sequence found so far (0: none found).
    best: u32,
    out: &'a mut Vec<DraughtsMove>,
}

impl CaptureSearch<'_> {
    fn man(&mut self, at: usize, captured: u128, count: u32) {
        let mut extended = false;
        for d in 0..4 {
            let over = self.geometry.next[d][at];
            if over == NONE || !self.can_take(over) || captured >> over & 1 == 1 {
                continue;
            }
            let landing = self.geometry.next[d][over as usize];
            if landing != NONE && self.empty >> landing & 1 == 1 {
                extended = true;
                self.man(landing as usize, captured | 1 << over, count + 1);
            }
        }
        if !extended {
            self.record(at, captured, count);
        }
    }

    fn king(&mut self, at: usize, captured: u128, count: u32) {
        let mut extended = false;
        for d in 0..4 {
            let mut over = self.geometry.next[d][at];
            while over != NONE && self.empty >> over & 1 == 1 {
                over = self.geometry.next[d][over as usize];
            }
            if over == NONE || !self.can_take(over) || captured >> over & 1 == 1 {
                continue;
            }
            let mut landing = self.geometry.next[d][over as usize];
            while landing != NONE && self.empty >> landing & 1 == 1 {
                extended = true;
                self.king(landing as usize, captured | 1 << over, count + 1);
                landing = self.geometry.next[d][landing as usize];
            }
        }
        if !extended {
            self.record(at, captured, count);
        }
    }

    #[inline]
    fn can_take(&self, square: u8) -> bool {
        self.enemy >> square & 1 == 1
    }

    fn record(&mut self, at: usize, captured: u128, count: u32) {
        if count == 0 || count < self.best {
            return;
        }
        if count > self.best {
            self.best = count;
            self.out.clear();
        }
        self.out.push(DraughtsMove {
            from: self.from,
            to: at as u8,
            captured,
        });
    }
}

/// The squares a capture visits, its start, every landing square and its end (a path taking
/// exactly `m.captured`; the first found when several do). For move texts, not a hot path.
pub(super) fn capture_path(geometry: &Geometry, sides: Sides, m: DraughtsMove) -> Vec<usize> {
    let king = sides.kings >> m.from & 1 == 1;
    let empty = !(sides.own | sides.enemy) | 1 << m.from;
    let mut path = vec![m.from as usize];
    let found = extend_path(geometry, empty, king, m, 0, &mut path);
    debug_assert!(found, "no path for {m:?}");
    path
}

/// Whether `squares` (start, landing squares, end) is a way of playing the capture `m`: each leg
/// along one diagonal over exactly one piece of `m.captured` not taken before, every other
/// square passed and the landing square empty (a man's legs two squares long).
pub(super) fn is_capture_path(
    geometry: &Geometry,
    sides: Sides,
    m: DraughtsMove,
    squares: &[usize],
) -> bool {
    let king = sides.kings >> m.from & 1 == 1;
    let empty = !(sides.own | sides.enemy) | 1 << m.from;
    let mut taken = 0u128;
    for leg in squares.windows(2) {
        let Some(victim) = leg_victim(geometry, empty, king, leg[0], leg[1]) else {
            return false;
        };
        if (m.captured & !taken) >> victim & 1 == 0 {
            return false;
        }
        taken |= 1 << victim;
    }
    squares.first() == Some(&(m.from as usize))
        && squares.last() == Some(&(m.to as usize))
        && taken == m.captured
}

/// The one piece jumped going from `start` to `end` along a diagonal, if that leg is a jump.
fn leg_victim(
    geometry: &Geometry,
    empty: u128,
    king: bool,
    start: usize,
    end: usize,
) -> Option<usize> {
    (0..4).find_map(|d| {
        let (mut square, mut victim, mut steps) = (geometry.next[d][start], None, 1);
        while square != NONE {
            let s = square as usize;
            if s == end {
                let man_leg = steps == 2;
                return (empty >> s & 1 == 1 && (king || man_leg))
                    .then_some(victim)
                    .flatten();
            }
            if empty >> s & 1 == 0 {
                if victim.is_some() {
                    return None;
                }
                victim = Some(s);
            }
            square = geometry.next[d][s];
            steps += 1;
        }
        None
    })
}

fn extend_path(
    geometry: &Geometry,
    empty: u128,
    king: bool,
    m: DraughtsMove,
    taken: u128,
    path: &mut Vec<usize>,
) -> bool {
    let at = *path.last().expect("a path starts at its square");
    if taken == m.captured {
        return at == m.to as usize;
    }
    for d in 0..4 {
        let mut over = geometry.next[d][at];
        while king && over != NONE && empty >> over & 1 == 1 {
            over = geometry.next[d][over as usize];
        }
        if over == NONE || (m.captured & !taken) >> over & 1 == 0 {
            continue;
        }
        let mut landing = geometry.next[d][over as usize];
        while landing != NONE && empty >> landing & 1 == 1 {
            path.push(landing as usize);
            if extend_path(geometry, empty, king, m, taken | 1 << over, path) {
                return true;
            }
            path.pop();
            if !king {
                break;
            }
            landing = geometry.next[d][landing as usize];
        }
    }
    false
}

/// The squares of a bit set in increasing order.
#[inline]
pub(super) fn bits(mut set: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let square = set.trailing_zeros() as usize;
            set &= set - 1;
            square
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_numbers_the_dark_squares_as_pdn_does() {
        let g = geometry_of(10);
        assert_eq!(g.squares, 50);
        // PDN 1 is b10 (row 0, column 1), PDN 46 is a1 (row 9, column 0), PDN 50 is i1.
        assert_eq!(g.row_col(0), (0, 1));
        assert_eq!(g.row_col(45), (9, 0));
        assert_eq!(g.row_col(49), (9, 8));
        assert_eq!(g.square_at(9, 0), Some(45));
        assert_eq!(g.square_at(9, 1), None);
        // PDN 28's neighbours: 22, 23 above, 32, 33 below.
        assert_eq!(g.next.map(|n| n[27]), [21, 22, 31, 32]);
        // PDN 6 (a9) has no left neighbours.
        assert_eq!(g.next.map(|n| n[5]), [NONE, 0, NONE, 10]);
        let g8 = geometry_of(8);
        assert_eq!(g8.row_col(31), (7, 6));
        assert_eq!(g8.next.map(|n| n[31]), [26, 27, NONE, NONE]);
    }
}
