"""The caravan command line, run as a user runs it."""
import json
import os
import re
import subprocess
import sys
import tempfile

import pytest

from search.agents import parse_agent, parse_agent_list

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def caravan(*args, input_text=None):
    """Run the installed command line from a neutral directory, as a user would."""
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=tempfile.gettempdir(), input=input_text)


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
match khiva --players 2 --agents ismcts:seconds=1e-3,random
match khiva --players 2 --agents ismcts:iterations=+50,random
match khiva --players 2 --agents ismcts:iterations=5_0,random
match khiva --players 2 --agents ismcts:c=１,random
match khiva --players 2 --agents ismcts:c=.5,random
match khiva --agents random,random --seed -0
match khan --players 3 --khans impala,,bison
hint khiva --seconds 1e-3
arena khiva --agents random --games 2 --ladder ismcts:iterations=5,+5
arena khiva --agents random --games 2 --ladder ismcts:seconds=0.01,0.010
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


def test_the_documented_json_hint_is_what_hint_prints():
    """docs/protocol.md's `caravan hint ... --json` example, all but the time it took (a docs
    audit found it left from an older search)."""
    doc = open(os.path.join(ROOT, "docs", "protocol.md"), encoding="utf-8").read()
    command = "$ caravan hint khan --players 4 --seed 3 --iterations 20000 --top 1 --json\n"
    documented = json.loads(doc.split(command)[1].splitlines()[0])
    r = caravan(*command.split()[2:])
    assert r.returncode == 0, r.stderr
    printed = json.loads(r.stdout)
    assert {**printed, "seconds": None} == {**documented, "seconds": None}


def test_hint_takes_a_full_state_as_its_view_and_hints_as_from_the_seed_form(tmp_path):
    """--view takes a seat's view or a full state, as the protocol's `position ... view`
    does; the search reads only the seat to move's information from either (a docs audit
    found the full state refused with "(root): missing key 'view'")."""
    from engine.registry import new_game
    state = tmp_path / "state.json"
    state.write_text(json.dumps(new_game("khiva", 3, 7).to_json()))
    full = caravan("hint", "khiva", "--view", str(state), "--iterations", "300", "--top", "2")
    seed = caravan("hint", "khiva", "--players", "3", "--seed", "7", "--iterations", "300",
                   "--top", "2")
    assert full.returncode == 0, full.stderr

    def untimed(out):                       # the hints' line says how long the search took
        return re.sub(r"iterations in [0-9.]+ s", "iterations in - s", out)
    assert "iterations in" in full.stdout and untimed(full.stdout) == untimed(seed.stdout)


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


def record_file(tmp_path, name="game.json"):
    """A finished random game's record, as `caravan match --record` writes it."""
    path = tmp_path / name
    r = caravan("match", "khiva", "--agents", "random,random,random", "--quiet", "--record",
                str(path))
    assert r.returncode == 0, r.stderr
    return path


def test_the_shortest_time_budget_still_searches(tmp_path):
    """A time budget that ends before the first chunk (a nanosecond) used to give a search of
    no iterations: review and play --coach crashed on it and hint printed no move."""
    hint = caravan("hint", "khiva", "--seconds", "0.000000001", "--json")
    assert hint.returncode == 0, hint.stderr
    answer = json.loads(hint.stdout)
    assert answer["iterations"] > 0 and answer["moves"]
    review = caravan("review", str(record_file(tmp_path)), "--seconds", "0.000000001",
                     "--seats", "0")
    assert review.returncode == 0, review.stderr
    assert "decisions reviewed" in review.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("redirect", ["--record /dev/full", "> /dev/full"])
def test_a_full_disk_is_one_line_and_exit_code_1(redirect):
    """Writing the record or the game itself onto a full disk was a traceback."""
    r = subprocess.run(f"{sys.executable} -m engine.cli match khiva --agents "
                       f"random,random,random --quiet {redirect}", shell=True,
                       capture_output=True, text=True, timeout=300, cwd=tempfile.gettempdir())
    assert r.returncode == 1
    assert r.stderr.startswith("caravan: error: cannot write") and len(r.stderr.splitlines()) == 1
    assert "No space left" in r.stderr


def test_a_failed_game_leaves_the_record_file_as_it_was(tmp_path):
    """The record file is checked before the game and written after it: a game that fails
    neither empties an existing file nor leaves a new empty one behind."""
    kept = tmp_path / "kept.json"
    kept.write_text('{"x": 1}\n')
    fresh = tmp_path / "fresh.json"
    for path in (kept, fresh):
        r = caravan("match", "khiva", "--agents", "cmd:true,random,random", "--record",
                    str(path))
        assert r.returncode == 3, r.stderr
    assert kept.read_text() == '{"x": 1}\n' and not fresh.exists()
    again = caravan("match", "khiva", "--agents", "random,random,random", "--quiet",
                    "--record", str(kept))
    assert again.returncode == 0 and json.loads(kept.read_text())["game"] == "khiva"


