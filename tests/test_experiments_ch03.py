"""Chapter 3's experiments (the package dtbook.experiments.ch03) at small sizes: known answers and invariants."""

import fractions
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from dtcore import bounds
from dtbook import figures, seeds
from dtbook.experiments.ch03 import (common, corollary_4_1, fact_4_3, facts, lemma_2_1, lemma_3_1, lemma_3_2,
                                          lower_bound, proposition_5_1, suprema, table_1, table_1_exponents,
                                          theorem_4, theorems_1_3)
from dtbook.report import VerificationTable, lint_table
from dtcore.noise import ADVERSARIES
from dtcore.polyreg import n_monomials
from dtcore.stochastic import deterministic_depths, mean_table, opt, random_stochastic_tree, sample


@pytest.fixture(scope="module")
def target():
    return random_stochastic_tree(5, 4, 1, rng=np.random.default_rng(0), max_depth=2)


@pytest.fixture(scope="module")
def setting(target):
    return table_1.noisy_setting(target, m=200, depth=2, degree=1, delta=0.05)


@pytest.fixture(scope="module")
def clean(setting):
    # the clean samples of two repetitions, drawn as table_1.table1_runs draws them at seed 0
    return [sample(setting.target, setting.m, rng=rng) for rng in seeds.experiment_streams(0, "ch03/table1_clean", 2)]


@pytest.fixture(scope="module")
def runs(setting):
    return table_1.table1_runs(setting, eta_grid=[0.0, 0.05, 0.1], repetitions=1, seed=0, n_jobs=1)


@pytest.fixture(scope="module")
def pair_setting():
    return lower_bound.pair_setting(n=5, m=120, eta_grid=[0.0, 0.1], depth=2, degree=1)


@pytest.fixture(scope="module")
def pair(pair_setting):
    return lower_bound.lower_bound_runs(pair_setting, pair_repetitions=2, seed=0, n_jobs=1)


def _is_book_figure(fig) -> bool:
    ok = isinstance(fig, Figure) and fig.get_figwidth() == figures.WIDTH
    plt.close(fig)
    return ok


# --- helpers ------------------------------------------------------------------------------------

def test_experiment_streams_depend_on_seed_key_and_position_only():
    first = [g.random(3) for g in seeds.experiment_streams(5, "ch03/x", 2)]
    again = [g.random(3) for g in seeds.experiment_streams(5, "ch03/x", 4)]
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
    assert not np.array_equal(first[0], first[1])
    assert not np.array_equal(first[0], seeds.experiment_streams(5, "ch03/y", 1)[0].random(3))
    assert not np.array_equal(first[0], seeds.experiment_streams(6, "ch03/x", 1)[0].random(3))
    with pytest.raises(ValueError, match="count"):
        seeds.experiment_streams(5, "ch03/x", 0)


def test_theorem_or_observation_counts_a_bound_below_the_reach_top_and_shows_one_at_it():
    table = VerificationTable()
    for measured, bound in ((0.2, 0.5), (0.2, 1.0), (0.7, 0.5)):
        common.theorem_or_observation(table, "R", "q", measured, bound, reach=(0.0, 1.0), measured_by="mod.measure",
                                    bound_by="mod.bound", why="vacuous", worst_case="here")
    frame = table.frame()
    assert frame["kind"].tolist() == ["theorem", "observation", "theorem"]
    assert frame["holds"].tolist() == [True, True, False]
    assert frame.loc[1, "note"] == "vacuous"
    assert frame.loc[0, "measured_by"] == "mod.measure" and frame.loc[0, "bound_by"] == "mod.bound"
    assert frame.loc[0, "worst_case"] == "here" and not frame["legacy"].any()
    with pytest.raises(ValueError, match="same"):   # a shared function is refused, not counted
        common.theorem_or_observation(table, "R", "q", 0.2, 0.5, reach=(0.0, 1.0), measured_by="mod.f", bound_by="f",
                                    why="vacuous")


def test_time_best_calls_repeat_times_and_returns_a_small_positive_time():
    calls = []
    seconds = common.time_best(lambda: calls.append(1), repeat=4)
    assert len(calls) == 4 and 0 <= seconds < 1
    with pytest.raises(ValueError, match="repeat"):
        common.time_best(lambda: None, repeat=0)


# --- the target and Fact 1.2 --------------------------------------------------------------------

def test_target_glue_and_figures(target):
    mu = mean_table(target)
    values = facts.target_glue(target, mu, n_stochastic=1, target_depth=2)
    assert values["ch3_size"] == 4 and values["ch3_opt"] == opt(mu)
    assert values["ch3_frac_noisy"] == np.mean((mu > 0) & (mu < 1)) > 0  # one coin: some points are random
    assert _is_book_figure(facts.target_figure(target))
    assert _is_book_figure(facts.mean_histogram_figure(mu))
    with pytest.raises(ValueError, match="mu"):
        facts.mean_histogram_figure(np.zeros((2, 2)))


def test_fact_1_2_holds_on_every_tree_and_both_computations_agree():
    fact = facts.fact_1_2_trees(n=5, size=4, n_stochastic=1, target_depth=2, rng=np.random.default_rng(1), n_trees=3)
    assert len(fact) == 3 * len(facts.FACT_NOISE_SCALES)
    assert (fact["excess"] <= fact["bound"] + 1e-12).all()              # Fact 1.2
    assert (fact["stochastic_excess"] >= -1e-12).all()                  # Fact 1.1: nothing beats opt
    assert fact["mu_two_ways"].max() < 1e-12 and fact["opt_two_ways"].max() < 1e-12
    assert facts.fact_1_2_ratio(fact) <= 1.0
    assert _is_book_figure(facts.fact_1_2_figure(fact))


def test_fact_1_2_ratio_is_the_largest_excess_over_bound():
    assert facts.fact_1_2_ratio(pd.DataFrame({"excess": [0.125, 0.375], "bound": [0.25, 0.5]})) == 0.75


# --- Facts 1.1, 1.2 and Lemma 2.1 over every small stochastic tree -------------------------------

@pytest.fixture(scope="module")
def exhaustive():
    frame, seconds = suprema.exhaustive_suprema(depth=2, coins=(0.25, 0.5), copies=(1, 4))
    assert seconds >= 0
    return frame


def test_exhaustive_suprema_are_attained_and_counted(exhaustive):
    assert sorted(exhaustive.index) == sorted(suprema.EXHAUSTIVE_FORMS)
    assert (exhaustive["sup_ratio"] <= 1 + 1e-6).all() and (exhaustive["sup_ratio"] >= 1 - 1e-6).all()
    table = VerificationTable()
    assert all(suprema.check_exhaustive(table, exhaustive, r, copies=(1, 4)) for r in suprema.EXHAUSTIVE_FORMS)
    frame = table.frame()
    # Fact 1.1 holds by algebra pointwise: shown, not counted
    assert frame["kind"].tolist() == ["observation", "theorem", "theorem"] and table.failures().empty
    assert not lint_table(table)
    assert all("μ_T" in w or "mu_T" in w for w in frame["worst_case"])
    with pytest.raises(ValueError, match="result"):
        suprema.check_exhaustive(table, exhaustive, "Fact 9")


def test_exhaustive_rows_fail_above_the_bound(exhaustive):
    broken = exhaustive.copy()
    broken["sup_ratio"] = 1.01
    table = VerificationTable()
    assert not any([suprema.check_exhaustive(table, broken, r, copies=(1, 4)) for r in ("Fact 1.2", "Lemma 2.1")])
    assert len(table.failures()) == 2


