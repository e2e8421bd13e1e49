//! Lines typed by a person or sent by a program on stdin (`descent play`, `descent engine`): a
//! line that is not UTF-8 is reported to the caller, which answers it and reads on, instead of
//! ending the session.

use std::io::BufRead;

/// One line of input, without its line ending.
pub(super) enum InputLine {
    Text(String),
    /// The line's bytes are not UTF-8.
    NotUtf8,
}

impl InputLine {
    /// The message for a line that is not UTF-8.
    pub(super) const NOT_UTF8: &'static str = "the line is not valid UTF-8 text";
}

/// Reads lines from a reader, reusing one buffer.
pub(super) struct InputLines<R> {
    reader: R,
    buffer: Vec<u8>,
}

impl<R: BufRead> InputLines<R> {
    pub(super) fn new(reader: R) -> Self {
        InputLines {
            reader,
            buffer: Vec::new(),
        }
    }

    /// The next line, or `None` at the end of the input.
    pub(super) fn next_line(&mut self) -> std::io::Result<Option<InputLine>> {
        self.buffer.clear();
        if self.reader.read_until(b'\n', &mut self.buffer)? == 0 {
            return Ok(None);
        }
        let mut bytes = self.buffer.as_slice();
        bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        Ok(Some(match std::str::from_utf8(bytes) {
            Ok(text) => InputLine::Text(text.to_owned()),
            Err(_) => InputLine::NotUtf8,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_line_is_reported_and_the_next_one_read() {
        let input: &[u8] = b"name\r\n\xff\xfe\nplay p0 a1\nlast";
        let mut lines = InputLines::new(input);
        let mut seen = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            seen.push(match line {
                InputLine::Text(text) => text,
                InputLine::NotUtf8 => "<bad>".into(),
            });
        }
        assert_eq!(seen, ["name", "<bad>", "play p0 a1", "last"]);
    }
}
