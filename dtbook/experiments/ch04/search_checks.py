"""How the chapter's exhaustive search and bound formulas are themselves checked ([MGBH26] Lemmas 4.1-4.5, C.1, C.2,
Theorems 1.1 and 5.1, Lemmas 4.6 and 4.7).

The suprema of :mod:`.suprema` come from one search over every function on four variables and three measures
(:func:`dtcore.audit.worst_case.product_suprema`). Each supremum it reports must be at least the ratio of a named
reference member worked by hand: the dictator x0, whose every quantity has a closed form in p = Pr[x0 = 1]
(Var = 4p(1 − p), Inf^mu_0 = 2p(1 − p), error min(p, 1 − p), D = Δ = 1 and one split, its score Inf^mu_0). A
search that skips a measure, a function or a form falls short of it and fails an identity row.

Every bound of a counted row is also evaluated a second time from the paper's printed formula, written afresh
here (:func:`printed_bounds`), and compared with :mod:`dtcore.bounds` on a grid of arguments.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from dtcore import bounds
from ...report import VerificationTable
from .suprema import EXHAUSTIVE_MEASURES


def dictator_ratios(p: float) -> dict[tuple[str, str], float]:
    """The margin ratio (bound/measured for a lower bound, measured/bound for an upper one) of the dictator x0
    with Pr[x0 = 1] = p, for each (result, form) of :func:`dtcore.audit.worst_case.product_suprema`, by hand."""
    q = 1 - p
    var, inf, err = 4 * p * q, 2 * p * q, min(p, q)
    return {("Lemma C.1", "as printed"): (var / 1) / inf,  # max Inf >= Var/Δ
            ("Lemma C.1", "corrected (factor 2)"): (var / 2) / inf,
            ("Lemma C.2", "first inequality"): inf / (2 * err),  # Inf_i <= 2 error
            ("Lemma C.2", "second inequality"): 2 * err / var,  # 2 error <= Var
            ("Lemma 4.1", "as printed"): err / inf,  # error <= cost, one leaf: cost = Inf = Inf_0
            ("Lemma 4.2", "depth form"): inf / (1 * var),  # Inf <= D Var
            ("Lemma 4.2", "average-depth form"): inf / (1 * var),  # Inf <= Δ Var
            ("Lemma 4.4", "as printed"): (2 * err / 1) / inf,  # score >= 2ε/(jΔ), ε just under the error, j = 1
            ("Lemma 4.4", "Delta-form (factor 2 fixed)"): (err / 1) / inf,
            ("Lemma 4.4", "D-form (provable)"): (err / 1) / inf,
            ("Lemma 4.5", "as printed"): (inf / 1) / inf,  # score >= cost/(jDΔ), cost = Inf at the root
            ("Lemma 4.5", "corrected (factor 2)"): (inf / 2) / inf,
            ("Lemma 4.5", "D-form (provable)"): (inf / 2) / inf}


def reference_suprema(measures=EXHAUSTIVE_MEASURES) -> dict[tuple[str, str], float]:
    """The largest dictator ratio over the measures' p_0 (x0's bias under each measure)."""
    out: dict[tuple[str, str], float] = {}
    for p in {float(m[0]) for m in measures}:
        for key, value in dictator_ratios(p).items():
            out[key] = max(out.get(key, 0.0), value)
    return out


def check_search(table: VerificationTable, frame: pd.DataFrame) -> None:
    """One identity row per (result, form): the supremum found is at least the dictator's ratio."""
    refs = reference_suprema()
    for (result, form), ref in refs.items():
        found = frame[(frame["result"] == result) & (frame["form"] == form)]
        sup = float(found["sup_ratio"].iloc[0]) if len(found) == 1 else 0.0
        table.identity(f"{result} ({form}; search)", "shortfall of the supremum over every function on 4 variables "
                       f"below the dictator x0's ratio {ref:.4g}, worked by hand", max(0.0, ref - sup), 1e-9,
                       computed_by=("dtcore.audit.worst_case.product_suprema", "by hand (the dictator x0)"))


