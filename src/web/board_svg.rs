//! A position's drawing (`games::board_view::BoardView`) as SVG for the page: every cell an
//! element `data-cell="<its name>"` the page listens to for clicks, pieces drawn on them, the
//! last move's cells marked `last`, coordinates along the edges, Hex's edges in their players'
//! colours, mancala pits with their seeds. Self-contained: no script, no external asset.

use std::fmt::Write;

use crate::games::Player;
use crate::games::board_view::{BoardView, Cell, Layout, Piece, PieceKind};

/// The side of a square, the distance between intersections (pixels).
const UNIT: f64 = 44.0;
/// Room for the coordinates around the board.
const MARGIN: f64 = 26.0;
/// Room for the caption under the board.
const CAPTION: f64 = 26.0;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The classes of a player's pieces and edges: `p0 black`, `p1 white` (its colour in `view`).
fn player_class(view: &BoardView, player: Player) -> String {
    format!("{player} {}", view.colours[player.index()])
}

/// Where each cell is drawn: its centre, and the outline of its clickable area.
struct Placed<'a> {
    cell: &'a Cell,
    x: f64,
    y: f64,
    outline: String,
}

/// The SVG of `view` with the cells named in `last_move` marked, or `None` when the game has
/// no drawing (`Layout::None`).
pub fn board_svg(view: &BoardView, last_move: &[String]) -> Option<String> {
    let (width, height, placed, under) = match &view.layout {
        Layout::None => return None,
        Layout::Squares {
            rows,
            cols,
            checkered,
        } => squares(view, *rows, *cols, *checkered),
        Layout::Intersections { rows, cols, stars } => intersections(view, *rows, *cols, stars),
        Layout::HexRhombus { size, top_bottom } => hex_rhombus(view, *size, *top_bottom),
        Layout::Hexagon { side } => hexagon(view, *side),
        Layout::Boards { size, rows, cols } => boards(view, *size, (*rows, *cols)),
        Layout::Pits { rows, cols, stores } => pits(view, *rows, *cols, *stores),
    };
    let height = height + if view.caption.is_some() { CAPTION } else { 0.0 };
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width:.0} {height:.0}" width="{width:.0}" height="{height:.0}">"#
    );
    svg.push_str(&under);
    if let Some(caption) = &view.caption {
        let _ = write!(
            svg,
            r#"<text class="caption" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            width / 2.0,
            height - 10.0,
            escape(caption)
        );
    }
    for p in &placed {
        let last = if last_move.contains(&p.cell.id) {
            " last"
        } else {
            ""
        };
        let won = if view.winning.contains(&p.cell.id) {
            " win"
        } else {
            ""
        };
        let _ = write!(
            svg,
            r#"<g class="cell{last}{won}" data-cell="{}">{}"#,
            escape(&p.cell.id),
            p.outline
        );
        if view.marks.contains(&(p.cell.row, p.cell.col)) {
            let _ = write!(
                svg,
                r#"<circle class="mark" cx="{:.1}" cy="{:.1}" r="{:.1}"/>"#,
                p.x,
                p.y,
                0.3 * UNIT
            );
        }
        if let Some(piece) = &p.cell.piece {
            svg.push_str(&piece_svg(view, piece, p.x, p.y));
        }
        if view.cell_names {
            svg.push_str(&cell_name_svg(view, p));
        }
        if let Some(count) = p.cell.count {
            let _ = write!(
                svg,
                r#"<text class="count" x="{:.1}" y="{:.1}" text-anchor="middle">{count}</text>"#,
                p.x,
                p.y + 6.0
            );
        }
        svg.push_str("</g>");
    }
    svg.push_str("</svg>");
    Some(svg)
}

/// A cell's name in small type: in a square's top-left corner, beside a pit on the side away
/// from the other row (above the top row, below the bottom one).
fn cell_name_svg(view: &BoardView, p: &Placed<'_>) -> String {
    let (x, y, anchor) = match view.layout {
        Layout::Pits { .. } if p.cell.row == 0 => (p.x, p.y - 0.5 * UNIT - 4.0, "middle"),
        Layout::Pits { .. } => (p.x, p.y + 0.5 * UNIT + 13.0, "middle"),
        _ => (p.x - 0.5 * UNIT + 3.0, p.y - 0.5 * UNIT + 11.0, "start"),
    };
    format!(
        r#"<text class="cell-name" x="{x:.1}" y="{y:.1}" text-anchor="{anchor}">{}</text>"#,
        escape(&p.cell.id)
    )
}

