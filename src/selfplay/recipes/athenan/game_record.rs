//! `GameRecord`: a finished self-play game as it travels from an actor to the learner (the
//! `distributed` mode's wire format) — compact, game-independent, and checked on arrival.
//!
//! Positions travel as moves, not as encoded planes: the game's line (its moves from the
//! initial position) and, for every other learned position, its parent node and the action
//! from it. Nodes `0..=moves.len()` are the line's positions; node `moves.len() + 1 + i` is
//! `node_parents[i]` after `node_actions[i]`. A learning pair is a node and its target. The
//! actor finds each pair's path by a breadth-first walk from the line's positions through the
//! learned positions, matched by their table keys (every state of a search tree is reached from
//! its root through expanded states, which are learned too; the key tells a terminal state from
//! the same board not over, as the table does). A pair the walk cannot reach travels as its
//! encoded planes (`extra_*`): a state whose history matters (a repetition) reached first by
//! another path than the search's (1 pair of 4 522 in an Awale game with UBFM), or a state
//! under a node where alpha-beta kept only a bound (it learns its exact values only: 210 of
//! 1 171 pairs in an Awale game). The
//! learner gets exactly the actor's encoded pairs, in the actor's order. The receiver replays the
//! moves with every action checked legal, so a bad or hostile record is refused with a reason,
//! never a panic, and cannot make the learner allocate more than the stated limits.
//!
//! On the wire: bincode (variable-length integers) compressed with zstd.

use std::collections::VecDeque;
use std::io::Read;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::games::{Action, Game};
use crate::learn::augment::EncodedPairs;
use crate::search::table::key_of;
use crate::search::{SearchStats, TerminalEval};
use crate::selfplay::recipes::athenan::learnable_game::{Finished, LearnableGame};

/// The record format this build writes and reads.
pub const RECORD_FORMAT: u32 = 1;
/// The largest record accepted, decompressed (bytes).
pub const MAX_RECORD_BYTES: u64 = 64 << 20;
/// The most nodes (line positions and derived positions) a record may hold.
pub const MAX_RECORD_NODES: usize = 4 << 20;
/// The most bytes a record's positions may take while the learner replays them (nodes times
/// the size of a position): a game whose positions are large holds fewer.
pub const MAX_RECORD_NODE_BYTES: usize = 256 << 20;
/// The most bytes a record's pairs may take once encoded (pairs times the game's planes, f32):
/// a game of large encodings holds fewer pairs.
pub const MAX_RECORD_PLANE_BYTES: usize = 256 << 20;
/// The largest magnitude of a value in an encoded position sent as planes (every registered
/// game's encoding stays far within it: counts and flags).
pub const MAX_PLANE_VALUE: f32 = 1024.0;

/// What a game's record says about where it comes from and how it was played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordOrigin {
    /// The game spec, e.g. `awale`.
    pub game: String,
    /// The run's configuration hash (`config_hash`).
    pub config_hash: String,
    /// Who played it.
    pub worker: String,
}

/// The work and wall time of a recorded game (for the learner's metrics only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordStats {
    pub search: SearchStats,
    pub game_seconds: f64,
    pub net_seconds: f64,
    pub table_states: u64,
}

/// A finished game, compact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    pub format: u32,
    pub origin: RecordOrigin,
    /// The game's number in the run (its random stream).
    pub index: u64,
    /// The network version it was played with.
    pub net_version: u64,
    pub moves: Vec<Action>,
    pub node_parents: Vec<u32>,
    pub node_actions: Vec<Action>,
    pub pair_nodes: Vec<u32>,
    /// Targets, P0's view, one per pair.
    pub pair_targets: Vec<f32>,
    /// The pairs sent as planes (not reachable from the line through learned positions): their
    /// places among all the pairs (increasing), their encodings and their targets.
    pub extra_pairs: Vec<u32>,
    pub extra_planes: Vec<f32>,
    pub extra_targets: Vec<f32>,
    pub stats: RecordStats,
}

