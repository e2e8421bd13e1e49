//! `descent serve` over HTTP: runs and their metrics from an offset (live curves), the board's
//! positions and agent moves, clear errors for bad requests (never a crash), and run
//! directories left exactly as they were.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

use common::server::Server;
use common::small_run;

/// Every file under `dir` with its length and modification time.
fn snapshot(dir: &Path) -> BTreeMap<String, (u64, SystemTime)> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        for entry in fs::read_dir(&path).unwrap() {
            let entry = entry.unwrap();
            let meta = fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            }
            files.insert(
                entry.path().display().to_string(),
                (meta.len(), meta.modified().unwrap()),
            );
        }
    }
    files
}

#[test]
fn the_api_shows_runs_and_plays_and_refuses_bad_requests() {
    let root = tempfile::tempdir().unwrap();
    small_run(root.path(), "tiny", "", 3);
    let before = snapshot(root.path());
    let mut server = Server::start(root.path());

    let (status, page) = server.request("GET", "/", None);
    assert_eq!(status, 200);
    assert!(page.contains("app.js"));
    let (status, runs) = server.json("GET", "/api/runs", None);
    assert_eq!(status, 200);
    assert_eq!(runs[0]["name"], "tiny");
    assert_eq!(runs[0]["game"], "tic_tac_toe");
    assert_eq!(runs[0]["games"], 3);
    let (_, metrics) = server.json("GET", "/api/runs/tiny/metrics?from=0", None);
    let lines = metrics["lines"].as_array().unwrap();
    assert_eq!(lines.iter().filter(|l| l["kind"] == "game").count(), 3);
    let next = metrics["next"].as_u64().unwrap();
    let (_, again) = server.json("GET", &format!("/api/runs/tiny/metrics?from={next}"), None);
    assert!(again["lines"].as_array().unwrap().is_empty());
    let (_, games) = server.json("GET", "/api/runs/tiny/games", None);
    assert_eq!(games["games"].as_array().unwrap().len(), 3);

    let (status, position) = server.json(
        "POST",
        "/api/position",
        Some(r#"{"game": "tic_tac_toe", "moves": ["b2"]}"#),
    );
    assert_eq!(status, 200);
    assert_eq!(position["to_move"], "p1");
    assert_eq!(position["legal"].as_array().unwrap().len(), 8);
    let (status, reply) = server.json(
        "POST",
        "/api/agent-move",
        Some(r#"{"game": "connect_four", "moves": ["d"], "agent": "mcts:iters=200"}"#),
    );
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["position"]["ply"], 2);

    let bad: [(&str, &str, Option<&str>, u16, &str); 9] = [
        ("GET", "/api/runs/missing", None, 404, "missing"),
        (
            "GET",
            "/api/runs/..%2F..%2Fetc/metrics",
            None,
            404,
            "no run",
        ),
        (
            "GET",
            "/api/runs/tiny/metrics?from=minus",
            None,
            400,
            "from",
        ),
        ("GET", "/nowhere", None, 404, "no such page"),
        ("POST", "/api/position", Some("{not json"), 400, ""),
        (
            "POST",
            "/api/position",
            Some(r#"{"game": "chess"}"#),
            400,
            "chess",
        ),
        (
            "POST",
            "/api/position",
            Some(r#"{"game": "tic_tac_toe", "moves": ["b2", "b2"]}"#),
            400,
            "move 2",
        ),
        (
            "POST",
            "/api/agent-move",
            Some(r#"{"game": "tic_tac_toe", "moves": [], "agent": "alien"}"#),
            400,
            "alien",
        ),
        (
            "POST",
            "/api/agent-move",
            Some(r#"{"game": "tic_tac_toe", "agent": "ubfms:model=/no/such/net"}"#),
            400,
            "/no/such/net",
        ),
    ];
    for (method, path, body, expected, mention) in bad {
        let (status, reply) = server.json(method, path, body);
        assert_eq!(status, expected, "{method} {path}: {reply}");
        let message = reply["error"].as_str().unwrap_or_else(|| panic!("{reply}"));
        assert!(message.contains(mention), "{method} {path}: {message}");
    }
    assert!(server.is_running(), "bad requests do not stop the server");
    drop(server);
    assert_eq!(snapshot(root.path()), before, "the server wrote nothing");
}

#[test]
fn metrics_polled_from_an_offset_follow_a_growing_log() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("live");
    fs::create_dir(&run).unwrap();
    fs::write(run.join("config.yaml"), "game: awale\n").unwrap();
    let line = |game: u32| format!("{{\"kind\":\"game\",\"game\":{game},\"loss\":0.5}}\n");
    fs::write(run.join("metrics.jsonl"), line(1)).unwrap();
    let server = Server::start(root.path());
    let (_, first) = server.json("GET", "/api/runs/live/metrics", None);
    assert_eq!(first["lines"].as_array().unwrap().len(), 1);
    let mut log = fs::OpenOptions::new()
        .append(true)
        .open(run.join("metrics.jsonl"))
        .unwrap();
    log.write_all(line(2).as_bytes()).unwrap();
    log.write_all(b"{\"kind\":\"game\",\"ga").unwrap();
    let next = first["next"].as_u64().unwrap();
    let (_, second) = server.json("GET", &format!("/api/runs/live/metrics?from={next}"), None);
    let lines = second["lines"].as_array().unwrap();
    assert_eq!(
        lines.len(),
        1,
        "the new line, not the partial one: {second}"
    );
    assert_eq!(lines[0]["game"], 2);
}
