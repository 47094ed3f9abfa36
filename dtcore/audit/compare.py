"""Comparisons of trees grown by different implementations on the same data.

:func:`tree_from_sklearn` turns a fitted scikit-learn tree into a :class:`~dtcore.tree.DecisionTree`;
:func:`split_sequence`/:func:`splits_differing` compare split orders (TopDown_G against
scikit-learn's best-first CART, Blanc–Gupta–Lange–Tan 2020); :func:`agreement_up_to_ties` compares
two trees node by node up to exact ties in gain (ID3 against scikit-learn, Brutzkus–Daniely–Malach
2020).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..id3 import Impurity, gains
from ..tree import LEAF, DecisionTree
from ..validate import check_binary_matrix, check_int, check_labels


def tree_from_sklearn(clf: object, n: int | None = None) -> DecisionTree:
    """A fitted scikit-learn ``DecisionTreeClassifier`` on 0/1 features as a :class:`DecisionTree`.

    A node that tests ``x_f <= threshold`` (any threshold in [0, 1)) becomes a query of x_f with
    its left child as the x_f = 0 branch. Internal nodes are split in the order of their left
    child's node id: for scikit-learn's best-first builder (``max_leaf_nodes`` set) the k-th node
    expanded creates ids 2k + 1 and 2k + 2, so the returned tree's nodes are created in the order
    scikit-learn made its splits and :func:`split_sequence` reads that order back. A leaf is
    labelled 1 when its class-1 weight exceeds its class-0 weight, so the tree predicts what the
    classifier predicts (an evenly split leaf goes to class 0, like scikit-learn's argmax; BGLT
    2020's round(E[y | l]) would send it to 1). ``n`` defaults to the number of features seen.
    """
    tr = getattr(clf, "tree_", None)
    if tr is None:
        raise ValueError(f"clf must be a fitted scikit-learn decision tree, got {type(clf).__name__}")
    n = check_int("n", getattr(clf, "n_features_in_", 1) if n is None else n, 1)
    left, right = np.asarray(tr.children_left), np.asarray(tr.children_right)
    feature, threshold = np.asarray(tr.feature), np.asarray(tr.threshold)
    internal = np.flatnonzero(left >= 0)
    if internal.size and (feature[internal].max() >= n or not ((threshold[internal] >= 0)
                                                               & (threshold[internal] < 1)).all()):
        raise ValueError("clf must be fitted on n 0/1 features (thresholds in [0, 1)), got a feature "
                         f"index up to {int(feature[internal].max())} or a threshold outside [0, 1)")
    classes = list(getattr(clf, "classes_", [0, 1]))
    value = np.asarray(tr.value)[:, 0, :]
    one = value[:, classes.index(1)] if 1 in classes else np.zeros(len(left))
    zero = value[:, classes.index(0)] if 0 in classes else np.zeros(len(left))
    tree = DecisionTree(n)
    ours = {0: 0}  # scikit-learn node id -> our node id
    for v in internal[np.argsort(left[internal], kind="stable")]:
        c0, c1 = tree.split(ours[int(v)], int(feature[v]))
        ours[int(left[v])], ours[int(right[v])] = c0, c1
    for v, node in ours.items():
        if left[v] < 0:
            tree.set_value(node, 1.0 if one[v] > zero[v] else 0.0)
    return tree


def split_sequence(tree: DecisionTree) -> list[tuple[bytes, int]]:
    """(restriction key of the split node, feature) for every split, in the order it was made.

    :meth:`DecisionTree.split` numbers children consecutively, so ordering the internal nodes by
    their x = 0 child's id recovers the order of the splits (for a tree grown by
    :func:`dtcore.grow.grow` or built by :func:`tree_from_sklearn`).
    """
    internal = [v for v in range(tree.node_count) if tree.feature[v] >= 0]
    internal.sort(key=lambda v: tree.child0[v])
    return [(tree.restriction_key(v), int(tree.feature[v])) for v in internal]


def splits_differing(a: DecisionTree, b: DecisionTree) -> int:
    """How many steps of the split sequences of two trees differ (a missing step counts as one)."""
    sa, sb = split_sequence(a), split_sequence(b)
    return sum(x != y for x, y in zip(sa, sb)) + abs(len(sa) - len(sb))


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


@dataclass
class TreeAgreement:
    """How two trees grown on one sample compare, node by node (see :func:`agreement_up_to_ties`)."""

    matched: int        # node pairs with the same split (or both leaves with the same label)
    ties: int           # node pairs whose splits differ but have exactly equal Gain on the node's rows
    differences: int    # node pairs that differ without a tie: the trees really disagree

    @property
    def same(self) -> bool:
        """True when the trees make the same splits up to exact ties in Gain."""
        return self.differences == 0


def agreement_up_to_ties(tree_a: DecisionTree, tree_b: DecisionTree, X: np.ndarray, y: np.ndarray,
                         impurity: Impurity = "gini", atol: float = 1e-12) -> TreeAgreement:
    """Compare two trees grown on (X, y) by top-down splitting: same splits up to exact ties.

    Both trees are walked from the root on the sample's rows. Where they query the same feature
    the walk goes on in both children; where they query different features, the node counts as a
    **tie** when the two features have equal Gain(S_w, ·) on the node's rows up to float64 rounding
    (``atol``: a gain is a difference of impurities of order 1, so rounding leaves errors near
    1e-16, and scikit-learn's own float arithmetic cannot order gains closer than that) -- either
    choice is a valid greedy split and the subtrees
    below are not compared -- and as a **difference** otherwise. A leaf against a split counts as
    a tie when the split feature is constant on the node's rows (the split does not partition
    them), and two leaves match when they predict the same label (a tie when the node's labels
    are split evenly, so that either label is a majority). Used to compare ID3 with
    scikit-learn's unrestricted tree, which breaks ties between features at random.
    """
    X = check_binary_matrix("X", X)
    y = check_labels("y", y, X.shape[0])
    if tree_a.n != X.shape[1] or tree_b.n != X.shape[1]:
        raise ValueError(f"tree_a and tree_b must have n = {X.shape[1]} features, got {tree_a.n} and {tree_b.n}")
    matched = ties = differences = 0
    stack = [(0, 0, np.arange(X.shape[0]))]
    while stack:  # one NumPy body per node pair
        a, b, rows = stack.pop()
        fa, fb = tree_a.feature[a], tree_b.feature[b]
        if fa == LEAF and fb == LEAF:
            if rows.size == 0 or round(tree_a.value[a]) == round(tree_b.value[b]):
                matched += 1
            elif 2 * int(y[rows].sum()) == rows.size:   # a majority vote tied: either label is right
                ties += 1
            else:
                differences += 1
            continue
        if fa == fb:
            matched += 1
            right = X[rows, fa] == 1
            stack.append((tree_a.child0[a], tree_b.child0[b], rows[~right]))
            stack.append((tree_a.child1[a], tree_b.child1[b], rows[right]))
            continue
        if fa == LEAF or fb == LEAF:
            f = fb if fa == LEAF else fa
            column = X[rows, f]
            constant = rows.size == 0 or column.min() == column.max()
            ties += constant
            differences += not constant
            continue
        g = gains(X[rows], y[rows], impurity) if rows.size else np.zeros(X.shape[1])
        tie = abs(g[fa] - g[fb]) <= atol
        ties += bool(tie)
        differences += not tie
    return TreeAgreement(matched, ties, differences)
