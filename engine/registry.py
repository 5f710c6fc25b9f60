"""The registry of games, built from the game classes' own attributes (name, title, player
counts, options), looked up by name or alias."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Tuple, Type

from cext.core import GameCore, check_contract
from engine.games.khan import KhanOfKhans
from engine.games.khiva import Khiva
from engine.games.kilim import Kilim
from engine.games.taschkent import Taschkent
from engine.validation import check_json, fail, quoted


@dataclass(frozen=True)
class SearchDefaults:
    """How Caravan's search plays a game when nobody says otherwise: the values a tuning run
    chose (docs/strength.md says which run, on which deals, and what else was tried).

    Plain values, not a search.config.SearchConfig (the search layer sits above this one and
    builds its configuration from them: search.config.game_config)."""

    c: float                      # the UCB exploration constant
    # per player count: the share of the reward that is the score margin
    score_weights: Dict[int, float]
    modes: Dict[int, str]         # keying mode ("so" or "mo") per player count
    # Iterations per decision that take about DEFAULT_SECONDS on one core of the reference
    # machine, per player count: the budget of runs that must be reproducible (match, arena,
    # tests), so that `ismcts` means the same strength as the time budget everywhere.
    iterations: Dict[int, int]

    def mode(self, players: int) -> str:
        return self.modes[players]

    def score_weight(self, players: int) -> float:
        return self.score_weights[players]

    def as_text(self, players: int) -> str:
        return (f"c={self.c:g} mode={self.modes[players]} "
                f"score_weight={self.score_weights[players]:g} "
                f"iterations={self.iterations[players]}")


# One row per game; `caravan games` prints them. How each value was chosen: docs/strength.md.
SEARCH_DEFAULTS: Dict[str, SearchDefaults] = {
    "khiva": SearchDefaults(0.7, {2: 0.5, 3: 0.5, 4: 0.5, 5: 0.5},
                            {2: "so", 3: "so", 4: "so", 5: "so"},
                            {2: 150_000, 3: 180_000, 4: 220_000, 5: 190_000}),
    # Khan at 4 players: score weight 0.75 with mo keying (strength.md, the seventh run)
    "khan": SearchDefaults(0.7, {2: 0.5, 3: 0.5, 4: 0.75, 5: 0.5},
                           {2: "so", 3: "so", 4: "mo", 5: "so"},
                           {2: 140_000, 3: 120_000, 4: 120_000, 5: 110_000}),
    "kilim": SearchDefaults(0.7, {2: 0.5, 3: 0.5, 4: 0.5, 5: 0.5},
                            {2: "so", 3: "so", 4: "so", 5: "so"},
                            {2: 160_000, 3: 110_000, 4: 105_000, 5: 95_000}),
    "taschkent": SearchDefaults(0.7, {2: 0.5, 3: 0.5, 4: 0.5},
                                {2: "so", 3: "so", 4: "so"},
                                {2: 180_000, 3: 110_000, 4: 125_000}),
}


@dataclass(frozen=True)
class GameInfo:
    """What the front doors need to know about a game: read from its class's attributes."""

    cls: Type[GameCore]
    name: str
    title: str
    aliases: Tuple[str, ...]
    min_players: int
    max_players: int
    default_players: int
    # the options the game takes beyond players and seed: name -> help text. Values are
    # given as text (as on a command line) or as the game's own Python values.
    options: Dict[str, str]
    search: SearchDefaults        # how the search plays it by default

    @classmethod
    def of(cls, game: Type[GameCore]) -> "GameInfo":
        defaults = SEARCH_DEFAULTS[game.name]
        counts = set(range(game.min_players, game.max_players + 1))
        if any(set(per_count) != counts for per_count in
               (defaults.score_weights, defaults.modes, defaults.iterations)):
            raise ImportError(f"SEARCH_DEFAULTS[{game.name!r}] must name every player count "
                              f"from {game.min_players} to {game.max_players}")
        return cls(game, game.name, game.title, tuple(game.aliases), game.min_players,
                   game.max_players, game.default_players, dict(game.options), defaults)

    def check_players(self, players: int) -> None:
        """ValueError unless `players` is a legal player count for this game."""
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.title} is played by {self.min_players} to {self.max_players} players, "
                f"not {players}")


def _register(*classes: Type[GameCore]) -> Dict[str, GameInfo]:
    """The registry of `classes`, each first checked against the game-module contract (an
    ImportError names a required method a game lacks, instead of zeros at run time)."""
    for cls in classes:
        check_contract(cls)
    return {cls.name: GameInfo.of(cls) for cls in classes}


GAMES: Dict[str, GameInfo] = _register(Khiva, KhanOfKhans, Kilim, Taschkent)


def game_info(name: str) -> GameInfo:
    """The registry entry for `name` (case-insensitive, aliases allowed); ValueError if unknown."""
    if not isinstance(name, str):
        raise ValueError(f"a game is named by text (one of {', '.join(sorted(GAMES))}), "
                         f"not {quoted(name)}")
    key = name.strip().lower()
    for info in GAMES.values():
        if key == info.name or key in info.aliases:
            return info
    raise ValueError(f"unknown game {quoted(name)}; known games: {', '.join(sorted(GAMES))}")


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
            raise ValueError(f"{info.title} has no option {quoted(key)} (options: {takes})")
    return info.cls(n, seed, **options)


def all_options() -> Dict[str, str]:
    """Every game option with its help text, for the command line."""
    out: Dict[str, str] = {}
    for info in GAMES.values():
        for key, help_text in info.options.items():
            out[key] = f"{help_text} ({info.name})"
    return out


def from_json(state: dict) -> GameCore:
    """A full state as written by `to_json()` (every hidden part included); the game is named
    by its "game" field. ViewError (a ValueError) if it is malformed or impossible."""
    return game_named_by(state, "state").cls.from_json(state)


def from_view(view: dict) -> GameCore:
    """A state to search from, built from one seat's view (see docs/protocol.md).

    The view names its game ("game") and seat ("view"); ViewError (a ValueError) if it is
    malformed or impossible.
    """
    return game_named_by(view, "view").cls.from_view(view)


def game_named_by(position: Any, what: str) -> GameInfo:
    """The game a position (a `what`: state or view) names in its "game" field; ViewError,
    naming the field, if it is no JSON object or names no known game."""
    if not isinstance(position, dict):
        check_json(position, what)          # refuses it, saying what it is instead
    if "game" not in position:
        fail((), "missing key 'game'")
    try:
        return game_info(position["game"])
    except ValueError as e:
        fail(("game",), str(e))
