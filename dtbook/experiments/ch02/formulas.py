"""[BGLT20]'s printed formulas written afresh: every bound a counted row of chapter 2 reads is computed twice.

The chapter's rows read their bounds from :mod:`dtcore.bounds` (and :func:`dtcore.learnability.hoeffding_halfwidth`,
:func:`dtcore.impurity.kappa`). A constant of one of those off by a factor of about 2 can leave a theorem row with
room to spare, or move both sides of a row together; so each formula is written out here a second time, from the
paper's printed statement and without calling the first, and :func:`check_printed_bounds` adds one identity row
per formula at the parameters the page uses. The constants of Definitions 3 and 4 are worked by hand (the
arithmetic is in :data:`KAPPA_BY_HAND` and :data:`HOLDER_BY_HAND`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dtcore import bounds
from dtcore.impurity import holder_constants, kappa
from dtcore.learnability import hoeffding_halfwidth
from ...report import VerificationTable

#: kappa of Definition 4, (min over p of −G''(p)) / 4, worked by hand; the minimum is at p = 1/2 for all three.
#: Gini G = 4p(1 − p): −G'' = 8, so kappa = 8/4 = 2. Entropy G = −p log2 p − (1 − p) log2(1 − p):
#: −G'' = 1/(p(1 − p) ln 2) = 4/ln 2 at 1/2, so kappa = 1/ln 2. Kearns–Mansour G = 2 sqrt(p(1 − p)):
#: −G'' = (1/2)(p(1 − p))^(−3/2)(1 − 2p)² + 2 (p(1 − p))^(−1/2) = 0 + 2·2 = 4 at 1/2, so kappa = 1.
KAPPA_BY_HAND = {"gini": 2.0, "entropy": 1.0 / math.log(2.0), "kearns_mansour": 1.0}
#: (C, alpha) of Definition 3 worked by hand where they are closed forms: Gini |G(a) − G(b)| = 4|a − b||1 − a − b|
#: <= 4|a − b| (C = 4, alpha = 1); Kearns–Mansour 2 sqrt(p(1 − p)) is 1/2-Hölder with C = 2 (the slope at 0:
#: 2 sqrt(h(1 − h)) <= 2 sqrt(h)). Entropy's C is a one-dimensional optimum, checked on the grid by the
#: Definition 3 identity of :mod:`.impurity`.
HOLDER_BY_HAND = {"gini": (4.0, 1.0), "kearns_mansour": (2.0, 0.5)}


def depth_cap_printed(t: int) -> int:
    """eq. (5): D = floor(log t + log log t), logarithms base 2 (0 for t = 1)."""
    if t < 1:
        raise ValueError(f"t must be at least 1, got {t}")
    if t == 1:
        return 0
    return int(math.floor(math.log(t, 2) + math.log(math.log(t, 2), 2) + 1e-9))


def lemma_c1_deviation_printed(m: int, depth: int, delta: float) -> float:
    """Lemma C.1: Hoeffding for the mean of m terms in [0, 2^depth]: Delta = 2^depth sqrt(ln(2/delta) / (2m))."""
    if m < 1 or depth < 0 or not 0 < delta < 1:
        raise ValueError(f"m must be >= 1, depth >= 0 and delta in (0, 1), got {m}, {depth}, {delta}")
    return float(2**depth) * math.sqrt(math.log(2 / delta) / (2 * m))


def theorem5_strands_printed(t: int, eta: float, delta: float, form: str = "paper") -> float:
    """The proof of Theorem 5: m = R² ln(2t(1 + eta)/delta) / (2(eta t)²), R = t log t (the paper's range) or
    R = 2^(D+1) (the depth MiniBatchTopDown's trees reach)."""
    if form not in ("paper", "depth"):
        raise ValueError(f"form must be 'paper' or 'depth', got {form!r}")
    R = t * math.log(t, 2) if form == "paper" else float(2 ** (depth_cap_printed(t) + 1))
    return R * R * math.log(2 * t * (1 + eta) / delta) / (2 * (eta * t) * (eta * t))


def lemma_d1_requests_printed(b: int, t: int, m: int, k: int) -> int:
    """Lemma D.1 / Theorem 6: each of the m strands and k queries meets at most D + 1 scored leaves, b labels each,
    and each query's leaf one more minibatch: b((m + k)(D + 1) + k)."""
    return b * (m * (depth_cap_printed(t) + 1) + k * (depth_cap_printed(t) + 1) + k)


def hoeffding_printed(n: int, delta: float, k: int = 1) -> float:
    """Theorem 3's test-set term, made simultaneous over k trees: sqrt(ln(2k/delta) / (2n))."""
    return math.sqrt(math.log(2 * k / delta) / (2 * n))


def theorem4_batch_printed(C: float, alpha: float, kappa_: float, s: float, eps: float, t: int, d: int,
                           delta: float) -> float:
    """Lemma B.3's b, max(8, 2(2C/Delta)^(2/alpha)) ln(9td/delta), at Lemma B.5's Delta = kappa eps² / (320 log² s)."""
    Delta = kappa_ * eps * eps / (320 * math.log(s, 2) ** 2)
    return max(8.0, 2 * (2 * C / Delta) ** (2 / alpha)) * math.log(9 * t * d / delta)


def _relative(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def printed_bound_deviations(*, sizes: Sequence[int], eta: float, delta: float, n: int, s_mono: int, eps: float,
                             m_grid: Sequence[int], depths: Sequence[int], b_local: int, b_est: int, t_est: int,
                             savings_sizes: Sequence[int], b_savings: int, n_test: int,
                             union_sizes: Sequence[int]) -> dict[str, tuple[float, str, tuple[object, object], str]]:
    """Per formula, the largest relative difference between :mod:`dtcore.bounds` (and the library functions the rows
    read) and the printed formula above, over the parameters the page uses; with the grid in words, the two
    computations and the box of the result."""
    out: dict[str, tuple[float, str, tuple[object, object], str]] = {}
    out["Lemma C.1: Δ = 2^h √(ln(2/δ)/(2m))"] = (
        max(_relative(bounds.bglt20_lemma_c1_deviation(m, h, delta), lemma_c1_deviation_printed(m, h, delta))
            for m in m_grid for h in depths),
        f"m in {list(m_grid)}, h in {sorted(set(depths))}",
        (bounds.bglt20_lemma_c1_deviation, lemma_c1_deviation_printed), "lem-bglt-c1")
    for form, words in (("paper", "R = t log t"), ("depth", "R = 2ᴰ⁺¹")):
        out[f"Theorem 5: m = R² ln(2t(1+η)/δ)/(2(ηt)²), {words}"] = (
            max(_relative(bounds.bglt20_theorem5_strands(t, eta, delta, form),
                          theorem5_strands_printed(t, eta, delta, form)) for t in sizes),
            f"t in {list(sizes)}", (bounds.bglt20_theorem5_strands, theorem5_strands_printed), "thm-bglt-2")
    d1 = [(b_local, t, b_local, 1) for t in sizes] + [(b_savings, t, b_savings, 1) for t in savings_sizes]
    d1 += [(b_est, t_est, b_est, n_test)]
    out["Lemma D.1 / Theorem 6: b((m + k)(D + 1) + k)"] = (
        max(_relative(bounds.bglt20_lemma_d1_labels(b, t, m, k), lemma_d1_requests_printed(b, t, m, k))
            for b, t, m, k in d1),
        f"(b, t, k) in {sorted({(b, t, k) for b, t, _, k in d1})}",
        (bounds.bglt20_lemma_d1_labels, lemma_d1_requests_printed), "lem-bglt-d1")
    out["Figure 1 / eq. (5): D = ⌊log t + log log t⌋"] = (
        max(_relative(bounds.bglt20_depth_cap(t), depth_cap_printed(t)) for t in list(sizes) + list(savings_sizes)),
        f"t in {sorted(set(sizes) | set(savings_sizes))}", (bounds.bglt20_depth_cap, depth_cap_printed), "alg-bglt-minibatch")
    out["Theorem 3: √(ln(2k/δ)/(2|S_test|))"] = (
        max(_relative(hoeffding_halfwidth(n_test, delta / k), hoeffding_printed(n_test, delta, k)) for k in union_sizes),
        f"|S_test| = {n_test}, k in {sorted(set(union_sizes))}", (hoeffding_halfwidth, hoeffding_printed), "thm-bglt-3")
    out["Theorem 4 via Lemmas B.3 and B.5: b = max(8, 2(2C/Δ)^(2/α)) ln(9td/δ)"] = (
        max(_relative(bounds.bglt20_theorem4_batch(*holder_constants("gini"), kappa("gini"), s, e, t, d, delta),
                      theorem4_batch_printed(*HOLDER_BY_HAND["gini"], KAPPA_BY_HAND["gini"], s, e, t, d, delta))
            for s, e, t, d in ((s_mono, eps, sizes[-1], n), (2, 0.5 - 1e-9, 2, 2))),
        f"Gini; (s, ε, t, d) = ({s_mono}, {eps}, {sizes[-1]}, {n}) and the smallest cube (2, 1/2, 2, 2)",
        (bounds.bglt20_theorem4_batch, theorem4_batch_printed), "thm-bglt-1")
    out["Definition 4: κ = (min −G'')/4, worked by hand"] = (
        max(_relative(kappa(g), KAPPA_BY_HAND[g]) for g in KAPPA_BY_HAND),
        "Gini 2, entropy 1/ln 2, Kearns–Mansour 1", (kappa, "KAPPA_BY_HAND (arithmetic in the docstring)"), "def-bglt-impurity")
    out["Definition 3: (C, α), worked by hand"] = (
        max(max(_relative(a, b) for a, b in zip(holder_constants(g), HOLDER_BY_HAND[g])) for g in HOLDER_BY_HAND),
        "Gini (4, 1), Kearns–Mansour (2, 1/2)", (holder_constants, "HOLDER_BY_HAND (arithmetic in the docstring)"), "def-bglt-impurity")
    return out


def check_printed_bounds(table: VerificationTable, deviations: dict[str, tuple[float, str, tuple[object, object], str]],
                         *, tolerance: float = 1e-12) -> None:
    """One identity row per printed formula: :mod:`dtcore.bounds` against the formula written afresh."""
    for formula, (deviation, where, computed_by, box) in deviations.items():
        table.identity(formula.split(":")[0], f"largest relative difference, the library's value against the printed "
                                              f"formula written afresh: {formula.split(': ', 1)[1]}",
                       deviation, tolerance, computed_by=computed_by, worst_case=where, box=box,
                       note="a constant of the formula off by any factor fails this row")
