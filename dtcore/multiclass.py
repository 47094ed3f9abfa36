"""Weighted, k-class versions of TopDown_G, MiniBatchTopDown_G, ID3 and FIND on Boolean features.

The papers' learners (:mod:`dtcore.topdown`, :mod:`dtcore.id3`, :mod:`dtcore.find`) read 0/1
labels and count sample points. The estimators of :mod:`dtcore.estimators` call the functions here
only when those kernels do not apply: three or more classes, or a ``sample_weight`` with the greedy
learners. On 0/1 labels with unit weights these functions build the same trees as the papers'
kernels (``tests/test_estimators.py`` checks it), which is what makes an integer weight act exactly
as a repeated point whichever path a fit takes.

Labels are class indices 0..k-1 and every point carries a positive weight. The impurity of a node
with class proportions p is, over the k classes,

* ``"gini"``: 2 (1 - sum_c p_c^2) (equal to :func:`dtcore.impurity.gini`'s 4 p (1 - p) at k = 2);
* ``"entropy"``: -sum_c p_c log2 p_c (the binary entropy at k = 2);
* ``"kearns_mansour"``: sum_c sqrt(p_c (1 - p_c)) (2 sqrt(p (1 - p)) at k = 2).

With two classes the gains are computed by the papers' own formulas (:func:`dtcore.topdown.local_gains`
and ID3's Gain), so float ties break as there. Leaf values of the returned
:class:`~dtcore.tree.DecisionTree` are the majority label for two classes (ties to label 1, as the
papers' learners) and 0 for k >= 3: the estimators read a leaf's class distribution from the training
points that reach it, not from ``value``. FIND here minimises the weighted misclassification over k
classes exactly (depth 1 and 2 from vectorised class counts, deeper by recursion on the root).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .find import _count, _exact_dtype, find_classes, find_subproblems
from .grow import GrowthResult, Split, grow, select_by_path
from .id3 import first_best
from .impurity import get_impurity
from .topdown import depth_cap, local_gains
from .tree import DecisionTree, restriction_key
from .validate import check_binary_matrix, check_budget, check_choice, check_int

__all__ = ["class_weights", "impurity_k", "weighted_top_down", "weighted_minibatch_top_down",
           "weighted_id3", "multiclass_find", "MulticlassFindResult"]

_MAX_EXPANSION = 10         # integer weights summing to at most this many points per row become repeats


def class_weights(y: np.ndarray, n_classes: int, sample_weight: np.ndarray | None = None) -> np.ndarray:
    """The class-weight matrix of a sample.

    Parameters
    ----------
    y : array of shape (m,)
        Class indices 0..n_classes-1.
    n_classes : int
        k.
    sample_weight : array of shape (m,), optional
        Positive weights (default 1).

    Returns
    -------
    ndarray of shape (m, k)
        W[r, c] = weight of point r if its class is c, else 0.
    """
    y = np.asarray(y, dtype=np.int64)
    k = check_int("n_classes", n_classes, 1)
    if y.ndim != 1 or (y.size and (y.min() < 0 or y.max() >= k)):
        raise ValueError(f"y must hold class indices in [0, {k - 1}]")
    w = np.ones(y.size) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if w.shape != y.shape or not np.all(np.isfinite(w)) or (w <= 0).any():
        raise ValueError(f"sample_weight must be {y.size} finite positive numbers")
    out = np.zeros((y.size, k))
    out[np.arange(y.size), y] = w
    return out


def impurity_k(name: str, proportions: np.ndarray) -> np.ndarray:
    """The k-class impurity of class proportions (see the module docstring).

    Parameters
    ----------
    name : {"gini", "entropy", "kearns_mansour"}
        The impurity.
    proportions : array of shape (..., k)
        Class proportions along the last axis.

    Returns
    -------
    ndarray of shape (...)
        The impurity of each distribution.
    """
    check_choice("impurity", name, ("gini", "entropy", "kearns_mansour"))
    p = np.asarray(proportions, dtype=np.float64)
    if name == "gini":
        return 2.0 * (1.0 - np.sum(p * p, axis=-1))
    if name == "entropy":
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
        return terms.sum(axis=-1)
    return np.sqrt(np.clip(p * (1.0 - p), 0.0, None)).sum(axis=-1)


def _stats_columns(Y: np.ndarray) -> np.ndarray:
    """[class weights..., 1]: the last column counts points, so empty sides are decided exactly."""
    return np.column_stack([Y, np.ones(Y.shape[0])])


def _exact_sides(counts: np.ndarray, total: np.ndarray, n_rows: int) -> np.ndarray:
    """Class weights with x_i = 1 per feature, snapped where a side holds no point (rounding of the
    sibling subtraction must not make an empty side look non-empty)."""
    weights, points = counts[:, :-1], counts[:, -1]
    weights = np.where((points <= 0)[:, None], 0.0, weights)
    weights = np.where((points >= n_rows)[:, None], total[None, :], weights)
    return np.clip(weights, 0.0, None), np.clip(points, 0, n_rows)


def _k_gains(name: str, total: np.ndarray, ones: np.ndarray, valid: np.ndarray, weighting: str) -> np.ndarray:
    """Purity gain of every feature for k >= 3 classes (the k-class form of BGLT 2020, Sec. 1.1)."""
    W = float(total.sum())
    W1 = ones.sum(axis=1)
    W0 = W - W1
    zeros = total[None, :] - ones
    with np.errstate(divide="ignore", invalid="ignore"):
        P1 = ones / np.where(W1 > 0, W1, 1.0)[:, None]
        P0 = zeros / np.where(W0 > 0, W0, 1.0)[:, None]
    parent = float(impurity_k(name, total / W))
    if weighting == "empirical":
        gain = (W * parent - W1 * impurity_k(name, P1) - W0 * impurity_k(name, P0)) / W
    else:
        gain = parent - 0.5 * impurity_k(name, P1) - 0.5 * impurity_k(name, P0)
    return np.where(valid, gain, -np.inf)


def _gains(name: str, G: Callable, total: np.ndarray, ones: np.ndarray, points1: np.ndarray,
           n_rows: int, weighting: str) -> np.ndarray:
    """Purity gains of a leaf: the papers' binary formula for k = 2, the k-class one otherwise."""
    valid = (points1 > 0) & (points1 < n_rows)
    if total.size == 2:
        n1 = np.where(points1 >= n_rows, total.sum(), ones.sum(axis=1))
        gains = local_gains(G, float(total.sum()), float(total[1]), n1, ones[:, 1], weighting)
        return np.where(valid, gains, -np.inf)
    return _k_gains(name, total, ones, valid, weighting)


