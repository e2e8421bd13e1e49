//! Draughts rules on hand-built positions (PDN FEN, 10 × 10 unless said): each special rule of
//! international draughts, the draws, the move texts and the FEN reader. The legal move lists
//! were checked against PyPI pydraughts 0.6.7 (`standard`).

use std::collections::HashMap;

use descent::games::{Action, Draughts, DraughtsRules, Game, GameExt, Outcome, Player};

type International = Draughts<10>;

fn position(fen: &str) -> International {
    International::from_fen(&DraughtsRules::default(), fen).unwrap()
}

/// The legal moves as the position writes them, sorted.
fn moves(position: &International) -> Vec<String> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    let mut texts: Vec<String> = actions.iter().map(|&a| position.move_to_text(a)).collect();
    texts.sort();
    texts
}

#[test]
fn the_starts_of_the_three_boards() {
    let brazilian = Draughts::<8>::new(&DraughtsRules::default());
    assert_eq!(brazilian.piece_counts(), [12, 12]);
    assert_eq!(
        moves_of(&brazilian),
        [
            "21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"
        ]
    );
    let international = International::new(&DraughtsRules::default());
    assert_eq!(international.piece_counts(), [20, 20]);
    assert_eq!(international.fen(), position("W:W31-50:B1-20").fen());
    let canadian = Draughts::<12>::new(&DraughtsRules::default());
    assert_eq!(canadian.piece_counts(), [30, 30]);
    assert_eq!(canadian.mobility(), 11);
    assert_eq!(
        brazilian.to_string(),
        "  b   b   b   b\nb   b   b   b\n  b   b   b   b\n.   .   .   .\n  .   .   .   .\n\
         w   w   w   w\n  w   w   w   w\nw   w   w   w\n\
         W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );
}

fn moves_of<G: Game>(position: &G) -> Vec<String> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions.iter().map(|&a| position.move_to_text(a)).collect()
}

#[test]
fn men_capture_backwards_and_capturing_is_compulsory() {
    let mut p = position("W:W28,47:B33,1");
    assert_eq!(
        moves(&p),
        ["28x39"],
        "the backward capture, not 47-41 / 47-42"
    );
    p.play_moves("28x39").unwrap();
    assert_eq!(p.piece_counts(), [2, 1]);
}

#[test]
fn only_the_captures_taking_the_most_pieces_are_legal() {
    // 28x17 takes one man, 28x19x8 two.
    assert_eq!(moves(&position("W:W28:B22,23,13,1")), ["28x8"]);
}

#[test]
fn kings_fly_and_capture_from_afar_landing_on_any_square_beyond() {
    assert_eq!(
        moves(&position("W:WK46:B1")),
        [
            "46-10", "46-14", "46-19", "46-23", "46-28", "46-32", "46-37", "46-41", "46-5"
        ]
    );
    assert_eq!(
        moves(&position("W:WK46:B28,1")),
        ["46x10", "46x14", "46x19", "46x23", "46x5"]
    );
    // Landing on 19 lets the king go on over 13: the longer capture is compulsory.
    let mut p = position("W:WK46:B28,13,1");
    assert_eq!(moves(&p), ["46x2", "46x8"]);
    p.play_moves("46x8").unwrap();
    assert_eq!(p.fen(), "B:WK8:B1");
}

#[test]
fn a_man_promotes_only_when_its_move_ends_on_the_far_row() {
    // 13x4x15 passes row 0 on square 4 and ends on 15: still a man.
    let mut p = position("W:W13:B9,10,45");
    assert_eq!(moves(&p), ["13x15"]);
    p.play_moves("13x15").unwrap();
    assert_eq!(p.piece(14), Some((Player::P0, false)));
    let mut p = position("W:W6:B45");
    p.play_moves("6-1").unwrap();
    assert_eq!(p.piece(0), Some((Player::P0, true)));
    // Black promotes on row 9.
    let mut p = position("B:W1:B41");
    p.play_moves("41-46").unwrap();
    assert_eq!(p.piece(45), Some((Player::P1, true)));
}

