"""Size estimator (Lemma C.1), label oracle, TopDownSizeEstimate, LocalLearner and Est (BGLT 2020)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcore.bounds import (bglt20_lemma_b3_batch, bglt20_lemma_c1_deviation, bglt20_lemma_d1_labels,
                           bglt20_theorem5_strands)
from dtcore.cube import ProductDistribution, all_points
from dtcore.functions import is_monotone, majority, random_monotone_tree, random_tree, tribes
import dtcore.local as local_module
from dtcore.local import (LabelOracle, SharedDraws, est, local_learner, size_estimate,
                          top_down_size_estimate)
from dtcore.topdown import depth_cap, minibatch_top_down
from dtcore.tree import DecisionTree


def instance(seed: int, n: int = 14, N: int = 4000, target: str = "majority"):
    rng = np.random.default_rng(seed)
    X = ProductDistribution.uniform(n).sample(N, rng=rng)
    if target == "majority":
        y = majority(X)
    elif target == "tribes":
        y = tribes(X, 3)
    else:
        y = random_monotone_tree(n, 24, rng=rng).predict(X)
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
    tree = random_tree(n, min(size, 2**n), rng=rng)
    assert size_estimate(tree, all_points(n)) == tree.size


def test_size_estimator_concentrates_as_hoeffding_says():
    rng = np.random.default_rng(0)
    tree = random_tree(12, 60, rng=rng, max_depth=8)
    m, reps, delta = 200, 400, 0.1
    dev = np.array([abs(size_estimate(tree, ProductDistribution.uniform(12).sample(m, rng=rng)) - tree.size)
                    for _ in range(reps)])
    bound = bglt20_lemma_c1_deviation(m, tree.depth, delta)
    assert np.mean(dev >= bound) <= delta
    assert bglt20_lemma_c1_deviation(4 * m, tree.depth, delta) == pytest.approx(bound / 2)


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
    a = SharedDraws.draw(50, 6, 9, rng=np.random.default_rng(3))
    b = SharedDraws.draw(50, 6, 9, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a.order, b.order)
    np.testing.assert_array_equal(a.strands, b.strands)
    assert a.strands.shape == (9, 6) and np.array_equal(np.sort(a.order), np.arange(50))
    with pytest.raises(ValueError, match="n_strands"):
        SharedDraws.draw(50, 6, 0, rng=np.random.default_rng(0))


# --- Theorem 2: LocalLearner(x*) = T(x*) exactly -----------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), t=st.integers(1, 48), b=st.integers(1, 40),
       impurity=st.sampled_from(["gini", "entropy", "kearns_mansour"]),
       target=st.sampled_from(["majority", "tribes", "monotone_tree"]),
       weighting=st.sampled_from(["uniform", "empirical"]), pure=st.sampled_from(["split", "stop"]))
def test_local_learner_equals_size_estimate_tree(seed, t, b, impurity, target, weighting, pure):
    rng, X, y = instance(seed, n=12, N=1500, target=target)
    draws = SharedDraws.draw(len(y), X.shape[1], b, rng=rng)
    full = top_down_size_estimate(X, LabelOracle.from_labels(y), size=t, batch_size=b, draws=draws, impurity=impurity, weighting=weighting, pure_leaves=pure)
    Q = ProductDistribution.uniform(12).sample(25, rng=rng)
    oracle = LabelOracle.from_labels(y)
    local = local_learner(X, oracle, size=t, batch_size=b, x_star=Q, draws=draws, impurity=impurity, weighting=weighting, pure_leaves=pure)
    np.testing.assert_array_equal(local.labels, full.tree.predict(Q))
    # Lemma D.1 counts label requests; nested minibatches make the distinct points fewer
    assert local.labelled == oracle.labelled <= local.requests == oracle.requests
    assert local.requests <= bglt20_lemma_d1_labels(b, t, b, len(Q))
    assert local.reached_t == (local.e >= t) and full.reached_t == (full.e >= t)
    for q in Q[:3]:  # one query at a time, fresh oracle: same answers, within Lemma D.1
        one_oracle = LabelOracle.from_labels(y)
        one = local_learner(X, one_oracle, size=t, batch_size=b, x_star=q, draws=draws, impurity=impurity, weighting=weighting, pure_leaves=pure)
        assert one.labels[0] == full.tree.predict(q[None])[0]
        assert one.labelled <= one.requests <= bglt20_lemma_d1_labels(b, t, b, 1)
    # and TopDownSizeEstimate's tree is MiniBatchTopDown's tree of size t' (with the same depth
    # cap D(t): the paper's "MiniBatchTopDown(t', b, S)" would use D(t'), which can differ)
    mb = minibatch_top_down(X, y, size=full.tree.size, batch_size=b, impurity=impurity, order=draws.order,
                            weighting=weighting, depth=depth_cap(t), pure_leaves=pure)
    np.testing.assert_array_equal(mb.tree.leaf_restrictions(), full.tree.leaf_restrictions())
    np.testing.assert_array_equal(mb.tree.leaf_values(), full.tree.leaf_values())


def test_local_learner_stops_on_the_size_estimate():
    rng, X, y = instance(1, n=16, N=20000)
    t, b = 32, 48
    draws = SharedDraws.draw(len(y), 16, b, rng=rng)
    res = top_down_size_estimate(X, LabelOracle.from_labels(y), size=t, batch_size=b, draws=draws)
    assert res.e >= t
    e = res.trace["e"].to_numpy()
    assert (e[:-1] < t).all()  # the loop ran while e < t
    assert res.e == size_estimate(res.tree, draws.strands)
    assert res.tree.depth <= depth_cap(t) + 1


def test_est_is_the_test_error_of_the_tree():
    rng, X, y = instance(2, n=15, N=8000, target="tribes")
    t, b = 24, 32
    draws = SharedDraws.draw(len(y), 15, b, rng=rng)
    X_test = ProductDistribution.uniform(15).sample(300, rng=rng)
    y_test = tribes(X_test, 3)
    full = top_down_size_estimate(X, LabelOracle.from_labels(y), size=t, batch_size=b, draws=draws)
    oracle = LabelOracle.from_labels(y)
    out = est(X, oracle, size=t, batch_size=b, X_test=X_test, y_test=y_test, draws=draws)
    assert out.error == np.mean(full.tree.predict(X_test) != y_test)
    assert out.labelled <= bglt20_lemma_d1_labels(b, t, b, 300)
    assert out.labelled < len(y)


def test_bad_parameters():
    rng, X, y = instance(0, n=6, N=200)
    draws = SharedDraws.draw(200, 6, 4, rng=rng)
    o = LabelOracle.from_labels(y)
    with pytest.raises(ValueError, match="size must be"):
        local_learner(X, o, size=0, batch_size=4, x_star=X[0], draws=draws)
    with pytest.raises(ValueError, match="batch_size must be"):
        local_learner(X, o, size=4, batch_size=0, x_star=X[0], draws=draws)
    with pytest.raises(ValueError, match="batch_size must be"):
        top_down_size_estimate(X, o, size=4, batch_size=-1, draws=draws)
    with pytest.raises(ValueError, match="draws"):
        est(X, o, size=4, batch_size=4, X_test=X[:3], y_test=y[:3], draws=None)
    with pytest.raises(ValueError, match="X_test"):
        est(X, o, size=4, batch_size=4, X_test=X[:0], y_test=y[:0], draws=draws)
    with pytest.raises(ValueError, match="eta"):
        bglt20_theorem5_strands(16, 0.5, 0.1)
    with pytest.raises(ValueError, match="eta"):
        bglt20_theorem5_strands(16, 0.0, 0.1)


def test_bounds_values():
    assert bglt20_lemma_d1_labels(10, 16, 10, 1) == 10 * (11 * (depth_cap(16) + 1) + 1)
    # Theorem 5 from its proof: m = R^2 ln(2t(1+eta)/delta) / (2 (eta t)^2), R = t log t (paper) or 2^(D+1)
    assert bglt20_theorem5_strands(64, 0.25, 0.1) == pytest.approx(
        (64 * 6) ** 2 * np.log(2 * 64 * 1.25 / 0.1) / (2 * 16.0**2))
    assert int(np.ceil(bglt20_theorem5_strands(64, 0.25, 0.1))) == 2125  # the value issue 11 quotes
    D = depth_cap(64)
    assert bglt20_theorem5_strands(64, 0.25, 0.1, "depth") == pytest.approx(
        4.0 ** (D + 1) * np.log(2 * 64 * 1.25 / 0.1) / (2 * 16.0**2))
    for t in (2, 3, 8, 50, 64, 1000):  # 2^(D+1) > t log t >= 2^D
        ratio = bglt20_theorem5_strands(t, 0.2, 0.1, "depth") / bglt20_theorem5_strands(t, 0.2, 0.1)
        assert 1.0 < ratio <= 4.0 + 1e-12
    with pytest.raises(ValueError, match="form"):
        bglt20_theorem5_strands(64, 0.25, 0.1, "loose")
    assert bglt20_lemma_b3_batch(4.0, 1.0, 1.0, 10, 10, 0.1) == pytest.approx(128 * np.log(9000))


# --- random monotone trees -------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 10), size=st.integers(1, 40))
def test_random_monotone_tree_is_monotone(seed, n, size):
    rng = np.random.default_rng(seed)
    tree = random_monotone_tree(n, min(size, 2**n), rng=rng)
    assert tree.size == min(size, 2**n)
    assert is_monotone(tree.truth_table())


def test_is_monotone():
    X = all_points(4)
    assert is_monotone(majority(X)) and is_monotone(tribes(X, 2))
    assert not is_monotone(1 - X[:, 0])


# --- the lazy minibatches of the prepared sample = the straightforward definition ---------------------

class NaiveLazyBatches(local_module.LazyBatches):
    """Reference: Batch_b(S°, l) found by filtering every row of S° (in the shared order) against l."""

    def resolve(self, state):
        if state.idx is None:
            r = state.restriction
            fixed = r >= 0
            Xp = np.asarray(self.sample.X)[self.order]
            state.idx = np.flatnonzero((Xp[:, fixed] == r[fixed]).all(axis=1))
        return state


def _run_both(fn):
    """fn() with the optimised lazy minibatches, then with the naive reference."""
    fast = fn()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(local_module, "LazyBatches", NaiveLazyBatches)
        slow = fn()
    return fast, slow


def _labelled_reference(res, X, draws, Q, b, t):
    """Distinct points LocalLearner must label, straight from Definition 1 and Fig. 2: the minibatch
    of every node of its tree that a strand or query reaches and that is scored (depth <= D), and
    of every query's leaf."""
    tree, Xp, D = res.tree, X[draws.order], depth_cap(t)
    need = np.zeros(len(X), dtype=bool)

    def batch(r):
        fixed = r >= 0
        return draws.order[np.flatnonzero((Xp[:, fixed] == r[fixed]).all(axis=1))[:b]]

    for node, r in enumerate(tree.restriction(v) for v in range(tree.node_count)):
        fixed = r >= 0
        reached = any((P[:, fixed] == r[fixed]).all(axis=1).any() for P in (draws.strands, Q))
        if reached and tree.node_depth[node] <= D:
            need[batch(r)] = True
    for node in np.unique(res.query_leaves):
        need[batch(tree.restriction(int(node)))] = True
    return need


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), t=st.integers(1, 40), b=st.integers(1, 300),
       N=st.integers(1, 3000), n=st.sampled_from([3, 9, 14, 63, 64, 65, 130]),
       weighting=st.sampled_from(["uniform", "empirical"]),
       target=st.sampled_from(["majority", "tribes", "monotone_tree"]))
