"""Protocol overhead: `go iterations N` -> bestmove through `caravan uci`, against the same
search through the Python API, measured in one run.

    python bench/bench_protocol.py [--iterations N] [--repeat R]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from engine.registry import new_game  # noqa: E402
from protocol_client import Client  # noqa: E402
from search import Budget, search  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    n = args.iterations
    client = Client()
    client.ask("isready", "readyok")
    client.send("position khiva players 3 seed 7")
    api, proto = [], []
    for r in range(args.repeat):
        client.send(f"setoption name Seed value {r}")
        t0 = time.perf_counter()
        client.ask(f"go iterations {n}", "bestmove")
        proto.append(time.perf_counter() - t0)
        state = new_game("khiva", 3, 7)
        t0 = time.perf_counter()
        search(state, Budget(iterations=n), seed=r)
        api.append(time.perf_counter() - t0)
    client.close()
    a, p = statistics.median(api), statistics.median(proto)
    print(f"Khiva 3 players, go iterations {n}, median of {args.repeat}:")
    print(f"  Python API search():   {a * 1000:8.1f} ms")
    print(f"  caravan uci go->bestmove: {p * 1000:8.1f} ms  (overhead {(p - a) * 1000:+.1f} ms, "
          f"ratio {p / a:.3f})")


if __name__ == "__main__":
    main()