/// A piece centred on (x, y).
fn piece_svg(view: &BoardView, piece: &Piece, x: f64, y: f64) -> String {
    let owner = piece
        .owner
        .map_or("neutral".to_string(), |p| player_class(view, p));
    let radius = 0.38 * UNIT;
    match piece.kind {
        PieceKind::Stone => format!(
            r#"<circle class="piece stone {owner}" cx="{x:.1}" cy="{y:.1}" r="{radius:.1}"/>"#
        ),
        PieceKind::King => format!(
            r#"<circle class="piece king {owner}" cx="{x:.1}" cy="{y:.1}" r="{radius:.1}"/><text class="crown {owner}" x="{x:.1}" y="{:.1}" text-anchor="middle">K</text>"#,
            y + 6.0
        ),
        PieceKind::Letter(letter) => format!(
            r#"<circle class="piece letter {owner}" cx="{x:.1}" cy="{y:.1}" r="{radius:.1}"/><text class="crown {owner}" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            y + 6.0,
            letter.to_ascii_uppercase()
        ),
        PieceKind::Block => format!(
            r#"<rect class="piece block {owner}" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/>"#,
            x - radius * 0.8,
            y - radius * 0.8,
            radius * 1.6,
            radius * 1.6
        ),
    }
}

/// Column labels under, row labels left of a grid whose cell (r, c) is centred at `centre`.
fn grid_labels(
    view: &BoardView,
    (rows, cols): (usize, usize),
    centre: impl Fn(usize, usize) -> (f64, f64),
) -> String {
    let mut svg = String::new();
    for (c, label) in view.col_labels.iter().enumerate().take(cols) {
        let (x, y) = centre(rows - 1, c);
        let _ = write!(
            svg,
            r#"<text class="coord" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            y + UNIT / 2.0 + 16.0,
            escape(label)
        );
    }
    for (r, label) in view.row_labels.iter().enumerate().take(rows) {
        let (x, y) = centre(r, 0);
        let _ = write!(
            svg,
            r#"<text class="coord" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            x - UNIT / 2.0 - 6.0,
            y + 5.0,
            escape(label)
        );
    }
    svg
}

type Drawing<'a> = (f64, f64, Vec<Placed<'a>>, String);

/// The cells of `view` centred by `centre`, each with the clickable outline `outline` draws
/// around its centre.
fn placed_cells<'a>(
    view: &'a BoardView,
    centre: impl Fn(usize, usize) -> (f64, f64),
    outline: impl Fn(&Cell, f64, f64) -> String,
) -> Vec<Placed<'a>> {
    view.cells
        .iter()
        .map(|cell| {
            let (x, y) = centre(cell.row, cell.col);
            let outline = outline(cell, x, y);
            Placed {
                cell,
                x,
                y,
                outline,
            }
        })
        .collect()
}

/// The cells of `view` as squares centred by `centre`, shaded `dark` or `light` by `shade`.
fn square_cells<'a>(
    view: &'a BoardView,
    centre: impl Fn(usize, usize) -> (f64, f64),
    shade: impl Fn(&Cell) -> &'static str,
) -> Vec<Placed<'a>> {
    placed_cells(view, centre, |cell, x, y| {
        format!(
            r#"<rect class="square {}" x="{:.1}" y="{:.1}" width="{UNIT}" height="{UNIT}"/>"#,
            shade(cell),
            x - UNIT / 2.0,
            y - UNIT / 2.0
        )
    })
}

fn squares(view: &BoardView, rows: usize, cols: usize, checkered: bool) -> Drawing<'_> {
    let centre = |r: usize, c: usize| {
        (
            MARGIN + (c as f64 + 0.5) * UNIT,
            MARGIN / 2.0 + (r as f64 + 0.5) * UNIT,
        )
    };
    let placed = square_cells(view, centre, |cell| {
        match checkered && (cell.row + cell.col) % 2 == 1 {
            true => "dark",
            false => "light",
        }
    });
    let width = 2.0 * MARGIN + cols as f64 * UNIT;
    let height = 1.5 * MARGIN + rows as f64 * UNIT;
    // Every square drawn under the cells: a board whose cells are its dark squares only
    // (draughts) shows its light ones too.
    let mut under = String::new();
    for r in 0..rows {
        for c in 0..cols {
            let (x, y) = centre(r, c);
            let shade = match checkered && (r + c) % 2 == 1 {
                true => "dark",
                false => "light",
            };
            let _ = write!(
                under,
                r#"<rect class="background {shade}" x="{:.1}" y="{:.1}" width="{UNIT}" height="{UNIT}"/>"#,
                x - UNIT / 2.0,
                y - UNIT / 2.0
            );
        }
    }
    under.push_str(&grid_labels(view, (rows, cols), centre));
    (width, height, placed, under)
}

/// Boards of `size × size` squares, `rows × cols` of them half a square apart; the boards of
/// the left column dark, the others light (Shobu's).
fn boards(view: &BoardView, size: usize, (rows, cols): (usize, usize)) -> Drawing<'_> {
    let gap = |i: usize| (i / size) as f64 * 0.5;
    let centre = |r: usize, c: usize| {
        (
            MARGIN + (c as f64 + 0.5 + gap(c)) * UNIT,
            MARGIN / 2.0 + (r as f64 + 0.5 + gap(r)) * UNIT,
        )
    };
    let placed = square_cells(view, centre, |cell| match cell.col < size {
        true => "dark",
        false => "light",
    });
    let span = |n: usize| (n * size) as f64 * UNIT + (n - 1) as f64 * UNIT / 2.0;
    (
        2.0 * MARGIN + span(cols),
        1.5 * MARGIN + span(rows),
        placed,
        String::new(),
    )
}

