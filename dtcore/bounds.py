"""Each theorem's bound as a function, with the constants the proofs give.

Logarithms are base 2 (decision-tree size and depth count bits). Chapter 1: Blanc–Lange–Tan,
ITCS 2020 (BLT); O'Donnell–Saks–Schramm–Servedio 2005 (OSSS).
"""

from __future__ import annotations

import math

import numpy as np

from .validate import check_real


def _check_size(s: float) -> float:
    s = float(s)
    if not s >= 2:
        raise ValueError(f"s must be a tree size >= 2 (log s must be positive), got {s!r}")
    return s


def osss_max_influence_lower(variance: float, s: float) -> float:
    """OSSS: a function computed by a size-s tree has max_i Inf_i(f) >= Var(f) / log2 s."""
    return float(variance) / math.log2(_check_size(s))


def total_influence_upper(variance: float, s: float) -> float:
    """BLT Lemma 5.3: a size-s tree's function has Inf(f) <= Var(f) log2(4 s / Var(f)) (0 if Var = 0)."""
    s = _check_size(s)
    v = check_real("variance", variance, 0.0, 1.0, low_open=False, high_open=False)
    return 0.0 if v == 0 else v * math.log2(4 * s / v)


def lemma52_score_lower(eps: float, leaves: int | np.ndarray, s: float) -> np.ndarray | float:
    """BLT Lemma 5.2: while error > eps, the selected leaf's score is >= eps / (L log2 s) (L leaves)."""
    eps = check_real("eps", eps, 0.0, 0.5)
    return eps / (np.asarray(leaves, dtype=np.float64) * math.log2(_check_size(s)))


def lemma54_threshold(eps: float, s: float) -> float:
    """BLT Lemma 5.4 applies while cost_f(T) >= eps log2(4 s / eps)."""
    eps = check_real("eps", eps, 0.0, 0.5)
    return eps * math.log2(4 * _check_size(s) / eps)


def lemma54_score_lower(cost: float | np.ndarray, eps: float, leaves: int | np.ndarray, s: float):
    """BLT Lemma 5.4: if cost >= eps log2(4s/eps), the selected score >= cost / (L log2(4s/eps) log2 s)."""
    eps = check_real("eps", eps, 0.0, 0.5)
    s = _check_size(s)
    return np.asarray(cost, dtype=np.float64) / (
        np.asarray(leaves, dtype=np.float64) * math.log2(4 * s / eps) * math.log2(s)
    )


def theorem3_size_bound(s: float, eps: float, initial_cost: float | None = None) -> float:
    """An explicit form of BLT Theorem 3 from its two-phase proof; returns a size (may be inf).

    With A = log2(4s/eps), B = log2 s and C0 = cost of the one-leaf tree (= Inf(f) <= B):
    phase 1 (Lemma 5.4) reaches cost <= eps A within L1 = ceil((C0 / (eps A))^(A B)) leaves,
    because the cost shrinks by a factor (1 - 1/(L A B)) at L leaves and prod (1 - 1/(jAB))
    <= (L+1)^(-1/(AB)); phase 2 (Lemma 5.2) lowers the cost by at least eps/(L B) at L leaves,
    and the cost stays above eps until the last split, so ln(L_end / L1) <= B (A - 1):
    size <= 1 + L1 * exp(B (A - 1)). Without ``initial_cost``, C0 = B is used.
    """
    s = _check_size(s)
    eps = check_real("eps", eps, 0.0, 0.5)
    a, b = math.log2(4 * s / eps), math.log2(s)
    c0 = b if initial_cost is None else float(initial_cost)
    if c0 < 0:
        raise ValueError(f"initial_cost must be >= 0, got {c0!r}")
    log_l1 = max(0.0, a * b * math.log(c0 / (eps * a))) if c0 > 0 else 0.0
    log_size = log_l1 + b * (a - 1)
    if log_size > 700:
        return math.inf
    return 1.0 + math.ceil(math.exp(log_l1)) * math.exp(b * (a - 1))


def theorem3_log2_size_bound(s: float, eps: float, initial_cost: float | None = None) -> float:
    """log2 of :func:`theorem3_size_bound`, finite even where the bound overflows a float."""
    s = _check_size(s)
    eps = check_real("eps", eps, 0.0, 0.5)
    a, b = math.log2(4 * s / eps), math.log2(s)
    c0 = b if initial_cost is None else float(initial_cost)
    log2_l1 = max(0.0, a * b * math.log2(c0 / (eps * a))) if c0 > 0 else 0.0
    # log2(1 + 2^x) ~ x for the large exponents involved; exact enough for a plot on a log axis
    x = log2_l1 + b * (a - 1) * math.log2(math.e)
    return x + math.log2(1 + 2.0 ** -x) if x < 1000 else x


def paper_asymptotic_exponent(s: float, eps: float) -> float:
    """The exponent log2(s/eps) log2(1/eps) of BLT Theorem 3's s^O(.) (constant 1, for shape only)."""
    s = _check_size(s)
    eps = check_real("eps", eps, 0.0, 0.5)
    return math.log2(s / eps) * math.log2(1 / eps)


