"""Numpy observations of a seat and one stable action-id space per game: the shared part of the
OpenSpiel and PettingZoo adapters (docs/ecosystem.md documents every field and id range).

Two tensors per seat, both flat float32 vectors of a fixed size per (game, player count):

- the **information-state tensor**: everything in the seat's view (`to_json(view=seat)`,
  docs/views/): the table, the seat's own hidden things and what it learned from the history
  (which hidden places a card may be in, what is left in a face-down pile by counting);
- the **observation tensor**: the same without the fields only memory gives (marked
  `knowledge` below).

Both are built from the seat's view and nothing else, so they hold exactly what the view
holds: no hidden part of another seat (the views are tested for that, and so are these
tensors: two states the seat cannot tell apart give equal tensors).

Action ids: every move of a game has one id in 0 .. size - 1, the same for every player
count and every position (`ActionMap`): the moves' kinds in their cext/<game>.pyx order, each
kind a block of ids indexed by its argument. Ids are dense: every id is the encoding of some
move of the encoding, though not every one is ever legal (a Khiva duel id in a 3-player game).

Layer "games": this module imports numpy and the cores (cext.*) only, so that the games'
Python halves (engine/games/base.py) can offer it as `state.observation_tensor(seat)`.
"""
from __future__ import annotations

import functools
import json
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from cext import khan as _khan
from cext import khiva as _khiva
from cext import kilim as _kilim
from cext import taschkent as _tk
from cext.core import check_int, make_move, move_arg, move_kind

GAMES = ("khiva", "khan", "kilim", "taschkent")
PLAYER_COUNTS = {"khiva": (2, 3, 4, 5), "khan": (2, 3, 4, 5), "kilim": (2, 3, 4, 5),
                 "taschkent": (2, 3, 4)}

INFORMATION_STATE = "information_state"
OBSERVATION = "observation"
KINDS = (INFORMATION_STATE, OBSERVATION)


# ================================================================ layouts
class Field(NamedTuple):
    """One named block of a tensor: its shape, what it holds, whether only memory gives it
    (`knowledge`: information-state tensor only) and whether its values may be negative."""

    name: str
    shape: Tuple[int, ...]
    doc: str
    knowledge: bool = False
    signed: bool = False
    binary: bool = False         # only 0 and 1 (one-hot rows, sets, flags)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class Layout:
    """The fields of one tensor kind for one (game, player count), in tensor order."""

    def __init__(self, game: str, players: int, kind: str, fields: Sequence[Field]) -> None:
        self.game, self.players, self.kind = game, players, kind
        self.fields = tuple(fields)
        self.offsets: Dict[str, Tuple[int, int]] = {}
        at = 0
        for f in self.fields:
            self.offsets[f.name] = (at, at + f.size)
            at += f.size
        self.size = at

    @property
    def shape(self) -> Tuple[int]:
        return (self.size,)

    def new(self) -> np.ndarray:
        """A zero tensor of this layout."""
        return np.zeros(self.size, np.float32)

    def views(self, tensor: np.ndarray) -> Dict[str, np.ndarray]:
        """Each field as a shaped view into the flat `tensor` (writing a view writes it)."""
        return {f.name: tensor[a:b].reshape(f.shape)
                for f, (a, b) in zip(self.fields, self.offsets.values())}

    def bounds(self) -> Tuple[np.ndarray, np.ndarray]:
        """Per-element (low, high): 0/1 for binary fields, counts from 0, signed numbers free."""
        low, high = np.zeros(self.size, np.float32), np.full(self.size, np.inf, np.float32)
        for f in self.fields:
            a, b = self.offsets[f.name]
            if f.binary:
                high[a:b] = 1.0
            if f.signed:
                low[a:b] = -np.inf
        return low, high


class _Fields:
    """Collects a layout's fields (a tiny builder so each game reads as a table)."""

    def __init__(self) -> None:
        self.items: List[Field] = []

    def one_hot(self, name: str, shape: Tuple[int, ...], doc: str, knowledge: bool = False):
        self.items.append(Field(name, shape, doc, knowledge, binary=True))

    def count(self, name: str, shape: Tuple[int, ...], doc: str, knowledge: bool = False,
              signed: bool = False):
        self.items.append(Field(name, shape, doc, knowledge, signed=signed))


def _seat_fields(f: _Fields, n: int, phases: Sequence[str]) -> None:
    """The fields every game's tensor begins with."""
    f.one_hot("seat", (n,), "the observing seat (one-hot)")
    f.one_hot("to_move", (n,), "the seat to move (one-hot; all 0 once the game is over)")
    f.one_hot("phase", (len(phases),), "the phase, one-hot: " + ", ".join(phases))


def _put_seats(a: Dict[str, np.ndarray], v: Dict[str, Any]) -> None:
    a["seat"][v["view"]] = 1
    if v["to_move"] >= 0:
        a["to_move"][v["to_move"]] = 1


# ================================================================ Khiva
KHIVA_PHASES = ("choose", "boost", "shop4", "over")
_KHIVA_CARD = {f"{c}{v + 1}": i * 5 + v for i, c in enumerate(_khiva.COLOUR_LETTERS)
               for v in range(5)}
_KHIVA_CARPET = {f"{c}{v + 3}": i * 3 + v for i, c in enumerate(_khiva.COLOUR_LETTERS)
                 for v in range(3)}
_KHIVA_COLOUR = {"white": 0, "blue": 1, "green": 2, "pink": 3, "black": 4}
_TEAPOT_VALUES = sorted(set(_khiva.PY_TEAPOTS))          # 2..7


def _khiva_fields(n: int) -> List[Field]:
    f = _Fields()
    nc, np_ = _khiva.N_CARDS, _khiva.N_CARPETS
    _seat_fields(f, n, KHIVA_PHASES)
    f.count("turn", (1,), "turns finished")
    f.count("deal", (1,), "deals made so far")
    f.one_hot("camel_at", (5, 1 + 4 * n), "per camel (white, blue, green, pink, black): where it "
              "stands, one-hot: column 0 Khiva, 1 + 4 p + (s - 1) seat p's shop s (1-4)")
    f.count("camel_teapot", (5,), "per camel: the value of the teapot on its back (0 none)")
    f.one_hot("discard", (nc,), "travel cards discarded this deal (card id = colour * 5 + "
              "value - 1, colours W B G P K)")
    f.one_hot("aside_up", (nc,), "the duel's face-up set-aside cards")
    f.count("aside_down_count", (1,), "face-down set-aside cards")
    f.count("teapot_pile_contents", (len(_TEAPOT_VALUES),),
            "teapots of value 2..7 left in the face-down pile (public by counting)",
            knowledge=True)
    f.count("teapot_pile_count", (1,), "teapots left in the pile")
    f.count("carpet_pile_count", (1,), "carpets left in the pile")
    f.one_hot("salt_pile", (len(_khiva.PY_SALT),), "salt bags left, by value 10, 9, 8, 7, 6")
    f.count("gem_supply", (1,), "gems left in the supply")
    f.one_hot("end_triggered", (1,), "1 once a pile ran out (the game ends this turn)")
    f.one_hot("pending_player", (n,), "boost / shop4: the seat whose activation waits")
    f.one_hot("pending_card", (nc,), "boost / shop4: the card that was granted")
    f.one_hot("pending_camel", (5,), "boost / shop4: the camel being activated")
    f.count("gems", (n,), "per seat: gems held")
    f.count("teapots", (n,), "per seat: teapots delivered")
    f.count("teapot_points", (n,), "per seat: their points")
    f.count("salt_points", (n,), "per seat: salt points")
    f.count("salt_best", (n,), "per seat: value of its best salt bag")
    f.count("hand_size", (n,), "per seat: cards in hand")
    f.one_hot("has_chosen", (n,), "per seat: 1 if it chose its cards this turn")
    f.count("score", (n,), "per seat: points now")
    f.one_hot("carpets_held", (n, np_), "per seat: carpets drawn, not yet delivered (carpet id "
              "= colour * 3 + value - 3)")
    f.one_hot("carpets_delivered", (n, np_), "per seat: carpets delivered")
    f.one_hot("played", (n, nc), "per seat: cards shown during this turn's activations")
    f.one_hot("hand", (nc,), "the observing seat's hand")
    f.one_hot("chosen_play", (nc,), "the observing seat's face-down card(s) to play")
    f.one_hot("chosen_give", (nc,), "the observing seat's face-down card(s) to give")
    f.one_hot("card_whereabouts", (nc, n + 1), "per card the seat cannot see but can place: the "
              "places it may be in (columns: seats, then the face-down set-aside cards); a row "
              "of 0 says nothing (seen, or anywhere hidden)", knowledge=True)
    return f.items