/// Why a record was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecordError {
    #[error("not a game record: {0}")]
    Undecodable(String),
    #[error("record format {found}, this descent reads format {RECORD_FORMAT}")]
    Format { found: u32 },
    #[error("a record of game {found:?}, but the run trains {expected:?}")]
    OtherGame { found: String, expected: String },
    #[error("a record of run {found}, but this run is {expected}")]
    OtherRun { found: String, expected: String },
    #[error("played with network version {found}, newer than the learner's {learner}")]
    FutureVersion { found: u64, learner: u64 },
    #[error("game number {found}, but only {handed_out} were handed out")]
    UnknownIndex { found: u64, handed_out: u64 },
    #[error("game {0} was learned already")]
    AlreadyLearned(u64),
    #[error("too large: {0}")]
    TooLarge(String),
    #[error("target {target:?} outside the run's values (at most {bound} in magnitude)")]
    TargetOutOfRange { target: f32, bound: f32 },
    #[error("malformed: {0}")]
    Malformed(String),
    #[error("illegal: {0}")]
    Illegal(String),
}

/// What the receiver expects of a record.
pub struct RecordCheck<'a> {
    pub game: &'a str,
    pub config_hash: &'a str,
    /// The learner's current version: no record may claim a newer one.
    pub learner_version: u64,
    /// Game numbers handed out so far: a record's number is below.
    pub handed_out: u64,
    pub terminal_eval: TerminalEval,
}

/// The sizes a record of game `G` may have, from the game itself (checked before the learner
/// allocates anything for the record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordLimits {
    /// Moves of the line: the game's own longest game.
    pub max_plies: usize,
    /// Nodes (line and derived positions).
    pub max_nodes: usize,
    /// Pairs, node pairs and pairs sent as planes together.
    pub max_pairs: usize,
}

impl RecordLimits {
    /// The limits of records of `initial`'s game.
    pub fn of<G: Game>(initial: &G) -> RecordLimits {
        let position_bytes = std::mem::size_of::<G>().max(1);
        let pair_bytes = (G::ENCODING.len() * std::mem::size_of::<f32>()).max(1);
        RecordLimits {
            max_plies: initial.max_game_length(),
            max_nodes: MAX_RECORD_NODES.min(MAX_RECORD_NODE_BYTES / position_bytes),
            max_pairs: MAX_RECORD_PLANE_BYTES / pair_bytes,
        }
    }
}

/// A short hash naming a run's configuration (SHA-256 of its YAML, 16 hex digits).
pub fn config_hash(config_yaml: &str) -> String {
    crate::value::checksum::sha256_hex(config_yaml.as_bytes())[..16].to_string()
}

impl GameRecord {
    /// The record of `finished`, played from `initial`.
    pub fn from_game<G: Game>(initial: &G, finished: &Finished<G>, origin: RecordOrigin) -> Self {
        let game = &finished.game;
        let paths = PairPaths::find(initial, &game.moves, &game.pairs);
        GameRecord {
            format: RECORD_FORMAT,
            origin,
            index: finished.index,
            net_version: finished.net_version,
            moves: game.moves.clone(),
            node_parents: paths.parents,
            node_actions: paths.actions,
            pair_nodes: paths.pair_nodes,
            pair_targets: paths.pair_targets,
            extra_pairs: paths.extra_pairs,
            extra_planes: paths.extra_planes,
            extra_targets: paths.extra_targets,
            stats: RecordStats {
                search: game.search,
                game_seconds: game.seconds,
                net_seconds: finished.net_seconds,
                table_states: game.table_states as u64,
            },
        }
    }

    /// Pairs the record carries: through the tree, and as planes.
    pub fn pairs(&self) -> usize {
        self.pair_targets.len() + self.extra_targets.len()
    }

    /// The bytes on the wire: bincode, zstd-compressed.
    pub fn to_bytes(&self) -> Vec<u8> {
        let plain = bincode::serde::encode_to_vec(self, bincode::config::standard())
            .expect("a record encodes");
        zstd::encode_all(plain.as_slice(), 3).expect("compressing in memory")
    }

    /// Decodes `bytes` (at most `MAX_RECORD_BYTES` once decompressed).
    ///
    /// # Errors
    /// Bytes that are not a record of this format.
    pub fn from_bytes(bytes: &[u8]) -> Result<GameRecord, RecordError> {
        let undecodable = |e: &dyn std::fmt::Display| RecordError::Undecodable(e.to_string());
        let decoder = zstd::Decoder::new(bytes).map_err(|e| undecodable(&e))?;
        let mut plain = Vec::new();
        decoder
            .take(MAX_RECORD_BYTES + 1)
            .read_to_end(&mut plain)
            .map_err(|e| undecodable(&e))?;
        if plain.len() as u64 > MAX_RECORD_BYTES {
            return Err(RecordError::Malformed(format!(
                "larger than {MAX_RECORD_BYTES} bytes decompressed"
            )));
        }
        let config = bincode::config::standard().with_limit::<{ MAX_RECORD_BYTES as usize }>();
        let (record, read): (GameRecord, usize) =
            bincode::serde::decode_from_slice(&plain, config).map_err(|e| undecodable(&e))?;
        if read != plain.len() {
            return Err(RecordError::Malformed(format!(
                "{} bytes after the record",
                plain.len() - read
            )));
        }
        if record.format != RECORD_FORMAT {
            return Err(RecordError::Format {
                found: record.format,
            });
        }
        Ok(record)
    }

