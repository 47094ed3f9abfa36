"""Tests for dtcore.id3 (Brutzkus–Daniely–Malach 2020, Algorithm 1) and dtcore.impurity."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.tree import DecisionTreeClassifier

from dtcore.cube import ProductDistribution
from dtcore.functions import junta, junta_tree, parity, random_junta
from dtcore.id3 import gains, id3
from dtcore.audit.compare import paths_reuse_no_feature
from dtcore.tree import tree_disagreement
from dtcore.impurity import entropy, gini, kearns_mansour, lipschitz_constant, strong_concavity
from dtcore.smoothed import alpha_c_distribution, empirical_covariance
from dtcore.tree import DecisionTree




# --- impurities --------------------------------------------------------------------------
def test_impurity_values():
    assert gini(0.5) == 1.0 and entropy(0.5) == 1.0 and kearns_mansour(0.5) == 1.0
    for C in (gini, entropy, kearns_mansour):
        assert C(0.0) == 0.0 and C(1.0) == 0.0
        assert np.isclose(C(0.2), C(0.8))
    assert np.isclose(gini(0.25), 0.75)
    assert np.isclose(entropy(0.25), 0.25 * 2 + 0.75 * np.log2(4 / 3))


@pytest.mark.parametrize("name,C", [("gini", gini), ("entropy", entropy), ("kearns_mansour", kearns_mansour)])
def test_strong_concavity_constant(name, C):
    beta = strong_concavity(name)
    rng = np.random.default_rng(1)
    a, b, t = rng.random((3, 20000))
    lhs = C(t * a + (1 - t) * b)
    rhs = t * C(a) + (1 - t) * C(b) + beta / 2 * t * (1 - t) * (a - b) ** 2
    assert np.all(lhs >= rhs - 1e-12)
    # beta is tight: a larger constant fails near p = 1/2
    a, b, t = 0.49, 0.51, 0.5
    assert C(0.5) < t * C(a) + (1 - t) * C(b) + 1.05 * beta / 2 * 0.25 * (a - b) ** 2


def test_lipschitz_constants_and_entropy_caveat():
    assert lipschitz_constant("gini") == 4.0
    assert lipschitz_constant("entropy") == np.inf and lipschitz_constant("kearns_mansour") == np.inf
    for name, C in (("gini", gini), ("entropy", entropy), ("kearns_mansour", kearns_mansour)):
        eta = 0.05
        g = lipschitz_constant(name, eta)
        x = np.linspace(eta, 1 - eta, 2001)
        slopes = np.abs(np.diff(C(x)) / np.diff(x))
        assert slopes.max() <= g + 1e-9
        assert slopes.max() >= 0.95 * g  # and it is nearly attained
    with pytest.raises(ValueError, match="eta"):
        lipschitz_constant("entropy", 0.6)
    with pytest.raises(ValueError, match="impurity"):
        strong_concavity("misclassification")


# --- gains and the deterministic cores of Lemmas 5 and 6 -----------------------------------
def test_gain_known_values():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.uint8)
    y = np.array([0, 0, 1, 1], dtype=np.uint8)
    g = gains(X, y, "gini")
    assert g[0] == pytest.approx(1.0) and g[1] == pytest.approx(0.0)
    y = np.array([0, 1, 1, 0], dtype=np.uint8)  # XOR: Kearns' observation in miniature
    assert np.allclose(gains(X, y, "entropy"), 0.0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["gini", "entropy"]))
def test_gain_sandwiched_by_covariance(seed, name):
    """On any sample: (beta/2) I(S,i)^2 / (p(1-p)) <= Gain(S,i) (Lemma 6 core) and, for Gini,
    Gain(S,i) <= 2 gamma |I(S,i)| (Lemma 5 core)."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(2, 60)), int(rng.integers(1, 6))
    X = (rng.random((m, n)) < rng.random(n)).astype(np.uint8)
    y = (rng.random(m) < 0.5).astype(np.uint8)
    g = gains(X, y, name)
    I = empirical_covariance(X, y)
    pbar = X.mean(axis=0)
    inner = (pbar > 0) & (pbar < 1)
    lower = strong_concavity(name) / 2 * I[inner] ** 2 / (pbar[inner] * (1 - pbar[inner]))
    assert np.all(g[inner] >= lower - 1e-12)
    if name == "gini":
        assert np.all(g <= 2 * lipschitz_constant("gini") * np.abs(I) + 1e-12)


