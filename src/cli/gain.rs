//! `descent gain`: what a network adds over the same search without it, at several times a
//! move (`arena::network_gain`). At each time the network's agent and its network-free
//! counterpart (`AgentSpec::without_network`) are measured the same way against the same
//! outside player: games against an agent (`--against`, its time fixed or `--against-ratio`
//! times theirs), the share of perfect moves on scored Connect Four positions
//! (`--perfect-moves`), or any command that plays a match and prints `W/D/L w/d/l`
//! (`--against-command`: OpenSpiel's MCTS, GNU Go through `gtp-match`). `--out DIR` writes the
//! card's table (gain.markdown), its chart (gain.svg) and gain.json after every side measured,
//! and the same command continues a sweep stopped there (`continue_earlier_sweep`).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use anyhow::{Context, bail, ensure};
use clap::Args;

use super::arena_output::PlayOptions;
use super::interrupt::{self, Interruptible};
use crate::arena::match_play::{MatchRun, Openings, play_match_until};
use crate::arena::network_gain::{GainReport, GainRow, PendingTime, Share};
use crate::arena::perfect_moves::{ScoredPosition, count_perfect_moves};
use crate::arena::{AgentFactory, AgentSpec};
use crate::games::{ConnectFour, Game, GameSpec, GameVisitor};
use crate::search::StopToken;
use crate::selfplay::run::dir_lock::DirLock;
use crate::settings::duration_text::DurationText;
use crate::settings::files::{Existing, check_output, read_regular_text, write_atomically};
use crate::value::checksum::sha256_hex;

/// The longest line kept from `--against-command`'s output (longer ones are cut).
const MAX_LINE_BYTES: u64 = 64 << 10;

