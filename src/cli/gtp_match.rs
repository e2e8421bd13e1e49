//! `descent gtp-match`: games between two GTP engines — any programs that speak GTP (GNU Go,
//! `descent engine`, …) — the engines swapping colours every game, every move first played on
//! an optional third engine, the referee: a move it refuses loses the game, and its
//! `final_score` decides. The result from the first engine's side with its Wilson interval;
//! each game of Go saved as SGF.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

use super::gtp_client::GtpClient;
use crate::arena::statistics::ResultSummary;
use crate::games::Player;
use crate::games::sgf::{SgfMove, SgfRecord};
use crate::settings::DurationText;
use crate::settings::files::{Existing, check_output, write_atomically};

#[derive(Args, Debug)]
pub struct GtpMatchArgs {
    /// The first engine's command line, Black in the first game, e.g. "gnugo --mode gtp".
    #[arg(long)]
    black: String,
    /// The second engine's command line, White in the first game.
    #[arg(long)]
    white: String,
    /// A third engine's command line: every move is played on it first (a move it refuses
    /// loses the game) and its `final_score` decides.
    #[arg(long)]
    referee: Option<String>,
    /// How many games.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    games: u32,
    /// Keep the colours: the first engine plays Black in every game.
    #[arg(long)]
    no_alternate: bool,
    /// `boardsize` sent to every engine before each game.
    #[arg(long)]
    size: Option<u32>,
    /// `komi` sent to every engine before each game.
    #[arg(long)]
    komi: Option<f64>,
    /// A game not over after this many moves ends and is scored.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_moves: u32,
    /// The longest wait for one reply (a `genmove` included).
    #[arg(long, default_value = "10m")]
    timeout: DurationText,
    /// The rules the SGF files name (`RU`): those the referee scores by (GNU Go with
    /// `--chinese-rules`: area scoring, as descent's Go).
    #[arg(long, default_value = "Chinese")]
    rules: String,
    /// Writes each game of Go (`--size` given) as `game-NNN.sgf` in this directory.
    #[arg(long)]
    sgf_dir: Option<PathBuf>,
    /// Replace existing `game-NNN.sgf` files in `--sgf-dir`.
    #[arg(long)]
    force: bool,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub enum GameEnd {
    Resigned(Player),
    TwoPasses,
    /// The mover's `genmove` was refused: the game is over for it.
    NoMoveLeft,
    MaxMoves,
    /// `player` played a move the referee refused.
    IllegalMove {
        player: Player,
        text: String,
    },
    /// Without a referee, `player`'s move `text` was refused by the other engine: one of the
    /// two is wrong and nothing says which, so the game has no result.
    Disputed {
        player: Player,
        text: String,
        message: String,
    },
    /// `player`'s engine broke the protocol (a `genmove` reply that is not one move, a
    /// hang, an exit, a reply out of step) or refused a move the referee accepted.
    Forfeit {
        player: Player,
        reason: String,
    },
}

/// One finished game, from the colours' side.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    pub moves: Vec<(Player, String)>,
    pub end: GameEnd,
    /// `B+3.5`, `W+R`, `0`; `None`: no engine could say.
    pub result: Option<String>,
    /// Engines whose own `final_score` differed from the referee's (without a referee: each
    /// engine's claim where the two differed).
    pub disagreements: Vec<String>,
}

fn colour(player: Player) -> &'static str {
    if player == Player::P0 { "b" } else { "w" }
}

/// The winner of a GTP / SGF result: `Some(None)` a draw, `None` not a result.
pub fn winner_of(result: &str) -> Option<Option<Player>> {
    let result = result.trim();
    if result == "0" || result.eq_ignore_ascii_case("draw") || result.eq_ignore_ascii_case("jigo") {
        return Some(None);
    }
    match result.get(..2).map(str::to_ascii_uppercase).as_deref() {
        Some("B+") => Some(Some(Player::P0)),
        Some("W+") => Some(Some(Player::P1)),
        _ => None,
    }
}

/// Whether two GTP / SGF results say the same: the same winner and, where both give one, the
/// same margin as a number (`B+2` and `B+2.0` agree; `B+R` and `B+2` do not; `0` and `Draw`
/// do).
fn same_result(a: &str, b: &str) -> bool {
    let margin = |result: &str| result.trim().get(2..).map(|m| m.parse::<f64>().ok());
    match (winner_of(a), winner_of(b)) {
        (Some(None), Some(None)) => true,
        (Some(winner_a), Some(winner_b)) => winner_a == winner_b && margin(a) == margin(b),
        _ => a.trim() == b.trim(),
    }
}