fn intersections<'a>(
    view: &'a BoardView,
    rows: usize,
    cols: usize,
    stars: &[(usize, usize)],
) -> Drawing<'a> {
    let centre = |r: usize, c: usize| {
        (
            MARGIN + (c as f64 + 0.5) * UNIT,
            MARGIN / 2.0 + (r as f64 + 0.5) * UNIT,
        )
    };
    let mut under = String::from(r#"<rect class="wood" x="0" y="0" width="100%" height="100%"/>"#);
    for r in 0..rows {
        let (x0, y) = centre(r, 0);
        let (x1, _) = centre(r, cols - 1);
        let _ = write!(
            under,
            r#"<line class="grid" x1="{x0:.1}" y1="{y:.1}" x2="{x1:.1}" y2="{y:.1}"/>"#
        );
    }
    for c in 0..cols {
        let (x, y0) = centre(0, c);
        let (_, y1) = centre(rows - 1, c);
        let _ = write!(
            under,
            r#"<line class="grid" x1="{x:.1}" y1="{y0:.1}" x2="{x:.1}" y2="{y1:.1}"/>"#
        );
    }
    for &(r, c) in stars {
        let (x, y) = centre(r, c);
        let _ = write!(
            under,
            r#"<circle class="star" cx="{x:.1}" cy="{y:.1}" r="4"/>"#
        );
    }
    for &[from, to] in &view.segments {
        let ((x1, y1), (x2, y2)) = (centre(from.0, from.1), centre(to.0, to.1));
        let _ = write!(
            under,
            r#"<line class="drawn" x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}"/>"#
        );
    }
    under.push_str(&grid_labels(view, (rows, cols), centre));
    let placed = placed_cells(view, centre, |_, x, y| {
        format!(
            r#"<rect class="point" x="{:.1}" y="{:.1}" width="{UNIT}" height="{UNIT}"/>"#,
            x - UNIT / 2.0,
            y - UNIT / 2.0
        )
    });
    let width = 2.0 * MARGIN + cols as f64 * UNIT;
    let height = 1.5 * MARGIN + rows as f64 * UNIT;
    (width, height, placed, under)
}

/// The outline of a pointy-top hexagon of circumradius `radius` centred on (x, y).
fn hexagon_points(x: f64, y: f64, radius: f64) -> String {
    (0..6)
        .map(|k| {
            let angle = std::f64::consts::PI / 3.0 * k as f64 + std::f64::consts::PI / 6.0;
            format!(
                "{:.1},{:.1}",
                x + radius * angle.cos(),
                y + radius * angle.sin()
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Hexagon cells centred by `centre`.
fn hex_cells<'a>(
    view: &'a BoardView,
    centre: impl Fn(usize, usize) -> (f64, f64),
) -> Vec<Placed<'a>> {
    let radius = UNIT / 3f64.sqrt();
    placed_cells(view, centre, |_, x, y| {
        format!(
            r#"<polygon class="hex" points="{}"/>"#,
            hexagon_points(x, y, radius)
        )
    })
}

fn hex_rhombus(view: &BoardView, size: usize, top_bottom: Player) -> Drawing<'_> {
    let row_step = UNIT * 3f64.sqrt() / 2.0;
    let centre = |r: usize, c: usize| {
        (
            MARGIN + 12.0 + (c as f64 + 0.5 + r as f64 / 2.0) * UNIT,
            MARGIN + 10.0 + r as f64 * row_step + UNIT / 2.0,
        )
    };
    let last = size - 1;
    // The edges, a little outside the cells: top and bottom for `top_bottom`, the sides for
    // the other player.
    let edge = |player: Player, from: (f64, f64), to: (f64, f64)| {
        format!(
            r#"<line class="edge {}" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/>"#,
            player_class(view, player),
            from.0,
            from.1,
            to.0,
            to.1
        )
    };
    let shift = |(x, y): (f64, f64), dx: f64, dy: f64| (x + dx, y + dy);
    let out = 0.75 * UNIT;
    let other = top_bottom.opponent();
    let mut under = String::new();
    under.push_str(&edge(
        top_bottom,
        shift(centre(0, 0), 0.0, -out),
        shift(centre(0, last), 0.0, -out),
    ));
    under.push_str(&edge(
        top_bottom,
        shift(centre(last, 0), 0.0, out),
        shift(centre(last, last), 0.0, out),
    ));
    under.push_str(&edge(
        other,
        shift(centre(0, 0), -out, 0.0),
        shift(centre(last, 0), -out, 0.0),
    ));
    under.push_str(&edge(
        other,
        shift(centre(0, last), out, 0.0),
        shift(centre(last, last), out, 0.0),
    ));
    let mut labels = String::new();
    for (c, label) in view.col_labels.iter().enumerate().take(size) {
        let (x, y) = centre(0, c);
        let _ = write!(
            labels,
            r#"<text class="coord" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            y - UNIT * 0.95,
            escape(label)
        );
    }
    for (r, label) in view.row_labels.iter().enumerate().take(size) {
        let (x, y) = centre(r, 0);
        let _ = write!(
            labels,
            r#"<text class="coord" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            x - UNIT * 0.95,
            y + 5.0,
            escape(label)
        );
    }
    under.push_str(&labels);
    let width = 2.0 * MARGIN + 24.0 + (size as f64 * 1.5 + 0.5) * UNIT;
    let height = 2.0 * MARGIN + 20.0 + last as f64 * row_step + UNIT;
    (width, height, hex_cells(view, centre), under)
}

fn hexagon(view: &BoardView, side: usize) -> Drawing<'_> {
    let rows = 2 * side - 1;
    let row_step = UNIT * 3f64.sqrt() / 2.0;
    let length = |r: usize| side + r.min(rows - 1 - r);
    let centre = |r: usize, c: usize| {
        let indent = (rows - length(r)) as f64 * UNIT / 2.0;
        (
            MARGIN + indent + (c as f64 + 0.5) * UNIT,
            MARGIN + r as f64 * row_step + UNIT / 2.0,
        )
    };
    let width = 2.0 * MARGIN + rows as f64 * UNIT;
    let height = 2.0 * MARGIN + (rows - 1) as f64 * row_step + UNIT;
    (width, height, hex_cells(view, centre), String::new())
}