/// The largest gain.json read back to continue a sweep (a sweep of thousands of times is far
/// smaller).
const MAX_REPORT_BYTES: u64 = 16 << 20;

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
    /// `{seconds}`, `{games}`, `{seed}` and `{side}` (network, no_network) are replaced, e.g.
    /// "scripts/vs_openspiel_mcts.sh --game othello --agent {agent} --descent-time {seconds}
    /// --games {games}".
    #[arg(long)]
    against_command: Option<String>,
    /// Games a measure (even: both colours equally), with --against or --against-command.
    #[arg(long, default_value_t = 40)]
    games: u64,
    /// With --against: start each pair of games from its own random opening of N plies.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    opening_plies: u32,
    /// Write gain.markdown, gain.svg and gain.json into this directory (after every side
    /// measured); a sweep of the same measure there is continued.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Start the sweep again over the files of an earlier one in --out, instead of continuing.
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
    let mut report = empty_report(&args, &counterpart, positions.as_ref())?;
    let _lock = match &args.out {
        Some(dir) => Some(DirLock::acquire(dir, "sweep")?),
        None => None,
    };
    continue_earlier_sweep(&args, &mut report)?;
    write_report(&args, &report)?;
    let stop = interrupt::stop_on_first_interrupt(Interruptible::Matches);
    let sweep = Sweep {
        args: &args,
        counterpart: &counterpart,
        stop: &stop,
        positions: positions.as_ref().map(|p| &p.0[..]),
    };
    for &time in &args.times {
        if report.row_at(time.0.as_secs_f64()).is_none() && !sweep.measure(time, &mut report)? {
            break;
        }
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
        let done = args.times.iter();
        let done = done.filter(|t| report.row_at(t.0.as_secs_f64()).is_some());
        eprintln!(
            "interrupted by {}: {} of {} times measured{}",
            interrupt::interrupted_by(),
            done.count(),
            args.times.len(),
            match args.out {
                Some(_) => "; --out holds them, and the same command continues the sweep",
                None => " (without --out nothing is kept)",
            }
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

/// The report before any time is measured: who plays, how it is counted. Both agents are loaded
/// here, before the first match: a network that cannot be loaded fails now.
fn empty_report(
    args: &GainArgs,
    counterpart: &AgentSpec,
    positions: Option<&(Vec<ScoredPosition>, String)>,
) -> anyhow::Result<GainReport> {
    let mut specs = vec![&args.agent, counterpart];
    specs.extend(args.against.as_ref().filter(|a| a.has_network()));
    let mut models = args
        .game()
        .visit(ModelsVisitor { args, specs })?
        .into_iter();
    let (agent_model, agent_weights_sha256) = models.next().expect("one a spec");
    let (counterpart_model, _) = models.next().expect("one a spec");
    let opponent = models.next();
    Ok(GainReport {
        game: args.game().to_string(),
        agent: args.agent.text_without_budget(),
        agent_model,
        agent_weights_sha256,
        counterpart: counterpart.text_without_budget(),
        counterpart_model,
        against: against_text(args, positions.map(|p| (p.0.len(), p.1.as_str()))),
        measure: match args.perfect_moves {
            true => "perfect moves",
            false => "score",
        }
        .to_string(),
        conditions: conditions(args, opponent, positions.map(|p| &p.0[..])),
        rows: Vec::new(),
        pending: Vec::new(),
        command: command_line(),
    })
}

/// The report's `conditions`: what else decides a measure, which a continued sweep must share.
fn conditions(
    args: &GainArgs,
    opponent: Option<(String, Option<String>)>,
    positions: Option<&[ScoredPosition]>,
) -> String {
    let mut text = format!(
        "seed {}, --threads {}, device {}",
        args.play.seed, args.play.threads, args.play.device
    );
    if let Some((origin, sha)) = opponent {
        let sha = sha.unwrap_or_else(|| "not recorded".to_string());
        text += &format!(", the outside agent's network {origin} (SHA-256 {sha})");
    }
    if let Some(positions) = positions {
        text += &format!(", positions SHA-256 {}", positions_digest(positions));
    }
    text
}

/// The SHA-256 of scored positions: each one's moves, then its columns' scores.
fn positions_digest(positions: &[ScoredPosition]) -> String {
    let mut bytes = Vec::new();
    for position in positions {
        bytes.extend(position.moves.iter().map(|&m| m as u8));
        bytes.push(u8::MAX);
        for score in position.column_scores {
            bytes.extend(score.unwrap_or(i32::MIN).to_le_bytes());
        }
    }
    sha256_hex(&bytes)
}

/// Takes the rows (and halves) of the sweep in --out that this one continues, if there is one;
/// a sweep of something else there is refused (--force replaces it).
fn continue_earlier_sweep(args: &GainArgs, report: &mut GainReport) -> anyhow::Result<()> {
    let Some(dir) = args.out.as_ref().filter(|_| !args.force) else {
        return Ok(());
    };
    let path = dir.join("gain.json");
    if !path.exists() {
        return Ok(());
    }
    let text = read_regular_text(&path, MAX_REPORT_BYTES)?;
    let earlier: GainReport = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a sweep `descent gain` wrote (--force replaces it)",
            path.display()
        )
    })?;
    if let Err(why) = report.check_continues(&earlier) {
        bail!(
            "{}: an earlier sweep this one cannot continue: {why} (the same arguments continue \
             it; --force replaces it)",
            path.display()
        );
    }
    if !args.play.quiet {
        let kept: Vec<&str> = earlier.rows.iter().map(|r| r.time.as_str()).collect();
        let halves: Vec<&str> = earlier.pending.iter().map(|p| p.time.as_str()).collect();
        eprintln!(
            "continuing the sweep in {}: kept {} time(s) [{}] and the network's side at [{}]",
            dir.display(),
            kept.len(),
            kept.join(", "),
            halves.join(", ")
        );
    }
    for row in earlier.rows {
        report.insert_row(row);
    }
    report.pending = earlier.pending;
    Ok(())
}

/// What every time of the sweep is measured with.
struct Sweep<'a> {
    args: &'a GainArgs,
    counterpart: &'a AgentSpec,
    stop: &'a StopToken,
    positions: Option<&'a [ScoredPosition]>,
}

