//! `descent tournament`: all-play-all between several agents, both colours; the score matrix,
//! the Awale MCTS thesis' significance relation, Bradley-Terry ratings; JSON and a heat map.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::bail;
use clap::Args;

use super::arena_output::MatchOptions;
use super::interrupt::{self, Interruptible};
use crate::arena::match_play::MatchRun;
use crate::arena::svg_chart::tournament_heat_map;
use crate::arena::tournament::TournamentReport;
use crate::arena::{AgentFactory, AgentSpec, play_tournament};
use crate::games::{Game, GameSpec, GameVisitor};
use crate::search::StopToken;

#[derive(Args, Debug)]
pub struct TournamentArgs {
    /// The game, e.g. awale (default: the game of the agents' network, `model=`).
    #[arg(long, value_parser = super::parse_game)]
    game: Option<GameSpec>,
    /// An agent (give two or more), e.g. `--agent random --agent mcts:iters=1000`.
    #[arg(long = "agent", required = true)]
    agents: Vec<AgentSpec>,
    /// Games per pair of agents, half with each colour.
    #[arg(long, default_value_t = 50)]
    games_per_pair: u64,
    /// The agent rated 0 (its position in the --agent list, from 1).
    #[arg(long, default_value_t = 1)]
    anchor: usize,
    /// `--out DIR` writes tournament.json and heatmap.svg.
    #[command(flatten)]
    options: MatchOptions,
}

impl TournamentArgs {
    /// `--game`, or the game of the agents' network (`run` sets it).
    fn game(&self) -> &GameSpec {
        self.game.as_ref().expect("run resolves the game first")
    }
}

struct TournamentVisitor<'a> {
    args: &'a TournamentArgs,
    stop: &'a StopToken,
}

impl GameVisitor for TournamentVisitor<'_> {
    type Output = anyhow::Result<TournamentReport>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let args = self.args;
        let device = args.options.device()?;
        let game = args.game().to_string();
        let agents = args
            .agents
            .iter()
            .map(|spec| AgentFactory::<G>::new(spec.clone(), &game, &device))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let k = agents.len() as u64;
        let progress = args.options.progress(k * (k - 1) / 2 * args.games_per_pair);
        let report = play_tournament(
            (&initial, Default::default()),
            &agents,
            args.games_per_pair,
            MatchRun::new(args.options.seed, args.options.threads).stopped_by(self.stop),
            args.anchor - 1,
            &|_| progress.inc(1),
        );
        progress.finish_and_clear();
        Ok(report)
    }
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(mut args: TournamentArgs) -> anyhow::Result<ExitCode> {
    args.game = Some(super::game_or_models_game(
        args.game.take(),
        &args.agents.iter().collect::<Vec<_>>(),
    )?);
    if args.agents.len() < 2 {
        bail!("give at least two agents (--agent A --agent B …)");
    }
    super::even_games_arg("--games-per-pair", args.games_per_pair)?;
    if args.anchor == 0 || args.anchor > args.agents.len() {
        bail!(
            "--anchor {}: expected a position in the agent list, 1 to {}",
            args.anchor,
            args.agents.len()
        );
    }
    args.options.check("tournament.json")?;
    let stop = interrupt::stop_on_first_interrupt(Interruptible::Matches);
    let start = Instant::now();
    let report = args.game().visit(TournamentVisitor {
        args: &args,
        stop: &stop,
    })?;
    interrupt::refuse_empty(report.games_played())?;
    let k = args.agents.len() as u64;
    let planned = k * (k - 1) / 2 * args.games_per_pair;
    let kept = "the report holds them (and the pairings played)";
    let seconds = start.elapsed().as_secs_f64();
    let mut json = args.options.write_report(
        &report,
        args.game(),
        seconds,
        (
            "tournament.json",
            "heatmap.svg",
            tournament_heat_map(&report),
        ),
    )?;
    if args.options.json {
        for m in json["matches"].as_array_mut().expect("an array") {
            m.as_object_mut().expect("an object").remove("games");
        }
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(interrupt::match_exit(report.games_played(), planned, kept));
    }
    print_report(&report, &args.game().to_string(), seconds);
    if let Some(dir) = &args.options.out {
        println!("wrote {}/tournament.json and heatmap.svg", dir.display());
    }
    Ok(interrupt::match_exit(report.games_played(), planned, kept))
}

fn print_report(report: &TournamentReport, game: &str, seconds: f64) {
    let k = report.agents.len();
    println!(
        "tournament on {game}: {k} agents, {} games per pair, {seconds:.0} s",
        report.games_per_pair
    );
    for (i, name) in report.agents.iter().enumerate() {
        println!("  #{} {name}", i + 1);
    }
    println!(
        "score of the row against the column (%; * = significantly stronger, one-sided exact binomial p < 0.05):"
    );
    print!("      ");
    for j in 0..k {
        print!("{:>7}", format!("#{}", j + 1));
    }
    println!();
    for i in 0..k {
        print!("  #{:<3}", i + 1);
        for j in 0..k {
            match report.score[i][j] {
                None => print!("{:>7}", "-"),
                Some(s) => print!(
                    "{:>7}",
                    format!(
                        "{:.0}{}",
                        100.0 * s,
                        if report.stronger[i][j] { "*" } else { "" }
                    )
                ),
            }
        }
        println!();
    }
    let r = &report.ratings;
    println!(
        "Bradley-Terry ratings (Elo scale, 95 %), anchored on #{}:",
        r.anchor + 1
    );
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &b| r.elo[b].total_cmp(&r.elo[a]));
    for i in order {
        if report.games_of(i) == 0 {
            println!(
                "  #{:<3} unrated (no game played) {}",
                i + 1,
                report.agents[i]
            );
            continue;
        }
        println!(
            "  #{:<3}{:>+6.0} ± {:<4.0} {}",
            i + 1,
            r.elo[i],
            r.elo_ci95[i],
            report.agents[i]
        );
    }
}
