#!/usr/bin/env bash
# Games per hour of one game's training in each run mode on this machine, TRAIN_TIME each:
# sequential (1 thread), parallel (THREADS threads), distributed with 1, 2 and 4 worker processes
# (1 thread each) feeding one learner through a redis-server started here on a free port. Prints
# one line per mode: games learned and dropped, games/hour, the learner's share of the time, its
# intake (pairs added and learned per second of learning), and the bytes per game on the wire.
# Then, with COMPARE=1, plays the parallel-trained network against the sequential-trained one
# (UBFM_s, TIME per move, GAMES games, both sides).
#
#   scripts/scale_figures.sh [GAME]   (TRAIN_TIME=5m, THREADS=2, WORKERS="1 2 4", COMPARE=1,
#                                      TIME=50ms, GAMES=40, OUT=checkpoints/scale-GAME,
#                                      DESCENT=path/to/descent to use a built binary)
set -euo pipefail
cd "$(dirname "$0")/.."
GAME=${1:-awale}
CONFIG=configs/$GAME.yaml
TRAIN_TIME=${TRAIN_TIME:-5m}
THREADS=${THREADS:-2}
OUT=${OUT:-checkpoints/scale-$GAME}
if [ -z "${DESCENT:-}" ]; then
  cargo build --release --quiet
  DESCENT=${CARGO_TARGET_DIR:-target}/release/descent
fi
mkdir -p "$OUT"
report() { # mode run-dir [bytes-per-game]
  python3 - "$1" "$2" "${3:-}" <<'PY'
import json, sys
mode, run, wire = sys.argv[1], sys.argv[2], sys.argv[3]
lines = [json.loads(l) for l in open(f"{run}/metrics.jsonl") if l.strip()]
games = [l for l in lines if l["kind"] == "game"]
dropped = sum(1 for l in lines if l["kind"] == "dropped")
elapsed = max(l["elapsed_seconds"] for l in games)
learn = sum(l["learn_seconds"] for l in games)
added = sum(l["pairs_added"] for l in games)
learned = sum(l["pairs_learned"] for l in games)
lag = sum(l["lag"] for l in games) / max(1, len(games))
print(f"{mode:<26} {len(games):5d} learned {dropped:4d} dropped  "
      f"{(len(games) + dropped) * 3600 / elapsed:7.0f} games/h  learner busy {100 * learn / elapsed:3.0f} %  "
      f"intake {added / max(learn, 1e-9):8.0f} pairs added/s, {learned / max(learn, 1e-9):8.0f} learned/s  "
      f"mean lag {lag:.1f}" + (f"  {wire} bytes/game on the wire" if wire else ""))
PY
}
train_local() { # mode threads
  local run=$OUT/$1
  rm -rf "$run"
  "$DESCENT" train "$CONFIG" --run-dir "$run" --max-time "$TRAIN_TIME" --threads "$2" --quiet \
    > /dev/null
  report "$1 ($2 threads)" "$run"
}
train_local sequential 1
sed "s/^  mode: sequential .*/  mode: parallel/" "$CONFIG" > "$OUT/parallel.yaml"
rm -rf "$OUT/parallel"
"$DESCENT" train "$OUT/parallel.yaml" --run-dir "$OUT/parallel" --max-time "$TRAIN_TIME" \
  --threads "$THREADS" --quiet > /dev/null
report "parallel ($THREADS threads)" "$OUT/parallel"

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for workers in ${WORKERS:-1 2 4}; do
  run=$OUT/distributed-$workers
  rm -rf "$run" "$OUT/redis"
  mkdir -p "$OUT/redis"
  redis-server --port "$PORT" --bind 127.0.0.1 --dir "$OUT/redis" --save "" --appendonly yes \
    --daemonize yes --logfile "$OUT/redis/log"
  sleep 0.5
  "$DESCENT" train "$CONFIG" --run-dir "$run" --max-time "$TRAIN_TIME" \
    --broker "redis://127.0.0.1:$PORT" --quiet > /dev/null &
  learner=$!
  pids=()
  for w in $(seq "$workers"); do
    "$DESCENT" worker "redis://127.0.0.1:$PORT" --id "w$w" > "$run-w$w.out" 2>&1 &
    pids+=($!)
  done
  wait "$learner"
  wait "${pids[@]}"
  bytes=$(cat "$run"-w*.out | python3 -c '
import sys, re
games = total = 0
for line in sys.stdin:
    m = re.match(r"worker \S+: (\d+) games in \S+ s, (\d+) bytes per game", line)
    if m:
        games += int(m[1]); total += int(m[1]) * int(m[2])
print(total // max(games, 1))')
  redis-cli -p "$PORT" shutdown nosave > /dev/null || true
  report "distributed ($workers workers)" "$run" "$bytes"
done

if [ "${COMPARE:-1}" = 1 ]; then
  "$DESCENT" eval --game "$GAME" --agent "ubfms:model=$OUT/parallel,time=${TIME:-50ms}" \
    --opponent "ubfms:model=$OUT/sequential,time=${TIME:-50ms}" --games "${GAMES:-40}" --quiet
fi
