"""The move-suggestion API and `caravan hint`."""
import json
import subprocess
import sys
import tempfile

import pytest

from engine.registry import new_game
from search.suggest import Budget, suggest


def test_suggest_ranks_moves_with_their_statistics():
    g = new_game("khiva", 3, 7)
    s = suggest(g, 1500, top_k=4, seed=1)
    assert s.game == "khiva" and s.player == 0 and s.iterations == 1500
    assert [m.rank for m in s.moves] == [1, 2, 3, 4]
    assert [m.visits for m in s.moves] == sorted((m.visits for m in s.moves), reverse=True)
    legal = {g.move_to_text(m) for m in g.legal_moves()}
    for m in s.moves:
        assert m.text in legal and 0 <= m.win_probability <= 1 and 0 <= m.mean_reward <= 1
        assert m.expected_score > 0
    assert s.best.text == s.result.text


def test_suggest_from_a_view_equals_suggest_from_the_state():
    g = new_game("khiva", 4, 3)
    for _ in range(6):
        g.apply(g.legal_moves()[1])
    view = g.to_json(view=g.to_move)
    a = suggest(g, 800, 5, seed=4)
    b = suggest(view, 800, 5, seed=4)
    c = suggest(json.dumps(view), Budget(iterations=800), 5, seed=4)
    assert [(m.text, m.visits) for m in a.moves] == [(m.text, m.visits) for m in b.moves]
    assert [(m.text, m.visits) for m in b.moves] == [(m.text, m.visits) for m in c.moves]


def test_suggest_with_a_time_budget():
    s = suggest(new_game("khiva", 2, 1), 0.2, 3)
    assert s.iterations > 0 and s.seconds < 2


@pytest.mark.parametrize("position,budget,top_k", [
    ("{oops", 100, 3), ({"game": "chess"}, 100, 3), ({"game": "khiva"}, 100, 3),
    ("[]", 100, 3), (None, 100, 3), ("x", 0, 3), ("x", -1.0, 3), ("x", True, 3),
    ("x", {"iterations": 5, "depth": 2}, 3), ("x", 100, 0),
])
def test_bad_suggest_arguments_are_value_errors(position, budget, top_k):
    if position == "x":
        position = new_game("khiva", 3, 1)
    with pytest.raises(ValueError):
        suggest(position, budget, top_k)


@pytest.mark.parametrize("keywords,message", [
    (dict(budget=float("inf")), "a budget is at most"),       # searched forever before
    (dict(budget=10**12), "a budget is at most"),
    (dict(top_k=True), "top_k must be a positive integer"),
    (dict(seed="a"), "a search seed is an integer"),
    (dict(seed=1.5), "a search seed is an integer"),
    (dict(workers=True), "workers must be an integer from 1 to 1,024"),
    (dict(workers=10**9), "workers must be an integer from 1 to 1,024"),
    (dict(address=5), "a Ray address is a string"),
    (dict(stop=5), "stop must be a threading.Event"),
])
def test_bad_suggest_keywords_are_clear_value_errors(keywords, message):
    """Each refused before any search starts (or any Ray import), with a message that names it."""
    keywords = {"budget": 50, **keywords}
    with pytest.raises(ValueError, match=message):
        suggest(new_game("khiva", 3, 1), **keywords)


def hint(*args):
    return subprocess.run([sys.executable, "-m", "engine.cli", "hint", *args],
                          capture_output=True, text=True, timeout=120, cwd=tempfile.gettempdir())


def test_hint_command_prints_a_table_with_bars():
    r = hint("khiva", "--players", "3", "--seed", "7", "--iterations", "1500", "--top", "3")
    assert r.returncode == 0, r.stderr
    rows = [l for l in r.stdout.splitlines() if l[:3].strip().rstrip(".").isdigit()]
    assert len(rows) == 3 and "#" in r.stdout and "% win" in r.stdout


def test_hint_command_from_a_view_file(tmp_path):
    g = new_game("khiva", 3, 7)
    g.apply(g.legal_moves()[0])
    path = tmp_path / "view.json"
    path.write_text(json.dumps(g.to_json(view=1)))
    r = hint("khiva", "--view", str(path), "--iterations", "500")
    assert r.returncode == 0, r.stderr
    assert "hints for P1" in r.stdout


@pytest.mark.parametrize("args", [
    ["khiva", "--view", "/nonexistent/view.json"], ["khiva", "--view", "{bad"],
    ["khiva", "--moves", "play-Q9-give-W1"], ["khiva", "--iterations", "0"],
    ["chess"], ["khiva", "--top", "0"], ["khiva", "--view", "{}", "--players", "3"],
])
def test_hint_usage_errors(args):
    r = hint(*args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


@pytest.mark.parametrize("text,message", [
    ("[" * 200_000 + "]" * 200_000, "too long|nested too deeply"),   # was a RecursionError
    ('{"game": NaN}', "not a JSON number"),
    ("[]", "must be a JSON object"),
])
def test_a_view_in_json_is_bounded_like_every_loaders(text, message):
    from engine.validation import ViewError

    with pytest.raises(ViewError, match=message):
        suggest(text, 50)
