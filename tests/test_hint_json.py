"""The hint answer as JSON: Suggestion.to_json() and `caravan hint --json`, checked against the
published schema (docs/views/hint.schema.json)."""
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from engine.registry import GAMES, game_info, new_game
from search.suggest import suggest

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "docs" / "views" /
                     "hint.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_s_suggestion_is_a_valid_hint_answer(game):
    players = game_info(game).max_players
    sug = suggest(new_game(game, players, 4), 5000, top_k=6, seed=1)
    answer = sug.to_json()
    VALIDATOR.validate(answer)
    assert (answer["game"], answer["players"], answer["seat"]) == (game, players, sug.player)
    assert [m["move"] for m in answer["moves"]] == [m.text for m in sug.moves]
    assert [m["line"] for m in answer["moves"]] == \
        [[{"seat": s.seat, "move": s.text} for s in m.line] for m in sug.moves]
    assert json.loads(json.dumps(answer)) == answer


def test_the_schema_refuses_what_is_not_a_hint_answer():
    good = suggest(new_game("khan", 3, 1), 2000, top_k=2, seed=1).to_json()
    for broken in ({**good, "moves": []}, {**good, "seat": 7}, {**good, "extra": 1},
                   {**good, "moves": [{**good["moves"][0], "win_probability": 1.5}]}):
        assert list(VALIDATOR.iter_errors(broken))


def run_hint(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine.cli", "hint", *args],
                          capture_output=True, text=True, timeout=120)


def test_caravan_hint_json_prints_one_valid_object_and_nothing_else():
    done = run_hint("khan", "--players", "4", "--seed", "3", "--iterations", "20000", "--top",
                    "3", "--json", "--searchmoves", "raid-boldhome raid-sundome raid-colymar")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.count("\n") == 1
    answer = json.loads(done.stdout)
    VALIDATOR.validate(answer)
    assert answer["iterations"] == 20000 and len(answer["moves"]) == 3
    assert {m["move"] for m in answer["moves"]} == {"raid-boldhome", "raid-sundome",
                                                    "raid-colymar"}
    assert any(m["line"] for m in answer["moves"])


def test_caravan_hint_json_errors_are_one_line_on_stderr():
    done = run_hint("khan", "--players", "4", "--seed", "3", "--json", "--searchmoves", "raid-x")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("caravan: error: ") and done.stderr.count("\n") == 1