def _is_pure(total: np.ndarray) -> bool:
    return int(np.count_nonzero(total > 0)) <= 1


def _value(total: np.ndarray) -> float:
    """The DecisionTree leaf value: the majority label (ties to 1) for k = 2, else 0."""
    if total.size == 2:
        return 1.0 if 2 * total[1] >= total.sum() else 0.0
    return 0.0


# --- TopDown_G with weights and k classes -----------------------------------------------------

@dataclass
class _Leaf:
    rows: np.ndarray        # training rows of the leaf, ascending
    depth: int
    counts: np.ndarray      # (n, k + 1): class weights and points with x_i = 1
    total: np.ndarray       # (k,) class weights of the leaf
    restriction: np.ndarray | None = None

    @property
    def key(self) -> bytes:
        return restriction_key(self.restriction)


class _WeightedScorer:
    """TopDown_G's purity-gain scorer (:class:`dtcore.topdown.TopDownScorer`) on weighted k-class data."""

    def __init__(self, X: np.ndarray, Y: np.ndarray, impurity: str, weighting: str) -> None:
        self.X, self.S = X, _stats_columns(Y)
        self.dtype = _exact_dtype(self.S)
        self.name, self.G = impurity, get_impurity(impurity)
        self.weighting = weighting
        self.W = float(Y.sum())

    def _leaf(self, rows: np.ndarray, depth: int, counts: np.ndarray | None = None) -> _Leaf:
        if counts is None:
            counts = _count(self.X, rows, self.S, self.dtype)
        return _Leaf(rows, depth, counts, self.S[rows, :-1].sum(axis=0))

    def root(self) -> _Leaf:
        return self._leaf(np.arange(self.X.shape[0]), 0)

    def best_split(self, state: _Leaf) -> Split | None:
        if _is_pure(state.total):
            return None
        ones, points1 = _exact_sides(state.counts, state.total, state.rows.size)
        gains = _gains(self.name, self.G, state.total, ones, points1, state.rows.size, self.weighting)
        weight = state.total.sum() / self.W if self.weighting == "empirical" else 2.0 ** -state.depth
        return Split.best(gains, weight)

    def children(self, state: _Leaf, feature: int) -> tuple[_Leaf, _Leaf]:
        mask = self.X[state.rows, feature] == 1
        r0, r1 = state.rows[~mask], state.rows[mask]
        small, large = (r0, r1) if r0.size <= r1.size else (r1, r0)
        counted = self._leaf(small, state.depth + 1)   # count the smaller child, subtract for the other
        derived = self._leaf(large, state.depth + 1, state.counts - counted.counts)
        return (counted, derived) if small is r0 else (derived, counted)

    def label(self, state: _Leaf) -> float:
        return _value(state.total)