def _khiva_fill(v: Dict[str, Any], a: Dict[str, np.ndarray]) -> None:
    _put_seats(a, v)
    a["phase"][KHIVA_PHASES.index(v["phase"])] = 1
    a["turn"][0] = v["turn"]
    a["deal"][0] = v["deal"]
    for c, camel in enumerate(v["camels"]):
        at = camel["at"]
        col = 0 if at == "khiva" else 1 + 4 * int(at[1]) + int(at[3]) - 1
        a["camel_at"][c, col] = 1
        a["camel_teapot"][c] = camel["teapot"]
    _cards(a["discard"], v["discard"])
    _cards(a["aside_up"], v["aside_up"])
    a["aside_down_count"][0] = v["aside_down_count"]
    if "teapot_pile_contents" in a:
        for t in v["teapot_pile_contents"]:
            a["teapot_pile_contents"][_TEAPOT_VALUES.index(t)] += 1
    a["teapot_pile_count"][0] = v["teapot_pile_count"]
    a["carpet_pile_count"][0] = v["carpet_pile_count"]
    for value in v["salt_pile"]:
        a["salt_pile"][_khiva.PY_SALT.index(value)] = 1
    a["gem_supply"][0] = v["gem_supply"]
    a["end_triggered"][0] = v["end_triggered"]
    pending = v.get("pending")
    if pending:
        a["pending_player"][pending["player"]] = 1
        a["pending_card"][_KHIVA_CARD[pending["card"]]] = 1
        a["pending_camel"][_KHIVA_COLOUR[pending["camel"]]] = 1
    for p, ps in enumerate(v["player_state"]):
        for key in ("gems", "teapots", "teapot_points", "salt_points", "salt_best", "hand_size",
                    "has_chosen", "score"):
            a[key][p] = ps[key]
        for c in ps["carpets_held"]:
            a["carpets_held"][p, _KHIVA_CARPET[c]] = 1
        for c in ps["carpets_delivered"]:
            a["carpets_delivered"][p, _KHIVA_CARPET[c]] = 1
        _cards(a["played"][p], ps["played"])
    mine = v["player_state"][v["view"]]
    for key in ("hand", "chosen_play", "chosen_give"):
        _cards(a[key], mine[key])
    if "card_whereabouts" in a:
        n = v["players"]
        for card, places in v["card_whereabouts"].items():
            for q in places:
                a["card_whereabouts"][_KHIVA_CARD[card], n if q == "aside" else q] = 1


def _cards(row: np.ndarray, cards: Sequence[str]) -> None:
    for c in cards:
        row[_KHIVA_CARD[c]] = 1


# ================================================================ Khan of Khans
KHAN_PHASES = ("main", "blessing", "reveal", "pick", "over")
KHAN_TYPES = ("raid20", "raid50", "raid100", "blessing", "stampede", "champion", "magic")
KHAN_KHANS = ("impala", "bison", "morokanth", "sable", "llama")      # by the core's K_* codes
KHAN_TIERS = ("20", "50", "100")
_KHAN_TYPE = {t: i for i, t in enumerate(KHAN_TYPES)}
_KHAN_AT = {"herd": 0, "corral": 1, "box": 2}
_KHAN_VALUE = {20: 0, 50: 1, 100: 2}


def _khan_fields(n: int) -> List[Field]:
    f = _Fields()
    nd, nt, slots = _khan.N_DECKS, _khan.N_TYPES, _khan.MAX_SLOTS
    _seat_fields(f, n, KHAN_PHASES)
    f.count("turn", (1,), "turns finished")
    f.one_hot("khans", (n, len(KHAN_KHANS)),
              "per seat: its Khan, one-hot: " + ", ".join(KHAN_KHANS))
    f.one_hot("impala_token", (1,), "1 if the Impala People's ability is ready (coloured side)")
    f.one_hot("pending_blessing", (1,), "1 in the blessing phase")
    f.one_hot("revealed", (nd,), "reveal / pick: the decks the Impala ability revealed (decks in "
              "the fixed order of docs/views/khan.md)")
    f.count("deck_count", (nd,), "per deck: cards left")
    f.one_hot("deck_top", (nd, nt), "per deck: its top card's type if everyone knows it "
              "(types: " + ", ".join(KHAN_TYPES) + ")")
    f.count("deck_unseen", (nd, nt), "per deck: the cards of each type this seat has not seen "
            "(counted from the public history)", knowledge=True)
    f.count("box", (nt,), "face-up discarded cards by type")
    f.count("box_face_down", (1,), "face-down Sable cards in the box")
    f.one_hot("sable_deck", (slots, nd), "per face-down Sable Raid! card, oldest first: its deck "
              "(a row of 0: no such card)")
    f.one_hot("sable_at", (slots, 3), "per face-down Sable card: herd, corral or box")
    f.one_hot("sable_max", (slots, 3), "per face-down Sable card: the highest value the others "
              "know it can have (20, 50, 100)")
    f.one_hot("sable_value", (slots, 3), "per face-down Sable card: its value (20, 50, 100) where "
              "the seat knows it (the Sable Nation itself, everyone at the end); else 0")
    f.count("herd", (n, 3), "per seat: face-up Raid! cards in the herd by value 20, 50, 100")
    f.count("corral", (n, 3), "per seat: face-up Raid! cards in its corrals by value 20, 50, 100")
    f.one_hot("champion", (n,), "per seat: 1 if a Tribal Champion guards the herd")
    f.count("corrals_used", (n,), "per seat: corral tiles used")
    f.count("corrals_open", (n,), "per seat: corral tiles still open")
    f.count("sneaked", (n,), "per seat: High Llama Tribe corrals with a sneaked card")
    f.count("kept_blessings", (n,), "per seat: Waha's Blessings kept on the Khan card")
    f.count("received_blessings", (n,), "per seat: Waha's Blessings used on it")
    f.count("herd_face_down", (n,), "per seat (the Sable Nation): face-down cards in its herd")
    f.count("corral_face_down", (n,),
            "per seat (the Sable Nation): face-down cards in its corrals")
    f.count("score", (n,), "per seat: cows now where the seat can count them (else 0)")
    f.one_hot("score_known", (n,), "per seat: 1 if its score is known to the observing seat")
    return f.items


