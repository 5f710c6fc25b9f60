"""Live statistics of a running search: search(live=...) in the API, option LiveMoves in the
protocol (a front end shows the search thinking)."""
import pytest

from engine.registry import new_game
from protocol_client import CANDIDATE, INFO, Client
from search.ismcts import search


def test_live_gets_the_statistics_so_far_as_the_search_runs():
    seen = []
    final = search(new_game("khan", 4, 3), seconds=1.0, seed=1, progress_every=0.2,
                   live=seen.append)
    assert len(seen) >= 2
    counts = [r.iterations for r in seen]
    assert counts == sorted(counts) and counts[-1] <= final.iterations
    for r in seen:
        assert sum(s.visits for s in r.stats) == r.iterations > 0
        assert [s.visits for s in r.stats] == sorted((s.visits for s in r.stats), reverse=True)
        assert r.move == r.stats[0].move and all(s.line == () for s in r.stats)


def test_live_and_progress_both_report_and_a_bad_live_is_refused():
    calls = []
    search(new_game("khiva", 3, 7), seconds=0.5, seed=1, progress_every=0.1,
           progress=lambda i, n, s: calls.append("progress"),
           live=lambda r: calls.append("live"))
    assert calls[:4] == ["progress", "live", "progress", "live"]
    with pytest.raises(ValueError, match="live is a function"):
        search(new_game("khiva", 3, 7), iterations=100, seed=1, live="print")


def test_live_moves_prints_the_best_candidates_after_each_progress_line():
    c = Client()
    c.send("position khan players 4 seed 3")
    assert c.ask("setoption name LiveMoves value 4097", "info string error") == \
        ["info string error option LiveMoves must be in 0..4096"]
    c.send("setoption name LiveMoves value 2")
    answer = c.ask("go movetime 2300", "bestmove", timeout=60)
    summaries = [i for i, l in enumerate(answer) if l.startswith("info iterations")]
    assert len(summaries) >= 2 and all(INFO.match(answer[i]) for i in summaries)
    for i in summaries[:-1]:                         # progress: the 2 best so far
        live = [CANDIDATE.match(l) for l in answer[i + 1:i + 3]]
        assert all(live) and [m["rank"] for m in live] == ["1", "2"]
        assert answer[i + 3].startswith("info iterations")
    final = [CANDIDATE.match(l) for l in answer[summaries[-1] + 1:-1]]
    assert all(final) and len(final) == 10              # every raid, once, at the end
    assert answer[-1] == f"bestmove {final[0]['move']}"
    c.send("setoption name LiveMoves value 0")
    quiet = c.ask("go movetime 1300", "bestmove", timeout=60)
    last = max(i for i, l in enumerate(quiet) if l.startswith("info iterations"))
    assert last > 0                                     # a progress line came before it
    assert not any(l.startswith("info multipv") for l in quiet[:last])
    c.close()


def test_suggest_passes_live_on():
    from search.suggest import suggest

    seen = []
    sug = suggest(new_game("kilim", 3, 2), 1.3, top_k=2, live=seen.append)   # live: each second
    assert seen and seen[-1].iterations <= sug.iterations
