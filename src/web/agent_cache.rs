//! The agents of `descent serve`'s board: built from the specs pages send, kept for the next
//! move, and bounded — in count and in parameters kept, in parameters being built or loaded at
//! once (a request past that budget gets 503 at once), in thinking time, and in where their
//! networks may come from (under the served directory only).

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::web_error::WebError;
use crate::arena::model::network_base;
use crate::arena::{AgentFactory, AgentSpec, ModelSource};
use crate::games::Game;
use crate::settings::limits::MAX_NET_PARAMETERS;
use crate::value::NetDevice;
use crate::value::exported_net::is_export_path;
use crate::value::shipped_nets::shipped_net;

/// The longest an agent of `descent serve` may think about one move: a spec asking for more
/// is refused, and an iteration budget stops there too (a request cannot pin a core).
pub const MAX_MOVE_TIME: Duration = Duration::from_secs(10);
/// Agents kept loaded (their networks in memory), the least recently used dropped first.
pub const CACHED_AGENTS: usize = 4;
/// Parameters of the kept agents' networks together, at most: two of the largest allowed.
pub const MAX_CACHED_PARAMETERS: u64 = 2 * MAX_NET_PARAMETERS;
/// Parameters of the networks being built or loaded at once, at most: one of the largest
/// allowed (a load holds its file's bytes and the network, about 1.1 GB at that size). A
/// request that would pass it is answered 503 at once.
pub const MAX_LOADING_PARAMETERS: u64 = MAX_NET_PARAMETERS;

type CacheKey = (String, String);

/// One kept agent: its factory and its network's parameters.
struct Kept {
    key: CacheKey,
    factory: Arc<dyn Any + Send + Sync>,
    parameters: u64,
}

/// The agents built lately, one factory (its network loaded once) per game and agent spec, at
/// most `CACHED_AGENTS` and `MAX_CACHED_PARAMETERS`; networks come from under `root` only.
pub struct AgentCache {
    root: PathBuf,
    /// Most recently used last.
    kept: Mutex<Vec<Kept>>,
    /// Parameters of the networks being built or loaded now.
    loading: Mutex<u64>,
}

/// A share of the loading budget, given back when dropped (the load done or failed).
struct LoadPermit<'a> {
    loading: &'a Mutex<u64>,
    parameters: u64,
}

impl Drop for LoadPermit<'_> {
    fn drop(&mut self) {
        *self.loading.lock().expect("not poisoned") -= self.parameters;
    }
}

/// The parameters of the network `model` names, for `game` (its spec text) whose inputs have
/// `shape`; an estimate from the weights' bytes for a file (4 bytes a parameter), 0 without a
/// network.
fn network_parameters(model: Option<&ModelSource>, game: &str, shape: [usize; 3]) -> u64 {
    match model {
        None | Some(ModelSource::Playouts) => 0,
        // An architecture too big was refused by its spec already; `MAX` is never loaded.
        Some(ModelSource::Untrained(architecture)) => architecture
            .parameter_count(shape[0], shape[1], shape[2])
            .unwrap_or(u64::MAX),
        Some(ModelSource::Shipped) => shipped_net(game).map_or(0, |n| n.bytes.len() as u64 / 4),
        Some(ModelSource::Path(path)) => {
            let file = if is_export_path(path) {
                path.clone()
            } else {
                network_base(path).with_extension("bpk")
            };
            std::fs::metadata(file).map_or(0, |m| m.len() / 4)
        }
    }
}

impl AgentCache {
    /// A cache whose agents may load networks under `root` (the served runs) only.
    pub fn new(root: &Path) -> AgentCache {
        AgentCache {
            root: root.to_path_buf(),
            kept: Mutex::new(Vec::new()),
            loading: Mutex::new(0),
        }
    }

    /// The kept factory of `key`, now the most recently used.
    fn kept<G: Game>(&self, key: &CacheKey) -> Option<Arc<AgentFactory<G>>> {
        let mut kept = self.kept.lock().expect("not poisoned");
        let at = kept.iter().position(|k| k.key == *key)?;
        let entry = kept.remove(at);
        let factory = entry.factory.clone();
        kept.push(entry);
        factory.downcast::<AgentFactory<G>>().ok()
    }