def _khan_fill(v: Dict[str, Any], a: Dict[str, np.ndarray]) -> None:
    _put_seats(a, v)
    a["phase"][KHAN_PHASES.index(v["phase"])] = 1
    a["turn"][0] = v["turn"]
    for p, khan in enumerate(v["khans"]):
        a["khans"][p, KHAN_KHANS.index(khan)] = 1
    a["impala_token"][0] = v["impala_token"] == "coloured"
    a["pending_blessing"][0] = v["pending_blessing"]
    deck_index = {d["name"]: i for i, d in enumerate(v["decks"])}
    for name in v["revealed"]:
        a["revealed"][deck_index[name]] = 1
    for i, d in enumerate(v["decks"]):
        a["deck_count"][i] = d["count"]
        if d["top"] is not None:
            a["deck_top"][i, _KHAN_TYPE[d["top"]]] = 1
        if "deck_unseen" in a:
            for t, k in d["unseen"].items():
                a["deck_unseen"][i, _KHAN_TYPE[t]] = k
    for t, k in v["box"].items():
        a["box"][_KHAN_TYPE[t]] = k
    a["box_face_down"][0] = v["box_face_down"]
    for s, card in enumerate(v["sable_face_down"]):
        a["sable_deck"][s, deck_index[card["deck"]]] = 1
        a["sable_at"][s, _KHAN_AT[card["at"]]] = 1
        a["sable_max"][s, _KHAN_VALUE[card["max"]]] = 1
        if "value" in card:
            a["sable_value"][s, _KHAN_VALUE[card["value"]]] = 1
    for p, ps in enumerate(v["player_state"]):
        for j, tier in enumerate(KHAN_TIERS):
            a["herd"][p, j] = ps["herd"][tier]
            a["corral"][p, j] = ps["corral"][tier]
        for key in ("champion", "corrals_used", "corrals_open", "sneaked", "kept_blessings",
                    "received_blessings"):
            a[key][p] = ps[key]
        a["herd_face_down"][p] = ps.get("herd_face_down", 0)
        a["corral_face_down"][p] = ps.get("corral_face_down", 0)
        if "score" in ps:
            a["score"][p] = ps["score"]
            a["score_known"][p] = 1


# ================================================================ Kilim
KILIM_PHASES = ("card", "spy", "scrap-bid", "artisan-bid", "scrap-pick", "token-pick", "place",
                "window", "scrap-at", "over")
KILIM_CODES = "ABCDEXP"               # A-E patterns, X a torn half, P a perfect half
KILIM_CARDS = tuple(f"gold-{k}" for k in range(1, _kilim.GOLD_MAX + 1)) + ("spy", "scrap-bag",
                                                                            "artisan")
KILIM_TOKENS = ("perfect", "rotate", "remove", "move")
KILIM_SOURCES = ("won", "perfect", "move")
N_DOMINO_KINDS = _kilim.ID_TORN + _kilim.N_TORN + 1       # 45 regular, 5 torn, the perfect carpet
KILIM_CHANNELS = 14


def _kilim_domino_ids() -> Dict[str, int]:
    ids = {}
    pairs = [(x, y) for x in range(5) for y in range(x, 5)]
    for g in range(_kilim.N_GROUPS):
        for k, (x, y) in enumerate(pairs):
            ids[f"{g + 1}{KILIM_CODES[x]}{KILIM_CODES[y]}"] = g * _kilim.GROUP_SIZE + k
    for t in range(_kilim.N_TORN):
        ids[f"{KILIM_CODES[t]}X"] = _kilim.ID_TORN + t
    ids["PP"] = _kilim.ID_TORN + _kilim.N_TORN
    return ids


_KILIM_DOMINO = _kilim_domino_ids()
_KILIM_CARD = {c: i for i, c in enumerate(KILIM_CARDS)}


def kilim_dominoes(players: int) -> int:
    """Dominoes auctioned in a Kilim game (2 players: 5 fewer per group)."""
    per_group = _kilim.GROUP_SIZE - (_kilim.DUEL_REMOVED if players == 2 else 0)
    return _kilim.N_GROUPS * per_group


def kilim_grid_side(players: int) -> int:
    """The side of the square that holds any Kilim of the game: a Kilim's bounding box has
    rows + columns <= 3 + 2 (dominoes - 1) (cext/kilim.pyx, MOST_SPAN), so neither is more
    than that less one (90 with 3-5 players, 60 with 2)."""
    return 3 + 2 * (kilim_dominoes(players) - 1) - 1


def _kilim_fields(n: int) -> List[Field]:
    f = _Fields()
    side, nd = kilim_grid_side(n), N_DOMINO_KINDS
    _seat_fields(f, n, KILIM_PHASES)
    f.one_hot("day", (4,), "the day 0-2 (3 once over), one-hot")
    f.count("turn", (1,), "auctions begun before the current one")
    f.one_hot("step", (7,), "where the turn resumes (0 Spy offers .. 6 end of turn), one-hot")
    f.count("seat_iter", (1,), "the first seat the current step still looks at")
    f.one_hot("on_table", (nd,), "the domino of the current auction (domino kinds: 45 regular "
              "= group * 15 + pair index, 45-49 torn A-E, 50 perfect)")
    f.one_hot("pending", (16, nd), "dominoes carried from tied auctions, oldest first")
    f.one_hot("to_place", (16, nd), "dominoes the winner still has to weave, next first")
    f.one_hot("placer", (n,), "the seat weaving won dominoes")
    f.one_hot("winner", (n,), "the winner of this turn's auction")
    f.count("win_value", (1,), "its winning offer (0 none)")
    f.count("lost", (1,), "dominoes lost so far")
    f.count("removed", (2,), "regular dominoes and perfect carpets removed by the Remove token")
    f.one_hot("revealed", (_kilim.ID_TORN + _kilim.N_TORN,), "dominoes revealed so far")
    f.count("torn_in", (3,), "torn carpets shuffled into each group's pile")
    f.count("torn_seen", (3,), "torn carpets of each group revealed")
    f.count("pile_counts", (3,), "dominoes face down in each group's pile")
    f.one_hot("token_holder", (4, n), "per token (" + ", ".join(KILIM_TOKENS) + "): its holder "
              "(a row of 0: on the board)")
    f.one_hot("token_used", (4,), "per token: used this day")
    f.count("perfect_supply", (1,), "perfect carpets left in the supply")
    f.count("scraps_on_board_count", (1,), "scraps still on the board")
    f.one_hot("scraps_woven", (5, n), "per scrap A-E: the seat in whose Kilim it is woven")
    f.one_hot("scraps_out", (5,), "scraps removed from the game")
    f.one_hot("scrap_in_hand", (5,), "scrap-at: the scrap being put on a cell")
    f.one_hot("scrap_in_hand_seat", (n,), "scrap-at: the seat putting it")
    f.one_hot("placing_source", (3,), "place: where the domino comes from (" +
              ", ".join(KILIM_SOURCES) + ")")
    f.one_hot("placing_halves", (2, 7), "place: its two halves (first = top/left unless flipped), "
              "each one of " + KILIM_CODES)
    f.one_hot("placing_direction", (3,), "place: either direction, horizontal only, vertical only")
    f.one_hot("hand", (n, len(KILIM_CARDS)), "per seat: cards in hand (gold-1 .. gold-15, spy, "
              "scrap-bag, artisan)")
    f.one_hot("has_chosen", (n,), "per seat: a face-down choice not yet revealed")
    f.count("perfect_held", (n,), "per seat: perfect carpets in reserve")
    f.count("scraps_held_count", (n,), "per seat: scraps held face down")
    f.count("score", (n,), "per seat: points now (negative with torn patterns)", signed=True)
    f.one_hot("choice", (n, len(KILIM_CARDS)), "per seat: the card played this turn once shown "
              "(the observing seat's also while face down)")
    f.count("spy_bid", (n,), "per seat: Gold card offered with the Spy once shown (0 none)")
    f.count("scrap_bid", (n,), "per seat: Gold card offered with the Scrap Bag")
    f.count("artisan_bid", (n,), "per seat: Gold card offered with the Artisan")
    f.one_hot("kilim", (n, KILIM_CHANNELS, side, side), "per seat: its Kilim on a grid from the "
              "top-left cell of its bounding box; channels 0-6 the pattern woven on the cell (" +
              KILIM_CODES + "; under a scrap, the domino's), 7 the cell and its right neighbour "
              "are one domino, 8 the cell and the one below are one domino, 9-13 scrap A-E "
              "woven on the cell")
    f.one_hot("scraps_held", (5,), "the observing seat's scraps held face down")
    f.one_hot("scrap_whereabouts", (5, n + 1), "per scrap the seat cannot see: the places it may "
              "be in (columns: seats, then the board)", knowledge=True)
    f.one_hot("scrap_group_scraps", (5, 5), "the seat's groups of scraps it cannot see, in the "
              "view's order (scrap_groups): row g, the scraps A-E of group g", knowledge=True)
    f.count("scrap_group_counts", (5, n + 1), "row g: how many of group g each seat holds, "
            "then the board", knowledge=True)
    return f.items