impl Sweep<'_> {
    /// Measures both sides at `time` (the network's from a stopped sweep's half where there is
    /// one), writing the report after each; false when a signal stopped it.
    fn measure(&self, time: DurationText, report: &mut GainReport) -> anyhow::Result<bool> {
        let seconds = time.0.as_secs_f64();
        let with_share = match report.pending_at(seconds) {
            Some(half) => half.clone(),
            None => {
                let Some(share) = self.side(&self.args.agent.with_time(time)?, time)? else {
                    return Ok(false);
                };
                self.check_same_network(report)?;
                report.insert_pending(PendingTime {
                    time: time.to_string(),
                    seconds,
                    with_network: share.clone(),
                });
                write_report(self.args, report)?;
                share
            }
        };
        let Some(without_share) = self.side(&self.counterpart.with_time(time)?, time)? else {
            return Ok(false);
        };
        report.insert_row(GainRow::new(
            time.to_string(),
            seconds,
            with_share,
            without_share,
        ));
        write_report(self.args, report)?;
        Ok(true)
    }

    /// Fails when the agent's network is no longer the one the sweep started with (a training
    /// run's directory whose latest checkpoint moved on): its side was measured on both.
    fn check_same_network(&self, report: &GainReport) -> anyhow::Result<()> {
        let args = self.args;
        let specs = vec![&args.agent];
        let now = args
            .game()
            .visit(ModelsVisitor { args, specs })?
            .remove(0)
            .1;
        ensure!(
            now == report.agent_weights_sha256,
            "{}: the network changed during the sweep (SHA-256 {} at its start, {} now); name \
             a checkpoint or an exported file rather than a run that is training",
            report.agent_model,
            report
                .agent_weights_sha256
                .as_deref()
                .unwrap_or("not recorded"),
            now.as_deref().unwrap_or("not recorded")
        );
        Ok(())
    }

    /// One side's share at `time`; `None` when a signal stopped it (a side half measured is
    /// dropped).
    fn side(&self, spec: &AgentSpec, time: DurationText) -> anyhow::Result<Option<Share>> {
        if self.stop.is_stopped() {
            return Ok(None);
        }
        let share = match measure(self.args, spec, (time, self.stop), self.positions) {
            Err(_) if self.stop.is_stopped() => return Ok(None),
            share => share?,
        };
        if self.stop.is_stopped() {
            return Ok(None);
        }
        if !self.args.play.quiet {
            eprintln!("{time}: {spec}: {} ({})", share.text(), share.detail);
        }
        Ok(Some(share))
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
        // A sweep continues from its gain.json; its other files alone are not a sweep.
        let continued = dir.join("gain.json").exists();
        for name in ["gain.json", "gain.markdown", "gain.svg"] {
            let path = dir.join(name);
            ensure!(
                args.force || continued || !path.exists(),
                "{}: an earlier sweep's file, without its gain.json (--force replaces it)",
                path.display()
            );
            check_output(&path, Existing::replaced_if(args.force || continued))?;
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

/// The outside player in the report's words (with --perfect-moves: how many positions, and
/// where from).
fn against_text(args: &GainArgs, positions: Option<(usize, &str)>) -> String {
    let openings = match args.opening_plies {
        0 => String::new(),
        plies => format!(", each pair of games from its own random {plies}-ply opening"),
    };
    match (&args.against, &args.against_command, positions) {
        (Some(spec), _, _) => match args.against_ratio {
            Some(ratio) => format!(
                "`{spec}` at {ratio} × the time a move, {} games{openings}",
                args.games
            ),
            None => format!("`{spec}`, {} games{openings}", args.games),
        },
        (None, Some(command), _) => format!("`{command}`, {} games", args.games),
        (None, None, Some((n, from))) => {
            format!("a perfect solver's scores of {n} positions from {from}")
        }
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

/// Where the agents' evaluators come from (`AgentFactory::model_origin`) and their weights'
/// checksums.
struct ModelsVisitor<'a> {
    args: &'a GainArgs,
    specs: Vec<&'a AgentSpec>,
}

impl GameVisitor for ModelsVisitor<'_> {
    type Output = anyhow::Result<Vec<(String, Option<String>)>>;

    fn visit<G: Game>(self, _initial: G) -> Self::Output {
        let device = self.args.play.device()?;
        let game = self.args.game().to_string();
        let origin = |spec: &AgentSpec| {
            AgentFactory::<G>::new(spec.clone(), &game, &device)
                .map(|f| (f.model_origin, f.model_weights_sha256))
        };
        self.specs.iter().map(|&spec| origin(spec)).collect()
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
        .replace("{seed}", &args.play.seed.to_string())
        .replace("{side}", side_name(spec));
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

/// `{side}` in a match command: which side `spec` is (for the command's own files).
fn side_name(spec: &AgentSpec) -> &'static str {
    match spec.has_network() {
        true => "network",
        false => "no_network",
    }
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
