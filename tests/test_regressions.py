"""Every input that once broke Caravan (tests/regressions/, README.md there) gets a clean error.

The .json files are states and views that crashed a loader, hung a search or were wrongly
accepted: each must now be a ValueError, and the engine must go on working. The .in files
that hit a loader through the protocol must give `info string error` and leave the engine
answering. (The protocol's timing cases are in test_protocol_regressions.py.)
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.registry import from_json, from_view
from game_support import REGRESSIONS, regression_case

HERE = REGRESSIONS
LOADER_FILES = sorted(p.name for p in HERE.glob("*.json"))
LOADER_PROTOCOL_FILES = ["protocol-khiva-duel-16-card-hand-go.in",
                         "protocol-khiva-duel-16-card-hand-legal.in",
                         "protocol-taschkent-view-short-posts.in"]


def test_every_regression_file_is_covered():
    covered = set(LOADER_FILES) | set(LOADER_PROTOCOL_FILES) | {"README.md"}
    protocol_timing = {p.name for p in HERE.glob("protocol-*.in")} - set(LOADER_PROTOCOL_FILES)
    assert {p.name for p in HERE.iterdir()} == covered | protocol_timing
    assert len(LOADER_FILES) == 8


@pytest.mark.parametrize("name", LOADER_FILES)
def test_a_broken_state_or_view_is_a_value_error_in_a_child_process(name):
    """Loaded in a child process: a crash there fails this test instead of the test run."""
    code = (
        "import json, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from game_support import regression_case\n"
        "from engine.registry import from_json, from_view\n"
        "kind, data = regression_case(sys.argv[2])\n"
        "try:\n"
        "    (from_view if kind == 'view' else from_json)(data)\n"
        "except ValueError as e:\n"
        "    print('refused:', e)\n"
        "else:\n"
        "    print('accepted')\n")
    r = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), name],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr[-2000:]}"
    assert r.stdout.startswith("refused:"), r.stdout


@pytest.mark.parametrize("name", LOADER_FILES)
def test_the_error_is_a_value_error_and_names_a_field(name):
    kind, data = regression_case(name)
    with pytest.raises(ValueError) as e:
        (from_view if kind == "view" else from_json)(data)
    message = str(e.value)
    assert re.match(r"^[a-z_(][\w\[\].)]*: \S", message), message   # `field.path: reason`
    assert "Error(" not in message, message                          # no raw exception repr


@pytest.mark.parametrize("name", LOADER_PROTOCOL_FILES)
def test_a_broken_view_through_the_protocol_is_an_error_line(name):
    lines = (HERE / name).read_text().splitlines()
    script = "\n".join(lines + ["isready", "position khiva players 3 seed 1", "legal", "quit"]) + "\n"
    r = subprocess.run([sys.executable, "-m", "engine.cli", "uci"], input=script,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout.splitlines()
    assert any(line.startswith("info string error") for line in out), out
    assert "readyok" in out
    assert any(line.startswith("legal play-") for line in out), out   # the engine goes on


def test_a_fractional_number_is_refused_even_where_a_schema_enum_would_take_it():
    """Found by the loader fuzzer: JSON Schema's enum takes 1.0 for 1, and a Kilim seat's
    scrap whereabouts then reached a bit shift as a float (TypeError)."""
    from engine.registry import new_game

    g = new_game("kilim", 3, 4)
    d = g.to_json()
    d["whereabouts_by_seat"][0] = {"A": [1.0, "board"]}
    with pytest.raises(ValueError, match=r"whereabouts_by_seat\[0\]\.A\[0\]: expected an integer, got number 1.0"):
        from_json(d)
    v = g.to_json(view=g.to_move)
    v["turn"] = float(v["turn"])                      # a whole number written as a float
    with pytest.raises(ValueError, match=r"^turn: expected an integer, got number"):
        from_view(v)
