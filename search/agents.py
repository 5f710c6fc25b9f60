"""Agents and agent specs: `random`, `ismcts:iterations=2000,c=0.7`, `ismcts:seconds=0.5,mode=mo`."""
from __future__ import annotations

import os
import queue
import random as _random
import shlex
import shutil
import signal
import subprocess
import threading
import time as _time
import weakref
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Callable, Dict, List, Optional, Sequence

from cext.core import GameCore
from engine.validation import decimal_number, decimal_text, quoted, whole_number
from search.config import (DEFAULT_SECONDS, MAX_C, MAX_ITERATIONS, MAX_SECONDS, MAX_SKILL,
                           MAX_WORKERS, OPPONENTS, PLAYOUTS, SEED_SPACE, Budget, SearchConfig,
                           check_skill, game_config, reproducible_budget, skill_budget)
from search.ismcts import search, skill_move
from search.parallel import SearchSession, search_with_workers

# Whether an ismcts agent keeps its tree from one decision to the next (option reuse=).
# Off until a measurement at equal budget shows a gain (docs/strength.md): the issue keeps
# reuse only where it gains, and no such figure was in when this was written.
REUSE_TREES = False


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
        self.rng = _random.Random(seed % SEED_SPACE)

    def choose(self, state: GameCore) -> int:
        return self.rng.choice(state.legal_moves())


class HeuristicAgent(Agent):
    """The game's rule-based agent (search/heuristics/<game>.py), fed a determinization of the
    position for its seat, so it can only use what that seat knows."""

    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.rng = _random.Random(seed % SEED_SPACE)

    def choose(self, state: GameCore) -> int:
        from search.heuristics import heuristic_move

        return heuristic_move(state, self.rng)


class SearchingAgent(Agent):
    """An agent that searches: its seed, its budget per move and the search settings its spec
    gives. What the spec leaves out comes from the game's row in the registry when a game is
    searched (search.config.game_config): without iterations or seconds, the game's
    reproducible equivalent of a second of search (reproducible_budget), so that `ismcts`
    means the same strength in a match, the arena and the protocol. A move with no
    alternative is played without a search."""

    name = "searching"

    def __init__(self, seed: int, iterations: int, seconds: float,
                 settings: Dict[str, object]) -> None:
        Budget(iterations, seconds)                         # ValueError now, not mid-game
        self.seed = seed
        self.iterations, self.seconds = iterations, seconds
        self.settings = dict(settings)                       # SearchConfig fields it sets
        SearchConfig(**self.settings)                        # ValueError now for a bad one
        self.calls = 0

    def budget_for(self, state: GameCore) -> Budget:
        """The budget of one search of `state`: the spec's, or the game's default."""
        if self.iterations or self.seconds:
            return Budget(self.iterations, self.seconds)
        return reproducible_budget(state.game, state.n_players)

    def config_for(self, state: GameCore) -> SearchConfig:
        """The game's tuned configuration with this agent's settings on top."""
        return game_config(state.game, state.n_players, **self.settings)

    def choose(self, state: GameCore) -> int:
        legal = state.legal_moves()
        if len(legal) == 1:
            return legal[0]
        self.calls += 1
        return self.search_move(state, self.seed * 1_000_003 + self.calls)

    def search_move(self, state: GameCore, seed: int) -> int:
        """The move found by this agent's search of `state`, seeded with `seed`."""
        raise NotImplementedError

    def spec_options(self) -> Dict[str, object]:
        """The options of this agent's spec, as given (the rest are the game's defaults)."""
        options: Dict[str, object] = {}
        if self.iterations:
            options["iterations"] = self.iterations
        if self.seconds:
            options["seconds"] = self.seconds
        options.update(self.settings)
        return options

    def describe(self) -> str:
        """The agent's spec: what it was asked to be (`caravan games` prints the defaults)."""
        return str(AgentSpec(self.name, self.spec_options()))


