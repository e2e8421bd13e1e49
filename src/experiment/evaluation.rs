//! The evaluation half of the protocol (paper section 3.3):
//! - **curves**: at every stage, the network of variant c (repetition r) plays the final
//!   network of every variant c' of the same repetition (c' = c included), both colours; the
//!   point of c at that stage is the mean over the repetitions of each repetition's score over
//!   those games (the paper's §8.5), with the percentile bootstrap 95 % interval of that mean
//!   (`arena::bootstrap`) widened to hold the Wilson interval of all its games pooled: the
//!   bootstrap sees the spread between repetitions, Wilson the noise of the games, which a
//!   handful of repetitions cannot show (one repetition would give a point-sized bootstrap);
//! - **final table**: the final networks of all variants and repetitions play all-play-all;
//!   the score of c against c' pools every pairing of their networks, and c's overall score
//!   pools all of them, its own other repetitions included (as the paper's Table 3 does).
//!
//! - **baseline curves** (when `evaluation.baseline` is set): every stage network against a
//!   player without a network, both colours (the paper's §8.5: win rate − loss rate against base
//!   MCTS over training time, which is 2 · score − 1), their points as the curves'.
//!
//! Every match is kept in the experiment directory as it ends (`match_cache`): an evaluation cut
//! short continues where it stopped.
//!
//! Every network plays through its variant's player (`agent:`, default the experiment's
//! `evaluation.agent`, depth-1 minimax). Scores count a draw as half a win.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use super::config::{ExperimentPlan, agent_with_model};
use super::match_cache::{MatchCache, MatchKey};
use super::runs::RunNets;
use crate::arena::bootstrap;
use crate::arena::match_play::{MatchRun, Openings, game_seed, play_match_until};
use crate::arena::tournament::{all_pairs, tournament_report};
use crate::arena::{AgentFactory, MatchReport, ResultSummary, TournamentReport};
use crate::games::Game;
use crate::search::StopToken;
use crate::selfplay::run::run_state::TimeSplit;
use crate::value::NetDevice;

/// One point of a variant's curve: its score at a stage, pooled over repetitions and opponents.
#[derive(Clone, Debug, Serialize)]
pub struct CurvePoint {
    pub variant: String,
    /// From 1.
    pub stage: usize,
    /// The stage's training time (seconds): `stage × stage_every`, the last one `train_time`.
    pub train_seconds: f64,
    /// Mean self-play games learned by the stage's networks.
    pub mean_games: f64,
    /// Each repetition's score at this stage (its network's games), by repetition.
    pub repetition_scores: Vec<f64>,
    /// The point: the mean of `repetition_scores`.
    pub mean_score: f64,
    /// Its 95 % interval: the percentile bootstrap of the mean over the repetitions
    /// (`bootstrap::RESAMPLES` resamples), widened to hold `summary.score_ci95` (Wilson's on
    /// the pooled games).
    pub mean_score_ci95: [f64; 2],
    /// Every repetition's games pooled.
    #[serde(flatten)]
    pub summary: ResultSummary,
}

/// One stage network's games against one final network.
#[derive(Clone, Debug, Serialize)]
pub struct StageMatch {
    pub variant: String,
    pub repeat: u32,
    pub stage: usize,
    /// The network: its path in the experiment directory, self-play games and training time.
    pub net: String,
    pub games_learned: u64,
    pub train_seconds: f64,
    pub opponent_variant: String,
    /// W/D/L of the stage network, as P0 then as P1.
    pub as_p0: [u64; 3],
    pub as_p1: [u64; 3],
    /// Every game's moves.
    pub moves: Vec<Vec<String>>,
}

/// The final networks compared variant by variant.
#[derive(Clone, Debug, Serialize)]
pub struct FinalTable {
    pub variants: Vec<String>,
    /// `score[c][c']`: the points variant c's final networks took from c''s (None on the
    /// diagonal, where two networks of one variant meet).
    pub score: Vec<Vec<Option<f64>>>,
    /// `games[c][c']`: games behind `score[c][c']`.
    pub games: Vec<Vec<u64>>,
    /// Each variant against every final network of the experiment, its own variant's other
    /// repetitions included (each such game once from each side, its points shared): the
    /// paper's final percentage, which pools all of them (12 288 games per entry in Table 3).
    pub overall: Vec<ResultSummary>,
}

