"""What the differential scripts share: replay a list of action ids with `descent replay SPEC
--ids ... --json` and compare every position with the one the reference implementation
recorded (the keys of each expected position are the ones compared)."""
import json
import subprocess


def replay_mismatch(spec, index, ids, expected, descent, reference="the library", adjust=None,
                    show_board=False):
    """Replays `ids` in descent; returns the first difference with `expected` as a message, or
    None. `adjust(got, expected)` may rewrite descent's position before the comparison;
    `show_board` adds descent's picture of the mismatching position."""
    out = subprocess.run([descent, "replay", spec, "--ids", ",".join(map(str, ids)), "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return f"{spec} game {index}: descent refused {ids}: {out.stderr.strip()}"
    got = json.loads(out.stdout)["positions"]
    if len(got) != len(expected):
        return f"{spec} game {index}: {len(got)} positions, {reference} {len(expected)}; ids {ids}"
    for ply, (g, e) in enumerate(zip(got, expected)):
        if adjust:
            g = adjust(g, e)
        mismatch = [k for k in e if g[k] != e[k]]
        if mismatch:
            board = f"\n{g['board']}" if show_board else ""
            return (f"{spec} game {index} ply {ply}: {mismatch}: descent "
                    f"{[g[k] for k in mismatch]} vs {reference} {[e[k] for k in mismatch]}"
                    f"{board}; ids {ids}")
    return None
