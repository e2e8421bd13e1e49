#!/usr/bin/env bash
# Trains GAME for 20 minutes (TRAIN_TIME) with configs/GAME.yaml, then plays the trained network (UBFM_s)
# against UCT with random playouts at equal time per move, and against the untrained network at
# equal time, GAMES games each, both sides (THREADS games at once). Prints both reports and the
# run's time split; JSON copies go to the run directory.
#
#   scripts/train_20min.sh GAME [RUN_DIR]   (CONFIG=other.yaml, TRAIN_TIME=20m, TIME=50ms, GAMES=100, THREADS=1,
#                                            SPEC=game(params) when the config has parameters,
#                                            DESCENT=path/to/descent to use a built binary,
#                                            UNTRAINED_VS_UCT=1 to also play the untrained net
#                                            against UCT, TRAINED_VS_UNTRAINED=0 to skip that match)
set -euo pipefail
cd "$(dirname "$0")/.."
GAME=${1:?usage: scripts/train_20min.sh GAME [RUN_DIR]}
RUN=${2:-checkpoints/$GAME-20min}
CONFIG=${CONFIG:-configs/$GAME.yaml}
TIME=${TIME:-50ms}
GAMES=${GAMES:-100}
THREADS=${THREADS:-1}
if [ -z "${DESCENT:-}" ]; then
  cargo build --release --quiet
  DESCENT=${CARGO_TARGET_DIR:-target}/release/descent
fi
if [ ! -e "$RUN/latest" ]; then
  "$DESCENT" train "$CONFIG" --run-dir "$RUN" --max-time "${TRAIN_TIME:-20m}" --quiet
fi
SPEC=${SPEC:-$GAME}   # the game spec the config names, when it has parameters
match() { # name agent opponent
  "$DESCENT" eval --game "$SPEC" --agent "$2" --opponent "$3" --games "$GAMES" \
    --threads "$THREADS" --json --quiet > "$RUN/eval-$1.json"
}
match trained-vs-uct "ubfms:model=$RUN,time=$TIME" "mcts:time=$TIME"
names="trained-vs-uct"
if [ "${TRAINED_VS_UNTRAINED:-1}" = 1 ]; then
  match trained-vs-untrained "ubfms:model=$RUN,time=$TIME" "ubfms:model=untrained,time=$TIME"
  names="$names trained-vs-untrained"
fi
if [ "${UNTRAINED_VS_UCT:-0}" = 1 ]; then
  match untrained-vs-uct "ubfms:model=untrained,time=$TIME" "mcts:time=$TIME"
  names="$names untrained-vs-uct"
fi
for name in $names; do
  python3 - "$RUN/eval-$name.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
print(f'{sys.argv[2]:>20} ({r["agent"]} vs {r["opponent"]}): W/D/L {s["wins"]}/{s["draws"]}/{s["losses"]} '
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
