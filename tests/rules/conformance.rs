//! One conformance suite that every registered game runs (OpenSpiel `basic_tests.h` style), plus
//! perft reference counts and move-by-move differential checks against naive reference
//! implementations (`tests/rules/reference`).

use std::collections::HashMap;

use crate::reference::awale::RefAwale;
use crate::reference::connect_four::RefConnectFour;
use crate::reference::connect6::RefConnect6;
use crate::reference::draughts::RefDraughts;
use crate::reference::hus::RefHus;
use crate::reference::morpion::RefMorpion;
use crate::reference::othello::RefOthello;
use crate::reference::santorini::RefSantorini;
use crate::reference::shobu::RefShobu;
use crate::reference::surakarta::RefSurakarta;
use crate::reference::tic_tac_toe::RefTicTacToe;
use crate::reference::{ReferenceGame, naive_perft};
use descent::games::perft::{perft, perft_parallel};
use descent::games::{
    Action, Awale, AwaleParams, Connect6, ConnectFour, Draughts, DraughtsRules, Game, GameExt,
    GameSpec, GameVisitor, Hus, HusParams, Morpion, MoveError, Othello, Outcome, REGISTERED_GAMES,
    Santorini, Shobu, ShobuParams, Surakarta, SurakartaParams, TicTacToe,
};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Checks every invariant of one non-terminal or terminal position.
fn check_position<G: Game>(position: &G, actions: &mut Vec<Action>) {
    position.legal_actions(actions);
    // Legal actions: increasing, in range, consistent with is_legal.
    assert!(
        actions.windows(2).all(|w| w[0] < w[1]),
        "{}: legal actions not increasing: {actions:?}",
        G::NAME
    );
    assert!(actions.iter().all(|&a| (a as usize) < G::NUM_ACTIONS));
    for id in ids_to_check(G::NUM_ACTIONS, position.ply(), actions) {
        assert_eq!(
            position.is_legal(id),
            actions.binary_search(&id).is_ok(),
            "{}: is_legal({id}) disagrees",
            G::NAME
        );
    }
    // Terminal states have no legal actions and an outcome; others have both the reverse.
    assert_eq!(
        position.is_terminal(),
        actions.is_empty(),
        "{}: terminal iff no legal action\n{position}",
        G::NAME
    );
    if let Some(outcome) = position.outcome() {
        let r = outcome.returns();
        assert_eq!(r[0] + r[1], 0.0, "zero-sum returns");
        assert!(
            G::HAS_DRAWS || outcome != Outcome::Draw,
            "{} declares no draws",
            G::NAME
        );
    }
    // Hash: incremental equals recomputed.
    assert_eq!(
        position.hash(),
        position.hash_from_scratch(),
        "{}: incremental hash drifted\n{position}",
        G::NAME
    );
    // Encoding: shape, determinism, finite values.
    let mut a = vec![f32::NAN; G::ENCODING.len()];
    let mut b = vec![0.0; G::ENCODING.len()];
    position.encode(&mut a);
    position.encode(&mut b);
    assert_eq!(a, b, "encoding is deterministic and writes every float");
    assert!(a.iter().all(|x| x.is_finite()));
    // Text round trip for every legal action, for the player to move: the position-free text
    // and the position's own notation.
    let mover = position.to_move();
    for &action in actions.iter() {
        let text = G::action_to_text(mover, action);
        assert_eq!(
            G::action_from_text(mover, &text),
            Ok(action),
            "{}: text {text:?} round trip",
            G::NAME
        );
        let text = position.move_to_text(action);
        assert_eq!(
            position.move_from_text(&text),
            Ok(action),
            "{}: move text {text:?} round trip",
            G::NAME
        );
    }
    // Every legal action can be played, and advances the ply and the mover's mobility.
    for &action in actions.iter() {
        let mut child = position.clone();
        child.play(action);
        assert_eq!(child.ply(), position.ply() + 1);
        let mut sums = position.mobility_sums();
        sums[mover.index()] += actions.len() as u32;
        assert_eq!(child.mobility_sums(), sums, "{}: mobility sums", G::NAME);
        let mut plies = position.plies_by_player();
        plies[mover.index()] += 1;
        assert_eq!(
            child.plies_by_player(),
            plies,
            "{}: the mover's actions counted for the other\n{position}",
            G::NAME
        );
        assert_eq!(child.hash(), child.hash_from_scratch());
    }
    check_symmetries(position, actions);
}

