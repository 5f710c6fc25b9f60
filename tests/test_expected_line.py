"""The expected line after a candidate move (search.ismcts.expected_line, MoveStats.line):
what the search thinks comes next, seat by seat, from the searching seat's information only."""
import contextlib
import io
import itertools
import json

import pytest

from engine.cli import main
from engine.registry import GAMES, new_game
from game_support import advance
from search.ismcts import (LINE_LEAST_VISITS, LINE_MOST, LINE_MOVES, LineStep, MoveStats,
                           expected_line, imagined_worlds, new_tree, play_forced_moves, search)
from search.config import Budget, game_config
from search.parallel import _Worker, merge_answers
from search.suggest import line_text, suggest

# (game, players, random moves from the deal): positions with hidden parts for the searcher
POSITIONS = [("khiva", 3, 0), ("khiva", 4, 7), ("khan", 4, 0), ("khan", 3, 14),
             ("kilim", 3, 0), ("kilim", 4, 40), ("taschkent", 3, 0), ("taschkent", 4, 40)]


def position(game: str, players: int, moves: int):
    g = advance(GAMES[game].cls(players, 50 + moves), moves, seed=moves)
    assert not g.is_terminal()
    return g


def replay(state, player: int, move: int, line) -> None:
    """Follow `line` as expected_line does: every step is the seat to move, and the move is
    legal, in at least one world the searcher imagines (after the forced moves)."""
    worlds = imagined_worlds(state, player)
    for w in worlds:
        w.apply(move)
    for step in line:
        for w in worlds:
            play_forced_moves(w)
        worlds = [w for w in worlds if not w.is_terminal() and w.to_move == step.seat
                  and step.move in w.legal_moves()]
        assert worlds, f"step {step} is in no imagined world"
        assert step.text == worlds[0].move_to_text(step.move)
        for w in worlds:
            w.apply(step.move)


@pytest.mark.parametrize("game,players,moves", POSITIONS)
def test_every_step_of_a_line_is_a_legal_decision_of_its_seat(game, players, moves):
    g = position(game, players, moves)
    result = search(g, iterations=20000, seed=1, lines=True)
    for s in result.stats[:LINE_MOVES]:
        assert len(s.line) <= LINE_MOST
        assert all(isinstance(step, LineStep) for step in s.line)
        replay(g, result.player, s.move, s.line)


def test_a_search_of_some_depth_expects_replies_in_every_game():
    """Not an empty feature: at 20,000 iterations the best move's line names the next
    decisions in most positions of every game, and in some more than one. (Where a reply
    follows what the others chose in secret, as Khiva's after a round's reveal, the worlds
    lead to nodes the search barely saw: there the line is empty.)"""
    lengths = {}
    for game, players, moves in POSITIONS:
        result = search(position(game, players, moves), iterations=20000, seed=1, lines=True)
        lengths[game, players, moves] = len(result.stats[0].line)
    assert all(any(n for (g, _, _), n in lengths.items() if g == game) for game in GAMES)
    assert sum(n >= 1 for n in lengths.values()) >= 6, lengths
    assert max(lengths.values()) >= 3, lengths


def test_a_line_stops_where_the_search_knows_too_little():
    """A search of a few iterations visits no reply LINE_LEAST_VISITS times a world: no
    line; and only the LINE_MOVES most visited moves get one."""
    g = position("khan", 4, 0)
    assert all(s.line == () for s in search(g, iterations=50, seed=1, lines=True).stats)
    tree = new_tree(g, g.to_move, game_config("khan", 4), 1)
    tree.run(20000)
    worlds = imagined_worlds(g, g.to_move)
    best = max(tree.root_stats(), key=lambda s: s[1])[0]
    for w in worlds:
        w.apply(best)
        play_forced_moves(w)
    replies = {}
    for w in worlds:
        for m, v, _, _ in tree.stats_at(w):
            replies[m] = replies.get(m, 0) + v
    result = search(g, iterations=20000, seed=1, lines=True)
    first = result.stats[0].line[0]
    assert result.stats[0].move == best and first.move == max(replies, key=replies.get)
    assert replies[first.move] >= LINE_LEAST_VISITS * len(worlds)
    assert len(result.stats) > LINE_MOVES
    assert all(s.line == () for s in result.stats[LINE_MOVES:])


