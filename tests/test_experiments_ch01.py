"""Chapter 1's experiments (the package dtbook.experiments.ch01), at small sizes, with known answers."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from dtcore import analysis
from dtbook.experiments import ch01
from dtbook.sweep import task_seeds
from dtcore.cube import truth_table
from dtcore.functions import address, decoy_selector_parity_size, nested_decoy_parity_size

N = 6  # small cube: every run below is exact on 64 points


def axes_of(fig) -> int:
    count = len(fig.axes)
    plt.close(fig)
    return count


@pytest.fixture(scope="module")
def lemma51() -> pd.DataFrame:
    return ch01.lemma51.lemma51_pairs(n=N, n_functions=4, seed=0, n_jobs=1)


@pytest.fixture(scope="module")
def osss() -> pd.DataFrame:
    return ch01.osss.osss_trees(sizes=[2, 4, 8], n=N, n_functions=6, seed=0, n_jobs=1)


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    return ch01.lemmas52_54.lemma_runs(sizes=[4, 8], n=N, eps=0.1, n_functions=10, seed=0, n_jobs=1)


@pytest.fixture(scope="module")
def thm3() -> pd.DataFrame:
    return ch01.theorem3.theorem3_runs(sizes=[4], eps_grid=[0.2, 0.1], n=N, n_functions=3, seed=0, n_jobs=1)


@pytest.fixture(scope="module")
def lower() -> pd.DataFrame:
    return ch01.lower_bound.nested_decoy_runs(n_max=8, eps=0.05)


@pytest.fixture(scope="module")
def constant() -> pd.DataFrame:
    return ch01.lower_bound.selector_runs(n_max=8, seed=0, n_orders=3)


# --- the traced run ------------------------------------------------------------------------------

def test_traced_run_learns_the_multiplexer_exactly_with_address_bits_first():
    run, f = ch01.section3.traced_run(0.05)
    assert np.array_equal(f, truth_table(lambda X: address(X, 2), 6))
    assert run.tree.size == 8 and np.array_equal(run.tree.truth_table(), f)
    values = ch01.section3.trace_glue(run, f)
    assert values == {"ch1_trace_size": 8, "ch1_trace_first": "x0, x1",
                      "ch1_trace_exact": "computes the multiplexer exactly"}


def test_trace_glue_says_approximates_when_the_tree_is_not_exact():
    run, f = ch01.section3.traced_run(0.3)  # one split leaves error 1/4 <= 0.3: not the whole multiplexer
    assert run.tree.size < 8
    assert ch01.section3.trace_glue(run, f)["ch1_trace_exact"] == "approximates the multiplexer"


def test_trace_table_shows_the_trace_columns_and_dashes_for_the_final_row():
    run, _ = ch01.section3.traced_run(0.05)
    styler = ch01.section3.trace_table(run.trace)
    assert list(styler.data.columns) == ["step", "leaves before", "cost", "error", "split on", "score of the split",
                                         "depth of the split leaf"]
    assert len(styler.data) == len(run.trace)
    last = styler.data.iloc[-1]  # the returned tree: no split, so no variable (the trace records -1)
    assert pd.isna(last["split on"]) and math.isnan(last["score of the split"])
    assert styler.data["split on"].iloc[0] == "x0"
    html = styler.to_html()
    assert "—" in html and "-1" not in html


def test_trace_figures():
    run, _ = ch01.section3.traced_run(0.05)
    assert axes_of(ch01.section3.fig_trace_tree(run.tree)) == 1
    assert axes_of(ch01.section3.fig_trace_cost(run.trace, 0.05)) == 1


# --- Lemma 5.1 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ch01.lemma51.LEMMA51_KINDS)
def test_lemma51_task_satisfies_both_parts(kind):
    rng = np.random.default_rng(1)
    for _ in range(5):
        row = ch01.lemma51.lemma51_task(kind, N, rng=rng)
        assert row["error"] <= row["cost"] + 1e-12
        assert abs(row["drop"] - row["score"]) <= 1e-12


def test_lemma51_task_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match="kind"):
        ch01.lemma51.lemma51_task("dense", N, rng=np.random.default_rng(0))


def test_lemma51_pairs_one_row_per_pair_and_depends_on_the_seed(lemma51):
    assert len(lemma51) == 3 * 4
    assert list(lemma51["kind"].unique()) == list(ch01.lemma51.LEMMA51_KINDS)
    assert lemma51.equals(ch01.lemma51.lemma51_pairs(n=N, n_functions=4, seed=0, n_jobs=1))
    assert not lemma51["cost"].equals(ch01.lemma51.lemma51_pairs(n=N, n_functions=4, seed=1, n_jobs=1)["cost"])
    with pytest.raises(ValueError, match="n_functions"):
        ch01.lemma51.lemma51_pairs(n=N, n_functions=0, seed=0)


def test_lemma51_pairs_draw_from_the_keyed_stream_of_the_experiment(lemma51):
    # task k of the sweep draws from SeedSequence([seed, key_number("ch01/lemma51")]).spawn(K)[k]
    streams = task_seeds(0, len(lemma51), "ch01/lemma51")
    first_tree = lemma51.index[lemma51["kind"] == "random tree"][0]
    row = ch01.lemma51.lemma51_task("random tree", N, rng=np.random.default_rng(streams[first_tree]))
    assert row == {c: lemma51.loc[first_tree, c] for c in ("error", "cost", "drop", "score", "score_direct")}


def test_lemma51_measures_known_answers():
    frame = pd.DataFrame({"kind": ["a", "a", "b"], "error": [0.0, 0.5, 0.25], "cost": [0.0, 2.0, 0.5],
                          "drop": [0.1, 0.2, 0.3], "score": [0.1, 0.25, 0.3]})
    m = ch01.lemma51.lemma51_measures(frame)
    assert m["error_over_cost"] == 0.5 and m["error_at_zero_cost"] == 0.0
    assert m["drop_gap"] == pytest.approx(0.05)
    assert ch01.lemma51.lemma51_measures(frame.iloc[1:])["error_at_zero_cost"] == 0.0  # no pair at cost 0


def test_lemma51_measures_and_glue_on_real_pairs(lemma51):
    m = ch01.lemma51.lemma51_measures(lemma51)
    assert 0 < m["error_over_cost"] <= 1.0 and m["drop_gap"] <= 1e-12
    values = ch01.lemma51.lemma51_glue(lemma51)
    assert values["ch1_l51_count"] == 12
    assert values["ch1_l51_ratio"] == pytest.approx(m["error_over_cost"])
    per_kind = [values[f"ch1_l51_ratio_{k.replace(' ', '_')}"] for k in ch01.lemma51.LEMMA51_KINDS]
    assert max(per_kind) == values["ch1_l51_ratio"]
    assert axes_of(ch01.lemma51.fig_lemma51(lemma51)) == 2


# --- OSSS and Lemma 5.3 --------------------------------------------------------------------------

def test_osss_task_parity_of_two_variables_is_tight_for_lemma53_at_s4():
    row = ch01.osss.osss_task(4, N, rng=np.random.default_rng(3))
    assert row["parseval_gap"] <= 1e-12
    assert row["max_inf"] >= row["osss_bound"] - 1e-12
    assert row["total_inf"] <= row["lemma53_bound"] + 1e-12


def test_osss_trees_keep_nonconstant_trees_and_satisfy_both_bounds(osss):
    assert (osss["variance"] > 0).all() and set(osss["s"]) == {2, 4, 8}
    m = ch01.osss.osss_measures(osss)
    assert m["osss_ratio"] >= 1.0 - 1e-12 and m["lemma53_ratio"] <= 1.0 and m["parseval_gap"] <= 1e-12
    assert m["osss_ratio"] == osss["osss_ratio"].min()


def test_small_number_text_never_uses_e_notation():
    assert ch01.common.small_number_text(0.0) == "exactly"
    assert ch01.common.small_number_text(2.2e-16) == "to within 2.2 × 10⁻¹⁶"


def test_readable_tables_have_no_snake_case_headers(osss, runs):
    for styler in (ch01.osss.osss_tightness_table(osss), ch01.lemmas52_54.closest_table(runs)):
        assert not any("_" in str(c) for c in styler.data.columns)
        assert "Lemma 1." not in styler.to_html()  # the paper's numbers ([BLT20] Lemmas 5.2-5.4), not the book's


def test_osss_tightness_and_glue_known_answers():
    frame = pd.DataFrame({"s": [4, 4, 8, 8, 8], "osss_ratio": [1.0, 3.0, 2.0, 4.0, 6.0],
                          "lemma53_ratio": [0.5, 0.1, 0.2, 0.3, 0.9]})
    tight = ch01.osss.osss_tightness(frame)
    assert tight.loc[4, "osss_min_ratio"] == 1.0 and tight.loc[8, "osss_median_ratio"] == 4.0
    assert tight.loc[8, "lemma53_max_ratio"] == 0.9 and tight.loc[4, "lemma53_median_ratio"] == pytest.approx(0.3)
    values = ch01.osss.osss_glue(frame)
    assert values["ch1_s_small"] == 4 and values["ch1_s_large"] == 8
    assert values["ch1_osss_min_small"] == 1.0 and values["ch1_osss_med_large"] == 4.0
    assert values["ch1_osss_count"] == 5 and values["ch1_l53_max"] == 0.9


def test_fig_osss(osss):
    assert axes_of(ch01.osss.fig_osss(osss)) == 2


# --- target families -----------------------------------------------------------------------------

def test_family_target_members_have_the_stated_structure():
    rng = np.random.default_rng(0)
    assert np.array_equal(ch01.common.family_target("multiplexer", 8, N, rng=rng), truth_table(lambda X: address(X, 2), N))
    parity = ch01.common.family_target("parity", 8, N, rng=rng)
    assert np.count_nonzero(analysis.influences(parity) == 1.0) == 3  # three relevant variables, influence 1
    assert analysis.total_influence(parity) == 3.0
    complete = ch01.common.family_target("complete random tree", 4, N, rng=rng)
    assert np.count_nonzero(analysis.influences(complete)) <= 3
    with pytest.raises(ValueError, match="family"):
        ch01.common.family_target("majority", 4, N, rng=rng)


@pytest.mark.parametrize("family, s, n, expected", [
    ("random tree", 6, 3, True), ("random tree", 9, 3, False), ("parity", 6, 10, False), ("parity", 8, 3, True),
    ("parity", 16, 3, False), ("multiplexer", 8, 6, True), ("multiplexer", 8, 5, False), ("multiplexer", 2, 6, False),
    ("complete random tree", 4, 2, True)])
def test_fits_known_answers(family, s, n, expected):
    assert ch01.common.fits(family, s, n) is expected


def test_decoy_instances_known_answers():
    selector = ch01.common.decoy_instances("decoy selector", 8)
    assert [(d["k"], d["t"]) for d in selector] == [(1, 1), (1, 2), (2, 1), (3, 1)]
    assert all(d["s"] == decoy_selector_parity_size(d["k"], d["t"]) for d in selector)
    nested = ch01.common.decoy_instances("nested decoy", 5)
    assert nested == [{"family": "nested decoy", "s": nested_decoy_parity_size(1, 1), "k": 1, "t": 1}]
    assert ch01.common.decoy_instances("decoy selector", 3) == []
    with pytest.raises(ValueError, match="family"):
        ch01.common.decoy_instances("decoy", 8)


# --- Lemmas 5.2 and 5.4 --------------------------------------------------------------------------

def test_lemma_run_task_replays_a_greedy_run_within_the_lemmas():
    rows = ch01.lemmas52_54.lemma_run_task("random tree", 8, N, 0.05, rng=np.random.default_rng(2))
    frame = pd.DataFrame(rows)
    assert list(frame.columns) == ch01.lemmas52_54.RUN_COLUMNS
    assert list(frame["leaves"]) == list(range(1, len(frame) + 1))  # one row per split, in order
    assert frame["greedy_gap"].max() <= 1e-12 and frame["trace_gap"].max() <= 1e-12
    assert (frame["score"] >= frame["lemma52_bound"] - 1e-12).all()
    assert (frame["final_error"] <= 0.05).all() and (frame["error_before_last_split"] > 0.05).all()
    assert frame["final_size"].iloc[0] == len(frame) + 1


def test_lemma_runs_cover_four_families_and_stay_above_the_bounds(runs):
    assert set(runs["family"]) == {"random tree", "parity", "multiplexer", "decoy selector"}
    assert runs["lemma52_ratio"].min() >= 1.0 - 1e-12
    assert runs["lemma54_ratio"].dropna().min() >= 1.0 - 1e-12
    per_family_runs = runs.groupby(["family", "s", "k", "t", "rep"], dropna=False).ngroups
    assert per_family_runs == 2 * 5 + 2 * 5 + 2 + 3  # random trees, parities, multiplexers, decoy instances


def test_lemma_run_measures_take_run_quantities_once_per_run():
    frame = pd.DataFrame({"family": ["a", "a", "b"], "s": [4, 4, 4], "k": [np.nan] * 3, "t": [np.nan] * 3,
                          "rep": [0, 0, 0], "greedy_gap": [0.0, 1e-13, 0.0], "trace_gap": [0.0, 9.0, 2e-13],
                          "lemma52_ratio": [3.0, 2.0, 5.0], "lemma54_ratio": [np.nan, 4.0, np.nan],
                          "final_error": [0.01, 0.5, 0.02], "error_before_last_split": [0.2, 0.9, 0.3]})
    m = ch01.lemmas52_54.lemma_run_measures(frame)
    assert m["greedy_gap"] == 1e-13 and m["lemma52_ratio"] == 2.0
    assert m["lemma54_splits"] == 1 and m["lemma54_ratio"] == 4.0
    # the first row of each run carries the run's values
    assert m["trace_gap"] == 2e-13 and m["final_error"] == 0.02 and m["error_before_last_split"] == 0.2


def test_closest_per_family_and_glue(runs):
    closest = ch01.lemmas52_54.closest_per_family(runs)
    assert closest["splits"].sum() == len(runs)
    assert closest.loc["parity", "lemma52_min"] == runs.loc[runs["family"] == "parity", "lemma52_ratio"].min()
    values = ch01.lemmas52_54.lemma_runs_glue(runs)
    assert values["ch1_runs_steps"] == len(runs)
    assert values["ch1_l52_min"] == closest["lemma52_min"].min()
    assert values["ch1_runs_n54"] == closest["lemma54_splits"].sum()
    assert "ch1_l52_min_decoy_selector" in values and values["ch1_l52_argmin"].count("s = ") == 1
    assert axes_of(ch01.lemmas52_54.fig_lemmas(runs, s=8, eps=0.1)) == 2


# --- Theorem 3 -----------------------------------------------------------------------------------

def test_theorem3_task_returns_an_eps_close_tree_below_the_bound():
    row = ch01.theorem3.theorem3_task("random tree", 4, 0.1, N, rng=np.random.default_rng(0))
    assert row["error"] <= 0.1 and 1 <= row["size"] <= 64
    assert row["initial_cost"] > 0 and row["log2_bound"] > math.log2(row["size"])


def test_theorem3_runs_grids_and_biting_flag(thm3):
    main, corner = thm3[thm3["grid"] == "main"], thm3[thm3["grid"] == "corner"]
    assert len(main) == 4 * 2 * 3 and len(corner) == 4 * 3 * 3
    assert thm3["bites"].equals(thm3["log2_bound"] < N)
    assert (thm3["error"] <= thm3["eps"]).all()


def test_theorem3_measures_known_answers():
    frame = pd.DataFrame({"log2_size": [1.0, 2.0, 3.0], "log2_bound": [2.0, 5.0, 30.0], "bites": [True, True, False],
                          "error": [0.05, 0.0, 0.1], "eps": [0.1, 0.2, 0.4]})
    m = ch01.theorem3.theorem3_measures(frame, n=6)
    assert m["biting"] == 2 and m["vacuous"] == 1
    assert m["size_over_bound"] == 0.5 and m["size_over_bound_high"] == 16.0
    assert m["vacuous_room_bits"] == 27.0
    assert m["error_over_eps"] == 0.5 and m["error_over_eps_high"] == 5.0
    none_bite = ch01.theorem3.theorem3_measures(frame.assign(bites=False), n=6)
    assert none_bite["biting"] == 0 and math.isnan(none_bite["size_over_bound"])


def test_theorem3_glue_and_figure(thm3):
    values = ch01.theorem3.theorem3_glue(thm3, n=N)
    assert values["ch1_t3_runs"] == len(thm3) and values["ch1_n"] == N
    assert values["ch1_t3_biting"] == int(thm3["bites"].sum())
    main = thm3[thm3["grid"] == "main"]
    assert values["ch1_t3_min_bound_bits"] == main["log2_bound"].min()
    assert axes_of(ch01.theorem3.fig_theorem3(thm3, eps_grid=[0.2, 0.1])) == 2


# --- the lower-bound families --------------------------------------------------------------------

def test_nested_decoy_runs_are_exact_and_query_the_decoys_first(lower):
    assert [(r.k, r.t) for r in lower.itertuples()] == [(1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (3, 0), (3, 1)]
    assert lower["exact"].all() and lower["decoys_first"].all()
    assert (lower["explicit_size"] == [nested_decoy_parity_size(k, t) for k, t in zip(lower["k"], lower["t"])]).all()
    assert (lower["greedy_size"] >= lower["explicit_size"]).all()
    m = ch01.lower_bound.nested_decoy_measures(lower)
    # the worse outputs: the complete tree in index order never queries decoys first, the explicit tree's ratio never grows
    assert m == {"decoys_first": 1.0, "exact": 1.0, "ratio_grows": 1.0, "decoys_first_index_order": 0.0,
                 "ratio_grows_explicit": 0.0}
    from dtbook.report import VerificationTable, lint_table
    table = VerificationTable()
    ch01.lower_bound.check_nested_decoy(table, lower)
    assert table.failures().empty and lint_table(table) == []
    assert all(r["fails_under_fails"] for r in table.rows if r["kind"] == "theorem")


def test_nested_decoy_measures_catch_a_ratio_that_stops_growing():
    frame = pd.DataFrame({"k": [1, 1, 1, 2, 2], "t": [0, 1, 2, 0, 1], "ratio": [1.0, 2.0, 2.0, 1.0, 3.0],
                          "decoys_first": [True, True, False, True, True], "exact": [True] * 4 + [False]})
    m = ch01.lower_bound.nested_decoy_measures(frame)
    assert m["ratio_grows"] == 0.5 and m["exact"] == 0.8 and m["decoys_first"] == pytest.approx(2 / 3)


def test_nested_decoy_glue_and_figure(lower):
    values = ch01.lower_bound.nested_decoy_glue(lower)
    assert values["ch1_lb_ratio"] == lower["ratio"].max()
    assert values["ch1_lb_at_eps"].startswith("k = 1: ") and values["ch1_lb_at_eps"].count("k = ") == 3
    assert axes_of(ch01.lower_bound.fig_nested(lower)) == 2


def test_selector_runs_cover_every_order_up_to_six_variables_and_a_sample_above(constant):
    ranges = ch01.lower_bound.selector_ranges(constant)
    assert list(dict.fromkeys(constant["eps"])) == [0.1, 0.05]
    by_instance = ranges[ranges["eps"] == 0.1].set_index(["k", "t"])
    assert by_instance.loc[(1, 1), "orders_run"] == 24 and by_instance.loc[(3, 1), "orders_run"] == 720
    assert by_instance.loc[(1, 2), "orders_run"] == 3 and not by_instance.loc[(1, 2), "all_orders"]
    assert len(constant) == (24 + 3 + 120 + 720) * 2
    assert (constant["explicit_gap"] == 0).all() and constant["decoys_first"].all()
    identity = constant[constant["order"] == 0]
    assert identity["error"].notna().all() and (identity["error"] <= identity["eps"]).all()
    assert constant.loc[constant["order"] > 0, "error"].isna().all()
    # the tie-breaking order moves the greedy size: k = 3, t = 1 at ε = 0.05 spans 19 to 25 leaves
    spans = ranges.set_index(["eps", "k", "t"])
    assert (spans.loc[(0.05, 3, 1), "size_min"], spans.loc[(0.05, 3, 1), "size_max"]) == (19, 25)
    with pytest.raises(ValueError, match="n_max"):
        ch01.lower_bound.selector_runs(n_max=3, seed=0, n_orders=2)
    with pytest.raises(ValueError, match="n_orders"):
        ch01.lower_bound.selector_runs(n_max=8, seed=0, n_orders=0)


def test_selector_lockstep_sizes_match_single_runs_under_every_order():
    from dtcore.buildtopdown import build_top_down_dt
    from dtcore.functions import decoy_selector_parity
    f = truth_table(lambda X: decoy_selector_parity(X, 2, 1), 5)
    orders, every = ch01.lower_bound.variable_orders(5, 1, rng=np.random.default_rng(0))
    assert every and len(orders) == 120 and (orders[0] == np.arange(5)).all()
    tables = ch01.lower_bound.permute_variables(f, orders[::17])
    positions = np.argsort(orders[::17], axis=1)[:, :2]
    sizes, first = ch01.lower_bound._greedy_sizes_every_order(tables, [0.1, 0.05], 2, positions)
    for g, row in zip(tables, sizes):  # the lock-step runner against BuildTopDownDT itself
        assert list(row) == [build_top_down_dt(g, eps=e).tree.size for e in (0.1, 0.05)]
    assert first.all()


def test_variable_orders_and_permute_variables_known_answers():
    orders, every = ch01.lower_bound.variable_orders(8, 5, rng=np.random.default_rng(1))
    assert not every and orders.shape == (5, 8) and (orders[0] == np.arange(8)).all()
    assert all(sorted(o) == list(range(8)) for o in orders)
    dictator = truth_table(lambda X: X[:, 0], 3)  # f = x0
    moved = ch01.lower_bound.permute_variables(dictator, np.array([[2, 0, 1]]))[0]  # new x1 stands for old x0
    assert np.array_equal(moved, truth_table(lambda X: X[:, 1], 3))
    with pytest.raises(ValueError, match="f must have"):
        ch01.lower_bound.permute_variables(dictator, np.array([[0, 1]]))
    with pytest.raises(ValueError, match="n_orders"):
        ch01.lower_bound.variable_orders(8, 0, rng=np.random.default_rng(1))


def test_selector_measures_table_glue_and_figures(constant, lower):
    m = ch01.lower_bound.selector_measures(constant)
    assert m["explicit_gap"] == 0.0 and m["decoys_first"] == 1.0 and m["runs"] == 24 + 3 + 120 + 720
    # the worse output: the explicit tree queries the selector, not the decoys, at its top
    assert m["explicit_decoys_first"] == 0.0
    assert m["error_over_eps"] <= 1.0 and m["error_over_eps_high"] == 10.0
    assert list(m["largest_ratio"]) == [0.1, 0.05]
    low, high = m["largest_ratio"][0.05]
    assert high == constant.loc[constant["eps"] == 0.05, "ratio"].max() and low <= high
    styler = ch01.lower_bound.selector_size_table(constant)
    assert list(styler.data.columns) == ["k", "t", "explicit size s", "variable orders", "leaves, ε = 0.1",
                                         "greedy / s, ε = 0.1", "leaves, ε = 0.05", "greedy / s, ε = 0.05"]
    assert styler.data["variable orders"].tolist() == ["all 24", "3 drawn", "all 120", "all 720"]
    assert "19–25" in styler.data["leaves, ε = 0.05"].tolist()
    values = ch01.lower_bound.selector_glue(constant, lower)
    assert values["ch1_ce_n_max"] == 8 and values["ch1_ce_kt_010"].startswith("k = ")
    assert values["ch1_ce_ratio_best_order_005"] == low and values["ch1_ce_ratio_005"] == high
    assert values["ch1_ce_orders"].startswith("every order of its variables for each instance on at most 6 variables, and")
    assert "2 orders drawn" in values["ch1_ce_orders"]
    for key in ("005", "010"):
        assert values[f"ch1_ce_where_{key}"].count("(k, t) = ") >= 1 and "_" not in values[f"ch1_ce_where_{key}"]
    assert {"ch1_ce_slope_005", "ch1_ce_slope_010", "ch1_lb_slope_exact"} <= set(values)
    assert axes_of(ch01.lower_bound.fig_constant_eps(constant)) == 2
    assert axes_of(ch01.lower_bound.fig_exponent(constant, lower)) == 1


def test_selector_glue_says_where_the_blow_up_holds_and_whether_it_grows():
    frame = pd.DataFrame({"k": [1, 1, 2, 2], "t": [1, 2, 1, 2], "n": [4, 8, 5, 10], "eps": 0.1, "order": 0,
                          "all_orders": True, "orders_run": 1, "explicit_size": [6, 16, 10, 28],
                          "greedy_size": [5, 20, 12, 60]})
    frame["ratio"] = frame["greedy_size"] / frame["explicit_size"]
    frame["exponent"] = np.log(frame["greedy_size"]) / np.log(frame["explicit_size"])
    values = ch01.lower_bound.selector_glue(frame)
    assert values["ch1_ce_where_010"] == ("larger than the explicit tree under every order at (k, t) = (1, 2), "
                                          "(2, 1), (2, 2); smaller under every order at (k, t) = (1, 1)")
    assert values["ch1_ce_growth_010"] == "rises with t under every order for k = 1, 2"
    values = ch01.lower_bound.selector_glue(frame.assign(greedy_size=[5, 4, 12, 60],
                                             ratio=lambda d: d["greedy_size"] / d["explicit_size"]))
    assert values["ch1_ce_growth_010"] == ("rises with t under every order for k = 2, and does not for k = 1 "
                                           "(its ranges at consecutive t overlap or fall)")
    assert values["ch1_ce_greedy_010"] == "60" and values["ch1_ce_explicit_010"] == 28


def test_exponent_trends_fit_a_line_in_log2_s():
    constant = pd.DataFrame({"eps": 0.1, "explicit_size": [4.0, 16.0], "exponent": [1.0, 1.5]})
    lower = pd.DataFrame({"t": [0, 1, 2], "explicit_size": [4, 4, 16], "greedy_size": [4, 16, 16 ** 2]})
    trends = ch01.lower_bound.exponent_trends(constant, lower).set_index("series")
    assert trends.loc["decoy selector, ε = 0.1", "slope"] == pytest.approx(0.25)  # +0.5 over two doublings
    assert trends.loc["nested decoys, exact", "slope"] == pytest.approx(0.0)  # exponent 2 at both sizes


# --- the stop rule and the labels, recomputed -----------------------------------------------------

def test_lemma51_task_recounts_the_score_on_the_cut_out_subfunction():
    rng = np.random.default_rng(4)
    for kind in ch01.lemma51.LEMMA51_KINDS:
        row = ch01.lemma51.lemma51_task(kind, N, rng=rng)
        assert abs(row["drop"] - row["score_direct"]) <= 1e-12 and abs(row["score"] - row["score_direct"]) <= 1e-12


def test_lemma51_measures_drop_gap_direct_known_answer():
    frame = pd.DataFrame({"kind": ["a", "b"], "error": [0.1, 0.2], "cost": [0.5, 0.5], "drop": [0.1, 0.3],
                          "score": [0.1, 0.3], "score_direct": [0.1, 0.2]})
    assert ch01.lemma51.lemma51_measures(frame)["drop_gap_direct"] == pytest.approx(0.1)
    assert math.isnan(ch01.lemma51.lemma51_measures(frame.drop(columns="score_direct"))["drop_gap_direct"])


def test_lemma_run_task_stops_at_the_first_eps_close_frontier_with_majority_labels():
    frame = pd.DataFrame(ch01.lemmas52_54.lemma_run_task("random tree", 8, N, 0.05, rng=np.random.default_rng(2)))
    assert (frame["stop_gap"] == 0).all() and (frame["label_gap"] <= 1e-12).all()


def test_lemma_run_measures_stop_and_label_gaps_once_per_run():
    frame = pd.DataFrame({"family": ["a", "a", "b"], "s": [4, 4, 4], "k": [np.nan] * 3, "t": [np.nan] * 3,
                          "rep": [0, 0, 0], "greedy_gap": [0.0] * 3, "trace_gap": [0.0] * 3,
                          "lemma52_ratio": [3.0, 2.0, 5.0], "lemma54_ratio": [np.nan, 4.0, np.nan],
                          "final_error": [0.01] * 3, "error_before_last_split": [0.2] * 3,
                          "stop_gap": [0, 7, 2], "label_gap": [0.0, 1.0, 0.25]})
    m = ch01.lemmas52_54.lemma_run_measures(frame)
    assert m["stop_gap"] == 2 and m["label_gap"] == 0.25 and m["runs"] == 2


def test_theorem3_measures_name_the_worst_biting_run():
    frame = pd.DataFrame({"family": ["random tree", "parity", "parity"], "s": [2, 4, 8], "eps": [0.45, 0.3, 0.1],
                          "log2_size": [1.0, 2.0, 3.0], "log2_bound": [2.0, 2.5, 40.0], "bites": [True, True, False],
                          "error": [0.1, 0.1, 0.05]})
    m = ch01.theorem3.theorem3_measures(frame, n=6)
    assert m["size_over_bound"] == pytest.approx(2 ** -0.5)
    assert m["size_over_bound_at"].startswith("parity, s = 4, ε = 0.3")
    # the worse output: the complete tree (2^6 leaves) at that run exceeds its bound 2^2.5
    assert m["complete_over_bound"] == pytest.approx(2 ** 3.5)
    from dtbook.report import VerificationTable, lint_table
    table = VerificationTable()
    ch01.theorem3.check_theorem3(table, frame, n=6)
    assert table.rows[0]["kind"] == "theorem" and table.rows[0]["fails_under_fails"] and lint_table(table) == []


# --- every function on n <= 3 variables (the chapter runs n = 4) ---------------------------------

@pytest.fixture(scope="module")
def suprema() -> pd.DataFrame:
    return ch01.suprema.exhaustive_suprema(n=3)


def test_exhaustive_suprema_known_answers_on_three_variables(suprema):
    assert list(suprema["key"]) == list(ch01.suprema.EXHAUSTIVE_RESULTS)
    by_key = suprema.set_index("key")
    # the dictator: error 1/2 against cost 1, and OSSS with equality (Var = 1, log2 2 = 1, Inf = 1)
    assert by_key.loc["Lemma 5.1(1)", "sup_ratio"] == 0.5 and by_key.loc["Lemma 5.1(1)", "s"] == 2
    assert by_key.loc["OSSS inequality", "sup_ratio"] == pytest.approx(1.0)
    assert (suprema["sup_ratio"] <= 1 + 1e-9).all() and (suprema["cpu_seconds"] > 0).all()
    with pytest.raises(ValueError, match="n"):
        ch01.suprema.exhaustive_suprema(n=5)


def test_exhaustive_check_rows_pass_the_table_and_its_lint(suprema):
    from dtbook.report import VerificationTable, lint_table
    table = VerificationTable()
    for key in ch01.suprema.EXHAUSTIVE_RESULTS:
        check = ch01.suprema.exhaustive_check(suprema, key)
        assert check["bound"] == 1.0 and check["reach"][0] == 0.0
        assert check["worst_case"].startswith("f = ") and "256 functions" in check["worst_case"]
        if key == "Lemma 5.3":  # on n = 3 its ratio cannot exceed n/3 = 1: the table refuses a vacuous check
            with pytest.raises(ValueError, match="outside the reach"):
                table.theorem(**check)
            continue
        assert table.theorem(**check)
    frame = table.frame().set_index("result")
    # lower bounds are shown as min measured/bound: the reciprocal of the supremum
    assert frame.loc["Lemma 5.2", "measured"] == pytest.approx(1 / suprema.set_index("key").loc["Lemma 5.2", "sup_ratio"])
    assert frame.loc["OSSS inequality", "reach_high"] == 3.0 and frame.loc["Lemma 5.1(1)", "reach_high"] == 2.0
    # every row fails on its worse output (the least influential variable, the label-inverted completion)
    assert frame["fails_under_fails"].all() and lint_table(table) == []
    assert frame.loc["OSSS inequality", "fails_under_value"] == 0.0 and frame.loc["Lemma 5.2", "fails_under_value"] == 0.0
    assert frame.loc["Lemma 5.1(1)", "fails_under_value"] > 1 and "label-inverted" in frame.loc["Lemma 5.1(1)", "fails_under"]
    with pytest.raises(ValueError, match="key"):
        ch01.suprema.exhaustive_check(suprema, "Lemma 5.5")


def test_exhaustive_glue_one_sentence_per_result(suprema):
    values = ch01.suprema.exhaustive_glue(suprema)
    assert set(values) == {"ch1_ex_lemma_511", "ch1_ex_osss_inequality", "ch1_ex_lemma_53", "ch1_ex_lemma_52",
                           "ch1_ex_lemma_54", "ch1_ex_seconds"}
    assert "256 functions on 3 variables" in values["ch1_ex_lemma_511"] and "slack by 2" in values["ch1_ex_lemma_511"]
    assert values["ch1_ex_osss_inequality"].endswith("tight")


# --- Theorem 3's proof at its worst over every function on n <= 3 --------------------------------

@pytest.fixture(scope="module")
def phases() -> pd.DataFrame:
    return ch01.theorem3.theorem3_phases(n=3)


def test_theorem3_phases_hold_with_known_answers_on_three_variables(phases):
    by_key = phases.set_index("key")
    assert set(ch01.theorem3.THEOREM3_STEPS) < set(by_key.index)
    assert (phases["sup_ratio"] <= 1 + 1e-9).all() and (phases["cases"] > 0).all()
    # C0 = Inf(f) <= log2 s is an equality at a dictator (Inf = 1, s = 2); error <= Var has room 2 (q = 1/2)
    assert by_key.loc["initial cost", "sup_ratio"] == pytest.approx(1.0)
    assert by_key.loc["error over variance", "sup_ratio"] == pytest.approx(0.5)
    # a phase 1 of one split meets its count ceil(x) = 2 for x in (1, 2]
    assert by_key.loc["phase 1 leaves (one split)", "sup_ratio"] == pytest.approx(1.0)
    assert by_key.loc["phase 1 leaves", "sup_ratio"] < 1
    with pytest.raises(ValueError, match="n"):
        ch01.theorem3.theorem3_phases(n=5)


def test_theorem3_phase_rows_pass_the_table_and_its_lint(phases):
    from dtbook.report import VerificationTable, lint_table
    table = VerificationTable()
    for key in ch01.theorem3.THEOREM3_STEPS:
        check = ch01.theorem3.theorem3_phase_check(phases, key)
        assert check["worst_case"].startswith("f = ") and "256 functions on n = 3" in check["worst_case"]
        assert table.theorem(**check, box="thm-blt-3")
    # each step fails when each selected leaf is split on its least influential variable (C0: when s is taken as 2)
    counted = [r for r in table.rows if not r["quantity"].startswith("min over every split")]  # the drops: observations
    assert len(counted) == 3 and all(r["fails_under_fails"] for r in counted)
    assert lint_table(counted) == []
    with pytest.raises(ValueError, match="key"):
        ch01.theorem3.theorem3_phase_check(phases, "phase 3")


def test_theorem3_phase_rows_fail_when_the_proof_claims_more(phases):
    """The rows can fail: a supremum above 1 (as a bound too small would give) fails its row."""
    from dtbook.report import VerificationTable
    broken = phases.copy()
    broken.loc[broken["key"] == "phase 1 leaves", "sup_ratio"] = 1.5
    table = VerificationTable()
    table.theorem(**ch01.theorem3.theorem3_phase_check(broken, "phase 1 leaves"), box="thm-blt-3")
    with pytest.raises(AssertionError):
        table.assert_all(allow_legacy=False)


def test_theorem3_phase_table_and_glue(phases):
    styler = ch01.theorem3.theorem3_phase_table(phases)
    assert len(styler.data) == 6 and "eps" not in styler.to_html()
    values = ch01.theorem3.theorem3_phase_glue(phases)
    assert values["ch1_t3p_initial_cost"] == pytest.approx(1.0)
    assert values["ch1_t3p_phase1_room"] == pytest.approx(1 / values["ch1_t3p_phase_1_leaves"])
    assert values["ch1_t3p_room_phase_1_drop"] == pytest.approx(1 / values["ch1_t3p_phase_1_drop"])
    assert values["ch1_t3p_initial_witness"].startswith("f = ") and values["ch1_t3p_seconds"] > 0


def test_theorem3_phase_bounds_known_answers():
    from dtcore import bounds
    assert bounds.blt20_initial_cost_upper(8) == pytest.approx(3.0)
    with pytest.raises(ValueError, match="s must be"):
        bounds.blt20_initial_cost_upper(1)
    a, b = math.log2(4 * 4 / 0.1), 2.0
    assert bounds.blt20_theorem3_phase1_leaves(4, 0.1, 0.05) == 1.0  # C0 <= eps A: phase 1 is empty
    assert bounds.blt20_theorem3_phase1_leaves(4, 0.1, 1.0) == math.ceil((1.0 / (0.1 * a)) ** (a * b))
    assert bounds.blt20_theorem3_phase2_harmonic(4, 0.25, 0.75) == pytest.approx(2 * (3 - 1))
    with pytest.raises(ValueError, match="initial_cost"):
        bounds.blt20_theorem3_phase1_leaves(4, 0.1, -1.0)


def test_theorem3_phase_counts_of_single_runs_stay_within_the_exhaustive_supremum(phases):
    """Recount phase 1 from BuildTopDownDT's own trace on a few functions and errors: never above the supremum."""
    from dtcore import bounds
    from dtcore.buildtopdown import build_top_down_dt
    from dtcore import exhaustive as ex
    rng = np.random.default_rng(3)
    tables = ex.all_tables(3)[rng.choice(256, 30, replace=False)]
    sizes = ex.optimal_trees(tables).root_size
    worst_seen = 0.0
    for f, s in zip(tables, sizes):
        if s < 2:
            continue
        for eps in (0.05, 0.1, 0.2, 0.3, 0.45):
            trace = build_top_down_dt(f, eps=eps).trace
            threshold = eps * math.log2(4 * s / eps)
            ends = trace.loc[trace["cost"] <= threshold, "leaves"]
            phase1_end = int(ends.iloc[0]) if len(ends) else int(trace["leaves"].iloc[-1])
            if phase1_end >= 3:
                ratio = phase1_end / bounds.blt20_theorem3_phase1_leaves(s, eps, float(trace["cost"].iloc[0]))
                worst_seen = max(worst_seen, ratio)
    assert worst_seen <= phases.set_index("key").loc["phase 1 leaves", "sup_ratio"] + 1e-12


def test_nested_decoy_table_is_readable(lower):
    styler = ch01.lower_bound.nested_decoy_table(lower)
    assert not any("_" in str(c) for c in styler.data.columns) and len(styler.data) == len(lower)
    assert set(styler.data["top k levels only decoys"]) <= {"yes", "no", "—"}
    assert "True" not in styler.to_html() and "False" not in styler.to_html()
