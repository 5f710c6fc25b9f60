"""Arena statistics checked against known values."""
import json
import math

import pytest

from search.stats import Sprt, elo_estimate, elo_from_score, score_from_elo, sign_test, wilson


def test_wilson_interval_known_values():
    lo, hi = wilson(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775
    lo, hi = wilson(50, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.4038, 0.5962)
    assert wilson(0, 0) == (0.0, 1.0)


def test_sign_test_known_values():
    # two-sided exact binomial p-values, as scipy.stats.binomtest(k, n, 0.5) gives them
    assert sign_test(15, 19) == pytest.approx(0.6075913612730801, rel=1e-12)
    assert sign_test(29, 21) == pytest.approx(0.3222363203575469, rel=1e-12)
    assert sign_test(40, 32) == pytest.approx(0.40957939592707177, rel=1e-12)
    assert sign_test(30, 18) == pytest.approx(0.11140289106101878, rel=1e-12)
    assert sign_test(0, 10) == pytest.approx(0.001953125, rel=1e-12)
    assert sign_test(3, 0) == 0.25
    assert sign_test(11, 11) == 1.0 and sign_test(1, 0) == 1.0 and sign_test(0, 0) == 1.0
    assert sign_test(19, 15) == sign_test(15, 19)


@pytest.mark.parametrize("bad", [(-1, 3), (2.5, 1), (True, 1), ("3", 1), (1, None)])
def test_sign_test_refuses_what_is_not_a_count(bad):
    with pytest.raises(ValueError, match="whole numbers"):
        sign_test(*bad)


def test_elo_from_score_known_values():
    assert round(elo_from_score(0.75), 2) == 190.85
    assert elo_from_score(0.5) == 0.0
    assert round(elo_from_score(0.64), 1) == 100.0
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert abs(score_from_elo(elo_from_score(0.3)) - 0.3) < 1e-12


def test_elo_estimate_interval_contains_the_estimate_and_narrows():
    small = elo_estimate(30, 10, 20)
    large = elo_estimate(300, 100, 200)
    assert round(small.elo, 2) == round(elo_from_score(35 / 60), 2)
    assert small.low < small.elo < small.high
    assert (large.high - large.low) < (small.high - small.low) / 2.5
    assert elo_estimate(0, 0, 0).games == 0


def test_sprt_accepts_h1_for_a_clearly_stronger_agent():
    t = Sprt(0, 50)
    assert t.bounds == (pytest.approx(math.log(0.05 / 0.95)), pytest.approx(math.log(0.95 / 0.05)))
    assert t.decide(70, 0, 30) == "H1"
    assert t.llr(70, 0, 30) > t.bounds[1]


def test_sprt_accepts_h0_for_an_equal_agent_given_enough_games():
    t = Sprt(0, 50)
    assert t.decide(500, 0, 500) == "H0"
    assert t.llr(500, 0, 500) < t.bounds[0]


def test_sprt_keeps_playing_while_undecided():
    t = Sprt(0, 50)
    assert t.decide(6, 2, 4) is None
    assert t.decide(0, 0, 0) is None


def test_sprt_on_synthetic_results_errs_rarely():
    """Simulated matches: at +100 Elo the test accepts H1, at -50 it accepts H0, in most runs."""
    import random
    rng = random.Random(1)

    def run(true_elo):
        p = score_from_elo(true_elo)
        w = d = l = 0
        t = Sprt(0, 50)
        while True:
            if rng.random() < p:
                w += 1
            else:
                l += 1
            verdict = t.decide(w, d, l)
            if verdict:
                return verdict
    assert sum(run(100) == "H1" for _ in range(100)) >= 90
    assert sum(run(-50) == "H0" for _ in range(100)) >= 90


def test_bad_sprt_parameters():
    with pytest.raises(ValueError):
        Sprt(50, 0)
    for risk in (0, 0.5, 0.7):          # "alpha and beta must be between 0 and 0.5", both
        with pytest.raises(ValueError, match="alpha and beta"):
            Sprt(0, 50, alpha=risk)
        with pytest.raises(ValueError, match="alpha and beta"):
            Sprt(0, 50, beta=risk)


@pytest.mark.parametrize("args", [(-1e308, 1e308), (float("nan"), 50), (0, float("inf")),
                                  (0, 2001), (True, 50), ("0", 50), (0, 50, "0.05"),
                                  (0, 50, 0.05, None)])
def test_sprt_bounds_that_would_overflow_or_are_no_numbers_are_refused(args):
    """--sprt=-1e308,1e308 played its games, then the test's arithmetic overflowed."""
    with pytest.raises(ValueError):
        Sprt(*args)


def test_the_widest_sprt_still_computes():
    t = Sprt(-2000, 2000)
    assert t.llr(30, 0, 5) > 0 > t.llr(0, 0, 40)


def test_an_even_score_is_zero_elo_not_minus_zero():
    """-0 Elo was printed for an even result (a docs audit)."""
    even = elo_estimate(1, 0, 1)
    assert math.copysign(1.0, even.elo) == 1.0 and str(even).startswith("+0 Elo")
    assert even.as_json()["elo"] == 0.0 and json.dumps(even.as_json()["elo"]) == "0.0"
