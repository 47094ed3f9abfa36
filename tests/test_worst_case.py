"""Worst-case searches over every function on few variables (dtcore.audit.worst_case)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dtcore import exhaustive as ex
from dtcore.audit import worst_case as wc
from dtcore.cube import ProductDistribution


def test_uniform_suprema_on_three_variables_are_bounds_with_osss_tight_at_a_dictator():
    tr = wc.uniform_suprema(3)
    osss = tr.best[("OSSS inequality", "size form (BLT20)")]
    assert osss.verdict == "tight"
    assert ex.optimal_trees(ex.all_tables(3)[[osss.function]]).root_size[0] == 2  # a dictator (or its negation)
    for sup in tr.best.values():
        assert sup.ratio <= 1 + wc.TIGHT_TOLERANCE, sup.row()
    assert tr.deviations["BLT20 Lemma 5.1(2)"] == 0.0


def test_the_least_influential_variable_is_a_worse_output_that_breaks_osss_and_lemmas_52_54():
    tr = wc.uniform_suprema(3, variable="least")
    # an irrelevant variable has influence 0 and its split scores 0: every ratio bound / measured is infinite
    for key in (("OSSS inequality", "size form (BLT20)"), ("Lemma 5.2", "as printed"), ("Lemma 5.4", "as printed")):
        assert tr.best[key].ratio == np.inf, key
    # the rules that pick no variable are unchanged
    assert tr.best[("Lemma 5.1(1)", "as printed")].ratio == wc.uniform_suprema(3).best[("Lemma 5.1(1)", "as printed")].ratio
    phases = wc.blt20_theorem3_phases(3, variable="least")
    assert phases["phase 1 leaves (one split)"].ratio > 1 and phases["phase 2 harmonic"].ratio > 1
    with pytest.raises(ValueError, match="variable"):
        wc.uniform_suprema(3, variable="second")


def test_printed_c1_and_lemma_44_are_refuted_exactly_and_the_corrected_forms_hold():
    tr = wc.product_suprema([ProductDistribution([0.5, 0.5, 0.5]), ProductDistribution([0.1, 0.3, 0.5])], n=3)
    found = {(s.result, s.form) for s in wc.first_violations(tr)}
    assert found == {("Lemma C.1", "as printed"), ("Lemma 4.4", "as printed")}
    for key in found:
        assert tr.best[key].exact == Fraction(2) and tr.best[key].verdict == "violated"
    assert tr.best[("Lemma C.1", "corrected (factor 2)")].verdict == "tight"
    assert tr.best[("Lemma 4.4", "D-form (provable)")].ratio <= 1 + wc.TIGHT_TOLERANCE


def test_exact_minimum_average_depth_matches_the_float_dynamic_programme():
    p = [Fraction(1, 10), Fraction(3, 10), Fraction(1, 2)]
    tables = ex.all_tables(3)[::17]
    floats = ex.minimum_average_depth(tables, ProductDistribution([float(v) for v in p]))
    exact = [float(wc.exact_minimum_average_depth(t, p)) for t in tables]
    np.testing.assert_allclose(floats, exact, atol=1e-12)


def test_parity_lemma_9_has_slack_at_least_one_minus_alpha_over_alpha():
    tr = wc.parity_suprema([(0.1, 0.15)], n=3)
    sup = tr.best[("Lemma 9", "alpha = 0.1, c = 0.15")]
    assert sup.ratio == pytest.approx(0.1 / 0.9, rel=1e-6)


def test_local_search_never_reports_less_than_its_lifted_start():
    start = ex.all_tables(4)[[0x0FF0]]  # x2 xor x3: every gain is 0, ties go to the irrelevant low variables
    lifted = wc.lift(start, 5)
    res = wc.local_search(5, "TopDown_G gini", lifted, rng=np.random.default_rng(0), budget=200, restarts=0)
    assert res.ratio >= 8.0 and res.evaluations <= 200  # on x3, x4 of five: 32 leaves for 4
    with pytest.raises(ValueError, match="heuristic must be"):
        wc.heuristic_sizes(start, "CART")


def test_lemma_e1_least_delta_witness_is_refuted_exactly_at_the_uniform_measure():
    table = ex.all_tables(4)[0x03DB]
    opt = ex.optimal_trees(table[None, :])
    assert opt.root_size[0] == 8 and opt.root_depth[0] == 3  # a complete minimum-size tree exists
    sup = wc.Supremum("MGBH26", "Lemma E.1", "least Delta", "", 1.1, 0x03DB, 4)
    assert wc.exact_lemma_ratio(sup) == Fraction(12, 11)  # log2 s = 3 against Delta_opt = 11/4


def test_stochastic_suprema_are_tight_where_the_facts_have_equality_cases():
    tr = wc.stochastic_suprema(n=1, depth=2, coins=(0.25, 0.5), copies=(1, 4))
    for key in [("Fact 1.1", "every deterministic h"), ("Fact 1.2", "every h on the grid"),
                ("Lemma 2.1", "the proof's expectation")]:
        assert tr.best[key].verdict == "tight", tr.best[key].row()
    assert "c = 1" in tr.best[("Lemma 2.1", "the proof's expectation")].witness


def test_smoothed_suprema_on_two_variables_stay_far_below_the_bound():
    tr = wc.smoothed_suprema([(0.1, 0.15)], rng=np.random.default_rng(1), draws=64, max_k=2)
    sup = tr.best[("Lemma 11", "alpha = 0.1, c = 0.15")]
    assert 0 < sup.ratio < 1e-3 and sup.cases > 0
    with pytest.raises(ValueError, match="deltas"):
        wc.smoothed_suprema([(0.1, 0.15)], rng=np.random.default_rng(1), deltas=(1.5,))
