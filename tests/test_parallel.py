"""Distributed search and arena on a local Ray runtime with 2 CPUs."""
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from engine.registry import new_game
from search.config import Budget

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def pool():
    from search import parallel

    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    p = parallel.shared_search(2)
    yield p
    p.shutdown()
    parallel._SHARED.clear()
    ray.shutdown()


def test_distributed_search_merges_statistics_that_add_up(pool):
    g = new_game("khiva", 3, 7)
    r = pool.search(g, Budget(3000), seed=1)
    assert r.answered == [0, 1] and r.failed == []
    assert r.iterations == 3000 == sum(s.visits for s in r.stats)
    assert r.move in g.legal_moves() and r.text == r.stats[0].text
    assert all(0 <= s.mean_reward <= 1 and s.availability >= s.visits for s in r.stats)
    again = pool.search(g, Budget(3000), seed=1)      # reproducible, actors reused
    assert [(s.move, s.visits) for s in again.stats] == [(s.move, s.visits) for s in r.stats]


def test_fewer_iterations_than_workers_ends_with_exactly_that_many(pool):
    # one iteration over two workers: the worker with no share sits out (with a share of 0
    # it would have had no limit at all and the search would never end)
    g = new_game("khiva", 3, 7)
    r = pool.search(g, Budget(1), seed=1)
    assert r.iterations == 1 and r.answered == [0] and r.failed == []


def test_majority_vote_merge(pool):
    g = new_game("khiva", 2, 3)
    r = pool.search(g, Budget(2000), seed=2, merge="vote")
    assert r.merge == "vote" and r.move in g.legal_moves()


def test_a_time_budget_holds_across_workers(pool):
    g = new_game("khiva", 3, 1)
    t0 = time.perf_counter()
    r = pool.search(g, Budget(seconds=0.5), seed=3)
    assert time.perf_counter() - t0 < 2.0 and r.iterations > 0


def test_a_killed_worker_is_survived_and_replaced(pool):
    g = new_game("khiva", 3, 2)
    victim = pool.actors[1]
    killer = threading.Timer(0.5, lambda: ray.kill(victim))
    killer.start()
    r = pool.search(g, Budget(seconds=2.0), seed=4)
    killer.join()
    assert r.failed == [1] and r.answered == [0]
    assert r.move in g.legal_moves() and r.iterations > 0
    r2 = pool.search(g, Budget(1000), seed=4)          # the dead worker was replaced
    assert r2.answered == [0, 1] and r2.failed == []


def test_stop_ends_an_unbounded_parallel_search(pool):
    g = new_game("khiva", 3, 5)
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    t0 = time.perf_counter()
    r = pool.search(g, stop=stop, seed=1)
    assert time.perf_counter() - t0 < 3.0 and r.iterations > 0


def test_suggest_with_workers(pool):
    from search.suggest import suggest

    s = suggest(new_game("khiva", 3, 9), 2000, 3, workers=2)
    assert s.iterations == 2000 and len(s.moves) == 3


def test_in_process_workers_answer_as_the_ray_pool_does(pool):
    # bench/parallel_strength.py plays root-parallel searches with the workers run one after
    # another in the game's process; its figures stand for `workers=W` only if, for an
    # iteration budget, that search is the Ray pool's to the last visit and reward
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from parallel_strength import in_process_search

    for game, players, seed in (("khiva", 2, 5), ("kilim", 3, 2)):
        g = new_game(game, players, seed)
        on_ray = pool.search(g, Budget(4001), seed=3)
        here = in_process_search(2).search(g, Budget(4001), seed=3)
        assert here.answered == on_ray.answered == [0, 1] and here.iterations == 4001
        assert root_figures(here) == root_figures(on_ray)


def root_figures(result) -> list:
    """Every figure a search reports of each root move, in its order."""
    return [(s.move, s.visits, s.mean_reward, s.availability, s.win_probability,
             s.expected_score) for s in result.stats]


def test_workers_search_only_the_searchmoves_and_send_expected_lines(pool):
    g = new_game("khan", 4, 3)
    only = ["raid-boldhome", "raid-sundome"]
    r = pool.search(g, Budget(6000), seed=1, searchmoves=only, lines=True)
    assert sorted(s.text for s in r.stats) == sorted(only) and r.text in only
    assert r.iterations == 6000 == sum(s.visits for s in r.stats)
    assert all(s.line for s in r.stats)
    assert all(s.line == () for s in pool.search(g, Budget(600), seed=1).stats)
    with pytest.raises(ValueError, match="not a legal move"):
        pool.search(g, Budget(600), seed=1, searchmoves=["raid-nowhere"])


