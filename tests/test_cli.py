"""The caravan command line, run as a user runs it."""
import json
import subprocess
import sys
import tempfile

import pytest

from search.agents import parse_agent, parse_agent_list


def caravan(*args):
    """Run the installed command line from a neutral directory, as a user would."""
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=tempfile.gettempdir())


def test_match_prints_every_turn_and_the_final_table():
    r = caravan("match", "khiva", "--players", "3", "--agents", "ismcts:iterations=200,random,random",
                "--seed", "7")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "turn 1: P0 play-" in out and "camel: P" in out and "scores: P0" in out
    assert "final scores" in out and ("winner:" in out or "shared win:" in out)
    again = caravan("match", "khiva", "--players", "3", "--agents",
                    "ismcts:iterations=200,random,random", "--seed", "7")
    assert again.stdout == out                       # the seed fixes the whole game


def test_match_defaults_to_three_players_ismcts_against_two_random():
    r = caravan("match", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "Khiva, 3 players" in r.stdout
    assert "P0: ismcts" in r.stdout and "P1: random" in r.stdout and "P2: random" in r.stdout


def test_duel_match():
    r = caravan("match", "khiva", "--players", "2", "--agents", "random,random", "--seed", "1")
    assert r.returncode == 0 and "play-" in r.stdout and "-give-" in r.stdout


# usage errors, one command line a row (and the empty command line)
USAGE_ERRORS = """
match chess
match khiva --players 9
match khiva --players 1
match khiva --agents ismcts:iters=5,random,random
match khiva --agents alphazero,random,random
match khiva --agents ismcts:c=-1,random,random
match khiva --agents ismcts:mode=xx,random,random
match khan --players 2 --agents ismcts:score_weight=1.5,random
hint khan --score-weight -0.1
match khiva --players 3 --agents random,random
match khiva --seed x
match khiva --seed -4
match khiva --bogus
match khiva --players 0
hint khiva --time nan
hint khiva --time inf
hint khiva --time -1
hint khiva --players 0
hint khiva --iterations 0
hint khiva --iterations 99999999999999999999
hint khiva --workers 100000
hint khiva --view /dev/zero
hint khiva --view /dev/urandom
match khiva --players 2 --agents ismcts:iterations=99999999999999999999,random
match khiva --players 2 --agents ismcts:seconds=1e9,random
play khiva --hint-iterations 10000000000
hint khiva --score-weight nan
hint khiva --moves play-W9-give-W1
arena khiva --players 0 --agents random,random
arena khiva --players 2 --agents random,random --games 1000000000000000
arena khiva --players 2 --agents random,random --games 2 --sprt=-1e308,1e308
frobnicate
"""


@pytest.mark.parametrize("args", [line.split() for line in USAGE_ERRORS.strip().splitlines()] + [[]])
def test_usage_errors_exit_2_with_one_line(args):
    r = caravan(*args)
    assert r.returncode == 2
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    if args:
        assert len(lines) == 1 and lines[0].startswith("caravan: error:"), r.stderr
    assert "Traceback" not in r.stderr


def test_agent_list_grouping():
    specs = parse_agent_list("ismcts:iterations=2000,c=0.7,random")
    assert [s.kind for s in specs] == ["ismcts", "random"]
    assert specs[0].options == {"iterations": 2000, "c": 0.7}
    specs = parse_agent_list("ismcts:seconds=0.5,mode=mo,ismcts,random")
    assert [str(s) for s in specs] == ["ismcts:seconds=0.5,mode=mo", "ismcts", "random"]
    # time= is the older name of seconds=, still accepted (but not both at once)
    assert str(parse_agent("ismcts:time=0.5")) == "ismcts:seconds=0.5"
    with pytest.raises(ValueError, match="given twice"):
        parse_agent("ismcts:time=0.5,seconds=1")
    with pytest.raises(ValueError):
        parse_agent_list("c=0.7,random")
    with pytest.raises(ValueError):
        parse_agent("random:iterations=5")
    with pytest.raises(ValueError):
        parse_agent("ismcts:iterations=0")


def test_an_illegal_move_in_hint_lists_the_legal_moves():
    r = caravan("hint", "khiva", "--players", "3", "--seed", "7", "--moves", "play-W5-give-W1 zzz")
    assert r.returncode == 2
    assert "move 2 (zzz)" in r.stderr and "legal: play-" in r.stderr


def test_hint_shows_the_board_and_hand_it_hints_for_and_how_it_ranks():
    r = caravan("hint", "khiva", "--players", "3", "--seed", "7", "--iterations", "300")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "as P0, the seat to move, sees it" in out
    assert "hand: W1 W4 W5 G3 P4" in out and "hand: 5 cards" in out
    assert "ranked by visits" in out
    visits = [int(line.rsplit("visits ", 1)[1].replace(",", "")) for line in out.splitlines()
              if " visits " in line and line.strip()[0].isdigit()]
    assert len(visits) == 5 and visits == sorted(visits, reverse=True)


def test_an_external_engine_that_fails_is_not_a_usage_error(tmp_path):
    """A cmd: engine that answers an illegal move ends `caravan match` with exit code 3."""
    engine = tmp_path / "liar.py"
    engine.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    w = line.split()\n"
        "    if w and w[0] == 'uci': print('uciok', flush=True)\n"
        "    elif w and w[0] == 'isready': print('readyok', flush=True)\n"
        "    elif w and w[0] == 'go': print('bestmove play-Z9-give-Z8', flush=True)\n"
        "    elif w and w[0] == 'quit': break\n")
    spec = f"cmd:{sys.executable} {engine},timeout=30"
    r = caravan("match", "khiva", "--players", "2", "--agents", f"{spec},random", "--quiet")
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert r.stderr.startswith("caravan: engine failed:") and "not a legal move" in r.stderr


