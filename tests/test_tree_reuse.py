"""Tree reuse (issue 14): a Searcher keeps its tree from one decision of its player to the
next, Tree.reroot keeps what stays valid and honours the node cap, and SearchSession does the
same for the callers of search_with_workers (in process, and on Ray actors)."""
import subprocess
import sys
import tempfile

import pytest

from cext.ismcts import Tree
from engine.registry import new_game
from search.config import Budget, SearchConfig
from search.ismcts import Searcher, collect, new_tree, run_tree, search
from search.parallel import SearchSession

CONFIG = SearchConfig(mode="so", score_weight=0.5)


def table(result):
    """Everything a search result says about the root, for exact comparisons."""
    return (result.move, result.nodes, result.iterations,
            [(s.move, s.visits, s.mean_reward, s.availability, s.win_probability,
              s.expected_score) for s in result.stats])


def continuation_in_tree(tree, state, seat, most=20000):
    """A position reached from `state` by the other seats' moves (depth first, in move
    order) where `seat` decides again and `tree` holds its node; None if none is found
    among the first `most` positions."""
    stack, seen = [state], 0
    while stack and seen < most:
        s = stack.pop()
        seen += 1
        if s.is_terminal():
            continue
        if s.to_move == seat and len(s.legal_moves()) > 1:
            if tree.visits_at(s) > 0:
                return s
            continue
        for m in reversed(s.legal_moves()):
            child = s.clone()
            child.apply(m)
            stack.append(child)
    return None


def next_root(searcher, state, result):
    """The searcher's move played, then the other seats' moves to a position the searcher's
    tree holds (None if there is none)."""
    after = state.clone()
    after.apply(result.move)
    return continuation_in_tree(searcher.tree, after, state.to_move)


def searched_with_a_next_root(game, players, budget, seeds=range(1, 21)):
    """(state, searcher, first result, next root) of the first deal among `seeds` whose
    first search holds a position the searcher meets next (in a 3-player Khiva game the
    others' private choices make most next positions unseen at a small budget)."""
    for seed in seeds:
        state = new_game(game, players, seed=seed)
        searcher = Searcher(CONFIG, seed=seed)
        first = searcher.search(state, budget)
        later = next_root(searcher, state, first)
        if later is not None:
            return state, searcher, first, later
    raise AssertionError(f"no deal of {game} with a next position in the tree")


# ---------------------------------------------------------------- nothing carries over
@pytest.mark.parametrize("game,players", [("khiva", 3), ("khan", 2), ("taschkent", 3),
                                          ("kilim", 2)])
def test_a_first_search_is_the_plain_search(game, players):
    state = new_game(game, players, seed=4)
    searcher = Searcher(CONFIG, seed=1)
    assert table(searcher.search(state, 400, seed=9)) == \
        table(search(state, Budget(400), CONFIG, seed=9))
    assert searcher.reused == 0


def test_a_new_tree_when_the_game_the_player_or_the_config_changes():
    khiva, khan = new_game("khiva", 3, seed=2), new_game("khan", 2, seed=2)
    searcher = Searcher(CONFIG)
    searcher.search(khiva, 300, seed=1)
    assert table(searcher.search(khan, 300, seed=5)) == \
        table(search(khan, Budget(300), CONFIG, seed=5))
    other = SearchConfig(mode="mo")
    assert table(searcher.search(khan, 300, other, seed=6)) == \
        table(search(khan, Budget(300), other, seed=6))
    later = khan.clone()                       # the other seat to move: its own tree
    later.apply(searcher.search(khan, 100, other, seed=6).move)
    assert later.to_move != khan.to_move
    assert table(searcher.search(later, 300, other, seed=7)) == \
        table(search(later, Budget(300), other, seed=7))
    assert searcher.reused == 1                # only the same position, searched again


def test_a_position_the_tree_does_not_hold_starts_a_new_tree():
    state = new_game("khiva", 3, seed=6)
    searcher = Searcher(CONFIG, seed=3)
    searcher.search(state, 50, seed=1)
    elsewhere = new_game("khiva", 3, seed=7)   # another deal: another hand, another node
    assert searcher.tree.visits_at(elsewhere) == 0
    assert table(searcher.search(elsewhere, 300, seed=2)) == \
        table(search(elsewhere, Budget(300), CONFIG, seed=2))
    assert searcher.reused == 0


