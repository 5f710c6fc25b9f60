"""Caravan's strength, measured: the rows of docs/strength.md, and tuning runs on fixed deals.

    python bench/strength.py table [--games N] [--scale S] [--jobs J] [--only GAME,..]
                                   [--rows ROW,..] [--json FILE]
    python bench/strength.py tune GAME [--players P] [--games N] [--scale S] [--jobs J]
                                  [--row heuristic|defaults|budget]
                                  [--record FILE [--for-seconds S]]
                                  SETTING [SETTING ...]

`table` plays, for every game, the rows the search must pass (docs/strength.md):
  heuristic   ismcts against the game's heuristic, 2 players
  table       ismcts against heuristics filling the other seats, 4 players
  budget      ismcts at 4x the budget against ismcts at 1x, 2 players
  cheat       cheat (the whole state, same budget) against ismcts, 2 players
`--scale` multiplies every budget: 1 is the default, the game's reproducible equivalent of a
second (engine.registry.SEARCH_DEFAULTS); smaller runs are cheaper and weaker.

`tune` plays ismcts (or `--agent cheat|pimc`) with each SETTING (agent options such as
`c=1.0,mode=mo`; `-` is the game's defaults) against the heuristic, 2 players by default, on
the same deals, and prints each one's win share. With `--row defaults` the opponent is ismcts
with the game's defaults at the same budget: does the setting beat them? With `--row budget`
it plays the budget row instead, the setting given to both searches (4x against 1x): does
the setting make strength grow with time? With `--record FILE` it keeps each game as `table`
does, so a run of hours can stop (`--for-seconds`) and resume, and it pairs each setting's
games with the defaults' games on the same deals and seats (found in FILE or in `table`'s
record): how many went better with each, and the sign test on those.

Games are played in `--jobs` processes. Game k deals from seed 2026000 + k // P with the
searcher in seat k % P, so every deal is played from every seat (duplicate deals) and every
row, setting and run meets the same deals. Win shares come with 95% Wilson intervals.

A row at the default budget costs CPU-hours, more than one sitting may have, so `table`
keeps a record: every finished game is one line of `--record` (JSON Lines, default
bench/records/strength.jsonl), and a later run plays only the games of a row that the record
lacks. `--for-seconds S` stops a run after S seconds (what finished is kept; a game under way
is dropped), and `--report` plays nothing and prints the rows from the record, marking a row
that is not complete yet. A game's line names the engine it was played by (`fingerprint`:
the game's golden numbers, which pin its rules, its search and its heuristic's play, its
search defaults at the row's player count and its heuristic's code), so a change that
alters play never mixes its games with older ones; a game is deterministic for its seed,
so any line can be checked by playing game k again.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
import tokenize
from dataclasses import dataclass
from multiprocessing import Pool
from multiprocessing import TimeoutError as PoolTimeout
from typing import Callable, Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_support import counted  # noqa: E402
from engine.cli import number_in  # noqa: E402
from engine.registry import GAMES, SEARCH_DEFAULTS, game_info  # noqa: E402
from search.golden import play_text  # noqa: E402
from search.agents import parse_agent  # noqa: E402
from search.match import agent_seed, play_game  # noqa: E402
from search.stats import sign_test, wilson  # noqa: E402

DEAL_BASE = 2_026_000
ROWS = ("heuristic", "table", "budget", "cheat")
DEFAULT_GAMES = {"kilim": 60}      # games a row: 100, Kilim 60 (its games are long)
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_RECORD = os.path.join(HERE, "records", "strength.jsonl")
RECORD_VERSION = 1                 # bump when play changes in a way the fingerprint cannot see


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


Job = Tuple[str, int, str, str, int]          # game, players, focus, others, k


def games_of(game: str, players: int, focus: str, others: str, first: int,
             games: int) -> List[Job]:
    """Games first.. first + games - 1 of `focus` against `others`."""
    return [(game, players, focus, others, k) for k in range(first, first + games)]


def play_one(job: Job) -> float:
    """The focus agent's win share in game k of a row."""
    game, players, focus, others, k = job
    seat, deal = k % players, DEAL_BASE + k // players
    specs = [others] * players
    specs[seat] = focus
    agents = [parse_agent(s).build(agent_seed(deal, p)) for p, s in enumerate(specs)]
    return play_game(game, agents, deal, players).rewards[seat]


