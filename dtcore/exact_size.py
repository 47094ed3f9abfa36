"""Targets whose exact minimum decision-tree size is known (Blanc–Gupta–Lange–Tan 2020, chapter 2).

Theorem 1 of BGLT 2020 compares a learner with opt_s, the least error of a size-s tree. A claim
"f has size s" needs the size of the *smallest* tree computing f, not of the tree that generated
it: a random tree often computes a function with a much smaller tree.

* :func:`reduced_size`: the size of a tree after removing every redundant query (a node whose two
  subtrees compute the same function on its region), computed exactly from the truth table. It
  is an upper bound on the minimum size.
* :func:`monotone_decision_list`: a random monotone decision list with exactly ``size`` leaves.
  Every one of its ``size - 1`` variables is relevant, and a tree computing a function with k
  relevant variables has at least k internal nodes, hence at least k + 1 leaves: its minimum size
  is exactly ``size``. (A monotone read-once tree is always such a list: at a node querying x_i,
  f(x_i = 1) >= f(x_i = 0) on disjoint variables forces one side to be constant.)
"""

from __future__ import annotations

import numpy as np

from .tree import DecisionTree
from .validate import check_int, check_rng


def reduced_size(tree: DecisionTree) -> int:
    """Leaves left after collapsing every node whose x_i = 0 and x_i = 1 subtrees agree on its region.

    Exact on the truth table (n <= 24). A collapsed node is replaced by its x_i = 0 subtree, which
    then computes f on the whole region; bottom-up, this is the size of the reduced tree.
    """
    if tree.has_stochastic_nodes:
        raise ValueError("tree must be deterministic (no stochastic nodes), got a stochastic tree")
    table = np.asarray(tree.truth_table())
    index = np.arange(table.size, dtype=np.int64)

    def size(node: int) -> int:
        feature = tree.feature[node]
        if feature < 0:
            return 1
        s0, s1 = size(tree.child0[node]), size(tree.child1[node])
        r = tree.restriction(node)
        fixed = np.flatnonzero(r >= 0)
        mask = int(np.sum(np.left_shift(1, fixed, dtype=np.int64))) | (1 << feature)
        value = int(np.sum(np.left_shift(1, fixed[r[fixed] == 1], dtype=np.int64)))
        zero_side = index[(index & mask) == value]
        redundant = np.array_equal(table[zero_side], table[zero_side | (1 << feature)])
        return s0 if redundant else s0 + s1

    return size(0)


def monotone_decision_list(n: int, size: int, *, rng: np.random.Generator) -> DecisionTree:
    """A random monotone decision list on {0,1}^n with exactly ``size`` leaves and minimum size ``size``.

    ``size - 1`` distinct random variables are queried in a random order; at each node but the last
    one side is a leaf: a "0-exit" node answers 0 when x_i = 0, a "1-exit" node answers 1 when
    x_i = 1 (each with probability 1/2), and the list continues on the other side; the last node
    answers x_i. Raising any x_i can only turn a 0-exit into a continuation or a continuation into
    a 1-exit, so f is monotone (non-decreasing). Needs ``size - 1 <= n``.
    """
    n = check_int("n", n, 1)
    size = check_int("size", size, 1, n + 1)
    rng = check_rng(rng)
    tree = DecisionTree(n)
    if size == 1:
        tree.set_value(0, float(rng.integers(0, 2)))
        return tree
    variables = rng.permutation(n)[: size - 1]
    exits_one = rng.random(size - 2) < 0.5
    node = 0
    for k, var in enumerate(variables):
        c0, c1 = tree.split(node, int(var))
        tree.set_value(c0, 0.0)
        tree.set_value(c1, 1.0)
        if k == size - 2:
            break
        node = c0 if exits_one[k] else c1  # the continuation is the side that does not exit
    return tree
