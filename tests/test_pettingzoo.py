"""The four games as PettingZoo AEC environments (engine/pettingzoo_env.py, docs/ecosystem.md):
PettingZoo's api_test and seed_test for every game, seeding through reset, observations and
masks from engine.observation, rewards, rendering, and Caravan's search as a policy."""
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="pettingzoo is not installed "
                    "(pip install 'caravan[pettingzoo]')")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from engine import observation as ob  # noqa: E402
from engine.pettingzoo_env import CaravanEnv, env, search_policy  # noqa: E402
from engine.registry import GAMES, new_game  # noqa: E402

COUNTS = [(g, n) for g, info in GAMES.items()
          for n in range(info.min_players, info.max_players + 1)]

# api_test warns, as for PettingZoo's own classic games, that a dict observation (the tensor
# and the action mask) "is not a NumPy array" and that a Dict space is neither Box nor
# Discrete; those two warnings are the documented form, any other would be reported.
EXPECTED_WARNINGS = ("Observation is not a NumPy array",
                     "Observation space for each agent probably should be")


@pytest.mark.parametrize("game,players", COUNTS)
def test_pettingzoos_api_test(game, players):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(game, players=players), num_cycles=1000)
    unexpected = {str(w.message) for w in caught
                  if not str(w.message).startswith(EXPECTED_WARNINGS)}
    assert not unexpected


@pytest.mark.parametrize("game", list(GAMES))
def test_pettingzoos_seed_test(game):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: env(game, players=2), num_cycles=500)


def test_a_seeded_reset_deals_caravans_game_and_the_next_resets_follow_from_it():
    a, b = env("khiva", players=3), env("khiva", players=3)
    a.reset(seed=7)
    assert a.state.to_json() == new_game("khiva", 3, 7).to_json()
    b.reset(seed=7)
    a.reset()
    b.reset()
    assert a.state.to_json() == b.state.to_json() != new_game("khiva", 3, 7).to_json()
    a.reset(seed=8)
    assert a.state.to_json() == new_game("khiva", 3, 8).to_json()


def test_observations_masks_and_rewards_over_a_game():
    e = env("taschkent", players=3, observation="observation")
    e.reset(seed=3)
    amap = ob.action_map("taschkent")
    assert e.observation_space("player_0")["observation"].shape == \
        (ob.layout("taschkent", 3, ob.OBSERVATION).size,)
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        seat = e.seat_of(agent)
        observation, reward, termination, truncation, info = e.last()
        assert np.array_equal(observation["observation"], ob.tensor(e.state, seat, ob.OBSERVATION))
        for other in e.agents:
            mask = e.observe(other)["action_mask"]
            legal = 0 if other != agent or termination else len(e.state.legal_moves())
            assert mask.sum() == legal
        if termination:
            assert reward == e.state.rewards()[seat]
            e.step(None)
            continue
        assert reward == 0
        mask = observation["action_mask"]
        assert np.array_equal(mask, amap.mask(e.state))
        e.step(int(rng.choice(np.flatnonzero(mask))))
    assert e.agents == []


def test_an_illegal_action_is_refused_and_changes_nothing():
    e = env("kilim", players=2)
    e.reset(seed=1)
    before = e.state.to_json()
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        e.step(illegal)
    assert e.state.to_json() == before


def test_an_action_that_is_no_integer_is_refused_and_changes_nothing():
    """1.5 and True used to be rounded into action 1; a numpy integer (0-d too) is an action."""
    e = env("khiva", players=3)
    e.reset(seed=1)
    before, agent = e.state.to_json(), e.agent_selection
    for bad in (1.5, True, None, "3", np.array([1, 2])):
        with pytest.raises(ValueError, match="an action id is an integer"):
            e.step(bad)
        assert e.state.to_json() == before and e.agent_selection == agent
    legal = np.flatnonzero(e.observe(agent)["action_mask"])
    e.step(np.array(legal[0]))
    assert e.agent_selection != agent


@pytest.mark.parametrize("seed,message", [
    (1.5, "a seed is an integer"), ("a", "a seed is an integer"), (-1, "non-negative"),
    (2**64, "from 0 to 2\\*\\*64 - 1"),
])
def test_a_bad_reset_seed_is_a_value_error_that_keeps_the_game(seed, message):
    e = env("khiva", players=3)
    e.reset(seed=4)
    before = e.state.to_json()
    with pytest.raises(ValueError, match=message):
        e.reset(seed=seed)
    assert e.state.to_json() == before


def test_render_is_the_games_own_text():
    e = env("khan", players=3, render_mode="ansi")
    e.reset(seed=2)
    assert e.render() == e.state.render()
    seat = env("khan", players=3, render_mode="ansi", render_seat=1)
    seat.reset(seed=2)
    assert seat.render() == seat.state.render(1)
    assert env("khan").render_mode is None
    for bad in ({"render_mode": "human"}, {"observation": "all"}, {"render_seat": 3},
                {"players": 9}, {"khans": "unicorn"}):
        with pytest.raises(ValueError):
            CaravanEnv("khan", **{"players": 3, **bad})


def test_caravans_search_is_a_policy_that_plays_whole_games():
    e = env("khan", players=2)
    e.reset(seed=4)
    policy = search_policy("ismcts:iterations=40", seed=1)
    rng = np.random.default_rng(1)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        if termination:
            e.step(None)
            continue
        if agent == "player_0":
            action = policy(e, agent)
            assert observation["action_mask"][action] == 1
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        e.step(action)
    assert e.state.is_terminal()


def test_the_docs_pettingzoo_examples_run_as_written(capsys):
    doc = Path(__file__).resolve().parent.parent / "docs" / "ecosystem.md"
    blocks = [b for b in re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)
              if "engine.pettingzoo_env" in b]
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, str(doc), "exec"), {})
    out = capsys.readouterr().out
    assert "'player_0': " in out and "win shares: [" in out
