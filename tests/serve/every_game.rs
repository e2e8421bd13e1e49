//! Every registered game played to its end through `descent serve`'s play API, as the page
//! plays it: a person's side picks legal moves from `/api/position`, the agent answers each
//! turn through `/api/agent-move`. Where a turn has several actions (Connect6's two stones,
//! Arimaa's setup and steps) the agent's reply must be its whole turn: the person is to move
//! again, or the game is over. In a one-player game (Morpion Solitaire) every move is a turn:
//! the person plays them all as P0, or the agent does, one a request.

use serde_json::{Value, json};

use crate::common::server::Server;

/// Games whose random games run to thousands of plies, shortened by their own parameters so
/// that the test plays every game to its end in a few seconds each.
const SHORTER: &[(&str, &str)] = &[("hus", "hus(max_rounds=150)")];

#[test]
fn every_game_plays_to_its_end_through_the_page_api_with_whole_agent_turns() {
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path());
    let (status, games) = server.json("GET", "/api/games", None);
    assert_eq!(status, 200);
    let games = games.as_array().unwrap();
    assert!(games.len() >= 21, "{} games listed", games.len());
    let mut multi_action_turns = Vec::new();
    for (index, entry) in games.iter().enumerate() {
        let name = entry["name"].as_str().unwrap();
        let spec = SHORTER
            .iter()
            .find(|(game, _)| *game == name)
            .map_or(name, |(_, spec)| spec);
        let person = if index % 2 == 0 { "p0" } else { "p1" };
        let longest_turn = play_to_the_end(&server, spec, person);
        if longest_turn > 1 {
            multi_action_turns.push(name);
        }
    }
    for game in ["connect6", "arimaa"] {
        assert!(
            multi_action_turns.contains(&game),
            "{game}: the agent played one action a turn ({multi_action_turns:?})"
        );
    }
}

/// Plays `spec` through the API, the person as `person` choosing legal moves by a fixed rule,
/// the agent `random` the other side; checks every agent reply ends its turn and the result is
/// shown. Returns the longest agent turn (in actions).
fn play_to_the_end(server: &Server, spec: &str, person: &str) -> usize {
    let mut moves: Vec<String> = Vec::new();
    let mut longest_turn = 0;
    for request in 0..20_000 {
        let position = post(
            server,
            "/api/position",
            json!({"game": spec, "moves": moves}),
        );
        if position["terminal"] == true {
            let result = position["result"].as_str().unwrap_or_default();
            assert!(
                ["(p0) wins", "(p1) wins", "draw", "game over: score"]
                    .iter()
                    .any(|r| result.contains(r)),
                "{spec}: {result:?}"
            );
            assert_eq!(position["ply"].as_u64(), Some(moves.len() as u64));
            eprintln!(
                "{spec}: {result} after {} plies, agent turns up to {longest_turn} actions",
                moves.len()
            );
            return longest_turn;
        }
        let to_move = position["to_move"].as_str().unwrap().to_string();
        if to_move == person {
            let legal = position["legal"].as_array().unwrap();
            assert!(
                !legal.is_empty(),
                "{spec} at ply {}: no legal move",
                moves.len()
            );
            let pick = (request * 7_919 + moves.len() * 31) % legal.len();
            moves.push(legal[pick].as_str().unwrap().to_string());
            continue;
        }
        let reply = post(
            server,
            "/api/agent-move",
            json!({"game": spec, "moves": moves, "agent": "random"}),
        );
        let turn: Vec<String> = serde_json::from_value(reply["turn"].clone()).unwrap();
        let after = &reply["position"];
        let one_player_move = position["players"] == 1 && turn.len() == 1;
        assert!(
            after["terminal"] == true || after["to_move"] != to_move.as_str() || one_player_move,
            "{spec} at ply {}: the agent played {turn:?} and {to_move} is still to move",
            moves.len()
        );
        let played: Vec<String> = serde_json::from_value(after["moves"].clone()).unwrap();
        assert_eq!(
            played[..moves.len()],
            moves[..],
            "{spec}: the moves before kept"
        );
        assert_eq!(played[moves.len()..], turn[..], "{spec}: the turn appended");
        longest_turn = longest_turn.max(turn.len());
        moves = played;
    }
    panic!(
        "{spec}: not over after 20 000 requests ({} plies)",
        moves.len()
    );
}

fn post(server: &Server, path: &str, body: Value) -> Value {
    let (status, reply) = server.json("POST", path, Some(&body.to_string()));
    assert_eq!(status, 200, "{path} {body}: {reply}");
    reply
}