    /// Checks the record against `check` and replays it from `initial` into the game the
    /// learner learns (its final value recomputed with `check.terminal_eval`).
    ///
    /// # Errors
    /// The first thing wrong: another game or run, a version from the future, sizes that do
    /// not add up, an illegal or missing move, a node that is not a position, a target or a
    /// plane that is not finite.
    pub fn replay<G: Game>(
        &self,
        initial: &G,
        check: &RecordCheck<'_>,
    ) -> Result<LearnableGame, RecordError> {
        self.check_origin(check)?;
        self.check_sizes(&RecordLimits::of(initial))?;
        self.check_extras(G::ENCODING.len())?;
        self.check_targets(check.terminal_eval.value_bound::<G>())?;
        let nodes = self.replay_nodes(initial)?;
        let pairs = self.encode_pairs(&nodes)?;
        let last = &nodes[self.moves.len()];
        let stats = self.stats;
        Ok(LearnableGame {
            index: self.index,
            net_version: self.net_version,
            pairs,
            plies: self.moves.len(),
            moves: self.moves.clone(),
            values_p0: Vec::new(),
            outcome: last.outcome().expect("the line ends the game: checked"),
            final_value_p0: check.terminal_eval.value_p0(last),
            search: stats.search,
            // The actor's own timings: statistics, kept to a sane range whatever it sent.
            seconds: plausible_seconds(stats.game_seconds),
            net_seconds: plausible_seconds(stats.net_seconds),
            table_states: usize::try_from(stats.table_states).unwrap_or(usize::MAX),
            record: None,
        })
    }

    /// Every pair encoded, in the actor's order: node positions encoded here, the extra pairs
    /// copied.
    fn encode_pairs<G: Game>(&self, nodes: &[G]) -> Result<EncodedPairs, RecordError> {
        let len = G::ENCODING.len();
        let total = self.pair_nodes.len() + self.extra_pairs.len();
        let mut encoded = EncodedPairs {
            inputs: vec![0.0; total * len],
            targets: Vec::with_capacity(total),
        };
        let mut node_pairs = self.pair_nodes.iter().zip(&self.pair_targets);
        let mut extras = self
            .extra_pairs
            .iter()
            .zip(&self.extra_targets)
            .enumerate()
            .peekable();
        for (index, planes) in encoded.inputs.chunks_exact_mut(len).enumerate() {
            let target = match extras.next_if(|(_, (at, _))| **at as usize == index) {
                Some((k, (_, &target))) => {
                    planes.copy_from_slice(&self.extra_planes[k * len..(k + 1) * len]);
                    target
                }
                None => {
                    let (&node, &target) = node_pairs.next().expect("counts checked");
                    let position = nodes.get(node as usize).ok_or_else(|| {
                        RecordError::Malformed(format!("pair of node {node}, of {}", nodes.len()))
                    })?;
                    position.encode(planes);
                    target
                }
            };
            encoded.targets.push(target);
        }
        Ok(encoded)
    }

    /// The extra pairs' places increase and fall among the pairs; their planes are finite and
    /// of `len` floats each.
    fn check_extras(&self, len: usize) -> Result<(), RecordError> {
        let total = self.pair_nodes.len() + self.extra_pairs.len();
        let places_ok = self.extra_pairs.windows(2).all(|w| w[0] < w[1])
            && self
                .extra_pairs
                .last()
                .is_none_or(|&last| (last as usize) < total);
        let sizes_ok = self.extra_targets.len() == self.extra_pairs.len()
            && self.extra_planes.len() == self.extra_pairs.len() * len;
        if !places_ok || !sizes_ok {
            return Err(RecordError::Malformed(format!(
                "extra pairs at {:?} with {} targets and {} floats of planes ({len} per pair)",
                self.extra_pairs.iter().take(8).collect::<Vec<_>>(),
                self.extra_targets.len(),
                self.extra_planes.len()
            )));
        }
        if let Some(bad) = self
            .extra_planes
            .iter()
            .find(|v| !within(**v, MAX_PLANE_VALUE))
        {
            return Err(RecordError::Malformed(format!(
                "plane value {bad:?} (at most {MAX_PLANE_VALUE} in magnitude)"
            )));
        }
        Ok(())
    }

