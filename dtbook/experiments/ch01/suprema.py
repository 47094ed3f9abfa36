"""[BLT20] Lemmas 5.1(1), 5.2, 5.3, 5.4 and OSSS at their supremum over every Boolean function on n ≤ 4.

One exhaustive search (:func:`dtcore.audit.worst_case.uniform_suprema`); each result's module states its row
through :func:`exhaustive_check`.
"""

from __future__ import annotations

import math
import time
from typing import Any

import pandas as pd

import numpy as np

from dtcore import bounds, exhaustive
from dtcore.audit import worst_case
from dtcore.validate import check_int
from .common import glue_key, INFLUENCES, OPTIMAL

#: The chapter's deterministic results and their (result, form) in :func:`dtcore.audit.worst_case.uniform_suprema`.
EXHAUSTIVE_RESULTS = {"Lemma 5.1(1)": ("Lemma 5.1(1)", "as printed"),
                      "OSSS inequality": ("OSSS inequality", "size form (BLT20)"),
                      "Lemma 5.3": ("Lemma 5.3", "as printed"),
                      "Lemma 5.2": ("Lemma 5.2", "as printed"),
                      "Lemma 5.4": ("Lemma 5.4", "as printed")}
#: Per result: the quantity, the side of the bound, and what computed each side (the search itself,
#: uniform_suprema, walks every function and every step of BuildTopDownDT's run to zero error).
_EXHAUSTIVE_CHECKS = {
    "Lemma 5.1(1)": ("max over every f with cost > 0 of error / cost (one-leaf bare tree: a ratio of sums over "
                     "leaves is at most its largest term)", "<=",
                     "dtcore.exhaustive.SubcubeStatistics.error", INFLUENCES),
    "OSSS inequality": ("min over every non-constant f of max_i Inf_i / (Var / log2 s), s its minimum tree size",
                        ">=", INFLUENCES,
                        ("dtcore.bounds.osss05_max_influence_lower", "dtcore.exhaustive.SubcubeStatistics.variance",
                         OPTIMAL)),
    "Lemma 5.3": ("max over every non-constant f of Inf / (Var log2(4s/Var)), s its minimum tree size", "<=",
                  INFLUENCES, ("dtcore.bounds.blt20_lemma53_total_influence_upper",
                                "dtcore.exhaustive.SubcubeStatistics.variance", OPTIMAL)),
    "Lemma 5.2": ("min over every f and every split of BuildTopDownDT's run of score / (ε/(L log2 s)), "
                  "ε just under the error", ">=", "dtcore.exhaustive.build_top_down_scores",
                  ("dtcore.bounds.blt20_lemma52_score_lower", "dtcore.exhaustive.SubcubeStatistics.error", OPTIMAL)),
    "Lemma 5.4": ("min over every f and every split of BuildTopDownDT's run of score / bound, ε the largest "
                  "with cost ≥ ε log2(4s/ε)", ">=", "dtcore.exhaustive.build_top_down_scores",
                  ("dtcore.bounds.blt20_lemma54_score_lower", "dtcore.exhaustive.SubcubeStatistics.cost", OPTIMAL)),
}


#: Per result, the worse output the row names as its power (``fails_under``): the same quantity over every
#: function, measured on an output of the same type that the row must fail on.
WORSE_OUTPUTS = {
    "Lemma 5.1(1)": "the label-inverted completion (each leaf labelled by f's minority value), at its worst f",
    "OSSS inequality": "the least influential variable in place of the most influential one, at its worst f",
    "Lemma 5.3": "s taken as 2, the size of a one-split tree (which computes no function of two or more "
                 "variables), at its worst f",
    "Lemma 5.2": "each selected leaf split on its least influential free variable, at its worst f and split",
    "Lemma 5.4": "each selected leaf split on its least influential free variable, at its worst f and split",
}


def worse_suprema(n: int = 4) -> dict[str, tuple[float, str]]:
    """Each result's supremum (book's convention: above 1 = violated) and witness on its worse output.

    Lemmas 5.2, 5.4 and OSSS: :func:`dtcore.audit.worst_case.uniform_suprema` with ``variable="least"``;
    Lemma 5.1(1): error of the label-inverted one-leaf completion over cost, 1 − error(f) over Inf(f);
    Lemma 5.3: Inf over the bound with s = 2. Every function on ``n`` variables, uniform measure.
    """
    n = check_int("n", n, 2, exhaustive.MAX_ALL_FUNCTIONS_VARIABLES)
    least = worst_case.uniform_suprema(n, variable="least").best
    out = {key: (least[found].ratio, least[found].row()["table"]) for key, found in EXHAUSTIVE_RESULTS.items()
           if key in ("OSSS inequality", "Lemma 5.2", "Lemma 5.4")}
    stats = exhaustive.subcube_statistics(exhaustive.all_tables(n))
    root = exhaustive.subcubes(n).root
    err, cost, var = stats.error[:, root], stats.cost[:, root], stats.variance[:, root]
    with np.errstate(divide="ignore", invalid="ignore"):
        inverted = np.where(cost > 0, (stats.p_reach[root] - err) / cost, np.nan)
        at_two = np.where(var > 0, cost / worst_case.elementwise(bounds.blt20_lemma53_total_influence_upper, var,
                                                                  2.0, where=var > 0), np.nan)
    for key, ratio in (("Lemma 5.1(1)", inverted), ("Lemma 5.3", at_two)):
        b = int(np.nanargmax(ratio))
        out[key] = (float(ratio[b]), format(b, f"0{2 ** n // 4}x"))
    return out


def _leaves_text(leaves: int) -> str:
    return "one-leaf" if leaves == 1 else f"{leaves}-leaf"


