//! The search table T of docs/algorithms.md §1, shared by Descent, UBFM and UBFM_s and kept across
//! the moves of one game (self-play reuses it).
//!
//! Keyed by Zobrist hash (transpositions merge). For each state of S — the states that are
//! **expanded or terminal** — a `Node` holds `v(s)` (P0's view), `c(s)` ∈ {-1, 0, 1} and `r(s)`;
//! for each of its actions a `ChildEdge` holds copies of the child's `v, c, r` and `n(s, a)`.
//! Leaves that are neither expanded nor terminal exist only as edges of their parent, so S is
//! exactly the set of keys, the tree-learning targets (docs/algorithms.md §3).
//!
//! Terminal states are keyed with their hash XOR a salt, so that a finished position never shares
//! an entry with a position in play that has the same board (a game ended by a ply cap, say),
//! XOR a mix of what the terminal evaluation reads beyond the position (`TerminalEval::path_key`:
//! the ply for the depth heuristics, the ply and mobility sums for mobility), so that a quick and
//! a slow win on the same final board keep their own values (Algorithm 10 evaluates f_t at every
//! terminal visit).
//!
//! Memory: a node is 16 bytes plus its 8-byte key in a hash map (about 28 bytes a slot at the
//! map's load factor), each edge 12 bytes; `memory_bytes` reports the total.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::games::{Action, Game};

/// Keys are Zobrist hashes, already uniformly spread: hash them by identity.
#[derive(Default, Clone, Copy)]
pub struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A hash map keyed by Zobrist hashes.
pub type ZobristMap<V> = HashMap<u64, V, BuildHasherDefault<ZobristHasher>>;

/// Salt XORed into a terminal state's key.
const TERMINAL_SALT: u64 = 0x5A17_7E12_11A1_0001;

/// The table key of a terminal position whose terminal evaluation also reads `path_key`
/// (`TerminalEval::path_key`; 0: nothing beyond the position, the key is `key_of`'s).
#[inline]
pub fn terminal_key<G: Game>(position: &G, path_key: u64) -> u64 {
    debug_assert!(position.is_terminal());
    if path_key == 0 {
        return key_of(position);
    }
    // SplitMix64's finaliser: distinct path keys give unrelated salts.
    let mut z = path_key.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    key_of(position) ^ z ^ (z >> 31)
}

/// The table key of a position.
#[inline]
pub fn key_of<G: Game>(position: &G) -> u64 {
    if position.is_terminal() {
        position.hash() ^ TERMINAL_SALT
    } else {
        position.hash()
    }
}

/// `(r, c, v)`: resolution, completion and value (P0's view) of a state or edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triple {
    pub resolved: bool,
    pub completion: i8,
    pub value_p0: f32,
}

/// One state of S.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub value_p0: f32,
    first_child: u32,
    num_children: u16,
    pub completion: i8,
    pub resolved: bool,
    pub terminal: bool,
    /// Index into the table's stored positions (`u32::MAX` when positions are not kept).
    position: u32,
}

impl Node {
    pub fn triple(&self) -> Triple {
        Triple {
            resolved: self.resolved,
            completion: self.completion,
            value_p0: self.value_p0,
        }
    }

    pub fn num_children(&self) -> usize {
        self.num_children as usize
    }
}

/// What a state knows of one of its actions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildEdge {
    /// v(s, a), P0's view.
    pub value_p0: f32,
    /// n(s, a): how often the search chose this action in this state.
    pub visits: u32,
    pub action: Action,
    /// c(s, a).
    pub completion: i8,
    /// r(s, a).
    pub resolved: bool,
}

impl ChildEdge {
    pub fn new(action: Action, triple: Triple) -> ChildEdge {
        ChildEdge {
            value_p0: triple.value_p0,
            visits: 0,
            action,
            completion: triple.completion,
            resolved: triple.resolved,
        }
    }

    pub fn set(&mut self, triple: Triple) {
        self.value_p0 = triple.value_p0;
        self.completion = triple.completion;
        self.resolved = triple.resolved;
    }
}

/// The table: S, its values and its edges; optionally the positions of S (for tree learning).
#[derive(Clone, Debug)]
pub struct Table<G> {
    nodes: ZobristMap<Node>,
    edges: Vec<ChildEdge>,
    positions: Vec<G>,
    /// The key of each kept position (a terminal state's key depends on its path).
    position_keys: Vec<u64>,
    keep_positions: bool,
}

impl<G: Game> Table<G> {
    /// An empty table. With `keep_positions`, every state added to S is stored, so that
    /// `learning_pairs` can hand the positions to the learner.
    pub fn new(keep_positions: bool) -> Table<G> {
        Table {
            nodes: ZobristMap::default(),
            edges: Vec::new(),
            positions: Vec::new(),
            position_keys: Vec::new(),
            keep_positions,
        }
    }

