#!/usr/bin/env python3
"""descent's AlphaZero against OpenSpiel's (its Python AlphaZero, JAX/flax), on Connect Four.

Two steps, run through scripts/alphazero_vs_openspiel.sh:

  train-openspiel --minutes M --path DIR
      OpenSpiel's alpha_zero trainer for M minutes (one actor, no evaluator process), stopped
      by the clock; its latest checkpoint is DIR/checkpoint--1.
  match --openspiel DIR --descent-model RUN --simulations S --games N
      N games (pairs from the same random 2-ply opening, colours swapped): OpenSpiel's MCTSBot with the AlphaZero evaluator of the
      checkpoint, S simulations a move, against `descent engine` with `puct:model=RUN`, given
      --descent-time seconds a move (default: OpenSpiel's mean measured before the match on
      the first positions of a random game; its inference cache makes its moves faster once
      positions repeat, so the match may then give descent more time: the script says so).
      Prints the result from descent's side with its Wilson 95 % interval and both sides'
      mean time per move in the match.

Not part of CI (minutes to hours).
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.algorithms.alpha_zero import alpha_zero
from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib
from open_spiel.python.algorithms.alpha_zero import utils

from descent_engine import Engine, wilson

GAME = "connect_four"
COLUMNS = "abcdefg"

# OpenSpiel's settings: its example's defaults (uct_c, Dirichlet noise, the resnet model), with
# the sizes fitted to minutes on one CPU core so that it learns within them, and the same
# self-play simulations, opening temperature, window, minibatch, reuse, learning rate and L2 as
# descent's side (configs/alphazero-vs-openspiel-connect_four.yaml).
SETTINGS = dict(
    learning_rate=0.001,
    weight_decay=1e-4,
    decouple_weight_decay=False,
    train_batch_size=128,
    replay_buffer_size=2**12,
    replay_buffer_reuse=3,
    max_steps=0,
    checkpoint_freq=10**9,
    actors=1,
    evaluators=0,
    evaluation_window=100,
    eval_levels=7,
    uct_c=2.0,
    max_simulations=25,
    policy_alpha=1.0,
    policy_epsilon=0.25,
    temperature=1.0,
    temperature_drop=10,
    nn_model="resnet",
    nn_width=64,
    nn_depth=3,
    observation_shape=None,
    output_size=None,
    verbose=False,
    quiet=True,
)


def train_inner(path):
    from open_spiel.python.utils import spawn
    config = alpha_zero.Config(game=GAME, path=path, **SETTINGS)
    with spawn.main_handler():
        alpha_zero.alpha_zero(config)


def train_openspiel(minutes, path):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "stdout.log"), "w") as log:
        proc = subprocess.Popen(
            [sys.executable, __file__, "train-inner", "--path", path],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        start = time.time()
        while time.time() - start < minutes * 60 and proc.poll() is None:
            time.sleep(5)
        if proc.poll() is not None:
            sys.exit(f"OpenSpiel's trainer stopped early (exit {proc.returncode}): see {path}/stdout.log")
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    lines = open(os.path.join(path, "learner.jsonl")).read().splitlines()
    last = json.loads(lines[-1]) if lines else {}
    print(f"OpenSpiel AlphaZero, {minutes} min: {last.get('step', 0)} learning steps, "
          f"{last.get('total_trajectories', 0)} games, {last.get('total_states', 0)} positions")


def load_openspiel_bot(path, simulations, game):
    config = json.load(open(os.path.join(path, "config.json")))
    model = utils.api_selector(config.get("nn_api_version", "nnx")).Model.build_model(
        config["nn_model"], game.observation_tensor_shape(), game.num_distinct_actions(),
        config["nn_width"], config["nn_depth"], config["weight_decay"],
        config["learning_rate"], path)
    # The learner saves checkpoint--1 after every learning step (checkpoint_freq is never
    # reached), checkpoint-0 before the first.
    model.load_checkpoint(-1 if os.path.exists(os.path.join(path, "checkpoint--1")) else 0)
    evaluator = evaluator_lib.AlphaZeroEvaluator(game, model)
    return mcts.MCTSBot(game, config["uct_c"], simulations, evaluator, solve=False,
                        child_selection_fn=mcts.SearchNode.puct_value,
                        dont_return_chance_node=True)


def calibrate(bot, game, seed, positions=12):
    """OpenSpiel's mean time per move over the first positions of a random game (after one
    untimed call: JAX compiles on the first)."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    bot.step(state)
    times = []
    while len(times) < positions and not state.is_terminal():
        start = time.perf_counter()
        bot.step(state)
        times.append(time.perf_counter() - start)
        state.apply_action(rng.choice(state.legal_actions()))
    print(f"calibration: OpenSpiel {1000 * np.mean(times):.0f} ms a move over {len(times)} positions")
    return float(np.mean(times))


