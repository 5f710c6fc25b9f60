"""Kilim from one seat's view: the view hides everything the seat cannot see, from_view builds
a state that shows the seat the same view and searches exactly like the real position, bad
views are ValueErrors, and whole games run through `caravan uci` from views and from seeds.
What every game's views do (the seat to move's view round-trips with the same keys, another
seat's is refused, what is no view is refused, and so is damage to the fields every game
shares: game, players, view, phase, to_move, player_state) is the conformance suite's
(tests/test_conformance.py); mutated views, tests/test_loader_fuzz.py's."""
import copy
import json
import random

import pytest

from engine.games.kilim import Kilim, parse_domino
from engine.registry import new_game
from game_support import DELETE, check_damage_refused, edit
from protocol_client import (check_view_and_seed_forms_search_alike,
                             play_from_the_seed_form, play_from_views)
from search import search
from search.suggest import suggest

HIDDEN_PHASES = ("card", "spy", "scrap-bid", "artisan-bid")


def hidden_pending(g):
    """Whether another seat has a face-down choice the seat to move cannot see."""
    v = g.to_json(view=g.to_move)
    return any(ps["has_chosen"] for p, ps in enumerate(v["player_state"]) if p != g.to_move)


def knows_something(g):
    """Whether the seat to move has narrowed down where some unseen scrap is."""
    v = g.to_json(view=g.to_move)
    full = len([p for p in range(g.n_players) if p != g.to_move]) + 1
    return any(len(places) < full for places in v["scrap_whereabouts"].values())


def collect_positions():
    """Per player count: the first position of every phase, with and without a face-down
    choice pending, of each day, plus one where the seat knows where a scrap is."""
    out = []
    for n in (2, 3, 4, 5):
        found = set()
        for game in range(6):
            g = Kilim(n, 900 + 10 * n + game)
            rng = random.Random(game)
            while not g.is_terminal():
                tags = [(g.phase, hidden_pending(g)), ("day", g.day)]
                if knows_something(g):
                    tags.append(("knows",))
                if g.day == 2 and g.to_json()["pile_counts"][2] <= 2 and g.phase in ("place", "window"):
                    tags.append(("late", g.phase))           # big Kilims, tokens in use
                for tag in tags:
                    if tag not in found:
                        found.add(tag)
                        out.append(g.clone())
                        break
                g.apply(rng.choice(g.legal_moves()))
    return out


POSITIONS = collect_positions()


def pid(g):
    return f"{g.n_players}p-d{g.day}-t{g.turn}-{g.phase}{'-hidden' if hidden_pending(g) else ''}"


def test_the_positions_cover_every_hidden_choice_and_knowledge():
    tags = {(g.n_players, g.phase, hidden_pending(g)) for g in POSITIONS}
    for phase in HIDDEN_PHASES:
        assert any(ph == phase and h for _, ph, h in tags), phase
    for n in (2, 3, 4, 5):
        assert (n, "card", True) in tags
        assert {g.day for g in POSITIONS if g.n_players == n} == {0, 1, 2}
    assert any(knows_something(g) for g in POSITIONS)
    assert sum(g.day == 2 and g.phase in ("place", "window") for g in POSITIONS) >= 4
    for phase in ("scrap-pick", "token-pick", "place", "window", "scrap-at"):
        assert any(g.phase == phase for g in POSITIONS), phase


def stats(result):
    return [(m.move, m.visits) for m in result.stats]


@pytest.mark.parametrize("g", POSITIONS, ids=pid)
def test_a_state_from_the_view_shows_the_same_view_and_searches_the_same(g):
    me = g.to_move
    view = g.to_json(view=me)
    st = Kilim.from_view(json.loads(json.dumps(view)))
    st.check_invariants()
    assert st.to_json(view=me) == view
    assert st.legal_moves() == g.legal_moves()
    for mode in ("so", "mo"):
        a = search(g, iterations=500, seed=11, mode=mode)
        b = search(st, iterations=500, seed=11, mode=mode)
        assert stats(a) == stats(b) and a.move == b.move and a.nodes == b.nodes, mode
    # a determinization uses only the view: the real state and the one built give one world
    for seed in (1, 2):
        x = g.determinized(me, seed).to_json()
        y = st.determinized(me, seed).to_json()
        del x["seed"], y["seed"]
        assert x == y


