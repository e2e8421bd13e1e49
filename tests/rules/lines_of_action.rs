//! Lines of Action's rules on hand-built positions, under the Olympiad's rules (the default) and
//! OpenSpiel's four deviations: move lengths, jumps, captures, connections (one side, both,
//! only the opponent's), passing or losing without a move, the two repetition rules, the cap.

use descent::games::lines_of_action::{NoMove, PASS, Repetition, Simultaneous};
use descent::games::{Game, GameExt, LinesOfAction, LinesOfActionParams, Outcome, Player};

fn olympiad() -> LinesOfActionParams {
    LinesOfActionParams::default()
}

fn openspiel() -> LinesOfActionParams {
    LinesOfActionParams::openspiel()
}

fn position(params: LinesOfActionParams, picture: &str, to_move: Player) -> LinesOfAction {
    LinesOfAction::from_picture(params, picture, to_move).expect("valid test position")
}

fn legal_texts(position: &LinesOfAction) -> Vec<String> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    let mover = position.to_move();
    actions
        .iter()
        .map(|&a| LinesOfAction::action_to_text(mover, a))
        .collect()
}

/// Black d1 and h1, White b3 and g7 (ranks from 8 at the top).
const LINES: &str = "........
                     ......o.
                     ........
                     ........
                     ........
                     .o......
                     ........
                     ...x...x";

#[test]
fn a_piece_moves_as_far_as_its_line_holds_pieces() {
    let p = position(olympiad(), LINES, Player::P0);
    // d1: file d holds 1 piece (d2); rank 1 holds 2 (b1, f1); the rising diagonal 1 (e2); the
    // falling diagonal d1-a4 holds 2, landing on White's b3 (a capture). h1: h2, f1, g2.
    assert_eq!(
        legal_texts(&p),
        [
            "d1-b1", "d1-f1", "d1-d2", "d1-e2", "d1xb3", "h1-f1", "h1-g2", "h1-h2"
        ]
    );
    let mut text_ids = Vec::new();
    p.legal_actions(&mut text_ids);
    assert_eq!(
        LinesOfAction::action_from_text(Player::P0, "d1xb3"),
        Ok(text_ids[4])
    );
    assert!(LinesOfAction::action_from_text(Player::P0, "d1*b3").is_err());
}

#[test]
fn a_piece_jumps_its_own_pieces_but_not_the_enemys() {
    // File d: Black d1, d2, White d3: 3 pieces. d1 would land on d4 over d2 (own, fine) and d3
    // (enemy): illegal. d2 would land on d5 over d3: illegal too.
    let p = position(
        olympiad(),
        "........
         ........
         ........
         ........
         ........
         ...o....
         ...x....
         ...x..o.",
        Player::P0,
    );
    let texts = legal_texts(&p);
    assert!(
        !texts.iter().any(|t| t.ends_with("d4") || t.ends_with("d5")),
        "{texts:?}"
    );
}

#[test]
fn connecting_wins_and_connecting_only_the_opponent_loses() {
    let mut straggler = position(olympiad(), LINES, Player::P0);
    // Taking b3 leaves White's g7 alone: White is connected, Black (b3, h1) is not.
    straggler.play_moves("d1xb3").unwrap();
    assert_eq!(straggler.outcome(), Some(Outcome::WinP1));
    let mut join = position(olympiad(), LINES, Player::P0);
    join.play_moves("h1-f1").unwrap(); // d1 and f1: still apart
    assert_eq!(join.outcome(), None);
}

/// Black a1, b4; White b2, h8: Black b4xb2 connects Black (a1, b2) and leaves White's h8 alone.
const BOTH: &str = ".......o
                    ........
                    ........
                    ........
                    .x......
                    ........
                    .o......
                    x.......";

#[test]
fn a_move_connecting_both_sides_is_a_draw_or_the_movers_win() {
    let mut draw = position(olympiad(), BOTH, Player::P0);
    draw.play_moves("b4xb2").unwrap();
    assert_eq!(draw.outcome(), Some(Outcome::Draw));
    let mut mover = position(openspiel(), BOTH, Player::P0);
    mover.play_moves("b4xb2").unwrap();
    assert_eq!(mover.outcome(), Some(Outcome::WinP0));
}

#[test]
fn the_cap_overrides_a_connection_only_with_draw_first() {
    let capped = |draw_first| {
        let params = LinesOfActionParams {
            simultaneous: Simultaneous::MoverWins,
            draw_first,
            max_plies: 1,
            ..olympiad()
        };
        let mut p = position(params, BOTH, Player::P0);
        p.play_moves("b4xb2").unwrap();
        p.outcome()
    };
    assert_eq!(capped(true), Some(Outcome::Draw));
    assert_eq!(capped(false), Some(Outcome::WinP0));
}

/// Black a1 and h8 boxed in by White: every line jumps a White piece.
const BOXED: &str = "......ox
                     ......oo
                     ........
                     ........
                     ........
                     ........
                     oo......
                     xo......";

#[test]
fn a_player_without_a_move_passes_or_loses() {
    let pass = position(olympiad(), BOXED, Player::P0);
    assert_eq!(legal_texts(&pass), ["pass"]);
    let mut after = pass.clone();
    after.play(PASS);
    assert_eq!((after.to_move(), after.outcome()), (Player::P1, None));
    assert!(!after.is_legal(PASS));
    let lost = position(openspiel(), BOXED, Player::P0);
    assert_eq!(lost.outcome(), Some(Outcome::WinP1));
    let params = LinesOfActionParams {
        no_move: NoMove::Loses,
        ..olympiad()
    };
    assert!(legal_texts(&position(params, BOXED, Player::P0)).is_empty());
}

#[test]
fn repetition_draws_at_the_second_board_or_the_third_position() {
    let shuffle = "b1-b3 a2-c2 b3-b1 c2-a2";
    let mut openspiel_game = LinesOfAction::new(&openspiel());
    openspiel_game.play_moves(shuffle).unwrap();
    assert_eq!(
        openspiel_game.outcome(),
        Some(Outcome::Draw),
        "the start board again"
    );
    let mut olympiad_game = LinesOfAction::new(&olympiad());
    olympiad_game.play_moves(shuffle).unwrap();
    assert_eq!(olympiad_game.outcome(), None, "a second occurrence");
    olympiad_game.play_moves("b1-b3 a2-c2").unwrap();
    assert_eq!(olympiad_game.outcome(), None);
    olympiad_game.play_moves("b3-b1 c2-a2").unwrap();
    assert_eq!(olympiad_game.outcome(), Some(Outcome::Draw), "the third");
    // OpenSpiel's rule ignores the side to move: the same board with White to move repeats.
    let board_only = LinesOfActionParams {
        repetition: Repetition::SecondBoard,
        ..olympiad()
    };
    let mut boxed = position(board_only, BOXED, Player::P0);
    boxed.play(PASS);
    assert_eq!(
        boxed.outcome(),
        Some(Outcome::Draw),
        "the board before the pass"
    );
}
