"""One checked path from JSON into every game core, and the helpers the games share on it.

A state or a view travels: `check_json` (a JSON value of bounded size and depth, nothing but
objects, lists, strings, numbers, booleans and null) -> `check_schema` (the game's published
JSON Schema, docs/views/<game>*.schema.json: types, lengths, ranges, required and unknown keys)
-> the game's own checks of meaning (counts conserved, cards unique, a position the rules can
reach) -> the C state, written in one call whose conversions check every type, length and
range again -> the game's `check_invariants` -> a legal move unless the game is over.

Every refusal is a `ViewError` (a ValueError) whose message starts with the path of the field
at fault, written as in Python with the root left out: `player_state[1].hand: ...`.
"""
from __future__ import annotations

import functools
import itertools
import json
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict, Hashable, Iterable, List, Mapping, Optional, Sequence, TextIO

import jsonschema
from referencing import Registry, Resource

MAX_DEPTH = 16              # no game's JSON nests deeper than 8
MAX_VALUES = 100_000        # values in one document: a Kilim state, the largest, holds a few thousand
MAX_STRING = 10_000         # characters in one string
MAX_TEXT = 1_000_000        # characters of JSON text
MOST_SCHEMA_ERRORS = 100    # schema errors weighed to name the first (a real position has a few)

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


class ViewError(ValueError):
    """A view or state that cannot be loaded: malformed, inconsistent or impossible."""


class IllegalPositionError(ViewError):
    """A view or state that is well formed but that the rules cannot reach or play on."""


# ---------------------------------------------------------------- paths
def path_text(path: Iterable[Any]) -> str:
    """`players[1].posts` for the path ("players", 1, "posts"); the root is `(root)`."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out or "(root)"


def quoted(value: Any, limit: int = 40) -> str:
    """`value` for an error message, cut to `limit` characters (with ... after): a string
    quoted, anything else as its repr. A caller's input is echoed, never at any length."""
    if isinstance(value, str):
        return repr(value[:limit]) + ("..." if len(value) > limit else "")
    shown = repr(value)
    return shown[:limit] + ("..." if len(shown) > limit else "")


def fail(path: Iterable[Any], message: str, error: type = ViewError) -> None:
    """Raise `error` for the field at `path`."""
    raise error(f"{path_text(path)}: {message}")


# ---------------------------------------------------------------- size and shape
def read_line(inp: TextIO, limit: int) -> Optional[str]:
    """The next input line without its end of line, None at the end of input. Of a line
    longer than `limit` only the first limit + 1 characters are kept (so the caller can
    refuse it) and the rest is skipped, never held in memory."""
    raw = inp.readline(limit + 1)
    if not raw:
        return None
    if len(raw) > limit and not raw.endswith("\n"):
        while True:
            more = inp.readline(limit + 1)
            if not more or more.endswith("\n"):
                break
    return raw.rstrip("\r\n")


MAX_DIGITS = 40        # a seed is at most 20 digits; more is a mistake, not a number


def whole_number(text: str, what: str) -> int:
    """`text` as a whole number written in the digits 0-9 alone, as every front door takes
    numbers: Python's int() also takes "+5", "5_0", " 5", "５" (fullwidth) and thousands of
    digits, none of which a caller means. ValueError naming `what` otherwise."""
    if not (isinstance(text, str) and text.isascii() and text.isdigit()):
        raise ValueError(f"{what} is a whole number in the digits 0-9, not {quoted(text)}")
    if len(text) > MAX_DIGITS:
        raise ValueError(f"{what} is out of range ({len(text):,} digits)")
    return int(text)


# A number with a fraction as every front door takes it: digits, `.` as the decimal point
# (0.7, 1, 0.00001); no sign, exponent, underscore, other digits or surrounding space.
DECIMAL = re.compile(r"[0-9]{1,20}(?:\.[0-9]{1,40})?")


def decimal_number(text: str, what: str) -> float:
    """`text` as a number written in the DECIMAL form (float() also takes "1e-300", "nan",
    "+1", "1_0" and "１"). ValueError naming `what` otherwise."""
    if not (isinstance(text, str) and DECIMAL.fullmatch(text)):
        raise ValueError(f"{what} is a number such as 0.7 (digits, . as the decimal point), "
                         f"not {quoted(text)}")
    return float(text)


def decimal_text(value: float) -> str:
    """A float written in the DECIMAL form, which decimal_number reads back exactly: its
    repr (0.7, 5.0), with an exponent written out (1e-05 -> 0.00001)."""
    text = repr(float(value))
    return format(Decimal(text), "f") if "e" in text else text


