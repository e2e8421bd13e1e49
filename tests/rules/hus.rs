//! Each Hus rule on hand-built positions (`Hus::from_pits`: each player's 32 pits in its own
//! numbering, the side to move, the completed rounds), the final boards worked out by hand.

use crate::reference::ReferenceGame;
use crate::reference::hus::RefHus;
use descent::games::hus::PITS;
use descent::games::{Action, Game, GameExt, Hus, HusParams, Outcome, Player};

/// A player's 32 pits from `(pit, seeds)` pairs, the others empty.
fn pits(seeds: &[(usize, u8)]) -> [u8; PITS] {
    let mut pits = [0; PITS];
    for &(pit, count) in seeds {
        pits[pit] = count;
    }
    pits
}

fn position(p0: &[(usize, u8)], p1: &[(usize, u8)], to_move: Player, round: u16) -> Hus {
    Hus::from_pits(HusParams::default(), [pits(p0), pits(p1)], to_move, round)
        .expect("valid test position")
}

/// The same position in the naive reference.
fn reference_of(position: &Hus) -> RefHus {
    let mut reference = RefHus::new();
    reference.board = position
        .pits()
        .iter()
        .map(|row| row.iter().map(|&s| s as i32).collect())
        .collect();
    reference.player = position.to_move().index();
    reference.rounds = position.round() as i32;
    reference
}

/// Plays `pit` in both implementations and checks that they agree on the board and the result.
fn play(position: &mut Hus, pit: Action) {
    let mut reference = reference_of(position);
    position
        .check_legal_id(pit as usize)
        .unwrap_or_else(|e| panic!("{e}\n{position}"));
    position.play(pit);
    reference.apply(pit as usize);
    let ours: Vec<Vec<i32>> = position
        .pits()
        .iter()
        .map(|row| row.iter().map(|&s| s as i32).collect())
        .collect();
    assert_eq!(ours, reference.board, "board differs from the reference");
    assert_eq!(
        position.outcome().map_or([0.0, 0.0], |o| o.returns()),
        reference.returns()
    );
}

#[test]
fn initial_position() {
    let start = Hus::new(&HusParams::default());
    let row: Vec<u8> = (0..PITS).map(|pit| if pit < 24 { 2 } else { 0 }).collect();
    assert_eq!(start.pits()[0].to_vec(), row);
    assert_eq!(start.pits()[1].to_vec(), row);
    let mut legal = Vec::new();
    start.legal_actions(&mut legal);
    assert_eq!(legal, (0..24).collect::<Vec<Action>>());
    assert_eq!(start.score_p0(), Some(0));
    assert_eq!(start.piece_counts(), [48, 48]);
}

#[test]
fn a_pit_with_one_seed_cannot_be_played() {
    let p = position(&[(3, 1), (4, 2)], &[(0, 2)], Player::P0, 0);
    assert!(!p.is_legal(3));
    assert!(p.is_legal(4));
    assert!(p.parse_legal_move("3").is_err());
}

#[test]
fn a_sowing_that_wraps_twice_then_relays_round_the_board() {
    // 33 seeds from pit 31: every pit gets one, pit 0 a second (the sowing passes 31 → 0 twice)
    // and is relayed: two seeds at a time, from each even pit into the next two, until the relay
    // from pit 30 drops its last seed into the emptied pit 0. Round 0: no capture.
    let mut p = position(&[(31, 33)], &[(5, 2)], Player::P0, 0);
    play(&mut p, 31);
    let expected: Vec<u8> = (0..PITS)
        .map(|pit| match pit {
            0 => 1,
            _ if pit % 2 == 1 => 2,
            _ => 0,
        })
        .collect();
    assert_eq!(p.pits()[0].to_vec(), expected);
    assert_eq!(
        p.pits()[1],
        pits(&[(5, 2)]),
        "sowing never enters the opponent's pits"
    );
    assert_eq!(p.to_move(), Player::P1);
    assert!(!p.is_terminal());
}

#[test]
fn a_move_that_needs_more_sowings_than_max_laps_loses_for_the_mover() {
    // The move above needs 17 sowings (the first and 16 relays).
    for (max_laps, lost) in [(17, false), (16, true), (1, true)] {
        let params = HusParams {
            max_laps,
            ..HusParams::default()
        };
        let mut p =
            Hus::from_pits(params, [pits(&[(31, 33)]), pits(&[(5, 2)])], Player::P0, 0).unwrap();
        p.play(31);
        assert_eq!(
            p.outcome() == Some(Outcome::WinP1),
            lost,
            "max_laps {max_laps}"
        );
        assert_eq!(p.is_terminal(), lost);
        assert_eq!(p.hash(), p.hash_from_scratch());
    }
}

