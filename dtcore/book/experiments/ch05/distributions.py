"""[BDM20] Sec. 1.2: the (α, c)-distributions and their smoothed versions, the two samplers tested
against their definitions."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ....smoothed import alpha_c_distribution, smoothed_distribution
from ....validate import check_int, check_real
from ...report import VerificationTable


#: Level of the Kolmogorov–Smirnov tests of the samplers.
KS_LEVEL = 1e-3


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
                   alpha: float, c: float, ks_level: float = KS_LEVEL) -> None:
    """[BDM20] Sec. 1.2: every drawn p_i lies in the (α, c) class, and the random members' margins
    and the smoothing offsets follow their uniform laws (Kolmogorov–Smirnov at ``ks_level``)."""
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
    for what, res, N, law, sampler in (("random-member margins ~ U(c, 1/2 - alpha)", ks_margin,
                                        margins["random"].size, "the law of our random members", alpha_c_distribution),
                                       ("smoothing offsets p_i - p_hat_i ~ U[-c, c]", ks_smooth, offsets.size,
                                        "Sec. 1.2's smoothing law", smoothed_distribution)):
        critical = float(stats.kstwo.ppf(1 - ks_level, N))
        table.theorem("(alpha, c) and smoothed classes (Sec. 1.2)", f"Kolmogorov-Smirnov distance, {what}",
                      float(res.statistic), critical, reach=(0.0, 1.0),
                      measured_by=(sampler, stats.kstest),
                      bound_by=stats.kstwo.ppf,
                      worst_case=f"{N} draws at alpha = {alpha:g}, c = {c:g}",
                      note=f"the sampler against {law}; bound: the KS critical value at level {ks_level:g} "
                           f"for {N} draws (a correct sampler fails with probability {ks_level:g})")
