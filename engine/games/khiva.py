"""Khiva's Python half: notation, JSON (full states and seat views), the checks that make a
loaded position one the rules can reach and play, rendering and narration.

The rules and the C state live in cext/khiva.pyx (`KhivaCore`). This module reads that state
through `_fields()` and writes it only through `_set_fields()`, after the JSON passed the
published schema (docs/views/khiva.schema.json, khiva.state.schema.json); `check_invariants`
then decides whether the result is a position of Khiva before any rule runs on it. Narration
reads the camel activations from the core's event log (`events()`, the LOG_* entries).
"""
from __future__ import annotations

import copy
import functools
import itertools
from typing import Any, Dict, List, Optional, Tuple

from cext import khiva as core
from cext.core import GameCore, move_arg, move_kind, stable_hash
from cext.khiva import COLOUR_LETTERS, COLOUR_NAMES, PY_GEM_ICONS, PY_SALT, PY_TEAPOTS, KhivaCore
from engine.games.base import CheckedGame, field_property
from engine.validation import IllegalPositionError, ViewError, fail, place_hidden

PHASES = {core.PH_CHOOSE: "choose", core.PH_BOOST: "boost", core.PH_SHOP4: "shop4",
          core.PH_OVER: "over"}
PHASE_OF = {name: ph for ph, name in PHASES.items()}
ALL_CARDS = (1 << core.N_CARDS) - 1
ALL_CARPETS = (1 << core.N_CARPETS) - 1
SHOP4_CHOICES = ("carpet", "salt")                  # by core.SHOP_CARPET, SHOP_SALT

# Keys a client may leave out: the loader recomputes them, and checks them when they are given.
DERIVED = frozenset({"duel", "deal", "aside_down_count", "teapot_pile_count",
                     "carpet_pile_count", "gem_supply", "end_triggered", "hand_size",
                     "has_chosen", "score"})


# ================================================================ notation
# Travel cards and carpets are both written colour letter + value: W4 = the white 4 (colours
# W B G P K = white, blue, green, pink, black). A card id is colour * 5 + value - 1 (values
# 1-5), a carpet id colour * 3 + value - 3 (values 3-5).
CARD, CARPET = ("card", 5, 1), ("carpet", 3, 3)     # (name, values per colour, lowest value)


def token_text(kind: Tuple[str, int, int], token: int) -> str:
    _, per, low = kind
    return f"{COLOUR_LETTERS[token // per]}{token % per + low}"


def parse_token(kind: Tuple[str, int, int], text: str) -> int:
    """The id of a card or carpet written as `text`; ViewError if it is none."""
    name, per, low = kind
    t = text.strip().upper() if isinstance(text, str) else ""
    if len(t) != 2 or t[0] not in COLOUR_LETTERS or t[1] not in "123456789"[low - 1:low - 1 + per]:
        raise ViewError(f"bad {name} {text!r}: expected a colour letter (WBGPK) and a value "
                        f"{low}-{low + per - 1}")
    return COLOUR_LETTERS.index(t[0]) * per + int(t[1]) - low


def tokens_list(kind: Tuple[str, int, int], mask: int) -> List[str]:
    """The cards or carpets of a bit mask, by id."""
    return [token_text(kind, i) for i in range(core.N_COLOURS * kind[1]) if mask >> i & 1]


def tokens_mask(kind: Tuple[str, int, int], texts: List[str]) -> int:
    mask = 0
    for t in texts:
        mask |= 1 << parse_token(kind, t)
    return mask


card_text, parse_card, cards_list, cards_mask = (
    functools.partial(f, CARD) for f in (token_text, parse_token, tokens_list, tokens_mask))
carpet_text, parse_carpet, carpets_list, carpets_mask = (
    functools.partial(f, CARPET) for f in (token_text, parse_token, tokens_list, tokens_mask))


def path_pos(player: int, space: int) -> int:
    """The track position of `space` (1-4 shops, 5 the outpost) on `player`'s path."""
    return 1 + player * core.PATH_LEN + space - 1


def pos_text(pos: int) -> str:
    """'khiva', or 'P<player>.<space>' with spaces 1-4 the shops and 5 the outpost."""
    if pos == core.KHIVA:
        return "khiva"
    return f"P{(pos - 1) // core.PATH_LEN}.{(pos - 1) % core.PATH_LEN + 1}"


def parse_pos(text: str, n: int, path: tuple) -> int:
    if text == "khiva":
        return core.KHIVA
    player, space = int(text[1]), int(text[3])     # the schema fixed the form P<d>.<d>
    if player >= n:
        fail(path, f"{text!r}: there is no seat {player} in a {n}-player game")
    return path_pos(player, space)


def choice_of(move: int) -> Tuple[List[int], List[int]]:
    """The cards a CHOOSE move plays and the cards it gives."""
    play1, play2, give1, give2 = core.choice_cards(move_arg(move))
    return ([c for c in (play1, play2) if c != core.NONE],
            [c for c in (give1, give2) if c != core.NONE])


def move_text(move: int) -> str:
    """The move's notation; `?<int>` for an int that is no move of Khiva."""
    kind, arg = move_kind(move), move_arg(move)
    if kind == core.MV_CHOOSE and arg < core.CHOICE_ARG_END:
        play1, play2, give1, give2 = core.choice_cards(arg)
        if max(play1, give1) < core.N_CARDS and all(c < core.N_CARDS or c == core.NONE
                                                    for c in (play2, give2)):
            play, give = choice_of(move)
            return ("play-" + "-".join(card_text(c) for c in play) + "-give-"
                    + "-".join(card_text(c) for c in give))
    if kind == core.MV_BOOST:
        return f"boost-{arg}"
    if kind == core.MV_SHOP4 and arg < len(SHOP4_CHOICES):
        return SHOP4_CHOICES[arg]
    return f"?{move}"


def gems_text(paid: int) -> str:
    """Gems paid: '+1 gem', '+2 gems', or '+0 gems (none left)' when the supply was empty."""
    return f"+{paid} gem{'' if paid == 1 else 's'}" + (" (none left)" if paid == 0 else "")


def reward_text(kind: int, value: int) -> str:
    """What a LOG_REWARD entry (REWARD_* kind, value) earned."""
    if kind == core.REWARD_GEMS:
        return gems_text(value)
    if kind == core.REWARD_CARPET:
        return f"carpet {carpet_text(value)}"
    if kind == core.REWARD_SALT:
        return f"salt {value}"
    if kind == core.REWARD_OUTPOST:
        return f"teapot {value}" if value else "outpost (no teapot)"
    return ""


# ================================================================ the shape of a turn
def per_turn(n: int) -> int:
    """Cards played (and given) by each seat per turn: 2 in the duel, 1 otherwise."""
    return 2 if n == 2 else 1


def hand_start(n: int) -> int:
    return core.DUEL_HAND_START if n == 2 else core.HAND_START


def turns_per_deal(n: int) -> int:
    """Turns between two deals: hands shrink by per_turn cards a turn down to the kept ones."""
    keep = core.DUEL_HAND_KEEP if n == 2 else core.HAND_KEEP
    return (hand_start(n) - keep) // per_turn(n)


