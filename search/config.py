"""How to search and for how long: one SearchConfig and one Budget, passed as two objects
through every layer (search.ismcts.search, the agents, the Ray workers, suggest, the
protocol) instead of loose arguments.

Both are frozen dataclasses: hashable, comparable, picklable (a Ray worker receives them as
they are), and checked when made, so a bad setting is refused where it is written rather than
deep inside a search. The seed is not part of either: it changes with every search.

    SearchConfig()                                   # the defaults below
    SearchConfig(mode="mo", score_weight=0.0)
    game_config("khiva", 3)                          # the game's tuned defaults (registry)
    game_config("khiva", 3, c=1.0)                   # ... with one field changed
    Budget(iterations=2000)                          # reproducible for a given seed
    Budget(seconds=0.5)                              # wall time
    Budget(iterations=2000, seconds=0.5)             # whichever ends first
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Optional, Tuple, Union

from cext.core import check_int
from engine.arguments import SEED_MAX
from engine.validation import quoted

DEFAULT_C = 0.7
# The largest exploration constant any front door takes (agent specs, the protocol's C,
# SearchConfig): far above any tuned value (0.3 to 1.5), where exploration is all but uniform.
MAX_C = 100.0
# A second of search makes 25,000 to 170,000 nodes (docs/strength.md), and a reused tree keeps
# what lies below the new root: room for several seconds. 24 bytes a node, allocated up front
# (the table's zeroed pages only as they are touched).
DEFAULT_MAX_NODES = 1_000_000
# The thinking time of a decision when nobody says how long: `caravan play` and `hint`, the
# protocol's `go` and `hint` without limits, suggest(). About a second on one core.
DEFAULT_SECONDS = 1.0
# Half of the reward is the score margin: at 1,000 iterations, against the win share alone,
# it gained or was even in every game and player count measured (docs/architecture.md,
# "Score weight").
DEFAULT_SCORE_WEIGHT = 0.5
MODES = ("so", "mo", "full")
PLAYOUTS = ("policy", "random")
OPPONENTS = ("search", "policy")
MOST_NODES = 50_000_000
# The longest search any front door accepts: a day of wall time, a billion iterations (about
# three hours of the fastest game on one core). A budget above them is a typo or a disguised
# "no limit" (inf), which is said by giving no limit and a way to stop.
MAX_SECONDS = 86_400.0
MAX_ITERATIONS = 1_000_000_000
# More search workers than any machine or cluster Caravan runs on: a larger count is a typo
# that would ask Ray for that many processes.
MAX_WORKERS = 1_024
# Seeds are 64-bit (engine.arguments.SEED_MAX): a seed, and every seed derived from it (a
# deal's, a seat's, a decision's), counts modulo this, so no two seeds a caller can give meet
# by a shorter fold.
SEED_SPACE = SEED_MAX + 1
# Thinking on a clock (the protocol's `go time <ms> [inc <ms>] [movestogo <n>]`): a decision
# takes an even share of the time left over the decisions still to come (movestogo, else
# MOVES_TO_GO: then the clock runs down geometrically and is never used up) plus most of the
# increment, at most half of what is left, less a reserve for the answer's way back.
MOVES_TO_GO = 20
CLOCK_INCREMENT_SHARE = 0.75
CLOCK_MOST_SHARE = 0.5
CLOCK_RESERVE = 0.03
CLOCK_LEAST = 0.01


def clock_seconds(remaining: float, increment: float = 0.0,
                  moves_to_go: Optional[int] = None) -> float:
    """Seconds to think for a decision with `remaining` seconds on the clock, `increment`
    seconds added after each move and `moves_to_go` decisions before the clock gets more
    time (None: unknown). Always above 0 and below `remaining`."""
    share = remaining / (moves_to_go or MOVES_TO_GO) + CLOCK_INCREMENT_SHARE * increment
    most = CLOCK_MOST_SHARE * remaining
    return max(min(share, most) - CLOCK_RESERVE, min(CLOCK_LEAST, most))


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class SearchConfig:
    """How the search grows and scores its tree: everything about a search except how long
    it runs (Budget) and its seed."""

    c: float = DEFAULT_C
    """The exploration constant of the UCB rule that picks a child: 0 always follows the
    best mean reward so far; larger values try less visited moves more often. A finite
    number from 0 to MAX_C (100), as agent specs and the protocol's option C take it."""

    mode: str = "so"
    """What a decision node is keyed by. ``"so"``: every player's nodes are keyed by what
    the searching player knows of them (opponents decide from the shared part of their
    information); ``"mo"``: each player's nodes are keyed by that player's own information
    set, which is more exact but splits the tree over the opponents' hands. ``"full"`` keys
    by the whole state: perfect information, only with ``determinize=False`` (for a state
    that is already a sample: the perfect-information agents `pimc` and `cheat`); a search
    that samples the hidden parts redraws that key every iteration and would rank nothing,
    so SearchConfig refuses "full" with ``determinize=True``."""

    max_nodes: int = DEFAULT_MAX_NODES
    """The most decision nodes the tree may hold (1 to 50,000,000), allocated up front. A
    full tree stops growing but keeps iterating from the nodes it has, and the result says
    it was full."""

    score_weight: float = DEFAULT_SCORE_WEIGHT
    """The share of each playout's reward that is the final score margin, from 0 to 1: the
    reward is (1 - w) x the win share (1 for a win, 1/k for a win shared by k, else 0) plus
    w x the squashed margin over the best opponent. A steadier signal where single moves
    barely change who wins; the statistics' win probability stays the win share alone."""

    determinize: bool = True
    """Whether each iteration first samples the hidden information (the other hands, the
    order of the piles, future chance) consistently with what the searcher knows. False
    searches the root state exactly as it is: only for a state that is already such a
    sample, or to cheat on purpose."""

    playout: str = "policy"
    """How a playout picks its moves once it leaves the tree. ``"policy"``: the game's own
    cheap playout policy (in C, using only the sampled state and the search's random
    generator; a game without one plays uniformly at random); ``"random"``: uniformly random
    legal moves, for measuring what a policy gains."""

    opponents: str = "search"
    """How the other players decide inside the tree. ``"search"``: each picks its moves by
    the same UCB rule from its own statistics, as if it searched too; ``"policy"``: each plays
    the game's playout policy (an opponent model), so only the searcher's decisions become
    nodes and its budget goes to its own choices against opponents that play by the policy's
    habits."""

    groups: bool = False
    """Whether nodes choose in two steps where the game declares move groups (its
    ``move_group_shift``; Khiva: the cards a move plays): first a group by its moves' summed
    statistics, then a move of it. Games without groups search as without it. Cannot be
    combined with progressive bias."""

    def __post_init__(self) -> None:
        if not isinstance(self.groups, bool):
            raise ValueError(f"groups is True or False, not {quoted(self.groups)}")
        if self.opponents not in OPPONENTS:
            raise ValueError(f"unknown opponents {quoted(self.opponents)}: use 'search' or "
                             "'policy'")
        if self.playout not in PLAYOUTS:
            raise ValueError(f"unknown playout {quoted(self.playout)}: use 'policy' or 'random'")
        if not _is_number(self.c) or not 0.0 <= self.c <= MAX_C:    # NaN and inf too
            raise ValueError(f"exploration constant must be >= 0 and at most {MAX_C:g}, "
                             f"not {quoted(self.c)}")
        if self.mode not in MODES:
            raise ValueError(f"unknown keying mode {quoted(self.mode)}: use 'so' or 'mo'")
        if self.mode == "full" and self.determinize is not False:
            raise ValueError("keying mode 'full' is for a search of the whole state "
                             "(determinize=False); a search from what a seat knows keys its "
                             "nodes by that information: use 'so' or 'mo'")
        if not isinstance(self.max_nodes, int) or isinstance(self.max_nodes, bool) \
                or not 1 <= self.max_nodes <= MOST_NODES:
            raise ValueError(f"max_nodes must be between 1 and 50,000,000, not "
                             f"{quoted(self.max_nodes)}")
        if not _is_number(self.score_weight) or not 0.0 <= self.score_weight <= 1.0:
            raise ValueError(f"score_weight must be between 0 and 1, not "
                             f"{quoted(self.score_weight)}")
        if not isinstance(self.determinize, bool):
            raise ValueError(f"determinize must be True or False, not {quoted(self.determinize)}")
        object.__setattr__(self, "c", float(self.c))
        object.__setattr__(self, "score_weight", float(self.score_weight))


