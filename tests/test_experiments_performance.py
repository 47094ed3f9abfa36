"""The performance appendix's benchmarks (dtbook.experiments.performance) at tiny sizes.

Times are never asserted: only the rows' structure and the output comparisons, which must agree.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from dtbook.experiments.performance import (buildtopdown, common, exhaustive, find, id3, local, scale_statement,
                                                 summary, topdown)
from dtbook.report import VerificationTable, lint_table
from dtcore.functions import random_tree
from dtcore.topdown import depth_cap, top_down


@pytest.fixture(scope="module")
def log() -> common.BenchmarkLog:
    """A log with one benchmark of each kind that has a peer, plus the self-consistent exact row."""
    rng = np.random.default_rng(0)
    log = common.BenchmarkLog()
    log.add(buildtopdown.exact_benchmark(n_exact=8, exact_leaves=8, repetitions=1)[0])
    X, y = topdown.topdown_data(rng, m=600, n=8)
    log.add(topdown.topdown_benchmarks(X, y, t=6, repetitions=1, seed=0)[0])
    X, y = find.find_data(rng, m=300, n=6, depth=2)
    log.add(find.find_benchmark(X, y, depth=2, repetitions=1, seed=0, target=2.0))
    X, y = id3.id3_data(rng, id3.junta_variables(rng, 10), m=500, n=10, noise=0.1)
    log.add(id3.id3_benchmark("ID3 (7-junta, 10% noise)", X, y, repetitions=1, seed=0, target=0.2))
    return log


def test_timed_runs_every_candidate_in_both_thread_settings():
    times, results = common.timed({"dtcore": lambda: 1, "peer": lambda: 2}, repetitions=2)
    assert set(times) == set(results) == set(common.THREADS)
    assert results["pinned"] == {"dtcore": 1, "peer": 2}
    assert len(times["default"]) == 4 and (times["default"]["threads"] == "default").all()


def test_benchmark_row_ratio_is_the_ratio_of_medians_and_describe_names_both_sides():
    times = {s: pd.DataFrame({"name": ["dtcore", "peer", "peer", "dtcore"], "rep": [0, 0, 1, 1],
                              "position": [0, 1, 0, 1], "threads": [1] * 4, "seconds": [1.0, 4.0, 2.0, 3.0]})
             for s in common.THREADS}
    bench = common.benchmark_row("B", "tiny", "P", times, same="yes", check="0 differ", deviation=0, target=0.5)
    row = bench.row
    assert row["ratio_pinned"] == pytest.approx(2.0 / 3.0)
    assert (row["ratio_min_pinned"], row["ratio_max_pinned"]) == (pytest.approx(0.25), pytest.approx(1.5))
    assert row["dtcore_spread_default"] == "1–3"
    assert len(bench.times) == 8 and set(bench.times["setting"]) == set(common.THREADS)
    text = common.describe(row)
    assert text.startswith("B (tiny): pinned: dtcore 2 s, peer 3 s") and text.endswith("same result: yes (0 differ)")
    alone = common.benchmark_row("S", "x", "—", {s: t[t.name == "dtcore"] for s, t in times.items()},
                               same="self-consistent", check="ok", deviation=0)
    assert "ratio_pinned" not in alone.row and "pinned: dtcore 2 s;" in common.describe(alone.row)


def test_for_sklearn_and_leaf_sets():
    X = np.eye(3, dtype=np.uint8)
    Z = common.for_sklearn(X)
    assert Z.dtype == np.float32 and Z.flags.f_contiguous and np.array_equal(Z, X)
    tree = random_tree(5, 4, rng=np.random.default_rng(1))
    assert len(common.leaf_sets(tree)) == 4
    assert common.leaf_sets(tree) != common.leaf_sets(random_tree(5, 5, rng=np.random.default_rng(1)))


def test_profile_top_lists_the_heaviest_functions():
    profile = common.profile_top(lambda: sorted(np.random.default_rng(0).random(20_000).tolist()), k=3)
    assert len(profile) <= 3 and (profile["own_share"] <= 1).all()
    assert profile["own_s"].is_monotonic_decreasing
    html = common.profile_style(profile).to_html()
    assert "share of the run" in html and "own_share" not in html and "<th" not in html.split("</thead>")[1]
    with pytest.raises(ValueError, match="k"):
        common.profile_top(lambda: None, k=0)


def test_the_logged_benchmarks_agree_with_their_peers(log):
    ratios = log.ratios(scale="quick")
    assert ratios["benchmark"].tolist() == ["BuildTopDownDT (exact, uniform)", "TopDown_G (gini)", "FIND (d=2)",
                                            "ID3 (7-junta, 10% noise)"]
    assert (ratios["deviation"] == 0).all()
    assert ratios["same_result"].tolist() == ["self-consistent", "yes", "yes", "yes"]
    # every run judges the targets of its scale: met or missed, never skipped (the exact row has none here)
    assert ratios["target met (pinned)"].iloc[0] == "—"
    assert set(ratios["target met (pinned)"].iloc[1:]) <= {"yes", "no"}
    assert np.allclose(ratios["judged (pinned)"].iloc[1:], ratios["ratio_pinned"].iloc[1:])
    times = log.times()
    assert set(times["benchmark"]) == set(ratios["benchmark"]) and (times["seconds"] > 0).all()


def test_exact_benchmark_profile_and_row():
    bench, profile = buildtopdown.exact_benchmark(n_exact=7, exact_leaves=4, repetitions=1)
    assert bench.row["deviation"] == 0 and "4 leaves" in bench.row["size"]
    assert len(profile) > 0 and bench.profile is None
    # the batched growth (n >= 8) against the one-leaf-at-a-time peer and the floor of (n + 1) 2^n / 8 bytes
    bench, _ = buildtopdown.exact_benchmark(n_exact=9, exact_leaves=20, repetitions=1, target=100.0)
    row = bench.row
    assert row["deviation"] == 0 and "equal the one-leaf-at-a-time" in row["check"]
    assert buildtopdown.exact_floor_bytes(9) == 10 * 2**9 // 8 and row["floor_MB_per_level"] == 10 * 2**9 / 8 / 2**20
    assert row["floor_distance_pinned"] == pytest.approx(row["dtcore_s_pinned"] / row["floor_s_pinned"])
    assert row["target_of"] == "floor distance" and row["ratio_pinned"] > 0
    log = common.BenchmarkLog()
    log.add(bench)
    ratios = log.ratios(scale="quick")
    assert ratios["judged (pinned)"].iloc[0] == pytest.approx(row["floor_distance_pinned"])
    assert buildtopdown.exact_target("full") == 10.0 and buildtopdown.exact_target("quick") == 100.0
    with pytest.raises(ValueError, match="target_of"):
        common.benchmark_row("B", "s", "P", {}, same="yes", check="", deviation=0, target_of="time")


def test_ratios_judge_targets_at_full_scale_and_profile_the_misses(log):
    ratios = log.ratios(scale="full")
    # tiny workloads are dominated by fixed costs: a target ratio of 1e-9 is always missed, 1e9 always met
    ratios["target"] = [1e-9 if b == "FIND (d=2)" else (1e9 if pd.notna(t) else t)
                        for b, t in zip(ratios["benchmark"], ratios["target"])]
    ratios["target met (pinned)"] = [
        "—" if pd.isna(t) else ("yes" if r <= t else "no") for r, t in zip(ratios["ratio_pinned"], ratios["target"])]
    ratios["judged (pinned)"] = ratios["ratio_pinned"]
    missed = log.missed_target_profiles(ratios)
    assert [m.split(":")[1].strip().startswith("FIND (d=2)") for m, _ in missed] == [True]
    assert isinstance(missed[0][1], pd.DataFrame)
    assert summary.targets_note(ratios, scale="full").startswith("2 of 3 of the full-scale speed targets")
    assert "quick-scale speed targets" in summary.targets_note(ratios, scale="quick")
    values = summary.ratio_glue(ratios, scale="full")
    assert values["app_missed"].startswith("FIND (d=2)") and "TopDown_G (gini)" in values["app_summary"]
    assert values["app_targets_note"] == summary.targets_note(ratios, scale="full")


def test_find_cases_and_targets():
    assert find.find_cases("quick") == [(3, 12), (4, 10), (3, 16), (5, 8)]
    assert find.find_target("full", 4, 32) == 0.35 and find.find_target("quick", 4, 32) == common.QUICK_TARGET
    assert find.find_target("full", 5, 16) == 0.5 and find.find_target("full", 2, 7) is None
    with pytest.raises(ValueError, match="scale"):
        find.find_cases("huge")


def test_workload_data_have_the_stated_shapes_and_noise():
    rng = np.random.default_rng(3)
    X, y = find.find_data(rng, m=400, n=6, depth=2)
    assert X.shape == (400, 6) and X.dtype == np.uint8 and set(np.unique(y)) <= {0, 1}
    J = id3.junta_variables(rng, 12)
    assert len(J) == 7 and np.all(np.diff(J) > 0) and J.max() < 12
    X, clean = id3.id3_data(np.random.default_rng(4), J, m=2000, n=12, noise=0.0)
    _, noisy = id3.id3_data(np.random.default_rng(4), J, m=2000, n=12, noise=0.2)
    assert 0.15 < np.mean(clean != noisy) < 0.25  # same points, a fifth of the labels flipped
    cases = id3.id3_cases(m_id3=100, n_id3=10, m_id3_large=200, n_id3_large=9)
    assert [c[1:3] for c in cases] == [(100, 10), (100, 10), (200, 9)] and cases[0][4] is None


def test_local_benchmark_answers_like_the_full_tree_with_fewer_labels():
    bench, labels = local.local_benchmark(np.random.default_rng(0), size=1500, repetitions=1)
    assert bench.row["deviation"] == 0 and labels["answers_differ"] == 0
    assert labels["labels_local"] <= labels["labels_full_tree"] <= labels["labels_training"] == 1500
    table = VerificationTable()
    local.check_local_labels(table, pd.DataFrame([labels]))
    assert len(table.rows) == 1 and table.failures().empty and lint_table(table) == []
    # at |S°| = 1500 the full tree labels every point: the bound is the whole reach
    assert table.rows[0]["kind"] == "observation" and labels["labels_full_tree"] == 1500
    table = VerificationTable()
    local.check_local_labels(table, pd.DataFrame([{**labels, "labels_local": 1400, "labels_full_tree": 1400}]))
    row = table.rows[0]
    assert row["kind"] == "theorem" and row["holds"] and row["tight"] and lint_table(table) == []
    assert row["fails_under_fails"] and row["fails_under_value"] == 1500  # every minibatch to depth D: all of S°
    assert row["reach_high"] == local.local_label_reach(1500) == 1500
    broken = {**labels, "labels_local": labels["labels_full_tree"] + 1,
              "labels_full_tree": min(1499, labels["labels_full_tree"])}
    table = VerificationTable()
    local.check_local_labels(table, pd.DataFrame([broken]))
    assert not table.rows[0]["holds"]
    # past the reach (one minibatch per node of depth <= D) the full tree's count bounds nothing
    cap = local.LOCAL["b"] * 2 ** (depth_cap(local.LOCAL["t"]) + 1)
    assert local.local_label_reach(10 * cap) == cap
    table = VerificationTable()
    local.check_local_labels(table, pd.DataFrame([{**labels, "size": 10 * cap, "labels_full_tree": cap}]))
    assert table.rows[0]["kind"] == "observation"
    fig = local.local_figure(pd.DataFrame([labels, {**labels, "size": 3000, "labels_training": 3000}]))
    assert fig.axes[0].get_xscale() == "log"
    plt.close(fig)


def test_peak_memory_traces_the_same_tree():
    X, y = topdown.topdown_data(np.random.default_rng(0), m=800, n=8)
    memory = topdown.peak_memory(X, y, t=8)
    assert memory["m"].tolist() == [200, 400, 800] and (memory["leaves_differ"] == 0).all()
    assert (memory["peak_MB"] > 0).all()
    assert memory["input_MB"].iloc[-1] == pytest.approx((X.nbytes + y.nbytes) / 2**20)
    html = topdown.memory_style(memory).to_html()
    assert "peak / input" in html and "peak_over_input" not in html
    table = VerificationTable()
    summary.check_memory(table, memory)
    # the same function with and without tracemalloc: reproducibility, not a check
    assert [r["kind"] for r in table.rows] == ["observation"] * 3 and lint_table(table) == []
    assert table.rows[0]["result"] == "TopDown_G peak memory (m=200)"
    fig = topdown.memory_figure(memory, n=8, t=8)
    assert "$n = 8$" in fig.axes[0].get_title()
    plt.close(fig)


def test_scale_rows_are_self_consistent():
    rng = np.random.default_rng(0)
    bench, row = topdown.scale_topdown(rng, m=2000, repetitions=1)
    assert bench.row["deviation"] == 0 and row["labels"] == 2000 and row["peak_over_input"] > 0
    bench_est, row_est = topdown.scale_est(rng, m=2000, repetitions=1)
    assert bench_est.row["deviation"] == 0 and 0 < row_est["labels"] <= 2000
    scale = pd.DataFrame([row, row_est])
    assert "Est_G" in topdown.scale_style(scale).to_html()
    table = VerificationTable()
    summary.check_targets(table, pd.DataFrame({"benchmark": ["B"], "size": ["s"], "target": [np.nan],
                                            "ratio_pinned": [1.0], "target_of": ["ratio"],
                                            "judged (pinned)": [1.0]}), scale)
    assert [r["kind"] for r in table.rows] == ["observation"]  # the memory target only


def test_check_agreement_fails_on_a_differing_output(log):
    ratios = log.ratios(scale="quick")
    table = VerificationTable()
    summary.check_agreement(table, ratios)
    assert len(table.rows) == 4 and table.failures().empty and lint_table(table) == []
    assert [r["kind"] for r in table.rows] == ["identity"] * 4
    assert table.rows[1]["quantity"] == common.QUANTITY["TopDown_G ("]
    assert (table.rows[2]["measured_by"], table.rows[2]["bound_by"]) == common.COMPUTED_BY["FIND"]
    ratios.loc[2, "deviation"] = 3.0
    table = VerificationTable()
    summary.check_agreement(table, ratios)
    assert len(table.failures()) == 1
    # the scale rows compare runs of one function: observations
    scale = ratios.iloc[:1].assign(benchmark="TopDown_G (gini), scale")
    table = VerificationTable()
    summary.check_agreement(table, scale)
    assert table.rows[0]["kind"] == "observation" and table.rows[0]["quantity"] == common.QUANTITY[
        "TopDown_G (gini), scale"]


def test_check_targets_records_observations_only(log):
    ratios = log.ratios(scale="quick")
    table = VerificationTable()
    summary.check_targets(table, ratios, pd.DataFrame())
    assert [r["kind"] for r in table.rows] == ["observation"] * 3


def test_ratios_table_figure_and_agreement_message(log):
    ratios = log.ratios(scale="quick")
    headers = list(summary.ratios_style(ratios).data.columns)
    assert "Distance to the floor" in headers and len(headers) <= 7 and not any("_" in h for h in headers)
    assert "ms" in summary.seconds_style(ratios).to_html()
    fig = summary.ratios_figure(ratios)
    assert len(fig.axes[0].get_yticklabels()) == 4  # every row with a peer (the exact row: the one-leaf-at-a-time growth)
    plt.close(fig)
    assert summary.assert_outputs_agree(ratios, n_rows=7).endswith("all 3 compared benchmark rows and 1 row is "
                                                                 "self-consistent.")
    ratios.loc[1, "same_result"] = "no"
    with pytest.raises(AssertionError):
        summary.assert_outputs_agree(ratios, n_rows=7)


def test_topdown_benchmarks_cover_both_impurities():
    X, y = topdown.topdown_data(np.random.default_rng(5), m=400, n=6)
    benches = topdown.topdown_benchmarks(X, y, t=4, repetitions=1, seed=0)
    assert [b.row["benchmark"] for b in benches] == ["TopDown_G (gini)", "TopDown_G (entropy)"]
    assert all(b.row["deviation"] == 0 and b.row["target"] == 0.5 for b in benches)
    assert common.leaf_sets(benches[0].profile().tree) == common.leaf_sets(top_down(X, y, size=4).tree)


def test_workload_streams_are_keyed_by_name():
    a = common.workload_rng(0, "topdown").random(3)
    assert np.array_equal(a, common.workload_rng(0, "topdown").random(3))
    assert not np.array_equal(a, common.workload_rng(0, "find-d3-n12").random(3))
    assert not np.array_equal(a, common.workload_rng(1, "topdown").random(3))


def test_exhaustive_throughput_times_every_pass_over_every_function():
    out = exhaustive.exhaustive_throughput(n=3, repetitions=1)
    assert list(out["pass"]) == list(exhaustive.EXHAUSTIVE_PASSES)
    assert (out["functions"] == 256).all() and (out["median"] > 0).all()
    assert np.allclose(out["functions per second"] * out["median"], 256)
    with pytest.raises(ValueError, match="n must be"):
        exhaustive.exhaustive_throughput(n=5, repetitions=1)


def test_user_find_rows_agree_with_pystreed_both_ways():
    cases = find.user_find_cases("quick")
    assert {c["via"] for c in cases} == {"features", "estimator"}
    # the estimator at depth 2 on breast cancer is the full-scale workload: judged at 0.5 at both scales
    same = [c for c in cases if (c["dataset"], c["depth"], c["via"]) == ("breast_cancer", 2, "estimator")]
    assert sorted(c["cuts"] for c in same) == [4, 8] and all(c["target"] == find.USER_FIND_TARGET for c in same)
    assert all(c["target"] == common.QUICK_TARGET for c in cases if c not in same)
    full = find.user_find_cases("full")
    assert len(full) == 9 and all(c["target"] == find.USER_FIND_TARGET for c in full)
    assert {"dataset": "make_classification", "rows": 50_000, "cuts": 8, "depth": 3, "via": "estimator",
            "target": 0.5} in full
    small = {"dataset": "breast_cancer", "rows": 150, "cuts": 2, "depth": 2, "target": 1.0}
    for via in ("features", "estimator"):
        bench = find.user_find_benchmark({**small, "via": via}, repetitions=1, seed=0)
        assert bench.row["same_result"] == "yes" and bench.row["deviation"] == 0
        assert bench.row["benchmark"].startswith("FIND") and "150×30" in bench.row["size"]
    assert bench.row["peak_MB"] > 0 and "peak memory" in bench.row["check"]
    assert summary._matching(common.COMPUTED_BY, bench.row["benchmark"])[0] == "dtcore.estimators.OptimalTreeClassifier"
    with pytest.raises(ValueError, match="via"):
        find.user_find_benchmark({**small, "via": "raw"}, repetitions=1, seed=0)
    with pytest.raises(ValueError, match="scale"):
        find.user_find_cases("huge")


def test_scale_statement_fits_exponents_and_draws_them(monkeypatch):
    monkeypatch.setitem(scale_statement.SCALE_GRIDS, "quick", {"find": {2: ((200, 400), (6, 8)), 3: ((100, 300), (5, 7))},
                                                    "id3_rows": (300, 600), "id3_features": (8, 10),
                                                    "repetitions": 2})
    grid, fits = scale_statement.scale_statement(np.random.default_rng(0), scale="quick", repetitions=1)
    assert fits["label"].tolist() == ["FIND d=2", "FIND d=3", "ID3"] and (fits["points"] == 4).all()
    assert set(grid.loc[grid["d"] == 3, "m"]) == {100, 300} and set(grid.loc[grid["d"] == 2, "n"]) == {6, 8}
    assert np.isfinite(fits[["time_rows", "time_features", "memory_rows", "memory_features", "time_r2",
                             "memory_r2"]].to_numpy()).all()
    html = scale_statement.exponents_style(fits).to_html()
    assert "time: a (rows)" in html and "R² (log memory)" in html and "e-0" not in html and "e+0" not in html
    note = scale_statement.scale_note(fits)
    assert note.count("R² ") >= 2 * len(fits) and all(label in note for label in fits["label"])
    fig = scale_statement.scale_statement_figure(grid, fits)
    assert len(fig.axes) == 3 and "a = " in fig.axes[2].get_legend().get_texts()[0].get_text()
    plt.close(fig)
    assert scale_statement._short_count(2000) == "2k" and scale_statement._short_count(10**6) == "1M" and scale_statement._short_count(12) == "12"
    with pytest.raises(ValueError, match="scale"):
        scale_statement.scale_statement(np.random.default_rng(0), scale="huge")


def test_scale_note_names_the_poor_fits_and_only_them():
    fits = pd.DataFrame({"label": ["FIND d=2", "ID3"], "time_rows": [1.0, 0.9], "time_features": [0.4, 0.1],
                         "time_r2": [0.98, 0.5], "memory_rows": [1.0, 0.9], "memory_features": [1.0, 0.2],
                         "memory_r2": [0.99, 0.95]})
    note = scale_statement.scale_note(fits)
    assert "Poor fits" in note and "ID3 (time, R² 0.50)" in note and "FIND d=2 (" not in note
    assert "Every fit" in scale_statement.scale_note(fits.assign(time_r2=0.95))
    assert [scale_statement._three_digits(v) for v in (0.000123456, 12.345, 12345.6)] == ["0.000123", "12.3", "12,346"]


def test_exact_larger_row_only_at_full_scale_and_within_the_largest_cube():
    assert buildtopdown.exact_larger_n("quick", 14) is None
    assert buildtopdown.exact_larger_n("full", 20) == 24 and buildtopdown.exact_larger_n("full", 22) == 24
    assert buildtopdown.exact_larger_n("full", 24) is None
    with pytest.raises(ValueError, match="scale"):
        buildtopdown.exact_larger_n("huge", 20)
    assert "four more variables" in buildtopdown.exact_larger_sentence(None)
    row, _ = buildtopdown.exact_benchmark(n_exact=9, exact_leaves=8, repetitions=1, target=100.0)
    sentence = buildtopdown.exact_larger_sentence(row)
    assert "majority n=9" in sentence and "times its floor" in sentence
