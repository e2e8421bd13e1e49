//! `descent play`: a person against an agent at the terminal.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use rand::SeedableRng;

use super::input_lines::{InputLine, InputLines};
use crate::arena::{Agent, AgentFactory, AgentRng, AgentSpec, GameSession, Side};
use crate::games::{Game, GameExt, GameSpec, GameVisitor, Player};
use crate::settings::DurationText;
use crate::settings::files::{Existing, check_output, write_atomically};
use crate::value::DeviceChoice;

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The game, e.g. awale (default: the game of the agents' network, `model=`).
    #[arg(long, value_parser = super::parse_game)]
    game: Option<GameSpec>,
    /// Your opponent, e.g. `ubfms:model=awale.descent,time=1s`.
    #[arg(long)]
    agent: AgentSpec,
    /// Your side: p0 (moves first) or p1.
    #[arg(long = "as", default_value = "p0")]
    side: Side,
    /// Thinking time per move of the agent (replaces the spec's budget).
    #[arg(long)]
    time: Option<DurationText>,
    /// When the game ends or you quit, writes it to this file in its community's format (SGF
    /// for go, othello, gomoku and hex; PDN for draughts).
    #[arg(long)]
    save: Option<std::path::PathBuf>,
    /// Replace an existing `--save` file.
    #[arg(long)]
    force: bool,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where the network runs: descent-cpu (descent's own engine), or burn's flex, ndarray,
    /// wgpu, cuda:N (all but descent-cpu and flex need their cargo feature).
    #[arg(long, default_value = "descent-cpu")]
    device: DeviceChoice,
}

impl PlayArgs {
    /// `--game`, or the game of the agents' network (`run` sets it).
    fn game(&self) -> &GameSpec {
        self.game.as_ref().expect("run resolves the game first")
    }
}

const HELP: &str = "commands: a move in the game's notation, `undo` (take back your last move), `hint` (what the agent would play for you), `moves` (the game so far), `legal` (every legal move), `help`, `quit`";

/// The most legal moves the prompt lists; `legal` lists them all.
const LEGAL_MOVES_SHOWN: usize = 40;

/// The legal moves for the prompt: all of them, or the first `LEGAL_MOVES_SHOWN` and how many
/// more (a Connect6 or Go turn has hundreds).
fn legal_moves_shown<G: Game>(position: &G) -> String {
    let mut actions = Vec::with_capacity(G::NUM_ACTIONS);
    position.legal_actions(&mut actions);
    let shown: Vec<String> = actions
        .iter()
        .take(LEGAL_MOVES_SHOWN)
        .map(|&a| position.move_to_text(a))
        .collect();
    match actions.len().checked_sub(LEGAL_MOVES_SHOWN) {
        Some(more) if more > 0 => {
            format!("{} … and {more} more (`legal` lists them)", shown.join(" "))
        }
        _ => shown.join(" "),
    }
}

struct PlayVisitor<'a> {
    args: &'a PlayArgs,
}

impl GameVisitor for PlayVisitor<'_> {
    type Output = anyhow::Result<()>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let args = self.args;
        let device = args.device.device()?;
        let factory =
            AgentFactory::<G>::new(args.agent.clone(), &args.game().to_string(), &device)?;
        let mut game = TerminalGame {
            args,
            agent: factory.build(),
            adviser: factory.build(),
            rng: AgentRng::seed_from_u64(args.seed),
            human: args.side.0,
            session: GameSession::new(initial.clone()),
        };
        if let Some(time) = args.time {
            game.agent.set_time_per_move(time.0);
            game.adviser.set_time_per_move(time.0);
        }
        let mut lines = InputLines::new(std::io::stdin().lock());
        println!(
            "You play {} against {} on {}. Notation: {}.\n{HELP}",
            G::side_text(game.human),
            args.agent,
            args.game(),
            G::notation_help()
        );
        loop {
            let position = game.session.position().clone();
            if let Some(result) = game.session.result_sentence() {
                println!(
                    "\n{}\n\nGame over: {result}; you played {}.",
                    board_text(&position),
                    G::side_text(game.human)
                );
                println!("moves: {}", game.session.moves().join(" "));
                return game.save(&initial);
            }
            if position.to_move() != game.human {
                game.agent_moves(&position);
            } else if game.human_turn(&position, &mut lines)? == Turn::Quit {
                return game.save(&initial);
            }
        }
    }
}

/// A game at the terminal between a person and an agent.
struct TerminalGame<'a, G: Game> {
    args: &'a PlayArgs,
    agent: Box<dyn Agent<G>>,
    /// The same agent, asked for hints.
    adviser: Box<dyn Agent<G>>,
    rng: AgentRng,
    human: Player,
    session: GameSession<G>,
}

/// How a person's turn ended.
#[derive(PartialEq, Eq)]
enum Turn {
    Played,
    Quit,
}

