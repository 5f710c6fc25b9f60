"""bench/parallel_strength.py, which docs/strength.md and docs/distributed.md quote for what
root-parallel workers buy: it plays, records, resumes and pairs (the in-process workers'
answers are checked against the Ray pool's in tests/test_parallel.py)."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "bench" / "parallel_strength.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_plays_the_workers_against_one_search_records_and_resumes(tmp_path):
    record = tmp_path / "games.jsonl"
    args = ("khiva", "--workers", "3", "--scale", "0.0002", "--games", "4", "--jobs", "2",
            "--record", str(record))
    first = run(*args)
    assert first.returncode == 0, first.stderr
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert sorted(r["k"] for r in lines) == [0, 1, 2, 3]
    assert {(r["focus"], r["others"]) for r in lines} == \
        {("ismcts:iterations=90,workers=3", "ismcts:iterations=30")}
    won = sum(r["share"] for r in lines)
    assert f"ismcts:iterations=90,workers=3 against ismcts:iterations=30: {won:g}/4 = " \
           f"{won / 4:.3f}" in first.stdout
    assert "no games of ismcts:iterations=90 against ismcts:iterations=30" in first.stdout
    again = run(*args)
    assert again.returncode == 0 and "playing" not in again.stderr
    assert len(record.read_text().splitlines()) == 4 and first.stdout == again.stdout


def test_pairs_with_the_single_tree_at_the_same_total(tmp_path):
    record = tmp_path / "games.jsonl"
    assert run("khiva", "--workers", "2", "--scale", "0.0002", "--games", "2", "--jobs", "1",
               "--record", str(record)).returncode == 0
    focus = json.loads(record.read_text().splitlines()[0])
    with record.open("a") as f:                 # the single tree at 2x won game 0, lost 1
        for k, share in ((0, 1.0), (1, 0.0)):
            f.write(json.dumps(dict(focus, focus="ismcts:iterations=60", k=k,
                                    share=share)) + "\n")
    shares = {json.loads(l)["k"]: json.loads(l)["share"]
              for l in record.read_text().splitlines()[:2]}
    better = (shares[1] > 0) + 0
    worse = (shares[0] < 1) + 0
    r = run("khiva", "--workers", "2", "--scale", "0.0002", "--games", "2", "--record",
            str(record), "--report")
    assert r.returncode == 0, r.stderr
    assert "ismcts:iterations=60 against ismcts:iterations=30 on the same 2 games: 0.500; " \
           f"paired, {better} went better with the workers, {worse} with the single tree" \
           in r.stdout


def test_bad_arguments_are_usage_errors():
    for args in (("khiva", "--workers", "1"), ("chess",), ("khiva", "--scale", "0")):
        r = run(*args, "--report")
        assert r.returncode == 2 and "error:" in r.stderr, (args, r.stderr)
