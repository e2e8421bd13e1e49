//! Havannah's rules on hand-built positions of base 4 (the same code as 8 and 10), and random
//! games against the naive reference of `tests/rules/reference/havannah.rs` on bases 3, 4, 5 and 8,
//! which must see every kind of win.

use std::collections::HashMap;

use crate::reference::ReferenceGame;
use crate::reference::havannah::{RefHavannah, Win};
use descent::games::{Action, Game, GameExt, Havannah, HavannahRules, Outcome, Player};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

type Havannah4 = Havannah<4>;

const NO_SWAP: HavannahRules = HavannahRules { swap: false };

/// P0 plays `p0`, P1 plays `p1` in turn (P0 first), without the swap.
fn build(p0: &[&str], p1: &[&str]) -> Havannah4 {
    let mut position = Havannah4::new(&NO_SWAP);
    for k in 0..p0.len().max(p1.len()) {
        for side in [p0, p1] {
            if let Some(text) = side.get(k) {
                position.play_moves(text).expect("a legal test move");
            }
        }
    }
    position
}

fn legal(position: &impl Game) -> Vec<Action> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
}

/// P1's stones where they make nothing: apart from each other, one corner at most per chain.
const SCATTERED: [&str; 6] = ["a2", "g4", "d7", "f6", "b5", "e2"];

/// The six cells around d4, the centre of the base-4 board, the last one apart.
const AROUND_CENTRE: [&str; 5] = ["c3", "d3", "c4", "e4", "d5"];

#[test]
fn a_ring_around_an_empty_cell_an_enemy_stone_or_an_own_stone_wins() {
    let mut around_empty = build(&AROUND_CENTRE, &SCATTERED[..5]);
    assert_eq!(around_empty.outcome(), None);
    around_empty.play_moves("e5").unwrap();
    assert_eq!(around_empty.outcome(), Some(Outcome::WinP0));
    assert!(legal(&around_empty).is_empty());

    let mut around_enemy = build(&AROUND_CENTRE, &["d4", "a2", "g4", "d7", "f6"]);
    around_enemy.play_moves("e5").unwrap();
    assert_eq!(around_enemy.outcome(), Some(Outcome::WinP0));

    // The closing stone's own neighbours are one run (e4, d4, d5): a full hexagon.
    let mut filled: Vec<&str> = AROUND_CENTRE.to_vec();
    filled.push("d4");
    let mut around_own = build(&filled, &SCATTERED);
    assert_eq!(around_own.outcome(), None);
    around_own.play_moves("e5").unwrap();
    assert_eq!(around_own.outcome(), Some(Outcome::WinP0));
}

#[test]
fn a_ring_through_the_rim_around_an_inner_cell_wins() {
    // Around b2 = (1, 1): a1 (corner), b1, c2 (edge and inner cells), a2 (edge), b3, c3.
    let mut ring = build(
        &["a1", "b1", "c2", "a2", "b3"],
        &["g4", "d7", "f6", "g7", "e4"],
    );
    assert_eq!(ring.outcome(), None);
    ring.play_moves("c3").unwrap();
    assert_eq!(ring.outcome(), Some(Outcome::WinP0));
}

#[test]
fn no_ring_without_an_enclosed_cell() {
    // Three stones all touching each other, a rhombus of four, a loop around a rim cell (b1:
    // its other side is off the board).
    let triangle = build(&["c3", "d3", "d4"], &SCATTERED[..3]);
    assert_eq!(triangle.outcome(), None);
    let rhombus = build(&["c3", "d3", "d4", "e4"], &SCATTERED[..4]);
    assert_eq!(rhombus.outcome(), None);
    let around_rim_cell = build(&["a1", "c1", "b2", "c2"], &SCATTERED[..4]);
    assert_eq!(around_rim_cell.outcome(), None);
    assert!(
        legal(&around_rim_cell).contains(&1),
        "b1 is still empty and playable"
    );
}

#[test]
fn a_bridge_joins_two_corners_and_corners_are_no_edges() {
    let mut bridge = build(&["a1", "b1", "c1"], &SCATTERED[..3]);
    assert_eq!(bridge.outcome(), None);
    bridge.play_moves("d1").unwrap();
    assert_eq!(bridge.outcome(), Some(Outcome::WinP0));

    // b1 (top edge), a1 (a corner), a2 and a3 (left edge): two edges and a corner.
    let two_edges = build(&["b1", "a1", "a2", "a3"], &["g4", "d7", "f6", "g7"]);
    assert_eq!(two_edges.outcome(), None);
}

