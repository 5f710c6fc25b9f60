"""Every game of the registry, at every player count, passes the conformance suite
(engine/conformance.py): random games to the end with the invariants after every move, legal
moves, the narration log, illegal moves, notation, clones, JSON and pickle round trips, views,
determinizations, replays and scoring. What is particular to a game is data below: the end it
must reach, the move bound of its core, and the coverage a run must reach (every kind of move
played, every phase checked deeply).

A longer run: CARAVAN_CONFORMANCE_GAMES=2000 .venv/bin/pytest tests/test_conformance.py
(random games per player count; CARAVAN_CONFORMANCE_DEEP: how many of them get every check).
Also here, for the games with hidden parts: a search cannot tell apart two states its player
cannot tell apart (the search is a layer above the games, so it is not in the suite itself;
that a state loaded from a view searches like the true one is in each game's view tests).
"""
from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet

import pytest

from cext import khan as khan_core
from cext import khiva as khiva_core
from cext import kilim as kilim_core
from cext import taschkent as taschkent_core
from engine.conformance import CHECKS, MAX_MOVES, ConformanceReport, _keys_read, check_game
from engine.registry import GAMES
from game_support import advance, stats_of
from search import search

GAMES_PER_COUNT = int(os.environ.get("CARAVAN_CONFORMANCE_GAMES", "0"))   # 0: each game's own
DEEP_GAMES = int(os.environ.get("CARAVAN_CONFORMANCE_DEEP", "2"))


# ---------------------------------------------------------------- what each game must reach
def khiva_end(g) -> None:
    d = g.to_json()
    assert d["teapot_pile_count"] == 0 or d["carpet_pile_count"] == 0 or d["salt_pile"] == [], \
        "the game ended with teapots, carpets and salt left"


def khan_end(g) -> None:
    assert all(e["count"] == 0 for e in g.to_json()["decks"]), "the game ended with cards left"


def kilim_end(g) -> None:
    d = g.to_json()
    assert d["day"] == 3 and d["pile_counts"] == [0, 0, 0], "the game ended before its 3 days"


def taschkent_end(g) -> int:
    d = g.to_json()
    assert d["end_triggered"] or d["last_card_taken"], "the game ended without a reason"
    assert g.trading_rounds < 30, "the safety limit was reached"
    eliminated = g.eliminated_players()
    assert all(g.rewards()[p] == 0 for p in eliminated), "an eliminated seat has a reward"
    assert g.n_players > 2 or eliminated == [], "a seat was eliminated in a 2-player game"
    return g.trading_rounds                       # the cycles: games must differ in length


@dataclass(frozen=True)
class Spec:
    """What a game's run must do beyond the suite: `games` per player count (unless
    CARAVAN_CONFORMANCE_GAMES says otherwise) and `every` (the spacing of the deep checks),
    sized so every kind of move turns up; its core's move bound; a check at every end; the
    shortest game a player count may have; the kinds of move that must be played and the
    phases that must be checked deeply (over every player count); `covered(merged,
    reports)`, any other assertion on the reports (merged, and one per player count);
    `public_moves`, whether the legal moves never depend on hidden information."""

    games: int
    every: int
    bound: int
    on_end: Callable[[Any], Any]
    shortest: Callable[[int], int]
    kinds: FrozenSet[str]
    deep_phases: FrozenSet[str]
    covered: Callable[[ConformanceReport, list], None] = lambda merged, counts: None
    public_moves: bool = False


def khan_covered(report: ConformanceReport, counts) -> None:
    assert report.most_moves >= 18, f"at most {report.most_moves} legal moves"


def kilim_covered(report: ConformanceReport, counts) -> None:
    most = report.most_moves_by_phase
    assert most["card"] == 18 and most["spy"] == 15 and most["scrap-pick"] == 5, most


def taschkent_covered(report: ConformanceReport, counts) -> None:
    for r in counts:
        assert max(r.end_notes) > min(r.end_notes), f"{r.players}: every game had as many cycles"