@pytest.mark.parametrize("game,players,moves", POSITIONS)
def test_states_the_searcher_cannot_tell_apart_give_the_same_lines(game, players, moves):
    """The lines are followed in worlds drawn from the searcher's information: a state that
    differs only in what the searcher cannot see gives the very same lines."""
    g = position(game, players, moves)
    me = g.to_move
    twin = next((t for t in (g.determinized(me, 777 + s) for s in range(50))
                 if t.to_json() != g.to_json()), None)
    assert twin is not None and twin.to_json(view=me) == g.to_json(view=me)
    a, b = (search(s, iterations=8000, seed=3, lines=True) for s in (g, twin))
    assert [s.line for s in a.stats] == [s.line for s in b.stats]
    assert [s.move for s in a.stats] == [s.move for s in b.stats]


def test_lines_are_reproducible_and_follow_the_seed():
    g = position("taschkent", 3, 0)
    lines = [[s.line for s in search(g, iterations=8000, seed=seed, lines=True).stats]
             for seed in (5, 5, 6)]
    assert lines[0] == lines[1]
    assert any(lines[0])


def worker_answer(worker, stats=(), lines=None, full=False, iterations=10, nodes=1):
    """A root-parallel worker's answer as merge_answers reads it (search.parallel._Worker):
    `stats` rows are (move, visits, reward sum, ...), `lines` {move: (visits, line)}."""
    return {"worker": worker, "iterations": iterations, "nodes": nodes,
            "tree_moves": 1 if stats else 0, "full": full, "seconds": 0.1 if iterations else 0.0,
            "carried": 0, "stats": list(stats), "lines": lines or {}}


def test_the_merged_line_is_the_one_of_the_worker_that_visited_the_move_most():
    g = new_game("khan", 3, 2)
    a, b = g.legal_moves()[:2]
    step = LineStep(1, a, "x")

    def answer(worker, visits_a, line_a):
        return worker_answer(worker, [(a, visits_a, 0.5 * visits_a, 1, 0.0, 0.0, 1),
                                      (b, 1, 0.5, 1, 0, 0, 1)], {a: (visits_a, line_a)})

    merged = merge_answers(g, g.to_move, [answer(0, 3, ()), answer(1, 7, (step,))], [], 2, 0.1,
                           "sum")
    assert merged.stats[0].move == a and merged.stats[0].line == (step,)
    assert merged.stats[1].line == ()


def test_a_merged_search_was_full_when_any_worker_s_tree_was():
    """SearchConfig.max_nodes: a full tree keeps iterating and the result says it was
    full; a root-parallel search says so when any of its workers filled its tree."""
    g = new_game("khan", 3, 2)
    moves = g.legal_moves()[:2]

    stats = [(m, 5, 2.5, 5, 0.0, 0.0, 5) for m in moves]
    for fulls in ((False, True), (True, False), (False, False)):
        answers = [worker_answer(w, stats, full=full, nodes=5) for w, full in enumerate(fulls)]
        assert merge_answers(g, g.to_move, answers, [], 2, 0.1, "sum").tree_full == any(fulls)


def test_workers_merge_the_same_whatever_order_their_answers_come_in():
    """Ray hands the answers over as they finish: the merge must not depend on that order
    (equal visits kept the first line; floats summed in another order differ in the last
    bit)."""
    g = advance(new_game("taschkent", 3, 5), 9, seed=3)
    config = game_config("taschkent", 3)
    answers = [_Worker(i).search(g, g.to_move, Budget(300), config, 9 * 1_000_003 + i, 1, None,
                                 True, None) for i in range(4)]
    tables = {json.dumps([(s.move, s.visits, s.mean_reward, s.win_probability,
                           s.expected_score, [step.text for step in s.line])
                          for s in merge_answers(g, g.to_move, list(order), [], 4, 0.0,
                                                 "sum").stats])
              for order in itertools.permutations(answers)}
    assert len(tables) == 1


def test_suggest_and_caravan_hint_give_the_line():
    g = position("khan", 4, 0)
    sug = suggest(g, 20000, top_k=3, seed=1)
    searched = search(g, iterations=20000, seed=1, lines=True)
    assert sug.moves[0].line and sug.moves[0].line == searched.stats[0].line
    text = line_text(sug.moves[0].line)
    assert text.startswith(f"P{sug.moves[0].line[0].seat} {sug.moves[0].line[0].text}")

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["hint", "khan", "--players", "4", "--seed", str(50), "--iterations",
                     "20000", "--search-seed", "1", "--top", "3"]) == 0
    assert " then P" in out.getvalue(), out.getvalue()


