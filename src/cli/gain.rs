//! `descent gain`: what a network adds over the same search without it, at several times a
//! move (`arena::network_gain`). At each time the network's agent and its network-free
//! counterpart (`AgentSpec::without_network`) are measured the same way against the same
//! outside player: games against an agent (`--against`, its time fixed or `--against-ratio`
//! times theirs), the share of perfect moves on scored Connect Four positions
//! (`--perfect-moves`), or any command that plays a match and prints `W/D/L w/d/l`
//! (`--against-command`: OpenSpiel's MCTS, GNU Go through `gtp-match`). `--out DIR` writes the
//! card's table (gain.markdown), its chart (gain.svg) and gain.json after every time, so a stopped
//! sweep keeps the times it finished.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use anyhow::{Context, bail, ensure};
use clap::Args;

use super::arena_output::PlayOptions;
use super::interrupt::{self, Interruptible};
use crate::arena::match_play::{MatchRun, Openings, play_match_until};
use crate::arena::network_gain::{GainReport, GainRow, Share};
use crate::arena::perfect_moves::{ScoredPosition, count_perfect_moves};
use crate::arena::{AgentFactory, AgentSpec};
use crate::games::{ConnectFour, Game, GameSpec, GameVisitor};
use crate::search::StopToken;
use crate::settings::duration_text::DurationText;
use crate::settings::files::{Existing, check_output, write_atomically};

/// The longest line kept from `--against-command`'s output (longer ones are cut).
const MAX_LINE_BYTES: u64 = 64 << 10;

#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("against_what").required(true)
    .args(["against", "perfect_moves", "against_command"]))]
pub struct GainArgs {
    /// The game (default: the game of the agent's network).
    #[arg(long, value_parser = super::parse_game)]
    game: Option<GameSpec>,
    /// The network's agent, e.g. `puct:model=shipped,time=1s`; each of --times replaces its
    /// budget.
    #[arg(long)]
    agent: AgentSpec,
    /// The times a move, e.g. `25ms,100ms,400ms,1.6s`.
    #[arg(long, value_delimiter = ',', default_value = "25ms,100ms,400ms,1.6s")]
    times: Vec<DurationText>,
    /// The outside player as an agent, e.g. `mcts:time=1s` (games, both colours).
    #[arg(long)]
    against: Option<AgentSpec>,
    /// With --against: its time a move is this many times the measured agents' (its own
    /// budget otherwise).
    #[arg(long, requires = "against")]
    against_ratio: Option<f64>,
    /// Connect Four: the share of perfect moves on scored positions (the 1 000 that ship, or
    /// --positions).
    #[arg(long)]
    perfect_moves: bool,
    /// With --perfect-moves: scored positions as `descent solve --sample` writes them.
    #[arg(long, requires = "perfect_moves")]
    positions: Option<PathBuf>,
    /// A shell command that plays one match and prints a line with `W/D/L w/d/l` (or
    /// `w/d/l (W/D/L)`), the last such line counting; `{agent}` (quoted), `{time}`,
    /// `{seconds}`, `{games}` and `{seed}` are replaced, e.g. "scripts/vs_openspiel_mcts.sh
    /// --game othello --agent {agent} --descent-time {seconds} --games {games}".
    #[arg(long)]
    against_command: Option<String>,
    /// Games a measure (even: both colours equally), with --against or --against-command.
    #[arg(long, default_value_t = 40)]
    games: u64,
    /// With --against: start each pair of games from its own random opening of N plies.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    opening_plies: u32,
    /// Write gain.markdown, gain.svg and gain.json into this directory (after every time).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Replace the files of an earlier sweep in --out.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    play: PlayOptions,
}

