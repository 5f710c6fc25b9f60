"""Carry recorded strength games over a change of play that provably left them as they were.

    python bench/carry_record.py CHANGE --from FINGERPRINT [--check N] [--jobs J] [--record FILE]
                                 [--verify]

A change that alters how a game plays changes its fingerprint (bench/strength.py), and every
game recorded under the old one stops counting. Some changes can only alter games of certain
deals or rows: Khan's known-top fix (CHANGES below) acts only when the Impala People and the
Sable Nation both sit at the table, so a game of a deal without either plays move for move
as before; the Khan heuristic's count of face-down cards changes only games where the
heuristic agent plays and the Sable Nation sits. A change of what the fingerprint hashes,
not of play, touches no game at all. For such a change this script copies the
record's lines of the games it cannot touch to today's fingerprint, each naming the
fingerprint it was carried from (`carried_from`) and the change (`carried_by`), and a line
carried before keeps its earlier carries (`carried_earlier`); `bench/strength.py table` then
plays only the rest.

Before writing anything it plays `--check` of those games again under today's engine (spread
over the rows, the same games every run) and refuses to carry anything unless each one gives
the recorded win share. `--verify` plays `--check` of the games already carried again, and
carries nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from multiprocessing import Pool
from typing import Callable, Dict, List, Sequence, Set

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from engine.registry import game_info, new_game  # noqa: E402
from strength import (DEAL_BASE, DEFAULT_RECORD, JOBS, Job, append_line,  # noqa: E402
                      fingerprint, head_commit, load_record, non_negative_int, record_key,
                      timed_play)


@dataclass(frozen=True)
class Change:
    """A change of play whose effect is confined to some deals."""

    game: str
    why: str
    untouched: Callable[[object, dict], bool]   # the game of this deal (a new game) and
                                                # record line cannot be affected


def khans_without_impala_or_sable(deal, line: dict) -> bool:
    return not {"impala", "sable"} <= set(deal.to_json()["khans"])


def every_game(deal, line: dict) -> bool:
    return True


def no_heuristic_or_no_sable(deal, line: dict) -> bool:
    heuristic = any(agent.split(":")[0] == "heuristic" for agent in (line["focus"], line["others"]))
    return not heuristic or "sable" not in deal.to_json()["khans"]


CHANGES: Dict[str, Change] = {
    "khan-known-top": Change(
        "khan", "a Raid! card the Sable Nation draws from a top the Impala People revealed "
        "is face up (2026-12-04, docs/rules/khan_of_khans.md, 5): it changes nothing in a "
        "game without both Khans", khans_without_impala_or_sable),
    "khan-heuristic-face-down": Change(
        "khan", "the rule-based agent counts the Sable Nation's face-down cards out of their "
        "decks (2026-12-04, search/heuristics/khan.py): it changes nothing in a game without "
        "the heuristic agent or without the Sable Nation", no_heuristic_or_no_sable),
    "khan-heuristic-bounds": Change(
        "khan", "the rule-based agent values each of the Sable Nation's face-down herd cards "
        "within its Stampede! bound (2026-12-05, search/heuristics/khan.py): it changes "
        "nothing in a game without the heuristic agent or without the Sable Nation",
        no_heuristic_or_no_sable),
}
for _game in ("khan", "khiva", "kilim", "taschkent"):
    CHANGES[f"{_game}-fingerprint-reads-play"] = Change(
        _game, "the fingerprint hashes the heuristic's golden games and its code without "
        "comments, no longer its source's bytes (2026-12-06, bench/strength.py): nothing "
        "plays otherwise", every_game)
for _game in ("khiva", "kilim", "taschkent"):
    CHANGES[f"{_game}-fingerprint-per-player-count"] = Change(
        _game, "the fingerprint hashes the search defaults of the row's player count, no "
        "longer the whole registry row, whose score weight became one per player count "
        "(2026-12-06, engine/registry.py): no default changed, nothing plays otherwise",
        every_game)


def khans_without_sable(deal, line: dict) -> bool:
    return "sable" not in deal.to_json()["khans"]


CHANGES["khan-theft-slot"] = Change(
    "khan", "a random theft from the Sable Nation leaves a fixed face-down slot, not the "
    "picked one, and hashes the deck and value shown, not the pick (2026-12-06, "
    "docs/rules/khan_of_khans.md, 6): it changes nothing in a game without the Sable Nation",
    khans_without_sable)


def not_four_players(deal, line: dict) -> bool:
    return line["players"] != 4


CHANGES["khan-fingerprint-per-player-count"] = Change(
    "khan", "the fingerprint hashes the search defaults of the row's player count, and at 4 "
    "players the defaults became score weight 0.75 with mo keying (2026-12-06, "
    "engine/registry.py, docs/strength.md's seventh run): only 4-player games play otherwise",
    not_four_players)


def duels(deal, line: dict) -> bool:
    return line["players"] == 2


CHANGES["khiva-kept-cards"] = Change(
    "khiva", "at a redeal an observer's knowledge keeps that every other seat kept exactly "
    "its last cards (2026-12-07, docs/rules/khiva.md, Information): in a duel the one other "
    "seat kept every such card, which its knowledge already said, so only games of 3 to 5 "
    "players play otherwise", duels)


def job_of(line: dict) -> Job:
    return (line["game"], line["players"], line["focus"], line["others"], line["k"])


def carried_lines(change: Change, old: Set[str], path: str) -> List[dict]:
    """The record's lines played under a fingerprint in `old` whose deal `change` cannot
    touch, each game once (the last line of a game wins, as load_record reads them)."""
    lines: Dict[Job, dict] = {}
    with open(path) as f:
        for text in f:
            try:
                line = json.loads(text)
            except ValueError:
                continue                     # a torn line, as load_record skips it
            if line.get("fingerprint") not in old or line.get("game") != change.game:
                continue
            deal = new_game(change.game, line["players"], DEAL_BASE + line["k"] // line["players"])
            if change.untouched(deal, line):
                lines[job_of(line)] = line
    return list(lines.values())


def carried_line(line: dict, new: str, old: str, change: str, commit: str, date: str) -> dict:
    """The line under fingerprint `new`; a line carried before keeps its earlier carries
    (`carried_earlier`, oldest first), so it still says where it was played."""
    keys = ("carried_from", "carried_by", "carried_at", "carried_on")
    earlier = list(line.get("carried_earlier", []))
    if "carried_from" in line:
        earlier.append({k: line[k] for k in keys if k in line})
    out = dict(line, fingerprint=new, carried_from=old, carried_by=change, carried_at=commit,
               carried_on=date)
    if earlier:
        out["carried_earlier"] = earlier
    return out


def round_robin(groups: List[List[dict]]) -> List[dict]:
    """The first of each group, then the second of each, and so on."""
    out: List[dict] = []
    for i in range(max((len(g) for g in groups), default=0)):
        out.extend(g[i] for g in groups if i < len(g))
    return out


def sample_for_check(lines: List[dict], n: int) -> List[dict]:
    """n of `lines`, spread over the rows first (a row: players, focus, others) and within a
    row over its outcomes, the lowest k first: the same games every run. A check of four
    then plays a game of each of four rows, whatever their player counts."""
    rows: Dict[tuple, Dict[float, List[dict]]] = {}
    for line in sorted(lines, key=lambda l: l["k"]):
        row = rows.setdefault((line["players"], line["focus"], line["others"]), {})
        row.setdefault(line["share"], []).append(line)
    per_row = [round_robin([by_share[s] for s in sorted(by_share)])
               for _, by_share in sorted(rows.items())]
    return round_robin(per_row)[:n]


def replays_agree(check: List[dict], jobs: int) -> bool:
    """Play the games of `check` again under today's engine: does each give its recorded win
    share? Each is printed as it ends."""
    with Pool(max(1, jobs)) as pool:
        for job, share, secs in pool.imap(timed_play, [job_of(l) for l in check]):
            recorded = next(l["share"] for l in check if job_of(l) == job)
            print(f"  checked {job}: {share:.3f}, recorded {recorded:.3f} ({secs:.0f} s CPU)",
                  file=sys.stderr, flush=True)
            if share != recorded:
                print(f"carry_record.py: error: game {job} gives {share} today, recorded "
                      f"{recorded}: the change touched it", file=sys.stderr)
                return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("change", choices=sorted(CHANGES))
    ap.add_argument("--from", dest="old", required=True,
                    help="the fingerprint the games were recorded under")
    ap.add_argument("--check", type=non_negative_int, default=4,
                    help="games to play again before carrying (default 4)")
    ap.add_argument("--jobs", type=JOBS, default=os.cpu_count() or 1)
    ap.add_argument("--record", default=DEFAULT_RECORD)
    ap.add_argument("--verify", action="store_true",
                    help="carry nothing: play --check of the games already carried again")
    args = ap.parse_args(argv)
    change = CHANGES[args.change]
    info = game_info(change.game)
    today = {n: fingerprint(change.game, n)
             for n in range(info.min_players, info.max_players + 1)}
    if args.old in today.values():
        ap.error(f"--from {args.old} is today's fingerprint: there is nothing to carry")
    if args.verify:
        carried = [l for l in carried_lines(change, set(today.values()), args.record)
                   if l.get("carried_from") == args.old and l.get("carried_by") == args.change]
        return 0 if replays_agree(sample_for_check(carried, args.check), args.jobs) else 1
    done = load_record(args.record)
    todo = [l for l in carried_lines(change, {args.old}, args.record)
            if record_key(today[l["players"]], job_of(l)) not in done]
    print(f"{len(todo)} games of {change.game} to carry from {args.old} to today's "
          f"fingerprints", file=sys.stderr)
    if not replays_agree(sample_for_check(todo, args.check), args.jobs):
        print("carry_record.py: nothing carried", file=sys.stderr)
        return 1
    commit, date = head_commit(), time.strftime("%Y-%m-%d")
    for line in todo:                        # its own commit and date stay: when it was played
        append_line(args.record, carried_line(line, today[line["players"]], args.old,
                                              args.change, commit, date))
    print(f"carried {len(todo)} games", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
