"""`caravan uci` reads exactly what docs/protocol.md says and nothing looser: defaults of
`position`, over-long lines, JSON that names a key twice, numbers in the digits 0-9 alone,
words separated by ASCII spaces, each keyword once.

Most cases run a session in process (engine.protocol.serve on a StringIO: fast); the
timing cases (a `stop` or `quit` that must not act) drive the real subprocess.
"""
import io
import json
import re
import subprocess
import sys
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


# ---------------------------------------------------------------- numbers and words
ONE_ERROR = [
    "go iterations 5_0", "go iterations +50", "go iterations ５０",
    "go movetime 1_000", "go time +5000", "go iterations " + "5" * 5000,
    "go iterations " + "5" * 4000,
    "position khiva players ３ seed ７", "position khiva players 3 seed 1_0",
    "position khiva players +3", "position khiva seed " + "7" * 5000,
    "position taschkent players 4 seed 1 neutral_region ３",
    "setoption name Skill value 1_0", "setoption name Seed value +1",
    "setoption name Iterations value ５", "setoption name MaxNodes value " + "9" * 5000,
    "setoption name C value 1_0", "setoption name C value 1e1", "setoption name C value 1E0",
    "setoption name C value +1", "setoption name C value -0", "setoption name C value .5",
    "setoption name C value 1.", "setoption name C value inf", "setoption name C value ０.５",
    "setoption name ScoreWeight value 1e-1", "setoption name ScoreWeight value 0x1",
    "setoption name ScoreWeight value 0.5\u00a0", "setoption name C value \u00a0auto",
    "hint 1_0", "hint +2", "view １", "view +1",
    # a no-break space (or any other space than U+0020 and tab) separates no words
    "go\u00a0iterations 50", "go iterations\u00a050", "position\u00a0khiva",
    "position khiva players 3\u00a0seed 7", "position \u00a0khiva", "position khiva\u2003",
    "setoption name Skill\u00a0value 5", "isready\u00a0", "legal\u00a0", "view\u00a01",
    "hint\u00a03", "go infinite\u00a0", "d\u3000",
    # a keyword given twice
    "go iterations 50 iterations 60", "go infinite infinite", "go movetime 5 movetime 6",
    "hint 3 iterations 5 iterations 5", "position khiva players 3 players 4",
    "position khiva seed 1 players 3 seed 1",
    "position khan players 4 seed 1 khans impala,bison,sable,llama khans impala,bison,sable,llama",
    "position taschkent players 4 seed 1 neutral-region 5 neutral_region 5",
    # a number just outside its range: its float is the bound, the number is not
    "setoption name ScoreWeight value 1.00000000000000000001",
    "setoption name C value 100.00000000000000000001",
    # a list option with an empty item
    "position khan players 4 seed 1 khans impala,bison,sable,llama,",
    "position taschkent players 3 seed 1 goods iron:R2a,jade:R5b,indigo:R7a,",
]


@pytest.mark.parametrize("bad", ONE_ERROR)
def test_a_malformed_number_word_or_repeated_keyword_is_one_error_that_changes_nothing(bad):
    """One error line (a `go` or `hint` then ends its answer as every search does), and
    the position and options are as before."""
    setup = ["position khiva players 3 seed 4 moves play-B1-give-B4", "view"]
    # `isready` before the `go`: during a search it is answered at once, so after the `go` it
    # could come before or after the `bestmove` (a loaded machine took either way)
    probe = ["view", "setoption name MoveTime value 0", "isready", "go"]
    before = untimed(session(*setup, "setoption name Iterations value 20", *probe))
    lines = untimed(session(*setup, "setoption name Iterations value 20", bad, *probe))
    assert len(errors(lines)) == 1, lines
    end = {"go": ["bestmove (none)"], "hint": ["hintok"]}.get(bad.split(" ")[0], [])
    at = lines.index(errors(lines)[0])
    assert lines[at + 1:at + 1 + len(end)] == end
    assert lines[:at] + lines[at + 1 + len(end):] == before         # nothing changed
    assert len(errors(lines)[0]) <= len("info string error ") + protocol.MAX_REASON


@pytest.mark.parametrize("line, reason", [
    ("go iterations 50 iterations 60", "iterations is given twice"),
    ("go infinite infinite", "infinite is given twice"),
    ("position khiva players 3 players 4", "players is given twice"),
    ("position khiva players 3 seed 1 seed 1", "seed is given twice"),
    ("go iterations 5_0", "iterations is a whole number in the digits 0-9, not '5_0'"),
    ("go iterations " + "5" * 5000, "iterations is out of range (5,000 digits)"),
    ("position khiva players ３ seed ７", "players is a whole number in the digits 0-9"),
    ("setoption name Skill value 1_0",
     "option Skill is a whole number in the digits 0-9, not '1_0'"),
    ("setoption name C value 1e1",
     "option C takes a number such as 0.7 (digits, . as the decimal point) or auto, not '1e1'"),
    ("go iterations\u00a050", "words are separated by spaces: 'iterations\\xa050' holds U+00A0"),
    ("go iterations 50 searchmoves play-W4-give-B4 searchmoves play-B4-give-W4",
     "searchmoves is given twice"),
    ("hint 2 iterations 20 foo", "unexpected 'foo': hint [<k>] [go's limits]"),
    ("setoption name ScoreWeight value 1.00000000000000000001",
     "option ScoreWeight must be between 0 and 1"),
])
def test_the_error_says_what_is_wrong(line, reason):
    lines = session("position khiva players 3 seed 4", line)
    assert len(errors(lines)) == 1, lines
    assert errors(lines)[0].startswith("info string error " + reason), lines


