"""bench/hand_oracle.py, the ceiling docs/strength.md quotes for a better model of the hidden
cards in a Khiva duel: the oracle's worlds must keep the opponent's hand (else it measures
nothing) and redraw the rest, and the script must run and print its interval."""
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from engine.registry import new_game  # noqa: E402
from hand_oracle import with_opponent_hand_known  # noqa: E402


def hand(state, seat):
    return sorted(state.to_json()["player_state"][seat]["hand"])


def test_the_oracles_worlds_keep_the_opponents_hand_and_redraw_the_rest():
    for deal in (2026003, 2026011, 2026020):
        state = new_game("khiva", 2, seed=deal)
        rng = random.Random(deal)
        for _ in range(3):
            state.apply(rng.choice(state.legal_moves()))
        me, opponent = state.to_move, 1 - state.to_move
        oracle = with_opponent_hand_known(state)
        assert oracle.to_json(view=me)["player_state"] == state.to_json(view=me)["player_state"]
        honest_kept, piles_redrawn = 0, 0
        for seed in range(6):
            world = oracle.determinized(me, seed)
            assert hand(world, opponent) == hand(state, opponent)
            honest_kept += hand(state.determinized(me, seed), opponent) == hand(state, opponent)
            piles_redrawn += world.to_json()["teapot_pile"] != state.to_json()["teapot_pile"]
        assert honest_kept < 6 and piles_redrawn > 0


def test_the_script_plays_and_prints_an_interval():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "hand_oracle.py"),
                           "--iterations", "30", "--games", "2", "--jobs", "1"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"hand oracle, 30 iterations, against ismcts: [0-9.]+/2 = "
                        r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]\n", done.stdout), done.stdout