class IsmctsAgent(SearchingAgent):
    """Information-set MCTS with an iteration and/or time budget, on one process or, with
    `workers` > 1, root-parallel on Ray. Settings it is not given (c, mode, score_weight,
    max_nodes, playout) are the game's (engine.registry.SEARCH_DEFAULTS)."""

    name = "ismcts"

    def __init__(self, seed: int = 0, iterations: int = 0, seconds: float = 0.0,
                 workers: int = 1, reuse: bool = REUSE_TREES, skill: int = MAX_SKILL,
                 **settings: object) -> None:
        super().__init__(seed, iterations, seconds, settings)
        self.workers = workers
        self.reuse = reuse
        self.skill = check_skill(skill)
        if skill < MAX_SKILL and (iterations or seconds):
            raise ValueError("a skill level sets the budget: give skill= or a budget, not both")
        self.session: Optional[SearchSession] = None

    def budget_for(self, state: GameCore) -> Budget:
        if self.skill < MAX_SKILL:
            return skill_budget(self.skill, state.game, state.n_players)
        return super().budget_for(state)

    def search_move(self, state: GameCore, seed: int) -> int:
        budget, config = self.budget_for(state), self.config_for(state)
        if not self.reuse:
            result = search_with_workers(state, budget, config, workers=self.workers, seed=seed)
        else:
            if self.session is None:       # one tree (per worker) through the agent's game
                self.session = SearchSession(self.workers)
            result = self.session.search(state, budget, config, seed=seed)
        return skill_move(result, self.skill, seed)

    def close(self) -> None:
        """Free the kept trees (an agent plays one seat of one game)."""
        if self.session is not None:
            self.session.close()
            self.session = None

    def spec_options(self) -> Dict[str, object]:
        options = super().spec_options()
        if self.workers > 1:
            options["workers"] = self.workers
        if self.reuse != REUSE_TREES:
            options["reuse"] = "yes" if self.reuse else "no"
        if self.skill < MAX_SKILL:
            options["skill"] = self.skill
        return options


class PerfectInformationAgent(SearchingAgent):
    """A search that sees the whole state it is given: nodes keyed by that state, nothing
    sampled. Its exploration constant and node cap are the game's unless given."""

    def __init__(self, seed: int, iterations: int, seconds: float,
                 settings: Dict[str, object]) -> None:
        super().__init__(seed, iterations, seconds, settings)

    def config_for(self, state: GameCore) -> SearchConfig:
        return replace(super().config_for(state), mode="full", determinize=False)


class PimcAgent(PerfectInformationAgent):
    """Determinized perfect-information MCTS: sample `worlds` full states consistent with the
    seat's information, run plain MCTS on each (keys: the whole state), merge the votes.

    Each world's most visited move gets one vote; ties are broken by total visits. The
    budget is shared out among the worlds (with fewer iterations than worlds, as many worlds
    as iterations are searched); with a time budget, the worlds not begun when it
    has run out are left out (each world's search costs at least a chunk, so 10,000 worlds
    in 0.1 s took 3.6 s before)."""

    name = "pimc"

    def __init__(self, seed: int = 0, iterations: int = 0, seconds: float = 0.0,
                 worlds: int = 10, **settings: object) -> None:
        super().__init__(seed, iterations, seconds, settings)
        self.worlds = worlds

    def search_move(self, state: GameCore, seed: int) -> int:
        player = state.to_move
        budget, config = self.budget_for(state), self.config_for(state)
        votes: Dict[int, int] = {}
        visits: Dict[int, int] = {}
        # a world is searched for at least one iteration: fewer iterations than worlds
        # search as many worlds as there are iterations, so the budget holds
        worlds = min(self.worlds, budget.iterations) if budget.iterations else self.worlds
        per_world = Budget(budget.iterations // worlds if budget.iterations else 0,
                           budget.seconds / worlds)
        base = seed * 1000
        deadline = _time.monotonic() + budget.seconds
        for w in range(worlds):
            if budget.seconds and w > 0 and _time.monotonic() >= deadline:
                break
            world = state.determinized(player, base + w)
            r = search(world, per_world, config, seed=base + w)
            votes[r.move] = votes.get(r.move, 0) + 1
            for s in r.stats:
                visits[s.move] = visits.get(s.move, 0) + s.visits
        return max(votes, key=lambda m: (votes[m], visits.get(m, 0), -m))

    def spec_options(self) -> Dict[str, object]:
        return dict(super().spec_options(), worlds=self.worlds)


