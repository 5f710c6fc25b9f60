"""Khan of Khans from a seat's view: what a view holds, from_view, and the protocol's view form.

A view (to_json(view=seat)) holds everything the seat knows and nothing else: per-deck counted
contents, the tops the Impala People revealed, the upper bounds of Sable's face-down cards
learned from Stampede!, and (for the Sable Nation only) the values of its face-down cards.
from_view builds a full state from it that searches exactly like the true position
(docs/views/khan.md). It takes only the view of the seat to move (or of a finished game);
the checks that every seat's knowledge survives its view use the same loader without that
rule (`rebuild`). What every game's views do (the seat to move's view round-trips, another
seat's is refused, what is no view is refused, and so is damage to the fields every game
shares: game, players, view, phase, to_move, player_state) is the conformance suite's
(tests/test_conformance.py); mutated views, tests/test_loader_fuzz.py's."""
import copy
import json
import random
import re
import subprocess
import sys
import tempfile

import pytest

from engine.games.khan import KhanOfKhans, _view_hashes
from engine.registry import from_view
from protocol_client import (check_view_and_seed_forms_search_alike,
                             play_from_the_seed_form, play_from_views)
from search.suggest import suggest
from game_support import (check_a_view_rebuilds_each_seats_world, check_damage_refused,
                          edit, json_keys, rebuild_any_seat, spread_over_phases)

PHASES = {"main", "blessing", "reveal", "pick"}
LINEUPS = {
    2: [["sable", "impala"], ["impala", "sable"]],
    3: [["sable", "impala", "bison"], ["llama", "sable", "impala"]],
    4: [["impala", "sable", "morokanth", "llama"], ["bison", "impala", "llama", "sable"]],
    5: [["sable", "impala", "bison", "morokanth", "llama"],
        ["llama", "morokanth", "impala", "bison", "sable"]],
}


def positions_of_game(n, seed, khans):
    """Every position of a random game (the final one apart), and the final state."""
    g = KhanOfKhans(n, seed, khans=khans)
    rng = random.Random(seed)
    out = []
    while not g.is_terminal():
        out.append(g.clone())
        g.apply(rng.choice(g.legal_moves()))
    return out, g


def face_down(g):
    return len(g.to_json()["sable_face_down"])


def bounded(g):
    return any(s["max"] < 100 for s in g.to_json()["sable_face_down"])


def known_tops(g):
    return sum(e["top"] is not None for e in g.to_json()["decks"])


def sample_positions():
    """At every player count: early, middle and late positions of every phase (mid-turn
    choices included), the one with most face-down Sable cards, one where Stampede! bounded a
    face-down card and one with tops known from the Impala People in the main phase."""
    picked = []
    for n, lineups in LINEUPS.items():
        for i, khans in enumerate(lineups):
            pos, _ = positions_of_game(n, 100 * n + i, khans)
            picked.append(max(pos, key=face_down))
            picked += [g for g in pos if bounded(g)][-1:]
            picked += [g for g in pos if g.phase == "main" and known_tops(g)][:1]
            picked += spread_over_phases(pos)
    return picked


POSITIONS = sample_positions()


rebuild = rebuild_any_seat(KhanOfKhans)


def pid(g):
    return f"{g.n_players}p-t{g.turn}-{g.phase}-{'.'.join(k[:2] for k in g.khans)}"


def test_the_sample_covers_every_phase_and_every_kind_of_knowledge():
    for n in LINEUPS:
        mine = [g for g in POSITIONS if g.n_players == n]
        assert {g.phase for g in mine} == PHASES, n
        assert any(face_down(g) >= 3 for g in mine)
        assert any(bounded(g) for g in mine)
        assert any(known_tops(g) and g.phase == "main" for g in mine)
        sable = [g for g in mine if face_down(g)]
        assert any(g.khans[g.to_move] == "sable" for g in sable)
        assert any(g.khans[g.to_move] != "sable" for g in sable)


@pytest.mark.parametrize("g", POSITIONS, ids=pid)
def test_a_state_from_a_view_is_seen_alike_and_searches_alike(g):
    check_a_view_rebuilds_each_seats_world(g, rebuild)


