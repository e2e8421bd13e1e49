//! The one grammar of every spec string's parameters — a game's `hex(board_size=11, swap=false)`,
//! an agent's `mcts:iters=500, c=0.4`, a search's — `key=value` items separated by commas,
//! spaces around items, keys and values ignored, each key at most once. A value in double
//! quotes holds commas, `=` and spaces as they are (`model="runs/a,b"`); it cannot hold a `"`.

/// What is wrong with a `key=value` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyValueError {
    /// An item without `=`.
    NotAPair(String),
    /// A key given twice.
    Repeated(String),
    /// A `"` that opens a value and is never closed, or text after the closing one.
    BadQuote(String),
}

/// The `key=value` items of `text` in order, trimmed, a quoted value without its quotes;
/// empty items (`a=1,,b=2`, a trailing comma) are skipped.
///
/// # Errors
/// An item without `=`, a key given twice, a quote not closed or followed by more text.
pub fn key_values(text: &str) -> Result<Vec<(&str, &str)>, KeyValueError> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    let mut rest = text;
    while !rest.trim().is_empty() {
        let (item, after) = next_item(rest)?;
        rest = after;
        if item.is_empty() {
            continue;
        }
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| KeyValueError::NotAPair(item.to_string()))?;
        let (key, value) = (key.trim(), unquoted(value.trim()));
        if pairs.iter().any(|(k, _)| *k == key) {
            return Err(KeyValueError::Repeated(key.to_string()));
        }
        pairs.push((key, value));
    }
    Ok(pairs)
}

/// The first item of `text` (trimmed) and what follows its comma: a value that starts with a
/// double quote runs to the next one, commas included.
fn next_item(text: &str) -> Result<(&str, &str), KeyValueError> {
    let comma = text.find(',').unwrap_or(text.len());
    let value_start = text[..comma].find('=').map(|eq| {
        let after = &text[eq + 1..];
        eq + 1 + (after.len() - after.trim_start().len())
    });
    let end = match value_start.filter(|&v| text[v..].starts_with('"')) {
        None => comma,
        Some(open) => {
            let close = text[open + 1..]
                .find('"')
                .map(|c| open + 1 + c)
                .ok_or_else(|| KeyValueError::BadQuote(text.trim().to_string()))?;
            let after = &text[close + 1..];
            let tail = after.find(',').unwrap_or(after.len());
            if !after[..tail].trim().is_empty() {
                return Err(KeyValueError::BadQuote(
                    text[..close + 1 + tail].trim().to_string(),
                ));
            }
            close + 1 + tail
        }
    };
    Ok((text[..end].trim(), text.get(end + 1..).unwrap_or("")))
}

/// `value` without the double quotes around it, if it has them.
fn unquoted(value: &str) -> &str {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value)
}

/// `value` as a spec writes it: in double quotes where it holds a comma or spaces at its ends,
/// so that it reads back as itself (a value with a `"` cannot be quoted: it is left as it is).
pub fn quoted_value(value: &str) -> std::borrow::Cow<'_, str> {
    let needs_quotes = (value.contains(',') || value.trim() != value) && !value.contains('"');
    if needs_quotes {
        format!("\"{value}\"").into()
    } else {
        value.into()
    }
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

    #[test]
    fn a_quoted_value_holds_commas_and_equals_signs() {
        assert_eq!(
            key_values(r#"model="runs/a,b=c", time=1s"#),
            Ok(vec![("model", "runs/a,b=c"), ("time", "1s")])
        );
        assert_eq!(
            key_values(r#"model = " spaced " ,time=1s,"#),
            Ok(vec![("model", " spaced "), ("time", "1s")])
        );
        for path in [
            "plain.descent",
            "a,b.descent",
            "x=y",
            " lead",
            "p(1)",
            "a\"b",
        ] {
            let spec = format!("model={},time=1s", quoted_value(path));
            assert_eq!(
                key_values(&spec),
                Ok(vec![("model", path), ("time", "1s")]),
                "{spec}"
            );
        }
        assert!(matches!(
            key_values(r#"model="open, time=1s"#),
            Err(KeyValueError::BadQuote(_))
        ));
        assert!(matches!(
            key_values(r#"model="a"b, time=1s"#),
            Err(KeyValueError::BadQuote(_))
        ));
        // A quote inside a value, not at its start, is a character like any other.
        assert_eq!(
            key_values(r#"model=a"b,time=1s"#),
            Ok(vec![("model", r#"a"b"#), ("time", "1s")])
        );
    }
}
