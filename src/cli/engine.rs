//! `descent engine`: an agent behind GTP version 2 (the Go Text Protocol) on stdin / stdout —
//! each reply is `=[id] payload` or `?[id] message`, then an empty line; a command may start with
//! a numeric id, which the reply echoes; `#` starts a comment. Players are `b` / `black` (= p0)
//! and `w` / `white` (= p1); moves are in the game's notation, read in either case. `boardsize`
//! and `komi` change the game's parameters (a network plays only the board it was trained on);
//! `genmove` answers `resign` when the agent's value stays hopeless. A refused command leaves
//! the game unchanged.

use std::io::Write;
use std::process::ExitCode;
use std::sync::mpsc::Receiver;

use clap::Args;
use rand::SeedableRng;

mod analysis;

use super::input_lines::{InputLine, InputLines};
use crate::arena::game_session::MoveRefused;
use crate::arena::{Agent, AgentFactory, AgentRng, AgentSpec, GameSession, parse_player};
use crate::games::board_view::Layout;
use crate::games::{Game, GameExt, GameSpec, GameVisitor, MoveError, Player};
use crate::search::TerminalEval;
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
    /// `genmove` answers `resign` once the agent's value for its own side has been at or below
    /// this for `--resign-moves` of its moves in a row; `never`: play on. The value is read on
    /// the scale its network learned: an expected result (−1 lost … +1 won) for the classic
    /// evaluation, a margin as a share of the board's cells for `score` and `presence` (−0.9:
    /// losing by 90 % of the board); with the other evaluations the engine plays on.
    #[arg(long, default_value = "-0.9")]
    resign_below: ResignBelow,
    /// How many of its moves in a row the agent must find hopeless before it resigns.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    resign_moves: u32,
    /// What `version` answers instead of descent's own version, as KataGo's option of the
    /// same name: Lizzie reads `version` as Leela Zero's and freezes on one below 0.15, and
    /// takes an engine started with `override-version` in its command for KataGo
    /// (docs/engine-protocol.md, "In a graphical program").
    #[arg(long, value_name = "VERSION", value_parser = parse_version_text)]
    override_version: Option<String>,
}

/// `--override-version`: one GTP word (no space or control character), at most 64 bytes.
///
/// clap's value parser shows the message as it is: a string is its shape.
fn parse_version_text(text: &str) -> Result<String, String> {
    let word = !text.is_empty() && text.len() <= 64;
    match word && !text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        true => Ok(text.to_string()),
        false => Err(format!(
            "{text:?}: a version is one word of at most 64 bytes, e.g. 0.17"
        )),
    }
}

/// `--resign-below`: a value in [−1, 1], or `never`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResignBelow(pub Option<f32>);

impl std::str::FromStr for ResignBelow {
    /// clap's value parser shows the message as it is: a string is its shape.
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text == "never" {
            return Ok(ResignBelow(None));
        }
        text.parse::<f32>()
            .ok()
            .filter(|v| (-1.0..=1.0).contains(v))
            .map(|v| ResignBelow(Some(v)))
            .ok_or_else(|| format!("{text:?}: expected a value from -1 to 1, or never"))
    }
}

/// When the engine resigns: its value for its own side, read on `scale`, at or below `below`
/// for `moves` of its moves in a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResignRule {
    pub below: Option<f32>,
    pub moves: u32,
    pub scale: ValueScale,
}

impl ResignRule {
    pub const NEVER: ResignRule = ResignRule {
        below: None,
        moves: 1,
        scale: ValueScale::Unreadable,
    };
}

/// How an agent's values read as a chance of winning, for the resign rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValueScale {
    /// An expected result, −1 lost … +1 won (the classic evaluation; agents without a network).
    Outcome,
    /// A margin of points or pieces (`score`, `presence`), read as a share of `cells`, the
    /// board's cells: −7.5 on 9 × 9 is −0.09, not a lost game.
    Margin { cells: f32 },
    /// Values that say nothing of the odds (depth, mobility): the engine plays on.
    Unreadable,
}

impl ValueScale {
    /// The scale of values learned with `terminal_eval` in a game of `G`.
    pub fn of<G: Game>(terminal_eval: TerminalEval) -> ValueScale {
        let [_, rows, cols] = G::ENCODING.dims();
        match terminal_eval {
            TerminalEval::Classic => ValueScale::Outcome,
            TerminalEval::Score | TerminalEval::Presence => ValueScale::Margin {
                cells: (rows * cols).max(1) as f32,
            },
            _ => ValueScale::Unreadable,
        }
    }