def test_exhaustive_glue_has_each_supremum_and_witness(exhaustive):
    glued = suprema.exhaustive_glue(exhaustive)
    for key in ("fact11", "fact12", "lemma21"):
        assert glued[f"ch3_exh_{key}_sup"] == pytest.approx(1.0, abs=1e-6)
        assert glued[f"ch3_exh_{key}_witness"].startswith("μ_T = (")


# --- Lemma 2.1 ----------------------------------------------------------------------------------

def test_lemma_2_1_stacks_of_a_deterministic_tree_are_the_tree():
    tree = random_stochastic_tree(5, 4, 0, rng=np.random.default_rng(2))
    lemma = lemma_2_1.lemma_2_1_stacks(tree, c_grid=[1, 2], lemma_draws=2, rng=np.random.default_rng(3))
    assert len(lemma) == 4 and (lemma["l1"] == 0).all()
    assert (lemma["size"] <= tree.size).all() and not lemma["coins_inside"].any()
    assert lemma["log2_size_bound"].tolist() == [2.0, 2.0, 4.0, 4.0]


def test_lemma_2_1_stacks_summary_glue_and_figure(target):
    lemma = lemma_2_1.lemma_2_1_stacks(target, c_grid=[1, 4], lemma_draws=3, rng=np.random.default_rng(4))
    assert lemma["stack_vs_average"].max() < 1e-12 and not lemma["coins_inside"].any()
    summary = lemma_2_1.lemma_2_1_summary(lemma)
    assert summary.index.tolist() == [1, 4]
    assert summary.loc[4, "bound"] == bounds.blt21_lemma21_expected_l1(4) == 0.25
    assert summary.loc[1, "mean_l1"] == pytest.approx(lemma.loc[lemma.c == 1, "l1"].mean())
    assert summary.loc[1, "best_l1"] <= summary.loc[1, "mean_l1"]
    values = lemma_2_1.lemma_2_1_glue(summary, lemma_draws=3, c_grid=[1, 4])
    assert values["ch3_lemma_cmax"] == 4 and values["ch3_lemma_bound_cmax"] == 0.25
    assert values["ch3_lemma_size_cmax"] == summary.loc[4, "max_size"]
    assert _is_book_figure(lemma_2_1.lemma_2_1_figure(lemma, summary, n=5))


# --- FIND ---------------------------------------------------------------------------------------

def test_find_crosscheck_agrees_with_both_references(target):
    cross = lemma_3_1.find_crosscheck(target, m=150, rng=np.random.default_rng(5), n_small_cases=3, n_target_samples=1)
    assert (cross["difference"] == 0).all()
    assert set(cross["check"]) == {"brute force", "pystreed"}
    assert (cross["check"] == "pystreed").sum() == 3 and (cross.loc[cross.check == "pystreed", "n"] == 9).all()
    summary = lemma_3_1.find_crosscheck_summary(cross)
    assert summary["cases"].sum() == len(cross) and (summary["max_abs_difference"] == 0).all()


def test_find_timing_grid_and_slopes():
    timing = lemma_3_2.find_timing(benchmark_m=50, rng=np.random.default_rng(6), depths=(1,), dims=(4,))
    assert timing["m"].tolist() == [10, 20, 40] and (timing["seconds"] > 0).all()
    grid = pd.DataFrame([{"d": 3, "n": n, "m": m, "seconds": 1e-9 * m * n**3}
                         for n in (8, 16, 32) for m in (200, 400, 800)])
    slope_m, slope_n = lemma_3_2.find_timing_slopes(grid, benchmark_m=1000)
    assert slope_m == pytest.approx(1.0) and slope_n == pytest.approx(3.0)
    assert _is_book_figure(lemma_3_2.find_timing_figure(grid.assign(d=3), benchmark_m=1000))


def test_find_vs_pystreed_agree_and_glue():
    bench = lemma_3_1.find_vs_pystreed(benchmark_m=200, rng=np.random.default_rng(7), cases=((6, 2), (4, 3)))
    assert (bench["FIND errors"] == bench["pystreed errors"]).all()
    assert bench["ratio FIND / pystreed"].tolist() == pytest.approx((bench["FIND seconds"] / bench["pystreed seconds"]).tolist())
    values = lemma_3_1.find_vs_pystreed_glue(bench)
    assert values["ch3_bench_m"] == 200 and values["ch3_find_d3"] == bench["FIND seconds"].iloc[0]


# --- Table 1 ------------------------------------------------------------------------------------

def test_noisy_setting_epsilons_and_final_bounds(target, setting):
    mu = mean_table(target)
    assert setting.opt == opt(mu)
    assert setting.approx_excess == pytest.approx(0.0, abs=1e-12)   # FIND's depth = the target's query depth
    assert setting.eps_find == setting.approx_excess + 2 * setting.gamma
    assert setting.gamma_1 < setting.gamma and 0 <= setting.a2 <= setting.a1 <= 1
    final = setting.final_bounds(0.1)
    assert final["FIND"] == pytest.approx(setting.opt + 0.2 + setting.eps_find)
    assert final["L1 regression"] == pytest.approx(2 * setting.opt + 0.2 + setting.a1 + setting.eps_54 + setting.gamma_1)
    assert final["L2 (low-degree)"] == pytest.approx(
        setting.opt + 2 * math.sqrt(0.2 + setting.a2 + setting.eps_52 + setting.gamma_1))


def test_run_learners_spends_the_budget_and_satisfies_the_sample_chain(setting, clean):
    rows = table_1.run_learners(rng=np.random.default_rng(8), rep=0, adversary="find", eta=0.1, setting=setting,
                              clean=clean)
    assert [r["algorithm"] for r in rows] == list(common.LEARNERS)
    for r in rows:
        assert r["changed"] == r["budget"] == 20
        assert r["sample_lhs"] <= r["sample_rhs"] + 1e-9       # Fact 4.3 chain: holds on every sample
        assert 0 <= r["error"] <= 1
    assert [r["proper"] for r in rows] == [True, False, False]
    assert all(r["optimality_ratio"] <= 1 + 1e-7 for r in rows[1:])
    assert all(0 <= r["optimality_excess"] <= 1e-7 for r in rows[1:]) and math.isnan(rows[0]["optimality_excess"])


def test_run_learners_share_the_clean_sample_of_a_repetition(setting, clean):
    # with no corruption the adversary's stream is unused: two runs of one repetition see the same sample
    one = table_1.run_learners(rng=np.random.default_rng(1), rep=0, adversary="random", eta=0.0, setting=setting,
                              clean=clean)
    two = table_1.run_learners(rng=np.random.default_rng(2), rep=0, adversary="random", eta=0.0, setting=setting,
                              clean=clean)
    other = table_1.run_learners(rng=np.random.default_rng(1), rep=1, adversary="random", eta=0.0, setting=setting,
                              clean=clean)
    assert pd.DataFrame(one).equals(pd.DataFrame(two)) and not pd.DataFrame(one).equals(pd.DataFrame(other))


def test_table1_runs_grid_and_excess(runs, setting):
    # eta = 0 once (first adversary), each adversary at each positive eta; three learners per run
    assert len(runs) == 3 * (1 + 2 * len(ADVERSARIES))
    assert np.allclose(runs["excess"], runs["error"] - setting.opt)
    assert (runs["changed"] == runs["budget"]).all()
    values = table_1.noisy_setting_glue(setting, runs)
    assert values["ch3_n_runs"] == len(runs) and values["ch3_two_gamma"] == 2 * setting.gamma