def timed_play(job: Job) -> Tuple[Job, float, float]:
    """(job, focus's win share, CPU seconds) of one game, for imap_unordered."""
    t0 = time.process_time()
    share = play_one(job)
    return job, share, time.process_time() - t0


def measure(pool: Pool, game: str, players: int, focus: str, others: str,
            games: int, first: int = 0) -> Tuple[float, int, float, float, float]:
    """(won, games, low, high, seconds) of `focus` against `others` in games first.. of a row."""
    t0 = time.perf_counter()
    jobs = games_of(game, players, focus, others, first, games)
    shares = pool.map(play_one, jobs, chunksize=1)
    won = sum(shares)
    low, high = wilson(won, games)
    return won, games, low, high, time.perf_counter() - t0


def code_text(path: str) -> str:
    """A Python file's source without its comments, trailing spaces and blank lines: what
    it runs (docstrings stay), so that rewording a comment changes nothing hashed."""
    with open(path, "rb") as f:
        comments = [t.start for t in tokenize.tokenize(f.readline) if t.type == tokenize.COMMENT]
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for row, col in comments:
        lines[row - 1] = lines[row - 1][:col]
    return "\n".join(line.rstrip() for line in lines if line.strip())


def fingerprint(game: str, players: int) -> str:
    """What decides how the agents of a row of `game` at `players` play: its golden numbers
    (rules, search signature and the heuristic's games: play_text, not the random playouts,
    which no agent at the defaults plays), its search defaults at that player count (a
    change of another count's defaults leaves the row's games standing) and its heuristic's
    code (code_text: a change of a rare branch that the heuristic's golden games miss still
    counts), hashed."""
    defaults = SEARCH_DEFAULTS[game].as_text(players)
    h = hashlib.sha256(f"v{RECORD_VERSION}|{players}|{defaults}|".encode())
    h.update(play_text(game).encode())
    h.update(code_text(os.path.join(HERE, "..", "search", "heuristics", f"{game}.py")).encode())
    return h.hexdigest()[:16]


Fingerprints = Dict[Tuple[str, int], str]


def fingerprints_of(jobs: Sequence["Job"]) -> Fingerprints:
    """The fingerprint of each (game, players) among `jobs`."""
    return {key: fingerprint(*key) for key in sorted({(j[0], j[1]) for j in jobs})}


def job_fingerprint(fps: Fingerprints, job: "Job") -> str:
    return fps[(job[0], job[1])]


def record_key(fp: str, job: Job) -> Tuple[str, str, int, str, str, int]:
    """A recorded game's identity: the engine's fingerprint, then the job."""
    return (fp, *job)


def load_record(path: str) -> Dict[tuple, float]:
    """Every recorded game's focus win share, by record_key; a torn last line is skipped."""
    done: Dict[tuple, float] = {}
    if not os.path.exists(path):
        return done
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
                key = (r["fingerprint"], r["game"], r["players"], r["focus"], r["others"],
                       r["k"])
                done[key] = float(r["share"])
            except (ValueError, KeyError, TypeError):
                continue
    return done


def append_record(path: str, fp: str, job: Job, share: float, seconds: float,
                  commit: str) -> None:
    game, players, focus, others, k = job
    append_line(path, dict(fingerprint=fp, game=game, players=players, focus=focus,
                           others=others, k=k, share=share, cpu_seconds=round(seconds, 1),
                           commit=commit, date=time.strftime("%Y-%m-%d")))


def append_line(path: str, line: dict) -> None:
    """Add one game's line to the record, synced to disk."""
    with open(path, "ab+") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:                    # a line torn by a killed run ends here
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write((json.dumps(line) + "\n").encode())
        f.flush()
        os.fsync(f.fileno())


def head_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def row_jobs(row: "Row", n: int) -> List[Job]:
    return games_of(row.game, row.players, row.focus, row.others, 0, n)