def printable(text: str) -> str:
    """`text` (read from a file or another program) safe to print on a terminal: a control
    character such as a newline or an escape shows as its escape sequence instead."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _bounded_int(text: str) -> int:
    """json.loads' integer hook: more than MAX_DIGITS digits is a mistake, not a number."""
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ViewError(f"a number of {len(text.lstrip('-')):,} digits is out of range")
    return int(text)


def listed_items(text: str, what: str) -> List[str]:
    """The items of a game option written as a list, `a,b,c` (spaces also separate them);
    ValueError naming `what` for an empty item: two commas, or one at an end. Blank text
    lists nothing."""
    if text.strip() and "" in (item.strip() for item in text.split(",")):
        raise ValueError(f"{what} {quoted(text)} has an empty item (two commas, or one at an "
                         "end)")
    return text.replace(",", " ").split()


def _refuse_duplicate_keys(pairs: list) -> dict:
    """json.loads' object hook: a key given twice is an error (json keeps the last silently,
    so the object checked would not be the text sent)."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ViewError(f"the key {quoted(key)} is given twice in one object")
        obj[key] = value
    return obj


def parse_json(text: Any, what: str = "position", whole_numbers: bool = True) -> Any:
    """Parse JSON text, refusing text that is too long or nested too deeply, or an object
    that names a key twice (ViewError). `whole_numbers`: see check_json."""
    if not isinstance(text, str):
        raise ViewError(f"the {what} must be JSON text, not {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ViewError(f"the {what} is too long ({len(text):,} characters, at most {MAX_TEXT:,})")
    try:
        value = json.loads(text, object_pairs_hook=_refuse_duplicate_keys,
                           parse_int=_bounded_int)
    except ViewError as e:
        raise ViewError(f"the {what} is not valid JSON: {e}") from None
    except RecursionError:
        raise ViewError(f"the {what} is nested too deeply") from None
    except ValueError as e:                       # JSONDecodeError, huge integers
        raise ViewError(f"the {what} is not valid JSON: {e}") from None
    check_json(value, what, whole_numbers)
    return value


def check_json(value: Any, what: str = "position", whole_numbers: bool = True) -> None:
    """ViewError unless `value` is a JSON object of bounded size and depth made only of JSON
    values (dicts with string keys, lists, strings, whole numbers, booleans, None). With
    `whole_numbers` False, finite fractional numbers are JSON values too (a game record's
    rewards and seconds; no position has one).

    Iterative, so a value nested a million deep is refused without recursing."""
    if not isinstance(value, dict):
        kind = _json_type(value)
        kind = kind if kind == "null" else ("an " if kind[0] in "aeiou" else "a ") + kind
        raise ViewError(f"(root): the {what} must be a JSON object, not {kind}")
    stack: List[tuple] = [(value, ())]
    seen = 0
    while stack:
        x, path = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            raise ViewError(f"the {what} is too large (more than {MAX_VALUES:,} values)")
        if len(path) > MAX_DEPTH:
            fail(path, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(x, dict):
            for k, v in x.items():
                if not isinstance(k, str):
                    fail(path, f"keys must be strings, not {type(k).__name__}")
                stack.append((v, path + (k,)))
        elif isinstance(x, list):
            stack.extend((v, path + (i,)) for i, v in enumerate(x))
        elif isinstance(x, str):
            if len(x) > MAX_STRING:
                fail(path, f"a string of {len(x):,} characters (at most {MAX_STRING:,})")
        elif isinstance(x, float) and not whole_numbers and math.isfinite(x):
            pass
        elif isinstance(x, float):
            # No position has a fractional number, and JSON Schema's `enum` and `const` would
            # take 1.0 for 1: refused here, every number reaches the games as an int.
            fail(path, f"expected an integer, got number {x!r} (numbers are whole numbers here)"
                 if math.isfinite(x) else f"{x!r} is not a JSON number")
        elif not (x is None or isinstance(x, (bool, int))):
            fail(path, f"{type(x).__name__} is not a JSON value")


# ---------------------------------------------------------------- schemas
def _is_integer(checker: Any, instance: Any) -> bool:
    # JSON Schema counts 1.0 as an integer; the C state does not, so neither do we
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


@functools.lru_cache(maxsize=None)
def schema(name: str) -> Dict[str, Any]:
    """The published schema `name` (e.g. "khiva.view"), from docs/views/<name>.schema.json."""
    path = SCHEMA_DIR / f"{name}.schema.json"
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    jsonschema.Draft202012Validator.check_schema(doc)
    return doc


@functools.lru_cache(maxsize=None)
def _registry() -> Registry:
    """Every published schema under its $id, so one schema can use another's definitions."""
    docs = [schema(path.name[:-len(".schema.json")])
            for path in sorted(SCHEMA_DIR.glob("*.schema.json"))]
    return Registry().with_resources((doc["$id"], Resource.from_contents(doc)) for doc in docs)


