//! `scripts/fault_test.sh` as a test: a distributed Connect Four run across three network
//! namespaces (Redis and the learner, two workers) through a worker SIGKILLed and restarted,
//! redis-server SIGTERMed and SIGKILLed, a link cut, a connection black-holed, a worker
//! SIGTERMed, the learner SIGKILLed and resumed, and second learners refused — after each, no
//! game lost or learned twice and recovery within 10 s. The cut and the black hole last 10 s
//! and 30 s here (the table in docs/distributed.md: 30 s and 2 minutes). Namespaces need root:
//! elsewhere the test is skipped and counted, and a failure where `.ci/run` runs as root
//! (`DESCENT_REQUIRE_NETNS=1`).

use std::process::Command;

#[test]
fn a_distributed_run_across_three_hosts_loses_no_game_to_its_faults() {
    let out = tempfile::tempdir().unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/fault_test.sh");
    let run = Command::new("bash")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_descent"))
        .env("FAULT_OUT", out.path())
        .env("FAULT_SCALE", "10 30")
        .output()
        .expect("bash runs the script");
    let stderr = String::from_utf8_lossy(&run.stderr);
    if run.status.code() == Some(77) {
        let why = stderr.lines().find(|l| l.contains("SKIPPED")).unwrap_or("");
        crate::common::skip::skip_unprivileged("DESCENT_REQUIRE_NETNS", why);
        return;
    }
    let table = std::fs::read_to_string(out.path().join("table")).unwrap_or_default();
    assert!(run.status.success(), "{stderr}\n{table}");
    let rows: Vec<&str> = table.lines().skip(2).collect();
    assert_eq!(
        rows.len(),
        10,
        "a row per fault, the start and the end: {table}"
    );
    for row in rows {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(
            (cells[3], cells[4]),
            ("0", "0"),
            "lost, learned twice: {row}"
        );
    }
}
