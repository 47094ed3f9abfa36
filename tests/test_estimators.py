"""dtcore.estimators: scikit-learn's own estimator checks, and the estimators used as an engineer would.

Every check of ``parametrize_with_checks`` runs and passes; none is skipped or marked xfail.
One check, ``check_array_api_input`` (array-API dispatch with NumPy inputs), is skipped *by
scikit-learn itself* unless the environment variable ``SCIPY_ARRAY_API=1`` was set before SciPy
was imported; when it is not set, the test runs that check in a fresh interpreter with the
variable set, so it is executed rather than skipped.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from dtcore.estimators import ID3Classifier, OptimalTreeClassifier, ThresholdBinarizer, TopDownClassifier
from dtcore.export import export_text
from dtcore.find import find, training_errors
from dtcore.id3 import id3
from dtcore.topdown import minibatch_top_down, top_down

ESTIMATORS = [
    TopDownClassifier(),
    TopDownClassifier(batch_size=8, weighting="uniform", random_state=3),
    ID3Classifier(),
    OptimalTreeClassifier(),
]

#: checks we skip or mark xfail, with the reason: none.
SKIPPED_CHECKS: dict[str, str] = {}


def _check_name(check) -> str:
    while isinstance(check, functools.partial):
        check = check.func
    return check.__name__


def _check_keywords(check) -> dict:
    keywords: dict = {}
    while isinstance(check, functools.partial):
        keywords = {**check.keywords, **keywords}
        check = check.func
    return keywords


def _run_array_api_check_with_env(estimator, check) -> None:
    """Run check_array_api_input in a fresh interpreter with SCIPY_ARRAY_API=1 (see module doc)."""
    kwargs = _check_keywords(check)
    code = (
        "from sklearn.utils.estimator_checks import check_array_api_input\n"
        "from dtcore.estimators import *\n"
        f"est = {estimator!r}\n"
        f"check_array_api_input(type(est).__name__, est, **{kwargs!r})\n"
        "print('ok')\n"
    )
    env = {**os.environ, "SCIPY_ARRAY_API": "1"}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_estimator_checks(estimator, check):
    name = _check_name(check)
    assert name not in SKIPPED_CHECKS
    if name == "check_array_api_input" and os.environ.get("SCIPY_ARRAY_API") != "1":
        _run_array_api_check_with_env(estimator, check)
    else:
        check(estimator)


# --- equality with the functional API on 0/1 data ----------------------------------------------

def _binary_data(seed: int, m: int = 300, n: int = 8):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(m, n), dtype=np.uint8)
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 3])).astype(np.uint8)
    flip = rng.random(m) < 0.1
    return X, np.where(flip, 1 - y, y).astype(np.uint8)


def _same_tree(a, b) -> bool:
    return (a.feature == b.feature and a.child0 == b.child0 and a.child1 == b.child1
            and a.value == b.value)


def _assert_id3_without_zero_gain_splits(clf, paper) -> None:
    """ID3Classifier's tree is the paper's ID3 tree cut at every zero-gain split: each of its
    splits is the paper's split at that node, and where it has a leaf the paper either has one or
    split with children whose label shares equal the node's."""
    ours, value = clf.boolean_tree_, clf.tree_value_
    stack = [(0, 0)]
    while stack:
        a, b = stack.pop()
        if ours.feature[a] >= 0:
            assert ours.feature[a] == paper.feature[b]
            stack += [(ours.child0[a], paper.child0[b]), (ours.child1[a], paper.child1[b])]
        elif paper.feature[b] >= 0:
            share = value[a] / value[a].sum()
            assert 0 < share[0] < 1  # an impure leaf: the paper's split there had zero gain
    assert ours.size <= paper.size


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equal_to_functional_api_on_binary_data(seed):
    X, y = _binary_data(seed)
    for impurity, weighting, t in [("gini", "empirical", 7), ("entropy", "uniform", 5)]:
        clf = TopDownClassifier(max_leaf_nodes=t, impurity=impurity, weighting=weighting).fit(X, y)
        assert _same_tree(clf.boolean_tree_, top_down(X, y, size=t, impurity=impurity, weighting=weighting).tree)
        assert clf.n_binary_features_ == X.shape[1]
    clf = TopDownClassifier(max_leaf_nodes=6, batch_size=20, weighting="uniform", random_state=5).fit(X, y)
    ref = minibatch_top_down(X, y, size=6, batch_size=20, rng=np.random.default_rng(5), weighting="uniform")
    assert _same_tree(clf.boolean_tree_, ref.tree)
    _assert_id3_without_zero_gain_splits(ID3Classifier(impurity="entropy").fit(X, y), id3(X, y, impurity="entropy").tree)
    w = np.random.default_rng(seed).random(X.shape[0])
    clf = OptimalTreeClassifier(max_depth=2).fit(X, y, sample_weight=w)
    assert _same_tree(clf.boolean_tree_, find(X, y, depth=2, sample_weight=w).tree)
    assert np.array_equal(clf.predict(X), find(X, y, depth=2, sample_weight=w).tree.predict(X))


def test_constant_binary_column_is_kept_as_is():
    X, y = _binary_data(4)
    X[:, 5] = 0
    clf = TopDownClassifier(max_leaf_nodes=5).fit(X, y)
    assert clf.n_binary_features_ == X.shape[1]
    assert _same_tree(clf.boolean_tree_, top_down(X, y, size=5).tree)


# --- labels, probabilities, feature names ---------------------------------------------------------

@pytest.mark.parametrize("make", [lambda: TopDownClassifier(max_leaf_nodes=6), lambda: ID3Classifier(max_depth=None),
                                  lambda: OptimalTreeClassifier(max_depth=2)])
