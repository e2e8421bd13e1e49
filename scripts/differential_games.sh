#!/usr/bin/env bash
# The move-by-move comparisons of tests/rules/conformance.rs against the naive reference
# implementations, on N random games per game (and as many biased to captures and pushes) instead
# of the test suite's few hundred:  scripts/differential_games.sh [N]   (default 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
export DESCENT_DIFFERENTIAL_GAMES=${1:-10000}
cargo test --release --test rules -- --nocapture conformance::matches_the_reference_move_for_move