    /// Every target finite and within `bound` in magnitude (NaN fails the comparison).
    fn check_targets(&self, bound: f32) -> Result<(), RecordError> {
        let targets = self.pair_targets.iter().chain(&self.extra_targets);
        match targets.copied().find(|&t| !within(t, bound)) {
            Some(target) => Err(RecordError::TargetOutOfRange { target, bound }),
            None => Ok(()),
        }
    }

    /// The record's sizes within `limits`, and no more node pairs than nodes (a position is
    /// learned once): before anything is allocated for it.
    fn check_sizes(&self, limits: &RecordLimits) -> Result<(), RecordError> {
        let nodes = self.moves.len() + 1 + self.node_parents.len();
        let pairs = self.pair_nodes.len() + self.extra_pairs.len();
        let too_large = |what: String| Err(RecordError::TooLarge(what));
        if self.moves.len() > limits.max_plies {
            return too_large(format!(
                "{} moves, but the game lasts at most {} plies",
                self.moves.len(),
                limits.max_plies
            ));
        }
        if nodes > limits.max_nodes {
            return too_large(format!(
                "{nodes} positions (at most {} for this game)",
                limits.max_nodes
            ));
        }
        if self.pair_nodes.len() > nodes {
            return too_large(format!(
                "{} pairs on {nodes} positions",
                self.pair_nodes.len()
            ));
        }
        if pairs > limits.max_pairs {
            return too_large(format!(
                "{pairs} pairs (at most {} for this game)",
                limits.max_pairs
            ));
        }
        Ok(())
    }

    fn check_origin(&self, check: &RecordCheck<'_>) -> Result<(), RecordError> {
        if self.origin.game != check.game {
            return Err(RecordError::OtherGame {
                found: self.origin.game.clone(),
                expected: check.game.to_string(),
            });
        }
        if self.origin.config_hash != check.config_hash {
            return Err(RecordError::OtherRun {
                found: self.origin.config_hash.clone(),
                expected: check.config_hash.to_string(),
            });
        }
        if self.net_version > check.learner_version {
            return Err(RecordError::FutureVersion {
                found: self.net_version,
                learner: check.learner_version,
            });
        }
        if self.index >= check.handed_out {
            return Err(RecordError::UnknownIndex {
                found: self.index,
                handed_out: check.handed_out,
            });
        }
        if self.node_parents.len() != self.node_actions.len()
            || self.pair_nodes.len() != self.pair_targets.len()
        {
            return Err(RecordError::Malformed(format!(
                "{} parents, {} actions, {} pair nodes, {} targets",
                self.node_parents.len(),
                self.node_actions.len(),
                self.pair_nodes.len(),
                self.pair_targets.len()
            )));
        }
        Ok(())
    }

    /// Every node's position: the line's, then the derived ones, each move checked legal.
    fn replay_nodes<G: Game>(&self, initial: &G) -> Result<Vec<G>, RecordError> {
        let mut nodes = Vec::with_capacity(self.moves.len() + 1 + self.node_parents.len());
        nodes.push(initial.clone());
        for (ply, &action) in self.moves.iter().enumerate() {
            let next = child(&nodes[ply], action, || {
                format!("move {action} at ply {ply}")
            })?;
            nodes.push(next);
        }
        if !nodes[self.moves.len()].is_terminal() {
            return Err(RecordError::Illegal(format!(
                "the game is not over after its {} moves",
                self.moves.len()
            )));
        }
        // A derived node is a position the line does not reach and no other node is: the
        // actor's walk adds each learned position once (so nodes stay within the game's).
        let mut keys: rustc_hash::FxHashSet<u64> = nodes.iter().map(key_of).collect();
        for (&parent, &action) in self.node_parents.iter().zip(&self.node_actions) {
            let here = nodes.len();
            let parent_position = nodes
                .get(parent as usize)
                .filter(|_| (parent as usize) < here);
            let parent_position = parent_position.ok_or_else(|| {
                RecordError::Malformed(format!("node {here} has parent {parent}, not before it"))
            })?;
            let next = child(parent_position, action, || format!("node {here}"))?;
            if !keys.insert(key_of(&next)) {
                return Err(RecordError::Malformed(format!(
                    "node {here} is a position sent already"
                )));
            }
            nodes.push(next);
        }
        Ok(nodes)
    }
}