impl<G: Game> TerminalGame<'_, G> {
    /// Writes the game to `--save`, if given.
    fn save(&self, initial: &G) -> anyhow::Result<()> {
        let Some(path) = &self.args.save else {
            return Ok(());
        };
        let agent = self.args.agent.to_string();
        let players = match self.human {
            Player::P0 => ["you".to_string(), agent],
            Player::P1 => [agent, "you".to_string()],
        };
        let text = super::game_files::record_text(
            self.args.game(),
            initial,
            self.session.moves(),
            players,
            "descent play",
        )?;
        write_atomically(
            path,
            text.as_bytes(),
            Existing::replaced_if(self.args.force),
        )?;
        println!("game saved to {}", path.display());
        Ok(())
    }

    fn agent_moves(&mut self, position: &G) {
        let choice = self.agent.choose_move(position, &mut self.rng);
        let mover = position.to_move();
        let text = position.move_to_text(choice.action);
        match choice.value_p0 {
            Some(v) => println!(
                "{} plays {text} (its value: {:+.2})",
                self.args.agent,
                v * mover.sign() + 0.0
            ),
            None => println!("{} plays {text}", self.args.agent),
        }
        self.session.play(choice.action);
    }

    /// Reads commands until the person plays a move (or takes one back), or quits.
    fn human_turn<R: std::io::BufRead>(
        &mut self,
        position: &G,
        lines: &mut InputLines<R>,
    ) -> anyhow::Result<Turn> {
        let human = self.human;
        println!("\n{}\n", board_text(position));
        println!(
            "your move ({}); legal: {}",
            G::side_text(human),
            legal_moves_shown(position)
        );
        loop {
            print!("> ");
            std::io::stdout().flush()?;
            let line = match lines.next_line()? {
                None => {
                    println!("\nquit");
                    return Ok(Turn::Quit);
                }
                Some(InputLine::Refused(why)) => {
                    println!("{why}; {HELP}");
                    continue;
                }
                Some(InputLine::Text(line)) => line,
            };
            match line.trim() {
                "" => continue,
                "quit" | "exit" => {
                    println!("bye");
                    return Ok(Turn::Quit);
                }
                "help" | "?" => println!("{HELP}"),
                "moves" => println!("moves: {}", self.session.moves().join(" ")),
                "legal" => println!("legal: {}", position.legal_moves_text()),
                "hint" => self.hint(position),
                "undo" if undo_to_previous_turn(&mut self.session, human) => {
                    self.agent.new_game();
                    return Ok(Turn::Played);
                }
                "undo" => println!("nothing to undo"),
                text => match self.session.play_text(Some(human), text) {
                    Ok(_) => return Ok(Turn::Played),
                    Err(e) => println!("{e}"),
                },
            }
        }
    }

    fn hint(&mut self, position: &G) {
        self.adviser.new_game();
        let choice = self.adviser.choose_move(position, &mut self.rng);
        let text = position.move_to_text(choice.action);
        match choice.value_p0 {
            Some(v) => println!(
                "hint: {text} (value for you: {:+.2})",
                v * self.human.sign() + 0.0
            ),
            None => println!("hint: {text}"),
        }
    }
}

/// Takes back moves until the human's previous turn (their last move and the replies to it).
fn undo_to_previous_turn<G: Game>(session: &mut GameSession<G>, human: Player) -> bool {
    let mut undone = session.clone();
    loop {
        if !undone.undo() {
            return false;
        }
        if undone.position().to_move() == human {
            *session = undone;
            return true;
        }
    }
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(mut args: PlayArgs) -> anyhow::Result<ExitCode> {
    args.game = Some(super::game_or_models_game(
        args.game.take(),
        &[&args.agent],
    )?);
    if args.save.is_some() && super::game_files::record_extension(args.game()).is_none() {
        anyhow::bail!(
            "--save: {} has no standard game file (SGF records go, othello, gomoku and hex; PDN records draughts)",
            args.game()
        );
    }
    // Checked before the game: a bad path must not lose the game just played.
    if let Some(path) = &args.save {
        check_output(path, Existing::replaced_if(args.force))
            .map_err(|e| anyhow::anyhow!("--save: {e:#}"))?;
    }
    args.game().visit(PlayVisitor { args: &args })?;
    Ok(ExitCode::SUCCESS)
}

/// The position's text, its pieces in their colours (`Game::TERMINAL_PIECES`) where stdout is
/// a terminal and `NO_COLOR` is not set.
fn board_text<G: Game>(position: &G) -> String {
    let text = position.to_string();
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    match G::TERMINAL_PIECES {
        Some(pieces) if terminal && std::env::var_os("NO_COLOR").is_none() => {
            coloured_pieces(&text, pieces)
        }
        _ => text,
    }
}

/// `text` with each of `pieces`' characters wrapped in its ANSI colour.
fn coloured_pieces(text: &str, pieces: [(char, &str); 2]) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        match pieces.iter().find(|(piece, _)| *piece == c) {
            Some((piece, colour)) => out.push_str(&format!("\x1b[{colour}m{piece}\x1b[0m")),
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod colour_tests {
    use super::*;

    #[test]
    fn connect_four_pieces_are_red_and_yellow_on_a_terminal() {
        let pieces = crate::games::ConnectFour::TERMINAL_PIECES.unwrap();
        assert_eq!(
            coloured_pieces("x . o\na b c", pieces),
            "\x1b[1;31mx\x1b[0m . \x1b[1;33mo\x1b[0m\na b c"
        );
    }
}
