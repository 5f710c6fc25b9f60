"""`caravan uci`: a line-based stdin/stdout protocol modelled on UCI (see docs/protocol.md).

A reader thread numbers the input lines as they arrive and acts on `stop` and `quit` at
once; the main thread runs the other commands in order (so `isready` is answered once every
earlier command has been processed); a search runs in a worker thread in short chunks.
`stop` stops every search asked for on an earlier line, running or still queued. Every
error, expected or not, is one line `info string error <reason>`, changes nothing, and the
engine goes on; a `go` or `hint` that fails still ends its answer (`bestmove (none)`,
`hintok`). End of input ends it cleanly.
"""
from __future__ import annotations

import json
import os
import queue
import re
import sys
import threading
from dataclasses import dataclass
from decimal import Decimal
from typing import Callable, Dict, List, Optional, TextIO, Tuple

from cext.core import GameCore
from engine.registry import GAMES, from_json, from_view, game_info, new_game
from engine.validation import DECIMAL, ViewError, parse_json, quoted, read_line, whole_number
from search.config import (DEFAULT_MAX_NODES, DEFAULT_SECONDS, MAX_C, MAX_ITERATIONS,
                           MAX_SECONDS, MAX_SKILL, Budget, SearchConfig, clock_seconds,
                           game_config, reproducible_budget, skill_budget)
from search.ismcts import root_moves_of, skill_move
from search.parallel import search_with_workers, shared_search

ENGINE_NAME = "Caravan 0.1.0"
ENGINE_AUTHOR = "the Caravan developers"
MAX_LINE = 1_000_000          # longer input lines are refused (only the start is kept)
MAX_JSON = 100_000            # longer JSON in `position ... view` is refused (a view is < 3 kB)
MAX_REASON = 500              # error reasons are cut to this many characters
MAX_MOVETIME_MS = int(MAX_SECONDS * 1000)
MAX_MOVES_TO_GO = 10_000
MAX_HINT_MOVES = 4096
# Root-parallel workers: beyond a few per core they only time-share the cores (and each is
# a Ray process of its own), so the cap is 4 per core of this machine.
MAX_WORKERS = max(1, 4 * (os.cpu_count() or 1))
# The line that ends the answer of a command that searches, also when it fails.
ANSWER_END = {"go": "bestmove (none)", "hint": "hintok"}


class ProtocolError(Exception):
    """A bad command: reported as `info string error ...`, nothing changes."""


# Words are separated by ASCII spaces (and tabs, as UCI allows any run of white space
# between tokens); str.split() would also split at a no-break space, an em space or U+3000.
SEPARATORS = re.compile(r"[ \t]+")


def split_words(text: str, most: int = 0) -> List[str]:
    """The words of `text`, separated by runs of ASCII spaces and tabs; with `most` > 0, at
    most `most` splits (the rest of the text is the last word, as it was sent)."""
    text = text.lstrip(" \t")
    if most == 0:
        text = text.rstrip(" \t")
    return SEPARATORS.split(text, most) if text else []


def check_words(words: List[str]) -> None:
    """ProtocolError when a word holds another space than the separators (a no-break space
    U+00A0, an em space, ...): the client meant two words, the engine would read one, or a
    name that some lookups strip."""
    for word in words:
        for ch in word:
            if ch.isspace():
                raise ProtocolError(f"words are separated by spaces: {quoted(word)} holds "
                                    f"U+{ord(ch):04X}")


def once(seen: Dict[str, object], key: str) -> None:
    """ProtocolError when the keyword `key` is already in `seen` (a command gives each of
    its keywords once: the last of two would win silently)."""
    if key in seen:
        raise ProtocolError(f"{key} is given twice")



# The value of a search option that means "the game's tuned value" (engine.registry).
AUTO = "auto"