def test_exponent_fits_recover_a_power_law_without_clipping_and_count_zeros():
    rows = [{"algorithm": name, "adversary": "random", "eta": eta, "rep": r,
             "excess": (3 * eta**2 if name == "FIND" else eta) * (1 + 0.01 * r)}
            for name in common.LEARNERS for eta in (0.02, 0.05, 0.1, 0.2) for r in range(3)]
    rows += [{"algorithm": "FIND", "adversary": "random", "eta": 0.01, "rep": 0, "excess": 0.0}]
    fits = table_1_exponents.exponent_fits(pd.DataFrame(rows)).set_index("algorithm")
    assert fits.loc["FIND", "exponent"] == pytest.approx(2.0, abs=0.01) and fits.loc["FIND", "zero excess"] == 1
    assert fits.loc["L1 regression", "low"] < 1.0 < fits.loc["L1 regression", "high"]
    assert fits.loc["L2 (low-degree)", "zero excess"] == 0 and fits.loc["FIND", "runs"] == 13
    values = table_1_exponents.exponent_glue(fits.reset_index(), reps=3, etas=[0.02, 0.05, 0.1, 0.2])
    assert "above 1/2" in values["ch3_exp_verdict"] and values["ch3_exp_FIND_zero"] == 1


def test_exponent_runs_and_figure(setting, runs):
    strongest = table_1_exponents.strongest_adversaries(runs)
    assert set(strongest) == set(common.LEARNERS) and set(strongest.values()) <= set(ADVERSARIES)
    exp_runs = table_1_exponents.exponent_runs(setting, etas=[0.05, 0.1], reps=2, adversaries=strongest, seed=0)
    assert len(exp_runs) == 3 * 2 * 2 and (exp_runs["excess"] >= -1e-12).all()
    again = table_1_exponents.exponent_runs(setting, etas=[0.05, 0.1], reps=2, adversaries=strongest, seed=0)
    pd.testing.assert_frame_equal(exp_runs, again)
    assert _is_book_figure(table_1_exponents.exponent_figure(exp_runs, table_1_exponents.exponent_fits(exp_runs)))


def test_table1_figure(runs, setting):
    assert _is_book_figure(table_1.table1_figure(runs, setting, eta_grid=[0.0, 0.05, 0.1]))


def test_learner_worsts_takes_maxima_and_keeps_nan():
    runs = pd.DataFrame({"algorithm": ["FIND", "FIND", "L2 (low-degree)", "L1 regression", "L1 regression"],
                         "eta": [0.0, 0.1, 0.1, 0.1, 0.2], "sample_lhs": [9.0, 0.2, 0.1, 0.3, 0.1],
                         "sample_rhs": [1.0, 0.4, 0.2, 0.6, 0.5], "optimality_ratio": [np.nan, np.nan, 0.9, 0.8, np.nan],
                         "optimality_excess": [np.nan, np.nan, 0.0, 1e-3, 0.0],
                         "gap_fit": [0.1, 0.2, 0.3, 0.4, 0.5], "gap_q": [0.0, 0.1, 0.0, 0.2, 0.1]})
    worsts = table_1.learner_worsts(runs)
    assert worsts.loc["FIND", "chain"] == 0.5          # eta = 0 is left out of the chain
    assert worsts.loc["L1 regression", "gap_fit"] == 0.5 and worsts.loc["L1 regression", "chain"] == 0.5
    assert worsts.loc["L2 (low-degree)", "optimality"] == 0.9
    assert worsts.loc["L1 regression", "optimality_excess"] == 1e-3
    assert math.isnan(worsts.loc["L1 regression", "optimality"])   # a NaN fails its row, never hides


def test_uniform_convergence_and_final_error_bounds(runs, setting):
    uc = table_1.uniform_convergence_bounds(setting)
    assert uc.loc["FIND", "eps"] == uc.loc["FIND", "comparator_bound"] == setting.gamma
    assert uc.loc["L1 regression", "eps"] == setting.eps_54 and uc.loc["L2 (low-degree)", "comparator_bound"] == setting.gamma_1
    table = VerificationTable()   # each side names its own functions: the rows are accepted as theorem checks
    for name, u in uc.iterrows():
        table.theorem(u["lemma"], name, 0.0, 0.5, reach=(0.0, 1.0), measured_by=u["fit_by"], bound_by=u["eps_by"])
        table.theorem(u["comparator_result"], name, 0.0, 0.5, reach=(0.0, 1.0), measured_by=u["comparator_by"],
                      bound_by="dtcore.bounds.blt21_lemma42_uniform_deviation")
    assert set(table_1.CHAIN_WHY) == set(table_1.FINAL_WHY) == set(common.LEARNERS)
    final = table_1.final_error_bounds(runs, setting)
    assert len(final) == 3 * 3
    first = final.iloc[0]
    assert (first["algorithm"], first["eta"], first["result"]) == ("FIND", 0.0, "Theorem 1")
    assert set(final.loc[final.algorithm != "FIND", "result"]) == {"Theorem 4"}
    for _, row in final.iterrows():
        assert row["bound"] == setting.final_bounds(row["eta"])[row["algorithm"]]
        assert row["worst_error"] == runs[(runs.algorithm == row["algorithm"]) & (runs.eta == row["eta"])]["error"].max()


def test_learner_seconds_table1_frame_style_and_glue(target, runs, setting):
    seconds = table_1.learner_seconds(target, m=150, depth=2, degree=1, rng=np.random.default_rng(0))
    assert set(seconds) == {(name, label) for name in common.LEARNERS for label in ("n", "n+4")}
    assert all(s > 0 for s in seconds.values())
    table1 = table_1.table1_frame(runs, seconds, n=5, eta_grid=[0.0, 0.05, 0.1])
    assert len(table1) == 4 and table1["returns a tree"].tolist() == [False, False, False, True]
    assert math.isnan(table1.loc[2, "seconds at n=5"]) and "worst error, η=0.05" in table1.columns
    html = table_1.table1_style(table1).to_html()
    assert "not run" in html and ">yes<" in html and "True" not in html and "False" not in html
    values = table_1.table1_glue(runs, seconds, setting, eta_grid=[0.0, 0.05, 0.1])
    find_at_max = runs[(runs.algorithm == "FIND") & (runs.eta == 0.1)]
    assert values["ch3_excess_F"] == pytest.approx(find_at_max["error"].max() - setting.opt)
    assert values["ch3_strongest_adv"] in common.ADVERSARY_LABELS.values() and values["ch3_etamax"] == 0.1
    assert r'<span class="math notranslate nohighlight">\(\mathrm{opt} + 2\eta + \varepsilon\)</span>' in html
    assert "n^O(" not in html   # typeset, not ASCII


def test_adversaries_have_words_and_colours_without_a_red_green_pair():
    assert set(common.ADVERSARY_LABELS) == set(ADVERSARIES)
    assert set(common.ADVERSARY_COLOURS) == set(common.ADVERSARY_LABELS.values())
    colours = set(common.ADVERSARY_COLOURS.values())
    assert not {"#009E73", "#D55E00"} <= colours and common.adversary_label("point_mass") == "point mass"


# --- the depth FIND needs ---------------------------------------------------------------------------

def test_deep_target_has_stochastic_leaves_on_both_sides_of_a_half():
    deep = corollary_4_1.deep_target(n=6, deep_depth=3, rng=np.random.default_rng(9))
    leaves = np.array([deep.value[leaf] for leaf in deep.leaves()])
    assert deep.size == 2**1 + 3 and not deep.has_stochastic_nodes and deterministic_depths(deep).max() == 3
    assert corollary_4_1.deep_target(n=8, deep_depth=5, rng=np.random.default_rng(9)).size * 2.0**-5 < 0.5   # Corollary 4.1's ε
    assert (((0.05 <= leaves) & (leaves <= 0.3)) | ((0.7 <= leaves) & (leaves <= 0.95))).all()


