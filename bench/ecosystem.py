"""Speed of the OpenSpiel and PettingZoo adapters (issue 16, docs/ecosystem.md).

    python bench/ecosystem.py                     # every game at its default player count
    python bench/ecosystem.py --games kilim --players 2 --seconds 3

For each game it prints:
- OpenSpiel's ISMCTS bot (open_spiel.python.algorithms.ismcts, one random rollout per
  simulation) on the adapted game: simulations/s of searches from the first position, next to
  Caravan's own ISMCTS (C, search.ismcts.search) in iterations/s for scale;
- random play, steps/s: Caravan's own API from Python (`apply(choice(legal_moves()))`),
  OpenSpiel state stepping (`apply_action(choice(legal_actions()))`), and a PettingZoo random
  loop (`last()` with the observation tensor and mask, `action_space.sample(mask)`, `step`),
  and the adapters' cost per step over Caravan's own loop, in microseconds.

The machine is shared and timings are noisy: each figure is the best of `--repeats` runs of
about `--seconds` each, the ratios between columns are the figures to read.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from engine import openspiel_game as og  # noqa: E402
from engine.pettingzoo_env import env as aec_env  # noqa: E402
from engine.registry import GAMES, new_game  # noqa: E402
from search.ismcts import search  # noqa: E402


def rate(run, seconds: float, repeats: int) -> float:
    """The best of `repeats` rates of run(deadline) -> units done before the deadline."""
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        units = run(start + seconds)
        best = max(best, units / (time.perf_counter() - start))
    return best


def caravan_random(game: str, players: int):
    def run(deadline: float) -> int:
        steps, k = 0, 0
        while time.perf_counter() < deadline:
            s, rng = new_game(game, players, seed=k), random.Random(k)
            while not s.is_terminal():
                s.apply(rng.choice(s.legal_moves()))
                steps += 1
            k += 1
        return steps
    return run


def openspiel_random(game: str, players: int):
    g = og.load(game, players=players)

    def run(deadline: float) -> int:
        steps, k = 0, 0
        while time.perf_counter() < deadline:
            state, rng = g.new_initial_state(), random.Random(k)
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))   # chance bytes too
                steps += 1
            k += 1
        return steps
    return run


def pettingzoo_random(game: str, players: int):
    e = aec_env(game, players=players)

    def run(deadline: float) -> int:
        steps, k = 0, 0
        while time.perf_counter() < deadline:
            e.reset(seed=k)
            for agent in e.agent_iter():
                observation, reward, termination, truncation, info = e.last()
                if termination or truncation:
                    e.step(None)
                    continue
                e.step(e.action_space(agent).sample(observation["action_mask"]))
                steps += 1
            k += 1
        return steps
    return run


def openspiel_ismcts(game: str, players: int, simulations: int):
    g = og.load(game, players=players, seed=1)
    rng = np.random.RandomState(1)
    bot = ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                           max_simulations=simulations, random_state=rng)
    state = g.new_initial_state()

    def run(deadline: float) -> int:
        done = 0
        while time.perf_counter() < deadline:
            bot.run_search(state)
            done += simulations
        return done
    return run


def caravan_ismcts(game: str, players: int, iterations: int):
    state = new_game(game, players, seed=1)

    def run(deadline: float) -> int:
        done = 0
        while time.perf_counter() < deadline:
            search(state, iterations, seed=done)
            done += iterations
        return done
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    ap.add_argument("--players", type=int, default=None, help="default: each game's default")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--simulations", type=int, default=50, help="per OpenSpiel ISMCTS search")
    args = ap.parse_args()
    print(f"pyspiel {pyspiel.__version__ if hasattr(pyspiel, '__version__') else '?'}, "
          f"{args.seconds:g} s x best of {args.repeats} per figure")
    print(f"{'game':10} {'n':>2} | {'OS ISMCTS sim/s':>15} {'Caravan ISMCTS it/s':>19} | "
          f"{'Caravan steps/s':>15} {'OpenSpiel':>10} {'PettingZoo':>10} | "
          f"{'OS +us/step':>11} {'PZ +us/step':>11}")
    for game in args.games:
        n = args.players or GAMES[game].default_players
        t = args.seconds
        os_sims = rate(openspiel_ismcts(game, n, args.simulations), t, args.repeats)
        cv_sims = rate(caravan_ismcts(game, n, 2000), t, args.repeats)
        cv = rate(caravan_random(game, n), t, args.repeats)
        osr = rate(openspiel_random(game, n), t, args.repeats)
        pz = rate(pettingzoo_random(game, n), t, args.repeats)
        print(f"{game:10} {n:>2} | {os_sims:15,.0f} {cv_sims:19,.0f} | {cv:15,.0f} {osr:10,.0f} "
              f"{pz:10,.0f} | {1e6 / osr - 1e6 / cv:11.1f} {1e6 / pz - 1e6 / cv:11.1f}")


if __name__ == "__main__":
    main()
