"""`descent engine` driven from Python, and the Wilson interval, for the scripts that match
descent against OpenSpiel's players (alphazero_vs_openspiel.py, vs_openspiel_mcts.py) and
GNU Go (gnugo_judge_passes.py)."""
import math
import subprocess


class Gtp:
    """A program speaking GTP (or its form) on its standard input and output: `args` started."""

    def __init__(self, args):
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, command):
        """Sends `command`; its reply's payload, or an error for a `?` reply."""
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if line in ("\n", ""):
                break
            lines.append(line.rstrip("\n"))
        reply = "\n".join(lines)
        if not reply.startswith("="):
            raise RuntimeError(f"{command!r}: {reply!r}")
        return reply[1:].strip()

    def close(self):
        self.ask("quit")
        self.proc.wait()


class Engine(Gtp):
    """`descent engine --game GAME --agent AGENT` over its line protocol (GTP's form)."""

    def __init__(self, binary, game, agent, seed, extra=()):
        super().__init__(
            [binary, "engine", "--game", game, "--agent", agent, "--seed", str(seed), *extra])


def wilson(k, n, z=1.96):
    """The Wilson score interval of `k` successes in `n` trials (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