def play_missing(jobs: List[Job], fps: Fingerprints, args: argparse.Namespace,
                 initializer: Optional[Callable[[], None]] = None) -> bool:
    """Play the jobs the record lacks, appending each as it ends (`initializer` runs first in
    each game process); False if --for-seconds cut the run short."""
    done = load_record(args.record)
    todo = [j for j in jobs if record_key(job_fingerprint(fps, j), j) not in done]
    if not todo or args.report:
        return True
    os.makedirs(os.path.dirname(os.path.abspath(args.record)), exist_ok=True)
    print(f"playing {len(todo)} games ({len(jobs) - len(todo)} already recorded) in "
          f"{args.jobs} processes", file=sys.stderr, flush=True)
    commit, t0 = head_commit(), time.monotonic()
    pool = Pool(args.jobs, initializer=initializer)
    try:
        results = pool.imap_unordered(timed_play, todo, chunksize=1)
        for i in range(len(todo)):
            left = None if args.for_seconds is None else args.for_seconds - (time.monotonic() - t0)
            if left is not None and left <= 0:
                return False
            try:
                job, share, secs = results.next(timeout=left)
            except PoolTimeout:
                return False
            append_record(args.record, job_fingerprint(fps, job), job, share, secs, commit)
            print(f"  {job[0]} {job[2]} vs {job[3]} game {job[4]}: {share:.3f} "
                  f"({secs:.0f} s CPU, {i + 1}/{len(todo)})", file=sys.stderr, flush=True)
        return True
    finally:
        pool.terminate()
        pool.join()


