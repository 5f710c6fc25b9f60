"""Seeds are 64-bit everywhere (engine.arguments.SEED_MAX, search.config.SEED_SPACE): the
seeds derived from a caller's seed (a deal's, a seat's, a decision's) count modulo 2**64, so
seeds s and s + 2**63, or s and -s, never give the same games by a shorter fold; and the
derivation of the seeds in use (small ones) is what it always was, so recorded games replay."""
import pytest

from engine.registry import new_game
from search.agents import parse_agent
from search.arena import deal_seed, plan
from search.match import agent_seed, play_game
from search.review import decision_seed

HALF = 2**63


def test_derived_seeds_of_small_seeds_are_unchanged():
    """The values every recorded arena, match and review game was played with."""
    assert deal_seed(2026, 3) == 9_989_374_141
    assert plan(2, 2, 2, 2026)[1].agent_seed(2026, 1) == 2_026_118_727
    assert agent_seed(7, 2) == 264_908
    assert decision_seed(9, 12) == 9_095_055


@pytest.mark.parametrize("seed", [0, 5, 2**62 + 3, HALF - 1])
def test_seeds_half_the_seed_space_apart_derive_different_seeds(seed):
    other = seed + HALF
    assert deal_seed(seed, 4) != deal_seed(other, 4)
    assert plan(3, 3, 6, seed)[2].agent_seed(seed, 1) != \
        plan(3, 3, 6, other)[2].agent_seed(other, 1)
    assert agent_seed(seed, 1) != agent_seed(other, 1)
    assert decision_seed(seed, 7) != decision_seed(other, 7)
    assert all(0 <= s < 2**64 for s in (deal_seed(other, 4), agent_seed(other, 1),
                                         decision_seed(other, 7)))


@pytest.mark.parametrize("kind", ["random", "heuristic"])
def test_a_negative_seed_is_not_its_positive_twin(kind):
    """random.Random(-s) is random.Random(s): the agents take their seed modulo 2**64, as the
    search does."""
    def moves(seed):
        agents = [parse_agent(kind).build(seed), parse_agent("random").build(1)]
        return play_game("khan", agents, seed=3).moves
    assert moves(5) == moves(5)
    assert moves(5) != moves(-5)
    assert moves(-5) == moves(2**64 - 5)


def test_an_arena_seed_past_half_the_seed_space_deals_other_games():
    a = plan(2, 2, 4, 5)
    b = plan(2, 2, 4, 5 + HALF)
    assert [t.game_seed for t in a] != [t.game_seed for t in b]
    assert new_game("khiva", 2, b[0].game_seed).to_json() != \
        new_game("khiva", 2, a[0].game_seed).to_json()
