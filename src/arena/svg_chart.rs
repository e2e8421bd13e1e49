//! Charts as self-contained SVG (viewable in any browser, no plotting dependency): the
//! win/draw/loss bars of a match and the score heat map of a tournament.

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
<text x="20" y="46">score {:.1} %, win − loss {:+.2} ± {:.2}, Elo {:+.0} [{:+.0}, {:+.0}], p(equal) = {:.3}</text>
"#,
        escape(&report.agent),
        escape(&report.opponent),
        100.0 * s.score,
        s.win_minus_loss,
        s.win_minus_loss_ci95,
        s.elo,
        s.elo_ci95[0],
        s.elo_ci95[1],
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

/// Heat map of `score[i][j]` (row agent's points against the column agent), with a star where
/// the row agent is significantly stronger.
pub fn tournament_heat_map(report: &TournamentReport) -> String {
    let k = report.agents.len();
    let cell = 70.0;
    let label_w = 260.0;
    let top = 60.0;
    let width = label_w + cell * k as f64 + 20.0;
    let height = top + cell * k as f64 + 40.0 + 18.0 * k as f64;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="20" y="24" font-size="15" font-weight="bold">score of the row agent against the column agent ({} games per pair; * significant, p &lt; 0.05)</text>"#,
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
    for i in 0..k {
        let _ = writeln!(
            svg,
            r#"<text x="20" y="{:.1}">#{} {:+.0} ± {:.0}</text>"#,
            ratings_top + 18.0 * (i + 1) as f64,
            i + 1,
            report.ratings.elo[i],
            report.ratings.elo_ci95[i]
        );
    }
    svg.push_str("</svg>\n");
    svg
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
