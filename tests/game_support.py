"""Helpers shared by every game's tests: moves in notation, derived fields left out, random
play, search statistics, positions spread over
a game's phases, an agent's win share over seeded games, determinized worlds, edits of JSON
values and their refusal, the inputs that once broke Caravan (tests/regressions/), and the
check that a state loaded from a seat's view sees and searches like the true one. (What a
determinization keeps is engine/conformance.py's check_samples_keep_the_observers_knowledge.)
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, List, Tuple

REGRESSIONS = Path(__file__).resolve().parent / "regressions"   # a copy of ../shared/regressions
# Files there that are a plain view or state rather than {"game", "kind", "data"} (README.md).
PLAIN_REGRESSIONS = {"taschkent-view-short-posts.json": "view",
                     "taschkent-state-empty-kept.json": "json"}


def advance(g, moves: int, seed: int = 0):
    """Play up to `moves` uniformly random moves on g (fewer if the game ends); returns g."""
    rng = random.Random(seed)
    for _ in range(moves):
        if g.is_terminal():
            break
        g.apply(rng.choice(g.legal_moves()))
    return g


def playout_draws(deal, games: int, draws: int = 20):
    """(state, its legal moves, `draws` playout moves) at every position of `games` games
    dealt by deal(k), each walked half by the playout moves themselves and half at random,
    so both kinds of lines are covered; the caller checks each position."""
    for k in range(games):
        g = deal(k)
        rng = random.Random(k)
        while not g.is_terminal():
            legal = set(g.legal_moves())
            choices = g.playout_choices(rng.randrange(1 << 62), draws)
            yield g, legal, choices
            g.apply(choices[0] if rng.random() < 0.5 else rng.choice(sorted(legal)))


def regression_case(name: str) -> Tuple[str, Any]:
    """The kind ("json" for a full state, or "view") and the data of tests/regressions/`name`."""
    raw = json.loads((REGRESSIONS / name).read_text())
    if name in PLAIN_REGRESSIONS:
        return PLAIN_REGRESSIONS[name], raw
    return raw["kind"], raw["data"]


def hero_share(game: str, players: int, games: int, deal: int, hero, others) -> float:
    """The mean reward of hero(i) over `games` games, the i-th dealt from seed deal + i with
    hero(i) in seat i % players (the seats alternate) and others(i)[seat] in every other seat
    (others(i): one agent per seat)."""
    from search.match import play_game

    total = 0.0
    for i in range(games):
        seat = i % players
        agents = others(i)
        agents[seat] = hero(i)
        total += play_game(game, agents, deal + i, players).rewards[seat]
    return total / games


def play(g, *texts: str) -> None:
    """Apply moves given in notation."""
    for t in texts:
        g.apply(g.parse_move(t))


def texts(g) -> List[str]:
    """The legal moves in notation."""
    return [g.move_to_text(m) for m in g.legal_moves()]


def player(g, p: int) -> dict:
    """Seat p's part of the full state."""
    return g.to_json()["player_state"][p]


def strip_derived(d: dict, derived, lists: Tuple[str, ...] = ("player_state",)) -> dict:
    """`d` without the `derived` fields (scores, counts, ...) the loader derives, at the top
    and in every item of `lists`: after an edit they would be stale, and a stale derived
    field is refused."""
    d = {k: v for k, v in d.items() if k not in derived}
    for key in lists:
        d[key] = [{k: v for k, v in item.items() if k not in derived} for item in d[key]]
    return d


def check_playouts_read_only_the_movers_information(positions, choice_seed: int) -> None:
    """At each position (states not over), the playout draws are the same in five
    determinizations for the player to move as in the true state; at least two positions
    must have determinizations that differ, or the check would have tested nothing."""
    differing = 0
    for g in positions:
        me = g.to_move
        sampled = [g.determinized(me, s) for s in range(5)]
        assert all(w.to_move == me for w in sampled)
        if len({json.dumps(w.to_json(), sort_keys=True) for w in sampled}) > 1:
            differing += 1
        expected = g.playout_choices(choice_seed, 200)
        assert all(w.playout_choices(choice_seed, 200) == expected for w in sampled)
    assert differing >= 2, differing


def worlds(g, observer: int, samples: int):
    """The full states (JSON) of g.determinized(observer, seed) for the seeds 0 to samples - 1."""
    for seed in range(samples):
        yield g.determinized(observer, seed).to_json()


