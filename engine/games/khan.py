"""Khan of Khans' Python half: Khan names, notation, JSON (full states and seat views), the
checks that make a loaded position one the rules can reach and play, rendering and narration.

The rules and the C state live in cext/khan.pyx (`KhanOfKhansCore`). This module reads that
state through `_fields()` and writes it only through `_set_fields()`, after the JSON passed the
published schema (docs/views/khan.schema.json, khan.state.schema.json); `check_invariants`
then decides whether the result is a position of Khan of Khans before any rule runs on it.
"""
from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional, Sequence, Tuple

from cext import khan as core
from cext.core import GameCore, move_arg, move_kind, stable_hash
from cext.khan import (PY_CORRALS, PY_DECK_COUNT, PY_RAID_VALUE, KhanOfKhansCore, steal_tier,
                       steal_victim)
from engine.games.base import CheckedGame, field_property
from engine.validation import IllegalPositionError, fail, listed_items, place_hidden, quoted

DECK_KEYS = ("boldhome", "colymar", "duckpoint", "dragonseye", "dwarfmine", "earthshaker",
             "furthest", "grazelands", "shadowsdance", "sundome")
DECK_TITLES = ("Boldhome", "Colymar Lands", "Duck Point", "Dragon's Eye", "Dwarf Mine",
               "Earthshaker's Temple", "Furthest", "Grazelands", "Shadows Dance", "Sun Dome")
TYPE_KEYS = ("raid20", "raid50", "raid100", "blessing", "stampede", "champion", "magic")
TYPE_TITLES = ("Raid! 20", "Raid! 50", "Raid! 100", "Waha's Blessing", "Stampede!",
               "Tribal Champion", "Enemy Magic")
KHAN_KEYS = ("impala", "bison", "morokanth", "sable", "llama")
KHAN_TITLES = ("Impala People", "Bison Riders", "Morokanth", "Sable Nation", "High Llama Tribe")
LOC_KEYS = ("herd", "corral", "box")
PHASES = ("main", "blessing", "reveal", "pick", "over")     # by core.PH_MAIN ... PH_OVER
VALUE_TYPE = {20: "raid20", 50: "raid50", 100: "raid100"}
ALL_TYPES = range(7)                # card type codes: core.T_R20 ... core.T_MAGIC
TIERS = (2, 1, 0)                   # the order to_json lists a herd or corral: "100", "50", "20"
N_CARDS = core.N_DECKS * core.DECK_SIZE
SPECIAL_SEATS = (("sable", core.K_SABLE), ("impala", core.K_IMPALA), ("bison", core.K_BISON),
                 ("llama", core.K_LLAMA))

# Keys a client may leave out: the loader recomputes them, and checks them when they are given.
DERIVED = frozenset({"pending_blessing", "count", "box_face_down", "khan", "corrals_open",
                     "herd_face_down", "corral_face_down", "score"})
# The fields to_json(view=seat) writes, in order (docs/views/khan.md).
VIEW_KEYS = ("game", "players", "turn", "phase", "to_move", "khans", "impala_token",
             "pending_blessing", "revealed", "decks", "box", "box_face_down",
             "sable_face_down", "player_state", "view")


# ================================================================ notation
DECK_MOVES = {core.MV_RAID: "raid", core.MV_REVEAL: "reveal", core.MV_TAKE: "take"}
STEAL_MOVES = {core.MV_USE: "bless", core.MV_STEAL: "steal"}
PLAIN_MOVES = {core.MV_CORRAL: "corral", core.MV_IMPALA: "observant", core.MV_KEEP: "keep",
               core.MV_STOP: "stop"}


def steal_text(arg: int) -> str:
    """`P2-50` for a blessing on seat 2's Raid! 50; `P1-random` against the Sable Nation."""
    t = steal_tier(arg)
    return f"P{steal_victim(arg)}-" + ("random" if t == core.TIER_RANDOM else str(PY_RAID_VALUE[t]))


def move_text(move: int) -> str:
    """A move in the notation of docs/views/khan.md (`raid-boldhome`, `steal-P1-50`, ...)."""
    kind, arg = move_kind(move), move_arg(move)
    if kind in DECK_MOVES and arg < core.N_DECKS:
        return f"{DECK_MOVES[kind]}-{DECK_KEYS[arg]}"
    if kind in PLAIN_MOVES and arg == 0:
        return PLAIN_MOVES[kind]
    if kind == core.MV_SNEAK and arg < len(PY_RAID_VALUE):
        return f"sneak-{PY_RAID_VALUE[arg]}"
    if kind in STEAL_MOVES and steal_victim(arg) < len(KHAN_KEYS):      # a seat per Khan at most
        return f"{STEAL_MOVES[kind]}-" + steal_text(arg)
    return f"?{move}"


def khan_numbers(khans: Any) -> List[int]:
    """The Khan numbers of `khans` (names, or one string "impala,bison,..."); ValueError for
    an unknown name (the core checks the count and that no Khan is dealt twice)."""
    if isinstance(khans, str):
        khans = listed_items(khans, "khans")
    if not isinstance(khans, (list, tuple)):
        raise ValueError(f"khans: give names (e.g. impala,bison), not {type(khans).__name__}")
    out = []
    for k in khans:
        if not isinstance(k, str) or k.strip().lower() not in KHAN_KEYS:
            raise ValueError(f"unknown Khan {quoted(k)}; Khans: {', '.join(KHAN_KEYS)}")
        out.append(KHAN_KEYS.index(k.strip().lower()))
    return out


# ================================================================ what the rules fix
def tiles(n: int, khan: int) -> int:
    """Corral tiles of a seat: by player count, the Morokanth one more."""
    return PY_CORRALS[n] + (core.MOROKANTH_EXTRA if khan == core.K_MOROKANTH else 0)


def first_seat(khans: Sequence[int]) -> int:
    """Interpretation (docs/rules/khan_of_khans.md, 1): the Impala People begin, else seat 0."""
    return list(khans).index(core.K_IMPALA) if core.K_IMPALA in khans else 0


