"""Kilim's Python half: notation, JSON (full states and seat views), the checks that make a
loaded position one the rules can reach and play, rendering and narration.

The rules and the C state live in cext/kilim.pyx (`KilimCore`). This module reads that state
through `_fields()` and writes it only through `_set_fields()`, after the JSON passed the
published schema (docs/views/kilim.schema.json, kilim.state.schema.json); `check_invariants`
then decides whether the result is a position of Kilim before any rule runs on it.

A Kilim's grid comes from `_fields()` as one int per mask (the five pattern types, torn,
perfect, then the horizontal and vertical domino links): cell (r, c) is bit 128 r + c, so a
shift by 1 is the neighbour to the right and a shift by 128 the one below.
"""
from __future__ import annotations

import copy
import functools
import itertools
from collections import Counter
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from cext import kilim as core
from cext.core import GameCore, check_int, move_arg, move_kind, stable_hash
from cext.kilim import TORN_PER_GROUP_OF_PLAYERS, KilimCore
from engine.games.base import CheckedGame, field_property, text_beyond_moves
from engine.validation import IllegalPositionError, ViewError, fail, place_hidden

PHASE_NAMES = ("card", "spy", "scrap-bid", "artisan-bid", "scrap-pick", "token-pick", "place",
               "window", "scrap-at", "over")           # by core.PH_CARD .. core.PH_OVER
PHASE_OF = {name: ph for ph, name in enumerate(PHASE_NAMES)}
CODE_LETTERS = "ABCDEXP"                               # A-E patterns, X torn, P perfect
SCRAP_LETTERS = CODE_LETTERS[:core.N_SCRAPS]           # a scrap's type is its pattern code
TOKEN_NAMES = ("perfect", "rotate", "remove", "move")  # by core.TOK_PERFECT .. TOK_MOVE
STEP_NAMES = ("the Spy offers", "the auction", "the Scrap Bag offers", "the Artisan offers",
              "weaving the won dominoes", "the weaving windows", "the end of the turn")  # core.ST_*
SOURCES = ("won", "perfect", "move")                   # by core.PS_WON, PS_PERFECT, PS_MOVE
DIRECTIONS = ("up", "right", "down", "left")
# how narration tells who won the Scrap Bag and the Artisan (core.LOG_SCRAPWIN, LOG_ARTWIN)
SIDE_WINNER_TEXT = {core.LOG_SCRAPWIN: ("Scrap Bag", "searches the bag", "nobody searches the bag"),
                    core.LOG_ARTWIN: ("Artisan", "calls the Artisan", "nobody calls the Artisan")}
# A regular domino's id is group * 15 + the index of its pair of types, numbered as the core
# numbers them: (A, A), (A, B), ... (E, E).
PAIRS = [(a, b) for a in range(core.N_TYPES) for b in range(a, core.N_TYPES)]
GOLD_BITS = (1 << (core.GOLD_MAX + 1)) - 2
SPECIALS = (core.C_SPY, core.C_SCRAP, core.C_ART)
SPECIAL_BITS = sum(1 << c for c in SPECIALS)
BID_CARD = {core.PH_SPY: core.C_SPY, core.PH_SCRAPBID: core.C_SCRAP, core.PH_ARTBID: core.C_ART}
BID_KEY = {core.C_SPY: "spy_bid", core.C_SCRAP: "scrap_bid", core.C_ART: "art_bid"}
BID_STEP = {core.C_SPY: core.ST_SPY, core.C_SCRAP: core.ST_SCRAP, core.C_ART: core.ST_ART}
BID_TEXT = {"spy_bid": "spy_bid", "scrap_bid": "scrap_bid", "art_bid": "artisan_bid"}
ROW = 128                                              # bits per grid row (see the docstring)
ROW_BITS = (1 << ROW) - 1
COLUMNS = (1 << (core.MAX_COL + 1)) - 1                # the columns a Kilim may use
OUTSIDE_COLUMNS = sum((ROW_BITS & ~COLUMNS) << (ROW * r) for r in range(core.H))
GRID_BITS = ROW * core.H

# Keys a client may leave out: the loader recomputes them, and checks them when they are given.
DERIVED = frozenset({"turn", "step", "seat_iter", "placer", "winner", "win_value", "torn_in",
                     "pile_counts", "perfect_supply", "scraps_on_board_count", "scraps_woven",
                     "has_chosen", "scraps_held_count", "score"})
# A seat's parts that only it sees (with `choice` and the offers while they are face down).
PRIVATE_FIELDS = ("scraps_held", "choice", "spy_bid", "scrap_bid", "artisan_bid")

popcount = getattr(int, "bit_count", None) or (lambda x: bin(x).count("1"))


# ================================================================ notation
def card_text(card: int) -> str:
    """gold-1 .. gold-15, spy, scrap-bag, artisan."""
    return {core.C_SPY: "spy", core.C_SCRAP: "scrap-bag", core.C_ART: "artisan"}.get(
        card, f"gold-{card}")


def parse_card(text: str) -> int:
    """The card number of `gold-7`-style text (1-15, spy 16, scrap-bag 17, artisan 18)."""
    t = text.strip().lower() if isinstance(text, str) else ""
    specials = {"spy": core.C_SPY, "scrap-bag": core.C_SCRAP, "artisan": core.C_ART}
    if t in specials:
        return specials[t]
    if t.startswith("gold-") and t[5:].isdigit() and 1 <= int(t[5:]) <= core.GOLD_MAX:
        return int(t[5:])
    raise ViewError(f"bad card {text!r}: expected gold-1 .. gold-15, spy, scrap-bag or artisan")


def hand_list(hand: int) -> List[str]:
    """The cards of a hand mask, Gold ascending then the special cards."""
    return [card_text(c) for c in range(1, core.C_ART + 1) if hand >> c & 1]


def hand_mask(cards: Iterable[str]) -> int:
    mask = 0
    for t in cards:
        mask |= 1 << parse_card(t)
    return mask


def domino_text(d: int) -> str:
    """Regular: group digit and halves, lower letter first ('2AD'); torn: its regular half and
    X ('CX'); 'PP' for a perfect carpet."""
    if d < core.N_REGULAR:
        a, b = PAIRS[d % core.GROUP_SIZE]
        return f"{d // core.GROUP_SIZE + 1}{CODE_LETTERS[a]}{CODE_LETTERS[b]}"
    if d < core.ID_PERF:
        return f"{CODE_LETTERS[d - core.ID_TORN]}X"
    return "PP"


def parse_domino(text: str) -> int:
    """The id of `2AD`-style text (either order of halves) or of a torn carpet `CX`."""
    t = text.strip().upper() if isinstance(text, str) else ""
    if len(t) == 3 and t[0] in "123" and t[1] in SCRAP_LETTERS and t[2] in SCRAP_LETTERS:
        a, b = sorted((CODE_LETTERS.index(t[1]), CODE_LETTERS.index(t[2])))
        return (int(t[0]) - 1) * core.GROUP_SIZE + PAIRS.index((a, b))
    if len(t) == 2 and t[0] in SCRAP_LETTERS and t[1] == "X":
        return core.ID_TORN + CODE_LETTERS.index(t[0])
    raise ViewError(f"bad domino {text!r}")


def domino_halves(d: int) -> Tuple[int, int]:
    """The pattern codes of domino d's halves, as the core reads them (dom_a, dom_b)."""
    if d < core.N_REGULAR:
        return PAIRS[d % core.GROUP_SIZE]
    if d < core.ID_PERF:
        return d - core.ID_TORN, core.TORN
    return core.PERF, core.PERF


def domino_kind(a: int, b: int) -> Optional[Tuple[int, ...]]:
    """What a woven domino with halves a and b is: (a, b) sorted for a regular one, (a,) for a
    torn one with regular half a, () for a perfect carpet; None if no domino has them."""
    if a < core.N_TYPES and b < core.N_TYPES:
        return (min(a, b), max(a, b))
    if {a, b} == {core.TORN} or (core.TORN in (a, b) and core.PERF in (a, b)):
        return None
    if core.TORN in (a, b):
        return (a if b == core.TORN else b,)
    return () if a == b == core.PERF else None


def kind_of_domino(d: int) -> Tuple[int, ...]:
    a, b = domino_halves(d)
    return domino_kind(a, b)


def kind_text(kind: Tuple[int, ...]) -> str:
    if len(kind) == 2:
        return CODE_LETTERS[kind[0]] + CODE_LETTERS[kind[1]]
    return CODE_LETTERS[kind[0]] + "X" if kind else "PP"


# Every kind of domino of the piles, for counting: the 15 pairs of types, the 5 torn carpets
# (the perfect carpets are counted apart).
KINDS = [tuple(pair) for pair in PAIRS] + [(t,) for t in range(core.N_TORN)]
KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}
KIND_INDEX[()] = len(KINDS)
KIND_OF_DOMINO = [KIND_INDEX[kind_of_domino(d)] for d in range(core.ID_PERF)]


def anchor_text(anchor: int) -> str:
    return (f"{core.anchor_row(anchor) - core.ORG},{core.anchor_col(anchor) - core.ORG}"
            f"{'hv'[core.anchor_dir(anchor)]}")


# ---------------------------------------------------------------- the same things in words
# Narration and render tell a player what happened in sentences; notation names moves only
# where it is what the player types (the move list, `hint`).
TOKEN_WORDS = ("Perfect Carpet", "Rotate", "Remove", "Move")     # by core.TOK_*
SIDE_WORDS = ("above it", "to its right", "below it", "to its left")   # by DIRECTIONS
LEGEND = ["legend: A-E the five patterns; a-e a scrap of that pattern woven on the cell (over a half",
          "        or in a hole); X a torn half (-3 points); P a half of a perfect carpet (no points);",
          "        . a hole; - and | join the two halves of one domino"]


def card_words(card: int) -> str:
    """'Gold 7', 'the Spy', 'the Scrap Bag', 'the Artisan'."""
    return {core.C_SPY: "the Spy", core.C_SCRAP: "the Scrap Bag", core.C_ART: "the Artisan"}.get(
        card, f"Gold {card}")


def half_words(code: int) -> str:
    """One half of a domino: 'pattern A', 'a torn half', 'a perfect half'."""
    if code == core.TORN:
        return "a torn half"
    if code == core.PERF:
        return "a perfect half"
    return f"pattern {CODE_LETTERS[code]}"


def halves_words(a: int, b: int) -> str:
    """A woven domino's two halves: 'pattern A and pattern D', 'two C patterns', 'two perfect
    halves'."""
    if a == b:
        return "two perfect halves" if a == core.PERF else f"two {CODE_LETTERS[a]} patterns"
    return f"{half_words(a)} and {half_words(b)}"


def domino_words(d: int) -> str:
    """What a domino is: 'patterns A and D', 'two C patterns', 'a torn carpet: pattern C and a
    torn half', 'a perfect carpet'."""
    a, b = domino_halves(d)
    if d >= core.ID_PERF:
        return "a perfect carpet"
    if d >= core.ID_TORN:
        return f"a torn carpet: {half_words(a)} and a torn half"
    if a == b:
        return f"two {CODE_LETTERS[a]} patterns"
    return f"patterns {CODE_LETTERS[a]} and {CODE_LETTERS[b]}"


def named_domino(d: int) -> str:
    """A domino's name with what it is: '1AD (patterns A and D)'."""
    return f"{domino_text(d)} ({domino_words(d)})"


def cell_words(r: int, c: int) -> str:
    """A cell of a Kilim, from its bounding box's top-left cell (as the notation counts)."""
    return f"row {r}, column {c}"


WORD_MOVES = {core.MV_DONE: "done", core.MV_TAKEPERF: "take-perfect",
              core.MV_PLACEPERF: "weave-perfect"}      # the moves that take no argument


def move_text(move: int, pl_a: int = 0, pl_b: int = 0) -> str:
    """A move in notation; a placement names the halves of the domino being placed (pl_a and
    pl_b, as the core holds them)."""
    kind, x = move_kind(move), move_arg(move)
    if kind == core.MV_CARD:
        return card_text(x)
    if kind == core.MV_BID:
        return f"gold-{x}"
    if kind in (core.MV_SCRAPPICK, core.MV_SELSCRAP, core.MV_REMOVESCRAP, core.MV_MOVESCRAP) \
            and x < core.N_SCRAPS:
        prefix = {core.MV_SCRAPPICK: "scrap", core.MV_SELSCRAP: "weave-scrap",
                  core.MV_REMOVESCRAP: "remove-scrap", core.MV_MOVESCRAP: "move-scrap"}[kind]
        return f"{prefix}-{SCRAP_LETTERS[x]}"
    if kind == core.MV_TOKENPICK and x < core.N_TOKENS:
        return f"token-{TOKEN_NAMES[x]}"
    if kind == core.MV_PLACE:
        r, c, d, f = core.place_row(x), core.place_col(x), core.place_dir(x), core.place_flip(x)
        a, b = (pl_b, pl_a) if f else (pl_a, pl_b)
        return (f"place@{r - core.ORG},{c - core.ORG}{'hv'[d]}:"
                f"{CODE_LETTERS[a % 7]}{CODE_LETTERS[b % 7]}")
    if kind in WORD_MOVES:
        return WORD_MOVES[kind]
    if kind == core.MV_ROTATE:
        anchor, opt = core.rotate_anchor(x), core.rotate_option(x)
        how = "swap" if opt == 8 else f"keep{opt // 4 + 1}-{DIRECTIONS[opt & 3]}"
        return f"rotate@{anchor_text(anchor)}:{how}"
    if kind == core.MV_REMOVE:
        return f"remove@{anchor_text(x)}"
    if kind == core.MV_MOVE:
        return f"move@{anchor_text(x)}"
    if kind == core.MV_SCRAPAT:
        return f"scrap@{core.cell_row(x) - core.ORG},{core.cell_col(x) - core.ORG}"
    return f"?{move}"