def test_an_arena_output_name_taken_by_a_directory_is_refused_before_the_first_game(tmp_path):
    (tmp_path / "out" / "summary.json").mkdir(parents=True)
    r = caravan("arena", "khiva", "--players", "2", "--agents", "random,random", "--games",
                "2", "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "summary.json" in r.stderr and len(r.stderr.splitlines()) == 1
    assert not (tmp_path / "out" / "games.jsonl").exists()


def test_closed_standard_streams():
    """stdin closed reads as the end of input; stdout closed is one line on stderr."""
    play = subprocess.run(f"{sys.executable} -m engine.cli play khiva --agents random <&-",
                          shell=True, capture_output=True, text=True, timeout=300,
                          cwd=tempfile.gettempdir())
    assert play.returncode == 0 and "end of input" in play.stdout, play.stderr
    games = subprocess.run(f"{sys.executable} -m engine.cli games >&-", shell=True,
                           capture_output=True, text=True, timeout=300)
    assert games.returncode == 2 and games.stderr == "caravan: error: standard output is closed\n"


def test_caravan_without_a_command_names_the_commands():
    r = caravan()
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("caravan: error: a command is needed: one of match, play")
    assert len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("args, message", [
    (("arena", "khiva", "--agents", "", "--games", "2"), "empty item"),
    (("arena", "khiva", "--agents", "random,random", "--out", ""), "needs a name"),
    (("arena", "khiva", "--agents", "random,random", "--sprt", ""), "--sprt takes"),
    (("arena", "khiva", "--agents", "heuristic", "--ladder", ""), "a ladder is"),
    (("arena", "khiva", "--agents", "heuristic", "--ladder", "ismcts:iterations=5,,10"),
     "empty item"),
    (("arena", "khiva", "--agents", "heuristic", "--ladder", "ismcts:iterations=5,5"),
     "names a value twice"),
    (("match", "khiva", "--record", ""), "needs a name"),
    (("play", "khiva", "--agents", ""), "empty item"),
    (("play", "khiva", "--seats", ""), "--seats takes"),
    (("play", "khiva", "--record", ""), "needs a name"),
    (("hint", "khiva", "--view", "{}", "--seed", "9"), "either --view or the seed form"),
    (("hint", "khiva", "--search-seed", "-1"), "must be at least 0"),
    (("arena", "khiva", "--seed", str(2**64)), "must be at most"),
    (("match", "khiva", "--seed", "+5"), "digits 0-9"),
    (("match", "khiva", "--seed", "\uff15"), "digits 0-9"),
    (("play", "khiva", "--players", "3_0"), "digits 0-9"),
    (("hint", "khiva", "--seconds", "1_0"), "must be a number of seconds"),
    (("hint", "khiva", "--seconds", "0"), "seconds above 0 and at most 86400, not 0"),
    (("play", "khiva", "--hint-seconds", "0"), "seconds above 0 and at most 86400, not 0"),
    (("play", "khiva", "--hint-seconds", "1_0"), "must be a number of seconds"),
    (("play", "khiva", "--hint-iterations", str(10**10)), "must be at most"),
    (("match", "khiva", "--agents", "random"), "--agents names 1 agent, one a seat"),
    (("match", "khiva", "--address", "bogus:1"), "give --workers above 1 too"),
    (("replay", "-"), "standard input holds no game record (it is empty)"),
    (("review", "/dev/null"), "holds no game record"),
    (("replay", "-", "--seat", "\u00b2"), "--seat takes a seat number"),
    (("review", "-", "--seats", "\u2460"), "--seats takes seat numbers"),
    (("replay", "-", "--seat", "9" * 5000), "--seat takes a seat number"),
    (("hint", "khiva", "--search-seed", "-0"), "digits 0-9"),
])
def test_usage_mistakes_are_one_line_and_exit_code_2(args, message):
    r = subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                       text=True, timeout=300, cwd=tempfile.gettempdir(), input="")
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert message in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr


def test_a_unicode_digit_at_the_move_prompt_is_not_a_move_number():
    """'²' passes str.isdigit() but not int(): it ended the game with an internal error."""
    r = subprocess.run([sys.executable, "-m", "engine.cli", "play", "khiva", "--agents",
                        "random", "--seed", "1"], input="\u00b2\nquit\n", capture_output=True,
                       text=True, timeout=300, cwd=tempfile.gettempdir())
    assert r.returncode == 0 and r.stderr == ""
    assert "you left the game" in r.stdout


def test_a_bad_line_in_a_json_lines_file_is_named(tmp_path):
    record = record_file(tmp_path).read_text()
    lines = tmp_path / "games.jsonl"
    lines.write_text(record + "garbage}\n" + record)
    bad = caravan("replay", str(lines), "--line", "2")
    assert bad.returncode == 2 and "game record on line 2 is not valid JSON" in bad.stderr
    good = caravan("replay", str(lines), "--line", "3")
    assert good.returncode == 0 and "Khiva, 3 players" in good.stdout
    whole = caravan("replay", str(lines))
    assert whole.returncode == 2 and "caravan review --all" in whole.stderr
    wrong = caravan("replay", "-", input_text="[1, 2]")
    assert wrong.returncode == 2 and wrong.stderr.endswith(
        "(root): the game record must be a JSON object, not an array\n")


def test_a_seed_may_be_the_largest_64_bit_number_and_no_larger(capsys):
    """README: seeds are 64-bit, 0 to 2^64 - 1 (engine.arguments.int_in: both ends are
    taken); one more is a usage mistake, exit 2 and one line."""
    from engine import cli
    top = str(2**64 - 1)
    assert cli.main(["hint", "khiva", "--seed", top, "--iterations", "10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["iterations"] == 10
    assert cli.main(["hint", "khiva", "--seed", str(2**64), "--iterations", "10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"must be at most {2**64 - 1:,}" in err
