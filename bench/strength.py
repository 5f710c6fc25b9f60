"""Caravan's strength, measured: the rows of docs/strength.md, and tuning runs on fixed deals.

    python bench/strength.py table [--games N] [--scale S] [--jobs J] [--only GAME,..]
                                   [--rows ROW,..] [--json FILE]
    python bench/strength.py tune GAME [--players P] [--games N] [--scale S] [--jobs J]
                                  SETTING [SETTING ...]

`table` plays, for every game, the rows the search must pass (docs/strength.md):
  heuristic   ismcts against the game's heuristic, 2 players
  table       ismcts against heuristics filling the other seats, 4 players (Taschkent 3)
  budget      ismcts at 4x the budget against ismcts at 1x, 2 players
  cheat       cheat (the whole state, same budget) against ismcts, 2 players
`--scale` multiplies every budget: 1 is the default, the game's reproducible equivalent of a
second (engine.registry.SEARCH_DEFAULTS); smaller runs are cheaper and weaker.

`tune` plays ismcts with each SETTING (agent options such as `c=1.0,mode=mo`; `-` is the
game's defaults) against the heuristic, 2 players by default, on the same deals, and prints
each one's win share.

Games are played in `--jobs` processes. Game k deals from seed 2026000 + k // P with the
searcher in seat k % P, so every deal is played from every seat (duplicate deals) and every
row, setting and run meets the same deals. Win shares come with 95% Wilson intervals.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from multiprocessing import Pool
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.registry import GAMES, game_info  # noqa: E402
from search.agents import parse_agent  # noqa: E402
from search.match import agent_seed, play_game  # noqa: E402
from search.stats import wilson  # noqa: E402

DEAL_BASE = 2_026_000
ROWS = ("heuristic", "table", "budget", "cheat")
DEFAULT_GAMES = {"kilim": 60}      # games a row: 100, Kilim 60 (its games are long)


@dataclass(frozen=True)
class Row:
    """One measurement: `focus` in the seat that rotates, `others` in the rest."""

    game: str
    name: str
    players: int
    focus: str
    others: str
    bar: str                       # what passing means, as docs/strength.md states it

    def passes(self, share: float, low: float) -> Optional[bool]:
        if self.name == "heuristic":
            return low >= 0.60 and share >= 0.70
        if self.name == "table":
            return share >= 2.0 / self.players
        if self.name == "budget":
            return share >= 0.60
        return None                  # the cheat gap is reported, not judged


def budget_option(game: str, players: int, scale: float, times: int = 1) -> str:
    """`iterations=N`: the game's reproducible budget x `scale` x `times`."""
    base = game_info(game).search.iterations[players]
    return f"iterations={max(1, round(base * scale * times))}"


def rows_for(game: str, scale: float, names: Sequence[str]) -> List[Row]:
    info = GAMES[game]
    table_players = min(4, info.max_players)
    one = budget_option(game, 2, scale)
    rows = {
        "heuristic": Row(game, "heuristic", 2, f"ismcts:{one}", "heuristic",
                         "interval's lower bound >= 0.60 and win share >= 0.70"),
        "table": Row(game, "table", table_players,
                     f"ismcts:{budget_option(game, table_players, scale)}", "heuristic",
                     f"win share >= 2 x 1/{table_players}"),
        "budget": Row(game, "budget", 2, f"ismcts:{budget_option(game, 2, scale, 4)}",
                      f"ismcts:{one}", "win share >= 0.60"),
        "cheat": Row(game, "cheat", 2, f"cheat:{one}", f"ismcts:{one}", "reported"),
    }
    return [rows[n] for n in names]


def play_one(job: Tuple[str, int, str, str, int]) -> float:
    """The focus agent's win share in game k of a row."""
    game, players, focus, others, k = job
    seat, deal = k % players, DEAL_BASE + k // players
    specs = [others] * players
    specs[seat] = focus
    agents = [parse_agent(s).build(agent_seed(deal, p)) for p, s in enumerate(specs)]
    return play_game(game, agents, deal, players).rewards[seat]


