//! The experiment's outputs besides `report.json`: the curves and the final table as CSV, the
//! curves as an SVG chart (the paper's Figure 2), and both as text tables (Table 3).

use std::fmt::Write;

use super::evaluation::{CurvePoint, ExperimentReport};
use crate::arena::svg_chart::{Series, score_curves, trim_number};

/// The unit training times are shown in: seconds, minutes or hours, by the run's length.
fn time_unit(train_seconds: f64) -> (&'static str, f64) {
    if train_seconds >= 2.0 * 3600.0 {
        ("h", 3600.0)
    } else if train_seconds >= 120.0 {
        ("min", 60.0)
    } else {
        ("s", 1.0)
    }
}

/// One line per variant and stage of `points` (`report.curves` or `report.baseline_curves`).
pub fn curves_csv(points: &[CurvePoint]) -> String {
    let mut csv = String::from(
        "variant,stage,train_seconds,mean_games,repetitions,mean_score,mean_score_low,mean_score_high,games,wins,draws,losses,score,score_low,score_high,win_minus_loss,win_minus_loss_low,win_minus_loss_high\n",
    );
    for p in points {
        let s = &p.summary;
        let _ = writeln!(
            csv,
            "{},{},{:.1},{:.1},{},{:.4},{:.4},{:.4},{},{},{},{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4}",
            p.variant,
            p.stage,
            p.train_seconds,
            p.mean_games,
            p.repetition_scores.len(),
            p.mean_score,
            p.mean_score_ci95[0],
            p.mean_score_ci95[1],
            s.games,
            s.wins,
            s.draws,
            s.losses,
            s.score,
            s.score_ci95[0],
            s.score_ci95[1],
            s.win_minus_loss,
            s.win_minus_loss_ci95[0],
            s.win_minus_loss_ci95[1]
        );
    }
    csv
}

/// One line per ordered pair of variants.
pub fn final_csv(report: &ExperimentReport) -> String {
    let t = &report.final_table;
    let mut csv = String::from("variant,opponent,games,score\n");
    for (a, name) in t.variants.iter().enumerate() {
        for (b, opponent) in t.variants.iter().enumerate() {
            if let Some(score) = t.score[a][b] {
                let _ = writeln!(csv, "{name},{opponent},{},{score:.4}", t.games[a][b]);
            }
        }
    }
    csv
}

/// The curves as an SVG chart.
pub fn curves_chart(report: &ExperimentReport) -> String {
    let (unit, seconds) = time_unit(report.train_seconds);
    let series: Vec<Series> = report
        .variants
        .iter()
        .map(|name| Series {
            name: name.clone(),
            points: report
                .curves
                .iter()
                .filter(|p| &p.variant == name)
                .map(|p| (p.train_seconds / seconds, p.mean_score, p.mean_score_ci95))
                .collect(),
        })
        .collect();
    // The player, or the variants' own when they differ (an experiment of recipes).
    let player = match report.variant_agents.iter().all(|a| *a == report.agent) {
        true => report.agent.as_str(),
        false => "each variant's own player",
    };
    score_curves(
        &report.name,
        &format!(
            "score against the final networks of every variant ({} on {}, mean of {} repetition{}; 95 % bands: bootstrap over the repetitions, at least Wilson's)",
            player,
            report.game,
            report.repeats,
            if report.repeats == 1 { "" } else { "s" }
        ),
        &format!("training time ({unit})"),
        &series,
    )
}

