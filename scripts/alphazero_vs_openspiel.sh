#!/usr/bin/env bash
# descent's AlphaZero against OpenSpiel's, on Connect Four, trained for the same time on one CPU
# core each (both at once, each pinned to its own core), then matched at equal time per move.
#   MINUTES=20 GAMES=20 SIMULATIONS=100 DESCENT_TIME=0.4 OUT=/tmp/az-vs-openspiel scripts/alphazero_vs_openspiel.sh
# DESCENT_TIME (seconds a move) must stay below OpenSpiel's mean time a move in the match, which
# the match prints (it says NOT EQUAL otherwise).
# Needs 2 cores. Prints both trainings' figures and the match with its Wilson interval.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/openspiel_venv.sh"
scripts/.venv/bin/pip install --quiet -r scripts/requirements-alphazero.txt
MINUTES=${MINUTES:-20}
GAMES=${GAMES:-20}
SIMULATIONS=${SIMULATIONS:-100}
DESCENT_TIME=${DESCENT_TIME:-0.4}
OUT=${OUT:-/tmp/az-vs-openspiel}
rm -rf "$OUT" && mkdir -p "$OUT"
taskset -c 0 scripts/.venv/bin/python scripts/alphazero_vs_openspiel.py train-openspiel \
  --minutes "$MINUTES" --path "$OUT/openspiel" > "$OUT/openspiel-train.txt" 2>&1 &
OPENSPIEL=$!
taskset -c 1 "$DESCENT_BIN" train configs/alphazero-vs-openspiel-connect_four.yaml \
  --run-dir "$OUT/descent" --max-time "${MINUTES}m" --quiet > "$OUT/descent-train.txt" 2>&1
wait "$OPENSPIEL"
cat "$OUT/openspiel-train.txt" "$OUT/descent-train.txt"
grep -c alphazero_round "$OUT/descent/metrics.jsonl" | sed 's/^/descent rounds of 32 games: /'
taskset -c 0,1 scripts/.venv/bin/python scripts/alphazero_vs_openspiel.py match \
  --openspiel "$OUT/openspiel" --descent "$DESCENT_BIN" --descent-model "$OUT/descent" \
  --simulations "$SIMULATIONS" --games "$GAMES" --descent-time "$DESCENT_TIME" | tee "$OUT/match.txt"
