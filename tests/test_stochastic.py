"""Stochastic decision trees (Blanc–Lange–Tan 2021): mu_T, opt, Fact 1.2, Lemma 2.1, Prop. 5.1."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dtcore.analysis import walsh_hadamard
from dtcore.cube import all_points
from dtcore.functions import random_tree
from dtcore import bounds
from dtcore.stochastic import (bayes_optimal, clip_probabilities, mean_table_by_coins, deterministic_depths, error,
                               fix_coins, mean_table, opt, random_stochastic_tree, sample,
                               stack_trees, stochastic_leaf_approximation,
                               truncate_deterministic_depth)
from dtcore.tree import STOCHASTIC, DecisionTree


def _figure1_like() -> DecisionTree:
    t = DecisionTree(2)
    a, b = t.split(0, 0)
    t.set_value(a, 0.0)
    c0, c1 = t.split_stochastic(b, 0.8)
    t.set_value(c0, 0.0)
    d, e = t.split(c1, 1)
    t.set_value(d, 1.0)
    f0, f1 = t.split_stochastic(e, 0.3)
    t.set_value(f0, 1.0)
    t.set_value(f1, 0.0)
    return t


def test_mean_table_by_hand():
    mu = mean_table(_figure1_like())
    # points in table order: (x0, x1) = (0,0), (1,0), (0,1), (1,1)
    assert mu == pytest.approx([0.0, 0.8, 0.0, 0.8 * 0.7])
    assert opt(mu) == pytest.approx((0 + 0.2 + 0 + 0.44) / 4)
    assert bayes_optimal(mu).tolist() == [0, 1, 0, 1]


def test_sampling_frequency_matches_mu():
    t = _figure1_like()
    rng = np.random.default_rng(0)
    X = np.repeat(all_points(2), 20000, axis=0)
    y = t.predict(X, rng=rng).reshape(4, 20000)
    assert np.abs(y.mean(axis=1) - mean_table(t)).max() < 0.015
    Xs, ys = sample(t, 50, rng=np.random.default_rng(1))
    assert Xs.shape == (50, 2) and set(np.unique(ys)) <= {0, 1}
    assert np.array_equal(sample(t, 50, rng=np.random.default_rng(1))[1], ys)


def test_random_stochastic_tree_shape():
    rng = np.random.default_rng(1)
    for s, k in ((1, 0), (5, 2), (12, 5), (8, 7)):
        t = random_stochastic_tree(8, s, k, rng=rng)
        assert t.size == s and t.feature.count(STOCHASTIC) == k
    with pytest.raises(ValueError, match="n_stochastic"):
        random_stochastic_tree(8, 4, 4, rng=rng)
    with pytest.raises(ValueError, match="size"):
        random_stochastic_tree(8, 0, 0, rng=rng)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 7), st.integers(1, 12), st.integers(0, 2**31 - 1))
def test_mu_of_deterministic_tree_is_its_output(n, size, seed):
    size = min(size, 2**n)
    t = random_tree(n, size, rng=np.random.default_rng(seed))
    assert np.array_equal(mean_table(t), t.truth_table().astype(float))
    assert opt(mean_table(t)) == 0.0


@settings(max_examples=40, deadline=None)
@given(st.integers(4, 7), st.integers(2, 10), st.integers(0, 2**31 - 1))
def test_fact_1_1_and_1_2(n, size, seed):
    """opt <= error of every h; error(round h) <= opt + 2 E|mu - h| for every h in [0,1]."""
    rng = np.random.default_rng(seed)
    t = random_stochastic_tree(n, size, int(rng.integers(0, size)), rng=rng)
    mu = mean_table(t)
    for _ in range(5):
        h = np.clip(mu + rng.normal(0, 0.3, mu.size), 0, 1)
        assert opt(mu) <= error(mu, h) + 1e-12
        assert error(mu, bayes_optimal(h)) <= opt(mu) + 2 * np.abs(mu - h).mean() + 1e-12


def test_fix_coins_is_a_draw_of_T():
    t = _figure1_like()
    rng = np.random.default_rng(3)
    tabs = np.array([fix_coins(t, rng=rng).truth_table() for _ in range(4000)])
    assert np.abs(tabs.mean(axis=0) - mean_table(t)).max() < 0.03
    assert all(fix_coins(t, rng=rng).is_deterministic for _ in range(5))


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 7), st.integers(2, 8), st.integers(1, 4), st.integers(0, 2**31 - 1))
def test_stacked_tree_computes_the_average_of_copies(n, size, c, seed):
    """Lemma 2.1's stacked tree: mu equals mean of the c copies, size <= prod sizes <= s^c."""
    rng = np.random.default_rng(seed)
    t = random_stochastic_tree(n, size, int(rng.integers(0, size)), rng=rng)
    stacked, copies = stochastic_leaf_approximation(t, c, rng=rng)
    est = np.mean([cp.truth_table() for cp in copies], axis=0)
    assert np.allclose(mean_table(stacked), est)
    assert not stacked.has_stochastic_nodes  # the only randomness is at the leaves
    assert stacked.size <= np.prod([cp.size for cp in copies]) <= size**c


