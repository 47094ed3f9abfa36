"""The best-first growth loop shared by every top-down learner of the five papers.

Each learner is a *scorer* (how good is the best split of a leaf, and on which variable) plus a
*stop rule* (when is the tree done). :func:`grow` keeps the frontier of leaves, splits the
selected one, and records a trace of every step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import pandas as pd

from .validate import check_int, check_real
from .analysis import ExactMeasure, InfluenceKind
from .cube import ProductDistribution, check_table
from .tree import DecisionTree

State = TypeVar("State")


@dataclass(frozen=True)
class Split:
    """A leaf's best split as its scorer sees it."""

    score: float
    feature: int


class Scorer(Protocol[State]):
    """What a top-down learner has to say about its leaves.

    A scorer may also define ``refresh(frontier)``: the loop calls it once per step, before the
    stop rule, to draw more samples and re-score or relabel the current leaves (Algorithm 2 of
    Moakhar et al. 2026 does). The stop rule itself only decides; it changes nothing.
    """

    def root(self) -> State:
        """State of the single-leaf tree."""

    def best_split(self, state: State) -> Split | None:
        """Best split of a leaf, or None when the leaf is never to be split."""

    def children(self, state: State, feature: int) -> tuple[State, State]:
        """States of the x_feature = 0 and x_feature = 1 children."""

    def label(self, state: State) -> float:
        """The completion label (or Pr[1]) of a leaf."""


@dataclass
class Frontier(Generic[State]):
    """The current leaves, as the stop rule and the leaf selector see them."""

    tree: DecisionTree
    nodes: list[int] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)
    splits: list[Split | None] = field(default_factory=list)

    @property
    def scores(self) -> np.ndarray:
        """Score of each leaf's best split (-inf where the leaf cannot be split)."""
        return np.array([-np.inf if s is None else s.score for s in self.splits])


Selector = Callable[[Frontier], int | None]


# --- leaf-selection rules: which leaf of the frontier the loop splits next -------------------

def select_best(frontier: Frontier) -> int | None:
    """The leaf with the highest score (the earliest-created one among ties); None if none splits."""
    scores = frontier.scores
    if scores.size == 0 or not np.isfinite(scores).any():
        return None
    return int(np.argmax(scores))


def select_by_path(frontier: Frontier) -> int | None:
    """Leaf of highest score; ties go to the leaf with the smallest restriction (lexicographic).

    Unlike creation order, the restriction is a property of the leaf itself, so a learner that
    grows only some of the leaves (LocalLearner, BGLT 2020) breaks ties exactly as the full tree
    does. Leaf states must carry a ``key`` (:func:`dtcore.tree.restriction_key` of the leaf).
    """
    scores = frontier.scores
    if scores.size == 0 or not np.isfinite(scores).any():
        return None
    top = np.flatnonzero(scores == scores.max())
    if top.size == 1:
        return int(top[0])
    return int(min(top, key=lambda k: frontier.states[k].key))


def select_quarter_adversarial(frontier: Frontier) -> int | None:
    """Theorem 5.1's robust rule, played adversarially (Moakhar et al. 2026, Sec. 5.1).

    Eligible leaves are those whose score is at least 1/4 of the best score; among them the one
    with the *smallest* score is split (ties: the earliest leaf). Splitting a low-score leaf
    lowers cost_f(T) by the least (Lemma 4.3), which is the worst case for the size bound.
    Returns None when no leaf can be split.
    """
    scores = frontier.scores
    if scores.size == 0 or not np.isfinite(scores).any():
        return None
    best = float(scores.max())
    eligible = np.isfinite(scores) & (scores >= 0.25 * best)
    masked = np.where(eligible, scores, np.inf)
    return int(np.argmin(masked))


@dataclass
class GrowthResult:
    """A grown tree and one trace row per split (plus a final row with ``feature = -1``)."""

    tree: DecisionTree
    trace: pd.DataFrame


