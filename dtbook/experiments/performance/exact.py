"""Performance of the exact optimal-tree solvers against the peers a user would pick (issue 38).

* :func:`exact_vs_contree`: ``OptimalTreeClassifier(n_thresholds=None)`` (every threshold,
  :func:`dtcore.find_real.find_real`) against ConTree (``pycontree``) on real-valued data -- the
  workload ConTree is built for (continuous features, depth 2 and 3, no binarisation).
* :func:`find_vs_dl85`: FIND on Boolean data against DL8.5 (``pydl8.5``), whose itemset cache and
  depth-2 special case are made for Boolean features of moderate width.
* :func:`find_vs_gosdt`: FIND against GOSDT (``gosdt``) with no sparsity penalty and a depth budget,
  the exact depth-d problem; GOSDT is built for a positive sparsity penalty (regularization), which
  this workload leaves out, and it says so by warning.

Each returns the tidy rows of :mod:`dtbook.experiments.performance.users` (``ROW_COLUMNS``):
both sides interleaved in one process, BLAS/OpenMP pinned to ``threads``, medians of
``repetitions`` rounds after an untimed warm-up (which also loads numba's compiled kernels), the
machine's load average beside them, and ``same_result`` from the training errors recomputed from
both sides' predictions.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dtcore.estimators import OptimalTreeClassifier
from dtcore.find import find, training_errors
from dtcore.validate import check_choice, check_int
from .users import _rows

__all__ = ["REAL_DATASETS", "real_data", "exact_vs_contree", "find_vs_dl85", "find_vs_gosdt"]

#: Real-valued data sets :func:`real_data` knows.
REAL_DATASETS = ("breast_cancer", "wine", "make_classification")


def real_data(dataset: str, *, rows: int | None = None, features: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of a real-valued data set: scikit-learn's breast cancer (569 x 30, two classes) or wine
    (178 x 13, three classes), or ``make_classification(rows, features, random_state=0)``."""
    from sklearn import datasets

    dataset = check_choice("dataset", dataset, REAL_DATASETS)
    if dataset == "make_classification":
        rows = check_int("rows", 10_000 if rows is None else rows, 2)
        return datasets.make_classification(rows, check_int("features", features, 5), random_state=0)
    return getattr(datasets, f"load_{dataset}")(return_X_y=True)


def _errors(pred: np.ndarray, y: np.ndarray) -> int:
    return int((np.asarray(pred) != y).sum())


def exact_vs_contree(X: np.ndarray, y: np.ndarray, *, depth: int, workload: str, repetitions: int = 3,
                     thread_settings: Sequence[int | None] = (1,)) -> pd.DataFrame:
    """``OptimalTreeClassifier(max_depth=depth, n_thresholds=None).fit`` against
    ``pycontree.ConTree(max_depth=depth).fit`` on the same real-valued X. Both are exact: the
    same result is the same training error."""
    from pycontree import ConTree

    depth = check_int("depth", depth, 1)

    def compare(ours, theirs):
        mine, peer = _errors(ours.predict(X), y), _errors(theirs.predict(X), y)
        return mine == peer, abs(mine - peer), f"training errors {mine} / {peer}"

    return _rows(workload, f"{X.shape[0]}x{X.shape[1]} real, every threshold, d={depth}",
                 f"ConTree (pycontree) max_depth={depth}",
                 lambda: OptimalTreeClassifier(max_depth=depth, n_thresholds=None).fit(X, y),
                 lambda: ConTree(max_depth=depth).fit(X, y), compare, repetitions=repetitions,
                 thread_settings=thread_settings)


def find_vs_dl85(X: np.ndarray, y: np.ndarray, *, depth: int, workload: str, repetitions: int = 3,
                 thread_settings: Sequence[int | None] = (1,)) -> pd.DataFrame:
    """FIND (:func:`dtcore.find.find`) against ``pydl85.DL85Classifier(max_depth=depth)`` on the same
    Boolean features; same result: equal training errors (recomputed from both trees)."""
    from pydl85 import DL85Classifier

    depth = check_int("depth", depth, 1)

    def compare(ours, theirs):
        mine, peer = int(training_errors(ours.tree, X, y)), _errors(theirs.predict(X), y)
        dev = abs(mine - peer) + abs(mine - ours.errors)
        return dev == 0, dev, f"training errors {mine} / {peer}"

    return _rows(workload, f"{X.shape[0]}x{X.shape[1]} Boolean, d={depth}", f"DL8.5 (pydl8.5) max_depth={depth}",
                 lambda: find(X, y, depth=depth), lambda: DL85Classifier(max_depth=depth).fit(X, y), compare,
                 repetitions=repetitions, thread_settings=thread_settings)


@contextlib.contextmanager
def _quiet_stdout():
    """File descriptor 1 (and Python's stdout) to /dev/null for the duration."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            with contextlib.redirect_stdout(null):
                yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def find_vs_gosdt(X: np.ndarray, y: np.ndarray, *, depth: int, workload: str, repetitions: int = 3,
                  time_limit: int = 600, thread_settings: Sequence[int | None] = (1,)) -> pd.DataFrame:
    """FIND against ``gosdt.GOSDTClassifier(regularization=0, allow_small_reg=True,
    depth_budget=depth + 1)`` (GOSDT counts the leaves' level in its budget): the exact depth-d
    problem. GOSDT's own ``predict`` calls scikit-learn's ``check_array`` with an argument
    scikit-learn 1.9 removed, so its tree's ``predict`` is used. A run that reaches ``time_limit``
    is not exact and shows as a different result when its error is higher."""
    from gosdt import GOSDTClassifier

    depth = check_int("depth", depth, 1)

    def theirs():
        # GOSDT warns that no sparsity penalty makes it slow, in Python and from its C++ core on file
        # descriptor 1 (which a notebook would show): both silenced for the fit
        with warnings.catch_warnings(), _quiet_stdout():
            warnings.simplefilter("ignore")
            return GOSDTClassifier(regularization=0.0, allow_small_reg=True, depth_budget=depth + 1,
                                   time_limit=time_limit, verbose=False).fit(X, y)

    def compare(ours, fitted):
        mine, peer = int(training_errors(ours.tree, X, y)), _errors(fitted.trees_[0].predict(X), y)
        dev = abs(mine - peer) + abs(mine - ours.errors)
        return dev == 0, dev, f"training errors {mine} / {peer}"

    return _rows(workload, f"{X.shape[0]}x{X.shape[1]} Boolean, d={depth}",
                 f"GOSDT (gosdt) regularization=0, depth_budget={depth + 1}", lambda: find(X, y, depth=depth),
                 theirs, compare, repetitions=repetitions, thread_settings=thread_settings)
