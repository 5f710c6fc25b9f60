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
