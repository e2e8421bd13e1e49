#!/usr/bin/env python3
"""A descent agent against OpenSpiel's MCTS given RATIO times its time a move.

OpenSpiel's player is its C++ `pyspiel.MCTSBot` (UCT, c = 2, one random rollout a leaf, the
most visited move), its simulations a move calibrated so that its mean time a move is RATIO
times descent's `time=` (measured on random positions of the game before the match, and
measured again over the match: both are printed). descent plays through `descent engine`. The
colours alternate; every game is played to its end under OpenSpiel's rules, which descent's
follow move for move (scripts/crosscheck_openspiel.py). Prints descent's W/D/L, its score with
the Wilson 95 % interval, and each side's mean time a move. Run it through
scripts/vs_openspiel_mcts.sh.
"""
import argparse
import time

import numpy as np
import pyspiel

from descent_engine import Engine, wilson

# descent's game -> OpenSpiel's game and the move text of OpenSpiel's action for descent.
GAMES = {
    "awale": "oware",
    "othello": "othello",
    "breakthrough": "breakthrough",
    "hex": "hex(board_size=11,swap=true)",
}


def descent_text(game, state, action):
    """descent's text of OpenSpiel's `action` in `state` (the same rules, the same ids)."""
    if game == "awale":
        return chr((ord("A") if state.current_player() == 0 else ord("a")) + action)
    return state.action_to_string(state.current_player(), action)


def openspiel_action(game, state, text):
    for action in state.legal_actions():
        if descent_text(game, state, action) == text:
            return action
    raise RuntimeError(f"descent played {text!r}, not a legal move here:\n{state}")


def bot(game, simulations, seed):
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.MCTSBot(game, evaluator, 2.0, simulations, 1000, False, seed, False)


def simulations_per_second(game, seed, positions=20, probe=2000):
    """OpenSpiel's MCTS speed on positions of random games of `game`."""
    rng = np.random.RandomState(seed)
    probe_bot = bot(game, probe, seed)
    spent, searched, state = 0.0, 0, game.new_initial_state()
    while searched < positions:
        if state.is_terminal():
            state = game.new_initial_state()
        start = time.perf_counter()
        probe_bot.step(state)
        spent += time.perf_counter() - start
        searched += 1
        state.apply_action(rng.choice(state.legal_actions()))
    return probe * positions / spent


def play(args, game, openspiel_bot, index):
    """Game `index`: descent is P0 in even games. descent's result (1, 0, -1) and the time each
    side spent, with its moves."""
    descent_player = index % 2
    engine = Engine(args.descent, args.game, args.agent, args.seed + index,
                    extra=("--resign-below", "never"))
    state = game.new_initial_state()
    spent = {"descent": [0.0, 0], "openspiel": [0.0, 0]}
    while not state.is_terminal():
        player = state.current_player()
        start = time.perf_counter()
        if player == descent_player:
            action = openspiel_action(args.game, state, engine.ask(f"genmove p{player}"))
            side = "descent"
        else:
            action = openspiel_bot.step(state)
            side = "openspiel"
            engine.ask(f"play p{player} {descent_text(args.game, state, action)}")
        spent[side][0] += time.perf_counter() - start
        spent[side][1] += 1
        state.apply_action(action)
    engine.close()
    returns = state.returns()
    result = int(np.sign(returns[descent_player] - returns[1 - descent_player]))
    return result, spent


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--descent", required=True, help="the descent binary")
    parser.add_argument("--game", required=True, choices=sorted(GAMES))
    parser.add_argument("--agent", required=True, help="descent's agent, with its time=")
    parser.add_argument("--descent-time", type=float, required=True,
                        help="the agent's time a move in seconds (as its time=)")
    parser.add_argument("--ratio", type=float, default=10.0)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = pyspiel.load_game(GAMES[args.game])
    rate = simulations_per_second(game, args.seed)
    simulations = max(1, round(rate * args.ratio * args.descent_time))
    print(f"OpenSpiel MCTS: {rate:.0f} simulations/s calibrated, {simulations} a move "
          f"(target {1000 * args.ratio * args.descent_time:.0f} ms a move)", flush=True)
    openspiel_bot = bot(game, simulations, args.seed)
    tally = [0, 0, 0]  # descent's wins, draws, losses
    totals = {"descent": [0.0, 0], "openspiel": [0.0, 0]}
    for index in range(args.games):
        result, spent = play(args, game, openspiel_bot, index)
        tally[1 - result] += 1
        for side, (seconds, moves) in spent.items():
            totals[side][0] += seconds
            totals[side][1] += moves
        print(f"game {index + 1}: descent as p{index % 2}: "
              f"{ {1: 'win', 0: 'draw', -1: 'loss'}[result] }", flush=True)
    wins, draws, losses = tally
    games = sum(tally)
    low, high = wilson(wins + 0.5 * draws, games)
    per_move = {side: 1000 * s / max(1, n) for side, (s, n) in totals.items()}
    print(f"{args.agent} against OpenSpiel MCTS ({simulations} simulations a move), {args.game}: "
          f"W/D/L {wins}/{draws}/{losses}, score {100 * (wins + 0.5 * draws) / games:.1f} % "
          f"[{100 * low:.1f}, {100 * high:.1f}] (Wilson 95 %); mean time a move: descent "
          f"{per_move['descent']:.0f} ms, OpenSpiel {per_move['openspiel']:.0f} ms "
          f"({per_move['openspiel'] / max(per_move['descent'], 1e-9):.1f}×)")


if __name__ == "__main__":
    main()
