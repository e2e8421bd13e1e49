#!/usr/bin/env bash
# Trains Awale for 20 minutes with configs/awale.yaml, then plays the trained network (UBFM_s)
# and, for comparison, an untrained one against UCT with random playouts at equal time per
# move, 100 games each, both sides, one after the other. Prints both reports and the run's time
# split; JSON copies go to the run directory (eval-trained-vs-uct.json,
# eval-untrained-vs-uct.json). The README's Awale table comes from it.
#
#   scripts/train_awale_20min.sh [RUN_DIR]   (CONFIG=other.yaml, TIME=50ms, GAMES=100 to change)
set -euo pipefail
UNTRAINED_VS_UCT=1 TRAINED_VS_UNTRAINED=0 exec "$(dirname "$0")/train_20min.sh" awale "$@"
