#!/usr/bin/env python3
"""Differential check of descent's Arimaa against `pyrimaa.board` (PyPI `aei` 1.4, the Arimaa
Engine Interface's reference board; docs/games.md).

The library generates the steps of a turn (`Position.get_steps()`: own steps, pushes, pulls, the
completion of a push) and plays them (`do_step`: traps, the end of a turn after four steps); it
decides goals and elimination (`is_goal`, `is_rabbit_loss`). What it leaves to the game
controller is written here, separately from descent: a turn must change the board; a position may
not occur a third time at a turn start (since the last capture); a step is legal only if the turn
can still be ended legally after it; a player without a legal turn loses; `max_turns` turns draw.
The setup is descent's (E, M, H, H, D, D, C, C placed on chosen home squares, then the rabbits).

Plays games under four policies — uniformly random; `tactical`, preferring pushes, pulls and
steps onto traps; `shuffle`, stepping pieces back and forth within a turn and ending turns
early, so that null turns come up; `repeat`, one-step turns undoing the side's previous one, so
that positions recur until the third occurrence is refused — then replays each id list with `descent replay arimaa --ids
... --json` and compares every position: legal ids, terminal flag, returns, pieces and score.
Not part of CI; run it through scripts/crosscheck_arimaa.sh, e.g.
`scripts/crosscheck_arimaa.sh --games 700`.
"""
import argparse
import random
import sys
from collections import Counter

from pyrimaa import board as ab

from replay_compare import replay_mismatch

END = 320
SETUP_ORDER = [5, 4, 3, 3, 2, 2, 1, 1]  # E M H H D D C C as descent's kinds (R = 0 ... E = 5)
VALUES = [6, 1, 2, 3, 4, 5]
HOME = [range(0, 16), range(48, 64)]
DIRECTION = {8: 0, 1: 1, -8: 2, -1: 3}


def step_id(step):
    start, end = step
    return 64 + 4 * start + DIRECTION[end - start]


def piece_code(color, kind):
    """pyrimaa's piece code of descent's (colour, kind)."""
    return kind + 1 + (ab.Piece.COLOR if color else 0)


def count(bitboards, color):
    return sum(bin(bitboards[piece_code(color, kind)]).count("1") for kind in range(6))


def material(bitboards, color):
    return sum(VALUES[k] * bin(bitboards[piece_code(color, k)]).count("1") for k in range(6))


