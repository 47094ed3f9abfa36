"""[BGLT20] Theorems 2 and 3 and Lemma D.1 on flchain: Est chooses the size t from a few labels,
against the trees T_t grown with every label and against cross-validation at Est's label budget.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dtcore import bounds
from dtcore.estimators import ThresholdBinarizer, TopDownClassifier
from dtcore.learnability import estimate_learnability, hoeffding_halfwidth
from dtcore.local import LabelOracle, SharedDraws, top_down_size_estimate
from dtcore.topdown import depth_cap
from dtcore.validate import check_int, check_real
from ... import figures, seeds
from ...report import VerificationTable
from .common import log_x


#: The columns of Est's table that the chapter shows.
EST_SHOWN = ["t", "estimated_error", "ci_low", "ci_high", "test error of T_t", "held-out error of T_t",
             "leaves of T_t", "labels_new", "labels_total", "label_fn_calls"]


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


def printed_lemma_d1_labels(b: int, t: int, m: int, k: int) -> int:
    """[BGLT20] Lemma D.1's count made explicit from its proof (the paper prints O(b² log t)): at most
    (m + k)(D + 1) batches of b labels for m strands and k queries, each query's leaf one more batch, so
    b((m + k)(D + 1) + k), D = ⌊log t + log log t⌋ (logs base 2). Written afresh (D as ⌊log₂(t log₂ t)⌋)
    so that a fault in :func:`dtcore.bounds.bglt20_lemma_d1_labels` shows against it."""
    t = check_int("t", t, 1)
    D = 0 if t == 1 else math.floor(math.log2(t * math.log2(t)) + 1e-12)
    return b * ((m + k) * (D + 1) + k)


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
    table.identity("[BGLT20] Theorem 2",
                   "max over t of |Est(t) - test error of T_t grown with every label|",
                   float((learn["estimated_error"] - learn["test error of T_t"]).abs().max()), 0.0,
                   box="thm-real-est",
                   computed_by=("dtcore.learnability.estimate_learnability", "dtcore.local.top_down_size_estimate"),
                   note="Est through LocalLearner's partial trees against the whole tree T_t, on the same S_test")
    deviation = (learn["estimated_error"] - learn["held-out error of T_t"]).abs()
    t_worst = int(learn.loc[deviation.idxmax(), "t"])
    # the worse output: the label-inverted T_t, whose test error is 1 − Est(t), reported as T_t's estimate
    inverted = (1.0 - learn["estimated_error"] - learn["held-out error of T_t"]).abs()
    table.theorem("[BGLT20] Theorem 3", f"max over {K} sizes of |Est(t) - held-out error of T_t|",
                  float(deviation.max()), radius, reach=(0.0, 1.0),
                  fails_under=("the label-inverted T_t's test error (1 − Est(t)) as the estimate", float(inverted.max())),
                  measured_by=["dtcore.learnability.estimate_learnability", "dtcore.local.top_down_size_estimate"],
                  bound_by=["dtbook.experiments.ch06.bglt20_est.est_radius", "dtcore.learnability.hoeffding_halfwidth"],
                  box="thm-real-est", worst_case=f"flchain, t = {t_worst} (the size of largest deviation)",
                  note=f"Hoeffding radii at delta/(2K): {run.n_test} test and {run.n_heldout} held-out points; "
                       "the reach: both errors lie in [0, 1]")
    labels = est_labels(run)
    # Lemma D.1 bounds the labels of one size; the grid shares one label cache, so its total is at
    # most the sum of the per-size bounds.
    bound_labels = int(learn["Lemma D.1 label bound"].sum())
    printed = [printed_lemma_d1_labels(batch_size, int(t), batch_size, run.n_test) for t in learn["t"]]
    table.identity("[BGLT20] Lemma D.1", f"max over {K} sizes of |the label bound − the proof's count b((m + k)(D + 1) + k) "
                   "evaluated afresh|", float(np.abs(learn["Lemma D.1 label bound"].to_numpy() - printed).max()), 0.0,
                   box="thm-real-est", computed_by=("dtcore.bounds.bglt20_lemma_d1_labels",
                                                    "dtbook.experiments.ch06.bglt20_est.printed_lemma_d1_labels"),
                   note=f"m = b = {batch_size} strands, k = {run.n_test} test queries")
    reach = est_label_reach(run, batch_size=batch_size)
    if bound_labels < reach:
        table.theorem("[BGLT20] Lemma D.1", "pool labels Est used over the whole grid", labels, bound_labels,
                      reach=(0, reach), measured_by="dtcore.learnability.estimate_learnability",
                      fails_under=("one minibatch labelled at every node of depth at most D for each size, at "
                                   "most the pool (the reach)", reach),
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
    table.observation("Est's choice of t", "held-out error of T_t: t chosen by Est minus t chosen with every label",
                      float(held.iloc[0] - held.iloc[1]),
                      why="the regret of choosing t by Est; the theorem bounds each estimate, not the choice")


def est_glue(run: EstRun, choice: pd.DataFrame, *, delta: float) -> dict[str, Any]:
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
                         label=f"Est ± Hoeffding ($\\delta = {delta}$)", color=figures.OKABE_ITO[0])
    axes[0].plot(learn["t"], learn["estimated_error"], "o-", label="Est($t$), labels asked for",
                 color=figures.OKABE_ITO[0])
    axes[0].plot(learn["t"], learn["held-out error of T_t"], "s--", label="held-out error of $T_t$ (every label)",
                 color=figures.OKABE_ITO[1])
    axes[0].set(xlabel="size $t$", ylabel="error", title="Est against held-out error")
    log_x(axes[0], sizes)
    axes[1].plot(learn["t"], learn["labels_total"] + run.n_test, "o-", label="Est: pool labels + $S_{test}$",
                 color=figures.OKABE_ITO[0])
    axes[1].axhline(everything, color="k", ls="--", label="every size trained:\npool + held-out")
    axes[1].set(yscale="log", xlabel="size $t$", ylabel="labels (log scale)", title="labels needed")
    log_x(axes[1], sizes)
    label_ticks = [v for v in (250, 500, 1000, 2000, 5000, 10000, 20000, 50000)
                   if 0.5 * (learn["labels_total"].min() + run.n_test) <= v <= 2 * everything]
    axes[1].set_yticks(label_ticks, [f"{v:,}" for v in label_ticks])
    axes[1].yaxis.set_minor_locator(plt.NullLocator())
    figures.legend_below(fig, axes, ncol=2)
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


def budget_glue(baseline: pd.DataFrame, choice: pd.DataFrame, run: EstRun, *, delta: float) -> dict[str, Any]:
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


def check_budget(table: VerificationTable, baseline: pd.DataFrame, choice: pd.DataFrame) -> None:
    """Est's choice against cross-validation at Est's own label budget (observation: no paper compares them)."""
    budget = int(choice.iloc[0]["labels"])
    same = baseline[baseline["labels"] == baseline["labels"].max()]
    table.observation("Est's choice of t", f"held-out error: Est's choice of t minus the median cross-validated choice "
                      f"on {budget:,} random labels", float(choice.iloc[0]["held-out error of chosen T_t"]
                                                            - same["held-out error"].median()),
                      why="two ways to choose t at one label budget; [BGLT20] bounds each estimate, not the choice")
