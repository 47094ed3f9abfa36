import numpy as np
import pytest

from dtcore.analysis import influences
from dtcore.cube import all_points, truth_table
from dtcore.functions import (address, majority, nested_decoy_parity, parity, random_tree, random_tree_of_depth,
                              selector_of_lists, threshold, tribes)


def test_known_values():
    X = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1]], dtype=np.uint8)
    assert majority(X).tolist() == [0, 1, 1]
    assert majority(X, [0, 1, 2]).tolist() == [1, 1, 1]
    assert parity(X).tolist() == [0, 1, 1]
    assert tribes(X, 2).tolist() == [1, 1, 1]
    assert tribes(np.array([[1, 0, 0, 1]], dtype=np.uint8), 2).tolist() == [0]
    assert threshold(X, [1, 2, 0, 0], 3).tolist() == [1, 1, 0]


def test_address_reads_the_pointed_bit():
    X = all_points(6)
    a = X[:, 0] + 2 * X[:, 1]
    assert np.array_equal(address(X, 2), X[np.arange(64), 2 + a])
    with pytest.raises(ValueError, match="needs n >= 6"):
        address(X[:, :5], 2)


def test_bad_variables():
    with pytest.raises(ValueError, match="distinct indices"):
        parity(np.zeros((2, 3), dtype=np.uint8), [0, 0])


def test_random_trees_have_the_requested_shape():
    rng = np.random.default_rng(0)
    for size in (1, 2, 7, 32):
        t = random_tree(8, size, rng=rng)
        assert t.size == size and t.is_deterministic
    d = random_tree_of_depth(6, 3, rng=rng)
    assert d.size == 8 and d.depth == 3 and set(d.leaf_depths()) == {3}
    with pytest.raises(ValueError, match="size must be an integer in"):
        random_tree(3, 9, rng=rng)


def test_random_tree_is_seeded():
    a = random_tree(10, 20, rng=np.random.default_rng(5)).truth_table()
    b = random_tree(10, 20, rng=np.random.default_rng(5)).truth_table()
    assert np.array_equal(a, b)


def test_nested_decoy_parity_levels_and_influences():
    X = all_points(7)  # k = 1, t = 2: x0 | a1 b1 d1 | a2 b2 d2
    f = nested_decoy_parity(X, 1, 2)
    inner = np.where((X[:, 1] == 1) & (X[:, 2] == 1), X[:, 0], X[:, 3])
    assert np.array_equal(f, np.where((X[:, 4] == 1) & (X[:, 5] == 1), inner, X[:, 6]))
    inf = influences(truth_table(lambda Y: nested_decoy_parity(Y, 1, 2), 7))
    assert inf[6] == pytest.approx(0.75) and inf[4] == pytest.approx(0.25) and inf[5] == pytest.approx(0.25)
    assert inf[:4].max() < 0.75  # the outer decoy is the most influential variable
    assert np.array_equal(nested_decoy_parity(X[:, :3], 3, 0), parity(X[:, :3]))
    with pytest.raises(ValueError, match="needs n >= 7"):
        nested_decoy_parity(X[:, :6], 1, 2)


def test_decoy_selector_parity_influences_and_explicit_tree():
    from dtcore.functions import decoy_selector_parity, decoy_selector_parity_size, decoy_selector_parity_tree
    k, t = 2, 2
    n = t * (k + 3)
    f = truth_table(lambda Y: decoy_selector_parity(Y, k, t), n)
    inf = influences(f)
    top = slice((t - 1) * (k + 3), (t - 1) * (k + 3) + k)
    assert np.allclose(inf[top], 0.5)                           # the level-t decoys
    assert np.allclose(inf[(t - 1) * (k + 3) + k:], 0.25)       # its selector bits a, c, e
    assert inf[: (t - 1) * (k + 3)].max() <= 0.25 + 1e-12       # everything deeper
    tree = decoy_selector_parity_tree(n, k, t)
    assert np.array_equal(tree.truth_table(), f)
    assert tree.size == decoy_selector_parity_size(k, t) == 2 * 4 + 2 * (2 * 4 + 2)
    X = all_points(4)  # k = 1, t = 1: decoy x0, selectors a = x1, c = x2, e = x3, F_0 = 0
    region = np.where(X[:, 1] == 0, X[:, 2] == 0, X[:, 3] == 0)
    assert np.array_equal(decoy_selector_parity(X, 1, 1), np.where(region, X[:, 0], 0))
    with pytest.raises(ValueError, match="needs n >= 10"):
        decoy_selector_parity(all_points(9), 2, 2)
    with pytest.raises(ValueError, match="n must be >= 10"):
        decoy_selector_parity_tree(9, 2, 2)


def test_nested_decoy_parity_size():
    from dtcore.functions import nested_decoy_parity_size
    assert nested_decoy_parity_size(2, 3) == 7 * 4


# --- selector_of_lists: chapter 5's selector-of-decision-lists target -------------------------
def _reference(x: np.ndarray, s: int, L: int) -> int:
    """The target read off its definition, one point at a time (independent of the tree)."""
    node = 0
    for _ in range(s):  # heap order: selectors 0..2^s - 2, children 2v+1, 2v+2
        node = 2 * node + 1 + int(x[node])
    leaf = node - (2**s - 1)
    first = 2**s - 1 + leaf * L
    for j in range(L):
        if x[first + j]:
            return int(j % 2 == 0)
    return int(L % 2 == 0)


@pytest.mark.parametrize("s, L", [(0, 1), (1, 2), (2, 3), (1, 4)])
def test_matches_definition_on_every_point(s, L):
    n = 2**s - 1 + 2**s * L
    tree = selector_of_lists(n, s, L)
    X = all_points(n)
    expected = np.array([_reference(x, s, L) for x in X])
    np.testing.assert_array_equal(tree.predict(X), expected)
    assert tree.depth == s + L
    assert tree.size == 2**s * (L + 1)


def test_extra_variables_are_ignored():
    tree = selector_of_lists(12, 1, 3)  # uses 7 of 12 variables
    X = all_points(12)
    base = X.copy()
    base[:, 7:] = 0
    np.testing.assert_array_equal(tree.predict(X), tree.predict(base))


@pytest.mark.parametrize("args, name", [((5, 2, 3), "n"), ((20, -1, 3), "selectors"), ((20, 1, 0), "list_length")])
def test_rejects_bad_arguments(args, name):
    with pytest.raises(ValueError, match=name):
        selector_of_lists(*args)
