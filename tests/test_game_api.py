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