@dataclass(frozen=True)
class Budget:
    """When a search stops: after `iterations`, after `seconds`, or at whichever comes
    first when both are given. A limit of 0 is no limit; with none at all the search runs
    until it is stopped (search.ismcts.search refuses that unless it is given a `stop`)."""

    iterations: int = 0
    """Stop after this many iterations (playouts from the root), at most MAX_ITERATIONS.
    With an iteration limit alone a search is reproducible: the same position, configuration
    and seed give the same result. Spread over parallel workers, it is the total, shared out
    among them."""

    seconds: float = 0.0
    """Stop after this much wall time, in seconds (at most MAX_SECONDS), checked between
    short chunks of iterations (about 20 ms each). With parallel workers it holds for each of
    them."""

    def __post_init__(self) -> None:
        if not isinstance(self.iterations, int) or isinstance(self.iterations, bool) \
                or not _is_number(self.seconds) or math.isnan(self.seconds):
            raise ValueError(f"a budget is a number of iterations and of seconds, not "
                             f"{quoted(self.iterations)} and {quoted(self.seconds)}")
        if self.iterations < 0 or self.seconds < 0:
            raise ValueError("budgets must be positive")
        if self.iterations > MAX_ITERATIONS or self.seconds > MAX_SECONDS:
            raise ValueError(f"a budget is at most {MAX_ITERATIONS:,} iterations and "
                             f"{MAX_SECONDS:,.0f} seconds (a day); for a search until stopped, "
                             "give no limit and a stop")
        object.__setattr__(self, "seconds", float(self.seconds))

    @property
    def unlimited(self) -> bool:
        """No limit at all: the search runs until it is stopped."""
        return self.iterations == 0 and self.seconds == 0

    @staticmethod
    def of(budget: Union["Budget", int, float, dict]) -> "Budget":
        """A budget from its short forms: an int is iterations, a float seconds, a dict
        {"iterations": .., "seconds": ..}; ValueError unless it has a limit."""
        if isinstance(budget, Budget):
            b = budget
        elif isinstance(budget, bool):
            raise ValueError("a budget is a number of iterations or of seconds")
        elif isinstance(budget, int):
            b = Budget(iterations=budget)
        elif isinstance(budget, float):
            b = Budget(seconds=budget)
        elif isinstance(budget, dict):
            unknown = set(budget) - {"iterations", "seconds"}
            if unknown:
                raise ValueError(f"unknown budget keys {sorted(unknown)}")
            b = Budget(budget.get("iterations", 0), budget.get("seconds", 0.0))
        else:
            raise ValueError(f"bad budget {quoted(budget)}")
        if b.unlimited:
            raise ValueError("a budget needs iterations > 0 or seconds > 0")
        return b


