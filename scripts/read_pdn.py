#!/usr/bin/env python3
"""Reads a PDN file with the PyPI `pydraughts` library (0.6.7; a reader and rules descent did not
write) and replays each game on the library's own board, each move checked against the library's
legal moves. Prints one JSON line per game: the number of moves, the result tag and the final
position as the library's FEN. Exits 1 naming the game and move the library cannot play.

Used by `tests/cli/game_files.rs` (the PDN written by descent read back) through the Python that
`.ci/run` prepares; `python3 scripts/read_pdn.py FILE`.
"""
import json
import re
import sys

import draughts
from draughts.PDN import PDNReader


def library_move(board, text):
    """The library's legal move written `text` (`32-28`, `28x19`, `28x19x10`), or None."""
    legal = list(board.legal_moves())
    exact = [m for m in legal if m.pdn_move == text]
    if len(exact) == 1:
        return exact[0]
    squares = [int(s) for s in re.split(r"[-x]", text)]
    found = [
        m
        for m in legal
        if m.steps_move[0] == squares[0]
        and m.steps_move[-1] == squares[-1]
        and all(s in m.steps_move for s in squares[1:-1])
    ]
    distinct = {frozenset(m.captures) for m in found}
    return found[0] if len(distinct) == 1 else None


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        reader = PDNReader(pdn_text=f.read())
    for index, game in enumerate(reader.games):
        board = draughts.Board(variant=game.variant)
        for ply, text in enumerate(game.moves):
            move = library_move(board, text)
            if move is None:
                print(f"game {index + 1}, move {ply + 1}: {text!r} is not one legal move", file=sys.stderr)
                sys.exit(1)
            board.push(move)
        print(json.dumps({
            "variant": game.variant,
            "moves": len(game.moves),
            "result": game.game_ending,
            "white": game.tags.get("White"),
            "fen": board.fen,
        }))


if __name__ == "__main__":
    main()