# ================================================================ the grid
def cell_bit(r: int, c: int) -> int:
    return 1 << (ROW * r + c)


def bits_of(x: int) -> Iterable[int]:
    """The positions of the set bits of x, ascending."""
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def cell_code(m: Sequence[int], r: int, c: int) -> int:
    """The pattern code shown at (r, c), -1 for an empty cell."""
    i = ROW * r + c
    for t in range(core.N_CODES):
        if m[t] >> i & 1:
            return t
    return -1


def columns_of(x: int, first_row: int, last_row: int) -> int:
    """The columns used by x in rows first_row .. last_row, as one row mask."""
    cols = 0
    for r in range(first_row, last_row + 1):
        cols |= x >> (ROW * r) & ROW_BITS
    return cols


# ================================================================ what a state implies
def group_size(n: int) -> int:
    """Dominoes auctioned per day (and Gold cards per seat): 10 with 2 players, else 15."""
    return core.GROUP_SIZE - (core.DUEL_REMOVED if n == 2 else 0)


def gold_max(n: int) -> int:
    return core.GOLD_MAX_DUEL if n == 2 else core.GOLD_MAX


def full_hand(n: int) -> int:
    return ((1 << (gold_max(n) + 1)) - 2) | SPECIAL_BITS


def revealed_of_group(f: Dict[str, Any], g: int) -> int:
    """Dominoes of group g's pile revealed so far (its torn carpets included)."""
    regular = (f["revealed"] >> (g * core.GROUP_SIZE)) & ((1 << core.GROUP_SIZE) - 1)
    return popcount(regular) + f["torn_seen"][g]


def pile_remaining(f: Dict[str, Any], g: int) -> int:
    if g < f["day"]:
        return 0
    if g == f["day"]:
        return f["pile_len"][g] - f["pile_pos"]
    return f["pile_len"][g]


def pile_of(f: Dict[str, Any], g: int) -> List[int]:
    """The face-down dominoes of group g, bottom first (the next one to reveal first)."""
    if g < f["day"]:
        return []
    start = f["pile_pos"] if g == f["day"] else 0
    return f["piles"][g][start:f["pile_len"][g]]


def auctions_done(f: Dict[str, Any]) -> int:
    """Auctions of the current day resolved so far (the current one once its cards are shown):
    each took one Gold card from every hand."""
    return revealed_of_group(f, f["day"]) - (1 if f["phase"] == core.PH_CARD else 0)


def offer(f: Dict[str, Any], p: int) -> int:
    """Seat p's offer in the auction: its Gold card, or a Spy's Gold card; 0 for none."""
    c = f["choice"][p]
    if 1 <= c <= core.GOLD_MAX:
        return c
    return f["spy_bid"][p] if c == core.C_SPY else 0


def auction_result(f: Dict[str, Any]) -> Tuple[int, int]:
    """(winner, winning offer) of the current auction: equal offers cancel out, the highest
    left wins; (-1, 0) when none is left."""
    n = f["n"]
    count = Counter(offer(f, p) for p in range(n))
    singles = [v for v, k in count.items() if v and k == 1]
    if not singles:
        return -1, 0
    best = max(singles)
    return next(p for p in range(n) if offer(f, p) == best), best


# How far this turn's auction has gone, by phase (cext/kilim.pyx, resolve): the Scrap Bag winner
# looks at the board, then picks; the Artisan offers follow, then the winner's token pick.
TOKEN_TAKEN = (core.PH_PLACE, core.PH_WINDOW, core.PH_SCRAPAT)
SCRAP_PICKED = (core.PH_ARTBID, core.PH_TOKENPICK) + TOKEN_TAKEN
BOARD_SEEN = (core.PH_SCRAPPICK,) + SCRAP_PICKED


def side_winner(f: Dict[str, Any], card: int, win_value: int) -> int:
    """The Scrap Bag (highest valid offer above the winning one) or Artisan (lowest valid
    offer below it) winner of this turn; -1 for nobody, a tie included."""
    key = BID_KEY[card]
    above = card == core.C_SCRAP
    valid = [f[key][p] for p in range(f["n"]) if f["choice"][p] == card
             and (f[key][p] > win_value if above else f[key][p] < win_value)]
    if not valid:
        return -1
    best = max(valid) if above else min(valid)
    if valid.count(best) != 1:
        return -1
    return next(p for p in range(f["n"]) if f["choice"][p] == card and f[key][p] == best)


def bid_options(f: Dict[str, Any], p: int, phase: int, win_value: int) -> int:
    """The Gold cards p may offer in an offer phase (as the core's bid_options)."""
    gold = f["hand"][p] & GOLD_BITS
    if phase == core.PH_SCRAPBID:
        return gold & ~((1 << (win_value + 1)) - 1) or gold
    if phase == core.PH_ARTBID:
        return gold & ((1 << win_value) - 1) or gold
    return gold


def has_chosen(f: Dict[str, Any], p: int) -> bool:
    """Whether seat p made a face-down choice that is not yet revealed."""
    phase = f["phase"]
    if phase == core.PH_CARD:
        return p < f["actor"]
    card = BID_CARD.get(phase)
    return (card is not None and f["choice"][p] == card and p < f["actor"]
            and bid_options(f, p, phase, f["win_value"]) != 0)


def derived_step(phase: int, turn: int, place_src: int) -> int:
    """Where the turn resumes after the current decision: the phase fixes it."""
    if phase == core.PH_CARD:
        return core.ST_SPY if turn == 0 else core.ST_END
    if phase == core.PH_PLACE:
        return core.ST_PLACE if place_src == core.PS_WON else core.ST_WINDOW
    return {core.PH_SPY: core.ST_SPY, core.PH_SCRAPBID: core.ST_SCRAP,
            core.PH_SCRAPPICK: core.ST_ART, core.PH_ARTBID: core.ST_ART,
            core.PH_TOKENPICK: core.ST_PLACE, core.PH_WINDOW: core.ST_WINDOW,
            core.PH_SCRAPAT: core.ST_WINDOW, core.PH_OVER: core.ST_END}[phase]


def derived_seat_iter(f: Dict[str, Any]) -> int:
    """The first seat the current step still looks at: after the last seat that offered with
    the step's special card (offer phases, and after the Artisan offers), the seat in its
    window, else 0."""
    phase, actor = f["phase"], f["actor"]
    if phase in (core.PH_WINDOW, core.PH_SCRAPAT) or (
            phase == core.PH_PLACE and f["place_src"] != core.PS_WON):
        return actor
    if phase in BID_CARD:
        card, before = BID_CARD[phase], range(actor)
    elif phase in (core.PH_TOKENPICK, core.PH_PLACE):
        card, before = core.C_ART, range(f["n"])
    else:
        return 0
    return max((q + 1 for q in before if f["choice"][q] == card), default=0)


def lifted(f: Dict[str, Any]) -> Tuple[Optional[Tuple[int, ...]], int]:
    """The domino in hand while a perfect carpet is woven or a domino moved: (its kind or None,
    1 if it is a perfect carpet)."""
    if f["phase"] != core.PH_PLACE or f["place_src"] == core.PS_WON:
        return None, 0
    if f["pl_a"] == core.PERF:
        return (), 1
    return (domino_kind(f["pl_a"], f["pl_b"]) if f["place_src"] == core.PS_MOVE else None), 0


def scraps_at(f: Dict[str, Any], loc: int) -> List[int]:
    return [t for t in range(core.N_SCRAPS) if f["scrap_loc"][t] == loc]


def woven_scraps(f: Dict[str, Any], p: int) -> List[Tuple[int, int, int, int]]:
    """(type, row, column, code under it) of the scraps woven in p's Kilim."""
    return [(t, f["scrap_r"][t], f["scrap_c"][t], f["scrap_under"][t])
            for t in scraps_at(f, core.LOC_WOVEN + p)]


def unseen_by(f: Dict[str, Any], o: int, t: int) -> bool:
    """Whether seat o cannot see scrap t: on the board, or held face down by another seat."""
    loc = f["scrap_loc"][t]
    return loc == core.LOC_BOARD or (core.LOC_HELD <= loc < core.LOC_HELD + f["n"]
                                    and loc != core.LOC_HELD + o)


def scrap_whereabouts(f: Dict[str, Any], o: int) -> Dict[str, list]:
    """Every scrap seat o cannot see, with the places o believes it may be."""
    n = f["n"]
    return {SCRAP_LETTERS[t]: [q for q in range(n) if f["where"][o][t] >> q & 1]
            + (["board"] if f["where"][o][t] >> core.WHERE_BOARD & 1 else [])
            for t in range(core.N_SCRAPS) if unseen_by(f, o, t)}


def scrap_groups(f: Dict[str, Any], o: int) -> List[Dict[str, Any]]:
    """Seat o's counts of the scraps it cannot see: each group of them (the scraps it last saw
    on the board, less those it saw since), how many of it each seat holds and the board."""
    n, out = f["n"], []
    for g in range(core.N_SCRAPS):
        members = [SCRAP_LETTERS[t] for t in range(core.N_SCRAPS) if f["group_of"][o][t] == g]
        if members:
            share = f["share"][o][g]
            out.append({"scraps": members, "held": list(share[:n]),
                        "board": share[core.WHERE_BOARD]})
    return sorted(out, key=lambda x: SCRAP_LETTERS.index(x["scraps"][0]))


def place_of_scrap(f: Dict[str, Any], t: int) -> int:
    """Where an unseen scrap is, as a knowledge place: the holder's seat, or WHERE_BOARD."""
    loc = f["scrap_loc"][t]
    return core.WHERE_BOARD if loc == core.LOC_BOARD else loc - core.LOC_HELD


def blank_places(places: list, n: int, o: int) -> bool:
    """Whether `places` is every place hidden from seat o: a belief that tells nothing."""
    return set(places) == {q for q in range(n) if q != o} | {"board"}


def hidden_places(n: int, o: int) -> int:
    """Every place a scrap unseen by o could be: the other seats and the board."""
    return ((1 << n) - 1) & ~(1 << o) | (1 << core.WHERE_BOARD)


def token_uses(f: Dict[str, Any], token: int) -> int:
    """How often a token can have been used so far: once a day, today's if it is used."""
    today = f["token_used"][token] if f["day"] < core.N_GROUPS else 0
    return min(f["day"], core.N_GROUPS) + today


def span_bound(f: Dict[str, Any], dominoes: int, lifted_here: int) -> int:
    """How far a Kilim of `dominoes` can have spread by now (rows + columns of its bounding
    box; the argument is MOST_SPAN's in cext/kilim.pyx): 3 for its first domino, +2 for every
    other one woven (those in it, the one lifted by a Move, any taken out since, the Move
    token's placements), +1 for every Rotate; the tokens count once a day."""
    moves = token_uses(f, core.TOK_MOVE)
    rotations = token_uses(f, core.TOK_ROTATE)
    placed = dominoes + lifted_here + f["removed_reg"] + f["removed_perf"] + moves
    return 3 + 2 * (placed - 1) + rotations


