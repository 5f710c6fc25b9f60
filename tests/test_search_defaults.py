"""The search's defaults come from one place, the game's row in the registry, and every front
door uses them: `suggest()`, the agents (so `caravan match` and the arena), the protocol,
`caravan hint` and the review. A spy records the configuration and budget each search starts with; the
registry row of Kilim is replaced by one whose values no code would pick by accident."""
import io
import threading
from dataclasses import replace

import pytest

import search.ismcts
from engine import cli, protocol
from engine.registry import GAMES, SearchDefaults, new_game
from search.agents import parse_agent
from search.arena import run_arena
from search.config import (DEFAULT_BUDGET, DEFAULT_SECONDS, Budget, SearchConfig, game_config,
                           reproducible_budget)
from search.suggest import suggest

ODD = SearchDefaults(c=0.37, score_weights={n: 0.1 + n / 100 for n in range(2, 6)},
                     modes={n: "mo" for n in range(2, 6)},
                     iterations={n: 300 + n for n in range(2, 6)})


@pytest.fixture
def seen(monkeypatch):
    """[(config, budget)] of every search started while the test runs; Kilim's registry row
    is ODD, and each search runs 20 iterations whatever its budget (the test is about which
    budget was asked for, not about spending it)."""
    monkeypatch.setitem(GAMES, "kilim", replace(GAMES["kilim"], search=ODD))
    calls, lock = [], threading.Lock()
    real_new_tree, real_run_tree = search.ismcts.new_tree, search.ismcts.run_tree

    def new_tree(state, player, config, seed):
        with lock:
            calls.append([config, None])
        return real_new_tree(state, player, config, seed)

    def run_tree(tree, budget, stop=None, progress=None, progress_every=1.0):
        with lock:
            calls[-1][1] = budget
        return real_run_tree(tree, Budget(iterations=20), stop, progress, progress_every)

    monkeypatch.setattr(search.ismcts, "new_tree", new_tree)
    monkeypatch.setattr(search.ismcts, "run_tree", run_tree)
    return calls


def odd_config(players):
    return SearchConfig(c=0.37, mode="mo", score_weight=0.1 + players / 100)


def test_game_config_is_the_registry_row_with_changes_on_top(seen):
    assert game_config("kilim", 3) == odd_config(3)
    assert game_config("kilim", 3, c=1.5) == replace(odd_config(3), c=1.5)
    assert reproducible_budget("kilim", 4) == Budget(iterations=304)
    with pytest.raises(ValueError, match="no field 'colour'"):
        game_config("kilim", 3, colour="red")
    with pytest.raises(ValueError, match="2 to 5 players, not 7"):
        game_config("kilim", 7)


def test_every_row_names_every_player_count_and_the_modes_are_known():
    for info in GAMES.values():
        for n in range(info.min_players, info.max_players + 1):
            config = game_config(info.name, n)
            assert config.mode in ("so", "mo") and 0 < config.c and 0 <= config.score_weight <= 1
            assert reproducible_budget(info.name, n).iterations >= 1000


def test_suggest_thinks_a_second_with_the_games_configuration(seen):
    suggest(new_game("kilim", 3, 1))
    assert seen == [[odd_config(3), DEFAULT_BUDGET]] and DEFAULT_BUDGET.seconds == DEFAULT_SECONDS
    suggest(new_game("kilim", 3, 1), 50, mode="so")               # one field changed
    assert seen[-1] == [replace(odd_config(3), mode="so"), Budget(iterations=50)]


def test_the_ismcts_agent_plays_the_games_defaults_reproducibly(seen):
    state = new_game("kilim", 2, 1)
    parse_agent("ismcts").build(seed=1).choose(state)
    assert seen == [[odd_config(2), Budget(iterations=302)]]
    parse_agent("ismcts:seconds=0.5,c=2").build(seed=1).choose(state)
    assert seen[-1] == [replace(odd_config(2), c=2.0), Budget(seconds=0.5)]


def test_the_arena_and_caravan_match_use_them(seen, capsys):
    run_arena("kilim", 2, ["ismcts", "random"], games=2, seed=3)
    assert seen and all(s == [odd_config(2), Budget(iterations=302)] for s in seen)
    seen.clear()
    assert cli.main(["match", "kilim", "--players", "3", "--quiet", "--agents",
                     "ismcts,random,random"]) == 0
    assert seen and all(s == [odd_config(3), Budget(iterations=303)] for s in seen)


