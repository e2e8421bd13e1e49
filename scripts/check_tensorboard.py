"""Loads a descent run directory with TensorBoard's EventAccumulator and checks that its
scalars are those of metrics.jsonl: every game's loss, plies and games/hour at the game's step,
every evaluation's score, each step once (a resume must not leave a game twice).

    python check_tensorboard.py RUN_DIR
"""
import json
import math
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def main(run):
    accumulator = EventAccumulator(run, size_guidance={"scalars": 0})
    accumulator.Reload()
    tags = accumulator.Tags()["scalars"]
    lines = [json.loads(l) for l in open(f"{run}/metrics.jsonl") if l.strip()]
    games = [l for l in lines if l["kind"] == "game"]
    evaluations = [l for l in lines if l["kind"] == "evaluation"]
    checked = 0

    def compare(tag, expected):
        nonlocal checked
        assert tag in tags, f"{tag} missing; tags: {sorted(tags)}"
        events = accumulator.Scalars(tag)
        steps = [e.step for e in events]
        assert steps == sorted(set(steps)), f"{tag}: steps repeated or out of order: {steps}"
        got = {e.step: e.value for e in events}
        assert set(got) == set(expected), f"{tag}: steps {sorted(got)} != {sorted(expected)}"
        for step, value in expected.items():
            assert math.isclose(got[step], value, rel_tol=1e-6, abs_tol=1e-6), (tag, step, got[step], value)
            checked += 1

    compare("learn/loss", {g["game"]: g["loss"] for g in games if g["loss"] is not None})
    compare("selfplay/plies", {g["game"]: g["plies"] for g in games})
    compare("selfplay/games_per_hour", {g["game"]: g["games_per_hour"] for g in games})
    compare("actors/lag", {g["game"]: g["lag"] for g in games})
    for opponent in {e["opponent"] for e in evaluations}:
        mine = [e for e in evaluations if e["opponent"] == opponent]
        compare(f"eval/{opponent}/score", {e["game"]: e["win_minus_loss"] for e in mine})
        compare(f"eval/{opponent}/score_high", {e["game"]: e["win_minus_loss"] + e["ci95"] for e in mine})
    print(f"tensorboard reads {len(tags)} scalar tags; {checked} values equal metrics.jsonl "
          f"({len(games)} games, {len(evaluations)} evaluations, each step once)")


if __name__ == "__main__":
    main(sys.argv[1])
