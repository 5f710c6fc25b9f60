"""The Python front doors take what docs/protocol.md ("The Python API") says and refuse the
rest with a ValueError: suggest's keywords and budget, a search stopped before it began,
SearchConfig's exploration constant and keying mode, Ray addresses, and the game classes'
player counts and seeds."""
import json
import math
import sys
import threading
from pathlib import Path

import jsonschema
import pytest

from engine.registry import GAMES, new_game
from search.config import MAX_C, SearchConfig
from search.suggest import Budget, suggest

HINT_SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "docs" / "views" /
                          "hint.schema.json").read_text())


def state():
    return new_game("khiva", 3, 7)


# ---------------------------------------------------------------- SearchConfig
@pytest.mark.parametrize("call", [
    lambda: SearchConfig(mode="full"),
    lambda: suggest(state(), 50, mode="full"),
])
def test_full_keying_needs_a_search_that_does_not_determinize(call):
    """mode "full" keys nodes by the whole state, which a determinized search redraws every
    iteration: suggest(mode="full") answered no moves at all."""
    with pytest.raises(ValueError, match="use 'so' or 'mo'"):
        call()


@pytest.mark.parametrize("spec", ["cheat:iterations=50", "pimc:iterations=60"])
def test_the_perfect_information_agents_still_search_with_full_keying(spec):
    """They search a state whose hidden parts are already drawn: full keying, no sampling."""
    from search.agents import parse_agent

    g = state()
    assert g.parse_move(g.move_to_text(parse_agent(spec).build(1).choose(g))) in g.legal_moves()


@pytest.mark.parametrize("c", [math.inf, -math.inf, math.nan, MAX_C + 0.001, -0.1,
                               pytest.param(10**400, id="10**400")])
def test_an_exploration_constant_outside_0_to_100_is_refused(c):
    with pytest.raises(ValueError, match="exploration constant must be >= 0 and at most 100"):
        SearchConfig(c=c)
    with pytest.raises(ValueError, match="exploration constant"):
        suggest(state(), 50, c=c)


def test_the_exploration_constant_takes_0_to_100():
    assert SearchConfig(c=0).c == 0.0 and SearchConfig(c=MAX_C).c == 100.0
    assert suggest(state(), 30, c=MAX_C).iterations == 30


# ---------------------------------------------------------------- Ray addresses
@pytest.mark.parametrize("address", [
    "garbage", "garbage:", ":6379", "host:port", "host:99999", "host:0", "host:+1",
    "host:6_379", "ray://", "ray://host", "http://host:6379", "two words:6379", "host:６３７９",
    "x" * 300 + ":1",
])
def test_a_malformed_ray_address_is_a_value_error_before_ray(address):
    assert_ray_untouched = "ray" not in sys.modules
    with pytest.raises(ValueError, match="a Ray address is"):
        suggest(state(), 50, address=address)
    if assert_ray_untouched:
        assert "ray" not in sys.modules


@pytest.mark.parametrize("address", ["garbage:1", "no-such-host.invalid:6379",
                                     "ray://no-such-host.invalid:10001"])
def test_an_address_that_names_no_host_is_a_value_error(address):
    with pytest.raises(ValueError, match="names no host"):
        suggest(state(), 50, address=address)


# ---------------------------------------------------------------- the game classes
# each game's API class (engine/games) and its C core (cext), which a caller may deal too
CLASSES = [cls for info in GAMES.values() for cls in
           (info.cls, next(c for c in info.cls.__mro__ if c.__module__.startswith("cext.")))]
IDS = [cls.__name__ for cls in CLASSES]


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
@pytest.mark.parametrize("players", [2**70, pytest.param(10**5000, id="10**5000"), -2**70,
                                     True, 3.0, "3"])
def test_a_player_count_that_is_no_small_integer_is_a_value_error(cls, players):
    """Khiva(2**70, 0) raised OverflowError (the count went into a C int unchecked)."""
    with pytest.raises(ValueError, match="played by") as e:
        cls(players, 0)
    assert len(str(e.value)) < 200


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
@pytest.mark.parametrize("seed", [2**64, 2**70, pytest.param(10**5000, id="10**5000"), -1,
                                  True, 3.0, "3", None])
def test_a_seed_outside_0_to_2_64_is_a_value_error(cls, seed):
    with pytest.raises(ValueError, match="seed must be an integer from 0 to 2\\*\\*64 - 1") as e:
        cls(cls.default_players, seed)
    assert len(str(e.value)) < 200


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_the_game_classes_still_deal(cls):
    g = cls(None, 2**64 - 1)
    assert g.n_players == cls.default_players and g.seed == 2**64 - 1
    assert cls(cls.min_players).n_players == cls.min_players


# ---------------------------------------------------------------- suggest
@pytest.mark.parametrize("keywords", [dict(determinize=False),
                                      dict(config=SearchConfig(mode="full", determinize=False))])
def test_suggest_refuses_a_search_that_sees_the_hidden_cards(keywords):
    """The perfect-information agents' configuration searches the real hidden cards:
    suggest answers for the seat to move from what it knows, or not at all."""
    with pytest.raises(ValueError, match="sees the hidden cards; use mode 'so' or 'mo'"):
        suggest(state(), 50, **keywords)


@pytest.mark.parametrize("searchmoves", [None, ["play-P4-give-W5", "play-W5-give-W1"]])
def test_a_search_stopped_before_it_began_still_answers_the_moves(searchmoves):
    """The protocol answers the first legal move; suggest gave moves=[] (against the
    published hint schema) and `best` raised IndexError."""
    g = state()
    stop = threading.Event()
    stop.set()
    s = suggest(g, 50, top_k=3, stop=stop, searchmoves=searchmoves)
    legal = [g.move_to_text(m) for m in g.legal_moves()]
    candidates = [m for m in legal if searchmoves is None or m in searchmoves]
    assert s.iterations == 0 and s.result.text in candidates
    assert s.best.text == s.result.text
    if searchmoves is None:
        assert s.best.text == legal[0]                # what the protocol's `go` answers
    assert [m.text for m in s.moves] == \
        ([s.result.text] + [m for m in candidates if m != s.result.text])[:3]
    assert [m.rank for m in s.moves] == list(range(1, len(s.moves) + 1))
    assert all(m.visits == 0 and m.line == () for m in s.moves)
    jsonschema.validate(s.to_json(), HINT_SCHEMA)


def test_the_budget_may_be_given_as_keywords():
    assert suggest(state(), iterations=50).iterations == 50
    s = suggest(state(), seconds=0.2)
    assert s.iterations > 0 and s.seconds < 5
    assert suggest(state(), iterations=40, seconds=60.0).iterations == 40


@pytest.mark.parametrize("keywords, message", [
    (dict(budget=50, iterations=50), "give the budget once"),
    (dict(budget=Budget(iterations=5), seconds=1.0), "give the budget once"),
    (dict(iterations=0), "a budget needs iterations > 0 or seconds > 0"),
    (dict(seconds=0.0), "a budget needs iterations > 0 or seconds > 0"),
    (dict(iterations=True), "a budget is a number of iterations"),
    (dict(iterations=10**12), "a budget is at most"),
])
def test_a_budget_given_twice_or_without_a_limit_is_refused(keywords, message):
    with pytest.raises(ValueError, match=message):
        suggest(state(), **keywords)