def aside_down_size(n: int) -> int:
    return core.N_CARDS - n * hand_start(n) - (core.DUEL_ASIDE_UP if n == 2 else 0)


def turn_shape(n: int, turn: int, phase: int) -> Dict[str, int]:
    """What the turn counter implies: the deal number, the hand size at the start of the
    current (or, once over, the last) turn, and the cards discarded since the deal."""
    played_turn = turn - 1 if phase == core.PH_OVER else turn
    into = played_turn % turns_per_deal(n)
    revealed = into + (0 if phase == core.PH_CHOOSE else 1)
    return {"deal": played_turn // turns_per_deal(n) + 1,
            "hand": hand_start(n) - into * per_turn(n),
            "discard": n * per_turn(n) * revealed}


def all_places(n: int, observer: int) -> int:
    """Every place a card unknown to `observer` could be: other hands and the aside cards."""
    return ((1 << n) - 1) & ~(1 << observer) | (1 << core.ASIDE_LOC)


# ================================================================ the game API
class Khiva(CheckedGame, KhivaCore):
    """A Khiva position. `Khiva(players=3, seed=0)` deals a new game (2 players: duel mode).

    The rules are the C core's; this class adds notation, JSON, views, text and checks."""

    DERIVED = DERIVED
    SEAT_LISTS = ("player_state", "whereabouts_by_seat", "joint_whereabouts_by_seat")
    DEFAULTED = frozenset({"seed", "whereabouts_by_seat",    # default: nothing learned yet
                           "joint_whereabouts_by_seat"})

    PHASES = {**PHASES, core.PH_ACTIVATE: "activate"}    # activate: only inside a move

    turn = field_property("turn", "Turns finished so far.")

    # ------------------------------------------------------------ writing JSON
    def to_json(self, view: Optional[int] = None) -> Dict[str, Any]:
        """The full state, or (view = a seat) what that seat knows: hidden parts left out."""
        if view is not None:
            self._check_player(view)
        f = self._fields()
        n = f["n"]
        scores = self.scores()
        players = []
        for p in range(n):
            d = {
                "gems": f["gems"][p],
                "teapots": f["teapot_count"][p], "teapot_points": f["teapot_points"][p],
                "salt_points": f["salt_points"][p], "salt_best": f["salt_best"][p],
                "carpets_held": carpets_list(f["carpets_held"][p]),
                "carpets_delivered": carpets_list(f["carpets_scored"][p]),
                "hand_size": bin(f["hand"][p]).count("1"),
                "has_chosen": bool(f["sel_play"][p]),
                "played": cards_list(f["played"][p]),
                "score": scores[p],
            }
            if view is None or p == view:
                d["hand"] = cards_list(f["hand"][p])
                d["chosen_play"] = cards_list(f["sel_play"][p])
                d["chosen_give"] = cards_list(f["sel_give"][p])
            players.append(d)
        out = {
            "game": "khiva", "players": n, "duel": bool(f["duel"]), "seed": self.seed,
            "turn": f["turn"], "deal": f["deal_round"], "phase": self.phase,
            "to_move": self.to_move,
            "camels": [{"colour": COLOUR_NAMES[c], "at": pos_text(f["camel_pos"][c]),
                        "teapot": f["camel_teapot"][c]} for c in range(core.N_COLOURS)],
            "discard": cards_list(f["discard"]), "aside_up": cards_list(f["aside_up"]),
            "aside_down_count": bin(f["aside_down"]).count("1"),
            "teapot_pile_count": f["n_teapots"], "carpet_pile_count": f["n_carpets"],
            "salt_pile": list(PY_SALT[core.N_SALT - f["n_salt"]:]),
            "gem_supply": f["gem_supply"], "end_triggered": bool(f["end_triggered"]),
            "player_state": players,
        }
        if f["phase"] in (core.PH_BOOST, core.PH_SHOP4):
            out["pending"] = {"player": f["act_player"], "card": card_text(f["act_card"]),
                              "camel": COLOUR_NAMES[f["act_camel"]]}
        if view is None:
            out["aside_down"] = cards_list(f["aside_down"])
            out["teapot_pile"] = f["teapots"][:f["n_teapots"]]
            out["carpet_pile"] = [carpet_text(c) for c in f["carpets"][:f["n_carpets"]]]
            out["whereabouts_by_seat"] = [self.whereabouts(f, o) for o in range(n)]
            joint = [joint_whereabouts(f, o) for o in range(n)]
            if any(joint):
                out["joint_whereabouts_by_seat"] = joint
            return out
        del out["seed"]                            # the deal seed would give away every card
        out["view"] = view
        out["card_whereabouts"] = self.whereabouts(f, view)
        joint = joint_whereabouts(f, view)
        if joint:
            out["joint_whereabouts"] = joint
        # public by counting: what is left in the face-down teapot pile
        out["teapot_pile_contents"] = sorted(f["teapots"][:f["n_teapots"]])
        return out

    @staticmethod
    def whereabouts(f: Dict[str, Any], o: int) -> Dict[str, list]:
        """What seat o learned: the places each card it cannot see may be, where not anywhere."""
        n = f["n"]
        places = all_places(n, o)
        seen = f["hand"][o] | f["sel_play"][o] | f["sel_give"][o] | f["discard"] | f["aside_up"]
        known = {}
        for c in range(core.N_CARDS):
            w = f["where"][o][c]
            if not seen >> c & 1 and w & places != places:
                known[card_text(c)] = [q for q in range(n) if w >> q & 1] + (
                    ["aside"] if w >> core.ASIDE_LOC & 1 else [])
        return known

    # ------------------------------------------------------------ reading JSON
    def _adopt_view(self, v: Dict[str, Any]) -> None:
        """Information hashes of seat o as the view gives them (no history)."""
        f = self._fields()
        n, o = f["n"], v["view"]
        public = stable_hash({k: x for k, x in v.items()
                              if k not in ("card_whereabouts", "joint_whereabouts", "view")})
        mine = v["player_state"][o]
        known = [{k: mine[k] for k in ("hand", "chosen_play", "chosen_give")},
                 v["card_whereabouts"]]
        if "joint_whereabouts" in v:                  # left out: the hash it always had
            known.append(v["joint_whereabouts"])
        private = stable_hash(known)
        f["ih"]["public"] = public
        f["ih"]["n_public"] = 0
        for a in range(n):
            for b in range(n):
                f["ih"]["pair"][a][b] = stable_hash([public, a, b])
        f["ih"]["pair"][o][o] = private
        self._set_fields(f)

    # ------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        """IllegalPositionError (a ValueError) unless this is a position of Khiva: every
        component in exactly one place, the hands, piles and choices the turn counter and the
        phase imply, counts conserved, and every index the rules read in range."""
        f = self._fields()
        n = f["n"]
        check(2 <= n <= 5 and f["duel"] == (n == 2) and f["per_turn"] == per_turn(n),
              "players", f"a Khiva game has 2 to 5 players, not {n}")
        check(f["phase"] in PHASES, "phase", f"no phase {f['phase']}")
        phase = f["phase"]
        check(0 <= f["turn"] <= 10000 and (f["turn"] > 0 or phase != core.PH_OVER), "turn",
              f"{f['turn']} is out of range")
        shape = turn_shape(n, f["turn"], phase)
        check(f["deal_round"] == shape["deal"], "deal",
              f"turn {f['turn']} is in deal {shape['deal']}, not {f['deal_round']}")
        _check_ranges(f, n)
        _check_cards(f, n, phase, shape)
        _check_camels(f, n)
        _check_actor(f, n, phase)              # after the camels: a boost reads their route
        _check_tokens(f, n, phase)
        _check_opening(f, n, phase)
        _check_knowledge(f, n)

    def _settle(self) -> None:
        """After a load wrote the fields: each seat's joint knowledge and masks made to agree
        (a seat given none rebuilds it from its masks: cext/khiva.pyx, _settle_joint)."""
        self._settle_joint()

    # ------------------------------------------------------------ text
    def render(self, viewer: Optional[int] = None) -> str:
        """The position as text (everything, or as `viewer` sees it)."""
        d = self.to_json(viewer)
        lines = [f"Khiva, {d['players']} players{' (duel)' if d['duel'] else ''}, turn {d['turn']}, "
                 f"phase {d['phase']}, to move: {d['to_move']}"]
        lines.append("camels: " + ", ".join(f"{c['colour']}@{c['at']}(teapot {c['teapot']})"
                                             for c in d["camels"]))
        lines.append(f"piles: teapots {d['teapot_pile_count']}, carpets {d['carpet_pile_count']}, "
                     f"salt {d['salt_pile']}; gems in supply {d['gem_supply']}")
        for p, ps in enumerate(d["player_state"]):
            hand = " ".join(ps["hand"]) if "hand" in ps else f"{ps['hand_size']} cards"
            lines.append(f"  P{p}: score {ps['score']:3d}  gems {ps['gems']:2d}  teapots {ps['teapots']}"
                         f" ({ps['teapot_points']})  salt {ps['salt_points']}  carpets "
                         f"{' '.join(ps['carpets_held']) or '-'} / delivered "
                         f"{' '.join(ps['carpets_delivered']) or '-'}  hand: {hand}")
        if viewer is not None:
            lines.extend(knowledge_lines(d))
        return "\n".join(lines)

    def narrate(self, before: GameCore, player: int, move: int,
                viewer: Optional[int] = None) -> List[str]:
        """A turn's choices when they are revealed, then each camel move with its reward and
        compensation gems, then the scores when the turn is over (see GameCore.narrate). A
        seat's gift shows only to its giver and its receiver."""
        self._check_narration(before, player, move, viewer)
        lines = []
        entries = self.events(since=before.event_count)
        if move_kind(move) == core.MV_CHOOSE:
            if self.turn == before.turn and self.phase == "choose":
                return []                          # still hidden: nobody has revealed yet
            d = before.to_json()
            choices = []
            n = self.n_players
            for p in range(n):
                ps = d["player_state"][p]
                play, give = ps["chosen_play"], ps["chosen_give"]
                if p == player:
                    play, give = ([card_text(c) for c in cards] for cards in choice_of(move))
                if viewer is not None and viewer not in (p, (p + 1) % n):
                    give = ["??"] * len(give)       # a gift is seen by its giver and receiver
                choices.append(f"P{p} play-" + "-".join(play) + "-give-" + "-".join(give))
            lines.append(f"turn {before.turn + 1}: " + "  ".join(choices))
        else:
            # the activation this move completes began in an earlier move: its entries so far
            # are the last one (a boost pending) or two (a shop 4 choice pending) of `before`
            written = 1 if move_kind(move) == core.MV_BOOST else 2
            begun = before.events(since=max(0, before.event_count - written))
            if begun and begun[0][0] == core.LOG_ACTIVATE:
                entries = begun + entries
        acts = activations(entries, self.n_players)
        complete = len(acts) - (1 if self.phase in ("boost", "shop4") else 0)
        for a in acts[:complete]:
            boost = f" +{a['boost']} gem boost" if a["boost"] else ""
            line = (f"    {a['camel']:<5} camel: P{a['player']} ({a['card']}{boost}) "
                    f"{a['from']} -> {a['to']}  {a['reward']}").rstrip()
            if a["refused"]:
                line += "  [rejected: " + ", ".join(
                    f"P{p}{' twice' if times == 2 else ''} {gems_text(paid)}"
                    for p, times, paid in a["refused"]) + "]"
            lines.append(line)
        if self.phase in ("choose", "over"):
            lines.append("    scores: " + "  ".join(f"P{p} {v}" for p, v in enumerate(self.scores())))
        return lines


