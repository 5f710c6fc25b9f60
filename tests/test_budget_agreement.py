"""bench/budget_agreement.py, the diagnostic docs/strength.md quotes for the budget rows, runs
for every game (it once read a `turn` that only Khiva's and Kilim's states have, and stopped at
its first Taschkent position after three searches)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "budget_agreement.py"
POSITION = re.compile(r"^  position (\d) \(deal (\d+), decision (\d+), (\d+) moves\): 1x .+, "
                      r"1x again .+, 4x .+; 4x values its pick [+-]\d\.\d{3} over 1x's "
                      r"\((\d+)% of 4x's visits on 1x's pick\)$")


@pytest.mark.parametrize("game", ["khiva", "khan", "kilim", "taschkent"])
def test_the_diagnostic_runs_for_every_game(game):
    done = subprocess.run([sys.executable, str(SCRIPT), game, "--players", "2",
                           "--positions", "2", "--scale", "0.002", "--every", "3"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    found = [POSITION.match(line) for line in done.stdout.splitlines()]
    found = [m for m in found if m]
    assert [m.group(1) for m in found] == ["1", "2"], done.stdout
    assert all(int(m.group(3)) % 3 == 1 and int(m.group(4)) > 1 for m in found), done.stdout
    assert re.search(r"^1x picks 4x's move: [012]/2 = ", done.stdout, re.M), done.stdout
    assert re.search(r"^two 1x searches agree: [012]/2 = ", done.stdout, re.M), done.stdout
    assert all(0 <= int(m.group(5)) <= 100 for m in found), done.stdout
    starved = re.search(r"^1x's pick starved by 4x \(under 10% of its visits\): (\d) of the "
                        r"(\d) positions where they differ$", done.stdout, re.M)
    assert starved and int(starved.group(1)) <= int(starved.group(2)) <= 2, done.stdout


def test_a_game_it_does_not_know_is_a_usage_error():
    done = subprocess.run([sys.executable, str(SCRIPT), "chess"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert "chess" in done.stderr
