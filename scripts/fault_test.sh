#!/usr/bin/env bash
# Faults across hosts: a distributed Connect Four run (`train --broker`, `descent worker`) in
# three network namespaces — Redis and the learner in one, a worker in each of two others, each
# worker behind its own veth link — taken through the faults of docs/distributed.md's fault
# table. After each fault the workers are paused (SIGSTOP) until the learner has read and
# learned everything sent, and the run's own files are checked: every game Redis accepted
# (the stream's entries-added) is learned, dropped or refused exactly once (games lost = sent −
# accounted; learned twice = a game number twice in metrics.jsonl), and the time from the end of
# the fault to the first new game learned from the faulted side is measured.
#
#   sudo scripts/fault_test.sh [DESCENT_BINARY]     (default: target/release/descent)
#
# Needs root (namespaces), iproute2 and redis-server. Traffic stays inside the namespaces and
# their veth links; every wait is bounded. Exit status: 0 all checks held, 1 a check failed,
# 77 the namespaces cannot be made here (a skip; tests/training/fault_script.rs fails it under CI).
# Environment: FAULT_OUT (directory for logs, the run and the table; default a temporary one),
# FAULT_SCALE (seconds of the link cut and the black hole: default "30 120", the table's).
set -uo pipefail

DESCENT=$(realpath "${1:-target/release/descent}")
OUT=${FAULT_OUT:-$(mktemp -d /tmp/descent-faults.XXXXXX)}
read -r CUT_SECONDS HOLE_SECONDS <<<"${FAULT_SCALE:-30 120}"
mkdir -p "$OUT"
rm -f "$OUT/failures"
TAG=df$$ # namespace and link names: unique to this process, at most 15 characters
HUB=$TAG-hub
PORT=6390
URL_LOCAL=redis://127.0.0.1:$PORT
declare -A NS=([w1]=$TAG-w1 [w2]=$TAG-w2)
declare -A HUB_IP=([w1]=10.88.1.1 [w2]=10.88.2.1)
declare -A WORKER_IP=([w1]=10.88.1.2 [w2]=10.88.2.2)
declare -A LINK=([w1]=${TAG}a [w2]=${TAG}b)
declare -A PID=()
ROWS=()

skip() {
  echo "fault_test: SKIPPED: $*" >&2
  exit 77
}
# Failures go to a file: the checks run in subshells too ($(…), < <(…)).
fail() {
  echo "fault_test: FAILED: $*" | tee -a "$OUT/failures" >&2
}
log() { echo "[$(date +%T)] $*" >&2; }

[ -x "$DESCENT" ] || { echo "fault_test: no descent binary at $DESCENT" >&2; exit 2; }
[ "$(id -u)" = 0 ] || skip "network namespaces need root"
command -v ip >/dev/null || skip "no ip (Debian's iproute2)"
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || skip "no redis-server"
ip netns add "$HUB" 2>/dev/null || skip "cannot make a network namespace here (ip netns add)"