/// # Errors
/// Bad arguments, a network that cannot be loaded, a command that fails or prints no W/D/L.
pub fn run(mut args: GainArgs) -> anyhow::Result<ExitCode> {
    args.game = Some(super::game_or_models_game(
        args.game.take(),
        &[&args.agent],
    )?);
    check_args(&args)?;
    let counterpart = args.agent.without_network()?;
    let positions = perfect_move_positions(&args)?;
    // Both loaded once before the first match: a network that cannot be loaded fails now.
    let [agent_model, counterpart_model] = args.game().visit(ModelsVisitor {
        args: &args,
        specs: [&args.agent, &counterpart],
    })?;
    let stop = interrupt::stop_on_first_interrupt(Interruptible::Matches);
    let mut report = GainReport {
        game: args.game().to_string(),
        agent: args.agent.text_without_budget(),
        agent_model,
        counterpart: counterpart.text_without_budget(),
        counterpart_model,
        against: against_text(&args, positions.as_ref().map(|p| p.0.len())),
        measure: if args.perfect_moves {
            "perfect moves"
        } else {
            "score"
        }
        .to_string(),
        rows: Vec::new(),
        command: command_line(),
    };
    for &time in &args.times {
        let sides = [&args.agent, &counterpart].map(|spec| spec.with_time(time));
        let [with, without] = [sides[0].clone()?, sides[1].clone()?];
        let mut measured = Vec::new();
        for spec in [&with, &without] {
            let share = match measure(
                &args,
                spec,
                (time, &stop),
                positions.as_ref().map(|p| &p.0[..]),
            ) {
                Err(_) if stop.is_stopped() => break,
                share => share?,
            };
            if !args.play.quiet {
                eprintln!("{time}: {spec}: {} ({})", share.text(), share.detail);
            }
            measured.push(share);
            if stop.is_stopped() {
                break;
            }
        }
        if stop.is_stopped() {
            break;
        }
        let [with_share, without_share] = [measured[0].clone(), measured[1].clone()];
        report.rows.push(GainRow::new(
            time.to_string(),
            time.0.as_secs_f64(),
            with_share,
            without_share,
        ));
        write_report(&args, &report)?;
    }
    match args.play.json {
        true => println!("{}", serde_json::to_string_pretty(&report)?),
        false => print!("{}", report.markdown()),
    }
    if let (Some(dir), false) = (&args.out, args.play.json) {
        println!(
            "wrote {}/gain.markdown, gain.svg and gain.json",
            dir.display()
        );
    }
    if stop.is_stopped() {
        eprintln!(
            "interrupted by {}: {} of {} times measured; the report holds them",
            interrupt::interrupted_by(),
            report.rows.len(),
            args.times.len()
        );
        return Ok(ExitCode::from(interrupt::interrupted_exit()));
    }
    Ok(ExitCode::SUCCESS)
}

impl GainArgs {
    fn game(&self) -> &GameSpec {
        self.game.as_ref().expect("run resolves the game first")
    }
}

fn check_args(args: &GainArgs) -> anyhow::Result<()> {
    ensure!(
        args.agent.has_network(),
        "--agent {}: expected an agent with a network (model=…), whose gain is measured",
        args.agent
    );
    ensure!(
        !args.times.is_empty(),
        "--times: expected at least one time a move"
    );
    if let Some(ratio) = args.against_ratio {
        ensure!(
            ratio.is_finite() && ratio > 0.0 && ratio <= 1000.0,
            "--against-ratio {ratio}: expected a number above 0, at most 1000"
        );
    }
    if args.perfect_moves {
        ensure!(
            args.game().to_string() == "connect_four",
            "--perfect-moves: Connect Four only (the game with a solver), not {}",
            args.game()
        );
    } else {
        super::even_games_arg("--games", args.games)?;
    }
    super::threads_arg("--threads", args.play.threads)?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for name in ["gain.json", "gain.markdown", "gain.svg"] {
            let path = dir.join(name);
            ensure!(
                args.force || !path.exists(),
                "{}: an earlier sweep's file (--force replaces it)",
                path.display()
            );
            check_output(&path, Existing::replaced_if(args.force))?;
        }
    }
    Ok(())
}

