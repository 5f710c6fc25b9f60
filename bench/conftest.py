"""Caravan's speed benchmarks on pytest-benchmark: shared parameters, positions, the figures
people read, and the summary printed at the end.

    .venv/bin/python -m pytest bench                       # the whole suite, a few minutes
    .venv/bin/python -m pytest bench -k "kilim and 3p"     # one game at one player count
    .venv/bin/python -m pytest bench --benchmark-autosave  # keep the run in .benchmarks/
    .venv/bin/python -m pytest bench --benchmark-compare   # against the last saved run

This directory is not part of the test run (pyproject's testpaths is tests/) and asserts no
timing. Everything is imported through the packages `cext`, `engine` and `search`, so the
same suite measures another build of the cores: run it from that build's directory with
PYTHONPATH naming it (`python -m` and Ray's workers put the current directory first, and
`caravan uci` subprocesses read PYTHONPATH), e.g.

    cd /tmp/old && PYTHONPATH=$PWD /work/main/.venv/bin/python -m pytest /work/main/bench \
        --benchmark-storage=/work/main/.benchmarks --benchmark-autosave

The suite refuses to run when PYTHONPATH names cores that were not the ones imported. The
header names the cores measured, and a saved run carries their directory and commit.

Each benchmark records figures in `benchmark.extra_info` (saved with the JSON): rates
(`playouts/s`, `ISMCTS so it/s`, ...) are a fixed amount of work per round divided by the
median round time, because the machine is shared and the median shrugs off a round that lost
its core; sizes (`bytes/state`) are measured once. The terminal summary prints them per game
and player count, with the ratios measured pair by pair in this run (ISMCTS iterations per
random playout, protocol time per API time: bench_support.Reference) and, with
--benchmark-compare, the compared run's figures beside this run's.

The work per round is fixed (never calibrated to the machine), so that the round times of
two runs can be compared; `--bench-rounds` changes only how many rounds are timed.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest
from bench_support import cores_dir, git_facts

# Figures are keyed by (game, players); these are the columns of the summary tables.
CORE_COLUMNS = [("playouts/s", ",.0f"), ("moves/s", ",.0f"), ("moves/game", ".1f"),
                ("ISMCTS so it/s", ",.0f"), ("ISMCTS mo it/s", ",.0f"),
                ("so/playouts", ".2f"), ("mo/playouts", ".2f"), ("bytes/state", ",.0f")]
POLICY_COLUMNS = [("ISMCTS so it/s, policy playouts", ",.0f")]
RARE_DEALS_COLUMNS = [("ISMCTS so it/s, rare deals", ",.0f"), ("ISMCTS mo it/s, rare deals", ",.0f")]
JOINT_COLUMNS = [("ISMCTS so it/s, joint", ",.0f"), ("ISMCTS so it/s, masks", ",.0f")]
API_COLUMNS = [("API moves/s", ",.0f"), ("copies/s", ",.0f"), ("determinizations/s", ",.0f"),
               ("JSON loads/s", ",.0f"), ("view loads/s", ",.0f")]
PROTOCOL_COLUMNS = [("iterations", ",.0f"), ("API search ms", ".1f"),
                    ("in-process ms", ".1f"), ("in-process/API", ".3f"),
                    ("subprocess ms", ".1f"), ("subprocess/API", ".3f")]
# The before/after tables printed with --benchmark-compare
COMPARE_TABLES = [
    ("cores", [("playouts/s", ",.0f"), ("moves/s", ",.0f"), ("ISMCTS so it/s", ",.0f"),
               ("ISMCTS mo it/s", ",.0f"), ("bytes/state", ",.0f")]),
    ("ISMCTS as it plays (the game's playout policy)", POLICY_COLUMNS),
    ("ISMCTS where few random deals fit (bench_support.RARE_DEALS)", RARE_DEALS_COLUMNS),
    ("ISMCTS where a seat's joint placements bind (bench_support.JOINT_PLACEMENTS)",
     JOINT_COLUMNS),
    ("ratios and Python API", [("so/playouts", ".2f"), ("mo/playouts", ".2f"),
                               ("API moves/s", ",.0f"), ("copies/s", ",.0f")]),
    ("Python API", [("determinizations/s", ",.0f"), ("JSON loads/s", ",.0f"),
                    ("view loads/s", ",.0f")]),
    ("protocol", [("API search ms", ".1f"), ("in-process/API", ".3f"),
                  ("subprocess/API", ".3f")]),
]

# The rounds of the benchmarks whose work is a fixed amount per round (benchmark.pedantic);
# the other benchmarks are calibrated by pytest-benchmark (--benchmark-max-time etc.).
DEFAULT_ROUNDS = 5


def pytest_addoption(parser):
    group = parser.getgroup("caravan benchmarks")
    group.addoption("--bench-rounds", type=int, default=DEFAULT_ROUNDS,
                    help="rounds of the fixed-work benchmarks (playouts, ISMCTS, protocol, "
                         f"Ray; default {DEFAULT_ROUNDS}); the work per round stays the same, so "
                         "runs with different rounds still compare")


# ----------------------------------------------------------------------------- the cores
def check_pythonpath() -> None:
    """Refuse to measure the wrong build: a PYTHONPATH entry holding a `cext` package that
    is not the one imported (with `python -m pytest`, the current directory comes first)."""
    imported = cores_dir()
    for entry in filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep)):
        path = Path(entry).resolve()
        if (path / "cext" / "__init__.py").exists() and path != imported:
            raise pytest.UsageError(
                f"PYTHONPATH names the cores in {path}, but Python imported {imported} "
                f"(with `python -m` the current directory comes first): run from the "
                f"directory of the build to measure (cd {path}), which Ray's workers "
                f"also put first")


def pytest_configure(config):
    if config.pluginmanager.hasplugin("benchmark"):
        check_pythonpath()
    config.stash[FIGURES] = Figures()


@functools.lru_cache(maxsize=None)
def cores_facts() -> Dict[str, object]:
    """git_facts of the cores' tree, taken once (at the header): a run saved at its end
    names the commit it started with, even if the tree moved on meanwhile."""
    return git_facts(cores_dir())


def pytest_report_header(config):
    facts = cores_facts()
    return [f"caravan cores: {cores_dir()} ({facts.get('describe', 'not a git tree')})"]


def pytest_benchmark_update_commit_info(config, commit_info):
    """A saved run names the build it measured: the commit of the cores' tree (which is not
    the current directory's when another build comes first on PYTHONPATH)."""
    path = cores_dir()
    facts = cores_facts()
    commit_info["caravan_cores"] = str(path)
    if facts:
        commit_info["caravan_cores_describe"] = facts["describe"]
        if Path(os.getcwd()).resolve() != path:
            commit_info.update(id=facts["id"], branch=facts["branch"], dirty=facts["dirty"])


