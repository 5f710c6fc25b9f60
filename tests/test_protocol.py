"""`caravan uci` driven as a subprocess, checked against docs/protocol.md."""
import json
import os
import random
import re
from pathlib import Path

import pytest

from engine.registry import new_game
from protocol_client import (CANDIDATE, INFO, Client, check_game_over_answer,
                             check_view_and_seed_forms_search_alike, play_from_the_seed_form,
                             play_from_views)

def test_handshake_lists_options_and_games(engine):
    lines = engine.ask("uci", "uciok")
    assert lines[0].startswith("id name Caravan") and lines[1].startswith("id author")
    opts = {l.split()[2] for l in lines if l.startswith("option name")}
    assert {"Workers", "Iterations", "Seed", "C", "KeyMode", "MoveTime"} <= opts
    assert any(l.startswith("info string games") and "khiva" in l for l in lines)
    assert engine.ask("isready", "readyok") == ["readyok"]


@pytest.mark.parametrize("players", [2, 3])
def test_full_game_from_the_seed_form(engine, players):
    play_from_the_seed_form(engine, "khiva", players, 11, iterations=60, max_moves=400)


@pytest.mark.parametrize("players", [2, 4])
def test_full_game_from_views(engine, players):
    """The client runs its own table and only ever tells the engine what the seat to move
    knows."""
    play_from_views(engine, new_game("khiva", players, 23), iterations=40)


def test_view_and_seed_forms_give_the_same_search(engine):
    check_view_and_seed_forms_search_alike(engine, "khiva", 3, 5, random_moves=7, rng_seed=3)


CARD_FIELDS = ("hand", "chosen_play", "chosen_give", "played", "discard", "aside_up")


