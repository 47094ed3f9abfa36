"""Impurity functions and their BGLT 2020 constants (Definitions 3 and 4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcore.impurity import (IMPURITIES, get_impurity, holder_constants, holder_slack, kappa,
                             strong_concavity_gap)

unit = st.floats(0.0, 1.0, allow_nan=False)


@pytest.mark.parametrize("name", IMPURITIES)
def test_normalisation_and_symmetry(name):
    g = get_impurity(name)
    assert g(0.0) == 0.0 and g(1.0) == 0.0
    assert g(0.5) == pytest.approx(1.0)
    p = np.linspace(0, 1, 101)
    np.testing.assert_allclose(g(p), g(1 - p), atol=1e-12)


def test_known_values():
    assert get_impurity("gini")(0.25) == pytest.approx(0.75)
    assert get_impurity("entropy")(0.25) == pytest.approx(0.8112781244591328)
    assert get_impurity("kearns_mansour")(0.25) == pytest.approx(2 * np.sqrt(3 / 16))


def test_constants():
    assert kappa("gini") == 2.0
    assert kappa("entropy") == pytest.approx(1 / np.log(2))
    assert kappa("kearns_mansour") == 1.0
    assert holder_constants("gini") == (4.0, 1.0)
    assert holder_constants("kearns_mansour") == (2.0, 0.5)
    c, a = holder_constants("entropy")
    assert a == 0.5 and c == pytest.approx(1.62288, abs=1e-5)


@pytest.mark.parametrize("name", IMPURITIES)
def test_constants_hold_on_grid_and_are_tight(name):
    p = np.linspace(0, 1, 401)
    a, b = np.meshgrid(p, p)
    assert strong_concavity_gap(name, a, b).min() >= -1e-12
    assert holder_slack(name, a, b).min() >= -1e-12
    # tight: a larger kappa fails near 1/2, a smaller C fails somewhere
    g = get_impurity(name)
    x, y = 0.5 - 1e-3, 0.5 + 1e-3
    gap = g((x + y) / 2) - (g(x) + g(y)) / 2
    assert gap < 1.01 * kappa(name) / 2 * (y - x) ** 2
    c, alpha = holder_constants(name)
    h = np.linspace(1e-6, 0.5, 200001)
    assert (g(h) / h**alpha).max() > 0.999 * c


@pytest.mark.parametrize("name", IMPURITIES)
@settings(max_examples=200, deadline=None)
@given(a=unit, b=unit)
def test_definitions_hold(name, a, b):
    # tolerance 1e-7: rounding (a+b)/2 moves p by ~1e-16, which moves sqrt-type G (entropy, KM)
    # near 0 or 1 by ~1e-8
    assert strong_concavity_gap(name, a, b) >= -1e-7
    assert holder_slack(name, a, b) >= -1e-7


def test_bad_name():
    with pytest.raises(ValueError, match="impurity"):
        get_impurity("misclassification")
