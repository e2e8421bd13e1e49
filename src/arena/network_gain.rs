//! What a network adds over the same search without it (`descent gain`): at each time a move,
//! the network's agent and its network-free counterpart (`AgentSpec::without_network`) each
//! measured against the same outside player — a score in games (draws half a win) or a share
//! of perfect moves — with Wilson 95 % intervals, and the difference between the two with
//! Newcombe's hybrid score interval (his method 10: the two Wilson intervals combined, for
//! independent samples). A card's table (Markdown) and its strength-against-time chart (SVG)
//! are drawn from it.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::statistics::wilson_interval;
use super::svg_chart::{Series, score_curves_at_ticks};

/// One side's measure at one time: `points` of `trials` (a win 1, a draw ½; or a perfect move
/// 1) with its Wilson 95 % interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Share {
    pub points: f64,
    pub trials: u64,
    pub share: f64,
    pub ci95: [f64; 2],
    /// What was counted, e.g. "W/D/L 31/2/7" or "955 of 1000 perfect".
    pub detail: String,
}

impl Share {
    pub fn new(points: f64, trials: u64, detail: String) -> Share {
        let (low, high) = wilson_interval(points, trials as f64);
        Share {
            points,
            trials,
            share: points / trials.max(1) as f64,
            ci95: [low, high],
            detail,
        }
    }

    /// A score in games from wins, draws and losses.
    pub fn of_games(wins: u64, draws: u64, losses: u64) -> Share {
        Share::new(
            wins as f64 + 0.5 * draws as f64,
            wins + draws + losses,
            format!("W/D/L {wins}/{draws}/{losses}"),
        )
    }

    /// "95.5 % [94.0, 96.6]".
    pub fn text(&self) -> String {
        format!(
            "{:.1} % [{:.1}, {:.1}]",
            100.0 * self.share,
            100.0 * self.ci95[0],
            100.0 * self.ci95[1]
        )
    }
}

/// Newcombe's hybrid score interval (1998, method 10) of `a.share − b.share` at 95 %, from the
/// two Wilson intervals: `[d − √((a − l_a)² + (u_b − b)²), d + √((u_a − a)² + (b − l_b)²)]`.
pub fn difference_interval(a: &Share, b: &Share) -> [f64; 2] {
    let d = a.share - b.share;
    let below = ((a.share - a.ci95[0]).powi(2) + (b.ci95[1] - b.share).powi(2)).sqrt();
    let above = ((a.ci95[1] - a.share).powi(2) + (b.share - b.ci95[0]).powi(2)).sqrt();
    [(d - below).max(-1.0), (d + above).min(1.0)]
}

/// One time a move: both sides and their difference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GainRow {
    /// The time a move as written (`100ms`, `1.6s`).
    pub time: String,
    pub seconds: f64,
    pub with_network: Share,
    pub without_network: Share,
    /// `with_network.share − without_network.share` and its 95 % interval.
    pub difference: f64,
    pub difference_ci95: [f64; 2],
}

impl GainRow {
    pub fn new(time: String, seconds: f64, with_network: Share, without_network: Share) -> Self {
        GainRow {
            time,
            seconds,
            difference: with_network.share - without_network.share,
            difference_ci95: difference_interval(&with_network, &without_network),
            with_network,
            without_network,
        }
    }

    /// "+3.1 points [+1.2, +5.0]".
    pub fn difference_text(&self) -> String {
        format!(
            "{:+.1} points [{:+.1}, {:+.1}]",
            100.0 * self.difference,
            100.0 * self.difference_ci95[0],
            100.0 * self.difference_ci95[1]
        )
    }
}

/// A time half measured: the network's side done, its counterpart's not (a sweep stopped
/// between the two). The same sweep run again measures only the counterpart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingTime {
    pub time: String,
    pub seconds: f64,
    pub with_network: Share,
}

