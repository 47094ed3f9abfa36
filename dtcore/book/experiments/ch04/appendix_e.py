"""[MGBH26] Appendix E: balanced against path trees (E.1 and E.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .... import bounds
from ....cube import ProductDistribution
from ....functions import balanced_tree, path_tree
from ....tree import DecisionTree
from ... import figures
from ...report import VerificationTable, worst


def appendix_e_paths(*, biases: Sequence[float], eps: float, rng: np.random.Generator,
                     max_queries: int = 20) -> pd.DataFrame:
    """[MGBH26] App. E.2: Delta of path trees with k queries and exit probability q, and the two bounds.

    For k = 2..``max_queries`` and q in {1/2} and each bias and its complement: Delta measured on the
    built tree (``Delta_tree``) and by the closed form (``Delta_formula``), the exponents Delta D and
    D^2, and log10 of Theorem 1.1's bound with Delta and with Delta replaced by D. ``rng`` draws the
    trees' variables (Delta does not depend on them: every p_i is q).
    """
    rows = []
    for k in range(2, max_queries + 1):
        for q in sorted(set([0.5] + list(biases) + [1 - b for b in biases])):
            tree = path_tree(max(k, 2), k + 1, rng=rng, exit_sides=[1] * k)
            dist = ProductDistribution(np.full(max(k, 2), q))  # exit on x = 1, taken with probability q
            avg = tree.average_depth(dist)
            rows.append({"k": k, "q": q, "Delta_tree": avg, "Delta_formula": bounds.mgbh26_path_average_depth(k, q),
                         "DeltaD": avg * k, "D2": k * k,
                         "log10_bound_path": bounds.mgbh26_log_size_bound(k, avg, eps) / math.log(10),
                         "log10_bound_depth_only": bounds.mgbh26_log_size_bound(k, k, eps) / math.log(10)})
    return pd.DataFrame(rows)


def appendix_e1_deviation(*, n: int, biases: Sequence[float], eps: float, rng: np.random.Generator) -> float:
    """[MGBH26] App. E.1: max |ln bound(D, Delta of a built complete tree) - (log2 s)^2 ln(e/eps)|.

    Complete trees of depth 1..min(n, 8) built by ``functions.balanced_tree`` from ``rng``, under every bias.
    """
    deviation = 0.0
    for k in range(1, min(n, 8) + 1):
        tree = balanced_tree(n, k, rng=rng)
        for b in biases:
            dist = ProductDistribution(np.full(n, b))
            measured = bounds.mgbh26_log_size_bound(tree.depth, tree.average_depth(dist), eps)
            deviation = max(deviation, abs(measured - math.log2(tree.size) ** 2 * math.log(math.e / eps)))
    return deviation


def appendix_e_figure(paths: pd.DataFrame, eps: float) -> Figure:
    """[MGBH26] App. E: exponent Delta D of path trees against D^2, and each bound's gap to the tree's size."""
    fig, axes = figures.figure(1, 2, height=10.0)
    for q, d in paths.groupby("q"):
        axes[0].plot(d["k"], d["DeltaD"], "o-", ms=3, label=rf"path, $q$ = {q:g}: $\Delta D$")
    ks = paths["k"].unique()
    axes[0].plot(ks, ks ** 2, "k--", label=r"$D^2$ (depth only / balanced)")
    axes[0].set_yscale("log")
    axes[0].set_xlabel("number of queries k = D")
    axes[0].set_ylabel("exponent")
    axes[0].set_title("Exponent: ΔD against D²")
    figures.legend(axes[0], "below", ncol=2)
    uniform = paths[paths["q"] == 0.5]
    size_log = np.log10(uniform["k"] + 1)  # the path tree itself has k + 1 leaves
    axes[1].plot(uniform["k"], uniform["log10_bound_path"] - size_log, "o-", label=r"$\Delta$ of the path")
    axes[1].plot(uniform["k"], uniform["log10_bound_depth_only"] - size_log, "s--", label=r"$\Delta$ replaced by $D$")
    axes[1].set_yscale("log")
    axes[1].set_xlabel("k")
    axes[1].set_ylabel(r"$\log_{10}$ bound $-\ \log_{10}(k+1)$")
    axes[1].set_title(f"Gap to the size, ε = {eps:g}")
    figures.legend(axes[1], "below")
    return fig


def appendix_e_glue(paths: pd.DataFrame) -> dict[str, float]:
    """Glue values of App. E at the largest k: the uniform path tree's Delta and log10 of both bounds."""
    k = int(paths["k"].max())
    last = paths[(paths["q"] == 0.5) & (paths["k"] == k)]
    return {"ch4_appE_k": k, "ch4_appE_delta": float(last["Delta_tree"].iloc[0]),
            "ch4_appE_path": float(last["log10_bound_path"].iloc[0]),
            "ch4_appE_depth": float(last["log10_bound_depth_only"].iloc[0])}


def check_appendix_e(table: VerificationTable, paths: pd.DataFrame, e1_deviation: float) -> None:
    """[MGBH26] App. E.2 (Delta of path trees: closed form, <= 2 uniform, <= 1/q) and App. E.1."""
    k = float(paths["k"].max())
    uniform = paths[paths["q"] == 0.5]
    table.identity("App. E.2", "max |Δ(path tree) − closed form|",
                   worst((paths["Delta_tree"] - paths["Delta_formula"]).abs()), 1e-12, box="",
                   computed_by=(DecisionTree.average_depth, bounds.mgbh26_path_average_depth))
    algebra = ("follows by algebra from the closed form checked by the identity above: "
               "Σ_d d·q(1 − q)^(d−1) + k(1 − q)^(k−1) < 1/q for every k")
    table.observation("App. E.2", f"max Δ of a uniform path tree (k ≤ {k:.0f})", worst(uniform["Delta_tree"]), 2.0,
                      why=algebra)
    table.observation("App. E.2", "max q·Δ of path trees (Δ ≤ 1/q)", worst(paths["q"] * paths["Delta_tree"]), 1.0,
                      why=algebra)
    table.identity("App. E.1",
                   "max |ln bound(D, Δ of a built complete tree) − (log2 s)²·ln(e/ε)| over depths and biases",
                   e1_deviation, 1e-9, computed_by=((bounds.mgbh26_log_size_bound, DecisionTree.average_depth),
                                                    "(log2 s)^2 ln(e/eps) of the tree's leaf count"))
