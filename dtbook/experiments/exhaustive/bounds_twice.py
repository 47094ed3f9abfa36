"""Every bound a counted row of page 7 uses, computed twice: by :mod:`dtcore.bounds` (and the impurity
constants of :mod:`dtcore.impurity`) and by the papers' printed formulas written here afresh.

The arguments are a fixed grid of the values the atlas meets (variances, sizes, errors, leaves,
average depths); the identity row fails when any of the two evaluations differs by more than float
rounding, so a constant changed in one place (a factor 2 dropped or doubled) fails the page even where
the theorem rows, measured against a looser bound, would still hold.
"""

from __future__ import annotations

import math

import pandas as pd

from dtcore import bounds, impurity
from ...report import VerificationTable

#: The grid of arguments: (Var, s, eps, leaves, Delta, D, cost).
GRID = ((1.0, 2, 0.25, 1, 1.0, 1, 1.0), (0.75, 4, 0.125, 2, 1.5, 2, 0.6), (0.36, 8, 0.05, 5, 2.75, 3, 0.3),
        (0.19, 16, 0.01, 12, 3.5, 4, 0.05))


def printed(name: str, v: float, s: int, eps: float, t: int, delta: float, depth: int, cost: float) -> float:
    """The printed formula of one bound, as the papers state it (the grid's arguments by name)."""
    formulas = {
        # O'Donnell, Saks, Schramm, Servedio 2005: max_i Inf_i(f) >= Var(f) / log2 s
        "OSSS inequality": lambda: v / math.log2(s),
        # [BLT20] Lemma 5.3: Inf(f) <= Var(f) log2(4 s / Var(f))
        "[BLT20] Lemma 5.3": lambda: v * math.log2(4 * s / v),
        # [BLT20] Lemma 5.2: score >= eps / (L log2 s)
        "[BLT20] Lemma 5.2": lambda: eps / (t * math.log2(s)),
        # [BLT20] Lemma 5.4: score >= cost / (L log2(4 s / eps) log2 s)
        "[BLT20] Lemma 5.4": lambda: cost / (t * math.log2(4 * s / eps) * math.log2(s)),
        # [MGBH26] Lemma C.1 as printed: Var / Delta; with OSSS's factor 2: Var / (2 Delta)
        "[MGBH26] Lemma C.1 (as printed)": lambda: v / delta,
        "[MGBH26] Lemma C.1 (corrected)": lambda: v / (2 * delta),
        # [MGBH26] Lemma 4.4 as printed: 2 eps / (j Delta_opt); corrected: eps / (j Delta_opt)
        "[MGBH26] Lemma 4.4 (as printed)": lambda: 2 * eps / (t * delta),
        "[MGBH26] Lemma 4.4 (corrected)": lambda: eps / (t * delta),
        # [MGBH26] Lemma 4.5 as printed: cost / (j D Delta); corrected: cost / (2 j D Delta)
        "[MGBH26] Lemma 4.5 (as printed)": lambda: cost / (t * depth * delta),
        "[MGBH26] Lemma 4.5 (corrected)": lambda: cost / (2 * t * depth * delta),
        # [MGBH26] Appendix E.2: a path tree on k variables, uniform: sum_{d<k} d 2^-d + k 2^-(k-1)
        "[MGBH26] Lemma E.2": lambda: sum(d * 2.0 ** -d for d in range(1, depth)) + depth * 2.0 ** -(depth - 1),
        # [BLT21] Lemma 2.1 (proof): E|mean of c copies - mu_T| <= 1 / (2 sqrt c), c = s here
        "[BLT21] Lemma 2.1": lambda: 1 / (2 * math.sqrt(s)),
        # [BDM20] Lemma 6: beta with -G'' >= beta: Gini 8, entropy 4 / ln 2, Kearns–Mansour 4
        "[BDM20] beta, gini": lambda: 8.0,
        "[BDM20] beta, entropy": lambda: 4 / math.log(2),
        "[BDM20] beta, kearns_mansour": lambda: 4.0,
        # [BDM20] Lemma 5: Gini is 4-Lipschitz on [0, 1] (4 (1 - 2 eta) on [eta, 1 - eta])
        "[BDM20] gamma, gini": lambda: 4.0,
    }
    return formulas[name]()