/// The whole measure: who played whom, how it was counted, one row a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GainReport {
    pub game: String,
    /// The network's agent, without its budget (each row sets `time=`).
    pub agent: String,
    /// Where the agent's network comes from (`AgentFactory::model_origin`).
    pub agent_model: String,
    /// The SHA-256 of that network's weights as its file records it (none for an untrained
    /// network): a sweep continued must measure the same weights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_weights_sha256: Option<String>,
    /// The same search without the network.
    pub counterpart: String,
    /// What the counterpart values positions with: "random playouts" (PUCT, Gumbel) or
    /// "score" (UCT, whose leaves are random playouts; the game's score only where a playout
    /// is cut).
    pub counterpart_model: String,
    /// The outside player or measure, e.g. "`mcts:time=1s`, 40 games" or "a perfect solver's
    /// scores of 1000 positions from FILE".
    pub against: String,
    /// What a row's share is: "score" (draws half a win) or "perfect moves".
    pub measure: String,
    /// What else decides the measure: the seed, games at once, the device, the outside
    /// agent's network and the scored positions by their checksums.
    #[serde(default)]
    pub conditions: String,
    /// One row a time, in the order of their seconds.
    pub rows: Vec<GainRow>,
    /// The times half measured, where the sweep stopped between their two sides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingTime>,
    /// The command that wrote it (the card shows it).
    pub command: String,
}

impl GainReport {
    /// Whether this sweep may continue `earlier` (its rows kept, the rest measured): the same
    /// game, agents, networks (by their weights' checksum), outside player and measure.
    ///
    /// # Errors
    /// The first thing that differs, both ways, or a network with no checksum to compare.
    pub fn check_continues(&self, earlier: &GainReport) -> Result<(), String> {
        let fields: [(&str, &str, &str); 8] = [
            ("game", &earlier.game, &self.game),
            ("agent", &earlier.agent, &self.agent),
            ("agent_model", &earlier.agent_model, &self.agent_model),
            ("counterpart", &earlier.counterpart, &self.counterpart),
            (
                "counterpart_model",
                &earlier.counterpart_model,
                &self.counterpart_model,
            ),
            ("against", &earlier.against, &self.against),
            ("measure", &earlier.measure, &self.measure),
            ("conditions", &earlier.conditions, &self.conditions),
        ];
        if let Some((name, was, is)) = fields.into_iter().find(|(_, was, is)| was != is) {
            return Err(format!("its {name} was {was:?}, this sweep's is {is:?}"));
        }
        match (&earlier.agent_weights_sha256, &self.agent_weights_sha256) {
            (Some(was), Some(is)) if was == is => Ok(()),
            (Some(was), Some(is)) => Err(format!(
                "its network's weights were SHA-256 {was}, this one's are {is}"
            )),
            (None, Some(_)) => Err("it recorded no checksum of its network's weights (an \
                 earlier sweep, or one of an untrained network)"
                .to_string()),
            (_, None) => Err(format!(
                "the network ({}) records no checksum of its weights (an untrained network, or \
                 a file older than checksums), so no sweep with it can be shown to be the same",
                self.agent_model
            )),
        }
    }

    /// The row measured at `seconds`, if any.
    pub fn row_at(&self, seconds: f64) -> Option<&GainRow> {
        self.rows.iter().find(|r| same_time(r.seconds, seconds))
    }

    /// The network's side measured at `seconds` by a sweep stopped before its counterpart's.
    pub fn pending_at(&self, seconds: f64) -> Option<&Share> {
        let pending = self.pending.iter().find(|p| same_time(p.seconds, seconds));
        pending.map(|p| &p.with_network)
    }

    /// Records the network's side at a time whose counterpart is still to be measured.
    pub fn insert_pending(&mut self, half: PendingTime) {
        self.pending.retain(|p| !same_time(p.seconds, half.seconds));
        self.pending.push(half);
    }

    /// Adds `row`, replacing one at the same time, the rows kept in the order of their seconds;
    /// a pending half of that time is done.
    pub fn insert_row(&mut self, row: GainRow) {
        self.pending.retain(|p| !same_time(p.seconds, row.seconds));
        self.rows.retain(|r| !same_time(r.seconds, row.seconds));
        self.rows.push(row);
        self.rows.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    }

