"""`caravan play` driven with scripted standard input, as a person at a terminal plays."""
import subprocess
import sys

import pytest

from engine.registry import GAMES


def play(*args, script):
    return subprocess.run([sys.executable, "-m", "engine.cli", "play", *args], input=script,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_game_against_random_seats_by_move_numbers(game):
    players = max(2, GAMES[game].min_players)
    r = play(game, "--players", str(players), "--agents", "random", "--seed", "3",
             script="1\n" * 3000)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "You are P0. Your moves:" in out and "P0> " in out
    assert "final scores" in out and "winner" in out or "shared win" in out


def test_commands_bad_input_hint_and_undo():
    script = "help\nhint 2\nno-such-move\n999\nmoves\n1\nundo\nboard\nquit\n"
    r = play("khiva", "--players", "3", "--agents", "random", "--seed", "5",
             "--hint-iterations", "100", script=script)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "commands:" in out                                   # help
    assert "  1. play-" in out and "% win" in out               # the hint lists ranked moves
    assert "'no-such-move' is not a legal move" in out
    assert "There is no move 999" in out
    # the choices of P1 and P2 were revealed after P0's: no taking it back to choose again
    assert "That cannot be taken back: since then you have seen what was hidden" in out
    assert "Taken back" not in out
    assert out.count("turn 0, phase choose, to move: 0") == 1
    assert out.rstrip().endswith("you left the game")


def test_the_last_move_number_plays_the_last_move_and_hint_lists_three():
    """engine/play.py HELP: `<number>` plays the move of that number, 1 to the number of
    moves (the last included); `hint [k]` shows the k best moves, 3 without k."""
    from engine.registry import new_game
    moves = new_game("khiva", 3, 5).legal_moves()
    last = new_game("khiva", 3, 5).move_to_text(moves[-1])
    r = play("khiva", "--players", "3", "--agents", "random", "--seed", "5",
             "--hint-iterations", "60", script=f"hint\n{len(moves)}\nquit\n")
    assert r.returncode == 0, r.stderr
    ranked = [line.split(".")[0].strip() for line in r.stdout.splitlines()
              if line.startswith("  ") and "% win" in line]
    assert ranked == ["1", "2", "3"], r.stdout
    assert f"turn 1: P0 {last} " in r.stdout and "There is no move" not in r.stdout


def test_the_final_table_lists_a_shared_place_by_seat():
    """The final scores, best place first; seats sharing a place in seat order."""
    import io

    from engine.play import print_score_table
    out = io.StringIO()
    print_score_table(out, [2, 1, 1], [3, 7, 7], ["random", "heuristic", "ismcts"])
    rows = [line.split()[1] for line in out.getvalue().splitlines()[3:6]]
    assert rows == ["P1", "P2", "P0"] and "shared win: P1, P2" in out.getvalue()


UNDO_REFUSED = "That cannot be taken back: since then you have seen what was hidden before it"


def test_undo_takes_back_a_decision_that_showed_nothing_hidden():
    """Taschkent: taking 1 Tugrik shows nobody anything, and P0 decides again at once."""
    r = play("taschkent", "--players", "3", "--agents", "random", "--seed", "0",
             script="1\nundo\nquit\n")
    assert r.returncode == 0, r.stderr
    assert "P0 takes 1 Tugrik" in r.stdout and "Taken back to your previous decision." in r.stdout
    assert r.stdout.count("to move: P0 (action)") == 2 and UNDO_REFUSED not in r.stdout


def test_undo_cannot_take_back_a_raid_whose_card_was_seen():
    """Khan: the raid turned over the deck's top card. Replayed from the seed, the deck is
    the same: an undo would let the player choose another deck knowing that card."""
    r = play("khan", "--players", "2", "--agents", "random", "--seed", "3",
             script="raid-boldhome\nundo\nquit\n")
    assert r.returncode == 0, r.stderr
    assert UNDO_REFUSED in r.stdout and "Taken back" not in r.stdout


def test_a_refused_undo_changes_nothing_at_a_table_of_two():
    """Two people at one keyboard, Khiva: once the choices were revealed, an undo is
    refused and the game stays as it was."""
    from engine.play import Table, UndoRefused
    from engine.registry import game_info
    t = Table(game_info("khiva"), 2, 4, [0, 1], {}, {})
    while t.state.to_move == 0 or not any(s == 1 for s, _ in t.history):
        t.play(t.state.to_move, t.state.legal_moves()[0])
    history, view = list(t.history), t.state.to_json(view=0)
    with pytest.raises(UndoRefused):
        t.undo(t.state.to_move)
    assert t.history == history and t.state.to_json(view=0) == view   # nothing changed


def test_a_game_without_seed_keeps_its_seed_secret_until_it_ends():
    """The seed gives away every hidden card (views leave it out): `play` without --seed
    draws one at random and names it only when the game is left."""
    r = play("khiva", "--players", "3", "--agents", "random", script="board\nquit\n")
    assert r.returncode == 0, r.stderr
    head, _, tail = r.stdout.partition("you left the game")
    assert "Khiva, 3 players, a secret seed (shown when the game ends)" in head
    assert "seed" not in head.replace("a secret seed (shown when the game ends)", "")
    seed = int(tail.split("The game was dealt from seed ")[1].split(".")[0])
    again = play("khiva", "--players", "3", "--agents", "random", "--seed", str(seed),
                 script="board\nquit\n")
    assert f"Khiva, 3 players, seed {seed}" in again.stdout
    assert again.stdout.split("Type help")[1].split("you left")[0] == \
        head.split("Type help")[1]                               # the same deal, from that seed


def test_an_endless_line_is_refused_and_the_game_goes_on():
    """A line far longer than any command is skipped unread (it was read whole into memory)."""
    script = "x" * 5_000_000 + "\nmoves\nquit\n"
    r = play("khiva", "--players", "3", "--agents", "random", "--seed", "5", script=script)
    assert r.returncode == 0, r.stderr
    assert "a line of more than 10,000 characters is no move or command" in r.stdout
    assert "xxxxxxxxxx" not in r.stdout                         # not echoed into the transcript
    assert r.stdout.rstrip().endswith("you left the game")


def test_a_number_too_long_for_a_move_or_extra_words_are_refused_and_the_game_goes_on():
    """int() of thousands of digits raises (Python's limit): that ended the game with exit 2."""
    script = "9" * 5000 + "\nquit now\nhint 2 3\nhint +2\nmoves\nquit\n"
    r = play("khiva", "--players", "2", "--agents", "random", "--seed", "1",
             "--hint-iterations", "20", script=script)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "There is no move 99999999999999999999...: choose 1 to" in out
    assert "quit takes nothing after it; type help" in out
    assert out.count("usage: hint [k], k a positive number") == 2
    assert out.rstrip().endswith("you left the game")


def test_the_hint_budget_takes_both_limits_whichever_ends_first():
    from engine.play import hint_budget
    from search.config import DEFAULT_SECONDS, Budget

    assert hint_budget(20, 0.5) == Budget(iterations=20, seconds=0.5)
    assert hint_budget(20, None) == Budget(iterations=20)
    assert hint_budget(None, 0.5) == Budget(seconds=0.5)
    assert hint_budget(None, None) == Budget(seconds=DEFAULT_SECONDS)
    with pytest.raises(ValueError, match="--hint-seconds"):
        hint_budget(20, 0.0)


def test_the_board_never_shows_another_seats_hand():
    r = play("khiva", "--players", "3", "--agents", "random", "--seed", "5", script="quit\n")
    out = r.stdout
    assert "P0: score" in out and "hand: 5 cards" in out      # others' hands are counts only
    board = [l for l in out.splitlines() if l.startswith(("  P1: score", "  P2: score"))]
    assert board and all(l.endswith("hand: 5 cards") for l in board)


def test_two_people_at_one_keyboard_pass_it_and_see_only_their_own_gifts():
    script = "\n1\n\n1\n" + "\n1\n" * 3000
    r = play("khiva", "--players", "3", "--seats", "0,1", "--agents", "random", "--seed", "2",
             script=script)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "Pass the keyboard to P1" in out and "Pass the keyboard to P0" in out
    reveal = next(l for l in out.splitlines() if l.startswith("turn 1: "))
    assert "give-??" in reveal                # some gift is hidden from the seat being told
    assert "final scores" in out


@pytest.mark.parametrize("args", [["khiva", "--seat", "5"], ["khiva", "--seats", "0,0"],
                                  ["khiva", "--players", "0"], ["chess"],
                                  ["khiva", "--seat", "0", "--seats", "1"],
                                  ["khiva", "--players", "4", "--agents", "random,random"],
                                  ["khiva", "--players", "2", "--seats", "0,1", "--agents", "x"],
                                  ["khiva", "--hint-seconds", "1e-3"],
                                  ["khiva", "--seed", "-0"]])
def test_command_line_mistakes_are_one_line_and_exit_code_2(args):
    r = play(*args, script="")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("caravan: error:"), r.stderr


def test_the_coach_judges_each_decision_as_a_review_of_the_record_would(tmp_path):
    """--coach: a line after each of your decisions that offered a choice; at an iteration
    budget, the same verdicts as `caravan review` of the game's record at that budget."""
    import json

    from search.match import record_from_json
    from search.review import review_game

    path = tmp_path / "game.json"
    r = play("khan", "--players", "2", "--agents", "heuristic", "--seed", "4", "--coach",
             "--hint-iterations", "800", "--record", str(path), script="1\n2\n1\n3\n2\nquit\n")
    assert r.returncode == 0, r.stderr
    said = [line for line in r.stdout.splitlines() if line.startswith("coach: ")]
    review = review_game(record_from_json(json.loads(path.read_text())), 800, seats=[0])
    assert len(said) == len(review.decisions) >= 4
    for line, d in zip(said, review.decisions):
        assert line.startswith(f"coach: {d.played} ")
        if d.agreed:
            assert line.endswith(f"is the search's choice too ({d.played_win:.1%} win)")
        else:
            assert f"the search prefers {d.best} {d.best_win:.1%}" in line
            assert (d.label in line) if d.label else ("blunder" not in line)
