//! Every search takes the side to move from the position, never from the ply's parity: on a game
//! where P0 moves twice at the start (plies 0 and 1) and the players then alternate, each search
//! must find the only winning first move, which a search counting plies would miss.
//!
//! The game: a pile of 7 stones, each move takes 1 or 2, whoever takes the last stone wins. The
//! winning line is 2 then 2 (leaving P1 a multiple of 3); a search that believes P1 plays ply 1
//! sees ordinary Nim and takes 1.

use std::collections::HashMap;
use std::fmt;

use descent::games::{Action, EncodingShape, Game, MoveError, Outcome, Player, Symmetry};
use descent::search::table::key_of;
use descent::search::{
    AlphaBeta, AlphaBetaOptions, Budget, ConstantEvaluator, Decision, Mcts, MctsOptions, Table,
    TreeSearch, TreeSearchOptions,
};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

const PILE: u8 = 7;
const TAKE_TWO: Action = 1;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct DoubleStartParams;

#[derive(Clone, Copy, Debug)]
struct DoubleStartNim {
    pile: u8,
    ply: u8,
    mobility: [u32; 2],
}

impl DoubleStartNim {
    /// P0 plays plies 0 and 1, then P1 the even plies and P0 the odd ones.
    fn mover_at(ply: u8) -> Player {
        if ply <= 1 || !ply.is_multiple_of(2) {
            Player::P0
        } else {
            Player::P1
        }
    }
}

impl fmt::Display for DoubleStartNim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} stones, ply {}", self.pile, self.ply)
    }
}

impl Game for DoubleStartNim {
    const NAME: &'static str = "double_start_nim";
    const NUM_ACTIONS: usize = 2;
    const HAS_DRAWS: bool = false;
    const ENCODING: EncodingShape = EncodingShape {
        planes: 2,
        rows: 1,
        cols: 1,
    };
    const ENCODING_VERSION: u32 = 1;
    const SYMMETRIES: &'static [Symmetry] = &[];
    type Params = DoubleStartParams;

    fn new(_: &DoubleStartParams) -> Self {
        DoubleStartNim {
            pile: PILE,
            ply: 0,
            mobility: [0; 2],
        }
    }
    fn params(&self) -> &DoubleStartParams {
        &DoubleStartParams
    }
    fn max_game_length(&self) -> usize {
        PILE as usize
    }
    fn to_move(&self) -> Player {
        Self::mover_at(self.ply)
    }
    fn ply(&self) -> usize {
        self.ply as usize
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        out.extend((0..self.pile.min(2)).map(Action::from));
    }
    fn is_legal(&self, action: Action) -> bool {
        (action as u8) < self.pile.min(2)
    }
    fn play(&mut self, action: Action) {
        self.mobility[self.to_move().index()] += self.pile.min(2) as u32;
        self.pile -= action as u8 + 1;
        self.ply += 1;
    }
    fn outcome(&self) -> Option<Outcome> {
        // The player of the last ply took the last stone.
        (self.pile == 0).then(|| Outcome::win_for(Self::mover_at(self.ply - 1)))
    }
    fn hash(&self) -> u64 {
        self.hash_from_scratch()
    }
    fn hash_from_scratch(&self) -> u64 {
        (self.pile as u64) << 8 | self.ply as u64
    }
    fn piece_counts(&self) -> [u32; 2] {
        [self.pile as u32, 0]
    }
    fn mobility_sums(&self) -> [u32; 2] {
        self.mobility
    }
    fn encode(&self, out: &mut [f32]) {
        out[0] = self.pile as f32;
        out[1] = (self.to_move() == Player::P0) as u8 as f32;
    }
    fn apply_symmetry(&self, _index: usize) -> Self {
        *self
    }
    fn action_to_text(_player: Player, action: Action) -> String {
        (action + 1).to_string()
    }
    fn action_from_text(_player: Player, text: &str) -> Result<Action, MoveError> {
        match text {
            "1" => Ok(0),
            "2" => Ok(1),
            _ => Err(MoveError::Unparsable {
                text: text.to_string(),
                expected: "1 or 2".to_string(),
            }),
        }
    }
    fn notation_help() -> &'static str {
        "1 or 2 stones"
    }
}

/// Minimax value for P0 with the side to move taken from `to_move` (`true`) or from the ply's
/// parity (`false`, the bug this file guards against).
fn minimax(position: &DoubleStartNim, by_position: bool) -> f32 {
    if let Some(outcome) = position.outcome() {
        return outcome.value_p0();
    }
    let maximising = if by_position {
        position.to_move() == Player::P0
    } else {
        position.ply.is_multiple_of(2)
    };
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    let values = actions.iter().map(|&a| {
        let mut child = *position;
        child.play(a);
        minimax(&child, by_position)
    });
    if maximising {
        values.fold(f32::NEG_INFINITY, f32::max)
    } else {
        values.fold(f32::INFINITY, f32::min)
    }
}

fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

fn child_values(root: &DoubleStartNim, by_position: bool) -> HashMap<Action, f32> {
    [0, TAKE_TWO]
        .into_iter()
        .map(|a| {
            let mut child = *root;
            child.play(a);
            (a, minimax(&child, by_position))
        })
        .collect()
}

#[test]
fn the_game_tells_parity_from_the_side_to_move() {
    let root = DoubleStartNim::new(&DoubleStartParams);
    assert_eq!(child_values(&root, true)[&TAKE_TWO], 1.0, "2 then 2 wins");
    assert_eq!(child_values(&root, true)[&0], -1.0, "taking 1 first loses");
    // Counting plies, taking 2 does not look like a win: a search that did so would not find it.
    assert_eq!(child_values(&root, false)[&TAKE_TWO], -1.0);
}

#[test]
fn descent_and_ubfm_take_the_mover_from_the_position() {
    let root = DoubleStartNim::new(&DoubleStartParams);
    for options in [TreeSearchOptions::descent(), TreeSearchOptions::ubfm()] {
        let mut search = TreeSearch::new(options);
        let mut table = Table::new(true);
        search.search(
            &mut table,
            &root,
            &ConstantEvaluator(0.0),
            &Budget::iterations(1_000),
            &mut rng(1),
        );
        let node = table.get(key_of(&root)).expect("root expanded");
        assert!(node.resolved && node.completion == 1, "{node:?}");
        for decision in [Decision::Best, Decision::Safest] {
            let action = search.decide(&table, &root, decision, &mut rng(2));
            assert_eq!(action, Some(TAKE_TWO), "{decision:?}");
        }
    }
}

#[test]
fn alpha_beta_and_mcts_take_the_mover_from_the_position() {
    let root = DoubleStartNim::new(&DoubleStartParams);
    let mut alpha_beta = AlphaBeta::new(AlphaBetaOptions::default());
    let (result, _) = alpha_beta.search(
        &root,
        &ConstantEvaluator(0.0),
        &Budget::iterations(100_000),
        &mut rng(3),
    );
    assert_eq!((result.best, result.value_p0), (Some(TAKE_TWO), 1.0));
    for options in [MctsOptions::uct(), MctsOptions::plain()] {
        let mut mcts = Mcts::<DoubleStartNim>::new(options);
        mcts.search(
            &root,
            &ConstantEvaluator(0.0),
            &Budget::iterations(5_000),
            &mut rng(4),
        );
        assert_eq!(mcts.decide(&mut rng(5)), Some(TAKE_TWO));
    }
}
