"""[MGBH26] Lemmas 4.1-4.5, C.1 and C.2 at their supremum over every function on n ≤ 4 and three measures.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dtcore import analysis, bounds, exhaustive
from dtcore.audit import worst_case
from dtcore.cube import ProductDistribution
from ...report import VerificationTable
from .common import relevant_variables


EXHAUSTIVE_MEASURES: tuple[tuple[float, ...], ...] = ((0.5, 0.5, 0.5, 0.5), (0.1, 0.1, 0.1, 0.1), (0.1, 0.3, 0.7, 0.9))
"""Three measures of page 7's grid: p = 1/2, a strong bias, an asymmetric vector (the full grid is page 7's)."""
EXHAUSTIVE_TOLERANCE = 1e-9
"""Float rounding of a supremum that is exactly 1 (the corrected C.1 at the dictator comes out as 1 + 2e-12)."""
RATIO_REACH_WHY = ("a ratio whose denominator (an influence, a cost or a score) can be arbitrarily small against its "
                   "numerator: no finite reach is known before the lemma")
# (result, form) of worst_case.product_suprema -> (row name, box, what computed the measured side, the bound's);
# C.2's second inequality (algebra) and Lemma 4.3 (an identity) are recorded apart
_INF, _SCORE = "dtcore.exhaustive.SubcubeStatistics.influences", "dtcore.exhaustive.best_first_runs"
_C1 = ("dtcore.bounds.mgbh26_lemma_c1_max_influence_lower", "dtcore.exhaustive.minimum_average_depth_by_cap")
_L44 = ("dtcore.bounds.mgbh26_lemma44_score_lower", "dtcore.exhaustive.SubcubeStatistics.error")
_L45 = ("dtcore.bounds.mgbh26_lemma45_score_lower", "dtcore.exhaustive.SubcubeStatistics.cost")
EXHAUSTIVE_ROWS = {
    ("Lemma C.1", "as printed"): ("Lemma C.1 (printed)", "lem-mgbh-c-1", _INF, _C1),
    ("Lemma C.1", "corrected (factor 2)"): ("Lemma C.1 (corrected)", "lem-mgbh-c-1", _INF, _C1),
    ("Lemma C.2", "first inequality"): ("Lemma C.2", "lem-mgbh-c-2", _INF, "dtcore.exhaustive.SubcubeStatistics.error"),
    ("Lemma 4.1", "as printed"): ("Lemma 4.1", "lem-mgbh-4-1", "dtcore.exhaustive.SubcubeStatistics.error",
                                  "dtcore.exhaustive.SubcubeStatistics.cost"),
    ("Lemma 4.2", "depth form"): ("Lemma 4.2 (D·Var form)", "lem-mgbh-4-2", _INF,
                                  ("dtcore.exhaustive.optimal_trees", "dtcore.exhaustive.SubcubeStatistics.variance")),
    ("Lemma 4.2", "average-depth form"): ("Lemma 4.2 (Δ form)", "lem-mgbh-4-2", _INF,
                                          "dtcore.exhaustive.minimum_average_depth_by_cap"),
    ("Lemma 4.4", "as printed"): ("Lemma 4.4 (printed)", "lem-mgbh-4-4", _SCORE, _L44),
    ("Lemma 4.4", "Delta-form (factor 2 fixed)"): ("Lemma 4.4 (Δ-form)", "lem-mgbh-4-4", _SCORE, _L44),
    ("Lemma 4.4", "D-form (provable)"): ("Lemma 4.4 (D-form, provable)", "lem-mgbh-4-4", _SCORE,
                                         ("dtcore.bounds.mgbh26_lemma44_score_lower", "dtcore.exhaustive.optimal_trees")),
    ("Lemma 4.5", "as printed"): ("Lemma 4.5 (printed)", "lem-mgbh-4-5", _SCORE, _L45),
    ("Lemma 4.5", "corrected (factor 2)"): ("Lemma 4.5 (Δ-form)", "lem-mgbh-4-5", _SCORE, _L45),
    ("Lemma 4.5", "D-form (provable)"): ("Lemma 4.5 (D-form, provable)", "lem-mgbh-4-5", _SCORE, _L45),
}


#: Forms whose supremum over n <= 4 is shown but not counted, and why (issue 35: one verdict per statement).
NOT_COUNTED = {
    ("Lemma 4.4", "Delta-form (factor 2 fixed)"): (
        "the statement quantifies over every f, and the gated majority x0 ∧ Maj_k (n ≥ 6, its counterexample row) "
        "refutes it; that it holds on n ≤ 4 is the supremum over a smaller class, not a verdict"),
    ("Lemma 4.5", "as printed"): (
        "its proof rests on Δ(f_ℓ) ≤ Δ_opt, the step the gated majority refutes for Lemma 4.4's Δ-form; the provable "
        "D-form is the counted statement"),
    ("Lemma 4.5", "corrected (factor 2)"): (
        "its proof rests on Δ(f_ℓ) ≤ Δ_opt, the step the gated majority refutes for Lemma 4.4's Δ-form; the provable "
        "D-form is the counted statement"),
    ("Lemma 4.2", "average-depth form"): (
        "no output can fail it: the sharper Δ/2 form (counted, tight) bounds Inf/Δ by 1/2 for every f and every tree "
        "computing f, and even the flip influence in place of Inf^μ reaches only {worse:.4g} at the witness"),
}

#: The worse output each counted supremum row is measured on at its witness (issue 35: a row names its power).
WORSE_OUTPUTS = {
    ("Lemma C.1", "corrected (factor 2)"): "Inf^μ weighted by p(1 − p), not 2p(1 − p) (the fault "
                                           "ch4-rerandomised-normalisation), at the witness",
    ("Lemma C.2", "first inequality"): "the flip influence Pr[f(x) ≠ f(x ⊕ eᵢ)] in place of Inf^μ, at the witness",
    ("Lemma 4.1", "as printed"): "the cost with Inf^μ weighted by p(1 − p) (the fault ch4-rerandomised-normalisation), "
                                 "at the witness",
    ("Lemma 4.2", "depth form"): "the flip influence Pr[f(x) ≠ f(x ⊕ eᵢ)] in place of Inf^μ, at the witness",
    ("Lemma 4.2", "average-depth form"): "the flip influence Pr[f(x) ≠ f(x ⊕ eᵢ)] in place of Inf^μ, at the witness",
    ("Lemma 4.4", "D-form (provable)"): "the worst split of the witness's bare tree (smallest score of a free variable)",
    ("Lemma 4.5", "D-form (provable)"): "the worst split of the witness's bare tree (smallest score of a free variable)",
}


def _measure_text(measure: str) -> str:
    """'uniform' or the p vector as written by :meth:`dtcore.audit.worst_case.Supremum.row`."""
    return "p = 1/2" if measure in ("uniform", "(0.5, 0.5, 0.5, 0.5)") else f"p = {measure}"


def exhaustive_suprema(measures: Sequence[Sequence[float]] = EXHAUSTIVE_MEASURES,
                       n: int = 4) -> tuple[pd.DataFrame, dict[str, float]]:
    """[MGBH26] Lemmas 4.1-4.5, C.1, C.2 at their supremum over every function on ``n`` variables and ``measures``.

    One row per (lemma, form) of :func:`dtcore.audit.worst_case.product_suprema`: the supremum of
    measured/bound (1 = the bound, above 1 violated), its witness (truth table in hex, measure, the
    bare tree's leaves for Lemmas 4.4/4.5) and verdict. Lemmas C.1 and 4.4 are recomputed at the
    witness in rational arithmetic (``exact``, :func:`dtcore.audit.worst_case.exact_lemma_ratio`) in
    every form, so a violation is claimed only in exact arithmetic. Also returns Lemma 4.3's largest
    |cost drop − score| (every function, subcube, free variable, measure), the measures' largest
    Σ_i 2 p_i (1 − p_i) (the reach of Inf/Δ) and the CPU seconds of the search.
    """
    start = time.process_time()
    dists = [ProductDistribution(np.asarray(p, dtype=float)) for p in measures]
    tracker = worst_case.product_suprema(dists, n)
    rows = []
    for sup in tracker.best.values():
        if sup.paper != "MGBH26":
            continue
        if sup.result in ("Lemma C.1", "Lemma 4.4"):
            sup.exact = worst_case.exact_lemma_ratio(sup)
        row = sup.row()
        row["exact"] = math.nan if sup.exact is None else float(sup.exact)
        rows.append(row)
    frame = pd.DataFrame(rows)
    info = {"lemma43_deviation": tracker.deviations["MGBH26 Lemma 4.3"],
            "max_total_weight": max(float((2 * d.p * (1 - d.p)).sum()) for d in dists),
            "measures": len(dists), "functions": 2 ** 2 ** n, "seconds": time.process_time() - start}
    return frame, info


def _sup(frame: pd.DataFrame, result: str, form: str) -> pd.Series:
    match = frame[(frame["result"] == result) & (frame["form"] == form)]
    if len(match) != 1:
        raise ValueError(f"frame must hold one supremum of {result} ({form}), got {len(match)}")
    return match.iloc[0]


def _witness(row: pd.Series) -> str:
    """Where the supremum sits: the function's truth table, the measure and the bare tree's leaves."""
    text = f"f = 0x{row['table']} ({row['n']} variables), {_measure_text(row['measure'])}"
    if not pd.isna(row["leaves"]):
        text += f", at the {int(row['leaves'])}-leaf bare tree of Algorithm 1's run"
    return text


def exhaustive_display(frame: pd.DataFrame) -> pd.DataFrame:
    """The suprema as shown on the page: lemma, form, statement, supremum, exact ratio, witness, verdict."""
    return pd.DataFrame({"paper's lemma": frame["result"], "form": frame["form"], "statement": frame["statement"],
                         "sup measured/bound": frame["sup_ratio"],
                         "exact at the witness": frame["exact_ratio"].fillna("—"),
                         "witness": [_witness(r) for _, r in frame.iterrows()],
                         "verdict": [_verdict(r) for _, r in frame.iterrows()]})


def _verdict(row: pd.Series) -> str:
    """The search's verdict, except for E.1 at a witness outside its hypothesis (a complete tree of size s over
    n = log2 s variables): a witness whose relevant variables outnumber log2 s refutes nothing (issue 35)."""
    if row["result"] != "Lemma E.1":
        return str(row["verdict"])
    n = int(row["n"])
    table = ((int(str(row["table"]), 16) >> np.arange(2 ** n)) & 1).astype(np.uint8)
    relevant = relevant_variables(table)
    size = int(exhaustive.optimal_trees(table[None, :]).root_size[0])
    if 2 ** relevant != size:
        return (f"not a counterexample: the witness reads {relevant} variables and its smallest tree has {size} "
                f"leaves, outside E.1's hypothesis (a complete tree of size s over log2 s variables)")
    return str(row["verdict"])


def exhaustive_glue(frame: pd.DataFrame, info: dict[str, float]) -> dict[str, object]:
    """Glue values of the exhaustive suprema: counts, CPU time and one sentence per printed error and corrected form."""
    c1p, c1 = _sup(frame, "Lemma C.1", "as printed"), _sup(frame, "Lemma C.1", "corrected (factor 2)")
    l44p = _sup(frame, "Lemma 4.4", "as printed")
    l44d, l44D = _sup(frame, "Lemma 4.4", "Delta-form (factor 2 fixed)"), _sup(frame, "Lemma 4.4", "D-form (provable)")
    l45p = _sup(frame, "Lemma 4.5", "as printed")
    l45d, l45D = _sup(frame, "Lemma 4.5", "corrected (factor 2)"), _sup(frame, "Lemma 4.5", "D-form (provable)")
    return {
        "ch4_ex_functions": f"{int(info['functions']):,}", "ch4_ex_measures": int(info["measures"]),
        "ch4_ex_seconds": float(info["seconds"]),
        "ch4_ex_c1": (f"The printed Lemma C.1 fails: its bound is {c1p['exact_ratio']} times the largest influence "
                      f"(exact arithmetic) at {_witness(c1p)}, while the corrected form reaches exactly "
                      f"{c1['exact_ratio']} of its bound at {_witness(c1)}: the factor 2 is needed and enough."),
        "ch4_ex_l44": (f"The printed Lemma 4.4 fails: its bound is {l44p['exact_ratio']} times the chosen score "
                       f"(exact arithmetic) at {_witness(l44p)}, with ε just under the error. On every function on "
                       f"four variables the Δ-form reaches {l44d['exact_ratio']} of its bound (at "
                       f"{_witness(l44d)}) and the D-form {l44D['exact_ratio']}, so neither fails there: the "
                       "counterexample to the Δ-form below has six or more variables."),
        "ch4_ex_l45": (f"The printed Lemma 4.5 holds on every function on four variables and is attained "
                       f"(supremum {l45p['sup_ratio']:.6g}, at {_witness(l45p)}); its Δ- and D-forms reach "
                       f"{l45d['sup_ratio']:.3g} and {l45D['sup_ratio']:.3g} of theirs."),
    }


def _witness_case(row: pd.Series) -> tuple[np.ndarray, ProductDistribution]:
    """The witness of a supremum row: its truth table and its product measure."""
    n = int(row["n"])
    measure = row["measure"]
    p = (0.5,) * n if measure == "uniform" else tuple(float(v) for v in str(measure).strip("()").split(","))
    return exhaustive.all_tables(n)[int(row["function"])], ProductDistribution(np.asarray(p, dtype=float))


def _worst_split(table: np.ndarray, dist: ProductDistribution, leaves: int) -> dict[str, float]:
    """Algorithm 1's bare tree at the witness step (``leaves`` leaves): its error, cost, least depth and the
    smallest score p_ℓ Inf^μ_i(f_ℓ) over its leaves and their free variables (the worst split it could make)."""
    n = table.size.bit_length() - 1
    sub = exhaustive.subcubes(n)
    stats = exhaustive.subcube_statistics(table[None, :], dist, "rerandomised")
    runs = exhaustive.best_first_runs(*exhaustive.build_top_down_scores(stats), n)
    frontier = runs.frontier(0, leaves - 1)
    scores = stats.by_variable[:, 0, frontier][sub.free[frontier].T]  # free variables of every leaf
    return {"error": float(stats.error[0, frontier].sum()), "cost": float(stats.cost[0, frontier].sum()),
            "D": float(exhaustive.optimal_trees(table[None, :]).root_depth[0]), "j": float(len(frontier)),
            "worst_score": float(scores.min())}


def worse_output_values(frame: pd.DataFrame) -> dict[tuple[str, str], float]:
    """measured/bound of each counted supremum row on its named worse output (:data:`WORSE_OUTPUTS`), at the witness.

    The same ratio as the supremum, recomputed at the witness by :mod:`dtcore.analysis` with one wrong ingredient:
    the influence weighted by p(1 − p) (a factor 2 lost), the flip influence in place of the re-randomised one, or
    the split of smallest score in place of the greedy one. Each such value exceeds 1 where the row can fail.
    """
    out: dict[tuple[str, str], float] = {}
    for key in list(WORSE_OUTPUTS):
        row = _sup(frame, *key)
        table, dist = _witness_case(row)
        flip = analysis.influences(table, dist, "flip")
        halved = flip * dist.p * (1 - dist.p)  # the fault: p(1 - p) where 2 p(1 - p) belongs
        var, err = analysis.variance(table, dist), analysis.constant_error(table, dist)
        avg = float(exhaustive.minimum_average_depth_by_cap(table[None, :], dist)[-1][0])
        depth = float(exhaustive.optimal_trees(table[None, :]).root_depth[0])
        with np.errstate(divide="ignore"):
            if key[0] == "Lemma C.1":
                out[key] = float(bounds.mgbh26_lemma_c1_max_influence_lower(var, avg) / halved.max())
            elif key[0] == "Lemma C.2":
                out[key] = float(flip.max() / (2 * err))
            elif key[0] == "Lemma 4.1":
                out[key] = float(err / halved.sum())
            elif key == ("Lemma 4.2", "depth form"):
                out[key] = float(flip.sum() / (depth * var))
            elif key == ("Lemma 4.2", "average-depth form"):
                out[key] = float(flip.sum() / avg)
            else:
                step = _worst_split(table, dist, int(row["leaves"]))
                if key[0] == "Lemma 4.4":  # eps just under the error, as the search takes it
                    bound = bounds.mgbh26_lemma44_score_lower(step["error"], step["j"], step["D"])
                else:
                    bound = bounds.mgbh26_lemma45_score_lower(step["cost"], step["j"], step["D"], step["D"])
                out[key] = float(np.float64(bound) / np.float64(step["worst_score"]))
    return out


def check_exhaustive(table: VerificationTable, frame: pd.DataFrame, info: dict[str, float]) -> None:
    """[MGBH26] Lemmas 4.1-4.5, C.1, C.2 at their exhaustive supremum: theorem rows, or counterexamples if violated.

    A printed form whose supremum exceeds 1 in exact arithmetic is a counterexample row (measured:
    the exact ratio at the witness); every other form a theorem row ``sup <= 1``. C.2's second
    inequality holds by algebra and is an observation; Lemma 4.3 is an identity; the float suprema
    of C.1 and 4.4 are compared with their exact recomputation at the witness.
    """
    where = f"every function on n ≤ 4 variables under {int(info['measures'])} product measures"
    worse = worse_output_values(frame)
    for (result, form), (name, box, measured_by, bound_by) in EXHAUSTIVE_ROWS.items():
        row = _sup(frame, result, form)
        quantity = f"sup of measured/bound over {where} ({row['statement']})"
        if row["verdict"] == "violated":
            table.counterexample(name, quantity + ", exact at the witness", float(row["exact"]), 1.0, relation="<=",
                                 reach=(0.0, math.inf), worst_case=_witness(row), box=box)
            continue
        reach, reach_why = (0.0, math.inf), RATIO_REACH_WHY
        if (result, form) == ("Lemma 4.2", "average-depth form"):
            # Inf = sum_i Inf_i <= sum_i 2 p_i (1 - p_i), and Delta >= 1 for a non-constant f
            reach, reach_why = (0.0, float(info["max_total_weight"])), ""
            table.theorem("Lemma 4.2 (Δ/2 form, ours)", f"sup of Inf(f)/Δ over {where}, against 1/2",
                          float(row["sup_ratio"]), 0.5, reach=reach, measured_by=measured_by,
                          bound_by=bound_by, tolerance=EXHAUSTIVE_TOLERANCE,
                          worst_case=f"{_witness(row)}; search over {where}", box=box,
                          note="the sharper ceiling derived in the text",
                          fails_under=(WORSE_OUTPUTS[(result, form)], worse[(result, form)]))
        if (result, form) in NOT_COUNTED:
            why = NOT_COUNTED[(result, form)].format(worse=worse.get((result, form), math.nan))
            table.observation(name, quantity, float(row["sup_ratio"]), 1.0, box=box, why=why,
                              worst_case=f"{_witness(row)}; search over {where}")
            continue
        table.theorem(name, quantity, float(row["sup_ratio"]), 1.0, reach=reach, reach_why=reach_why,
                      measured_by=measured_by, bound_by=bound_by, tolerance=EXHAUSTIVE_TOLERANCE,
                      worst_case=f"{_witness(row)}; search over {where}", box=box,
                      fails_under=(WORSE_OUTPUTS[(result, form)], worse[(result, form)]))
    c2 = _sup(frame, "Lemma C.2", "second inequality")
    table.observation("Lemma C.2", f"sup of 2·error(f,±1)/Var(f) over {where}", float(c2["sup_ratio"]), 1.0,
                      why="holds by algebra: 2 min(μ, 1 − μ) ≤ 4μ(1 − μ) for every μ; the identity "
                          "Var = 4·err·(1 − err) guards the code", worst_case=_witness(c2), box="lem-mgbh-c-2")
    table.identity("Lemma 4.3", f"max |cost drop − score| over {where}, every subcube and free x_i",
                   float(info["lemma43_deviation"]), 1e-12,
                   computed_by=("dtcore.exhaustive.SubcubeStatistics.cost", "dtcore.exhaustive.SubcubeStatistics.by_variable"),
                   box="lem-mgbh-4-3",
                   note="the drop sums every variable's entry on ρ and on its two children, the score is one entry "
                        "on ρ: they agree only if each Inf_k(f_ρ) is the μ_i-average of the children's")
    exact = frame.dropna(subset=["exact"])
    table.identity("Lemmas C.1, 4.4", "max |float supremum − rational recomputation at its witness|, every form",
                   float((exact["sup_ratio"] - exact["exact"]).abs().max()), EXHAUSTIVE_TOLERANCE,
                   computed_by=(worst_case.product_suprema, worst_case.exact_lemma_ratio), box="lem-mgbh-c-1")