def library(name: str, v: float, s: int, eps: float, t: int, delta: float, depth: int, cost: float) -> float:
    """The same bound from :mod:`dtcore.bounds` / :mod:`dtcore.impurity`."""
    calls = {
        "OSSS inequality": lambda: bounds.osss05_max_influence_lower(v, s),
        "[BLT20] Lemma 5.3": lambda: bounds.blt20_lemma53_total_influence_upper(v, s),
        "[BLT20] Lemma 5.2": lambda: bounds.blt20_lemma52_score_lower(eps, t, s),
        "[BLT20] Lemma 5.4": lambda: bounds.blt20_lemma54_score_lower(cost, eps, t, s),
        "[MGBH26] Lemma C.1 (as printed)": lambda: bounds.mgbh26_lemma_c1_max_influence_lower(v, delta, paper_form=True),
        "[MGBH26] Lemma C.1 (corrected)": lambda: bounds.mgbh26_lemma_c1_max_influence_lower(v, delta),
        "[MGBH26] Lemma 4.4 (as printed)": lambda: bounds.mgbh26_lemma44_score_lower(eps, t, delta, paper_form=True),
        "[MGBH26] Lemma 4.4 (corrected)": lambda: bounds.mgbh26_lemma44_score_lower(eps, t, delta),
        "[MGBH26] Lemma 4.5 (as printed)": lambda: bounds.mgbh26_lemma45_score_lower(cost, t, depth, delta,
                                                                                    paper_form=True),
        "[MGBH26] Lemma 4.5 (corrected)": lambda: bounds.mgbh26_lemma45_score_lower(cost, t, depth, delta),
        "[MGBH26] Lemma E.2": lambda: bounds.mgbh26_path_average_depth(depth, 0.5),
        "[BLT21] Lemma 2.1": lambda: bounds.blt21_lemma21_expected_l1(s),
        "[BDM20] beta, gini": lambda: impurity.strong_concavity("gini"),
        "[BDM20] beta, entropy": lambda: impurity.strong_concavity("entropy"),
        "[BDM20] beta, kearns_mansour": lambda: impurity.strong_concavity("kearns_mansour"),
        "[BDM20] gamma, gini": lambda: impurity.lipschitz_constant("gini"),
    }
    return float(calls[name]())


def bounds_twice() -> pd.DataFrame:
    """One row per bound and grid point: the library's value, the printed formula's, their relative gap."""
    names = ("OSSS inequality", "[BLT20] Lemma 5.3", "[BLT20] Lemma 5.2", "[BLT20] Lemma 5.4",
             "[MGBH26] Lemma C.1 (as printed)", "[MGBH26] Lemma C.1 (corrected)", "[MGBH26] Lemma 4.4 (as printed)",
             "[MGBH26] Lemma 4.4 (corrected)", "[MGBH26] Lemma 4.5 (as printed)", "[MGBH26] Lemma 4.5 (corrected)",
             "[MGBH26] Lemma E.2", "[BLT21] Lemma 2.1", "[BDM20] beta, gini", "[BDM20] beta, entropy",
             "[BDM20] beta, kearns_mansour", "[BDM20] gamma, gini")
    rows = []
    for name in names:
        for args in GRID:  # a few grid points per bound
            ours, paper = library(name, *args), printed(name, *args)
            rows.append({"bound": name, "arguments": str(args), "dtcore": ours, "printed formula": paper,
                         "relative gap": abs(ours - paper) / abs(paper)})
    return pd.DataFrame(rows)


#: The ledger entry whose bound each formula is ([KEY] Kind N, dtbook.ledger).
BOUND_ENTRY = {
    "OSSS inequality": "[OSSS05] Theorem 1.1", "[BLT20] Lemma 5.3": "[BLT20] Lemma 5.3",
    "[BLT20] Lemma 5.2": "[BLT20] Lemma 5.2", "[BLT20] Lemma 5.4": "[BLT20] Lemma 5.4",
    "[MGBH26] Lemma C.1 (as printed)": "[MGBH26] Lemma C.1", "[MGBH26] Lemma C.1 (corrected)": "[MGBH26] Lemma C.1, corrected",
    "[MGBH26] Lemma 4.4 (as printed)": "[MGBH26] Lemma 4.4", "[MGBH26] Lemma 4.4 (corrected)": "[MGBH26] Lemma 4.4, Δ-form",
    "[MGBH26] Lemma 4.5 (as printed)": "[MGBH26] Lemma 4.5", "[MGBH26] Lemma 4.5 (corrected)": "[MGBH26] Lemma 4.5, Δ-form",
    "[MGBH26] Lemma E.2": "[MGBH26] Appendix E.2", "[BLT21] Lemma 2.1": "[BLT21] Lemma 2.1",
    "[BDM20] beta, gini": "[BDM20] Lemma 6", "[BDM20] beta, entropy": "[BDM20] Lemma 6",
    "[BDM20] beta, kearns_mansour": "[BDM20] Lemma 6", "[BDM20] gamma, gini": "[BDM20] Lemma 5",
}


def check_bounds(table: VerificationTable, twice: pd.DataFrame) -> None:
    """One identity row per statement: each of its bounds equals the printed formula, up to float rounding."""
    entry = twice["bound"].map(BOUND_ENTRY)
    for name, part in twice.groupby(entry, sort=False):
        table.identity(f"{name}, its bound computed twice",
                       f"max relative |library bound − the printed formula| over {part['bound'].nunique()} "
                       f"bound{'s' if part['bound'].nunique() > 1 else ''} × {len(GRID)} arguments",
                       float(part["relative gap"].max()), 1e-12,
                       computed_by=("dtcore.bounds, dtcore.impurity",
                                    "dtbook.experiments.exhaustive.bounds_twice.printed"))
