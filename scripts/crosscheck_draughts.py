#!/usr/bin/env python3
"""Differential check of descent's draughts against the PyPI `pydraughts` library (0.6.7;
docs/games.md): `brazilian` on 8 × 8 and `standard` (international) on 10 × 10.

Plays games with `draughts.Board` — uniformly random, and a biased policy that reaches the rare
rules (it prefers promotions and the moves of kings, so games reach flying-king captures, the
25-move rule and the short endings against a lone king) — and replays each move list with
`descent replay draughts(board_size=N) --ids ... --json`, comparing every position: legal ids and
move texts, the terminal flag, the returns and each side's pieces.

The library gives the moves (majority capture, flying kings, promotion, the no-move loss). Its own
draw rules are not FMJD's, so the draws are computed here, separately from descent's code, by
FMJD article 6 as descent's module doc states it: the third occurrence of a position, 25 moves
each of king moves without a capture, 16 moves each for three pieces with a king against a lone
king and 5 for two or one (counted from when the material arises, restarted by a capture), and
the 1 000-ply cap. Not part of CI; run it through scripts/crosscheck_draughts.sh, e.g.
`scripts/crosscheck_draughts.sh --games 1000`.
"""
import argparse
import random
import sys

import draughts

from replay_compare import replay_mismatch

VARIANTS = {8: "brazilian", 10: "standard"}
MAX_PLIES = 1000