SPECS: Dict[str, Spec] = {
    "khiva": Spec(games=250, every=10, bound=khiva_core.MOST_MOVES, on_end=khiva_end,
                  shortest=lambda n: 11, kinds=frozenset({"play", "boost", "salt", "carpet"}),
                  deep_phases=frozenset({"choose", "boost", "shop4", "over"})),
    "khan": Spec(games=250, every=12, bound=khan_core.MOST_MOVES, on_end=khan_end,
                 shortest=lambda n: 80 // n,
                 kinds=frozenset({"raid", "corral", "keep", "steal", "bless", "observant", "reveal",
                                  "take", "sneak", "stop"}),
                 deep_phases=frozenset({"main", "blessing", "reveal", "pick", "over"}),
                 covered=khan_covered, public_moves=True),
    "kilim": Spec(games=60, every=40, bound=kilim_core.MOST_MOVES, on_end=kilim_end,
                  shortest=lambda n: 31,
                  kinds=frozenset({"gold", "spy", "scrap", "artisan", "place", "weave", "take",
                                   "move", "rotate", "remove", "token", "done"}),
                  deep_phases=frozenset({"card", "spy", "scrap-bid", "artisan-bid", "scrap-pick",
                                         "token-pick", "place", "window", "scrap-at", "over"}),
                  covered=kilim_covered),
    "taschkent": Spec(games=250, every=10, bound=taschkent_core.MOST_MOVES, on_end=taschkent_end,
                      shortest=lambda n: 11,
                      kinds=frozenset({"move", "hut", "no", "end", "tugrik", "card", "post",
                                       "sell", "pass"}),
                      deep_phases=frozenset({"action", "move2", "end", "sell", "over"}),
                      covered=taschkent_covered),
}
DEFAULT = Spec(games=10, every=10, bound=MAX_MOVES, on_end=lambda g: None,
               shortest=lambda n: 1, kinds=frozenset(), deep_phases=frozenset())

def spec_of(game: str) -> Spec:
    return SPECS.get(game, DEFAULT)


@functools.lru_cache(maxsize=None)
def report_of(game: str, players: int) -> ConformanceReport:
    spec = spec_of(game)
    return check_game(GAMES[game].cls, players, games=GAMES_PER_COUNT or spec.games,
                      deep_games=min(DEEP_GAMES, GAMES_PER_COUNT or spec.games),
                      every=spec.every, move_bound=spec.bound, on_end=spec.on_end,
                      public_moves=spec.public_moves)


COUNTS = [(game, n) for game in sorted(GAMES)
          for n in range(GAMES[game].min_players, GAMES[game].max_players + 1)]


@pytest.mark.parametrize("game,players", COUNTS, ids=[f"{g}-{n}p" for g, n in COUNTS])
def test_every_game_and_player_count_conforms(game, players):
    report = report_of(game, players)
    shortest = min(report.lengths[players])
    assert shortest >= spec_of(game).shortest(players), f"a game of {shortest} moves"
    print(report.summary())


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_runs_cover_every_kind_of_move_and_every_phase(game):
    info, spec = GAMES[game], spec_of(game)
    reports = [report_of(game, n) for n in range(info.min_players, info.max_players + 1)]
    merged = ConformanceReport(game)
    for r in reports:
        merged.move_kinds.update(r.move_kinds)
        merged.deep_phases.update(r.deep_phases)
        merged.end_notes += r.end_notes
        merged.most_moves = max(merged.most_moves, r.most_moves)
        for phase, most in r.most_moves_by_phase.items():
            merged.most_moves_by_phase[phase] = max(most, merged.most_moves_by_phase.get(phase, 0))
    assert spec.kinds <= set(merged.move_kinds), spec.kinds - set(merged.move_kinds)
    assert spec.deep_phases <= set(merged.deep_phases), spec.deep_phases - set(merged.deep_phases)
    spec.covered(merged, reports)


def test_the_suite_names_the_game_count_seed_and_ply_of_a_failure():
    def fail_late(g):
        assert g.turn < 5, "turn 5 reached"
    with pytest.raises(AssertionError, match=r"^khan, 3 players, seed 4, ply \d+: "
                                             r"turn 5 reached"):
        check_game(GAMES["khan"].cls, 3, games=1, deep_games=0, seed=4, on_state=fail_late)
    with pytest.raises(ValueError, match="unknown checks to skip"):
        check_game(GAMES["khan"].cls, skip=["no-such-check"])


