"""Root-parallel search on Ray (search.parallel.ParallelSearch), Khiva with 3 players.

- scaling: a search of ITERATIONS iterations shared out over 2 Ray workers, paired round by
  round with the same search in this process on one worker (timed by hand in the untimed
  setup, bench_support.Reference); efficiency = rate on 2 workers / (2 x rate on 1), the
  median over the rounds (1.0: perfect; on a machine whose cores are busy with other work
  it says more about the machine than about Ray);
- a timed search: the wall time of a SECONDS search on 2 workers, whose excess over SECONDS
  is the cost of starting, stopping and merging the workers.

Skipped, with the reason, when Ray is not installed, cannot start here, or its workers
import another build of the cores than this process.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from bench_support import Reference, cores_dir, opening

GAME, PLAYERS = "khiva", 3
WORKERS = 2
ITERATIONS = 20_000       # in all, shared out among the workers
SECONDS = 0.5


@pytest.fixture(scope="module")
def pool():
    from search.extras import MissingExtra
    from search.parallel import ParallelSearch, require_ray
    try:
        ray = require_ray()
    except MissingExtra as e:
        pytest.skip(f"Ray is not available: {e}")
    started_here = not ray.is_initialized()
    try:
        searcher = ParallelSearch(WORKERS)
        # where a worker imports the cores from (a lambda travels by value: the workers
        # cannot import this module)
        theirs = ray.get(ray.remote(lambda: __import__("cext").__file__).remote(), timeout=120)
    except Exception as e:                     # a runtime that cannot start: no figures
        pytest.skip(f"Ray could not start here: {type(e).__name__}: {e}")
    if Path(theirs).resolve().parent.parent != cores_dir():
        searcher.shutdown()
        pytest.skip(f"Ray's workers import the cores from {theirs}, this process from "
                    f"{cores_dir()} (Ray puts the current directory first on the workers' "
                    f"path: run from the directory of the build to measure)")
    searcher.search(opening(GAME, PLAYERS), ITERATIONS // 10, seed=0)      # warm the actors
    yield searcher
    searcher.shutdown()
    if started_here:
        ray.shutdown()


@pytest.mark.benchmark(group="Ray: root-parallel search")
def test_ray_scaling(benchmark, record, rounds, pool):
    from search import Budget, search
    state = opening(GAME, PLAYERS)
    budget = Budget(iterations=ITERATIONS)
    reference = Reference(lambda: search(state, budget, seed=0))
    result = benchmark.pedantic(pool.search, args=(state, budget), kwargs={"seed": 0},
                                setup=reference.run, rounds=rounds)
    assert result.iterations == ITERATIONS
    ratio = reference.time_ratio(benchmark)
    label = f"Ray {GAME} {PLAYERS}p"
    record(None, None, rates={f"{label}: {WORKERS} workers it/s": ITERATIONS},
           values={f"{label}: efficiency on {WORKERS} workers":
                   ratio and 1.0 / (ratio * WORKERS)})


@pytest.mark.benchmark(group="Ray: root-parallel search")
def test_ray_timed_search(benchmark, record, rounds, pool):
    from search import Budget
    state = opening(GAME, PLAYERS)
    result = benchmark.pedantic(pool.search, args=(state, Budget(seconds=SECONDS)),
                                kwargs={"seed": 0}, rounds=rounds)
    assert result.iterations > 0
    stats = getattr(benchmark.stats, "stats", None)
    record(None, None, values={
        f"Ray {GAME} {PLAYERS}p: a {SECONDS:g} s search on {WORKERS} workers, ms over":
        stats and (stats.median - SECONDS) * 1000.0})
