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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .cube import ProductDistribution
from .grow import GrowthResult, Split, grow
from .topdown import BatchLeaf, MiniBatchScorer, Weighting, depth_cap, select_by_path
from .tree import DecisionTree
from .validate import check_binary_matrix, check_int, check_labels, check_rng


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


@dataclass(frozen=True)
class SharedDraws:
    """The shared randomness of Footnote 2 (BGLT 2020): one random order of S° and the strands.

    Batch_b(S°, l) is the first b points of ``order`` consistent with l, for every leaf and in
    every run; ``strands`` (m x n) are the uniform points B°_strands of the size estimator.
    """

    order: np.ndarray
    strands: np.ndarray

    @classmethod
    def draw(cls, size: int, n: int, n_strands: int, rng: np.random.Generator) -> "SharedDraws":
        """A random order of ``size`` points and ``n_strands`` uniform points of {0,1}^n."""
        size = check_int("size", size, 1)
        n = check_int("n", n, 1)
        n_strands = check_int("n_strands", n_strands, 1)
        rng = check_rng(rng)
        order = rng.permutation(size)
        strands = ProductDistribution.uniform(n).sample(n_strands, rng)
        return cls(order, strands)


# --- the strand-aware scorer -------------------------------------------------------------------

class StrandScorer(MiniBatchScorer):
    """MiniBatchTopDown_G's scorer that also follows strands and query points (BGLT 2020, App. D).

    ``e`` is the current size estimate mean_x 2^|l(x)| over the strands. With ``local=True``
    (LocalLearner) only leaves reached by a strand or a query are scored, and no leaf is labelled
    during growth (the query leaves are labelled at the end); otherwise (TopDownSizeEstimate)
    every leaf is scored and completed, as MiniBatchTopDown_G does.
    """

    def __init__(self, X: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray], b: int,
                 draws: SharedDraws, queries: np.ndarray | None, impurity: str, weighting: Weighting,
                 max_depth: int, local: bool) -> None:
        super().__init__(X, oracle, b, draws.order, impurity, weighting, max_depth)
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

    def root(self) -> BatchLeaf:
        leaf = super().root()
        leaf.strands = np.arange(self.strand_points.shape[0])
        leaf.queries = np.arange(self.query_points.shape[0])
        if leaf.queries.size:
            self.query_leaves[leaf.key] = leaf
        return leaf

    def on_strand(self, state: BatchLeaf) -> bool:
        """Whether a strand or a query point reaches the leaf."""
        return state.strands.size > 0 or state.queries.size > 0

    def best_split(self, state: BatchLeaf) -> Split | None:
        if self.local and not self.on_strand(state):
            return None
        return super().best_split(state)

    def children(self, state: BatchLeaf, feature: int) -> tuple[BatchLeaf, BatchLeaf]:
        c0, c1 = super().children(state, feature)
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

    def label(self, state: BatchLeaf) -> float:
        if self.local:
            return 0.0  # labelled at the end, only where a query ends
        return super().label(state)


@dataclass
class LocalResult:
    """What the strand learners return.

    ``tree``: the grown (partial) tree; ``labels``: predictions at the query points; ``e``: the
    final size estimate; ``labelled``: distinct points of S° labelled during this call;
    ``query_leaves``: the leaf node each query ends in; ``trace``: growth trace (with e).
    """

    tree: DecisionTree
    labels: np.ndarray
    e: float
    labelled: int
    query_leaves: np.ndarray
    trace: object


def _run_strands(t: int, b: int, X: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray],
                 draws: SharedDraws, queries: np.ndarray | None, impurity: str,
                 weighting: Weighting, local: bool) -> tuple[GrowthResult, StrandScorer]:
    t = check_int("t", t, 1)
    b = check_int("b", b, 1)
    if not isinstance(draws, SharedDraws):
        raise ValueError(f"draws must be a SharedDraws, got {type(draws).__name__}")
    scorer = StrandScorer(X, oracle, b, draws, queries, impurity, weighting, depth_cap(t), local)
    res = grow(scorer, stop=lambda fr: scorer.e >= t, n=scorer.n, select=select_by_path,
               observe=lambda fr: {"e": scorer.e})
    return res, scorer