# ----------------------------------------------------------------------------- parameters
def game_infos() -> list:
    from engine.registry import GAMES
    return sorted(GAMES.values(), key=lambda info: info.name)


def pytest_generate_tests(metafunc):
    """`game_players`: every registered game at every player count; `game_default`: every
    game at its default player count; `mode`: the two ISMCTS keying modes. Ids read
    `kilim-3p`, so `-k "kilim and 3p"` selects."""
    if "game_players" in metafunc.fixturenames:
        pairs = [(i.name, n) for i in game_infos()
                 for n in range(i.min_players, i.max_players + 1)]
        metafunc.parametrize("game_players", pairs, ids=[f"{g}-{n}p" for g, n in pairs])
    if "game_default" in metafunc.fixturenames:
        pairs = [(i.name, i.default_players) for i in game_infos()]
        metafunc.parametrize("game_default", pairs, ids=[f"{g}-{n}p" for g, n in pairs])
    if "mode" in metafunc.fixturenames:
        metafunc.parametrize("mode", ["so", "mo"])


@pytest.fixture
def rounds(request) -> int:
    return max(1, request.config.getoption("--bench-rounds"))


# ----------------------------------------------------------------------------- figures
class Figures:
    """The figures of this run and of a compared run, per (game, players)."""

    def __init__(self) -> None:
        self.now: Dict[Tuple[str, int], Dict[str, float]] = {}
        self.then: Dict[Tuple[str, int], Dict[str, float]] = {}
        self.other: Dict[str, float] = {}         # figures of no one game (Ray, isready)
        self.other_then: Dict[str, float] = {}
        self.compared: List[str] = []

    def add(self, info: dict, then: bool = False) -> None:
        """Keep the figures of one benchmark's extra_info (and, per game, its notes: text
        such as which playouts the search used)."""
        figs = {k: v for k, v in info.items() if k not in ("game", "players")
                and isinstance(v, (int, float, str)) and not isinstance(v, bool)}
        if "game" in info:
            key = (info["game"], int(info["players"]))
            (self.then if then else self.now).setdefault(key, {}).update(figs)
        else:
            numbers = {k: v for k, v in figs.items() if not isinstance(v, str)}
            (self.other_then if then else self.other).update(numbers)


