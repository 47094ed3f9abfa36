"""dtcore.functions.selector_of_lists: chapter 5's selector-of-decision-lists target."""

import numpy as np
import pytest

from dtcore.cube import all_points
from dtcore.functions import selector_of_lists


def _reference(x: np.ndarray, s: int, L: int) -> int:
    """The target read off its definition, one point at a time (independent of the tree)."""
    node = 0
    for _ in range(s):  # heap order: selectors 0..2^s - 2, children 2v+1, 2v+2
        node = 2 * node + 1 + int(x[node])
    leaf = node - (2**s - 1)
    first = 2**s - 1 + leaf * L
    for j in range(L):
        if x[first + j]:
            return int(j % 2 == 0)
    return int(L % 2 == 0)


@pytest.mark.parametrize("s, L", [(0, 1), (1, 2), (2, 3), (1, 4)])
def test_matches_definition_on_every_point(s, L):
    n = 2**s - 1 + 2**s * L
    tree = selector_of_lists(n, s, L)
    X = all_points(n)
    expected = np.array([_reference(x, s, L) for x in X])
    np.testing.assert_array_equal(tree.predict(X), expected)
    assert tree.depth == s + L
    assert tree.size == 2**s * (L + 1)


def test_extra_variables_are_ignored():
    tree = selector_of_lists(12, 1, 3)  # uses 7 of 12 variables
    X = all_points(12)
    base = X.copy()
    base[:, 7:] = 0
    np.testing.assert_array_equal(tree.predict(X), tree.predict(base))


@pytest.mark.parametrize("args, name", [((5, 2, 3), "n"), ((20, -1, 3), "selectors"), ((20, 1, 0), "list_length")])
def test_rejects_bad_arguments(args, name):
    with pytest.raises(ValueError, match=name):
        selector_of_lists(*args)