# a refused seat's digit -> (requests refused, gems paid), from the core's own encoding
REFUSAL_CODES = {core.refusal_code(r, g): (r, g) for r in (1, 2) for g in range(r + 1)}


def refusals(c: int, n: int) -> List[Tuple[int, int, int]]:
    """(seat, requests refused, gems paid for them) of each refused seat, from LOG_ACTIVATE's
    c: a base-6 digit a seat (cext/khiva.pyx, refusal_code); the gems paid fall short of the
    refusals when the supply runs out (docs/rules/khiva.md, 5)."""
    out = []
    for p in range(n):
        code = c // 6 ** p % 6
        if code:
            out.append((p, *REFUSAL_CODES[code]))
    return out


def activations(entries: List[tuple], n: int) -> List[Dict[str, Any]]:
    """The camel activations told by narration log entries (kind, player, a, b, c), in order;
    entries of an activation whose LOG_ACTIVATE is not among them are left out."""
    out: List[Dict[str, Any]] = []
    for kind, player, a, b, c in entries:
        if kind == core.LOG_ACTIVATE:
            out.append({"camel": COLOUR_NAMES[a], "player": player, "card": card_text(b),
                        "boost": 0, "from": None, "to": None, "reward": "",
                        "refused": refusals(c, n)})
        elif out and kind == core.LOG_CAMEL_MOVED:
            out[-1].update({"from": pos_text(a), "to": pos_text(b), "boost": c})
        elif out and kind == core.LOG_REWARD:
            out[-1]["reward"] = reward_text(a, b)
    return out


# ================================================================ joint knowledge
# A seat's joint knowledge (cext/khiva.pyx, KhivaState.jn ... jset): the cards it gave away and
# has not seen since, and the placements of them (one seat per card) that fit all it saw. The
# C code of a placement gives card i the seat (o + 1 + (code >> 2i & 3)) % n.
JOINT_CARDS, JOINT_SETS = core.JOINT_CARDS, core.JOINT_SETS

Joint = Tuple[List[int], List[Tuple[int, ...]]]     # card ids, placements (a seat per card)


def joint_seat(n: int, o: int, code: int, i: int) -> int:
    """The seat placement `code` of seat o gives its card i."""
    return (o + 1 + (code >> 2 * i & 3)) % n


def joint_code(n: int, o: int, seats: Tuple[int, ...]) -> int:
    """The C code of seat o's placement `seats` (a seat other than o per card)."""
    return sum((q - o - 1) % n << 2 * i for i, q in enumerate(seats))


