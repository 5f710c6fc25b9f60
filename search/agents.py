"""Agents and agent specs: `random`, `ismcts:iterations=2000,c=0.7`, `ismcts:time=0.5,mode=mo`."""
from __future__ import annotations

import random as _random
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from cext.core import GameCore
from search.ismcts import (DEFAULT_C, DEFAULT_MAX_NODES, DEFAULT_SCORE_WEIGHT, SearchResult,
                           search)

DEFAULT_ITERATIONS = 1000


class Agent:
    """Something that picks a move for the player to move, from that player's information."""

    name = "agent"

    def choose(self, state: GameCore) -> int:
        raise NotImplementedError

    def describe(self) -> str:
        return self.name


class RandomAgent(Agent):
    """Uniformly random legal moves, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = _random.Random(seed)

    def choose(self, state: GameCore) -> int:
        return self.rng.choice(state.legal_moves())


class HeuristicAgent(Agent):
    """The game's rule-based agent (search/heuristics/<game>.py), fed a determinization of the
    position for its seat, so it can only use what that seat knows."""

    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.rng = _random.Random(seed)

    def choose(self, state: GameCore) -> int:
        from search.heuristics import heuristic_for

        legal = state.legal_moves()
        if len(legal) == 1:
            return legal[0]
        player = state.to_move
        world = state.determinized(player, self.rng.getrandbits(63))
        move = heuristic_for(state.game)(world, player, self.rng)
        if move not in legal:
            raise RuntimeError(f"heuristic for {state.game} chose an illegal move {move}")
        return move


class IsmctsAgent(Agent):
    """Information-set MCTS with an iteration and/or time budget."""

    name = "ismcts"

    def __init__(self, seed: int = 0, iterations: int = 0, time: float = 0.0, c: float = DEFAULT_C,
                 mode: str = "so", max_nodes: int = DEFAULT_MAX_NODES, workers: int = 1,
                 score_weight: float = DEFAULT_SCORE_WEIGHT) -> None:
        if iterations == 0 and time == 0:
            iterations = DEFAULT_ITERATIONS
        self.workers = workers
        self.seed = seed
        self.iterations = iterations
        self.time = time
        self.c = c
        self.mode = mode
        self.max_nodes = max_nodes
        self.score_weight = score_weight
        self.calls = 0
        self.last: Optional[SearchResult] = None

    def choose(self, state: GameCore) -> int:
        legal = state.legal_moves()
        if len(legal) == 1:
            return legal[0]
        self.calls += 1
        seed = self.seed * 1_000_003 + self.calls
        if self.workers > 1:
            from search.parallel import shared_search

            self.last = shared_search(self.workers).search(
                state, iterations=self.iterations, seconds=self.time, seed=seed, c=self.c,
                mode=self.mode, max_nodes=self.max_nodes, score_weight=self.score_weight)
        else:
            self.last = search(state, iterations=self.iterations, seconds=self.time, seed=seed,
                               c=self.c, mode=self.mode, max_nodes=self.max_nodes,
                               score_weight=self.score_weight)
        return self.last.move

    def describe(self) -> str:
        budget = f"iterations={self.iterations}" if self.iterations else ""
        if self.time:
            budget += ("," if budget else "") + f"time={self.time}"
        workers = f",workers={self.workers}" if self.workers > 1 else ""
        weight = "" if self.score_weight == DEFAULT_SCORE_WEIGHT \
            else f",score_weight={self.score_weight}"
        return f"ismcts:{budget},c={self.c},mode={self.mode}{weight}{workers}"


class PimcAgent(Agent):
    """Determinized perfect-information MCTS: sample `worlds` full states consistent with the
    seat's information, run plain MCTS on each (keys: the whole state), merge the votes.

    Each world's most visited move gets one vote; ties are broken by total visits."""

    name = "pimc"

    def __init__(self, seed: int = 0, iterations: int = 0, time: float = 0.0, worlds: int = 10,
                 c: float = DEFAULT_C, max_nodes: int = DEFAULT_MAX_NODES) -> None:
        if iterations == 0 and time == 0:
            iterations = DEFAULT_ITERATIONS
        self.seed, self.iterations, self.time, self.worlds = seed, iterations, time, worlds
        self.c, self.max_nodes = c, max_nodes
        self.calls = 0

    def choose(self, state: GameCore) -> int:
        legal = state.legal_moves()
        if len(legal) == 1:
            return legal[0]
        self.calls += 1
        player = state.to_move
        votes: Dict[int, int] = {}
        visits: Dict[int, int] = {}
        per_world_it = max(1, self.iterations // self.worlds) if self.iterations else 0
        per_world_s = self.time / self.worlds if self.time else 0.0
        base = (self.seed * 1_000_003 + self.calls) * 1000
        for w in range(self.worlds):
            world = state.determinized(player, base + w)
            r = search(world, iterations=per_world_it, seconds=per_world_s, seed=base + w,
                       c=self.c, mode="full", max_nodes=self.max_nodes, determinize=False)
            votes[r.move] = votes.get(r.move, 0) + 1
            for s in r.stats:
                visits[s.move] = visits.get(s.move, 0) + s.visits
        return max(votes, key=lambda m: (votes[m], visits.get(m, 0), -m))

    def describe(self) -> str:
        budget = f"iterations={self.iterations}" if self.iterations else f"time={self.time}"
        return f"pimc:{budget},worlds={self.worlds},c={self.c}"


class CheatAgent(Agent):
    """MCTS on the true state, hidden cards and future chance included: an upper bound, not
    a fair player."""

    name = "cheat"

    def __init__(self, seed: int = 0, iterations: int = 0, time: float = 0.0,
                 c: float = DEFAULT_C, max_nodes: int = DEFAULT_MAX_NODES) -> None:
        if iterations == 0 and time == 0:
            iterations = DEFAULT_ITERATIONS
        self.seed, self.iterations, self.time, self.c, self.max_nodes = \
            seed, iterations, time, c, max_nodes
        self.calls = 0

    def choose(self, state: GameCore) -> int:
        legal = state.legal_moves()
        if len(legal) == 1:
            return legal[0]
        self.calls += 1
        return search(state, iterations=self.iterations, seconds=self.time,
                      seed=self.seed * 1_000_003 + self.calls, c=self.c, mode="full",
                      max_nodes=self.max_nodes, determinize=False).move

    def describe(self) -> str:
        budget = f"iterations={self.iterations}" if self.iterations else f"time={self.time}"
        return f"cheat:{budget},c={self.c}"


class CmdAgent(Agent):
    """An external engine that speaks Caravan's protocol (docs/protocol.md). It is given
    only the seat's view (`position <game> view <json>`) and answers `bestmove`."""

    name = "cmd"

    def __init__(self, program: str, seed: int = 0, iterations: int = 0, time: float = 0.0,
                 timeout: float = 60.0) -> None:
        import queue
        import shlex
        import subprocess
        import threading

        self.program = program
        self.iterations, self.time, self.timeout = iterations, time, timeout
        try:
            self.proc = subprocess.Popen(shlex.split(program), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                         text=True, bufsize=1)
        except (OSError, ValueError) as e:
            raise ValueError(f"cannot start engine {program!r}: {e}") from None
        self.lines: "queue.Queue" = queue.Queue()

        def pump() -> None:
            for line in self.proc.stdout:
                self.lines.put(line.rstrip("\n"))
            self.lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        self._send("uci")
        self._until("uciok")
        self._send(f"setoption name Seed value {seed % (2**63)}")

    def _send(self, line: str) -> None:
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise RuntimeError(f"engine {self.program!r} has exited") from None

    def _until(self, prefix: str) -> str:
        import queue
        import time as _time

        deadline = _time.monotonic() + self.timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - _time.monotonic()))
            except queue.Empty:
                raise RuntimeError(f"engine {self.program!r} did not answer {prefix!r} "
                                   "in time") from None
            if line is None:
                raise RuntimeError(f"engine {self.program!r} closed its output")
            if line.startswith(prefix):
                return line.strip()

    def choose(self, state: GameCore) -> int:
        import json as _json

        view = state.to_json(view=state.to_move)
        self._send(f"position {state.game} view " + _json.dumps(view, separators=(",", ":")))
        go = "go"
        if self.iterations:
            go += f" iterations {self.iterations}"
        if self.time:
            go += f" movetime {max(1, int(self.time * 1000))}"
        self._send(go)
        answer = self._until("bestmove").split()
        if len(answer) < 2 or answer[1] == "(none)":
            raise RuntimeError(f"engine {self.program!r} gave no move")
        return state.parse_move(answer[1])

    def describe(self) -> str:
        return f"cmd:{self.program}"

    def close(self) -> None:
        try:
            self._send("quit")
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


