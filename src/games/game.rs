//! The `Game` trait: what every search, learner and agent knows of a board game.
//!
//! Sign convention (docs/algorithms.md §0): every value in `descent` is **from P0's point of
//! view**. P0 moves first and maximises; P1 minimises. `Outcome::value_p0` is +1 when P0 won, -1
//! when P1 won and 0 for a draw, exactly OpenSpiel's `Returns()[0]`.
//!
//! Positions are small `Copy`-like values (fixed-size arrays and bitboards) so that searches can
//! clone them freely; generating legal actions writes into a caller's buffer and allocates
//! nothing once the buffer has grown to the game's action count.

use super::board_view::BoardView;
use std::fmt;

/// An action id. Ids equal OpenSpiel's numbering for the same game, so that any move list can be
/// replayed in both implementations and compared position by position.
pub type Action = u16;

/// One of the two players. P0 moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    P0,
    P1,
}

impl Player {
    /// The other player.
    #[inline]
    pub fn opponent(self) -> Player {
        match self {
            Player::P0 => Player::P1,
            Player::P1 => Player::P0,
        }
    }

    /// 0 for P0, 1 for P1.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The player of index 0 or 1.
    #[inline]
    pub fn from_index(index: usize) -> Player {
        debug_assert!(index < 2, "a player index is 0 or 1, got {index}");
        if index == 0 { Player::P0 } else { Player::P1 }
    }

    /// +1 for P0 (the maximiser), -1 for P1: multiply a mover's-view value by this to get P0's
    /// view.
    #[inline]
    pub fn sign(self) -> f32 {
        match self {
            Player::P0 => 1.0,
            Player::P1 => -1.0,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::P0 => "p0",
            Player::P1 => "p1",
        })
    }
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    WinP0,
    WinP1,
    Draw,
}

impl Outcome {
    /// The classic gain b_t from P0's point of view: +1, -1 or 0 (docs/algorithms.md §0).
    #[inline]
    pub fn value_p0(self) -> f32 {
        match self {
            Outcome::WinP0 => 1.0,
            Outcome::WinP1 => -1.0,
            Outcome::Draw => 0.0,
        }
    }

    /// OpenSpiel's `Returns()`: `[value for P0, value for P1]`.
    pub fn returns(self) -> [f32; 2] {
        let v = self.value_p0();
        [v, -v]
    }

    /// The winner, if any.
    pub fn winner(self) -> Option<Player> {
        match self {
            Outcome::WinP0 => Some(Player::P0),
            Outcome::WinP1 => Some(Player::P1),
            Outcome::Draw => None,
        }
    }

    /// The outcome in which `player` wins.
    pub fn win_for(player: Player) -> Outcome {
        match player {
            Player::P0 => Outcome::WinP0,
            Player::P1 => Outcome::WinP1,
        }
    }

    /// The outcome of a game decided by counts (pieces, seeds, discs): the larger wins, equal
    /// counts draw.
    pub fn by_counts<T: Ord>(p0: T, p1: T) -> Outcome {
        match p0.cmp(&p1) {
            std::cmp::Ordering::Greater => Outcome::WinP0,
            std::cmp::Ordering::Less => Outcome::WinP1,
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }
}

/// The shape of a game's input encoding: `[planes, rows, cols]`, written from P0's fixed point of
/// view (a side-to-move plane says who moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodingShape {
    pub planes: usize,
    pub rows: usize,
    pub cols: usize,
}

impl EncodingShape {
    /// Number of floats of one encoded position.
    pub const fn len(&self) -> usize {
        self.planes * self.rows * self.cols
    }

    /// Number of cells of one plane.
    pub const fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// `[planes, rows, cols]`, the input shape of a network.
    pub const fn dims(&self) -> [usize; 3] {
        [self.planes, self.rows, self.cols]
    }

