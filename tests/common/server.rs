//! A `descent serve` process for tests, and plain HTTP/1.1 requests to it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// `descent serve --runs ROOT --port 0`, stopped when dropped.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub url: String,
    pub address: String,
}

impl Server {
    pub fn start(root: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_descent"))
            .args(["serve", "--runs", root.to_str().unwrap(), "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // "descent serve: http://127.0.0.1:PORT/ (runs under …)"
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .trim_end_matches('/')
            .to_string();
        let address = url.trim_start_matches("http://").to_string();
        Server {
            child,
            url,
            address,
        }
    }

    /// Sends one request; returns the status and the body.
    pub fn request(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        self.request_as(&self.address, method, path, body)
    }

    /// `request` with the `Host` header `host`.
    pub fn request_as(
        &self,
        host: &str,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> (u16, String) {
        http_request(&self.address, host, method, path, body)
    }

    /// A request whose reply is JSON.
    pub fn json(&self, method: &str, path: &str, body: Option<&str>) -> (u16, serde_json::Value) {
        let (status, text) = self.request(method, path, body);
        let value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {text:?}"));
        (status, value)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends one HTTP/1.1 request to `address` (`Connection: close`); returns the status and the
/// body.
pub fn http_request(
    address: &str,
    host: &str,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    // A server that never answers fails the test instead of hanging it.
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(120)))
        .unwrap();
    let body = body.unwrap_or("");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let reply = read_reply(&mut stream);
    let status = reply
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP reply: {reply:?}"));
    let body = reply
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// A reply's bytes as text: up to its `Content-Length` when it has one (chromedriver keeps the
/// connection open after its reply, `Connection: close` or not), else to the end of the stream.
fn read_reply(stream: &mut TcpStream) -> String {
    let mut reply = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        let read = stream.read(&mut buffer).unwrap();
        reply.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&reply);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head.lines().find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())?
            });
            if read == 0 || length.is_some_and(|length| body.len() >= length) {
                return text.into_owned();
            }
        } else if read == 0 {
            return text.into_owned();
        }
    }
}

/// A field of /proc/PID/status in kB (VmRSS, VmHWM).
pub fn memory_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}