    /// Forgets everything (keeps the allocations).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.edges.clear();
        self.positions.clear();
        self.position_keys.clear();
    }

    /// Number of states in S.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Approximate heap memory in bytes (map slots at capacity, edges, kept positions).
    pub fn memory_bytes(&self) -> usize {
        let slot = std::mem::size_of::<(u64, Node)>() + 1;
        self.nodes.capacity() * slot
            + self.edges.capacity() * std::mem::size_of::<ChildEdge>()
            + self.positions.capacity() * std::mem::size_of::<G>()
    }

    #[inline]
    pub fn get(&self, key: u64) -> Option<&Node> {
        self.nodes.get(&key)
    }

    #[inline]
    pub fn contains(&self, key: u64) -> bool {
        self.nodes.contains_key(&key)
    }

    /// The node of `key` and its edges.
    #[inline]
    pub fn node_and_children(&self, key: u64) -> Option<(&Node, &[ChildEdge])> {
        let node = self.nodes.get(&key)?;
        let first = node.first_child as usize;
        Some((node, &self.edges[first..first + node.num_children as usize]))
    }

    /// The node of `key` and its edges, mutably.
    #[inline]
    pub fn node_and_children_mut(&mut self, key: u64) -> Option<(&mut Node, &mut [ChildEdge])> {
        let node = self.nodes.get_mut(&key)?;
        let (first, count) = (node.first_child as usize, node.num_children as usize);
        Some((node, &mut self.edges[first..first + count]))
    }

    /// The edges of the root `position`, if it has been expanded.
    pub fn children_of(&self, position: &G) -> Option<&[ChildEdge]> {
        self.node_and_children(key_of(position))
            .map(|(_, children)| children)
    }

    fn push_position(&mut self, position: &G, key: u64) -> u32 {
        if !self.keep_positions {
            return u32::MAX;
        }
        self.positions.push(position.clone());
        self.position_keys.push(key);
        (self.positions.len() - 1) as u32
    }

    /// Adds a terminal state to S (no-op if present) and returns its triple. `path_key` is what
    /// its terminal evaluation reads beyond the position (`TerminalEval::path_key`).
    pub fn insert_terminal(
        &mut self,
        position: &G,
        path_key: u64,
        completion: i8,
        value_p0: f32,
    ) -> Triple {
        let key = terminal_key(position, path_key);
        if let Some(node) = self.nodes.get(&key) {
            return node.triple();
        }
        let index = self.push_position(position, key);
        let node = Node {
            value_p0,
            first_child: 0,
            num_children: 0,
            completion,
            resolved: true,
            terminal: true,
            position: index,
        };
        self.nodes.insert(key, node);
        node.triple()
    }

    /// Starts the edges of a new expanded node: push them with `push_edge`, then call
    /// `finish_expansion`.
    pub fn begin_expansion(&self) -> usize {
        self.edges.len()
    }

    pub fn push_edge(&mut self, edge: ChildEdge) {
        self.edges.push(edge);
    }

    /// The edges pushed since `begin`, to fill in values.
    pub fn pending_edges_mut(&mut self, begin: usize) -> &mut [ChildEdge] {
        &mut self.edges[begin..]
    }

    /// Adds the expanded non-terminal `position` to S with the edges pushed since `begin` and
    /// the given triple.
    pub fn finish_expansion(&mut self, position: &G, begin: usize, triple: Triple) {
        let key = key_of(position);
        debug_assert!(!self.nodes.contains_key(&key), "state expanded twice");
        let index = self.push_position(position, key);
        let count = self.edges.len() - begin;
        let node = Node {
            value_p0: triple.value_p0,
            first_child: u32::try_from(begin).expect("fewer than 2^32 edges"),
            num_children: u16::try_from(count).expect("fewer than 65536 actions"),
            completion: triple.completion,
            resolved: triple.resolved,
            terminal: false,
            position: index,
        };
        self.nodes.insert(key, node);
    }

    /// Every state of S with its value v(s), P0's view (tree learning, docs/algorithms.md §3), in
    /// the order the states entered S — an order that does not depend on the map's capacity, so
    /// that a run resumed with a fresh table learns exactly what an uninterrupted one does. Needs a
    /// table made with `keep_positions`.
    pub fn learning_pairs(&self) -> impl Iterator<Item = (&G, f32)> + '_ {
        assert!(
            self.keep_positions,
            "learning pairs need a table that keeps positions"
        );
        self.positions
            .iter()
            .zip(&self.position_keys)
            .map(|(position, key)| {
                let node = self.nodes.get(key).expect("every kept position is in S");
                (position, node.value_p0)
            })
    }

    /// Keeps only the resolved states of S with their edges, forgetting the rest
    /// (docs/algorithms.md §6: proven states kept across games spare re-searching solved endgames).
    /// The kept states are not handed out by `learning_pairs` again: they were learned in the game
    /// that found them.
    pub fn retain_resolved(&mut self) {
        let mut edges = Vec::with_capacity(self.edges.len() / 4);
        self.nodes.retain(|_, node| node.resolved);
        for node in self.nodes.values_mut() {
            let first = node.first_child as usize;
            let count = node.num_children as usize;
            node.first_child = u32::try_from(edges.len()).expect("fewer than 2^32 edges");
            edges.extend_from_slice(&self.edges[first..first + count]);
            node.position = u32::MAX;
        }
        self.edges = edges;
        self.positions.clear();
        self.position_keys.clear();
    }

    /// Every node of S with its key.
    pub fn nodes(&self) -> impl Iterator<Item = (u64, &Node)> + '_ {
        self.nodes.iter().map(|(&k, n)| (k, n))
    }

    /// The edges of a node.
    pub fn children(&self, node: &Node) -> &[ChildEdge] {
        let first = node.first_child as usize;
        &self.edges[first..first + node.num_children as usize]
    }
}
