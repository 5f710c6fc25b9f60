"""The protocol's cost: `go iterations N` answered with `bestmove`, against the same search
through the Python API, per game at its default player count.

- API: `search.search(opening, Budget(iterations=N), seed=0)`;
- in process: engine.protocol.Engine fed the lines directly, answers written to memory (the
  protocol layer: parsing, the search thread, progress and result lines);
- subprocess: `caravan uci` (`python -m engine.cli uci`, the interpreter running this suite,
  so the same build) over pipes, one engine kept for the whole module;
- `isready` -> `readyok` over the pipes: the bare round trip.

The summary's protocol/API figures are measured pair by pair: before each protocol round, in
the untimed setup, the same search through the API is timed by hand
(bench_support.Reference); the figure is the median over the rounds of protocol time / API
time (1.0: no overhead at all).
"""
from __future__ import annotations

import queue
import subprocess
import sys
import tempfile
import threading

import pytest
from bench_support import SEED, Reference, opening

ITERATIONS = 2_000        # per round: a short search, so that the protocol's share shows
WARMUP = 1


def protocol_config(state):
    """The SearchConfig a `go` searches `state` with in this build: the engine's
    search_config(state) (the game's tuned configuration) where it has one, else its one
    configuration (older builds)."""
    from engine.protocol import Engine
    engine = Engine(Memory())
    if hasattr(engine, "search_config"):
        return engine.search_config(state)
    return engine.config


def api_search(game: str, players: int):
    """The search a `go iterations N` runs (its configuration, seed 0), through the Python
    API."""
    from search import Budget, search
    state = opening(game, players)
    config = protocol_config(state)
    return lambda: search(state, Budget(iterations=ITERATIONS), config, seed=0)
TIMEOUT = 120.0


class Pipe:
    """`caravan uci` in a subprocess, read by a thread so a silent engine fails the benchmark
    instead of hanging it."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "engine.cli", "uci"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=tempfile.gettempdir(),
                                     text=True, bufsize=1)
        self.lines: "queue.Queue[str]" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put("")                            # the engine ended its output

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def ask(self, line: str, prefix: str) -> str:
        """Send `line`; the first answer line starting with `prefix` (an error line or the
        end of the output raises)."""
        self.send(line)
        while True:
            answer = self.lines.get(timeout=TIMEOUT)
            if answer.startswith(prefix):
                return answer
            if answer == "" or "error" in answer:
                raise RuntimeError(f"caravan uci answered {answer!r} to {line!r}")

    def close(self) -> None:
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait(timeout=TIMEOUT)


class Memory:
    """An output for an in-process Engine: what it writes, kept in memory."""

    def __init__(self) -> None:
        self.text: list = []

    def write(self, s: str) -> None:
        self.text.append(s)

    def flush(self) -> None:
        pass


@pytest.fixture(scope="module")
def pipe():
    engine = Pipe()
    engine.ask("isready", "readyok")
    yield engine
    engine.close()


@pytest.mark.benchmark(group="protocol: go iterations N")
def test_search_api(benchmark, record, rounds, game_default):
    result = benchmark.pedantic(api_search(*game_default), rounds=rounds, warmup_rounds=WARMUP)
    game, players = game_default
    assert result.iterations == ITERATIONS
    record(game, players, times={"API search ms": 1000.0}, values={"iterations": ITERATIONS})


@pytest.mark.benchmark(group="protocol: go iterations N")
def test_protocol_in_process(benchmark, record, rounds, game_default):
    from engine.protocol import Engine
    game, players = game_default
    out = Memory()
    engine = Engine(out)
    for line in ("setoption name Seed value 0", f"position {game} players {players} seed {SEED}"):
        engine.handle(line)

    def go():
        engine.handle(f"go iterations {ITERATIONS}")
        engine.wait()
        return "".join(out.text)

    reference = Reference(api_search(game, players))

    def setup():
        reference.run()
        out.text.clear()

    answer = benchmark.pedantic(go, setup=setup, rounds=rounds, warmup_rounds=WARMUP)
    assert "bestmove" in answer and "error" not in answer
    ratio = reference.time_ratio(benchmark, WARMUP)
    record(game, players, times={"in-process ms": 1000.0},
           values={"iterations": ITERATIONS, "in-process/API": ratio})


@pytest.mark.benchmark(group="protocol: go iterations N")
def test_protocol_subprocess(benchmark, record, rounds, pipe, game_default):
    game, players = game_default
    pipe.send("setoption name Seed value 0")
    pipe.send(f"position {game} players {players} seed {SEED}")
    pipe.ask("isready", "readyok")
    reference = Reference(api_search(game, players))
    answer = benchmark.pedantic(lambda: pipe.ask(f"go iterations {ITERATIONS}", "bestmove"),
                                setup=reference.run, rounds=rounds, warmup_rounds=WARMUP)
    assert answer.startswith("bestmove") and "(none)" not in answer
    ratio = reference.time_ratio(benchmark, WARMUP)
    record(game, players, times={"subprocess ms": 1000.0},
           values={"iterations": ITERATIONS, "subprocess/API": ratio})


@pytest.mark.benchmark(group="protocol: isready round trip")
def test_isready_round_trip(benchmark, record, pipe):
    assert benchmark(pipe.ask, "isready", "readyok") == "readyok"
    record(None, None, times={"protocol isready round trip (subprocess) ms": 1000.0})
