#!/usr/bin/env bash
# Side-by-side UCT speed against OpenSpiel's MCTSBot (see bench_uct_vs_openspiel.py).
# Installs open_spiel into scripts/.venv on first use. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x scripts/.venv/bin/python ]; then
  python3 -m venv scripts/.venv
  scripts/.venv/bin/pip install --quiet open_spiel
fi
cargo build --release --bin descent
target_dir="${CARGO_TARGET_DIR:-target}"
scripts/.venv/bin/python scripts/bench_uct_vs_openspiel.py --descent "$target_dir/release/descent" "$@"
