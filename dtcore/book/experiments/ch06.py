"""Chapter 6's experiments: the papers' learners through scikit-learn's interface, on real data.

Three data sets that ship inside installed packages (breast cancer and digits from scikit-learn,
flchain from scikit-survival) are read as real-valued tables with 0/1 labels. Three experiments:

* FIND against CART and the optimal solver pystreed at depth d, on the same Boolean features
  ([BLT21] Lemma 3.1: FIND's tree has the least training error of any depth-d tree);
* TopDown_G against scikit-learn's best-first tree of the same size ([BGLT20] Sec. 1.1: the same
  rule; no theorem about held-out accuracy);
* Est on flchain, choosing the size t from a few labels ([BGLT20] Theorems 2 and 3, Lemma D.1).

Each experiment has a run function (a tidy DataFrame), a figure function, the verification rows it
adds to the chapter's table, and the values the text glues. Every random choice is keyed by the
chapter seed and a stable name (:mod:`dtcore.book.seeds`): the folds by ``"ch06/folds"``, CART's
tie-breaking by its experiment's name, Est's split of flchain and its shared draws by ``"ch06/est"``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ... import bounds
from ...estimators import OptimalTreeClassifier, ThresholdBinarizer, TopDownClassifier
from ...find import find
from ...id3 import id3
from ...learnability import estimate_learnability, hoeffding_halfwidth
from ...local import LabelOracle, SharedDraws, top_down_size_estimate
from ...topdown import depth_cap
from ...validate import check_int, check_real
from .. import figures, seeds
from ..chapter import styled_table
from ..report import VerificationTable

#: The chapter's data sets, in the order of its tables and figures.
DATASETS = ("breast cancer", "digits", "flchain", "wine", "diabetes", "whas500")
#: The short name of each data set in the chapter's glue names (``ch6_gap_cancer``, ...).
GLUE_KEYS = {"breast cancer": "cancer", "digits": "digits", "flchain": "flchain", "wine": "wine",
             "diabetes": "diabetes", "whas500": "whas500"}
#: The learners of the depth-d comparison, in the figure's order.
DEPTH_METHODS = ("FIND", "pystreed", "ID3, same features", "CART, same features", "CART, raw features")
#: The columns of Est's table that the chapter shows.
EST_SHOWN = ["t", "estimated_error", "ci_low", "ci_high", "test error of T_t", "held-out error of T_t",
             "leaves of T_t", "labels_new", "labels_total", "label_fn_calls"]

Data = Mapping[str, tuple[pd.DataFrame, np.ndarray]]


# --------------------------------------------------------------------------------------------
# the data


def load_dataset(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """One of :data:`DATASETS` as a DataFrame of numbers and 0/1 labels (1 = the class the text names).

    breast cancer: label 1 = benign; digits: label 1 = digit >= 5; flchain: label 1 = died during
    follow-up, with the cause of death (it reveals the label) and creatinine (often missing) dropped;
    wine: label 1 = the first cultivar; diabetes: label 1 = disease progression after a year above
    its median; whas500 (Worcester heart attack study): label 1 = died during follow-up, with the
    follow-up length (it reveals the label) left out.
    """
    from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine

    if name == "breast cancer":
        X, y = load_breast_cancer(return_X_y=True, as_frame=True)
        return X, (y.to_numpy() == 1).astype(np.uint8)
    if name == "digits":
        X, y = load_digits(return_X_y=True, as_frame=True)
        return X, (y.to_numpy() >= 5).astype(np.uint8)
    if name == "flchain":
        from sksurv.datasets import load_flchain

        raw, outcome = load_flchain()
        X = pd.DataFrame({"age": raw["age"], "male": (raw["sex"] == "M").astype(int),
                          "kappa": raw["kappa"], "lambda": raw["lambda"],
                          "flc group": raw["flc.grp"].astype(int), "mgus": (raw["mgus"] == "yes").astype(int),
                          "sample year": raw["sample.yr"].astype(int)}).reset_index(drop=True)
        return X, outcome["death"].astype(np.uint8)
    if name == "wine":
        X, y = load_wine(return_X_y=True, as_frame=True)
        return X, (y.to_numpy() == 0).astype(np.uint8)
    if name == "diabetes":
        X, target = load_diabetes(return_X_y=True, as_frame=True, scaled=False)
        return X, (target.to_numpy() > np.median(target)).astype(np.uint8)
    if name == "whas500":
        from sksurv.datasets import load_whas500

        raw, outcome = load_whas500()
        X = raw.apply(lambda col: col.astype(int) if isinstance(col.dtype, pd.CategoricalDtype) else col)
        return X.reset_index(drop=True), outcome["fstat"].astype(np.uint8)
    raise ValueError(f"name must be one of {list(DATASETS)}, got {name!r}")


def load_datasets() -> dict[str, tuple[pd.DataFrame, np.ndarray]]:
    """Every data set of :data:`DATASETS`, by name."""
    return {name: load_dataset(name) for name in DATASETS}


def dataset_overview(data: Data, *, n_thresholds: int) -> pd.DataFrame:
    """Rows, columns, positive rate and number of Boolean features ([BGLT20]'s cube) of each data set."""
    n_thresholds = check_int("n_thresholds", n_thresholds, 1)
    return pd.DataFrame([{"data set": name, "rows": X.shape[0], "columns": X.shape[1],
                          "positive rate": float(y.mean()),
                          "Boolean features": ThresholdBinarizer(n_thresholds).fit(X.to_numpy()).n_features}
                         for name, (X, y) in data.items()])


def cv_splits(X: pd.DataFrame, y: np.ndarray, *, folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) row indices of stratified, shuffled ``folds``-fold cross-validation.

    The shuffle is keyed by ``"ch06/folds"``, so every experiment of the chapter sees the same folds.
    """
    from sklearn.model_selection import StratifiedKFold

    folds = check_int("folds", folds, 2)
    return list(StratifiedKFold(folds, shuffle=True, random_state=seeds.library_seed(seed, "ch06/folds")).split(X, y))


def _legend_below(ax: plt.Axes, *, offset: float = 0.2, **kwargs: Any) -> None:
    # The axes' legend moved under them as a figure legend: tight_layout lays out axes only, so it
    # does not shrink them to make room, and the page's image is cropped to every artist, legend included.
    handles, labels = ax.get_legend_handles_labels()
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    ax.figure.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.0, -offset),
                     bbox_transform=ax.transAxes, **kwargs)


def _log_x(ax: plt.Axes, ticks: Sequence[int]) -> None:
    # A log x-axis labelled only at the given sizes (no minor-tick clutter).
    ax.set_xscale("log")
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.xaxis.set_minor_locator(plt.NullLocator())


# --------------------------------------------------------------------------------------------
# FIND against CART and pystreed at depth d


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
    rows = []
    for method, (model, seconds) in fits.items():
        raw = method == "CART, raw features"
        Z_train, Z_test = (X_train, X_test) if raw else (B_train, B_test)
        leaves = model.size if hasattr(model, "size") else model.get_n_leaves()
        rows.append({"method": method, "training errors": int((model.predict(Z_train) != y_train).sum()),
                     "accuracy": float((model.predict(Z_test) == y_test).mean()), "leaves": int(leaves),
                     "seconds": seconds, "binarise seconds": 0.0 if raw else binarise_seconds,
                     "estimator training errors": estimator_errors if method == "FIND" else np.nan})
    return rows


def find_cart_pystreed(data: Data, *, folds: int, depths: Sequence[int], n_thresholds: int,
                       seed: int) -> pd.DataFrame:
    """:func:`compare_at_depth` on every data set, fold and depth ([BLT21] Lemma 3.1): one row per method.

    Columns: data set, fold, d, m_train, method, training errors, accuracy, leaves, seconds, binarise
    seconds, and for FIND the training errors of ``OptimalTreeClassifier`` fitted on the raw features.
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
    sns.barplot(data=gap, x="data set", y="extra errors", hue="greedy", ax=axes[0], errorbar=("pi", 100),
                palette="crest", order=order)
    axes[0].axhline(0, color="k", lw=1)
    axes[0].set(ylabel="greedy errors − FIND errors\n(training points, per fold)", xlabel="",
                title="optimality gap on the same features (must be ≥ 0)")
    # the right half holds the small gaps of wine and whas500: room for the legend there
    axes[0].legend(title="greedy tree, depth", ncol=2, loc="upper right", fontsize="small")
    acc = depth_runs[depth_runs["d"] == d_top]
    sns.barplot(data=acc, x="data set", y="accuracy", hue="method", ax=axes[1], errorbar="sd",
                hue_order=list(DEPTH_METHODS), order=order)
    lo = max(0.0, acc["accuracy"].min() - 0.1)
    axes[1].set(ylim=(lo, 1.0), xlabel="", ylabel=f"{folds}-fold CV accuracy",
                title=f"held-out accuracy at depth {d_top}")
    _legend_below(axes[1], offset=0.1, ncol=3)
    return fig


def check_find(table: VerificationTable, depth_runs: pd.DataFrame) -> None:
    """The rows of [BLT21] Lemma 3.1 on every data set: FIND's training errors at most CART's (theorem)
    and equal to pystreed's (identity); then the fit-time ratio at the largest depth (observation).

    The theorem row's reach: both trees label their leaves by the majority, so each misclassifies at
    most the minority class of the training fold, at most half of it; the difference lies within
    plus or minus that. Its largest value over folds and depths is 0 as soon as CART's greedy tree is
    itself optimal on one fold and depth (as it usually is at d = 1), so the row sits at its bound
    whatever the data: it is flagged tight by construction, and fails only if FIND misclassifies
    more training points than CART somewhere.
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
                           "the training fold (each tree errs on at most the minority class)")
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
                      note="ID3 of [BDM20] stopped at depth d is one more tree of depth d on the same features")
    d_top = int(depth_runs["d"].max())
    seconds = depth_runs[depth_runs["d"] == d_top].groupby("method")["seconds"].median()
    table.observation("no theorem", f"median fit seconds at depth {d_top}, FIND / pystreed",
                      float(seconds["FIND"] / seconds["pystreed"]),
                      why="a speed ratio on a shared machine, not a claim of a paper")


def find_glue_values(depth_runs: pd.DataFrame) -> dict[str, Any]:
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


# --------------------------------------------------------------------------------------------
# TopDown_G against scikit-learn's best-first tree


def topdown_bestfirst(data: Data, *, folds: int, leaf_sizes: Sequence[int], n_thresholds: int,
                      seed: int) -> pd.DataFrame:
    """TopDown_G ([BGLT20] Sec. 1.1) and best-first CART of size t on every data set, fold and size.

    Columns: held-out accuracy of each (CART on the raw features), their leaves, the fraction of
    training points on which TopDown_G and best-first CART on the *same* Boolean features disagree
    (0 up to ties), and the accuracy difference TopDown_G - CART. CART breaks ties between equal gains
    with the stream ``"ch06/topdown-bestfirst"``.
    """
    from sklearn.tree import DecisionTreeClassifier

    cart_seed = seeds.library_seed(seed, "ch06/topdown-bestfirst")
    rows = []
    for name, (X, y) in data.items():
        for fold, (train, test) in enumerate(cv_splits(X, y, folds=folds, seed=seed)):
            X_train, X_test, y_train, y_test = X.iloc[train], X.iloc[test], y[train], y[test]
            for t in leaf_sizes:
                ours = TopDownClassifier(max_leaf_nodes=t, n_thresholds=n_thresholds).fit(X_train, y_train)
                B_train = ours.binarizer_.transform(X_train.to_numpy())
                same = DecisionTreeClassifier(max_leaf_nodes=t, random_state=cart_seed).fit(B_train, y_train)
                raw = DecisionTreeClassifier(max_leaf_nodes=t, random_state=cart_seed).fit(X_train, y_train)
                rows.append({"data set": name, "fold": fold, "t": t,
                             "TopDown_G": float(ours.score(X_test, y_test)),
                             "best-first CART, raw features": float(raw.score(X_test, y_test)),
                             "best-first CART, same features":
                                 float(same.score(ours.binarizer_.transform(X_test.to_numpy()), y_test)),
                             "leaves TopDown_G": ours.tree_.size, "leaves CART": raw.get_n_leaves(),
                             "training disagreement, same features":
                                 float((ours.tree_.predict(B_train) != same.predict(B_train)).mean())})
    runs = pd.DataFrame(rows)
    runs["difference"] = runs["TopDown_G"] - runs["best-first CART, raw features"]
    return runs


def tie_disagreements(size_runs: pd.DataFrame) -> pd.DataFrame:
    """The (data set, fold, t) where TopDown_G and best-first CART on the same features label some
    training point differently ([BGLT20] Sec. 1.1: the same rule, so only ties part them)."""
    parted = size_runs[size_runs["training disagreement, same features"] > 0]
    return parted[["data set", "fold", "t", "training disagreement, same features"]].reset_index(drop=True)


def size_summary(size_runs: pd.DataFrame) -> pd.DataFrame:
    """Means over folds of :func:`topdown_bestfirst`'s columns, by data set and size t."""
    return (size_runs.drop(columns="difference").groupby(["data set", "t"]).mean(numeric_only=True)
            .drop(columns="fold"))


def topdown_figure(size_runs: pd.DataFrame, *, folds: int) -> plt.Figure:
    """Left: accuracy of TopDown_G ([BGLT20] Sec. 1.1) and best-first CART against the size t. Right:
    their difference per fold (band: range over folds)."""
    sizes = sorted(size_runs["t"].unique())
    fig, axes = figures.figure(2, height=3.8)
    long = size_runs.melt(id_vars=["data set", "fold", "t"],
                          value_vars=["TopDown_G", "best-first CART, same features", "best-first CART, raw features"],
                          var_name="method", value_name="accuracy")
    long["method"] = long["method"].replace({"best-first CART, raw features": "best-first CART (raw)",
                                             "best-first CART, same features": "best-first CART (same)"})
    sns.lineplot(data=long, x="t", y="accuracy", hue="data set", style="method", marker="o", errorbar=None,
                 ax=axes[0])
    axes[0].set(xlabel="size t (leaves)", ylabel=f"{folds}-fold CV accuracy", title="accuracy by size")
    _log_x(axes[0], sizes)
    _legend_below(axes[0], offset=0.2, ncol=2)
    sns.lineplot(data=size_runs, x="t", y="difference", hue="data set", marker="o", errorbar=("pi", 100),
                 ax=axes[1], legend=False)
    axes[1].axhline(0, color="k", lw=1)
    axes[1].set(xlabel="size t (leaves)", ylabel="accuracy: TopDown_G − CART", title="difference (band: fold range)")
    _log_x(axes[1], sizes)
    return fig


def check_topdown(table: VerificationTable, size_runs: pd.DataFrame) -> None:
    """Observations only (no theorem bounds held-out accuracy): TopDown_G minus best-first CART at the
    largest size per data set, and the largest training disagreement on the same features
    ([BGLT20] Sec. 1.1: the same rule up to ties)."""
    summary = size_summary(size_runs)
    t_top = int(size_runs["t"].max())
    at_top = summary.xs(t_top, level="t")
    for name in size_runs["data set"].unique():
        table.observation("no theorem", f"{name}: CV accuracy TopDown_G - best-first CART (raw), t = {t_top}",
                          float(at_top.loc[name, "TopDown_G"] - at_top.loc[name, "best-first CART, raw features"]),
                          why="held-out accuracy of two heuristics; no paper bounds it")
    table.observation("[BGLT20] Sec. 1.1", "max training disagreement TopDown_G vs best-first CART, same features",
                      float(size_runs["training disagreement, same features"].max()),
                      why="equal only up to ties between equal gains and half-half leaves")


def topdown_glue_values(size_runs: pd.DataFrame) -> dict[str, Any]:
    """The numbers the TopDown_G section's text quotes: the accuracies at the largest size t and the
    largest training disagreement ([BGLT20] Sec. 1.1)."""
    t_top = int(size_runs["t"].max())
    at_top = size_summary(size_runs).xs(t_top, level="t")
    values: dict[str, Any] = {"ch6_t_top": t_top}
    for name in size_runs["data set"].unique():
        values[f"ch6_td_{GLUE_KEYS[name]}"] = float(at_top.loc[name, "TopDown_G"])
        values[f"ch6_bf_{GLUE_KEYS[name]}"] = float(at_top.loc[name, "best-first CART, raw features"])
    values["ch6_disagree"] = float(size_runs["training disagreement, same features"].max())
    parted = tie_disagreements(size_runs)
    values["ch6_parted_runs"] = len(parted)
    values["ch6_size_runs"] = len(size_runs)
    values["ch6_parted_where"] = ("nowhere" if parted.empty else "; ".join(
        f"{name}, fold{'s' if len(g) > 1 else ''} {', '.join(str(f) for f in sorted(g['fold'].unique()))}"
        for name, g in parted.groupby("data set")))
    same = size_summary(size_runs).xs(t_top, level="t")
    raw_loss = at_top["best-first CART, raw features"] - at_top["TopDown_G"]
    values["ch6_raw_loss_max"] = float(raw_loss.max())
    values["ch6_raw_loss_where"] = str(raw_loss.idxmax())
    values["ch6_same_gap"] = float((same["TopDown_G"] - same["best-first CART, same features"]).abs().max())
    return values


# --------------------------------------------------------------------------------------------
# Est: choosing the size t from a few labels


@dataclass(frozen=True)
class EstRun:
    """Est on a real pool against the trees T_t grown with every label ([BGLT20] Theorems 2 and 3).

    ``learn`` has one row per size t: Est's columns (:func:`dtcore.learnability.estimate_learnability`)
    and the leaves, test error and held-out error of T_t and Lemma D.1's label bound.
    """

    learn: pd.DataFrame
    pool_size: int
    n_test: int
    n_heldout: int
    base_error: float  # held-out error of predicting 0 ("alive") for everyone
    pool_index: np.ndarray | None = None  # rows of X in the pool
    held_index: np.ndarray | None = None  # rows of X in the held-out set


def est_against_full_trees(X: pd.DataFrame, y: np.ndarray, *, seed: int, est_sizes: Sequence[int],
                           batch_size: int, n_thresholds: int, n_test: int, n_heldout: int,
                           delta: float) -> EstRun:
    """Est ([BGLT20] Theorems 2 and 3) on a pool of ``X`` and every T_t again with every pool label.

    The rows of ``X`` are split at random into S_test (``n_test``), a held-out set (``n_heldout``) and
    the unlabelled pool; Est labels pool points through a label function, and each T_t is regrown by
    TopDownSizeEstimate_G on the whole labelled pool with the same shared randomness, so Est(t) must
    equal T_t's test error. The split and the shared randomness are two children of the stream
    ``"ch06/est"``.
    """
    n_test = check_int("n_test", n_test, 1)
    n_heldout = check_int("n_heldout", n_heldout, 1, len(X) - n_test - 1)
    delta = check_real("delta", delta, 0.0, 1.0)
    split_seed, draws_seed = seeds.seed_sequence(seed, "ch06/est").spawn(2)
    perm = np.random.default_rng(split_seed).permutation(len(X))
    test_rows, held_rows, pool_rows = perm[:n_test], perm[n_test:n_test + n_heldout], perm[n_test + n_heldout:]
    pool, test_X, held_X = X.iloc[pool_rows], X.iloc[test_rows], X.iloc[held_rows]

    def label_fn(rows: pd.DataFrame) -> np.ndarray:
        # The labelling function: looks up each requested point's label by its row of X.
        return y[rows.index.to_numpy()]

    est_table = estimate_learnability(pool, label_fn, est_sizes, test_X, rng=np.random.default_rng(draws_seed),
                                      batch_size=batch_size, n_thresholds=n_thresholds, delta=delta)
    # every tree T_t again, grown with every pool label and the same shared randomness
    binarizer = ThresholdBinarizer(n_thresholds).fit(pool.to_numpy())
    B_pool, B_test, B_held = (binarizer.transform(Z.to_numpy()) for Z in (pool, test_X, held_X))
    draws = SharedDraws.draw(len(pool), B_pool.shape[1], batch_size, rng=np.random.default_rng(draws_seed))
    y_pool, y_test, y_held = y[pool_rows], y[test_rows], y[held_rows]
    full_rows = []
    for t in est_sizes:
        full = top_down_size_estimate(B_pool, LabelOracle.from_labels(y_pool), size=t, batch_size=batch_size, draws=draws)
        full_rows.append({"t": t, "leaves of T_t": full.tree.size,
                          "test error of T_t": float(np.mean(full.tree.predict(B_test) != y_test)),
                          "held-out error of T_t": float(np.mean(full.tree.predict(B_held) != y_held)),
                          "Lemma D.1 label bound": bounds.bglt20_lemma_d1_labels(batch_size, t, batch_size, n_test)})
    learn = est_table.merge(pd.DataFrame(full_rows), on="t")
    return EstRun(learn=learn, pool_size=len(pool), n_test=n_test, n_heldout=n_heldout,
                  base_error=float(y_held.mean()), pool_index=pool_rows, held_index=held_rows)


def est_radius(*, n_test: int, n_heldout: int, delta: float, n_sizes: int) -> float:
    """The room [BGLT20] Theorem 3 leaves between Est(t) and T_t's held-out error over ``n_sizes`` sizes:
    the Hoeffding half-widths of the test and held-out sets, each at confidence delta / (2 K)."""
    n_sizes = check_int("n_sizes", n_sizes, 1)
    delta = check_real("delta", delta, 0.0, 1.0)
    share = delta / (2 * n_sizes)
    return hoeffding_halfwidth(n_test, share) + hoeffding_halfwidth(n_heldout, share)


def est_labels(run: EstRun) -> int:
    """Distinct pool points Est labelled over the whole grid of sizes ([BGLT20] Lemma D.1)."""
    return int(run.learn["labels_total"].iloc[-1])


def est_label_reach(run: EstRun, *, batch_size: int) -> int:
    """The most distinct pool points Est can label over its grid of sizes ([BGLT20] Lemma D.1's reach).

    For each size t, Est grows part of a tree whose leaves have depth at most D (the depth cap
    :func:`dtcore.topdown.depth_cap`), and reads at most one minibatch of ``batch_size`` points per node:
    at most ``batch_size * 2**(D+1)`` points per size, and never more than the pool.
    """
    per_size = sum(batch_size * 2 ** (depth_cap(int(t)) + 1) for t in run.learn["t"])
    return min(run.pool_size, per_size)


def check_est(table: VerificationTable, run: EstRun, *, delta: float, batch_size: int) -> None:
    """[BGLT20] Theorem 2 (Est equals T_t's test error: identity), Theorem 3 (within the Hoeffding radius
    of the held-out error: theorem) and Lemma D.1 (labels used: a theorem row, or an observation when
    the bound exceeds every count Est can reach)."""
    learn = run.learn
    K = len(learn)
    radius = est_radius(n_test=run.n_test, n_heldout=run.n_heldout, delta=delta, n_sizes=K)
    table.identity("[BGLT20] Theorem 2 / App. D",
                   "max over t of |Est(t) - test error of T_t grown with every label|",
                   float((learn["estimated_error"] - learn["test error of T_t"]).abs().max()), 0.0,
                   box="thm-real-est",
                   computed_by=("dtcore.learnability.estimate_learnability", "dtcore.local.top_down_size_estimate"),
                   note="Est through LocalLearner's partial trees against the whole tree T_t, on the same S_test")
    deviation = (learn["estimated_error"] - learn["held-out error of T_t"]).abs()
    t_worst = int(learn.loc[deviation.idxmax(), "t"])
    table.theorem("[BGLT20] Theorem 3", f"max over {K} sizes of |Est(t) - held-out error of T_t|",
                  float(deviation.max()), radius, reach=(0.0, 1.0),
                  measured_by=["dtcore.learnability.estimate_learnability", "dtcore.local.top_down_size_estimate"],
                  bound_by=["dtcore.book.experiments.ch06.est_radius", "dtcore.learnability.hoeffding_halfwidth"],
                  box="thm-real-est", worst_case=f"flchain, t = {t_worst} (the size of largest deviation)",
                  note=f"Hoeffding radii at delta/(2K): {run.n_test} test and {run.n_heldout} held-out points; "
                       "the reach: both errors lie in [0, 1]")
    labels = est_labels(run)
    # Lemma D.1 bounds the labels of one size; the grid shares one label cache, so its total is at
    # most the sum of the per-size bounds.
    bound_labels = int(learn["Lemma D.1 label bound"].sum())
    reach = est_label_reach(run, batch_size=batch_size)
    if bound_labels < reach:
        table.theorem("[BGLT20] Lemma D.1", "pool labels Est used over the whole grid", labels, bound_labels,
                      reach=(0, reach), measured_by="dtcore.learnability.estimate_learnability",
                      bound_by="dtcore.bounds.bglt20_lemma_d1_labels", box="thm-real-est",
                      note="the sum over the grid of the per-size bounds; reach: one minibatch per node of "
                           "depth at most D, per size, and at most the pool")
    else:
        table.observation("[BGLT20] Lemma D.1", "pool labels Est used over the whole grid", labels, bound_labels,
                          why=f"the bound (summed over the grid) exceeds every count Est can reach ({reach:,} "
                              f"points: the pool, or one minibatch per node) with {run.n_test} test queries: "
                              "vacuous",
                          box="thm-real-est")


def choice_of_t(run: EstRun) -> pd.DataFrame:
    """The two ways to choose t: the smallest t of least Est ([BGLT20] Theorem 3) and the t whose T_t,
    grown with every label, has the least held-out error; the held-out error of each choice and the
    labels it needs."""
    learn = run.learn
    t_by_est = int(learn.loc[learn["estimated_error"].idxmin(), "t"])  # idxmin: the smallest t among ties
    t_by_full = int(learn.loc[learn["held-out error of T_t"].idxmin(), "t"])
    held = learn.set_index("t")["held-out error of T_t"]
    return pd.DataFrame([
        {"choice of t": "Est (estimate_learnability)", "t": t_by_est, "held-out error of chosen T_t": held[t_by_est],
         "labels": est_labels(run) + run.n_test},
        {"choice of t": "train every size on every label", "t": t_by_full,
         "held-out error of chosen T_t": held[t_by_full], "labels": run.pool_size + run.n_heldout}])


def check_choice(table: VerificationTable, choice: pd.DataFrame) -> None:
    """The regret of choosing t by Est (observation: [BGLT20] bounds each estimate, not the choice)."""
    held = choice["held-out error of chosen T_t"]
    table.observation("no theorem", "held-out error of T_t: t chosen by Est minus t chosen with every label",
                      float(held.iloc[0] - held.iloc[1]),
                      why="the regret of choosing t by Est; the theorem bounds each estimate, not the choice")


def est_glue_values(run: EstRun, choice: pd.DataFrame, *, delta: float) -> dict[str, Any]:
    """The numbers the Est section's text quotes ([BGLT20] Theorems 2 and 3): the two choices of t,
    their held-out errors and labels, the pool, the Hoeffding radius and the base rate."""
    est_row, full_row = choice.iloc[0], choice.iloc[1]
    return {"ch6_t_est": int(est_row["t"]), "ch6_t_full": int(full_row["t"]),
            "ch6_err_est": float(est_row["held-out error of chosen T_t"]),
            "ch6_err_full": float(full_row["held-out error of chosen T_t"]),
            "ch6_labels_est": est_labels(run) + run.n_test, "ch6_labels_pool": est_labels(run),
            "ch6_labels_full": run.pool_size + run.n_heldout, "ch6_pool_size": run.pool_size,
            "ch6_radius": est_radius(n_test=run.n_test, n_heldout=run.n_heldout, delta=delta,
                                     n_sizes=len(run.learn)),
            "ch6_calls": int(run.learn["label_fn_calls"].iloc[-1]), "ch6_base_error": run.base_error}


def est_figure(run: EstRun, *, delta: float) -> plt.Figure:
    """Left: Est(t) with its Hoeffding interval and T_t's held-out error ([BGLT20] Theorem 3). Right:
    the labels each way of choosing t needs (log scale)."""
    learn, sizes = run.learn, list(run.learn["t"])
    everything = run.pool_size + run.n_heldout
    fig, axes = figures.figure(2, height=3.8)
    axes[0].fill_between(learn["t"], learn["ci_low"], learn["ci_high"], alpha=0.25,
                         label=f"Est ± Hoeffding ($\\delta$={delta})")
    axes[0].plot(learn["t"], learn["estimated_error"], "o-", label="Est(t), labels from label_fn")
    axes[0].plot(learn["t"], learn["held-out error of T_t"], "s--", label="held-out error of $T_t$ (every label)")
    axes[0].set(xlabel="size t", ylabel="error", title="Est against held-out error")
    _log_x(axes[0], sizes)
    _legend_below(axes[0], offset=0.2)
    axes[1].plot(learn["t"], learn["labels_total"] + run.n_test, "o-", label="Est: pool labels + $S_{test}$")
    axes[1].axhline(everything, color="k", ls="--", label="every size trained:\npool + held-out")
    axes[1].set(yscale="log", xlabel="size t", ylabel="labels (log scale)", title="labels needed")
    _log_x(axes[1], sizes)
    label_ticks = [v for v in (250, 500, 1000, 2000, 5000, 10000, 20000, 50000)
                   if 0.5 * (learn["labels_total"].min() + run.n_test) <= v <= 2 * everything]
    axes[1].set_yticks(label_ticks, [f"{v:,}" for v in label_ticks])
    axes[1].yaxis.set_minor_locator(plt.NullLocator())
    _legend_below(axes[1], offset=0.2)
    return fig


def cross_validation_at_budget(X: pd.DataFrame, y: np.ndarray, run: EstRun, *, budgets: Sequence[int],
                               sizes: Sequence[int], folds: int, repeats: int, n_thresholds: int,
                               seed: int) -> pd.DataFrame:
    """The plain alternative to Est at an equal label budget: label ``budget`` random pool points,
    choose t by ``folds``-fold cross-validation of TopDown_G over ``sizes`` (the smallest t of least
    CV error), refit on those labels and score the tree on Est's held-out set.

    One row per budget and repeat: the t chosen, its CV error and its held-out error. Each budget's
    draws come from the stream ``"ch06/budget"``.
    """
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    if run.pool_index is None or run.held_index is None:
        raise ValueError("run must come from est_against_full_trees (it needs the pool and held-out rows)")
    repeats = check_int("repeats", repeats, 1)
    folds = check_int("folds", folds, 2)
    held_X, held_y = X.iloc[run.held_index], y[run.held_index]
    rng = seeds.experiment_rng(seed, "ch06/budget")
    rows = []
    for budget in budgets:
        budget = check_int("budget", int(budget), folds, len(run.pool_index))
        for repeat in range(repeats):
            chosen = rng.choice(run.pool_index, size=budget, replace=False)
            Xb, yb = X.iloc[chosen], y[chosen]
            splitter = StratifiedKFold(folds, shuffle=True, random_state=int(rng.integers(2**31)))
            cv_error = {t: 1.0 - float(cross_val_score(TopDownClassifier(max_leaf_nodes=t, n_thresholds=n_thresholds),
                                                       Xb, yb, cv=splitter).mean()) for t in sizes}
            t_best = min(sizes, key=lambda t: (cv_error[t], t))
            tree = TopDownClassifier(max_leaf_nodes=t_best, n_thresholds=n_thresholds).fit(Xb, yb)
            rows.append({"labels": budget, "repeat": repeat, "t chosen by CV": t_best,
                         "CV error": cv_error[t_best], "held-out error": 1.0 - float(tree.score(held_X, held_y))})
    return pd.DataFrame(rows)


def budget_summary(baseline: pd.DataFrame, choice: pd.DataFrame) -> pd.DataFrame:
    """Est's choice beside cross-validation at equal label budgets: held-out error (range over repeats)."""
    est = choice.iloc[0]
    rows = [{"way to choose t": "Est (estimate_learnability)", "labels": int(est["labels"]),
             "t": str(int(est["t"])), "held-out error (min)": float(est["held-out error of chosen T_t"]),
             "held-out error (max)": float(est["held-out error of chosen T_t"])}]
    for budget, g in baseline.groupby("labels"):
        ts = sorted(g["t chosen by CV"].unique())
        rows.append({"way to choose t": f"{len(g)} draws of random labels, CV", "labels": int(budget),
                     "t": ", ".join(str(t) for t in ts), "held-out error (min)": float(g["held-out error"].min()),
                     "held-out error (max)": float(g["held-out error"].max())})
    return pd.DataFrame(rows)


def est_verdict(baseline: pd.DataFrame, choice: pd.DataFrame, run: EstRun, *, delta: float) -> dict[str, Any]:
    """What the budget comparison says, as values the text glues: Est's held-out error against the range
    of cross-validation at Est's own budget, and how many sizes' Est intervals overlap the best one's."""
    est = choice.iloc[0]
    est_error, budget = float(est["held-out error of chosen T_t"]), int(est["labels"])
    same = baseline[baseline["labels"] == baseline["labels"].max()]
    lo, hi = float(same["held-out error"].min()), float(same["held-out error"].max())
    if est_error < lo:
        verdict = "Est's choice is better than every cross-validated choice at the same budget"
    elif est_error > hi:
        verdict = ("cross-validation on the same number of random labels chose a better tree in every draw: "
                   "here Est does not help to pick t")
    else:
        verdict = "Est's choice lies within the range of the cross-validated choices at the same budget"
    learn = run.learn
    best = learn.loc[learn["estimated_error"].idxmin()]
    overlapping = int(((learn["ci_low"] <= best["ci_high"]) & (learn["ci_high"] >= best["ci_low"])).sum())
    return {"ch6_budget": budget, "ch6_cv_budget_low": lo, "ch6_cv_budget_high": hi, "ch6_est_verdict": verdict,
            "ch6_cv_budget_other": int(baseline["labels"].min()),
            "ch6_cv_other_low": float(baseline.loc[baseline["labels"] == baseline["labels"].min(), "held-out error"].min()),
            "ch6_cv_other_high": float(baseline.loc[baseline["labels"] == baseline["labels"].min(), "held-out error"].max()),
            "ch6_overlapping_sizes": overlapping, "ch6_n_sizes": len(learn),
            "ch6_half_width": float((best["ci_high"] - best["ci_low"]) / 2)}


def frontier(depth_runs: pd.DataFrame, size_runs: pd.DataFrame) -> pd.DataFrame:
    """Accuracy against leaves for every learner and data set: means over folds of each depth d
    (FIND, pystreed, ID3, CART) and each size t (TopDown_G, best-first CART)."""
    by_depth = (depth_runs.groupby(["data set", "method", "d"])[["leaves", "accuracy"]].mean().reset_index()
                .rename(columns={"d": "setting"}))
    by_depth["learner"] = by_depth["method"] + " (depth)"
    long = size_runs.melt(id_vars=["data set", "fold", "t"], value_vars=["TopDown_G", "best-first CART, raw features"],
                          var_name="method", value_name="accuracy")
    leaves = pd.concat([size_runs[["data set", "fold", "t", "leaves TopDown_G"]].rename(
                            columns={"leaves TopDown_G": "leaves"}).assign(method="TopDown_G"),
                        size_runs[["data set", "fold", "t", "leaves CART"]].rename(
                            columns={"leaves CART": "leaves"}).assign(method="best-first CART, raw features")])
    long = long.merge(leaves, on=["data set", "fold", "t", "method"])
    by_size = long.groupby(["data set", "method", "t"])[["leaves", "accuracy"]].mean().reset_index().rename(
        columns={"t": "setting"})
    by_size["learner"] = by_size["method"] + " (size)"
    return pd.concat([by_depth, by_size], ignore_index=True)


def frontier_figure(front: pd.DataFrame, *, folds: int) -> plt.Figure:
    """One panel per data set: mean CV accuracy against mean leaves, a line per learner."""
    present = set(front["data set"])
    names = [name for name in DATASETS if name in present] + sorted(present - set(DATASETS))
    ncols = 2
    nrows = -(-len(names) // ncols)
    fig, axes = figures.figure(ncols, nrows, height=2.6 * nrows + 0.8, squeeze=False)
    learners = list(dict.fromkeys(front["learner"]))
    palette = dict(zip(learners, sns.color_palette("tab10", len(learners))))
    for ax, name in zip(axes.flat, names):
        for learner in learners:
            g = front[(front["data set"] == name) & (front["learner"] == learner)].sort_values("leaves")
            # the two optimal solvers coincide, as do CART and ID3 on the same features: dash the second
            dashed = learner.startswith(("pystreed", "ID3"))
            ax.plot(g["leaves"], g["accuracy"], "o--" if dashed else "o-", ms=3, lw=1.2, color=palette[learner],
                    label=learner, mfc="none" if dashed else palette[learner])
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set(title=name, xlabel="leaves (mean over folds)")
    for ax in axes[:, 0]:
        ax.set_ylabel(f"{folds}-fold CV accuracy")
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize="small")
    return fig


def check_budget(table: VerificationTable, baseline: pd.DataFrame, choice: pd.DataFrame) -> None:
    """Est's choice against cross-validation at Est's own label budget (observation: no paper compares them)."""
    budget = int(choice.iloc[0]["labels"])
    same = baseline[baseline["labels"] == baseline["labels"].max()]
    table.observation("no theorem", f"held-out error: Est's choice of t minus the median cross-validated choice "
                      f"on {budget:,} random labels", float(choice.iloc[0]["held-out error of chosen T_t"]
                                                            - same["held-out error"].median()),
                      why="two ways to choose t at one label budget; [BGLT20] bounds each estimate, not the choice")


# --------------------------------------------------------------------------------------------
# the estimators as a practitioner uses them: several classes, probabilities, missing values,
# importances and a drawing


#: Multi-class versions of two data sets: every digit, every cultivar.
MULTICLASS_DATASETS = ("digits (10 classes)", "wine (3 cultivars)")


def load_multiclass(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """One of :data:`MULTICLASS_DATASETS` with its original class labels."""
    from sklearn.datasets import load_digits, load_wine

    loaders = {"digits (10 classes)": load_digits, "wine (3 cultivars)": load_wine}
    if name not in loaders:
        raise ValueError(f"name must be one of {list(MULTICLASS_DATASETS)}, got {name!r}")
    X, y = loaders[name](return_X_y=True, as_frame=True)
    return X, y.to_numpy()


def load_flchain_with_missing() -> tuple[pd.DataFrame, np.ndarray]:
    """flchain with its creatinine column, missing for some people (NaN), beside the other features."""
    from sksurv.datasets import load_flchain

    X, y = load_dataset("flchain")
    raw, _ = load_flchain()
    return X.assign(creatinine=raw["creatinine"].to_numpy()), y


def _learners(*, depth: int, n_thresholds: int, random_state: int) -> dict[str, Any]:
    from sklearn.tree import DecisionTreeClassifier

    from ...estimators import ID3Classifier

    return {"FIND": OptimalTreeClassifier(max_depth=depth, n_thresholds=n_thresholds),
            "ID3": ID3Classifier(max_depth=depth, n_thresholds=n_thresholds),
            "TopDown_G": TopDownClassifier(max_leaf_nodes=2 ** depth, n_thresholds=n_thresholds),
            "CART (scikit-learn)": DecisionTreeClassifier(max_depth=depth, random_state=random_state)}


def practitioner_scores(data: Data, *, folds: int, depth: int, n_thresholds: int, seed: int) -> pd.DataFrame:
    """Cross-validated accuracy, and ROC-AUC (one against the rest for several classes) from
    ``predict_proba``, of the three estimators and scikit-learn's tree at depth ``depth`` (TopDown_G at
    2^depth leaves), on each data set of ``data`` (any number of classes, NaN allowed)."""
    from sklearn.model_selection import StratifiedKFold, cross_validate

    random_state = seeds.library_seed(seed, "ch06/practitioner")
    rows = []
    for name, (X, y) in data.items():
        splitter = StratifiedKFold(folds, shuffle=True, random_state=random_state)
        auc = "roc_auc" if np.unique(y).size == 2 else "roc_auc_ovr"
        for learner, est in _learners(depth=depth, n_thresholds=n_thresholds, random_state=random_state).items():
            scores = cross_validate(est, X, y, cv=splitter, scoring={"accuracy": "accuracy", "auc": auc})
            rows.append({"data set": name, "classes": int(np.unique(y).size), "learner": learner,
                         "accuracy": float(scores["test_accuracy"].mean()), "ROC-AUC": float(scores["test_auc"].mean()),
                         "fit seconds": float(np.median(scores["fit_time"]))})
    return pd.DataFrame(rows)


def importances_against_sklearn(X: pd.DataFrame, y: np.ndarray, *, size: int, n_thresholds: int,
                                seed: int) -> pd.DataFrame:
    """TopDown_G's ``feature_importances_`` beside scikit-learn's best-first tree grown on the same
    Boolean features, its importances summed back onto the original columns; ``same tree`` says
    whether the two trees cut the training points into the same parts by splits on the same Boolean
    features (then the importances must agree)."""
    from sklearn.tree import DecisionTreeClassifier

    ours = TopDownClassifier(max_leaf_nodes=size, n_thresholds=n_thresholds).fit(X, y)
    B = ours.binarizer_.transform(X.to_numpy())
    theirs = DecisionTreeClassifier(max_leaf_nodes=size, random_state=seeds.library_seed(seed, "ch06/importances"))
    theirs.fit(B, y)
    summed = np.zeros(X.shape[1])
    np.add.at(summed, ours.binarizer_.columns, theirs.feature_importances_)
    # one tree when the leaves cut the training points into the same parts (leaf numbers differ) by
    # splits on the same Boolean features (two columns may give one feature on the training data)
    pairs = pd.DataFrame({"ours": ours.apply(X), "theirs": theirs.apply(B)})
    same = (len(pairs.drop_duplicates()) == pairs["ours"].nunique() == pairs["theirs"].nunique()
            and sorted(f for f in ours.tree_.feature if f >= 0) == sorted(f for f in theirs.tree_.feature if f >= 0))
    frame = pd.DataFrame({"feature": X.columns, "dtcore": ours.feature_importances_, "scikit-learn": summed})
    frame["same tree"] = same
    return frame.sort_values("dtcore", ascending=False, kind="stable").reset_index(drop=True)


def largest_shared_tree(X: pd.DataFrame, y: np.ndarray, *, sizes: Sequence[int], n_thresholds: int,
                        seed: int) -> tuple[int, pd.DataFrame]:
    """The largest size of ``sizes`` at which TopDown_G and scikit-learn grow the same tree (else the
    smallest size), and :func:`importances_against_sklearn` there."""
    frames = {t: importances_against_sklearn(X, y, size=t, n_thresholds=n_thresholds, seed=seed) for t in sizes}
    shared = [t for t, f in frames.items() if bool(f["same tree"].iloc[0])]
    size = max(shared) if shared else min(sizes)
    return size, frames[size]


def check_practitioner(table: VerificationTable, scores: pd.DataFrame, importances: pd.DataFrame) -> None:
    """Importances as an identity (two implementations of scikit-learn's definition on one tree); the
    scores as observations (no theorem bounds held-out accuracy or ROC-AUC)."""
    if bool(importances["same tree"].iloc[0]):
        table.identity("scikit-learn's definition", "max |importance (dtcore) − importance (scikit-learn, same "
                       "tree)| over the columns of breast cancer", float((importances["dtcore"]
                                                                           - importances["scikit-learn"]).abs().max()),
                       1e-9, computed_by=("dtcore.estimators.TopDownClassifier.feature_importances_",
                                          "sklearn.tree.DecisionTreeClassifier.feature_importances_"))
    else:
        table.observation("scikit-learn's definition", "max |importance difference| over the columns",
                          float((importances["dtcore"] - importances["scikit-learn"]).abs().max()),
                          why="the two trees parted at a tie between equal gains, so they are different trees")
    for row in scores[scores["learner"] != "CART (scikit-learn)"].itertuples():
        cart = scores[(scores["data set"] == row._1) & (scores["learner"] == "CART (scikit-learn)")]
        table.observation("no theorem", f"{row._1}: ROC-AUC {row.learner} − CART at equal depth",
                          float(row._5 - cart["ROC-AUC"].iloc[0]),
                          why="ranking quality of two heuristics on held-out data; no paper bounds it")


def tree_drawing(X: pd.DataFrame, y: np.ndarray, *, depth: int, n_thresholds: int) -> plt.Figure:
    """FIND's optimal depth-``depth`` tree drawn by :func:`dtcore.export.plot_tree`, class names at the leaves."""
    from ...export import plot_tree

    est = OptimalTreeClassifier(max_depth=depth, n_thresholds=n_thresholds).fit(X, np.where(y == 1, "benign",
                                                                                              "malignant"))
    fig, ax = figures.figure(height=2.2 + 1.1 * depth)
    plot_tree(est, ax=ax, fontsize=10)
    return fig


def practitioner_glue_values(scores: pd.DataFrame, importances: pd.DataFrame, *, size: int,
                             flchain: pd.DataFrame, comparison: pd.DataFrame) -> dict[str, Any]:
    """The numbers the practitioner section quotes: ROC-AUC on breast cancer per learner, the classes
    of the multi-class sets, the missing creatinine values, the importance comparison's size and top
    feature, and the largest accuracy gap to scikit-learn on the synthetic problem."""
    auc = scores.set_index(["data set", "learner"])["ROC-AUC"]
    values: dict[str, Any] = {f"ch6_auc_{key}": float(auc[("breast cancer", learner)]) for key, learner in
                              (("find", "FIND"), ("id3", "ID3"), ("td", "TopDown_G"), ("cart", "CART (scikit-learn)"))}
    values["ch6_missing_creatinine"] = f"{int(flchain['creatinine'].isna().sum()):,}"
    values["ch6_flchain_auc_td"] = float(auc[("flchain with creatinine", "TopDown_G")])
    values["ch6_flchain_auc_cart"] = float(auc[("flchain with creatinine", "CART (scikit-learn)")])
    acc = scores.set_index(["data set", "learner"])["accuracy"]
    values["ch6_digits10_find"] = float(acc[("digits (10 classes)", "FIND")])
    values["ch6_digits10_cart"] = float(acc[("digits (10 classes)", "CART (scikit-learn)")])
    values["ch6_importance_size"] = int(size)
    values["ch6_importance_top"] = str(importances["feature"].iloc[0])
    values["ch6_importance_top_value"] = float(importances["dtcore"].iloc[0])
    greedy = comparison[comparison["learner"] != "FIND"]
    values["ch6_sk_gap_max"] = float(greedy["gap_points"].abs().max())
    values["ch6_sk_fit_ratio_max"] = float((greedy["fit_s"] / greedy["sklearn_fit_s"]).max())
    return values


_SHOWN_HEADERS = {"estimated_error": "Est(t)", "ci_low": "interval low", "ci_high": "interval high",
                  "labels_new": "new labels", "labels_total": "labels so far", "label_fn_calls": "label calls"}


def shown(frame: pd.DataFrame, *, digits: int = 3) -> Any:
    """``frame`` as the page shows it (:func:`dtcore.book.chapter.styled_table`, Est's columns named in words)."""
    return styled_table(frame, _SHOWN_HEADERS, digits=digits)