/// The ids whose `is_legal` a position checks: all of them in games of up to 4 096 actions; in
/// bigger ones (Shobu's 16 384) the legal ids, their neighbours and every 97th id from an offset
/// that moves with the ply, so that a game's positions between them cover the whole range.
fn ids_to_check(num_actions: usize, ply: usize, legal: &[Action]) -> Vec<Action> {
    if num_actions <= 4096 {
        return (0..num_actions as Action).collect();
    }
    let mut ids: Vec<Action> = (ply % 97..num_actions)
        .step_by(97)
        .map(|id| id as Action)
        .collect();
    for &id in legal {
        ids.extend([
            id.saturating_sub(1),
            id,
            (id + 1).min(num_actions as Action - 1),
        ]);
    }
    ids
}

/// Each declared symmetry maps legal actions onto legal actions, commutes with the encoding, and
/// (checked along whole games in `symmetric_games_have_the_same_outcome`) preserves outcomes.
fn check_symmetries<G: Game>(position: &G, actions: &[Action]) {
    let mut encoded = vec![0.0; G::ENCODING.len()];
    let mut permuted = vec![0.0; G::ENCODING.len()];
    let mut image_encoded = vec![0.0; G::ENCODING.len()];
    let mut image_actions = Vec::new();
    position.encode(&mut encoded);
    for (index, symmetry) in G::SYMMETRIES.iter().enumerate() {
        let image = position.apply_symmetry(index);
        image.legal_actions(&mut image_actions);
        let mut mapped: Vec<Action> = actions
            .iter()
            .map(|&a| position.symmetric_action(index, a))
            .collect();
        if G::ACTION_IMAGES_BY_TABLE {
            let by_table: Vec<Action> = actions
                .iter()
                .map(|&a| symmetry.action_image[a as usize])
                .collect();
            assert_eq!(
                by_table,
                mapped,
                "{} {}: ACTION_IMAGES_BY_TABLE, yet symmetric_action differs from the table",
                G::NAME,
                symmetry.name
            );
        }
        mapped.sort_unstable();
        assert_eq!(
            image_actions,
            mapped,
            "{} {}: legal actions of the image",
            G::NAME,
            symmetry.name
        );
        assert_eq!(image.outcome(), position.outcome());
        assert_eq!(image.to_move(), position.to_move());
        assert_eq!(image.piece_counts(), position.piece_counts());
        symmetry.permute_encoding(G::ENCODING, &encoded, &mut permuted);
        image.encode(&mut image_encoded);
        assert_eq!(
            permuted,
            image_encoded,
            "{} {}: encoding permutation",
            G::NAME,
            symmetry.name
        );
    }
}

/// Random games from the initial position: no panic, every invariant at every position, every
/// game within the declared maximum length.
fn random_games<G: Game>(initial: &G, games: usize, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut actions = Vec::new();
    let mut outcomes = HashMap::new();
    for _ in 0..games {
        let mut position = initial.clone();
        loop {
            check_position(&position, &mut actions);
            if actions.is_empty() {
                break;
            }
            assert!(
                position.ply() < initial.max_game_length(),
                "{}: game longer than its maximum",
                G::NAME
            );
            position.play(actions[rng.random_range(0..actions.len())]);
        }
        assert!(position.ply() <= initial.max_game_length());
        // A one-player game's random games end alike (a draw short of the record): their
        // scores differ instead.
        let result = match G::ONE_PLAYER {
            true => format!("score {:?}", position.score_p0()),
            false => format!("{:?}", position.outcome().unwrap()),
        };
        *outcomes.entry(result).or_insert(0) += 1;
    }
    // Random play reaches more than one kind of result in every registered game.
    assert!(
        outcomes.len() >= 2,
        "{}: random games all ended alike: {outcomes:?}",
        G::NAME
    );
}

