"""TopDown_G and MiniBatchTopDown_G (Blanc–Gupta–Lange–Tan, NeurIPS 2020) as scorers on ``grow``.

Both learners split, best-first, the leaf and variable of largest *purity gain*

    PurityGain(l, i) = w(l) * [ G(E[y | l]) - ( w0 * G(E[y | l, x_i = 0]) + w1 * G(E[y | l, x_i = 1]) ) ]

with one of the paper's two weightings:

* ``"empirical"`` (Section 1.1): w(l) = Pr_S[x reaches l], (w0, w1) = Pr_S[x_i = 0 | l], Pr_S[x_i = 1 | l].
  This is best-first CART/ID3 and builds the same tree as scikit-learn's
  ``DecisionTreeClassifier(max_leaf_nodes=t)`` (tests/test_topdown.py checks it).
* ``"uniform"`` (Appendix A and Figure 1): w(l) = 2^-|l|, (w0, w1) = (1/2, 1/2).

A split must leave data on both sides (a variable whose sample at the leaf is constant, for
instance one already queried on the path, is not a candidate). TopDown_G never splits a leaf whose
sample is pure (the purity gain of every split is 0 there), as CART does; MiniBatchTopDown_G
follows the paper by default and splits such a leaf, with gain 0, when no leaf has a positive gain
(``pure_leaves="stop"`` gives the CART behaviour). Among variables, ties go to the
lowest index. Leaves are completed with round(E[y | l]) = 1[E[y | l] >= 1/2].

TopDown_G keeps the sample partitioned by leaf through an index array (each leaf a contiguous
block of row numbers, ascending) and never copies X. It counts the smaller child of every split
with BLAS products over chunks of rows (gathered and converted to float32 a chunk at a time, so
no full-size float copy exists) and gets the larger child by subtraction from the parent's
counts, so each level of the tree costs about one pass over half the data and the extra memory
is the index array plus a few chunk-sized buffers.

MiniBatchTopDown_G scores a leaf on the minibatch Batch_b(S, l): the first b points of a fixed
random order of S that are consistent with l. For each leaf this is b points drawn uniformly
without replacement from those consistent with it (all of them if fewer), as Definition 1 asks;
fixing one order for the whole run is the shared randomness of Footnote 2, which makes the
learners of :mod:`dtcore.local` reproduce exactly the tree built here. Leaves deeper than
D = floor(log2 t + log2 log2 t) are never split.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .grow import GrowthResult, Split, grow, select_by_path
from .impurity import get_impurity
from .validate import check_binary_matrix, check_choice, check_int, check_labels, check_rng
from .tree import restriction_key

Weighting = Literal["empirical", "uniform"]
WEIGHTINGS = ("empirical", "uniform")
PureLeaves = Literal["split", "stop"]
PURE_LEAVES = ("split", "stop")


def _check_pure_leaves(pure_leaves: str) -> str:
    return check_choice("pure_leaves", pure_leaves, PURE_LEAVES)


def _check_weighting(weighting: str) -> str:
    return check_choice("weighting", weighting, WEIGHTINGS)


def depth_cap(t: int) -> int:
    """D = floor(log2 t + log2 log2 t) of MiniBatchTopDown_G (BGLT 2020, Fig. 1 and eq. (5)); 0 for t = 1."""
    t = check_int("t", t, 1)
    if t == 1:
        return 0
    return int(math.floor(math.log2(t) + math.log2(math.log2(t)) + 1e-12))


def local_gains(G: Callable[[np.ndarray], np.ndarray], count: float, pos: float, n1: np.ndarray,
                p1: np.ndarray, weighting: str) -> np.ndarray:
    """LocalGain_G(l, i) for every variable i from the counts of a leaf's sample.

    ``count`` points reach the leaf, ``pos`` of them labelled 1; ``n1[i]`` have x_i = 1, ``p1[i]``
    of those labelled 1. Variables with an empty side get -inf (not a candidate split).
    BGLT 2020, Sec. 1.1 (``"empirical"``) and Appendix A / Fig. 1 (``"uniform"``).
    """
    n1 = np.asarray(n1, dtype=np.float64)
    p1 = np.asarray(p1, dtype=np.float64)
    n = float(count)
    n0, p0 = n - n1, pos - p1
    valid = (n1 > 0) & (n0 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu1 = np.where(valid, p1 / np.where(valid, n1, 1.0), 0.0)
        mu0 = np.where(valid, p0 / np.where(valid, n0, 1.0), 0.0)
    if weighting == "empirical":
        # n G(mu) - n1 G(mu1) - n0 G(mu0), divided by n: the same formula as CART's improvement
        gain = (n * G(pos / n) - n1 * G(mu1) - n0 * G(mu0)) / n
    else:
        gain = G(pos / n) - 0.5 * G(mu1) - 0.5 * G(mu0)
    return np.where(valid, gain, -np.inf)


# --- TopDown_G on a full labelled sample -------------------------------------------------------

@dataclass
class SampleLeaf:
    """A leaf of TopDown_G: its block [start, end) of the partitioned sample and its counts."""

    start: int
    end: int
    depth: int
    n1: np.ndarray  # (d,) points with x_i = 1
    p1: np.ndarray  # (d,) points with x_i = 1 and y = 1
    pos: float      # points with y = 1

    @property
    def n(self) -> int:
        return self.end - self.start


class TopDownScorer:
    """Purity-gain scorer of TopDown_G on a labelled sample (BGLT 2020, Sec. 1.1 and Appendix A).

    ``X`` and ``y`` are the caller's arrays, not copied (they must not change while the scorer is
    in use). ``index`` is a permutation of the rows in which every leaf is a contiguous block
    [start, end), each block in ascending row order. Counts are exact: every chunk of at most
    ``chunk_rows`` < 2^24 rows is counted in float32 and accumulated in float64.
    """

    #: rows per BLAS product (at most 2^21 values, 8 MB of float32, per chunk)
    chunk_rows: int = 2**13

    def __init__(self, X: np.ndarray, y: np.ndarray, impurity: str = "gini",
                 weighting: Weighting = "empirical") -> None:
        X = np.asarray(X)
        if X.dtype == np.bool_:
            X = X.view(np.uint8)  # same bytes, no copy
        X = check_binary_matrix("X", X)
        self.m, self.n = X.shape
        if self.m < 1:
            raise ValueError("X must have at least one row, got 0")
        self.y = check_labels("y", y, self.m)
        self.G = get_impurity(impurity)
        self.weighting = _check_weighting(weighting)
        self.X = np.ascontiguousarray(X)  # no copy for a C-ordered uint8 input
        self.index = np.arange(self.m)  # original row at each position
        rows = max(1, min(self.chunk_rows, 2**21 // max(self.n, 1), self.m))
        self._xbuf = np.empty((rows, self.n), dtype=np.uint8)   # gathered rows of one chunk
        self._fbuf = np.empty((rows, self.n), dtype=np.float32)  # the same as float32
        self._wbuf = np.ones((rows, 2), dtype=np.float32)      # columns: 1, y

    def _counts(self, start: int, end: int, in_order: bool = False) -> tuple[np.ndarray, np.ndarray, float]:
        """(n1, p1, pos) of the rows at positions [start, end) of ``index``, a chunk at a time.

        ``in_order`` says that those positions hold rows start..end-1 (the root), so no gather.
        """
        total = np.zeros((self.n, 2), dtype=np.float64)
        pos = 0
        step = self._fbuf.shape[0]
        for s in range(start, end, step):
            e = min(s + step, end)
            c = e - s
            F, W = self._fbuf[:c], self._wbuf[:c]
            if in_order:
                xb, yb = self.X[s:e], self.y[s:e]
            else:
                rows = self.index[s:e]
                xb = np.take(self.X, rows, axis=0, out=self._xbuf[:c], mode="clip")
                yb = np.take(self.y, rows, mode="clip")
            np.copyto(F, xb)
            np.copyto(W[:, 1], yb)
            pos += int(np.count_nonzero(yb))
            total += F.T @ W  # one BLAS product: (d, 2) counts of this chunk, exact in float32
        return total[:, 0], total[:, 1], float(pos)

    def root(self) -> SampleLeaf:
        n1, p1, pos = self._counts(0, self.m, in_order=True)
        return SampleLeaf(0, self.m, 0, n1, p1, pos)

    def best_split(self, state: SampleLeaf) -> Split | None:
        if state.pos == 0 or state.pos == state.n:
            return None  # pure: no split has positive gain
        gains = local_gains(self.G, state.n, state.pos, state.n1, state.p1, self.weighting)
        weight = state.n / self.m if self.weighting == "empirical" else 2.0 ** -state.depth
        return Split.best(gains, weight)

    def children(self, state: SampleLeaf, feature: int) -> tuple[SampleLeaf, SampleLeaf]:
        a, b = state.start, state.end
        rows = self.index[a:b]
        mask = self.X[rows, feature].view(np.bool_)  # x_feature of each point of the leaf (0/1)
        ones = rows[mask]
        mid = b - ones.size
        rows[: mid - a] = rows[~mask]  # stable: both blocks stay in ascending row order
        rows[mid - a:] = ones
        del mask, ones
        if mid - a <= b - mid:  # count the smaller child, subtract for the larger
            n1, p1, pos = self._counts(a, mid)
            c0 = SampleLeaf(a, mid, state.depth + 1, n1, p1, pos)
            c1 = SampleLeaf(mid, b, state.depth + 1, state.n1 - n1, state.p1 - p1, state.pos - pos)
        else:
            n1, p1, pos = self._counts(mid, b)
            c1 = SampleLeaf(mid, b, state.depth + 1, n1, p1, pos)
            c0 = SampleLeaf(a, mid, state.depth + 1, state.n1 - n1, state.p1 - p1, state.pos - pos)
        return c0, c1

    def label(self, state: SampleLeaf) -> float:
        return 1.0 if 2 * state.pos >= state.n else 0.0


def top_down(X: np.ndarray, y: np.ndarray, *, size: int, impurity: str = "gini",
             weighting: Weighting = "empirical") -> GrowthResult:
    """TopDown_G(t, S) (BGLT 2020, Sec. 1.1; pseudocode in Appendix A): a size-t tree, best-first.

    Splits the (leaf, variable) of largest purity gain until the tree has ``t`` leaves (or no
    leaf can be split: every leaf pure or constant on the sample), then completes the leaves by
    majority label. ``weighting="empirical"`` is best-first CART (``impurity="gini"``) / ID3
    (``"entropy"``); ``"uniform"`` is the 2^-|l|, 1/2-1/2 form of Appendix A. The trace has the
    score (purity gain) of every split.

    Parameters
    ----------
    X : array of shape (m, n)
        The sample's points, 0/1 (``uint8`` or ``bool``; not copied).
    y : array of shape (m,)
        Their 0/1 labels.
    size : int
        The size t (number of leaves) to grow to, >= 1.
    impurity : {"gini", "entropy", "kearns_mansour"}, default="gini"
        The impurity function G (:mod:`dtcore.impurity`).
    weighting : {"empirical", "uniform"}, default="empirical"
        The purity gain's weights (see the module docstring).

    Returns
    -------
    GrowthResult
        ``tree`` (a :class:`~dtcore.tree.DecisionTree` with at most ``t`` leaves) and ``trace``
        (a DataFrame with one row per split: step, leaves, feature, score, depth, node).

    See Also
    --------
    dtcore.estimators.TopDownClassifier : the same learner for scikit-learn, on real-valued data.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(2000, 6), dtype=np.uint8)
    >>> y = (X[:, 0] & X[:, 1]) | X[:, 2]
    >>> result = top_down(X, y, size=4)
    >>> print(result.tree)
    x2?
      0 -> x0?
        0 -> leaf: 0
        1 -> x1?
          0 -> leaf: 0
          1 -> leaf: 1
      1 -> leaf: 1
    >>> result.trace["feature"].tolist()  # the split variables in order; -1 closes the trace
    [2, 0, 1, -1]
    """
    t = check_int("size", size, 1)
    scorer = TopDownScorer(X, y, impurity, weighting)
    return grow(scorer, stop=lambda fr: False, n=scorer.n, size=t)


# --- MiniBatchTopDown_G -----------------------------------------------------------------------

@dataclass
class BatchLeaf:
    """A leaf of the minibatch learners: its restriction, depth and consistent points.

    ``idx`` holds the positions (in the shared random order) of the points of S consistent with
    the leaf, ascending, so ``idx[:b]`` is Batch_b(S, l). ``strands``/``queries`` are the rows of
    the strand and query sets that reach the leaf (used by :mod:`dtcore.local`).
    """

    restriction: np.ndarray
    depth: int
    idx: np.ndarray
    strands: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    queries: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    stats: tuple[float, float, np.ndarray, np.ndarray] | None = None  # n, pos, n1, p1 of the batch

    @property
    def key(self) -> bytes:
        """An intrinsic key of the leaf (its restriction), used to break ties between leaves."""
        return restriction_key(self.restriction)


class EagerBatches:
    """How MiniBatchTopDown_G finds a leaf's rows: S reordered once, every consistent point kept.

    ``order`` is the shared random order of S (Footnote 2). A leaf's ``idx`` holds the positions
    (in that order) of every point of S consistent with it, ascending, so ``idx[:b]`` is
    Batch_b(S, l) and ``idx.size`` is |S ∩ l|. :class:`dtcore.local.LazyBatches` finds the same
    rows lazily; :class:`MiniBatchScorer` scores a split from either.
    """

    def __init__(self, X: np.ndarray, order: np.ndarray) -> None:
        X = check_binary_matrix("X", X)
        self.N, self.n = X.shape
        order = np.asarray(order)
        if order.shape != (self.N,) or not np.array_equal(np.sort(order), np.arange(self.N)):
            raise ValueError(f"order must be a permutation of range({self.N}), got shape {order.shape}")
        self.order = order
        self.Xp = np.ascontiguousarray(X[order])  # rows in priority order
        self.XpT = np.ascontiguousarray(self.Xp.T)  # columns, for routing

    def root(self) -> BatchLeaf:
        return BatchLeaf(np.full(self.n, -1, dtype=np.int8), 0, np.arange(self.N))

    def reach(self, state: BatchLeaf) -> int:
        """|S ∩ l|: how many points of S are consistent with the leaf."""
        return int(state.idx.size)

    def batch(self, state: BatchLeaf, b: int) -> tuple[np.ndarray, np.ndarray]:
        """Batch_b(S, l): its original row indices in S and its rows of X."""
        pos_idx = state.idx[:b]
        return self.order[pos_idx], self.Xp[pos_idx]

    def _child(self, state: BatchLeaf, feature: int, value: int) -> BatchLeaf:
        r = state.restriction.copy()
        r[feature] = value
        keep = self.XpT[feature, state.idx] == value
        return BatchLeaf(r, state.depth + 1, state.idx[keep])

    def children(self, state: BatchLeaf, feature: int) -> tuple[BatchLeaf, BatchLeaf]:
        return self._child(state, feature, 0), self._child(state, feature, 1)


class MiniBatchScorer:
    """Purity gains and completions from minibatches (BGLT 2020, Fig. 1, Definitions 1–2).

    Composed of *how a leaf finds its rows* (``batches``: :class:`EagerBatches` here, the lazy
    :class:`dtcore.local.LazyBatches` for the strand learners) and *how a split is scored* (this
    class: the purity gain of Definition 1 on the leaf's minibatch). ``label_of(rows)`` returns the
    labels of original rows of S (a :class:`~dtcore.local.LabelOracle` counts them). Leaves deeper
    than ``max_depth`` are not scored, hence never split.

    ``pure_leaves`` says what happens to a leaf whose minibatch is pure (every label equal):
    ``"split"`` (the paper: Figure 1 splits the (leaf, variable) of largest gain, and a zero gain is
    still a gain, so such a leaf is split, with score 0, when nothing better is left) or ``"stop"``
    (never split it, as CART does; growth may then end before the size the stop rule asks for).
    A split must still leave minibatch points on both sides.
    """

    def __init__(self, batches: EagerBatches, label_of: Callable[[np.ndarray], np.ndarray], b: int,
                 impurity: str = "gini", weighting: Weighting = "uniform",
                 max_depth: int | None = None, pure_leaves: PureLeaves = "split") -> None:
        self.batches = batches
        self.N, self.n = batches.N, batches.n
        self.b = check_int("b", b, 1)
        self.label_of = label_of
        self.G = get_impurity(impurity)
        self.weighting = _check_weighting(weighting)
        self.max_depth = max_depth
        self.pure_leaves = _check_pure_leaves(pure_leaves)

    def root(self) -> BatchLeaf:
        return self.batches.root()

    def _stats(self, state: BatchLeaf) -> tuple[float, float, np.ndarray, np.ndarray]:
        if state.stats is None:
            rows, Xb = self.batches.batch(state, self.b)
            yb = np.asarray(self.label_of(rows), dtype=np.float64)
            Xb = Xb.astype(np.float64)
            state.stats = (float(yb.size), float(yb.sum()), Xb.sum(axis=0), yb @ Xb)
        return state.stats

    def scored(self, state: BatchLeaf) -> bool:
        """Whether the learner scores this leaf (depth at most D)."""
        return self.max_depth is None or state.depth <= self.max_depth

    def best_split(self, state: BatchLeaf) -> Split | None:
        if not self.scored(state):
            return None
        reach = self.batches.reach(state)
        if reach == 0:
            return None
        count, pos, n1, p1 = self._stats(state)
        if (pos == 0 or pos == count) and self.pure_leaves == "stop":
            return None
        gains = local_gains(self.G, count, pos, n1, p1, self.weighting)
        weight = reach / self.N if self.weighting == "empirical" else 2.0 ** -state.depth
        return Split.best(gains, weight)

    def children(self, state: BatchLeaf, feature: int) -> tuple[BatchLeaf, BatchLeaf]:
        return self.batches.children(state, feature)

    def label(self, state: BatchLeaf) -> float:
        """round(mean label of Batch_b(S, l)) (Definition 2); 0 for a leaf no point of S reaches."""
        if self.batches.reach(state) == 0:
            return 0.0
        count, pos, _, _ = self._stats(state)
        return 1.0 if 2 * pos >= count else 0.0


def random_order(N: int, *, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random order of the N points of S: the shared minibatch randomness (Footnote 2)."""
    return check_rng(rng).permutation(check_int("N", N, 1))


def minibatch_top_down(X: np.ndarray, y: np.ndarray | Callable[[np.ndarray], np.ndarray], *, size: int,
                       batch_size: int, impurity: str = "gini", rng: np.random.Generator | None = None,
                       order: np.ndarray | None = None, weighting: Weighting = "uniform",
                       depth: int | None = None, pure_leaves: PureLeaves = "split") -> GrowthResult:
    """MiniBatchTopDown_G(t, b, S) (BGLT 2020, Figure 1; Theorem 1).

    Grows best-first to ``t`` leaves, scoring each leaf of depth at most D = :func:`depth_cap`
    (or ``depth``) on its minibatch of ``batch_size`` points, and completes every leaf by the majority
    label of its minibatch. ``y`` is the label array of S or a label oracle ``rows -> labels``.
    The minibatches come from ``order`` (a permutation of S's rows) or, if None, one drawn from
    ``rng``. Ties between leaves go to the smallest restriction (:func:`dtcore.grow.select_by_path`).
    ``pure_leaves`` (see :class:`MiniBatchScorer`): ``"split"`` follows the paper, ``"stop"`` never
    splits a leaf with a pure minibatch, so the tree may have fewer than ``t`` leaves.

    Parameters
    ----------
    X : array of shape (m, n)
        The sample S, 0/1.
    y : array of shape (m,) or callable
        Its 0/1 labels, or a label oracle ``rows -> labels`` (e.g. :class:`dtcore.local.LabelOracle`).
    size : int
        The size t to grow to, >= 1.
    batch_size : int
        The minibatch size b, >= 1.
    impurity : {"gini", "entropy", "kearns_mansour"}, default="gini"
    rng : numpy.random.Generator, optional
        Draws the shared order of S when ``order`` is None (then required).
    order : array of shape (m,), optional
        A permutation of S's rows fixing every minibatch (Footnote 2's shared randomness).
    weighting : {"uniform", "empirical"}, default="uniform"
    depth : int, optional
        The depth cap D (default :func:`depth_cap` of ``size``).
    pure_leaves : {"split", "stop"}, default="split"
        Whether a leaf whose minibatch is pure is still split (the paper's rule).

    Returns
    -------
    GrowthResult
        ``tree`` and the growth ``trace``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).integers(0, 2, size=(2000, 6), dtype=np.uint8)
    >>> y = (X[:, 0] & X[:, 1]) | X[:, 2]
    >>> result = minibatch_top_down(X, y, size=4, batch_size=64, rng=np.random.default_rng(1))
    >>> result.tree.size, result.tree.depth
    (4, 3)
    >>> float(np.mean(result.tree.predict(X) != y))
    0.0
    """
    t = check_int("size", size, 1)
    b = check_int("batch_size", batch_size, 1)
    X = check_binary_matrix("X", X)
    if order is None:
        if rng is None:
            raise ValueError("rng must be a numpy.random.Generator when order is None, got None")
        order = random_order(X.shape[0], rng=rng)
    if callable(y):
        label_of = y
    else:
        labels = check_labels("y", y, X.shape[0])
        label_of = labels.__getitem__
    D = depth_cap(t) if depth is None else check_int("depth", depth, 0)
    scorer = MiniBatchScorer(EagerBatches(X, order), label_of, b, impurity, weighting, D, pure_leaves)
    return grow(scorer, stop=lambda fr: False, n=scorer.n, size=t, select=select_by_path)
