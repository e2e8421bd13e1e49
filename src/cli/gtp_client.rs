//! The controller's side of GTP: a program started from a command line, spoken to on its stdin
//! and heard on its stdout, every reply awaited at most a given time (`descent gtp-match`).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// The longest reply line read from an engine: a longer one ends the match with an error
/// rather than filling the memory.
const MAX_REPLY_LINE: usize = 1 << 20;

/// The most lines and bytes one reply may have: a reply that goes on past them ends the match
/// with an error (GTP's longest replies, a board or an SGF file, are a few kilobytes).
const MAX_REPLY_LINES: usize = 10_000;
const MAX_REPLY_BYTES: usize = 4 << 20;

/// Lines read ahead of the controller: an engine that writes without being asked blocks
/// rather than filling the memory.
const LINES_READ_AHEAD: usize = 64;

/// The process ids of the engines running (0: a free place), ended by a signal's handler.
static RUNNING_ENGINES: [AtomicI32; 4] = [const { AtomicI32::new(0) }; 4];

/// On Ctrl-C, SIGTERM or SIGHUP (unless ignored, under `nohup`), the engines started since are
/// sent SIGTERM, SIGKILL 0.2 s later (an engine that ignores SIGTERM is not left running), and
/// the process exits with 128 + the signal's number (130, 143, 129), saying so.
pub fn end_engines_on_signal() {
    // `end_engines` only reads atomics, signals, sleeps, writes and exits (async-signal-safe).
    super::interrupt::on_stopping_signals(end_engines);
}

extern "C" fn end_engines(signal: libc::c_int) {
    let message: &[u8] = b"\ngtp-match: stopped by a signal; its engines are ended\n";
    // SAFETY: kill(2), nanosleep(2), write(2) and _exit(2) are async-signal-safe; the buffer
    // is static.
    unsafe {
        for end in [libc::SIGTERM, libc::SIGKILL] {
            for engine in &RUNNING_ENGINES {
                let pid = engine.load(Ordering::SeqCst);
                if pid > 0 {
                    // Its whole process group: an engine started through a script ends with it.
                    libc::kill(-pid, end);
                }
            }
            if end == libc::SIGTERM {
                let grace = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 200_000_000,
                };
                libc::nanosleep(&grace, std::ptr::null_mut());
            }
        }
        libc::write(2, message.as_ptr().cast(), message.len());
        libc::_exit(128 + signal);
    }
}

