//! Arimaa rules on hand-built positions (rows from rank 8: `RCDHME` Gold, `rcdhme` Silver, `.`
//! or `x` empty): counts from `pyrimaa` (PyPI `aei`, the AEI reference board), the setup, freezing,
//! rabbits' direction, pushes, pulls, traps, null turns, the third repetition, goals, elimination,
//! immobilisation, the paper's score and the move texts. The whole-game differential check
//! against `pyrimaa` is `scripts/crosscheck_arimaa.sh`.

use std::collections::HashSet;

use descent::games::perft::perft;
use descent::games::{Arimaa, ArimaaParams, Game, GameExt, Outcome, Player};

fn position(rows: &str, to_move: Player) -> Arimaa {
    Arimaa::from_rows(rows, to_move, &ArimaaParams::default()).unwrap()
}

fn moves(position: &Arimaa) -> Vec<String> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions.iter().map(|&a| position.move_to_text(a)).collect()
}

fn after(position: &Arimaa, steps: &str) -> Arimaa {
    let mut p = position.clone();
    p.play_moves(steps)
        .unwrap_or_else(|e| panic!("{steps}: {e}\n{p}"));
    p
}

/// The board part of the position's picture.
fn board(position: &Arimaa) -> String {
    position
        .to_string()
        .lines()
        .take(8)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The distinct boards the mover's legal turns reach (`pyrimaa`'s `len(get_moves())`).
fn distinct_turns(position: &Arimaa) -> usize {
    fn walk(p: &Arimaa, mover: Player, seen: &mut HashSet<String>) {
        let mut actions = Vec::new();
        p.legal_actions(&mut actions);
        for action in actions {
            let mut child = p.clone();
            child.play(action);
            if child.to_move() != mover {
                seen.insert(board(&child));
            } else {
                walk(&child, mover, seen);
            }
        }
    }
    let mut seen = HashSet::new();
    walk(position, position.to_move(), &mut seen);
    seen.len()
}

const MIDGAME: &str = "
    . . . e r . r r
    d . r c . . h d
    . r x . r c m D
    D . h . . . . R
    . r r R R . . .
    . . x . . R H .
    . R . E . . . R
    . . R M . . . .";

#[test]
fn turn_counts_equal_pyrimaa_s() {
    // pyrimaa: `Position(GOLD, 4, BASIC_SETUP).get_moves()` has 3 353 moves; the midgame
    // position (30 random turns from it) 16 264.
    let start = Arimaa::new(&ArimaaParams {
        setup: false,
        ..Default::default()
    });
    assert_eq!(distinct_turns(&start), 3353);
    assert_eq!(distinct_turns(&position(MIDGAME, Player::P0)), 16264);
    // Step-level counts with `end` as an action, from pyrimaa's get_steps plus the completion
    // rule (scripts/crosscheck_arimaa.py's Game, counted separately).
    let counts: Vec<u64> = (1..=4).map(|depth| perft(&start, depth)).collect();
    assert_eq!(counts, [8, 108, 1566, 25268]);
}

#[test]
fn each_side_sets_up_in_a_fixed_order_then_the_rabbits_fill_its_home_ranks() {
    let mut p = Arimaa::new(&ArimaaParams::default());
    let mut texts = Vec::new();
    for square in ["d2", "e2", "b2", "g2", "a2", "h2", "c2", "f2"] {
        assert_eq!(p.to_move(), Player::P0);
        texts.push(p.move_to_text(p.parse_legal_move(square).unwrap()));
        p.play_moves(square).unwrap();
    }
    assert_eq!(
        texts,
        ["Ed2", "Me2", "Hb2", "Hg2", "Da2", "Dh2", "Cc2", "Cf2"]
    );
    assert_eq!(p.to_move(), Player::P1);
    assert_eq!(p.piece_letter(0, 0), Some('R'), "a1: a rabbit");
    assert!(
        p.parse_legal_move("a1").is_err(),
        "Silver sets up on ranks 7-8"
    );
    let silver = moves(&p);
    assert_eq!(silver.len(), 16);
    assert!(silver.iter().all(|t| t.starts_with('e')), "{silver:?}");
    p.play_moves("ea7 mb7 hc7 hd7 de7 df7 cg7 ch7").unwrap();
    assert_eq!(p.to_move(), Player::P0);
    assert_eq!(p.piece_counts(), [16, 16]);
    assert_eq!(p.piece_letter(7, 7), Some('r'));
    assert_eq!(p.score_p0(), Some(0));
    assert!(moves(&p).contains(&"Ed2n".to_string()));
}

