"""Helpers to build Khiva positions for tests from a readable description."""
from __future__ import annotations

import copy
from typing import Dict, List, Optional

from cext.khiva import Khiva

ALL_CARDS = [f"{c}{v}" for c in "WBGPK" for v in range(1, 6)]


def position(players: int = 3, *, hands: Optional[Dict[int, List[str]]] = None,
             camels: Optional[Dict[str, str]] = None, teapots_on: Optional[Dict[str, int]] = None,
             gems: Optional[Dict[int, int]] = None, aside_down: Optional[List[str]] = None,
             to_move: int = 0, seed: int = 0, edit=None) -> Khiva:
    """A position in the choice phase: hands as given, every other card in the public discard
    (or in `aside_down`), camels where given (the rest in Khiva), gems taken from the supply."""
    d = Khiva(players, seed).to_json()
    d = copy.deepcopy(d)
    hands = hands or {}
    held = set()
    for p, ps in enumerate(d["player_state"]):
        ps["hand"] = list(hands.get(p, []))
        ps["chosen_play"], ps["chosen_give"] = [], []
        held.update(ps["hand"])
    d["aside_down"] = list(aside_down or [])
    d["aside_up"] = []
    held.update(d["aside_down"])
    d["discard"] = [c for c in ALL_CARDS if c not in held]
    for cam in d["camels"]:
        cam["at"] = (camels or {}).get(cam["colour"], "khiva")
        if teapots_on and cam["colour"] in teapots_on:
            wanted = teapots_on[cam["colour"]]
            _swap_teapot(d, cam, wanted)
    for p, g in (gems or {}).items():
        d["player_state"][p]["gems"] = g
        d["gem_supply"] -= g
    d["to_move"] = to_move
    if edit:
        edit(d)
    return Khiva.from_json(d)


def _swap_teapot(d, cam, wanted: int) -> None:
    """Put a teapot of value `wanted` on `cam`, trading with the pile or another camel."""
    if cam["teapot"] == wanted:
        return
    pile = d["teapot_pile"]
    if wanted in pile:
        pile[pile.index(wanted)] = cam["teapot"]
    else:
        other = next(c for c in d["camels"] if c is not cam and c["teapot"] == wanted)
        other["teapot"] = cam["teapot"]
    cam["teapot"] = wanted


def play(g: Khiva, *texts: str) -> None:
    """Apply moves given in notation."""
    for t in texts:
        g.apply(g.parse_move(t))


def camel_at(g: Khiva, colour: str) -> str:
    return next(c["at"] for c in g.to_json()["camels"] if c["colour"] == colour)


def player(g: Khiva, p: int) -> dict:
    return g.to_json()["player_state"][p]


def give_teapots(d: dict, p: int, values: List[int]) -> None:
    """Move teapots of the given values (from the pile, else from a camel's back) to player p."""
    for v in values:
        pile = d["teapot_pile"]
        if v in pile:
            pile.remove(v)
        else:
            cam = next(c for c in d["camels"] if c["teapot"] == v)
            cam["teapot"] = pile.pop()
        ps = d["player_state"][p]
        ps["teapots"] += 1
        ps["teapot_points"] += v
