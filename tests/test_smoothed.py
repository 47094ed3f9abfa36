"""Tests for dtcore.smoothed, the junta families and the chapter-5 bounds (BDM 2020)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dtcore import bounds
from dtcore.cube import ProductDistribution, all_points
from dtcore.functions import junta, junta_tree, parity, parity_table, random_junta
from dtcore.smoothed import (BOUNDARY_BAND, all_restrictions, alpha_c_distribution, covariance_by_enumeration,
                             covariance_measure, hoeffding_covariance_deviation,
                             empirical_covariance, is_alpha_c_distribution, multilinear,
                             lemma4_hypotheses, population_gain, restriction_is_constant, smoothed_distribution,
                             smoothing_centre, theorem7_epsilon)


def test_alpha_c_distribution_properties():
    rng = np.random.default_rng(0)
    d = alpha_c_distribution(500, 0.1, 0.2, rng=rng)
    assert d.n == 500 and is_alpha_c_distribution(d, 0.1, 0.2)
    assert (d.p < 0.5).any() and (d.p > 0.5).any()
    assert not is_alpha_c_distribution(ProductDistribution.uniform(3), 0.1, 0.2)
    assert alpha_c_distribution(5, 0.1, 0.2, rng=np.random.default_rng(1)) == \
        alpha_c_distribution(5, 0.1, 0.2, rng=np.random.default_rng(1))


@pytest.mark.parametrize("alpha,c", [(0.0, 0.1), (0.5, 0.1), (0.7, 0.1), (0.1, 0.0), (0.1, -0.2), (0.3, 0.25)])
def test_bad_alpha_c(alpha, c):
    name = "alpha" if not 0 < alpha < 0.5 else "c"
    with pytest.raises(ValueError, match=name):
        alpha_c_distribution(4, alpha, c, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=name):
        smoothed_distribution(0.5, alpha, c, rng=np.random.default_rng(0), n=4)


def test_smoothed_distribution():
    rng = np.random.default_rng(2)
    d = smoothed_distribution(0.5, 0.1, 0.05, rng=rng, n=2000)
    assert np.all(np.abs(d.p - 0.5) <= 0.05) and d.p.std() == pytest.approx(0.05 / np.sqrt(3), rel=0.1)
    ph = np.array([0.3, 0.5, 0.7])
    d = smoothed_distribution(ph, 0.1, 0.1, rng=rng)
    assert np.all(np.abs(d.p - ph) <= 0.1)
    with pytest.raises(ValueError, match="p_hat"):
        smoothed_distribution([0.5, 0.15], 0.1, 0.1, rng=rng)


def test_random_junta_and_parity():
    rng = np.random.default_rng(3)
    J, t = random_junta(10, 4, rng=rng)
    assert J.size == 4 and np.all(np.diff(J) > 0) and t.shape == (16,)
    idx = np.arange(16)
    assert all((t != t[idx ^ (1 << i)]).any() for i in range(4))  # depends on every variable
    J, t = random_junta(10, 3, rng=rng, kind="parity")
    X = (rng.random((200, 10)) < 0.5).astype(np.uint8)
    assert np.array_equal(junta(X, J, t), parity(X, J))
    assert np.array_equal(parity_table(2), [0, 1, 1, 0])
    tree = junta_tree(10, J, t)
    assert np.array_equal(tree.predict(X), parity(X, J)) and tree.depth == 3
    with pytest.raises(ValueError, match="k"):
        random_junta(5, 6, rng=rng)
    with pytest.raises(ValueError, match="k"):
        random_junta(5, 0, rng=rng)
    with pytest.raises(ValueError, match="kind"):
        random_junta(5, 2, rng=rng, kind="tribes")


def test_multilinear_matches_enumeration():
    rng = np.random.default_rng(4)
    t = rng.integers(0, 2, 32).astype(np.uint8)
    p = rng.random(5)
    d = ProductDistribution(p)
    assert multilinear(t, p[None, :])[0] == pytest.approx(float(d.point_weights() @ t))
    assert multilinear(t, all_points(5).astype(float)) == pytest.approx(t.astype(float))


def test_covariance_measure_brute_force():
    rng = np.random.default_rng(5)
    k = 4
    t = rng.integers(0, 2, 2**k).astype(np.uint8)
    d = ProductDistribution(rng.uniform(0.1, 0.9, k))
    W = all_restrictions(k)
    I = covariance_measure(t, d, W)
    P = all_points(k)
    wts = d.point_weights()
    for r, w in enumerate(W[:: 7]):
        keep = ((w < 0) | (P == w)).all(axis=1)
        q = wts * keep
        q = q / q.sum()
        brute = (q * t) @ P - (q @ t) * (q @ P)
        assert np.allclose(I[r * 7], brute, atol=1e-12)
    assert W.shape == (81, 4) and np.all(W[0] == -1)


def test_empirical_covariance_converges_and_restricts():
    rng = np.random.default_rng(6)
    d = ProductDistribution([0.3, 0.6, 0.8])
    t = np.array([0, 1, 1, 1, 0, 0, 1, 0], dtype=np.uint8)
    X = d.sample(400000, rng=rng)
    y = junta(X, [0, 1, 2], t)
    w = np.array([-1, 1, -1])
    assert np.allclose(empirical_covariance(X, y, w), covariance_measure(t, d, w), atol=4e-3)
    with pytest.raises(ValueError, match="S_w"):
        empirical_covariance(X[:1] * 0, y[:1], np.array([1, -1, -1]))


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_exact_covariance_zero_for_irrelevant(seed):
    """I(D_w, i) = 0 exactly (up to rounding) for every w when f ignores x_i; also on the path."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    k = int(rng.integers(1, n + 1))
    J, t = random_junta(n, k, rng=rng)
    table = junta(all_points(n), J, t)
    d = ProductDistribution(rng.uniform(0.05, 0.95, n))
    W = all_restrictions(n)
    I = covariance_measure(table, d, W)
    irrelevant = np.setdiff1d(np.arange(n), J)
    assert np.all(np.abs(I[:, irrelevant]) < 1e-14)
    assert np.all(I[W >= 0] == 0.0)
    # and some relevant coordinate is correlated at the root (a non-constant junta)
    assert np.abs(I[0, J]).max() > 0


