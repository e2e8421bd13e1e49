//! The distributed mode against a real `redis-server` (started by each test on a free loopback
//! port, in a temporary directory, with an append-only file): a learner process
//! (`descent train --broker`) and worker processes (`descent worker`) finish a tic-tac-toe run;
//! a worker killed with SIGKILL, the learner killed and resumed, Redis killed and restarted,
//! garbage and foreign records pushed by hand — nothing is learned twice, the budget is met.
//!
//! Without `redis-server` on the PATH each test says so and returns, unless
//! `DESCENT_REQUIRE_REDIS=1` (as `.ci/run` sets), which makes its absence a failure.

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A `redis-server` of the test's own.
struct RedisServer {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl RedisServer {
    /// Starts one, or `None` (with a message) when none is installed.
    fn start(dir: &Path) -> Option<RedisServer> {
        if Command::new("redis-server")
            .arg("--version")
            .output()
            .is_err()
        {
            crate::common::skip::skip(
                "DESCENT_REQUIRE_REDIS",
                "redis-server is not installed (apt-get install redis-server)",
            );
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut server = RedisServer {
            child: spawn_redis(dir, port),
            port,
            dir: dir.to_path_buf(),
        };
        server.wait_ready();
        Some(server)
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    fn wait_ready(&mut self) {
        let start = Instant::now();
        while redis::Client::open(self.url())
            .and_then(|c| c.get_connection())
            .is_err()
        {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills the server (SIGKILL) and starts it again on its port and append-only file.
    fn crash_and_restart(&mut self, down_for: Duration) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        std::thread::sleep(down_for);
        self.child = spawn_redis(&self.dir, self.port);
        self.wait_ready();
    }

    fn connection(&self) -> redis::Connection {
        redis::Client::open(self.url())
            .unwrap()
            .get_connection()
            .unwrap()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn_redis(dir: &Path, port: u16) -> Child {
    Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
        ])
        .args(["--appendonly", "yes", "--appendfsync", "always"])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

fn descent(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_descent"));
    command
        .args(args)
        .env("DESCENT_BROKER_PATIENCE", "60")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Writes a tic-tac-toe run's configuration with `run` (YAML flow body) into `dir`.
fn config(dir: &Path, run: &str) -> PathBuf {
    let path = dir.join("ttt.yaml");
    let text = format!(
        "game: tic_tac_toe\nseed: 3\nsearch: {{iters: 30}}\nrun: {{{run}}}\ncheckpoint: {{every_games: 5}}\nevaluation: {{at_end: false}}\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn learner(dir: &Path, url: &str, run: &str) -> Child {
    let config = config(dir, run);
    let run_dir = dir.join("run");
    descent(&[
        "train",
        config.to_str().unwrap(),
        "--run-dir",
        run_dir.to_str().unwrap(),
    ])
    .args(["--broker", url, "--quiet"])
    .spawn()
    .unwrap()
}

/// `train --resume` of the run under `dir` as a learner, with `extra` arguments (new limits…).
fn resumed_learner(dir: &Path, url: &str, extra: &[&str]) -> Child {
    let run_dir = dir.join("run");
    descent(&[
        "train",
        "--resume",
        run_dir.to_str().unwrap(),
        "--broker",
        url,
        "--quiet",
    ])
    .args(extra)
    .spawn()
    .unwrap()
}

/// A learner with `limits` and a worker `w1`; the learner killed with SIGKILL once a checkpoint
/// holds 10 games, while the worker goes on sending games for 300 ms that nobody reads.
/// Returns the worker.
fn learner_killed_while_a_worker_plays(dir: &Path, url: &str, limits: &str) -> Child {
    let mut learner = learner(dir, url, limits);
    let worker = worker(url, "w1");
    wait_for_checkpoint(dir, 10);
    learner.kill().unwrap(); // SIGKILL, between checkpoints or inside one
    learner.wait().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    worker
}

fn worker(url: &str, id: &str) -> Child {
    descent(&["worker", url, "--id", id]).spawn().unwrap()
}

/// Waits for `child` to exit successfully, within `limit`.
fn finish(child: Child, what: &str, limit: Duration) -> String {
    let start = Instant::now();
    let mut child = child;
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what} still running after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what} failed: {text}");
    text
}

fn metrics(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("run/metrics.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn of_kind<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["kind"] == kind).collect()
}

fn state(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("run/latest/state.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// What every finished run must hold: each game learned or dropped once (by its number), the
/// budget met, versions and lags consistent, the checkpoint's counts equal to the log's.
fn check_finished_run(dir: &Path, budget: u64) -> (u64, u64, u64) {
    let lines = metrics(dir);
    let games = of_kind(&lines, "game");
    let dropped = of_kind(&lines, "dropped");
    let rejected = of_kind(&lines, "rejected").len() as u64;
    let mut seen = BTreeSet::new();
    for (n, g) in games.iter().enumerate() {
        assert_eq!(g["game"].as_u64().unwrap(), n as u64 + 1, "{g}");
        let version = g["net_version"].as_u64().unwrap();
        assert!(version <= n as u64, "{g}");
        assert_eq!(g["lag"].as_u64().unwrap(), n as u64 - version, "{g}");
        assert!(
            seen.insert(g["index"].as_u64().unwrap()),
            "game {} learned twice",
            g["index"]
        );
    }
    for d in &dropped {
        assert!(
            seen.insert(d["index"].as_u64().unwrap()),
            "game {} seen twice",
            d["index"]
        );
    }
    let (learned, dropped) = (games.len() as u64, dropped.len() as u64);
    assert_eq!(
        learned + dropped,
        budget,
        "the run's budget, learned or dropped"
    );
    let state = state(dir);
    for r in of_kind(&lines, "rejected") {
        eprintln!("refused: {r}");
    }
    assert_eq!(state["games"], learned);
    assert_eq!(state["games_dropped"], dropped);
    assert_eq!(state["records_rejected"], rejected);
    (learned, dropped, rejected)
}

const LIMIT: Duration = Duration::from_secs(120);

/// The games a worker's summary line says it sent.
fn games_sent(out: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.starts_with("worker "))
        .expect("a summary line");
    let words: Vec<&str> = line.split_whitespace().collect();
    words[2].parse().unwrap_or_else(|_| panic!("{line}"))
}

/// Games in the stream never read by the learner (read ones are deleted once acknowledged).
fn games_unread(redis: &RedisServer) -> u64 {
    let mut c = redis.connection();
    let pending: Vec<redis::Value> = redis::cmd("XPENDING")
        .arg("descent:run:games")
        .arg("learners")
        .query(&mut c)
        .unwrap();
    assert!(
        matches!(pending[0], redis::Value::Int(0)),
        "everything read is acknowledged: {pending:?}"
    );
    redis::cmd("XLEN")
        .arg("descent:run:games")
        .query(&mut c)
        .unwrap()
}

/// A learner stopped by SIGTERM releases its claim as it exits: a learner of the same run name
/// from another directory starts at once (before, it was refused for the claim's 30 s).
#[test]
fn a_learner_stopped_gracefully_releases_its_claim_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let first = learner(tmp.path(), &url, "max_games: 1000000");
    wait_for_run(&redis);
    // SAFETY: signalling our own child.
    unsafe { libc::kill(first.id() as i32, libc::SIGTERM) };
    let out = first.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(143),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let second = learner(&other, &url, "max_games: 3");
    let worker = worker(&url, "w1");
    finish(second, "the second learner", LIMIT);
    finish(worker, "the worker", LIMIT);
}

/// A worker starts each game with the newest network: with one player thread its games' lag is
/// bounded by the backlog it waits for (`run.max_lag / 2` = 8) and a step or two of timing, so
/// no game is dropped. Before, players took the network the watcher saw up to 100 ms earlier:
/// short games were played dozens on one version, lags reached 17 and games were dropped.
#[test]
fn a_single_players_games_lag_no_more_than_its_backlog() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let learner = learner(tmp.path(), &url, "max_games: 200");
    let worker = worker(&url, "w1");
    finish(learner, "the learner", LIMIT);
    finish(worker, "the worker", LIMIT);
    let (learned, dropped, _) = check_finished_run(tmp.path(), 200);
    assert_eq!((learned, dropped), (200, 0));
    let lines = metrics(tmp.path());
    let lag = |g: &&Value| g["lag"].as_u64().unwrap();
    let most = of_kind(&lines, "game").iter().map(lag).max().unwrap();
    assert!(
        most <= 10,
        "a game learned {most} versions after it started"
    );
}

#[test]
fn two_workers_feed_a_learner_to_the_end_of_its_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let learner = learner(tmp.path(), &url, "max_games: 40");
    let workers = [worker(&url, "w1"), worker(&url, "w2")];
    let summary = finish(learner, "the learner", LIMIT);
    let mut sent = 0;
    for (w, child) in workers.into_iter().enumerate() {
        let out = finish(child, "a worker", LIMIT);
        assert!(out.contains(&format!("worker w{}", w + 1)), "{out}");
        sent += games_sent(&out);
    }
    assert!(summary.contains("stopped by the game limit"), "{summary}");
    // The resume hint is a command that resumes this run: with its broker.
    assert!(
        summary.contains(&format!(
            "descent train --resume {}",
            tmp.path().join("run").display()
        )) && summary.contains(&format!("--broker {url}")),
        "{summary}"
    );
    let (learned, dropped, rejected) = check_finished_run(tmp.path(), 40);
    assert!(learned > 0);
    assert_eq!(rejected, 0);
    assert_eq!(
        sent,
        learned + dropped + games_unread(&redis),
        "every game sent is accounted for"
    );
    let mut c = redis.connection();
    let state: String = redis::cmd("GET")
        .arg("descent:run:state")
        .query(&mut c)
        .unwrap();
    assert_eq!(state, "finished");
    // descent status says so.
    let status = descent(&["status", &url]).output().unwrap();
    let said = String::from_utf8_lossy(&status.stdout);
    assert!(status.status.success(), "{said}");
    assert!(said.contains(": finished"), "{said}");
    // A worker that joins the finished run says so and stops, having played nothing.
    let late = worker(&url, "late").wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&late.stderr);
    assert_eq!(late.status.code(), Some(1), "{err}");
    assert!(
        err.contains("is finished") && err.contains("nothing to play"),
        "{err}"
    );
}

/// SIGTERM to a worker: its game in play is finished and sent, its heartbeat removed, its
/// summary printed, exit 143; the learner goes on with the other worker.
#[test]
fn a_worker_sent_sigterm_stops_gracefully() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let learner = learner(tmp.path(), &url, "max_games: 30");
    let leaving = worker(&url, "leaving");
    let staying = worker(&url, "staying");
    wait_for_checkpoint(tmp.path(), 5);
    // SAFETY: signalling our own child.
    unsafe { libc::kill(leaving.id() as i32, libc::SIGTERM) };
    let out = leaving.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(stdout.contains("worker leaving:"), "the summary: {stdout}");
    assert!(stderr.contains("stopped by SIGTERM"), "{stderr}");
    let mut c = redis.connection();
    let heartbeat: bool = redis::cmd("EXISTS")
        .arg("descent:run:worker:leaving")
        .query(&mut c)
        .unwrap();
    assert!(!heartbeat, "the heartbeat is removed at once");
    finish(learner, "the learner", LIMIT);
    finish(staying, "the other worker", LIMIT);
    let (_, _, rejected) = check_finished_run(tmp.path(), 30);
    assert_eq!(rejected, 0);
}

/// SIGTERM to a worker still waiting for the learner's first network (the run published, no
/// network yet): it stops at once, having played nothing, exit 143 — it used to wait on.
#[test]
fn a_worker_waiting_for_the_first_network_stops_on_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let yaml = std::fs::read_to_string(config(tmp.path(), "max_games: 10")).unwrap();
    let hash = descent::selfplay::TrainConfig::from_yaml(&yaml)
        .unwrap()
        .learned_hash();
    let mut broker = descent::selfplay::distributed::broker::Broker::connect(&url).unwrap();
    broker.use_run("waiting").unwrap();
    broker.open_run(&yaml, &hash, 0).unwrap();
    let waiting = worker(&url, "early");
    std::thread::sleep(Duration::from_secs(3));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(waiting.id() as i32, libc::SIGTERM) };
    let signalled = Instant::now();
    let out = waiting.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        signalled.elapsed() < Duration::from_secs(5),
        "stopped {:?} after SIGTERM",
        signalled.elapsed()
    );
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(
        stderr.contains("waiting for the learner's first network"),
        "{stderr}"
    );
}

