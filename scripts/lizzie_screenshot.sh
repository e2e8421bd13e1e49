#!/usr/bin/env bash
# descent's live analysis in Lizzie (Debian's liblizzie-java), the Go GUI that reads Leela Zero's
# `lz-analyze`: Lizzie runs on a virtual display with descent's engine attached to a 9 × 9 board,
# a few moves are played, analysis is switched on, and the window is saved as a PNG
# (docs/img/lizzie-analysis.png by default); with GTP_LOG=FILE, Lizzie's log of what it sent
# and what descent answered is kept there.
#
#   apt-get install -y liblizzie-java default-jre xvfb openbox xdotool imagemagick
#   scripts/lizzie_screenshot.sh [OUT.png]
#
# DESCENT (default target/release/descent) and AGENT (default the shipped Go network with
# UBFM_s, 1 s a move) choose the engine.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DESCENT=${DESCENT:-$ROOT/target/release/descent}
AGENT=${AGENT:-ubfms:model=$ROOT/networks/go.descent,time=1s}
OUT=$(realpath -m "${1:-$ROOT/docs/img/lizzie-analysis.png}")
JAR=$(ls /usr/share/java/lizzie*.jar 2>/dev/null | head -1)
[ -n "$JAR" ] || { echo "Lizzie not found: apt-get install -y liblizzie-java default-jre" >&2; exit 1; }
[ -x "$DESCENT" ] || { echo "no descent binary at $DESCENT (cargo build --release)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/descent-lizzie.XXXXXX)
cleanup() {
  kill "${LIZZIE:-}" "${WM:-}" "${XVFB:-}" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
export DISPLAY=:${DISPLAY_NUMBER:-87}
Xvfb "$DISPLAY" -screen 0 1280x960x24 >/dev/null 2>&1 &
XVFB=$!
sleep 2
# A window manager, without which Java's windows neither paint nor take the keyboard.
openbox >/dev/null 2>&1 &
WM=$!
sleep 1
cd "$WORK"
# Debian's Lizzie keeps its settings in ~/.config/leela-zero/lizzie-config.txt: a home of its
# own leaves the user's untouched.
export HOME="$WORK"  # and Java reads its home from user.home
CONFIG="$HOME/.config/leela-zero/lizzie-config.txt"

# Lizzie writes its full default settings on a first start (and says that its default engine,
# Leela Zero, is missing); then the engine and the board are set in them.
java -Duser.home="$WORK" -jar "$JAR" >"$WORK/first.log" 2>&1 &
LIZZIE=$!
for _ in $(seq 60); do [ -s "$CONFIG" ] && break; sleep 1; done
sleep 2
kill "$LIZZIE" 2>/dev/null || true
wait "$LIZZIE" 2>/dev/null || true
python3 - "$CONFIG" "$DESCENT" "$AGENT" <<'EOF'
import json, sys
path, descent, agent = sys.argv[1:]
config = json.load(open(path))
# `--override-version` (KataGo's option, descent's too): Lizzie then reads the engine as KataGo,
# asks `kata-analyze` and skips the Leela Zero version check it freezes on.
config["leelaz"]["engine-command"] = (
    f"{descent} engine --game go(superko=illegal) --agent {agent} --override-version 0.17"
)
config["leelaz"]["engine-start-location"] = "."
config["leelaz"]["analyze-update-interval-centisec"] = 50
config["leelaz"]["print-comms"] = True
config["ui"]["board-size"] = 9
config["ui"]["window-maximized"] = True
json.dump(config, open(path, "w"), indent=2)
EOF

# A 9 × 9 opening for Lizzie to open (its one argument: an SGF file); it analyses the last
# position as soon as the engine has answered `name` and `version`.
printf '(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese];B[ee];W[gc];B[cg];W[gg];B[ff])\n' >opening.sgf
java -Duser.home="$WORK" -jar "$JAR" opening.sgf >"$WORK/lizzie.log" 2>&1 &
LIZZIE=$!
window() { { xdotool search --onlyvisible --name "$1" 2>/dev/null || true; } | head -1; }
LZ=""
for _ in $(seq 60); do LZ=$(window Lizzie); [ -n "$LZ" ] && break; sleep 1; done
[ -n "$LZ" ] || { echo "Lizzie's window did not open: $WORK/lizzie.log" >&2; cat "$WORK/lizzie.log" >&2; exit 1; }
sleep 5
# The GTP console aside (its lines are in the log), the board window over the screen, and the
# opening's last position (End) for the analysis.
console=$(window '^Gtp Console$')
[ -z "$console" ] || xdotool windowmove "$console" 1400 0
xdotool windowactivate --sync "$LZ" windowmove "$LZ" 0 0 windowsize "$LZ" 1280 960
sleep 1
xdotool key --clearmodifiers End
sleep "${ANALYSIS_SECONDS:-20}"
mkdir -p "$(dirname "$OUT")"
# The board and the panels beside it, in 128 colours: a page's picture, not a photograph.
import -window "$LZ" "$WORK/window.png"
convert "$WORK/window.png" -crop 1110x900+0+0 +repage -resize 740x -strip -colors 128 "PNG8:$OUT"
[ -z "${GTP_LOG:-}" ] || cp "$WORK/lizzie.log" "$GTP_LOG"
echo "saved $OUT"