# ---------------------------------------------------------------- statistics carried over
def test_the_same_position_searched_again_continues_the_tree():
    state = new_game("khiva", 3, seed=1)
    searcher = Searcher(CONFIG)
    first = searcher.search(state, 500, seed=1)
    again = searcher.search(state, 700, seed=2)
    assert first.carried == 0 and again.carried == 500 and searcher.reused == 1
    assert again.iterations == 700
    assert sum(s.visits for s in again.stats) == 1200
    before = {s.move: s.visits for s in first.stats}
    assert all(s.visits >= before.get(s.move, 0) for s in again.stats)
    assert set(before) <= {s.move for s in again.stats}


@pytest.mark.parametrize("game,players", [("taschkent", 3), ("kilim", 2), ("khan", 2),
                                          ("khiva", 3)])
def test_a_later_root_in_the_tree_starts_with_its_statistics(game, players):
    state, searcher, first, later = searched_with_a_next_root(game, players, 2000)
    held = searcher.tree.visits_at(later)
    assert held > 0
    second = searcher.search(later, 1000)
    assert second.carried == held and searcher.reused == 1
    assert second.iterations == 1000
    assert sum(s.visits for s in second.stats) == held + 1000
    assert searcher.tree.visits_at(state) == 0   # the old root is above: evicted
    assert second.move in later.legal_moves()


def test_reuse_is_reproducible():
    def run():
        state, searcher, first, later = searched_with_a_next_root("taschkent", 3, 1500)
        return table(first), table(searcher.search(later, 800))
    assert run() == run()


# ---------------------------------------------------------------- reroot and the node cap
def test_reroot_refuses_another_game_or_player():
    state = new_game("khan", 2, seed=1)
    tree = new_tree(state, 0, CONFIG, 1)
    tree.run(100)
    with pytest.raises(ValueError, match="same game"):
        tree.reroot(new_game("khiva", 2, seed=1))
    with pytest.raises(ValueError, match="same game"):
        tree.reroot(new_game("khan", 3, seed=1))
    later = state.clone()
    later.apply(later.legal_moves()[0])
    with pytest.raises(ValueError, match="not to move"):
        tree.reroot(later)
    assert tree.reroot(state) == 100              # refused calls changed nothing


def test_reroot_drops_what_the_last_search_did_not_pass_through():
    state = new_game("khiva", 3, seed=3)
    tree = Tree(state, 0, 1, max_nodes=5000)
    tree.run(300)
    assert tree.reroot(state) == 300 and tree.n_nodes == 300   # all passed through
    tree.run(1)                                    # one iteration passes a few nodes only
    nodes_passed = tree.tree_moves
    assert tree.reroot(state) == 301
    assert tree.n_nodes <= nodes_passed            # that one path, root included
    assert tree.iterations == 0 and tree.generation == 2


