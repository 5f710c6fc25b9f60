"""The four games as PettingZoo AEC environments, one agent per seat (`player_0`, ...).

    from engine.pettingzoo_env import env
    e = env("khiva", players=3)
    e.reset(seed=7)                      # Caravan's deal 7, as `caravan match --seed 7`
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else \\
            e.action_space(agent).sample(observation["action_mask"])
        e.step(action)

An observation is a dict: `observation`, the seat's information-state tensor (a flat float32
vector; `observation="observation"` gives the smaller observation tensor instead), and
`action_mask`, int8 over the game's action ids (all 0 when it is not the agent's turn).
Both tensors and the ids are engine.observation's (docs/ecosystem.md). Rewards come once, at
the end: each seat's win share (in [0, 1], summing to 1). `render()` returns the game's own
text (render_mode "ansi"): the whole table, or as one seat sees it (`render_seat`).

`search_policy(spec)` is Caravan's own search (any agent spec) as a policy for this env: it
reads the seat's view only.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Dict, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cext.core import check_int
from engine import observation as obs
from engine.registry import from_view, game_info, new_game


class CaravanEnv(AECEnv):
    """An AEC environment for one Caravan game (`game`: its registry name) at `players` seats
    (the game's default if None), with the game's options (`khans=...`, `goods=...`)."""

    metadata = {"render_modes": ["ansi"], "name": "caravan_v0", "is_parallelizable": False}

    def __init__(self, game: str, players: Optional[int] = None,
                 render_mode: Optional[str] = None, observation: str = obs.INFORMATION_STATE,
                 render_seat: Optional[int] = None, **options: Any) -> None:
        super().__init__()
        info = game_info(game)
        self.game = info.name
        self.players = info.default_players if players is None else players
        self.options = options
        new_game(self.game, self.players, 0, **options)          # bad arguments fail here
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi' (the game's text)")
        if observation not in obs.KINDS:
            raise ValueError(f"observation {observation!r}: one of {', '.join(obs.KINDS)}")
        if render_seat is not None and not 0 <= check_int(render_seat, "render_seat") < self.players:
            raise ValueError(f"render_seat {render_seat}: no such seat")
        self.render_mode, self.render_seat, self.kind = render_mode, render_seat, observation
        self.metadata = dict(self.metadata, name=f"caravan_{self.game}_v0")
        self.layout = obs.layout(self.game, self.players, observation)
        self.actions = obs.action_map(self.game)
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = self.layout.bounds()
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(low, high, self.layout.shape, np.float32),
            "action_mask": spaces.Box(0, 1, (self.actions.size,), np.int8)})
            for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.actions.size) for a in self.possible_agents}
        self._seeds: Optional[np.random.Generator] = None
        self.state: Any = None

    # ------------------------------------------------------------ the AEC API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """A new game: Caravan's deal `seed`, or with no seed the next deal drawn from the
        generator the last seeded reset started (fresh entropy before any)."""
        if seed is not None:
            deal = check_int(seed, "a seed")
            state = new_game(self.game, self.players, deal, **self.options)  # 0 to 2**64 - 1
            self._seeds = np.random.default_rng(deal)
        else:
            if self._seeds is None:
                self._seeds = np.random.default_rng()
            state = new_game(self.game, self.players, int(self._seeds.integers(0, 2 ** 63 - 1)),
                             **self.options)
        self.state = state
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.to_move]

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        seat = self.seat_of(agent)
        mask = np.zeros(self.actions.size, np.int8)
        if self.state.to_move == seat:
            self.actions.mask(self.state, out=mask)
        return {"observation": obs.tensor(self.state, seat, self.kind), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.state.apply(self.actions.move(action))     # ValueError if no action, or illegal
        self._cumulative_rewards[agent] = 0.0
        if self.state.is_terminal():
            for a, r in zip(self.possible_agents, self.state.rewards()):
                self.rewards[a] = float(r)
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[self.state.to_move]
        self._accumulate_rewards()

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        return self.state.render(self.render_seat)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------ beyond the API
    def seat_of(self, agent: str) -> int:
        """The seat of `agent` ("player_1" -> 1); ValueError for a name that is no agent."""
        seat = self._seat.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise ValueError(f"no agent {agent!r:.40}: the agents are "
                             f"{', '.join(self.possible_agents)}")
        return seat

    def view(self, agent: str) -> Dict[str, Any]:
        """The agent's seat's view (docs/views/): what the seat knows, as JSON."""
        return self.state.to_json(view=self.seat_of(agent))

    def fields(self, observation: np.ndarray) -> Dict[str, np.ndarray]:
        """An observation vector as its named, shaped fields (views into it)."""
        return self.layout.views(observation)


def env(game: str, players: Optional[int] = None, **kwargs: Any) -> CaravanEnv:
    """The AEC environment of `game` (see CaravanEnv)."""
    return CaravanEnv(game, players, **kwargs)


def search_policy(spec: str = "ismcts", seed: int = 0) -> Callable[[CaravanEnv, str], int]:
    """Caravan's agent `spec` (search.agents: `ismcts`, `ismcts:iterations=1000`,
    `heuristic`, ...) as a policy: `policy(env, agent)` is the action id it plays for the
    agent to move. It builds the position from that seat's view only (`from_view`), so it
    knows what the seat knows."""
    from search.agents import parse_agent

    agent_spec = parse_agent(spec)
    agents: Dict[str, Any] = {}

    def policy(environment: CaravanEnv, agent: str) -> int:
        e = environment.unwrapped
        if agent not in agents:
            agents[agent] = agent_spec.build(seed * 1_000_003 + e.seat_of(agent))
        position = from_view(json.loads(json.dumps(e.view(agent))))
        return e.actions.action_id(agents[agent].choose(position))

    return policy
