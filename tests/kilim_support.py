"""Helpers to build Kilim positions for tests from a readable description.

A Kilim is written as in `Kilim.kilim_json`: dominoes [row, col, 'h'|'v', halves] (halves
top/left first: A-E patterns, X torn, P perfect) and scraps [type, row, col].
"""
from __future__ import annotations

import copy
from typing import Dict, List, Optional

from cext.kilim import Kilim


def cards(*values, spy=False, scrap=False, artisan=False) -> List[str]:
    out = [f"gold-{v}" for v in sorted(values)]
    out += ["spy"] * spy + ["scrap-bag"] * scrap + ["artisan"] * artisan
    return out


def third_day(players: int = 3, *, kilims: Optional[Dict[int, dict]] = None, seed: int = 0,
              edit=None) -> Kilim:
    """A position on the first turn of day 3: days 1 and 2 fully revealed (their dominoes not
    in a Kilim count as lost), the given Kilims woven, everything else untouched."""
    d = copy.deepcopy(Kilim(players, seed).to_json())
    rev = set(d["revealed"])
    for g in (0, 1):
        rev.update(d["piles"][g])
        d["piles"][g] = []
    d["torn_seen"] = [d["torn_in"][0], d["torn_in"][1], 0]
    d["day"] = 2
    d["turn"] = sum(len(p) for p in Kilim(players, seed).to_json()["piles"][:2]) + 1
    first = d["piles"][2].pop(0)
    d["on_table"] = first
    rev.discard(d["on_table"])
    if first.endswith("X"):
        d["torn_seen"][2] = 1
    placed = 0
    for p, kj in (kilims or {}).items():
        d["player_state"][p]["kilim"] = {"dominoes": kj.get("dominoes", []),
                                         "scraps": kj.get("scraps", [])}
        placed += sum(1 for dm in kj.get("dominoes", []) if dm[3] != "PP")
        for letter, _, _ in kj.get("scraps", []):
            d["scraps_on_board"].remove(letter)
    d["revealed"] = sorted(rev) + [first]
    d["lost"] = len(rev) - placed
    assert d["lost"] >= 0, "more dominoes woven than revealed"
    if edit:
        edit(d)
    return Kilim.from_json(d)


def window(players: int = 3, *, player: int = 0, kilims=None, tokens=None, scraps_held=None,
           perfect_held=None, edit=None) -> Kilim:
    """Day 3, after the market: `player` is in its optional weaving window."""
    def ed(d):
        d["lost"] += 1                                   # the domino on the table went nowhere
        d["on_table"] = None
        d["phase"], d["step"], d["seat_iter"], d["to_move"] = "window", 5, player, player
        for p in range(players):
            d["player_state"][p]["choice"] = "gold-1"
            d["player_state"][p]["hand"].remove("gold-1")
        for name, holder in (tokens or {}).items():
            tok = next(t for t in d["tokens"] if t["token"] == name)
            tok["holder"] = holder
        for p, letters in (scraps_held or {}).items():
            for letter in letters:
                d["scraps_on_board"].remove(letter)
                d["player_state"][p]["scraps_held"].append(letter)
        for p, k in (perfect_held or {}).items():
            d["player_state"][p]["perfect_held"] = k
            d["perfect_supply"] -= k
        if edit:
            edit(d)
    return third_day(players, kilims=kilims, edit=ed)


def play(g: Kilim, *texts: str) -> None:
    """Apply moves given in notation."""
    for t in texts:
        g.apply(g.parse_move(t))


def texts(g: Kilim) -> List[str]:
    return [g.move_to_text(m) for m in g.legal_moves()]


def player(g: Kilim, p: int) -> dict:
    return g.to_json()["player_state"][p]