def test_the_sable_nation_keeps_its_values_the_others_get_valid_ones():
    g = max((g for g in POSITIONS if bounded(g)), key=face_down)
    full = g.to_json()
    sable = g.khans.index("sable")
    for seat in range(g.n_players):
        st = rebuild(g.to_json(view=seat)).to_json()
        if seat == sable:
            assert st["sable_face_down"] == full["sable_face_down"]
            assert st["player_state"][sable]["score"] == full["player_state"][sable]["score"]
        else:
            # the fill: each face-down card takes the lowest unseen Raid! card of its deck,
            # within its bound; the same whatever the true values are
            for a, b in zip(st["sable_face_down"], full["sable_face_down"]):
                assert (a["deck"], a["at"], a["max"]) == (b["deck"], b["at"], b["max"])
                assert a["value"] <= a["max"]
            for s in range(5):
                other = g.determinized(seat, 60 + s)
                again = rebuild(other.to_json(view=seat)).to_json()
                assert again == st
        # deck contents by type, below the known tops, are the true ones
        for e, t in zip(st["decks"], full["decks"]):
            assert e["count"] == t["count"] and e["top"] == t["top"]
            if seat == sable:
                assert sorted(e["cards"]) == sorted(t["cards"])


def test_view_hashes_public_shared_by_every_seat_private_per_seat():
    for g in (POSITIONS[3], max(POSITIONS, key=face_down)):
        hashes = [_view_hashes(g.to_json(view=s), s) for s in range(g.n_players)]
        assert len({pub for pub, _ in hashes}) == 1
        assert len({priv for _, priv in hashes}) == g.n_players
        states = [rebuild(g.to_json(view=s)) for s in range(g.n_players)]
        for s in range(g.n_players):
            again = rebuild(json.loads(json.dumps(g.to_json(view=s))))
            for p in range(g.n_players):
                for mode in ("so", "mo"):
                    assert again.info_key(p, s, mode) == states[s].info_key(p, s, mode)
        # the shared entries are the same whichever seat's view built the state
        for a in range(g.n_players):
            for b in range(g.n_players):
                if a != b:
                    assert states[a].info_key(b, a, "so") == states[b].info_key(b, a, "so")


def test_the_sable_information_set_follows_its_face_down_values():
    g = max(POSITIONS, key=face_down)
    sable = g.khans.index("sable")
    v = g.to_json(view=sable)
    # the same position with one face-down 20 and one 50 of a deck swapped is another
    # information set for the Sable Nation, the same one for the others
    w = None
    slots = v["sable_face_down"]
    for i, a in enumerate(slots):
        for b in slots[i + 1:]:
            if a["value"] != b["value"] and a["at"] == b["at"] and a["max"] == b["max"] == 100:
                w = copy.deepcopy(v)
                j = slots.index(b)
                w["sable_face_down"][i]["value"], w["sable_face_down"][j]["value"] = \
                    b["value"], a["value"]
                if a["deck"] != b["deck"]:
                    for dk, val, other in ((a["deck"], a["value"], b["value"]),
                                           (b["deck"], b["value"], a["value"])):
                        e = next(e for e in w["decks"] if e["name"] == dk)
                        u = e["unseen"]
                        ko, kn = f"raid{val}", f"raid{other}"
                        if u.get(kn, 0) == 0:
                            w = None
                            break
                        u[kn] -= 1
                        u[ko] = u.get(ko, 0) + 1
                        if u[kn] == 0:
                            del u[kn]
                break
        if w is not None:
            break
    assert w is not None and w != v
    x, y = rebuild(v), rebuild(w)
    assert x.info_key(sable, sable, "so") != y.info_key(sable, sable, "so")
    other = (sable + 1) % g.n_players
    assert x.info_key(other, sable, "so") == y.info_key(other, sable, "so")


