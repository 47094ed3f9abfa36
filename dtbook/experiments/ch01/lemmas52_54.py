"""[BLT20] Lemmas 5.2 and 5.4 along real BuildTopDownDT runs, every split replayed from the returned tree.

The same replay checks BuildTopDownDT itself ([BLT20] Sec. 3: selection rule, running cost, stop rule,
labels). Streams ``ch01/lemma_runs`` and ``ch01/lemma_runs_fixed``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns

from dtcore import bounds
from dtcore.audit import replay
from dtcore.buildtopdown import build_top_down_dt
from dtcore.validate import check_int, check_real
from ... import figures
from ...chapter import styled_table
from ...report import VerificationTable, worst
from ...sweep import grid, sweep
from .common import glue_key, family_target, fits, decoy_instances
from .suprema import exhaustive_check

RUN_COLUMNS = ["leaves", "node", "feature", "cost", "error", "score", "best_score", "greedy_gap", "lemma52_bound",
               "lemma54_bound", "final_size", "final_error", "error_before_last_split", "trace_gap", "stop_gap", "label_gap"]


def lemma_run_task(family: str, s: int, n: int, eps: float, k: int = 0, t: int = 0, *,
                   rng: np.random.Generator) -> list[dict[str, Any]]:
    """One BuildTopDownDT run, every split replayed from the returned tree: [BLT20] Lemmas 5.2, 5.4, Sec. 3.

    One row per split with the recomputed selected score, the Lemma 5.2 and 5.4 lower bounds (NaN
    where Lemma 5.4 does not apply), the greedy gap (best frontier score − selected, and the best
    influence of the split leaf − the queried one's), and, per run, the returned tree's size and
    exact error, the error before the last split, the gap between the scorer's running cost and
    error and the recomputed ones, ``stop_gap`` (splits between the first frontier whose recomputed
    error is ≤ ε and the one the run stopped at: 0 when the stop rule is obeyed) and ``label_gap``
    (|error of the returned tree on every point − recomputed error of its frontier|: 0 when every
    leaf carries the majority label). No row when the constant tree is already ε-close.
    """
    f = family_target(family, s, n, k, t, rng=rng)
    run = build_top_down_dt(f, eps=eps)
    # Every quantity below is recomputed from the returned tree and the truth table, not read
    # from the scorer: replay.replay cuts each node's subfunction out of f.
    steps = replay.replay(run.tree, run.trace, f)
    trace_gap = max(float(np.abs(steps["cost"].to_numpy() - run.trace["cost"].to_numpy()).max()),
                    float(np.abs(steps["error"].to_numpy() - run.trace["error"].to_numpy()).max()))
    splits = steps[steps["node"] >= 0].copy()
    if splits.empty:  # the constant completion was already ε-close: no split to check
        return []
    splits["lemma52_bound"] = bounds.blt20_lemma52_score_lower(eps, splits["leaves"], s)
    active = splits["cost"] >= bounds.blt20_lemma54_threshold(eps, s)
    splits["lemma54_bound"] = np.where(
        active, bounds.blt20_lemma54_score_lower(splits["cost"], eps, splits["leaves"], s), np.nan)
    splits["greedy_gap"] = np.maximum(splits["best_score"] - splits["selected_score"], splits["influence_gap"])
    splits["final_size"] = run.tree.size
    splits["final_error"] = float(np.mean(run.tree.truth_table() != f))  # the returned tree on every point
    splits["error_before_last_split"] = float(splits["error"].iloc[-1])
    splits["trace_gap"] = trace_gap
    recomputed_error = steps["error"].to_numpy()  # one entry per frontier, the last the returned tree's
    within = recomputed_error <= eps + 1e-12
    first_within = int(np.argmax(within)) if within.any() else len(recomputed_error)
    splits["stop_gap"] = abs(len(recomputed_error) - 1 - first_within)
    splits["label_gap"] = abs(splits["final_error"].iloc[0] - float(recomputed_error[-1]))
    return splits.rename(columns={"selected_score": "score"})[RUN_COLUMNS].to_dict("records")


def lemma_runs(*, sizes: Sequence[int], n: int, eps: float, n_functions: int, seed: int,
               n_jobs: int | None = None) -> pd.DataFrame:
    """BuildTopDownDT on four families, every split against [BLT20] Lemmas 5.2 and 5.4.

    Random trees and parities (max(5, n_functions // 10) targets per size), one multiplexer per
    size and one run per decoy-selector instance. Adds ``lemma52_ratio`` and ``lemma54_ratio``
    (selected score / bound; each must be at least 1).
    """
    n, n_functions = check_int("n", n, 1, 24), check_int("n_functions", n_functions, 1)
    eps = check_real("eps", eps, 0.0, 0.5)
    random_families = [row for row in grid(family=["random tree", "parity"], s=list(sizes), n=[n], eps=[eps])
                       if fits(row["family"], row["s"], n)]
    fixed_families = ([row for row in grid(family=["multiplexer"], s=list(sizes), n=[n], eps=[eps])
                       if fits("multiplexer", row["s"], n)]
                      + [{**inst, "n": n, "eps": eps} for inst in decoy_instances("decoy selector", n)])
    runs = pd.concat([sweep(lemma_run_task, random_families, repetitions=max(5, n_functions // 10), seed=seed,
                            key="ch01/lemma_runs", n_jobs=n_jobs),
                      sweep(lemma_run_task, fixed_families, repetitions=1, seed=seed, key="ch01/lemma_runs_fixed",
                            n_jobs=n_jobs)],
                     ignore_index=True)
    runs["lemma52_ratio"] = runs["score"] / runs["lemma52_bound"]
    runs["lemma54_ratio"] = runs["score"] / runs["lemma54_bound"]
    return runs


def lemma_run_measures(runs: pd.DataFrame) -> dict[str, float]:
    """The worst cases along the runs: greedy and trace gaps ([BLT20] Sec. 3), Lemmas 5.2 and 5.4, the stop rule.

    ``final_error``, ``error_before_last_split``, ``trace_gap``, ``stop_gap`` and ``label_gap`` are
    taken once per run (the last two are NaN for a frame without those columns).
    """
    per_run = runs.groupby(["family", "s", "k", "t", "rep"], dropna=False).first()
    return {"greedy_gap": worst(runs["greedy_gap"]),
            "trace_gap": worst(per_run["trace_gap"]),
            "stop_gap": worst(per_run["stop_gap"]) if "stop_gap" in per_run else math.nan,
            "label_gap": worst(per_run["label_gap"]) if "label_gap" in per_run else math.nan,
            "runs": len(per_run),
            "lemma52_ratio": worst(runs["lemma52_ratio"], "min"),
            "lemma54_splits": int(runs["lemma54_ratio"].notna().sum()),
            "lemma54_ratio": worst(runs["lemma54_ratio"].dropna(), "min"),
            "final_error": worst(per_run["final_error"]),
            "error_before_last_split": worst(per_run["error_before_last_split"], "min")}


def closest_per_family(runs: pd.DataFrame) -> pd.DataFrame:
    """Per family: splits, the smallest score/bound of [BLT20] Lemma 5.2 and of Lemma 5.4 where it applies."""
    return runs.groupby("family").agg(splits=("score", "size"), lemma52_min=("lemma52_ratio", "min"),
                                      lemma54_splits=("lemma54_ratio", "count"),
                                      lemma54_min=("lemma54_ratio", "min"))


def closest_table(runs: pd.DataFrame) -> Any:
    """:func:`closest_per_family` with readable headers and book numbering, styled."""
    shown = closest_per_family(runs).reset_index().rename(columns={
        "family": "target family", "splits": "splits", "lemma52_min": "[BLT20] Lemma 5.2: smallest score / bound",
        "lemma54_splits": "splits where [BLT20] Lemma 5.4 applies", "lemma54_min": "[BLT20] Lemma 5.4: smallest score / bound"})
    return styled_table(shown, digits=2, caption="[BLT20] Lemmas 5.2 and 5.4 along the runs: smallest selected "
                        "score / bound per target family (at least 1 holds)")


def fig_lemmas(runs: pd.DataFrame, *, s: int, eps: float) -> Any:
    """[BLT20] Lemmas 5.2 and 5.4: one run on a random tree of size ``s`` (left), every split's ratio (right)."""
    example = runs[(runs["family"] == "random tree") & (runs["s"] == s) & (runs["rep"] == 0)]
    fig, axes = figures.figure(2, height=3.2)
    ax = axes[0]
    ax.plot(example["leaves"], example["score"], "o-", ms=3, label="selected score")
    ax.plot(example["leaves"], example["lemma52_bound"], "--", label="Lemma 5.2 bound")
    ax.plot(example["leaves"], example["lemma54_bound"], ":", lw=2.5, label="Lemma 5.4 bound")
    ax.set(yscale="log", xlabel="leaves L before the split", ylabel="score",
           title=f"one run: random tree, s = {s}, ε = {eps}")
    ax.set_ylim(top=20)
    ax.legend(loc="upper right")
    long = runs.melt(id_vars=["family"], value_vars=["lemma52_ratio", "lemma54_ratio"], var_name="lemma",
                     value_name="ratio").dropna()
    long["lemma"] = long["lemma"].map({"lemma52_ratio": "Lemma 5.2", "lemma54_ratio": "Lemma 5.4"})
    long["family"] = long["family"].str.replace(" ", "\n")
    sns.boxplot(data=long, y="family", x="ratio", hue="lemma", ax=axes[1], fliersize=2, orient="h")
    axes[1].axvline(1.0, color="k", ls="--", lw=1)
    axes[1].set(xscale="log", ylabel="", xlabel="selected score / lower bound (must stay ≥ 1)")
    axes[1].legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2)  # above the boxes, never on them
    return fig


def lemma_runs_glue(runs: pd.DataFrame) -> dict[str, Any]:
    """The Lemmas 5.2 and 5.4 numbers for the text: smallest ratios overall, per family, and where."""
    closest = closest_per_family(runs)
    values: dict[str, Any] = {}
    for fam, row in closest.iterrows():
        values[f"ch1_l52_min_{glue_key(fam)}"] = float(row["lemma52_min"])
        values[f"ch1_l54_min_{glue_key(fam)}"] = float(row["lemma54_min"])
    values["ch1_runs_steps"] = len(runs)
    values["ch1_runs_n54"] = int(runs["lemma54_ratio"].notna().sum())
    values["ch1_l52_min"] = float(runs["lemma52_ratio"].min())
    values["ch1_l54_min"] = float(runs["lemma54_ratio"].min())
    for lemma in ("52", "54"):
        at = runs.loc[runs[f"lemma{lemma}_ratio"].idxmin()]
        values[f"ch1_l{lemma}_argmin"] = f"{at['family']}, s = {int(at['s'])}, at a split with L = {int(at['leaves'])}"
    return values


def check_lemma_runs(table: VerificationTable, runs: pd.DataFrame, suprema: pd.DataFrame, eps: float) -> None:
    """The rows along the runs: BuildTopDownDT's replay identities ([BLT20] Sec. 3), Lemmas 5.2 and 5.4."""
    m = lemma_run_measures(runs)
    # the selection and stop identities compare the run with its replay from the returned tree: guards of the code,
    # kept counted because the faults ch1-score-unweighted and ch1-stop-on-cost are caught by them and by no other row
    table.identity("BuildTopDownDT (Sec. 3)", "max over splits of (best frontier score − selected score) and of "
                   "(max_i Inf_i − Inf of the queried variable)", m["greedy_gap"], 1e-12, box="alg-blt-buildtopdowndt",
                   computed_by=("dtcore.audit.replay.replay", "dtcore.buildtopdown.build_top_down_dt"),
                   reads_rule="selection rule")
    table.identity("BuildTopDownDT (Sec. 3)", "max |scorer's running cost, error − recomputed| over steps",
                   m["trace_gap"], 1e-12, box="alg-blt-buildtopdowndt",
                   computed_by=("dtcore.buildtopdown.build_top_down_dt", "dtcore.audit.replay.replay"))
    table.identity("BuildTopDownDT (Sec. 3)", f"max over {m['runs']} runs of the splits between the first frontier "
                   "whose recomputed error is ≤ ε and the one the run stopped at", m["stop_gap"], 0.0,
                   box="alg-blt-buildtopdowndt", reads_rule="stop rule",
                   computed_by=("dtcore.buildtopdown.build_top_down_dt", "dtcore.audit.replay.replay"))
    table.identity("BuildTopDownDT (Sec. 3)", "max over runs of |error of the returned tree on all 2^n points − "
                   "recomputed error of its frontier|", m["label_gap"], 1e-12, box="alg-blt-buildtopdowndt",
                   computed_by=("dtcore.tree.DecisionTree.truth_table", "dtcore.audit.replay.replay"))
    table.theorem(**exhaustive_check(suprema, "Lemma 5.2"), box="lem-blt-5-2")
    table.theorem(**exhaustive_check(suprema, "Lemma 5.4"), box="lem-blt-5-4")
    table.observation("Lemma 5.2", "min over splits of the runs of score / (ε/(L log s))", m["lemma52_ratio"], 1.0,
                      relation=">=", box="lem-blt-5-2", why="random instances; the exhaustive supremum above is the check")
    table.observation("Lemma 5.4", f"min over {m['lemma54_splits']} qualifying splits of the runs of score / bound",
                      m["lemma54_ratio"], 1.0, relation=">=", box="lem-blt-5-4",
                      why="random instances; the exhaustive supremum above is the check")
    table.observation("BuildTopDownDT (Sec. 3)", "max error of the returned tree on all 2^n points", m["final_error"],
                      eps, box="alg-blt-buildtopdowndt", reads_rule="stop rule",
                      why=f"re-reads BuildTopDownDT's own stop rule (error ≤ ε = {eps}); the stop and label identities "
                      "above are its checks")
