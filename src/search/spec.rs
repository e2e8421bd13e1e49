//! `SearchSpec`: which search, with its parameters and budget per move — the one description
//! that agent spec strings (`mcts:iters=2000,c=0.7`), the YAML `search:` section of a run and the
//! flags of `descent bench search` all parse into, through the one parser here, and that builds
//! a `Searcher`.
//!
//! ```text
//! random
//! greedy[:eps=0]                         one ply, the best immediate value, ε random moves
//! minimax1                               greedy with a network (paper section 3.3)
//! mcts:iters=N|time=T[,c=0.7][,policy=uct|random|rave][,rave_k=1000][,playout=random|heavy|net]
//!     [,final=visits|mean]
//! alphabeta:depth=D|time=T|iters=N       (iters counts nodes)
//! ubfm:…, ubfms:…, descent:…             iters=N|time=T[,completed=true|false]
//! puct:iters=N|time=T[,c=1.25][,fpu=0][,solver=false]   AlphaZero's search (iters counts
//!     simulations)
//! gumbel:iters=N|time=T[,m=16][,c_visit=50][,c_scale=0.1]  Gumbel search (Sequential Halving
//!     over N simulations among m root actions; search/gumbel.rs)
//! ```
//!
//! `ubfms` is completed UBFM with the safest decision (the paper's player), `ubfm` the best
//! decision, `descent` completed Descent with the best decision. `puct` takes its priors from a
//! policy-value network (an AlphaZero run's), the same prior for every move from any other
//! evaluator; `c` is its c_init, `fpu` the value of an unvisited child for the chooser, `solver`
//! MCTS-Solver's proofs (`PuctOptions::solver`). Whether the
//! search has a network (`has_model`) sets MCTS' default leaf value and exploration constant.

use std::str::FromStr;

use super::alphabeta::{AlphaBeta, AlphaBetaOptions};
use super::budget::Budget;
use super::decision::Decision;
use super::descent::{TreeSearch, TreeSearchOptions, Variant};
use super::gumbel::{GumbelOptions, GumbelSearcher};
use super::mcts::{FinalMove, LeafValue, Mcts, MctsOptions, TreePolicy};
use super::puct::PuctOptions;
use super::puct_searcher::PuctSearcher;
use super::searcher::{AlphaBetaSearcher, MctsSearcher, OnePlySearcher, Searcher, TableSearcher};
use super::table::Table;
use super::terminal_eval::TerminalEval;
use crate::games::Game;
use crate::settings::config_error::ConfigError;
use crate::settings::duration_text::DurationText;

/// A search and its parameters.
///
/// ```
/// use descent::games::{Game, TicTacToe};
/// use descent::search::{ConstantEvaluator, SearchRng, SearchSpec, TerminalEval};
/// use rand::SeedableRng;
///
/// // Completed Descent proves the game a draw (and stops) within 200 000 iterations.
/// let spec = SearchSpec::parse("descent:iters=200000", false).unwrap();
/// let mut searcher = spec.build::<TicTacToe>(TerminalEval::Classic, Default::default());
/// let position = TicTacToe::new(&Default::default());
/// let mut rng = SearchRng::seed_from_u64(0);
/// let budget = spec.budget().unwrap();
/// let stats = searcher.search(&position, &ConstantEvaluator(0.0), &budget, &mut rng);
/// assert!(stats.iterations < 200_000);
/// let root = searcher.root(&position);
/// assert_eq!(root.value_p0, Some(0.0));
/// assert!(root.children.iter().all(|child| child.resolved));
/// assert!(position.is_legal(searcher.decide(&position, &mut rng).unwrap()));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum SearchSpec {
    Random,
    /// One ply: the child with the best immediate value; a random move with probability ε.
    Greedy {
        epsilon: f32,
    },
    Mcts {
        budget: Budget,
        options: MctsOptions,
    },
    AlphaBeta {
        budget: Budget,
        max_depth: Option<u32>,
    },
    /// Descent / UBFM / UBFM_s.
    TreeSearch {
        budget: Budget,
        variant: Variant,
        completed: bool,
        decision: Decision,
    },
    /// AlphaZero's search: the network's policy as priors (every move alike without one).
    Puct {
        budget: Budget,
        options: PuctOptions,
    },
    /// Gumbel search: Sequential Halving among the policy's Gumbel-Top-m root actions.
    Gumbel {
        budget: Budget,
        options: GumbelOptions,
    },
}

