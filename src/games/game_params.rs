//! A game's parameters as a spec writes them (`hex(board_size=13,swap=false)`): their keys and
//! meanings, reading one `key=value`, writing each value back, and the initial position they
//! describe. Each game implements [`GameParams`] in its own file, next to its rules; the registry
//! (`registry.rs`, one line per game) builds the enum, the dispatch, the parser, the display and
//! the listing from it.

use std::fmt;
use std::str::FromStr;

use super::registry::GameVisitor;

/// One parameter of a game: the key a spec gives and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamKey {
    pub key: &'static str,
    pub meaning: &'static str,
}

/// One parameter of the game whose parameters are `P`, declared once: its key, its meaning,
/// how a spec's value is read into `P` and how `P` writes it back. Adding a key to a game is
/// adding one of these to its [`GameParams::PARAMS`].
pub struct Param<P> {
    pub key: &'static str,
    pub meaning: &'static str,
    /// Sets the parameter from the text of a spec's value.
    pub set: fn(&mut P, &str) -> Result<(), ParamError>,
    /// The parameter's value as a spec writes it.
    pub get: fn(&P) -> String,
}

/// Why one game's parameters were refused; the registry adds the game, the key and the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamError {
    /// The game has no such key.
    UnknownKey,
    /// The value is not one the key takes.
    BadValue { expected: String },
    /// Values that are each valid but do not go together (Clobber's rows and columns).
    BadCombination {
        keys: &'static str,
        values: String,
        expected: String,
    },
}

/// The parameters of one registered game. `Default` is the game's default rules: the listing
/// (`descent games`, docs/games.md) shows `values()` of the default, so the defaults are written
/// once, in the code.
pub trait GameParams: Clone + fmt::Debug + PartialEq + Default + Send + Sync + 'static {
    /// The registry name (the game's `Game::NAME`).
    const NAME: &'static str;
    /// Other names the parser accepts (`oware` for `awale`).
    const ALIASES: &'static [&'static str] = &[];
    /// One line for listings.
    const DESCRIPTION: &'static str;
    /// Every parameter, in the order a spec writes them.
    const PARAMS: &'static [Param<Self>] = &[];
    /// The parameters that change how a game is played or scored but neither the board nor
    /// what a network reads of a position (Go's komi, superko and move limit): a network trained
    /// under one value plays under another (see `GameSpec::plays_networks_of`).
    const PLAY_ONLY: &'static [&'static str] = &[];

    /// Every key with its meaning, in the order a spec writes them.
    fn keys() -> Vec<ParamKey> {
        Self::PARAMS
            .iter()
            .map(|p| ParamKey {
                key: p.key,
                meaning: p.meaning,
            })
            .collect()
    }

    /// Sets `key` from the text `value`. Keys that must agree with each other are checked by
    /// [`GameParams::check`] once every key is set.
    ///
    /// # Errors
    /// An unknown key, or a value the key does not take.
    fn set(&mut self, key: &str, value: &str) -> Result<(), ParamError> {
        let param = Self::PARAMS
            .iter()
            .find(|p| p.key == key)
            .ok_or(ParamError::UnknownKey)?;
        (param.set)(self, value)
    }

    /// Every key's value as a spec writes it, in the order of `PARAMS`.
    fn values(&self) -> Vec<String> {
        Self::PARAMS.iter().map(|p| (p.get)(self)).collect()
    }

    /// What no single key can say: a combination of values the game does not have.
    ///
    /// # Errors
    /// The keys and values that do not go together.
    fn check(&self) -> Result<(), ParamError> {
        Ok(())
    }

    /// Runs `visitor` on the initial position these parameters describe (board sizes choose the
    /// const-generic type here).
    fn visit<V: GameVisitor>(&self, visitor: V) -> V::Output;
}

/// `true` or `false`.
///
/// # Errors
/// Any other text.
pub fn parse_bool(value: &str) -> Result<bool, ParamError> {
    parse_word(value, &[("true", true), ("false", false)])
}

/// An integer in `min..=max`; `note` follows the range in the message (e.g. `" (0: never)"`).
///
/// # Errors
/// Text that is not such an integer.
pub fn parse_integer<T: FromStr + PartialOrd + Copy + fmt::Display>(
    value: &str,
    (min, max): (T, T),
    note: &str,
) -> Result<T, ParamError> {
    value
        .parse::<T>()
        .ok()
        .filter(|n| *n >= min && *n <= max)
        .ok_or_else(|| ParamError::BadValue {
            expected: format!("an integer in {min}..={max}{note}"),
        })
}

/// A count of plies: an integer in 1..=65535.
///
/// # Errors
/// Text that is not such an integer.
pub fn parse_plies(value: &str) -> Result<u16, ParamError> {
    parse_integer(value, (1, u16::MAX), "")
}

/// `value` as one of `words` (each word with what it stands for; the same table writes the value
/// back with [`word_of`], so each word is written once).
///
/// # Errors
/// A word not in the table; the message lists them.
pub fn parse_word<T: Copy>(value: &str, words: &[(&str, T)]) -> Result<T, ParamError> {
    words
        .iter()
        .find(|(word, _)| *word == value)
        .map(|(_, choice)| *choice)
        .ok_or_else(|| ParamError::BadValue {
            expected: one_of(words.iter().map(|(word, _)| *word)),
        })
}

/// The word `words` gives `choice`.
///
/// # Panics
/// If the table has no word for `choice`: each game's tables cover their enums (its tests check).
pub fn word_of<T: PartialEq>(choice: &T, words: &[(&'static str, T)]) -> &'static str {
    words
        .iter()
        .find(|(_, c)| c == choice)
        .map(|(word, _)| *word)
        .expect("every choice has its word")
}

/// `a`, `a or b`, `a, b or c`.
pub fn one_of<'a>(words: impl Iterator<Item = &'a str>) -> String {
    let words: Vec<&str> = words.collect();
    match words.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_read_and_written_by_one_table() {
        let words = [("draw", 0u8), ("illegal", 1), ("second_board", 2)];
        assert_eq!(parse_word("illegal", &words), Ok(1));
        assert_eq!(word_of(&2, &words), "second_board");
        assert_eq!(
            parse_word("x", &words),
            Err(ParamError::BadValue {
                expected: "draw, illegal or second_board".to_string()
            })
        );
        assert_eq!(one_of(["8", "10"].into_iter()), "8 or 10");
        assert_eq!(one_of(["8"].into_iter()), "8");
    }

    #[test]
    fn integers_outside_their_range_name_it() {
        assert_eq!(parse_integer::<u8>("255", (0, u8::MAX), ""), Ok(255));
        assert_eq!(
            parse_integer::<u8>("256", (0, u8::MAX), " (0: never)"),
            Err(ParamError::BadValue {
                expected: "an integer in 0..=255 (0: never)".to_string()
            })
        );
        assert!(parse_plies("0").is_err() && parse_plies("-1").is_err());
        assert_eq!(parse_plies("65535"), Ok(65535));
    }
}