fn is_pass(text: &str) -> bool {
    text.eq_ignore_ascii_case("pass")
}

/// The longest move text taken from a `genmove` reply.
const MAX_MOVE_TEXT: usize = 32;

/// A `genmove` reply checked before it is sent to any other engine: one token of printable
/// ASCII (a vertex, `pass`, `resign`, or a move in the game's notation) — no space, line break
/// or comment that would carry other commands with it. `Err` is the forfeit's text, written
/// into the match's GTP exchange and its report (a string by GTP's shape).
fn checked_move_text(reply: &str) -> Result<&str, String> {
    let token = reply.trim();
    let one_token = !token.is_empty()
        && token.len() <= MAX_MOVE_TEXT
        && token.bytes().all(|b| b.is_ascii_graphic() && b != b'#');
    if one_token {
        Ok(token)
    } else {
        let shown: String = reply.chars().take(60).collect();
        Err(format!("genmove answered {shown:?}, not one move"))
    }
}

/// A Go vertex (`D4`, `pass`) as an SGF move on a `size` board; `None` if it is neither.
pub fn go_vertex_to_sgf(vertex: &str, size: usize) -> Option<SgfMove> {
    if is_pass(vertex) {
        return Some(SgfMove::Pass);
    }
    let mut chars = vertex.chars();
    let letter = chars.next()?.to_ascii_uppercase();
    let number: usize = chars.as_str().parse().ok()?;
    let col = ('A'..='Z')
        .filter(|&c| c != 'I')
        .position(|c| c == letter)?;
    (col < size && (1..=size).contains(&number)).then(|| SgfMove::Point {
        col,
        row: size - number,
    })
}

/// The engines of one game: Black, White, and the referee.
struct Table<'a> {
    players: [&'a mut GtpClient; 2],
    referee: Option<&'a mut GtpClient>,
}

