"""The estimators as a practitioner uses DecisionTreeClassifier (issue 28): multi-class, probabilities,
sample weights, missing values, the fitted-tree API, the text and the drawing."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

import dtcore.estimators as estimators
from dtcore.estimators import ID3Classifier, OptimalTreeClassifier, TopDownClassifier
from dtcore.export import export_text, plot_tree
from dtcore.find import find
from dtcore.id3 import id3
from dtcore.multiclass import multiclass_find, weighted_id3, weighted_top_down
from dtcore.topdown import top_down

DETERMINISTIC = [lambda: TopDownClassifier(max_leaf_nodes=8), lambda: ID3Classifier(max_depth=4),
                 lambda: OptimalTreeClassifier(max_depth=2, n_thresholds=4)]


def _same_tree(a, b) -> bool:
    return (a.feature == b.feature and a.child0 == b.child0 and a.child1 == b.child1
            and a.value == b.value)


def _binary_data(seed: int, m: int = 300, n: int = 8):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(m, n), dtype=np.uint8)
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 3])).astype(np.uint8)
    return X, np.where(rng.random(m) < 0.1, 1 - y, y).astype(np.uint8)


# --- 1. multi-class, with the papers' kernels unchanged on 0/1 labels --------------------------

@pytest.mark.parametrize("make", DETERMINISTIC + [lambda: TopDownClassifier(batch_size=30, random_state=1)])
def test_three_classes_with_string_labels(make):
    iris = load_iris()
    labels = iris.target_names[iris.target]
    clf = make().fit(iris.data, labels)
    assert clf.classes_.tolist() == ["setosa", "versicolor", "virginica"] and clf.n_classes_ == 3
    assert clf.score(iris.data, labels) > 0.9
    proba = clf.predict_proba(iris.data)
    assert proba.shape == (150, 3) and np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(iris.data))


@pytest.mark.parametrize("seed", [0, 1])
def test_multiclass_module_builds_the_kernels_trees_on_01_labels(seed):
    X, y = _binary_data(seed)
    for impurity, weighting, t in [("gini", "empirical", 7), ("entropy", "uniform", 5),
                                   ("kearns_mansour", "empirical", 9)]:
        ours = weighted_top_down(X, y, 2, size=t, impurity=impurity, weighting=weighting).tree
        assert _same_tree(ours, top_down(X, y, size=t, impurity=impurity, weighting=weighting).tree)
    for impurity, depth in [("gini", None), ("entropy", 3)]:
        assert _same_tree(weighted_id3(X, y, 2, impurity=impurity, depth=depth),
                          id3(X, y, impurity=impurity, depth=depth).tree)
    result = multiclass_find(X, y, 2, depth=2)
    assert result.errors == find(X, y, depth=2).errors
    assert result.error == result.errors / X.shape[0]


def test_binary_labels_take_the_papers_kernels(monkeypatch):
    """Timing-free: on two classes without weights the multi-class functions are never called."""
    def refuse(*args, **kwargs):
        raise AssertionError("the multi-class path was taken")

    for name in ("weighted_top_down", "weighted_minibatch_top_down", "weighted_id3", "multiclass_find"):
        monkeypatch.setattr(estimators, name, refuse)
    X, y = _binary_data(3)
    for make in DETERMINISTIC + [lambda: TopDownClassifier(batch_size=20, random_state=0)]:
        make().fit(X, y)
        make().fit(X, np.where(y == 1, "a", "b"))
    OptimalTreeClassifier().fit(X, y, sample_weight=np.arange(1, X.shape[0] + 1))  # FIND takes weights
    y3 = y.astype(np.int64) + 2 * (X[:, 5] & (y == 0))
    for make in DETERMINISTIC:
        with pytest.raises(AssertionError, match="multi-class path"):
            make().fit(X, y3)


def _brute_force(X, y, w, k, depth):
    """Least weighted misclassification of a depth-<= d tree, by plain recursion."""
    total = np.bincount(y, weights=w, minlength=k)
    best = total.sum() - total.max()
    if depth == 0 or y.size == 0:
        return best
    for i in range(X.shape[1]):  # every root
        side = X[:, i] == 1
        best = min(best, _brute_force(X[~side], y[~side], w[~side], k, depth - 1)
                   + _brute_force(X[side], y[side], w[side], k, depth - 1))
    return best


@pytest.mark.parametrize("seed, depth", [(0, 1), (1, 2), (2, 2), (3, 3)])
def test_multiclass_find_is_optimal(seed, depth):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(60, 5), dtype=np.uint8)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.integers(0, 2, 60) * (rng.random(60) < 0.3)) % 4
    w = rng.integers(1, 4, 60).astype(float)
    result = multiclass_find(X, y, 4, depth=depth, sample_weight=w)
    tree, errors, leaf_class = result.tree, result.errors, result.leaf_class
    assert errors == pytest.approx(_brute_force(X, y, w, 4, depth))
    assert result.error == pytest.approx(errors / w.sum())
    assert tree.depth <= depth
    predicted = leaf_class[tree.apply(X)]
    assert w[predicted != y].sum() == pytest.approx(errors)


# --- 5. sample_weight: an integer weight is a repeated point, 0 an absent one -------------------

@pytest.mark.parametrize("make", DETERMINISTIC + [lambda: TopDownClassifier(batch_size=25, random_state=2)])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_integer_weights_are_repeats(make, n_classes):
    X, y = make_classification(n_samples=120, n_features=5, n_informative=3, n_redundant=0,
                               n_classes=n_classes, random_state=n_classes)
    w = np.random.default_rng(0).integers(0, 4, size=y.size)
    weighted = make().fit(X, y, sample_weight=w)
    repeated = make().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    if n_classes == 2 and "batch_size=25" in repr(make()):
        # repeated 0/1 data without weights run the paper's minibatch learner, whose shared order
        # depends on the rows' order: only the same kind of run is comparable
        repeated = make().fit(np.repeat(X, w, axis=0), np.repeat(y, w), sample_weight=np.ones(int(w.sum())))
    assert np.allclose(weighted.predict_proba(X), repeated.predict_proba(X))
    assert np.array_equal(weighted.predict(X), repeated.predict(X))


def test_weights_change_the_tree():
    X, y = make_classification(n_samples=200, n_features=4, n_informative=2, n_redundant=0, random_state=0)
    heavy = np.where(X[:, 3] > 1.0, 50.0, 1.0)
    plain = TopDownClassifier(max_leaf_nodes=3).fit(X, y)
    weighted = TopDownClassifier(max_leaf_nodes=3).fit(X, y, sample_weight=heavy)
    assert weighted.tree_value_[0].sum() == pytest.approx(heavy.sum())
    assert not _same_tree(plain.boolean_tree_, weighted.boolean_tree_) or not np.allclose(plain.tree_value_, weighted.tree_value_)


# --- 2. probabilities from the leaves' training class frequencies -------------------------------

@pytest.mark.parametrize("make", DETERMINISTIC)
def test_predict_proba_is_the_leaf_class_frequency(make):
    X, y = make_classification(n_samples=300, n_features=6, n_informative=3, n_classes=3, random_state=1)
    w = np.random.default_rng(1).random(y.size) + 0.5
    clf = make().fit(X, y, sample_weight=w)
    leaf, proba = clf.apply(X), clf.predict_proba(X)
    for node in np.unique(leaf):  # every leaf: weighted class shares of its training points
        here = leaf == node
        expected = np.bincount(y[here], weights=w[here], minlength=3) / w[here].sum()
        assert np.allclose(proba[here], expected)


def test_roc_auc_on_breast_cancer_at_depth_2_matches_scikit_learn():
    X, y = load_breast_cancer(return_X_y=True)
    ours, one_hot, cart = [], [], []
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        clf = OptimalTreeClassifier(max_depth=2).fit(X[train], y[train])
        ours.append(roc_auc_score(y[test], clf.predict_proba(X[test])[:, 1]))
        one_hot.append(roc_auc_score(y[test], clf.predict(X[test])))
        ref = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X[train], y[train])
        cart.append(roc_auc_score(y[test], ref.predict_proba(X[test])[:, 1]))
    assert np.mean(ours) > np.mean(one_hot) + 0.005
    assert np.mean(ours) > np.mean(cart) - 0.02


# --- 3. missing values -----------------------------------------------------------------------------

def _data_with_missing(seed: int = 0, m: int = 400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    y = (X[:, 0] > 0.3).astype(int)
    gone = rng.random(m) < 0.25
    X[gone, 1] = np.nan
    y[gone] = 2  # missingness itself is informative: the tree must be able to route it
    return X, y


@pytest.mark.parametrize("make", DETERMINISTIC)
def test_nan_in_fit_and_predict_learned_through_an_indicator(make):
    X, y = _data_with_missing()
    clf = make().fit(X, y)
    assert clf.binarizer_.missing.sum() == 1 and "x1 is missing" in clf.binarizer_.feature_names
    assert clf.score(X, y) > 0.95
    assert "x1 is missing" in export_text(clf)
    nan_rows = np.isnan(X[:, 1])
    assert (clf.predict(X[nan_rows]) == 2).all()


def test_nan_only_at_test_time_goes_to_the_heavier_child():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] > 0.8).astype(int)  # most training weight on the x0 <= cut side
    clf = TopDownClassifier(max_leaf_nodes=2).fit(X, y)
    root = clf.tree_
    heavier = root.child1[0] if clf.tree_value_[root.child1[0]].sum() > clf.tree_value_[root.child0[0]].sum() \
        else root.child0[0]
    X_test = np.array([[np.nan, 0.0], [5.0, np.nan]])
    assert clf.apply(X_test)[0] == heavier
    assert clf.predict(X_test)[0] == 0 and clf.predict(X_test)[1] == 1
    with pytest.raises(ValueError, match="inf"):
        clf.predict(np.array([[np.inf, 0.0]]))


# --- 4. the fitted-tree API, the text and the drawing ---------------------------------------------

@pytest.mark.parametrize("make", DETERMINISTIC)
def test_apply_decision_path_depth_and_leaves(make):
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    clf = make().fit(X, y)
    path, leaf = clf.decision_path(X), clf.apply(X)
    assert path.shape == (len(X), clf.tree_.node_count)
    assert (path[:, 0].toarray() == 1).all()
    assert np.array_equal(path.toarray()[np.arange(len(X)), leaf], np.ones(len(X)))
    assert set(np.unique(leaf)) <= set(clf.tree_.leaves())
    assert path.sum(axis=1).max() - 1 <= clf.get_depth() == clf.tree_.depth
    assert clf.get_n_leaves() == clf.tree_.size
    assert clf.n_features_in_ == 30 and list(clf.feature_names_in_) == list(X.columns)
    imp = clf.feature_importances_
    assert imp.shape == (30,) and imp.sum() == pytest.approx(1.0) and (imp >= 0).all()
    used = set(clf.tree_.feature[clf.tree_.feature >= 0])  # scikit-learn's layout: input columns
    assert set(np.flatnonzero(imp > 0)) <= used


def test_feature_importances_equal_scikit_learns_on_the_same_tree():
    X, y = load_breast_cancer(return_X_y=True)
    clf = TopDownClassifier(max_leaf_nodes=6, n_thresholds=6).fit(X, y)
    Xb = clf.binarizer_.transform(X)
    cart = DecisionTreeClassifier(max_leaf_nodes=6, random_state=0).fit(Xb, y)
    assert np.array_equal(cart.apply(Xb) > 0, clf.apply(X) > 0)  # the same partition, up to numbering
    expected = np.zeros(X.shape[1])
    np.add.at(expected, clf.binarizer_.columns, cart.feature_importances_)
    assert np.allclose(clf.feature_importances_, expected)


def test_export_text_has_class_names_and_original_thresholds():
    iris = load_iris(as_frame=True)
    clf = ID3Classifier(max_depth=2).fit(iris.data, iris.target_names[iris.target])
    text = export_text(clf, show_proportions=True)
    assert text.splitlines()[0].startswith("|--- petal")
    cut = float(text.splitlines()[0].split("<=")[1])
    assert iris.data.iloc[:, 2].min() < cut < iris.data.iloc[:, 2].max()
    assert "class: setosa (setosa: 1.00, versicolor: 0.00, virginica: 0.00)" in text
    assert text.count("class:") == clf.get_n_leaves()
    with pytest.raises(ValueError, match="decimals"):
        export_text(clf, decimals=-1)


def test_plot_tree_labels_never_overlap_on_a_depth_5_tree():
    import matplotlib.pyplot as plt

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    labels = np.array(["benign", "malignant"])[1 - y]
    clf = ID3Classifier(max_depth=5).fit(X, labels)
    assert clf.get_depth() == 5
    for ax in (plot_tree(clf), plot_tree(clf, ax=plt.subplots(figsize=(8, 4))[1])):
        renderer = ax.figure.canvas.get_renderer()
        boxes = [t.get_window_extent(renderer) for t in ax.texts]
        assert len(boxes) >= clf.tree_.node_count
        for a, b in itertools.combinations(boxes, 2):
            assert not a.overlaps(b)
        shown = "\n".join(t.get_text() for t in ax.texts)
        assert "benign" in shown and "malignant" in shown
        plt.close(ax.figure)


# --- 6. thresholds ---------------------------------------------------------------------------------

def test_every_midpoint_is_refused_beyond_the_memory_limit(monkeypatch):
    X, y = make_classification(n_samples=500, n_features=4, random_state=0)
    monkeypatch.setattr(estimators, "MAX_BINARY_CELLS", 100_000)
    with pytest.raises(ValueError, match=r"n_thresholds=None gives 1996 Boolean features on 500 rows"):
        TopDownClassifier(n_thresholds=None).fit(X, y)
    TopDownClassifier(n_thresholds=32).fit(X, y)  # 500 x 128 cells: within the limit


def test_comparison_with_scikit_learn_runs_and_is_close():
    from dtbook.experiments.ch06.against_sklearn import compare_with_sklearn

    table = compare_with_sklearn(n_samples=3000, n_test=3000, n_features=10, seed=1, leaves=(8,), depths=(3,))
    assert table["learner"].tolist() == ["TopDown_G (Gini, best-first)", "ID3 (Gini)", "FIND (optimal)"]
    assert table["size"].tolist() == ["8 leaves", "depth 3", "depth 2"]
    assert (table[["fit_s", "binarise_s", "sklearn_fit_s"]] > 0).all().all()
    assert table.loc[:1, "thresholds"].tolist() == [255, 255] and table.loc[2, "thresholds"] == 8
    assert (table["gap_points"].abs() < 2.0).all()
    assert np.allclose(table["gap_points"], 100 * (table["accuracy"] - table["sklearn_accuracy"]))


# --- 7. documentation -------------------------------------------------------------------------------

def test_every_public_method_has_a_numpydoc_docstring():
    import inspect

    from dtcore import export, multiclass

    owners = [TopDownClassifier, ID3Classifier, OptimalTreeClassifier, estimators.ThresholdBinarizer]
    methods = [(cls.__name__, name, member) for cls in owners for name, member in inspect.getmembers(cls)
               if not name.startswith("_") and inspect.isfunction(member) and member.__module__.startswith("dtcore")]
    methods += [(module.__name__, name, member) for module in (export, multiclass)
                for name, member in inspect.getmembers(module, inspect.isfunction)
                if name in module.__all__]
    assert len(methods) > 15
    for owner, name, member in methods:
        doc = inspect.getdoc(member) or ""
        parameters = [p for p in inspect.signature(member).parameters if p != "self"]
        assert "Returns\n-------" in doc, f"{owner}.{name} has no Returns section"
        if parameters:
            assert "Parameters\n----------" in doc, f"{owner}.{name} has no Parameters section"


def test_docstring_examples_of_the_new_modules_run():
    import doctest

    from dtcore import export, multiclass

    for module in (export, multiclass, estimators):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0