    /// The card's table: one line a time, both sides with intervals and the difference.
    pub fn markdown(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(
            text,
            "| time a move | `{}` (the network) | `{}` (no network) | difference |",
            self.agent, self.counterpart
        );
        text.push_str("|---|---|---|---|\n");
        for row in &self.rows {
            let _ = writeln!(
                text,
                "| {} | {} ({}) | {} ({}) | {} |",
                row.time,
                row.with_network.text(),
                row.with_network.detail,
                row.without_network.text(),
                row.without_network.detail,
                row.difference_text()
            );
        }
        let _ = writeln!(
            text,
            "\n{} against {} on {}; 95 % intervals: Wilson for each side, Newcombe's hybrid score \
             interval for the difference. Written by `{}`.",
            capitalised(&self.measure),
            self.against,
            self.game,
            self.command
        );
        text
    }

    /// Strength against thinking time: both curves with their 95 % bands, time on a log axis.
    pub fn svg(&self) -> String {
        let first = self.rows.first().map_or(1.0, |r| r.seconds.max(1e-6));
        let x = |seconds: f64| (seconds / first).log2();
        let curve = |name: &str, side: fn(&GainRow) -> &Share| Series {
            name: name.to_string(),
            points: self
                .rows
                .iter()
                .map(|r| (x(r.seconds), side(r).share, side(r).ci95))
                .collect(),
        };
        let ticks: Vec<(f64, String)> = self
            .rows
            .iter()
            .map(|r| (x(r.seconds), r.time.clone()))
            .collect();
        score_curves_at_ticks(
            &format!("{}: {} against time a move", self.game, self.measure),
            &format!("against {}", self.against),
            "time a move (log scale)",
            &ticks,
            &[
                curve(&format!("with the network ({})", self.agent), |r| {
                    &r.with_network
                }),
                curve(&format!("without ({})", self.counterpart), |r| {
                    &r.without_network
                }),
            ],
        )
    }
}