def test_any_two_labels_returned_as_given(make):
    X, y = _binary_data(7)
    for labels in (np.array(["no", "yes"]), np.array([-1, 1]), np.array([2.0, 5.0]), np.array([False, True])):
        clf = make().fit(X, labels[y])
        assert list(clf.classes_) == list(labels)
        pred = clf.predict(X)
        assert set(np.unique(pred)) <= set(labels)
        proba = clf.predict_proba(X)
        assert proba.shape == (X.shape[0], 2)
        assert np.allclose(proba.sum(axis=1), 1.0)
        assert np.array_equal(clf.classes_[proba.argmax(axis=1)], pred)
        # the same tree as with 0/1 labels (classes_[1] is label 1)
        assert np.array_equal(pred == labels[1], make().fit(X, y).predict(X) == 1)


def test_multi_class_declared_in_tags():
    for est in ESTIMATORS:
        tags = est.__sklearn_tags__()
        assert tags.classifier_tags.multi_class is True and tags.input_tags.allow_nan is True


def test_feature_names_kept_and_printed():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    clf = TopDownClassifier(max_leaf_nodes=4).fit(X, y)
    assert list(clf.feature_names_in_) == list(X.columns)
    text = clf.export_text()
    assert "worst" in text and "class: 0" in text and "x5" not in text
    assert str(clf.tree_).splitlines()[0] == text.splitlines()[0]
    first = clf.tree_.feature_names[clf.tree_.binary_feature[0]]  # "name > cut"
    name, cut = first.rsplit(" > ", 1)
    assert export_text(clf).splitlines()[0] == f"|--- {name} <= {float(cut):.2f}"
    assert all(" > " in name for name in clf.tree_.feature_names)
    # a numpy array gets x0, x1, ...
    clf2 = OptimalTreeClassifier(max_depth=1).fit(X.to_numpy(), y)
    assert not hasattr(clf2, "feature_names_in_")
    assert clf2.tree_.to_text().startswith("x")


@pytest.mark.parametrize("cls, params", [
    (TopDownClassifier, {"max_leaf_nodes": 0}), (TopDownClassifier, {"max_leaf_nodes": 2.5}),
    (TopDownClassifier, {"impurity": "mse"}), (TopDownClassifier, {"weighting": "gain"}),
    (TopDownClassifier, {"batch_size": 0}), (TopDownClassifier, {"n_thresholds": 0}),
    (TopDownClassifier, {"random_state": -1}),
    (ID3Classifier, {"impurity": "log"}), (ID3Classifier, {"max_depth": -1}),
    (ID3Classifier, {"n_thresholds": "all"}),
    (OptimalTreeClassifier, {"max_depth": -1}), (OptimalTreeClassifier, {"max_depth": None}),
    (OptimalTreeClassifier, {"n_thresholds": 1.5}),
])
def test_bad_parameters_named_in_error(cls, params):
    X, y = _binary_data(0, m=40)
    with pytest.raises(ValueError, match=list(params)[0]):
        cls(**params).fit(X, y)


# --- the binarisation rule -----------------------------------------------------------------------

def test_binarizer_all_midpoints_and_quantile_cuts():
    col = np.array([1.0, 2.0, 2.0, 4.0, 8.0, 8.0, 9.0])
    X = col[:, None]
    every = ThresholdBinarizer(None).fit(X)
    assert np.allclose(every.cuts, [1.5, 3.0, 6.0, 8.5])
    few = ThresholdBinarizer(2).fit(X)
    assert few.cuts.size <= 2 and set(few.cuts) <= set(every.cuts)
    # weight 2 acts as a repeated point; weight 0 as a missing one
    w = np.array([2, 1, 1, 1, 0, 1, 3], dtype=float)
    rep = np.repeat(col, w.astype(int))[:, None]
    for q in (1, 2, 3, None):
        assert np.array_equal(ThresholdBinarizer(q).fit(X, w).cuts, ThresholdBinarizer(q).fit(rep).cuts)
    Xb = every.transform(np.array([[0.0], [1.5], [1.6], [10.0]]))
    assert Xb.tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0], [1, 1, 1, 1]]


def test_binarizer_constant_data_gives_one_constant_feature():
    b = ThresholdBinarizer(4).fit(np.full((5, 3), 7.0))
    assert b.n_features == 1 and b.transform(np.full((2, 3), 7.0)).sum() == 0


# --- scikit-learn tooling ------------------------------------------------------------------------

def test_pipeline_cross_val_and_grid_search():
    X, y = load_breast_cancer(return_X_y=True)
    pipe = make_pipeline(SelectKBest(f_classif, k=10), OptimalTreeClassifier(max_depth=2, n_thresholds=6))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and scores.mean() > 0.85
    grid = GridSearchCV(TopDownClassifier(n_thresholds=8), {"max_leaf_nodes": [2, 4, 8]}, cv=3).fit(X, y)
    assert grid.best_params_["max_leaf_nodes"] in (2, 4, 8)
    assert grid.best_estimator_.tree_.size <= grid.best_params_["max_leaf_nodes"]
    grid = GridSearchCV(ID3Classifier(n_thresholds=4), {"impurity": ["gini", "entropy"]}, cv=3).fit(X, y)
    assert grid.best_score_ > 0.85


def test_find_training_error_at_most_cart_on_same_features():
    X, y = load_breast_cancer(return_X_y=True)
    for depth in (1, 2, 3):
        clf = OptimalTreeClassifier(max_depth=depth, n_thresholds=4).fit(X, y)
        Xb = clf.binarizer_.transform(X)
        cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(Xb, y)
        cart_errors = int((cart.predict(Xb) != y).sum())
        find_errors = training_errors(clf.boolean_tree_, Xb, y)
        assert find_errors <= cart_errors
        assert find_errors == pytest.approx(clf.training_error_ * len(y))