/// Plays the same random game on the position and on each symmetric image: same outcome.
fn symmetric_games_have_the_same_outcome<G: Game>(initial: &G, games: usize, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut actions = Vec::new();
    for (index, symmetry) in G::SYMMETRIES.iter().enumerate() {
        for _ in 0..games {
            let mut position = initial.clone();
            let mut image = initial.apply_symmetry(index);
            loop {
                position.legal_actions(&mut actions);
                if actions.is_empty() {
                    break;
                }
                let action = actions[rng.random_range(0..actions.len())];
                image.play(position.symmetric_action(index, action));
                position.play(action);
                assert_eq!(
                    image.outcome(),
                    position.outcome(),
                    "{} {}",
                    G::NAME,
                    symmetry.name
                );
            }
            assert!(image.is_terminal());
        }
    }
}

struct Conformance {
    games: usize,
}

impl GameVisitor for Conformance {
    type Output = ();
    fn visit<G: Game>(self, initial: G) {
        assert_eq!(initial.ply(), 0);
        assert!(!initial.is_terminal());
        assert_eq!(initial.mobility_sums(), [0, 0]);
        assert_eq!(initial.plies_by_player(), [0, 0]);
        // Big action spaces cost more per position: Shobu's (16 384 ids, ~80 legal) ~50× more,
        // Amazons' (20 736 ids, ~500 legal, each child counting its own turns) ~1 000×.
        // Long games on big boards (Go, Gomoku, Hex, Lines of Action, ...): a quarter as many.
        let games = match G::NUM_ACTIONS {
            0..=4096 if G::NUM_ACTIONS * initial.max_game_length() > 10_000 => self.games / 4,
            0..=4096 => self.games,
            4097..=16384 => self.games / 8,
            _ => self.games / 40,
        };
        random_games(&initial, games, 1);
        symmetric_games_have_the_same_outcome(&initial, games / 10, 2);
        // Unparsable text is an error, not a panic.
        for garbage in ["", " ", "zz", "??", "-1", "é", "A1B2"] {
            assert!(
                G::action_from_text(initial.to_move(), garbage).is_err(),
                "{}: {garbage:?} parsed",
                G::NAME
            );
        }
    }
}

#[test]
fn every_registered_game_passes_the_conformance_suite() {
    for game in REGISTERED_GAMES {
        let spec: GameSpec = game.name.parse().unwrap();
        spec.visit(Conformance { games: 2000 });
    }
}

/// Rule variants and other board sizes (a test of their own: they run beside the games above).
#[test]
fn rule_variants_and_board_sizes_pass_the_conformance_suite() {
    for variant in [
        "awale(feeding=false,repetition=false)",
        "awale(max_plies=60,cap_is_draw=true)",
        "hus(max_rounds=40,max_laps=30)",
        "shobu(no_push_draw=0,no_move_loses=false,max_plies=120)",
        "hex(swap=false)",
        "hex(board_size=13)",
        "havannah(board_size=10,swap=false)",
        "othello(board_size=10)",
        "othello(board_size=16)",
        "clobber(rows=8,columns=8)",
        "clobber(rows=5,columns=6)",
        "gomoku(outer_open=false,exact_five=true)",
        "lines_of_action(simultaneous=mover,no_move=loses,repetition=second_board,draw_first=true)",
        "go(board_size=11,superko=illegal,max_plies=150)",
        "draughts(board_size=8)",
        "santorini(placement=false)",
        "arimaa(setup=false,max_turns=100)",
        "surakarta(no_capture_plies=8,repetition=false)",
        "draughts(board_size=12,king_moves=5,endgame_rule=false,max_plies=300)",
    ] {
        variant
            .parse::<GameSpec>()
            .unwrap()
            .visit(Conformance { games: 500 });
    }
}

