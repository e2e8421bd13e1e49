#!/usr/bin/env python3
"""Were descent's passes in lost games played in lost positions? GNU Go plays them out.

For each SGF of a `gtp-match` (a `scripts/gnugo_ladder.sh` rung) that descent lost, take the
position just before descent's first pass, let GNU Go (level 10 unless told) play both sides
from there to two passes, and score the end with GNU Go's `final_score` (Chinese rules, the
game's komi). A position GNU Go then wins for descent's side was not lost when descent passed.

    scripts/gnugo_judge_passes.py DIR/level-1 [--gnugo /usr/games/gnugo] [--level 10]

Prints one line a lost game (the pass's move number, the result played out) and a summary.
"""

import argparse
import pathlib
import re
import sys

from descent_engine import Gtp

MOVE = re.compile(r";([BW])\[([a-s]{0,2})\]")
PROPERTY = re.compile(r"\b(PB|PW|RE|KM|SZ)\[([^\]]*)\]")
MAX_PLIES = 400


def read_game(path):
    text = path.read_text()
    properties = dict(PROPERTY.findall(text))
    moves = [(colour, point) for colour, point in MOVE.findall(text)]
    return properties, moves


def descent_colour(properties):
    if properties.get("PB", "").startswith("descent"):
        return "B"
    if properties.get("PW", "").startswith("descent"):
        return "W"
    return None


def is_pass(point, size):
    return point == "" or (point == "tt" and size <= 19)


def first_pass(moves, colour, size):
    """The 1-based number of colour's first pass, or None."""
    for number, (mover, point) in enumerate(moves, start=1):
        if mover == colour and is_pass(point, size):
            return number
    return None


def play_out(gtp, path, move_number):
    """GNU Go plays both sides from before move_number; the result as GTP's final_score."""
    to_move = gtp.ask(f"loadsgf {path} {move_number}")
    colour = "black" if to_move.lower().startswith("b") else "white"
    passes = 0
    for _ in range(MAX_PLIES):
        move = gtp.ask(f"genmove {colour}")
        passes = passes + 1 if move.lower() == "pass" else 0
        if passes == 2 or move.lower() == "resign":
            break
        colour = "white" if colour == "black" else "black"
    return gtp.ask("final_score")


def winner(result):
    return result[0] if result and result[0] in "BW" else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", type=pathlib.Path, help="a folder of a gtp-match's SGF files")
    parser.add_argument("--gnugo", default="/usr/games/gnugo")
    parser.add_argument("--level", type=int, default=10, choices=range(0, 11))
    args = parser.parse_args()
    paths = sorted(args.games.glob("*.sgf"))
    if not paths:
        sys.exit(f"no .sgf files in {args.games}")
    judged = saved = 0
    for path in paths:
        properties, moves = read_game(path)
        colour = descent_colour(properties)
        result = properties.get("RE", "")
        if colour is None or winner(result) in (None, colour):
            continue
        size = int(properties.get("SZ", "19"))
        number = first_pass(moves, colour, size)
        if number is None:
            print(f"{path.name}: lost {result}, descent never passed")
            continue
        komi = properties.get("KM", "7")
        gtp = Gtp([args.gnugo, "--mode", "gtp", "--chinese-rules", "--komi", komi,
                   "--level", str(args.level), "--positional-superko"])
        try:
            played_out = play_out(gtp, path, number)
        finally:
            gtp.close()
        judged += 1
        kept = winner(played_out) == colour
        saved += kept
        verdict = "not lost" if kept else "lost"
        print(f"{path.name}: lost {result}; descent ({colour}) first passed at move {number}; "
              f"GNU Go level {args.level} playing both sides from there: {played_out} ({verdict})")
    print(f"{judged} lost games with a pass judged: {saved} of the passes were in positions "
          f"GNU Go wins for descent's side, {judged - saved} in positions it loses")


if __name__ == "__main__":
    main()
