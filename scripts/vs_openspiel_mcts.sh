#!/usr/bin/env bash
# A descent agent against OpenSpiel's C++ MCTS at RATIO (default 10) times its time a move, or at
# a fixed --openspiel-simulations N, on Awale, Othello, Breakthrough or Hex 11
# (scripts/vs_openspiel_mcts.py says how). One core:
#   taskset -c 1 scripts/vs_openspiel_mcts.sh --game othello \
#     --agent 'ubfms:model=checkpoints/othello,time=100ms' --descent-time 0.1 --games 40
# (DESCENT=path/to/descent to use a built binary instead of building one)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -n "${DESCENT:-}" ]; then
  [ -x scripts/.venv/bin/python ] || {
    python3 -m venv scripts/.venv
    scripts/.venv/bin/pip install --quiet -r scripts/requirements-references.txt
  }
  DESCENT_BIN="$DESCENT"
else
  source scripts/openspiel_venv.sh
fi
scripts/.venv/bin/python scripts/vs_openspiel_mcts.py --descent "$DESCENT_BIN" "$@"
