"""python-chess's UCI module drives `caravan uci`: a client nobody here wrote.

The handshake (id, options with their types and ranges), `configure`, `ping` (isready) and
`quit` run through `chess.engine.SimpleEngine`; the raw `info` lines of real searches go
through the module's own info parser. python-chess must log no error or warning about
anything Caravan prints. (A chess library cannot search with Caravan: its `play` and
`analyse` send chess positions and read `bestmove` as a chess move.)
"""
import json
import logging
import sys
import tempfile

import pytest

import chess.engine

from engine.protocol import MAX_WORKERS, OPTIONS
from engine.registry import new_game
from protocol_client import CANDIDATE, Client

COMMAND = [sys.executable, "-m", "engine.cli", "uci"]
LOGGER = "chess.engine"


@pytest.fixture
def uci(caplog):
    """Caravan started by python-chess (its debug log of every line captured)."""
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    engine = chess.engine.SimpleEngine.popen_uci(COMMAND, timeout=120,
                                                 cwd=tempfile.gettempdir())
    try:
        yield engine
    finally:
        engine.close()


def complaints(caplog) -> list:
    """What python-chess logged as a warning or an error."""
    return [r.getMessage() for r in caplog.records
            if r.name == LOGGER and r.levelno >= logging.WARNING]


def lines_read(caplog) -> list:
    """The engine's output lines as python-chess's debug log shows them, in order."""
    return [r.args[-1] for r in caplog.records
            if r.name == LOGGER and r.msg == "%s: >> %s"]


def test_the_handshake_names_the_engine_and_every_option(uci, caplog):
    assert uci.id == {"name": "Caravan 0.1.0", "author": "the Caravan developers"}
    assert list(uci.options) == [o.name for o in OPTIONS]
    for o in OPTIONS:
        seen = uci.options[o.name]
        assert seen.type == o.kind, o.name
        if o.kind == "spin":
            assert (seen.default, seen.min, seen.max) == (o.default, o.low, o.high), o.name
        elif o.kind == "combo":
            assert (seen.default, seen.var) == (o.default, list(o.choices)), o.name
        elif o.kind == "check":     # python-chess reads a check's default as a bool
            assert seen.default is o.default is False, o.name
        else:                       # numbers UCI has no type for, or auto (the game's value)
            assert seen.default == str(o.default) == "auto", o.name
    assert uci.options["Workers"].max == MAX_WORKERS
    assert complaints(caplog) == []


def test_configure_and_ping_take_every_option_without_an_error(uci, caplog):
    """Errors come before `readyok`, so once `ping` returns, none was printed."""
    uci.configure({"Workers": 1, "Iterations": 50, "MoveTime": 20, "Seed": 2**63 - 1,
                   "C": "0.25", "ScoreWeight": "1", "KeyMode": "mo", "MaxNodes": 1000,
                   "HintMoves": 4096, "ShowLine": True, "LiveMoves": 3})
    uci.ping()
    read = lines_read(caplog)
    assert read[-1] == "readyok"
    assert not [l for l in read if "error" in l]
    assert complaints(caplog) == []


def test_an_option_value_the_engine_refuses_is_reported_before_readyok(uci, caplog):
    uci.configure({"C": "lots"})
    uci.ping()
    assert lines_read(caplog)[-2:] == [
        "info string error option C takes a number such as 0.7 (digits, . as the decimal "
        "point) or auto, not 'lots'", "readyok"]


def test_python_chess_keeps_to_the_announced_ranges(uci):
    with pytest.raises(chess.engine.EngineError):
        uci.configure({"Workers": MAX_WORKERS + 1})
    with pytest.raises(chess.engine.EngineError):
        uci.configure({"KeyMode": "full"})


def test_quit_ends_the_engine_with_code_0(uci, caplog):
    uci.ping()
    uci.quit()
    assert uci.protocol.returncode.result() == 0
    assert complaints(caplog) == []


# ---------------------------------------------------------------- info lines of real searches
parse_info = getattr(chess.engine, "_parse_uci_info", None)


def info_lines_of_a_session() -> list:
    """Every `info` line of a session with searches in every game, a finished game, errors
    and the handshake."""
    c = Client()
    lines = c.ask("uci", "uciok")
    for game in ("khiva", "khan", "kilim", "taschkent"):
        c.send(f"position {game} players 3 seed 5")
        lines += c.ask("go iterations 300", "bestmove", timeout=60)
        lines += c.ask("hint 3", "hintok", timeout=60)
    c.send("setoption name ShowLine value true")          # candidates with expected lines
    c.send("position khan players 3 seed 5")
    lines += c.ask("go iterations 3000", "bestmove", timeout=60)
    g = new_game("khiva", 2, 1)
    while not g.is_terminal():
        g.apply(g.legal_moves()[0])
    c.send("position khiva view " + json.dumps(g.to_json()))
    lines += c.ask("go", "bestmove", timeout=60)
    lines += c.ask("go iterations x", "bestmove", timeout=60)
    assert c.close() == 0
    return [l for l in lines if l.startswith("info")]


@pytest.mark.skipif(parse_info is None, reason="chess.engine has no _parse_uci_info")
def test_every_info_line_parses_without_a_complaint(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    lines = info_lines_of_a_session()
    candidates = 0
    for line in lines:
        info = parse_info(line[len("info "):], chess.Board())
        if line.startswith("info iterations"):
            words = line.split()
            assert info == {"nodes": int(words[4]), "time": int(words[6]) / 1000,
                            "nps": int(words[8])}, line
        elif line.startswith("info multipv"):
            candidates += 1
            m = CANDIDATE.match(line)
            assert info == {"multipv": int(m["rank"]),
                            "string": line.split(" string ", 1)[1]}, line
        else:
            assert info == {"string": line[len("info string "):]}, line
    assert candidates >= 4 and any("error" in l for l in lines)
    assert any(" line 1 " in l for l in lines if l.startswith("info multipv"))
    assert complaints(caplog) == []
