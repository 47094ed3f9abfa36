"""[BLT21] Corollary 4.1 and Lemma 4.2 (Sec. 4): the depth FIND needs, on a deep stochastic-leaf target.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dtcore import bounds
from dtcore.audit.oracles import count_trees
from dtcore.cube import all_points
from dtcore.find import find, population_find
from dtcore.stochastic import deterministic_depths, error, mean_table, opt, sample, random_stochastic_tree
from dtcore.tree import DecisionTree
from ... import figures
from ...report import VerificationTable
from ...seeds import experiment_streams
from .common import positive_int, theorem_or_observation, worst_root_errors


def deep_target(*, n: int, deep_depth: int, rng: np.random.Generator, tries: int = 200) -> DecisionTree:
    """A stochastic-leaf target of query depth ``deep_depth`` for [BLT21] Corollary 4.1 and Lemma 4.2.

    A random tree with S = 2^(D-2) + D leaves and no coins, drawn again until a leaf sits at query depth
    exactly D (at most ``tries`` draws), so that Corollary 4.1's ε = S 2^-D = 1/4 + D 2^-D lies in (0, 1/2)
    for D >= 4; its sibling leaves get probabilities on opposite sides of 1/2 (in [0.7, 0.95] for a 1-leaf,
    [0.05, 0.3] for a 0-leaf), so round(mu_T) needs the full depth on its deepest paths.
    """
    tries = positive_int("tries", tries)
    for _ in range(tries):   # rejection over whole trees
        deep = random_stochastic_tree(n, 2 ** (deep_depth - 2) + deep_depth, 0, rng=rng, max_depth=deep_depth)
        if int(deterministic_depths(deep).max()) == deep_depth:
            break
    else:
        raise ValueError(f"no tree of {2 ** (deep_depth - 2) + deep_depth} leaves reached query depth {deep_depth} "
                         f"in {tries} draws")
    for leaf in deep.leaves():   # a loop over leaves
        high = deep.value[leaf] == 1
        deep.set_value(leaf, float(rng.uniform(0.7, 0.95) if high else rng.uniform(0.05, 0.3)))
    return deep


def depth_sweep(deep: DecisionTree, *, m: int, deep_depth: int, repetitions: int, delta: float,
                seed: int) -> pd.DataFrame:
    """[BLT21] Corollary 4.1 and Lemma 4.2 over FIND's depth d = 1..D on the deep target.

    At each depth: the exact excess of the best depth-d tree, the truncation mass of Corollary 4.1
    (and the paper's count S 2^-d), 2γ_d of Lemma 4.2, the excess of the best constant (no depth-d
    tree does worse, so it is the reach of the best excess) and opt_T, and FIND's exact excess on ``repetitions``
    clean samples of m examples (the same samples at every depth: sample ``rep`` comes from stream
    ``rep`` of key "ch03/depth_sweep"). One row per (d, rep).

    The rows' power, two worse outputs of the same type: ``inverted_excess``, the exact excess of FIND's tree
    with its labels inverted (a depth-d tree), and ``worst_root_excess``, the exact excess of the best depth-d
    tree under the worst root variable (:func:`worst_root_errors` on the cube weighted by μ_T; computed only
    where the Corollary 4.1 row is counted, 0 < mass cut < the best constant's excess; NaN elsewhere).
    """
    repetitions = positive_int("repetitions", repetitions)
    n = deep.n
    points = all_points(n)
    mu = mean_table(deep)
    opt_deep = opt(mu)
    constant_excess = min(float(mu.mean()), 1.0 - float(mu.mean())) - opt_deep   # a depth-0 tree is a depth-d tree
    leaf_depths = deterministic_depths(deep)
    cube_X = np.concatenate([points, points])   # every point twice, labelled 1 and 0, weighted by μ_T and 1 − μ_T
    cube_y = np.concatenate([np.ones(2 ** n, np.uint8), np.zeros(2 ** n, np.uint8)])
    cube_w = np.concatenate([mu, 1.0 - mu]) / 2 ** n
    samples = [sample(deep, m, rng=rng) for rng in experiment_streams(seed, "ch03/depth_sweep", repetitions)]
    rows = []
    for d in range(1, deep_depth + 1):
        best = population_find(mu, d)
        gamma_d = bounds.blt21_lemma42_uniform_deviation(count_trees(n, d), m, delta)
        cut = bounds.blt21_corollary41_truncation(leaf_depths, d)
        worst_root = (worst_root_errors(cube_X, cube_y, d, sample_weight=cube_w) - opt_deep
                      if 0 < cut < constant_excess else np.nan)
        for rep, (X, y) in enumerate(samples):
            h = find(X, y, depth=d).tree
            labels = h.predict(points).astype(float)
            rows.append({"d": d, "rep": rep, "find_excess": error(mu, labels) - opt_deep,
                         "inverted_excess": error(mu, 1.0 - labels) - opt_deep, "worst_root_excess": worst_root,
                         "best_excess": max(0.0, best.error - opt_deep),
                         "truncation_bound": bounds.blt21_corollary41_truncation(leaf_depths, d),
                         "paper_count_bound": deep.size * 2.0 ** -d, "two_gamma": 2 * gamma_d,
                         "constant_excess": constant_excess, "opt": opt_deep})
    sweep_frame = pd.DataFrame(rows)
    sweep_frame["find_bound"] = sweep_frame["best_excess"] + sweep_frame["two_gamma"]
    return sweep_frame


def depth_sweep_summary(sweep_frame: pd.DataFrame) -> pd.DataFrame:
    """Per depth d: FIND's worst excess, the best tree's excess, the bounds of [BLT21] Cor. 4.1 / Lemma 4.2,
    the best constant's excess and opt_T, and the two worse outputs (the label-inverted FIND tree's worst excess,
    the worst root's best excess)."""
    return sweep_frame.groupby("d").agg(find_excess=("find_excess", "max"), best_excess=("best_excess", "first"),
                                        inverted_excess=("inverted_excess", "max"),
                                        worst_root_excess=("worst_root_excess", "first"),
                                        truncation_bound=("truncation_bound", "first"),
                                        paper_count_bound=("paper_count_bound", "first"),
                                        find_bound=("find_bound", "first"),
                                        constant_excess=("constant_excess", "first"), opt=("opt", "first"))


def depth_sweep_figure(sweep_frame: pd.DataFrame, per_d: pd.DataFrame) -> Figure:
    """[BLT21] Corollary 4.1 (left: best depth-d excess under the cut mass) and Lemma 4.2 (right:
    FIND's excess under best depth-d + 2γ_d) against FIND's depth."""
    fig, axes = figures.figure(2, height=4.2)
    ax = axes[0]
    ax.plot(per_d.index, per_d["best_excess"], "o-", color="C0", label="best depth-d tree")
    ax.plot(per_d.index, per_d["truncation_bound"].clip(upper=0.6), "s--", color="k", label="mass cut at depth d")
    ax.set_ylim(0, 0.6)
    ax.set_xlabel("depth d")
    ax.set_ylabel("excess error over opt")
    ax.set_title("Cutting at depth d (Cor. 4.1)")
    ax.set_xticks(per_d.index)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)   # below the axes: no entry hidden under a series
    ax = axes[1]
    find_colour = figures.method_colour("FIND")
    ax.scatter(sweep_frame["d"], sweep_frame["find_excess"], color=find_colour, alpha=0.5, s=20)
    ax.plot(per_d.index, per_d["find_excess"], "o-", color=find_colour, label="FIND (worst rep)")
    ax.plot(per_d.index, per_d["find_bound"], "k:", marker="^", label=r"best + $2\gamma_d$")
    ax.plot(per_d.index, per_d["best_excess"], "--", color="C0", label="best depth-d tree")
    ax.set_xlabel("depth d")
    ax.set_title("FIND vs best depth-d (Lemma 4.2)")
    ax.set_xticks(per_d.index)
    ax.set_ylim(-0.01, 0.45)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    return fig


