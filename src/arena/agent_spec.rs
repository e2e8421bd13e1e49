//! Agents from a short spec string, `kind[:key=value,…]`, as on the command line:
//!
//! ```text
//! random
//! greedy[:eps=0.05][,model=M]                 one ply, the best immediate value (default: score)
//! minimax1:model=M                            depth-1 minimax with a network (paper section 3.3)
//! mcts:iters=2000|time=1s[,c=0.7][,policy=uct|random][,playout=random|heavy|net][,final=visits|mean][,model=M]
//! alphabeta:depth=6|time=1s|iters=N[,model=M]
//! ubfm:…, ubfms:…, descent:…   iters=N|time=1s[,model=M][,completed=true|false]
//! ```
//!
//! `M` is a run directory (its latest checkpoint), a checkpoint directory, a saved network
//! (`…/net.json`), an exported `.descent` file, or `untrained[,arch=paper-cnn]`. Searches without
//! a model value non-terminal positions by the game's score (0 in games without one). `ubfms` is
//! completed UBFM with the safest decision (the paper's player), `ubfm` the best decision,
//! `descent` completed Descent with the best decision.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::search::{Budget, Decision, FinalMove, LeafValue, MctsOptions, TreePolicy, Variant};
use crate::value::Architecture;

/// Where an agent's network comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelSource {
    /// A freshly initialised network (a baseline for "did training help").
    Untrained(Architecture),
    /// A run directory, checkpoint directory, saved network or exported file.
    Path(PathBuf),
}

/// The move-choosing algorithm of an agent, with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentKind {
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
}

/// A parsed agent spec. `Display` gives back the text it was parsed from.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    pub text: String,
    pub kind: AgentKind,
    pub model: Option<ModelSource>,
}

/// The agent kinds and their valid keys (for error messages).
const KINDS: &[(&str, &[&str])] = &[
    ("random", &[]),
    ("greedy", &["eps", "model", "arch"]),
    ("minimax1", &["model", "arch"]),
    (
        "mcts",
        &[
            "iters", "time", "c", "policy", "playout", "final", "model", "arch",
        ],
    ),
    ("alphabeta", &["depth", "iters", "time", "model", "arch"]),
    ("ubfm", &["iters", "time", "model", "arch", "completed"]),
    ("ubfms", &["iters", "time", "model", "arch", "completed"]),
    ("descent", &["iters", "time", "model", "arch", "completed"]),
];

fn kinds_list() -> String {
    KINDS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}

/// The key=value pairs of one spec, checked against the kind's valid keys.
struct Pairs<'a> {
    spec: &'a str,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Pairs<'a> {
    fn parse(spec: &'a str, rest: &'a str, valid: &[&str]) -> Result<Self, String> {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for item in rest.split(',').filter(|s| !s.is_empty()) {
            let Some((key, value)) = item.split_once('=') else {
                return Err(format!(
                    "agent {spec:?}: expected key=value, got {item:?} (valid keys: {})",
                    valid.join(", ")
                ));
            };
            if !valid.contains(&key) {
                return Err(format!(
                    "agent {spec:?}: unknown key {key:?} (valid keys: {})",
                    if valid.is_empty() {
                        "none".to_string()
                    } else {
                        valid.join(", ")
                    }
                ));
            }
            if pairs.iter().any(|(k, _)| *k == key) {
                return Err(format!("agent {spec:?}: key {key:?} given twice"));
            }
            pairs.push((key, value));
        }
        Ok(Pairs { spec, pairs })
    }

    fn get(&self, key: &str) -> Option<&'a str> {
        self.pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    fn bad(&self, key: &str, value: &str, expected: &str) -> String {
        format!("agent {:?}: {key}={value:?} is not {expected}", self.spec)
    }

    fn parsed<T: FromStr>(&self, key: &str, expected: &str) -> Result<Option<T>, String> {
        self.get(key)
            .map(|v| v.parse::<T>().map_err(|_| self.bad(key, v, expected)))
            .transpose()
    }

    fn one_of<T: Copy>(&self, key: &str, choices: &[(&str, T)]) -> Result<Option<T>, String> {
        self.get(key)
            .map(|v| {
                choices
                    .iter()
                    .find(|(name, _)| *name == v)
                    .map(|(_, t)| *t)
                    .ok_or_else(|| {
                        let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
                        self.bad(key, v, &format!("one of {}", names.join(", ")))
                    })
            })
            .transpose()
    }

    /// `iters` and/or `time`; at least one.
    fn budget(&self) -> Result<Budget, String> {
        let iterations = self
            .parsed::<u64>("iters", "a positive whole number")?
            .map(|n| {
                if n == 0 {
                    Err(self.bad("iters", "0", "a positive whole number"))
                } else {
                    Ok(n)
                }
            })
            .transpose()?;
        let time = self
            .get("time")
            .map(|v| {
                v.parse::<crate::search::DurationText>()
                    .map(|d| d.0)
                    .map_err(|e| format!("agent {:?}: time: {e}", self.spec))
            })
            .transpose()?;
        if iterations.is_none() && time.is_none() {
            return Err(format!(
                "agent {:?}: give a budget per move, time=… (e.g. 1s, 200ms) or iters=…",
                self.spec
            ));
        }
        Ok(Budget { iterations, time })
    }

    fn model(&self) -> Result<Option<ModelSource>, String> {
        let architecture = self
            .get("arch")
            .map(|a| {
                a.parse::<Architecture>()
                    .map_err(|e| format!("agent {:?}: {e}", self.spec))
            })
            .transpose()?;
        match self.get("model") {
            None if architecture.is_some() => Err(format!(
                "agent {:?}: arch= goes with model=untrained",
                self.spec
            )),
            None => Ok(None),
            Some("untrained") => Ok(Some(ModelSource::Untrained(
                architecture.unwrap_or(Architecture::PaperCnn),
            ))),
            Some(_) if architecture.is_some() => Err(format!(
                "agent {:?}: arch= goes with model=untrained (a saved network names its own)",
                self.spec
            )),
            Some(path) => Ok(Some(ModelSource::Path(PathBuf::from(path)))),
        }
    }
}