def cards_in(obj):
    """Every travel card named in a Khiva JSON object's card fields."""
    out = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in CARD_FIELDS:
                out |= set(v)
            elif k == "card_whereabouts":
                out |= set(v)
            elif k == "pending":
                out.add(v["card"])
            else:
                out |= cards_in(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= cards_in(v)
    return out


def test_a_view_never_holds_a_card_its_seat_cannot_see():
    g = new_game("khiva", 4, 8)
    rng = random.Random(1)
    for _ in range(25):
        g.apply(rng.choice(g.legal_moves()))
    full = g.to_json()
    for seat in range(4):
        view = g.to_json(view=seat)
        me = full["player_state"][seat]
        public = set(full["discard"]) | set(full["aside_up"])
        own = set(me["hand"]) | set(me["chosen_play"]) | set(me["chosen_give"])
        known = {c for c in view["card_whereabouts"]}     # cards it gave away
        assert cards_in(view) <= public | own | known
        others = set()
        for p, ps in enumerate(full["player_state"]):
            if p != seat:
                others |= set(ps["hand"]) | set(ps["chosen_play"]) | set(ps["chosen_give"])
        assert not (cards_in(view) & (others - known))
        assert not (cards_in(view) & set(full["aside_down"]))
        assert "seed" not in view and "teapot_pile" not in view and "carpet_pile" not in view


def test_stop_after_go_infinite_answers_with_a_move(engine):
    engine.send("position khiva players 3 seed 1")
    engine.send("go infinite")
    assert engine.ask("isready", "readyok", timeout=60)[-1] == "readyok"  # while it searches
    lines = engine.ask("stop", "bestmove", timeout=60)
    assert lines[-1].startswith("bestmove ") and lines[-1] != "bestmove (none)"


def test_isready_is_answered_during_a_long_search(engine):
    """A search in progress counts as processed once started: `readyok` comes while it runs
    (before its `bestmove`, which only `stop` brings)."""
    engine.send("position khiva players 3 seed 1")
    engine.send("go iterations 1000000000")
    for _ in range(5):
        lines = engine.ask("isready", "readyok", timeout=60)
        assert not any(l.startswith("bestmove") for l in lines), lines
    assert engine.ask("stop", "bestmove", timeout=60)[-1].startswith("bestmove play-")


def test_isready_comes_after_every_earlier_answer_errors_included(engine):
    """Sent in one write: every answer of the earlier commands, errors and the whole `uci`
    block included, is written before `readyok`."""
    script = ["uci", "position khiva players 3 seed 7", "setoption name Nope value 1",
              "position chess", "go depth 3", "hint 0", "legal", "d", "isready"]
    engine.send("\n".join(script))
    out = engine.until("readyok", timeout=60)
    uci_end = out.index("uciok")
    assert out[0].startswith("id name") and uci_end < out.index("readyok")
    kinds = [l.split()[0] if "error" not in l else "error" for l in out[uci_end + 1:]]
    assert kinds[:7] == ["error", "error", "error", "bestmove", "error", "hintok", "legal"]
    assert kinds[-2:] == ["dok", "readyok"]


def test_isready_waits_for_a_command_queued_behind_a_search(engine):
    """`d` waits for the running search, and `isready` waits for `d`: after `stop`, the
    answers come in the order asked."""
    engine.send("position khiva players 3 seed 7")
    engine.send("go iterations 1000000000")
    engine.send("d")
    engine.send("isready")
    assert engine.no_output(0.5)                 # the search runs; nothing is answered yet
    engine.send("stop")
    out = engine.until("readyok", timeout=60)
    answers = [l for l in out if l.startswith(("bestmove", "dok", "readyok"))]
    assert [a.split()[0] for a in answers] == ["bestmove", "dok", "readyok"]


def test_hint_lists_the_best_moves(engine):
    engine.send("position khiva players 3 seed 2")
    lines = engine.ask("hint 3", "hintok")
    hints = [CANDIDATE.match(l) for l in lines if l.startswith("hint ")]
    assert len(hints) == 3 and all(hints)
    assert [int(h["rank"]) for h in hints] == [1, 2, 3]
    assert INFO.match(lines[0]) and lines[-1] == "hintok"


def test_hint_lines_are_the_best_candidates_of_the_same_search(engine):
    """`hint k` prints the first k candidates `go` prints for the same search, each after
    `hint ` instead of `info multipv <k> string `."""
    engine.send("position khiva players 3 seed 2")
    engine.send("setoption name Iterations value 400")
    hints = [l for l in engine.ask("hint 4", "hintok") if l.startswith("hint ")]
    cands = [l for l in engine.ask("go", "bestmove") if l.startswith("info multipv")]
    assert [h[len("hint "):] for h in hints] == [c.split(" ", 4)[4] for c in cands[:4]]


@pytest.mark.parametrize("bad", [
    "frobnicate", "position chess players 3 seed 1", "position khiva players 9 seed 1",
    "position khiva players 3 seed 1 moves play-Z9-give-W1", "position khiva view {not json",
    'position khiva view {"game": "khiva", "view": 0}', "position khiva view [1, 2]",
    "go iterations -5", "go iterations x", "go depth 3", "setoption name Nope value 1",
    "setoption name Iterations value -1", "setoption name KeyMode value zz", "hint 0",
    "setoption name Workers value 0", "position", "setoption", "go infinite x",
    "setoption name ScoreWeight value 1.5", "setoption name ScoreWeight value most",
    "setoption name ScoreWeight value autos", "setoption name KeyMode value full",
    "setoption name C value -1",
    "position khiva view " + "[" * 1000 + "]" * 1000,               # too deep
    'position khiva view {"game": "khiva", "x": ' + "[" * 40 + "]" * 40 + "}",
    'position khiva view {"game": "khiva", "pad": "' + "x" * 100_001 + '"}',   # too long
    'position khiva view "khiva"', "position khiva view null", "position khiva view 7",
    "position khiva view", 'position khiva view {"game": "khiva", "view": NaN}',
    'position khiva view {"game": "khan", "view": 0}', "view 3", "view x", "view 0 1",
    "view -1", "position khiva view {}",
])
def test_errors_are_one_line_and_change_nothing(engine, bad):
    """One error line; a `go` or `hint` then ends its answer as every search does."""
    engine.send("position khiva players 3 seed 4 moves play-B1-give-B4")
    before = engine.ask("d", "dok")
    lines = engine.ask(bad, "info string error")
    assert len(lines) == 1
    end = {"go": "bestmove (none)", "hint": "hintok"}.get(bad.split()[0])
    assert engine.ask("isready", "readyok") == ([end] if end else []) + ["readyok"]
    assert engine.ask("d", "dok") == before


def test_impossible_view_is_refused(engine):
    g = new_game("khiva", 3, 4)
    view = g.to_json(view=0)
    view["aside_down_count"] += 3                     # more cards than exist
    engine.send("position khiva view " + json.dumps(view))
    assert engine.read().startswith("info string error")
    view = g.to_json(view=0)
    view["player_state"][0]["hand"].append(view["player_state"][0]["hand"][0])
    engine.send("position khiva view " + json.dumps(view))
    assert engine.read().startswith("info string error")


@pytest.mark.parametrize("setup, command, answer", [
    ([], "go", ["info string error no position: send position first", "bestmove (none)"]),
    ([], "hint", ["info string error no position: send position first", "hintok"]),
    (["position khiva players 3 seed 4"], "go movetime 0",
     ["info string error movetime must be between 1 and 86400000", "bestmove (none)"]),
    (["position khiva players 3 seed 4"], "go iterations",
     ["info string error unexpected 'iterations': go [iterations <n>] [movetime <ms>] "
      "[time <ms> [inc <ms>] [movestogo <n>]] [infinite] [searchmoves <move>...]",
      "bestmove (none)"]),
    (["position khiva players 3 seed 4"], "hint x",
     ["info string error usage: hint [<k>] [go's limits] [searchmoves <move>...]", "hintok"]),
    (["position khiva players 3 seed 4", "ucinewgame"], "go infinite",
     ["info string error no position: send position first", "bestmove (none)"]),
])
def test_a_search_that_cannot_start_answers_its_error_then_ends_at_once(engine, setup,
                                                                       command, answer):
    """A client waiting for `bestmove` (or `hintok`) never hangs."""
    for line in setup:
        engine.send(line)
    assert engine.ask(command, answer[-1].split()[0], timeout=60) == answer


def test_go_and_hint_on_a_finished_game(engine):
    """`go` answers the documented gameover lines and `bestmove (none)`; `hint` an error and
    `hintok`."""
    g = new_game("khiva", 2, 3)
    rng = random.Random(3)
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_moves()))
    engine.send("position khiva view " + json.dumps(g.to_json()))
    check_game_over_answer(engine.ask("go", "bestmove", timeout=60), g)
    assert engine.ask("hint", "hintok", timeout=60) == \
        ["info string error the game is over: no hint", "hintok"]


