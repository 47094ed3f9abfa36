"""The estimators' knobs of issue 39 against scikit-learn where both must agree: ``tree_`` in
scikit-learn's layout, minimal cost-complexity pruning, ``class_weight``, ``export_text(feature_names=)``."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from dtcore.estimators import ID3Classifier, OptimalTreeClassifier, TopDownClassifier, cost_complexity_path
from dtcore.export import export_text


def _data(seed=0, m=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 4))
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] < -0.2) | (rng.random(m) < 0.15)).astype(int)
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pruning_path_equals_scikit_learns_on_the_same_tree(seed):
    X, y = _data(seed)
    sk = DecisionTreeClassifier(max_leaf_nodes=24, random_state=0).fit(X, y)
    t = sk.tree_
    alphas, impurities, _ = cost_complexity_path(t.children_left, t.children_right,
                                                 t.weighted_n_node_samples, t.impurity)
    path = sk.cost_complexity_pruning_path(X, y)  # grows the same tree again (same random_state)
    np.testing.assert_allclose(alphas, path.ccp_alphas, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(impurities, path.impurities, rtol=1e-10, atol=1e-14)


def test_ccp_alpha_on_the_estimators_matches_their_own_path():
    X, y = _data(3)
    for cls in (TopDownClassifier, ID3Classifier):
        full = cls().fit(X, y)
        path = full.cost_complexity_pruning_path(X, y)
        assert path.ccp_alphas[0] == 0 and np.all(np.diff(path.ccp_alphas) >= -1e-15)
        assert path.impurities[-1] == pytest.approx(full.tree_.impurity[0])  # the root alone
        mid = path.ccp_alphas[len(path.ccp_alphas) // 2]
        pruned = cls(ccp_alpha=mid).fit(X, y)
        assert 1 <= pruned.get_n_leaves() < full.get_n_leaves()
        assert cls(ccp_alpha=path.ccp_alphas[-1]).fit(X, y).get_n_leaves() == 1


def test_tree_arrays_follow_scikit_learns_layout():
    X, y = _data(4)
    clf = TopDownClassifier(max_leaf_nodes=8).fit(X, y)
    t = clf.tree_
    leaf = t.children_left < 0
    assert np.all(t.feature[leaf] == -2) and np.all(t.threshold[leaf] == -2)
    assert np.all(t.children_right[leaf] == -1) and np.all((t.feature[~leaf] >= 0) & (t.feature[~leaf] < 4))
    assert t.value.shape == (t.node_count, 1, 2) and np.allclose(t.value.sum(axis=2), 1)
    assert t.n_leaves == clf.get_n_leaves() and t.max_depth == clf.get_depth()
    # route every row by hand with the public arrays: the leaf apply() gives
    node = np.zeros(len(X), dtype=int)
    for _ in range(t.max_depth):
        inner = t.children_left[node] >= 0
        go_left = X[np.arange(len(X)), np.maximum(t.feature[node], 0)] <= t.threshold[node]
        node = np.where(inner, np.where(go_left, t.children_left[node], t.children_right[node]), node)
    assert np.array_equal(node, clf.apply(X))
    assert np.allclose(t.value[node, 0], clf.predict_proba(X))
    assert np.array_equal(np.bincount(node, minlength=t.node_count)[leaf], t.n_node_samples[leaf])


def test_tree_agrees_with_scikit_learns_on_a_tie_free_problem():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 1))
    y = (X[:, 0] > 0.25).astype(int)
    ours = TopDownClassifier(max_leaf_nodes=2, n_thresholds=None).fit(X, y).tree_
    theirs = DecisionTreeClassifier(max_leaf_nodes=2).fit(X, y).tree_
    assert ours.feature[0] == theirs.feature[0] and ours.threshold[0] == pytest.approx(theirs.threshold[0])
    assert np.allclose(ours.value[0], theirs.value[0]) and np.allclose(ours.impurity[0], theirs.impurity[0])


@pytest.mark.parametrize("cls", [TopDownClassifier, ID3Classifier, OptimalTreeClassifier])
def test_class_weight_is_a_per_class_sample_weight(cls):
    X, y = _data(6)
    weighted = cls(class_weight={0: 1.0, 1: 3.0}).fit(X, y)
    same = cls().fit(X, y, sample_weight=np.where(y == 1, 3.0, 1.0))
    assert np.allclose(weighted.tree_value_, same.tree_value_)
    assert cls(class_weight="balanced").fit(X, y).get_n_leaves() >= 1
    with pytest.raises(ValueError, match="class_weight must be None, 'balanced' or a dict"):
        cls(class_weight="heavy").fit(X, y)


def test_min_samples_leaf_undoes_small_leaves():
    X, y = _data(7)
    for cls in (TopDownClassifier, ID3Classifier):
        clf = cls(min_samples_leaf=20).fit(X, y)
        t = clf.tree_
        assert t.n_node_samples[t.children_left < 0].min() >= 20
    with pytest.raises(ValueError, match="min_samples_leaf must be an integer >= 1, got 0"):
        TopDownClassifier(min_samples_leaf=0).fit(X, y)
    with pytest.raises(ValueError, match="ccp_alpha must be a real number >= 0, got -1"):
        ID3Classifier(ccp_alpha=-1).fit(X, y)


def test_export_text_takes_feature_names():
    X, y = _data(8)
    clf = TopDownClassifier(max_leaf_nodes=3).fit(X, y)
    text = export_text(clf, feature_names=["age", "income", "height", "weight"])
    assert "x0" not in text and ("age" in text or "income" in text)
    with pytest.raises(ValueError, match="feature_names must list one name per input column"):
        export_text(clf, feature_names=["age"])


def test_plot_tree_without_matplotlib_names_the_extra(monkeypatch):
    import sys
    from dtcore.export import plot_tree
    clf = TopDownClassifier(max_leaf_nodes=2).fit(*_data(9))
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'dtcore\[plot\]'"):
        plot_tree(clf)


def test_the_fitted_tree_pickles():
    import pickle
    clf = ID3Classifier().fit(*_data(10))
    again = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(again.tree_.feature, clf.tree_.feature) and str(again.tree_) == str(clf.tree_)


def test_topdown_max_depth_equals_scikit_learns_best_first_tree():
    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, size=(2000, 10)).astype(np.uint8)
    score = X @ rng.normal(size=10) + 0.3 * rng.normal(size=2000)   # real-valued weights: no tied gains
    y = (score > np.median(score)).astype(int)
    for depth, leaves in [(1, 8), (2, 8), (3, 6), (3, 8), (5, 16)]:  # (4, 12) parts at a tie between equal gains
        ours = TopDownClassifier(max_leaf_nodes=leaves, max_depth=depth).fit(X, y)
        theirs = DecisionTreeClassifier(max_leaf_nodes=leaves, max_depth=depth, random_state=0).fit(X, y)
        assert ours.get_depth() <= depth
        assert ours.get_n_leaves() == theirs.get_n_leaves()
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-12)
    three = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))  # k classes: the weighted scorer
    assert TopDownClassifier(max_leaf_nodes=16, max_depth=2).fit(X, three).get_depth() <= 2
    with pytest.raises(ValueError, match="max_depth must be None with batch_size"):
        TopDownClassifier(max_depth=2, batch_size=8).fit(X, y)
