//! The trained networks that ship inside the binary (`networks/GAME.descent`, each beside its
//! card `networks/GAME.md`): what `model=shipped` loads for the game being played.

use super::exported_net::{ExportManifest, parse_export};

/// A network built into the binary.
pub struct ShippedNet {
    /// The game's spec text, as the export's manifest names it.
    pub game: &'static str,
    /// The file in the repository it was built from.
    pub file: &'static str,
    /// The export file's bytes.
    pub bytes: &'static [u8],
}

/// Every shipped network, one a game at most.
pub const SHIPPED_NETS: &[ShippedNet] = &[
    ShippedNet {
        game: "connect_four",
        file: "networks/connect_four.descent",
        bytes: include_bytes!("../../networks/connect_four.descent"),
    },
    ShippedNet {
        game: "othello",
        file: "networks/othello.descent",
        bytes: include_bytes!("../../networks/othello.descent"),
    },
    ShippedNet {
        game: "awale",
        file: "networks/awale.descent",
        bytes: include_bytes!("../../networks/awale.descent"),
    },
    ShippedNet {
        game: "breakthrough",
        file: "networks/breakthrough.descent",
        bytes: include_bytes!("../../networks/breakthrough.descent"),
    },
];

/// The network shipped for `game` (its spec text).
pub fn shipped_net(game: &str) -> Option<&'static ShippedNet> {
    SHIPPED_NETS.iter().find(|net| net.game == game)
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
