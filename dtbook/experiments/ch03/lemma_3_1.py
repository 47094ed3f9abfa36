"""[BLT21] Lemma 3.1 (Sec. 3, Figure 2): FIND's optimality against brute force and pystreed, and the
FIND-versus-pystreed benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dtcore.audit.oracles import brute_force_min_errors
from dtcore.find import find
from dtcore.stochastic import sample
from dtcore.tree import DecisionTree
from ...report import VerificationTable
from .common import positive_int, random_bits, time_best, worst_root_errors


def find_crosscheck(target: DecisionTree, *, m: int, rng: np.random.Generator, n_small_cases: int = 20,
                    n_target_samples: int = 3) -> pd.DataFrame:
    """[BLT21] Lemma 3.1: FIND's training errors against exhaustive search and against pystreed.

    ``n_small_cases`` random data sets on 2 to 4 variables are solved at every depth up to 3 by
    FIND and by brute force over all trees (:func:`dtcore.audit.oracles.brute_force_min_errors`);
    ``n_target_samples`` samples of ``target`` (at most 1500 rows, plus 4 uniform columns) at depths
    1 to 3 by FIND and by ``pystreed.STreeDClassifier``. One row per case with both error counts, and
    ``worst_root``: the errors of the best tree under the worst root (:func:`worst_root_errors`; NaN at d = 0).
    """
    from pystreed import STreeDClassifier

    rows = []
    for _ in range(n_small_cases):
        n_small = int(rng.integers(2, 5))
        X = random_bits(rng, (int(rng.integers(5, 60)), n_small))
        y = (rng.random(X.shape[0]) < rng.uniform(0.2, 0.8)).astype(np.uint8)
        for d in range(0, min(3, n_small) + 1):
            rows.append({"check": "brute force", "n": n_small, "m": X.shape[0], "d": d,
                         "find": find(X, y, depth=d).errors, "reference": brute_force_min_errors(X, y, d),
                         "worst_root": worst_root_errors(X, y, d) if d >= 1 else np.nan})
    for _ in range(n_target_samples):
        X, y = sample(target, min(m, 1500), rng=rng)
        X = np.concatenate([X, random_bits(rng, (X.shape[0], 4))], axis=1)  # + uniform noise columns
        for d in (1, 2, 3):
            clf = STreeDClassifier(max_depth=d)
            clf.fit(X, y)
            rows.append({"check": "pystreed", "n": X.shape[1], "m": X.shape[0], "d": d,
                         "find": find(X, y, depth=d).errors, "reference": int((clf.predict(X) != y).sum()),
                         "worst_root": worst_root_errors(X, y, d)})
    cross = pd.DataFrame(rows)
    cross["difference"] = cross["find"] - cross["reference"]
    return cross


def find_crosscheck_summary(cross: pd.DataFrame) -> pd.DataFrame:
    """Cases and largest |FIND - reference| per reference and depth ([BLT21] Lemma 3.1)."""
    return cross.groupby(["check", "d"]).agg(cases=("difference", "size"),
                                             max_abs_difference=("difference", lambda v: v.abs().max()))


def find_vs_pystreed(*, benchmark_m: int, rng: np.random.Generator,
                     cases: Sequence[tuple[int, int]] = ((32, 3), (16, 4))) -> pd.DataFrame:
    """FIND ([BLT21] Figure 2, Lemma 3.1) beside pystreed's STreeDClassifier on uniform data.

    For each (n, d) in ``cases``: best-of-three seconds of each, their ratio, and both error counts
    (Lemma 3.1: they must agree), and the errors of the best tree under the worst root
    (:func:`worst_root_errors`, the rows' power). One row per case.
    """
    from pystreed import STreeDClassifier

    benchmark_m = positive_int("benchmark_m", benchmark_m)
    rows = []
    for n, d in cases:
        X = random_bits(rng, (benchmark_m, n))
        y = random_bits(rng, benchmark_m)
        find(X[:200], y[:200], depth=2)  # warm-up
        t_find = time_best(lambda: find(X, y, depth=d))
        clf = STreeDClassifier(max_depth=d)
        t_streed = time_best(lambda: clf.fit(X, y))
        rows.append({"m": benchmark_m, "n": n, "d": d, "FIND seconds": t_find, "pystreed seconds": t_streed,
                     "ratio FIND / pystreed": t_find / t_streed, "FIND errors": find(X, y, depth=d).errors,
                     "pystreed errors": int((clf.predict(X) != y).sum()), "worst-root errors": worst_root_errors(X, y, d)})
    return pd.DataFrame(rows)


def find_vs_pystreed_glue(bench: pd.DataFrame) -> dict[str, Any]:
    """The benchmark for the text: m, both ratios, and both times at depth 3."""
    return {"ch3_bench_m": int(bench["m"].iloc[0]), "ch3_ratio_d3": float(bench["ratio FIND / pystreed"].iloc[0]),
            "ch3_ratio_d4": float(bench["ratio FIND / pystreed"].iloc[1]),
            "ch3_find_d3": float(bench["FIND seconds"].iloc[0]), "ch3_streed_d3": float(bench["pystreed seconds"].iloc[0])}


#: The solver each of FIND's references names in the table.
REFERENCE_SOLVER = {"brute force": "dtcore.audit.oracles.brute_force_min_errors", "pystreed": "pystreed.STreeDClassifier"}


def check_find_crosscheck(table: VerificationTable, cross: pd.DataFrame) -> None:
    """[BLT21] Lemma 3.1 on every case of :func:`find_crosscheck`: FIND's training errors exceed the least number of
    errors of any depth-d tree (each reference's) by at most 0. A theorem row, tight by construction (the lemma is
    an equality claim): its reach is [0, m], the excess any depth-d tree can have over the minimum, so a suboptimal
    FIND fails it; a FIND below the reference (a reference that missed a tree) falls outside the reach and fails.
    Its power: the same excess for the best tree under the worst root (:func:`worst_root_errors`), worst case."""
    for check, grp in cross.groupby("check"):
        worse = float((grp["worst_root"] - grp["reference"]).abs().max())
        table.theorem("Lemma 3.1", f"max over {len(grp)} cases of |FIND's errors − the least errors ({check})|",
                      float(grp["difference"].abs().max()), 0.0, reach=(0.0, float(grp["m"].max())), box="lem-blt21-3-1",
                      measured_by="dtcore.find.find", bound_by=REFERENCE_SOLVER[check],
                      worst_case=f"every case, n ≤ {int(grp['n'].max())}, d ≤ {int(grp['d'].max())}",
                      tight_by_construction="FIND minimises the training error: its excess over the minimum is 0",
                      fails_under=("FIND with its root choice reversed (the best tree under the worst root), every "
                                   "case with d ≥ 1", worse))


def check_benchmark(table: VerificationTable, bench: pd.DataFrame) -> None:
    """[BLT21] Lemma 3.1 on the benchmark's data (:func:`find_vs_pystreed`): FIND's errors are pystreed's minimum."""
    table.theorem("Lemma 3.1", "benchmark: |FIND's errors − the least errors (pystreed)|",
                  float((bench["FIND errors"] - bench["pystreed errors"]).abs().max()), 0.0,
                  reach=(0.0, float(bench["m"].max())), box="lem-blt21-3-1",
                  measured_by="dtcore.find.find", bound_by="pystreed.STreeDClassifier",
                  worst_case=f"m = {int(bench['m'].max())}, n ≤ {int(bench['n'].max())}, d ≤ {int(bench['d'].max())}",
                  tight_by_construction="FIND minimises the training error: its excess over the minimum is 0",
                  fails_under=("FIND with its root choice reversed (the best tree under the worst root)",
                               float((bench["worst-root errors"] - bench["pystreed errors"]).abs().max())))
