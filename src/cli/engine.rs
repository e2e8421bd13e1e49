//! `descent engine`: an agent behind a text protocol on stdin / stdout with GTP version 2
//! framing — each reply is `=[id] payload` or `?[id] message`, then an empty line; a command may
//! start with a numeric id, which the reply echoes; `#` starts a comment. Players are `p0` / `p1`
//! (`b` / `black` = p0, `w` / `white` = p1); moves are in the game's notation. A refused command
//! leaves the game unchanged.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use rand::SeedableRng;

use super::input_lines::{InputLine, InputLines};
use crate::arena::{Agent, AgentFactory, AgentRng, AgentSpec, GameSession, parse_player};
use crate::games::{Game, GameExt, GameSpec, GameVisitor};
use crate::search::duration_text::{MAX_DURATION, seconds_to_duration};
use crate::value::DeviceChoice;

#[derive(Args, Debug)]
pub struct EngineArgs {
    /// The game, e.g. awale.
    #[arg(long, value_parser = super::parse_game)]
    game: GameSpec,
    /// The agent answering `genmove`, e.g. `ubfms:model=awale.descent,time=1s`.
    #[arg(long)]
    agent: AgentSpec,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where the network runs: cpu, flex, ndarray, wgpu, cuda:N (all but cpu and flex need
    /// their cargo feature).
    #[arg(long, default_value = "cpu")]
    device: DeviceChoice,
}

/// The commands the engine knows (`list_commands`).
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "list_commands",
    "known_command",
    "clear_board",
    "play",
    "genmove",
    "undo",
    "showboard",
    "legal_moves",
    "final_score",
    "set_time",
    "time_settings",
    "time_left",
    "quit",
];

/// Moves assumed left in the game when a time control gives no moves count (`time_left` with
/// 0 stones, `time_settings` without byo-yomi).
const MOVES_TO_PLAN_FOR: f64 = 30.0;

/// The engine's state: the game and the agent. `respond` answers one line of the protocol.
pub struct Engine<G: Game> {
    session: GameSession<G>,
    agent: Box<dyn Agent<G>>,
    rng: AgentRng,
}

enum Reply {
    Success(String),
    Failure(String),
    Quit,
}

fn seconds(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|&s| seconds_to_duration(s).is_some())
        .ok_or_else(|| {
            format!(
                "{text:?} is not a number of seconds from 0 to {}",
                MAX_DURATION.as_secs()
            )
        })
}

fn stones(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .map_err(|_| format!("{text:?} is not a number of stones"))
}

impl<G: Game> Engine<G> {
    /// An engine playing `agent` from `initial`, its random choices seeded by `seed`.
    pub fn new(initial: G, agent: Box<dyn Agent<G>>, seed: u64) -> Engine<G> {
        Engine {
            session: GameSession::new(initial),
            agent,
            rng: AgentRng::seed_from_u64(seed),
        }
    }

    /// The reply to one input line — `=[id] payload` or `?[id] message`, then an empty line —
    /// and whether it ends the session; `None` for a line with no command (blank, comment).
    /// Control characters other than tab are removed, tabs become spaces, `#` starts a comment
    /// (GTP 2, section 2.3).
    pub fn respond(&mut self, line: &str) -> Option<(String, bool)> {
        let cleaned: String = line
            .split('#')
            .next()
            .unwrap_or("")
            .chars()
            .filter_map(|c| match c {
                '\t' => Some(' '),
                c if c.is_control() => None,
                c => Some(c),
            })
            .collect();
        let mut words = cleaned.split_whitespace();
        let first = words.next()?;
        let (id, command) = match first.parse::<u64>() {
            Ok(id) => match words.next() {
                Some(command) => (id.to_string(), command),
                None => return Some((format!("?{id} missing command\n\n"), false)),
            },
            Err(_) => (String::new(), first),
        };
        let rest: Vec<&str> = words.collect();
        Some(match self.handle(command, &rest) {
            Reply::Success(payload) => (format!("={id} {payload}\n\n"), false),
            Reply::Failure(message) => (format!("?{id} {message}\n\n"), false),
            Reply::Quit => (format!("={id} \n\n"), true),
        })
    }

    /// Sets the agent's time per move; a search always runs at least one iteration, so a
    /// tiny time still gives a legal move.
    fn set_time(&mut self, per_move: f64) -> Result<String, String> {
        if per_move <= 0.0 {
            return Err("the time per move must be positive".into());
        }
        let per_move = seconds_to_duration(per_move)
            .ok_or_else(|| format!("{per_move} s is not a time per move"))?;
        self.agent.set_time_per_move(per_move);
        Ok(String::new())
    }

