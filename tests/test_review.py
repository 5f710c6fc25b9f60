"""Game records (search.match: to_json, record_from_json) and game review (search.review,
`caravan review`)."""
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from engine.registry import GAMES, from_view, game_info, new_game
from engine.validation import check_schema
from search.agents import HeuristicAgent, RandomAgent
from search.arena import GameTask, play_task
from search.config import Budget, game_config
from search.ismcts import search
from search.match import GameRecord, play_game, record_from_json, replay
from search.review import LABELS, decision_seed, label_of, review_decision, review_game

VIEWS = Path(__file__).resolve().parent.parent / "docs" / "views"
RECORD = jsonschema.Draft202012Validator(json.loads((VIEWS / "record.schema.json").read_text()))
REVIEW = jsonschema.Draft202012Validator(json.loads((VIEWS / "review.schema.json").read_text()))


def a_record(game="khan", players=2, seed=5, **options) -> GameRecord:
    agents = [HeuristicAgent(1)] + [RandomAgent(2 + i) for i in range(players - 1)]
    return play_game(game, agents, seed, players, options=options)


# ------------------------------------------------------------------------- records
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_record_round_trips_through_json_and_replays_to_its_outcome(game):
    players = game_info(game).max_players
    record = a_record(game, players, 11)
    data = json.loads(json.dumps(record.to_json()))
    RECORD.validate(data)
    again = record_from_json(data)
    assert again.to_json() == data
    final = replay(again)
    assert final.is_terminal()
    assert (final.scores(), final.ranking(), final.rewards()) == \
        (record.scores, record.ranking, record.rewards)


def test_the_game_options_are_part_of_the_record():
    record = a_record("khan", 2, 5, khans="impala,sable")
    data = record.to_json()
    assert data["options"] == {"khans": "impala,sable"}
    assert record_from_json(data).deal().to_json() == \
        new_game("khan", 2, 5, khans="impala,sable").to_json()
    without = {k: v for k, v in data.items() if k not in ("options", "scores", "ranking",
                                                         "rewards")}
    with pytest.raises(ValueError, match="move"):    # other Khans: the moves do not replay
        record_from_json(without)


def test_an_arena_game_line_is_a_record_with_its_options():
    line = play_task("khan", 2, ["heuristic", "random"], GameTask(0, 0, 0, 77, (0, 1)), 3,
                     {"khans": "bison,llama"})
    line = json.loads(json.dumps(line))
    RECORD.validate(line)
    assert line["options"] == {"khans": "bison,llama"}
    record = record_from_json(line)
    assert record.seats == ["heuristic", "random"] and replay(record).is_terminal()


@pytest.mark.parametrize("change, message", [
    (lambda d: d["moves"].__setitem__(3, "raid-nowhere"), "move 4 "),
    (lambda d: d["moves"].append("raid-boldhome"), "the game is over after move"),
    (lambda d: d.__setitem__("scores", [d["scores"][1], d["scores"][0] + 1]), "scores"),
    (lambda d: d.__setitem__("rewards", [0.5, 0.5]), "rewards"),
    (lambda d: d.__setitem__("seed", 1.0), "seed"),
    (lambda d: d.__setitem__("seed", -1), "seed"),
    (lambda d: d.__setitem__("players", 6), "players"),
    (lambda d: d.__setitem__("game", "chess"), "game"),
    (lambda d: d.__setitem__("extra", 1), "extra"),
    (lambda d: d.__setitem__("seats", ["a", "b", "c"]), "seats"),
    (lambda d: d.__setitem__("options", {"goods": "iron:R1a"}), "option"),
    (lambda d: d.__setitem__("options", {"khans": 3}), "options"),
    (lambda d: d.__setitem__("moves", "raid-boldhome"), "moves"),
    (lambda d: d.__setitem__("seconds", float("nan")), "nan"),
])
def test_a_broken_record_is_refused_with_the_field_named(change, message):
    data = json.loads(json.dumps(a_record().to_json()))
    change(data)
    with pytest.raises(ValueError, match=message):
        record_from_json(data)


