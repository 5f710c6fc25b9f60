"""bench/strength.py keeps a record of every game it plays, so that a row at the default
budget (CPU-hours) can be played over several sittings: a run plays only the games the record
lacks, `--report` prints the rows from the record alone, and a game played by another engine
(another fingerprint) never counts."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STRENGTH = ROOT / "bench" / "strength.py"
TINY = ["--scale", "0.001", "--only", "khiva", "--rows", "heuristic", "--jobs", "1"]


def run(record: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(STRENGTH), "table", *TINY,
                           "--record", str(record), *extra],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def row_line(out: str) -> str:
    rows = [line for line in out.splitlines() if line.startswith("| khiva | heuristic")]
    assert len(rows) == 1, out
    return rows[0]


def lines(record: Path) -> list:
    return [json.loads(line) for line in record.read_text().splitlines()]


def test_a_run_records_every_game_and_a_second_run_plays_none(tmp_path):
    record = tmp_path / "games.jsonl"
    first = run(record, "--games", "4")
    assert first.returncode == 0, first.stderr
    recorded = lines(record)
    assert sorted(r["k"] for r in recorded) == [0, 1, 2, 3]
    assert {r["focus"] for r in recorded} == {"ismcts:iterations=150"}
    assert all(0.0 <= r["share"] <= 1.0 for r in recorded)
    assert "| 4 |" in row_line(first.stdout)

    again = run(record, "--games", "4")
    assert again.returncode == 0, again.stderr
    assert "playing" not in again.stderr            # nothing left to play
    assert row_line(again.stdout) == row_line(first.stdout)
    assert len(lines(record)) == 4


def test_report_marks_a_row_the_record_does_not_complete(tmp_path):
    record = tmp_path / "games.jsonl"
    assert run(record, "--games", "2").returncode == 0
    report = run(record, "--games", "6", "--report")
    assert report.returncode == 0, report.stderr
    line = row_line(report.stdout)
    assert "| 2 of 6 |" in line and line.endswith("| not yet |")
    assert len(lines(record)) == 2                  # --report played nothing


def test_games_of_another_engine_or_torn_lines_do_not_count(tmp_path):
    record = tmp_path / "games.jsonl"
    assert run(record, "--games", "2").returncode == 0
    stale = [dict(r, fingerprint="0" * 16, share=0.0) for r in lines(record)]
    record.write_text("".join(json.dumps(r) + "\n" for r in stale) + '{"fingerprint": "tor')
    rerun = run(record, "--games", "2")
    assert rerun.returncode == 0, rerun.stderr
    assert "playing 2 games (0 already recorded)" in rerun.stderr
    fresh = [r for r in lines_skipping_torn(record) if r["fingerprint"] != "0" * 16]
    assert sorted(r["k"] for r in fresh) == [0, 1]


def lines_skipping_torn(record: Path) -> list:
    out = []
    for line in record.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def test_a_bad_time_limit_is_a_usage_error(tmp_path):
    bad = run(tmp_path / "games.jsonl", "--for-seconds", "-3")
    assert bad.returncode == 2
    assert "--for-seconds: must be positive" in bad.stderr
    assert not (tmp_path / "games.jsonl").exists()


def test_tune_from_a_later_game_plays_the_rows_games_there(tmp_path):
    record = tmp_path / "games.jsonl"
    assert run(record, "--games", "4").returncode == 0
    won = sum(r["share"] for r in lines(record) if r["k"] in (2, 3))
    tune = subprocess.run([sys.executable, str(STRENGTH), "tune", "khiva", "-", "--games", "2",
                           "--first-game", "2", "--scale", "0.001", "--jobs", "1"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert tune.returncode == 0, tune.stderr
    assert "on deals 2026001.." in tune.stdout
    assert f"{won:6.1f}/2 " in tune.stdout


def test_a_negative_first_game_is_a_usage_error():
    bad = subprocess.run([sys.executable, str(STRENGTH), "tune", "khiva", "-",
                          "--first-game", "-1"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "--first-game: must be 0 or more" in bad.stderr


def tune(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(STRENGTH), "tune", "khiva", "--scale", "0.001",
                           "--jobs", "1", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)


def test_tune_on_the_budget_row_plays_the_tables_budget_games(tmp_path):
    record = tmp_path / "games.jsonl"
    table = subprocess.run([sys.executable, str(STRENGTH), "table", "--scale", "0.001",
                            "--only", "khiva", "--rows", "budget", "--jobs", "1", "--games", "4",
                            "--record", str(record)], capture_output=True, text=True,
                           timeout=300, cwd=ROOT)
    assert table.returncode == 0, table.stderr
    won = sum(r["share"] for r in lines(record))
    plain = tune("--row", "budget", "--games", "4", "-")
    assert plain.returncode == 0, plain.stderr
    assert "ismcts (iterations=600) against ismcts (iterations=150)" in plain.stdout
    assert f"{won:6.1f}/4 " in plain.stdout


def test_tune_with_a_record_keeps_its_games_and_resumes(tmp_path):
    record = tmp_path / "tuning.jsonl"
    first = tune("--row", "budget", "--games", "2", "--record", str(record), "c=1.0")
    assert first.returncode == 0, first.stderr
    kept = lines(record)
    assert [(r["focus"], r["others"]) for r in kept] == \
        [("ismcts:iterations=600,c=1.0", "ismcts:iterations=150,c=1.0")] * 2
    won = sum(r["share"] for r in kept)
    assert f"{won:6.1f}/2 " in first.stdout
    more = tune("--row", "budget", "--games", "4", "--record", str(record), "c=1.0")
    assert more.returncode == 0, more.stderr
    assert "playing 2 games (2 already recorded)" in more.stderr
    assert sorted(r["k"] for r in lines(record)) == [0, 1, 2, 3]


def test_tune_against_the_defaults_plays_the_setting_against_the_plain_search(tmp_path):
    record = tmp_path / "tuning.jsonl"
    run = tune("--row", "defaults", "--players", "3", "--games", "3", "--record", str(record),
               "c=1.0")
    assert run.returncode == 0, run.stderr
    assert "against ismcts (iterations=180) with the defaults" in run.stdout
    kept = lines(record)
    assert {(r["players"], r["focus"], r["others"]) for r in kept} == \
        {(3, "ismcts:iterations=180,c=1.0", "ismcts:iterations=180")}
    assert sorted(r["k"] for r in kept) == [0, 1, 2]


def test_tune_pairs_each_setting_with_the_defaults_games_on_the_same_deals(tmp_path):
    """The sign test of docs/strength.md's tuning tables comes from the record: each game of
    a setting beside the defaults' game on the same deal and seat."""
    record = tmp_path / "tuning.jsonl"
    run = tune("--games", "6", "--record", str(record), "-", "c=3.0")
    assert run.returncode == 0, run.stderr
    share = {(r["focus"], r["k"]): r["share"] for r in lines(record)}
    plain = [share["ismcts:iterations=150", k] for k in range(6)]
    wide = [share["ismcts:iterations=150,c=3.0", k] for k in range(6)]
    better = sum(w > p for w, p in zip(wide, plain))
    worse = sum(w < p for w, p in zip(wide, plain))
    paired = [line for line in run.stdout.splitlines() if "paired with the defaults" in line]
    assert len(paired) == 1, run.stdout               # the defaults are not paired with themselves
    assert paired[0].strip().startswith(f"paired with the defaults on 6 games: {better} went "
                                        f"better with the setting, {worse} with the defaults")


