"""Thousands of mutated states and views per game, each loaded in a child process: every one
is refused with a ValueError or loads into a playable position; none crashes or hangs
(tests/loader_fuzz.py). Seeded, and bounded in time so the test run stays short."""
import os

import pytest

from engine.registry import GAMES
from loader_fuzz import run_campaign

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