# ================================================================ a Kilim, analysed
@functools.lru_cache(maxsize=512)
def analyse_grid(m: Tuple[int, ...], rmax: int, cmax: int, n_dom: int, n_perf: int,
                 n_cells: int, scraps: Tuple[Tuple[int, int, int, int], ...]) -> Tuple[Any, ...]:
    """Check one Kilim's grid and return its dominoes: (how many of each kind in KINDS,
    perfect carpets).
    Raises IllegalPositionError with the message only (the caller adds the field).

    Cached: most moves leave every Kilim as it was."""
    def check(condition: bool, message: str) -> None:
        if not condition:
            raise IllegalPositionError(message)

    check(all(0 <= x < 1 << GRID_BITS and not x & OUTSIDE_COLUMNS for x in m),
          "the grid holds cells outside its columns")
    occ = 0
    for t in range(core.N_CODES):
        check(not occ & m[t], "a cell holds two patterns")
        occ |= m[t]
    hl, vl = m[core.M_HL], m[core.M_VL]
    if not occ:
        check(not (hl | vl) and rmax == cmax == -1 and n_dom == n_perf == n_cells == 0
              and not scraps, "an empty Kilim has no extent, dominoes or scraps")
        return (0,) * len(KINDS), 0
    first_row = ((occ & -occ).bit_length() - 1) // ROW
    last_row = (occ.bit_length() - 1) // ROW
    cols = columns_of(occ, first_row, last_row)
    check(first_row == core.ORG and cols & -cols == 1 << core.ORG,
          "the Kilim is not aligned at its top-left cell")
    check(rmax == last_row and cmax == cols.bit_length() - 1,
          "the Kilim's extent does not fit its cells")
    # links: each names two occupied cells; no cell is in two dominoes
    right, below = hl << 1, vl << ROW
    check(not (hl & ~occ or right & ~occ or vl & ~occ or below & ~occ),
          "a domino link without its two cells")
    check(not (hl & right or vl & below or (hl | right) & (vl | below)),
          "a cell is in two dominoes")
    covered = hl | right | vl | below
    holes_filled = 0
    true = list(m[:core.N_CODES])            # the patterns under the scraps
    for t, r, c, under in scraps:
        b = cell_bit(r, c)
        check(m[t] & b, f"scrap {SCRAP_LETTERS[t]} is not on its cell")
        if under < 0:
            holes_filled |= b
        else:
            check(covered & b, f"scrap {SCRAP_LETTERS[t]} covers a pattern outside every domino")
            true[t] &= ~b
            true[under] |= b
    check(occ & ~covered == holes_filled, "a cell outside every domino")
    kinds = [0] * (len(KINDS) + 1)             # the last one counts perfect carpets
    for links, shift in ((hl, 1), (vl, ROW)):
        for a in range(core.N_CODES):
            anchors = links & true[a]
            if not anchors:
                continue
            for b in range(core.N_CODES):
                k = popcount(anchors & (true[b] >> shift))
                if k:
                    kind = domino_kind(a, b)
                    check(kind is not None, f"no domino has the halves "
                          f"{CODE_LETTERS[a]}{CODE_LETTERS[b]}")
                    kinds[KIND_INDEX[kind]] += k
    perfect = kinds.pop()
    check(n_dom == popcount(hl) + popcount(vl) and n_perf == perfect
          and n_cells == popcount(occ), "the counts of dominoes and cells are wrong")
    return tuple(kinds), perfect


