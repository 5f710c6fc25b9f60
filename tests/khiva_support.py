"""Helpers to build Khiva positions for tests from a readable description."""
from __future__ import annotations

import copy
from typing import Dict, List, Optional

from engine.games.khiva import DERIVED, Khiva, hand_start, per_turn, turns_per_deal
from game_support import strip_derived
from game_support import play as play, player as player  # the tests import them from here

ALL_CARDS = [f"{c}{v}" for c in "WBGPK" for v in range(1, 6)]


def position(players: int = 3, *, hands: Optional[Dict[int, List[str]]] = None,
             camels: Optional[Dict[str, str]] = None, teapots_on: Optional[Dict[str, int]] = None,
             gems: Optional[Dict[int, int]] = None, aside_down: Optional[List[str]] = None,
             to_move: int = 0, seed: int = 0, edit=None) -> Khiva:
    """A position in the choice phase: hands as given (all of one size, which fixes the turn:
    5 cards is the first turn of a deal, 4 the second...), the cards played since the deal in
    the public discard and the rest set aside (`aside_down` if given), camels where given (the
    rest in Khiva), gems taken from the supply. The rules must be able to reach it: the loader
    refuses anything else (so a first turn with camels out or gems held is the second deal's)."""
    d = Khiva(players, seed).to_json()
    d = copy.deepcopy(d)
    hands = hands or {}
    held = set()
    for p, ps in enumerate(d["player_state"]):
        ps["hand"] = list(hands.get(p, []))
        ps["chosen_play"], ps["chosen_give"] = [], []
        held.update(ps["hand"])
    size = max(len(h) for h in hands.values()) if hands else len(d["player_state"][0]["hand"])
    into_deal = (hand_start(players) - size) // per_turn(players)
    # nothing moves before the first cards are revealed: a first turn of a deal with camels
    # out or gems held is the second deal's
    later = into_deal == 0 and bool(camels or gems or edit)
    d["turn"] = into_deal + (turns_per_deal(players) if later else 0)
    d.pop("deal")
    rest = [c for c in ALL_CARDS if c not in held and c not in (aside_down or [])]
    n_discard = players * per_turn(players) * into_deal
    d["discard"], rest = rest[:n_discard], rest[n_discard:]
    if players == 2:
        d["aside_up"], rest = rest[:4], rest[4:]
    d["aside_down"] = list(aside_down or []) + rest
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
    return Khiva.from_json(without_derived(d))


def without_derived(d: dict) -> dict:
    """`d` without the fields the loader derives: after an edit they would be stale."""
    return strip_derived(d, DERIVED)


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


def camel_at(g: Khiva, colour: str) -> str:
    return next(c["at"] for c in g.to_json()["camels"] if c["colour"] == colour)


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


def allison_in_boost(edit=None) -> Khiva:
    """Rulebook, How to Play > Example: Adil (seat 0) requests blue with a 5, Allison (seat 1)
    with a 2; blue on P0.2, green on P1.3; Allison holds 5 gems and is asked her boost."""
    h = {0: ["B5", "W1", "W2", "W3", "W4"], 1: ["B2", "G1", "P1", "P2", "P3"],
         2: ["K1", "K2", "K3", "K4", "K5"]}
    g = position(hands=h, camels={"blue": "P0.2", "green": "P1.3"}, gems={1: 5}, edit=edit)
    play(g, "play-B5-give-W1", "play-B2-give-G1", "play-K1-give-K2")
    assert g.phase == "boost" and g.to_move == 1
    return g