def _kilim_fill(v: Dict[str, Any], a: Dict[str, np.ndarray]) -> None:
    n = v["players"]
    _put_seats(a, v)
    a["phase"][KILIM_PHASES.index(v["phase"])] = 1
    a["day"][v["day"]] = 1
    a["turn"][0] = v["turn"]
    a["step"][v["step"]] = 1
    a["seat_iter"][0] = v["seat_iter"]
    if v["on_table"] is not None:
        a["on_table"][_KILIM_DOMINO[v["on_table"]]] = 1
    for key in ("pending", "to_place"):
        for i, d in enumerate(v[key]):
            a[key][i, _KILIM_DOMINO[d]] = 1
    for key in ("placer", "winner"):
        if v[key] >= 0:
            a[key][v[key]] = 1
    a["win_value"][0] = v["win_value"]
    a["lost"][0] = v["lost"]
    a["removed"][:] = v["removed"]
    for d in v["revealed"]:
        a["revealed"][_KILIM_DOMINO[d]] = 1
    a["torn_in"][:] = v["torn_in"]
    a["torn_seen"][:] = v["torn_seen"]
    a["pile_counts"][:] = v["pile_counts"]
    for i, tok in enumerate(v["tokens"]):
        if tok["holder"] >= 0:
            a["token_holder"][i, tok["holder"]] = 1
        a["token_used"][i] = tok["used"]
    a["perfect_supply"][0] = v["perfect_supply"]
    a["scraps_on_board_count"][0] = v["scraps_on_board_count"]
    for letter, seat in v["scraps_woven"].items():
        a["scraps_woven"][KILIM_CODES.index(letter), seat] = 1
    for letter in v["scraps_out"]:
        a["scraps_out"][KILIM_CODES.index(letter)] = 1
    if v["scrap_in_hand"] is not None:
        letter, seat = v["scrap_in_hand"]
        a["scrap_in_hand"][KILIM_CODES.index(letter)] = 1
        a["scrap_in_hand_seat"][seat] = 1
    placing = v["placing"]
    if placing is not None:
        a["placing_source"][KILIM_SOURCES.index(placing["source"])] = 1
        for i, letter in enumerate(placing["halves"]):
            a["placing_halves"][i, KILIM_CODES.index(letter)] = 1
        a["placing_direction"][placing["direction"] + 1] = 1
    for p, ps in enumerate(v["player_state"]):
        for c in ps["hand"]:
            a["hand"][p, _KILIM_CARD[c]] = 1
        if ps["choice"] is not None:
            a["choice"][p, _KILIM_CARD[ps["choice"]]] = 1
        for key in ("has_chosen", "perfect_held", "scraps_held_count", "score", "spy_bid",
                    "scrap_bid"):
            a[key][p] = ps[key]
        a["artisan_bid"][p] = ps["artisan_bid"]
        _kilim_grid(a["kilim"][p], ps["kilim"])
    for letter in v["player_state"][v["view"]].get("scraps_held", ()):
        a["scraps_held"][KILIM_CODES.index(letter)] = 1
    if "scrap_whereabouts" in a:
        for letter, places in v["scrap_whereabouts"].items():
            for q in places:
                a["scrap_whereabouts"][KILIM_CODES.index(letter), n if q == "board" else q] = 1
        for g, group in enumerate(v["scrap_groups"]):
            for letter in group["scraps"]:
                a["scrap_group_scraps"][g, KILIM_CODES.index(letter)] = 1
            a["scrap_group_counts"][g, :n] = group["held"]
            a["scrap_group_counts"][g, n] = group["board"]


def _kilim_grid(g: np.ndarray, kilim: Dict[str, Any]) -> None:
    """One Kilim onto its channels (see the field's doc); a cell outside the grid would mean
    the span bound is wrong: an IndexError, never a silent crop."""
    side = g.shape[-1]
    for r, c, d, halves in kilim["dominoes"]:
        r2, c2 = (r, c + 1) if d == "h" else (r + 1, c)
        if max(r2, c2) >= side:
            raise IndexError(f"a Kilim cell ({r2}, {c2}) lies outside the {side}x{side} grid")
        g[KILIM_CODES.index(halves[0]), r, c] = 1
        g[KILIM_CODES.index(halves[1]), r2, c2] = 1
        g[7 if d == "h" else 8, r, c] = 1
    for letter, r, c in kilim["scraps"]:
        g[9 + KILIM_CODES.index(letter), r, c] = 1


# ================================================================ Taschkent
TASCHKENT_PHASES = ("action", "move2", "end", "sell", "over")
TASCHKENT_FIELDS = ("outside", "horses", "cards", "iron", "indigo1", "jade", "carriage",
                    "indigo2", "kalmyk")
TASCHKENT_CAMELS = ("iron", "indigo1", "jade", "indigo2")
TASCHKENT_GOODS = ("iron", "jade", "indigo")
TASCHKENT_HUT_PLACES = tuple(f"R{r}" for r in range(1, 9)) + ("supply", "track2", "track4",
                                                              "kalmyk")
