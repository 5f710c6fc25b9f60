"""The Python API below the front doors, fed what a careless or hostile caller sends: each
case once crashed, hung, leaked an internal exception or poisoned shared state (an audit of
2026-12-07). Every one is now a ValueError that leaves everything as it was."""
import math

import numpy as np
import pytest

from cext.core import make_move, move_arg, move_kind
from cext.ismcts import Tree, random_playouts
from engine import observation as obs
from engine.registry import GAMES, new_game

GAME_NAMES = sorted(GAMES)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_random_playouts_refuse_a_seat_that_is_not_one_and_a_negative_count(game):
    """The observer went unchecked into the C resample: 2**31 - 1 segfaulted, 9 wrote out of
    bounds; games=-1 answered (-1, 0, ...)."""
    state = new_game(game, 2, 0)
    for observer in (2, 9, -1, 2_000_000_000, 2**40, 1.5, True):
        with pytest.raises(ValueError, match="observer"):
            random_playouts(state, 3, 0, True, observer)
    for games in (-1, 1.5, 10**13):
        with pytest.raises(ValueError, match="games"):
            random_playouts(state, games, 0)
    assert random_playouts(state, 3, 0, True, 1)[0] == 3


def a_tree(**kwargs):
    state = new_game("khiva", 3, 0)
    return state, Tree(state, state.to_move, 1, **kwargs)


@pytest.mark.parametrize("seconds", [math.nan, math.inf, -1.0])
def test_a_tree_refuses_a_time_that_is_no_time(seconds):
    """run(0, nan) passed the `seconds <= 0` guard and then ran without end."""
    _, tree = a_tree()
    with pytest.raises(ValueError, match="seconds a finite number"):
        tree.run(0, seconds)
    with pytest.raises(ValueError, match="iterations"):
        tree.run(-5, 0.0)
    assert tree.run(20) == 20


@pytest.mark.parametrize("kwargs, message", [
    (dict(c=math.inf), "exploration constant"), (dict(c=math.nan), "exploration constant"),
    (dict(prior_weight=math.inf), "prior_weight"), (dict(max_nodes=2**40), "max_nodes"),
    (dict(max_nodes=1.5), "max_nodes"), (dict(mode="full"), "resample=False"),
])
def test_a_tree_refuses_settings_the_search_config_refuses(kwargs, message):
    with pytest.raises(ValueError, match=message):
        a_tree(**kwargs)


def test_a_tree_refuses_a_node_number_beyond_any_and_a_root_move_given_twice():
    state, tree = a_tree()
    tree.run(50)
    with pytest.raises(ValueError, match="no node"):
        tree.node_stats(2**31)
    fresh = Tree(state, state.to_move, 1)
    move = state.legal_moves()[0]
    with pytest.raises(ValueError, match="given twice"):
        fresh.restrict_root([move, move])


@pytest.mark.parametrize("game", GAME_NAMES)
def test_an_action_id_of_no_integer_is_refused_and_the_shared_map_stays_sound(game):
    """action_id(m + 0.5) answered m's id and cached 0.5 as that id's move, for every state
    of the game in the process: the adapters then failed on a legal action id."""
    state = new_game(game, 2, 0)
    move = state.legal_moves()[0]
    for bad in (move + 0.5, True, 2**40, "1"):
        with pytest.raises(ValueError):
            state.action_ids.action_id(bad)
    other = new_game(game, 2, 0)
    action = other.action_ids.action_id(move)
    assert other.action_ids.move(action) == move and type(other.action_ids.move(action)) is int
    with pytest.raises(ValueError, match="numpy vector"):
        obs.action_map(game).mask(state, out=np.zeros(3, np.int8))


@pytest.mark.parametrize("game", GAME_NAMES)
def test_narration_and_events_take_integers_only(game):
    state = new_game(game, 2, 0)
    before = state.clone()
    state.apply(state.legal_moves()[0])
    for move in (2**31, -2**31 - 1, 2.5):
        with pytest.raises(ValueError):
            state.narrate(before, before.to_move, move)
    for since in (math.inf, 2.5, True, -1):
        with pytest.raises(ValueError, match="since"):
            state.events(since)
    assert state.events(0) == state.events()


def test_the_move_helpers_take_integers_only():
    assert move_kind(make_move(3, 5)) == 3 and move_arg(make_move(3, 5)) == 5
    for bad in (2.5, True, 2**40, None):
        with pytest.raises(ValueError):
            move_kind(bad)
        with pytest.raises(ValueError):
            move_arg(bad)
    with pytest.raises(ValueError):
        make_move(1, 2.5)


def test_a_numpy_integer_is_a_move_as_it_is_a_seat():
    state, same = new_game("khiva", 3, 0), new_game("khiva", 3, 0)
    move = state.legal_moves()[0]
    state.apply(np.int64(move))
    same.apply(move)
    assert state.to_json() == same.to_json() and state.to_move == 1
    with pytest.raises(ValueError):
        state.apply(np.float64(state.legal_moves()[0]))


def test_taschkent_options_are_read_the_same_for_a_numpy_player_count():
    """Taschkent(np.int64(4), ...) skipped the options' checks and handed them to the core."""
    from engine.games.taschkent import Taschkent

    for players in (4, np.int64(4)):
        with pytest.raises(ValueError):
            Taschkent(players, 0, goods=(1, 2, 3))
        with pytest.raises(ValueError, match="empty item"):
            Taschkent(players, 0, goods="iron:R2a,jade:R5b,indigo:R7a,")
    assert Taschkent(np.int64(4), 0).n_players == 4


def test_the_pettingzoo_environment_refuses_an_agent_or_seat_that_is_none():
    pz = pytest.importorskip("engine.pettingzoo_env")
    env = pz.env("khiva", 2)
    env.reset(seed=1)
    for call in (lambda: env.observe("player_9"), lambda: env.view("nobody"),
                 lambda: env.seat_of(3)):
        with pytest.raises(ValueError, match="no agent"):
            call()
    for seat in (1.5, True, 2):
        with pytest.raises(ValueError, match="render_seat"):
            pz.env("khiva", 2, render_mode="ansi", render_seat=seat)


def test_openspiel_refuses_a_sampler_that_gives_no_probability_and_a_seed_it_cannot_hold():
    pytest.importorskip("pyspiel")
    from engine.openspiel_game import CaravanGame, GAME_CLASSES

    game = GAME_CLASSES["khiva"]({"players": 3, "seed": 2})
    state = game.new_initial_state()
    for value in (math.inf, math.nan, 1.0, -0.5, "0.3"):
        with pytest.raises(ValueError, match="sampler"):
            state.resample_from_infostate(0, lambda: value)
    assert state.resample_from_infostate(0, lambda: 0.25).current_player() == 0
    for params in ({"seed": 2**63}, {"seed": -2}, {"players": 2.5}):
        with pytest.raises(ValueError):
            GAME_CLASSES["khiva"](params)
    assert issubclass(GAME_CLASSES["khiva"], CaravanGame)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_view_of_a_seat_the_game_lacks_names_the_player_count(game):
    """Seat 7 of a 3-player view read 'must be from 0 to 4', the range of every count."""
    from engine.registry import from_view

    players = max(3, GAMES[game].min_players)
    view = new_game(game, players, 1).to_json(view=0)
    for seat in (players, 7, -1):
        view["view"] = seat
        with pytest.raises(ValueError, match=f"^view: there is no seat {seat} in a "
                                             f"{players}-player game"):
            from_view(view)
