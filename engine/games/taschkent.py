"""Taschkent's Python half: notation, JSON (full states and seat views), the checks that make a
loaded position one the rules can reach and play, rendering and narration.

The rules and the C state live in cext/taschkent.pyx (`TaschkentCore`). This module reads that
state through `_fields()` and writes it only through `_set_fields()`, after the JSON passed the
published schema (docs/views/taschkent.schema.json, taschkent.state.schema.json);
`check_invariants` then decides whether the result is a position of Taschkent before any rule
runs on it. docs/views/taschkent.md lists what is checked.
"""
from __future__ import annotations

import copy
from numbers import Integral
from typing import Any, Dict, Iterable, List, Optional, Tuple

from cext import taschkent as core
from cext.core import GameCore, move_arg, move_kind, stable_hash
from cext.taschkent import (ACTION_DECK_COUNT, FOUR_PLAYER_NEUTRAL_REGION, PY_BORDERS,
                            PY_CAMEL_GOOD, PY_CAMEL_START, PY_FIELD_CAMEL, PY_PRINTED,
                            PY_SETUP_GOOD_HUTS, SETUP_NEUTRAL_HUT, TaschkentCore)
from engine.games.base import CheckedGame, field_property
from engine.validation import IllegalPositionError, fail, listed_items, place_hidden

__all__ = ["Taschkent", "card_set_points", "move_text", "DERIVED"]

card_set_points = TaschkentCore.card_set_points       # points of a hand of trading cards

# ================================================================ names
GOOD_NAMES = ("iron", "jade", "indigo")
STICK_NAMES = ("red", "green", "blue")                 # the connection of each good
CAMEL_NAMES = ("iron", "indigo1", "jade", "indigo2")
FIELD_NAMES = ("outside", "horses", "cards", "iron", "indigo1", "jade", "carriage", "indigo2",
               "kalmyk")
FIELD_LONG = ("outside the caravan", "the horses (field 1)", "the yellow camel with the carpet "
              "(field 2)", "the red camel (field 3)", "the first blue camel (field 4)",
              "the yellow camel with the green cloth (field 5)", "the green carriage (field 6)",
              "the second blue camel (field 7)", "the Kalmyk")
ACTION_NAMES = ("activity", "removal", "cameleer", "caravan", "shortage", "35")
ACTION_LONG = ("Activity", "Removal", "Cameleer", "Caravan moves on", "Shortage", "3/5")
TC_NAMES = ("silk", "china", "spices")
PHASES = ("action", "move2", "end", "sell", "over")
TURN_PHASES = (core.PH_ACTION, core.PH_MOVE2, core.PH_END)
OFF_MAP = ("supply", "track2", "track4", "kalmyk")   # hut locations LOC_SUPPLY .. LOC_KALMYK

PRINTED_FIRST = tuple(sum(PY_PRINTED[:r]) for r in range(core.N_REGIONS))
PRINTED_REGION = tuple(r for r in range(core.N_REGIONS) for _ in range(PY_PRINTED[r]))
NEUTRAL_HUTS = range(core.HUT_NEUTRAL0, core.HUT_NEUTRAL0 + core.N_NEUTRAL)
ALL_HUTS = (1 << core.N_HUTS) - 1
BORDER_NAMES = tuple(f"{a + 1}-{b + 1}" for a, b in PY_BORDERS)
NEIGHBOURS = tuple(frozenset({b for a, b in PY_BORDERS if a == r} | {a for a, b in PY_BORDERS if b == r})
                   for r in range(core.N_REGIONS))
DISPLAY_SIZE = {2: core.DISPLAY_2, 3: core.DISPLAY_3, 4: core.DISPLAY_4}

# Keys a client may leave out: the loader recomputes them, and checks them when they are given.
DERIVED = frozenset({"virtual_player", "hut", "action_card_count", "action_pile_count",
                     "removed_unseen_count", "trading_pile_count", "end_triggered",
                     "last_card_taken", "trading_pile_contents", "unknown_action_cards",
                     "final_tugrik"})
VIEW_ONLY = ("view", "trading_pile_contents", "unknown_action_cards")


# ================================================================ notation
def hut_name(h: int) -> str:
    """Printed huts R<region><a|b|c>, neutral huts N1..N7, players' huts H0..H3."""
    if h < core.HUT_NEUTRAL0:
        r = PRINTED_REGION[h]
        return f"R{r + 1}{'abc'[h - PRINTED_FIRST[r]]}"
    if h < core.HUT_PLAYER0:
        return f"N{h - core.HUT_NEUTRAL0 + 1}"
    return f"H{h - core.HUT_PLAYER0}"


HUT_NAMES = tuple(hut_name(h) for h in range(core.N_HUTS))


LOC_TEXTS = tuple(f"R{r + 1}" for r in range(core.N_REGIONS)) + OFF_MAP
GOODS_OF_BITS = tuple(tuple(GOOD_NAMES[g] for g in range(core.N_GOODS) if bits >> g & 1)
                      for bits in range(1 << core.N_GOODS))


def loc_text(loc: int) -> str:
    """R1..R8 for a region, else supply, track2, track4 or kalmyk."""
    return LOC_TEXTS[loc]


def parse_loc(text: str) -> int:
    """The location of `loc_text` (the schema fixed the form)."""
    if text in OFF_MAP:
        return core.N_REGIONS + OFF_MAP.index(text)
    return int(text[1]) - 1


def border_text(b: int) -> str:
    return BORDER_NAMES[b]


def camel_text(x: int) -> Optional[str]:
    """The field and option of a cameleer move's argument (core.camel_arg); None if it is none."""
    d, opt = core.camel_field(x), core.camel_option(x)
    if not 1 <= d < core.N_FIELDS:
        return None
    if opt == 0:
        return FIELD_NAMES[d]
    if d <= 2 and core.link_stick(opt) < 3:
        return (f"{FIELD_NAMES[d]}-link-{STICK_NAMES[core.link_stick(opt)]}-"
                f"{border_text(core.link_border(opt))}")
    if d == core.KALMYK and core.hut_option_region(opt) < core.N_REGIONS:
        return f"{FIELD_NAMES[d]}-hut-R{core.hut_option_region(opt) + 1}"
    return None


def move_text(move: int) -> str:
    """The notation of a move (docs/views/taschkent.md, Move notation); `?<int>` for an int
    that is no move of Taschkent (a kind or an argument the rules never make)."""
    text = None
    if -2**31 <= move < 2**31:
        text = _move_text(move_kind(move), move_arg(move))
    return f"?{move}" if text is None else text


def _move_text(kind: int, x: int) -> Optional[str]:
    regions = core.N_REGIONS
    if kind == core.MV_SKIP:
        return ("no-move", "end-turn", "pass")[x] if x < 3 else None
    if kind in (core.MV_TUGRIK, core.MV_35):
        return None if x else ("tugrik" if kind == core.MV_TUGRIK else "card-35")
    if kind in (core.MV_POST, core.MV_HUT, core.MV_ACTIVITY) and x < regions:
        return {core.MV_POST: "post", core.MV_HUT: "hut", core.MV_ACTIVITY: "card-activity"}[kind] \
            + f"-R{x + 1}"
    if kind in (core.MV_CAMEL, core.MV_CAMCARD):
        where = camel_text(x)
        return None if where is None else \
            ("move-" if kind == core.MV_CAMEL else "card-cameleer-") + where
    if kind == core.MV_REMOVAL:
        src, dest = core.reloc_src(x), core.reloc_dest(x)
        return f"card-removal-R{src + 1}-R{dest + 1}" if src < regions and dest in NEIGHBOURS[src] \
            else None
    if kind == core.MV_CARAVAN:
        h, dest = core.reloc_src(x), core.reloc_dest(x)
        return f"card-caravan-{hut_name(h)}-R{dest + 1}" \
            if core.HUT_NEUTRAL0 <= h < core.N_HUTS else None
    if kind == core.MV_SHORT_A:
        return f"card-shortage-{CAMEL_NAMES[x]}" if x < core.N_CAMELS else None
    if kind == core.MV_SHORT_B and core.shortage_hut(x) < core.N_HUTS:
        return (f"card-shortage-{hut_name(core.shortage_hut(x))}-{GOOD_NAMES[core.shortage_good(x)]}-"
                f"{CAMEL_NAMES[core.shortage_camel(x)]}")
    if kind == core.MV_SELL and core.sale_target(x) < regions and core.sale_good(x) < core.N_GOODS \
            and core.sale_hut(x) < core.N_HUTS:
        return (f"sell-{GOOD_NAMES[core.sale_good(x)]}-R{core.sale_target(x) + 1}-"
                f"{'cards' if core.sale_cards(x) else 'tugrik'}"
                + ("-keep" if core.sale_keep(x) else "") + f"-{hut_name(core.sale_hut(x))}")
    return None