FIGURES = pytest.StashKey[Figures]()


@pytest.fixture
def record(request, benchmark):
    """record(game, players, rates={name: work per round}, times={name: factor},
    values={name: value}): put the figures in benchmark.extra_info and in the summary.

    A rate is the work of one round (playouts, iterations, moves) over the median round
    time; a time is the median round time times the factor (1000: milliseconds); a value is
    kept as given. Without timings (--benchmark-disable) only the values are kept."""
    figures = request.config.stash[FIGURES]

    def record(game: Optional[str], players: Optional[int], rates=None, times=None,
               values=None) -> dict:
        info = benchmark.extra_info
        if game is not None:
            info.update(game=game, players=players)
        info.update({k: v for k, v in (values or {}).items() if v is not None})
        stats = getattr(benchmark.stats, "stats", None)
        if stats is not None and stats.median > 0:
            for name, work in (rates or {}).items():
                info[name] = work / stats.median
            for name, factor in (times or {}).items():
                info[name] = stats.median * factor
        figures.add(info)
        return info
    return record


def pytest_benchmark_compare_machine_info(config, benchmarksession, machine_info,
                                          compared_benchmark):
    """Called once for each compared run: keep its figures for the summary."""
    figures = config.stash[FIGURES]
    figures.compared.append(str(compared_benchmark.get("commit_info", {})
                                .get("caravan_cores_describe", "")) or "compared run")
    for bench in compared_benchmark.get("benchmarks", []):
        figures.add(bench.get("extra_info") or {}, then=True)


# ----------------------------------------------------------------------------- summary
def table(keys, columns, cell) -> List[str]:
    """One line per (game, players) in `keys` and one column per (name, format), each cell
    written by cell(key, name, format) ('-' where it gives None); no lines at all when no
    cell has a figure."""
    grid = {key: [cell(key, name, fmt) for name, fmt in columns] for key in sorted(keys)}
    grid = {key: cells for key, cells in grid.items() if any(c is not None for c in cells)}
    if not grid:
        return []
    names = [name for name, _ in columns]
    width = [max([len(n)] + [len(cells[i] or "-") for cells in grid.values()])
             for i, n in enumerate(names)]
    lines = [f"{'game':<10} {'pl':>2}  " + "  ".join(f"{n:>{w}}" for n, w in zip(names, width))]
    for (game, players), cells in grid.items():
        lines.append(f"{game:<10} {players:>2}  "
                     + "  ".join(f"{c or '-':>{w}}" for c, w in zip(cells, width)))
    return lines


def now_cell(figures: Figures):
    def cell(key, name, fmt):
        value = figures.now.get(key, {}).get(name)
        return None if value is None else format(value, fmt)
    return cell


# The note that says how a figure was measured, where two builds may differ
NOTES = {"ISMCTS so it/s": "ISMCTS so playouts", "so/playouts": "ISMCTS so playouts",
         "ISMCTS mo it/s": "ISMCTS mo playouts", "mo/playouts": "ISMCTS mo playouts"}


