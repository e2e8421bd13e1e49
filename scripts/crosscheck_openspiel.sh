#!/usr/bin/env bash
# Compares descent's rules with OpenSpiel's on random games (see crosscheck_openspiel.py).
# Installs open_spiel into scripts/.venv on first use. Not part of CI.
set -euo pipefail
source "$(dirname "$0")/openspiel_venv.sh"
scripts/.venv/bin/python scripts/crosscheck_openspiel.py --descent "$DESCENT_BIN" "$@"