def grow(
    scorer: Scorer,
    stop: Callable[[Frontier], bool],
    n: int,
    max_leaves: int | None = None,
    select: Selector = select_best,
    observe: Callable[[Frontier], dict[str, float]] | None = None,
) -> GrowthResult:
    """Grow a tree best-first: score every leaf, split the selected one, until ``stop``.

    Each step: ``observe`` (extra trace columns), the scorer's optional ``refresh(frontier)``
    (sample top-ups and re-scoring), then ``stop(frontier)``, which only decides. The loop ends
    when ``stop`` is true, when the tree has ``max_leaves`` leaves, or when no leaf can be split.
    ``observe(frontier)`` adds columns to each trace row (taken before the split of that step, and
    once more at the end).
    """
    n = check_int("n", n, 1)
    if max_leaves is not None:
        max_leaves = check_int("max_leaves", max_leaves, 1)
    tree = DecisionTree(n)
    root = scorer.root()
    tree.set_value(0, scorer.label(root))
    frontier: Frontier = Frontier(tree, [0], [root], [scorer.best_split(root)])
    rows: list[dict[str, float]] = []
    refresh = getattr(scorer, "refresh", None)
    while True:
        row: dict[str, float] = {"step": len(rows), "leaves": len(frontier.nodes)}
        if observe is not None:
            row.update(observe(frontier))
        if refresh is not None:
            refresh(frontier)
        done = stop(frontier) or (max_leaves is not None and len(frontier.nodes) >= max_leaves)
        pos = None if done else select(frontier)
        if pos is None:
            rows.append({**row, "feature": -1, "score": np.nan, "depth": np.nan})
            break
        node, state, split = frontier.nodes[pos], frontier.states[pos], frontier.splits[pos]
        rows.append({**row, "feature": split.feature, "score": split.score,
                     "depth": tree.node_depth[node], "node": node})
        c0, c1 = tree.split(node, split.feature)
        s0, s1 = scorer.children(state, split.feature)
        tree.set_value(c0, scorer.label(s0))
        tree.set_value(c1, scorer.label(s1))
        for lst in (frontier.nodes, frontier.states, frontier.splits):
            del lst[pos]
        frontier.nodes += [c0, c1]
        frontier.states += [s0, s1]
        frontier.splits += [scorer.best_split(s0), scorer.best_split(s1)]
    return GrowthResult(tree, pd.DataFrame(rows))


# --- BuildTopDownDT (Blanc–Lange–Tan 2020; Moakhar et al. 2026, Algorithm 1) --------------

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


class InfluenceScorer:
    """Exact influence scores from a truth table: score(l) = Pr[x reaches l] * max_i Inf_i(f_l).

    Ties between variables go to the lowest index. ``kind`` picks flip (BLT 2020) or
    re-randomisation (Moakhar et al. 2026) influence.
    """

    def __init__(self, table: np.ndarray, dist: ProductDistribution | None = None,
                 kind: InfluenceKind = "flip") -> None:
        self.measure = ExactMeasure(table, dist, kind)
        self.total_cost = 0.0  # cost_f and error of the current frontier, kept up to date
        self.total_error = 0.0

    def _leaf(self, restriction: np.ndarray) -> ExactLeaf:
        p, one, inf = self.measure.region(restriction)
        return ExactLeaf(restriction, p, one, inf, min(one, p - one), float(inf.sum()))

    def root(self) -> ExactLeaf:
        leaf = self._leaf(np.full(self.measure.n, -1, dtype=np.int8))
        self.total_cost, self.total_error = leaf.cost, leaf.error
        return leaf

    def best_split(self, state: ExactLeaf) -> Split | None:
        i = int(np.argmax(state.weighted_influence))
        score = float(state.weighted_influence[i])
        return Split(score, i) if score > 0 else None

    def children(self, state: ExactLeaf, feature: int) -> tuple[ExactLeaf, ExactLeaf]:
        r0, r1 = state.restriction.copy(), state.restriction.copy()
        r0[feature], r1[feature] = 0, 1
        c0, c1 = self._leaf(r0), self._leaf(r1)
        self.total_cost += c0.cost + c1.cost - state.cost
        self.total_error += c0.error + c1.error - state.error
        return c0, c1

    def label(self, state: ExactLeaf) -> float:
        return 1.0 if state.mass_one >= state.p_reach - state.mass_one else 0.0


def build_top_down_dt(
    table: np.ndarray,
    eps: float,
    dist: ProductDistribution | None = None,
    kind: InfluenceKind = "flip",
    max_leaves: int | None = None,
    select: Selector = select_best,
) -> GrowthResult:
    """BuildTopDownDT (Blanc–Lange–Tan 2020, Sec. 3), computed exactly from a truth table.

    Splits the leaf of highest score Pr[x reaches l] * max_i Inf_i(f_l) on its most influential
    variable until the f-completion is an eps-approximation of f. Leaves are labelled by the
    completion. The trace records, before every split, the number of leaves, cost_f and the
    completion error. ``dist``/``kind`` give Algorithm 1 of Moakhar et al. 2026.
    """
    table = check_table(table)
    eps = check_real("eps", eps, 0.0, 0.5)
    scorer = InfluenceScorer(table, dist, kind)
    return grow(
        scorer,
        stop=lambda fr: scorer.total_error <= eps,
        n=scorer.measure.n,
        max_leaves=max_leaves,
        select=select,
        observe=lambda fr: {"cost": scorer.total_cost, "error": scorer.total_error},
    )