    /// Never true for a real game; present for clippy's `len_without_is_empty`.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A board symmetry that preserves the value of every position (no colour swap): a permutation
/// of the board's cells (applied to each plane of the encoding) and the matching permutation of
/// action ids.
#[derive(Debug)]
pub struct Symmetry {
    /// A short name, e.g. `"mirror"`, `"rot90"`.
    pub name: &'static str,
    /// `cell_image[i]` is where cell `i` (row-major over `rows × cols`) goes.
    pub cell_image: &'static [u16],
    /// `action_image[a]` is the image of action `a`.
    pub action_image: &'static [Action],
}

impl Symmetry {
    /// Applies the symmetry to an encoded position: `dst[p][image(i)] = src[p][i]` for every
    /// plane `p` and cell `i`. Both slices have the length of `shape`.
    ///
    /// # Panics
    /// If the symmetry was built for a board of another size than `shape`'s, or a slice is not
    /// one encoded position of `shape`.
    pub fn permute_encoding(&self, shape: EncodingShape, src: &[f32], dst: &mut [f32]) {
        let cells = shape.cells();
        assert_eq!(
            self.cell_image.len(),
            cells,
            "symmetry built for another board size"
        );
        assert_eq!(src.len(), shape.len(), "source is not one encoded position");
        assert_eq!(
            dst.len(),
            shape.len(),
            "destination is not one encoded position"
        );
        for (src_plane, dst_plane) in src.chunks_exact(cells).zip(dst.chunks_exact_mut(cells)) {
            for (i, &image) in self.cell_image.iter().enumerate() {
                dst_plane[image as usize] = src_plane[i];
            }
        }
    }
}

/// Pushes the actions of the set bits of `mask` (bit `a` = action `a`) in increasing order: the
/// legal-action generator of games that keep their legal moves as a bit mask.
#[inline(always)]
pub fn push_mask_actions(mut mask: u64, out: &mut Vec<Action>) {
    while mask != 0 {
        out.push(mask.trailing_zeros() as Action);
        mask &= mask - 1;
    }
}

/// Why a move text or an action id was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error("cannot parse move {text:?}: expected {expected}")]
    Unparsable { text: String, expected: String },
    #[error("move {text:?} is not legal here (legal: {legal})")]
    Illegal { text: String, legal: String },
    #[error("action id {id} is not legal here (legal ids: {legal_ids})")]
    IllegalId { id: usize, legal_ids: String },
    #[error("action id {id} is out of range (this game has ids 0..{count})")]
    OutOfRange { id: usize, count: usize },
    #[error("the game is over: no move can be played")]
    GameOver,
    #[error(
        "move {text:?} is not legal here; did you mean {meant:?}? (the case of a move says whose it is; legal: {legal})"
    )]
    WrongCase {
        text: String,
        meant: String,
        legal: String,
    },
}

/// Why a position built from parts (a board, counters, the side to move) was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a valid {game} position: {problem}")]
pub struct PositionError {
    /// The game's registry name.
    pub game: &'static str,
    /// What is wrong, with the bad value.
    pub problem: String,
}

