#!/usr/bin/env bash
# The strength-against-time sweep of a network card (networks/GAME.md, "What the network adds"):
# `descent gain` of the shipped network's agent and the same search without the network at
# several times a move, against one fixed outside player — OpenSpiel's MCTS at the simulations
# a move of the card's 10 × anchor (its mean in the card's match), or GNU Go level 10 for Go.
# Stopped (Ctrl-C, SIGTERM, a lost session), the same command continues the sweep: the times
# and sides measured are kept in OUT/GAME/gain.json. One core: run it pinned, nothing else there.
#
#   taskset -c 1 scripts/card_gain_sweeps.sh othello     (awale, breakthrough, hex, go)
#   (GAMES=40 OUT=~/descent-runs/card-gain DESCENT=path/to/descent)
#
# Each side's match costs roughly GAMES × (OpenSpiel's 1 s or so + descent's time) × the moves
# a side plays: about 40 minutes a side at 25-100 ms, an hour at 400 ms, on the 2-core VM of
# docs/benchmarks.md; a card's three times are four to five hours of one core.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
GAME=${1:?"the card's game: othello, awale, breakthrough, hex or go"}
GAMES=${GAMES:-40}
OUT=${OUT:-$HOME/descent-runs/card-gain}
if [ -z "${DESCENT:-}" ]; then
  (cd "$ROOT" && cargo build --release --quiet --bin descent)
  DESCENT="${CARGO_TARGET_DIR:-$ROOT/target}/release/descent"
fi
DESCENT=$(cd "$(dirname "$DESCENT")" && pwd)/$(basename "$DESCENT")
export DESCENT
OUT=$(mkdir -p "$OUT" && cd "$OUT" && pwd)
cd "$ROOT" # the commands below are relative to it: a sweep continues from another clone
openspiel() { # $1: OpenSpiel's fixed simulations a move
  echo "scripts/vs_openspiel_mcts.sh --game $GAME --agent {agent} --descent-time {seconds}" \
    "--games {games} --seed {seed} --openspiel-simulations $1"
}
case "$GAME" in
  # Simulations: the means OpenSpiel played in each card's 10 × match (networks/GAME.md).
  othello) agent=ubfms; times=25ms,100ms,400ms; command=$(openspiel 11000) ;;
  awale) agent=puct; times=25ms,100ms,400ms; command=$(openspiel 26000) ;;
  breakthrough) agent=ubfms; times=25ms,100ms,400ms; command=$(openspiel 34000) ;;
  hex) agent=ubfms; times=25ms,100ms,400ms; command=$(openspiel 23000) ;;
  go)
    agent=exit; times=250ms,1s,4s
    command="AGENT={agent} LEVELS=10 GAMES={games} OUT=$OUT/go/gnugo-{time}-{side}"
    command="$command scripts/gnugo_ladder.sh"
    ;;
  *) echo "$GAME: no card sweep (othello, awale, breakthrough, hex, go)" >&2; exit 2 ;;
esac
exec "$DESCENT" gain --game "$GAME" --agent "$agent:model=shipped,time=100ms" --times "$times" \
  --games "$GAMES" --against-command "$command" --out "$OUT/$GAME"
