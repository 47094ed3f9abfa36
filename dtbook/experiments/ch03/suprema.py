"""[BLT21] Facts 1.1, 1.2 and Lemma 2.1 at their suprema over every mean function of a small stochastic tree
(the exhaustive search of :func:`dtcore.audit.worst_case.stochastic_suprema`).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dtcore import bounds
from dtcore.audit import worst_case
from dtcore.stochastic import bayes_optimal, copies_mean_deviation, error, opt
from ...report import VerificationTable


#: The rows of :func:`dtcore.audit.worst_case.stochastic_suprema`, keyed by the statement they check.
EXHAUSTIVE_FORMS = {"Fact 1.1": "every deterministic h", "Fact 1.2": "every h on the grid",
                    "Lemma 2.1": "the proof's expectation"}


#: Each statement's quantity (measured / bound, at most 1 where the statement holds) as the table names it.
EXHAUSTIVE_QUANTITY = {
    "Fact 1.1": "sup of opt_T / error_T(h) over every μ_T and every deterministic h",
    "Fact 1.2": "sup of Pr[round(h) ≠ T] / (opt_T + 2E|μ_T − h|) over every μ_T and every h on the grid",
    "Lemma 2.1": "sup of E_r E_x|mean of c copies − μ_T| · 2√c over every μ_T and c"}


#: Coin probabilities and copy counts of the search (those of the page "Every function on four variables").
EXHAUSTIVE_COINS = (0.1, 0.25, 0.5, 0.75, 0.9)


EXHAUSTIVE_COPIES = (1, 2, 3, 4, 9, 16, 25, 100)


#: The box of the page that states each one.
EXHAUSTIVE_BOX = {"Fact 1.1": "", "Fact 1.2": "lem-blt21-fact12", "Lemma 2.1": "lem-blt21-2-1"}


def exhaustive_suprema(*, depth: int = 3, coins: Sequence[float] = EXHAUSTIVE_COINS,
                       copies: Sequence[int] = EXHAUSTIVE_COPIES) -> tuple[pd.DataFrame, float]:
    """[BLT21] Facts 1.1, 1.2 and Lemma 2.1 at their suprema over every mean function, and the CPU seconds.

    The class: every mean function mu_T of a stochastic tree of depth <= ``depth`` on two variables
    whose coins take probabilities in ``coins`` (:func:`dtcore.audit.worst_case.stochastic_suprema`;
    the page "Every function on four variables" shows the same search). One row per statement,
    indexed by the result: ``sup_ratio`` (measured / bound; 1 is the bound), ``verdict``, ``table``
    (the witness) and ``cases``.
    """
    start = time.process_time()
    tracker = worst_case.stochastic_suprema(2, depth, tuple(coins), tuple(int(c) for c in copies))
    seconds = time.process_time() - start
    frame = pd.DataFrame([s.row() for s in tracker.best.values()]).set_index("result")
    return frame, seconds


def witness_mean(witness: str) -> np.ndarray:
    """The mean table μ_T of a witness text of :func:`dtcore.audit.worst_case.stochastic_suprema`
    (``"mu_T = (0.1, 0.9, 0.25, 0.75), h = ..."``; its values to the 4 digits the text keeps)."""
    found = re.search(r"mu_T = \(([^)]*)\)", str(witness))
    if found is None:
        raise ValueError(f"witness must name a mean table 'mu_T = (...)', got {witness!r}")
    return np.array([float(v) for v in found.group(1).split(",")])


#: The number of copies of Lemma 2.1's worse output (copies that share one coin string).
SHARED_COPIES = 4


def worse_outputs(suprema: pd.DataFrame) -> dict[str, tuple[str, float]]:
    """Each counted supremum's power: the same ratio at a worse output on the witness's μ_T, computed here.

    Fact 1.2: the label-inverted Bayes classifier 1 − round(μ_T), that is h = μ_T rounded the wrong way, so the
    bound is opt_T + 0 and the error 1 − opt_T (ratio (1 − opt)/opt > 1 whenever opt < 1/2). Lemma 2.1: c =
    :data:`SHARED_COPIES` copies that share one coin string, whose mean is one copy: E|T(x, r) − μ_T(x)| · 2√c
    (√c times the ratio at c = 1). Both are measured by the functions the rows name (:func:`dtcore.stochastic.error`
    and :func:`dtcore.stochastic.copies_mean_deviation`), over the bound of the row's own formula.
    """
    out = {}
    mu = witness_mean(suprema.loc["Fact 1.2", "table"])
    inverted_error, bound = error(mu, 1.0 - bayes_optimal(mu)), opt(mu)   # at h = μ_T the bound is opt_T + 0
    out["Fact 1.2"] = ("the label-inverted Bayes classifier 1 − round(μ_T) (h = μ_T rounded the wrong way) at the "
                       "witness's μ_T", inverted_error / bound if bound > 0 else math.inf)
    mu = witness_mean(suprema.loc["Lemma 2.1", "table"])
    shared = float(copies_mean_deviation(mu, 1).mean())   # c copies with one coin string: their mean is one copy
    out["Lemma 2.1"] = (f"{SHARED_COPIES} copies sharing one coin string (their mean is one copy) at the witness's μ_T",
                        shared / bounds.blt21_lemma21_expected_l1(SHARED_COPIES))
    return out


def check_exhaustive(table: VerificationTable, suprema: pd.DataFrame, result: str, *,
                     copies: Sequence[int] = EXHAUSTIVE_COPIES) -> bool:
    """Add the counted row of ``result`` (a key of :data:`EXHAUSTIVE_FORMS`) at its exhaustive supremum.

    ``copies`` are the copy counts the search used (they fix the reach of Lemma 2.1's ratio).
    """
    if result not in EXHAUSTIVE_FORMS:
        raise ValueError(f"result must be one of {list(EXHAUSTIVE_FORMS)}, got {result!r}")
    row = suprema.loc[result]
    witness = f"{row['table']}; {row['note']}; {int(row['cases']):,} cases"   # the witness, then the search
    common = dict(box=EXHAUSTIVE_BOX[result], worst_case=witness, tolerance=worst_case.TIGHT_TOLERANCE)
    if result == "Lemma 2.1":
        # E_r|Binomial(c, μ)/c − μ| ≤ 2μ(1 − μ) ≤ 1/2 (Jensen over the copies), so the ratio is at most √c
        top = math.sqrt(max(int(c) for c in copies))
        return table.theorem(result, EXHAUSTIVE_QUANTITY[result], float(row["sup_ratio"]), 1.0, reach=(0.0, top),
                             measured_by=copies_mean_deviation, bound_by=bounds.blt21_lemma21_expected_l1,
                             fails_under=worse_outputs(suprema)["Lemma 2.1"], **common)
    if result == "Fact 1.1":
        # pointwise min(μ, 1 − μ) ≤ Pr[h(x) ≠ T(x)] for every deterministic h: the ratio is ≤ 1 on every input
        table.observation(result, EXHAUSTIVE_QUANTITY[result], float(row["sup_ratio"]), 1.0,
                          why="holds by algebra pointwise: min(μ_T(x), 1 − μ_T(x)) ≤ Pr[h(x) ≠ T(x)] at every x for "
                              "every deterministic h, so no output of the search can exceed 1; shown for its witness",
                          box=common["box"], worst_case=common["worst_case"])
        return True
    return table.theorem(result, EXHAUSTIVE_QUANTITY[result], float(row["sup_ratio"]), 1.0, reach=(0.0, math.inf),
                         reach_why="a ratio of two probabilities: the bound side can be as close to 0 as one likes",
                         measured_by=worst_case.stochastic_suprema, bound_by=bayes_optimal,
                         fails_under=worse_outputs(suprema)["Fact 1.2"], **common)


def exhaustive_glue(suprema: pd.DataFrame) -> dict[str, Any]:
    """Each statement's supremum and witness for the text (keys ``ch3_exh_<fact11|fact12|lemma21>_sup|_witness``)."""
    out: dict[str, Any] = {}
    for result in EXHAUSTIVE_FORMS:
        key = "ch3_exh_" + {"Fact 1.1": "fact11", "Fact 1.2": "fact12", "Lemma 2.1": "lemma21"}[result]
        out[key + "_sup"] = float(suprema.loc[result, "sup_ratio"])
        out[key + "_witness"] = str(suprema.loc[result, "table"]).replace("mu_T", "μ_T")
        out[key + "_cases"] = f"{int(suprema.loc[result, 'cases']):,}"
    return out


#: The named reference member of each supremum search, on the two-variable cube (bit i of the index is x_i),
#: each inside the searched class (coins from :data:`EXHAUSTIVE_COINS` below splits on x_0 and x_1).
REFERENCE_MEMBERS = {
    "Fact 1.1": "μ_T = (0.1, 0.9, 0.25, 0.75), h = round(μ_T)",
    "Fact 1.2": "μ_T = (0.1, 0.9, 0.25, 0.75), h = μ_T",
    "Lemma 2.1": "μ_T = 1/2 everywhere (one fair coin), c = 1"}


def reference_values() -> dict[str, float]:
    """Each statement's ratio at its :data:`REFERENCE_MEMBERS` entry, computed afresh with NumPy/SciPy (no code of
    the search): opt / error(round μ), Pr[round(h) ≠ T] / (opt + 2E|μ − h|) at h = μ, and
    E|Binomial(c, μ)/c − μ| · 2√c at μ = 1/2, c = 1. All three are 1: the suprema are attained there."""
    from scipy.stats import binom

    mu = np.array([0.1, 0.9, 0.25, 0.75])
    rounded = (mu >= 0.5).astype(float)
    opt_mu = float(np.mean(np.minimum(mu, 1.0 - mu)))
    err_round = float(np.mean(rounded * (1.0 - mu) + (1.0 - rounded) * mu))
    c, p = 1, 0.5
    k = np.arange(c + 1)
    lemma = float(np.sum(binom.pmf(k, c, p) * np.abs(k / c - p))) * 2.0 * math.sqrt(c)
    return {"Fact 1.1": opt_mu / err_round, "Fact 1.2": err_round / (opt_mu + 2.0 * float(np.mean(np.abs(mu - mu)))),
            "Lemma 2.1": lemma}


def check_references(table: VerificationTable, suprema: pd.DataFrame) -> None:
    """Each exhaustive search against its named reference member (:func:`reference_values`): counted, the amount by
    which the reference's ratio exceeds the supremum found (0: the search reached at least the reference)."""
    refs = reference_values()
    for result in ("Fact 1.2", "Lemma 2.1"):   # the counted ones (Fact 1.1 holds by algebra: an observation)
        table.identity(result, f"ratio at the reference member ({REFERENCE_MEMBERS[result]}) above the supremum found "
                               f"(0: the search reached it)",
                       max(0.0, refs[result] - float(suprema.loc[result, "sup_ratio"])), worst_case.TIGHT_TOLERANCE,
                       box=EXHAUSTIVE_BOX[result],
                       computed_by=("dtcore.audit.worst_case.stochastic_suprema",
                                    "numpy, scipy.stats.binom: the ratio at the reference member"))