# ---------------------------------------------------------------- what a view holds
@pytest.mark.parametrize("g", POSITIONS[::3], ids=pid)
def test_a_view_never_holds_what_its_seat_cannot_see(g):
    full = g.to_json()
    sable = g.khans.index("sable") if "sable" in g.khans else -1
    for seat in range(g.n_players):
        view = g.to_json(view=seat)
        keys = {k for _, k in json_keys(view)}
        assert "seed" not in keys and "cards" not in keys         # no deal seed, no deck order
        values = [path for path, k in json_keys(view) if k == "value"]
        if seat == sable:
            assert len(values) == len(full["sable_face_down"])
        else:
            assert values == []
            assert "score" not in view["player_state"][sable] if sable >= 0 else True
        # the view is the same whatever the hidden parts are, and they do vary
        changed = 0
        for s in range(10):
            d = g.determinized(seat, 70 + s)
            assert d.to_json(view=seat) == view
            dj = d.to_json()
            changed += [e["cards"] for e in dj["decks"]] != [e["cards"] for e in full["decks"]]
            changed += dj["sable_face_down"] != full["sable_face_down"]
        free = [e for e in view["decks"] if len(e["unseen"]) >= 2
                and not any(sl["deck"] == e["name"] for sl in view["sable_face_down"])]
        assert changed > 0 or not free
        # public by counting: each deck's cards below a known top (plus, for a seat other than
        # the Sable Nation, the face-down cards from that deck), by type
        for e, t in zip(view["decks"], full["decks"]):
            below = t["cards"][:-1] if t["top"] is not None else t["cards"]
            unseen = {}
            for c in below:
                unseen[c] = unseen.get(c, 0) + 1
            if seat != sable:
                for sl in full["sable_face_down"]:
                    if sl["deck"] == t["name"]:
                        c = f"raid{sl['value']}"
                        unseen[c] = unseen.get(c, 0) + 1
            assert e["unseen"] == unseen
            assert e["top"] == t["top"] and e["count"] == len(t["cards"])
        for sl, t in zip(view["sable_face_down"], full["sable_face_down"]):
            assert sl["max"] == t["max"] and sl["deck"] == t["deck"] and sl["at"] == t["at"]


def test_a_finished_game_has_a_view_that_shows_the_face_down_cards():
    """At the end every player totals its cows: the Sable Nation's cards are shown to all,
    so a view of a finished game gives every score."""
    for n, seed in ((2, 9), (3, 9), (4, 2), (5, 3)):
        _, g = positions_of_game(n, seed, LINEUPS[n][0])
        full = g.to_json()
        assert full["sable_face_down"], "a finished game with face-down cards"
        for seat in range(n):
            v = g.to_json(view=seat)
            assert v["sable_face_down"] == full["sable_face_down"]
            assert all("score" in ps for ps in v["player_state"])
            assert all(e["unseen"] == {} for e in v["decks"])
            st = KhanOfKhans.from_view(v)
            assert st.is_terminal() and st.to_json(view=seat) == v
            assert st.scores() == g.scores() and st.ranking() == g.ranking()
            assert st.rewards() == g.rewards()
            world = g.determinized(seat, 1).to_json()      # nothing left to draw again
            assert world["seed"] == 0 and dict(world, seed=g.seed) == g.to_json()


def face_down_values(d, at):
    """' +k face down (v1, v2...)' as render writes the Sable Nation's cards at `at`."""
    vals = sorted((s["value"] for s in d["sable_face_down"] if s["at"] == at), reverse=True)
    return f"+{len(vals)} face down ({', '.join(map(str, vals))})" if vals else None


def test_the_board_shows_the_face_down_values_once_the_game_is_over():
    """At the end every player totals its cows, so the text of the board (what caravan play
    and caravan match print last) gives every face-down value to every seat, not only
    '+1 face down'; before the end only the Sable Nation and the full state see them."""
    for n, seed in ((2, 9), (3, 9), (4, 2), (5, 3)):
        positions, g = positions_of_game(n, seed, LINEUPS[n][0])
        full = g.to_json()
        sable = g.khans.index("sable")
        parts = [face_down_values(full, at) for at in ("herd", "corral", "box")]
        assert any(parts), "a finished game with face-down cards"
        for viewer in (None, *range(n)):
            lines = g.render(viewer).splitlines()
            line = next(l for l in lines if "Sable Nation" in l)
            herd, corral, box = parts
            assert f"score {g.scores()[sable]:>4}" in line
            if herd:
                assert herd in line.split("corrals")[0], line
            if corral:
                assert corral in line.split("corrals")[1], line
            if box:
                assert box[1:] in next(l for l in lines if l.startswith("box:"))
        mid = max(positions, key=face_down)
        for viewer in (None, *range(n)):
            text = mid.render(viewer)
            assert ("face down (" in text) == (viewer in (None, sable)), (viewer, text)
            if viewer not in (None, sable):
                assert "face down" in text                  # the count, never the values


def test_caravan_match_ends_with_the_face_down_values():
    r = subprocess.run([sys.executable, "-m", "engine.cli", "match", "khan", "--players", "2",
                        "--khans", "sable,bison", "--agents", "random,random", "--seed", "1"],
                       capture_output=True, text=True, timeout=300, cwd=tempfile.gettempdir())
    assert r.returncode == 0, r.stderr
    board = r.stdout.split("phase over")[-1]
    sable = next(l for l in board.splitlines() if "Sable Nation" in l)
    assert re.search(r"\+\d+ face down \((\d+, )*\d+\)", sable), sable
    assert "?" not in sable


