"""The arena: many games between agents, with seat rotation, duplicate deals and sound statistics.

Seating: with K agents for N seats (K <= N), the base line-up j fills seat i with agent
(i + j) mod K, and every rotation of every base line-up is played, so each agent sits in
each seat equally often. Duplicate deals: each deal (one game seed) is played once in every
line-up, so the luck of the deal is shared out evenly.
"""
from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, TextIO

from engine.outputs import OutputError
from engine.registry import game_info, new_game
from engine.validation import quoted
from search.agents import Agent, close_agents, option_name, parse_agent
from search.config import SEED_SPACE
from search.extras import require
from search.match import play_game
from search.stats import EloEstimate, Sprt, elo_estimate, wilson


def lineups(n_agents: int, players: int) -> List[List[int]]:
    """Every seating: agent index per seat, each agent in each seat equally often."""
    if not 1 <= n_agents <= players:
        raise ValueError(f"the arena seats at most {players} agents in a {players}-player "
                         f"game (one a seat), not {n_agents}")
    out: List[List[int]] = []
    for shift in range(n_agents):
        base = [(i + shift) % n_agents for i in range(players)]
        for r in range(players):
            seating = base[r:] + base[:r]
            if seating not in out:          # when K divides N the shifts repeat rotations
                out.append(seating)
    return out


@dataclass(frozen=True)
class GameTask:
    """One game to play: its number, deal, seating and seeds."""

    number: int
    deal: int
    lineup: int
    game_seed: int
    seats: tuple

    def agent_seed(self, arena_seed: int, seat: int) -> int:
        return (arena_seed * 1_000_003 + self.number * 7_919 + seat * 104_729 + 1) % SEED_SPACE


# The most games one match plays: weeks of play at the default budget. A larger count is a
# typo, and its plan alone would fill the memory.
MAX_GAMES = 1_000_000


