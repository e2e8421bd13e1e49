//! Amazons' rules on hand-built positions: a whole turn (move, then arrow from the landing
//! square, the vacated square open), the loss of a side whose amazons are all walled in, the
//! territory score, the two notations and position-dependent symmetric ids.

use descent::games::{Action, Amazons, Game, GameExt, Outcome, Player};

/// O's four amazons in the corners, three walled in by arrows; the one on j10 still has i9.
/// X's amazons on i5, e6, f6, e5.
const ALMOST_WALLED: &str = "O#......#O
                             ##.......#
                             ..........
                             ..........
                             ....XX....
                             ....X...X.
                             ..........
                             ..........
                             ##......##
                             O#......#O";

fn legal(position: &Amazons) -> Vec<Action> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
}

#[test]
fn walling_in_the_last_free_amazon_wins() {
    let mut position = Amazons::from_picture(ALMOST_WALLED, Player::P0).unwrap();
    assert_eq!(position.outcome(), None);
    position.play_moves("i5-i8/i9").unwrap();
    assert_eq!(position.outcome(), Some(Outcome::WinP0));
    assert!(legal(&position).is_empty());
    // The territory score: every empty square is X's (100 − 8 amazons − 12 arrows), O has none.
    assert_eq!(position.score_p0(), Some(80));
    // A side already walled in has lost before it moves.
    let walled = ALMOST_WALLED.replacen(".......#\n", "......##\n", 1);
    let walled = Amazons::from_picture(&walled, Player::P1).unwrap();
    assert_eq!(walled.outcome(), Some(Outcome::WinP0));
    assert!(legal(&walled).is_empty());
    let err = Amazons::from_picture(&ALMOST_WALLED.replacen('X', ".", 1), Player::P0);
    assert!(err.unwrap_err().to_string().contains("not 3 (X)"));
}

#[test]
fn the_arrow_may_land_on_the_square_just_left() {
    let start = Amazons::new(&Default::default());
    // d1 to d7 then back down to d1: the vacated square is open to the arrow.
    let id = start.move_from_text("d1-d7/d1").unwrap();
    assert!(start.is_legal(id));
    assert_eq!(start.move_to_text(id), "d1-d7/d1");
    // Not through or onto an amazon: d10 holds an O.
    let blocked = start.move_from_text("d1-d10/d9").unwrap();
    assert!(!start.is_legal(blocked));
    assert!(start.move_from_text("e1-e2/e3").is_err(), "no amazon on e1");
    assert!(
        start.move_from_text("d1-e3/e4").is_err(),
        "not a queen line"
    );
}

#[test]
fn ids_name_the_amazon_by_its_rank_in_cell_order() {
    let start = Amazons::new(&Default::default());
    assert_eq!(legal(&start).len(), 2176);
    // X's amazons in cell order (row 0 = rank 10): a4 (60), j4 (69), d1 (93), g1 (96).
    let id = start.move_from_text("d1-d7/d1").unwrap();
    assert_eq!(Amazons::action_to_text(Player::P0, id), "2:N6/S6");
    assert_eq!(Amazons::action_from_text(Player::P0, "2:N6/S6"), Ok(id));
    // The mirror image of d1-d7/d1 is g1-g7/g1, by X's amazon of rank 3.
    let mirror = Amazons::SYMMETRIES
        .iter()
        .position(|s| s.name == "mirror")
        .unwrap();
    let image = start.symmetric_action(mirror, id);
    assert_eq!(start.apply_symmetry(mirror).move_to_text(image), "g1-g7/g1");
    assert_eq!(Amazons::action_to_text(Player::P0, image), "3:N6/S6");
}

/// A position random play reached: X's amazon on j1 is walled in although a1, the next cell in
/// index order, is empty (a neighbourhood computed by shifts must not wrap from j1 to a1).
#[test]
fn a_corner_amazon_walled_in_has_no_neighbour_across_the_edge() {
    let stuck = Amazons::from_picture(
        "....###O##
         .########.
         ######X#.#
         ####.#####
         ##X#######
         .#######.#
         ###O##X#O.
         #.########
         #.########
         .##O#..##X",
        Player::P0,
    )
    .unwrap();
    assert_eq!(stuck.outcome(), Some(Outcome::WinP1));
    assert!(legal(&stuck).is_empty());
}
