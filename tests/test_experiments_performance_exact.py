"""The exact-solver benchmarks (performance appendix) and chapter 6's exact-beside-cuts table.

Times are never asserted: only the cases, the rows' shape, their targets and the output comparisons.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from dtbook.experiments.performance import common, exact, summary
from dtbook.experiments.performance.exact import (boolean_peer_benchmark, boolean_peer_cases, contree_benchmark,
                                                  contree_cases, real_data)
from dtbook.experiments.ch06.exact import exact_beside_cuts
from dtbook.report import VerificationTable


def test_contree_cases_keep_the_issue_targets_at_both_scales():
    quick, full = contree_cases("quick"), contree_cases("full")
    assert [(c["dataset"], c["depth"]) for c in quick] == [("breast_cancer", 2), ("wine", 2), ("wine", 3)]
    assert {(c["dataset"], c["rows"], c["depth"]) for c in quick} < {(c["dataset"], c["rows"], c["depth"])
                                                                     for c in full}
    assert ("make_classification", 50_000, 2) in {(c["dataset"], c["rows"], c["depth"]) for c in full}
    for case in quick + full:    # not loosened at quick scale
        assert case["target"] == exact.CONTREE_TARGETS[case["depth"]] and case["fits"] >= 1
    # quick scale times the pinned setting only (the one the targets judge), full scale both
    assert {c["settings"] for c in quick} == {("pinned",)} and {c["settings"] for c in full} == {("pinned", "default")}
    assert exact.CONTREE_TARGETS == {2: 1.0, 3: 2.0}
    with pytest.raises(ValueError, match="scale"):
        contree_cases("huge")


def test_boolean_cases_judge_the_issue_target_at_full_scale():
    full = boolean_peer_cases("full")
    assert {(c["peer"], c["depth"]) for c in full} == {("DL8.5", 3), ("DL8.5", 4), ("GOSDT", 3), ("GOSDT", 4)}
    assert all(c["target"] == exact.BOOLEAN_TARGET == 0.5 for c in full)
    assert all(c["target"] == common.QUICK_TARGET for c in boolean_peer_cases("quick"))
    with pytest.raises(ValueError, match="scale"):
        boolean_peer_cases("medium")


def test_contree_row_is_a_judged_benchmark_row_that_agrees():
    pytest.importorskip("pycontree")
    case = {"dataset": "make_classification", "rows": 300, "depth": 2, "target": 1.0, "fits": 2}
    bench = contree_benchmark(case, repetitions=1)
    row = bench.row
    assert row["benchmark"] == "Exact optimum, every threshold (d=2)"
    assert row["size"] == "make_classification 300×20, real-valued (2 fits per timed call)"
    assert row["same_result"] == "yes" and row["deviation"] == 0 and row["target"] == 1.0
    assert row["ratio_pinned"] > 0 and row["ratio_default"] > 0 and bench.profile is not None
    # two timed calls per setting, seconds per fit
    assert len(bench.times) == 4 and set(bench.times["setting"]) == set(common.THREADS)
    log = common.BenchmarkLog()
    log.add(bench)
    ratios = log.ratios(scale="quick")
    assert ratios["target met (pinned)"].iloc[0] in ("yes", "no")
    assert "ConTree" in exact.rows_sentence([bench])


def test_contree_benchmark_refuses_bad_arguments():
    case = {"dataset": "wine", "rows": None, "depth": 2, "target": 1.0, "fits": 1}
    with pytest.raises(ValueError, match="case"):
        contree_benchmark({"dataset": "wine"}, repetitions=1)
    with pytest.raises(ValueError, match="fits"):
        contree_benchmark({**case, "fits": 0}, repetitions=1)
    with pytest.raises(ValueError, match="depth"):
        contree_benchmark({**case, "depth": 0}, repetitions=1)
    with pytest.raises(ValueError, match="repetitions"):
        contree_benchmark(case, repetitions=0)
    with pytest.raises(ValueError, match="time_limit"):
        contree_benchmark(case, repetitions=1, time_limit=0)
    with pytest.raises(ValueError, match="dataset"):
        contree_benchmark({**case, "dataset": "iris"}, repetitions=1)


@pytest.mark.parametrize("peer", exact.BOOLEAN_PEERS)
def test_boolean_peer_rows_agree(peer):
    pytest.importorskip("pydl85" if peer == "DL8.5" else "gosdt")
    case = {"peer": peer, "rows": 200, "features": 6, "depth": 2, "target": 0.5, "fits": 1}
    bench = boolean_peer_benchmark(case, repetitions=1, seed=0)
    row = bench.row
    assert row["benchmark"] == f"FIND against {peer} (d=2)" and row["size"] == "200×6 Boolean (noisy depth-3 tree)"
    assert row["same_result"] == "yes" and row["deviation"] == 0 and row["target"] == 0.5
    # the identity row names the two independent computations
    table_key = [k for k in common.COMPUTED_BY if row["benchmark"].startswith(k)][-1]
    assert common.COMPUTED_BY[table_key][1].startswith("pydl85" if peer == "DL8.5" else "gosdt")


def test_boolean_peer_benchmark_refuses_bad_arguments():
    case = {"peer": "DL8.5", "rows": 50, "features": 4, "depth": 2, "target": 0.5, "fits": 1}
    with pytest.raises(ValueError, match="peer"):
        boolean_peer_benchmark({**case, "peer": "MurTree"}, repetitions=1, seed=0)
    with pytest.raises(ValueError, match="case"):
        boolean_peer_benchmark({"peer": "DL8.5"}, repetitions=1, seed=0)
    with pytest.raises(ValueError, match="time_limit"):
        boolean_peer_benchmark(case, repetitions=1, seed=0, time_limit=0)


def test_a_row_timed_pinned_only_has_no_default_ratio():
    pytest.importorskip("pydl85")
    case = {**boolean_peer_cases("quick")[0], "rows": 100, "features": 5, "fits": 1}
    bench = boolean_peer_benchmark(case, repetitions=1, seed=0)
    assert set(bench.times["setting"]) == {"pinned"} and "ratio_default" not in bench.row
    assert "default: not timed" in common.describe(bench.row)
    log = common.BenchmarkLog()
    log.add(bench)
    ratios = log.ratios(scale="quick")
    assert np.isnan(ratios["ratio_default"].iloc[0]) and np.isnan(ratios["dtcore_s_default"].iloc[0])
    assert ratios["target met (pinned)"].iloc[0] in ("yes", "no")
    # the page's tables, figure and verification rows take a row without a default setting
    assert "—" in summary.seconds_style(ratios).to_html()
    assert "FIND against DL8.5" in summary.ratios_style(ratios).to_html()
    plt.close(summary.ratios_figure(ratios))
    table = VerificationTable()
    summary.check_agreement(table, ratios)
    summary.check_targets(table, ratios, pd.DataFrame())
    assert [r["kind"] for r in table.rows] == ["identity", "observation"] and table.rows[0]["holds"]


def test_timed_repeats_calls_and_reports_seconds_per_call():
    calls = []
    times, out = common.timed({"dtcore": lambda: calls.append(1) or len(calls)}, repetitions=2, calls=3,
                              warm_up=True)
    assert len(calls) == 1 + 2 * 2 * 3       # the warm-up, then 2 rounds of 3 calls in each setting
    assert out["default"]["dtcore"] == len(calls) and all(len(t) == 2 for t in times.values())
    with pytest.raises(ValueError, match="calls"):
        common.timed({"dtcore": lambda: None}, repetitions=1, calls=0)
    with pytest.raises(ValueError, match="warm_up"):
        common.timed({"dtcore": lambda: None}, repetitions=1, warm_up="yes")
    times, out = common.timed({"dtcore": lambda: 1}, repetitions=1, settings=("pinned",))
    assert set(times) == set(out) == {"pinned"}
    for bad in (("default",), "pinned", ("pinned", "eight")):
        with pytest.raises(ValueError, match="settings"):
            common.timed({"dtcore": lambda: 1}, repetitions=1, settings=bad)


def test_left_out_and_rows_sentences():
    quick, full = exact.left_out_sentence("quick"), exact.left_out_sentence("full")
    assert "full scale only" in quick and "full scale only" not in full and full in quick
    assert "did not finish within 900 s" in full and "the same training errors" in full
    with pytest.raises(ValueError, match="scale"):
        exact.left_out_sentence("huge")
    with pytest.raises(ValueError, match="benchmarks"):
        exact.rows_sentence([])
    lonely = common.benchmark_row("S", "x", "—", {s: pd.DataFrame({"name": ["dtcore"], "rep": [0], "seconds": [1.0]})
                                                  for s in common.THREADS}, same="self-consistent", check="",
                                  deviation=0)
    with pytest.raises(ValueError, match="benchmarks"):
        exact.rows_sentence([lonely])


def test_real_data_names_and_refuses_unknown():
    X, y = real_data("wine")
    assert X.shape == (178, 13) and set(y) == {0, 1, 2}
    with pytest.raises(ValueError, match="dataset"):
        real_data("iris")


def test_exact_beside_cuts_never_costs_less_on_training():
    data = {"wine": real_data("wine"), "mc": real_data("make_classification", rows=200, features=5)}
    table = exact_beside_cuts(data, depths=[1, 2], cuts=4, rng=np.random.default_rng(0))
    assert len(table) == 4
    assert (table["cuts_cost"] >= -1e-12).all()
    again = exact_beside_cuts(data, depths=[1, 2], cuts=4, rng=np.random.default_rng(0))
    assert table.drop(columns=[c for c in table if c.endswith("fit s")]).equals(
        again.drop(columns=[c for c in again if c.endswith("fit s")]))
