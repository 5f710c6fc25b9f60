"""Does root parallelism buy strength? W search workers, each given the whole budget (what a
W-core machine searches in the same time per move), against one search at that budget, on
the budget row's deals and seats (bench/strength.py), paired game by game with one search
at W times the budget (at W = 4, the budget row itself).

    python bench/parallel_strength.py GAME [--workers W] [--scale S] [--games N]
                                      [--first-game K] [--jobs J] [--record FILE]
                                      [--for-seconds S] [--report]

The focus plays `ismcts:iterations=W x B,workers=W` (the iterations are the total over the
workers, B each) against `ismcts:iterations=B`, B the game's 2-player budget x `--scale`.
Its games are kept in `--record` as `strength.py tune --record` keeps them, so a long run
stops and resumes; the pairing looks for the single tree's games there and in the strength
record (bench/records/strength.jsonl).

The workers run one after another inside each game's process, not on Ray: a stand-in for
the Ray pool hands ParallelSearch.search the same _Worker objects to call in turn. So the
root-parallel search's own code, its per-worker seeds and its merge are the ones
`workers=W` runs on Ray, and with an iteration budget its answer is the same
(tests/test_parallel_strength.py checks it), while J games play at once on J cores
without a Ray cluster in every process.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import search.parallel as parallel  # noqa: E402
from engine.registry import GAMES, game_info  # noqa: E402
from search.stats import sign_test, wilson  # noqa: E402
from strength import (DEFAULT_RECORD, HERE, JOBS, GAME_COUNT, SCALE, budget_option,  # noqa: E402
                      fingerprints_of, games_of, load_record, non_negative_int, play_missing,
                      positive_seconds, recorded_shares)

TUNING_RECORD = os.path.join(HERE, "records", "tuning.jsonl")


class _Answer:
    """What a Ray call would return a reference to: here, the answer itself."""

    def __init__(self, value: object) -> None:
        self.value = value


class _Call:
    def __init__(self, method) -> None:
        self.method = method

    def remote(self, *args, **kwargs) -> _Answer:
        return _Answer(self.method(*args, **kwargs))


class _Actor:
    """A worker in this process with the call shape of a Ray actor handle."""

    def __init__(self, index: int) -> None:
        worker = parallel._Worker(index)
        self.search, self.stop = _Call(worker.search), _Call(worker.stop)


class _NoRay:
    """The two calls ParallelSearch.search makes of Ray, on answers already computed."""

    @staticmethod
    def wait(refs: List[_Answer], num_returns: int = 1, timeout: float = None):
        return refs[:num_returns], refs[num_returns:]

    @staticmethod
    def get(ref: _Answer, timeout: float = None) -> object:
        return ref.value


_POOLS: Dict[int, parallel.ParallelSearch] = {}


def in_process_search(workers: int, address: str = None) -> parallel.ParallelSearch:
    """A ParallelSearch whose `workers` run in this process, one after another."""
    if address:
        raise ValueError("the in-process workers have no cluster address")
    if workers not in _POOLS:
        pool = parallel.ParallelSearch.__new__(parallel.ParallelSearch)
        pool.ray, pool.workers = _NoRay(), workers
        pool.actors = [_Actor(i) for i in range(workers)]
        pool.dead, pool.running, pool.number = set(), [], 0
        _POOLS[workers] = pool
    return _POOLS[workers]


def use_in_process_workers() -> None:
    """Route every root-parallel search of this process to in_process_search (each game
    process's initializer)."""
    parallel.shared_search = in_process_search


def specs(game: str, workers: int, scale: float):
    """(the parallel search, the single search at 1x, the single search at W x)."""
    one = budget_option(game, 2, scale)
    wide = budget_option(game, 2, scale, workers)
    return f"ismcts:{wide},workers={workers}", f"ismcts:{one}", f"ismcts:{wide}"


def report(game: str, args: argparse.Namespace) -> None:
    focus, others, single = specs(game, args.workers, args.scale)
    jobs = games_of(game, 2, focus, others, args.first_game, args.games)
    fp = fingerprints_of(jobs)[(game, 2)]
    done = load_record(DEFAULT_RECORD)
    done.update(load_record(args.record))
    mine = recorded_shares(done, fp, jobs)
    won, n = sum(mine.values()), len(mine)
    if not n:
        print("no games recorded yet")
        return
    low, high = wilson(won, n)
    print(f"{focus} against {others}: {won:g}/{n} = {won / n:.3f} [{low:.3f}, {high:.3f}]")
    theirs = recorded_shares(done, fp, games_of(game, 2, single, others, args.first_game,
                                                args.games))
    common = sorted(set(mine) & set(theirs))
    if common:
        better = sum(mine[k] > theirs[k] for k in common)
        worse = sum(mine[k] < theirs[k] for k in common)
        print(f"{single} against {others} on the same {len(common)} games: "
              f"{sum(theirs[k] for k in common) / len(common):.3f}; paired, {better} went "
              f"better with the workers, {worse} with the single tree (sign test p "
              f"{sign_test(better, worse):.2f})")
    else:
        print(f"no games of {single} against {others} recorded on these deals to pair with")


def main(argv: List[str] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", help=f"one of: {', '.join(sorted(GAMES))}")
    ap.add_argument("--workers", type=int, default=4, choices=range(2, 17), metavar="W",
                    help="root-parallel workers, each with the whole budget (2-16, default 4)")
    ap.add_argument("--scale", type=SCALE, default=1.0, help="budget multiplier (1: default)")
    ap.add_argument("--games", type=GAME_COUNT, default=100)
    ap.add_argument("--first-game", type=non_negative_int, default=0)
    ap.add_argument("--jobs", type=JOBS, default=os.cpu_count() or 1)
    ap.add_argument("--record", default=TUNING_RECORD,
                    help="keep every finished game here (default bench/records/tuning.jsonl)")
    ap.add_argument("--for-seconds", type=positive_seconds, default=None,
                    help="stop after this many seconds of wall time, keeping what finished")
    ap.add_argument("--report", action="store_true", help="play nothing: print the record's")
    args = ap.parse_args(argv)
    try:
        game = game_info(args.game).name
    except ValueError as e:
        ap.error(str(e))
    focus, others, _ = specs(game, args.workers, args.scale)
    jobs = games_of(game, 2, focus, others, args.first_game, args.games)
    complete = play_missing(jobs, fingerprints_of(jobs), args,
                            initializer=use_in_process_workers)
    report(game, args)
    if not complete:
        print("stopped after --for-seconds: run the same command again to play the rest",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