impl FromStr for AgentSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let Some((_, valid)) = KINDS.iter().find(|(k, _)| *k == name) else {
            return Err(format!(
                "unknown agent {text:?}: expected one of {} (e.g. `mcts:time=1s`, `ubfms:model=runs/awale,time=1s`)",
                kinds_list()
            ));
        };
        let pairs = Pairs::parse(text, rest, valid)?;
        let model = pairs.model()?;
        let kind = match name {
            "random" => AgentKind::Random,
            "greedy" => {
                let epsilon = pairs.parsed::<f32>("eps", "a probability in [0, 1]")?;
                if let Some(e) = epsilon
                    && !(0.0..=1.0).contains(&e)
                {
                    return Err(pairs.bad("eps", &e.to_string(), "a probability in [0, 1]"));
                }
                AgentKind::Greedy {
                    epsilon: epsilon.unwrap_or(0.0),
                }
            }
            "minimax1" => {
                if model.is_none() {
                    return Err(format!("agent {text:?}: minimax1 needs model=…"));
                }
                AgentKind::Greedy { epsilon: 0.0 }
            }
            "mcts" => {
                let c = pairs.parsed::<f32>("c", "a number ≥ 0")?;
                if c.is_some_and(|c| !(c >= 0.0 && c.is_finite())) {
                    return Err(pairs.bad("c", pairs.get("c").unwrap_or(""), "a number ≥ 0"));
                }
                let leaf = pairs
                    .one_of(
                        "playout",
                        &[
                            ("random", LeafValue::RandomPlayout),
                            ("heavy", LeafValue::HeavyPlayout),
                            ("net", LeafValue::Evaluator),
                        ],
                    )?
                    .unwrap_or(if model.is_some() {
                        LeafValue::Evaluator
                    } else {
                        LeafValue::RandomPlayout
                    });
                if leaf == LeafValue::Evaluator && model.is_none() {
                    return Err(format!("agent {text:?}: playout=net needs model=…"));
                }
                // The paper's 0.4 on the network's value scale; 1/√2 for playout rewards.
                let c = c.unwrap_or(if leaf == LeafValue::Evaluator {
                    MctsOptions::DEFAULT_C_NETWORK
                } else {
                    MctsOptions::DEFAULT_C
                });
                let tree_policy = pairs
                    .one_of(
                        "policy",
                        &[
                            ("uct", TreePolicy::Uct { c }),
                            ("random", TreePolicy::Random),
                        ],
                    )?
                    .unwrap_or(TreePolicy::Uct { c });
                let final_move = pairs
                    .one_of(
                        "final",
                        &[
                            ("visits", FinalMove::MostVisits),
                            ("mean", FinalMove::BestMean),
                        ],
                    )?
                    .unwrap_or(FinalMove::MostVisits);
                AgentKind::Mcts {
                    budget: pairs.budget()?,
                    options: MctsOptions {
                        tree_policy,
                        leaf,
                        final_move,
                        // The model's, set when the agent is built.
                        terminal_eval: crate::search::TerminalEval::Classic,
                    },
                }
            }
            "alphabeta" => {
                let max_depth = pairs.parsed::<u32>("depth", "a positive whole number")?;
                if max_depth == Some(0) {
                    return Err(pairs.bad("depth", "0", "a positive whole number"));
                }
                let budget = if max_depth.is_some()
                    && pairs.get("iters").is_none()
                    && pairs.get("time").is_none()
                {
                    Budget::iterations(u64::MAX)
                } else {
                    pairs.budget().map_err(|_| {
                        format!("agent {text:?}: give depth=…, time=… or iters=… (nodes)")
                    })?
                };
                AgentKind::AlphaBeta { budget, max_depth }
            }
            "ubfm" | "ubfms" | "descent" => {
                let completed = pairs.parsed::<bool>("completed", "true or false")?;
                AgentKind::TreeSearch {
                    budget: pairs.budget()?,
                    variant: if name == "descent" {
                        Variant::Descent
                    } else {
                        Variant::Ubfm
                    },
                    completed: completed.unwrap_or(true),
                    decision: if name == "ubfms" {
                        Decision::Safest
                    } else {
                        Decision::Best
                    },
                }
            }
            _ => unreachable!("every kind of KINDS is handled"),
        };
        Ok(AgentSpec {
            text: text.to_string(),
            kind,
            model,
        })
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn parse(text: &str) -> AgentSpec {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn error(text: &str) -> String {
        text.parse::<AgentSpec>().expect_err(text)
    }

    #[test]
    fn every_kind_parses() {
        assert_eq!(parse("random").kind, AgentKind::Random);
        assert_eq!(
            parse("greedy:eps=0.05").kind,
            AgentKind::Greedy { epsilon: 0.05 }
        );
        let mcts = parse("mcts:iters=2000,c=0.7");
        assert_eq!(
            mcts.kind,
            AgentKind::Mcts {
                budget: Budget::iterations(2000),
                options: MctsOptions {
                    tree_policy: TreePolicy::Uct { c: 0.7 },
                    ..MctsOptions::uct()
                }
            }
        );
        // Default constants: 1/√2 on playout rewards, the paper's 0.4 with a network.
        let c_of = |spec: &str| match parse(spec).kind {
            AgentKind::Mcts {
                options:
                    MctsOptions {
                        tree_policy: TreePolicy::Uct { c },
                        ..
                    },
                ..
            } => c,
            other => panic!("{other:?}"),
        };
        assert_eq!(c_of("mcts:iters=9"), MctsOptions::DEFAULT_C);
        assert_eq!(c_of("mcts:iters=9,model=untrained"), 0.4);
        assert_eq!(c_of("mcts:iters=9,model=untrained,c=1.5"), 1.5);
        assert!(matches!(
            parse("mcts:time=200ms,policy=random,final=mean").kind,
            AgentKind::Mcts { budget: Budget { time: Some(t), iterations: None }, options }
                if t == Duration::from_millis(200) && options == MctsOptions::plain()
        ));
        assert_eq!(
            parse("alphabeta:depth=6").kind,
            AgentKind::AlphaBeta {
                budget: Budget::iterations(u64::MAX),
                max_depth: Some(6)
            }
        );
        let ubfms = parse("ubfms:model=runs/awale,time=1s");
        assert_eq!(ubfms.model, Some(ModelSource::Path("runs/awale".into())));
        assert!(matches!(
            ubfms.kind,
            AgentKind::TreeSearch {
                variant: Variant::Ubfm,
                completed: true,
                decision: Decision::Safest,
                ..
            }
        ));
        assert!(matches!(
            parse("descent:iters=100,completed=false").kind,
            AgentKind::TreeSearch {
                variant: Variant::Descent,
                completed: false,
                decision: Decision::Best,
                ..
            }
        ));
        assert_eq!(
            parse("minimax1:model=untrained,arch=paper-cnn").model,
            Some(ModelSource::Untrained(Architecture::PaperCnn))
        );
        // A model makes MCTS value leaves with it unless told otherwise.
        assert!(matches!(
            parse("mcts:iters=10,model=x.descent").kind,
            AgentKind::Mcts {
                options: MctsOptions {
                    leaf: LeafValue::Evaluator,
                    ..
                },
                ..
            }
        ));
        assert_eq!(parse("ubfm:iters=5").to_string(), "ubfm:iters=5");
    }

    #[test]
    fn bad_specs_name_the_problem() {
        assert!(error("minimax").contains("expected one of random, greedy"));
        assert!(
            error("mcts:iters=10,depth=3")
                .contains("unknown key \"depth\" (valid keys: iters, time, c")
        );
        assert!(error("mcts:c=1").contains("give a budget"));
        assert!(error("mcts:iters=0").contains("iters=\"0\" is not a positive whole number"));
        assert!(error("mcts:iters=ten").contains("iters=\"ten\""));
        assert!(error("mcts:iters=10,c=-1").contains("c=\"-1\" is not a number ≥ 0"));
        assert!(error("mcts:iters=10,playout=net").contains("playout=net needs model"));
        assert!(error("mcts:iters=10,policy=ucb").contains("one of uct, random"));
        assert!(error("greedy:eps=2").contains("a probability in [0, 1]"));
        assert!(error("random:eps=0.1").contains("valid keys: none"));
        assert!(error("minimax1").contains("needs model"));
        assert!(error("ubfms:time=fast").contains("time"));
        assert!(error("ubfms:iters=5,iters=6").contains("given twice"));
        assert!(error("ubfms:iters=5,model").contains("expected key=value"));
        assert!(error("ubfms:iters=5,arch=paper-cnn").contains("arch= goes with model=untrained"));
        assert!(error("ubfms:iters=5,model=untrained,arch=big").contains("big"));
        assert!(error("alphabeta:depth=0").contains("depth"));
        assert!(error("ubfm:iters=5,completed=yes").contains("true or false"));
    }
}
