"""[BGLT20] Sec. 1.1 on real data: TopDown_G against scikit-learn's best-first tree of the same size
(the same rule; no theorem about held-out accuracy), and the accuracy frontier of sizes and depths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from dtcore.estimators import TopDownClassifier
from ... import figures, seeds
from ...report import VerificationTable
from .common import DATASETS, Data, GLUE_KEYS, cv_splits, learner_colour, log_x


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
                             "leaves TopDown_G": ours.boolean_tree_.size, "leaves CART": raw.get_n_leaves(),
                             "training disagreement, same features":
                                 float((ours.boolean_tree_.predict(B_train) != same.predict(B_train)).mean())})
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
    """Top: accuracy of TopDown_G ([BGLT20] Sec. 1.1) and best-first CART against the size t, one panel
    per learner pair on the same axes. Bottom: their difference per fold (band: range over folds)."""
    sizes = sorted(size_runs["t"].unique())
    fig, axes = figures.figure(1, 2, height=7.4)
    long = size_runs.melt(id_vars=["data set", "fold", "t"],
                          value_vars=["TopDown_G", "best-first CART, same features", "best-first CART, raw features"],
                          var_name="method", value_name="accuracy")
    long["method"] = long["method"].replace({"TopDown_G": "TopDown$_G$",
                                             "best-first CART, raw features": "best-first CART, raw features",
                                             "best-first CART, same features": "best-first CART, same features"})
    long = long.rename(columns={"method": "learner"})
    sns.lineplot(data=long, x="t", y="accuracy", hue="data set", style="learner", marker="o", errorbar=None,
                 ax=axes[0], palette=list(figures.OKABE_ITO[:long["data set"].nunique()]))
    axes[0].set(xlabel="size $t$ (leaves)", ylabel=f"{folds}-fold CV accuracy", title="accuracy by size")
    log_x(axes[0], sizes)
    figures.legend(axes[0], "below", ncol=3)
    sns.lineplot(data=size_runs, x="t", y="difference", hue="data set", marker="o", errorbar=("pi", 100),
                 ax=axes[1], legend=False, palette=list(figures.OKABE_ITO[:size_runs["data set"].nunique()]))
    axes[1].axhline(0, color="k", lw=1)
    axes[1].set(xlabel="size $t$ (leaves)", ylabel="accuracy: TopDown$_G$ − CART",
                title="difference, same features (band: range over folds)")
    log_x(axes[1], sizes)
    return fig


def check_topdown(table: VerificationTable, size_runs: pd.DataFrame) -> None:
    """Observations only (no theorem bounds held-out accuracy): TopDown_G minus best-first CART at the
    largest size per data set, and the largest training disagreement on the same features
    ([BGLT20] Sec. 1.1: the same rule up to ties)."""
    summary = size_summary(size_runs)
    t_top = int(size_runs["t"].max())
    at_top = summary.xs(t_top, level="t")
    for name in size_runs["data set"].unique():
        table.observation("TopDown_G against best-first CART, held-out accuracy", f"{name}: CV accuracy TopDown_G - best-first CART (raw), t = {t_top}",
                          float(at_top.loc[name, "TopDown_G"] - at_top.loc[name, "best-first CART, raw features"]),
                          why="held-out accuracy of two heuristics; no paper bounds it")
    table.observation("TopDown_G against best-first CART, same rule", "max training disagreement TopDown_G vs best-first CART, same features",
                      float(size_runs["training disagreement, same features"].max()),
                      why="equal only up to ties between equal gains and half-half leaves")


def topdown_glue(size_runs: pd.DataFrame) -> dict[str, Any]:
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
    palette = {learner: learner_colour(learner) for learner in learners}
    for ax, name in zip(axes.flat, names):
        for learner in learners:
            g = front[(front["data set"] == name) & (front["learner"] == learner)].sort_values("leaves")
            # the two optimal solvers coincide, as do CART and ID3 on the same features: dash the second
            dashed = learner.startswith(("pystreed", "ID3"))
            dashed = dashed or learner.endswith("(size)")
            ax.plot(g["leaves"], g["accuracy"], "o--" if dashed else "o-", ms=3, lw=1.2, color=palette[learner],
                    label=learner.replace("TopDown_G", "TopDown$_G$"), mfc="none" if dashed else palette[learner],
                    zorder=4 if dashed else 3)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set(title=name, xlabel="leaves (mean over folds)")
    for ax in axes[:, 0]:
        ax.set_ylabel(f"{folds}-fold CV accuracy")
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    figures.legend_below(fig, [axes.flat[0]], ncol=2)
    return fig
