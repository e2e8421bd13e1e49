//! Agents from a short spec string, `kind[:key=value,…]`, as on the command line:
//!
//! ```text
//! random
//! greedy[:eps=0][,model=M]                    one ply, the best immediate value (default: score)
//! minimax1:model=M                            depth-1 minimax with a network (paper section 3.3)
//! mcts:iters=2000|time=1s[,c=0.7][,policy=uct|random|rave][,rave_k=1000]
//!     [,playout=random|heavy|net][,final=visits|mean][,model=M]
//! alphabeta:depth=6|time=1s|iters=N[,model=M]
//! ubfm:…, ubfms:…, descent:…   iters=N|time=1s[,model=M][,completed=true|false]
//! ```
//!
//! `M` is a run directory (its latest checkpoint), a checkpoint directory, a saved network
//! (`…/net.json`), an exported `.descent` file, `shipped` (the network built into descent for
//! the game played, `value::shipped_nets`), `untrained[,arch=paper-cnn]` or `playouts` (no
//! network: one random playout a position, every move the same prior). Searches without
//! a model value non-terminal positions by the game's score (0 in games without one). `ubfms` is
//! completed UBFM with the safest decision (the paper's player), `ubfm` the best decision,
//! `descent` completed Descent with the best decision. The search part is `search::SearchSpec`'s
//! (one parser for agents, YAML runs and benchmarks); an agent adds `model=` and `arch=`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::search::SearchSpec;
use crate::search::spec::{SpecPairs, search_keys};
use crate::settings::config_error::ConfigError;
use crate::settings::duration_text::DurationText;
use crate::value::Architecture;

/// Where an agent's network comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelSource {
    /// A freshly initialised network (a baseline for "did training help").
    Untrained(Architecture),
    /// A run directory, checkpoint directory, saved network or exported file.
    Path(PathBuf),
    /// The network that ships with descent for the game played (`value::shipped_nets`).
    Shipped,
    /// No network: one random playout values a position and every move has the same prior
    /// (`search::PlayoutEvaluator`), the network-free counterpart of PUCT and Gumbel.
    Playouts,
}

impl ModelSource {
    /// Whether a network is loaded (not `Playouts`): it sets MCTS' default leaf and constant.
    pub fn is_network(&self) -> bool {
        !matches!(self, ModelSource::Playouts)
    }
}

/// A parsed agent spec: a search (`search::SearchSpec`) and where its network comes from.
/// `Display` gives back the text it was parsed from.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    pub text: String,
    pub search: SearchSpec,
    pub model: Option<ModelSource>,
}

/// The keys an agent spec adds to its search's.
const MODEL_KEYS: [&str; 2] = ["model", "arch"];

/// `model=…` and `arch=…` of a spec.
fn model_source(pairs: &SpecPairs<'_>) -> Result<Option<ModelSource>, ConfigError> {
    let architecture = pairs
        .get("arch")
        .map(|a| {
            a.parse::<Architecture>()
                .map_err(|e| pairs.error(&e.to_string()))
        })
        .transpose()?;
    match (pairs.get("model"), architecture) {
        (None, Some(_)) => Err(pairs.error("arch= goes with model=untrained")),
        (None, None) => Ok(None),
        (Some("shipped"), None) => Ok(Some(ModelSource::Shipped)),
        (Some("playouts"), None) => Ok(Some(ModelSource::Playouts)),
        (Some("untrained"), architecture) => Ok(Some(ModelSource::Untrained(
            architecture.unwrap_or(Architecture::PaperCnn),
        ))),
        (Some(_), Some(_)) => {
            Err(pairs.error("arch= goes with model=untrained (a saved network names its own)"))
        }
        (Some(path), None) => Ok(Some(ModelSource::Path(PathBuf::from(path)))),
    }
}

impl FromStr for AgentSpec {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<Self, ConfigError> {
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        let search_keys = search_keys(kind, "agent", text)?;
        // Random moves need no network.
        let model_keys: &[&str] = if kind == "random" { &[] } else { &MODEL_KEYS };
        let valid: Vec<&str> = search_keys.iter().chain(model_keys).copied().collect();
        let pairs = SpecPairs::parse("agent", text, rest, &valid)?;
        let model = model_source(&pairs)?;
        Ok(AgentSpec {
            text: text.to_string(),
            search: SearchSpec::from_pairs(
                kind,
                &pairs,
                model.as_ref().is_some_and(ModelSource::is_network),
            )?,
            model,
        })
    }
}

