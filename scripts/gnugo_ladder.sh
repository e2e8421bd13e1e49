#!/usr/bin/env bash
# A Go 9 × 9 agent against GNU Go 3.8 (Debian's gnugo) at several levels — a ladder of rungs,
# each GAMES games through `descent gtp-match`, both colours alternating, Chinese rules (area
# scoring, as descent's Go), komi KOMI, every move refereed and scored by a third GNU Go, each
# game kept as SGF. Prints one line a rung — descent's W/D/L, its score with the Wilson 95 %
# interval and the Elo difference from it — and the highest rung where descent scores 50 % or
# more. One core: run it pinned (`taskset -c 1`), nothing else on that core.
#
#   AGENT='ubfms:model=checkpoints/go,time=1s' scripts/gnugo_ladder.sh
#   (LEVELS="1 3 5 8 10" GAMES=20 KOMI=7 OUT=/tmp/gnugo-ladder DESCENT=path/to/descent)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
AGENT=${AGENT:?"AGENT: the agent spec, e.g. ubfms:model=checkpoints/go,time=1s"}
LEVELS=${LEVELS:-"1 3 5 8 10"}
GAMES=${GAMES:-20}
KOMI=${KOMI:-7}
OUT=${OUT:-/tmp/gnugo-ladder}
GNUGO=$(command -v gnugo || echo /usr/games/gnugo)
[ -x "$GNUGO" ] || { echo "GNU Go is not installed (apt-get install gnugo)" >&2; exit 1; }
if [ -z "${DESCENT:-}" ]; then
  (cd "$ROOT" && cargo build --release --quiet --bin descent)
  DESCENT="${CARGO_TARGET_DIR:-$ROOT/target}/release/descent"
fi
mkdir -p "$OUT"
referee="$GNUGO --mode gtp --chinese-rules --positional-superko"
engine="$DESCENT engine --game go(superko=illegal,max_plies=1000) --agent $AGENT --resign-below never"
best=none
for level in $LEVELS; do
  gnugo="$GNUGO --mode gtp --level $level --chinese-rules --positional-superko --capture-all-dead"
  "$DESCENT" gtp-match --black "$engine" --white "$gnugo" --referee "$referee" \
    --games "$GAMES" --size 9 --komi "$KOMI" --rules Chinese --timeout 10m \
    --sgf-dir "$OUT/level-$level" --force > "$OUT/level-$level.txt"
  summary=$(tail -1 "$OUT/level-$level.txt")
  echo "GNU Go level $level: $summary"
  score=$(echo "$summary" | sed -E 's/.*score ([0-9.]+) %.*/\1/')
  if awk -v s="$score" 'BEGIN { exit !(s >= 50) }'; then best=$level; fi
done
echo "agent: $AGENT; $GAMES games a rung, komi $KOMI, Chinese rules; games and SGF in $OUT"
echo "highest rung with a score of 50 % or more: $best"
