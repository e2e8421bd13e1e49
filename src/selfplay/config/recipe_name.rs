//! `recipe:` — which training recipe a run follows (`src/selfplay/recipes.rs` runs it).

use serde::{Deserialize, Serialize};

/// The training recipe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecipeName {
    /// Completed Descent self-play with tree learning (the paper's; every other section).
    #[default]
    Athenan,
    /// PUCT self-play learning the visit distributions and outcomes (the `alphazero:` section).
    Alphazero,
    /// Gumbel AlphaZero: Gumbel search in self-play learning its improved policy and the
    /// outcomes (the `gumbel:` section).
    Gumbel,
    /// Expert iteration: the apprentice plays, an MCTS expert labels one position a game (the
    /// `exit:` section).
    Exit,
}

impl RecipeName {
    /// The recipe as the YAML writes it.
    pub fn name(self) -> &'static str {
        match self {
            RecipeName::Athenan => "athenan",
            RecipeName::Alphazero => "alphazero",
            RecipeName::Gumbel => "gumbel",
            RecipeName::Exit => "exit",
        }
    }

    /// Every recipe, in the order `recipe:` lists them.
    pub const ALL: [RecipeName; 4] = [
        RecipeName::Athenan,
        RecipeName::Alphazero,
        RecipeName::Gumbel,
        RecipeName::Exit,
    ];

    /// The recipe `name` writes (`name(recipe) == name`), if any.
    pub fn from_name(name: &str) -> Option<RecipeName> {
        RecipeName::ALL
            .into_iter()
            .find(|recipe| recipe.name() == name)
    }

    /// The agent kind its networks play as: completed UBFM_s with the safest decision (the
    /// paper's player), PUCT, Gumbel search, or ExIt's expert search.
    pub fn player_kind(self) -> &'static str {
        match self {
            RecipeName::Athenan => "ubfms",
            RecipeName::Alphazero => "puct",
            RecipeName::Gumbel => "gumbel",
            RecipeName::Exit => "exit",
        }
    }
}
