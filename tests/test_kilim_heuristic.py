"""The Kilim heuristic weaves several pending dominoes by a walk, not a tree of every
placement: a position with four dominoes to place once took it hours (strength runs stalled
on it; tests/positions/kilim-four-dominoes-to-place.json is the state as it was reached)."""
import json
import random
from pathlib import Path

import pytest

from engine.games.kilim import Kilim
from search.heuristics import kilim as heuristic

POSITION = Path(__file__).resolve().parent / "positions" / "kilim-four-dominoes-to-place.json"


@pytest.fixture
def four_to_place() -> Kilim:
    state = Kilim.from_json(json.loads(POSITION.read_text()))
    assert state.phase == "place" and len(state.to_json()["to_place"]) == 4
    return state


def test_four_pending_dominoes_cost_a_bounded_number_of_evaluations(four_to_place, monkeypatch):
    legal = len(four_to_place.legal_moves())
    # each move weighed once, then BEAM finishes of LOOKAHEAD walks over at most about as
    # many placements: linear in the moves, where the tree was legal ** 4
    bound = legal + heuristic.BEAM * heuristic.LOOKAHEAD * (legal + 60)
    calls = []
    evaluate = heuristic.evaluate

    def counted(world, player):
        calls.append(1)
        assert len(calls) <= bound, "the heuristic searches a tree of placements"
        return evaluate(world, player)

    monkeypatch.setattr(heuristic, "evaluate", counted)
    move = heuristic.choose(four_to_place.clone(), four_to_place.to_move, random.Random(1))
    assert move in four_to_place.legal_moves()
    assert len(calls) > legal                   # the finishes did look ahead


def test_the_finish_weaves_every_pending_domino_it_looks_ahead(four_to_place):
    player = four_to_place.to_move
    move = heuristic.choose(four_to_place.clone(), player, random.Random(1))
    world = heuristic.after(four_to_place, move)
    woven = world.kilim_size(player)
    # greedy_finish's walk places the next three dominoes too, each where it evaluates best
    w = world
    for _ in range(heuristic.LOOKAHEAD):
        assert heuristic.continues(w, player)
        w = max((heuristic.after(w, m) for m in w.legal_moves()),
                key=lambda x: heuristic.evaluate(x, player))
    assert w.kilim_size(player) == woven + 2 * heuristic.LOOKAHEAD
    assert heuristic.greedy_finish(world, player) == heuristic.evaluate(w, player)


def test_a_single_placement_is_the_best_evaluation_as_before():
    rng = random.Random(5)
    state = Kilim(2, seed=3)
    checked = 0
    while not state.is_terminal() and checked < 5:
        legal = state.legal_moves()
        if state.phase == "place" and not any(
                heuristic.continues(heuristic.after(state, m), state.to_move) for m in legal):
            p = state.to_move
            values = {m: heuristic.evaluate(heuristic.after(state, m), p) for m in legal}
            chosen = heuristic.best_by_eval(state, p, legal, random.Random(9))
            assert values[chosen] >= max(values.values()) - 1e-3
            checked += 1
        state.apply(rng.choice(legal))
    assert checked == 5
