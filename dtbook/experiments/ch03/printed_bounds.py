"""[BLT21]'s bounds as the paper prints them, written afresh: every bound a counted row of chapter 3 uses is
computed a second time here, without :mod:`dtcore.bounds` (issue 36), and an identity row fails when the two differ.

- Lemma 4.2 (Hoeffding and the union bound over N hypotheses): γ = √(ln(2N/δ) / 2m).
- Lemmas 5.2 and 5.4 (discretisation of K coefficients on a grid of step ε'/K): ε' solves
  2 (2K/ε' + 1)^K exp(−2mε'²) = δ (found by bisection here), ε₅.₂ = 7ε', ε₅.₄ = 3ε'.
- Theorems 1 and 3: opt + 2η + ε. Theorem 4 (L2, with the proof's constants): opt + 2√(2η + ε₂).
- Corollary 4.1's truncation: the mass Σ 2^−depth(ℓ) of the leaves deeper than d.
- Sec. 1.1's pair: 2η'(1 − √(ln(1/δ) / r)) at r covered samples per target (one-sided Hoeffding on the
  difference of the two targets' mean a_R, each a_R in [0, 1]).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dtcore.audit.oracles import count_trees
from dtcore.polyreg import n_monomials
from dtcore.stochastic import deterministic_depths
from ...report import VerificationTable


def printed_gamma(n_hypotheses: float, m: int, delta: float) -> float:
    """Lemma 4.2's γ: every one of N fixed hypotheses is within √(ln(2N/δ) / 2m) of its true error at once."""
    return math.sqrt(math.log(2.0 * n_hypotheses / delta) / (2.0 * m))


def printed_discretised_eps(m: int, n_coefficients: int, delta: float) -> float:
    """The ε' of Lemma 5.2's proof: the root of 2mε'² = ln(2/δ) + K ln(2K/ε' + 1) (its left side grows and its
    right side falls in ε'), by bisection on [1e-12, 1e6] to a relative 1e-15."""
    K = int(n_coefficients)

    def excess(eps: float) -> float:
        return 2.0 * m * eps * eps - math.log(2.0 / delta) - K * math.log(2.0 * K / eps + 1.0)

    low, high = 1e-12, 1e6
    for _ in range(200):
        mid = 0.5 * (low + high)
        if excess(mid) > 0:
            high = mid
        else:
            low = mid
        if high - low <= 1e-15 * high:
            break
    return 0.5 * (low + high)


def printed_lemma52_eps(m: int, n_coefficients: int, delta: float) -> float:
    """Lemma 5.2's ε = 7ε' (the proof's constant: 3ε' per discretisation step on each side, plus Hoeffding's ε')."""
    return 7.0 * printed_discretised_eps(m, n_coefficients, delta)


def printed_lemma54_eps(m: int, n_coefficients: int, delta: float) -> float:
    """Lemma 5.4's ε = 3ε' (the absolute loss is 1-Lipschitz)."""
    return 3.0 * printed_discretised_eps(m, n_coefficients, delta)


def printed_find_bound(opt: float, eta: float, eps: float) -> float:
    """Theorems 1 and 3: opt + 2η + ε."""
    return opt + 2.0 * eta + eps


def printed_low_degree_bound(opt: float, eta: float, eps2: float) -> float:
    """Theorem 4's L2 bound with the proof's constants: opt + 2√(2η + ε₂)."""
    return opt + 2.0 * math.sqrt(2.0 * eta + eps2)


def printed_truncation(leaf_depths: Sequence[int], depth: int) -> float:
    """Corollary 4.1's truncated mass: Σ 2^−k over the leaves of query depth k > d."""
    return sum(0.5 ** int(k) for k in leaf_depths if int(k) > depth)


def printed_pair_sum_bound(eta_pair: float, delta: float, reps: int) -> float:
    """Sec. 1.1's least sum of the two targets' mean excesses on R: 2η'(1 − D), less one-sided Hoeffding's slack
    for D, a difference of two means of r values in [0, 1] (the sum of 2r terms of range 1/r: exp(−r u²) = δ),
    clipped at 0."""
    return 2.0 * eta_pair * max(0.0, 1.0 - math.sqrt(math.log(1.0 / delta) / reps))