/// Whether `value` is a number of magnitude at most `bound` (NaN is not).
fn within(value: f32, bound: f32) -> bool {
    value.is_finite() && value.abs() <= bound
}

/// `position` after `action`, if the game is not over and the action legal there; `at` says
/// where in the record (the error's first words).
fn child<G: Game>(position: &G, action: Action, at: impl Fn() -> String) -> Result<G, RecordError> {
    if position.is_terminal() {
        return Err(RecordError::Illegal(format!(
            "{}: after the end of the game",
            at()
        )));
    }
    if usize::from(action) >= G::NUM_ACTIONS || !position.is_legal(action) {
        return Err(RecordError::Illegal(format!(
            "{}: action {action} is not legal",
            at()
        )));
    }
    let mut next = position.clone();
    next.play(action);
    Ok(next)
}

/// The paths of a game's learning pairs from its line (`GameRecord`'s nodes), and the pairs
/// without one, encoded.
struct PairPaths {
    parents: Vec<u32>,
    actions: Vec<Action>,
    pair_nodes: Vec<u32>,
    pair_targets: Vec<f32>,
    extra_pairs: Vec<u32>,
    extra_planes: Vec<f32>,
    extra_targets: Vec<f32>,
}

impl PairPaths {
    /// Breadth-first from the line's positions through the positions of `pairs`.
    fn find<G: Game>(initial: &G, moves: &[Action], pairs: &[(G, f32)]) -> PairPaths {
        const UNSEEN: u32 = u32::MAX;
        let mut node_of: FxHashMap<u64, u32> =
            pairs.iter().map(|(p, _)| (key_of(p), UNSEEN)).collect();
        let mut positions = vec![initial.clone()];
        for &action in moves {
            let mut next = positions[positions.len() - 1].clone();
            next.play(action);
            positions.push(next);
        }
        let mut queue = VecDeque::new();
        for (index, position) in positions.iter().enumerate() {
            if let Some(node) = node_of.get_mut(&key_of(position))
                && *node == UNSEEN
            {
                *node = index as u32;
            }
            queue.push_back(index);
        }
        let mut unseen = node_of.values().filter(|&&n| n == UNSEEN).count();
        let (mut parents, mut actions, mut legal) = (Vec::new(), Vec::new(), Vec::new());
        while unseen > 0
            && let Some(index) = queue.pop_front()
        {
            if positions[index].is_terminal() {
                continue;
            }
            positions[index].legal_actions(&mut legal);
            for &action in &legal {
                let mut next = positions[index].clone();
                next.play(action);
                if let Some(node) = node_of.get_mut(&key_of(&next))
                    && *node == UNSEEN
                {
                    *node = positions.len() as u32;
                    parents.push(index as u32);
                    actions.push(action);
                    queue.push_back(positions.len());
                    positions.push(next);
                    unseen -= 1;
                }
            }
        }
        let mut paths = PairPaths {
            parents,
            actions,
            pair_nodes: Vec::with_capacity(pairs.len()),
            pair_targets: Vec::with_capacity(pairs.len()),
            extra_pairs: Vec::new(),
            extra_planes: Vec::new(),
            extra_targets: Vec::new(),
        };
        for (index, (position, target)) in pairs.iter().enumerate() {
            match node_of[&key_of(position)] {
                UNSEEN => {
                    let len = G::ENCODING.len();
                    let at = paths.extra_planes.len();
                    paths.extra_planes.resize(at + len, 0.0);
                    position.encode(&mut paths.extra_planes[at..]);
                    paths.extra_pairs.push(index as u32);
                    paths.extra_targets.push(*target);
                }
                node => {
                    paths.pair_nodes.push(node);
                    paths.pair_targets.push(*target);
                }
            }
        }
        paths
    }
}

/// `seconds` as a game's time: NaN, negative or infinite values are 0, at most a day.
fn plausible_seconds(seconds: f64) -> f64 {
    if seconds.is_finite() {
        seconds.clamp(0.0, 86_400.0)
    } else {
        0.0
    }
}
