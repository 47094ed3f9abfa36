"""Chapter 6's checks of what the estimators' users rely on (dtbook.experiments.ch06.users)."""

from __future__ import annotations

import numpy as np
import pytest

from dtbook.experiments.ch06 import users
from dtbook.report import VerificationTable
from dtcore.estimators import OptimalTreeClassifier, ThresholdBinarizer, TopDownClassifier


def test_reference_features_by_hand() -> None:
    # column 0: values 1..10, 2 cuts at levels 1/3, 2/3: quantiles 4 and 7, cuts 4.5 and 7.5;
    # column 1: 0/1 (cut 1/2); column 2: constant (no feature); column 3: two values and a NaN
    X = np.column_stack([np.arange(1.0, 11.0), np.arange(10) % 2, np.full(10, 3.0),
                         np.r_[np.nan, np.ones(4), np.full(5, 2.0)]])
    columns, cuts, missing = users.reference_features(X, np.ones(10), n_thresholds=2)
    assert columns.tolist() == [0, 0, 1, 3, 3]
    np.testing.assert_array_equal(cuts[:4], [4.5, 7.5, 0.5, 1.5])
    assert np.isnan(cuts[4]) and missing.tolist() == [False, False, False, False, True]
    binarizer = ThresholdBinarizer(2).fit(X)
    assert users.cut_deviation(binarizer, X, np.ones(10), n_thresholds=2) == 0.0


@pytest.mark.parametrize("n_thresholds", [1, 3, 8])
def test_reference_features_agree_with_the_binariser_on_weights(n_thresholds: int) -> None:
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(300, 4)), 1)
    X[rng.random(X.shape) < 0.05] = np.nan
    w = rng.integers(0, 4, 300).astype(float)
    binarizer = ThresholdBinarizer(n_thresholds).fit(X, sample_weight=w)
    assert users.cut_deviation(binarizer, X, w, n_thresholds=n_thresholds) == 0.0
    binarizer.cuts = binarizer.cuts + 0.05  # a shifted cut
    assert users.cut_deviation(binarizer, X, w, n_thresholds=n_thresholds) > 0.0


def test_reference_leaves_follow_the_docstring() -> None:
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 3))
    X[rng.random(400) < 0.2, 2] = np.nan  # column 2 has NaN in training
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
    T = rng.normal(size=(200, 3))
    T[rng.random(T.shape) < 0.3] = np.nan  # NaN in every column, also those without NaN in training
    for est in (OptimalTreeClassifier(max_depth=2, n_thresholds=4), TopDownClassifier(max_leaf_nodes=6)):
        est.fit(X, y)
        np.testing.assert_array_equal(users.reference_leaves(est, X, T), est.apply(T))


def test_check_users_rows_fail_on_a_difference() -> None:
    import pandas as pd

    cuts = pd.DataFrame({"deviation": [0.0, 0.0], "features": [3, 4]})
    routing = pd.DataFrame({"leaves differ": [0, 0], "rows with NaN": [5, 5], "rows with a new NaN": [2, 2]})
    multiclass = pd.DataFrame({"estimator errors": [3, 4], "pystreed errors": [3, 4]})
    sk = pd.DataFrame({"same tree": [True, False], "probability deviation": [0.0, 0.9],
                       "importance deviation": [1e-16, 0.1]})
    table = VerificationTable()
    users.check_users(table, cuts, routing, multiclass, sk)
    assert table.failures().empty
    broken = VerificationTable()
    users.check_users(broken, cuts.assign(deviation=[0.0, 0.25]), routing.assign(**{"leaves differ": [0, 1]}),
                      multiclass.assign(**{"estimator errors": [3, 5]}), sk.assign(**{"probability deviation": [0.1, 0.9]}))
    assert not any(broken.frame()["holds"])
    assert set(users.users_glue(cuts, routing, multiclass, sk)) >= {"ch6_users_cut_fits", "ch6_users_same_tree"}
