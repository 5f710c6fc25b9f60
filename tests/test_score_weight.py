"""The score weight: the share of the search reward that is the score margin (KataGo's score
utility). Checked through the doors: search(), its default, agent specs and the protocol
option (the command line's bad values are in test_cli.py)."""
import pytest

from engine.registry import new_game
from protocol_client import Client
from search.agents import parse_agent
from cext.ismcts import score_margins
from search.config import DEFAULT_SCORE_WEIGHT, Budget, SearchConfig
from search.ismcts import search


def khan_duel():
    return new_game("khan", 2, seed=5)


def stats_of(result):
    return [(s.move, s.visits, round(s.mean_reward, 9), round(s.win_probability, 9))
            for s in result.stats]


def test_zero_weight_keeps_the_win_share_as_the_reward():
    r = search(new_game("khiva", 3, seed=1), Budget(400), SearchConfig(score_weight=0.0), seed=2)
    for s in r.stats:
        assert s.mean_reward == pytest.approx(s.win_probability, abs=1e-6)


def test_a_weight_mixes_the_margin_in_but_win_probability_stays_the_win_share():
    r = search(khan_duel(), Budget(600), SearchConfig(score_weight=0.5), seed=3)
    visited = [s for s in r.stats if s.visits]
    assert any(abs(s.mean_reward - s.win_probability) > 1e-3 for s in visited)
    for s in visited:
        # two players, win shares 0, 1/2 or 1 per playout: a sum of halves
        halves = s.win_probability * s.visits * 2
        assert halves == pytest.approx(round(halves), abs=1e-6)
        assert 0.0 <= s.mean_reward <= 1.0


def test_pure_margin_reward_prefers_the_bigger_win():
    """With weight 1 the reward is the squashed margin alone: strictly between 0 and 1."""
    r = search(khan_duel(), Budget(300), SearchConfig(score_weight=1.0), seed=4)
    assert all(0.0 < s.mean_reward < 1.0 for s in r.stats if s.visits)


def test_the_default_weight_is_one_half():
    assert DEFAULT_SCORE_WEIGHT == 0.5
    default = search(khan_duel(), Budget(500), seed=6)
    explicit = search(khan_duel(), Budget(500), SearchConfig(score_weight=0.5), seed=6)
    other = search(khan_duel(), Budget(500), SearchConfig(score_weight=0.0), seed=6)
    assert stats_of(default) == stats_of(explicit)
    assert stats_of(default) != stats_of(other)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "half"])
def test_a_bad_weight_is_refused(bad):
    with pytest.raises(ValueError, match="score_weight"):
        search(khan_duel(), Budget(10), SearchConfig(score_weight=bad))


def test_agent_spec_takes_the_weight():
    spec = parse_agent("ismcts:iterations=50,score_weight=0.25")
    agent = spec.build(seed=1)
    config = agent.config_for(new_game("khiva", 3, 1))
    assert config.score_weight == 0.25 and "score_weight=0.25" in agent.describe()
    g = khan_duel()
    assert agent.choose(g) in g.legal_moves()
    with pytest.raises(ValueError, match="score_weight"):
        parse_agent("ismcts:score_weight=2")


def test_protocol_option_changes_the_search():
    c = Client()
    try:
        assert any("option name ScoreWeight type string default auto" in l
                   for l in c.ask("uci", "uciok"))
        c.send("position khan players 2 seed 5")

        def answer():
            return [l for l in c.ask("go iterations 400", "bestmove") if "rank" in l]

        half = answer()
        c.send("setoption name ScoreWeight value 0")
        zero = answer()
        c.send("setoption name ScoreWeight value auto")       # khan's tuned weight: 0.5
        assert answer() == half
        c.send("setoption name ScoreWeight value 0.5")
        assert answer() == half
        assert zero != half
    finally:
        assert c.close() == 0


def random_finished_games(game, players, count, seed):
    import random as _random

    rng = _random.Random(seed)
    for k in range(count):
        g = new_game(game, players, seed=seed * 1000 + k)
        while not g.is_terminal():
            g.apply(rng.choice(g.legal_moves()))
        yield g


@pytest.mark.parametrize("game,players", [("khiva", 2), ("khan", 3), ("taschkent", 3),
                                          ("taschkent", 4)])
def test_margins_follow_the_scores_but_never_contradict_the_outcome(game, players):
    contradictions = 0
    for g in random_finished_games(game, players, 60, seed=players):
        scores, rewards = g.scores(), g.rewards()
        margins = score_margins(g)
        for p in range(players):
            raw = scores[p] - max(s for q, s in enumerate(scores) if q != p)
            if rewards[p] == 0.0:
                assert margins[p] == min(raw, 0.0)
                contradictions += raw > 0
            elif rewards[p] == 1.0:
                assert margins[p] == max(raw, 0.0)
            else:
                assert margins[p] == raw
    if game == "taschkent":
        # a player out of the game with the most card points happens: the clamp is exercised
        assert contradictions > 0


def test_margins_need_a_finished_game():
    with pytest.raises(ValueError, match="not over"):
        score_margins(khan_duel())