/// The search kinds and their keys (error messages list them).
pub const SEARCH_KINDS: &[(&str, &[&str])] = &[
    ("random", &[]),
    ("greedy", &["eps"]),
    ("minimax1", &[]),
    (
        "mcts",
        &["iters", "time", "c", "policy", "rave_k", "playout", "final"],
    ),
    ("alphabeta", &["depth", "iters", "time"]),
    ("ubfm", &["iters", "time", "completed"]),
    ("ubfms", &["iters", "time", "completed"]),
    ("descent", &["iters", "time", "completed"]),
    ("puct", &["iters", "time", "c", "fpu", "solver"]),
    ("gumbel", &["iters", "time", "m", "c_visit", "c_scale"]),
    ("exit", &["iters", "time", "c", "w_a", "w_v"]),
];

/// The kinds self-play can search with: those with a search tree, whose root children a move
/// is drawn from and whose states tree learning learns.
pub const SELF_PLAY_KINDS: &[&str] = &["descent", "ubfm", "ubfms", "mcts", "alphabeta"];

/// The names of the search kinds, comma separated.
pub fn search_kind_names() -> String {
    SEARCH_KINDS
        .iter()
        .map(|(k, _)| *k)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a search keeps for learning from its tree (self-play), beyond what playing needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeepForLearning {
    /// Terminal states enter the table (tree learning learns them).
    pub terminal_states: bool,
    /// The table keeps each state's position (tree learning reads them back).
    pub positions: bool,
}

impl SearchSpec {
    /// Parses `kind[:key=value,…]` (no keys other than the kind's).
    ///
    /// # Errors
    /// An unknown kind or key, a bad value, a missing budget; the error names the spec.
    pub fn parse(text: &str, has_model: bool) -> Result<SearchSpec, ConfigError> {
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        let pairs = SpecPairs::parse("search", text, rest, search_keys(kind, "search", text)?)?;
        SearchSpec::from_pairs(kind, &pairs, has_model)
    }

    /// The search `kind` with the parameters in `pairs` (already checked against the kind's keys).
    ///
    /// # Errors
    /// A bad value or a missing budget, naming the spec.
    pub fn from_pairs(
        kind: &str,
        pairs: &SpecPairs<'_>,
        has_model: bool,
    ) -> Result<SearchSpec, ConfigError> {
        Ok(match kind {
            "random" => SearchSpec::Random,
            "greedy" => SearchSpec::Greedy {
                epsilon: pairs.probability("eps")?.unwrap_or(0.0),
            },
            "minimax1" if !has_model => return Err(pairs.error("minimax1 needs model=…")),
            "minimax1" => SearchSpec::Greedy { epsilon: 0.0 },
            "mcts" => mcts_spec(pairs, has_model)?,
            "alphabeta" => alphabeta_spec(pairs)?,
            "puct" => puct_spec(pairs)?,
            "gumbel" => gumbel_spec(pairs)?,
            "exit" => exit_spec(pairs)?,
            "ubfm" | "ubfms" | "descent" => SearchSpec::TreeSearch {
                budget: pairs.budget()?,
                variant: if kind == "descent" {
                    Variant::Descent
                } else {
                    Variant::Ubfm
                },
                completed: pairs
                    .parsed::<bool>("completed", "true or false")?
                    .unwrap_or(true),
                decision: if kind == "ubfms" {
                    Decision::Safest
                } else {
                    Decision::Best
                },
            },
            _ => return Err(unknown_kind(pairs.what, pairs.spec)),
        })
    }

    /// The budget per move (`None`: one-ply players, which need none).
    pub fn budget(&self) -> Option<Budget> {
        match self {
            SearchSpec::Random | SearchSpec::Greedy { .. } => None,
            SearchSpec::Mcts { budget, .. }
            | SearchSpec::AlphaBeta { budget, .. }
            | SearchSpec::TreeSearch { budget, .. }
            | SearchSpec::Puct { budget, .. }
            | SearchSpec::Gumbel { budget, .. } => Some(budget.clone()),
        }
    }

    /// The same search with its time per move at most `cap` (iteration budgets gain the cap
    /// as a time limit: whichever runs out first). `Err(time)` when the spec asks for more.
    pub fn capped(&self, cap: std::time::Duration) -> Result<SearchSpec, std::time::Duration> {
        let mut capped = self.clone();
        if let SearchSpec::Mcts { budget, .. }
        | SearchSpec::AlphaBeta { budget, .. }
        | SearchSpec::TreeSearch { budget, .. }
        | SearchSpec::Puct { budget, .. }
        | SearchSpec::Gumbel { budget, .. } = &mut capped
        {
            match budget.time {
                Some(time) if time > cap => return Err(time),
                Some(_) => {}
                None => budget.time = Some(cap),
            }
        }
        Ok(capped)
    }

    /// The search, with terminal states valued by `terminal_eval` (the network's scale).
    pub fn build<G: Game>(
        &self,
        terminal_eval: TerminalEval,
        keep: KeepForLearning,
    ) -> Box<dyn Searcher<G>> {
        match *self {
            SearchSpec::Random => Box::new(OnePlySearcher::random()),
            SearchSpec::Greedy { epsilon } => {
                Box::new(OnePlySearcher::greedy(epsilon, terminal_eval))
            }
            SearchSpec::Mcts { options, .. } => {
                Box::new(MctsSearcher::new(Mcts::new(MctsOptions {
                    terminal_eval,
                    ..options
                })))
            }
            SearchSpec::AlphaBeta { max_depth, .. } => {
                Box::new(AlphaBetaSearcher::new(AlphaBeta::new(AlphaBetaOptions {
                    max_depth,
                    terminal_eval,
                })))
            }
            SearchSpec::TreeSearch {
                variant,
                completed,
                decision,
                ..
            } => Box::new(TableSearcher {
                search: TreeSearch::new(TreeSearchOptions {
                    variant,
                    completed,
                    terminal_eval,
                    record_terminals: keep.terminal_states,
                }),
                table: Table::new(keep.positions),
                decision,
            }),
            SearchSpec::Puct { options, .. } => Box::new(PuctSearcher::new(PuctOptions {
                terminal_eval,
                ..options
            })),
            SearchSpec::Gumbel { options, .. } => Box::new(GumbelSearcher::new(GumbelOptions {
                terminal_eval,
                ..options
            })),
        }
    }
}

/// The keys of the search `kind`.
///
/// # Errors
/// An unknown kind, reported as an unknown `what` (`search`, `agent`) written `text`.
pub fn search_keys(
    kind: &str,
    what: &str,
    text: &str,
) -> Result<&'static [&'static str], ConfigError> {
    SEARCH_KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, keys)| *keys)
        .ok_or_else(|| unknown_kind(what, text))
}