def scrap_kept(letter):
    """Seat 0 searched the bag and keeps `letter`; the turn is over and seat 0 is to move."""
    g = Kilim(3, 2)
    for t in ("scrap-bag", "gold-3", "gold-2", "gold-4", f"scrap-{letter}"):
        g.apply(g.parse_move(t))
    while g.phase != "card":
        g.apply(g.legal_moves()[0])
    assert g.to_move == 0
    return g


def test_the_seats_private_hash_depends_on_its_private_parts_only():
    g = Kilim(3, 4)
    g.apply(g.parse_move("gold-7"))
    h = Kilim(3, 4)
    h.apply(h.parse_move("gold-8"))
    # seat 1 cannot tell the two apart: same view, same keys
    assert g.to_json(view=1) == h.to_json(view=1)
    c, d = Kilim.from_view(g.to_json(view=1)), Kilim.from_view(h.to_json(view=1))
    for mode in ("so", "mo"):
        assert c.info_key(1, 1, mode) == d.info_key(1, 1, mode)
    # seat 0 can tell apart two positions that differ in its face-down scrap: its keys differ
    g, h = scrap_kept("D"), scrap_kept("A")
    assert g.to_json(view=1) == h.to_json(view=1)
    a, b = Kilim.from_view(g.to_json(view=0)), Kilim.from_view(h.to_json(view=0))
    assert a.info_key(0, 0) != b.info_key(0, 0)


# ---------------------------------------------------------------- nothing hidden in a view
def walk(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, f"{path}.{k}")
            yield f"{path}.{k}", k
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from walk(v, f"{path}[{i}]")
    else:
        yield path, obj


def domino_or_none(x):
    try:
        return parse_domino(x)
    except (ValueError, TypeError, AttributeError):
        return None


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_view_never_holds_the_seed_a_pile_or_a_hidden_scrap_or_choice(players):
    g = Kilim(players, 77 + players)
    rng = random.Random(players)
    checked = 0
    while not g.is_terminal():
        full = g.to_json()
        in_piles = {t for pile in full["piles"] for t in pile}
        for seat in range(players):
            view = g.to_json(view=seat)
            keys = {k for _, k in walk(view) if isinstance(k, str)}
            assert not keys & {"seed", "piles", "scraps_on_board"}
            # no unrevealed domino is named anywhere
            named = {x for _, x in walk(view) if isinstance(x, str) and domino_or_none(x) is not None}
            assert not named & in_piles, named & in_piles
            for p, ps in enumerate(view["player_state"]):
                if p == seat:
                    assert ps["scraps_held"] == full["player_state"][p]["scraps_held"]
                    continue
                assert "scraps_held" not in ps
                if ps["has_chosen"]:                        # a face-down choice stays face down
                    if g.phase == "card":
                        assert ps["choice"] is None
                    assert (ps["spy_bid"], ps["scrap_bid"], ps["artisan_bid"]) == (0, 0, 0) \
                        or g.phase not in HIDDEN_PHASES[1:]
            # the view is a function of what the seat knows: indistinguishable worlds, one view
            for s in (5, 6):
                twin = g.determinized(seat, s)
                assert twin.to_json(view=seat) == view
            checked += 1
        g.apply(rng.choice(g.legal_moves()))
    assert checked > 100


def test_hidden_scraps_are_only_named_as_whereabouts():
    g = Kilim(3, 2)
    for t in ("scrap-bag", "gold-3", "gold-2", "gold-4", "scrap-D"):   # P0 keeps D face down
        g.apply(g.parse_move(t))
    for seat in (1, 2):
        view = g.to_json(view=seat)
        knowledge = ("scrap_whereabouts", "scrap_groups")
        text = json.dumps({k: x for k, x in view.items() if k not in knowledge})
        assert '"D"' not in text
        assert set(view["scrap_whereabouts"]) == set("ABCDE")
        assert view["player_state"][0]["scraps_held_count"] == 1
        # the seat never looked at the board: of the five it saw there, P0 took one
        assert view["scrap_groups"] == [{"scraps": list("ABCDE"), "held": [1, 0, 0], "board": 4}]
    assert g.to_json(view=0)["player_state"][0]["scraps_held"] == ["D"]
    assert "D" not in g.to_json(view=0)["scrap_whereabouts"]


# ---------------------------------------------------------------- bad views
def base_view():
    """Seat 0's view as it chooses its card on the second turn: it keeps scrap D face down."""
    return scrap_kept("D").to_json(view=0)