def slots(squares):
    """Captured-set slots per (from, to): 16, or what fits 16 bits."""
    return min(16, 65536 // (squares * squares))


def ours(side, square):
    """descent's square (from 0, top row first) of a square in the library's move numbering: PDN
    order on 10 × 10; on 8 × 8 the library numbers from White's side (1 = a1, 4 = g1, 5 = b2)."""
    if side == 10:
        return square - 1
    from_bottom, in_row = divmod(square - 1, side // 2)
    return (side - 1 - from_bottom) * (side // 2) + in_row


def legal(board, side):
    """The library's legal moves by descent's id: (from, to, captured set, the library's move, how
    many distinct captured sets share that from and to), squares from 0. The library lists a
    capture once per path; moves taking the same pieces between the same squares are one."""
    squares = side * side // 2
    groups = {}
    for move in board.legal_moves():
        steps = move.steps_move
        key = (ours(side, steps[0]), ours(side, steps[-1]))
        captured = frozenset(ours(side, c) for c in move.captures)
        groups.setdefault(key, {})[captured] = move
    k_max = slots(squares)
    by_id = {}
    for (start, end), sets in groups.items():
        for k, captured in enumerate(sorted(sets, key=lambda s: sum(1 << c for c in s))):
            by_id[(start * squares + end) * k_max + k] = (start, end, captured, sets[captured], len(sets))
    return by_id


def text_of(start, end, captured, group_size):
    """The move text descent must show, or None where it writes the landing squares too."""
    if not captured:
        return f"{start + 1}-{end + 1}"
    return f"{start + 1}x{end + 1}" if group_size == 1 else None


def hub(board):
    """The library's Hub FEN: the side to move, then one letter per square (w, b, W, B, e)."""
    return board._game.get_fen()


def side_pieces(board):
    """[(pieces, kings) of White, of Black] and the set of squares holding kings (0-based)."""
    squares = hub(board)[1:]
    counts = [(sum(c in side for c in squares), squares.count(side[1])) for side in ("wW", "bB")]
    kings = {i for i, c in enumerate(squares) if c in "WB"}
    return counts, kings


def position_key(board):
    """The side to move and every square's content."""
    return hub(board)


class FmjdDraws:
    """FMJD's draws (article 6), counted beside the library's board."""

    def __init__(self, board):
        self.seen = {position_key(board): 1}
        self.king_plies = 0
        self.ending = None
        self.ending_plies = 0
        self.plies = 0

    @staticmethod
    def ending_of(white, black):
        """'three' or 'two' for three / at most two pieces with a king against a lone king."""
        for strong, weak in ((white, black), (black, white)):
            if weak == (1, 1) and strong[1] >= 1:
                return {1: "two", 2: "two", 3: "three"}.get(strong[0])
        return None

    def drawn_after(self, board, moved_king, captured):
        """Counts the move just played; whether the position reached is a draw."""
        key = position_key(board)
        self.seen[key] = self.seen.get(key, 0) + 1
        self.plies += 1
        self.king_plies = self.king_plies + 1 if moved_king and not captured else 0
        ending = self.ending_of(*side_pieces(board)[0])
        same = ending is not None and ending == self.ending and not captured
        self.ending_plies = self.ending_plies + 1 if same else 0
        self.ending = ending
        limit = {"three": 32, "two": 10, None: None}[ending]
        return (self.seen[key] >= 3 or self.king_plies >= 50
                or (limit is not None and self.ending_plies >= limit)
                or self.plies >= MAX_PLIES)


def choose(moves, kings, white_to_move, side, rng, style):
    """A random move; the "kings" style prefers promotions, then king moves — games that reach
    kings on both sides and the draws of long king play."""
    if style == "kings" and rng.random() < 0.95:
        half = side // 2
        far = range(0, half) if white_to_move else range(side * half - half, side * half)
        promoting = [i for i, e in moves.items() if e[0] not in kings and e[1] in far]
        king_moves = [i for i, e in moves.items() if e[0] in kings]
        for preferred in (promoting, king_moves):
            if preferred:
                return rng.choice(sorted(preferred))
    return rng.choice(sorted(moves))


def snapshot(moves, drawn, white_to_move, counts):
    by_id = sorted(moves.items())
    over = drawn or not moves
    if not moves:
        returns = [-1.0, 1.0] if white_to_move else [1.0, -1.0]
    else:
        returns = [0.0, 0.0]
    return {
        "legal_ids": [] if over else [i for i, _ in by_id],
        "legal_moves": [] if over else [text_of(e[0], e[1], e[2], e[4]) for _, e in by_id],
        "terminal": over,
        "returns": returns,
        "pieces": [n for n, _ in counts],
    }


def play(rng, style, side):
    board = draughts.Board(variant=VARIANTS[side])
    draws = FmjdDraws(board)
    ids, positions, drawn = [], [], False
    events = {"kings": 0, "ending": 0}
    while True:
        moves = legal(board, side)
        counts, kings = side_pieces(board)
        white_to_move = board.turn == draughts.WHITE
        positions.append(snapshot(moves, drawn, white_to_move, counts))
        events["kings"] += bool(kings)
        events["ending"] += draws.ending is not None
        if positions[-1]["terminal"]:
            return ids, positions, events
        action = choose(moves, kings, white_to_move, side, rng, style)
        start, _, captured, move, _ = moves[action]
        board.push(move)
        ids.append(action)
        drawn = draws.drawn_after(board, start in kings, bool(captured))


def compare(spec, index, ids, expected, descent):
    # Move texts are compared only where the library wrote one.
    def adjust(g, e):
        return dict(g, legal_moves=[t if w is not None else None
                                    for t, w in zip(g["legal_moves"], e["legal_moves"])])
    return replay_mismatch(spec, index, ids, expected, descent, adjust=adjust)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--descent", default="target/release/descent")
    parser.add_argument("--games", type=int, default=300, help="games per board and policy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sizes", default="8,10", help="board sides to check: 8 and/or 10")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failures = 0
    for side in map(int, args.sizes.split(",")):
        spec = f"draughts(board_size={side})"
        for style in ("random", "kings"):
            plies, ends, with_kings, in_ending = 0, {}, 0, 0
            for index in range(args.games):
                ids, expected, events = play(rng, style, side)
                error = compare(spec, index, ids, expected, args.descent)
                if error:
                    print(error)
                    failures += 1
                plies += len(ids)
                with_kings += events["kings"] > 0
                in_ending += events["ending"] > 0
                end = tuple(expected[-1]["returns"])
                ends[end] = ends.get(end, 0) + 1
            print(f"{spec}: {args.games} {style} games, {plies} plies compared with pydraughts "
                  f"{VARIANTS[side]}; returns {dict(sorted(ends.items()))}; games with kings "
                  f"{with_kings}, reaching a short ending {in_ending}", flush=True)
    print(f"{failures} mismatching games")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
