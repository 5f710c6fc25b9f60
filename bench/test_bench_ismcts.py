"""ISMCTS iterations per second from the opening, per game, player count and keying mode.

Each round builds a fresh tree (not timed) for the seat to move with the search's default
configuration in the given mode (search.config.SearchConfig: c, score weight, node cap) and
times `Tree.run(ITERATIONS)` in CPU time (bench_support.CPU_TIMER): the C loop alone,
determinization, descent, expansion, playout and backup. Playouts are uniformly random where
the build can be told so (SearchConfig.playout), so that ISMCTS iterations/s over random
playouts/s is the cost of the search around a playout; a build without the switch plays the
game's policy (every game has one now; early builds had only Khan's), noted in extra_info (`ISMCTS so playouts`; `own playout
policy` says whether the game has one, where the build can tell) and marked when two runs
are compared. test_ismcts_policy measures the search as it plays, with
the game's policy, alike in every build.

That ratio (the summary's so/playouts and mo/playouts) is measured pair by pair: before each
round, in the untimed setup, a batch of random playouts from the same opening is timed by
hand (bench_support.Reference), and the ratio is the median over the rounds.
"""
from __future__ import annotations

import dataclasses

import pytest
from bench_support import (JOINT_PLACEMENTS, RARE_DEALS, CPU_TIMER, Reference, line_position,
                           opening, playouts_per_round, rare_deals_position,
                           without_joint_placements)

ITERATIONS = 10_000       # per round, from a fresh tree: the tree of a short search
REFERENCE_SHARE = 4       # the paired playouts: a quarter of a random-playouts round


def search_config(mode: str, playout: str = "random"):
    """The default SearchConfig in `mode` with `playout` playouts where the build can be
    told (SearchConfig.playout); else the game's policy, which is all such a build has."""
    from search.config import SearchConfig
    if "playout" in {f.name for f in dataclasses.fields(SearchConfig)}:
        return SearchConfig(mode=mode, playout=playout), playout
    return SearchConfig(mode=mode), "policy"


def own_policy(state, mode: str):
    """Whether the game plays its own playout policy rather than uniformly random moves:
    "yes", "no", or None when the build cannot switch the policy off. Seen in behaviour: a
    game without one draws its playout moves with random_move from the same generator, so
    two seeded searches, one with each kind of playout, grow the same tree."""
    from search.ismcts import new_tree
    random_config, playouts = search_config(mode, "random")
    if playouts != "random":
        return None
    policy_config, _ = search_config(mode, "policy")
    stats = []
    for config in (random_config, policy_config):
        tree = new_tree(state, state.to_move, config, 0)
        tree.run(300)
        stats.append(tree.root_stats())
    return "no" if stats[0] == stats[1] else "yes"


@pytest.mark.benchmark(group="ISMCTS iterations", timer=CPU_TIMER)
def test_ismcts(benchmark, record, rounds, game_players, mode):
    from cext.ismcts import random_playouts
    from search.ismcts import new_tree
    game, players = game_players
    state = opening(game, players)
    config, playouts = search_config(mode)
    games = playouts_per_round(game) // REFERENCE_SHARE
    reference = Reference(lambda: random_playouts(state, games, 0), CPU_TIMER)
    trees = []

    def fresh_tree():
        reference.run()
        trees.append(new_tree(state, state.to_move, config, 0))
        return (trees[-1],), {}

    def run(tree):
        return tree.run(ITERATIONS)

    assert benchmark.pedantic(run, setup=fresh_tree, rounds=rounds) == ITERATIONS
    tree = trees[-1]
    memory = tree.memory()
    ratio = reference.time_ratio(benchmark)
    record(game, players, rates={f"ISMCTS {mode} it/s": ITERATIONS},
           values={f"{mode}/playouts": ratio and ITERATIONS / games / ratio,
                   f"ISMCTS {mode} tree moves/iteration": tree.tree_moves / tree.iterations,
                   f"ISMCTS {mode} nodes": memory.get("nodes"),
                   "tree bytes/node": memory.get("bytes_per_node"),
                   "tree bytes/move statistic": memory.get("bytes_per_move_stat"),
                   "iterations per round": ITERATIONS, f"ISMCTS {mode} playouts": playouts,
                   "own playout policy": own_policy(state, mode)})


