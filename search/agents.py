"""Agents and agent specs: `random`, `ismcts:iterations=2000,c=0.7`, `ismcts:time=0.5,mode=mo`."""
from __future__ import annotations

import random as _random
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from cext.core import GameCore
from search.ismcts import DEFAULT_C, DEFAULT_MAX_NODES, SearchResult, search

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
                 mode: str = "so", max_nodes: int = DEFAULT_MAX_NODES) -> None:
        if iterations == 0 and time == 0:
            iterations = DEFAULT_ITERATIONS
        self.seed = seed
        self.iterations = iterations
        self.time = time
        self.c = c
        self.mode = mode
        self.max_nodes = max_nodes
        self.calls = 0
        self.last: Optional[SearchResult] = None

    def choose(self, state: GameCore) -> int:
        legal = state.legal_moves()
        if len(legal) == 1:
            return legal[0]
        self.calls += 1
        self.last = search(state, iterations=self.iterations, seconds=self.time,
                           seed=self.seed * 1_000_003 + self.calls, c=self.c, mode=self.mode,
                           max_nodes=self.max_nodes)
        return self.last.move

    def describe(self) -> str:
        budget = f"iterations={self.iterations}" if self.iterations else ""
        if self.time:
            budget += ("," if budget else "") + f"time={self.time}"
        return f"ismcts:{budget},c={self.c},mode={self.mode}"


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
        return IsmctsAgent(seed=seed, **self.options)  # type: ignore[arg-type]

    def __str__(self) -> str:
        if not self.options:
            return self.kind
        return self.kind + ":" + ",".join(f"{k}={v}" for k, v in self.options.items())


AGENT_KINDS = {"random": {}, "heuristic": {}, "ismcts": _ISMCTS_OPTIONS}


def parse_agent(spec: str) -> AgentSpec:
    """Parse one spec such as `ismcts:iterations=2000,c=0.7`; ValueError if it is bad."""
    spec = spec.strip()
    kind, _, rest = spec.partition(":")
    kind = kind.strip().lower()
    if kind not in AGENT_KINDS:
        raise ValueError(f"unknown agent {kind!r}; known agents: {', '.join(AGENT_KINDS)}")
    allowed = AGENT_KINDS[kind]
    options: Dict[str, object] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
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