def match(args):
    game = pyspiel.load_game(GAME)
    bot = load_openspiel_bot(args.openspiel, args.simulations, game)
    descent_time = args.descent_time or calibrate(bot, game, args.seed)
    their_times, our_times = [], []
    engine = Engine(args.descent, GAME, f"puct:model={args.descent_model},time=1s", args.seed)
    engine.ask(f"set_time {descent_time:.4f}")
    results = {"win": 0, "draw": 0, "loss": 0}
    games_played = set()
    rng = np.random.RandomState(args.seed)
    for g in range(args.games):
        descent_player = g % 2  # descent plays first in even games
        engine.ask("clear_board")
        if g % 2 == 0:  # a pair of games from the same random opening, colours swapped
            opening = []
            state = game.new_initial_state()
            for _ in range(args.random_plies):
                opening.append(int(rng.choice(state.legal_actions())))
                state.apply_action(opening[-1])
        state = game.new_initial_state()
        for ply, action in enumerate(opening):
            state.apply_action(action)
            engine.ask(f"play p{ply % 2} {COLUMNS[action]}")
        while not state.is_terminal():
            if state.current_player() == descent_player:
                start = time.perf_counter()
                move = engine.ask(f"genmove p{descent_player}")
                our_times.append(time.perf_counter() - start)
                state.apply_action(COLUMNS.index(move))
            else:
                start = time.perf_counter()
                action = bot.step(state)
                their_times.append(time.perf_counter() - start)
                state.apply_action(action)
                engine.ask(f"play p{1 - descent_player} {COLUMNS[action]}")
        games_played.add(str(state.history()))
        ours = state.returns()[descent_player]
        results["win" if ours > 0 else "loss" if ours < 0 else "draw"] += 1
        print(f"game {g + 1}: descent as P{descent_player}: {ours:+.0f}  {results}", flush=True)
    engine.close()
    n = args.games
    score = (results["win"] + 0.5 * results["draw"]) / n
    low, high = wilson(results["win"] + 0.5 * results["draw"], n)
    print(f"descent AlphaZero vs OpenSpiel AlphaZero, Connect Four, {n} games: "
          f"{results['win']} wins, {results['draw']} draws, {results['loss']} losses; "
          f"score {100 * score:.1f} % [{100 * low:.1f}, {100 * high:.1f}] (Wilson 95 %)")
    print(f"{len(games_played)} different games of {n}")
    ours_ms, theirs_ms = 1000 * np.mean(our_times), 1000 * np.mean(their_times)
    print(f"time per move: descent {ours_ms:.0f} ms, "
          f"OpenSpiel {theirs_ms:.0f} ms ({args.simulations} simulations)")
    if ours_ms > theirs_ms:
        # OpenSpiel's inference cache makes its moves faster once positions repeat.
        print(f"NOT EQUAL: descent thought longer; run again with --descent-time below "
              f"{theirs_ms / 1000:.3f}")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    inner = sub.add_parser("train-inner")
    inner.add_argument("--path", required=True)
    train = sub.add_parser("train-openspiel")
    train.add_argument("--minutes", type=float, required=True)
    train.add_argument("--path", required=True)
    play = sub.add_parser("match")
    play.add_argument("--openspiel", required=True)
    play.add_argument("--descent", default="target/release/descent")
    play.add_argument("--descent-model", required=True)
    play.add_argument("--simulations", type=int, default=100)
    play.add_argument("--games", type=int, default=20)
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--random-plies", type=int, default=2,
                      help="random opening plies, one opening per pair of games")
    play.add_argument("--descent-time", type=float, default=None,
                      help="descent's seconds a move (default: OpenSpiel's, calibrated)")
    args = parser.parse_args()
    if args.command == "train-inner":
        train_inner(args.path)
    elif args.command == "train-openspiel":
        train_openspiel(args.minutes, args.path)
    else:
        match(args)


if __name__ == "__main__":
    main()
