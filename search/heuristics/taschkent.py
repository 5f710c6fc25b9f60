"""Rule-based Taschkent agent: a one-move lookahead with a hand-written evaluation.

Every legal move is tried on a copy of the world (a determinization for `player`, so nothing
hidden from the player is used) and the position after it is scored from the player's side:

- trading cards at their set value (the score of the game), Tugrik, and a penalty for being
  the poorest (the poorest are out at the end, except with 2 players);
- goods that a trading post can sell soon are worth more than goods without a post, and posts
  without goods little;
- action cards in hand (3/5 at its end value of 5) and posts in hand are small assets.

Trade connections and hut moves are left to the evaluation too, so the agent rarely buys a
connection. A sale names the hut that receives the good; the evaluation cannot tell the huts
apart, so a small preference decides: a pre-printed hut first (the good stays there for good),
then a neutral hut, then an opponent's hut, and the player's own hut last (an empty own hut is
worth more: moved by Caravan moves on it raises the player's earnings in its new region).
Remaining ties are broken at random with `rng`.
"""
from __future__ import annotations

from cext import taschkent as core
from cext.core import move_arg, move_kind
from engine.games.taschkent import card_set_points

GOODS = ("iron", "jade", "indigo")


def _value(d: dict, p: int) -> float:
    me = d["player_state"][p]
    n = d["players"]
    cards = me["trading_cards"]
    points = card_set_points(cards["silk"], cards["china"], cards["spices"])
    ac = me.get("action_cards", {})
    tug = me["tugrik"] + 5 * ac.get("35", 0)
    goods = sum(me["goods"].values())
    posts = sum(me["posts"]) - sum(me["kept"])
    sellable = min(goods, posts)
    v = 2.2 * points + 0.55 * tug
    v += 5.0 * sellable + 1.2 * (goods - sellable) + 0.6 * (posts - sellable)
    v += 0.25 * me["supply"] + 1.0 * (me["action_card_count"] - ac.get("35", 0))
    if n > 2:
        others = [q["tugrik"] for i, q in enumerate(d["player_state"]) if i != p]
        if tug <= min(others):
            v -= 4.0 + 0.5 * (min(others) - tug)
    return v


def _hut_preference(hut: int, player: int) -> float:
    """Tie-break among the receiving huts of a sale (hut ids: printed, then neutral, then the
    players')."""
    if hut < core.HUT_NEUTRAL0:
        return 0.03
    if hut < core.HUT_PLAYER0:
        return 0.02
    return 0.0 if hut == core.HUT_PLAYER0 + player else 0.01


def _is_link(move: int) -> bool:
    """A cameleer move that lays a trade connection (fields 1 and 2) instead of the action."""
    if move_kind(move) not in (core.MV_CAMEL, core.MV_CAMCARD):
        return False
    x = move_arg(move)
    return core.camel_option(x) > 0 and core.camel_field(x) <= 2


def choose(world, player: int, rng) -> int:
    """The move whose resulting position evaluates best for `player`."""
    legal = world.legal_moves()
    if len(legal) == 1:
        return legal[0]
    best, best_v = [], None
    for m in legal:
        bonus = -1.5 if _is_link(m) else 0.0  # trade connections: only rarely worth it
        c = world.clone()
        c.apply(m)
        v = _value(c.to_json(), player) + bonus
        if move_kind(m) == core.MV_SELL:
            v += 0.5                         # selling beats passing at equal value
            v += _hut_preference(core.sale_hut(move_arg(m)), player)
        if best_v is None or v > best_v + 1e-9:
            best, best_v = [m], v
        elif abs(v - best_v) <= 1e-9:
            best.append(m)
    return rng.choice(best)