@dataclass
class _Option:
    kind: Callable[[str], object]
    check: Callable[[object], bool]
    expected: str


def _positive_int(v: object) -> bool:
    return isinstance(v, int) and v > 0


_ISMCTS_OPTIONS: Dict[str, _Option] = {
    "iterations": _Option(int, _positive_int, "a positive integer"),
    "time": _Option(float, lambda v: 0 < v <= 86400, "seconds, > 0"),
    "c": _Option(float, lambda v: 0 <= v <= 100, "a number between 0 and 100"),
    "mode": _Option(str, lambda v: v in ("so", "mo"), "so or mo"),
    "max_nodes": _Option(int, lambda v: isinstance(v, int) and 1 <= v <= 50_000_000,
                         "an integer between 1 and 50,000,000"),
    "score_weight": _Option(float, lambda v: 0 <= v <= 1,
                            "a number between 0 and 1 (the share of the reward that is the "
                            "score margin)"),
    "workers": _Option(int, lambda v: isinstance(v, int) and 1 <= v <= 1024,
                       "an integer between 1 and 1024 (more than 1 searches on Ray)"),
}


@dataclass
class AgentSpec:
    """A parsed agent spec: a kind and its options."""

    kind: str
    options: Dict[str, object] = field(default_factory=dict)

    def build(self, seed: int) -> Agent:
        if self.kind == "random":
            return RandomAgent(seed)
        if self.kind == "heuristic":
            return HeuristicAgent(seed)
        if self.kind == "pimc":
            return PimcAgent(seed=seed, **self.options)  # type: ignore[arg-type]
        if self.kind == "cheat":
            return CheatAgent(seed=seed, **self.options)  # type: ignore[arg-type]
        if self.kind == "cmd":
            opts = dict(self.options)
            program = str(opts.pop("program"))
            return CmdAgent(program, seed=seed, **opts)  # type: ignore[arg-type]
        return IsmctsAgent(seed=seed, **self.options)  # type: ignore[arg-type]

    def __str__(self) -> str:
        if not self.options:
            return self.kind
        return self.kind + ":" + ",".join(f"{k}={v}" for k, v in self.options.items())


