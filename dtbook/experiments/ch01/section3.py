"""[BLT20] Sec. 3, BuildTopDownDT: a traced run on the 2-address multiplexer.

The replay identities of the algorithm (selection rule, running cost, stop rule, labels) are measured
along the runs of :mod:`.lemmas52_54` and checked there.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from dtcore.buildtopdown import build_top_down_dt
from dtcore.cube import truth_table
from dtcore.functions import address
from dtcore.grow import GrowthResult
from dtcore.tree import DecisionTree
from ... import figures
from ...chapter import styled_table


# --- a traced run --------------------------------------------------------------------------------

def traced_run(eps: float, n: int = 6) -> tuple[GrowthResult, np.ndarray]:
    """BuildTopDownDT ([BLT20] Sec. 3) on the 2-address multiplexer of ``n`` variables: ``(run, f)``."""
    f = truth_table(lambda X: address(X, 2), n)
    return build_top_down_dt(f, eps=eps), f


def trace_table(trace: pd.DataFrame) -> Any:
    """The run's trace as a styled table; the last row is the returned tree, with no split ("—")."""
    shown = trace[["step", "leaves", "cost", "error", "feature", "score", "depth"]].copy()
    split = shown["feature"] >= 0  # the final row records the stop, not a split: its feature is -1
    shown["feature"] = [f"x{int(i)}" if ok else None for i, ok in zip(shown["feature"], split)]
    shown.loc[~split, ["score", "depth"]] = np.nan
    shown = shown.rename(columns={"leaves": "leaves before", "feature": "split on", "score": "score of the split",
                                  "depth": "depth of the split leaf"})
    return styled_table(shown, digits=4, caption="BuildTopDownDT on the 2-address multiplexer, step by step: the "
                        "last row is the returned tree")


def fig_trace_tree(tree: DecisionTree) -> Any:
    """The tree BuildTopDownDT returns on the multiplexer."""
    fig, ax = figures.figure(1, height=3.2)
    tree.draw(ax=ax, fontsize=12)
    return fig


def fig_trace_cost(trace: pd.DataFrame, eps: float) -> Any:
    """Cost and error of the f-completion along the run: [BLT20] Lemma 5.1 in one picture."""
    fig, ax = figures.figure(1, height=2.8)
    ax.step(trace["leaves"], trace["cost"], where="post", label=r"cost$_f(T^\circ)$", lw=2)
    ax.step(trace["leaves"], trace["error"], where="post", label=r"error of the $f$-completion", lw=2)
    ax.axhline(eps, color="k", ls=":", label=f"ε = {eps}")
    ax.set_xlabel("number of leaves")
    ax.set_ylabel("cost, error")
    ax.legend(loc="upper right")
    return fig


def trace_glue(run: GrowthResult, f: np.ndarray) -> dict[str, Any]:
    """The traced run's numbers for the text: its size, first two splits and exactness."""
    first_features = run.trace["feature"].iloc[:2].tolist()
    exact = np.array_equal(run.tree.truth_table(), f)
    return {"ch1_trace_size": run.tree.size,
            "ch1_trace_first": ", ".join(f"x{int(i)}" for i in first_features),
            "ch1_trace_exact": "computes the multiplexer exactly" if exact else "approximates the multiplexer"}