#[test]
fn a_fork_joins_three_edges() {
    // A Y from d4 to the top edge (c1), the left edge (a3) and the bottom edge (e7).
    let arms = ["d4", "c3", "c2", "c1", "c4", "b4", "a3", "d5", "e6"];
    let mut fork = build(
        &arms,
        &["g4", "d7", "g7", "f4", "e3", "b1", "f5", "a4", "b5"],
    );
    assert_eq!(fork.outcome(), None);
    fork.play_moves("e7").unwrap();
    assert_eq!(fork.outcome(), Some(Outcome::WinP0));
}

#[test]
fn the_swap_takes_over_the_first_stone_on_its_cell() {
    let mut position = Havannah4::new(&HavannahRules::default());
    position.play_moves("d4").unwrap();
    let d4 = Havannah4::action_from_text(Player::P1, "d4").unwrap();
    assert!(legal(&position).contains(&d4), "P1 may take d4 over");
    assert_eq!(legal(&position).len(), 37, "36 empty cells and the swap");
    position.play(d4);
    assert_eq!(position.cell(3, 3), Some(Player::P1));
    assert_eq!(position.piece_counts(), [0, 1]);
    assert_eq!((position.to_move(), position.ply()), (Player::P0, 2));
    assert!(!legal(&position).contains(&d4));
    assert_eq!(position.hash(), position.hash_from_scratch());

    let mut no_swap = Havannah4::new(&NO_SWAP);
    no_swap.play_moves("d4").unwrap();
    assert!(!legal(&no_swap).contains(&d4));
    assert!(
        no_swap.move_from_text("d4").is_ok(),
        "d4 parses; it is just not legal"
    );
}

#[test]
fn pictures_give_the_same_position_as_moves() {
    let played = build(&AROUND_CENTRE, &SCATTERED[..5]);
    let pictured = Havannah4::from_picture(
        NO_SWAP,
        "   . . . .
           o . . . .
          . . x x . .
         . . x . x . o
          o . x . . .
           . . . o .
            o . . .",
    )
    .unwrap();
    assert_eq!(pictured.to_string(), played.to_string());
    assert_eq!(pictured.hash(), played.hash());
    assert_eq!((pictured.to_move(), pictured.ply()), (Player::P0, 10));
    let err = Havannah4::from_picture(NO_SWAP, ". . . .\n. . . .").unwrap_err();
    assert!(err.to_string().contains("expected 7"), "{err}");
    // A finished ring in a picture is a finished game.
    let ring = Havannah4::from_picture(
        NO_SWAP,
        "   . . . .
           o . . . .
          . . x x . .
         . . x . x . o
          o . x x . .
           . . . o .
            o . . o",
    )
    .unwrap();
    assert_eq!(ring.outcome(), Some(Outcome::WinP0));
}

#[test]
fn texts_name_cells_as_openspiel_does_and_bad_ones_are_refused() {
    assert_eq!(Havannah4::action_to_text(Player::P0, 0), "a1");
    assert_eq!(Havannah4::action_to_text(Player::P0, 3 + 3 * 7), "d4");
    assert_eq!(
        Havannah::<8>::action_to_text(Player::P0, 14 + 14 * 15),
        "o15"
    );
    for text in ["g1", "a5", "h4", "a0", "d8", "d", "4d"] {
        assert!(
            Havannah4::action_from_text(Player::P0, text).is_err(),
            "{text} is off the board or unparsable"
        );
    }
}

#[test]
fn the_encoding_marks_the_board_the_stones_and_the_swap() {
    let mut position = Havannah::<8>::new(&HavannahRules::default());
    position.play_moves("h8").unwrap();
    let mut planes = vec![0.0; Havannah::<8>::ENCODING.len()];
    position.encode(&mut planes);
    let cells = 15 * 15;
    let plane_sum = |k: usize| planes[k * cells..(k + 1) * cells].iter().sum::<f32>();
    assert_eq!(plane_sum(0), 1.0);
    assert_eq!(planes[7 + 7 * 15], 1.0, "P0's stone on h8");
    assert_eq!(plane_sum(1), 0.0);
    assert_eq!(plane_sum(2), 169.0, "the board's cells");
    assert_eq!(plane_sum(3), 0.0, "P1 to move");
    assert_eq!(plane_sum(4), cells as f32, "swap available");
}