fn unknown_kind(what: &str, text: &str) -> ConfigError {
    ConfigError::new(
        what,
        format!(
            "unknown {what} {text:?}: expected one of {} (e.g. `mcts:time=1s`, `ubfms:iters=500`)",
            search_kind_names()
        ),
    )
}

/// MCTS' tree policies as `policy=` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PolicyName {
    Uct,
    Random,
    Rave,
}

fn mcts_spec(pairs: &SpecPairs<'_>, has_model: bool) -> Result<SearchSpec, ConfigError> {
    let c = pairs.parsed::<f32>("c", "a number ≥ 0")?;
    if c.is_some_and(|c| !(c >= 0.0 && c.is_finite())) {
        return Err(pairs.bad("c", pairs.get("c").unwrap_or(""), "a number ≥ 0"));
    }
    let default_leaf = if has_model {
        LeafValue::Evaluator
    } else {
        LeafValue::RandomPlayout
    };
    let leaf = pairs
        .one_of(
            "playout",
            &[
                ("random", LeafValue::RandomPlayout),
                ("heavy", LeafValue::HeavyPlayout),
                ("net", LeafValue::Evaluator),
            ],
        )?
        .unwrap_or(default_leaf);
    if leaf == LeafValue::Evaluator && !has_model {
        return Err(pairs.error("playout=net needs model=…"));
    }
    let policy = pairs
        .one_of(
            "policy",
            &[
                ("uct", PolicyName::Uct),
                ("random", PolicyName::Random),
                ("rave", PolicyName::Rave),
            ],
        )?
        .unwrap_or(PolicyName::Uct);
    // The paper's 0.4 on the network's value scale; 1/√2 for playout rewards; none beside
    // RAVE (Gelly and Silver found UCT-RAVE best without it).
    let c = c.unwrap_or(match (policy, leaf) {
        (PolicyName::Rave, _) => 0.0,
        (_, LeafValue::Evaluator) => MctsOptions::DEFAULT_C_NETWORK,
        _ => MctsOptions::DEFAULT_C,
    });
    let rave_k = pairs.parsed::<f32>("rave_k", "a number > 0")?;
    if let Some(k) = rave_k
        && !(k > 0.0 && k.is_finite())
    {
        return Err(pairs.bad("rave_k", pairs.get("rave_k").unwrap_or(""), "a number > 0"));
    }
    if rave_k.is_some() && policy != PolicyName::Rave {
        return Err(pairs.error("rave_k needs policy=rave"));
    }
    let tree_policy = match policy {
        PolicyName::Uct => TreePolicy::Uct { c },
        PolicyName::Random => TreePolicy::Random,
        PolicyName::Rave => TreePolicy::Rave {
            c,
            k: rave_k.unwrap_or(MctsOptions::DEFAULT_RAVE_K),
        },
    };
    let finals = [
        ("visits", FinalMove::MostVisits),
        ("mean", FinalMove::BestMean),
    ];
    Ok(SearchSpec::Mcts {
        budget: pairs.budget()?,
        options: MctsOptions {
            tree_policy,
            leaf,
            final_move: pairs
                .one_of("final", &finals)?
                .unwrap_or(FinalMove::MostVisits),
            // Set from the model when the search is built.
            terminal_eval: TerminalEval::Classic,
        },
    })
}

