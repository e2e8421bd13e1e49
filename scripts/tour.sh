#!/usr/bin/env bash
# Runs the README's tour as written — the commands of its first ```sh block after the heading
# "## A … tour" — in a fresh directory, and prints each step's wall time and the total, so the
# README's times can be checked on the reference machine. `descent play` gets one `quit`;
# `descent serve` is started, asked for its page, and stopped; the Awale run gets a Ctrl-C
# after a minute (TOUR_CTRL_C_AFTER seconds) and the next step resumes it.
#
#   scripts/tour.sh [--list]        (--list prints the steps without running them)
#   (DESCENT=path/to/descent to use a built binary; the work directory is kept and printed)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# The tour's commands, continuation lines joined, comments cut.
steps() {
  awk '/^## A .*tour/ { in_tour = 1; next }
       in_tour && /^```sh/ { in_block = 1; next }
       in_block && /^```/ { exit }
       in_block { print }' "$ROOT/README.md" |
    sed -e 's/[[:space:]]*#.*$//' | sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*/ /; ta' |
    grep -v '^[[:space:]]*$'
}
if [ "${1:-}" = "--list" ]; then
  steps
  exit 0
fi
if [ -z "${DESCENT:-}" ]; then
  (cd "$ROOT" && cargo build --release --quiet --bin descent)
  DESCENT="${CARGO_TARGET_DIR:-$ROOT/target}/release/descent"
fi
WORK=$(mktemp -d /tmp/descent-tour.XXXXXX)
cp -r "$ROOT/configs" "$WORK/"
cd "$WORK"
echo "tour in $WORK with $DESCENT on $(nproc) cores"
total=0
while IFS= read -r line; do
  command=${line/#descent /}
  start=$(date +%s)
  case "$command" in
    play\ *) echo quit | "$DESCENT" $command > step.log 2>&1 ;;
    serve*)
      PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
      "$DESCENT" $command --port "$PORT" > step.log 2>&1 &
      server=$!
      for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/" > /dev/null && break; sleep 0.2; done
      curl -sf "http://127.0.0.1:$PORT/" > /dev/null
      kill -INT "$server"
      wait "$server" || true
      ;;
    # The step that says "Ctrl-C any time" gets one after a minute, as a user trying it would;
    # the next step resumes the run to its end.
    "train configs/awale.yaml"*)
      "$DESCENT" $command > step.log 2>&1 < /dev/null &
      trainer=$!
      sleep "${TOUR_CTRL_C_AFTER:-60}"
      kill -INT "$trainer" 2> /dev/null || true
      wait "$trainer" || [ $? -eq 130 ]   # 130: stopped by Ctrl-C, its work kept
      ;;
    *) "$DESCENT" $command > step.log 2>&1 < /dev/null ;;
  esac || { echo "FAILED: $line"; tail -20 step.log; exit 1; }
  seconds=$(($(date +%s) - start))
  total=$((total + seconds))
  printf '%5d s  %s\n' "$seconds" "$line"
done < <(steps)
printf '%5d s  in all (%d min)\n' "$total" $((total / 60))