def test_an_unfinished_record_may_not_claim_an_outcome_and_a_forfeit_must_fit():
    data = a_record().to_json()
    data["moves"] = data["moves"][:10]
    for key in ("scores", "ranking", "rewards"):
        del data[key]
    for key in ("ranking", "rewards"):
        with pytest.raises(ValueError, match="not over"):
            record_from_json({**data, key: [1, 2] if key == "ranking" else [1.0, 0.0]})
    assert not replay(record_from_json(data)).is_terminal()
    to_move = replay(record_from_json(data)).to_move
    forfeit = {"seat": to_move, "reason": "timeout"}
    record = record_from_json({**data, "forfeit": forfeit})
    assert record.rewards[to_move] == 0.0 and sum(record.rewards) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="forfeit"):
        record_from_json({**data, "forfeit": {**forfeit, "seat": 1 - to_move}})


# ------------------------------------------------------------------------- review
def test_the_labels_follow_the_chance_lost():
    assert [label_of(x) for x in (0.0, 0.049, 0.05, 0.0999, 0.1, 0.2, 1.0)] == \
        ["", "", "inaccuracy", "inaccuracy", "mistake", "blunder", "blunder"]
    assert [least for least, _ in LABELS] == sorted((least for least, _ in LABELS), reverse=True)


def test_a_seat_that_played_the_search_s_own_choices_is_reviewed_as_agreeing_every_time():
    """Seat 1 plays exactly what the review's search picks (same budget, configuration and
    seed): every one of its decisions agrees and loses nothing, which also shows that the
    review is reproducible for its seed."""
    budget, seed = Budget(iterations=800), 9
    state = new_game("khan", 3, 21)
    config = game_config("khan", 3)
    heuristic = HeuristicAgent(4)
    record = GameRecord("khan", 3, 21, ["heuristic", "search", "heuristic"])
    while not state.is_terminal():
        ply = len(record.moves) + 1
        if state.to_move == 1 and len(state.legal_moves()) > 1:
            move = search(state, budget, config, seed=decision_seed(seed, ply)).move
        else:
            move = heuristic.choose(state)
        record.moves.append(state.move_to_text(move))
        state.apply(move)
    review = review_game(record, budget, config, seats=[1], seed=seed)
    assert review.decisions and all(d.seat == 1 for d in review.decisions)
    assert all(d.agreed and d.loss == 0.0 and d.label == "" for d in review.decisions)
    summary, = review.summary()
    assert (summary.decisions, summary.agreed, summary.mean_loss) == \
        (len(review.decisions), len(review.decisions), 0.0)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_decision_is_judged_from_its_seat_s_view_only(game):
    """The judgement of a decision is the same from the full state and from the seat's view
    (which holds nothing the seat cannot see)."""
    record = a_record(game, 2, 31)
    state = record.deal()
    judged = 0
    for ply, text in enumerate(record.moves, 1):
        move = state.parse_move(text)
        if len(state.legal_moves()) > 1 and ply % 5 == 0 and judged < 3:
            args = (ply, move, Budget(iterations=600), game_config(game, 2), ply)
            full = review_decision(state, *args)
            seen = review_decision(from_view(state.to_json(view=state.to_move)), *args)
            assert full == seen
            judged += 1
        state.apply(move)
    assert judged == 3


def test_a_decision_s_loss_is_its_chance_below_the_search_s_choice():
    review = review_game(a_record("taschkent", 2, 2), 1500, seed=3)
    assert review.decisions
    for d in review.decisions:
        assert d.loss == pytest.approx(max(0.0, d.best_win - d.played_win))
        assert d.label == label_of(d.loss)
        assert d.choices >= 2 and d.iterations >= 1500
        assert d.agreed == (d.played == d.best)
        if d.agreed:
            assert (d.played_win, d.played_score) == (d.best_win, d.best_score)
        assert d.iterations == (1500 if d.agreed else 3000)   # a second search, head to head
    data = json.loads(json.dumps(review.to_json()))
    REVIEW.validate(data)
    assert [x["ply"] for x in data["decisions"]] == [d.ply for d in review.decisions]
    assert sum(s["decisions"] for s in data["summary"]) == len(review.decisions)


