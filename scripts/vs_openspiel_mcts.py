#!/usr/bin/env python3
"""A descent agent against OpenSpiel's MCTS given RATIO times its time a move, or a fixed
number of simulations a move.

OpenSpiel's player is its C++ `pyspiel.MCTSBot` (UCT, c = 2, one random rollout a leaf, the
most visited move). With --openspiel-simulations N it plays N simulations every move: one fixed
opponent for a sweep over descent's time (`descent gain`). Otherwise it has no time limit, so
its simulations a move are set so that its mean time a move is RATIO times descent's `time=`:
before the match, measured at the chosen count on positions drawn from every stage of random
games (twice, the second at the first's estimate); during the match, rescaled after each game
by the target over OpenSpiel's mean time a move in that game (at most ×1.25 or ÷1.25 a game). descent plays through `descent engine`. The colours
alternate; every game is played to its end under OpenSpiel's rules, which descent's follow move
for move (scripts/crosscheck_openspiel.py). Prints descent's W/D/L, its score with the Wilson
95 % interval, the simulation counts used and each side's mean time a move; each game's line
holds its moves in descent's text (`descent replay` reads them back). Run it through
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


def calibration_positions(game, seed, count=24):
    """`count` positions drawn from every stage of random games of `game` (an early ply has the
    longest rollouts, a late one the shortest)."""
    rng = np.random.RandomState(seed)
    positions = []
    while len(positions) < count:
        state, states = game.new_initial_state(), []
        while not state.is_terminal():
            states.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
        positions.append(states[rng.randint(len(states))])
    return positions


def seconds_a_move(game, positions, simulations, seed):
    """OpenSpiel's MCTS's mean time a move at `simulations` a move on `positions`."""
    probe_bot = bot(game, simulations, seed)
    start = time.perf_counter()
    for state in positions:
        probe_bot.step(state)
    return (time.perf_counter() - start) / len(positions)


def calibrated_simulations(game, target_seconds, seed):
    """Simulations a move for a mean of `target_seconds` a move: a probe at 1 000, then a
    second measure at the first estimate (a larger tree costs more per simulation)."""
    positions = calibration_positions(game, seed)
    simulations = 1000
    for _ in range(2):
        rate = simulations / seconds_a_move(game, positions, simulations, seed)
        simulations = max(1, round(rate * target_seconds))
    return simulations


def rescaled(simulations, target_seconds, spent_seconds, moves):
    """The next game's simulations: the count scaled by the target over the mean time a move
    of the game just played, by at most 1.25 either way."""
    if moves == 0:
        return simulations
    factor = min(1.25, max(0.8, target_seconds * moves / spent_seconds))
    return max(1, round(simulations * factor))


def play(args, game, openspiel_bot, index):
    """Game `index`: descent is P0 in even games. descent's result (1, 0, -1), the time each
    side spent with its number of moves, and the game's moves in descent's text."""
    descent_player = index % 2
    engine = Engine(args.descent, args.game, args.agent, args.seed + index,
                    extra=("--resign-below", "never"))
    state = game.new_initial_state()
    spent = {"descent": [0.0, 0], "openspiel": [0.0, 0]}
    moves = []
    while not state.is_terminal():
        player = state.current_player()
        start = time.perf_counter()
        if player == descent_player:
            text = engine.ask(f"genmove p{player}")
            action = openspiel_action(args.game, state, text)
            side = "descent"
        else:
            action = openspiel_bot.step(state)
            text = descent_text(args.game, state, action)
            engine.ask(f"play p{player} {text}")
            side = "openspiel"
        spent[side][0] += time.perf_counter() - start
        spent[side][1] += 1
        moves.append(text)
        state.apply_action(action)
    engine.close()
    returns = state.returns()
    result = int(np.sign(returns[descent_player] - returns[1 - descent_player]))
    return result, spent, moves


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--descent", required=True, help="the descent binary")
    parser.add_argument("--game", required=True, choices=sorted(GAMES))
    parser.add_argument("--agent", required=True, help="descent's agent, with its time=")
    parser.add_argument("--descent-time", type=float, required=True,
                        help="the agent's time a move in seconds (as its time=)")
    strength = parser.add_mutually_exclusive_group()
    strength.add_argument("--ratio", type=float, default=10.0,
                          help="OpenSpiel's mean time a move over descent's (default 10)")
    strength.add_argument("--openspiel-simulations", type=int, metavar="N",
                          help="a fixed OpenSpiel player instead: N simulations every move, "
                          "the same opponent whatever descent's time and the machine's speed")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.openspiel_simulations is not None and args.openspiel_simulations < 1:
        parser.error(f"--openspiel-simulations {args.openspiel_simulations}: expected 1 or more")
    game = pyspiel.load_game(GAMES[args.game])
    target = args.ratio * args.descent_time
    if args.openspiel_simulations is None:
        simulations = calibrated_simulations(game, target, args.seed)
        print(f"OpenSpiel MCTS: {simulations} simulations a move calibrated "
              f"(target {1000 * target:.0f} ms a move)", flush=True)
    else:
        simulations = args.openspiel_simulations
        print(f"OpenSpiel MCTS: {simulations} simulations a move, fixed", flush=True)
    used = []
    tally = [0, 0, 0]  # descent's wins, draws, losses
    totals = {"descent": [0.0, 0], "openspiel": [0.0, 0]}
    for index in range(args.games):
        used.append(simulations)
        openspiel_bot = bot(game, simulations, args.seed + index)
        result, spent, game_moves = play(args, game, openspiel_bot, index)
        tally[1 - result] += 1
        for side, (seconds, moves) in spent.items():
            totals[side][0] += seconds
            totals[side][1] += moves
        print(f"game {index + 1}: descent as p{index % 2}, OpenSpiel {simulations} simulations "
              f"a move: { {1: 'win', 0: 'draw', -1: 'loss'}[result] }; "
              f"moves: {' '.join(game_moves)}", flush=True)
        if args.openspiel_simulations is None:
            simulations = rescaled(simulations, target, *spent["openspiel"])
    wins, draws, losses = tally
    games = sum(tally)
    low, high = wilson(wins + 0.5 * draws, games)
    per_move = {side: 1000 * s / max(1, n) for side, (s, n) in totals.items()}
    print(f"{args.agent} against OpenSpiel MCTS ({min(used)} to {max(used)} simulations a move, "
          f"mean {round(sum(used) / len(used))}), {args.game}: "
          f"W/D/L {wins}/{draws}/{losses}, score {100 * (wins + 0.5 * draws) / games:.1f} % "
          f"[{100 * low:.1f}, {100 * high:.1f}] (Wilson 95 %); mean time a move: descent "
          f"{per_move['descent']:.0f} ms, OpenSpiel {per_move['openspiel']:.0f} ms "
          f"({per_move['openspiel'] / max(per_move['descent'], 1e-9):.1f}×)")


if __name__ == "__main__":
    main()