class CheatAgent(PerfectInformationAgent):
    """MCTS on the true state, hidden cards and future chance included: an upper bound, not
    a fair player."""

    name = "cheat"

    def __init__(self, seed: int = 0, iterations: int = 0, seconds: float = 0.0,
                 **settings: object) -> None:
        super().__init__(seed, iterations, seconds, settings)

    def search_move(self, state: GameCore, seed: int) -> int:
        return search(state, self.budget_for(state), self.config_for(state), seed=seed).move


AGENT_FAILURE_REASONS = ("crash", "timeout", "illegal move", "invalid output")


class AgentFailure(RuntimeError):
    """An external engine could not give a move: it crashed, did not answer in time, answered
    a move that is not legal, or wrote bytes that are not UTF-8. The arena scores it as a lost
    game (a forfeit); elsewhere it is an error.

    `reason` is one of AGENT_FAILURE_REASONS; the message says what happened.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


DEFAULT_ENGINE_TIMEOUT = 60.0
# The longest line an external engine may write (bytes): a protocol answer is a few hundred;
# an endless line is invalid output, not something to hold in memory until the timeout.
MAX_ENGINE_LINE = 1_000_000
CLOSE_GRACE_SECONDS = 1.0        # after `quit`, and again after SIGTERM, before escalating
EXIT_WAIT_SECONDS = 5.0          # for the exit status of an engine that closed its output


@dataclass(frozen=True)
class _OutputEnded:
    """The reader thread's last word: the engine's output closed, or was not UTF-8."""

    reason: str
    message: str = ""


class EngineProcess:
    """A child process spoken to in lines. A writer and a reader thread move the lines, so the
    caller waits on a queue with a deadline and a stuck engine can never block it.

    The engine runs in its own process group (its own session), so that `close` also ends any
    helper processes it started, and a Ctrl-C at the terminal reaches the arena, which closes
    its engines, rather than the engines themselves.
    """

    def __init__(self, argv: List[str], name: str) -> None:
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        self.inbox: "queue.Queue[object]" = queue.Queue()      # str lines, then _OutputEnded
        self.outbox: "queue.Queue[Optional[str]]" = queue.Queue()  # lines; None closes stdin
        self.ended: Optional[_OutputEnded] = None
        threading.Thread(target=self._read, name=f"read {name}", daemon=True).start()
        threading.Thread(target=self._write, name=f"write {name}", daemon=True).start()
        # runs at close(), or at interpreter exit for callers that never close
        self._close = weakref.finalize(self, stop_process, self.proc, self.outbox)

    def _read(self) -> None:
        with self.proc.stdout:
            while True:
                raw = self.proc.stdout.readline(MAX_ENGINE_LINE + 1)
                if not raw:
                    break
                if len(raw) > MAX_ENGINE_LINE:
                    self.inbox.put(_OutputEnded("invalid output", f"engine {self.name!r} wrote "
                                                f"a line of more than {MAX_ENGINE_LINE:,} bytes"))
                    return
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    self.inbox.put(_OutputEnded("invalid output", f"engine {self.name!r} wrote "
                                                f"bytes that are not UTF-8: {raw[:60]!r}"))
                    return
                self.inbox.put(line.rstrip("\r\n"))
        self.inbox.put(_OutputEnded("crash"))

    def _write(self) -> None:
        stdin = self.proc.stdin
        while True:
            line = self.outbox.get()
            if line is None:
                break
            try:
                stdin.write(line.encode("utf-8") + b"\n")
                stdin.flush()
            except (OSError, ValueError):      # the engine is gone: the reader says how
                break
        try:
            stdin.close()
        except (OSError, ValueError):
            pass

    def send(self, line: str) -> None:
        """Queue one line for the engine (never blocks)."""
        self.outbox.put(line)

    def expect(self, word: str, seconds: float) -> str:
        """The next line whose first word is `word`, skipping others; AgentFailure if the
        engine does not write one within `seconds`, exits first or writes invalid UTF-8."""
        deadline = _time.monotonic() + seconds
        while self.ended is None:
            remaining = deadline - _time.monotonic()
            if remaining <= 0:
                break
            try:
                item = self.inbox.get(timeout=remaining)
            except queue.Empty:
                break
            if isinstance(item, _OutputEnded):
                self.ended = item
            elif item.split(maxsplit=1)[:1] == [word]:
                return item.strip()
        if self.ended is None:
            raise AgentFailure("timeout", f"engine {self.name!r} did not answer {word!r} "
                                          f"within {seconds:g} s")
        if self.ended.reason == "crash":
            raise AgentFailure("crash", f"engine {self.name!r} {self._how_it_ended()} "
                                        f"before answering {word!r}")
        raise AgentFailure(self.ended.reason, self.ended.message)

    def _how_it_ended(self) -> str:
        """How an engine whose output ended went: exited with its status, or, still running,
        closed its output."""
        status = exit_status(self.proc, EXIT_WAIT_SECONDS)
        return f"exited ({status})" if status else "closed its output"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def close(self) -> None:
        """Ask the engine to quit, then end it: see stop_process. Safe to call twice."""
        self._close()


def stop_process(proc: "subprocess.Popen", outbox: "queue.Queue[Optional[str]]",
                 grace: float = CLOSE_GRACE_SECONDS) -> None:
    """End an engine and every process of its group, leaving no zombie and no orphan.

    `quit` and end of input first; if it is still running after `grace` seconds, SIGTERM to
    its process group; after another `grace`, SIGKILL. What the engine started and left
    behind in its group is killed while the engine is still unreaped, so that the group id
    cannot have been reused by then; last, the engine is reaped. Interrupted while it waits
    (Ctrl-C), it kills the group at once and reaps the engine before the interrupt goes on:
    the finalizer that calls it runs once, so nothing would try again.
    """
    outbox.put("quit")
    outbox.put(None)
    try:
        for signal_number in (None, signal.SIGTERM, signal.SIGKILL):
            if signal_number is not None:
                _signal_group(proc, signal_number)
            if exit_status(proc, grace) is not None:
                break
    finally:
        _signal_group(proc, signal.SIGKILL)    # helpers the engine left behind
        proc.wait()


def exit_status(proc: "subprocess.Popen", seconds: float) -> Optional[str]:
    """How the process ended ("exit code 3", "signal 9"), waiting up to `seconds`; None if it
    is still running. Where the platform allows, the process is left unreaped."""
    if proc.returncode is None and not hasattr(os, "waitid"):
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None
    deadline = _time.monotonic() + seconds
    while proc.returncode is None:
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:          # reaped meanwhile: returncode says how
            proc.poll()
            break
        if info is not None:
            exited = info.si_code == os.CLD_EXITED
            return f"exit code {info.si_status}" if exited else f"signal {info.si_status}"
        if _time.monotonic() >= deadline:
            return None
        _time.sleep(0.02)
    code = proc.returncode
    if code is None:
        return None
    return f"signal {-code}" if code < 0 else f"exit code {code}"


def _signal_group(proc: "subprocess.Popen", signal_number: int) -> None:
    """Send a signal to the engine's process group (to the engine alone where there are no
    groups), only while the engine is unreaped, so that the group id is still its own."""
    if proc.returncode is not None:
        return
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal_number)
        else:
            proc.send_signal(signal_number)
    except (ProcessLookupError, PermissionError):
        pass


class CmdAgent(Agent):
    """An external engine that speaks Caravan's protocol (docs/protocol.md). It is given
    only the seat's view (`position <game> view <json>`) and answers `bestmove`.

    The process starts here; the `uci` handshake happens before the first move. Every answer
    must come within `timeout` seconds (plus the move time: the spec's, else the protocol's
    default second), be UTF-8 and be a legal move, or `choose` raises AgentFailure.
    `close()` ends the engine (also at interpreter exit, for callers that forget).
    """

    name = "cmd"

    def __init__(self, program: str, seed: int = 0, iterations: int = 0, seconds: float = 0.0,
                 timeout: float = DEFAULT_ENGINE_TIMEOUT) -> None:
        self.program, self.seed = program, seed
        self.iterations, self.seconds, self.timeout = iterations, seconds, timeout
        argv = program_argv(program)
        try:
            self.engine = EngineProcess(argv, program)
        except OSError as e:
            raise ValueError(f"cannot start engine {program!r}: {e}") from None
        self.ready = False

    def _handshake(self) -> None:
        self.engine.send("uci")
        self.engine.expect("uciok", self.timeout)
        # the protocol's Seed is a spin of at most 2**63 - 1, as UCI front ends keep them in
        # signed 64-bit integers: an external engine gets the seat's seed folded to 63 bits
        self.engine.send(f"setoption name Seed value {self.seed % (2**63)}")
        self.ready = True

    def choose(self, state: GameCore) -> int:
        import json as _json

        if not self.ready:
            self._handshake()
        view = state.to_json(view=state.to_move)
        self.engine.send(f"position {state.game} view "
                         + _json.dumps(view, separators=(",", ":")))
        go = "go"
        if self.iterations:
            go += f" iterations {self.iterations}"
        if self.seconds:
            go += f" movetime {max(1, int(self.seconds * 1000))}"
        self.engine.send(go)
        answer = self.engine.expect("bestmove", self.timeout + (self.seconds or DEFAULT_SECONDS))
        return self._legal_move(state, answer)

    def _legal_move(self, state: GameCore, answer: str) -> int:
        words = answer.split()
        text = words[1] if len(words) > 1 else ""
        try:
            move = state.parse_move(text)
        except ValueError:
            move = None
        if move is None or move not in state.legal_moves():
            shown = text if len(text) <= 40 else text[:39] + "~"
            raise AgentFailure("illegal move", f"engine {self.program!r} played {shown!r}, "
                                               f"not a legal move for seat {state.to_move}")
        return move

    def describe(self) -> str:
        options = {"iterations": self.iterations, "seconds": self.seconds}
        if self.timeout != DEFAULT_ENGINE_TIMEOUT:
            options["timeout"] = self.timeout
        return str(AgentSpec("cmd", {k: v for k, v in options.items() if v}, self.program))

    def close(self) -> None:
        """End the engine: `quit`, then SIGTERM, then SIGKILL (see stop_process)."""
        self.engine.close()


def program_argv(program: str) -> List[str]:
    """The command line of a `cmd:` program, split as a POSIX shell would (no shell runs)."""
    try:
        argv = shlex.split(program)
    except ValueError as e:
        raise ValueError(f"cmd program {program!r}: {e}") from None
    if not argv:
        raise ValueError("cmd needs a program: cmd:<program>, e.g. 'cmd:caravan uci'")
    return argv


def close_agents(agents: Sequence[Agent]) -> None:
    """Close every agent that holds a process (cmd engines); the others need nothing. A
    Ctrl-C during one close still lets the others close, then goes on."""
    interrupt: Optional[KeyboardInterrupt] = None
    for agent in agents:
        close = getattr(agent, "close", None)
        if close is not None:
            try:
                close()
            except KeyboardInterrupt as e:
                interrupt = e
    if interrupt is not None:
        raise interrupt


@dataclass
class _Option:
    kind: Callable[[str], object]
    check: Callable[[object], bool]
    expected: str


def _option_text(value: object) -> str:
    """An option's value as a spec writes it (parsing it gives the value back)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return decimal_text(value) if isinstance(value, float) else str(value)


