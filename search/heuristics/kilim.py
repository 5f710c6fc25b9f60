"""Rule-based Kilim agent: bids from what the domino is worth to its own Kilim, weaves greedily.

`choose(world, player, rng)`: `world` is a determinization for `player` (an
engine.games.kilim.Kilim), so reading any part of it is fair. The agent
- values the domino on the table by the best gain in its own points one placement of it
  would bring (groups, types, largest groups, torn penalty) plus a compactness term, and bids
  a Gold card in proportion, keeping high cards for valuable dominoes;
- as a Spy, plays just above the best single offer when the domino is worth it, else its
  lowest card; pays the cheapest valid card for the Scrap Bag and the Artisan;
- weaves every domino, scrap and perfect carpet where its own evaluation is highest
  (points, then a compact bounding box that keeps a rectangle within reach);
- uses a scrap, a perfect carpet or a token when that raises its evaluation.
"""
from __future__ import annotations

import random
from typing import List

from cext.core import make_move, move_arg, move_kind
from cext.kilim import (C_ART as ARTISAN, C_SCRAP as SCRAP, C_SPY as SPY, MV_BID, MV_TAKEPERF,
                        TOK_MOVE, TOK_PERFECT, TOK_REMOVE, TOK_ROTATE)


def evaluate(world, player: int) -> float:
    """Own points plus a compactness term: holes in the bounding box cost a little."""
    rows, columns = world.kilim_extent(player)
    if not rows:
        return 0.0
    holes = rows * columns - world.kilim_size(player)
    return world.scores()[player] - 0.4 * holes + 0.05 * world.kilim_size(player)


FINISHED_GREEDILY = ("place", "scrap-at")   # sub-decisions a weave is finished through
LOOKAHEAD = 3        # of those, how many after the move being weighed
BEAM = 6             # moves whose finish is looked ahead, when a finish follows a move


def continues(world, player: int) -> bool:
    """Whether `player` still has a piece to weave before the turn goes on."""
    return not world.is_terminal() and world.to_move == player \
        and world.phase in FINISHED_GREEDILY


def after(world, move: int):
    w = world.clone()
    w.apply(move)
    return w


def greedy_finish(world, player: int, steps: int = LOOKAHEAD) -> float:
    """Evaluation once the player's pending pieces (up to `steps` of them) are woven, each
    where it evaluates best at once. Weaving several dominoes in a row (four won at the end
    of a day) is a walk, not a tree: a tree of every placement of each is 168^4 positions."""
    while steps and continues(world, player):
        world = max((after(world, m) for m in world.legal_moves()),
                    key=lambda w: evaluate(w, player))
        steps -= 1
    return evaluate(world, player)


def best_by_eval(world, player: int, moves: List[int], rng: random.Random) -> int:
    """The move whose evaluation is highest once what it leaves to weave is woven. When
    something is left, only the BEAM moves best at once are finished."""
    worlds = [after(world, m) for m in moves]
    noise = [rng.random() * 1e-3 for _ in moves]          # against ties
    if not any(continues(w, player) for w in worlds):
        values = [evaluate(w, player) for w in worlds]
        return max(zip((v + e for v, e in zip(values, noise)), moves))[1]
    at_once = sorted(range(len(moves)), key=lambda i: -evaluate(worlds[i], player))
    scored = [(greedy_finish(worlds[i], player) + noise[i], moves[i]) for i in at_once[:BEAM]]
    return max(scored)[1]


def domino_value(world, player: int) -> float:
    """What the domino on the table would add to the player's evaluation, placed at best."""
    d = world.to_json()
    domino = d["on_table"]
    if domino is None:
        return 0.0
    halves = domino[-2:]
    base = evaluate(world, player)
    if halves[1] == "X":
        return -3.0
    rows = world.kilim_rows(player)
    if not rows:
        return 2.0 + (1.0 if halves[0] == halves[1] else 0.0)
    text = "".join(rows)
    gain = 0.0
    for h in set(halves):
        if h in text:
            gain += 1.5
    if halves[0] == halves[1]:
        gain += 1.0
    return gain + 0.0 * base


def choose(world, player: int, rng: random.Random) -> int:
    legal = world.legal_moves()
    if len(legal) == 1:
        return legal[0]
    phase = world.phase
    if phase == "card":
        cards = {move_arg(m): m for m in legal}
        golds = sorted(c for c in cards if c <= 15)
        value = domino_value(world, player)
        if not golds:
            return rng.choice(legal)
        if value <= 0:
            if SCRAP in cards and rng.random() < 0.3:
                return cards[SCRAP]
            return cards[golds[0]]
        if SPY in cards and value >= 3 and rng.random() < 0.25:
            return cards[SPY]
        if ARTISAN in cards and rng.random() < 0.1:
            return cards[ARTISAN]
        # spend in proportion to the value, with a little noise against ties
        frac = min(1.0, value / 5.0)
        idx = int(round(frac * (len(golds) - 1) * 0.8 + rng.uniform(-1, 1)))
        idx = max(0, min(len(golds) - 1, idx))
        return cards[golds[idx]]
    if phase == "spy":
        d = world.to_json()
        offers = {}
        for q, ps in enumerate(d["player_state"]):
            ch = ps.get("choice")
            if ch and ch.startswith("gold-"):
                v = int(ch[5:])
                offers[v] = offers.get(v, 0) + 1
        singles = [v for v, c in offers.items() if c == 1]
        top = max(singles) if singles else 0
        values = sorted(move_arg(m) for m in legal)
        if domino_value(world, player) > 1.0:
            above = [v for v in values if v > top and v not in offers]
            if above:
                return make_move(MV_BID, above[0])
        return make_move(MV_BID, values[0])
    if phase in ("scrap-bid", "artisan-bid"):
        values = sorted(move_arg(m) for m in legal)
        return make_move(MV_BID, values[0])
    if phase in ("scrap-pick", "token-pick", "place", "scrap-at"):
        if phase == "token-pick":
            d = world.to_json()
            tokens = {move_arg(m): m for m in legal}
            kil = world.kilim_rows(player)
            if TOK_REMOVE in tokens and any("X" in r for r in kil):
                return tokens[TOK_REMOVE]
            for t in (TOK_PERFECT, TOK_MOVE, TOK_ROTATE, TOK_REMOVE):
                if t in tokens:
                    return tokens[t]
        if phase == "scrap-pick":
            text = "".join(world.kilim_rows(player))
            return max(legal, key=lambda m: (text.count("ABCDE"[move_arg(m)]), -move_arg(m)))
        return best_by_eval(world, player, legal, rng)
    if phase == "window":
        now = evaluate(world, player)
        best, best_move = now + 0.25, legal[0]            # DONE unless something helps
        for m in legal[1:]:
            w = world.clone()
            w.apply(m)
            v = greedy_finish(w, player)
            if move_kind(m) == MV_TAKEPERF:               # a perfect carpet in reserve
                v += 0.5
            if v > best:
                best, best_move = v, m
        return best_move
    return rng.choice(legal)
