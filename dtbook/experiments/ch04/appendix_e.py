"""[MGBH26] Appendix E: balanced against path trees (E.1 and E.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dtcore import bounds
from dtcore.cube import ProductDistribution
from dtcore.functions import balanced_tree, path_tree
from dtcore.tree import DecisionTree
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


E1_MEASURES: tuple[tuple[float, ...], ...] = ((0.5, 0.5, 0.5, 0.5), (0.1, 0.1, 0.1, 0.1), (0.1, 0.3, 0.7, 0.9),
                                              (0.02, 0.5, 0.5, 0.98))
"""The measures of E.1's exhaustive check: page 7's three and the measure of its E.1 witness `05bd`."""


def appendix_e1_class(measures: Sequence[Sequence[float]] = E1_MEASURES, n: int = 4) -> pd.DataFrame:
    """[MGBH26] App. E.1 on its class: every f on ``n`` variables whose smallest tree is complete over its relevant
    variables (r relevant variables, smallest size s = 2^r), and every f whose smallest tree is complete (s = 2^D) but
    reads more than log2 s variables (outside E.1's hypothesis, the class page 7 searched).

    One row per (measure, class): the number of functions, the largest and smallest log2 s / Δ_opt, with Δ_opt the
    least μ-average depth of a tree computing f, and the function (hex truth table) of the largest. E.1 says
    Δ = D = log2 s for a complete tree of size s over log2 s variables, so on its class the ratio is 1.
    """
    from dtcore import exhaustive
    tables = exhaustive.all_tables(n)
    opt = exhaustive.optimal_trees(tables)
    size = opt.root_size.astype(np.int64)
    depth = opt.root_depth.astype(np.int64)
    points = np.arange(2 ** n)
    relevant = sum((tables != tables[:, points ^ (1 << i)]).any(axis=1).astype(np.int64) for i in range(n))
    complete = (size >= 2) & (size == 2 ** depth)
    classes = {"in E.1's hypothesis (r = log2 s)": complete & (2 ** relevant == size),
               "outside it (r > log2 s)": complete & (2 ** relevant > size)}
    rows = []
    for p in measures:
        avg = exhaustive.minimum_average_depth_by_cap(tables, ProductDistribution(np.asarray(p, dtype=float)))[-1]
        ratio = np.log2(np.maximum(size, 1)) / np.where(avg > 0, avg, np.nan)
        for name, mask in classes.items():
            r = ratio[mask]
            k = int(np.flatnonzero(mask)[np.argmax(r)])
            rows.append({"measure": "p = 1/2" if len(set(p)) == 1 and p[0] == 0.5 else f"p = {tuple(p)}"
                         if len(set(p)) > 1 else f"p = {p[0]:g}", "class": name, "functions": int(mask.sum()),
                         "max": float(r.max()), "min": float(r.min()), "witness": f"{k:0{2 ** n // 4}x}",
                         "witness_relevant": int(relevant[k]), "witness_size": int(size[k])})
    return pd.DataFrame(rows)


def check_appendix_e1_class(table: VerificationTable, frame: pd.DataFrame) -> None:
    """[MGBH26] App. E.1: on its class log2 s / Δ_opt = 1 (an observation: no tree computing such an f can exceed it,
    so the row cannot fail); outside its hypothesis the ratio can exceed 1 (an observation: a remark, not a
    refutation). The closed form of the bound at D = Δ = log2 s is the entry's counted identity."""
    inside = frame[frame["class"].str.startswith("in")]
    outside = frame[frame["class"].str.startswith("outside")]
    measures = len(inside)
    worst_in = inside.loc[inside["max"].idxmax()]
    # every tree computing such an f has all its leaves at depth >= r (a leaf above depth r would leave f constant on
    # a subcube of codimension < r, and a tree of fewer than 2^r leaves), so Δ >= log2 s for every tree and measure:
    # no output can exceed the bound, and the row cannot fail (issue 35): an observation with the numbers
    table.observation("App. E.1", f"sup of log2 s / Δ_opt over every f on 4 variables whose smallest tree is complete "
                      f"over its r = log2 s relevant variables ({int(inside['functions'].iloc[0]):,} functions), "
                      f"{measures} product measures", float(inside["max"].max()), 1.0,
                      worst_case=f"f = {worst_in['witness']}, {worst_in['measure']}; every function of the class",
                      box="lem-mgbh-e-1",
                      why=(f"no tree computing such an f can fail it: a leaf above depth r = log2 s would give a tree of "
                           f"fewer than 2^r leaves, so every tree has Δ ≥ log2 s under every measure; the ratio lies in "
                           f"[{float(inside['min'].min()):.12g}, {float(inside['max'].max()):.12g}] over the class: "
                           "equality at every function"))
    worst_out = outside.loc[outside["max"].idxmax()]
    table.observation("App. E.1", "sup of log2 s / Δ_opt over f whose smallest tree is complete but reads more than "
                      "log2 s variables (outside E.1's hypothesis)", float(worst_out["max"]), 1.0,
                      why="outside E.1's hypothesis (a complete tree of size s over n = log2 s variables): a remark "
                          "on where the equality stops, not a refutation",
                      worst_case=f"f = {worst_out['witness']} ({int(worst_out['witness_relevant'])} variables, "
                                 f"s = {int(worst_out['witness_size'])}), {worst_out['measure']}", box="lem-mgbh-e-1")