def _whole(text: str) -> int:
    """A whole-number option's value, in the digits 0-9 as every front door takes numbers."""
    return whole_number(text, "the value")


def _decimal(text: str) -> float:
    """A number option's value: digits with . as the decimal point (no exponent or sign)."""
    return decimal_number(text, "the value")


def _yes_no(text: str) -> bool:
    """An on/off option's value: yes/no, on/off, true/false, 1/0."""
    value = {"yes": True, "on": True, "true": True, "1": True,
             "no": False, "off": False, "false": False, "0": False}.get(text.lower())
    if value is None:
        raise ValueError(text)
    return value


def _iterations(v: object) -> bool:
    return isinstance(v, int) and 0 < v <= MAX_ITERATIONS


def _seconds(v: float) -> bool:
    return 0 < v <= MAX_SECONDS


_ISMCTS_OPTIONS: Dict[str, _Option] = {
    "iterations": _Option(_whole, _iterations, f"an integer from 1 to {MAX_ITERATIONS:,}"),
    "seconds": _Option(_decimal, _seconds, f"seconds, > 0 and at most {MAX_SECONDS:,.0f}"),
    "c": _Option(_decimal, lambda v: 0 <= v <= MAX_C, f"a number between 0 and {MAX_C:g}"),
    "mode": _Option(str, lambda v: v in ("so", "mo"), "so or mo"),
    "max_nodes": _Option(_whole, lambda v: isinstance(v, int) and 1 <= v <= 50_000_000,
                         "an integer between 1 and 50,000,000"),
    "score_weight": _Option(_decimal, lambda v: 0 <= v <= 1,
                            "a number between 0 and 1 (the share of the reward that is the "
                            "score margin)"),
    "playout": _Option(str, lambda v: v in PLAYOUTS,
                       "policy or random (the game's playout policy, or uniformly random)"),
    "opponents": _Option(str, lambda v: v in OPPONENTS,
                         "search or policy (the others in the tree search too, or play the "
                         "game's playout policy)"),
    "groups": _Option(_yes_no, lambda v: isinstance(v, bool),
                      "yes or no (choose a group of moves first where the game has groups: "
                      "in Khiva, the cards to play, then those to give)"),
    "reuse": _Option(_yes_no, lambda v: isinstance(v, bool),
                     "yes or no (keep the search tree from one decision to the next)"),
    "workers": _Option(_whole, lambda v: isinstance(v, int) and 1 <= v <= MAX_WORKERS,
                       f"an integer between 1 and {MAX_WORKERS} (more than 1 searches on Ray)"),
    "skill": _Option(_whole, lambda v: 0 <= v <= MAX_SKILL,
                     f"a whole number from 0 (weakest) to {MAX_SKILL} (full strength)"),
}


