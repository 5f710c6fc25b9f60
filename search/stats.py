"""Statistics for measuring strength: intervals, Elo, the sign test of paired games and the
sequential probability ratio test.

Every function here is checked against known values in tests/test_stats.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple

Z95 = 1.959963984540054


def wilson(wins: float, n: int, z: float = Z95) -> Tuple[float, float]:
    """Wilson score interval for a proportion (wins may be fractional: shared wins count 1/k)."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def sign_test(better: int, worse: int) -> float:
    """Two-sided exact sign test: the chance, if two agents were equally strong, of a split
    at least this uneven among the paired games they did not play alike (`better` went the
    first agent's way, `worse` the second's; games both played alike are left out). 1.0 when
    there are none."""
    if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
               for x in (better, worse)):
        raise ValueError(f"a sign test counts games: whole numbers >= 0, not {better!r} and "
                         f"{worse!r}")
    n, low = better + worse, min(better, worse)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(low + 1)) / 2 ** n
    return min(1.0, 2.0 * tail)


def elo_from_score(score: float) -> float:
    """Elo difference that gives an expected score `score` (logistic model); +-inf at 0 and 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0     # + 0.0: an even score is 0, not -0


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    """Elo difference of A over B from W/D/L counts, with a 95% interval."""

    wins: int
    draws: int
    losses: int
    elo: float
    low: float
    high: float

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def as_json(self) -> dict:
        """The estimate as JSON: `elo` and the bounds of `elo_95` are numbers, or null where
        they are unbounded (a side that won or lost every game), since JSON has no infinity."""
        def number(x: float) -> Optional[float]:
            return x if math.isfinite(x) else None
        return {"elo": number(self.elo), "elo_95": [number(self.low), number(self.high)],
                "wins": self.wins, "draws": self.draws, "losses": self.losses}

    def __str__(self) -> str:
        def fmt(x: float) -> str:
            return "inf" if math.isinf(x) and x > 0 else "-inf" if math.isinf(x) else f"{x:+.0f}"
        return (f"{fmt(self.elo)} Elo [{fmt(self.low)}, {fmt(self.high)}] "
                f"(W {self.wins}, D {self.draws}, L {self.losses})")


def elo_estimate(wins: int, draws: int, losses: int, z: float = Z95) -> EloEstimate:
    """The Elo difference of the score (draws count half) and its interval: the Wilson
    interval of the score mapped to Elo, so that a clean sweep still gets a finite lower
    bound."""
    n = wins + draws + losses
    if n == 0:
        return EloEstimate(0, 0, 0, 0.0, -math.inf, math.inf)
    points = wins + 0.5 * draws
    low, high = wilson(points, n, z)
    low = 0.0 if low < 1e-9 else low            # floating point: a sweep's bound is exact
    high = 1.0 if high > 1 - 1e-9 else high
    return EloEstimate(wins, draws, losses, elo_from_score(points / n), elo_from_score(low),
                       elo_from_score(high))


def _number_in(x: object, low: float, high: float) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and low <= x <= high


# The widest Elo difference an SPRT may be asked about; beyond it the logistic win share is
# 1 or 0 to many digits and the test's arithmetic overflows (--sprt=-1e308,1e308 did).
MAX_SPRT_ELO = 2000


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not all(_number_in(e, -MAX_SPRT_ELO, MAX_SPRT_ELO) for e in (self.elo0, self.elo1)):
            raise ValueError(f"the SPRT's elo0 and elo1 are numbers from -{MAX_SPRT_ELO} to "
                             f"{MAX_SPRT_ELO} (a win share of about 0.00001 to 0.99999)")
        if not self.elo1 > self.elo0:
            raise ValueError("the SPRT needs elo0 < elo1")
        if not (_number_in(self.alpha, 0, 0.5) and _number_in(self.beta, 0, 0.5)
                and 0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta must be between 0 and 0.5")

    @property
    def bounds(self) -> Tuple[float, float]:
        """(lower, upper) log-likelihood-ratio bounds: accept H0 below, H1 above."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, wins: int, draws: int, losses: int) -> float:
        """Log-likelihood ratio, in the normal approximation of the trinomial score.

        The per-game variance is estimated with one extra win and one extra loss, so that a
        short run of equal results (variance 0) cannot decide the test on its own.
        """
        n = wins + draws + losses
        if n == 0:
            return 0.0
        s = (wins + 0.5 * draws) / n
        w, d, l = wins + 1, draws, losses + 1
        m = (w + 0.5 * d) / (w + d + l)
        var = (w * (1 - m) ** 2 + d * (0.5 - m) ** 2 + l * m ** 2) / (w + d + l)
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)

    def decide(self, wins: int, draws: int, losses: int) -> Optional[str]:
        """'H1' (A is at least elo1 stronger), 'H0' (at most elo0) or None (keep playing)."""
        value = self.llr(wins, draws, losses)
        low, high = self.bounds
        if value >= high:
            return "H1"
        if value <= low:
            return "H0"
        return None