def test_only_the_seats_asked_for_and_only_real_choices_are_reviewed():
    record = a_record("khan", 3, 8)
    review = review_game(record, 300, seats=[2])
    state = record.deal()
    expected = []
    for ply, text in enumerate(record.moves, 1):
        if state.to_move == 2 and len(state.legal_moves()) > 1:
            expected.append(ply)
        state.apply(text)
    assert [d.ply for d in review.decisions] == expected and expected


@pytest.mark.parametrize("kwargs, message", [
    ({"seats": [3]}, "no seat 3"), ({"seats": [0, 0]}, "twice"), ({"seats": []}, "non-empty"),
    ({"seats": "0"}, "list"), ({"seed": "x"}, "seed"), ({"workers": 0}, "worker"),
])
def test_bad_review_arguments_are_refused_before_any_search(kwargs, message):
    with pytest.raises(ValueError, match=message):
        review_game(a_record("khan", 3, 8), 300, **kwargs)


def test_a_record_that_goes_wrong_late_is_refused_before_the_first_search():
    record = a_record()
    record.moves[-3] = "raid-nowhere"
    calls = []
    with pytest.raises(ValueError, match=f"move {len(record.moves) - 2} "):
        review_game(record, 300, on_decision=calls.append)
    assert calls == []


# ------------------------------------------------------------------------- the command line
def caravan(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, timeout=300, input=stdin)


def test_match_record_then_review_at_the_command_line(tmp_path):
    path = tmp_path / "game.json"
    done = caravan("match", "khiva", "--players", "3", "--agents", "heuristic,random,random",
                   "--seed", "4", "--quiet", "--record", str(path))
    assert done.returncode == 0, done.stderr
    data = json.loads(path.read_text())
    RECORD.validate(data)
    assert data["seats"] == ["heuristic", "random", "random"]
    done = caravan("review", str(path), "--iterations", "500", "--seats", "P0,2")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == "Khiva, 3 players, seed 4"
    rows = [line for line in out if line[:4].strip().isdigit()]
    assert rows and {line.split()[1] for line in rows} == {"P0", "P2"}
    assert any(line.startswith("P0 heuristic: ") for line in out)
    again = caravan("review", str(path), "--iterations", "500", "--seats", "0,2")
    assert again.stdout == done.stdout                  # reproducible at an iteration budget
    as_json = caravan("review", "-", "--iterations", "500", "--json", stdin=path.read_text())
    assert as_json.returncode == 0 and as_json.stdout.count("\n") == 1
    REVIEW.validate(json.loads(as_json.stdout))