def test_arena_games_run_as_ray_tasks(pool, tmp_path):
    from search.arena import run_arena
    from search.arena_ray import RayArenaRunner

    def games(out):
        return [json.loads(line) for line in (tmp_path / out / "games.jsonl").open()]

    specs = ["ismcts:iterations=30", "random"]
    result = run_arena("khiva", 2, specs, 4, seed=2, out_dir=str(tmp_path / "ray"),
                       runner=RayArenaRunner("khiva", 2, specs, 2, None, workers=2))
    records = games("ray")
    assert [r["number"] for r in records] == [0, 1, 2, 3]         # counted in plan order
    local = run_arena("khiva", 2, specs, 4, seed=2, out_dir=str(tmp_path / "local"))
    assert [(r["number"], r["moves"]) for r in records] == \
        [(r["number"], r["moves"]) for r in games("local")]
    same = {k: v for k, v in result.summary().items() if k != "seconds"}
    assert same == {k: v for k, v in local.summary().items() if k != "seconds"}


def run_py(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=tempfile.gettempdir())


def test_one_worker_never_imports_ray():
    r = run_py(
        "import sys\n"
        "from engine.registry import new_game\n"
        "from search.suggest import suggest\n"
        "from search.agents import parse_agent\n"
        "from search.match import play_game\n"
        "from search.arena import run_arena\n"
        "suggest(new_game('khiva', 3, 1), 200, 2)\n"
        "play_game('khiva', [parse_agent('ismcts:iterations=50').build(1),"
        " parse_agent('random').build(2)], 3)\n"
        "run_arena('khiva', 2, ['random', 'heuristic'], 2)\n"
        "assert 'ray' not in sys.modules, 'ray was imported'\n"
        "print('ok')\n")
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_missing_ray_with_workers_is_a_clear_error():
    r = run_py(
        "import sys\n"
        "sys.modules['ray'] = None\n"
        "from engine.registry import new_game\n"
        "from search.suggest import suggest\n"
        "try:\n"
        "    suggest(new_game('khiva', 3, 1), 200, 2, workers=2)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n")
    assert "ray is needed for more than one search worker and is not installed: " \
           "pip install 'caravan[ray]'" in r.stdout, r.stdout + r.stderr


def test_protocol_with_two_workers():
    from protocol_client import Client

    c = Client()
    c.send("setoption name Workers value 2")
    assert c.ask("isready", "readyok", timeout=120)[-1] == "readyok"   # Ray has started
    c.send("position khiva players 3 seed 4")
    lines = c.ask("go iterations 2000", "bestmove", timeout=120)
    assert lines[-1].startswith("bestmove play-")
    summary = [l for l in lines if l.startswith("info iterations")]
    assert summary and summary[-1].startswith("info iterations 2000 ")
    c.send("go infinite")
    time.sleep(1.0)
    assert c.ask("stop", "bestmove", timeout=30)[-1].startswith("bestmove play-")
    assert c.close() == 0
    # Ray started on the main thread: none of its complaints about being started elsewhere
    assert b"not the main thread" not in c.proc.stderr.read()


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_address_where_no_cluster_answers_is_a_quick_clear_error():
    """Ray retried a missing head for minutes (a hint with --address hung); now a
    connection refused at host:port ends it at once, with exit code 1 and one line."""
    from search.parallel import check_reachable

    port = _closed_port()
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(RuntimeError, match=f"no Ray cluster answers at {address}"):
            check_reachable(address)
    check_reachable("auto")                       # not host:port: left to Ray
    r = subprocess.run([sys.executable, "-m", "engine.cli", "hint", "khiva", "--workers", "2",
                        "--address", f"127.0.0.1:{port}"], capture_output=True, text=True,
                       timeout=120, cwd=tempfile.gettempdir())
    assert r.returncode == 1
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert lines == [f"caravan: error: no Ray cluster answers at 127.0.0.1:{port} (Connection "
                     "refused); start one with `ray start --head`, or give no address"], r.stderr
    assert r.stdout == ""                 # no board first, as if the hint were coming
