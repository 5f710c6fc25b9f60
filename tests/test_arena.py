"""The arena: seating, duplicate deals, records, outputs, SPRT stop and interruption."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

import pytest

from search.arena import lineups, parse_ladder, plan, run_arena
from search.stats import Sprt


@pytest.mark.parametrize("agents,players", [(2, 2), (2, 3), (3, 3), (2, 5), (4, 5), (1, 3)])
def test_every_agent_sits_in_every_seat_equally(agents, players):
    seatings = lineups(agents, players)
    for seat in range(players):
        counts = Counter(s[seat] for s in seatings)
        assert set(counts) == set(range(agents)) and len(set(counts.values())) == 1


def test_more_agents_than_seats_is_refused():
    with pytest.raises(ValueError):
        lineups(3, 2)


def test_duplicate_deals_replay_each_deal_in_every_seating():
    tasks = plan(2, 3, 10, seed=5)
    assert len(tasks) == 12                      # rounded up to 2 deals x 6 seatings
    by_deal = {}
    for t in tasks:
        by_deal.setdefault(t.deal, []).append(t)
    for deal, ts in by_deal.items():
        assert len({t.game_seed for t in ts}) == 1
        assert sorted(t.seats for t in ts) == sorted(tuple(s) for s in lineups(2, 3))
    assert len({ts[0].game_seed for ts in by_deal.values()}) == 2


def test_records_show_rotation_and_duplicate_deals(tmp_path):
    out = tmp_path / "run"
    result = run_arena("khiva", 2, ["ismcts:iterations=30", "random"], 8, seed=3, out_dir=str(out))
    records = [json.loads(l) for l in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 8 == result.summary()["games"]
    for deal in {r["deal"] for r in records}:
        same = [r for r in records if r["deal"] == deal]
        assert len({r["seed"] for r in same}) == 1
        assert sorted(tuple(r["seats"]) for r in same) == [
            ("ismcts:iterations=30", "random"), ("random", "ismcts:iterations=30")]
    seat0 = Counter(r["seats"][0] for r in records)
    assert seat0["random"] == seat0["ismcts:iterations=30"] == 4
    for r in records:
        assert len(r["moves"]) > 10 and len(r["scores"]) == 2 and abs(sum(r["rewards"]) - 1) < 1e-9
    summary = json.loads((out / "summary.json").read_text())
    rows = {r["agent"]: r for r in summary["agents"]}
    assert abs(sum(r["win_share"] for r in rows.values()) - 1.0) < 1e-9
    assert summary["elo"]["wins"] + summary["elo"]["draws"] + summary["elo"]["losses"] == 8
    assert (out / "win_share.png").stat().st_size > 1000


def test_the_same_seed_replays_the_same_match():
    a = run_arena("khiva", 3, ["ismcts:iterations=20", "random", "heuristic"], 3, seed=9)
    b = run_arena("khiva", 3, ["ismcts:iterations=20", "random", "heuristic"], 3, seed=9)
    assert [r["moves"] for r in a.tally.records] == [r["moves"] for r in b.tally.records]


def test_sprt_stops_the_match_when_decided():
    result = run_arena("khiva", 2, ["heuristic", "random"], 400, seed=1, sprt=Sprt(-200, -100))
    assert result.sprt["decision"] == "H1"
    assert result.summary()["games"] < 400


def test_ladder_parsing():
    key, rungs = parse_ladder("ismcts:iterations=250,1000,4000,c=0.5")
    assert key == "iterations" and [v for v, _ in rungs] == [250, 1000, 4000]
    assert rungs[0][1] == "ismcts:iterations=250,c=0.5"
    for bad in ("ismcts", "ismcts:iterations=5", "ismcts:bogus=1,2", "ismcts:iterations=0,5"):
        with pytest.raises(ValueError):
            parse_ladder(bad)


def caravan(*args, **kw):
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, timeout=600, cwd=tempfile.gettempdir(), **kw)


def test_arena_command_with_ladder_writes_plots(tmp_path):
    r = caravan("arena", "khiva", "--players", "2", "--agents", "random", "--ladder",
                "ismcts:iterations=20,80", "--games", "4", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "ladder over iterations against random" in r.stdout
    data = json.loads((tmp_path / "ladder.json").read_text())
    assert [x["value"] for x in data["rungs"]] == [20, 80]
    assert (tmp_path / "ladder.png").stat().st_size > 1000
    assert (tmp_path / "rung0" / "games.jsonl").exists()


@pytest.mark.parametrize("args", [
    ["arena", "khiva", "--agents", "ismcts,random,random,random"],
    ["arena", "khiva", "--games", "0"], ["arena", "khiva", "--sprt", "50"],
    ["arena", "khiva", "--sprt", "50,0"], ["arena", "khiva", "--agents", "bogus"],
    ["arena", "khiva", "--ladder", "ismcts:iterations=5"], ["arena", "nope"],
    ["arena", "khiva", "--players", "3", "--sprt", "0,50", "--agents", "ismcts,random,random"],
])
def test_arena_usage_errors(args):
    r = caravan(*args)
    assert r.returncode == 2 and r.stderr.startswith("caravan: error:"), r.stderr
    assert "Traceback" not in r.stderr


def test_ctrl_c_stops_cleanly_and_reports():
    p = subprocess.Popen([sys.executable, "-m", "engine.cli", "arena", "khiva", "--players", "2",
                          "--agents", "ismcts:iterations=300,random", "--games", "400"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=tempfile.gettempdir())
    time.sleep(4)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130
    assert "(interrupted)" in out and "win share" in out and "Traceback" not in err
