//! Each Shobu rule on hand-built positions (`Shobu::from_stones`), checked against the naive
//! reference where a move is played.

use crate::reference::ReferenceGame;
use crate::reference::shobu::RefShobu;
use descent::games::{Action, Game, GameExt, Outcome, Player, Shobu, ShobuParams};

/// A board's stones from square names, e.g. `"a1 d4"`.
fn stones(names: &str) -> u16 {
    names
        .split_whitespace()
        .map(|name| {
            let b = name.as_bytes();
            1u16 << ((b[1] - b'1') * 4 + (b[0] - b'a'))
        })
        .fold(0, |all, bit| all | bit)
}

/// A position from each player's stones on boards 0-3.
fn position_with(params: ShobuParams, p0: [&str; 4], p1: [&str; 4], to_move: Player) -> Shobu {
    Shobu::from_stones(params, [p0.map(stones), p1.map(stones)], to_move, 0)
        .expect("valid test position")
}

fn position(p0: [&str; 4], p1: [&str; 4], to_move: Player) -> Shobu {
    position_with(ShobuParams::default(), p0, p1, to_move)
}

fn reference_of(position: &Shobu) -> RefShobu {
    let mut reference = RefShobu::new();
    for board in 0..4 {
        for square in 0..16 {
            let owner = (0..2).find(|&p| position.stones()[p][board] & (1 << square) != 0);
            reference.cells[board][square / 4][square % 4] = owner.map_or(-1, |p| p as i32);
        }
    }
    reference.player = position.to_move().index();
    reference.no_push = position.no_push_count() as usize;
    reference
}

fn legal(position: &Shobu) -> Vec<Action> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
}

/// The id of a move text for the side to move (legal or not).
fn id(position: &Shobu, text: &str) -> Action {
    Shobu::action_from_text(position.to_move(), text).unwrap_or_else(|e| panic!("{e}"))
}

/// Plays a legal move in both implementations; they must agree on the legal moves before and on
/// the stones and the result after.
fn play(position: &mut Shobu, text: &str) {
    let mut reference = reference_of(position);
    let ours: Vec<usize> = legal(position).iter().map(|&a| a as usize).collect();
    assert_eq!(
        ours,
        reference.legal(),
        "legal moves differ from the reference"
    );
    let action = position
        .parse_legal_move(text)
        .unwrap_or_else(|e| panic!("{e}\n{position}"));
    position.play(action);
    reference.apply(action as usize);
    let after = reference_of(position);
    assert_eq!(
        after.cells, reference.cells,
        "stones differ from the reference"
    );
    assert_eq!(
        position.outcome().map_or([0.0, 0.0], |o| o.returns()),
        reference.returns()
    );
}

#[test]
fn initial_position_has_232_actions() {
    let start = Shobu::new(&ShobuParams::default());
    assert_eq!(legal(&start).len(), 232);
    assert_eq!(start.piece_counts(), [16, 16]);
    assert_eq!(reference_of(&start).legal().len(), 232);
}

#[test]
fn a_push_off_the_edge_removes_the_stone() {
    let mut p = position(
        ["b2", "b1", "a1", "a1"],
        ["d4", "a1 d4", "d4", "d4"],
        Player::P0,
    );
    play(&mut p, "0b2:1b1:W1");
    assert_eq!(
        p.stones()[0],
        [stones("a2"), stones("a1"), stones("a1"), stones("a1")]
    );
    assert_eq!(
        p.stones()[1][1],
        stones("d4"),
        "the pushed stone left board 1"
    );
    assert_eq!(p.piece_counts(), [4, 4]);
    assert_eq!(p.no_push_count(), 0);
    assert!(!p.is_terminal());
}

#[test]
fn a_length_two_move_pushes_the_stone_it_meets_beyond_its_landing_square() {
    // N2 from a1 on board 1 meets P1's stone on a2: the stone ends on a4, the mover on a3.
    let mut p = position(
        ["a1", "a1", "d1", "d1"],
        ["d4", "a2 d4", "d4", "d4"],
        Player::P0,
    );
    play(&mut p, "0a1:1a1:N2");
    assert_eq!(p.stones()[0][1], stones("a3"));
    assert_eq!(p.stones()[1][1], stones("a4 d4"));
    // With a4 taken, the push has nowhere to go: illegal (the length-1 push stays legal).
    let blocked = position(
        ["a1", "a1", "d1", "d1"],
        ["d4", "a2 a4", "d4", "d4"],
        Player::P0,
    );
    assert!(!blocked.is_legal(id(&blocked, "0a1:1a1:N2")));
    assert!(blocked.is_legal(id(&blocked, "0a1:1a1:N1")));
}

#[test]
fn a_push_blocked_by_a_second_stone_is_illegal() {
    // Board 1: P0 on c1 pushing west into P1's b1, with a second stone (either colour) on a1.
    for second in ["P1", "P0"] {
        let (p0_board1, p1_board1) = if second == "P1" {
            ("c1", "b1 a1 d4")
        } else {
            ("c1 a1", "b1 d4")
        };
        let p = position(
            ["d2", p0_board1, "d1", "d1"],
            ["d4", p1_board1, "d4", "d4"],
            Player::P0,
        );
        for text in ["0d2:1c1:W1", "0d2:1c1:W2"] {
            assert!(!p.is_legal(id(&p, text)), "{text} with {second} on a1");
            assert!(
                reference_of(&p)
                    .legal()
                    .iter()
                    .all(|&a| a != id(&p, text) as usize)
            );
        }
    }
    // A length-2 move whose path holds two opposing stones pushes neither.
    let p = position(
        ["d2", "d1", "d1", "d1"],
        ["d4", "c1 b1", "d4", "d4"],
        Player::P0,
    );
    assert!(!p.is_legal(id(&p, "0d2:1d1:W2")));
    // Nor may a stone pass through its own.
    let p = position(
        ["d2", "d1 c1", "d1", "d1"],
        ["d4", "a4", "d4", "d4"],
        Player::P0,
    );
    assert!(!p.is_legal(id(&p, "0d2:1d1:W2")));
    assert!(!p.is_legal(id(&p, "0d2:1d1:W1")));
    assert!(p.is_legal(id(&p, "0d2:1c1:W2")));
}

