"""[BLT21] Theorem 4's L2 guarantee (Sec. 5, Lemmas 5.2 and 5.3) at the sample size where Lemma 5.2's ε
falls below 0.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dtcore import bounds
from dtcore.cube import all_points
from dtcore.noise import corrupt
from dtcore.polyreg import low_degree_regression, n_monomials
from dtcore.stochastic import error, mean_table, sample
from ...report import VerificationTable
from .common import theorem_or_observation
from .table_1 import NoisySetting


#: The ε of Lemma 5.2 at which Theorem 4's L2 bound can say something (issue: the m that reaches it).
L2_TARGET_EPS = 0.1


def lemma52_sample_size(n_coefficients: int, delta: float, target_eps: float = L2_TARGET_EPS) -> int:
    """The least m at which [BLT21] Lemma 5.2's ε (:func:`dtcore.bounds.blt21_lemma52_eps`) is below ``target_eps``."""
    if not 0 < target_eps < 1:
        raise ValueError(f"target_eps must be in (0, 1), got {target_eps!r}")
    low, high = 1, 1
    while bounds.blt21_lemma52_eps(high, n_coefficients, delta) >= target_eps:   # doubling, then bisection
        low, high = high, 2 * high
    while low < high:
        mid = (low + high) // 2
        if bounds.blt21_lemma52_eps(mid, n_coefficients, delta) < target_eps:
            high = mid
        else:
            low = mid + 1
    return high


def l2_large_sample(setting: NoisySetting, *, m: int, eta: float, adversary: str,
                    rng: np.random.Generator) -> dict[str, Any]:
    """[BLT21] Theorem 4 (L2 part, Lemma 5.3) at sample size ``m``: one clean sample of the chapter's target
    drawn from ``rng`` (the page's stream "ch03/l2_large"), corrupted by ``adversary`` at rate ``eta`` (from the
    same generator), the low-degree fit's exact error and the bound opt + 2√(2η + ε₂ + ε₅.₂ + γ₁) with every ε
    at this m."""
    X0, y0 = sample(setting.target, m, rng=rng)
    c = corrupt(adversary, X0, y0, eta, rng=rng, depth=setting.depth, degree=setting.degree)
    del X0, y0
    p = low_degree_regression(c.X, c.y, degree=setting.degree)
    mu = mean_table(setting.target)
    n_coef = n_monomials(setting.target.n, setting.degree)
    eps52 = bounds.blt21_lemma52_eps(m, n_coef, setting.delta)
    gamma1 = bounds.blt21_lemma42_uniform_deviation(1, m, setting.delta)
    h = p.predict_proba(all_points(setting.target.n))
    return {"m": m, "eta": eta, "adversary": adversary, "error": error(mu, h),
            "inverted_error": error(mu, 1.0 - h), "opt": setting.opt, "eps52": eps52, "a2": setting.a2, "gamma1": gamma1,
            "bound": bounds.blt21_low_degree_error_bound(setting.opt, eta, setting.a2 + eps52 + gamma1)}


def l2_eta(eta_grid: Sequence[float]) -> float:
    """The η of the Theorem 4 (L2) run: the least positive η of ``eta_grid`` (0 when there is none)."""
    return min(e for e in eta_grid if e > 0) if max(eta_grid) > 0 else 0.0


def check_theorem_4(table: VerificationTable, l2_big: dict[str, Any] | None, *, l2_m_star: int, m: int) -> None:
    """[BLT21] Theorem 4's L2 row: at the run of :func:`l2_large_sample` (``l2_big``) its exact error against the
    bound; without that run (``None``: this scale's m is below ``l2_m_star``) the sample size it would need."""
    if l2_big is not None:
        # every hypothesis's error against a stochastic target lies in [opt, 1 − opt] (pointwise min(μ, 1 − μ) ≤
        # Pr[h(x) ≠ T(x)] ≤ max(μ, 1 − μ)): a bound at or above 1 − opt passes for any output, the label-inverted one too
        o = l2_big["opt"]
        theorem_or_observation(table, "Theorem 4",
                               f"L2 (low-degree): exact error at m = {l2_big['m']:,}, η = {l2_big['eta']:g}",
                               l2_big["error"], l2_big["bound"], reach=(o, 1.0 - o), box="thm-blt21-4",
                               measured_by="dtcore.polyreg.low_degree_regression, dtcore.stochastic.error",
                               bound_by="dtcore.bounds.blt21_low_degree_error_bound, dtcore.bounds.blt21_lemma52_eps",
                               worst_case=f"the '{l2_big['adversary']}' adversary (L2's strongest), one sample",
                               fails_under=("the label-inverted hypothesis 1 − h", l2_big["inverted_error"]),
                               why=f"every hypothesis has error in [opt, 1 − opt] = [{o:.4f}, {1 - o:.4f}], below the "
                                   f"bound {l2_big['bound']:.4f}: the row passes for any output, the label-inverted "
                                   f"hypothesis (error {l2_big['inverted_error']:.4f}) included")
    else:
        table.observation("Theorem 4", "L2 (low-degree): sample size at which Lemma 5.2's ε < 0.1 / the m of this run",
                          l2_m_star / m, why=f"Lemma 5.2's ε falls below 0.1 only at m = {l2_m_star:,}; this scale runs "
                                             f"m = {m:,}, so the L2 bound is at least 1 and cannot fail",
                          box="thm-blt21-4")


def theorem_4_glue(l2_big: dict[str, Any] | None, *, l2_m_star: int, m: int, scale: str) -> dict[str, object]:
    """The Theorem 4 (L2) run for the text: the sample size Lemma 5.2 needs and a sentence on what this scale ran."""
    if l2_big is not None:
        o, bound = l2_big["opt"], l2_big["bound"]
        verdict = ("a counted row of the table: the label-inverted hypothesis, at error "
                   f"{l2_big['inverted_error']:.4f}, would fail it" if bound < 1 - o and l2_big["inverted_error"] > bound
                   else f"yet every hypothesis's error lies in [opt, 1 − opt] = [{o:.4f}, {1 - o:.4f}], below the "
                        f"bound: the label-inverted hypothesis (error {l2_big['inverted_error']:.4f}) passes it too, so "
                        f"the row is an observation; and L2's error equals opt, so the √η term is never exercised")
        sentence = (f"At this scale we run it: one sample of m = {l2_big['m']:,} corrupted by the '{l2_big['adversary']}' "
                    f"adversary at η = {l2_big['eta']:g}; L2's error is {l2_big['error']:.4f} against the bound "
                    f"{bound:.4f} (ε₅.₂ = {l2_big['eps52']:.3f}), {verdict}.")
    else:
        sentence = (f"This run ({scale} scale) does not go there: it samples m = {m:,}, so the L2 bound is at least 1 "
                    f"here and the row is an observation. The full scale (n = 12, where the same ε needs m = 1,811,217) "
                    f"runs one least-squares fit on 1,812,000 examples (about 5 GB and a few minutes); the row is counted "
                    f"only if its bound falls below 1 − opt, the largest error any hypothesis has against the target.")
    return {"ch3_l2_m_star": f"{l2_m_star:,}", "ch3_l2_sentence": sentence}