def joint_of_fields(f: Dict[str, Any], o: int) -> Joint:
    """Seat o's joint knowledge in the C fields: its cards and placements, in the C order
    (cards by id, placements by code: the core keeps them sorted)."""
    n, k = f["n"], f["jn"][o]
    cards = list(f["jcard"][o][:k])
    codes = f["jset"][o][:f["jm"][o]]
    placements = [tuple(joint_seat(n, o, a, i) for i in range(k)) for a in codes]
    return cards, placements


def is_binding(placements: List[Tuple[int, ...]], k: int) -> bool:
    """Whether placements of k cards say more than each card's seats alone: fewer of them
    than the product of the number of seats each card has in them."""
    product = 1
    for i in range(k):
        product *= len({p[i] for p in placements})
    return k > 0 and len(placements) < product


def joint_whereabouts(f: Dict[str, Any], o: int) -> Optional[Dict[str, list]]:
    """Seat o's joint knowledge as JSON (`{"cards": [...], "placements": [[seat, ...], ...]}`,
    in the C order), or None when it binds nothing beyond the per-card whereabouts."""
    if f["jlost"][o]:
        return None
    cards, placements = joint_of_fields(f, o)
    if not is_binding(placements, len(cards)):
        return None
    return {"cards": [card_text(c) for c in cards], "placements": [list(p) for p in placements]}


def knowledge_lines(view: Dict[str, Any]) -> List[str]:
    """What the viewing seat knows of cards it cannot see, for a player reading the board:
    each card's possible places and, where it binds, which of them go together."""
    places = view["card_whereabouts"]
    if not places:
        return []

    def where(q: Any) -> str:
        return "set aside" if q == "aside" else f"P{q}"

    text = "; ".join(f"{card} with {' or '.join(where(q) for q in qs)}"
                     for card, qs in places.items())
    lines = [f"  you know: {text}"]
    joint = view.get("joint_whereabouts")
    if joint:
        ways = [" + ".join(f"{c} P{q}" for c, q in zip(joint["cards"], p))
                for p in joint["placements"]]
        shown = ", or ".join(ways[:4]) + (f", or {len(ways) - 4} more ways" if len(ways) > 4 else "")
        lines.append(f"  together only: {shown}")
    return lines


def _joint_lengths(joint: Dict[str, Any], path: tuple) -> None:
    """ViewError unless each placement gives one seat per card: the one part of the shape the
    schema (checked before any load) cannot tie together."""
    for j, seats in enumerate(joint["placements"]):
        if len(seats) != len(joint["cards"]):
            fail(path + ("placements", j), f"expected {len(joint['cards'])} seat numbers "
                 "(one per card)")


def _joint_cards(cards: list, o: int, seen: int, path: tuple) -> List[int]:
    """The ids of a joint knowledge's cards: distinct cards seat o cannot see."""
    ids = []
    for i, text in enumerate(cards):
        try:
            c = parse_card(text)
        except ViewError as e:
            fail(path + ("cards", i), str(e))
        if c in ids:
            fail(path + ("cards", i), f"card {text} is listed twice")
        if seen >> c & 1:
            fail(path + ("cards", i), f"seat {o} sees card {text}: it follows no such card")
        ids.append(c)
    return ids


def _joint_placement(seats: list, ids: List[int], n: int, o: int, known: Dict[str, list],
                     holding: Dict[int, int], path: tuple) -> Tuple[int, ...]:
    """One placement, checked: each seat another seat in range, one the card's whereabouts
    allow (a card not in them: any other seat), and no seat with more of the cards than it
    holds hidden cards."""
    for i, q in enumerate(seats):
        if not 0 <= q < n or q == o:
            fail(path + (i,), f"{q!r} is no seat other than seat {o} in a {n}-player game")
        places = known.get(card_text(ids[i]))
        if places is not None and q not in places:
            fail(path + (i,), f"seat {o}'s whereabouts of {card_text(ids[i])} leave out seat {q}",
                 IllegalPositionError)
    for q in set(seats):
        if seats.count(q) > holding[q]:
            fail(path, f"seat {q} holds {holding[q]} hidden cards, not {seats.count(q)}",
                 IllegalPositionError)
    return tuple(seats)


def check_joint(joint: Any, n: int, o: int, seen: int, known: Dict[str, list],
                holding: Dict[int, int], path: tuple) -> Joint:
    """Seat o's joint knowledge as given (JSON, its types already checked by the schema),
    checked for meaning before it reaches the C state: its card ids and placements. `seen`: the cards o sees; `known`: o's per-card
    whereabouts; `holding`: each other seat's hidden cards (hand and chosen cards)."""
    if n == 2:
        fail(path, "a duel keeps no joint knowledge")
    _joint_lengths(joint, path)
    ids = _joint_cards(joint["cards"], o, seen, path)
    placements: List[Tuple[int, ...]] = []
    for j, seats in enumerate(joint["placements"]):
        p = _joint_placement(seats, ids, n, o, known, holding, path + ("placements", j))
        if p in placements:
            fail(path + ("placements", j), f"placement {list(p)} is listed twice")
        placements.append(p)
    return ids, placements


def write_joint(f: Dict[str, Any], o: int, joint: Optional[Joint]) -> None:
    """Seat o's joint knowledge into the C fields; None: given up (jlost), so that the core
    rebuilds it from o's masks (_settle_joint)."""
    cards, placements = joint if joint is not None else ([], [()])
    n = f["n"]
    f["jn"][o] = len(cards)
    f["jm"][o] = len(placements)
    f["jlost"][o] = int(joint is None)
    f["jcard"][o] = cards + [0] * (JOINT_CARDS - len(cards))
    codes = [joint_code(n, o, p) for p in placements]
    f["jset"][o] = codes + [0] * (JOINT_SETS - len(codes))


