"""Fuzz `caravan uci` with seeded random and mutated lines and print what happened.

The fuzzer is tests/protocol_fuzzer.py, which says how it works and what it checks.

    python bench/fuzz_protocol.py [LINES (default 10000)] [--seed S] [--chunk N]

Crashes and hangs are saved to /tmp/protocol-fuzz-findings/; the exit code is 1 if any.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from protocol_fuzzer import FINDINGS, fuzz  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lines", type=int, nargs="?", default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=40, help="lines between synchronisations")
    args = ap.parse_args()
    rep = fuzz(args.lines, args.seed, args.chunk, log=lambda s: print("  ...", s, flush=True))
    print(f"seed {rep.seed}: {rep.lines:,} fuzzed lines ({rep.bytes_sent / 1e6:.1f} MB with "
          f"markers) in {rep.chunks} chunks, {rep.seconds:.1f} s")
    print("generated:  " + ", ".join(f"{k} {n}" for k, n in rep.kinds.most_common()))
    print("commands:   " + ", ".join(f"{k} {n}" for k, n in rep.commands.most_common()))
    print(f"searches:   {rep.gos} go -> {rep.bestmoves} bestmove (after an error: "
          f"`bestmove (none)`), "
          f"{rep.hints} hintok; `stop` sent by the fuzzer after a second: {rep.stops_sent}")
    print(f"views:      {rep.views_printed} JSON lines printed by `view`")
    print(f"errors:     {sum(rep.errors.values()):,} error lines; most common reasons:")
    for reason, n in rep.errors.most_common(12):
        print(f"    {n:6,}  {reason} ...")
    print(f"internal errors: {len(rep.internal)}")
    for line in rep.internal[:20]:
        print("    " + line)
    print(f"crashes, hangs and broken answers: {len(rep.failures)}; restarts {rep.restarts}")
    for line in rep.failures[:20]:
        print("    " + line)
    print(f"game-loader crashes or hangs: {len(rep.loader_findings)}")
    for line in rep.loader_findings[:20]:
        print("    " + line)
    if rep.failures or rep.loader_findings:
        print(f"inputs saved in {FINDINGS}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