def plan(n_agents: int, players: int, games: int, seed: int, duplicate: bool = True
         ) -> List[GameTask]:
    """The games of a match. With duplicate deals the count is rounded up to whole deals.
    ValueError for a count that is not 1 to MAX_GAMES or a seed that is not an integer >= 0."""
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise ValueError(f"games must be a whole number from 1 to {MAX_GAMES:,}, "
                         f"not {quoted(games)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"the arena's seed is an integer of at least 0, not {quoted(seed)}")
    seatings = lineups(n_agents, players)
    tasks = []
    if duplicate:
        deals = math.ceil(games / len(seatings))
        for d in range(deals):
            for l, seats in enumerate(seatings):
                tasks.append(GameTask(len(tasks), d, l, deal_seed(seed, d), tuple(seats)))
    else:
        for g in range(games):
            l = g % len(seatings)
            tasks.append(GameTask(g, g, l, deal_seed(seed, g), tuple(seatings[l])))
    return tasks


def deal_seed(arena_seed: int, deal: int) -> int:
    return (arena_seed * 1_000_033 + deal * 2_654_435_761) % SEED_SPACE


def play_task(game: str, players: int, specs: Sequence[str], task: GameTask, arena_seed: int,
              options: Optional[dict] = None) -> dict:
    """Play one arena game and return its record as a JSON-able dict (runs in any process).

    An external engine that fails loses the game (the record's "forfeit" says which seat and
    why); every engine is closed before this returns, whatever happens.
    """
    parsed = [parse_agent(s) for s in specs]
    agents: List[Agent] = []
    t0 = time.perf_counter()
    try:
        for seat, a in enumerate(task.seats):
            agents.append(parsed[a].build(task.agent_seed(arena_seed, seat)))
        rec = play_game(game, agents, task.game_seed, players, options=options, forfeits=True)
    finally:
        close_agents(agents)
    rec.seats = [specs[a] for a in task.seats]
    return {**rec.to_json(), "number": task.number, "deal": task.deal, "lineup": task.lineup,
            "agent_of_seat": list(task.seats), "seconds": time.perf_counter() - t0}


@dataclass
class AgentTally:
    """One agent's results so far."""

    name: str
    games: int = 0
    wins: float = 0.0            # win share summed: a shared win counts 1/k
    score_sum: float = 0.0       # final scores summed over its seats (in game order)
    seats: int = 0               # seats it played
    rank_sum: int = 0            # its best place summed over its games
    forfeits: Counter = field(default_factory=Counter)     # reason -> games lost by forfeit
    forfeit_examples: Dict[str, str] = field(default_factory=dict)  # reason -> first message


def agent_labels(specs: Sequence[str]) -> List[str]:
    """Names for the agents of a match: the spec, numbered (`ismcts #2`) when a spec occurs
    more than once (an agent against a copy of itself)."""
    counts = Counter(specs)
    seen: Counter = Counter()
    labels = []
    for spec in specs:
        seen[spec] += 1
        labels.append(f"{spec} #{seen[spec]}" if counts[spec] > 1 else spec)
    return labels


class Tally:
    """Running results of a match: per agent, pairwise (two agents) and openskill ratings.

    Ratings: every game's outcome is rated in the order of the plan (run_arena puts games
    that finish early back in it), with openskill's Plackett-Luce model; an agent in several
    seats of one game counts with its best rank. Only sums are kept, not the games, so a
    match of a million games needs no more memory than one of ten.
    """

    def __init__(self, names: Sequence[str]) -> None:
        models = require("openskill.models", "the arena's ratings")
        self.names = list(names)
        self.agents = [AgentTally(n) for n in names]
        self.model = models.PlackettLuce()
        self.ratings = [self.model.rating(name=n) for n in names]
        self.wdl = [0, 0, 0]          # agent 0 against agent 1, when there are two
        self.games = 0

    def add(self, record: dict) -> None:
        """Count one finished game (a record as play_task returns it)."""
        self.games += 1
        seats = record["agent_of_seat"]
        best_rank: Dict[int, int] = {}
        for seat, a in enumerate(seats):
            t = self.agents[a]
            t.score_sum += record["scores"][seat]
            t.seats += 1
            best_rank[a] = min(best_rank.get(a, 10 ** 6), record["ranking"][seat])
        for a, rank in best_rank.items():
            t = self.agents[a]
            t.games += 1
            t.wins += sum(record["rewards"][s] for s, b in enumerate(seats) if b == a)
            t.rank_sum += rank
        self._count_forfeit(record)
        self._rate(best_rank)
        if len(self.names) == 2 and 0 in best_rank and 1 in best_rank:
            r0, r1 = best_rank[0], best_rank[1]
            self.wdl[0 if r0 < r1 else 1 if r0 == r1 else 2] += 1

    def _count_forfeit(self, record: dict) -> None:
        forfeit = record.get("forfeit")
        if not forfeit:
            return
        t = self.agents[record["agent_of_seat"][forfeit["seat"]]]
        t.forfeits[forfeit["reason"]] += 1
        t.forfeit_examples.setdefault(
            forfeit["reason"], f"game {record['number']}, seat {forfeit['seat']}: "
                               f"{forfeit['message']}")

    def _rate(self, best_rank: Dict[int, int]) -> None:
        present = sorted(best_rank)
        if len(present) < 2:
            return
        teams = [[self.ratings[a]] for a in present]
        new = self.model.rate(teams, ranks=[best_rank[a] for a in present])
        for a, team in zip(present, new):
            self.ratings[a] = team[0]

    def elo(self) -> Optional[EloEstimate]:
        """Elo of agent 0 over agent 1 from their W/D/L, when there are exactly two agents."""
        return elo_estimate(*self.wdl) if len(self.names) == 2 else None

    def summary(self) -> dict:
        """Per-agent results, openskill ratings, forfeits and (two agents) Elo, as JSON."""
        rows = []
        for a, t in enumerate(self.agents):
            low, high = wilson(t.wins, t.games)
            r = self.ratings[a]
            rows.append({
                "agent": t.name, "games": t.games,
                "win_share": t.wins / t.games if t.games else 0.0, "win_share_95": [low, high],
                "mean_score": t.score_sum / t.seats if t.seats else 0.0,
                "mean_rank": t.rank_sum / t.games if t.games else 0.0,
                "openskill": {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()},
                "forfeits": dict(t.forfeits),
            })
        out = {"games": self.games, "agents": rows}
        e = self.elo()
        if e is not None:
            out["elo"] = {"agent": self.names[0], "against": self.names[1], **e.as_json()}
        return out

    def progress_text(self) -> str:
        """The running win shares, short: for progress lines."""
        parts = []
        for t in self.agents:
            share = t.wins / t.games if t.games else 0.0
            parts.append(f"{short(t.name)} {share:.2f}")
        return "  ".join(parts)


def short(name: str, width: int = 24) -> str:
    return name if len(name) <= width else name[:width - 1] + "~"


@dataclass
class ArenaResult:
    game: str
    players: int
    agents: List[str]
    planned: int
    tally: Tally
    interrupted: bool = False
    sprt: Optional[dict] = None
    seconds: float = 0.0

    def summary(self) -> dict:
        s = self.tally.summary()
        s.update(game=self.game, players=self.players, planned=self.planned,
                 interrupted=self.interrupted, seconds=self.seconds)
        if self.sprt is not None:
            s["sprt"] = self.sprt
        return s


Runner = Callable[[List[GameTask]], Iterable[dict]]


def local_runner(game: str, players: int, specs: Sequence[str], seed: int,
                 options: Optional[dict]) -> Runner:
    """Play the games one after another in this process, yielding records as they finish."""
    def run(tasks: List[GameTask]) -> Iterable[dict]:
        for task in tasks:
            yield play_task(game, players, specs, task, seed, options)
    return run


class InPlanOrder:
    """A runner's records put back in the plan's order: parallel runners hand games over as
    they finish, and the tally, the ratings, the SPRT's stopping point and games.jsonl must
    not depend on which finished first (a match replays exactly, on Ray as in one process)."""

    def __init__(self) -> None:
        self.waiting: Dict[int, dict] = {}
        self.upcoming = 0

    def add(self, record: dict) -> List[dict]:
        """The records that can be counted now that `record` has finished, in plan order."""
        self.waiting[record["number"]] = record
        ready = []
        while self.upcoming in self.waiting:
            ready.append(self.waiting.pop(self.upcoming))
            self.upcoming += 1
        return ready

    def rest(self) -> List[dict]:
        """The finished records still waiting for an earlier one (a match cut short)."""
        left = [self.waiting[n] for n in sorted(self.waiting)]
        self.waiting.clear()
        return left


def run_arena(game: str, players: int, specs: Sequence[str], games: int, seed: int = 0, *,
              duplicate: bool = True, sprt: Optional[Sprt] = None, options: Optional[dict] = None,
              out_dir: Optional[str] = None, progress: Optional[Callable[[Tally, int], None]] = None,
              runner: Optional[Runner] = None) -> ArenaResult:
    """Play a match and return its results; Ctrl-C ends it early with what was played.

    `specs` are 2 to `players` agent specs (give one twice to play it against itself). With
    `sprt` (two agents) the match stops as soon as the test decides. `out_dir` receives
    games.jsonl as the games finish. Every check (specs, programs, `out_dir`) is made before
    the first game: ValueError.
    """
    info = game_info(game)
    info.check_players(players)
    check_arena_arguments(info.name, players, specs, options, out_dir, sprt, progress, duplicate)
    specs = check_specs(specs)
    if sprt is not None and len(specs) != 2:
        raise ValueError("--sprt compares exactly two agents")
    tasks = plan(len(specs), players, games, seed, duplicate)
    if out_dir is not None:
        prepare_out_dir(out_dir)
    tally = Tally(agent_labels(specs))
    result = ArenaResult(info.name, players, list(specs), len(tasks), tally)
    records_file = open_records(out_dir) if out_dir is not None else None
    run = runner or local_runner(info.name, players, specs, seed, options)
    ordered = InPlanOrder()
    t0 = time.perf_counter()

    def fold(record: dict) -> bool:
        """Count one game; whether the SPRT has decided."""
        tally.add(record)
        if records_file:
            write_record_line(records_file, record)
        if progress:
            progress(tally, len(tasks))
        if sprt is not None:
            result.sprt = sprt_state(sprt, tally.wdl)
            return result.sprt["decision"] is not None
        return False

    try:
        for finished in run(tasks):
            if any(fold(record) for record in ordered.add(finished)):
                break
    except KeyboardInterrupt:
        result.interrupted = True
        for record in ordered.rest():    # played already: counted, if out of order
            if fold(record):
                break
    finally:
        close = getattr(run, "close", None)
        if close:
            close()
        if records_file:
            records_file.close()
        result.seconds = time.perf_counter() - t0
    if out_dir is not None:
        write_summary(out_dir, result)
    return result


def open_records(out_dir: str) -> TextIO:
    """games.jsonl in `out_dir`, opened before the first game (ValueError if it cannot be)."""
    path = os.path.join(out_dir, "games.jsonl")
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as e:
        raise ValueError(f"cannot write {path}: {e.strerror or e}") from None


def write_record_line(f: TextIO, record: dict) -> None:
    """One game's line of games.jsonl, flushed (OutputError if the disk refuses it)."""
    try:
        f.write(json.dumps(record) + "\n")
        f.flush()
    except OSError as e:
        raise OutputError(f"cannot write {f.name}: {e.strerror or e}") from None


def check_arena_arguments(game: str, players: int, specs: object, options: object,
                          out_dir: object, sprt: object, progress: object,
                          duplicate: object) -> None:
    """run_arena's arguments have their types, and the game options deal a game (a deal
    with them is made once here, so a bad option stops the match before its first game)."""
    if isinstance(specs, str) or not isinstance(specs, (list, tuple)):
        raise ValueError(f"specs is a list of agent specs such as ['ismcts', 'random'], "
                         f"not {quoted(specs)}")
    if options is not None:
        if not isinstance(options, dict):
            raise ValueError(f"options is a dict of game options, not {quoted(options)}")
        new_game(game, players, 0, **options)
    if out_dir is not None and not isinstance(out_dir, (str, os.PathLike)):
        raise ValueError(f"out_dir is a folder's path, not {quoted(out_dir)}")
    if sprt is not None and not isinstance(sprt, Sprt):
        raise ValueError(f"sprt is a search.stats.Sprt, not {quoted(sprt)}")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress is a function (tally, total), not {quoted(progress)}")
    if not isinstance(duplicate, bool):
        raise ValueError(f"duplicate is True or False, not {quoted(duplicate)}")


def check_specs(specs: Sequence[str]) -> List[str]:
    """The specs as their canonical text; ValueError if one is bad, if a `cmd` program cannot
    be found, or if there are fewer than two (the arena compares agents)."""
    parsed = [parse_agent(s) for s in specs]
    if len(parsed) < 2:
        alone = str(parsed[0]) if parsed else "ismcts"
        raise ValueError(f"the arena compares two or more agents, not {len(parsed)}; to play "
                         f"an agent against itself give it twice: --agents {alone},{alone}")
    for spec in parsed:
        spec.check_program()
        if spec.kind != "cmd":
            spec.build(0)        # ValueError now for options that do not go together
    return [str(spec) for spec in parsed]


def sprt_state(sprt: Sprt, wdl: Sequence[int]) -> dict:
    """The SPRT's parameters, its log-likelihood ratio now and its decision (None: go on)."""
    return {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
            "llr": sprt.llr(*wdl), "bounds": list(sprt.bounds), "decision": sprt.decide(*wdl)}


def prepare_out_dir(path: str) -> None:
    """Create the output directory and check that a file can be written in it; ValueError
    (one readable line) if not. Its charts need matplotlib: MissingExtra now, before any
    game, if it is not installed."""
    if not path:
        raise ValueError("the output directory needs a name")
    _pyplot()
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        reason = e.strerror or str(e)
        raise ValueError(f"cannot write the output directory {path!r}: {reason}") from None
    for name in OUT_FILES:
        if os.path.isdir(os.path.join(path, name)):
            raise ValueError(f"cannot write {name} in the output directory {path!r}: "
                             "a directory has that name")


OUT_FILES = ("games.jsonl", "summary.json", "win_share.png")


def write_summary(out_dir: str, result: ArenaResult) -> None:
    """summary.json and win_share.png in `out_dir` (OutputError if the disk refuses them)."""
    try:
        with open(os.path.join(out_dir, "summary.json"), "w", encoding="utf-8") as f:
            json.dump(result.summary(), f, indent=2, allow_nan=False)
        plot_win_shares(os.path.join(out_dir, "win_share.png"), result)
    except OSError as e:
        raise OutputError(f"cannot write the arena's summary in {out_dir}: "
                          f"{e.strerror or e}") from None


def _pyplot():
    """matplotlib.pyplot drawing to files (the Agg backend), or MissingExtra."""
    require("matplotlib", "the arena's charts").use("Agg")
    return require("matplotlib.pyplot", "the arena's charts")


def _letter(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else str(i + 1)


def plot_win_shares(path: str, result: ArenaResult) -> None:
    """Bar chart: each agent's win share with its 95% interval; bars lettered, the full
    specs in a legend under the chart."""
    plt = _pyplot()
    summary = result.tally.summary()
    rows = summary["agents"]
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(rows) + 3), 4))
    shares = [r["win_share"] for r in rows]
    err = [[max(0.0, s - r["win_share_95"][0]) for s, r in zip(shares, rows)],
           [max(0.0, r["win_share_95"][1] - s) for s, r in zip(shares, rows)]]
    colors = [f"C{i % 10}" for i in range(len(rows))]
    for i, r in enumerate(rows):
        ax.bar(i, shares[i], yerr=[[err[0][i]], [err[1][i]]], capsize=6, color=colors[i],
               label=f"{_letter(i)}: {r['agent']}")
    ax.set_xticks(range(len(rows)), [_letter(i) for i in range(len(rows))])
    ax.axhline(1 / result.players, color="grey", linewidth=0.8, linestyle=":",
               label=f"even share (1/{result.players})")
    ax.set_ylim(0, 1)
    ax.set_ylabel("win share (95% CI)")
    ax.set_title(f"{result.game}, {result.players} players, {summary['games']} games")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), fontsize=8, frameon=False)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def parse_ladder(text: str):
    """`ismcts:iterations=250,1000,4000[,c=0.7]` -> (key, [(value, spec), ...])."""
    kind, _, rest = text.partition(":")
    items = [x.strip() for x in rest.split(",")]
    if "" in items[1:]:
        raise ValueError(f"the ladder {text[:60]!r} has an empty item (two commas, or one at "
                         "an end)")
    if not items[0] or "=" not in items[0]:
        raise ValueError("a ladder is <agent>:<option>=<v1>,<v2>,...  e.g. "
                         "ismcts:iterations=250,1000,4000")
    key, _, first = items[0].partition("=")
    key = option_name(key)
    values = [first] + [x for x in items[1:] if "=" not in x]
    fixed = [x for x in items[1:] if "=" in x]
    if len(values) < 2:
        raise ValueError("a ladder needs at least two values")
    rungs = []
    for v in values:
        spec = parse_agent(f"{kind}:" + ",".join([f"{key}={v}"] + fixed))
        rungs.append((spec.options[key], str(spec)))
    if len({value for value, _ in rungs}) != len(rungs):
        raise ValueError(f"the ladder names a value twice: {text[:60]!r}")
    return key, rungs


