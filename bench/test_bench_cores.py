"""The cores and the Python API on them, per game and player count, timed in this process's
CPU time (bench_support.CPU_TIMER).

- random playouts: `cext.ismcts.random_playouts`, whole uniformly random games in C from
  copies of the opening (no information tracking): playouts/s, and moves/s counting every
  move generated and applied in them (the C move generator and `do_move`);
- API moves: a whole seeded random game through the checked Python API (`legal_moves` then
  `apply`), what a Python caller pays per move;
- state copy (`clone`) and the bytes of the C struct a copy moves;
- determinization (`determinized(seat to move, seed)`) of a mid-game position, 1,000 seeds;
- loading a mid-game position from JSON text: the full state (`from_json`) and the view of
  the seat to move (`from_view`), with every check of the loading path.
"""
from __future__ import annotations

import json

import pytest
from bench_support import (CPU_TIMER, LINE_SEED, midgame, opening, playouts_per_round,
                           random_line, state_bytes)


# Copies and determinizations per timed call: a call of well under a microsecond would time
# mostly the clock (the CPU clock is a system call).
BATCH = 1_000


@pytest.mark.benchmark(group="random playouts", timer=CPU_TIMER)
def test_random_playouts(benchmark, record, rounds, game_players):
    from cext.ismcts import random_playouts
    game, players = game_players
    state = opening(game, players)
    games = playouts_per_round(game)
    played, moves, _ = benchmark.pedantic(random_playouts, args=(state, games, 0),
                                          rounds=rounds, warmup_rounds=1)
    assert played == games
    record(game, players, rates={"playouts/s": games, "moves/s": moves},
           values={"moves/game": moves / games, "bytes/state": state_bytes(state),
                   "playouts per round": games})


@pytest.mark.benchmark(group="API moves: legal_moves + apply", timer=CPU_TIMER)
def test_api_moves(benchmark, record, game_players):
    game, players = game_players
    start = opening(game, players)
    n_moves = len(random_line(game, players))

    def play():
        import random
        state, rng, count = start.clone(), random.Random(LINE_SEED), 0
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
            count += 1
        return count
    assert benchmark(play) == n_moves
    record(game, players, rates={"API moves/s": n_moves})


@pytest.mark.benchmark(group="state copy", timer=CPU_TIMER)
def test_state_copy(benchmark, record, game_players):
    game, players = game_players
    state = midgame(game, players)

    def copies():
        for _ in range(BATCH):
            copy = state.clone()
        return copy
    assert benchmark(copies).to_move == state.to_move
    record(game, players, rates={"copies/s": BATCH}, values={"bytes/state": state_bytes(state)})


@pytest.mark.benchmark(group="determinization", timer=CPU_TIMER)
def test_determinization(benchmark, record, game_players):
    game, players = game_players
    state = midgame(game, players)
    seat = state.to_move

    def determinizations():
        for seed in range(BATCH):
            sample = state.determinized(seat, seed)
        return sample
    assert benchmark(determinizations).legal_moves() == state.legal_moves()
    record(game, players, rates={"determinizations/s": BATCH})


@pytest.mark.benchmark(group="load a state from JSON", timer=CPU_TIMER)
def test_load_json(benchmark, record, game_players):
    from engine.registry import from_json
    game, players = game_players
    state = midgame(game, players)
    text = json.dumps(state.to_json())

    def load():
        return from_json(json.loads(text))
    assert load().to_json() == state.to_json()           # and the schema's validator is built
    benchmark(load)
    record(game, players, rates={"JSON loads/s": 1}, values={"JSON bytes": len(text)})


@pytest.mark.benchmark(group="load a seat's view from JSON", timer=CPU_TIMER)
def test_load_view(benchmark, record, game_players):
    from engine.registry import from_view
    game, players = game_players
    state = midgame(game, players)
    text = json.dumps(state.to_json(view=state.to_move))

    def load():
        return from_view(json.loads(text))
    assert load().legal_moves() == state.legal_moves()   # and the schema's validator is built
    benchmark(load)
    record(game, players, rates={"view loads/s": 1}, values={"view bytes": len(text)})