/// Whether two times a move in seconds are the same to the nanosecond (a time read back from
/// gain.json may differ from the parsed one in its last bit).
fn same_time(a: f64, b: f64) -> bool {
    (a * 1e9).round() == (b * 1e9).round()
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(successes: u64, trials: u64) -> Share {
        Share::new(successes as f64, trials, String::new())
    }

    #[test]
    fn the_difference_interval_is_newcombes_method_10() {
        // Newcombe (1998), "Interval estimation for the difference between independent
        // proportions", Table II, examples (a) and (e): 56/70 − 48/80 and 9/10 − 3/10.
        let [low, high] = difference_interval(&share(56, 70), &share(48, 80));
        assert!(
            (low - 0.0524).abs() < 5e-4 && (high - 0.3339).abs() < 5e-4,
            "{low} {high}"
        );
        let [low, high] = difference_interval(&share(9, 10), &share(3, 10));
        assert!(
            (low - 0.1705).abs() < 5e-4 && (high - 0.8090).abs() < 5e-4,
            "{low} {high}"
        );
        // It holds the difference and stays within [-1, 1] at the edges.
        let [low, high] = difference_interval(&share(10, 10), &share(0, 10));
        assert!(low > 0.5 && high == 1.0, "{low} {high}");
    }

    #[test]
    fn the_table_has_a_row_a_time_and_the_chart_both_curves() {
        let report = GainReport {
            game: "tic_tac_toe".into(),
            agent: "puct:model=untrained".into(),
            agent_model: "untrained paper-cnn".into(),
            agent_weights_sha256: None,
            counterpart: "puct:model=playouts".into(),
            counterpart_model: "random playouts".into(),
            against: "mcts:time=10ms".into(),
            measure: "score".into(),
            conditions: String::new(),
            rows: vec![
                GainRow::new(
                    "10ms".into(),
                    0.01,
                    Share::of_games(5, 3, 2),
                    Share::of_games(2, 3, 5),
                ),
                GainRow::new(
                    "40ms".into(),
                    0.04,
                    Share::of_games(6, 4, 0),
                    Share::of_games(3, 4, 3),
                ),
            ],
            pending: Vec::new(),
            command: "descent gain …".into(),
        };
        let table = report.markdown();
        assert_eq!(table.lines().filter(|l| l.starts_with("| ")).count(), 3);
        assert!(table.contains("| 10ms | 65.0 % ["), "{table}");
        assert!(table.contains("(W/D/L 2/3/5)"), "{table}");
        assert!(table.contains("+30.0 points ["), "{table}");
        let svg = report.svg();
        assert_eq!(svg.matches("<polyline").count(), 2, "{svg}");
        assert!(svg.contains(">40ms<"), "{svg}");
        // The y axis starts at the tenth below the lowest band (2/3/5: Wilson's low 15.4 %).
        assert!(svg.contains(">10 %<") && svg.contains(">100 %<"), "{svg}");
        assert!(!svg.contains(">0 %<"), "{svg}");
    }

    fn sweep(sha: Option<&str>) -> GainReport {
        GainReport {
            game: "othello".into(),
            agent: "ubfms:model=shipped".into(),
            agent_model: "othello.descent".into(),
            agent_weights_sha256: sha.map(str::to_string),
            counterpart: "mcts".into(),
            counterpart_model: "score".into(),
            against: "`mcts:time=1s`, 40 games".into(),
            measure: "score".into(),
            conditions: "seed 1".into(),
            rows: Vec::new(),
            pending: Vec::new(),
            command: "descent gain …".into(),
        }
    }

    #[test]
    fn a_sweep_continues_only_the_same_measure_of_the_same_weights() {
        let earlier = sweep(Some("ab12"));
        assert_eq!(sweep(Some("ab12")).check_continues(&earlier), Ok(()));
        let other_weights = sweep(Some("cd34")).check_continues(&earlier).unwrap_err();
        assert!(other_weights.contains("ab12") && other_weights.contains("cd34"));
        let unchecked = sweep(None).check_continues(&sweep(None)).unwrap_err();
        assert!(unchecked.contains("no checksum"), "{unchecked}");
        let mut more_games = sweep(Some("ab12"));
        more_games.against = "`mcts:time=1s`, 80 games".into();
        let differs = more_games.check_continues(&earlier).unwrap_err();
        assert!(differs.starts_with("its against was"), "{differs}");
        let mut other_game = more_games.clone();
        other_game.game = "awale".into();
        let first = other_game.check_continues(&earlier).unwrap_err();
        assert!(first.starts_with("its game was \"othello\""), "{first}");
        let mut other_seed = sweep(Some("ab12"));
        other_seed.conditions = "seed 2".into();
        let seed = other_seed.check_continues(&earlier).unwrap_err();
        assert!(seed.starts_with("its conditions was"), "{seed}");
        let older = sweep(Some("ab12"))
            .check_continues(&sweep(None))
            .unwrap_err();
        assert!(older.starts_with("it recorded no checksum"), "{older}");
    }

    #[test]
    fn rows_stay_in_time_order_one_a_time_and_a_row_ends_its_pending_half() {
        let mut report = sweep(Some("ab12"));
        let row = |seconds: f64, wins: u64| {
            GainRow::new(
                format!("{seconds}s"),
                seconds,
                Share::of_games(wins, 0, 4 - wins),
                Share::of_games(1, 0, 3),
            )
        };
        report.insert_pending(PendingTime {
            time: "0.4s".into(),
            seconds: 0.4,
            with_network: Share::of_games(3, 0, 1),
        });
        for (seconds, wins) in [(1.6, 4), (0.1, 2), (0.025, 1), (0.1, 3)] {
            report.insert_row(row(seconds, wins));
        }
        let times: Vec<f64> = report.rows.iter().map(|r| r.seconds).collect();
        assert_eq!(times, [0.025, 0.1, 1.6]);
        assert_eq!(report.row_at(0.1).unwrap().with_network.points, 3.0);
        assert_eq!(
            report.pending_at(0.4).unwrap().points,
            3.0,
            "not measured yet"
        );
        report.insert_row(row(0.4, 3));
        assert_eq!(report.pending, []);
        assert_eq!(report.rows.len(), 4);
        // A time read back a bit off is the same time.
        let read_back = 0.4 * (1.0 + f64::EPSILON);
        assert_ne!(read_back, 0.4);
        assert!(report.row_at(read_back).is_some());
        report.insert_row(row(read_back, 0));
        assert_eq!(report.rows.len(), 4, "replaced, not added");
    }
}