@dataclass
class LadderResult:
    """A budget ladder: one match per rung, each rung's agent against the same opponents."""

    game: str
    players: int
    key: str
    opponents: List[str]
    rows: List[dict] = field(default_factory=list)
    interrupted: bool = False


def run_ladder(game: str, players: int, ladder: str, opponents: Sequence[str], games: int,
               seed: int = 0, *, duplicate: bool = True, options: Optional[dict] = None,
               out_dir: Optional[str] = None,
               progress_for: Optional[Callable[[str], "ArenaProgress"]] = None,
               runner_for: Optional[Callable[[List[str]], Optional[Runner]]] = None,
               on_rung: Optional[Callable[[ArenaResult], None]] = None) -> LadderResult:
    """Play each rung of `ladder` (`ismcts:iterations=250,1000,4000`) against `opponents`.

    Rung i's records go to `out_dir`/rung<i>; ladder.json and ladder.png to `out_dir`.
    `progress_for(label)` makes each rung's progress display, `runner_for(specs)` its runner,
    and `on_rung(result)` is called as each rung ends. Ctrl-C stops after the current rung.
    """
    key, rungs = parse_ladder(ladder)
    opponents = check_specs([rungs[0][1]] + list(opponents))[1:]
    if 1 + len(opponents) > players:
        raise ValueError(f"a rung and {len(opponents)} opponents do not fit {players} seats")
    if out_dir:
        prepare_out_dir(out_dir)
    ladder_result = LadderResult(game, players, key, opponents)
    for i, (value, spec) in enumerate(rungs):
        specs = [spec] + opponents
        progress = progress_for(f"{key}={value}") if progress_for else None
        try:
            result = run_arena(game, players, specs, games, seed, duplicate=duplicate,
                               options=options, progress=progress,
                               out_dir=os.path.join(out_dir, f"rung{i}") if out_dir else None,
                               runner=runner_for(specs) if runner_for else None)
        finally:
            if progress is not None:
                progress.close()
        if on_rung:
            on_rung(result)
        ladder_result.rows.append(ladder_row(value, spec, result))
        if result.interrupted:
            ladder_result.interrupted = True
            break
    if out_dir:
        write_ladder(out_dir, ladder_result)
    return ladder_result


