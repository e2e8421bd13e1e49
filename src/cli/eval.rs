//! `descent eval`: one agent against another, both colours, with W/D/L per side, score, the
//! win − loss rate, Elo difference (95 % intervals) and one verdict from the score's interval
//! (the sign test's p-value on request); optionally every game as JSON and a chart. In a
//! one-player game each agent plays half the games alone and the report compares their scores
//! instead.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::arena_output::MatchOptions;
use super::interrupt::{self, Interruptible};
use crate::arena::match_play::{MatchRun, Openings, play_match_until};
use crate::arena::svg_chart::match_chart;
use crate::arena::{AgentFactory, AgentSpec, MatchReport, ScoreComparison, Verdict};
use crate::games::{Game, GameSpec, GameVisitor};
use crate::search::StopToken;

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The game, e.g. awale (default: the game of the agents' network, `model=`).
    #[arg(long, value_parser = super::parse_game)]
    game: Option<GameSpec>,
    /// The evaluated agent, e.g. `ubfms:model=runs/awale,time=1s` (see README "Agents").
    #[arg(long)]
    agent: AgentSpec,
    /// Its opponent, e.g. `mcts:time=1s`, `alphabeta:depth=4`, `random`.
    #[arg(long)]
    opponent: AgentSpec,
    /// Games, half with each colour.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Also print the p-value of a test of equal strength (the exact sign test on the decisive
    /// games; Welch's t-test in a one-player game), which asks another question than the
    /// verdict's interval and can disagree with it near the edge.
    #[arg(long)]
    p_value: bool,
    /// Start each pair of games (one with each colour) from its own random opening of N plies,
    /// drawn from `--seed`: deterministic agents then play different games, not one game twice.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    opening_plies: u32,
    /// `--out DIR` writes report.json and chart.svg.
    #[command(flatten)]
    options: MatchOptions,
}

impl EvalArgs {
    /// `--game`, or the game of the agents' network (`run` sets it).
    fn game(&self) -> &GameSpec {
        self.game.as_ref().expect("run resolves the game first")
    }
}

struct EvalVisitor<'a> {
    args: &'a EvalArgs,
    stop: &'a StopToken,
}

impl GameVisitor for EvalVisitor<'_> {
    type Output = anyhow::Result<MatchReport>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let args = self.args;
        let device = args.options.device()?;
        let game = args.game().to_string();
        let agent = AgentFactory::<G>::new(args.agent.clone(), &game, &device)?;
        let opponent = AgentFactory::<G>::new(args.opponent.clone(), &game, &device)?;
        let progress = args.options.progress(args.games);
        let tally = std::sync::Mutex::new([0u64; 3]);
        let openings = Openings {
            plies: args.opening_plies,
            seed: args.options.seed,
        };
        let run = MatchRun::new(args.options.seed, args.options.threads).stopped_by(self.stop);
        let report = play_match_until(
            (&initial, openings),
            [&agent, &opponent],
            args.games,
            run,
            &|record| {
                let mut t = tally.lock().expect("tally lock");
                t[(1 - record.agent_result) as usize] += 1;
                progress.set_message(format!("agent W/D/L {}/{}/{}", t[0], t[1], t[2]));
                progress.inc(1);
            },
        );
        progress.finish_and_clear();
        Ok(report)
    }
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(mut args: EvalArgs) -> anyhow::Result<ExitCode> {
    args.game = Some(super::game_or_models_game(
        args.game.take(),
        &[&args.agent, &args.opponent],
    )?);
    super::even_games_arg("--games", args.games)?;
    args.options.check("report.json")?;
    let stop = interrupt::stop_on_first_interrupt(Interruptible::Matches);
    let start = Instant::now();
    let report = args.game().visit(EvalVisitor {
        args: &args,
        stop: &stop,
    })?;
    interrupt::refuse_empty(report.summary.games)?;
    let seconds = start.elapsed().as_secs_f64();
    let mut json = args.options.write_report(
        &report,
        args.game(),
        seconds,
        ("report.json", "chart.svg", match_chart(&report)),
    )?;
    if args.options.json {
        json.as_object_mut().expect("an object").remove("games");
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print_report(&report, &args.game().to_string(), seconds, args.p_value);
        if let Some(dir) = &args.options.out {
            println!("  wrote {}/report.json and chart.svg", dir.display());
        }
    }
    let kept = "the report holds them";
    Ok(interrupt::match_exit(
        report.summary.games,
        args.games,
        kept,
    ))
}

fn print_report(report: &MatchReport, game: &str, seconds: f64, p_value: bool) {
    let s = &report.summary;
    println!(
        "{} vs {} on {game}: {} games in {seconds:.0} s",
        report.agent, report.opponent, s.games
    );
    if let Some(scores) = &report.scores {
        print_scores(scores, p_value);
        return;
    }
    // Columns as wide as the largest count, a space between them.
    let w = 1 + s.games.max(1000).to_string().len();
    println!("         {:>w$}{:>w$}{:>w$}", "W", "D", "L");
    for (label, t) in [
        ("as P0", report.as_p0),
        ("as P1", report.as_p1),
        ("total", [s.wins, s.draws, s.losses]),
    ] {
        println!("  {label}  {:>w$}{:>w$}{:>w$}", t[0], t[1], t[2]);
    }
    println!(
        "  score       {:.1} % [{:.1}, {:.1}] (Wilson 95 %, draws half a win)",
        100.0 * s.score,
        100.0 * s.score_ci95[0],
        100.0 * s.score_ci95[1]
    );
    println!(
        "  win − loss  {} (95 %, from the score's)",
        s.win_minus_loss_text()
    );
    println!(
        "  Elo         {} (95 %, from the score's)",
        s.elo_with_interval_text()
    );
    println!(
        "  verdict     {} (the score's 95 % interval {} 50 %)",
        s.verdict.text(),
        interval_against(s.verdict)
    );
    if p_value {
        println!(
            "  p-value     {:.4} (equal strength; exact two-sided sign test on the {} decisive games)",
            s.p_value_equal,
            s.wins + s.losses
        );
    }
}

/// How the interval stands against "equal", for the verdict's line.
fn interval_against(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Stronger => "lies above",
        Verdict::NotShown => "holds",
        Verdict::Weaker => "lies below",
    }
}

/// A one-player game's report: each side played its own games (half of them), compared by score.
fn print_scores(c: &ScoreComparison, p_value: bool) {
    println!("  one player: each side plays its own games, compared by score");
    println!("             games   mean score (95 %)   best");
    for (label, s) in [("agent", &c.agent), ("opponent", &c.opponent)] {
        println!(
            "  {label:<9}{:>7}   {:>7.1} ± {:<8.1}   {:>4}",
            s.games, s.mean, s.ci95, s.best
        );
    }
    println!(
        "  difference  {:+.1} ± {:.1} (Welch 95 %)",
        c.difference, c.difference_ci95
    );
    println!(
        "  verdict     {} (the difference's 95 % interval {} 0)",
        c.verdict().text(),
        interval_against(c.verdict())
    );
    if p_value {
        println!(
            "  p-value     {:.4} (equal mean scores; Welch's t-test)",
            c.p_value_equal
        );
    }
}