/// Plays random games in our implementation and the naive reference side by side and compares
/// legal actions, terminal flags, returns and scores at every ply.
fn differential<G: Game, R: ReferenceGame>(
    initial: &G,
    reference: &R,
    games: usize,
    seed: u64,
) -> usize {
    differential_biased(initial, reference, games, seed, 0.0)
}

/// Number of games of a differential check: `default`, or `DESCENT_DIFFERENTIAL_GAMES` when set
/// (`scripts/differential_games.sh` runs the long version).
fn differential_games(default: usize) -> usize {
    std::env::var("DESCENT_DIFFERENTIAL_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// The action that leaves the opponent the fewest pieces (captures, pushes off the board), the
/// first such in a random order.
fn greediest<G: Game>(position: &G, actions: &[Action], rng: &mut Xoshiro256PlusPlus) -> Action {
    let them = position.to_move().opponent().index();
    let start = rng.random_range(0..actions.len());
    (0..actions.len())
        .map(|k| actions[(start + k) % actions.len()])
        .min_by_key(|&action| {
            let mut child = position.clone();
            child.play(action);
            child.piece_counts()[them]
        })
        .expect("a legal action")
}

/// `differential`, where each move is, with probability `greed`, the one that leaves the
/// opponent the fewest pieces (games rich in captures and pushes, ending by them), else random.
fn differential_biased<G: Game, R: ReferenceGame>(
    initial: &G,
    reference: &R,
    games: usize,
    seed: u64,
    greed: f64,
) -> usize {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut actions = Vec::new();
    let mut plies = 0;
    for _ in 0..games {
        let (mut ours, mut theirs) = (initial.clone(), reference.clone());
        loop {
            ours.legal_actions(&mut actions);
            let ours_legal: Vec<usize> = actions.iter().map(|&a| a as usize).collect();
            assert_eq!(
                ours_legal,
                theirs.legal(),
                "{}: legal actions at ply {}\n{ours}",
                G::NAME,
                ours.ply()
            );
            assert_eq!(ours.is_terminal(), theirs.terminal());
            assert_eq!(
                ours.outcome().map_or([0.0, 0.0], |o| o.returns()),
                theirs.returns()
            );
            assert_eq!(
                ours.score_p0(),
                theirs.score_p0(),
                "{}: score at ply {}\n{ours}",
                G::NAME,
                ours.ply()
            );
            if actions.is_empty() {
                break;
            }
            let action = if greed > 0.0 && rng.random_bool(greed) {
                greediest(&ours, &actions, &mut rng)
            } else {
                actions[rng.random_range(0..actions.len())]
            };
            ours.play(action);
            theirs.apply(action as usize);
            plies += 1;
        }
    }
    plies
}

#[test]
fn awale_matches_the_reference_move_for_move() {
    let plies = differential(
        &Awale::new(&AwaleParams::default()),
        &RefAwale::new(),
        3000,
        7,
    );
    assert!(
        plies > 100_000,
        "the random games were too short to mean much: {plies} plies"
    );
}

#[test]
fn awale_seeds_and_scores_match_the_reference_on_every_ply() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut actions = Vec::new();
    for _ in 0..500 {
        let mut ours = Awale::new(&AwaleParams::default());
        let mut theirs = RefAwale::new();
        while !ours.is_terminal() {
            ours.legal_actions(&mut actions);
            let action = actions[rng.random_range(0..actions.len())];
            ours.play(action);
            theirs.apply(action as usize);
            let seeds: Vec<i32> = ours.seeds().iter().map(|&s| s as i32).collect();
            assert_eq!(seeds, theirs.seeds);
            assert_eq!(ours.scores().map(|s| s as i32), theirs.score);
        }
    }
}

#[test]
fn hus_matches_the_reference_move_for_move() {
    let initial = Hus::new(&HusParams::default());
    let games = differential_games(2000);
    let plies = differential(&initial, &RefHus::new(), games, 12);
    let biased = differential_biased(&initial, &RefHus::new(), games / 2, 13, 0.7);
    assert!(
        plies > 100 * games && biased > 10 * games,
        "games too short to mean much: {plies} and {biased} plies"
    );
}

#[test]
fn hus_pits_match_the_reference_on_every_ply() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(14);
    let mut actions = Vec::new();
    for _ in 0..300 {
        let mut ours = Hus::new(&HusParams::default());
        let mut theirs = RefHus::new();
        while !ours.is_terminal() {
            ours.legal_actions(&mut actions);
            let action = actions[rng.random_range(0..actions.len())];
            ours.play(action);
            theirs.apply(action as usize);
            let pits: Vec<Vec<i32>> = ours
                .pits()
                .iter()
                .map(|row| row.iter().map(|&s| s as i32).collect())
                .collect();
            assert_eq!(pits, theirs.board);
            assert_eq!(ours.round() as i32, theirs.rounds);
        }
    }
}

