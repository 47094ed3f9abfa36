"""FIND (Blanc–Lange–Tan 2021, Fig. 2): optimality against brute force and against pystreed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dtcore.cube import all_points
from dtcore.find import find, population_find, training_errors
from dtcore.audit.oracles import all_tree_tables, brute_force_min_errors, count_trees
from dtcore.functions import random_tree_of_depth
from dtcore.tree import DecisionTree


def _data(rng, m, n, noise=0.3):
    X = (rng.random((m, n)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 1 % n]) ^ (rng.random(m) < noise)).astype(np.uint8)
    return X, y


def test_depth_zero_is_majority_constant():
    X = np.zeros((5, 3), np.uint8)
    y = np.array([1, 1, 0, 1, 0], np.uint8)
    r = find(X, y, depth=0)
    assert r.tree.size == 1 and r.tree.predict(X).tolist() == [1] * 5 and r.errors == 2


def test_finds_a_planted_depth2_tree_exactly():
    X = all_points(5)
    y = np.where(X[:, 2] == 1, X[:, 4], 1 - X[:, 0]).astype(np.uint8)
    r = find(X, y, depth=2)
    assert r.errors == 0 and r.tree.depth == 2 and r.tree.feature[0] == 2
    r3 = find(X, y, depth=3)
    assert r3.errors == 0 and r3.tree.depth == 2  # ties go to the smaller tree


def test_parity_needs_full_depth():
    X = all_points(3)
    y = (X.sum(axis=1) % 2).astype(np.uint8)
    assert find(X, y, depth=2).errors == 4 and find(X, y, depth=3).errors == 0


def test_depth3_and_recursive_path_agree_with_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(15):
        X, y = _data(rng, 40, 4)
        for d in (3, 4):
            r = find(X, y, depth=d)
            assert r.errors == brute_force_min_errors(X, y, d)
            assert r.errors == training_errors(r.tree, X, y)
            assert r.tree.depth <= d


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 40), st.integers(0, 3), st.integers(0, 2**31 - 1))  # 0 rows: refused
def test_find_is_optimal_against_every_tree(n, m, d, seed):
    """FIND's training error <= that of every depth-<=d tree (exhaustive enumeration)."""
    if n == 4 and d == 3:
        d = 2
    rng = np.random.default_rng(seed)
    X, y = _data(rng, m, n)
    r = find(X, y, depth=d)
    assert r.tree.depth <= d
    assert r.errors == training_errors(r.tree, X, y)
    assert r.errors == (brute_force_min_errors(X, y, d) if m else 0)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6), st.integers(1, 60), st.integers(0, 2**31 - 1))
def test_more_depth_never_hurts(n, m, seed):
    X, y = _data(np.random.default_rng(seed), m, n)
    errs = [find(X, y, depth=d).errors for d in range(4)]
    assert all(a >= b for a, b in zip(errs, errs[1:]))


@pytest.mark.parametrize("d", [1, 2, 3])
def test_matches_pystreed(d):
    """Cross-check: pystreed's STreeDClassifier(max_depth=d) minimises misclassifications too."""
    from pystreed import STreeDClassifier

    rng = np.random.default_rng(10 + d)
    for n, m in ((8, 500), (12, 1500)):
        X, y = _data(rng, m, n, noise=0.35)
        clf = STreeDClassifier(max_depth=d)
        clf.fit(X, y)
        streed = int((clf.predict(X) != y).sum())
        r = find(X, y, depth=d)
        assert r.errors == streed
        assert training_errors(r.tree, X, y) == streed


def test_sample_weight_equals_duplication():
    rng = np.random.default_rng(5)
    X, y = _data(rng, 30, 4)
    w = rng.integers(0, 4, size=30)
    dup = find(np.repeat(X, w, axis=0), np.repeat(y, w), depth=2).errors
    assert find(X, y, depth=2, sample_weight=w).errors == dup


def test_population_find_matches_brute_force_on_cube():
    rng = np.random.default_rng(2)
    mu = rng.random(16)
    r = population_find(mu, 2)
    tabs = all_tree_tables(4, 2)
    errs = (tabs * (1 - mu) + (1 - tabs) * mu).mean(axis=1)
    assert r.error == pytest.approx(errs.min(), abs=1e-12)


def test_all_tree_tables_and_count():
    tabs = all_tree_tables(2, 2)
    assert tabs.shape == (16, 4)  # every function of 2 variables is a depth-2 tree
    assert all_tree_tables(3, 1).shape[0] == 2 + 3 * 2  # constants + x_i, not x_i
    assert count_trees(2, 1) == 2 + 2 * 4
    assert count_trees(3, 2) == 2 + 3 * (2 + 2 * 4) ** 2


