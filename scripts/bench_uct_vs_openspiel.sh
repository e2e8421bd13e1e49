#!/usr/bin/env bash
# Side-by-side UCT speed against OpenSpiel's MCTSBot (see bench_uct_vs_openspiel.py).
# Installs open_spiel into scripts/.venv on first use. Not part of CI.
set -euo pipefail
source "$(dirname "$0")/openspiel_venv.sh"
scripts/.venv/bin/python scripts/bench_uct_vs_openspiel.py --descent "$DESCENT_BIN" "$@"