impl Table<'_> {
    fn all(&mut self) -> impl Iterator<Item = &mut GtpClient> {
        let [black, white] = &mut self.players;
        [&mut **black, &mut **white]
            .into_iter()
            .chain(self.referee.as_deref_mut())
    }

    /// `boardsize`, `komi`, `clear_board` on every engine.
    fn set_up(&mut self, args: &GtpMatchArgs) -> anyhow::Result<()> {
        for engine in self.all() {
            if let Some(size) = args.size {
                engine.expect(&format!("boardsize {size}"))?;
            }
            engine.expect("clear_board")?;
            if let Some(komi) = args.komi {
                engine.expect(&format!("komi {komi}"))?;
            }
        }
        Ok(())
    }

    /// Plays one game. A player's engine that fails (hangs, exits, answers something that is
    /// not one move, refuses a move the referee accepted) forfeits it; a move refused without a
    /// referee is disputed, no result; a failing referee is an error.
    fn play(&mut self, max_moves: u32) -> anyhow::Result<PlayedGame> {
        let mut moves: Vec<(Player, String)> = Vec::new();
        let mut mover = Player::P0;
        let forfeit = |player: Player, reason: String| GameEnd::Forfeit { player, reason };
        let end = loop {
            if moves.len() >= max_moves as usize {
                break GameEnd::MaxMoves;
            }
            let reply = self.players[mover.index()].send(&format!("genmove {}", colour(mover)));
            let text = match reply {
                Ok(Ok(reply)) => match checked_move_text(&reply) {
                    Ok(text) => text.to_string(),
                    Err(reason) => break forfeit(mover, reason),
                },
                Ok(Err(_)) => break GameEnd::NoMoveLeft,
                Err(error) => break forfeit(mover, format!("{error:#}")),
            };
            if text.eq_ignore_ascii_case("resign") {
                break GameEnd::Resigned(mover);
            }
            let play = format!("play {} {text}", colour(mover));
            if let Some(referee) = self.referee.as_deref_mut()
                && let Err(message) = referee.send(&play)?
            {
                eprintln!("{}: refused {play:?}: {message}", referee.name);
                break GameEnd::IllegalMove {
                    player: mover,
                    text,
                };
            }
            let opponent = &mut self.players[mover.opponent().index()];
            match opponent.send(&play) {
                Ok(Ok(_)) => {}
                Ok(Err(message)) if self.referee.is_none() => {
                    break GameEnd::Disputed {
                        player: mover,
                        text,
                        message,
                    };
                }
                Ok(Err(message)) => {
                    break forfeit(
                        mover.opponent(),
                        format!("refused {play:?}, which the other engines accepted: {message}"),
                    );
                }
                Err(error) => break forfeit(mover.opponent(), format!("{error:#}")),
            }
            let passed = is_pass(&text);
            moves.push((mover, text));
            if passed && moves.len() >= 2 && is_pass(&moves[moves.len() - 2].1) {
                break GameEnd::TwoPasses;
            }
            mover = mover.opponent();
        };
        let (result, disagreements) = self.result(&end)?;
        Ok(PlayedGame {
            moves,
            end,
            result,
            disagreements,
        })
    }

    /// The result: by resignation or illegal move, else the referee's `final_score` (without a
    /// referee, the one both players agree on); the players whose own score differs from it.
    fn result(&mut self, end: &GameEnd) -> anyhow::Result<(Option<String>, Vec<String>)> {
        let (loser, how) = match end {
            GameEnd::Resigned(player) | GameEnd::IllegalMove { player, .. } => (Some(*player), "R"),
            // SGF's result of a game won by forfeit.
            GameEnd::Forfeit { player, .. } => (Some(*player), "F"),
            GameEnd::Disputed { .. } => return Ok((None, Vec::new())),
            _ => (None, ""),
        };
        if let Some(loser) = loser {
            let winner = if loser == Player::P0 { "W" } else { "B" };
            return Ok((Some(format!("{winner}+{how}")), Vec::new()));
        }
        // A player's score only checks the referee's: a player that fails it is not asked.
        let mut scores = Vec::new();
        for player in &mut self.players {
            let score = player.send("final_score").ok().and_then(Result::ok);
            scores.push((player.name.clone(), score));
        }
        if let Some(referee) = self.referee.as_deref_mut() {
            let score = referee.send("final_score")?.ok();
            scores.push((referee.name.clone(), score));
        }
        if self.referee.is_none() {
            return Ok(players_agreed_score(&scores));
        }
        let result = scores[2].1.clone();
        let disagreements = scores
            .iter()
            .take(2)
            .filter(|(_, score)| match (score, &result) {
                (Some(score), Some(result)) => !same_result(score, result),
                (score, _) => score.is_some(),
            })
            .map(|(name, score)| format!("{name}: {}", score.as_deref().unwrap_or("")))
            .collect();
        Ok((result, disagreements))
    }
}

