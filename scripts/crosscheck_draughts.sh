#!/usr/bin/env bash
# Compares descent's draughts with the PyPI pydraughts library on random games (see crosscheck_draughts.py).
# Installs open_spiel and pydraughts into scripts/.venv on first use. Not part of CI.
set -euo pipefail
source "$(dirname "$0")/openspiel_venv.sh"
scripts/.venv/bin/python -c "import draughts" 2>/dev/null || scripts/.venv/bin/pip install --quiet -r scripts/requirements-references.txt
scripts/.venv/bin/python scripts/crosscheck_draughts.py --descent "$DESCENT_BIN" "$@"