#[test]
fn a_capture_takes_the_facing_pit_and_the_one_behind_and_sows_them_on() {
    // P0 plays pit 18: seeds into 19 and 20; pit 20 held one, and P1's facing pit 27 (= 47 - 20)
    // is not empty: P0 takes P1's pits 27 (3 seeds) and 4 (= 20 - 16, 2 seeds), both emptied, and
    // sows the 5 from pit 20 on: 21..25, the last into an empty pit.
    let mut p = position(
        &[(18, 2), (20, 1), (0, 2)],
        &[(27, 3), (4, 2), (10, 4)],
        Player::P0,
        1,
    );
    play(&mut p, 18);
    assert_eq!(
        p.pits()[0],
        pits(&[
            (0, 2),
            (19, 1),
            (20, 2),
            (21, 1),
            (22, 1),
            (23, 1),
            (24, 1),
            (25, 1)
        ])
    );
    assert_eq!(p.pits()[1], pits(&[(10, 4)]), "both opponent pits emptied");
    assert_eq!(p.score_p0(), Some(10 - 4));
}

#[test]
fn a_capture_needs_the_facing_pit_but_not_the_one_behind() {
    // Facing pit 27 full, the pit behind (4) empty: still a capture, of 3 seeds.
    let mut p = position(&[(18, 2), (20, 1)], &[(27, 3), (10, 4)], Player::P0, 1);
    play(&mut p, 18);
    assert_eq!(
        p.pits()[0],
        pits(&[(19, 1), (20, 2), (21, 1), (22, 1), (23, 1)])
    );
    assert_eq!(p.pits()[1], pits(&[(10, 4)]));
    // Facing pit empty, the pit behind full: no capture, pit 20's 2 seeds are relayed.
    let mut p = position(&[(18, 2), (20, 1)], &[(4, 3), (10, 4)], Player::P0, 1);
    play(&mut p, 18);
    assert_eq!(p.pits()[0], pits(&[(19, 1), (21, 1), (22, 1)]));
    assert_eq!(p.pits()[1], pits(&[(4, 3), (10, 4)]));
}

#[test]
fn no_capture_in_the_first_round_nor_from_the_outer_row() {
    // Round 0: the landing in pit 20 is relayed instead of capturing.
    let mut p = position(
        &[(18, 2), (20, 1)],
        &[(27, 3), (4, 2), (10, 4)],
        Player::P0,
        0,
    );
    play(&mut p, 18);
    assert_eq!(p.pits()[0], pits(&[(19, 1), (21, 1), (22, 1)]));
    assert_eq!(p.pits()[1], pits(&[(27, 3), (4, 2), (10, 4)]));
    // An outer pit (5) never captures, whatever faces the inner row.
    let mut p = position(&[(3, 2), (5, 1)], &[(27, 3), (10, 4)], Player::P0, 3);
    play(&mut p, 3);
    assert_eq!(p.pits()[0], pits(&[(4, 1), (6, 1), (7, 1)]));
}

#[test]
fn captures_start_once_p1_has_moved() {
    let mut p = Hus::new(&HusParams::default());
    assert_eq!(p.round(), 0);
    p.play(0);
    assert_eq!(p.round(), 0, "a round ends with P1's move");
    p.play(0);
    assert_eq!(p.round(), 1);
}

#[test]
fn a_player_left_without_a_pit_of_two_loses() {
    // P0 plays pit 0 (2 seeds into 1 and 2, the last into an empty pit). P1 holds only single
    // seeds: it cannot move, and P0 wins.
    let mut p = position(&[(0, 2)], &[(3, 1), (9, 1), (20, 1)], Player::P0, 1);
    play(&mut p, 0);
    assert_eq!(p.outcome(), Some(Outcome::WinP0));
    let mut legal = vec![7];
    p.legal_actions(&mut legal);
    assert!(legal.is_empty());
    // A position whose side to move cannot play is already over.
    let over = position(&[(0, 1)], &[(3, 2)], Player::P0, 1);
    assert_eq!(over.outcome(), Some(Outcome::WinP1));
}

#[test]
fn the_game_is_a_draw_after_max_rounds() {
    let params = HusParams {
        max_rounds: 2,
        ..HusParams::default()
    };
    let mut p = Hus::new(&params);
    let mut legal = Vec::new();
    for ply in 0..6 {
        assert!(!p.is_terminal(), "over before ply {ply}");
        p.legal_actions(&mut legal);
        p.play(legal[0]);
    }
    assert_eq!(p.round(), 3);
    assert_eq!(p.outcome(), Some(Outcome::Draw));
    assert_eq!(p.max_game_length(), 6);
}

#[test]
fn move_text_is_the_pit_number() {
    let p = Hus::new(&HusParams::default());
    assert_eq!(Hus::action_to_text(Player::P1, 17), "17");
    assert_eq!(p.parse_legal_move("23"), Ok(23));
    for bad in ["32", "24", "-1", "x", "1.5", "+3"] {
        assert!(p.parse_legal_move(bad).is_err(), "{bad}");
    }
    let err = p.parse_legal_move("40").unwrap_err().to_string();
    assert!(err.contains("0-31"), "{err}");
}

#[test]
fn from_pits_refuses_too_many_seeds() {
    let err = Hus::from_pits(
        HusParams::default(),
        [pits(&[(0, 90)]), pits(&[(0, 10)])],
        Player::P0,
        0,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("100") && err.contains("96"), "{err}");
}
