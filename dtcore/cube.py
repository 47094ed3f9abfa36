"""The Boolean cube {0,1}^n, product distributions on it, and truth tables.

Convention (ARCHITECTURE.md): a truth table on n variables is a flat array of length 2^n whose
entry at index ``k`` is f(x) for the point with ``x_i = (k >> i) & 1``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from .validate import check_binary_matrix, check_int, check_rng

MAX_TABLE_VARIABLES = 26
"""Largest n for which dtcore materialises a truth table (2^26 bytes = 64 MiB)."""


def all_points(n: int) -> np.ndarray:
    """All 2^n points of {0,1}^n as a ``(2^n, n)`` uint8 array, row k having bits of k."""
    n = check_int("n", n, 0, MAX_TABLE_VARIABLES)
    k = np.arange(2**n, dtype=np.int64)
    return ((k[:, None] >> np.arange(n)) & 1).astype(np.uint8)


def point_index(X: np.ndarray) -> np.ndarray:
    """Index into a truth table of every row of ``X`` (inverse of :func:`all_points`)."""
    X = check_binary_matrix("X", X)
    if X.shape[1] > 62:
        raise ValueError(f"X must have at most 62 columns to be indexed, got {X.shape[1]}")
    return X.astype(np.int64) @ (np.int64(1) << np.arange(X.shape[1], dtype=np.int64))


def table_variables(table: np.ndarray, name: str = "table") -> int:
    """Return n for a truth table of length 2^n; raise ``ValueError`` for anything else."""
    arr = np.asarray(table)
    size = arr.shape[0] if arr.ndim == 1 else -1
    if arr.ndim != 1 or size < 1 or size & (size - 1):
        raise ValueError(
            f"{name} must be a 1-D array whose length is a power of two (2^n), got shape {arr.shape}"
        )
    n = size.bit_length() - 1
    if n > MAX_TABLE_VARIABLES:
        raise ValueError(f"{name} must have n <= {MAX_TABLE_VARIABLES} variables, got n = {n}")
    return n


def check_table(table: object, name: str = "table") -> np.ndarray:
    """Return a Boolean truth table as uint8 after checking its length and 0/1 values."""
    arr = np.asarray(table)
    table_variables(arr, name)
    if arr.dtype == np.uint8:
        bad = arr.size > 0 and int(arr.max()) > 1        # one pass, not a set membership test
    else:
        bad = arr.dtype != np.bool_ and not np.isin(arr, (0, 1)).all()
    if bad:
        raise ValueError(f"{name} must hold only 0/1 values")
    return arr.astype(np.uint8, copy=False)


CHUNK_BITS = 16
"""Cube points evaluated per call when a truth table is built in chunks (2^16 points, n bytes each)."""


def cube_chunks(n: int, chunk_bits: int = CHUNK_BITS) -> Iterator[tuple[slice, np.ndarray]]:
    """The points of {0,1}^n in truth-table order, ``2^chunk_bits`` at a time.

    Yields ``(slice, X)`` with ``X`` equal to ``all_points(n)[slice]``: the low ``chunk_bits``
    coordinates run through every pattern, the high ones are the chunk's number. Peak memory is
    one chunk, not the cube (2^24 points of 24 bytes would be 0.4 GB, their int64 index 3 GB).
    """
    n = check_int("n", n, 0, MAX_TABLE_VARIABLES)
    chunk_bits = check_int("chunk_bits", chunk_bits, 1)
    low_bits = min(n, chunk_bits)
    low = all_points(low_bits)
    size = low.shape[0]
    high = np.arange(n - low_bits, dtype=np.int64)
    for k in range(2 ** (n - low_bits)):  # loop over chunks; NumPy body
        X = np.empty((size, n), dtype=np.uint8)
        X[:, :low_bits] = low
        X[:, low_bits:] = ((k >> high) & 1).astype(np.uint8)
        yield slice(k * size, (k + 1) * size), X


def truth_table(fn: Callable[[np.ndarray], np.ndarray], n: int) -> np.ndarray:
    """Evaluate a vectorised Boolean function ``fn(X) -> labels`` on the whole cube.

    ``fn`` must act row by row (its label for a point may not depend on the other rows): it is
    called on chunks of 2^16 points (:func:`cube_chunks`), so n = 24 needs the 16 MiB table and
    one chunk, never the cube as a matrix. For n <= 16 this is one call on ``all_points(n)``.
    """
    n = check_int("n", n, 0, MAX_TABLE_VARIABLES)
    out = np.empty(2**n, dtype=np.uint8)
    for part, X in cube_chunks(n):  # loop over chunks; NumPy body
        values = np.asarray(fn(X))
        if values.shape != (X.shape[0],):
            what = f"shape ({2**n},)" if X.shape[0] == 2**n else f"shape ({X.shape[0]},) for a chunk of {X.shape[0]} points"
            raise ValueError(f"fn must return one label per point, {what}, got {values.shape}")
        if values.dtype != np.bool_ and not np.isin(values, (0, 1)).all():
            raise ValueError("fn(all_points(n)) must hold only 0/1 values")
        out[part] = values
    return out


class ProductDistribution:
    """The product measure on {0,1}^n with Pr[x_i = 1] = p_i (uniform: every p_i = 1/2).

    Blanc–Lange–Tan 2020 work under the uniform measure; Moakhar et al. 2026 and
    Brutzkus–Daniely–Malach 2020 under general product measures.
    """

    def __init__(self, p: object) -> None:
        arr = np.array(p, dtype=np.float64, ndmin=1)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"p must be a non-empty 1-D array of probabilities, got shape {arr.shape}")
        bad = ~((arr > 0) & (arr < 1))
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"p[{i}] must be in (0, 1), got {arr[i]!r}")
        arr.setflags(write=False)
        self.p = arr

    @classmethod
    def uniform(cls, n: int) -> "ProductDistribution":
        """The uniform distribution on {0,1}^n."""
        return cls(np.full(check_int("n", n, 1), 0.5))

    @property
    def n(self) -> int:
        """Number of coordinates."""
        return int(self.p.size)

    @property
    def is_uniform(self) -> bool:
        """True when every p_i is exactly 1/2."""
        return bool(np.all(self.p == 0.5))

    def sample(self, m: int, *, rng: np.random.Generator) -> np.ndarray:
        """Draw ``m`` independent points as an ``(m, n)`` uint8 array."""
        m = check_int("m", m, 0)
        rng = check_rng(rng)
        return (rng.random((m, self.n)) < self.p).astype(np.uint8)

    def point_weights(self) -> np.ndarray:
        """Pr[x] for every point of the cube, as a length-2^n array in truth-table order."""
        check_int("n", self.n, 1, MAX_TABLE_VARIABLES)
        weights = np.ones(1)
        for p_i in self.p:  # one NumPy outer product per coordinate
            weights = np.concatenate([weights * (1.0 - p_i), weights * p_i])
        return weights

    def __repr__(self) -> str:
        if self.is_uniform:
            return f"ProductDistribution.uniform({self.n})"
        return f"ProductDistribution({np.array2string(self.p, precision=3)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProductDistribution) and np.array_equal(self.p, other.p)

    def __hash__(self) -> int:
        return hash(self.p.tobytes())


def resolve_distribution(dist: ProductDistribution | None, n: int) -> ProductDistribution:
    """``dist`` if it lives on n coordinates, the uniform distribution when ``dist`` is None."""
    if dist is None:
        return ProductDistribution.uniform(n)
    if not isinstance(dist, ProductDistribution):
        raise ValueError(f"dist must be a ProductDistribution or None, got {type(dist).__name__}")
    if dist.n != n:
        raise ValueError(f"dist must have n = {n} coordinates to match the table, got {dist.n}")
    return dist
