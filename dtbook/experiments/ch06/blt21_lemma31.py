"""[BLT21] Lemma 3.1 on real data: FIND against pystreed, ID3 and CART at depth d, on the same Boolean
features (FIND's training error is the least of any depth-d tree).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from dtcore.estimators import OptimalTreeClassifier, ThresholdBinarizer
from dtcore.find import find
from dtcore.id3 import id3
from dtcore.validate import check_int
from ... import figures, seeds
from ...report import VerificationTable
from .common import DATASETS, learner_colour, Data, GLUE_KEYS, cv_splits, shown


#: The learners of the depth-d comparison, in the figure's order.
DEPTH_METHODS = ("FIND", "pystreed", "ID3, same features", "CART, same features", "CART, raw features")


def compare_at_depth(X_train: pd.DataFrame, y_train: np.ndarray, X_test: pd.DataFrame, y_test: np.ndarray, *,
                     depth: int, n_thresholds: int, random_state: int) -> list[dict[str, Any]]:
    """FIND, pystreed, ID3 and CART (on one set of Boolean features, and CART on the raw ones) at one
    depth on one fold.

    [BLT21] Lemma 3.1: FIND's training errors are the least of any depth-``depth`` tree on the same
    features, so at most CART's and ID3's and equal to pystreed's. One row per method of
    :data:`DEPTH_METHODS`: training errors, held-out accuracy, leaves, the fit's seconds and the
    seconds of the binarisation every Boolean-feature learner shares (timed once, apart from the fits;
    0 for CART on raw features). pystreed's ``cost_complexity`` is 0: it minimises training error alone,
    as FIND does.
    """
    from pystreed import STreeDClassifier
    from sklearn.tree import DecisionTreeClassifier

    depth = check_int("depth", depth, 1)
    started = time.perf_counter()
    binarizer = ThresholdBinarizer(n_thresholds).fit(X_train.to_numpy())
    B_train, B_test = binarizer.transform(X_train.to_numpy()), binarizer.transform(X_test.to_numpy())
    binarise_seconds = time.perf_counter() - started
    fits: dict[str, tuple[Any, float]] = {}
    for method, make in (("FIND", lambda: find(B_train, y_train, depth=depth).tree),
                         ("pystreed", lambda: STreeDClassifier(max_depth=depth, cost_complexity=0.0)
                          .fit(B_train, y_train)),
                         ("ID3, same features", lambda: id3(B_train, y_train, depth=depth).tree),
                         ("CART, same features", lambda: DecisionTreeClassifier(max_depth=depth,
                                                                                random_state=random_state)
                          .fit(B_train, y_train)),
                         ("CART, raw features", lambda: DecisionTreeClassifier(max_depth=depth,
                                                                               random_state=random_state)
                          .fit(X_train, y_train))):
        started = time.perf_counter()
        model = make()
        fits[method] = (model, time.perf_counter() - started)
    # FIND once more through the estimator a user calls, on the raw features: it must agree with FIND
    estimator = OptimalTreeClassifier(max_depth=depth, n_thresholds=n_thresholds).fit(X_train, y_train)
    estimator_errors = int((estimator.predict(X_train) != y_train).sum())
    # the one-leaf tree (the majority label of the training fold): a depth-d tree of every depth, the worse
    # output under which the Lemma 3.1 rows must fail
    one_leaf_errors = int(len(y_train) - np.unique(y_train, return_counts=True)[1].max())
    rows = []
    for method, (model, seconds) in fits.items():
        raw = method == "CART, raw features"
        Z_train, Z_test = (X_train, X_test) if raw else (B_train, B_test)
        leaves = model.size if hasattr(model, "size") else model.get_n_leaves()
        rows.append({"method": method, "training errors": int((model.predict(Z_train) != y_train).sum()),
                     "accuracy": float((model.predict(Z_test) == y_test).mean()), "leaves": int(leaves),
                     "seconds": seconds, "binarise seconds": 0.0 if raw else binarise_seconds,
                     "estimator training errors": estimator_errors if method == "FIND" else np.nan,
                     "one-leaf training errors": one_leaf_errors})
    return rows


def find_cart_pystreed(data: Data, *, folds: int, depths: Sequence[int], n_thresholds: int,
                       seed: int) -> pd.DataFrame:
    """:func:`compare_at_depth` on every data set, fold and depth ([BLT21] Lemma 3.1): one row per method.

    Columns: data set, fold, d, m_train, method, training errors, accuracy, leaves, seconds, binarise
    seconds, for FIND the training errors of ``OptimalTreeClassifier`` fitted on the raw features, and
    the training errors of the one-leaf tree of the fold (the majority label; the rows' worse output).
    CART breaks
    ties between equal splits with the stream ``"ch06/find-cart-pystreed"``.
    """
    cart_seed = seeds.library_seed(seed, "ch06/find-cart-pystreed")
    rows = []
    for name, (X, y) in data.items():
        for fold, (train, test) in enumerate(cv_splits(X, y, folds=folds, seed=seed)):
            for d in depths:
                for run in compare_at_depth(X.iloc[train], y[train], X.iloc[test], y[test], depth=d,
                                            n_thresholds=n_thresholds, random_state=cart_seed):
                    rows.append({"data set": name, "fold": fold, "d": d, "m_train": len(train), **run})
    return pd.DataFrame(rows)


def training_error_gaps(depth_runs: pd.DataFrame) -> pd.DataFrame:
    """Training errors per (data set, fold, d) and method, with ``CART - FIND`` and ``ID3 - FIND``
    ([BLT21] Lemma 3.1: at least 0) and ``FIND - pystreed`` (0: both optimal)."""
    wide = depth_runs.pivot_table(index=["data set", "fold", "d"], columns="method", values="training errors")
    wide["CART - FIND"] = wide["CART, same features"] - wide["FIND"]
    wide["ID3 - FIND"] = wide["ID3, same features"] - wide["FIND"]
    wide["FIND - pystreed"] = wide["FIND"] - wide["pystreed"]
    if "one-leaf training errors" in depth_runs:
        wide["one leaf"] = depth_runs.groupby(["data set", "fold", "d"])["one-leaf training errors"].first()
    return wide


def depth_summary(depth_runs: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy and leaves over folds, by data set and depth, one column pair per method."""
    return (depth_runs.groupby(["data set", "d", "method"])[["accuracy", "leaves"]].mean()
            .unstack("method").round(3))


def long_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """:func:`depth_summary` as a tidy frame, one row per data set, depth and method (for the CSV)."""
    return summary.stack("method", future_stack=True).reset_index()


def find_figure(depth_runs: pd.DataFrame, *, folds: int) -> plt.Figure:
    """Left: CART's extra training errors over FIND's per fold and depth ([BLT21] Lemma 3.1: never below
    0). Right: cross-validated accuracy of the four learners at the largest depth."""
    d_top = int(depth_runs["d"].max())
    fig, axes = figures.figure(1, 2, height=7.6)
    gap = training_error_gaps(depth_runs).reset_index().melt(
        id_vars=["data set", "fold", "d"], value_vars=["CART - FIND", "ID3 - FIND"], var_name="greedy",
        value_name="extra errors")
    gap["greedy"] = gap["greedy"].str.replace(" - FIND", "") + ", d = " + gap["d"].astype(str)
    present = set(depth_runs["data set"])
    order = [name for name in DATASETS if name in present] + sorted(present - set(DATASETS))
    # one hue per greedy learner (its book colour), lighter at the smaller depths
    hues = list(dict.fromkeys(gap.sort_values(["greedy", "d"])["greedy"]))
    shades = {}
    for h in hues:
        base = np.asarray(mcolors.to_rgb(figures.method_colour(h.split(",")[0])))
        strength = 0.35 + 0.65 * int(h.rsplit("= ", 1)[1]) / d_top
        shades[h] = tuple(strength * base + (1 - strength) * np.ones(3))
    sns.barplot(data=gap, x="data set", y="extra errors", hue="greedy", ax=axes[0], errorbar=("pi", 100),
                palette=shades, order=order, hue_order=hues)
    axes[0].axhline(0, color="k", lw=1)
    axes[0].set(ylabel="greedy errors − FIND errors\n(training points, per fold)", xlabel="",
                title="optimality gap on the same features (must be ≥ 0)")
    # the right half holds the small gaps of wine and whas500: room for the legend there
    axes[0].legend(title="greedy tree, depth", ncol=2, loc="upper right", fontsize="small")
    acc = depth_runs[depth_runs["d"] == d_top]
    colours = {m: learner_colour(m) for m in DEPTH_METHODS}
    sns.barplot(data=acc, x="data set", y="accuracy", hue="method", ax=axes[1], errorbar="sd",
                hue_order=list(DEPTH_METHODS), order=order, palette=colours)
    lo = max(0.0, acc["accuracy"].min() - 0.1)
    axes[1].set(ylim=(lo, 1.0), xlabel="", ylabel=f"{folds}-fold CV accuracy",
                title=f"held-out accuracy at depth {d_top}")
    figures.legend_below(fig, [axes[1]], ncol=3)
    return fig


def check_find(table: VerificationTable, depth_runs: pd.DataFrame) -> None:
    """The rows of [BLT21] Lemma 3.1 on every data set: FIND's training errors at most CART's (theorem)
    and equal to pystreed's (identity); then the fit-time ratio at the largest depth (observation).

    The theorem row's reach: both trees label their leaves by the majority, so each misclassifies at
    most the minority class of the training fold, at most half of it; the difference lies within
    plus or minus that. Its largest value over folds and depths is 0 as soon as CART's greedy tree is
    itself optimal on one fold and depth (as it usually is at d = 1), so the row sits at its bound
    whatever the data: it is flagged tight by construction, and fails only if FIND misclassifies
    more training points than CART somewhere. Its power: the one-leaf tree (the fold's majority label,
    a tree of every depth d) in FIND's place fails it wherever CART or ID3 beats the majority label.
    """
    wide = training_error_gaps(depth_runs)
    for name in depth_runs["data set"].unique():
        g = wide.loc[name]
        half = int(depth_runs.loc[depth_runs["data set"] == name, "m_train"].max()) // 2
        table.theorem("[BLT21] Lemma 3.1", f"{name}: max over folds and d of FIND - CART training errors "
                      f"(same features)", float((g["FIND"] - g["CART, same features"]).max()), 0.0,
                      reach=(-half, half),
                      measured_by="dtcore.find.find", bound_by="sklearn.tree.DecisionTreeClassifier",
                      box="lem-real-find", worst_case=f"{name}, every fold and depth d",
                      tight_by_construction="the largest difference includes d = 1, where CART's greedy stump "
                                            "is usually itself optimal, so it is 0 whatever FIND does elsewhere",
                      note="CART is one tree of depth d on the same features; the reach is plus or minus half "
                           "the training fold (each tree errs on at most the minority class)",
                      fails_under=("the one-leaf tree (the fold's majority label) in FIND's place",
                                   float((g["one leaf"] - g["CART, same features"]).max())))
        table.identity("[BLT21] Lemma 3.1", f"{name}: max |FIND - pystreed| training errors over folds and d",
                       float(g["FIND - pystreed"].abs().max()), 0.0, box="lem-real-find",
                       computed_by=("dtcore.find.find", "pystreed.STreeDClassifier"),
                       note="two independent optimal solvers on the same Boolean features")
        find_rows = depth_runs[(depth_runs["data set"] == name) & (depth_runs["method"] == "FIND")]
        table.identity("[BLT21] Lemma 3.1", f"{name}: max |OptimalTreeClassifier - FIND| training errors over folds and d",
                       float((find_rows["estimator training errors"] - find_rows["training errors"]).abs().max()), 0.0,
                       box="lem-real-find", computed_by=("dtcore.estimators.OptimalTreeClassifier", "dtcore.find.find"),
                       note="the estimator on the raw features (it binarises and encodes the labels itself) "
                            "against FIND on the same Boolean features")
        table.theorem("[BLT21] Lemma 3.1", f"{name}: max over folds and d of FIND - ID3 training errors "
                      f"(same features, ID3 stopped at depth d)", float((g["FIND"] - g["ID3, same features"]).max()),
                      0.0, reach=(-half, half), measured_by="dtcore.find.find", bound_by="dtcore.id3.id3",
                      box="lem-real-find", worst_case=f"{name}, every fold and depth d",
                      tight_by_construction="the largest difference includes d = 1, where ID3's stump is usually "
                                            "itself optimal, so it is 0 whatever FIND does elsewhere",
                      note="ID3 of [BDM20] stopped at depth d is one more tree of depth d on the same features",
                      fails_under=("the one-leaf tree (the fold's majority label) in FIND's place",
                                   float((g["one leaf"] - g["ID3, same features"]).max())))
    d_top = int(depth_runs["d"].max())
    seconds = depth_runs[depth_runs["d"] == d_top].groupby("method")["seconds"].median()
    table.observation("FIND against pystreed, fit time", f"median fit seconds at depth {d_top}, FIND / pystreed",
                      float(seconds["FIND"] / seconds["pystreed"]),
                      why="a speed ratio on a shared machine, not a claim of a paper")


def find_glue(depth_runs: pd.DataFrame) -> dict[str, Any]:
    """The numbers the FIND section's text quotes: the largest depth, the mean optimality gap and the
    accuracies there per data set, mean leaves and median fit seconds ([BLT21] Lemma 3.1)."""
    d_top = int(depth_runs["d"].max())
    at_top = depth_runs[depth_runs["d"] == d_top]
    top_gap = training_error_gaps(depth_runs).xs(d_top, level="d")["CART - FIND"].groupby(level="data set").mean()
    mean_acc = at_top.groupby(["data set", "method"])["accuracy"].mean()
    values: dict[str, Any] = {"ch6_d_top": d_top}
    for name in depth_runs["data set"].unique():
        key = GLUE_KEYS[name]
        values[f"ch6_gap_{key}"] = float(top_gap[name])
        values[f"ch6_acc_find_{key}"] = float(mean_acc[(name, "FIND")])
        values[f"ch6_acc_cart_{key}"] = float(mean_acc[(name, "CART, same features")])
        values[f"ch6_acc_raw_{key}"] = float(mean_acc[(name, "CART, raw features")])
    leaves = at_top.groupby("method")["leaves"].mean()
    values["ch6_leaves_find"] = float(leaves["FIND"])
    values["ch6_leaves_cart"] = float(leaves["CART, same features"])
    values["ch6_leaves_streed"] = float(leaves["pystreed"])
    seconds = at_top.groupby("method")["seconds"].median()
    values["ch6_find_seconds"] = float(seconds["FIND"])
    values["ch6_streed_seconds"] = float(seconds["pystreed"])
    values["ch6_binarise_seconds"] = float(at_top.loc[at_top["method"] == "FIND", "binarise seconds"].median())
    gaps = training_error_gaps(depth_runs).xs(d_top, level="d").groupby(level="data set").mean()
    values["ch6_n_datasets"] = len(gaps)
    values["ch6_cart_gap_low"], values["ch6_cart_gap_high"] = float(gaps["CART - FIND"].min()), float(gaps["CART - FIND"].max())
    values["ch6_id3_gap_low"], values["ch6_id3_gap_high"] = float(gaps["ID3 - FIND"].min()), float(gaps["ID3 - FIND"].max())
    acc = mean_acc.unstack("method")
    values["ch6_find_beats_cart"] = int((acc["FIND"] > acc["CART, same features"]).sum())
    values["ch6_find_beats_raw"] = int((acc["FIND"] > acc["CART, raw features"]).sum())
    values["ch6_find_beats_id3"] = int((acc["FIND"] > acc["ID3, same features"]).sum())
    return values


def readable_tree(X: pd.DataFrame, y: np.ndarray, *, depth: int, n_thresholds: int) -> str:
    """FIND's optimal depth-``depth`` tree ([BLT21] Lemma 3.1) on breast cancer data, as an engineer
    reads it: ``export_text`` over named features with the class names, and its training error, as
    Markdown (a text block and a sentence)."""
    labels = np.where(y == 1, "benign", "malignant")
    shown = OptimalTreeClassifier(max_depth=depth, n_thresholds=n_thresholds).fit(X, labels)
    return (f"```text\n{shown.export_text()}\n```\n\nIts training error is {shown.training_error_:.3f} "
            f"on the {len(y)} tumours.")