def test_lemma_2_1_average_error_below_bound():
    rng = np.random.default_rng(4)
    t = random_stochastic_tree(8, 10, 5, rng=rng)
    mu = mean_table(t)
    for c in (1, 4, 16):
        errs = [np.abs(mean_table(stochastic_leaf_approximation(t, c, rng=rng)[0]) - mu).mean()
                for _ in range(60)]
        assert np.mean(errs) <= bounds.blt21_lemma21_expected_l1(c) + 0.02
    assert bounds.blt21_lemma21_expected_l1(4) == 0.25


def test_stack_rejects_stochastic_copies():
    with pytest.raises(ValueError, match="deterministic"):
        stack_trees([_figure1_like()])
    with pytest.raises(ValueError, match="copies"):
        stack_trees([])


@settings(max_examples=30, deadline=None)
@given(st.integers(4, 8), st.integers(2, 12), st.integers(0, 4), st.integers(0, 2**31 - 1))
def test_proposition_5_1(n, size, k, seed):
    """mu_{T'} has degree <= k, lies in [0,1], and differs from mu_T on <= #deep leaves 2^-(k+1)."""
    rng = np.random.default_rng(seed)
    t = random_stochastic_tree(n, size, int(rng.integers(0, size)), rng=rng)
    tp = truncate_deterministic_depth(t, k)
    mup = mean_table(tp)
    coef = walsh_hadamard(mup)
    level = np.array([bin(s).count("1") for s in range(2**n)])
    assert np.abs(coef[level > k]).max(initial=0) < 1e-12
    assert mup.min() >= 0 and mup.max() <= 1
    deep = int((deterministic_depths(t) > k).sum())
    assert np.mean(~np.isclose(mup, mean_table(t))) <= deep * 2.0 ** -(k + 1) + 1e-12


