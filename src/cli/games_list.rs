//! `descent games`: the registered games and their facts.

use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use crate::games::{Game, GameSpec, GameVisitor, REGISTERED_GAMES};

#[derive(Args, Debug)]
pub struct GamesArgs {
    /// Print one JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

/// The facts of one game under its default parameters.
#[derive(Serialize)]
struct GameFacts {
    name: &'static str,
    description: &'static str,
    num_actions: usize,
    max_game_length: usize,
    has_draws: bool,
    has_score: bool,
    encoding: [usize; 3],
    encoding_version: u32,
    symmetries: Vec<&'static str>,
    params: Vec<String>,
}

struct Facts;

impl GameVisitor for Facts {
    type Output = (usize, usize, bool, bool, [usize; 3], u32, Vec<&'static str>);
    fn visit<G: Game>(self, initial: G) -> Self::Output {
        let e = G::ENCODING;
        (
            G::NUM_ACTIONS,
            initial.max_game_length(),
            G::HAS_DRAWS,
            initial.score_p0().is_some(),
            e.dims(),
            G::ENCODING_VERSION,
            G::SYMMETRIES.iter().map(|s| s.name).collect(),
        )
    }
}

/// # Errors
/// Bad arguments or a failed subcommand, as one message for the user.
pub fn run(args: GamesArgs) -> anyhow::Result<ExitCode> {
    let facts: Vec<GameFacts> = REGISTERED_GAMES
        .iter()
        .map(|game| {
            let spec: GameSpec = game.name.parse().expect("registered names parse");
            let (
                num_actions,
                max_game_length,
                has_draws,
                has_score,
                encoding,
                encoding_version,
                symmetries,
            ) = spec.visit(Facts);
            GameFacts {
                name: game.name,
                description: game.description,
                num_actions,
                max_game_length,
                has_draws,
                has_score,
                encoding,
                encoding_version,
                symmetries,
                params: game
                    .params()
                    .into_iter()
                    .map(|(p, doc)| format!("{p}: {doc}"))
                    .collect(),
            }
        })
        .collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&facts)?);
        return Ok(ExitCode::SUCCESS);
    }
    for f in &facts {
        println!("{} — {}", f.name, f.description);
        println!(
            "  actions {}, max length {} plies, draws {}, score {}, encoding {}×{}×{} (v{}), symmetries: {}",
            f.num_actions,
            f.max_game_length,
            if f.has_draws { "yes" } else { "no" },
            if f.has_score { "yes" } else { "no" },
            f.encoding[0],
            f.encoding[1],
            f.encoding[2],
            f.encoding_version,
            if f.symmetries.is_empty() {
                "none".to_string()
            } else {
                f.symmetries.join(" ")
            }
        );
        for p in &f.params {
            println!("  param {p}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
