//! Athénan's learner loaded from a checkpoint and written into one: Adam's state and the replay
//! buffer beside the network and the run state the session writes (docs/run-directory.md).

use std::path::Path;

use anyhow::{Context, bail};

use crate::games::Game;
use crate::search::TerminalEval;
use crate::selfplay::config::TrainSettings;
use crate::selfplay::recipes::athenan::learner::Learner;
use crate::selfplay::recipes::athenan::settings::AthenanSettings;
use crate::selfplay::run::checkpoint::check_resume_settings;
use crate::selfplay::run::replay_file::{read_replay, write_replay};
use crate::selfplay::run::run_dir::OPTIMIZER_FILE;
use crate::selfplay::run::run_state::RunState;
use crate::settings::files::{Existing, write_atomically};
use crate::value::saved_net::{NetManifest, load_net};
use crate::value::{NetDevice, NetOptimizer};

/// Loads the checkpoint at `dir` (its checksums verified by the caller).
///
/// # Errors
/// A damaged checkpoint, one of another game, or a configuration that changes what is learned.
pub fn load_checkpoint<G: Game>(
    dir: &Path,
    settings: &TrainSettings,
    athenan: &AthenanSettings,
    manifest: &NetManifest,
    terminal_eval: TerminalEval,
    device: &NetDevice,
) -> anyhow::Result<(Learner, RunState)> {
    let state = RunState::read(dir)?;
    if state.game != manifest.game {
        bail!(
            "{} is a checkpoint of game {}, but the run's configuration says {}",
            dir.display(),
            state.game,
            manifest.game
        );
    }
    check_resume_settings(dir, &state, settings, terminal_eval)?;
    let net = load_net(&dir.join("net"), manifest, &device.burn)?;
    let mut net_optimizer = NetOptimizer::new(net, settings.adam, device, manifest.input_shape);
    let optimizer_path = dir.join(OPTIMIZER_FILE);
    net_optimizer
        .load_optimizer_bytes(
            std::fs::read(&optimizer_path)
                .with_context(|| format!("cannot read {}", optimizer_path.display()))?,
        )
        .with_context(|| format!("{}", optimizer_path.display()))?;
    let (replay, replay_path) = read_replay(dir)?;
    if replay.encoding_len() != G::ENCODING.len() {
        bail!(
            "{} holds positions of {} floats, but {} encodes {}",
            replay_path.display(),
            replay.encoding_len(),
            G::NAME,
            G::ENCODING.len()
        );
    }
    if replay.policy() != athenan.replay.policy {
        bail!(
            "{} was filled under replay {:?}, but the configuration now says {:?}",
            replay_path.display(),
            replay.policy(),
            athenan.replay.policy
        );
    }
    let learner = Learner::new(net_optimizer, replay, athenan, state.learner_rng.clone());
    Ok((learner, state))
}

/// Writes what an Athénan checkpoint holds beside its network and state into `dir`: Adam's
/// state and the replay buffer.
///
/// # Errors
/// A failed write.
pub fn write_learner_files(dir: &Path, learner: &Learner) -> anyhow::Result<()> {
    write_atomically(
        &dir.join(OPTIMIZER_FILE),
        &learner.net_optimizer.optimizer_bytes()?,
        Existing::Replace,
    )?;
    write_replay(dir, &learner.replay)
}