def _check_inputs(X: np.ndarray, y: np.ndarray, n_classes: int, sample_weight) -> tuple[np.ndarray, np.ndarray]:
    X = check_binary_matrix("X", X)
    if X.shape[0] < 1:
        raise ValueError("X must have at least one row, got 0")
    return np.ascontiguousarray(X), class_weights(y, n_classes, sample_weight)


def weighted_top_down(X: np.ndarray, y: np.ndarray, n_classes: int, *, size: int,
                      sample_weight: np.ndarray | None = None, impurity: str = "gini",
                      weighting: str = "empirical") -> GrowthResult:
    """TopDown_G (BGLT 2020, Sec. 1.1) on weighted points with k classes, best-first to ``size`` leaves.

    The same loop (:func:`dtcore.grow.grow`) and tie rules as :func:`dtcore.topdown.top_down`; a
    point's weight multiplies its counts.

    Parameters
    ----------
    X : array of shape (m, n)
        0/1 features.
    y : array of shape (m,)
        Class indices 0..n_classes-1.
    n_classes : int
        k.
    size : int
        Leaves to grow to (>= 1).
    sample_weight : array of shape (m,), optional
        Positive weights (default 1).
    impurity : {"gini", "entropy", "kearns_mansour"}
    weighting : {"empirical", "uniform"}

    Returns
    -------
    GrowthResult
        The tree and its growth trace.
    """
    t = check_int("size", size, 1)
    X, Y = _check_inputs(X, y, n_classes, sample_weight)
    scorer = _WeightedScorer(X, Y, impurity, weighting)
    return grow(scorer, stop=lambda fr: False, n=X.shape[1], size=t)


# --- MiniBatchTopDown_G with weights and k classes ----------------------------------------------

class _WeightedBatchScorer(_WeightedScorer):
    """MiniBatchTopDown_G's scorer (BGLT 2020, Fig. 1): each leaf scored on its first ``b`` points
    in the shared order (``rows`` are positions in that order), leaves deeper than D never split."""

    def __init__(self, X, Y, impurity, weighting, b: int, max_depth: int) -> None:
        super().__init__(X, Y, impurity, weighting)
        self.b, self.max_depth, self.N = b, max_depth, X.shape[0]

    def _leaf(self, rows, depth, counts=None, restriction=None) -> _Leaf:
        batch = rows[: self.b]
        return _Leaf(rows, depth, _count(self.X, batch, self.S, self.dtype), self.S[batch, :-1].sum(axis=0),
                     restriction)

    def root(self) -> _Leaf:
        return self._leaf(np.arange(self.N), 0, restriction=np.full(self.X.shape[1], -1, dtype=np.int8))

    def best_split(self, state: _Leaf) -> Split | None:
        if state.depth > self.max_depth or state.rows.size == 0:
            return None
        batch = min(self.b, state.rows.size)
        ones, points1 = _exact_sides(state.counts, state.total, batch)
        gains = _gains(self.name, self.G, state.total, ones, points1, batch, self.weighting)
        weight = state.rows.size / self.N if self.weighting == "empirical" else 2.0 ** -state.depth
        return Split.best(gains, weight)

    def children(self, state: _Leaf, feature: int) -> tuple[_Leaf, _Leaf]:
        mask = self.X[state.rows, feature] == 1
        out = []
        for value, rows in ((0, state.rows[~mask]), (1, state.rows[mask])):
            r = state.restriction.copy()
            r[feature] = value
            out.append(self._leaf(rows, state.depth + 1, restriction=r))
        return out[0], out[1]

    def label(self, state: _Leaf) -> float:
        return _value(state.total) if state.rows.size else 0.0


