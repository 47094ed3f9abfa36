"""[BLT21] Lemma 2.1 (Sec. 2): the stochastic-leaf approximation by stacks of c fixed-coin copies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dtcore import bounds
from dtcore.stochastic import mean_table, stochastic_leaf_approximation
from dtcore.tree import DecisionTree
from ... import figures
from ...report import VerificationTable, worst
from .common import positive_int
from .suprema import check_exhaustive


def lemma_2_1_stacks(target: DecisionTree, *, c_grid: Sequence[int], lemma_draws: int,
                     rng: np.random.Generator) -> pd.DataFrame:
    """[BLT21] Lemma 2.1: ``lemma_draws`` stacks of c fixed-coin copies of ``target`` for every c.

    One row per (c, draw): the L1 distance of the stack's mean to mu_T with the lemma's bound
    1/(2 sqrt c), its size with the bound s^c (as c log2 s), the largest deviation of its mean from
    the average of the copies' truth tables, and whether a coin sits above an internal node.
    """
    lemma_draws = positive_int("lemma_draws", lemma_draws)
    mu = mean_table(target)
    rows = []
    for c in c_grid:
        for draw in range(lemma_draws):
            stacked, copies = stochastic_leaf_approximation(target, c, rng=rng)
            mu_bar = mean_table(stacked)
            average = np.mean([cp.truth_table() for cp in copies], axis=0)
            rows.append({"c": c, "draw": draw, "l1": float(np.abs(mu_bar - mu).mean()),
                         "size": stacked.size, "max_copy_size": max(cp.size for cp in copies),
                         "stack_vs_average": float(np.abs(mu_bar - average).max()),
                         "coins_inside": stacked.has_stochastic_nodes})
    lemma = pd.DataFrame(rows)
    lemma["bound"] = [bounds.blt21_lemma21_expected_l1(c) for c in lemma["c"]]
    lemma["log2_size_bound"] = lemma["c"] * math.log2(target.size)
    return lemma


def lemma_2_1_summary(lemma: pd.DataFrame) -> pd.DataFrame:
    """Per c of [BLT21] Lemma 2.1: mean and best L1 distance, the bound, the largest stack and log2 s^c."""
    return lemma.groupby("c").agg(mean_l1=("l1", "mean"), best_l1=("l1", "min"), bound=("bound", "first"),
                                  max_size=("size", "max"), log2_size_bound=("log2_size_bound", "first"))


def lemma_2_1_figure(lemma: pd.DataFrame, summary: pd.DataFrame, *, n: int) -> Figure:
    """[BLT21] Lemma 2.1: L1 distance under 1/(2 sqrt c) (left) and log2 size under s^c and 2^n (right)."""
    import seaborn as sns

    fig, axes = figures.figure(2, height=4.0)
    ax = axes[0]
    sns.stripplot(data=lemma, x="c", y="l1", ax=ax, color="C0", alpha=0.5, size=4)
    ax.plot(range(len(summary)), summary["mean_l1"], "o-", color="C0", label="mean over draws")
    ax.plot(range(len(summary)), summary["bound"], "k--", label=r"bound $1/(2\sqrt{c})$")
    ax.set_xlabel("copies stacked, c")
    ax.set_ylabel(r"$\mathbb{E}_x|\mu_T - \mu_{\overline{T}}|$")
    ax.set_title("L1 distance to the target")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)   # below the axes: never over the points or the bound
    ax = axes[1]
    ax.plot(summary.index, np.log2(summary["max_size"]), "o-", label="stack (max over draws)")
    ax.plot(summary.index, summary["log2_size_bound"], "k--", label=r"bound $s^c$")
    ax.axhline(n, color="grey", ls=":", label=r"$2^n$ (the most a tree has)")
    ax.set_xlabel("copies stacked, c")
    ax.set_ylabel(r"$\log_2$ size")
    ax.set_title("Size of the stack")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    return fig


def lemma_2_1_glue(summary: pd.DataFrame, *, lemma_draws: int, c_grid: Sequence[int]) -> dict[str, Any]:
    """[BLT21] Lemma 2.1 at the largest c, for the text."""
    return {"ch3_lemma_draws": lemma_draws, "ch3_lemma_cmax": c_grid[-1],
            "ch3_lemma_l1_cmax": float(summary["mean_l1"].iloc[-1]),
            "ch3_lemma_bound_cmax": float(summary["bound"].iloc[-1]),
            "ch3_lemma_size_cmax": int(summary["max_size"].iloc[-1])}


def check_lemma_2_1(table: VerificationTable, suprema: pd.DataFrame, lemma: pd.DataFrame, summary: pd.DataFrame, *,
                    lemma_draws: int) -> None:
    """The rows of [BLT21] Lemma 2.1: its exhaustive supremum (counted), the stacks of
    :func:`lemma_2_1_stacks` per c (shown), the stack's mean against the copies' average (identity) and the
    coins left above internal nodes."""
    check_exhaustive(table, suprema, "Lemma 2.1")
    for c, row in summary.iterrows():
        table.observation("Lemma 2.1", f"mean over draws of E|μ_T − μ_stack|, c={c}", row["mean_l1"], row["bound"],
                          box="lem-blt21-2-1", why="random instances; the exhaustive supremum above is the check",
                          worst_case=f"the target; the mean of {lemma_draws} draws estimates the lemma's expectation")
        table.observation("Lemma 2.1", f"log2 size of the stack, c={c}", math.log2(row["max_size"]),
                          row["log2_size_bound"], box="lem-blt21-2-1",
                          why="a stack of c copies of size ≤ s has at most s^c leaves by construction "
                              "(a copy hangs under every leaf of the one above)")
    table.identity("Lemma 2.1", "max |μ of the stack − mean of the copies' truth tables|",
                   worst(lemma["stack_vs_average"]), 1e-12, box="lem-blt21-2-1",
                   computed_by=("dtcore.stochastic.stack_trees, dtcore.stochastic.mean_table",
                                "dtcore.tree.DecisionTree.truth_table"))
    table.observation("Lemma 2.1", "stacks with a coin above an internal node", int(lemma["coins_inside"].sum()), 0.0,
                      box="lem-blt21-2-1",
                      why="the stack fixes every coin of each copy and hangs a copy under every leaf of the one above, "
                          "so it has no coin anywhere by construction: the count is 0 for any run")
