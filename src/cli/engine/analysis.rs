//! Live analysis in `descent engine`, as Go GUIs read it (Sabaki, Lizzie, KaTrain):
//! `lz-analyze` (Leela Zero's extension) and `kata-analyze` (KataGo's) search the position
//! until the next command arrives, writing one `info` line every interval — each move's
//! visits, win rate and prior (from the side to move), lower confidence bound, rank and
//! principal variation — and end the reply with an empty line; their `genmove` forms
//! (`lz-genmove_analyze`, `kata-genmove_analyze`) search as `genmove` does, write the root's
//! line, then `play MOVE`.
//!
//! Arguments: `[player] [interval]` (centiseconds; 100 by default) and key-value pairs, of
//! which `interval N` is read and the others (`minmoves`, `maxmoves`, `avoid`, `allow`,
//! `ownership`, …) are accepted and ignored.

use std::io::Write;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::{Engine, InputLine, Refusal};
use crate::arena::analysis::Candidate;
use crate::arena::parse_player;
use crate::games::{Game, GameExt, Player};

/// The analysis commands (their arguments vary: `parse` reads them).
pub const COMMANDS: &[&str] = &[
    "lz-analyze",
    "kata-analyze",
    "lz-genmove_analyze",
    "kata-genmove_analyze",
];

/// The longest search between two looks at the input: the analysis stops within about this
/// long after the next command arrives.
const STEP: Duration = Duration::from_millis(40);
/// The interval when the command gives none, in centiseconds.
const DEFAULT_INTERVAL_CS: u64 = 100;
/// The longest interval accepted, in centiseconds (an hour).
const MAX_INTERVAL_CS: u64 = 360_000;

/// Leela Zero's format (integers in 1/10 000) or KataGo's (floats in [0, 1]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Leela,
    Kata,
}

/// One analysis command, read.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The command's id, echoed in the reply.
    pub id: String,
    pub format: Format,
    /// The side asked for (`None`: the side to move).
    pub player: Option<Player>,
    pub interval: Duration,
    /// `…genmove_analyze`: search as `genmove`, then play.
    pub genmove: bool,
}

/// The analysis command of `words` (an id first or not), `None` if it is none; `Err` holds the
/// whole `?` reply (a string: GTP's failure reply is free text).
pub fn parse(words: &[&str]) -> Option<Result<Request, String>> {
    let (id, command, args) = match words {
        [first, command, args @ ..] if first.parse::<u64>().is_ok() => {
            (first.to_string(), *command, args)
        }
        [command, args @ ..] => (String::new(), *command, args),
        [] => return None,
    };
    let (format, genmove) = match command {
        "lz-analyze" => (Format::Leela, false),
        "kata-analyze" => (Format::Kata, false),
        "lz-genmove_analyze" => (Format::Leela, true),
        "kata-genmove_analyze" => (Format::Kata, true),
        _ => return None,
    };
    Some(
        read_args(args)
            .map(|(player, interval)| Request {
                id: id.clone(),
                format,
                player,
                interval,
                genmove,
            })
            .map_err(|why| format!("?{id} {why}\n\n")),
    )
}

/// `[player] [interval] key value …`; `Err` is the text of GTP's `?` reply.
fn read_args(args: &[&str]) -> Result<(Option<Player>, Duration), String> {
    let mut rest = args;
    let mut player = None;
    if let [first, tail @ ..] = rest
        && let Ok(p) = parse_player(first)
    {
        player = Some(p);
        rest = tail;
    }
    let mut interval = DEFAULT_INTERVAL_CS;
    if let [first, tail @ ..] = rest
        && first.bytes().all(|b| b.is_ascii_digit())
    {
        interval = centiseconds(first)?;
        rest = tail;
    }
    while let [key, tail @ ..] = rest {
        let values = match *key {
            "avoid" | "allow" => 3,
            _ => 1,
        };
        if tail.len() < values {
            return Err(format!("{key} needs {values} value(s)"));
        }
        if *key == "interval" {
            interval = centiseconds(tail[0])?;
        }
        rest = &tail[values..];
    }
    Ok((player, Duration::from_millis(interval * 10)))
}

/// An interval in centiseconds; `Err` is the text of GTP's `?` reply (free text by protocol).
fn centiseconds(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|&n| n <= MAX_INTERVAL_CS)
        .ok_or_else(|| {
            format!("interval {text:?}: expected centiseconds from 0 to {MAX_INTERVAL_CS}")
        })
}