TASCHKENT_ACTION_CARDS = ("activity", "removal", "cameleer", "caravan", "shortage", "35")
TASCHKENT_TRADING_CARDS = ("silk", "china", "spices")
TASCHKENT_BORDERS = tuple(f"{a + 1}-{b + 1}" for a, b in _tk.PY_BORDERS)


def _taschkent_fields(n: int) -> List[Field]:
    f = _Fields()
    nh, nr = _tk.N_HUTS, _tk.N_REGIONS
    _seat_fields(f, n, TASCHKENT_PHASES)
    f.one_hot("round", (4,), "action round 1-4 of the cycle, one-hot")
    f.count("trading_rounds", (1,), "trading rounds finished")
    f.count("turns", (1,), "turns finished in the game")
    f.count("turn_no", (1,), "turns finished in the current action round")
    f.one_hot("start_player", (n,), "the start player")
    f.one_hot("marker", (n,), "the seat that took the start-player marker this cycle (0s: none)")
    f.one_hot("last_start", (len(TASCHKENT_FIELDS),), "the field the last cameleer move of this "
              "turn began on (fields: " + ", ".join(TASCHKENT_FIELDS) + ")")
    f.count("camels", (4,), "goods on each goods camel (" + ", ".join(TASCHKENT_CAMELS) + ")")
    f.count("removed_goods", (3,), "goods removed from the game by kind (iron, jade, indigo)")
    f.one_hot("hut_at", (nh, len(TASCHKENT_HUT_PLACES)), "per hut (the view's order: printed, "
              "neutral N1-N7, players' H0-H3): where it is ("
              + ", ".join(TASCHKENT_HUT_PLACES) + ")")
    f.one_hot("hut_goods", (nh, 3), "per hut: the goods on it")
    f.one_hot("connection_border", (3, len(TASCHKENT_BORDERS)), "per trade connection (red, "
              "green, blue): its border (" + " ".join(TASCHKENT_BORDERS) + "; 0s: not laid)")
    f.one_hot("connection_used", (3,), "per connection: a sale went across it")
    f.count("action_pile_count", (1,), "action cards in the face-down pile")
    f.count("played_cards", (6,), "action cards played by type (" +
            ", ".join(TASCHKENT_ACTION_CARDS) + ")")
    f.count("removed_unseen_count", (1,), "2 players: cards the virtual player removed face down")
    f.one_hot("trading_display", (_tk.DISPLAY_4, 3), "the face-up trading cards, leftmost first "
              "(silk, china, spices)")
    f.count("trading_pile_count", (1,), "trading cards in the face-down pile")
    f.one_hot("end_triggered", (1,), "the end is triggered")
    f.one_hot("last_card_taken", (1,), "the last trading card is taken")
    f.one_hot("setup_goods", (3, nh), "the hut each good (iron, jade, indigo) started on")
    f.one_hot("setup_neutral_region", (nr,), "4 players: the region of the neutral hut N3")
    f.count("tugrik", (n,), "per seat: Tugrik")
    f.count("final_tugrik", (n,), "per seat, once over: Tugrik as counted at the end (0 before)")
    f.count("goods", (n, 3), "per seat: goods held (iron, jade, indigo)")
    f.count("posts", (n, nr), "per seat: trading posts per region R1-R8")
    f.count("kept", (n, nr), "per seat, trading: posts kept after a sale this trading round")
    f.count("post_supply", (n,), "per seat: posts in hand")
    f.count("storage", (n,), "per seat: posts on the cart")
    f.one_hot("cameleer", (n, len(TASCHKENT_FIELDS)), "per seat: its cameleer's field")
    f.count("trading_cards", (n, 3), "per seat: trading cards held (silk, china, spices)")
    f.count("action_card_count", (n,), "per seat: action cards held")
    f.count("action_cards", (6,), "the observing seat's action cards by type")
    if n == 2:
        f.one_hot("neutral_cameleer", (len(TASCHKENT_FIELDS),), "2 players: the virtual "
                  "player's neutral cameleer's field")
        f.one_hot("second_cameleer", (nr,), "2 players: the region of its second cameleer")
        f.count("virtual_cards", (3,), "2 players: its trading cards (silk, china, spices)")
    f.one_hot("trade_region", (nr,), "sell: the region being evaluated")
    f.one_hot("trade_passed", (n,), "sell: the seats that passed since the last sale")
    f.count("trading_pile_contents", (3,), "the face-down trading cards by type (by counting)",
            knowledge=True)
    f.count("unknown_action_cards", (6,), "the action cards this seat cannot place, by type",
            knowledge=True)
    return f.items


def _taschkent_fill(v: Dict[str, Any], a: Dict[str, np.ndarray]) -> None:
    _put_seats(a, v)
    a["phase"][TASCHKENT_PHASES.index(v["phase"])] = 1
    a["round"][v["round"] - 1] = 1
    for key in ("trading_rounds", "turns", "turn_no", "action_pile_count",
                "removed_unseen_count", "trading_pile_count", "end_triggered", "last_card_taken"):
        a[key][0] = v[key]
    a["start_player"][v["start_player"]] = 1
    if v["marker"] is not None:
        a["marker"][v["marker"]] = 1
    if v["last_start"] is not None:
        a["last_start"][TASCHKENT_FIELDS.index(v["last_start"])] = 1
    for i, camel in enumerate(TASCHKENT_CAMELS):
        a["camels"][i] = v["camels"][camel]
    _by_name(a["removed_goods"], v["removed_goods"], TASCHKENT_GOODS)
    hut_index = {}
    for h, hut in enumerate(v["huts"]):
        hut_index[hut["id"]] = h
        a["hut_at"][h, TASCHKENT_HUT_PLACES.index(hut["at"])] = 1
        for g in hut["goods"]:
            a["hut_goods"][h, TASCHKENT_GOODS.index(g)] = 1
    for i, conn in enumerate(v["connections"]):
        if conn["border"] is not None:
            a["connection_border"][i, TASCHKENT_BORDERS.index(conn["border"])] = 1
        a["connection_used"][i] = conn["used"]
    _by_name(a["played_cards"], v["played_cards"], TASCHKENT_ACTION_CARDS)
    for i, card in enumerate(v["trading_display"]):
        a["trading_display"][i, TASCHKENT_TRADING_CARDS.index(card)] = 1
    setup = v.get("setup") or {}
    for g, hut in (setup.get("goods") or {}).items():
        a["setup_goods"][TASCHKENT_GOODS.index(g), hut_index[hut]] = 1
    if setup.get("neutral_region") is not None:
        a["setup_neutral_region"][setup["neutral_region"] - 1] = 1
    for p, ps in enumerate(v["player_state"]):
        a["tugrik"][p] = ps["tugrik"]
        a["final_tugrik"][p] = ps.get("final_tugrik", 0)
        _by_name(a["goods"][p], ps["goods"], TASCHKENT_GOODS)
        a["posts"][p] = ps["posts"]
        a["kept"][p] = ps["kept"]
        a["post_supply"][p] = ps["supply"]
        a["storage"][p] = ps["storage"]
        a["cameleer"][p, TASCHKENT_FIELDS.index(ps["cameleer"])] = 1
        _by_name(a["trading_cards"][p], ps["trading_cards"], TASCHKENT_TRADING_CARDS)
        a["action_card_count"][p] = ps["action_card_count"]
    _by_name(a["action_cards"], v["player_state"][v["view"]].get("action_cards", {}),
             TASCHKENT_ACTION_CARDS)
    if "neutral_cameleer" in a:
        a["neutral_cameleer"][TASCHKENT_FIELDS.index(v["neutral_cameleer"])] = 1
        a["second_cameleer"][v["second_cameleer"] - 1] = 1
        _by_name(a["virtual_cards"], v["virtual_cards"], TASCHKENT_TRADING_CARDS)
    trade = v.get("trade")
    if trade:
        a["trade_region"][trade["region"] - 1] = 1
        for q in trade["passed"]:
            a["trade_passed"][q] = 1
    if "trading_pile_contents" in a:
        _by_name(a["trading_pile_contents"], v["trading_pile_contents"], TASCHKENT_TRADING_CARDS)
        _by_name(a["unknown_action_cards"], v["unknown_action_cards"], TASCHKENT_ACTION_CARDS)