# ================================================================ JSON -> C fields
def write_fields(f: Dict[str, Any], d: Dict[str, Any]) -> None:
    """Fill the C fields `f` (those of a fresh deal) from the full-state dict `d`."""
    n = d["players"]
    phase = PHASE_OF[d["phase"]]
    f["phase"] = phase
    f["actor"] = d["to_move"]
    f["turn"] = d["turn"]
    f["deal_round"] = turn_shape(n, d["turn"], phase)["deal"]
    for c, cam in enumerate(d["camels"]):
        f["camel_pos"][c] = parse_pos(cam["at"], n, ("camels", c, "at"))
        f["camel_teapot"][c] = cam["teapot"]
    f["discard"] = cards_mask(d["discard"])
    f["aside_up"] = cards_mask(d["aside_up"])
    f["aside_down"] = cards_mask(d["aside_down"])
    f["n_teapots"] = len(d["teapot_pile"])
    f["teapots"] = d["teapot_pile"] + [0] * (core.N_TEAPOTS - len(d["teapot_pile"]))
    f["n_carpets"] = len(d["carpet_pile"])
    f["carpets"] = ([parse_carpet(t) for t in d["carpet_pile"]]
                    + [0] * (core.N_CARPETS - len(d["carpet_pile"])))
    f["n_salt"] = len(d["salt_pile"])
    for p, ps in enumerate(d["player_state"]):
        f["hand"][p] = cards_mask(ps["hand"])
        f["sel_play"][p] = cards_mask(ps["chosen_play"])
        f["sel_give"][p] = cards_mask(ps["chosen_give"])
        f["played"][p] = cards_mask(ps["played"])
        f["gems"][p] = ps["gems"]
        f["teapot_count"][p] = ps["teapots"]
        f["teapot_points"][p] = ps["teapot_points"]
        f["salt_points"][p] = ps["salt_points"]
        f["salt_best"][p] = ps["salt_best"]
        f["carpets_held"][p] = carpets_mask(ps["carpets_held"])
        f["carpets_scored"][p] = carpets_mask(ps["carpets_delivered"])
    f["gem_supply"] = core.GEM_SUPPLY - sum(ps["gems"] for ps in d["player_state"])
    f["end_triggered"] = int(not (f["n_teapots"] and f["n_carpets"] and f["n_salt"]))
    if "pending" in d and phase in (core.PH_BOOST, core.PH_SHOP4):
        f["act_player"] = d["pending"]["player"]
        f["act_card"] = parse_card(d["pending"]["card"])
        f["act_camel"] = COLOUR_NAMES.index(d["pending"]["camel"])
        f["act_stage"] = core.ST_MOVE if phase == core.PH_BOOST else core.ST_NEXT
    elif phase in (core.PH_BOOST, core.PH_SHOP4):
        fail(("pending",), f"missing: phase {d['phase']} waits for a pending activation")
    elif "pending" in d:
        fail(("pending",), f"there is no pending activation in phase {d['phase']}")
    # What each seat learned about the cards it cannot see (anything not listed: anywhere).
    f["where"] = [[all_places(n, o)] * core.N_CARDS for o in range(n)] + \
        [[0] * core.N_CARDS] * (5 - n)
    public = f["discard"] | f["aside_up"]
    for o, known in enumerate(d.get("whereabouts_by_seat", [{}] * n)):
        own = f["hand"][o] | f["sel_play"][o] | f["sel_give"][o]
        for card, places in allowed_places(n, o, own | public, known,
                                           ("whereabouts_by_seat", o)).items():
            f["where"][o][parse_card(card)] = sum(
                1 << (core.ASIDE_LOC if q == "aside" else q) for q in places)
    write_joints(f, d)


def write_joints(f: Dict[str, Any], d: Dict[str, Any]) -> None:
    """Each seat's joint knowledge from `joint_whereabouts_by_seat`, checked; a seat given
    none (null, or the key left out) rebuilds it from its masks once the fields are set."""
    n = d["players"]
    known = d.get("whereabouts_by_seat", [{}] * n)
    holding = {p: popcount(f["hand"][p] | f["sel_play"][p] | f["sel_give"][p]) for p in range(n)}
    public = f["discard"] | f["aside_up"]
    for o, joint in enumerate(d.get("joint_whereabouts_by_seat", [None] * n)):
        if joint is not None:
            own = f["hand"][o] | f["sel_play"][o] | f["sel_give"][o]
            joint = check_joint(joint, n, o, own | public, known[o], holding,
                                ("joint_whereabouts_by_seat", o))
        write_joint(f, o, joint)


# ================================================================ views
def canonical(d: Dict[str, Any]) -> Dict[str, Any]:
    """`d` with its set-like lists in the order to_json writes them (cards and carpets by id,
    places seats first): a client may list a set in any order."""
    out = copy.deepcopy(d)

    def by_card(xs: list) -> list:
        return sorted(xs, key=lambda t: parse_card(t) if isinstance(t, str) else -1)

    def by_carpet(xs: list) -> list:
        return sorted(xs, key=lambda t: parse_carpet(t) if isinstance(t, str) else -1)

    for key in ("discard", "aside_up", "aside_down"):
        if isinstance(out.get(key), list):
            out[key] = by_card(out[key])
    for ps in out.get("player_state", []):
        for key in ("hand", "chosen_play", "chosen_give", "played"):
            if isinstance(ps.get(key), list):
                ps[key] = by_card(ps[key])
        for key in ("carpets_held", "carpets_delivered"):
            if isinstance(ps.get(key), list):
                ps[key] = by_carpet(ps[key])
    if isinstance(out.get("teapot_pile_contents"), list):
        out["teapot_pile_contents"] = sorted(out["teapot_pile_contents"])
    n = out.get("players")
    if "card_whereabouts" in out:
        known = narrowed_by_joint(out["card_whereabouts"], out.get("joint_whereabouts"))
        out["card_whereabouts"] = canonical_whereabouts(known, n, out["view"])
    if "whereabouts_by_seat" in out:
        joints = out.get("joint_whereabouts_by_seat", [None] * len(out["whereabouts_by_seat"]))
        out["whereabouts_by_seat"] = [canonical_whereabouts(narrowed_by_joint(w, j), n, o)
                                      for o, (w, j) in enumerate(zip(out["whereabouts_by_seat"],
                                                                     joints))]
    if "joint_whereabouts" in out:
        joint = canonical_joint(out["joint_whereabouts"], n, out.get("view"))
        if joint is None:
            del out["joint_whereabouts"]
        else:
            out["joint_whereabouts"] = joint
    if isinstance(out.get("joint_whereabouts_by_seat"), list):
        joints = [canonical_joint(j, n, o) for o, j in enumerate(out["joint_whereabouts_by_seat"])]
        if any(joints):
            out["joint_whereabouts_by_seat"] = joints
        else:
            del out["joint_whereabouts_by_seat"]
    return out


def canonical_joint(joint: Any, n: Any, o: Any) -> Any:
    """A joint knowledge as the core keeps it and to_json writes it: cards by id (each
    placement's seats to match), placements by their C code; None if it says nothing beyond
    the per-card seats (to_json leaves it out). Anything malformed is left as given, for the
    checks to name."""
    try:
        order = sorted(range(len(joint["cards"])), key=lambda i: parse_card(joint["cards"][i]))
        cards = [joint["cards"][i] for i in order]
        placements = [tuple(seats[i] for i in order) for seats in joint["placements"]]
        placements.sort(key=lambda seats: joint_code(n, o, seats))
    except (TypeError, KeyError, IndexError, ViewError):
        return joint
    if not is_binding(placements, len(cards)):
        return None
    return {"cards": cards, "placements": [list(p) for p in placements]}


def narrowed_by_joint(known: Dict[str, list], joint: Any) -> Dict[str, list]:
    """Per-card whereabouts narrowed, as the core narrows them on loading, to the seats the
    joint knowledge's placements give each card it follows (the placements, checked, lie
    within them)."""
    if not isinstance(joint, dict):
        return known
    out = dict(known)
    for i, card in enumerate(joint["cards"]):
        out[card] = sorted({seats[i] for seats in joint["placements"]})
    return out


def canonical_whereabouts(known: Dict[str, list], n: int, o: int) -> Dict[str, list]:
    """Seat o's whereabouts as to_json writes them: places seats first, and without the cards
    that may be anywhere hidden (they tell nothing, and to_json leaves them out)."""
    blank = {q for q in range(n) if q != o} | {"aside"}
    return {card: sorted(places, key=lambda q: (q == "aside", str(q)))
            for card, places in known.items() if set(places) != blank}


