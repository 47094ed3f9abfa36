"""Chapter 5's experiments (the package dtbook.experiments.ch05) at small size: known answers and invariants."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from dtcore import bounds
from dtbook.experiments.ch05 import (common, conjecture3, distributions, hardest, impurities, kearns, lemma4,
                                          lemma8, lemma9, lemma11, lemmas56, theorem1, theorem2)
from dtbook.report import VerificationTable, lint_table
from dtcore.functions import junta_tree, parity_table
from dtcore.cube import ProductDistribution
from dtcore.impurity import lipschitz_constant, strong_concavity
from dtcore.smoothed import BOUNDARY_BAND

ALPHA, C = 0.1, 0.15
BETA, GAMMA = strong_concavity("gini"), lipschitz_constant("gini")


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def kinds(table: VerificationTable) -> list[str]:
    return [row["kind"] for row in table.rows]


def all_hold(table: VerificationTable) -> bool:
    return len(table.failures()) == 0 and not lint_table(table)


def is_figure(fig: object, n_axes: int) -> bool:
    ok = isinstance(fig, Figure) and len(fig.axes) == n_axes
    plt.close(fig)
    return ok


# --- shared small runs ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def thm1() -> pd.DataFrame:
    return theorem1.run_theorem1(ks=[2], n=6, alpha=ALPHA, c=C, cs=[0.2], m_grid=[100, 400], reps=2,
                             impurity="gini", seed=1, n_jobs=1)


@pytest.fixture(scope="module")
def rate1(thm1) -> pd.DataFrame:
    return common.zero_error_rates(thm1, ["panel", "member", "k", "nn", "cc", "m"])


@pytest.fixture(scope="module")
def trace() -> tuple[pd.DataFrame, pd.DataFrame]:
    return lemmas56.trace_id3(n=8, k=2, alpha=ALPHA, c=C, impurity="gini", sizes=(200, 800), runs=2, rng=rng(3))


@pytest.fixture(scope="module")
def audit() -> pd.DataFrame:
    return lemma8.run_path_audit(n=6, k=2, alpha=ALPHA, c=C, impurity="gini", m=500, runs=2, rng=rng(4))


@pytest.fixture(scope="module")
def thm2() -> pd.DataFrame:
    return theorem2.run_theorem2(ks=[1, 2], n=6, alpha=ALPHA, c=C, cs=[0.1, 0.2], m_grid=[100, 400], reps=2,
                             impurity="gini", seed=2, n_jobs=1)


@pytest.fixture(scope="module")
def rate2(thm2) -> pd.DataFrame:
    return common.zero_error_rates(thm2, ["panel", "centre", "k", "cc", "m"])


@pytest.fixture(scope="module")
def conj() -> pd.DataFrame:
    s, L, n_conj, d = conjecture3.conjecture3_shape(8)
    return conjecture3.run_conjecture3(n_conj=n_conj, selectors=s, list_length=L, depth=d, alpha=ALPHA, c=C,
                                impurity="gini", m_grid=[100, 300], reps=2, seed=5, n_jobs=1)


# --- samplers -------------------------------------------------------------------------------------
def test_sampler_draws_lie_in_their_classes():
    margins, offsets = distributions.sampler_draws(n=5, alpha=ALPHA, c=C, draws=40, rng=rng())
    assert set(margins) == {"random", "inner", "outer"}
    assert all(v.shape == (200,) for v in margins.values()) and offsets.shape == (200,)
    for v in margins.values():
        assert np.all((v > C) & (v < 0.5 - ALPHA))
    band = BOUNDARY_BAND * (0.5 - ALPHA - C)
    assert margins["inner"].max() <= C + band + 1e-12
    assert margins["outer"].min() >= 0.5 - ALPHA - band - 1e-12
    assert np.all(np.abs(offsets) <= C)
    with pytest.raises(ValueError, match="draws"):
        distributions.sampler_draws(n=5, alpha=ALPHA, c=C, draws=0, rng=rng())


def test_check_samplers_passes_true_draws_and_fails_margins_inside_c():
    margins, offsets = distributions.sampler_draws(n=10, alpha=ALPHA, c=C, draws=200, rng=rng())
    table = VerificationTable()
    distributions.check_samplers(table, margins, offsets, alpha=ALPHA, c=C, rng=rng(), power_trials=200)
    assert kinds(table) == ["identity", "identity", "identity"] and all_hold(table)
    assert "power" in table.rows[1]["note"]
    bad = {**margins, "random": margins["random"] - C / 2}  # margins pushed inside |p - 1/2| <= c
    table = VerificationTable()
    distributions.check_samplers(table, bad, offsets, alpha=ALPHA, c=C, rng=rng(), power_trials=200)
    assert not table.rows[0]["holds"] and not table.rows[1]["holds"]
    with pytest.raises(ValueError, match="ks_level"):
        distributions.check_samplers(table, margins, offsets, alpha=ALPHA, c=C, rng=rng(), ks_level=0.0)


def test_check_samplers_without_power_records_observations():
    margins, offsets = distributions.sampler_draws(n=5, alpha=ALPHA, c=C, draws=20, rng=rng())
    table = VerificationTable()
    distributions.check_samplers(table, margins, offsets, alpha=ALPHA, c=C, rng=rng(), power_trials=200)
    assert kinds(table) == ["identity", "observation", "observation"]
    assert "power" in table.rows[1]["note"]


def test_ks_statistics_match_scipy_and_power_grows_with_draws():
    from scipy import stats
    u = rng().random((3, 50))
    ours = distributions.ks_statistics(u)
    assert np.allclose(ours, [stats.kstest(row, "uniform").statistic for row in u], atol=1e-12)
    small = distributions.ks_power(50, shrink=0.1, centred=False, level=1e-3, trials=300, rng=rng())
    large = distributions.ks_power(4000, shrink=0.1, centred=False, level=1e-3, trials=300, rng=rng())
    assert small < 0.5 < 0.8 <= large
    null = distributions.ks_power(500, shrink=0.0, centred=True, level=0.05, trials=2000, rng=rng())
    assert 0.03 < null < 0.07  # a correct sampler fails at about the level
    with pytest.raises(ValueError, match="shrink"):
        distributions.ks_power(50, shrink=1.5, centred=False, level=0.01, trials=10, rng=rng())


# --- impurities -----------------------------------------------------------------------------------
def test_impurity_constants_and_table():
    df = impurities.impurity_constants().set_index("impurity")
    assert df.loc["gini", "gamma on [0, 1]"] == pytest.approx(4.0)
    assert df.loc["gini", "beta (strong concavity)"] == pytest.approx(BETA)
    assert math.isinf(df.loc["entropy", "gamma on [0, 1]"])
    assert df.loc["entropy", "gamma on [0.1, 0.9]"] < df.loc["entropy", "gamma on [0.01, 0.99]"] < math.inf
    html = impurities.impurity_table().to_html()
    assert "∞" in html and "4.000" in html


def test_impurity_figure():
    assert is_figure(impurities.impurity_figure(), 2)


# --- Kearns ---------------------------------------------------------------------------------------
def test_population_gains_vanish_under_uniform_only():
    pop = kearns.population_gains(ks=[1, 2, 3], alpha=ALPHA, c=C, impurity="gini", rng=rng())
    assert list(pop.k) == [1, 2, 3]
    assert pop.loc[pop.k >= 2, "max |Gain| uniform"].max() < 1e-12
    assert pop.loc[pop.k == 1, "max |Gain| uniform"].iloc[0] == pytest.approx(1.0)  # a dictator: full gain
    assert (pop["min Gain (alpha,c)"] > 0).all()


def test_check_population_gains_holds_and_fails_on_a_uniform_gain():
    pop = kearns.population_gains(ks=[2, 3], alpha=ALPHA, c=C, impurity="gini", rng=rng())
    table = VerificationTable()
    kearns.check_population_gains(table, pop, alpha=ALPHA, c=C, beta=BETA)
    # the Lemma 6 + 9 rows are random instances (the exhaustive suprema are the check): observations
    assert kinds(table) == ["identity", "observation", "observation"] and all_hold(table)
    table = VerificationTable()
    kearns.check_population_gains(table, pop.assign(**{"max |Gain| uniform": 1e-3}), alpha=ALPHA, c=C, beta=BETA)
    assert not table.rows[0]["holds"]


def test_kearns_task_parity_is_learnt_under_alpha_c_not_uniform():
    ac = kearns.kearns_task("(alpha,c)", 3000, rng=rng(1), n=8, k=2, alpha=ALPHA, c=C, impurity="gini")
    assert ac["error"] == 0.0 and ac["root_rank"] == 1 and ac["size"] == 4
    uni = kearns.kearns_task("uniform", 200, rng=rng(1), n=16, k=3, alpha=ALPHA, c=C, impurity="gini")
    assert uni["error"] > 0.2 and uni["size"] > 8 and 1 <= uni["root_rank"] <= 16
    with pytest.raises(ValueError, match="dist"):
        kearns.kearns_task("gaussian", 10, rng=rng(), n=8, k=2, alpha=ALPHA, c=C, impurity="gini")


def test_run_kearns_summary_figure_and_glue():
    runs = kearns.run_kearns(n=6, k=2, alpha=ALPHA, c=C, impurity="gini", m_grid=[50, 200], reps=2, seed=0,
                             n_jobs=1)
    assert len(runs) == 2 * 2 * 2
    assert {"dist", "m", "rep", "size", "depth", "root_rank", "error"} <= set(runs.columns)
    again = kearns.run_kearns(n=6, k=2, alpha=ALPHA, c=C, impurity="gini", m_grid=[50, 200], reps=2, seed=0,
                            n_jobs=1)
    assert runs.equals(again)
    other = kearns.run_kearns(n=6, k=2, alpha=ALPHA, c=C, impurity="gini", m_grid=[50, 200], reps=2, seed=0,
                            key="ch05/another", n_jobs=1)
    assert not runs.error.equals(other.error)  # a keyed stream: another name, other draws
    summary = kearns.kearns_summary(runs)
    assert len(summary) == 4
    first = runs[(runs.dist == "uniform") & (runs.m == 50)]
    row = summary[(summary.dist == "uniform") & (summary.m == 50)]
    assert row["size"].iloc[0] == pytest.approx(first["size"].mean())
    values = kearns.kearns_glue(runs, m_top=200)
    top = runs[(runs.dist == "(alpha,c)") & (runs.m == 200)]
    assert values["ch5_kearns_ac_error"] == pytest.approx(top.error.mean())
    assert values["ch5_m_top"] == 200 and len(values) == 7
    assert is_figure(kearns.kearns_figure(runs, n=6, k=2, m_grid=[50, 200]), 2)


# --- Lemma 9 --------------------------------------------------------------------------------------
def test_lemma9_covariances_respect_the_bound_and_the_corner_limit():
    lem9, dev = lemma9.lemma9_covariances(ks=[1, 2, 3], alpha=ALPHA, c=C, reps=3, rng=rng())
    assert len(lem9) == 2 * 3 * 3 and dev < 1e-12
    assert (lem9.ratio > 1).all()
    assert np.allclose(lem9.bound, [bounds.bdm20_lemma9_covariance_lower(ALPHA, C, k) for k in lem9.k])
    corner = lem9[lem9.member == "corner"].ratio
    assert corner.max() < 1.2 * (1 - ALPHA) / ALPHA  # the corner nearly attains (1 - alpha) / alpha
    with pytest.raises(ValueError, match="reps"):
        lemma9.lemma9_covariances(ks=[2], alpha=ALPHA, c=C, reps=0, rng=rng())


def test_check_lemma9_holds_and_fails_below_the_bound():
    lem9, dev = lemma9.lemma9_covariances(ks=[2], alpha=ALPHA, c=C, reps=2, rng=rng())
    table = VerificationTable()
    lemma9.check_lemma9(table, lem9, dev, alpha=ALPHA, c=C)
    assert kinds(table) == ["identity", "observation", "observation"] and all_hold(table)
    table = VerificationTable()
    lemma9.check_lemma9(table, lem9.assign(min_abs_I=lem9.bound / 2), 1e-6, alpha=ALPHA, c=C)
    assert not table.rows[0]["holds"]
    assert [row["margin"] for row in table.rows[1:]] == [2.0, 2.0]  # shown beyond the bound, not counted


# --- every parity / function on four variables ----------------------------------------------------
SMALL_MEASURES = [(0.1, 0.3, 0.5)]  # n = 3 keeps the test fast; the page runs n = 4


@pytest.fixture(scope="module")
def sup56() -> pd.DataFrame:
    return lemmas56.exhaustive_gain_lemmas(measures=SMALL_MEASURES, n=3)


def test_exhaustive_lemma9_finds_the_corner_and_its_check_fails_on_a_looser_bound():
    sup9 = lemma9.exhaustive_lemma9(alpha_c=[(ALPHA, C), (ALPHA, 0.05)])
    assert list(sup9.c) == [C, 0.05]
    # the worst case is the 4-parity with one p_j at alpha: bound / |I| = alpha^2 / (alpha (1 - alpha))
    assert np.allclose(sup9.sup_ratio, ALPHA / (1 - ALPHA)) and (sup9.k == 4).all() and (sup9.table == "6996").all()
    assert np.allclose(sup9.covariance * sup9.sup_ratio, sup9.bound)
    table = VerificationTable()
    lemma9.check_exhaustive_lemma9(table, sup9)
    assert kinds(table) == ["identity", "observation", "observation"] and all_hold(table)
    assert "0x6996" in table.rows[1]["worst_case"] and table.rows[1]["margin"] == pytest.approx(ALPHA / (1 - ALPHA))
    assert np.allclose(sup9.covariance, [lemma9.lemma9_infimum(ALPHA, cc, 4) for cc in sup9.c])
    assert table.rows[0]["measured"] < 1e-11  # at the grid's own corner the identity holds to rounding
    table = VerificationTable()
    lemma9.check_exhaustive_lemma9(table, sup9.assign(covariance=sup9.covariance * (1 + 1e-9)))  # the enumeration off
    assert not table.rows[0]["holds"]
    values = lemma9.exhaustive_lemma9_glue(sup9, alpha=ALPHA, c=C)
    assert values["ch5_ex9_witness"] == "0x6996" and values["ch5_ex9_k"] == 4 and values["ch5_ex9_pairs"] == 2


def test_exhaustive_gain_lemmas_closed_forms_and_entropy_step(sup56):
    assert len(sup56) == 5
    assert lemmas56._supremum(sup56, lemmas56.GINI_LEMMA5).sup_ratio == pytest.approx(0.5)
    assert lemmas56._supremum(sup56, lemmas56.GINI_LEMMA6_STEP).sup_ratio == pytest.approx(1.0, abs=1e-6)
    assert lemmas56._supremum(sup56, lemmas56.ENTROPY_LEMMA6_STEP).sup_ratio <= 1.0
    table = VerificationTable()
    lemmas56.check_exhaustive_gains(table, sup56, measures=SMALL_MEASURES)
    assert kinds(table) == ["identity"] * 4 + ["theorem", "observation"] and all_hold(table)
    # the row's power: the Kearns–Mansour gain at entropy's witness falls below entropy's bound
    assert "Kearns–Mansour" in table.rows[4]["fails_under"] and table.rows[4]["fails_under_value"] < 1
    assert table.rows[4]["fails_under_fails"]
    # a strong-concavity constant 10% too large breaks the entropy row; a Gini gain off by 1% breaks an identity
    worse = sup56.assign(sup_ratio=np.where(sup56.form == lemmas56.ENTROPY_LEMMA6_STEP[1], 1.1 * sup56.sup_ratio,
                                            np.where(sup56.form == lemmas56.GINI_LEMMA5[1], 1.01 * sup56.sup_ratio,
                                                     sup56.sup_ratio)))
    table = VerificationTable()
    lemmas56.check_exhaustive_gains(table, worse, measures=SMALL_MEASURES)
    assert [row["holds"] for row in table.rows if row["kind"] != "observation"] == [False, True, True, True, False]
    values = lemmas56.exhaustive_gains_glue(sup56)
    assert values["ch5_ex5_gini"] == pytest.approx(0.5) and values["ch5_ex6_entropy_witness"].startswith("0x")
    with pytest.raises(ValueError, match="measures"):
        lemmas56.exhaustive_gain_lemmas(measures=[(0.5,) * 4] * 4)


def test_lemma9_figure_and_glue():
    lem9, dev = lemma9.lemma9_covariances(ks=[2], alpha=ALPHA, c=C, reps=2, rng=rng())
    values = lemma9.lemma9_glue(lem9, dev, alpha=ALPHA)
    assert values["ch5_lemma9_corner"] == pytest.approx(9.0)
    assert values["ch5_lemma9_ratio"] == pytest.approx(lem9[lem9.member == "random"].ratio.min())
    assert is_figure(lemma9.lemma9_figure(lem9, alpha=ALPHA), 1)


# --- Theorem 1 ------------------------------------------------------------------------------------
def test_split_features_of_a_junta_tree():
    tree = junta_tree(5, [1, 3], parity_table(2))
    assert sorted(set(common.split_features(tree))) == [1, 3]


def test_zero_error_rates_and_m_at():
    runs = pd.DataFrame({"g": ["a"] * 4 + ["b"] * 2, "m": [10, 10, 20, 20, 10, 20],
                         "zero_loss": [True, False, True, True, False, False]})
    rates = common.zero_error_rates(runs, ["g", "m"])
    assert list(rates.zero_loss) == [0.5, 1.0, 0.0, 0.0]
    assert common.m_at(rates[rates.g == "a"]) == 20.0
    assert common.m_at(rates[rates.g == "a"], level=0.5) == 10.0
    assert math.isinf(common.m_at(rates[rates.g == "b"]))
    with pytest.raises(ValueError, match="level"):
        common.m_at(rates, level=1.5)


def test_not_applicable_is_an_observation_naming_the_impurity():
    table = VerificationTable()
    common.not_applicable(table, "Lemma 5", "q", "Lemma 5.3", impurity="entropy")
    assert kinds(table) == ["observation"] and "entropy" in table.rows[0]["note"]


def test_theorem1_task_lemma4_hypotheses_imply_zero_error():
    for seed in range(4):
        row = theorem1.theorem1_task("k", "random", 2, 6, C, 2000, rng=rng(seed), alpha=ALPHA, impurity="gini")
        assert row["zero_loss"] == (row["error"] <= 1e-12)
        if row["only_relevant"] and row["cells_covered"]:
            assert row["error"] <= 1e-12
    assert row["eps7"] >= bounds.bdm20_lemma9_covariance_lower(ALPHA, C, 2)


def test_theorem1_points_cover_the_four_panels():
    pts = theorem1.theorem1_points(ks=[2, 3], n=10, c=C, cs=[0.1, 0.2], m_grid=[100, 200])
    panels = pd.DataFrame(pts).panel.value_counts()
    assert panels.to_dict() == {"k": 4, "c": 8, "member": 4, "n": 2}
    assert {p["nn"] for p in pts if p["panel"] == "n"} == {40}
    assert {p["k"] for p in pts if p["panel"] != "k"} == {3}


def test_run_theorem1_and_its_figure(thm1, rate1):
    assert len(thm1) == len(theorem1.theorem1_points(ks=[2], n=6, c=C, cs=[0.2], m_grid=[100, 400])) * 2
    assert thm1.zero_loss.dtype == bool and (thm1.error >= 0).all()
    assert set(rate1.panel) == {"k", "member", "n", "c"}
    assert is_figure(theorem1.theorem1_figure(rate1, k_max=2), 4)


def test_theorem10_samples_printed_exponent_is_the_looser(thm1, rate1):
    thm10 = theorem1.theorem10_samples(thm1, rate1, beta=BETA, gamma=GAMMA, alpha=ALPHA, c=C, n=6)
    assert sorted(thm10.member) == ["inner", "outer", "random"]
    assert (thm10["Theorem 5.1 as printed (paper's Theorem 10)"] > thm10["Theorem 5.2 + Lemma 5.2"]).all()
    assert thm10["m90 (in the grid)"].isin([100.0, 400.0, math.inf]).all()


def test_check_theorem1_rows_for_finite_and_infinite_gamma(thm1, rate1):
    thm10 = theorem1.theorem10_samples(thm1, rate1, beta=BETA, gamma=GAMMA, alpha=ALPHA, c=C, n=6)
    finite = int(np.isfinite(thm10["m90 (in the grid)"]).sum())
    table = VerificationTable()
    theorem1.check_theorem1(table, thm10, gamma=GAMMA, impurity="gini", m_max=400, m_min=100)
    # random and extreme members illustrate: observations, two sample-size rows per reached m90
    assert set(kinds(table)) == {"observation"} and len(table.rows) == 3 + 2 * finite and not lint_table(table)
    assert all(math.isfinite(row["measured"]) for row in table.rows)          # never an infinite m90 on the page
    table = VerificationTable()
    theorem1.check_theorem1(table, thm10, gamma=math.inf, impurity="entropy", m_max=400)
    assert sum("entropy" in row["note"] for row in table.rows) == 2 * finite
    table = VerificationTable()
    theorem1.check_theorem1(table, thm10.assign(**{"m90 (in the grid)": math.inf}), gamma=GAMMA, impurity="gini",
                        m_max=400)
    assert len(table.rows) == 3 and all("fewer than 90%" in row["quantity"] for row in table.rows)
    html = common.style_numbers(thm10, keep=("member", "k")).to_html()
    printed = thm10["Theorem 5.1 as printed (paper's Theorem 10)"].iloc[0]
    assert common.power_of_ten(printed) in html and "e+" not in html


def test_theorem1_glue(thm1, rate1):
    thm10 = theorem1.theorem10_samples(thm1, rate1, beta=BETA, gamma=GAMMA, alpha=ALPHA, c=C, n=6)
    values = theorem1.theorem1_glue(thm1, rate1, thm10, k_max=2, m_top=400)
    for member in ("random", "inner", "outer"):
        assert 0.0 <= values[f"ch5_thm1_top_{member}"] <= 1.0
        assert isinstance(values[f"ch5_thm1_m90_{member}"], str)
    top = rate1[(rate1.panel == "k") & (rate1.m == 400)].zero_loss.iloc[0]
    assert values["ch5_thm1_success_top"] == top


def test_check_lemma4_and_its_glue():
    runs = pd.DataFrame({"only_relevant": [True, True, False], "cells_covered": [True, False, True],
                         "error": [0.0, 0.2, 0.0], "zero_loss": [True, False, True]})
    table = VerificationTable()
    lemma4.check_lemma4(table, runs, "test")
    assert "(1 of 3 runs, test)" in table.rows[0]["quantity"]
    # zero error follows from the hypotheses for every output of ID3: an observation, never counted (issue 35)
    assert kinds(table) == ["observation"] and "algebra" in table.rows[0]["note"] + str(table.rows[0].get("why", ""))
    assert lemma4.lemma4_glue(runs) == {"ch5_lemma4_runs": 1, "ch5_lemma4_total": 3, "ch5_lemma4_converse": 1.0}


# --- traced runs ----------------------------------------------------------------------------------
def test_draw_problem_kinds():
    J, t, D = common.draw_problem("parity, (alpha,c)", rng=rng(), n=7, k=3, alpha=ALPHA, c=C)
    assert len(J) == 3 and np.array_equal(t, parity_table(3))
    assert np.all(np.abs(D.p - 0.5) > C)
    J, t, D = common.draw_problem("random junta, smoothed", rng=rng(), n=7, k=3, alpha=ALPHA, c=C)
    assert len(J) == 3 and t.size == 8 and np.all(np.abs(D.p - 0.5) <= C)
    with pytest.raises(ValueError, match="kind"):
        common.draw_problem("parity", rng=rng(), n=7, k=3, alpha=ALPHA, c=C)


def test_traced_runs_record_every_node(trace):
    feats, nodes = trace
    assert set(feats.kind) == set(common.PROBLEM_KINDS) == set(nodes.kind)
    assert set(nodes.m) == {200, 800}
    per_node = feats.groupby(["kind", "m", "run", "node"]).size()
    assert len(per_node) == len(nodes)  # every traced node has its feature rows
    assert (nodes.eps_w >= 0).all() and (nodes.deviation_of_argmax >= 0).all()
    rows, node_rows = lemmas56.traced_runs("parity, (alpha,c)", 300, 1, rng=rng(), n=6, k=2, alpha=ALPHA, c=C,
                                       impurity="gini")
    assert rows and node_rows and all(row["m"] == 300 for row in node_rows)


def test_check_gain_cores_holds_on_runs_and_fails_on_inflated_gains(trace):
    feats, _ = trace
    table = VerificationTable()
    lemmas56.check_gain_cores(table, feats, beta=BETA, gamma=GAMMA, impurity="gini")
    # both cores hold by algebra for every sample: observations, at Gini's closed-form values
    assert kinds(table) == ["observation", "observation"] and all_hold(table)
    assert table.rows[0]["measured"] <= 0.5 + 1e-9 and table.rows[1]["measured"] >= 4 - 1e-9
    table = VerificationTable()
    lemmas56.check_gain_cores(table, feats.assign(gain=feats.gain * 1e3), beta=BETA, gamma=GAMMA, impurity="gini")
    assert table.rows[0]["margin"] > 1  # shown beyond the bound, not counted
    table = VerificationTable()
    lemmas56.check_gain_cores(table, feats, beta=BETA, gamma=math.inf, impurity="entropy")
    assert kinds(table) == ["observation", "observation"] and "entropy" in table.rows[0]["note"]


def test_lemma6_nodes_and_their_check(trace):
    _, nodes = trace
    inJ = lemmas56.lemma6_nodes(nodes, beta=BETA)
    assert inJ.inside_J.all() and (inJ.eps_w > 0).all()
    assert np.allclose(inJ.lemma6, BETA * inJ.eps_w**2 / 8)
    table = VerificationTable()
    count, ratio = lemmas56.check_lemma6_nodes(table, inJ)
    assert count > 0 and ratio >= 4 and all_hold(table) and kinds(table) == ["observation"]  # algebra on the event
    table = VerificationTable()
    count, ratio = lemmas56.check_lemma6_nodes(table, inJ.assign(deviation_of_argmax=np.inf))
    assert count == 0 and math.isnan(ratio) and kinds(table) == ["observation"]


def test_lemma56_figure_and_trace_glue(trace):
    feats, nodes = trace
    inJ = lemmas56.lemma6_nodes(nodes, beta=BETA)
    values = lemmas56.trace_glue(nodes, inJ, eligible=3, lem6_ratio=2.0, m_mid=200, m_top=800)
    assert values["ch5_lem6_nodes"] == 3 and values["ch5_lem6_nodes_all"] == len(inJ)
    assert values["ch5_chose_rel_big"] == pytest.approx(nodes[nodes.m == 800].chose_relevant.mean())
    # i* is a free relevant coordinate, so beating its gain implies beating the best relevant gain
    assert 0 <= values["ch5_sep_argmax"] <= values["ch5_sep_frac"] <= 1
    assert is_figure(lemmas56.lemma56_figure(feats, inJ, beta=BETA, gamma=GAMMA, rng=np.random.default_rng(0)), 2)


# --- path audit -----------------------------------------------------------------------------------
def test_audit_paths_exact_covariances(audit):
    assert set(audit.kind) == set(common.PROBLEM_KINDS)
    filled = audit[audit["size"] > 0]
    assert (filled.loc[~filled.relevant.astype(bool), "I_D"] == 0).all()  # independence off J
    assert ((filled.p_bar >= 0) & (filled.p_bar <= 1) & (filled.y_bar >= 0) & (filled.y_bar <= 1)).all()
    assert audit.groupby(["kind", "run"]).path.nunique().eq(9).all()     # all 3^2 paths
    single = lemma8.audit_paths("parity, (alpha,c)", 200, 1, rng=rng(), n=5, k=2, alpha=ALPHA, c=C, impurity="gini")
    assert set(single.run) == {0}


def test_audit_deviations_is_the_union_bound_hoeffding(audit):
    filled, triples = lemma8.audit_deviations(audit, delta=0.05)
    assert triples == int(audit.feature.notna().sum())
    N = filled["size"].to_numpy(dtype=float)
    assert np.allclose(filled.hoeffding, 3 * np.sqrt(np.log(6 / (0.05 / triples)) / (2 * N)))
    with pytest.raises(ValueError, match="delta"):
        lemma8.audit_deviations(audit, delta=1.5)


def test_check_path_audit_holds_and_fails_on_shifted_covariances(audit):
    filled, triples = lemma8.audit_deviations(audit, delta=0.05)
    table = VerificationTable()
    lemma8.check_path_audit(table, filled, triples, beta=BETA, gamma=GAMMA, impurity="gini", delta=0.05, m=500)
    # Lemma 8 and the gain identity count; Lemmas 5 and 6 follow from them by algebra
    assert kinds(table) == ["theorem", "identity", "identity", "observation", "observation"] and all_hold(table)
    assert table.rows[1]["measured"] < 1e-12 and table.rows[2]["measured"] < 1e-12
    # the row's power: the label-inverted sample's covariance is -I(S_w, i), exactly, and breaks Lemma 8's bound
    assert np.allclose(filled.I_S_inverted, -filled.I_S, atol=1e-15)
    assert table.rows[0]["fails_under_fails"] and table.rows[0]["fails_under_value"] > 1
    table = VerificationTable()
    lemma8.check_path_audit(table, filled.assign(I_S=filled.I_S + 0.3), triples, beta=BETA, gamma=GAMMA,
                          impurity="gini", delta=0.05, m=500)
    assert not table.rows[0]["holds"] and table.rows[1]["holds"] and not table.rows[2]["holds"]
    table = VerificationTable()  # a Hoeffding deviation off by a factor of 2 breaks the second evaluation
    lemma8.check_path_audit(table, filled.assign(hoeffding=2 * filled.hoeffding), triples, beta=BETA, gamma=GAMMA,
                          impurity="gini", delta=0.05, m=500)
    assert not table.rows[1]["holds"]
    table = VerificationTable()  # ID3's gains off by a feature-dependent factor
    skewed = filled.assign(gain=filled.gain * (1 - filled.p_bar) / filled.p_bar)
    lemma8.check_path_audit(table, skewed, triples, beta=BETA, gamma=GAMMA, impurity="gini", delta=0.05, m=500)
    assert not table.rows[2]["holds"]
    dev, pairs = lemma8.gain_identity_deviation(filled, impurity="entropy")
    assert dev > 1e-6 and pairs > 0  # the audited gains are Gini's, not entropy's
    values = lemma8.path_audit_glue(audit, filled, delta=0.05)
    assert values["ch5_audit_delta"] == "0.05" and values["ch5_audit_dev"] <= 1 < values["ch5_audit_inverted"]
    assert values["ch5_audit_relevant"] == int(filled.relevant.sum())
    assert 0 <= values["ch5_audit_strong"] <= values["ch5_audit_relevant"]


# --- Lemma 11 -------------------------------------------------------------------------------------
def test_lemma11_quantiles_clear_the_threshold():
    lem11 = lemma11.lemma11_quantiles(ks=[1, 2], alpha=ALPHA, c=C, n_functions=2, n_smooth=40, rng=rng())
    assert len(lem11) == 2 * 2 * 2 * len(lemma11.LEMMA11_DELTAS)
    assert (lem11.ratio >= 1).all()
    expected = [bounds.bdm20_lemma11_threshold(ALPHA, d, C, k) for d, k in zip(lem11.delta, lem11.k)]
    assert np.allclose(lem11.threshold, expected)
    assert ((lem11.worst_prob >= 0) & (lem11.worst_prob <= 1)).all()
    with pytest.raises(ValueError, match="n_smooth"):
        lemma11.lemma11_quantiles(ks=[1], alpha=ALPHA, c=C, n_functions=1, n_smooth=0, rng=rng())


def test_check_lemma11_figure_and_glue():
    lem11 = lemma11.lemma11_quantiles(ks=[2], alpha=ALPHA, c=C, n_functions=2, n_smooth=20, rng=rng())
    table = VerificationTable()
    lemma11.check_lemma11(table, lem11)
    # random juntas clear the threshold by orders of magnitude: observations (the worst member is the check)
    assert kinds(table) == ["observation"] and all_hold(table) and table.rows[0]["margin"] < 1e-3
    values = lemma11.lemma11_glue(lem11, n_smooth=20)
    assert values["ch5_n_smooth"] == 20 and values["ch5_lemma11_thr_min"] <= values["ch5_lemma11_thr_max"]
    assert is_figure(lemma11.lemma11_figure(lem11), 2)


# --- Theorem 2 ------------------------------------------------------------------------------------
def test_theorem2_task_learns_a_small_junta():
    row = theorem2.theorem2_task("k", "1/2", 1, C, 500, rng=rng(0), n=6, alpha=ALPHA, impurity="gini")
    assert row["zero_loss"] and row["only_relevant"] and row["cells_covered"] and row["depth"] == 1


def test_theorem2_points_and_run(thm2, rate2):
    pts = theorem2.theorem2_points(ks=[1, 2], c=C, cs=[0.1, 0.2], m_grid=[100, 400])
    assert pd.DataFrame(pts).panel.value_counts().to_dict() == {"k": 4, "c": 4, "centre": 4}
    assert len(thm2) == len(pts) * 2
    assert set(rate2.centre) == {"1/2", "random", "edge"}
    assert is_figure(theorem2.theorem2_figure(rate2, c=C, k_max=2), 2)


def test_centre_rates_figure_and_glue(rate2):
    centres = theorem2.centre_rates(rate2, k_max=2)
    assert set(centres.centre) == {"1/2", "random", "edge"} and (centres.k == 2).all()
    assert is_figure(theorem2.centres_figure(centres, c=C, k_max=2), 1)
    made = pd.DataFrame({"centre": ["1/2", "random", "edge"] * 2, "zero_loss": [0.0, 1.0, 0.5] * 2})
    values = theorem2.centres_glue(made, reps=100, grid_size=5)
    assert values["ch5_hardest_centre"] == "1/2" and values["ch5_centre_spread"] == 1.0
    assert values["ch5_centre_sd"] == pytest.approx(math.sqrt(0.25 / 500))
    assert values["ch5_centre_verdict"].startswith("larger")
    close = theorem2.centres_glue(made.assign(zero_loss=[0.50, 0.51, 0.52] * 2), reps=2, grid_size=2)
    assert close["ch5_centre_verdict"].startswith("within")


def test_theorem12_samples_and_check(rate2):
    thm12 = theorem2.theorem12_samples(rate2, ks=[1, 2], beta=BETA, gamma=GAMMA, alpha=ALPHA, c=C, n=6)
    assert list(thm12.k) == [1, 2]
    assert thm12["Theorem 5.3 as printed, B = 1 (paper's Theorem 12)"].iloc[1] > thm12["Theorem 5.3 as printed, B = 1 (paper's Theorem 12)"].iloc[0]
    table = VerificationTable()
    theorem2.check_theorem2(table, thm12, gamma=GAMMA, impurity="gini", m_max=400, m_min=100)
    assert kinds(table) == ["observation"] * 4 and "1-juntas" in table.rows[0]["quantity"]
    assert not lint_table(table)
    assert (thm12[theorem2.THEOREM12_UNION] > thm12["Theorem 5.3 as printed, B = 1 (paper's Theorem 12)"]).all()
    table = VerificationTable()
    theorem2.check_theorem2(table, thm12.assign(**{"m90 (in the grid)": math.inf}), gamma=math.inf,
                        impurity="entropy", m_max=400)
    assert kinds(table) == ["observation"] * 2 and table.rows[0]["measured"] == 400


def test_theorem2_glue(rate2):
    values = theorem2.theorem2_glue(rate2, ks=[1, 2], cs=[0.1, 0.2], m_top=400)
    assert values["ch5_cmin"] == 0.1
    top = rate2[(rate2.panel == "k") & (rate2.m == 400)].set_index("k").zero_loss
    assert values["ch5_thm2_success_kmin"] == top.loc[1] and values["ch5_thm2_success_kmax"] == top.loc[2]


# --- Conjecture 3 ---------------------------------------------------------------------------------
def test_conjecture3_shape_known_answers():
    # depth floor(log2 n): inside Conjecture 3's regime (depth <= log2 n)
    assert conjecture3.conjecture3_shape(20) == (2, 2, 20, 4)
    assert conjecture3.conjecture3_shape(6) == (1, 1, 6, 2)
    assert conjecture3.conjecture3_shape(100) == (3, 3, 100, 6)
    assert conjecture3.conjecture3_shape(1000) == (5, 4, 1000, 9)
    for n in (4, 8, 20, 100, 1000):
        s, L, n_conj, d = conjecture3.conjecture3_shape(n)
        assert d <= math.log2(n) and s + L == d and n_conj == n
    with pytest.raises(ValueError, match="n"):
        conjecture3.conjecture3_shape(1)


def test_conjecture3_task_reads_the_whole_selector_of_lists():
    s, L, n_conj, d = conjecture3.conjecture3_shape(8)
    row = conjecture3.conjecture3_task(conjecture3.CONJECTURE_FAMILIES[0], 400, rng=rng(), n_conj=n_conj, selectors=s, list_length=L,
                                depth=d, alpha=ALPHA, c=C, impurity="gini")
    assert row["target_relevant"] == (2**s - 1) + 2**s * L
    assert 0.0 <= row["error"] <= 1.0 and row["zero_loss"] == (row["error"] <= 1e-12)
    with pytest.raises(ValueError, match="family"):
        conjecture3.conjecture3_task("forest", 10, rng=rng(), n_conj=n_conj, selectors=s, list_length=L, depth=d,
                              alpha=ALPHA, c=C, impurity="gini")


def test_run_conjecture3_figure_glue_and_observation(conj):
    assert len(conj) == 2 * 2 * 4  # at least 4 runs per point
    values = conjecture3.conjecture3_glue(conj, m_grid=[100, 300], selectors=1, list_length=3, n_conj=8, depth=4)
    assert values["ch5_conj_zero"].endswith("of 4") and values["ch5_log2n"] == 3.0
    table = VerificationTable()
    conjecture3.check_conjecture3(table, conj, m_top=300, depth=4)
    assert kinds(table) == ["observation"]
    top = conj[(conj.family == conjecture3.CONJECTURE_FAMILIES[0]) & (conj.m == 300)]
    assert table.rows[0]["measured"] == pytest.approx(top.zero_loss.mean())
    assert is_figure(conjecture3.conjecture3_figure(conj, depth=4), 2)


# --- the hardest members ---------------------------------------------------------------------------
def test_theorem12_union_bound_is_the_printed_form_with_b_6_to_the_8():
    from dtcore import bounds

    for k in (2, 4):
        union = bounds.bdm20_theorem12_union_samples(8.0, 4.0, 0.1, 0.15, k, 20, 0.05, 0.05)
        printed = bounds.bdm20_theorem12_samples(8.0, 4.0, 0.1, 0.15, k, 20, 0.05, 0.05, B=6**8)
        assert union == pytest.approx(printed / 16, rel=1e-12)
    assert bounds.bdm20_theorem12_union_samples(8.0, 4.0, 0.1, 0.15, 4, 20, 0.05, 0.05) == pytest.approx(1.768e77,
                                                                                                          rel=1e-3)


def test_member_candidates_and_starts_lie_in_their_classes():
    from dtcore.smoothed import is_alpha_c_distribution

    for v in hardest.member_candidates(hardest.MEMBER_CLASSES[0], alpha=ALPHA, c=C):
        assert is_alpha_c_distribution(ProductDistribution(np.array([v])), ALPHA, C)
    centres = hardest.member_candidates(hardest.MEMBER_CLASSES[1], alpha=ALPHA, c=C)
    assert ((centres > ALPHA + C) & (centres < 1 - ALPHA - C)).all()
    with pytest.raises(ValueError, match="kind"):
        hardest.member_candidates("trees", alpha=ALPHA, c=C)
    name, theta, table = hardest.member_start(hardest.MEMBER_CLASSES[0], 1, 3, rng=rng(), alpha=ALPHA, c=C)
    assert name == "outer" and theta.size == 4 and table.size == 8


def test_search_finds_a_member_no_easier_than_its_starts():
    ev, worst = hardest.search_hardest_member(hardest.MEMBER_CLASSES[0], k=2, n=6, m=100, alpha=ALPHA, c=C,
                                           impurity="gini", restarts=2, sweeps=1, runs=6, rng=rng(3))
    assert worst["evaluations"] == len(ev) == 2 * (1 + 3 * 2)
    assert worst["rate"] == ev.rate.min() and worst["rate"] <= ev.groupby("restart").rate.first().min()
    curve = hardest.member_curve(hardest.MEMBER_CLASSES[0], worst, k=2, n=6, m_grid=[100, 300], m_cap=3000, reps=4,
                              alpha=ALPHA, c=C, impurity="gini", rng=rng(4))
    assert list(curve.m)[:2] == [100, 300] and curve.m.max() <= 3000
    assert hardest.extended_grid([100, 1000], 30_000) == [100, 1000, 3000, 10000, 30000]


def test_hardest_members_rows_glue_and_growth():
    budget = dict(restarts=1, sweeps=1, runs=4)
    _, worst, _, guards = hardest.hardest_members(hardest.MEMBER_CLASSES[1], ks=[1, 2], n=6, m_probe={1: 100, 2: 100},
                                                  m_grid=[100, 300], m_cap=300, reps=4, alpha=ALPHA, c=C, impurity="gini",
                                                  budget=budget, rng=rng(5))
    assert list(guards.k) == [1, 2] and guards["grid members"].iloc[0] == 4 and math.isnan(guards["grid min"].iloc[1])
    sizes = hardest.member_sizes(worst, beta=BETA, gamma=GAMMA, alpha=ALPHA, c=C, n=6)
    table = VerificationTable()
    hardest.check_hardest_members(table, sizes, gamma=GAMMA, impurity="gini", budget=budget)
    assert set(kinds(table)) == {"observation"} and not lint_table(table)
    assert all("search: 1 restarts" in row["worst_case"] for row in table.rows[:2])
    values = hardest.hardest_glue(sizes, budget, k_max=2, alpha=ALPHA, c=C)
    assert values["ch5_thm2_worst_asks"] == common.power_of_ten(float(sizes["theorem asks (printed)"].iloc[1]))
    assert "ch5_thm1_worst_m90" not in values
    assert "relevant coordinates" in values["ch5_thm2_worst_where"]
    frame = pd.DataFrame({"k": [2, 4], "m90": [100.0, math.inf], "largest m run": [10_000, 10_000]})
    assert hardest.growth_in_k(frame) == (pytest.approx(10.0), False)
    assert common.power_of_ten(1.52e27) == "1.52·10²⁷" and common.power_of_ten(300.0) == "300"
    assert common.power_of_ten(1e-17) == "1·10⁻¹⁷" and common.power_of_ten(30000.0) == "30,000"
    html = hardest.hardest_table(sizes).to_html()
    assert "<table" in html and "000000" not in html


def test_bound_power_fails_at_a_factor_of_two():
    sup56 = lemmas56.exhaustive_gain_lemmas(measures=((0.1, 0.3, 0.7),), n=3)
    power = lemmas56.bound_power(sup56)
    assert list(power.row) == ["passes", "fails", "fails"] and power["bound multiplied by"].iloc[-1] == 2.0


def test_hardest_figure(rate1, rate2):
    curve = pd.DataFrame({"k": [1, 1, 2, 2], "m": [100, 400, 100, 400], "zero_loss": [0.5, 1.0, 0.0, 0.5]})
    assert is_figure(hardest.hardest_figure(curve, rate1, curve, rate2), 2)


# --- the guards of the hardest-member searches (issue 36) ------------------------------------------
def test_boundary_members_and_reference_are_the_class_ends():
    grid = hardest.boundary_members(hardest.MEMBER_CLASSES[0], 2, alpha=ALPHA, c=C)
    assert grid.shape == (8, 3) and len({tuple(r) for r in grid}) == 8
    assert set(np.round(grid.ravel(), 6)) == {round(ALPHA, 6), round(0.5 - C, 6)}
    smooth = hardest.boundary_members(hardest.MEMBER_CLASSES[1], 1, alpha=ALPHA, c=C)
    assert set(np.round(smooth.ravel(), 6)) == {round(ALPHA + C, 6), 0.5}
    # the search's candidates are the same two ends (a candidate dropped would leave part of the grid unseen)
    for kind in hardest.MEMBER_CLASSES:
        ends = set(np.round(hardest.boundary_members(kind, 1, alpha=ALPHA, c=C).ravel(), 9))
        assert ends == set(np.round(hardest.member_candidates(kind, alpha=ALPHA, c=C), 9))
    name, theta, table = hardest.reference_member(hardest.MEMBER_CLASSES[0], 3, alpha=ALPHA, c=C)
    assert "alpha" in name and np.allclose(theta, ALPHA) and np.array_equal(table, parity_table(3))
    name, theta, table = hardest.reference_member(hardest.MEMBER_CLASSES[1], 2, alpha=ALPHA, c=C)
    assert "1/2" in name and np.allclose(theta, 0.5) and np.array_equal(table, parity_table(2))
    with pytest.raises(ValueError, match="kind"):
        hardest.boundary_members("gaussian", 2, alpha=ALPHA, c=C)


def test_search_guard_rates_are_the_searchs_own_and_a_flipped_search_fails_the_rows():
    kind = hardest.MEMBER_CLASSES[0]
    ev, worst = hardest.search_hardest_member(kind, k=2, n=6, m=100, alpha=ALPHA, c=C, impurity="gini",
                                              restarts=2, sweeps=1, runs=6, rng=rng(3))
    # boundary_rates scores a member on the search's runs: the start's rate is reproduced exactly
    first = ev[ev.restart == 0].iloc[0]
    start = np.array([float(v) for v in first.theta.split()])
    assert len(worst["tables"]) == 2
    again = hardest.boundary_rates(kind, start[None], worst["tables"][0], base=worst["base"], runs=6, m=100, n=6,
                                   alpha=ALPHA, c=C, impurity="gini")
    assert again[0] == pytest.approx(first.rate, abs=0.2)   # the start is printed to 3 digits: close, not equal
    guard = hardest.search_guard(kind, worst, k=2, m=100, n=6, runs=6, alpha=ALPHA, c=C, impurity="gini",
                                 exhaustive=True)
    assert guard["grid members"] == 8 and 0.0 <= guard["grid min"] <= 1.0
    guards = pd.DataFrame([guard])
    table = VerificationTable()
    hardest.check_search(table, guards, budget=dict(restarts=2, sweeps=1, runs=6))
    assert kinds(table) == ["identity", "identity"] and not lint_table(table)
    assert all_hold(table) == (guard["rate found"] <= min(guard["grid min"], guard["reference rate"]))
    worse = guards.assign(**{"rate found": 1.0, "grid min": 0.5, "reference rate": 0.5})
    table = VerificationTable()
    hardest.check_search(table, worse, budget=dict(restarts=2, sweeps=1, runs=6))
    assert [row["holds"] for row in table.rows] == [False, False]
    values = hardest.search_glue(guards, ev, tag="thm1")
    assert values["ch5_thm1_grid_members"] == 8 and values["ch5_thm1_members_seen"] == ev.theta.nunique()


def test_the_bounds_of_the_counted_rows_are_computed_twice():
    from dtcore.impurity import strong_concavity as beta_of
    assert lemma9.lemma9_bound_as_printed(0.1, 0.15, 2) == pytest.approx(0.003)
    assert lemma9.lemma9_bound_as_printed(0.1, 0.15, 3) == pytest.approx(bounds.bdm20_lemma9_covariance_lower(0.1, 0.15, 3))
    assert lemma8.hoeffding_as_printed(np.array([100.0]), 0.05)[0] == pytest.approx(0.4641520531, rel=1e-9)
    assert lemmas56.ENTROPY_BETA == pytest.approx(beta_of("entropy"), rel=1e-15)
    sup9 = pd.DataFrame({"alpha": [0.1], "c": [0.15], "k": [2]})
    table = VerificationTable()
    lemma9.check_lemma9_bound(table, sup9)
    assert kinds(table) == ["identity"] and all_hold(table) and not lint_table(table)
