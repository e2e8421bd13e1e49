//! The one grammar of every spec string's parameters — a game's `hex(board_size=11, swap=false)`,
//! an agent's `mcts:iters=500, c=0.4`, a search's — `key=value` items separated by commas,
//! spaces around items, keys and values ignored, each key at most once.

/// What is wrong with a `key=value` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyValueError {
    /// An item without `=`.
    NotAPair(String),
    /// A key given twice.
    Repeated(String),
}

/// The `key=value` items of `text` in order, trimmed; empty items (`a=1,,b=2`, a trailing
/// comma) are skipped.
///
/// # Errors
/// An item without `=`, a key given twice.
pub fn key_values(text: &str) -> Result<Vec<(&str, &str)>, KeyValueError> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for item in text
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
    {
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| KeyValueError::NotAPair(item.to_string()))?;
        let (key, value) = (key.trim(), value.trim());
        if pairs.iter().any(|(k, _)| *k == key) {
            return Err(KeyValueError::Repeated(key.to_string()));
        }
        pairs.push((key, value));
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_keys_and_values_are_trimmed_and_keys_are_unique() {
        assert_eq!(
            key_values(" iters=500, c = 0.4 ,,"),
            Ok(vec![("iters", "500"), ("c", "0.4")])
        );
        assert_eq!(key_values(""), Ok(vec![]));
        assert_eq!(
            key_values("iters=5, iters=6"),
            Err(KeyValueError::Repeated("iters".into()))
        );
        assert_eq!(
            key_values("iters=5, fast"),
            Err(KeyValueError::NotAPair("fast".into()))
        );
    }
}