/// A two-player, deterministic, perfect-information board game.
///
/// Implementations keep positions small and cheap to clone; `play` updates the Zobrist hash
/// incrementally and `hash_from_scratch` recomputes it (the conformance suite checks they agree).
///
/// ```
/// use descent::games::{Awale, Game, GameExt, Outcome, Player};
/// use descent::games::perft::perft;
///
/// let mut awale = Awale::new(&Default::default());
/// let mut actions = Vec::new();
/// awale.legal_actions(&mut actions);
/// assert_eq!(actions.len(), 6);
/// awale.play_moves("C").unwrap(); // P0 sows its third house
/// assert_eq!(awale.to_move(), Player::P1);
/// assert_eq!(awale.hash(), awale.hash_from_scratch());
/// assert_eq!(awale.outcome(), None::<Outcome>);
/// assert_eq!(perft(&Awale::new(&Default::default()), 2), 36);
/// ```
pub trait Game: Clone + Send + Sync + fmt::Debug + fmt::Display + 'static {
    /// Registry name, e.g. `"awale"`.
    const NAME: &'static str;
    /// Size of the action space (OpenSpiel's `NumDistinctActions`): ids are `0..NUM_ACTIONS`, and
    /// no position has more legal actions than this.
    const NUM_ACTIONS: usize;
    /// Whether a game can end in a draw.
    const HAS_DRAWS: bool;
    /// The action that passes the turn, for a game that has one (Go, Othello, Ataxx, Lines of
    /// Action). RAVE credits it no all-moves-as-first statistics: a pass changes no board, and
    /// the end of every Go playout is one.
    const PASS_ACTION: Option<Action> = None;
    /// Shape of `encode`'s output.
    const ENCODING: EncodingShape;
    /// Version of the encoding, stored with every checkpoint: bump it when `encode` changes.
    const ENCODING_VERSION: u32;
    /// The value-preserving board symmetries, identity excluded.
    const SYMMETRIES: &'static [Symmetry];
    /// A one-player game (Morpion Solitaire): P0 moves every turn, every search maximises, and
    /// the `score` heuristic values a finished game by its score whatever its outcome.
    const ONE_PLAYER: bool = false;
    /// Whether every symmetry maps legal action ids by its `action_image` table alone (false
    /// where `symmetric_action` needs the position): then a policy target over action ids can
    /// be imaged from the encoded position (AlphaZero's and ExIt's symmetry augmentation).
    const ACTION_IMAGES_BY_TABLE: bool = true;
    /// Whether GTP engines write this game's moves in upper case (Go's `D4`); input is read in
    /// either case.
    const GTP_UPPER_CASE: bool = false;
    /// How players of the game name its sides, P0's first, as the drawing colours them: Black
    /// and White where P0 moves first with the black pieces (the default), the game's own where
    /// it differs (draughts' White moves first, Arimaa's Gold and Silver, a mancala board's South
    /// and North).
    const SIDE_NAMES: [&'static str; 2] = ["Black", "White"];
    /// The characters of P0's and P1's pieces in the position's text (`Display`) and the ANSI
    /// colour each is drawn in on a terminal (`1;31`: bold red), where the game's pieces have a
    /// colour players expect (Connect Four's red and yellow discs); `None`: the text as it is.
    const TERMINAL_PIECES: Option<[(char, &'static str); 2]> = None;

    /// Rule variants and other parameters of the game (board size, options).
    type Params: Clone + Default + fmt::Debug + PartialEq + Send + Sync;

    /// The initial position under `params`.
    fn new(params: &Self::Params) -> Self;

    /// The parameters this position was created with.
    fn params(&self) -> &Self::Params;

    /// Upper bound on the number of plies of any game under these parameters.
    fn max_game_length(&self) -> usize;

    /// The player to move. Meaningless but defined once the game is over.
    fn to_move(&self) -> Player;

    /// Number of actions played since the initial position.
    fn ply(&self) -> usize;

    /// Writes the legal actions into `out` (cleared first), in increasing id order. Empty exactly
    /// when the game is over.
    fn legal_actions(&self, out: &mut Vec<Action>);

    /// Writes the actions a random playout draws from into `out` (cleared first): the legal
    /// actions, less those a playout should never play because they only throw the game away
    /// at random (Go: filling one's own eye, or passing while a stone can be placed). Every one
    /// is legal, and it is empty exactly when the game is over.
    fn playout_actions(&self, out: &mut Vec<Action>) {
        self.legal_actions(out);
    }

    /// Plays one random playout from this position to its end, appends each of its moves with
    /// its player to `played` (RAVE's all-moves-as-first statistics read them), and returns its
    /// outcome: by default uniformly random moves of `playout_actions` under the game's own
    /// rules (`random_playout::search_playout`). A game may play its playouts on lighter rules
    /// that keep what a result means (Go: simple ko only, no board history; `go/playout.rs`).
    /// `actions` is a scratch buffer.
    fn playout_outcome<R: rand::Rng + ?Sized>(
        mut self,
        rng: &mut R,
        actions: &mut Vec<Action>,
        played: &mut Vec<(Player, Action)>,
    ) -> Outcome {
        super::random_playout::search_playout(&mut self, rng, actions, played).0
    }

    /// Whether `action` is legal here.
    fn is_legal(&self, action: Action) -> bool;

    /// Plays a legal action. Playing an illegal action is a logic error (checked in debug builds).
    fn play(&mut self, action: Action);

    /// `Some(outcome)` once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// Whether the game is over.
    #[inline]
    fn is_terminal(&self) -> bool {
        self.outcome().is_some()
    }

    /// Zobrist hash of the position, maintained incrementally by `play`.
    fn hash(&self) -> u64;

    /// The same hash, recomputed from the position's contents.
    fn hash_from_scratch(&self) -> u64;

    /// The game's own score, P0 minus P1, if it has one (Awale: captured seeds).
    fn score_p0(&self) -> Option<i32> {
        None
    }

    /// The score exactly, P0 minus P1 (Go's half-point komi kept): what GTP's `final_score`
    /// says. The game's own score unless a game rounds it.
    fn exact_score_p0(&self) -> Option<f64> {
        self.score_p0().map(f64::from)
    }

    /// Pieces each player has on the board, `[P0, P1]` (the presence heuristic).
    fn piece_counts(&self) -> [u32; 2];

    /// Sum, over each player's turns so far, of the number of legal actions it had: `[P0, P1]`
    /// (the cumulative mobility heuristic divides by `plies_by_player`).
    fn mobility_sums(&self) -> [u32; 2];

    /// How many actions each player has played so far, `[P0, P1]`. By ply parity (P0 plays
    /// the even plies), which holds in games whose players alternate at every action, and P0's
    /// every ply in a one-player game; a game where a player makes several actions in a row
    /// (Arimaa's steps, Connect6's two stones, Santorini's placements) counts them itself.
    fn plies_by_player(&self) -> [u32; 2] {
        let plies = self.ply() as u32;
        match Self::ONE_PLAYER {
            true => [plies, 0],
            false => [plies.div_ceil(2), plies / 2],
        }
    }

    /// Writes the encoding (`ENCODING.len()` floats, `[planes, rows, cols]`) into `out`.
    fn encode(&self, out: &mut [f32]);

    /// The position's image under `SYMMETRIES[index]`.
    fn apply_symmetry(&self, index: usize) -> Self;

    /// The image of `action` (legal here) under `SYMMETRIES[index]`: an action of
    /// `self.apply_symmetry(index)`. The symmetry's table, unless the game's ids depend on the
    /// position (Amazons numbers its amazons in cell order, an order symmetries change).
    fn symmetric_action(&self, index: usize, action: Action) -> Action {
        Self::SYMMETRIES[index].action_image[action as usize]
    }

    /// Text of `action` when played by `player` (e.g. Awale `C` for P0, `c` for P1), readable
    /// without the position.
    fn action_to_text(player: Player, action: Action) -> String;

    /// Parses the text of a move by `player`; does not check legality.
    fn action_from_text(player: Player, text: &str) -> Result<Action, MoveError>;

    /// The text of `action` played here by the player to move: `action_to_text`, unless the
    /// game's usual notation needs the position (Amazons: `d1-d7/g7`, from, to and arrow).
    /// Every front end (play, engine, replay, game records) shows this one.
    fn move_to_text(&self, action: Action) -> String {
        Self::action_to_text(self.to_move(), action)
    }

    /// Parses a move of the player to move, in `move_to_text`'s notation or
    /// `action_from_text`'s; does not check legality.
    fn move_from_text(&self, text: &str) -> Result<Action, MoveError> {
        Self::action_from_text(self.to_move(), text)
    }

    /// The notation accepted by `move_from_text`, for error messages.
    fn notation_help() -> &'static str;

    /// The position as a drawing is made of (`board_view`): the board's layout, each cell's
    /// name and content. Default: none (the web page shows the text picture).
    fn board_view(&self) -> BoardView {
        BoardView::default()
    }

    /// The cells a person clicks, in order, to play `action` (legal here), by their names in
    /// `board_view`: one for a stone, from and to for a step, more for Amazons' arrow or a
    /// draughts capture's path. None for a move without cells (a pass: a button).
    fn move_cells(&self, _action: Action) -> Vec<String> {
        Vec::new()
    }
}

/// Helpers every game gets for free.
pub trait GameExt: Game {
    /// A side as people name it, with its index: `Black (p0)`; `p0` in a one-player game.
    fn side_text(player: Player) -> String {
        match Self::ONE_PLAYER {
            true => player.to_string(),
            false => format!("{} ({player})", Self::SIDE_NAMES[player.index()]),
        }
    }

    /// Parses and checks a move text for the player to move. A text refused whose other case
    /// is a legal move (Awale's `c` for P0's `C`) is refused naming that move.
    fn parse_legal_move(&self, text: &str) -> Result<Action, MoveError> {
        if self.is_terminal() {
            return Err(MoveError::GameOver);
        }
        let refused = match self.move_from_text(text) {
            Ok(action) => match self.check_legal(action, text) {
                Ok(action) => return Ok(action),
                Err(e) => e,
            },
            Err(e) => e,
        };
        let other_case: String = text
            .chars()
            .map(|c| match c.is_uppercase() {
                true => c.to_ascii_lowercase(),
                false => c.to_ascii_uppercase(),
            })
            .collect();
        match self.move_from_text(&other_case) {
            Ok(action) if other_case != text && self.is_legal(action) => {
                Err(MoveError::WrongCase {
                    text: text.to_string(),
                    meant: self.move_to_text(action),
                    legal: self.legal_moves_text(),
                })
            }
            _ => Err(refused),
        }
    }

    /// Plays a whitespace-separated list of moves in the game's notation, each checked for
    /// the player to move; on a bad move, returns its error with the moves before it played.
    fn play_moves(&mut self, moves: &str) -> Result<(), MoveError> {
        for text in moves.split_whitespace() {
            let action = self.parse_legal_move(text)?;
            self.play(action);
        }
        Ok(())
    }

    /// Checks an action id for the player to move (errors speak of ids, not move texts).
    fn check_legal_id(&self, id: usize) -> Result<Action, MoveError> {
        if self.is_terminal() {
            return Err(MoveError::GameOver);
        }
        if id >= Self::NUM_ACTIONS {
            return Err(MoveError::OutOfRange {
                id,
                count: Self::NUM_ACTIONS,
            });
        }
        if self.is_legal(id as Action) {
            return Ok(id as Action);
        }
        let mut actions = Vec::with_capacity(Self::NUM_ACTIONS);
        self.legal_actions(&mut actions);
        let legal_ids: Vec<String> = actions.iter().map(|a| a.to_string()).collect();
        Err(MoveError::IllegalId {
            id,
            legal_ids: legal_ids.join(" "),
        })
    }

    #[doc(hidden)]
    fn check_legal(&self, action: Action, text: &str) -> Result<Action, MoveError> {
        if self.is_legal(action) {
            Ok(action)
        } else {
            Err(MoveError::Illegal {
                text: text.to_string(),
                legal: self.legal_moves_text(),
            })
        }
    }

    /// The legal moves as text, space-separated.
    fn legal_moves_text(&self) -> String {
        let mut actions = Vec::with_capacity(Self::NUM_ACTIONS);
        self.legal_actions(&mut actions);
        actions
            .iter()
            .map(|&a| self.move_to_text(a))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The legal actions and the position each leads to (for searches that look at every child).
    fn children(&self) -> (Vec<Action>, Vec<Self>) {
        let mut actions = Vec::with_capacity(Self::NUM_ACTIONS);
        self.legal_actions(&mut actions);
        let children = actions
            .iter()
            .map(|&a| {
                let mut child = self.clone();
                child.play(a);
                child
            })
            .collect();
        (actions, children)
    }

    /// The number of legal actions (the mover's mobility).
    fn mobility(&self) -> usize {
        let mut actions = Vec::with_capacity(Self::NUM_ACTIONS);
        self.legal_actions(&mut actions);
        actions.len()
    }
}

impl<G: Game> GameExt for G {}
