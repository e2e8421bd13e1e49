//! Which f_t a run uses, its parameters resolved: the configured one for a new run (additive
//! depth's P̃ and multiplicative depth's P' estimated from random games when not given), and for a
//! resumed run the one its network was trained with.

use std::path::Path;

use anyhow::bail;

use crate::games::Game;
use crate::learn::pretrain::{longest_random_game, mean_random_game_length};
use crate::search::TerminalEval;
use crate::selfplay::recipes::athenan::settings::{LearningSettings, TerminalEvalName};
use crate::selfplay::run::streams::{STREAM_SETUP, stream_rng};
use crate::value::saved_net::read_manifest;

/// f_t with its parameters resolved for this game.
///
/// # Errors
/// `score` for a game without a score.
pub fn resolve_terminal_eval<G: Game>(
    seed: u64,
    learning: &LearningSettings,
    initial: &G,
) -> anyhow::Result<TerminalEval> {
    Ok(match learning.terminal_eval {
        TerminalEvalName::Classic => TerminalEval::Classic,
        TerminalEvalName::AdditiveDepth => match learning.max_length {
            Some(max_length) => TerminalEval::AdditiveDepth {
                max_length,
                estimated: false,
            },
            None => {
                let mut rng = stream_rng(seed, STREAM_SETUP, 2);
                TerminalEval::AdditiveDepth {
                    max_length: longest_random_game(initial, 1000, &mut rng),
                    estimated: true,
                }
            }
        },
        TerminalEvalName::MultiplicativeDepth => TerminalEval::MultiplicativeDepth {
            mean_length: match learning.mean_length {
                Some(length) => length,
                None => {
                    let mut rng = stream_rng(seed, STREAM_SETUP, 0);
                    mean_random_game_length(initial, 1000, &mut rng)
                }
            },
        },
        TerminalEvalName::Score => {
            if initial.score_p0().is_none() {
                bail!(
                    "learning.terminal_eval: score needs a game with its own score (awale); {} has none",
                    G::NAME
                );
            }
            TerminalEval::Score
        }
        TerminalEvalName::Mobility => TerminalEval::Mobility,
        TerminalEvalName::Presence => TerminalEval::Presence,
    })
}

/// The terminal evaluation a resumed run goes on with: the one its checkpoint's network was
/// trained with (so that a default estimated at the start, such as additive depth's P̃, stays
/// what it was), unless the configuration gives its parameter; of the configured kind.
///
/// # Errors
/// An unreadable network manifest, or `score` for a game without one.
pub fn trained_terminal_eval<G: Game>(
    dir: &Path,
    seed: u64,
    learning: &LearningSettings,
    initial: &G,
) -> anyhow::Result<TerminalEval> {
    let trained = read_manifest(&dir.join("net"))?.search_terminal_eval()?;
    let (same_kind, parameter_given) = match (learning.terminal_eval, trained) {
        (TerminalEvalName::AdditiveDepth, TerminalEval::AdditiveDepth { .. }) => {
            (true, learning.max_length.is_some())
        }
        (TerminalEvalName::MultiplicativeDepth, TerminalEval::MultiplicativeDepth { .. }) => {
            (true, learning.mean_length.is_some())
        }
        _ => (false, true),
    };
    // The configured one otherwise (estimating a default only when it is used); a different
    // kind is then refused by the resume check.
    if same_kind && !parameter_given {
        Ok(trained)
    } else {
        resolve_terminal_eval(seed, learning, initial)
    }
}
