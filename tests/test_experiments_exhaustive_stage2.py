"""Page 7's second exact computation of the violations, the bounds computed twice, E.1 on its class and the
local search's guard at n = 4 (dtbook.experiments.exhaustive)."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from dtcore import exhaustive as ex
from dtcore.audit import worst_case as wc
from dtbook.experiments.exhaustive import appendix_e, bounds_twice, exact_recheck, heuristics
from dtbook.report import VerificationTable


def test_fresh_ratio_by_hand() -> None:
    # the dictator x0 under p = 1/2: Inf = 1/2, Var = 1, Delta = 1, so C.1 as printed gives 1 / (1/2) = 2
    dictator = sum(1 << k for k in range(16) if k & 1)
    assert exact_recheck.fresh_ratio("Lemma C.1", "as printed", dictator, 4, "uniform", None) == 2
    assert exact_recheck.fresh_ratio("Lemma C.1", "corrected (factor 2)", dictator, 4, "uniform", None) == 1
    # parity of x0, x1: complete tree of size 4, Delta = D = 2
    parity = sum(1 << k for k in range(16) if (k & 1) ^ ((k >> 1) & 1))
    assert exact_recheck.fresh_ratio("Lemma E.1", "least Delta", parity, 4, "(0.1, 0.3, 0.7, 0.9)", None) == 1


def test_fresh_ratio_agrees_with_worst_case_exact_lemma_ratio() -> None:
    tables = ex.all_tables(4)
    rng = np.random.default_rng(3)
    for f in rng.choice(65536, 12, replace=False):
        for result, form, measure, step in (("Lemma C.1", "as printed", (0.05, 0.25, 0.5, 0.75), None),
                                            ("Lemma 4.4", "as printed", (0.1, 0.3, 0.7, 0.9), 1),
                                            ("Lemma 4.4", "Delta-form (factor 2 fixed)", None, 3)):
            if not 0 < tables[f].sum() < 16:
                continue
            sup = wc.Supremum("MGBH26", result, form, "", 2.0, int(f), 4, measure, step)
            text = "uniform" if measure is None else "(" + ", ".join(f"{p:g}" for p in measure) + ")"
            assert exact_recheck.fresh_ratio(result, form, int(f), 4, text, step) == wc.exact_lemma_ratio(sup)


def test_recheck_row_fails_on_a_wrong_exact_ratio() -> None:
    dictator = sum(1 << k for k in range(16) if k & 1)
    frame = pd.DataFrame([{"result": "Lemma C.1", "form": "as printed", "function": dictator, "n": 4,
                           "measure": "uniform", "leaves": np.nan, "exact_ratio": "2"}])
    table = VerificationTable()
    exact_recheck.check_recheck(table, frame)
    exact_recheck.check_recheck(table, frame.assign(exact_ratio="9/4"))
    assert [r["holds"] for r in table.rows] == [True, False]


def test_bounds_twice_agree_and_catch_a_changed_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    twice = bounds_twice.bounds_twice()
    assert twice["relative gap"].max() <= 1e-12
    from dtcore import bounds

    monkeypatch.setattr(bounds, "mgbh26_lemma_c1_max_influence_lower",
                        lambda v, a, paper_form=False: v / a if paper_form else v / (4.0 * a))
    table = VerificationTable()
    bounds_twice.check_bounds(table, bounds_twice.bounds_twice())
    failing = [r["result"] for r in table.rows if not r["holds"]]
    assert failing == ["[MGBH26] Lemma C.1, corrected, its bound computed twice"]  # one identity row per statement


def test_e1_holds_with_equality_on_its_class() -> None:
    tables = ex.all_tables(4)
    optimum = ex.optimal_trees(tables)
    members = appendix_e.e1_class(tables, optimum)
    assert members.sum() > 0 and not members[0]  # the constant is not in the class
    on_class = appendix_e.e1_on_class(tables, optimum)
    assert (on_class["max |D_opt − log2 s|"] == 0).all() and (on_class["max |Δ_opt − log2 s|"] <= 1e-12).all()


def test_search_guard_at_n4_and_its_rows() -> None:
    summary = pd.DataFrame({"heuristic": ["TopDown_G gini"], "worst ratio": [4.0]})
    n4 = heuristics.search_at_n4(summary, heuristics=["TopDown_G gini"], rng=np.random.default_rng(0))
    assert n4["found ratio"].iloc[0] == 4.0
    table = VerificationTable()
    heuristics.check_search(table, n4)
    heuristics.check_search(table, n4.assign(**{"found ratio": [3.0]}))
    assert [r["holds"] for r in table.rows] == [True, False]
    reference = heuristics.lifted_reference({"TopDown_G gini": 0x0FF0}, [5])
    search = pd.DataFrame([{"n": 5, "heuristic": "TopDown_G gini", "worst ratio found": 8.0, "table": "t"}])
    table = VerificationTable()
    heuristics.check_search(table, n4, search, reference)
    assert [r["kind"] for r in table.rows] == ["identity", "observation"]  # no statement of the papers bounds it
    with pytest.raises(ValueError, match="search_budget"):  # a search weaker than the lifted extremal stops the page
        heuristics.check_search(VerificationTable(), n4, search.assign(**{"worst ratio found": [1.0]}), reference)
