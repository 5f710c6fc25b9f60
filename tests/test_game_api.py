"""The registry's doors refuse what is no position: a ValueError (a ViewError for a view that
names a game but is no view). What every game's own API does (moves as ints or notation,
typed errors that change nothing, repr, the loaders) is the conformance suite's
(tests/test_conformance.py)."""
import pytest

from engine import ViewError, from_json, from_view


@pytest.mark.parametrize("bad", [None, [], "x", {"game": "khiva"}, {"game": "chess"}])
def test_bad_positions_are_view_errors_or_value_errors(bad):
    for load in (from_json, from_view):
        with pytest.raises(ValueError):
            load(bad)
    with pytest.raises(ViewError):
        from_view({"game": "khiva"})


def test_a_game_without_a_required_method_does_not_load():
    """The contract's required methods have no silent default: the registry's check refuses
    a core that lacks one (here score), naming it, and the shipped games all pass it."""
    from cext.core import _GameWithoutScore, check_contract
    from engine.registry import GAMES
    with pytest.raises(ImportError, match=r"_GameWithoutScore does not implement score\(\)"):
        check_contract(_GameWithoutScore)
    for info in GAMES.values():
        check_contract(info.cls)


def test_the_base_type_is_no_game():
    from cext.core import GameCore
    with pytest.raises(TypeError, match="is no game"):
        GameCore()


GAMES_AT_3 = ["khan", "khiva", "kilim", "taschkent"]
# A seat, a seed, a depth or a count given as a bool, a float or a string is a caller's
# mistake: before, True read as seat 1, 1.5 as 1, and "a" raised an int() TypeError.
NOT_A_SEAT = [True, 1.0, "0", None, -1, 3]
BAD_CALLS = {
    "to_json": lambda g, x: g.to_json(view=x),
    "render": lambda g, x: g.render(x),
    "determinized": lambda g, x: g.determinized(x, 1),
    "info_key": lambda g, x: g.info_key(x),
    "observation_tensor": lambda g, x: g.observation_tensor(x),
}


@pytest.mark.parametrize("game", GAMES_AT_3)
@pytest.mark.parametrize("call", sorted(BAD_CALLS))
def test_a_seat_that_is_no_seat_is_a_value_error(game, call):
    from engine.registry import new_game

    g = new_game(game, 3, 1)
    before = g.to_json()
    for bad in NOT_A_SEAT:
        if bad is None and call in ("to_json", "render"):
            continue                                    # None: the spectator's view
        with pytest.raises(ValueError, match="player|seat"):
            BAD_CALLS[call](g, bad)
    assert g.to_json() == before


@pytest.mark.parametrize("call,message", [
    (lambda g: g.determinized(0, 1.5), "a seed is an integer"),
    (lambda g: g.determinized(0, "7"), "a seed is an integer"),
    (lambda g: g.determinized(0, True), "a seed is an integer"),
    (lambda g: g.played_out("a"), "a seed is an integer"),
    (lambda g: g.playout_choices(1, -1), "count must be between 0 and 1,000,000"),
    (lambda g: g.playout_choices(1, 10**12), "count must be between 0 and 1,000,000"),
    (lambda g: g.perft(1.5), "perft depth is an integer"),
    (lambda g: g.perft(13), "perft depth must be between 0 and 12"),
])
def test_seeds_depths_and_counts_are_integers_in_range(call, message):
    from engine.registry import new_game

    with pytest.raises(ValueError, match=message):
        call(new_game("khiva", 3, 1))


def test_numpy_integers_serve_as_seats_and_seeds():
    import numpy as np

    from engine.registry import new_game

    g = new_game("kilim", 3, 1)
    assert g.determinized(np.int64(1), np.uint64(5)).to_json() == g.determinized(1, 5).to_json()
    assert g.info_key(np.int32(2)) == g.info_key(2)


@pytest.mark.parametrize("game", GAMES_AT_3)
def test_move_to_text_names_any_integer_and_refuses_the_rest(game):
    """An integer that is no move reads `?<n>`, however large (2**40 overflowed a C int);
    None or 1.5 is a ValueError."""
    from engine.registry import new_game

    g = new_game(game, 3, 1)
    assert g.move_to_text(2**40) == "?1099511627776" and g.move_to_text(-5) == "?-5"
    for bad in (None, 1.5, "3"):
        with pytest.raises(ValueError, match="a move is an integer"):
            g.move_to_text(bad)


def test_errors_quote_a_callers_text_only_to_40_characters():
    """A 100,000-character name was echoed whole into the error (and so into the CLI's one
    line); quoted() cuts it."""
    from engine.registry import game_info, new_game
    from search.agents import parse_agent, parse_agent_list

    big = "x" * 100_000
    calls = [lambda: game_info(big), lambda: new_game("khiva", 3, 1, **{big: 1}),
             lambda: parse_agent(big), lambda: parse_agent("ismcts:" + big),
             lambda: parse_agent("ismcts:c=" + big), lambda: parse_agent("ismcts:" + big + "=1"),
             lambda: parse_agent_list(big + ",,"), lambda: game_info(5)]
    for call in calls:
        with pytest.raises(ValueError) as e:
            call()
        assert len(str(e.value)) < 300 and "x" * 41 not in str(e.value), str(e.value)[:200]


def test_quoted_cuts_and_marks_the_cut():
    from engine.validation import quoted

    assert quoted("abc") == "'abc'"
    assert quoted("y" * 50) == "'" + "y" * 40 + "'..."
    assert quoted(12345, 3) == "123..." and quoted(None) == "None"