@dataclass
class Option:
    """An engine option as announced by `uci`."""

    name: str
    kind: str                 # spin | string | combo | check
    default: object
    low: float = 0
    high: float = 0
    choices: tuple = ()

    def announce(self) -> str:
        default = str(self.default).lower() if self.kind == "check" else self.default
        line = f"option name {self.name} type {self.kind} default {default}"
        if self.kind == "spin":
            line += f" min {self.low} max {self.high}"
        for c in self.choices:
            line += f" var {c}"
        return line

    def parse(self, raw: str) -> object:
        if self.kind == "spin":
            v = whole_number(raw, f"option {self.name}")
            if not self.low <= v <= self.high:
                raise ProtocolError(f"option {self.name} must be in {self.low}..{self.high}")
            return v
        if self.kind == "check":
            if raw.lower() not in ("true", "false"):
                raise ProtocolError(f"option {self.name} is true or false, not {raw[:40]!r}")
            return raw.lower() == "true"
        if self.kind == "combo":
            if raw.lower() not in self.choices:
                raise ProtocolError(f"option {self.name} is one of {', '.join(self.choices)}")
            return raw.lower()
        if raw.lower() == AUTO:
            return AUTO
        if not DECIMAL.fullmatch(raw):
            raise ProtocolError(f"option {self.name} takes a number such as 0.7 (digits, . as "
                                f"the decimal point) or auto, not {quoted(raw)}")
        v = float(raw)
        if not self.low <= Decimal(raw) <= self.high:      # exactly: 1.000...01 is above 1
            raise ProtocolError(f"option {self.name} must be between {self.low:g} and "
                                f"{self.high:g}")
        return v


OPTIONS: List[Option] = [
    Option("Workers", "spin", 1, 1, MAX_WORKERS),
    Option("Iterations", "spin", 0, 0, MAX_ITERATIONS),
    Option("MoveTime", "spin", int(DEFAULT_SECONDS * 1000), 0, MAX_MOVETIME_MS),
    Option("Seed", "spin", 0, 0, 2**63 - 1),
    Option("C", "string", AUTO, 0.0, MAX_C),
    Option("ScoreWeight", "string", AUTO, 0.0, 1.0),
    Option("KeyMode", "combo", AUTO, choices=(AUTO, "so", "mo")),
    Option("MaxNodes", "spin", DEFAULT_MAX_NODES, 1, 50_000_000),
    Option("HintMoves", "spin", 5, 1, MAX_HINT_MOVES),
    Option("ShowLine", "check", False),
    Option("LiveMoves", "spin", 0, 0, MAX_HINT_MOVES),
    Option("Skill", "spin", MAX_SKILL, 0, MAX_SKILL),
]
# The options that are fields of the session's SearchConfig (option name -> field).
CONFIG_OPTIONS = {"c": "c", "scoreweight": "score_weight", "keymode": "mode",
                  "maxnodes": "max_nodes"}


def parse_json_object(raw: str) -> dict:
    """The JSON object of a `position <game> view <json>` line.

    ProtocolError when it is longer than MAX_JSON characters, or when the one JSON reader of
    every front door (engine.validation.parse_json) refuses it: malformed, an object that
    names a key twice, nested deeper than engine.validation.MAX_DEPTH levels, NaN or
    Infinity, or not an object.
    """
    if len(raw) > MAX_JSON:
        raise ProtocolError(f"the JSON is too long ({len(raw)} characters, at most {MAX_JSON})")
    try:
        return parse_json(raw, "position")
    except ViewError as e:
        raise ProtocolError(str(e)) from None


# go's limits and their ranges: iterations, a move time, or a clock (time left, increment,
# decisions before the next time control) from which the move time is worked out
GO_LIMITS = {"iterations": (1, MAX_ITERATIONS), "movetime": (1, MAX_MOVETIME_MS),
             "time": (1, MAX_MOVETIME_MS), "inc": (0, MAX_MOVETIME_MS),
             "movestogo": (1, MAX_MOVES_TO_GO)}
GO_WORDS = ("infinite", *GO_LIMITS)
GO_USAGE = ("go [iterations <n>] [movetime <ms>] [time <ms> [inc <ms>] [movestogo <n>]] "
            "[infinite] [searchmoves <move>...]")
HINT_USAGE = "hint [<k>] [go's limits] [searchmoves <move>...]"


