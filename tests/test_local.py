"""Size estimator (Lemma C.1), label oracle, TopDownSizeEstimate, LocalLearner and Est (BGLT 2020)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcore.bounds import (bglt_lemma_b3_batch, bglt_local_labels, bglt_size_estimator_deviation,
                           bglt_theorem5_strands)
from dtcore.cube import ProductDistribution, all_points
from dtcore.functions import is_monotone, majority, random_monotone_tree, random_tree, tribes
from dtcore.local import (LabelOracle, SharedDraws, est, local_learner, size_estimate,
                          top_down_size_estimate)
from dtcore.topdown import depth_cap, minibatch_top_down
from dtcore.tree import DecisionTree


def instance(seed: int, n: int = 14, N: int = 4000, target: str = "majority"):
    rng = np.random.default_rng(seed)
    X = ProductDistribution.uniform(n).sample(N, rng)
    if target == "majority":
        y = majority(X)
    elif target == "tribes":
        y = tribes(X, 3)
    else:
        y = random_monotone_tree(n, 24, rng).predict(X)
    return rng, X, y


# --- Lemma C.1 -----------------------------------------------------------------------------------

def test_size_estimate_known_tree():
    tree = DecisionTree(3)
    c0, c1 = tree.split(0, 1)
    tree.split(c1, 2)
    X = all_points(3)
    assert size_estimate(tree, X) == 3.0  # (4 * 2 + 2 * 4 + 2 * 4) / 8
    assert size_estimate(tree, X[[0]]) == 2.0  # x_1 = 0: depth-1 leaf
    with pytest.raises(ValueError, match="points"):
        size_estimate(tree, np.zeros((0, 3), dtype=np.uint8))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 9), size=st.integers(1, 40))
def test_size_estimator_is_exactly_unbiased_over_all_strands(seed, n, size):
    """E[e] = s: the mean of 2^|l(x)| over all 2^n points is the number of leaves, exactly."""
    rng = np.random.default_rng(seed)
    tree = random_tree(n, min(size, 2**n), rng)
    assert size_estimate(tree, all_points(n)) == tree.size


def test_size_estimator_concentrates_as_hoeffding_says():
    rng = np.random.default_rng(0)
    tree = random_tree(12, 60, rng, max_depth=8)
    m, reps, delta = 200, 400, 0.1
    dev = np.array([abs(size_estimate(tree, ProductDistribution.uniform(12).sample(m, rng)) - tree.size)
                    for _ in range(reps)])
    bound = bglt_size_estimator_deviation(m, tree.depth, delta)
    assert np.mean(dev >= bound) <= delta
    assert bglt_size_estimator_deviation(4 * m, tree.depth, delta) == pytest.approx(bound / 2)


# --- label oracle and shared draws ----------------------------------------------------------------

def test_label_oracle_counts_distinct_points_and_caches():
    y = np.array([0, 1, 1, 0, 1], dtype=np.uint8)
    o = LabelOracle.from_labels(y)
    np.testing.assert_array_equal(o(np.array([1, 3, 1])), [1, 0, 1])
    assert o.labelled == 2 and o.requests == 3
    o(np.array([3, 4]))
    assert o.labelled == 3
    np.testing.assert_array_equal(o.labelled_mask, [False, True, False, True, True])
    with pytest.raises(ValueError, match="rows"):
        o(np.array([5]))


def test_label_oracle_from_function_evaluates_only_new_points():
    X = all_points(4)
    calls = []

    def f(Z):
        calls.append(len(Z))
        return majority(Z)

    o = LabelOracle.from_function(X, f)
    o(np.array([0, 15, 15]))
    o(np.array([15, 7]))
    assert calls == [2, 1] and o.labelled == 3


def test_shared_draws_are_reproducible_and_validated():
    a = SharedDraws.draw(50, 6, 9, np.random.default_rng(3))
    b = SharedDraws.draw(50, 6, 9, np.random.default_rng(3))
    np.testing.assert_array_equal(a.order, b.order)
    np.testing.assert_array_equal(a.strands, b.strands)
    assert a.strands.shape == (9, 6) and np.array_equal(np.sort(a.order), np.arange(50))
    with pytest.raises(ValueError, match="n_strands"):
        SharedDraws.draw(50, 6, 0, np.random.default_rng(0))


# --- Theorem 2: LocalLearner(x*) = T(x*) exactly -----------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), t=st.integers(1, 48), b=st.integers(1, 40),
       impurity=st.sampled_from(["gini", "entropy", "kearns_mansour"]),
       target=st.sampled_from(["majority", "tribes", "monotone_tree"]),
       weighting=st.sampled_from(["uniform", "empirical"]))
def test_local_learner_equals_size_estimate_tree(seed, t, b, impurity, target, weighting):
    rng, X, y = instance(seed, n=12, N=1500, target=target)
    draws = SharedDraws.draw(len(y), X.shape[1], b, rng)
    full = top_down_size_estimate(X, LabelOracle.from_labels(y), t, b, draws, impurity, weighting)
    Q = ProductDistribution.uniform(12).sample(25, rng)
    oracle = LabelOracle.from_labels(y)
    local = local_learner(t, b, X, oracle, Q, draws, impurity, weighting)
    np.testing.assert_array_equal(local.labels, full.tree.predict(Q))
    assert local.labelled == oracle.labelled <= bglt_local_labels(b, t, b, len(Q))
    for q in Q[:3]:  # one query at a time, fresh oracle: same answers, within Lemma D.1
        one_oracle = LabelOracle.from_labels(y)
        one = local_learner(t, b, X, one_oracle, q, draws, impurity, weighting)
        assert one.labels[0] == full.tree.predict(q[None])[0]
        assert one.labelled <= bglt_local_labels(b, t, b, 1)
    # and TopDownSizeEstimate's tree is MiniBatchTopDown's tree of size t' (with the same depth
    # cap D(t): the paper's "MiniBatchTopDown(t', b, S)" would use D(t'), which can differ)
    mb = minibatch_top_down(X, y, full.tree.size, b, impurity, order=draws.order,
                            weighting=weighting, max_depth=depth_cap(t))
    np.testing.assert_array_equal(mb.tree.leaf_restrictions(), full.tree.leaf_restrictions())
    np.testing.assert_array_equal(mb.tree.leaf_values(), full.tree.leaf_values())


def test_local_learner_stops_on_the_size_estimate():
    rng, X, y = instance(1, n=16, N=20000)
    t, b = 32, 48
    draws = SharedDraws.draw(len(y), 16, b, rng)
    res = top_down_size_estimate(X, LabelOracle.from_labels(y), t, b, draws)
    assert res.e >= t
    e = res.trace["e"].to_numpy()
    assert (e[:-1] < t).all()  # the loop ran while e < t
    assert res.e == size_estimate(res.tree, draws.strands)
    assert res.tree.depth <= depth_cap(t) + 1


def test_est_is_the_test_error_of_the_tree():
    rng, X, y = instance(2, n=15, N=8000, target="tribes")
    t, b = 24, 32
    draws = SharedDraws.draw(len(y), 15, b, rng)
    X_test = ProductDistribution.uniform(15).sample(300, rng)
    y_test = tribes(X_test, 3)
    full = top_down_size_estimate(X, LabelOracle.from_labels(y), t, b, draws)
    oracle = LabelOracle.from_labels(y)
    out = est(t, b, X, oracle, X_test, y_test, draws)
    assert out.error == np.mean(full.tree.predict(X_test) != y_test)
    assert out.labelled <= bglt_local_labels(b, t, b, 300)
    assert out.labelled < len(y)


def test_bad_parameters():
    rng, X, y = instance(0, n=6, N=200)
    draws = SharedDraws.draw(200, 6, 4, rng)
    o = LabelOracle.from_labels(y)
    with pytest.raises(ValueError, match="t must be"):
        local_learner(0, 4, X, o, X[0], draws)
    with pytest.raises(ValueError, match="b must be"):
        local_learner(4, 0, X, o, X[0], draws)
    with pytest.raises(ValueError, match="b must be"):
        top_down_size_estimate(X, o, 4, -1, draws)
    with pytest.raises(ValueError, match="draws"):
        est(4, 4, X, o, X[:3], y[:3], None)
    with pytest.raises(ValueError, match="X_test"):
        est(4, 4, X, o, X[:0], y[:0], draws)
    with pytest.raises(ValueError, match="eta"):
        bglt_theorem5_strands(16, 0.5, 0.1)
    with pytest.raises(ValueError, match="eta"):
        bglt_theorem5_strands(16, 0.0, 0.1)


def test_bounds_values():
    assert bglt_local_labels(10, 16, 10, 1) == 10 * (11 * (depth_cap(16) + 1) + 1)
    # Theorem 5 from its proof: m = 4^D ln(2t(1+eta)/delta) / (2 (eta t)^2)
    D = depth_cap(64)
    assert bglt_theorem5_strands(64, 0.25, 0.1) == pytest.approx(
        4.0**D * np.log(2 * 64 * 1.25 / 0.1) / (2 * 16.0**2))
    assert bglt_lemma_b3_batch(4.0, 1.0, 1.0, 10, 10, 0.1) == pytest.approx(128 * np.log(9000))


# --- random monotone trees -------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 10), size=st.integers(1, 40))
def test_random_monotone_tree_is_monotone(seed, n, size):
    rng = np.random.default_rng(seed)
    tree = random_monotone_tree(n, min(size, 2**n), rng)
    assert tree.size == min(size, 2**n)
    assert is_monotone(tree.truth_table())


def test_is_monotone():
    X = all_points(4)
    assert is_monotone(majority(X)) and is_monotone(tribes(X, 2))
    assert not is_monotone(1 - X[:, 0])