fn puct_spec(pairs: &SpecPairs<'_>) -> Result<SearchSpec, ConfigError> {
    let defaults = PuctOptions::default();
    let c = pairs.parsed::<f32>("c", "a number ≥ 0")?;
    if c.is_some_and(|c| !(c >= 0.0 && c.is_finite())) {
        return Err(pairs.bad("c", pairs.get("c").unwrap_or(""), "a number ≥ 0"));
    }
    let fpu = pairs.parsed::<f32>("fpu", "a number in [-1, 1]")?;
    if fpu.is_some_and(|f| !(-1.0..=1.0).contains(&f)) {
        return Err(pairs.bad("fpu", pairs.get("fpu").unwrap_or(""), "a number in [-1, 1]"));
    }
    Ok(SearchSpec::Puct {
        budget: pairs.budget()?,
        options: PuctOptions {
            c_init: c.unwrap_or(defaults.c_init),
            fpu: fpu.unwrap_or(defaults.fpu),
            solver: pairs
                .parsed::<bool>("solver", "true or false")?
                .unwrap_or(defaults.solver),
            ..defaults
        },
    })
}

/// Gumbel search's settings (`mctx`'s defaults: m = 16, c_visit = 50, c_scale = 0.1).
fn gumbel_spec(pairs: &SpecPairs<'_>) -> Result<SearchSpec, ConfigError> {
    let defaults = GumbelOptions::default();
    let positive = |key: &str, default: f32| -> Result<f32, ConfigError> {
        match pairs.parsed::<f32>(key, "a number > 0")? {
            Some(v) if !(v > 0.0 && v.is_finite()) => {
                Err(pairs.bad(key, pairs.get(key).unwrap_or(""), "a number > 0"))
            }
            v => Ok(v.unwrap_or(default)),
        }
    };
    let m = pairs.parsed::<u32>("m", "a whole number from 1 to 1024")?;
    if m.is_some_and(|m| !(1..=1024).contains(&m)) {
        return Err(pairs.bad(
            "m",
            pairs.get("m").unwrap_or(""),
            "a whole number from 1 to 1024",
        ));
    }
    Ok(SearchSpec::Gumbel {
        budget: pairs.budget()?,
        options: GumbelOptions {
            considered: m.unwrap_or(defaults.considered),
            c_visit: positive("c_visit", defaults.c_visit)?,
            c_scale: positive("c_scale", defaults.c_scale)?,
            ..defaults
        },
    })
}