def test_paired_games_count_only_the_deals_both_played(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    from strength import paired_line

    line = paired_line({0: 1.0, 1: 0.0, 2: 0.5, 3: 1.0, 4: 1.0}, {0: 0.0, 1: 0.0, 2: 1.0, 3: 0.0})
    assert line.strip() == ("paired with the defaults on 4 games: 2 went better with the "
                            "setting, 1 with the defaults (sign test p 1.00)")


def test_tune_refuses_a_budget_row_it_cannot_play_and_a_stop_without_a_record(tmp_path):
    for extra in (["--players", "3"], ["--agent", "cheat"]):
        bad = tune("--row", "budget", *extra, "-")
        assert bad.returncode == 2
        assert "--row budget is a duel of ismcts against itself" in bad.stderr
    bad = tune("--for-seconds", "5", "-")
    assert bad.returncode == 2 and "--for-seconds needs --record" in bad.stderr
    bad = tune("--row", "budget", "--record", str(tmp_path / "t.jsonl"), "nonsense=1")
    assert bad.returncode == 2 and not (tmp_path / "t.jsonl").exists()
    assert len(bad.stderr.splitlines()) == 1
    assert bad.stderr.startswith("strength.py tune: error: agent 'ismcts' has no option "
                                 "'nonsense'")


def table_rows(text: str, marker: str) -> list:
    """The body rows of the first markdown table after `marker` in `text`."""
    after = text[text.index(marker):].splitlines()
    first = next(i for i, line in enumerate(after) if line.startswith("| game |"))
    rows = []
    for line in after[first + 2:]:
        if not line.startswith("| "):
            break
        rows.append(line)
    return rows


def measured(row: str) -> tuple:
    """A row's game, row name, agents, games, win share, interval and verdict: what the
    record decides (the bar's wording may differ between the doc and the script)."""
    cells = [c.strip() for c in row.strip("|").split("|")]
    verdict = cells[9].strip("*")
    return tuple(cells[:8]) + (verdict,)


def test_the_documented_default_rows_are_what_the_committed_record_holds():
    """docs/strength.md's table of every row at the default budget must be what `--report`
    prints from bench/records/strength.jsonl under today's engine: a change of play (another
    fingerprint) or a record changed without the document shows up here, not as a stale document."""
    report = subprocess.run([sys.executable, str(STRENGTH), "table", "--report", "--scale", "1"],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert report.returncode == 0, report.stderr
    printed = table_rows(report.stdout, "| game |")
    doc = (ROOT / "docs" / "strength.md").read_text()
    documented = table_rows(doc, "**Every row at the default budget**")
    assert len(documented) == 16
    assert [measured(r) for r in documented] == [measured(r) for r in printed]


@pytest.mark.parametrize("args,message", [
    (["tune", "khiva", "-", "--games", "0"], "--games: must be at least 1"),   # ZeroDivisionError
    (["tune", "khiva", "-", "--scale", "-1"], "--scale: must be a number"),   # ran at 1 iteration
    (["tune", "chess", "-"], "unknown game 'chess'"),                         # a traceback
    (["tune", "khiva", "-", "--players", "9"], "Khiva is played by 2 to 5 players, not 9"),
    (["table", "--scale", "0", "--record", "/nonexistent/x.jsonl"], "--scale: must be a number"),
    (["table", "--rows", "nope"], "unknown rows ['nope']"),
    (["table", "--only", "chess"], "--only: unknown game 'chess'"),
    (["table", "--jobs", "0"], "--jobs: must be at least 1"),
])
def test_bad_arguments_are_usage_errors_before_any_game(args, message):
    """Before, each of these was a traceback, ran a nonsense budget, or (table --scale 0)
    played games into the record."""
    bad = subprocess.run([sys.executable, str(STRENGTH), *args], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert bad.returncode == 2, bad.stderr
    assert message in bad.stderr and "Traceback" not in bad.stderr


def test_the_fingerprint_reads_a_heuristics_code_without_its_comments(tmp_path, monkeypatch):
    """Rewording a comment of search/heuristics/<game>.py voids no recorded game; a change
    of code, a string holding '#' included, is still seen."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    from strength import code_text

    source = 'def f(x):  # the value\n    # why\n\n    return "#x" + x   \n'
    (tmp_path / "a.py").write_text(source)
    reworded = source.replace("# why", "# because").replace("  # the value", "")
    (tmp_path / "b.py").write_text(reworded)
    (tmp_path / "c.py").write_text(source.replace('"#x"', '"#y"'))
    assert code_text(str(tmp_path / "a.py")) == 'def f(x):\n    return "#x" + x'
    assert code_text(str(tmp_path / "b.py")) == code_text(str(tmp_path / "a.py"))
    assert code_text(str(tmp_path / "c.py")) != code_text(str(tmp_path / "a.py"))


def test_a_change_of_one_player_counts_defaults_voids_only_that_counts_games(monkeypatch):
    """The fingerprint of a row hashes the search defaults of its own player count: a new
    default at 4 players leaves the recorded 2-player games standing."""
    from dataclasses import replace

    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import strength

    before = {n: strength.fingerprint("khiva", n) for n in (2, 4)}
    row = strength.SEARCH_DEFAULTS["khiva"]
    changed = replace(row, score_weights={**row.score_weights, 4: 0.9})
    monkeypatch.setitem(strength.SEARCH_DEFAULTS, "khiva", changed)
    assert strength.fingerprint("khiva", 2) == before[2]
    assert strength.fingerprint("khiva", 4) != before[4]
