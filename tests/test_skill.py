"""Skill levels: a weaker opponent on request (the agent option `skill=`, the protocol's option
Skill). The levels' strength is measured in docs/strength.md ("Skill levels"), not here."""
from collections import Counter

import pytest

from engine.registry import GAMES, game_info, new_game
from protocol_client import Client
from search.agents import parse_agent
from search.config import (MAX_SKILL, SKILL_LEAST_ITERATIONS, check_skill,
                           reproducible_budget, skill_budget, skill_temperature)
from search.ismcts import MoveStats, SearchResult, search, skill_move


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_budget_grows_from_the_least_to_the_game_s_default(game):
    for players in range(game_info(game).min_players, game_info(game).max_players + 1):
        budgets = [skill_budget(s, game, players).iterations for s in range(MAX_SKILL + 1)]
        assert budgets[0] == SKILL_LEAST_ITERATIONS
        assert budgets[-1] == reproducible_budget(game, players).iterations
        assert budgets == sorted(budgets) and len(set(budgets)) == len(budgets)


def test_the_temperature_falls_from_one_to_zero_and_bad_levels_are_refused():
    assert skill_temperature(0) == 1.0 and skill_temperature(MAX_SKILL) == 0.0
    assert skill_temperature(10) == 0.5
    for bad in (-1, MAX_SKILL + 1, 2.0, True, "5", None):
        with pytest.raises(ValueError, match="skill level"):
            check_skill(bad)


def a_result(visits):
    stats = [MoveStats(m, f"m{m}", v, 0.5, v) for m, v in enumerate(visits)]
    stats.sort(key=lambda s: -s.visits)
    return SearchResult(0, stats[0].move, stats[0].text, sum(visits), 0.1, 1, False, 1.0, stats)


def test_full_strength_plays_the_search_s_move_and_lower_levels_draw_by_visits():
    result = a_result([600, 300, 100, 0])
    assert {skill_move(result, MAX_SKILL, seed) for seed in range(50)} == {0}
    level0 = Counter(skill_move(result, 0, seed) for seed in range(4000))
    assert set(level0) == {0, 1, 2}                        # never a move the search left out
    assert level0[0] / 4000 == pytest.approx(0.6, abs=0.03)     # as the visits, at level 0
    assert level0[2] / 4000 == pytest.approx(0.1, abs=0.02)
    level10 = Counter(skill_move(result, 10, seed) for seed in range(4000))
    assert level10[0] / 4000 == pytest.approx(36 / 46, abs=0.03)   # visits squared
    assert [skill_move(result, 5, seed) for seed in range(30)] == \
        [skill_move(result, 5, seed) for seed in range(30)]       # reproducible


def test_a_real_search_at_a_low_level_still_plays_legal_moves():
    state = new_game("khiva", 3, 2)
    result = search(state, 300, seed=4)
    moves = {skill_move(result, 2, seed) for seed in range(40)}
    assert moves <= set(state.legal_moves()) and len(moves) > 1


def test_the_agent_takes_a_level_instead_of_a_budget():
    agent = parse_agent("ismcts:skill=7").build(3)
    assert agent.describe() == "ismcts:skill=7"
    state = new_game("kilim", 3, 1)
    assert agent.budget_for(state) == skill_budget(7, "kilim", 3)
    assert parse_agent("ismcts").build(3).budget_for(state) == reproducible_budget("kilim", 3)
    first = [parse_agent("ismcts:skill=4").build(9).choose(state) for _ in range(2)]
    assert first[0] == first[1] and first[0] in state.legal_moves()
    for spec, message in (("ismcts:skill=21", "skill"), ("ismcts:skill=x", "skill"),
                          ("ismcts:skill=3,iterations=500", "not both"),
                          ("ismcts:skill=3,seconds=1", "not both")):
        with pytest.raises(ValueError, match=message):
            parse_agent(spec).build(1)


def test_the_protocol_s_skill_option_caps_go_and_leaves_hint_at_full_strength():
    engine = Client()
    try:
        engine.ask("uci", "uciok")
        engine.send("position khan players 2 seed 3")
        engine.send("setoption name Skill value 0")
        lines = engine.ask("go", "bestmove")
        assert "info iterations 100 " in "\n".join(lines)
        dealt = new_game("khan", 2, 3)
        assert dealt.parse_move(lines[-1].split()[1]) in dealt.legal_moves()
        lines = engine.ask("go iterations 50", "bestmove")      # fewer than the level's
        assert "info iterations 50 " in "\n".join(lines)
        lines = engine.ask("hint 2 iterations 700", "hintok")  # hints: the engine's best
        assert "info iterations 700 " in "\n".join(lines)
        engine.send("setoption name Skill value 21")
        assert "Skill" in engine.read()
        engine.send(f"setoption name Skill value {MAX_SKILL}")
        lines = engine.ask("go iterations 400", "bestmove")
        assert "info iterations 400 " in "\n".join(lines)
    finally:
        engine.close()


def test_the_protocol_at_a_level_is_reproducible_for_its_seed():
    def bestmoves(skill):
        engine = Client()
        try:
            engine.ask("uci", "uciok")
            engine.send("position khiva players 3 seed 8")
            engine.send(f"setoption name Skill value {skill}")
            picks = []
            for seed in range(6):
                engine.send(f"setoption name Seed value {seed}")
                picks.append(engine.ask("go", "bestmove")[-1])
            return picks
        finally:
            engine.close()

    assert bestmoves(3) == bestmoves(3)


def test_the_arena_refuses_a_level_with_a_budget_before_any_game():
    from search.arena import check_specs

    with pytest.raises(ValueError, match="not both"):
        check_specs(["ismcts:skill=3,iterations=500", "random"])
    assert check_specs(["ismcts:skill=3", "random"]) == ["ismcts:skill=3", "random"]


def test_a_level_caps_a_go_that_asks_for_more_iterations():
    """docs/protocol.md, Skill: below 20 each `go` searches *at most* the level's iterations
    (100 at level 0), also when the `go` itself asks for more."""
    import io

    from engine import protocol
    out = io.StringIO()
    script = "position khan players 2 seed 3\nsetoption name Skill value 0\ngo iterations 5000\n"
    assert protocol.serve(io.StringIO(script), out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"info iterations {SKILL_LEAST_ITERATIONS} "), lines
    assert lines[-1].startswith("bestmove "), lines
