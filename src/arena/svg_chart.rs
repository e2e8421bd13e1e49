//! Charts as self-contained SVG (viewable in any browser, no plotting dependency): the
//! win/draw/loss bars of a match, the score heat map of a tournament, and score curves over
//! training time (experiments).

use std::fmt::Write;

use super::match_play::MatchReport;
use super::tournament::TournamentReport;

const WIN: &str = "#2e7d32";
const DRAW: &str = "#9e9e9e";
const LOSS: &str = "#c62828";

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Stacked win / draw / loss bars of a match: as P0, as P1, in total.
pub fn match_chart(report: &MatchReport) -> String {
    let (width, bar_x, bar_w) = (760.0, 120.0, 600.0);
    let mut svg = String::new();
    let s = &report.summary;
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="230" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="20" y="24" font-size="15" font-weight="bold">{} vs {}</text>
<text x="20" y="46">score {:.1} % [{:.1}, {:.1}], win − loss {}, Elo {}, p(equal) = {:.3} (95 %)</text>
"#,
        escape(&report.agent),
        escape(&report.opponent),
        100.0 * s.score,
        100.0 * s.score_ci95[0],
        100.0 * s.score_ci95[1],
        s.win_minus_loss_text(),
        s.elo_with_interval_text(),
        s.p_value_equal,
    );
    let total = [s.wins, s.draws, s.losses];
    for (row, (label, wdl)) in [
        ("as P0", report.as_p0),
        ("as P1", report.as_p1),
        ("total", total),
    ]
    .iter()
    .enumerate()
    {
        let y = 70.0 + 45.0 * row as f64;
        let n = (wdl[0] + wdl[1] + wdl[2]).max(1) as f64;
        let _ = writeln!(svg, r#"<text x="20" y="{}">{label}</text>"#, y + 20.0);
        let mut x = bar_x;
        for (count, colour) in wdl.iter().zip([WIN, DRAW, LOSS]) {
            let w = bar_w * *count as f64 / n;
            if w > 0.0 {
                let _ = writeln!(
                    svg,
                    r#"<rect x="{x:.1}" y="{y}" width="{w:.1}" height="30" fill="{colour}"/><text x="{:.1}" y="{}" fill="white" text-anchor="middle">{count}</text>"#,
                    x + w / 2.0,
                    y + 20.0
                );
            }
            x += w;
        }
    }
    let _ = writeln!(
        svg,
        r#"<text x="{bar_x}" y="222" fill="{WIN}">■ wins</text><text x="{}" y="222" fill="{DRAW}">■ draws</text><text x="{}" y="222" fill="{LOSS}">■ losses</text>
</svg>"#,
        bar_x + 80.0,
        bar_x + 170.0
    );
    svg
}

/// The narrowest tournament chart: its title and subtitle fit (13-15 px sans-serif).
const MIN_TOURNAMENT_WIDTH: f64 = 760.0;