def test_restriction_is_constant_and_population_gain():
    t = parity_table(3)
    W = all_restrictions(3)
    const = restriction_is_constant(t, W)
    assert np.array_equal(const, (W >= 0).all(axis=1))
    u = ProductDistribution.uniform(3)
    assert np.allclose(population_gain(t, u, impurity="entropy"), 0.0)  # Kearns' observation
    d = ProductDistribution([0.2, 0.7, 0.9])
    assert np.all(population_gain(t, d) > 0)


def test_lemma9_holds_exactly_on_parities():
    rng = np.random.default_rng(7)
    for k in (1, 2, 3, 4, 5):
        d = alpha_c_distribution(k, 0.1, 0.15, rng=rng)
        I = covariance_measure(parity_table(k), d, all_restrictions(k))
        W = all_restrictions(k)
        assert np.abs(I[W < 0]).min() > bounds.bdm20_lemma9_covariance_lower(0.1, 0.15, k)


def test_bounds_values_and_errors():
    assert bounds.bdm20_lemma5_gain_upper(4, 0.01) == pytest.approx(0.08)
    assert bounds.bdm20_lemma6_gain_lower(8, 0.1) == pytest.approx(0.01)
    assert bounds.bdm20_lemma9_covariance_lower(0.1, 0.25, 3) == pytest.approx(0.01 * 0.25)
    assert bounds.bdm20_lemma11_threshold(0.1, 0.5, 0.2, 2) == pytest.approx(2 * 0.01 * 0.25 * 0.1**4)
    printed = bounds.bdm20_theorem10_samples(8, 4, 0.1, 0.2, 3, 100, 0.1)
    derived = bounds.bdm20_theorem10_samples(8, 4, 0.1, 0.2, 3, 100, 0.1, as_printed=False)
    assert printed > derived > 0
    assert derived == pytest.approx(bounds.bdm20_theorem7_samples(
        8, 4, bounds.bdm20_lemma9_covariance_lower(0.1, 0.2, 3), 0.1, 3, 100, 0.1))
    assert bounds.bdm20_theorem12_samples(8, 4, 0.1, 0.2, 3, 100, 0.1, 0.1) > 0
    with pytest.raises(ValueError, match="alpha"):
        bounds.bdm20_lemma9_covariance_lower(0.5, 0.1, 2)
    with pytest.raises(ValueError, match="c"):
        bounds.bdm20_lemma11_threshold(0.1, 0.1, 0.0, 2)


@pytest.mark.parametrize("member", ["random", "inner", "outer", "corner"])
def test_every_member_is_an_alpha_c_distribution(member):
    rng = np.random.default_rng(5)
    for _ in range(50):
        D = alpha_c_distribution(6, 0.1, 0.15, rng=rng, member=member)
        assert is_alpha_c_distribution(D, 0.1, 0.15)


def test_boundary_members_sit_in_their_bands():
    rng = np.random.default_rng(6)
    alpha, c = 0.1, 0.15
    band = BOUNDARY_BAND * (0.5 - alpha - c)
    inner = np.abs(alpha_c_distribution(200, alpha, c, rng=rng, member="inner").p - 0.5)
    outer = np.abs(alpha_c_distribution(200, alpha, c, rng=rng, member="outer").p - 0.5)
    corner = np.abs(alpha_c_distribution(5, alpha, c, rng=rng, member="corner").p - 0.5)
    assert inner.max() <= c + band and inner.min() > c
    assert outer.min() >= 0.5 - alpha - band and outer.max() < 0.5 - alpha
    assert corner[0] >= 0.5 - alpha - band and corner[1:].max() <= c + band