@dataclass
class AgentSpec:
    """A parsed agent spec: a kind, its options and, for `cmd`, the engine's command line.

    `str(spec)` is its spec text, which parses back to an equal spec.
    """

    kind: str
    options: Dict[str, object] = field(default_factory=dict)
    program: str = ""

    def build(self, seed: int) -> Agent:
        """A fresh agent for one seat of one game, seeded with `seed`."""
        if self.kind == "random":
            return RandomAgent(seed)
        if self.kind == "heuristic":
            return HeuristicAgent(seed)
        if self.kind == "pimc":
            return PimcAgent(seed=seed, **self.options)  # type: ignore[arg-type]
        if self.kind == "cheat":
            return CheatAgent(seed=seed, **self.options)  # type: ignore[arg-type]
        if self.kind == "cmd":
            return CmdAgent(self.program, seed=seed, **self.options)  # type: ignore[arg-type]
        return IsmctsAgent(seed=seed, **self.options)  # type: ignore[arg-type]

    def check_program(self) -> None:
        """For a `cmd` spec: ValueError unless its program can be found (nothing is started)."""
        if self.kind != "cmd":
            return
        command = program_argv(self.program)[0]
        if shutil.which(command) is None:
            raise ValueError(f"cannot start engine {self.program!r}: {command!r} is not an "
                             "executable program (give its path, or a name on PATH)")

    def __str__(self) -> str:
        items = [self.program] if self.kind == "cmd" else []
        items += [f"{k}={_option_text(v)}" for k, v in self.options.items()]
        return self.kind + (":" + ",".join(items) if items else "")


