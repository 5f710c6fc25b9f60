"""bench/tests_running.py, the line tracer a mutation audit uses to find the tests that run a
line, finds them in the test process and in the programs the tests start."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_tool(*args):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "tests_running.py"), *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    return done


def line_of(path, text):
    """The number of the one line of `path` that holds `text`."""
    lines = (ROOT / path).read_text().splitlines()
    found = [n for n, line in enumerate(lines, 1) if text in line]
    assert len(found) == 1, found
    return found[0]


def test_a_line_is_found_in_the_tests_and_in_the_programs_they_start():
    in_process = f"search/stats.py:{line_of('search/stats.py', 'p = wins / n')}"
    in_child = f"engine/cli.py:{line_of('engine/cli.py', 'for info in GAMES.values():')}"
    unrun = f"search/stats.py:{line_of('search/stats.py', 'if not all(isinstance(x, int)')}"
    done = run_tool(in_process, in_child, unrun, "--json", "--", "tests/test_stats.py",
                         "tests/test_taschkent_view.py", "-k",
                         "wilson_interval_known or caravan_games_lists")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        in_process: ["tests/test_stats.py::test_wilson_interval_known_values"],
        in_child: ["tests/test_taschkent_view.py::test_caravan_games_lists_the_options"],
        unrun: []}


def test_a_target_outside_the_project_or_its_lines_is_a_usage_error():
    for bad in ("no/such/file.py:3", "search/stats.py:100000", "search/stats.py", "x:y"):
        done = run_tool(bad)
        assert done.returncode == 2 and "error: argument FILE:LINE" in done.stderr, bad
