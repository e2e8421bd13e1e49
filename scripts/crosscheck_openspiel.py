#!/usr/bin/env python3
"""Differential check of descent's rules against OpenSpiel (the reference implementation).

For each game, plays games with pyspiel under two move policies — uniformly random, and a biased
one that reaches the rare rules (it takes a swap when one is legal half of the time, and
otherwise, 70 % of the time, the move leaving the opponent the fewest legal moves: passes in
Othello, early wins and long captures sequences elsewhere) — replays each move list with
`descent replay <game> --ids ... --json`, and compares every position: legal action ids, the
terminal flag, the returns, the pieces of each player (counted on OpenSpiel's printed board),
the score where the game has one, and for the games whose notation follows OpenSpiel's, the move
texts. Not part of CI (it needs the open_spiel wheel); run it through
scripts/crosscheck_openspiel.sh, e.g. `scripts/crosscheck_openspiel.sh --games 1000 --only hex`.
"""
import argparse
import random
import sys
from dataclasses import dataclass

import pyspiel

from replay_compare import replay_mismatch


def oware_score(state):
    obs = state.observation_tensor(0)
    return round(obs[12] * 48) - round(obs[13] * 48)


@dataclass
class Spec:
    openspiel: str
    # Board symbols of P0 and P1 in OpenSpiel's printed board (None: not compared).
    symbols: tuple = None
    # OpenSpiel's score P0 minus P1 from a state (None: the game has none).
    score: object = None
    # Whether descent's move texts are OpenSpiel's action strings.
    texts: bool = False
    # The first moves allowed, out of OpenSpiel's (None: all): an opening rule OpenSpiel lacks.
    first_moves: object = None
    # Whether the swap is P1 playing on P0's first cell (Havannah) rather than a "swap" action.
    swap_on_first_cell: bool = False


def outer_band(action):
    """Outer-Open Gomoku's opening rule: the two outer lines of the 15 × 15 board."""
    row, col = divmod(action, 15)
    return min(row, col, 14 - row, 14 - col) <= 1


def disc_difference(state):
    p0, p1 = board_pieces(state, ("x", "o"))
    return p0 - p1


LOA_OPENSPIEL = ("lines_of_action(simultaneous=mover,no_move=loses,repetition=second_board,"
                 "draw_first=true)")

GAMES = {
    "awale": Spec("oware", score=oware_score),
    "connect_four": Spec("connect_four", symbols=("x", "o")),
    "tic_tac_toe": Spec("tic_tac_toe", symbols=("x", "o")),
    "breakthrough": Spec("breakthrough", symbols=("b", "w"), texts=True),
    "othello": Spec("othello", symbols=("x", "o"), score=disc_difference, texts=True),
    "clobber": Spec("clobber(rows=10,columns=10)", symbols=("o", "x"), texts=True),
    "clobber(rows=8,columns=8)": Spec("clobber(rows=8,columns=8)", symbols=("o", "x"), texts=True),
    "clobber(rows=5,columns=6)": Spec("clobber(rows=5,columns=6)", symbols=("o", "x"), texts=True),
    "hex": Spec("hex(board_size=11,swap=true)", symbols=("x", "o"), texts=True),
    "hex(board_size=13)": Spec("hex(board_size=13,swap=true)", symbols=("x", "o"), texts=True),
    "gomoku": Spec("gomoku", symbols=("b", "w"), texts=True, first_moves=outer_band),
    "gomoku(outer_open=false)": Spec("gomoku", symbols=("b", "w"), texts=True),
    # OpenSpiel's four rule deviations from the Olympiad's (see src/games/lines_of_action.rs).
    LOA_OPENSPIEL: Spec("lines_of_action", symbols=("x", "o"), texts=True),
    "amazons": Spec("amazons", symbols=("X", "O"), texts=True),
    # OpenSpiel writes "B e5"; descent's text is "e5".
    "go": Spec("go(board_size=9,komi=7.5)", symbols=("X", "O")),
    "go(board_size=11)": Spec("go(board_size=11,komi=7.5)", symbols=("X", "O")),
    "havannah": Spec("havannah(board_size=8,swap=true)", symbols=("O", "@"), texts=True,
                     swap_on_first_cell=True),
    "havannah(board_size=10)": Spec("havannah(board_size=10,swap=true)", symbols=("O", "@"),
                                    texts=True, swap_on_first_cell=True),
}


def board_pieces(state, symbols):
    """Counts each player's symbol on the board lines of OpenSpiel's printed state (lines that
    start with a row number, or hold only cells), row labels stripped."""
    counts = [0, 0]
    for line in str(state).splitlines():
        body = line.strip().lstrip("0123456789")
        only_cells = set(body) <= set(".-#+ ").union(symbols) and body
        if not (line.strip()[:1].isdigit() or only_cells):
            continue
        for player, symbol in enumerate(symbols):
            counts[player] += body.count(symbol)
    return counts


def opponent_mobility(state, action):
    child = state.child(action)
    return 0 if child.is_terminal() else len(child.legal_actions())


def is_swap(spec, state, ids, action):
    if spec.swap_on_first_cell:
        return len(ids) == 1 and action == ids[0]
    return state.action_to_string(state.current_player(), action) == "swap"


def choose(spec, state, ids, legal, rng, biased):
    if not biased:
        return rng.choice(legal)
    swaps = [a for a in legal if is_swap(spec, state, ids, a)]
    if swaps and rng.random() < 0.5:
        return swaps[0]
    if rng.random() < 0.7:
        scored = [(opponent_mobility(state, a), rng.random(), a) for a in legal]
        return min(scored)[2]
    return rng.choice(legal)


# Rare moves chosen in the games of the current game and policy (passes, swaps).
EVENTS = {}