/// ExIt's expert (`mcts/exit.rs`): its constants default to the paper's §8.4.2 after the
/// warm start (c = 0.05, w_a = 100, w_v = 0.75).
fn exit_spec(pairs: &SpecPairs<'_>) -> Result<SearchSpec, ConfigError> {
    let non_negative = |key: &str, default: f32| -> Result<f32, ConfigError> {
        match pairs.parsed::<f32>(key, "a number ≥ 0")? {
            Some(v) if !(v >= 0.0 && v.is_finite()) => {
                Err(pairs.bad(key, pairs.get(key).unwrap_or(""), "a number ≥ 0"))
            }
            v => Ok(v.unwrap_or(default)),
        }
    };
    Ok(SearchSpec::Mcts {
        budget: pairs.budget()?,
        options: MctsOptions {
            tree_policy: TreePolicy::Exit {
                c: non_negative("c", EXIT_C)?,
                w_a: non_negative("w_a", EXIT_W_A)?,
                w_v: non_negative("w_v", EXIT_W_V)?,
            },
            ..MctsOptions::uct()
        },
    })
}

/// ExIt's UCT constant after the warm start, and its search weights (paper §8.4.2).
pub const EXIT_C: f32 = 0.05;
pub const EXIT_W_A: f32 = 100.0;
pub const EXIT_W_V: f32 = 0.75;

fn alphabeta_spec(pairs: &SpecPairs<'_>) -> Result<SearchSpec, ConfigError> {
    let max_depth = pairs.parsed::<u32>("depth", "a positive whole number")?;
    if max_depth == Some(0) {
        return Err(pairs.bad("depth", "0", "a positive whole number"));
    }
    let has_budget = pairs.get("iters").is_some() || pairs.get("time").is_some();
    let budget = if max_depth.is_some() && !has_budget {
        Budget::iterations(u64::MAX)
    } else {
        pairs
            .budget()
            .map_err(|_| pairs.error("give depth=…, time=… or iters=… (nodes)"))?
    };
    Ok(SearchSpec::AlphaBeta { budget, max_depth })
}