def test_caravan_hint_thinks_a_second_with_the_games_configuration(seen, capsys):
    assert cli.main(["hint", "kilim", "--players", "4", "--seed", "2"]) == 0
    assert seen == [[odd_config(4), DEFAULT_BUDGET]]
    assert cli.main(["hint", "kilim", "--players", "4", "--iterations", "40",
                     "--mode", "so"]) == 0
    assert seen[-1] == [replace(odd_config(4), mode="so"), Budget(iterations=40)]


def test_review_thinks_a_second_a_search_with_the_games_configuration(seen, capsys):
    import json

    from search.agents import RandomAgent
    from search.match import play_game
    from search.review import review_game

    record = play_game("kilim", [RandomAgent(1), RandomAgent(2), RandomAgent(3)], 4)
    record.moves, record.scores, record.ranking, record.rewards = record.moves[:8], [], [], []
    review_game(record, seats=[0])
    assert seen and all(s == [odd_config(3), DEFAULT_BUDGET] for s in seen)
    seen.clear()
    text = json.dumps(record.to_json())
    assert cli.main(["review", text, "--seats", "1", "--iterations", "40", "--mode", "so"]) == 0
    assert seen and all(s == [replace(odd_config(3), mode="so"), Budget(iterations=40)]
                        for s in seen)


def ask(engine, line):
    engine.handle(line)
    engine.wait()


def test_the_protocol_uses_them_until_an_option_is_set(seen):
    engine = protocol.Engine(io.StringIO())
    ask(engine, "position kilim players 3 seed 2")
    ask(engine, "go")
    assert seen == [[odd_config(3), DEFAULT_BUDGET]]
    ask(engine, "hint 2")
    assert seen[-1] == [odd_config(3), DEFAULT_BUDGET]
    ask(engine, "setoption name MoveTime value 0")
    ask(engine, "go")                                             # the reproducible budget
    assert seen[-1] == [odd_config(3), Budget(iterations=303)]
    ask(engine, "setoption name C value 1.25")
    ask(engine, "go iterations 60")
    assert seen[-1] == [replace(odd_config(3), c=1.25), Budget(iterations=60)]
    ask(engine, "setoption name C value auto")
    ask(engine, "setoption name KeyMode value so")
    ask(engine, "go iterations 60")
    assert seen[-1] == [replace(odd_config(3), mode="so"), Budget(iterations=60)]


@pytest.mark.parametrize("field", ["score_weights", "modes", "iterations"])
def test_a_registry_row_that_misses_a_player_count_is_refused_at_import(field, monkeypatch):
    """A row without a weight, mode or budget for one of the game's counts would surface as a
    KeyError in the middle of a search; GameInfo.of refuses it when the registry is built."""
    from engine.registry import SEARCH_DEFAULTS, GameInfo

    short = replace(ODD, **{field: {n: v for n, v in getattr(ODD, field).items() if n != 5}})
    monkeypatch.setitem(SEARCH_DEFAULTS, "kilim", short)
    with pytest.raises(ImportError, match="must name every player count from 2 to 5"):
        GameInfo.of(GAMES["kilim"].cls)
    monkeypatch.setitem(SEARCH_DEFAULTS, "kilim", ODD)
    assert GameInfo.of(GAMES["kilim"].cls).search == ODD


def per_count(cell, counts, kind):
    """A cell of docs/strength.md's defaults table (`all: 0.5`, `2, 3, 5: so; 4: mo`,
    `2: 140,000; 3: ...`) as {players: value}."""
    values = {}
    for part in cell.split("; "):
        which, value = part.split(": ")
        for n in (counts if which == "all" else [int(k) for k in which.split(", ")]):
            values[n] = kind(value.replace(",", ""))
    return values


def test_the_defaults_table_of_the_docs_is_what_the_registry_plays():
    """docs/strength.md, "The defaults": c, score weight, keying mode and reproducible
    iterations per game and player count, as game_config and reproducible_budget give them."""
    import re
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[1] / "docs" / "strength.md").read_text()
    section = doc.split("## The defaults", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\w+) \| ([\d.]+) \| (.*?) \| (.*?) \| (.*?) \|$", section, re.M)
    assert sorted(row[0] for row in rows) == sorted(GAMES)
    for game, c, weights, modes, iterations in rows:
        counts = range(GAMES[game].min_players, GAMES[game].max_players + 1)
        weights = per_count(weights, counts, float)
        modes = per_count(modes, counts, str)
        iterations = per_count(iterations, counts, int)
        for n in counts:
            config = game_config(game, n)
            assert (config.c, config.score_weight, config.mode) == (
                float(c), weights[n], modes[n]), (game, n)
            assert reproducible_budget(game, n).iterations == iterations[n], (game, n)