def openspiel_positions(spec, game, rng, biased):
    state = game.new_initial_state()
    positions, ids = [], []
    while True:
        legal = [] if state.is_terminal() else list(state.legal_actions())
        if spec.first_moves and not ids:
            legal = [a for a in legal if spec.first_moves(a)]
        pos = {"legal_ids": legal, "terminal": state.is_terminal(), "returns": list(state.returns())}
        if spec.symbols:
            pos["pieces"] = board_pieces(state, spec.symbols)
        if spec.score:
            pos["score_p0"] = spec.score(state)
        if spec.texts and legal:
            pos["legal_moves"] = [state.action_to_string(state.current_player(), a) for a in legal]
        positions.append(pos)
        if state.is_terminal():
            return ids, positions
        action = choose(spec, state, ids, legal, rng, biased)
        text = state.action_to_string(state.current_player(), action).lower()
        if is_swap(spec, state, ids, action):
            text = "swap"
        for event in ("pass", "swap"):
            if text.endswith(event):
                EVENTS[event] = EVENTS.get(event, 0) + 1
        ids.append(action)
        state.apply_action(action)


# Amazons: descent plays a whole turn (move + arrow) as one action, OpenSpiel as three plies
# (amazon, destination, arrow cell). Directions N, NE, E, SE, S, SW, W, NW; N = towards row 0.
AMAZON_DIRECTIONS = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]


def amazon_step(a, b):
    """(direction, distance) of the queen line from cell a to cell b of the 10 × 10 board."""
    (ra, ca), (rb, cb) = divmod(a, 10), divmod(b, 10)
    distance = max(abs(rb - ra), abs(cb - ca))
    step = ((rb - ra) // distance, (cb - ca) // distance)
    return AMAZON_DIRECTIONS.index(step), distance


def amazons_turn_id(state, triple):
    """descent's id of the turn (from, to, arrow): (rank·72 + move)·72 + arrow, the rank being the
    amazon's among the mover's in cell order (read from OpenSpiel's board)."""
    symbol = "X" if state.current_player() == 0 else "O"
    cells = "".join(line.strip() for line in str(state).splitlines()[:10])
    queens = [i for i, c in enumerate(cells) if c == symbol]
    from_, to, arrow = triple
    (d1, n1), (d2, n2) = amazon_step(from_, to), amazon_step(to, arrow)
    return (queens.index(from_) * 72 + d1 * 9 + n1 - 1) * 72 + d2 * 9 + n2 - 1


def amazons_square(cell):
    row, col = divmod(cell, 10)
    return f"{chr(ord('a') + col)}{10 - row}"


def amazons_turns(state):
    """Every whole turn of the player to move, as OpenSpiel's three sub-actions."""
    turns = []
    for a in state.legal_actions():
        s1 = state.child(a)
        for b in s1.legal_actions():
            s2 = s1.child(b)
            turns.extend((a, b, c) for c in s2.legal_actions())
    return turns


def amazons_positions(spec, game, rng, biased):
    """Like openspiel_positions, one position per whole turn. The biased policy shoots next to
    an enemy amazon when it can (games that end by blocked amazons sooner)."""
    state = game.new_initial_state()
    positions, ids = [], []
    while True:
        turns = [] if state.is_terminal() else amazons_turns(state)
        by_id = sorted((amazons_turn_id(state, t), t) for t in turns)
        positions.append({
            "legal_ids": [i for i, _ in by_id],
            "legal_moves": [f"{amazons_square(f)}-{amazons_square(t)}/{amazons_square(a)}"
                            for _, (f, t, a) in by_id],
            "terminal": state.is_terminal(),
            "returns": list(state.returns()),
            "pieces": board_pieces(state, spec.symbols),
        })
        if state.is_terminal():
            return ids, positions
        choice = rng.choice(by_id)
        if biased and rng.random() < 0.7:
            enemy = "O" if state.current_player() == 0 else "X"
            cells = "".join(line.strip() for line in str(state).splitlines()[:10])
            near = [(i, t) for i, t in by_id if any(
                0 <= t[2] // 10 + dr < 10 and 0 <= t[2] % 10 + dc < 10
                and cells[t[2] + 10 * dr + dc] == enemy for dr, dc in AMAZON_DIRECTIONS)]
            choice = rng.choice(near) if near else choice
        ids.append(choice[0])
        for sub_action in choice[1]:
            state.apply_action(sub_action)


def compare(ours, index, ids, expected, descent):
    """Replays `ids` in descent; returns an error message or None."""
    return replay_mismatch(ours, index, ids, expected, descent, "OpenSpiel")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--descent", default="target/release/descent")
    parser.add_argument("--games", type=int, default=300, help="games per game and policy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", help="descent game specs to check (default: all)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failures = 0
    for ours, spec in GAMES.items():
        if args.only and ours not in args.only:
            continue
        game = pyspiel.load_game(spec.openspiel)
        for biased in (False, True):
            plies, ends = 0, {}
            EVENTS.clear()
            for index in range(args.games):
                play = amazons_positions if ours == "amazons" else openspiel_positions
                ids, expected = play(spec, game, rng, biased)
                error = compare(ours, index, ids, expected, args.descent)
                if error:
                    print(error)
                    failures += 1
                plies += len(ids)
                result = tuple(expected[-1]["returns"])
                ends[result] = ends.get(result, 0) + 1
            policy = "biased" if biased else "random"
            print(f"{ours}: {args.games} {policy} games, {plies} plies compared with OpenSpiel "
                  f"{spec.openspiel}; returns {dict(sorted(ends.items()))}; moves chosen {EVENTS}",
                  flush=True)
    print(f"{failures} mismatching games")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