_BUDGET_OPTIONS = {k: _ISMCTS_OPTIONS[k] for k in ("iterations", "seconds", "c", "max_nodes")}
# Older names of options, still accepted: `time=` was the move time before `seconds=`.
_OPTION_ALIASES = {"time": "seconds"}
AGENT_KINDS = {
    "random": {}, "heuristic": {}, "ismcts": _ISMCTS_OPTIONS,
    "pimc": dict(_BUDGET_OPTIONS, worlds=_Option(_whole, lambda v: 1 <= v <= 10_000,
                                                 "an integer between 1 and 10,000")),
    "cheat": _BUDGET_OPTIONS,
    "cmd": dict({k: _ISMCTS_OPTIONS[k] for k in ("iterations", "seconds")},
                timeout=_Option(_decimal, _seconds,
                                "seconds, > 0 (how long the engine may take to answer)")),
}


def option_name(text: str) -> str:
    """An agent option's name as written (any case, older aliases such as `time`) -> its
    name in the options tables."""
    key = text.strip().lower()
    return _OPTION_ALIASES.get(key, key)


def _parse_options(kind: str, items: List[str]) -> Dict[str, object]:
    """Options `key=value` of an agent kind, each checked; ValueError if one is bad."""
    allowed = AGENT_KINDS[kind]
    options: Dict[str, object] = {}
    for item in filter(None, (x.strip() for x in items)):
        key, eq, raw = item.partition("=")
        key = option_name(key)
        if not eq:
            raise ValueError(f"agent option {quoted(item)} needs a value: write "
                             "<option>=<value>")
        if key not in allowed:
            known = ", ".join(allowed) or "none"
            raise ValueError(f"agent {kind!r} has no option {quoted(key)} (options: {known})")
        opt = allowed[key]
        try:
            value = opt.kind(raw.strip())
        except ValueError:
            raise ValueError(f"option {key} of {kind}: {quoted(raw)} is not {opt.expected}") \
                from None
        # a number is checked as written too: 1.000...01 is above 1 though its float is 1.0
        exact = Decimal(raw.strip()) if opt.kind is _decimal else value
        if not (opt.check(value) and opt.check(exact)):
            raise ValueError(f"option {key} of {kind}: {quoted(raw)} is not {opt.expected}")
        if key in options:
            raise ValueError(f"option {key} given twice for {kind}")
        options[key] = value
    return options


