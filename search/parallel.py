"""Distributed search on Ray, and the one door to a search on any number of workers
(search_with_workers).

Ray is imported here only (ensure_ray, also for the arena's Ray runner in
search.arena_ray), and only when more than one worker or a cluster address is asked for: the
default (one worker) never starts or imports Ray.

Root-parallel ISMCTS: W actors each hold the compiled cores and run their own iterations from
the same root with their own determinization stream (seed * 1_000_003 + worker index); the
driver sums, per root move, the visits, reward sums and availability (or lets each worker vote
for its best move). Actors start once and are reused; each search ships the root position
(a few hundred bytes: the game's C struct) to them. A worker that dies mid-search is left out
of that search's merge, reported, and replaced before the next search.

Tree reuse (SearchSession): the searches of one player through one game may keep their trees
between decisions, one search.ismcts.Searcher per worker: in this process for one worker,
else in each Ray actor, under the session's id (a worker keeps the trees of its
MAX_SESSIONS most recent sessions; close() frees them at once).
"""
from __future__ import annotations

import logging
import os
import re
import socket
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Union

from cext.core import GameCore
from engine.validation import quoted
from search.config import Budget, SearchConfig, check_workers, from_keywords
from search.extras import require
from search.ismcts import (LINE_MOVES, Live, MoveStats, Progress, SearchResult, Searcher,
                           check_search, expected_lines, new_tree, root_moves_of, run_tree,
                           search, unmeasured_stats)

# How long a new pool may take until every worker answers: processes start in a few
# seconds on an idle machine, much later on a loaded one or across a cluster.
WORKERS_START_SECONDS = 120.0
MAX_SESSIONS = 8        # kept trees per worker (reuse sessions): the least recent goes first


# A Ray address: Ray's own words, or host:port of a cluster's head (`ray start --head`), or
# ray://host:port of its Ray Client server. The host is a name or an IPv4 address, or an
# IPv6 address in brackets; the port 1..65535 in the digits 0-9.
RAY_WORDS = ("auto", "local")
ADDRESS = re.compile(r"(?:ray://)?(?P<host>[A-Za-z0-9_.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])"
                     r":(?P<port>[0-9]{1,5})")


def check_address(address: object) -> None:
    """ValueError unless `address` is None, empty (no address), or a well-formed Ray address:
    'auto', 'local', 'host:port' or 'ray://host:port'. Whether a cluster answers there is
    check_reachable's question."""
    if address is not None and not isinstance(address, str):
        raise ValueError(f"a Ray address is a string such as 'auto' or 'host:6379', "
                         f"not {quoted(address)}")
    if not address or address in RAY_WORDS:
        return
    match = ADDRESS.fullmatch(address)
    if match is None or not 1 <= int(match["port"]) <= 65535:
        raise ValueError(f"a Ray address is 'auto', 'host:port' or 'ray://host:port' (a port "
                         f"from 1 to 65535), not {quoted(address)}")


def require_ray():
    """The ray module, or MissingExtra: one line that says how to install it."""
    return require("ray", "more than one search worker")


# How long a cluster's head may take to accept a connection before it is taken for absent.
CONNECT_SECONDS = 5.0


# getaddrinfo's answers for a name that names no host (not a DNS server that is down)
NO_SUCH_HOST = {code for code in (getattr(socket, "EAI_NONAME", None),
                                  getattr(socket, "EAI_NODATA", None)) if code is not None}


