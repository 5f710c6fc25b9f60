"""Helpers to build Kilim positions for tests from a readable description.

A Kilim is written as in `Kilim.kilim_json`: dominoes [row, col, 'h'|'v', halves] (halves
top/left first: A-E patterns, X torn, P perfect) and scraps [type, row, col].

The loader refuses positions the rules cannot reach, so every builder here makes one the
rules can: the piles are dealt so that every woven domino was revealed (a woven "AB" needs one
of 1AB, 2AB, 3AB revealed), hands hold one Gold card fewer for every auction of the day, a
token in hand was taken by an Artisan call, and so on.
"""
from __future__ import annotations

import copy
from collections import Counter
from typing import Dict, List, Optional

from engine.games.kilim import (DERIVED, PAIRS, Kilim, domino_kind, domino_text, group_size,
                                write_fields)
from game_support import strip_derived
from game_support import play as play, player as player, texts as texts  # the tests import them from here

TORN_PER_GROUP = {2: (1, 1, 0), 3: (1, 1, 1), 4: (2, 1, 1), 5: (2, 2, 1)}
LETTERS = "ABCDEXP"


def cards(*values, spy=False, scrap=False, artisan=False) -> List[str]:
    out = [f"gold-{v}" for v in sorted(values)]
    out += ["spy"] * spy + ["scrap-bag"] * scrap + ["artisan"] * artisan
    return out


def without_derived(d: dict) -> dict:
    """`d` without the fields the loader derives: after an edit they would be stale."""
    return strip_derived(d, DERIVED)


def forced(data: dict) -> Kilim:
    """The state `data` describes, written into the core without any check: what the loader
    used to accept (tests/test_kilim_loading.py runs a search from one in a child process)."""
    st = Kilim(data["players"], data["seed"])
    fields = st._fields()
    write_fields(fields, data)
    st._set_fields(fields)
    return st


# ---------------------------------------------------------------- dealing the piles
def woven_kinds(kilims: Dict[int, dict]) -> Counter:
    """The kinds of the dominoes woven in `kilims` (perfect carpets left out)."""
    kinds: Counter = Counter()
    for kj in kilims.values():
        for _, _, _, halves in kj.get("dominoes", []):
            kind = domino_kind(LETTERS.index(halves[0]), LETTERS.index(halves[1]))
            if kind:
                kinds[kind] += 1
    return kinds


def dealt_piles(players: int, needed: Counter, groups: int) -> List[List[int]]:
    """Each group's whole pile (ids, in reveal order) such that the first `groups` groups hold
    the `needed` domino kinds: a regular kind in as many of them as needed, a torn carpet in
    one of them. Replaced and removed regular dominoes are ones nobody needs."""
    torn_in = TORN_PER_GROUP[players]
    size = group_size(players)
    torn_needed = [k[0] for k in needed if len(k) == 1]
    torn_order = torn_needed + [t for t in range(5) if t not in torn_needed]
    piles, used_torn = [], 0
    for g in range(3):
        wanted = [i for i, pair in enumerate(PAIRS) if g < groups and needed[pair] > g]
        others = [i for i in range(15) if i not in wanted]
        regular = (wanted + others)[:size - torn_in[g]]
        assert len(wanted) <= len(regular), "more kinds of domino needed than a pile holds"
        torn = torn_order[used_torn:used_torn + torn_in[g]]
        used_torn += torn_in[g]
        piles.append([g * 15 + i for i in regular] + [45 + t for t in torn])
    assert all(t in torn_order[:sum(torn_in[:groups])] for t in torn_needed), "torn carpet not revealed"
    return piles


def fresh_state(players: int, seed: int) -> dict:
    """A fresh deal's full state to edit, without what the seats learned (a built position
    has no history; left out, nobody has learned anything yet)."""
    d = copy.deepcopy(Kilim(players, seed).to_json())
    del d["whereabouts_by_seat"], d["scrap_groups_by_seat"]
    return d


def deal(players: int, seed: int, kilims: Dict[int, dict], groups: int) -> dict:
    """A fresh deal's full state with the piles dealt for `kilims` (see dealt_piles), the
    Kilims woven and their scraps taken from the board; the caller sets what was revealed."""
    d = fresh_state(players, seed)
    d["piles"] = [[domino_text(x) for x in pile] for pile in dealt_piles(players, woven_kinds(kilims), groups)]
    for p, kj in kilims.items():
        d["player_state"][p]["kilim"] = {"dominoes": kj.get("dominoes", []), "scraps": kj.get("scraps", [])}
        for letter, _, _ in kj.get("scraps", []):
            d["scraps_on_board"].remove(letter)
    return d


def reveal(d: dict, group: int, count: int) -> List[str]:
    """Reveal the first `count` dominoes of `group`'s pile (in `d`, edited); returns them."""
    shown, d["piles"][group] = d["piles"][group][:count], d["piles"][group][count:]
    d["revealed"] = d.get("revealed", []) + shown
    d["torn_seen"][group] += sum(1 for t in shown if t.endswith("X"))
    return shown