def test_depth_sweep_reaches_opt_at_the_target_depth_and_obeys_corollary_4_1():
    deep = corollary_4_1.deep_target(n=6, deep_depth=3, rng=np.random.default_rng(10))
    sweep_frame = corollary_4_1.depth_sweep(deep, m=300, deep_depth=3, repetitions=2, delta=0.05, seed=0)
    assert len(sweep_frame) == 3 * 2
    assert (sweep_frame["best_excess"] <= sweep_frame["truncation_bound"] + 1e-12).all()
    per_d = corollary_4_1.depth_sweep_summary(sweep_frame)
    # no depth-d tree does worse than the best constant: the reach of the best tree's excess
    assert (per_d["best_excess"] <= per_d["constant_excess"] + 1e-12).all()
    mu = mean_table(deep)
    assert per_d.loc[1, "constant_excess"] == pytest.approx(min(mu.mean(), 1 - mu.mean()) - opt(mu))
    assert per_d.loc[1, "opt"] == pytest.approx(opt(mu))
    assert per_d.loc[3, "best_excess"] == pytest.approx(0.0, abs=1e-12)
    assert per_d.loc[3, "truncation_bound"] == 0.0
    values = corollary_4_1.depth_sweep_glue(deep, per_d, deep_depth=3, repetitions=2)
    assert values["ch3_deep_eps"] == deep.size / 8 and values["ch3_deep_find_best_d"] in (1, 2, 3)
    assert _is_book_figure(corollary_4_1.depth_sweep_figure(sweep_frame, per_d))


# --- the indistinguishable pair -----------------------------------------------------------------

@pytest.mark.parametrize("eta_grid, depth, codim", [([0.0, 0.2], 2, 2), ([0.05], 3, 3), ([0.0], 2, 2)])
def test_pair_setting_puts_the_region_at_finds_depth(eta_grid, depth, codim):
    setting = lower_bound.pair_setting(n=8, m=5000, eta_grid=eta_grid, depth=depth, degree=1)
    assert setting.codim == codim and setting.m == lower_bound.PAIR_M_MAX and setting.eta_pair == lower_bound.PAIR_T * 2.0**-codim
    assert setting.eta == (setting.eta_pair / 0.75 if max(eta_grid) > 0 else 0.0)


def test_run_pair_equalizes_the_region_and_spends_the_budget(pair_setting):
    rows = lower_bound.run_pair(rng=np.random.default_rng(11), rep=0, sign="-", setting=pair_setting)
    assert [r["algorithm"] for r in rows] == list(common.LEARNERS)
    for r in rows:
        assert abs(r["ones_in_R_minus_half"]) <= 0.5 and r["changed"] == r["budget"] == 16
        assert r["balanced"] and r["budget_covers"] and not r["budget_short"]
        assert 0 <= r["a_R"] <= 1 and r["excess_own"] >= -1e-12
    with pytest.raises(ValueError, match="sign"):
        lower_bound.run_pair(rng=np.random.default_rng(0), rep=0, sign="0", setting=pair_setting)


def test_lower_bound_runs_and_tests(pair, pair_setting):
    assert len(pair) == 2 * 2 * 3 and set(pair["sign"]) == {"+", "-"}
    tests = lower_bound.lower_bound_tests(pair, pair_setting, seed=0)
    assert tests["algorithm"].tolist() == list(common.LEARNERS)
    enough = (tests["samples of T+"] >= 2) & (tests["samples of T-"] >= 2)
    assert ((tests["p-value"] > 0) & (tests["p-value"] <= 1))[enough].all() and tests["p-value"][~enough].isna().all()
    find = lower_bound.covered_samples(pair)
    find = find[find.algorithm == "FIND"]
    assert tests.loc[0, "mean excess of T+"] == pytest.approx(find.loc[find.sign == "+", "excess_own"].mean())
    with pytest.raises(ValueError, match="eta"):
        lower_bound.lower_bound_runs(lower_bound.pair_setting(n=5, m=100, eta_grid=[0.0], depth=1, degree=1), pair_repetitions=2,
                              seed=0)
    assert _is_book_figure(lower_bound.lower_bound_figure(pair, tests, eta_pair=pair_setting.eta_pair))
    balance = lower_bound.pair_balance(pair)
    assert balance["samples"] == 4 and balance["contradictions"] == 0
    values = lower_bound.lower_bound_glue(tests, setting=pair_setting, pair_repetitions=2, sum_bound=0.05, balance=balance)
    assert values["ch3_lb_sum_bound"] == 0.05 / pair_setting.eta_pair
    assert values["ch3_lb_samples"] == 4 and values["ch3_lb_covered"] == balance["covered"]
    assert values["ch3_lb_min_p"] == pytest.approx(tests["p-value"].min(), nan_ok=True)


def test_run_pair_with_too_small_a_budget_is_not_covered_and_not_balanced():
    # η' = 0.75 η leaves ⌊ηm⌋ = 4 flips for a region whose imbalance is about 0.75·4 = 3 on average
    small = lower_bound.pair_setting(n=5, m=40, eta_grid=[0.1], depth=1, degree=1)
    rows = pd.DataFrame([r for seed in range(40) for r in lower_bound.run_pair(rng=np.random.default_rng(seed), rep=0, sign="+",
                                                                         setting=small)])
    assert (~rows["budget_covers"]).any() and (rows["budget_covers"] <= rows["balanced"]).all()
    assert (rows["budget_short"] <= ~rows["balanced"]).all()
    pair = rows.assign(sign=np.where(np.arange(len(rows)) % 6 < 3, "+", "-"))
    balance = lower_bound.pair_balance(pair)
    assert balance["samples"] == 40 and balance["contradictions"] == 0
    assert balance["covered"] == balance["covered_plus"] + balance["covered_minus"] == int(rows["budget_covers"].sum()) // 3
    assert len(lower_bound.covered_samples(pair)) == 3 * balance["covered"]


def test_pair_balance_counts_a_covered_sample_left_unbalanced_as_a_contradiction():
    base = {"algorithm": "FIND", "sign": "+", "budget_short": False}
    pair = pd.DataFrame([base | {"budget_covers": True, "balanced": False},     # the attack failed where it must not
                         base | {"budget_covers": False, "budget_short": True, "balanced": True},   # nor here
                         base | {"budget_covers": False, "balanced": True},    # an odd count: the coin decided
                         base | {"sign": "-", "budget_covers": True, "balanced": True}])
    assert lower_bound.pair_balance(pair) == {"samples": 4, "covered": 2, "balanced": 3, "covered_plus": 1, "covered_minus": 1,
                                       "contradictions": 2}


def test_lower_bound_tests_use_only_covered_samples(pair_setting):
    pair = pd.DataFrame([{"algorithm": name, "sign": s, "a_R": float(k), "excess_own": 0.1, "budget_covers": k < 2}
                         for name in common.LEARNERS for s in "+-" for k in range(3)])
    tests = lower_bound.lower_bound_tests(pair, pair_setting, seed=0)
    assert (tests["samples of T+"] == 2).all() and (tests["mean a_R on T+ samples"] == 0.5).all()
    none = lower_bound.lower_bound_tests(pair.assign(budget_covers=pair["sign"] == "+"), pair_setting, seed=0)
    assert (none["samples of T-"] == 0).all() and none["p-value"].isna().all()


def test_lower_bound_tests_give_p_one_when_every_output_is_the_same(pair_setting):
    pair = pd.DataFrame([{"algorithm": name, "sign": s, "a_R": 0.5, "excess_own": 0.1 if s == "+" else 0.2,
                          "budget_covers": True, "constant_on_R": False}
                         for name in common.LEARNERS for s in "+-" for _ in range(3)])
    tests = lower_bound.lower_bound_tests(pair, pair_setting, seed=0)
    assert (tests["p-value"] == 1.0).all()
    assert tests["worse / η'"].tolist() == pytest.approx([0.2 / pair_setting.eta_pair] * 3)


