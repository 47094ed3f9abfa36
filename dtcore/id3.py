"""ID3 as in Brutzkus–Daniely–Malach (COLT 2020), Algorithm 1, and exact errors of its trees.

ID3(S, A): if every example of S has the same label, return a leaf with that label; otherwise
split on j = argmax_{i in A} Gain(S, i) and recurse on S_{x_j=1}, S_{x_j=0} with A \\ {j}. It grows
depth-first until every leaf is pure — no size budget, no score threshold — so, as DESIGN.md says,
it stands apart from the best-first ``grow`` loop.

Gain(S, i) = C(P_S[y=1]) - P_S[x_i=1] C(P_S[y=1|x_i=1]) - P_S[x_i=0] C(P_S[y=1|x_i=0]) for an
impurity C from :mod:`dtcore.impurity`. All counts at a node come from two NumPy reductions over
the node's rows, for every feature at once; the only Python loop is over nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .impurity import get_impurity
from .tree import LEAF, DecisionTree
from .validate import check_binary_matrix, check_labels

Impurity = str | Callable[[np.ndarray], np.ndarray]


def _impurity(impurity: Impurity) -> Callable[[np.ndarray], np.ndarray]:
    if callable(impurity):
        return impurity
    if not isinstance(impurity, str):
        raise ValueError(f"impurity must be a name or a callable, got {type(impurity).__name__}")
    return get_impurity(impurity)


def _counts(Xs: np.ndarray, ys: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray]:
    """N, #(y=1), #(x_i=1) and #(x_i=1, y=1) for every column, vectorised over rows."""
    n1 = Xs.sum(axis=0, dtype=np.int64)
    pos = ys == 1
    n11 = Xs[pos].sum(axis=0, dtype=np.int64)
    return Xs.shape[0], int(np.count_nonzero(pos)), n1, n11


def _gain_from_counts(N: int, ny: int, n1: np.ndarray, n11: np.ndarray,
                      C: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    n0 = N - n1
    n01 = ny - n11
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = np.where(n1 > 0, n11 / np.maximum(n1, 1), 0.0)
        r0 = np.where(n0 > 0, n01 / np.maximum(n0, 1), 0.0)
    q = n1 / N
    return C(np.float64(ny / N)) - (q * C(r1) + (1.0 - q) * C(r0))


def gains(X: np.ndarray, y: np.ndarray, impurity: Impurity = "gini") -> np.ndarray:
    """Gain(S, i) for every column i of X (BDM 2020, Sec. 1.1); S = (X, y) must be non-empty."""
    X = check_binary_matrix("X", X)
    y = check_labels("y", y, X.shape[0])
    if X.shape[0] == 0:
        raise ValueError("X must have at least one row to define Gain(S, i), got 0 rows")
    return _gain_from_counts(*_counts(X, y), _impurity(impurity))


@dataclass
class ID3Node:
    """One split of an ID3 run: the node, its path w (−1 free), |S_w|, the gains, I(S_w, ·), choice."""

    node: int
    restriction: np.ndarray
    size: int
    positives: int
    gains: np.ndarray          # Gain(S_w, i); NaN for features no longer in A
    covariance: np.ndarray     # I(S_w, i) for every feature
    feature: int


@dataclass
class ID3Result:
    """The tree ID3 returned and, when traced, one :class:`ID3Node` per split in creation order."""

    tree: DecisionTree
    trace: list[ID3Node] = field(default_factory=list)
    empty_leaves: int = 0
    exhausted_leaves: int = 0


def _majority(ny: int, N: int) -> float:
    return 1.0 if 2 * ny >= N else 0.0


def id3(X: np.ndarray, y: np.ndarray, impurity: Impurity = "gini",
        features: Sequence[int] | None = None, trace: bool = False) -> ID3Result:
    """ID3(S, A) of Brutzkus–Daniely–Malach (COLT 2020), Algorithm 1, on S = (X, y).

    ``features`` is A (default: every column, the paper's initial call ID3(S, [n])). Each split
    removes its feature from A for the subtree, so no feature is queried twice on a path.

    * **Pure node**: all labels equal -> a leaf with that label (the paper's base case).
    * **Split**: j = argmax_{i in A} Gain(S, i); ties go to the smallest index (``np.argmax``).
    * **Empty branch** (the paper leaves it undefined): the chosen x_j can be constant on S (its
      gain is then 0, so this happens only when no feature in A has positive gain); the child
      receiving no examples becomes a leaf labelled with the parent's majority label.
    * **Exhausted features** (A empty but labels mixed, possible only when S holds two equal x
      with different labels): a leaf with the majority label of S.
    Majority ties go to label 1. When y is a function of the features, the returned tree
    therefore labels every training example correctly.

    With ``trace=True`` the result lists, for every split, the node's restriction w, |S_w|, the
    gains and the empirical covariances I(S_w, i) (for Lemmas 5 and 6).
    """
    X = check_binary_matrix("X", X)
    y = check_labels("y", y, X.shape[0])
    m, n = X.shape
    if m == 0:
        raise ValueError("X must have at least one row (ID3 needs a non-empty sample), got 0 rows")
    C = _impurity(impurity)
    available = np.zeros(n, dtype=bool)
    if features is None:
        available[:] = True
    else:
        A = np.asarray(features, dtype=np.int64).reshape(-1)
        if A.size and (A.min() < 0 or A.max() >= n or np.unique(A).size != A.size):
            raise ValueError(f"features must be distinct indices in [0, {n - 1}], got {list(A)}")
        available[A] = True
    tree = DecisionTree(n)
    result = ID3Result(tree)
    # stack of (node, row indices, parent majority); the feature set A is the node's free coords
    stack: list[tuple[int, np.ndarray, float]] = [(0, np.arange(m), _majority(int(y.sum()), m))]
    while stack:  # one NumPy body per node
        node, rows, parent_majority = stack.pop()
        if rows.size == 0:
            tree.set_value(node, parent_majority)
            result.empty_leaves += 1
            continue
        Xs, ys = X[rows], y[rows]
        N, ny, n1, n11 = _counts(Xs, ys)
        if ny == 0 or ny == N:
            tree.set_value(node, float(ny == N))
            continue
        A = available & (tree.restriction(node) < 0)
        if not A.any():
            tree.set_value(node, _majority(ny, N))
            result.exhausted_leaves += 1
            continue
        g = np.where(A, _gain_from_counts(N, ny, n1, n11, C), np.nan)
        j = int(np.nanargmax(g))
        if trace:
            result.trace.append(ID3Node(node, tree.restriction(node), N, ny, g,
                                        n11 / N - (ny / N) * (n1 / N), j))
        c0, c1 = tree.split(node, j)
        right = Xs[:, j] == 1
        maj = _majority(ny, N)
        tree.set_value(c0, maj)
        tree.set_value(c1, maj)
        stack.append((c0, rows[~right], maj))
        stack.append((c1, rows[right], maj))
    return result


def paths_reuse_no_feature(tree: DecisionTree) -> bool:
    """True when no root-to-leaf path of ``tree`` queries a feature twice (checked from scratch)."""
    ok = True
    stack = [(0, frozenset())]
    while stack:
        node, seen = stack.pop()
        f = tree.feature[node]
        if f == LEAF:
            continue
        if f >= 0 and f in seen:
            ok = False
        stack.append((tree.child0[node], seen | {f}))
        stack.append((tree.child1[node], seen | {f}))
    return ok