def split_searchmoves(args: List[str]) -> Tuple[List[str], Optional[List[str]]]:
    """`args` without `searchmoves <move>...`, and those moves (None: not given). The moves
    run to the next of go's words (GO_WORDS: infinite and the limits) or to the end."""
    if "searchmoves" not in args:
        return args, None
    i = args.index("searchmoves")
    j = i + 1
    while j < len(args) and args[j] not in GO_WORDS and args[j] != "searchmoves":
        j += 1
    moves, rest = args[i + 1:j], args[:i] + args[j:]
    if not moves:
        raise ProtocolError("searchmoves needs at least one move")
    if "searchmoves" in rest:
        raise ProtocolError("searchmoves is given twice")
    return rest, moves


def parse_go_limits(args: List[str], usage: str = GO_USAGE) -> Tuple[Dict[str, int], bool]:
    """({limit: value}, infinite) of `go` (GO_USAGE, without searchmoves): the limits given,
    each in its range; ProtocolError when malformed, out of range or inconsistent (a clock's
    inc or movestogo without its time, a time and a movetime both)."""
    limits: Dict[str, int] = {}
    infinite = False
    i = 0
    while i < len(args):
        key = args[i]
        if key == "infinite":
            if infinite:
                raise ProtocolError("infinite is given twice")
            infinite = True
            i += 1
            continue
        if key not in GO_LIMITS or i + 1 >= len(args):
            raise ProtocolError(f"unexpected {key[:40]!r}: {usage}")
        once(limits, key)
        try:
            value = whole_number(args[i + 1], key)
        except ValueError as e:
            raise ProtocolError(str(e)) from None
        low, high = GO_LIMITS[key]
        if not low <= value <= high:
            raise ProtocolError(f"{key} must be between {low} and {high}")
        limits[key] = value
        i += 2
    if ("inc" in limits or "movestogo" in limits) and "time" not in limits:
        raise ProtocolError("inc and movestogo belong to a clock: give its time too")
    if "time" in limits and "movetime" in limits:
        raise ProtocolError("give movetime or time (a clock), not both")
    return limits, infinite


