"""[BLT21] Facts 1.1 and 1.2 and Lemma 2.1 over every mean function of the stochastic trees, and [BDM20]
Lemma 11 over every junta on k <= 4 variables: the atlas rows written with their own reach and provenance.
"""

from __future__ import annotations

import pandas as pd

from dtcore import bounds, stochastic
from dtcore.audit import worst_case as wc
from dtcore.audit.worst_case import stochastic_suprema
from ...report import VerificationTable
from .common import witness

RATIO_WHY = "a ratio of two probabilities; it has no finite reach where the bound side is near 0"


def check_stochastic(table: VerificationTable, atlas_frame: pd.DataFrame) -> None:
    """[BLT21] Facts 1.1, 1.2 and Lemma 2.1: the sup of measured / bound over every mean function."""
    own = atlas_frame.set_index(["result", "form"])
    tol = wc.TIGHT_TOLERANCE
    # Fact 1.1 holds pointwise by algebra (the Bayes rule errs min(μ, 1 − μ) at each point, no h errs less):
    # shown, not counted, as chapter 3 treats it
    table.observation("[BLT21] Fact 1.1", "sup of opt_T / error_T(h) over every μ_T and deterministic h",
                      float(own.loc[("Fact 1.1", "every deterministic h"), "sup_ratio"]), 1.0,
                      why="holds pointwise by algebra: at each point the Bayes rule errs min(μ, 1 − μ) and no h errs less",
                      worst_case=witness(atlas_frame, "Fact 1.1", "every deterministic h"))
    fact12 = own.loc[("Fact 1.2", "every h on the grid")]
    lemma21 = own.loc[("Lemma 2.1", "the proof's expectation")]
    table.theorem("[BLT21] Fact 1.2", "sup of Pr[round(h) ≠ T] / (opt_T + 2E|μ_T − h|) over every μ_T and grid h",
                  float(own.loc[("Fact 1.2", "every h on the grid"), "sup_ratio"]), 1.0, reach=(0.0, float("inf")),
                  reach_why=RATIO_WHY, measured_by=stochastic_suprema, bound_by=stochastic.bayes_optimal,
                  worst_case=witness(atlas_frame, "Fact 1.2", "every h on the grid"), tolerance=tol,
                  fails_under=(fact12["worse_output"], float(fact12["worse_ratio"])))
    table.theorem("[BLT21] Lemma 2.1", "sup of E_r E_x|mean of c copies − μ_T| · 2√c over every μ_T and c ≤ 100",
                  float(own.loc[("Lemma 2.1", "the proof's expectation"), "sup_ratio"]), 1.0, reach=(0.0, 10.0),
                  measured_by=stochastic.copies_mean_deviation, bound_by=bounds.blt21_lemma21_expected_l1,
                  worst_case=witness(atlas_frame, "Lemma 2.1", "the proof's expectation"), tolerance=tol,
                  fails_under=(lemma21["worse_output"], float(lemma21["worse_ratio"])))


def check_lemma11(table: VerificationTable, atlas_frame: pd.DataFrame) -> None:
    """[BDM20] Lemma 11: the failure probability of the covariance threshold over every junta, per form
    (observations: the room is about 10⁵, so no estimate could fail the row)."""
    own = atlas_frame.set_index(["result", "form"])
    for form in [f for (res, f) in own.index if res == "Lemma 11"]:
        table.observation("[BDM20] Lemma 11",
                          f"sup of (Pr[|I(D_w, i)| ≤ threshold] + 3 se) / δ, {form}, every junta on k ≤ 4",
                          float(own.loc[("Lemma 11", form), "sup_ratio"]), 1.0,
                          why="about 10⁵ of room at every junta on k ≤ 4: the row cannot fail for any output the "
                              "Monte Carlo estimate can give here (chapter 5 shows it as an observation)",
                          worst_case=witness(atlas_frame, "Lemma 11", form))
