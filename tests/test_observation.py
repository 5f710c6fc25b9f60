"""engine.observation: the numpy tensors of a seat and the action ids, shared by the OpenSpiel
and PettingZoo adapters (docs/ecosystem.md).

Fixed shapes per (game, player count); contents that say what the view says; no hidden part of
another seat: two states a seat cannot tell apart (a state and its determinization for that
seat) give it equal tensors and equal information-state strings, while the same pairs do
differ for the other seats and in the full state, so the comparison can see a difference;
and every legal move of many random games has an id in range that maps back to it."""
import random
import re
from pathlib import Path

import numpy as np
import pytest

from engine import observation as ob
from engine.registry import GAMES, new_game

COUNTS = [(g, n) for g, info in GAMES.items()
          for n in range(info.min_players, info.max_players + 1)]


def positions(game, players, games, every, seed=0):
    """Copies of the positions every `every` moves of `games` random games (the end included)."""
    for k in range(games):
        s = new_game(game, players, seed=seed + k)
        rng = random.Random(seed * 7919 + k)
        i = 0
        while True:
            if i % every == 0 or s.is_terminal():
                yield s.clone()
            if s.is_terminal():
                break
            s.apply(rng.choice(s.legal_moves()))
            i += 1


def budget(game, players):
    """(games, every): Kilim's tensors are large, so it is sampled more sparsely."""
    return (2, 23) if game == "kilim" else (3, 7)


def test_every_game_has_a_layout_and_an_action_map():
    assert set(ob.GAMES) == set(GAMES)
    for g, info in GAMES.items():
        assert ob.PLAYER_COUNTS[g] == tuple(range(info.min_players, info.max_players + 1))


@pytest.mark.parametrize("game,players", COUNTS)
def test_layouts_tile_a_fixed_vector(game, players):
    info = ob.layout(game, players, ob.INFORMATION_STATE)
    seen = ob.layout(game, players, ob.OBSERVATION)
    assert [f for f in info.fields if not f.knowledge] == list(seen.fields)
    assert any(f.knowledge for f in info.fields)
    for lay in (info, seen):
        assert lay.size == sum(f.size for f in lay.fields)
        ends = [b for a, b in lay.offsets.values()]
        starts = [a for a, b in lay.offsets.values()]
        assert starts == [0] + ends[:-1] and ends[-1] == lay.size
        t = lay.new()
        views = lay.views(t)
        for f in lay.fields:
            assert views[f.name].shape == f.shape
            views[f.name][...] = 1
        assert t.sum() == lay.size                      # the views cover the vector once
        low, high = lay.bounds()
        assert low.shape == high.shape == lay.shape


@pytest.mark.parametrize("game,players", COUNTS)
def test_tensors_have_their_shape_and_bounds_over_random_games(game, players):
    games, every = budget(game, players)
    for kind in ob.KINDS:
        lay = ob.layout(game, players, kind)
        low, high = lay.bounds()
        binary = np.zeros(lay.size, bool)
        for f in lay.fields:
            a, b = lay.offsets[f.name]
            binary[a:b] = f.binary
        for s in positions(game, players, games, every * 2):
            for seat in range(players):
                t = ob.tensor(s, seat, kind)
                assert t.dtype == np.float32 and t.shape == lay.shape
                assert np.all(np.isfinite(t)) and np.all(t >= low) and np.all(t <= high)
                assert np.all((t[binary] == 0) | (t[binary] == 1))
                f = lay.views(t)
                assert f["seat"].sum() == 1 and f["seat"][seat] == 1
                assert f["phase"].sum() == 1
                assert f["to_move"].sum() == (0 if s.is_terminal() else 1)
                if not s.is_terminal():
                    assert f["to_move"][s.to_move] == 1


def test_the_state_methods_give_the_same_tensors():
    s = new_game("taschkent", 3, seed=4)
    for seat in range(3):
        assert np.array_equal(s.observation_tensor(seat), ob.tensor(s, seat, ob.OBSERVATION))
        assert np.array_equal(s.information_state_tensor(seat), ob.tensor(s, seat))
    assert s.action_ids is ob.action_map("taschkent")
    out = np.full(ob.layout("taschkent", 3).size, 7, np.float32)
    assert np.array_equal(ob.tensor(s, 1, out=out), ob.tensor(s, 1))     # `out` is cleared


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        ob.layout("chess", 2)
    with pytest.raises(ValueError):
        ob.layout("taschkent", 5)
    with pytest.raises(ValueError):
        ob.layout("khiva", 3, "everything")


