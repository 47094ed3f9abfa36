"""Independent oracles: brute force over small trees, exact purity gains, counting label oracles.

Each recomputes a quantity a learner computes, by a different route: :func:`brute_force_min_errors`
enumerates every tree of small depth (FIND, Blanc–Lange–Tan 2021), :func:`exact_purity_gains` reads
PurityGain off the truth table (Blanc–Gupta–Lange–Tan 2020, Sec. 2), :class:`CountingOracle` counts
the labels a run asks for and :func:`leaf_label_masses` gives exact leaf masses under a product
measure (Moakhar et al. 2026, Secs. 5.2–5.3).
"""

from __future__ import annotations

import functools

import numpy as np

from ..cube import ProductDistribution, all_points, point_index
from ..impurity import get_impurity
from ..product import Oracle
from ..tree import DecisionTree
from ..validate import check_binary_matrix, check_int, check_labels


def all_tree_tables(n: int, depth: int) -> np.ndarray:
    """Truth tables of every tree of depth <= ``depth`` on n <= 5 variables (cached, read-only)."""
    n = check_int("n", n, 1, 5)
    depth = check_int("depth", depth, 0)
    return _all_tree_tables(n, min(depth, n))


@functools.lru_cache(maxsize=16)
def _all_tree_tables(n: int, depth: int) -> np.ndarray:
    """Truth tables (K, 2^n) of every deterministic tree of depth <= ``depth`` on n variables.

    Independent of :func:`find`: enumerates trees by their functions, recursively
    (constant, or "x_i ? R : L" with L, R of depth d - 1 on the other variables). Small n only.
    """
    pts = all_points(n)
    consts = np.stack([np.zeros(2**n, np.uint8), np.ones(2**n, np.uint8)])

    def tables(d: int, free: tuple[int, ...]) -> np.ndarray:
        out = [consts]
        if d > 0:
            for i in free:
                sub = tables(d - 1, tuple(j for j in free if j != i))
                L = np.repeat(sub, sub.shape[0], axis=0)
                R = np.tile(sub, (sub.shape[0], 1))
                out.append(np.where(pts[:, i][None, :] == 1, R, L))
        return np.unique(np.concatenate(out), axis=0)

    out = tables(depth, tuple(range(n)))
    out.setflags(write=False)
    return out


def brute_force_min_errors(X: np.ndarray, y: np.ndarray, depth: int) -> int:
    """Least number of training errors over all trees of depth <= ``depth`` (exhaustive search)."""
    X = check_binary_matrix("X", X)
    y = check_labels("y", y, X.shape[0])
    tabs = all_tree_tables(X.shape[1], depth).astype(np.int64)
    idx = point_index(X)
    n1 = np.bincount(idx[y == 1], minlength=tabs.shape[1])
    n0 = np.bincount(idx[y == 0], minlength=tabs.shape[1])
    errs = tabs @ n0 + (1 - tabs) @ n1
    return int(errs.min())


def count_trees(n: int, depth: int) -> int:
    """Number of (syntactically distinct) labelled trees of depth <= d on n variables; for union bounds."""
    n = check_int("n", n, 1)
    depth = check_int("depth", depth, 0)
    count = 2
    for k in range(1, min(depth, n) + 1):  # trees of depth <= k on the n - depth + k remaining variables
        count = 2 + (n - min(depth, n) + k) * count * count
    return count


def exact_purity_gains(table: np.ndarray, restriction: np.ndarray,
                       impurity: str = "gini") -> tuple[float, float, np.ndarray]:
    """A leaf's exact statistics under the uniform distribution, from the truth table of f.

    Returns (2^-|l| G(E[f_l]), 2^-|l| min(E[f_l], 1 - E[f_l]), gains), where ``gains[i]`` is the
    true PurityGain_{G,f}(l, i) = 2^-|l| [G(E[f_l]) - G(E[f_l | x_i = 0]) / 2 - G(E[f_l | x_i = 1]) / 2]
    of BGLT 2020 (Section 2, uniform weighting), -inf on the variables fixed by l. The first value
    is the leaf's term of the potential G-impurity_f (Fact 2.1), the second its share of the error
    of the f-completion (each leaf labelled by f's majority on it). Bit i of a table index is x_i.
    """
    table = np.asarray(table, dtype=np.float64)
    n = table.size.bit_length() - 1
    if table.size != 2**n:
        raise ValueError(f"table must have length 2^n, got {table.size}")
    r = np.asarray(restriction)
    if r.shape != (n,):
        raise ValueError(f"restriction must have length {n}, got shape {r.shape}")
    G = get_impurity(impurity)
    cube = table.reshape((2,) * n)  # axis k holds x_{n-1-k}
    index = tuple(int(r[n - 1 - k]) if r[n - 1 - k] >= 0 else slice(None) for k in range(n))
    region = cube[index]  # remaining axes: the free variables, highest index first
    free = [i for i in range(n - 1, -1, -1) if r[i] < 0]
    weight = 2.0 ** -(n - len(free))
    mean = float(region.mean())
    gains = np.full(n, -np.inf)
    for axis, i in enumerate(free):
        halves = np.moveaxis(region, axis, 0).reshape(2, -1).mean(axis=1)
        gains[i] = weight * (float(G(mean)) - 0.5 * float(G(halves[0])) - 0.5 * float(G(halves[1])))
    return weight * float(G(mean)), weight * min(mean, 1.0 - mean), gains


class CountingOracle:
    """A label oracle that counts the points it labels: the label use measured outside Algorithm 2."""

    def __init__(self, oracle: Oracle) -> None:
        if not callable(oracle):
            raise ValueError(f"oracle must be a callable f(X) -> labels, got {type(oracle).__name__}")
        self.oracle = oracle
        self.queries = 0

    def __call__(self, X: np.ndarray) -> np.ndarray:
        self.queries += int(np.shape(X)[0])
        return self.oracle(X)


def leaf_label_masses(tree: DecisionTree, target: DecisionTree,
                      dist: ProductDistribution) -> np.ndarray:
    """``(L, 2)`` array: Pr[x reaches leaf l and target(x) = b] for the leaves of ``tree`` (b = 0, 1).

    Exact, from pairs of leaves (a leaf pair's regions intersect unless a coordinate is fixed
    differently, and the intersection's mass is a product of coordinate probabilities).
    """
    if not isinstance(tree, DecisionTree) or not isinstance(target, DecisionTree) or tree.n != target.n:
        raise ValueError("tree and target must be DecisionTree objects on the same n")
    if not isinstance(dist, ProductDistribution) or dist.n != tree.n:
        raise ValueError(f"dist must be a ProductDistribution on n = {tree.n} coordinates")
    Ra, Rb = tree.leaf_restrictions(), target.leaf_restrictions()
    p = dist.p
    # mass of each pair: prod_i Pr[x_i = fixed value] over coordinates fixed by either leaf
    fixed = np.where(Ra[:, None, :] >= 0, Ra[:, None, :], Rb[None, :, :])  # (La, Lb, n)
    clash = ((Ra[:, None, :] >= 0) & (Rb[None, :, :] >= 0) & (Ra[:, None, :] != Rb[None, :, :])).any(axis=2)
    per_coord = np.where(fixed == 1, p, np.where(fixed == 0, 1.0 - p, 1.0))
    mass = np.where(clash, 0.0, per_coord.prod(axis=2))
    ones = np.asarray(target.leaf_values()) >= 0.5
    return np.stack([mass[:, ~ones].sum(axis=1), mass[:, ones].sum(axis=1)], axis=1)


