"""External `cmd:` engines in the arena and in matches: each way an engine can fail loses
that game with the reason recorded, the arena goes on, and every engine process is gone once
its game is over (no zombie of ours, nothing left running).

The misbehaving engines are tiny Python scripts written here and started with
sys.executable: nothing on PATH is assumed.
"""
import _thread
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import pytest

from engine.registry import new_game
from search.agents import AgentFailure, CmdAgent, RandomAgent, close_agents, parse_agent
from search.arena import format_summary, run_arena
from search.match import play_game, record_from_json

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"),
                                reason="process checks read /proc (Linux)")

PYTHON = shlex.quote(sys.executable)

# Every fake engine writes its pid (and its helpers' pids) to <pid dir>/<pid>, then behaves
# as the mode given on its command line says.
FAKE_ENGINE = textwrap.dedent('''
    import os, sys, time
    mode, pid_dir = sys.argv[1], sys.argv[2]
    with open(os.path.join(pid_dir, str(os.getpid())), "w") as f:
        f.write("engine")

    def say(text):
        sys.stdout.buffer.write(text if isinstance(text, bytes) else text.encode() + b"\\n")
        sys.stdout.flush()

    for line in sys.stdin:
        word = line.split()[0] if line.split() else ""
        if word == "uci":
            say("id name fake " + mode)
            say("uciok")
            if mode == "crash":
                sys.exit(3)
        elif word == "go":
            if mode == "illegal":
                say("bestmove fly-to-the-moon")
            elif mode == "bad-utf8":
                say(b"bestmove \\xff\\xfe\\xfd\\n")
            elif mode == "flood":
                while True:                 # one endless line: never a newline
                    say(b"x" * 65536)
            elif mode == "close-output":    # and runs on
                os.close(1)
                time.sleep(60)
            # mode "hang": never answers
        elif word == "quit":
            break
''')

# An engine that forwards everything but `quit` to the project's real engine, which it runs
# as a helper process, and ignores end of input and SIGTERM: the wrapper script that does
# not exec, at its worst. Only SIGKILL ends it, and its helper must not outlive it.
DEAF_WRAPPER = textwrap.dedent('''
    import os, signal, subprocess, sys, time
    pid_dir = sys.argv[1]
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    inner = subprocess.Popen([sys.executable, "-m", "engine.cli", "uci"],
                             stdin=subprocess.PIPE, text=True, cwd=sys.argv[2])
    for pid, role in ((os.getpid(), "engine"), (inner.pid, "helper")):
        with open(os.path.join(pid_dir, str(pid)), "w") as f:
            f.write(role)
    for line in sys.stdin:
        if line.strip() != "quit":
            inner.stdin.write(line)
            inner.stdin.flush()
    while True:
        time.sleep(1)
''')

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def pid_dir(tmp_path):
    d = tmp_path / "pids"
    d.mkdir()
    return d


def fake_spec(tmp_path, pid_dir, mode):
    """The fake engine's spec: 2 s to answer when it is to hang (that is the test); else a
    generous timeout, so that a slow start on a loaded machine is never taken for a hang."""
    timeout = 2 if mode == "hang" else 60
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE)
    return f"cmd:{PYTHON} {shlex.quote(str(script))} {mode} {shlex.quote(str(pid_dir))}," \
           f"timeout={timeout}"


def deaf_spec(tmp_path, pid_dir, options="iterations=30,timeout=60"):
    script = tmp_path / "deaf_wrapper.py"
    script.write_text(DEAF_WRAPPER)
    return (f"cmd:{PYTHON} {shlex.quote(str(script))} {shlex.quote(str(pid_dir))} "
            f"{shlex.quote(REPO)},{options}")