#[test]
fn a_passive_move_whose_aggressive_twin_is_impossible_is_no_action() {
    // On board 0, a1 can go N2; but P0's stones on the aggressive boards 1 (a4) and 3 (b4) sit on
    // the top row and cannot go north: no action pairs 0a1 with N2 (or N1), while E1 exists.
    let p = position(
        ["a1", "a4", "d1", "b4"],
        ["d4", "d1", "d4", "d1"],
        Player::P0,
    );
    let texts: Vec<String> = legal(&p)
        .iter()
        .map(|&a| Shobu::action_to_text(Player::P0, a))
        .collect();
    assert!(
        !texts
            .iter()
            .any(|t| t.starts_with("0a1:") && t.contains(":N")),
        "{texts:?}"
    );
    assert!(texts.contains(&"0a1:1a4:E1".to_string()), "{texts:?}");
    assert!(!p.is_legal(id(&p, "0a1:1a4:N2")));
    let ours: Vec<usize> = legal(&p).iter().map(|&a| a as usize).collect();
    assert_eq!(ours, reference_of(&p).legal());
}

#[test]
fn emptying_one_of_the_opponents_boards_wins() {
    let mut p = position(
        ["b2", "b1", "a1", "a1"],
        ["d4", "a1", "d4", "d4"],
        Player::P0,
    );
    play(&mut p, "0b2:1b1:W1");
    assert_eq!(p.outcome(), Some(Outcome::WinP0));
    assert!(legal(&p).is_empty());
}

#[test]
fn fifty_actions_without_a_push_draw() {
    let p0 = ["b2", "b1", "a1", "a1"].map(stones);
    let p1 = ["d4", "a1 d4", "d4", "d4"].map(stones);
    let start = |no_push| {
        Shobu::from_stones(ShobuParams::default(), [p0, p1], Player::P0, no_push).unwrap()
    };
    // The 50th action without a push draws; a push resets the count.
    let mut quiet = start(49);
    quiet.play(id(&quiet, "0b2:1b1:N1"));
    assert_eq!(quiet.no_push_count(), 50);
    assert_eq!(quiet.outcome(), Some(Outcome::Draw));
    let mut push = start(49);
    push.play(id(&push, "0b2:1b1:W1"));
    assert_eq!(push.no_push_count(), 0);
    assert!(!push.is_terminal());
    let mut one_short = start(48);
    one_short.play(id(&one_short, "0b2:1b1:N1"));
    assert!(!one_short.is_terminal());
    // no_push_draw = 0: never.
    let params = ShobuParams {
        no_push_draw: 0,
        ..ShobuParams::default()
    };
    let mut never = Shobu::from_stones(params, [p0, p1], Player::P0, 200).unwrap();
    never.play(id(&never, "0b2:1b1:N1"));
    assert!(!never.is_terminal());
}

#[test]
fn a_player_without_a_legal_action_loses_or_draws_by_parameter() {
    // P1 to move: its stones on its home boards 2 and 3 sit on a1, walled in by P0's a2, b1, b2:
    // no passive move, so no action.
    let p0 = ["a1", "a1", "a2 b1 b2", "a2 b1 b2"];
    let p1 = ["d4", "d4", "a1", "a1"];
    let p = position(p0, p1, Player::P1);
    assert_eq!(p.outcome(), Some(Outcome::WinP0));
    assert!(reference_of(&p).legal().is_empty());
    let params = ShobuParams {
        no_move_loses: false,
        ..ShobuParams::default()
    };
    assert_eq!(
        position_with(params, p0, p1, Player::P1).outcome(),
        Some(Outcome::Draw)
    );
}

#[test]
fn move_text_names_boards_squares_direction_and_length() {
    let start = Shobu::new(&ShobuParams::default());
    let action = start.parse_legal_move("0a1:1b1:N2").unwrap();
    assert_eq!(Shobu::action_to_text(Player::P0, action), "0a1:1b1:N2");
    assert!(
        start.parse_legal_move("0A1:3b1:n1").is_err(),
        "files are a-d"
    );
    assert!(
        start.parse_legal_move("0a1:3b1:n1").is_ok(),
        "directions in any case"
    );
    for (bad, named) in [
        ("2a4:1b1:S1", "not a home board of p0"),
        ("0a1:2b1:N1", "colour"),
        ("0a1:1b1:X1", "not a direction"),
        ("0a1:1b1:N3", "length 1 or 2"),
        ("0a1:1b1", "three parts"),
        ("0e1:1b1:N1", "a1-d4"),
    ] {
        let err = start.parse_legal_move(bad).unwrap_err().to_string();
        assert!(err.contains(named), "{bad}: {err}");
    }
}

#[test]
fn symmetric_images_of_the_start_keep_232_actions() {
    let start = Shobu::new(&ShobuParams::default());
    assert_eq!(Shobu::SYMMETRIES.len(), 15);
    for index in 0..Shobu::SYMMETRIES.len() {
        let image = start.apply_symmetry(index);
        assert_eq!(
            legal(&image).len(),
            232,
            "{}",
            Shobu::SYMMETRIES[index].name
        );
        let ours: Vec<usize> = legal(&image).iter().map(|&a| a as usize).collect();
        assert_eq!(ours, reference_of(&image).legal());
    }
}
