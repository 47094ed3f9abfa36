"""Exact-size targets for chapter 2: tree reduction and monotone decision lists."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcore.exact_size import monotone_decision_list, reduced_size
from dtcore.functions import is_monotone, random_monotone_tree
from dtcore.tree import DecisionTree


def test_reduced_size_collapses_redundant_queries():
    tree = DecisionTree(3)
    c0, c1 = tree.split(0, 0)
    a0, a1 = tree.split(c0, 1)
    b0, b1 = tree.split(c1, 1)
    for leaf, v in ((a0, 0), (a1, 1), (b0, 0), (b1, 1)):
        tree.set_value(leaf, v)  # f = x_1: the query of x_0 is redundant
    assert tree.size == 4 and reduced_size(tree) == 2
    d0, d1 = tree.split(b1, 2)
    tree.set_value(d0, 1.0)
    tree.set_value(d1, 1.0)  # two equal leaves: one more redundant query
    assert reduced_size(tree) == 2


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 10), size=st.integers(1, 11))
def test_monotone_decision_list_has_exact_size(seed, n, size):
    size = min(size, n + 1)
    tree = monotone_decision_list(n, size, rng=np.random.default_rng(seed))
    assert tree.size == size == reduced_size(tree)
    table = tree.truth_table()
    assert is_monotone(table)
    # every queried variable is relevant: flipping it changes f somewhere
    relevant = sum(bool(np.any(table != table[np.arange(table.size) ^ (1 << i)])) for i in range(n))
    assert relevant == size - 1


def test_random_monotone_trees_are_much_smaller_than_their_nominal_size():
    # the reason for monotone_decision_list: issue 11 item 6
    rng = np.random.default_rng(0)
    sizes = [reduced_size(random_monotone_tree(12, 16, rng=rng)) for _ in range(10)]
    assert max(sizes) < 16


def test_bad_arguments():
    with pytest.raises(ValueError, match="size"):
        monotone_decision_list(4, 6, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="n"):
        monotone_decision_list(0, 1, rng=np.random.default_rng(0))
