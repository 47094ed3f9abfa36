import numpy as np
import pytest

from dtcore.cube import (ProductDistribution, all_points, check_table, point_index, resolve_distribution,
                         table_variables, truth_table)


def test_all_points_bit_order():
    pts = all_points(3)
    assert pts.shape == (8, 3) and pts.dtype == np.uint8
    assert pts[5].tolist() == [1, 0, 1]  # 5 = 0b101: x0 = 1, x1 = 0, x2 = 1
    assert np.array_equal(point_index(pts), np.arange(8))


def test_truth_table_of_x0_and_x2():
    t = truth_table(lambda X: X[:, 0] & X[:, 2], 3)
    assert t.tolist() == [0, 0, 0, 0, 0, 1, 0, 1]


def test_truth_table_rejects_wrong_shape():
    with pytest.raises(ValueError, match="one label per point"):
        truth_table(lambda X: X, 2)


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((2, 2)), np.zeros(0)])
def test_table_of_wrong_length(bad):
    with pytest.raises(ValueError, match="power of two"):
        table_variables(bad)


def test_table_values_must_be_binary():
    with pytest.raises(ValueError, match="0/1"):
        check_table(np.array([0, 2, 1, 0]))


@pytest.mark.parametrize("p", [[0.0, 0.5], [0.5, 1.0], [1.2], [-0.1], [np.nan]])
def test_probabilities_outside_open_interval(p):
    with pytest.raises(ValueError, match=r"p\[\d\] must be in \(0, 1\)"):
        ProductDistribution(p)


def test_point_weights_are_products():
    d = ProductDistribution([0.2, 0.7, 0.5])
    w = d.point_weights()
    pts = all_points(3)
    expected = np.prod(np.where(pts == 1, d.p, 1 - d.p), axis=1)
    assert np.allclose(w, expected)
    assert np.isclose(w.sum(), 1.0)


def test_sampling_is_seeded_and_has_the_right_marginals():
    d = ProductDistribution([0.1, 0.5, 0.9])
    a = d.sample(20000, np.random.default_rng(3))
    b = d.sample(20000, np.random.default_rng(3))
    assert np.array_equal(a, b)
    assert np.allclose(a.mean(axis=0), d.p, atol=0.02)


def test_sampling_needs_a_generator():
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        ProductDistribution.uniform(2).sample(3, 0)


def test_uniform_and_resolution():
    u = ProductDistribution.uniform(4)
    assert u.is_uniform and u.n == 4
    assert resolve_distribution(None, 4) == u
    with pytest.raises(ValueError, match="n = 3"):
        resolve_distribution(u, 3)
    with pytest.raises(ValueError, match="n must be an integer in"):
        ProductDistribution.uniform(0)