def _by_name(row: np.ndarray, counts: Dict[str, int], names: Sequence[str]) -> None:
    for key, k in counts.items():
        row[names.index(key)] = k


# ================================================================ the tensors
_FIELDS: Dict[str, Callable[[int], List[Field]]] = {
    "khiva": _khiva_fields, "khan": _khan_fields, "kilim": _kilim_fields,
    "taschkent": _taschkent_fields}
_FILL: Dict[str, Callable[[Dict[str, Any], Dict[str, np.ndarray]], None]] = {
    "khiva": _khiva_fill, "khan": _khan_fill, "kilim": _kilim_fill, "taschkent": _taschkent_fill}


def _check_game(game: str, players: Optional[int] = None) -> None:
    if game not in _FIELDS:
        raise ValueError(f"no observation layout for game {game!r} (games: {', '.join(GAMES)})")
    if players is not None and players not in PLAYER_COUNTS[game]:
        raise ValueError(f"{game} is not played by {players} players")


@functools.lru_cache(maxsize=None)
def layout(game: str, players: int, kind: str = INFORMATION_STATE) -> Layout:
    """The fields of `kind` (information_state or observation) for `game` with `players`."""
    _check_game(game, players)
    if kind not in KINDS:
        raise ValueError(f"unknown tensor kind {kind!r} (kinds: {', '.join(KINDS)})")
    fields = [f for f in _FIELDS[game](players) if kind == INFORMATION_STATE or not f.knowledge]
    return Layout(game, players, kind, fields)


def encode_view(view: Dict[str, Any], kind: str = INFORMATION_STATE,
                out: Optional[np.ndarray] = None) -> np.ndarray:
    """The tensor of `kind` for a seat's view (`to_json(view=seat)`): a flat float32 vector,
    written into `out` when given (zeroed first)."""
    lay = layout(view["game"], view["players"], kind)
    if out is None:
        out = lay.new()
    else:
        out.fill(0)
    _FILL[view["game"]](view, lay.views(out))
    return out


def tensor(state: Any, seat: int, kind: str = INFORMATION_STATE,
           out: Optional[np.ndarray] = None) -> np.ndarray:
    """The tensor of `kind` of `seat` in `state` (a Caravan game state), built from that
    seat's view only."""
    return encode_view(state.to_json(view=seat), kind, out)


def fields_of(state: Any, seat: int, kind: str = INFORMATION_STATE) -> Dict[str, np.ndarray]:
    """The same tensor as named, shaped fields (views into one flat array)."""
    lay = layout(state.name, state.n_players, kind)
    return lay.views(tensor(state, seat, kind))


def information_state_string(state: Any, seat: int) -> str:
    """What the seat knows, as text: its view as canonical JSON, then its information-set key
    (a 64-bit hash of everything the seat observed, in order, cext/infohash.pxd): two states
    give the seat the same string exactly when it cannot tell them apart."""
    view = json.dumps(state.to_json(view=seat), sort_keys=True, separators=(",", ":"))
    return f"{view}\ninformation set {state.info_key(seat):016x}"


# ================================================================ action ids
class _Segment(NamedTuple):
    kind: int                             # the move kind (a game's MV_*)
    size: int                             # ids in this block
    index: Callable[[int], int]           # argument -> index in the block (ValueError if none)
    arg: Callable[[int], int]             # index -> argument
    doc: str


def _plain(kind: int, size: int, doc: str, low: int = 0) -> _Segment:
    """A kind whose argument runs over low .. low + size - 1."""
    def index(x: int) -> int:
        if not low <= x < low + size:
            raise ValueError(f"argument {x} out of range")
        return x - low
    return _Segment(kind, size, index, lambda i: i + low, doc)


def _mixed(kind: int, radices: Sequence[int], pack: Callable[..., int],
           unpack: Callable[[int], Sequence[int]], doc: str,
           lows: Optional[Sequence[int]] = None) -> _Segment:
    """A kind whose argument packs several numbers, each in lows[i] .. lows[i] + radices[i] - 1:
    the index is their mixed-radix number."""
    lows = tuple(lows or (0,) * len(radices))
    size = int(np.prod(radices))

    def index(x: int) -> int:
        i = 0
        parts = unpack(x)
        for value, radix, low in zip(parts, radices, lows):
            if not low <= value < low + radix:
                raise ValueError(f"argument {x} out of range")
            i = i * radix + value - low
        if pack(*parts) != x:
            raise ValueError(f"argument {x} is not in its canonical form")
        return i

    def arg(i: int) -> int:
        parts = []
        for radix, low in zip(reversed(radices), reversed(lows)):
            parts.append(i % radix + low)
            i //= radix
        return pack(*reversed(parts))
    return _Segment(kind, size, index, arg, doc)


class ActionMap:
    """The action ids of one game: dense, 0 .. size - 1, the same for every player count.

    `action_id(move)` and `move(action_id)` are inverse on every move of the game (ValueError
    for an int that is no move, an id out of range); both are cached as they are used."""

    def __init__(self, game: str, segments: Sequence[_Segment]) -> None:
        self.game = game
        self.segments = tuple(segments)
        self.starts: Dict[int, Tuple[int, _Segment]] = {}
        at = 0
        self._bounds: List[Tuple[int, _Segment]] = []
        for seg in self.segments:
            self.starts[seg.kind] = (at, seg)
            self._bounds.append((at, seg))
            at += seg.size
        self.size = at
        self._ids: Dict[int, int] = {}
        self._moves: Dict[int, int] = {}

    def ranges(self) -> List[Tuple[int, int, str]]:
        """(first id, last id, what the block holds) for each move kind, in id order."""
        return [(a, a + s.size - 1, s.doc) for a, s in self._bounds]

    def action_id(self, move: int) -> int:
        """The id of `move` (ValueError if it is no move of this game, or not an integer:
        1.5 or True is no move)."""
        move = check_int(move, "a move")
        got = self._ids.get(move)
        if got is None:
            start = self.starts.get(move_kind(move)) if 0 <= move < 2 ** 31 else None
            if start is None:
                raise ValueError(f"{move} is no move of {self.game}")
            try:
                got = start[0] + start[1].index(move_arg(move))
            except ValueError as e:
                raise ValueError(f"{move} is no move of {self.game}: {e}") from None
            self._ids[move] = got
            self._moves[got] = move
        return got

    def move(self, action_id: int) -> int:
        """The move (a Caravan move int) of `action_id` (ValueError if it is not an integer
        (numpy ones count) or out of range: 1.5 or True is no action id)."""
        action_id = check_int(action_id, "an action id")
        got = self._moves.get(action_id)
        if got is None:
            if not 0 <= action_id < self.size:
                raise ValueError(f"action id {action_id} out of range 0..{self.size - 1}")
            for start, seg in reversed(self._bounds):
                if action_id >= start:
                    got = make_move(seg.kind, seg.arg(action_id - start))
                    break
            self._moves[action_id] = got
            self._ids[got] = action_id
        return got

    def legal_ids(self, state: Any) -> List[int]:
        """The ids of the legal moves of the seat to move, ascending."""
        ids = self._ids
        out = [ids.get(m) for m in state.legal_moves()]
        if None in out:
            out = [self.action_id(m) for m in state.legal_moves()]
        out.sort()
        return out

    def mask(self, state: Any, out: Optional[np.ndarray] = None) -> np.ndarray:
        """A 0/1 int8 vector of `size`: 1 at the ids of the legal moves."""
        if out is None:
            out = np.zeros(self.size, np.int8)
        elif not isinstance(out, np.ndarray) or out.shape != (self.size,):
            raise ValueError(f"mask's out is a numpy vector of {self.size} ids, not "
                             f"{getattr(out, 'shape', type(out).__name__)}")
        else:
            out.fill(0)
        if not state.is_terminal():
            out[self.legal_ids(state)] = 1
        return out