@functools.lru_cache(maxsize=None)
def _validator(name: str) -> Any:
    return _Validator(schema(name), registry=_registry())


def check_schema(value: Any, name: str, what: str = "position",
                 whole_numbers: bool = True) -> None:
    """ViewError naming the first field (in document order) that breaks schema `name`
    (`whole_numbers`: see check_json). The first MOST_SCHEMA_ERRORS errors are weighed: a
    list of thousands of wrong items is refused as soon as it is seen to be wrong, not after
    each item has been judged (32,000 empty objects in a view took 8 s to refuse)."""
    check_json(value, what, whole_numbers)
    errors = list(itertools.islice(_validator(name).iter_errors(value), MOST_SCHEMA_ERRORS))
    if errors:
        # An invalid part of an object also makes its keys "unevaluated": report the part.
        error = min(errors, key=lambda e: (e.validator == "unevaluatedProperties",
                                           _order(value, e.absolute_path), -len(e.absolute_path)))
        raise ViewError(f"{path_text(error.absolute_path)}: {_message(error)}")


def _order(value: Any, path: Sequence[Any]) -> tuple:
    """A sort key that puts errors in the order their fields appear in the document."""
    key = []
    for step in path:
        if isinstance(value, dict):
            keys = list(value)
            key.append(keys.index(step) if step in keys else len(keys))
            value = value.get(step)
        elif isinstance(value, list):
            key.append(step)
            value = value[step] if isinstance(step, int) and step < len(value) else None
    return tuple(key)


_TYPE_NAMES = {"integer": "an integer", "string": "a string", "boolean": "true or false",
               "array": "a list", "object": "an object", "null": "null", "number": "a number"}


def _json_type(x: Any) -> str:
    for name, t in (("boolean", bool), ("integer", int), ("number", float), ("string", str),
                    ("array", list), ("object", dict)):
        if isinstance(x, t):
            return name
    return "null"


def _message(error: Any) -> str:
    """A short message for one schema error, in the project's words."""
    kind, want, got = error.validator, error.validator_value, error.instance
    if kind == "type":
        names = [want] if isinstance(want, str) else want
        return f"expected {' or '.join(_TYPE_NAMES.get(n, n) for n in names)}, got {_json_type(got)}"
    if kind == "required":
        missing = [k for k in want if k not in got]
        return f"missing key {missing[0]!r}" if missing else error.message
    if kind in ("additionalProperties", "unevaluatedProperties"):
        # the message names each unexpected key by its repr: find them among the keys
        listed = error.message.split("(", 1)[-1]
        unexpected = [k for k in got if repr(k) in listed] if isinstance(got, dict) else []
        return f"unknown key {quoted(unexpected[0])}" if unexpected else error.message
    if kind in ("minItems", "maxItems") and isinstance(got, list):
        low = error.schema.get("minItems", 0)
        high = error.schema.get("maxItems")
        if low == high:
            return f"expected {low} items, got {len(got)}"
        if kind == "minItems":
            return f"expected at least {low} items, got {len(got)}"
        return f"expected at most {high} items, got {len(got)}"
    if kind in ("minimum", "maximum"):
        low, high = error.schema.get("minimum"), error.schema.get("maximum")
        if low is not None and high is not None:
            return f"must be from {low} to {high}, not {got!r}"
        return f"must be {'at least' if kind == 'minimum' else 'at most'} {want}, not {got!r}"
    if kind == "enum":
        shown = ", ".join(json.dumps(x) for x in want[:12])
        return f"must be one of {shown}{', ...' if len(want) > 12 else ''}, not {json.dumps(got)[:60]}"
    if kind == "const":
        return f"must be {json.dumps(want)}, not {json.dumps(got)[:60]}"
    if kind == "pattern":
        return f"{json.dumps(got)[:60]} is not of the form {want}"
    if kind == "uniqueItems":
        return "lists an item twice"
    if kind in ("minLength", "maxLength"):
        return f"a string of {len(got)} characters is out of range"
    return error.message[:200]


