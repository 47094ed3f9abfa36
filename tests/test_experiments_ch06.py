"""Chapter 6's experiments (dtbook.experiments.ch06) at small size, on toy tables and real data."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from dtbook.experiments.ch06 import bglt20_est, bglt20_topdown, blt21_lemma31, common, estimators
from dtbook.report import VerificationTable, lint_table
from dtcore.learnability import hoeffding_halfwidth


def toy_table(m: int = 240, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Two informative real columns, one noise column and one 0/1 column; y = [a > 0] xor [b > 0.5]."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=m), "b": rng.normal(size=m), "noise": rng.normal(size=m),
                      "flag": rng.integers(0, 2, m)})
    y = ((X["a"] > 0).to_numpy() ^ (X["b"] > 0.5).to_numpy()).astype(np.uint8)
    return X, y


def xor_with_a_decoy(m: int = 400, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """y = x0 xor x1, and a column that agrees with y on 75% of the rows: greedy CART splits on the
    decoy first and then cannot finish the xor at depth 2; an optimal depth-2 tree has no error."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, (m, 2))
    y = (bits[:, 0] ^ bits[:, 1]).astype(np.uint8)
    decoy = np.where(rng.random(m) < 0.75, y, 1 - y)
    return pd.DataFrame({"x0": bits[:, 0], "x1": bits[:, 1], "decoy": decoy}), y


@pytest.fixture(scope="module")
def toy_data() -> dict[str, tuple[pd.DataFrame, np.ndarray]]:
    return {"digits": toy_table(240, 0), "flchain": toy_table(200, 1)}


@pytest.fixture(scope="module")
def depth_runs(toy_data) -> pd.DataFrame:
    return blt21_lemma31.find_cart_pystreed(toy_data, folds=2, depths=[1, 2], n_thresholds=3, seed=0)


@pytest.fixture(scope="module")
def size_runs(toy_data) -> pd.DataFrame:
    return bglt20_topdown.topdown_bestfirst(toy_data, folds=2, leaf_sizes=[2, 4], n_thresholds=3, seed=0)


@pytest.fixture(scope="module")
def est_run() -> bglt20_est.EstRun:
    X, y = toy_table(3000, 2)
    return bglt20_est.est_against_full_trees(X, y, seed=0, est_sizes=[2, 4], batch_size=16, n_thresholds=3,
                                       n_test=300, n_heldout=400, delta=0.05)


# ---------------------------------------------------------------------------------- the data

def test_load_dataset_gives_the_documented_sizes_and_labels():
    X, y = common.load_dataset("breast cancer")
    assert X.shape == (569, 30) and set(np.unique(y)) == {0, 1}
    assert int(y.sum()) == 357  # benign tumours
    X, y = common.load_dataset("digits")
    assert X.shape == (1797, 64) and 0.45 < y.mean() < 0.55
    with pytest.raises(ValueError, match="name must be one of"):
        common.load_dataset("iris")


def test_load_datasets_reads_all_three_with_flchain_features_that_do_not_reveal_the_label():
    data = common.load_datasets()
    assert list(data) == list(common.DATASETS)
    X, y = data["flchain"]
    assert X.shape == (7874, 7) and not X.isna().any().any()
    assert "death" not in X.columns and "creatinine" not in X.columns and y.dtype == np.uint8


def test_dataset_overview_counts_boolean_features(toy_data):
    overview = common.dataset_overview(toy_data, n_thresholds=3)
    # three real columns with 3 cut points each, and the 0/1 column as is
    assert overview["Boolean features"].tolist() == [10, 10]
    assert overview["rows"].tolist() == [240, 200]
    with pytest.raises(ValueError, match="n_thresholds"):
        common.dataset_overview(toy_data, n_thresholds=0)


def test_cv_splits_partition_the_rows_reproducibly():
    X, y = toy_table(100)
    splits = common.cv_splits(X, y, folds=4, seed=1)
    tests = np.sort(np.concatenate([test for _, test in splits]))
    assert np.array_equal(tests, np.arange(100))
    for train, test in splits:
        assert not set(train) & set(test)
    again = common.cv_splits(X, y, folds=4, seed=1)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again))
    with pytest.raises(ValueError, match="folds"):
        common.cv_splits(X, y, folds=1, seed=0)