# --- ID3 ---------------------------------------------------------------------------------
def test_id3_learns_and_function_small():
    X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], dtype=np.uint8)
    y = (X[:, 0] & X[:, 2]).astype(np.uint8)
    res = id3(X, y, impurity="gini", trace=True)
    assert res.tree.feature[0] in (0, 2)
    assert res.tree.size == 3 and set(res.tree.feature) - {-1} == {0, 2}
    assert np.array_equal(res.tree.predict(X), y)
    assert len(res.trace) == 2 and res.trace[0].size == 8


def test_id3_pure_sample_is_leaf_and_rules():
    X = np.array([[0, 1], [1, 1]], dtype=np.uint8)
    assert id3(X, np.array([1, 1], dtype=np.uint8)).tree.size == 1
    assert id3(X, np.array([1, 1], dtype=np.uint8)).tree.value[0] == 1.0
    # exhausted features: two identical points with different labels -> majority leaf (tie -> 1)
    Xd = np.array([[0], [0], [1]], dtype=np.uint8)
    res = id3(Xd, np.array([0, 1, 0], dtype=np.uint8))
    assert res.exhausted_leaves == 1 and res.tree.size == 2
    assert res.tree.predict(np.array([[0]], dtype=np.uint8))[0] == 1
    # empty branch: feature 1 is constant, chosen when every gain is 0; empty child gets parent majority
    Xe = np.array([[0, 1], [0, 1], [0, 1]], dtype=np.uint8)
    res = id3(Xe, np.array([0, 1, 1], dtype=np.uint8))
    assert res.empty_leaves >= 1 and res.exhausted_leaves >= 1
    assert paths_reuse_no_feature(res.tree)


def test_id3_feature_subset_and_bad_inputs():
    X = np.array([[0, 0], [1, 1], [0, 1], [1, 0]], dtype=np.uint8)
    y = X[:, 0].copy()
    res = id3(X, y, features=[1])
    assert set(res.tree.feature) - {-1} == {1}
    with pytest.raises(ValueError, match="features"):
        id3(X, y, features=[2])
    with pytest.raises(ValueError, match="y"):
        id3(X, y[:3])
    with pytest.raises(ValueError, match="X"):
        id3(np.zeros((0, 2), dtype=np.uint8), np.zeros(0, dtype=np.uint8))
    with pytest.raises(ValueError, match="impurity"):
        id3(X, y, impurity="misclassification")
    with pytest.raises(ValueError, match="X"):
        id3(X * 2, y)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["gini", "entropy", "kearns_mansour"]))
def test_id3_fits_functional_labels_and_never_reuses(seed, name):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 80)), int(rng.integers(1, 8))
    X = (rng.random((m, n)) < 0.5).astype(np.uint8)
    table = rng.integers(0, 2, size=2**n).astype(np.uint8)
    y = junta(X, np.arange(n), table)  # labels a function of the features
    res = id3(X, y, impurity=name)
    assert np.array_equal(res.tree.predict(X), y)
    assert res.exhausted_leaves == 0
    assert paths_reuse_no_feature(res.tree)


def test_paths_reuse_detector_detects():
    t = DecisionTree(3)
    c0, _ = t.split(0, 1)
    t.split(c0, 2)
    assert paths_reuse_no_feature(t)
    t.feature[c0] = 1  # corrupt: x1 twice on a path
    assert not paths_reuse_no_feature(t)


def test_id3_deterministic():
    rng = np.random.default_rng(3)
    X = (rng.random((500, 12)) < 0.4).astype(np.uint8)
    y = parity(X, [1, 4, 7])
    a, b = id3(X, y).tree, id3(X, y).tree
    assert a.feature == b.feature and a.value == b.value


# --- exact error -------------------------------------------------------------------------
def test_tree_disagreement_exact_against_enumeration():
    from dtcore.cube import all_points
    rng = np.random.default_rng(5)
    n = 6
    dist = ProductDistribution(rng.uniform(0.1, 0.9, n))
    J, t = random_junta(n, 3, rng=rng)
    X = dist.sample(40, rng=rng)
    tree = id3(X, junta(X, J, t)).tree
    P = all_points(n)
    w = dist.point_weights()
    brute = float(w @ (tree.predict(P) != junta(P, J, t)))
    assert tree_disagreement(tree, junta_tree(n, J, t), dist) == pytest.approx(brute, abs=1e-12)
    assert tree_disagreement(junta_tree(n, J, t), junta_tree(n, J, t), dist) == 0.0