#[test]
fn shobu_matches_the_reference_move_for_move() {
    let initial = Shobu::new(&ShobuParams::default());
    let games = differential_games(200);
    let plies = differential(&initial, &RefShobu::new(), games, 15);
    // Greedy pushes end games by emptying boards; random ones mostly by the no-push draw.
    let biased = differential_biased(&initial, &RefShobu::new(), games, 16, 0.8);
    assert!(
        plies > 50 * games && biased > 5 * games,
        "games too short to mean much: {plies} and {biased} plies"
    );
}

#[test]
fn connect_four_matches_the_reference_move_for_move() {
    differential(
        &ConnectFour::new(&Default::default()),
        &RefConnectFour::new(),
        3000,
        8,
    );
}

/// Othello on every registered side against the naive N × N reference (8 × 8 is OpenSpiel's
/// too; 10 × 10 and 16 × 16 have no outside implementation), and perft to depth 5.
#[test]
fn othello_of_every_size_matches_the_reference_move_for_move() {
    fn check<const N: usize, const W: usize>(games: usize) {
        let ours = Othello::<N, W>::new(&Default::default());
        let reference = RefOthello::new(N);
        differential(&ours, &reference, differential_games(games), N as u64);
        for depth in 1..=5 {
            assert_eq!(
                perft(&ours, depth),
                naive_perft(&reference, depth),
                "{N} × {N} perft {depth}"
            );
        }
    }
    check::<8, 1>(300);
    check::<10, 2>(120);
    check::<16, 4>(20);
}

/// Draughts on each board against the naive grid implementation (8 × 8 and 10 × 10 are checked
/// against pydraughts by scripts/crosscheck_draughts.sh too; 12 × 12 has no outside
/// implementation), half the games greedy for captures, and perft to depth 5.
#[test]
fn draughts_of_every_size_matches_the_reference_move_for_move() {
    fn check<const N: usize>(games: usize) {
        let ours = Draughts::<N>::new(&Default::default());
        let reference = RefDraughts::new(N);
        let games = differential_games(games);
        differential(&ours, &reference, games, N as u64);
        differential_biased(&ours, &reference, games, N as u64 + 1, 0.5);
        for depth in 1..=5 {
            assert_eq!(
                perft(&ours, depth),
                naive_perft(&reference, depth),
                "{N} × {N} perft {depth}"
            );
        }
    }
    check::<8>(60);
    check::<10>(30);
    check::<12>(20);
    // Short draw limits, so that games end by the king-move rule and the cap as well.
    let params = DraughtsRules {
        king_moves: 2,
        endgame_rule: true,
        max_plies: 90,
    };
    let ours = Draughts::<10>::new(&params);
    let reference = RefDraughts::with_limits(10, 2, 90);
    differential_biased(&ours, &reference, differential_games(60), 3, 0.3);
}

/// Connect6 against the naive full-board scan (no outside implementation exists), and its perft
/// (stone plies: 361 · 360 · 359, no win before ply 11).
#[test]
fn connect6_matches_the_reference_move_for_move() {
    let ours = Connect6::new(&Default::default());
    let reference = RefConnect6::new();
    differential(&ours, &reference, differential_games(40), 6);
    for depth in 1..=2 {
        assert_eq!(perft(&ours, depth), naive_perft(&reference, depth));
    }
    assert_eq!(perft_parallel(&ours, 3), 46_655_640);
}

