//! The board of `descent serve`: a position given as a game spec and its moves from the start
//! (the page keeps the moves, so undo is a shorter list and the server keeps no game state),
//! and an agent's move in it. Every game of the registry, every agent spec.

use rand::SeedableRng;
use serde::{Deserialize, Serialize};

pub use super::agent_cache::{AgentCache, CACHED_AGENTS, MAX_MOVE_TIME};
use super::board_svg::board_svg;
use super::web_error::WebError;
use crate::arena::AgentRng;
use crate::arena::game_session::result_sentence;
use crate::games::{Game, GameExt, GameSpec, GameVisitor, Player};
use crate::search::StopToken;

/// A position: the game spec and the moves played from its start, in its notation.
#[derive(Clone, Debug, Deserialize)]
pub struct PositionRequest {
    pub game: String,
    #[serde(default)]
    pub moves: Vec<String>,
}

/// An agent's move in a position.
#[derive(Clone, Debug, Deserialize)]
pub struct AgentMoveRequest {
    #[serde(flatten)]
    pub position: PositionRequest,
    pub agent: String,
}

/// What the page shows of a position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PositionView {
    /// The game's registry name, and the spec as given.
    pub name: &'static str,
    pub game: String,
    pub ply: usize,
    /// The moves so far (as the game writes them).
    pub moves: Vec<String>,
    /// `p0` or `p1`.
    pub to_move: String,
    /// The sides as the game's players name them, P0's first: `Black (p0)`, `White (p1)`.
    pub sides: [String; 2],
    /// 1 in a one-player game (Morpion Solitaire: P0 moves every turn), else 2.
    pub players: u8,
    /// The board as text.
    pub picture: String,
    /// The legal moves in the game's notation (none once it is over).
    pub legal: Vec<String>,
    pub terminal: bool,
    /// The result for people ("Black (p0) wins"), once over.
    pub result: Option<String>,
    /// +1 P0 won, -1 P1 won, 0 draw, once over.
    pub result_p0: Option<f32>,
    pub score_p0: Option<i32>,
    /// How to write a move.
    pub notation: &'static str,
    /// The board drawn (`board_svg`), its cells named `data-cell`; `None` for a game without a
    /// drawing (then `picture`).
    pub board_svg: Option<String>,
    /// The colours of P0's and P1's pieces in the drawing (`black`, `white`).
    pub colours: [&'static str; 2],
    /// For each legal move (as `legal`), the cells a person clicks to play it, in order.
    pub legal_cells: Vec<Vec<String>>,
    /// The cells of the last move played, marked on the board.
    pub last_move_cells: Vec<String>,
}

/// An agent's reply: the actions of its whole turn (one in most games; two stones in Connect6,
/// up to four steps in Arimaa), its value of the position before it (P0's view, when it
/// searched), and the position after.
#[derive(Clone, Debug, Serialize)]
pub struct AgentMoveView {
    /// The turn as one string: its actions in order, separated by spaces.
    #[serde(rename = "move")]
    pub chosen: String,
    /// The turn's actions in order, each as the game writes it.
    pub turn: Vec<String>,
    pub value_p0: Option<f32>,
    pub position: PositionView,
}

/// The most actions an agent plays in one request: more than any game's turn has (Arimaa's
/// setup of eight pieces, or its four steps and `end`), so a turn always ends within one reply.
pub const MAX_TURN_ACTIONS: usize = 16;

fn parse_game(text: &str) -> Result<GameSpec, WebError> {
    text.parse::<GameSpec>()
        .map_err(|e| WebError::bad_request(format!("game {text:?}: {e}")))
}

fn view<G: Game>(
    game: &str,
    position: &G,
    moves: Vec<String>,
    last_move_cells: Vec<String>,
) -> PositionView {
    let mut legal = Vec::new();
    if !position.is_terminal() {
        position.legal_actions(&mut legal);
    }
    let outcome = position.outcome();
    let board = position.board_view();
    PositionView {
        board_svg: board_svg(&board, &last_move_cells),
        colours: board.colours,
        legal_cells: legal.iter().map(|&a| position.move_cells(a)).collect(),
        last_move_cells,
        name: G::NAME,
        game: game.to_string(),
        ply: position.ply(),
        moves,
        to_move: position.to_move().to_string(),
        sides: [G::side_text(Player::P0), G::side_text(Player::P1)],
        players: if G::ONE_PLAYER { 1 } else { 2 },
        picture: position.to_string(),
        legal: legal.iter().map(|&a| position.move_to_text(a)).collect(),
        terminal: outcome.is_some(),
        result: result_sentence(position),
        result_p0: outcome.map(|o| o.value_p0()),
        score_p0: position.score_p0(),
        notation: G::notation_help(),
    }
}