def allowed_places(n: int, o: int, seen: int, known: Dict[str, list],
                   path: tuple) -> Dict[str, list]:
    """Seat o's whereabouts, checked: only cards o cannot see, only places hidden from o."""
    for card, places in known.items():
        if seen >> parse_card(card) & 1:
            fail(path + (card,), f"seat {o} sees card {card}: it has no whereabouts")
        for q in places:
            if q == o or (q != "aside" and q >= n):
                fail(path + (card,), f"{q!r} is no hidden place of seat {o} in a {n}-player game")
    return known


def full_state_of_view(v: Dict[str, Any]) -> Dict[str, Any]:
    """A full-state dict that fits seat o's view: every card o cannot see placed where o knows
    it may be (a matching, not a search), the piles in a fixed order."""
    n, o = v["players"], v["view"]
    for p, ps in enumerate(v["player_state"]):
        for key in ("hand", "chosen_play", "chosen_give"):
            if p == o and key not in ps:
                fail(("player_state", p), f"missing key {key!r}: the viewer's own cards")
            if p != o and key in ps:
                fail(("player_state", p, key), f"seat {o}'s view cannot hold seat {p}'s cards")
    phase = PHASE_OF[v["phase"]]
    to_move_ok = v["to_move"] == -1 if phase == core.PH_OVER else 0 <= v["to_move"] < n
    if not to_move_ok:
        fail(("to_move",), f"{v['to_move']} is not a seat to move in phase {v['phase']}")
    shape = turn_shape(n, v["turn"], phase)
    k = per_turn(n)
    me = v["player_state"][o]
    mine = cards_mask(me["hand"]) | cards_mask(me["chosen_play"]) | cards_mask(me["chosen_give"])
    seen = mine | cards_mask(v["discard"]) | cards_mask(v["aside_up"])
    unknown = [card_text(c) for c in range(core.N_CARDS) if not seen >> c & 1]
    capacity: Dict[Any, int] = {"aside": aside_down_size(n)}
    chosen = {}
    for p in range(n):
        chosen[p] = phase == core.PH_CHOOSE and p < v["to_move"]
        if p != o:
            held = shape["hand"] if phase == core.PH_CHOOSE else shape["hand"] - k
            capacity[p] = held
    hidden_places = [p for p in range(n) if p != o] + ["aside"]
    allowed = {c: hidden_places for c in unknown}
    allowed.update(allowed_places(n, o, seen, v["card_whereabouts"], ("card_whereabouts",)))
    if sum(capacity.values()) != len(unknown):
        fail(("turn",), f"turn {v['turn']} and phase {v['phase']} leave {sum(capacity.values())} "
             f"cards hidden from seat {o}, but {len(unknown)} are unseen", IllegalPositionError)
    joint = None
    if "joint_whereabouts" in v:
        holding = {p: capacity[p] for p in range(n) if p != o}
        joint = check_joint(v["joint_whereabouts"], n, o, seen, v["card_whereabouts"], holding,
                            ("joint_whereabouts",))
    placed = place_in_a_placement(unknown, capacity, allowed, joint)
    d = copy.deepcopy(v)
    for key in ("view", "card_whereabouts", "teapot_pile_contents", "joint_whereabouts"):
        d.pop(key, None)
    d["whereabouts_by_seat"] = [v["card_whereabouts"] if p == o else {} for p in range(n)]
    if joint is not None:
        d["joint_whereabouts_by_seat"] = [v["joint_whereabouts"] if p == o else None
                                          for p in range(n)]
    for p, ps in enumerate(d["player_state"]):
        if p == o:
            continue
        held = sorted((c for c in unknown if placed[c] == p), key=parse_card)
        ps["chosen_play"], ps["chosen_give"] = ([], [])
        if chosen[p]:
            ps["chosen_play"], ps["chosen_give"], held = held[:k], held[k:2 * k], held[2 * k:]
        ps["hand"] = held
    d["aside_down"] = sorted((c for c in unknown if placed[c] == "aside"), key=parse_card)
    d["teapot_pile"] = list(v["teapot_pile_contents"])
    taken = set()
    for ps in d["player_state"]:
        taken |= set(ps["carpets_held"]) | set(ps["carpets_delivered"])
    d["carpet_pile"] = [carpet_text(c) for c in range(core.N_CARPETS) if carpet_text(c) not in taken]
    return d


def place_in_a_placement(unknown: List[str], capacity: Dict[Any, int],
                         allowed: Dict[str, list], joint: Optional[Joint]) -> Dict[str, Any]:
    """The hidden cards placed where the seat knows they may be (place_hidden) and, if it
    follows cards jointly, with those cards' seats one of its placements: each tried in turn,
    its cards fixed at their seats, the others matched."""
    if joint is None:
        return place_hidden(unknown, capacity, allowed, ("card_whereabouts",))
    cards, placements = joint
    for seats in placements:
        fixed = dict(allowed)
        fixed.update({card_text(c): [q] for c, q in zip(cards, seats)})
        try:
            return place_hidden(unknown, capacity, fixed, ("joint_whereabouts",))
        except IllegalPositionError:
            continue
    fail(("joint_whereabouts",), "no placement of the hidden cards fits both the whereabouts "
         "and any of the joint placements", IllegalPositionError)
    raise AssertionError("unreachable")          # fail raises


# ================================================================ invariant checks
def check(condition: Any, field: str, message: str) -> None:
    """IllegalPositionError naming the JSON field at fault unless `condition` holds."""
    if not condition:
        raise IllegalPositionError(f"{field}: {message}")


def popcount(mask: int) -> int:
    return bin(mask).count("1")


def _check_ranges(f: Dict[str, Any], n: int) -> None:
    """Every number the rules use as an index or a shift is in range, whatever the phase."""
    check(0 <= f["act_camel"] <= core.N_COLOURS and 0 <= f["act_stage"] <= core.ST_NEXT
          and -1 <= f["act_player"] < n and 0 <= f["act_card"] < core.N_CARDS
          and 0 <= f["act_boost"] <= 2, "pending", "out of range")
    check(0 <= f["n_teapots"] <= core.N_TEAPOTS, "teapot_pile", "too many teapots")
    check(0 <= f["n_carpets"] <= core.N_CARPETS, "carpet_pile", "too many carpets")
    check(0 <= f["n_salt"] <= core.N_SALT, "salt_pile", "too many salt bags")
    for p in range(5):
        if p >= n:       # seats beyond the game hold nothing
            check(not (f["hand"][p] | f["sel_play"][p] | f["sel_give"][p] | f["played"][p]
                       | f["carpets_held"][p] | f["carpets_scored"][p]) and f["gems"][p] == 0
                  and f["teapot_count"][p] == 0 and f["salt_points"][p] == 0,
                  "player_state", f"seat {p} holds something in a {n}-player game")