def test_explicit_zero_counts_are_accepted_unknown_keys_refused():
    """Field policy (docs/views/README.md): `unseen` may list types with 0; a key the format
    does not have is refused, a seed too (a view never holds one)."""
    g = POSITIONS[5]
    view = g.to_json(view=g.to_move)
    v = copy.deepcopy(view)
    for e in v["decks"]:
        e["unseen"].setdefault("magic", 0)
    assert KhanOfKhans.from_view(v).to_json(view=g.to_move) == view
    for key, value in (("seed", 12345), ("comment", "from a client")):
        with pytest.raises(ValueError, match=f"^\\(root\\): unknown key '{key}'"):
            KhanOfKhans.from_view(dict(view, **{key: value}))


# ---------------------------------------------------------------- refused views
def base_view():
    """A mid-game view of the seat to move, not the Sable Nation, with face-down cards."""
    g = max((g for g in POSITIONS if g.n_players == 4 and g.phase == "main"
             and g.khans[g.to_move] != "sable"), key=face_down)
    assert face_down(g) > 0
    return g.to_json(view=g.to_move)


def sable_view():
    """The view of the Sable Nation to move, with face-down cards."""
    g = max((g for g in POSITIONS if g.n_players == 3 and g.khans[g.to_move] == "sable"),
            key=face_down)
    assert face_down(g) > 0
    return g.to_json(view=g.to_move)


def sable_seat(v):
    return v["khans"].index("sable")


def first_deck_with(v, pred):
    return next(i for i, e in enumerate(v["decks"]) if pred(e))


BAD_VIEWS = {
    "negative turn": edit(["turn"], -1),
    "turn as float": edit(["turn"], 3.5),
    "huge turn": edit(["turn"], 2 ** 70),
    "unknown khan": edit(["khans", 0], "camel"),
    "khan twice": lambda v: v["khans"].__setitem__(1, v["khans"][0]),
    "khans short": lambda v: v["khans"].pop(),
    "bad impala token": edit(["impala_token"], "green"),
    "pending blessing in main": edit(["pending_blessing"], True),
    "revealed in main": edit(["revealed"], ["boldhome"]),
    "unknown revealed deck": edit(["revealed"], ["moon"]),
    "nine decks": lambda v: v["decks"].pop(),
    "decks swapped": lambda v: v["decks"].insert(0, v["decks"].pop(1)),
    "deck count 9": edit(["decks", 0, "count"], 9),
    "deck count as text": edit(["decks", 0, "count"], "3"),
    "deck count off": lambda v: v["decks"][first_deck_with(v, lambda e: e["count"])].update(
        count=v["decks"][first_deck_with(v, lambda e: e["count"])]["count"] - 1),
    "unknown card type": edit(["decks", 0, "unseen", "joker"], 1),
    "unseen not a dict": edit(["decks", 0, "unseen"], ["raid20"]),
    "negative unseen": edit(["decks", 0, "unseen", "raid20"], -1),
    "top of an empty deck": lambda v: v["decks"][first_deck_with(v, lambda e: e["count"] == 0)]
    .update(top="magic"),
    "unknown top": edit(["decks", 0, "top"], "gold"),
    "three raid100 in a deck": lambda v: v["decks"][first_deck_with(
        v, lambda e: e["count"] >= 3 and e["top"] is None)].update(unseen={"raid100": 3}, count=3),
    "more cards than exist": lambda v: v["box"].update(magic=v["box"]["magic"] + 1),
    "box as list": edit(["box"], [1, 2]),
    "negative herd": edit(["player_state", 0, "herd", "20"], -1),
    "huge herd": edit(["player_state", 0, "herd", "20"], 2 ** 70),
    "herd as text": edit(["player_state", 0, "herd", "50"], "two"),
    "score off": lambda v: v["player_state"][next(
        p for p in range(4) if "score" in v["player_state"][p])].update(score=12345),
    "face-down count off": lambda v: v["player_state"][sable_seat(v)].update(
        herd_face_down=v["player_state"][sable_seat(v)]["herd_face_down"] + 1),
    "corral tiles lost": edit(["player_state", 0, "corrals_open"], 7),
    "champion twice": edit(["player_state", 0, "champion"], 2),
    "value of a card it cannot see": edit(["sable_face_down", 0, "value"], 20),
    "face-down card of no deck": edit(["sable_face_down", 0, "deck"], "moon"),
    "face-down card nowhere": edit(["sable_face_down", 0, "at"], "pocket"),
    "face-down bound 30": edit(["sable_face_down", 0, "max"], 30),
    "face-down list not a list": edit(["sable_face_down"], {"deck": "boldhome"}),
    "a face-down card too many": lambda v: v["sable_face_down"].append(
        dict(v["sable_face_down"][0])),
    "no raid card left for a face-down card": lambda v: v["decks"][
        [e["name"] for e in v["decks"]].index(v["sable_face_down"][0]["deck"])].update(
        unseen={k: c for k, c in v["decks"][[e["name"] for e in v["decks"]].index(
            v["sable_face_down"][0]["deck"])]["unseen"].items() if not k.startswith("raid")}),
    "a bound no unseen card fits": lambda v: (
        v["sable_face_down"][0].update(max=20),
        v["decks"][[e["name"] for e in v["decks"]].index(
            v["sable_face_down"][0]["deck"])]["unseen"].pop("raid20", None)),
}

