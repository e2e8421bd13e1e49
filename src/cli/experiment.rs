//! `descent experiment`: the paper's comparison protocol from an experiment file — train every
//! variant, evaluate the stage networks, write the curves and the final table.
//!
//! ```text
//! <out>/experiment.yaml            the experiment file as given (a later run must match it)
//! <out>/runs/<variant>/rep-<r>/    the training runs
//! <out>/report.json                everything, every game's moves included
//! <out>/curves.csv, curves.svg     score over training time, per variant
//! <out>/final.csv, final.svg       the final networks' all-play-all (variant table, heat map)
//! ```
//! Running the same experiment again continues it: finished runs are kept, a run cut short
//! resumes, and the reports (deterministic given the runs) are rebuilt.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use tracing::{Span, info, info_span};
use tracing_indicatif::span_ext::IndicatifSpanExt;

use super::interrupt::{self, Interruptible};
use super::train::ProgressObserver;
use crate::arena::svg_chart::tournament_heat_map;
use crate::experiment::evaluation::MatchSource;
use crate::experiment::match_cache::{EVALUATION_DIR, MatchCache};
use crate::experiment::report::{curves_chart, curves_csv, final_csv, text_tables};
use crate::experiment::runs::RunNets;
use crate::experiment::{
    ExperimentConfig, ExperimentObserver, ExperimentPlan, ExperimentReport, RunStart, evaluate,
    evaluation_games, stage_nets, train_runs,
};
use crate::games::{Game, GameSpec, GameVisitor};
use crate::selfplay::TrainingObserver;
use crate::selfplay::run::dir_lock::{DirLock, holds_more_than_its_lock};
use crate::settings::files::{Existing, read_regular_text, write_atomically};
use crate::settings::limits::MAX_SMALL_FILE_BYTES;

const EXPERIMENT_FILE: &str = "experiment.yaml";

#[derive(Args, Debug)]
pub struct ExperimentArgs {
    /// The experiment file (YAML; see configs/experiment-*.yaml).
    config: PathBuf,
    /// Where the experiment writes (default: experiments/<name>); running again continues it.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Seed of the evaluation games (the training seeds are in the experiment file).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No progress bars, warnings only.
    #[arg(long)]
    quiet: bool,
}

impl ExperimentArgs {
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }
}

/// The experiment's plan from its file; `base` paths are read relative to the file.
fn read_plan(path: &Path) -> anyhow::Result<(String, ExperimentPlan)> {
    let text = read_regular_text(path, MAX_SMALL_FILE_BYTES)
        .with_context(|| format!("cannot read the experiment {}", path.display()))?;
    let config = ExperimentConfig::from_yaml(&text).map_err(|e| super::file_error(path, e))?;
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let name = path
        .file_stem()
        .map_or("experiment".into(), |s| s.to_string_lossy().into_owned());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let read_base = |base: &str| -> anyhow::Result<String> {
        let file = dir.join(base);
        read_regular_text(&file, MAX_SMALL_FILE_BYTES)
    };
    let plan = config
        .plan(&name, cores, &read_base)
        .map_err(|e| anyhow::anyhow!("{}: {e:#}", path.display()))?;
    Ok((text, plan))
}

