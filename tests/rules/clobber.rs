//! Clobber's rules on hand-built positions: captures onto adjacent enemy stones only, the loss
//! of a side without a move, and OpenSpiel's ids and texts.

use descent::games::{Action, Game, GameExt, Outcome, Player};

type Clobber = descent::games::Clobber<10, 10>;

fn legal_texts(position: &Clobber) -> Vec<String> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    let mover = position.to_move();
    actions
        .iter()
        .map(|&a| Clobber::action_to_text(mover, a))
        .collect()
}

const EMPTY_ROWS: &str = "..........\n";

fn picture(rows: &[&str]) -> String {
    let mut text = EMPTY_ROWS.repeat(10 - rows.len());
    for row in rows {
        text.push_str(row);
        text.push('\n');
    }
    text
}

#[test]
fn ids_and_texts_are_openspiels() {
    let start = Clobber::new(&Default::default());
    let mut actions: Vec<Action> = Vec::new();
    start.legal_actions(&mut actions);
    // OpenSpiel: 180 moves; the first are (5, b10c10), (6, b10b9), (7, b10a10).
    assert_eq!(actions.len(), 180);
    assert_eq!(actions[..3], [5, 6, 7]);
    assert_eq!(legal_texts(&start)[..3], ["b10c10", "b10b9", "b10a10"]);
    assert_eq!(
        start.cell(9, 0),
        Some(Player::P0),
        "a1 holds the first player's stone"
    );
    assert!(
        Clobber::action_from_text(Player::P0, "b10d10").is_err(),
        "two squares away"
    );
}

#[test]
fn a_stone_takes_an_adjacent_enemy_stone_and_nothing_else() {
    // Bottom two rows: o at a2, x at b2 and a1; o at d1 far from any x.
    let position =
        Clobber::from_picture(&picture(&["ox........", "x..o......"]), Player::P0).unwrap();
    assert_eq!(legal_texts(&position), ["a2b2", "a2a1"]);
    let mut after = position;
    after.play_moves("a2a1").unwrap();
    assert_eq!(after.piece_counts(), [2, 1]);
    // x on b2 has no o next to it: x cannot move and loses.
    assert_eq!(after.outcome(), Some(Outcome::WinP0));
}

#[test]
fn a_side_without_a_move_has_lost_already() {
    let stuck = Clobber::from_picture(&picture(&["o.x......."]), Player::P1).unwrap();
    assert_eq!(stuck.outcome(), Some(Outcome::WinP0));
    assert!(legal_texts(&stuck).is_empty());
    let err = Clobber::from_picture(&picture(&["o.z......."]), Player::P1).unwrap_err();
    assert!(err.to_string().contains("'z'"), "{err}");
}

#[test]
fn other_sizes_start_with_the_first_players_stone_on_a1_and_keep_only_colour_keeping_symmetries() {
    type Clobber56 = descent::games::Clobber<5, 6>;
    let start = Clobber56::new(&Default::default());
    assert_eq!(start.cell(4, 0), Some(Player::P0), "a1, bottom left");
    assert_eq!(
        start.cell(0, 0),
        Some(Player::P0),
        "a5: 4 rows up, same colour"
    );
    assert_eq!(start.cell(0, 5), Some(Player::P1), "f5");
    assert_eq!(start.piece_counts(), [15, 15]);
    assert!(start.parse_legal_move("a1a2").is_ok());
    assert!(start.parse_legal_move("a1b1").is_ok());
    assert!(
        Clobber56::action_from_text(Player::P0, "a6a5").is_err(),
        "5 rows only"
    );
    // With 5 rows and 6 columns, rot180 and the mirror swap the colours; the flip keeps them.
    let names: Vec<&str> = Clobber56::SYMMETRIES.iter().map(|s| s.name).collect();
    assert_eq!(names, ["flip"]);
    let names: Vec<&str> = descent::games::Clobber::<8, 8>::SYMMETRIES
        .iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, ["rot180", "transpose", "antitranspose"]);
}
