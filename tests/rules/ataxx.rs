//! Ataxx's rules on hand-built positions (the PyPI `ataxx` library's, docs/games.md): singles
//! and doubles, flips around the destination, the forced pass, the ends (nobody can move, a side
//! wiped out, 100 plies without a single), the move texts.

use descent::games::ataxx::PASS;
use descent::games::{Action, Ataxx, Game, GameExt, Outcome, Player};

fn texts(position: &Ataxx) -> Vec<String> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions.iter().map(|&a| position.move_to_text(a)).collect()
}

fn picture(rows: &[&str; 7], to_move: Player, clock: u16) -> Ataxx {
    Ataxx::from_picture(&rows.join("\n"), to_move, clock).expect("a valid test position")
}

#[test]
fn the_start_has_the_librarys_sixteen_moves() {
    let start = Ataxx::new(&Default::default());
    let mut expected = [
        "a6", "a7a5", "a7b5", "a7c5", "a7c6", "a7c7", "b6", "b7", "f1", "f2", "g1e1", "g1e2",
        "g1e3", "g1f3", "g1g3", "g2",
    ]
    .map(String::from)
    .to_vec();
    let mut got = texts(&start);
    expected.sort();
    got.sort();
    assert_eq!(got, expected);
    assert_eq!(start.cell(6, 0), Some(Player::P0), "a7 is Black's");
    assert_eq!(start.cell(0, 0), Some(Player::P1), "a1 is White's");
}

#[test]
fn a_single_adds_a_piece_a_double_moves_one_and_both_flip_every_neighbour() {
    let position = picture(
        &[
            ".......", //
            ".......", "..oox..", ".xo.o..", "...o...", ".......", ".......",
        ],
        Player::P0,
        7,
    );
    // The single d4 (next to e5) turns c5, d5, c4, e4 and d3: all five o around it, diagonals
    // included.
    let mut single = position;
    single.play_moves("d4").unwrap();
    assert_eq!(single.piece_counts(), [8, 0]);
    assert_eq!(
        single.outcome(),
        Some(Outcome::WinP0),
        "White has no piece left"
    );
    // The double b4d4 leaves b4 empty and flips the same five.
    let mut double = position;
    double.play_moves("b4d4").unwrap();
    assert_eq!(double.piece_counts(), [7, 0]);
    assert_eq!(double.cell(3, 1), None, "b4 left empty");
    assert!(
        Ataxx::action_from_text(Player::P0, "b4b5").is_err(),
        "one apart is no double"
    );
    assert!(
        Ataxx::action_from_text(Player::P0, "b4e4").is_err(),
        "three apart"
    );
}

#[test]
fn a_side_without_a_move_passes_while_the_other_can_move() {
    // Black's only piece is walled in by White's at distance 1 and 2; White has room.
    let walled = picture(
        &[
            "xoo....", //
            "ooo....", "ooo....", ".......", ".......", ".......", ".......",
        ],
        Player::P0,
        0,
    );
    assert_eq!(walled.outcome(), None);
    assert_eq!(texts(&walled), ["0000"]);
    let mut after = walled;
    after.play(PASS);
    assert_eq!(after.to_move(), Player::P1);
    assert!(texts(&after).len() > 1);
    assert!(!after.is_legal(PASS), "White can move: no pass");
}

#[test]
fn nobody_able_to_move_ends_the_game_by_count() {
    // A full board: 25 x against 24 o.
    let mut rows = [""; 7];
    let full = ["xoxoxox", "oxoxoxo"];
    for (k, row) in rows.iter_mut().enumerate() {
        *row = full[k % 2];
    }
    assert_eq!(
        picture(&rows, Player::P1, 0).outcome(),
        Some(Outcome::WinP0)
    );
    // The same board with one square empty: the side next to it still has a move.
    let mut one_gap = rows;
    one_gap[0] = "xoxoxo.";
    assert_eq!(picture(&one_gap, Player::P0, 0).outcome(), None);
}

#[test]
fn a_hundred_plies_without_a_single_draw_and_a_single_resets_the_clock() {
    let mut position = Ataxx::new(&Default::default());
    let shuttle = ["a7a5", "g7g5", "a5a7", "g5g7"];
    for ply in 0..99 {
        position.play_moves(shuttle[ply % 4]).unwrap();
    }
    assert_eq!(position.outcome(), None, "99 plies of doubles");
    let mut hundred = position;
    hundred.play_moves(shuttle[99 % 4]).unwrap();
    assert_eq!(hundred.outcome(), Some(Outcome::Draw));
    // The 100th ply a single instead (White next to its g5): the clock restarts.
    position.play_moves("g6").unwrap();
    assert_eq!(position.outcome(), None);
    let near_limit = picture(
        &[
            "x.....o", ".......", ".......", ".......", ".......", ".......", "o.....x",
        ],
        Player::P0,
        99,
    );
    let mut jump = near_limit;
    jump.play_moves("a7a5").unwrap();
    assert_eq!(jump.outcome(), Some(Outcome::Draw));
    let mut clone = near_limit;
    clone.play_moves("a6").unwrap();
    assert_eq!(clone.outcome(), None);
}

#[test]
fn texts_parse_back_and_garbage_is_refused() {
    let start = Ataxx::new(&Default::default());
    let mut actions: Vec<Action> = Vec::new();
    start.legal_actions(&mut actions);
    for &action in &actions {
        let text = start.move_to_text(action);
        assert_eq!(start.move_from_text(&text), Ok(action), "{text}");
    }
    assert_eq!(Ataxx::action_from_text(Player::P1, "pass"), Ok(PASS));
    assert_eq!(Ataxx::action_to_text(Player::P1, PASS), "0000");
    for garbage in ["h1", "a8", "a1a1", "a1c3x", "00", ""] {
        assert!(
            Ataxx::action_from_text(Player::P0, garbage).is_err(),
            "{garbage}"
        );
    }
}