/// The scored positions of --perfect-moves and where they come from.
fn perfect_move_positions(
    args: &GainArgs,
) -> anyhow::Result<Option<(Vec<ScoredPosition>, String)>> {
    match args.perfect_moves {
        true => super::accuracy::read_positions(args.positions.as_deref()).map(Some),
        false => Ok(None),
    }
}

/// The outside player in the report's words.
fn against_text(args: &GainArgs, positions: Option<usize>) -> String {
    match (&args.against, &args.against_command, positions) {
        (Some(spec), _, _) => match args.against_ratio {
            Some(ratio) => format!(
                "`{spec}` at {ratio} × the time a move, {} games",
                args.games
            ),
            None => format!("`{spec}`, {} games", args.games),
        },
        (None, Some(command), _) => format!("`{command}`, {} games", args.games),
        (None, None, Some(n)) => format!("a perfect solver's scores of {n} positions"),
        (None, None, None) => unreachable!("clap requires one of them"),
    }
}

/// One side's share at `time`.
fn measure(
    args: &GainArgs,
    spec: &AgentSpec,
    (time, stop): (DurationText, &StopToken),
    positions: Option<&[ScoredPosition]>,
) -> anyhow::Result<Share> {
    if let Some(positions) = positions {
        return perfect_share(args, spec, positions, stop);
    }
    if let Some(template) = &args.against_command {
        return command_share(template, spec, time, args);
    }
    let against = args.against.as_ref().expect("clap requires one of them");
    let opponent = match args.against_ratio {
        Some(ratio) => against.with_time(DurationText(time.0.mul_f64(ratio)))?,
        None => against.clone(),
    };
    args.game().visit(MatchVisitor {
        args,
        agent: spec,
        opponent: &opponent,
        stop,
    })
}

/// The share of perfect moves `spec` plays on `positions`.
fn perfect_share(
    args: &GainArgs,
    spec: &AgentSpec,
    positions: &[ScoredPosition],
    stop: &StopToken,
) -> anyhow::Result<Share> {
    let device = args.play.device()?;
    let factory = AgentFactory::<ConnectFour>::new(spec.clone(), "connect_four", &device)?;
    let tally = count_perfect_moves(
        positions,
        (args.play.threads, args.play.seed, Some(stop)),
        &|| factory.build(),
        &|_| {},
    );
    let all = tally.all;
    Ok(Share::new(
        all.perfect as f64,
        all.positions,
        format!("{} of {} perfect", all.perfect, all.positions),
    ))
}

/// Where the agents' evaluators come from (`AgentFactory::model_origin`).
struct ModelsVisitor<'a> {
    args: &'a GainArgs,
    specs: [&'a AgentSpec; 2],
}

impl GameVisitor for ModelsVisitor<'_> {
    type Output = anyhow::Result<[String; 2]>;

    fn visit<G: Game>(self, _initial: G) -> Self::Output {
        let device = self.args.play.device()?;
        let game = self.args.game().to_string();
        let origin = |spec: &AgentSpec| {
            AgentFactory::<G>::new(spec.clone(), &game, &device).map(|f| f.model_origin)
        };
        Ok([origin(self.specs[0])?, origin(self.specs[1])?])
    }
}

struct MatchVisitor<'a> {
    args: &'a GainArgs,
    agent: &'a AgentSpec,
    opponent: &'a AgentSpec,
    stop: &'a StopToken,
}

impl GameVisitor for MatchVisitor<'_> {
    type Output = anyhow::Result<Share>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let args = self.args;
        let device = args.play.device()?;
        let game = args.game().to_string();
        ensure!(
            !G::ONE_PLAYER,
            "{game}: a one-player game; `gain` measures games between two players"
        );
        let agent = AgentFactory::<G>::new(self.agent.clone(), &game, &device)?;
        let opponent = AgentFactory::<G>::new(self.opponent.clone(), &game, &device)?;
        let openings = Openings {
            plies: args.opening_plies,
            seed: args.play.seed,
        };
        let run = MatchRun::new(args.play.seed, args.play.threads).stopped_by(self.stop);
        let report = play_match_until(
            (&initial, openings),
            [&agent, &opponent],
            args.games,
            run,
            &|_| {},
        );
        let s = &report.summary;
        Ok(Share::of_games(s.wins, s.draws, s.losses))
    }
}

