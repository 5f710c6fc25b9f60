"""Kilim: what a seat knows of the scraps it cannot see is exactly what it saw, no more, no less.

A seat sees the board when it wins the Scrap Bag, sees its own picks, and sees a scrap when its
holder weaves it; it sees another seat take a scrap, but not which. The engine keeps this as
whereabouts (where each scrap may be) and groups (how many of a set of scraps each place holds,
docs/rules/kilim.md, Information). Here an independent tracker follows every seat's belief as
the set of every placement of the five scraps consistent with what it saw, and the placements
the engine's knowledge allows must be that very set, for every seat after every move of random
games that search and weave often. Whereabouts alone allow more (seat 1 in
test_counts_keep_two_takes_apart: a third of its worlds gave one seat both A and B)."""
from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Dict, FrozenSet, Iterator, List, Tuple

import pytest

from engine.games.kilim import SCRAP_LETTERS, Kilim
from engine.validation import IllegalPositionError
from kilim_support import play, window

BOARD, PUBLIC = "board", "public"
Placement = Tuple[object, ...]      # for each scrap: a seat holding it, BOARD, or PUBLIC


def true_places(d: dict) -> Placement:
    """Each scrap's place in a full state: the seat holding it face down, the board, or PUBLIC
    (woven, out of the game, in hand: every seat sees it)."""
    where: Dict[str, object] = {x: PUBLIC for x in SCRAP_LETTERS}
    for x in d["scraps_on_board"]:
        where[x] = BOARD
    for p, ps in enumerate(d["player_state"]):
        for x in ps["scraps_held"]:
            where[x] = p
    return tuple(where[x] for x in SCRAP_LETTERS)


class Beliefs:
    """Every seat's set of placements consistent with what it has seen, from the deal on."""

    def __init__(self, players: int) -> None:
        start = (BOARD,) * len(SCRAP_LETTERS)
        self.sets: List[set] = [{start} for _ in range(players)]

    def pick(self, seat: int, scrap: int) -> None:
        """`seat` keeps `scrap` from the board: it knows which, the others only that it took one."""
        for o, s in enumerate(self.sets):
            if o == seat:
                self.sets[o] = {a[:scrap] + (seat,) + a[scrap + 1:] for a in s if a[scrap] == BOARD}
            else:
                self.sets[o] = {a[:u] + (seat,) + a[u + 1:] for a in s
                                for u in range(len(a)) if a[u] == BOARD}

    def look(self, seat: int, board: FrozenSet[int]) -> None:
        """`seat` sees which scraps are on the board."""
        self.sets[seat] = {a for a in self.sets[seat]
                           if {u for u in range(len(a)) if a[u] == BOARD} == board}

    def show(self, truth: Placement) -> None:
        """Every scrap now public was where the truth had it: each seat drops what contradicts."""
        for o, s in enumerate(self.sets):
            kept = set()
            for a in s:
                b = list(a)
                for u, place in enumerate(truth):
                    if place == PUBLIC and a[u] != PUBLIC:
                        b[u] = PUBLIC
                kept.add(tuple(b))
            self.sets[o] = kept

    def reveal(self, seat: int, scrap: int) -> None:
        """`seat` weaves `scrap`, which it held: everyone sees it."""
        for o, s in enumerate(self.sets):
            self.sets[o] = {a[:scrap] + (PUBLIC,) + a[scrap + 1:] for a in s if a[scrap] == seat}


def engine_set(g: Kilim, o: int, groups: bool = True) -> set:
    """The placements seat o's view allows: each unseen scrap within its whereabouts, each seat
    and the board holding as many as they do, each group (unless `groups` is False) its counts."""
    v = g.to_json(view=o)
    n = v["players"]
    known: Dict[str, object] = {x: PUBLIC for x in SCRAP_LETTERS}
    for x in v["player_state"][o]["scraps_held"]:
        known[x] = o
    unseen = sorted(v["scrap_whereabouts"])
    slots = [p for p in range(n) if p != o
             for _ in range(v["player_state"][p]["scraps_held_count"])]
    slots += [BOARD] * v["scraps_on_board_count"]
    out = set()
    for order in set(itertools.permutations(slots)):
        placed = dict(zip(unseen, order))
        if any(placed[x] not in v["scrap_whereabouts"][x] for x in unseen):
            continue
        if groups and any(Counter(placed[x] for x in gr["scraps"]) != counts(gr)
                          for gr in v["scrap_groups"]):
            continue
        out.add(tuple(placed.get(x, known[x]) for x in SCRAP_LETTERS))
    return out