/// A variant's network compute, the mean over its repetitions: what each recipe actually got
/// of the machine in its training time.
#[derive(Clone, Debug, Serialize)]
pub struct VariantCompute {
    pub variant: String,
    pub repetitions: usize,
    /// Self-play games per run.
    pub games: f64,
    /// Positions evaluated by the network in self-play, per second of training.
    pub positions_per_second: f64,
    /// Minibatch rows learned per second of training (symmetric images included).
    pub samples_per_second: f64,
    /// Seconds per run of self-play, learning, pre-training and evaluation.
    pub time_split: TimeSplit,
}

/// Each variant's `VariantCompute` over `runs`.
fn variant_compute(names: &[String], runs: &[RunNets]) -> Vec<VariantCompute> {
    names
        .iter()
        .enumerate()
        .map(|(v, name)| {
            let mine: Vec<_> = runs.iter().filter(|r| r.variant == v).collect();
            let n = mine.len().max(1) as f64;
            let mean = |f: &dyn Fn(&RunNets) -> f64| mine.iter().map(|r| f(r)).sum::<f64>() / n;
            let per_second =
                |count: u64, run: &RunNets| count as f64 / run.compute.train_seconds.max(1e-9);
            VariantCompute {
                variant: name.clone(),
                repetitions: mine.len(),
                games: mean(&|r| r.compute.games as f64),
                positions_per_second: mean(&|r| per_second(r.compute.positions_evaluated, r)),
                samples_per_second: mean(&|r| per_second(r.compute.samples_learned, r)),
                time_split: TimeSplit {
                    search_seconds: mean(&|r| r.compute.time_split.search_seconds),
                    learn_seconds: mean(&|r| r.compute.time_split.learn_seconds),
                    pretrain_seconds: mean(&|r| r.compute.time_split.pretrain_seconds),
                    evaluation_seconds: mean(&|r| r.compute.time_split.evaluation_seconds),
                },
            }
        })
        .collect()
}

/// Everything `descent experiment` measured.
#[derive(Clone, Debug, Serialize)]
pub struct ExperimentReport {
    pub name: String,
    pub game: String,
    pub repeats: u32,
    pub train_seconds: f64,
    pub stage_seconds: f64,
    /// The evaluation player (each network plugged in), and each variant's where it has its own.
    pub agent: String,
    pub variant_agents: Vec<String>,
    pub games_per_pair: u64,
    pub variants: Vec<String>,
    /// Each variant's network compute in training.
    pub compute: Vec<VariantCompute>,
    pub curves: Vec<CurvePoint>,
    /// The player without a network every stage network met, and the curves against it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub baseline_curves: Vec<CurvePoint>,
    pub final_table: FinalTable,
    pub stage_matches: Vec<StageMatch>,
    /// The all-play-all of the final networks (named `variant#repetition`).
    pub tournament: TournamentReport,
}

/// The number of games `evaluate` plays (for a progress bar).
pub fn evaluation_games(plan: &ExperimentPlan) -> u64 {
    let v = plan.variants.len() as u64;
    let r = u64::from(plan.repeats);
    let stage_games = r * v * plan.stages() as u64 * v * plan.games_per_pair;
    let baseline_games = match plan.baseline {
        Some(_) => r * v * plan.stages() as u64 * plan.games_against_baseline,
        None => 0,
    };
    let finals = r * v;
    stage_games + baseline_games + finals * (finals - 1) / 2 * plan.games_per_pair
}

/// The openings of every evaluation game of the experiment seeded `seed`: the same for every
/// match, so that all networks meet the same positions.
fn openings(plan: &ExperimentPlan, seed: u64) -> Openings {
    Openings {
        plies: plan.opening_plies,
        seed: game_seed(seed, OPENING_SEEDS),
    }
}

/// Where the evaluation's matches come from: `cache`, else played (and kept there); `seed`
/// seeds the games, `on_game` is called after every game played.
pub struct MatchSource<'a> {
    pub cache: &'a MatchCache,
    pub seed: u64,
    pub on_game: &'a (dyn Fn() + Sync),
    /// Stops the matches (Ctrl-C): no new game starts, no new match.
    pub stop: &'a StopToken,
}