def check_reachable(address: str) -> None:
    """RuntimeError unless something accepts connections at a `host:port` or
    `ray://host:port` address within CONNECT_SECONDS ("auto" and other forms are left to
    Ray); ValueError when its host is a name that names no host. Ray itself retries a
    missing head for minutes before it gives up."""
    host, sep, port = address[len("ray://"):].rpartition(":") if address.startswith("ray://") \
        else address.rpartition(":")
    if not sep or not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS).close()
    except socket.gaierror as e:
        if e.errno in NO_SUCH_HOST:
            raise ValueError(f"the Ray address {address} names no host ({e.strerror}); give "
                             "the head's host:port, or no address") from None
        raise RuntimeError(f"no Ray cluster answers at {address} ({e.strerror or e}); start one "
                           "with `ray start --head`, or give no address") from None
    except (OSError, ValueError) as e:
        raise RuntimeError(f"no Ray cluster answers at {address} ({e.strerror or e}); start one "
                           "with `ray start --head`, or give no address") from None


def check_ray_address(address: str) -> None:
    """check_address, then check_reachable: a Ray address worth handing to Ray."""
    check_address(address)
    check_reachable(address)


def ensure_ray(workers: int, address: Optional[str] = None):
    """Connect to `address` (or RAY_ADDRESS), or start a local runtime sized to the machine.
    An address given here is checked (check_address, check_reachable) before Ray is
    imported, also when a runtime already runs: a bad one is never silently ignored."""
    if address:
        check_ray_address(address)
    ray = require_ray()
    if not ray.is_initialized():
        from_environment = not address
        address = address or os.environ.get("RAY_ADDRESS")
        if address:
            if from_environment:          # a given address was checked above
                check_ray_address(address)
            ray.init(address=address, log_to_driver=False)
        else:
            # errors only: Ray's notes on starting (its token, "Started a local Ray
            # instance") are not the caller's business, and the protocol's stderr is a log
            ray.init(num_cpus=max(workers, os.cpu_count() or 1), include_dashboard=False,
                     log_to_driver=False, logging_level=logging.ERROR)
    return ray


class _Worker:
    """One search process: holds the cores, runs a tree on the root it is given.

    Searches are numbered by the driver; `stop(n)` stops search n and every earlier one,
    also when it arrives before the search has started (the calls may run in any order).
    """

    def __init__(self, index: int) -> None:
        self.index = index
        self.stopped_upto = 0
        self.sessions: "OrderedDict[str, Searcher]" = OrderedDict()

    def pid(self) -> int:
        return os.getpid()

    def search(self, state: GameCore, player: int, budget: Budget, config: SearchConfig,
               seed: int, number: int, session: Optional[str] = None,
               lines: bool = False, only: Optional[List[int]] = None) -> dict:
        """Search number `number`: this worker's share of a root-parallel search, on a new
        tree, or with a `session` id on the tree this worker keeps for that session; with
        `lines`, the expected lines of its LINE_MOVES most visited moves; with `only`, the
        root restricted to those moves (checked by the driver)."""
        if session is None:
            tree = new_tree(state, player, config, seed)
        else:
            tree = self.searcher(session).tree_for(state, player, config, seed)
        if only is not None:
            tree.restrict_root(only)
        carried = tree.carried()
        elapsed = run_tree(tree, budget, _Stopped(self, number))
        outcomes = tree.root_outcomes()
        stats = []
        for move, visits, mean, avail in tree.root_stats():
            score_sum, win_sum, n = outcomes.get(move, (0.0, 0.0, 0))
            stats.append((move, visits, mean * visits, avail, score_sum, win_sum, n))
        most_visited = sorted(stats, key=lambda s: (-s[1], s[0]))[:LINE_MOVES] if lines else []
        expected = expected_lines(state, tree, [s[0] for s in most_visited])
        return {"worker": self.index, "pid": os.getpid(), "iterations": tree.iterations,
                "nodes": tree.n_nodes, "tree_moves": tree.tree_moves, "full": tree.full,
                "seconds": elapsed, "stats": stats, "carried": carried,
                "lines": {m: (visits, expected[m]) for m, visits, *_ in most_visited}}

    def searcher(self, session: str) -> Searcher:
        """The Searcher of `session` on this worker (made on first use; the least recently
        used of more than MAX_SESSIONS goes)."""
        searcher = self.sessions.pop(session, None) or Searcher()
        self.sessions[session] = searcher
        while len(self.sessions) > MAX_SESSIONS:
            self.sessions.popitem(last=False)
        return searcher

    def forget(self, session: str) -> None:
        """Free the tree kept for `session`."""
        self.sessions.pop(session, None)

    def stop(self, number: int) -> None:
        """Stop search `number` and every earlier one, running or not yet started."""
        self.stopped_upto = max(self.stopped_upto, number)


