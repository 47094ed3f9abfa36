"""Chapter 2's experiments (the modules of dtbook.experiments.ch02) at small size: known answers and invariants."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import partial

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from dtbook import figures
from dtbook.experiments.ch02 import (common, fact_b4, formulas, impurity, lemma_c1, section1, theorem1,
                                          theorem1_proof, theorem2, theorem3, theorem5, theorem5_worst)
from dtcore import bounds
from dtbook.report import VerificationTable, lint_table
from dtbook.sweep import grid, sweep
from dtcore.cube import ProductDistribution, all_points
from dtcore.functions import majority, tribes
from dtcore.impurity import IMPURITIES, holder_constants, kappa
from dtcore.learnability import hoeffding_halfwidth
from dtcore.topdown import depth_cap

N, N_TRAIN, SIZES, BATCHES = 8, 1500, [4, 8], [4, 64]


def _rng(k: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 + k)


def _all_hold(table: VerificationTable) -> bool:
    return len(table.failures()) == 0


def _kinds(table: VerificationTable) -> list[str]:
    return list(table.frame()["kind"])


def _is_book_figure(fig: plt.Figure, n_axes: int) -> bool:
    ok = math.isclose(fig.get_figwidth(), figures.WIDTH) and len(fig.axes) == n_axes
    plt.close(fig)
    return ok


# --- targets and impurities ---------------------------------------------------------------------------

def test_monotone_list_size_is_n_plus_one_up_to_16():
    assert common.monotone_list_size(8) == 9
    assert common.monotone_list_size(20) == 16
    with pytest.raises(ValueError, match="n must be at least 1"):
        common.monotone_list_size(0)


def test_make_target_gives_the_stated_functions_and_sizes():
    X = all_points(N)
    f, opt, size = common.make_target("majority", N, rng=_rng(), s_mono=9)
    assert opt is None and np.isnan(size) and np.array_equal(f(X), majority(X, range(7)))  # odd: 7 of 8 variables
    f, _, _ = common.make_target("tribes", N, rng=_rng(), s_mono=9)
    assert np.array_equal(f(X), tribes(X, 3))
    f, opt, size = common.make_target("monotone list", N, rng=_rng(), s_mono=9)
    assert opt == 0.0 and size == 9
    with pytest.raises(ValueError, match="kind must be one of"):
        common.make_target("parity", N, rng=_rng(), s_mono=9)


def test_impurity_constants_are_the_known_ones_and_hold_on_the_grid():
    df = impurity.impurity_constants(grid_points=101).set_index("G")
    assert df.loc["Gini", "kappa"] == pytest.approx(2.0) and df.loc["Gini", "alpha"] == 1.0
    assert df.loc["entropy", "kappa"] == pytest.approx(1 / math.log(2)) and df.loc["entropy", "alpha"] == 0.5
    assert (df["min concavity slack"] >= -1e-12).all() and (df["min Hölder slack"] >= -1e-12).all()
    with pytest.raises(ValueError, match="grid_points"):
        impurity.impurity_constants(grid_points=2)


def test_grid_constants_bracket_the_best_constants():
    for name in IMPURITIES:
        kappa_grid, c_grid = impurity.grid_constants(name, grid_points=201)
        c, _ = holder_constants(name)
        assert kappa(name) - 1e-9 <= kappa_grid <= 1.2 * kappa(name)  # kappa is best: the grid allows little more
        assert 0.8 * c <= c_grid <= c + 1e-9


@pytest.fixture(scope="module")
def impurity_worst() -> pd.DataFrame:
    return impurity.impurity_worst_cases(grid_points=201)


def test_impurity_worst_cases_find_the_known_witnesses(impurity_worst):
    by = impurity_worst.set_index(["definition", "impurity"])
    assert len(impurity_worst) == 6 and (impurity_worst["pairs"] == 201 * 200).all()
    assert (impurity_worst["sup_ratio"] <= 1 + 1e-6).all()
    for name in ("entropy", "kearns_mansour"):  # kappa is attained about 1/2
        assert abs(by.loc[("Definition 4", name), "a"] - 0.5) < 0.01
        assert by.loc[("Definition 4", name), "at_witness"] == pytest.approx(kappa(name), rel=1e-4)
    assert by.loc[("Definition 3", "gini"), "a"] == 0.0 and by.loc[("Definition 3", "gini"), "b"] == pytest.approx(0.005)
    assert by.loc[("Definition 3", "entropy"), "at_witness"] == pytest.approx(holder_constants("entropy")[0], rel=1e-4)
    assert impurity.concavity_modulus("gini", 0.1, 0.7) == pytest.approx(2.0)
    assert impurity.holder_quotient("kearns_mansour", 0.0, 0.25, 0.5) == pytest.approx(2 * math.sqrt(0.1875) / 0.5)
    with pytest.raises(ValueError, match="must differ"):
        impurity.concavity_modulus("gini", 0.3, 0.3)
    assert "Definition 4 for entropy" in impurity.impurity_glue(impurity_worst)["ch2_impurity_sup_sentence"]


def test_check_impurity_constants_rows_are_clean_and_a_wrong_constant_fails(impurity_worst):
    table = VerificationTable()
    impurity.check_impurity_constants(table, impurity_worst, grid_points=101)
    # per G, Definition 4 then 3: Gini's kappa is algebra (shown), entropy's C an identity (see the docstring)
    assert _kinds(table) == ["observation", "theorem", "theorem", "identity", "theorem", "theorem"] + ["observation"] * 6
    assert _all_hold(table) and lint_table(table) == []
    assert all(table.frame()["tight"].iloc[[1, 2, 4, 5]] != "")  # best constants: never the closest call
    # each counted row fails for its worse impurity at the witness (entropy in nats, ...)
    assert table.frame()["fails_under_fails"].iloc[[1, 2, 4, 5]].all()
    # a kappa twice too large (the catalogue's fault), or a C too small, fails its row
    doubled = impurity_worst.assign(constant=np.where(impurity_worst["definition"] == "Definition 4",
                                                      2 * impurity_worst["constant"], impurity_worst["constant"]))
    bad = VerificationTable()
    impurity.check_impurity_constants(bad, doubled, grid_points=101)
    assert list(bad.failures()["result"]) == ["Definition 4"] * 2  # Gini's row is shown, not counted
    small = impurity_worst.assign(constant=np.where(impurity_worst["definition"] == "Definition 3",
                                                    0.99 * impurity_worst["constant"], impurity_worst["constant"]))
    bad = VerificationTable()
    impurity.check_impurity_constants(bad, small, grid_points=101)
    assert list(bad.failures()["result"]) == ["Definition 3"] * 3


def test_worse_impurities_violate_their_rows_at_the_witness():
    a, b = 0.4995, 0.5005
    label, value = impurity.worse_at_witness("Definition 4", "entropy", a, b, 0.5)
    assert "nats" in label and value == pytest.approx(kappa("entropy") * math.log(2), rel=1e-5) and value < kappa("entropy")
    assert impurity.worse_at_witness("Definition 4", "kearns_mansour", a, b, 0.5)[1] == pytest.approx(0.5, rel=1e-5)
    h = 0.0005  # the Hölder witnesses (0, h): √Gini is not Lipschitz, Gini^(1/4) not ½-Hölder
    assert impurity.worse_at_witness("Definition 3", "gini", 0.0, h, 1.0)[1] == pytest.approx(2 * math.sqrt((1 - h) / h))
    assert impurity.worse_at_witness("Definition 3", "kearns_mansour", 0.0, h, 0.5)[1] > 2 * holder_constants("kearns_mansour")[0]
    with pytest.raises(ValueError, match="one of"):
        impurity.worse_at_witness("Definition 4", "gini", a, b, 1.0)


def test_impurities_figure_has_the_book_width():
    assert _is_book_figure(impurity.impurities_figure(), 1)


# --- TopDown_G against scikit-learn --------------------------------------------------------------------

def test_cart_cross_check_finds_the_same_splits_and_its_check_can_fail():
    cross = section1.cart_cross_check(N, 3000, rng=_rng(), t=8)
    assert list(cross["criterion"]) == ["gini", "entropy"]
    assert (cross["splits"] == 7).all() and (cross["splits that differ"] == 0).all()
    table = VerificationTable()
    section1.check_cart_cross_check(table, cross, t=8)
    assert _kinds(table) == ["identity"] * 2 and _all_hold(table)
    bad = VerificationTable()
    section1.check_cart_cross_check(bad, cross.assign(**{"splits that differ": [0, 1]}), t=8)
    assert len(bad.failures()) == 1


# --- Theorem 1 ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def thm1() -> pd.DataFrame:
    task = partial(theorem1.theorem1_task, n_train=N_TRAIN, batch_sizes=BATCHES, s_mono=9)
    return sweep(task, grid(target=list(common.TARGETS), impurity=["gini"], t=SIZES, d=[N]), repetitions=2, seed=0,
                 n_jobs=1)


def test_theorem1_task_rows_are_consistent(thm1):
    assert len(thm1) == len(common.TARGETS) * len(SIZES) * 2 * len(BATCHES)
    assert ((thm1["error"] >= 0) & (thm1["error"] <= 1)).all()
    assert (thm1["labels"] <= thm1["requests"]).all() and (thm1["labels"] <= N_TRAIN).all()
    assert (thm1["leaves"] <= thm1["t"]).all()
    assert all((grp["depth"] <= depth_cap(t) + 1).all() for t, grp in thm1.groupby("t"))
    lists = thm1[thm1["target"] == "monotone list"]
    assert (lists["target_size"] == 9).all() and (lists["opt_s"] == 0).all()
    # one full-batch error per data set, shared by its b rows
    assert (thm1.groupby(["target", "t", "rep"])["full_error"].nunique() == 1).all()


def _synthetic(excess: dict[int, float], reps: int) -> pd.DataFrame:
    rows = [{"target": "x", "impurity": "gini", "t": 8, "b": b, "rep": r, "error": 0.1 + e, "full_error": 0.1,
             "cart_error": 0.1} for b, e in excess.items() for r in range(reps)]
    return pd.DataFrame(rows)


def test_matching_b_is_the_smallest_b_within_eps_when_the_spread_is_zero():
    df = _synthetic({2: 0.5, 4: 0.03, 8: 0.01, 16: 0.0}, reps=3)
    per = theorem1.excess_bounds(df, ["target", "impurity", "t"])
    assert np.allclose(per["excess_ucb"], per["mean_excess"]) and np.allclose(per["spread"], 0.0)
    got = theorem1.matching_b(df, ["target", "impurity", "t"], eps=0.02)
    assert got["b_star"].iloc[0] == 8 and got["excess_at_max_b"].iloc[0] == pytest.approx(0.0)
    # a single repetition has no spread: no b can be said to match
    one = theorem1.matching_b(_synthetic({2: 0.0, 4: 0.0}, reps=1), ["target", "impurity", "t"])
    assert np.isnan(one["b_star"].iloc[0])
    with pytest.raises(ValueError, match="confidence"):
        theorem1.excess_bounds(df, ["target", "impurity", "t"], confidence=1.0)


def test_bstar_table_has_one_column_per_statistic_and_t(thm1):
    bstar = theorem1.matching_b(thm1, ["target", "impurity", "t"])
    out = theorem1.bstar_table(bstar)
    assert out.shape == (len(common.TARGETS), 4 * len(SIZES))


def test_theorem1_figures_have_the_book_width(thm1):
    bstar = theorem1.matching_b(thm1, ["target", "impurity", "t"])
    bstar_d = theorem1.matching_b(thm1[thm1["t"] == 8].assign(d=N), ["target", "impurity", "d"])
    assert _is_book_figure(theorem1.error_vs_b_figure(thm1, t=8, d=N, s_mono=9), 4)
    assert _is_book_figure(theorem1.bstar_figure(bstar, bstar_d, sizes=SIZES, d=N, delta=0.1), 2)


def test_check_theorem1_rows_and_a_depth_beyond_the_cap_fails(thm1):
    bstar = theorem1.matching_b(thm1, ["target", "impurity", "t"])
    kw = dict(sizes=SIZES, batch_sizes=BATCHES, repetitions=2, s_mono=3)
    table = VerificationTable()
    theorem1.check_theorem1(table, thm1.assign(target_size=np.where(thm1["target"] == "monotone list", 3, np.nan)), bstar, **kw)
    kinds = _kinds(table)
    # 3 excess rows at t = 8 (shown: the premise cannot be met), the lists' size, the random lists' error (t >= 2 s;
    # an illustration), the two cap formulas, one depth row per t
    assert kinds == ["observation"] * 3 + ["identity", "observation", "identity"] + ["identity"] * len(SIZES)
    assert lint_table(table) == []
    deep = VerificationTable()
    theorem1.check_theorem1(deep, thm1.assign(depth=depth_cap(8) + 2), bstar, **kw)
    assert "Figure 1 (depth cap)" in set(deep.failures()["result"])
    assert set(deep.frame().loc[deep.frame()["result"] == "Figure 1 (depth cap)", "reads_rule"]) >= {"depth cap"}
    single = VerificationTable()
    theorem1.check_theorem1(single, thm1, bstar, **{**kw, "repetitions": 1, "s_mono": 9})
    assert _kinds(single)[:3] == ["observation"] * 3


def test_theorem1_glue_names_and_the_formal_minibatch_is_astronomical(thm1):
    bstar = theorem1.matching_b(thm1, ["target", "impurity", "t"])
    values = theorem1.theorem1_glue(thm1, bstar, sizes=SIZES, batch_sizes=BATCHES, n=N, n_train=N_TRAIN, delta=0.1,
                                s_mono=9)
    assert values["ch2_b_max"] == 64 and values["ch2_t_show"] == 8 and values["ch2_confidence"] == "95%"
    assert values["ch2_b_formal"] > 1e6 and all(k.startswith("ch2_") for k in values)


# --- the proof of Theorem 1 ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def proof() -> pd.DataFrame:
    return theorem1_proof.proof_traces(N, N_TRAIN, s_mono=9, t=16, b=64, repetitions=1, rng=_rng(1))


def test_replayed_traces_satisfy_fact_2_1_and_never_raise_the_completion_error(proof):
    assert set(proof["impurity"]) == set(IMPURITIES)
    for _, run in proof.groupby(["impurity", "run"]):
        assert run["potential"].iloc[0] <= 1.0 + 1e-12
        assert (np.diff(run["error"].to_numpy()) <= 1e-12).all()  # a refinement's best completion is no worse
        splits = run.dropna(subset=["true_gain"])
        assert np.allclose(splits["potential"] - splits["potential_after"], splits["true_gain"], atol=1e-12)


def test_replay_reads_one_row_per_split_plus_the_final_state():
    from dtcore.exact_size import monotone_decision_list
    from dtcore.topdown import minibatch_top_down

    rng = _rng(2)
    X = (rng.random((800, N)) < 0.5).astype(np.uint8)
    f = monotone_decision_list(N, 5, rng=rng)
    res = minibatch_top_down(X, f.predict(X), size=6, batch_size=32, impurity="gini", rng=rng)
    out = theorem1_proof.replay(res, f.truth_table(), "gini")
    assert len(out) == len(res.trace) and list(out["j"][: res.tree.size - 1]) == list(range(1, res.tree.size))


def test_proof_statistics_and_their_rows(proof):
    stats = theorem1_proof.proof_statistics(proof, eps=0.02, s_mono=9, t=16, n=N, delta=0.1, n_train=N_TRAIN)
    assert stats["fact21_deviation"] <= 1e-12 and 0 <= stats["b7_max"] <= 4
    assert stats["splits"] == proof["true_gain"].notna().sum() and stats["b3_needed"] > 0
    table = VerificationTable()
    theorem1_proof.check_proof(table, stats, eps=0.02, b=64, n_train=N_TRAIN)
    # Fact 2.1 (an equality, tight by construction); Fact B.4 on runs, Lemma B.5 (premise unmet), B.1/B.2/B.6/summation, B.7 on runs, B.3: shown
    assert _kinds(table) == ["theorem"] + ["observation"] * 8
    assert lint_table(table) == [] and stats["b5_premise_b"] > N_TRAIN and stats["b1_depth"] < 0
    values = theorem1_proof.proof_glue(stats, eps=0.02, b=64)
    assert values["ch2_proof_splits"] == stats["splits"] and values["ch2_b_pf"] == 64
    broken = VerificationTable()
    theorem1_proof.check_proof(broken, {**stats, "fact21_deviation": 1e-6}, eps=0.02, b=64, n_train=N_TRAIN)
    assert list(broken.failures()["result"]) == ["Fact 2.1"]
    # the row's power: the gain without its leaf weight misses the drop at every split below the root
    assert stats["fact21_unweighted_deviation"] > 1e-6 and table.frame()["fails_under_fails"].iloc[0]


# --- Lemma C.1 ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def c1() -> lemma_c1.SizeEstimatorRun:
    return lemma_c1.size_estimator_tails(N, N_TRAIN, t=16, b=32, n_draws=400, m_grid=[4, 16], delta=0.1, rng=_rng(3))


def test_size_estimator_is_exactly_unbiased_and_its_tail_falls(c1):
    assert c1.exact_mean == pytest.approx(c1.tree.size, abs=1e-9)
    for _, sub in c1.tails.groupby("m"):
        assert (np.diff(sub["empirical"].to_numpy()) <= 0).all() and len(sub) == 40
    assert [r["m"] for r in c1.per_m] == [4, 16]


def test_check_size_estimator_rows_and_glue(c1):
    table = VerificationTable()
    lemma_c1.check_size_estimator(table, c1, n_draws=400, delta=0.1)
    # the exact identity; per m: unbiasedness in s.e. units (restates it) and the tail on this random tree: shown
    assert _kinds(table) == ["identity"] + ["observation", "observation"] * 2 and _all_hold(table) and lint_table(table) == []
    values = lemma_c1.size_estimator_glue(c1)
    assert values["ch2_c1_size"] == c1.tree.size and values["ch2_c1_depth"] == c1.tree.depth
    assert _is_book_figure(lemma_c1.size_estimator_figure(c1, n_draws=400), 1)


# --- Theorems 2 and 5 ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sample() -> tuple[np.ndarray, np.ndarray]:
    return common.tribes_sample(N, N_TRAIN, rng=_rng(4))


def test_tribes_sample_labels_by_tribes(sample):
    X, y = sample
    assert X.shape == (N_TRAIN, N) and np.array_equal(y, tribes(X, 3))


def test_local_learner_answers_like_the_global_tree_within_lemma_d1(sample):
    X, y = sample
    local = theorem2.local_learner_queries(X, y, sizes=SIZES, b=16, n_queries=4, rng=_rng(5))
    assert local.mismatches == 0 and local.same_tree == len(SIZES) and len(local.frame) == 8
    assert (local.frame["requests"] <= local.frame["bound"]).all()
    assert (local.frame["labels"] <= local.frame["requests"]).all()
    # the reach of the count: one minibatch per node of depth <= D and one for the query's leaf
    reach = local.frame["t"].map(lambda t: theorem2.local_learner_request_reach(16, t, n_queries=1))
    assert (local.frame["requests"] <= reach).all()
    table = VerificationTable()
    theorem2.check_local_learner(table, local, sizes=SIZES, b=16)
    # at t = 4, 8 (b = 16) Lemma D.1's count is above the reach: shown, not counted
    assert _kinds(table) == ["identity"] * 2 + ["observation"] * len(SIZES) and _all_hold(table)
    assert lint_table(table) == []
    # with b = 1 the count b((b+1)(D+1)+1) is below the reach b 2^(D+1) from t = 4: theorem rows, which fail
    # when a query requests more than the count
    ones = local.frame.assign(bound=local.frame["t"].map(lambda t: bounds.bglt20_lemma_d1_labels(1, t, 1, 1)))
    counted = VerificationTable()
    theorem2.check_local_learner(counted, theorem2.LocalQueries(ones.assign(requests=1), 0, len(SIZES)), sizes=SIZES, b=1)
    assert _kinds(counted)[2:] == ["theorem"] * len(SIZES) and _all_hold(counted)
    over = VerificationTable()
    theorem2.check_local_learner(over, theorem2.LocalQueries(ones.assign(requests=ones["bound"] + 1), 0, len(SIZES)),
                             sizes=SIZES, b=1)
    assert list(over.failures()["result"]) == ["Lemma D.1"] * len(SIZES)
    wrong = VerificationTable()
    theorem2.check_local_learner(wrong, theorem2.LocalQueries(local.frame, 1, local.same_tree), sizes=SIZES, b=16)
    assert len(wrong.failures()) == 1


@pytest.fixture(scope="module")
def tprime(sample) -> tuple[pd.DataFrame, pd.DataFrame]:
    X, y = sample
    rng = _rng(6)
    tp = theorem5.tprime_runs(X, y, sizes=[8], eta=0.25, delta=0.1, runs=2, rng=rng)
    pure = theorem5.pure_leaves_runs(X, sizes=[8], s_mono=5, eta=0.25, delta=0.1, runs=2, rng=rng)
    return tp, pure


def test_request_reach_and_the_size_at_which_the_count_bites():
    assert theorem2.local_learner_request_reach(32, 8, n_queries=1) == 32 * 2 ** 5  # D(8) = 4
    assert theorem2.local_learner_request_reach(32, 32, n_queries=400) == 32 * (255 + 256)  # D(32) = 7
    assert theorem2.first_biting_size(32, n_queries=1) == 64 and theorem2.first_biting_size(1, n_queries=1) == 4
    t = theorem2.first_biting_size(32, n_queries=400)
    assert bounds.bglt20_lemma_d1_labels(32, t, 32, 400) < theorem2.local_learner_request_reach(32, t, n_queries=400)
    assert bounds.bglt20_lemma_d1_labels(32, t // 2, 32, 400) >= theorem2.local_learner_request_reach(32, t // 2, n_queries=400)
    with pytest.raises(ValueError, match="n_queries"):
        theorem2.local_learner_request_reach(32, 8, n_queries=0)


def test_union_bound_strands_agree_with_the_closed_form():
    for t in (2, 8, 16, 64, 256):
        for eta, delta in ((0.25, 0.1), (0.1, 0.01)):
            assert theorem5.union_bound_strands(t, eta, delta) == math.ceil(bounds.bglt20_theorem5_strands(t, eta, delta))
    with pytest.raises(ValueError, match="t must be"):
        theorem5.union_bound_strands(1, 0.25, 0.1)


def test_tprime_runs_cover_every_strand_count(tprime):
    tp, pure = tprime
    assert list(tp["strands"].unique()) == list(theorem5.STRANDS) and len(tp) == 6
    assert (tp.loc[tp["strands"] == "m = 16", "m"] == 16).all()
    assert np.allclose(tp["ratio"], tp["t_prime"] / tp["t"])
    assert len(pure) == 4 and list(pure["rule"]) == ["split", "stop"] * 2
    assert (pure.loc[pure["rule"] == "split", "reached_t"]).all()  # the paper's rule always reaches e >= t


def test_pure_leaves_summary_counts_runs_and_flags(tprime):
    _, pure = tprime
    out = theorem5.pure_leaves_summary(pure)
    assert list(out["rule"]) == ["split", "stop"] and (out["runs"] == 2).all()
    assert out["flagged_e_below_t"].sum() == int((~pure["reached_t"]).sum())


def test_check_tprime_rows_on_random_members_are_observations(tprime):
    tp, pure = tprime
    table = VerificationTable()
    theorem5.check_tprime(table, tp, pure, sizes=[8], eta=0.25, delta=0.1)
    assert _kinds(table) == ["observation"] * 5 and lint_table(table) == []
    bad = VerificationTable()
    theorem5.check_tprime(bad, tp.assign(ratio=2.0), pure, sizes=[8], eta=0.25, delta=0.1)
    assert len(bad.failures()) == 0 and (bad.frame()["measured"].iloc[:2] == 1.0).all()  # shown, not counted


def test_theorem2_glue_and_figure(sample, tprime):
    X, y = sample
    tp, pure = tprime
    local = theorem2.local_learner_queries(X, y, sizes=[8], b=16, n_queries=2, rng=_rng(7))
    values = theorem2.theorem2_glue(local.frame, tp, pure, sizes=[8], eta=0.25, delta=0.1)
    assert values["ch2_t_max"] == 8 and values["ch2_t2_queries"] == 2
    assert 0 <= values["ch2_t2_inside_theory"] <= 1 and values["ch2_m_old_form"] >= 1
    assert _is_book_figure(theorem2.theorem2_figure(local.frame, tp, n_train=N_TRAIN, b=16, eta=0.25), 2)


# --- Theorem 3 ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def t3() -> pd.DataFrame:
    return theorem3.est_label_counts(N, train_sizes=[500, 2000], n_test=50, t=8, b=8, rng=_rng(8))


def test_est_returns_the_test_error_of_the_tree_within_theorem_6(t3):
    assert np.array_equal(t3["estimate"], t3["test_error"])
    assert (t3["requests"] <= t3["bound"]).all() and (t3["labels"] <= t3["requests"]).all()
    assert list(t3["N"]) == [500, 2000]


def test_est_hoeffding_is_a_union_bound_and_label_growth_a_ratio():
    assert theorem3.est_hoeffding(400, 0.1, 1) == pytest.approx(math.sqrt(math.log(20) / 800))
    assert theorem3.est_hoeffding(400, 0.1, 4) == pytest.approx(hoeffding_halfwidth(400, 0.025))
    with pytest.raises(ValueError, match="grid_size"):
        theorem3.est_hoeffding(400, 0.1, 0)
    assert theorem3.label_growth(pd.DataFrame({"labels": [40, 50, 60]})) == 1.5


def test_check_est_rows_glue_and_figure(t3):
    table = VerificationTable()
    theorem3.check_est(table, t3, train_sizes=[500, 2000], n_test=50, delta=0.1, t=8, b=8)
    # Theorem 6's count (2,720 at t = 8, b = 8, |S_test| = 50) is above the 504 requests an Est run can make
    assert _kinds(table) == ["identity", "theorem", "observation", "observation", "theorem"] and lint_table(table) == []
    # the rows' power: Est answered by the label-inverted tree (1 − Est), and a stop that never comes
    assert table.frame()["fails_under_fails"].iloc[[1, 4]].all()
    assert table.frame()["fails_under_value"].iloc[1] == pytest.approx((1 - t3["estimate"] - t3["true_error"]).abs().max())
    assert (t3["requests"] <= theorem2.local_learner_request_reach(8, 8, n_queries=50)).all()
    grown = VerificationTable()
    theorem3.check_est(grown, t3.assign(labels=[10, 100]), train_sizes=[500, 2000], n_test=50, delta=0.1, t=8, b=8)
    assert list(grown.failures()["result"]) == ["Theorem 3 (headline)"]
    values = theorem3.est_glue(t3, train_sizes=[500, 2000])
    assert values["ch2_t3_N_fold"] == 4 and values["ch2_t3_grid"] == 2
    assert _is_book_figure(theorem3.est_figure(t3, t=8, b=8, n_test=50, delta=0.1), 2)


def test_shifted_noisy_est_is_the_test_error_and_checks_hold():
    res = theorem3.shifted_noisy_est(N, 1000, n_test=300, t=8, b=8, rng=_rng(9))
    assert res.estimate == res.test_error and 0 <= res.exact_error <= 1 and res.rho == theorem3.RHO
    assert list(res.frame().columns) == ["estimate", "exact_error", "rho", "labels", "requests"]
    table = VerificationTable()
    theorem3.check_shifted_est(table, res, n_test=300, delta=0.1)
    assert _kinds(table) == ["identity", "theorem"] and lint_table(table) == []
    assert table.frame()["fails_under_value"].iloc[1] == pytest.approx(abs(1 - res.estimate - res.exact_error))
    with pytest.raises(ValueError, match="rho"):
        theorem3.shifted_noisy_est(N, 1000, n_test=300, t=8, b=8, rho=0.5, rng=_rng(9))


# --- the application and the benchmark ----------------------------------------------------------------

def test_candidate_sizes_grow_with_the_size_grid():
    assert section1.candidate_sizes([8, 16, 32, 64]) == [4, 8, 16, 32, 64, 128]
    assert section1.candidate_sizes([8]) == [4, 8, 16, 32]


def test_choosing_t_shares_one_oracle_and_the_regret_is_known():
    app = section1.choose_t_by_est(N, 1000, n_test=100, candidates=[4, 8], b=8, rng=_rng(10))
    assert list(app["t"]) == [4, 8] and (np.diff(app["labels so far"]) >= 0).all()
    toy = pd.DataFrame({"t": [4, 8, 16], "estimated error": [0.3, 0.1, 0.2], "true error": [0.25, 0.2, 0.15],
                        "labels so far": [5, 9, 12], "requests so far": [7, 13, 20]})
    assert section1.choice_summary(toy) == {"t_by_est": 8, "t_by_truth": 16, "regret": pytest.approx(0.05)}
    values = section1.choice_glue(toy)
    assert values["ch2_app_labels"] == 12 and values["ch2_app_requests"] == 20
    table = VerificationTable()
    section1.check_choice(table, toy, n_test=100, delta=0.1)
    assert _all_hold(table) and table.frame()["bound"].iloc[0] == pytest.approx(2 * theorem3.est_hoeffding(100, 0.1, 3))
    # complemented answers choose the largest estimate (t = 4, regret 0.10)
    assert section1.inverted_choice_regret(toy) == pytest.approx(0.10)
    wide = toy.assign(**{"estimated error": [0.5, 0.1, 0.2], "true error": [0.9, 0.2, 0.15]})
    counted = VerificationTable()
    section1.check_choice(counted, wide, n_test=100, delta=0.1)
    assert _kinds(counted) == ["theorem"] and counted.frame()["fails_under_fails"].iloc[0] and lint_table(counted) == []


def test_speed_benchmark_builds_the_same_tree_as_scikit_learn():
    speed = section1.speed_benchmark(2000, 10, 8, rng=_rng(11))
    assert int(speed["splits_differing"].iloc[0]) == 0
    table = VerificationTable()
    section1.check_speed(table, speed)
    assert _all_hold(table) and "2000 x 10, t = 8" in table.frame()["quantity"].iloc[0]
    assert section1.speed_glue(speed)["ch2_speed_shape"] == "2,000 × 10, t = 8"


# --- issue 24 items 6-10, issue 23 items 2 and 5 ------------------------------------------------------------

def test_growth_exponent_reads_power_laws():
    x = np.array([8, 16, 32, 64])
    assert common.growth_exponent(x, 3 * x**2) == pytest.approx(2.0)
    assert common.growth_exponent(x, np.ones(4)) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="positive"):
        common.growth_exponent(x, np.zeros(4))


def test_label_savings_counts_and_lemma_d1_rows(sample):
    X, y = sample
    sav = theorem2.label_savings(X, y, sizes=[8, 32], b=4, n_queries=2, rng=_rng(20))
    assert list(sav["t"]) == [8, 32] and (sav["query_requests"] <= sav["reach"]).all()
    assert (sav["query_labels"] <= sav["tree_labels"]).all() and (sav["savings"] >= 1).all()
    assert (sav["query_requests"] <= sav["tree_requests"] + 4).all()  # a query reads a part of the whole tree's
    table = VerificationTable()
    theorem2.check_label_savings(table, sav, b=4, n_queries=2)
    assert _all_hold(table) and lint_table(table) == [] and set(_kinds(table)) <= {"theorem", "observation"}
    # counted exactly where growing the whole tree (the worse output) requests more than the bound
    frame = table.frame()
    assert list(frame["kind"] == "theorem") == list(sav.loc[sav["bound"] < sav["reach"], "tree_requests"]
                                                     > sav.loc[sav["bound"] < sav["reach"], "bound"])
    assert frame.loc[frame["kind"] == "theorem", "fails_under_fails"].all()
    big = sav.assign(tree_requests=sav["bound"] + 100)
    over = VerificationTable()
    theorem2.check_label_savings(over, big.assign(query_requests=sav["bound"] + 1), b=4, n_queries=2)
    assert len(over.failures()) == len(over.frame()) > 0
    small = VerificationTable()
    theorem2.check_label_savings(small, sav.assign(tree_requests=sav["bound"]), b=4, n_queries=2)
    assert set(_kinds(small)) <= {"observation"}
    assert list(theorem2.savings_table(sav).columns)[0] == "t"


def test_worst_depth_profile_finds_the_two_point_tree_and_the_halved_deviation_fails():
    counts, ratio, evaluated = lemma_c1.worst_depth_profile(6, restarts=16, steps=30, rng=_rng(21))
    assert ratio == pytest.approx(lemma_c1.depth_profile_variance_ratio(counts)) and evaluated > 16
    assert ratio == pytest.approx((2**6 - 2) ** 2 / 4 / 4**6)  # one leaf at depth 1, the rest complete at depth 6
    tree = lemma_c1.tree_from_depth_profile(counts, 8)
    assert np.array_equal(np.bincount(tree.leaf_depths(), minlength=counts.size), counts)
    with pytest.raises(ValueError, match="Kraft"):
        lemma_c1.depth_profile_variance_ratio(np.array([0, 1, 1, 1]))
    w = lemma_c1.worst_size_estimator(8, h=6, m_grid=[16], n_draws=2000, delta=0.1, restarts=16, steps=30, rng=_rng(22))
    table = VerificationTable()
    lemma_c1.check_worst_size_estimator(table, w, n_draws=2000, delta=0.1)
    assert _kinds(table) == ["theorem"] and _all_hold(table) and lint_table(table) == []
    # the row's power: the first m/8 = 2 strands of each draw, held to Δ(m), leave the tail far above δ
    assert w.few_strands[16] > 0.1 and table.frame()["fails_under_fails"].iloc[0]
    glue = lemma_c1.bound_factor_glue(w, delta=0.1)
    assert glue["ch2_c1w_tail1"] <= 0.1 < glue["ch2_c1w_tail2"] and glue["ch2_c1w_fail_factor"] <= 2.0
    assert list(lemma_c1.bound_factor_table(w, delta=0.1)["verdict"])[-1] == "fails"


def test_worst_monotone_list_search_and_its_observation():
    tree = theorem1.monotone_list_from_exits(8, [3, 1, 5, 0], [True, False, True])
    from dtcore.exact_size import reduced_size
    assert reduced_size(tree) == 5
    with pytest.raises(ValueError, match="flags"):
        theorem1.monotone_list_from_exits(8, [3, 1, 5], [True])
    w = theorem1.worst_monotone_list(N, N_TRAIN, s=6, t=12, search_b=4, batch_sizes=[2, 8, 64], eps=0.05, restarts=2,
                                 steps=1, neighbours=2, search_reps=1, runs=2, rng=_rng(23))
    assert w.evaluated == 2 * (1 + 2) and list(w.per_b["b"]) == [2, 8, 64]
    table = VerificationTable()
    theorem1.check_worst_list(table, w, s=6, t=12, n=N, eps=0.05, delta=0.1, runs=2)
    assert _kinds(table) == ["identity", "observation"] and _all_hold(table) and lint_table(table) == []
    assert theorem1.worst_list_glue(w, s=6, t=12, n=N, eps=0.05, delta=0.1)["ch2_wl_search_b"] == 4


def test_bstar_display_and_trend(thm1):
    bstar = theorem1.matching_b(thm1, ["target", "impurity", "t"])
    bstar_d = theorem1.matching_b(thm1[thm1["t"] == 8].assign(d=N), ["target", "impurity", "d"])
    bstar_d = bstar_d[(bstar_d["target"] == "majority") & (bstar_d["impurity"] == "gini")]
    out = theorem1.bstar_display(bstar, bstar_d)
    assert out.shape[0] == len(common.TARGETS) and f"d = {N}" in out.columns  # the fixture runs Gini only
    trend = theorem1.bstar_trend_glue(bstar, bstar_d)
    assert trend["ch2_bstar_rows"] == len(common.TARGETS) and "median b*" in trend["ch2_bstar_trend"]


def test_nested_union_factor_and_the_smallest_premise():
    assert theorem1_proof.leaves_up_to_depth(3, 1) == 1 + 3 * 2 and theorem1_proof.leaves_up_to_depth(2, 5) == 9
    assert theorem1_proof.nested_union_factor(64, 16, 0.1) > 1
    assert theorem1_proof.smallest_premise_batch() > 1e8


def test_fact_b4_on_every_monotone_function_of_a_small_cube():
    assert len(fact_b4.monotone_tables(3)) == 20 and len(fact_b4.bare_trees(2, 4)) == 1 + 2 + 4 + 1  # as leaf sets
    b4 = fact_b4.fact_b4_exhaustive(n=3, max_leaves=4)
    assert list(b4["G"]) == [common.G_NAMES[g] for g in IMPURITIES] and (b4["min_ratio"] > 1).all()
    # Gini at a dictator on the one-leaf tree: gain 1 against (2/32)(1/2)^2 = 1/64
    assert b4.loc[b4["impurity"] == "gini", "min_ratio"].iloc[0] == pytest.approx(64.0)
    table = VerificationTable()
    fact_b4.check_fact_b4_exhaustive(table, b4, n=3, max_leaves=4)
    assert _kinds(table) == ["theorem"] * 3 and _all_hold(table) and lint_table(table) == []
    # the rows' power: x0 ⊕ x1 (not monotone) has every gain 0 on the one-leaf tree, so its least ratio is 0
    assert (b4["parity_min_ratio"] == 0).all() and table.frame()["fails_under_fails"].all()
    assert fact_b4.parity_table(3).tolist() == [[0, 1, 1, 0, 0, 1, 1, 0]]


# --- Theorem 5's t' at the hardest member found ---------------------------------------------------------

def test_tprime_window_and_profiles_follow_the_splits():
    assert theorem5_worst.tprime_window(8, 0.25) == (5, 10)
    assert theorem5_worst.tprime_window(16, 0.25) == (11, 20)
    profiles = theorem5_worst.leaf_depth_profiles(np.array([0, 1, 2, 1]), [1, 3, 5])
    assert profiles.tolist() == [[1, 0, 0, 0], [0, 1, 2, 0], [0, 0, 3, 2]]
    assert (profiles * 2.0 ** -np.arange(4)).sum(axis=1).tolist() == [1.0, 1.0, 1.0]  # Kraft's equality
    with pytest.raises(ValueError, match="eta"):
        theorem5_worst.tprime_window(8, 0.5)
    with pytest.raises(ValueError, match="sizes must lie in"):
        theorem5_worst.leaf_depth_profiles(np.array([0, 1]), [4])


def test_tprime_failure_exact_matches_monte_carlo_and_the_normal_approximation_is_close():
    t, eta = 8, 0.25
    a, c = theorem5_worst.tprime_window(t, eta)
    profiles = theorem5_worst.leaf_depth_profiles(np.array([0, 1, 2, 3, 4, 1, 2, 2, 3]), [a, c])
    rng = _rng(30)
    for m in (5, 20):
        exact = theorem5_worst.tprime_failure_exact(profiles, t=t, eta=eta, m=m)
        draws = 100_000
        mc = 0.0
        for row, early in zip(profiles, (True, False)):
            p = row * 2.0 ** -np.arange(row.size)
            e = (2.0 ** rng.choice(row.size, size=(draws, m), p=p)).mean(axis=1)
            mc += float(np.mean(e >= t) if early else np.mean(e < t))
        assert abs(exact - mc) < 5 * math.sqrt(exact * (1 - exact) / draws) + 1e-4
        normal = 10 ** theorem5_worst.tprime_failure_normal(profiles, t=t, eta=eta, m=m)
        assert 0.5 * exact < normal < 2 * exact
    balanced = theorem5_worst.leaf_depth_profiles(np.array([0, 1, 1, 2, 2, 2, 2, 3, 3]), [a, c])
    with pytest.raises(ValueError, match="not \\(a, c\\)"):
        theorem5_worst.tprime_failure_normal(balanced[::-1], t=t, eta=eta, m=4)
    with pytest.raises(ValueError, match="m >= 1"):
        theorem5_worst.tprime_failure_exact(profiles, t=t, eta=eta, m=0)


def test_worst_tprime_search_beats_its_starts_and_its_rows_fail_when_the_strands_are_cut():
    w = theorem5_worst.worst_tprime_member(N, N_TRAIN, sizes=[8], eta=0.25, delta=0.1, s_mono=6, restarts=2, steps=2,
                                 neighbours=3, rng=_rng(31))
    assert w.evaluated == 4 + 2 * (1 + 2 * 3)
    assert w.score >= w.per_t["score"].max() - 1e-12  # at least as bad as every reference and every start
    assert w.y.shape == (N_TRAIN,) and w.t == 8
    at_worst = theorem5_worst.tprime_runs_at_worst(w, eta=0.25, delta=0.1, runs=30, rng=_rng(32), factors=(1, 16, 64))
    assert at_worst["exact"].between(0, 1).all()
    assert at_worst.loc[at_worst["factor"] == 64, "exact"].iloc[0] > at_worst.loc[0, "exact"]
    needed = theorem5_worst.strands_needed(w, eta=0.25, delta=0.1)
    assert 1 <= needed <= at_worst.loc[0, "m"]
    table = VerificationTable()
    theorem5_worst.check_worst_tprime(table, w, at_worst, needed=needed, eta=0.25, delta=0.1)
    assert _kinds(table) == ["theorem", "theorem", "observation", "observation"] and _all_hold(table)
    assert not lint_table(table)
    # the rows' power: the paper's m / 64 (the fewest strands of the table), measured in the same runs
    assert table.frame()["fails_under"].iloc[0].startswith("the paper's m / 64")
    worse = at_worst.loc[at_worst["factor"] == 64, "outside"].iloc[0]
    assert (table.frame()["fails_under_value"].iloc[:2] == worse).all() and worse > 0.1
    with pytest.raises(ValueError, match="factor above 1"):
        theorem5_worst.tprime_power(at_worst[at_worst["factor"] == 1], delta=0.1)
    assert list(theorem5_worst.tprime_power_table(at_worst, delta=0.1)["row"])[0] == "holds"
    bad = VerificationTable()
    theorem5_worst.check_worst_tprime(bad, w, at_worst.assign(outside=1.0), needed=needed, eta=0.25, delta=0.1)
    assert len(bad.failures()) == 2  # both counted rows fail when every run falls outside
    assert set(theorem5_worst.worst_tprime_search_table(w).columns) >= {"t", "paper's m", "tribes (width 3)"}
    with pytest.raises(ValueError, match="restarts, steps and neighbours"):
        theorem5_worst.worst_tprime_member(N, N_TRAIN, sizes=[8], eta=0.25, delta=0.1, s_mono=6, restarts=0, steps=1,
                                 neighbours=1, rng=_rng(33))


def test_tprime_row_power_is_a_binomial_tail():
    # 100 runs against δ = 0.1: the row fails with more than 10 runs outside
    assert theorem5_worst.tprime_row_power(100, 0.1, 0.2) == pytest.approx(1 - sum(
        math.comb(100, k) * 0.2**k * 0.8 ** (100 - k) for k in range(11)))
    assert theorem5_worst.tprime_row_power(100, 0.1, 0.0) == 0.0
    rate = theorem5_worst.tprime_rate_for_power(100, 0.1)
    assert 0.1 < rate < 0.2 and theorem5_worst.tprime_row_power(100, 0.1, rate) == pytest.approx(0.8, abs=1e-4)
    assert theorem5_worst.tprime_rate_for_power(400, 0.1) < rate  # more runs, more power
    at_worst = pd.DataFrame({"strands": ["paper m", "paper m / 16"], "factor": [1, 16], "m": [767, 48],
                             "runs": [100, 100], "outside": [0.0, 0.4], "exact": [0.003, 0.37]})
    power = theorem5_worst.tprime_power(at_worst, delta=0.1)
    assert power["rate"] == pytest.approx(0.2) and power["power"] > 0.99 and power["worse_power"] > 0.999
    assert power["worse_m"] == 48 and power["worse_outside"] == 0.4 and power["worse_factor"] == 16
    with pytest.raises(ValueError, match="runs must be"):
        theorem5_worst.tprime_row_power(0, 0.1, 0.2)


def test_labelled_profile_tree_and_probability_text():
    tree = theorem5_worst.labelled_profile_tree(np.array([0, 1, 2]), np.array([1, 0, 1]), 4)
    assert tree.size == 3 and tree.leaf_values().tolist() == [1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="labels must be 3 values"):
        theorem5_worst.labelled_profile_tree(np.array([0, 1, 2]), np.array([1, 0]), 4)
    assert [common.probability_text(p) for p in (0, 2.614e-3, 9.99e-6, 0.37)] == ["0", "2.6·10⁻³", "1.0·10⁻⁵", "0.37"]
    with pytest.raises(ValueError, match="probability"):
        common.probability_text(1.5)


# --- the searches checked where the truth is known; the printed formulas computed twice; Fact B.4 as printed ---

def test_depth_profiles_exhaustive_and_reference():
    profiles = lemma_c1.all_depth_profiles(4)
    assert len(profiles) == 36 and len(lemma_c1.all_depth_profiles(6)) == 1828
    assert np.all(profiles @ 2.0 ** -np.arange(5) == 1.0)  # Kraft's equality
    ratios = lemma_c1.profile_ratio_printed(profiles)
    for row, r in zip(profiles, ratios):
        assert r == pytest.approx(lemma_c1.depth_profile_variance_ratio(row))
    for h in range(1, 7):
        best = lemma_c1.profile_ratio_printed(lemma_c1.all_depth_profiles(h)).max()
        assert lemma_c1.profile_ratio_printed(lemma_c1.half_complete_profile(h))[0] == pytest.approx(best)
        assert best == pytest.approx((2 ** (h - 1) - 1) ** 2 / 4**h)
    with pytest.raises(ValueError, match="h must be in"):
        lemma_c1.all_depth_profiles(8)


def test_depth_profile_search_check_rows_fail_on_a_weak_search():
    check = lemma_c1.depth_profile_search_check(7, h_small=5, restarts=8, steps=30, rng=_rng(11))
    assert check.search_small == pytest.approx(check.exhaustive_best)
    w = lemma_c1.worst_size_estimator(N, h=7, m_grid=[16], n_draws=50, delta=0.1, restarts=8, steps=30, rng=_rng(12))
    table = VerificationTable()
    lemma_c1.check_depth_profile_search(table, w, check)
    assert table.frame()["holds"].all()
    weak = lemma_c1.worst_size_estimator(N, h=7, m_grid=[16], n_draws=50, delta=0.1, restarts=1, steps=1, rng=_rng(12))
    bad = VerificationTable()
    lemma_c1.check_depth_profile_search(bad, weak, check)
    assert not bad.frame()["holds"].all()


def test_list_labels_match_the_tree_builder():
    X = ProductDistribution.uniform(N).sample(500, rng=_rng(13))
    variables, exits = [3, 0, 5, 2, 7], [True, False, False, True]
    tree = theorem1.monotone_list_from_exits(N, variables, exits)
    np.testing.assert_array_equal(theorem1.list_labels(X, variables, exits), tree.predict(X))
    assert set(theorem1.reference_lists(8)) and all(len(e) == 6 for e in theorem1.reference_lists(8).values())


def test_list_search_check_on_a_small_case():
    w = theorem1.worst_monotone_list(N, 2000, s=6, t=8, search_b=8, batch_sizes=[8], eps=0.05, restarts=2, steps=2,
                                     neighbours=2, search_reps=1, runs=0, rng=_rng(14))
    assert w.per_b.empty and w.search_error == pytest.approx(theorem1.list_mean_error(w, w.exits_one))
    check = theorem1.list_search_check(w, s_small=4, n_train=2000, restarts=2, steps=2, neighbours=2, search_reps=1,
                                       rng=_rng(15))
    assert check.n_lists == 4 and check.search_small <= check.exhaustive_best + 1e-12
    table = VerificationTable()
    theorem1.check_list_search(table, w, check)
    assert len(table.frame()) == 2 and set(table.frame()["kind"]) == {"identity"}


def test_printed_formulas_agree_and_a_doubled_constant_fails():
    kw = dict(sizes=[8, 16], eta=0.25, delta=0.1, n=N, s_mono=9, eps=0.05, m_grid=[16, 64], depths=[5, 6],
              b_local=16, b_est=16, t_est=16, savings_sizes=[32], b_savings=16, n_test=100, union_sizes=[1, 3])
    deviations = formulas.printed_bound_deviations(**kw)
    assert max(v[0] for v in deviations.values()) < 1e-12
    table = VerificationTable()
    formulas.check_printed_bounds(table, deviations)
    assert table.frame()["holds"].all() and (table.frame()["kind"] == "identity").all()
    assert formulas.lemma_d1_requests_printed(32, 64, 32, 1) == 32 * ((32 + 1) * 9 + 1)  # D(64) = 8
    assert formulas.hoeffding_printed(400, 0.1, 4) == pytest.approx(math.sqrt(math.log(80) / 800))
    doubled = {k: (v[0] + (1.0 if k.startswith("Lemma D.1") else 0.0),) + v[1:] for k, v in deviations.items()}
    bad = VerificationTable()
    formulas.check_printed_bounds(bad, doubled)
    assert not bad.frame()["holds"].all()


def test_fact_b4_as_printed_is_refuted_at_xor():
    xor = fact_b4.fact_b4_xor_exact()
    assert all(xor["hypotheses"].values()) and not xor["monotone"]
    assert xor["sum_best"] == 0 and xor["bound"] == Fraction(2401, 640000)
    table = VerificationTable()
    fact_b4.check_fact_b4_counterexample(table, xor)
    assert table.frame()["holds"].all() and list(table.frame()["kind"]) == ["counterexample", "identity"]
    broken = dict(xor, hypotheses={**xor["hypotheses"], "eps in (0, 1/2)": False})
    bad = VerificationTable()
    fact_b4.check_fact_b4_counterexample(bad, broken)
    assert not bad.frame()["holds"].iloc[0]


def test_few_strands_tail_reads_the_first_strands_of_each_draw():
    terms = np.array([[2.0, 2.0, 8.0, 8.0], [8.0, 2.0, 2.0, 8.0]])  # s = 5
    assert lemma_c1.few_strands_tail(terms, 5, 3.0, divisor=4) == 1.0  # one strand: |2 − 5| = |8 − 5| = 3
    assert lemma_c1.few_strands_tail(terms, 5, 3.0, divisor=1) == 0.0  # all four: e = 5
    assert lemma_c1.few_strands_tail(terms, 5, 0.5, divisor=2) == 0.5  # two: e = 2 (|−3|), then 5
    with pytest.raises(ValueError, match="divisor"):
        lemma_c1.few_strands_tail(terms, 5, 3.0, divisor=0)


def test_lemma_b7_adversary():
    depths = theorem1_proof.spine_then_shallow_depths(16, 5)
    np.testing.assert_array_equal(depths[:5], np.arange(5))
    assert theorem1_proof.spine_then_shallow_depths(8, 0).tolist() == [0, 1, 1, 2, 2, 2, 2, 3]
    adv = theorem1_proof.lemma_b7_adversary(256)
    assert 0 < adv["share"] <= 1.0 and adv["tried"] == 257
    table = VerificationTable()
    theorem1_proof.check_lemma_b7_adversary(table, adv)
    assert table.frame()["kind"].iloc[0] == "theorem" and table.frame()["holds"].iloc[0]
    # Lemma B.7 needs k = 2^a: the same growth at another prefix length exceeds k/4
    assert adv["share_any"] > 1.0 and adv["k_any"] & (adv["k_any"] - 1) != 0
    assert table.frame()["fails_under_fails"].iloc[0]
    # eight splits of the root (not a growth): splits 5-8 are shallow (depth 0 < log j − 2), 4 of k/4 = 2
    assert theorem1_proof.any_prefix_share(np.zeros(8, dtype=np.int64)) == (8, 2.0)
    with pytest.raises(ValueError, match="non-empty"):
        theorem1_proof.any_prefix_share(np.array([], dtype=np.int64))


def test_check_tprime_search_rows():
    from types import SimpleNamespace

    w = SimpleNamespace(restarts=2, evaluated=10)
    refs = pd.DataFrame({"t": [8, 8], "member": ["constant 0", "tribes (width 3)"], "reference": [-3.0, -8.0],
                         "searched": [-3.02, -3.02]})
    table = VerificationTable()
    theorem5_worst.check_tprime_search(table, w, refs)
    assert table.frame()["holds"].all() and len(table.frame()) == 2
    bad = VerificationTable()
    theorem5_worst.check_tprime_search(bad, w, refs.assign(searched=-3.2))  # 0.2 short of the constant target
    assert list(bad.frame()["holds"]) == [False, True]
