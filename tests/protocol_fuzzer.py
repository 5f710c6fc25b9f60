"""The fuzzer of `caravan uci`: seeded random and mutated lines (tests/test_protocol_fuzz.py
runs it in the test suite, bench/fuzz_protocol.py at any length, printing what it did).

How: the engine (`sys.executable -m engine.cli uci`) gets chunks of lines: commands with
mutated arguments, `position <game> view` with real `view` output of every game mutated
(fields replaced, removed, added, lists cut or grown, text truncated or garbled), seed-form
positions with real and broken move lists, junk bytes, huge numbers and lines, unknown
options, and go / stop / isready / position interleaved. After each line the fuzzer sends a
marker (an unknown command, answered in order without waiting for a search), so every answer
can be traced to its line; each chunk ends with `isready` and a command that waits for the
engine to be idle (`stop` follows when searches still run after a second).

Checked: the process never dies or stops answering (each chunk's `readyok` and end within
30 s); an error is exactly one line `info string error <reason>`; every `go` answers exactly
one `bestmove` and every `hint` one `hintok`, also after an error (`bestmove (none)`); every
`isready` one `readyok`; `view` prints a JSON object; no internal error outside the game
loaders. A crash
or hang saves its input to /tmp/protocol-fuzz-findings/ and names the seed and the line.
`Workers` above 1 (Ray) and `quit` are left out of the stream: tests/test_protocol*.py cover
them.
"""
from __future__ import annotations

import copy
import json
import queue
import random
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

from engine.protocol import split_words
from engine.registry import GAMES, new_game
from protocol_client import Client

FINDINGS = Path("/tmp/protocol-fuzz-findings")
ERROR = re.compile(r"^info string error \S")
MARKER = re.compile(r"^info string error unknown command '@fz(\d+)\.(\d+)'$")
ASYNC = ("readyok", "bestmove ", "hintok", "info iterations ", "info multipv ", "hint rank ")
SETTLE = 1.0            # seconds a chunk may search before the fuzzer sends `stop`
TIMEOUT = 30.0          # an engine that answers nothing for this long hangs
OPTIONS = ["Workers", "Iterations", "MoveTime", "Seed", "C", "KeyMode", "ScoreWeight",
           "MaxNodes", "HintMoves", "ShowLine", "LiveMoves"]
NUMBERS = ["0", "1", "2", "3", "-1", "7", "99", "4096", "4097", "1000000000", "1000000001",
           "86400000", "9223372036854775807", "18446744073709551616", "1e3", "0.5", "nan",
           "inf", "-0", "0x10", "1_000", "٣", "", "x", "9" * 400]
WORDS = ["position", "players", "seed", "moves", "view", "go", "iterations", "movetime",
         "infinite", "hint", "legal", "d", "setoption", "name", "value", "stop", "isready",
         "ucinewgame", "uci", "{", "}", "[", "]", '"game"', "null", "\t", "\x00", "é", "💥",
         "\u2028", "\x85", "\r", *GAMES, *OPTIONS, *NUMBERS]
# moves in notation, for searchmoves: the first moves of each game (legal where the fuzzer's
# position is that game's, at the start; elsewhere errors)
MOVE_TEXTS = sorted({g.move_to_text(m) for g in (new_game(name, None, 3) for name in GAMES)
                     for m in g.legal_moves()[:12]})
SPECIAL = [0, -1, 1, 2, 3, 5, 8, 16, 99, 255, 256, 2**31, -2**31, 2**63, 2**64, 10**30,
           -10**30, 0.5, -0.0, 1e308, "", "x", "W9", "board", "khiva", None, True, False, [],
           {}, [0] * 40, ["W1"] * 20, "A" * 300]


# ------------------------------------------------------------------------- real positions
@dataclass
class Corpus:
    """Real material to mutate: whole games (seed forms) and `view` output of each game."""

    games: List[tuple] = field(default_factory=list)     # (game, players, seed, moves)
    jsons: List[str] = field(default_factory=list)       # lines printed by `view`