#[test]
fn garbage_and_foreign_records_are_refused_counted_and_the_run_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let learner = learner(tmp.path(), &url, "max_games: 12");
    let mut c = redis.connection();
    // Wait until the learner has made the stream, then push three bad entries by hand.
    wait_for_run(&redis);
    let foreign = foreign_record();
    for fields in [
        vec![("record", b"not a record at all".to_vec())],
        vec![("something", b"else".to_vec())],
        vec![("record", foreign)],
    ] {
        let _: String = redis::cmd("XADD")
            .arg("descent:run:games")
            .arg("*")
            .arg(fields)
            .query(&mut c)
            .unwrap();
    }
    let worker = worker(&url, "w1");
    finish(learner, "the learner", LIMIT);
    finish(worker, "the worker", LIMIT);
    let (_, _, rejected) = check_finished_run(tmp.path(), 12);
    assert_eq!(rejected, 3);
    let lines = metrics(tmp.path());
    let reasons: Vec<&str> = of_kind(&lines, "rejected")
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert!(reasons[0].starts_with("not a game record"), "{reasons:?}");
    // The missing field named, with the fields the entry has.
    assert!(
        reasons[1].contains("no `record` field") && reasons[1].contains("something"),
        "{reasons:?}"
    );
    assert!(
        reasons[2].starts_with("a record of run 0000000000000000"),
        "{reasons:?}"
    );
}