def counts(group: dict) -> Counter:
    c = Counter({q: k for q, k in enumerate(group["held"]) if k})
    if group["board"]:
        c[BOARD] = group["board"]
    return c


def scrap_heavy_game(players: int, seed: int, weave: float) -> Iterator[Tuple[Kilim, Beliefs]]:
    """A random game whose seats play the Scrap Bag when they can and weave a held scrap with
    probability `weave` when they may: the game and the beliefs after every move."""
    rng = random.Random(seed)
    g = Kilim(players, seed)
    beliefs = Beliefs(players)
    while g.phase != "over":
        texts = [g.move_to_text(m) for m in g.legal_moves()]
        seat, phase = g.to_move, g.phase
        if phase == "card" and "scrap-bag" in texts and rng.random() < 0.8:
            move = "scrap-bag"
        elif phase == "window" and rng.random() < weave and any(t.startswith("weave-scrap-") for t in texts):
            move = rng.choice([t for t in texts if t.startswith("weave-scrap-")])
        else:
            move = rng.choice([t for t in texts if not t.startswith("weave-scrap-")] or texts)
        play(g, move)
        if phase == "scrap-pick":
            beliefs.pick(seat, SCRAP_LETTERS.index(move[len("scrap-"):]))
        elif move.startswith("weave-scrap-"):
            beliefs.reveal(seat, SCRAP_LETTERS.index(move[len("weave-scrap-"):]))
        truth = true_places(g.to_json())
        beliefs.show(truth)
        if g.phase == "scrap-pick":                 # the winner looks before it picks
            beliefs.look(g.to_move, frozenset(u for u, p in enumerate(truth) if p == BOARD))
        yield g, beliefs


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_seat_knows_exactly_what_it_saw(players):
    """After every move of 6 games a player count (3 weaving rarely, 3 often), each seat's view
    allows exactly the placements its belief holds. (Counts that rule out more than the
    whereabouts do are rare in such games: none in 60 at each of 3-5 players. The games below
    build them.)"""
    checks = 0
    for seed in range(6):
        for g, beliefs in scrap_heavy_game(players, 9100 + seed, weave=0.02 if seed < 3 else 0.3):
            for o in range(players):
                allowed = engine_set(g, o)
                assert allowed == beliefs.sets[o], (seed, g.turn, o)
                checks += 1
    assert checks > 1000


def test_counts_keep_two_takes_apart():
    """The audit's game: seat 1 searched after seat 0 took A and seat 2 took B; later seats 0 and
    2 each took one of D and E, which seat 1 had seen on the board. Its worlds give each of them
    one of A, B and one of D, E, the four ways equally often; never A and B together (a third
    of the worlds did with whereabouts alone)."""
    g = Kilim(3, 11)
    for seat, scrap in ((0, "A"), (2, "B"), (1, "C")):
        search(g, seat, scrap)
    while g.day == 0:
        play(g, *[first_gold(g, p) for p in range(3)])
        finish_turn(g)
    search(g, 0, "D")
    search(g, 2, "E")
    v = g.to_json(view=1)
    assert v["scrap_whereabouts"] == {x: [0, 2] for x in "ABDE"}
    assert v["scrap_groups"] == [{"scraps": ["A", "B"], "held": [1, 0, 1], "board": 0},
                                 {"scraps": ["D", "E"], "held": [1, 0, 1], "board": 0}]
    held = Counter(tuple(g.determinized(1, seed).to_json()["player_state"][0]["scraps_held"])
                   for seed in range(800))
    assert set(held) == {("A", "D"), ("A", "E"), ("B", "D"), ("B", "E")}
    assert all(abs(k / 800 - 0.25) < 0.06 for k in held.values()), held


