//! Property tests on every registered game (proptest, shrinking to the shortest failing move
//! sequence): along any sequence of legal moves the incremental hash equals a recomputed one,
//! the encoding is deterministic, move text round-trips, replaying the moves as text reaches the
//! same position, every symmetry maps legal moves onto legal moves and keeps the outcome, and
//! the moves a playout draws from are legal ones, none only when the game is over.

use descent::games::{Action, Game, GameExt, GameSpec, GameVisitor, REGISTERED_GAMES};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Plays `choices` (each taken modulo the number of legal moves) and checks every property at
/// every position on the way.
struct AlongMoves {
    choices: Vec<u16>,
}

impl GameVisitor for AlongMoves {
    type Output = Result<(), TestCaseError>;

    fn visit<G: Game>(self, initial: G) -> Result<(), TestCaseError> {
        let mut position = initial.clone();
        let mut images: Vec<G> = (0..G::SYMMETRIES.len())
            .map(|k| initial.apply_symmetry(k))
            .collect();
        let mut texts = Vec::new();
        let mut actions = Vec::new();
        let mut image_actions = Vec::new();
        let mut playout_actions = Vec::new();
        for &choice in &self.choices {
            position.legal_actions(&mut actions);
            position.playout_actions(&mut playout_actions);
            prop_assert!(
                playout_actions.iter().all(|a| actions.contains(a)),
                "playout moves {:?} not all legal ({:?})",
                playout_actions,
                actions
            );
            prop_assert_eq!(playout_actions.is_empty(), actions.is_empty());
            check_symmetric_images(&position, &images, &actions, &mut image_actions)?;
            if actions.is_empty() {
                break;
            }
            let action = actions[choice as usize % actions.len()];
            let text = G::action_to_text(position.to_move(), action);
            prop_assert_eq!(G::action_from_text(position.to_move(), &text), Ok(action));
            texts.push(text);
            let image_moves: Vec<Action> = (0..images.len())
                .map(|k| position.symmetric_action(k, action))
                .collect();
            position.play(action);
            for (image, &image_move) in images.iter_mut().zip(&image_moves) {
                image.play(image_move);
            }
            prop_assert_eq!(
                position.hash(),
                position.hash_from_scratch(),
                "{}: incremental hash after {:?}",
                G::NAME,
                texts
            );
            let (mut a, mut b) = (vec![1.0; G::ENCODING.len()], vec![-1.0; G::ENCODING.len()]);
            position.encode(&mut a);
            position.encode(&mut b);
            prop_assert_eq!(a, b, "{}: encoding", G::NAME);
        }
        let mut replayed = initial.clone();
        replayed
            .play_moves(&texts.join(" "))
            .map_err(|e| TestCaseError::fail(format!("{}: {e}", G::NAME)))?;
        prop_assert_eq!(replayed.hash(), position.hash());
        prop_assert_eq!(replayed.outcome(), position.outcome());
        prop_assert_eq!(replayed.to_string(), position.to_string());
        Ok(())
    }
}

/// Each image has the position's legal moves mapped by its symmetry, outcome and side to move.
fn check_symmetric_images<G: Game>(
    position: &G,
    images: &[G],
    actions: &[Action],
    image_actions: &mut Vec<Action>,
) -> Result<(), TestCaseError> {
    for (k, (image, symmetry)) in images.iter().zip(G::SYMMETRIES).enumerate() {
        image.legal_actions(image_actions);
        let mut mapped: Vec<Action> = actions
            .iter()
            .map(|&a| position.symmetric_action(k, a))
            .collect();
        mapped.sort_unstable();
        prop_assert_eq!(&mapped, &*image_actions, "{} {}", G::NAME, symmetry.name);
        prop_assert_eq!(image.outcome(), position.outcome());
        prop_assert_eq!(image.to_move(), position.to_move());
        prop_assert_eq!(image.hash(), image.hash_from_scratch());
    }
    Ok(())
}

fn every_game() -> Vec<GameSpec> {
    let mut specs: Vec<GameSpec> = REGISTERED_GAMES
        .iter()
        .map(|g| g.name.parse().unwrap())
        .collect();
    for variant in [
        "awale(feeding=false,repetition=false,max_plies=80)",
        "hus(max_rounds=30,max_laps=20)",
        "shobu(no_push_draw=6,max_plies=60)",
    ] {
        specs.push(variant.parse().unwrap());
    }
    specs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_game_keeps_its_invariants_along_any_move_sequence(
        choices in prop::collection::vec(any::<u16>(), 0..400)
    ) {
        for spec in every_game() {
            spec.visit(AlongMoves { choices: choices.clone() })?;
        }
    }
}

/// Arguments, moves of every game and garbage, mixed with the engine's commands into lines.
const ENGINE_ARGUMENTS: &[&str] = &[
    "p0",
    "p1",
    "b",
    "w",
    "black",
    "white",
    "a1",
    "c3",
    "d",
    "C",
    "0",
    "17",
    "31",
    "0a1:1b1:N2",
    "3c4:0d4:SW1",
    "1e308",
    "-1",
    "1e-10",
    "NaN",
    "#",
    "\t",
    "é",
    "18446744073709551616",
];

fn engine_words() -> Vec<&'static str> {
    descent::cli::engine::COMMANDS
        .iter()
        .map(|&(name, _)| name)
        .chain(ENGINE_ARGUMENTS.iter().copied())
        .collect()
}

fn engine_line() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(prop::sample::select(engine_words()), 0..6).prop_map(|w| w.join(" ")),
    ]
}

/// Feeds `lines` to an engine playing `random`: every line with a command gets exactly one
/// reply, `=` or `?` framed by GTP's empty line, and nothing panics.
struct EngineAnswers {
    spec: GameSpec,
    lines: Vec<String>,
}

impl GameVisitor for EngineAnswers {
    type Output = Result<(), TestCaseError>;

    fn visit<G: Game>(self, _initial: G) -> Result<(), TestCaseError> {
        let factory = descent::arena::AgentFactory::<G>::new(
            "random".parse().unwrap(),
            G::NAME,
            &descent::value::NetDevice::cpu(),
        )
        .unwrap();
        let mut engine =
            descent::cli::engine::Engine::<G>::new(self.spec.clone(), factory.build(), 1);
        for line in &self.lines {
            let has_command = line
                .split('#')
                .next()
                .is_some_and(|l| l.chars().any(|c| !c.is_whitespace() && !c.is_control()));
            let reply = engine.respond(line);
            prop_assert_eq!(reply.is_some(), has_command, "{:?}", line);
            if let Some((text, quit)) = reply {
                prop_assert!(text.starts_with('=') || text.starts_with('?'), "{:?}", text);
                prop_assert!(text.ends_with("\n\n") && !text[..text.len() - 2].contains("\n\n"));
                if quit {
                    break;
                }
            }
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_engine_answers_every_line_of_every_game(
        lines in prop::collection::vec(engine_line(), 1..30)
    ) {
        for game in REGISTERED_GAMES {
            let spec: GameSpec = game.name.parse().unwrap();
            spec.clone().visit(EngineAnswers { spec, lines: lines.clone() })?;
        }
    }
}
