"""Loaded by every Python process that has this folder first on PYTHONPATH (Python imports
`sitecustomize` at start-up): when CARAVAN_TRACE_TARGETS names a JSON file of
{absolute path: [line, ...]}, it writes to CARAVAN_TRACE_OUT/<pid>.tsv the test that was
running (PYTEST_CURRENT_TEST, which pytest sets and child processes inherit) the first time
each target line runs under it. Used by bench/tests_running.py."""
import json
import os
import sys
import threading


def _start(targets_file: str, out_dir: str) -> None:
    with open(targets_file) as f:
        targets = {path: set(lines) for path, lines in json.load(f).items()}
    seen = set()
    out = open(os.path.join(out_dir, f"{os.getpid()}.tsv"), "a", buffering=1)

    def on_line(frame, event, arg):
        if event == "line" and frame.f_lineno in targets[frame.f_code.co_filename]:
            test = os.environ.get("PYTEST_CURRENT_TEST", "-").rsplit(" (", 1)[0]
            key = (test, frame.f_code.co_filename, frame.f_lineno)
            if key not in seen:
                seen.add(key)
                out.write(f"{test}\t{frame.f_code.co_filename}\t{frame.f_lineno}\n")
        return on_line

    def on_call(frame, event, arg):           # trace lines only in the target files
        return on_line if frame.f_code.co_filename in targets else None

    sys.settrace(on_call)
    threading.settrace(on_call)


if os.environ.get("CARAVAN_TRACE_TARGETS"):
    _start(os.environ["CARAVAN_TRACE_TARGETS"], os.environ["CARAVAN_TRACE_OUT"])