def _count(oracle: object) -> int:
    return int(getattr(oracle, "labelled", 0))


def top_down_size_estimate(X: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray], t: int, b: int,
                           draws: SharedDraws, impurity: str = "gini",
                           weighting: Weighting = "uniform") -> LocalResult:
    """TopDownSizeEstimate_G(t, b, S) (BGLT 2020, Appendix D, Figure 4).

    MiniBatchTopDown_G with the stop rule "strand size estimate e >= t" instead of "size = t":
    grows best-first (leaves of depth <= D = :func:`~dtcore.topdown.depth_cap` scored on their
    minibatches from ``draws``) until e >= t, then completes every leaf by its minibatch. Its size
    t' is the t' of Theorem 2; MiniBatchTopDown_G(t', b, S) with the same draws builds the same tree.
    """
    start = _count(oracle)
    res, scorer = _run_strands(t, b, X, oracle, draws, None, impurity, weighting, local=False)
    return LocalResult(res.tree, np.zeros(0, dtype=np.uint8), scorer.e, _count(oracle) - start,
                       np.zeros(0, dtype=np.int64), res.trace)


def local_learner(t: int, b: int, X: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray],
                  x_star: np.ndarray, draws: SharedDraws, impurity: str = "gini",
                  weighting: Weighting = "uniform") -> LocalResult:
    """LocalLearner_G(t, b, S°, x*) (BGLT 2020, Figure 2; Theorem 2 / Theorem 5).

    Grows only the leaves reached by the strands of ``draws`` or by the query points ``x_star``
    (one point, or several rows answered in one run), asking ``oracle`` for the labels of their
    minibatches, until the strand estimate e reaches t; returns round(mean label of the minibatch
    of the leaf each query ends in). With the same ``draws`` this is T(x*) for the tree T of
    :func:`top_down_size_estimate`. ``labelled`` counts the distinct points of S° labelled here.
    """
    Q = np.atleast_2d(np.asarray(x_star))
    start = _count(oracle)
    res, scorer = _run_strands(t, b, X, oracle, draws, Q, impurity, weighting, local=True)
    tree = res.tree
    leaves = tree._route(scorer.query_points, None)
    labels = np.zeros(leaves.size, dtype=np.uint8)
    for node in np.unique(leaves):  # one minibatch per distinct query leaf
        state = scorer.query_leaves[(tree._restriction[int(node)] + 1).astype(np.uint8).tobytes()]
        value = MiniBatchScorer.label(scorer, state)  # round(mean of Batch_b(S°, l)), Definition 2
        tree.set_value(int(node), value)
        labels[leaves == node] = int(value)
    return LocalResult(tree, labels, scorer.e, _count(oracle) - start, leaves, res.trace)


@dataclass
class EstResult:
    """Est_G's output: the estimated test error, LocalLearner's predictions, labels used."""

    error: float
    predictions: np.ndarray
    labelled: int
    e: float
    tree: DecisionTree


def est(t: int, b: int, X: np.ndarray, oracle: Callable[[np.ndarray], np.ndarray], X_test: np.ndarray,
        y_test: np.ndarray, draws: SharedDraws, impurity: str = "gini",
        weighting: Weighting = "uniform") -> EstResult:
    """Est_G(t, b, S°, S_test) (BGLT 2020, Figure 5; Theorem 3 / Theorem 6).

    The fraction of test points where LocalLearner_G(t, b, S°, x) differs from the test label,
    all queries sharing ``draws`` and the oracle's label cache. The queries are answered in one
    growth (the strands and every test point followed together), which gives the same answers
    as one LocalLearner call per point because each call makes the same splits on the leaves it
    shares with the others.
    """
    X_test = check_binary_matrix("X_test", X_test)
    y_test = check_labels("y_test", y_test, X_test.shape[0])
    if X_test.shape[0] == 0:
        raise ValueError("X_test must have at least one row, got 0")
    res = local_learner(t, b, X, oracle, X_test, draws, impurity, weighting)
    return EstResult(float(np.mean(res.labels != y_test)), res.labels, res.labelled, res.e, res.tree)