impl MatchSource<'_> {
    /// Match `name` between `players`, `games` games seeded `seed`: kept or played.
    fn play<G: Game>(
        &self,
        (initial, plan): (&G, &ExperimentPlan),
        name: &str,
        players: [&AgentFactory<G>; 2],
        (games, seed): (u64, u64),
    ) -> MatchReport {
        let openings = openings(plan, self.seed);
        let key = MatchKey {
            agent: players[0].spec.to_string(),
            opponent: players[1].spec.to_string(),
            games,
            seed,
            opening_plies: openings.plies,
            opening_seed: openings.seed,
        };
        let on_record = |_: &crate::arena::GameRecord| (self.on_game)();
        let (report, kept) = self.cache.match_or_play(name, &key, &|| {
            let run = MatchRun::new(seed, 1).stopped_by(self.stop);
            play_match_until((initial, openings), players, games, run, &on_record)
        });
        if kept {
            report.games.iter().for_each(|_| (self.on_game)());
        }
        report
    }
}

/// Plays the protocol's matches over the networks of `runs` (or reads back those `source`
/// kept) and builds the report; `None` when a stop was asked for (Ctrl-C: `source.stop`) before
/// the last match ended, the matches finished being kept.
///
/// # Errors
/// A network that cannot be loaded.
pub fn evaluate<G: Game>(
    initial: &G,
    plan: &ExperimentPlan,
    runs: &[RunNets],
    device: &NetDevice,
    source: &MatchSource<'_>,
) -> anyhow::Result<Option<ExperimentReport>> {
    let names: Vec<String> = plan.variants.iter().map(|v| v.name.clone()).collect();
    let label = |run: &RunNets| format!("{}#{}", names[run.variant], run.repeat);
    let factories = load_networks::<G>(plan, runs, device, &label)?;
    let stage_matches = play_stage_matches((initial, plan), runs, &factories, &names, source);
    let baseline_matches = match &plan.baseline {
        Some(baseline) => {
            // Without a network, as on the command line (the game's score where it has one).
            let baseline = AgentFactory::new(baseline.clone(), &plan.game, device)?;
            play_baseline_matches((initial, plan), runs, &factories, &baseline, source)
        }
        None => Vec::new(),
    };
    // The final all-play-all.
    let finals: Vec<AgentFactory<G>> = runs
        .iter()
        .map(|run| {
            let mut factory = factories[&run.final_net().base].clone();
            factory.spec.text = label(run);
            factory
        })
        .collect();
    let tournament = play_finals((initial, plan), &finals, source);
    if source.stop.is_stopped() {
        return Ok(None);
    }
    let curves = pool_curves(plan, runs, &stage_matches);
    let baseline_curves = match plan.baseline {
        Some(_) => pool_curves(plan, runs, &baseline_matches),
        None => Vec::new(),
    };
    let final_table = final_table(&names, runs, &tournament);
    Ok(Some(ExperimentReport {
        name: plan.name.clone(),
        game: plan.game.clone(),
        repeats: plan.repeats,
        train_seconds: plan.train_time.as_secs_f64(),
        stage_seconds: plan.stage_every.as_secs_f64(),
        agent: plan.agent.text.clone(),
        variant_agents: plan.variants.iter().map(|v| v.agent.text.clone()).collect(),
        games_per_pair: plan.games_per_pair,
        compute: variant_compute(&names, runs),
        variants: names,
        curves,
        baseline: plan.baseline.as_ref().map(|b| b.text.clone()),
        baseline_curves,
        final_table,
        stage_matches,
        tournament,
    }))
}

/// An agent factory per network of `runs`, each network loaded once.
fn load_networks<G: Game>(
    plan: &ExperimentPlan,
    runs: &[RunNets],
    device: &NetDevice,
    label: &dyn Fn(&RunNets) -> String,
) -> anyhow::Result<HashMap<PathBuf, AgentFactory<G>>> {
    let mut factories: HashMap<PathBuf, AgentFactory<G>> = HashMap::new();
    for run in runs {
        for (stage, net) in run.stages.iter().enumerate() {
            if !factories.contains_key(&net.base) {
                let spec = agent_with_model(
                    &plan.variants[run.variant].agent,
                    &net.base,
                    format!("{}@{}", label(run), stage + 1),
                );
                factories.insert(
                    net.base.clone(),
                    AgentFactory::new(spec, &plan.game, device)?,
                );
            }
        }
    }
    Ok(factories)
}