#[test]
fn a_capture_round_a_circuit_ends_on_its_own_square_and_counts_once() {
    // Both ways round the four men take the same pieces: one move.
    let mut p = position("W:W32:B27,17,28,18,1");
    assert_eq!(moves(&p), ["32x32"]);
    p.play_moves("32x32").unwrap();
    assert_eq!(p.fen(), "B:W32:B1");
}

#[test]
fn two_captures_between_the_same_squares_are_two_moves_named_by_their_landing_squares() {
    // From a pydraughts game: Black's king on 47 takes 30, 38, 44 or 34, 38, 44, both to 49.
    let fen = "B:W30,34,37,38,43,44,45,46,48:B1,3,5,7,9,10,11,12,13,15,17,23,K47";
    let p = position(fen);
    let mut actions = Vec::new();
    p.legal_actions(&mut actions);
    assert_eq!(actions.len(), 2);
    let texts: Vec<String> = actions.iter().map(|&a| p.move_to_text(a)).collect();
    for (&action, text) in actions.iter().zip(&texts) {
        assert!(
            text.starts_with("47x") && text.ends_with("x49") && text.len() > 6,
            "{text}"
        );
        assert_eq!(p.move_from_text(text), Ok(action));
    }
    // The library's paths name them; k = 0 takes the lower set of squares (30 before 34).
    assert_eq!(p.move_from_text("47x24x35x49"), Ok(actions[0]));
    assert_eq!(p.move_from_text("47x29x40x49"), Ok(actions[1]));
    assert_eq!(
        International::action_to_text(Player::P1, actions[0]),
        "47-49"
    );
    assert_eq!(
        International::action_to_text(Player::P1, actions[1]),
        "47-49#1"
    );
    let error = p.parse_legal_move("47x49").unwrap_err().to_string();
    assert!(
        error.contains(&texts[0]) && error.contains(&texts[1]),
        "{error}"
    );
    assert!(
        p.parse_legal_move("47x29x49").is_err(),
        "not a way of playing either"
    );
    let mut child = p.clone();
    child.play(actions[1]);
    assert_eq!(child.piece(33), None);
    assert_eq!(child.piece(29), Some((Player::P0, false)));
}

#[test]
fn a_player_who_cannot_move_loses() {
    // White's man on 46 is blocked by 41 and 37.
    let p = position("W:W46:B41,37");
    assert_eq!(p.outcome(), Some(Outcome::WinP1));
    assert_eq!(p.mobility(), 0);
    // Taking Black's last piece wins.
    let mut p = position("W:W28:B33");
    p.play_moves("28x39").unwrap();
    assert_eq!(p.outcome(), Some(Outcome::WinP0));
}

#[test]
fn the_third_occurrence_of_a_position_is_a_draw() {
    let params = DraughtsRules {
        endgame_rule: false,
        ..DraughtsRules::default()
    };
    let mut p = International::from_fen(&params, "W:WK50:BK1").unwrap();
    p.play_moves("50-45 1-6 45-50 6-1 50-45 1-6 45-50").unwrap();
    assert_eq!(p.outcome(), None, "the start has occurred twice");
    p.play_moves("6-1").unwrap();
    assert_eq!(p.outcome(), Some(Outcome::Draw));
}

/// Plays `plies` quiet moves of kings (`kings` true) or of men: none takes anything, none lets
/// the opponent take, none repeats a position. Panics if the position has no such move.
fn play_quietly<const N: usize>(position: &mut Draughts<N>, plies: usize, kings: bool) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut actions = Vec::new();
    for _ in 0..plies {
        position.legal_actions(&mut actions);
        let quiet = actions.iter().copied().find(|&action| {
            let text = position.move_to_text(action);
            let from: usize = text.split('-').next().unwrap().parse().unwrap_or(0);
            let by_king = from > 0 && position.piece(from - 1).is_some_and(|(_, king)| king);
            let mut child = position.clone();
            child.play(action);
            let takes_nothing = child.piece_counts() == position.piece_counts();
            let new = !seen.contains_key(&child.fen());
            by_king == kings && takes_nothing && new && !gives_a_capture(&child)
        });
        let action: Action = quiet.unwrap_or_else(|| panic!("no quiet move\n{position}"));
        position.play(action);
        *seen.entry(position.fen()).or_default() += 1;
    }
}

