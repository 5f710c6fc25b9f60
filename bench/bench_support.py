"""Positions and facts shared by the benchmarks (bench/conftest.py and the bench/test_*.py
modules): the deal every benchmark starts from, a seeded random line through the checked API,
mid-game positions, the size of a state, and which build of the cores was imported.

Everything comes through the packages `cext`, `engine` and `search`, so another build put
first on PYTHONPATH is the one measured.
"""
from __future__ import annotations

import random
import statistics
import subprocess
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

# The clock of the benchmarks whose work all runs in this process (the cores, ISMCTS, the
# Python API): its CPU time, so that other processes sharing the machine's cores cost it
# little (they still share caches). Round trips to other processes (the protocol's
# subprocess, Ray) are timed on the wall clock, pytest-benchmark's default.
CPU_TIMER = time.process_time

SEED = 1                  # the deal every benchmark starts from
LINE_SEED = 2             # the random line that leads to the mid-game positions
# Random playouts per round, per game: about a tenth of a second each on the reference
# machine when written (Kilim's 82 KB state made it the slowest). Fixed, never calibrated, so
# that round times compare between runs and builds.
PLAYOUTS = {"khiva": 20_000, "khan": 20_000, "taschkent": 10_000, "kilim": 4_000}


def playouts_per_round(game: str) -> int:
    return PLAYOUTS.get(game, 5_000)


def cores_dir() -> Path:
    """The directory holding the `cext` package that was imported: the build measured."""
    import cext
    return Path(cext.__file__).resolve().parent.parent


def git_facts(path: Path) -> Dict[str, object]:
    """The commit of the tree at `path` (id, `git describe`, branch, dirty), {} if not git."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True,
                              timeout=20, check=True).stdout.strip()
    try:
        return {"id": git("rev-parse", "HEAD"),
                "describe": git("describe", "--tags", "--always", "--dirty"),
                "branch": git("rev-parse", "--abbrev-ref", "HEAD"),
                "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}
    except (OSError, subprocess.SubprocessError):
        return {}


def opening(game: str, players: int):
    """The deal every benchmark starts from."""
    from engine.registry import new_game
    return new_game(game, players, SEED)


def random_line(game: str, players: int, seed: int = LINE_SEED) -> List[int]:
    """The moves of one whole game from the opening, each chosen by a seeded random.Random
    among the legal moves (through the checked API)."""
    state, rng, line = opening(game, players), random.Random(seed), []
    while not state.is_terminal():
        move = rng.choice(state.legal_moves())
        state.apply(move)
        line.append(move)
    return line


_MIDGAMES: Dict[Tuple[str, int], object] = {}


def midgame(game: str, players: int):
    """A position a third of the way through the seeded random game: hands, piles and
    knowledge are under way, so loading and determinizing have something to do."""
    key = (game, players)
    if key not in _MIDGAMES:
        state = opening(game, players)
        line = random_line(game, players)
        for move in line[:len(line) // 3]:
            state.apply(move)
        _MIDGAMES[key] = state
    return _MIDGAMES[key].clone()


# Khiva, 3 players: a position where the knowledge of the player to move fits 1 random deal
# of the cards it constrains in 3,003 (deal 101, then 28 moves drawn by random.Random(101)).
# Rejection sampling needs about 3,000 tries a world there; since 963887a the world is dealt
# from exact counts (cext/khiva.pyx, count_deals).
RARE_DEALS = ("khiva", 3, 101, 28)


# Khiva, 5 players: a position where the seat to move's joint placements of the cards it gave
# (6 placements of 3 cards) rule out some that its masks and the hand sizes allow, so each
# world draws a placement first (deal 1, then 55 moves drawn by random.Random(1);
# docs/rules/khiva.md, 15).
JOINT_PLACEMENTS = ("khiva", 5, 1, 55)


def line_position(spec):
    """The position of a (game, players, seed, plies) spec, reached through the checked API:
    `plies` moves drawn by random.Random(seed)."""
    from engine.registry import new_game
    game, players, seed, plies = spec
    state, rng = new_game(game, players, seed), random.Random(seed)
    for _ in range(plies):
        state.apply(rng.choice(state.legal_moves()))
    return state


def rare_deals_position():
    """The RARE_DEALS position."""
    return line_position(RARE_DEALS)


def without_joint_placements(state, seat: int):
    """A copy of a Khiva state in which `seat` has given its joint placements up (its masks
    alone, as past 64 placements), or None for a build that keeps none."""
    copy = state.clone()
    f = copy._fields()
    if "jlost" not in f:
        return None
    f["jlost"][seat], f["jn"][seat], f["jm"][seat] = 1, 0, 1
    copy._set_fields(f)
    return copy


def state_bytes(state) -> int:
    """Bytes of a state's C struct: what a copy moves, and what a pickle carries (the raw
    bytes of GameCore.__reduce__; a pickle's length if that ever changes)."""
    raw = [a for a in state.__reduce__()[1] if isinstance(a, bytes)]
    if raw:
        return len(raw[0])
    import pickle
    return len(pickle.dumps(state))


class Reference:
    """A reference measurement timed by hand once before each round of a benchmark (called
    from benchmark.pedantic's setup, which is not timed), so that the reference and the
    benchmarked call alternate and each round has its own reference next to it in time. On a
    shared machine a ratio of two benchmarks run minutes apart measures the load as much as
    the code; the median of the paired ratios does not."""

    def __init__(self, fn: Callable[[], object],
                 timer: Callable[[], float] = time.perf_counter) -> None:
        self.fn = fn
        self.timer = timer                        # the benchmark's own clock
        self.times: List[float] = []

    def run(self) -> None:
        t0 = self.timer()
        self.fn()
        self.times.append(self.timer() - t0)

    def time_ratio(self, benchmark, warmup_rounds: int = 0) -> Optional[float]:
        """The median over the timed rounds of (round time / its reference's time); None
        without timings (--benchmark-disable). The setup also runs before warm-up rounds:
        their references are left out."""
        stats = getattr(benchmark.stats, "stats", None)
        refs = self.times[warmup_rounds:]
        if stats is None or not stats.data or len(refs) != len(stats.data):
            return None
        return statistics.median(t / r for t, r in zip(stats.data, refs))


# ---------------------------------------------------------------- the scripts' arguments
def counted(high: int = 1_000_000):
    """An argparse type for a count of games, deals or processes: 1 to `high`."""
    from engine.cli import int_in

    return int_in(1, high)


def search_iterations():
    """An argparse type for a search's iterations: 1 to search.config.MAX_ITERATIONS."""
    from engine.cli import int_in
    from search.config import MAX_ITERATIONS

    return int_in(1, MAX_ITERATIONS)


def check_game_and_players(parser, game: str, players: Optional[int]) -> str:
    """The game's registry name; parser.error (exit code 2, one line) for an unknown game or a
    player count it is not played by."""
    from engine.registry import game_info

    try:
        info = game_info(game)
        if players is not None:
            info.check_players(players)
    except ValueError as e:
        parser.error(str(e))
    return info.name
