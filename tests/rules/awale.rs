//! Each Awale rule on hand-built positions (`Awale::from_description`: P0's houses A-F, then
//! P1's houses a-f, then the scores and the player to move).

use descent::games::{Action, Awale, AwaleParams, Game, GameExt, Outcome, Player};

fn position(description: &str) -> Awale {
    Awale::from_description(AwaleParams::default(), description).expect("valid test position")
}

fn legal(position: &Awale) -> Vec<Action> {
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
}

fn play(position: &mut Awale, text: &str) {
    let action = position
        .parse_legal_move(text)
        .unwrap_or_else(|e| panic!("{e}\n{position}"));
    position.play(action);
}

#[test]
fn initial_position() {
    let start = Awale::new(&AwaleParams::default());
    assert_eq!(start.seeds(), &[4; 12]);
    assert_eq!(start.scores(), [0, 0]);
    assert_eq!(start.to_move(), Player::P0);
    assert_eq!(legal(&start), vec![0, 1, 2, 3, 4, 5]);
}

#[test]
fn sowing_goes_counter_clockwise_into_the_opponent_row() {
    let mut p = Awale::new(&AwaleParams::default());
    play(&mut p, "E"); // house 4: 4 seeds into 5, 6, 7, 8
    assert_eq!(p.seeds(), &[4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 4, 4]);
    assert_eq!(p.to_move(), Player::P1);
    play(&mut p, "f"); // house 11: 4 seeds into 0, 1, 2, 3 (wrapping round)
    assert_eq!(p.seeds(), &[5, 5, 5, 5, 0, 5, 5, 5, 5, 4, 4, 0]);
}

#[test]
fn a_capture_chain_takes_consecutive_houses_of_two_or_three() {
    // F (3 seeds) sows a, b, c: 1 2 1 -> 2 3 2; the last seed lands in c, so c, b, a are taken.
    let mut p = position("0 0 0 0 1 3 / 1 2 1 4 0 0 ; 12 24 ; p0");
    play(&mut p, "F");
    assert_eq!(p.scores(), [19, 24]);
    assert_eq!(p.seeds(), &[0, 0, 0, 0, 1, 0, 0, 0, 0, 4, 0, 0]);
    assert!(!p.is_terminal());
}

#[test]
fn a_capture_chain_stops_at_the_first_house_not_holding_two_or_three() {
    // F (3 seeds) sows a, b, c: 1 3 2 -> 2 4 3: c is taken, b (4) stops the chain.
    let mut p = position("0 0 0 0 1 3 / 1 3 2 4 0 0 ; 17 17 ; p0");
    play(&mut p, "F");
    assert_eq!(p.scores(), [20, 17]);
    assert_eq!(p.seeds(), &[0, 0, 0, 0, 1, 0, 2, 4, 0, 4, 0, 0]);
}

#[test]
fn no_capture_when_the_last_seed_lands_in_the_own_row() {
    let mut p = position("2 0 0 0 1 0 / 1 1 1 1 1 1 ; 20 19 ; p0");
    play(&mut p, "A"); // into B and C
    assert_eq!(p.scores(), [20, 19]);
    assert_eq!(p.seeds(), &[0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1]);
}

#[test]
fn a_grand_slam_captures_nothing() {
    // F (2 seeds) sows a, b: 1 1 -> 2 2; c-f are empty, so taking a and b would take the whole
    // row: nothing is captured.
    let mut p = position("0 0 0 0 1 2 / 1 1 0 0 0 0 ; 21 22 ; p0");
    play(&mut p, "F");
    assert_eq!(p.scores(), [21, 22]);
    assert_eq!(p.seeds(), &[0, 0, 0, 0, 1, 0, 2, 2, 0, 0, 0, 0]);
    assert!(!p.is_terminal());
}

