"""searchmoves (UCI's name): a search that considers only the root moves it is given, in the
API, the protocol and `caravan hint`."""
import subprocess
import sys

import pytest

from engine.registry import new_game
from protocol_client import CANDIDATE, INFO, Client
from search.config import game_config
from search.ismcts import Searcher, new_tree, search
from search.suggest import suggest

KHIVA = dict(game="khiva", players=3, seed=7)
ONLY = ["play-W1-give-P4", "play-W4-give-W5"]


def khiva():
    return new_game(KHIVA["game"], KHIVA["players"], KHIVA["seed"])


def test_only_the_searchmoves_are_searched_and_ranked():
    g = khiva()
    r = search(g, iterations=3000, seed=1, searchmoves=ONLY)
    assert sorted(s.text for s in r.stats) == sorted(ONLY) and r.text in ONLY
    assert sum(s.visits for s in r.stats) == r.iterations == 3000
    whole = search(g, iterations=3000, seed=1)
    assert len(whole.stats) == len(g.legal_moves()) > 2


def test_moves_as_ints_or_notation_search_alike():
    g = khiva()
    ints = [g.parse_move(m) for m in ONLY]
    a = search(g, iterations=2000, seed=4, searchmoves=ONLY)
    b = search(g, iterations=2000, seed=4, searchmoves=tuple(reversed(ints)))
    c = search(g, iterations=2000, seed=4, searchmoves=[m.upper() for m in ONLY])
    key = [(s.move, s.visits, s.mean_reward) for s in a.stats]
    assert key == [(s.move, s.visits, s.mean_reward) for s in b.stats] \
        == [(s.move, s.visits, s.mean_reward) for s in c.stats]


@pytest.mark.parametrize("bad,message", [
    ("play-W1-give-P4", "a list of moves"), ([], "at least one move"),
    (["nope"], "not a legal move"), ([10**9], "not a legal move of seat 0"),
    ([ONLY[0], ONLY[0]], "twice"), ([True], "an int or its notation"),
    ([1.5], "an int or its notation"), ({"m": 1}, "a list of moves"),
    (["play-W1-give-P4"] * 99, "names 99 moves"),
])
def test_bad_searchmoves_are_refused_and_change_nothing(bad, message):
    g = khiva()
    before = g.to_json()
    with pytest.raises(ValueError, match=message):
        search(g, iterations=100, seed=1, searchmoves=bad)
    with pytest.raises(ValueError, match=message):
        suggest(g, 100, searchmoves=bad)
    assert g.to_json() == before and search(g, iterations=100, seed=1).iterations == 100


def test_the_tree_restricts_its_root_only_before_it_runs_and_until_a_reroot():
    g = khiva()
    t = new_tree(g, 0, game_config("khiva", 3), 1)
    t.run(100)
    with pytest.raises(ValueError, match="before the search runs"):
        t.restrict_root([g.legal_moves()[0]])
    s = Searcher(seed=2)
    first = s.search(g, 2000)                            # every move, its tree kept
    restricted = s.search(g, 2000, searchmoves=ONLY)     # the kept tree, its root restricted
    assert s.reused == 1
    assert sorted(m.text for m in restricted.stats) == sorted(ONLY)
    assert len(s.search(g, 2000).stats) == len(first.stats)   # the next search: every move


def test_states_the_searcher_cannot_tell_apart_give_the_same_restricted_search():
    g = khiva()
    twin = next(t for t in (g.determinized(0, 50 + k) for k in range(20))
                if t.to_json() != g.to_json())
    a, b = (search(s, iterations=3000, seed=3, searchmoves=ONLY, lines=True) for s in (g, twin))
    assert [(s.move, s.visits, s.line) for s in a.stats] == \
        [(s.move, s.visits, s.line) for s in b.stats]


def test_suggest_ranks_the_searchmoves():
    sug = suggest(khiva(), 2000, top_k=5, searchmoves=ONLY)
    assert len(sug.moves) == 2 and {m.text for m in sug.moves} == set(ONLY)


