"""Learnability estimation with few labels (Blanc–Gupta–Lange–Tan, NeurIPS 2020, Secs. 1.2, 3, C, D).

* :func:`size_estimate` — the strand size estimator of Lemma C.1: e = mean of 2^|l_T(x)| over
  uniform random points x (unbiased: E[e] = size of T).
* :class:`LabelOracle` — labels of the unlabelled set S°, revealed only when asked, cached, and
  counted (the number of distinct points of S° ever labelled).
* :class:`SharedDraws` — the shared randomness of Footnote 2: one random order of S° (which fixes
  every minibatch Batch_b(S°, l)) and the strand points B°_strands.
* :func:`top_down_size_estimate` — TopDownSizeEstimate_G (Appendix D, Fig. 4): MiniBatchTopDown_G
  stopped when the strand estimate of its size reaches t.
* :func:`local_learner` — LocalLearner_G (Fig. 2): grows only the leaves that strands or query
  points reach and returns T(x*) for the tree T of TopDownSizeEstimate_G.
* :func:`est` — Est_G (Fig. 5): the test error of T from LocalLearner's answers.

Their bounds (Lemma C.1's deviation, Lemma D.1's label count, Theorem 5's minibatch size) are in
:mod:`dtcore.bounds`.

All three learners are the scorer :class:`StrandScorer` on :func:`dtcore.grow.grow` with the stop
rule e >= t. Because minibatches and strands are fixed by :class:`SharedDraws` and ties between
leaves are broken by the leaf's restriction, LocalLearner makes, among the leaves it grows, exactly
the splits that TopDownSizeEstimate makes, in the same order (Appendix D's comparison).

Cost. S° is put in the shared order and bit-packed once per (:class:`SharedDraws`, S°) pair and
reused by every later call with the same draws and the same array (a call checks that the array
still equals the prepared copy, one memcmp-speed pass). A leaf's minibatch is then found lazily:
its candidates are its parent's minibatch (every parent-consistent point up to where the parent's
scan stopped) and the scan continues down the shared order in growing chunks, with one vectorised
mask test per chunk, until b consistent points are found; a leaf that is never scored (off the
strands, or deeper than D) is never scanned. A query then costs about sum over grown leaves of
b 2^depth mask tests plus b n for the counts, independent of |S°| once b 2^D < |S°|. With the
``"empirical"`` weighting the gain's weight |S° ∩ l| / |S°| needs every consistent point, so there
each leaf keeps all of them (as :class:`~dtcore.topdown.EagerBatches` does). This lazy search is
:class:`LazyBatches`, the "how a leaf finds its rows" half of :class:`StrandScorer`; the other half,
how a split is scored, is :class:`~dtcore.topdown.MiniBatchScorer`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .cube import ProductDistribution
from .grow import GrowthResult, Split, grow, select_by_path
from .topdown import WEIGHTINGS, BatchLeaf, MiniBatchScorer, PureLeaves, Weighting, depth_cap
from .tree import DecisionTree
from .validate import check_binary_matrix, check_choice, check_int, check_labels, check_rng


# --- Lemma C.1 -------------------------------------------------------------------------------

def size_estimate(tree: DecisionTree, points: np.ndarray) -> float:
    """e = mean over ``points`` of 2^|l_T(x)|, the size estimator of BGLT 2020, Lemma C.1.

    With points drawn uniformly from {0,1}^n, E[e] = size(T), and |e - size| <= Delta with
    probability >= 1 - 2 exp(-2 m Delta^2 / 4^depth(T)) (Hoeffding).
    """
    X = check_binary_matrix("points", points, tree.n)
    if X.shape[0] == 0:
        raise ValueError("points must have at least one row, got 0")
    depth = np.asarray(tree.node_depth, dtype=np.float64)[tree.apply(X)]
    return float(np.mean(2.0 ** depth))


# --- the label oracle and the shared randomness --------------------------------------------------

class LabelOracle:
    """Labels of the unlabelled set S°, revealed on request, cached and counted.

    ``labelled`` counts the distinct points of S° whose label has been revealed so far (a point
    asked for twice is counted once: its label is cached). Build it from the hidden labels
    (:meth:`from_labels`) or from a target function that is evaluated only on requested points
    (:meth:`from_function`).
    """

    def __init__(self, size: int, labeller: Callable[[np.ndarray], np.ndarray]) -> None:
        self.size = check_int("size", size, 1)
        self._labeller = labeller
        self._cache = np.full(self.size, -1, dtype=np.int8)
        self.labelled = 0
        self.requests = 0

    @classmethod
    def from_labels(cls, labels: np.ndarray) -> "LabelOracle":
        """An oracle over hidden labels ``labels`` (one per point of S°)."""
        y = check_labels("labels", labels)
        return cls(y.size, lambda rows: y[rows])

    @classmethod
    def from_function(cls, X: np.ndarray, fn: Callable[[np.ndarray], np.ndarray]) -> "LabelOracle":
        """An oracle that labels point ``X[r]`` by ``fn`` the first time it is asked for."""
        X = check_binary_matrix("X", X)
        return cls(X.shape[0], lambda rows: np.asarray(fn(X[rows])))

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        """Labels of points ``rows`` of S°, labelling (and counting) the ones not seen before."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size and (rows.min() < 0 or rows.max() >= self.size):
            raise ValueError(f"rows must be indices in [0, {self.size - 1}]")
        self.requests += int(rows.size)
        new = np.unique(rows[self._cache[rows] < 0])
        if new.size:
            self._cache[new] = check_labels("labels", self._labeller(new), new.size)
            self.labelled += int(new.size)
        return self._cache[rows].astype(np.uint8)

    @property
    def labelled_mask(self) -> np.ndarray:
        """Which points of S° have been labelled."""
        return self._cache >= 0