# ------------------------------------------------------------ contents
def test_khiva_fields_say_what_the_view_says():
    for s in positions("khiva", 3, 3, 5):
        for seat in range(3):
            v = s.to_json(view=seat)
            f = ob.fields_of(s, seat)
            me = v["player_state"][seat]
            assert f["hand"].sum() == len(me["hand"]) == f["hand_size"][seat]
            assert [p["score"] for p in v["player_state"]] == list(f["score"]) == s.scores()
            assert np.all(f["camel_at"].sum(axis=1) == 1)
            assert f["discard"].sum() == len(v["discard"])
            assert f["teapot_pile_contents"].sum() == v["teapot_pile_count"]
            assert f["salt_pile"].sum() == len(v["salt_pile"])
            assert list(f["salt_best"]) == [p["salt_best"] for p in v["player_state"]]
            cards = {ob._KHIVA_CARD[c] for c in me["hand"]}
            assert set(np.flatnonzero(f["hand"])) == cards
            # every card the seat can place is in its whereabouts row, and no other
            listed = {ob._KHIVA_CARD[c] for c in v["card_whereabouts"]}
            assert set(np.flatnonzero(f["card_whereabouts"].sum(axis=1))) == listed


def test_khiva_whereabouts_columns_are_the_seats_then_the_aside_cards():
    """docs/ecosystem.md, `card_whereabouts`: "columns: seats, then the face-down set-aside
    cards"."""
    v = new_game("khiva", 3, 7).to_json(view=0)
    unseen = next(c for c in ob._KHIVA_CARD if c not in v["player_state"][0]["hand"])
    v["card_whereabouts"] = {unseen: [1, "aside"]}
    f = ob.layout("khiva", 3).views(ob.encode_view(v))
    assert list(f["card_whereabouts"][ob._KHIVA_CARD[unseen]]) == [0, 1, 0, 1]


def test_khan_fields_say_what_the_view_says():
    for s in positions("khan", 4, 3, 5):
        for seat in range(4):
            v = s.to_json(view=seat)
            f = ob.fields_of(s, seat)
            assert list(f["deck_count"]) == [d["count"] for d in v["decks"]]
            assert f["impala_token"][0] == (v["impala_token"] == "coloured")
            assert np.all(f["khans"].sum(axis=1) == 1)
            slots = len(v["sable_face_down"])
            assert f["sable_deck"].sum() == f["sable_at"].sum() == f["sable_max"].sum() == slots
            knows = sum("value" in c for c in v["sable_face_down"])
            assert f["sable_value"].sum() == knows
            for p, ps in enumerate(v["player_state"]):
                assert f["score_known"][p] == ("score" in ps)
                if "score" in ps:
                    assert f["score"][p] == s.scores()[p]


def test_kilim_grid_holds_every_woven_cell_and_scrap():
    assert ob.kilim_grid_side(2) == 60 and ob.kilim_grid_side(5) == 90
    for s in positions("kilim", 3, 2, 17):
        f = ob.fields_of(s, 0)
        for p, ps in enumerate(s.to_json(view=0)["player_state"]):
            grid = f["kilim"][p]
            dominoes, scraps = ps["kilim"]["dominoes"], ps["kilim"]["scraps"]
            assert grid[:7].sum() == 2 * len(dominoes)
            assert grid[7:9].sum() == len(dominoes)
            assert grid[9:].sum() == len(scraps)
            for r, c, d, halves in dominoes:
                assert grid[ob.KILIM_CODES.index(halves[0]), r, c] == 1
                assert grid[7 if d == "h" else 8, r, c] == 1      # 7 across, 8 down
            assert f["score"][p] == s.scores()[p]


def test_kilim_fields_of_the_observing_seat_and_the_placing_say_what_the_view_says():
    """The observing seat's own scraps held face down, and the direction a placing allows
    (one-hot over either, across only, down only: the view's -1, 0, 1)."""
    placings = held = 0
    for s in positions("kilim", 3, 2, 3):
        for seat in range(3):
            v = s.to_json(view=seat)
            f = ob.fields_of(s, seat)
            mine = v["player_state"][seat].get("scraps_held", ())
            assert set(np.flatnonzero(f["scraps_held"])) == {ob.KILIM_CODES.index(x) for x in mine}
            held += bool(mine)
            if v["placing"] is not None:
                assert list(np.flatnonzero(f["placing_direction"])) == [
                    v["placing"]["direction"] + 1]
                placings += v["placing"]["direction"] != -1
    assert held and placings          # the sample reaches both