SABLE_BAD_VIEWS = {
    "sable without its values": lambda v: [sl.pop("value") for sl in v["sable_face_down"]],
    "sable value 30": edit(["sable_face_down", 0, "value"], 30),
    "sable value above its bound": lambda v: (v["sable_face_down"][0].update(max=20, value=100)),
    "sable herd count off": lambda v: v["player_state"][v["view"]].update(
        score=v["player_state"][v["view"]]["score"] + 20),
}


# each damage with the view it is done to: a mid-game view of another seat, or the Sable Nation's
DAMAGED = {**{name: (base_view, change) for name, change in BAD_VIEWS.items()},
           **{name: (sable_view, change) for name, change in SABLE_BAD_VIEWS.items()}}


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_malformed_or_impossible_views_are_refused(name):
    view_of, change = DAMAGED[name]
    check_damage_refused(KhanOfKhans, view_of(), change)


def test_suggest_and_the_registry_take_a_view():
    g = max(POSITIONS, key=face_down)
    view = g.to_json(view=g.to_move)
    assert from_view(view).to_json(view=g.to_move) == view
    a = suggest(g, 400, 4, seed=2)
    b = suggest(json.dumps(view), 400, 4, seed=2)
    assert [(m.text, m.visits) for m in a.moves] == [(m.text, m.visits) for m in b.moves]


# ---------------------------------------------------------------- through the protocol
@pytest.mark.parametrize("players,khans", [(2, ["impala", "sable"]),
                                           (5, ["sable", "llama", "impala", "bison",
                                                "morokanth"])])
def test_full_game_from_views(engine, players, khans):
    """The client keeps its own table and tells the engine only what the seat to move knows."""
    moves = play_from_views(engine, KhanOfKhans(players, 41, khans=khans), max_moves=1000)
    assert moves >= 80                             # every one of the 80 cards was drawn


def test_full_game_from_the_seed_form(engine):
    play_from_the_seed_form(engine, "khan", 3, 17, max_moves=1000)


def test_view_and_seed_forms_give_the_same_search(engine):
    check_view_and_seed_forms_search_alike(engine, "khan", 4, 5, random_moves=15, rng_seed=3)


def test_an_impossible_view_is_refused_by_the_protocol(engine):
    v = base_view()
    v["box"]["magic"] += 1
    engine.send("position khan view " + json.dumps(v))
    line = engine.read()
    assert line.startswith("info string error")
    assert engine.ask("isready", "readyok") == ["readyok"]


def test_the_documented_example_is_a_view_the_core_writes():
    import pathlib
    doc = (pathlib.Path(__file__).parent.parent / "docs" / "views" / "khan.md").read_text()
    line = next(l for l in doc.splitlines() if l.startswith('{"game":"khan"'))
    v = json.loads(line)
    pos, _ = positions_of_game(3, 8, ["impala", "sable", "bison"])
    g = next(g for g in pos if g.turn == 62)
    assert g.to_json(view=2) == v
    st = KhanOfKhans.from_view(v)
    assert st.to_json(view=2) == v
    assert " ".join(st.move_to_text(m) for m in st.legal_moves()) == (
        "raid-boldhome raid-duckpoint raid-dwarfmine raid-earthshaker raid-shadowsdance "
        "raid-sundome corral")
    assert g.to_json(view=1)["player_state"][1]["score"] == 540
