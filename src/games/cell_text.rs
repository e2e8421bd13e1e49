//! The text of a board cell as people write it: a column letter (`a` = column 0) followed by a
//! row number (`a1`, `j10`). Each game says how its row numbers map to its rows.

/// Splits `text` into a leading cell — column index from its letter, row number from its digits
/// (1-99) — and the rest. `None` when `text` does not start with a letter and a number.
pub fn split_cell(text: &str) -> Option<(usize, usize, &str)> {
    let bytes = text.as_bytes();
    let letter = *bytes.first()?;
    if !letter.is_ascii_alphabetic() {
        return None;
    }
    let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 2 {
        return None;
    }
    let number: usize = text[1..1 + digits].parse().ok()?;
    let col = (letter.to_ascii_lowercase() - b'a') as usize;
    Some((col, number, &text[1 + digits..]))
}

/// The text of the cell in column `col` with row number `number`.
pub fn cell_text(col: usize, number: usize) -> String {
    format!("{}{number}", char::from(b'a' + col as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_split_from_the_rest() {
        assert_eq!(split_cell("a1"), Some((0, 1, "")));
        assert_eq!(split_cell("J10c10"), Some((9, 10, "c10")));
        assert_eq!(split_cell("b3c4*"), Some((1, 3, "c4*")));
        assert_eq!(split_cell("a"), None);
        assert_eq!(split_cell("1a"), None);
        assert_eq!(split_cell("a123"), None);
        assert_eq!(split_cell("é1"), None);
        assert_eq!(cell_text(9, 10), "j10");
    }
}
