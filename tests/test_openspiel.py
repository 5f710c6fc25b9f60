"""The four games as OpenSpiel games (engine/openspiel_game.py, docs/ecosystem.md): OpenSpiel's
own random simulation test, the consistency checks it asks of imperfect-information games over
many random games (legal actions, serialization, returns, information states across
resampling), the deal's chance nodes, parameters, and OpenSpiel's ISMCTS bot and Caravan's
search as a pyspiel Bot playing whole games."""
import pickle
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (pip install 'caravan[openspiel]')")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from engine import observation as ob  # noqa: E402
from engine import openspiel_game as og  # noqa: E402
from engine.registry import GAMES, new_game  # noqa: E402


def load(game, **params):
    return pyspiel.load_game(og.PREFIX + game, params)


def random_game(game, rng, stop=None):
    """A game of `game` (a pyspiel game) played with uniformly random actions, chance
    included; yields every state on the way (the last one terminal, or after `stop` actions)."""
    state = game.new_initial_state()
    k = 0
    while True:
        yield state
        if state.is_terminal() or (stop is not None and k >= stop):
            return
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choice(actions))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        k += 1


def test_the_four_games_are_registered_with_their_types():
    names = {t.short_name for t in pyspiel.registered_games()}
    for game, info in GAMES.items():
        assert og.PREFIX + game in names
        g = load(game)
        t = g.get_type()
        assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert t.utility == pyspiel.GameType.Utility.CONSTANT_SUM
        assert (t.min_num_players, t.max_num_players) == (info.min_players, info.max_players)
        assert g.num_players() == info.default_players
        assert g.num_distinct_actions() == ob.action_map(game).size
        assert (g.min_utility(), g.max_utility(), g.utility_sum()) == (0.0, 1.0, 1.0)


@pytest.mark.parametrize("game", list(GAMES))
def test_tensor_shapes_are_the_layouts(game):
    for n in ob.PLAYER_COUNTS[game]:
        g = load(game, players=n)
        assert g.information_state_tensor_shape() == [ob.layout(game, n).size]
        assert g.observation_tensor_shape() == [ob.layout(game, n, ob.OBSERVATION).size]


SIMS = {"khiva": [(2, 2), (3, 2), (5, 1)], "khan": [(2, 2), (4, 2)],
        "kilim": [(2, 1)], "taschkent": [(2, 2), (3, 2), (4, 1)]}


@pytest.mark.parametrize("game", list(GAMES))
def test_openspiels_random_simulation_test(game):
    """pyspiel.random_sim_test: legal actions (sorted, empty for the others, the mask),
    clones, serialization round trips, chance outcomes, returns within the utilities at the
    end; random deals (seed -1) and a fixed one."""
    for players, sims in SIMS[game]:
        pyspiel.random_sim_test(load(game, players=players), num_sims=sims, serialize=True,
                                verbose=False)
    pyspiel.random_sim_test(load(game, players=2, seed=9), num_sims=1, serialize=True,
                            verbose=False)


# (random games, check every k-th state): Kilim's states and tensors are large
GAMES_PER = {"khiva": (12, 9), "khan": (10, 9), "kilim": (2, 30), "taschkent": (10, 9)}


@pytest.mark.parametrize("game", list(GAMES))
def test_states_are_consistent_over_many_random_games(game):
    """At states of many random games: the legal actions are the Caravan moves' ids; a
    serialized state comes back with every seat's information state and the exact Caravan
    state; a resample for the seat to move keeps its information-state string (what
    OpenSpiel's ISMCTS asserts), tensors and legal actions, changes hidden parts, and
    serializes too; the returns at the end are the win shares."""
    rng = random.Random(3)
    sampler = pyspiel.UniformProbabilitySampler(3, 0., 1.)          # seeded: the test repeats
    resampled_differently = checked = 0
    games, every = GAMES_PER[game]
    for k in range(games):
        n = ob.PLAYER_COUNTS[game][k % len(ob.PLAYER_COUNTS[game])]
        g = load(game, players=n)
        for i, state in enumerate(random_game(g, rng)):
            core = state.caravan_state
            if state.is_chance_node() or (i % every and not state.is_terminal()):
                continue
            if state.is_terminal():
                returns = state.returns()
                assert returns == core.rewards() and abs(sum(returns) - 1) < 1e-9
                assert all(0 <= r <= 1 for r in returns)
                continue
            p = state.current_player()
            assert state.legal_actions() == ob.action_map(game).legal_ids(core)
            copy = pyspiel.deserialize_game_and_state(
                pyspiel.serialize_game_and_state(g, state))[1]
            assert copy.caravan_state.to_json() == core.to_json()
            assert [copy.information_state_string(q) for q in range(n)] == \
                [state.information_state_string(q) for q in range(n)]
            r = state.resample_from_infostate(p, sampler)
            assert r.information_state_string(p) == state.information_state_string(p)
            for tensor in ("information_state_tensor", "observation_tensor"):
                assert np.array_equal(getattr(r, tensor)(p), getattr(state, tensor)(p))
            assert r.legal_actions() == state.legal_actions()
            again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(g, r))[1]
            assert again.caravan_state.to_json() == r.caravan_state.to_json()
            resampled_differently += r.caravan_state.to_json() != core.to_json()
            checked += 1
    assert checked >= 10 and resampled_differently > checked // 4


