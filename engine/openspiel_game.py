"""The four games as OpenSpiel (pyspiel) Python games: `caravan_khiva`, `caravan_khan`,
`caravan_kilim` and `caravan_taschkent`, registered when this module is imported.

    import pyspiel
    import engine.openspiel_game                      # registers the four games
    game = pyspiel.load_game("caravan_khiva", {"players": 3, "seed": 7})

Parameters: `players`, `seed` and the game's options (`khans` for Khan of Khans, `goods` and
`neutral_region` for Taschkent): text, "" the game's default, a list's commas kept as spaces
("impala bison", since OpenSpiel's game strings split at commas); a number for
`neutral_region`, 0 the game's default.

Chance is explicit, and all of it comes first: Caravan draws every deal, pile and die inside
the move that causes it, from one generator seeded by the deal's seed, so choosing that seed
is the game's only chance event. With `seed` -1 (the default) a game begins with 4 chance
nodes (DEAL_DRAWS) of 256 equally likely outcomes, the bytes of a 32-bit deal seed; with
`seed` k >= 0 there is no chance node and the deal is Caravan's deal k (as `caravan match
--seed k`). docs/ecosystem.md says why. `resample_from_infostate` is Caravan's
determinization (`determinized(seat, seed)`).
Observations, information states and action ids are engine.observation's (docs/ecosystem.md).
Returns are Caravan's win shares (in [0, 1], summing to 1).

`CaravanBot` is Caravan's own search (any agent spec: `ismcts`, `ismcts:iterations=2000`,
`heuristic`, ...) as a pyspiel Bot; it searches from the seat's view only.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pyspiel

from cext.core import check_int
from engine import observation as obs
from engine.registry import GAMES, from_view, game_info, new_game

# No game of the four comes near this many moves (random games: at most a few hundred), but
# the rules of Khiva do not bound a game's length (it ends when a pile runs out, and nothing
# forces a camel onto a space that draws from one), so the bound is the length at which
# Caravan's own search cuts a playout (cext/ismcts.pyx, MAX_PLAYOUT_MOVES).
MAX_GAME_LENGTH = 100_000
PREFIX = "caravan_"
# OpenSpiel's game strings read "5" as an int, so an option whose values are numbers is an int
# parameter (0: the game's default) and the others are text ("": the game's default).
INT_OPTIONS = frozenset({"neutral_region"})
DEAL_DRAWS = 4                   # chance nodes of a random deal: one byte of its seed each
DEAL_OUTCOMES = 256


def _game_type(name: str) -> pyspiel.GameType:
    info = game_info(name)
    params: Dict[str, Any] = {"players": info.default_players, "seed": -1}
    params.update({option: 0 if option in INT_OPTIONS else "" for option in info.options})
    return pyspiel.GameType(
        short_name=PREFIX + name,
        long_name=f"Caravan {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params)


class CaravanGame(pyspiel.Game):
    """One Caravan game with its parameters: a pyspiel Python game."""

    caravan_name = ""            # set by each registered subclass

    def __init__(self, params: Optional[Dict[str, Any]] = None) -> None:
        params = dict(params or {})
        info = game_info(self.caravan_name)
        self.players = check_int(params.get("players", info.default_players), "players")
        self.seed = check_int(params.get("seed", -1), "seed")
        if not -1 <= self.seed < 2 ** 63:          # OpenSpiel's int parameters are 64-bit signed
            raise ValueError(f"seed is -1 (a random deal) or a deal number from 0 to 2**63 - 1, "
                             f"not {self.seed}")
        self.options: Dict[str, Any] = {}
        for key in info.options:
            if key in INT_OPTIONS:
                params[key] = check_int(params.get(key, 0), key)
                if params[key]:
                    self.options[key] = params[key]
                continue
            params[key] = str(params.get(key, "")).replace(",", " ")   # game strings split
            if params[key].strip():                                     # at commas
                self.options[key] = params[key]
        self.deal(max(self.seed, 0))                    # a bad parameter fails here, once
        self.action_map = obs.action_map(self.caravan_name)
        self.deal_draws = DEAL_DRAWS if self.seed < 0 else 0
        game_info_ = pyspiel.GameInfo(
            num_distinct_actions=self.action_map.size,
            max_chance_outcomes=DEAL_OUTCOMES if self.deal_draws else 0,
            num_players=self.players, min_utility=0.0, max_utility=1.0, utility_sum=1.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(_game_type(self.caravan_name), game_info_, params)

    def __reduce__(self) -> tuple:
        """Pickle as the class and its parameters (pyspiel's own pickling would restore the
        C++ game without this Python object's attributes)."""
        return type(self), (dict(self.get_parameters()),)

    def deal(self, seed: int) -> Any:
        """A new Caravan state of this game: Caravan's deal `seed`."""
        return new_game(self.caravan_name, self.players, seed, **self.options)

    def new_initial_state(self) -> "CaravanState":
        return CaravanState(self)

    def max_chance_nodes_in_history(self) -> int:
        return self.deal_draws

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "CaravanObserver":
        return CaravanObserver(self.caravan_name, self.players, iig_obs_type, params)


class CaravanState(pyspiel.State):
    """A pyspiel state around one Caravan state (`caravan_state`, None until the deal is
    drawn). Its Python attributes are that state and the deal's bytes drawn so far, so
    OpenSpiel's clone (a deep copy) and serialization (a pickle: the exact C state) keep
    everything, resampled states included."""

    def __init__(self, game: CaravanGame) -> None:
        super().__init__(game)
        self._players = game.players
        if game.deal_draws:
            self._core = None
            self._drawn: List[int] = []
        else:
            self._core = game.deal(game.seed)

    @property
    def caravan_state(self) -> Any:
        """The Caravan state (engine.registry's game object; every hidden part included), or
        None while the deal is being drawn."""
        return self._core

    def current_player(self) -> int:
        if self._core is None:
            return pyspiel.PlayerId.CHANCE
        p = self._core.to_move
        return pyspiel.PlayerId.TERMINAL if p < 0 else p

    def chance_outcomes(self) -> List[tuple]:
        return [(i, 1.0 / DEAL_OUTCOMES) for i in range(DEAL_OUTCOMES)]

    def _legal_actions(self, player: int) -> List[int]:
        return obs.action_map(self._core.name).legal_ids(self._core)

    def _apply_action(self, action: int) -> None:
        if self._core is None:
            action = check_int(action, "a deal byte")
            if not 0 <= action < DEAL_OUTCOMES:
                raise ValueError(f"a deal byte is 0..{DEAL_OUTCOMES - 1}, not {action}")
            self._drawn.append(action)
            if len(self._drawn) == DEAL_DRAWS:
                seed = sum(b << (8 * i) for i, b in enumerate(self._drawn))
                self._core = self.get_game().deal(seed)
            return
        self._core.apply(obs.action_map(self._core.name).move(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal byte {len(self._drawn)}: {action}"
        return self._core.move_to_text(obs.action_map(self._core.name).move(action))

    def is_terminal(self) -> bool:
        return self._core is not None and self._core.is_terminal()

    def returns(self) -> List[float]:
        if not self.is_terminal():
            return [0.0] * self._players
        return [float(r) for r in self._core.rewards()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "CaravanState":
        """A state the seat cannot tell from this one: Caravan's determinization for the seat
        (every part it cannot see redrawn consistently with what it knows), seeded from
        `probability_sampler` (a pyspiel sampler or any callable giving a float in [0, 1)),
        or from a numpy Generator / RandomState, or an int. (Its history still names the true
        deal: after a resample only the Caravan state tells the sampled world.)"""
        state = self.clone()
        if self._core is not None:
            state._core = self._core.determinized(player_id, _seed_from(probability_sampler))
        return state

    def __str__(self) -> str:
        if self._core is None:
            return f"the deal is being drawn: {len(self._drawn)} of {DEAL_DRAWS} bytes"
        return self._core.render()


def _seed_from(source: Any) -> int:
    """A 63-bit seed drawn from a sampler, a numpy generator or an int."""
    if isinstance(source, int):
        return source & (2 ** 63 - 1)
    if hasattr(source, "integers"):                     # numpy.random.Generator
        return int(source.integers(0, 2 ** 63 - 1))
    if hasattr(source, "randint"):                      # numpy.random.RandomState
        return int(source.randint(0, 2 ** 31 - 1)) << 31 | int(source.randint(0, 2 ** 31 - 1))
    if callable(source):
        return _unit_draw(source) ^ (_unit_draw(source) << 10)
    raise TypeError(f"cannot draw a seed from {type(source).__name__}")


def _unit_draw(sampler: Any) -> int:
    """53 bits from a sampler's float in [0, 1); ValueError for anything else it gives."""
    value = sampler()
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1):
        raise ValueError(f"the sampler must give a float in [0, 1), not {value!r:.40}")
    return int(value * 2 ** 53)


class CaravanObserver:
    """OpenSpiel's PyObserver: one seat's information state (perfect_recall) or observation,
    as engine.observation's tensor (`tensor`, and its named fields in `dict`) and as text."""

    def __init__(self, game: str, players: int, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        if iig_obs_type is not None and (
                not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("Caravan observes as one seat: public_info with the seat's own "
                             "private information (PrivateInfoType.SINGLE_PLAYER) only")
        self.kind = obs.INFORMATION_STATE if recall else obs.OBSERVATION
        self.layout = obs.layout(game, players, self.kind)
        self.tensor = self.layout.new()
        self.dict = self.layout.views(self.tensor)

    def set_from(self, state: CaravanState, player: int) -> None:
        """The seat's tensor; before the deal, only the `seat` field (nothing is known)."""
        if state.caravan_state is None:
            self.tensor.fill(0)
            self.dict["seat"][player] = 1
            return
        obs.tensor(state.caravan_state, player, self.kind, out=self.tensor)

    def string_from(self, state: CaravanState, player: int) -> str:
        """Information state: the seat's view as JSON and its information-set key (exact);
        observation: the board as the seat sees it (the game's own text)."""
        if state.caravan_state is None:
            return f"seat {player}: the deal is not drawn yet"
        if self.kind == obs.INFORMATION_STATE:
            return obs.information_state_string(state.caravan_state, player)
        return state.caravan_state.render(player)


class CaravanBot(pyspiel.Bot):
    """Caravan's own agent as a pyspiel Bot: `spec` is an agent spec (search.agents:
    `ismcts`, `ismcts:iterations=1000,mode=mo`, `heuristic`, `random`, ...). Each step builds
    the position from the seat's view only (`from_view`), so the agent sees what the seat sees
    (even `cheat` then searches a state whose hidden parts were filled in from the view)."""

    def __init__(self, game: CaravanGame, player_id: int, spec: str = "ismcts",
                 seed: int = 0) -> None:
        from search.agents import parse_agent

        pyspiel.Bot.__init__(self)
        self.player_id = player_id
        self.spec = spec
        self._agent = parse_agent(spec).build(seed)
        self._map = obs.action_map(game.caravan_name)

    def step(self, state: CaravanState) -> int:
        core = state.caravan_state
        if core.to_move != self.player_id:
            raise ValueError(f"seat {core.to_move} is to move, not this bot's seat "
                             f"{self.player_id}")
        position = from_view(json.loads(json.dumps(core.to_json(view=self.player_id))))
        return self._map.action_id(self._agent.choose(position))

    def restart_at(self, state: CaravanState) -> None:
        pass

    def inform_action(self, state: CaravanState, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False

    def is_clone_implemented(self) -> bool:
        return False


def _register() -> Dict[str, type]:
    classes = {}
    for name in GAMES:
        cls = type(f"Caravan{name.title()}Game", (CaravanGame,), {"caravan_name": name})
        pyspiel.register_game(_game_type(name), cls)
        globals()[cls.__name__] = cls                 # a module attribute: games pickle
        classes[name] = cls
    return classes


GAME_CLASSES = _register()


def load(name: str, **params: Any) -> pyspiel.Game:
    """pyspiel.load_game for a Caravan game by its Caravan name: load("khiva", players=3)."""
    return pyspiel.load_game(PREFIX + game_info(name).name, params)