def first_position(cls, players: int, wanted, games: int = 300) -> dict:
    """The first position (as to_json gives it) of seeded random games of `cls` for which
    `wanted` holds."""
    import pytest

    rng = random.Random(players)
    for _ in range(games):
        g = cls(players, rng.randrange(1 << 30))
        while not g.is_terminal():
            d = g.to_json()
            if wanted(d):
                return d
            g.apply(rng.choice(g.legal_moves()))
    pytest.fail("no such position in the games played")


def refused(load, data: Any, *fragments: str, error: type = ValueError) -> BaseException:
    """load(data) raises `error` with every fragment in its message; the error."""
    import pytest

    with pytest.raises(error) as e:
        load(data)
    for f in fragments:
        assert f in str(e.value), str(e.value)
    return e.value


def check_damage_refused(cls, view: dict, change) -> None:
    """`view` loads into a state that shows it again; after change(view), the game's
    from_view and the registry's refuse it with a ValueError."""
    import copy

    from engine.registry import from_view

    assert cls.from_view(copy.deepcopy(view)).to_json(view=view["view"]) == view
    change(view)
    for load in (cls.from_view, from_view):
        refused(load, view)


DELETE = object()          # edit's value that deletes the key


def edit(path: list, value: Any):
    """An edit of a JSON value (for tables of damaged views and states): set the value at
    `path`, or delete it if `value` is DELETE."""
    def change(obj: Any) -> None:
        for step in path[:-1]:
            obj = obj[step]
        if value is DELETE:
            del obj[path[-1]]
        else:
            obj[path[-1]] = value
    return change


def json_keys(obj: Any, path: str = ""):
    """Every (path, key) of a JSON value: the keys of every object in it, with where it is."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield path, k
            yield from json_keys(v, f"{path}/{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from json_keys(v, f"{path}/{i}")


def stats_of(result) -> list:
    """A search result's root statistics, comparable with ==."""
    return [(s.move, s.visits, round(s.mean_reward, 9), s.availability, s.line)
            for s in result.stats]


def spread_over_phases(positions: list) -> list:
    """From a game's positions in order, the first, middle and last of every phase."""
    by_phase: dict = {}
    for i, g in enumerate(positions):
        by_phase.setdefault(g.phase, []).append(i)
    picked: List = []
    for ph in sorted(by_phase):
        idx = by_phase[ph]
        for j in sorted({idx[0], idx[len(idx) // 2], idx[-1]}):
            picked.append(positions[j])
    return picked


def rebuild_any_seat(cls):
    """A loader of any seat's view for the checks below: from_view for the seat to move (or a
    finished game); for another seat, from_view's refusal first, then the same path without
    the seat-to-move rule (`_from_any_seats_view`, which no door of the engine uses)."""
    import copy

    import pytest

    from engine.validation import IllegalPositionError

    def rebuild(view):
        if view["phase"] == "over" or view["view"] == view["to_move"]:
            return cls.from_view(view)
        with pytest.raises(IllegalPositionError, match=r"^view: .* is to move"):
            cls.from_view(copy.deepcopy(view))
        return cls._from_any_seats_view(view)
    return rebuild


def check_a_view_rebuilds_each_seats_world(g, from_view) -> None:
    """For every seat: `from_view` (the game's loader) turns the seat's view, sent through
    JSON, into a valid state with the same view, the same determinizations (no seed in a
    view) and the same keys in them; and a search from the rebuilt view of the seat to move
    goes exactly like a search from the true position."""
    import json

    from search import search

    for seat in range(g.n_players):
        view = g.to_json(view=seat)
        st = from_view(json.loads(json.dumps(view)))
        st.check_invariants()
        assert st.to_json(view=seat) == view
        for s in (1, 2):
            a, b = g.determinized(seat, s).to_json(), st.determinized(seat, s).to_json()
            a.pop("seed"), b.pop("seed")
            assert a == b
            d = st.determinized(seat, s)
            for mode in ("so", "mo"):
                assert d.info_key(seat, seat, mode) == st.info_key(seat, seat, mode)
            for p in range(g.n_players):
                assert d.info_key(p, seat, "so") == st.info_key(p, seat, "so")
    if g.is_terminal():
        return                                   # nobody to search for
    st = from_view(g.to_json(view=g.to_move))
    for mode in ("so", "mo"):
        for seed in (3, 4):
            a = search(g, iterations=500, seed=seed, mode=mode)
            b = search(st, iterations=500, seed=seed, mode=mode)
            assert stats_of(a) == stats_of(b) and a.move == b.move
            assert a.nodes == b.nodes
