//! `descent games-export RUN [--out FILE] [--last N]`: a run's self-play games (games.jsonl) as
//! one file in their community's format — an SGF collection for Go, Othello, Gomoku and Hex, a
//! PDN file for draughts — for Sabaki, GoGui, HexGui or any draughts program.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;

use super::game_files::{record_extension, record_text};
use crate::games::{Game, GameSpec, GameVisitor};
use crate::selfplay::TrainConfig;
use crate::selfplay::run::games_log::{GAMES_FILE, GameLine};
use crate::selfplay::run::run_dir::RunDir;
use crate::settings::files::{
    Existing, check_output, for_each_line, open_regular, write_atomically,
};
use crate::settings::limits::MAX_LOG_LINE_BYTES;

#[derive(Args, Debug)]
pub struct GamesExportArgs {
    /// The run directory.
    run: PathBuf,
    /// The file to write (default: RUN/games.sgf or RUN/games.pdn).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Only the last N games.
    #[arg(long)]
    last: Option<usize>,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
}

/// The lines of games.jsonl that could not be exported: how many, and the first one's reason.
#[derive(Default)]
struct Skipped {
    count: usize,
    first: Option<String>,
}

impl Skipped {
    fn add(&mut self, reason: String) {
        self.count += 1;
        self.first.get_or_insert(reason);
    }
}

/// The games of games.jsonl (the last `last` of them), each with its line number; a line that
/// is not UTF-8 or not a game is skipped and counted.
fn read_games(
    args: &GamesExportArgs,
    skipped: &mut Skipped,
) -> anyhow::Result<Vec<(usize, GameLine)>> {
    let path = args.run.join(GAMES_FILE);
    // Opened first so that a missing log is an error here (for_each_line reads none).
    drop(open_regular(&path).with_context(|| format!("opening {}", path.display()))?);
    let mut games = std::collections::VecDeque::new();
    let mut index = 0;
    for_each_line(&path, MAX_LOG_LINE_BYTES, |line| {
        index += 1;
        let at = format!("{}:{index}", path.display());
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        match std::str::from_utf8(line) {
            Err(_) => skipped.add(format!("{at}: not UTF-8 text")),
            Ok(text) => match serde_json::from_str::<GameLine>(text) {
                Ok(game) => {
                    // With --last N only the newest N are held, however long the log.
                    if args.last.is_some_and(|n| games.len() >= n) {
                        games.pop_front();
                    }
                    if args.last != Some(0) {
                        games.push_back((index, game));
                    }
                }
                Err(e) => skipped.add(format!("{at}: not a game ({e})")),
            },
        }
        std::ops::ControlFlow::Continue(())
    })?;
    Ok(games.into())
}

struct Export<'a> {
    rules: &'a GameSpec,
    run: &'a std::path::Path,
    games: &'a [(usize, GameLine)],
    skipped: &'a mut Skipped,
}

impl GameVisitor for Export<'_> {
    /// The file's text and the number of games in it.
    type Output = (String, usize);

    /// Every game whose moves are legal; the others skipped and counted, like malformed lines.
    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let mut out = String::new();
        let mut exported = 0;
        for (line, game) in self.games {
            let event = format!("{} self-play game {}", self.run.display(), game.game);
            let players = [
                format!("descent net {}", game.net_version),
                format!("descent net {}", game.net_version),
            ];
            match record_text(self.rules, &initial, &game.moves, players, &event) {
                Ok(text) => {
                    out.push_str(&text);
                    exported += 1;
                }
                Err(e) => self.skipped.add(format!(
                    "{}:{line}: game {}: {e:#}",
                    self.run.join(GAMES_FILE).display(),
                    game.game
                )),
            }
        }
        (out, exported)
    }
}

/// # Errors
/// Not a run, a game without a file format, an unreadable games.jsonl, a failed write.
pub fn run(args: GamesExportArgs) -> anyhow::Result<ExitCode> {
    let run_dir = RunDir::open(&args.run)?;
    let config = TrainConfig::from_yaml(&run_dir.config_text()?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.run.join("config.yaml").display()))?;
    let rules: GameSpec = config.game.parse()?;
    let Some(extension) = record_extension(&rules) else {
        bail!(
            "{rules} has no standard game file: SGF records go, othello, gomoku and hex, PDN records draughts"
        );
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.run.join(format!("games.{extension}")));
    let existing = Existing::replaced_if(args.force);
    check_output(&out, existing).map_err(|e| anyhow::anyhow!("--out: {e:#}"))?;
    let mut skipped = Skipped::default();
    let games = read_games(&args, &mut skipped)?;
    let (text, exported) = rules.visit(Export {
        rules: &rules,
        run: &args.run,
        games: &games,
        skipped: &mut skipped,
    });
    write_atomically(&out, text.as_bytes(), existing)?;
    println!("{exported} game(s) written to {}", out.display());
    if let Some(first) = &skipped.first {
        println!(
            "{} line(s) of {GAMES_FILE} skipped (not UTF-8, not a game, or an illegal game); the first: {first}",
            skipped.count
        );
    }
    Ok(ExitCode::SUCCESS)
}
