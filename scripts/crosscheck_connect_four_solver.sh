#!/usr/bin/env bash
# Compares descent's Connect Four solver with Pascal Pons' C++ solver (github.com/PascalPons/connect4,
# built here from its source with g++ and make), position by position and column by column:
#   1. the shipped set, data/connect_four_positions.txt (descent's scores, committed);
#   2. a fresh random sample: `descent solve connect_four --sample N --seed S` (default 200, seed
#      the date), solved by both now.
# Both print "moves s1 … s7" (Pons' -a format); the script diffs the lines and exits non-zero on
# the first difference. Pons' source: PONS_SRC=/path/to/connect4, or cloned into
# scripts/.pons-connect4 on first use. Not part of CI (it needs the network and minutes).
#
#   scripts/crosscheck_connect_four_solver.sh [N] [SEED]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
count="${1:-200}"
seed="${2:-$(date +%Y%m%d)}"
src="${PONS_SRC:-scripts/.pons-connect4}"
if [ ! -f "$src/Solver.cpp" ]; then
  git clone --quiet https://github.com/PascalPons/connect4 "$src"
fi
make --quiet -C "$src" c4solver
pons="$(cd "$src" && pwd)/c4solver"
cargo build --release --bin descent
descent="${CARGO_TARGET_DIR:-target}/release/descent"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

compare() { # $1: name, $2: file of descent's lines
  # Pons' solver reads one position a line on stdin (no opening book: it says so on stderr).
  cut -d' ' -f1 "$2" | (cd "$work" && "$pons" -a 2>/dev/null) > "$work/pons.txt"
  if ! diff "$2" "$work/pons.txt" > "$work/diff.txt"; then
    echo "$1: descent and Pons' solver differ (descent <, Pons >):"
    head -20 "$work/diff.txt"
    exit 1
  fi
  echo "$1: $(wc -l < "$2") positions, every column's score the same in both solvers"
}

grep -v '^#' data/connect_four_positions.txt > "$work/shipped.txt"
compare "data/connect_four_positions.txt" "$work/shipped.txt"
"$descent" solve connect_four --sample "$count" --plies 6-30 --seed "$seed" > "$work/sample.txt"
compare "a fresh sample of $count (plies 6-30, seed $seed)" "$work/sample.txt"