def _check_cards(f: Dict[str, Any], n: int, phase: int, shape: Dict[str, int]) -> None:
    """The 25 travel cards are each in one place, and every hand, choice, discard and aside
    pile has the size the turn counter and the phase imply."""
    places = [("discard", f["discard"]), ("aside_down", f["aside_down"]),
              ("aside_up", f["aside_up"])]
    for p in range(n):
        places += [(f"player_state[{p}].hand", f["hand"][p]),
                   (f"player_state[{p}].chosen_play", f["sel_play"][p]),
                   (f"player_state[{p}].chosen_give", f["sel_give"][p])]
    seen = 0
    for name, mask in places:
        check(mask & ~ALL_CARDS == 0, name, "not a travel card")
        check(seen & mask == 0, name, f"{' '.join(cards_list(seen & mask))} is in two places")
        seen |= mask
    check(seen == ALL_CARDS, "player_state", f"travel cards missing: {' '.join(cards_list(ALL_CARDS & ~seen))}")
    k = per_turn(n)
    check(popcount(f["aside_down"]) == aside_down_size(n), "aside_down",
          f"{n} players set aside {aside_down_size(n)} cards face down, not {popcount(f['aside_down'])}")
    check(popcount(f["aside_up"]) == (core.DUEL_ASIDE_UP if n == 2 else 0), "aside_up",
          f"{'the duel shows 4' if n == 2 else 'only the duel shows'} set-aside cards")
    check(popcount(f["discard"]) == shape["discard"], "discard",
          f"turn {f['turn']} ({'before' if phase == core.PH_CHOOSE else 'after'} the reveal) has "
          f"{shape['discard']} discarded cards, not {popcount(f['discard'])}")
    shown = 0
    for p in range(n):
        where = f"player_state[{p}]"
        check(shown & f["played"][p] == 0, where + ".played",
              f"{' '.join(cards_list(shown & f['played'][p]))} was played by another seat")
        shown |= f["played"][p]
        chosen = phase == core.PH_CHOOSE and p < f["actor"]
        want_sel = k if chosen else 0
        check(popcount(f["sel_play"][p]) == want_sel and popcount(f["sel_give"][p]) == want_sel,
              where, f"seats choose in order and seat {f['actor']} is to move, so seat {p} "
              f"{'has chosen' if chosen else 'has not chosen yet'} ({want_sel} card(s) to play "
              f"and {want_sel} to give)")
        want_hand = shape["hand"] - (2 * want_sel if phase == core.PH_CHOOSE else k)
        if phase in (core.PH_BOOST, core.PH_SHOP4):
            check(popcount(f["played"][p]) == k and f["played"][p] & ~f["discard"] == 0,
                  where + ".played", f"during the activations each seat shows the {k} card(s) "
                  "it played")
        else:
            check(f["played"][p] == 0, where + ".played",
                  "played cards are shown only during the camel activations")
        check(popcount(f["hand"][p]) == want_hand, where + ".hand",
              f"turn {f['turn']} leaves seat {p} {want_hand} cards, not {popcount(f['hand'][p])}")
        check(popcount(f["hand"][p]) <= core.DUEL_HAND_START, where + ".hand", "too many cards")


def _check_actor(f: Dict[str, Any], n: int, phase: int) -> None:
    """The seat to move fits the phase; a pending activation fits the revealed cards and
    leaves its player a choice (a boost that still moves the camel further, or both the salt
    bag and the carpet at shop 4)."""
    if phase == core.PH_OVER:
        check(f["actor"] == -1, "to_move", "nobody moves once the game is over")
        return
    if phase == core.PH_CHOOSE:
        check(0 <= f["actor"] < n, "to_move", f"seat {f['actor']} is not in the game")
        return
    p, card, camel = f["act_player"], f["act_card"], f["act_camel"]
    check(0 <= p < n and f["actor"] == p, "to_move", "the pending player decides")
    check(camel < core.N_COLOURS and card // 5 == camel, "pending.card",
          f"{card_text(card)} does not move the {COLOUR_NAMES[min(camel, 4)]} camel")
    check(f["played"][p] >> card & 1, "pending.card", f"seat {p} did not play {card_text(card)}")
    same_colour = functools.reduce(int.__or__, f["played"][:n], 0) & (31 << (camel * 5))
    check(same_colour & ((1 << card) - 1) == 0, "pending.card",
          f"a lower {COLOUR_NAMES[camel]} card was played: {card_text(card)} was not granted")
    if phase == core.PH_BOOST:
        check(f["act_stage"] == core.ST_MOVE and f["act_boost"] == 0, "pending",
              "the boost is not chosen yet")
        check(PY_GEM_ICONS[card % 5 + 1] > 0 and f["gems"][p] > 0, "phase",
              f"seat {p} cannot boost {card_text(card)}: it needs gem icons and gems")
        check(core.boost_limit(f["camel_pos"], card, p, f["gems"][p]) > 0, "phase",
              f"{card_text(card)} alone takes the {COLOUR_NAMES[camel]} camel to seat {p}'s "
              "outpost: a boost would change nothing")
    else:
        pos = f["camel_pos"][camel]
        check(f["act_stage"] == core.ST_NEXT and pos != core.KHIVA
              and (pos - 1) % core.PATH_LEN + 1 == 4, "phase",
              f"the {COLOUR_NAMES[camel]} camel is not at a shop 4")
        # a camel goes back along another seat's path from a shop 3 at most (it never rests
        # on an outpost), so the shop 4 it stops on is the granted seat's own
        check((pos - 1) // core.PATH_LEN == p, "phase",
              f"the {COLOUR_NAMES[camel]} camel stands on {pos_text(pos)}: a camel granted to "
              f"seat {p} stops on a shop 4 only on that seat's path, P{p}.4")
        check(f["n_salt"] > 0 and f["gems"][p] >= core.SALT_PRICE, "phase",
              f"seat {p} cannot buy salt: shop 4 offers no choice")
        check(f["n_carpets"] > 0, "phase",
              "the carpet pile is empty: shop 4 offers no choice")
    _check_emptied_camels_have_moved(f, n, phase, camel)


def _check_emptied_camels_have_moved(f: Dict[str, Any], n: int, phase: int, pending: int) -> None:
    """A camel without a teapot handed it over at an outpost this turn (an empty pile ends the
    game after the turn), so it has been activated already: it is not the camel whose boost
    is pending, nor a later colour someone played a card of (docs/rules/khiva.md, 7)."""
    played = functools.reduce(int.__or__, f["played"][:n], 0)
    for c in range(core.N_COLOURS):
        to_come = c > pending or (c == pending and phase == core.PH_BOOST)
        check(f["camel_teapot"][c] or not to_come or not played >> (c * 5) & 31,
              f"camels[{c}].teapot", f"the {COLOUR_NAMES[c]} camel has not moved this turn, "
              "so it cannot have handed a teapot over yet")