/// Runs `template` for `spec` and reads its W/D/L.
fn command_share(
    template: &str,
    spec: &AgentSpec,
    time: DurationText,
    args: &GainArgs,
) -> anyhow::Result<Share> {
    let command = template
        .replace("{agent}", &shell_quoted(&spec.to_string()))
        .replace("{time}", &time.to_string())
        .replace("{seconds}", &time.0.as_secs_f64().to_string())
        .replace("{games}", &args.games.to_string())
        .replace("{seed}", &args.play.seed.to_string());
    let mut child = Command::new("sh")
        .args(["-c", &command])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run sh -c {command:?}"))?;
    let mut reader = BufReader::new(child.stdout.take().expect("piped"));
    let mut last_result = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        if (&mut reader)
            .take(MAX_LINE_BYTES)
            .read_until(b'\n', &mut line)?
            == 0
        {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        if !args.play.quiet {
            eprintln!("  | {}", text.trim_end());
        }
        if let Some(result) = wins_draws_losses(&text) {
            last_result = Some(result);
        }
    }
    let status = child.wait()?;
    ensure!(status.success(), "{command}: {status}");
    let Some([wins, draws, losses]) = last_result else {
        bail!("{command}: no line with `W/D/L w/d/l` in its output");
    };
    Ok(Share::of_games(wins, draws, losses))
}

/// The `w/d/l` counts of a line that says `W/D/L`.
fn wins_draws_losses(line: &str) -> Option<[u64; 3]> {
    if !line.contains("W/D/L") {
        return None;
    }
    line.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')' || c == ':')
        .find_map(|word| {
            let counts: Vec<u64> = word
                .split('/')
                .map(|n| n.parse().ok())
                .collect::<Option<_>>()?;
            <[u64; 3]>::try_from(counts).ok()
        })
}

/// `text` as one shell word.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The command line that runs, as a shell would read it back.
fn command_line() -> String {
    let words: Vec<String> = std::env::args()
        .enumerate()
        .map(|(i, word)| match i {
            0 => "descent".to_string(),
            _ if word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,".contains(c)) =>
            {
                word
            }
            _ => shell_quoted(&word),
        })
        .collect();
    words.join(" ")
}

/// Writes gain.json, gain.markdown and gain.svg into --out (each atomically).
fn write_report(args: &GainArgs, report: &GainReport) -> anyhow::Result<()> {
    let Some(dir) = &args.out else {
        return Ok(());
    };
    let files: [(&str, String); 3] = [
        ("gain.json", serde_json::to_string_pretty(report)?),
        ("gain.markdown", report.markdown()),
        ("gain.svg", report.svg()),
    ];
    for (name, text) in files {
        write_atomically(
            &Path::new(dir).join(name),
            text.as_bytes(),
            Existing::Replace,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_line_is_read_in_either_form() {
        let openspiel = "ubfms:model=x,time=100ms against OpenSpiel MCTS (9470 to 12832 \
                         simulations a move, mean 11165), othello: W/D/L 37/0/3, score 92.5 %";
        assert_eq!(wins_draws_losses(openspiel), Some([37, 0, 3]));
        let gtp = "GNU Go level 10: descent against gnugo: 13/0/27 (W/D/L), score 32.5 % [1, 2]";
        assert_eq!(wins_draws_losses(gtp), Some([13, 0, 27]));
        assert_eq!(wins_draws_losses("game 3: 1/2/3 moves"), None);
        assert_eq!(wins_draws_losses("W/D/L unknown"), None);
    }

    #[test]
    fn a_spec_is_one_shell_word() {
        assert_eq!(
            shell_quoted("puct:model=it's,time=1s"),
            r"'puct:model=it'\''s,time=1s'"
        );
    }
}
