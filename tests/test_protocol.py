"""`caravan uci` driven as a subprocess, checked against docs/protocol.md."""
import json
import random
import time

import pytest

from engine.registry import new_game
from protocol_client import (CANDIDATE, INFO, Client, check_view_and_seed_forms_search_alike,
                             play_from_the_seed_form, play_from_views)

def test_handshake_lists_options_and_games(engine):
    lines = engine.ask("uci", "uciok")
    assert lines[0].startswith("id name Caravan") and lines[1].startswith("id author")
    opts = {l.split()[2] for l in lines if l.startswith("option name")}
    assert {"Workers", "Iterations", "Seed", "C", "KeyMode", "MoveTime"} <= opts
    assert any(l.startswith("info string games") and "khiva" in l for l in lines)
    assert engine.ask("isready", "readyok") == ["readyok"]


@pytest.mark.parametrize("players", [2, 3])
def test_full_game_from_the_seed_form(engine, players):
    play_from_the_seed_form(engine, "khiva", players, 11, iterations=60, max_moves=400)


@pytest.mark.parametrize("players", [2, 4])
def test_full_game_from_views(engine, players):
    """The client runs its own table and only ever tells the engine what the seat to move
    knows."""
    play_from_views(engine, new_game("khiva", players, 23), iterations=40)


def test_view_and_seed_forms_give_the_same_search(engine):
    check_view_and_seed_forms_search_alike(engine, "khiva", 3, 5, random_moves=7, rng_seed=3)


CARD_FIELDS = ("hand", "chosen_play", "chosen_give", "played", "discard", "aside_up")