def test_returned_tree_is_valid():
    rng = np.random.default_rng(8)
    X, y = _data(rng, 400, 7)
    t = find(X, y, depth=4).tree
    assert isinstance(t, DecisionTree) and t.is_deterministic and t.depth <= 4


@pytest.mark.parametrize("bad", [{"depth": -1}, {"depth": 1.5}])
def test_bad_depth(bad):
    with pytest.raises(ValueError, match="depth"):
        find(np.zeros((3, 2), np.uint8), np.zeros(3, np.uint8), **bad)


def test_bad_inputs():
    with pytest.raises(ValueError, match="y"):
        find(np.zeros((3, 2), np.uint8), np.zeros(4, np.uint8), depth=1)
    with pytest.raises(ValueError, match="X"):
        find(np.full((3, 2), 2), np.zeros(3, np.uint8), depth=1)
    with pytest.raises(ValueError, match="sample_weight"):
        find(np.zeros((3, 2), np.uint8), np.zeros(3, np.uint8), depth=1, sample_weight=[1, -1, 1])


# --- ties: the smallest optimal tree ------------------------------------------------------------
def _tables_with_sizes(n: int, depth: int):
    """Every function computed by a tree of depth <= ``depth`` on n variables, with the fewest leaves
    of such a tree and, among those, the least depth (exhaustive; independent of FIND)."""
    pts = all_points(n)
    consts = np.stack([np.zeros(2**n, np.uint8), np.ones(2**n, np.uint8)])

    def reduce(tabs, leaves, depths):
        order = np.lexsort((depths, leaves))                      # fewest leaves, then shallowest
        tabs, leaves, depths = tabs[order], leaves[order], depths[order]
        _, first = np.unique(tabs, axis=0, return_index=True)
        return tabs[first], leaves[first], depths[first]

    def trees(d, free):
        out = [(consts, np.ones(2, np.int64), np.zeros(2, np.int64))]
        if d > 0:
            for i in free:
                T, L, D = trees(d - 1, tuple(j for j in free if j != i))
                k = T.shape[0]
                left, right = np.repeat(np.arange(k), k), np.tile(np.arange(k), k)
                out.append((np.where(pts[:, i][None, :] == 1, T[right], T[left]), L[left] + L[right],
                            1 + np.maximum(D[left], D[right])))
        return reduce(*(np.concatenate(parts) for parts in zip(*out)))

    return trees(depth, tuple(range(n)))


def _smallest_optimum(X, y, depth):
    from dtcore.cube import point_index

    tabs, leaves, depths = _tables_with_sizes(X.shape[1], depth)
    idx = point_index(X)
    n1 = np.bincount(idx[y == 1], minlength=tabs.shape[1])
    n0 = np.bincount(idx[y == 0], minlength=tabs.shape[1])
    errs = tabs.astype(np.int64) @ n0 + (1 - tabs.astype(np.int64)) @ n1
    best = np.lexsort((depths, leaves, errs))[0]
    return int(errs[best]), int(leaves[best]), int(depths[best])


def _has_redundant_split(tree: DecisionTree) -> bool:
    """True when some query node has two subtrees computing the same function."""
    def signature(node):
        if tree.feature[node] == -1:
            return ("leaf", tree.value[node])
        return (tree.feature[node], signature(tree.child0[node]), signature(tree.child1[node]))

    return any(tree.feature[v] >= 0 and signature(tree.child0[v]) == signature(tree.child1[v])
               for v in range(tree.node_count))


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 4), st.integers(1, 60), st.integers(0, 3), st.integers(0, 2**31 - 1),
       st.sampled_from([0.0, 0.1, 0.3, 0.5]))
def test_find_returns_the_smallest_optimal_tree(n, m, d, seed, noise):
    """Least error, then fewest leaves, then least depth: equal to exhaustive search over trees."""
    rng = np.random.default_rng(seed)
    X, y = _data(rng, m, n, noise)
    r = find(X, y, depth=d)
    assert (r.errors, r.tree.size, r.tree.depth) == _smallest_optimum(X, y, min(d, n))
    assert not _has_redundant_split(r.tree)