def test_error_validation():
    with pytest.raises(ValueError, match="h"):
        error(np.zeros(4), np.full(4, 2.0))
    with pytest.raises(ValueError, match="mu"):
        bayes_optimal(np.array([1.5]))
    with pytest.raises(ValueError, match="c"):
        stochastic_leaf_approximation(_figure1_like(), 0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        sample(_figure1_like(), 3, rng=0)


def test_chapter3_bounds():
    assert bounds.blt21_find_error_bound(0.1, 0.05, 0.02) == pytest.approx(0.22)
    assert bounds.blt21_l1_error_bound(0.1, 0.05, 0.02) == pytest.approx(0.32)
    assert bounds.blt21_low_degree_error_bound(0.1, 0.02, 0.0) == pytest.approx(0.1 + 2 * 0.2)
    assert bounds.blt21_lower_bound_excess(0.1) == 0.1
    assert bounds.blt21_lemma21_expected_l1(4) == 0.25
    assert bounds.blt21_lemma42_uniform_deviation(1, 2, 0.5) == pytest.approx((2 * np.log(2) / 4) ** 0.5)
    with pytest.raises(ValueError, match="eta"):
        bounds.blt21_find_error_bound(0.1, 0.5, 0.0)
    with pytest.raises(ValueError, match="delta"):
        bounds.blt21_lemma42_uniform_deviation(10, 10, 0.0)


def _exact_mean(tree: DecisionTree, x: np.ndarray) -> Fraction:
    """mu_T(x) by exact rational arithmetic, node by node (independent of predict_proba)."""
    node = 0
    def walk(node: int) -> Fraction:
        f = tree.feature[node]
        if f == STOCHASTIC:
            q = Fraction(tree.branch_prob[node])
            return q * walk(tree.child1[node]) + (1 - q) * walk(tree.child0[node])
        if f < 0:
            return Fraction(tree.value[node])
        return walk(tree.child1[node] if x[f] == 1 else tree.child0[node])
    return walk(node)


@settings(max_examples=40, deadline=None)
@given(st.integers(4, 10), st.integers(8, 64), st.integers(0, 2**31 - 1))
def test_mean_table_stays_in_unit_interval_on_deep_stochastic_trees(n, size, seed):
    """Issue 12 item 14: mu_T of deep, coin-heavy trees stays in [0, 1] and matches exact arithmetic."""
    rng = np.random.default_rng(seed)
    coins = int(rng.integers(max(size // 2, size - 2**n), size))  # coin-heavy: deep paths of products
    t = random_stochastic_tree(n, size, coins, rng=rng)
    mu = mean_table(t)
    assert mu.min() >= 0.0 and mu.max() <= 1.0
    bayes_optimal(mu)  # never rejects its own mean function
    assert 0.0 <= opt(mu) <= 0.5
    pts = all_points(n)
    for i in rng.choice(2**n, size=4, replace=False):  # a few points, exact rationals
        assert abs(float(_exact_mean(t, pts[i])) - mu[i]) < 1e-12


def test_mean_table_clips_rounding_but_not_real_excursions():
    """A chain of coins whose products sum to 1 + 2^-52: clipped; a real excursion raises."""
    t = DecisionTree(4)
    node = 0
    for q in (0.8, 0.8, 0.1, 0.8, 0.2, 0.7):  # every leaf labelled 1: mu_T = 1, summed as 1 + 2^-52
        c0, c1 = t.split_stochastic(node, q)
        t.set_value(c0, 1.0)
        node = c1
    t.set_value(node, 1.0)
    raw = t.predict_proba(all_points(4))
    mu = mean_table(t)
    assert raw.max() > 1.0  # the rounding this test is about
    assert mu.max() <= 1.0 and np.allclose(mu, 1.0) and np.abs(raw - 1).max() < 1e-12
    assert clip_probabilities(np.array([1.0 + 1e-13, -1e-13])).tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="mu"):
        clip_probabilities(np.array([1.0 + 1e-6]))
    with pytest.raises(ValueError, match="mu"):
        bayes_optimal(np.array([np.nan]))


def test_chapter3_uniform_convergence_and_truncation_bounds():
    """Lemma 5.2 / 5.4 eps solve the union-bound equation; Corollary 4.1's cut mass on a known tree."""
    import math

    eps52 = bounds.blt21_lemma52_eps(3000, 56, 0.05)
    eps54 = bounds.blt21_lemma54_eps(3000, 56, 0.05)
    e = eps52 / 7
    assert eps54 == pytest.approx(3 * e)
    assert 2 * (2 * 56 / e + 1) ** 56 * math.exp(-2 * 3000 * e * e) == pytest.approx(0.05, rel=1e-6)
    assert bounds.blt21_lemma52_eps(30000, 56, 0.05) < eps52  # more data, smaller eps
    # leaves at depths 1, 2, 3, 3: cutting at depth 1 cuts 2^-2 + 2 * 2^-3 = 1/2; at depth 3 nothing
    depths = np.array([1, 2, 3, 3])
    assert bounds.blt21_corollary41_truncation(depths, 1) == 0.5
    assert bounds.blt21_corollary41_truncation(depths, 3) == 0.0
    assert bounds.blt21_corollary41_truncation(depths, 0) == 1.0
    with pytest.raises(ValueError, match="depth"):
        bounds.blt21_corollary41_truncation(depths, -1)
    with pytest.raises(ValueError, match="delta"):
        bounds.blt21_lemma52_eps(10, 5, 1.5)


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 8), st.integers(2, 16), st.integers(0, 2**31 - 1))
def test_mean_table_by_coins_agrees_with_path_products(n, size, seed):
    rng = np.random.default_rng(seed)
    low = max(0, size - 2**n)  # at most 2^n query leaves
    t = random_stochastic_tree(n, size, int(rng.integers(low, max(low + 1, min(size, 9)))), rng=rng)
    assert np.abs(mean_table(t) - mean_table_by_coins(t)).max() < 1e-12
