"""`caravan uci`: a line-based stdin/stdout protocol modelled on UCI (see docs/protocol.md).

The main thread reads commands; a search runs in a worker thread in short chunks, so the
engine keeps reading while it searches: `isready` is answered at once and `stop` ends the
search promptly. Every error is one line `info string error <reason>`, changes nothing, and
the engine goes on. End of input ends it cleanly.
"""
from __future__ import annotations

import json
import queue
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, TextIO

from cext.core import GameCore
from engine.registry import GAMES, from_view, game_info, new_game
from search.ismcts import (DEFAULT_C, DEFAULT_MAX_NODES, DEFAULT_SCORE_WEIGHT, collect,
                           make_tree, run_tree)

ENGINE_NAME = "Caravan 0.1.0"
ENGINE_AUTHOR = "the Caravan developers"
MAX_LINE = 1_000_000          # longer input lines are refused (a view is a few kB)
MAX_ITERATIONS = 1_000_000_000
MAX_MOVETIME_MS = 86_400_000


class ProtocolError(Exception):
    """A bad command: reported as `info string error ...`, nothing changes."""


@dataclass
class Option:
    """An engine option as announced by `uci`."""

    name: str
    kind: str                 # spin | string | combo
    default: object
    low: float = 0
    high: float = 0
    choices: tuple = ()

    def announce(self) -> str:
        line = f"option name {self.name} type {self.kind} default {self.default}"
        if self.kind == "spin":
            line += f" min {self.low} max {self.high}"
        for c in self.choices:
            line += f" var {c}"
        return line

    def parse(self, raw: str) -> object:
        if self.kind == "spin":
            try:
                v = int(raw)
            except ValueError:
                raise ProtocolError(f"option {self.name} takes an integer, not {raw!r}") from None
            if not self.low <= v <= self.high:
                raise ProtocolError(f"option {self.name} must be in {self.low}..{self.high}")
            return v
        if self.kind == "combo":
            if raw.lower() not in self.choices:
                raise ProtocolError(f"option {self.name} is one of {', '.join(self.choices)}")
            return raw.lower()
        try:
            v = float(raw)
        except ValueError:
            raise ProtocolError(f"option {self.name} takes a number, not {raw!r}") from None
        if not self.low <= v <= self.high:
            raise ProtocolError(f"option {self.name} must be between {self.low:g} and "
                                f"{self.high:g}")
        return v


OPTIONS: List[Option] = [
    Option("Workers", "spin", 1, 1, 1024),
    Option("Iterations", "spin", 1000, 1, MAX_ITERATIONS),
    Option("MoveTime", "spin", 0, 0, MAX_MOVETIME_MS),
    Option("Seed", "spin", 0, 0, 2**63 - 1),
    Option("C", "string", DEFAULT_C, 0.0, 100.0),
    Option("ScoreWeight", "string", DEFAULT_SCORE_WEIGHT, 0.0, 1.0),
    Option("KeyMode", "combo", "so", choices=("so", "mo")),
    Option("MaxNodes", "spin", DEFAULT_MAX_NODES, 1, 50_000_000),
    Option("HintMoves", "spin", 5, 1, 4096),
]