@pytest.mark.parametrize("d", [3, 4])
def test_find_ties_on_the_issue_example(d):
    """(x0 and x3) xor x7 on 5000 x 20 with 5% noise: the optimum is the 6-leaf tree, no redundant split."""
    rng = np.random.default_rng(0)
    X = (rng.random((5000, 20)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 3]) ^ X[:, 7] ^ (rng.random(5000) < 0.05)).astype(np.uint8)
    r = find(X, y, depth=d)
    assert r.errors == training_errors(r.tree, X, y)
    assert r.tree.size == 6 and r.tree.depth == 3 and not _has_redundant_split(r.tree)
    sub = X[:, [0, 3, 7]]
    assert (r.errors, r.tree.size, r.tree.depth) == _smallest_optimum(sub, y, 3)


@pytest.mark.parametrize("d, n, m", [(4, 8, 600), (4, 10, 400), (5, 7, 500)])
def test_deep_find_with_derived_counts_matches_pystreed(d, n, m):
    """Depth >= 4 splits depth-3 subproblems with sibling-subtracted triple counts: still optimal
    (pystreed's error), still the smallest optimal tree under exact and under float weights."""
    from pystreed import STreeDClassifier

    rng = np.random.default_rng(20 + d + n)
    X = (rng.random((m, n)) < 0.5).astype(np.uint8)
    y = (random_tree_of_depth(n, d, rng=rng).predict(X).astype(np.uint8) ^ (rng.random(m) < 0.15)).astype(np.uint8)
    clf = STreeDClassifier(max_depth=d, cost_complexity=0.0, random_seed=0).fit(X, y)
    r = find(X, y, depth=d)
    assert r.errors == training_errors(r.tree, X, y) == int((clf.predict(X) != y).sum())
    assert not _has_redundant_split(r.tree)
    weighted = find(X, y, depth=d, sample_weight=np.full(m, 0.37))        # the float64 counting path
    assert np.isclose(weighted.errors, 0.37 * r.errors)
    assert (weighted.tree.size, weighted.tree.depth) == (r.tree.size, r.tree.depth)


# --- the signed-count kernels return the reference implementation's very tree -------------------
def _signature(tree: DecisionTree, node: int = 0):
    if tree.feature[node] < 0:
        return ("leaf", float(tree.value[node]))
    return (int(tree.feature[node]), _signature(tree, tree.child0[node]), _signature(tree, tree.child1[node]))


def _tie_prone_data(rng, m, n, kind):
    """Random small data with the structures that make ties: duplicate and constant columns,
    few rows, balanced labels, integer weights (some zero)."""
    X = (rng.random((m, n)) < rng.random(n)).astype(np.uint8)
    if kind == "duplicate" and n > 1:
        X[:, rng.integers(1, n)] = X[:, 0]
    if kind == "constant":
        X[:, rng.integers(0, n)] = rng.integers(0, 2)
    noise = rng.choice([0.0, 0.1, 0.3, 0.5])
    y = ((X[:, 0] & X[:, -1]) ^ (rng.random(m) < noise)).astype(np.uint8)
    weight = rng.integers(0, 4, m).astype(float) if kind == "weighted" else None
    return X, y, weight


# the counting strategies the size budgets choose between, forced on small inputs
_STRATEGIES = {
    "default": {},
    "streamed triples, per-feature counts, one root per batch": {
        "_WHOLE_TRIPLES": 0, "_PAIR_PRODUCT_BUDGET": 0, "_TRIPLE_BATCH_BUDGET": 1},
    "pair products in chunks of a few rows": {"_PAIR_PRODUCT_BUDGET": 200},
}


@pytest.mark.parametrize("strategy", list(_STRATEGIES))
@settings(max_examples=70, deadline=None)
@given(st.integers(1, 7), st.integers(1, 70), st.integers(0, 5), st.integers(0, 2**31 - 1),
       st.sampled_from(["plain", "duplicate", "constant", "weighted"]))
def test_find_returns_the_reference_tree(strategy, n, m, d, seed, kind):
    """Same error and the same tree, node for node, as the implementation before the kernels."""
    import dtcore.find as find_module
    from tests.reference_find import reference_find

    X, y, weight = _tie_prone_data(np.random.default_rng(seed), m, n, kind)
    if weight is not None and not (weight > 0).any():  # all weights zero: refused, nothing to fit
        with pytest.raises(ValueError, match="sample_weight must have at least one positive entry"):
            find(X, y, depth=d, sample_weight=weight)
        return
    saved = {name: getattr(find_module, name) for name in _STRATEGIES[strategy]}
    try:
        for name, value in _STRATEGIES[strategy].items():
            setattr(find_module, name, value)
        r = find(X, y, depth=d, sample_weight=weight)
    finally:
        for name, value in saved.items():
            setattr(find_module, name, value)
    errors, tree = reference_find(X, y, d, weight)
    assert r.errors == errors
    assert _signature(r.tree) == _signature(tree)


