#!/usr/bin/env bash
# Compares descent's Arimaa with pyrimaa (PyPI aei) on random games (see crosscheck_arimaa.py).
# Installs open_spiel and aei into scripts/.venv on first use. Not part of CI.
set -euo pipefail
source "$(dirname "$0")/openspiel_venv.sh"
scripts/.venv/bin/python -c "import pyrimaa" 2>/dev/null || scripts/.venv/bin/pip install --quiet -r scripts/requirements-references.txt
scripts/.venv/bin/python scripts/crosscheck_arimaa.py --descent "$DESCENT_BIN" "$@"