/// Creates the experiment directory, or checks that it holds this same experiment; returns
/// its lock, held while the experiment runs.
fn open_experiment_dir(dir: &Path, text: &str) -> anyhow::Result<DirLock> {
    let file = dir.join(EXPERIMENT_FILE);
    if !file.exists() && dir.exists() && holds_more_than_its_lock(dir)? {
        bail!(
            "{} exists and does not hold an experiment; choose another --out",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let lock = DirLock::acquire(dir, "experiment")?;
    if file.exists() {
        let found = read_regular_text(&file, MAX_SMALL_FILE_BYTES)?;
        if found != text {
            bail!(
                "{} holds another experiment ({} differs from the file given); choose another --out",
                dir.display(),
                file.display()
            );
        }
        return Ok(lock);
    }
    if holds_more_than_its_lock(dir)? {
        bail!(
            "{} exists and does not hold an experiment; choose another --out",
            dir.display()
        );
    }
    write_atomically(&file, text.as_bytes(), Existing::Replace)?;
    Ok(lock)
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(args: ExperimentArgs) -> anyhow::Result<ExitCode> {
    let (text, plan) = read_plan(&args.config)?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("experiments").join(&plan.name));
    let _lock = open_experiment_dir(&dir, &text)?;
    let start = Instant::now();
    let observer = RunsObserver {
        quiet: args.quiet,
        train_time: plan.train_time,
    };
    if let Some(threads) = plan.learning_threads.filter(|_| !args.quiet) {
        info!(
            "{} runs at once, each with {threads} core{} for its learning",
            plan.parallel_runs,
            if threads == 1 { "" } else { "s" }
        );
    }
    let stop = interrupt::stop_on_first_interrupt(Interruptible::Training);
    train_runs(&plan, &dir, &observer, &stop)?;
    if interrupt::interrupted() {
        eprintln!(
            "interrupted by {} in training: each run keeps its last checkpoint; run the same \
             command again to continue",
            interrupt::interrupted_by()
        );
        return Ok(ExitCode::from(interrupt::interrupted_exit()));
    }
    let stop = interrupt::stop_on_first_interrupt(Interruptible::Matches);
    let runs = stage_nets(&plan, &dir)?;
    let game: GameSpec = plan.game.parse()?;
    let device = plan.variants[0].settings[0].run.device.device()?;
    device.burn.seed(args.seed);
    if !args.quiet {
        let players: Vec<String> = plan
            .variants
            .iter()
            .map(|v| format!("{} ({})", v.agent, v.name))
            .collect();
        info!(
            "evaluating {} networks with {}{}",
            runs.iter().map(|r| r.stages.len()).sum::<usize>(),
            players.join(", "),
            plan.baseline
                .as_ref()
                .map_or(String::new(), |b| format!(", each also against {b}"))
        );
    }
    let report = game.visit(EvaluateVisitor {
        plan: &plan,
        runs: &runs,
        device: &device,
        seed: args.seed,
        quiet: args.quiet,
        dir: &dir,
        stop: &stop,
    })?;
    let Some(report) = report else {
        eprintln!(
            "interrupted by {} in the evaluation: the matches finished are kept in {}; run \
             the same command again to play the rest",
            interrupt::interrupted_by(),
            dir.join(EVALUATION_DIR).display()
        );
        return Ok(ExitCode::from(interrupt::interrupted_exit()));
    };
    write_report(&dir, &report)?;
    println!(
        "experiment {} on {}: {} variants × {} repetition{}, {} of training each ({:.0} s this session)",
        plan.name,
        plan.game,
        plan.variants.len(),
        plan.repeats,
        if plan.repeats == 1 { "" } else { "s" },
        crate::settings::DurationText(plan.train_time),
        start.elapsed().as_secs_f64()
    );
    print!("{}", text_tables(&report));
    println!(
        "wrote {}/report.json, curves.csv, curves.svg, final.csv, final.svg (and baseline.csv with a baseline)",
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The experiment's files in `dir`: report.json, the curves (CSV, SVG), the final table (CSV,
/// SVG) and, with a baseline, baseline.csv; each written atomically.
fn write_report(dir: &Path, report: &ExperimentReport) -> anyhow::Result<()> {
    let mut files = vec![
        (
            "report.json",
            serde_json::to_string_pretty(report)?.into_bytes(),
        ),
        ("curves.csv", curves_csv(&report.curves).into_bytes()),
        ("curves.svg", curves_chart(report).into_bytes()),
        ("final.csv", final_csv(report).into_bytes()),
        (
            "final.svg",
            tournament_heat_map(&report.tournament).into_bytes(),
        ),
    ];
    if report.baseline.is_some() {
        files.push((
            "baseline.csv",
            curves_csv(&report.baseline_curves).into_bytes(),
        ));
    }
    for (name, bytes) in &files {
        write_atomically(&dir.join(name), bytes, Existing::Replace)?;
    }
    Ok(())
}

/// Announces each run and draws its training progress bar (one per run under way).
struct RunsObserver {
    quiet: bool,
    train_time: std::time::Duration,
}

impl ExperimentObserver for RunsObserver {
    fn on_run(
        &self,
        variant: &str,
        repeat: u32,
        index: usize,
        total: usize,
        start: RunStart,
    ) -> Box<dyn TrainingObserver + Send> {
        let what = match start {
            RunStart::New => "training",
            RunStart::Resumed => "resuming",
            RunStart::Finished => "already trained",
        };
        if !self.quiet {
            info!(
                "[{index}/{total}] {variant}, repetition {repeat}: {what} ({} of training)",
                crate::settings::DurationText(self.train_time)
            );
        }
        let span = if self.quiet {
            Span::none()
        } else {
            let span = info_span!("run", variant, repeat);
            span.pb_start();
            span
        };
        // The run's bar closes with its span, when the run drops its observer.
        Box::new(ProgressObserver::new(
            span,
            self.quiet,
            Some(self.train_time),
        ))
    }
}

struct EvaluateVisitor<'a> {
    plan: &'a ExperimentPlan,
    runs: &'a [RunNets],
    device: &'a crate::value::NetDevice,
    seed: u64,
    quiet: bool,
    /// The experiment directory (its matches are kept there).
    dir: &'a Path,
    stop: &'a crate::search::StopToken,
}

impl GameVisitor for EvaluateVisitor<'_> {
    type Output = anyhow::Result<Option<ExperimentReport>>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let cache = MatchCache::open(self.dir, G::ONE_PLAYER)?;
        let bar = super::arena_output::games_progress(evaluation_games(self.plan), self.quiet);
        let source = MatchSource {
            cache: &cache,
            seed: self.seed,
            on_game: &|| bar.inc(1),
            stop: self.stop,
        };
        let report = evaluate(&initial, self.plan, self.runs, self.device, &source);
        bar.finish_and_clear();
        if cache.reused() > 0 && !self.quiet {
            info!(
                "{} matches read back from {} (kept by an earlier sitting)",
                cache.reused(),
                self.dir.join(EVALUATION_DIR).display()
            );
        }
        report
    }
}