def unlike(figures: Figures, key, name: str) -> bool:
    """Whether the two runs measured figure `name` of `key` differently: ISMCTS with the
    game's own playout policy in one run and random playouts in the other (a build from
    before SearchConfig.playout cannot switch Khan's policy off)."""
    note = NOTES.get(name)
    now, then = figures.now.get(key, {}).get(note), figures.then.get(key, {}).get(note)
    # a game without a policy of its own plays at random either way (as far as the run that
    # could tell says: a build without the switch cannot)
    plain = "no" in (figures.now.get(key, {}).get("own playout policy"),
                     figures.then.get(key, {}).get("own playout policy"))
    return note is not None and None not in (now, then) and now != then and not plain


def compare_cell(figures: Figures):
    """'then -> now (now/then x)' for a figure both runs have; '*' after one the two runs
    measured differently (unlike)."""
    def cell(key, name, fmt):
        now, then = figures.now.get(key, {}).get(name), figures.then.get(key, {}).get(name)
        if not now or not then:
            return None
        mark = "*" if unlike(figures, key, name) else ""
        return f"{then:{fmt}} -> {now:{fmt}} ({now / then:.2f}x){mark}"
    return cell


def write_table(write, title: str, lines: List[str]) -> None:
    if lines:
        write(title)
        for line in lines:
            write("  " + line)
        write("")


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, config):
    figures = config.stash.get(FIGURES, None)
    if figures is None or not (figures.now or figures.other):
        return
    write = terminalreporter.write_line
    terminalreporter.section("Caravan speed (medians; ratios measured pair by pair in this run)")
    if config.getoption("benchmark_disable", False):
        write("no figures: the benchmarks ran once each, untimed (--benchmark-disable)")
        return
    cell = now_cell(figures)
    write_table(write, "cores (C: random playouts and the moves in them, ISMCTS iterations "
                "from the opening; the state's C struct)", table(figures.now, CORE_COLUMNS, cell))
    write_table(write, "ISMCTS as it plays: the game's playout policy (Khan's; the others "
                "play at random), mode so", table(figures.now, POLICY_COLUMNS, cell))
    write_table(write, "ISMCTS where few random deals fit the knowledge of the player to "
                "move (bench_support.RARE_DEALS)", table(figures.now, RARE_DEALS_COLUMNS, cell))
    write_table(write, "ISMCTS where the seat to move's joint placements bind, and with them "
                "given up (bench_support.JOINT_PLACEMENTS)", table(figures.now, JOINT_COLUMNS, cell))
    write_table(write, "Python API (whole random games; mid-game positions)",
                table(figures.now, API_COLUMNS, cell))
    write_table(write, "protocol `go iterations N` round trip against search() through the "
                "API (wall clock)", table(figures.now, PROTOCOL_COLUMNS, cell))
    for name, value in sorted(figures.other.items()):
        write(f"{name}: {value:,.3f}" if value < 10 else f"{name}: {value:,.0f}")
    if figures.compared:
        keys = set(figures.now) & set(figures.then)
        cell = compare_cell(figures)
        write("")
        write(f"compared with the saved run of {', '.join(figures.compared)}: "
              f"then -> now (now/then)")
        blocks = [table(keys, columns, cell) for _, columns in COMPARE_TABLES]
        for (title, _), block in zip(COMPARE_TABLES, blocks):
            write_table(write, title, block)
        if not any(blocks):
            write("  (no figures in common: was the compared run saved by this suite?)")
        differ = sorted({f"{k[0]} {k[1]}p {NOTES[n]}: {figures.then[k][NOTES[n]]} -> "
                         f"{figures.now[k][NOTES[n]]}"
                         for k in keys for n in NOTES if unlike(figures, k, n)})
        if differ:
            write("* maybe not like for like: one run played the game's own playout policy "
                  "(a build without SearchConfig.playout cannot switch it off; the game may "
                  "have had no policy then), the other random playouts: " + "; ".join(differ))
        for name, value in sorted(figures.other.items()):
            then = figures.other_then.get(name)
            if then:
                write(f"{name}: {then:,.3f} -> {value:,.3f} ({value / then:.2f}x)")
