"""Nasty-noise adversaries (Blanc–Lange–Tan 2021, Definition 2): budgets and effects."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dtcore.find import find, training_errors
from dtcore.noise import (ADVERSARIES, budget, corrupt, equalizing_adversary, find_adversary,
                          indistinguishable_pair, moving_adversary, point_mass_adversary,
                          random_label_flips, subcube_adversary)
from dtcore.stochastic import error, mean_table, opt, random_stochastic_tree, sample


def _sample(seed: int, m: int = 300, n: int = 6):
    rng = np.random.default_rng(seed)
    t = random_stochastic_tree(n, 6, 2, rng=rng)
    X, y = sample(t, m, rng=rng)
    return X, y, rng


def test_budget_is_floor():
    assert budget(0.1, 95) == 9 and budget(0.0, 100) == 0 and budget(0.25, 4) == 1


@pytest.mark.parametrize("eta", [-0.1, 0.5, 0.7, float("nan")])
def test_eta_outside_range_is_rejected(eta):
    X, y, rng = _sample(0, 20)
    with pytest.raises(ValueError, match="eta"):
        random_label_flips(X, y, eta, rng=rng)
    with pytest.raises(ValueError, match="eta"):
        find_adversary(X, y, eta, 2, rng=rng)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(ADVERSARIES)), st.floats(0, 0.49), st.integers(1, 400),
       st.integers(0, 2**31 - 1), st.integers(0, 3))
def test_adversary_spends_exactly_its_budget(kind, eta, m, seed, depth):
    """Issue 12 item 5: every adversary changes exactly floor(eta m) rows, counted independently."""
    X, y, rng = _sample(seed, m)
    out = corrupt(kind, X, y, eta, rng=rng, depth=depth, degree=min(depth, 2))
    recount = int(((out.X != X).any(axis=1) | (out.y != y)).sum())
    assert recount == out.n_changed == math.floor(eta * m + 1e-12) == out.budget
    assert out.X.shape == X.shape and out.y.shape == y.shape
    assert np.array_equal(out.X[~out.changed], X[~out.changed])


def test_random_flips_use_the_whole_budget_and_only_labels():
    X, y, rng = _sample(1, 500)
    out = random_label_flips(X, y, 0.1, rng=rng)
    assert out.n_changed == 50 and np.array_equal(out.X, X)


def test_find_adversary_hurts_find_more_than_random_flips():
    rng = np.random.default_rng(2)
    t = random_stochastic_tree(8, 8, 2, rng=rng, max_depth=3)
    mu = mean_table(t)
    from dtcore.cube import all_points
    pts = all_points(8)
    worse = []
    for _ in range(5):
        X, y = sample(t, 2000, rng=rng)
        err = {}
        for kind in ("random", "find"):
            c = corrupt(kind, X, y, 0.1, rng=rng, depth=3)
            err[kind] = error(mu, find(c.X, c.y, depth=3).tree.predict(pts).astype(float))
        worse.append(err["find"] - err["random"])
    assert np.mean(worse) > 0


def test_find_adversary_raises_clean_training_error_of_find():
    X, y, rng = _sample(3, 1000)
    clean = find(X, y, depth=2)
    c = find_adversary(X, y, 0.1, 2, rng=rng)
    h = find(c.X, c.y, depth=2).tree
    # Theorem 3's sample-level chain: err_S°(h) <= err_S°(clean optimum) + 2 eta
    assert training_errors(h, X, y) <= clean.errors + 2 * c.budget
    assert training_errors(h, X, y) > clean.errors  # the attack did something


def test_moving_adversary_changes_examples():
    X, y, rng = _sample(4, 1000)
    c = moving_adversary(X, y, 0.1, 2, rng=rng)
    assert ((c.X != X).any(axis=1)).sum() > 0 and c.n_changed <= c.budget


def test_indistinguishable_pair_excess_sums_to_2eta():
    eta, codim, n = 0.05, 2, 5
    tp, tm, region, t = indistinguishable_pair(n, eta, codim)
    mup, mum = mean_table(tp), mean_table(tm)
    assert t == pytest.approx(eta * 4)
    rng = np.random.default_rng(5)
    from dtcore.cube import all_points
    inside = (all_points(n)[:, :codim] == 1).all(axis=1)
    assert np.array_equal(mup[~inside], mum[~inside])
    for _ in range(10):
        h = rng.random(2**n)  # any (stochastic) hypothesis: excess sum >= 2 eta
        total = (error(mup, h) - opt(mup)) + (error(mum, h) - opt(mum))
        assert total >= 2 * eta - 1e-12
        h[~inside] = mup[~inside]  # Bayes outside R: exactly 2 eta
        total = (error(mup, h) - opt(mup)) + (error(mum, h) - opt(mum))
        assert total == pytest.approx(2 * eta)
    with pytest.raises(ValueError, match="eta"):
        indistinguishable_pair(n, 0.2, 2)


def test_equalizing_adversary_makes_region_half_ones():
    tp, tm, region, t = indistinguishable_pair(6, 0.04, 2)
    rng = np.random.default_rng(6)
    for tree in (tp, tm):
        X, y = sample(tree, 4000, rng=rng)
        c = equalizing_adversary(X, y, 0.05, region, rng=rng)
        inside = (c.X[:, :2] == 1).all(axis=1)
        assert abs(c.y[inside].sum() - inside.sum() / 2) <= 0.5  # exactly half (odd: a fair coin)
        assert c.n_changed == c.budget


def test_bad_region_and_kind():
    X, y, rng = _sample(7, 30)
    with pytest.raises(ValueError, match="region"):
        equalizing_adversary(X, y, 0.1, np.array([2, 0]), rng=rng)
    with pytest.raises(ValueError, match="kind"):
        corrupt("nope", X, y, 0.1, rng=rng)
    with pytest.raises(ValueError, match="depth"):
        find_adversary(X, y, 0.1, -1, rng=rng)


def test_equalizing_adversary_makes_the_pair_identically_distributed():
    """Inside R the corrupted label counts of T_+ and T_- have the same law (exactly half)."""
    tp, tm, region, _ = indistinguishable_pair(6, 0.03, 2)  # need ~30 flips against a budget of 50
    rng = np.random.default_rng(8)
    counts = {}
    for name, tree in (("+", tp), ("-", tm)):
        fractions = []
        for _ in range(30):
            X, y = sample(tree, 1001, rng=rng)
            c = equalizing_adversary(X, y, 0.05, region, rng=rng)
            inside = (c.X[:, :2] == 1).all(axis=1)
            fractions.append(c.y[inside].sum() - inside.sum() // 2)  # 0 or 1 (the fair coin)
        counts[name] = np.mean(fractions)
    assert abs(counts["+"] - counts["-"]) < 0.3


@pytest.mark.parametrize("attack", [point_mass_adversary, subcube_adversary])
def test_regression_adversaries_hurt_their_regression(attack):
    """The point-mass / subcube attacks raise the regression's true error above random flips'."""
    from dtcore.cube import all_points
    from dtcore.polyreg import l1_regression, low_degree_regression

    rng = np.random.default_rng(9)
    t = random_stochastic_tree(10, 8, 3, rng=rng, max_depth=3)
    mu, pts = mean_table(t), all_points(10)
    fit = {point_mass_adversary: low_degree_regression, subcube_adversary: l1_regression}[attack]
    gain = []
    for _ in range(2):
        X, y = sample(t, 3000, rng=rng)
        aimed = attack(X, y, 0.2, 2, rng=rng)
        rand = random_label_flips(X, y, 0.2, rng=rng)
        assert aimed.n_changed == rand.n_changed == 600
        gain.append(error(mu, fit(aimed.X, aimed.y, degree=2).predict_proba(pts))
                    - error(mu, fit(rand.X, rand.y, degree=2).predict_proba(pts)))
    assert np.mean(gain) > 0


def test_point_mass_adversary_plants_one_point():
    X, y, rng = _sample(10, 500)
    c = point_mass_adversary(X, y, 0.1, 2, rng=rng)
    assert np.unique(c.X[c.changed], axis=0).shape[0] == 1 and np.unique(c.y[c.changed]).size == 1