# ================================================================ set-up options
SETUP_HUT_NAMES = HUT_NAMES[:core.N_PRINTED]          # the huts on the board at set-up (and N3)


def setup_goods(goods: Any, players: int) -> Optional[Tuple[int, int, int]]:
    """The hut ids of the option `goods` (None: the first game's), in the order iron, jade,
    indigo. Text `iron:R2a,jade:R5b,indigo:N3` (commas or spaces, any order, any case) or a
    dict {good: hut name}; each good once, on a printed hut or, with 4 players, on N3."""
    if goods is None:
        return None
    example = "e.g. iron:R2a,jade:R5b,indigo:R7a"
    if isinstance(goods, str):
        pairs = []
        for item in listed_items(goods, "goods"):
            good, sep, hut = item.partition(":")
            if not sep or not good or not hut:
                raise ValueError(f"goods: {item[:40]!r} is not good:hut ({example})")
            pairs.append((good, hut))
    elif isinstance(goods, dict):
        pairs = list(goods.items())
    else:
        raise ValueError(f"goods: give text ({example}) or a dict {{good: hut}}, not "
                         f"{type(goods).__name__}")
    huts: Dict[int, int] = {}
    allowed = SETUP_HUT_NAMES + (HUT_NAMES[SETUP_NEUTRAL_HUT],) * (players == 4)
    for good, hut in pairs:
        if not isinstance(good, str) or good.strip().lower() not in GOOD_NAMES:
            raise ValueError(f"goods: no good {str(good)[:40]!r} (goods: {', '.join(GOOD_NAMES)})")
        g = GOOD_NAMES.index(good.strip().lower())
        if g in huts:
            raise ValueError(f"goods: {GOOD_NAMES[g]} is given twice ({example})")
        name = hut.strip() if isinstance(hut, str) else ""
        name = name[:1].upper() + name[1:].lower()
        if name not in allowed:
            n3 = HUT_NAMES[SETUP_NEUTRAL_HUT]
            where = (f" or {n3} (the neutral hut in a region)" if players == 4
                     else f"; {n3} is in a region only with 4 players")
            raise ValueError(f"goods: {str(hut)[:40]!r} is no hut on the board at set-up: the "
                             f"printed huts {' '.join(SETUP_HUT_NAMES)}{where}")
        huts[g] = HUT_NAMES.index(name)
    missing = [GOOD_NAMES[g] for g in range(core.N_GOODS) if g not in huts]
    if missing:
        raise ValueError(f"goods: give each good a hut, {', '.join(missing)} missing ({example})")
    return huts[0], huts[1], huts[2]


def setup_region(region: Any, players: int) -> Optional[int]:
    """The region index 0..7 of the option `neutral_region` (1..8 or R1..R8 as text or an int;
    None: the first game's region 3); only a 4-player game takes it."""
    if region is None:
        return None
    if players != 4:
        raise ValueError(f"neutral_region: only a 4-player game places a neutral hut in a "
                         f"region at set-up, not a {players}-player game")
    text = region.strip().upper().removeprefix("R") if isinstance(region, str) else None
    # digits 0-9 only: str.isdigit() also takes fullwidth and other scripts' digits
    if isinstance(region, bool) or not (isinstance(region, int) or (
            text and text.isascii() and text.isdigit() and len(text) <= 2)):
        raise ValueError(f"neutral_region: a region 1-8, not {str(region)[:40]!r}")
    number = region if isinstance(region, int) else int(text)
    if not 1 <= number <= core.N_REGIONS:
        raise ValueError(f"neutral_region: a region 1-8, not {number}")
    return number - 1


def setup_json(f: Dict[str, Any]) -> Dict[str, Any]:
    """The `setup` object of the JSON: each good's hut and the 4-player neutral hut's region."""
    return {"goods": {GOOD_NAMES[g]: HUT_NAMES[f["setup_hut"][g]] for g in range(core.N_GOODS)},
            "neutral_region": None if f["setup_region"] < 0 else f["setup_region"] + 1}


DEFAULT_SETUP = {"goods": {GOOD_NAMES[g]: HUT_NAMES[PY_SETUP_GOOD_HUTS[g]] for g in range(core.N_GOODS)}}


def default_setup(players: int) -> Dict[str, Any]:
    """What a position without `setup` was set up with: the first game's placement."""
    return {**DEFAULT_SETUP, "neutral_region": FOUR_PLAYER_NEUTRAL_REGION + 1 if players == 4 else None}


# ================================================================ what the fields imply
def popcount(mask: int) -> int:
    return bin(mask).count("1")


def n_cards(f: Dict[str, Any], p: int) -> int:
    """Action cards in seat p's hand."""
    return sum(f["hand"][p])


def final_tugrik(f: Dict[str, Any], p: int) -> int:
    """Seat p's Tugrik as the players count them at the end: each unplayed 3/5 card is 5."""
    return f["tugrik"][p] + core.CARD35_END * f["hand"][p][core.AC_35]


def end_is_triggered(f: Dict[str, Any]) -> bool:
    """The last good of a kind left the caravan (both blue camels for indigo), or the last
    action card left the pile: the rules set end_triggered exactly then, and neither comes back."""
    camel = f["camel"]
    return camel[0] == 0 or camel[2] == 0 or (camel[1] == 0 and camel[3] == 0) or f["n_pile"] == 0


def last_card_is_taken(f: Dict[str, Any]) -> bool:
    """The row and the trading pile are both empty: that happens only when the last card is taken."""
    return f["n_disp"] == 0 and f["n_tc_pile"] == 0


def region_huts_of(hut_loc: List[int]) -> List[int]:
    """The hut masks of the regions, from where every hut is."""
    masks = [0] * core.N_REGIONS
    for h, loc in enumerate(hut_loc):
        if 0 <= loc < core.N_REGIONS:
            masks[loc] |= 1 << h
    return masks


def counts(names: Tuple[str, ...], values: Iterable[int]) -> Dict[str, int]:
    """{name: count} of the non-zero counts (how action cards are written)."""
    return {name: k for name, k in zip(names, values) if k}


def mix64(x: int) -> int:
    """cext/rng.pxd's splitmix64 finaliser, for the information hashes of a view."""
    mask = (1 << 64) - 1
    x = (x + 0x9E3779B97F4A7C15) & mask
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
    return x ^ (x >> 31)