def start_of_day(d: dict, day: int, woven: int) -> None:
    """Days before `day` fully revealed and the first domino of `day` on the table: the
    revealed dominoes not woven (`woven` of them) were lost."""
    players = d["players"]
    d["revealed"], d["torn_seen"] = [], [0, 0, 0]
    for g in range(day):
        reveal(d, g, group_size(players))
    d["lost"] = len(d["revealed"]) - woven
    assert d["lost"] >= 0, "more dominoes woven than revealed"
    d["day"] = day
    d["on_table"] = reveal(d, day, 1)[0]


def perfect_woven(kilims: Dict[int, dict]) -> int:
    return sum(1 for kj in kilims.values() for dom in kj.get("dominoes", []) if dom[3] == "PP")


def regular_woven(kilims: Dict[int, dict]) -> int:
    return sum(1 for kj in kilims.values() for dom in kj.get("dominoes", []) if dom[3] != "PP")


# ---------------------------------------------------------------- positions
def third_day(players: int = 3, *, kilims: Optional[Dict[int, dict]] = None, seed: int = 0,
              edit=None) -> Kilim:
    """A position on the first turn of day 3: days 1 and 2 fully revealed (their dominoes not
    in a Kilim count as lost), the given Kilims woven, everything else untouched."""
    kilims = kilims or {}
    d = deal(players, seed, kilims, groups=2)
    start_of_day(d, 2, regular_woven(kilims))
    d["perfect_supply"] = 3 - perfect_woven(kilims)
    if edit:
        edit(d)
    return Kilim.from_json(without_derived(d))


def game_over(players: int = 3, *, kilims: Optional[Dict[int, dict]] = None, seed: int = 0) -> Kilim:
    """A finished game: every pile revealed, the given Kilims woven, the other dominoes lost."""
    kilims = kilims or {}
    d = deal(players, seed, kilims, groups=3)
    start_of_day(d, 2, regular_woven(kilims))
    reveal(d, 2, group_size(players))
    d["lost"] += group_size(players)
    d.update(day=3, phase="over", to_move=-1, on_table=None, perfect_supply=3 - perfect_woven(kilims))
    return Kilim.from_json(without_derived(d))


def window(players: int = 3, *, player: int = 0, kilims=None, tokens=None, scraps_held=None,
           perfect_held=None, edit=None) -> Kilim:
    """Day 3, after the first auction: `player` is in its optional weaving window.

    Without a token, every seat offered gold-1: the offers cancel out and the domino is
    carried. With a token (one, held by `player`), `player` played the Artisan and offered
    gold-1, the next seat won the auction with gold-15 (and wove the domino into its empty
    Kilim), and `player` took the token."""
    assert not tokens or (len(tokens) == 1 and set(tokens.values()) == {player})

    def ed(d):
        domino = d["on_table"]
        d["on_table"] = None
        d["phase"], d["to_move"] = "window", player
        for p, ps in enumerate(d["player_state"]):
            ps["choice"] = "gold-1"
        if tokens:
            winner = (player + 1) % players
            offers = iter(range(2, 15))
            for p, ps in enumerate(d["player_state"]):
                if p == player:
                    ps["choice"], ps["artisan_bid"] = "artisan", 1
                    ps["hand"].remove("artisan")
                elif p == winner:
                    ps["choice"] = "gold-15"
                else:
                    ps["choice"] = f"gold-{next(offers)}"
            assert not d["player_state"][winner]["kilim"]["dominoes"]
            halves = domino[1:] if len(domino) == 3 else domino
            d["player_state"][winner]["kilim"]["dominoes"] = [[0, 0, "h", halves]]
            name = next(iter(tokens))
            next(t for t in d["tokens"] if t["token"] == name)["holder"] = player
        else:
            d["pending"] = [domino]                  # every offer cancels out: carried
        for ps in d["player_state"]:
            ps["hand"].remove("gold-1" if ps["choice"] == "artisan" else ps["choice"])
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


def late_in_day(players: int, seed: int, hands: Dict[int, List[str]], left: int) -> Kilim:
    """Day 1 with `left` dominoes face down behind the one on the table: seat 0 won every
    auction so far and wove the dominoes in rows of two; the hands are as given (each holds
    one Gold card for every auction still to come)."""
    d = fresh_state(players, seed)
    pile = [d["on_table"]] + d["piles"][0]
    done = len(pile) - 1 - left
    won, d["on_table"], d["piles"][0] = pile[:done], pile[done], pile[done + 1:]
    d["revealed"] = won + [d["on_table"]]
    d["torn_seen"][0] = sum(1 for t in d["revealed"] if t.endswith("X"))
    d["player_state"][0]["kilim"]["dominoes"] = [
        [i // 2, (i % 2) * 2, "h", t[1:] if len(t) == 3 else t] for i, t in enumerate(won)]
    for p, hand in hands.items():
        assert sum(1 for c in hand if c.startswith("gold-")) == group_size(players) - done
        d["player_state"][p]["hand"] = hand
    return Kilim.from_json(without_derived(d))


def last_turn_of_day(players: int = 4, hands: Optional[Dict[int, List[str]]] = None) -> Kilim:
    """The last auction of day 1 (seed 2): every seat holds its three special cards and one
    Gold card (gold-4 unless `hands` says otherwise)."""
    hands = {p: cards(4, spy=True, scrap=True, artisan=True) for p in range(players)} | (hands or {})
    return late_in_day(players, 2, hands, left=0)
