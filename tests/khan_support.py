"""Helpers to build Khan of Khans positions for tests and to play small matches."""
from __future__ import annotations

import copy
from typing import Dict, List, Optional, Sequence

from cext.khan import KhanOfKhans

TYPES = ("raid20", "raid50", "raid50", "raid100", "blessing", "stampede", "champion", "magic")
DECKS = ("boldhome", "colymar", "duckpoint", "dragonseye", "dwarfmine", "earthshaker",
         "furthest", "grazelands", "shadowsdance", "sundome")
VALUE_KEY = {20: "raid20", 50: "raid50", 100: "raid100"}


def position(khans: Sequence[str], *, tops: Optional[Dict[str, List[str]]] = None,
             herds: Optional[Dict[int, List[int]]] = None,
             corrals: Optional[Dict[int, List[int]]] = None,
             champions: Sequence[int] = (), kept: Optional[Dict[int, int]] = None,
             corrals_used: Optional[Dict[int, int]] = None, to_move: int = 0, seed: int = 0,
             edit=None) -> KhanOfKhans:
    """A position in the main phase. `tops[deck]` lists the cards to put on top of that deck
    (last = top card); `herds[p]` / `corrals[p]` list raid values moved there from the decks
    (taken from the bottom of the decks, never from the named tops); `champions` hold a
    Tribal Champion; `kept[p]` unused blessings. The decks keep their other cards in the
    seed's order. Sable's herd cards become face-down cards of the deck they are taken from."""
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
    for p, values in (herds or {}).items():
        ps = d["player_state"][p]
        for v in values:
            origin = take(VALUE_KEY[v])
            if ps["khan"] == "sable":
                d["sable_face_down"].append({"deck": origin, "at": "herd", "max": 100, "value": v})
            else:
                ps["herd"][str(v)] += 1
    for p, values in (corrals or {}).items():
        ps = d["player_state"][p]
        for v in values:
            origin = take(VALUE_KEY[v])
            if ps["khan"] == "sable":
                d["sable_face_down"].append({"deck": origin, "at": "corral", "max": 100,
                                             "value": v})
            else:
                ps["corral"][str(v)] += 1
    for p, used in (corrals_used or {}).items():
        ps = d["player_state"][p]
        ps["corrals_used"] += used
        ps["corrals_open"] -= used
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
    d["to_move"] = to_move
    if edit:
        edit(d)
    return KhanOfKhans.from_json(d)


def play(g: KhanOfKhans, *texts: str) -> None:
    """Apply moves given in notation."""
    for t in texts:
        g.apply(g.parse_move(t))


def player(g: KhanOfKhans, p: int) -> dict:
    return g.to_json()["player_state"][p]


def herd_of(g: KhanOfKhans, p: int) -> Dict[int, int]:
    """The herd of p by value, face-down cards included (from the full state)."""
    d = g.to_json()
    out = {int(k): v for k, v in d["player_state"][p]["herd"].items()}
    if d["player_state"][p]["khan"] == "sable":
        for s in d["sable_face_down"]:
            if s["at"] == "herd":
                out[s["value"]] += 1
    return out


def texts(g: KhanOfKhans) -> List[str]:
    return [g.move_to_text(m) for m in g.legal_moves()]


def play_match(agents, players: int, seed: int, khans=None) -> List[float]:
    """A whole game, agents[i] in seat i; the rewards."""
    g = KhanOfKhans(players, seed, khans=khans)
    while not g.is_terminal():
        g.apply(agents[g.to_move].choose(g))
    return g.rewards()
