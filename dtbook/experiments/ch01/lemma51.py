"""[BLT20] Lemma 5.1, the cost potential: error ≤ cost, and a split spends exactly its score.

Random function–bare tree pairs (stream ``ch01/lemma51``); the counted check is the exhaustive supremum
of part (1) (:mod:`.suprema`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns

from dtcore import analysis
from dtcore.functions import random_tree
from dtcore.validate import check_int
from ... import figures
from ...report import VerificationTable, worst
from ...sweep import grid, sweep
from .common import small_number_text, glue_key
from .suprema import exhaustive_check

#: Kinds of random function of the Lemma 5.1 check.
LEMMA51_KINDS = ("random table", "random tree", "sparse")


def lemma51_task(kind: str, n: int, *, rng: np.random.Generator) -> dict[str, float]:
    """One random function-bare tree pair and one random split: [BLT20] Lemma 5.1 (1) and (2).

    ``kind`` is a random table with a random bias, a random tree of 2 to 64 leaves, or a sparse
    function (1 to 8 ones). Returns the error of the completion (measured on every point), the cost,
    the measured drop in cost after a random split of a random leaf, and its predicted score.
    """
    if kind == "random table":
        f = (rng.random(2**n) < rng.uniform(0.05, 0.95)).astype(np.uint8)
    elif kind == "random tree":
        f = random_tree(n, int(rng.integers(2, 65)), rng=rng).truth_table()
    elif kind == "sparse":  # a few ones
        f = np.zeros(2**n, dtype=np.uint8)
        f[rng.choice(2**n, size=int(rng.integers(1, 9)), replace=False)] = 1
    else:
        raise ValueError(f"kind must be one of {list(LEMMA51_KINDS)}, got {kind!r}")
    bare = random_tree(n, int(rng.integers(1, 25)), rng=rng, max_depth=n - 1)  # every leaf keeps a free variable
    before = analysis.leaf_statistics(bare, f)
    leaf_pos = int(rng.integers(bare.size))
    free = np.flatnonzero(bare.leaf_restrictions()[leaf_pos] < 0)
    feature = int(rng.choice(free))
    drop, score = analysis.split_cost_drop(bare, f, leaf_pos, feature)
    # the same score a second way: cut f_l out of the table and count its flip influences edge by edge
    # (analysis.influences), not through the ExactMeasure that computed the costs
    restriction = bare.leaf_restrictions()[leaf_pos]
    fixed = {int(i): int(b) for i, b in enumerate(restriction) if b >= 0}
    sub, sub_free = analysis.restrict(f, fixed)
    score_direct = 2.0 ** -len(fixed) * float(analysis.influences(sub)[sub_free.index(feature)])
    error = float(np.mean(analysis.complete(bare, f).truth_table() != f))  # measured on the completed tree
    return {"error": error, "cost": before["cost"].sum(), "drop": drop, "score": score, "score_direct": score_direct}


def lemma51_pairs(*, n: int, n_functions: int, seed: int, n_jobs: int | None = None) -> pd.DataFrame:
    """``n_functions`` pairs of each kind on ``n`` variables ([BLT20] Lemma 5.1): one row per pair.

    ``n`` is at least 6: the random trees have up to 64 leaves and the bare trees up to 24 leaves
    of depth at most n − 1.
    """
    n, n_functions = check_int("n", n, 6, 24), check_int("n_functions", n_functions, 1)
    return sweep(lemma51_task, grid(kind=list(LEMMA51_KINDS), n=[n]), repetitions=n_functions, seed=seed,
                 key="ch01/lemma51", n_jobs=n_jobs)


def lemma51_measures(lemma51: pd.DataFrame) -> dict[str, float]:
    """The worst cases of [BLT20] Lemma 5.1: max error/cost (cost > 0), max error at cost 0, max |drop − score|.

    ``drop_gap`` compares the drop with the score read from the same leaf statistics;
    ``drop_gap_direct`` with the score recomputed from the subfunction cut out of the table
    (NaN when the frame has no ``score_direct`` column).
    """
    positive = lemma51[lemma51["cost"] > 0]
    at_zero = lemma51.loc[lemma51["cost"] == 0, "error"]
    return {"error_over_cost": worst(positive["error"] / positive["cost"]),
            "error_at_zero_cost": worst(at_zero) if len(at_zero) else 0.0,
            "drop_gap": worst((lemma51["drop"] - lemma51["score"]).abs()),
            "drop_gap_direct": worst((lemma51["drop"] - lemma51["score_direct"]).abs())
            if "score_direct" in lemma51 else math.nan}


def fig_lemma51(lemma51: pd.DataFrame) -> Any:
    """[BLT20] Lemma 5.1: error/cost against cost (left), measured against predicted cost drop (right)."""
    fig, axes = figures.figure(2, height=3.1)
    with_cost = lemma51[lemma51["cost"] > 0].assign(ratio=lambda d: d["error"] / d["cost"])
    sns.scatterplot(data=with_cost, x="cost", y="ratio", hue="kind", s=18, ax=axes[0])
    axes[0].axhline(1.0, color="k", ls="--", lw=1, label="the bound")
    axes[0].set(xscale="log", ylim=(0, 1.1), xlabel=r"cost$_f(T^\circ)$", ylabel="error / cost")
    axes[0].legend(loc="upper right", bbox_to_anchor=(1.0, 0.9), frameon=True)
    sns.scatterplot(data=lemma51, x="score", y="drop", hue="kind", s=18, ax=axes[1], legend=False)
    lim = float(lemma51["score"].max()) * 1.05 + 1e-3
    axes[1].plot([0, lim], [0, lim], "k--", lw=1)
    axes[1].set_xlabel(r"predicted drop $2^{-|\ell|}\,\mathrm{Inf}_i(f_\ell)$")
    axes[1].set_ylabel("measured drop in cost after the split")
    return fig


def lemma51_glue(lemma51: pd.DataFrame) -> dict[str, Any]:
    """The Lemma 5.1 numbers for the text: pairs, largest error/cost (overall and per kind), largest drop gap."""
    values: dict[str, Any] = {
        "ch1_l51_count": len(lemma51),
        "ch1_l51_ratio": float((lemma51["error"] / lemma51["cost"].where(lemma51["cost"] > 0)).max()),
        "ch1_l51_drop": float((lemma51["drop"] - lemma51["score"]).abs().max())}
    values["ch1_l51_drop_text"] = small_number_text(values["ch1_l51_drop"])
    with_cost = lemma51[lemma51["cost"] > 0]
    for kind, d in with_cost.groupby("kind"):
        values[f"ch1_l51_ratio_{glue_key(kind)}"] = float((d["error"] / d["cost"]).max())
    return values


def check_lemma51(table: VerificationTable, lemma51: pd.DataFrame, suprema: pd.DataFrame) -> None:
    """The rows of [BLT20] Lemma 5.1: part (1) at its exhaustive supremum, the random pairs, part (2)'s identity."""
    table.theorem(**exhaustive_check(suprema, "Lemma 5.1(1)"), box="lem-blt-5-1")
    m = lemma51_measures(lemma51)
    table.observation("Lemma 5.1(1)", "max over random pairs with cost > 0 of error / cost", m["error_over_cost"], 1.0,
                      box="lem-blt-5-1", why="random instances; the exhaustive supremum above is the check")
    table.observation("Lemma 5.1(1)", "error of the random pairs with cost 0", m["error_at_zero_cost"], 0.0,
                      box="lem-blt-5-1", why="holds by algebra: cost 0 means every leaf's subfunction is constant, "
                      "so the completion is exact")
    table.identity("Lemma 5.1(2)", "max |cost drop − score| over splits, the score recounted on the leaf's subfunction",
                   m["drop_gap_direct"], 1e-12, box="lem-blt-5-1",
                   computed_by=("dtcore.analysis.leaf_statistics",
                                ("dtcore.analysis.restrict", "dtcore.analysis.influences")))
