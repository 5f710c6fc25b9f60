"""bench/carry_record.py carries recorded strength games over a change of play only for the
deals the change cannot touch, and only after games played again give their recorded
results."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CARRY = ROOT / "bench" / "carry_record.py"
sys.path.insert(0, str(ROOT / "bench"))

from carry_record import CHANGES  # noqa: E402
from strength import DEAL_BASE, fingerprint, play_one  # noqa: E402
from engine.registry import new_game  # noqa: E402

OLD = "0" * 16
FOCUS, OTHERS = "ismcts:iterations=20", "heuristic"


def line(k: int, share: float) -> dict:
    return dict(fingerprint=OLD, game="khan", players=2, focus=FOCUS, others=OTHERS, k=k,
                share=share, cpu_seconds=0.1, commit="test", date="2026-12-04")


def touched(k: int) -> bool:
    return not CHANGES["khan-known-top"].untouched(new_game("khan", 2, DEAL_BASE + k // 2), {})


def carry(record: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CARRY), "khan-known-top", "--from", OLD,
                           "--jobs", "1", "--record", str(record), *extra],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_only_untouched_deals_are_carried_after_a_check(tmp_path):
    ks = [k for k in range(40) if touched(k)][:1] + [k for k in range(40) if not touched(k)][:3]
    assert len(ks) == 4 and touched(ks[0])
    record = tmp_path / "strength.jsonl"
    record.write_text("".join(json.dumps(line(k, play_one(("khan", 2, FOCUS, OTHERS, k))))
                              + "\n" for k in ks))
    r = carry(record, "--check", "2")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("checked ") == 2
    new = [json.loads(t) for t in record.read_text().splitlines()][4:]
    assert sorted(l["k"] for l in new) == sorted(ks[1:])          # the touched deal stays out
    assert all(l["fingerprint"] == fingerprint("khan", 2) and l["carried_from"] == OLD
               and l["carried_by"] == "khan-known-top" and l["commit"] == "test" for l in new)
    assert carry(record, "--verify", "--check", "3").returncode == 0
    again = carry(record, "--check", "0")
    assert again.returncode == 0 and "0 games of khan to carry" in again.stderr
    assert len(record.read_text().splitlines()) == 7                # nothing carried twice


def test_a_game_that_plays_otherwise_today_stops_the_carry(tmp_path):
    k = next(k for k in range(40) if not touched(k))
    share = play_one(("khan", 2, FOCUS, OTHERS, k))
    record = tmp_path / "strength.jsonl"
    wrong = 0.25 if share != 0.25 else 0.75                         # not what it gives
    record.write_text(json.dumps(line(k, wrong)) + "\n")
    r = carry(record, "--check", "1")
    assert r.returncode == 1 and "the change touched it" in r.stderr
    assert len(record.read_text().splitlines()) == 1


def test_a_negative_check_or_no_jobs_is_a_usage_error(tmp_path):
    for extra in (["--check", "-1"], ["--jobs", "0"]):
        r = carry(tmp_path / "strength.jsonl", *extra)
        assert r.returncode == 2, r.stderr
        assert r.stderr.strip().splitlines()[-1].startswith("carry_record.py: error: argument")
        assert not (tmp_path / "strength.jsonl").exists()


def test_the_heuristic_count_change_touches_only_heuristic_games_with_the_sable_nation():
    untouched = CHANGES["khan-heuristic-face-down"].untouched
    deals = [new_game("khan", 2, DEAL_BASE + d) for d in range(10)]
    sable = [d for d in deals if "sable" in d.to_json()["khans"]]
    other = [d for d in deals if "sable" not in d.to_json()["khans"]]
    assert sable and other
    duel = {"focus": "ismcts:iterations=140000", "others": "heuristic"}
    budget = {"focus": "ismcts:iterations=560000", "others": "ismcts:iterations=140000"}
    assert not any(untouched(d, duel) for d in sable)
    assert all(untouched(d, duel) for d in other)
    assert all(untouched(d, budget) for d in deals)


def test_a_line_carried_twice_keeps_its_first_carry():
    from carry_record import carried_line
    once = carried_line(line(3, 1.0), "a" * 16, OLD, "khan-known-top", "c1", "2026-12-04")
    twice = carried_line(once, "b" * 16, "a" * 16, "khan-heuristic-face-down", "c2", "2026-12-05")
    assert twice["fingerprint"] == "b" * 16 and twice["carried_from"] == "a" * 16
    assert twice["carried_by"] == "khan-heuristic-face-down" and twice["commit"] == "test"
    assert twice["carried_earlier"] == [{"carried_from": OLD, "carried_by": "khan-known-top",
                                         "carried_at": "c1", "carried_on": "2026-12-04"}]
    assert "carried_earlier" not in once


def test_the_check_plays_a_game_of_every_row_before_a_second_of_any():
    """Before, the sample took the rows' outcomes in order of the row, so a check of four
    never reached the 4-player table behind three 2-player rows with two outcomes each."""
    from carry_record import sample_for_check

    def row_line(players, focus, k, share):
        return dict(line(k, share), players=players, focus=focus)

    lines = [row_line(2, f"ismcts:iterations={n}", k, k % 2) for n in (10, 20, 30)
             for k in range(6)] + [row_line(4, "ismcts:iterations=40", k, 0.0) for k in (4, 8)]
    picked = sample_for_check(lines, 4)
    assert sorted((l["players"], l["focus"]) for l in picked) == [
        (2, "ismcts:iterations=10"), (2, "ismcts:iterations=20"), (2, "ismcts:iterations=30"),
        (4, "ismcts:iterations=40")]
    assert [l["k"] for l in picked] == [0, 0, 0, 4]
    six = sample_for_check(lines, 6)
    assert [(l["focus"][-2:], l["share"]) for l in six[4:]] == [("10", 1), ("20", 1)]
    assert sample_for_check(lines, 99) == sample_for_check(list(reversed(lines)), 99)
    assert len(sample_for_check(lines, 99)) == len(lines)