/// Without a referee, the result both players' `final_score` agree on; two that differ, or one
/// engine's word with none from the other (an error, an empty reply), are no result, each
/// engine's claim listed — one engine's word never decides for both.
fn players_agreed_score(scores: &[(String, Option<String>)]) -> (Option<String>, Vec<String>) {
    let claim = |score: &Option<String>| {
        score
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    match scores {
        [(_, a), (_, b)] => match (claim(a), claim(b)) {
            (Some(a), Some(b)) if same_result(&a, &b) => (Some(a), Vec::new()),
            (None, None) => (None, Vec::new()),
            _ => {
                let said =
                    |score: &Option<String>| claim(score).unwrap_or_else(|| "no score".into());
                let claims = scores
                    .iter()
                    .map(|(name, score)| format!("{name}: {}", said(score)));
                (None, claims.collect())
            }
        },
        _ => (None, Vec::new()),
    }
}

fn end_text(end: &GameEnd) -> String {
    match end {
        GameEnd::Resigned(player) => format!("{} resigned", colour(*player)),
        GameEnd::TwoPasses => "two passes".into(),
        GameEnd::NoMoveLeft => "game over".into(),
        GameEnd::MaxMoves => "move limit".into(),
        GameEnd::IllegalMove { player, text } => {
            format!("{} played {text}, refused by the referee", colour(*player))
        }
        GameEnd::Disputed {
            player,
            text,
            message,
        } => format!(
            "disputed: {} refused {}'s {text} ({message}); without --referee no engine decides",
            colour(player.opponent()),
            colour(*player)
        ),
        GameEnd::Forfeit { player, reason } => {
            format!("{} forfeits: {reason}", colour(*player))
        }
    }
}

/// The SGF record of a game of Go on a `size` board; `None` if a move is not a Go vertex.
fn go_sgf(
    game: &PlayedGame,
    size: usize,
    komi: Option<f64>,
    (names, rules): ([String; 2], &str),
) -> Option<SgfRecord> {
    let moves = game
        .moves
        .iter()
        .map(|(player, text)| go_vertex_to_sgf(text, size).map(|mv| (*player, mv)))
        .collect::<Option<Vec<_>>>()?;
    Some(SgfRecord {
        game_number: 1,
        size: (size, size),
        komi,
        rules: Some(rules.to_string()),
        players: names,
        result: game.result.clone(),
        comment: Some(format!("descent gtp-match: {}", end_text(&game.end))),
        moves,
    })
}

/// The SGF file of game `index` (from 0) in `dir`.
fn sgf_path(dir: &Path, index: u32) -> PathBuf {
    dir.join(format!("game-{:03}.sgf", index + 1))
}

/// The match's score so far, from the first engine's side.
#[derive(Default)]
struct Tally {
    wins: u64,
    draws: u64,
    losses: u64,
    no_result: u64,
}

impl Tally {
    fn add(&mut self, game: &PlayedGame, first_plays: Player) {
        match game.result.as_deref().and_then(winner_of) {
            None => self.no_result += 1,
            Some(None) => self.draws += 1,
            Some(Some(winner)) if winner == first_plays => self.wins += 1,
            Some(Some(_)) => self.losses += 1,
        }
    }

    fn print(&self, [first, second]: [&str; 2]) {
        let summary = ResultSummary::new(self.wins, self.draws, self.losses);
        println!(
            "{first} against {second}: {}/{}/{} (W/D/L), score {:.1} % [{:.1}, {:.1}] (Wilson 95 %), Elo {}{}",
            self.wins,
            self.draws,
            self.losses,
            100.0 * summary.score,
            100.0 * summary.score_ci95[0],
            100.0 * summary.score_ci95[1],
            summary.elo_with_interval_text(),
            if self.no_result > 0 {
                format!(", {} game(s) without a result", self.no_result)
            } else {
                String::new()
            }
        );
    }
}

/// Checks the arguments and the SGF files before any engine starts.
fn check_args(args: &GtpMatchArgs) -> anyhow::Result<()> {
    if let Some(komi) = args.komi.filter(|k| !k.is_finite() || k.abs() > MAX_KOMI) {
        // 1e308 as written, not as its 309 digits.
        let shown = match komi.is_finite() {
            true => format!("{komi:e}"),
            false => format!("{komi}"),
        };
        bail!("--komi {shown}: expected a number of points from -{MAX_KOMI} to {MAX_KOMI}");
    }
    if args.timeout.0.is_zero() {
        bail!("--timeout 0s: an engine needs some time to reply (e.g. --timeout 10s)");
    }
    if args.sgf_dir.is_some() && args.size.is_none() {
        bail!("--sgf-dir writes games of Go: give the board's --size");
    }
    if let Some(dir) = &args.sgf_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for index in 0..args.games {
            check_output(&sgf_path(dir, index), Existing::replaced_if(args.force))
                .map_err(|e| anyhow::anyhow!("--sgf-dir: {e:#}"))?;
        }
    }
    Ok(())
}

/// The largest komi sent to engines, in points: more than any board holds.
const MAX_KOMI: f64 = 1000.0;

/// # Errors
/// An engine that cannot be started, a referee that fails, an engine that broke the protocol
/// (after the summary of the games played); an unwritable SGF directory.
pub fn run(args: GtpMatchArgs) -> anyhow::Result<ExitCode> {
    check_args(&args)?;
    // An engine that exits closes its pipe: writing to it must be an error (EPIPE) that
    // forfeits its game, not a signal that ends the match silently.
    // SAFETY: SIG_IGN is a valid disposition; no engine thread is started yet.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    super::gtp_client::end_engines_on_signal();
    let timeout: Duration = args.timeout.0;
    let mut engines = [
        GtpClient::start(&args.black, timeout)?,
        GtpClient::start(&args.white, timeout)?,
    ];
    let mut referee = args
        .referee
        .as_deref()
        .map(|command| GtpClient::start(command, timeout))
        .transpose()?;
    name_engines(&mut engines, referee.as_mut())?;
    let rules = agree_rules(&mut engines, referee.as_mut())?;
    let mut tally = Tally::default();
    let played = play_games(
        (&args, rules.as_deref()),
        &mut engines,
        referee.as_mut(),
        &mut tally,
    );
    tally.print([&engines[0].name, &engines[1].name]);
    played?;
    Ok(ExitCode::SUCCESS)
}