# ------------------------------------------------------------ Khiva's choices
# A choice plays one card and gives another (3-5 players: 25 x 24 ids, give ranked among the
# cards other than the played one), or in the duel plays a pair and gives a pair of the other
# 23 cards (300 x 253 ids: the pairs in colex order, the given pair ranked without the played
# cards).
_PAIRS = [(a, b) for b in range(_khiva.N_CARDS) for a in range(b)]   # colex: (0,1), (0,2), (1,2)
_PAIR_INDEX = {p: i for i, p in enumerate(_PAIRS)}
_SINGLE_CHOICES = _khiva.N_CARDS * (_khiva.N_CARDS - 1)
_DUEL_GIVES = (_khiva.N_CARDS - 2) * (_khiva.N_CARDS - 3) // 2


def _rank_without(card: int, removed: Sequence[int]) -> int:
    return card - sum(1 for r in removed if r < card)


def _unrank_without(rank: int, removed: Sequence[int]) -> int:
    card = rank
    for r in sorted(removed):
        if r <= card:
            card += 1
    return card


def _khiva_choice_index(x: int) -> int:
    if x >= _khiva.CHOICE_ARG_END:
        raise ValueError("no choice")
    play1, play2, give1, give2 = _khiva.choice_cards(x)
    none, nc = _khiva.NONE, _khiva.N_CARDS
    if play2 == none and give2 == none:
        if play1 >= nc or give1 >= nc or play1 == give1:
            raise ValueError("no choice")
        return play1 * (nc - 1) + _rank_without(give1, (play1,))
    cards = (play1, play2, give1, give2)
    if max(cards) >= nc or len(set(cards)) < 4 or play1 > play2 or give1 > give2:
        raise ValueError("no choice")
    g1, g2 = (_rank_without(c, (play1, play2)) for c in (give1, give2))
    return _SINGLE_CHOICES + _PAIR_INDEX[(play1, play2)] * _DUEL_GIVES + _PAIR_INDEX[(g1, g2)]


def _khiva_choice_arg(i: int) -> int:
    nc, none = _khiva.N_CARDS, _khiva.NONE
    if i < _SINGLE_CHOICES:
        play, rank = divmod(i, nc - 1)
        give = _unrank_without(rank, (play,))
        return (play << 15) | (none << 10) | (give << 5) | none
    play, give = divmod(i - _SINGLE_CHOICES, _DUEL_GIVES)
    p1, p2 = _PAIRS[play]
    g1, g2 = (_unrank_without(r, (p1, p2)) for r in _PAIRS[give])
    return (p1 << 15) | (p2 << 10) | (g1 << 5) | g2


def _khiva_map() -> ActionMap:
    choose = _Segment(_khiva.MV_CHOOSE, _SINGLE_CHOICES + len(_PAIRS) * _DUEL_GIVES,
                      _khiva_choice_index, _khiva_choice_arg,
                      "choose: 3-5 players play p, give g: p * 24 + rank of g among the other "
                      "24 cards (0-599); the duel plays a pair, gives a pair: 600 + pair index "
                      "* 253 + index of the given pair among the other 23 cards (pairs in "
                      "colex order: (0,1), (0,2), (1,2), (0,3) ...)")
    return ActionMap("khiva", [
        choose,
        _plain(_khiva.MV_BOOST, max(_khiva.PY_GEM_ICONS) + 1, "boost-k: k gems spent, k = 0..2"),
        _plain(_khiva.MV_SHOP4, 2, "shop 4: carpet, salt"),
    ])


def _khan_map() -> ActionMap:
    k, nd = _khan, _khan.N_DECKS
    seats, tiers = k.KhanOfKhansCore.max_players, k.TIER_RANDOM + 1    # 3 values, "at random"
    steal = ([seats, tiers], k.steal_arg, lambda x: (k.steal_victim(x), k.steal_tier(x)))
    return ActionMap("khan", [
        _plain(k.MV_RAID, nd, "raid deck d (decks in the fixed order)"),
        _plain(k.MV_CORRAL, 1, "corral"),
        _plain(k.MV_SNEAK, 3, "sneak a Raid! card of tier 20, 50, 100"),
        _plain(k.MV_IMPALA, 1, "start the Impala People's ability"),
        _mixed(k.MV_USE, *steal, "use a kept blessing on seat q, tier t: q * 4 + t (t 3: at "
               "random, the Sable Nation)"),
        _plain(k.MV_KEEP, 1, "keep the drawn blessing"),
        _mixed(k.MV_STEAL, *steal, "steal at once from seat q, tier t: q * 4 + t"),
        _plain(k.MV_REVEAL, nd, "reveal deck d's top"),
        _plain(k.MV_STOP, 1, "stop revealing"),
        _plain(k.MV_TAKE, nd, "take the revealed card of deck d"),
    ])


def kilim_window() -> int:
    """Rows and columns of the core's grid that a Kilim move can name: the bounding box starts
    at (ORG, ORG), spans at most MOST_SPAN - 1 rows or columns, and a placement or a rotation
    reaches two cells past it."""
    return _kilim.ORG + _kilim.MOST_SPAN + 1


# cext/kilim.pyx rotate_options: K * 4 + side keeps half K (0-1) and swings the other to a
# side (0-3); 8 swaps the halves
ROTATE_OPTIONS = 9


