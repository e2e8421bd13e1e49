#!/usr/bin/env bash
# The README's pictures of `descent serve` (docs/img/serve-*.png): serves RUNS, then has
# headless Chromium photograph a run's page, a game against its network, one of its self-play
# games in the viewer (docs/img/viewer-GAME.png: the board, the numbered move list), and the
# drawn boards of Go, Hex, Awale, Connect Four, Shobu, draughts, Othello and Arimaa a few moves
# into a game against MCTS (docs/img/board-*.png).
#
#   scripts/screenshots.sh RUNS_DIR RUN GAME "MOVES" [N]  e.g. checkpoints awale awale "C,d,A" 3
#   scripts/screenshots.sh --boards                       the boards only
#   (DESCENT=path/to/descent to use a built binary)
set -euo pipefail
cd "$(dirname "$0")/.."
BOARDS_ONLY=false
if [ "${1:-}" = "--boards" ]; then
  BOARDS_ONLY=true
  RUNS=$(mktemp -d)
else
  RUNS=$1 RUN=$2 GAME=$3 MOVES=${4:-} VIEWED=${5:-1}
fi
if [ -z "${DESCENT:-}" ]; then
  cargo build --release --quiet --bin descent
  DESCENT="${CARGO_TARGET_DIR:-target}/release/descent"
fi
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$DESCENT" serve --runs "$RUNS" --port "$PORT" > /dev/null &
SERVER=$!
trap 'kill $SERVER' EXIT
sleep 1
shoot() { # file url
  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,1000 \
    --virtual-time-budget=8000 --screenshot="$1" "$2" 2> /dev/null
}
mkdir -p docs/img
if [ "$BOARDS_ONLY" = false ]; then
  MODEL=$(cd "$RUNS/$RUN" && pwd)
  shoot docs/img/serve-run.png "http://127.0.0.1:$PORT/#/run/$RUN"
  shoot docs/img/serve-play.png \
    "http://127.0.0.1:$PORT/#/play?game=$GAME&agent=ubfms:model=$MODEL,time=200ms&side=p0&moves=$MOVES"
  shoot "docs/img/viewer-$GAME.png" "http://127.0.0.1:$PORT/#/run/$RUN/game/$VIEWED"
fi
# The person to move in each (an even number of moves: p0), so the page waits for a click.
board() { # game moves [file name]
  shoot "docs/img/board-${3:-$1}.png" \
    "http://127.0.0.1:$PORT/#/play?game=$1&agent=mcts:iters=300&side=p0&moves=$2"
}
board go "e5,c3,d7,g4,f3,c6"
board hex "f6,e7,d8,g5"
board awale "F,a,B,e"
board connect_four "d,c,d,e"
board shobu "0a1:1a1:N1,2d4:3d4:S1"
board draughts "32-28,19-23"
board othello "d3,c3"
board "arimaa(setup=false)" "Ee2n,Ee3n,Md2n,end,ed7s,me7s,end,Ee4n" arimaa
ls -l docs/img/serve-*.png docs/img/board-*.png
