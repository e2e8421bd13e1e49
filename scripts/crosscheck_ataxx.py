#!/usr/bin/env python3
"""Differential check of descent's Ataxx against the PyPI `ataxx` library (2.2.0, the UAI
engines' rules library; docs/games.md).

Plays games with `ataxx.Board` under two move policies — uniformly random, and a biased one that
reaches the rare rules: in half of its games it prefers doubles (jumps never reset the 50-move
clock, so those games end by the 50-move draw), in the other half it takes the move leaving the
opponent the fewest pieces (games that end by a wipe-out or with passes) — then replays each move
list with `descent replay ataxx --ids ... --json` and compares every position: legal ids and move
texts, the terminal flag, the returns, each side's pieces and the score. Not part of CI; run it
through scripts/crosscheck_ataxx.sh, e.g. `scripts/crosscheck_ataxx.sh --games 1000`.
"""
import argparse
import random
import sys

import ataxx

from replay_compare import replay_mismatch

JUMPS = [(-2, -2), (-2, -1), (-2, 0), (-2, 1), (-2, 2), (-1, -2), (-1, 2), (0, -2), (0, 2),
         (1, -2), (1, 2), (2, -2), (2, -1), (2, 0), (2, 1), (2, 2)]
PASS = 49 + 16 * 49


def square(text):
    """descent's cell of a square `b2`: row = rank − 1, column = file."""
    return (int(text[1]) - 1) * 7 + ord(text[0]) - ord("a")


def move_id(move):
    """descent's action id of a library move (`b2`, `a1c3`, `0000`)."""
    text = str(move)
    if text == "0000":
        return PASS
    if len(text) == 2:
        return square(text)
    start, end = square(text[:2]), square(text[2:])
    step = (end // 7 - start // 7, end % 7 - start % 7)
    return 49 + start * 16 + JUMPS.index(step)


RESULTS = {"1-0": [1.0, -1.0], "0-1": [-1.0, 1.0], "1/2-1/2": [0.0, 0.0], "*": [0.0, 0.0]}


def snapshot(board):
    moves = [] if board.gameover() else board.legal_moves()
    by_id = sorted((move_id(m), str(m)) for m in moves)
    black, white = board.num_black(), board.num_white()
    return {
        "legal_ids": [i for i, _ in by_id],
        "legal_moves": [t for _, t in by_id],
        "terminal": board.gameover(),
        "returns": RESULTS[board.result()],
        "pieces": [black, white],
        "score_p0": black - white,
    }, moves


def pieces_after(board, move):
    board.makemove(move)
    them = board.num_black() if board.turn == ataxx.BLACK else board.num_white()
    board.undo()
    return them


def choose(board, moves, rng, style):
    if style == "doubles":
        doubles = [m for m in moves if str(m) != "0000" and len(str(m)) == 4]
        if doubles and rng.random() < 0.9:
            return rng.choice(doubles)
    if style == "greedy" and rng.random() < 0.7:
        return min(moves, key=lambda m: (pieces_after(board, m), rng.random()))
    return rng.choice(moves)


def play(rng, style):
    board = ataxx.Board()
    ids, positions = [], []
    events = {"pass": 0}
    while True:
        position, moves = snapshot(board)
        positions.append(position)
        if position["terminal"]:
            return ids, positions, events
        move = choose(board, moves, rng, style)
        if str(move) == "0000":
            events["pass"] += 1
        ids.append(move_id(move))
        board.makemove(move)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--descent", default="target/release/descent")
    parser.add_argument("--games", type=int, default=300, help="games per policy")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failures = 0
    for policy in ("random", "biased"):
        plies, ends, passes = 0, {}, 0
        for index in range(args.games):
            style = "random" if policy == "random" else ("doubles" if index % 2 else "greedy")
            ids, expected, events = play(rng, style)
            error = replay_mismatch("ataxx", index, ids, expected, args.descent)
            if error:
                print(error)
                failures += 1
            plies += len(ids)
            passes += events["pass"]
            last = expected[-1]
            end = tuple(last["returns"])
            ends[end] = ends.get(end, 0) + 1
        print(f"ataxx: {args.games} {policy} games, {plies} plies compared with the library; "
              f"returns {dict(sorted(ends.items()))}; passes played {passes}", flush=True)
    print(f"{failures} mismatching games")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