def measure(pool: Pool, game: str, players: int, focus: str, others: str,
            games: int) -> Tuple[float, int, float, float, float]:
    """(won, games, low, high, seconds) of `focus` against `others` over `games` games."""
    t0 = time.perf_counter()
    shares = pool.map(play_one, [(game, players, focus, others, k) for k in range(games)],
                      chunksize=1)
    won = sum(shares)
    low, high = wilson(won, games)
    return won, games, low, high, time.perf_counter() - t0


def cmd_table(args: argparse.Namespace) -> int:
    names = args.rows.split(",") if args.rows else list(ROWS)
    unknown = set(names) - set(ROWS)
    if unknown:
        raise SystemExit(f"unknown rows {sorted(unknown)}; rows: {', '.join(ROWS)}")
    games = args.only.split(",") if args.only else list(GAMES)
    results: List[Dict[str, object]] = []
    print("| game | row | players | agent | against | games | win share | 95% Wilson | bar | "
          "passes |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with Pool(args.jobs) as pool:
        for game in games:
            n_games = args.games or DEFAULT_GAMES.get(game, 100)
            for row in rows_for(game, args.scale, names):
                n = -(-n_games // row.players) * row.players     # whole deals
                won, n, low, high, secs = measure(pool, game, row.players, row.focus,
                                                  row.others, n)
                verdict = row.passes(won / n, low)
                mark = {True: "yes", False: "**no**", None: "-"}[verdict]
                print(f"| {game} | {row.name} | {row.players} | `{row.focus}` | "
                      f"`{row.others}` | {n} | {won / n:.3f} | [{low:.3f}, {high:.3f}] | "
                      f"{row.bar} | {mark} |", flush=True)
                results.append(dict(game=game, row=row.name, players=row.players,
                                    agent=row.focus, against=row.others, games=n, won=won,
                                    share=won / n, low=low, high=high, passes=verdict,
                                    seconds=round(secs, 1), scale=args.scale))
                if args.json:
                    with open(args.json, "w") as f:
                        json.dump(results, f, indent=1)
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    info = game_info(args.game)
    players = args.players or 2
    budget = budget_option(info.name, players, args.scale)
    print(f"{info.title}, {players} players: ismcts ({budget}) with each setting against "
          f"heuristic, {args.games} games on deals {DEAL_BASE}..")
    with Pool(args.jobs) as pool:
        for setting in args.settings:
            spec = f"ismcts:{budget}" + ("" if setting == "-" else f",{setting}")
            parse_agent(spec)                       # a bad setting stops the run at once
            won, n, low, high, secs = measure(pool, info.name, players, spec, "heuristic",
                                              args.games)
            print(f"{setting:<32} {won:6.1f}/{n} = {won / n:.3f} [{low:.3f}, {high:.3f}]  "
                  f"({secs:.0f} s)", flush=True)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("table", help="the rows of docs/strength.md")
    t.add_argument("--games", type=int, default=None,
                   help="games per row (default 100, Kilim 60), rounded up to whole deals")
    t.add_argument("--scale", type=float, default=1.0, help="budget multiplier (1: default)")
    t.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    t.add_argument("--only", default=None, help="games, comma-separated (default: all)")
    t.add_argument("--rows", default=None, help=f"rows, comma-separated: {', '.join(ROWS)}")
    t.add_argument("--json", default=None, help="write the results here as they come")
    u = sub.add_parser("tune", help="settings against the heuristic on the same deals")
    u.add_argument("game")
    u.add_argument("settings", nargs="+", help="agent options, e.g. c=1.0,mode=mo; - for none")
    u.add_argument("--players", type=int, default=None)
    u.add_argument("--games", type=int, default=100)
    u.add_argument("--scale", type=float, default=1.0)
    u.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    return cmd_table(args) if args.command == "table" else cmd_tune(args)


if __name__ == "__main__":
    sys.exit(main())