def test_lazy_minibatches_match_the_straightforward_reference(seed, t, b, N, n, weighting,
                                                              target):
    """Optimised (prepared sample, lazy scan) and naive (filter all rows) runs give the same answers,
    the same oracle traffic (distinct labels, requests, which points) and the same tree and t'."""
    rng, X, y = instance(seed, n=n, N=N, target=target if n >= 5 else "majority")
    draws = SharedDraws.draw(N, n, max(1, b // 3), rng=rng)
    Q = ProductDistribution.uniform(n).sample(7, rng=rng)

    def local_run():
        o = LabelOracle.from_labels(y)
        many = local_learner(X, o, size=t, batch_size=b, x_star=Q, draws=draws, impurity="gini", weighting=weighting)
        ones = [local_learner(X, o, size=t, batch_size=b, x_star=q, draws=draws, impurity="entropy", weighting=weighting) for q in Q[:3]]
        return many, ones, o

    def full_run():
        o = LabelOracle.from_labels(y)
        return top_down_size_estimate(X, o, size=t, batch_size=b, draws=draws, impurity="gini", weighting=weighting), o

    (fast, fast_ones, fo), (slow, slow_ones, so) = _run_both(local_run)
    np.testing.assert_array_equal(fast.labels, slow.labels)
    assert (fast.labelled, fast.e) == (slow.labelled, slow.e)
    assert [(r.labels[0], r.labelled, r.e) for r in fast_ones] == [(r.labels[0], r.labelled, r.e)
                                                                  for r in slow_ones]
    assert (fo.labelled, fo.requests) == (so.labelled, so.requests)
    np.testing.assert_array_equal(fo.labelled_mask, so.labelled_mask)
    np.testing.assert_array_equal(fast.tree.leaf_restrictions(), slow.tree.leaf_restrictions())
    # which points the many-query run labelled, from the definitions alone
    o = LabelOracle.from_labels(y)
    res = local_learner(X, o, size=t, batch_size=b, x_star=Q, draws=draws, impurity="gini", weighting=weighting)
    np.testing.assert_array_equal(o.labelled_mask, _labelled_reference(res, X, draws, Q, b, t))
    (ff, ffo), (sf, sfo) = _run_both(full_run)
    assert ff.tree.size == sf.tree.size and ff.e == sf.e  # the same t'
    np.testing.assert_array_equal(ff.tree.leaf_restrictions(), sf.tree.leaf_restrictions())
    np.testing.assert_array_equal(ff.tree.leaf_values(), sf.tree.leaf_values())
    np.testing.assert_array_equal(ffo.labelled_mask, sfo.labelled_mask)
    assert ffo.requests == sfo.requests


def test_prepared_sample_is_reused_and_refreshed_when_x_changes():
    rng, X, y = instance(5, n=10, N=3000)
    t, b = 16, 40
    draws = SharedDraws.draw(len(y), 10, 30, rng=rng)
    assert draws.prepared(X) is draws.prepared(X)  # prepared once, reused
    Q = ProductDistribution.uniform(10).sample(20, rng=rng)
    before = local_learner(X, LabelOracle.from_labels(y), size=t, batch_size=b, x_star=Q, draws=draws)
    X[:] = X[::-1].copy()  # mutate S° in place (reverse the rows): the cached copy must not be used
    y2 = majority(X)
    after = local_learner(X, LabelOracle.from_labels(y2), size=t, batch_size=b, x_star=Q, draws=draws)
    fresh = local_learner(X.copy(), LabelOracle.from_labels(y2), size=t, batch_size=b, x_star=Q, draws=SharedDraws(draws.order, draws.strands))
    np.testing.assert_array_equal(after.labels, fresh.labels)
    np.testing.assert_array_equal(after.tree.leaf_restrictions(), fresh.tree.leaf_restrictions())
    assert not np.array_equal(before.tree.leaf_restrictions(), after.tree.leaf_restrictions())
    assert not draws.order.flags.writeable and not draws.strands.flags.writeable
    with pytest.raises(ValueError, match="X must have 3000 rows"):
        local_learner(X[:10], LabelOracle.from_labels(y2[:10]), size=t, batch_size=b, x_star=Q, draws=draws)
    with pytest.raises(ValueError, match="order"):
        SharedDraws(np.array([0, 0, 2]), draws.strands)
    with pytest.raises(ValueError, match="strands"):
        SharedDraws(draws.order, np.full((3, 10), 2))


def test_shared_draws_pickle_without_their_cache():
    import pickle

    rng, X, y = instance(6, n=8, N=500)
    draws = SharedDraws.draw(500, 8, 10, rng=rng)
    draws.prepared(X)
    copy = pickle.loads(pickle.dumps(draws))
    assert copy._cache == {} and len(draws._cache) == 1
    np.testing.assert_array_equal(copy.order, draws.order)
    q = X[:5]
    np.testing.assert_array_equal(local_learner(X, LabelOracle.from_labels(y), size=8, batch_size=16, x_star=q, draws=copy).labels,
                                  local_learner(X, LabelOracle.from_labels(y), size=8, batch_size=16, x_star=q, draws=draws).labels)


# --- pure minibatches: the paper splits them (gain 0), the CART-style rule stops ----------------------

def test_pure_leaves_split_reaches_t_where_stop_falls_short():
    # a monotone AND of 3 variables: most leaves become pure after a few splits
    rng = np.random.default_rng(3)
    X = ProductDistribution.uniform(12).sample(20000, rng=rng)
    y = (X[:, 0] & X[:, 1] & X[:, 2]).astype(np.uint8)
    t, b = 64, 32
    draws = SharedDraws.draw(len(y), 12, 400, rng=rng)
    stop = top_down_size_estimate(X, LabelOracle.from_labels(y), size=t, batch_size=b, draws=draws, pure_leaves="stop")
    split = top_down_size_estimate(X, LabelOracle.from_labels(y), size=t, batch_size=b, draws=draws, pure_leaves="split")
    assert not stop.reached_t and stop.e < t
    assert split.reached_t and split.e >= t
    assert abs(split.tree.size - t) <= 0.25 * t
    # both complete the leaves from their minibatches: same function on the cube
    np.testing.assert_array_equal(stop.tree.predict(all_points(12)), split.tree.predict(all_points(12)))
    mb_stop = minibatch_top_down(X, y, size=t, batch_size=b, order=draws.order, pure_leaves="stop")
    mb_split = minibatch_top_down(X, y, size=t, batch_size=b, order=draws.order)
    assert mb_stop.tree.size < t == mb_split.tree.size
    with pytest.raises(ValueError, match="pure_leaves"):
        minibatch_top_down(X, y, size=t, batch_size=b, order=draws.order, pure_leaves="never")


def test_requests_count_every_minibatch_point_and_labelled_the_distinct_ones():
    rng, X, y = instance(4, n=12, N=5000)
    draws = SharedDraws.draw(len(y), 12, 16, rng=rng)
    oracle = LabelOracle.from_labels(y)
    res = top_down_size_estimate(X, oracle, size=16, batch_size=16, draws=draws)
    # every scored or completed leaf reads one minibatch of min(b, |S ∩ l|) points
    assert res.requests == oracle.requests and res.labelled == oracle.labelled == int(oracle.labelled_mask.sum())
    assert res.labelled < res.requests  # nested minibatches share points