class Engine:
    """One protocol session: a position, options, and at most one search at a time.

    Input lines carry numbers (their order of arrival). A search asked for on line n is
    stopped, whether it runs yet or not, once a `stop` or `quit` numbered above n has
    arrived, or at the end of input when it has no budget.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.out_lock = threading.Lock()
        self.options: Dict[str, object] = {o.name.lower(): o.default for o in OPTIONS}
        self.show_line = False        # ShowLine as the running (or last) search began
        self.state: Optional[GameCore] = None
        self.view_seat: Optional[int] = None      # set up from this seat's view (else: full)
        self.searching: Optional[threading.Thread] = None
        self.line_no = 0                          # number of the line being handled
        # stop bookkeeping, shared with the reader thread under stop_lock
        self.stop_lock = threading.Lock()
        self.stopped_below = 0                    # searches of lines numbered below are stopped
        self.input_ended = False                  # searches without a budget are stopped
        self.search_line = 0                      # the line of the current search
        self.infinite = False                     # the current search has no budget
        self.stop_event = threading.Event()       # the current search's stop

    # ------------------------------------------------------------------ output
    def send(self, *lines: str) -> None:
        with self.out_lock:
            try:
                for line in lines:
                    self.out.write(line + "\n")
                self.out.flush()
            except (OSError, ValueError):           # the front end is gone: nothing to tell
                pass

    def error(self, reason: str, command: str = "") -> None:
        """Report an error as one line; for a `go` or `hint`, also the line that ends its
        answer, so a client waiting for `bestmove` / `hintok` never hangs."""
        lines = ["info string error " + " ".join(reason.split())[:MAX_REASON]]
        if command in ANSWER_END:
            lines.append(ANSWER_END[command])
        self.send(*lines)

    # ------------------------------------------------------------------ stopping
    def request_stop(self, line_no: int = 0, end_of_input: bool = False) -> None:
        """Record a `stop` or `quit` arriving as line `line_no` (every search asked for
        before it stops) or the end of input (searches without a budget stop)."""
        with self.stop_lock:
            self.stopped_below = max(self.stopped_below, line_no)
            self.input_ended = self.input_ended or end_of_input
            self._stop_if_due()

    def _stop_if_due(self) -> None:
        if self.search_line < self.stopped_below or (self.infinite and self.input_ended):
            self.stop_event.set()

    def wait(self) -> None:
        """Wait until the running search (if any) has answered."""
        if self.searching is not None:
            self.searching.join()

    # ------------------------------------------------------------------ dispatch
    def handle(self, line: str, line_no: Optional[int] = None) -> bool:
        """Handle one input line (numbered `line_no`, else the next number); False when the
        session should end.

        A command that needs the engine idle waits for a running search to finish first
        (isready, stop, quit and uci never wait), so piped commands and their answers, errors
        included, come in order. No exception escapes: each becomes one `info string error`
        line (followed by `bestmove (none)` or `hintok` for a `go` or `hint`).
        """
        self.line_no = self.line_no + 1 if line_no is None else line_no
        words = split_words(line, 1)
        cmd = words[0] if words else ""
        try:
            if cmd in self.COMMANDS and cmd not in self.WHILE_SEARCHING:
                self.wait()
            return self.dispatch(cmd, line) is not False
        except (ProtocolError, ValueError) as e:
            self.error(str(e), cmd)
        except Exception as e:  # a bug must not end the session
            self.error(f"internal error: {type(e).__name__}: {e}", cmd)
        return True

    def dispatch(self, cmd: str, line: str) -> object:
        """Run the command of one input line; False ends the session."""
        if len(line) > MAX_LINE:
            raise ProtocolError(f"line too long (more than {MAX_LINE} characters)")
        if not cmd:
            return True
        words = split_words(line)
        handler = self.COMMANDS.get(cmd)
        if handler is None:
            check_words(words[:1])              # `go<no-break space>infinite`: say why
            raise ProtocolError(f"unknown command {cmd[:40]!r}")
        if cmd in self.READ_WORDS:
            # everything after `position <game> view` is the JSON: any character may be in it
            check_words(words[:3] if cmd == "position" and words[2:3] == ["view"] else words)
        return handler(self, words[1:], line)

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
            # Ray starts here, on the main thread, before the option takes: started inside
            # the first search's thread it cost that search seconds, printed Ray's warnings
            # about threads and left Ray's agents running for a minute after quit
            try:
                shared_search(parsed)
            except (RuntimeError, ValueError) as e:
                raise ProtocolError(str(e)) from None
        self.options[option.name.lower()] = parsed

    def cmd_ucinewgame(self, args, line):
        self.state, self.view_seat = None, None

    def cmd_position(self, args, line):
        if not args:
            raise ProtocolError("usage: position <game> [players <n>] [seed <s>] [moves ...] | "
                                "position <game> view <json>")
        info = game_info(args[0])
        if args[1:2] != ["view"]:
            self.state, self.view_seat = self.position_from_seed(info, args[1:]), None
            return
        parts = split_words(line, 3)
        obj = parse_json_object(parts[3] if len(parts) > 3 else "")
        if str(obj.get("game", ""))[:40].lower() != info.name:
            raise ProtocolError(f"the JSON is not a {info.title} view or state")
        if "view" in obj:                       # one seat's view
            state = from_view(obj)
            self.state, self.view_seat = state, int(obj["view"])
        else:                                   # a full state, as `view` prints it
            self.state, self.view_seat = from_json(obj), None

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
            if key.replace("-", "_") in info.options:      # as the command line spells it too
                key = key.replace("-", "_")
            if key not in ("players", "seed", *info.options) or i + 1 >= len(args):
                extra = "".join(f" [{k} <value>]" for k in info.options)
                raise ProtocolError(f"unexpected {key[:40]!r}: position <game> players <n> "
                                    f"seed <s>{extra} [moves ...]")
            once(fields, key)
            fields[key] = args[i + 1]
            i += 2
        players = whole_number(fields.pop("players"), "players") if "players" in fields \
            else info.default_players
        seed = whole_number(fields.pop("seed"), "seed") if "seed" in fields else 0
        if not 0 <= seed < 2**64:
            raise ProtocolError("seed must be between 0 and 2**64 - 1")
        options = dict(fields)
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
        """`d`: the position as the seat to move sees it; a position set up from a view, as
        that seat sees it even when the game is over (the loader made up what it hides)."""
        st = self.need_position()
        viewer = self.view_seat if self.view_seat is not None else (
            st.to_move if st.to_move >= 0 else None)
        self.send(*st.render(viewer).splitlines(), "dok")

    def cmd_view(self, args, line):
        """`view [seat]`: the position as one line of JSON that `position <game> view`
        takes back: the seat's view, or without a seat the full state (the own seat's view
        when the position came from a view)."""
        st = self.need_position()
        seat = None
        if args:
            usage = f"usage: view [<seat 0..{st.n_players - 1}>]"
            if len(args) > 1:
                raise ProtocolError(usage)
            try:
                seat = whole_number(args[0], "a seat")
            except ValueError:
                raise ProtocolError(usage) from None
            if seat >= st.n_players:
                raise ProtocolError(usage)
        if self.view_seat is not None:
            if seat not in (None, self.view_seat):
                raise ProtocolError(f"the position was set up from seat {self.view_seat}'s "
                                    f"view: only view {self.view_seat} is known")
            seat = self.view_seat
        obj = st.to_json() if seat is None else st.to_json(view=seat)
        self.send(json.dumps(obj, separators=(",", ":")))

    def budget(self, args: List[str], usage: str = GO_USAGE) -> Budget:
        """The budget of a search (no limit: until stopped).

        `go infinite` has no budget whatever else it says; go's own `iterations` and
        `movetime` (or the move time a clock gives: search.config.clock_seconds) replace
        the options; without them the options decide (option_budget).
        """
        limits, infinite = parse_go_limits(args, usage)
        if infinite:
            return Budget()
        seconds = limits.get("movetime", 0) / 1000.0
        if "time" in limits:
            seconds = clock_seconds(limits["time"] / 1000.0, limits.get("inc", 0) / 1000.0,
                                    limits.get("movestogo"))
        if limits.get("iterations") or seconds:
            return Budget(limits.get("iterations", 0), seconds)
        return self.option_budget()

    def option_budget(self) -> Budget:
        """The budget of a `go` without limits and of `hint`: the options `Iterations` and
        `MoveTime` (0: no such limit; with both, whichever ends first); with both 0, the
        game's reproducible equivalent of a second (search.config.reproducible_budget)."""
        iterations, movetime = int(self.options["iterations"]), int(self.options["movetime"])
        if iterations or movetime:
            return Budget(iterations, movetime / 1000.0)
        st = self.need_position()
        return reproducible_budget(st.game, st.n_players)

    def search_config(self, state: GameCore) -> SearchConfig:
        """The game's tuned configuration with every option the client set on top (an
        option left at `auto` keeps the game's value)."""
        changes = {field: self.options[key] for key, field in CONFIG_OPTIONS.items()
                   if self.options[key] != AUTO}
        return game_config(state.game, state.n_players, **changes)

    def cmd_go(self, args, line):
        st = self.need_position()
        args, searchmoves = split_searchmoves(args)
        budget = self.budget(args)
        if st.is_terminal():
            self.send("info string gameover",
                      "info string scores " + " ".join(str(x) for x in st.scores()),
                      "info string ranking " + " ".join(str(x) for x in st.ranking()),
                      ANSWER_END["go"])
            return
        skill, seed = int(self.options["skill"]), int(self.options["seed"])
        if skill < MAX_SKILL and not budget.unlimited:   # the level's search, or less
            most = skill_budget(skill, st.game, st.n_players).iterations
            budget = Budget(min(budget.iterations or most, most), budget.seconds)
        self.start_search(st, budget, lambda r, s: self.finish_go(r, s, skill, seed),
                          ANSWER_END["go"], root_moves_of(st, searchmoves))

    def cmd_hint(self, args, line):
        st = self.need_position()
        k = int(self.options["hintmoves"])
        args, searchmoves = split_searchmoves(args)
        if args and args[0] not in GO_WORDS:
            try:
                k = whole_number(args[0], "k")
            except ValueError:
                raise ProtocolError(f"usage: {HINT_USAGE}") from None
            if not 1 <= k <= MAX_HINT_MOVES:
                raise ProtocolError(f"k must be between 1 and {MAX_HINT_MOVES}")
            args = args[1:]
        if args and args[0] not in GO_WORDS:
            raise ProtocolError(f"usage: {HINT_USAGE}")
        budget = self.budget(args, HINT_USAGE)  # go's limits; none: the options'
        if st.is_terminal():
            raise ProtocolError("the game is over: no hint")
        self.start_search(st, budget, lambda r, s: self.finish_hint(r, s, k),
                          ANSWER_END["hint"], root_moves_of(st, searchmoves))

    def cmd_stop(self, args, line):
        self.request_stop(self.line_no)

    def cmd_quit(self, args, line):
        self.request_stop(self.line_no)
        self.wait()
        return False

    # ------------------------------------------------------------------ searching
    def start_search(self, state: GameCore, budget: Budget, finish: Callable,
                     last_line: str, only: Optional[List[int]] = None) -> None:
        """Search `state` on a worker thread (`only`: the root moves searchmoves left);
        `finish(result, state)` answers, `last_line` ends the answer if the search fails."""
        seed, workers = int(self.options["seed"]), int(self.options["workers"])
        lines = self.show_line = bool(self.options["showline"])   # as it was at the start
        live_moves = int(self.options["livemoves"])
        live = (lambda result: self.report_candidates(result, live_moves)) if live_moves else None
        config = self.search_config(state)
        with self.stop_lock:                    # a stop that already came applies at once
            stop = self.stop_event = threading.Event()
            self.search_line = self.line_no
            self.infinite = budget.unlimited
            self._stop_if_due()

        def work():
            try:
                result = search_with_workers(state, budget, config, workers=workers,
                                             seed=seed, stop=stop, progress=self.report,
                                             lines=lines, searchmoves=only, live=live)
                if getattr(result, "failed", None):
                    self.send(f"info string workers failed {' '.join(map(str, result.failed))}"
                              f"; merged {len(result.answered)} of {result.workers}")
                finish(result, state)
            except Exception as e:  # never leave a client waiting for its answer
                self.error(f"internal error: search failed: {type(e).__name__}: {e}")
                self.send(last_line)

        self.searching = threading.Thread(target=work, name="caravan-search", daemon=True)
        self.searching.start()

    def report(self, iterations: int, nodes: int, elapsed: float) -> None:
        """The progress line, about once a second during a search."""
        self.send(search_info_line(iterations, nodes, elapsed))

    def report_candidates(self, result, k: int) -> None:
        """After a progress line, with option LiveMoves k: the k best candidates so far."""
        self.send(*[f"info multipv {rank} string {candidate_fields(rank, s)}"
                    for rank, s in enumerate(result.stats[:k], 1)])

    def finish_go(self, result, state, skill: int = MAX_SKILL, seed: int = 0) -> None:
        show_line = self.show_line
        self.send(search_info_line(result.iterations, result.nodes, result.seconds),
                  *[f"info multipv {rank} string {candidate_fields(rank, s, show_line)}"
                    for rank, s in enumerate(result.stats, 1)],
                  f"bestmove {state.move_to_text(skill_move(result, skill, seed))}")

    def finish_hint(self, result, state, k: int) -> None:
        show_line = self.show_line
        self.send(search_info_line(result.iterations, result.nodes, result.seconds),
                  *[f"hint {candidate_fields(rank, s, show_line)}"
                    for rank, s in enumerate(result.stats[:k], 1)],
                  ANSWER_END["hint"])

    COMMANDS: Dict[str, Callable] = {
        "uci": cmd_uci, "isready": cmd_isready, "setoption": cmd_setoption,
        "ucinewgame": cmd_ucinewgame, "position": cmd_position, "go": cmd_go,
        "stop": cmd_stop, "legal": cmd_legal, "hint": cmd_hint, "d": cmd_d,
        "view": cmd_view, "quit": cmd_quit,
    }
    WHILE_SEARCHING = {"isready", "stop", "quit", "uci"}
    # The commands that read the words after them (the others ignore them: `isready` with
    # words after it is still answered `readyok`, as a client waiting for it expects).
    READ_WORDS = {"setoption", "position", "go", "hint", "view"}


