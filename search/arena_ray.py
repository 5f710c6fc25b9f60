"""The arena's games as Ray tasks: each game of a match is one task, and the records come
back as the games finish (search.arena.run_arena takes this as its `runner`).

Ray is imported only when a runner is made (search.parallel.ensure_ray).
"""
from __future__ import annotations

from typing import Iterable, List, Optional, Sequence

from search.arena import GameTask, play_task
from search.parallel import ensure_ray


class RayArenaRunner:
    """Arena games as independent Ray tasks, at most two per worker in flight, results
    streamed back as they finish; close() cancels the tasks still pending."""

    def __init__(self, game: str, players: int, specs: Sequence[str], seed: int,
                 options: Optional[dict], workers: int = 2,
                 address: Optional[str] = None) -> None:
        self.ray = ensure_ray(workers, address)
        self.args = (game, players, list(specs))
        self.seed, self.options, self.workers = seed, options, workers
        self.remote = self.ray.remote(num_cpus=1)(play_task)
        self.pending: List = []

    def __call__(self, tasks: List[GameTask]) -> Iterable[dict]:
        game, players, specs = self.args
        queue = list(tasks)
        window = max(2 * self.workers, 2)
        while queue or self.pending:
            while queue and len(self.pending) < window:
                t = queue.pop(0)
                self.pending.append(self.remote.remote(game, players, specs, t, self.seed,
                                                       self.options))
            ready, self.pending = self.ray.wait(self.pending, num_returns=1)
            for ref in ready:
                yield self.ray.get(ref)

    def close(self) -> None:
        for ref in self.pending:
            try:
                self.ray.cancel(ref, force=True)
            except Exception:
                pass
        self.pending = []