def ladder_row(value: object, spec: str, result: ArenaResult) -> dict:
    """One rung of a ladder: its budget, spec and the rung agent's results (agent 0)."""
    summary = result.summary()
    row = summary["agents"][0]
    return {"value": value, "agent": spec, "games": row["games"],
            "win_share": row["win_share"], "win_share_95": row["win_share_95"],
            "openskill": row["openskill"], "ordinal": row["openskill"]["ordinal"],
            "forfeits": row["forfeits"], "elo": summary.get("elo")}


def format_ladder(ladder: LadderResult) -> str:
    """The ladder's rungs, one line each."""
    key = ladder.key
    lines = [f"ladder over {key} against {', '.join(ladder.opponents)}:"]
    for r in ladder.rows:
        lo, hi = r["win_share_95"]
        lines.append(f"  {key}={r['value']!s:<8} win share {r['win_share']:.3f} "
                     f"[{lo:.3f}, {hi:.3f}] over {r['games']} games   {r['agent']}")
    return "\n".join(lines)


def write_ladder(out_dir: str, ladder: LadderResult) -> None:
    """ladder.json and ladder.png in `out_dir`."""
    with open(os.path.join(out_dir, "ladder.json"), "w", encoding="utf-8") as f:
        json.dump({"game": ladder.game, "players": ladder.players, "key": ladder.key,
                   "opponents": ladder.opponents, "rungs": ladder.rows,
                   "interrupted": ladder.interrupted}, f, indent=2, allow_nan=False)
    plot_ladder(os.path.join(out_dir, "ladder.png"), ladder.game, ladder.key, ladder.rows,
                ladder.opponents)