def search_info_line(iterations: int, nodes: int, seconds: float) -> str:
    """`info iterations <n> nodes <n> time <ms> nps <n> ips <n>`: a search's progress or
    summary. `nodes`, `time` and `nps` are UCI's keys (nodes: the tree's decision nodes;
    nps: nodes per second); `iterations` and `ips` (iterations per second) are Caravan's."""
    ms = int(seconds * 1000)
    return (f"info iterations {iterations} nodes {nodes} time {ms} "
            f"nps {per_second(nodes, ms)} ips {per_second(iterations, ms)}")


def per_second(count: int, ms: int) -> int:
    """`count` per second over the `ms` shown beside it, rounded down (so a client that
    divides the two gets the same); 0 when the time shown is 0."""
    return count * 1000 // ms if ms > 0 else 0


def candidate_fields(rank: int, stat, show_line: bool = False) -> str:
    """`rank <k> move <move> visits <n> mean <r> winprob <p> points <s>`: one candidate move
    of a search (ranked by visits), the text after `info multipv <k> string ` and `hint `.
    With `show_line` (option ShowLine) it ends `line <n>` and n pairs `<seat> <move>`: the
    decisions the search expects after the move."""
    fields = (f"rank {rank} move {stat.text} visits {stat.visits} mean {stat.mean_reward:.4f} "
              f"winprob {stat.win_probability:.4f} points {stat.expected_score:.2f}")
    if not show_line:
        return fields
    return fields + f" line {len(stat.line)}" + "".join(f" {step.seat} {step.text}"
                                                       for step in stat.line)


