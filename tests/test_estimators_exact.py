"""OptimalTreeClassifier(n_thresholds=None): the exact search over every threshold, and time_limit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_wine, make_classification
from sklearn.exceptions import ConvergenceWarning

from dtcore.estimators import OptimalTreeClassifier, ThresholdBinarizer
from dtcore.find import find


def test_every_threshold_is_find_on_the_fully_binarised_matrix():
    X, y = make_classification(120, 4, random_state=1)
    clf = OptimalTreeClassifier(max_depth=2, n_thresholds=None).fit(X, y)
    Xb = ThresholdBinarizer(None).fit(X).transform(X)
    ref = find(Xb, y.astype(np.uint8), depth=2)
    assert clf.training_error_ == ref.error and clf.optimal_
    assert float((clf.predict(X) != y).mean()) == ref.error
    # the binarizer holds only the cuts the tree tests, each a midpoint of the training values
    assert clf.n_binary_features_ == len(set(f for f in clf.tree_.feature if f >= 0))
    full = ThresholdBinarizer(None).fit(X)
    pairs = set(zip(full.columns.tolist(), full.cuts.tolist()))
    assert all(pair in pairs for pair in zip(clf.binarizer_.columns.tolist(), clf.binarizer_.cuts.tolist()))


def test_multiclass_exact_and_string_labels():
    X, y = load_wine(return_X_y=True)
    labels = np.array(["a", "b", "c"])[y]
    clf = OptimalTreeClassifier(max_depth=2, n_thresholds=None).fit(X, labels)
    assert clf.classes_.tolist() == ["a", "b", "c"]
    assert np.isclose(float((clf.predict(X) != labels).mean()), clf.training_error_)
    assert clf.training_error_ <= OptimalTreeClassifier(max_depth=2, n_thresholds=8).fit(X, labels).training_error_


def test_missing_values_fall_back_to_binarising_every_midpoint():
    X, y = make_classification(60, 3, n_informative=2, n_redundant=0, random_state=2)
    X[::7, 1] = np.nan
    clf = OptimalTreeClassifier(max_depth=2, n_thresholds=None).fit(X, y)
    assert clf.binarizer_.missing.any() and clf.optimal_


def test_time_limit_warns_and_returns_the_best_tree_found():
    X, y = make_classification(400, 8, random_state=0)
    with pytest.warns(ConvergenceWarning, match="not proven optimal"):
        clf = OptimalTreeClassifier(max_depth=3, n_thresholds=None, time_limit=1e-6).fit(X, y)
    assert not clf.optimal_
    assert np.isclose(float((clf.predict(X) != y).mean()), clf.training_error_)
    exact = OptimalTreeClassifier(max_depth=3, n_thresholds=None).fit(X, y)
    assert exact.optimal_ and exact.training_error_ <= clf.training_error_


def test_time_limit_on_quantile_cuts_is_the_same_search():
    X, y = make_classification(300, 5, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        timed = OptimalTreeClassifier(max_depth=3, n_thresholds=6, time_limit=600).fit(X, y)
    plain = OptimalTreeClassifier(max_depth=3, n_thresholds=6).fit(X, y)
    assert timed.optimal_ and timed.training_error_ == plain.training_error_
    assert np.array_equal(timed.tree_.feature, plain.tree_.feature)


@pytest.mark.parametrize("bad", [0, -1.0, "1", True])
def test_bad_time_limit_is_refused(bad):
    X, y = make_classification(30, 3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(ValueError, match="time_limit"):
        OptimalTreeClassifier(time_limit=bad).fit(X, y)
