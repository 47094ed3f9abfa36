"""Low-degree (L2) and L1 polynomial regression (Blanc–Lange–Tan 2021, Sec. 5)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import sparse
from scipy.optimize import linprog

from dtcore.analysis import walsh_hadamard
from dtcore.cube import all_points
from dtcore.polyreg import (features, l1_loss, l1_regression, l2_loss, low_degree_regression,
                            monomials, n_monomials, trunc)


def _data(seed, m=300, n=5):
    rng = np.random.default_rng(seed)
    X = (rng.random((m, n)) < 0.5).astype(np.uint8)
    y = ((X[:, 0] & X[:, 1]) ^ (rng.random(m) < 0.2)).astype(np.uint8)
    return X, y


def test_monomials_and_features():
    assert monomials(3, 2) == [(), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]
    assert n_monomials(10, 3) == 1 + 10 + 45 + 120 == len(monomials(10, 3))
    X = all_points(4)
    F = features(X, 4)
    ref = np.stack([np.prod(1 - 2.0 * X[:, list(S)], axis=1) for S in monomials(4, 4)], axis=1)
    assert np.array_equal(F, ref)
    assert np.allclose(F.T @ F / 16, np.eye(16))  # characters are orthonormal


def test_trunc():
    assert trunc(np.array([-1.0, 0.3, 2.0])).tolist() == [0.0, 0.3, 1.0]


def test_l2_on_cube_recovers_fourier_truncation():
    """On the whole cube, least squares = keep the Fourier coefficients of degree <= d."""
    rng = np.random.default_rng(0)
    n, d = 5, 2
    X = all_points(n)
    y = (rng.random(2**n) < 0.5).astype(np.uint8)
    p = low_degree_regression(X, y, degree=d)
    coef = walsh_hadamard(y.astype(float))
    masks = [sum(1 << i for i in S) for S in monomials(n, d)]
    assert np.allclose(p.coef, coef[masks])


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(0, 3), st.integers(5, 80), st.integers(0, 2**31 - 1))
def test_l2_and_l1_are_optimal(n, d, m, seed):
    """p* has the least L2 (resp. L1) loss among degree-d polynomials: no perturbation beats it."""
    X, y = _data(seed, m, n)
    rng = np.random.default_rng(seed)
    p2, p1 = low_degree_regression(X, y, degree=d), l1_regression(X, y, degree=d)
    base2, base1 = l2_loss(p2, X, y), l1_loss(p1, X, y)
    for _ in range(10):
        delta = rng.normal(0, 0.2, p2.coef.size)
        q2 = type(p2)(n=n, degree=d, coef=p2.coef + delta, kind="l2")
        q1 = type(p1)(n=n, degree=d, coef=p1.coef + delta, kind="l1")
        assert l2_loss(q2, X, y) >= base2 - 1e-9
        assert l1_loss(q1, X, y) >= base1 - 1e-9


def test_l1_matches_primal_lp():
    X, y = _data(1, 200, 5)
    p = l1_regression(X, y, degree=2)
    Phi = features(X, 2)
    m, K = Phi.shape
    A = sparse.vstack([sparse.hstack([Phi, -sparse.eye(m)]), sparse.hstack([-Phi, -sparse.eye(m)])])
    yf = y.astype(float)
    r = linprog(np.r_[np.zeros(K), np.ones(m)], A_ub=A, b_ub=np.r_[yf, -yf],
                bounds=[(None, None)] * K + [(0, None)] * m, method="highs")
    assert l1_loss(p, X, y) == pytest.approx(r.fun / m, abs=1e-9)


def test_hypotheses():
    X, y = _data(2, 400, 5)
    p2, p1 = low_degree_regression(X, y, degree=2), l1_regression(X, y, degree=2)
    assert set(np.unique(p2.predict(X))) <= {0, 1}
    q = p1.predict_proba(X)
    assert q.min() >= 0 and q.max() <= 1
    rng = np.random.default_rng(0)
    draws = np.array([p1.predict(X, rng=rng) for _ in range(2000)])
    assert np.abs(draws.mean(axis=0) - q).max() < 0.06
    with pytest.raises(ValueError, match="rng"):
        p1.predict(X)
    assert not p1.is_proper and not p2.is_proper


def test_degree_zero_is_constant():
    X, y = _data(3, 101, 4)
    p = low_degree_regression(X, y, degree=0)
    assert p.coef[0] == pytest.approx(y.mean())
    p1 = l1_regression(X, y, degree=0)  # the L1 constant is a median of the labels
    assert p1.coef[0] == pytest.approx(float(np.median(y)))


@pytest.mark.parametrize("fit", [low_degree_regression, l1_regression])
def test_bad_degree(fit):
    X, y = _data(4, 20, 3)
    with pytest.raises(ValueError, match="degree"):
        fit(X, y, degree=-1)
    with pytest.raises(ValueError, match="X"):
        fit(X[:0], y[:0], degree=1)
    with pytest.raises(ValueError, match="degree"):
        features(X, -2)