BAD = {
    "missing field": edit(["torn_seen"], DELETE),           # a required one (pile_counts is derived)
    "missing player field": edit(["player_state", 1, "hand"], DELETE),
    "scrap in two places": edit(["scraps_out"], ["D"]),
    "bad scrap letter": edit(["player_state", 0, "scraps_held"], ["X"]),
    "scrap counts do not add up": edit(["player_state", 1, "scraps_held_count"], 2),
    "board count off": edit(["scraps_on_board_count"], 5),
    "scrap can be nowhere": edit(["scrap_whereabouts", "A"], []),
    "scrap with the seat itself": edit(["scrap_whereabouts", "A"], [0, 1, 2, "board"]),
    "seen scrap listed": edit(["scrap_whereabouts", "D"], [1]),
    "whereabouts fit no placement": lambda v: v["scrap_whereabouts"].update(
        {t: [1] for t in v["scrap_whereabouts"]}),          # seat 1 holds no scrap
    "pile count too large": edit(["pile_counts", 0], 15),
    "past pile not empty": lambda v: (v.__setitem__("day", 1), v["pile_counts"].__setitem__(0, 3)),
    "torn seen above torn in": edit(["torn_seen", 1], 2),
    "torn in wrong": edit(["torn_in", 2], 3),
    "card twice in a hand": lambda v: v["player_state"][1]["hand"].append(v["player_state"][1]["hand"][0]),
    "card from the duel": lambda v: v["player_state"][1]["hand"].append("gold-16"),
    "unknown card": lambda v: v["player_state"][1]["hand"].append("joker"),
    "score changed": edit(["player_state", 2, "score"], 99),
    "has_chosen wrong": edit(["player_state", 2, "has_chosen"], True),
    "revealed twice": lambda v: v["revealed"].append(v["revealed"][0]),
    "domino on the table unknown": edit(["on_table"], "9ZZ"),
    "too many carried dominoes": edit(["pending"], ["1AA"] * 40),
    "too many to place": edit(["to_place"], ["1AB"] * 40),
    "placer out of range": edit(["placer"], 17),
    "winner out of range": edit(["winner"], -5),
    "win value out of range": edit(["win_value"], 1000),
    "step out of range": edit(["step"], 99),
    "huge number": edit(["turn"], 10 ** 40),
    "float number": edit(["day"], 0.5),
    "token holder out of range": edit(["tokens", 0, "holder"], 4),
    "tokens missing": lambda v: v["tokens"].pop(),
    "scrap in hand outside its phase": edit(["scrap_in_hand"], ["A", 1]),
    "placing outside its phase": edit(["placing"], {"source": "won", "halves": "AB", "direction": -1}),
    "kilim domino off the grid": edit(["player_state", 1, "kilim", "dominoes"], [[500, 0, "h", "AB"]]),
    "kilim overlap": edit(["player_state", 1, "kilim", "dominoes"], [[0, 0, "h", "AB"], [0, 0, "v", "AC"]]),
    "kilim not revealed": edit(["player_state", 1, "kilim", "dominoes"], [[0, 0, "h", "AB"]]),
    "a bid of a public seat": edit(["player_state", 1, "spy_bid"], 99),
    "list instead of object": edit(["player_state", 1], [1, 2]),
    "string instead of list": edit(["revealed"], "1AB"),
    "perfect carpets from nowhere": edit(["player_state", 1, "perfect_held"], 2),
}


BAD.update({
    "a Gold card missing from a hand": lambda v: v["player_state"][1]["hand"].remove("gold-9"),
    "a used Gold card back in a hand": lambda v: v["player_state"][0]["hand"].append("gold-4"),
    "an empty hand": edit(["player_state", 2, "hand"], []),
    "a later day": edit(["day"], 1),
    "a domino of a later day on the table": edit(["on_table"], "3AB"),
})


def view_in_phase(phase, players=3, seed=8, pending=False):
    """The view of the seat to move at the first position of `phase` in a random game (with a
    face-down choice of another seat pending if asked)."""
    for game in range(40):
        g = Kilim(players, seed + game)
        rng = random.Random(game)
        while not g.is_terminal():
            if g.phase == phase and (not pending or hidden_pending(g)):
                return g.to_json(view=g.to_move)
            g.apply(rng.choice(g.legal_moves()))
    raise AssertionError(f"no {phase} position found")