# ================================================================ the game API
class Taschkent(CheckedGame, TaschkentCore):
    """A Taschkent position. `Taschkent(players=3, seed=0)`; 2 players = the variant with the
    virtual player (not a seat: its moves are automatic, die-driven steps).

    The rules are the C core's; this class adds notation, JSON, views, text and checks."""

    DERIVED = DERIVED
    DEFAULTED = frozenset({"seed", "setup"})
    # JSON written before the set-up options has no `setup`, views included: the first game's
    VIEW_DEFAULTED = frozenset({"setup"})

    PHASES = PHASES

    def __init__(self, players: Optional[int] = None, seed: int = 0, goods: Any = None,
                 neutral_region: Any = None) -> None:
        """A new game; `goods` and `neutral_region` are the set-up options (TaschkentCore.options),
        as text (the command line, the protocol) or Python values; ValueError for a bad one."""
        n = self.default_players if players is None else players
        if isinstance(n, Integral) and not isinstance(n, bool):
            n = int(n)                                # a numpy count reads the options too
            if self.min_players <= n <= self.max_players:   # else: the core says what is wrong
                goods, neutral_region = setup_goods(goods, n), setup_region(neutral_region, n)
        super().__init__(n, seed, goods, neutral_region)

    @property
    def setup(self) -> Dict[str, Any]:
        """The set-up options this game was dealt with: each good's hut, the neutral region."""
        return setup_json(self._fields())

    round = field_property("round", "The action round of the current cycle, 1-4.")
    trading_rounds = field_property("cycle", "Trading rounds finished so far.")
    turns = field_property("turns", "Turns finished in the whole game.")

    def last_events(self) -> List[Tuple[int, int, int, int]]:
        """The automatic events of the last move (round track, die, virtual player, trading),
        as (kind, a, b, c): the log entries it wrote."""
        return [(kind, a, b, c) for kind, _, a, b, c in self.events(since=self._fields()["move_log"])]

    # ------------------------------------------------------------ writing JSON
    def to_json(self, view: Optional[int] = None) -> Dict[str, Any]:
        """The full state, or (view = a seat) what that seat knows: hidden parts left out.

        Other players' Tugrik and trading cards appear in a view: every change to them is a
        public event (see docs/rules/taschkent.md, Information). Once the game is over, every
        seat's `final_tugrik` (Tugrik + 5 per unplayed 3/5 card) is in every view: the players
        count their Tugrik openly at the end."""
        if view is not None:
            self._check_player(view)
        f = self._fields()
        n = f["n"]
        over = f["phase"] == core.PH_OVER
        players = []
        for p in range(n):
            d = {
                "tugrik": f["tugrik"][p],
                **({"final_tugrik": final_tugrik(f, p)} if over else {}),
                "goods": dict(zip(GOOD_NAMES, f["goods"][p])),
                "posts": f["posts"][p], "kept": f["kept"][p],
                "supply": f["supply"][p], "storage": f["storage"][p],
                "hut": loc_text(f["hut_loc"][core.HUT_PLAYER0 + p]),
                "cameleer": FIELD_NAMES[f["cam_pos"][p]],
                "trading_cards": dict(zip(TC_NAMES, f["tc"][p])),
                "action_card_count": n_cards(f, p),
            }
            if view is None or p == view:
                d["action_cards"] = counts(ACTION_NAMES, f["hand"][p])
            players.append(d)
        iron, jade, indigo = f["hut_has"]
        huts = [{"id": HUT_NAMES[h], "at": LOC_TEXTS[loc],
                 "goods": list(GOODS_OF_BITS[(iron >> h & 1) | (jade >> h & 1) << 1
                                             | (indigo >> h & 1) << 2])}
                for h, loc in enumerate(f["hut_loc"])]
        out = {
            "game": "taschkent", "players": n, "virtual_player": bool(f["virt"]),
            "setup": setup_json(f), "seed": self.seed, "phase": PHASES[f["phase"]], "to_move": self.to_move,
            "round": f["round"], "trading_rounds": f["cycle"], "turns": f["turns"],
            "turn_no": f["turn_no"], "start_player": f["start_player"],
            "marker": None if f["marker"] < 0 else f["marker"],
            "last_start": None if f["last_start"] < 0 else FIELD_NAMES[f["last_start"]],
            "camels": dict(zip(CAMEL_NAMES, f["camel"])),
            "removed_goods": dict(zip(GOOD_NAMES, f["removed_goods"])),
            "huts": huts,
            "connections": [{"colour": STICK_NAMES[i],
                             "border": None if f["stick_border"][i] < 0 else border_text(f["stick_border"][i]),
                             "used": bool(f["stick_used"][i])} for i in range(3)],
            "action_pile_count": f["n_pile"],
            "played_cards": counts(ACTION_NAMES, f["played"]),
            "removed_unseen_count": f["n_unseen"],
            "trading_display": [TC_NAMES[t] for t in f["disp"][:f["n_disp"]]],
            "trading_pile_count": f["n_tc_pile"],
            "end_triggered": bool(f["end_triggered"]), "last_card_taken": bool(f["last_card"]),
            "player_state": players,
        }
        if f["virt"]:
            out["neutral_cameleer"] = FIELD_NAMES[f["nc_pos"]]
            out["second_cameleer"] = f["sc_region"] + 1
            out["virtual_cards"] = dict(zip(TC_NAMES, f["vtc"]))
        if f["phase"] == core.PH_SELL:
            out["trade"] = {"region": f["tr_region"] + 1,
                            "passed": [p for p in range(n) if f["tr_passed"] >> p & 1]}
        pile = f["tc_pile"][:f["n_tc_pile"]]
        if view is None:
            out["action_pile"] = [ACTION_NAMES[t] for t in f["pile"][:f["n_pile"]]]
            out["removed_unseen"] = [ACTION_NAMES[t] for t in f["unseen"][:f["n_unseen"]]]
            out["trading_pile"] = [TC_NAMES[t] for t in pile]
            return out
        del out["seed"]                            # the deal seed would give away every card
        out["view"] = view
        # public by counting: what is left in the face-down trading-card pile
        out["trading_pile_contents"] = {TC_NAMES[t]: pile.count(t) for t in range(core.N_TC_TYPES)}
        # what the seat knows by counting: the action cards it cannot place (in the other
        # hands, the face-down pile and, with 2 players, removed face down), by type
        # (once over, the final count has shown the 3/5 cards in every hand)
        out["unknown_action_cards"] = {
            ACTION_NAMES[t]: ACTION_DECK_COUNT - f["played"][t] - f["hand"][view][t]
            - (sum(f["hand"][p][t] for p in range(n) if p != view)
               if over and t == core.AC_35 else 0)
            for t in range(core.N_ACTION_TYPES)}
        return out

    # ------------------------------------------------------------ reading JSON
    @classmethod
    def _check_setting(cls, d: Dict[str, Any]) -> None:
        check_keys_of_the_setting(d, d["players"])

    def _adopt_view(self, v: Dict[str, Any]) -> None:
        """Seat o's information hashes as the view gives them (a view has no history): the
        public hash and o's own information set from the view's content, every other entry a
        distinct value (symmetric, like a real history in which no private event is shared by
        two seats)."""
        o = v["view"]
        public, private = _view_hashes(self.to_json(view=o), o)
        f = self._fields()
        n = f["n"]
        pair = [[0] * len(row) for row in f["ih"]["pair"]]
        for a in range(n):
            for c in range(n):
                lo, hi = min(a, c), max(a, c)
                pair[a][c] = mix64((public + lo * 7 + hi * 13 + 1) & ((1 << 64) - 1))
        pair[o][o] = private
        f["ih"] = {"public": public, "n_public": 0, "pair": pair}
        self._set_fields(f)

    # ------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        """IllegalPositionError (a ValueError) unless this is a position of Taschkent: every
        index the rules use in range, every component in exactly one place and conserved, the
        turn, the round track, the start player and what has been done this turn consistent
        with the phase and the seat to move, and the flags the position implies. The list, with
        the rules behind each check, is in docs/views/taschkent.md."""
        f = self._fields()
        n = f["n"]
        check(2 <= n <= core.MAX_SEATS and f["virt"] == (n == 2)
              and f["display_size"] == DISPLAY_SIZE[n], "players",
              f"a Taschkent game has 2 to 4 players, not {n}")
        check(0 <= f["phase"] <= core.PH_OVER, "phase", f"no phase {f['phase']}")
        phase = f["phase"]
        _check_ranges(f, n, phase)
        _check_turn(f, n, phase)
        _check_start_player(f, n, phase)
        _check_setup(f, n)
        _check_goods(f, n)
        _check_posts(f, n, phase)
        _check_huts(f, n)
        _check_action_cards(f, n)
        _check_first_cycle(f, n, phase)
        _check_trading_cards(f, n, phase)
        check(bool(f["end_triggered"]) == end_is_triggered(f), "end_triggered",
              "the end is triggered exactly when a camel's kind of good or the action pile is gone")
        check(bool(f["last_card"]) == last_card_is_taken(f), "last_card_taken",
              "the last trading card is taken exactly when the row and the pile are empty")
        if phase == core.PH_SELL:
            check(len(self.legal_moves()) > 1, "to_move",
                  f"seat {f['actor']} cannot sell in R{f['tr_region'] + 1}: only a seat with a "
                  "sale is to move in a trading round")

    # ------------------------------------------------------------ text
    def render(self, viewer: Optional[int] = None) -> str:
        """The position as text (everything, or what `viewer` sees)."""
        return render(self.to_json(viewer))

    def narrate(self, before: GameCore, player: int, move: int,
                viewer: Optional[int] = None) -> List[str]:
        """Lines telling what `player`'s `move` did, then the automatic events: everything for
        a spectator (viewer None), else only what seat `viewer` sees (docs/views/taschkent.md).
        No line names an action card in a hand (a draw is told as a draw). The end is told
        alike to everyone: the final count is open (every seat's Tugrik with its unplayed 3/5
        cards at 5, as every view of a finished game shows), so are who is out and who wins."""
        self._check_narration(before, player, move, viewer)
        lines = [f"P{player} " + describe(before._fields(), self._fields(), player, move)]
        for kind, _, a, b, c in self.events(since=before.event_count):
            text = event_text(kind, a, b, c, self, viewer)
            if text:
                lines.append("  " + text)
        return lines


# ================================================================ loading
def check_keys_of_the_setting(d: Dict[str, Any], n: int) -> None:
    """One player_state per seat; the virtual player's keys exactly with 2 players; `trade`
    exactly in the sell phase."""
    if len(d["player_state"]) != n:
        fail(("player_state",), f"expected {n} items, got {len(d['player_state'])}")
    for key in ("neutral_cameleer", "second_cameleer", "virtual_cards"):
        if n == 2 and key not in d:
            fail((key,), "missing: the 2-player game has a virtual player")
        if n > 2 and key in d:
            fail((key,), f"only the 2-player game has a virtual player, not a {n}-player game")
    if d["phase"] == "sell" and "trade" not in d:
        fail(("trade",), "missing: the sell phase evaluates a region")
    if d["phase"] != "sell" and "trade" in d:
        fail(("trade",), f"there is no trading region in phase {d['phase']}")


def write_fields(f: Dict[str, Any], d: Dict[str, Any]) -> None:
    """Fill the C fields `f` (those of a fresh deal) from the schema-valid full-state dict `d`.
    Every list is padded to its C length; derived flags are computed, not read."""
    n = d["players"]
    setup = d.get("setup", default_setup(n))
    f["setup_hut"] = [HUT_NAMES.index(setup["goods"][g]) for g in GOOD_NAMES]
    f["setup_region"] = -1 if setup["neutral_region"] is None else setup["neutral_region"] - 1
    f["phase"] = PHASES.index(d["phase"])
    f["actor"] = d["to_move"]
    f["round"], f["cycle"], f["turns"] = d["round"], d["trading_rounds"], d["turns"]
    f["turn_no"], f["start_player"] = d["turn_no"], d["start_player"]
    f["marker"] = -1 if d["marker"] is None else d["marker"]
    f["last_start"] = -1 if d["last_start"] is None else FIELD_NAMES.index(d["last_start"])
    f["camel"] = [d["camels"][c] for c in CAMEL_NAMES]
    f["removed_goods"] = [d["removed_goods"][g] for g in GOOD_NAMES]
    f["hut_loc"] = [parse_loc(h["at"]) for h in d["huts"]]
    f["region_huts"] = region_huts_of(f["hut_loc"])
    f["hut_has"] = [sum(1 << h for h, hut in enumerate(d["huts"]) if g in hut["goods"])
                    for g in GOOD_NAMES]
    f["stick_border"] = [-1 if c["border"] is None else BORDER_NAMES.index(c["border"])
                         for c in d["connections"]]
    f["stick_used"] = [int(c["used"]) for c in d["connections"]]
    f["pile"], f["n_pile"] = padded([ACTION_NAMES.index(t) for t in d["action_pile"]], 12)
    f["unseen"], f["n_unseen"] = padded([ACTION_NAMES.index(t) for t in d["removed_unseen"]], 12)
    f["played"] = [d["played_cards"].get(t, 0) for t in ACTION_NAMES]
    f["disp"], f["n_disp"] = padded([TC_NAMES.index(t) for t in d["trading_display"]], 10)
    f["tc_pile"], f["n_tc_pile"] = padded([TC_NAMES.index(t) for t in d["trading_pile"]], 30)
    if n == 2:
        f["nc_pos"] = FIELD_NAMES.index(d["neutral_cameleer"])
        f["sc_region"] = d["second_cameleer"] - 1
        f["vtc"] = [d["virtual_cards"][t] for t in TC_NAMES]
    f["tr_passed"] = 0
    if "trade" in d:
        f["tr_region"] = d["trade"]["region"] - 1
        f["tr_passed"] = sum(1 << p for p in d["trade"]["passed"])
    for p, ps in enumerate(d["player_state"]):
        f["tugrik"][p] = ps["tugrik"]
        f["goods"][p] = [ps["goods"][g] for g in GOOD_NAMES]
        f["posts"][p], f["kept"][p] = list(ps["posts"]), list(ps["kept"])
        f["supply"][p], f["storage"][p] = ps["supply"], ps["storage"]
        f["cam_pos"][p] = FIELD_NAMES.index(ps["cameleer"])
        f["tc"][p] = [ps["trading_cards"][t] for t in TC_NAMES]
        f["hand"][p] = [ps["action_cards"].get(t, 0) for t in ACTION_NAMES]
    f["end_triggered"] = int(end_is_triggered(f))
    f["last_card"] = int(last_card_is_taken(f))
    f["move_log"] = f["log"]["count"]          # a loaded position has no last move to tell


def padded(values: List[int], length: int) -> Tuple[List[int], int]:
    """(values padded with zeros to a C array's length, their number)."""
    return values + [0] * (length - len(values)), len(values)


def canonical(d: Dict[str, Any]) -> Dict[str, Any]:
    """`d` with its set-like parts as to_json writes them: action cards without zero counts,
    the goods of a hut in the order iron, jade, indigo, the passed seats ascending. A client
    may write a set in any order; ordered lists (piles, the row) keep theirs."""
    out = copy.deepcopy(d)
    if isinstance(out.get("played_cards"), dict):
        out["played_cards"] = {k: x for k, x in out["played_cards"].items() if x != 0}
    for ps in out.get("player_state", []):
        if isinstance(ps.get("action_cards"), dict):
            ps["action_cards"] = {k: x for k, x in ps["action_cards"].items() if x != 0}
    for hut in out.get("huts", []):
        if isinstance(hut.get("goods"), list):
            hut["goods"] = sorted(hut["goods"], key=GOOD_NAMES.index)
    if isinstance(out.get("trade"), dict) and isinstance(out["trade"].get("passed"), list):
        out["trade"]["passed"] = sorted(out["trade"]["passed"])
    return out


# ================================================================ views
def full_state_of_view(v: Dict[str, Any]) -> Dict[str, Any]:
    """A full-state dict that fits seat o's view: the action cards o cannot place dealt by type
    (a matching of the unseen cards to the other hands, the pile and the removed cards, not a
    search), the trading-card pile sorted by type."""
    o = v["view"]
    for p, ps in enumerate(v["player_state"]):
        if p == o and "action_cards" not in ps:
            fail(("player_state", p), "missing key 'action_cards': the viewer's own cards")
        if p != o and "action_cards" in ps:
            fail(("player_state", p, "action_cards"), f"seat {o}'s view cannot hold seat {p}'s cards")
        if v["phase"] == "over" and p != o and "final_tugrik" not in ps:
            fail(("player_state", p), "missing key 'final_tugrik': at the end every seat's Tugrik "
                 "is counted openly, each unplayed 3/5 card as 5")
        if v["phase"] != "over" and "final_tugrik" in ps:
            fail(("player_state", p, "final_tugrik"), "the Tugrik are counted only at the end "
                 "(phase over)")
    d = copy.deepcopy(v)
    for key in VIEW_ONLY:
        d.pop(key, None)
    deal_unseen_action_cards(v, d)
    d["trading_pile"] = unseen_trading_cards(v)
    return d


def deal_unseen_action_cards(v: Dict[str, Any], d: Dict[str, Any]) -> None:
    """Put every action card seat o cannot place into the other hands, the pile and the removed
    cards of `d`, as many as the view says each holds (place_hidden: nothing constrains them,
    since no public event tells anything about a card before it is played)."""
    n, o = v["players"], v["view"]
    mine = v["player_state"][o]["action_cards"]
    shown = shown_35_cards(v)
    unseen = []
    for t, name in enumerate(ACTION_NAMES):
        left = ACTION_DECK_COUNT - v["played_cards"].get(name, 0) - mine.get(name, 0)
        if t == core.AC_35:
            left -= sum(shown.values())
        if left < 0:
            fail(("played_cards", name), f"the view is impossible: {ACTION_DECK_COUNT} {name} "
                 "cards exist, fewer than played, held and shown at the end", IllegalPositionError)
        unseen += [(t, copy_no) for copy_no in range(left)]
    capacity: Dict[Any, int] = {p: v["player_state"][p]["action_card_count"] - shown.get(p, 0)
                                for p in range(n) if p != o}
    capacity["pile"] = v["action_pile_count"]
    capacity["removed"] = v["removed_unseen_count"]
    if sum(capacity.values()) != len(unseen):
        fail(("action_pile_count",), f"the view is impossible: the other hands, the action pile "
             f"and the removed cards hold {sum(capacity.values())} cards, but {len(unseen)} "
             f"action cards are unseen by seat {o}", IllegalPositionError)
    places = list(capacity)
    # once over, the 3/5 cards not shown in a hand are in the pile or among the removed cards
    allowed = {card: (["pile", "removed"] if v["phase"] == "over" and card[0] == core.AC_35
                      else places) for card in unseen}
    placed = place_hidden(unseen, capacity, allowed, ("action_pile_count",))
    held = {place: sorted(card for card, at in placed.items() if at == place) for place in places}
    for p in range(n):
        if p != o:
            d["player_state"][p]["action_cards"] = counts(
                ACTION_NAMES, [sum(1 for t, _ in held[p] if t == k) + (shown.get(p, 0) if k == core.AC_35 else 0)
                               for k in range(core.N_ACTION_TYPES)])
    d["action_pile"] = [ACTION_NAMES[t] for t, _ in held["pile"]]
    d["removed_unseen"] = [ACTION_NAMES[t] for t, _ in held["removed"]]


def shown_35_cards(v: Dict[str, Any]) -> Dict[int, int]:
    """Once the game is over, the 3/5 cards each other seat showed in the final count (its
    final_tugrik minus its Tugrik, 5 each), checked against its hand size; else none."""
    if v["phase"] != "over":
        return {}
    shown = {}
    for p, ps in enumerate(v["player_state"]):
        if p == v["view"]:
            continue
        extra = ps["final_tugrik"] - ps["tugrik"]
        k, rest = divmod(extra, core.CARD35_END)
        if extra < 0 or rest or k > ps["action_card_count"]:
            fail(("player_state", p, "final_tugrik"), f"the view is impossible: {ps['final_tugrik']} "
                 f"is {ps['tugrik']} Tugrik plus 5 for each unplayed 3/5 card among seat {p}'s "
                 f"{ps['action_card_count']} action cards", IllegalPositionError)
        shown[p] = k
    return shown


def unseen_trading_cards(v: Dict[str, Any]) -> List[str]:
    """The face-down trading cards, sorted by type: 10 of each minus those in sight (every
    player's cards, the virtual player's and the row)."""
    seen = [v["trading_display"].count(t) for t in TC_NAMES]
    holders = [ps["trading_cards"] for ps in v["player_state"]]
    if "virtual_cards" in v:
        holders.append(v["virtual_cards"])
    for cards in holders:
        for i, t in enumerate(TC_NAMES):
            seen[i] += cards[t]
    pile = []
    for i, t in enumerate(TC_NAMES):
        if seen[i] > core.TC_PER_TYPE:
            fail(("trading_display",), f"the view is impossible: {seen[i]} {t} cards in sight "
                 f"(players, row), but there are {core.TC_PER_TYPE}", IllegalPositionError)
        pile += [t] * (core.TC_PER_TYPE - seen[i])
    return pile


def _view_hashes(rebuilt: Dict[str, Any], o: int) -> Tuple[int, int]:
    """(public, private) hashes of a view as written by to_json(view=o): public from what
    every seat's view shares (the same for every seat of one position), private from the
    seat's own action cards."""
    pub = copy.deepcopy(rebuilt)
    for key in VIEW_ONLY:
        pub.pop(key, None)
    mine = pub["player_state"][o].pop("action_cards")
    return stable_hash(pub), stable_hash([o, mine])


# ================================================================ invariant checks
def check(condition: Any, field: str, message: str) -> None:
    """IllegalPositionError naming the JSON field at fault unless `condition` holds."""
    if not condition:
        raise IllegalPositionError(f"{field}: {message}")


def _check_ranges(f: Dict[str, Any], n: int, phase: int) -> None:
    """Every number the rules use as an index, a count or a loop bound is in range, so no rule
    reads or writes outside a C array and every loop ends."""
    over = phase == core.PH_OVER
    check(f["actor"] == -1 if over else 0 <= f["actor"] < n, "to_move",
          f"{f['actor']} is not a seat to move in phase {PHASES[phase]}")
    check(1 <= f["round"] <= core.LAST_ROUND, "round", f"{f['round']} is not an action round 1..4")
    check(0 <= f["cycle"] <= core.MAX_TRADING_ROUNDS, "trading_rounds", "out of range 0..30")
    check(0 <= f["turns"] <= core.MAX_TRADING_ROUNDS * core.LAST_ROUND * n, "turns", "out of range")
    check(0 <= f["turn_no"] <= n, "turn_no", f"out of range 0..{n}")
    check(0 <= f["start_player"] < n, "start_player", f"no seat {f['start_player']}")
    check(-1 <= f["marker"] < n, "marker", f"no seat {f['marker']}")
    check(-1 <= f["last_start"] < core.N_FIELDS, "last_start", "no such field")
    for c, name in enumerate(CAMEL_NAMES):
        check(0 <= f["camel"][c] <= PY_CAMEL_START[c], f"camels.{name}",
              f"{f['camel'][c]} goods: the camel starts with {PY_CAMEL_START[c]}, and goods never "
              "go back on a camel")
    check(all(0 <= k <= core.GOODS_PER_KIND for k in f["removed_goods"]), "removed_goods", "out of range")
    check(all(0 <= loc <= core.LOC_KALMYK for loc in f["hut_loc"]), "huts", "a hut is nowhere")
    check(f["region_huts"] == region_huts_of(f["hut_loc"]), "huts", "the regions' huts disagree with the huts")
    check(all(0 <= m <= ALL_HUTS for m in f["hut_has"]), "huts", "goods on a hut that does not exist")
    for i in range(3):
        border, used = f["stick_border"][i], f["stick_used"][i]
        check(-1 <= border < core.N_BORDERS and used in (0, 1) and (border >= 0 or not used),
              f"connections[{i}]", "no such border, or used before it was laid")
    check(0 <= f["n_pile"] <= core.N_ACTION_CARDS and 0 <= f["n_unseen"] <= core.N_ACTION_CARDS
          and all(0 <= t < core.N_ACTION_TYPES for t in f["pile"][:f["n_pile"]] + f["unseen"][:f["n_unseen"]]),
          "action_pile", "not a pile of action cards")
    check(all(0 <= k <= ACTION_DECK_COUNT for k in f["played"]), "played_cards", "out of range")
    check(0 <= f["n_tc_pile"] <= core.N_TC and 0 <= f["n_disp"] <= f["display_size"]
          and all(0 <= t < core.N_TC_TYPES for t in f["tc_pile"][:f["n_tc_pile"]] + f["disp"][:f["n_disp"]]),
          "trading_display", f"the row holds at most {f['display_size']} trading cards")
    check(all(k >= 0 for k in f["vtc"]), "virtual_cards", "negative")
    if n == 2:
        check(1 <= f["nc_pos"] <= 7 and 0 <= f["sc_region"] < core.N_REGIONS, "neutral_cameleer",
              "the virtual player's cameleers are on fields 1..7 and in a region")
    else:
        check(f["nc_pos"] == 0 and f["sc_region"] == 0 and not any(f["vtc"]), "virtual_player",
              f"a {n}-player game has no virtual player")
        check(f["n_unseen"] == 0, "removed_unseen", "only the virtual player (2 players) removes "
              "action cards face down")
    selling = phase == core.PH_SELL
    check(0 <= f["tr_region"] < (core.N_REGIONS if selling else core.N_REGIONS + 1), "trade.region",
          "no such region")
    check(0 <= f["tr_passed"] < (1 << n) and (selling or f["tr_passed"] == 0), "trade.passed",
          "only seats pass, and only in a trading round")
    check(f["end_triggered"] in (0, 1) and f["last_card"] in (0, 1), "phase", "a flag is out of range")
    for p in range(core.MAX_SEATS):
        where = f"player_state[{p}]"
        if p >= n:       # seats beyond the game hold nothing
            check(not (f["tugrik"][p] or any(f["goods"][p]) or any(f["posts"][p]) or any(f["kept"][p])
                       or f["supply"][p] or f["storage"][p] or f["cam_pos"][p] or any(f["tc"][p])
                       or any(f["hand"][p])), "player_state", f"seat {p} holds something in a "
                  f"{n}-player game")
            continue
        check(f["tugrik"][p] >= 0, f"{where}.tugrik", "negative")
        check(all(k >= 0 for k in f["goods"][p]), f"{where}.goods", "negative")
        check(all(0 <= k <= core.POSTS_PER_PLAYER for k in f["posts"][p]), f"{where}.posts", "out of range")
        check(all(0 <= kept <= posts for kept, posts in zip(f["kept"][p], f["posts"][p])),
              f"{where}.kept", "more posts kept than stand in the region")
        check(f["supply"][p] >= 0 and f["storage"][p] >= 0, f"{where}.supply", "negative")
        check(0 <= f["cam_pos"][p] < core.N_FIELDS, f"{where}.cameleer", "no such field")
        check(all(k >= 0 for k in f["tc"][p]), f"{where}.trading_cards", "negative")


def _check_turn(f: Dict[str, Any], n: int, phase: int) -> None:
    """The seat to move, the turn and round counters and what was done in this turn fit the
    phase: seats take turns clockwise from the start player; a trading round follows action
    round 2, 3 or 4; every cycle plays 2 to 4 action rounds; the game ends only for a reason."""
    turn_no, round_, cycle, sp = f["turn_no"], f["round"], f["cycle"], f["start_player"]
    if phase in TURN_PHASES:
        check(turn_no < n, "turn_no", f"an action round has {n} turns: {turn_no} cannot be done "
              "while one is being played")
        seat = (sp + turn_no) % n
        check(f["actor"] == seat, "to_move", f"seat {sp} starts the round and {turn_no} turns are "
              f"done: seat {seat} is to move, not {f['actor']}")
        check(cycle < core.MAX_TRADING_ROUNDS, "trading_rounds", "the game ends after the 30th")
    else:
        check(turn_no == n, "turn_no", f"a trading round follows the last of the {n} turns of an "
              f"action round, not {turn_no}")
        check(round_ >= 2, "round", "a trading round follows action round 2, 3 or 4, not 1")
        if phase == core.PH_SELL:
            check(cycle < core.MAX_TRADING_ROUNDS, "trading_rounds", "the game ends after the 30th")
        else:
            check(cycle >= 1, "trading_rounds", "the game ends after a trading round")
            check(f["end_triggered"] or f["last_card"] or cycle >= core.MAX_TRADING_ROUNDS, "phase",
                  "the game ends only after the end is triggered, the last trading card is taken "
                  "or the 30th trading round")
    # every cycle plays 2 to 4 action rounds of n turns each
    done_cycles = cycle - 1 if phase == core.PH_OVER else cycle
    in_cycle = round_ - 1 if phase in TURN_PHASES else round_
    into_round = turn_no if phase in TURN_PHASES else 0
    rounds, rest = divmod(f["turns"] - into_round, n)
    low, high = 2 * done_cycles + in_cycle, 4 * done_cycles + in_cycle
    check(rest == 0 and low <= rounds <= high, "turns",
          f"{f['turns']} turns do not fit {cycle} trading rounds (2 to 4 action rounds each), "
          f"action round {round_} and {into_round} turns into it")
    if phase == core.PH_ACTION:
        check(f["last_start"] == -1, "last_start", "no cameleer has moved yet in this turn")
    elif phase in TURN_PHASES and f["last_start"] >= 0:
        at = f["cam_pos"][f["actor"]]
        check(at not in (core.OUTSIDE, f["last_start"]), "last_start",
              f"the cameleer of seat {f['actor']} moved from {FIELD_NAMES[f['last_start']]} this "
              f"turn: it cannot be {FIELD_NAMES[at]}")


def _check_start_player(f: Dict[str, Any], n: int, phase: int) -> None:
    """The marker is taken on the horses (field 1) at most once a cycle; its taker becomes the
    start player at the end of that action round."""
    marker, sp = f["marker"], f["start_player"]
    if sp != 0:
        check(f["cam_pos"][sp] != core.OUTSIDE, "start_player",
              f"seat {sp} can start only after taking the marker, but its cameleer never moved")
    if marker < 0:
        return
    check(f["cam_pos"][marker] != core.OUTSIDE, "marker",
          f"seat {marker} took the marker on the horses, but its cameleer never moved")
    if phase not in TURN_PHASES:
        check(marker == sp, "start_player",
              f"seat {marker} took the marker: it starts from the end of that action round")
        return
    if marker != sp or f["round"] == 1:          # taken in this round: by a seat that has moved
        order = (marker - sp) % n
        moved = order < f["turn_no"] or (order == f["turn_no"] and phase != core.PH_ACTION)
        check(moved, "marker", f"seat {marker} has not moved its cameleer yet in this round, "
              "so it cannot have taken the marker")


def _check_setup(f: Dict[str, Any], n: int) -> None:
    """The set-up options: each good began on a printed hut (or, with 4 players, on N3), and
    the neutral hut N3 of a 4-player game began in a region. Goods leave a hut only by
    Shortage, and only Caravan moves on moves N3: before the first of each is played, the
    starting goods are still on their huts and N3 still in its region."""
    huts, region = f["setup_hut"], f["setup_region"]
    for g, name in enumerate(GOOD_NAMES):
        check(0 <= huts[g] < core.N_PRINTED or (n == 4 and huts[g] == SETUP_NEUTRAL_HUT),
              f"setup.goods.{name}", f"{HUT_NAMES[huts[g]] if 0 <= huts[g] < core.N_HUTS else huts[g]} "
              "is not on the board at set-up (printed huts; N3 with 4 players)")
    check(0 <= region < core.N_REGIONS if n == 4 else region == -1, "setup.neutral_region",
          "a region 1-8 with 4 players, null otherwise")
    if f["played"][core.AC_SHORTAGE] == 0:
        for g, name in enumerate(GOOD_NAMES):
            check(f["hut_has"][g] >> huts[g] & 1, f"setup.goods.{name}",
                  f"the {name} placed on {HUT_NAMES[huts[g]]} at set-up is not there, and no "
                  "Shortage (the only way a good leaves a hut) was played")
    if n == 4 and f["played"][core.AC_CARAVAN] == 0:
        check(f["hut_loc"][SETUP_NEUTRAL_HUT] == region, "setup.neutral_region",
              f"{HUT_NAMES[SETUP_NEUTRAL_HUT]} began in R{region + 1} and only Caravan moves on, "
              "never played, moves it")


def _check_goods(f: Dict[str, Any], n: int) -> None:
    """12 goods of each kind: on the camels, the huts, with the players or removed; goods lie
    only on huts on the map; with 3-4 players only Shortage removes goods (at most 2 a card)."""
    on_map = 0
    for r in range(core.N_REGIONS):
        on_map |= f["region_huts"][r]
    for g, name in enumerate(GOOD_NAMES):
        check(f["hut_has"][g] & ~on_map == 0, "huts", f"{name} on a hut that is not on the map")
        on_camels = sum(f["camel"][c] for c in range(core.N_CAMELS) if PY_CAMEL_GOOD[c] == g)
        total = (on_camels + popcount(f["hut_has"][g]) + f["removed_goods"][g]
                 + sum(f["goods"][p][g] for p in range(n)))
        check(total == core.GOODS_PER_KIND, f"removed_goods.{name}",
              f"{total} {name} goods on the camels, the huts, with the players and removed, "
              f"not {core.GOODS_PER_KIND}")
    if n > 2:
        shortages = f["played"][core.AC_SHORTAGE]
        check(sum(f["removed_goods"]) <= 2 * shortages, "removed_goods",
              f"{sum(f['removed_goods'])} goods removed, but {shortages} Shortage card(s) played "
              "remove at most 2 each")


def _check_posts(f: Dict[str, Any], n: int, phase: int) -> None:
    """10 trading posts per seat (hand, cart, board); posts are kept only during a trading
    round, in the regions evaluated so far."""
    for p in range(n):
        total = f["supply"][p] + f["storage"][p] + sum(f["posts"][p])
        check(total == core.POSTS_PER_PLAYER, f"player_state[{p}].supply",
              f"seat {p} has {total} trading posts (hand, cart, board), not {core.POSTS_PER_PLAYER}")
        kept = [r for r in range(core.N_REGIONS) if f["kept"][p][r]]
        if phase == core.PH_SELL:
            check(all(r <= f["tr_region"] for r in kept), f"player_state[{p}].kept",
                  f"a post kept in a region after R{f['tr_region'] + 1}, not evaluated yet")
            # keeping a post puts two from the hand on the cart, and nothing leaves the cart
            # in a trading round
            check(f["storage"][p] >= 2 * len(kept), f"player_state[{p}].storage",
                  f"each post kept this trading round put two on the cart: seat {p} kept "
                  f"{len(kept)}, so its cart holds {2 * len(kept)} at least, not {f['storage'][p]}")
        else:
            check(not kept, f"player_state[{p}].kept", "posts are kept only during a trading round")


def _check_huts(f: Dict[str, Any], n: int) -> None:
    """Printed huts never move; the players' huts are in the supply or a region (absent seats'
    in the supply); neutral huts leave the supply lowest id first, one to each empty field 2
    and 4 of the round track after a trading round, and go to the Kalmyk when round 2 (field
    2) or round 4 (field 4) begins."""
    loc = f["hut_loc"]
    for h in range(core.N_PRINTED):
        check(loc[h] == PRINTED_REGION[h], f"huts[{h}].at",
              f"the printed hut {HUT_NAMES[h]} is always in R{PRINTED_REGION[h] + 1}")
    for p in range(core.MAX_SEATS):
        h = core.HUT_PLAYER0 + p
        allowed = loc[h] == core.LOC_SUPPLY or (p < n and loc[h] < core.N_REGIONS)
        check(allowed, f"huts[{h}].at", f"{HUT_NAMES[h]} is in the supply or, placed by its seat, "
              "in a region")
    neutral = [loc[h] for h in NEUTRAL_HUTS]
    in_supply = [at == core.LOC_SUPPLY for at in neutral]
    check(in_supply == sorted(in_supply), "huts", "the neutral huts leave the supply lowest id "
          "first: the ones left there are the last ones (N7, N6, ...)")
    on_2, on_4 = neutral.count(core.LOC_TRACK2), neutral.count(core.LOC_TRACK4)
    round_, supply_left = f["round"], any(in_supply)
    check(on_2 <= 1 and on_4 <= 1, "huts", "one neutral hut at most on each field of the round track")
    check(not (on_2 and round_ >= 2), "huts", "the hut on track field 2 goes to the Kalmyk when "
          "round 2 begins")
    check(not (on_4 and round_ == core.LAST_ROUND), "huts", "the hut on track field 4 goes to the "
          "Kalmyk when round 4 begins")
    check(on_2 or round_ >= 2 or not supply_left, "huts", "track field 2 is empty in round 1 only "
          "when the supply had no neutral hut left")
    check(on_4 or round_ == core.LAST_ROUND or not supply_left, "huts", "track field 4 is empty "
          "before round 4 only when the supply had no neutral hut left")


def _check_action_cards(f: Dict[str, Any], n: int) -> None:
    """2 action cards of each type: played, in a hand, in the pile or removed face down (2
    players); a hand holds cards only once its cameleer drew them on field 2."""
    for t, name in enumerate(ACTION_NAMES):
        total = (f["played"][t] + sum(f["hand"][p][t] for p in range(n))
                 + f["pile"][:f["n_pile"]].count(t) + f["unseen"][:f["n_unseen"]].count(t))
        check(total == ACTION_DECK_COUNT, "played_cards",
              f"{total} {name} cards played, held, in the pile and removed, not {ACTION_DECK_COUNT}")
    for p in range(n):
        if any(f["hand"][p]):
            check(f["cam_pos"][p] != core.OUTSIDE, f"player_state[{p}].cameleer",
                  f"seat {p} holds action cards, drawn on field 2, but its cameleer never moved")


def _check_trading_cards(f: Dict[str, Any], n: int, phase: int) -> None:
    """10 trading cards of each type: with the players, the virtual player, in the row or in
    the face-down pile. The pile is drawn only to refill the row after a trading round, and
    seats take cards only by selling (rules 8; docs/rules/taschkent.md)."""
    for t, name in enumerate(TC_NAMES):
        total = (sum(f["tc"][p][t] for p in range(n)) + f["vtc"][t]
                 + f["disp"][:f["n_disp"]].count(t) + f["tc_pile"][:f["n_tc_pile"]].count(t))
        check(total == core.TC_PER_TYPE, "trading_pile",
              f"{total} {name} cards held, in the row and in the pile, not {core.TC_PER_TYPE}")
    size, pile, refills = f["display_size"], f["n_tc_pile"], f["cycle"]
    most, least = core.N_TC - size, max(0, core.N_TC - size * (refills + 1))
    check(least <= pile <= most, "trading_pile",
          f"the set-up leaves {most} cards in the pile and each of the {refills} refills so far "
          f"draws {size} at most: {pile} cannot be left")
    if phase not in TURN_PHASES:
        return
    # the refill follows the trading round, and in an action round only the virtual player
    # (2 players) takes a card from the row: one at the end of each round
    least_row = size - (f["round"] - 1 if n == 2 else 0)
    check(pile == 0 or f["n_disp"] >= least_row, "trading_display",
          f"in action round {f['round']} the row holds {least_row} cards at least while the pile "
          f"lasts, not {f['n_disp']}")
    check(n == 2 or f["n_disp"] > 0, "trading_display", "the row is empty in an action round, "
          "but the trading round that took its last card ended the game")


def _check_first_cycle(f: Dict[str, Any], n: int, phase: int) -> None:
    """Before the first trading round nothing has been sold: no seat holds a trading card,
    no trade connection is used, no post has come back to a cart; and the start player
    changes only at the end of a round (rules 6 and 8)."""
    if f["cycle"] or phase not in TURN_PHASES:
        return
    check(all(not any(f["tc"][p]) for p in range(n)), "trading_cards",
          "nobody holds a trading card before the first trading round")
    check(not any(f["stick_used"]), "connections",
          "no trade connection is used before the first trading round")
    start_cart = core.POSTS_PER_PLAYER - core.POSTS_START
    for p in range(n):
        check(f["storage"][p] <= start_cart, f"player_state[{p}].storage",
              f"posts come back to the cart only by selling: seat {p}'s holds {start_cart} at "
              f"most before the first trading round, not {f['storage'][p]}")
    if f["round"] == 1:
        check(f["start_player"] == 0, "start_player",
              "seat 0 starts the first round: the marker's taker starts from the next one")


# ================================================================ text
def render(d: Dict[str, Any]) -> str:
    """A full state or a view (to_json) as text."""
    n = d["players"]
    head = f"Taschkent, {n} players{' + virtual player' if d['virtual_player'] else ''}, "
    if d["phase"] == "over":
        k = d["trading_rounds"]
        head += f"game over after {k} trading round{'s' if k != 1 else ''}"
    else:
        head += f"cycle {d['trading_rounds'] + 1}, "
        if d["phase"] == "sell":
            head += f"trading round (region {d['trade']['region']})"
        else:
            head += f"action round {d['round']}"
    head += f", start player P{d['start_player']}"
    if d["phase"] != "over":
        head += f", to move: P{d['to_move']} ({d['phase']})"
    lines = [head]
    occupants: Dict[str, List[str]] = {}
    for p, ps in enumerate(d["player_state"]):
        occupants.setdefault(ps["cameleer"], []).append(f"P{p}")
    if d["virtual_player"]:
        occupants.setdefault(d["neutral_cameleer"], []).append("V")
    fields = []
    for i in range(1, core.N_FIELDS):
        name = FIELD_NAMES[i]
        extra = ""
        if name in CAMEL_NAMES:
            extra = f"({d['camels'][name]})"
        elif name == "cards":
            extra = f"({d['action_pile_count']})"
        elif name == "horses" and d["marker"] is None:
            extra = "(marker)"
        elif name == "kalmyk":
            k = sum(1 for h in d["huts"] if h["at"] == "kalmyk")
            extra = f"({k} hut{'s' if k != 1 else ''})"
        who = "".join(f"[{x}]" for x in occupants.get(name, []))
        fields.append(f"{i if i < core.KALMYK else 'K'}:{name}{extra}{who}")
    lines.append("caravan: " + "  ".join(fields))
    if "outside" in occupants:
        lines.append("outside the caravan: " + " ".join(occupants["outside"]))
    track = [h["at"] for h in d["huts"] if h["at"].startswith("track")]
    lines.append(f"round track: round {d['round']}; neutral huts on "
                 f"{', '.join(sorted(track)) or 'none'}; marker "
                 f"{'on the horses' if d['marker'] is None else 'with P%d' % d['marker']}")
    for r in range(core.N_REGIONS):
        huts = [h for h in d["huts"] if h["at"] == f"R{r + 1}"]
        hut_texts = " ".join(h["id"] + ("{" + ",".join(g[0].upper() + g[1:3] for g in h["goods"]) + "}"
                                        if h["goods"] else "") for h in huts)
        posts = " ".join(f"P{p}x{ps['posts'][r]}" for p, ps in enumerate(d["player_state"])
                         if ps["posts"][r])
        links = [f"{c['colour']}({c['border']}{',used' if c['used'] else ''})"
                 for c in d["connections"] if c["border"] and str(r + 1) in c["border"].split("-")]
        lines.append(f"  R{r + 1}: huts {hut_texts or '-'}; posts {posts or '-'}"
                     + (f"; links {' '.join(links)}" if links else ""))
    lines.append("trading cards up: " + (" ".join(d["trading_display"]) or "-")
                 + f"   (pile {d['trading_pile_count']})")
    for p, ps in enumerate(d["player_state"]):
        held = ps.get("action_cards")
        actions = (" ".join(f"{k}x{v}" for k, v in held.items()) or "-") if held is not None \
            else f"{ps['action_card_count']} hidden"
        cards = " ".join(f"{k}x{v}" for k, v in ps["trading_cards"].items() if v) or "-"
        goods = " ".join(f"{k}x{v}" for k, v in ps["goods"].items() if v) or "-"
        lines.append(f"  P{p}: {ps['tugrik']:3d} Tugrik  goods {goods}  posts in hand "
                     f"{ps['supply']} (cart {ps['storage']})  hut {ps['hut']}  "
                     f"cards {cards}  action cards {actions}")
    if d["virtual_player"]:
        cards = " ".join(f"{k}x{v}" for k, v in d["virtual_cards"].items() if v) or "-"
        lines.append(f"  virtual player: second cameleer in R{d['second_cameleer']}, cards {cards}")
    if d["phase"] == "over":
        lines += final_table(d)
    elif d["end_triggered"] or d["last_card_taken"]:
        why = ("the last trading card is taken" if d["last_card_taken"] and not d["end_triggered"]
               else "the end is triggered")
        when = "this trading round" if d["phase"] == "sell" else "the next trading round"
        lines.append(f"{why}: {when} is the last")
    return "\n".join(lines)


def final_table(d: Dict[str, Any]) -> List[str]:
    """The end of a finished game (to_json of it, full or a view: both show every final
    count), best first: place, card points, the Tugrik as counted (an unplayed 3/5 card is 5)
    and, with 3-4 players, who is out as the poorest (docs/rules/taschkent.md, section 9)."""
    n = d["players"]
    totals = [ps["final_tugrik"] for ps in d["player_state"]]
    points = [card_set_points(**ps["trading_cards"]) for ps in d["player_state"]]
    out = [p for p in range(n) if n > 2 and min(totals) < max(totals) and totals[p] == min(totals)]
    keys = [(0, 0, totals[p]) if p in out else (1, points[p], totals[p]) for p in range(n)]
    places = [1 + sum(1 for k in keys if k > keys[p]) for p in range(n)]
    lines = ["final count (Tugrik with each unplayed 3/5 card as 5; "
             + ("the poorest are out, the others rank" if n > 2 else "nobody is out with 2 "
                "players, the richer drew up to 2 cards blindly from the poorer; ranked")
             + " by card points, then Tugrik):"]
    for p in sorted(range(n), key=lambda q: (places[q], q)):
        note = "  -- out: the poorest" if p in out else ""
        lines.append(f"  {places[p]}. P{p}: {points[p]:2d} card points, {totals[p]:3d} Tugrik{note}")
    if n > 2 and not out:
        lines.append("  nobody is out: every player has the same Tugrik")
    return lines


def describe(b: Dict[str, Any], a: Dict[str, Any], p: int, move: int) -> str:
    """One sentence for seat p's move, with what it cost and earned (fields b before, a after)."""
    kind, x = move_kind(move), move_arg(move)
    paid = b["tugrik"][p] - a["tugrik"][p]
    cost = f", pays {paid} Tugrik" if paid > 0 else ""
    if kind == core.MV_SKIP:
        return ("does not move the cameleer", "ends the turn",
                f"passes in region {b['tr_region'] + 1}")[x]
    if kind == core.MV_TUGRIK:
        return "takes 1 Tugrik"
    if kind == core.MV_POST:
        return f"places a trading post in region {x + 1}{cost}"
    if kind == core.MV_HUT:
        return f"places the hut in region {x + 1}"
    if kind == core.MV_ACTIVITY:
        return f"plays Activity: a trading post in region {x + 1}{cost}"
    if kind in (core.MV_CAMEL, core.MV_CAMCARD):
        return describe_cameleer_move(b, a, p, kind, x) + cost
    if kind == core.MV_REMOVAL:
        return (f"plays Removal: a trading post from region {core.reloc_src(x) + 1} to region "
                f"{core.reloc_dest(x) + 1}")
    if kind == core.MV_CARAVAN:
        h = core.reloc_src(x)
        return (f"plays Caravan moves on: hut {hut_name(h)} from region "
                f"{b['hut_loc'][h] + 1} to region {core.reloc_dest(x) + 1}")
    if kind == core.MV_SHORT_A:
        good = GOOD_NAMES[PY_CAMEL_GOOD[x]]
        # a second good goes only if the camel had one (docs/rules/taschkent.md, 7)
        removed = "removes another" if b["camel"][x] >= 2 else "none is left to remove"
        return f"plays Shortage: takes 1 {good} from the {CAMEL_NAMES[x]} camel and {removed}"
    if kind == core.MV_SHORT_B:
        camel = core.shortage_camel(x)
        return (f"plays Shortage: removes the {GOOD_NAMES[core.shortage_good(x)]} from hut "
                f"{hut_name(core.shortage_hut(x))} and 1 {GOOD_NAMES[PY_CAMEL_GOOD[camel]]} from "
                f"the {CAMEL_NAMES[camel]} camel")
    if kind == core.MV_35:
        return "plays 3/5: takes 3 Tugrik"
    if kind == core.MV_SELL:
        return describe_sale(b, a, p, x)
    return move_text(move)


def describe_cameleer_move(b: Dict[str, Any], a: Dict[str, Any], p: int, kind: int, x: int) -> str:
    d, opt = core.camel_field(x), core.camel_option(x)
    head = "plays Cameleer: moves (free)" if kind == core.MV_CAMCARD else "moves the cameleer"
    text = f"{head} from {FIELD_LONG[b['cam_pos'][p]]} to {FIELD_LONG[d]}"
    if opt and d <= 2:
        return text + (f" and lays the {STICK_NAMES[core.link_stick(opt)]} trade connection on "
                       f"border {border_text(core.link_border(opt))}")
    if opt and d == core.KALMYK:
        return text + f" and places a neutral hut in region {core.hut_option_region(opt) + 1}"
    if d == 1:
        got = []
        if b["marker"] < 0:
            got.append("the start player marker")
        if a["supply"][p] > b["supply"][p]:
            got.append("a trading post")
        return text + ": takes " + (" and ".join(got) if got else "nothing")
    if d == 2:
        drawn = n_cards(a, p) - n_cards(b, p) + (1 if kind == core.MV_CAMCARD else 0)
        return text + (": draws an action card" if drawn == 1 else "")
    if d == 6:
        return text + f": takes {a['supply'][p] - b['supply'][p]} trading posts"
    if PY_FIELD_CAMEL[d] >= 0:
        return text + f": takes 1 {GOOD_NAMES[PY_CAMEL_GOOD[PY_FIELD_CAMEL[d]]]}"
    return text


def describe_sale(b: Dict[str, Any], a: Dict[str, Any], p: int, x: int) -> str:
    t, g, r = core.sale_target(x), core.sale_good(x), b["tr_region"]
    via = f" via the {STICK_NAMES[g]} trade connection" if t != r else ""
    if core.sale_cards(x):
        got = [TC_NAMES[c] for c in range(3) for _ in range(a["tc"][p][c] - b["tc"][p][c])]
        earned = "cards " + (", ".join(got) or "none")
    else:
        earned = f"{a['tugrik'][p] - b['tugrik'][p]} Tugrik"
    post = "keeps the post (2 posts to the cart)" if core.sale_keep(x) else "returns the post"
    return (f"sells {GOOD_NAMES[g]} from region {r + 1} into region {t + 1}{via}, onto hut "
            f"{hut_name(core.sale_hut(x))}: {earned}; {post}")


def event_text(kind: int, a: int, b: int, c: int, g: Taschkent,
               viewer: Optional[int] = None) -> str:
    """A line for one automatic event of the log (cext LOG_* kinds): a spectator's (viewer
    None), or what seat `viewer` may be told of it."""
    if kind == core.LOG_DIE_ROUND:
        need = core.ROUND3_MIN if b == 3 else core.ROUND4_MIN
        return f"die {a}: " + (f"action round {b} follows" if a >= need else "trading round follows")
    if kind == core.LOG_ROUND:
        return f"-- action round {a}" + (f" (cycle {g.trading_rounds + 1})" if a == 1 else "")
    if kind == core.LOG_START:
        return f"P{a} becomes start player"
    if kind == core.LOG_TRADING:
        return "-- trading round"
    if kind == core.LOG_TRADING_END:
        return f"trading round {a} over"
    if kind == core.LOG_KALMYK_HUT:
        return f"the neutral hut of track field {a} goes to the Kalmyk"
    if kind == core.LOG_TRACK_HUT:
        return f"a neutral hut is put on track field {a}"
    if kind == core.LOG_VIRT_DIE:
        return f"virtual player: die {a}, neutral cameleer to {FIELD_LONG[b]}"
    if kind == core.LOG_VIRT_CARD:
        return "virtual player removes the top action card from the game"
    if kind == core.LOG_VIRT_SALE:
        card = f", takes a {TC_NAMES[c]} card" if c >= 0 else ", no trading card left"
        return f"virtual player sells {GOOD_NAMES[a]} in region {b + 1}{card}"
    if kind == core.LOG_VIRT_LOST:
        return f"virtual player finds no hut for {GOOD_NAMES[a]}: removed from the game"
    if kind == core.LOG_REFILL:
        return f"{a} trading card{'s' if a != 1 else ''} laid out"
    if kind == core.LOG_END_TRIGGER:
        # triggered in action round 1, round 2 is still played (docs/rules/taschkent.md, 9)
        then = "action round 2, then" if a == 1 else "this round is finished, then"
        return f"the end is triggered: {then} the last trading round"
    if kind == core.LOG_LAST_CARD:
        # the virtual player's sale in an action round: the next trading round is the last
        # (docs/rules/taschkent.md, 9)
        which = "the next" if a else "this"
        return f"the last trading card is taken: the game ends after {which} trading round"
    if kind == core.LOG_STEAL:
        return f"P{a} (richer) draws {c} card{'s' if c != 1 else ''} blindly from P{b}"
    if kind == core.LOG_OVER:
        # the final count is open (every view of a finished game shows final_tugrik): every
        # seat is told every total, who is out and who wins
        return "game over: " + "; ".join(final_count(g))
    return ""


def final_count(g: Taschkent) -> List[str]:
    """The end of the game in parts: the Tugrik as counted (3/5 cards at 5), who is out, the
    card points and the winners."""
    f = g._fields()
    n = f["n"]
    totals, out, points, ranking = g.tugrik_totals(), g.eliminated_players(), g.scores(), g.ranking()
    parts = ["Tugrik counted (an unplayed 3/5 card is 5) "
             + " ".join(f"P{p}={totals[p]}" for p in range(n))]
    if n > 2:
        if out:
            parts.append("out, the poorest: " + ", ".join(f"P{p}" for p in out))
        else:
            parts.append("nobody is out: every player has the same Tugrik")
    parts.append("card points " + " ".join(f"P{p}={points[p]}" for p in range(n)))
    winners = [p for p in range(n) if ranking[p] == 1]
    parts.append(("winner " if len(winners) == 1 else "shared win ")
                 + ", ".join(f"P{p}" for p in winners))
    return parts