cleanup() {
  for ns in "$HUB" "${NS[@]}"; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -CONT "$p"; kill -KILL "$p"; done
  done 2>/dev/null
  wait 2>/dev/null
  for ns in "$HUB" "${NS[@]}"; do ip netns del "$ns" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
rcli() { in_ns "$HUB" timeout 5 redis-cli -p $PORT "$@" 2>/dev/null; }

# --- The hosts: the hub (Redis, the learner) and two workers, one veth link each.
in_ns "$HUB" ip link set lo up
for w in w1 w2; do
  ip netns add "${NS[$w]}"
  ip link add "${LINK[$w]}h" type veth peer name "${LINK[$w]}w"
  ip link set "${LINK[$w]}h" netns "$HUB"
  ip link set "${LINK[$w]}w" netns "${NS[$w]}"
  in_ns "$HUB" ip addr add "${HUB_IP[$w]}/24" dev "${LINK[$w]}h"
  in_ns "$HUB" ip link set "${LINK[$w]}h" up
  in_ns "${NS[$w]}" ip addr add "${WORKER_IP[$w]}/24" dev "${LINK[$w]}w"
  in_ns "${NS[$w]}" ip link set "${LINK[$w]}w" up
  in_ns "${NS[$w]}" ip link set lo up
done

# Processes in the background are started by `ip netns exec` itself, which becomes the command
# (exec), so that $! is the process the faults signal.

# --- Redis with its append-only file synced on every write (docs/distributed.md).
mkdir -p "$OUT/redis"
start_redis() {
  ip netns exec "$HUB" redis-server --port $PORT --bind 0.0.0.0 --protected-mode no \
    --appendonly yes --appendfsync always --save '' --dir "$OUT/redis" \
    >>"$OUT/redis.log" 2>&1 &
  PID[redis]=$!
  wait_for 10 redis_up >/dev/null || fail "redis-server did not start"
}
redis_up() { [ "$(rcli ping)" = PONG ]; }

# Waits up to $1 seconds for the command after it to succeed; prints the seconds it took.
wait_for() {
  local limit=$1 start now
  shift
  start=$(date +%s.%N)
  while ! "$@"; do
    now=$(date +%s.%N)
    if (($(echo "$now - $start > $limit" | bc))); then return 1; fi
    sleep 0.1
  done
  now=$(date +%s.%N)
  printf '%.1f\n' "$(echo "$now - $start" | bc)"
}

# --- The run: Connect Four, a small network, games to learn for as long as the faults last.
cat >"$OUT/c4.yaml" <<EOF
game: connect_four
seed: 5
network: {architecture: resnet-b0c8-fc16}
search: {iters: 8}
run: {max_games: 10000000, max_lag: 64}
checkpoint: {every_games: 40}
evaluation: {at_end: false}
EOF
start_learner() {
  ip netns exec "$HUB" "$DESCENT" train "$@" --broker $URL_LOCAL --quiet >>"$OUT/learner.log" 2>&1 &
  PID[learner]=$!
}
start_worker() {
  local w=$1
  ip netns exec "${NS[$w]}" "$DESCENT" worker "redis://${HUB_IP[$w]}:$PORT" --id "$w" \
    >>"$OUT/$w.log" 2>&1 &
  PID[$w]=$!
}

# Lines of a kind in the run's metrics.jsonl.
of_kind() {
  local n
  n=$(grep -c "\"kind\":\"$1\"" "$OUT/run/metrics.jsonl" 2>/dev/null)
  echo "${n:-0}"
}
learned() { of_kind game; }
# A worker's games sent, from its heartbeat (-1 while it has none).
worker_games() {
  local beat
  beat=$(rcli get "descent:run:worker:$1")
  [[ $beat =~ \"games\":([0-9]+) ]] && echo "${BASH_REMATCH[1]}" || echo -1
}
more_games_from() { (($(worker_games "$1") > $2)); }
learned_more_than() { (($(learned) > $1)); }

# Pauses the workers until the learner has learned all they sent, then checks the books.
# Prints "lost twice" for the table.
check_books() {
  local what=$1 sent unread pending accounted lost twice
  for w in w1 w2; do kill -STOP "${PID[$w]}" 2>/dev/null; done
  # Every entry delivered to the learner (the group's lag: entries are acknowledged and deleted
  # only once a checkpoint holds them) and every game it read learned or dropped.
  drained() {
    [ "$(rcli xinfo groups descent:run:games | sed -n '/^lag$/{n;p}')" = 0 ] &&
      [ "$(rcli get descent:run:read_not_learned)" -eq 0 ] 2>/dev/null
  }
  wait_for 60 drained >/dev/null || fail "$what: the learner did not drain the stream in 60 s"
  sleep 1 # the learner's lines of its last games reach metrics.jsonl
  sent=$(rcli xinfo stream descent:run:games | sed -n '/^entries-added$/{n;p}')
  accounted=$(($(learned) + $(of_kind dropped) + $(of_kind rejected)))
  lost=$((sent - accounted))
  twice=$(grep -E '"kind":"(game|dropped)"' "$OUT/run/metrics.jsonl" |
    grep -o '"index":[0-9]*' | sort | uniq -d | wc -l)
  [ "$lost" = 0 ] || fail "$what: $sent games sent, $accounted learned, dropped or refused"
  [ "$twice" = 0 ] || fail "$what: $twice game(s) learned twice"
  grep '"kind":"rejected"' "$OUT/run/metrics.jsonl" | grep -v 'learned already' | head -3 |
    while read -r line; do fail "$what: a record refused for another reason than a repeat: $line"; done
  for w in w1 w2; do kill -CONT "${PID[$w]}" 2>/dev/null; done
  echo "$lost $twice"
}

# Appends a row to the fault table.
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 |"); log "$1: $2 (lost $3, twice $4, recovered in $5 s)"; }
recovery() {
  local seconds
  seconds=$(wait_for 60 "$@") || { fail "no recovery within 60 s: $*"; echo "> 60"; return; }
  (($(echo "$seconds < 10" | bc))) || fail "recovery took $seconds s: $*"
  echo "$seconds"
}

# --- Start, and let the run reach its first checkpoint.
start_redis
start_learner "$OUT/c4.yaml" --run-dir "$OUT/run"
start_worker w1
start_worker w2
wait_for 120 learned_more_than 60 >/dev/null || { fail "the run did not start"; exit 1; }
read -r lost twice < <(check_books start)
row "none (the run started)" "$(learned) games learned" "$lost" "$twice" "-"

# 1. A worker SIGKILLed mid-game, restarted a second later.
kill -KILL "${PID[w1]}"; wait "${PID[w1]}" 2>/dev/null; sleep 1
start_worker w1
seconds=$(recovery more_games_from w1 0)
read -r lost twice < <(check_books "worker killed")
row "worker SIGKILLed mid-game, restarted" "its game in progress abandoned; the other worker went on" "$lost" "$twice" "$seconds"

# 2. Redis stopped (SIGTERM) and restarted; 3. Redis killed (SIGKILL) and restarted.
for signal in TERM KILL; do
  kill -$signal "${PID[redis]}"; wait "${PID[redis]}" 2>/dev/null; sleep 2
  # Counted once Redis is back (its heartbeats as last written): what follows needs Redis.
  before=$(learned)
  start_redis
  declare -A sent_before=([w1]=$(worker_games w1) [w2]=$(worker_games w2))
  both_back() {
    learned_more_than "$before" && more_games_from w1 "${sent_before[w1]}" &&
      more_games_from w2 "${sent_before[w2]}"
  }
  seconds=$(recovery both_back)
  read -r lost twice < <(check_books "redis $signal")
  row "redis-server sent SIG$signal, restarted 2 s later (AOF, fsync always)" \
    "learner and workers retried, reconnected" "$lost" "$twice" "$seconds"
done

# 4. One worker's link cut for CUT_SECONDS.
games=$(worker_games w1)
in_ns "$HUB" ip link set "${LINK[w1]}h" down
sleep "$CUT_SECONDS"
in_ns "$HUB" ip link set "${LINK[w1]}h" up
seconds=$(recovery more_games_from w1 "$games")
read -r lost twice < <(check_books "link cut")
row "one worker's link cut for $CUT_SECONDS s" "the worker retried; the other went on" "$lost" "$twice" "$seconds"

# 5. One worker's open connection black-holed for HOLE_SECONDS: the hub drops every packet to
# it, the connection stays open (no reset), commands reach Redis and their replies never return.
games=$(worker_games w1)
in_ns "$HUB" ip route add blackhole "${WORKER_IP[w1]}/32"
sleep "$HOLE_SECONDS"
in_ns "$HUB" ip route del blackhole "${WORKER_IP[w1]}/32"
seconds=$(recovery more_games_from w1 "$games")
read -r lost twice < <(check_books "black hole")
row "one worker's connection black-holed for $HOLE_SECONDS s" "its commands timed out (10 s), it reconnected; a game sent twice is refused as a repeat" "$lost" "$twice" "$seconds"

# 6. A worker sent SIGTERM: it stops gracefully (exit 143, a summary), restarted.
kill -TERM "${PID[w2]}"
wait_for 30 sh -c "! kill -0 ${PID[w2]} 2>/dev/null" >/dev/null || fail "worker ignored SIGTERM for 30 s"
wait "${PID[w2]}"; status=$?
[ "$status" = 143 ] || fail "a worker stopped by SIGTERM exited $status, not 143"
grep -q '^worker w2' "$OUT/w2.log" || fail "no summary from the worker stopped by SIGTERM"
start_worker w2
seconds=$(recovery more_games_from w2 0)
read -r lost twice < <(check_books "worker SIGTERM")
row "a worker sent SIGTERM, restarted" "it stopped gracefully, exit $status, with its summary" "$lost" "$twice" "$seconds"

# 7. The learner SIGKILLed and resumed.
before=$(learned)
kill -KILL "${PID[learner]}"; wait "${PID[learner]}" 2>/dev/null; sleep 1
start_learner --resume "$OUT/run"
seconds=$(recovery learned_more_than "$before")
read -r lost twice < <(check_books "learner killed")
row "the learner SIGKILLed, resumed" "it relearned from its checkpoint the games read after it" "$lost" "$twice" "$seconds"

# 8. A second learner of the run started every 2 s for 20 s while the first learns.
before=$(learned)
refused=0
for attempt in $(seq 10); do
  second=$OUT/second-$attempt
  mkdir -p "$second"
  if in_ns "$HUB" timeout 30 "$DESCENT" train "$OUT/c4.yaml" --run-dir "$second/run" \
    --broker $URL_LOCAL --quiet >"$second.log" 2>&1; then
    fail "a second learner started on the live run ($second.log)"
  elif grep -q 'another learner is live' "$second.log"; then
    refused=$((refused + 1))
  fi
  sleep 2
done
[ "$refused" = 10 ] || fail "second learners refused $refused times of 10"
learned_more_than "$before" || fail "the first learner stopped learning"
read -r lost twice < <(check_books "second learners")
row "a second learner started every 2 s for 20 s" "refused $refused of 10 times, naming the live learner; the first went on" "$lost" "$twice" "-"

# --- The end: workers stopped, the learner stopped by SIGTERM (a checkpoint, exit 143).
for w in w1 w2; do kill -TERM "${PID[$w]}"; wait "${PID[$w]}" 2>/dev/null; done
read -r lost twice < <(check_books end)
kill -TERM "${PID[learner]}"; wait "${PID[learner]}"; status=$?
[ "$status" = 143 ] || fail "the learner stopped by SIGTERM exited $status"
games=$(grep -o '"games": *[0-9]*' "$OUT/run/latest/state.json" | head -1 | grep -o '[0-9]*$')
[ "$games" = "$(learned)" ] || fail "the checkpoint holds $games games, metrics.jsonl $(learned)"
row "the end: workers and learner sent SIGTERM" "$(learned) games learned, $(of_kind rejected) repeats refused; checkpoint holds them all" "$lost" "$twice" "-"

{
  echo "| fault | what the run did | games lost | learned twice | recovered in (s) |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
} | tee "$OUT/table"
log "logs, the run and the table in $OUT"
[ ! -s "$OUT/failures" ]