/// Names each engine as it names itself (two of one name get their order: "descent 0.1.0
/// #1"), then says once which command line each name stands for.
fn name_engines(
    engines: &mut [GtpClient; 2],
    referee: Option<&mut GtpClient>,
) -> anyhow::Result<()> {
    for engine in engines.iter_mut() {
        engine.identify()?;
    }
    if engines[0].name == engines[1].name {
        for (k, engine) in engines.iter_mut().enumerate() {
            engine.name = format!("{} #{}", engine.name, k + 1);
        }
    }
    let mut roles = vec![
        ("first engine (Black in game 1)", &engines[0]),
        ("second engine", &engines[1]),
    ];
    if let Some(referee) = referee {
        referee.identify()?;
        roles.push(("referee", &*referee));
    }
    for (role, engine) in roles {
        println!("{role}: {} = {}", engine.name, engine.command_line);
    }
    Ok(())
}

/// The engines' Go rules where they can be known (`gtp_rules`), printed; two that differ
/// refuse the match before its first move.
fn agree_rules(
    engines: &mut [GtpClient; 2],
    referee: Option<&mut GtpClient>,
) -> anyhow::Result<Option<String>> {
    let mut rules = Vec::new();
    for engine in engines.iter_mut().chain(referee) {
        rules.extend(super::gtp_rules::ko_rule_of(engine)?);
    }
    let line = super::gtp_rules::agreed_rules(&rules)?;
    if let Some(line) = &line {
        println!("{line}");
    }
    Ok(line)
}

/// Plays the match's games into `tally`, until the last or until an engine breaks; `rules` is
/// repeated beside a game that ends on a refused move.
fn play_games(
    (args, rules): (&GtpMatchArgs, Option<&str>),
    engines: &mut [GtpClient; 2],
    mut referee: Option<&mut GtpClient>,
    tally: &mut Tally,
) -> anyhow::Result<()> {
    for game_index in 0..args.games {
        let swapped = !args.no_alternate && game_index % 2 == 1;
        let [first, second] = &mut *engines;
        let players = if swapped {
            [second, first]
        } else {
            [first, second]
        };
        let names = players.each_ref().map(|e| e.name.clone());
        let mut table = Table {
            players,
            referee: referee.as_deref_mut(),
        };
        table.set_up(args)?;
        let game = table.play(args.max_moves)?;
        let result = game.result.as_deref().unwrap_or("?");
        println!(
            "game {}: black {} · white {} · {result} after {} moves ({})",
            game_index + 1,
            names[0],
            names[1],
            game.moves.len(),
            end_text(&game.end)
        );
        let differs_from = if referee.is_some() {
            "final_score differs from the referee's"
        } else {
            "final_score disputed, no result without --referee"
        };
        for disagreement in &game.disagreements {
            println!("  {differs_from}: {disagreement}");
        }
        let refused = match &game.end {
            GameEnd::IllegalMove { .. } | GameEnd::Disputed { .. } => true,
            GameEnd::Forfeit { reason, .. } => reason.starts_with("refused"),
            _ => false,
        };
        if refused && let Some(rules) = rules {
            println!("  the move was refused under the engines' rules: {rules}");
        }
        tally.add(&game, if swapped { Player::P1 } else { Player::P0 });
        if let (Some(dir), Some(size)) = (&args.sgf_dir, args.size)
            && let Some(record) = go_sgf(&game, size as usize, args.komi, (names, &args.rules))
        {
            let path = sgf_path(dir, game_index);
            let existing = Existing::replaced_if(args.force);
            write_atomically(&path, record.to_string().as_bytes(), existing)?;
        }
        if let Some(engine) = engines.iter().find(|e| e.broken().is_some()) {
            bail!(
                "the match stops after game {}: {} ({}) can no longer play ({})",
                game_index + 1,
                engine.name,
                engine.command_line,
                engine.broken().unwrap_or_default()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::same_result;

    #[test]
    fn results_agree_by_winner_and_margin_as_numbers() {
        assert!(same_result("B+2", "B+2.0"));
        assert!(same_result("w+7.5", "W+7.50"));
        assert!(same_result("0", "Draw"));
        assert!(same_result("B+R", "B+Resign"));
        assert!(!same_result("B+2", "B+3"));
        assert!(!same_result("B+2", "W+2"));
        assert!(!same_result("B+R", "B+2"));
        assert!(!same_result("0", "B+0.5"));
    }
}