/// Santorini against the naive grid version (no outside implementation exists), random games
/// (they end by climbs and by blocked players), and perft to depth 4 (the placements;
/// `descent perft santorini 6` gives 950 237 952 in 5 s).
#[test]
fn santorini_matches_the_reference_move_for_move() {
    let ours = Santorini::new(&Default::default());
    let reference = RefSantorini::new();
    differential(&ours, &reference, differential_games(200), 8);
    for depth in 1..=4 {
        assert_eq!(
            perft(&ours, depth),
            naive_perft(&reference, depth),
            "perft {depth}"
        );
    }
}

/// Surakarta against the naive track walker (no outside implementation exists): random games
/// and capture-greedy ones (which end by captures and the count), short limits without the
/// repetition rule, and perft to depth 4.
#[test]
fn surakarta_matches_the_reference_move_for_move() {
    let ours = Surakarta::new(&Default::default());
    let reference = RefSurakarta::new();
    let games = differential_games(150);
    differential(&ours, &reference, games, 9);
    differential_biased(&ours, &reference, games, 10, 0.6);
    let params = SurakartaParams {
        no_capture_plies: 6,
        repetition: false,
    };
    let ours = Surakarta::new(&params);
    differential_biased(&ours, &RefSurakarta::with_rules(6, false), games, 11, 0.3);
    let ours = Surakarta::new(&Default::default());
    for depth in 1..=4 {
        assert_eq!(
            perft(&ours, depth),
            naive_perft(&reference, depth),
            "perft {depth}"
        );
    }
}

/// Morpion Solitaire 5D against the naive version (no outside implementation of 5D exists):
/// random games to their end and perft to depth 3, 28 first moves as every description of the
/// game says.
#[test]
fn morpion_matches_the_reference_move_for_move() {
    let ours = Morpion::new(&Default::default());
    let reference = RefMorpion::new();
    differential(&ours, &reference, differential_games(30), 12);
    assert_eq!(perft(&ours, 1), 28);
    for depth in 1..=3 {
        assert_eq!(
            perft(&ours, depth),
            naive_perft(&reference, depth),
            "perft {depth}"
        );
    }
}

#[test]
fn tic_tac_toe_matches_the_reference_move_for_move() {
    differential(
        &TicTacToe::new(&Default::default()),
        &RefTicTacToe::new(),
        3000,
        9,
    );
}

// Perft reference counts. Sources:
// - tic-tac-toe: the well-known counts of the full game tree (549 946 nodes, 255 168 games);
//   recomputed here by `naive_perft` on `RefTicTacToe`.
// - connect four: 7^d up to depth 6 (no game can end before ply 7); depth 7 is 7^7 - 7, since
//   the 7 move sequences that fill one column in 6 plies leave only 6 legal moves (OEIS A212693);
//   recomputed here by `naive_perft` on `RefConnectFour` up to depth 6.
// - awale: computed once by a throw-away Python transcription of OpenSpiel's `oware.cc` rules
//   (tuples and sets; it also gave perft(7) = 139 157), and recomputed here by `naive_perft` on
//   `RefAwale`, a second independent transcription, in `awale_perft_matches_the_naive_reference`.
const TIC_TAC_TOE_PERFT: [u64; 9] = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872];
const CONNECT_FOUR_PERFT: [u64; 7] = [7, 49, 343, 2401, 16807, 117649, 823536];
const AWALE_PERFT: [u64; 6] = [6, 36, 190, 1014, 5219, 27332];
// - hus: the COMP 424 course report's table of reachable states by depth (24 … 55 769 962 at
//   depth 6); recomputed here by `naive_perft` on `RefHus` up to depth 4.
// - shobu: counts of LINFO1361's `shobu.py` (232 actions at the root, the course report's figure);
//   recomputed here by `naive_perft` on `RefShobu` up to depth 2.
const HUS_PERFT: [u64; 6] = [24, 576, 11_040, 207_443, 3_439_088, 55_769_962];
const SHOBU_PERFT: [u64; 3] = [232, 50_508, 8_675_832];

