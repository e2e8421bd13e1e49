//! `descent play`: a person against an agent at the terminal.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use rand::SeedableRng;

use super::input_lines::{InputLine, InputLines};
use crate::arena::{AgentFactory, AgentRng, AgentSpec, GameSession, Side};
use crate::games::{Game, GameExt, GameSpec, GameVisitor, Player};
use crate::search::DurationText;
use crate::value::DeviceChoice;

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The game, e.g. awale.
    #[arg(long, value_parser = super::parse_game)]
    game: GameSpec,
    /// Your opponent, e.g. `ubfms:model=awale.descent,time=1s`.
    #[arg(long)]
    agent: AgentSpec,
    /// Your side: p0 (moves first) or p1.
    #[arg(long = "as", default_value = "p0")]
    side: Side,
    /// Thinking time per move of the agent (replaces the spec's budget).
    #[arg(long)]
    time: Option<DurationText>,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where the network runs: cpu, flex, ndarray, wgpu, cuda:N (all but cpu and flex need
    /// their cargo feature).
    #[arg(long, default_value = "cpu")]
    device: DeviceChoice,
}

const HELP: &str = "commands: a move in the game's notation, `undo` (take back your last move), `hint` (what the agent would play for you), `moves` (the game so far), `help`, `quit`";

struct PlayVisitor<'a> {
    args: &'a PlayArgs,
}

impl GameVisitor for PlayVisitor<'_> {
    type Output = anyhow::Result<()>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let args = self.args;
        let device = args.device.device().map_err(anyhow::Error::msg)?;
        let factory = AgentFactory::<G>::new(args.agent.clone(), &args.game.to_string(), &device)?;
        let mut agent = factory.build();
        let mut adviser = factory.build();
        if let Some(time) = args.time {
            agent.set_time_per_move(time.0);
            adviser.set_time_per_move(time.0);
        }
        let mut rng = AgentRng::seed_from_u64(args.seed);
        let human = args.side.0;
        let mut session = GameSession::new(initial);
        let mut lines = InputLines::new(std::io::stdin().lock());
        let mut out = std::io::stdout();
        println!(
            "You play {human} against {} on {}. Notation: {}.\n{HELP}",
            args.agent,
            args.game,
            G::notation_help()
        );
        loop {
            let position = session.position().clone();
            if let Some(result) = session.result_sentence() {
                println!("\n{position}\n\nGame over: {result}; you played {human}.");
                println!("moves: {}", session.moves().join(" "));
                return Ok(());
            }
            if position.to_move() != human {
                let choice = agent.choose_move(&position, &mut rng);
                let text = G::action_to_text(position.to_move(), choice.action);
                match choice.value_p0 {
                    Some(v) => println!(
                        "{} plays {text} (its value: {:+.2})",
                        args.agent,
                        v * position.to_move().sign() + 0.0
                    ),
                    None => println!("{} plays {text}", args.agent),
                }
                session.play(choice.action);
                continue;
            }
            println!("\n{position}\n");
            println!(
                "your move ({human}); legal: {}",
                position.legal_moves_text()
            );
            loop {
                print!("> ");
                out.flush()?;
                let line = match lines.next_line()? {
                    None => {
                        println!("\nquit");
                        return Ok(());
                    }
                    Some(InputLine::NotUtf8) => {
                        println!("{}; {HELP}", InputLine::NOT_UTF8);
                        continue;
                    }
                    Some(InputLine::Text(line)) => line,
                };
                let command = line.trim();
                match command {
                    "" => continue,
                    "quit" | "exit" => {
                        println!("bye");
                        return Ok(());
                    }
                    "help" | "?" => println!("{HELP}"),
                    "moves" => println!("moves: {}", session.moves().join(" ")),
                    "hint" => {
                        adviser.new_game();
                        let choice = adviser.choose_move(&position, &mut rng);
                        let text = G::action_to_text(human, choice.action);
                        match choice.value_p0 {
                            Some(v) => println!(
                                "hint: {text} (value for you: {:+.2})",
                                v * human.sign() + 0.0
                            ),
                            None => println!("hint: {text}"),
                        }
                    }
                    "undo" => {
                        if undo_to_previous_turn(&mut session, human) {
                            agent.new_game();
                            break;
                        }
                        println!("nothing to undo");
                    }
                    text => match session.play_text(Some(human), text) {
                        Ok(_) => break,
                        Err(e) => println!("{e}"),
                    },
                }
            }
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

pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    args.game.visit(PlayVisitor { args: &args })?;
    Ok(ExitCode::SUCCESS)
}
