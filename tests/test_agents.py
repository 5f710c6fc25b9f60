"""Agents: heuristic (every game), pimc, cheat and cmd, all playing legal moves to the end."""
import shlex
import sys

import pytest

from engine.registry import GAMES
from search.agents import (AGENT_KINDS, CheatAgent, CmdAgent, HeuristicAgent, PimcAgent,
                           RandomAgent, parse_agent, parse_agent_list)
from search.match import play_game


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_has_a_heuristic_that_plays_whole_games(game):
    n = max(3, GAMES[game].min_players)
    record = play_game(game, [HeuristicAgent(1)] + [RandomAgent(i) for i in range(2, n + 1)],
                       seed=5)
    assert len(record.moves) > 5 and abs(sum(record.rewards) - 1) < 1e-9


def test_heuristic_beats_random_in_khiva():
    wins = 0.0
    for seed in range(30):
        seat = seed % 3
        agents = [RandomAgent(seed * 3 + i) for i in range(3)]
        agents[seat] = HeuristicAgent(seed)
        wins += play_game("khiva", agents, seed=700 + seed).rewards[seat]
    assert wins / 30 >= 0.6          # measured 0.82 over 60 games; random's share is 1/3


def test_pimc_and_cheat_play_legal_games_and_beat_random():
    for agent in (PimcAgent(seed=1, iterations=300, worlds=5), CheatAgent(seed=2, iterations=300)):
        wins = 0.0
        for seed in range(6):
            seat = seed % 2
            agents = [RandomAgent(seed), RandomAgent(seed + 10)]
            agents[seat] = agent
            wins += play_game("khiva", agents, seed=900 + seed).rewards[seat]
        assert wins >= 4, agent.describe()


def test_pimc_with_a_time_budget_leaves_out_the_worlds_it_has_no_time_for(monkeypatch):
    """10,000 worlds in 0.01 s: each world's search costs far more than a microsecond, so
    the worlds searched stop at the deadline (all 10,000 were searched, 36 times the budget,
    before); an iteration budget still searches every world."""
    import search.agents as agents
    from engine.registry import new_game

    searched = []
    real_search = agents.search

    def counting_search(*args, **kwargs):
        searched.append(1)
        return real_search(*args, **kwargs)

    monkeypatch.setattr(agents, "search", counting_search)
    state = new_game("kilim", 3, 0)
    assert PimcAgent(seed=1, seconds=0.01, worlds=10_000).choose(state) in state.legal_moves()
    assert 1 <= len(searched) < 10_000
    searched.clear()
    PimcAgent(seed=1, iterations=40, worlds=20).choose(state)
    assert len(searched) == 20


def test_pimc_with_fewer_iterations_than_worlds_keeps_to_its_budget(monkeypatch):
    """Every world is searched at least once: 10,000 worlds at 3 iterations searched 10,000
    iterations a move before. Now as many worlds as iterations are searched."""
    import search.agents as agents
    from engine.registry import new_game

    budgets = []
    real_search = agents.search

    def counting_search(state, budget, *args, **kwargs):
        budgets.append(budget.iterations)
        return real_search(state, budget, *args, **kwargs)

    monkeypatch.setattr(agents, "search", counting_search)
    state = new_game("khiva", 2, 0)
    assert PimcAgent(seed=1, iterations=3, worlds=10_000).choose(state) in state.legal_moves()
    assert budgets == [1, 1, 1]


def test_cmd_agent_drives_an_external_engine_through_the_protocol():
    # the project's own engine through the running interpreter: nothing on PATH is assumed
    agent = CmdAgent(f"{shlex.quote(sys.executable)} -m engine.cli uci", seed=3, iterations=200)
    try:
        record = play_game("khiva", [agent, RandomAgent(1)], seed=4)
    finally:
        agent.close()
    assert len(record.moves) > 10


def test_cmd_agent_with_a_missing_program_is_a_clear_error():
    with pytest.raises(ValueError, match="cannot start engine"):
        CmdAgent("/nonexistent/engine-binary")


# ---------------------------------------------------------------- specs: text -> spec -> text