#[test]
fn a_piece_next_to_a_stronger_enemy_and_no_friend_is_frozen() {
    let rows = "
        . . . . . . . r
        . . . . . . . .
        . . x . . x . .
        . . . . . . . .
        . . . c . . . .
        . . x R . x . .
        . . . . . . . .
        D . . . . . . .";
    let frozen = moves(&position(rows, Player::P0));
    assert!(frozen.iter().all(|t| t.starts_with('D')), "{frozen:?}");
    // A friend next to it thaws the rabbit (east is blocked by the friend, south is backwards).
    let thawed = moves(&position(&rows.replace("x R . x", "x R C x"), Player::P0));
    assert!(thawed.contains(&"Rd3w".to_string()), "{thawed:?}");
    assert!(!thawed.iter().any(|t| t.starts_with("Rd3") && t != "Rd3w"));
}

#[test]
fn rabbits_never_step_backwards_on_their_own() {
    let p = position(
        "
        . . . . . . . .
        . . . . . . . .
        . . x . . x . .
        . . . R . . r .
        . . . . . . . .
        . . x . . x . .
        . . . . . . . .
        . . . . . . . .",
        Player::P0,
    );
    assert_eq!(sorted(moves(&p)), ["Rd5e", "Rd5n", "Rd5w"]);
    let p = after(&p, "Rd5e end");
    assert_eq!(sorted(moves(&p)), ["rg5e", "rg5s", "rg5w"]);
}

fn sorted(mut texts: Vec<String>) -> Vec<String> {
    texts.sort();
    texts
}

const PUSH: &str = "
    r . . . . . . .
    . . . . . . . .
    . . x . . x . .
    . . . c . . . .
    . . . E . . . .
    . . x r . x . .
    R . . . . . . .
    . . . . . . . .";

#[test]
fn a_push_moves_a_weaker_enemy_and_the_pusher_must_follow() {
    let p = position(PUSH, Player::P0);
    let texts = moves(&p);
    for push in ["cd5n", "cd5e", "cd5w", "rd3e", "rd3s", "rd3w"] {
        assert!(texts.contains(&push.to_string()), "{push}: {texts:?}");
    }
    // After the push's first half the pusher must step into the square the cat left.
    let pushed = after(&p, "cd5n");
    assert_eq!(moves(&pushed), ["Ed4n"]);
    // A push's completing step starts no pull: the rabbit on d3 stays.
    let completed = after(&pushed, "Ed4n");
    let texts = moves(&completed);
    assert!(!texts.iter().any(|t| t.starts_with("rd3")), "{texts:?}");
    assert!(texts.contains(&"end".to_string()));
}

#[test]
fn a_push_needs_two_steps_left() {
    let p = after(&position(PUSH, Player::P0), "Ra2n Ra3n Ra4n");
    let texts = moves(&p);
    assert!(!texts.iter().any(|t| t.starts_with('c')), "{texts:?}");
    assert!(!texts.contains(&"rd3w".to_string()), "{texts:?}");
}

#[test]
fn a_pull_follows_the_puller_even_on_the_last_step_and_is_optional() {
    let p = after(&position(PUSH, Player::P0), "Ra2n Ra3n Ed4e");
    let texts = moves(&p);
    assert!(
        texts.contains(&"rd3n".to_string()),
        "pulled into d4: {texts:?}"
    );
    assert!(
        texts.contains(&"cd5s".to_string()),
        "the cat too: {texts:?}"
    );
    assert!(
        !texts.contains(&"rd3w".to_string()),
        "not a pull: {texts:?}"
    );
    assert!(texts.contains(&"end".to_string()));
    let pulled = after(&p, "rd3n");
    assert_eq!(
        pulled.to_move(),
        Player::P1,
        "the fourth step ended the turn"
    );
    assert_eq!(pulled.piece_letter(3, 3), Some('r'), "d4");
}

#[test]
fn a_piece_alone_on_a_trap_is_removed_and_may_still_pull() {
    let p = position(
        "
        r . . . . . . .
        . . . . . . . .
        . . x . . x . .
        . . c . . . . .
        . . D . . . . .
        . . x . . H . .
        R . . . . R . .
        . . . . . . . .",
        Player::P0,
    );
    // The dog steps onto c3, nothing of Gold's next to it: removed.
    let trapped = after(&p, "Dc4s");
    assert_eq!(trapped.piece_letter(2, 2), None);
    assert_eq!(trapped.piece_counts(), [3, 2]);
    // pyrimaa's rule: the removed dog still pulls the cat into c4.
    assert!(moves(&trapped).contains(&"cc5s".to_string()));
    // The horse on f3 loses its only guard when the rabbit on f2 leaves.
    let unguarded = after(&p, "Rf2e");
    assert_eq!(unguarded.piece_letter(2, 5), None);
    assert_eq!(unguarded.piece_counts(), [3, 2]);
}

#[test]
fn a_turn_must_change_the_board() {
    let p = position(
        "
        r . . . . . . .
        . . . . . . . .
        . . x . . x . .
        . . . . . . . .
        . . . . . . . .
        . . x . . x . .
        R . . . . . . .
        . . . . . . . .",
        Player::P0,
    );
    let back = after(&p, "Ra2e Rb2w");
    assert!(!moves(&back).contains(&"end".to_string()), "a null turn");
    let three = after(&p, "Ra2e Rb2e Rc2w");
    assert!(
        !moves(&three).contains(&"Rb2w".to_string()),
        "a fourth step back to the start is refused"
    );
    assert!(moves(&three).contains(&"Rb2n".to_string()));
}