def first_gold(g: Kilim, p: int) -> str:
    return next(c for c in g.to_json()["player_state"][p]["hand"] if c.startswith("gold"))


def finish_turn(g: Kilim) -> None:
    """The rest of the turn by each seat's first legal move (passing its windows)."""
    while g.phase != "card":
        play(g, g.move_to_text(g.legal_moves()[0]))


def search(g: Kilim, seat: int, scrap: str) -> None:
    """`seat` alone plays the Scrap Bag this turn, the others a Gold card, and keeps `scrap`."""
    play(g, *["scrap-bag" if p == seat else first_gold(g, p) for p in range(g.n_players)])
    play(g, first_gold(g, seat), "scrap-" + scrap)
    finish_turn(g)


def two_groups(edit=None) -> Kilim:
    """Seat 0 in its window on day 3, holding A and D, seat 2 holding B and E, seat 1 C; seat 1
    counted one each of A, B and of D, E with seats 0 and 2 (as in the audit's game)."""
    def ed(d):
        d["whereabouts_by_seat"] = [{}, {x: [0, 2] for x in "ABDE"}, {}]
        d["scrap_groups_by_seat"] = [[], [{"scraps": ["A", "B"], "held": [1, 0, 1], "board": 0},
                                          {"scraps": ["D", "E"], "held": [1, 0, 1], "board": 0}], []]
        for o in (0, 2):
            unseen = [x for x in "ABCDE" if x not in d["player_state"][o]["scraps_held"]]
            d["scrap_groups_by_seat"][o] = [{"scraps": unseen, "held": [
                sum(x in d["player_state"][p]["scraps_held"] for x in unseen) for p in range(3)],
                "board": 0}]
        if edit:
            edit(d)
    return window(3, kilims={0: {"dominoes": [[0, 0, "h", "AX"]]}},
                  scraps_held={0: ["A", "D"], 1: ["C"], 2: ["B", "E"]}, edit=ed)


def test_a_woven_scrap_tells_where_the_rest_of_its_group_is():
    g = two_groups()
    assert g.to_json(view=1)["scrap_groups"][0] == {"scraps": ["A", "B"], "held": [1, 0, 1], "board": 0}
    play(g, "weave-scrap-A")                         # seat 0 shows A: B is with seat 2
    v = g.to_json(view=1)
    assert v["scrap_whereabouts"] == {"B": [2], "D": [0, 2], "E": [0, 2]}
    assert v["scrap_groups"] == [{"scraps": ["B"], "held": [0, 0, 1], "board": 0},
                                 {"scraps": ["D", "E"], "held": [1, 0, 1], "board": 0}]
    for seed in range(100):
        d = g.determinized(1, seed).to_json()
        assert "B" in d["player_state"][2]["scraps_held"]
        assert len({*d["player_state"][0]["scraps_held"]} & {"D", "E"}) == 1
    again = Kilim._from_any_seats_view(v)            # the view carries the counts
    assert again.to_json(view=1)["scrap_groups"] == v["scrap_groups"]


def set_groups(seat, groups):
    def edit(d):
        d["scrap_groups_by_seat"][seat] = groups
    return edit


@pytest.mark.parametrize("groups, fragment", [
    ([{"scraps": ["A", "D"], "held": [2, 0, 0], "board": 0}, {"scraps": ["B", "E"], "held": [0, 0, 2], "board": 0}],
     None),                                          # true: accepted
    ([{"scraps": ["A", "B"], "held": [2, 0, 0], "board": 0}], "are not where they are"),
    ([{"scraps": ["A", "B"], "held": [1, 0, 1], "board": 0}, {"scraps": ["B"], "held": [0, 0, 1], "board": 0}],
     "scrap B is in two groups"),
    ([{"scraps": ["C"], "held": [0, 1, 0], "board": 0}], "seat 1 sees scrap C"),
    ([{"scraps": ["A", "B"], "held": [1, 1, 0], "board": 0}], "seat 1 sees its own scraps"),
    ([{"scraps": ["A", "B"], "held": [1, 0, 0], "board": 0}], "the counts add up to 1"),
    ([{"scraps": ["A", "B"], "held": [1, 0, 1, 0], "board": 0}], "a count for each of the 3 seats"),
])
def test_the_loader_checks_a_seats_counts(groups, fragment):
    edit = set_groups(1, groups)
    if fragment is None:
        two_groups(edit)
        return
    with pytest.raises(IllegalPositionError, match=fragment):
        two_groups(edit)


