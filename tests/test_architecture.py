"""The layers of docs/architecture.md, checked: imports run one way, never in a circle.

From the bottom:
  1. cores: the C cores (cext);
  2. games: the games' Python halves and the checked loading path (engine.validation,
     engine.games, engine.registry, the engine package);
  3. search: the search itself (search.config, search.ismcts, search.parallel with Ray,
     search.golden, search.heuristics, search.extras, the search package);
  4. agents and arena: what plays and measures with the search (search.agents,
     search.match, search.arena, search.arena_ray, search.stats, search.suggest,
     search.review);
  5. front doors: engine.protocol, engine.cli, engine.play, engine.openspiel_game,
     engine.pettingzoo_env.
A module may import its own layer and the layers below it, never one above; and no chain of
imports between project modules comes back to where it started, not even within a layer.
Lazy imports (inside functions) count as imports.
"""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cext", "engine", "search")

LAYERS = [
    ("cores", ["cext"]),
    ("games", ["engine.validation", "engine.games", "engine.registry", "engine"]),
    ("search", ["search", "search.config", "search.ismcts", "search.parallel",
                "search.golden", "search.heuristics", "search.extras"]),
    ("agents and arena", ["search.agents", "search.match", "search.arena", "search.arena_ray",
                          "search.stats", "search.suggest", "search.review"]),
    ("front doors", ["engine.protocol", "engine.cli", "engine.play", "engine.openspiel_game",
                     "engine.pettingzoo_env"]),
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
        if rel.parts[0] not in PACKAGES:
            continue
        name = ".".join(rel.with_suffix("").parts)
        yield name.removesuffix(".__init__"), path


MODULES = dict(project_modules())


def imports_of(path: Path):
    """Project modules imported by a .py file (at any depth: lazy imports count too), or
    cimported/imported by a .pyx file (read by line: Cython is not Python syntax).
    `from package import name` is an import of package.name when that is a module."""
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
            submodules = [f"{node.module}.{a.name}" for a in node.names
                          if f"{node.module}.{a.name}" in MODULES]
            yield from submodules or [node.module]


def import_graph():
    """Module -> the project modules it imports (.pxd declarations are not modules)."""
    return {name: sorted({t for t in imports_of(path) if t in MODULES and t != name})
            for name, path in MODULES.items()}


def test_every_project_module_has_a_layer():
    for name in MODULES:
        assert layer_of(name) is not None, name


def test_imports_never_go_up_a_layer():
    wrong = []
    for name, path in MODULES.items():
        mine = layer_of(name)
        for target in imports_of(path):
            theirs = layer_of(target)
            if target.split(".")[0] in PACKAGES and theirs is not None and theirs > mine:
                wrong.append(f"{name} ({LAYERS[mine][0]}) imports {target} ({LAYERS[theirs][0]})")
    assert not wrong, "\n".join(wrong)


def find_cycle(graph):
    """One chain of imports that comes back to its start, or None (depth-first search)."""
    state = {}                    # module -> "open" while on the path, "done" after

    def visit(module, path):
        state[module] = "open"
        for target in graph.get(module, ()):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target, path + [target])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_the_import_graph_has_no_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle)


def test_the_cycle_check_finds_a_cycle_within_a_layer():
    graph = {"search.agents": ["search.parallel"], "search.parallel": ["search.arena"],
             "search.arena": ["search.agents"], "search.ismcts": []}
    assert find_cycle(graph) == ["search.agents", "search.parallel", "search.arena",
                                 "search.agents"]



GAME_NAMES = ("khan", "khiva", "kilim", "taschkent")


def test_the_map_names_every_module():
    """docs/architecture.md is the map: every module is on it, by its path, by its folder
    (search/heuristics/), or as one of the games (engine/games/<game>.py)."""
    doc = (ROOT / "docs" / "architecture.md").read_text()
    missing = []
    for name, path in MODULES.items():
        rel = path.relative_to(ROOT)
        if rel.stem == "__init__":
            continue
        as_game = f"{rel.parent}/<game>{rel.suffix}" if rel.stem in GAME_NAMES else None
        folder = re.search(rf"{re.escape(str(rel.parent))}/\s", doc)     # a folder's entry
        if not (str(rel) in doc or folder or (as_game and as_game in doc)):
            missing.append(str(rel))
    assert not missing, f"docs/architecture.md does not name {missing}"