IN_PHASE = {
    "placing another domino than the one won": ("place", lambda v: v["placing"].update(halves="PP")),
    "placing with a direction": ("place", lambda v: v["placing"].update(direction=1)),
    "no domino being placed": ("place", edit(["placing"], None)),
    "step of another phase": ("spy", edit(["step"], 5)),
    "offer out of turn": ("spy", edit(["to_move"], 0)),
    "a public offer while still face down": ("spy", lambda v: v["player_state"][
        next(p for p, ps in enumerate(v["player_state"]) if ps["has_chosen"])].update(spy_bid=3)),
    "a revealed card still in hand": ("window", lambda v: v["player_state"][0]["hand"].append(
        v["player_state"][0]["choice"])),
    "the window of a seat that is not to move": ("window", lambda v: v.update(
        seat_iter=(v["seat_iter"] + 1) % v["players"])),
    "a domino on the table after the auction": ("window", edit(["on_table"], "1AB")),
    "no scrap in hand while placing one": ("scrap-at", edit(["scrap_in_hand"], None)),
}


# each damage with the view it is done to: seat 0's on its second turn, or the first view of a
# phase in a random game
DAMAGED = {**{name: (base_view, change) for name, change in BAD.items()},
           **{name: (lambda phase=phase: view_in_phase(phase, pending=phase == "spy"), change)
              for name, (phase, change) in IN_PHASE.items()}}


@pytest.mark.parametrize("name", list(DAMAGED))
def test_a_bad_view_is_a_value_error(name):
    view_of, change = DAMAGED[name]
    check_damage_refused(Kilim, view_of(), change)


# ---------------------------------------------------------------- the hint API
def test_suggest_from_a_kilim_view_equals_suggest_from_the_state():
    g = new_game("kilim", 4, 3)
    rng = random.Random(2)
    for _ in range(9):
        g.apply(rng.choice(g.legal_moves()))
    view = g.to_json(view=g.to_move)
    a = suggest(g, 600, 5, seed=4)
    b = suggest(view, 600, 5, seed=4)
    c = suggest(json.dumps(view), 600, 5, seed=4, mode="mo")
    d = suggest(g, 600, 5, seed=4, mode="mo")
    assert [(m.text, m.visits) for m in a.moves] == [(m.text, m.visits) for m in b.moves]
    assert [(m.text, m.visits) for m in c.moves] == [(m.text, m.visits) for m in d.moves]


# ---------------------------------------------------------------- through the protocol
@pytest.mark.parametrize("players", [2, 3])
def test_full_game_from_views(engine, players):
    """The client keeps the table and only ever tells the engine what the seat to move knows."""
    assert play_from_views(engine, new_game("kilim", players, 23)) > 50


def test_full_game_from_the_seed_form(engine):
    play_from_the_seed_form(engine, "kilim", 2, 11, max_moves=600)


def test_view_and_seed_forms_give_the_same_search(engine):
    check_view_and_seed_forms_search_alike(engine, "kilim", 3, 5, random_moves=14, rng_seed=3,
                                           modes=("so", "mo"))


def test_a_bad_view_is_one_error_line_and_changes_nothing(engine):
    v = base_view()
    engine.send("position kilim view " + json.dumps(v))
    legal = engine.ask("legal", "legal")
    bad = copy.deepcopy(v)
    bad["scraps_out"] = ["D"]
    for line in ("position kilim view " + json.dumps(bad),
                 "position kilim view " + json.dumps(dict(v, seed=3)),
                 'position kilim view {"game": "kilim", "view": 0}',
                 "position kilim view " + json.dumps(dict(v, game="khiva"))):
        engine.send(line)
        answer = engine.read()
        assert answer.startswith("info string error"), answer
        assert engine.no_output()
    assert engine.ask("legal", "legal") == legal


def test_the_documented_example_is_what_the_code_produces():
    import pathlib
    doc = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "views" / "kilim.md").read_text()
    line = next(l for l in doc.splitlines() if l.startswith('{"game": "kilim"'))
    g = Kilim(3, 2)
    for t in ("scrap-bag", "gold-3", "gold-2", "gold-4", "scrap-D"):
        g.apply(g.parse_move(t))
    while g.phase != "card":
        g.apply(g.legal_moves()[0])
    g.apply(g.parse_move("gold-5"))
    assert json.loads(line) == g.to_json(view=1)
    assert line == json.dumps(g.to_json(view=1))
    st = Kilim.from_view(json.loads(line))
    assert st.legal_moves() == g.legal_moves()
