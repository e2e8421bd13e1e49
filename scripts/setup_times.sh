#!/usr/bin/env bash
# Times the README's "Set up" block as a newcomer meets it: a fresh clone, an empty cargo home
# and target directory (every crate downloaded and built), then `cargo run --release -- train
# configs/tic_tac_toe.yaml` (the build and a short training run)
# and `cargo test --release`; prints each command's wall time, the number of tests run, the
# commit and the machine's cores, for the README to quote. Nothing else should run meanwhile.
#
#   scripts/setup_times.sh            (the work directory, ~5 GB, is removed at the end)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/descent-setup.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
git clone --quiet "$ROOT" "$WORK/descent"
export CARGO_HOME="$WORK/cargo-home" CARGO_TARGET_DIR="$WORK/target"
# The toolchain stays where rustup put it; only the registry and the builds start empty.
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
PATH="$(dirname "$(rustup which cargo)"):$PATH"
cd "$WORK/descent"
timed() {
  local start end
  start=$(date +%s)
  # The output is the caller's number; a failure's log goes to stderr.
  "$@" >"$WORK/out.log" 2>&1 || { echo "failed: $*" >&2; tail -40 "$WORK/out.log" >&2; exit 1; }
  end=$(date +%s)
  echo $((end - start))
}
format() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }
build=$(timed cargo run --release -- train configs/tic_tac_toe.yaml)
tests=$(timed cargo test --release)
count=$(grep -Eo '^test result: ok\. [0-9]+ passed' "$WORK/out.log" | awk '{s += $4} END {print s}')
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, $(date -u +%Y-%m-%d)"
echo "cargo run --release -- train configs/tic_tac_toe.yaml: $(format "$build")"
echo "cargo test --release: $(format "$tests") more ($count tests passed)"