/// The curves and the final table as text.
pub fn text_tables(report: &ExperimentReport) -> String {
    let (unit, seconds) = time_unit(report.train_seconds);
    let mut out = String::new();
    let width = report
        .variants
        .iter()
        .map(|v| v.len())
        .max()
        .unwrap_or(8)
        .max(8);
    compute_table(&mut out, report, width);
    let stages = report.curves.iter().map(|p| p.stage).max().unwrap_or(0);
    let _ = writeln!(
        out,
        "score (%) against the final networks of every variant, mean of the repetitions, by training time ({unit}):"
    );
    let _ = write!(out, "  {:width$}", "");
    for stage in 1..=stages {
        let time = report
            .curves
            .iter()
            .find(|p| p.stage == stage)
            .map_or(0.0, |p| p.train_seconds / seconds);
        let _ = write!(out, "{:>7}", trim_number(time, 3));
    }
    let _ = writeln!(out, "   games per point");
    for name in &report.variants {
        let _ = write!(out, "  {name:width$}");
        let mut games = 0;
        for p in report.curves.iter().filter(|p| &p.variant == name) {
            let _ = write!(out, "{:>7.1}", 100.0 * p.mean_score);
            games = p.summary.games;
        }
        let _ = writeln!(out, "   {games}");
    }
    if let Some(baseline) = &report.baseline {
        baseline_table(&mut out, report, baseline, width, (unit, seconds));
    }
    let t = &report.final_table;
    let _ = writeln!(
        out,
        "final networks, all-play-all (score % of the row against the column):"
    );
    let _ = write!(out, "  {:width$}", "");
    for name in &t.variants {
        let _ = write!(out, " {:>w$}", name, w = name.len().max(6));
    }
    let _ = writeln!(out, "  against every network (95 %; p of equal strength)");
    for (a, name) in t.variants.iter().enumerate() {
        let _ = write!(out, "  {name:width$}");
        for (b, other) in t.variants.iter().enumerate() {
            let cell = t.score[a][b].map_or("-".to_string(), |s| format!("{:.1}", 100.0 * s));
            let _ = write!(out, " {:>w$}", cell, w = other.len().max(6));
        }
        let s = &t.overall[a];
        let _ = writeln!(
            out,
            "  {:.1} [{:.1}, {:.1}] ({} games; p = {:.3})",
            100.0 * s.score,
            100.0 * s.score_ci95[0],
            100.0 * s.score_ci95[1],
            s.games,
            s.p_value_equal
        );
    }
    out
}

/// What each variant computed in training (mean of its repetitions).
fn compute_table(out: &mut String, report: &ExperimentReport, width: usize) {
    let _ = writeln!(
        out,
        "network compute in training, mean of the repetitions (positions evaluated in self-play and minibatch rows learned, per second of training):"
    );
    for c in &report.compute {
        let _ = writeln!(
            out,
            "  {:width$}  {:>9.0} positions/s  {:>8.0} rows/s  {:>8.0} games  ({} runs)",
            c.variant, c.positions_per_second, c.samples_per_second, c.games, c.repetitions
        );
    }
    let _ = writeln!(
        out,
        "time split, seconds a run (mean of the repetitions): self-play games, learning, pre-training (their share of the training time; in parallel mode self-play and learning overlap), then evaluations (not training time):"
    );
    let train = report.train_seconds.max(1e-9);
    for c in &report.compute {
        let t = &c.time_split;
        let share = |s: f64| 100.0 * s / train;
        let _ = writeln!(
            out,
            "  {:width$}  search {:>6.0} s ({:>3.0} %)  learning {:>6.0} s ({:>3.0} %)  pre-training {:>5.0} s ({:>3.0} %)  evaluation {:>6.0} s",
            c.variant,
            t.search_seconds,
            share(t.search_seconds),
            t.learn_seconds,
            share(t.learn_seconds),
            t.pretrain_seconds,
            share(t.pretrain_seconds),
            t.evaluation_seconds
        );
    }
}

/// The baseline curves as text: win − loss (%), the mean over the repetitions (2 · score − 1),
/// with its 95 % interval (bootstrap over the repetitions, at least Wilson's), by training time.
fn baseline_table(
    out: &mut String,
    report: &ExperimentReport,
    baseline: &str,
    width: usize,
    (unit, seconds): (&str, f64),
) {
    let _ = writeln!(
        out,
        "win − loss (%) against {baseline}, both colours, mean of the repetitions, by training time ({unit}) [95 %: bootstrap over the repetitions, at least Wilson's]:"
    );
    for name in &report.variants {
        let _ = write!(out, "  {name:width$}");
        let mut games = 0;
        for p in report.baseline_curves.iter().filter(|p| &p.variant == name) {
            let win_minus_loss = |score: f64| 100.0 * (2.0 * score - 1.0);
            let [low, high] = p.mean_score_ci95;
            let _ = write!(
                out,
                "  {}: {:+.0} [{:+.0}, {:+.0}]",
                trim_number(p.train_seconds / seconds, 3),
                win_minus_loss(p.mean_score),
                win_minus_loss(low),
                win_minus_loss(high)
            );
            games = p.summary.games;
        }
        let _ = writeln!(out, "   ({games} games a point)");
    }
}
