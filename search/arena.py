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
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence

from engine.registry import game_info
from search.agents import parse_agent
from search.match import play_game
from search.stats import EloEstimate, Sprt, elo_estimate, mean, wilson


def lineups(n_agents: int, players: int) -> List[List[int]]:
    """Every seating: agent index per seat, each agent in each seat equally often."""
    if not 1 <= n_agents <= players:
        raise ValueError(f"the arena seats 1 to {players} agents in a {players}-player game, "
                         f"not {n_agents}")
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
        return (arena_seed * 1_000_003 + self.number * 7_919 + seat * 104_729 + 1) % (2 ** 63)


def plan(n_agents: int, players: int, games: int, seed: int, duplicate: bool = True
         ) -> List[GameTask]:
    """The games of a match. With duplicate deals the count is rounded up to whole deals."""
    if games < 1:
        raise ValueError("--games must be at least 1")
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
    return (arena_seed * 1_000_033 + deal * 2_654_435_761) % (2 ** 63)


def play_task(game: str, players: int, specs: Sequence[str], task: GameTask, arena_seed: int,
              options: Optional[dict] = None) -> dict:
    """Play one arena game and return its record as a JSON-able dict (runs in any process)."""
    parsed = [parse_agent(s) for s in specs]
    agents = [parsed[a].build(task.agent_seed(arena_seed, seat)) for seat, a in enumerate(task.seats)]
    t0 = time.perf_counter()
    try:
        rec = play_game(game, agents, task.game_seed, players, options=options)
    finally:
        for agent in agents:
            close = getattr(agent, "close", None)
            if close:
                close()
    return {
        "game": game, "players": players, "number": task.number, "deal": task.deal,
        "lineup": task.lineup, "seed": task.game_seed, "seats": [specs[a] for a in task.seats],
        "agent_of_seat": list(task.seats), "moves": rec.moves, "scores": rec.scores,
        "ranking": rec.ranking, "rewards": rec.rewards, "seconds": time.perf_counter() - t0,
    }


@dataclass
class AgentTally:
    name: str
    games: int = 0
    wins: float = 0.0            # win share summed: a shared win counts 1/k
    scores: List[float] = field(default_factory=list)
    ranks: List[int] = field(default_factory=list)


class Tally:
    """Running results of a match: per agent, pairwise (two agents) and openskill ratings."""

    def __init__(self, names: Sequence[str]) -> None:
        from openskill.models import PlackettLuce

        self.names = list(names)
        self.agents = [AgentTally(n) for n in names]
        self.model = PlackettLuce()
        self.ratings = [self.model.rating(name=n) for n in names]
        self.wdl = [0, 0, 0]          # agent 0 against agent 1, when there are two
        self.records: List[dict] = []

    def add(self, record: dict) -> None:
        self.records.append(record)
        seats = record["agent_of_seat"]
        best_rank: Dict[int, int] = {}
        for seat, a in enumerate(seats):
            t = self.agents[a]
            t.scores.append(record["scores"][seat])
            best_rank[a] = min(best_rank.get(a, 10 ** 6), record["ranking"][seat])
        for a, rank in best_rank.items():
            t = self.agents[a]
            t.games += 1
            t.wins += sum(record["rewards"][s] for s, b in enumerate(seats) if b == a)
            t.ranks.append(rank)
        present = sorted(best_rank)
        if len(present) > 1:
            teams = [[self.ratings[a]] for a in present]
            new = self.model.rate(teams, ranks=[best_rank[a] for a in present])
            for a, team in zip(present, new):
                self.ratings[a] = team[0]
        if len(self.names) == 2 and 0 in best_rank and 1 in best_rank:
            r0, r1 = best_rank[0], best_rank[1]
            self.wdl[0 if r0 < r1 else 1 if r0 == r1 else 2] += 1

    def elo(self) -> Optional[EloEstimate]:
        return elo_estimate(*self.wdl) if len(self.names) == 2 else None

    def summary(self) -> dict:
        rows = []
        for a, t in enumerate(self.agents):
            low, high = wilson(t.wins, t.games)
            r = self.ratings[a]
            rows.append({
                "agent": t.name, "games": t.games,
                "win_share": t.wins / t.games if t.games else 0.0, "win_share_95": [low, high],
                "mean_score": mean(t.scores), "mean_rank": mean(t.ranks),
                "openskill": {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()},
            })
        out = {"games": len(self.records), "agents": rows}
        e = self.elo()
        if e is not None:
            out["elo"] = {"agent": self.names[0], "against": self.names[1], "elo": e.elo,
                          "elo_95": [e.low, e.high], "wins": e.wins, "draws": e.draws,
                          "losses": e.losses}
        return out

    def progress_text(self) -> str:
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