def exhaustive_suprema(n: int = 4) -> pd.DataFrame:
    """[BLT20] Lemmas 5.1(1)–5.4 and OSSS at their supremum over every Boolean function on ``n`` variables.

    Runs :func:`dtcore.audit.worst_case.uniform_suprema` (uniform measure; s and the trees are each
    function's minimum-size tree; Lemmas 5.2/5.4 at every step of BuildTopDownDT's run to zero error).
    One row per result of :data:`EXHAUSTIVE_RESULTS`: ``sup_ratio`` in the book's margin convention
    (1 = the bound, above 1 = violated), the witness (``table`` in hex, ``leaves`` of the witness bare
    tree), its minimum tree size ``s``, the ``verdict``, ``cpu_seconds`` of the whole search, and the row's
    power: ``worse`` (the worse output, :data:`WORSE_OUTPUTS`), its supremum ``worse_ratio`` and witness
    ``worse_table`` (:func:`worse_suprema`).
    Functions on fewer variables are functions on ``n`` that ignore some, so ``n = 4`` covers n ≤ 4.
    """
    n = check_int("n", n, 2, exhaustive.MAX_ALL_FUNCTIONS_VARIABLES)
    start = time.process_time()
    tracker = worst_case.uniform_suprema(n)
    seconds = time.process_time() - start
    frame = pd.DataFrame([{"key": key, **tracker.best[found].row()} for key, found in EXHAUSTIVE_RESULTS.items()])
    witnesses = exhaustive.all_tables(n)[frame["function"].to_numpy()]
    frame["s"] = exhaustive.optimal_trees(witnesses).root_size.astype(int)
    frame["cpu_seconds"] = seconds
    worse = worse_suprema(n)
    frame["worse"] = [WORSE_OUTPUTS[key] for key in frame["key"]]
    frame["worse_ratio"] = [worse[key][0] for key in frame["key"]]
    frame["worse_table"] = [worse[key][1] for key in frame["key"]]
    return frame


def exhaustive_check(suprema: pd.DataFrame, key: str) -> dict[str, Any]:
    """The keyword arguments of ``table.theorem`` for one exhaustive supremum (all but ``box``).

    The measured value is in the orientation of the chapter's other rows (a max of measured/bound
    for an upper bound, a min of measured/bound for a lower bound); the bound is 1. Reaches, from
    facts outside the lemmas: error ≤ 1/2 and a positive cost is at least 2^(1−n) (one sensitive edge
    in a leaf), so error/cost ≤ 2^(n−2); Inf_i ≤ 2 min(Pr[f=0], Pr[f=1]) ≤ Var, so max_i Inf_i ≤ Var,
    OSSS's ratio is at most log2 s ≤ n and Lemma 5.3's at most n Var / (3 Var) = n/3 (log2(4s/Var) ≥ 3).
    So Lemma 5.3 can fail only from n = 4 on: at n ≤ 3 the table refuses its row as vacuous.
    """
    if key not in _EXHAUSTIVE_CHECKS:
        raise ValueError(f"key must be one of {list(_EXHAUSTIVE_CHECKS)}, got {key!r}")
    row = suprema.set_index("key").loc[key]
    quantity, relation, measured_by, bound_by = _EXHAUSTIVE_CHECKS[key]
    n = int(row["n"])
    ratio = float(row["sup_ratio"])
    measured = ratio if relation == "<=" else (1.0 / ratio if ratio > 0 else math.inf)
    reach = {"Lemma 5.1(1)": (0.0, 2.0 ** (n - 2)), "OSSS inequality": (0.0, float(n)),
             "Lemma 5.3": (0.0, n / 3)}.get(key, (0.0, math.inf))
    step = "" if pd.isna(row["leaves"]) else f", at the {_leaves_text(int(row['leaves']))} bare tree of BuildTopDownDT's run"
    worst_where = (f"f = {row['table']}, s = {int(row['s'])}; hex truth table, uniform measure{step}; exhaustive: "
                   f"all {2 ** 2 ** n:,} functions on n = {n} ({int(row['cases']):,} cases); verdict {row['verdict']}")
    out = {"result": key, "quantity": f"{quantity}, n ≤ {n}", "measured": measured, "bound": 1.0,
           "relation": relation, "reach": reach, "measured_by": measured_by, "bound_by": bound_by,
           "worst_case": worst_where, "tolerance": 1e-12}
    if "worse" in row.index:
        worse = float(row["worse_ratio"])
        out["fails_under"] = (f"{row['worse']} (f = {row['worse_table']})",
                              worse if relation == "<=" else (1.0 / worse if worse > 0 else math.inf))
    return out


def exhaustive_glue(suprema: pd.DataFrame) -> dict[str, Any]:
    """One sentence per result (supremum, witness, verdict) and the search's CPU time, for the text."""
    values: dict[str, Any] = {}
    for key in EXHAUSTIVE_RESULTS:
        check = exhaustive_check(suprema, key)
        row = suprema.set_index("key").loc[key]
        word = "largest" if check["relation"] == "<=" else "smallest"
        step = "" if pd.isna(row["leaves"]) else f" (the {_leaves_text(int(row['leaves']))} bare tree)"
        values[f"ch1_ex_{glue_key(key).replace('.', '').replace('(', '').replace(')', '').lower()}"] = (
            f"the {word} value over all {2 ** 2 ** int(row['n']):,} functions on {int(row['n'])} variables is "
            f"{check['measured']:.4g}, at f = {row['table']}{step}, whose smallest tree has {int(row['s'])} leaves: "
            f"{row['verdict']}")
    values["ch1_ex_seconds"] = float(suprema["cpu_seconds"].iloc[0])
    return values
