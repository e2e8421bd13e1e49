//! `descent games-export RUN [--out FILE] [--last N]`: a run's self-play games (games.jsonl) as
//! one file in their community's format — an SGF collection for Go, Othello, Gomoku and Hex, a
//! PDN file for draughts — for Sabaki, GoGui, HexGui or any draughts program.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;

use super::game_files::{record_extension, record_text};
use crate::games::{Game, GameSpec, GameVisitor};
use crate::selfplay::TrainConfig;
use crate::selfplay::run::run_dir::RunDir;
use crate::selfplay::telemetry::games_log::{GAMES_FILE, GameLine};

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
}

/// The games of games.jsonl (the last `last` of them), and how many lines were not games.
fn read_games(args: &GamesExportArgs) -> anyhow::Result<(Vec<GameLine>, usize)> {
    let path = args.run.join(GAMES_FILE);
    let file = std::fs::File::open(&path).with_context(|| format!("opening {}", path.display()))?;
    let mut games = Vec::new();
    let mut bad = 0;
    for line in std::io::BufReader::new(file).lines() {
        match serde_json::from_str::<GameLine>(&line?) {
            Ok(game) => games.push(game),
            Err(_) => bad += 1,
        }
    }
    let keep = args.last.map_or(0, |n| games.len().saturating_sub(n));
    games.drain(..keep);
    Ok((games, bad))
}

struct Export<'a> {
    rules: &'a GameSpec,
    run: String,
    games: &'a [GameLine],
}

impl GameVisitor for Export<'_> {
    type Output = anyhow::Result<String>;

    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let mut out = String::new();
        for game in self.games {
            let event = format!("{} self-play game {}", self.run, game.game);
            let players = [
                format!("descent net {}", game.net_version),
                format!("descent net {}", game.net_version),
            ];
            out.push_str(
                &record_text(self.rules, &initial, &game.moves, players, &event)
                    .with_context(|| format!("game {} of {}", game.game, self.run))?,
            );
        }
        Ok(out)
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
    let (games, bad) = read_games(&args)?;
    let text = rules.visit(Export {
        rules: &rules,
        run: args.run.display().to_string(),
        games: &games,
    })?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| args.run.join(format!("games.{extension}")));
    crate::value::saved_net::write_atomically(&out, text.as_bytes())?;
    println!("{} game(s) written to {}", games.len(), out.display());
    if bad > 0 {
        println!("{bad} line(s) of {GAMES_FILE} were not games and were skipped");
    }
    Ok(ExitCode::SUCCESS)
}
