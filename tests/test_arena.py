"""The arena: seating, duplicate deals, records, outputs, SPRT stop and interruption."""
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

import pytest

from search.arena import (ArenaProgress, ArenaResult, InPlanOrder, Tally, agent_labels,
                          budget_scale, format_summary, lineups, parse_ladder, plan, play_task,
                          plot_ladder, run_arena)
from search.stats import Sprt, wilson


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


def test_without_duplicate_deals_every_game_has_a_fresh_deal():
    """docs/arena.md, Seating: "`--no-duplicate` gives every game a fresh deal, the line-ups
    in turn"."""
    tasks = plan(2, 2, 6, seed=4, duplicate=False)
    assert len(tasks) == 6
    assert len({t.game_seed for t in tasks}) == 6 and len({t.deal for t in tasks}) == 6
    assert [t.lineup for t in tasks] == [0, 1, 0, 1, 0, 1]


def test_the_most_games_a_match_takes_are_planned_and_one_more_is_refused(monkeypatch):
    """docs/arena.md, Seating: `--games` takes 1 to 1,000,000, both ends included (the bound
    is lowered here: a million planned games hold 300 MB)."""
    import search.arena
    assert search.arena.MAX_GAMES == 1_000_000
    monkeypatch.setattr(search.arena, "MAX_GAMES", 12)
    assert len(plan(2, 2, 12, seed=0)) == 12
    with pytest.raises(ValueError, match="from 1 to 12, not 13"):
        plan(2, 2, 13, seed=0)


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