#[test]
fn not_a_grand_slam_when_a_seed_remains_beyond_the_last_house() {
    let mut p = position("0 0 0 0 1 2 / 1 1 0 0 0 1 ; 19 23 ; p0");
    play(&mut p, "F");
    assert_eq!(p.scores(), [23, 23]);
    assert_eq!(p.seeds(), &[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]);
}

#[test]
fn feeding_is_forced_when_the_opponent_row_is_empty() {
    // P1 has no seed: only moves reaching past F are legal. A (1 seed) and E (1) fall short,
    // D (3 seeds: E, F, a) and F (1 seed: a) feed.
    let p = position("1 0 0 3 1 1 / 0 0 0 0 0 0 ; 21 21 ; p0");
    assert_eq!(legal(&p), vec![3, 5]);
    assert!(p.parse_legal_move("A").is_err());
    // Without the feeding rule every non-empty house is legal.
    let no_feeding = AwaleParams {
        feeding: false,
        ..AwaleParams::default()
    };
    let p = Awale::from_description(no_feeding, "1 0 0 3 1 1 / 0 0 0 0 0 0 ; 21 21 ; p0").unwrap();
    assert_eq!(legal(&p), vec![0, 3, 4, 5]);
}

#[test]
fn the_game_ends_when_no_move_can_feed_and_the_mover_takes_its_seeds() {
    // P1 plays f, its last seed, into A (1 -> 2): taking A would empty P0's row, a grand slam, so
    // nothing is taken. P0 must then feed P1 but A (2 seeds) cannot reach: the game ends and P0
    // takes the 2 seeds of its row: 25-23.
    let mut p = position("1 0 0 0 0 0 / 0 0 0 0 0 1 ; 23 23 ; p1");
    play(&mut p, "f");
    assert!(p.is_terminal());
    assert_eq!(p.scores(), [25, 23]);
    assert_eq!(p.seeds(), &[0; 12]);
    assert_eq!(p.outcome(), Some(Outcome::WinP0));
    assert!(legal(&p).is_empty());
}

#[test]
fn the_game_ends_when_the_mover_has_no_seed() {
    // P0 plays its last seed, F, into a. Under the default rules P1 must then feed P0 and cannot
    // (a and b hold 1 seed each): the game ends at once and P1 takes its 2 seeds.
    let mut p = position("0 0 0 0 0 1 / 0 1 0 0 0 0 ; 23 23 ; p0");
    play(&mut p, "F");
    assert!(p.is_terminal());
    assert_eq!(p.scores(), [23, 25]);
    assert_eq!(p.outcome(), Some(Outcome::WinP1));
    // Without the feeding rule P1 may play a into b; then P0, to move, has no seed: the game
    // ends and P1 takes its 2 seeds.
    let no_feeding = AwaleParams {
        feeding: false,
        ..AwaleParams::default()
    };
    let mut p =
        Awale::from_description(no_feeding, "0 0 0 0 0 1 / 0 1 0 0 0 0 ; 23 23 ; p0").unwrap();
    play(&mut p, "F");
    assert!(!p.is_terminal());
    play(&mut p, "a");
    assert!(p.is_terminal());
    assert_eq!(p.scores(), [23, 25]);
    assert_eq!(p.outcome(), Some(Outcome::WinP1));
}