/// The stage matches — each stage network of each run against the final network of every run
/// of the same repetition — played on `plan.threads` threads, in a fixed order.
fn play_stage_matches<G: Game>(
    (initial, plan): (&G, &ExperimentPlan),
    runs: &[RunNets],
    factories: &HashMap<PathBuf, AgentFactory<G>>,
    names: &[String],
    source: &MatchSource<'_>,
) -> Vec<StageMatch> {
    // (stage run, stage, opponent run), opponents from the same repetition.
    let mut jobs = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        for stage in 0..run.stages.len() {
            for (j, opponent) in runs.iter().enumerate() {
                if opponent.repeat == run.repeat {
                    jobs.push((i, stage, j));
                }
            }
        }
    }
    let results = play_jobs(plan.threads, jobs.len(), &|index| {
        let (i, stage, j) = jobs[index];
        source.play(
            (initial, plan),
            &format!("stage-{index}"),
            [
                &factories[&runs[i].stages[stage].base],
                &factories[&runs[j].final_net().base],
            ],
            (plan.games_per_pair, game_seed(source.seed, index as u64)),
        )
    });
    jobs.iter()
        .zip(results)
        .map(|(&(i, stage, j), report)| {
            stage_match(
                &runs[i],
                stage,
                names,
                names[runs[j].variant].clone(),
                report,
            )
        })
        .collect()
}

/// Every stage network of every run against the baseline, on `plan.threads` threads.
fn play_baseline_matches<G: Game>(
    (initial, plan): (&G, &ExperimentPlan),
    runs: &[RunNets],
    factories: &HashMap<PathBuf, AgentFactory<G>>,
    baseline: &AgentFactory<G>,
    source: &MatchSource<'_>,
) -> Vec<StageMatch> {
    let jobs: Vec<(usize, usize)> = (0..runs.len())
        .flat_map(|i| (0..runs[i].stages.len()).map(move |stage| (i, stage)))
        .collect();
    let results = play_jobs(plan.threads, jobs.len(), &|index| {
        let (i, stage) = jobs[index];
        // Other seeds than the stage matches'.
        let seed = game_seed(source.seed ^ BASELINE_SEEDS, index as u64);
        source.play(
            (initial, plan),
            &format!("baseline-{index}"),
            [&factories[&runs[i].stages[stage].base], baseline],
            (plan.games_against_baseline, seed),
        )
    });
    let names: Vec<String> = plan.variants.iter().map(|v| v.name.clone()).collect();
    let opponent = baseline.spec.text.clone();
    jobs.iter()
        .zip(results)
        .map(|(&(i, stage), report)| stage_match(&runs[i], stage, &names, opponent.clone(), report))
        .collect()
}

/// The all-play-all of the `finals` (one per run), its pairs on `plan.threads` threads, the
/// ratings anchored on the first.
fn play_finals<G: Game>(
    (initial, plan): (&G, &ExperimentPlan),
    finals: &[AgentFactory<G>],
    source: &MatchSource<'_>,
) -> TournamentReport {
    let pairs = all_pairs(finals.len());
    let matches = play_jobs(plan.threads, pairs.len(), &|pair| {
        let (i, j) = pairs[pair];
        let seed = game_seed(game_seed(source.seed, u64::MAX), pair as u64);
        source.play(
            (initial, plan),
            &format!("final-{pair}"),
            [&finals[i], &finals[j]],
            (plan.games_per_pair, seed),
        )
    });
    let names = finals.iter().map(|f| f.spec.to_string()).collect();
    tournament_report(names, (&pairs, plan.games_per_pair), matches, 0)
}

/// Mixed into the seed of the baseline matches.
const BASELINE_SEEDS: u64 = 0xba5e_11fe;

/// The index the openings' seed is drawn at from the experiment's seed.
const OPENING_SEEDS: u64 = 0x0be1_1165;

/// A stage network's match, as the report keeps it.
fn stage_match(
    run: &RunNets,
    stage: usize,
    names: &[String],
    opponent_variant: String,
    report: MatchReport,
) -> StageMatch {
    let net = &run.stages[stage];
    StageMatch {
        variant: names[run.variant].clone(),
        repeat: run.repeat,
        stage: stage + 1,
        net: net.name.clone(),
        games_learned: net.games,
        train_seconds: net.train_seconds,
        opponent_variant,
        as_p0: report.as_p0,
        as_p1: report.as_p1,
        moves: report.games.into_iter().map(|g| g.moves).collect(),
    }
}

