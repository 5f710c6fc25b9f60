"""Play many random games and check every state they pass through.

    python bench/random_games.py GAME FIRST LAST [--every N] [--policy random|playout|heuristic]

Games FIRST to LAST, each replayable from its number (tests/random_sweep.py says how they are
dealt and what is checked: invariants after every move; every N moves, default 25, a JSON
round trip, the seat to move's view and every seat's determinization). The moves are drawn at
random, or taken from the search's playout policy or the game's heuristic (`--policy`), which
play games closer to a real table's. The conformance suite
makes the same checks over a few games in the test run; this runs them over thousands.
Prints one line per failure and a summary; the exit code is 1 if anything failed.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from engine.registry import GAMES  # noqa: E402
from random_sweep import POLICIES, sweep  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", choices=sorted(GAMES))
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--every", type=int, default=25, help="moves between the deeper checks")
    ap.add_argument("--policy", choices=POLICIES, default="random",
                    help="what picks the moves (default: uniformly random)")
    args = ap.parse_args()
    if not 0 <= args.first <= args.last or args.every < 1:
        ap.error("seeds run from FIRST to LAST (0 <= FIRST <= LAST), --every at least 1")
    t0 = time.perf_counter()
    report = sweep(args.game, args.first, args.last, args.every, args.policy)
    for line in report.failures:
        print("FAIL " + line, flush=True)
    print(f"{args.game} seeds {args.first}-{args.last} ({args.policy}): {report.games:,} games, "
          f"{report.moves:,} moves, {len(report.failures)} failures, "
          f"{time.perf_counter() - t0:.0f} s")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
