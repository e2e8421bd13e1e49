//! The trained networks that ship inside the binary (`networks/GAME.descent`, each beside its
//! card `networks/GAME.md`): what `model=shipped` loads for the game being played.

use super::exported_net::{ExportManifest, parse_export};
use super::saved_net::plays_network_game;

/// A network built into the binary.
pub struct ShippedNet {
    /// The game's spec text, as the export's manifest names it.
    pub game: &'static str,
    /// The file in the repository it was built from.
    pub file: &'static str,
    /// The export file's bytes.
    pub bytes: &'static [u8],
}

/// A `ShippedNet` for the game named `$game`, built from `networks/$game.descent`: the file is
/// named by the game, so the table cannot give a game another game's network.
macro_rules! shipped {
    ($game:literal) => {
        ShippedNet {
            game: $game,
            file: concat!("networks/", $game, ".descent"),
            bytes: include_bytes!(concat!("../../networks/", $game, ".descent")),
        }
    };
}

/// Every shipped network, one a game at most.
pub const SHIPPED_NETS: &[ShippedNet] = &[
    shipped!("connect_four"),
    shipped!("othello"),
    shipped!("awale"),
    shipped!("breakthrough"),
    shipped!("hex"),
    shipped!("go"),
];

/// The network shipped for `game` (its spec text), the rules of play aside: Go's network
/// plays `go(superko=illegal,komi=7)` as it plays `go` (`plays_network_game`).
pub fn shipped_net(game: &str) -> Option<&'static ShippedNet> {
    SHIPPED_NETS
        .iter()
        .find(|net| plays_network_game(game, net.game))
}

/// The games with a shipped network, for messages: "connect_four, …".
pub fn shipped_games() -> String {
    let names: Vec<&str> = SHIPPED_NETS.iter().map(|net| net.game).collect();
    names.join(", ")
}

impl ShippedNet {
    /// Its export manifest.
    ///
    /// # Errors
    /// Damaged bytes (a test guards every shipped file).
    pub fn manifest(&self) -> anyhow::Result<ExportManifest> {
        Ok(parse_export(self.bytes, self.file)?.0)
    }
}
