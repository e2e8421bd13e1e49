//! A test that cannot run here for want of an outside component (redis-server, Chromium, GNU Go,
//! a reference Python, root for namespaces or device files) is skipped, never passed in
//! silence. Under CI — `CI=true`, or the component's `DESCENT_REQUIRE_…=1`, as `.ci/run` sets
//! — the skip is a failure naming what is missing. Elsewhere it is printed, and the test binary
//! ends with a line after libtest's summary saying how many of its tests were skipped and why.

use std::sync::{Mutex, Once};

/// The skips of this test binary: test name, what was missing.
static SKIPPED: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());
static REPORT_AT_EXIT: Once = Once::new();

fn is_set(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1" || (name == "CI" && v == "true"))
}

/// Records that the calling test skips because an outside component is `missing` (what to
/// install); a failure instead under CI (`CI=true`) or with `require_env=1`.
pub fn skip(require_env: &str, missing: &str) {
    assert!(
        !is_set("CI") && !is_set(require_env),
        "{missing} (required here: CI=true or {require_env}=1)"
    );
    record(missing);
}

/// Records that the calling test skips because this machine does not allow it (`missing`: root
/// for namespaces or device files); a failure instead with `require_env=1`, which `.ci/run`
/// sets where it runs as root.
pub fn skip_unprivileged(require_env: &str, missing: &str) {
    assert!(
        !is_set(require_env),
        "{missing} (required here: {require_env}=1)"
    );
    record(missing);
}

fn record(missing: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    eprintln!("SKIPPED {test}: {missing}");
    SKIPPED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .push((test, missing.to_string()));
    REPORT_AT_EXIT.call_once(|| {
        // SAFETY: registers a plain `extern "C" fn()` with no arguments, as atexit expects.
        unsafe {
            libc::atexit(report_skipped);
        }
    });
}

/// At the test binary's exit, after libtest's summary: how many tests were skipped, and why.
extern "C" fn report_skipped() {
    let skipped = SKIPPED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if skipped.is_empty() {
        return;
    }
    eprintln!(
        "\n{} test(s) of this binary SKIPPED (counted as passed above):",
        skipped.len()
    );
    for (test, missing) in skipped.iter() {
        eprintln!("  {test}: {missing}");
    }
}
