"""What every game's Python half shares: the one checked path from JSON into its C core.

A full state: the schema `<game>.state`, the C fields built from it, written in one checked
conversion, `check_invariants`, a legal move unless the game is over, and the round trip. A
view: the schema `<game>`, the seat-to-move rule, the hidden parts filled in by the game (a
matching, never a search), then the same path, the seat's knowledge and hashes, and the round
trip against the view. docs/views/README.md explains the policy.
"""
from __future__ import annotations

import sys
from typing import Any, Dict, FrozenSet, Optional, Tuple

from cext.core import check_int, stable_hash
from engine.validation import (IllegalPositionError, ViewError, check_schema, fail,
                               first_difference)


def text_beyond_moves(move: int) -> Optional[str]:
    """The text of an integer too large for any move (moves are 32-bit), else None."""
    return None if -2**31 <= move < 2**31 else f"?{move}"


def field_property(name: str, doc: str) -> property:
    """A read-only property giving the C state's field `name`."""
    return property(lambda self: self._fields()[name], doc=doc)


class CheckedGame:
    """Mixin of a game's Python half (put it before the C core among the bases).

    A game sets PHASES (its phase names by the core's PH_* code), DERIVED (and SEAT_LISTS if
    it has more lists with one item per seat), and where it needs them `_adopt_view` and
    `_check_setting`. The schemas are named after the core's `name` (the view's `<name>`, the
    full state's `<name>.state`), and the game's module (`codec()`) provides
    `write_fields(fields, d)`: the C fields from a schema-valid full state;
    `full_state_of_view(v)`: a full state that fits a view; and `canonical(d)`: set-like lists
    in the order to_json writes them."""

    PHASES: Any = ()                       # phase names, indexed by the core's PH_* codes
    DERIVED: FrozenSet[str] = frozenset()  # keys a client may leave out: recomputed, checked
    DEFAULTED: FrozenSet[str] = frozenset({"seed"})  # full-state keys with a documented default
    VIEW_DEFAULTED: FrozenSet[str] = frozenset()     # view keys with a documented default
    SEAT_LISTS: Tuple[str, ...] = ("player_state",)

    @classmethod
    def codec(cls) -> Any:
        """The game's Python module (write_fields, full_state_of_view, canonical, move_text):
        the module of the first class in the MRO whose module has them, so a subclass defined
        elsewhere keeps its game's notation and loaders."""
        for klass in cls.__mro__:
            module = sys.modules.get(klass.__module__)
            if hasattr(module, "write_fields"):
                return module
        raise TypeError(f"{cls.__name__} belongs to no game module")

    def move_to_text(self, move: int) -> str:
        """`move` in the game's notation (docs/views/<game>.md, Moves): its module's move_text
        (ValueError for what is not an integer; an integer that is no move reads `?...`)."""
        move = check_int(move, "a move")
        return text_beyond_moves(move) or self.codec().move_text(move)

    def _check_narration(self, before: Any, player: Any, move: Any, viewer: Any) -> None:
        """narrate's arguments: `before` an earlier state of this same game (ValueError
        otherwise), `player` a seat, `move` an integer, `viewer` None or a seat."""
        if type(before) is not type(self) or before.n_players != self.n_players \
                or before.event_count > self.event_count:
            raise ValueError("narrate needs `before`, the state of this game before the move")
        self._check_player(player)
        if viewer is not None:
            self._check_player(viewer)
        if not -2**31 <= check_int(move, "a move") < 2**31:
            raise ValueError(f"{move} is no move of {self.name}")

    # ------------------------------------------------------------ numpy (engine.observation)
    def observation_tensor(self, seat: int, kind: str = "observation") -> Any:
        """The seat's observation tensor (kind "information_state": with what it learned), a
        flat float32 numpy vector built from its view only; docs/ecosystem.md lists the fields."""
        from engine.observation import tensor

        self._check_player(seat)             # a seat's tensor: None (a spectator) has none
        return tensor(self, seat, kind)

    def information_state_tensor(self, seat: int) -> Any:
        """observation_tensor(seat, "information_state")."""
        return self.observation_tensor(seat, "information_state")

    @property
    def action_ids(self) -> Any:
        """The game's action ids (engine.observation.ActionMap): action_id(move), move(id),
        legal_ids(state), mask(state)."""
        from engine.observation import action_map

        return action_map(self.name)

    @property
    def phase(self) -> str:
        """The phase, named as docs/views/<game>.md names it."""
        return self.PHASES[self._fields()["phase"]]

    # ------------------------------------------------------------ the doors
    @classmethod
    def from_json(cls, d: Any) -> "CheckedGame":
        """Rebuild a full state written by to_json(); ViewError (a ValueError) naming the field
        if it is malformed, IllegalPositionError if it is no position of the game."""
        check_schema(d, cls.name + ".state", f"{cls.title} state")
        st = cls._build(d)
        st._check_round_trip(d, None)
        st._hash_the_seats_views()
        return st

    @classmethod
    def from_view(cls, v: Any) -> "CheckedGame":
        """A state consistent with one seat's view (to_json(view=seat)), for searching as that
        seat: the hidden parts are filled in a fixed way that respects what the seat knows (the
        search redraws them anyway). The view must be the seat to move's (any seat's once the
        game is over): the engine never answers for a seat whose hidden cards it would have to
        invent. ViewError (a ValueError) naming the field if it is malformed or impossible."""
        cls._check_view_seat(v)
        check_schema(v, cls.name, f"{cls.title} view")
        if v["phase"] != "over" and v["to_move"] != v["view"]:
            fail(("view",), f"this is seat {v['view']}'s view but seat {v['to_move']} is to move: "
                 "the engine answers only for the seat to move", IllegalPositionError)
        return cls._load_view(v)

    @classmethod
    def _from_any_seats_view(cls, v: Any) -> "CheckedGame":
        """from_view without the seat-to-move rule, for the tests that check what every seat
        knows survives its view. The doors (from_view, the protocol) never use it."""
        cls._check_view_seat(v)
        check_schema(v, cls.name, f"{cls.title} view")
        return cls._load_view(v)

    def _hash_the_seats_views(self) -> None:
        """The information hashes of a loaded full state, which has no history: each seat's
        own from its view; the public hash and what two seats share from nothing (the same
        in every loaded position: no equality of two views, which private knowledge can
        bring about, goes into them). So a seat gets the same keys in two loaded positions
        it cannot tell apart and other keys where its view differs. (Until 2026-12-07, found
        by an information audit, every load kept the hashes of its seed's deal whatever the
        position, and a Searcher could carry one position's statistics into another.)"""
        n = self.n_players
        f = self._fields()
        f["ih"]["public"] = stable_hash("a loaded full state")
        f["ih"]["n_public"] = 0
        for a in range(n):
            for b in range(n):
                f["ih"]["pair"][a][b] = stable_hash(
                    self.to_json(view=a) if a == b else [min(a, b), max(a, b)])
        self._set_fields(f)

    # ------------------------------------------------------------ the path
    @classmethod
    def _check_view_seat(cls, v: Any) -> None:
        """A view's seat against its own player count, before the schema's check, whose range
        is every count's (0-4): seat 7 of 3 players is named as such."""
        if not isinstance(v, dict):
            return
        seat, players = v.get("view"), v.get("players")
        if (type(seat) is int and type(players) is int
                and cls.min_players <= players <= cls.max_players and not 0 <= seat < players):
            fail(("view",), f"there is no seat {seat} in a {players}-player game")

    @classmethod
    def _load_view(cls, v: Dict[str, Any]) -> "CheckedGame":
        cls._check_seats(v)
        d = cls.codec().full_state_of_view(v)
        check_schema(d, cls.name + ".state", f"{cls.title} state")   # the filled-in state
        st = cls._build(d)
        st._adopt_view(v)
        st.check_invariants()
        st._check_round_trip(v, v["view"])
        return st

    @classmethod
    def _build(cls, d: Dict[str, Any]) -> "CheckedGame":
        """The state of a schema-valid full-state dict, checked to be a position of the game."""
        cls._check_seats(d)
        cls._check_setting(d)
        st = cls(d["players"], d.get("seed", 0))
        fields = st._fields()
        cls.codec().write_fields(fields, d)
        try:
            st._set_fields(fields)
        except (TypeError, ValueError, OverflowError, IndexError, KeyError) as e:
            raise ViewError(f"(root): a value does not fit the {cls.title} state: {e}") from None
        st.check_invariants()
        st._settle()
        if st.to_move >= 0 and not st.legal_moves():
            raise IllegalPositionError(f"to_move: seat {st.to_move} has no legal move")
        return st

    @classmethod
    def _check_seats(cls, d: Dict[str, Any]) -> None:
        """Every list with one item per seat has as many items as there are players."""
        n = d["players"]
        for key in cls.SEAT_LISTS:
            if key in d and len(d[key]) != n:
                fail((key,), f"expected {n} items (one per seat), got {len(d[key])}")

    def _check_round_trip(self, given: Dict[str, Any], view: Optional[int]) -> None:
        """Every field given must be what the loaded position writes back: catches derived
        fields that disagree and anything the loader would otherwise drop."""
        optional = self.DERIVED | (self.VIEW_DEFAULTED if view is not None else self.DEFAULTED)
        diff = first_difference(self.codec().canonical(given), self.to_json(view),
                                optional=optional)
        if diff:
            raise IllegalPositionError(diff)

    # ------------------------------------------------------------ what each game provides
    @classmethod
    def _check_setting(cls, d: Dict[str, Any]) -> None:
        """Checks of the game's setting before its fields are built (default: none)."""

    def _settle(self) -> None:
        """Knowledge the core derives once a load has written the fields and the invariants
        have passed (default: none)."""

    def _adopt_view(self, v: Dict[str, Any]) -> None:
        """The viewer's knowledge and information hashes as the view gives them (default:
        nothing beyond what the full state already carries)."""