def test_protocol_go_and_hint_take_searchmoves():
    c = Client()
    c.send("position khiva players 3 seed 7")
    go = c.ask(f"go iterations 2000 searchmoves {' '.join(ONLY)}", "bestmove", timeout=60)
    cands = [CANDIDATE.match(l) for l in go if l.startswith("info multipv")]
    assert sorted(m["move"] for m in cands) == sorted(ONLY)
    assert go[-1].split()[1] in ONLY
    go = c.ask(f"go searchmoves {ONLY[1]} iterations 500", "bestmove", timeout=60)
    assert go[-1] == f"bestmove {ONLY[1]}"
    c.send("setoption name Iterations value 1000")
    hint = c.ask(f"hint 5 searchmoves {ONLY[0]}", "hintok", timeout=60)
    assert [CANDIDATE.match(l)["move"] for l in hint if l.startswith("hint ")] == [ONLY[0]]
    assert c.ask("go searchmoves", "bestmove") == [
        "info string error searchmoves needs at least one move", "bestmove (none)"]
    assert c.ask(f"go searchmoves {ONLY[0]} searchmoves {ONLY[1]}", "bestmove") == [
        "info string error searchmoves is given twice", "bestmove (none)"]
    bad = c.ask("go searchmoves play-X", "bestmove")
    assert bad[0].startswith("info string error 'play-X' is not a legal move") and \
        bad[1] == "bestmove (none)"
    assert c.ask("hint 2 3", "hintok") == [
        "info string error usage: hint [<k>] [go's limits] [searchmoves <move>...]", "hintok"]
    c.close()


def test_caravan_hint_searchmoves():
    run = [sys.executable, "-m", "engine.cli", "hint", "khiva", "--players", "3", "--seed", "7",
           "--iterations", "2000"]
    ok = subprocess.run(run + ["--searchmoves", " ".join(ONLY)], capture_output=True,
                        text=True, timeout=120)
    assert ok.returncode == 0
    ranked = [l.split()[1] for l in ok.stdout.splitlines() if l[:3].strip().rstrip(".").isdigit()]
    assert sorted(ranked) == sorted(ONLY)
    bad = subprocess.run(run + ["--searchmoves", "play-X"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("caravan: error: 'play-X' is not a legal move") and \
        bad.stderr.count("\n") == 1


def test_hint_takes_go_s_limits():
    """`hint [k] [iterations n] [movetime ms] ...`: a hint with its own budget, without a
    setoption round trip; the limits are checked as go's."""
    c = Client()
    c.send("position khiva players 3 seed 7")
    hint = c.ask("hint 2 iterations 1500", "hintok", timeout=60)
    assert INFO.match(hint[0]) and hint[0].startswith("info iterations 1500 ")
    assert len([l for l in hint if l.startswith("hint rank")]) == 2
    hint = c.ask(f"hint iterations 800 searchmoves {ONLY[0]}", "hintok", timeout=60)
    assert hint[0].startswith("info iterations 800 ") and hint[1].split()[4] == ONLY[0]
    assert c.ask("hint 2 iterations 0", "hintok") == [
        "info string error iterations must be between 1 and 1000000000", "hintok"]
    assert c.ask("hint inc 5", "hintok") == [
        "info string error inc and movestogo belong to a clock: give its time too", "hintok"]
    c.close()


def test_the_searchmoves_end_at_infinite():
    """docs/protocol.md, "go": the searchmoves run to the next limit word (`infinite`
    included) or the end of the line. The end of input stops the infinite search."""
    import io

    from engine import protocol

    def session(line):
        out = io.StringIO()
        script = f"position khiva players 3 seed 7\n{line} searchmoves {' '.join(ONLY)} infinite\n"
        assert protocol.serve(io.StringIO(script), out) == 0
        lines = out.getvalue().splitlines()
        assert not [x for x in lines if x.startswith("info string error")], lines
        return lines
    assert session("go")[-1].split()[1] in ONLY
    hints = [x.split()[4] for x in session("hint 2") if x.startswith("hint ")]
    assert sorted(hints) == sorted(ONLY)
