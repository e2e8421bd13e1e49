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
use crate::games::{Game, GameExt, GameSpec, GameVisitor};

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
    /// The board as text.
    pub picture: String,
    /// The legal moves in the game's notation (none once it is over).
    pub legal: Vec<String>,
    pub terminal: bool,
    /// The result for people ("p0 wins"), once over.
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

/// An agent's reply: its move, its value of the position before it (P0's view, when it
/// searched), and the position after.
#[derive(Clone, Debug, Serialize)]
pub struct AgentMoveView {
    #[serde(rename = "move")]
    pub chosen: String,
    pub value_p0: Option<f32>,
    pub position: PositionView,
}

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

/// The move `request.agent` chooses in the position, and the position after it. The agent's
/// random choices are seeded by the position's moves, so a position asked twice gets the same
/// answer.
///
/// # Errors
/// A bad game or agent spec (or a network that does not load), an illegal move, or a position
/// where the game is over.
pub fn agent_move(
    request: &AgentMoveRequest,
    cache: &AgentCache,
) -> Result<AgentMoveView, WebError> {
    struct Move<'a>(&'a AgentMoveRequest, &'a AgentCache);
    impl GameVisitor for Move<'_> {
        type Output = Result<AgentMoveView, WebError>;
        fn visit<G: Game>(self, initial: G) -> Self::Output {
            let Move(request, cache) = self;
            let game = &request.position.game;
            let (position, mut moves, _) = replay(initial, &request.position.moves)?;
            if position.is_terminal() {
                return Err(WebError::bad_request(
                    "the game is over: the agent has no move",
                ));
            }
            let factory = cache.factory::<G>(game, &request.agent)?;
            let mut agent = factory.build();
            let seed = position.hash() ^ position.ply() as u64;
            let choice = agent.choose_move(&position, &mut AgentRng::seed_from_u64(seed));
            let chosen = position.move_to_text(choice.action);
            let mut after = position.clone();
            after.play(choice.action);
            moves.push(chosen.clone());
            Ok(AgentMoveView {
                chosen,
                value_p0: choice.value_p0,
                position: view(game, &after, moves, position.move_cells(choice.action)),
            })
        }
    }
    parse_game(&request.position.game)?.visit(Move(request, cache))
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
        assert_eq!(won.result.as_deref(), Some("p0 wins"));
        assert_eq!(won.result_p0, Some(1.0));
        assert_eq!(
            won.moves.last().map(String::as_str),
            Some("c1"),
            "the game's spelling"
        );
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
        assert_eq!(reply.position.result.as_deref(), Some("p0 wins"));
        assert!(reply.value_p0.is_some());
        // A second request reuses the cached factory and answers the same.
        assert_eq!(agent_move(&request, &cache).unwrap().chosen, "c1");
    }
}
