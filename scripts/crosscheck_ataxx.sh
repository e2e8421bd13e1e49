#!/usr/bin/env bash
# Compares descent's Ataxx with the PyPI ataxx library on random games (see crosscheck_ataxx.py).
# Installs open_spiel and ataxx into scripts/.venv on first use. Not part of CI.
set -euo pipefail
source "$(dirname "$0")/openspiel_venv.sh"
scripts/.venv/bin/python -c "import ataxx" 2>/dev/null || scripts/.venv/bin/pip install --quiet -r scripts/requirements-references.txt
scripts/.venv/bin/python scripts/crosscheck_ataxx.py --descent "$DESCENT_BIN" "$@"