def _pack(X: np.ndarray) -> np.ndarray:
    """Rows of a 0/1 matrix as bit codes: (m, W) uint64, bit i of row r = X[r, i] (W = ceil(n/64))."""
    m, n = X.shape
    W = max(1, -(-n // 64))
    packed = np.zeros((m, 8 * W), dtype=np.uint8)
    packed[:, : -(-n // 8)] = np.packbits(X, axis=1, bitorder="little")
    return packed.view("<u8").astype(np.uint64, copy=False)


class PreparedSample:
    """S° in the shared order of Footnote 2, prepared once and reused by every query.

    ``X`` is a validated read-only copy of S° (original row order), ``order`` the shared order and
    ``codes[k]`` the bit code of point ``order[k]`` (:func:`_pack`); the point at position k of the
    order is consistent with a restriction of bit mask M and values V iff codes[k] & M == V.
    """

    def __init__(self, X: np.ndarray, order: np.ndarray) -> None:
        self.X = np.array(X, dtype=np.uint8, order="C")
        self.X.setflags(write=False)
        self.N, self.n = self.X.shape
        self.order = order
        self.codes = np.ascontiguousarray(_pack(self.X)[order])
        self.words = self.codes.shape[1]
        self.codes1 = self.codes[:, 0] if self.words == 1 else None  # 1-D fast path, n <= 64

    def equals(self, X: np.ndarray) -> bool:
        """Whether ``X`` still holds exactly the prepared points (a byte comparison)."""
        if X.shape != self.X.shape:
            return False
        if X.dtype == np.uint8 and X.flags.c_contiguous and X.nbytes % 8 == 0:
            return bool(np.array_equal(X.reshape(-1).view(np.uint64), self.X.reshape(-1).view(np.uint64)))
        return bool(np.array_equal(X, self.X))

    def masks(self, restriction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Bit mask of the fixed variables of ``restriction`` and the bits they are fixed to."""
        r = np.asarray(restriction)[None, :]
        return _pack((r >= 0).astype(np.uint8))[0], _pack((r == 1).astype(np.uint8))[0]

    def consistent(self, positions: np.ndarray | slice, mask: np.ndarray, value: np.ndarray) -> np.ndarray:
        """Boolean: which points at ``positions`` of the shared order are consistent with (mask, value)."""
        if self.codes1 is not None:
            return (self.codes1[positions] & mask[0]) == value[0]
        words = np.flatnonzero(mask)
        c = self.codes[positions][:, words]
        return ((c & mask[words]) == value[words]).all(axis=1)


@dataclass(frozen=True)
class SharedDraws:
    """The shared randomness of Footnote 2 (BGLT 2020): one random order of S° and the strands.

    Batch_b(S°, l) is the first b points of ``order`` consistent with l, for every leaf and in
    every run; ``strands`` (m x n) are the uniform points B°_strands of the size estimator. Both
    are stored as read-only copies. The learners prepare S° in this order once
    (:meth:`prepared`) and reuse it for every later call with the same array; the draws then hold
    a copy of S° and its bit codes (at most two prepared arrays, about |S°| (n + 8 ceil(n/64)) bytes
    each) for as long as they live.
    """

    order: np.ndarray
    strands: np.ndarray
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        order = np.array(self.order)
        if (order.ndim != 1 or order.size == 0 or not np.issubdtype(order.dtype, np.integer)
                or not np.array_equal(np.sort(order), np.arange(order.size))):
            raise ValueError(f"order must be a permutation of range(N) with N >= 1, got shape {order.shape}")
        strands = check_binary_matrix("strands", self.strands).copy()
        if strands.shape[0] == 0:
            raise ValueError("strands must have at least one row, got 0")
        order = order.astype(np.int64, copy=False)
        order.setflags(write=False)
        strands.setflags(write=False)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "strands", strands)

    def __getstate__(self) -> dict:
        # pickled (e.g. to a worker process) without the cached preparations of S°
        state = self.__dict__.copy()
        state["_cache"] = {}
        return state

    @classmethod
    def draw(cls, size: int, n: int, n_strands: int, *, rng: np.random.Generator) -> "SharedDraws":
        """A random order of ``size`` points and ``n_strands`` uniform points of {0,1}^n."""
        size = check_int("size", size, 1)
        n = check_int("n", n, 1)
        n_strands = check_int("n_strands", n_strands, 1)
        rng = check_rng(rng)
        order = rng.permutation(size)
        strands = ProductDistribution.uniform(n).sample(n_strands, rng=rng)
        return cls(order, strands)

    def prepared(self, X: np.ndarray) -> PreparedSample:
        """S° = ``X`` put in this order and bit-packed, computed once per array and then reused.

        A cached preparation is reused only for the same array object whose content still equals
        the prepared copy; otherwise ``X`` is validated and prepared again.
        """
        entry = self._cache.get(id(X))
        if entry is not None and entry[0] is X:
            arr = np.asarray(X)
            if entry[1].equals(arr):
                return entry[1]
        Xv = check_binary_matrix("X", X)
        if Xv.shape[0] != self.order.size:
            raise ValueError(f"X must have {self.order.size} rows (the size of the shared order), "
                             f"got {Xv.shape[0]}")
        sample = PreparedSample(Xv, self.order)
        if len(self._cache) >= 2:
            self._cache.pop(next(iter(self._cache)))
        self._cache[id(X)] = (X, sample)
        return sample


# --- the strand-aware scorer -------------------------------------------------------------------

@dataclass
class LazyLeaf(BatchLeaf):
    """A minibatch leaf whose consistent points are found only when it is first scored.

    Until then ``idx`` is None and the leaf keeps its parent's ``idx`` (``parent_idx``) and scan end
    (``start``). Afterwards ``idx`` holds every position < ``scanned`` of the shared order that is
    consistent with the leaf, ascending, and either ``idx.size == b`` (the scan stopped at the b-th
    point) or ``scanned == N``; so ``idx[:b]`` is Batch_b(S°, l) and ``idx.size == 0`` iff no point
    of S° reaches the leaf.
    """

    scanned: int = 0
    parent_idx: np.ndarray | None = None
    start: int = 0
    mask: np.ndarray | None = None   # bit mask of the fixed variables (PreparedSample.masks)
    value: np.ndarray | None = None  # the bits they are fixed to


class LazyBatches:
    """How the strand learners find a leaf's rows: lazily, on the prepared S° (module docstring).

    The same rows as :class:`~dtcore.topdown.EagerBatches` (``idx[:b]`` is Batch_b(S°, l)), found
    only for the leaves that are scored or labelled. With ``complete`` (the ``"empirical"``
    weighting, whose w(l) = |S° ∩ l| / |S°| needs every consistent point) a leaf keeps all of them.
    """

    def __init__(self, sample: PreparedSample, b: int, complete: bool) -> None:
        self.sample = sample
        self.N, self.n = sample.N, sample.n
        self.order = sample.order
        self.b = check_int("b", b, 1)
        self.complete = complete

    def root(self) -> LazyLeaf:
        restriction = np.full(self.n, -1, dtype=np.int8)
        mask, value = self.sample.masks(restriction)
        return LazyLeaf(restriction, 0, None, parent_idx=np.zeros(0, dtype=np.int64), start=0,
                        mask=mask, value=value)

    def resolve(self, state: LazyLeaf) -> LazyLeaf:
        """Find the leaf's consistent points (see :class:`LazyLeaf`), once."""
        if state.idx is not None:
            return state
        N, b, sample = self.N, self.b, self.sample
        mask, value = state.mask, state.value
        inherited = state.parent_idx
        found = [inherited[sample.consistent(inherited, mask, value)]] if inherited.size else []
        have = found[0].size if found else 0
        pos = state.start
        if not mask.any():  # the root: every point is consistent
            stop = N if self.complete else min(N, max(b - have, 0) + pos)
            found.append(np.arange(pos, stop, dtype=np.int64))
            have, pos = have + stop - pos, stop
        # grow the scan in chunks: first a guess at the rows holding the missing points, then doubling
        chunk = max(64, (b - have) * 2 ** min(state.depth, 62))
        while pos < N and (self.complete or have < b):
            end = N if self.complete else min(N, pos + chunk)
            hits = pos + np.flatnonzero(sample.consistent(slice(pos, end), mask, value))
            found.append(hits)
            have, pos = have + hits.size, end
            chunk *= 2
        idx = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
        if not self.complete and idx.size >= b:  # keep exactly the points before the b-th one
            idx = idx[:b]
            pos = int(idx[-1]) + 1
        state.idx, state.scanned, state.parent_idx = idx, pos, None
        return state

    def reach(self, state: LazyLeaf) -> int:
        """|S° ∩ l| when ``complete``; otherwise min(b, |S° ∩ l|) (all the scorer needs: is it 0?)."""
        return int(self.resolve(state).idx.size)

    def batch(self, state: LazyLeaf, b: int) -> tuple[np.ndarray, np.ndarray]:
        """Batch_b(S°, l): its original row indices in S° and its rows of X."""
        rows = self.order[self.resolve(state).idx[:b]]
        return rows, self.sample.X[rows]

    def children(self, state: LazyLeaf, feature: int) -> tuple[LazyLeaf, LazyLeaf]:
        self.resolve(state)
        r0, r1 = state.restriction.copy(), state.restriction.copy()
        r0[feature], r1[feature] = 0, 1
        word, bit = divmod(feature, 64)
        mask = state.mask.copy()
        mask[word] |= np.uint64(1) << np.uint64(bit)
        value1 = state.value.copy()
        value1[word] |= np.uint64(1) << np.uint64(bit)
        c0 = LazyLeaf(r0, state.depth + 1, None, parent_idx=state.idx, start=state.scanned,
                      mask=mask, value=state.value)
        c1 = LazyLeaf(r1, state.depth + 1, None, parent_idx=state.idx, start=state.scanned,
                      mask=mask, value=value1)
        return c0, c1


class StrandScorer(MiniBatchScorer):
    """MiniBatchTopDown_G's scorer that also follows strands and query points (BGLT 2020, App. D).

    Composed of the lazy rows of :class:`LazyBatches` and :class:`~dtcore.topdown.MiniBatchScorer`'s
    split scoring, so the gains and completions are the same numbers on the same minibatches and
    the trees and the labels asked for are those of MiniBatchTopDown_G. On top, it tracks which
    strands and queries reach each leaf: ``e`` is the current size estimate mean_x 2^|l(x)| over
    the strands. With ``local=True`` (LocalLearner) only leaves reached by a strand or a query are
    scored, and no leaf is labelled during growth (the query leaves are labelled at the end);
    otherwise (TopDownSizeEstimate) every leaf is scored and completed, as MiniBatchTopDown_G does.
    """

    def __init__(self, sample: PreparedSample, oracle: Callable[[np.ndarray], np.ndarray], b: int,
                 draws: SharedDraws, queries: np.ndarray | None, impurity: str, weighting: Weighting,
                 max_depth: int, local: bool, pure_leaves: PureLeaves = "split") -> None:
        check_choice("weighting", weighting, WEIGHTINGS)
        super().__init__(LazyBatches(sample, b, complete=weighting == "empirical"), oracle, b,
                         impurity, weighting, max_depth, pure_leaves)
        self.strand_points = check_binary_matrix("strands", draws.strands, self.n)
        self.query_points = (np.zeros((0, self.n), dtype=np.uint8) if queries is None
                             else check_binary_matrix("queries", queries, self.n))
        self.local = local
        self._sum = float(self.strand_points.shape[0])  # sum over strands of 2^depth
        self.query_leaves: dict[bytes, BatchLeaf] = {}  # current leaves reached by a query

    @property
    def e(self) -> float:
        """The strand size estimate of the current tree (Lemma C.1)."""
        return self._sum / self.strand_points.shape[0]

    def root(self) -> LazyLeaf:
        leaf = self.batches.root()
        leaf.strands = np.arange(self.strand_points.shape[0])
        leaf.queries = np.arange(self.query_points.shape[0])
        if leaf.queries.size:
            self.query_leaves[leaf.key] = leaf
        return leaf

    def on_strand(self, state: BatchLeaf) -> bool:
        """Whether a strand or a query point reaches the leaf."""
        return state.strands.size > 0 or state.queries.size > 0

    def best_split(self, state: LazyLeaf) -> Split | None:
        if self.local and not self.on_strand(state):
            return None
        return super().best_split(state)

    def children(self, state: LazyLeaf, feature: int) -> tuple[LazyLeaf, LazyLeaf]:
        c0, c1 = self.batches.children(state, feature)
        s_right = self.strand_points[state.strands, feature] == 1
        q_right = self.query_points[state.queries, feature] == 1
        c0.strands, c1.strands = state.strands[~s_right], state.strands[s_right]
        c0.queries, c1.queries = state.queries[~q_right], state.queries[q_right]
        self._sum += state.strands.size * 2.0**state.depth  # each strand's 2^depth doubles
        if state.queries.size:
            self.query_leaves.pop(state.key, None)
            for c in (c0, c1):
                if c.queries.size:
                    self.query_leaves[c.key] = c
        return c0, c1

    def minibatch_label(self, state: LazyLeaf) -> float:
        """round(mean label of Batch_b(S°, l)) (Definition 2); 0 if no point of S° reaches l."""
        return MiniBatchScorer.label(self, state)

    def label(self, state: LazyLeaf) -> float:
        if self.local:
            return 0.0  # labelled at the end, only where a query ends
        return self.minibatch_label(state)


@dataclass(frozen=True)
class LocalResult:
    """What the strand learners return.

    ``tree``: the grown (partial) tree; ``labels``: predictions at the query points; ``e``: the
    final size estimate; ``labelled``: distinct points of S° labelled during this call (by an oracle
    that counts them, e.g. :class:`LabelOracle`); ``requests``: labels asked for during this call,
    one per point of every minibatch read (what Lemma D.1 counts; nested minibatches make this
    larger than ``labelled``); ``query_leaves``: the leaf node each query ends in; ``trace``: growth
    trace (with e); ``reached_t``: whether e reached t (False when growth ran out of splittable
    leaves first, which ``pure_leaves="stop"`` or the depth cap can cause).
    """

    tree: DecisionTree
    labels: np.ndarray
    e: float
    labelled: int
    query_leaves: np.ndarray
    trace: pd.DataFrame
    requests: int = 0
    reached_t: bool = True


def _run_strands(X: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray], t: int, b: int,
                 draws: SharedDraws, queries: np.ndarray | None, impurity: str,
                 weighting: Weighting, local: bool, pure_leaves: PureLeaves) -> tuple[GrowthResult, StrandScorer]:
    t = check_int("size", t, 1)
    b = check_int("batch_size", b, 1)
    if not isinstance(draws, SharedDraws):
        raise ValueError(f"draws must be a SharedDraws, got {type(draws).__name__}")
    sample = draws.prepared(X)
    scorer = StrandScorer(sample, oracle, b, draws, queries, impurity, weighting, depth_cap(t), local, pure_leaves)
    res = grow(scorer, stop=lambda fr: scorer.e >= t, n=scorer.n, select=select_by_path,
               observe=lambda fr: {"e": scorer.e})
    return res, scorer


def _count(oracle: object) -> int:
    return int(getattr(oracle, "labelled", 0))


def _requests(oracle: object) -> int:
    return int(getattr(oracle, "requests", 0))


def top_down_size_estimate(X: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray], *, size: int, batch_size: int,
                           draws: SharedDraws, impurity: str = "gini",
                           weighting: Weighting = "uniform", pure_leaves: PureLeaves = "split") -> LocalResult:
    """TopDownSizeEstimate_G(t, b, S) (BGLT 2020, Appendix D, Figure 4).

    MiniBatchTopDown_G with the stop rule "strand size estimate e >= t" instead of "size = t":
    grows best-first (leaves of depth <= D = :func:`~dtcore.topdown.depth_cap` scored on their
    minibatches from ``draws``) until e >= t, then completes every leaf by its minibatch. Its size
    t' is the t' of Theorem 2; MiniBatchTopDown_G(t', b, S) with the same draws builds the same tree.

    Parameters
    ----------
    X : array of shape (N, n)
        The unlabelled set S°, 0/1.
    oracle : callable
        ``rows -> labels`` of S°'s points (a :class:`LabelOracle` counts them).
    size : int
        The size parameter t, >= 1.
    batch_size : int
        The minibatch size b, >= 1.
    draws : SharedDraws
        The shared order of S° and the strands.
    impurity : {"gini", "entropy", "kearns_mansour"}, default="gini"
    weighting : {"uniform", "empirical"}, default="uniform"
    pure_leaves : {"split", "stop"}, default="split"
        See :class:`~dtcore.topdown.MiniBatchScorer` (``"split"`` is the paper's rule).

    Returns
    -------
    LocalResult
        ``tree`` (complete), ``e`` (final size estimate), ``labelled`` (labels used here).

    Examples
    --------
    >>> import numpy as np
    >>> from dtcore.local import LabelOracle, SharedDraws
    >>> X = np.random.default_rng(0).integers(0, 2, size=(2000, 6), dtype=np.uint8)
    >>> draws = SharedDraws.draw(2000, 6, 32, rng=np.random.default_rng(2))  # S°'s order and the strands
    >>> oracle = LabelOracle.from_labels((X[:, 0] & X[:, 1]) | X[:, 2])  # reveals (and counts) labels
    >>> result = top_down_size_estimate(X, oracle, size=4, batch_size=32, draws=draws)
    >>> result.tree.size, result.e, result.labelled
    (4, 4.0, 128)
    """
    start, asked = _count(oracle), _requests(oracle)
    res, scorer = _run_strands(X, oracle, size, batch_size, draws, None, impurity, weighting, False, pure_leaves)
    return LocalResult(res.tree, np.zeros(0, dtype=np.uint8), scorer.e, _count(oracle) - start,
                       np.zeros(0, dtype=np.int64), res.trace, _requests(oracle) - asked, scorer.e >= size)


def local_learner(X: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray], *, size: int, batch_size: int,
                  x_star: np.ndarray, draws: SharedDraws, impurity: str = "gini",
                  weighting: Weighting = "uniform", pure_leaves: PureLeaves = "split") -> LocalResult:
    """LocalLearner_G(t, b, S°, x*) (BGLT 2020, Figure 2; Theorem 2 / Theorem 5).

    Grows only the leaves reached by the strands of ``draws`` or by the query points ``x_star``
    (one point, or several rows answered in one run), asking ``oracle`` for the labels of their
    minibatches, until the strand estimate e reaches t; returns round(mean label of the minibatch
    of the leaf each query ends in). With the same ``draws`` this is T(x*) for the tree T of
    :func:`top_down_size_estimate`. ``labelled`` counts the distinct points of S° labelled here.

    Parameters
    ----------
    X : array of shape (N, n)
        The unlabelled set S°, 0/1.
    oracle : callable
        ``rows -> labels`` of S°'s points.
    size, batch_size : int
        The size parameter t and the minibatch size b, >= 1.
    x_star : array of shape (n,) or (q, n)
        The query point(s).
    draws : SharedDraws
        The shared randomness (same draws: same tree as :func:`top_down_size_estimate`).
    impurity, weighting, pure_leaves : str
        As in :func:`top_down_size_estimate`.

    Returns
    -------
    LocalResult
        ``labels`` (T(x*) per query), ``labelled``, ``e``, the partial ``tree``.

    Examples
    --------
    >>> import numpy as np
    >>> from dtcore.local import LabelOracle, SharedDraws
    >>> X = np.random.default_rng(0).integers(0, 2, size=(2000, 6), dtype=np.uint8)
    >>> oracle = LabelOracle.from_labels((X[:, 0] & X[:, 1]) | X[:, 2])  # counts the labels it reveals
    >>> draws = SharedDraws.draw(2000, 6, 32, rng=np.random.default_rng(2))
    >>> result = local_learner(X, oracle, size=4, batch_size=32, x_star=np.array([1, 1, 0, 0, 0, 0], dtype=np.uint8), draws=draws)
    >>> result.labels.tolist(), result.labelled
    ([1], 128)
    """
    Q = np.atleast_2d(np.asarray(x_star))
    start, asked = _count(oracle), _requests(oracle)
    res, scorer = _run_strands(X, oracle, size, batch_size, draws, Q, impurity, weighting, True, pure_leaves)
    tree = res.tree
    leaves = tree._route(scorer.query_points, rng=None)
    labels = np.zeros(leaves.size, dtype=np.uint8)
    for node in np.unique(leaves):  # one minibatch per distinct query leaf
        state = scorer.query_leaves[tree.restriction_key(int(node))]
        value = scorer.minibatch_label(state)  # round(mean of Batch_b(S°, l)), Definition 2
        tree.set_value(int(node), value)
        labels[leaves == node] = int(value)
    return LocalResult(tree, labels, scorer.e, _count(oracle) - start, leaves, res.trace,
                       _requests(oracle) - asked, scorer.e >= size)


@dataclass(frozen=True)
class EstResult:
    """Est_G's output: the estimated test error, LocalLearner's predictions, labels used
    (``labelled`` distinct points, ``requests`` label requests; see :class:`LocalResult`)."""

    tree: DecisionTree
    error: float
    predictions: np.ndarray
    labelled: int
    e: float
    requests: int = 0
    reached_t: bool = True


def est(X: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray], *, size: int, batch_size: int, X_test: np.ndarray,
        y_test: np.ndarray, draws: SharedDraws, impurity: str = "gini",
        weighting: Weighting = "uniform", pure_leaves: PureLeaves = "split") -> EstResult:
    """Est_G(t, b, S°, S_test) (BGLT 2020, Figure 5; Theorem 3 / Theorem 6).

    The fraction of test points where LocalLearner_G(t, b, S°, x) differs from the test label,
    all queries sharing ``draws`` and the oracle's label cache. The queries are answered in one
    growth (the strands and every test point followed together), which gives the same answers
    as one LocalLearner call per point because each call makes the same splits on the leaves it
    shares with the others.

    Parameters
    ----------
    X, oracle, size, batch_size
        As in :func:`local_learner`: the unlabelled set S°, its label oracle, size t and minibatch size b.
    X_test : array of shape (m_test, n)
        The test points, 0/1.
    y_test : array of shape (m_test,)
        Their 0/1 labels.
    draws : SharedDraws
        The shared randomness.
    impurity, weighting, pure_leaves : str
        As in :func:`top_down_size_estimate`.

    Returns
    -------
    EstResult
        ``error`` (the estimate), ``predictions``, ``labelled`` (labels of S° used), ``e``, ``tree``.

    See Also
    --------
    dtcore.learnability.estimate_learnability : Est over a grid of sizes, on real-valued data.

    Examples
    --------
    >>> import numpy as np
    >>> from dtcore.local import LabelOracle, SharedDraws
    >>> rng = np.random.default_rng(0)
    >>> X, X_test = rng.integers(0, 2, size=(2000, 6), dtype=np.uint8), rng.integers(0, 2, size=(100, 6), dtype=np.uint8)
    >>> def f(Z): return (Z[:, 0] & Z[:, 1]) | Z[:, 2]
    >>> draws = SharedDraws.draw(2000, 6, 32, rng=np.random.default_rng(2))
    >>> result = est(X, LabelOracle.from_labels(f(X)), size=4, batch_size=32, X_test=X_test, y_test=f(X_test), draws=draws)
    >>> result.error, result.labelled
    (0.0, 128)
    """
    X_test = check_binary_matrix("X_test", X_test)
    y_test = check_labels("y_test", y_test, X_test.shape[0])
    if X_test.shape[0] == 0:
        raise ValueError("X_test must have at least one row, got 0")
    res = local_learner(X, oracle, size=size, batch_size=batch_size, x_star=X_test, draws=draws, impurity=impurity, weighting=weighting, pure_leaves=pure_leaves)
    return EstResult(res.tree, float(np.mean(res.labels != y_test)), res.labels, res.labelled, res.e,
                     res.requests, res.reached_t)