SAMPLE_VALUES = {
    "iterations": ["1", "250", "2000", " 7 "], "seconds": ["0.5", "2", "0.001", "86400", "0.25", "0.00001"],
    "c": ["0", "0.7", "1.4142135623730951", "100"], "mode": ["so", "mo", " mo"],
    "max_nodes": ["1", "200000"], "workers": ["1", "4"], "score_weight": ["0", "0.5", "1"],
    "worlds": ["1", "10"], "playout": ["policy", "random", " random"],
    "opponents": ["search", "policy"], "groups": ["yes", "no"], "skill": ["0", "7", "20"],
    "reuse": ["yes", "no", "ON", "0"], "timeout": ["2", "0.25", "60", "3600.5"],
}
PROGRAMS = ["caravan uci", f"{shlex.quote(sys.executable)} -m engine.cli uci",
            "/opt/My Engines/x", "'/opt/My Engines/x' --fast", "env A=1 engine",
            "C:/engines/fast.exe", "./engine:v2 --flag=3", "engine  'two  spaces'"]


def random_spec_text(rng):
    """A spec as a person might type it: any kind, a random subset of its options in any
    order, with random case and spaces."""
    kind = rng.choice(sorted(AGENT_KINDS))
    keys = rng.sample(sorted(AGENT_KINDS[kind]), rng.randint(0, len(AGENT_KINDS[kind])))
    items = [f"{rng.choice([k, k.upper(), ' ' + k])}={rng.choice(SAMPLE_VALUES[k])}"
             for k in keys]
    if kind == "cmd":
        items.insert(0, rng.choice(PROGRAMS))
    head = rng.choice([kind, kind.upper(), " " + kind])
    return head + (":" + ",".join(items) if items or rng.random() < 0.2 else "")


def test_every_spec_the_parser_accepts_survives_str_and_parse():
    import random
    rng = random.Random(13)
    texts = [random_spec_text(rng) for _ in range(3000)]
    for text in texts:
        spec = parse_agent(text)
        again = parse_agent(str(spec))
        assert again == spec, (text, str(spec))
        assert str(again) == str(spec)
    kinds = {parse_agent(t).kind for t in texts}
    assert kinds == set(AGENT_KINDS)


def test_agent_lists_survive_str_and_parse():
    import random
    rng = random.Random(14)
    for _ in range(500):
        specs = [parse_agent(random_spec_text(rng)) for _ in range(rng.randint(1, 5))]
        assert parse_agent_list(",".join(str(s) for s in specs)) == specs


def test_cmd_specs_keep_the_program_and_take_a_timeout():
    spec = parse_agent("cmd:/opt/My\\ Engine/run --x=1,timeout=5,iterations=200")
    assert spec.program == "/opt/My\\ Engine/run --x=1"
    assert spec.options == {"timeout": 5.0, "iterations": 200}
    assert str(spec) == "cmd:/opt/My\\ Engine/run --x=1,timeout=5.0,iterations=200"
    assert [str(s) for s in parse_agent_list("cmd:engine uci,timeout=2,random")] == [
        "cmd:engine uci,timeout=2.0", "random"]
    for bad in ("cmd:", "cmd: ,timeout=2", "cmd:engine,timeout=0", "cmd:engine,timeout=nan",
                "cmd:engine,timeout=inf", "cmd:'unbalanced", "cmd:engine,c=0.5"):
        with pytest.raises(ValueError):
            parse_agent(bad)


def test_a_cmd_program_that_cannot_be_found_is_refused_before_starting():
    parse_agent(f"cmd:{shlex.quote(sys.executable)} -m engine.cli uci").check_program()
    with pytest.raises(ValueError, match="cannot start engine"):
        parse_agent("cmd:/nonexistent/engine-binary uci").check_program()


def test_an_ismcts_agent_keeps_its_tree_from_one_decision_to_the_next():
    """reuse=yes: the agent's later searches start from the statistics of its earlier ones;
    reuse=no (the default, search.agents.REUSE_TREES) searches afresh every time. Both play
    legal moves."""
    from engine import new_game
    for text, reuses in (("ismcts:iterations=400,reuse=yes", True), ("ismcts:iterations=400", False)):
        agent = parse_agent(text).build(seed=3)
        state = new_game("khiva", 2, 4)
        while agent.calls < 4:
            if state.to_move == 0:
                move = agent.choose(state)
            else:
                move = state.legal_moves()[0]
            assert move in state.legal_moves()
            state.apply(move)
        if reuses:
            assert agent.session.local.searches == 4 and agent.session.local.reused >= 1
        else:
            assert agent.session is None
        agent.close()
