"""The protocol's regression inputs (tests/regressions/protocol-*.in, README.md there): each
broke `caravan uci` at commit 7d2d92f; each test shows the documented behaviour now.

The loader cases among the .in files are in test_regressions.py. No test here asserts a
duration: "does not hang" means an answer within a generous timeout.
"""
import threading
import time
from pathlib import Path

import pytest

from engine.registry import new_game
from protocol_client import Client

HERE = Path(__file__).parent / "regressions"


def script(name):
    return (HERE / name).read_text().splitlines()


def test_go_go_stop_stops_both_searches(engine):
    """Sent ~0.5 s apart: `stop` stops the running search and the one still queued (each
    answers `bestmove`), so the engine is idle at once: `legal` answers."""
    for line in script("protocol-go-go-stop.in"):
        engine.send(line)
        time.sleep(0.5)
    engine.until("bestmove", timeout=30)
    second = engine.until("bestmove", timeout=30)
    assert second[-1].startswith("bestmove play-")
    assert engine.ask("legal", "legal", timeout=30)[-1].startswith("legal play-")


def test_end_of_input_after_go_infinite_and_d_exits():
    c = Client()
    for line in script("protocol-eof-after-infinite-and-d.in"):
        c.send(line)
    out = c.end_input(timeout=30)
    answers = [l for l in out if l.startswith(("bestmove", "dok"))]
    assert [a.split()[0] for a in answers] == ["bestmove", "dok"]
    assert answers[0].startswith("bestmove play-")
    assert c.proc.wait(timeout=30) == 0


def test_deep_json_is_one_error_and_the_session_goes_on():
    c = Client()
    for line in script("protocol-deep-json.in"):
        c.send(line)
    out = c.end_input(timeout=30)
    errors = [l for l in out if l.startswith("info string error")]
    assert errors == ["info string error the position is nested too deeply"]
    assert "readyok" in out and out[-1] == "uciok"           # isready and uci after it
    assert c.proc.wait(timeout=30) == 0


def test_a_stop_that_reaches_a_worker_before_its_search_still_stops_it():
    """The Ray actor's calls may run in any order: stop(n) first, then search n (no budget)
    must return at once instead of running forever. (In-process: no Ray needed.)"""
    from search.config import Budget, SearchConfig
    from search.parallel import _Worker

    g = new_game("khiva", 3, 7)
    worker = _Worker(0)
    config = SearchConfig(max_nodes=1000)
    worker.stop(1)
    answer = {}
    t = threading.Thread(target=lambda: answer.update(
        worker.search(g, g.to_move, Budget(), config, 1, 1)), daemon=True)
    t.start()
    t.join(timeout=30)
    assert not t.is_alive() and answer["iterations"] == 0
    later = worker.search(g, g.to_move, Budget(300), config, 1, 2)
    assert later["iterations"] == 300                        # a later search is not stopped


def test_workers_2_go_infinite_stop_answers_and_quit_ends_the_engine():
    """With Ray workers: `stop` right after `go infinite` gives a `bestmove`, and `quit`
    ends the engine (also while a search runs)."""
    pytest.importorskip("ray")
    c = Client()
    try:
        for line in script("protocol-workers-2-go-infinite-stop.in"):
            c.send(line)
        assert c.until("bestmove", timeout=120)[-1].startswith("bestmove play-")
        c.send("go infinite")
        c.send("quit")
        assert c.until("bestmove", timeout=60)[-1].startswith("bestmove play-")
        assert c.proc.wait(timeout=60) == 0
    finally:
        if c.proc.poll() is None:
            c.proc.kill()
