"""BuildTopDownDT: the exact influence scorer on the shared growth loop.

Blanc–Lange–Tan 2020 (and Moakhar et al. 2026, Algorithm 1, under product measures): every leaf
is scored by Pr[x reaches the leaf] times the largest influence of f restricted to it, computed
exactly from f's truth table (:class:`dtcore.analysis.ExactMeasure`); the loop
(:func:`dtcore.grow.grow`) splits the best leaf until the completion's error is at most eps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .analysis import ExactMeasure, InfluenceKind, WordLevelCounts, influence_factor
from .cube import ProductDistribution, check_table, resolve_distribution, table_variables
from .grow import GrowthResult, Selector, Split, grow, select_best
from .validate import check_int, check_real


@dataclass(frozen=True)
class ExactLeaf:
    """A leaf seen exactly: its restriction and the statistics of f on it.

    ``error`` = Pr[reach] * error(f_leaf, +-1) and ``cost`` = Pr[reach] * Inf(f_leaf) are this
    leaf's shares of the completion error and of cost_f(T).
    """

    restriction: np.ndarray
    p_reach: float
    mass_one: float
    weighted_influence: np.ndarray  # Pr[reach] * Inf_i(f_leaf), zero on fixed variables
    error: float
    cost: float

    @property
    def variance(self) -> float:
        """Var(f_leaf) = 4 q (1 - q), q = Pr[f = 1 | reach]."""
        q = self.mass_one / self.p_reach if self.p_reach > 0 else 0.0
        return 4.0 * q * (1.0 - q)


# --- BuildTopDownDT's formulas: one place, called by both growth paths -----------------------
# The one-leaf-at-a-time scorer (InfluenceScorer) and the level-batched one (LevelCountsScorer),
# both on grow(), call these functions on rows of leaves, so both run the same floating-point
# operations, and a change here changes both.
def leaf_shares(p_reach: np.ndarray, mass_one: np.ndarray,
                weighted_influence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each leaf's shares of the completion error and of cost_f(T) (BLT 2020, Sec. 5).

    Parameters
    ----------
    p_reach, mass_one : arrays of shape (L,)
        Pr[x reaches l] and Pr[x reaches l, f(x) = 1].
    weighted_influence : array of shape (L, n)
        Pr[x reaches l] * Inf_i(f_l), zero on the variables l fixes.

    Returns
    -------
    (error, cost) : arrays of shape (L,)
        Pr[reach] * error(f_l, +-1) = min(Pr[reach, f = 1], Pr[reach, f = 0]) and
        Pr[reach] * Inf(f_l) = the row sums of ``weighted_influence``.
    """
    error = np.minimum(mass_one, p_reach - mass_one)
    cost = weighted_influence.sum(axis=1)
    return error, cost


