"""Target families on {0,1}^n, each a vectorised function of an ``(m, n)`` 0/1 array.

Use :func:`dtcore.cube.truth_table` to tabulate one, e.g. ``truth_table(lambda X: majority(X), n)``.
Random decision trees are returned as :class:`~dtcore.tree.DecisionTree` objects.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .validate import check_binary_matrix, check_int, check_rng
from .tree import DecisionTree


def _columns(X: np.ndarray, variables: Sequence[int] | None) -> tuple[np.ndarray, np.ndarray]:
    X = check_binary_matrix("X", X)
    n = X.shape[1]
    if variables is None:
        return X, np.arange(n)
    v = np.asarray(variables, dtype=np.int64).reshape(-1)
    if v.size == 0 or v.min() < 0 or v.max() >= n or np.unique(v).size != v.size:
        raise ValueError(f"variables must be distinct indices in [0, {n - 1}], got {list(v)}")
    return X, v


def majority(X: np.ndarray, variables: Sequence[int] | None = None) -> np.ndarray:
    """Maj: 1 when more than half of the chosen variables are 1 (monotone)."""
    X, v = _columns(X, variables)
    return (2 * X[:, v].sum(axis=1, dtype=np.int64) > v.size).astype(np.uint8)


def threshold(X: np.ndarray, weights: Sequence[float], theta: float) -> np.ndarray:
    """Linear threshold: 1 when sum_i w_i x_i >= theta (monotone when every w_i >= 0)."""
    X = check_binary_matrix("X", X)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (X.shape[1],):
        raise ValueError(f"weights must have length n = {X.shape[1]}, got shape {w.shape}")
    return (X @ w >= theta).astype(np.uint8)


def parity(X: np.ndarray, variables: Sequence[int] | None = None) -> np.ndarray:
    """chi_J: the XOR of the chosen variables."""
    X, v = _columns(X, variables)
    return (X[:, v].sum(axis=1, dtype=np.int64) & 1).astype(np.uint8)


def tribes(X: np.ndarray, width: int, n_tribes: int | None = None) -> np.ndarray:
    """Tribes: OR over disjoint blocks of ``width`` consecutive variables of their AND (monotone)."""
    X = check_binary_matrix("X", X)
    width = check_int("width", width, 1, X.shape[1])
    max_tribes = X.shape[1] // width
    n_tribes = max_tribes if n_tribes is None else check_int("n_tribes", n_tribes, 1, max_tribes)
    blocks = X[:, : width * n_tribes].reshape(X.shape[0], n_tribes, width)
    return blocks.all(axis=2).any(axis=1).astype(np.uint8)


def address(X: np.ndarray, n_address: int) -> np.ndarray:
    """Multiplexer: the first k bits address one of the next 2^k data bits, which is the output."""
    X = check_binary_matrix("X", X)
    k = check_int("n_address", n_address, 1)
    if k + 2**k > X.shape[1]:
        raise ValueError(f"n_address = {k} needs n >= {k + 2**k} variables, got n = {X.shape[1]}")
    a = X[:, :k].astype(np.int64) @ (1 << np.arange(k))
    return X[np.arange(X.shape[0]), k + a].astype(np.uint8)


def random_tree(n: int, size: int, rng: np.random.Generator, max_depth: int | None = None) -> DecisionTree:
    """A random decision tree with exactly ``size`` leaves.

    Grows by splitting a uniformly chosen leaf (with depth below ``max_depth``) on a uniformly
    chosen variable not yet on its path. Leaf labels are random, except that two sibling leaves
    always get different labels so that no split is redundant at the bottom level.
    """
    n = check_int("n", n, 1)
    max_depth = n if max_depth is None else check_int("max_depth", max_depth, 1, n)
    size = check_int("size", size, 1, 2**max_depth)
    rng = check_rng(rng)
    tree = DecisionTree(n)
    open_leaves = [0]
    while tree.size < size:
        pos = int(rng.integers(len(open_leaves)))
        leaf = open_leaves.pop(pos)
        free = np.flatnonzero(tree._restriction[leaf] < 0)
        c0, c1 = tree.split(leaf, int(rng.choice(free)))
        open_leaves += [c for c in (c0, c1) if tree.node_depth[c] < max_depth]
    _label_siblings_apart(tree, rng)
    return tree


def random_tree_of_depth(n: int, depth: int, rng: np.random.Generator) -> DecisionTree:
    """A complete tree of the given depth, random distinct variables on each path, random labels."""
    n = check_int("n", n, 1)
    depth = check_int("depth", depth, 1, n)
    return random_tree(n, 2**depth, check_rng(rng), max_depth=depth)


def _label_siblings_apart(tree: DecisionTree, rng: np.random.Generator) -> None:
    leaves = set(tree.leaves())
    labels = rng.integers(0, 2, size=tree.node_count)
    for node, f in enumerate(tree.feature):
        c0, c1 = tree.child0[node], tree.child1[node]
        if f >= 0 and c0 in leaves and c1 in leaves:
            labels[c1] = 1 - labels[c0]
    for leaf in leaves:
        tree.set_value(leaf, float(labels[leaf]))