# -------------------------------------------------------------------- FIND against CART and pystreed

def test_compare_at_depth_finds_a_perfect_stump_and_the_xor_that_greedy_cart_misses():
    X, _ = toy_table(300)
    flag = X["flag"].to_numpy().astype(np.uint8)
    rows = blt21_lemma31.compare_at_depth(X, flag, X, flag, depth=1, n_thresholds=3, random_state=0)
    assert [r["method"] for r in rows] == list(blt21_lemma31.DEPTH_METHODS)
    assert rows[0]["training errors"] == 0 and rows[0]["leaves"] == 2 and rows[0]["accuracy"] == 1.0
    X, y = xor_with_a_decoy()
    rows = {r["method"]: r for r in blt21_lemma31.compare_at_depth(X, y, X, y, depth=2, n_thresholds=3, random_state=0)}
    assert rows["FIND"]["training errors"] == rows["pystreed"]["training errors"] == 0
    assert rows["CART, same features"]["training errors"] > 0.1 * len(y)
    assert all(r["seconds"] > 0 for r in rows.values())
    assert rows["CART, raw features"]["binarise seconds"] == 0 < rows["FIND"]["binarise seconds"]
    assert rows["FIND"]["binarise seconds"] == rows["ID3, same features"]["binarise seconds"]
    # ID3 stopped at depth 2 is one more depth-2 tree on the same features: never below FIND
    assert rows["ID3, same features"]["training errors"] >= rows["FIND"]["training errors"]
    with pytest.raises(ValueError, match="depth"):
        blt21_lemma31.compare_at_depth(X, y, X, y, depth=0, n_thresholds=3, random_state=0)


def test_find_cart_pystreed_has_one_row_per_data_set_fold_depth_and_method(depth_runs):
    assert list(depth_runs.columns) == ["data set", "fold", "d", "m_train", "method", "training errors",
                                        "accuracy", "leaves", "seconds", "binarise seconds",
                                        "estimator training errors", "one-leaf training errors"]
    assert len(depth_runs) == 2 * 2 * 2 * 5
    assert depth_runs["accuracy"].between(0, 1).all()
    assert (depth_runs.loc[depth_runs["d"] == 1, "leaves"] <= 2).all()


def test_training_error_gaps_satisfy_lemma_3_1(depth_runs):
    wide = blt21_lemma31.training_error_gaps(depth_runs)
    assert len(wide) == 2 * 2 * 2
    assert (wide["CART - FIND"] >= 0).all() and (wide["ID3 - FIND"] >= 0).all()
    assert (wide["FIND - pystreed"] == 0).all()
    assert np.array_equal(wide["CART - FIND"], wide["CART, same features"] - wide["FIND"])


def test_depth_summary_and_its_long_form_agree(depth_runs):
    summary = blt21_lemma31.depth_summary(depth_runs)
    assert summary.shape == (4, 10)  # (data set, d) x (accuracy, leaves) x 5 methods
    long = blt21_lemma31.long_summary(summary)
    assert len(long) == 4 * 5 and list(long.columns) == ["data set", "d", "method", "accuracy", "leaves"]
    one = long[(long["data set"] == "digits") & (long["d"] == 2) & (long["method"] == "FIND")]
    expected = depth_runs[(depth_runs["data set"] == "digits") & (depth_runs["d"] == 2)
                          & (depth_runs["method"] == "FIND")]["accuracy"].mean()
    assert float(one["accuracy"].iloc[0]) == round(expected, 3)


def test_find_figure_has_two_panels(depth_runs):
    fig = blt21_lemma31.find_figure(depth_runs, folds=2)
    assert len(fig.axes) == 2 and "depth 2" in fig.axes[1].get_title()
    plt.close(fig)