_BUDGET_OPTIONS = {k: _ISMCTS_OPTIONS[k] for k in ("iterations", "time", "c", "max_nodes")}
AGENT_KINDS = {
    "random": {}, "heuristic": {}, "ismcts": _ISMCTS_OPTIONS,
    "pimc": dict(_BUDGET_OPTIONS, worlds=_Option(int, lambda v: 1 <= v <= 10_000,
                                                 "an integer between 1 and 10,000")),
    "cheat": _BUDGET_OPTIONS,
    "cmd": {k: _ISMCTS_OPTIONS[k] for k in ("iterations", "time")},
}


def _parse_options(kind: str, items: List[str]) -> Dict[str, object]:
    """Options `key=value` of an agent kind, each checked; ValueError if one is bad."""
    allowed = AGENT_KINDS[kind]
    options: Dict[str, object] = {}
    for item in filter(None, (x.strip() for x in items)):
        key, eq, raw = item.partition("=")
        key = key.strip().lower()
        if not eq:
            raise ValueError(f"agent option {item!r} needs a value: write {key}=<value>")
        if key not in allowed:
            known = ", ".join(allowed) or "none"
            raise ValueError(f"agent {kind!r} has no option {key!r} (options: {known})")
        opt = allowed[key]
        try:
            value = opt.kind(raw.strip())
        except ValueError:
            raise ValueError(f"option {key} of {kind}: {raw!r} is not {opt.expected}") from None
        if not opt.check(value):
            raise ValueError(f"option {key} of {kind}: {raw!r} is not {opt.expected}")
        if key in options:
            raise ValueError(f"option {key} given twice for {kind}")
        options[key] = value
    return options


def parse_agent(spec: str) -> AgentSpec:
    """Parse one spec such as `ismcts:iterations=2000,c=0.7` or `cmd:caravan uci`;
    ValueError if it is bad."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in AGENT_KINDS:
        raise ValueError(f"unknown agent {kind!r}; known agents: {', '.join(AGENT_KINDS)}")
    items = rest.split(",")
    if kind != "cmd":
        return AgentSpec(kind, _parse_options(kind, items))
    # cmd:<program>[,iterations=N][,time=S]: the program runs up to the first option
    program = items[0].strip()
    if not program:
        raise ValueError("cmd needs a program: cmd:<program>, e.g. 'cmd:caravan uci'")
    options = _parse_options(kind, items[1:])
    options["program"] = program
    return AgentSpec(kind, options)


def parse_agent_list(text: str) -> List[AgentSpec]:
    """Split a comma-separated agent list: an item holding '=' belongs to the agent before it.

    `ismcts:iterations=2000,c=0.7,random` is two agents.
    """
    groups: List[str] = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            raise ValueError(f"empty item in agent list {text!r}")
        if "=" in item and ":" not in item:
            if not groups:
                raise ValueError(f"option {item!r} comes before any agent")
            prev = groups[-1]
            groups[-1] = prev + ("," if ":" in prev else ":") + item
        else:
            groups.append(item)
    return [parse_agent(g) for g in groups]
