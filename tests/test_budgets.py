"""Every run bounded, every bad call refused before it starts (issue 39): the work budgets of
``dtcore.validate`` (``MAX_TREE_NODES``, ``MAX_TREE_BYTES``, ``MAX_FIND_SUBPROBLEMS``) and the bad
inputs a new user met."""

import time

import numpy as np
import pytest

import dtcore.validate
from dtcore.find import find
from dtcore.multiclass import multiclass_find
from dtcore.estimators import ID3Classifier, OptimalTreeClassifier
from dtcore.functions import (address, balanced_tree, decoy_selector_parity_tree, gated_majority_tree,
                              is_monotone, path_tree, random_tree, random_tree_of_depth, selector_of_lists,
                              threshold)

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("call, budget", [
    (lambda: balanced_tree(40, 40, rng=RNG), "MAX_TREE_NODES"),
    (lambda: random_tree_of_depth(30, 30, rng=RNG), "MAX_TREE_NODES"),
    (lambda: random_tree(40, 2**30, rng=RNG), "MAX_TREE_NODES"),
    (lambda: gated_majority_tree(41), "MAX_TREE_NODES"),
    (lambda: path_tree(10**9, 3, rng=RNG), "MAX_TREE_BYTES"),
    (lambda: random_tree(10**7, 1000, rng=RNG), "MAX_TREE_BYTES"),
    (lambda: selector_of_lists(2 * 10**8, 20, 100), "MAX_TREE_NODES"),
    (lambda: decoy_selector_parity_tree(200, 20, 8), "MAX_TREE_NODES"),
    (lambda: OptimalTreeClassifier(max_depth=100).fit(RNG.normal(size=(200, 4)), np.arange(200) % 2),
     "MAX_FIND_SUBPROBLEMS"),
    (lambda: find(RNG.integers(0, 2, (1000, 64)), np.arange(1000) % 2, depth=12), "MAX_FIND_SUBPROBLEMS"),
    (lambda: multiclass_find(RNG.integers(0, 2, (1000, 64)), np.arange(1000) % 3, 3, depth=12),
     "MAX_FIND_SUBPROBLEMS"),
])
def test_work_beyond_a_budget_is_refused_at_once_saying_how_to_raise_it(call, budget):
    start = time.perf_counter()
    with pytest.raises(ValueError, match=f"exceeds the budget dtcore.validate.{budget}") as info:
        call()
    assert time.perf_counter() - start < 2.0
    assert f"dtcore.validate.{budget} = " in str(info.value) and "raise the budget" in str(info.value)


def test_a_raised_budget_is_read_at_call_time(monkeypatch):
    monkeypatch.setattr(dtcore.validate, "MAX_TREE_NODES", 100)
    with pytest.raises(ValueError, match="MAX_TREE_NODES = 100 "):
        gated_majority_tree(11)
    monkeypatch.setattr(dtcore.validate, "MAX_TREE_NODES", 2000)
    assert gated_majority_tree(11).node_count == 4 * 462 + 1  # 2 C(11, 6) majority leaves + one


def test_gated_majority_tree_node_count_is_the_budgeted_one():
    import math
    for k in (1, 3, 5, 9):
        assert gated_majority_tree(k).node_count == 4 * math.comb(k, k // 2 + 1) + 1


@pytest.mark.parametrize("kwargs, message", [
    ({"X": np.zeros((0, 3), np.uint8), "y": np.zeros(0, np.uint8)}, "X must have at least one row, got 0 rows"),
    ({"sample_weight": np.zeros(6)}, "sample_weight must have at least one positive entry, got all zeros"),
    ({"sample_weight": np.r_[1.0, -1.0, 1, 1, 1, 1]}, "sample_weight must be finite and non-negative, got -1.0 at row 1"),
    ({"sample_weight": np.r_[1.0, 1, np.nan, 1, 1, 1]}, "sample_weight must be finite and non-negative, got nan at row 2"),
    ({"sample_weight": np.ones(5)}, r"sample_weight must have shape \(6,\)"),
])
def test_find_refuses_empty_zero_weight_and_bad_weights(kwargs, message):
    args = {"X": np.eye(6, 3, dtype=np.uint8), "y": np.r_[0, 1, 0, 1, 0, 1].astype(np.uint8), **kwargs}
    with pytest.raises(ValueError, match=message):
        find(args.pop("X"), args.pop("y"), depth=2, **args)


@pytest.mark.parametrize("call, message", [
    (lambda: threshold(np.eye(3, dtype=np.uint8), [1, 1, 1], float("nan")), r"theta must be a real number \(not NaN\), got nan"),
    (lambda: threshold(np.eye(3, dtype=np.uint8), [1, np.nan, 1], 1.0), "weights must be finite"),
    (lambda: address(np.zeros((2, 6), np.uint8), 10**6), r"n_address must be an integer in \[1, 3\], got 1000000"),
    (lambda: is_monotone(np.zeros(3)), r"table must be a 1-D truth table of length 2\^n, got shape \(3,\)"),
    (lambda: is_monotone(np.zeros((2, 2))), "table must be a 1-D truth table"),
])
def test_bad_function_arguments_name_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_threshold_still_takes_infinite_theta():
    X = np.eye(3, dtype=np.uint8)
    assert threshold(X, [1, 1, 1], float("inf")).tolist() == [0, 0, 0]
    assert threshold(X, [1, 1, 1], -float("inf")).tolist() == [1, 1, 1]


@pytest.mark.parametrize("column", [np.full(40, np.nan), np.full(40, 3.0)])
def test_id3_classifier_makes_no_zero_gain_split(column):
    X = np.column_stack([column, column])
    y = np.arange(40) % 2
    clf = ID3Classifier().fit(X, y)
    assert clf.get_n_leaves() == 1 and clf.get_depth() == 0
    assert np.allclose(clf.predict_proba(X), 0.5)