def _kilim_map() -> ActionMap:
    k, w = _kilim, kilim_window()
    anchor = ([w, w, 2], lambda r, c, d: k.anchor_of(r, c, d),
              lambda x: (k.anchor_row(x), k.anchor_col(x), k.anchor_dir(x)))
    return ActionMap("kilim", [
        _plain(k.MV_CARD, len(KILIM_CARDS), "play a card: gold-1 .. gold-15, spy, scrap-bag, "
               "artisan", low=1),
        _plain(k.MV_BID, k.GOLD_MAX, "offer gold-v: v - 1", low=1),
        _plain(k.MV_SCRAPPICK, k.N_SCRAPS, "keep scrap A-E"),
        _plain(k.MV_TOKENPICK, k.N_TOKENS, "take token perfect, rotate, remove, move"),
        _mixed(k.MV_PLACE, [w, w, 2, 2], k.place_arg,
               lambda x: (k.place_row(x), k.place_col(x), k.place_dir(x), k.place_flip(x)),
               f"place at core cell (r, c), direction d (0 across), flip f: "
               f"((r * {w} + c) * 2 + d) * 2 + f"),
        _plain(k.MV_DONE, 1, "done"),
        _plain(k.MV_TAKEPERF, 1, "take a perfect carpet"),
        _plain(k.MV_PLACEPERF, 1, "weave a perfect carpet"),
        _plain(k.MV_SELSCRAP, k.N_SCRAPS, "weave scrap A-E"),
        _mixed(k.MV_ROTATE, [w, w, 2, ROTATE_OPTIONS],
               lambda r, c, d, o: k.rotate_arg(k.anchor_of(r, c, d), o),
               lambda x: (k.anchor_row(k.rotate_anchor(x)), k.anchor_col(k.rotate_anchor(x)),
                          k.anchor_dir(k.rotate_anchor(x)), k.rotate_option(x)),
               f"rotate the domino anchored at (r, c, d) with option o (0-7 keep a half and "
               f"swing the other, 8 swap): ((r * {w} + c) * 2 + d) * 9 + o"),
        _mixed(k.MV_REMOVE, *anchor, f"remove the domino at (r, c, d): (r * {w} + c) * 2 + d"),
        _plain(k.MV_REMOVESCRAP, k.N_SCRAPS, "remove scrap A-E"),
        _mixed(k.MV_MOVE, *anchor, f"move the domino at (r, c, d): (r * {w} + c) * 2 + d"),
        _plain(k.MV_MOVESCRAP, k.N_SCRAPS, "move scrap A-E"),
        _mixed(k.MV_SCRAPAT, [w, w], k.cell_arg, lambda x: (k.cell_row(x), k.cell_col(x)),
               f"put the scrap on core cell (r, c): r * {w} + c"),
    ])


def _taschkent_map() -> ActionMap:
    t = _tk
    nr, nh = t.N_REGIONS, t.N_HUTS
    n_free_huts = nh - t.HUT_NEUTRAL0          # the neutral huts and the players' huts
    options = 1 + 3 * t.N_BORDERS        # 0, a connection (3 sticks x 10 borders), a hut (1-8)
    camel = ([t.N_FIELDS - 1, options], lambda d, o: t.camel_arg(d, o),
             lambda x: (t.camel_field(x), t.camel_option(x)), (1, 0))
    return ActionMap("taschkent", [
        _plain(t.MV_SKIP, 3, "no second move, end the turn, pass (trading)"),
        _plain(t.MV_TUGRIK, 1, "take 1 Tugrik"),
        _plain(t.MV_POST, nr, "a trading post in region r (0-7)"),
        _plain(t.MV_HUT, nr, "the own hut into region r"),
        _mixed(t.MV_CAMEL, *camel[:3], "the cameleer to field f (1-8) with option o (0 the "
               "field's action, 1-30 a connection, 1-8 the Kalmyk's hut): (f - 1) * 31 + o",
               lows=camel[3]),
        _plain(t.MV_ACTIVITY, nr, "Activity: a post in region r"),
        _mixed(t.MV_CAMCARD, *camel[:3], "Cameleer card: as the cameleer move", lows=camel[3]),
        _mixed(t.MV_REMOVAL, [nr, nr], t.reloc_arg, lambda x: (t.reloc_src(x), t.reloc_dest(x)),
               "Removal: a post from region a to b: a * 8 + b"),
        _mixed(t.MV_CARAVAN, [n_free_huts, nr], t.reloc_arg,
               lambda x: (t.reloc_src(x), t.reloc_dest(x)),
               "Caravan moves on: hut h (12-22: N1-N7, H0-H3) to region b: (h - 12) * 8 + b",
               lows=(t.HUT_NEUTRAL0, 0)),
        _plain(t.MV_SHORT_A, t.N_CAMELS, "Shortage: take one good off camel c"),
        _mixed(t.MV_SHORT_B, [nh, t.N_GOODS, t.N_CAMELS], t.shortage_arg,
               lambda x: (t.shortage_hut(x), t.shortage_good(x), t.shortage_camel(x)),
               "Shortage: good g off hut h and one off camel c: (h * 3 + g) * 4 + c"),
        _plain(t.MV_35, 1, "play 3/5"),
        _mixed(t.MV_SELL, [nr, t.N_GOODS, nh, 2, 2], t.sale_arg,
               lambda x: (t.sale_target(x), t.sale_good(x), t.sale_hut(x), t.sale_cards(x),
                          t.sale_keep(x)),
               "sell good g into region r onto hut h, for cards (1) or Tugrik, keeping the "
               "post (1) or not: (((r * 3 + g) * 23 + h) * 2 + cards) * 2 + keep"),
    ])


_MAPS = {"khiva": _khiva_map, "khan": _khan_map, "kilim": _kilim_map,
         "taschkent": _taschkent_map}


@functools.lru_cache(maxsize=None)
def action_map(game: str) -> ActionMap:
    """The action ids of `game` (one map per game, whatever the player count)."""
    _check_game(game)
    return _MAPS[game]()


# ================================================================ the tables of docs/ecosystem.md
def field_table(game: str) -> str:
    """The fields of `game`'s information-state tensor as a Markdown table, shapes written with
    n (the player count) and, for Kilim, S (the grid's side): docs/ecosystem.md holds these
    tables (a test compares them)."""
    _check_game(game)
    sym = 101                                      # a player count no game has: n in a shape
    general = {f.name: f for f in _FIELDS[game](sym)}
    names = {1 + 4 * sym: "1+4n", sym + 1: "n+1", sym: "n"}
    if game == "kilim":
        names[kilim_grid_side(sym)] = "S"
    rows = ["| field | shape | meaning |", "|---|---|---|"]
    for f in _FIELDS[game](min(PLAYER_COUNTS[game])):         # 2 players: every field
        g = general.get(f.name, f)
        shape = ", ".join(names.get(d, str(d)) for d in g.shape)
        shape = f"({shape},)" if len(g.shape) == 1 else f"({shape})"
        note = " *(information state only)*" if f.knowledge else ""
        rows.append(f"| `{f.name}` | {shape} | {f.doc}{note} |")
    return "\n".join(rows)


def action_table(game: str) -> str:
    """The id ranges of `game`'s moves as a Markdown table (docs/ecosystem.md)."""
    rows = ["| ids | move |", "|---|---|"]
    for first, last, doc in action_map(game).ranges():
        ids = str(first) if first == last else f"{first}-{last}"
        rows.append(f"| {ids} | {doc} |")
    return "\n".join(rows)


def size_table() -> str:
    """Tensor sizes and action counts per game and player count (docs/ecosystem.md)."""
    rows = ["| game | players | information state | observation | action ids |",
            "|---|---|---|---|---|"]
    for game in GAMES:
        for n in PLAYER_COUNTS[game]:
            rows.append(f"| {game} | {n} | {layout(game, n).size:,} | "
                        f"{layout(game, n, OBSERVATION).size:,} | {action_map(game).size:,} |")
    return "\n".join(rows)