DEFAULT_CONFIG = SearchConfig()
DEFAULT_BUDGET = Budget(seconds=DEFAULT_SECONDS)
BUDGET_FIELDS = ("iterations", "seconds")
CONFIG_FIELDS = tuple(f.name for f in fields(SearchConfig))
TUNED_FIELDS = ("c", "mode", "score_weight")     # the fields the registry sets per game


def check_seed(seed: object) -> None:
    """ValueError unless `seed` is an integer (not a bool, a float or a string), before a
    search is set up; the search's generator takes its value modulo 2**64."""
    check_int(seed, "a search seed")


def check_workers(workers: object) -> None:
    """ValueError unless `workers` is a whole number of search workers, 1 to MAX_WORKERS."""
    if isinstance(workers, bool) or not isinstance(workers, int) \
            or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be an integer from 1 to {MAX_WORKERS:,}, "
                         f"not {quoted(workers)}")


def game_config(game: str, players: int, **changes: object) -> SearchConfig:
    """The SearchConfig Caravan plays `game` with at `players` players: the registry's tuned
    c, keying mode and score weight (engine.registry.SEARCH_DEFAULTS), then `changes`."""
    from engine.registry import game_info

    info = game_info(game)
    info.check_players(players)
    d = info.search
    base = {"c": d.c, "mode": d.mode(players), "score_weight": d.score_weight(players)}
    unknown = set(changes) - set(CONFIG_FIELDS)
    if unknown:
        raise ValueError(f"SearchConfig has no field {quoted(sorted(unknown)[0])}")
    return SearchConfig(**{**base, **changes})