def test_lower_bound_glue_without_corruption_is_nan(pair_setting):
    values = lower_bound.lower_bound_glue(None, setting=pair_setting, pair_repetitions=2, sum_bound=0.0)
    assert math.isnan(values["ch3_lb_min_p"]) and values["ch3_pair_perms"] == lower_bound.PAIR_PERMUTATIONS


def test_pair_sum_bound_is_two_eta_less_one_sided_hoeffding_slack():
    slack = math.sqrt(math.log(1 / 0.05) / 10)
    assert lower_bound.pair_sum_bound(0.1, delta=0.05, pair_repetitions=10) == pytest.approx(0.2 * (1 - slack))
    assert lower_bound.pair_sum_bound(0.1, delta=0.05, pair_repetitions=2) == 0.0   # slack above 1: clipped
    with pytest.raises(ValueError, match="delta"):
        lower_bound.pair_slack(delta=1.5, pair_repetitions=10)


def test_pair_power_reaches_the_target_from_the_stated_number_of_samples():
    r = lower_bound.pair_repetitions_for_power(delta=0.05)
    assert r == 36   # √(ln 20 / r) + √(ln 5 / r) ≤ 1/2 first at r = 36
    assert lower_bound.pair_power(delta=0.05, pair_repetitions=r) >= lower_bound.PAIR_POWER
    assert lower_bound.pair_power(delta=0.05, pair_repetitions=r - 1) < lower_bound.PAIR_POWER
    assert lower_bound.pair_power(delta=0.05, pair_repetitions=10) == 0.0   # the slack exceeds the violation
    # the power is a Hoeffding bound: a simulated learner at the stated violation fails at least that often
    rng = np.random.default_rng(0)
    a_plus, a_minus = rng.random((20000, r)) < 0.75, rng.random((20000, r)) < 0.25   # E D = 1/2
    fails = (a_plus.mean(axis=1) - a_minus.mean(axis=1)) > lower_bound.pair_slack(delta=0.05, pair_repetitions=r)
    assert fails.mean() >= lower_bound.pair_power(delta=0.05, pair_repetitions=r)


def test_excess_on_region_is_two_eta_prime_times_the_disputed_share(pair_setting):
    from dtcore.cube import all_points
    from dtcore.noise import indistinguishable_pair

    t_plus, t_minus, _, _ = indistinguishable_pair(pair_setting.n, pair_setting.eta_pair, pair_setting.codim)
    in_R = (all_points(pair_setting.n)[:, :pair_setting.codim] == 1).all(axis=1)
    h = np.where(in_R, 0.3, 0.0)   # a_R = 0.3
    plus, minus = (lower_bound.excess_on_region(mean_table(t), h, in_R) for t in (t_plus, t_minus))
    assert plus == pytest.approx(2 * pair_setting.eta_pair * 0.7) and minus == pytest.approx(2 * pair_setting.eta_pair * 0.3)
    for t in (t_plus, t_minus):   # each target's Bayes classifier pays nothing on R
        mu = mean_table(t)
        assert lower_bound.excess_on_region(mu, (mu >= 0.5).astype(float), in_R) == 0.0


def _pair_tests(sum_on_R: float, reps: int) -> pd.DataFrame:
    return pd.DataFrame([{"algorithm": name, "samples of T+": reps, "samples of T-": reps, "p-value": 0.5,
                          "sum on R": sum_on_R, "Bayes sum on R": 0.0} for name in common.LEARNERS])


def test_check_pair_counts_the_sum_on_R_only_with_power_and_the_bayes_classifier_fails_it(pair_setting):
    balance = {"contradictions": 0, "covered": 80, "samples": 80}
    pair = pd.DataFrame({"changed": [16, 16], "budget": [16, 16]})
    two = 2 * pair_setting.eta_pair
    table = VerificationTable()
    bound = lower_bound.pair_sum_bound(pair_setting.eta_pair, delta=0.05, pair_repetitions=40)
    lower_bound.check_pair(table, pair=pair, balance=balance, pair_tests=_pair_tests(two, 40), covered_reps=40,
                           sum_bound=bound, pair_setting=pair_setting, delta=0.05)
    rows = table.frame()
    counted = rows[rows["kind"] == "theorem"]
    assert len(counted) == 3 and counted["holds"].all() and counted["fails_under_fails"].all()
    assert (rows.loc[rows["quantity"].str.contains("p-value"), "kind"] == "observation").all()
    assert not lint_table(table)
    # a learner whose excesses on R add up to η' only fails the counted rows
    low = VerificationTable()
    lower_bound.check_pair(low, pair=pair, balance=balance, pair_tests=_pair_tests(two / 2, 40), covered_reps=40,
                           sum_bound=bound, pair_setting=pair_setting, delta=0.05)
    assert len(low.failures()) == 3
    # too few covered samples for power 0.8: shown, not counted
    few = VerificationTable()
    lower_bound.check_pair(few, pair=pair, balance=balance, pair_tests=_pair_tests(two, 10), covered_reps=10,
                           sum_bound=lower_bound.pair_sum_bound(pair_setting.eta_pair, delta=0.05, pair_repetitions=10),
                           pair_setting=pair_setting, delta=0.05)
    assert (few.frame()["kind"] != "theorem").all()


# --- Proposition 5.1 ----------------------------------------------------------------------------

