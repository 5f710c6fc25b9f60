"""Helpers to build Taschkent positions for tests: to_json -> edit the dict -> from_json.

Every helper moves components from one place to another, so a position built with them
conserves every good, post, hut and card, and keeps it one the rules can reach: the turn
counters follow the seat to move, a hand's cards were drawn by a cameleer that moved, the round
track matches the round (from_json refuses anything else; docs/views/taschkent.md).
"""
from __future__ import annotations

import copy
from typing import List

from engine.games.taschkent import DERIVED, Taschkent
from game_support import strip_derived
from game_support import play as play, texts as texts  # the tests import them from here

CAMELS_OF = {"iron": ["iron"], "jade": ["jade"], "indigo": ["indigo1", "indigo2"]}
FIELDS = ["outside", "horses", "cards", "iron", "indigo1", "jade", "carriage", "indigo2", "kalmyk"]


def fresh(players: int = 3, seed: int = 0) -> dict:
    """The opening position as a full-state dict."""
    return copy.deepcopy(Taschkent(players, seed).to_json())


def build(d: dict) -> Taschkent:
    return Taschkent.from_json(without_derived(d))


def without_derived(d: dict) -> dict:
    """`d` without the fields the loader derives: after an edit they would be stale."""
    return strip_derived(d, DERIVED)


def ps(d: dict, p: int) -> dict:
    return d["player_state"][p]


def hut(d: dict, name: str) -> dict:
    return next(h for h in d["huts"] if h["id"] == name)


def hut_to(d: dict, name: str, at: str) -> None:
    hut(d, name)["at"] = at


def neutral_to(d: dict, region: int) -> str:
    """Put a neutral hut from the supply into region (1-based); returns its name."""
    h = next(h for h in d["huts"] if h["id"].startswith("N") and h["at"] == "supply")
    h["at"] = f"R{region}"
    return h["id"]


def good_on_hut(d: dict, name: str, good: str) -> None:
    """Take a good from its camel and put it on the hut."""
    take_from_camel(d, good)
    hut(d, name)["goods"].append(good)


def take_from_camel(d: dict, good: str) -> None:
    for c in CAMELS_OF[good]:
        if d["camels"][c] > 0:
            d["camels"][c] -= 1
            return
    raise ValueError(f"no {good} left on the camels")


def give_goods(d: dict, p: int, good: str, k: int = 1) -> None:
    for _ in range(k):
        take_from_camel(d, good)
        ps(d, p)["goods"][good] += 1


def add_posts(d: dict, p: int, region: int, k: int = 1) -> None:
    """k of p's trading posts into region (1-based), from the cart first, then the supply."""
    s = ps(d, p)
    for _ in range(k):
        if s["storage"] > 0:
            s["storage"] -= 1
        else:
            s["supply"] -= 1
        s["posts"][region - 1] += 1


def set_supply(d: dict, p: int, k: int) -> None:
    """p holds k posts in hand (the rest of its unplaced posts on the cart)."""
    s = ps(d, p)
    total = s["supply"] + s["storage"]
    assert k <= total
    s["supply"], s["storage"] = k, total - k


def give_action(d: dict, p: int, card: str) -> None:
    """Move one action card of type `card` from the pile to p's hand. A card is drawn on
    field 2, so a cameleer still outside the caravan goes there."""
    d["action_pile"].remove(card)
    ac = ps(d, p).setdefault("action_cards", {})
    ac[card] = ac.get(card, 0) + 1
    if ps(d, p)["cameleer"] == "outside":
        ps(d, p)["cameleer"] = "cards"


def pile_top(d: dict, card: str) -> None:
    """Put an action card of type `card` on top of the pile."""
    d["action_pile"].remove(card)
    d["action_pile"].append(card)


def give_trading(d: dict, p, cards: List[str]) -> None:
    """Move trading cards from the face-down pile to p's cards (p = "virtual" for the virtual player)."""
    for c in cards:
        d["trading_pile"].remove(c)
        if p == "virtual":
            d["virtual_cards"][c] += 1
        else:
            ps(d, p)["trading_cards"][c] += 1


def set_display(d: dict, cards: List[str]) -> None:
    """The face-up row becomes `cards` (left first); the old row goes back to the pile."""
    d["trading_pile"] += d["trading_display"]
    for c in cards:
        d["trading_pile"].remove(c)
    d["trading_display"] = list(cards)


def after_cycles(d: dict, cycles: int = 1) -> None:
    """The opening moved on by `cycles` cycles of two action rounds and a trading round each,
    in which nothing was bought or sold: each round 2 sent the hut of track field 2 to the
    Kalmyk, and each trading round put the lowest-numbered neutral hut of the supply there.
    Seats may hold trading cards from then on, and each refill may have drawn a row from the
    pile (the loader refuses both before). Call it before to_round, turn_of and the like:
    they count the turns from the cycle."""
    assert d["trading_rounds"] == 0 and cycles >= 1
    for _ in range(cycles):
        track2 = next(h for h in d["huts"] if h["at"] == "track2")
        track2["at"] = "kalmyk"
        spare = [h for h in d["huts"] if h["id"].startswith("N") and h["at"] == "supply"]
        if spare:
            spare[0]["at"] = "track2"
    d["trading_rounds"] = cycles
    turn_of(d, d["to_move"], d["phase"])


def turn_of(d: dict, p: int, phase: str = "action") -> None:
    """Seat p's turn in the current action round, in `phase`, with nothing done before it
    in the turn; the turn counters follow (every earlier cycle two action rounds long)."""
    n = d["players"]
    d["to_move"] = p
    d["phase"] = phase
    d["turn_no"] = (p - d["start_player"]) % n
    d["turns"] = n * (2 * d["trading_rounds"] + d["round"] - 1) + d["turn_no"]
    d["last_start"] = None


def to_round(d: dict, round_: int) -> None:
    """Action round `round_` of the cycle: the neutral huts of the round track that went to
    the Kalmyk when rounds 2 and 4 began are there; the start player is to move."""
    d["round"] = round_
    for field, first in (("track2", 2), ("track4", 4)):
        for h in d["huts"]:
            if h["at"] == field and round_ >= first:
                h["at"] = "kalmyk"
    turn_of(d, d["start_player"])


def last_turn_of_round(d: dict, round_: int = 4) -> None:
    """The last seat of the action round is about to skip its second move."""
    n = d["players"]
    to_round(d, round_)
    turn_of(d, (d["start_player"] + n - 1) % n, "move2")


def finished(d: dict) -> Taschkent:
    """The position as a finished game: the first cycle ended after two action rounds and its
    trading round, because the last action cards were drawn (the pile goes to the played
    cards)."""
    n = d["players"]
    to_round(d, 2)
    for c in d["action_pile"]:
        d["played_cards"][c] = d["played_cards"].get(c, 0) + 1
    d["action_pile"] = []
    d["trading_rounds"], d["turn_no"], d["turns"] = 1, n, 2 * n
    d["phase"], d["to_move"] = "over", -1
    return build(d)


def iron_to_sell_in_r2(d: dict, own_hut: str) -> str:
    """Seat 0, with an iron and a trading post in R2, is about to sell in the trading round
    that follows (the last seat of round 4 skips its second move): a neutral hut and seat
    `own_hut` stand in R2 beside the printed R2a and R2b. The neutral hut's name."""
    neutral = neutral_to(d, 2)
    hut_to(d, own_hut, "R2")
    give_goods(d, 0, "iron")
    add_posts(d, 0, 2)
    last_turn_of_round(d)
    return neutral


def state(g: Taschkent) -> dict:
    return g.to_json()
