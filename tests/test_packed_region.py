"""The bit-packed uniform-measure path of ExactMeasure.region against restrict() + influences()."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from dtcore.analysis import ExactMeasure, influences, mean, restrict


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 10), seed=st.integers(0, 2**32 - 1))
def test_packed_region_matches_restriction(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = (rng.random(2**n) < rng.random()).astype(np.uint8)
    measure = ExactMeasure(table)
    restriction = np.where(rng.random(n) < 0.5, -1, rng.integers(0, 2, n))
    p_reach, mass_one, weighted = measure.region(restriction)
    fixed = {i: int(v) for i, v in enumerate(restriction) if v >= 0}
    sub, free = restrict(table, fixed)
    assert p_reach == 2.0 ** -len(fixed)
    assert np.isclose(mass_one, p_reach * (mean(sub) if free else float(sub[0])))
    expect = np.zeros(n)
    if free:
        expect[free] = p_reach * influences(sub)
    np.testing.assert_allclose(weighted, expect, rtol=0, atol=1e-15)