def test_taschkent_fields_say_what_the_view_says():
    for players in (2, 4):
        for s in positions("taschkent", players, 2, 6):
            for seat in range(players):
                v = s.to_json(view=seat)
                f = ob.fields_of(s, seat)
                assert np.all(f["hut_at"].sum(axis=1) == 1)
                assert list(f["tugrik"]) == [p["tugrik"] for p in v["player_state"]]
                mine = v["player_state"][seat]
                assert f["action_cards"].sum() == mine["action_card_count"]
                assert f["trading_display"].sum() == len(v["trading_display"])
                assert ("neutral_cameleer" in f) == (players == 2)


# ------------------------------------------------------------ nothing hidden leaks
@pytest.mark.parametrize("game,players", COUNTS)
def test_a_seat_gets_equal_tensors_from_states_it_cannot_tell_apart(game, players):
    """A state and its determinization for `seat` differ only in what the seat cannot see:
    every tensor and the information-state string of the seat must be equal. The same pairs
    must differ in the full state and, somewhere, in another seat's tensor: otherwise the
    comparison would prove nothing."""
    games, every = budget(game, players)
    hidden_differs = other_differs = pairs = 0
    for s in positions(game, players, games, every, seed=100):
        for seat in range(players):
            d = s.determinized(seat, 1000 + pairs)
            pairs += 1
            for kind in ob.KINDS:
                assert np.array_equal(ob.tensor(s, seat, kind), ob.tensor(d, seat, kind)), kind
            assert ob.information_state_string(s, seat) == ob.information_state_string(d, seat)
            hidden_differs += s.to_json() != d.to_json()
            other = (seat + 1) % players
            other_differs += not np.array_equal(ob.tensor(s, other), ob.tensor(d, other))
    assert hidden_differs > pairs // 3
    assert other_differs > 0


# ------------------------------------------------------------ action ids
SIZES = {"khiva": 76505, "khan": 77, "kilim": 238632, "taschkent": 3165}


@pytest.mark.parametrize("game,players", COUNTS)
def test_every_legal_move_has_an_id_in_range_that_maps_back(game, players):
    amap = ob.action_map(game)
    assert amap.size == SIZES[game]
    games = 6 if game != "kilim" else 3
    for s in positions(game, players, games, 1, seed=200):
        if s.is_terminal():
            assert amap.legal_ids(s) == [] and amap.mask(s).sum() == 0
            continue
        ids = amap.legal_ids(s)
        assert ids == sorted(set(ids)) and len(ids) == len(s.legal_moves())
        assert 0 <= ids[0] and ids[-1] < amap.size
        assert sorted(amap.move(i) for i in ids) == s.legal_moves()
        mask = amap.mask(s)
        assert mask.dtype == np.int8 and mask.sum() == len(ids) and np.all(mask[ids] == 1)


@pytest.mark.parametrize("game", list(GAMES))
def test_ids_are_dense_a_bijection_with_the_encoded_moves(game):
    amap = ob.action_map(game)
    rng = random.Random(5)
    firsts = [a for a, b, _ in amap.ranges()]
    lasts = [b for a, b, _ in amap.ranges()]
    assert firsts[0] == 0 and lasts[-1] == amap.size - 1
    assert firsts[1:] == [b + 1 for b in lasts[:-1]]
    for i in set(firsts + lasts + [rng.randrange(amap.size) for _ in range(3000)]):
        assert amap.action_id(amap.move(i)) == i
    for bad in (-1, amap.size):
        with pytest.raises(ValueError):
            amap.move(bad)
    with pytest.raises(ValueError):
        amap.action_id(127 << 24)                    # a kind no game has


def test_khiva_ids_of_both_choice_forms():
    amap = ob.action_map("khiva")
    single = new_game("khiva", 3, seed=1)
    duel = new_game("khiva", 2, seed=1)
    assert all(i < 600 for i in amap.legal_ids(single))
    assert all(600 <= i < 76500 for i in amap.legal_ids(duel))
    assert len(amap.legal_ids(duel)) == 420           # C(8, 2) x C(6, 2)


# ------------------------------------------------------------ docs/ecosystem.md
DOC = Path(__file__).resolve().parent.parent / "docs" / "ecosystem.md"


def test_the_docs_tables_are_the_layouts_and_the_ids():
    doc = DOC.read_text()
    assert ob.size_table() in doc
    for game in ob.GAMES:
        assert ob.field_table(game) in doc, game
        assert ob.action_table(game) in doc, game


def test_the_docs_python_example_runs(capsys):
    block = next(b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
                 if "observation.fields_of" in b)
    exec(compile(block, str(DOC), "exec"), {})
