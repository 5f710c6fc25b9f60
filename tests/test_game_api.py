"""The Python game API every game shares: moves as ints or notation, typed errors, repr."""
import pytest

from engine import GAMES, IllegalMoveError, ViewError, from_json, from_view, new_game


@pytest.mark.parametrize("game", sorted(GAMES))
def test_apply_takes_a_move_in_notation_as_well_as_an_int(game):
    a, b = new_game(game, seed=3), new_game(game, seed=3)
    for _ in range(6):
        if a.is_terminal():
            break
        m = a.legal_moves()[len(a.legal_moves()) // 2]
        a.apply(m)
        b.apply(b.move_to_text(m))
        assert a.to_json() == b.to_json()


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("bad", ["no-such-move", "", 3.5, True, None, 2**40, -1, [1]])
def test_an_illegal_move_is_an_illegal_move_error_and_changes_nothing(game, bad):
    g = new_game(game, seed=4)
    before = g.to_json()
    with pytest.raises(IllegalMoveError) as e:
        g.apply(bad)
    assert isinstance(e.value, ValueError)
    assert g.to_json() == before
    if isinstance(bad, str):
        assert "legal:" in str(e.value)          # the message lists what is legal


@pytest.mark.parametrize("game", sorted(GAMES))
def test_repr_names_the_game_players_turn_and_seat_to_move(game):
    g = new_game(game, players=GAMES[game].min_players + 1, seed=1)
    text = repr(g)
    assert type(g).__name__ in text and f"{g.n_players} players" in text
    assert f"seat {g.to_move} to move" in text
    while not g.is_terminal():
        g.apply(g.legal_moves()[0])
    assert "game over" in repr(g)


@pytest.mark.parametrize("bad", [None, [], "x", {"game": "khiva"}, {"game": "chess"}])
def test_bad_positions_are_view_errors_or_value_errors(bad):
    for load in (from_json, from_view):
        with pytest.raises(ValueError):
            load(bad)
    with pytest.raises(ViewError):
        from_view({"game": "khiva"})