/// A valid tic-tac-toe record of another run.
fn foreign_record() -> Vec<u8> {
    use descent::games::{Game, TicTacToe};
    use descent::selfplay::recipes::athenan::game_record::{GameRecord, RecordOrigin};
    use descent::selfplay::recipes::athenan::learnable_game::Finished;
    let initial = TicTacToe::new(&Default::default());
    let mut position = initial;
    let mut moves = Vec::new();
    for action in [4, 0, 8, 2, 1, 7, 6, 3, 5] {
        if position.is_terminal() {
            break;
        }
        moves.push(action);
        position.play(action);
    }
    let game = descent::selfplay::recipes::athenan::self_play::FinishedGame {
        pairs: vec![(position, 0.0)],
        values_p0: vec![0.0; moves.len()],
        moves,
        outcome: position.outcome().unwrap(),
        final_value_p0: 0.0,
        search: Default::default(),
        seconds: 0.0,
        table_states: 0,
    };
    let finished = Finished {
        game,
        index: 0,
        net_version: 0,
        net_seconds: 0.0,
    };
    let origin = RecordOrigin {
        game: "tic_tac_toe".into(),
        config_hash: "0000000000000000".into(),
        worker: "intruder".into(),
    };
    GameRecord::from_game(&initial, &finished, origin).to_bytes()
}

