#!/usr/bin/env bash
# Checks descent's TensorBoard event files with TensorBoard's own reader (not part of CI):
# trains a short tic-tac-toe run with periodic evaluations, resumes it once from an earlier
# checkpoint, and has scripts/check_tensorboard.py load the run with tensorboard's
# EventAccumulator and compare every scalar with metrics.jsonl. Installs tensorboard into
# scripts/.venv-tensorboard on first use.
#
#   scripts/check_tensorboard.sh   (DESCENT=path/to/descent to use a built binary)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x scripts/.venv-tensorboard/bin/python ]; then
  python3 -m venv scripts/.venv-tensorboard
  scripts/.venv-tensorboard/bin/pip install --quiet -r scripts/requirements-tensorboard.txt
fi
if [ -z "${DESCENT:-}" ]; then
  cargo build --release --quiet --bin descent
  DESCENT="${CARGO_TARGET_DIR:-target}/release/descent"
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
{ sed '/^checkpoint:/,$d' configs/tic_tac_toe.yaml; cat; } > "$WORK/run.yaml" <<'YAML'
evaluation:
  every_games: 10
  games: 4
  opponent: random
  time_per_move: 10ms
checkpoint:
  every_games: 15
  keep_last: 10
YAML
"$DESCENT" train "$WORK/run.yaml" --run-dir "$WORK/run" --max-games 40 --quiet > /dev/null
# As if killed after game 40 was logged but before its checkpoint: resume from ckpt-30.
rm -rf "$WORK/run/ckpt-40"
ln -sfn ckpt-30 "$WORK/run/latest"
"$DESCENT" train --resume "$WORK/run" --max-games 45 --quiet > /dev/null
scripts/.venv-tensorboard/bin/python scripts/check_tensorboard.py "$WORK/run"