fn pits(view: &BoardView, rows: usize, cols: usize, stores: Option<[u32; 2]>) -> Drawing<'_> {
    let store_width = if stores.is_some() { 1.6 * UNIT } else { 0.0 };
    let centre = |r: usize, c: usize| {
        (
            MARGIN + store_width + (c as f64 + 0.5) * UNIT * 1.2,
            MARGIN + (r as f64 + 0.5) * UNIT * 1.2,
        )
    };
    let radius = 0.5 * UNIT;
    let placed = placed_cells(view, centre, |_, x, y| {
        format!(r#"<circle class="pit" cx="{x:.1}" cy="{y:.1}" r="{radius:.1}"/>"#)
    });
    let board_width = cols as f64 * UNIT * 1.2;
    let height = 2.0 * MARGIN + rows as f64 * UNIT * 1.2 + 18.0;
    let mut under = format!(
        r#"<rect class="wood" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="18"/>"#,
        MARGIN / 2.0,
        MARGIN / 2.0,
        board_width + 2.0 * store_width + MARGIN,
        rows as f64 * UNIT * 1.2 + MARGIN
    );
    // P1's store on the left (its side is the top row), P0's on the right.
    let stores_drawn = stores.into_iter().flat_map(|stores| {
        [
            (Player::P1, MARGIN + store_width / 2.0, stores[1]),
            (
                Player::P0,
                MARGIN + 1.5 * store_width + board_width,
                stores[0],
            ),
        ]
    });
    for (player, x, seeds) in stores_drawn {
        let y = MARGIN + rows as f64 * UNIT * 0.6;
        let _ = write!(
            under,
            r#"<g class="store {}"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="14"/><text class="count" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text><text class="coord" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text></g>"#,
            player_class(view, player),
            x - store_width * 0.4,
            y - UNIT * 0.9,
            store_width * 0.8,
            UNIT * 1.8,
            y + 6.0,
            seeds,
            y + UNIT * 0.9 + 14.0,
            player,
        );
    }
    under.push_str(&grid_labels(view, (rows, cols), centre));
    let width = 2.0 * MARGIN + board_width + 2.0 * store_width;
    (width, height, placed, under)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Action, Game, GameExt, TicTacToe};

    fn count(svg: &str, needle: &str) -> usize {
        svg.matches(needle).count()
    }

    #[test]
    fn tic_tac_toe_draws_nine_squares_its_stones_and_the_last_move() {
        let mut position = TicTacToe::new(&Default::default());
        position.play_moves("b2 a1 c3").unwrap();
        let view = position.board_view();
        let svg = board_svg(&view, &["c3".to_string()]).unwrap();
        assert_eq!(count(&svg, r#"class="square light""#), 9);
        assert_eq!(count(&svg, "data-cell="), 9);
        assert_eq!(count(&svg, "stone p0"), 2, "{svg}");
        assert_eq!(count(&svg, "stone p1"), 1);
        assert!(
            svg.contains(r#"<g class="cell last" data-cell="c3">"#),
            "{svg}"
        );
        assert!(svg.contains(r#"<g class="cell" data-cell="b2">"#));
        for label in ["a", "b", "c", "1", "2", "3"] {
            assert!(svg.contains(&format!(">{label}</text>")), "{label}");
        }
        // The P1 stone is on a1, the top-left square.
        let a1 = &svg[svg.find(r#"data-cell="a1""#).unwrap()..];
        let a1 = &a1[..a1.find("</g>").unwrap()];
        assert!(
            a1.contains("stone p1") && a1.contains(r#"x="26.0" y="13.0""#),
            "{a1}"
        );
    }

    /// The cell element named `id` in `svg`, up to its end.
    fn cell<'a>(svg: &'a str, id: &str) -> &'a str {
        let start = svg
            .find(&format!(r#"data-cell="{id}""#))
            .unwrap_or_else(|| panic!("no cell {id}"));
        let rest = &svg[start..];
        &rest[..rest.find("</g>").unwrap()]
    }

    #[test]
    fn the_winning_line_is_marked_once_the_game_is_won() {
        use crate::games::ConnectFour;
        let mut position = ConnectFour::new(&Default::default());
        // P0 joins a1, b2, c3, d4 on the diagonal with its last move; P1 holds three in a row.
        position.play_moves("a b b c c d c d d g").unwrap();
        let before = board_svg(&position.board_view(), &[]).unwrap();
        assert_eq!(count(&before, "cell win"), 0, "no line before the win");
        position.play_moves("d").unwrap();
        let svg = board_svg(&position.board_view(), &[]).unwrap();
        assert_eq!(count(&svg, "cell win"), 4);
        for id in ["a1", "b2", "c3", "d4"] {
            assert!(
                svg.contains(&format!(r#"<g class="cell win" data-cell="{id}""#)),
                "{id}"
            );
        }
    }

    #[test]
    fn connect_four_stones_fall_to_the_bottom_row_and_a_move_names_its_landing_cell() {
        use crate::games::ConnectFour;
        let mut position = ConnectFour::new(&Default::default());
        position.play_moves("d d c").unwrap();
        let svg = board_svg(&position.board_view(), &position.move_cells(3)).unwrap();
        assert_eq!(count(&svg, "data-cell="), 42);
        assert!(cell(&svg, "d1").contains("stone p0") && cell(&svg, "d2").contains("stone p1"));
        // Red and yellow discs, as the boxed game's.
        assert!(
            cell(&svg, "d1").contains("stone p0 red")
                && cell(&svg, "d2").contains("stone p1 yellow")
        );
        assert!(cell(&svg, "c1").contains("stone p0") && !cell(&svg, "c2").contains("stone"));
        // d1 is on the bottom row: drawn below d2.
        let y = |id: &str| {
            let c = cell(&svg, id);
            let at = c.find(" y=\"").unwrap() + 4;
            c[at..at + c[at..].find('"').unwrap()]
                .parse::<f64>()
                .unwrap()
        };
        assert!(y("d1") > y("d2") && y("d6") < y("d5"));
        assert_eq!(
            position.move_cells(3),
            ["d3"],
            "the next stone in d lands on d3"
        );
        assert!(cell(&svg, "d3").starts_with(r#"data-cell="d3">"#));
        assert!(svg.contains(r#"<g class="cell last" data-cell="d3">"#));
    }

    #[test]
    fn hex_draws_a_rhombus_of_hexagons_with_each_players_edges() {
        use crate::games::Hex;
        let mut position = Hex::<5>::new(&Default::default());
        position.play_moves("c3 b2").unwrap();
        let svg = board_svg(&position.board_view(), &[]).unwrap();
        assert_eq!(count(&svg, r#"<polygon class="hex""#), 25);
        assert_eq!(count(&svg, r#"class="edge p0 black""#), 2, "top and bottom");
        assert_eq!(count(&svg, r#"class="edge p1 white""#), 2, "left and right");
        assert!(cell(&svg, "c3").contains("stone p0") && cell(&svg, "b2").contains("stone p1"));
        assert_eq!(position.move_cells(0), ["a1"]);
        assert!(
            position.move_cells(Hex::<5>::SWAP).is_empty(),
            "swap is a button"
        );
    }

    #[test]
    fn othello_starts_with_four_discs_and_passes_have_no_cells() {
        use crate::games::Othello;
        let position = Othello::<8, 1>::new(&Default::default());
        let svg = board_svg(&position.board_view(), &[]).unwrap();
        assert_eq!(count(&svg, "data-cell="), 64);
        assert_eq!((count(&svg, "stone p0"), count(&svg, "stone p1")), (2, 2));
        assert!(cell(&svg, "d4").contains("stone p1") && cell(&svg, "e4").contains("stone p0"));
        assert!(svg.contains(r#"class="caption""#) && svg.contains(">Black 2 · White 2</text>"));
        // After d3 Black has flipped d4: four discs to one.
        let mut after = position;
        after.play_moves("d3").unwrap();
        let svg = board_svg(&after.board_view(), &[]).unwrap();
        assert!(svg.contains(">Black 4 · White 1</text>"), "{svg}");
    }

    #[test]
    fn awale_draws_twelve_pits_with_their_seeds_and_both_stores() {
        use crate::games::Awale;
        let mut position = Awale::new(&Default::default());
        position.play_moves("F").unwrap();
        let svg = board_svg(&position.board_view(), &position.move_cells(0)).unwrap();
        assert_eq!(count(&svg, r#"class="pit""#), 12);
        assert!(cell(&svg, "F").contains(">0</text>"), "{}", cell(&svg, "F"));
        assert!(cell(&svg, "a").contains(">5</text>") && cell(&svg, "e").contains(">4</text>"));
        assert_eq!(count(&svg, r#"<g class="store"#), 2);
        // P1's a is on the top row at the right, above P0's F.
        let cx = |id: &str| {
            let c = cell(&svg, id);
            let at = c.find("cx=\"").unwrap() + 4;
            c[at..at + c[at..].find('"').unwrap()]
                .parse::<f64>()
                .unwrap()
        };
        assert_eq!(cx("a"), cx("F"));
        assert_eq!(cx("f"), cx("A"));
        assert_eq!(position.move_cells(0), ["a"], "P1 to move: its house a");
        // Each house carries the letter a move types: A-F below P0's row, a-f above P1's.
        assert_eq!(count(&svg, r#"class="cell-name""#), 12);
        for id in ["A", "F", "a", "f"] {
            assert!(cell(&svg, id).contains(&format!(">{id}</text>")), "{id}");
        }
        let name_y = |id: &str| {
            let c = cell(&svg, id);
            let at = c.find(r#"class="cell-name" x="#).unwrap();
            let y = c[at..].find("y=\"").unwrap() + at + 3;
            c[y..y + c[y..].find('"').unwrap()].parse::<f64>().unwrap()
        };
        assert!(name_y("a") < name_y("F"), "P1's names above, P0's below");
    }

    #[test]
    fn go_draws_lines_and_star_points_its_stones_and_a_pass_without_cells() {
        use crate::games::Go;
        let mut position = Go::<9>::new(&Default::default());
        position.play_moves("e5 c3").unwrap();
        let svg = board_svg(&position.board_view(), &[]).unwrap();
        assert_eq!(count(&svg, r#"class="grid""#), 18, "9 lines each way");
        assert_eq!(count(&svg, r#"class="star""#), 5);
        assert_eq!(count(&svg, r#"class="point""#), 81);
        assert!(cell(&svg, "e5").contains("stone p0") && cell(&svg, "c3").contains("stone p1"));
        assert!(
            svg.contains(">j</text>") && !svg.contains(">i</text>"),
            "no column i"
        );
        assert!(position.move_cells(Go::<9>::PASS).is_empty());
    }

    #[test]
    fn gomoku_and_connect6_name_their_points_as_their_moves() {
        use crate::games::{Connect6, Gomoku};
        let mut gomoku = Gomoku::new(&Default::default());
        gomoku.play_moves("0,1").unwrap();
        let svg = board_svg(&gomoku.board_view(), &[]).unwrap();
        assert_eq!(count(&svg, r#"class="point""#), 225);
        assert!(cell(&svg, "0,1").contains("stone p0"));
        let mut connect6 = Connect6::new(&Default::default());
        connect6.play_moves("j10").unwrap();
        let svg = board_svg(&connect6.board_view(), &[]).unwrap();
        assert_eq!(count(&svg, r#"class="point""#), 361);
        assert!(cell(&svg, "j10").contains("stone p0"));
        let mut legal = Vec::new();
        connect6.legal_actions(&mut legal);
        assert_eq!(
            connect6.move_cells(legal[0]),
            [connect6.move_to_text(legal[0])]
        );
    }

    #[test]
    fn breakthrough_and_clobber_moves_are_from_and_to_squares() {
        use crate::games::{Breakthrough, Clobber};
        let position = Breakthrough::new(&Default::default());
        let svg = board_svg(&position.board_view(), &[]).unwrap();
        assert_eq!((count(&svg, "stone p0"), count(&svg, "stone p1")), (16, 16));
        assert_eq!(count(&svg, "square dark"), 32);
        let mut legal = Vec::new();
        position.legal_actions(&mut legal);
        for &action in &legal {
            let cells = position.move_cells(action);
            assert_eq!(
                cells.concat(),
                position.move_to_text(action).trim_end_matches('*')
            );
            assert!(cell(&svg, &cells[0]).contains("stone"), "{cells:?}");
        }
        let clobber = Clobber::<5, 6>::new(&Default::default());
        let svg = board_svg(&clobber.board_view(), &[]).unwrap();
        assert_eq!(count(&svg, "data-cell="), 30);
        assert_eq!(count(&svg, "stone p0") + count(&svg, "stone p1"), 30);
        clobber.legal_actions(&mut legal);
        assert_eq!(
            clobber.move_cells(legal[0]).concat(),
            clobber.move_to_text(legal[0])
        );
    }

    #[test]
    fn havannah_draws_a_hexagon_of_rows_of_growing_then_shrinking_length() {
        use crate::games::Havannah;
        let mut position = Havannah::<8>::new(&Default::default());
        position.play_moves("d4").unwrap();
        let view = position.board_view();
        assert_eq!(view.cells.len(), 3 * 8 * 7 + 1, "3B(B − 1) + 1 cells");
        let row_length = |r: usize| view.cells.iter().filter(|c| c.row == r).count();
        assert_eq!((row_length(0), row_length(7), row_length(14)), (8, 15, 8));
        let svg = board_svg(&view, &[]).unwrap();
        assert_eq!(count(&svg, r#"<polygon class="hex""#), 169);
        assert!(cell(&svg, "d4").contains("stone p0"));
    }

    #[test]
    fn draughts_cells_are_the_dark_squares_by_their_pdn_numbers() {
        use crate::games::{GameSpec, GameVisitor};
        struct Check;
        impl GameVisitor for Check {
            type Output = ();
            fn visit<G: Game>(self, position: G) {
                let view = position.board_view();
                assert_eq!(view.colours, ["white", "black"]);
                let svg = board_svg(&view, &[]).unwrap();
                assert_eq!(count(&svg, "data-cell="), 50);
                assert_eq!(count(&svg, r#"class="background"#), 100);
                assert_eq!(
                    (count(&svg, "stone p0 white"), count(&svg, "stone p1 black")),
                    (20, 20)
                );
                assert!(
                    cell(&svg, "1").contains("stone p1") && cell(&svg, "50").contains("stone p0")
                );
                // Every dark square carries its PDN number, as moves are typed.
                assert_eq!(count(&svg, r#"class="cell-name""#), 50);
                assert!(
                    cell(&svg, "33").contains(">33</text>"),
                    "{}",
                    cell(&svg, "33")
                );
                let mut legal = Vec::new();
                position.legal_actions(&mut legal);
                for &action in &legal {
                    let cells = position.move_cells(action);
                    assert_eq!(cells.join("-"), position.move_to_text(action));
                }
            }
        }
        "draughts".parse::<GameSpec>().unwrap().visit(Check);
    }

    #[test]
    fn shobu_draws_four_boards_and_a_move_is_three_clicks() {
        use crate::games::Shobu;
        let position = Shobu::new(&Default::default());
        let svg = board_svg(&position.board_view(), &[]).unwrap();
        assert_eq!(count(&svg, "data-cell="), 64);
        assert_eq!((count(&svg, "stone p0"), count(&svg, "stone p1")), (16, 16));
        // P0's home row of each board is its row 1, at the bottom of boards 0 and 1.
        assert!(cell(&svg, "0a1").contains("stone p0") && cell(&svg, "2d4").contains("stone p1"));
        let mut legal = Vec::new();
        position.legal_actions(&mut legal);
        for &action in &legal {
            let cells = position.move_cells(action);
            let text = position.move_to_text(action);
            assert_eq!(cells.len(), 3);
            assert!(
                text.starts_with(&cells[0]) && text.contains(&format!(":{}:", cells[2])),
                "{text} {cells:?}"
            );
            assert!(cell(&svg, &cells[0]).contains("stone p0"), "{cells:?}");
            assert!(!cell(&svg, &cells[1]).contains("stone"), "{cells:?}");
        }
        // Each move has its own three cells.
        let distinct: std::collections::HashSet<Vec<String>> =
            legal.iter().map(|&a| position.move_cells(a)).collect();
        assert_eq!(distinct.len(), legal.len());
    }

    #[test]
    fn hus_draws_four_rows_of_sixteen_pits_facing_as_the_rules_say() {
        use crate::games::Hus;
        let position = Hus::new(&Default::default());
        let view = position.board_view();
        let svg = board_svg(&view, &[]).unwrap();
        assert_eq!(count(&svg, r#"class="pit""#), 64);
        assert_eq!(count(&svg, r#"<g class="store"#), 0, "Hus keeps no store");
        assert!(
            cell(&svg, "p0:0").contains(">2</text>") && cell(&svg, "p0:24").contains(">0</text>")
        );
        // A player's inner pit p faces the opponent's inner pit 47 − p: same column.
        let at = |id: &str| {
            view.cells
                .iter()
                .find(|c| c.id == id)
                .map(|c| (c.row, c.col))
                .unwrap()
        };
        for p in 16..32 {
            let (mine, theirs) = (at(&format!("p0:{p}")), at(&format!("p1:{}", 47 - p)));
            assert_eq!((mine.0, theirs.0, mine.1), (2, 1, theirs.1), "pit {p}");
        }
        let mut legal = Vec::new();
        position.legal_actions(&mut legal);
        assert_eq!(position.move_cells(legal[0]), [format!("p0:{}", legal[0])]);
    }

    #[test]
    fn santorini_shows_workers_and_levels_and_a_turn_is_worker_step_and_build() {
        use crate::games::Santorini;
        let mut position = Santorini::new(&Default::default());
        position.play_moves("b2 d4 d2 b4").unwrap();
        let mut legal = Vec::new();
        position.legal_actions(&mut legal);
        for &action in &legal {
            assert_eq!(
                position.move_cells(action).concat(),
                position.move_to_text(action)
            );
        }
        position.play(legal[0]);
        let svg = board_svg(&position.board_view(), &[]).unwrap();
        assert_eq!(count(&svg, "data-cell="), 25);
        assert_eq!((count(&svg, "stone p0"), count(&svg, "stone p1")), (2, 2));
        assert_eq!(count(&svg, r#"<text class="count""#), 1, "one level built");
    }

    #[test]
    fn arimaa_shows_lettered_pieces_and_traps_and_a_step_is_from_and_to() {
        use crate::games::{GameSpec, GameVisitor};
        struct Check;
        impl GameVisitor for Check {
            type Output = ();
            fn visit<G: Game>(self, position: G) {
                let view = position.board_view();
                assert_eq!(view.colours, ["gold", "silver"]);
                let svg = board_svg(&view, &[]).unwrap();
                assert_eq!(count(&svg, r#"class="mark""#), 4);
                assert!(cell(&svg, "c3").contains("mark") && cell(&svg, "f6").contains("mark"));
                assert_eq!(
                    (
                        count(&svg, "letter p0 gold"),
                        count(&svg, "letter p1 silver")
                    ),
                    (16, 16)
                );
                assert!(
                    cell(&svg, "e2").contains(">E</text>"),
                    "{}",
                    cell(&svg, "e2")
                );
                assert!(svg.contains(">Gold: turn 1, step 1 of 4</text>"), "{svg}");
                let mut stepped = position.clone();
                let step = (0..G::NUM_ACTIONS as Action)
                    .find(|&a| stepped.is_legal(a) && stepped.move_to_text(a) != "end")
                    .unwrap();
                stepped.play(step);
                let stepped_svg = board_svg(&stepped.board_view(), &[]).unwrap();
                assert!(stepped_svg.contains(">Gold: turn 1, step 2 of 4</text>"));
                let mut legal = Vec::new();
                position.legal_actions(&mut legal);
                for &action in &legal {
                    let cells = position.move_cells(action);
                    let text = position.move_to_text(action);
                    match cells.len() {
                        0 => assert_eq!(text, "end"),
                        2 => assert!(
                            text[1..].starts_with(&cells[0])
                                && cell(&svg, &cells[0]).contains("letter")
                        ),
                        _ => panic!("{text}: {cells:?}"),
                    }
                }
            }
        }
        "arimaa(setup=false)"
            .parse::<GameSpec>()
            .unwrap()
            .visit(Check);
    }

    /// Morpion: the cross's 36 points on the cropped window, each drawn line from end to end,
    /// and a line is its new point then its first point.
    #[test]
    fn morpion_draws_its_points_and_lines_and_a_line_is_two_clicks() {
        use crate::games::{Morpion, MorpionParams};
        let mut position = Morpion::new(&MorpionParams);
        let svg = board_svg(&position.board_view(), &[]).unwrap();
        assert_eq!(count(&svg, "stone p0"), 36, "{svg}");
        assert_eq!(count(&svg, "class=\"drawn\""), 0);
        // 10 × 10 points of the cross and two cells around: 14 × 14 clickable cells.
        assert_eq!(count(&svg, "data-cell="), 14 * 14);
        let action = position.parse_legal_move("11,14v").unwrap();
        let clicks = position.move_cells(action);
        assert_eq!(clicks.len(), 2, "{clicks:?}");
        position.play(action);
        let view = position.board_view();
        assert_eq!(view.segments.len(), 1);
        let svg = board_svg(&view, &clicks).unwrap();
        assert_eq!(count(&svg, "class=\"drawn\""), 1);
        assert_eq!(count(&svg, "stone p1"), 1, "the added point");
        for cell in &clicks {
            assert!(
                svg.contains(&format!("class=\"cell last\" data-cell=\"{cell}\"")),
                "{cell}"
            );
        }
        // Every legal line is named by its two clicks, no two lines alike.
        let mut seen = std::collections::HashSet::new();
        let mut legal = Vec::new();
        position.legal_actions(&mut legal);
        for &action in &legal {
            assert!(seen.insert(position.move_cells(action)), "{action}");
        }
    }

    #[test]
    fn a_game_without_a_drawing_has_no_svg() {
        assert_eq!(board_svg(&BoardView::default(), &[]), None);
    }
}
