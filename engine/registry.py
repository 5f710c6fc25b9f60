"""The registry of games: one entry per Cython core, looked up by name."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Tuple

from cext.core import GameCore


@dataclass(frozen=True)
class GameInfo:
    """What the front doors need to know about a game."""

    name: str
    title: str
    min_players: int
    max_players: int
    default_players: int
    factory: Callable[..., GameCore]
    aliases: Tuple[str, ...] = field(default=())
    # options the game takes beyond players and seed: name -> (help, parser of CLI text)
    options: Dict[str, Tuple[str, Callable[[str], Any]]] = field(default_factory=dict)
    # the core's class (imported on first use), for from_json / from_view
    core_class: Callable[[], type] = field(default=lambda: GameCore)

    def check_players(self, players: int) -> None:
        """ValueError unless `players` is a legal player count for this game."""
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.title} is played by {self.min_players} to {self.max_players} players, "
                f"not {players}")


def _core(module: str, name: str) -> Callable[[], type]:
    """A loader of the game class `name` in `module`, imported on first use."""
    def load() -> type:
        import importlib

        return getattr(importlib.import_module(module), name)
    return load


def _factory(load: Callable[[], type]) -> Callable[..., GameCore]:
    def make(players: int, seed: int, **options: Any) -> GameCore:
        return load()(players, seed, **options)
    return make


_KHIVA = _core("engine.games.khiva", "Khiva")
_TASCHKENT = _core("engine.games.taschkent", "Taschkent")
_KHAN = _core("engine.games.khan", "KhanOfKhans")
_KILIM = _core("engine.games.kilim", "Kilim")


def _khan_list(text: str) -> list:
    """--khans impala,bison,...: one Khan per seat."""
    return [k.strip().lower() for k in text.split(",") if k.strip()]

GAMES: Dict[str, GameInfo] = {
    "khiva": GameInfo("khiva", "Khiva", 2, 5, 3, _factory(_KHIVA), core_class=_KHIVA),
    "khan": GameInfo("khan", "Khan of Khans", 2, 5, 4, _factory(_KHAN),
                     aliases=("khanofkhans", "khan-of-khans"), core_class=_KHAN,
                     options={"khans": ("one Khan per seat, e.g. impala,bison,morokanth,sable "
                                        "(default: dealt from the seed)", _khan_list)}),
    "kilim": GameInfo("kilim", "Kilim", 2, 5, 4, _factory(_KILIM), core_class=_KILIM),
    "taschkent": GameInfo("taschkent", "Taschkent", 2, 4, 3, _factory(_TASCHKENT),
                          core_class=_TASCHKENT),
}


def game_info(name: str) -> GameInfo:
    """The registry entry for `name` (case-insensitive, aliases allowed); ValueError if unknown."""
    key = name.strip().lower()
    for info in GAMES.values():
        if key == info.name or key in info.aliases:
            return info
    raise ValueError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")


def new_game(name: str, players: int | None = None, seed: int = 0, **options: Any) -> GameCore:
    """Deal a new game of `name` for `players` players (the game's default if None) from `seed`.

    `options` are game-specific (e.g. `khans=["impala", "sable"]` for Khan of Khans); an
    option the game does not take is a ValueError.
    """
    info = game_info(name)
    n = info.default_players if players is None else players
    info.check_players(n)
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
    for key in options:
        if key not in info.options:
            takes = ", ".join(info.options) or "none"
            raise ValueError(f"{info.title} has no option {key!r} (options: {takes})")
    return info.factory(n, seed, **options)


def all_options() -> Dict[str, str]:
    """Every game option with its help text, for the command line."""
    out: Dict[str, str] = {}
    for info in GAMES.values():
        for key, (help_text, _) in info.options.items():
            out[key] = f"{help_text} ({info.name})"
    return out


def from_json(state: dict) -> GameCore:
    """A full state as written by `to_json()` (every hidden part included); the game is named
    by its "game" field. ValueError if it is malformed or impossible."""
    if not isinstance(state, dict):
        raise ValueError("a state is a JSON object")
    info = game_info(str(state.get("game", "")))
    return info.core_class().from_json(state)


def from_view(view: dict) -> GameCore:
    """A state to search from, built from one seat's view (see docs/protocol.md).

    The view names its game ("game") and seat ("view"); ValueError if it is malformed or
    impossible.
    """
    if not isinstance(view, dict):
        raise ValueError("a view is a JSON object")
    info = game_info(str(view.get("game", "")))
    cls = info.core_class()
    if not hasattr(cls, "from_view"):
        raise ValueError(f"{info.title} cannot be set up from a view yet")
    return cls.from_view(view)