# ---------------------------------------------------------------- the search cannot peek
# (players, random moves from the deal, Khan's khans): positions with hidden parts for the
# searcher. Khiva's are in test_search.py.
PEEK_CASES = {
    "khan": [(2, 0, None), (2, 9, ["sable", "impala"]), (3, 14, ["impala", "sable", "llama"]),
             (4, 21, ["bison", "llama", "sable", "impala"]), (5, 33, None)],
    "kilim": [(2, 0, None), (2, 1, None), (3, 2, None), (3, 40, None), (4, 3, None),
              (4, 77, None), (5, 150, None)],
    "taschkent": [(3, 20, None), (3, 45, None), (2, 30, None), (4, 40, None), (4, 70, None)],
}
PEEKS = [(game, *case) for game, cases in PEEK_CASES.items() for case in cases]


@pytest.mark.parametrize("game,players", COUNTS, ids=[f"{g}-{n}p" for g, n in COUNTS])
def test_a_games_own_playout_loop_plays_the_same_game_as_the_bases(game, players):
    """GameCore.playout: a game may run the search's playout loop its own way (Kilim calls
    its methods directly and keeps what each Kilim shows, Khan keeps its policy's deck counts
    from move to move), but from the same seed it must play exactly the game that the base's
    loop plays one playout_move (or random_move) at a time: the same final state, with the
    policy and at random, from the opening and from positions along a random game."""
    positions = [advance(GAMES[game].cls(players, 60 + plies), plies, seed=plies)
                 for plies in (0, 9, 30, 70)]
    positions = [g for g in positions if not g.is_terminal()]
    assert len(positions) >= 3
    for g in positions:
        for policy in (True, False):
            ends = []
            for seed in range(4):
                own = g.played_out(seed, policy)
                assert own.is_terminal()
                assert own.to_json() == g.played_out(seed, policy, own_loop=False).to_json(), \
                    (g.to_json(), seed, policy)
                ends.append(json.dumps(own.to_json(), sort_keys=True))
            assert len(set(ends)) > 1, "every seed played the same game: nothing was compared"


@pytest.mark.parametrize("mode,opponents,groups", [("so", "search", False),
                                                   ("mo", "search", False),
                                                   ("so", "policy", False),
                                                   ("so", "search", True),
                                                   ("mo", "search", True)])
@pytest.mark.parametrize("game,players,moves,khans", PEEKS,
                         ids=[f"{g}-{n}p-{m}" for g, n, m, _ in PEEKS])
def test_states_the_searcher_cannot_tell_apart_give_the_same_search(game, players, moves, khans,
                                                                    mode, opponents, groups):
    """Two full states that differ only in what the searching seat cannot see (a
    determinization of one for it) give identical output for the same seed, also when the
    others play the playout policy in the tree (it reads the determinized world only) and
    when nodes choose a group of moves first (it reads the node's statistics only)."""
    cls = GAMES[game].cls
    g = advance(cls(players, 50 + moves, **({"khans": khans} if khans else {})), moves, seed=moves)
    assert not g.is_terminal()
    me = g.to_move
    twin = next((t for t in (g.determinized(me, 777 + s) for s in range(50))
                 if t.to_json() != g.to_json()), None)
    assert twin is not None, "no hidden part differs"
    assert twin.to_json(view=me) == g.to_json(view=me)
    a = search(g, iterations=400, seed=3, mode=mode, opponents=opponents, groups=groups)
    b = search(twin, iterations=400, seed=3, mode=mode, opponents=opponents, groups=groups)
    assert stats_of(a) == stats_of(b) and a.move == b.move and a.nodes == b.nodes


@pytest.mark.parametrize("game,players,moves,khans", PEEKS,
                         ids=[f"{g}-{n}p-{m}" for g, n, m, _ in PEEKS])
def test_a_world_keeps_nothing_of_the_deal_it_was_drawn_from(game, players, moves, khans):
    """A determinization of a seeded game is the very world the same seat's view, loaded,
    gives for the same seed: the deal seed (which deals every hidden card again) is not
    carried into it (the information-leak audit of 2026-12-04 found it was)."""
    cls = GAMES[game].cls
    g = advance(cls(players, 50 + moves, **({"khans": khans} if khans else {})), moves, seed=moves)
    me = g.to_move
    from_view = cls.from_view(json.loads(json.dumps(g.to_json(view=me))))
    for seed in (1, 2):
        world = g.determinized(me, seed)
        assert world.seed == 0 and world.to_json()["seed"] == 0
        assert world.to_json() == from_view.determinized(me, seed).to_json()