def test_a_search_computes_lines_only_when_asked():
    """The agents' searches do not pay for lines (up to a few hundredths of a second a
    decision): a search without `lines` leaves them empty and is otherwise the same."""
    g = position("khan", 4, 0)
    plain, lined = search(g, iterations=20000, seed=1), search(g, iterations=20000, seed=1,
                                                               lines=True)
    assert all(s.line == () for s in plain.stats) and lined.stats[0].line
    assert [(s.move, s.visits) for s in plain.stats] == [(s.move, s.visits) for s in lined.stats]


def test_movestats_without_a_line_still_build():
    """A line is optional: results made elsewhere (a worker without lines) keep working."""
    assert MoveStats(1, "m", 1, 0.5, 1).line == ()


def test_the_hint_of_caravan_play_shows_the_line():
    from engine.play import _hint
    from search.config import Budget

    out = io.StringIO()
    _hint(position("khan", 4, 0), ["2"], out, Budget(20000))
    shown = out.getvalue().splitlines()
    assert len(shown) == 4 and shown[1].startswith("     then P"), shown


@pytest.mark.parametrize("bad", ["yes", 1, None, 0.0])
def test_lines_is_true_or_false(bad):
    with pytest.raises(ValueError, match="lines is True or False"):
        search(position("khan", 4, 0), iterations=10, seed=1, lines=bad)


@pytest.mark.parametrize("game,players,moves", POSITIONS[::2])
def test_a_seat_s_view_gives_the_lines_of_the_dealt_position(game, players, moves):
    """A front end sends the seat's view (`position ... view`): loaded, it searches exactly
    like the position it came from, expected lines included."""
    from engine.registry import from_view
    g = position(game, players, moves)
    seen = from_view(g.to_json(view=g.to_move))
    a, b = (search(s, iterations=6000, seed=2, lines=True) for s in (g, seen))
    assert [(s.move, s.visits, s.line) for s in a.stats] == \
        [(s.move, s.visits, s.line) for s in b.stats]
    assert any(s.line for s in a.stats)


@pytest.mark.parametrize("merge", ["sum", "vote"])
def test_workers_stopped_before_their_first_iteration_merge_into_unmeasured_candidates(merge):
    """Workers that answered without an iteration: the merged result lists the root moves
    searched with 0 visits in legal order, the first its choice, as one process does
    (search.ismcts.collect). It listed none."""
    g = new_game("khan", 3, 2)
    legal = g.legal_moves()
    only = [legal[-1], legal[0]]

    def answer(worker):
        return worker_answer(worker, iterations=0, nodes=0)

    merged = merge_answers(g, g.to_move, [answer(0), answer(1)], [], 2, 0.0, merge, only)
    assert [s.move for s in merged.stats] == [legal[0], legal[-1]] and merged.move == legal[0]
    assert all(s.visits == 0 for s in merged.stats)
    whole = merge_answers(g, g.to_move, [answer(0)], [1], 2, 0.0, merge)
    assert [s.move for s in whole.stats] == legal and whole.failed == [1]
    with pytest.raises(RuntimeError, match="all 2 search workers failed"):
        merge_answers(g, g.to_move, [], [0, 1], 2, 0.0, merge)


class OneNodeTree:
    """A stand-in for the search's tree: one node, met at the first step only, whose only
    edge is `move` with `visits` visits."""

    def __init__(self, move, visits):
        self.move, self.visits, self.asked = move, visits, 0

    def node_at(self, world):
        self.asked += 1
        return 0 if self.asked == 1 else -1

    def node_stats(self, node):
        return [(self.move, self.visits, 0.5, self.visits)]


def test_a_line_takes_a_step_with_exactly_the_least_visits_a_world():
    """docs/architecture.md, "Expected lines": the line stops where the step would have
    fewer than LINE_LEAST_VISITS visits a world; exactly that many is a step."""
    state = new_game("khan", 3, 2)
    move = state.legal_moves()[0]
    after = state.clone()
    after.apply(move)
    play_forced_moves(after)
    step = after.legal_moves()[0]
    line = expected_line([state.clone()], OneNodeTree(step, LINE_LEAST_VISITS), move)
    assert line == (LineStep(after.to_move, step, after.move_to_text(step)),)
    assert expected_line([state.clone()], OneNodeTree(step, LINE_LEAST_VISITS - 1), move) == ()
