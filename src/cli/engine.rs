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
use crate::arena::game_session::MoveRefused;
use crate::arena::{Agent, AgentFactory, AgentRng, AgentSpec, GameSession, parse_player};
use crate::games::{Game, GameExt, GameSpec, GameVisitor, Player};
use crate::settings::config_error::ConfigError;
use crate::settings::duration_text::{MAX_DURATION, seconds_to_duration};
use crate::value::DeviceChoice;

#[derive(Args, Debug)]
pub struct EngineArgs {
    /// The game, e.g. awale (default: the game of the agents' network, `model=`).
    #[arg(long, value_parser = super::parse_game)]
    game: Option<GameSpec>,
    /// The agent answering `genmove`, e.g. `ubfms:model=awale.descent,time=1s`.
    #[arg(long)]
    agent: AgentSpec,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where the network runs: descent-cpu (descent's own engine), or burn's flex, ndarray,
    /// wgpu, cuda:N (all but descent-cpu and flex need their cargo feature).
    #[arg(long, default_value = "descent-cpu")]
    device: DeviceChoice,
}

impl EngineArgs {
    /// `--game`, or the game of the agents' network (`run` sets it).
    fn game(&self) -> &GameSpec {
        self.game.as_ref().expect("run resolves the game first")
    }
}

/// The commands the engine knows (`list_commands`), each with its number of arguments.
pub const COMMANDS: &[(&str, usize)] = &[
    ("protocol_version", 0),
    ("name", 0),
    ("version", 0),
    ("list_commands", 0),
    ("known_command", 1),
    ("clear_board", 0),
    ("play", 2),
    ("genmove", 1),
    ("undo", 0),
    ("showboard", 0),
    ("legal_moves", 0),
    ("final_score", 0),
    ("set_time", 1),
    ("time_settings", 3),
    ("time_left", 3),
    ("quit", 0),
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

/// Why a command failed: the message of the `?` reply.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Refusal(String);

impl From<ConfigError> for Refusal {
    fn from(error: ConfigError) -> Refusal {
        Refusal(error.to_string())
    }
}

impl From<MoveRefused> for Refusal {
    fn from(error: MoveRefused) -> Refusal {
        Refusal(error.to_string())
    }
}

/// The payload of a `=` reply, or why not.
type Answer = Result<String, Refusal>;

fn seconds(text: &str) -> Result<f64, Refusal> {
    text.parse::<f64>()
        .ok()
        .filter(|&s| seconds_to_duration(s).is_some())
        .ok_or_else(|| {
            Refusal(format!(
                "{text:?} is not a number of seconds from 0 to {}",
                MAX_DURATION.as_secs()
            ))
        })
}

fn stones(text: &str) -> Result<u32, Refusal> {
    text.parse::<u32>()
        .map_err(|_| Refusal(format!("{text:?} is not a number of stones")))
}

/// The number of arguments of `command` (`None`: not a command).
fn arity(command: &str) -> Option<usize> {
    COMMANDS
        .iter()
        .find(|(name, _)| *name == command)
        .map(|&(_, arguments)| arguments)
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
    fn set_time(&mut self, per_move: f64) -> Answer {
        if per_move <= 0.0 {
            return Err(Refusal("the time per move must be positive".into()));
        }
        let per_move = seconds_to_duration(per_move)
            .ok_or_else(|| Refusal(format!("{per_move} s is not a time per move")))?;
        self.agent.set_time_per_move(per_move);
        Ok(String::new())
    }

    fn handle(&mut self, command: &str, args: &[&str]) -> Reply {
        if command == "quit" {
            return Reply::Quit;
        }
        let result = match arity(command) {
            None => Err(Refusal(format!(
                "unknown command {command:?} (see list_commands)"
            ))),
            Some(n) if args.len() != n => Err(Refusal(format!(
                "{command} takes {n} argument{}, got {}",
                if n == 1 { "" } else { "s" },
                args.len()
            ))),
            Some(_) => self.run_command(command, args),
        };
        match result {
            Ok(payload) => Reply::Success(payload),
            Err(refusal) => Reply::Failure(refusal.0),
        }
    }

    /// A command with the right number of arguments.
    fn run_command(&mut self, command: &str, args: &[&str]) -> Answer {
        match command {
            "protocol_version" => Ok("2".into()),
            "name" => Ok("descent".into()),
            "version" => Ok(env!("CARGO_PKG_VERSION").into()),
            "list_commands" => {
                let names: Vec<&str> = COMMANDS.iter().map(|&(name, _)| name).collect();
                Ok(names.join("\n"))
            }
            "known_command" => Ok(arity(args[0]).is_some().to_string()),
            "clear_board" => {
                self.session.reset();
                self.agent.new_game();
                Ok(String::new())
            }
            "play" => {
                let player = parse_player(args[0])?;
                self.session.play_text(Some(player), args[1])?;
                Ok(String::new())
            }
            "genmove" => self.genmove(parse_player(args[0])?),
            "undo" => self.undo(),
            "showboard" => Ok(self.showboard()),
            "legal_moves" => {
                let position = self.session.position();
                Ok(if position.is_terminal() {
                    String::new()
                } else {
                    position.legal_moves_text()
                })
            }
            "final_score" => self
                .session
                .final_score()
                .ok_or_else(|| Refusal("the game is not over".into())),
            "set_time" => self.set_time(seconds(args[0])?),
            "time_settings" => self.time_settings(args),
            "time_left" => self.time_left(args),
            _ => unreachable!("COMMANDS names every command"),
        }
    }

    fn genmove(&mut self, player: Player) -> Answer {
        let position = self.session.position().clone();
        if position.is_terminal() {
            return Err(MoveRefused::GameOver.into());
        }
        if position.to_move() != player {
            let to_move = position.to_move();
            return Err(MoveRefused::NotYourMove { to_move, player }.into());
        }
        let choice = self.agent.choose_move(&position, &mut self.rng);
        self.session.play(choice.action);
        Ok(position.move_to_text(choice.action))
    }

    fn undo(&mut self) -> Answer {
        if self.session.undo() {
            self.agent.new_game();
            Ok(String::new())
        } else {
            Err(Refusal("cannot undo: no move played".into()))
        }
    }

    fn showboard(&self) -> String {
        let position = self.session.position();
        let status = match self.session.result_sentence() {
            Some(result) => format!("game over: {result}"),
            None => format!("{} to move", position.to_move()),
        };
        format!("\n{position}\n{status}")
    }

    /// GTP: main time, byo-yomi time, byo-yomi stones. With byo-yomi, the period's time over
    /// its stones; otherwise the main time spread over the moves still to play.
    fn time_settings(&mut self, args: &[&str]) -> Answer {
        let main = seconds(args[0])?;
        let byo = seconds(args[1])?;
        let stones = stones(args[2])?;
        if byo > 0.0 && stones > 0 {
            self.set_time(byo / stones as f64)
        } else {
            self.set_time(main / MOVES_TO_PLAN_FOR)
        }
    }

    /// GTP: player, seconds left, stones left in the period (0: main time).
    fn time_left(&mut self, args: &[&str]) -> Answer {
        parse_player(args[0])?;
        let left = seconds(args[1])?;
        let stones = stones(args[2])?;
        let per_move = if stones > 0 {
            left / stones as f64
        } else {
            left / MOVES_TO_PLAN_FOR
        };
        self.set_time(per_move.max(0.001))
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
        let factory =
            AgentFactory::<G>::new(args.agent.clone(), &args.game().to_string(), &device)?;
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

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(mut args: EngineArgs) -> anyhow::Result<ExitCode> {
    args.game = Some(super::game_or_models_game(
        args.game.take(),
        &[&args.agent],
    )?);
    args.game().visit(EngineVisitor { args: &args })?;
    Ok(ExitCode::SUCCESS)
}
