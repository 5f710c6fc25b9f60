"""Which tests run given lines of the project.

    python bench/tests_running.py FILE:LINE [FILE:LINE ...] [--json] [-- PYTEST ARGS]

The test suite (`tests/`, or what PYTEST ARGS select) runs once under a line tracer, and each
FILE:LINE is listed with the tests that ran it, also through the programs they start
(`sys.executable -m engine.cli ...`): bench/line_tracer/ is put first on PYTHONPATH, and its
sitecustomize traces every Python process the tests start. A mutation audit then runs each
one-line mutant against those tests alone instead of the whole suite (docs/architecture.md,
"Tests and benchmarks"). A line that runs while a module is imported outside any test is
listed under "-". The run takes about twice the suite's usual time.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TRACER = os.path.join(ROOT, "bench", "line_tracer")


def parse_target(text: str) -> tuple:
    """`path:line` (path from the project's root) as (absolute path, line)."""
    path, _, line = text.rpartition(":")
    full = os.path.join(ROOT, path)
    if not path or not line.isdigit() or not os.path.isfile(full):
        raise argparse.ArgumentTypeError(f"expected FILE:LINE of a file of the project, not {text!r}")
    with open(full) as f:
        lines = sum(1 for _ in f)
    if not 1 <= int(line) <= lines:
        raise argparse.ArgumentTypeError(f"{path} has lines 1 to {lines}, not {line}")
    return full, int(line)


def tests_running(targets: list, pytest_args: list) -> tuple:
    """Run pytest with the tracer; ({(path, line): sorted test ids}, pytest's last line)."""
    wanted = collections.defaultdict(list)
    for path, line in targets:
        wanted[path].append(line)
    ran = {target: set() for target in targets}
    with tempfile.TemporaryDirectory() as out:
        spec = os.path.join(out, "targets.json")
        with open(spec, "w") as f:
            json.dump(wanted, f)
        env = dict(os.environ, CARAVAN_TRACE_TARGETS=spec, CARAVAN_TRACE_OUT=out,
                   PYTHONPATH=os.pathsep.join(
                       [TRACER, ROOT] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        env.pop("PYTEST_CURRENT_TEST", None)        # run from a test: not that test's lines
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               *(pytest_args or ["tests"])], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        for name in os.listdir(out):
            if name.endswith(".tsv"):
                with open(os.path.join(out, name)) as f:
                    for row in f:
                        test, path, line = row.rstrip("\n").split("\t")
                        ran[(path, int(line))].add(test)
    summary = (done.stdout.strip().splitlines() or [done.stderr.strip()[-200:]])[-1]
    return {target: sorted(tests) for target, tests in ran.items()}, summary


def main() -> int:
    argv = sys.argv[1:]
    pytest_args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("targets", nargs="+", type=parse_target, metavar="FILE:LINE")
    ap.add_argument("--json", action="store_true", help="one JSON object: FILE:LINE -> tests")
    args = ap.parse_args(argv)
    ran, summary = tests_running(args.targets, pytest_args)
    named = {f"{os.path.relpath(path, ROOT)}:{line}": tests for (path, line), tests in ran.items()}
    if args.json:
        print(json.dumps(named))
    else:
        print(f"pytest: {summary}")
        for target, tests in named.items():
            print(f"{target}: {len(tests)} tests")
            for test in tests:
                print(f"    {test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
