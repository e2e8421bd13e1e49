//! A `descent engine` child process spoken to line by line, as a GTP controller would.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running `descent engine`.
pub struct Engine {
    pub child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    pub fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_descent"))
            .arg("engine")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends one command; returns the raw reply, up to and including its empty line.
    pub fn send(&mut self, command: &str) -> String {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
        let mut reply = String::new();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "engine closed on {command}"
            );
            reply.push_str(&line);
            if line == "\n" {
                return reply;
            }
        }
    }

    /// Sends one line without reading a reply (a streamed reply is read by `read_line`).
    pub fn write(&mut self, command: &str) {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line the engine writes, its newline included.
    pub fn read_line(&mut self) -> String {
        let mut line = String::new();
        assert!(
            self.stdout.read_line(&mut line).unwrap() > 0,
            "engine closed"
        );
        line
    }

    /// Sends a command that must succeed; returns its payload.
    pub fn ok(&mut self, command: &str) -> String {
        let reply = self.send(command);
        assert!(
            reply.starts_with('=') && reply.ends_with("\n\n"),
            "{command}: {reply:?}"
        );
        let body = &reply[..reply.len() - 2];
        body.split_once(' ')
            .map(|(_, p)| p.to_string())
            .unwrap_or_default()
    }

    pub fn refused(&mut self, command: &str) -> String {
        let reply = self.send(command);
        assert!(
            reply.starts_with('?') && reply.ends_with("\n\n"),
            "{command}: {reply:?}"
        );
        reply
    }

    /// The reply to `command`, its framing removed: `Ok(payload)` or `Err(message)`.
    pub fn reply(&mut self, command: &str) -> Result<String, String> {
        let reply = self.send(command);
        let body = reply.trim_end();
        let payload = body
            .get(1..)
            .unwrap_or("")
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim()
            .to_string();
        if body.starts_with('=') {
            Ok(payload)
        } else {
            Err(payload)
        }
    }
}

impl Drop for Engine {
    /// Stops an engine a test left running (a failed assertion included).
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