def test_find_on_wide_binarised_data_matches_the_reference():
    """Breast cancer at 4 quantile cuts per column (the wide case: triple counts streamed)."""
    from sklearn.datasets import load_breast_cancer
    from dtcore.estimators import ThresholdBinarizer
    from tests.reference_find import reference_find

    X, y = load_breast_cancer(return_X_y=True)
    Xb = ThresholdBinarizer(4).fit(X[:300]).transform(X[:300])
    for d in (2, 3):
        r = find(Xb, y[:300], depth=d)
        errors, tree = reference_find(Xb, y[:300], d)
        assert r.errors == errors and _signature(r.tree) == _signature(tree)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(1, 60), st.integers(0, 4), st.integers(0, 2**31 - 1))
def test_real_valued_weights_keep_the_reference_choices(n, m, d, seed):
    """Real-valued weights (population_find's) decide near-equal errors by float sums: the tree is
    the reference's, and no split queries a variable fixed on its path."""
    from tests.reference_find import reference_find

    rng = np.random.default_rng(seed)
    X, y = _data(rng, m, n)
    weight = rng.random(m) / 2**n
    r = find(X, y, depth=d, sample_weight=weight)
    errors, tree = reference_find(X, y, d, weight)
    assert r.errors == errors and _signature(r.tree) == _signature(tree)
    mu = rng.random(2**min(n, 4))
    assert population_find(mu, min(d, 3)).tree.depth <= min(d, 3)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 60), st.integers(0, 4), st.integers(2, 4), st.integers(0, 2**31 - 1),
       st.sampled_from(["unit", "integer", "real"]))
def test_multiclass_find_keeps_the_reference_choices(n, m, d, k, seed, kind):
    """k classes through the one search: the same error and the same tree, node for node, as the
    k-class FIND before it (its own recursion, tolerance ties)."""
    from dtcore.multiclass import class_weights, multiclass_find
    from tests.reference_find import reference_multiclass_find

    rng = np.random.default_rng(seed)
    X, _ = _data(rng, m, n)
    y = rng.integers(0, k, m)
    w = None if kind == "unit" else rng.integers(1, 4, m).astype(float) if kind == "integer" else rng.random(m) + 0.01
    r = multiclass_find(X, y, k, depth=d, sample_weight=w)
    Y = class_weights(y, k, w)
    errors, structure = reference_multiclass_find(X, np.arange(m), Y, d)
    assert r.errors == float(errors)
    assert _class_signature(r.tree, r.leaf_class) == _structure_signature(structure)


def _class_signature(tree: DecisionTree, leaf_class: np.ndarray, node: int = 0):
    if tree.feature[node] < 0:
        return ("leaf", int(leaf_class[node]))
    return (int(tree.feature[node]), _class_signature(tree, leaf_class, tree.child0[node]),
            _class_signature(tree, leaf_class, tree.child1[node]))


def _structure_signature(structure):
    if structure[0] == "leaf":
        return ("leaf", int(structure[1]))
    return (int(structure[1]), _structure_signature(structure[2]), _structure_signature(structure[3]))


@pytest.mark.parametrize("seed", range(8))
def test_multiclass_depth3_kernel_keeps_the_reference_choices_on_binarised_data(seed):
    """The k-class depth-3 kernel (per-class pair counts, halves in batches, roots skipped by class-count
    bounds and by nested halves) returns the reference's error and tree, node for node, on quantile
    cuts of real columns (nested features) with 3 to 6 classes, unit and integer weights."""
    from dtcore.estimators import ThresholdBinarizer
    from dtcore.multiclass import class_weights, multiclass_find
    from tests.reference_find import reference_multiclass_find

    rng = np.random.default_rng(700 + seed)
    m, p, k = int(rng.integers(40, 160)), int(rng.integers(2, 5)), int(rng.integers(3, 7))
    Xr = rng.normal(size=(m, p))
    noisy = Xr[:, 0] + 0.5 * Xr[:, -1] + rng.normal(scale=0.5, size=m)
    y = np.digitize(noisy, np.linspace(-1.5, 1.5, k - 1)).astype(np.int64)
    X = ThresholdBinarizer(int(rng.integers(3, 7))).fit(Xr).transform(Xr)
    w = None if seed % 2 else rng.integers(1, 4, m).astype(float)
    r = multiclass_find(X, y, k, depth=3, sample_weight=w)
    errors, structure = reference_multiclass_find(X, np.arange(m), class_weights(y, k, w), 3)
    assert r.errors == float(errors)
    assert _class_signature(r.tree, r.leaf_class) == _structure_signature(structure)