#[test]
fn a_lap_of_twelve_or_more_seeds_skips_the_origin_house() {
    // A holds 12 seeds: B..f get one each (11), the origin is skipped, the 12th goes to B.
    let mut p = position("12 0 0 0 0 0 / 1 1 1 1 1 1 ; 15 15 ; p0");
    play(&mut p, "A");
    assert_eq!(p.seeds(), &[0, 2, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
    assert_eq!(
        p.scores(),
        [15, 15],
        "the last seed fell in P0's own row: no capture"
    );
    // 17 seeds (P1's row empty, so A must feed): one lap (11 seeds, B..f) skipping the origin,
    // then 6 more into B..a. The last lands in a, now 2, and is taken (b..f keep a seed each).
    let mut p = position("17 0 0 0 0 0 / 0 0 0 0 0 0 ; 15 16 ; p0");
    play(&mut p, "A");
    assert_eq!(p.seeds()[0], 0, "the origin house stays empty");
    assert_eq!(p.scores(), [17, 16]);
    assert_eq!(p.seeds(), &[0, 2, 2, 2, 2, 2, 0, 1, 1, 1, 1, 1]);
}

#[test]
fn a_repeated_position_ends_the_game_and_each_side_takes_its_own_seeds() {
    // Two seeds each; after these 12 plies without a capture the start position recurs: the
    // game ends and each side takes its 2 seeds: 24-24, a draw.
    let line = "F f E e A a B b C c D d";
    let mut p = position("0 0 0 0 1 1 / 0 0 0 0 1 1 ; 22 22 ; p0");
    let moves: Vec<&str> = line.split(' ').collect();
    for (i, m) in moves.iter().enumerate() {
        assert!(!p.is_terminal(), "ended early, before ply {}", i + 1);
        play(&mut p, m);
    }
    assert!(p.is_terminal());
    assert_eq!(p.scores(), [24, 24]);
    assert_eq!(p.outcome(), Some(Outcome::Draw));

    // Without the repetition rule the same line goes on.
    let no_repetition = AwaleParams {
        repetition: false,
        ..AwaleParams::default()
    };
    let mut p =
        Awale::from_description(no_repetition, "0 0 0 0 1 1 / 0 0 0 0 1 1 ; 22 22 ; p0").unwrap();
    for m in &moves {
        play(&mut p, m);
    }
    assert!(!p.is_terminal());
    assert_eq!(p.seeds(), &[0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1]);
}

#[test]
fn repetition_is_exact_over_long_captureless_stretches() {
    // Sparse boards give long stretches without a capture: more positions than the inline
    // history holds (31), so older hashes spill over. Random games from them agree move for
    // move with the naive reference (a HashSet of whole boards), and some end by repetition.
    use crate::reference::ReferenceGame;
    use crate::reference::awale::RefAwale;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let (mut longest_stretch, mut repetition_endings) = (0, 0);
    for _ in 0..400 {
        let mut ours = position("0 1 0 1 0 1 / 1 0 1 0 1 0 ; 21 21 ; p0");
        let mut theirs = RefAwale::from(vec![0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0], [21, 21], 0);
        let mut stretch = 0;
        while !ours.is_terminal() {
            let actions = legal(&ours);
            assert_eq!(
                actions.iter().map(|&a| a as usize).collect::<Vec<_>>(),
                theirs.legal()
            );
            let action = actions[rng.random_range(0..actions.len())];
            let before = ours.scores();
            ours.play(action);
            theirs.apply(action as usize);
            assert_eq!(ours.seeds().map(|s| s as i32).to_vec(), theirs.seeds);
            assert_eq!(ours.scores().map(|s| s as i32), theirs.score);
            assert_eq!(ours.is_terminal(), theirs.terminal());
            stretch = if ours.scores() == before {
                stretch + 1
            } else {
                0
            };
            longest_stretch = longest_stretch.max(stretch);
            repetition_endings += theirs.ended_by_repetition as u32;
        }
    }
    assert!(
        longest_stretch > 31,
        "no stretch outlasted the inline history ({longest_stretch})"
    );
    assert!(repetition_endings > 0, "no game ended by repetition");
}

#[test]
fn a_score_past_half_wins_at_once_and_the_rest_goes_home() {
    // F (1 seed) into a (1 -> 2): 2 taken, P0 reaches 25 > 24 and wins; P1 takes the 3 seeds
    // left in its row (b), 20 + 3 = 23.
    let mut p = position("0 0 0 0 0 1 / 1 3 0 0 0 0 ; 23 20 ; p0");
    play(&mut p, "F");
    assert!(p.is_terminal());
    assert_eq!(p.scores(), [25, 23]);
    assert_eq!(p.outcome(), Some(Outcome::WinP0));
    assert_eq!(p.score_p0(), Some(2));
}

#[test]
fn twenty_four_each_is_a_draw() {
    let p = position("0 0 0 0 0 0 / 0 0 0 0 0 0 ; 24 24 ; p0");
    assert!(p.is_terminal());
    assert_eq!(p.outcome(), Some(Outcome::Draw));
    // And reached in play: P1's last seed goes to A (a grand slam, nothing taken); P0 cannot
    // feed, takes its 2 seeds: 24-24.
    let mut p = position("1 0 0 0 0 0 / 0 0 0 0 0 1 ; 22 24 ; p1");
    play(&mut p, "f");
    assert_eq!(p.scores(), [24, 24]);
    assert_eq!(p.outcome(), Some(Outcome::Draw));
}

#[test]
fn the_ply_cap_ends_the_game() {
    let capped = AwaleParams {
        max_plies: 3,
        ..AwaleParams::default()
    };
    let mut p = Awale::new(&capped);
    for m in ["A", "a", "B"] {
        play(&mut p, m);
    }
    assert!(p.is_terminal());
    // A, a, B leave 0 0 6 6 6 5 / 1 5 5 5 5 4: each side takes its own row's seeds at the cap.
    assert_eq!(p.scores(), [23, 25]);
    let draw_at_cap = AwaleParams {
        max_plies: 3,
        cap_is_draw: true,
        ..AwaleParams::default()
    };
    let mut p = Awale::new(&draw_at_cap);
    for m in ["A", "a", "B"] {
        play(&mut p, m);
    }
    assert_eq!(p.outcome(), Some(Outcome::Draw));
}

#[test]
fn move_text_is_per_player() {
    let p = Awale::new(&AwaleParams::default());
    assert_eq!(p.parse_legal_move("C"), Ok(2));
    assert!(
        p.parse_legal_move("c").is_err(),
        "lower case is P1's notation"
    );
    assert!(p.parse_legal_move("G").is_err());
    assert_eq!(Awale::action_to_text(Player::P1, 5), "f");
}

#[test]
fn bad_descriptions_are_refused_with_a_reason() {
    for (text, needle) in [
        ("4 4 4 4 4 / 4 4 4 4 4 4", "6 houses"),
        ("4 4 4 4 4 4 4 4 4 4 4 4", "'/'"),
        ("4 4 x 4 4 4 / 4 4 4 4 4 4", "\"x\""),
        ("40 4 4 4 4 4 / 4 4 4 4 4 4", "at most 48"),
        ("4 4 4 4 4 4 / 4 4 4 4 4 4 ; 1", "two numbers"),
    ] {
        let err = Awale::from_description(AwaleParams::default(), text).unwrap_err();
        assert_eq!(err.game, "awale");
        assert!(err.problem.contains(needle), "{text:?}: {err}");
    }
}

/// A move in the other player's case is refused naming the move meant: P0 plays `C`, `c` is a
/// house of P1's.
#[test]
fn a_move_in_the_wrong_case_is_refused_with_the_move_meant() {
    let start = Awale::new(&AwaleParams::default());
    let error = start.parse_legal_move("c").unwrap_err();
    assert!(
        matches!(&error, descent::games::MoveError::WrongCase { meant, .. } if meant == "C"),
        "{error:?}"
    );
    assert!(error.to_string().contains("did you mean \"C\"?"), "{error}");
    // A text that is no move in either case keeps its own error.
    let error = start.parse_legal_move("z").unwrap_err();
    assert!(
        !matches!(error, descent::games::MoveError::WrongCase { .. }),
        "{error:?}"
    );
    let mut after = start.clone();
    after.play(start.parse_legal_move("C").unwrap());
    assert_eq!(
        after.move_to_text(after.parse_legal_move("c").unwrap()),
        "c"
    );
}