LOADS = PEEKS + [("khiva", 2, 5, None), ("khiva", 3, 7, None), ("khiva", 5, 31, None)]


@pytest.mark.parametrize("game,players,moves,khans", LOADS,
                         ids=[f"{g}-{n}p-{m}" for g, n, m, _ in LOADS])
def test_a_loaded_state_keys_what_each_seat_sees_not_its_seed(game, players, moves, khans):
    """A full state loaded from JSON has no history: each seat's keys come from its view.
    A twin (the same position but for what seat o cannot see) gives o the keys a search
    for o reads, whatever the other seats hold; a position o sees otherwise, with the same
    seed, gives o another key, so a kept tree (Searcher) does not carry one into the other.
    Every load had kept its seed's deal's hashes (an information audit of 2026-12-07)."""
    cls = GAMES[game].cls
    options = {"khans": khans} if khans else {}
    g = advance(cls(players, 50 + moves, **options), moves, seed=moves)
    o = g.to_move
    loaded = cls.from_json(g.to_json())
    twin = cls.from_json(g.determinized(o, 7).to_json())
    assert twin.to_json(view=o) == loaded.to_json(view=o)
    assert _keys_read(twin, o) == _keys_read(loaded, o)
    other = advance(cls(players, 50 + moves, **options), moves + 1, seed=moves)
    assert other.to_json(view=o) != g.to_json(view=o)
    d = other.to_json()
    d["seed"] = g.to_json()["seed"]              # the same seed: only the position differs
    assert cls.from_json(d).info_key(o) != loaded.info_key(o)


# ---------------------------------------------------------------- the suite has teeth
# Khiva broken three ways (its module kept: the base reads the game's notation from it; so a
# pickle of one, which looks the class up there, is not checked).
KHIVA = GAMES["khiva"].cls


class UnsortedMoves(KHIVA):
    __module__ = KHIVA.__module__

    def legal_moves(self):
        return super().legal_moves()[::-1]


class SharedClone(KHIVA):
    __module__ = KHIVA.__module__

    def clone(self):
        return self


class EvenRewards(KHIVA):
    __module__ = KHIVA.__module__

    def rewards(self):
        super().rewards()
        return [1 / self.n_players] * self.n_players


class KeysNeedKnowledge(KHIVA):
    """A game whose information keys change once it keeps only its hashes: as if it had
    put a hash update behind its knowledge."""
    __module__ = KHIVA.__module__
    hashes_only = False

    def _track_keys_only(self):
        super()._track_keys_only()
        self.hashes_only = True

    def info_key(self, player, observer=-1, mode="so"):
        return super().info_key(player, observer, mode) ^ self.hashes_only


class KeysReadTheWholeState(KHIVA):
    """A game whose keys, after a move, read the whole state, hidden cards included (as
    Khan's random theft from the Sable Nation hashed its hidden pick until a rules audit)."""
    __module__ = KHIVA.__module__
    whole = 0

    def apply(self, move):
        super().apply(move)
        self.whole = hash(json.dumps(self.to_json(), sort_keys=True))

    def info_key(self, player, observer=-1, mode="so"):
        return super().info_key(player, observer, mode) ^ (self.whole & 0xFFFF)


def test_the_suite_finds_keys_that_read_what_their_observer_cannot_see():
    only_twins = [c for c in CHECKS if c != "twins"]
    with pytest.raises(AssertionError, match=r"^khiva, 3 players, seed 0, ply \d+: .* played "
                                             r"in a twin world of seat \d: the same view and "
                                             r"account, other keys"):
        check_game(KeysReadTheWholeState, 3, games=1, deep_games=1, skip=only_twins)


@pytest.mark.parametrize("broken,message", [
    (UnsortedMoves, "legal moves are not ascending and distinct"),
    (SharedClone, "a move on a clone changed the original"),
    (EvenRewards, "are not the win shares of the ranking"),
    (KeysNeedKnowledge, "a replay keeping only the information hashes has other info keys"),
], ids=["unsorted-moves", "shared-clone", "even-rewards", "keys-need-knowledge"])
def test_the_suite_finds_a_broken_game(broken, message):
    with pytest.raises(AssertionError, match=rf"^khiva, 3 players, seed 0, ply \d+: .*{message}"):
        check_game(broken, 3, games=1, deep_games=1, skip=["pickle"])