def test_random_member_keeps_its_stream():
    a = alpha_c_distribution(7, 0.1, 0.15, rng=np.random.default_rng(9)).p
    b = alpha_c_distribution(7, 0.1, 0.15, rng=np.random.default_rng(9), member="random").p
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="member"):
        alpha_c_distribution(7, 0.1, 0.15, rng=np.random.default_rng(9), member="edge")


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_covariance_by_enumeration_matches_multilinear_form(k):
    rng = np.random.default_rng(k)
    for _ in range(5):
        t = rng.integers(0, 2, 2**k).astype(np.uint8)
        D = ProductDistribution(rng.uniform(0.05, 0.95, k))
        W = all_restrictions(k)
        np.testing.assert_allclose(covariance_by_enumeration(t, D, W), covariance_measure(t, D, W), atol=1e-13)


def test_covariance_by_enumeration_on_a_parity_is_the_product_formula():
    p = np.array([0.2, 0.7, 0.35])
    I = covariance_by_enumeration(parity_table(3), ProductDistribution(p), np.full((1, 3), -1))[0]
    expected = p * (1 - p) * np.array([abs((1 - 2 * p[1]) * (1 - 2 * p[2])), abs((1 - 2 * p[0]) * (1 - 2 * p[2])),
                                       abs((1 - 2 * p[0]) * (1 - 2 * p[1]))])
    np.testing.assert_allclose(np.abs(I), expected, atol=1e-14)


def test_hoeffding_covariance_deviation_covers_sampled_covariances():
    rng = np.random.default_rng(11)
    D = ProductDistribution(np.array([0.3, 0.6, 0.8]))
    t = parity_table(3)
    exact = covariance_measure(t, D)
    N, runs, delta = 400, 2000, 0.05
    X = (rng.random((runs, N, 3)) < D.p).astype(np.float64)
    y = X.sum(axis=2) % 2
    emp = (X * y[..., None]).mean(axis=1) - y.mean(axis=1)[:, None] * X.mean(axis=1)
    bound = hoeffding_covariance_deviation(N, delta)
    assert (np.abs(emp - exact) > bound).mean() <= delta
    assert bound == pytest.approx(3 * np.sqrt(np.log(6 / delta) / (2 * N)))
    with pytest.raises(ValueError, match="delta"):
        hoeffding_covariance_deviation(10, 1.5)
    with pytest.raises(ValueError, match="size"):
        hoeffding_covariance_deviation(0, 0.1)


@pytest.mark.parametrize("kind", ["1/2", "random", "edge"])
def test_smoothing_centres_are_admissible(kind):
    alpha, c = 0.1, 0.15
    rng = np.random.default_rng(3)
    ph = smoothing_centre(300, alpha, c, kind, rng=rng)
    assert ((ph > alpha + c) & (ph < 1 - alpha - c)).all()
    smoothed_distribution(ph, alpha, c, rng=rng)  # accepted
    if kind == "edge":
        band = BOUNDARY_BAND * (1 - 2 * (alpha + c))
        assert (np.minimum(ph - alpha - c, 1 - alpha - c - ph) <= band).all()
        assert (ph < 0.5).any() and (ph > 0.5).any()
    with pytest.raises(ValueError, match="kind"):
        smoothing_centre(3, alpha, c, "middle", rng=rng)


def test_theorem7_epsilon_of_a_parity_is_lemma9_exact():
    p = np.array([0.2, 0.7, 0.35])
    eps = theorem7_epsilon(parity_table(3), ProductDistribution(p))
    # on the all-free path the smallest coordinate-wise covariance is the answer for a parity
    expected = min(p[j] * (1 - p[j]) * np.prod([abs(1 - 2 * p[i]) for i in range(3) if i != j]) for j in range(3))
    assert eps >= expected - 1e-15
    assert eps > bounds.bdm20_lemma9_covariance_lower(0.2, 0.15, 3)
    assert theorem7_epsilon(np.zeros(4, dtype=np.uint8), ProductDistribution(np.array([0.3, 0.6]))) == np.inf
    assert theorem7_epsilon(parity_table(2), ProductDistribution.uniform(2)) == 0.0


def test_lemma4_hypotheses():
    X = all_points(3).astype(np.uint8)
    assert lemma4_hypotheses(np.array([0, 1]), X, [0, 1]) == (True, True)
    assert lemma4_hypotheses(np.array([0, 2]), X, [0, 1]) == (False, True)
    assert lemma4_hypotheses(np.array([], dtype=np.int64), X[:3], [0, 1]) == (True, False)