/// Heat map of `score[i][j]` (row agent's points against the column agent), with a star where
/// the row agent is significantly stronger.
pub fn tournament_heat_map(report: &TournamentReport) -> String {
    let k = report.agents.len();
    let cell = 70.0;
    let label_w = 260.0;
    let top = 78.0;
    // Wide enough for the title and the ratings' names, however few the agents.
    let width = (label_w + cell * k as f64 + 20.0).max(MIN_TOURNAMENT_WIDTH);
    let height = top + cell * k as f64 + 40.0 + 18.0 * k as f64;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="20" y="24" font-size="15" font-weight="bold">score of the row agent against the column agent</text>
<text x="20" y="44">{} games per pair, both colours; * the row agent is significantly stronger (one-sided exact binomial p &lt; 0.05)</text>"#,
        report.games_per_pair
    );
    for (j, _) in report.agents.iter().enumerate() {
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">#{}</text>"#,
            label_w + cell * (j as f64 + 0.5),
            top - 8.0,
            j + 1
        );
    }
    for (i, name) in report.agents.iter().enumerate() {
        let y = top + cell * i as f64;
        let _ = writeln!(
            svg,
            r#"<text x="20" y="{:.1}">#{} {}</text>"#,
            y + cell / 2.0 + 4.0,
            i + 1,
            escape(&truncate(name, 34))
        );
        for j in 0..k {
            let x = label_w + cell * j as f64;
            let (fill, text) = match report.score[i][j] {
                None => ("#eeeeee".to_string(), String::new()),
                Some(s) => (
                    colour(s),
                    format!(
                        "{:.0}{}",
                        100.0 * s,
                        if report.stronger[i][j] { "*" } else { "" }
                    ),
                ),
            };
            let _ = writeln!(
                svg,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{cell}" height="{cell}" fill="{fill}" stroke="white"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{text}</text>"#,
                x + cell / 2.0,
                y + cell / 2.0 + 4.0
            );
        }
    }
    let ratings_top = top + cell * k as f64 + 24.0;
    let _ = writeln!(
        svg,
        r#"<text x="20" y="{ratings_top:.1}" font-weight="bold">Bradley-Terry ratings (Elo scale, 95 %), anchored on #{}</text>"#,
        report.ratings.anchor + 1
    );
    let ratings = &report.ratings;
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &b| ratings.elo[b].total_cmp(&ratings.elo[a]));
    for (line, &i) in order.iter().enumerate() {
        let _ = writeln!(
            svg,
            r#"<text x="20" y="{:.1}">#{} {:+.0} ± {:.0}  {}</text>"#,
            ratings_top + 18.0 * (line + 1) as f64,
            i + 1,
            ratings.elo[i],
            ratings.elo_ci95[i],
            escape(&truncate(&report.agents[i], 60))
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// One curve of a line chart: its name and points `(x, y, y's 95 % interval [low, high])`.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64, [f64; 2])>,
}

const SERIES_COLOURS: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// The frame of a score chart: plot area and scales.
struct ScoreFrame {
    left: f64,
    top: f64,
    plot_w: f64,
    plot_h: f64,
    x_min: f64,
    x_max: f64,
    /// The score at the bottom of the plot (the top is 100 %).
    y_min: f64,
}

impl ScoreFrame {
    fn px(&self, x: f64) -> f64 {
        self.left + self.plot_w * (x - self.x_min) / (self.x_max - self.x_min)
    }

    fn py(&self, y: f64) -> f64 {
        let y = y.clamp(self.y_min, 1.0);
        self.top + self.plot_h * (1.0 - (y - self.y_min) / (1.0 - self.y_min))
    }

    /// Round x ticks from `x_min`: `(x, label)`.
    fn round_ticks(&self) -> Vec<(f64, String)> {
        let step = nice_step((self.x_max - self.x_min) / 6.0);
        (0..=((self.x_max - self.x_min) / step + 1e-9).floor() as usize)
            .map(|tick| self.x_min + step * tick as f64)
            .map(|x| (x, trim_number(x, 2)))
            .collect()
    }

    /// The y grid (0-100 %), the dashed 50 % line, the x ticks, the x label and the frame.
    fn draw_axes(&self, svg: &mut String, x_label: &str, x_ticks: &[(f64, String)]) {
        let (left, top, plot_w, plot_h) = (self.left, self.top, self.plot_w, self.plot_h);
        for tick in 0..=4 {
            let y = self.y_min + (1.0 - self.y_min) * tick as f64 / 4.0;
            let _ = writeln!(
                svg,
                r##"<line x1="{left}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#dddddd"/><text x="{2:.1}" y="{3:.1}" text-anchor="end">{4} %</text>"##,
                self.py(y),
                left + plot_w,
                left - 6.0,
                self.py(y) + 4.0,
                trim_number(100.0 * y, 1)
            );
        }
        if self.y_min < 0.5 {
            let _ = writeln!(
                svg,
                r##"<line x1="{left}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#888888" stroke-dasharray="5,4"/>"##,
                self.py(0.5),
                left + plot_w
            );
        }
        for (x, label) in x_ticks {
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                self.px(*x),
                top + plot_h + 18.0,
                escape(label)
            );
        }
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text><rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#444444"/>"##,
            left + plot_w / 2.0,
            top + plot_h + 40.0,
            escape(x_label)
        );
    }

    /// One series: its 95 % band, its line, its points and its legend entry (number `index`).
    fn draw_series(&self, svg: &mut String, s: &Series, index: usize, legend_x: f64) {
        let colour = SERIES_COLOURS[index % SERIES_COLOURS.len()];
        let point = |x: f64, y: f64| format!("{:.1},{:.1}", self.px(x), self.py(y));
        let upper = s.points.iter().map(|&(x, _, [_, high])| point(x, high));
        let lower = s.points.iter().rev().map(|&(x, _, [low, _])| point(x, low));
        let band: Vec<String> = upper.chain(lower).collect();
        let line: Vec<String> = s.points.iter().map(|&(x, y, _)| point(x, y)).collect();
        let _ = writeln!(
            svg,
            r#"<polygon points="{}" fill="{colour}" fill-opacity="0.12"/><polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            band.join(" "),
            line.join(" ")
        );
        for &(x, y, _) in &s.points {
            let _ = writeln!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#,
                self.px(x),
                self.py(y)
            );
        }
        let ly = self.top + 10.0 + 22.0 * index as f64;
        let _ = writeln!(
            svg,
            r#"<rect x="{legend_x}" y="{:.1}" width="14" height="4" fill="{colour}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            ly - 4.0,
            legend_x + 20.0,
            ly + 1.0,
            escape(&truncate(&s.name, 60))
        );
    }
}

/// Curves of scores (y in [0, 1], drawn as %) against `x` from 0, each with its 95 % band,
/// and a dashed line at 50 %.
pub fn score_curves(title: &str, subtitle: &str, x_label: &str, series: &[Series]) -> String {
    let x_max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    score_chart(title, subtitle, x_label, (0.0, x_max, None, 0.0), series)
}

