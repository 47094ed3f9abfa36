"""The best-first growth loop shared by every top-down learner of the five papers.

Each learner is a *scorer* (how good is the best split of a leaf, and on which variable) plus a
*stop rule* (when is the tree done). :func:`grow` keeps the frontier of leaves, splits the
selected one, and records a trace of every step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import pandas as pd

from .tree import DecisionTree
from .validate import check_int

State = TypeVar("State")


@dataclass(frozen=True)
class Split:
    """A leaf's best split as its scorer sees it."""

    score: float
    feature: int

    @classmethod
    def best(cls, gains: np.ndarray, weight: float) -> "Split | None":
        """The split on the feature of largest gain (the first on a tie), scored ``weight`` times that
        gain; None when no feature has a finite gain (every split is invalid at this leaf)."""
        i = int(np.argmax(gains))
        if not np.isfinite(gains[i]):
            return None
        return cls(float(weight * gains[i]), i)


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

    # the scores in the first len(splits) entries of a buffer with room to grow (a split moves the
    # tail down one place instead of copying it); None: to be read from ``splits``
    _buffer: np.ndarray | None = field(default=None, repr=False, compare=False)

    def rescored(self) -> None:
        """Say that ``splits`` changed in place (a scorer's refresh re-scores leaves): the scores are
        read again from them. :func:`grow` calls it after every refresh."""
        self._buffer = None

    def _score_view(self) -> np.ndarray:
        """The scores without a copy (what the selectors of this module read, never write)."""
        if self._buffer is None:
            buffer = np.empty(max(2 * len(self.splits), 16))
            buffer[:len(self.splits)] = [-np.inf if s is None else s.score for s in self.splits]
            self._buffer = buffer
        return self._buffer[:len(self.splits)]

    @property
    def scores(self) -> np.ndarray:
        """Score of each leaf's best split (-inf where the leaf cannot be split)."""
        return self._score_view().copy()

    def replace(self, pos: int, nodes: list[int], states: list, splits: list[Split | None]) -> None:
        """Remove the leaf at ``pos`` and append its children (the loop's split step)."""
        del self.nodes[pos], self.states[pos], self.splits[pos]
        self.nodes += nodes
        self.states += states
        self.splits += splits
        buffer = self._buffer
        if buffer is not None:
            end = len(self.splits)
            if end > buffer.size:
                buffer = self._buffer = np.concatenate((buffer, np.empty(buffer.size)))
            top = end - len(splits)
            buffer[pos:top] = buffer[pos + 1:top + 1]
            buffer[top:end] = [-np.inf if s is None else s.score for s in splits]


Selector = Callable[[Frontier], int | None]


# --- leaf-selection rules: which leaf of the frontier the loop splits next -------------------

def select_best(frontier: Frontier) -> int | None:
    """The leaf with the highest score (the earliest-created one among ties); None if none splits."""
    scores = frontier._score_view()
    if scores.size == 0:
        return None
    pos = int(np.argmax(scores))
    if math.isfinite(scores[pos]):  # the usual case: one pass, no mask
        return pos
    return pos if np.isfinite(scores).any() else None


def select_by_path(frontier: Frontier) -> int | None:
    """Leaf of highest score; ties go to the leaf with the smallest restriction (lexicographic).

    Unlike creation order, the restriction is a property of the leaf itself, so a learner that
    grows only some of the leaves (LocalLearner, BGLT 2020) breaks ties exactly as the full tree
    does. Leaf states must carry a ``key`` (:func:`dtcore.tree.restriction_key` of the leaf).
    """
    scores = frontier._score_view()
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
    scores = frontier._score_view()
    if scores.size == 0 or not np.isfinite(scores).any():
        return None
    best = float(scores.max())
    eligible = np.isfinite(scores) & (scores >= 0.25 * best)
    masked = np.where(eligible, scores, np.inf)
    return int(np.argmin(masked))


@dataclass(frozen=True)
class GrowthResult:
    """A grown tree and one trace row per split (plus a final row with ``feature = -1``)."""

    tree: DecisionTree
    trace: pd.DataFrame


def grow(
    scorer: Scorer,
    *,
    stop: Callable[[Frontier], bool],
    n: int,
    size: int | None = None,
    select: Selector = select_best,
    observe: Callable[[Frontier], dict[str, float]] | None = None,
) -> GrowthResult:
    """Grow a tree best-first: score every leaf, split the selected one, until ``stop``.

    Each step: ``observe`` (extra trace columns), the scorer's optional ``refresh(frontier)``
    (sample top-ups and re-scoring), then ``stop(frontier)``, which only decides. The loop ends
    when ``stop`` is true, when the tree has ``size`` leaves, or when no leaf can be split.
    ``observe(frontier)`` adds columns to each trace row (taken before the split of that step, and
    once more at the end). Every top-down learner of the papers is this
    loop with its own scorer and stop rule (ARCHITECTURE.md).

    Parameters
    ----------
    scorer : Scorer
        Gives the root state, each leaf's best split, the children's states and leaf labels.
    stop : callable
        ``stop(frontier) -> bool``, checked before every split.
    n : int
        Number of variables of the tree.
    size : int, optional
        Stop at this many leaves.
    select : callable, default=select_best
        Picks the frontier position to split (None: none can be split).
    observe : callable, optional
        Extra trace columns, ``observe(frontier) -> dict``.

    Returns
    -------
    GrowthResult
        The tree and one trace row per split, plus a final row with ``feature = -1``.

    Examples
    --------
    TopDown_G is the loop with the purity-gain scorer:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(2000, 6), dtype=np.uint8)
    >>> y = (X[:, 0] & X[:, 1]) | X[:, 2]
    >>> from dtcore.topdown import TopDownScorer
    >>> result = grow(TopDownScorer(X, y), stop=lambda frontier: False, n=6, size=3)
    >>> result.tree.size, result.trace["feature"].tolist()
    (3, [2, 0, -1])
    """
    n = check_int("n", n, 1)
    if size is not None:
        size = check_int("size", size, 1)
    tree = DecisionTree(n)
    root = scorer.root()
    tree.set_value(0, scorer.label(root))
    frontier: Frontier = Frontier(tree, [0], [root], [scorer.best_split(root)])
    rows: list[dict[str, float]] = []
    refresh = getattr(scorer, "refresh", None)
    nodes, states, splits = frontier.nodes, frontier.states, frontier.splits
    children, label, best_split, depth = scorer.children, scorer.label, scorer.best_split, tree.node_depth
    limit = math.inf if size is None else size
    while True:
        row: dict[str, float] = {"step": len(rows), "leaves": len(nodes)}
        if observe is not None:
            row.update(observe(frontier))
        if refresh is not None:
            refresh(frontier)
            frontier.rescored()
        pos = None if stop(frontier) or len(nodes) >= limit else select(frontier)
        if pos is None:
            row.update(feature=-1, score=np.nan, depth=np.nan)
            rows.append(row)
            break
        node, state, split = nodes[pos], states[pos], splits[pos]
        feature = split.feature
        row.update(feature=feature, score=split.score, depth=depth[node], node=node)
        rows.append(row)
        s0, s1 = children(state, feature)
        c0, c1 = tree.split(node, feature, values=(label(s0), label(s1)))
        frontier.replace(pos, [c0, c1], [s0, s1], [best_split(s0), best_split(s1)])
    return GrowthResult(tree, pd.DataFrame(rows))