/// Waits until the run has checkpointed at least `games` games.
fn wait_for_checkpoint(dir: &Path, games: u64) {
    let start = Instant::now();
    loop {
        let at = std::fs::read_to_string(dir.join("run/latest/state.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|s| s["games"].as_u64());
        if at.is_some_and(|g| g >= games) {
            return;
        }
        assert!(start.elapsed() < LIMIT, "no checkpoint of {games} games");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_worker_killed_mid_run_loses_only_its_game_in_progress() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let learner = learner(tmp.path(), &url, "max_games: 60");
    let mut doomed = worker(&url, "doomed");
    wait_for_checkpoint(tmp.path(), 5);
    doomed.kill().unwrap(); // SIGKILL
    doomed.wait().unwrap();
    let survivor = worker(&url, "survivor");
    finish(learner, "the learner", LIMIT);
    finish(survivor, "the survivor", LIMIT);
    check_finished_run(tmp.path(), 60);
}

#[test]
fn a_learner_killed_and_resumed_learns_every_game_once() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let worker =
        learner_killed_while_a_worker_plays(tmp.path(), &url, "max_games: 60, max_lag: 1000");
    let resumed = resumed_learner(tmp.path(), &url, &[]);
    finish(resumed, "the resumed learner", LIMIT);
    let sent = games_sent(&finish(worker, "the worker", LIMIT));
    let (learned, dropped, _) = check_finished_run(tmp.path(), 60);
    assert_eq!((learned, dropped), (60, 0), "max_lag 1000: nothing dropped");
    let unread = games_unread(&redis);
    eprintln!("learner killed: {sent} games sent, {learned} learned, {unread} never read");
    assert_eq!(sent, learned + unread, "none lost, none learned twice");
}

#[test]
fn redis_killed_and_restarted_mid_run_loses_nothing_the_learner_had_read() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(mut redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let learner = learner(tmp.path(), &url, "max_games: 50");
    let worker = worker(&url, "w1");
    wait_for_checkpoint(tmp.path(), 10);
    redis.crash_and_restart(Duration::from_millis(1500));
    let out = finish(learner, "the learner", LIMIT);
    let sent = games_sent(&finish(worker, "the worker", LIMIT));
    let (learned, dropped, rejected) = check_finished_run(tmp.path(), 50);
    let unread = games_unread(&redis);
    // A worker whose XADD reply was lost in the crash sends its game again: the second copy is
    // refused as a game received already, and was not a game sent twice by the worker's count.
    let resent = of_kind(&metrics(tmp.path()), "rejected")
        .iter()
        .filter(|r| {
            r["reason"]
                .as_str()
                .unwrap_or("")
                .contains("was learned already")
        })
        .count() as u64;
    eprintln!(
        "Redis restarted: {sent} games sent, {learned} learned, {dropped} dropped, {rejected} refused ({resent} sent again), {unread} never read"
    );
    assert_eq!(
        sent,
        learned + dropped + rejected - resent + unread,
        "none lost"
    );
    assert!(
        out.contains("retrying"),
        "the learner said it retried: {out}"
    );
}

#[test]
fn bad_urls_unreachable_servers_and_bad_arguments_are_clear_errors() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let nobody = format!("redis://127.0.0.1:{port}");
    let cases: [(&[&str], &str); 5] = [
        (&["worker", "http://example.org"], "not a Redis URL"),
        (&["worker", "rediss://u:secret@127.0.0.1:1"], "TLS"),
        (&["worker", &nobody], "Connection refused"),
        (&["status", &nobody], "Connection refused"),
        (&["worker", &nobody, "--threads", "0"], "--threads 0"),
    ];
    for (args, expected) in cases {
        let out = descent(args)
            .env("DESCENT_BROKER_PATIENCE", "0")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(
            !err.contains("secret") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    for patience in ["nan", "-1", "inf", "1e30", "soon"] {
        for args in [
            vec!["worker", nobody.as_str()],
            vec!["status", nobody.as_str()],
        ] {
            let out = descent(&args)
                .env("DESCENT_BROKER_PATIENCE", patience)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{patience}: {err}");
            assert!(
                err.contains("DESCENT_BROKER_PATIENCE") && !err.contains("panicked"),
                "{patience}: {err}"
            );
        }
    }
    let out = descent(&[
        "worker",
        "redis+unix:///nowhere/redis.sock?db=0&pass=SECRET",
    ])
    .env("DESCENT_BROKER_PATIENCE", "0")
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !err.contains("SECRET"), "{err}");
    let tmp = tempfile::tempdir().unwrap();
    let config = config(tmp.path(), "max_games: 2, mode: distributed");
    let out = descent(&["train", config.to_str().unwrap(), "--run-dir"])
        .arg(tmp.path().join("run"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("--broker"), "{err}");
    assert!(!tmp.path().join("run").exists(), "nothing left behind");
}

/// Waits until the learner has opened the run (its stream exists).
fn wait_for_run(redis: &RedisServer) {
    let mut c = redis.connection();
    let start = Instant::now();
    while !redis::cmd("EXISTS")
        .arg("descent:run:games")
        .query::<bool>(&mut c)
        .unwrap()
    {
        assert!(start.elapsed() < LIMIT, "the learner never opened the run");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn push_record(c: &mut redis::Connection, bytes: &[u8]) {
    let _: String = redis::cmd("XADD")
        .arg("descent:run:games")
        .arg("*")
        .arg("record")
        .arg(bytes)
        .query(c)
        .unwrap();
}

/// A legal tic-tac-toe record of the live run: its hash, a game number taken from the
/// counter as a worker takes one, the network version now published.
fn live_record(
    c: &mut redis::Connection,
) -> descent::selfplay::recipes::athenan::game_record::GameRecord {
    use descent::selfplay::recipes::athenan::game_record::GameRecord;
    let hash: String = redis::cmd("GET")
        .arg("descent:run:config_hash")
        .query(c)
        .unwrap();
    let index: u64 = redis::cmd("INCR")
        .arg("descent:run:next_index")
        .query::<u64>(c)
        .unwrap()
        - 1;
    let version: u64 = redis::cmd("HGET")
        .arg("descent:run:net")
        .arg("version")
        .query(c)
        .unwrap();
    let mut record = GameRecord::from_bytes(&foreign_record()).unwrap();
    record.origin.config_hash = hash;
    record.index = index;
    record.net_version = version;
    record
}

/// The highest resident memory (kB) of a running process.
fn peak_memory_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// 8 records of random bytes, then 24 of a legal record's `plain` (decompressed) bytes with a
/// few bytes changed at random, compressed again.
fn random_records(plain: &[u8]) -> Vec<Vec<u8>> {
    use rand::{RngExt, SeedableRng};
    let mut records = Vec::new();
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(7);
    for _ in 0..8 {
        let len = rng.random_range(0..300);
        let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        records.push(bytes);
    }
    // Random byte changes of a legal record's plain bytes, compressed again.
    for _ in 0..24 {
        let mut mutant = plain.to_vec();
        for _ in 0..rng.random_range(1..4) {
            let at = rng.random_range(0..mutant.len());
            mutant[at] = rng.random();
        }
        records.push(zstd::encode_all(mutant.as_slice(), 3).unwrap());
    }
    records
}

/// Crafted and random records written straight into a live run's stream: sizes past every
/// limit, NaN and huge targets and planes, unknown and repeated game numbers, other formats,
/// random bytes and random mutations of a legal record. The learner never dies, stays under a
/// fixed memory bound, learns the legal game once, refuses and counts the rest, and its final
/// network is finite; every entry is accounted for.
#[test]
fn hostile_records_are_refused_counted_and_never_kill_or_poison_the_learner() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let learner = learner(tmp.path(), &url, "max_games: 30, max_lag: 1000");
    let learner_pid = learner.id();
    wait_for_run(&redis);
    let mut c = redis.connection();
    let legal = live_record(&mut c);
    let mut crafted: Vec<(Vec<u8>, &str)> = vec![(legal.to_bytes(), "learned")];
    crafted.push((legal.to_bytes(), "was learned already"));
    let mut huge = live_record(&mut c);
    huge.pair_nodes = vec![0; 8_000_000];
    huge.pair_targets = vec![0.0; 8_000_000];
    crafted.push((huge.to_bytes(), "too large"));
    let mut long = live_record(&mut c);
    long.moves = vec![0; 10];
    crafted.push((long.to_bytes(), "too large"));
    for target in [1e30, f32::NAN, f32::INFINITY, -3.0] {
        let mut poisoned = live_record(&mut c);
        poisoned.pair_targets = vec![target; poisoned.pair_nodes.len()];
        crafted.push((poisoned.to_bytes(), "outside the run's values"));
    }
    let mut planes = live_record(&mut c);
    planes.extra_pairs = vec![0];
    planes.extra_planes = vec![1e30; 27];
    planes.extra_targets = vec![0.0];
    crafted.push((planes.to_bytes(), "plane value"));
    let mut future = live_record(&mut c);
    future.index = 1 << 63;
    crafted.push((future.to_bytes(), "were handed out"));
    let mut format = live_record(&mut c);
    format.format = 99;
    crafted.push((format.to_bytes(), "record format 99"));
    let plain = zstd::decode_all(live_record(&mut c).to_bytes().as_slice()).unwrap();
    crafted.extend(random_records(&plain).into_iter().map(|bytes| (bytes, "")));
    for (bytes, _) in &crafted {
        push_record(&mut c, bytes);
    }
    let worker = worker(&url, "w1");
    // Poll the learner's peak memory while it runs.
    let mut peak_kb = 0;
    let mut learner = learner;
    let start = Instant::now();
    while learner.try_wait().unwrap().is_none() {
        peak_kb = peak_kb.max(peak_memory_kb(learner_pid).unwrap_or(0));
        assert!(start.elapsed() < LIMIT, "the learner still runs");
        std::thread::sleep(Duration::from_millis(20));
    }
    finish(learner, "the learner", LIMIT);
    let sent = games_sent(&finish(worker, "the worker", LIMIT));
    let (learned, dropped, rejected) = check_finished_run(tmp.path(), 30);
    let unread = games_unread(&redis);
    assert_eq!(
        sent + crafted.len() as u64,
        learned + dropped + rejected + unread,
        "every entry learned, dropped, refused or unread, once"
    );
    assert!(
        peak_kb < 600_000,
        "the learner's peak memory {peak_kb} kB (an 8 M-pair record used to take gigabytes)"
    );
    let lines = metrics(tmp.path());
    let reasons: Vec<String> = of_kind(&lines, "rejected")
        .iter()
        .map(|r| r["reason"].as_str().unwrap().to_string())
        .collect();
    for (_, expected) in crafted.iter().skip(1).filter(|(_, e)| !e.is_empty()) {
        assert!(
            reasons.iter().any(|r| r.contains(expected)),
            "no refusal says {expected:?}: {reasons:#?}"
        );
    }
    let learned_legal = of_kind(&lines, "game")
        .iter()
        .filter(|g| g["index"] == legal.index)
        .count();
    assert_eq!(learned_legal, 1, "the legal crafted game, learned once");
    // The final network loads (loading refuses non-finite weights).
    let net = tmp.path().join("run/latest/net");
    let manifest = descent::value::saved_net::read_manifest(&net).unwrap();
    descent::value::saved_net::load_weights(&net, &manifest, &burn::prelude::Device::flex())
        .expect("a finite final network");
}

/// A resume with new limits (`--max-games`) is the same run: the games already in the stream
/// and those of the workers still running are learned, none refused.
#[test]
fn a_resume_with_new_limits_keeps_the_games_of_the_running_workers() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let worker =
        learner_killed_while_a_worker_plays(tmp.path(), &url, "max_games: 20, max_lag: 1000");
    let resumed = resumed_learner(tmp.path(), &url, &["--max-games", "45", "--threads", "2"]);
    finish(resumed, "the resumed learner", LIMIT);
    let sent = games_sent(&finish(worker, "the worker", LIMIT));
    let (learned, dropped, rejected) = check_finished_run(tmp.path(), 45);
    assert_eq!((learned, dropped, rejected), (45, 0, 0));
    assert_eq!(sent, learned + games_unread(&redis), "none lost or refused");
}

/// A second learner on a database whose learner is live refuses to start and changes nothing;
/// the first run ends as if it had not come.
#[test]
fn a_second_learner_on_a_live_database_refuses_to_start() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let first = learner(tmp.path(), &url, "max_games: 20");
    wait_for_run(&redis);
    let mut c = redis.connection();
    let config: String = redis::cmd("GET")
        .arg("descent:run:config")
        .query(&mut c)
        .unwrap();
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let second = learner(&other, &url, "max_games: 7");
    let out = second.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("another learner is live"), "{err}");
    let after: String = redis::cmd("GET")
        .arg("descent:run:config")
        .query(&mut c)
        .unwrap();
    assert_eq!(after, config, "the first run's configuration untouched");
    let worker = worker(&url, "w1");
    finish(first, "the first learner", LIMIT);
    finish(worker, "the worker", LIMIT);
    let (_, _, rejected) = check_finished_run(tmp.path(), 20);
    assert_eq!(rejected, 0);
}

/// The Redis commands the server processes a second, counted over `span` (the counting
/// commands left out).
fn commands_per_second(c: &mut redis::Connection, span: Duration) -> f64 {
    let calls = |c: &mut redis::Connection| -> u64 {
        let info: String = redis::cmd("INFO").arg("stats").query(c).unwrap();
        info.lines()
            .find_map(|l| l.strip_prefix("total_commands_processed:"))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let before = calls(c);
    std::thread::sleep(span);
    (calls(c) - before - 1) as f64 / span.as_secs_f64()
}

/// A worker `id` of two threads (its environment `env`) feeding a learner under `dir`, the
/// learner killed (SIGKILL) once it has checkpointed 5 games.
fn worker_of_a_killed_learner(dir: &Path, url: &str, id: &str, env: &[(&str, &str)]) -> Child {
    let mut learner = learner(dir, url, "max_games: 1000, max_lag: 4");
    let worker = descent(&["worker", url, "--id", id, "--threads", "2"])
        .envs(env.iter().copied())
        .spawn()
        .unwrap();
    wait_for_checkpoint(dir, 5);
    learner.kill().unwrap();
    learner.wait().unwrap();
    worker
}

/// A learner stopped while its heartbeat lives on (30 s): the workers' players wait for room
/// in its backlog, and the worker polls as gently as when the learner is gone (45 commands a
/// second for two threads before).
#[test]
fn workers_poll_gently_while_a_stopped_learners_heartbeat_lives_on() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let mut worker = worker_of_a_killed_learner(tmp.path(), &url, "patient", &[]);
    let mut c = redis.connection();
    let live: bool = redis::cmd("EXISTS")
        .arg("descent:run:learner")
        .query(&mut c)
        .unwrap();
    assert!(live, "the killed learner's heartbeat lives on");
    // The players fill the backlog and back off.
    std::thread::sleep(Duration::from_secs(4));
    let per_second = commands_per_second(&mut c, Duration::from_secs(4));
    worker.kill().unwrap();
    worker.wait().unwrap();
    eprintln!("{per_second} Redis commands a second from a waiting worker of 2 threads");
    assert!(
        per_second < 20.0,
        "{per_second} Redis commands a second from a worker of 2 threads waiting on a stopped learner"
    );
}

/// A worker whose learner is gone for good says so, polls Redis gently, gives up after the
/// patience, and removes its heartbeat so that `descent status` does not list it.
#[test]
fn a_worker_whose_learner_is_gone_gives_up_after_the_patience() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let worker = worker_of_a_killed_learner(
        tmp.path(),
        &url,
        "orphan",
        &[("DESCENT_BROKER_PATIENCE", "4")],
    );
    let mut c = redis.connection();
    // As if its heartbeat had lapsed (30 s).
    let _: () = redis::cmd("DEL")
        .arg("descent:run:learner")
        .arg("descent:run:learner_id")
        .query(&mut c)
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let per_second = commands_per_second(&mut c, Duration::from_secs(2));
    assert!(
        per_second < 20.0,
        "{per_second} Redis commands a second while the learner is gone"
    );
    let start = Instant::now();
    let out = worker.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("no heartbeat from the learner"), "{err}");
    assert!(err.contains("giving up"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(20), "{err}");
    let heartbeat: bool = redis::cmd("EXISTS")
        .arg("descent:run:worker:orphan")
        .query(&mut c)
        .unwrap();
    assert!(!heartbeat, "a worker that stopped is not listed as live");
}

