"""[BDM20] Sec. 1.2: the (α, c)-distributions and their smoothed versions, the two samplers tested
against their definitions."""

from __future__ import annotations

import numpy as np
from scipy import stats

from dtcore.smoothed import alpha_c_distribution, smoothed_distribution
from dtcore.validate import check_int, check_real
from ...report import VerificationTable


#: Level of the Kolmogorov–Smirnov tests of the samplers.
KS_LEVEL = 1e-3
#: The fault each Kolmogorov–Smirnov row guards against: a sampler whose law is this fraction too
#: narrow (a width shrunk by 10%, the law's Kolmogorov distance from the right one is 0.1 or 0.05).
KS_SHRINK = 0.10
#: The power a counted Kolmogorov–Smirnov row must reach against :data:`KS_SHRINK` (issue 35).
KS_POWER = 0.8


def ks_statistics(u: np.ndarray) -> np.ndarray:
    """The Kolmogorov–Smirnov distance to U[0, 1] of each row of ``u`` (shape ``(trials, N)``),
    vectorised: max over the sorted draws of i/N − u_(i) and u_(i) − (i−1)/N."""
    u = np.sort(np.asarray(u, dtype=float), axis=-1)
    N = u.shape[-1]
    i = np.arange(1, N + 1)
    return np.maximum((i / N - u).max(axis=-1), (u - (i - 1) / N).max(axis=-1))


def ks_power(n_draws: int, *, shrink: float, centred: bool, level: float, trials: int,
             rng: np.random.Generator) -> float:
    """Monte Carlo power of the level-``level`` Kolmogorov–Smirnov test of U[0, 1] on ``n_draws``
    draws, against a sampler ``shrink`` too narrow: U[0, 1 − shrink] (a margin law losing its outer
    end) or, ``centred``, U[shrink/2, 1 − shrink/2] (a smoothing width too small)."""
    n_draws = check_int("n_draws", n_draws, 1)
    trials = check_int("trials", trials, 1)
    shrink = check_real("shrink", shrink, 0.0, 1.0, low_open=False)
    level = check_real("level", level, 0.0, 1.0)
    low = shrink / 2 if centred else 0.0
    u = low + (1.0 - shrink) * rng.random((trials, n_draws))
    critical = float(stats.kstwo.ppf(1 - level, n_draws))
    return float(np.mean(ks_statistics(u) > critical))


def sampler_draws(*, n: int, alpha: float, c: float, draws: int,
                  rng: np.random.Generator) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Draws of [BDM20] Sec. 1.2's two samplers, for testing them against their definitions.

    Returns ``(margins, offsets)``: ``margins[member]`` holds |p_i − 1/2| of ``draws``
    (α, c)-distributions of each member kind ("random", "inner", "outer") on ``n`` coordinates;
    ``offsets`` holds p_i − 1/2 of ``draws`` smoothings of the centre 1/2.
    """
    draws = check_int("draws", draws, 1)
    margins = {member: np.abs(np.concatenate([alpha_c_distribution(n, alpha, c, rng=rng, member=member).p
                                              for _ in range(draws)]) - 0.5)
               for member in ("random", "inner", "outer")}
    offsets = np.concatenate([smoothed_distribution(0.5, alpha, c, rng=rng, n=n).p - 0.5 for _ in range(draws)])
    return margins, offsets


def check_samplers(table: VerificationTable, margins: dict[str, np.ndarray], offsets: np.ndarray, *,
                   alpha: float, c: float, rng: np.random.Generator, ks_level: float = KS_LEVEL,
                   shrink: float = KS_SHRINK, power_trials: int = 400) -> None:
    """[BDM20] Sec. 1.2: every drawn p_i lies in the (α, c) class, and the random members' margins
    and the smoothing offsets follow their uniform laws (Kolmogorov–Smirnov at ``ks_level``).

    Each Kolmogorov–Smirnov row states the fault it guards against, a sampler ``shrink`` too narrow,
    and its power against it (:func:`ks_power`, ``power_trials`` simulated samplers drawn from
    ``rng``); it is counted (an identity of the sampler's law and the stated one, to the critical
    value) only when that power reaches :data:`KS_POWER`, and is an observation otherwise."""
    ks_level = check_real("ks_level", ks_level, 0.0, 1.0)
    all_margins = np.concatenate(list(margins.values()))
    outside = int(((all_margins <= c) | (all_margins >= 0.5 - alpha)).sum())
    # the sampler draws inside the class by construction: the count re-reads its contract, so it
    # guards the code (an identity against 0), it tests no claim of the paper
    table.identity("(alpha, c) class (Sec. 1.2)",
                   "drawn p_i outside the class: |p_i - 1/2| <= c or p_i not in (alpha, 1 - alpha)",
                   float(outside), 0.0, computed_by=(alpha_c_distribution, "Sec. 1.2 class inequalities"),
                   note=f"{all_margins.size} draws of random, inner and outer members; 0 by the sampler's "
                        "construction, counted by the class's inequalities")
    ks_margin = stats.kstest((margins["random"] - c) / (0.5 - alpha - c), "uniform")
    ks_smooth = stats.kstest((offsets + c) / (2 * c), "uniform")
    for what, res, N, law, sampler, centred in (
            ("random-member margins ~ U(c, 1/2 - alpha)", ks_margin, margins["random"].size,
             "the law of our random members", alpha_c_distribution, False),
            ("smoothing offsets p_i - p_hat_i ~ U[-c, c]", ks_smooth, offsets.size, "Sec. 1.2's smoothing law",
             smoothed_distribution, True)):
        critical = float(stats.kstwo.ppf(1 - ks_level, N))
        power = ks_power(N, shrink=shrink, centred=centred, level=ks_level, trials=power_trials, rng=rng)
        fault = (f"a sampler {100 * shrink:g}% too narrow ({'both ends' if centred else 'the outer end'} "
                 f"cut; Kolmogorov distance {shrink / 2 if centred else shrink:g})")
        statistic = float(res.statistic)
        if power >= KS_POWER:
            table.identity("(alpha, c) and smoothed classes (Sec. 1.2)",
                           f"Kolmogorov-Smirnov distance, {what}, against the level-{ks_level:g} critical value",
                           statistic, critical, computed_by=(sampler, stats.kstwo.ppf),
                           worst_case=f"{N} draws at alpha = {alpha:g}, c = {c:g}",
                           note=f"the sampler against {law}; a correct sampler fails with probability "
                                f"{ks_level:g}; guards against {fault}: power {power:.2f} "
                                f"({power_trials} simulated samplers)")
        else:
            table.observation("(alpha, c) and smoothed classes (Sec. 1.2)",
                              f"Kolmogorov-Smirnov distance, {what}", statistic, critical,
                              worst_case=f"{N} draws at alpha = {alpha:g}, c = {c:g}",
                              why=f"power {power:.2f} < {KS_POWER:g} against {fault} at {N} draws: "
                                  "too few draws for a counted check")
