//! Surakarta rules on hand-built positions (pictures from rank 1, `x` P0, `o` P1): steps, captures
//! only through a loop, a path blocked by an own piece, the starting point counted empty, the
//! end by capturing the last piece, by 50 quiet plies, by a repeated position and by a player
//! left without a move, texts.

use descent::games::{Game, GameExt, Outcome, Player, Surakarta, SurakartaParams};

fn position(picture: &str, to_move: Player) -> Surakarta {
    Surakarta::from_picture(picture, to_move, &SurakartaParams::default()).unwrap()
}

fn moves(position: &Surakarta) -> Vec<String> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions.iter().map(|&a| position.move_to_text(a)).collect()
}

fn captures(position: &Surakarta) -> Vec<String> {
    let mut all = moves(position);
    all.retain(|m| m.contains('x'));
    all
}

#[test]
fn the_first_moves_are_the_sixteen_steps_from_rank_two() {
    let p = Surakarta::new(&SurakartaParams::default());
    let texts = moves(&p);
    assert_eq!(texts.len(), 16, "{texts:?}");
    assert!(texts.iter().all(|t| t.contains('2') && t.ends_with('3')));
    assert_eq!(p.piece_counts(), [12, 12]);
    assert_eq!(p.score_p0(), Some(0));
}

#[test]
fn a_capture_goes_round_a_loop_and_taking_the_last_piece_wins() {
    // b1 up column b, round the top-left loop, onto a5.
    let p = position(
        ". x . . . .
         . . . . . .
         . . . . . .
         . . . . . .
         o . . . . .
         . . . . . .",
        Player::P0,
    );
    assert_eq!(captures(&p), ["b1xa5"]);
    let mut after = p.clone();
    after.play_moves("b1xa5").unwrap();
    assert_eq!(after.outcome(), Some(Outcome::WinP0));
    assert_eq!(after.score_p0(), Some(1));
}

#[test]
fn no_capture_without_a_loop_and_own_pieces_block() {
    // b1 reaches b4 straight up column b (no loop): not a capture; the other way round, its
    // own piece on f2 blocks it. f2 goes the long way, through three loops, onto b4.
    let p = position(
        ". x . . . .
         . . . . . x
         . . . . . .
         . o . . . .
         . . . . . .
         . . . . . .",
        Player::P0,
    );
    assert_eq!(captures(&p), ["f2xb4"]);
    assert!(p.parse_legal_move("b1xb4").is_err());
}

#[test]
fn the_starting_point_counts_as_empty_when_the_path_crosses_it() {
    // b2 down to b1, round the bottom-left loop onto a2, back through b2 itself, then c2, d2:
    // the only path with a loop that reaches d2 (f2 blocks the long way round).
    let p = position(
        ". . . . . .
         . x . o . x
         . . . . . .
         . . . . . .
         . . . . . .
         . . . . . .",
        Player::P0,
    );
    assert_eq!(captures(&p), ["b2xd2"]);
}

#[test]
fn fifty_quiet_plies_end_the_game_and_the_pieces_are_counted() {
    let params = SurakartaParams {
        no_capture_plies: 50,
        repetition: false,
    };
    let mut p = Surakarta::from_picture(
        "x . . . . x
         . . . . . .
         . . . . . .
         . . . . . .
         . . . . . .
         o . . . . .",
        Player::P0,
        &params,
    )
    .unwrap();
    let mut actions = Vec::new();
    for ply in 0..50 {
        assert_eq!(p.outcome(), None, "ply {ply}");
        p.legal_actions(&mut actions);
        // The first move that captures nothing.
        let quiet = actions
            .iter()
            .copied()
            .find(|&a| !p.move_to_text(a).contains('x'))
            .unwrap();
        p.play(quiet);
        assert_eq!(p.plies_since_capture(), ply + 1);
    }
    assert_eq!(p.outcome(), Some(Outcome::WinP0), "2 pieces against 1");
}

#[test]
fn a_repeated_position_ends_the_game_and_equal_counts_draw() {
    let mut p = Surakarta::new(&SurakartaParams::default());
    p.play_moves("b2-b3 b5-b4 b3-b2").unwrap();
    assert_eq!(p.outcome(), None);
    p.play_moves("b4-b5").unwrap();
    assert_eq!(
        p.outcome(),
        Some(Outcome::Draw),
        "the start again, P0 to move"
    );
    let mut p = Surakarta::new(&SurakartaParams {
        repetition: false,
        ..Default::default()
    });
    p.play_moves("b2-b3 b5-b4 b3-b2 b4-b5").unwrap();
    assert_eq!(p.outcome(), None, "repetition=false");
}

#[test]
fn a_player_without_a_move_loses() {
    // P1's one piece on the corner a1 (on no circuit) is walled in.
    let walled = "o x . . . .
         x x . . . .
         . . . . . .
         . . . . . .
         . . . . . .
         . . . . . .";
    assert_eq!(position(walled, Player::P1).outcome(), Some(Outcome::WinP0));
    let mut p = position(
        "o x . . . .
         x . . . . .
         . . x . . .
         . . . . . .
         . . . . . .
         . . . . . .",
        Player::P0,
    );
    assert_eq!(p.outcome(), None);
    p.play_moves("c3-b2").unwrap();
    assert_eq!(p.outcome(), Some(Outcome::WinP0));
}

#[test]
fn move_texts_read_with_or_without_a_separator() {
    let p = position(
        ". x . . . .
         . . . . . .
         . . . . . .
         . . . . . .
         o . . . . .
         . . . . . .",
        Player::P0,
    );
    let capture = p.parse_legal_move("b1xa5").unwrap();
    assert_eq!(p.parse_legal_move("b1-a5"), Ok(capture));
    assert_eq!(p.parse_legal_move("b1a5"), Ok(capture));
    assert_eq!(p.move_to_text(capture), "b1xa5");
    assert_eq!(p.move_to_text(p.parse_legal_move("b1c2").unwrap()), "b1-c2");
    for bad in ["B1-a5", "g1-a1", "b1-a7", "b1", "b1-a5-c2", ""] {
        assert!(p.parse_legal_move(bad).is_err(), "{bad:?}");
    }
}