def search_iterations(lines):
    """The iterations of a search's summary line (the last `info iterations` line)."""
    return int([l for l in lines if l.startswith("info iterations")][-1].split()[2])


def search_time(lines):
    """The milliseconds of a search's summary line."""
    summary = [l for l in lines if l.startswith("info iterations")][-1].split()
    return int(summary[summary.index("time") + 1])


def test_the_budget_options_limit_together(engine):
    """Iterations and MoveTime are each a limit when above 0, and with both the first one
    reached ends the search."""
    engine.send("position khiva players 3 seed 4")
    engine.send("setoption name MoveTime value 0")
    engine.send("setoption name Iterations value 1")
    assert search_iterations(engine.ask("go", "bestmove", timeout=60)) == 1
    engine.send("setoption name Iterations value 0")
    engine.send("setoption name MoveTime value 300")
    lines = engine.ask("go", "bestmove", timeout=60)
    assert search_iterations(lines) > 1 and search_time(lines) >= 300
    assert search_iterations(engine.ask("hint 1", "hintok", timeout=60)) > 1
    engine.send("setoption name Iterations value 7")
    assert search_iterations(engine.ask("go", "bestmove", timeout=60)) == 7


def test_a_go_without_limits_thinks_for_a_second_by_default(engine):
    engine.send("position khiva players 3 seed 4")
    lines = engine.ask("go", "bestmove", timeout=60)
    assert search_time(lines) >= 1000 and search_iterations(lines) > 1000


def test_with_both_budget_options_at_0_a_go_takes_the_games_reproducible_budget(engine):
    """MoveTime 0 and Iterations 0: the registry's iteration equivalent of a second, the
    budget of `caravan match` (search.config.reproducible_budget)."""
    from engine.registry import GAMES
    engine.send("position kilim players 3 seed 4")
    engine.send("setoption name MoveTime value 0")
    lines = engine.ask("go", "bestmove", timeout=120)
    assert search_iterations(lines) == GAMES["kilim"].search.iterations[3]


def test_gos_own_limits_replace_the_options(engine):
    engine.send("position khiva players 3 seed 4")
    engine.send("setoption name MoveTime value 100000")
    engine.send("setoption name Iterations value 5")
    assert search_iterations(engine.ask("go iterations 300", "bestmove", timeout=60)) == 300
    engine.send("setoption name MoveTime value 0")
    assert search_iterations(engine.ask("go", "bestmove", timeout=60)) == 5