@pytest.mark.parametrize("line", [
    "setoption name C value 0.7", "setoption name C value 1", "setoption name C value 1.25",
    "setoption name C value 100", "setoption name C value 0", "setoption name C value AUTO",
    "setoption name ScoreWeight value 0.0", "setoption name ScoreWeight value 1.000",
    "setoption name Skill value 07", "go\titerations 5", "  go  iterations 5  ",
    "position khiva players 3 seed 18446744073709551615", "go iterations 1000000000 movetime 1",
    "position taschkent players 4 seed 1 neutral-region 5",     # as the command line spells it
    "position taschkent players 4 seed 1 neutral_region 5",
])
def test_what_the_docs_allow_is_taken(line):
    lines = session("position khiva players 3 seed 4", line, "isready")
    assert errors(lines) == [] and lines.count("readyok") == 1, lines
    if line.split()[0] == "go":     # `readyok` may come before or after its `bestmove`
        assert [x for x in lines if x.startswith("bestmove")][0].startswith("bestmove play-")


# ---------------------------------------------------------------- searches stopped at once
def test_searches_stopped_before_their_first_iteration_still_list_their_candidates():
    """docs/protocol.md: a stopped search answers its summary, its candidates, then
    `bestmove` or `hintok`; one stopped before its first iteration, with 0 visits each, in
    legal order, the first legal move (of searchmoves, when given) its choice. The `hint` and
    the second `go` wait behind the first search, so `stop` reaches them before they start.
    They answered no candidate line at all before."""
    lines = session("position khiva players 3 seed 7", "go iterations 1000000000", "hint 3",
                    "go iterations 1000000000 searchmoves play-P4-give-G3 play-W5-give-W1",
                    "stop")
    assert not errors(lines)
    hint_start = lines.index("hintok") - 4
    zero = "visits 0 mean 0.0000 winprob 0.0000 points 0.00"
    assert untimed(lines[hint_start:]) == [
        "info iterations 0 nodes 0",
        f"hint rank 1 move play-W1-give-W4 {zero}",
        f"hint rank 2 move play-W1-give-W5 {zero}",
        f"hint rank 3 move play-W1-give-G3 {zero}",
        "hintok",
        "info iterations 0 nodes 0",
        f"info multipv 1 string rank 1 move play-W5-give-W1 {zero}",
        f"info multipv 2 string rank 2 move play-P4-give-G3 {zero}",
        "bestmove play-W5-give-W1"]
    first_go = lines[:hint_start]            # stopped after some iterations, or none
    assert first_go[-1].startswith("bestmove play-")
    assert len([l for l in first_go if l.startswith("info multipv ")]) == 20   # Khiva's 20 moves


@pytest.mark.parametrize("game", ["khiva", "taschkent"])
def test_d_after_a_view_of_a_finished_game_shows_only_what_that_seat_saw(game):
    """`d` rendered a finished game for nobody in particular: set up from seat 0's view, it
    showed the cards the loader had made up for the other seats as if they were theirs."""
    import random
    g = new_game(game, 3, 1)
    rng = random.Random(1)
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_moves()))
    lines = session(f"position {game} view " + json.dumps(g.to_json(view=0)), "d")
    assert lines == g.render(0).splitlines() + ["dok"]
    assert lines != g.render().splitlines() + ["dok"]       # the whole game shows more


def test_the_rates_are_the_counts_over_the_time_shown():
    """docs/protocol.md: nps is nodes / time. A search of under a millisecond shows time 0,
    and its rates 0 (they were divided by the unrounded time: nps 164781 beside time 0)."""
    assert protocol.search_info_line(50, 40, 0.0003) == \
        "info iterations 50 nodes 40 time 0 nps 0 ips 0"
    assert protocol.search_info_line(1000, 900, 0.0105) == \
        "info iterations 1000 nodes 900 time 10 nps 90000 ips 100000"


# ---------------------------------------------------------------- the input's bytes
def test_a_byte_order_mark_opening_the_input_is_dropped_and_nowhere_else():
    """Some Windows front ends open their pipe with a UTF-8 byte-order mark; undecodable
    bytes become U+FFFD (docs/protocol.md)."""
    bom = b"\xef\xbb\xbf"
    data = bom + b"isready\n" + bom + b"isready\nx\xffy\nquit\n"
    run = subprocess.run([sys.executable, "-m", "engine.cli", "uci"], input=data,
                         capture_output=True, timeout=60, cwd=ROOT)
    lines = run.stdout.decode("utf-8").splitlines()
    assert run.returncode == 0
    assert lines[0] == "readyok"
    assert lines[1] == "info string error unknown command '\\ufeffisready'"
    assert lines[2] == "info string error unknown command 'x\ufffdy'"
    assert len(lines) == 3
