"""Each compiled core loads and unloads on its own: a process that imports only `cext.<name>`
exits cleanly. Kilim's module once built its bit-selection table in a module-level Python
loop whose reference counts Cython got wrong: `import cext.kilim` alone aborted at exit
("deallocating None"), which a program importing it through the registry never showed."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(p.stem for p in (ROOT / "cext").glob("*.pyx"))


def test_every_core_is_listed():
    assert {"core", "ismcts", "khan", "khiva", "kilim", "taschkent"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_a_bare_import_exits_cleanly(name):
    done = subprocess.run([sys.executable, "-c", f"import cext.{name}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Fatal" not in done.stderr