def budget_scale(values: Sequence[object]) -> str:
    """How to lay out a ladder's budgets: "log" when they are positive numbers that grow by a
    factor of 1.5 or more at every step (doubling budgets), "linear" for other numbers,
    "category" for anything else (e.g. mode=so,mo)."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "category"
    ordered = sorted(float(v) for v in values)           # type: ignore[arg-type]
    if ordered[0] > 0 and all(b >= 1.5 * a for a, b in zip(ordered, ordered[1:])):
        return "log"
    return "linear"


def plot_ladder(path: str, game: str, key: str, rows: List[dict],
                opponents: Sequence[str] = ()) -> None:
    """Win share (with 95% interval) and openskill ordinal against the budget `key`: the
    budget on the x axis (log scale where budgets double), each rung's full spec in a legend."""
    plt = _pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    values = [r["value"] for r in rows]
    scale = budget_scale(values)
    xs = list(range(len(rows))) if scale == "category" else values
    ys = [r["win_share"] for r in rows]
    err = [[max(0.0, y - r["win_share_95"][0]) for y, r in zip(ys, rows)],
           [max(0.0, r["win_share_95"][1] - y) for y, r in zip(ys, rows)]]
    a1.plot(xs, ys, color="#8a4a1c", linewidth=1, zorder=1)
    a2.plot(xs, [r["ordinal"] for r in rows], color="#2e5e8a", linewidth=1, zorder=1)
    for i, r in enumerate(rows):
        a1.errorbar([xs[i]], [ys[i]], yerr=[[err[0][i]], [err[1][i]]], marker="o", capsize=5,
                    color=f"C{i % 10}", label=r["agent"], zorder=2)
        a2.plot([xs[i]], [r["ordinal"]], marker="s", color=f"C{i % 10}", zorder=2)
    against = f" against {', '.join(opponents)}" if opponents else ""
    for ax in (a1, a2):
        if scale == "log":
            ax.set_xscale("log")
        ax.set_xticks(xs, [str(v) for v in values])
        ax.minorticks_off()
        ax.set_xlabel(key + (" (log scale)" if scale == "log" else ""))
    a1.set_ylim(0, 1)
    a1.set_ylabel("win share (95% CI)")
    a1.set_title(f"{game}: win share{against}", fontsize=10)
    a2.set_ylabel("openskill ordinal (mu - 3 sigma)")
    a2.set_title(f"{game}: rating{against}", fontsize=10)
    fig.legend(*a1.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=1, fontsize=8, frameon=False, title="rungs")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def format_summary(result: ArenaResult) -> str:
    """The match's results as a text table, then forfeits, Elo and the SPRT's verdict."""
    s = result.summary()
    width = max([36] + [len(r["agent"]) for r in s["agents"]])
    lines = [f"{result.game}, {result.players} players: {s['games']} of {result.planned} games "
             f"in {result.seconds:.1f} s" + ("  (interrupted)" if result.interrupted else "")]
    lines.append(f"{'agent':<{width}} {'games':>5}  {'win share [95% CI]':<22} {'score':>7} "
                 f"{'rank':>5}  {'mu':>7} {'sigma':>6} {'ordinal':>7} {'forfeits':>8}")
    for r in s["agents"]:
        lo, hi = r["win_share_95"]
        o = r["openskill"]
        lines.append(f"{r['agent']:<{width}} {r['games']:>5}  {r['win_share']:.3f} "
                     f"[{lo:.3f}, {hi:.3f}]   {r['mean_score']:>7.2f} {r['mean_rank']:>5.2f}  "
                     f"{o['mu']:>7.3f} {o['sigma']:>6.3f} {o['ordinal']:>7.3f} "
                     f"{sum(r['forfeits'].values()):>8}")
    lines += format_forfeits(result.tally)
    e = result.tally.elo()
    if e is not None:
        lines.append(f"Elo of {short(result.tally.names[0])} over "
                     f"{short(result.tally.names[1])}: {e}")
    if result.sprt is not None:
        d = result.sprt["decision"]
        verdict = {"H1": f"H1 accepted: at least {result.sprt['elo1']:+g} Elo",
                   "H0": f"H0 accepted: at most {result.sprt['elo0']:+g} Elo",
                   None: "undecided"}[d]
        lines.append(f"SPRT [{result.sprt['elo0']:g}, {result.sprt['elo1']:g}]: LLR "
                     f"{result.sprt['llr']:.2f} (bounds {result.sprt['bounds'][0]:.2f}, "
                     f"{result.sprt['bounds'][1]:.2f}): {verdict}")
    return "\n".join(lines)


