//! `descent train`: start a run from a YAML configuration, or resume one from its directory.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use indicatif::ProgressStyle;
use tracing::{Span, info, info_span};
use tracing_indicatif::span_ext::IndicatifSpanExt;

use crate::selfplay::config::TrainSettings;
use crate::selfplay::telemetry::eval_report::EvalReport;
use crate::selfplay::telemetry::metrics::{EvalMetrics, GameMetrics};
use crate::selfplay::{DurationText, RunDir, TrainConfig, TrainSummary, TrainingObserver, train};
use crate::settings::files::read_regular_text;
use crate::settings::limits::MAX_SMALL_FILE_BYTES;

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The run configuration (YAML; see configs/).
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    config: Option<PathBuf>,
    /// Resume the run in this directory from its latest checkpoint.
    #[arg(long, value_name = "RUN_DIR")]
    resume: Option<PathBuf>,
    /// Resume a checkpoint that has no checksums.sha256 (written by an older descent, or its
    /// list removed), its files unverified.
    #[arg(long, requires = "resume")]
    accept_unverified_checkpoint: bool,
    /// Where a new run writes (default: checkpoints/<run.name or the config file's name>).
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    run_dir: Option<PathBuf>,
    /// Stop once the run has played this many games in all (overrides run.max_games).
    #[arg(long, value_name = "N")]
    max_games: Option<u64>,
    /// Stop once the run has trained this long in all, e.g. 20m, 2h (overrides run.max_time).
    #[arg(long, value_name = "DURATION")]
    max_time: Option<DurationText>,
    /// Where the network runs: descent-cpu, flex, ndarray, wgpu, cuda:0 (overrides run.device).
    #[arg(long)]
    device: Option<String>,
    /// Self-play games at once (overrides run.threads).
    #[arg(long)]
    threads: Option<usize>,
    /// Learn the games of `descent worker` processes through this Redis server
    /// (redis://[user:password@]HOST:PORT[/DB]; sets run.mode to distributed).
    #[arg(long, value_name = "URL")]
    broker: Option<String>,
    /// No progress bar, warnings only (for scripts).
    #[arg(long)]
    quiet: bool,
    /// The progress line also shows the learning's counters: positions added, replay size, loss.
    #[arg(long, conflicts_with = "quiet")]
    verbose: bool,
}

impl TrainArgs {
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }
}