def test_the_scraps_a_seat_may_think_on_the_board_are_counted_together():
    """A take from the board moves one of the group that holds the board's scraps: with two
    such groups, which one it came from would be unknown."""
    g = Kilim(3, 4)
    d = g.to_json()
    d["scrap_groups_by_seat"][1] = [{"scraps": ["A", "B"], "held": [0, 0, 0], "board": 2},
                                    {"scraps": ["C", "D", "E"], "held": [0, 0, 0], "board": 3}]
    with pytest.raises(IllegalPositionError, match="may think on the board are in one group"):
        Kilim.from_json(d)
    v = g.to_json(view=0)
    v["scrap_groups"] = [{"scraps": ["A", "B"], "held": [0, 0, 0], "board": 2}]
    with pytest.raises(IllegalPositionError, match="may think on the board are in one group"):
        Kilim.from_view(v)


def test_a_view_without_counts_loads_with_the_counts_every_seat_knows():
    g = two_groups()
    v = g.to_json(view=1)
    del v["scrap_groups"]
    st = Kilim._from_any_seats_view(v)
    assert st.to_json(view=1)["scrap_groups"] == [
        {"scraps": ["A", "B", "D", "E"], "held": [2, 0, 2], "board": 0}]


def test_counts_that_no_placement_fits_still_deal_every_scrap():
    """The loader refuses such knowledge; set through the raw state, a determinization still
    puts every unseen scrap somewhere, each place keeping its number (no crash, no loop)."""
    g = two_groups()
    f = g._fields()
    f["share"][1][0] = [2, 0, 0, 0, 0, 0]            # {A, B} both with seat 0: it holds A, D
    f["share"][1][1] = [0, 0, 2, 0, 0, 0]            # {D, E} both with seat 2: it holds B, E
    g._set_fields(f)
    for seed in range(20):
        d = g.determinized(1, seed).to_json()
        assert [len(ps["scraps_held"]) for ps in d["player_state"]] == [2, 1, 2]
        assert sorted(x for ps in d["player_state"] for x in ps["scraps_held"]) == list("ABCDE")


def test_a_view_whose_counts_fit_no_placement_is_refused():
    """Seat 0 cannot see B, C, E: seat 1 holds one of them, seat 2 two."""
    v = two_groups().to_json(view=0)
    v["scrap_groups"] = [{"scraps": ["B", "C", "E"], "held": [0, 1, 2], "board": 0}]
    assert Kilim.from_view(v).to_json(view=0)["scrap_groups"] == v["scrap_groups"]
    v["scrap_groups"] = [{"scraps": ["B", "C", "E"], "held": [0, 0, 3], "board": 0}]
    with pytest.raises(IllegalPositionError, match="fits both its whereabouts and its counts"):
        Kilim.from_view(v)


def test_the_board_a_seat_reads_says_what_it_knows_of_the_scraps():
    """`caravan play` shows a seat where each scrap it cannot see may be, and how many of a
    group each place holds where that says more; the whole game's board shows neither."""
    for seed in range(60):
        g, rng = Kilim(4, seed), random.Random(seed)
        while not g.is_terminal():
            v = g.to_json(view=g.to_move)
            spread = [x for x in v.get("scrap_groups") or []
                      if len(x["scraps"]) > 1 and sum(1 for k in x["held"] if k) + (x["board"] > 0) > 1]
            if spread:
                text = g.render(g.to_move)
                letter, places = sorted(v["scrap_whereabouts"].items())[0]
                names = " or ".join("the board" if q == "board" else f"P{q}" for q in places)
                assert f"you know: {letter} with {names}" in text
                assert f"  of {', '.join(spread[0]['scraps'])}: " in text
                assert "you know" not in g.render()
                return
            g.apply(rng.choice(g.legal_moves()))
    raise AssertionError("no seat counted a spread group in 60 games")