fn note_running(pid: i32, running: bool) {
    let (from, to) = if running { (0, pid) } else { (pid, 0) };
    for engine in &RUNNING_ENGINES {
        if engine
            .compare_exchange(from, to, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// A GTP engine running as a child process.
pub struct GtpClient {
    /// How the engine is named in reports: its command line, then (`identify`) its own name
    /// and version.
    pub name: String,
    /// The command line it was started with.
    pub command_line: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    timeout: Duration,
    /// The id of the next command (GTP's optional numeric id, which the reply must echo).
    next_id: u64,
    /// The engine echoed a command's id: from then on a reply without one is out of step (an
    /// extra reply, not this command's).
    echoes_ids: bool,
    /// Why the engine can no longer be spoken to (it hung, exited, closed its input, answered
    /// out of step or not in GTP); `None` while it follows the protocol.
    broken: Option<String>,
}

/// Reads the engine's stdout line by line into `sender` until it closes.
fn forward_lines(stdout: impl std::io::Read, sender: SyncSender<std::io::Result<String>>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut line = Vec::new();
        let read =
            std::io::Read::take(&mut reader, MAX_REPLY_LINE as u64).read_until(b'\n', &mut line);
        let message = match read {
            Ok(0) => return,
            Ok(_) if line.len() >= MAX_REPLY_LINE => Err(std::io::Error::other(format!(
                "a reply line longer than {MAX_REPLY_LINE} bytes"
            ))),
            Ok(_) => Ok(String::from_utf8_lossy(&line).trim_end().to_string()),
            Err(error) => Err(error),
        };
        let failed = message.is_err();
        if sender.send(message).is_err() || failed {
            return;
        }
    }
}

impl GtpClient {
    /// Starts `command_line` (split as a shell would, without running one), each reply
    /// awaited at most `timeout` (the whole reply, however many lines).
    ///
    /// # Errors
    /// An empty or unbalanced command line, or a program that cannot be started.
    pub fn start(command_line: &str, timeout: Duration) -> anyhow::Result<GtpClient> {
        let words = shlex::split(command_line)
            .filter(|w| !w.is_empty())
            .with_context(|| format!("{command_line:?}: not a command line"))?;
        let mut child = Command::new(&words[0])
            .args(&words[1..])
            // A group of its own, ended as one by `end_engines` (a terminal's Ctrl-C reaches
            // gtp-match, which ends them).
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("cannot start {command_line:?}"))?;
        note_running(child.id() as i32, true);
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (sender, lines) = sync_channel(LINES_READ_AHEAD);
        std::thread::spawn(move || forward_lines(stdout, sender));
        Ok(GtpClient {
            name: command_line.to_string(),
            command_line: command_line.to_string(),
            child,
            stdin,
            lines,
            timeout,
            next_id: 1,
            echoes_ids: false,
            broken: None,
        })
    }

    /// Why the engine failed the protocol, if it did: no command can be sent to it since.
    pub fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    /// The reply's next line, by `deadline`.
    fn next_line(&self, command: &str, deadline: Instant) -> anyhow::Result<String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line.with_context(|| format!("{}: reading its reply", self.name))?),
            Err(RecvTimeoutError::Timeout) => bail!(
                "{}: no whole reply to {command:?} within {:?}",
                self.name,
                self.timeout
            ),
            Err(RecvTimeoutError::Disconnected) => {
                bail!("{}: closed its output on {command:?}", self.name)
            }
        }
    }

    /// Sends `command` (with an id, which the reply must echo); its reply: `Ok(payload)` for
    /// `=`, `Err(message)` for `?` (both strings: GTP's replies are free text). A payload of
    /// several lines comes joined by `\n`.
    ///
    /// # Errors
    /// The engine hung, exited, closed its input, or answered something that is not GTP or
    /// not this command's reply; it is broken from then on (see [`GtpClient::broken`]).
    pub fn send(&mut self, command: &str) -> anyhow::Result<Result<String, String>> {
        if let Some(why) = &self.broken {
            bail!("{}: not sent {command:?}: {why}", self.name);
        }
        let id = self.next_id;
        self.next_id += 1;
        let reply = self.exchange(id, command);
        if let Err(error) = &reply {
            self.broken = Some(format!("{error:#}"));
        }
        reply
    }

    /// One command and its reply (GTP's `=` or `?` text, as `send`).
    fn exchange(&mut self, id: u64, command: &str) -> anyhow::Result<Result<String, String>> {
        // Whatever it said since its last reply was said unasked: out of step.
        while let Ok(line) = self.lines.try_recv() {
            let line = line.with_context(|| format!("{}: reading its output", self.name))?;
            if !line.trim().is_empty() {
                bail!(
                    "{}: said {line:?} unasked, before {command:?} (an extra reply is out of step)",
                    self.name
                );
            }
        }
        // A closed pipe is an error here (EPIPE), not a signal: `gtp-match` ignores SIGPIPE.
        writeln!(self.stdin, "{id} {command}")
            .and_then(|()| self.stdin.flush())
            .with_context(|| format!("{}: sending {command:?}", self.name))?;
        let deadline = Instant::now() + self.timeout;
        let mut first = self.next_line(command, deadline)?;
        while first.is_empty() {
            first = self.next_line(command, deadline)?;
        }
        let status = first.chars().next();
        let rest = first.get(1..).unwrap_or("");
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        // GTP: the reply carries the command's id; a reply without one is taken as this
        // command's (unless the engine echoes ids), one with another id is out of step.
        if digits > 0 && rest[..digits].parse::<u64>().ok() != Some(id) {
            bail!(
                "{}: {first:?} is the reply to another command than {command:?} (id {id})",
                self.name
            );
        }
        if digits == 0 && self.echoes_ids {
            bail!(
                "{}: {first:?}, without the id {id} it echoes, is not the reply to {command:?} (an extra reply is out of step)",
                self.name
            );
        }
        self.echoes_ids |= digits > 0;
        let mut payload = vec![rest[digits..].trim().to_string()];
        let mut bytes = first.len();
        loop {
            let line = self.next_line(command, deadline)?;
            if line.is_empty() {
                break;
            }
            bytes += line.len() + 1;
            if payload.len() >= MAX_REPLY_LINES || bytes > MAX_REPLY_BYTES {
                bail!(
                    "{}: a reply to {command:?} longer than {MAX_REPLY_LINES} lines or {MAX_REPLY_BYTES} bytes",
                    self.name
                );
            }
            payload.push(line);
        }
        let payload = payload.join("\n");
        match status {
            Some('=') => Ok(Ok(payload)),
            Some('?') => Ok(Err(payload)),
            _ => bail!("{}: {first:?} is not a GTP reply to {command:?}", self.name),
        }
    }

    /// Names the engine as it names itself — GTP's `name` and `version`, "GNU Go 3.8" — or, if
    /// it answers neither, by its program's file name.
    ///
    /// # Errors
    /// The engine failed the protocol.
    pub fn identify(&mut self) -> anyhow::Result<()> {
        let reply = |client: &mut GtpClient, command| -> anyhow::Result<Option<String>> {
            let answer = client.send(command)?.ok();
            Ok(answer.filter(|text| !text.is_empty() && !text.contains('\n')))
        };
        let name = match reply(self, "name")? {
            Some(name) => match reply(self, "version")? {
                Some(version) => format!("{name} {version}"),
                None => name,
            },
            None => program_name(&self.command_line),
        };
        self.name = name;
        Ok(())
    }

    /// Sends `command`, which must succeed; its payload.
    ///
    /// # Errors
    /// A `?` reply, or the engine failed.
    pub fn expect(&mut self, command: &str) -> anyhow::Result<String> {
        match self.send(command)? {
            Ok(payload) => Ok(payload),
            Err(message) => bail!("{}: {command:?} refused: {message}", self.name),
        }
    }
}

/// The file name of a command line's program: "gnugo" for "/usr/games/gnugo --mode gtp".
fn program_name(command_line: &str) -> String {
    let program = shlex::split(command_line)
        .and_then(|words| words.into_iter().next())
        .unwrap_or_default();
    std::path::Path::new(&program)
        .file_name()
        .map_or(program.clone(), |name| name.to_string_lossy().into_owned())
}

impl Drop for GtpClient {
    /// Asks the engine to quit, then makes sure it has.
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        let ended = (0..50).any(|_| {
            let exited = matches!(self.child.try_wait(), Ok(Some(_)));
            if !exited {
                std::thread::sleep(Duration::from_millis(20));
            }
            exited
        });
        if !ended {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        note_running(self.child.id() as i32, false);
    }
}
