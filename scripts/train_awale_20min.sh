#!/usr/bin/env bash
# Trains Awale for 20 minutes with configs/awale.yaml, then plays the trained network (UBFM_s)
# and, for comparison, an untrained one against UCT with random playouts at equal time per
# move, 100 games each, both sides, one after the other. Prints both reports; JSON copies go to
# the run directory.
#
#   scripts/train_awale_20min.sh [RUN_DIR]   (CONFIG=other.yaml, TIME=50ms, GAMES=100 to change)
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${1:-checkpoints/awale-20min}
CONFIG=${CONFIG:-configs/awale.yaml}
TIME=${TIME:-50ms}
GAMES=${GAMES:-100}
cargo build --release --quiet
DESCENT=${CARGO_TARGET_DIR:-target}/release/descent
if [ ! -e "$RUN/latest" ]; then
  "$DESCENT" train "$CONFIG" --run-dir "$RUN" --max-time 20m --quiet
fi
for model in "$RUN" untrained; do
  name=$([ "$model" = untrained ] && echo untrained || echo trained)
  "$DESCENT" eval --game awale --agent "ubfms:model=$model,time=$TIME" \
    --opponent "mcts:time=$TIME" --games "$GAMES" --json --quiet > "$RUN/eval-$name-vs-uct.json"
done
for name in trained untrained; do
  python3 - "$RUN/eval-$name-vs-uct.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
print(f'{sys.argv[2]:>9} net vs UCT ({r["opponent"]}): W/D/L {s["wins"]}/{s["draws"]}/{s["losses"]} '
      f'(as P0 {r["as_p0"]}, as P1 {r["as_p1"]}), score {100*s["score"]:.1f} %, '
      f'win-loss {s["win_minus_loss"]:+.2f} ± {s["win_minus_loss_ci95"]:.2f}, '
      f'Elo {s["elo"]:+.0f} [{s["elo_ci95"][0]:+.0f}, {s["elo_ci95"][1]:+.0f}], p(equal) {s["p_value_equal"]:.2g}')
PY
done
# Time split of self-play (network vs the rest of the search) and learning, over the run.
python3 - "$RUN/metrics.jsonl" <<'PY'
import json, sys
games = [json.loads(l) for l in open(sys.argv[1])]
games = [g for g in games if g["kind"] == "game"]
play = sum(g["game_seconds"] for g in games); net = sum(g["net_seconds"] for g in games)
learn = sum(g["learn_seconds"] for g in games); total = play + learn
print(f'{len(games)} games, {sum(g["pairs_added"] for g in games)} pairs; time split: network '
      f'{100*net/total:.0f} %, search without network {100*(play-net)/total:.0f} %, '
      f'learning {100*learn/total:.0f} %')
PY