def test_stop_stops_every_search_asked_for_before_it(engine):
    """`stop` arriving while later searches still wait in the queue stops them too (each
    still answers); the engine is then idle."""
    engine.send("position khiva players 3 seed 7")
    engine.send("go iterations 1000000000")
    engine.send("hint")
    engine.send("go infinite")
    engine.send("setoption name Iterations value 1000000000")
    engine.send("go")
    engine.send("stop")
    lines = engine.until("bestmove", timeout=30)
    lines += engine.until("hintok", timeout=30)
    lines += engine.until("bestmove", timeout=30)
    lines += engine.until("bestmove", timeout=30)
    assert [l.split()[0] for l in lines if l.startswith(("bestmove", "hintok"))] == \
        ["bestmove", "hintok", "bestmove", "bestmove"]
    assert engine.ask("legal", "legal", timeout=30)[-1].startswith("legal play-")


def test_a_stop_leaves_later_searches_alone(engine):
    engine.send("position khiva players 3 seed 7")
    engine.send("go infinite")
    engine.send("stop")
    engine.until("bestmove", timeout=30)
    lines = engine.ask("go iterations 300", "bestmove", timeout=30)
    assert any(l.startswith("info iterations 300 ") for l in lines)


def test_end_of_input_stops_infinite_searches_running_or_queued():
    c = Client()
    for line in ["position khiva players 3 seed 7", "go infinite", "go infinite", "d",
                 "go iterations 200"]:
        c.send(line)
    lines = c.end_input(timeout=30)
    answers = [l.split()[0] for l in lines if l.startswith(("bestmove", "dok"))]
    assert answers == ["bestmove", "bestmove", "dok", "bestmove"]
    assert "info iterations 200 " in " ".join(lines)      # a budget still finishes
    assert c.proc.wait(timeout=30) == 0


def test_quit_stops_everything_before_it_and_exits():
    c = Client()
    for line in ["position khiva players 3 seed 7", "go iterations 1000000000", "d",
                 "go iterations 1000000000", "quit", "go iterations 100"]:
        c.send(line)
    lines = c.end_input(timeout=30)
    answers = [l.split()[0] for l in lines if l.startswith(("bestmove", "dok"))]
    assert answers == ["bestmove", "dok", "bestmove"]        # nothing after quit runs
    assert c.proc.wait(timeout=30) == 0


def test_a_line_too_long_is_one_error_and_the_session_goes_on(engine):
    engine.send("position khiva view {" + "x" * 1_100_000 + "}")
    assert engine.read(timeout=30).startswith("info string error line too long")
    engine.send("position khiva players 3 seed 7")
    assert engine.ask("legal", "legal")[-1].startswith("legal play-")