def bound_pairs(*, setting: Any, deep: Any, per_d: pd.DataFrame, thm_rows: pd.DataFrame, confirm_reps: int,
                pair_setting: Any, covered_reps: int, sum_bound: float, l2_m_star: int,
                l2_big: dict[str, Any] | None, l2_target_eps: float) -> pd.DataFrame:
    """Every bound the page's counted rows use, as the page computed it (``book``) and as the paper prints it
    (``printed``): one row per (formula, place)."""
    n, depth, m, delta = setting.target.n, setting.depth, setting.m, setting.delta
    K = n_monomials(n, setting.degree)
    rows = [("Lemma 4.2: γ at depth d (Table 1)", setting.gamma, printed_gamma(count_trees(n, depth), m, delta)),
            ("Lemma 4.2: γ₁ at one fixed q", setting.gamma_1, printed_gamma(1, m, delta)),
            ("Lemma 5.2: ε", setting.eps_52, printed_lemma52_eps(m, K, delta)),
            ("Lemma 5.4: ε", setting.eps_54, printed_lemma54_eps(m, K, delta))]
    leaf_depths = deterministic_depths(deep)
    for d, row in per_d.iterrows():
        rows.append(("Corollary 4.1: mass cut at depth d", row["truncation_bound"],
                     printed_truncation(leaf_depths, int(d))))
        rows.append(("Lemma 4.2: best depth-d excess + 2γ_d (depth sweep)", row["find_bound"],
                     row["best_excess"] + 2.0 * printed_gamma(count_trees(deep.n, int(d)), m, delta)))
    for _, r in thm_rows.iterrows():
        eps = r["best_excess"] + 2.0 * printed_gamma(count_trees(n, depth), m, delta / confirm_reps)
        rows.append(("Theorems 1, 3: opt + 2η + ε at the worst member", r["bound"],
                     printed_find_bound(r["opt"], r["eta"], eps)))
    if pair_setting.eta > 0:
        rows.append(("Sec. 1.1: 2η' less Hoeffding's slack on R", sum_bound,
                     printed_pair_sum_bound(pair_setting.eta_pair, delta, max(covered_reps, 1))))
    # the least m with Lemma 5.2's ε below the target: the printed ε crosses it between m* − 1 and m*
    crossed = printed_lemma52_eps(l2_m_star, K, delta) < l2_target_eps <= printed_lemma52_eps(l2_m_star - 1, K, delta)
    rows.append(("Lemma 5.2: least m with ε < 0.1 (1 when the printed ε crosses there)", 1.0, float(crossed)))
    if l2_big is not None:
        eps2 = setting.a2 + printed_lemma52_eps(l2_big["m"], K, delta) + printed_gamma(1, l2_big["m"], delta)
        rows.append(("Theorem 4 (L2): opt + 2√(2η + ε₂)", l2_big["bound"],
                     printed_low_degree_bound(setting.opt, l2_big["eta"], eps2)))
    return pd.DataFrame(rows, columns=["formula", "book", "printed"])


def check_bounds(table: VerificationTable, pairs: pd.DataFrame) -> None:
    """One identity row per formula of :func:`bound_pairs`: the largest relative difference between the page's
    value and the printed formula's over every place the page uses it (tolerance 1e-9)."""
    for formula, grp in pairs.groupby("formula", sort=False):
        book, printed = grp["book"].to_numpy(dtype=np.float64), grp["printed"].to_numpy(dtype=np.float64)
        deviation = float(np.max(np.abs(book - printed) / np.maximum(np.abs(printed), 1e-300)))
        table.identity(formula.split(":")[0], f"{formula}: max relative |book − printed formula| over {len(grp)} "
                                              f"value(s)", deviation, 1e-9,
                       computed_by=("dtcore.bounds (the page's values)",
                                    "dtbook.experiments.ch03.printed_bounds (the paper's printed formulas)"))