def reproducible_budget(game: str, players: int) -> Budget:
    """An iteration budget as strong as DEFAULT_SECONDS on one core of the reference machine
    (the registry's per-game figure): the default of `caravan match`, the arena and the agent
    spec `ismcts`, which must give the same games on any machine."""
    from engine.registry import game_info

    info = game_info(game)
    info.check_players(players)
    return Budget(iterations=info.search.iterations[players])


# Skill levels: an opponent weaker than the engine, for people who play against it (the agent
# option `skill=`, the protocol's option Skill). Level MAX_SKILL is the engine at full
# strength. Below it, a search of SKILL_LEAST_ITERATIONS iterations at level 0, growing
# geometrically to the game's reproducible budget at MAX_SKILL, whose move is drawn with
# chances that grow with its visits, the more sharply the higher the level (skill_temperature).
MAX_SKILL = 20
SKILL_LEAST_ITERATIONS = 100


def check_skill(skill: object) -> int:
    """ValueError unless `skill` is a whole number from 0 to MAX_SKILL."""
    if isinstance(skill, bool) or not isinstance(skill, int) or not 0 <= skill <= MAX_SKILL:
        raise ValueError(f"a skill level is a whole number from 0 to {MAX_SKILL}, not "
                         f"{quoted(skill)}")
    return skill


def skill_budget(skill: int, game: str, players: int) -> Budget:
    """The iterations of a search at level `skill`: SKILL_LEAST_ITERATIONS at 0, the game's
    reproducible budget at MAX_SKILL, geometric in between."""
    full = reproducible_budget(game, players).iterations
    least = min(SKILL_LEAST_ITERATIONS, full)
    return Budget(iterations=round(least * (full / least) ** (check_skill(skill) / MAX_SKILL)))


def skill_temperature(skill: int) -> float:
    """How loosely level `skill` picks among the searched moves: a move's chance grows as
    its visits to the power 1 / temperature; 1 at level 0 (chances as the visits), 0 at
    MAX_SKILL (always the most visited)."""
    return (MAX_SKILL - check_skill(skill)) / MAX_SKILL


def from_keywords(budget: Union[Budget, int, float, dict, None],
                  config: Optional[SearchConfig], keywords: dict,
                  caller: str, state: object = None) -> Tuple[Budget, SearchConfig]:
    """The (budget, config) of a call. The budget may be a short form (see Budget.of), and
    fields of either may come as keywords instead, as callers wrote before the two objects
    existed (`search(state, iterations=400, mode="mo")`), but each one way only. None is
    Budget() (no limit) and, for a config, the game's tuned one (game_config, with the
    keyword fields changed) when `state` is given, else the plain SearchConfig defaults.
    TypeError for a keyword that is neither, like Python's own."""
    if budget is not None and not isinstance(budget, Budget):
        budget = Budget.of(budget)
    if config is not None and not isinstance(config, SearchConfig):
        raise ValueError(f"config must be a SearchConfig, not {quoted(config)}")
    for key in keywords:
        if key not in BUDGET_FIELDS + CONFIG_FIELDS:
            raise TypeError(f"{caller}() got an unexpected keyword argument {quoted(key)}")
    budget_keys = {k: v for k, v in keywords.items() if k in BUDGET_FIELDS}
    config_keys = {k: v for k, v in keywords.items() if k in CONFIG_FIELDS}
    if budget_keys:
        if budget is not None:
            raise ValueError(f"give the budget once: a Budget or {', '.join(budget_keys)}=")
        budget = Budget(**budget_keys)
    if config_keys and config is not None:
        raise ValueError(f"give the configuration once: a SearchConfig or "
                         f"{', '.join(config_keys)}=")
    if config is None:
        config = game_config(state.game, state.n_players, **config_keys) \
            if state is not None else SearchConfig(**config_keys)
    return Budget() if budget is None else budget, config