/// The keys of a budget per move.
const BUDGET_KEYS: [&str; 2] = ["time", "iters"];

impl AgentSpec {
    /// The kind and its `key=value` pairs, as written.
    fn kind_and_pairs(&self) -> (&str, Vec<&str>) {
        let (kind, rest) = self.text.split_once(':').unwrap_or((&self.text, ""));
        (kind, rest.split(',').filter(|p| !p.is_empty()).collect())
    }

    /// A spec of `kind` with `pairs`.
    fn from_parts(kind: &str, pairs: &[&str]) -> Result<AgentSpec, ConfigError> {
        match pairs.is_empty() {
            true => kind.parse(),
            false => format!("{kind}:{}", pairs.join(",")).parse(),
        }
    }

    /// The same agent with `time` a move in place of its budget (`time=` or `iters=`).
    ///
    /// # Errors
    /// An agent without a search (`random`, `greedy`, `minimax1`).
    pub fn with_time(&self, time: DurationText) -> Result<AgentSpec, ConfigError> {
        let (kind, pairs) = self.kind_and_pairs();
        let time = format!("time={time}");
        let mut kept: Vec<&str> = pairs
            .into_iter()
            .filter(|p| !has_key(p, &BUDGET_KEYS))
            .collect();
        kept.push(&time);
        Self::from_parts(kind, &kept)
    }

    /// The same search without its network, at the same budget: PUCT and Gumbel keep their
    /// tree with every prior alike and one random playout a leaf (`model=playouts`); every
    /// other search becomes UCT with random playouts (`mcts`, its default constant), the
    /// network-free search the value searches are measured against; `random` stays itself.
    ///
    /// # Errors
    /// None for a spec that parsed (the counterpart's text is checked as any other).
    pub fn without_network(&self) -> Result<AgentSpec, ConfigError> {
        let (kind, pairs) = self.kind_and_pairs();
        match kind {
            "random" => Ok(self.clone()),
            "puct" | "gumbel" => {
                let mut kept: Vec<&str> = pairs
                    .into_iter()
                    .filter(|p| !has_key(p, &MODEL_KEYS))
                    .collect();
                kept.push("model=playouts");
                Self::from_parts(kind, &kept)
            }
            _ => {
                let budget: Vec<&str> = pairs
                    .into_iter()
                    .filter(|p| has_key(p, &BUDGET_KEYS))
                    .collect();
                Self::from_parts("mcts", &budget)
            }
        }
    }

    /// The spec's text without its budget (`time=`, `iters=`): `puct:model=shipped`.
    pub fn text_without_budget(&self) -> String {
        let (kind, pairs) = self.kind_and_pairs();
        let kept: Vec<&str> = pairs
            .into_iter()
            .filter(|p| !has_key(p, &BUDGET_KEYS))
            .collect();
        match kept.is_empty() {
            true => kind.to_string(),
            false => format!("{kind}:{}", kept.join(",")),
        }
    }

    /// Whether the agent searches with a network (not `model=playouts`, not without `model=`).
    pub fn has_network(&self) -> bool {
        self.model.as_ref().is_some_and(ModelSource::is_network)
    }
}

