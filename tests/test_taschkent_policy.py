"""Taschkent's playout policy (TaschkentCore.playout_move, C): what the search's playouts play.

`playout_choices(seed, k)` returns k of its draws from one Rng seeded by `seed`, and
`policy_moves()` the moves it draws from. The policy is
a uniformly random legal move that is not wasteful (docs/rules/taschkent.md, "Playout
policy"): these tests check that its moves are always legal, that it is reproducible, that it
leaves out exactly the wasteful moves and keeps every other one, and that it reads nothing
the player to move cannot see.
"""
import random

import pytest

from cext import taschkent as core
from cext.core import move_arg, move_kind
from engine.games.taschkent import Taschkent
from game_support import advance, check_playouts_read_only_the_movers_information, playout_draws
from taschkent_support import build, fresh, iron_to_sell_in_r2, play


def wasteful(g, move: int) -> bool:
    """The moves the policy leaves out, written from the rules' side (move kinds and
    arguments), independently of the C code."""
    kind, x = move_kind(move), move_arg(move)
    if kind in (core.MV_CAMEL, core.MV_CAMCARD):
        field, option = core.camel_field(x), core.camel_option(x)
        return (field <= 2 and option > 0) or (field == core.KALMYK and option == 0)
    if kind == core.MV_SKIP and x == core.SKIP_PASS:
        return any(move_kind(m) == core.MV_SELL for m in g.legal_moves())
    return kind in (core.MV_REMOVAL, core.MV_CARAVAN, core.MV_SHORT_B, core.MV_35)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_policy_always_plays_a_legal_move(players):
    """Thousands of positions of random games (walked half by the policy itself, half at
    random, so both kinds of lines are covered), 20 draws in each."""
    phases = set()
    positions = draws = 0
    for g, legal, choices in playout_draws(lambda k: Taschkent(players, 300 + k), 25):
        assert set(choices) <= legal, (g.to_json()["phase"], sorted(set(choices) - legal))
        positions += 1
        draws += len(choices)
        phases.add(g.to_json()["phase"])
    assert positions > 1500, positions
    assert phases == {"action", "move2", "end", "sell"}, phases
    assert Taschkent(players, 1).playout_choices(0, 0) == []


def test_a_finished_game_has_no_playout_move():
    g = advance(Taschkent(3, 5), 10_000, seed=5)
    assert g.is_terminal() and g.playout_choices(1, 5) == []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_policy_is_reproducible_for_a_seed(players):
    g = advance(Taschkent(players, 40 + players), 30, seed=players)
    while len(set(g.playout_choices(7, 300))) < 3:          # a position with a real choice
        advance(g, 1, seed=len(g.legal_moves()))
    a = g.playout_choices(7, 300)
    assert a == g.playout_choices(7, 300)
    assert a == g.clone().playout_choices(7, 300)
    assert a != g.playout_choices(8, 300)           # another seed, other draws


def test_the_opening_leaves_out_the_trade_connections_and_the_kalmyk():
    """At the opening seat 0 may lay 60 trade connections (fields 1 and 2) and walk to an
    empty Kalmyk: the policy plays every other legal move, and none of those."""
    g = Taschkent(3, 1)
    legal = g.legal_moves()
    left_out = [m for m in legal if wasteful(g, m)]
    assert len(left_out) == 61, [g.move_to_text(m) for m in left_out]
    draws = g.playout_choices(3, 4000)
    assert set(draws) == set(legal) - set(left_out)
    counts = [draws.count(m) for m in set(draws)]            # uniform among the rest
    assert min(counts) > 0.4 * max(counts), (min(counts), max(counts))


def test_a_seller_sells_rather_than_passes():
    d = fresh()
    iron_to_sell_in_r2(d, "H0")
    g = build(d)
    play(g, "no-move")                                       # the trading round: seat 0 sells
    assert g.to_json()["phase"] == "sell" and g.to_move == 0
    sales = {m for m in g.legal_moves() if g.move_to_text(m) != "pass"}
    assert len(sales) > 1
    assert set(g.playout_choices(4, 500)) == sales


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_choice_is_a_move_that_is_not_wasteful(players):
    for game in range(6):
        g = Taschkent(players, 700 + game)
        rng = random.Random(game)
        while not g.is_terminal():
            legal = g.legal_moves()
            keep = {m for m in legal if not wasteful(g, m)}
            choices = set(g.playout_choices(game * 7919 + len(legal), 40))
            assert choices <= (keep or set(legal)), [g.move_to_text(m) for m in choices - keep]
            g.apply(rng.choice(legal))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_policy_lists_exactly_the_legal_moves_that_are_not_wasteful(players):
    """The policy generates its moves itself (it never lists the wasteful ones): in every
    position of random games its list is the legal moves, in their order, less the wasteful
    ones by the rules-side definition above."""
    positions = 0
    for game in range(20):
        g = Taschkent(players, 900 + game)
        rng = random.Random(game)
        while not g.is_terminal():
            legal = g.legal_moves()
            assert g.policy_moves() == [m for m in legal if not wasteful(g, m)], \
                (g.to_json()["phase"], [g.move_to_text(m) for m in g.policy_moves()])
            positions += 1
            g.apply(rng.choice(legal))
    assert positions > 1000, positions
    assert Taschkent(players, 1).policy_moves() and advance(Taschkent(players, 5), 10_000,
                                                            seed=5).policy_moves() == []


@pytest.mark.parametrize("players", [2, 3])
def test_the_policy_reads_only_what_the_player_to_move_knows(players):
    """Determinizations for the player to move redraw the others' action cards and the
    piles: the policy's draws are the same in all of them."""
    positions = [advance(Taschkent(players, 90 + game), 25 + 7 * game, seed=game)
                 for game in range(4)]
    check_playouts_read_only_the_movers_information(
        [g for g in positions if not g.is_terminal()], choice_seed=11)