/// The `key=value` pairs of one spec, checked against the valid keys of its kind.
pub struct SpecPairs<'a> {
    /// What the spec is (`agent`, `search`), for messages.
    what: &'a str,
    /// The whole spec text, for messages.
    pub spec: &'a str,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> SpecPairs<'a> {
    /// Splits `rest` (`k=v,k=v`) of the `what` spec `spec`, refusing keys not in `valid`.
    ///
    /// # Errors
    /// An item without `=`, an unknown key, a key given twice.
    pub fn parse(
        what: &'a str,
        spec: &'a str,
        rest: &'a str,
        valid: &[&str],
    ) -> Result<Self, ConfigError> {
        let mut this = SpecPairs {
            what,
            spec,
            pairs: Vec::new(),
        };
        let valid_list = if valid.is_empty() {
            "none".to_string()
        } else {
            valid.join(", ")
        };
        use crate::settings::key_values::{KeyValueError, key_values};
        this.pairs = key_values(rest).map_err(|e| match e {
            KeyValueError::NotAPair(item) => this.error(&format!(
                "expected key=value, got {item:?} (valid keys: {valid_list})"
            )),
            KeyValueError::Repeated(key) => this.error(&format!("key {key:?} given twice")),
            KeyValueError::BadQuote(item) => this.error(&format!(
                "{item:?}: a quoted value is closed by a second \" and then a comma or the end"
            )),
        })?;
        if let Some((key, _)) = this.pairs.iter().find(|(key, _)| !valid.contains(key)) {
            return Err(this.error(&format!("unknown key {key:?} (valid keys: {valid_list})")));
        }
        Ok(this)
    }

    pub fn get(&self, key: &str) -> Option<&'a str> {
        self.pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// An error about this spec.
    pub fn error(&self, message: &str) -> ConfigError {
        ConfigError::new(format!("{} {:?}", self.what, self.spec), message)
    }

    pub fn bad(&self, key: &str, value: &str, expected: &str) -> ConfigError {
        self.error(&format!("{key}={value:?} is not {expected}"))
    }

    /// # Errors
    /// A value that does not parse as `T`, naming the key.
    pub fn parsed<T: FromStr>(&self, key: &str, expected: &str) -> Result<Option<T>, ConfigError> {
        self.get(key)
            .map(|v| v.parse::<T>().map_err(|_| self.bad(key, v, expected)))
            .transpose()
    }

    fn probability(&self, key: &str) -> Result<Option<f32>, ConfigError> {
        let expected = "a probability in [0, 1]";
        let p = self.parsed::<f32>(key, expected)?;
        match p {
            Some(p) if !(0.0..=1.0).contains(&p) => Err(self.bad(key, &p.to_string(), expected)),
            _ => Ok(p),
        }
    }

    fn one_of<T: Copy>(&self, key: &str, choices: &[(&str, T)]) -> Result<Option<T>, ConfigError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        match choices.iter().find(|(name, _)| *name == value) {
            Some((_, t)) => Ok(Some(*t)),
            None => {
                let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
                Err(self.bad(key, value, &format!("one of {}", names.join(", "))))
            }
        }
    }

    /// `iters` and/or `time`; at least one.
    fn budget(&self) -> Result<Budget, ConfigError> {
        let iterations = self.parsed::<u64>("iters", "a positive whole number")?;
        if iterations == Some(0) {
            return Err(self.bad("iters", "0", "a positive whole number"));
        }
        let time = self
            .get("time")
            .map(|v| {
                v.parse::<DurationText>()
                    .map(|d| d.0)
                    .map_err(|e| self.error(&format!("time: {e}")))
            })
            .transpose()?;
        if iterations.is_none() && time.is_none() {
            return Err(self.error("give a budget per move, time=… (e.g. 1s, 200ms) or iters=…"));
        }
        Ok(Budget {
            iterations,
            time,
            stop: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_builds_a_searcher_that_moves() {
        use crate::games::{Game, TicTacToe};
        use crate::search::ScoreEvaluator;
        use rand::SeedableRng;
        for (kind, _) in SEARCH_KINDS {
            let text = match *kind {
                "random" | "greedy" | "minimax1" => kind.to_string(),
                "alphabeta" => "alphabeta:depth=3".to_string(),
                _ => format!("{kind}:iters=50"),
            };
            let spec = SearchSpec::parse(&text, true).unwrap();
            let mut searcher = spec.build::<TicTacToe>(TerminalEval::Classic, Default::default());
            let position = TicTacToe::new(&Default::default());
            let mut rng = super::super::searcher::SearchRng::seed_from_u64(1);
            let budget = spec.budget().unwrap_or(Budget::iterations(1));
            searcher.search(&position, &ScoreEvaluator::default(), &budget, &mut rng);
            let action = searcher.decide(&position, &mut rng).expect(&text);
            assert!(position.is_legal(action), "{text}: {action}");
        }
    }

    #[test]
    fn a_model_changes_the_defaults_of_mcts_only() {
        let mcts = |has_model| match SearchSpec::parse("mcts:iters=9", has_model).unwrap() {
            SearchSpec::Mcts { options, .. } => options,
            other => panic!("{other:?}"),
        };
        assert_eq!(mcts(false).leaf, LeafValue::RandomPlayout);
        assert_eq!(mcts(true).leaf, LeafValue::Evaluator);
        assert_eq!(
            mcts(true).tree_policy,
            TreePolicy::Uct {
                c: MctsOptions::DEFAULT_C_NETWORK
            }
        );
        assert!(
            SearchSpec::parse("minimax1", false)
                .unwrap_err()
                .message
                .contains("needs model")
        );
    }

    #[test]
    fn bad_specs_name_the_spec_and_the_key() {
        let error = SearchSpec::parse("mcts:iters=0", false).unwrap_err();
        assert_eq!(error.key, "search \"mcts:iters=0\"");
        assert!(
            error
                .message
                .contains("iters=\"0\" is not a positive whole number")
        );
        let error = SearchSpec::parse("minimax", false).unwrap_err();
        assert!(error.message.contains("expected one of random, greedy"));
        let error = SearchSpec::parse("exit:iters=9,w_a=-1", true).unwrap_err();
        assert!(
            error.message.contains("w_a=\"-1\" is not a number ≥ 0"),
            "{error}"
        );
    }

    #[test]
    fn puct_takes_the_solver_off_by_default() {
        let solver = |text: &str| match SearchSpec::parse(text, true) {
            Ok(SearchSpec::Puct { options, .. }) => Ok(options.solver),
            other => Err(format!("{other:?}")),
        };
        assert_eq!(solver("puct:iters=9"), Ok(false));
        assert_eq!(solver("puct:iters=9,solver=true"), Ok(true));
        let error = SearchSpec::parse("puct:iters=9,solver=yes", true).unwrap_err();
        assert!(
            error
                .message
                .contains("solver=\"yes\" is not true or false"),
            "{error}"
        );
    }

    #[test]
    fn exit_defaults_to_the_papers_constants_with_playouts() {
        let spec = SearchSpec::parse("exit:iters=2500", true).unwrap();
        let SearchSpec::Mcts { budget, options } = spec else {
            panic!("{spec:?}");
        };
        assert_eq!(budget, Budget::iterations(2500));
        assert_eq!(
            options.tree_policy,
            TreePolicy::Exit {
                c: 0.05,
                w_a: 100.0,
                w_v: 0.75
            }
        );
        assert_eq!(options.leaf, LeafValue::RandomPlayout);
        let spec = SearchSpec::parse("exit:time=1s,c=0.25,w_v=0", false).unwrap();
        let SearchSpec::Mcts { options, .. } = spec else {
            panic!("{spec:?}");
        };
        assert_eq!(
            options.tree_policy,
            TreePolicy::Exit {
                c: 0.25,
                w_a: 100.0,
                w_v: 0.0
            }
        );
    }

    #[test]
    fn rave_defaults_to_mogos_k_and_no_exploration_and_takes_both() {
        let policy = |text: &str| match SearchSpec::parse(text, false).unwrap() {
            SearchSpec::Mcts { options, .. } => options.tree_policy,
            spec => panic!("{spec:?}"),
        };
        assert_eq!(
            policy("mcts:iters=9,policy=rave"),
            TreePolicy::Rave { c: 0.0, k: 1000.0 }
        );
        assert_eq!(
            policy("mcts:time=1s,policy=rave,rave_k=300,c=0.1"),
            TreePolicy::Rave { c: 0.1, k: 300.0 }
        );
        let error = |text: &str| SearchSpec::parse(text, false).unwrap_err().message;
        assert!(error("mcts:iters=9,rave_k=300").contains("rave_k needs policy=rave"));
        assert!(
            error("mcts:iters=9,policy=rave,rave_k=0").contains("rave_k=\"0\" is not a number > 0")
        );
        assert!(error("mcts:iters=9,policy=amaf").contains("one of uct, random, rave"));
    }
}