def parse_agent(spec: str) -> AgentSpec:
    """Parse one spec such as `ismcts:iterations=2000,c=0.7` or `cmd:caravan uci,timeout=5`;
    ValueError if it is bad.

    For `cmd`, the program runs up to the first comma (it cannot contain one); the items
    after it are options: `iterations=N`, `seconds=S` (the budget sent with each `go`; `time=`
    is accepted for it) and
    `timeout=S` (how long the engine may take to answer, default 60 s).
    """
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is text such as 'ismcts:iterations=2000', not "
                         f"{quoted(spec)}")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in AGENT_KINDS:
        raise ValueError(f"unknown agent {quoted(kind)}; known agents: {', '.join(AGENT_KINDS)}")
    items = rest.split(",")
    if kind != "cmd":
        return AgentSpec(kind, _parse_options(kind, items))
    program = items[0].strip()
    program_argv(program)                      # ValueError: empty, or unbalanced quotes
    return AgentSpec(kind, _parse_options(kind, items[1:]), program)


def parse_agent_list(text: str) -> List[AgentSpec]:
    """Split a comma-separated agent list: an item holding '=' belongs to the agent before it.

    `ismcts:iterations=2000,c=0.7,random` is two agents.
    """
    if not isinstance(text, str):
        raise ValueError(f"an agent list is text such as 'ismcts,random', not {quoted(text)}")
    groups: List[str] = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            raise ValueError(f"empty item in agent list {quoted(text)}")
        if "=" in item and ":" not in item:
            if not groups:
                raise ValueError(f"option {quoted(item)} comes before any agent")
            prev = groups[-1]
            groups[-1] = prev + ("," if ":" in prev else ":") + item
        else:
            groups.append(item)
    return [parse_agent(g) for g in groups]
