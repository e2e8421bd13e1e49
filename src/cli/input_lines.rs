//! Lines typed by a person or sent by a program on stdin (`descent play`, `descent engine`): a
//! line that is not UTF-8, or longer than [`MAX_LINE`] bytes, is reported to the caller, which
//! answers it and reads on, instead of ending the session — and an endless line is never held in
//! memory.

use std::io::BufRead;

/// The longest line read: no command of either protocol comes near it.
pub(super) const MAX_LINE: usize = 64 * 1024;

/// One line of input, without its line ending.
pub(super) enum InputLine {
    Text(String),
    /// A line that cannot be a command: why (not UTF-8, too long).
    Refused(&'static str),
}

impl InputLine {
    /// The message for a line that is not UTF-8.
    pub(super) const NOT_UTF8: &'static str = "the line is not valid UTF-8 text";
    /// The message for a line longer than [`MAX_LINE`].
    pub(super) const TOO_LONG: &'static str = "the line is longer than 65536 bytes";
}

/// Reads lines from a reader, reusing one buffer.
pub(super) struct InputLines<R> {
    reader: R,
    buffer: Vec<u8>,
    /// The last line was refused as too long before its end: the rest is skipped first.
    rest_to_skip: bool,
}

impl<R: BufRead> InputLines<R> {
    pub(super) fn new(reader: R) -> Self {
        InputLines {
            reader,
            buffer: Vec::new(),
            rest_to_skip: false,
        }
    }

    /// Reads and drops the rest of a line too long to keep (through its newline).
    fn skip_rest_of_line(&mut self) -> std::io::Result<()> {
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Ok(());
            }
            match available.iter().position(|&b| b == b'\n') {
                Some(at) => {
                    self.reader.consume(at + 1);
                    return Ok(());
                }
                None => {
                    let all = available.len();
                    self.reader.consume(all);
                }
            }
        }
    }

    /// The next line, or `None` at the end of the input.
    /// A line too long is refused as soon as it passes [`MAX_LINE`] — answered at once, not
    /// when (if ever) it ends — and the rest of it skipped before the next line is read.
    pub(super) fn next_line(&mut self) -> std::io::Result<Option<InputLine>> {
        if std::mem::take(&mut self.rest_to_skip) {
            self.skip_rest_of_line()?;
        }
        self.buffer.clear();
        let limit = MAX_LINE as u64 + 1;
        if std::io::Read::take(&mut self.reader, limit).read_until(b'\n', &mut self.buffer)? == 0 {
            return Ok(None);
        }
        if self.buffer.len() > MAX_LINE && self.buffer.last() != Some(&b'\n') {
            self.rest_to_skip = true;
            return Ok(Some(InputLine::Refused(InputLine::TOO_LONG)));
        }
        let mut bytes = self.buffer.as_slice();
        bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        Ok(Some(match std::str::from_utf8(bytes) {
            Ok(text) => InputLine::Text(text.to_owned()),
            Err(_) => InputLine::Refused(InputLine::NOT_UTF8),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8]) -> Vec<String> {
        let mut lines = InputLines::new(input);
        let mut seen = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            seen.push(match line {
                InputLine::Text(text) => text,
                InputLine::Refused(why) => format!("<{why}>"),
            });
        }
        seen
    }

    #[test]
    fn a_bad_line_is_reported_and_the_next_one_read() {
        let seen = read_all(b"name\r\n\xff\xfe\nplay p0 a1\nlast");
        let bad = format!("<{}>", InputLine::NOT_UTF8);
        assert_eq!(seen, ["name", bad.as_str(), "play p0 a1", "last"]);
    }

    /// A line past the limit is refused whole (the next line is read as it is, not the long
    /// line's tail); a line of exactly the limit is kept.
    #[test]
    fn a_line_too_long_is_refused_and_skipped_to_its_end() {
        let mut input = b"name\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE));
        input.extend(b"\nversion\n");
        input.extend(std::iter::repeat_n(b'y', MAX_LINE));
        input.extend(b"\nquit");
        let seen = read_all(&input);
        let long = format!("<{}>", InputLine::TOO_LONG);
        assert_eq!(
            seen.len(),
            5,
            "{:?}",
            seen.iter().map(|s| s.len()).collect::<Vec<_>>()
        );
        assert_eq!(
            [&seen[0], &seen[1], &seen[2]],
            ["name", long.as_str(), "version"]
        );
        assert_eq!(seen[3].len(), MAX_LINE);
        assert_eq!(seen[4], "quit");
        assert_eq!(
            InputLine::TOO_LONG,
            format!("the line is longer than {MAX_LINE} bytes")
        );
    }

    /// A reader of `x` bytes (64 MiB of them, as good as endless here) that counts what it
    /// gave.
    struct CountedXs(
        std::rc::Rc<std::cell::Cell<usize>>,
        std::io::Take<std::io::Repeat>,
    );

    impl std::io::Read for CountedXs {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let read = std::io::Read::read(&mut self.1, buf)?;
            self.0.set(self.0.get() + read);
            Ok(read)
        }
    }

    /// A line that does not end (`/dev/zero` on stdin) is refused once its first MAX_LINE bytes
    /// are read, not after the end it never reaches.
    #[test]
    fn an_endless_line_is_refused_after_the_limit_not_at_its_end() {
        let given = std::rc::Rc::new(std::cell::Cell::new(0));
        let endless = CountedXs(
            given.clone(),
            std::io::Read::take(std::io::repeat(b'x'), 64 << 20),
        );
        let mut lines = InputLines::new(std::io::BufReader::new(endless));
        let first = lines.next_line().unwrap();
        assert!(matches!(
            first,
            Some(InputLine::Refused(InputLine::TOO_LONG))
        ));
        assert!(
            given.get() <= MAX_LINE + 16 * 1024,
            "{} bytes read before the refusal",
            given.get()
        );
    }
}
