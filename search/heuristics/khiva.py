"""A rule-based Khiva player: greedy on the immediate value of each camel move.

A card's worth is the reward its camel would bring if the request were granted (teapot and
deliverable carpets at the outpost, gems, carpets or salt at the shops), discounted by the
chance that a lower card of the same colour beats it, plus the compensation gem otherwise.
It gives away the card worth least to its left neighbour, spends gems on a boost only when
the better space is worth the gems, and buys salt whenever it beats a carpet.
"""
from __future__ import annotations

import random
from typing import Callable, List, Tuple

from cext import khiva as core
from cext.core import move_arg, move_kind
from engine.games.khiva import card_text, choice_of, parse_card, parse_pos

COLOURS = ("white", "blue", "green", "pink", "black")
CARPET_GUESS = 2.5          # a carpet is worth 3-5 if delivered, nothing otherwise
SHOP_GEMS = {1: 1, 3: 2}


def _parse(pos: str) -> Tuple[int, int]:
    """(path, space) with (-1, 0) for Khiva."""
    if pos == "khiva":
        return (-1, 0)
    p, s = pos[1:].split(".")
    return (int(p), int(s))


def _step(pos: Tuple[int, int], me: int) -> Tuple[int, int]:
    path, space = pos
    if path < 0:
        return (me, 1)
    if path == me:
        return (me, space + 1)
    return (-1, 0) if space == 1 else (path, space - 1)


def landing(d: dict, colour: int, me: int, steps: int) -> Tuple[int, int]:
    """Where the camel of `colour` stops after `steps` empty spaces towards `me`."""
    occupied = {_parse(c["at"]) for i, c in enumerate(d["camels"]) if i != colour}
    pos = _parse(d["camels"][colour]["at"])
    while steps > 0:
        pos = _step(pos, me)
        if pos == (me, 5):
            break
        if pos not in occupied:
            steps -= 1
    return pos


def space_value(d: dict, colour: int, me: int, pos: Tuple[int, int], gems: int) -> float:
    ps = d["player_state"][me]
    path, space = pos
    if path < 0:
        return 0.0
    if space == 5:
        carpets = sum(int(c[1]) for c in ps["carpets_held"] if c[0] == "WBGPK"[colour])
        return d["camels"][colour]["teapot"] + carpets
    if space in SHOP_GEMS:
        return SHOP_GEMS[space]
    if space == 2:
        return CARPET_GUESS if d["carpet_pile_count"] else 0.0
    salt = d["salt_pile"][0] - 3 if d["salt_pile"] and gems >= 3 else 0
    return max(salt, CARPET_GUESS if d["carpet_pile_count"] else 0.0)


def boost_cap(d: dict, card: str, me: int, gems: int) -> int:
    """The largest boost the rules would offer `me` with `card` granted now (never past the
    outpost)."""
    camel_pos = [parse_pos(c["at"], d["players"], ()) for c in d["camels"]]
    return core.boost_limit(camel_pos, parse_card(card), me, gems)


def card_worth(d: dict, card: str, me: int) -> float:
    colour, value = "WBGPK".index(card[0]), int(card[1])
    gems = d["player_state"][me]["gems"]
    best = max(space_value(d, colour, me, landing(d, colour, me, value + b), gems - b) - 0.8 * b
               for b in range(boost_cap(d, card, me, gems) + 1))
    granted = (6 - value) / 5                      # a lower card of the colour may beat it
    return granted * best + (1 - granted) * 1.0


def choose(world, player: int, rng: random.Random) -> int:
    d = world.to_json()
    legal = world.legal_moves()
    if move_kind(legal[0]) == core.MV_CHOOSE:
        left = (player + 1) % d["players"]

        def value(move: int) -> float:
            play, give = choice_of(move)
            return (sum(card_worth(d, card_text(c), player) for c in play)
                    - 0.5 * sum(card_worth(d, card_text(c), left) for c in give))
        return _best(legal, value, rng)
    if move_kind(legal[0]) == core.MV_BOOST:
        pend = d["pending"]
        colour = COLOURS.index(pend["camel"])
        value = int(pend["card"][1])
        gems = d["player_state"][player]["gems"]

        def boost_value(move: int) -> float:
            b = move_arg(move)
            pos = landing(d, colour, player, value + b)
            return space_value(d, colour, player, pos, gems - b) - 0.8 * b
        return _best(legal, boost_value, rng)
    # shop 4: salt when it is worth more than a carpet
    salt = d["salt_pile"][0] - 3 if d["salt_pile"] else 0
    prefs = {core.SHOP_SALT: salt, core.SHOP_CARPET: CARPET_GUESS}
    return _best(legal, lambda m: prefs[move_arg(m)], rng)


def _best(legal: List[int], value: Callable[[int], float], rng: random.Random) -> int:
    scored = [(value(m), rng.random(), m) for m in legal]
    return max(scored)[2]
