"""[BDM20] Lemma 4 (Sec. 2.1, book Lemma 5.1): a tree that splits only on the junta's variables and
covers every cell of J has zero error, on the finished runs of Theorems 1 and 2."""

from __future__ import annotations

import pandas as pd

from ...report import VerificationTable


def check_lemma4(table: VerificationTable, runs: pd.DataFrame, where: str) -> None:
    """[BDM20] Lemma 4 on finished runs: both hypotheses hold => the returned tree has zero exact error.

    An observation (issue 35): on ID3's own trees zero error follows from the two hypotheses for every
    output — a tree that splits only on J ends in pure leaves that are sub-cubes of J, and with every
    cell of J sampled each leaf's label is f's on its whole sub-cube — so the row cannot fail on correct
    code and tests no claim that could be false.
    """
    hyp = runs[runs.only_relevant & runs.cells_covered]
    table.observation("Lemma 5.1 (paper's Lemma 4)", f"max exact error of runs that split only on J and cover every cell "
                      f"of J ({len(hyp)} of {len(runs)} runs, {where})", float(hyp.error.max()) if len(hyp) else 0.0,
                      0.0, box="lem-id3-4", worst_case=f"every run of the {where} that meets both hypotheses",
                      why="holds for every output by algebra: the tree splits only on J, its leaves are pure sub-cubes "
                          "of J and every cell of J holds an example, so each leaf's label is f's on its sub-cube")


def lemma4_glue(runs: pd.DataFrame) -> dict[str, object]:
    """How many runs meet [BDM20] Lemma 4's hypotheses, of how many, and how many are exact without."""
    hyp = runs.only_relevant & runs.cells_covered
    return {"ch5_lemma4_runs": int(hyp.sum()), "ch5_lemma4_total": len(runs),
            "ch5_lemma4_converse": float((runs.zero_loss & ~hyp).sum())}