def run_arena(game: str, players: int, specs: Sequence[str], games: int, seed: int = 0, *,
              duplicate: bool = True, sprt: Optional[Sprt] = None, options: Optional[dict] = None,
              out_dir: Optional[str] = None, progress: Optional[Callable[[Tally, int], None]] = None,
              runner: Optional[Runner] = None) -> ArenaResult:
    """Play a match and return its results; Ctrl-C ends it early with what was played.

    `specs` are agent specs (K <= players of them). With `sprt` (two agents) the match stops
    as soon as the test decides. `out_dir` receives games.jsonl as the games finish.
    """
    info = game_info(game)
    info.check_players(players)
    specs = [str(parse_agent(s)) for s in specs]          # validates every spec up front
    if sprt is not None and len(specs) != 2:
        raise ValueError("--sprt compares exactly two agents")
    tasks = plan(len(specs), players, games, seed, duplicate)
    tally = Tally(specs)
    result = ArenaResult(info.name, players, list(specs), len(tasks), tally)
    records_file = None
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        records_file = open(os.path.join(out_dir, "games.jsonl"), "w", encoding="utf-8")
    run = runner or local_runner(info.name, players, specs, seed, options)
    t0 = time.perf_counter()
    try:
        for record in run(tasks):
            tally.add(record)
            if records_file:
                records_file.write(json.dumps(record) + "\n")
                records_file.flush()
            if progress:
                progress(tally, len(tasks))
            if sprt is not None:
                decision = sprt.decide(*tally.wdl)
                result.sprt = {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha,
                               "beta": sprt.beta, "llr": sprt.llr(*tally.wdl),
                               "bounds": list(sprt.bounds), "decision": decision}
                if decision is not None:
                    break
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        close = getattr(run, "close", None)
        if close:
            close()
        if records_file:
            records_file.close()
        result.seconds = time.perf_counter() - t0
    if out_dir:
        write_summary(out_dir, result)
    return result