/// Why the analysis stopped: the line that arrived, or the end of the input.
pub(in crate::cli) enum Stopped {
    By(std::io::Result<InputLine>),
    InputClosed,
}

impl<G: Game> Engine<G> {
    /// Runs `request`, writing to `out`; a live analysis stops at the next line of `input`,
    /// which it returns for the caller to answer.
    pub(in crate::cli) fn analyse(
        &mut self,
        request: &Request,
        input: &Receiver<std::io::Result<InputLine>>,
        out: &mut impl Write,
    ) -> std::io::Result<Option<Stopped>> {
        let id = &request.id;
        let position = match self.analysis_position(request.player) {
            Ok(position) => position,
            Err(refusal) => {
                write!(out, "?{id} {refusal}\n\n")?;
                out.flush()?;
                return Ok(None);
            }
        };
        if request.genmove {
            let reply = self.genmove(position.to_move());
            let line = self.info_line(&position, request.format);
            // An empty line would end the reply: no `info` line without an entry.
            let line = if line.is_empty() { line } else { line + "\n" };
            match reply {
                Ok(played) => write!(out, "={id}\n{line}play {played}\n\n")?,
                Err(refusal) => write!(out, "?{id} {refusal}\n\n")?,
            }
            out.flush()?;
            return Ok(None);
        }
        writeln!(out, "={id}")?;
        out.flush()?;
        let stopped = self.analyse_until_input(&position, request, input, out)?;
        // The reply's end: an empty line after the last `info` line.
        writeln!(out)?;
        out.flush()?;
        Ok(Some(stopped))
    }

    /// Searches `position` in steps, writing a line every `request.interval`, until a line of
    /// input arrives or the input ends.
    fn analyse_until_input(
        &mut self,
        position: &G,
        request: &Request,
        input: &Receiver<std::io::Result<InputLine>>,
        out: &mut impl Write,
    ) -> std::io::Result<Stopped> {
        let mut next_line_at = Instant::now() + request.interval;
        let mut searches = true;
        loop {
            if searches {
                searches = self.agent.search_further(position, STEP, &mut self.rng);
                match input.try_recv() {
                    Ok(line) => return Ok(Stopped::By(line)),
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        return Ok(Stopped::InputClosed);
                    }
                    Err(std::sync::mpsc::TryRecvError::Empty) => {}
                }
            } else {
                // Nothing to search (a one-ply agent): wait for the next command.
                match input.recv_timeout(STEP) {
                    Ok(line) => return Ok(Stopped::By(line)),
                    Err(RecvTimeoutError::Disconnected) => return Ok(Stopped::InputClosed),
                    Err(RecvTimeoutError::Timeout) => {}
                }
            }
            if !request.interval.is_zero() && Instant::now() >= next_line_at {
                let line = self.info_line(position, request.format);
                // An empty line would end the reply: none until the search has a move.
                if !line.is_empty() {
                    writeln!(out, "{line}")?;
                    out.flush()?;
                }
                next_line_at = Instant::now() + request.interval;
            }
        }
    }

    /// The position analysed: the game's, with `player` (if given) to move.
    fn analysis_position(&self, player: Option<Player>) -> Result<G, Refusal> {
        let position = self.session.position().clone();
        if position.is_terminal() {
            return Err(Refusal("the game is over".into()));
        }
        if let Some(player) = player
            && player != position.to_move()
        {
            return Err(Refusal(format!(
                "{} is to move, not {}",
                G::side_text(position.to_move()),
                G::side_text(player)
            )));
        }
        Ok(position)
    }

    /// The `info` entries of the agent's last search of `position`, on one line.
    fn info_line(&self, position: &G, format: Format) -> String {
        let candidates = self.agent.candidates(position);
        let entries: Vec<String> = candidates
            .iter()
            .enumerate()
            .map(|(order, c)| self.info_entry(position, c, order, format))
            .collect();
        entries.join(" ")
    }

    fn info_entry(&self, position: &G, c: &Candidate, order: usize, format: Format) -> String {
        let winrate = self.mover_winrate(position, c.value_p0);
        let lcb = lower_confidence_bound(winrate, c.visits);
        let pv = self.pv_text(position, &c.pv);
        let mv = self.gtp_text(position, c.action);
        match format {
            Format::Leela => format!(
                "info move {mv} visits {} winrate {} prior {} lcb {} order {order} pv {pv}",
                c.visits,
                per_10000(winrate),
                per_10000(c.prior),
                per_10000(lcb),
            ),
            Format::Kata => format!(
                "info move {mv} visits {} winrate {winrate:.6} prior {:.6} lcb {lcb:.6} order {order} pv {pv}",
                c.visits, c.prior,
            ),
        }
    }

    /// The win rate of a move of value `value_p0` for the side to move of `position`, in
    /// [0, 1]: its value read on the outcome's scale (a score network's margin as a share of
    /// the board), mapped from [−1, 1].
    fn mover_winrate(&self, position: &G, value_p0: f32) -> f32 {
        let mover_value = value_p0 * position.to_move().sign();
        let reading = self
            .resign
            .scale
            .reading(mover_value)
            .unwrap_or(mover_value.clamp(-1.0, 1.0));
        (0.5 + 0.5 * reading).clamp(0.0, 1.0)
    }

    fn pv_text(&self, position: &G, pv: &[crate::games::Action]) -> String {
        let mut at = position.clone();
        let mut words = Vec::with_capacity(pv.len());
        for &action in pv {
            words.push(self.gtp_text(&at, action));
            at.play(action);
        }
        words.join(" ")
    }

    fn gtp_text(&self, position: &G, action: crate::games::Action) -> String {
        let text = position.move_to_text(action);
        match G::GTP_UPPER_CASE {
            true => text.to_uppercase(),
            false => text,
        }
    }
}