def test_proposition_5_1_truncation_is_low_degree_close_and_bounded():
    prop, spectrum = proposition_5_1.proposition_5_1(n=6, size=2, rng=np.random.default_rng(12), trials=2)
    assert len(prop) == 3 * 2 * 3 and sorted(set(prop["s"])) == [2, 4, 8]
    assert prop["max_coef_above_k"].max() < 1e-12
    assert (prop["disagree"] <= prop["eps"]).all() and prop["min"].min() >= 0 and prop["max"].max() <= 1
    assert proposition_5_1.proposition_5_1_worst(prop) <= 1
    # Parseval: a tree's Fourier weights add up to E[mu^2] (the trees replayed from the same stream)
    replay = np.random.default_rng(12)
    mus = [mean_table(random_stochastic_tree(6, s, max(1, s // 4), rng=replay)) for s in (2, 4, 8) for _ in range(2)]
    totals = spectrum.groupby(np.arange(len(spectrum)) // 7)["weight"].sum().to_numpy()
    assert totals == pytest.approx([np.mean(mu**2) for mu in mus], abs=1e-12)
    assert _is_book_figure(proposition_5_1.proposition_5_1_figure(prop, spectrum))


def test_proposition_5_1_worst_is_the_largest_share_over_eps():
    assert proposition_5_1.proposition_5_1_worst(pd.DataFrame({"disagree": [0.1, 0.05], "eps": [0.5, 0.125]})) == 0.4


def test_check_pair_counts_the_sums_only_on_enough_covered_samples():
    from dtbook.report import VerificationTable
    from types import SimpleNamespace
    pair = pd.DataFrame({"changed": [30, 30], "budget": [30, 30]})
    for covered, kinds in ((40, ["identity", "observation", "observation", "theorem", "identity"]),
                           (3, ["identity", "observation", "observation", "observation", "identity"])):
        tests = pd.DataFrame({"algorithm": ["FIND"], "p-value": [0.4], "samples of T+": [covered],
                              "samples of T-": [covered], "sum on R": [0.2], "Bayes sum on R": [0.0]})
        table = VerificationTable()
        lower_bound.check_pair(table, pair=pair, balance={"contradictions": 0, "covered": covered, "samples": 80},
                        pair_tests=tests, covered_reps=covered, sum_bound=0.1,
                        pair_setting=SimpleNamespace(eta_pair=0.1), delta=0.05)
        assert [r["kind"] for r in table.rows] == kinds and table.failures().empty


# --- Theorems 1 and 3 at the hardest member, Theorem 4's L2 row, tables --------------------------------

def test_hard_target_has_a_coin_inside_and_the_asked_depth_and_mutation_keeps_the_shape():
    rng = np.random.default_rng(3)
    tree = theorems_1_3.hard_target(n=6, size=8, n_stochastic=2, query_depth=4, rng=rng)
    assert theorems_1_3.coins_above_internal_nodes(tree) >= 1 and deterministic_depths(tree).max() == 4
    step = theorems_1_3.mutate_target(tree, rng)
    assert step.feature == tree.feature and step.size == tree.size
    assert step.value != tree.value or step.branch_prob != tree.branch_prob
    with pytest.raises(ValueError, match="n_stochastic"):
        theorems_1_3.hard_target(n=6, size=8, n_stochastic=0, query_depth=4, rng=rng)
    with pytest.raises(ValueError, match="query depth"):
        theorems_1_3.hard_target(n=6, size=4, n_stochastic=2, query_depth=4, rng=rng, tries=3)


def test_theorem_search_rows_and_glue_at_the_worst_member():
    evals, worst = theorems_1_3.theorem_search(n=6, size=8, n_stochastic=2, depth=2, degree=1, m=300, etas=[0.1], delta=0.05,
                                       restarts=2, steps=1, seed=0)
    assert evals["target"].nunique() == 3 and len(evals) == 3 * (1 + len(ADVERSARIES))
    assert set(worst) == {"Theorem 1", "Theorem 3"} and worst["Theorem 1"][1] == "none" and worst["Theorem 3"][2] == 0.1
    top = evals[evals.eta > 0]["allowance_share"].max()
    member, adversary, _ = worst["Theorem 3"]
    assert evals[(evals.eta > 0) & (evals.adversary == adversary) & (evals.opt == member.opt)]["allowance_share"].max() == top
    rows = theorems_1_3.theorem_rows(worst, n=6, depth=2, degree=1, m=300, delta=0.05, reps=2, restarts=2, steps=1, seed=0)
    eps = theorems_1_3.theorem_epsilon(member, n=6, depth=2, m=300, delta=0.05 / 2)
    r3 = rows.set_index("result").loc["Theorem 3"]
    assert r3["eps"] == pytest.approx(eps) and r3["bound"] == pytest.approx(member.opt + 0.2 + eps)
    table = VerificationTable()
    theorems_1_3.check_theorems(table, rows)
    assert not lint_table(table)
    values = theorems_1_3.theorem_glue(rows, evals, size=8, depth=2)
    assert values["ch3_thm1_fail_factor"] == pytest.approx(1 / values["ch3_thm1_margin"])
    assert values["ch3_thm_cor_depth"] == math.ceil(math.log2(8**5 / 0.49)) and values["ch3_thm3_half"] in ("fail", "still hold")


def test_theorem_row_fails_when_the_bound_is_below_the_worst_error():
    rows = pd.DataFrame([{"result": "Theorem 1", "adversary": "none", "eta": 0.0, "worst_error": 0.3, "bound": 0.2,
                          "opt": 0.1, "inverted_worst_error": 0.7, "worst_case": "a member"}])
    table = VerificationTable()
    theorems_1_3.check_theorems(table, rows)
    with pytest.raises(AssertionError):
        table.assert_all(allow_legacy=False)


def test_lemma52_sample_size_is_the_least_m_below_the_target():
    m = theorem_4.lemma52_sample_size(16, 0.05, target_eps=0.5)
    assert bounds.blt21_lemma52_eps(m, 16, 0.05) < 0.5 <= bounds.blt21_lemma52_eps(m - 1, 16, 0.05)
    with pytest.raises(ValueError, match="target_eps"):
        theorem_4.lemma52_sample_size(16, 0.05, target_eps=1.5)


def test_l2_large_sample_bound_uses_the_epsilons_at_its_m(setting):
    row = theorem_4.l2_large_sample(setting, m=400, eta=0.05, adversary="random", rng=np.random.default_rng(0))
    eps52 = bounds.blt21_lemma52_eps(400, n_monomials(setting.target.n, setting.degree), setting.delta)
    assert row["eps52"] == eps52 and 0 <= row["error"] <= 1
    assert row["bound"] == bounds.blt21_low_degree_error_bound(setting.opt, 0.05, setting.a2 + eps52 + row["gamma1"])


def test_styled_tables_have_readable_headers_and_no_bare_floats():
    frame = pd.DataFrame({"max_abs_difference": [0.0, 2.0], "mean_l1": [0.123456, 0.5], "flag": [True, False]})
    html = common.styled(frame, {"max_abs_difference": "largest difference", "mean_l1": "mean L1"}).to_html()
    assert "largest difference" in html and "max_abs_difference" not in html and "0.1235" in html
    assert ">2<" in html and ">yes<" in html and "True" not in html


# --- issue 36: the searches guarded, the bounds computed twice ----------------------------------------

def test_search_replay_reproduces_the_schedule_and_sees_a_weaker_search():
    kwargs = dict(n=6, size=8, n_stochastic=2, depth=2, degree=1, m=300, etas=[0.1], delta=0.05, seed=0)
    evals, _ = theorems_1_3.theorem_search(restarts=2, steps=2, **kwargs)
    replay = theorems_1_3.replay_search(restarts=2, steps=2, **kwargs)
    assert theorems_1_3.search_replay_deviation(evals, replay) <= 1e-12
    weaker, _ = theorems_1_3.theorem_search(restarts=1, steps=2, **kwargs)   # one restart fewer
    assert theorems_1_3.search_replay_deviation(weaker, replay) > 1e-12
    table = VerificationTable()
    theorems_1_3.check_search(table, evals, replay, {"Theorem 1": 0.0, "Theorem 3": 0.0})
    assert table.failures().empty and not lint_table(table)
    theorems_1_3.check_search(table, weaker, replay, {"Theorem 1": 0.0, "Theorem 3": 10.0})
    assert len(table.failures()) == 2   # the replay and Theorem 3's reference member


def test_reference_shares_of_the_table1_target(runs, setting):
    refs = theorems_1_3.reference_shares(runs, setting, etas=[0.05, 0.1])
    find = runs[runs.algorithm == "FIND"]
    eps = setting.approx_excess + 2 * setting.gamma
    top = ((find[find.eta > 0].groupby(["adversary", "eta"])["error"].max().reset_index()
            .pipe(lambda f: (f["error"] - setting.opt) / (2 * f["eta"] + eps))).max())
    assert refs["Theorem 3"] == pytest.approx(top) and refs["Theorem 1"] >= -1


def test_strongest_adversary_shortfall_is_zero_at_the_argmax_and_positive_at_the_argmin(runs):
    strongest = table_1_exponents.strongest_adversaries(runs)
    assert table_1_exponents.strongest_adversary_shortfall(runs, strongest) <= 1e-12
    at_max = runs[runs.eta == runs.eta.max()]
    weakest = {name: str(at_max[at_max.algorithm == name].groupby("adversary")["excess"].mean().idxmin())
               for name in common.LEARNERS}
    means = at_max.groupby(["algorithm", "adversary"])["excess"].mean()
    spread = max(means[name].max() - means[name].min() for name in common.LEARNERS)
    assert table_1_exponents.strongest_adversary_shortfall(runs, weakest) == pytest.approx(spread)


def test_reference_members_attain_the_suprema_and_a_weaker_search_fails(exhaustive):
    assert suprema.reference_values() == {"Fact 1.1": 1.0, "Fact 1.2": 1.0, "Lemma 2.1": 1.0}
    table = VerificationTable()
    suprema.check_references(table, exhaustive)
    assert table.failures().empty and len(table.frame()) == 2
    weaker = exhaustive.copy()
    weaker.loc["Lemma 2.1", "sup_ratio"] = 0.866   # c = 1 left out: the supremum of c >= 2 at μ = 1/2
    suprema.check_references(table, weaker)
    assert len(table.failures()) == 1


def test_printed_bounds_agree_with_dtcore_bounds():
    from dtbook.experiments.ch03 import printed_bounds as pb

    for m in (300, 3000, 1_811_217):
        assert pb.printed_lemma52_eps(m, 56, 0.05) == pytest.approx(bounds.blt21_lemma52_eps(m, 56, 0.05), rel=1e-9)
        assert pb.printed_lemma54_eps(m, 56, 0.05) == pytest.approx(bounds.blt21_lemma54_eps(m, 56, 0.05), rel=1e-9)
        assert pb.printed_gamma(1e9, m, 0.05) == pytest.approx(bounds.blt21_lemma42_uniform_deviation(1e9, m, 0.05))
    assert pb.printed_find_bound(0.1, 0.05, 0.2) == pytest.approx(bounds.blt21_find_error_bound(0.1, 0.05, 0.2))
    assert pb.printed_low_degree_bound(0.1, 0.05, 0.2) == pytest.approx(bounds.blt21_low_degree_error_bound(0.1, 0.05, 0.2))
    depths = np.array([1, 2, 3, 3, 5])
    assert pb.printed_truncation(depths, 2) == pytest.approx(bounds.blt21_corollary41_truncation(depths, 2))
    # a bound off by a constant is an identity failure
    pairs = pd.DataFrame({"formula": ["f: x", "f: x"], "book": [1.0, 2.0], "printed": [1.0, 1.0]})
    table = VerificationTable()
    pb.check_bounds(table, pairs)
    assert len(table.failures()) == 1


def test_theorem_4_row_is_an_observation_when_the_bound_is_above_one_minus_opt():
    big = {"m": 10, "eta": 0.05, "adversary": "random", "error": 0.2, "inverted_error": 0.8, "opt": 0.2,
           "bound": 0.97, "eps52": 0.08}
    table = VerificationTable()
    theorem_4.check_theorem_4(table, big, l2_m_star=5, m=10)
    assert table.frame()["kind"].tolist() == ["observation"]
    table = VerificationTable()
    theorem_4.check_theorem_4(table, big | {"bound": 0.5}, l2_m_star=5, m=10)
    assert table.frame()["kind"].tolist() == ["theorem"] and table.failures().empty
    # its power: the label-inverted hypothesis fails the counted row
    table = VerificationTable()
    theorem_4.check_theorem_4(table, big | {"bound": 0.5, "error": big["inverted_error"]}, l2_m_star=5, m=10)
    assert len(table.failures()) == 1
    text = theorem_4.theorem_4_glue(big, l2_m_star=5, m=10, scale="full")["ch3_l2_sentence"]
    assert "[0.2000, 0.8000]" in text and "observation" in text


# --- Lemma 3.1 as a theorem row: FIND's excess over the least errors is 0, and a suboptimal FIND fails it ----------

def _cross(difference: float) -> pd.DataFrame:
    return pd.DataFrame({"check": ["brute force"] * 2, "n": [3, 4], "m": [49, 49], "d": [1, 2],
                         "find": [10.0, 8.0 + difference], "reference": [10, 8], "difference": [0.0, difference],
                         "worst_root": [12.0, 9.0]})


def test_lemma_3_1_rows_are_tight_theorem_rows_that_a_suboptimal_find_fails():
    table = VerificationTable()
    lemma_3_1.check_find_crosscheck(table, _cross(0.0))
    bench = pd.DataFrame({"m": [100], "n": [8], "d": [2], "FIND errors": [40.0], "pystreed errors": [40],
                          "worst-root errors": [43.0]})
    lemma_3_1.check_benchmark(table, bench)
    rows = table.frame()
    assert (rows["kind"] == "theorem").all() and rows["holds"].all() and rows["tight"].astype(bool).all()
    assert not lint_table(table)
    worse = VerificationTable()
    lemma_3_1.check_find_crosscheck(worse, _cross(1.0))      # FIND one error above the optimum
    below = VerificationTable()
    lemma_3_1.check_find_crosscheck(below, _cross(-1.0))     # a reference that missed a tree
    assert not worse.frame()["holds"].any() and not below.frame()["holds"].any()


def test_every_row_of_the_page_names_a_blt21_ledger_entry():
    from dtbook import ledger

    results = ["Fact 1.1", "Fact 1.2", "Sec. 1.3 (mean function)", "Lemma 2.1", "Lemma 3.1", "Lemma 3.2", "Lemma 4.2",
               "Corollary 4.1", "Theorem 1", "Theorem 3", "Theorem 4", "Definition 2 (budget)", "Sec. 1.1 (2η minimum)",
               "Proposition 5.1", "Lemma 5.2", "Lemma 5.4", "Hoeffding (fixed q)", "Table 1"]
    for result in results:
        assert ledger.entry_for_row("03_stochastic_trees", result).startswith("[BLT21] ")
    assert ledger.entry_for_row("03_stochastic_trees", "Fact 4.3 (as printed: strict <)") == "[BLT21] Fact 4.3"
    assert ledger.entry("[BLT21] Fact 4.3").verdict == "refuted"


# --- issue 35: every counted theorem row names a worse output that fails it ------------------------------------

def test_worst_root_is_a_depth_d_tree_no_better_than_find_and_worse_on_parity():
    X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)] * 2, dtype=np.uint8)
    y = (X[:, 0] ^ X[:, 1]).astype(np.uint8)      # x0 XOR x1: the root x2 wastes the one split a depth-2 tree has
    from dtcore.find import find
    assert find(X, y, depth=2).errors == 0 and common.worst_root_errors(X, y, 2) == 8.0
    rng = np.random.default_rng(3)
    Xr, yr = (rng.random((60, 4)) < 0.5).astype(np.uint8), (rng.random(60) < 0.5).astype(np.uint8)
    for d in (1, 2):
        assert common.worst_root_errors(Xr, yr, d) >= find(Xr, yr, depth=d).errors
    w = rng.random(60)
    assert common.worst_root_errors(Xr, yr, 1, sample_weight=w) >= find(Xr, yr, depth=1, sample_weight=w).errors - 1e-12
    with pytest.raises(ValueError, match="depth"):
        common.worst_root_errors(X, y, 0)


def test_find_crosscheck_records_the_worst_root_and_it_fails_lemma_3_1(target):
    cross = lemma_3_1.find_crosscheck(target, m=200, rng=np.random.default_rng(0), n_small_cases=4, n_target_samples=1)
    assert (cross.loc[cross["d"] >= 1, "worst_root"] >= cross.loc[cross["d"] >= 1, "reference"]).all()
    table = VerificationTable()
    lemma_3_1.check_find_crosscheck(table, cross)
    assert table.frame()["fails_under_fails"].all() and not lint_table(table)


def test_exhaustive_worse_outputs_fail_their_rows(exhaustive):
    worse = suprema.worse_outputs(exhaustive)
    mu = suprema.witness_mean(exhaustive.loc["Fact 1.2", "table"])
    assert worse["Fact 1.2"][1] > 1 and (opt(mu) == 0 or worse["Fact 1.2"][1] == pytest.approx((1 - opt(mu)) / opt(mu)))
    real = pd.DataFrame({"table": ["mu_T = (0.2637, 0.2637, 0.4387, 0.4387), h = 0.5", "mu_T = (0.5, 0.5, 0.5, 0.5), c = 1"],
                         "sup_ratio": [1.0, 1.0]}, index=["Fact 1.2", "Lemma 2.1"])   # the page's witnesses
    assert suprema.worse_outputs(real)["Fact 1.2"][1] == pytest.approx(0.649 / 0.351, rel=1e-3)
    assert suprema.worse_outputs(real)["Lemma 2.1"][1] == pytest.approx(2.0)
    assert worse["Lemma 2.1"][1] == pytest.approx(math.sqrt(suprema.SHARED_COPIES) * exhaustive.loc["Lemma 2.1", "sup_ratio"])
    with pytest.raises(ValueError, match="witness"):
        suprema.witness_mean("h = 0.5")


def test_small_samples_give_gaps_above_the_bounds_at_m(setting):
    small = table_1.small_sample_gaps(setting, rng=np.random.default_rng(0), m_small=4, samples=10)
    assert list(small.index) == list(common.LEARNERS) and (small["m_small"] == 4).all()
    assert small.loc["FIND", "gap_fit"] > setting.gamma and small.loc["FIND", "gap_q"] > setting.gamma
    assert (small.loc[["L2 (low-degree)", "L1 regression"], "gap_q"] > setting.gamma_1).all()
    values = table_1.small_sample_glue(small, setting)
    assert values["ch3_small_m"] == 4 and values["ch3_small_gap_find"] == small.loc["FIND", "gap_fit"]


def test_sample_gaps_match_the_runs_gaps(setting, clean, runs):
    from dtcore.find import find
    from dtcore.polyreg import l1_regression, low_degree_regression

    X0, y0 = clean[0]
    clean_run = runs[(runs.eta == 0)].set_index("algorithm")
    fitted = {"L2 (low-degree)": low_degree_regression(X0, y0, degree=setting.degree),
              "L1 regression": l1_regression(X0, y0, degree=setting.degree)}
    gaps = table_1.sample_gaps(setting, X0, y0, find_tree=find(X0, y0, depth=setting.depth).tree, fitted=fitted)
    for name in common.LEARNERS:   # at η = 0 the corrupted sample is the clean one
        assert gaps[name]["gap_fit"] == pytest.approx(clean_run.loc[name, "gap_fit"])
        assert gaps[name]["gap_q"] == pytest.approx(clean_run.loc[name, "gap_q"])


def test_uniform_convergence_row_without_a_failing_worse_output_is_shown(setting, runs):
    worsts = table_1.learner_worsts(runs)
    small = pd.DataFrame({"gap_fit": [0.9, 0.9, 0.9], "gap_q": [0.9, 0.9, 0.9], "m_small": 4, "samples": 2},
                         index=list(common.LEARNERS))
    table = VerificationTable()
    table_1.check_uniform_convergence(table, setting, worsts, small)
    assert not lint_table(table)
    passing = small.assign(gap_fit=0.0, gap_q=0.0)   # worse outputs that pass too: no row is counted
    shown = VerificationTable()
    table_1.check_uniform_convergence(shown, setting, worsts, passing)
    assert (shown.frame()["kind"] == "observation").all()


def test_depth_sweep_worse_outputs_fail_the_counted_rows():
    deep = corollary_4_1.deep_target(n=6, deep_depth=4, rng=np.random.default_rng(2))
    sweep_frame = corollary_4_1.depth_sweep(deep, m=400, deep_depth=4, repetitions=1, delta=0.05, seed=0)
    per_d = corollary_4_1.depth_sweep_summary(sweep_frame)
    assert (per_d["inverted_excess"] > per_d["find_excess"]).all()
    table = VerificationTable()
    corollary_4_1.check_depth_sweep(table, per_d, repetitions=1)
    counted = table.frame()[table.frame()["kind"] == "theorem"]
    assert len(counted) and counted["fails_under_fails"].all() and not lint_table(table)


def test_proposition_5_1_half_cut_fails_the_row():
    prop, _ = proposition_5_1.proposition_5_1(n=6, size=4, rng=np.random.default_rng(0), trials=2)
    assert proposition_5_1.proposition_5_1_worst(prop, "disagree_half") > 1.0
    table = VerificationTable()
    proposition_5_1.check_proposition_5_1(table, prop)
    assert not lint_table(table)
    with pytest.raises(ValueError, match="column"):
        proposition_5_1.proposition_5_1_worst(prop, "k")


def test_theorem_rows_name_the_label_inverted_tree():
    evals, worst = theorems_1_3.theorem_search(n=6, size=8, n_stochastic=2, depth=2, degree=1, m=300, etas=[0.1],
                                               delta=0.05, restarts=1, steps=0, seed=0)
    rows = theorems_1_3.theorem_rows(worst, n=6, depth=2, degree=1, m=300, delta=0.05, reps=2, restarts=1, steps=0,
                                     seed=0)
    assert (rows["inverted_worst_error"] > rows["worst_error"]).all()
    table = VerificationTable()
    theorems_1_3.check_theorems(table, rows)
    frame = table.frame()
    assert frame.loc[frame["kind"] == "theorem", "fails_under_fails"].all()


# --- [BLT21] Fact 4.3 as printed ------------------------------------------------------------------------------

def test_fact_4_3_printed_strict_form_is_refuted_with_every_hypothesis_checked():
    witness = fact_4_3.fact_4_3_witness()
    assert all(witness["hypotheses"].values()) and len(witness["hypotheses"]) == 4
    assert witness["difference"] == witness["eta"] == fractions.Fraction(1, 2)   # ≤ η holds, < η does not
    table = VerificationTable()
    fact_4_3.check_fact_4_3(table, witness)
    row = table.frame().iloc[0]
    assert row["kind"] == "counterexample" and row["holds"] and table.failures().empty
    # a witness that misses a hypothesis does not refute anything: the row fails
    broken = witness | {"hypotheses": witness["hypotheses"] | {"p maps {0,1}^n into [0, 1]": False}}
    failing = VerificationTable()
    fact_4_3.check_fact_4_3(failing, broken)
    assert len(failing.failures()) == 1
    # a difference below η would not refute the strict form either
    below = VerificationTable()
    fact_4_3.check_fact_4_3(below, witness | {"difference": fractions.Fraction(0)})
    assert len(below.failures()) == 1
    assert fact_4_3.fact_4_3_glue(witness)["ch3_f43_difference"] == "1/2"


def test_rows_whose_worse_output_passes_are_shown_not_counted():
    prop = pd.DataFrame({"s": [4, 4], "eps": [0.5, 0.25], "k": [3, 4], "max_coef_above_k": [0.0, 0.0],
                         "disagree": [0.0, 0.0], "disagree_half": [0.1, 0.1], "min": [0.0, 0.0], "max": [1.0, 1.0]})
    table = VerificationTable()
    proposition_5_1.check_proposition_5_1(table, prop)   # the half-depth cut differs on 0.4·ε at most: no power
    assert "theorem" not in table.frame()["kind"].tolist() and not lint_table(table)
    per_d = pd.DataFrame({"find_excess": [0.01], "best_excess": [0.0], "inverted_excess": [0.05],
                          "worst_root_excess": [0.01], "truncation_bound": [0.1], "paper_count_bound": [0.5],
                          "find_bound": [0.2], "constant_excess": [0.3], "opt": [0.4]}, index=pd.Index([2], name="d"))
    table = VerificationTable()
    corollary_4_1.check_depth_sweep(table, per_d, repetitions=1)
    assert (table.frame()["kind"] == "observation").all() and not lint_table(table)
    rows = pd.DataFrame([{"result": "Theorem 1", "adversary": "none", "eta": 0.0, "worst_error": 0.45, "bound": 0.5,
                          "opt": 0.44, "inverted_worst_error": 0.5, "worst_case": "a member"}])
    table = VerificationTable()
    theorems_1_3.check_theorems(table, rows)
    assert table.frame()["kind"].tolist() == ["observation"]