# ---------------------------------------------------------------- checks of meaning
def expect(condition: Any, path: Iterable[Any], message: str) -> None:
    """IllegalPositionError for the field at `path` unless `condition` holds."""
    if not condition:
        fail(path, message, IllegalPositionError)


def int_in(value: Any, low: int, high: int, path: Iterable[Any]) -> int:
    """`value` if it is an integer (not a bool) in [low, high]; ViewError otherwise."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        fail(path, f"must be an integer from {low} to {high}, not {value!r}")
    return value


def check_derived(given: Mapping[str, Any], key: str, computed: Any,
                  path: Iterable[Any] = ()) -> None:
    """A derived field is optional; when given it must equal the value the position implies."""
    if key in given and given[key] != computed:
        fail(tuple(path) + (key,), f"is {given[key]!r}, but the position gives {computed!r}",
             IllegalPositionError)


def unique(items: Sequence[Hashable], path: Iterable[Any], what: str = "item") -> None:
    """IllegalPositionError naming the first item listed twice."""
    seen = set()
    for i, x in enumerate(items):
        if x in seen:
            fail(tuple(path) + (i,), f"{what} {x} is listed twice", IllegalPositionError)
        seen.add(x)


def first_difference(given: Any, rebuilt: Any, path: tuple = (),
                     optional: frozenset = frozenset()) -> Optional[str]:
    """Where `given` first differs from `rebuilt`, as a message naming the path, or None.

    Keys in `optional` may be absent from `given` (derived fields); every other key of
    `rebuilt` must be there, and `given` may hold no key that `rebuilt` lacks."""
    if isinstance(given, dict) and isinstance(rebuilt, dict):
        for k in rebuilt:
            if k not in given and k not in optional:
                return f"{path_text(path + (k,))}: missing key {k!r}"
        for k in given:
            if k not in rebuilt:
                return f"{path_text(path + (k,))}: unknown key {k!r}"
            diff = first_difference(given[k], rebuilt[k], path + (k,), optional)
            if diff:
                return diff
        return None
    if isinstance(given, list) and isinstance(rebuilt, list):
        if len(given) != len(rebuilt):
            return (f"{path_text(path)}: expected {len(rebuilt)} items, got {len(given)}")
        for i, (x, y) in enumerate(zip(given, rebuilt)):
            diff = first_difference(x, y, path + (i,), optional)
            if diff:
                return diff
        return None
    if given == rebuilt and type(given) is type(rebuilt):
        return None
    return f"{path_text(path)}: is {given!r}, but the position gives {rebuilt!r}"


# ---------------------------------------------------------------- hidden items
def place_hidden(items: Sequence[Hashable], capacity: Mapping[Hashable, int],
                 allowed: Mapping[Hashable, Sequence[Hashable]],
                 path: Sequence[Any] = ()) -> Dict[Hashable, Hashable]:
    """Put every hidden item in a place with room, each only where `allowed[item]` says the
    observer knows it may be: a bipartite matching with capacities, found by augmenting paths
    (polynomial, deterministic: items taken most constrained first, places in listed order).

    Returns {item: place}; IllegalPositionError naming the field at `path` (the one that
    says what the seat knows) when no placement fits it. The counts must add up:
    sum(capacity) == len(items)."""
    if sum(capacity.values()) != len(items):
        fail(path, f"the hidden places hold {sum(capacity.values())} items but {len(items)} "
             "are unseen", IllegalPositionError)
    members: Dict[Hashable, List[Hashable]] = {p: [] for p in capacity}
    holder: Dict[Hashable, Hashable] = {}

    def take(item: Hashable, place: Hashable) -> bool:
        members[place].append(item)
        holder[item] = place
        return True

    def augment(item: Hashable, visited: set) -> bool:
        # Each place is visited once per search, so the recursion is at most as deep as the
        # number of places.
        for place in allowed[item]:
            if place not in members or place in visited:
                continue
            visited.add(place)
            if len(members[place]) < capacity[place]:
                return take(item, place)
            for other in list(members[place]):
                if augment(other, visited):          # `other` moved on: its room here is free
                    members[place].remove(other)
                    return take(item, place)
        return False

    for item in sorted(items, key=lambda x: (len(allowed[x]), str(x))):
        if not augment(item, set()):
            fail(path, f"no placement of the unseen items fits what the seat knows ({item} has "
                 "nowhere to go)", IllegalPositionError)
    return holder