def test_review_reads_one_record_of_an_arena_s_games_jsonl(tmp_path):
    lines = [json.dumps(a_record("khan", 2, s).to_json()) for s in (1, 2, 3)]
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = caravan("review", str(path), "--iterations", "200")
    assert done.returncode == 2 and "--line" in done.stderr
    done = caravan("review", str(path), "--line", "2", "--iterations", "200", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["seed"] == 2
    done = caravan("review", str(path), "--line", "4", "--iterations", "200")
    assert done.returncode == 2 and "3 records" in done.stderr


@pytest.mark.parametrize("args, message", [
    (["/nonexistent/game.json"], "cannot read"),
    (['{"game": "khan"}'], "players"),
    (['{"game": "khan", "players": 2, "seed": 5, "moves": ["raid-x"]}'], "move 1"),
    (["GOOD", "--seats", "5"], "no seat 5"),
    (["GOOD", "--seats", "x"], "--seats"),
    (["GOOD", "--iterations", "0"], "--iterations"),
    (["GOOD", "--line", "0"], "--line"),
    (["GOOD", "--iterations", "5", "--address", "foo"], "a Ray address is"),
])
def test_review_command_line_mistakes_are_one_line_and_exit_code_2(args, message):
    good = json.dumps(a_record().to_json())
    done = caravan("review", *[good if a == "GOOD" else a for a in args])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("caravan: error: ") and done.stderr.count("\n") == 1
    assert message in done.stderr


def test_match_record_refuses_a_file_it_cannot_write_before_playing():
    done = caravan("match", "khan", "--record", "/nonexistent/dir/game.json")
    assert done.returncode == 2 and done.stdout == ""
    assert "cannot write the record file" in done.stderr


def test_play_record_keeps_a_game_left_halfway_for_review(tmp_path):
    path = tmp_path / "mine.json"
    done = subprocess.run([sys.executable, "-m", "engine.cli", "play", "khan", "--players", "2",
                           "--agents", "random", "--record", str(path)],
                          input="1\n1\n1\nquit\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].endswith(f"caravan review {path}")
    data = json.loads(path.read_text())
    RECORD.validate(data)
    assert data["seats"] == ["human P0", "random"] and len(data["moves"]) >= 3
    record = record_from_json(data)
    assert not replay(record).is_terminal()
    review = review_game(record, 300, seats=[0])
    assert len(review.decisions) >= 1


# ------------------------------------------------------------------------- hostile records
def test_mutated_records_are_refused_with_a_value_error_or_replay_whole():
    """Mutants of real records (the loaders' fuzzer's edits: odd values, keys dropped or added,
    moves dropped, duplicated or swapped): each is refused with a ValueError, never another
    exception, or it is a record whose moves replay and whose review runs."""
    import random

    from loader_fuzz import mutate

    rng = random.Random(20261204)
    originals = [json.loads(json.dumps(a_record(game, game_info(game).min_players + k,
                                                40 + k).to_json()))
                 for game in sorted(GAMES) for k in (0, 1)]
    accepted = refused = 0
    for i in range(1500):
        mutant = mutate(rng.choice(originals), rng)
        try:
            record = record_from_json(mutant)
        except ValueError:
            refused += 1
            continue
        accepted += 1
        final = replay(record)
        assert final.is_terminal() or record.forfeit is not None or not mutant.get("ranking")
        if accepted % 25 == 0:
            review_game(record, 50, seats=[0])
    print(f"{accepted} accepted, {refused} refused")
    assert refused > 500 and accepted > 50


def test_the_count_of_decisions_to_review_is_what_the_review_judges():
    from search.review import decisions_to_review

    record = a_record("kilim", 3, 6)
    for seats in (None, [1], [0, 2]):
        assert decisions_to_review(record, seats) == \
            len(review_game(record, 40, seats=seats).decisions)


def test_the_documented_review_is_what_review_prints(tmp_path):
    """docs/review.md's example: the match it records, then the review of seat 1, line for
    line where the doc shows a line (a docs audit found its summary left from an older
    search). About 30 s: the match's ismcts seat searches its default budget."""
    doc = (VIEWS.parent / "review.md").read_text(encoding="utf-8")
    block = doc.split("$ caravan match khan")[1].split("```")[0].splitlines()
    match_args = ("match khan" + block[0]).split()
    review_args = block[1].removeprefix("$ caravan ").split()
    shown = [line for line in block[2:] if line.strip() not in ("", "...")]
    game = tmp_path / "game.json"
    r = caravan(*[str(game) if a == "game.json" else a for a in match_args])
    assert r.returncode == 0, r.stderr
    r = caravan(*[str(game) if a == "game.json" else a for a in review_args])
    assert r.returncode == 0, r.stderr
    printed = r.stdout.splitlines()
    assert len(shown) >= 6 and all(line in printed for line in shown), \
        [line for line in shown if line not in printed]


# ------------------------------------------------------------------------- caravan replay
@pytest.mark.parametrize("game", sorted(GAMES))
def test_replay_tells_a_recorded_game_as_match_told_it(game, tmp_path):
    path = tmp_path / "game.json"
    told = caravan("match", game, "--agents", "heuristic,random", "--seed", "6", "--record",
                   str(path))
    assert told.returncode == 0, told.stderr
    again = caravan("replay", str(path))
    assert again.returncode == 0 and again.stderr == ""
    assert again.stdout == told.stdout


def test_replay_as_one_seat_shows_only_what_it_saw(tmp_path):
    path = tmp_path / "game.json"
    caravan("match", "khiva", "--players", "3", "--agents", "random,random,random", "--seed",
            "5", "--quiet", "--record", str(path))
    everything = caravan("replay", str(path)).stdout
    seen = caravan("replay", str(path), "--seat", "P0").stdout
    first_turn = [line for line in seen.splitlines() if line.startswith("turn 1:")][0]
    assert "P1 play-" in first_turn and "give-??" in first_turn     # P1's gift went to P2
    assert "give-??" not in everything
    assert seen.splitlines()[-1] == everything.splitlines()[-1]      # the end shows all
    assert everything.splitlines()[0] == "Khiva, 3 players, seed 5"
    assert seen.splitlines()[0] == "Khiva, 3 players"                # the seed deals it all


def test_replay_as_one_seat_ends_on_the_board_that_seat_is_shown(tmp_path):
    """Taschkent's unplayed action cards stay hidden after the game (docs/rules/taschkent.md);
    the spectator's replay ends on the whole board (the information-leak audit of 2026-12-04
    found the seat's replay did too)."""
    path = tmp_path / "game.json"
    caravan("match", "taschkent", "--players", "3", "--agents", "random,random,random",
            "--seed", "5", "--quiet", "--record", str(path))
    state = replay(record_from_json(json.loads(path.read_text())))
    assert state.is_terminal() and state.render(1) != state.render()
    everything = caravan("replay", str(path)).stdout
    seen = caravan("replay", str(path), "--seat", "1").stdout
    assert state.render() in everything and state.render() not in seen
    assert state.render(1) in seen


def test_replay_of_an_unfinished_or_forfeited_record_says_so():
    data = a_record().to_json()
    data["moves"] = data["moves"][:6]
    for key in ("scores", "ranking", "rewards"):
        del data[key]
    done = caravan("replay", json.dumps(data))
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == \
        "(the record stops after move 6: the game is not over)"
    seat = replay(record_from_json(data)).to_move
    data["forfeit"] = {"seat": seat, "reason": "timeout", "message": "no answer in 60 s"}
    done = caravan("replay", json.dumps(data))
    assert f"P{seat} forfeits (timeout): no answer in 60 s" in done.stdout
    assert "final scores" in done.stdout


def test_a_record_s_free_text_reaches_the_terminal_without_its_control_characters():
    """Seat names and a forfeit's message are whatever the file says: a newline or an escape
    sequence in them is shown escaped, not played on the terminal."""
    data = a_record().to_json()
    data["moves"] = data["moves"][:6]
    for key in ("scores", "ranking", "rewards"):
        del data[key]
    data["seats"][0] = "evil\nname\x1b[31m"
    seat = replay(record_from_json(data)).to_move
    data["forfeit"] = {"seat": seat, "reason": "crash", "message": "gone\r\x1b[2J"}
    done = caravan("replay", json.dumps(data))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\r" not in done.stdout
    assert "  P0: evil\\nname\\x1b[31m" in done.stdout.splitlines()
    assert f"P{seat} forfeits (crash): gone\\r\\x1b[2J" in done.stdout


def test_a_record_file_may_begin_with_a_byte_order_mark_but_must_be_utf8(tmp_path):
    text = json.dumps(a_record().to_json())
    marked = tmp_path / "marked.json"
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode())
    done = caravan("replay", str(marked))
    assert done.returncode == 0 and "final scores" in done.stdout, done.stderr
    bad = subprocess.run([sys.executable, "-m", "engine.cli", "replay", "-"],
                         input=b'{"game": "\xff"}', capture_output=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr == b"caravan: error: standard input is not UTF-8 text\n"


def test_a_number_of_thousands_of_digits_in_a_record_is_named_out_of_range():
    data = json.dumps(a_record().to_json()).replace('"seed": 5', '"seed": ' + "9" * 5000)
    done = caravan("replay", data)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "a number of 5,000 digits is out of range" in done.stderr


@pytest.mark.parametrize("seat, message", [("2", "no seat 2"), ("0,1", "a seat number"),
                                           ("x", "a seat number")])
def test_replay_refuses_a_seat_that_is_not_one(seat, message):
    done = caravan("replay", json.dumps(a_record().to_json()), "--seat", seat)
    assert done.returncode == 2 and done.stdout == "" and message in done.stderr


# ------------------------------------------------------------------------- many games
def test_accuracy_by_agent_pools_each_agent_s_decisions_over_games():
    from search.review import accuracy_by_agent

    reviewed = []
    for seed in (1, 2, 3):
        record = a_record("khan", 2, seed)
        reviewed.append((record, review_game(record, 300, seed=seed)))
    rows = {row.agent: row for row in accuracy_by_agent(reviewed)}
    assert set(rows) == {"heuristic", "random"}
    for name, row in rows.items():
        mine = [d for record, review in reviewed for d in review.decisions
                if record.seats[d.seat] == name]
        assert (row.games, row.decisions) == (3, len(mine))
        assert row.agreed == sum(d.agreed for d in mine)
        assert row.mean_loss == pytest.approx(sum(d.loss for d in mine) / len(mine))
        assert sum(row.labels.values()) == sum(bool(d.label) for d in mine)
        low, high = row.interval()
        assert 0 <= low <= row.mean_loss <= high <= 1 and low < high
    ranked = accuracy_by_agent(reviewed)
    assert [r.mean_loss for r in ranked] == sorted(r.mean_loss for r in ranked)


def test_the_accuracy_interval_comes_from_the_sample_spread_of_the_game_means():
    """docs/review.md, Many games: the 95% interval "comes from the spread of the agent's
    per-game means": mean +- 1.96 s / sqrt(n), s the sample standard deviation (n - 1)."""
    from search.review import AgentAccuracy

    row = AgentAccuracy("a", games=2, decisions=2, game_means=[0.1, 0.3], loss_sum=0.4)
    half = 1.96 * (0.02 / 2) ** 0.5                  # s^2 = (0.1^2 + 0.1^2) / (2 - 1)
    assert row.interval() == (pytest.approx(0.2 - half), pytest.approx(0.2 + half))
    assert row.to_json()["mean_loss_95"] == [round(0.2 - half, 6), round(0.2 + half, 6)]


def test_review_all_ranks_the_agents_of_an_arena_s_games(tmp_path):
    out = tmp_path / "arena"
    done = caravan("arena", "khan", "--players", "2", "--agents", "heuristic,random", "--games",
                   "4", "--seed", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    games = out / "games.jsonl"
    text = caravan("review", str(games), "--all", "--iterations", "300")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert sum(line.startswith("game ") for line in lines) == 4
    table = lines[lines.index(next(x for x in lines if x.startswith("agent "))) + 1:]
    assert sorted(row.split()[0] for row in table) == ["heuristic", "random"]
    as_json = caravan("review", str(games), "--all", "--iterations", "300", "--json")
    assert as_json.returncode == 0, as_json.stderr
    answer = json.loads(as_json.stdout)
    check_schema(answer, "reviews", "reviews", whole_numbers=False)   # review.schema.json within
    assert len(answer["reviews"]) == 4 and {a["agent"] for a in answer["agents"]} == \
        {"heuristic", "random"}
    wrong = caravan("review", str(games), "--all", "--line", "2")
    assert wrong.returncode == 2 and "--line" in wrong.stderr


def test_review_all_names_the_record_at_fault_and_keeps_to_one_game(tmp_path):
    good = [json.dumps(a_record("khan", 2, s).to_json()) for s in (1, 2)]
    broken = json.loads(good[1])
    broken["moves"][2] = "raid-x"
    path = tmp_path / "games.jsonl"
    path.write_text(good[0] + "\n" + json.dumps(broken) + "\n")
    done = caravan("review", str(path), "--all", "--iterations", "100")
    assert done.returncode == 2 and "record 2: moves: move 3" in done.stderr
    path.write_text(good[0] + "\n" + json.dumps(a_record("khiva", 2, 1).to_json()) + "\n")
    done = caravan("review", str(path), "--all", "--iterations", "100")
    assert done.returncode == 2 and "several games" in done.stderr