def format_forfeits(tally: Tally) -> List[str]:
    """Per agent that forfeited: how many games and why, with the first message per reason."""
    lines = []
    for t in tally.agents:
        if not t.forfeits:
            continue
        reasons = ", ".join(f"{n} {reason}" for reason, n in t.forfeits.most_common())
        lines.append(f"forfeits by {t.name}: {sum(t.forfeits.values())} ({reasons})")
        for reason in t.forfeits:
            lines.append(f"  {reason}: {t.forfeit_examples[reason]}")
    return lines


def is_terminal(stream: TextIO) -> bool:
    """Whether a bar can be drawn on `stream`: a terminal that reports a width (a terminal
    of width 0, as some emulated ones report, would show tqdm nothing)."""
    isatty = getattr(stream, "isatty", None)
    if not (isatty and isatty()):
        return False
    try:
        return os.get_terminal_size(stream.fileno()).columns > 0
    except (AttributeError, OSError, ValueError):    # no file descriptor: trust isatty
        return True


class ArenaProgress:
    """Progress of a match on stderr, with the elapsed time, an estimate of the time left and
    the running win shares.

    On a terminal, a tqdm bar. Elsewhere (a log file, a pipe) one plain line at each tenth of
    the games, or after `every_seconds` without one, and at the end. Call it with (tally,
    total) after each game, as run_arena does; close() it (or use it as a context manager).
    """

    def __init__(self, label: str = "arena", stream: Optional[TextIO] = None,
                 every_seconds: float = 10.0, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.every_seconds = every_seconds
        self.clock = clock
        self.start = clock()
        self.last_line = self.start
        self.last_tenth = 0
        self.printed = 0                     # games counted in the last plain line
        self.latest = (0, 0, "")             # (done, total, text) of the last update
        self.bar = None
        self.interactive = is_terminal(self.stream)

    def __call__(self, tally: Tally, total: int) -> None:
        done = tally.games
        self.latest = (done, total, tally.progress_text())
        if self.interactive:
            self._update_bar(done, total, tally.progress_text())
        else:
            self._maybe_print_line(done, total, tally.progress_text())

    def _update_bar(self, done: int, total: int, text: str) -> None:
        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(total=total, desc=self.label, unit="game", file=self.stream,
                            dynamic_ncols=True, leave=True)
        self.bar.set_postfix_str(text, refresh=False)
        self.bar.update(done - self.bar.n)

    def _maybe_print_line(self, done: int, total: int, text: str) -> None:
        now = self.clock()
        tenth = done * 10 // total if total else 10
        if tenth <= self.last_tenth and now - self.last_line < self.every_seconds \
                and done < total:
            return
        self.last_tenth, self.last_line, self.printed = tenth, now, done
        self.stream.write(self.line(done, total, now - self.start, text) + "\n")
        self.stream.flush()

    def line(self, done: int, total: int, elapsed: float, text: str) -> str:
        """One plain progress line."""
        from tqdm import tqdm

        left = elapsed / done * (total - done) if done else 0.0
        return (f"{self.label}: {done}/{total} games, {tqdm.format_interval(elapsed)} elapsed, "
                f"about {tqdm.format_interval(left)} left; {text}")

    def close(self) -> None:
        """End the bar; in plain lines, say where a match that stopped early (SPRT, Ctrl-C)
        ended, if the last line did not."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        done, total, text = self.latest
        if not self.interactive and done > self.printed:
            self.printed = done
            self.stream.write(self.line(done, total, self.clock() - self.start, text) + "\n")
            self.stream.flush()

    def __enter__(self) -> "ArenaProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
