"""Helpers to build Khan of Khans positions for tests."""
from __future__ import annotations

import copy
from typing import Dict, List, Optional, Sequence

from engine.games.khan import DERIVED, KhanOfKhans
from game_support import strip_derived
from game_support import play as play, player as player, texts as texts  # the tests import them from here

TYPES = ("raid20", "raid50", "raid50", "raid100", "blessing", "stampede", "champion", "magic")
DECKS = ("boldhome", "colymar", "duckpoint", "dragonseye", "dwarfmine", "earthshaker",
         "furthest", "grazelands", "shadowsdance", "sundome")
VALUE_KEY = {20: "raid20", 50: "raid50", 100: "raid100"}


def position(khans: Sequence[str], *, tops: Optional[Dict[str, List[str]]] = None,
             herds: Optional[Dict[int, List[int]]] = None,
             corrals: Optional[Dict[int, List[int]]] = None,
             champions: Sequence[int] = (), kept: Optional[Dict[int, int]] = None,
             corrals_used: Optional[Dict[int, int]] = None, to_move: int = 0, seed: int = 0,
             filler: str = "magic", edit=None) -> KhanOfKhans:
    """A position in the main phase. `tops[deck]` lists the cards to put on top of that deck
    (last = top card); `herds[p]` / `corrals[p]` list raid values moved there from the decks
    (taken from the bottom of the decks, never from the named tops); `champions` hold a
    Tribal Champion; `kept[p]` unused blessings. The decks keep their other cards in the
    seed's order. Sable's cards become face-down cards of the deck they are taken from (its
    corralled ones older than those in its herd).

    The rules must be able to reach it, so the turn counter is the one the cards drawn, the
    corrals and the sneaks imply; when the seat to move needs up to n-1 more turns, they are
    kept blessings used (as many as the players received) or else draws of `filler` cards,
    taken from the bottom of the last decks and discarded."""
    g = KhanOfKhans(len(khans), seed, khans=list(khans))
    d = copy.deepcopy(g.to_json())
    decks = {e["name"]: e for e in d["decks"]}
    reserved = {k: list(v) for k, v in (tops or {}).items()}

    def take(card: str, avoid_deck: Optional[str] = None) -> str:
        """Remove one `card` from some deck (not from its reserved top part); its deck."""
        for name in DECKS:
            e = decks[name]
            free = list(e["cards"])
            for c in reserved.get(name, []):
                free.remove(c)
            if card in free:
                e["cards"].remove(card)
                return name
        raise AssertionError(f"no {card} left to take")

    # reserve the tops first: pull them out and put them back on top at the end
    for name, cards in (tops or {}).items():
        for c in cards:
            decks[name]["cards"].remove(c)
    reserved = {}
    for place, held in (("corral", corrals), ("herd", herds)):      # older cards first
        for p, values in (held or {}).items():
            ps = d["player_state"][p]
            for v in values:
                origin = take(VALUE_KEY[v])
                if ps["khan"] == "sable":
                    d["sable_face_down"].append({"deck": origin, "at": place, "max": 100,
                                                 "value": v})
                else:
                    ps[place][str(v)] += 1
    for p, used in (corrals_used or {}).items():
        d["player_state"][p]["corrals_used"] += used
    for p in champions:
        take("champion")
        d["player_state"][p]["champion"] = True
    for p, k in (kept or {}).items():
        for _ in range(k):
            take("blessing")
        d["player_state"][p]["kept_blessings"] = k
    for name, cards in (tops or {}).items():
        decks[name]["cards"] += list(cards)
    # every card taken out and not placed goes to the box
    counts = {t: 0 for t in set(TYPES)}
    for e in d["decks"]:
        for c in e["cards"]:
            counts[c] += 1
    for t in counts:
        placed = counts[t]
        if t in ("raid20", "raid50", "raid100"):
            v = str({"raid20": 20, "raid50": 50, "raid100": 100}[t])
            placed += sum(ps["herd"][v] + ps["corral"][v] for ps in d["player_state"])
            placed += sum(1 for s in d["sable_face_down"] if VALUE_KEY[s["value"]] == t)
        if t == "champion":
            placed += sum(1 for ps in d["player_state"] if ps["champion"])
        if t == "blessing":
            placed += sum(ps["kept_blessings"] + ps["received_blessings"]
                          for ps in d["player_state"])
        d["box"][t] = TYPES.count(t) * 10 - placed
    if edit:
        edit(d)
    settle_turn(d, to_move, filler, {k: len(v) for k, v in (tops or {}).items()})
    return KhanOfKhans.from_json(without_derived(d))


def settle_turn(d: dict, to_move: int, filler: str, top_sizes: Dict[str, int]) -> None:
    """Set the turn to one the rules reach with `to_move` to move (see position)."""
    n = len(d["khans"])
    first = d["khans"].index("impala") if "impala" in d["khans"] else 0
    drawn = 80 - sum(len(e["cards"]) for e in d["decks"])
    quiet = sum(ps["corrals_used"] + ps["sneaked"] for ps in d["player_state"])
    missing = (to_move - first - drawn - quiet) % n
    uses = min(missing, sum(ps["received_blessings"] for ps in d["player_state"]))
    for _ in range(missing - uses):
        e = next((e for e in reversed(d["decks"])
                  if filler in e["cards"][:len(e["cards"]) - top_sizes.get(e["name"], 0)]), None)
        if e is None:
            raise AssertionError(f"no {filler} left to draw: give position another filler")
        e["cards"].remove(filler)
        d["box"][filler] += 1
    d["turn"] = drawn + quiet + missing
    d["to_move"] = to_move


def clear_decks(keep: Dict[str, int]):
    """An edit for position: every deck keeps only its top keep[name] cards (none if not
    named); the rest go to the box, but for the Waha's Blessings (never discarded), which the
    seats have received in turn, seat 0 first."""
    def edit(d: dict) -> None:
        seat = 0
        for e in d["decks"]:
            k = keep.get(e["name"], 0)
            gone, e["cards"] = e["cards"][:len(e["cards"]) - k], e["cards"][len(e["cards"]) - k:]
            for c in gone:
                if c == "blessing":
                    d["player_state"][seat]["received_blessings"] += 1
                    seat = (seat + 1) % len(d["player_state"])
                else:
                    d["box"][c] += 1
    return edit


def without_derived(d: dict) -> dict:
    """`d` without the fields the loader derives: after an edit they would be stale."""
    return strip_derived(d, DERIVED, ("player_state", "decks"))


def token_coloured(d: dict) -> None:
    """An edit for position: the Impala People's token coloured side up (the ability ready).
    Only a corral turns it: give the Impala People a used corral too."""
    d["impala_token"] = "coloured"


def herd_of(g: KhanOfKhans, p: int) -> Dict[int, int]:
    """The herd of p by value, face-down cards included (from the full state)."""
    d = g.to_json()
    out = {int(k): v for k, v in d["player_state"][p]["herd"].items()}
    if d["player_state"][p]["khan"] == "sable":
        for s in d["sable_face_down"]:
            if s["at"] == "herd":
                out[s["value"]] += 1
    return out