def strict_json(text: str):
    """JSON as other languages read it: Infinity and NaN are not JSON."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_a_clean_sweep_writes_a_summary_every_json_reader_takes(tmp_path):
    """4-0: the Elo and its upper bound are unbounded; summary.json writes them as null."""
    run_arena("khiva", 2, ["heuristic", "random"], 4, seed=1, out_dir=str(tmp_path))
    elo = strict_json((tmp_path / "summary.json").read_text())["elo"]
    assert (elo["wins"], elo["losses"]) == (4, 0)
    assert elo["elo"] is None and elo["elo_95"][1] is None
    assert 0 < elo["elo_95"][0] < 1000


def test_elo_as_json_keeps_finite_numbers():
    from search.stats import elo_estimate
    assert elo_estimate(0, 0, 3).as_json()["elo"] is None
    e = elo_estimate(5, 2, 3)
    j = e.as_json()
    assert j["elo"] == e.elo and j["elo_95"] == [e.low, e.high] and (j["wins"], j["draws"], j["losses"]) == (5, 2, 3)


def games_of(out_dir):
    """The records of games.jsonl in `out_dir`."""
    with open(os.path.join(out_dir, "games.jsonl")) as f:
        return [json.loads(line) for line in f]


def test_the_same_seed_replays_the_same_match(tmp_path):
    specs = ["ismcts:iterations=20", "random", "heuristic"]
    run_arena("khiva", 3, specs, 3, seed=9, out_dir=str(tmp_path / "a"))
    run_arena("khiva", 3, specs, 3, seed=9, out_dir=str(tmp_path / "b"))
    a, b = games_of(tmp_path / "a"), games_of(tmp_path / "b")
    assert len(a) == 3 and [r["moves"] for r in a] == [r["moves"] for r in b]


def test_sprt_stops_the_match_when_decided():
    result = run_arena("khiva", 2, ["heuristic", "random"], 400, seed=1, sprt=Sprt(-200, -100))
    assert result.sprt["decision"] == "H1"
    assert result.summary()["games"] < 400


def shuffled_runner(specs, seed, window=4):
    """A runner that hands games over out of order, as Ray does: of every `window` games in
    flight, the last finishes first."""
    def run(tasks):
        for start in range(0, len(tasks), window):
            for task in reversed(tasks[start:start + window]):
                yield play_task("khan", 2, specs, task, seed)
    return run


def summary_of(result):
    return {k: v for k, v in result.summary().items() if k != "seconds"}


def test_games_finishing_out_of_order_are_counted_in_plan_order(tmp_path):
    """The tally, the ratings, games.jsonl and the SPRT's stopping point are those of a
    local run, whatever order a parallel runner hands the games over in."""
    specs = ["heuristic", "random"]
    runs = {}
    for name, runner in (("local", None), ("shuffled", shuffled_runner(specs, 1))):
        out = tmp_path / name
        result = run_arena("khan", 2, specs, 40, seed=1, sprt=Sprt(0, 150), out_dir=str(out),
                           runner=runner)
        lines = [json.loads(l) for l in (out / "games.jsonl").read_text().splitlines()]
        runs[name] = (summary_of(result), [(r["number"], r["moves"]) for r in lines])
    assert runs["local"] == runs["shuffled"]
    numbers = [n for n, _ in runs["local"][1]]
    assert numbers == list(range(len(numbers))) and len(numbers) < 40   # the SPRT stopped it


def test_a_tally_keeps_sums_not_games():
    """A match of a million games (MAX_GAMES) must not hold them all: 20,000 games of the
    same record leave the tally's memory where 10 left it (it kept every record, 15 KB a
    game with its moves, before)."""
    import tracemalloc
    record = play_task("khan", 2, ["heuristic", "random"], plan(2, 2, 2, 1)[0], 1)
    tally = Tally(["heuristic", "random"])
    for _ in range(10):
        tally.add(record)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(20_000):
        tally.add(dict(record))
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert tally.games == 20_010 and tally.summary()["games"] == 20_010
    assert grown < 100_000, f"the tally grew by {grown:,} bytes over 20,000 games"


def a_record(number, agent_of_seat, scores, ranking):
    """A game record as the tally reads it: the first places share the win."""
    firsts = ranking.count(1)
    return {"number": number, "agent_of_seat": agent_of_seat, "scores": scores,
            "ranking": ranking, "forfeit": None,
            "rewards": [1.0 / firsts if r == 1 else 0.0 for r in ranking]}


def test_an_agent_in_several_seats_counts_with_its_best_place():
    """docs/arena.md, Statistics: the rank is "the mean best place of its seats", and the
    wins, draws and losses of two agents count each by its best place."""
    tally = Tally(["a", "b"])
    tally.add(a_record(0, [0, 1, 0], [9, 5, 1], [1, 2, 3]))       # a first and last
    summary = tally.summary()
    assert [row["mean_rank"] for row in summary["agents"]] == [1.0, 2.0]
    elo = summary["elo"]
    assert (elo["wins"], elo["draws"], elo["losses"]) == (1, 0, 0)


def test_a_shared_first_place_is_a_draw_not_a_win():
    """docs/arena.md, Statistics: "wins, draws and losses (by best place)": equal places are
    a draw, whichever seat the agent sat in."""
    tally = Tally(["a", "b"])
    for i in range(3):
        tally.add(a_record(i, [i % 2, 1 - i % 2], [5, 5], [1, 1]))
    elo = tally.summary()["elo"]
    assert (elo["wins"], elo["draws"], elo["losses"]) == (0, 3, 0) and elo["elo"] == 0.0


def test_the_mean_score_is_over_an_agent_s_seats_and_the_interval_over_its_games():
    """docs/arena.md, Statistics: the score is the mean final score of an agent's seats; the
    win share sums its rewards over the games it played, with a 95% Wilson interval."""
    tally = Tally(["a", "b"])
    tally.add(a_record(0, [0, 1, 0], [10, 4, 6], [1, 3, 2]))
    tally.add(a_record(1, [1, 0, 0], [3, 8, 2], [2, 1, 3]))
    a, b = tally.summary()["agents"]
    assert a["games"] == 2 and a["mean_score"] == pytest.approx((10 + 6 + 8 + 2) / 4)
    assert b["mean_score"] == pytest.approx((4 + 3) / 2)
    assert a["win_share"] == 1.0 and a["win_share_95"] == list(wilson(2.0, 2))
    assert b["win_share_95"] == list(wilson(0.0, 2))


def test_the_summary_has_every_documented_field():
    """docs/arena.md, Outputs: summary.json holds `game`, `players`, `games`, `planned`,
    `agents`, `elo`, `interrupted` and `seconds`."""
    tally = Tally(["a", "b"])
    tally.add(a_record(0, [0, 1], [3, 1], [1, 2]))
    s = ArenaResult("khiva", 2, ["a", "b"], 10, tally).summary()
    assert {"game", "players", "games", "planned", "agents", "elo", "interrupted",
            "seconds"} <= set(s)
    assert (s["game"], s["players"], s["games"], s["planned"]) == ("khiva", 2, 1, 10)


def test_in_plan_order_holds_a_game_back_until_the_earlier_ones_are_in():
    order = InPlanOrder()
    assert order.add({"number": 2}) == [] and order.add({"number": 1}) == []
    assert [r["number"] for r in order.add({"number": 0})] == [0, 1, 2]
    assert order.add({"number": 5}) == [] and order.add({"number": 4}) == []
    assert [r["number"] for r in order.rest()] == [4, 5]      # cut short: counted all the same
    assert order.rest() == []


def test_ladder_parsing():
    key, rungs = parse_ladder("ismcts:iterations=250,1000,4000,c=0.5")
    assert key == "iterations" and [v for v, _ in rungs] == [250, 1000, 4000]
    assert rungs[0][1] == "ismcts:iterations=250,c=0.5"
    for bad in ("ismcts", "ismcts:iterations=5", "ismcts:bogus=1,2", "ismcts:iterations=0,5",
                "ismcts:iterations=5,+5", "ismcts:iterations=5,05", "ismcts:seconds=0.01,0.010"):
        with pytest.raises(ValueError):
            parse_ladder(bad)
    # an option's older name works in a ladder as in a spec (it raised KeyError)
    key, rungs = parse_ladder("ismcts:time=0.01,0.02")
    assert key == "seconds" and rungs == [(0.01, "ismcts:seconds=0.01"),
                                          (0.02, "ismcts:seconds=0.02")]


def caravan(*args, **kw):
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, timeout=600, cwd=tempfile.gettempdir(), **kw)


def test_arena_command_with_ladder_writes_plots(tmp_path):
    r = caravan("arena", "khiva", "--players", "2", "--agents", "random", "--ladder",
                "ismcts:iterations=20,80", "--games", "4", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "ladder over iterations against random" in r.stdout
    data = strict_json((tmp_path / "ladder.json").read_text())
    assert [x["value"] for x in data["rungs"]] == [20, 80]
    assert (tmp_path / "ladder.png").stat().st_size > 1000
    assert (tmp_path / "rung0" / "games.jsonl").exists()


@pytest.mark.parametrize("args", [
    ["arena", "khiva", "--agents", "ismcts,random,random,random"],
    ["arena", "khiva", "--agents", "heuristic"],
    ["arena", "khiva", "--agents", "random", "--ladder", "ismcts:iterations=5,10", "--sprt", "0,5"],
    ["arena", "khiva", "--agents", "cmd:/nonexistent/engine uci,random"],
    ["arena", "khiva", "--agents", "cmd:engine,timeout=0,random"],
    ["arena", "khiva", "--games", "0"], ["arena", "khiva", "--sprt", "50"],
    ["arena", "khiva", "--sprt", "50,0"], ["arena", "khiva", "--agents", "bogus"],
    ["arena", "khiva", "--ladder", "ismcts:iterations=5"], ["arena", "nope"],
    ["arena", "khiva", "--players", "3", "--sprt", "0,50", "--agents", "ismcts,random,random"],
])
def test_arena_usage_errors(args):
    r = caravan(*args)
    assert r.returncode == 2 and r.stderr.startswith("caravan: error:"), r.stderr
    assert len(r.stderr.splitlines()) == 1 and r.stdout == ""


@pytest.mark.parametrize("ladder", [[], ["--ladder", "ismcts:iterations=5,10"]])
def test_an_out_directory_that_cannot_be_written_is_refused_before_any_game(tmp_path, ladder):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    r = caravan("arena", "khiva", "--players", "2", "--agents", "heuristic,random",
                "--games", "2", "--out", str(blocker / "results"), *ladder)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("caravan: error: cannot write the output directory")
    assert len(r.stderr.splitlines()) == 1 and r.stdout == ""


def without(*modules):
    """Python code that makes `modules` unimportable, as if they were not installed."""
    return "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)


def test_a_missing_ratings_or_plots_package_names_its_extra(monkeypatch, tmp_path):
    from search.arena import Tally, prepare_out_dir
    from search.extras import MissingExtra

    monkeypatch.setitem(sys.modules, "openskill", None)
    monkeypatch.setitem(sys.modules, "openskill.models", None)
    with pytest.raises(MissingExtra, match=r"^openskill is needed for the arena's ratings and "
                                           r"is not installed: pip install 'caravan\[ratings\]'$"):
        Tally(["a", "b"])
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(MissingExtra, match=r"^matplotlib is needed for the arena's charts and "
                                           r"is not installed: pip install 'caravan\[plots\]'$"):
        prepare_out_dir(str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("missing,args,extra", [
    (["openskill", "openskill.models"], [], "ratings"),
    (["matplotlib", "matplotlib.pyplot"], ["--out", "OUT"], "plots"),
    (["matplotlib", "matplotlib.pyplot"], ["--out", "OUT", "--ladder", "ismcts:iterations=5,10"],
     "plots"),
])
def test_the_arena_without_an_extra_exits_2_with_one_line_before_any_game(tmp_path, missing,
                                                                          args, extra):
    args = [str(tmp_path / "out") if a == "OUT" else a for a in args]
    code = without(*missing) + (
        "from engine.cli import main\n"
        f"sys.exit(main(['arena', 'khiva', '--players', '2', '--agents', 'heuristic,random', "
        f"'--games', '2', *{args!r}]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, cwd=tempfile.gettempdir())
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("caravan: error: ") and len(r.stderr.splitlines()) == 1
    assert r.stderr.rstrip().endswith(f"pip install 'caravan[{extra}]'"), r.stderr
    assert r.stdout == "" and not (tmp_path / "out").exists()


def test_a_match_needs_neither_extra():
    code = without("openskill", "openskill.models", "matplotlib", "matplotlib.pyplot") + (
        "from engine.cli import main\n"
        "sys.exit(main(['match', 'khiva', '--quiet', '--agents', 'ismcts:iterations=50,random,random']))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, cwd=tempfile.gettempdir())
    assert r.returncode == 0 and "final scores" in r.stdout, r.stderr


def test_one_agent_alone_is_refused_and_one_given_twice_is_numbered():
    with pytest.raises(ValueError, match="give it twice: --agents heuristic,heuristic"):
        run_arena("khiva", 2, ["heuristic"], 2)
    result = run_arena("khiva", 3, ["heuristic", "heuristic", "random"], 3, seed=2)
    assert [r["agent"] for r in result.summary()["agents"]] == [
        "heuristic #1", "heuristic #2", "random"]
    assert agent_labels(["a", "b", "a"]) == ["a #1", "b", "a #2"]


def synthetic_series(winners):
    """A two-agent duel series: agent winners[i] wins game i; the seats alternate."""
    tally = Tally(["strong", "weak"])
    for i, winner in enumerate(winners):
        seats = [0, 1] if i % 2 == 0 else [1, 0]
        ranking = [1, 2] if seats[0] == winner else [2, 1]
        tally.add({"number": i, "agent_of_seat": seats, "scores": [10, 5],
                   "ranking": ranking, "rewards": [1.0 if r == 1 else 0.0 for r in ranking]})
    return tally


def test_openskill_ratings_separate_a_60_40_series():
    tally = synthetic_series([0, 0, 1, 0, 1] * 20)          # 60 wins to 40, interleaved
    strong, weak = (row["openskill"] for row in tally.summary()["agents"])
    assert strong["mu"] > weak["mu"] + 1.5
    assert strong["ordinal"] > weak["ordinal"] + 1.5
    assert strong["sigma"] < 3 and weak["sigma"] < 3       # 100 games: confident ratings
    even = synthetic_series([0, 1, 1, 0] * 25)              # 50-50
    a, b = (row["openskill"]["mu"] for row in even.summary()["agents"])
    assert abs(a - b) < 0.5


def test_the_summary_shows_the_ratings_apart():
    from search.arena import ArenaResult
    tally = synthetic_series([0, 0, 1, 0, 1] * 20)
    text = format_summary(ArenaResult("khiva", 2, ["strong", "weak"], 100, tally))
    rows = [line.split() for line in text.splitlines() if line.startswith(("strong", "weak"))]
    mu = {row[0]: float(row[-4]) for row in rows}
    assert mu["strong"] - mu["weak"] > 1.5


def fake_tally(done):
    tally = Tally(["a", "b"])
    tally.games = done
    return tally


def test_progress_without_a_terminal_prints_a_line_each_tenth_or_ten_seconds():
    now = [0.0]
    stream = io.StringIO()
    progress = ArenaProgress("khiva", stream=stream, clock=lambda: now[0])
    for done in range(1, 51):
        now[0] += 0.1
        progress(fake_tally(done), 50)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("khiva: 5/50 games, 00:00 elapsed, about 00:04 left; a 0.00")
    assert lines[-1].startswith("khiva: 50/50 games")
    stream = io.StringIO()
    progress = ArenaProgress("slow", stream=stream, clock=lambda: now[0])
    for done in range(1, 4):                      # 3 of 1000 games, a minute apart
        now[0] += 60
        progress(fake_tally(done), 1000)
    assert len(stream.getvalue().splitlines()) == 3
    assert "01:00 elapsed, about 16:39:00 left" in stream.getvalue().splitlines()[0]
    progress(fake_tally(4), 1000)                 # stopped early (SPRT, Ctrl-C): said at close
    progress.close()
    assert stream.getvalue().splitlines()[-1].startswith("slow: 4/1000 games")


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_is_a_tqdm_bar_with_the_time_left():
    stream = _Terminal()
    with ArenaProgress("khiva", stream=stream) as progress:
        for done in range(1, 5):
            progress(fake_tally(done), 4)
    text = stream.getvalue()
    assert "\r" in text and "4/4" in text and "a 0.00" in text
    assert "<00:00" in text                         # elapsed<remaining, tqdm's format


def test_ladder_budgets_on_a_log_axis_only_where_they_grow_geometrically(tmp_path):
    assert budget_scale([250, 1000, 4000]) == "log"
    assert budget_scale([0.25, 0.5, 1.0]) == "log"
    assert budget_scale([100, 200, 250]) == "linear"
    assert budget_scale([100, 150, 225]) == "log"        # "by 1.5 or more": 1.5 is enough
    assert budget_scale([100, 149]) == "linear"
    assert budget_scale([0.0, 0.5, 1.0]) == "linear"
    assert budget_scale(["so", "mo"]) == "category"
    rows = [{"value": v, "agent": f"ismcts:mode={v}", "win_share": 0.5,
             "win_share_95": [0.3, 0.7], "ordinal": 1.0} for v in ("so", "mo")]
    plot_ladder(str(tmp_path / "ladder.png"), "khiva", "mode", rows, ["heuristic"])
    assert (tmp_path / "ladder.png").stat().st_size > 1000


def _as_at_a_terminal():
    """Ctrl-C as a person at a terminal sends it: a test run started in the background (as CI
    may be) inherits SIGINT ignored, and Python then never turns it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_cleanly_and_reports():
    p = subprocess.Popen([sys.executable, "-m", "engine.cli", "arena", "khiva", "--players", "2",
                          "--agents", "ismcts:iterations=300,random", "--games", "400"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=tempfile.gettempdir(), preexec_fn=_as_at_a_terminal)
    time.sleep(4)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130
    assert "(interrupted)" in out and "win share" in out and "Traceback" not in err


@pytest.mark.parametrize("change,message", [
    (dict(games=10**15), "games must be a whole number from 1 to 1,000,000"),   # filled memory
    (dict(games=True), "games must be a whole number"),
    (dict(games=2.5), "games must be a whole number"),
    (dict(seed=-1), "seed is an integer of at least 0"),
    (dict(seed=1.5), "seed is an integer of at least 0"),
    (dict(specs="random,random"), "specs is a list of agent specs"),
    (dict(specs=[1, 2]), "an agent spec is text"),
    (dict(options=5), "options is a dict"),
    (dict(options={"x": 1}), "has no option 'x'"),
    (dict(out_dir=5), "out_dir is a folder's path"),
    (dict(sprt=5), "sprt is a search.stats.Sprt"),
    (dict(progress=5), "progress is a function"),
    (dict(duplicate="no"), "duplicate is True or False"),
])
def test_run_arena_refuses_bad_arguments_before_the_first_game(change, message):
    arguments = dict(game="khiva", players=2, specs=["random", "random"], games=2, seed=0)
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        run_arena(**arguments)