def test_the_node_cap_holds_over_a_whole_game_of_reroots():
    cap = 300
    config = SearchConfig(max_nodes=cap)
    state = new_game("taschkent", 3, seed=8)
    searcher = Searcher(config, player=0)
    grew = []                                         # (kept, after) of each reused tree
    while not state.is_terminal():
        if state.to_move == 0 and len(state.legal_moves()) > 1:
            tree = searcher.tree_for(state, 0, config, seed=len(grew))
            kept = tree.n_nodes
            if tree.carried():
                assert kept <= cap // 2                 # room to grow
            run_tree(tree, Budget(1000))
            assert tree.n_nodes <= cap
            if tree.carried() > 1000:                   # visits of the root: some were kept
                grew.append((kept, tree.n_nodes))
            state.apply(collect(state, tree, 0.0).move)
        else:
            state.apply(state.legal_moves()[len(state.legal_moves()) // 2])
    assert sum(1 for kept, after in grew if kept < after == cap) >= 3, grew


def test_reroot_keeps_at_most_half_the_cap():
    state = new_game("khiva", 3, seed=1)
    tree = Tree(state, 0, 1, max_nodes=400)
    tree.run(3000)
    assert tree.full and tree.n_nodes == 400
    carried = tree.reroot(state)
    assert 0 < tree.n_nodes <= 200 and not tree.full
    assert carried == 3000                       # the root always stays
    tree.run(500)
    assert tree.n_nodes == 400


# ---------------------------------------------------------------- the parallel counterpart
def test_a_one_worker_session_keeps_its_tree_in_process():
    state = new_game("khiva", 3, seed=1)
    session = SearchSession(workers=1)
    first = session.search(state, Budget(400), CONFIG, seed=1)
    again = session.search(state, Budget(400), CONFIG, seed=2)
    assert first.carried == 0 and again.carried == 400
    session.close()
    assert session.search(state, Budget(400), CONFIG, seed=3).carried == 0


def test_a_one_worker_session_never_imports_ray():
    code = ("import sys\n"
            "from engine.registry import new_game\n"
            "from search.parallel import SearchSession\n"
            "s = SearchSession()\n"
            "g = new_game('khan', 2, 1)\n"
            "s.search(g, 100, seed=1); r = s.search(g, 100, seed=2)\n"
            "assert r.carried == 100, r.carried\n"
            "assert 'ray' not in sys.modules, 'ray was imported'\n"
            "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, cwd=tempfile.gettempdir())
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_a_session_on_ray_workers_keeps_a_tree_on_each():
    ray = pytest.importorskip("ray")
    from search import parallel

    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        state = new_game("taschkent", 3, seed=5)
        session = SearchSession(workers=2)
        first = session.search(state, Budget(2000), CONFIG, seed=5)
        assert first.carried == 0 and first.answered == [0, 1]
        again = session.search(state, Budget(1000), CONFIG, seed=6)
        assert again.carried == 2000                 # each worker kept its 1,000
        assert sum(s.visits for s in again.stats) == 3000
        other = SearchSession(workers=2)            # another session: its own trees
        assert other.search(state, Budget(1000), CONFIG, seed=6).carried == 0
        session.close()
        assert session.search(state, Budget(1000), CONFIG, seed=7).carried == 0
        other.close()
    finally:
        if started:
            for pool in parallel._SHARED.values():
                pool.shutdown()
            parallel._SHARED.clear()
            ray.shutdown()


# ---------------------------------------------------------------- priors (progressive bias)
def biased_tree(state, weight, policy=False, seed=1):
    c = CONFIG
    return Tree(state, state.to_move, seed, c.c, c.mode, c.max_nodes, True, c.determinize,
                c.score_weight, True, weight, policy)


def test_no_prior_weight_is_the_plain_search():
    state = new_game("khan", 2, seed=3)
    plain, biased = new_tree(state, state.to_move, CONFIG, 4), biased_tree(state, 0.0, seed=4)
    biased.set_root_prior({state.legal_moves()[0]: 1.0})     # no weight: no effect
    plain.run(800)
    biased.run(800)
    assert table(collect(state, plain, 0.0)) == table(collect(state, biased, 0.0))


def test_a_root_prior_draws_visits_to_its_move():
    state = new_game("khiva", 3, seed=2)
    plain = new_tree(state, 0, CONFIG, 4)
    plain.run(1500)
    least = min(collect(state, plain, 0.0).stats, key=lambda s: (s.visits, s.move)).move
    biased = biased_tree(state, 5.0, seed=4)
    biased.set_root_prior({least: 1.0})
    biased.run(1500)
    visits = {s.move: s.visits for s in collect(state, biased, 0.0).stats}
    assert visits[least] > {s.move: s.visits for s in collect(state, plain, 0.0).stats}[least]
    assert biased.reroot(state) == 1500 and biased.visits_at(state) == 1500  # prior dropped


def test_a_prior_is_non_negative_weights():
    state = new_game("khiva", 3, seed=2)
    tree = biased_tree(state, 1.0)
    for bad in ({}, {state.legal_moves()[0]: -1.0}, {state.legal_moves()[0]: 0.0}):
        with pytest.raises(ValueError, match="non-negative"):
            tree.set_root_prior(bad)
    with pytest.raises(ValueError, match="prior_weight"):
        biased_tree(state, -1.0)


@pytest.mark.parametrize("game,players", [("khan", 2), ("khiva", 3)])
def test_a_policy_prior_searches_legal_moves(game, players):
    state = new_game(game, players, seed=5)
    tree = biased_tree(state, 1.0, policy=True)
    tree.run(600)
    result = collect(state, tree, 0.0)
    assert result.move in state.legal_moves()
    assert sum(s.visits for s in result.stats) == 600


# ---------------------------------------------------------------- an opponent model
@pytest.mark.parametrize("game,players", [("khan", 4), ("khiva", 3), ("kilim", 2),
                                          ("taschkent", 3)])
def test_opponents_playing_the_policy_search_legal_moves_reproducibly(game, players):
    state = new_game(game, players, seed=6)
    modelled = SearchConfig(mode="so", score_weight=0.5, opponents="policy")
    first = search(state, iterations=700, seed=8, config=modelled)
    assert first.move in state.legal_moves()
    assert sum(s.visits for s in first.stats) == 700
    assert table(first) == table(search(state, iterations=700, seed=8, config=modelled))
    assert table(first) != table(search(state, iterations=700, seed=8, config=CONFIG))


def test_opponents_are_search_or_policy():
    with pytest.raises(ValueError, match="opponents"):
        SearchConfig(opponents="heuristic")
