"""A test client for `caravan uci`: a subprocess with line reads that time out."""
from __future__ import annotations

import queue
import subprocess
import sys
import tempfile
import threading
import time
from typing import List, Optional


class Client:
    """`caravan uci` in a subprocess: send lines, read answers with timeouts (a test never
    hangs on a silent engine)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "engine.cli", "uci"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, line, flush=True) -> None:
        data = line if isinstance(line, bytes) else (line + "\n").encode("utf-8")
        self.proc.stdin.write(data)
        if flush:
            self.proc.stdin.flush()

    def read(self, timeout: float = 30.0) -> str:
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise EOFError("the engine closed its output")
        return line

    def until(self, prefix: str, timeout: float = 60.0) -> List[str]:
        """Lines up to and including the first that starts with `prefix`."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.read(max(0.01, deadline - time.monotonic()))
            out.append(line)
            if line.startswith(prefix):
                return out

    def ask(self, line: str, prefix: str, timeout: float = 60.0) -> List[str]:
        self.send(line)
        return self.until(prefix, timeout)

    def no_output(self, wait: float = 0.2) -> bool:
        try:
            line = self.lines.get(timeout=wait)
        except queue.Empty:
            return True
        self.lines.put(line)
        return False

    def end_input(self, timeout: float = 30.0) -> List[str]:
        """Close the engine's input; the rest of its output, read to its end."""
        self.proc.stdin.close()
        out = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                out.append(self.read(max(0.01, deadline - time.monotonic())))
            except EOFError:
                return out

    def close(self) -> int:
        try:
            self.send("quit")
        except (BrokenPipeError, OSError, ValueError):   # ValueError: input already closed
            pass
        return self.proc.wait(timeout=30)


# ---------------------------------------------------------------- checks every game's tests share
import json as _json
import random as _random
import re as _re

# the documented lines (docs/protocol.md, "go"): a search's summary, a candidate of `go`
# (`info multipv <k> string ...`) or of `hint` (`hint ...`)
INFO = _re.compile(r"^info iterations \d+ nodes \d+ time \d+ nps \d+ ips \d+$")
CANDIDATE = _re.compile(r"^(?:info multipv (?P<multipv>\d+) string|hint) rank (?P<rank>\d+) "
                        r"move (?P<move>\S+) visits (?P<visits>\d+) mean (?P<mean>\d\.\d{4}) "
                        r"winprob (?P<winprob>\d\.\d{4}) points (?P<points>-?\d+\.\d{2})"
                        r"(?: line (?P<length>\d+)(?P<line>(?: \d+ \S+)*))?$")  # line: ShowLine


def check_search_answer(lines: List[str], legal: List[str]) -> str:
    """The documented shape of a `go` answer (docs/protocol.md); returns the best move."""
    assert lines[-1].startswith("bestmove ")
    best = lines[-1].split()[1]
    summary = [l for l in lines if l.startswith("info iterations")]
    assert summary and all(INFO.match(l) for l in summary)
    cands = [CANDIDATE.match(l) for l in lines if l.startswith("info multipv")]
    assert cands and all(cands), lines
    ranks = list(range(1, len(cands) + 1))
    assert [int(m["rank"]) for m in cands] == [int(m["multipv"]) for m in cands] == ranks
    visits = [int(m["visits"]) for m in cands]
    assert visits == sorted(visits, reverse=True)
    assert {m["move"] for m in cands} <= set(legal)
    assert best == cands[0]["move"] and best in legal
    return best


def check_game_over_answer(lines: List[str], g) -> None:
    """`go` on a finished game: no move, and the final scores and ranking of g."""
    assert lines[-4:] == ["info string gameover",
                          "info string scores " + " ".join(str(x) for x in g.scores()),
                          "info string ranking " + " ".join(str(x) for x in g.ranking()),
                          "bestmove (none)"]


def play_from_views(engine: Client, g, iterations: int = 30, max_moves: int = 5000) -> int:
    """Play g to the end as a client that keeps its own table and tells the engine only what
    the seat to move knows; every legal list and answer is checked. Returns the moves."""
    moves = 0
    while not g.is_terminal():
        engine.send(f"position {g.game} view " + _json.dumps(g.to_json(view=g.to_move)))
        legal = engine.ask("legal", "legal")[-1].split()[1:]
        assert legal == [g.move_to_text(m) for m in g.legal_moves()]
        best = check_search_answer(engine.ask(f"go iterations {iterations}", "bestmove"), legal)
        g.apply(g.parse_move(best))
        moves += 1
        assert moves < max_moves
    engine.send(f"position {g.game} view " + _json.dumps(g.to_json(view=0)))
    check_game_over_answer(engine.ask("go", "bestmove"), g)
    return moves


def play_from_the_seed_form(engine: Client, game: str, players: int, seed: int,
                            iterations: int = 30, max_moves: int = 2000) -> None:
    """Play a whole game through `position <game> players N seed S moves ...`, replaying it
    on a local table at the end to check the engine's final answer."""
    from engine.registry import new_game

    moves: List[str] = []
    for _ in range(max_moves):
        engine.send(f"position {game} players {players} seed {seed} moves " + " ".join(moves))
        legal = engine.ask("legal", "legal")[-1].split()[1:]
        lines = engine.ask(f"go iterations {iterations}", "bestmove")
        if lines[-1] == "bestmove (none)":
            assert legal == []
            g = new_game(game, players, seed)
            for m in moves:
                g.apply(g.parse_move(m))
            assert g.is_terminal()
            check_game_over_answer(lines, g)
            return
        moves.append(check_search_answer(lines, legal))
    raise AssertionError("the game did not end")


def check_view_and_seed_forms_search_alike(engine: Client, game: str, players: int,
                                           seed: int, random_moves: int, rng_seed: int,
                                           modes=("so",)) -> None:
    """After `random_moves` random moves, the seed form and the view of the seat to move give
    the same search answer, line for line (timings aside), in every key mode."""
    from engine.registry import new_game

    g = new_game(game, players, seed)
    rng = _random.Random(rng_seed)
    moves = []
    for _ in range(random_moves):
        m = rng.choice(g.legal_moves())
        moves.append(g.move_to_text(m))
        g.apply(m)
    strip = lambda lines: [_re.sub(r" time \d+ nps \d+ ips \d+", "", l) for l in lines]
    engine.send("setoption name Seed value 9")
    for mode in modes:
        engine.send(f"setoption name KeyMode value {mode}")
        engine.send(f"position {game} players {players} seed {seed} moves " + " ".join(moves))
        a = engine.ask("go iterations 500", "bestmove")
        engine.send(f"position {game} view " + _json.dumps(g.to_json(view=g.to_move)))
        b = engine.ask("go iterations 500", "bestmove")
        assert strip(a) == strip(b)