def serve(inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    """Run a protocol session until `quit` or the end of input.

    A reader thread numbers the lines as they come and acts on two at once: `stop` stops
    every search asked for before it (running or queued), `quit` does the same and ends the
    input. Every other line, `isready` included, is queued for the main thread, which runs
    them in order (`isready` does not wait for a running search). At the end of input (or
    after `quit`) the queued commands still run, searches without a budget are stopped,
    and the engine exits once the last search has answered.
    """
    engine = Engine(out)
    lines: "queue.Queue[Optional[tuple]]" = queue.Queue()

    def reader():
        number = 0
        try:
            while True:
                line = read_line(inp, MAX_LINE)
                if line is None:
                    break
                number += 1
                words = split_words(line, 1)
                cmd = words[0] if words else ""
                # an over-long line is refused whatever its first word (Engine.dispatch)
                if cmd in ("stop", "quit") and len(line) <= MAX_LINE:
                    engine.request_stop(number)
                    if cmd == "quit":
                        break
                else:
                    lines.put((number, line))
        finally:                                # end of input, quit, or a broken input
            engine.request_stop(end_of_input=True)
            lines.put(None)

    threading.Thread(target=reader, name="caravan-reader", daemon=True).start()
    while True:
        item = lines.get()
        if item is None or not engine.handle(item[1], item[0]):
            break
    engine.wait()
    return 0


def main() -> int:
    # binary junk must not kill the engine: undecodable bytes become U+FFFD; a byte-order
    # mark that opens the input (some Windows front ends write one) is dropped
    inp = open(sys.stdin.fileno(), "r", encoding="utf-8-sig", errors="replace", closefd=False,
               newline="\n")
    # answers are UTF-8 whatever the locale: no line may be lost to an encoding error
    sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    return serve(inp, sys.stdout)