def test_an_unexpected_exception_is_an_internal_error_line(monkeypatch):
    """No exception from a command ends the session."""
    import io

    from engine import protocol

    def broken(self, args, line):
        raise KeyError("boom")

    monkeypatch.setitem(protocol.Engine.COMMANDS, "legal", broken)
    out = io.StringIO()
    assert protocol.serve(io.StringIO("legal\nposition khiva players 3 seed 7\nd\n"), out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == "info string error internal error: KeyError: 'boom'"
    assert lines[-1] == "dok"


def test_answers_are_utf8_whatever_the_locale():
    """An answer quoting non-ASCII input is not lost under an ASCII locale."""
    import os
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "engine.cli", "uci"], input="é\n".encode(),
                       capture_output=True, timeout=30,
                       env={**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"})
    assert r.returncode == 0
    assert r.stdout.decode("utf-8") == "info string error unknown command 'é'\n"


def seat_to_move_after(game, players, seed, seat, at_least, rng_seed):
    """(state, move texts): random play from the seed until `seat` is to move after at least
    `at_least` moves."""
    g = new_game(game, players, seed)
    rng = random.Random(rng_seed)
    moves = []
    while len(moves) < at_least or g.to_move != seat:
        assert not g.is_terminal()
        m = rng.choice(g.legal_moves())
        moves.append(g.move_to_text(m))
        g.apply(m)
    return g, moves


@pytest.mark.parametrize("game", ["khiva", "khan", "kilim", "taschkent"])
@pytest.mark.parametrize("at_least", [0, 15])
def test_view_round_trips_through_position(engine, game, at_least):
    """`view 1` and `view` print what `position <game> view` takes back, unchanged."""
    players = 3
    g, moves = seat_to_move_after(game, players, 5, 1, at_least, rng_seed=at_least)
    seed_form = f"position {game} players {players} seed 5 moves " + " ".join(moves)
    engine.send(seed_form)
    seat_view = engine.ask("view 1", "{")[-1]
    assert json.loads(seat_view) == g.to_json(view=1)
    engine.send(f"position {game} view {seat_view}")
    assert engine.ask("view 1", "{")[-1] == seat_view
    assert engine.ask("view", "{")[-1] == seat_view          # the view's own seat
    engine.send(seed_form)
    full = engine.ask("view", "{")[-1]
    assert json.loads(full) == g.to_json()
    engine.send(f"position {game} view {full}")
    assert engine.ask("view", "{")[-1] == full
    assert engine.ask("legal", "legal")[-1].split()[1:] == \
        [g.move_to_text(m) for m in g.legal_moves()]


@pytest.mark.parametrize("game", [
    "khiva",
    "khan",
    "kilim",
    "taschkent"])
def test_a_full_state_keeps_every_seats_view(engine, game):
    g, moves = seat_to_move_after(game, 3, 5, 1, 15, rng_seed=15)
    engine.send(f"position {game} players 3 seed 5 moves " + " ".join(moves))
    views = [engine.ask(f"view {seat}", "{")[-1] for seat in range(3)]
    engine.send(f"position {game} view " + engine.ask("view", "{")[-1])
    assert [engine.ask(f"view {seat}", "{")[-1] for seat in range(3)] == views


def test_view_of_another_seat_than_the_views_is_an_error(engine):
    g = new_game("khiva", 3, 4)
    engine.send("position khiva view " + json.dumps(g.to_json(view=0)))
    assert engine.ask("view 2", "info string error")[-1] == \
        "info string error the position was set up from seat 0's view: only view 0 is known"
    assert json.loads(engine.ask("view 0", "{")[-1]) == g.to_json(view=0)


def test_view_needs_a_position(engine):
    assert engine.ask("view", "info string error")[-1] == \
        "info string error no position: send position first"


def test_end_of_input_finishes_the_search_and_exits():
    c = Client()
    c.send("position khiva players 3 seed 1")
    c.send("go iterations 300")
    c.proc.stdin.close()
    lines = []
    while True:
        try:
            lines.append(c.read(timeout=30))
        except EOFError:
            break
    assert lines[-1].startswith("bestmove ")
    assert c.proc.wait(timeout=30) == 0


# ---------------------------------------------------------------- docs/protocol.md against the engine
DOCS = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def docs_section(heading: str) -> str:
    """The text of docs/protocol.md under `heading` (a whole heading line) up to the next
    heading of the same or a higher level."""
    text = DOCS.read_text()
    level = heading.split()[0]
    body = text[text.index(heading + "\n") + len(heading) + 1:]
    end = re.search(rf"^#{{1,{len(level)}}} ", body, re.M)
    return body[:end.start()] if end else body


def doc_number(text: str) -> int:
    """An integer as the docs write it: 1000, 10^9, 5*10^7, 2^63-1 or 4×cores."""
    expr = text.replace("×cores", f"*{os.cpu_count() or 1}").replace("^", "**")
    assert re.fullmatch(r"[\d*+-]+", expr), text
    return eval(expr)


def announcement_in_docs(name: str, kind: str, default: str) -> str:
    """The `option ...` line `uci` must print for a row of the docs' Options table."""
    line = f"option name {name} type {kind.split()[0]} default {default}"
    spin = re.fullmatch(r"spin (\S+)\.\.(\S+)", kind)
    if spin:
        return line + f" min {doc_number(spin[1])} max {doc_number(spin[2])}"
    if kind.startswith("combo "):
        return line + "".join(f" var {v}" for v in kind.split()[1:] if v != "/")
    if kind == "check":
        return line
    assert re.fullmatch(r"string \(number \S+\.\.\S+, or auto\)", kind), kind
    return line


def test_the_options_table_is_what_uci_announces(engine):
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \| ([^|]+) \|", docs_section("### Options"),
                      re.M)
    documented = [announcement_in_docs(n, k.strip(), d.strip()) for n, k, d in rows]
    announced = [l for l in engine.ask("uci", "uciok") if l.startswith("option ")]
    assert announced == documented


def test_the_string_options_ranges_are_the_documented_ones():
    from engine.protocol import OPTIONS

    documented = dict(re.findall(r"^\| `(\w+)` \| string \(number (\S+), or auto\) \|",
                                 docs_section("### Options"), re.M))
    actual = {o.name: f"{o.low:g}..{o.high:g}" for o in OPTIONS if o.kind == "string"}
    assert documented == actual