def printed_bounds() -> list[tuple[str, Any, Any, list[tuple]]]:
    """Each bound a counted row uses: (name, the :mod:`dtcore.bounds` call, the printed formula afresh, arguments)."""
    e = math.e
    depths = [(d, a) for d in (1, 2, 3, 5) for a in (0.5, 1.0, 1.7, 3.0) if a <= d]
    schedule_args = [(j, d, x, n) for j in (1, 2, 7) for d in (0.01, 0.1, 0.5) for x in (0.05, 0.2) for n in (3, 20)]
    return [
        ("MGBH26 Lemma C.1 as printed: Var/Δ", lambda v, a: bounds.mgbh26_lemma_c1_max_influence_lower(v, a, True),
         lambda v, a: v / a, [(v, a) for v in (0.1, 0.64, 1.0) for a in (0.5, 1.0, 2.5)]),
        ("MGBH26 Lemma C.1 corrected: Var/(2Δ)", bounds.mgbh26_lemma_c1_max_influence_lower,
         lambda v, a: v / (2 * a), [(v, a) for v in (0.1, 0.64, 1.0) for a in (0.5, 1.0, 2.5)]),
        ("MGBH26 Lemma 4.4 as printed: 2ε/(jΔ)", lambda x, j, a: bounds.mgbh26_lemma44_score_lower(x, j, a, True),
         lambda x, j, a: 2 * x / (j * a), [(x, j, a) for x in (0.05, 0.3) for j in (1, 4) for a in (1.0, 2.5)]),
        ("MGBH26 Lemma 4.4 Δ-form: ε/(jΔ)", bounds.mgbh26_lemma44_score_lower,
         lambda x, j, a: x / (j * a), [(x, j, a) for x in (0.05, 0.3) for j in (1, 4) for a in (1.0, 2.5)]),
        ("MGBH26 Lemma 4.5 as printed: cost/(jDΔ)",
         lambda c, j, d, a: bounds.mgbh26_lemma45_score_lower(c, j, d, a, True), lambda c, j, d, a: c / (j * d * a),
         [(c, j, d, a) for c in (0.2, 1.5) for j in (1, 4) for d, a in depths]),
        ("MGBH26 Lemma 4.5 corrected: cost/(2jDΔ)", bounds.mgbh26_lemma45_score_lower,
         lambda c, j, d, a: c / (2 * j * d * a), [(c, j, d, a) for c in (0.2, 1.5) for j in (1, 4) for d, a in depths]),
        ("MGBH26 Theorem 1.1: ln max((eΔ/(εD))^(ΔD), e^(ΔD))", bounds.mgbh26_log_size_bound,
         lambda d, a, x: math.log(max((e * a / (x * d)) ** (a * d), e ** (a * d))),
         [(d, a, x) for d, a in depths for x in (0.05, 0.1, 0.3)]),
        ("MGBH26 Theorem 5.1: ln max((eΔ/(εD))^(4ΔD), e^(4ΔD))", lambda d, a, x: bounds.mgbh26_log_size_bound(d, a, x, 4.0),
         lambda d, a, x: math.log(max((e * a / (x * d)) ** (4 * a * d), e ** (4 * a * d))),
         [(d, a, x) for d, a in depths for x in (0.05, 0.1, 0.3)]),
        ("MGBH26 Lemma 4.6: max((Δ/(εD))^(DΔ), 1)", bounds.mgbh26_lemma46_phase1_steps,
         lambda d, a, x: max((a / (x * d)) ** (d * a), 1.0), [(d, a, x) for d, a in depths for x in (0.05, 0.1, 0.3)]),
        ("MGBH26 Lemma 4.7: J_1 e^(ΔD)", bounds.mgbh26_lemma47_total_steps, lambda j, d, a: j * e ** (a * d),
         [(j, d, a) for j in (1, 3) for d, a in depths]),
        # Algorithm 2's schedules (Secs. 5.2-5.3) and Lemma 5.3's gap, as printed
        ("MGBH26 Sec. 5.2 M_S: 12(j+1)n/ε · ln(4j²(j+1)n/δ)", bounds.mgbh26_score_pairs_needed,
         lambda j, d, x, n: 12 * (j + 1) * n / x * math.log(4 * j * j * (j + 1) * n / d), schedule_args),
        ("MGBH26 Sec. 5.3 M_LL: 128((j+1) ln 2 + ln(16j²/δ))/ε²", lambda j, d, x, n: bounds.mgbh26_label_points_needed(j, x, d),
         lambda j, d, x, n: 128 * ((j + 1) * math.log(2) + math.log(16 * j * j / d)) / x ** 2, schedule_args),
        ("MGBH26 Lemma 5.4 M_EE: 32/ε² · ln(16j²/δ)", lambda j, d, x, n: bounds.mgbh26_error_points_needed(j, x, d),
         lambda j, d, x, n: 32 / x ** 2 * math.log(16 * j * j / d), schedule_args),
        ("MGBH26 Lemma 5.3: sqrt(2(l ln 2 + ln(16j²/δ))/m̂)", bounds.mgbh26_lemma53_label_gap,
         lambda l, j, d, m: math.sqrt(2 * (l * math.log(2) + math.log(16 * j * j / d)) / m),
         [(l, j, d, m) for l in (1, 2, 9) for j in (1, 4, 8) for d in (0.01, 0.1) for m in (50.0, 1e4)]),
        # the book's one-sided Hoeffding step of Lemma 5.4: exp(-2 m t²) = δ/(16 j²) at M_EE is t = ε/8 exactly
        ("MGBH26 Lemma 5.4 Hoeffding deviation at M_EE(j): ε/8",
         lambda j, d, x, n: bounds.mgbh26_error_estimate_deviation(32 / x ** 2 * math.log(16 * j * j / d), j, d),
         lambda j, d, x, n: x / 8, schedule_args),
    ]


def check_printed_bounds(table: VerificationTable) -> None:
    """One identity row per bound: the largest relative gap between :mod:`dtcore.bounds` and the printed formula."""
    for name, coded, printed, args in printed_bounds():
        gap = max(abs(float(coded(*a)) - printed(*a)) / max(abs(printed(*a)), 1e-300) for a in args)
        table.identity(name, f"max relative |dtcore.bounds − the printed formula evaluated afresh| over {len(args)} "
                       "arguments", gap, 1e-9, computed_by=("dtcore.bounds", "the paper's printed formula (search_checks)"))