def cmd_table(args: argparse.Namespace) -> int:
    names = args.rows.split(",") if args.rows else list(ROWS)     # checked in main
    games = [game_info(g).name for g in args.only.split(",")] if args.only else list(GAMES)
    plan: List[Tuple["Row", int]] = []
    for game in games:
        n_games = args.games or DEFAULT_GAMES.get(game, 100)
        for row in rows_for(game, args.scale, names):
            plan.append((row, -(-n_games // row.players) * row.players))   # whole deals
    all_jobs = [j for row, n in plan for j in row_jobs(row, n)]
    fps = fingerprints_of(all_jobs)
    complete = play_missing(all_jobs, fps, args)
    done = load_record(args.record)
    results: List[Dict[str, object]] = []
    print("| game | row | players | agent | against | games | win share | 95% Wilson | bar | "
          "passes |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row, n in plan:
        fp = fps[(row.game, row.players)]
        shares = [done[k] for k in (record_key(fp, j) for j in row_jobs(row, n)) if k in done]
        played = len(shares)
        won = sum(shares)
        low, high = wilson(won, played)
        share = won / played if played else 0.0
        if played < n:
            mark, verdict, count = "not yet", None, f"{played} of {n}"
        else:
            verdict = row.passes(share, low)
            mark, count = {True: "yes", False: "**no**", None: "-"}[verdict], str(n)
        figures = f"{share:.3f} | [{low:.3f}, {high:.3f}]" if played else "- | -"
        print(f"| {row.game} | {row.name} | {row.players} | `{row.focus}` | `{row.others}` | "
              f"{count} | {figures} | {row.bar} | {mark} |", flush=True)
        results.append(dict(game=row.game, row=row.name, players=row.players, agent=row.focus,
                            against=row.others, games=played, of=n, won=won, share=share,
                            low=low, high=high, passes=verdict, scale=args.scale,
                            fingerprint=fp))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if not complete:
        print(f"stopped after --for-seconds {args.for_seconds}: run the same command again "
              f"to play the rest", file=sys.stderr)
    return 0


def tune_agents(args: argparse.Namespace, game: str,
                players: int) -> Tuple[str, Callable[[str], Tuple[str, str]]]:
    """What a tuning run plays, and the (focus, others) agent specs of one of its settings:
    `--row heuristic` the searcher with the setting against the heuristic; `--row defaults`
    the searcher with the setting against ismcts with the game's defaults, same budget (does
    the setting beat them?); `--row budget` ismcts at 4x the budget against 1x, the setting
    applied to both (does it make strength grow with time?)."""
    one = budget_option(game, players, args.scale)
    if args.row == "defaults":
        return (f"{args.agent} ({one}) with each setting against ismcts ({one}) with the "
                f"defaults", lambda extra: (f"{args.agent}:{one}{extra}", f"ismcts:{one}"))
    if args.row == "budget":
        four = budget_option(game, players, args.scale, 4)
        return (f"ismcts ({four}) against ismcts ({one}), both with each setting",
                lambda extra: (f"ismcts:{four}{extra}", f"ismcts:{one}{extra}"))
    return (f"{args.agent} ({one}) with each setting against heuristic",
            lambda extra: (f"{args.agent}:{one}{extra}", "heuristic"))


def cmd_tune(args: argparse.Namespace) -> int:
    info = game_info(args.game)
    players = args.players or 2
    what, agents = tune_agents(args, info.name, players)
    matchups = [(setting, *agents("" if setting == "-" else f",{setting}"))
                for setting in args.settings]
    try:
        for _, focus, others in matchups:
            parse_agent(focus), parse_agent(others)     # a bad setting stops the run at once
    except ValueError as e:
        print(f"strength.py tune: error: {e}", file=sys.stderr)
        return 2
    first_deal = DEAL_BASE + args.first_game // players
    print(f"{info.title}, {players} players: {what}, {args.games} games on deals "
          f"{first_deal}..")
    if args.record:
        return tune_recorded(args, info.name, players, matchups, agents(""))
    with Pool(args.jobs) as pool:
        for setting, focus, others in matchups:
            won, n, low, high, secs = measure(pool, info.name, players, focus, others,
                                              args.games, args.first_game)
            print(f"{setting:<32} {won:6.1f}/{n} = {won / n:.3f} [{low:.3f}, {high:.3f}]  "
                  f"({secs:.0f} s)", flush=True)
    return 0


def recorded_shares(done: Dict[tuple, float], fp: str, jobs: List[Job]) -> Dict[int, float]:
    """The focus's win share in each of `jobs` that the record holds, by game k."""
    found = ((j[4], done.get(record_key(fp, j))) for j in jobs)
    return {k: share for k, share in found if share is not None}


def paired_line(mine: Dict[int, float], theirs: Dict[int, float]) -> str:
    """A setting's games against the defaults' on the same deals and seats: how many went
    better with each (a game both played alike tells nothing), and the sign test."""
    common = sorted(set(mine) & set(theirs))
    better = sum(1 for k in common if mine[k] > theirs[k])
    worse = sum(1 for k in common if mine[k] < theirs[k])
    return (f"{'':<32} paired with the defaults on {len(common)} games: {better} went better "
            f"with the setting, {worse} with the defaults (sign test p {sign_test(better, worse):.2f})")


def tune_recorded(args: argparse.Namespace, game: str, players: int,
                  matchups: List[Tuple[str, str, str]], defaults: Tuple[str, str]) -> int:
    """cmd_tune with `--record`: each game is kept as it ends, as `table` keeps its rows', so
    a long tuning run can be stopped (`--for-seconds`) and resumed; the shares printed are
    those of the games recorded under today's engine. Each setting is also paired, game by
    game, with the defaults' games on the same deals where the record or `table`'s record
    holds them (`-` among the settings plays them)."""
    fps = {(game, players): fingerprint(game, players)}
    fp = fps[(game, players)]
    base_jobs = games_of(game, players, *defaults, args.first_game, args.games)
    for setting, focus, others in matchups:
        jobs = games_of(game, players, focus, others, args.first_game, args.games)
        complete = play_missing(jobs, fps, args)
        done = load_record(args.record)
        shares = recorded_shares(done, fp, jobs)
        won, n = sum(shares.values()), len(shares)
        low, high = wilson(won, n)
        count = f"{won:6.1f}/{n}" + ("" if n == len(jobs) else f" (of {len(jobs)})")
        print(f"{setting:<32} {count} = {won / max(n, 1):.3f} [{low:.3f}, {high:.3f}]",
              flush=True)
        if setting != "-" and args.row != "defaults":   # --row defaults is paired by itself
            base = {**recorded_shares(load_record(DEFAULT_RECORD), fp, base_jobs),
                    **recorded_shares(done, fp, base_jobs)}
            if base:
                print(paired_line(shares, base), flush=True)
        if not complete:
            print(f"stopped after --for-seconds {args.for_seconds}: run the same command "
                  f"again to play the rest", file=sys.stderr)
            break
    return 0


def positive_seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


GAME_COUNT = counted()
SCALE = number_in(0, 100, "times the default budget", above_low=True)
JOBS = counted(1024)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("table", help="the rows of docs/strength.md")
    t.add_argument("--games", type=GAME_COUNT, default=None,
                   help="games per row (default 100, Kilim 60), rounded up to whole deals")
    t.add_argument("--scale", type=SCALE, default=1.0, help="budget multiplier (1: default)")
    t.add_argument("--jobs", type=JOBS, default=os.cpu_count() or 1)
    t.add_argument("--only", default=None, help="games, comma-separated (default: all)")
    t.add_argument("--rows", default=None, help=f"rows, comma-separated: {', '.join(ROWS)}")
    t.add_argument("--json", default=None, help="write the rows here as JSON")
    t.add_argument("--record", default=DEFAULT_RECORD,
                   help="every finished game, one JSON line each; games recorded are not "
                        "played again (default: bench/records/strength.jsonl)")
    t.add_argument("--for-seconds", type=positive_seconds, default=None,
                   help="stop after this many seconds of wall time, keeping what finished")
    t.add_argument("--report", action="store_true",
                   help="play nothing: print the rows from the record")
    u = sub.add_parser("tune", help="settings against the heuristic on the same deals")
    u.add_argument("game", help=f"one of: {', '.join(sorted(GAMES))}")
    u.add_argument("settings", nargs="+", help="agent options, e.g. c=1.0,mode=mo; - for none")
    u.add_argument("--players", type=int, default=None)
    u.add_argument("--agent", default="ismcts", choices=("ismcts", "cheat", "pimc"),
                   help="the searching agent the settings apply to (default ismcts)")
    u.add_argument("--games", type=GAME_COUNT, default=100)
    u.add_argument("--scale", type=SCALE, default=1.0)
    u.add_argument("--first-game", type=non_negative_int, default=0,
                   help="play games k = N.. (deal N // players on), to confirm on other deals")
    u.add_argument("--jobs", type=JOBS, default=os.cpu_count() or 1)
    u.add_argument("--row", default="heuristic", choices=("heuristic", "defaults", "budget"),
                   help="heuristic (default): each setting against the heuristic; defaults: "
                        "against ismcts with the game's defaults, same budget; budget: "
                        "ismcts at 4x the budget against 1x, both with the setting")
    u.add_argument("--record", default=None,
                   help="keep every finished game here (JSON Lines, as `table` does) and play "
                        "only the games it lacks")
    u.add_argument("--for-seconds", type=positive_seconds, default=None,
                   help="with --record: stop after this many seconds of wall time")
    u.set_defaults(report=False)
    args = ap.parse_args(argv)
    if args.command == "table":
        unknown = set(args.rows.split(",") if args.rows else ()) - set(ROWS)
        if unknown:
            t.error(f"unknown rows {sorted(unknown)}; rows: {', '.join(ROWS)}")
        for g in args.only.split(",") if args.only else ():
            try:
                game_info(g)
            except ValueError as e:
                t.error(f"--only: {e}")
    if args.command == "tune":
        try:
            info = game_info(args.game)
            if args.players is not None:
                info.check_players(args.players)
        except ValueError as e:
            u.error(str(e))
    if args.command == "tune" and args.row == "budget" and (args.agent != "ismcts" or
                                                           (args.players or 2) != 2):
        u.error("--row budget is a duel of ismcts against itself: 2 players, --agent ismcts")
    if args.command == "tune" and args.for_seconds is not None and not args.record:
        u.error("--for-seconds needs --record (the games played before the stop are kept there)")
    return cmd_table(args) if args.command == "table" else cmd_tune(args)


if __name__ == "__main__":
    sys.exit(main())