def process_state(pid):
    """(state letter, parent pid) of a process, or None when it no longer exists."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return fields[0], int(fields[1])


def helper_is_dead(pid):
    """Gone, or a zombie adopted by another process (its reaping is init's job)."""
    state = process_state(pid)
    return state is None or (state[0] == "Z" and state[1] != os.getpid())


def assert_no_process_left(pid_dir):
    """Every engine is gone (started by us, so reaped by us: not even a zombie); every helper
    it started is dead. A killed helper may take a moment to die on a loaded machine: it
    gets up to 30 s (this bounds the wait, it does not time anything)."""
    pids = {int(p.name): p.read_text() for p in pid_dir.iterdir()}
    assert pids, "the engines wrote no pid"
    for pid, role in pids.items():
        if role == "engine":
            assert process_state(pid) is None, f"engine {pid} still exists: {process_state(pid)}"
        else:
            deadline = time.monotonic() + 30
            while not helper_is_dead(pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert helper_is_dead(pid), f"helper {pid} is still running: {process_state(pid)}"


@pytest.mark.parametrize("mode,reason", [
    ("crash", "crash"), ("hang", "timeout"), ("illegal", "illegal move"),
    ("bad-utf8", "invalid output"), ("flood", "invalid output"),
])
def test_a_failing_engine_loses_each_game_and_the_arena_goes_on(tmp_path, pid_dir, mode, reason):
    spec = fake_spec(tmp_path, pid_dir, mode)
    out = tmp_path / "out"
    result = run_arena("khiva", 2, [spec, "heuristic"], 2, seed=1, out_dir=str(out))
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2                          # every game played, none aborted
    for r in records:
        cmd_seat = r["agent_of_seat"].index(0)
        assert r["forfeit"]["seat"] == cmd_seat and r["forfeit"]["reason"] == reason
        assert r["forfeit"]["agent"].startswith("cmd:")
        assert r["rewards"][cmd_seat] == 0.0 and r["rewards"][1 - cmd_seat] == 1.0
        assert r["ranking"][cmd_seat] == 2 and len(r["moves"]) < 2   # stopped at its turn
        assert record_from_json(r).forfeit == r["forfeit"]   # a record caravan review reads
    rows = {row["agent"]: row for row in result.summary()["agents"]}
    assert rows[str(parse_agent(spec))]["forfeits"] == {reason: 2}
    assert rows["heuristic"]["forfeits"] == {} and rows["heuristic"]["win_share"] == 1.0
    text = format_summary(result)
    assert "forfeits by cmd:" in text and f"2 {reason}" in text
    assert json.loads((out / "summary.json").read_text())["agents"][0]["forfeits"] == {reason: 2}
    assert_no_process_left(pid_dir)


def test_the_reasons_say_what_happened(tmp_path, pid_dir):
    state = new_game("khiva", 2, 5)
    messages = {}
    for mode in ("crash", "close-output", "hang", "illegal", "bad-utf8", "flood"):
        agent = parse_agent(fake_spec(tmp_path, pid_dir, mode)).build(1)
        try:
            with pytest.raises(AgentFailure) as failure:
                agent.choose(state)
        finally:
            agent.close()
        messages[mode] = str(failure.value)
    assert "exited (exit code 3) before answering 'bestmove'" in messages["crash"]
    # running on with its output closed: it has not exited
    assert "closed its output before answering 'bestmove'" in messages["close-output"]
    assert "exited" not in messages["close-output"]
    # timeout=2 plus the move time: the spec gives none, so the protocol's default second
    assert "did not answer" in messages["hang"] and "within 3 s" in messages["hang"]
    assert "'fly-to-the-moon', not a legal move for seat 0" in messages["illegal"]
    assert "not UTF-8" in messages["bad-utf8"]
    assert "wrote a line of more than 1,000,000 bytes" in messages["flood"]
    assert_no_process_left(pid_dir)


def test_a_failing_engine_is_an_error_outside_the_arena(tmp_path, pid_dir):
    agent = parse_agent(fake_spec(tmp_path, pid_dir, "illegal")).build(1)
    try:
        with pytest.raises(AgentFailure, match="not a legal move"):
            play_game("khiva", [agent, RandomAgent(2)], seed=3)
    finally:
        agent.close()
    assert_no_process_left(pid_dir)


def test_an_engine_deaf_to_quit_is_killed_with_its_helper_after_the_arena(tmp_path, pid_dir):
    out = tmp_path / "out"
    result = run_arena("khiva", 2, [deaf_spec(tmp_path, pid_dir), "random"], 2, seed=4,
                       out_dir=str(out))
    assert result.summary()["games"] == 2
    records = [json.loads(line) for line in (out / "games.jsonl").open()]
    assert all(r["forfeit"] is None and len(r["moves"]) > 10 for r in records)
    assert len(list(pid_dir.iterdir())) == 4          # two games: two engines, two helpers
    assert_no_process_left(pid_dir)


def test_ctrl_c_while_engines_are_closed_still_ends_every_one(tmp_path, pid_dir):
    """An engine deaf to quit and SIGTERM takes seconds to close; a Ctrl-C then kills it at
    once (it outlived the arena before), and the next engine is still closed."""
    spec = parse_agent(deaf_spec(tmp_path, pid_dir))
    agents = [spec.build(1), spec.build(2)]
    for agent in agents:
        agent.choose(new_game("khiva", 2, 1))
    assert len(list(pid_dir.iterdir())) == 4          # two engines, each with its helper
    # a run started in the background (`cmd &`) inherits SIGINT ignored, and interrupt_main
    # then does nothing: the test sets the handler a Ctrl-C meets at a terminal
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.5, _thread.interrupt_main).start()
        with pytest.raises(KeyboardInterrupt):
            close_agents(agents)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert_no_process_left(pid_dir)


def test_a_match_closes_its_engines_even_when_the_caller_does_not(tmp_path, pid_dir):
    """`caravan match` never calls close(): the engine is ended at interpreter exit."""
    spec = deaf_spec(tmp_path, pid_dir)
    r = subprocess.run([sys.executable, "-m", "engine.cli", "match", "khiva", "--players", "2",
                        "--agents", f"{spec},random", "--seed", "2", "--quiet"],
                       capture_output=True, text=True, timeout=300, cwd=tempfile.gettempdir())
    assert r.returncode == 0, r.stderr
    assert "final scores" in r.stdout
    assert_no_process_left(pid_dir)


def test_close_is_safe_twice_and_after_the_engine_died(tmp_path, pid_dir):
    agent = CmdAgent(parse_agent(fake_spec(tmp_path, pid_dir, "crash")).program, timeout=60)
    with pytest.raises(AgentFailure):
        agent.choose(new_game("khiva", 2, 1))
    agent.close()
    agent.close()
    assert agent.engine.proc.returncode == 3
    assert_no_process_left(pid_dir)


def test_arena_command_reports_forfeits_and_goes_on(tmp_path, pid_dir):
    spec = fake_spec(tmp_path, pid_dir, "illegal")
    r = subprocess.run([sys.executable, "-m", "engine.cli", "arena", "khiva", "--players", "2",
                        "--agents", f"{spec},random", "--games", "2"],
                       capture_output=True, text=True, timeout=300, cwd=tempfile.gettempdir())
    assert r.returncode == 0, r.stderr
    assert "2 of 2 games" in r.stdout and "(2 illegal move)" in r.stdout
    assert_no_process_left(pid_dir)


def test_the_project_engine_plays_in_the_arena_as_a_cmd_agent(tmp_path):
    """The spec survives the arena's str() -> parse round trip (it used to become
    `cmd:program=...`, which could not start)."""
    spec = f"cmd:{PYTHON} -m engine.cli uci,iterations=30,timeout=60"
    r = subprocess.run([sys.executable, "-m", "engine.cli", "arena", "khiva", "--players", "2",
                        "--agents", f"{spec},random", "--games", "2", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300, cwd=tempfile.gettempdir())
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    cmd_row = summary["agents"][0]
    assert cmd_row["agent"] == str(parse_agent(spec)) and cmd_row["games"] == 2
    assert cmd_row["forfeits"] == {}
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert all(r["forfeit"] is None and len(r["moves"]) > 10 for r in records)
    assert all(record_from_json(r).seats == [str(parse_agent(spec)), "random"]
               or record_from_json(r).seats == ["random", str(parse_agent(spec))]
               for r in records)


# An engine that writes every line it reads to a log and answers each `go` with the move given
# on its command line.
LOGGING_ENGINE = textwrap.dedent('''
    import sys
    move, log = sys.argv[1], sys.argv[2]
    with open(log, "w") as f:
        for line in sys.stdin:
            f.write(line)
            f.flush()
            word = line.split()[0] if line.split() else ""
            if word == "uci":
                print("uciok", flush=True)
            elif word == "go":
                print("bestmove " + move, flush=True)
            elif word == "quit":
                break
''')


def test_a_cmd_engine_gets_its_seat_s_seed_folded_to_63_bits(tmp_path):
    """docs/arena.md, cmd: the arena "sets `Seed` (the seat's seed folded to 63 bits, the most
    the protocol's `Seed` takes)"; a seat's seed runs to 2^64 - 1."""
    state = new_game("khiva", 2, 1)
    move = state.move_to_text(state.legal_moves()[0])
    script, log = tmp_path / "logging_engine.py", tmp_path / "engine.log"
    script.write_text(LOGGING_ENGINE)
    seed = 2 ** 64 - 1
    agent = CmdAgent(f"{PYTHON} {shlex.quote(str(script))} {move} {shlex.quote(str(log))}",
                     seed=seed, iterations=5, timeout=60)
    try:
        assert state.move_to_text(agent.choose(state)) == move
    finally:
        agent.close()
    lines = log.read_text().splitlines()
    assert f"setoption name Seed value {seed % 2 ** 63}" in lines and "go iterations 5" in lines
