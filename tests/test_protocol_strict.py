"""`caravan uci` reads exactly what docs/protocol.md says and nothing looser: defaults of
`position`, over-long lines, JSON that names a key twice, numbers in the digits 0-9 alone,
words separated by ASCII spaces, each keyword once.

Most cases run a session in process (engine.protocol.serve on a StringIO: fast); the
timing cases (a `stop` or `quit` that must not act) drive the real subprocess.
"""
import io
import json
import re
import time
from pathlib import Path

import pytest

from engine import protocol
from engine.registry import GAMES, new_game
from engine.validation import MAX_DEPTH
from protocol_client import Client

ROOT = Path(__file__).resolve().parent.parent


def session(*lines):
    """The answer lines of a whole in-process session fed `lines`."""
    out = io.StringIO()
    assert protocol.serve(io.StringIO("".join(line + "\n" for line in lines)), out) == 0
    return out.getvalue().splitlines()


def errors(lines):
    return [line for line in lines if line.startswith("info string error")]


def untimed(lines):
    """`lines` without the numbers that change from run to run (time, nps, ips)."""
    return [re.sub(r" time \d+ nps \d+ ips \d+", "", line) for line in lines]


# ---------------------------------------------------------------- position defaults
@pytest.mark.parametrize("game", sorted(GAMES))
def test_position_with_the_game_alone_deals_seed_0_at_the_usual_player_count(game):
    """docs/protocol.md: `players` defaults to the game's usual count, `seed` to 0."""
    players = GAMES[game].default_players
    alone = session(f"position {game}", "view", "legal")
    spelled = session(f"position {game} players {players} seed 0", "view", "legal")
    assert errors(alone) == [] and alone == spelled
    assert json.loads(alone[0]) == new_game(game, players, 0).to_json()


def test_position_of_an_unknown_game_says_so():
    for line in ("position chess", "position chess players 3 seed 1"):
        answer = session(line)
        assert len(answer) == 1 and answer[0].startswith("info string error unknown game 'chess'")


def test_position_alone_is_the_usage():
    assert session("position")[0].startswith("info string error usage: position <game>")


# ---------------------------------------------------------------- over-long lines
LONG = 1_000_001          # one character more than a line may hold


@pytest.mark.parametrize("word", ["stop", "quit"])
def test_an_over_long_stop_or_quit_is_refused_like_any_over_long_line(word):
    """The reader acted on the first word of a line before its length was checked: an
    over-long `stop ...` stopped the search, an over-long `quit ...` ended the engine."""
    c = Client()
    try:
        c.send("position khiva players 3 seed 7")
        c.send("go infinite")
        c.send(word + " " + "x" * LONG)
        lines = c.until("info string error", timeout=60)
        assert lines[-1] == "info string error line too long (more than 1000000 characters)"
        deadline = time.monotonic() + 1.5                # the search runs on, the engine too
        while time.monotonic() < deadline:
            if not c.no_output(0.1):
                lines.append(c.read())
        assert not [line for line in lines if line.startswith("bestmove")], lines
        c.send("stop")
        assert c.until("bestmove", timeout=30)[-1].startswith("bestmove play-")
        assert c.ask("isready", "readyok", timeout=30)[-1] == "readyok"
    finally:
        assert c.close() == 0


def test_an_over_long_go_is_one_error_and_its_bestmove():
    """Every `go` answers a `bestmove`, also one whose line is too long to read."""
    lines = session("position khiva players 3 seed 7", "go searchmoves " + "x" * LONG, "isready")
    assert lines == ["info string error line too long (more than 1000000 characters)",
                     "bestmove (none)", "readyok"]


# ---------------------------------------------------------------- JSON
def view_line(extra=""):
    """`position khiva view <json>` of seat 0's view, with `extra` put first in the object."""
    text = json.dumps(new_game("khiva", 3, 7).to_json(view=0), separators=(",", ":"))
    return "position khiva view {" + extra + text[1:]


def test_a_view_with_a_key_given_twice_is_refused():
    """json kept the last of two equal keys, so `"game":"khan"` put before the real
    `"game":"khiva"` was read as a Khiva view: what was checked was not what was sent."""
    assert errors(session(view_line(), "legal")) == []
    for extra in ('"game":"khan",', '"turn":"x",', '"view":2,'):
        lines = session("position khiva players 3 seed 4", "d", view_line(extra), "d")
        assert len(errors(lines)) == 1, lines
        assert "is given twice" in errors(lines)[0]
        first, second = lines.index("dok"), len(lines) - 1
        assert lines[first + 2:] == lines[:first + 1]                # the position stays
        assert second == 2 * first + 2


def test_the_documented_json_depth_is_the_one_refused():
    """docs/protocol.md said 32 levels; the loader refuses more than MAX_DEPTH (16)."""
    doc = (ROOT / "docs" / "protocol.md").read_text()
    assert f"nested deeper than {MAX_DEPTH} levels" in " ".join(doc.split())
    assert "32 levels" not in " ".join(doc.split())
    nested = lambda n: "[" * n + "]" * n                     # noqa: E731
    for n, refused in ((MAX_DEPTH, False), (MAX_DEPTH + 1, True)):
        line = view_line(f'"x":{nested(n)},')          # the object is level 0, "x" level 1
        reason = errors(session(line))[0]
        assert ("nested deeper than 16 levels" in reason) == refused, reason
