"""How the chapter's exhaustive searches and bound formulas are themselves checked ([BLT20] Lemmas 5.1-5.4, OSSS).

The suprema of :mod:`.suprema` come from one search over every function (:func:`dtcore.audit.worst_case.uniform_suprema`,
on the exhaustive layer's subcube statistics and best-first runs). Two checks guard that search:

* at n = 3 (256 functions) every supremum is recomputed by brute force with code that shares nothing with the
  search: influences by flipping each bit of the truth table, the minimum tree size by recursion over
  restrictions, BuildTopDownDT's run by :func:`dtcore.buildtopdown.build_top_down_dt`, the ε of Lemma 5.4 by
  a fresh bisection; an identity row per result fails when the two differ;
* at n = 4 the supremum found must be at least the ratio of a named reference member computed by hand
  (the dictator x0, or the parity of four variables): a search that misses part of the class fails.

Every bound of a counted row is also evaluated a second time from the paper's printed formula, written afresh
here (:func:`printed_bounds`), and compared with :mod:`dtcore.bounds` on a grid of arguments.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from dtcore import bounds
from dtcore.buildtopdown import build_top_down_dt
from ...report import VerificationTable
from .common import small_number_text

#: Results whose supremum is recomputed by brute force (the keys of :data:`.suprema.EXHAUSTIVE_RESULTS`).
BRUTE_FORCE_RESULTS = ("Lemma 5.1(1)", "OSSS inequality", "Lemma 5.3", "Lemma 5.2", "Lemma 5.4")


def _influences(table: np.ndarray) -> np.ndarray:
    """Flip influence of every variable: the fraction of points whose value changes when bit i flips."""
    n = int(table.size).bit_length() - 1
    points = np.arange(table.size)
    return np.array([float(np.mean(table != table[points ^ (1 << i)])) for i in range(n)])


@lru_cache(maxsize=None)
def _min_size(key: bytes) -> int:
    """Leaves of a smallest decision tree computing the table ``key`` (bytes of a 0/1 table of length 2^k)."""
    table = np.frombuffer(key, dtype=np.uint8)
    if table.min() == table.max():
        return 1
    n = table.size.bit_length() - 1
    points = np.arange(table.size)
    best = table.size
    for i in range(n):
        bit = (points >> i) & 1
        if np.array_equal(table[bit == 0], table[bit == 1]):
            continue  # x_i is irrelevant: querying it never helps
        best = min(best, _min_size(table[bit == 0].tobytes()) + _min_size(table[bit == 1].tobytes()))
    return best


def _lemma54_eps(cost: float, s: float) -> float:
    """The largest ε in (0, 1/2] with ε log2(4s/ε) ≤ cost (the premise of [BLT20] Lemma 5.4), by bisection."""
    if 0.5 * math.log2(8 * s) <= cost:
        return 0.5
    lo, hi = 0.0, 0.5
    for _ in range(100):
        mid = (lo + hi) / 2
        if mid * math.log2(4 * s / mid) <= cost:
            lo = mid
        else:
            hi = mid
    return lo


def brute_force_suprema(n: int = 3) -> dict[str, float]:
    """[BLT20] Lemmas 5.1(1), 5.2, 5.3, 5.4 and OSSS at their supremum over every function on ``n`` variables,
    in the margin convention of :func:`.suprema.exhaustive_check` (bound/measured for a lower bound), by brute
    force with code independent of :func:`dtcore.audit.worst_case.uniform_suprema`."""
    sup = dict.fromkeys(BRUTE_FORCE_RESULTS, 0.0)
    points = np.arange(2 ** n)
    for code in range(2 ** 2 ** n):
        table = ((code >> points) & 1).astype(np.uint8)  # bit x of the code is f(x)
        mean = float(table.mean())
        if mean in (0.0, 1.0):
            continue
        var, err = 4 * mean * (1 - mean), min(mean, 1 - mean)
        inf = _influences(table)
        s = _min_size(table.tobytes())
        sup["Lemma 5.1(1)"] = max(sup["Lemma 5.1(1)"], err / inf.sum())
        sup["OSSS inequality"] = max(sup["OSSS inequality"], (var / math.log2(s)) / inf.max())
        sup["Lemma 5.3"] = max(sup["Lemma 5.3"], inf.sum() / (var * math.log2(4 * s / var)))
        trace = build_top_down_dt(table, eps=1e-9).trace
        for leaves, cost, error, score in trace[["leaves", "cost", "error", "score"]].itertuples(index=False):
            if not error > 0 or not np.isfinite(score):
                continue
            eps52 = min(error, 0.5 - 1e-12)  # ε just under the error: the bound's supremum
            sup["Lemma 5.2"] = max(sup["Lemma 5.2"], eps52 / (leaves * math.log2(s)) / score)
            eps54 = min(_lemma54_eps(cost, s), 0.5 - 1e-12)
            if eps54 > 0:
                bound54 = cost / (leaves * math.log2(4 * s / eps54) * math.log2(s))
                sup["Lemma 5.4"] = max(sup["Lemma 5.4"], bound54 / score)
    return sup


def reference_members() -> dict[str, tuple[float, str]]:
    """Per result, the margin ratio of a named member on n ≤ 4, worked by hand (the search must reach it).

    The dictator x0 (s = 2, Var = 1, Inf_0 = Inf = 1, error 1/2): Lemma 5.1(1) error/cost = 1/2; OSSS
    (Var/log2 s)/max Inf = 1; Lemma 5.2 at its one split (L = 1, score 1, ε → 1/2): (1/2)/(1·1)/1 = 1/2;
    Lemma 5.4 at that split: cost 1, the largest ε with ε log2(8/ε) ≤ 1 is ε* ≈ 0.184, and the bound
    1/log2(8/ε*) equals ε* (as ε* log2(8/ε*) = 1). The parity of four variables (s = 16, Var = 1, Inf = 4):
    Lemma 5.3 Inf/(Var log2(64)) = 4/6.
    """
    eps_star = _lemma54_eps(1.0, 2.0)
    return {"Lemma 5.1(1)": (0.5, "the dictator x0: error 1/2 over cost 1"),
            "OSSS inequality": (1.0, "the dictator x0: (Var/log2 s)/max Inf = (1/1)/1"),
            "Lemma 5.3": (4 / 6, "the parity of x0..x3: Inf/(Var log2(4s/Var)) = 4/(1·6)"),
            "Lemma 5.2": (0.5, "the dictator x0 at its split: (ε → 1/2)/(L log2 s) over score 1"),
            "Lemma 5.4": (eps_star, f"the dictator x0 at its split: ε* = {eps_star:.4f} solves ε log2(8/ε) = 1, "
                                    "bound 1/log2(8/ε*) = ε* over score 1")}


def check_search(table: VerificationTable, suprema_n4: pd.DataFrame, suprema_n3: pd.DataFrame,
                 brute: dict[str, float]) -> None:
    """Identity rows: the search at n = 3 equals the brute force; the search at n = 4 reaches every reference."""
    by3, by4 = suprema_n3.set_index("key"), suprema_n4.set_index("key")
    refs = reference_members()
    for key in BRUTE_FORCE_RESULTS:
        table.identity(f"{key} (search)", "|sup over every f on n = 3 by the search − by brute force|, margin ratio",
                       abs(float(by3.loc[key, "sup_ratio"]) - brute[key]), 1e-9,
                       computed_by=("dtcore.audit.worst_case.uniform_suprema",
                                    "dtbook.experiments.ch01.search_checks.brute_force_suprema"))
    for key in BRUTE_FORCE_RESULTS:
        ref, who = refs[key]
        table.identity(f"{key} (search)", f"shortfall of the n ≤ 4 supremum found below the reference member ({who})",
                       max(0.0, ref - float(by4.loc[key, "sup_ratio"])), 1e-9,
                       computed_by=("dtcore.audit.worst_case.uniform_suprema", "by hand (the reference member)"))


def printed_bounds() -> list[tuple[str, Any, Any, list[tuple]]]:
    """Each bound a counted row uses: (name, :mod:`dtcore.bounds` function, the printed formula afresh, arguments)."""
    log2 = math.log2
    sizes, epss = (2, 3, 8, 64), (0.01, 0.1, 0.3, 0.49)
    return [
        ("OSSS: Var / log2 s", bounds.osss05_max_influence_lower, lambda v, s: v / log2(s),
         [(v, s) for v in (0.1, 0.75, 1.0) for s in sizes]),
        ("BLT Lemma 5.3: Var log2(4s/Var)", bounds.blt20_lemma53_total_influence_upper,
         lambda v, s: v * log2(4 * s / v), [(v, s) for v in (0.1, 0.75, 1.0) for s in sizes]),
        ("BLT Lemma 5.2: ε / (L log2 s)", bounds.blt20_lemma52_score_lower, lambda e, L, s: e / (L * log2(s)),
         [(e, L, s) for e in epss for L in (1, 5) for s in sizes]),
        ("BLT Lemma 5.4: cost / (L log2(4s/ε) log2 s)", bounds.blt20_lemma54_score_lower,
         lambda c, e, L, s: c / (L * log2(4 * s / e) * log2(s)),
         [(c, e, L, s) for c in (0.5, 2.0) for e in epss for L in (1, 5) for s in sizes]),
        ("BLT Lemma 5.4's premise: ε log2(4s/ε)", bounds.blt20_lemma54_threshold, lambda e, s: e * log2(4 * s / e),
         [(e, s) for e in epss for s in sizes]),
        # the log2 form drops the ceiling of L1: a bound no larger than the printed one, so its row is stricter
        ("BLT Theorem 3: log2(1 + max(1, (C0/(εA))^(AB)) e^(B(A−1)))", bounds.blt20_theorem3_log2_size_bound,
         lambda s, e, c: log2(1 + max(1.0, (c / (e * log2(4 * s / e))) ** (log2(4 * s / e) * log2(s)))
                              * math.exp(log2(s) * (log2(4 * s / e) - 1))),
         [(s, e, c) for s in (2, 3, 4, 5) for e in (0.3, 0.4, 0.45) for c in (0.5, 1.0, 2.0)]),
        ("BLT Theorem 3 (C0 ≤ log2 s)", bounds.blt20_initial_cost_upper, lambda s: log2(s), [(s,) for s in sizes]),
        ("BLT Theorem 3, phase 1: ⌈(C0/(εA))^(AB)⌉", bounds.blt20_theorem3_phase1_leaves,
         lambda s, e, c: float(max(1, math.ceil((c / (e * log2(4 * s / e))) ** (log2(4 * s / e) * log2(s))))),
         [(s, e, c) for s in (2, 3) for e in (0.3, 0.45) for c in (0.5, 1.0, 1.5)]),
        ("BLT Theorem 3, phase 2: log2 s (C/ε − 1)", bounds.blt20_theorem3_phase2_harmonic,
         lambda s, e, c: log2(s) * (c / e - 1), [(s, e, c) for s in sizes for e in epss for c in (0.6, 1.5)]),
    ]


def check_printed_bounds(table: VerificationTable) -> None:
    """One identity row per bound: the largest relative gap between :mod:`dtcore.bounds` and the printed formula."""
    for name, coded, printed, args in printed_bounds():
        gap = max(abs(float(coded(*a)) - printed(*a)) / max(abs(printed(*a)), 1e-300) for a in args)
        table.identity(name, f"max relative |dtcore.bounds − the printed formula evaluated afresh| over {len(args)} "
                       "arguments", gap, 1e-9, computed_by=(coded, "the paper's printed formula (search_checks)"))


def search_glue(brute: dict[str, float], suprema_n3: pd.DataFrame) -> dict[str, Any]:
    """How much of the class the search saw, for the text."""
    return {"ch1_search_n3_functions": f"{2 ** 2 ** 3:,}", "ch1_search_n4_functions": f"{2 ** 2 ** 4:,}",
            "ch1_search_n3_agreement": small_number_text(max(abs(float(suprema_n3.set_index('key').loc[k, 'sup_ratio'])
                                                                 - brute[k]) for k in BRUTE_FORCE_RESULTS))}