# A tally is a multiset of card types as one int, one byte per type (the count of type t is
# bits 8t..8t+7), so tallies of piles add up like the piles. Each byte stays below 128 here:
# 40 face-down cards at most, 80 cards in all decks.
BYTE = tuple(1 << 8 * t for t in ALL_TYPES)
HEADROOM = sum(127 - c << 8 * t for t, c in enumerate(PY_DECK_COUNT))
OVERFLOW = sum(128 << 8 * t for t in ALL_TYPES)


def tally(types: Sequence[int]) -> int:
    """The tally of a list of card types (each 0..6)."""
    return sum(map(BYTE.__getitem__, types))


def count_of(tally_: int, t: int) -> int:
    return tally_ >> 8 * t & 255


def above_a_fresh_deck(tally_: int) -> bool:
    """Whether some type is counted more often than a fresh deck holds it (every byte < 128)."""
    return (tally_ + HEADROOM) & OVERFLOW != 0


def popcount(mask: int) -> int:
    return bin(mask).count("1")


# ---------------------------------------------------------------- the chance and hashes of a view
MASK64 = (1 << 64) - 1


def mix64(x: int) -> int:
    """cext/rng.pxd's splitmix64 finaliser, in Python."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def rng_state(seed: int) -> Dict[str, int]:
    """The Rng struct cext/rng.pxd's rng_seed makes of `seed`."""
    s0 = mix64(seed & MASK64)
    s1 = mix64(s0 ^ 0x1234567)
    s2 = mix64(s1 ^ 0x89ABCDEF)
    return {"s0": s0, "s1": s1, "s2": s2, "s3": mix64(s2 ^ 0x5A5A5A5A)}