/// `score_curves` with the x axis labelled at `ticks` (`(x, label)`, e.g. times a move at
/// their logarithms), spanning them, and the y axis from the tenth of 100 % below the lowest
/// band (0 %, 10 %, …, 90 %) to 100 %: shares near the top stay apart.
pub fn score_curves_at_ticks(
    title: &str,
    subtitle: &str,
    x_label: &str,
    ticks: &[(f64, String)],
    series: &[Series],
) -> String {
    let x_min = ticks.iter().map(|t| t.0).fold(f64::INFINITY, f64::min);
    let x_max = ticks.iter().map(|t| t.0).fold(f64::NEG_INFINITY, f64::max);
    let (x_min, x_max) = match (x_min.is_finite(), x_max > x_min) {
        (true, true) => (x_min, x_max),
        (true, false) => (x_min - 1.0, x_min + 1.0),
        (false, _) => (-1.0, 1.0),
    };
    let lowest = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.2[0]))
        .fold(1.0f64, f64::min);
    let y_min = ((lowest * 10.0).floor() / 10.0).clamp(0.0, 0.9);
    let axes = (x_min, x_max, Some(ticks), y_min);
    score_chart(title, subtitle, x_label, axes, series)
}

/// A chart's axes: x from `x_min` to `x_max`, labelled at `ticks` (or at round steps
/// without), and y from `y_min` to 100 %.
type Axes<'a> = (f64, f64, Option<&'a [(f64, String)]>, f64);

/// The chart of both, on `Axes`.
fn score_chart(
    title: &str,
    subtitle: &str,
    x_label: &str,
    (x_min, x_max, ticks, y_min): Axes<'_>,
    series: &[Series],
) -> String {
    let frame = ScoreFrame {
        left: 70.0,
        top: 66.0,
        plot_w: 520.0,
        plot_h: 300.0,
        x_min,
        x_max,
        y_min,
    };
    let legend_x = frame.left + frame.plot_w + 20.0;
    let legend_w = series
        .iter()
        .map(|s| s.name.chars().count().min(60))
        .max()
        .unwrap_or(0);
    let width = legend_x + 40.0 + 7.5 * legend_w as f64;
    let height = frame.top + frame.plot_h + 60.0;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="20" y="24" font-size="15" font-weight="bold">{}</text>
<text x="20" y="44">{}</text>"#,
        escape(title),
        escape(subtitle)
    );
    let round_ticks = frame.round_ticks();
    frame.draw_axes(&mut svg, x_label, ticks.unwrap_or(&round_ticks));
    for (index, s) in series.iter().enumerate() {
        if !s.points.is_empty() {
            frame.draw_series(&mut svg, s, index, legend_x);
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// The round step (1, 2 or 5 × a power of ten) nearest above `raw`.
fn nice_step(raw: f64) -> f64 {
    let power = 10f64.powf(raw.max(1e-12).log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&step| step >= raw)
        .unwrap_or(10.0 * power)
}

/// A number with at most `decimals` decimals and none needless: 3, 2.5, 0.25.
pub fn trim_number(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        text.chars().take(max - 1).collect::<String>() + "…"
    }
}

/// Red (0) through white (½) to green (1).
fn colour(score: f64) -> String {
    let s = score.clamp(0.0, 1.0);
    let (r, g, b) = if s < 0.5 {
        let t = s / 0.5;
        (
            198.0 + (255.0 - 198.0) * t,
            40.0 + 215.0 * t,
            40.0 + 215.0 * t,
        )
    } else {
        let t = (s - 0.5) / 0.5;
        (255.0 - 209.0 * t, 255.0 - 130.0 * t, 255.0 - 205.0 * t)
    };
    format!("#{:02x}{:02x}{:02x}", r as u8, g as u8, b as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::{AgentFactory, play_tournament};
    use crate::games::{Game, TicTacToe};
    use crate::value::NetDevice;

    /// Two agents: the chart is still wide enough for its title, and each rating names its
    /// agent, best first.
    #[test]
    fn the_tournament_chart_fits_its_title_and_names_its_ratings() {
        let agents: Vec<AgentFactory<TicTacToe>> = ["random", "alphabeta:depth=9"]
            .iter()
            .map(|s| {
                AgentFactory::new(s.parse().unwrap(), "tic_tac_toe", &NetDevice::cpu()).unwrap()
            })
            .collect();
        let report = play_tournament(
            (&TicTacToe::new(&Default::default()), Default::default()),
            &agents,
            4,
            crate::arena::match_play::MatchRun::new(1, 1),
            0,
            &|_| {},
        );
        let svg = tournament_heat_map(&report);
        let width: f64 = svg["<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"".len()..]
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(width >= MIN_TOURNAMENT_WIDTH, "{width}");
        let best = svg
            .find("  alphabeta:depth=9</text>")
            .expect("the winner's rating named");
        let worst = svg
            .find("  random</text>")
            .expect("the loser's rating named");
        assert!(best < worst, "best first");
    }
}