/// The position `request` names, as the page shows it.
///
/// # Errors
/// An unknown game spec, or a move that is not legal where it is played.
pub fn position_view(request: &PositionRequest) -> Result<PositionView, WebError> {
    struct Show<'a>(&'a PositionRequest);
    impl GameVisitor for Show<'_> {
        type Output = Result<PositionView, WebError>;
        fn visit<G: Game>(self, initial: G) -> Self::Output {
            let (position, moves, last) = replay(initial, &self.0.moves)?;
            Ok(view(&self.0.game, &position, moves, last))
        }
    }
    parse_game(&request.game)?.visit(Show(request))
}

/// The position after `moves` from the start, the moves as the game writes them (a request
/// may spell them in another case), and the cells of the last one.
fn replay<G: Game>(
    initial: G,
    moves: &[String],
) -> Result<(G, Vec<String>, Vec<String>), WebError> {
    let mut texts = Vec::with_capacity(moves.len());
    let mut position = initial;
    let mut last_cells = Vec::new();
    for (ply, text) in moves.iter().enumerate() {
        let action = position
            .parse_legal_move(text)
            .map_err(|e| WebError::bad_request(format!("move {} ({text:?}): {e}", ply + 1)))?;
        texts.push(position.move_to_text(action));
        last_cells = position.move_cells(action);
        position.play(action);
    }
    Ok((position, texts, last_cells))
}

/// The turn `request.agent` plays in the position: its actions until the other side is to
/// move or the game ends (at most [`MAX_TURN_ACTIONS`]; one action in a one-player game, whose
/// every move is a turn), and the position after. The agent's
/// random choices are seeded by each position's moves, so a position asked twice gets the same
/// answer, and a turn asked from its middle (a page reloaded) is finished as it would have been.
///
/// # Errors
/// A bad game or agent spec (or a network that does not load), an illegal move, or a position
/// where the game is over.
pub fn agent_move(
    request: &AgentMoveRequest,
    cache: &AgentCache,
) -> Result<AgentMoveView, WebError> {
    agent_move_then(request, cache, &StopToken::new(), || {})
}

/// [`agent_move`], its searches stopped by `stop` as well as their budget, calling `thinking`
/// once the agent is built (its network loaded), just before its first search: the server
/// starts the turn's clock there.
///
/// # Errors
/// As [`agent_move`].
pub fn agent_move_then(
    request: &AgentMoveRequest,
    cache: &AgentCache,
    stop: &StopToken,
    thinking: impl FnOnce(),
) -> Result<AgentMoveView, WebError> {
    struct Move<'a, F>(&'a AgentMoveRequest, &'a AgentCache, &'a StopToken, F);
    impl<F: FnOnce()> GameVisitor for Move<'_, F> {
        type Output = Result<AgentMoveView, WebError>;
        fn visit<G: Game>(self, initial: G) -> Self::Output {
            let Move(request, cache, stop, thinking) = self;
            let game = &request.position.game;
            let (mut position, mut moves, _) = replay(initial, &request.position.moves)?;
            if position.is_terminal() {
                return Err(WebError::bad_request(
                    "the game is over: the agent has no move",
                ));
            }
            let mut agent = cache.factory::<G>(game, &request.agent)?.build();
            agent.stop_when(stop);
            thinking();
            let mover = position.to_move();
            let (mut turn, mut value_p0, mut last_cells) = (Vec::new(), None, Vec::new());
            // The first action is always chosen (a cancelled search still returns a move).
            while turn.len() < MAX_TURN_ACTIONS && (turn.is_empty() || !stop.is_stopped()) {
                let seed = position.hash() ^ position.ply() as u64;
                let choice = agent.choose_move(&position, &mut AgentRng::seed_from_u64(seed));
                let text = position.move_to_text(choice.action);
                value_p0 = value_p0.or(choice.value_p0);
                last_cells = position.move_cells(choice.action);
                position.play(choice.action);
                turn.push(text);
                if G::ONE_PLAYER || position.is_terminal() || position.to_move() != mover {
                    break;
                }
            }
            moves.extend(turn.iter().cloned());
            Ok(AgentMoveView {
                chosen: turn.join(" "),
                turn,
                value_p0,
                position: view(game, &position, moves, last_cells),
            })
        }
    }
    parse_game(&request.position.game)?.visit(Move(request, cache, stop, thinking))
}

