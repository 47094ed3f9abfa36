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
    a = d.sample(20000, rng=np.random.default_rng(3))
    b = d.sample(20000, rng=np.random.default_rng(3))
    assert np.array_equal(a, b)
    assert np.allclose(a.mean(axis=0), d.p, atol=0.02)


def test_sampling_needs_a_generator():
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        ProductDistribution.uniform(2).sample(3, rng=0)


def test_uniform_and_resolution():
    u = ProductDistribution.uniform(4)
    assert u.is_uniform and u.n == 4
    assert resolve_distribution(None, 4) == u
    with pytest.raises(ValueError, match="n = 3"):
        resolve_distribution(u, 3)
    with pytest.raises(ValueError, match="n must be an integer in"):
        ProductDistribution.uniform(0)


# --- chunked truth tables ------------------------------------------------------------------------
def _straightforward_table(fn, n):
    """The former implementation: every cube point materialised, one call."""
    return np.asarray(fn(all_points(n))).astype(np.uint8)


@pytest.mark.parametrize("chunk_bits", [1, 3, 5, 18])
def test_cube_chunks_are_all_points_in_order(chunk_bits):
    from dtcore.cube import cube_chunks

    for n in (1, 4, 7):
        parts = list(cube_chunks(n, chunk_bits))
        X = np.concatenate([X for _, X in parts])
        assert np.array_equal(X, all_points(n))
        assert [p.start for p, _ in parts] == list(range(0, 2**n, 2 ** min(n, chunk_bits)))


@pytest.mark.parametrize("n", [1, 5, 17])
def test_chunked_truth_tables_equal_the_straightforward_ones(n, monkeypatch):
    import dtcore.cube as cube
    from dtcore.functions import majority, parity, random_tree

    rng = np.random.default_rng(n)
    tree = random_tree(n, min(2**n // 2, 64), rng=rng) if n > 1 else None
    for fn in (majority, parity, lambda X: X[:, -1] & X[:, 0], lambda X: (X.sum(axis=1) % 3 == 0)):
        assert np.array_equal(truth_table(fn, n), _straightforward_table(fn, n))
    if tree is not None:
        expected = tree.predict(all_points(n))
        assert np.array_equal(tree.truth_table(), expected)
        monkeypatch.setattr(cube.cube_chunks, "__defaults__", (max(1, n - 5),))   # 32 chunks: the same bits
        assert np.array_equal(tree.truth_table(), expected)
        assert np.array_equal(truth_table(tree.predict, n), expected)


def test_chunked_truth_table_rejects_bad_chunks():
    with pytest.raises(ValueError, match="one label per point"):
        truth_table(lambda X: X[:10, 0], 20)
    with pytest.raises(ValueError, match="0/1"):
        truth_table(lambda X: X.sum(axis=1), 20)


def test_truth_table_peak_memory_is_one_chunk():
    """At n = 20 the cube as a uint8 matrix alone is 20 MiB (its int64 bit expansion 160 MiB); the
    chunked tables need the 1 MiB table plus one chunk of 2^16 points and fn's work on it."""
    import tracemalloc

    from dtcore.functions import majority, random_tree

    n = 20
    tree = random_tree(n, 256, rng=np.random.default_rng(0))
    for build in (lambda: truth_table(majority, n), tree.truth_table):
        tracemalloc.start()
        build()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak <= 2**n + 16 * 2**20, peak / 2**20