def test_check_find_passes_on_data_and_fails_when_cart_beats_find(depth_runs):
    table = VerificationTable()
    blt21_lemma31.check_find(table, depth_runs)
    kinds = [r["kind"] for r in table.rows]
    assert kinds == ["theorem", "identity", "identity", "theorem"] * 2 + ["observation"]
    assert table.failures().empty and lint_table(table) == []
    # the power: the one-leaf tree (the majority label) in FIND's place loses to CART and to ID3
    assert all(r["fails_under_fails"] and "one-leaf" in r["fails_under"] for r in table.rows if r["kind"] == "theorem")
    assert (depth_runs["one-leaf training errors"] <= depth_runs["m_train"] // 2).all()
    theorem, identity = table.rows[0], table.rows[1]
    # 0 at d = 1 wherever CART's stump is optimal: never named as the closest call
    assert theorem["tight"] and theorem["measured_by"] == "dtcore.find.find"
    assert theorem["reach_low"] == -theorem["reach_high"] > -depth_runs["m_train"].max()
    assert identity["measured_by"] == "dtcore.find.find" and identity["bound_by"] == "pystreed.STreeDClassifier"
    broken = depth_runs.copy()
    cart = (broken["method"] == "CART, same features") & (broken["data set"] == "flchain")
    broken.loc[cart, "training errors"] = 0  # a CART better than the optimum: Lemma 3.1 violated
    table = VerificationTable()
    blt21_lemma31.check_find(table, broken)
    assert not table.rows[4]["holds"]
    assert len(table.failures()) == 1


def test_find_glue_values_quote_the_largest_depth(depth_runs):
    values = blt21_lemma31.find_glue(depth_runs)
    assert values["ch6_d_top"] == 2
    for key in ("digits", "flchain"):
        assert values[f"ch6_gap_{key}"] >= 0
        assert 0 <= values[f"ch6_acc_find_{key}"] <= 1
    assert 1 <= values["ch6_leaves_find"] <= 4 and values["ch6_find_seconds"] > 0


def test_readable_tree_names_features_and_classes():
    X, y = common.load_dataset("breast cancer")
    text = blt21_lemma31.readable_tree(X, y, depth=1, n_thresholds=2)
    assert "?" in text and "class: benign" in text and "class: malignant" in text
    assert text.startswith("```text") and text.endswith("on the 569 tumours.") and "training error is 0." in text


# ----------------------------------------------------------------- TopDown_G against best-first CART

def test_topdown_bestfirst_rows_and_difference(size_runs):
    assert len(size_runs) == 2 * 2 * 2
    assert np.allclose(size_runs["difference"], size_runs["TopDown_G"] - size_runs["best-first CART, raw features"])
    assert size_runs["training disagreement, same features"].between(0, 1).all()
    assert (size_runs["leaves TopDown_G"] <= size_runs["t"]).all()


def test_size_summary_averages_over_folds(size_runs):
    summary = bglt20_topdown.size_summary(size_runs)
    assert "fold" not in summary.columns and "difference" not in summary.columns
    assert summary.loc[("digits", 2), "TopDown_G"] == pytest.approx(
        size_runs[(size_runs["data set"] == "digits") & (size_runs["t"] == 2)]["TopDown_G"].mean())


def test_topdown_figure_and_rows(size_runs):
    fig = bglt20_topdown.topdown_figure(size_runs, folds=2)
    assert len(fig.axes) == 2
    plt.close(fig)
    table = VerificationTable()
    bglt20_topdown.check_topdown(table, size_runs)
    assert [r["kind"] for r in table.rows] == ["observation"] * 3  # no theorem: nothing counted
    values = bglt20_topdown.topdown_glue(size_runs)
    assert values["ch6_t_top"] == 4 and 0 <= values["ch6_td_digits"] <= 1
    assert values["ch6_disagree"] == table.rows[-1]["measured"]


# ------------------------------------------------------------------------------------------ Est

def test_est_equals_the_test_error_of_the_tree_grown_with_every_label(est_run):
    learn = est_run.learn
    assert learn["t"].tolist() == [2, 4]
    assert np.allclose(learn["estimated_error"], learn["test error of T_t"])  # Theorem 2 / App. D
    assert est_run.pool_size == 3000 - 700
    assert bglt20_est.est_labels(est_run) < est_run.pool_size
    assert 0 < est_run.base_error < 1


def test_est_rejects_a_split_that_leaves_no_pool():
    X, y = toy_table(500)
    with pytest.raises(ValueError, match="n_heldout"):
        bglt20_est.est_against_full_trees(X, y, seed=0, est_sizes=[2], batch_size=8, n_thresholds=2, n_test=300,
                                    n_heldout=300, delta=0.05)


def test_est_radius_is_the_sum_of_two_hoeffding_halfwidths():
    radius = bglt20_est.est_radius(n_test=800, n_heldout=1000, delta=0.05, n_sizes=5)
    assert radius == pytest.approx(hoeffding_halfwidth(800, 0.005) + hoeffding_halfwidth(1000, 0.005))
    assert bglt20_est.est_radius(n_test=800, n_heldout=1000, delta=0.05, n_sizes=10) > radius
    with pytest.raises(ValueError, match="delta"):
        bglt20_est.est_radius(n_test=800, n_heldout=1000, delta=1.5, n_sizes=5)


def test_check_est_holds_and_catches_an_estimate_off_the_tree(est_run):
    table = VerificationTable()
    bglt20_est.check_est(table, est_run, delta=0.05, batch_size=16)
    # Lemma D.1's bound with 300 test queries exceeds every count Est can reach: an observation; its bound is
    # computed twice (dtcore.bounds and the proof's count written afresh)
    assert [r["kind"] for r in table.rows] == ["identity", "theorem", "identity", "observation"]
    assert table.failures().empty and lint_table(table) == [] and table.rows[1]["reach_high"] == 1.0
    assert table.rows[3]["bound"] == est_run.learn["Lemma D.1 label bound"].sum()
    # the power of Theorem 3: the label-inverted tree's error 1 − Est(t) is far from T_t's held-out error
    assert table.rows[1]["fails_under_fails"] and table.rows[1]["fails_under_value"] > 0.2
    off = bglt20_est.EstRun(est_run.learn.assign(**{"Lemma D.1 label bound": est_run.learn["Lemma D.1 label bound"] + 1}),
                            est_run.pool_size, est_run.n_test, est_run.n_heldout, 0.5)
    table = VerificationTable()
    bglt20_est.check_est(table, off, delta=0.05, batch_size=16)
    assert not table.rows[2]["holds"]  # a bound off by one from the proof's count
    learn = est_run.learn.copy()
    learn["estimated_error"] += 0.01
    table = VerificationTable()
    bglt20_est.check_est(table, bglt20_est.EstRun(learn, est_run.pool_size, est_run.n_test, est_run.n_heldout, 0.5), delta=0.05,
                   batch_size=16)
    assert not table.rows[0]["holds"]


def test_est_label_reach_and_lemma_d1_as_a_theorem_check_when_it_can_fail():
    from dtcore import bounds
    # at t = 512 and 1024 (depth caps D = 12 and 13) with b = 8 and 300 test queries the count is below the reach
    sizes = [512, 1024]
    learn = pd.DataFrame({"t": sizes, "estimated_error": [0.3, 0.2], "test error of T_t": [0.3, 0.2],
                          "held-out error of T_t": [0.31, 0.22], "labels_total": [30_000, 60_000],
                          "Lemma D.1 label bound": [bounds.bglt20_lemma_d1_labels(8, t, 8, 300) for t in sizes]})
    assert learn["Lemma D.1 label bound"].tolist() == [8 * (308 * 13 + 300), 8 * (308 * 14 + 300)]
    run = bglt20_est.EstRun(learn, pool_size=100_000, n_test=300, n_heldout=400, base_error=0.3)
    # one minibatch of 8 per node of depth at most D (8 · 2^13 + 8 · 2^14), capped by the pool
    assert bglt20_est.est_label_reach(run, batch_size=8) == 100_000
    table = VerificationTable()
    bglt20_est.check_est(table, run, delta=0.05, batch_size=8)
    row = table.rows[3]
    assert row["kind"] == "theorem" and row["bound"] == 71_328 and row["reach_high"] == 100_000 and row["holds"]
    assert row["bound_by"] == "dtcore.bounds.bglt20_lemma_d1_labels" and lint_table(table) == []
    assert row["fails_under_fails"] and row["fails_under_value"] == 100_000
    over = bglt20_est.EstRun(learn.assign(labels_total=[30_000, 71_329]), 100_000, 300, 400, 0.3)
    table = VerificationTable()
    bglt20_est.check_est(table, over, delta=0.05, batch_size=8)
    assert not table.rows[3]["holds"]


def test_choice_of_t_takes_the_smallest_t_among_ties():
    learn = pd.DataFrame({"t": [2, 4, 8], "estimated_error": [0.3, 0.2, 0.2],
                          "held-out error of T_t": [0.31, 0.25, 0.22], "labels_total": [100, 150, 180],
                          "label_fn_calls": [3, 4, 5]})
    run = bglt20_est.EstRun(learn, pool_size=5000, n_test=300, n_heldout=400, base_error=0.3)
    choice = bglt20_est.choice_of_t(run)
    assert choice["t"].tolist() == [4, 8]
    assert choice["labels"].tolist() == [180 + 300, 5000 + 400]
    table = VerificationTable()
    bglt20_est.check_choice(table, choice)
    assert table.rows[0]["kind"] == "observation" and table.rows[0]["measured"] == pytest.approx(0.03)
    values = bglt20_est.est_glue(run, choice, delta=0.05)
    assert (values["ch6_t_est"], values["ch6_t_full"], values["ch6_calls"]) == (4, 8, 5)
    assert values["ch6_radius"] == pytest.approx(bglt20_est.est_radius(n_test=300, n_heldout=400, delta=0.05, n_sizes=3))


def test_est_figure_has_two_panels(est_run):
    fig = bglt20_est.est_figure(est_run, delta=0.05)
    assert len(fig.axes) == 2 and fig.axes[1].get_yscale() == "log"
    plt.close(fig)


# ------------------------------------------------------------------------------------ the seed rule

def test_library_seed_is_keyed_and_fits_every_library():
    from dtbook import seeds

    a = seeds.library_seed(0, "ch06/folds")
    assert a == seeds.library_seed(0, "ch06/folds") and 0 <= a < 2**31
    assert a != seeds.library_seed(1, "ch06/folds") and a != seeds.library_seed(0, "ch06/est")
    with pytest.raises(ValueError, match="seed"):
        seeds.library_seed(-1, "ch06/folds")


def test_est_split_moves_with_the_seed_and_nothing_else():
    X, y = toy_table(1500, 3)
    kwargs = dict(est_sizes=[2], batch_size=8, n_thresholds=2, n_test=200, n_heldout=200, delta=0.05)
    a = bglt20_est.est_against_full_trees(X, y, seed=0, **kwargs)
    b = bglt20_est.est_against_full_trees(X, y, seed=0, **kwargs)
    c = bglt20_est.est_against_full_trees(X, y, seed=1, **kwargs)
    assert a.learn.equals(b.learn)
    assert not a.learn[["estimated_error", "labels_total"]].equals(c.learn[["estimated_error", "labels_total"]])


def test_cross_validation_at_budget_and_the_verdict():
    X, y = common.load_dataset("flchain")
    run = bglt20_est.est_against_full_trees(X, y, seed=0, est_sizes=[2, 4], batch_size=16, n_thresholds=2, n_test=200,
                                      n_heldout=300, delta=0.05)
    choice = bglt20_est.choice_of_t(run)
    baseline = bglt20_est.cross_validation_at_budget(X, y, run, budgets=[100, 200], sizes=[2, 4], folds=3, repeats=2,
                                               n_thresholds=2, seed=0)
    assert list(baseline["labels"]) == [100, 100, 200, 200]
    assert baseline["t chosen by CV"].isin([2, 4]).all() and baseline["held-out error"].between(0, 1).all()
    again = bglt20_est.cross_validation_at_budget(X, y, run, budgets=[100, 200], sizes=[2, 4], folds=3, repeats=2,
                                            n_thresholds=2, seed=0)
    pd.testing.assert_frame_equal(baseline, again)  # same seed, same draws
    summary = bglt20_est.budget_summary(baseline, choice)
    assert len(summary) == 3 and summary["held-out error (min)"].le(summary["held-out error (max)"]).all()
    verdict = bglt20_est.budget_glue(baseline, choice, run, delta=0.05)
    assert verdict["ch6_cv_budget_low"] <= verdict["ch6_cv_budget_high"]
    assert 1 <= verdict["ch6_overlapping_sizes"] <= verdict["ch6_n_sizes"] == 2
    better = baseline.assign(**{"held-out error": 0.0})
    assert "does not help" in bglt20_est.budget_glue(better, choice, run, delta=0.05)["ch6_est_verdict"]
    with pytest.raises(ValueError, match="budget"):
        bglt20_est.cross_validation_at_budget(X, y, run, budgets=[1], sizes=[2], folds=3, repeats=1, n_thresholds=2, seed=0)


def test_frontier_has_a_line_per_learner_and_data_set(depth_runs):
    sizes = bglt20_topdown.topdown_bestfirst({"wine": common.load_dataset("wine")}, folds=2, leaf_sizes=[2, 4], n_thresholds=2,
                                   seed=0)
    front = bglt20_topdown.frontier(depth_runs[depth_runs["data set"] == depth_runs["data set"].iloc[0]], sizes)
    assert set(front["learner"]) >= {"FIND (depth)", "TopDown_G (size)", "best-first CART, raw features (size)"}
    assert front["accuracy"].between(0, 1).all() and (front["leaves"] >= 1).all()
    fig = bglt20_topdown.frontier_figure(front, folds=2)
    assert sum(ax.get_visible() for ax in fig.axes) == front["data set"].nunique()
    plt.close(fig)


def test_tie_disagreements_lists_where_the_two_rules_part():
    runs = pd.DataFrame({"data set": ["a", "a", "b"], "fold": [0, 1, 0], "t": [2, 2, 4],
                         "training disagreement, same features": [0.0, 0.1, 0.2]})
    parted = bglt20_topdown.tie_disagreements(runs)
    assert list(zip(parted["data set"], parted["fold"])) == [("a", 1), ("b", 0)]


def test_practitioner_section_multiclass_missing_values_importances_and_drawing():
    wine = estimators.load_multiclass("wine (3 cultivars)")
    assert np.unique(wine[1]).size == 3
    flchain = estimators.load_flchain_with_missing()
    assert flchain[0]["creatinine"].isna().sum() > 0
    small = {"wine (3 cultivars)": wine, "flchain": (flchain[0].iloc[:600], flchain[1][:600])}
    scores = estimators.practitioner_scores(small, folds=2, depth=1, n_thresholds=2, seed=0)
    assert len(scores) == 2 * 4 and scores["ROC-AUC"].between(0, 1).all()
    size, importances = estimators.largest_shared_tree(*common.load_dataset("breast cancer"), sizes=[2, 4],
                                                 n_thresholds=2, seed=0)
    assert size in (2, 4) and importances["dtcore"].sum() == pytest.approx(1.0)
    table = VerificationTable()
    estimators.check_practitioner(table, scores, importances)
    assert table.rows[0]["kind"] == ("identity" if importances["same tree"].iloc[0] else "observation")
    assert table.failures().empty and lint_table(table) == []
    broken = importances.assign(dtcore=importances["dtcore"] + 0.01, **{"same tree": True})
    table = VerificationTable()
    estimators.check_practitioner(table, scores, broken)
    assert not table.rows[0]["holds"]  # two implementations of one importance disagree
    with pytest.raises(ValueError, match="name"):
        estimators.load_multiclass("iris")
    fig = estimators.tree_drawing(*common.load_dataset("breast cancer"), depth=2, n_thresholds=2)
    assert len(fig.axes) == 1
    plt.close(fig)


def test_exact_beside_cuts_row_is_an_observation_with_a_guard() -> None:
    """The exact optimum over every threshold never errs more than FIND on the cuts: shown (another class than
    [BLT21] Lemma 3.1's Boolean features), and a worse exact search stops the page."""
    from dtbook.experiments.ch06.exact import check_exact

    table = VerificationTable()
    check_exact(table, pd.DataFrame({"data set": ["a", "b"], "depth": [1, 2], "cuts_cost": [0.0, 0.01]}))
    assert [r["kind"] for r in table.rows] == ["observation"] and table.rows[0]["measured"] == 0.0
    with pytest.raises(ValueError, match="exact"):
        check_exact(VerificationTable(), pd.DataFrame({"data set": ["a"], "depth": [1], "cuts_cost": [-0.01]}))