# ================================================================ the game API
class KhanOfKhans(CheckedGame, KhanOfKhansCore):
    """A Khan of Khans position. `KhanOfKhans(players=4, seed=0, khans=None)` deals a new game;
    `khans` fixes each seat's Khan (names impala, bison, morokanth, sable, llama).

    The rules are the C core's; this class adds notation, JSON, views, text and checks."""

    DERIVED = DERIVED
    SEAT_LISTS = ("khans", "player_state")

    def __init__(self, players: int = 4, seed: int = 0, khans: Any = None) -> None:
        super().__init__(players, seed, None if khans is None else khan_numbers(khans))

    PHASES = PHASES

    turn = field_property("turn", "Turns finished so far.")

    @property
    def khans(self) -> List[str]:
        """The Khan of each seat."""
        f = self._fields()
        return [KHAN_KEYS[f["khan"][p]] for p in range(f["n"])]

    # ------------------------------------------------------------ writing JSON
    def to_json(self, view: Optional[int] = None) -> Dict[str, Any]:
        """The full state, or (view = a seat) what that seat knows: hidden parts left out."""
        if view is not None:
            self._check_player(view)
        f = self._fields()
        n, sable = f["n"], f["sable"]
        full = view is None
        # Interpretation: at the end every player totals its cows, so the Sable Nation's
        # face-down cards are shown (docs/views/khan.md)
        sees_sable = full or view == sable or f["phase"] == core.PH_OVER
        slots = f["slot"][:f["n_slots"]]
        hidden = face_down_counts(slots)
        scores = self.scores()
        players = []
        for p in range(n):
            own = hidden if p == sable else [[0, 0, 0]] * 3
            d = {
                "khan": KHAN_KEYS[f["khan"][p]],
                "herd": {str(PY_RAID_VALUE[t]): f["herd"][p][t] - own[core.LOC_HERD][t]
                         for t in TIERS},
                "champion": bool(f["champion"][p]),
                "corrals_open": f["corrals_open"][p], "corrals_used": f["corrals_used"][p],
                "sneaked": f["sneaked"][p],
                "corral": {str(PY_RAID_VALUE[t]): f["corral"][p][t] - own[core.LOC_CORRAL][t]
                           for t in TIERS},
                "kept_blessings": f["kept"][p], "received_blessings": f["recv"][p],
            }
            if p == sable:
                d["herd_face_down"] = sum(hidden[core.LOC_HERD])
                d["corral_face_down"] = sum(hidden[core.LOC_CORRAL])
            if p != sable or sees_sable:
                d["score"] = scores[p]
            players.append(d)
        out = {
            "game": "khan", "players": n, "seed": self.seed, "turn": f["turn"],
            "phase": PHASES[f["phase"]], "to_move": self.to_move,
            "khans": [KHAN_KEYS[f["khan"][p]] for p in range(n)],
            "impala_token": "coloured" if f["impala_token"] else "brown",
            "pending_blessing": bool(f["pending_bless"]),
            "revealed": [DECK_KEYS[d] for d in range(core.N_DECKS) if f["revealed"] >> d & 1],
            "decks": [deck_json(f, d, full, sees_sable) for d in range(core.N_DECKS)],
            "box": {TYPE_KEYS[t]: f["box"][t] - (hidden[core.LOC_BOX][t] if t < 3 else 0)
                    for t in range(core.N_TYPES)},
            "box_face_down": sum(hidden[core.LOC_BOX]),
            "sable_face_down": [slot_json(sl, sees_sable) for sl in slots],
            "player_state": players,
        }
        if not full:
            del out["seed"]                        # the deal seed would give away every card
            out["view"] = view
        return out

    # ------------------------------------------------------------ reading JSON
    def _adopt_view(self, v: Dict[str, Any]) -> None:
        """The seat's information hashes and the chance generator, from its view alone (a view
        has no history): everything else the seat knows is in the state itself."""
        seat = v["view"]
        public, private = _view_hashes(self.to_json(view=seat), seat)
        f = self._fields()
        n = f["n"]
        f["ih"] = {"public": public, "n_public": 0,
                   "pair": [[mix64((public + a * 7 + b * 13 + 1) & MASK64) if a < n and b < n
                             else 0 for b in range(5)] for a in range(5)]}
        f["ih"]["pair"][seat][seat] = private
        f["chance"] = rng_state(public)          # future random thefts: from the view alone
        self._set_fields(f)

    # ------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        """IllegalPositionError (a ValueError) unless this is a position of Khan of Khans: every
        card in exactly one place, counts conserved, the turn, the seat to move and the phase
        consistent, Sable's face-down cards within what the others know, and every index the
        rules read in range. docs/views/khan.md lists the checks."""
        f = self._fields()
        n = f["n"]
        check(2 <= n <= 5 and n == self.n_players, "players", f"{n} is not a player count")
        check(0 <= f["phase"] < len(PHASES), "phase", f"no phase {f['phase']}")
        _check_seats(f, n)
        in_decks = _check_decks(f)
        _check_face_down(f, n)
        _check_holdings(f, n)
        _check_conservation(f, n, in_decks)
        _check_phase(f, n)
        _check_impala(f)
        _check_turn(f, n)

    # ------------------------------------------------------------ text
    def render(self, viewer: Optional[int] = None) -> str:
        """The position as text (everything, or as `viewer` sees it)."""
        d = self.to_json(viewer)
        lines = [f"Khan of Khans, {d['players']} players, turn {d['turn']}, phase {d['phase']}, "
                 f"to move: {d['to_move']}" + ("" if viewer is None else f" (seen by P{viewer})")]
        decks = []
        for e in d["decks"]:
            top = f" top {e['top']}" if e["top"] else ""
            decks.append(f"{e['name']} {e['count']}{top}")
        lines.append("decks: " + ", ".join(decks))
        lines.append("box: " + ", ".join(f"{k} {v}" for k, v in d["box"].items() if v)
                     + (", " + face_down_text(d["sable_face_down"], "box")[2:]
                        if d["box_face_down"] else ""))
        for p, ps in enumerate(d["player_state"]):
            herd = " ".join(f"{v}x{k}" for k, v in ps["herd"].items() if v) or "-"
            if ps.get("herd_face_down"):
                herd += face_down_text(d["sable_face_down"], "herd")
            corral = " ".join(f"{v}x{k}" for k, v in ps["corral"].items() if v) or "-"
            if ps.get("corral_face_down"):
                corral += face_down_text(d["sable_face_down"], "corral")
            token = f"  token {d['impala_token']}" if ps["khan"] == "impala" else ""
            score = ps.get("score", "?")
            lines.append(f"  P{p} {KHAN_TITLES[KHAN_KEYS.index(ps['khan'])]:<16} score {score!s:>4}"
                         f"  herd {herd}{'  +champion' if ps['champion'] else ''}"
                         f"  corrals {ps['corrals_used']} used/{ps['corrals_open']} open: {corral}"
                         f"  blessings {ps['kept_blessings']} kept, {ps['received_blessings']} received"
                         f"{token}")
        return "\n".join(lines)

    def narrate(self, before: GameCore, player: int, move: int,
                viewer: Optional[int] = None) -> List[str]:
        """The move, the card(s) turned over and what they did, the herds and scores (see
        GameCore.narrate). Before the end, a seat other than the Sable Nation is never told
        the value of a face-down Raid! card, so Sable's herd, corral and score show their
        face-up part and the number of face-down cards, as its view does (docs/views/khan.md)."""
        self._check_narration(before, player, move, viewer)
        f = self._fields()
        entries = self.events(since=before.event_count)     # what this move logged
        sable = f["sable"]
        hide = (viewer is not None and sable >= 0 and viewer != sable
                and f["phase"] != core.PH_OVER)
        who = f"P{player} ({KHAN_TITLES[f['khan'][player]]})"
        down = None
        if hide and player == sable:
            # Sable's own events (draws, losses, corrals) are the only ones that touch its
            # face-down cards; the herd they tell of is the herd before the move
            b = before._fields()
            herd = face_down_counts(b["slot"][:b["n_slots"]])[core.LOC_HERD]
            down = (sum(herd), sum(k * v for k, v in zip(herd, PY_RAID_VALUE)))
        parts = [event_text(entry, sable, down) for entry in entries]
        head = move_head(who, move, before.move_to_text(move))
        lines = [head + (": " + "; ".join(p for p in parts if p) if any(parts) else "")]
        if f["phase"] == core.PH_OVER:
            lines.append("    every location deck is empty: the game is over")
        if f["phase"] == core.PH_BLESS:
            lines.append(f"    {who} decides: keep the blessing or steal at once")
        scores = self.scores()
        herds = [f"P{p} {f['herd_val'][p]}" + ("+C" if f["champion"][p] else "")
                 for p in range(f["n"])]
        totals = [f"P{p} {scores[p]}" for p in range(f["n"])]
        if hide:
            # as the view tells it: the face-up part, then how many cards are face down
            hidden = face_down_counts(f["slot"][:f["n_slots"]])
            cows = [sum(k * v for k, v in zip(row, PY_RAID_VALUE)) for row in hidden]
            in_herd, in_corral = sum(hidden[core.LOC_HERD]), sum(hidden[core.LOC_CORRAL])
            herds[sable] = (f"P{sable} {f['herd_val'][sable] - cows[core.LOC_HERD]}"
                            + ("+C" if f["champion"][sable] else "")
                            + (f" +{in_herd} face down" if in_herd else ""))
            face_up = scores[sable] - cows[core.LOC_HERD] - cows[core.LOC_CORRAL]
            down = in_herd + in_corral
            totals[sable] = f"P{sable} {face_up}" + (f" +{down} face down" if down else "")
        lines.append("    herds: " + "  ".join(herds) + "   scores: " + "  ".join(totals))
        return lines


def face_down_text(slots: List[Dict[str, Any]], at: str) -> str:
    """' +2 face down' for the Sable Nation's face-down cards in one place (herd, corral,
    box) as a view lists them, with their values, highest first, where the view gives them
    (the Sable Nation's own view, the full state, every view once the game is over):
    ' +2 face down (100, 50)'."""
    here = [sl for sl in slots if sl["at"] == at]
    text = f" +{len(here)} face down"
    if here and all("value" in sl for sl in here):
        text += " (" + ", ".join(str(v) for v in sorted((sl["value"] for sl in here),
                                                          reverse=True)) + ")"
    return text


# ================================================================ JSON pieces
def face_down_counts(slots: List[Dict[str, int]]) -> List[List[int]]:
    """Sable's face-down cards by place (LOC_HERD, LOC_CORRAL, LOC_BOX) and tier."""
    out = [[0, 0, 0] for _ in LOC_KEYS]
    for sl in slots:
        out[sl["loc"]][sl["tier"]] += 1
    return out


def deck_json(f: Dict[str, Any], d: int, full: bool, sees_sable: bool) -> Dict[str, Any]:
    """One deck as to_json writes it: its cards (full state) or what the viewer has not seen."""
    cards = f["deck"][d][:f["ndeck"][d]]
    known = f["top_known"] >> d & 1
    e: Dict[str, Any] = {"name": DECK_KEYS[d], "count": len(cards),
                         "top": TYPE_KEYS[cards[-1]] if known else None}
    if full:
        e["cards"] = [TYPE_KEYS[t] for t in cards]
        return e
    unseen = [0] * core.N_TYPES
    for t in cards[:len(cards) - known]:
        unseen[t] += 1
    if not sees_sable:                  # the others count Sable's face-down cards as unseen
        for sl in f["slot"][:f["n_slots"]]:
            if sl["deck"] == d:
                unseen[sl["tier"]] += 1
    e["unseen"] = {TYPE_KEYS[t]: unseen[t] for t in range(core.N_TYPES) if unseen[t]}
    return e


def slot_json(sl: Dict[str, int], sees_value: bool) -> Dict[str, Any]:
    e = {"deck": DECK_KEYS[sl["deck"]], "at": LOC_KEYS[sl["loc"]], "max": PY_RAID_VALUE[sl["cap"]]}
    if sees_value:
        e["value"] = PY_RAID_VALUE[sl["tier"]]
    return e


def write_fields(f: Dict[str, Any], d: Dict[str, Any]) -> None:
    """Fill the C fields `f` (those of a fresh deal) from the full-state dict `d` (schema-valid,
    one Khan and one player_state per seat)."""
    n = d["players"]
    khans = [KHAN_KEYS.index(k) for k in d["khans"]]
    f["n"] = n
    f["khan"] = khans + [0] * (5 - n)
    for name, k in SPECIAL_SEATS:
        f[name] = khans.index(k) if k in khans else -1
    phase = PHASES.index(d["phase"])
    f["phase"], f["actor"], f["turn"] = phase, d["to_move"], d["turn"]
    f["impala_token"] = int(d["impala_token"] == "coloured")
    f["pending_bless"] = int(phase == core.PH_BLESS)
    f["revealed"] = sum(1 << DECK_KEYS.index(k) for k in set(d["revealed"]))
    _write_decks(f, d["decks"])
    slots = [{"deck": DECK_KEYS.index(sl["deck"]), "tier": PY_RAID_VALUE.index(sl["value"]),
              "cap": PY_RAID_VALUE.index(sl["max"]), "loc": LOC_KEYS.index(sl["at"])}
             for sl in d["sable_face_down"]]
    f["n_slots"] = len(slots)
    f["slot"] = slots + [{"deck": 0, "tier": 0, "cap": 0, "loc": 0}] * (core.MAX_SLOTS - len(slots))
    hidden = face_down_counts(slots)
    sable = f["sable"]
    for p, ps in enumerate(d["player_state"]):
        own = hidden if p == sable else [[0, 0, 0]] * 3
        herd = [ps["herd"][str(v)] + own[core.LOC_HERD][t] for t, v in enumerate(PY_RAID_VALUE)]
        corral = [ps["corral"][str(v)] + own[core.LOC_CORRAL][t] for t, v in enumerate(PY_RAID_VALUE)]
        f["herd"][p], f["n_herd"][p] = herd, sum(herd)
        f["herd_val"][p] = sum(k * v for k, v in zip(herd, PY_RAID_VALUE))
        f["corral"][p] = corral
        f["corral_val"][p] = sum(k * v for k, v in zip(corral, PY_RAID_VALUE))
        f["champion"][p] = int(ps["champion"])
        f["corrals_used"][p] = ps["corrals_used"]
        f["corrals_open"][p] = tiles(n, khans[p]) - ps["corrals_used"]
        f["sneaked"][p] = ps["sneaked"]
        f["kept"][p] = ps["kept_blessings"]
        f["recv"][p] = ps["received_blessings"]
    f["box"] = [d["box"][key] + (hidden[core.LOC_BOX][t] if t < 3 else 0)
                for t, key in enumerate(TYPE_KEYS)]


def _write_decks(f: Dict[str, Any], decks: List[Dict[str, Any]]) -> None:
    f["nonempty"] = f["top_known"] = f["cards_left"] = 0
    for dk, e in enumerate(decks):
        cards = [TYPE_KEYS.index(c) for c in e["cards"]]
        f["deck"][dk] = cards + [0] * (core.DECK_SIZE - len(cards))
        f["ndeck"][dk] = len(cards)
        f["cards_left"] += len(cards)
        if cards:
            f["nonempty"] |= 1 << dk
        if e["top"] is not None:
            if not cards:
                fail(("decks", dk, "top"), f"{e['name']} is empty: it has no top card",
                     IllegalPositionError)
            if e["cards"][-1] != e["top"]:
                fail(("decks", dk, "top"), f"the known top {e['top']!r} is not the top card "
                     f"{e['cards'][-1]!r}", IllegalPositionError)
            f["top_known"] |= 1 << dk


# ================================================================ views
def canonical(d: Dict[str, Any]) -> Dict[str, Any]:
    """`d` with its sets in the order to_json writes them: `revealed` in deck order, `unseen`
    without types counted 0. A client may list a set in any order; piles and the face-down
    cards (oldest first) keep theirs."""
    out = copy.deepcopy(d)
    if isinstance(out.get("revealed"), list):
        out["revealed"] = sorted(out["revealed"], key=lambda k: DECK_KEYS.index(k)
                                 if k in DECK_KEYS else len(DECK_KEYS))
    for e in out.get("decks", []):
        if isinstance(e, dict) and isinstance(e.get("unseen"), dict):
            e["unseen"] = {t: c for t, c in e["unseen"].items() if c != 0}
    return out


def full_state_of_view(v: Dict[str, Any]) -> Dict[str, Any]:
    """A full-state dict that fits the seat's view: each deck's unseen cards under its known
    top, sorted by type (bottom first); for a seat other than the Sable Nation, each face-down
    card given one of its deck's unseen Raid! cards within its bound (a matching, not a
    search)."""
    o = v["view"]
    sable = v["khans"].index("sable") if "sable" in v["khans"] else -1
    knows = o == sable or v["phase"] == "over"
    slots = v["sable_face_down"]
    for i, sl in enumerate(slots):
        if knows and "value" not in sl:
            fail(("sable_face_down", i), "missing key 'value': the Sable Nation's view, and "
                 "every view of a finished game, gives the value of each face-down card")
        if not knows and "value" in sl:
            fail(("sable_face_down", i, "value"), f"seat {o}'s view cannot hold the value of "
                 "the Sable Nation's face-down cards", IllegalPositionError)
    values = [sl.get("value") for sl in slots]
    decks = []
    for dk, e in enumerate(v["decks"]):
        mine = [] if knows else [i for i, sl in enumerate(slots) if sl["deck"] == e["name"]]
        cards = _fill_deck(e, dk, mine, slots, values)
        decks.append({"name": e["name"], "top": e["top"],
                      "cards": cards + ([] if e["top"] is None else [e["top"]])})
    d = {k: copy.deepcopy(v[k]) for k in VIEW_KEYS if k in v and k not in DERIVED | {"view"}}
    d["decks"] = decks
    d["sable_face_down"] = [{"deck": sl["deck"], "at": sl["at"], "max": sl["max"],
                             "value": values[i]} for i, sl in enumerate(slots)]
    d["player_state"] = [{k: x for k, x in ps.items() if k not in DERIVED}
                         for ps in v["player_state"]]
    return d


def _fill_deck(e: Dict[str, Any], dk: int, mine: List[int], slots: List[Dict[str, Any]],
               values: List[Optional[int]]) -> List[str]:
    """Share deck dk's unseen cards between the face-down cards `mine` (setting their values)
    and the deck below its known top; the deck's cards, bottom first."""
    pool = [(t, j) for t in TYPE_KEYS for j in range(e["unseen"].get(t, 0))]
    below = len(pool) - len(mine)
    if below < 0:
        fail(("decks", dk, "unseen"), f"{len(pool)} unseen cards cannot include the "
             f"{len(mine)} face-down cards from {e['name']}", IllegalPositionError)
    if not mine:
        return [t for t, _ in pool]
    capacity: Dict[Any, int] = {("slot", i): 1 for i in mine}
    capacity["deck"] = below
    allowed = {}
    for t, j in pool:
        fits = [("slot", i) for i in mine
                if t in VALUE_TYPE.values() and TYPE_KEYS.index(t) <= PY_RAID_VALUE.index(slots[i]["max"])]
        allowed[(t, j)] = fits + ["deck"]
    try:
        placed = place_hidden(pool, capacity, allowed)
    except IllegalPositionError:
        fail(("decks", dk, "unseen"), f"no share of the unseen cards of {e['name']} gives its "
             "face-down cards Raid! cards within their bounds (max)", IllegalPositionError)
    for card, place in placed.items():
        if place != "deck":
            values[place[1]] = PY_RAID_VALUE[TYPE_KEYS.index(card[0])]
    return [t for t, j in pool if placed[(t, j)] == "deck"]


def _view_hashes(v: Dict[str, Any], seat: int) -> Tuple[int, int]:
    """(public, private) hashes of a complete view of `seat` (as to_json writes it). Public:
    what every seat sees alike (the view without its seat, the values of Sable's face-down
    cards and Sable's score; a deck's unseen cards as the others count them, face-down Sable
    cards included); it is the same for every seat of one position. Private: the seat and, for
    the Sable Nation, the values of its face-down cards."""
    khans = v["khans"]
    sable = khans.index("sable") if "sable" in khans else -1
    knows = seat == sable or v["phase"] == "over"
    slots = v["sable_face_down"]
    pub = {k: v[k] for k in VIEW_KEYS
           if k not in ("view", "decks", "sable_face_down", "player_state")}
    decks = []
    for e in v["decks"]:
        unseen = {t: c for t, c in e["unseen"].items() if c}
        if knows:
            for sl in slots:
                if sl["deck"] == e["name"]:
                    t = VALUE_TYPE[sl["value"]]
                    unseen[t] = unseen.get(t, 0) + 1
        decks.append({"name": e["name"], "count": e["count"], "top": e["top"], "unseen": unseen})
    pub["decks"] = decks
    pub["sable_face_down"] = [{k: sl[k] for k in ("deck", "at", "max")} for sl in slots]
    pub["player_state"] = [{k: x for k, x in ps.items() if not (p == sable and k == "score")}
                           for p, ps in enumerate(v["player_state"])]
    private = ["khan", seat, [sl["value"] for sl in slots] if seat == sable else None]
    return stable_hash(pub), stable_hash(private)


# ================================================================ narration
def move_head(who: str, move: int, text: str) -> str:
    """The first words of a move's narration."""
    kind, arg = move_kind(move), move_arg(move)
    if kind == core.MV_RAID:
        return f"{who} raids {DECK_TITLES[arg]}"
    if kind == core.MV_TAKE:
        return f"{who} takes the revealed card of {DECK_TITLES[arg]}"
    if kind == core.MV_CORRAL:
        return f"{who} corrals the herd"
    if kind == core.MV_IMPALA:
        return f"{who} uses Observant (Impala People): reveals up to three decks"
    if kind == core.MV_STOP:
        return f"{who} stops revealing"
    if kind == core.MV_REVEAL:
        return f"{who} reveals the top of {DECK_TITLES[arg]}"
    if kind == core.MV_SNEAK:
        return f"{who} sneaks a Raid! {PY_RAID_VALUE[arg]} into a used corral (Sneaky)"
    if kind == core.MV_KEEP:
        return f"{who} keeps the Waha's Blessing on the Khan card"
    if kind == core.MV_USE:
        return f"{who} uses a kept Waha's Blessing"
    if kind == core.MV_STEAL:
        return f"{who} uses the Waha's Blessing at once"
    return f"{who} {text}"


FIXED_EVENT_TEXT = {core.LOG_NOEFFECT: "no Raid! card in the herd, no effect",
                    core.LOG_SAVED: "the Tribal Champion is discarded and the herd is safe",
                    core.LOG_CHAMP: "guards the herd"}


def event_text(entry: Sequence[int], sable: int,
               face_down: Optional[Tuple[int, int]] = None) -> str:
    """One entry of the core's narration log, (kind, player, a, b, c) with a LOG_* kind, in
    words ('' for an event not worth telling). `face_down`: for a seat that does not see the
    Sable Nation's face-down cards, in a move of the Sable Nation, how many of them its herd
    held before the move and their cows (the reader is then told only the face-up part); None
    tells everything."""
    kind, _, a, b, c = entry
    if kind == core.LOG_DRAW:
        if c:
            if face_down is not None:
                return "a Raid! card, face down (Sable Nation)"
            return f"a Raid! card, face down (Sable Nation; it is a {PY_RAID_VALUE[b]})"
        return TYPE_TITLES[b]
    if kind == core.LOG_LOSE:
        if face_down is not None and face_down[0] and c in (1, 2):
            return _loss_text(a - face_down[1], b, c, face_down[0])
        return _loss_text(a, b, c)
    if kind in FIXED_EVENT_TEXT:
        return FIXED_EVENT_TEXT[kind]
    if kind == core.LOG_STEAL:
        return (f"gives it to P{a} and takes a Raid! {PY_RAID_VALUE[b]} from their herd"
                + (" (at random)" if a == sable else ""))
    if kind == core.LOG_REVEAL:
        return f"{DECK_TITLES[a]} shows {TYPE_TITLES[b]}"
    if kind == core.LOG_CORRAL:
        cows = f"{b} cows"
        if face_down is not None and face_down[0]:
            cows = _face_down_part(a, face_down[0], b - face_down[1])
        return (f"{a} Raid! card{'s' if a != 1 else ''} ({cows}) safe"
                + (", the Tribal Champion is discarded" if c else ""))
    if kind == core.LOG_KEEP and a:
        return "kept on the Khan card (nobody to steal from)"
    return ""


def _loss_text(a: int, count: int, cause: int, face_down: int = 0) -> str:
    """LOG_LOSE: a (tier, or cows), count, cause (0 stampede, 1 infighting, 2 magic, 3 bison).
    `face_down`: of a whole herd lost, the cards face down to the reader (a is then the cows
    of the others)."""
    if cause in (0, 3):
        if a < 0:
            return "a second Tribal Champion: both discarded, no Raid! card to lose (Resolute)"
        if cause == 3:
            return (f"a second Tribal Champion: both discarded and only a Raid! "
                    f"{PY_RAID_VALUE[a]} lost (Resolute)")
        return f"a Raid! {PY_RAID_VALUE[a]} escapes"
    parts = ["a second Tribal Champion: infighting, both champions"] if cause == 1 else []
    if count == 0:
        parts.append("no Raid! card in the herd to lose")
    elif face_down:
        parts.append(f"loses the whole herd ({count} Raid! card{'s' if count != 1 else ''}"
                     f", {_face_down_part(count, face_down, a)})")
    else:
        parts.append(f"loses the whole herd ({count} Raid! card{'s' if count != 1 else ''}"
                     f", {a} cows)")
    return "; ".join(parts)


def _face_down_part(count: int, face_down: int, face_up_cows: int) -> str:
    """Cards of the Sable Nation, some face down, as a seat that cannot see those is told."""
    if face_down == count:
        return "face down" if count == 1 else "all face down"
    return f"{face_down} face down, {face_up_cows} cows face up"


# ================================================================ invariant checks
# They run after every move of the random-game tests, so a message is formatted only when
# its check fails.
def bad(field: str, message: str) -> None:
    """IllegalPositionError naming the JSON field at fault."""
    raise IllegalPositionError(f"{field}: {message}")


def check(condition: Any, field: str, message: str) -> None:
    """IllegalPositionError naming the JSON field at fault unless `condition` holds."""
    if not condition:
        bad(field, message)


PER_SEAT = ("n_herd", "herd_val", "champion", "corrals_open", "corrals_used", "sneaked",
            "corral_val", "kept", "recv")


def _check_seats(f: Dict[str, Any], n: int) -> None:
    """n different Khans; the seats of the Khans with abilities; nothing at absent seats."""
    khans = f["khan"][:n]
    if not (all(0 <= k < core.N_KHANS for k in khans) and len(set(khans)) == n):
        bad("khans", f"{n} different Khans, not {khans}")
    for name, k in SPECIAL_SEATS:
        if f[name] != (khans.index(k) if k in khans else -1):
            bad("khans", f"the seat of the {KHAN_TITLES[k]} is {f[name]}")
    for p in range(n, 5):
        if f["khan"][p] or any(f[key][p] for key in PER_SEAT) or any(f["herd"][p]) \
                or any(f["corral"][p]):
            bad("player_state", f"seat {p} holds something in a {n}-player game")


def _check_decks(f: Dict[str, Any]) -> List[int]:
    """Every deck holds at most 8 cards of the 7 types, and the deck masks and counts agree.
    Returns each deck's cards as a tally."""
    nonempty = 0
    tallies = []
    for d, size in enumerate(f["ndeck"]):
        if not 0 <= size <= core.DECK_SIZE:
            bad(f"decks[{d}].cards", f"a deck holds 0 to 8 cards, not {size}")
        cards = f["deck"][d][:size]
        if cards and (min(cards) < 0 or max(cards) >= core.N_TYPES):
            bad(f"decks[{d}].cards", "not a card type")
        tallies.append(tally(cards))
        nonempty |= (size > 0) << d
    check(f["nonempty"] == nonempty, "decks", "the non-empty decks are not those with cards")
    check(f["top_known"] & ~nonempty == 0, "decks", "an empty deck has no known top")
    check(f["cards_left"] == sum(f["ndeck"]), "decks", "the cards left are not the decks' cards")
    return tallies


def _check_face_down(f: Dict[str, Any], n: int) -> None:
    """Sable's face-down cards: each a Raid! card of a deck, within the bound the others know,
    those in the herd the newest and bounded in age order; no bound before any Stampede!;
    as many as Sable's Raid! cards of each value in each place allow."""
    count, sable = f["n_slots"], f["sable"]
    check(0 <= count <= core.MAX_SLOTS, "sable_face_down", f"{count} face-down cards")
    if sable < 0:
        check(count == 0, "sable_face_down", "face-down cards without the Sable Nation")
        return
    slots = f["slot"][:count]
    herd_caps = []
    stampedes = f["box"][core.T_STAMP]
    for i, sl in enumerate(slots):
        deck, tier, cap, loc = sl["deck"], sl["tier"], sl["cap"], sl["loc"]
        if not (0 <= deck < core.N_DECKS and 0 <= loc < len(LOC_KEYS) and 0 <= tier <= 2
                and 0 <= cap <= 2):
            bad(f"sable_face_down[{i}]", "out of range")
        if tier > cap:
            bad(f"sable_face_down[{i}].value", f"{PY_RAID_VALUE[tier]} is above the bound the "
                f"others know ({PY_RAID_VALUE[cap]})")
        if cap < 2 and not stampedes:
            bad(f"sable_face_down[{i}].max", "only a Stampede! bounds a face-down card, and "
                "none was drawn")
        if loc == core.LOC_HERD:
            herd_caps.append(cap)
        elif herd_caps:
            bad(f"sable_face_down[{i}].at", "the face-down cards in the herd are newer than those "
                "corralled or discarded")
    check(herd_caps == sorted(herd_caps), "sable_face_down", "a Stampede! never bounds a newer "
          "face-down card in the herd below an older one")
    hidden = face_down_counts(slots)
    for loc, key in ((core.LOC_HERD, "herd"), (core.LOC_CORRAL, "corral")):
        if any(hidden[loc][t] > f[key][sable][t] for t in range(3)):
            bad(f"player_state[{sable}].{key}", "fewer Raid! cards than its face-down ones")
    face_up = f["n_herd"][sable] + sum(f["corral"][sable]) - sum(hidden[0]) - sum(hidden[1])
    given = sum(f["recv"][:n]) - f["recv"][sable]
    known_tops = 2 * max(0, impala_uses(f))  # each use leaves at most 2 tops all know
    if face_up > given + known_tops:
        bad(f"player_state[{sable}].herd", f"the Sable Nation draws its Raid! cards face down: "
            f"its {face_up} face-up ones came from thefts (it gave at most {given} blessings) "
            f"or from tops the Impala People revealed (at most {known_tops})")
    if any(hidden[core.LOC_BOX][t] > f["box"][t] for t in range(3)):
        bad("box_face_down", "more face-down cards in the box than Raid! cards")
    _check_bounds_shown(f, slots, hidden)


def _check_bounds_shown(f: Dict[str, Any], slots: List[Dict[str, int]],
                        hidden: List[List[int]]) -> None:
    """What set the bounds is in the box: each Stampede! shows one value and discards that card
    face up (so there are no more bound values than Stampede!s, and each has its card), and
    only Enemy Magic or infighting (two Tribal Champions) discards face-down cards
    (docs/rules/khan_of_khans.md, 4 and 6)."""
    box = f["box"]
    bounds = sorted({sl["cap"] for sl in slots if sl["cap"] < 2})
    if len(bounds) > box[core.T_STAMP]:
        bad("sable_face_down", f"bounds of {len(bounds)} values, but a Stampede! shows one and "
            f"{box[core.T_STAMP]} {'was' if box[core.T_STAMP] == 1 else 'were'} drawn")
    for cap in bounds:
        if box[cap] - hidden[core.LOC_BOX][cap] < 1:
            bad("sable_face_down", f"a card bounded at {PY_RAID_VALUE[cap]} needs the Raid! "
                f"{PY_RAID_VALUE[cap]} the Stampede! showed, face up in the box")
    if sum(hidden[core.LOC_BOX]) and not (box[core.T_MAGIC] or box[core.T_CHAMP] >= 2):
        bad("box_face_down", "face-down cards reach the box only by Enemy Magic or infighting "
            "(two Tribal Champions), and neither is in the box")


def _check_holdings(f: Dict[str, Any], n: int) -> None:
    """Herds, corrals, champions and blessings: counts, totals and corral tiles."""
    for p in range(n):
        herd, corral = f["herd"][p], f["corral"][p]
        h20, h50, h100 = herd
        c20, c50, c100 = corral
        if min(herd) < 0 or f["n_herd"][p] != h20 + h50 + h100 \
                or f["herd_val"][p] != 20 * h20 + 50 * h50 + 100 * h100:
            bad(f"player_state[{p}].herd", "the herd's count and value do not add up")
        if min(corral) < 0 or f["corral_val"][p] != 20 * c20 + 50 * c50 + 100 * c100:
            bad(f"player_state[{p}].corral", "the corral's count and value do not add up")
        if f["champion"][p] not in (0, 1):
            bad(f"player_state[{p}].champion", "at most one Tribal Champion")
        if f["kept"][p] < 0 or f["recv"][p] < 0:
            bad(f"player_state[{p}]", "a negative number of blessings")
        used, free = f["corrals_used"][p], f["corrals_open"][p]
        want = tiles(n, f["khan"][p])
        if used < 0 or free < 0 or used + free != want:
            bad(f"player_state[{p}].corrals_used", f"{KHAN_TITLES[f['khan'][p]]} has {want} "
                f"corral tiles, not {used} used + {free} open")
        sneaked = f["sneaked"][p]
        if not 0 <= sneaked <= used or (sneaked and p != f["llama"]):
            bad(f"player_state[{p}].sneaked", "only the High Llama Tribe sneaks, one extra card "
                "per used corral")
        cards = c20 + c50 + c100
        if cards < used + sneaked or (cards == 0) != (used == 0):
            bad(f"player_state[{p}].corral", f"{used} used corrals and {sneaked} sneaked cards "
                f"hold at least {used + sneaked} Raid! cards, not {cards}")


def _check_conservation(f: Dict[str, Any], n: int, in_decks: List[int]) -> None:
    """Each deck started with its 8 cards; the 80 cards are each in exactly one place."""
    face_down = [0] * core.N_DECKS
    for sl in f["slot"][:f["n_slots"]]:
        face_down[sl["deck"]] += BYTE[sl["tier"]]
    for d in range(core.N_DECKS):
        out_of_it = in_decks[d] + face_down[d]           # still in it, or face down from it
        if above_a_fresh_deck(out_of_it):
            t = next(t for t in ALL_TYPES if count_of(out_of_it, t) > PY_DECK_COUNT[t])
            bad(f"decks[{d}]", f"{DECK_KEYS[d]} started with {PY_DECK_COUNT[t]} {TYPE_KEYS[t]}, "
                f"not {count_of(out_of_it, t)} (in the deck and face down)")
    if min(f["box"]) < 0:
        bad("box", "a negative count")
    if f["box"][core.T_BLESS]:
        bad("box.blessing", "a Waha's Blessing is never discarded: it is kept or given")
    _check_discarded_raids(f["box"])
    _check_discarded_champions(f["box"], any(f["corrals_used"][:n]))
    in_all_decks = sum(in_decks)
    total = [count_of(in_all_decks, t) + f["box"][t] for t in ALL_TYPES]
    for p in range(n):
        for t in range(3):                       # face-down cards included
            total[t] += f["herd"][p][t] + f["corral"][p][t]
        total[core.T_CHAMP] += f["champion"][p]
        total[core.T_BLESS] += f["kept"][p] + f["recv"][p]
    total[core.T_BLESS] += f["pending_bless"]
    for t in ALL_TYPES:
        want = PY_DECK_COUNT[t] * core.N_DECKS
        if total[t] != want:
            bad("box", f"the game has {want} {TYPE_KEYS[t]} cards, not {total[t]} (decks, herds, "
                "corrals, champions, blessings and box)")


def _check_discarded_raids(box: List[int]) -> None:
    """Raid! cards reach the box only by a Stampede! (one card each), Enemy Magic without a
    champion or infighting (a herd; the Bison Riders lose one card) (rules 4). Without a magic
    card and with fewer than two champions in the box (one may be a corral's), neither of the
    last two has happened: at most one Raid! card per Stampede!."""
    raids, stampedes = sum(box[:3]), box[core.T_STAMP]
    if box[core.T_MAGIC] == 0 and box[core.T_CHAMP] < 2 and raids > stampedes:
        bad("box", f"{raids} Raid! cards in the box, but nothing drawn discards more than "
            f"the {stampedes} Stampede! cards there do (one each)")


def _check_discarded_champions(box: List[int], corralled: bool) -> None:
    """Tribal Champions reach the box two by infighting, one with an Enemy Magic or one by its
    owner's corral (rules 4): without either of the last two, they come in pairs."""
    if box[core.T_MAGIC] == 0 and not corralled and box[core.T_CHAMP] % 2:
        bad("box", f"{box[core.T_CHAMP]} Tribal Champions in the box: with no Enemy Magic there "
            "and no corral used, only infighting discards them, two at a time")


def _check_phase(f: Dict[str, Any], n: int) -> None:
    """The phase fits the seat to move, the decks left and the pending blessing."""
    phase, actor = f["phase"], f["actor"]
    check(f["pending_bless"] == (phase == core.PH_BLESS), "pending_blessing",
          "a drawn blessing waits exactly in the blessing phase")
    if phase == core.PH_OVER:
        check(actor == -1, "to_move", "nobody moves once the game is over")
        check(f["cards_left"] == 0, "phase", "the game ends when every deck is empty")
        return
    check(0 <= actor < n, "to_move", f"seat {actor} is not in the game")
    if phase == core.PH_BLESS:
        check(any(f["n_herd"][q] for q in range(n) if q != actor), "phase", "a blessing drawn "
              "with nobody to steal from is kept at once")
    else:
        check(f["cards_left"] > 0, "phase", "every deck is empty: the game is over")
    if phase not in (core.PH_REVEAL, core.PH_PICK):
        check(f["revealed"] == 0, "revealed", "decks are revealed only by the Impala People's "
              "ability (phases reveal and pick)")


def impala_uses(f: Dict[str, Any]) -> int:
    """How many times the Impala People can have used their ability (each use needs a corral
    since the last one, and turns the token brown); 0 without them."""
    impala = f["impala"]
    return f["corrals_used"][impala] - f["impala_token"] if impala >= 0 else 0


def _check_impala(f: Dict[str, Any]) -> None:
    """The Impala token and the tops everyone knows fit what the Impala People can have done:
    the token turns coloured only by corralling, each use of the ability turns it brown and
    leaves at most 2 known tops, a reveal is of at most 3 decks."""
    impala, phase = f["impala"], f["phase"]
    token, known, revealed = f["impala_token"], f["top_known"], f["revealed"]
    corrals = f["corrals_used"][impala] if impala >= 0 else 0
    check(token in (0, 1) and (token == 0 or corrals > 0), "impala_token",
          "the token turns coloured only when the Impala People corral")
    uses = impala_uses(f)
    in_ability = phase in (core.PH_REVEAL, core.PH_PICK)
    if in_ability:
        check(f["actor"] == impala and token == 0 and uses >= 1, "phase",
              "only the Impala People reveal, after turning their token brown")
        check(revealed & ~known == 0 and revealed & ~f["nonempty"] == 0, "revealed",
              "a revealed deck's top is known to everyone")
        count = popcount(revealed)
        if phase == core.PH_REVEAL:
            check(count < core.IMPALA_REVEAL and f["nonempty"] & ~revealed, "revealed",
                  "after three reveals, or with no deck left to reveal, the Impala People pick")
        else:
            check(0 < count <= core.IMPALA_REVEAL, "revealed", "the Impala People pick one of "
                  "1 to 3 revealed cards")
    earlier = popcount(known & ~revealed)
    most = 2 * max(0, uses - in_ability)
    check(earlier <= most, "decks", f"{earlier} tops are known, but the Impala People's "
          f"{max(0, uses - in_ability)} finished use(s) of their ability leave at most {most}")


def _check_turn(f: Dict[str, Any], n: int) -> None:
    """The turn counter fits what happened: a turn is a draw, a corral, a sneak or the use of a
    kept blessing; the seat to move is the turn's, clockwise from the first seat."""
    turn = f["turn"]
    drawn = N_CARDS - f["cards_left"] - (1 if f["phase"] == core.PH_BLESS else 0)
    quiet = sum(f["corrals_used"][:n]) + sum(f["sneaked"][:n])
    given = sum(f["recv"][:n])             # some of them were kept blessings used as a turn
    if not drawn + quiet <= turn <= drawn + quiet + given:
        bad("turn", f"{turn} turns finished, but the {drawn} cards drawn and the {quiet} corrals "
            f"and sneaks take {drawn + quiet}, and kept blessings used at most {given} more")
    if f["phase"] != core.PH_OVER:
        seat = (first_seat(f["khan"][:n]) + turn) % n
        if f["actor"] != seat:
            bad("to_move", f"after {turn} turns seat {seat} is to move, not {f['actor']}")