# --- cross-check against scikit-learn ---------------------------------------------------
@pytest.mark.parametrize("name,criterion", [("gini", "gini"), ("entropy", "entropy")])
def test_root_split_matches_sklearn(name, criterion):
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(40):
        n = int(rng.integers(3, 12))
        dist = ProductDistribution(rng.uniform(0.15, 0.85, n))
        X = dist.sample(int(rng.integers(50, 400)), rng=rng)
        y = (rng.random(X.shape[0]) < 0.2 + 0.6 * X[:, rng.integers(n)]).astype(np.uint8)
        g = np.sort(gains(X, y, name))
        if g[-1] - g[-2] < 1e-9:  # tie-free data only
            continue
        ours = id3(X, y, impurity=name).tree.feature[0]
        sk = DecisionTreeClassifier(criterion=criterion, max_depth=1, random_state=0).fit(X, y)
        assert ours == sk.tree_.feature[0]
        checked += 1
    assert checked >= 30


def test_parity_success_and_failure_agree_with_sklearn():
    rng = np.random.default_rng(2)
    n, k, m = 16, 3, 4000
    J, t = random_junta(n, k, rng=rng, kind="parity")
    target = junta_tree(n, J, t)
    for dist, should_learn in ((alpha_c_distribution(n, 0.1, 0.15, rng=rng), True),
                               (ProductDistribution.uniform(n), False)):
        X = dist.sample(m, rng=rng)
        y = junta(X, J, t)
        ours = tree_disagreement(id3(X, y, impurity="entropy").tree, target, dist)
        Xt = dist.sample(20000, rng=rng)
        sk = DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y)
        sk_err = float(np.mean(sk.predict(Xt) != junta(Xt, J, t)))
        assert (ours == 0.0) == should_learn
        assert (sk_err < 0.01) == should_learn


# --- level-wise ID3 = the depth-first recursion it replaced ----------------------------------
def _gain_from_counts(N, ny, n1, n11, C):
    """The former one-node gain of dtcore.id3, kept verbatim for the reference below."""
    n0 = N - n1
    n01 = ny - n11
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = np.where(n1 > 0, n11 / np.maximum(n1, 1), 0.0)
        r0 = np.where(n0 > 0, n01 / np.maximum(n0, 1), 0.0)
    q = n1 / N
    return C(np.float64(ny / N)) - (q * C(r1) + (1.0 - q) * C(r0))


def _reference_id3(X, y, impurity="gini", features=None):
    """The former depth-first implementation of ID3 (one NumPy body per node), kept verbatim as the
    reference the level-wise growth must reproduce node for node (ids, values, trace, counters)."""
    from dtcore.id3 import ID3Node, ID3Result, _counts, _impurity, _majority

    m, n = X.shape
    C = _impurity(impurity)
    available = np.zeros(n, dtype=bool)
    if features is None:
        available[:] = True
    else:
        available[np.asarray(features, dtype=np.int64)] = True
    tree = DecisionTree(n)
    trace, empty, exhausted = [], 0, 0
    stack = [(0, np.arange(m), _majority(int(y.sum()), m))]
    while stack:
        node, rows, parent_majority = stack.pop()
        if rows.size == 0:
            tree.set_value(node, parent_majority)
            empty += 1
            continue
        Xs, ys = X[rows], y[rows]
        N, ny, n1, n11 = _counts(Xs, ys)
        if ny == 0 or ny == N:
            tree.set_value(node, float(ny == N))
            continue
        A = available & (tree.restriction(node) < 0)
        if not A.any():
            tree.set_value(node, _majority(ny, N))
            exhausted += 1
            continue
        g = np.where(A, _gain_from_counts(N, ny, n1, n11, C), np.nan)
        j = int(np.argmax(np.where(A, g, -np.inf) >= np.nanmax(g) - 1e-12))  # ties: smallest index
        trace.append(ID3Node(node, tree.restriction(node), N, ny, g, n11 / N - (ny / N) * (n1 / N), j))
        c0, c1 = tree.split(node, j)
        right = Xs[:, j] == 1
        maj = _majority(ny, N)
        tree.set_value(c0, maj)
        tree.set_value(c1, maj)
        stack.append((c0, rows[~right], maj))
        stack.append((c1, rows[right], maj))
    return ID3Result(tree, trace, empty, exhausted)