    /// `value` on the resign threshold's scale (−1 … +1), `None` where it cannot be read so.
    pub fn reading(self, value: f32) -> Option<f32> {
        match self {
            ValueScale::Outcome => Some(value),
            ValueScale::Margin { cells } => Some((value / cells).clamp(-1.0, 1.0)),
            ValueScale::Unreadable => None,
        }
        .filter(|v| v.is_finite())
    }
}

/// The commands the engine knows (`list_commands`), each with its number of arguments.
pub const COMMANDS: &[(&str, usize)] = &[
    ("protocol_version", 0),
    ("name", 0),
    ("version", 0),
    ("list_commands", 0),
    ("known_command", 1),
    ("boardsize", 1),
    ("komi", 1),
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
    // descent's extension: the game played, as a spec (`go(komi=7,superko=illegal)`), which
    // `gtp-match` reads to agree the rules before a match.
    ("descent-game", 0),
];

/// Moves assumed left in the game when a time control gives no moves count (`time_left` with
/// 0 stones, `time_settings` without byo-yomi).
const MOVES_TO_PLAN_FOR: f64 = 30.0;

/// The engine's state: the game and the agent. `respond` answers one line of the protocol.
pub struct Engine<G: Game> {
    session: GameSession<G>,
    agent: Box<dyn Agent<G>>,
    rng: AgentRng,
    /// The game played, as GTP's `boardsize` and `komi` left it.
    rules: GameSpec,
    /// The game the agent's network was trained on (`None`: no network); boards of another
    /// size are refused, another komi is played with the network's values.
    network_game: Option<GameSpec>,
    resign: ResignRule,
    /// The agent's moves in a row found hopeless so far.
    hopeless_moves: u32,
    /// A game of another type asked for by `boardsize` (Go's 9 × 9 to 11 × 11): the caller
    /// starts an engine for it.
    switch_to: Option<GameSpec>,
    /// What `version` answers.
    version: String,
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

/// `line` without its comment (`#` on) and control characters, tabs as spaces (GTP 2,
/// section 2.3).
fn cleaned_line(line: &str) -> String {
    line.split('#')
        .next()
        .unwrap_or("")
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

/// The number of arguments of `command` (`None`: not a command).
fn arity(command: &str) -> Option<usize> {
    COMMANDS
        .iter()
        .find(|(name, _)| *name == command)
        .map(|&(_, arguments)| arguments)
}

impl<G: Game> Engine<G> {
    /// An engine playing `agent` in the game `rules` (of type `G`), its random choices seeded
    /// by `seed`; it never resigns (see [`Engine::with_resign`]).
    ///
    /// # Panics
    /// `rules` is not a game of type `G`.
    pub fn new(rules: GameSpec, agent: Box<dyn Agent<G>>, seed: u64) -> Engine<G> {
        let initial = rules
            .initial_as::<G>()
            .unwrap_or_else(|| panic!("{rules} is not a {}", G::NAME));
        Engine {
            session: GameSession::new(initial),
            agent,
            rng: AgentRng::seed_from_u64(seed),
            rules,
            network_game: None,
            resign: ResignRule::NEVER,
            hopeless_moves: 0,
            switch_to: None,
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    /// The same engine resigning by `resign`.
    pub fn with_resign(mut self, resign: ResignRule) -> Engine<G> {
        self.resign = resign;
        self
    }

    /// The same engine answering `version` with `version` (`None`: descent's own).
    pub fn with_version(mut self, version: Option<String>) -> Engine<G> {
        if let Some(version) = version {
            self.version = version;
        }
        self
    }

    /// The same engine knowing that its agent's network was trained on `game`.
    pub fn with_network_game(mut self, game: Option<GameSpec>) -> Engine<G> {
        self.network_game = game;
        self
    }

    /// The game of another type that the last command asked for (`boardsize`), once.
    pub fn take_switch(&mut self) -> Option<GameSpec> {
        self.switch_to.take()
    }

    /// The reply to one input line — `=[id] payload` or `?[id] message`, then an empty line —
    /// and whether it ends the session; `None` for a line with no command (blank, comment).
    /// Control characters other than tab are removed, tabs become spaces, `#` starts a comment
    /// (GTP 2, section 2.3).
    pub fn respond(&mut self, line: &str) -> Option<(String, bool)> {
        let cleaned = cleaned_line(line);
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
    /// The agent's time per move; 0 too (a search runs at least one iteration).
    fn set_time(&mut self, per_move: f64) -> Answer {
        let per_move = seconds_to_duration(per_move)
            .ok_or_else(|| Refusal(format!("{per_move} s is not a time per move")))?;
        self.agent.set_time_per_move(per_move);
        Ok(String::new())
    }

    fn handle(&mut self, command: &str, args: &[&str]) -> Reply {
        if command == "quit" {
            return Reply::Quit;
        }
        if analysis::COMMANDS.contains(&command) {
            // Answered by the session's input loop (`analysis`), which streams the reply.
            return Reply::Failure(format!("{command} streams its reply: not here"));
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
            "version" => Ok(self.version.clone()),
            "list_commands" => {
                let names: Vec<&str> = COMMANDS.iter().map(|&(name, _)| name).collect();
                Ok([names.as_slice(), analysis::COMMANDS].concat().join("\n"))
            }
            "known_command" => {
                Ok((arity(args[0]).is_some() || analysis::COMMANDS.contains(&args[0])).to_string())
            }
            "boardsize" => self.boardsize(args[0]),
            "komi" => self.komi(args[0]),
            "clear_board" => {
                self.session.reset();
                self.new_game();
                Ok(String::new())
            }
            "play" => self.play(parse_player(args[0])?, args[1]),
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
            "descent-game" => Ok(self.rules.to_string()),
            _ => unreachable!("COMMANDS names every command"),
        }
    }

    fn new_game(&mut self) {
        self.agent.new_game();
        self.hopeless_moves = 0;
    }

    /// Plays `text` for `player`, in either case (GTP's `D4` is `d4`).
    fn play(&mut self, player: Player, text: &str) -> Answer {
        match self.session.play_text(Some(player), text) {
            Err(MoveRefused::Move(MoveError::WrongCase { meant, .. })) => {
                self.session.play_text(Some(player), &meant)?
            }
            played => played?,
        };
        Ok(String::new())
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
        if self.hopeless(player, choice.value_p0) {
            return Ok("resign".into());
        }
        self.session.play(choice.action);
        let text = position.move_to_text(choice.action);
        Ok(if G::GTP_UPPER_CASE {
            text.to_uppercase()
        } else {
            text
        })
    }

    /// Counts the agent's hopeless moves in a row (its value for `player` at or below the
    /// resign threshold); whether it is time to resign.
    fn hopeless(&mut self, player: Player, value_p0: Option<f32>) -> bool {
        let value = value_p0
            .map(|v| if player == Player::P0 { v } else { -v })
            .and_then(|v| self.resign.scale.reading(v));
        match (self.resign.below, value) {
            (Some(below), Some(value)) if value <= below => self.hopeless_moves += 1,
            _ => self.hopeless_moves = 0,
        }
        self.hopeless_moves >= self.resign.moves
    }

    /// GTP's `boardsize`: a new game on a board of `text` cells a side, the other parameters
    /// kept; "unacceptable size" for a size the game (or the agent's network) does not have.
    fn boardsize(&mut self, text: &str) -> Answer {
        let size: usize = text
            .parse()
            .map_err(|_| Refusal(format!("{text:?} is not a board size")))?;
        let rules = if self.rules.has_param("board_size") {
            self.rules
                .with_param("board_size", &size.to_string())
                .map_err(|e| Refusal(format!("unacceptable size: {e}")))?
        } else {
            match board_side(&self.session.position().board_view().layout) {
                Some(side) if side == size => self.rules.clone(),
                side => {
                    let only = side.map_or(String::new(), |s| format!(" ({s} only)"));
                    return Err(Refusal(format!(
                        "unacceptable size: {} has one board size{only}",
                        self.rules.name()
                    )));
                }
            }
        };
        self.check_network_plays(&rules)?;
        self.session.reset();
        self.change_rules(rules, false)?;
        Ok(String::new())
    }

    /// GTP's `komi`: the points given to White from now on, the moves kept. Games without a
    /// komi accept and ignore it, as GTP asks of every engine.
    /// The text is a number and nothing else: never a fragment of the game's specification.
    fn komi(&mut self, text: &str) -> Answer {
        let komi = text
            .parse::<f64>()
            .ok()
            .filter(|k| k.is_finite())
            .ok_or_else(|| Refusal(format!("{text:?} is not a komi (a number)")))?;
        if !self.rules.has_param("komi") {
            return Ok(String::new());
        }
        let rules = self
            .rules
            .with_param("komi", &komi.to_string())
            .map_err(|e| Refusal(format!("komi {text:?}: {e}")))?;
        self.check_network_plays(&rules)?;
        if let Some(network) = &self.network_game
            && network.param("komi") != rules.param("komi")
        {
            eprintln!(
                "descent engine: the network was trained on {network}; it now plays {rules} with the same values"
            );
        }
        self.change_rules(rules, true)?;
        Ok(String::new())
    }

    /// Refuses a game the agent's network was not trained on (the rules of play aside).
    fn check_network_plays(&self, rules: &GameSpec) -> Result<(), Refusal> {
        match &self.network_game {
            Some(network) if !rules.plays_networks_of(network) => Err(Refusal(format!(
                "unacceptable size: the agent's network plays {network} only"
            ))),
            _ => Ok(()),
        }
    }

    /// Plays `rules` from now on: the moves so far replayed when `keep_moves` (a new komi);
    /// a game of another type is left to the caller (`take_switch`).
    /// Refused, nothing changed, where the moves so far are not a game of `rules`.
    fn change_rules(&mut self, rules: GameSpec, keep_moves: bool) -> Result<(), Refusal> {
        let Some(initial) = rules.initial_as::<G>() else {
            self.switch_to = Some(rules.clone());
            self.rules = rules;
            return Ok(());
        };
        let mut session = GameSession::new(initial);
        if keep_moves {
            for text in self.session.moves() {
                session.play_text(None, text).map_err(|e| {
                    Refusal(format!(
                        "{rules}: the move {text} of this game would be refused ({e})"
                    ))
                })?;
            }
        }
        self.session = session;
        self.rules = rules;
        self.new_game();
        Ok(())
    }

    fn undo(&mut self) -> Answer {
        if self.session.undo() {
            self.new_game();
            Ok(String::new())
        } else {
            Err(Refusal("cannot undo: no move played".into()))
        }
    }

    fn showboard(&self) -> String {
        let position = self.session.position();
        let status = match self.session.result_sentence() {
            Some(result) => format!("game over: {result}"),
            None => format!("{} to move", G::side_text(position.to_move())),
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

/// The side of a square or hexagonal board (`boardsize`'s number), `None` for other boards.
fn board_side(layout: &Layout) -> Option<usize> {
    match *layout {
        Layout::Squares { rows, cols, .. } | Layout::Intersections { rows, cols, .. }
            if rows == cols =>
        {
            Some(rows)
        }
        Layout::HexRhombus { size, .. } => Some(size),
        Layout::Hexagon { side } => Some(side),
        _ => None,
    }
}

/// How a game's session ended: input over or `quit`, or `boardsize` asked for a game of
/// another type.
enum SessionEnd {
    Over,
    Switch(GameSpec),
}

/// Answers the protocol in one game type until the input ends, `quit`, or a switch of type.
struct EngineSession<'a> {
    args: &'a EngineArgs,
    rules: GameSpec,
    network_game: Option<GameSpec>,
    /// The input's lines, read on their own thread (an analysis watches for the next one).
    lines: &'a Receiver<std::io::Result<InputLine>>,
}

/// The lines of the standard input, read on a thread of their own.
fn stdin_lines() -> Receiver<std::io::Result<InputLine>> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = InputLines::new(std::io::stdin().lock());
        loop {
            let line = lines.next_line().transpose();
            let end = !matches!(line, Some(Ok(_)));
            if let Some(line) = line
                && send.send(line).is_err()
            {
                return;
            }
            if end {
                return;
            }
        }
    });
    receive
}

impl GameVisitor for EngineSession<'_> {
    type Output = anyhow::Result<SessionEnd>;

    fn visit<G: Game>(self, _initial: G) -> Self::Output {
        let args = self.args;
        let device = args.device.device().map_err(anyhow::Error::msg)?;
        // The network is loaded for the game it was trained on (the rules of play may differ).
        let network_game = self.network_game.as_ref().unwrap_or(&self.rules);
        let factory =
            AgentFactory::<G>::new(args.agent.clone(), &network_game.to_string(), &device)?;
        let resign = ResignRule {
            below: args.resign_below.0,
            moves: args.resign_moves,
            scale: ValueScale::of::<G>(factory.terminal_eval()),
        };
        let mut engine = Engine::<G>::new(self.rules, factory.build(), args.seed)
            .with_resign(resign)
            .with_network_game(self.network_game)
            .with_version(args.override_version.clone());
        let mut out = std::io::stdout().lock();
        let mut stopping_line = None;
        loop {
            let line = match stopping_line.take() {
                Some(line) => line,
                None => match self.lines.recv() {
                    Ok(line) => line,
                    Err(_) => break,
                },
            }?;
            if let InputLine::Text(text) = &line {
                let cleaned = cleaned_line(text);
                let words: Vec<&str> = cleaned.split_whitespace().collect();
                match analysis::parse(&words) {
                    Some(Ok(request)) => {
                        match engine.analyse(&request, self.lines, &mut out)? {
                            Some(analysis::Stopped::By(line)) => stopping_line = Some(line),
                            Some(analysis::Stopped::InputClosed) => break,
                            None => {}
                        }
                        continue;
                    }
                    Some(Err(reply)) => {
                        out.write_all(reply.as_bytes())?;
                        out.flush()?;
                        continue;
                    }
                    None => {}
                }
            }
            let reply = match line {
                InputLine::Text(line) => engine.respond(&line),
                InputLine::Refused(why) => Some((format!("? {why}\n\n"), false)),
            };
            if let Some((text, quit)) = reply {
                out.write_all(text.as_bytes())?;
                out.flush()?;
                if quit {
                    return Ok(SessionEnd::Over);
                }
            }
            if let Some(rules) = engine.take_switch() {
                return Ok(SessionEnd::Switch(rules));
            }
        }
        Ok(SessionEnd::Over)
    }
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(args: EngineArgs) -> anyhow::Result<ExitCode> {
    // The network's manifest is read once: it gives the default game and the boards it plays.
    let network_game = super::models_game(&[&args.agent])?;
    let Some(mut rules) = args.game.clone().or_else(|| network_game.clone()) else {
        anyhow::bail!(super::GIVE_GAME);
    };
    if let Some(network) = &network_game {
        anyhow::ensure!(
            rules.plays_networks_of(network),
            "--game {rules}: the agent's network was trained on {network} (only the rules of play, such as Go's komi, may differ)"
        );
    }
    let lines = stdin_lines();
    loop {
        let session = EngineSession {
            args: &args,
            rules: rules.clone(),
            network_game: network_game.clone(),
            lines: &lines,
        };
        match rules.clone().visit(session)? {
            SessionEnd::Over => return Ok(ExitCode::SUCCESS),
            SessionEnd::Switch(next) => rules = next,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Black facing komi 7.5 with a score network sits near −7.5 points: not a lost game.
    #[test]
    fn a_score_networks_margin_is_read_as_a_share_of_the_board() {
        use crate::games::Go;
        let rules: GameSpec = "go".parse().unwrap();
        let random = AgentFactory::<Go<9>>::new(
            "random".parse().unwrap(),
            "go",
            &crate::value::NetDevice::cpu(),
        )
        .unwrap();
        let resign = ResignRule {
            below: Some(-0.9),
            moves: 3,
            scale: ValueScale::of::<Go<9>>(TerminalEval::Score),
        };
        let mut engine = Engine::<Go<9>>::new(rules, random.build(), 1).with_resign(resign);
        for _ in 0..10 {
            assert!(!engine.hopeless(Player::P0, Some(-7.5)));
            assert!(!engine.hopeless(Player::P1, Some(7.5)));
        }
        // Behind by 75 of 81 points, three moves in a row: lost.
        assert!(!engine.hopeless(Player::P0, Some(-75.0)));
        assert!(!engine.hopeless(Player::P0, Some(-75.0)));
        assert!(engine.hopeless(Player::P0, Some(-75.0)));
        // The classic scale reads values as they are; depth evaluations are never read.
        assert_eq!(
            ValueScale::of::<Go<9>>(TerminalEval::Classic).reading(-0.95),
            Some(-0.95)
        );
        let depth = TerminalEval::AdditiveDepth {
            max_length: 100.0,
            estimated: false,
        };
        assert_eq!(ValueScale::of::<Go<9>>(depth).reading(-50.0), None);
    }

    #[test]
    fn resign_thresholds_are_values_or_never() {
        assert_eq!("never".parse::<ResignBelow>(), Ok(ResignBelow(None)));
        assert_eq!("-0.5".parse::<ResignBelow>(), Ok(ResignBelow(Some(-0.5))));
        assert!("-1.5".parse::<ResignBelow>().unwrap_err().contains("-1.5"));
        assert!("NaN".parse::<ResignBelow>().is_err());
    }
}