# ================================================================ the game API
class Kilim(CheckedGame, KilimCore):
    """A Kilim position. `Kilim(players=4, seed=0)` deals a new game (2 to 5 players).

    The rules are the C core's; this class adds notation, JSON, views, text and checks."""

    DERIVED = DERIVED
    SEAT_LISTS = ("player_state", "whereabouts_by_seat", "scrap_groups_by_seat")
    DEFAULTED = frozenset({"seed", "whereabouts_by_seat", "scrap_groups_by_seat"})  # nothing learned yet
    VIEW_DEFAULTED = frozenset({"scrap_groups"})   # default: the counts every seat knows

    PHASES = PHASE_NAMES

    day = field_property("day", "The current day, 0-2 (3 once the game is over).")
    turn = field_property("turn", "Auctions begun before the current one.")

    def move_to_text(self, move: int) -> str:
        """`move` in notation (docs/views/kilim.md, Moves); as the base's for what is no move."""
        move = check_int(move, "a move")
        f = self._fields()
        return text_beyond_moves(move) or move_text(move, f["pl_a"], f["pl_b"])

    # ------------------------------------------------------------ the Kilims
    def kilim_json(self, p: int, f: Optional[Dict[str, Any]] = None) -> Dict[str, list]:
        """p's Kilim: dominoes [row, col, 'h'|'v', halves] (top/left half first, the patterns
        under any scrap) and scraps [type, row, col]; rows and columns from the bounding box."""
        self._check_player(p)
        f = f or self._fields()
        kil = f["k"][p]
        m = kil["m"]
        under = {(r, c): u for _, r, c, u in woven_scraps(f, p)}
        dominoes = []
        for i in bits_of(m[core.M_HL] | m[core.M_VL]):
            r, c = divmod(i, ROW)
            d = 0 if m[core.M_HL] >> i & 1 else 1
            r2, c2 = r + d, c + 1 - d
            a = under.get((r, c), cell_code(m, r, c))
            b = under.get((r2, c2), cell_code(m, r2, c2))
            dominoes.append([r - core.ORG, c - core.ORG, "hv"[d], CODE_LETTERS[a] + CODE_LETTERS[b]])
        scraps = [[SCRAP_LETTERS[t], r - core.ORG, c - core.ORG] for t, r, c, _ in woven_scraps(f, p)]
        return {"dominoes": dominoes, "scraps": scraps}

    def kilim_rows(self, p: int) -> List[str]:
        """p's Kilim as text rows: A-E patterns, X torn, P perfect, '.' a hole."""
        self._check_player(p)
        kil = self._fields()["k"][p]
        if kil["rmax"] < 0:
            return []
        return ["".join(CODE_LETTERS[x] if (x := cell_code(kil["m"], r, c)) >= 0 else "."
                        for c in range(core.ORG, kil["cmax"] + 1))
                for r in range(core.ORG, kil["rmax"] + 1)]

    def kilim_picture(self, p: int) -> List[str]:
        """A small text grid: letters for the patterns (lower case under a scrap), '-' and '|'
        join the two halves of a domino, '.' marks a hole."""
        f = self._fields()
        kil = f["k"][p]
        m = kil["m"]
        if kil["rmax"] < 0:
            return ["(empty)"]
        scrapped = {(r, c) for _, r, c, _ in woven_scraps(f, p)}
        out = []
        for r in range(core.ORG, kil["rmax"] + 1):
            row, link = [], []
            for c in range(core.ORG, kil["cmax"] + 1):
                code = cell_code(m, r, c)
                ch = "." if code < 0 else CODE_LETTERS[code]
                row.append(ch.lower() if (r, c) in scrapped else ch)
                if c < kil["cmax"]:
                    row.append("-" if m[core.M_HL] >> (ROW * r + c) & 1 else " ")
                link.append("|" if m[core.M_VL] >> (ROW * r + c) & 1 else " ")
                if c < kil["cmax"]:
                    link.append(" ")
            out.append("".join(row).rstrip())
            if r < kil["rmax"]:
                out.append("".join(link).rstrip())
        return out

    # ------------------------------------------------------------ writing JSON
    def player_json(self, p: int, mine: bool, scores: Optional[List[int]] = None,
                    f: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Seat p's part of to_json: everything public, and its face-down parts if `mine`."""
        self._check_player(p)
        f = f or self._fields()
        held = [SCRAP_LETTERS[t] for t in scraps_at(f, core.LOC_HELD + p)]
        d = {
            "hand": hand_list(f["hand"][p]),
            "has_chosen": has_chosen(f, p),
            "perfect_held": f["perfect_held"][p],
            "scraps_held_count": len(held),
            "kilim": self.kilim_json(p, f),
            "score": (self.scores() if scores is None else scores)[p],
        }
        phase, choice = f["phase"], f["choice"][p]
        if mine:
            d["scraps_held"] = held
            d["choice"] = card_text(choice) if choice else None
            d["spy_bid"], d["scrap_bid"] = f["spy_bid"][p], f["scrap_bid"][p]
            d["artisan_bid"] = f["art_bid"][p]
        else:
            # revealed choices are public; pending face-down ones are not
            d["choice"] = card_text(choice) if choice and phase != core.PH_CARD else None
            d["spy_bid"] = f["spy_bid"][p] if phase > core.PH_SPY else 0
            d["scrap_bid"] = f["scrap_bid"][p] if phase > core.PH_SCRAPBID else 0
            d["artisan_bid"] = f["art_bid"][p] if phase > core.PH_ARTBID else 0
        return d

    def to_json(self, view: Optional[int] = None) -> Dict[str, Any]:
        """The full state, or (view = a seat) what that seat knows: hidden parts left out."""
        if view is not None:
            self._check_player(view)
        f = self._fields()
        n, phase = f["n"], f["phase"]
        scores = self.scores()
        out = {
            "game": "kilim", "players": n, "seed": self.seed, "day": f["day"], "turn": f["turn"],
            "phase": PHASE_NAMES[phase], "to_move": self.to_move, "step": f["step"],
            "seat_iter": f["seat_iter"],
            "on_table": domino_text(f["on_table"]) if f["on_table"] >= 0 else None,
            "pending": [domino_text(x) for x in f["pending"][:f["n_pending"]]],
            "to_place": [domino_text(x) for x in f["to_place"][:f["n_to_place"]]],
            "placer": f["placer"], "winner": f["winner"], "win_value": f["win_value"],
            "lost": f["lost"], "removed": [f["removed_reg"], f["removed_perf"]],
            "revealed": [domino_text(i) for i in bits_of(f["revealed"])],
            "torn_in": list(f["torn_in"]),
            "torn_seen": list(f["torn_seen"]),
            "pile_counts": [pile_remaining(f, g) for g in range(core.N_GROUPS)],
            "tokens": [{"token": TOKEN_NAMES[t], "holder": f["token_holder"][t],
                        "used": bool(f["token_used"][t])} for t in range(core.N_TOKENS)],
            "perfect_supply": f["perfect_supply"],
            "scraps_on_board_count": len(scraps_at(f, core.LOC_BOARD)),
            "scraps_woven": {SCRAP_LETTERS[t]: f["scrap_loc"][t] - core.LOC_WOVEN
                             for t in range(core.N_SCRAPS)
                             if core.LOC_WOVEN <= f["scrap_loc"][t] < core.LOC_WOVEN + 5},
            "scraps_out": [SCRAP_LETTERS[t] for t in scraps_at(f, core.LOC_OUT)],
            "scrap_in_hand": ([SCRAP_LETTERS[f["sel_scrap"]], f["scrap_loc"][f["sel_scrap"]] - core.LOC_SEL]
                              if phase == core.PH_SCRAPAT else None),
            "placing": ({"source": SOURCES[f["place_src"]],
                         "halves": CODE_LETTERS[f["pl_a"]] + CODE_LETTERS[f["pl_b"]],
                         "direction": f["pl_dir"]} if phase == core.PH_PLACE else None),
            "player_state": [self.player_json(p, view is None or p == view, scores, f)
                             for p in range(n)],
        }
        if view is None:
            out["piles"] = [[domino_text(x) for x in pile_of(f, g)] for g in range(core.N_GROUPS)]
            out["scraps_on_board"] = [SCRAP_LETTERS[t] for t in scraps_at(f, core.LOC_BOARD)]
            out["whereabouts_by_seat"] = [
                {letter: places for letter, places in scrap_whereabouts(f, o).items()
                 if not blank_places(places, n, o)} for o in range(n)]
            out["scrap_groups_by_seat"] = [scrap_groups(f, o) for o in range(n)]
            return out
        del out["seed"]                            # the deal seed would give away every hidden part
        out["view"] = view
        out["scrap_whereabouts"] = scrap_whereabouts(f, view)
        out["scrap_groups"] = scrap_groups(f, view)
        return out

    # ------------------------------------------------------------ reading JSON
    def _adopt_view(self, v: Dict[str, Any]) -> None:
        """Seat o's scrap knowledge and information hashes as the view gives them (no
        history); the other seats' knowledge stays as the loader set it (a search redraws it)."""
        f = self._fields()
        n, o = f["n"], v["view"]
        where = canonical(v)["scrap_whereabouts"]
        for t in range(core.N_SCRAPS):
            places = where.get(SCRAP_LETTERS[t])
            if places is not None:
                f["where"][o][t] = sum(1 << (core.WHERE_BOARD if q == "board" else q) for q in places)
        if "scrap_groups" in v:
            write_seat_groups(f, o, canonical(v)["scrap_groups"], ("scrap_groups",))
        public = stable_hash(self.public_view(o))
        mine = v["player_state"][o]
        private = stable_hash([o, {k: mine[k] for k in PRIVATE_FIELDS}, where, scrap_groups(f, o)])
        f["ih"]["public"] = public
        f["ih"]["n_public"] = 0
        for a in range(5):
            for b in range(5):
                f["ih"]["pair"][a][b] = stable_hash([public, a, b]) if a < n and b < n else 0
        f["ih"]["pair"][o][o] = private
        self._set_fields(f)

    def public_view(self, o: int) -> Dict[str, Any]:
        """Seat o's view as every seat sees it: its own face-down parts shown as to the others."""
        out = self.to_json(view=o)
        del out["view"], out["scrap_whereabouts"], out["scrap_groups"]
        out["player_state"][o] = self.player_json(o, False)
        return out

    # ------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        """IllegalPositionError (a ValueError) unless this is a position of Kilim: every
        domino, scrap, token, perfect carpet and card in exactly one place; the piles, the
        turn, the hands, the offers and what has been chosen consistent with the phase and the
        seat to move; every Kilim well formed and within reach of the placements so far; each
        seat's knowledge of the scraps true; every index the rules read in range."""
        f = self._fields()
        check(f["n"] == self.n_players and 2 <= f["n"] <= 5 and f["gold_max"] == gold_max(f["n"]),
              "players", f"a Kilim game has 2 to 5 players, not {f['n']}")
        check_ranges(f)
        check_step(f)
        kinds, perfect = check_kilims(f)
        check_dominoes(f, kinds)
        check_perfect_carpets(f, perfect)
        check_scraps(f)
        check_cards(f)
        check_turn(f)
        check_tokens(f)
        check_knowledge(f)
        if f["phase"] == core.PH_WINDOW:
            check(len(self.legal_moves()) > 1, "phase",
                  f"seat {f['actor']} has nothing optional to do: no window opens for it")

    # ------------------------------------------------------------ text
    def render(self, viewer: Optional[int] = None) -> str:
        """The position as text (everything, or as `viewer` sees it), each Kilim as a grid."""
        d = self.to_json(viewer)
        lines = [f"Kilim, {d['players']} players, day {min(d['day'] + 1, 3)}, "
                 f"turn {d['turn'] + 1}, phase {d['phase']}, to move: {d['to_move']}"]
        f = self._fields()
        table = named_domino(f["on_table"]) if f["on_table"] >= 0 else "-"
        if d["to_place"]:
            table += f"  P{d['placer']} weaves: {', '.join(map(named_domino, f['to_place'][:f['n_to_place']]))}"
        lines.append(f"on the table: {table}  carried: {' '.join(d['pending']) or '-'}"
                     f"  piles: {d['pile_counts']}  lost: {d['lost']}  perfect carpets left: "
                     f"{d['perfect_supply']}  scraps on the board: {d['scraps_on_board_count']}")
        lines.append("tokens: " + ", ".join(
            f"{t['token']}:{'board' if t['holder'] < 0 else 'P%d%s' % (t['holder'], ' (used)' if t['used'] else '')}"
            for t in d["tokens"]))
        for p, ps in enumerate(d["player_state"]):
            scr = " ".join(ps["scraps_held"]) if "scraps_held" in ps else f"{ps['scraps_held_count']} face down"
            lines.append(f"  P{p}: score {ps['score']:3d}  cards {' '.join(ps['hand'])}"
                         f"  scraps {scr or '-'}  perfect {ps['perfect_held']}  size {self.kilim_size(p)}")
            lines.extend("      " + row for row in self.kilim_picture(p))
        if viewer is not None:
            lines.extend(scrap_knowledge_lines(d))
        lines.extend(LEGEND)
        return "\n".join(lines)

    def narrate(self, before: GameCore, player: int, move: int,
                viewer: Optional[int] = None) -> List[str]:
        """What `player`'s `move` did, in sentences (self is the state after it, `before` the
        state before): for a spectator (viewer None) everything, else only what seat `viewer`
        sees (docs/views/kilim.md): a card or Gold card chosen face down is told only as a
        choice until the reveal, and the scrap the Scrap Bag winner keeps only to that winner.
        The first move of a game also tells the first domino, which the deal revealed."""
        self._check_narration(before, player, move, viewer)
        b = before._fields()
        lines = []
        if before.event_count == 1 and (b["day"], b["turn"], b["phase"], b["actor"]) == (
                0, 0, core.PH_CARD, 0):            # the deal, whose one entry is its reveal
            lines += self.event_text(*before.events(since=0)[0][:4], viewer=viewer, first=True)
        lines.append(move_words(b, player, move))
        if move_kind(move) in (core.MV_PLACE, core.MV_SCRAPAT, core.MV_ROTATE, core.MV_REMOVE,
                               core.MV_REMOVESCRAP):
            lines.extend("      " + row for row in self.kilim_picture(player))
        for entry in self.events(since=before.event_count):
            lines.extend(self.event_text(*entry[:4], viewer=viewer))
        return lines

    def event_text(self, kind: int, p: int, a: int, b: int,
                   viewer: Optional[int] = None, first: bool = False) -> List[str]:
        """The lines for one event of the rules' log: a spectator's (viewer None), or what
        seat `viewer` may be told of it; `first`: the deal's reveal."""
        if kind == core.LOG_REVEAL:
            if first:
                return [f"day 1 begins: the first domino, {named_domino(a)}, is revealed for auction"]
            return [f"day {b + 1}: the domino {named_domino(a)} is revealed for auction"]
        if kind == core.LOG_CARD:
            return [f"  P{p} shows {card_words(a)}"]
        if kind == core.LOG_SPYBID:
            return [f"  P{p} (spy) offers Gold {a}, having seen the other offers"]
        if kind == core.LOG_WIN:
            took = "the domino" if b == 1 else f"{b} dominoes (this one and {b - 1} carried)"
            return [f"  P{p} wins the auction with an offer of {a} and takes {took}"]
        if kind == core.LOG_TIE:
            return [f"  every offer cancels out: {a} domino{'es' if a > 1 else ''} "
                    f"{'lost (last of the day)' if b else 'carried to the next auction'}"]
        if kind in (core.LOG_SCRAPBID, core.LOG_ARTBID):
            who = "scrap bag" if kind == core.LOG_SCRAPBID else "artisan"
            return [f"  P{p} ({who}) {'offers' if b else 'cannot pay and discards'} Gold {a}"]
        if kind in SIDE_WINNER_TEXT:
            side, does, nobody = SIDE_WINNER_TEXT[kind]
            return [f"  {side}: {f'P{p} {does}' if p >= 0 else nobody}"]
        if kind == core.LOG_SCRAPPICK:
            if viewer is not None and viewer != p:
                return []                  # kept face down: the others learn only that it took one
            return [f"  (P{p} keeps scrap {SCRAP_LETTERS[a]})"]
        if kind == core.LOG_DAYEND:
            return [f"end of day {a + 1}: cards and Artisan tokens come back"]
        if kind == core.LOG_GAMEOVER:
            return ["the game is over: " + ", ".join(f"P{q} {v}" for q, v in enumerate(self.scores()))]
        return []


def move_words(b: Dict[str, Any], p: int, move: int) -> str:
    """Seat p's `move` as a sentence, from the fields `b` of the position before it. A face-down
    choice is told only as a choice (its card or value shows with the reveal's event)."""
    kind, x = move_kind(move), move_arg(move)
    m = b["k"][p]["m"]
    if kind == core.MV_CARD:
        return f"P{p} chooses a card face down"
    if kind == core.MV_BID:
        return f"P{p} chooses a Gold card face down"
    if kind == core.MV_SCRAPPICK:
        return f"P{p} searches the bag and keeps a scrap face down"
    if kind == core.MV_TOKENPICK:
        return f"P{p} takes the Artisan's {TOKEN_WORDS[x]} token"
    if kind == core.MV_DONE:
        return f"P{p} is done weaving for this turn"
    if kind == core.MV_TAKEPERF:
        return f"P{p} uses the Perfect Carpet token: a perfect carpet goes into its reserve"
    if kind == core.MV_PLACEPERF:
        return f"P{p} takes a perfect carpet from its reserve to weave it"
    if kind == core.MV_SELSCRAP:
        return f"P{p} takes scrap {SCRAP_LETTERS[x]} from its hand to weave it into its Kilim"
    if kind == core.MV_PLACE:
        r, c, d, flip = core.place_row(x), core.place_col(x), core.place_dir(x), core.place_flip(x)
        first, second = (b["pl_b"], b["pl_a"]) if flip else (b["pl_a"], b["pl_b"])
        what = ("the domino it won", "a perfect carpet", "the lifted domino")[b["place_src"]]
        r, c = r - core.ORG, c - core.ORG
        grows = " and ".join(w for w, out in (("upwards", r < 0), ("to the left", c < 0)) if out)
        # a domino above or left of the Kilim moves its corner: count from the new one
        r, c = max(r, 0), max(c, 0)
        side = SIDE_WORDS[2 if d else 1]
        if first == second:                        # a double or a perfect carpet
            where = f" ({halves_words(first, second)}) at {cell_words(r, c)} and the cell {side}"
        else:
            where = f": {half_words(first)} at {cell_words(r, c)} and {half_words(second)} {side}"
        grew = f" (its Kilim grows {grows})" if grows and b["k"][p]["rmax"] >= 0 else ""
        return f"P{p} weaves {what}{where}{grew}"
    if kind == core.MV_SCRAPAT:
        r, c = core.cell_row(x), core.cell_col(x)
        under = cell_code(m, r, c)
        how = ("filling a hole" if under < 0 else "restoring the torn half" if under == core.TORN
               else f"over {half_words(under)}")
        return (f"P{p} puts scrap {SCRAP_LETTERS[b['sel_scrap']]} at "
                f"{cell_words(r - core.ORG, c - core.ORG)}, {how}")
    if kind in (core.MV_REMOVESCRAP, core.MV_MOVESCRAP):
        r, c, under = b["scrap_r"][x], b["scrap_c"][x], b["scrap_under"][x]
        where = f"scrap {SCRAP_LETTERS[x]} at {cell_words(r - core.ORG, c - core.ORG)}"
        if kind == core.MV_MOVESCRAP:
            return f"P{p} uses the Move token: it lifts {where} to put it on another cell"
        shows = ("the hole reopens" if under < 0 else "the torn half shows again"
                 if under == core.TORN else f"{half_words(under)} shows again")
        return f"P{p} uses the Remove token: {where} leaves the game and {shows}"
    if kind in (core.MV_ROTATE, core.MV_REMOVE, core.MV_MOVE):
        anchor = core.rotate_anchor(x) if kind == core.MV_ROTATE else x
        r, c, d = core.anchor_row(anchor), core.anchor_col(anchor), core.anchor_dir(anchor)
        halves = (cell_code(m, r, c), cell_code(m, r + d, c + 1 - d))
        domino = (f"its domino of {halves_words(*halves)} at "
                  f"{cell_words(r - core.ORG, c - core.ORG)} ({'down' if d else 'across'})")
        if kind == core.MV_REMOVE:
            return f"P{p} uses the Remove token: {domino} leaves the game"
        if kind == core.MV_MOVE:
            return f"P{p} uses the Move token: it lifts {domino} to weave it elsewhere"
        opt = core.rotate_option(x)
        if opt == 8:
            return f"P{p} uses the Rotate token on {domino}: its two halves change places"
        kept = opt // 4                            # 0: the top / left half stays, 1: the other
        if halves[0] == halves[1]:
            stays, swings = f"its {(('left', 'right'), ('top', 'bottom'))[d][kept]} half", "the other"
        else:
            stays, swings = half_words(halves[kept]), half_words(halves[1 - kept])
        return (f"P{p} uses the Rotate token on {domino}: {stays} stays and {swings} swings "
                f"{SIDE_WORDS[opt & 3]}")
    return f"P{p} plays {move_text(move, b['pl_a'], b['pl_b'])}"      # no such move (unreachable)


# ================================================================ JSON -> C fields
def write_fields(f: Dict[str, Any], d: Dict[str, Any]) -> None:
    """Fill the C fields `f` (those of a fresh deal) from the schema-valid full state `d`.
    Derived fields that the C state holds are taken as given when given (check_invariants
    then checks them), else computed."""
    n = d["players"]
    phase = PHASE_OF[d["phase"]]
    f["phase"], f["day"] = phase, d["day"]
    f["actor"] = -1 if phase == core.PH_OVER else d["to_move"]
    ids = [parse_domino(t) for t in d["revealed"]]
    f["revealed"] = sum(1 << i for i in ids)
    f["turn"] = d.get("turn", len(ids) - (0 if phase == core.PH_OVER else 1))
    f["torn_seen"] = list(d["torn_seen"])
    f["on_table"] = parse_domino(d["on_table"]) if d["on_table"] is not None else -1
    for key, count in (("pending", "n_pending"), ("to_place", "n_to_place")):
        xs = [parse_domino(t) for t in d[key]]
        f[key] = xs + [0] * (16 - len(xs))
        f[count] = len(xs)
    for g, pile in enumerate(d["piles"]):
        xs = [parse_domino(t) for t in pile]
        f["piles"][g] = xs + [0] * (core.GROUP_SIZE - len(xs))
        f["pile_len"][g] = len(xs)
    f["pile_pos"] = 0                        # each pile holds only its face-down part
    f["lost"] = d["lost"]
    f["removed_reg"], f["removed_perf"] = d["removed"]
    for t, tok in enumerate(d["tokens"]):
        f["token_holder"][t] = tok["holder"]
        f["token_used"][t] = int(tok["used"])
    for p, ps in enumerate(d["player_state"]):
        f["hand"][p] = hand_mask(ps["hand"])
        f["choice"][p] = parse_card(ps["choice"]) if ps["choice"] is not None else 0
        f["spy_bid"][p], f["scrap_bid"][p] = ps["spy_bid"], ps["scrap_bid"]
        f["art_bid"][p] = ps["artisan_bid"]
        f["perfect_held"][p] = ps["perfect_held"]
    write_placing(f, d, phase)
    write_scraps(f, d, phase)
    for p, ps in enumerate(d["player_state"]):
        write_kilim(f, p, ps["kilim"], ("player_state", p, "kilim"))
    write_knowledge(f, n, d.get("whereabouts_by_seat", [{}] * n))
    write_groups(f, n, d.get("scrap_groups_by_seat"))
    f["step"] = d.get("step", derived_step(phase, f["turn"], f["place_src"]))
    f["seat_iter"] = d.get("seat_iter", derived_seat_iter(f))
    after_auction = phase not in (core.PH_CARD, core.PH_SPY, core.PH_OVER)
    winner, value = auction_result(f) if after_auction else (-1, 0)
    f["winner"], f["win_value"] = d.get("winner", winner), d.get("win_value", value)
    f["placer"] = d.get("placer", f["winner"] if f["n_to_place"] else -1)
    f["perfect_supply"] = d.get("perfect_supply", core.N_PERFECT - sum(ps["perfect_held"] for ps in d["player_state"])
                                - sum(kil["n_perf"] for kil in f["k"][:n]) - f["removed_perf"]
                                - lifted(f)[1])
    f["log"]["count"] = 0                    # no events of this position's past to narrate
    for entry in f["log"]["ring"]:
        entry.update(kind=0, player=0, a=0, b=0, c=0)


def write_placing(f: Dict[str, Any], d: Dict[str, Any], phase: int) -> None:
    """The domino being placed (phase place only)."""
    placing = d["placing"]
    if (placing is not None) != (phase == core.PH_PLACE):
        fail(("placing",), "a domino is being placed exactly in phase place", IllegalPositionError)
    f["place_src"], f["pl_dir"], f["pl_a"], f["pl_b"], f["pl_perf"] = -1, -1, 0, 0, 0
    if placing is not None:
        f["place_src"] = SOURCES.index(placing["source"])
        f["pl_a"] = CODE_LETTERS.index(placing["halves"][0])
        f["pl_b"] = CODE_LETTERS.index(placing["halves"][1])
        f["pl_dir"] = placing["direction"]
        f["pl_perf"] = int(f["pl_a"] == core.PERF)


def write_scraps(f: Dict[str, Any], d: Dict[str, Any], phase: int) -> None:
    """Every scrap's place: held, woven (with its cell), out of the game, in hand, or on the
    board; each must be in exactly one."""
    n = d["players"]
    places: List[Tuple[tuple, str, int]] = []
    for p, ps in enumerate(d["player_state"]):
        places += [(("player_state", p, "scraps_held", i), x, core.LOC_HELD + p)
                   for i, x in enumerate(ps["scraps_held"])]
        places += [(("player_state", p, "kilim", "scraps", i), s[0], core.LOC_WOVEN + p)
                   for i, s in enumerate(ps["kilim"]["scraps"])]
    places += [(("scraps_out", i), x, core.LOC_OUT) for i, x in enumerate(d["scraps_out"])]
    places += [(("scraps_on_board", i), x, core.LOC_BOARD) for i, x in enumerate(d["scraps_on_board"])]
    in_hand = d["scrap_in_hand"]
    if (in_hand is not None) != (phase == core.PH_SCRAPAT):
        fail(("scrap_in_hand",), "a scrap is in hand exactly in phase scrap-at", IllegalPositionError)
    f["sel_scrap"] = 0
    if in_hand is not None:
        if in_hand[1] >= n:
            fail(("scrap_in_hand", 1), f"there is no seat {in_hand[1]} in a {n}-player game")
        places.append((("scrap_in_hand", 0), in_hand[0], core.LOC_SEL + in_hand[1]))
        f["sel_scrap"] = SCRAP_LETTERS.index(in_hand[0])
    seen: Dict[str, tuple] = {}
    for path, letter, loc in places:
        if letter in seen:
            fail(path, f"scrap {letter} is already at {'.'.join(map(str, seen[letter]))}",
                 IllegalPositionError)
        seen[letter] = path
        t = SCRAP_LETTERS.index(letter)
        f["scrap_loc"][t] = loc
        f["scrap_r"][t] = f["scrap_c"][t] = f["scrap_under"][t] = -1
    missing = [x for x in SCRAP_LETTERS if x not in seen]
    if missing:
        fail(("scraps_on_board",), f"scrap {missing[0]} is nowhere", IllegalPositionError)


def write_kilim(f: Dict[str, Any], p: int, kj: Dict[str, list], path: tuple) -> None:
    """Seat p's grid from its dominoes and woven scraps; rows and columns count from the
    bounding box's top-left cell, which the core keeps at (ORG, ORG)."""
    m = [0] * core.N_MASKS
    occ = 0
    for i, (r, c, hv, halves) in enumerate(kj["dominoes"]):
        r, c, dv = r + core.ORG, c + core.ORG, "hv".index(hv)
        a, b = CODE_LETTERS.index(halves[0]), CODE_LETTERS.index(halves[1])
        if domino_kind(a, b) is None:
            fail(path + ("dominoes", i, 3), f"no domino has the halves {halves}", IllegalPositionError)
        cells = cell_bit(r, c) | cell_bit(r + dv, c + 1 - dv)
        if occ & cells:
            fail(path + ("dominoes", i), "overlaps another domino", IllegalPositionError)
        occ |= cells
        m[a] |= cell_bit(r, c)
        m[b] |= cell_bit(r + dv, c + 1 - dv)
        m[core.M_VL if dv else core.M_HL] |= cell_bit(r, c)
    for i, (letter, r, c) in enumerate(kj["scraps"]):
        r, c, t = r + core.ORG, c + core.ORG, SCRAP_LETTERS.index(letter)
        b = cell_bit(r, c)
        under = cell_code(m, r, c)
        if under >= 0:
            m[under] &= ~b
        m[t] |= b
        occ |= b
        f["scrap_r"][t], f["scrap_c"][t], f["scrap_under"][t] = r, c, under
    kil = f["k"][p]
    kil["m"] = m
    kil["n_dom"] = popcount(m[core.M_HL]) + popcount(m[core.M_VL])
    kil["n_perf"] = sum(1 for dom in kj["dominoes"] if dom[3] == "PP")
    kil["n_cells"] = popcount(occ)
    if not occ:
        kil["rmax"] = kil["cmax"] = -1
        return
    first_row, last_row = ((occ & -occ).bit_length() - 1) // ROW, (occ.bit_length() - 1) // ROW
    cols = columns_of(occ, first_row, last_row)
    if first_row != core.ORG or cols & -cols != 1 << core.ORG:
        fail(path, "rows and columns count from the Kilim's top-left cell: its first row and "
             "its first column must be 0", IllegalPositionError)
    kil["rmax"], kil["cmax"] = last_row, cols.bit_length() - 1


def write_knowledge(f: Dict[str, Any], n: int, learned: List[Dict[str, list]]) -> None:
    """What each seat knows of the scraps: its own, and of each scrap it cannot see the places
    it learned (`learned[o]`, as whereabouts_by_seat gives them; a scrap not listed may be in
    any hidden place)."""
    for o in range(n):
        unseen = [SCRAP_LETTERS[t] for t in range(core.N_SCRAPS) if unseen_by(f, o, t)]
        check_whereabouts(learned[o], unseen, n, o, ("whereabouts_by_seat", o))
        for t in range(core.N_SCRAPS):
            loc = f["scrap_loc"][t]
            if loc in (core.LOC_HELD + o, core.LOC_SEL + o) or core.LOC_SEL <= loc < core.LOC_SEL + 5:
                f["where"][o][t] = 1 << (loc % 8)
            elif unseen_by(f, o, t):
                places = learned[o].get(SCRAP_LETTERS[t])
                f["where"][o][t] = hidden_places(n, o) if places is None else sum(
                    1 << (core.WHERE_BOARD if q == "board" else q) for q in places)
            else:
                f["where"][o][t] = 0


def write_groups(f: Dict[str, Any], n: int, groups_by_seat: Optional[List[list]]) -> None:
    """Each seat's counts of the scraps it cannot see, as scrap_groups_by_seat gives them
    (left out: each seat's default, write_seat_groups)."""
    for o in range(n):
        write_seat_groups(f, o, None if groups_by_seat is None else groups_by_seat[o],
                          ("scrap_groups_by_seat", o))


def write_seat_groups(f: Dict[str, Any], o: int, groups: Optional[List[Dict[str, Any]]],
                      path: tuple) -> None:
    """Seat o's groups (schema-valid), checked; None: one group of every scrap o cannot see,
    with as many at each place as it holds, which every seat knows. A group's id is its place
    in the list."""
    n = f["n"]
    given = groups is not None
    unseen = [t for t in range(core.N_SCRAPS) if unseen_by(f, o, t)]
    if groups is None:
        groups = [{"scraps": [SCRAP_LETTERS[t] for t in unseen]}] if unseen else []
    check_groups(groups, [SCRAP_LETTERS[t] for t in unseen],
                 [SCRAP_LETTERS[t] for t in unseen if f["where"][o][t] >> core.WHERE_BOARD & 1],
                 n, o, path, given)
    f["group_of"][o] = [core.NO_GROUP] * core.N_SCRAPS
    f["share"][o] = [[0] * core.N_PLACES for _ in range(core.N_SCRAPS)]
    for g, group in enumerate(groups):
        for letter in group["scraps"]:
            t = SCRAP_LETTERS.index(letter)
            f["group_of"][o][t] = g
            if not given:
                f["share"][o][g][place_of_scrap(f, t)] += 1
        if given:
            f["share"][o][g] = list(group["held"]) + [0] * (core.WHERE_BOARD - n) + [group["board"]]


def check_groups(groups: List[Dict[str, Any]], unseen: Iterable[str], maybe_on_board: Iterable[str],
                 n: int, o: int, path: tuple, given: bool = True) -> None:
    """Seat o's groups (schema-valid) name only scraps it cannot see (`unseen`), each in one
    group, with a count for each of the n seats (none for o itself) and the board that adds up
    to the group; the scraps o may think on the board (`maybe_on_board`) are in one group, or
    none is. `given` False: groups of scraps alone, their counts still to be made."""
    unseen = set(unseen)
    grouped: Dict[str, int] = {}
    for g, group in enumerate(groups):
        for letter in group["scraps"]:
            if letter not in unseen:
                fail(path + (g, "scraps"), f"seat {o} sees scrap {letter}: it is in no group",
                     IllegalPositionError)
            if letter in grouped:
                fail(path + (g, "scraps"), f"scrap {letter} is in two groups", IllegalPositionError)
            grouped[letter] = g
        if not given:
            continue
        if len(group["held"]) != n:
            fail(path + (g, "held"), f"expected a count for each of the {n} seats",
                 IllegalPositionError)
        if group["held"][o] != 0:
            fail(path + (g, "held", o), f"seat {o} sees its own scraps: none of a group is with it",
                 IllegalPositionError)
        if sum(group["held"]) + group["board"] != len(group["scraps"]):
            fail(path + (g,), f"the counts add up to {sum(group['held']) + group['board']}, but "
                 f"the group has {len(group['scraps'])} scraps", IllegalPositionError)
    if len({grouped.get(x) for x in maybe_on_board}) > 1:
        fail(path, f"the scraps seat {o} may think on the board are in one group, or none is",
             IllegalPositionError)


def check_whereabouts(where: Dict[str, list], unseen: List[str], n: int, o: int,
                      path: tuple) -> None:
    """Seat o's beliefs name only scraps o cannot see, and only places hidden from o."""
    for letter, places in where.items():
        if letter not in unseen:
            fail(path + (letter,), f"seat {o} sees scrap {letter}: it has no whereabouts",
                 IllegalPositionError)
        for q in places:
            if q == o or (q != "board" and q >= n):
                fail(path + (letter,), f"{q!r} is no hidden place of seat {o} in a {n}-player game",
                     IllegalPositionError)


# ================================================================ views
def canonical(d: Dict[str, Any]) -> Dict[str, Any]:
    """`d` with its set-like lists in the order to_json writes them (cards, dominoes and
    scraps by number, Kilims in reading order, places seats first): a client may list a set
    in any order. Piles and the carried and won dominoes keep their order."""
    out = copy.deepcopy(d)

    def by(key_of, xs: Any) -> Any:
        if not isinstance(xs, list):
            return xs
        try:
            return sorted(xs, key=key_of)
        except (ValueError, TypeError, IndexError):
            return xs

    out["revealed"] = by(parse_domino, out.get("revealed"))
    for key in ("scraps_out", "scraps_on_board"):
        if key in out:
            out[key] = by(SCRAP_LETTERS.index, out[key])
    for ps in out.get("player_state", []):
        ps["hand"] = by(parse_card, ps.get("hand"))
        if "scraps_held" in ps:
            ps["scraps_held"] = by(SCRAP_LETTERS.index, ps["scraps_held"])
        kil = ps.get("kilim", {})
        kil["dominoes"] = by(lambda x: (x[0], x[1], x[2]), kil.get("dominoes"))
        kil["scraps"] = by(lambda x: SCRAP_LETTERS.index(x[0]), kil.get("scraps"))
    for letter, places in out.get("scrap_whereabouts", {}).items():
        out["scrap_whereabouts"][letter] = by(lambda q: (q == "board", str(q)), places)

    def groups(gs: Any) -> Any:
        """Each group's scraps in order, the groups by their first scrap."""
        if not isinstance(gs, list) or not all(isinstance(g, dict) for g in gs):
            return gs
        for g in gs:
            if "scraps" in g:
                g["scraps"] = by(SCRAP_LETTERS.index, g["scraps"])
        return by(lambda g: SCRAP_LETTERS.index(g.get("scraps")[0]), gs)

    if "scrap_groups" in out:
        out["scrap_groups"] = groups(out["scrap_groups"])
    if isinstance(out.get("scrap_groups_by_seat"), list):
        out["scrap_groups_by_seat"] = [groups(gs) for gs in out["scrap_groups_by_seat"]]
    n = out.get("players")
    if isinstance(out.get("whereabouts_by_seat"), list):
        out["whereabouts_by_seat"] = [
            {letter: by(lambda q: (q == "board", str(q)), places) for letter, places in w.items()
             if not blank_places(places, n, o)} for o, w in enumerate(out["whereabouts_by_seat"])]
    return out


def full_state_of_view(v: Dict[str, Any]) -> Dict[str, Any]:
    """A full-state dict that fits seat o's view: the unseen scraps placed where o knows they
    may be (a matching, not a search), the others' face-down choices of this step the lowest
    they may have made, each pile its group's unrevealed dominoes in a fixed order."""
    n, o = v["players"], v["view"]
    phase = PHASE_OF[v["phase"]]
    check_private_parts(v, n, o, phase)
    d = copy.deepcopy(v)
    for key in ("view", "scrap_whereabouts", "scrap_groups"):
        d.pop(key, None)
    d["whereabouts_by_seat"] = [v["scrap_whereabouts"] if p == o else {} for p in range(n)]
    place_unseen_scraps(v, d, n, o)
    fill_face_down_choices(d, n, o, phase)
    d["piles"] = piles_of_view(v, n)
    return d


def check_private_parts(v: Dict[str, Any], n: int, o: int, phase: int) -> None:
    """The viewer's own face-down parts are given; another seat's are not (its scraps, and a
    card or offer it chose face down)."""
    for p, ps in enumerate(v["player_state"]):
        where = ("player_state", p)
        if p == o:
            if "scraps_held" not in ps:
                fail(where, "missing key 'scraps_held': the viewer's own scraps")
            continue
        if "scraps_held" in ps:
            fail(where + ("scraps_held",), f"seat {o}'s view cannot hold seat {p}'s scraps")
        if "scraps_held_count" not in ps:
            fail(where, f"missing key 'scraps_held_count': seat {o} cannot see seat {p}'s scraps")
        if phase == core.PH_CARD and ps["choice"] is not None:
            fail(where + ("choice",), f"seat {p}'s card is face down until the reveal")
        card = BID_CARD.get(phase)
        key = BID_TEXT[BID_KEY[card]] if card else None
        if key and ps[key] != 0:
            fail(where + (key,), f"seat {p}'s offer is face down until the reveal")


def place_unseen_scraps(v: Dict[str, Any], d: Dict[str, Any], n: int, o: int) -> None:
    """Give the scraps seat o cannot see to the other seats (as many as each holds) and the
    board, each where o knows it may be."""
    mine = v["player_state"][o]
    seen = list(mine["scraps_held"]) + list(v["scraps_out"])
    for ps in v["player_state"]:
        seen += [s[0] for s in ps["kilim"]["scraps"]]
    if v["scrap_in_hand"] is not None:
        seen.append(v["scrap_in_hand"][0])
    unknown = [x for x in SCRAP_LETTERS if x not in seen]
    where = v["scrap_whereabouts"]
    check_whereabouts(where, unknown, n, o, ("scrap_whereabouts",))
    missing = [x for x in unknown if x not in where]
    if missing:
        fail(("scrap_whereabouts",), f"missing scrap {missing[0]}, which seat {o} cannot see",
             IllegalPositionError)
    capacity: Dict[Any, int] = {p: ps["scraps_held_count"] for p, ps in enumerate(v["player_state"])
                                if p != o}
    capacity["board"] = len(unknown) - sum(capacity.values())
    if capacity["board"] < 0:
        fail(("player_state",), f"the other seats hold {sum(capacity.values()) - capacity['board']} "
             f"scraps face down, but only {len(unknown)} are hidden from seat {o}",
             IllegalPositionError)
    placed = place_hidden(unknown, capacity, {x: where[x] for x in unknown},
                          ("scrap_whereabouts",))
    groups = v.get("scrap_groups", [])
    check_groups(groups, unknown, [x for x in unknown if "board" in where[x]], n, o,
                 ("scrap_groups",))
    if not fits_groups(placed, groups):
        placed = place_by_groups(unknown, capacity, where, groups, o)
    for p, ps in enumerate(d["player_state"]):
        if p != o:
            ps["scraps_held"] = [x for x in unknown if placed[x] == p]
    d["scraps_on_board"] = [x for x in unknown if placed[x] == "board"]


def fits_groups(placed: Dict[str, Any], groups: List[Dict[str, Any]]) -> bool:
    """Whether each group has, among the scraps as placed, its count at every place."""
    for group in groups:
        got = Counter(placed.get(x) for x in group["scraps"])
        want = {q: k for q, k in enumerate(group["held"]) if k} | (
            {"board": group["board"]} if group["board"] else {})
        if got != want:
            return False
    return True


def place_by_groups(unknown: List[str], capacity: Dict[Any, int], where: Dict[str, list],
                    groups: List[Dict[str, Any]], o: int) -> Dict[str, Any]:
    """The first placement, in a fixed order, of the unseen scraps (at most 5! to try) that
    fits the places seat o knows for each and its counts of each group."""
    slots = [q for q, k in capacity.items() for _ in range(k)]
    for order in itertools.permutations(slots):
        placed = dict(zip(unknown, order))
        if all(placed[x] in where[x] for x in unknown) and fits_groups(placed, groups):
            return placed
    fail(("scrap_groups",), f"no placement of the scraps seat {o} cannot see fits both its "
         "whereabouts and its counts", IllegalPositionError)


def fill_face_down_choices(d: Dict[str, Any], n: int, o: int, phase: int) -> None:
    """Another seat's face-down card (card phase) is the first card in its hand; its face-down
    offer the lowest Gold card it may offer."""
    actor = d["to_move"]
    if phase == core.PH_CARD:
        for p in range(min(actor, n)):
            hand = hand_mask(d["player_state"][p]["hand"]) if p != o else 0
            if hand:
                d["player_state"][p]["choice"] = card_text((hand & -hand).bit_length() - 1)
        return
    card = BID_CARD.get(phase)
    if card is None:
        return
    fields = {"n": n, "choice": [0] * 5, "spy_bid": [0] * 5}
    for p, ps in enumerate(d["player_state"]):
        fields["choice"][p] = parse_card(ps["choice"]) if ps["choice"] is not None else 0
        fields["spy_bid"][p] = ps["spy_bid"]
    win_value = auction_result(fields)[1] if phase != core.PH_SPY else 0
    key = BID_TEXT[BID_KEY[card]]
    for p in range(min(actor, n)):
        ps = d["player_state"][p]
        if p == o or ps["choice"] is None or parse_card(ps["choice"]) != card:
            continue
        options = bid_options({"hand": [hand_mask(ps["hand"])]}, 0, phase, win_value)
        if options:
            ps[key] = (options & -options).bit_length() - 1


def piles_of_view(v: Dict[str, Any], n: int) -> List[List[str]]:
    """Each group's face-down pile: its unrevealed regular dominoes and the unseen torn
    carpets, in id order, as many as the day and the revealed dominoes leave."""
    revealed = {parse_domino(t) for t in v["revealed"]}
    torn_in = TORN_PER_GROUP_OF_PLAYERS[n]
    unseen_torn = [core.ID_TORN + i for i in range(core.N_TORN) if core.ID_TORN + i not in revealed]
    piles = []
    for g in range(core.N_GROUPS):
        regular = [i for i in range(g * core.GROUP_SIZE, (g + 1) * core.GROUP_SIZE) if i not in revealed]
        seen_here = sum(1 for i in revealed if i // core.GROUP_SIZE == g) + v["torn_seen"][g]
        count = 0 if g < v["day"] else group_size(n) - seen_here
        torn = max(0, torn_in[g] - v["torn_seen"][g])
        if count < 0 or count - torn > len(regular) or torn > len(unseen_torn) or torn > count:
            fail(("revealed",), f"group {g + 1} cannot hold {count} face-down dominoes with "
                 "these revealed", IllegalPositionError)
        piles.append([domino_text(x) for x in regular[:count - torn] + unseen_torn[:torn]])
        unseen_torn = unseen_torn[torn:]
    return piles


# ================================================================ invariant checks
def refuse(field: str, message: str) -> None:
    """IllegalPositionError naming the JSON field at fault (messages are built only on failure:
    check_invariants runs after every move of the random-game tests)."""
    raise IllegalPositionError(f"{field}: {message}")


def check(condition: Any, field: str, message: str) -> None:
    if not condition:
        refuse(field, message)


def seat_field(p: int, key: str) -> str:
    return f"player_state[{p}].{key}"


def check_ranges(f: Dict[str, Any]) -> None:
    """Every number the rules use as an index, a shift or a count is in range, in every phase,
    so that nothing read from input can index outside a C array."""
    n, gm, phase = f["n"], f["gold_max"], f["phase"]
    if not 0 <= phase <= core.PH_OVER:
        refuse("phase", f"no phase {phase}")
    if not (0 <= f["day"] <= core.N_GROUPS and (f["day"] == core.N_GROUPS) == (phase == core.PH_OVER)):
        refuse("day", f"day {f['day']} does not fit phase {PHASE_NAMES[phase]}: the game ends after day 3")
    if not (f["actor"] == -1 if phase == core.PH_OVER else 0 <= f["actor"] < n):
        refuse("to_move", f"{f['actor']} is not a seat to move in phase {PHASE_NAMES[phase]}")
    if not 0 <= f["step"] <= core.ST_END:
        refuse("step", f"no step {f['step']}")
    if not 0 <= f["seat_iter"] <= n:
        refuse("seat_iter", f"{f['seat_iter']} is out of range")
    if not 0 <= f["turn"] <= core.N_GROUPS * core.GROUP_SIZE:
        refuse("turn", f"{f['turn']} is out of range")
    cards = ((1 << (gm + 1)) - 2) | SPECIAL_BITS
    for p in range(5):
        if p >= n:          # seats beyond the game hold nothing
            if f["hand"][p] or f["choice"][p] or f["spy_bid"][p] or f["scrap_bid"][p] \
                    or f["art_bid"][p] or f["perfect_held"][p]:
                refuse("player_state", f"seat {p} holds something in a {n}-player game")
            continue
        if f["hand"][p] & ~cards:
            refuse(seat_field(p, "hand"), f"a card no seat holds in a {n}-player game")
        if not (0 <= f["choice"][p] <= gm or f["choice"][p] in SPECIALS):
            refuse(seat_field(p, "choice"), f"no card {f['choice'][p]} in a {n}-player game")
        for key in ("spy_bid", "scrap_bid", "art_bid"):
            if not 0 <= f[key][p] <= gm:
                refuse(seat_field(p, BID_TEXT[key]), f"no Gold card {f[key][p]}")
        if not 0 <= f["perfect_held"][p] <= core.N_PERFECT:
            refuse(seat_field(p, "perfect_held"), "there are 3 perfect carpets")
    if not (0 <= f["win_value"] <= gm and -1 <= f["winner"] < n and -1 <= f["placer"] < n):
        refuse("winner", "the auction's winner or winning offer is out of range")
    if not 0 <= f["revealed"] < 1 << core.ID_PERF:
        refuse("revealed", "not a domino of the piles")
    for g in range(core.N_GROUPS):
        if not (0 <= f["pile_len"][g] <= core.GROUP_SIZE and 0 <= f["torn_seen"][g] <= f["torn_in"][g]
                and f["torn_in"][g] == TORN_PER_GROUP_OF_PLAYERS[n][g]):
            refuse(f"torn_seen[{g}]", f"group {g + 1} is out of range")
    if f["day"] < core.N_GROUPS and not 0 <= f["pile_pos"] <= f["pile_len"][f["day"]]:
        refuse("piles", "the pile position is out of range")
    if not all(0 <= x < core.ID_PERF for g in range(core.N_GROUPS) for x in pile_of(f, g)):
        refuse("piles", "not a domino of the piles")
    if not -1 <= f["on_table"] < core.ID_PERF:
        refuse("on_table", "not a domino of the piles")
    if not (0 <= f["n_pending"] and 0 <= f["n_to_place"]
            and f["n_pending"] + f["n_to_place"] < core.GROUP_SIZE):
        refuse("pending", "more dominoes carried or won than a day holds")
    if not all(0 <= x < core.ID_PERF for x in f["pending"][:f["n_pending"]] + f["to_place"][:f["n_to_place"]]):
        refuse("pending", "not a domino of the piles")
    if not (0 <= f["lost"] <= core.N_REGULAR and 0 <= f["removed_reg"] <= core.N_REGULAR
            and 0 <= f["removed_perf"] <= core.N_PERFECT):
        refuse("removed", "out of range")
    if not (-1 <= f["place_src"] <= core.PS_MOVE and 0 <= f["pl_a"] < core.N_CODES
            and 0 <= f["pl_b"] < core.N_CODES and -1 <= f["pl_dir"] <= 1 and f["pl_perf"] in (0, 1)):
        refuse("placing", "out of range")
    if not 0 <= f["sel_scrap"] < core.N_SCRAPS:
        refuse("scrap_in_hand", "not a scrap")
    if not (all(-1 <= h < n for h in f["token_holder"]) and all(u in (0, 1) for u in f["token_used"])):
        refuse("tokens", "a holder or a use out of range")
    if not 0 <= f["perfect_supply"] <= core.N_PERFECT:
        refuse("perfect_supply", "there are 3 perfect carpets")
    places = SCRAP_PLACES[n]
    for t in range(core.N_SCRAPS):
        if f["scrap_loc"][t] not in places:
            refuse("scraps_out", f"scrap {SCRAP_LETTERS[t]} is nowhere in the game")
        if not -1 <= f["scrap_under"][t] < core.N_CODES:
            refuse("scraps_woven", "out of range")
    if not all(0 <= w < 1 << (core.WHERE_BOARD + 1) for row in f["where"] for w in row):
        refuse("scrap_whereabouts", "out of range")
    if not all(0 <= g < core.N_SCRAPS or g == core.NO_GROUP for row in f["group_of"] for g in row):
        refuse("scrap_groups", "out of range")


# the scrap locations a game of n seats has (core.LOC_*)
SCRAP_PLACES = {n: frozenset({core.LOC_BOARD, core.LOC_OUT} | {
    base + p for base in (core.LOC_HELD, core.LOC_WOVEN, core.LOC_SEL) for p in range(n)})
    for n in range(2, 6)}


def check_kilims(f: Dict[str, Any]) -> Tuple[List[int], int]:
    """Each Kilim is well formed (the grid agrees with its extent and counts, every cell is in
    one domino or is a scrap filling a hole, every domino has real halves) and within reach of
    the placements so far; returns how many dominoes of each kind are woven, and the perfect
    carpets."""
    n = f["n"]
    kinds = [0] * len(KINDS)
    perfect = 0
    for p in range(5):
        kil = f["k"][p]
        if p >= n:
            if any(kil["m"]) or kil["n_dom"] or kil["n_perf"] or kil["n_cells"]:
                refuse("player_state", f"seat {p} has a Kilim in a {n}-player game")
            continue
        scraps = tuple(woven_scraps(f, p))
        for t, r, c, _ in scraps:
            if not (core.ORG <= r <= kil["rmax"] and core.ORG <= c <= kil["cmax"]):
                refuse(seat_field(p, "kilim"), f"scrap {SCRAP_LETTERS[t]} is outside the Kilim")
        try:
            mine, perf = analyse_grid(tuple(kil["m"]), kil["rmax"], kil["cmax"], kil["n_dom"],
                                      kil["n_perf"], kil["n_cells"], scraps)
        except IllegalPositionError as e:
            raise IllegalPositionError(f"{seat_field(p, 'kilim')}: {e}") from None
        if kil["rmax"] >= 0:
            rows, cols = kil["rmax"] - core.ORG + 1, kil["cmax"] - core.ORG + 1
            lifted_here = int(f["phase"] == core.PH_PLACE and f["actor"] == p
                              and f["place_src"] == core.PS_MOVE)
            reach = min(span_bound(f, kil["n_dom"], lifted_here), core.MOST_SPAN)
            if rows + cols > reach:
                refuse(seat_field(p, "kilim"), f"a Kilim of {rows} rows and {cols} columns: the "
                       f"dominoes woven so far reach {reach} rows and columns at most")
        kinds = [a + b for a, b in zip(kinds, mine)]
        perfect += perf
    return kinds, perfect


@functools.lru_cache(maxsize=1024)
def unwoven_revealed(revealed: int, in_play: Tuple[int, ...]) -> Tuple[int, ...]:
    """How many revealed dominoes of each kind are not on the table, carried or won."""
    counts = [0] * len(KINDS)
    for x in bits_of(revealed):
        if x not in in_play:
            counts[KIND_OF_DOMINO[x]] += 1
    return tuple(counts)


def check_dominoes(f: Dict[str, Any], woven: List[int]) -> None:
    """The piles hold what the day and the revealed dominoes leave; the turn counts the
    reveals; every revealed domino is on the table, carried, won, woven, lost or removed."""
    n, day, phase = f["n"], f["day"], f["phase"]
    size = group_size(n)
    in_piles = 0
    for g in range(core.N_GROUPS):
        seen = revealed_of_group(f, g)
        if g < day:
            if seen != size or f["torn_seen"][g] != f["torn_in"][g]:
                refuse(f"torn_seen[{g}]", f"day {g + 1} is over: all {size} dominoes of its pile "
                       f"were revealed, not {seen}")
            continue
        pile = pile_of(f, g)
        torn_left = 0
        for x in pile:
            if (in_piles | f["revealed"]) >> x & 1:
                refuse("piles", f"domino {domino_text(x)} is in two places")
            if x >= core.N_REGULAR:
                torn_left += 1
            elif x // core.GROUP_SIZE != g:
                refuse(f"piles[{g}]", f"domino {domino_text(x)} belongs to group {x // core.GROUP_SIZE + 1}")
            in_piles |= 1 << x
        if torn_left + f["torn_seen"][g] != f["torn_in"][g]:
            refuse(f"torn_seen[{g}]", f"group {g + 1} has {f['torn_in'][g]} torn carpets: "
                   f"{f['torn_seen'][g]} seen and {torn_left} face down")
        if len(pile) + seen != size:
            refuse(f"piles[{g}]", f"a pile of {size} dominoes: {seen} revealed and {len(pile)} face down")
        if g > day and seen:
            refuse("revealed", f"a domino of day {g + 1} revealed on day {day + 1}")
    seen_today = revealed_of_group(f, day) if day < core.N_GROUPS else 0
    torn_revealed = popcount(f["revealed"] >> core.ID_TORN)
    if torn_revealed != sum(f["torn_seen"]):
        refuse("torn_seen", f"{torn_revealed} torn carpets are revealed, not {sum(f['torn_seen'])}")
    total = popcount(f["revealed"])
    want_turn = total - (0 if phase == core.PH_OVER else 1)
    if f["turn"] != want_turn:
        refuse("turn", f"{total} dominoes revealed make turn {want_turn}, not {f['turn']}")
    in_play = check_dominoes_in_play(f)
    # Every revealed domino is in one place: those in play are known by id, the woven ones by
    # their halves, the lost and removed ones only by count.
    available = unwoven_revealed(f["revealed"], in_play)
    move_kind = lifted(f)[0]
    if move_kind:
        woven = list(woven)
        woven[KIND_INDEX[move_kind]] += 1
    for i, k in enumerate(woven):
        if k > available[i]:
            refuse("revealed", f"{k} {kind_text(KINDS[i])} dominoes woven, {available[i]} "
                   "revealed and not in play")
    left = sum(available) - sum(woven)
    if left != f["lost"] + f["removed_reg"]:
        refuse("lost", f"{left} revealed dominoes are neither in play nor woven: lost "
               f"{f['lost']} + removed {f['removed_reg']} must make it")
    # dominoes are lost only when a day's last auction has no winner (interpretation 2)
    last_auction_done = seen_today == size and phase not in (core.PH_CARD, core.PH_SPY)
    if day == 0 and not last_auction_done and f["lost"]:
        refuse("lost", f"{f['lost']}, but dominoes are lost only at a day's last auction, and "
               "the first day's is still to come")


def check_dominoes_in_play(f: Dict[str, Any]) -> Tuple[int, ...]:
    """The domino on the table, the carried ones and the won ones are revealed, distinct and
    of the current day; a domino is on the table exactly until its auction. Returns them."""
    day, phase = f["day"], f["phase"]
    if (f["on_table"] >= 0) != (phase in (core.PH_CARD, core.PH_SPY)):
        refuse("on_table", "a domino is on the table from its reveal to its auction")
    named = [("on_table", x) for x in [f["on_table"]] if x >= 0]
    named += [(f"pending[{i}]", x) for i, x in enumerate(f["pending"][:f["n_pending"]])]
    named += [(f"to_place[{i}]", x) for i, x in enumerate(f["to_place"][:f["n_to_place"]])]
    seen: List[int] = []
    for field, x in named:
        if not f["revealed"] >> x & 1:
            refuse(field, f"domino {domino_text(x)} was not revealed")
        if x in seen:
            refuse(field, f"domino {domino_text(x)} is in two places")
        if x < core.N_REGULAR and x // core.GROUP_SIZE != day:
            refuse(field, f"domino {domino_text(x)} is not of day {day + 1}")
        seen.append(x)
    if day < core.N_GROUPS and f["n_pending"] + f["n_to_place"] > \
            revealed_of_group(f, day) - (1 if f["on_table"] >= 0 else 0):
        refuse("pending", "more dominoes carried and won than revealed today")
    return tuple(seen)


def check_perfect_carpets(f: Dict[str, Any], woven: int) -> None:
    """The 3 perfect carpets are in the supply, reserves, Kilims, removed or being woven; each
    taken from the supply with the Artisan's perfect-carpet token (once a day at most), and
    the Remove token takes one thing a day at most."""
    held = sum(f["perfect_held"][:f["n"]])
    in_hand = lifted(f)[1]
    total = f["perfect_supply"] + held + woven + f["removed_perf"] + in_hand
    if total != core.N_PERFECT:
        refuse("perfect_supply", f"supply {f['perfect_supply']}, reserves {held}, woven {woven}, "
               f"removed {f['removed_perf']}, in hand {in_hand}: not the {core.N_PERFECT} perfect carpets")
    taken, uses = core.N_PERFECT - f["perfect_supply"], token_uses(f, core.TOK_PERFECT)
    if taken > uses:
        refuse("perfect_supply", f"{taken} perfect carpets taken, but the token was used at most "
               f"{uses} times")
    removals = f["removed_reg"] + f["removed_perf"] + f["scrap_loc"].count(core.LOC_OUT)
    uses = token_uses(f, core.TOK_REMOVE)
    if removals > uses:
        refuse("removed", f"{removals} things removed, but the Remove token was used at most {uses} times")
    # a token is marked used by the move that does its work, and nothing undoes that work
    if f["token_used"][core.TOK_PERFECT] and not taken:
        refuse(f"tokens[{core.TOK_PERFECT}]", "the perfect-carpet token is used, but no "
               "perfect carpet has left the supply")
    if f["token_used"][core.TOK_REMOVE] and not removals:
        refuse(f"tokens[{core.TOK_REMOVE}]", "the Remove token is used, but nothing was removed")


def check_scraps(f: Dict[str, Any]) -> None:
    """Scraps: a woven one sits in its Kilim, the others have no cell; one is in hand exactly
    while it is placed, by the seat to move; each seat searched the bag at most once a day,
    today only if its Scrap Bag card has been shown."""
    n, phase = f["n"], f["phase"]
    owned = [0] * n
    in_hand = []
    for t, loc in enumerate(f["scrap_loc"]):
        if loc >= 0 and loc != core.LOC_OUT:
            owned[loc % 8] += 1
        if not core.LOC_WOVEN <= loc < core.LOC_WOVEN + n and \
                (f["scrap_r"][t], f["scrap_c"][t], f["scrap_under"][t]) != (-1, -1, -1):
            refuse("scraps_woven", f"scrap {SCRAP_LETTERS[t]} is not woven but has a cell")
        if core.LOC_SEL <= loc:
            in_hand.append(t)
    if phase == core.PH_SCRAPAT:
        if in_hand != [f["sel_scrap"]] or f["scrap_loc"][f["sel_scrap"]] != core.LOC_SEL + f["actor"]:
            refuse("scrap_in_hand", "the seat to move holds the scrap it places")
    elif in_hand:
        refuse("scrap_in_hand", "a scrap is in hand only while it is placed")
    days_before = min(f["day"], core.N_GROUPS - 1)
    searcher = -1
    if phase in SCRAP_PICKED:
        searcher = side_winner(f, core.C_SCRAP, f["win_value"])
    for p in range(n):
        # One Scrap Bag card a day, and a search only after it is shown: a seat whose card is
        # still in hand has not searched today (at the end of the game the cards are back);
        # one that shows it this turn has searched once it won the bag and picked
        searches = days_before + (phase == core.PH_OVER or p == searcher
                                  or played_on_an_earlier_turn(f, p, core.C_SCRAP))
        if owned[p] > searches:
            refuse(seat_field(p, "scraps_held"), f"seat {p} has {owned[p]} "
                   f"scrap{'s' if owned[p] != 1 else ''}, but it searched the bag at most "
                   f"{searches} time{'s' if searches != 1 else ''}")


def played_on_an_earlier_turn(f: Dict[str, Any], p: int, card: int) -> bool:
    """Seat p's special `card` has left its hand on a turn before this one: it is gone, and
    it is not the card p shows this turn (a chosen card leaves the hand at the reveal)."""
    gone = not f["hand"][p] >> card & 1
    return gone and not (f["phase"] != core.PH_CARD and f["choice"][p] == card)


def check_cards(f: Dict[str, Any]) -> None:
    """Every auction takes one Gold card from each hand (a special card's offer is its Gold
    card): the Gold cards gone are the auctions done today, a face-down offer still in hand
    aside; a chosen card is in hand until the reveal and gone after; offers only with their
    special card, face down until their step, and by the rule (above / below the winning
    offer when the seat could)."""
    n, phase = f["n"], f["phase"]
    if phase == core.PH_OVER:
        for p in range(n):
            if f["hand"][p] != full_hand(n):
                refuse(seat_field(p, "hand"), "all cards come back at the end of a day")
            if f["choice"][p] or f["spy_bid"][p] or f["scrap_bid"][p] or f["art_bid"][p]:
                refuse(seat_field(p, "choice"), "nothing is chosen once the game is over")
        return
    gold_all = (1 << (f["gold_max"] + 1)) - 2
    done = auctions_done(f)
    for p in range(n):
        hand, c = f["hand"][p], f["choice"][p]
        if popcount(SPECIAL_BITS & ~hand) > done:
            refuse(seat_field(p, "hand"), "more special cards played than auctions today")
        if phase == core.PH_CARD:
            check_card_choice(f, p, hand, c)
            face_down = 0
        else:
            if c == 0 or hand >> c & 1:
                refuse(seat_field(p, "choice"), "every seat shows the card it chose, which leaves its hand")
            face_down = check_offers(f, p, hand, c, hand & gold_all)
        left, want = popcount(gold_all & hand), f["gold_max"] - done + face_down
        if left != want:
            refuse(seat_field(p, "hand"), f"{done} auction{'s' if done != 1 else ''} so far today "
                   f"leave this hand {want} Gold card{'s' if want != 1 else ''}, not {left}")


def check_card_choice(f: Dict[str, Any], p: int, hand: int, c: int) -> None:
    """The card phase: seats choose in order, a chosen card is still in hand, no offers yet."""
    if (c != 0) != (p < f["actor"]):
        refuse(seat_field(p, "choice"), f"seats choose in order: seat {p} "
               f"{'has not chosen' if c == 0 else 'chose'} before seat {f['actor']}")
    if c and not hand >> c & 1:
        refuse(seat_field(p, "choice"), "the chosen card is in hand until the reveal")
    if f["spy_bid"][p] or f["scrap_bid"][p] or f["art_bid"][p]:
        refuse(seat_field(p, "spy_bid"), "no offer before the reveal")


def check_offers(f: Dict[str, Any], p: int, hand: int, c: int, gold: int) -> int:
    """Seat p's offers after the reveal; returns 1 if its offer is still to come or face down
    (its Gold card is then still in hand), else 0."""
    bid_card = BID_CARD.get(f["phase"], 0)
    face_down = 0
    for card, key in BID_KEY.items():
        bid = f[key][p]
        if card != c:
            if bid:
                refuse(seat_field(p, BID_TEXT[key]), "an offer without its special card")
            continue
        if f["step"] > BID_STEP[card]:
            if bid == 0 or hand >> bid & 1:
                refuse(seat_field(p, BID_TEXT[key]), "a revealed offer leaves the hand")
        else:
            face_down = 1
            if (bid != 0) != (card == bid_card and p < f["actor"]):
                refuse(seat_field(p, BID_TEXT[key]), f"seats offer in order: seat {p} "
                       f"{'has not offered' if bid == 0 else 'offered'} before seat {f['actor']}")
            if bid and not hand >> bid & 1:
                refuse(seat_field(p, BID_TEXT[key]), "a face-down offer is still in hand")
        if bid and card != core.C_SPY:
            check_offer_rule(f, p, card, bid, gold)
    return face_down


def check_offer_rule(f: Dict[str, Any], p: int, card: int, bid: int, gold: int) -> None:
    """A Scrap Bag offer is above the winning offer, an Artisan offer below it, unless the seat
    had no such Gold card (then any card is a discard)."""
    value = f["win_value"]
    if card == core.C_SCRAP and bid <= value and gold & ~((1 << (value + 1)) - 1):
        refuse(seat_field(p, "scrap_bid"), f"gold-{bid} is no offer above {value}, and seat {p} "
               "had a higher card")
    if card == core.C_ART and bid >= value and gold & ((1 << value) - 1):
        refuse(seat_field(p, "artisan_bid"), f"gold-{bid} is no offer below {value}, and seat {p} "
               "had a lower card")


def check_step(f: Dict[str, Any]) -> None:
    """The step of the turn fits the phase (the phase implies it): the other checks read the
    offers by it."""
    phase = f["phase"]
    want_step = derived_step(phase, f["turn"], f["place_src"])
    if f["step"] != want_step:
        refuse("step", f"phase {PHASE_NAMES[phase]} comes at step {want_step} "
               f"({STEP_NAMES[want_step]}), not {f['step']}")


def check_turn(f: Dict[str, Any]) -> None:
    """The seat the turn looks at next, the seat to move and the auction's outcome fit the
    phase; what the auction and the special cards decided is what the offers shown decide."""
    phase, actor = f["phase"], f["actor"]
    want_seat = derived_seat_iter(f)
    if f["seat_iter"] != want_seat:
        refuse("seat_iter", f"phase {PHASE_NAMES[phase]} looks at seat {want_seat} on, not {f['seat_iter']}")
    if phase in (core.PH_CARD, core.PH_SPY, core.PH_OVER):
        if f["winner"] != -1 or f["win_value"] != 0:
            refuse("winner", "the auction is not resolved yet")
        if f["n_to_place"] or f["placer"] != -1:
            refuse("to_place", "nothing is won before the auction")
        if phase == core.PH_OVER and f["n_pending"]:
            refuse("pending", "the dominoes carried at the end of a day are lost")
        if phase == core.PH_SPY and f["choice"][actor] != core.C_SPY:
            refuse("to_move", f"seat {actor} played no Spy")
        return
    winner, value = auction_result(f)
    if (f["winner"], f["win_value"]) != (winner, value):
        refuse("winner", f"the offers shown give winner {winner} with {value}, not "
               f"{f['winner']} with {f['win_value']}")
    if f["placer"] != (winner if f["n_to_place"] else -1):
        refuse("placer", "the auction's winner weaves what it won")
    if winner >= 0 and f["n_pending"]:
        refuse("pending", "the winner took the carried dominoes")
    weaving_done = phase in (core.PH_WINDOW, core.PH_SCRAPAT) or (
        phase == core.PH_PLACE and f["place_src"] != core.PS_WON)
    if bool(f["n_to_place"]) != (winner >= 0 and not weaving_done):
        refuse("to_place", "the winner weaves every domino it won before the weaving windows")
    check_decider(f, phase, actor, winner, value)


def check_decider(f: Dict[str, Any], phase: int, actor: int, winner: int, value: int) -> None:
    """The seat to move is the one the phase asks: a seat with the special card, the Scrap Bag
    or Artisan winner, the auction's winner weaving its domino, the Move token's holder."""
    if phase in BID_CARD:
        if f["choice"][actor] != BID_CARD[phase]:
            refuse("to_move", f"seat {actor} did not play the {card_text(BID_CARD[phase])}")
    elif phase == core.PH_SCRAPPICK:
        if actor != side_winner(f, core.C_SCRAP, value):
            refuse("to_move", f"seat {actor} did not win the Scrap Bag")
        if core.LOC_BOARD not in f["scrap_loc"]:
            refuse("scraps_on_board_count", "no scrap is left to pick")
    elif phase == core.PH_TOKENPICK:
        if actor != side_winner(f, core.C_ART, value):
            refuse("to_move", f"seat {actor} did not call the Artisan")
        if -1 not in f["token_holder"]:
            refuse("tokens", "no token is left to take")
    elif phase == core.PH_PLACE and f["place_src"] == core.PS_WON:
        first = f["to_place"][0]
        if actor != winner or (f["pl_a"], f["pl_b"]) != domino_halves(first) or f["pl_dir"] != -1:
            refuse("placing", f"seat {winner} weaves {domino_text(first)} first")
    elif phase == core.PH_PLACE and f["place_src"] == core.PS_PERFECT:
        if not f["pl_a"] == f["pl_b"] == core.PERF or f["pl_dir"] != -1:
            refuse("placing", "a perfect carpet has two perfect halves and may lie either way")
    elif phase == core.PH_PLACE:
        if f["pl_dir"] not in (0, 1) or domino_kind(f["pl_a"], f["pl_b"]) is None \
                or f["token_holder"][core.TOK_MOVE] != actor or not f["token_used"][core.TOK_MOVE]:
            refuse("placing", "a domino is moved with the Move token, in its orientation")


def check_tokens(f: Dict[str, Any]) -> None:
    """A token is used by its holder, taken by an Artisan call this day: at most one call per
    auction before this one, and this turn's once it is made."""
    if f["phase"] == core.PH_OVER:
        if any(h != -1 for h in f["token_holder"]) or any(f["token_used"]):
            refuse("tokens", "the tokens come back at the end of a day")
        return
    for t in range(core.N_TOKENS):
        if f["token_used"][t] and f["token_holder"][t] < 0:
            refuse(f"tokens[{t}]", "a token on the board is unused")
    caller = -1                     # this turn's Artisan winner, once its token is taken
    if f["phase"] in TOKEN_TAKEN:
        caller = side_winner(f, core.C_ART, f["win_value"])
    if caller >= 0 and caller not in f["token_holder"] and -1 in f["token_holder"]:
        refuse("tokens", f"seat {caller} won the Artisan this turn and holds no token, but one "
               "was left to take")
    held = core.N_TOKENS - f["token_holder"].count(-1)
    if not held:
        return
    # Only the Artisan's caller takes a token, and a seat calls with its one Artisan card of
    # the day: so a holder has played that card today, and holds one token at most.
    for t, h in enumerate(f["token_holder"]):
        if h >= 0 and f["hand"][h] >> core.C_ART & 1:
            refuse(f"tokens[{t}]", f"seat {h} holds a token but has not played its Artisan card "
                   "today (only the Artisan's caller takes one)")
        if h >= 0 and h != caller and not played_on_an_earlier_turn(f, h, core.C_ART):
            refuse(f"tokens[{t}]", f"seat {h} holds a token but shows its Artisan card only "
                   "this turn, and has not called the Artisan with it yet")
        if h >= 0 and f["token_holder"].count(h) > 1:
            refuse("tokens", f"seat {h} holds {f['token_holder'].count(h)} tokens, but one "
                   "Artisan card a day calls the Artisan once")
    calls = revealed_of_group(f, f["day"]) - 1 + (caller >= 0)
    if held > calls:
        refuse("tokens", f"{held} tokens taken today, but the Artisan was called at most {calls} times")


def has_not_seen_the_board(f: Dict[str, Any], o: int) -> bool:
    """Seat o has certainly never looked at the scraps on the board: it is the first day and
    o's Scrap Bag card is in its hand, or shown this turn by a seat that has not won the bag
    (the winner looks at the board before it picks)."""
    if f["day"] or f["phase"] == core.PH_OVER:
        return False
    if f["hand"][o] >> core.C_SCRAP & 1:
        return True
    shown_now = f["phase"] != core.PH_CARD and f["choice"][o] == core.C_SCRAP
    looked = f["phase"] in BOARD_SEEN and side_winner(f, core.C_SCRAP, f["win_value"]) == o
    return shown_now and not looked


def check_knowledge(f: Dict[str, Any]) -> None:
    """What each seat believes about a scrap it cannot see includes where the scrap is, and
    names only hidden places, so every determinization can put the scraps back; a seat that
    never looked at the board cannot rule the board out."""
    n = f["n"]
    blind = [has_not_seen_the_board(f, o) for o in range(n)]
    for t, loc in enumerate(f["scrap_loc"]):
        if loc == core.LOC_BOARD:
            place, holder = core.WHERE_BOARD, -1
        elif core.LOC_HELD <= loc < core.LOC_HELD + n:
            place, holder = loc - core.LOC_HELD, loc - core.LOC_HELD
        else:
            continue
        for o in range(n):
            w = f["where"][o][t]
            if o != holder and (not w >> place & 1 or w & ~hidden_places(n, o)):
                refuse("scrap_whereabouts", f"seat {o} believes scrap {SCRAP_LETTERS[t]} cannot "
                       "be where it is")
            if o != holder and blind[o] and not w >> core.WHERE_BOARD & 1:
                refuse("scrap_whereabouts", f"seat {o} has not searched the bag, so it cannot "
                       f"know that scrap {SCRAP_LETTERS[t]} is off the board")
    for o in range(n):
        check_counts_true(f, o)


def check_counts_true(f: Dict[str, Any], o: int) -> None:
    """Seat o's groups hold only scraps it cannot see, and each says truly how many of it each
    place holds (an empty group says nothing)."""
    n = f["n"]
    for g in range(core.N_SCRAPS):
        members = [t for t in range(core.N_SCRAPS) if f["group_of"][o][t] == g]
        if any(not unseen_by(f, o, t) for t in members):
            refuse("scrap_groups", f"seat {o} counts a scrap it sees")
        truth = [0] * core.N_PLACES
        for t in members:
            truth[place_of_scrap(f, t)] += 1
        if list(f["share"][o][g]) != truth:
            refuse("scrap_groups", f"seat {o}'s counts of the scraps "
                   f"{''.join(SCRAP_LETTERS[t] for t in members) or '(none)'} are not where they are")


def scrap_knowledge_lines(view: Dict[str, Any]) -> List[str]:
    """What the viewing seat knows of the scraps it cannot see, for a player reading the
    board: where each may be and, for a group of two or more spread over several places, how
    many each place holds (the whereabouts alone would allow more)."""
    def place(q: Any) -> str:
        return "the board" if q == "board" else f"P{q}"

    known = view.get("scrap_whereabouts") or {}
    if not known:
        return []
    lines = ["  you know: " + "; ".join(f"{letter} with {' or '.join(place(q) for q in qs)}"
                                        for letter, qs in sorted(known.items()))]
    for group in view.get("scrap_groups") or []:
        counts = [(f"P{q}", k) for q, k in enumerate(group["held"]) if k]
        if group["board"]:
            counts.append(("the board", group["board"]))
        if len(group["scraps"]) > 1 and len(counts) > 1:
            lines.append(f"  of {', '.join(group['scraps'])}: "
                         + ", ".join(f"{k} with {where}" for where, k in counts))
    return lines