    /// A share of `parameters` of the loading budget, or 503 if the loads in progress leave
    /// too little (the page may ask again in a moment).
    fn permit(&self, parameters: u64) -> Result<LoadPermit<'_>, WebError> {
        let mut loading = self.loading.lock().expect("not poisoned");
        if parameters > MAX_LOADING_PARAMETERS.saturating_sub(*loading) {
            return Err(WebError::unavailable(format!(
                "busy: networks of {} parameters are being loaded and this one has {parameters} \
                 (at most {MAX_LOADING_PARAMETERS} at once); try again in a moment",
                *loading
            )));
        }
        *loading += parameters;
        Ok(LoadPermit {
            loading: &self.loading,
            parameters,
        })
    }

    /// Keeps `factory`, dropping the least recently used agents past the limits.
    fn keep(&self, key: CacheKey, factory: Arc<dyn Any + Send + Sync>, parameters: u64) {
        let mut kept = self.kept.lock().expect("not poisoned");
        kept.retain(|k| k.key != key);
        let mut total: u64 = kept.iter().map(|k| k.parameters).sum::<u64>() + parameters;
        while !kept.is_empty() && (kept.len() >= CACHED_AGENTS || total > MAX_CACHED_PARAMETERS) {
            total -= kept.remove(0).parameters;
        }
        kept.push(Kept {
            key,
            factory,
            parameters,
        });
    }

    /// The factory of `agent` for game `game` (`G`), loaded on first use.
    ///
    /// # Errors
    /// 400: a bad spec, a model outside the served directory or that does not load; 503: the
    /// loading budget is taken by other requests.
    pub fn factory<G: Game>(
        &self,
        game: &str,
        agent: &str,
    ) -> Result<Arc<AgentFactory<G>>, WebError> {
        let key = (game.to_string(), agent.to_string());
        if let Some(factory) = self.kept::<G>(&key) {
            return Ok(factory);
        }
        let refuse = |message: String| WebError::bad_request(format!("agent {agent:?}: {message}"));
        // A spec's own error names the spec already.
        let mut spec: AgentSpec = agent
            .parse()
            .map_err(|e: crate::ConfigError| WebError::bad_request(e.to_string()))?;
        spec.search = spec.search.capped(MAX_MOVE_TIME).map_err(|time| {
            refuse(format!(
                "{time:?} a move is more than this server allows ({MAX_MOVE_TIME:?})"
            ))
        })?;
        if let Some(ModelSource::Path(path)) = &spec.model {
            let served = self.served_path(path).ok_or_else(|| {
                refuse(format!(
                    "model={}: not a run or export under the served directory (give its name there, e.g. model=RUN)",
                    path.display()
                ))
            })?;
            spec.model = Some(ModelSource::Path(served));
        }
        if let Some(ModelSource::Untrained(architecture)) = &spec.model {
            // Refused by its size before it takes any of the budget.
            architecture
                .check_size(G::ENCODING.dims())
                .map_err(|e| refuse(format!("arch={architecture}: {}", e.message)))?;
        }
        let parameters = network_parameters(spec.model.as_ref(), game, G::ENCODING.dims());
        let permit = self.permit(parameters)?;
        let factory = AgentFactory::<G>::new(spec, game, &NetDevice::cpu())
            .map_err(|e| refuse(format!("{e:#}")))?;
        drop(permit);
        let factory = Arc::new(factory);
        self.keep(key, factory.clone(), parameters);
        Ok(factory)
    }

    /// `model` as a run, checkpoint, network or export under the served directory: a name
    /// relative to it (or a path inside it). Anything else gets one answer, whether it exists
    /// or not (a page cannot probe the disk through it): `None`.
    fn served_path(&self, model: &Path) -> Option<PathBuf> {
        let root = std::fs::canonicalize(&self.root).ok()?;
        // As given (the page names runs by their path) or relative to the served directory;
        // a saved network is named by its base (`net` for net.json / net.bpk).
        let inside = |candidate: &PathBuf| {
            // The name, and the network files it leads to (through a run's `latest`), inside.
            let base = network_base(candidate);
            let named = [candidate.clone(), candidate.with_extension("json")]
                .into_iter()
                .filter_map(|p| std::fs::canonicalize(p).ok())
                .any(|p| p.starts_with(&root));
            let files_inside = [base.with_extension("json"), base.with_extension("bpk")]
                .into_iter()
                .filter_map(|p| std::fs::canonicalize(p).ok())
                .all(|p| p.starts_with(&root));
            named && files_inside
        };
        [model.to_path_buf(), self.root.join(model)]
            .into_iter()
            .find(inside)
    }

    /// The agents loaded now.
    pub fn len(&self) -> usize {
        self.kept.lock().expect("not poisoned").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The agent specs kept now, least recently used first.
    pub fn kept_specs(&self) -> Vec<String> {
        let kept = self.kept.lock().expect("not poisoned");
        kept.iter().map(|k| k.key.1.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loading_budget_is_shared_and_given_back() {
        let cache = AgentCache::new(Path::new("."));
        let first = cache.permit(MAX_LOADING_PARAMETERS - 10).unwrap();
        let refused = cache.permit(11).err().unwrap();
        assert_eq!(refused.status, 503, "{}", refused.message);
        let small = cache.permit(10).unwrap();
        drop(first);
        drop(small);
        assert_eq!(*cache.loading.lock().unwrap(), 0);
        let _whole = cache.permit(MAX_LOADING_PARAMETERS).unwrap();
    }

    #[test]
    fn kept_parameters_stay_within_their_limit() {
        let cache = AgentCache::new(Path::new("."));
        let factory: Arc<dyn Any + Send + Sync> = Arc::new(());
        for name in ["a", "b", "c"] {
            let key = ("g".to_string(), name.to_string());
            cache.keep(key, factory.clone(), MAX_NET_PARAMETERS);
        }
        assert_eq!(cache.kept_specs(), ["b", "c"], "two of the largest at most");
    }
}