/// Whether `pair` (`key=value`) has one of `keys`.
fn has_key(pair: &str, keys: &[&str]) -> bool {
    keys.contains(&pair.split_once('=').map_or(pair, |(key, _)| key).trim())
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Budget, Decision, LeafValue, MctsOptions, TreePolicy, Variant};
    use std::time::Duration;

    fn parse(text: &str) -> AgentSpec {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn error(text: &str) -> String {
        text.parse::<AgentSpec>().expect_err(text).to_string()
    }

    #[test]
    fn every_kind_parses() {
        assert_eq!(parse("random").search, SearchSpec::Random);
        assert_eq!(
            parse("greedy:eps=0.05").search,
            SearchSpec::Greedy { epsilon: 0.05 }
        );
        let mcts = parse("mcts:iters=2000,c=0.7");
        assert_eq!(
            mcts.search,
            SearchSpec::Mcts {
                budget: Budget::iterations(2000),
                options: MctsOptions {
                    tree_policy: TreePolicy::Uct { c: 0.7 },
                    ..MctsOptions::uct()
                }
            }
        );
        // Default constants: 1/√2 on playout rewards, the paper's 0.4 with a network.
        let c_of = |spec: &str| match parse(spec).search {
            SearchSpec::Mcts {
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
            parse("mcts:time=200ms,policy=random,final=mean").search,
            SearchSpec::Mcts { budget: Budget { time: Some(t), iterations: None, .. }, options }
                if t == Duration::from_millis(200) && options == MctsOptions::plain()
        ));
        assert_eq!(
            parse("alphabeta:depth=6").search,
            SearchSpec::AlphaBeta {
                budget: Budget::iterations(u64::MAX),
                max_depth: Some(6)
            }
        );
        let ubfms = parse("ubfms:model=runs/awale,time=1s");
        assert_eq!(ubfms.model, Some(ModelSource::Path("runs/awale".into())));
        assert!(matches!(
            ubfms.search,
            SearchSpec::TreeSearch {
                variant: Variant::Ubfm,
                completed: true,
                decision: Decision::Safest,
                ..
            }
        ));
        assert!(matches!(
            parse("descent:iters=100,completed=false").search,
            SearchSpec::TreeSearch {
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
        // Spaces after commas and around `=`, as a game spec allows them (one grammar).
        assert_eq!(
            parse("mcts:iters=500, c = 0.4").search,
            parse("mcts:iters=500,c=0.4").search
        );
        assert_eq!(
            "hex(board_size=11, swap = false)".parse::<crate::games::GameSpec>(),
            "hex(board_size=11,swap=false)".parse::<crate::games::GameSpec>()
        );
        // The built-in network; a file of that name is reached by its path.
        assert_eq!(
            parse("ubfms:iters=5,model=shipped").model,
            Some(ModelSource::Shipped)
        );
        assert_eq!(
            parse("ubfms:iters=5,model=./shipped").model,
            Some(ModelSource::Path("./shipped".into()))
        );
        // A model makes MCTS value leaves with it unless told otherwise.
        assert!(matches!(
            parse("mcts:iters=10,model=x.descent").search,
            SearchSpec::Mcts {
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
        assert!(error("ubfms:iters=5,model=shipped,arch=paper-cnn").contains("arch= goes with"));
        assert!(error("alphabeta:depth=0").contains("depth"));
        assert!(error("ubfm:iters=5,completed=yes").contains("true or false"));
    }

    #[test]
    fn an_agent_takes_a_time_in_place_of_its_budget() {
        let spec = parse("puct:iters=800,model=untrained,c=2");
        let timed = spec.with_time("250ms".parse().unwrap()).unwrap();
        assert_eq!(timed.text, "puct:model=untrained,c=2,time=250ms");
        assert_eq!(
            timed.search.budget(),
            Some(Budget::time(Duration::from_millis(250)))
        );
        let error = parse("random")
            .with_time("1s".parse().unwrap())
            .unwrap_err();
        assert!(error.to_string().contains("time"), "{error}");
    }

    #[test]
    fn the_counterpart_without_a_network_keeps_the_search_and_drops_the_network() {
        let counterpart = |text: &str| parse(text).without_network().unwrap();
        let puct = counterpart("puct:time=100ms,model=shipped,c=1.5");
        assert_eq!(puct.text, "puct:time=100ms,c=1.5,model=playouts");
        assert_eq!(puct.text_without_budget(), "puct:c=1.5,model=playouts");
        assert_eq!(puct.model, Some(ModelSource::Playouts));
        assert!(!puct.has_network());
        assert!(parse("puct:time=100ms,model=shipped").has_network());
        let gumbel = counterpart("gumbel:iters=64,model=untrained,arch=paper-cnn");
        assert_eq!(gumbel.text, "gumbel:iters=64,model=playouts");
        for value_search in [
            "ubfms:time=1s,model=shipped",
            "exit:model=shipped,time=1s",
            "mcts:time=1s,model=shipped,c=0.4",
            "alphabeta:time=1s,model=shipped",
        ] {
            let uct = counterpart(value_search);
            assert_eq!(uct.text, "mcts:time=1s", "{value_search}");
            assert_eq!(uct.model, None);
            assert_eq!(
                uct.search,
                SearchSpec::parse("mcts:time=1s", false).unwrap()
            );
        }
        assert_eq!(counterpart("random").text, "random");
    }
}
