//! Santorini rules on hand-built positions (rows from rank 5: a height `0`-`3` or `D` for a dome,
//! `x` / `o` for a worker of P0 / P1): the placement order, the climbing limit, domes and workers
//! blocking, building on the square just left, domes on level 3, the win by climbing onto level 3
//! (before any build), the loss of a player who cannot move, texts.

use descent::games::{Game, GameExt, Outcome, Player, Santorini, SantoriniParams};

fn position(rows: &str, to_move: Player) -> Santorini {
    Santorini::from_rows(rows, to_move).unwrap()
}

fn moves(position: &Santorini) -> Vec<String> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions.iter().map(|&a| position.move_to_text(a)).collect()
}

#[test]
fn each_player_places_its_two_workers_p0_first() {
    let mut p = Santorini::new(&SantoriniParams::default());
    let mut movers = Vec::new();
    for square in ["c3", "b2", "d4", "e5"] {
        movers.push(p.to_move());
        p.play_moves(square).unwrap();
    }
    assert_eq!(movers, [Player::P0, Player::P0, Player::P1, Player::P1]);
    assert_eq!(p.to_move(), Player::P0);
    assert_eq!(p.square(2, 2), (0, Some(Player::P0)));
    assert_eq!(p.square(4, 4), (0, Some(Player::P1)));
    assert!(p.parse_legal_move("c3").is_err(), "placements are over");
    let fixed = Santorini::new(&SantoriniParams { placement: false });
    assert_eq!(fixed.square(1, 1), (0, Some(Player::P0)), "b2");
    assert_eq!(fixed.square(1, 3), (0, Some(Player::P1)), "d2");
}

#[test]
fn a_worker_climbs_one_level_at_most_and_steps_down_any_number() {
    // The worker on a1 (level 0) may go to b1 (level 1) but not to a2 (level 2) or b2 (a dome).
    let p = position(
        "0o 0 0 0 0o
         0  0 0 0 0
         0  0 0 0 0
         2  D 0 0 0
         0x 1 0 0 3x",
        Player::P0,
    );
    let texts = moves(&p);
    assert!(texts.iter().any(|t| t.starts_with("a1b1")), "{texts:?}");
    assert!(
        !texts
            .iter()
            .any(|t| t.starts_with("a1a2") || t.starts_with("a1b2")),
        "{texts:?}"
    );
    // From level 3 on e1 down to level 0 on d1 or d2 (no win: it did not climb onto level 3).
    assert!(texts.iter().any(|t| t.starts_with("e1d1")), "{texts:?}");
    assert!(
        texts.iter().all(|t| t.len() == 6),
        "no winning move: {texts:?}"
    );
}

#[test]
fn building_on_the_square_just_left_and_domes_on_level_three() {
    let mut p = position(
        "0o 0 0 0 0o
         0  0 0 0 0
         0  0 0 0 0
         3  0 0 0 0
         0x 0 0 0 0x",
        Player::P0,
    );
    p.play_moves("a1b1a1").unwrap();
    assert_eq!(p.square(0, 0), (1, None), "built on the square left");
    p.play_moves("a5b5a5 b1b2a2").unwrap();
    assert_eq!(p.square(1, 0), (4, None), "a dome on level 3");
    assert!(
        !moves(&p).iter().any(|t| t.ends_with("a2")),
        "nothing builds on a dome"
    );
}

#[test]
fn climbing_onto_level_three_wins_at_once() {
    let mut p = position(
        "0o 0 0 0 0o
         0  0 0 0 0
         0  0 0 0 0
         3  0 0 0 0
         2x 0 0 0 0x",
        Player::P0,
    );
    let texts = moves(&p);
    assert!(
        texts.contains(&"a1a2".to_string()),
        "the winning climb, no build: {texts:?}"
    );
    p.play_moves("a1a2").unwrap();
    assert_eq!(p.outcome(), Some(Outcome::WinP0));
    assert_eq!(p.square(1, 0), (3, Some(Player::P0)), "nothing built");
}

#[test]
fn a_player_who_cannot_move_loses() {
    // P1's workers on a5 and e5 are walled in by domes and level-2 squares.
    let p = position(
        "0o D 0 2 0o
         D  D 0 2 2
         0  0 0 0 0
         0  0 0 0 0
         0x 0 0 0 0x",
        Player::P1,
    );
    assert_eq!(p.outcome(), Some(Outcome::WinP0));
    // P0 builds the last wall round e5's worker (d4 from level 1 to 2): P1 is blocked and loses.
    let mut r = position(
        "0o D 0 2 0o
         D  D 0 1 2
         0  0 0 0 0
         0  0 0x 0 0
         0x 0 0 0 0",
        Player::P0,
    );
    r.play_moves("c2c3d4").unwrap();
    assert_eq!(r.square(3, 3), (2, None));
    assert_eq!(r.outcome(), Some(Outcome::WinP0), "P1 cannot move");
}

#[test]
fn texts_and_bad_rows() {
    let start = Santorini::new(&SantoriniParams::default());
    for bad in ["", "f1", "a6", "a1a3", "a1b2c9", "a1b2c3d4", "zz"] {
        assert!(start.move_from_text(bad).is_err(), "{bad}");
    }
    for (rows, named) in [
        ("0 0 0 0 0", "rows"),
        (
            "0 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n0 0 0 0 5",
            "height",
        ),
        (
            "0x 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0",
            "workers",
        ),
        (
            "Dx 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n0 0 0 0 0",
            "dome",
        ),
    ] {
        let error = Santorini::from_rows(rows, Player::P0)
            .unwrap_err()
            .to_string();
        assert!(error.contains(named), "{rows}: {error}");
    }
}