    fn handle(&mut self, command: &str, args: &[&str]) -> Reply {
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(format!(
                    "{command} takes {n} argument{}, got {}",
                    if n == 1 { "" } else { "s" },
                    args.len()
                ))
            }
        };
        let result: Result<String, String> = match command {
            "protocol_version" => arity(0).map(|_| "2".into()),
            "name" => arity(0).map(|_| "descent".into()),
            "version" => arity(0).map(|_| env!("CARGO_PKG_VERSION").into()),
            "list_commands" => arity(0).map(|_| COMMANDS.join("\n")),
            "known_command" => arity(1).map(|_| COMMANDS.contains(&args[0]).to_string()),
            "quit" => return Reply::Quit,
            "clear_board" => arity(0).map(|_| {
                self.session.reset();
                self.agent.new_game();
                String::new()
            }),
            "play" => arity(2).and_then(|_| {
                let player = parse_player(args[0])?;
                self.session
                    .play_text(Some(player), args[1])
                    .map(|_| String::new())
            }),
            "genmove" => arity(1).and_then(|_| {
                let player = parse_player(args[0])?;
                let position = self.session.position().clone();
                if position.is_terminal() {
                    return Err("the game is over".into());
                }
                if position.to_move() != player {
                    return Err(format!(
                        "it is {}'s move, not {player}'s",
                        position.to_move()
                    ));
                }
                let choice = self.agent.choose_move(&position, &mut self.rng);
                self.session.play(choice.action);
                Ok(G::action_to_text(player, choice.action))
            }),
            "undo" => arity(0).and_then(|_| {
                if self.session.undo() {
                    self.agent.new_game();
                    Ok(String::new())
                } else {
                    Err("cannot undo: no move played".into())
                }
            }),
            "showboard" => arity(0).map(|_| {
                let position = self.session.position();
                let status = match self.session.result_sentence() {
                    Some(result) => format!("game over: {result}"),
                    None => format!("{} to move", position.to_move()),
                };
                format!("\n{position}\n{status}")
            }),
            "legal_moves" => arity(0).map(|_| {
                let position = self.session.position();
                if position.is_terminal() {
                    String::new()
                } else {
                    position.legal_moves_text()
                }
            }),
            "final_score" => arity(0).and_then(|_| {
                self.session
                    .final_score()
                    .ok_or_else(|| "the game is not over".to_string())
            }),
            "set_time" => arity(1).and_then(|_| self.set_time(seconds(args[0])?)),
            // GTP: main time, byo-yomi time, byo-yomi stones. With byo-yomi, the period's time
            // over its stones; otherwise the main time spread over the moves still to play.
            "time_settings" => arity(3).and_then(|_| {
                let main = seconds(args[0])?;
                let byo = seconds(args[1])?;
                let stones = stones(args[2])?;
                if byo > 0.0 && stones > 0 {
                    self.set_time(byo / stones as f64)
                } else {
                    self.set_time(main / MOVES_TO_PLAN_FOR)
                }
            }),
            // GTP: player, seconds left, stones left in the period (0: main time).
            "time_left" => arity(3).and_then(|_| {
                parse_player(args[0])?;
                let left = seconds(args[1])?;
                let stones = stones(args[2])?;
                let per_move = if stones > 0 {
                    left / stones as f64
                } else {
                    left / MOVES_TO_PLAN_FOR
                };
                self.set_time(per_move.max(0.001))
            }),
            _ => Err(format!("unknown command {command:?} (see list_commands)")),
        };
        match result {
            Ok(payload) => Reply::Success(payload),
            Err(message) => Reply::Failure(message),
        }
    }
}

struct EngineVisitor<'a> {
    args: &'a EngineArgs,
}

impl GameVisitor for EngineVisitor<'_> {
    type Output = anyhow::Result<()>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let args = self.args;
        let device = args.device.device().map_err(anyhow::Error::msg)?;
        let factory = AgentFactory::<G>::new(args.agent.clone(), &args.game.to_string(), &device)?;
        let mut engine = Engine::new(initial, factory.build(), args.seed);
        let mut lines = InputLines::new(std::io::stdin().lock());
        let mut out = std::io::stdout().lock();
        while let Some(line) = lines.next_line()? {
            let reply = match line {
                InputLine::Text(line) => engine.respond(&line),
                InputLine::NotUtf8 => Some((format!("? {}\n\n", InputLine::NOT_UTF8), false)),
            };
            if let Some((text, quit)) = reply {
                out.write_all(text.as_bytes())?;
                out.flush()?;
                if quit {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

pub fn run(args: EngineArgs) -> anyhow::Result<ExitCode> {
    args.game.visit(EngineVisitor { args: &args })?;
    Ok(ExitCode::SUCCESS)
}