class Engine:
    """One protocol session: a position, options, and at most one search at a time."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.out_lock = threading.Lock()
        self.options: Dict[str, object] = {o.name.lower(): o.default for o in OPTIONS}
        self.state: Optional[GameCore] = None
        self.searching: Optional[threading.Thread] = None
        self.stop_event = threading.Event()
        self.searches = 0
        self.infinite = False

    # ------------------------------------------------------------------ output
    def send(self, *lines: str) -> None:
        with self.out_lock:
            for line in lines:
                self.out.write(line + "\n")
            self.out.flush()

    def error(self, reason: str) -> None:
        self.send("info string error " + " ".join(reason.split()))

    # ------------------------------------------------------------------ dispatch
    def handle(self, line: str) -> bool:
        """Handle one input line; False when the session should end.

        A command that needs the engine idle waits for a running search to finish first
        (isready, stop, quit and uci never wait), so piped commands run in order.
        """
        if len(line) > MAX_LINE:
            self.error(f"line too long ({len(line)} characters)")
            return True
        words = line.split()
        if not words:
            return True
        cmd, args = words[0], words[1:]
        handler = self.COMMANDS.get(cmd)
        if handler is None:
            self.error(f"unknown command {cmd[:40]!r}")
            return True
        if cmd not in self.WHILE_SEARCHING and self.searching is not None:
            self.searching.join()
        try:
            return handler(self, args, line) is not False
        except ProtocolError as e:
            self.error(str(e))
        except ValueError as e:
            self.error(str(e))
        return True

    def is_searching(self) -> bool:
        return self.searching is not None and self.searching.is_alive()

    # ------------------------------------------------------------------ commands
    def cmd_uci(self, args, line):
        self.send(f"id name {ENGINE_NAME}", f"id author {ENGINE_AUTHOR}",
                  *[o.announce() for o in OPTIONS],
                  "info string games " + " ".join(GAMES), "uciok")

    def cmd_isready(self, args, line):
        self.send("readyok")

    def cmd_setoption(self, args, line):
        # setoption name <id> value <x>
        if len(args) < 2 or args[0] != "name":
            raise ProtocolError("usage: setoption name <id> value <x>")
        rest = args[1:]
        if "value" in rest:
            i = rest.index("value")
            name, value = " ".join(rest[:i]), " ".join(rest[i + 1:])
        else:
            name, value = " ".join(rest), ""
        option = next((o for o in OPTIONS if o.name.lower() == name.lower()), None)
        if option is None:
            raise ProtocolError(f"unknown option {name[:40]!r}")
        if value == "":
            raise ProtocolError(f"option {option.name} needs a value")
        parsed = option.parse(value)
        if option.name == "Workers" and parsed > 1:
            from search.parallel import require_ray

            try:
                require_ray()
            except RuntimeError as e:
                raise ProtocolError(str(e)) from None
        self.options[option.name.lower()] = parsed

    def cmd_ucinewgame(self, args, line):
        self.state = None

    def cmd_position(self, args, line):
        if len(args) < 2:
            raise ProtocolError("usage: position <game> players <n> seed <s> [moves ...] | "
                                "position <game> view <json>")
        info = game_info(args[0])
        if args[1] == "view":
            raw = line.split("view", 1)[1].strip()
            try:
                view = json.loads(raw)
            except json.JSONDecodeError as e:
                raise ProtocolError(f"malformed view JSON: {e.msg} at column {e.colno}") from None
            if not isinstance(view, dict):
                raise ProtocolError("the view must be a JSON object")
            if str(view.get("game", "")).lower() != info.name:
                raise ProtocolError(f"the view is not a {info.title} view")
            self.state = from_view(view)
            return
        self.state = self.position_from_seed(info, args[1:])

    @staticmethod
    def position_from_seed(info, args: List[str]) -> GameCore:
        fields: Dict[str, str] = {}
        moves: List[str] = []
        i = 0
        while i < len(args):
            key = args[i]
            if key == "moves":
                moves = args[i + 1:]
                break
            if key not in ("players", "seed", *info.options) or i + 1 >= len(args):
                extra = "".join(f" [{k} <value>]" for k in info.options)
                raise ProtocolError(f"unexpected {key[:40]!r}: position <game> players <n> "
                                    f"seed <s>{extra} [moves ...]")
            fields[key] = args[i + 1]
            i += 2
        try:
            players = int(fields.pop("players", info.default_players))
            seed = int(fields.pop("seed", 0))
        except ValueError:
            raise ProtocolError("players and seed are integers") from None
        if not 0 <= seed < 2**64:
            raise ProtocolError("seed must be between 0 and 2**64 - 1")
        options = {k: info.options[k][1](v) for k, v in fields.items()}
        state = new_game(info.name, players, seed, **options)
        for n, text in enumerate(moves, 1):
            if state.is_terminal():
                raise ProtocolError(f"move {n} ({text[:40]}) comes after the end of the game")
            try:
                state.apply(state.parse_move(text))
            except ValueError:
                raise ProtocolError(f"illegal move {n} ({text[:40]}) for player "
                                    f"{state.to_move}") from None
        return state

    def need_position(self) -> GameCore:
        if self.state is None:
            raise ProtocolError("no position: send position first")
        return self.state

    def cmd_legal(self, args, line):
        st = self.need_position()
        self.send(" ".join(["legal"] + [st.move_to_text(m) for m in st.legal_moves()]))

    def cmd_d(self, args, line):
        st = self.need_position()
        viewer = st.to_move if st.to_move >= 0 else None
        self.send(*st.render(viewer).splitlines(), "dok")

    def budget(self, args: List[str]):
        iterations, movetime, infinite = 0, 0, False
        i = 0
        while i < len(args):
            key = args[i]
            if key == "infinite":
                infinite = True
                i += 1
                continue
            if key not in ("iterations", "movetime") or i + 1 >= len(args):
                raise ProtocolError(f"unexpected {key[:40]!r}: go [iterations <n>] "
                                    "[movetime <ms>] [infinite]")
            try:
                value = int(args[i + 1])
            except ValueError:
                raise ProtocolError(f"{key} takes an integer") from None
            limit = MAX_ITERATIONS if key == "iterations" else MAX_MOVETIME_MS
            if not 1 <= value <= limit:
                raise ProtocolError(f"{key} must be between 1 and {limit}")
            if key == "iterations":
                iterations = value
            else:
                movetime = value
            i += 2
        if infinite:
            return 0, 0.0
        if not iterations and not movetime:
            iterations = int(self.options["iterations"])
            movetime = int(self.options["movetime"])
        return iterations, movetime / 1000.0

    def cmd_go(self, args, line):
        st = self.need_position()
        iterations, seconds = self.budget(args)
        if st.is_terminal():
            self.send("info string gameover",
                      "info string scores " + " ".join(str(x) for x in st.scores()),
                      "info string ranking " + " ".join(str(x) for x in st.ranking()),
                      "bestmove (none)")
            return
        self.infinite = not iterations and not seconds
        self.start_search(st, iterations, seconds, self.finish_go)

    def cmd_hint(self, args, line):
        st = self.need_position()
        k = int(self.options["hintmoves"])
        if args:
            try:
                k = int(args[0])
            except ValueError:
                raise ProtocolError("usage: hint [<k>]") from None
            if not 1 <= k <= 4096:
                raise ProtocolError("k must be between 1 and 4096")
        if st.is_terminal():
            raise ProtocolError("the game is over: no hint")
        iterations, seconds = self.budget([])
        self.infinite = False
        self.start_search(st, iterations, seconds, lambda r, s: self.finish_hint(r, s, k))

    def cmd_stop(self, args, line):
        self.stop_event.set()
        if self.searching is not None:
            self.searching.join()

    def cmd_quit(self, args, line):
        self.stop_event.set()
        if self.searching is not None:
            self.searching.join()
        return False

    # ------------------------------------------------------------------ searching
    def start_search(self, state: GameCore, iterations: int, seconds: float,
                     finish: Callable) -> None:
        self.stop_event.clear()
        self.searches += 1
        seed = int(self.options["seed"])
        workers = int(self.options["workers"])
        if workers > 1:
            self.start_parallel_search(state, iterations, seconds, seed, workers, finish)
            return
        tree = make_tree(state, state.to_move, seed, float(self.options["c"]),
                         str(self.options["keymode"]), int(self.options["maxnodes"]),
                         score_weight=float(self.options["scoreweight"]))

        def work():
            elapsed = run_tree(tree, iterations, seconds, self.stop_event, self.report, 1.0)
            try:
                finish(collect(state, tree, elapsed), state)
            except Exception as e:  # never leave a client waiting for bestmove
                self.error(f"internal error: {e}")
                self.send("bestmove (none)")

        self.searching = threading.Thread(target=work, name="caravan-search", daemon=True)
        self.searching.start()

    def start_parallel_search(self, state, iterations, seconds, seed, workers, finish) -> None:
        """The same search spread over `workers` Ray actors (root-parallel)."""
        def work():
            try:
                from search.parallel import shared_search

                pool = shared_search(workers)
                result = pool.search(state, iterations=iterations, seconds=seconds, seed=seed,
                                     c=float(self.options["c"]),
                                     mode=str(self.options["keymode"]),
                                     max_nodes=int(self.options["maxnodes"]),
                                     score_weight=float(self.options["scoreweight"]),
                                     stop=self.stop_event)
                if result.failed:
                    self.send(f"info string workers failed {' '.join(map(str, result.failed))}; "
                              f"merged {len(result.answered)} of {result.workers}")
                finish(result, state)
            except Exception as e:  # never leave a client waiting for bestmove
                self.error(f"parallel search failed: {e}")
                self.send("bestmove (none)")

        self.searching = threading.Thread(target=work, name="caravan-search", daemon=True)
        self.searching.start()

    def report(self, tree, elapsed: float) -> None:
        ips = int(tree.iterations / elapsed) if elapsed > 0 else 0
        self.send(f"info iterations {tree.iterations} nodes {tree.n_nodes} "
                  f"time {int(elapsed * 1000)} ips {ips}")

    def summary_lines(self, result, state, k: int, word: str) -> List[str]:
        lines = [f"info iterations {result.iterations} nodes {result.nodes} "
                 f"time {int(result.seconds * 1000)} ips {int(result.iterations_per_second)}"]
        for rank, s in enumerate(result.stats[:k], 1):
            lines.append(f"{word} rank {rank} move {s.text} visits {s.visits} "
                         f"mean {s.mean_reward:.4f} winprob {s.win_probability:.4f} "
                         f"score {s.expected_score:.2f}")
        return lines

    def finish_go(self, result, state) -> None:
        self.send(*self.summary_lines(result, state, len(result.stats), "info"),
                  f"bestmove {result.text}")

    def finish_hint(self, result, state, k: int) -> None:
        self.send(*self.summary_lines(result, state, k, "hint"), "hintok")

    COMMANDS: Dict[str, Callable] = {
        "uci": cmd_uci, "isready": cmd_isready, "setoption": cmd_setoption,
        "ucinewgame": cmd_ucinewgame, "position": cmd_position, "go": cmd_go,
        "stop": cmd_stop, "legal": cmd_legal, "hint": cmd_hint, "d": cmd_d, "quit": cmd_quit,
    }
    WHILE_SEARCHING = {"isready", "stop", "quit", "uci"}


def serve(inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    """Run a protocol session until `quit` or the end of input.

    A reader thread takes the lines as they come: `isready` is answered at once, and `stop`
    and `quit` act at once when nothing is waiting before them; every other line is queued
    for the main thread, which runs them in order.
    """
    engine = Engine(out)
    lines: "queue.Queue[Optional[str]]" = queue.Queue()
    quitting = threading.Event()

    def reader():
        for raw in iter(inp.readline, ""):
            line = raw.rstrip("\r\n")
            cmd = line.split()[0] if line.split() else ""
            if cmd == "isready":
                engine.handle(line)
            elif cmd in ("stop", "quit") and lines.empty():
                engine.stop_event.set()
                if cmd == "quit":
                    quitting.set()
                    break
            else:
                lines.put(line)
            if quitting.is_set():
                break
        lines.put(None)

    threading.Thread(target=reader, name="caravan-reader", daemon=True).start()
    while not quitting.is_set():
        line = lines.get()
        if line is None:
            # end of input: a search with a budget finishes and answers; an infinite one stops
            if engine.infinite:
                engine.stop_event.set()
            break
        if not engine.handle(line):
            quitting.set()
    if quitting.is_set():
        engine.stop_event.set()
    if engine.searching is not None:
        engine.searching.join()
    return 0


def main() -> int:
    # binary junk must not kill the engine: undecodable bytes become U+FFFD
    inp = open(sys.stdin.fileno(), "r", encoding="utf-8", errors="replace", closefd=False,
               newline="\n")
    return serve(inp, sys.stdout)