fn gives_a_capture<const N: usize>(position: &Draughts<N>) -> bool {
    moves_of(position).iter().any(|text| text.contains('x'))
}

#[test]
fn king_moves_without_a_capture_draw_after_the_limit() {
    let params = DraughtsRules {
        king_moves: 3,
        endgame_rule: false,
        ..DraughtsRules::default()
    };
    let fen = "W:WK46,K50,35:BK5,K1,16";
    let mut p = International::from_fen(&params, fen).unwrap();
    play_quietly(&mut p, 5, true);
    assert_eq!(p.outcome(), None, "5 plies of king moves");
    play_quietly(&mut p, 1, true);
    assert_eq!(p.outcome(), Some(Outcome::Draw), "3 moves each");
    // A man's move starts the count again.
    let mut p = International::from_fen(&params, fen).unwrap();
    play_quietly(&mut p, 2, true);
    play_quietly(&mut p, 1, false);
    play_quietly(&mut p, 5, true);
    assert_eq!(p.outcome(), None);
}

#[test]
fn fmjd_limits_the_short_endings_against_a_lone_king() {
    // Three kings against one: 16 moves each.
    let mut p = position("W:WK46,K50,K45:BK3");
    play_quietly(&mut p, 31, true);
    assert_eq!(p.outcome(), None);
    play_quietly(&mut p, 1, true);
    assert_eq!(p.outcome(), Some(Outcome::Draw));
    // Two kings against one: 5 moves each.
    let mut p = position("W:WK46,K50:BK3");
    play_quietly(&mut p, 9, true);
    assert_eq!(p.outcome(), None);
    play_quietly(&mut p, 1, true);
    assert_eq!(p.outcome(), Some(Outcome::Draw));
    // Four pieces against a king: no limit but the 25 moves.
    let mut p = position("W:WK46,K50,K45,36:BK3");
    play_quietly(&mut p, 40, true);
    assert_eq!(p.outcome(), None);
    // Off by the parameter.
    let params = DraughtsRules {
        endgame_rule: false,
        ..DraughtsRules::default()
    };
    let mut p = International::from_fen(&params, "W:WK46,K50:BK3").unwrap();
    play_quietly(&mut p, 20, true);
    assert_eq!(p.outcome(), None);
}

#[test]
fn the_clocks_are_part_of_the_hash_and_the_encoding() {
    let mut p = position("W:WK46,K50,35:BK5,K1,16");
    play_quietly(&mut p, 4, true);
    let fresh = position(&p.fen());
    assert_ne!(p.hash(), fresh.hash(), "4 plies on the king clock");
    let (mut a, mut b) = (vec![0.0; 700], vec![0.0; 700]);
    fresh.encode(&mut a);
    p.encode(&mut b);
    assert_eq!(a[..500], b[..500], "the pieces and the side to move");
    assert_eq!(b[500], 4.0 / 50.0, "the king clock plane");
    assert_eq!(a[500], 0.0);
}

#[test]
fn bad_positions_and_move_texts_are_refused_with_the_reason() {
    let params = DraughtsRules::default();
    for (fen, named) in [
        ("X:W1:B2", "side to move"),
        ("W:W51:B1", "51"),
        ("W:W0:B1", "\"0\""),
        ("W:W1,1:B2", "named twice"),
        ("W:W1:B1", "named twice"),
        ("W:Q1:B2", "piece list"),
        ("W:W12-3:B50", "12-3"),
    ] {
        let error = International::from_fen(&params, fen)
            .unwrap_err()
            .to_string();
        assert!(error.contains(named), "{fen}: {error}");
    }
    let start = International::new(&params);
    for text in [
        "32", "32-", "x28", "32-28x23", "0-5", "51-46", "32-28#99", "a3-b4",
    ] {
        assert!(start.parse_legal_move(text).is_err(), "{text}");
    }
    let error = start.parse_legal_move("32-37").unwrap_err().to_string();
    assert!(
        error.contains("not legal") && error.contains("31-26"),
        "{error}"
    );
}