/// A game learned and checkpointed, sent again after the learner was killed and resumed (a
/// worker's retry), is refused: the games taken are in the checkpoint, not only in memory.
#[test]
fn a_game_sent_again_after_a_resume_is_refused_not_learned_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let mut first = learner(tmp.path(), &url, "max_games: 7, max_lag: 1000");
    wait_for_run(&redis);
    let mut c = redis.connection();
    let records: Vec<Vec<u8>> = (0..7).map(|_| live_record(&mut c).to_bytes()).collect();
    for bytes in &records[..5] {
        push_record(&mut c, bytes);
    }
    wait_for_checkpoint(tmp.path(), 5);
    first.kill().unwrap();
    first.wait().unwrap();
    let resumed = resumed_learner(tmp.path(), &url, &[]);
    push_record(&mut c, &records[0]);
    push_record(&mut c, &records[5]);
    push_record(&mut c, &records[6]);
    finish(resumed, "the resumed learner", LIMIT);
    let (learned, dropped, rejected) = check_finished_run(tmp.path(), 7);
    assert_eq!((learned, dropped, rejected), (7, 0, 1));
    let lines = metrics(tmp.path());
    let reason = of_kind(&lines, "rejected")[0]["reason"].clone();
    assert!(
        reason.as_str().unwrap().contains("was learned already"),
        "{reason}"
    );
}