fn read_config(path: &Path) -> anyhow::Result<TrainConfig> {
    let text = read_regular_text(path, MAX_SMALL_FILE_BYTES)
        .with_context(|| format!("cannot read the configuration {}", path.display()))?;
    TrainConfig::from_yaml(&text).map_err(|e| super::file_error(path, e))
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(args: TrainArgs) -> anyhow::Result<ExitCode> {
    let (config, run_dir) = configuration(&args)?;
    let resume = run_dir.is_some();
    let mut settings = config.validate().map_err(|e| {
        let source = args
            .config
            .as_ref()
            .or(args.resume.as_ref())
            .map_or(String::new(), |p| format!("{}: ", p.display()));
        anyhow::anyhow!("{source}{e}")
    })?;
    settings.broker = args.broker.clone();
    let run_dir = match run_dir {
        Some(run_dir) => {
            keep_new_limits(&run_dir, &config)?;
            run_dir
        }
        None => RunDir::create(&new_run_root(&args, &config), &config.to_yaml())?,
    };
    settings.stop =
        super::interrupt::stop_on_first_interrupt(super::interrupt::Interruptible::Training);
    let span = info_span!("train");
    let max_time = settings.run.max_time;
    let mut observer =
        ProgressObserver::new(span.clone(), args.quiet, max_time).verbose(args.verbose);
    let _entered = (!args.quiet).then(|| span.enter());
    let summary = match train(&settings, &run_dir, resume, &mut observer) {
        Ok(summary) => summary,
        Err(e) => {
            if !resume {
                discard_new_run(&run_dir);
            }
            return Err(e);
        }
    };
    // Close the span so that its progress bar is cleared before the summary prints.
    drop(_entered);
    drop(observer);
    drop(span);
    print_summary(&summary, &run_dir, args.broker.as_deref());
    print_strength(&summary, &settings, &run_dir);
    if summary.last_checkpoint.is_some() && !args.quiet {
        print_next_commands(&settings, &run_dir);
    }
    if summary.stopped_by == crate::selfplay::StopReason::Requested {
        // Stopped by the user, its work kept: 130 (Ctrl-C) or 143 (SIGTERM), as a shell says.
        return Ok(ExitCode::from(super::interrupt::interrupted_exit()));
    }
    Ok(ExitCode::SUCCESS)
}

/// The run's configuration with the command line's overrides, and its directory when resuming.
fn configuration(args: &TrainArgs) -> anyhow::Result<(TrainConfig, Option<RunDir>)> {
    let (mut config, run_dir) = match (&args.resume, &args.config) {
        (Some(dir), _) => {
            let mut run_dir = RunDir::open_for_writing(dir)?;
            if args.accept_unverified_checkpoint {
                run_dir.accept_unverified_checkpoint();
            }
            let path = dir.join(crate::selfplay::run::run_dir::CONFIG_FILE);
            let text = run_dir.config_text()?;
            let config = TrainConfig::from_yaml(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            warn_of_keys_added_since(&config, &text, &path);
            (config, Some(run_dir))
        }
        (None, Some(path)) => (read_config(path)?, None),
        (None, None) => unreachable!("clap requires a config or --resume"),
    };
    if let Some(n) = args.max_games {
        config.run.max_games = Some(n);
    }
    if let Some(t) = args.max_time {
        config.run.max_time = Some(t);
    }
    if let Some(device) = &args.device {
        config.run.device = device.clone();
    }
    if let Some(threads) = args.threads {
        config.run.threads = threads;
    }
    if args.broker.is_some() {
        config.run.mode = crate::selfplay::config::RunMode::Distributed;
    }
    Ok((config, run_dir))
}

/// Says which keys a resumed run's config.yaml (written with every key when the run began)
/// lacks: descent gained them after the run, and they take today's defaults.
fn warn_of_keys_added_since(config: &TrainConfig, text: &str, path: &std::path::Path) {
    let missing = config.keys_not_named_in(text);
    if missing.is_empty() {
        return;
    }
    let keys: Vec<String> = missing
        .iter()
        .map(|(key, value)| format!("{key}: {value}"))
        .collect();
    tracing::warn!(
        "{} predates {} key(s), which take today's defaults: {}; to keep what the run did \
         before, write the values it had into that file",
        path.display(),
        keys.len(),
        keys.join(", ")
    );
}

/// Writes the command line's limits (`--max-games`, `--max-time`, `--device`, `--threads`,
/// `--broker`) into a resumed run's config.yaml when they change it, so that the run page
/// shows them and the next `--resume` keeps them.
fn keep_new_limits(run_dir: &RunDir, config: &TrainConfig) -> anyhow::Result<()> {
    let saved = TrainConfig::from_yaml(&run_dir.config_text()?).ok();
    if saved.as_ref() == Some(config) {
        return Ok(());
    }
    let path = run_dir
        .root()
        .join(crate::selfplay::run::run_dir::CONFIG_FILE);
    crate::settings::files::write_atomically(
        &path,
        config.to_yaml().as_bytes(),
        crate::settings::files::Existing::Replace,
    )
}

/// Where a new run goes: `--run-dir`, else `checkpoints/<run.name or the config's name>`.
fn new_run_root(args: &TrainArgs, config: &TrainConfig) -> PathBuf {
    if let Some(dir) = &args.run_dir {
        return dir.clone();
    }
    let name = config.run.name.clone().unwrap_or_else(|| {
        args.config
            .as_ref()
            .and_then(|p| p.file_stem())
            .map_or("run".into(), |s| s.to_string_lossy().into_owned())
    });
    PathBuf::from("checkpoints").join(name)
}

/// What the run did, and the command that resumes it (with its `--broker`, password hidden).
fn print_summary(summary: &TrainSummary, run_dir: &RunDir, broker: Option<&str>) {
    let stop = match summary.stopped_by {
        crate::selfplay::StopReason::MaxGames => "the game limit",
        crate::selfplay::StopReason::MaxTime => "the time limit",
        crate::selfplay::StopReason::Requested => &format!(
            "{} (the games in play learned and checkpointed)",
            super::interrupt::interrupted_by()
        ),
    };
    println!(
        "{} games this session, {} in all, {:.0} s of training; stopped by {stop}",
        summary.games_this_session, summary.total_games, summary.elapsed_seconds
    );
    if summary.games_dropped > 0 {
        println!(
            "{} games played but not learned in all: their network was more than run.max_lag versions old",
            summary.games_dropped
        );
    }
    if let Some(path) = &summary.last_checkpoint {
        println!("latest checkpoint: {}", path.display());
    }
    let root = match broker {
        Some(url) => format!(
            "{} --broker {}",
            run_dir.root().display(),
            crate::selfplay::distributed::broker::without_password(url)
        ),
        None => run_dir.root().display().to_string(),
    };
    match (summary.games_this_session, summary.stopped_by) {
        (0, crate::selfplay::StopReason::MaxGames) => println!(
            "the run had reached its game limit; to go on, raise it: descent train --resume {root} --max-games {}",
            summary.total_games + summary.games_dropped + 100
        ),
        (0, crate::selfplay::StopReason::MaxTime) => println!(
            "the run had reached its time limit; to go on, raise it: descent train --resume {root} --max-time {}m",
            (summary.elapsed_seconds / 60.0).ceil() as u64 + 20
        ),
        _ => println!("resume with: descent train --resume {root}"),
    }
}

/// What to do with the run's network next: play it, measure it, watch the run.
fn print_next_commands(settings: &TrainSettings, run_dir: &RunDir) {
    let run = run_dir.root().display();
    let agent = format!("{}:model={run}", settings.config.recipe.player_kind());
    let game = &settings.game;
    println!("next:");
    println!("  descent play --game {game} --agent {agent},time=1s     # play against it");
    println!(
        "  descent eval --game {game} --agent {agent},time=100ms --opponent mcts:time=100ms --games 20   # measure it"
    );
    let parent = run_dir
        .root()
        .parent()
        .filter(|p| !p.as_os_str().is_empty());
    match parent {
        Some(parent) if parent != std::path::Path::new("checkpoints") => println!(
            "  descent serve --runs {}     # watch it: http://127.0.0.1:8080/",
            parent.display()
        ),
        _ => println!("  descent serve     # watch it: http://127.0.0.1:8080/"),
    }
}

/// The final network's strength against the baseline (`TrainSummary::strength`), or how to
/// measure it when the run did not.
fn print_strength(summary: &TrainSummary, settings: &TrainSettings, run_dir: &RunDir) {
    if let Some(report) = &summary.strength {
        println!("strength: {}", strength_text(report));
        if let Some(checkpoint) = &summary.last_checkpoint {
            println!(
                "  the same games: {}",
                report.reproduce_command(&settings.game.to_string(), checkpoint)
            );
        }
        return;
    }
    if summary.games_this_session == 0 {
        return;
    }
    let budget = settings
        .evaluation
        .clone()
        .map_or("time=100ms".to_string(), |e| {
            crate::selfplay::run::periodic_eval::budget_text(&e.budget)
        });
    println!(
        "strength: not measured{}; measure it with: descent eval --game {} --agent {}:model={},{budget} --opponent mcts:{budget}",
        match summary.stopped_by {
            crate::selfplay::StopReason::Requested => {
                format!(" (stopped by {})", super::interrupt::interrupted_by())
            }
            _ if settings.evaluation.clone().is_some_and(|e| e.at_end) => {
                " (no time was left for the evaluation at the run's end)".to_string()
            }
            _ => " (evaluation.at_end is off)".to_string(),
        },
        settings.game,
        settings.config.recipe.player_kind(),
        run_dir.root().display(),
    );
}

/// An evaluation's result for people: W/D/L, the score and win − loss with their intervals.
fn strength_text(r: &EvalReport) -> String {
    if let (Some(mean), Some(baseline)) = (r.mean_score, r.baseline_mean_score) {
        return format!(
            "mean score {mean:.1} ± {:.1} (95 %) against {}'s {baseline:.1}, {} games",
            r.mean_score_ci95.unwrap_or(f64::INFINITY),
            r.baseline,
            r.games
        );
    }
    let s = crate::arena::ResultSummary::new(r.wins, r.draws, r.losses);
    format!(
        "{} against {}: W/D/L {}/{}/{} over {}, both colours; score {:.1} % [{:.1}, {:.1}], win − loss {} (95 %)",
        r.player,
        r.baseline,
        r.wins,
        r.draws,
        r.losses,
        r.games_text(),
        100.0 * s.score,
        100.0 * s.score_ci95[0],
        100.0 * s.score_ci95[1],
        s.win_minus_loss_text()
    )
}

/// Removes the directory of a new run that failed before its first checkpoint (nothing in it
/// can be resumed, and it would block a new run in the same place).
fn discard_new_run(run_dir: &RunDir) {
    if run_dir.checkpoints().is_ok_and(|c| c.is_empty())
        && std::fs::remove_dir_all(run_dir.root()).is_ok()
    {
        tracing::warn!(
            "removed {}: the run failed before its first checkpoint",
            run_dir.root().display()
        );
    }
}

/// Draws the progress bar (through tracing-indicatif, so that logs print above it).
pub(super) struct ProgressObserver {
    span: Span,
    quiet: bool,
    /// The learning's counters on the line too (`--verbose`).
    verbose: bool,
    /// The run's time limit, for the time left.
    max_time: Option<std::time::Duration>,
    last_eval: Option<String>,
    /// Where stderr is not a terminal: when a plain progress line is due.
    plain: Option<super::progress::PlainTimer>,
}

impl ProgressObserver {
    /// Draws on `span`'s progress bar (nothing with `quiet`) for a run of at most `max_time`.
    pub(super) fn new(span: Span, quiet: bool, max_time: Option<std::time::Duration>) -> Self {
        ProgressObserver {
            span,
            quiet,
            verbose: false,
            max_time,
            last_eval: None,
            plain: super::progress::PlainTimer::for_log(quiet),
        }
    }

    /// With the learning's counters (positions added, replay size, loss) on the line.
    pub(super) fn verbose(self, verbose: bool) -> Self {
        ProgressObserver { verbose, ..self }
    }
}

/// A run's training time for the progress line: "12:34 of 1:00:00, 47:26 left" with a time
/// limit, else "12:34 trained".
fn training_time_text(elapsed: f64, max_time: Option<std::time::Duration>) -> String {
    let clock = super::progress::clock;
    match max_time {
        Some(max) => {
            let max = max.as_secs_f64();
            // Rounded up, so that the two add up to the limit.
            let left = clock((max - elapsed).ceil());
            format!("{} of {}, {left} left", clock(elapsed.min(max)), clock(max))
        }
        None => format!("{} trained", clock(elapsed)),
    }
}

impl TrainingObserver for ProgressObserver {
    fn on_start(&mut self, games_done: u64, max_games: Option<u64>, resumed_from: Option<&Path>) {
        if let Some(dir) = resumed_from {
            info!(
                "resuming from {} ({games_done} games played)",
                dir.display()
            );
        }
        if self.quiet {
            return;
        }
        let template = if max_games.is_some() {
            "[{bar:30}] {pos}/{len} games  {msg}"
        } else {
            "{pos} games  {msg}"
        };
        let style = ProgressStyle::with_template(template)
            .expect("a valid template")
            .progress_chars("=> ");
        self.span.pb_set_style(&style);
        if let Some(max) = max_games {
            self.span.pb_set_length(max);
        }
        self.span.pb_set_position(games_done);
    }

    fn on_pretrain(&mut self, pairs: usize, loss: Option<f64>) {
        info!("pre-trained: {pairs} rows of random terminal states learned (loss {loss:?})");
    }

    fn on_game(&mut self, m: &GameMetrics) {
        if self.quiet {
            return;
        }
        self.span.pb_set_position(m.game);
        let mut line = format!(
            "{}  {:.0} games/h",
            training_time_text(m.elapsed_seconds, self.max_time),
            m.games_per_hour
        );
        if let Some(eval) = &self.last_eval {
            line += &format!("  strength {eval}");
        }
        if self.verbose {
            let loss = m.loss.map_or("-".into(), |l| format!("{l:.4}"));
            line += &format!(
                "  positions {} (replay {})  loss {loss}",
                m.pairs_added, m.replay_pairs
            );
        }
        self.span.pb_set_message(&line);
        if let Some(timer) = &mut self.plain
            && timer.due(std::time::Instant::now())
        {
            info!("{} games  {line}", m.game);
        }
    }

    fn on_evaluation(&mut self, m: &EvalMetrics) {
        let r = &m.report;
        let text = match (r.mean_score, r.baseline_mean_score) {
            (Some(mean), Some(baseline)) => {
                let text = format!("score {mean:.1} vs {baseline:.1}");
                info!(
                    "evaluation after {} games vs {}: mean {text}",
                    m.game, m.opponent
                );
                text
            }
            _ => {
                let [low, high] = r.win_minus_loss_ci95;
                let text = format!(
                    "{:+.2} [{low:+.2}, {high:+.2}] (win − loss vs {})",
                    r.win_minus_loss, r.baseline
                );
                let when = match m.at_end {
                    true => "at the run's end, after",
                    false => "after",
                };
                info!(
                    "evaluation {when} {} self-play games vs {}: W/D/L {}/{}/{} over {}, win − loss {:+.2} [{low:+.2}, {high:+.2}]",
                    m.game,
                    r.baseline,
                    r.wins,
                    r.draws,
                    r.losses,
                    r.games_text(),
                    r.win_minus_loss
                );
                text
            }
        };
        self.last_eval = Some(text);
    }

    fn on_checkpoint(&mut self, games: u64, path: &Path) {
        tracing::debug!("checkpoint after {games} games: {}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::training_time_text;
    use std::time::Duration;

    #[test]
    fn the_progress_line_counts_training_time_against_the_limit() {
        let hour = Some(Duration::from_secs(3600));
        assert_eq!(
            training_time_text(754.2, hour),
            "12:34 of 1:00:00, 47:26 left"
        );
        assert_eq!(training_time_text(3700.0, None), "1:01:40 trained");
        // Past the limit (the last game's learning ends after it): nothing negative.
        assert_eq!(
            training_time_text(3601.0, hour),
            "1:00:00 of 1:00:00, 0:00 left"
        );
    }
}