def weighted_minibatch_top_down(X: np.ndarray, y: np.ndarray, n_classes: int, *, size: int, batch_size: int,
                                rng: np.random.Generator, sample_weight: np.ndarray | None = None,
                                impurity: str = "gini", weighting: str = "uniform") -> GrowthResult:
    """MiniBatchTopDown_G (BGLT 2020, Figure 1) on weighted points with k classes.

    The shared random order is drawn over the points sorted by (features, class), so the tree does
    not depend on the order of the rows; integer weights (summing to at most 10 per point) are
    expanded into repeated points (so a weight of 3 is three points in the order), other weights
    multiply a point's counts in its minibatches. Depth cap D = :func:`dtcore.topdown.depth_cap` of ``size``; ties between leaves go
    to the smallest restriction, as in :func:`dtcore.topdown.minibatch_top_down`.

    Parameters
    ----------
    X, y, n_classes, size, sample_weight, impurity, weighting
        As in :func:`weighted_top_down`.
    batch_size : int
        Minibatch size b (>= 1).
    rng : numpy.random.Generator
        Draws the shared order.

    Returns
    -------
    GrowthResult
        The tree and its growth trace.
    """
    t = check_int("size", size, 1)
    b = check_int("batch_size", batch_size, 1)
    X, Y = _check_inputs(X, y, n_classes, sample_weight)
    y = np.asarray(y, dtype=np.int64)
    w = Y.sum(axis=1)
    if np.all(w == np.round(w)) and w.sum() <= _MAX_EXPANSION * w.size:
        repeat = w.astype(np.int64)
        X, y, Y = np.repeat(X, repeat, axis=0), np.repeat(y, repeat), np.repeat(Y / w[:, None], repeat, axis=0)
    # the canonical order: rows sorted by their bit-packed features (as bytes), then by class
    packed = np.ascontiguousarray(np.packbits(X, axis=1))
    _, row_key = np.unique(packed.view(np.dtype((np.void, packed.shape[1]))).ravel(), return_inverse=True)
    canonical = np.lexsort((y, row_key.ravel()))
    order = canonical[rng.permutation(canonical.size)]
    scorer = _WeightedBatchScorer(X[order], Y[order], impurity, weighting, b, depth_cap(t))
    return grow(scorer, stop=lambda fr: False, n=X.shape[1], size=t, select=select_by_path)


# --- ID3 with weights and k classes -------------------------------------------------------------

def _id3_gains(name: str, C: Callable, total: np.ndarray, ones: np.ndarray) -> np.ndarray:
    """Gain(S, i) for every feature (BDM 2020, Sec. 1.1): ID3's binary formula for k = 2."""
    N = float(total.sum())
    n1 = ones.sum(axis=1)
    if total.size == 2:
        ny, n11 = float(total[1]), ones[:, 1]
        r1 = n11 / np.where(n1 > 0, n1, 1.0)
        r0 = (ny - n11) / np.where(N - n1 > 0, N - n1, 1.0)
        q = n1 / N
        weighted = q * C(r1)
        weighted += (1.0 - q) * C(r0)
        return C(ny / N) - weighted
    with np.errstate(divide="ignore", invalid="ignore"):
        P1 = ones / np.where(n1 > 0, n1, 1.0)[:, None]
        P0 = (total[None, :] - ones) / np.where(N - n1 > 0, N - n1, 1.0)[:, None]
    q = n1 / N
    return impurity_k(name, total / N) - (q * impurity_k(name, P1) + (1.0 - q) * impurity_k(name, P0))


def weighted_id3(X: np.ndarray, y: np.ndarray, n_classes: int, *, sample_weight: np.ndarray | None = None,
                 impurity: str = "gini", depth: int | None = None) -> DecisionTree:
    """ID3 (BDM 2020, Algorithm 1) on weighted points with k classes, as :func:`dtcore.id3.id3` does it.

    A pure node is a leaf; otherwise split on the feature of largest gain among those not queried on
    the path (ties: smallest index), an empty child becoming a leaf; a node with no feature left or
    at depth ``depth`` is a leaf. Nodes are numbered as the depth-first recursion of Algorithm 1
    numbers them (the x_j = 1 child expanded first).

    Parameters
    ----------
    X, y, n_classes, sample_weight, impurity
        As in :func:`weighted_top_down`.
    depth : int or None
        Depth limit (None: grow until pure).

    Returns
    -------
    DecisionTree
        The tree (leaf values as in the module docstring).
    """
    X, Y = _check_inputs(X, y, n_classes, sample_weight)
    max_depth = None if depth is None else check_int("depth", depth, 0)
    C = get_impurity(impurity)
    S = _stats_columns(Y)
    dtype = _exact_dtype(S)
    n = X.shape[1]
    tree = DecisionTree(n)
    stack: list[tuple] = [(0, np.arange(X.shape[0]), np.zeros(n, dtype=bool), 0, None)]
    while stack:  # one NumPy body per node
        node, rows, used, d, counts = stack.pop()
        total = S[rows, :-1].sum(axis=0)
        if _is_pure(total) or used.all() or (max_depth is not None and d >= max_depth):
            tree.set_value(node, _value(total))  # a leaf's own label; a split node keeps its parent's
            continue
        if callable(counts):  # the larger sibling: its parent's counts minus the smaller's
            counts = counts()
        elif counts is None:
            counts = _count(X, rows, S, dtype)
        ones, _ = _exact_sides(counts, total, rows.size)
        gains = _id3_gains(impurity, C, total, ones)
        gains = np.where(used, -np.inf, gains)
        j = int(first_best(gains[None, :])[0])  # ties (within rounding) to the smallest index, as in id3
        c0, c1 = tree.split(node, j)
        mask = X[rows, j] == 1
        child_used = used.copy()
        child_used[j] = True
        parent_value = _value(total)
        for child, part in ((c0, rows[~mask]), (c1, rows[mask])):
            tree.set_value(child, parent_value)   # an empty child keeps the parent's majority
        r0, r1 = rows[~mask], rows[mask]
        small = _count(X, r0 if r0.size <= r1.size else r1, S, dtype)
        parent = counts
        larger = lambda parent=parent, small=small: parent - small  # noqa: E731 (computed when popped)
        counts0, counts1 = (small, larger) if r0.size <= r1.size else (larger, small)
        for child, part, c in ((c0, r0, counts0), (c1, r1, counts1)):  # x_j = 1 popped first
            if part.size:
                stack.append((child, part, child_used, d + 1, c))
    return tree