def test_an_error_quoting_a_huge_argument_is_still_one_short_line():
    """argparse quotes an unrecognized argument whole: 90,000 characters were one 'line'."""
    r = caravan("hint", "taschkent", "--bogus", "iron:R2a," * 10_000)
    assert r.returncode == 2
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("caravan: error: unrecognized arguments")
    assert len(lines[0]) <= len("caravan: error: ") + 500 and lines[0].endswith("...")


def test_hint_takes_the_games_set_up_options_in_its_seed_form():
    """`caravan hint khan --khans ...` hints the game dealt with those Khans, as `match` and
    the protocol's `position` take them; a two-word option has the usual hyphen, and the
    underscore spelling is accepted too."""
    r = caravan("hint", "khan", "--players", "4", "--seed", "3", "--khans",
                "impala,bison,morokanth,sable", "--iterations", "200", "--top", "1")
    assert r.returncode == 0, r.stderr
    assert "P1 Bison Riders" in r.stdout and "P3 Sable Nation" in r.stdout
    hyphen = caravan("hint", "taschkent", "--players", "4", "--seed", "3", "--neutral-region",
                     "5", "--iterations", "200", "--json")
    underscore = caravan("hint", "taschkent", "--players", "4", "--seed", "3",
                         "--neutral_region", "5", "--iterations", "200", "--json")
    default = caravan("hint", "taschkent", "--players", "4", "--seed", "3", "--iterations",
                      "200", "--json")
    assert hyphen.returncode == 0, hyphen.stderr

    def answer(r):                                  # all but the time it took
        return {k: v for k, v in json.loads(r.stdout).items() if k != "seconds"}
    assert answer(hyphen) == answer(underscore) != answer(default)


@pytest.mark.parametrize("args, message", [
    (("hint", "khiva", "--khans", "impala"), "--khans does not apply to Khiva"),
    (("match", "khiva", "--neutral-region", "3"), "--neutral-region does not apply to Khiva"),
    (("hint", "khan", "--view", "{}", "--khans", "impala"), "either --view or the seed form"),
])
def test_a_game_option_where_it_cannot_apply_is_a_usage_error(args, message):
    r = caravan(*args)
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.splitlines()) == 1