def test_a_resample_takes_any_int_as_its_seed():
    """resample_from_infostate takes an int (folded to 63 bits), as it takes a sampler: the
    same int gives the same world, which the seat cannot tell from the true one."""
    state = load("khiva", players=3, seed=7).new_initial_state()
    for seed in (-1, 2 ** 70 + 5, 12):
        a, b = (state.resample_from_infostate(0, seed) for _ in range(2))
        assert a.caravan_state.to_json() == b.caravan_state.to_json()
        assert a.information_state_string(0) == state.information_state_string(0)


def test_an_observer_of_a_state_before_the_deal_knows_only_its_seat():
    """Even right after it observed a dealt state: the tensor is cleared, not overwritten."""
    observer = load("khiva", players=3).make_py_observer()
    observer.set_from(load("khiva", players=3, seed=7).new_initial_state(), 1)
    assert observer.tensor.sum() > 1
    observer.set_from(load("khiva", players=3).new_initial_state(), 1)
    assert observer.dict["seat"][1] == 1 and observer.tensor.sum() == 1


def test_a_random_deal_is_four_chance_bytes_and_a_seed_fixes_the_deal():
    g = load("taschkent", players=3)
    state = g.new_initial_state()
    for b in (7, 0, 1, 0):
        assert state.is_chance_node() and len(state.chance_outcomes()) == 256
        assert state.information_state_tensor(1)[1] == 1          # only `seat` is known
        state.apply_action(b)
    assert state.caravan_state.to_json() == new_game("taschkent", 3, 7 + (1 << 16)).to_json()
    fixed = load("taschkent", players=3, seed=7).new_initial_state()
    assert not fixed.is_chance_node()
    assert fixed.caravan_state.to_json() == new_game("taschkent", 3, 7).to_json()
    before = (state.history(), state.caravan_state.to_json())
    with pytest.raises(ValueError):
        state.apply_action(10 ** 6)                # no move's id: refused, nothing changes
    assert (state.history(), state.caravan_state.to_json()) == before


def test_options_are_parameters_and_survive_the_game_string():
    g = load("khan", players=2, seed=1, khans="sable,impala")     # kept as "sable impala"
    state = g.new_initial_state()
    assert state.caravan_state.to_json()["khans"] == ["sable", "impala"]
    copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(g, state))
    assert copy[0].get_parameters()["khans"] == "sable impala"
    state.apply_action(state.legal_actions()[-1])
    game_copy, state_copy = pickle.loads(pickle.dumps((g, state)))      # pickles, as Python
    assert str(game_copy) == str(g) and state_copy.history() == state.history()
    assert state_copy.caravan_state.to_json() == state.caravan_state.to_json()
    assert game_copy.new_initial_state().caravan_state.to_json()["khans"] == ["sable", "impala"]
    t = load("taschkent", players=4, seed=2, goods="iron:R2a,jade:R5b,indigo:N3",
             neutral_region=5)
    t = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(t, t.new_initial_state()))[0]
    setup = t.new_initial_state().caravan_state.to_json()["setup"]
    assert setup == {"goods": {"iron": "R2a", "jade": "R5b", "indigo": "N3"},
                     "neutral_region": 5}
    for bad in ({"players": 6}, {"khans": "unicorn"}, {"seed": -2}):
        with pytest.raises(Exception):
            load("khan", **bad)


def play(game, bots, seed_rng):
    """One game: chance sampled from seed_rng, each seat's action from bots[seat]."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(seed_rng.choice(actions, p=probs)))
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    return state


@pytest.mark.parametrize("game", list(GAMES))
def test_openspiels_ismcts_bot_plays_a_game_against_a_random_bot(game):
    """ISMCTS resamples with resample_from_infostate every simulation and asserts the root's
    information-state key each time."""
    g = load(game, players=2, seed=11)
    rng = np.random.RandomState(4)
    bot = ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                           max_simulations=6, random_state=rng)
    # the bot's own resampling draws from an unseeded sampler: seeded, the test repeats
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng))
    state = play(g, [bot, uniform_random.UniformRandomBot(1, rng)], rng)
    assert abs(sum(state.returns()) - 1) < 1e-9


def test_caravans_search_is_a_bot_that_knows_only_its_seat():
    g = load("khiva", players=2, seed=3)
    rng = np.random.RandomState(5)
    bots = [og.CaravanBot(g, 0, "ismcts:iterations=60", seed=1),
            uniform_random.UniformRandomBot(1, rng)]
    state = play(g, bots, rng)
    assert state.is_terminal()
    for game in ("khan", "kilim", "taschkent"):     # one searched move in every game
        g = load(game, players=2, seed=3)
        state = g.new_initial_state()
        seat = state.current_player()
        action = og.CaravanBot(g, seat, "ismcts:iterations=30").step(state)
        assert action in state.legal_actions()
        with pytest.raises(ValueError):
            og.CaravanBot(g, 1 - seat, "random").step(state)
