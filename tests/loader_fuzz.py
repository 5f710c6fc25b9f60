"""Fuzzing the loaders: mutants of real states and views, each loaded in a child process.

The parent (`run_campaign`) deals games, plays them at random, takes full states and seat
views along the way, mutates them (seeded) and streams the mutants to a child process running
`python tests/loader_fuzz.py`. The child loads each one; a mutant it accepts must be a playable
position: `check_invariants` passes, every seat's determinization keeps what the seat knows,
there is a legal move unless the game is over, a short search returns, and random moves to the
end keep the invariants. A child that dies (a crash
in C) or stops answering (a hang) is a finding: the parent saves the input and reports it.
"""
from __future__ import annotations

import copy
import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# ---------------------------------------------------------------- samples
def samples(game: str, rng: random.Random, positions: int) -> List[Tuple[str, dict]]:
    """(kind, object) pairs from random games: full states ("json") and the seat to move's
    views ("view"), at every player count, at random moments (the end included)."""
    from engine.registry import game_info, new_game

    info = game_info(game)
    out: List[Tuple[str, dict]] = []
    counts = list(range(info.min_players, info.max_players + 1))
    while len(out) < positions:
        g = new_game(game, rng.choice(counts), rng.randrange(2**32))
        stops = sorted(rng.sample(range(400), 3))
        moves = 0
        while len(out) < positions:
            if moves in stops or g.is_terminal():
                seat = g.to_move if g.to_move >= 0 else rng.randrange(g.n_players)
                out.append(("json", g.to_json()))
                out.append(("view", g.to_json(view=seat)))
            if g.is_terminal() or moves > stops[-1]:
                break
            g.apply(rng.choice(g.legal_moves()))
            moves += 1
    return out[:positions]


# ---------------------------------------------------------------- mutations
ODD_VALUES = [None, True, False, 0, 1, -1, 2, 7, 255, 256, 2**31, 2**63, 2**64, -2**63, 10**30,
              0.5, 1.0, "", "x", "W1", "A", "over", "khiva", [], {}, [0], [[]], {"a": 1}]


