#!/usr/bin/env bash
# How far one learner goes: for each game, a distributed Athénan run on loopback (the learner
# pinned to core 0), one real worker (core 1) playing for WORKER_SECONDS so that the stream
# holds real records of the run, then `descent bench learner` (core 1) sending them again from
# synthetic workers as fast as the learner takes them, for BENCH_SECONDS. Prints each game's
# report: games and pairs a second, the learner's time by stage, Redis bytes per 1 000 waiting
# games, and how many worker threads of that speed one learner serves (docs/distributed.md,
# "How far one learner goes").
#
#   scripts/learner_capacity.sh [DESCENT_BINARY] [GAME ...]   (default: connect_four othello)
#
# Needs redis-server and two cores. Environment: WORKER_SECONDS (default 40), BENCH_SECONDS
# (default 30), SENDERS (default 2), LEARNER_CORE and SENDER_CORE (defaults 0 and 1; one core for
# both understates the learner, which then shares it with the senders).
set -euo pipefail

DESCENT=$(realpath "${1:-target/release/descent}")
GAMES=(connect_four othello)
if [ $# -gt 1 ]; then
  shift
  GAMES=("$@")
fi
OUT=$(mktemp -d /tmp/descent-capacity.XXXXXX)
PORT=$((20000 + RANDOM % 20000))
URL=redis://127.0.0.1:$PORT
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --dir "$OUT" \
  >"$OUT/redis.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.1; done

for game in "${GAMES[@]}"; do
  # The games' own Athénan settings (configs/<game>.yaml's network, search and learning), no
  # checkpoint (the stream keeps every record for the bench to sample), no evaluation.
  cat >"$OUT/$game.yaml" <<EOF
game: $game
seed: 1
network: {architecture: paper-cnn}
search: {algorithm: descent, iters: 20}
learning: {targets: tree}
replay: {kind: stratified, games: 50, duplication: 3, max_rows: 300000, batch_size: 128}
run: {max_lag: 16}
checkpoint: {every_games: 0, every_time: 100h}
evaluation: {at_end: false, first_after: 0s}
EOF
  taskset -c "${LEARNER_CORE:-0}" "$DESCENT" train "$OUT/$game.yaml" --run-dir "$OUT/$game" --broker "$URL" \
    --quiet >"$OUT/$game-learner.log" 2>&1 &
  learner=$!
  PIDS+=("$learner")
  sleep 3
  taskset -c "${SENDER_CORE:-1}" "$DESCENT" worker "$URL" --run "$game" --id real >"$OUT/$game-worker.log" 2>&1 &
  worker=$!
  PIDS+=("$worker")
  sleep "${WORKER_SECONDS:-40}"
  kill -TERM "$worker"
  wait "$worker" || true
  taskset -c "${SENDER_CORE:-1}" "$DESCENT" bench learner "$URL" --run "$game" --senders "${SENDERS:-2}" \
    --seconds "${BENCH_SECONDS:-30}"
  kill -TERM "$learner"
  wait "$learner" || true
done