#[test]
fn hus_perft_to_depth_5() {
    let initial = Hus::new(&HusParams::default());
    for (depth, &expected) in HUS_PERFT.iter().enumerate().take(5) {
        assert_eq!(
            perft_parallel(&initial, depth + 1),
            expected,
            "hus perft({})",
            depth + 1
        );
    }
    for (depth, &expected) in HUS_PERFT.iter().enumerate().take(4) {
        assert_eq!(naive_perft(&RefHus::new(), depth + 1), expected);
    }
}

#[test]
fn shobu_perft_to_depth_3() {
    let initial = Shobu::new(&ShobuParams::default());
    for (depth, &expected) in SHOBU_PERFT.iter().enumerate() {
        assert_eq!(
            perft_parallel(&initial, depth + 1),
            expected,
            "shobu perft({})",
            depth + 1
        );
    }
    for (depth, &expected) in SHOBU_PERFT.iter().enumerate().take(2) {
        assert_eq!(naive_perft(&RefShobu::new(), depth + 1), expected);
    }
}

#[test]
fn tic_tac_toe_perft_full_game() {
    let initial = TicTacToe::new(&Default::default());
    for (depth, &expected) in TIC_TAC_TOE_PERFT.iter().enumerate() {
        assert_eq!(
            perft(&initial, depth + 1),
            expected,
            "tic-tac-toe perft({})",
            depth + 1
        );
        assert_eq!(naive_perft(&RefTicTacToe::new(), depth + 1), expected);
    }
    assert_eq!(perft(&initial, 10), 0, "no game lasts 10 plies");
    // Finished games over all depths: 255 168.
    fn finished_games(position: &TicTacToe) -> u64 {
        let mut actions = Vec::new();
        position.legal_actions(&mut actions);
        if actions.is_empty() {
            return 1;
        }
        actions
            .iter()
            .map(|&a| {
                let mut child = *position;
                child.play(a);
                finished_games(&child)
            })
            .sum()
    }
    assert_eq!(finished_games(&initial), 255_168);
}

#[test]
fn connect_four_perft_to_depth_7() {
    let initial = ConnectFour::new(&Default::default());
    for (depth, &expected) in CONNECT_FOUR_PERFT.iter().enumerate() {
        assert_eq!(
            perft_parallel(&initial, depth + 1),
            expected,
            "connect four perft({})",
            depth + 1
        );
    }
    for (depth, &expected) in CONNECT_FOUR_PERFT.iter().enumerate().take(6) {
        assert_eq!(naive_perft(&RefConnectFour::new(), depth + 1), expected);
    }
}

#[test]
fn awale_perft_to_depth_6() {
    let initial = Awale::new(&AwaleParams::default());
    for (depth, &expected) in AWALE_PERFT.iter().enumerate() {
        assert_eq!(
            perft(&initial, depth + 1),
            expected,
            "awale perft({})",
            depth + 1
        );
    }
}

#[test]
fn awale_perft_matches_the_naive_reference() {
    for (depth, &expected) in AWALE_PERFT.iter().enumerate() {
        assert_eq!(
            naive_perft(&RefAwale::new(), depth + 1),
            expected,
            "naive awale perft({})",
            depth + 1
        );
    }
    // Deeper, where captures, feeding and laps start to matter: both implementations agree.
    let initial = Awale::new(&AwaleParams::default());
    assert_eq!(
        perft(&initial, 7),
        139_157,
        "awale perft(7), from the Python transcription"
    );
    for depth in 7..=9 {
        assert_eq!(
            perft_parallel(&initial, depth),
            naive_perft(&RefAwale::new(), depth),
            "awale perft({depth})"
        );
    }
}