def cards_in(obj):
    """Every travel card named in a Khiva JSON object's card fields."""
    out = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in CARD_FIELDS:
                out |= set(v)
            elif k == "card_whereabouts":
                out |= set(v)
            elif k == "pending":
                out.add(v["card"])
            else:
                out |= cards_in(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= cards_in(v)
    return out


def test_a_view_never_holds_a_card_its_seat_cannot_see():
    g = new_game("khiva", 4, 8)
    rng = random.Random(1)
    for _ in range(25):
        g.apply(rng.choice(g.legal_moves()))
    full = g.to_json()
    for seat in range(4):
        view = g.to_json(view=seat)
        me = full["player_state"][seat]
        public = set(full["discard"]) | set(full["aside_up"])
        own = set(me["hand"]) | set(me["chosen_play"]) | set(me["chosen_give"])
        known = {c for c in view["card_whereabouts"]}     # cards it gave away
        assert cards_in(view) <= public | own | known
        others = set()
        for p, ps in enumerate(full["player_state"]):
            if p != seat:
                others |= set(ps["hand"]) | set(ps["chosen_play"]) | set(ps["chosen_give"])
        assert not (cards_in(view) & (others - known))
        assert not (cards_in(view) & set(full["aside_down"]))
        assert "seed" not in view and "teapot_pile" not in view and "carpet_pile" not in view


def test_stop_after_go_infinite_answers_promptly(engine):
    engine.send("position khiva players 3 seed 1")
    engine.send("go infinite")
    time.sleep(0.5)
    t0 = time.monotonic()
    engine.send("isready")
    assert engine.until("readyok", timeout=5)[-1] == "readyok"
    assert time.monotonic() - t0 < 1.0
    t0 = time.monotonic()
    lines = engine.ask("stop", "bestmove", timeout=5)
    assert time.monotonic() - t0 < 1.0
    assert lines[-1].startswith("bestmove ") and lines[-1] != "bestmove (none)"


def test_isready_is_answered_during_a_long_search(engine):
    engine.send("position khiva players 3 seed 1")
    engine.send("go iterations 100000000")
    time.sleep(0.3)
    for _ in range(5):
        t0 = time.monotonic()
        assert engine.ask("isready", "readyok", timeout=5)[-1] == "readyok"
        assert time.monotonic() - t0 < 0.5
    engine.ask("stop", "bestmove", timeout=5)


def test_hint_lists_the_best_moves(engine):
    engine.send("position khiva players 3 seed 2")
    lines = engine.ask("hint 3", "hintok")
    hints = [CANDIDATE.match(l) for l in lines if l.startswith("hint rank")]
    assert len(hints) == 3 and all(hints)
    assert INFO.match(lines[0])


@pytest.mark.parametrize("bad", [
    "frobnicate", "position chess players 3 seed 1", "position khiva players 9 seed 1",
    "position khiva players 3 seed 1 moves play-Z9-give-W1", "position khiva view {not json",
    'position khiva view {"game": "khiva", "view": 0}', "position khiva view [1, 2]",
    "go iterations -5", "go iterations x", "go depth 3", "setoption name Nope value 1",
    "setoption name Iterations value 0", "setoption name KeyMode value zz", "hint 0",
    "setoption name Workers value 0", "position", "setoption",
    "setoption name ScoreWeight value 1.5", "setoption name ScoreWeight value most",
    "setoption name ScoreWeight value auto",
    "setoption name C value -1",
])
def test_errors_are_one_line_and_change_nothing(engine, bad):
    engine.send("position khiva players 3 seed 4 moves play-B1-give-B4")
    before = engine.ask("d", "dok")
    lines = engine.ask(bad, "info string error")
    assert len(lines) == 1
    assert engine.ask("d", "dok") == before
    assert engine.ask("isready", "readyok") == ["readyok"]


def test_impossible_view_is_refused(engine):
    g = new_game("khiva", 3, 4)
    view = g.to_json(view=0)
    view["aside_down_count"] += 3                     # more cards than exist
    engine.send("position khiva view " + json.dumps(view))
    assert engine.read().startswith("info string error")
    view = g.to_json(view=0)
    view["player_state"][0]["hand"].append(view["player_state"][0]["hand"][0])
    engine.send("position khiva view " + json.dumps(view))
    assert engine.read().startswith("info string error")


def test_go_without_a_position_is_an_error(engine):
    assert engine.ask("go", "info string error")[-1].startswith("info string error")


def test_fuzz_thousands_of_bad_lines_keep_the_engine_alive(engine):
    rng = random.Random(7)
    words = ["position", "khiva", "players", "seed", "moves", "view", "go", "iterations",
             "movetime", "infinite", "hint", "legal", "d", "setoption", "name", "value",
             "Iterations", "Seed", "stop", "ucinewgame", "uci", "-1", "0", "3", "99999999999999999999",
             "{", "}", '"game"', "play-W1-give-B3", "boost-1", "salt", "\t", "\x00", "é", "💥"]
    view = json.dumps(new_game("khiva", 3, 1).to_json(view=0))
    engine.send("setoption name Iterations value 20")
    for i in range(3000):
        kind = rng.random()
        if kind < 0.5:
            line = " ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
        elif kind < 0.7:
            line = "position khiva view " + view[:rng.randint(0, len(view))]
        elif kind < 0.85:
            engine.send(bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
                        .replace(b"\n", b" ") + b"\n", flush=False)
            continue
        else:
            line = "go iterations " + str(rng.choice([1, 5, 10**12, -3, "x"]))
        if line.split() and line.split()[0] in ("quit",):
            continue
        engine.send(line, flush=False)
        if i % 100 == 0:
            engine.send("stop")
            engine.send("isready")
            engine.until("readyok", timeout=30)
    engine.send("stop")
    assert engine.ask("isready", "readyok", timeout=30)[-1] == "readyok"
    engine.send("position khiva players 3 seed 1")
    assert engine.ask("legal", "legal")[-1].startswith("legal play-")


def test_end_of_input_finishes_the_search_and_exits():
    c = Client()
    c.send("position khiva players 3 seed 1")
    c.send("go iterations 300")
    c.proc.stdin.close()
    lines = []
    while True:
        try:
            lines.append(c.read(timeout=30))
        except EOFError:
            break
    assert lines[-1].startswith("bestmove ")
    assert c.proc.wait(timeout=30) == 0
