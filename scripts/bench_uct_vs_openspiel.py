#!/usr/bin/env python3
"""Simulations per second of descent's UCT against OpenSpiel's C++ MCTSBot on Awale (oware).

Both search the initial position with random-playout leaves and the same number of simulations
per search, repeated; the script prints both rates and their ratio. OpenSpiel: pyspiel.MCTSBot
with a RandomRolloutEvaluator (1 rollout), uct_c = 1.4. descent: `descent bench search awale
--algo mcts --iterations N --repeat R --json`. Not part of CI; run it through
scripts/bench_uct_vs_openspiel.sh.
"""
import argparse
import json
import subprocess
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as py_mcts  # noqa: F401  (checks the install)


def openspiel_rate(simulations, searches, seed):
    game = pyspiel.load_game("oware")
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(game, evaluator, 1.4, simulations, 4000, False, seed, False)
    state = game.new_initial_state()
    bot.step(state)  # warm-up
    start = time.perf_counter()
    for _ in range(searches):
        bot.step(state)
    seconds = time.perf_counter() - start
    return simulations * searches / seconds, seconds


def descent_rate(binary, simulations, searches, seed):
    out = subprocess.run(
        [binary, "bench", "search", "awale", "--algo", "mcts", "--iterations", str(simulations),
         "--repeat", str(searches), "--seed", str(seed), "--json"],
        check=True, capture_output=True, text=True,
    )
    report = json.loads(out.stdout)
    assert report["iterations"] == simulations * searches
    return report["iterations_per_s"], report["seconds"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--descent", default="target/release/descent")
    parser.add_argument("--simulations", type=int, default=10000)
    parser.add_argument("--searches", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    np.random.seed(args.seed)
    ours, our_s = descent_rate(args.descent, args.simulations, args.searches, args.seed)
    theirs, their_s = openspiel_rate(args.simulations, args.searches, args.seed)
    print(f"Awale UCT, {args.searches} searches x {args.simulations} simulations from the start, 1 thread")
    print(f"  descent   : {ours:12.0f} simulations/s ({our_s:.2f} s)")
    print(f"  OpenSpiel : {theirs:12.0f} simulations/s ({their_s:.2f} s)")
    print(f"  ratio     : {ours / theirs:.1f}x")


if __name__ == "__main__":
    main()
