"""The layers of docs/architecture.md, checked: imports run one way, never in a circle.

From the bottom: the C cores (cext), the games' Python halves and the checked loading path
(engine.validation, engine.games, engine.registry), the search and what is built on it
(search.*: ISMCTS, agents, matches, the hint API, the arena, Ray), and the front doors
(engine.cli, engine.play, engine.protocol). A module may import
its own layer and the layers below it, never one above.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LAYERS = [
    ("cores", ["cext"]),
    ("games", ["engine.validation", "engine.games", "engine.registry", "engine"]),
    ("search", ["search"]),
    ("front doors", ["engine.protocol", "engine.cli", "engine.play"]),
]


def layer_of(module: str) -> int:
    """The layer of a project module (the longest matching prefix wins)."""
    best, level = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, level = len(p), i
    return level


def project_modules():
    for path in sorted(ROOT.glob("*/**/*.py")) + sorted(ROOT.glob("cext/*.pyx")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] not in ("cext", "engine", "search"):
            continue
        name = ".".join(rel.with_suffix("").parts)
        yield name.removesuffix(".__init__"), path


def imports_of(path: Path):
    """Project modules imported by a .py file (at any depth: lazy imports count too), or
    cimported/imported by a .pyx file (read by line: Cython is not Python syntax)."""
    if path.suffix == ".pyx":
        for line in path.read_text().splitlines():
            words = line.split()
            if len(words) > 1 and words[0] in ("from", "import", "cimport"):
                yield words[1]
        return
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def test_every_project_module_has_a_layer():
    for name, _ in project_modules():
        assert layer_of(name) is not None, name


def test_imports_never_go_up_a_layer():
    wrong = []
    for name, path in project_modules():
        mine = layer_of(name)
        for target in imports_of(path):
            theirs = layer_of(target)
            if target.split(".")[0] in ("cext", "engine", "search") and theirs is not None \
                    and theirs > mine:
                wrong.append(f"{name} ({LAYERS[mine][0]}) imports {target} ({LAYERS[theirs][0]})")
    assert not wrong, "\n".join(wrong)
