"""Kilim's playout policy (KilimCore.playout_move, read through playout_choices): every move it
takes is legal, in thousands of positions at every player count, it depends only on the
position and the seed, it bids by value and it weaves a scrap over a torn pattern
(docs/rules/kilim.md, "Playout policy")."""
from __future__ import annotations

import random
from collections import Counter
from typing import Iterator

import pytest

from cext import kilim as core
from cext.core import move_arg, move_kind
from engine.games.kilim import CODE_LETTERS, PHASE_NAMES, Kilim, domino_halves, parse_domino
from kilim_support import play, window

POSITIONS = 1500            # positions checked per player count
DRAWS = 6                   # policy draws per position


def positions(players: int, seed: int, count: int) -> Iterator[Kilim]:
    """`count` positions along seeded games in which every move is the policy's own or, one
    time in three, a random legal one (so the positions are those playouts reach and others)."""
    rnd = random.Random(seed)
    game = 0
    while count > 0:
        st = Kilim(players, seed * 1000 + game)
        game += 1
        while not st.is_terminal() and count > 0:
            yield st
            count -= 1
            if rnd.random() < 1 / 3:
                moves = st.legal_moves()
                st.apply(moves[rnd.randrange(len(moves))])
            else:
                st.apply(st.playout_choices(rnd.randrange(2**32))[0])


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_policy_move_is_legal(players):
    phases: Counter = Counter()
    for i, st in enumerate(positions(players, seed=players, count=POSITIONS)):
        legal = set(st.legal_moves())
        choices = st.playout_choices(i, DRAWS)
        assert len(choices) == DRAWS
        for m in choices:
            assert m in legal, (f"{players} players, {st.to_json()['phase']}: policy move "
                                f"{m} ({st.move_to_text(m)}) is not legal")
        phases[PHASE_NAMES[st._fields()["phase"]]] += 1
    # the positions reach the phases where the policy decides (cards, placements, windows)
    assert phases["card"] and phases["place"] and phases["window"], phases


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_policy_depends_only_on_the_position_and_the_seed(players):
    """The same draws from the same seed, again and from the position loaded from its JSON
    (whose Kilims list their cells in another order than play appended them)."""
    for i, st in enumerate(positions(players, seed=7, count=800)):
        again = Kilim.from_json(st.to_json())
        assert st.playout_choices(i, 5) == again.playout_choices(i, 5) == st.playout_choices(i, 5)


def test_the_policy_seeds_and_ends():
    assert Kilim(3, 1).playout_choices(5, 1) == Kilim(3, 1).clone().playout_choices(5, 1)
    assert Kilim(3, 1).playout_choices(0, 50) != Kilim(3, 1).playout_choices(1, 50)
    over = Kilim(2, 1)
    while not over.is_terminal():
        over.apply(over.playout_choices(3)[0])
    assert over.playout_choices(3, 4) == []


def worth(st: Kilim) -> int:
    """What the auction's dominoes (on the table and carried) are worth to the seat to move, as
    the policy counts it: -1 a torn carpet, else a point for each half whose pattern its Kilim
    shows, 1 for any domino while the Kilim is empty."""
    d = st.to_json()
    shown = {ch for row in st.kilim_rows(st.to_move) for ch in row if ch != "."}
    total = 0
    for text in [d["on_table"]] + d["pending"]:
        dom = parse_domino(text)
        if dom >= core.ID_TORN:
            total -= 1
        elif not shown:
            total += 1
        else:
            total += sum(CODE_LETTERS[h] in shown for h in domino_halves(dom))
    return total


def test_the_policy_bids_by_value():
    """A seat plays its highest Gold card for dominoes worth 2 or more to it, its lowest for a
    torn carpet (all but the policy's random tenth, where a random card may coincide)."""
    hits = Counter()
    draws = Counter()
    for i, st in enumerate(positions(3, seed=5, count=4000)):
        f = st._fields()
        if f["phase"] != core.PH_CARD or f["on_table"] < 0:
            continue
        gold = [c for c in range(1, core.GOLD_MAX + 1) if f["hand"][st.to_move] >> c & 1]
        w = worth(st)
        want = max(gold) if w >= 2 else min(gold) if w < 0 else None
        if want is None:
            continue
        case = "high" if w >= 2 else "low"
        for m in st.playout_choices(i, 10):
            assert move_kind(m) == core.MV_CARD
            hits[case] += move_arg(m) == want
            draws[case] += 1
    for case in ("high", "low"):
        assert draws[case] >= 300, draws
        assert hits[case] >= 0.88 * draws[case], (case, hits, draws)


def test_the_policy_weaves_a_scrap_over_a_torn_pattern():
    """A seat holding a scrap, with a torn pattern showing in its Kilim, weaves the scrap in its
    window, and then puts it on a torn pattern."""
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AX"]]}}, scraps_held={0: ["B"]})
    choices = g.playout_choices(1, 100)
    assert choices.count(g.parse_move("weave-scrap-B")) >= 88
    play(g, "weave-scrap-B")
    choices = g.playout_choices(2, 100)
    assert choices.count(g.parse_move("scrap@0,1")) >= 88
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AB"]]}}, scraps_held={0: ["B"]})
    assert g.playout_choices(3, 100).count(g.parse_move("done")) >= 88   # no torn pattern, no hole