def collect_corpus(engine: Client, rng: random.Random) -> Corpus:
    corpus = Corpus()
    for game, info in GAMES.items():
        for players in sorted({info.min_players, info.default_players, info.max_players}):
            seed = rng.randrange(1000)
            g = new_game(game, players, seed)
            moves = []
            while not g.is_terminal():
                m = rng.choice(g.legal_moves())
                moves.append(g.move_to_text(m))
                g.apply(m)
            corpus.games.append((game, players, seed, moves))
            for cut in (0, len(moves) // 4, len(moves) // 2, len(moves)):
                engine.send(f"position {game} players {players} seed {seed} moves "
                            + " ".join(moves[:cut]))
                for ask in ["view"] + [f"view {s}" for s in range(players)]:
                    corpus.jsons.append(engine.ask(ask, "{", timeout=TIMEOUT)[-1])
    return corpus


# ------------------------------------------------------------------------- line maker
class LineMaker:
    """Seeded random protocol lines (bytes, without the end of line)."""

    def __init__(self, rng: random.Random, corpus: Corpus) -> None:
        self.rng, self.corpus = rng, corpus
        self.stop_in: Optional[int] = None      # a stop is due after this many more lines

    def line(self) -> tuple:
        """(kind, line bytes)."""
        if self.stop_in is not None:
            self.stop_in -= 1
            if self.stop_in <= 0:
                self.stop_in = None
                return "stop", b"stop"
        r = self.rng
        kinds = [("view-json", 22), ("position", 12), ("go", 15), ("hint", 4), ("query", 7),
                 ("setoption", 8), ("stop", 4), ("isready", 3), ("other", 2), ("junk", 9),
                 ("words", 10), ("huge", 4)]
        kind = r.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        text = getattr(self, "make_" + kind.replace("-", "_"))()
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        return kind, sanitize(data.replace(b"\n", b" "))

    def make_view_json(self) -> str:
        r = self.rng
        raw = r.choice(self.corpus.jsons)
        how = r.random()
        if how < 0.15:
            text = raw
        elif how < 0.7:
            text = json.dumps(mutate_json(json.loads(raw), r, self.corpus),
                              separators=(",", ":") if r.random() < 0.5 else (", ", ": "))
        else:
            text = mutate_text(raw, r)
        game = json.loads(raw)["game"] if r.random() < 0.9 else r.choice([*GAMES, "KHIVA",
                                                                          "chess", ""])
        return f"position {game} view {text}"

    def make_position(self) -> str:
        r = self.rng
        game, players, seed, moves = r.choice(self.corpus.games)
        words = ["position", game if r.random() < 0.9 else r.choice(WORDS)]
        if r.random() < 0.85:
            words += ["players", str(players) if r.random() < 0.8 else r.choice(NUMBERS)]
        if r.random() < 0.85:
            words += ["seed", str(seed) if r.random() < 0.8 else r.choice(NUMBERS)]
        if game == "khan" and r.random() < 0.2:
            words += ["khans", ",".join(r.choice(["impala", "bison", "sable", "llama", "x", ""])
                                        for _ in range(r.randint(0, 6)))]
        if r.random() < 0.8:
            cut = r.randint(0, len(moves))
            ms = list(moves[:cut])
            if r.random() < 0.2:
                ms = list(moves) + ["play-W1-give-W2"] * r.randint(0, 2)
            if ms and r.random() < 0.2:
                ms[r.randrange(len(ms))] = mutate_text(r.choice(ms), r)
            words += ["moves"] + ms
        if r.random() < 0.1:
            words.insert(r.randrange(1, len(words) + 1), r.choice(WORDS))
        return " ".join(words)

    def make_go(self) -> str:
        r = self.rng
        words = ["go"]
        for _ in range(r.choice([0, 1, 1, 2, 3])):
            pick = r.random()
            if pick < 0.45:
                words += ["iterations", str(r.randint(1, 300)) if r.random() < 0.8
                          else r.choice(NUMBERS)]
            elif pick < 0.75:
                words += ["movetime", str(r.randint(1, 30)) if r.random() < 0.8
                          else r.choice(NUMBERS)]
            elif pick < 0.85:
                words.append("infinite")
            elif pick < 0.92:
                words += ["searchmoves", *r.sample(MOVE_TEXTS, r.choice([0, 1, 1, 2, 3]))]
            elif pick < 0.97:
                words += [r.choice(["time", "time", "inc", "movestogo"]),
                          str(r.randint(0, 600)) if r.random() < 0.8 else r.choice(NUMBERS)]
            else:
                words.append(r.choice(WORDS))
        line = " ".join(words)
        long_search = "infinite" in words or any(
            w.isdigit() and int(w) > 10_000 for w in words if len(w) < 30)
        if (long_search or words == ["go"]) and r.random() < 0.9:
            self.stop_in = r.randint(1, 4)
        return line

    def make_hint(self) -> str:
        line = self.rng.choice(["hint", "hint 1", "hint 3", "hint 4096", "hint 0", "hint x",
                                "hint " + self.rng.choice(NUMBERS)])
        if self.rng.random() < 0.2:
            line += " " + self.rng.choice(["iterations", "movetime", "time", "inc", "infinite"])
            line += " " + (str(self.rng.randint(0, 300)) if self.rng.random() < 0.8
                           else self.rng.choice(NUMBERS))
        if self.rng.random() < 0.2:
            line += " searchmoves " + " ".join(self.rng.sample(MOVE_TEXTS, 2))
        return line

    def make_query(self) -> str:
        r = self.rng
        return r.choice(["legal", "d", "view", "view 0", "view 1", "view 2", "view 4",
                         "view -1", "view x", "view 0 1", "view " + r.choice(NUMBERS),
                         "legal extra", "d 1"])

    def make_setoption(self) -> str:
        r = self.rng
        name = r.choice(OPTIONS + ["Nope", "hash", "", "workers", "Move Time"])
        words = ["setoption", "name", name]
        if r.random() < 0.9:
            words += ["value", r.choice(NUMBERS + ["so", "mo", "zz", "0.7", "0.25", "50000000",
                                                   "true", "false", "TRUE", "yes",
                                                   str(r.randint(1, 300))])]
        if r.random() < 0.1:
            del words[r.randrange(len(words))]
        return " ".join(words)

    def make_stop(self) -> str:
        return "stop"

    def make_isready(self) -> str:
        return self.rng.choice(["isready", "isready now"])

    def make_other(self) -> str:
        return self.rng.choice(["ucinewgame", "uci", "ucinewgame 1"])

    def make_junk(self) -> bytes:
        r = self.rng
        return bytes(r.randrange(256) for _ in range(r.randint(1, 200)))

    def make_words(self) -> str:
        r = self.rng
        return " ".join(r.choice(WORDS) for _ in range(r.randint(1, 12)))

    def make_huge(self) -> str:
        r = self.rng
        pick = r.random()
        if pick < 0.3:
            return "go iterations " + "9" * r.randint(20, 6000)
        if pick < 0.5:
            return "position khiva players " + "9" * r.randint(20, 6000) + " seed 1"
        if pick < 0.7:
            return "position khiva view " + "[" * r.randint(30, 50_000)
        if pick < 0.97:
            return "position kilim view " + json.dumps({"game": "kilim", "pad": "x" *
                                                        r.randint(50_000, 150_000)})
        return "d " + "x" * 1_100_000                  # over the line limit


def sanitize(data: bytes) -> bytes:
    """Keep the session going: no `quit`, no Ray (Workers above 1), no fuzzer markers."""
    text = data.decode("utf-8", "replace")
    words = text.split()
    if words and (words[0] == "quit" or words[0].startswith("@fz")):
        return b"x" + data
    if words[:2] == ["setoption", "name"] and "value" in words[2:]:
        i = words.index("value", 2)
        if " ".join(words[2:i]).lower() == "workers":
            try:
                if int(" ".join(words[i + 1:])) > 1:
                    return b"setoption name Workers value 1"
            except ValueError:
                pass
    return data


def special(r: random.Random):
    """One of the SPECIAL values, copied: a list or dict put into a document may be edited by
    a later mutation, and the table must stay as written for the seed to fix the stream."""
    return copy.deepcopy(r.choice(SPECIAL))


def mutate_json(obj, r: random.Random, corpus: Corpus):
    """1-3 structural mutations of a parsed view or state."""
    for _ in range(r.randint(1, 3)):
        if r.random() < 0.15:                   # the top-level keys the loaders dispatch on
            key = r.choice(["game", "view", "players", "to_move", "phase"])
            if r.random() < 0.3:
                obj.pop(key, None)
            else:
                obj[key] = r.choice([*GAMES, 0, 1, 2, 5, -1, None, "x", 2**63])
            continue
        parent, key = random_slot(obj, r)
        if parent is None:
            continue
        op = r.random()
        if op < 0.4:
            parent[key] = special(r) if r.random() < 0.7 else \
                random_slot_value(json.loads(r.choice(corpus.jsons)), r)
        elif op < 0.55:
            del parent[key]
        elif op < 0.65 and isinstance(parent, dict):
            parent[r.choice(["extra", "hand", "x" * 50, str(r.random())])] = special(r)
        elif op < 0.8 and isinstance(parent[key], list):
            lst = parent[key]
            if lst and r.random() < 0.5:
                lst.insert(r.randrange(len(lst) + 1), r.choice(lst))
            elif lst:
                del lst[r.randrange(len(lst)):]
            else:
                lst.append(special(r))
        elif isinstance(parent[key], int) and not isinstance(parent[key], bool):
            parent[key] += r.choice([-100, -2, -1, 1, 2, 100])
        else:
            nest = r.randint(2, 60)
            parent[key] = json.loads("[" * nest + "1" + "]" * nest)
    return obj


def random_slot(obj, r: random.Random):
    """A random (container, key) inside obj, found by a random walk."""
    parent, key = None, None
    node = obj
    while isinstance(node, (dict, list)) and node and (parent is None or r.random() < 0.6):
        k = r.choice(list(node)) if isinstance(node, dict) else r.randrange(len(node))
        parent, key, node = node, k, node[k]
    return parent, key


def random_slot_value(obj, r: random.Random):
    parent, key = random_slot(obj, r)
    return obj if parent is None else parent[key]


def mutate_text(text: str, r: random.Random) -> str:
    if not text:
        return r.choice(WORDS)
    i = r.randrange(len(text))
    op = r.random()
    if op < 0.4:
        return text[:i]                                         # truncated
    if op < 0.7:
        return text[:i] + r.choice('{}[],:"0189-x \\é\x00') + text[i + 1:]
    if op < 0.85:
        return text[:i] + text[r.randrange(len(text)):]         # a slice removed or doubled
    return text[:i] + r.choice(WORDS) + text[i:]


# ------------------------------------------------------------------------- the run
@dataclass
class Report:
    """What a fuzzing run did and found."""

    seed: int
    lines: int = 0
    bytes_sent: int = 0
    chunks: int = 0
    kinds: Counter = field(default_factory=Counter)           # generator kinds
    commands: Counter = field(default_factory=Counter)        # first words the engine saw
    errors: Counter = field(default_factory=Counter)          # error reasons, first words
    gos: int = 0
    bestmoves: int = 0
    hints: int = 0
    views_printed: int = 0
    stops_sent: int = 0
    restarts: int = 0
    internal: List[str] = field(default_factory=list)         # "line -> error", loaders'
    failures: List[str] = field(default_factory=list)         # crashes, hangs, broken answers
    loader_findings: List[str] = field(default_factory=list)  # crashes reproduced by a loader
    seconds: float = 0.0


def fuzz(n_lines: int = 10_000, seed: int = 1, chunk: int = 40,
         log=None) -> Report:
    """Send `n_lines` fuzzed lines to a fresh `caravan uci`; return what happened."""
    t0 = time.monotonic()
    rng = random.Random(seed)
    rep = Report(seed)
    engine = Client()
    maker = LineMaker(rng, collect_corpus(engine, rng))
    context: dict = {}                                        # accepted setoptions, position
    k = 0
    while rep.lines < n_lines:
        k += 1
        batch = [maker.line() for _ in range(min(chunk, n_lines - rep.lines))]
        rep.lines += len(batch)
        rep.chunks += 1
        game, players, seed_, moves = rng.choice(maker.corpus.games)
        start = (f"position {game} players {players} seed {seed_} moves "
                 + " ".join(moves[:rng.randint(0, len(moves) - 1)])).encode()
        out, status = run_chunk(engine, k, start, [b for _, b in batch], rep)
        rep.kinds.update(kind for kind, _ in batch)
        lines = [b for _, b in batch]
        done = check_chunk(out, lines, rep, context, complete=status == "ok")
        if status != "ok":
            culprit = lines[done] if done < len(lines) else b""
            if status == "hang" and not culprit.startswith(b"position"):
                # a search that never returns: blame the last go / hint sent
                culprit = next((l for l in reversed(lines[:done + 1])
                                if l.split()[:1] in ([b"go"], [b"hint"])), culprit)
            report_failure(rep, seed, k, status, engine, lines[:done + 1], culprit, context)
            engine.proc.kill()
            engine.proc.wait(timeout=TIMEOUT)
            engine = Client()
            context = {}
            rep.restarts += 1
        if log and k % 25 == 0:
            log(f"{rep.lines} lines, {len(rep.failures)} failures, "
                f"{len(rep.loader_findings)} loader findings")
    engine.proc.stdin.close()
    try:
        code = engine.proc.wait(timeout=TIMEOUT)
        if code != 0:
            rep.failures.append(f"seed {seed}: exit code {code} at the end of input")
    except subprocess.TimeoutExpired:
        engine.proc.kill()
        rep.failures.append(f"seed {seed}: no exit within {TIMEOUT:.0f} s of the end of input")
    rep.seconds = time.monotonic() - t0
    return rep


def run_chunk(engine: Client, k: int, start: bytes, lines: List[bytes], rep: Report):
    """Send one chunk with markers, after small default budgets and the `start` position;
    (output lines, "ok" | "died <code>" | "hang")."""
    head = [b"setoption name Iterations value 20", b"setoption name MoveTime value 0", start]
    body = []
    for i, line in enumerate(lines):
        body += [line, f"@fz{k}.{i}".encode()]
    sync = f"info string error unknown option '@fzsync{k}'"
    payload = b"\n".join(head + body + [b"isready", f"setoption name @fzsync{k} value 0"
                                        .encode()]) + b"\n"
    rep.bytes_sent += len(payload)
    out: List[str] = []
    try:
        engine.send(payload)
    except (BrokenPipeError, OSError):
        return out, f"died {engine.proc.wait(timeout=TIMEOUT)}"
    deadline, stopped = time.monotonic() + SETTLE, False
    while True:
        try:
            line = engine.read(max(0.01, deadline - time.monotonic()))
        except EOFError:
            return out, f"died {engine.proc.wait(timeout=TIMEOUT)}"
        except queue.Empty:
            if stopped:                         # nothing at all for TIMEOUT seconds
                return out, "hang"
            engine.send("stop")                 # searches still run: stop them all
            rep.stops_sent += 1
            deadline, stopped = time.monotonic() + TIMEOUT, True
            continue
        if line == sync:
            return out, "ok"
        out.append(line)
        if stopped:
            deadline = time.monotonic() + TIMEOUT


def check_chunk(out: List[str], lines: List[bytes], rep: Report, context: dict,
                complete: bool) -> int:
    """Check a chunk's answers line by line; returns how many lines were answered."""
    segments: List[List[str]] = [[]]
    counts = Counter()
    for line in out:
        if MARKER.match(line):
            segments.append([])
        elif line.startswith(ASYNC):
            counts[line.split()[0]] += 1
        else:
            segments[-1].append(line)
    answered = len(segments) - 1
    expect = Counter()
    for i, seg in enumerate(segments[:answered]):
        text = lines[i].decode("utf-8", "replace")
        words = split_words(text)          # as the engine reads words: ASCII spaces and tabs
        cmd = words[0] if words else ""
        rep.commands[cmd if cmd in COMMANDS else "(other)"] += 1
        rep.gos += cmd == "go"
        errors = [l for l in seg if l.startswith("info string error")]
        for e in errors:
            rep.errors[" ".join(e.split()[3:5])] += 1
            if "internal error" in e:
                rep.internal.append(f"{text[:300]!r} -> {e[:300]}")
                if not text.startswith("position") or " view " not in text:
                    rep.failures.append(f"seed {rep.seed}: internal error for {text[:300]!r}: "
                                        f"{e[:300]}")
        if errors and (len(seg) != 1 or not ERROR.match(errors[0])):
            rep.failures.append(f"seed {rep.seed}: an error answer that is not one line "
                                f"`info string error <reason>` for {text[:200]!r}: {seg[:5]}")
        for l in seg:
            if l.startswith("{"):
                rep.views_printed += 1
                try:
                    assert isinstance(json.loads(l), dict)
                except (ValueError, AssertionError):
                    rep.failures.append(f"seed {rep.seed}: view printed {l[:100]!r}")
        if cmd == "isready":
            expect["readyok"] += 1
        if cmd == "go":                         # an error too ends with `bestmove (none)`
            expect["bestmove"] += 1
        if cmd == "hint":                       # and with `hintok`
            expect["hintok"] += 1
        if not errors and cmd == "position":
            context["position"] = lines[i]
        if not errors and cmd == "setoption":
            context[" ".join(words[:3])] = lines[i]
        if cmd == "ucinewgame":
            context.pop("position", None)
    rep.bestmoves += counts["bestmove"]
    rep.hints += counts["hintok"]
    if complete:
        expect["readyok"] += 1                  # the chunk's own isready
        for what in ("bestmove", "hintok", "readyok"):
            if counts[what] != expect[what]:
                rep.failures.append(f"seed {rep.seed}: {counts[what]} {what} for "
                                    f"{expect[what]} expected in a chunk of {len(lines)} lines")
    return answered


COMMANDS = {"uci", "isready", "setoption", "ucinewgame", "position", "go", "stop",
                   "legal", "hint", "d", "view", "quit"}


def report_failure(rep: Report, seed: int, k: int, status: str, engine: Client,
                   lines: List[bytes], culprit: bytes, context: dict) -> None:
    """Save a crash or hang; a loader's crash (reproduced by the loader alone) is filed apart."""
    FINDINGS.mkdir(parents=True, exist_ok=True)
    stem = FINDINGS / f"seed{seed}-chunk{k}-{status.replace(' ', '')}"
    stem.with_suffix(".in").write_bytes(b"\n".join(lines) + b"\n")
    setup = [v for key, v in context.items() if key != "position"]
    if context.get("position"):
        setup.append(context["position"])
    stem.with_suffix(".min.in").write_bytes(b"\n".join(setup + [culprit]) + b"\n")
    stderr = b""
    if status != "hang":
        stderr = engine.proc.stderr.read()[-3000:]
    what = (f"seed {seed}, chunk {k}: {status} at line {culprit[:200]!r} "
            f"(input in {stem}.in, shortest form in {stem}.min.in) {stderr[-300:]!r}")
    if loader_crash(culprit, context.get("position")):
        rep.loader_findings.append(what)
    else:
        rep.failures.append(what)


def loader_crash(culprit: bytes, position: Optional[bytes]) -> bool:
    """Whether a child process that only loads the view or state (and, for a `go`, searches
    it) crashes or hangs: then the fault is the game loader's, not the protocol's."""
    source = culprit if culprit.startswith(b"position") else position
    if not source or b" view " not in source:
        return False
    raw = source.decode("utf-8", "replace").split(None, 3)[-1]
    code = ("import json, sys\n"
            "from engine.registry import from_json, from_view\n"
            "try:\n"
            "    obj = json.loads(sys.stdin.read())\n"
            "    st = (from_view if 'view' in obj else from_json)(obj)\n"
            "    st.legal_moves()\n"
            "    if not st.is_terminal() and sys.argv[1] == 'go':\n"
            "        from search import Budget, search\n"
            "        search(st, Budget(iterations=300))\n"
            "except BaseException:\n"
            "    pass\n")
    go = "go" if culprit.split()[:1] in ([b"go"], [b"hint"]) else "load"
    try:
        r = subprocess.run([sys.executable, "-c", code, go], input=raw.encode(),
                           capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return True
    return r.returncode < 0                     # killed by a signal: a crash in C