/// An agent spec checked for a game without playing: the page asks before a game starts, so a
/// typo (`mcts:itres=10`) is refused at once, not at the agent's first move.
#[derive(Clone, Debug, Deserialize)]
pub struct AgentCheckRequest {
    pub game: String,
    pub agent: String,
}

/// Builds (and caches) the agent of `request`, or says why it cannot be.
///
/// # Errors
/// A bad game or agent spec, or a network that does not load or is not of this game.
pub fn check_agent(request: &AgentCheckRequest, cache: &AgentCache) -> Result<(), WebError> {
    struct Check<'a>(&'a AgentCheckRequest, &'a AgentCache);
    impl GameVisitor for Check<'_> {
        type Output = Result<(), WebError>;
        fn visit<G: Game>(self, _initial: G) -> Self::Output {
            let Check(request, cache) = self;
            cache
                .factory::<G>(&request.game, &request.agent)
                .map(|_| ())
        }
    }
    parse_game(&request.game)?.visit(Check(request, cache))
}

/// A registered game as the page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct GameEntry {
    pub name: &'static str,
    pub description: &'static str,
}

/// Every registered game.
pub fn game_list() -> Vec<GameEntry> {
    crate::games::REGISTERED_GAMES
        .iter()
        .map(|game| GameEntry {
            name: game.name,
            description: game.description,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn request(game: &str, moves: &[&str]) -> PositionRequest {
        PositionRequest {
            game: game.into(),
            moves: moves.iter().map(|m| m.to_string()).collect(),
        }
    }

    #[test]
    fn a_position_lists_its_legal_moves_and_its_result() {
        let start = position_view(&request("tic_tac_toe", &[])).unwrap();
        assert_eq!(start.legal.len(), 9);
        assert_eq!(start.to_move, "p0");
        let won = position_view(&request("tic_tac_toe", &["a1", "a2", "b1", "b2", "C1"])).unwrap();
        assert!(won.terminal);
        assert!(won.legal.is_empty());
        assert_eq!(won.result.as_deref(), Some("Black (p0) wins"));
        assert_eq!(won.result_p0, Some(1.0));
        assert_eq!(
            won.moves.last().map(String::as_str),
            Some("c1"),
            "the game's spelling"
        );
    }

    /// Two searches at once, each with its own token: stopping one leaves the other to its
    /// whole budget (the reply it gives alone, to the last digit of its value).
    #[test]
    fn a_stop_token_stops_one_search_and_not_another() {
        use std::time::{Duration, Instant};
        let cache = AgentCache::new(Path::new("."));
        let agent_request = |agent: &str| AgentMoveRequest {
            position: request("connect_four", &["d", "d"]),
            agent: agent.into(),
        };
        let endless = agent_request("mcts:iters=18446744073709551615");
        let counted = agent_request("mcts:iters=400000");
        let alone = agent_move(&counted, &cache).unwrap();
        let (stop_endless, stop_counted) = (StopToken::new(), StopToken::new());
        let timed = |request: &AgentMoveRequest, stop: &StopToken| {
            let reply = agent_move_then(request, &cache, stop, || {});
            (reply, Instant::now())
        };
        let ((endless_reply, endless_end), (counted_reply, counted_end)) =
            std::thread::scope(|s| {
                let endless = s.spawn(|| timed(&endless, &stop_endless));
                let counted = s.spawn(|| timed(&counted, &stop_counted));
                std::thread::sleep(Duration::from_millis(100));
                stop_endless.stop();
                (endless.join().unwrap(), counted.join().unwrap())
            });
        assert_eq!(
            endless_reply.unwrap().turn.len(),
            1,
            "a stopped search gives its move"
        );
        assert!(endless_end < counted_end, "stopped long before its budget");
        let counted_reply = counted_reply.unwrap();
        assert_eq!(
            (counted_reply.turn, counted_reply.value_p0),
            (alone.turn, alone.value_p0),
            "the other search ran its whole budget"
        );
        assert!(!stop_counted.is_stopped());
    }

    #[test]
    fn bad_requests_name_what_is_wrong() {
        let error = position_view(&request("tic_tac_toe", &["a1", "a1"])).unwrap_err();
        assert_eq!(error.status, 400);
        assert!(
            error.message.starts_with("move 2 (\"a1\")"),
            "{}",
            error.message
        );
        let error = position_view(&request("chess", &[])).unwrap_err();
        assert!(error.message.contains("chess"), "{}", error.message);
        let cache = AgentCache::new(Path::new("."));
        let bad_agent = AgentMoveRequest {
            position: request("tic_tac_toe", &[]),
            agent: "mcts:iters=abc".into(),
        };
        let error = agent_move(&bad_agent, &cache).unwrap_err();
        assert!(error.message.contains("iters"), "{}", error.message);
        assert_eq!(
            error.message.matches("mcts:iters=abc").count(),
            1,
            "the spec named once: {}",
            error.message
        );
        let over = AgentMoveRequest {
            position: request("tic_tac_toe", &["a1", "a2", "b1", "b2", "c1"]),
            agent: "random".into(),
        };
        assert!(agent_move(&over, &cache).is_err());
    }

    #[test]
    fn the_cache_keeps_the_agents_used_last() {
        let cache = AgentCache::new(Path::new("."));
        let ask = |iterations: usize| {
            let request = AgentMoveRequest {
                position: request("tic_tac_toe", &[]),
                agent: format!("mcts:iters={iterations}"),
            };
            agent_move(&request, &cache).unwrap();
        };
        for iterations in 1..=CACHED_AGENTS + 2 {
            ask(iterations);
            assert_eq!(cache.len(), iterations.min(CACHED_AGENTS));
        }
        // The oldest kept, used again, becomes the newest: the next new agent drops another.
        ask(3);
        ask(7);
        assert_eq!(
            cache.kept_specs(),
            [
                "mcts:iters=5",
                "mcts:iters=6",
                "mcts:iters=3",
                "mcts:iters=7"
            ]
        );
    }

    #[test]
    fn an_agent_takes_the_win_it_sees() {
        let cache = AgentCache::new(Path::new("."));
        let request = AgentMoveRequest {
            position: request("tic_tac_toe", &["a1", "a2", "b1", "b2"]),
            agent: "ubfms:iters=300".into(),
        };
        let reply = agent_move(&request, &cache).unwrap();
        assert_eq!(reply.chosen, "c1");
        assert_eq!(reply.position.result.as_deref(), Some("Black (p0) wins"));
        assert!(reply.value_p0.is_some());
        // A second request reuses the cached factory and answers the same.
        assert_eq!(agent_move(&request, &cache).unwrap().chosen, "c1");
    }

    /// Plays `agent`'s turn at `moves` and checks that the turn ended: the other side is to
    /// move (or the game is over), and the reply's moves are the turn's.
    fn whole_turn(game: &str, moves: &[&str], agent: &str) -> AgentMoveView {
        let cache = AgentCache::new(Path::new("."));
        let before = position_view(&request(game, moves)).unwrap();
        let request = AgentMoveRequest {
            position: request(game, moves),
            agent: agent.into(),
        };
        let reply = agent_move(&request, &cache).unwrap();
        assert!(
            reply.position.terminal
                || reply.position.to_move != before.to_move
                || (before.players == 1 && reply.turn.len() == 1),
            "{game} after {moves:?}: {} still to move after {:?}",
            before.to_move,
            reply.turn
        );
        assert_eq!(reply.position.moves[moves.len()..], reply.turn[..]);
        assert_eq!(reply.chosen, reply.turn.join(" "));
        reply
    }

    #[test]
    fn an_agent_plays_its_whole_turn_where_a_turn_has_several_actions() {
        // Connect6: one stone to open, then two a turn; asked in the middle of a turn (a page
        // reloaded after the first stone), the agent places the second only.
        assert_eq!(whole_turn("connect6", &[], "random").turn.len(), 1);
        let first = whole_turn("connect6", &["j10"], "mcts:iters=20");
        assert_eq!(first.turn.len(), 2, "{:?}", first.turn);
        assert!(first.value_p0.is_some());
        let rest = whole_turn("connect6", &["j10", &first.turn[0]], "mcts:iters=20");
        assert_eq!(rest.turn.len(), 1);
        // Arimaa: Gold's setup is eight placements; Silver's then too; then turns of steps.
        let gold = whole_turn("arimaa", &[], "random");
        assert_eq!(gold.turn.len(), 8, "{:?}", gold.turn);
        let mut moves = gold.turn.clone();
        moves.extend(whole_turn("arimaa", &strs(&moves), "random").turn);
        assert_eq!(moves.len(), 16);
        let steps = whole_turn("arimaa", &strs(&moves), "random");
        assert!((1..=5).contains(&steps.turn.len()), "{:?}", steps.turn);
        // One action a turn elsewhere, and in a one-player game, where every move is a turn.
        assert_eq!(whole_turn("tic_tac_toe", &["b2"], "random").turn.len(), 1);
        assert_eq!(whole_turn("morpion", &[], "random").turn.len(), 1);
    }

    fn strs(moves: &[String]) -> Vec<&str> {
        moves.iter().map(String::as_str).collect()
    }
}
