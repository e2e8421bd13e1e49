//! `descent serve` under load and against files that would block it: 32 concurrent requests
//! for the largest networks a spec may ask for (bounded by the parameters being loaded at once,
//! 503 past them), a FIFO where a network's manifest should be, and a link in the served
//! directory to a run elsewhere (neither listed nor loaded: one rule).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use descent::games::{Game, TicTacToe};
use descent::value::Architecture;

use crate::common::server::{Server, memory_kb};
use crate::common::small_run;

/// The peak RSS `descent serve` may reach in the load test: one network of the largest size
/// being built (~0.8 GB of weights; 2.0 GB peak seen in all); without the
/// loading budget, 32 loads at once would take ~35 GB.
const PEAK_RSS_BOUND_KB: u64 = 3_000_000;

/// `count` different architectures, each just under the parameter limit of a spec, for
/// tic-tac-toe's inputs.
fn largest_architectures(count: usize) -> Vec<String> {
    let [planes, rows, cols] = TicTacToe::ENCODING.dims();
    let limit = 200_000_000;
    let parameters = |channels: usize| {
        let arch: Architecture = format!("resnet-b1c{channels}-fc1").parse().unwrap();
        arch.parameter_count(planes, rows, cols).unwrap()
    };
    let mut channels = 1;
    while parameters(channels * 2) <= limit {
        channels *= 2;
    }
    let mut step = channels / 2;
    while step > 0 {
        if parameters(channels + step) <= limit {
            channels += step;
        }
        step /= 2;
    }
    (0..count)
        .map(|i| format!("resnet-b1c{}-fc1", channels - i))
        .collect()
}

fn move_request(agent: &str) -> String {
    format!(r#"{{"game": "tic_tac_toe", "moves": ["b2"], "agent": "{agent}"}}"#)
}

#[test]
fn thirty_two_concurrent_loads_of_the_largest_networks_stay_bounded() {
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path());
    let pid = server.pid();
    let architectures = largest_architectures(32);
    let loading = AtomicBool::new(true);
    let (statuses, slowest_index) = std::thread::scope(|scope| {
        // `/` asked every 100 ms while the loads run.
        let watcher = scope.spawn(|| {
            let mut slowest = Duration::ZERO;
            while loading.load(Ordering::Relaxed) {
                let start = Instant::now();
                let (status, _) = server.request("GET", "/", None);
                assert_eq!(status, 200);
                slowest = slowest.max(start.elapsed());
                std::thread::sleep(Duration::from_millis(100));
            }
            slowest
        });
        let requests: Vec<_> = architectures
            .iter()
            .map(|arch| {
                let server = &server;
                scope.spawn(move || {
                    let agent = format!("greedy:model=untrained,arch={arch}");
                    server.json("POST", "/api/agent-move", Some(&move_request(&agent)))
                })
            })
            .collect();
        let statuses: Vec<(u16, serde_json::Value)> =
            requests.into_iter().map(|r| r.join().unwrap()).collect();
        loading.store(false, Ordering::Relaxed);
        (statuses, watcher.join().unwrap())
    });
    let peak_kb = memory_kb(pid, "VmHWM:");
    let answered = statuses.iter().filter(|(s, _)| *s == 200).count();
    let busy = statuses.iter().filter(|(s, _)| *s == 503).count();
    eprintln!(
        "32 requests for {}: {answered} answered, {busy} busy; peak RSS {peak_kb} kB; slowest / {slowest_index:?}",
        architectures[0]
    );
    for (status, reply) in &statuses {
        assert!(matches!(status, 200 | 503), "{status}: {reply}");
        if *status == 503 {
            assert!(reply["error"].as_str().unwrap().contains("busy"), "{reply}");
        }
    }
    assert!(answered >= 1, "at least the first load is served");
    assert!(
        peak_kb < PEAK_RSS_BOUND_KB,
        "peak RSS {peak_kb} kB, over {PEAK_RSS_BOUND_KB}"
    );
    assert!(
        slowest_index < Duration::from_secs(1),
        "/ took {slowest_index:?} during the loads"
    );
}

/// Makes a FIFO at `path`.
fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

#[test]
fn a_fifo_network_file_is_refused_at_once_and_holds_no_thread() {
    let root = tempfile::tempdir().unwrap();
    let run = small_run(root.path(), "x", "", 2);
    let ckpt = std::fs::read_link(run.join("latest")).unwrap();
    let fake = root.path().join("x").join("fake");
    std::fs::create_dir(&fake).unwrap();
    std::fs::copy(run.join(&ckpt).join("net.bpk"), fake.join("net.bpk")).unwrap();
    mkfifo(&fake.join("net.json"));
    let server = Server::start(root.path());
    // More requests than a blocking pool would lose threads to, each answered at once.
    for _ in 0..8 {
        let start = Instant::now();
        let (status, reply) = server.json(
            "POST",
            "/api/agent-move",
            Some(&move_request("greedy:model=x/fake/net")),
        );
        assert_eq!(status, 400, "{reply}");
        assert!(
            reply["error"]
                .as_str()
                .unwrap()
                .contains("not a regular file"),
            "{reply}"
        );
        assert!(start.elapsed() < Duration::from_secs(5));
    }
    let (status, _) = server.request("GET", "/", None);
    assert_eq!(status, 200);
}

#[test]
fn a_link_to_a_run_outside_is_neither_listed_nor_served() {
    let outside = tempfile::tempdir().unwrap();
    small_run(outside.path(), "elsewhere", "", 2);
    let root = tempfile::tempdir().unwrap();
    small_run(root.path(), "inside", "", 2);
    std::os::unix::fs::symlink(outside.path().join("elsewhere"), root.path().join("linked"))
        .unwrap();
    let server = Server::start(root.path());
    let (status, runs) = server.json("GET", "/api/runs", None);
    assert_eq!(status, 200);
    let names: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["inside"], "{runs}");
    let (status, _) = server.request("GET", "/api/runs/linked/metrics", None);
    assert_eq!(status, 404);
    let (status, reply) = server.json(
        "POST",
        "/api/agent-move",
        Some(&move_request("greedy:model=linked")),
    );
    assert_eq!(status, 400, "{reply}");
}