def _assert_same_run(a, b):
    ta, tb = a.tree, b.tree
    assert (ta.feature, ta.child0, ta.child1, ta.value) == (tb.feature, tb.child0, tb.child1, tb.value)
    assert (a.empty_leaves, a.exhausted_leaves) == (b.empty_leaves, b.exhausted_leaves)
    assert len(a.trace) == len(b.trace)
    for p, q in zip(a.trace, b.trace):
        assert (p.node, p.size, p.positives, p.feature) == (q.node, q.size, q.positives, q.feature)
        assert np.array_equal(p.restriction, q.restriction)
        assert np.array_equal(p.gains, q.gains, equal_nan=True)
        assert np.array_equal(p.covariance, q.covariance)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["gini", "entropy", "kearns_mansour"]))
def test_levelwise_id3_builds_the_depth_first_tree(seed, name):
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 400)), int(rng.integers(1, 20))
    X = (rng.random((m, n)) < rng.random()).astype(np.uint8)
    if rng.random() < 0.5:                         # duplicated columns: exact gain ties
        X[:, int(rng.integers(0, n))] = X[:, 0]
    if rng.random() < 0.5:                         # structured labels with noise, else random
        y = (X[:, 0] ^ X[:, min(1, n - 1)] ^ (rng.random(m) < 0.1)).astype(np.uint8)
    else:
        y = (rng.random(m) < rng.random()).astype(np.uint8)
    features = None
    if rng.random() < 0.3:
        features = sorted(rng.choice(n, int(rng.integers(0, n + 1)), replace=False).tolist())
    _assert_same_run(id3(X, y, impurity=name, features=features, trace=True), _reference_id3(X, y, name, features))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["gini", "entropy"]), st.integers(1, 50))
def test_levelwise_id3_many_words_and_gain_blocks(seed, name, gain_block):
    """More than 64 features (several packed words per row) and gains computed a few nodes at a
    time (untraced runs): still the depth-first tree, node for node."""
    import dtcore.id3 as id3_module
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 300)), int(rng.integers(60, 140))
    X = (rng.random((m, n)) < rng.random()).astype(np.uint8)
    X[:, int(rng.integers(0, n))] = X[:, n - 1]                 # exact gain ties across words
    y = (X[:, 0] ^ X[:, n - 1] ^ (rng.random(m) < 0.2)).astype(np.uint8)
    saved = id3_module._GAIN_BLOCK
    try:
        id3_module._GAIN_BLOCK = gain_block * n
        res = id3(X, y, impurity=name)
    finally:
        id3_module._GAIN_BLOCK = saved
    ref = _reference_id3(X, y, name)
    ta, tb = res.tree, ref.tree
    assert (ta.feature, ta.child0, ta.child1, ta.value) == (tb.feature, tb.child0, tb.child1, tb.value)
    assert (res.empty_leaves, res.exhausted_leaves) == (ref.empty_leaves, ref.exhausted_leaves)


def test_levelwise_id3_long_blocks_and_unpadded_width():
    # blocks longer than a 16-bit lane (65535 rows) and a width that is not a multiple of 8
    rng = np.random.default_rng(3)
    X = (rng.random((140_000, 11)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 3]) ^ X[:, 5] ^ (rng.random(140_000) < 0.2)).astype(np.uint8)
    _assert_same_run(id3(X, y, impurity="entropy", trace=True), _reference_id3(X, y, "entropy"))


def test_id3_max_depth():
    rng = np.random.default_rng(4)
    X = (rng.random((3000, 12)) < 0.5).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1] ^ X[:, 2] ^ (rng.random(3000) < 0.1)).astype(np.uint8)
    full = id3(X, y)
    assert id3(X, y, depth=None).tree.feature == full.tree.feature
    assert id3(X, y, depth=100).tree.feature == full.tree.feature
    for d in (0, 1, 3, 5):
        res = id3(X, y, depth=d)
        assert res.tree.depth <= d
        assert res.depth_limited_leaves > 0
        # the first d levels are those of the unlimited tree: same splits on every path of length < d
        leaves = res.tree.leaf_restrictions()
        assert {tuple(r) for r in leaves} <= {tuple(r) for r in _levels(full.tree, d)}
        # a depth-limited leaf predicts the majority label of its rows (ties -> 1)
        leaf_of_row = res.tree.apply(X)
        for leaf in res.tree.leaves():
            rows = leaf_of_row == leaf
            if rows.any():
                assert res.tree.value[leaf] == float(2 * y[rows].sum() >= rows.sum())
    assert id3(X, y, depth=0).tree.size == 1
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="depth"):
            id3(X, y, depth=bad)