class _Stopped:
    """The stop flag of one numbered search on a worker (the is_set() run_tree reads)."""

    def __init__(self, worker: _Worker, number: int) -> None:
        self.worker, self.number = worker, number

    def is_set(self) -> bool:
        return self.worker.stopped_upto >= self.number


@dataclass
class ParallelResult(SearchResult):
    """A merged search: also which workers answered and which failed."""

    workers: int = 0
    answered: List[int] = field(default_factory=list)
    failed: List[int] = field(default_factory=list)
    merge: str = "sum"


class ParallelSearch:
    """Root-parallel ISMCTS over `workers` Ray actors, reused from search to search."""

    def __init__(self, workers: int, address: Optional[str] = None) -> None:
        check_workers(workers)
        check_address(address)
        self.ray = ensure_ray(workers, address)
        self.workers = workers
        # no CPU reserved: a pool must never block the arena's game tasks (or another pool)
        # from being scheduled; SPREAD places the workers on different nodes of a cluster
        self._remote = self.ray.remote(num_cpus=0, max_concurrency=2,
                                       scheduling_strategy="SPREAD")(_Worker)
        self.actors = [self._remote.remote(i) for i in range(workers)]
        self.dead: set = set()
        self.lock = threading.Lock()
        self.running: List = []
        self.number = 0                       # searches so far: each worker search is numbered
        self.wait_until_started()

    def wait_until_started(self) -> None:
        """Wait until every worker's process answers, so that a pool is ready when made:
        otherwise the first search paid for starting them (3-5 s of a `go movetime 200`).
        RuntimeError if they do not within WORKERS_START_SECONDS."""
        try:
            self.ray.get([a.pid.remote() for a in self.actors], timeout=WORKERS_START_SECONDS)
        except Exception as e:
            raise RuntimeError(f"the {self.workers} search workers did not start (waited at "
                               f"most {WORKERS_START_SECONDS:.0f} s): {e}") from None

    def replace_dead(self) -> None:
        for i in sorted(self.dead):
            self.actors[i] = self._remote.remote(i)
        self.dead.clear()

    def stop(self) -> None:
        """Ask every worker to end its current search now (also if it has not started)."""
        for i, a in enumerate(self.actors):
            if i not in self.dead:
                try:
                    a.stop.remote(self.number)
                except Exception:
                    pass

    def search(self, state: GameCore, budget: Union[Budget, int, float, None] = None,
               config: Optional[SearchConfig] = None, *, seed: int = 0,
               player: Optional[int] = None, merge: str = "sum",
               stop: Optional[threading.Event] = None,
               on_submit: Optional[Callable[[], None]] = None,
               session: Optional[str] = None, lines: bool = False,
               searchmoves: Optional[Sequence[Union[int, str]]] = None,
               **fields: object) -> ParallelResult:
        """Search `state` for the seat to move on every worker and merge the root statistics.

        As search.ismcts.search, except that the budget's iterations are the total over all
        workers (split evenly) and its seconds are wall time for each. merge="sum" adds
        visits and reward sums per move; merge="vote" gives each worker's best move one
        vote. `on_submit()` is called once every worker has its search. With a `session`
        id each worker searches on the tree it keeps for that session (SearchSession).
        """
        if merge not in ("sum", "vote"):
            raise ValueError("merge is 'sum' or 'vote'")
        budget, config = from_keywords(budget, config, fields, "search", state)
        player = check_search(state, budget, player, stop, seed, lines)
        if state.is_terminal():
            raise ValueError("the game is over: nothing to search")
        only = root_moves_of(state, searchmoves)
        self.replace_dead()
        w = self.workers
        total = budget.iterations
        shares = {i: Budget(total // w + (1 if i < total % w else 0), budget.seconds)
                  for i in range(w)}
        if total:       # a worker with no iterations to run would have no limit: it sits out
            shares = {i: b for i, b in shares.items() if b.iterations}
        t0 = time.perf_counter()
        self.number += 1
        pending = {self.actors[i].search.remote(state, player, share, config,
                                                seed * 1_000_003 + i, self.number, session,
                                                lines, only): i
                   for i, share in shares.items()}
        if on_submit:
            on_submit()
        answers, failed = [], []
        stopped = False
        while pending:
            ready, _ = self.ray.wait(list(pending), num_returns=1, timeout=0.05)
            if stop is not None and stop.is_set() and not stopped:
                self.stop()
                stopped = True
            for ref in ready:
                i = pending.pop(ref)
                try:
                    answers.append(self.ray.get(ref))
                except Exception:
                    failed.append(i)
                    self.dead.add(i)
        elapsed = time.perf_counter() - t0
        return merge_answers(state, player, answers, failed, w, elapsed, merge, only)

    def forget(self, session: str) -> None:
        """Every worker frees the tree it keeps for `session`; returns when they have (a
        threaded actor runs calls in any order: a later search must not find the tree)."""
        refs = []
        for i, a in enumerate(self.actors):
            if i not in self.dead:
                try:
                    refs.append(a.forget.remote(session))
                except Exception:
                    pass
        for ref in refs:
            try:
                self.ray.get(ref, timeout=30)
            except Exception:
                pass

    def shutdown(self) -> None:
        for a in self.actors:
            try:
                self.ray.kill(a)
            except Exception:
                pass
        self.actors = []


def merge_answers(state: GameCore, player: int, answers: List[dict], failed: List[int],
                  workers: int, elapsed: float, merge: str,
                  only: Optional[List[int]] = None) -> ParallelResult:
    """Sum the workers' root statistics (or count their votes) into one result (`only`: the
    root moves searched, when restricted). The answers are taken in worker order, not in the
    order they came in, so the sums and the line kept on equal visits are the same in every
    run."""
    totals: Dict[int, List[float]] = {}
    votes: Dict[int, int] = {}
    lines: Dict[int, tuple] = {}          # move: (visits, line) of the worker that saw it most
    for ans in sorted(answers, key=lambda a: a["worker"]):
        for move, seen in ans.get("lines", {}).items():
            if move not in lines or seen[0] > lines[move][0]:
                lines[move] = seen
        best = None
        for move, visits, reward_sum, avail, score_sum, win_sum, n in ans["stats"]:
            t = totals.setdefault(move, [0, 0.0, 0, 0.0, 0.0, 0])
            t[0] += visits
            t[1] += reward_sum
            t[2] += avail
            t[3] += score_sum
            t[4] += win_sum
            t[5] += n
            if best is None or visits > best[1]:
                best = (move, visits)
        if best is not None:
            votes[best[0]] = votes.get(best[0], 0) + 1
    stats = [MoveStats(m, state.move_to_text(m), int(t[0]), t[1] / t[0] if t[0] else 0.0,
                       int(t[2]), t[4] / t[5] if t[5] else 0.0, t[3] / t[5] if t[5] else 0.0,
                       lines.get(m, (0, ()))[1])
             for m, t in totals.items()]
    if merge == "vote":
        stats.sort(key=lambda s: (-votes.get(s.move, 0), -s.visits, s.move))
    else:
        stats.sort(key=lambda s: (-s.visits, -s.mean_reward, s.move))
    if not answers:
        raise RuntimeError(f"all {workers} search workers failed")
    if not stats:                   # stopped before any worker's first iteration
        stats = unmeasured_stats(state, only)
    best_move = stats[0].move
    iterations = sum(a["iterations"] for a in answers)
    return ParallelResult(
        player, best_move, state.move_to_text(best_move), iterations, elapsed,
        sum(a["nodes"] for a in answers), any(a["full"] for a in answers),
        sum(a["tree_moves"] for a in answers) / max(1, iterations), stats,
        sum(a.get("carried", 0) for a in answers), workers=workers, answered=sorted(a["worker"] for a in answers), failed=sorted(failed),
        merge=merge)


_SHARED: Dict[tuple, ParallelSearch] = {}


def shared_search(workers: int, address: Optional[str] = None) -> ParallelSearch:
    """One pool of search actors per (workers, address) in this process, started once."""
    key = (workers, address or os.environ.get("RAY_ADDRESS"))
    pool = _SHARED.get(key)
    if pool is None:
        pool = _SHARED[key] = ParallelSearch(workers, address)
    return pool


def search_with_workers(state: GameCore, budget: Union[Budget, int, float, None] = None,
                        config: Optional[SearchConfig] = None, *, workers: int = 1,
                        address: Optional[str] = None, seed: int = 0,
                        stop: Optional[threading.Event] = None,
                        progress: Optional[Progress] = None,
                        progress_every: float = 1.0, lines: bool = False,
                        searchmoves: Optional[Sequence[Union[int, str]]] = None,
                        live: Optional[Live] = None) -> SearchResult:
    """search.ismcts.search on `workers` processes: with one (and no Ray `address`) in this
    process, without Ray; with more, root-parallel on the shared pool of Ray actors (see
    ParallelSearch.search: its result also says which workers failed; no progress or live
    calls)."""
    check_workers(workers)
    check_address(address)
    if workers == 1 and not address:
        return search(state, budget, config, seed=seed, stop=stop, progress=progress,
                      progress_every=progress_every, lines=lines, searchmoves=searchmoves,
                      live=live)
    return shared_search(workers, address).search(state, budget, config, seed=seed, stop=stop,
                                                  lines=lines, searchmoves=searchmoves)


class SearchSession:
    """The searches of one player through one game on `workers` processes, each keeping its
    tree from one decision to the next: what search_with_workers does, with tree reuse.

    With one worker and no Ray `address` the session holds one search.ismcts.Searcher in
    this process (Ray is never imported); with more, every actor of the shared Ray pool
    keeps this session's tree under the session's id, and each search is
    ParallelSearch.search on those trees (its result says which workers failed; a
    replaced worker starts a new tree). close() frees the trees.
    """

    def __init__(self, workers: int = 1, address: Optional[str] = None) -> None:
        check_workers(workers)
        check_address(address)
        self.workers, self.address = workers, address
        self.id = uuid.uuid4().hex
        self.local: Optional[Searcher] = Searcher() if workers == 1 and not address else None

    def search(self, state: GameCore, budget: Union[Budget, int, float, None] = None,
               config: Optional[SearchConfig] = None, *, seed: int = 0,
               stop: Optional[threading.Event] = None, progress: Optional[Progress] = None,
               progress_every: float = 1.0) -> SearchResult:
        """search_with_workers(state, budget, config, seed=seed, stop=stop, ...) on the
        trees this session keeps."""
        if self.local is not None:
            return self.local.search(state, budget, config, seed=seed, stop=stop,
                                     progress=progress, progress_every=progress_every)
        return shared_search(self.workers, self.address).search(
            state, budget, config, seed=seed, stop=stop, session=self.id)

    def close(self) -> None:
        """Free the kept trees (the session can still search: it starts new ones)."""
        if self.local is not None:
            self.local.forget()
        else:
            key = (self.workers, self.address or os.environ.get("RAY_ADDRESS"))
            if key in _SHARED:
                _SHARED[key].forget(self.id)
