"""Golden numbers: perft counts and a search signature for every game, as chess engines keep
perft files and Stockfish a `bench` signature. Any change of the rules' behaviour (moves
generated, chance drawn, information keyed) or of the search changes one of them at once.
A third part pins the rule-based agents: whole games of each game's heuristic against itself
(search/heuristics), their moves digested, so that a change of how the heuristic plays, in
its module or in anything it calls, shows as a change of behaviour too. A fourth part pins
the cores' random playouts (the loop `random_playouts` times and `playout=random` plays),
which no search at the defaults runs: a speed change there must leave every game as it was.

The positions are reached by a fixed line of moves from a seeded deal: at each ply the move
at a seeded index of the legal moves (ascending), so they do not depend on how moves are
encoded as ints, only on their order. Chance is part of each move (drawn from the state's
own generator), so a position and its perft count are fixed numbers.

    python -m search.golden            # compare with tests/golden/<game>.json
    python -m search.golden --write    # record them again (after a deliberate change)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Dict, List, Sequence

from cext.core import GameCore
from cext.ismcts import random_playout_outcomes
from engine.registry import GAMES, game_info, new_game
from search.config import Budget, SearchConfig
from search.heuristics import heuristic_move
from search.ismcts import search

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "golden"
PLIES = (0, 7, 25)              # where along the line the positions are taken
PERFT_MOST_LEAVES = 200_000     # the recorded depth is the deepest that stays under this
SIGNATURE_ITERATIONS = 300
SIGNATURE_SEED = 11
SIGNATURE_MODES = ("so", "mo")
PLAYOUT_GAMES = 10              # random playouts from each golden position
HEURISTIC_GAMES = 20            # heuristic self-play games per player count
PARTS = ("perft", "signature", "heuristic", "playouts")
PLAY_PARTS = PARTS[:3]          # what decides how an agent at the defaults plays


def golden_position(game: str, players: int, seed: int, plies: int) -> GameCore:
    """The position `plies` moves into the seeded line of `game` for `players` (fewer if the
    game ends sooner)."""
    state = new_game(game, players, seed=seed)
    pick = random.Random(seed * 7919 + plies)
    for _ in range(plies):
        if state.is_terminal():
            break
        moves = state.legal_moves()
        state.apply(moves[pick.randrange(len(moves))])
    return state


def _positions(game: str):
    info = game_info(game)
    for players in range(info.min_players, info.max_players + 1):
        for plies in PLIES:
            yield players, 1000 + players, plies


def perft_depth(state: GameCore) -> int:
    """The deepest perft depth whose count stays under PERFT_MOST_LEAVES (at least 1)."""
    depth = 1
    while depth < 6 and state.perft(depth + 1) <= PERFT_MOST_LEAVES:
        depth += 1
    return depth


def perft_rows(game: str, depths: Dict[tuple, int] | None = None) -> List[dict]:
    """Perft counts of every golden position, at the recorded depths when given."""
    rows = []
    for players, seed, plies in _positions(game):
        state = golden_position(game, players, seed, plies)
        depth = depths[(players, seed, plies)] if depths else perft_depth(state)
        rows.append({"players": players, "seed": seed, "plies": plies, "depth": depth,
                     "count": state.perft(depth)})
    return rows


def signature_rows(game: str) -> List[dict]:
    """Fixed seeded searches from the golden positions: nodes, chosen move, top visits."""
    rows = []
    for players, seed, plies in _positions(game):
        state = golden_position(game, players, seed, plies)
        if state.is_terminal():
            continue
        for mode in SIGNATURE_MODES:
            result = search(state, Budget(iterations=SIGNATURE_ITERATIONS),
                            SearchConfig(mode=mode), seed=SIGNATURE_SEED)
            rows.append({"players": players, "seed": seed, "plies": plies, "mode": mode,
                         "nodes": result.nodes, "move": result.text,
                         "visits": [s.visits for s in result.stats[:4]]})
    return rows


def heuristic_rows(game: str) -> List[dict]:
    """Seeded games of the heuristic in every seat, per player count: their moves (counted,
    and digested in notation), and each seat's scores summed over the games. Each seat has its
    own generator, as each heuristic agent at a table has."""
    rows = []
    info = game_info(game)
    for players in range(info.min_players, info.max_players + 1):
        first = 2000 + 100 * players
        digest = hashlib.sha256()
        moves = 0
        scores = [0] * players
        for deal in range(first, first + HEURISTIC_GAMES):
            state = new_game(game, players, seed=deal)
            rngs = [random.Random(deal * 10 + seat) for seat in range(players)]
            while not state.is_terminal():
                move = heuristic_move(state, rngs[state.to_move])
                digest.update(state.move_to_text(move).encode() + b" ")
                state.apply(move)
                moves += 1
            scores = [total + s for total, s in zip(scores, state.scores())]
        rows.append({"players": players, "deals": [first, first + HEURISTIC_GAMES - 1],
                     "moves": moves, "digest": digest.hexdigest()[:16], "scores": scores})
    return rows


def playout_rows(game: str) -> List[dict]:
    """Seeded random playouts from the golden positions: their moves and each seat's scores,
    summed over the games."""
    rows = []
    for players, seed, plies in _positions(game):
        state = golden_position(game, players, seed, plies)
        if state.is_terminal():
            continue
        outcomes = random_playout_outcomes(state, PLAYOUT_GAMES, SIGNATURE_SEED)
        rows.append({"players": players, "seed": seed, "plies": plies, "games": PLAYOUT_GAMES,
                     "moves": sum(moves for moves, _ in outcomes),
                     "scores": [round(sum(s[p] for _, s in outcomes), 6) for p in range(players)]})
    return rows


def golden(game: str, recorded: dict | None = None) -> dict:
    """The golden numbers of `game` (perft at the depths of `recorded` when given)."""
    depths = None
    if recorded is not None:
        depths = {(r["players"], r["seed"], r["plies"]): r["depth"] for r in recorded["perft"]}
    return {"game": game, "perft": perft_rows(game, depths), "signature": signature_rows(game),
            "heuristic": heuristic_rows(game), "playouts": playout_rows(game)}


def golden_file(game: str) -> Path:
    return GOLDEN_DIR / f"{game}.json"


def dumps(numbers: dict, parts: Sequence[str] = PARTS) -> str:
    """The golden file's text (or the text of its `parts`): one row a line, so a change reads
    as a short diff."""
    lines = [f'{{"game": {json.dumps(numbers["game"])},']
    for i, part in enumerate(parts):
        rows = ",\n  ".join(json.dumps(r) for r in numbers[part])
        lines.append(f' "{part}": [\n  {rows}\n ]' + ("," if i < len(parts) - 1 else "}"))
    return "\n".join(lines) + "\n"


def play_text(game: str) -> str:
    """The recorded perft, search signature and heuristic games of `game` as text: what
    bench/strength.py's fingerprint hashes (random playouts do not decide how an agent at the
    defaults plays)."""
    return dumps(load_golden(game), PLAY_PARTS)


def load_golden(game: str) -> dict:
    return json.loads(golden_file(game).read_text())


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m search.golden", description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", default=sorted(GAMES))
    parser.add_argument("--write", action="store_true", help="record the numbers again")
    args = parser.parse_args(argv)
    differs = 0
    for game in args.games:
        if args.write:
            GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
            golden_file(game).write_text(dumps(golden(game)))
            print(f"{game}: written to {golden_file(game)}")
            continue
        recorded = load_golden(game)
        now = golden(game, recorded)
        for part in PARTS:
            same = now[part] == recorded.get(part)
            differs += not same
            print(f"{game} {part}: {'identical' if same else 'DIFFERS'} ({len(now[part])} rows)")
            if not same:
                for a, b in zip(recorded.get(part, []), now[part]):
                    if a != b:
                        print(f"  recorded {a}\n  now      {b}")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