def test_workers_are_bounded_by_the_machine(engine):
    cap = max(1, 4 * (os.cpu_count() or 1))
    assert engine.ask(f"setoption name Workers value {cap + 1}", "info string error") == \
        [f"info string error option Workers must be in 1..{cap}"]


def documented_session() -> list:
    """[(">" or "<", text)] of the code block of docs/protocol.md's "A session"."""
    block = re.search(r"^```\n(.*?)^```", docs_section("## A session"), re.M | re.S)[1]
    return [(line[0], line[2:]) for line in block.splitlines()]


SEARCH_OWN = [  # the search's own numbers and moves (they change with the search code)
    (re.compile(r"\b(nodes|time|nps|ips) \d+"), r"\1 _"),
    (re.compile(r"^((?:info multipv \d+ string|hint) rank \d+) move \S+ visits \d+ "
                r"mean \S+ winprob \S+ points \S+(?P<line> line)?(?(line) \d+(?: \d+ \S+)*)$"),
     lambda m: f"{m[1]} move _ visits _ mean _ winprob _ points _" + (" line _" if m["line"] else "")),
    (re.compile(r"^bestmove (?!\(none\))\S+$"), "bestmove _"),
    (re.compile(r"^(option name Workers type spin default 1 min 1 max )\d+$"), r"\1_"),
]


def without_search_numbers(line: str) -> str:
    for pattern, replacement in SEARCH_OWN:
        line = pattern.sub(replacement, line)
    return line


def matches(lines: list, pattern: list) -> bool:
    """Whether `lines` match `pattern`, where a "..." item stands for any number of lines."""
    if not pattern:
        return not lines
    if pattern[0] == "...":
        return any(matches(lines[i:], pattern[1:]) for i in range(len(lines) + 1))
    return bool(lines) and lines[0] == pattern[0] and matches(lines[1:], pattern[1:])


def answers_of(session: list) -> list:
    """[(command, [documented answer lines])] of a documented session."""
    out = []
    for direction, text in session:
        if direction == ">":
            out.append((text, []))
        else:
            out[-1][1].append(without_search_numbers(text))
    return out


def read_answer(engine: Client, pattern: list) -> list:
    """The engine's lines up to the last line `pattern` names, progress lines dropped."""
    lines = []
    while pattern and lines[-1:] != [p for p in pattern if p != "..."][-1:]:
        lines.append(without_search_numbers(engine.read(timeout=60)))
        if lines[-2:-1] and lines[-2].startswith("info iterations") and \
                lines[-1].startswith("info iterations"):
            del lines[-2]                       # a progress line before the summary
    return lines


def test_the_documented_session_is_what_the_engine_prints(engine):
    """docs/protocol.md's example session, run one command at a time, answer for answer."""
    session = answers_of(documented_session())
    assert session[-1] == ("quit", [])
    for command, documented in session[:-1]:
        engine.send(command)
        answer = read_answer(engine, documented)
        assert matches(answer, documented), (command, answer)
    engine.send("quit")
    assert engine.end_input() == [] and engine.proc.wait(timeout=60) == 0


def test_show_line_takes_true_or_false_and_adds_the_expected_line(engine):
    """`ShowLine` (a UCI check option) is true or false; anything else is an error line that
    leaves it as it was. On, every candidate ends `line <n>` and n (seat, move) pairs, each
    seat a seat of the game; off again, the candidates are as before."""
    assert engine.ask("setoption name ShowLine value maybe", "info string error") == \
        ["info string error option ShowLine is true or false, not 'maybe'"]
    engine.send("position khan players 3 seed 5")
    engine.send("setoption name Iterations value 3000")
    engine.send("setoption name ShowLine value TRUE")
    lines = engine.ask("hint 3", "hintok", timeout=60)
    engine.send("setoption name ShowLine value false")
    plain = engine.ask("hint 3", "hintok", timeout=60)
    candidates = [CANDIDATE.match(l) for l in lines if l.startswith("hint ")]
    assert len(candidates) == 3 and all(candidates)
    for m in candidates:
        words = m["line"].split()
        assert m["length"] is not None and len(words) == 2 * int(m["length"])
        assert all(0 <= int(seat) < 3 for seat in words[::2])
    assert any(int(m["length"]) >= 1 for m in candidates)
    shown = [l.split(" line ")[0] for l in lines if l.startswith("hint ")]
    assert shown == [l for l in plain if l.startswith("hint ")]
    assert all(" line " not in l for l in plain)