#[test]
fn a_position_may_not_occur_a_third_time() {
    let p = position(
        "
        . . . . . . . .
        . . . . . . . r
        . . x . . x . .
        . . . . . . . .
        . . . . . . . .
        . . x . . x . .
        R . . . . . . .
        . . . . . . . .",
        Player::P0,
    );
    // Both sides step one rabbit forth and back: the start recurs, twice allowed.
    let twice = after(&p, "Ra2e end rh7w end Rb2w end rg7e end");
    assert_eq!(board(&twice), board(&p));
    let again = after(&twice, "Ra2e end rh7w end Rb2w end rg7e");
    let texts = moves(&again);
    assert!(!texts.contains(&"end".to_string()), "third time: {texts:?}");
    assert!(texts.contains(&"rh7s".to_string()), "{texts:?}");
    assert!(!again.is_terminal());
}

const GOAL: &str = "
    r . . . . . . .
    . . . R . . . .
    . . x . . x . .
    . . . . . . . .
    . . . . . . . .
    . . x . . x . .
    . . . D r . . R
    . . . . . . . .";

#[test]
fn a_rabbit_on_its_goal_rank_at_the_turn_end_wins() {
    let p = position(GOAL, Player::P0);
    let reached = after(&p, "Rd7n");
    assert!(!reached.is_terminal(), "only at the end of the turn");
    assert_eq!(after(&reached, "end").outcome(), Some(Outcome::WinP0));
    // Gold pushes Silver's rabbit onto rank 1, Silver's goal: Silver wins if it stays there...
    let pushed = after(&p, "re2s Dd2e");
    assert_eq!(after(&pushed, "end").outcome(), Some(Outcome::WinP1));
    // ...and nobody if Gold pulls it back off before the turn ends.
    let back = after(&pushed, "De2n re1n");
    assert_eq!(back.to_move(), Player::P1);
    assert_eq!(back.outcome(), None);
    // The mover's goal first: both rabbits home, Gold (the mover) wins.
    let both = after(&p, "re2s Dd2e Rd7n end");
    assert_eq!(both.outcome(), Some(Outcome::WinP0));
    assert_eq!(both.score_p0(), Some(69 + (6 + 2 + 6) - 6 * 2));
}

#[test]
fn losing_the_last_rabbit_loses() {
    let p = position(
        "
        . . . . . . . .
        . . . . . . . .
        . . x . . x . m
        . . . . . E . .
        . . . . . r . .
        . . x . . x . .
        . . R . . . . .
        . . . . . . . .",
        Player::P0,
    );
    // Gold pushes Silver's only rabbit onto f3, where it is removed.
    let captured = after(&p, "rf4s Ef5s");
    assert_eq!(captured.score_p0(), Some(5 + 6 - 4));
    assert_eq!(
        after(&captured, "end").outcome(),
        Some(Outcome::WinP0),
        "Silver has no rabbit"
    );
    // Gold walks its only rabbit into c3: Gold, the mover, has none left and loses.
    let suicide = after(&p, "Rc2n end");
    assert_eq!(suicide.outcome(), Some(Outcome::WinP1));
}

#[test]
fn a_player_without_a_legal_turn_loses() {
    let rows = "
        . . . . . . . .
        . . . . . . . .
        . . x . . x . .
        . . . . . . . r
        . . . . . . . E
        . . x . . x . .
        R . . . . . . .
        . . . . . . . .";
    // Silver's only piece, the rabbit on h5, is frozen by the elephant.
    let p = position(rows, Player::P0);
    assert_eq!(after(&p, "Ra2n end").outcome(), Some(Outcome::WinP0));
    assert_eq!(
        position(rows, Player::P1).outcome(),
        Some(Outcome::WinP0),
        "immobilised at its turn start"
    );
}

#[test]
fn moves_read_with_or_without_the_piece_letter() {
    let p = position(PUSH, Player::P0);
    let with = p.parse_legal_move("Ed4e").unwrap();
    assert_eq!(p.parse_legal_move("d4e").unwrap(), with);
    assert_eq!(p.move_to_text(with), "Ed4e");
    let wrong = p.parse_legal_move("Md4e").unwrap_err().to_string();
    assert!(wrong.contains("Ed4e"), "{wrong}");
    for bad in ["Ed4", "Ed9n", "Ed4x", "E", "z4n", "D4n", "Ed4nn"] {
        assert!(p.parse_legal_move(bad).is_err(), "{bad}");
    }
    assert!(p.parse_legal_move("end").is_err(), "no step taken yet");
    assert_eq!(sorted(moves(&after(&p, "cd5n"))), ["Ed4n"]);
}
