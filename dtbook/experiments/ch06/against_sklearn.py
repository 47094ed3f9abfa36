"""The estimators against scikit-learn's ``DecisionTreeClassifier`` on a large synthetic problem.

:func:`compare_with_sklearn` draws a ``make_classification`` problem (by default 50,000 training
rows x 30 features, plus a test set of the same law), fits each of dtcore's estimators with its
default binning and scikit-learn's tree at the same size (leaves or depth), and returns their test
accuracies and fit times; the binarisation (:class:`~dtcore.estimators.ThresholdBinarizer` fit and
transform of the training rows) is timed apart so that the learner's own time is visible.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from dtcore.estimators import ID3Classifier, OptimalTreeClassifier, ThresholdBinarizer, TopDownClassifier
from dtcore.validate import check_int

__all__ = ["comparison_settings", "compare_with_sklearn"]


def comparison_settings(leaves: Sequence[int] = (16, 64), depths: Sequence[int] = (6,),
                        find_depth: int = 2) -> list[tuple[str, str, Callable, Callable]]:
    """(learner, size, our estimator factory, scikit-learn's factory) of every compared pair."""
    out = []
    for t in leaves:
        out.append(("TopDown_G (Gini, best-first)", f"{t} leaves", lambda t=t: TopDownClassifier(max_leaf_nodes=t),
                    lambda t=t: DecisionTreeClassifier(max_leaf_nodes=t, random_state=0)))
    for d in depths:
        out.append(("ID3 (Gini)", f"depth {d}", lambda d=d: ID3Classifier(max_depth=d),
                    lambda d=d: DecisionTreeClassifier(max_depth=d, random_state=0)))
    out.append(("FIND (optimal)", f"depth {find_depth}", lambda: OptimalTreeClassifier(max_depth=find_depth),
                lambda: DecisionTreeClassifier(max_depth=find_depth, random_state=0)))
    return out


def _timed(fit: Callable[[], object]) -> tuple[object, float]:
    start = time.perf_counter()
    out = fit()
    return out, time.perf_counter() - start


def compare_with_sklearn(*, n_samples: int = 50_000, n_features: int = 30, n_test: int = 50_000,
                         n_informative: int = 2, seed: int = 0, leaves: Sequence[int] = (16, 64),
                         depths: Sequence[int] = (6,), find_depth: int = 2) -> pd.DataFrame:
    """Test accuracy and fit time of dtcore's estimators and scikit-learn's tree at equal size.

    Parameters
    ----------
    n_samples, n_features : int
        Training rows and columns of ``sklearn.datasets.make_classification`` (two classes).
    n_test : int
        Test rows drawn from the same problem.
    n_informative : int
        Informative features of ``make_classification`` (its default, 2, unless given).
    seed : int
        ``random_state`` of ``make_classification`` (>= 0).
    leaves : sequence of int
        Sizes at which TopDown_G is compared with ``DecisionTreeClassifier(max_leaf_nodes=t)``.
    depths : sequence of int
        Depths at which ID3 is compared with ``DecisionTreeClassifier(max_depth=d)``.
    find_depth : int
        Depth of FIND's optimal tree, compared with ``DecisionTreeClassifier(max_depth=find_depth)``.

    Returns
    -------
    pandas.DataFrame
        One row per setting: ``learner``, ``size``, ``thresholds`` (the estimator's ``n_thresholds``),
        ``boolean_features``, ``accuracy`` and ``sklearn_accuracy`` (on the test rows), ``gap_points``
        (100 x (accuracy - sklearn_accuracy)), ``fit_s`` (the estimator's whole fit),
        ``binarise_s`` (of which binarisation: the least of three warm runs), ``sklearn_fit_s``.
    """
    n_samples = check_int("n_samples", n_samples, 10)
    n_features = check_int("n_features", n_features, 2)
    n_test = check_int("n_test", n_test, 1)
    seed = check_int("seed", seed, 0)
    n_informative = check_int("n_informative", n_informative, 1, n_features)
    X, y = make_classification(n_samples=n_samples + n_test, n_features=n_features, n_informative=n_informative,
                               random_state=seed)
    X_train, X_test, y_train, y_test = X[:n_samples], X[n_samples:], y[:n_samples], y[n_samples:]
    rows = []
    binarise_s: dict[object, float] = {}
    for learner, size, ours, theirs in comparison_settings(leaves, depths, find_depth):
        est = ours()
        if est.n_thresholds not in binarise_s:  # binarisation alone, once per binning
            binarise = lambda: ThresholdBinarizer(est.n_thresholds).fit(X_train).transform(X_train)  # noqa: E731
            binarise()  # a warm run, as the fits that follow find NumPy's caches warm too
            binarise_s[est.n_thresholds] = min(_timed(binarise)[1] for _ in range(3))
        est, fit_s = _timed(lambda: est.fit(X_train, y_train))
        ref, sk_s = _timed(lambda: theirs().fit(X_train, y_train))
        acc, sk_acc = float(est.score(X_test, y_test)), float(ref.score(X_test, y_test))
        rows.append({"learner": learner, "size": size, "thresholds": est.n_thresholds,
                     "boolean_features": est.n_binary_features_, "accuracy": acc, "sklearn_accuracy": sk_acc,
                     "gap_points": 100 * (acc - sk_acc), "fit_s": fit_s,
                     "binarise_s": binarise_s[est.n_thresholds], "sklearn_fit_s": sk_s})
    return pd.DataFrame(rows)