def write_summary(out_dir: str, result: ArenaResult) -> None:
    with open(os.path.join(out_dir, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(result.summary(), f, indent=2)
    plot_win_shares(os.path.join(out_dir, "win_share.png"), result)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_win_shares(path: str, result: ArenaResult) -> None:
    """Bar chart: each agent's win share with its 95% interval."""
    plt = _pyplot()
    rows = result.tally.summary()["agents"]
    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(rows)), 3.5))
    xs = range(len(rows))
    shares = [r["win_share"] for r in rows]
    err = [[max(0.0, s - r["win_share_95"][0]) for s, r in zip(shares, rows)],
           [max(0.0, r["win_share_95"][1] - s) for s, r in zip(shares, rows)]]
    ax.bar(xs, shares, yerr=err, capsize=6, color="#c8894a")
    ax.set_xticks(list(xs), [short(r["agent"], 18) for r in rows], fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win share (95% CI)")
    ax.set_title(f"{result.game}, {result.players} players, {result.tally.summary()['games']} games")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_ladder(text: str):
    """`ismcts:iterations=250,1000,4000[,c=0.7]` -> (key, [(value, spec), ...])."""
    kind, _, rest = text.partition(":")
    items = [x.strip() for x in rest.split(",") if x.strip()]
    if not items or "=" not in items[0]:
        raise ValueError("a ladder is <agent>:<option>=<v1>,<v2>,...  e.g. "
                         "ismcts:iterations=250,1000,4000")
    key, _, first = items[0].partition("=")
    values = [first] + [x for x in items[1:] if "=" not in x]
    fixed = [x for x in items[1:] if "=" in x]
    if len(values) < 2:
        raise ValueError("a ladder needs at least two values")
    rungs = []
    for v in values:
        spec = parse_agent(f"{kind}:" + ",".join([f"{key}={v}"] + fixed))
        rungs.append((spec.options[key.strip().lower()], str(spec)))
    return key.strip().lower(), rungs


def plot_ladder(path: str, game: str, key: str, rows: List[dict]) -> None:
    """Win share (with 95% interval) and openskill ordinal against the budget."""
    plt = _pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.5))
    xs = [r["value"] for r in rows]
    ys = [r["win_share"] for r in rows]
    err = [[max(0.0, y - r["win_share_95"][0]) for y, r in zip(ys, rows)],
           [max(0.0, r["win_share_95"][1] - y) for y, r in zip(ys, rows)]]
    a1.errorbar(xs, ys, yerr=err, marker="o", capsize=5, color="#8a4a1c")
    a1.set_xscale("log")
    a1.set_xticks(xs, [str(x) for x in xs])
    a1.minorticks_off()
    a1.set_ylim(0, 1)
    a1.set_xlabel(key)
    a1.set_ylabel("win share (95% CI)")
    a1.set_title(f"{game}: strength against budget")
    a2.plot(xs, [r["ordinal"] for r in rows], marker="s", color="#2e5e8a")
    a2.set_xscale("log")
    a2.set_xticks(xs, [str(x) for x in xs])
    a2.minorticks_off()
    a2.set_xlabel(key)
    a2.set_ylabel("openskill ordinal (mu - 3 sigma)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def format_summary(result: ArenaResult) -> str:
    s = result.summary()
    lines = [f"{result.game}, {result.players} players: {s['games']} of {result.planned} games "
             f"in {result.seconds:.1f} s" + ("  (interrupted)" if result.interrupted else "")]
    lines.append(f"{'agent':<36} {'games':>5}  {'win share [95% CI]':<22} {'score':>7} "
                 f"{'rank':>5}  {'mu':>6} {'sigma':>6} {'ordinal':>7}")
    for r in s["agents"]:
        lo, hi = r["win_share_95"]
        o = r["openskill"]
        lines.append(f"{short(r['agent'], 36):<36} {r['games']:>5}  {r['win_share']:.3f} "
                     f"[{lo:.3f}, {hi:.3f}]   {r['mean_score']:>7.2f} {r['mean_rank']:>5.2f}  "
                     f"{o['mu']:>6.2f} {o['sigma']:>6.2f} {o['ordinal']:>7.2f}")
    e = result.tally.elo()
    if e is not None:
        lines.append(f"Elo of {short(result.agents[0])} over {short(result.agents[1])}: {e}")
    if result.sprt is not None:
        d = result.sprt["decision"]
        verdict = {"H1": f"H1 accepted: at least {result.sprt['elo1']:+g} Elo",
                   "H0": f"H0 accepted: at most {result.sprt['elo0']:+g} Elo",
                   None: "undecided"}[d]
        lines.append(f"SPRT [{result.sprt['elo0']:g}, {result.sprt['elo1']:g}]: LLR "
                     f"{result.sprt['llr']:.2f} (bounds {result.sprt['bounds'][0]:.2f}, "
                     f"{result.sprt['bounds'][1]:.2f}): {verdict}")
    return "\n".join(lines)


def progress_bar(stream=sys.stderr) -> Callable[[Tally, int], None]:
    """A one-line progress bar with the running win shares."""
    def show(tally: Tally, total: int) -> None:
        done = len(tally.records)
        width = 24
        filled = int(width * done / total) if total else width
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}  "
                     f"{tally.progress_text()}   ")
        if done == total:
            stream.write("\n")
        stream.flush()
    return show
