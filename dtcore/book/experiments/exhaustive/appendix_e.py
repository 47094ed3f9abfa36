"""[MGBH26] Appendix E: Lemma E.1 (a complete tree's depth against the least average depth) and Lemma E.2
(a path tree's average depth), over every function on n <= 4 variables.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from .... import bounds, exhaustive as ex
from ....audit import worst_case as wc
from ...report import VerificationTable
from .common import witness


def check_e1(table: VerificationTable, atlas_frame: pd.DataFrame) -> None:
    """[MGBH26] Lemma E.1, least-Delta reading: the exact ratio log2 s / Delta at the atlas's witness."""
    own = atlas_frame.set_index(["result", "form"])
    e1 = own.loc[("Lemma E.1", "least Delta")]
    e1_ratio = float(Fraction(e1["exact_ratio"])) if e1["verdict"] == "violated" else float(e1["sup_ratio"])
    table.counterexample("[MGBH26] Lemma E.1 (least Δ)",
                         "log2 s / Δ_opt over every f with a complete minimum-size tree (exact)",
                         e1_ratio, 1.0, relation="<=", reach=(1.0, 4.0),
                         worst_case=witness(atlas_frame, "Lemma E.1", "least Delta"))


def relevant_variables(tables: np.ndarray) -> np.ndarray:
    """The number of variables each truth table on n variables depends on."""
    n = int(np.log2(tables.shape[1]))
    idx = np.arange(tables.shape[1])
    return np.stack([(tables != tables[:, idx ^ (1 << i)]).any(axis=1) for i in range(n)], axis=1).sum(axis=1)


def check_e2(table: VerificationTable, atlas_frame: pd.DataFrame, optimum: Any) -> None:
    """[MGBH26] Lemma E.2: the printed formula for a path tree's Delta (identity), and Delta <= 2 (theorem)."""
    tables4 = ex.all_tables(4)
    path = ex.minimum_path_average_depth(tables4)
    lists = np.isfinite(path) & (optimum.root_size >= 2)
    relevant = relevant_variables(tables4)
    formula = np.array([bounds.mgbh26_path_average_depth(int(r), 0.5) for r in relevant[lists]])
    table.identity("[MGBH26] Lemma E.2",
                   "max |least path-tree Δ − Σ_{k<n} k 2^-k + n 2^-(n-1)| over every decision list",
                   float(np.abs(path[lists] - formula).max()), 1e-12,
                   computed_by=(ex.minimum_path_average_depth, bounds.mgbh26_path_average_depth))
    table.theorem("[MGBH26] Lemma E.2", "largest uniform Δ of a path tree over every decision list on n ≤ 4",
                  float(path[lists].max()), bounds.mgbh26_path_average_depth(60, 0.5), reach=(1.0, 4.0),
                  measured_by=ex.minimum_path_average_depth, bound_by=bounds.mgbh26_path_average_depth,
                  worst_case=witness(atlas_frame, "Lemma E.2", "path tree, uniform"), tolerance=1e-12)


def e1_glue(atlas_frame: pd.DataFrame, tables: np.ndarray, optimum: Any) -> dict[str, object]:
    """The page's numbers about Lemma E.1: the atlas's witness and its exact ratio, and the same search at
    the uniform measure alone, its witness rechecked in rational arithmetic."""
    e1 = atlas_frame.set_index(["result", "form"]).loc[("Lemma E.1", "least Delta")]
    complete = (optimum.root_size >= 2) & (optimum.root_size == 2 ** optimum.root_depth.astype(int))
    with np.errstate(divide="ignore", invalid="ignore"):  # constants: 0 / 0, masked out
        uniform_ratio = np.where(complete, optimum.root_depth / ex.minimum_average_depth(tables), 0.0)
    f = int(np.argmax(uniform_ratio))
    exact = Fraction(int(optimum.root_depth[f])) / wc.exact_minimum_average_depth(tables[f], [Fraction(1, 2)] * 4)
    return {"ch7_e1_witness": f"{e1['table']} at μ = {e1['measure']}", "ch7_e1_exact": str(e1["exact_ratio"]),
            "ch7_e1_uniform_f": format(f, "04x"), "ch7_e1_uniform_s": int(optimum.root_size[f]),
            "ch7_e1_uniform_d": int(optimum.root_depth[f]), "ch7_e1_uniform": str(exact)}
