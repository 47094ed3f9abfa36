import math

import numpy as np
import pytest

from dtcore import bounds


def test_osss_and_lemma53_values():
    assert bounds.osss05_max_influence_lower(1.0, 8) == pytest.approx(1 / 3)
    assert bounds.blt20_lemma53_total_influence_upper(1.0, 4) == pytest.approx(4.0)
    assert bounds.blt20_lemma53_total_influence_upper(0.0, 4) == 0.0
    with pytest.raises(ValueError, match="s must be a tree size >= 2"):
        bounds.osss05_max_influence_lower(1.0, 1)


def test_lemma52_54():
    assert bounds.blt20_lemma52_score_lower(0.1, 5, 4) == pytest.approx(0.1 / 10)
    assert bounds.blt20_lemma54_threshold(0.25, 4) == pytest.approx(0.25 * 6)
    assert np.allclose(bounds.blt20_lemma54_score_lower(np.array([3.0]), 0.25, 2, 4), [3.0 / (2 * 6 * 2)])
    with pytest.raises(ValueError, match="eps must be in"):
        bounds.blt20_lemma52_score_lower(0.7, 1, 4)


def test_theorem3_bound_formula():
    s, eps, c0 = 4.0, 0.25, 1.0
    a, b = math.log2(16 / 0.25), 2.0
    l1 = max(1, math.ceil((c0 / (eps * a)) ** (a * b)))
    assert bounds.blt20_theorem3_size_bound(s, eps, c0) == pytest.approx(1 + l1 * math.exp(b * (a - 1)))
    assert bounds.blt20_theorem3_log2_size_bound(s, eps, c0) == pytest.approx(math.log2(bounds.blt20_theorem3_size_bound(s, eps, c0)))
    # monotone: a smaller eps or a larger s never gives a smaller bound
    assert bounds.blt20_theorem3_log2_size_bound(8, 0.1) > bounds.blt20_theorem3_log2_size_bound(4, 0.1)
    assert bounds.blt20_theorem3_log2_size_bound(8, 0.05) > bounds.blt20_theorem3_log2_size_bound(8, 0.1)
    assert bounds.blt20_theorem3_exponent(4, 0.25) == pytest.approx(4 * 2)


def test_theorem3_bound_is_below_2_to_the_n_only_for_tiny_s_and_large_eps():
    assert bounds.blt20_theorem3_log2_size_bound(3, 0.4) < 12
    assert bounds.blt20_theorem3_log2_size_bound(4, 0.2) > 12
    assert bounds.blt20_theorem3_exponent(8, 0.25) == pytest.approx(5 * 2)


def test_the_bounds_compute_the_depth_cap_themselves():
    from dtcore.topdown import depth_cap
    for t in (1, 2, 3, 4, 16, 100, 256, 4096):
        assert bounds.bglt20_depth_cap(t) == depth_cap(t)
    with pytest.raises(ValueError, match="t must be"):
        bounds.bglt20_depth_cap(0)
