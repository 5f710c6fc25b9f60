"""Thousands of mutated states and views per game, each loaded in a child process: every one
is refused with a ValueError or loads into a playable position; none crashes or hangs
(tests/loader_fuzz.py). Seeded, and bounded in time so the test run stays short."""
import os
import random

import pytest

from engine.registry import GAMES
from loader_fuzz import check_accepted, run_campaign

# A longer campaign: CARAVAN_FUZZ_MUTANTS=10000 CARAVAN_FUZZ_SECONDS=900 CARAVAN_FUZZ_SEED=2026
#   .venv/bin/pytest tests/test_loader_fuzz.py -s
MUTANTS = int(os.environ.get("CARAVAN_FUZZ_MUTANTS", "3000"))
SECONDS = float(os.environ.get("CARAVAN_FUZZ_SECONDS", "40"))
SEED = int(os.environ.get("CARAVAN_FUZZ_SEED", "12"))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_mutated_states_and_views_are_refused_or_playable(game, tmp_path):
    c = run_campaign(game, seed=SEED, mutants=MUTANTS, seconds=SECONDS, save_dir=tmp_path)
    print(f"{game} (seed {SEED}): {c.sent} mutants, {c.accepted} accepted, {c.refused} refused")
    assert not c.findings, "\n".join(c.findings)
    assert c.sent >= 200 and c.refused > 0


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_fuzzers_oracle_allows_what_a_view_may_leave_out(game):
    """A view that leaves out a key the game defaults in views (VIEW_DEFAULTED: Taschkent's
    `setup`) loads, and the oracle that judges accepted mutants agrees it is written back
    as given (the fuzz campaign of seed 4471 once reported such a view as a finding)."""
    from engine.registry import game_info, from_view, new_game

    cls = game_info(game).cls
    g = new_game(game, 2, 5)
    rng = random.Random(5)
    for _ in range(12):
        g.apply(rng.choice(g.legal_moves()))
    view = g.to_json(view=g.to_move)
    if game == "taschkent":
        assert cls.VIEW_DEFAULTED == {"setup"}
    for key in cls.VIEW_DEFAULTED:
        del view[key]
    check_accepted(from_view(view), rng, "view", view)


def test_a_campaigns_mutants_follow_from_its_seed_alone():
    """The mutants of a seed are the same whatever ran before in the process: a mutation
    once edited the shared table of odd values in place (a list or dict put into a document
    and later appended to), so a campaign after another one saw other mutants."""
    import copy

    from loader_fuzz import ODD_VALUES, mutate, samples

    odd_values = copy.deepcopy(ODD_VALUES)

    def mutants(game: str, count: int) -> list:
        rng = random.Random(4471)
        base = samples(game, rng, 20)
        return [mutate(rng.choice(base)[1], rng) for _ in range(count)]

    first = mutants("taschkent", 2000)
    for game in ("khan", "khiva", "kilim"):
        mutants(game, 2000)
    assert ODD_VALUES == odd_values
    assert mutants("taschkent", 2000) == first


def test_a_mutation_swaps_a_field_between_two_seats():
    """The edit that keeps every total (so conservation checks cannot catch it) happens."""
    from loader_fuzz import mutate

    doc = {"player_state": [{"gems": 1, "hand": ["W1"]}, {"gems": 2, "hand": ["B2"]}]}
    swapped = {"player_state": [{"gems": 2, "hand": ["W1"]}, {"gems": 1, "hand": ["B2"]}]}
    rng = random.Random(1)
    assert any(mutate(doc, rng) == swapped for _ in range(3000))