def _levels(tree, d):
    """Restrictions of the nodes of ``tree`` at depth d and of its leaves above depth d."""
    out = []
    for node in range(tree.node_count):
        depth = tree.node_depth[node]
        if depth == d or (depth < d and tree.feature[node] == -1):
            out.append(tree.restriction(node))
    return out


def test_agreement_up_to_ties_with_sklearn():
    from dtcore.audit.compare import agreement_up_to_ties
    from dtcore.audit.compare import tree_from_sklearn

    rng = np.random.default_rng(7)
    X = (rng.random((4000, 15)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 3]) ^ X[:, 5] ^ (rng.random(4000) < 0.1)).astype(np.uint8)
    ours = id3(X, y, impurity="gini").tree
    for seed in range(3):
        clf = DecisionTreeClassifier(random_state=seed).fit(np.asfortranarray(X, dtype=np.float32), y)
        theirs = tree_from_sklearn(clf, 15)
        assert np.array_equal(theirs.predict(X), clf.predict(X))
        agreement = agreement_up_to_ties(ours, theirs, X, y, "gini")
        assert agreement.same and agreement.matched > 100
    # a tree that splits on a worse feature at the root is a difference, not a tie
    other = DecisionTree(15)
    c0, c1 = other.split(0, 14)
    assert not agreement_up_to_ties(ours, other, X, y, "gini").same
    assert agreement_up_to_ties(ours, ours, X, y).differences == 0
    # a duplicated column gives an exact tie at the root
    Xd = np.concatenate([X[:, [5]], X], axis=1)
    a, b = id3(Xd, y).tree, id3(Xd, y, features=list(range(1, 16))).tree
    res = agreement_up_to_ties(a, b, Xd, y)
    assert res.same and res.ties >= 1


def test_agreement_counts_even_majorities_and_rounding_as_ties():
    from dtcore.audit.compare import agreement_up_to_ties
    from dtcore.audit.compare import tree_from_sklearn

    for seed in range(4):
        rng = np.random.default_rng(seed)
        X = (rng.random((3000, 8)) < 0.5).astype(np.uint8)      # many repeated points: impure leaves
        y = ((X[:, 0] & X[:, 3]) ^ X[:, 5] ^ (rng.random(3000) < 0.3)).astype(np.uint8)
        clf = DecisionTreeClassifier(random_state=seed).fit(np.asfortranarray(X, dtype=np.float32), y)
        res = agreement_up_to_ties(id3(X, y).tree, tree_from_sklearn(clf, 8), X, y)
        assert res.same and res.ties > 0


def test_decision_tree_from_arrays_equals_split_by_split():
    """DecisionTree.from_arrays (used by the level-wise ID3) builds what split/set_value build."""
    from dtcore.functions import random_tree

    ref = random_tree(9, 40, rng=np.random.default_rng(5))
    built = DecisionTree.from_arrays(9, ref.feature, ref.child0, ref.child1, ref.value)
    assert (built.feature, built.child0, built.child1, built.value, built.node_depth) == \
        (ref.feature, ref.child0, ref.child1, ref.value, ref.node_depth)
    assert all(np.array_equal(built.restriction(v), ref.restriction(v)) for v in range(ref.node_count))
    X = (np.random.default_rng(1).random((500, 9)) < 0.5).astype(np.uint8)
    assert np.array_equal(built.predict(X), ref.predict(X))
    c0, c1 = built.split(built.leaves()[0], int(np.flatnonzero(built.restriction(built.leaves()[0]) < 0)[0]))
    assert built.node_depth[c0] == built.node_depth[c1] and built.size == ref.size + 1
    with pytest.raises(ValueError, match="twice"):
        DecisionTree.from_arrays(3, [0, 0, -1, -1, -1], [1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0.0] * 5)
    with pytest.raises(ValueError, match="child0/child1"):
        DecisionTree.from_arrays(3, [0, -1, -1], [2, -1, -1], [2, -1, -1], [0.0] * 3)
    with pytest.raises(ValueError, match="feature"):
        DecisionTree.from_arrays(3, [5, -1, -1], [1, -1, -1], [2, -1, -1], [0.0] * 3)
    with pytest.raises(ValueError, match="value"):
        DecisionTree.from_arrays(3, [-1], [-1], [-1], [2.0])


