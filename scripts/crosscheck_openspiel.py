#!/usr/bin/env python3
"""Differential check of descent's rules against OpenSpiel (the reference implementation).

Plays random games with pyspiel (oware, connect_four, tic_tac_toe), replays each move list with
`descent replay <game> --ids ... --json`, and compares every position: legal action ids, the
terminal flag, the returns and, for Awale, the score (P0 minus P1). Not part of CI (it needs the
open_spiel wheel); run it through scripts/crosscheck_openspiel.sh.
"""
import argparse
import json
import random
import subprocess
import sys

import pyspiel

GAMES = {"awale": "oware", "connect_four": "connect_four", "tic_tac_toe": "tic_tac_toe"}


def openspiel_positions(game, rng):
    state = game.new_initial_state()
    positions, ids = [], []
    while True:
        legal = [] if state.is_terminal() else list(state.legal_actions())
        pos = {"legal_ids": legal, "terminal": state.is_terminal(), "returns": list(state.returns())}
        if game.get_type().short_name == "oware":
            obs = state.observation_tensor(0)
            pos["score_p0"] = round(obs[12] * 48) - round(obs[13] * 48)
        positions.append(pos)
        if state.is_terminal():
            return ids, positions
        action = rng.choice(legal)
        ids.append(action)
        state.apply_action(action)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--descent", default="target/release/descent")
    parser.add_argument("--games", type=int, default=300, help="random games per game")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failures = 0
    for ours, theirs in GAMES.items():
        game = pyspiel.load_game(theirs)
        plies = 0
        for index in range(args.games):
            ids, expected = openspiel_positions(game, rng)
            out = subprocess.run(
                [args.descent, "replay", ours, "--ids", ",".join(map(str, ids)), "--json"],
                capture_output=True, text=True,
            )
            if out.returncode != 0:
                print(f"{ours} game {index}: descent refused {ids}: {out.stderr.strip()}")
                failures += 1
                continue
            got = json.loads(out.stdout)["positions"]
            if len(got) != len(expected):
                print(f"{ours} game {index}: {len(got)} positions, OpenSpiel {len(expected)}")
                failures += 1
                continue
            for ply, (g, e) in enumerate(zip(got, expected)):
                mismatch = [k for k in e if g[k] != e[k]]
                if mismatch:
                    print(f"{ours} game {index} ply {ply}: {mismatch}: descent "
                          f"{[g[k] for k in mismatch]} vs OpenSpiel {[e[k] for k in mismatch]}; ids {ids}")
                    failures += 1
                    break
            plies += len(ids)
        print(f"{ours}: {args.games} random games, {plies} plies compared with OpenSpiel {theirs}")
    print(f"{failures} mismatching games")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
