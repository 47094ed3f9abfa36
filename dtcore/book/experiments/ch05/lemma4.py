"""[BDM20] Lemma 4 (Sec. 2.1, book Lemma 5.1): a tree that splits only on the junta's variables and
covers every cell of J has zero error, on the finished runs of Theorems 1 and 2."""

from __future__ import annotations

import pandas as pd

from ....id3 import id3
from ....smoothed import lemma4_hypotheses
from ....tree import tree_disagreement
from ...report import VerificationTable


def check_lemma4(table: VerificationTable, runs: pd.DataFrame, where: str) -> None:
    """[BDM20] Lemma 4 on finished runs: both hypotheses hold => the returned tree has zero exact error."""
    hyp = runs[runs.only_relevant & runs.cells_covered]
    table.theorem("Lemma 5.1 (paper's Lemma 4)", f"max exact error of runs that split only on J and cover every cell of J ({len(hyp)} of "
                  f"{len(runs)} runs, {where})", float(hyp.error.max()) if len(hyp) else 0.0, 0.0,
                  reach=(0.0, 1.0), tolerance=1e-12, box="lem-id3-4", measured_by=(id3, tree_disagreement),
                  bound_by=lemma4_hypotheses, worst_case=f"every run of the {where} that meets both hypotheses",
                  note="a deterministic lemma on ID3's own trees: zero error is its conclusion, so the row sits at its "
                       "bound whenever it holds")


def lemma4_glue(runs: pd.DataFrame) -> dict[str, object]:
    """How many runs meet [BDM20] Lemma 4's hypotheses, of how many, and how many are exact without."""
    hyp = runs.only_relevant & runs.cells_covered
    return {"ch5_lemma4_runs": int(hyp.sum()), "ch5_lemma4_total": len(runs),
            "ch5_lemma4_converse": float((runs.zero_loss & ~hyp).sum())}
