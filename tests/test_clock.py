"""Thinking on a clock: `go time <ms> [inc <ms>] [movestogo <n>]` and the move time it gives
(search.config.clock_seconds)."""
import io

import pytest

from engine.protocol import Engine, ProtocolError, parse_go_limits
from search.config import (CLOCK_LEAST, CLOCK_MOST_SHARE, CLOCK_RESERVE, MOVES_TO_GO, Budget,
                           clock_seconds)


def test_a_decision_takes_an_even_share_of_the_time_left_plus_most_of_the_increment():
    assert clock_seconds(60.0) == pytest.approx(60.0 / MOVES_TO_GO - CLOCK_RESERVE)
    assert clock_seconds(60.0, 2.0) == pytest.approx(60.0 / MOVES_TO_GO + 1.5 - CLOCK_RESERVE)
    assert clock_seconds(60.0, 0.0, 4) == pytest.approx(15.0 - CLOCK_RESERVE)


@pytest.mark.parametrize("remaining,increment,to_go", [
    (60.0, 0.0, 1), (60.0, 100.0, None), (0.2, 0.0, None), (0.005, 0.0, None), (1e-3, 0, 1),
    (86_400.0, 86_400.0, 1)])
def test_the_move_time_is_above_zero_and_leaves_time_on_the_clock(remaining, increment, to_go):
    """Never more than half of what is left (the last move before a time control, a large
    increment), and never nothing, however little is left."""
    t = clock_seconds(remaining, increment, to_go)
    assert 0 < t <= CLOCK_MOST_SHARE * remaining
    assert t >= min(CLOCK_LEAST, CLOCK_MOST_SHARE * remaining)


@pytest.mark.parametrize("start", [5.0, 30.0, 300.0])
def test_a_clock_lasts_a_long_game(start):
    """60 decisions (a Kilim seat's, the longest game), each search overshooting its time by
    a chunk (20 ms), on a clock without increment: time is left at the end."""
    left = start
    for _ in range(60):
        left -= clock_seconds(left) + 0.02
    assert left > 0.04 * start


def test_go_reads_a_clock():
    assert parse_go_limits("time 60000 inc 1000 movestogo 5".split()) == (
        {"time": 60000, "inc": 1000, "movestogo": 5}, False)
    engine = Engine(io.StringIO())
    assert engine.budget("time 60000 inc 1000".split()) == Budget(0, clock_seconds(60.0, 1.0))
    assert engine.budget("time 8000 iterations 300".split()) == Budget(300, clock_seconds(8.0))
    assert engine.budget("time 8000 infinite".split()) == Budget()


def test_a_clock_without_increment_may_say_inc_0():
    """docs/protocol.md, "Budgets": `inc` runs from 0, so a front end that keeps a clock
    without increment may send `inc 0`, as UCI's `winc 0`."""
    assert parse_go_limits("time 60000 inc 0".split()) == ({"time": 60000, "inc": 0}, False)
    assert Engine(io.StringIO()).budget("time 60000 inc 0".split()) == Budget(
        0, clock_seconds(60.0))


@pytest.mark.parametrize("args,message", [
    ("inc 100", "belong to a clock"), ("movestogo 3", "belong to a clock"),
    ("time 100 movetime 10", "not both"), ("time 0", "time must be between 1"),
    ("time 100 inc -1", "inc is a whole number in the digits 0-9, not '-1'"),
    ("time 100 movestogo 0", "movestogo must be"),
    ("time x", "time is a whole number in the digits 0-9, not 'x'"), ("time", "unexpected 'time'"),
    ("time 1_000", "time is a whole number"), ("time 100 inc 100 inc 100", "inc is given twice"),
    ("time 86400001", "time must be between 1 and 86400000")])
def test_a_bad_clock_is_refused(args, message):
    with pytest.raises(ProtocolError, match=message):
        parse_go_limits(args.split())
