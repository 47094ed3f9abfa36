"""Chapter 4: Algorithm 2's guarantee at the edge of ε (dtbook.experiments.ch04.stop_edge): the edge, the worse
output (a stop at ε on the same draws), the row's power, its glue."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

from dtbook.experiments.ch04 import figure2, stop_edge
from dtbook.report import VerificationTable, lint_table
from dtcore import bounds
from dtcore.cube import ProductDistribution
from dtcore.functions import path_tree
from dtcore.product import practical_build_top_down_dt, tree_oracle
from dtcore.tree import DecisionTree, tree_disagreement


def chain(exit_sides=(0, 1, 0, 1, 0)) -> DecisionTree:
    return path_tree(6, len(exit_sides) + 1, rng=np.random.default_rng(0), exit_sides=exit_sides)


@pytest.fixture(scope="module")
def edge() -> pd.DataFrame:
    return stop_edge.edge_runs(edges=(2, 3), n=6, leaves=6, delta=0.1, runs=12, seed=3, n_jobs=1)


def test_chain_queries_walk_the_chain_and_refuse_a_balanced_tree():
    target = chain()
    queries = stop_edge.chain_queries(target)
    assert len(queries) == 5 and len({v for v, _ in queries}) == 5
    assert [side for _, side in queries[:4]] == [1, 0, 1, 0]  # the exit sides (0, 1, 0, 1) continue on the other
    balanced = DecisionTree(3)
    left, right = balanced.split(0, 0)
    balanced.split(left, 1)
    balanced.split(right, 2)
    with pytest.raises(ValueError, match="target must be a chain"):
        stop_edge.chain_queries(balanced)


def test_chain_prefix_errors_known_answer_uniform():
    # labels alternate along the chain; under the uniform measure the region after s queries has mass 2^-s and
    # carries the chain's remaining labels: errors 11/32, 5/32, 3/32, 1/32, 1/32, 0 for six leaves
    errors = stop_edge.chain_prefix_errors(chain(), ProductDistribution.uniform(6))
    np.testing.assert_allclose(errors, [11 / 32, 5 / 32, 3 / 32, 1 / 32, 1 / 32, 0.0], atol=1e-15)


def test_chain_prefix_errors_agree_with_the_leaf_masses_of_the_prefix_trees():
    # an independent computation: build each prefix tree and sum its leaves' minority masses (dtcore.audit)
    from dtcore.audit.oracles import leaf_label_masses
    target, dist = chain((1, 1, 0, 1, 0)), ProductDistribution(np.array([0.3, 0.7, 0.5, 0.2, 0.6, 0.4]))
    errors = stop_edge.chain_prefix_errors(target, dist)
    tree, node = DecisionTree(6), 0
    for s, (variable, side) in enumerate(stop_edge.chain_queries(target) + [(-1, -1)]):
        assert errors[s] == pytest.approx(leaf_label_masses(tree, target, dist).min(axis=1).sum(), abs=1e-14)
        if variable >= 0:
            c0, c1 = tree.split(node, variable)
            node = c0 if side == 0 else c1


def test_edge_eps_is_just_below_the_tree_error_and_validates():
    errors = stop_edge.chain_prefix_errors(chain(), ProductDistribution.uniform(6))
    for e in errors[:-1]:
        eps = stop_edge.edge_eps(float(e))
        assert eps < e and eps > e * (1 - 2e-6)
        assert 0.75 * eps < e - 0.2 * e  # the paper's rule needs the estimate a quarter of ε below the error
    with pytest.raises(ValueError, match="margin must be in"):
        stop_edge.edge_eps(0.1, margin=0.0)
    with pytest.raises(ValueError, match="edge_error must be in"):
        stop_edge.edge_eps(0.0)


def test_eps_stop_output_is_the_first_tree_of_the_trace_at_eps():
    target, dist = chain(), ProductDistribution.uniform(6)
    eps = stop_edge.edge_eps(5 / 32)
    res = practical_build_top_down_dt(tree_oracle(target), dist, eps=eps, delta=0.1, rng=np.random.default_rng(1))
    out = stop_edge.eps_stop_output(res, target, dist, eps)
    trace = res.trace
    mistakes = np.rint(trace["estimated_error"] * trace["ee_samples"])
    first = int(np.flatnonzero(mistakes <= eps * trace["ee_samples"])[0])
    assert out["leaves"] == first + 1
    # at eps = 1/2 the one-leaf tree (error 11/32) is accepted at once
    loose = 0.5
    res = practical_build_top_down_dt(tree_oracle(target), dist, eps=loose, delta=0.1, rng=np.random.default_rng(2))
    out = stop_edge.eps_stop_output(res, target, dist, loose)
    assert out["leaves"] == 1 and out["best_error"] == pytest.approx(11 / 32)


def test_eps_stop_output_equals_the_faulty_rule_run_on_the_same_draws(monkeypatch):
    # the worse output read from the trace is the tree the stop rule at eps really returns with the same seed
    from dtcore import product
    target, dist = chain(), ProductDistribution.uniform(6)
    eps = stop_edge.edge_eps(5 / 32)
    for seed in range(6):
        res = practical_build_top_down_dt(tree_oracle(target), dist, eps=eps, delta=0.1,
                                          rng=np.random.default_rng(seed))
        out = stop_edge.eps_stop_output(res, target, dist, eps)
        with monkeypatch.context() as m:
            m.setattr(product.PracticalScorer, "stop",
                      lambda self, frontier: self.mistakes <= 1.0 * self.eps * self.ee.code.size)
            faulty = practical_build_top_down_dt(tree_oracle(target), dist, eps=eps, delta=0.1,
                                                 rng=np.random.default_rng(seed))
        assert faulty.tree.size == out["leaves"]
        assert tree_disagreement(faulty.tree, target, dist) >= out["best_error"] - 1e-15


def test_eps_stop_rate_is_the_binomial_law_at_the_error_set():
    e, j, delta = 5 / 32, 2, 0.1
    eps = stop_edge.edge_eps(e)
    m = math.ceil(bounds.mgbh26_error_points_needed(j, eps, delta))
    rate = stop_edge.eps_stop_rate(e, j, eps, delta)
    assert rate == pytest.approx(binom.cdf(math.floor(eps * m), m, e))
    assert 0.45 < rate < 0.55  # eps a hair below the error: about half the estimates fall to eps
    assert binom.cdf(math.floor(0.75 * eps * m), m, e) < 1e-9  # the paper's constant: essentially never


def test_edge_runs_hold_and_the_worse_output_fails(edge):
    assert len(edge) == 24 and set(edge["edge"]) == {2, 3}
    assert (edge["eps"] < edge["edge_error"]).all()
    assert (edge["error"] <= edge["eps"]).all()  # the paper's rule: every run below eps
    assert (edge["followed_chain"] == 1).all() and (edge["terminated"] == 1).all()
    num = stop_edge.edge_numbers(edge, 0.1)
    assert num["allowed"] == int(binom.ppf(0.99, 24, 0.05))  # the paper's δ/2 for correctness
    assert num["fails"] == 0 and num["eps_stop_fails"] > num["allowed"]


def test_edge_power_known_answers():
    frame = pd.DataFrame({"eps_stop_rate": [0.5] * 10 + [0.2] * 5, "followed_chain": 1.0})
    direct = sum(binom.pmf(a, 10, 0.5) * binom.sf(3 - a, 5, 0.2) for a in range(11))
    assert stop_edge.edge_power(frame, 3) == pytest.approx(direct)
    one = pd.DataFrame({"eps_stop_rate": [0.3] * 20, "followed_chain": 1.0})
    assert stop_edge.edge_power(one, 4) == pytest.approx(binom.sf(4, 20, 0.3))
    # a run off the chain carries no rate: it counts as passing
    off = one.assign(followed_chain=[0.0] * 5 + [1.0] * 15)
    assert stop_edge.edge_power(off, 4) == pytest.approx(binom.sf(4, 15, 0.3))


def test_check_stop_edge_holds_has_power_and_can_fail(edge):
    table = VerificationTable()
    stop_edge.check_stop_edge(table, edge, 0.1)
    assert [r["kind"] for r in table.rows] == ["theorem"]
    assert table.failures().empty and not lint_table(table)
    assert table.frame()["fails_under_fails"].iloc[0]
    bad = VerificationTable()
    stop_edge.check_stop_edge(bad, edge.assign(error=edge["eps_stop_error"]), 0.1)
    assert list(bad.failures()["result"]) == ["Algorithm 2 (Sec. 5.3)"]


def test_stop_edge_glue(edge):
    values = stop_edge.stop_edge_glue(edge, 0.1)
    assert values["ch4_edge_runs"] == 24 and values["ch4_edge_sizes"] == "2 and 3"
    assert values["ch4_edge_errors"] == "0.1562, 0.0938"  # in the order of the tree sizes
    assert values["ch4_edge_leaves"] == 6 and values["ch4_edge_n"] == 6
    assert values["ch4_edge_power"] > 0.95 and 0.45 < values["ch4_edge_rate"] < 0.55
    assert values["ch4_edge_worst"] <= 1.0


def test_figure2_eps_stop_glue_known_answer():
    runs = pd.DataFrame({"eps": [0.2] * 20, "eps_stop_error": [0.1] * 18 + [0.25] * 2})
    values = figure2.eps_stop_glue(runs, 0.1)
    assert values["ch4_f2_eps_stop_fails"] == 2
    assert values["ch4_f2_eps_stop_power"] == pytest.approx(binom.sf(2, 20, 0.1))


def test_a_run_that_stopped_for_want_of_a_positive_score_is_left_out_of_the_count(edge):
    stalled = edge.copy()
    stalled.loc[stalled.index[:3], ["terminated", "error"]] = [0.0, 1.0]   # outside the guarantee, error 1
    num = stop_edge.edge_numbers(stalled, 0.1)
    assert num["runs"] == len(edge) - 3 and num["unterminated"] == 3 and num["fails"] == 0