# --- FIND (least weighted misclassification) with k classes -------------------------------------

@dataclass(frozen=True)
class MulticlassFindResult:
    """Output of :func:`multiclass_find`: the optimal tree, its weighted training error and the
    class of each of its leaves."""

    tree: DecisionTree
    errors: float            # weighted count of misclassified training points
    error: float             # errors / total weight
    leaf_class: np.ndarray   # optimal class index of every node that is a leaf (-1 at internal nodes)


def multiclass_find(X: np.ndarray, y: np.ndarray, n_classes: int, *, depth: int,
                    sample_weight: np.ndarray | None = None) -> MulticlassFindResult:
    """FIND (BLT 2021, Fig. 2) with k classes: a depth-<= d tree of least weighted misclassification.

    The search of :func:`dtcore.find.find` (one implementation) with the k-class counting: depth 1
    and 2 from class counts of every feature and every pair of features (one BLAS product per
    class), depth 3 (integer weights) from the depth-2 optima of every root's two halves, solved in
    batches, with the roots that bounds from class counts show cannot win skipped; deeper budgets
    try every root on the depth-(d-1) optimum of both halves (n^(d-3) depth-3 problems, so keep n
    small for d >= 4). Among trees of equal error (within 1e-9 of the weight) a shallower budget's
    optimum is kept, so a leaf is preferred to a split that does not lower the error, then the
    smaller root.

    Parameters
    ----------
    X, y, n_classes, sample_weight
        As in :func:`weighted_top_down`.
    depth : int
        The depth budget d >= 0.

    Returns
    -------
    MulticlassFindResult
        ``tree`` (leaf values as in the module docstring), ``errors`` (its weighted number of
        training mistakes), ``error`` (``errors`` over the total weight) and ``leaf_class`` (the
        optimal class index of every node that is a leaf of ``tree``, -1 at internal nodes).
    """
    X, Y = _check_inputs(X, y, n_classes, sample_weight)
    d = check_int("depth", depth, 0)
    check_budget(f"FIND at depth {d} on {X.shape[1]} features (its subproblems)", find_subproblems(X.shape[1], d),
                 "MAX_FIND_SUBPROBLEMS", "lower depth, or use fewer features")
    errors, structure = find_classes(X, Y, d)
    tree = DecisionTree(X.shape[1])
    leaf_class = [-1]
    stack = [(0, structure)]
    while stack:  # one step per node of the structure
        node, s = stack.pop()
        if s[0] == "leaf":
            leaf_class[node] = s[1]
            if Y.shape[1] == 2:
                tree.set_value(node, float(s[1]))
        else:
            c0, c1 = tree.split(node, s[1])
            leaf_class += [-1, -1]
            stack += [(c0, s[2]), (c1, s[3])]
    total = float(np.asarray(sample_weight, dtype=np.float64).sum()) if sample_weight is not None else X.shape[0]
    return MulticlassFindResult(tree, float(errors), float(errors) / total if total > 0 else 0.0,
                                np.asarray(leaf_class, dtype=np.int64))