def best_splits(weighted_influence: np.ndarray, p_reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """BuildTopDownDT's score of each leaf, Pr[x reaches l] * max_i Inf_i(f_l), and its variable.

    Parameters
    ----------
    weighted_influence : array of shape (L, n)
        Pr[x reaches l] * Inf_i(f_l), zero on fixed variables: the weight Pr[x reaches l] is
        already in it, so the score is its row maximum.
    p_reach : array of shape (L,)
        Pr[x reaches l], the weight that separates the score from the leaf's own influence.

    Returns
    -------
    (variable, score) : arrays of shape (L,)
        The most influential variable (ties to the lowest index), -1 where the score is not
        positive (f is constant on the leaf), and the score.
    """
    variable = np.argmax(weighted_influence, axis=1)
    score = weighted_influence[np.arange(variable.size), variable]
    return np.where(score > 0, variable, -1), score


def completion_labels(p_reach: np.ndarray, mass_one: np.ndarray) -> np.ndarray:
    """The f-completion's label of each leaf: True (1) where f's majority value on it is 1."""
    return mass_one >= p_reach - mass_one


def target_reached(error: float, cost: float, eps: float) -> bool:
    """BuildTopDownDT's stop rule: the completion's error is at most eps (cost only bounds it)."""
    return error <= eps


def _after_split(total: float, parent: float, kid0: float, kid1: float) -> float:
    """A frontier total (cost or error) after a leaf's share is replaced by its children's."""
    return total + (kid0 + kid1 - parent)


class InfluenceScorer:
    """Exact influence scores from a truth table: score(l) = Pr[x reaches l] * max_i Inf_i(f_l).

    Ties between variables go to the lowest index. ``kind`` picks flip (BLT 2020) or
    re-randomisation (Moakhar et al. 2026) influence. The formulas are :func:`leaf_shares`,
    :func:`best_splits` and :func:`completion_labels`, one leaf at a time.
    """

    def __init__(self, table: np.ndarray, dist: ProductDistribution | None = None,
                 kind: InfluenceKind = "flip") -> None:
        self.measure = ExactMeasure(table, dist, kind)
        self.total_cost = 0.0  # cost_f and error of the current frontier, kept up to date
        self.total_error = 0.0

    def _leaf(self, restriction: np.ndarray) -> ExactLeaf:
        p, one, inf = self.measure.region(restriction)
        error, cost = leaf_shares(np.array([p]), np.array([one]), inf[None])
        return ExactLeaf(restriction, p, one, inf, float(error[0]), float(cost[0]))

    def root(self) -> ExactLeaf:
        leaf = self._leaf(np.full(self.measure.n, -1, dtype=np.int8))
        self.total_cost, self.total_error = leaf.cost, leaf.error
        return leaf

    def best_split(self, state: ExactLeaf) -> Split | None:
        variable, score = best_splits(state.weighted_influence[None], np.array([state.p_reach]))
        return Split(float(score[0]), int(variable[0])) if variable[0] >= 0 else None

    def children(self, state: ExactLeaf, feature: int) -> tuple[ExactLeaf, ExactLeaf]:
        r0, r1 = state.restriction.copy(), state.restriction.copy()
        r0[feature], r1[feature] = 0, 1
        c0, c1 = self._leaf(r0), self._leaf(r1)
        self.total_cost = _after_split(self.total_cost, state.cost, c0.cost, c1.cost)
        self.total_error = _after_split(self.total_error, state.error, c0.error, c1.error)
        return c0, c1

    def label(self, state: ExactLeaf) -> float:
        return float(completion_labels(np.array([state.p_reach]), np.array([state.mass_one]))[0])

    def done(self, eps: float) -> bool:
        """Whether the current frontier meets BuildTopDownDT's stop rule (:func:`target_reached`)."""
        return target_reached(self.total_error, self.total_cost, eps)


_BATCHED_FROM = 8          # n from which the leaves are counted in batches (a word holds 64 points)


class _Leaves:
    """The exact statistics of every leaf created so far, in arrays (row = leaf id; id 0 unused)."""

    def __init__(self, n: int, capacity: int) -> None:
        self.restriction = np.full((capacity, n), -1, dtype=np.int8)
        self.p_reach = np.zeros(capacity)
        self.mass_one = np.zeros(capacity)
        self.influence = np.zeros((capacity, n))
        self.cost = np.zeros(capacity)
        self.error = np.zeros(capacity)
        self.feature = np.full(capacity, -1, dtype=np.int64)     # best split; -1: cannot split
        self.score = np.zeros(capacity)
        self.whole_words = np.zeros(capacity, dtype=bool)        # tracked by the word map
        self.label = np.zeros(capacity, dtype=bool)
        self.count_ones = np.zeros(capacity, dtype=np.int64)     # exact counts of word-map leaves
        self.count_flips = np.zeros((capacity, n), dtype=np.int64)
        self.size = 1

    def grow_to(self, capacity: int) -> None:
        if capacity <= self.p_reach.size:
            return
        extra = max(capacity, 2 * self.p_reach.size) - self.p_reach.size   # doubling: few copies
        for name in ("restriction", "p_reach", "mass_one", "influence", "cost", "error", "feature", "score",
                     "whole_words", "label", "count_ones", "count_flips"):
            old = getattr(self, name)
            fill = -1 if name in ("restriction", "feature") else 0
            setattr(self, name, np.concatenate([old, np.full((extra,) + old.shape[1:], fill, dtype=old.dtype)]))

    def store(self, ids: np.ndarray, restriction: np.ndarray, p_reach: np.ndarray, mass_one: np.ndarray,
              influence: np.ndarray) -> None:
        """The statistics of leaves ``ids``, and what ExactLeaf and InfluenceScorer derive from them."""
        self.restriction[ids] = restriction
        self.p_reach[ids] = p_reach
        self.mass_one[ids] = mass_one
        self.influence[ids] = influence
        self.error[ids], self.cost[ids] = leaf_shares(p_reach, mass_one, influence)
        self.label[ids] = completion_labels(p_reach, mass_one)
        self.feature[ids], self.score[ids] = best_splits(influence, p_reach)


def _inword_variables(root_influence: np.ndarray) -> np.ndarray:
    """The six variables packed inside the words: least root influence, the last index among ties
    (the ones best-first growth splits last, so a leaf rarely fixes one)."""
    n = root_influence.size
    return np.lexsort((-np.arange(n), root_influence))[:6]


class LevelCountsScorer:
    """BuildTopDownDT's exact influence scorer under the uniform measure, counting leaves by levels.

    The same scores, labels, cost and error as :class:`InfluenceScorer` (the same floating-point
    operations from the same integer counts, :func:`leaf_shares`, :func:`best_splits`,
    :func:`completion_labels`), on the same loop :func:`dtcore.grow.grow`: only the counting
    differs. A leaf's statistics depend on its restriction alone, so the first time the loop splits
    a leaf whose children are not counted yet, the children of every splittable leaf of the
    frontier are counted in one pass over the flip tables (:class:`WordLevelCounts`). The batches
    follow the tree's levels, so the counting is one pass over the n flip tables per level, as a
    level-synchronous algorithm's; children counted for a leaf the size cap leaves unsplit are the
    only extra work. A leaf that fixes an in-word variable (:func:`_inword_variables`) is counted by
    :meth:`ExactMeasure.region`, as are its descendants.

    A state is the leaf's row in the scorer's arrays (an int). The scorer follows the frontier
    itself: ``children`` is called exactly for the leaves the loop splits.
    """

    def __init__(self, table: np.ndarray, kind: InfluenceKind = "flip") -> None:
        self.table, self.kind = table, kind
        n = self.n = table_variables(table)
        self.scale, self.factor = 2.0**-n, influence_factor(resolve_distribution(None, n), kind)
        top = np.arange(n - 6, n)                            # packed without moving a byte
        self.words = WordLevelCounts(table, top)
        self._root_counts = self.words.counts(np.array([1]))
        root_influence = self._root_counts[1][0] * self.scale * self.factor
        inword = _inword_variables(root_influence)
        if not np.array_equal(np.sort(inword), top):
            self.words = WordLevelCounts(table, inword)
        self._root_influence = root_influence
        self.measure: ExactMeasure | None = None             # built the first time a leaf needs it
        self.leaves = _Leaves(n, 1024)
        self.splittable: set[int] = set()                     # frontier leaves with a split
        # per-leaf statistics as Python lists (:meth:`_mirror`), and each counted leaf's x = 0 child
        self._cost: list[float] = []
        self._error: list[float] = []
        self._feature: list[int] = []
        self._score: list[float] = []
        self._label: list[float] = []
        self._kid0: dict[int, int] = {}
        self.total_cost = 0.0
        self.total_error = 0.0

    def root(self) -> int:
        leaves, n = self.leaves, self.n
        ones, flips = self._root_counts
        leaves.store(np.array([1]), np.full((1, n), -1, dtype=np.int8), np.array([1.0]), ones * self.scale,
                     self._root_influence[None])
        leaves.whole_words[1] = True
        leaves.count_ones[1], leaves.count_flips[1] = ones[0], flips[0]
        leaves.size = 2
        self._mirror(0, 2)
        if self._feature[1] >= 0:
            self.splittable.add(1)
        self.total_cost, self.total_error = self._cost[1], self._error[1]
        return 1

    def _mirror(self, start: int, stop: int) -> None:
        """Copy the statistics of leaves ``start:stop`` into the Python lists the per-split methods
        read (one conversion per batch instead of a NumPy scalar per read)."""
        leaves = self.leaves
        self._cost += leaves.cost[start:stop].tolist()
        self._error += leaves.error[start:stop].tolist()
        self._feature += leaves.feature[start:stop].tolist()
        self._score += leaves.score[start:stop].tolist()
        self._label += leaves.label[start:stop].astype(np.float64).tolist()

    def best_split(self, state: int) -> Split | None:
        feature = self._feature[state]
        return Split(self._score[state], feature) if feature >= 0 else None

    def label(self, state: int) -> float:
        return self._label[state]

    def children(self, state: int, feature: int) -> tuple[int, int]:
        kid0 = self._kid0.get(state)
        if kid0 is None:
            self._count_children(np.array(sorted(k for k in self.splittable if k not in self._kid0)))
            kid0 = self._kid0[state]
        kid1 = kid0 + 1
        cost, error = self._cost, self._error
        self.total_cost = _after_split(self.total_cost, cost[state], cost[kid0], cost[kid1])
        self.total_error = _after_split(self.total_error, error[state], error[kid0], error[kid1])
        splittable = self.splittable
        splittable.discard(state)
        if self._feature[kid0] >= 0:
            splittable.add(kid0)
        if self._feature[kid1] >= 0:
            splittable.add(kid1)
        return kid0, kid1

    def done(self, eps: float) -> bool:
        """Whether the current frontier meets BuildTopDownDT's stop rule (:func:`target_reached`)."""
        return target_reached(self.total_error, self.total_cost, eps)

    def _count_children(self, parents: np.ndarray) -> None:
        """Count both children of every leaf in ``parents`` (one batch)."""
        leaves, words, n = self.leaves, self.words, self.n
        first = leaves.size + 2 * np.arange(parents.size)
        leaves.grow_to(leaves.size + 2 * parents.size)
        leaves.size += 2 * parents.size
        variables = leaves.feature[parents]
        restriction = np.repeat(leaves.restriction[parents], 2, axis=0)
        restriction[np.arange(2 * parents.size), np.repeat(variables, 2)] = np.tile([0, 1], parents.size)
        kids = np.stack([first, first + 1], axis=1).reshape(-1)
        tracked = leaves.whole_words[parents] & (words.position[variables] >= 6)
        words.split(parents, np.where(tracked, variables, -1), first)
        if tracked.any():
            # the x = 0 children are counted on their words, their siblings are parent minus them
            on_map = np.repeat(tracked, 2)
            ids = kids[on_map]
            zero_ones, zero_flips = words.counts(first[tracked])
            ones = np.stack([zero_ones, leaves.count_ones[parents[tracked]] - zero_ones], axis=1).reshape(-1)
            flips = np.stack([zero_flips, leaves.count_flips[parents[tracked]] - zero_flips], axis=1).reshape(-1, n)
            leaves.count_ones[ids], leaves.count_flips[ids] = ones, flips
            fixed = restriction[on_map] >= 0
            influence = flips * self.scale * self.factor
            influence[fixed] = 0.0
            leaves.store(ids, restriction[on_map], 2.0 ** -fixed.sum(axis=1).astype(np.float64),
                         ones.astype(np.float64) * self.scale, influence)
            leaves.whole_words[ids] = True
        for t in np.flatnonzero(np.repeat(~tracked, 2)):  # leaves off the word map; one call each
            if self.measure is None:
                self.measure = ExactMeasure(self.table, None, self.kind)
            p, one, inf = self.measure.region(restriction[t])
            leaves.store(kids[t:t + 1], restriction[t:t + 1], np.array([p]), np.array([one]), inf[None])
        self._kid0.update(zip(parents.tolist(), first.tolist()))
        self._mirror(int(first[0]), leaves.size)


def build_top_down_dt(
    table: np.ndarray,
    *,
    eps: float,
    dist: ProductDistribution | None = None,
    kind: InfluenceKind = "flip",
    size: int | None = None,
    select: Selector = select_best,
) -> GrowthResult:
    """BuildTopDownDT (Blanc–Lange–Tan 2020, Sec. 3), computed exactly from a truth table.

    Splits the leaf of highest score Pr[x reaches l] * max_i Inf_i(f_l) on its most influential
    variable until the f-completion is an eps-approximation of f. Leaves are labelled by the
    completion. The trace records, before every split, the number of leaves, cost_f and the
    completion error. ``dist``/``kind`` give Algorithm 1 of Moakhar et al. 2026.

    Parameters
    ----------
    table : array of shape (2^n,)
        The truth table of f (bit i of the index is x_i).
    eps : float
        The target error, in (0, 1/2).
    dist : ProductDistribution, optional
        The product distribution (default uniform).
    kind : {"flip", "rerandomised"}, default="flip"
        Influence kind: flip (BLT 2020) or re-randomisation (Moakhar et al. 2026).
    size : int, optional
        A cap on the size.
    select : callable, default=select_best
        The leaf selector.

    Returns
    -------
    GrowthResult
        The tree and a trace with columns step, leaves, cost, error, feature, score, depth, node.

    Examples
    --------
    >>> from dtcore import all_points
    >>> from dtcore.functions import majority
    >>> table = majority(all_points(3))
    >>> result = build_top_down_dt(table, eps=0.1)
    >>> result.tree.size, float(result.trace["error"].iloc[-1])
    (6, 0.0)
    """
    table = check_table(table)
    eps = check_real("eps", eps, 0.0, 0.5)
    if size is not None:
        size = check_int("size", size, 1)
    uniform = dist is None or dist.is_uniform
    n = table_variables(table)
    # the same scores either way; under the uniform measure with best-first selection the leaves
    # are counted a level at a time
    batched = uniform and select is select_best and n >= _BATCHED_FROM
    scorer = LevelCountsScorer(table, kind) if batched else InfluenceScorer(table, dist, kind)
    return grow(
        scorer,
        stop=lambda fr: scorer.done(eps),
        n=n,
        size=size,
        select=select,
        observe=lambda fr: {"cost": scorer.total_cost, "error": scorer.total_error},
    )