#[test]
fn hashes_of_distinct_tic_tac_toe_positions_are_distinct() {
    // Every reachable position (5 478 of them): no two different boards share a hash.
    let mut seen: HashMap<u64, ([u32; 2], String)> = HashMap::new();
    let mut stack = vec![TicTacToe::new(&Default::default())];
    let mut actions = Vec::new();
    while let Some(position) = stack.pop() {
        let key = (position.piece_counts(), position.to_string());
        if let Some(previous) = seen.insert(position.hash(), key.clone()) {
            assert_eq!(previous, key, "hash collision");
            continue;
        }
        position.legal_actions(&mut actions);
        for &a in &actions {
            let mut child = position;
            child.play(a);
            stack.push(child);
        }
    }
    assert_eq!(
        seen.len(),
        5478,
        "tic-tac-toe has 5 478 reachable positions"
    );
}

#[test]
fn a_move_list_plays_until_its_first_bad_move() {
    let mut p = TicTacToe::new(&Default::default());
    p.play_moves("a1 b2").unwrap();
    assert_eq!(p.ply(), 2);
    let err = p.play_moves("c3 c3 a2").unwrap_err();
    assert!(matches!(err, MoveError::Illegal { .. }), "{err}");
    assert_eq!(p.ply(), 3, "the moves before the bad one are played");
    assert!(matches!(
        p.play_moves("zz"),
        Err(MoveError::Unparsable { .. })
    ));
}

/// perft of the paper's games through the registry (OpenSpiel's counts, pyspiel
/// 2.0.2; Hex 13's from the closed form N·(N−1)·…·(N−d+2)·(N−d+2) that reproduces Hex 11's;
/// Outer-Open Gomoku's from OpenSpiel's with a first factor of 104 band cells instead of 225).
#[test]
fn paper_games_perft_matches_openspiel() {
    struct Perft(&'static [u64]);
    impl GameVisitor for Perft {
        type Output = Vec<u64>;
        fn visit<G: Game>(self, initial: G) -> Vec<u64> {
            (1..=self.0.len())
                .map(|depth| perft_parallel(&initial, depth))
                .collect()
        }
    }
    for (spec, expected) in [
        ("othello", &[4, 12, 56, 244, 1_396, 8_200, 55_092][..]),
        ("breakthrough", &[22, 484, 11_132, 256_036, 6_182_818]),
        ("clobber", &[180, 31_252, 5_231_000]),
        // The PyPI ataxx library's Board.perft.
        ("ataxx", &[16, 256, 6_460, 155_888, 4_752_668]),
        // PyPI pydraughts 0.6.7 `brazilian` and `standard`; International's
        // depths 7-9 are the published 1 049 442 / 6 483 961 / 41 022 423.
        (
            "draughts(board_size=8)",
            &[7, 49, 302, 1_469, 7_473, 37_628],
        ),
        (
            "draughts",
            &[9, 81, 658, 4_265, 27_117, 167_140, 1_049_442, 6_483_961],
        ),
        ("clobber(rows=8,columns=8)", &[112, 11_848, 1_182_276]),
        ("clobber(rows=5,columns=6)", &[49, 2_116, 80_063]),
        ("hex", &[121, 14_641, 1_742_400]),
        ("hex(swap=false)", &[121, 14_520, 1_727_880]),
        ("hex(board_size=13)", &[169, 28_561, 4_769_856]),
        ("havannah", &[169, 28_561, 4_769_856]),
        ("havannah(swap=false)", &[169, 28_392]),
        ("havannah(board_size=10)", &[271, 73_441]),
        ("gomoku", &[104, 23_296, 5_195_008]),
        ("gomoku(outer_open=false)", &[225, 50_400, 11_239_200]),
        (
            "lines_of_action(simultaneous=mover,no_move=loses,repetition=second_board,draw_first=true)",
            &[36, 1_244, 44_952, 1_563_208, 55_934_908],
        ),
        ("go", &[82, 6_643, 531_522]),
        // Whole turns: OpenSpiel's sub-ply perft 3 and 6.
        ("amazons", &[2_176, 4_307_152]),
        // Depth 5 differs under the Olympiad's repetition rule.
        ("lines_of_action", &[36, 1_244, 44_952, 1_563_208]),
    ] {
        let counts = spec.parse::<GameSpec>().unwrap().visit(Perft(expected));
        assert_eq!(counts, expected, "{spec} perft");
    }
}