/// Random games in both implementations, compared at every ply; returns how the games ended.
fn differential<const B: usize>(games: usize, swap: bool, seed: u64) -> HashMap<String, usize> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut ends = HashMap::new();
    for _ in 0..games {
        let mut ours = Havannah::<B>::new(&HavannahRules { swap });
        let mut theirs = RefHavannah::new(B, swap);
        loop {
            let ids: Vec<usize> = legal(&ours).iter().map(|&a| a as usize).collect();
            assert_eq!(ids, theirs.legal(), "base {B} ply {}\n{ours}", ours.ply());
            let returns = ours.outcome().map_or([0.0, 0.0], |o| o.returns());
            assert_eq!(
                returns,
                theirs.returns(),
                "base {B} ply {}\n{ours}",
                ours.ply()
            );
            if ids.is_empty() {
                break;
            }
            let action = ids[rng.random_range(0..ids.len())];
            ours.play(action as Action);
            theirs.apply(action);
        }
        let end = theirs
            .winner
            .map_or("draw".to_string(), |(_, win)| format!("{win:?}"));
        *ends.entry(end).or_default() += 1;
    }
    ends
}

#[test]
fn random_games_match_the_naive_reference_and_reach_every_kind_of_win() {
    let mut ends: HashMap<String, usize> = HashMap::new();
    for part in [
        differential::<3>(400, true, 1),
        differential::<4>(300, false, 2),
        differential::<5>(200, true, 3),
        differential::<8>(12, true, 4),
    ] {
        for (end, count) in part {
            *ends.entry(end).or_default() += count;
        }
    }
    for win in [Win::Ring, Win::Bridge, Win::Fork] {
        assert!(
            ends.get(&format!("{win:?}")).copied().unwrap_or(0) > 0,
            "{ends:?}"
        );
    }
    eprintln!("Havannah endings: {ends:?}");
}

/// Each hand-built ending under the hexagon's 11 other symmetries: the bridge joins every pair
/// of neighbouring corners, the fork and the non-fork reach every edge, the ring through the
/// rim sits by every side.
#[test]
fn every_rotation_and_reflection_of_each_ending_ends_the_same_way() {
    let cases: [(Havannah4, &str, Option<Outcome>); 4] = [
        (
            build(&["a1", "b1", "c1"], &SCATTERED[..3]),
            "d1",
            Some(Outcome::WinP0),
        ),
        (
            build(
                &["d4", "c3", "c2", "c1", "c4", "b4", "a3", "d5", "e6"],
                &["g4", "d7", "g7", "f4", "e3", "b1", "f5", "a4", "b5"],
            ),
            "e7",
            Some(Outcome::WinP0),
        ),
        (
            build(
                &["a1", "b1", "c2", "a2", "b3"],
                &["g4", "d7", "f6", "g7", "e4"],
            ),
            "c3",
            Some(Outcome::WinP0),
        ),
        (build(&["b1", "a1", "a2"], &["g4", "d7", "f6"]), "a3", None),
    ];
    for (before, last, expected) in cases {
        let action = before.move_from_text(last).unwrap();
        for index in 0..Havannah4::SYMMETRIES.len() {
            let image = before.apply_symmetry(index);
            assert_eq!(image.outcome(), None);
            let mut after = image;
            after.play(image.symmetric_action(index, action));
            assert_eq!(
                after.outcome(),
                expected,
                "{last} under {}\n{after}",
                Havannah4::SYMMETRIES[index].name
            );
        }
    }
}

#[test]
fn a_full_board_without_a_ring_bridge_or_fork_is_a_draw() {
    // Base 3 (19 cells), found by a separate search: no chain joins two corners or three edges,
    // no cell is enclosed. The last stone, P0's on a1, fills the board.
    let full = "  x o x
                 x o o o
                o x o x x
                 x o x x
                  o x o";
    let last_empty = full.replacen('x', ".", 1);
    let before = Havannah::<3>::from_picture(NO_SWAP, &last_empty).unwrap();
    assert_eq!(before.outcome(), None);
    assert_eq!(legal(&before), [0], "a1 is the only empty cell");
    let mut after = before;
    after.play(0);
    assert_eq!(after.outcome(), Some(Outcome::Draw));
    let pictured = Havannah::<3>::from_picture(NO_SWAP, full).unwrap();
    assert_eq!(pictured.outcome(), Some(Outcome::Draw));
}