def depth_sweep_glue(deep: DecisionTree, per_d: pd.DataFrame, *, deep_depth: int, repetitions: int) -> dict[str, Any]:
    """The depth sweep for the text: D, ε = S 2^-D, repetitions, the target's size and three excesses."""
    return {"ch3_deep_depth": deep_depth, "ch3_deep_eps": deep.size * 2.0 ** -deep_depth,
            "ch3_deep_reps": repetitions, "ch3_deep_size": deep.size,
            "ch3_deep_best_d3": float(per_d.loc[min(3, deep_depth), "best_excess"]),
            "ch3_deep_find_dmax": float(per_d.loc[deep_depth, "find_excess"]),
            "ch3_deep_find_best_d": int(per_d["find_excess"].idxmin())}


def check_depth_sweep(table: VerificationTable, per_d: pd.DataFrame, *, repetitions: int) -> None:
    """Per depth d of :func:`depth_sweep_summary`: Corollary 4.1 (the best depth-d tree's exact excess under the
    mass cut at d) and Lemma 4.2 (FIND's worst excess under the best excess + 2γ_d)."""
    for d, row in per_d.iterrows():
        # no depth-d tree does worse than the best constant, so its excess is the reach of the best tree's
        if row["truncation_bound"] == 0:   # at the target's own depth nothing is cut: 0 <= 0 whatever the code does
            table.observation("Corollary 4.1", f"excess of the best depth-{d} tree (exact)", row["best_excess"],
                              row["truncation_bound"], box="lem-blt21-4-1",
                              why="at the target's own depth nothing is cut, so both sides are 0 by construction")
        else:
            theorem_or_observation(table, "Corollary 4.1", f"excess of the best depth-{d} tree (exact)",
                                   row["best_excess"], row["truncation_bound"], reach=(0.0, row["constant_excess"]),
                                   box="lem-blt21-4-1", tolerance=1e-12, measured_by="dtcore.find.population_find",
                                   bound_by="dtcore.bounds.blt21_corollary41_truncation",
                                   fails_under=(f"the best depth-{d} tree under the worst root variable",
                                                row["worst_root_excess"]),
                                   why_no_power=f"even the best depth-{d} tree under the worst root has excess "
                                                f"{row['worst_root_excess']:.4f}, within the mass cut at depth {d}: "
                                                f"no depth-{d} tree we can name fails the row",
                                   why="the mass cut at depth d is at least the best constant's excess, which no "
                                       "depth-d tree exceeds")
        theorem_or_observation(table, "Lemma 4.2", f"FIND's worst excess at depth {d}", row["find_excess"],
                               row["find_bound"], reach=(0.0, 1.0 - row["opt"]), box="lem-blt21-4-1",
                               measured_by="dtcore.find.find, dtcore.stochastic.error",
                               bound_by="dtcore.find.population_find, dtcore.bounds.blt21_lemma42_uniform_deviation",
                               worst_case=f"worst of {repetitions} clean samples",
                               fails_under=("FIND's tree with its labels inverted (worst of the samples)",
                                            row["inverted_excess"]),
                               why_no_power=f"FIND's tree with its labels inverted has excess {row['inverted_excess']:.4f}, "
                                            f"within best depth-d excess + 2γ_d: no output we can name fails the row",
                               why="best depth-d excess + 2γ_d is at least 1 − opt, the largest excess there is")
