"""argparse types the command line shares (caravan and caravan play): numbers written as a
person writes them, checked for range, each mistake one readable line."""
import argparse
from decimal import Decimal
from typing import List, Optional

from engine.validation import decimal_number, whole_number

SEED_MAX = 2**64 - 1          # seeds are 64-bit, as in the protocol and the Python API


def int_in(low: int, high: Optional[int] = None):
    """An argparse type: a whole number in the digits 0-9 from `low` to `high` (no upper
    bound when None); "-3" is named as below `low`, "+3", "3_0" or "３" are refused."""

    def parse(text: str) -> int:
        digits = text[1:]
        negative = (text.startswith("-") and digits.isascii() and digits.isdigit()
                    and digits.strip("0") != "")         # "-0" is no number either
        if negative:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {text[:40]}")
        try:
            value = whole_number(text, "expected a number that")
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number in the digits 0-9, "
                                             f"not {text[:40]!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {value}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, not {text[:40]}")
        return value
    return parse


def number_in(low: float, high: float, unit: str = "", above_low: bool = False):
    """An argparse type: a number from `low` (excluded when `above_low`) to `high`, written
    with digits and . as the decimal point (engine.validation.DECIMAL: no sign, exponent, nan
    or inf)."""
    what = f"a number of {unit}" if unit else "a number"

    def parse(text: str) -> float:
        try:
            value = decimal_number(text.removeprefix("-"), what)
            exact = Decimal(text)                 # the range is checked as written:
            if text.startswith("-") and not exact:      # 1.000...01 is above 1
                raise ValueError(text)            # "-0" is no number either
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what} such as 0.5 (digits, . as "
                                             f"the decimal point), not {text[:40]!r}") from None
        if not (exact > low if above_low else exact >= low) or not exact <= high:
            span = (f"above {low:g} and at most {high:g}" if above_low
                    else f"from {low:g} to {high:g}")
            raise argparse.ArgumentTypeError(f"must be {what} {span}, not {text[:40]}")
        return value
    return parse


positive_int = int_in(1)
seed_number = int_in(0, SEED_MAX)


def parse_seats(text: str, option: str = "--seats") -> List[int]:
    """Seat numbers separated by commas (P may precede each: P0,P2); one for --seat."""
    seats = []
    parts = text.split(",")
    for part in parts:
        word = part.strip().upper().removeprefix("P")
        if (not (word.isascii() and word.isdigit()) or len(word) > 9
                or (option == "--seat" and len(parts) > 1)):
            what = "a seat number" if option == "--seat" else "seat numbers separated by commas"
            raise ValueError(f"{option} takes {what}, not {text[:40]!r}")
        seats.append(int(word))
    return seats