def time_fresh_searches(benchmark, state, config, rounds: int) -> None:
    """Time `rounds` searches of ITERATIONS iterations, each from a fresh tree for the seat
    to move (the tree's set-up is not timed)."""
    from search.ismcts import new_tree

    def fresh_tree():
        return (new_tree(state, state.to_move, config, 0),), {}

    def run(tree):
        return tree.run(ITERATIONS)

    assert benchmark.pedantic(run, setup=fresh_tree, rounds=rounds) == ITERATIONS


@pytest.mark.benchmark(group="ISMCTS iterations, policy playouts", timer=CPU_TIMER)
def test_ismcts_policy(benchmark, record, rounds, game_default):
    """ISMCTS as it plays: the game's own playout policy (a build from before a game had one
    plays at random there), mode so, each game at its default player count. Every build measures
    the same thing here, whether or not it can switch the policy off."""
    game, players = game_default
    state = opening(game, players)
    config, _ = search_config("so", "policy")
    time_fresh_searches(benchmark, state, config, rounds)
    record(game, players, rates={"ISMCTS so it/s, policy playouts": ITERATIONS})


@pytest.mark.benchmark(group="ISMCTS iterations, rare deals", timer=CPU_TIMER)
def test_ismcts_rare_deals(benchmark, record, rounds, mode):
    """ISMCTS iterations at bench_support.RARE_DEALS (Khiva, 3 players), where few random
    deals fit the knowledge of the player to move: what its determinization costs there.
    Default configuration in `mode`, random playouts where the build can be told."""
    state = rare_deals_position()
    if hasattr(state, "_deals_fitting"):
        assert state._deals_fitting(state.to_move) < 1e-3
    config, _ = search_config(mode)
    time_fresh_searches(benchmark, state, config, rounds)
    record(RARE_DEALS[0], RARE_DEALS[1],
           rates={f"ISMCTS {mode} it/s, rare deals": ITERATIONS})


@pytest.mark.benchmark(group="ISMCTS iterations, joint placements", timer=CPU_TIMER)
@pytest.mark.parametrize("knowledge", ["joint", "masks"])
def test_ismcts_joint_placements(benchmark, record, rounds, knowledge):
    """ISMCTS so iterations at bench_support.JOINT_PLACEMENTS (Khiva, 5 players), where each
    world draws one of the seat's joint placements first; `masks`: the same position with
    them given up (each card's mask alone), what a determinization cost before them."""
    state = line_position(JOINT_PLACEMENTS)
    f = state._fields()
    if "jn" in f:                                # the 6 placements of 3 cards it was chosen for
        assert (f["jn"][state.to_move], f["jm"][state.to_move]) == (3, 6)
    if knowledge == "masks":
        state = without_joint_placements(state, state.to_move)
        if state is None:
            pytest.skip("this build keeps no joint placements")
    config, _ = search_config("so")
    time_fresh_searches(benchmark, state, config, rounds)
    record(JOINT_PLACEMENTS[0], JOINT_PLACEMENTS[1],
           rates={f"ISMCTS so it/s, {knowledge}": ITERATIONS})


LINE_TREE = 20_000        # iterations of the tree whose expected lines are read


@pytest.mark.benchmark(group="Expected lines", timer=CPU_TIMER)
def test_expected_lines(benchmark, record, rounds, game_players):
    """What `lines=True` adds to a search (suggest, caravan hint, ShowLine): collect() with
    the expected lines of the LINE_MOVES best moves of a tree of LINE_TREE iterations from
    the opening (game policy, so), against collect() without them. Each round reads the same
    tree."""
    from search.config import SearchConfig
    from search.ismcts import collect, new_tree
    game, players = game_players
    state = opening(game, players)
    tree = new_tree(state, state.to_move, SearchConfig(), 0)
    tree.run(LINE_TREE)
    plain = Reference(lambda: collect(state, tree, 0.0), CPU_TIMER)
    lines = []

    def setup():
        plain.run()
        return (), {}

    benchmark.pedantic(lambda: lines.append(collect(state, tree, 0.0, True)), setup=setup,
                       rounds=rounds)
    record(game, players, times={"expected lines ms": 1000},
           values={"with lines / without": plain.time_ratio(benchmark),
                   "longest line": max(len(s.line) for s in lines[-1].stats)})