/// Runs `play(index)` for every index below `jobs` on `threads` threads; the reports in index
/// order.
fn play_jobs(
    threads: usize,
    jobs: usize,
    play: &(dyn Fn(usize) -> MatchReport + Sync),
) -> Vec<MatchReport> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<MatchReport>>> = Mutex::new(vec![None; jobs]);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs).max(1) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= jobs {
                        break;
                    }
                    let report = play(index);
                    results.lock().expect("results lock")[index] = Some(report);
                }
            });
        }
    });
    let results = results.into_inner().expect("results lock");
    results
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// Adds W/D/L counts.
fn add(total: &mut [u64; 3], wdl: [u64; 3]) {
    for (sum, count) in total.iter_mut().zip(wdl) {
        *sum += count;
    }
}

/// Pools the stage matches into one point per variant and stage.
fn pool_curves(plan: &ExperimentPlan, runs: &[RunNets], matches: &[StageMatch]) -> Vec<CurvePoint> {
    let mut points = Vec::new();
    for (v, variant) in plan.variants.iter().enumerate() {
        for stage in 1..=plan.stages() {
            let mut wdl = [0u64; 3];
            let mut by_repeat = std::collections::BTreeMap::<u32, [u64; 3]>::new();
            for m in matches
                .iter()
                .filter(|m| m.variant == variant.name && m.stage == stage)
            {
                for counts in [&mut wdl, by_repeat.entry(m.repeat).or_default()] {
                    add(counts, m.as_p0);
                    add(counts, m.as_p1);
                }
            }
            let summary = ResultSummary::new(wdl[0], wdl[1], wdl[2]);
            let repetition_scores: Vec<f64> = by_repeat
                .values()
                .map(|[w, d, l]| ResultSummary::new(*w, *d, *l).score)
                .collect();
            let (mean_score, mean_score_ci95) =
                mean_with_interval(&repetition_scores, &summary, (v, stage));
            let games: Vec<u64> = runs
                .iter()
                .filter(|run| run.variant == v)
                .map(|run| run.stages[stage - 1].games)
                .collect();
            points.push(CurvePoint {
                variant: variant.name.clone(),
                stage,
                train_seconds: (stage as f64 * plan.stage_every.as_secs_f64())
                    .min(plan.train_time.as_secs_f64()),
                mean_games: games.iter().sum::<u64>() as f64 / games.len().max(1) as f64,
                repetition_scores,
                mean_score,
                mean_score_ci95,
                summary,
            });
        }
    }
    points
}

/// The mean of the repetitions' `scores` and its interval: the percentile bootstrap's (seeded by
/// the point's variant and stage), widened to hold the pooled games' Wilson interval.
fn mean_with_interval(
    scores: &[f64],
    pooled: &ResultSummary,
    (variant, stage): (usize, usize),
) -> (f64, [f64; 2]) {
    if scores.is_empty() {
        return (pooled.score, pooled.score_ci95);
    }
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    let seed = (variant as u64) << 32 | stage as u64;
    let [low, high] = bootstrap::mean_interval(scores, bootstrap::RESAMPLES, seed);
    let [wilson_low, wilson_high] = pooled.score_ci95;
    (mean, [low.min(wilson_low), high.max(wilson_high)])
}

/// Pools the all-play-all of the final networks variant by variant.
fn final_table(names: &[String], runs: &[RunNets], tournament: &TournamentReport) -> FinalTable {
    let v = names.len();
    // wdl[c][c']: W/D/L of variant c's networks against c''s.
    let mut wdl = vec![vec![[0u64; 3]; v]; v];
    let mut pair = 0;
    for i in 0..runs.len() {
        for j in i + 1..runs.len() {
            let s = &tournament.matches[pair].summary;
            pair += 1;
            let (a, b) = (runs[i].variant, runs[j].variant);
            for (k, count) in [s.wins, s.draws, s.losses].into_iter().enumerate() {
                wdl[a][b][k] += count;
                wdl[b][a][2 - k] += count;
            }
        }
    }
    let score = (0..v)
        .map(|a| {
            (0..v)
                .map(|b| {
                    let [w, d, l] = wdl[a][b];
                    (a != b && w + d + l > 0)
                        .then(|| (w as f64 + 0.5 * d as f64) / (w + d + l) as f64)
                })
                .collect()
        })
        .collect();
    let games = (0..v)
        .map(|a| (0..v).map(|b| wdl[a][b].iter().sum()).collect())
        .collect();
    let overall = (0..v)
        .map(|a| {
            let mut total = [0u64; 3];
            for row in &wdl[a] {
                add(&mut total, *row);
            }
            ResultSummary::new(total[0], total[1], total[2])
        })
        .collect();
    FinalTable {
        variants: names.to_vec(),
        score,
        games,
        overall,
    }
}