/// Two runs share one Redis database by their names (their run directories' names): each
/// learner and its worker (`--run NAME`) finish their own budget, neither refuses the other's
/// games; a worker that names no run where two are live is refused, listing them.
#[test]
fn two_runs_share_one_database_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let mut learners = Vec::new();
    for name in ["alpha", "beta"] {
        let home = tmp.path().join(name);
        std::fs::create_dir(&home).unwrap();
        let run_dir = tmp.path().join(format!("{name}-runs")).join(name);
        std::fs::create_dir(run_dir.parent().unwrap()).unwrap();
        // check_finished_run reads HOME/run.
        std::os::unix::fs::symlink(&run_dir, home.join("run")).unwrap();
        let config = config(&home, "max_games: 15");
        let child = descent(&["train", config.to_str().unwrap(), "--run-dir"])
            .arg(&run_dir)
            .args(["--broker", &url, "--quiet"])
            .spawn()
            .unwrap();
        learners.push((home, child));
    }
    let mut c = redis.connection();
    let start = Instant::now();
    while redis::cmd("SCARD")
        .arg("descent:runs")
        .query::<u64>(&mut c)
        .unwrap()
        < 2
    {
        assert!(
            start.elapsed() < LIMIT,
            "the learners never opened their runs"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = descent(&["worker", &url, "--id", "undecided"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("alpha, beta") && err.contains("--run"),
        "{err}"
    );
    let workers: Vec<Child> = ["alpha", "beta"]
        .iter()
        .map(|name| {
            descent(&["worker", &url, "--run", name, "--id", name])
                .spawn()
                .unwrap()
        })
        .collect();
    for (home, child) in learners {
        finish(child, "a learner", LIMIT);
        let (_, _, rejected) = check_finished_run(&home, 15);
        assert_eq!(rejected, 0, "{}", home.display());
    }
    for worker in workers {
        finish(worker, "a worker", LIMIT);
    }
}

/// A learner busy learning for longer than its claim lives (30 s) keeps its claim: a thread of
/// its own renews it, so a second learner of the run is refused however busy the first is
/// (the learner's own thread here says nothing for 35 s, as while learning a batch of games).
#[test]
fn a_busy_learners_claim_never_lapses() {
    use descent::selfplay::distributed::broker::Broker;
    use descent::selfplay::recipes::athenan::learner_heartbeat::LearnerHeartbeat;
    let tmp = tempfile::tempdir().unwrap();
    let Some(redis) = RedisServer::start(tmp.path()) else {
        return;
    };
    let url = redis.url();
    let mut broker = Broker::connect(&url).unwrap();
    broker.use_run("busy").unwrap();
    broker.learner_alive("learner A", 0.0, "{}").unwrap();
    let heartbeat =
        LearnerHeartbeat::start(&url, "busy", "learner A".into(), (0.0, "{}".into())).unwrap();
    std::thread::sleep(Duration::from_secs(35));
    let mut second = Broker::connect(&url).unwrap();
    second.use_run("busy").unwrap();
    let refused = second.claim_learner("learner B").unwrap_err();
    assert!(
        format!("{refused:#}").contains("another learner is live"),
        "{refused:#}"
    );
    assert!(second.learner_is_alive().unwrap(), "the heartbeat lives on");
    heartbeat.check().unwrap();
    drop(heartbeat);
}