class Game:
    def __init__(self, max_turns):
        self.max_turns = max_turns
        self.boards = [0] * 15
        self.boards[0] = ab.ALL_BITS
        self.boards[7] = self.boards[8] = None
        self.placed = 0
        self.position = None
        self.history = Counter()
        self.turns = 0
        self.result = None  # +1 Gold won, -1 Silver, 0 draw
        self.events = Counter()
        self.last_step = [None, None]  # each side's step id of its last one-step turn

    # --- setup -------------------------------------------------------------------------------
    def setup_mover(self):
        return 0 if self.placed < 8 else 1

    def place(self, square):
        color = self.setup_mover()
        bit = 1 << square
        self.boards[piece_code(color, SETUP_ORDER[self.placed % 8])] |= bit
        self.boards[0] &= ~bit
        self.placed += 1
        if self.placed % 8 == 0:
            for s in HOME[color]:
                if self.boards[0] & (1 << s):
                    self.boards[piece_code(color, 0)] |= 1 << s
                    self.boards[0] &= ~(1 << s)
        if self.placed == 16:
            self.position = ab.Position(ab.Color.GOLD, 4, self.boards)
            self.start_turn()

    # --- turns -------------------------------------------------------------------------------
    def start_turn(self):
        self.start = self.position.bitBoards
        self.mover = self.position.color
        self.history[(self.start, self.mover)] += 1

    def ends_ok(self, bitboards):
        return bitboards != self.start and self.history[(bitboards, self.mover ^ 1)] < 2

    def completable(self, position):
        """Whether a turn in progress can still end legally."""
        if position.color != self.mover:  # the fourth step ended the turn
            return self.ends_ok(position.bitBoards)
        if not position.inpush and self.ends_ok(position.bitBoards):
            return True
        return any(self.completable(q) for _, q in position.get_steps())

    def legal(self):
        """Legal ids and what each leads to (a position, or None for the end of the turn)."""
        if self.result is not None:
            return {}
        if self.position is None:
            color = self.setup_mover()
            return {s: None for s in HOME[color] if self.boards[0] & (1 << s)}
        moves = {}
        taken = 4 - self.position.stepsLeft
        for step, after in self.position.get_steps():
            if self.completable(after):
                moves[step_id(step)] = after
            else:
                self.events["step refused (the turn could not end)"] += 1
        if taken > 0 and not self.position.inpush:
            if self.ends_ok(self.position.bitBoards):
                moves[END] = None
            elif self.position.bitBoards != self.start:
                self.events["end refused (third repetition)"] += 1
        return moves

    def play(self, action, after):
        if self.position is None:
            self.place(action)
            return
        before = self.position
        if action == END:
            after = ab.Position(before.color ^ 1, 4, before.bitBoards, placement=before.placement)
        elif not before.placement[before.color] & (1 << ((action - 64) // 4)):
            self.events["enemy steps (push or pull)"] += 1
        pieces_before = [count(before.bitBoards, c) for c in (0, 1)]
        if [count(after.bitBoards, c) for c in (0, 1)] != pieces_before:
            self.events["captures"] += 1
            self.history.clear()
        self.position = after
        if after.color != self.mover:
            self.end_turn()

    def end_turn(self):
        mover = self.mover
        self.turns += 1
        self.start_turn()
        end = self.position.is_goal() or self.position.is_rabbit_loss()
        if end:
            self.result = end
            self.events["goal" if self.position.is_goal() else "no rabbits"] += 1
        elif not any(self.completable(q) for _, q in self.position.get_steps()):
            self.result = 1 if mover == 0 else -1
            self.events["immobilised"] += 1
            if self.position.get_steps():
                self.events["immobilised with steps left"] += 1
        elif self.turns >= self.max_turns:
            self.result = 0
            self.events["turn limit"] += 1

    def snapshot(self, moves):
        bitboards = self.position.bitBoards if self.position else tuple(self.boards)
        score = material(bitboards, 0) - material(bitboards, 1)
        if self.result:
            score += 69 * self.result
        return {
            "legal_ids": sorted(moves),
            "terminal": self.result is not None,
            "returns": [float(self.result or 0), -float(self.result or 0)],
            "pieces": [count(bitboards, 0), count(bitboards, 1)],
            "score_p0": score,
        }


def choose(game, moves, rng, style):
    ids = sorted(moves)
    position = game.position
    if position is not None and style == "tactical" and rng.random() < 0.8:
        own = position.placement[position.color]
        enemy = [a for a in ids if a != END and not own & (1 << ((a - 64) // 4))]
        traps = [a for a in ids if a != END and moves[a] is not None
                 and count(moves[a].bitBoards, 0) + count(moves[a].bitBoards, 1)
                 < count(position.bitBoards, 0) + count(position.bitBoards, 1)]
        for preferred in (traps, enemy):
            if preferred:
                return rng.choice(preferred)
    if position is not None and style == "repeat":
        # One-step turns undoing the side's previous one: positions recur until the third
        # occurrence is refused.
        if position.stepsLeft < 4:
            if END in moves and rng.random() < 0.9:
                return END
        else:
            back = game.last_step[position.color]
            if back in moves and rng.random() < 0.9:
                return back
            steps = [a for a in ids if a != END]
            return rng.choice(steps)
    if position is not None and style == "shuffle":
        if END in moves and rng.random() < 0.5:
            return END
        back = [a for a in ids if a != END and moves[a] is not None
                and moves[a].bitBoards == game.start]
        if back and rng.random() < 0.8:
            return rng.choice(back)
    return rng.choice(ids)


def play(rng, style, max_turns):
    game = Game(max_turns)
    ids, positions = [], []
    while True:
        moves = game.legal()
        positions.append(game.snapshot(moves))
        if not moves:
            return ids, positions, game.events
        action = choose(game, moves, rng, style)
        ids.append(action)
        if game.position is not None and game.position.stepsLeft == 4 and action != END:
            start, direction = divmod(action - 64, 4)
            end = start + [8, 1, -8, -1][direction]
            game.last_step[game.position.color] = 64 + 4 * end + (direction + 2) % 4
        game.play(action, moves[action])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--descent", default="target/release/descent")
    parser.add_argument("--games", type=int, default=100, help="games per policy")
    parser.add_argument("--max-turns", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    spec = f"arimaa(max_turns={args.max_turns})"
    rng = random.Random(args.seed)
    failures = 0
    for style in ("random", "tactical", "shuffle", "repeat"):
        plies, ends, events = 0, Counter(), Counter()
        for index in range(args.games):
            ids, expected, game_events = play(rng, style, args.max_turns)
            error = replay_mismatch(spec, index, ids, expected, args.descent, "pyrimaa",
                                    show_board=True)
            if error:
                print(error)
                failures += 1
            plies += len(ids)
            events.update(game_events)
            ends[tuple(expected[-1]["returns"])] += 1
        print(f"arimaa: {args.games} {style} games, {plies} plies compared with pyrimaa; "
              f"returns {dict(sorted(ends.items()))}; {dict(sorted(events.items()))}", flush=True)
    print(f"{failures} mismatching games")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