def _check_camels(f: Dict[str, Any], n: int) -> None:
    on_paths = [pos for pos in f["camel_pos"] if pos != core.KHIVA]
    for c, pos in enumerate(f["camel_pos"]):
        where = f"camels[{c}].at"
        check(0 <= pos <= n * core.PATH_LEN, where, f"no such space in a {n}-player game")
        check(pos == core.KHIVA or (pos - 1) % core.PATH_LEN + 1 != core.PATH_LEN, where,
              "a camel never stays at an outpost")
        check(0 <= f["camel_teapot"][c] <= 7 and (f["camel_teapot"][c] >= 2 or
                                                  (f["camel_teapot"][c] == 0 and f["n_teapots"] == 0)),
              f"camels[{c}].teapot", "a camel carries a teapot worth 2 to 7 while the pile lasts")
        # a camel loses its teapot only at an outpost, and goes back to Khiva at once
        check(f["camel_teapot"][c] or pos == core.KHIVA, f"camels[{c}].at",
              "a camel without a teapot delivered it at an outpost and rests in Khiva")
    check(len(on_paths) == len(set(on_paths)), "camels", "two camels on one space")


def _check_opening(f: Dict[str, Any], n: int, phase: int) -> None:
    """Before the first cards are revealed nothing has moved: every camel rests in Khiva and
    no seat holds a gem, teapot, carpet or salt bag (the piles then hold the rest)."""
    if f["turn"] or phase != core.PH_CHOOSE:
        return
    check(all(pos == core.KHIVA for pos in f["camel_pos"]), "camels",
          "every camel rests in Khiva until the first cards are revealed")
    for p in range(n):
        held = (f["gems"][p], f["teapot_count"][p], f["carpets_held"][p], f["salt_points"][p])
        check(not any(held), f"player_state[{p}]",
              "no seat holds gems, teapots, carpets or salt before the first cards are revealed")


def _check_tokens(f: Dict[str, Any], n: int, phase: int) -> None:
    """Teapots, carpets, salt bags and gems are conserved; a pile is empty only once the end
    is triggered, and the end is triggered only by an empty pile."""
    pile = f["teapots"][:f["n_teapots"]]
    carried = [t for t in f["camel_teapot"] if t]
    left = sorted(pile + carried)
    check(all(2 <= t <= 7 for t in pile), "teapot_pile", "teapots are worth 2 to 7")
    remaining = list(PY_TEAPOTS)
    for t in left:
        check(t in remaining, "teapot_pile", f"too many teapots worth {t}")
        remaining.remove(t)
    delivered = sum(f["teapot_count"][:n])
    check(len(left) + delivered == core.N_TEAPOTS, "player_state",
          f"{len(left)} teapots in play and {delivered} delivered, not {core.N_TEAPOTS}")
    check(sum(f["teapot_points"][:n]) == sum(remaining), "player_state",
          f"the delivered teapots are worth {sum(remaining)}, not {sum(f['teapot_points'][:n])}")
    for p in range(n):
        count, points = f["teapot_count"][p], f["teapot_points"][p]
        check(2 * count <= points <= 7 * count, f"player_state[{p}].teapot_points",
              f"{count} teapots cannot be worth {points}")
    carpets = f["carpets"][:f["n_carpets"]]
    check(all(0 <= c < core.N_CARPETS for c in carpets), "carpet_pile", "not a carpet")
    check(len(set(carpets)) == len(carpets), "carpet_pile", "a carpet is in the pile twice")
    seen = sum(1 << c for c in carpets)
    for p in range(n):
        for key, mask in (("carpets_held", f["carpets_held"][p]),
                          ("carpets_delivered", f["carpets_scored"][p])):
            check(mask & ~ALL_CARPETS == 0 and seen & mask == 0, f"player_state[{p}].{key}",
                  "a carpet is in two places")
            seen |= mask
    check(seen == ALL_CARPETS, "carpet_pile", f"carpets missing: {' '.join(carpets_list(ALL_CARPETS & ~seen))}")
    _check_salt(f, n)
    check(all(g >= 0 for g in f["gems"][:n]) and f["gem_supply"] >= 0
          and sum(f["gems"][:n]) + f["gem_supply"] == core.GEM_SUPPLY, "gem_supply",
          f"the {core.GEM_SUPPLY} gems are not all accounted for")
    empty = not (f["n_teapots"] and f["n_carpets"] and f["n_salt"])
    check(bool(f["end_triggered"]) == empty, "end_triggered",
          "the end is triggered exactly when a pile is empty")
    if phase == core.PH_CHOOSE:
        check(not empty, "end_triggered", "a turn after an empty pile: the game is over")
    if phase == core.PH_OVER:
        check(empty, "phase", "the game ends only when a pile is empty")


def _check_salt(f: Dict[str, Any], n: int) -> None:
    """The salt bags bought (the top ones: 10, 9, ...) can be shared out to give each seat its
    salt points and its best bag."""
    sold = PY_SALT[:core.N_SALT - f["n_salt"]]
    want = [(f["salt_points"][p], f["salt_best"][p]) for p in range(n)]
    for owners in itertools.product(range(n), repeat=len(sold)):
        got = [(sum(v for v, q in zip(sold, owners) if q == p),
                max([v for v, q in zip(sold, owners) if q == p], default=0)) for p in range(n)]
        if got == want:
            return
    check(False, "player_state", f"the salt bags bought ({list(sold)}) do not give these salt "
          "points and best bags")


def _check_knowledge(f: Dict[str, Any], n: int) -> None:
    """What each seat believes about a card it cannot see includes where the card is, so
    every determinization can put the cards back somewhere."""
    location = {}
    for p in range(n):
        for c in cards_list(f["hand"][p] | f["sel_play"][p] | f["sel_give"][p]):
            location[parse_card(c)] = p
    for c in cards_list(f["aside_down"]):
        location[parse_card(c)] = core.ASIDE_LOC
    for o in range(n):
        for c, place in location.items():
            if place != o and location.get(c) is not None:
                check(f["where"][o][c] >> place & 1, "card_whereabouts",
                      f"seat {o} believes {card_text(c)} cannot be where it is")
        _check_joint_truth(f, n, o, location)


def _check_joint_truth(f: Dict[str, Any], n: int, o: int, location: Dict[int, int]) -> None:
    """Seat o's joint knowledge is one the core can read (at most JOINT_CARDS distinct cards,
    1 to JOINT_SETS placements, nothing past them; none in a duel), and where its followed
    cards are is one of its placements."""
    k, m = f["jn"][o], f["jm"][o]
    check(f["jlost"][o] in (0, 1) and 0 <= k <= JOINT_CARDS and 1 <= m <= JOINT_SETS
          and (n > 2 or k == 0), "joint_whereabouts", f"seat {o}'s joint knowledge is malformed")
    cards = f["jcard"][o][:k]
    check(len(set(cards)) == k and all(0 <= c < core.N_CARDS for c in cards)
          and all(0 <= a < 1 << 2 * k for a in f["jset"][o][:m]),
          "joint_whereabouts", f"seat {o}'s joint knowledge is malformed")
    if f["jlost"][o] or not k:
        return
    cards, placements = joint_of_fields(f, o)
    truth = tuple(location.get(c, -1) for c in cards)
    check(truth in placements, "joint_whereabouts",
          f"seat {o} believes the cards {', '.join(card_text(c) for c in cards)} cannot be "
          f"where they are ({', '.join(map(str, truth))})")
