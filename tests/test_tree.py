import numpy as np
import pytest

from dtcore.cube import ProductDistribution, all_points
from dtcore.tree import DecisionTree


def small_tree():
    t = DecisionTree(3)
    a, b = t.split(0, 1)
    c, d = t.split(b, 0)
    t.set_value(a, 0)
    t.set_value(c, 1)
    t.set_value(d, 0)
    return t  # x1 ? (x0 ? 0 : 1) : 0


def test_structure():
    t = small_tree()
    assert t.size == 3 and t.depth == 2
    assert t.leaves() == [1, 3, 4]
    assert t.leaf_restrictions().tolist() == [[-1, 0, -1], [0, 1, -1], [1, 1, -1]]
    assert t.leaf_depths().tolist() == [1, 2, 2]


def test_predict_matches_definition():
    t = small_tree()
    X = all_points(3)
    expected = ((X[:, 1] == 1) & (X[:, 0] == 0)).astype(np.uint8)
    assert np.array_equal(t.predict(X), expected)
    assert np.array_equal(t.truth_table(), expected)
    assert np.array_equal(t.apply(X), np.where(X[:, 1] == 0, 1, np.where(X[:, 0] == 0, 3, 4)))


def test_leaf_probabilities_and_average_depth():
    t = small_tree()
    d = ProductDistribution([0.2, 0.6, 0.5])
    assert np.allclose(t.leaf_probabilities(d), [0.4, 0.6 * 0.8, 0.6 * 0.2])
    assert t.average_depth(d) == pytest.approx(0.4 * 1 + 0.6 * 2)
    assert t.average_depth() == pytest.approx(1.5)


def test_stochastic_node_mean_and_sampling():
    t = DecisionTree(2)
    a, b = t.split(0, 0)
    c, d = t.split_stochastic(b, 0.3)
    t.set_value(a, 0)
    t.set_value(c, 0)
    t.set_value(d, 1)
    X = np.array([[0, 0], [1, 1]], dtype=np.uint8)
    assert np.allclose(t.predict_proba(X), [0.0, 0.3])
    with pytest.raises(ValueError, match="rng must be"):
        t.predict(X)
    draws = t.predict(np.repeat(X[1:], 20000, axis=0), rng=np.random.default_rng(0))
    assert abs(draws.mean() - 0.3) < 0.02
    assert not t.is_deterministic and t.has_stochastic_nodes


def test_invalid_operations():
    t = small_tree()
    with pytest.raises(ValueError, match="node must be a leaf"):
        t.split(0, 2)
    with pytest.raises(ValueError, match="already queried"):
        t.split(3, 1)
    with pytest.raises(ValueError, match="feature must be an integer in"):
        t.split(3, 3)
    with pytest.raises(ValueError, match="value must be in"):
        t.set_value(3, 1.5)
    with pytest.raises(ValueError, match="branch_prob must be in"):
        t.split_stochastic(3, -0.1)
    with pytest.raises(ValueError, match="columns"):
        t.predict(np.zeros((2, 4), dtype=np.uint8))


def test_text_and_drawing():
    import matplotlib

    matplotlib.use("Agg")
    t = small_tree()
    text = t.to_text()
    assert text.splitlines()[0] == "x1?" and "leaf: 1" in text
    ax = t.draw()
    assert len(ax.texts) >= 5
    c = t.copy()
    c.split(1, 2)
    assert t.size == 3 and c.size == 4


def test_public_restriction_api_and_relabelling():
    from dtcore.cube import all_points
    from dtcore.functions import random_tree
    rng = np.random.default_rng(3)
    tree = random_tree(6, 9, rng=rng)
    for node in range(tree.node_count):
        r = tree.restriction(node)
        r[:] = 0  # a copy: the tree is untouched
        assert tree.restriction_key(node) == tree.restriction_key(node)
    keys = {tree.restriction_key(v) for v in tree.leaves()}
    assert len(keys) == tree.size
    perm = rng.permutation(6)
    X = all_points(6)
    moved = tree.relabel_features(perm)
    np.testing.assert_array_equal(moved.predict(X), tree.predict(X[:, perm]))
    np.testing.assert_array_equal(moved.leaf_restrictions()[:, perm], tree.leaf_restrictions())
    with pytest.raises(ValueError, match="perm must be a permutation"):
        tree.relabel_features([0, 0, 1, 2, 3, 4])
