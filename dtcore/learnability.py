"""Choose a tree size from few labels: Est_G over a grid of sizes t (Blanc–Gupta–Lange–Tan 2020).

:func:`estimate_learnability` wraps :func:`dtcore.local.est` (Est_G, BGLT 2020 Figure 5) for a user
who has an *unlabelled* pool of points, a labelling function that is expensive to call (a human,
a lab test), and wants to know how well a size-t tree would do for several t before paying for the
labels of the whole pool. For every t it reports Est's estimate of the test error of the tree T_t
that TopDownSizeEstimate_G would build on the pool, and the labels it took to get it.

Real-valued pools are binarised first with :class:`dtcore.estimators.ThresholdBinarizer`, whose cut
points are learned from the pool's features alone (no labels), so the estimate concerns the trees a
:class:`~dtcore.estimators.TopDownClassifier` with the same ``n_thresholds`` and ``batch_size`` would
grow on the same Boolean features.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd

from .estimators import ThresholdBinarizer, _check_n_thresholds
from .impurity import IMPURITIES
from .local import LabelOracle, SharedDraws, est
from .topdown import WEIGHTINGS
from .validate import check_choice

__all__ = ["estimate_learnability", "hoeffding_halfwidth"]


def hoeffding_halfwidth(n_test: int, delta: float) -> float:
    """sqrt(ln(2/delta) / (2 n_test)): with probability >= 1 - delta a fixed tree's error on n_test
    i.i.d. test points is within this of its population error (Hoeffding; BGLT 2020, Theorem 3's
    test-set term)."""
    return math.sqrt(math.log(2.0 / delta) / (2.0 * n_test))


def _matrix(name: str, X: object) -> np.ndarray:
    values = X.to_numpy() if isinstance(X, pd.DataFrame) else X
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a 2-D array of numbers, got {type(X).__name__}") from err
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (m, n), got shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must have at least one row and one column, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must hold only finite numbers (no NaN or inf)")
    return arr


def _labels01(name: str, y: object, m: int) -> np.ndarray:
    arr = np.asarray(y)
    if arr.shape != (m,):
        raise ValueError(f"{name} must be {m} labels (shape ({m},)), got shape {arr.shape}")
    if arr.dtype != np.bool_ and (arr.dtype.kind not in "iuf" or not np.isin(arr, (0, 1)).all()):
        raise ValueError(f"{name} must hold only 0/1 (or boolean) labels")
    return arr.astype(np.uint8)


def _int(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def estimate_learnability(
    pool: np.ndarray | pd.DataFrame,
    label_fn: Callable[[np.ndarray | pd.DataFrame], np.ndarray],
    sizes: Iterable[int],
    test_X: np.ndarray | pd.DataFrame,
    test_y: np.ndarray | None = None,
    *,
    rng: np.random.Generator,
    batch_size: int = 32,
    n_strands: int | None = None,
    impurity: str = "gini",
    weighting: str = "uniform",
    n_thresholds: int | None = 16,
    delta: float = 0.05,
) -> pd.DataFrame:
    """Est_G's estimate of a size-t tree's test error for every t, and the labels it used.

    Implements Est_G(t, b, S°, S_test) of Blanc–Gupta–Lange–Tan (NeurIPS 2020, Figure 5;
    Theorems 3 and 6) on the unlabelled pool S° = ``pool``: LocalLearner_G answers each test point
    by growing only the leaves that the test points and the size-estimation strands reach, asking
    ``label_fn`` only for the points of those leaves' minibatches. All sizes share one random order
    of the pool, one set of strands and one label cache, so a point is labelled at most once over
    the whole grid.

    Parameters
    ----------
    pool : array-like or DataFrame of shape (N, n)
        The unlabelled points S° (real-valued columns are binarised, see the module docstring).
    label_fn : callable
        ``label_fn(rows)`` gets rows of ``pool`` (same type: array rows or a DataFrame slice) and
        returns their labels as 0/1 or booleans. It is called only for points whose label Est needs,
        each point at most once.
    sizes : iterable of int
        The tree sizes t (>= 1, distinct) to estimate; reported in increasing order.
    test_X : array-like or DataFrame of shape (m_test, n)
        The test points S_test.
    test_y : array-like of shape (m_test,), optional
        Their 0/1 labels; if None they are obtained with one call ``label_fn(test_X)``.
    rng : numpy.random.Generator
        Draws the shared order of the pool and the strands.
    batch_size : int, default=32
        The minibatch size b (>= 1).
    n_strands : int, optional
        Number of uniform strand points of the size estimator (default: ``batch_size``, the choice
        of BGLT 2020, Theorem 5's proof).
    impurity : {"gini", "entropy", "kearns_mansour"}, default="gini"
    weighting : {"uniform", "empirical"}, default="uniform"
        The purity-gain weighting of MiniBatchTopDown_G (uniform is the paper's).
    n_thresholds : int or None, default=16
        Cut points per real-valued column (:class:`~dtcore.estimators.ThresholdBinarizer`).
    delta : float, default=0.05
        Confidence of the Hoeffding interval reported around each estimate, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        One row per t: ``t``; ``estimated_error`` (Est's output); ``ci_low``/``ci_high`` (the
        estimate -/+ :func:`hoeffding_halfwidth`, clipped to [0, 1]: with probability >= 1 - delta
        the population error of T_t lies inside); ``size_estimate`` (the strand estimate e of T_t's
        size); ``labels_new`` (pool points first labelled for this t); ``labels_total`` (distinct pool
        points labelled so far); ``label_fn_calls`` (calls of ``label_fn`` so far, including the test
        labels); ``test_labels`` (labels of the test set obtained from ``label_fn``, 0 when
        ``test_y`` is given); ``pool_size`` N.

    Examples
    --------
    >>> import numpy as np
    >>> from dtcore.learnability import estimate_learnability
    >>> rng = np.random.default_rng(0)
    >>> pool = rng.normal(size=(5000, 4))
    >>> def label_fn(rows):
    ...     return (rows[:, 0] + rows[:, 1] > 0).astype(int)
    >>> test_X = rng.normal(size=(300, 4))
    >>> table = estimate_learnability(pool, label_fn, [2, 8], test_X, rng=rng, n_thresholds=4)
    >>> table[["t", "labels_total"]].to_dict("list")["t"]
    [2, 8]
    >>> bool((table["labels_total"] < 5000).all())
    True
    """
    pool_arr = _matrix("pool", pool)
    N, n = pool_arr.shape
    if not callable(label_fn):
        raise ValueError(f"label_fn must be callable (rows -> 0/1 labels), got {type(label_fn).__name__}")
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Iterable):
        raise ValueError(f"sizes must be an iterable of integers >= 1, got {sizes!r}")
    size_list = list(sizes)
    if not size_list:
        raise ValueError("sizes must hold at least one size t, got an empty list")
    for t in size_list:
        if isinstance(t, bool) or not isinstance(t, numbers.Integral) or t < 1:
            raise ValueError(f"sizes must hold integers >= 1, got {t!r}")
    if len(set(int(t) for t in size_list)) != len(size_list):
        raise ValueError(f"sizes must be distinct, got {size_list}")
    test_arr = _matrix("test_X", test_X)
    if test_arr.shape[1] != n:
        raise ValueError(f"test_X must have n = {n} columns like pool, got {test_arr.shape[1]}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    b = _int("batch_size", batch_size, 1)
    m_strands = b if n_strands is None else _int("n_strands", n_strands, 1)
    check_choice("impurity", impurity, tuple(IMPURITIES))
    check_choice("weighting", weighting, WEIGHTINGS)
    q = _check_n_thresholds(n_thresholds)
    if (isinstance(delta, bool) or not isinstance(delta, numbers.Real)
            or not 0.0 < float(delta) < 1.0):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")

    calls = {"calls": 0}

    def call_label_fn(name: str, rows: object, k: int) -> np.ndarray:
        calls["calls"] += 1
        try:
            out = label_fn(rows)
        except Exception as err:  # a labeller that fails: say which argument it came from
            raise ValueError(f"label_fn raised {type(err).__name__}: {err}") from err
        return _labels01(f"label_fn's output ({name})", out, k)

    if test_y is None:
        y_test = call_label_fn("test_X", test_X, test_arr.shape[0])
        test_labels = int(test_arr.shape[0])
    else:
        y_test = _labels01("test_y", test_y, test_arr.shape[0])
        test_labels = 0

    def pool_rows(rows: np.ndarray) -> object:
        return pool.iloc[rows] if isinstance(pool, pd.DataFrame) else pool_arr[rows]

    oracle = LabelOracle(N, lambda rows: call_label_fn("pool", pool_rows(rows), rows.size))
    binarizer = ThresholdBinarizer(q).fit(pool_arr)  # unsupervised: features only
    Xb, Xb_test = binarizer.transform(pool_arr), binarizer.transform(test_arr)
    draws = SharedDraws.draw(N, Xb.shape[1], m_strands, rng=rng)
    half = hoeffding_halfwidth(test_arr.shape[0], float(delta))
    rows = []
    for t in sorted(int(t) for t in size_list):  # one Est run per size, sharing draws and labels
        before = oracle.labelled
        res = est(Xb, oracle, size=t, batch_size=b, X_test=Xb_test, y_test=y_test, draws=draws, impurity=impurity, weighting=weighting)
        rows.append({"t": t, "estimated_error": res.error,
                     "ci_low": max(0.0, res.error - half), "ci_high": min(1.0, res.error + half),
                     "size_estimate": res.e, "labels_new": oracle.labelled - before,
                     "labels_total": oracle.labelled, "label_fn_calls": calls["calls"],
                     "test_labels": test_labels, "pool_size": N})
    return pd.DataFrame(rows)