def _exact_gini_gains(X, y):
    """Gini gains of every column in exact rational arithmetic on the counts (C(p) = 4p(1 - p))."""
    from fractions import Fraction

    N, ny = X.shape[0], int(y.sum())
    out = []
    for i in range(X.shape[1]):
        n1, n11 = int(X[:, i].sum()), int(X[y == 1, i].sum())
        children = [(n1, n11), (N - n1, ny - n11)]
        weighted = sum(Fraction(c, N) * 4 * Fraction(p, c) * (1 - Fraction(p, c)) for c, p in children if c)
        out.append(4 * Fraction(ny, N) * (1 - Fraction(ny, N)) - weighted)
    return out


def test_gain_ties_go_to_the_smallest_index():
    """Algorithm 1's rule: ties go to the smallest index. In 3 of these 300 samples (m = 12, n = 10)
    the best Gini gain is attained by several columns in exact arithmetic, the float gains differ by
    1.1e-16, and a plain argmax would pick a larger index; ID3's root must be the exact rule's."""
    from dtcore.id3 import first_best

    float_argmax_wrong = 0
    for s in range(300):
        rng = np.random.default_rng(1000 + s)
        X = (rng.random((12, 10)) < rng.random()).astype(np.uint8)
        y = (rng.random(12) < rng.random()).astype(np.uint8)
        if y.min() == y.max():
            continue
        exact = _exact_gini_gains(X, y)
        j_exact = exact.index(max(exact))
        g = gains(X, y, "gini")
        float_argmax_wrong += int(np.argmax(g)) != j_exact
        assert int(first_best(g[None, :])[0]) == j_exact
        assert id3(X, y).tree.feature[0] == j_exact
    assert float_argmax_wrong == 3          # the cases the tolerance is there for


def test_every_split_is_the_smallest_index_of_the_exact_best_gain():
    """At every node of ID3's trace, the chosen feature is the smallest index whose Gini gain is the
    largest in exact rational arithmetic on the node's counts (not merely within the tolerance)."""
    for s in range(60):
        rng = np.random.default_rng(7000 + s)
        m, n = int(rng.integers(4, 60)), int(rng.integers(2, 9))
        X = (rng.random((m, n)) < rng.random()).astype(np.uint8)
        y = (rng.random(m) < rng.random()).astype(np.uint8)
        for node in id3(X, y, trace=True).trace:
            fixed = node.restriction >= 0
            rows = (X[:, fixed] == node.restriction[fixed]).all(axis=1)
            exact = _exact_gini_gains(X[rows], y[rows])
            allowed = [i for i in range(n) if not fixed[i]]
            best = max(exact[i] for i in allowed)
            assert node.feature == min(i for i in allowed if exact[i] == best)


@pytest.mark.parametrize("seed", range(4))
def test_id3_packed_is_id3_on_the_matrix(seed):
    """ID3 from rows bit-packed in label order (the estimator's path, no 0/1 matrix) builds the tree
    of id3 on the matrix, node for node, with and without a depth limit; the rows it reorders in
    place are its own (a level's reordering keeps no second copy)."""
    from dtcore.id3 import _keep_rows, _pack_rows_of, id3_packed, label_order

    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 400)), int(rng.integers(1, 150))
    X = (rng.random((m, n)) < rng.random(n)).astype(np.uint8)
    y = ((X[:, 0] ^ (rng.random(m) < 0.2)) if n else rng.integers(0, 2, m)).astype(np.uint8)
    for depth in (None, 3):
        packed = _pack_rows_of(X, label_order(y))
        ours = id3_packed(packed, n, y, impurity="entropy", depth=depth).tree
        ref = id3(X, y, impurity="entropy", depth=depth).tree
        assert (ours.feature, ours.child0, ours.child1, ours.value) == (ref.feature, ref.child0, ref.child1, ref.value)
    words = np.arange(30, dtype=np.uint64).reshape(10, 3)
    take = np.array([7, 2, 2, 9])
    expected = words[take].copy()
    assert np.array_equal(_keep_rows(words, take), expected)
