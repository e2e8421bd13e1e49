#!/usr/bin/env bash
# Gumbel AlphaZero against AlphaZero at equal simulations on Connect Four: for each budget N in
# SIMULATIONS, trains configs/gumbel-connect_four.yaml and configs/alphazero-connect_four.yaml
# with N simulations a self-play move (nothing else changed) for MINUTES each, one after the
# other on the same core, then plays the two networks with their own search at N simulations a
# move, GAMES games from random 4-ply openings, colours alternating. Prints each run's games and
# the match's W/D/L from Gumbel's side; runs and reports go under OUT (a run already there is
# kept as it is: remove one stopped before its end).
#
#   taskset -c 1 scripts/gumbel_vs_alphazero.sh   (SIMULATIONS="4 50", MINUTES=15, GAMES=100,
#                                                  OUT=checkpoints/gumbel-vs-alphazero,
#                                                  DESCENT=path/to/descent to use a built binary)
set -euo pipefail
cd "$(dirname "$0")/.."
SIMULATIONS=${SIMULATIONS:-4 50}
MINUTES=${MINUTES:-15}
GAMES=${GAMES:-100}
OUT=${OUT:-checkpoints/gumbel-vs-alphazero}
if [ -z "${DESCENT:-}" ]; then
  cargo build --release --quiet
  DESCENT=${CARGO_TARGET_DIR:-target}/release/descent
fi
mkdir -p "$OUT"
for n in $SIMULATIONS; do
  for recipe in gumbel alphazero; do
    config="$OUT/$recipe-$n.yaml"
    # The preset with its self-play simulations set to n (the first `simulations:` key) and no
    # evaluation but the early one: periodic ones run on top of the training time (at 4
    # simulations a move, 1 024 games a minute, they would double the wall time) and the one
    # at the end inside it, which would leave each recipe another share of the MINUTES.
    # Neither changes what is learned.
    sed -e "0,/^  simulations: [0-9]*/s//  simulations: $n/" \
      -e "/^evaluation:/,/^[a-z]/s/^  every_games: [0-9]*/  every_games: 0/" \
      -e "/^evaluation:/a\\  at_end: false" \
      "configs/$recipe-connect_four.yaml" > "$config"
    grep -q "^  simulations: $n\b" "$config" || { echo "no simulations key in $config" >&2; exit 1; }
    run="$OUT/$recipe-$n"
    [ -e "$run/latest" ] || "$DESCENT" train "$config" --run-dir "$run" --max-time "${MINUTES}m" --quiet
    games=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['games'])" "$run/latest/state.json")
    echo "$recipe, $n simulations: $games self-play games in $MINUTES minutes"
  done
  "$DESCENT" eval --game connect_four --agent "gumbel:model=$OUT/gumbel-$n,iters=$n" \
    --opponent "puct:model=$OUT/alphazero-$n,iters=$n" --games "$GAMES" --opening-plies 4 \
    --json --quiet > "$OUT/match-$n.json"
  python3 - "$OUT/match-$n.json" "$n" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
low, high = (100 * x for x in s["score_ci95"])
print(f"{sys.argv[2]} simulations, Gumbel against AlphaZero: {s['wins']}/{s['draws']}/{s['losses']}, "
      f"{100 * s['score']:.1f} % [{low:.1f}, {high:.1f}]")
EOF
done