/// A win rate in 1/10 000, rounded (Leela Zero's integers).
fn per_10000(share: f32) -> i64 {
    (f64::from(share) * 10_000.0).round() as i64
}

/// The lower end of a normal 95 % interval of `winrate` over `visits` trials (the win rate of
/// a move visited once is no surer than a coin): 0 without a visit.
pub fn lower_confidence_bound(winrate: f32, visits: u32) -> f32 {
    if visits == 0 {
        return 0.0;
    }
    let p = f64::from(winrate);
    let half_width = 1.96 * (p * (1.0 - p) / f64::from(visits)).sqrt();
    (p - half_width) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(line: &str) -> Option<Result<Request, String>> {
        parse(&line.split_whitespace().collect::<Vec<_>>())
    }

    #[test]
    fn the_commands_arguments_are_read_as_leela_zero_and_katago_send_them() {
        let r = request("lz-analyze b 50").unwrap().unwrap();
        assert_eq!(
            (r.format, r.player, r.interval, r.genmove, r.id.as_str()),
            (
                Format::Leela,
                Some(Player::P0),
                Duration::from_millis(500),
                false,
                ""
            )
        );
        let r = request("7 kata-analyze interval 20 ownership true")
            .unwrap()
            .unwrap();
        assert_eq!(
            (r.format, r.player, r.interval, r.id.as_str()),
            (Format::Kata, None, Duration::from_millis(200), "7")
        );
        let r = request("lz-analyze w avoid b D4,E5 10 maxmoves 3")
            .unwrap()
            .unwrap();
        assert_eq!(
            (r.player, r.interval),
            (Some(Player::P1), Duration::from_secs(1))
        );
        assert!(request("kata-genmove_analyze 30").unwrap().unwrap().genmove);
        assert!(request("genmove b").is_none());
        let bad = request("3 lz-analyze b 99999999").unwrap().unwrap_err();
        assert!(
            bad.starts_with("?3 interval \"99999999\"") && bad.ends_with("\n\n"),
            "{bad}"
        );
        let bad = request("lz-analyze avoid b").unwrap().unwrap_err();
        assert!(bad.contains("avoid needs 3"), "{bad}");
    }

    #[test]
    fn the_lower_confidence_bound_narrows_with_the_visits() {
        assert_eq!(lower_confidence_bound(0.7, 0), 0.0);
        let few = lower_confidence_bound(0.7, 10);
        let many = lower_confidence_bound(0.7, 1000);
        assert!(few < many && many < 0.7, "{few} {many}");
        // 0.7 − 1.96 · √(0.21 / 100) = 0.610 18
        assert!((lower_confidence_bound(0.7, 100) - 0.61018).abs() < 1e-4);
    }
}