def nodes(obj: Any, path: tuple = ()) -> Iterator[Tuple[tuple, Any]]:
    """Every (path, value) in a JSON value, the root included."""
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from nodes(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from nodes(v, path + (i,))


def get(obj: Any, path: tuple) -> Any:
    for step in path:
        obj = obj[step]
    return obj


def mutate(obj: dict, rng: random.Random) -> dict:
    """One to three random edits: values replaced by odd or nearby ones, keys dropped or
    added, list items dropped, duplicated, swapped or moved between lists, and a field
    swapped between two seats (or other items of one list), which keeps every total."""
    out = copy.deepcopy(obj)
    for _ in range(rng.choice((1, 1, 2, 3))):
        everything = list(nodes(out))
        path, value = rng.choice(everything[1:] or everything)
        parent = get(out, path[:-1]) if path else None
        key = path[-1] if path else None
        roll = rng.random()
        if parent is None:
            continue
        if roll < 0.25 and isinstance(value, int) and not isinstance(value, bool):
            parent[key] = value + rng.choice((-2, -1, 1, 2))
        elif roll < 0.40:
            parent[key] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif roll < 0.50:
            # a value of the same kind from elsewhere in the document
            same = [v for _, v in everything if type(v) is type(value)]
            parent[key] = copy.deepcopy(rng.choice(same))
        elif roll < 0.58 and isinstance(parent, dict):
            del parent[key]
        elif roll < 0.62 and isinstance(parent, dict):
            parent[rng.choice(("extra", "hand", "seed", "view", "zz"))] = copy.deepcopy(value)
        elif roll >= 0.85 and len(path) >= 2 and isinstance(path[-2], int):
            # the same field of two seats swapped: totals and conservation still hold
            others = [d for d in get(out, path[:-2]) if isinstance(d, dict) and d is not parent
                      and key in d]
            if others:
                other = rng.choice(others)
                parent[key], other[key] = other[key], parent[key]
        elif isinstance(value, list) and value:
            op = rng.random()
            if op < 0.3:
                value.pop(rng.randrange(len(value)))
            elif op < 0.6:
                value.append(copy.deepcopy(rng.choice(value)))
            elif op < 0.8:
                i, j = rng.randrange(len(value)), rng.randrange(len(value))
                value[i], value[j] = value[j], value[i]
            else:
                lists = [v for _, v in everything if isinstance(v, list) and v is not value]
                if lists:
                    rng.choice(lists).append(value.pop(rng.randrange(len(value))))
        elif isinstance(value, str):
            strings = [v for _, v in everything if isinstance(v, str)]
            parent[key] = rng.choice(strings)
    return out


# ---------------------------------------------------------------- the child
def as_given(written: Any, given: Any, optional: frozenset) -> Any:
    """`written` without the `optional` keys (derived or defaulted fields) that `given` leaves
    out at the same place: the field policy lets a client leave them out."""
    if isinstance(written, dict) and isinstance(given, dict):
        return {k: as_given(v, given.get(k), optional) for k, v in written.items()
                if k in given or k not in optional}
    if isinstance(written, list) and isinstance(given, list) and len(written) == len(given):
        return [as_given(w, g, optional) for w, g in zip(written, given)]
    return written


def check_accepted(state: Any, rng: random.Random, kind: str, data: dict) -> None:
    """An accepted position must be what it was given as and playable: it writes back the
    input (sets in any order, derived fields left out where the input left them out), a full
    state loads again unchanged; invariants, a determinization for every seat that the seat
    cannot tell from it (engine.conformance), a legal move unless over, a search that returns,
    and random moves to the end that keep the invariants."""
    from engine.conformance import check_samples_keep_the_observers_knowledge
    from search.ismcts import search

    cls = type(state)
    view = data["view"] if kind == "view" else None
    optional = cls.DERIVED | (cls.DEFAULTED if view is None else cls.VIEW_DEFAULTED)
    assert as_given(state.to_json(view), data, optional) == cls.codec().canonical(data), \
        "accepted, but it writes back another position"
    if view is None:
        assert cls.from_json(state.to_json()).to_json() == state.to_json(), \
            "accepted, but its own JSON loads into another state"
    state.check_invariants()
    check_samples_keep_the_observers_knowledge(state, 1, "mover")
    if state.is_terminal():
        return
    legal = state.legal_moves()
    assert legal, "accepted, not over, and no legal move"
    result = search(state, iterations=40, seed=1)
    assert result.move in legal, "the search chose an illegal move"
    for _ in range(600):
        if state.is_terminal():
            return
        state.apply(rng.choice(state.legal_moves()))
        state.check_invariants()


def child() -> None:
    """Read one JSON request per line, answer `start <i>` then `ok <i> <verdict>`."""
    from engine.registry import from_json, from_view

    out = sys.stdout
    for line in sys.stdin:
        req = json.loads(line)
        i = req["i"]
        out.write(f"start {i}\n")
        out.flush()
        try:
            st = (from_view if req["kind"] == "view" else from_json)(req["data"])
        except ValueError as e:
            verdict = "refused " + str(e).replace("\n", " ")[:200]
        except Exception as e:                     # noqa: BLE001 - any other type is a finding
            verdict = f"BAD {type(e).__name__}: {e}"[:300]
        else:
            try:
                check_accepted(st, random.Random(i), req["kind"], req["data"])
                verdict = "accepted"
            except Exception as e:                 # noqa: BLE001
                verdict = f"BAD accepted but not playable: {type(e).__name__}: {e}"[:300]
        out.write(f"ok {i} {verdict}\n")
        out.flush()


# ---------------------------------------------------------------- the parent
@dataclass
class Campaign:
    game: str
    seed: int
    sent: int = 0
    accepted: int = 0
    refused: int = 0
    findings: List[str] = field(default_factory=list)


def _reader(stream, lines: "queue.Queue[Optional[str]]") -> None:
    for line in stream:
        lines.put(line.rstrip("\n"))
    lines.put(None)


def _start_child() -> Tuple[subprocess.Popen, "queue.Queue[Optional[str]]"]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]))
    proc = subprocess.Popen([sys.executable, str(HERE / "loader_fuzz.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=str(ROOT))
    lines: "queue.Queue[Optional[str]]" = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    return proc, lines


def run_campaign(game: str, seed: int, mutants: int, seconds: float, save_dir: Path,
                 per_input_timeout: float = 20.0) -> Campaign:
    """Load up to `mutants` mutants of `game` (stopping after `seconds`) in a child process;
    every crash, hang or non-ValueError is saved to `save_dir` and listed in findings."""
    rng = random.Random(seed)
    base = samples(game, rng, 60)
    c = Campaign(game, seed)
    proc, lines = _start_child()
    t0 = time.monotonic()
    try:
        for i in range(mutants):
            if time.monotonic() - t0 > seconds:
                break
            kind, obj = rng.choice(base)
            data = mutate(obj, rng)
            req = {"i": i, "kind": kind, "data": data}
            proc.stdin.write(json.dumps(req) + "\n")
            proc.stdin.flush()
            c.sent += 1
            verdict = _await(lines, i, per_input_timeout)
            if verdict is None or verdict.startswith("BAD"):
                what = verdict or ("hang" if proc.poll() is None else f"crash (exit {proc.poll()})")
                path = save_dir / f"{game}-seed{seed}-{i}.json"
                save_dir.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(req))
                c.findings.append(f"{what}; input saved to {path}")
                if verdict is None:            # the child is gone or stuck: start a new one
                    proc.kill()
                    proc, lines = _start_child()
            elif verdict.startswith("accepted"):
                c.accepted += 1
            else:
                c.refused += 1
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return c


def _await(lines: "queue.Queue[Optional[str]]", i: int, timeout: float) -> Optional[str]:
    """The child's verdict on input i, or None if it died or did not answer in time."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if line is None:
            return None
        if line.startswith(f"ok {i} "):
            return line[len(f"ok {i} "):]


if __name__ == "__main__":
    child()
