"""Replays of grown trees, every quantity recomputed from the truth table, not read from the scorer.

:func:`greedy_replay` re-measures a BuildTopDownDT run under the uniform measure (Blanc–Lange–Tan
2020, Lemmas 5.1, 5.2, 5.4); :func:`exact_replay` re-measures every intermediate tree of an exact run
under a product measure (Moakhar et al. 2026, Lemmas 4.4–4.7); :func:`exact_run_record` summarises
such a run for Theorems 1.1/5.1 and :func:`audit_practical_run` gives the exact errors of
Algorithm 2's returned tree (Lemmas 5.3, 5.4).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import bounds
from ..analysis import ExactMeasure, influences, leaf_statistics, restrict
from ..buildtopdown import build_top_down_dt
from ..cube import ProductDistribution, check_table, table_variables
from ..grow import select_best, select_quarter_adversarial
from ..product import PracticalResult
from ..tree import DecisionTree
from .oracles import leaf_label_masses


def greedy_replay(tree, table: np.ndarray) -> "pd.DataFrame":
    """Replay a tree grown best-first by BuildTopDownDT, recomputing every quantity from ``table``.

    Used to check BLT 2020's algorithm (Sec. 3) and Lemmas 5.1, 5.2 and 5.4 on the *returned*
    tree, independently of the scorer that grew it. A node created by the j-th split has id
    2j - 1 or 2j (``DecisionTree.split`` appends both children), so the internal nodes in the
    order of their first child are the splits in the order they were made. For every node the
    subfunction f_node is cut out of the truth table (:func:`restrict`) and its influences are
    counted edge by edge (:func:`influences`), not through :class:`ExactMeasure`.

    One row per split, before it is made: ``leaves`` (L), the split ``node`` and ``feature``,
    ``selected_score`` = 2^-|node| Inf_feature(f_node), ``best_score`` = the largest
    2^-|l| max_i Inf_i(f_l) over the leaves of the frontier, ``influence_gap`` = max_i Inf_i(f_node)
    - Inf_feature(f_node), ``cost`` = sum over the frontier of 2^-|l| Inf(f_l) and ``error`` = sum
    of 2^-|l| min(Pr[f_l = 1], Pr[f_l = 0]). A last row (``node = -1``) holds the final frontier.
    """
    table = check_table(table)
    n = table_variables(table)
    if tree.n != n:
        raise ValueError(f"tree must be on n = {n} variables to match the table, got {tree.n}")
    count = tree.node_count
    weight = np.empty(count)
    best = np.empty(count)
    total = np.empty(count)
    err = np.empty(count)
    influence = np.zeros((count, n))
    for node in range(count):  # one truth-table slice per node; the body is vectorised
        r = tree.restriction(node)
        sub, free = restrict(table, {int(i): int(r[i]) for i in np.flatnonzero(r >= 0)})
        weight[node] = 2.0 ** -int((r >= 0).sum())
        if free:
            influence[node, free] = influences(sub)
        mu = float(np.count_nonzero(sub)) / sub.size
        best[node] = weight[node] * influence[node].max()
        total[node] = weight[node] * influence[node].sum()
        err[node] = weight[node] * min(mu, 1.0 - mu)
    internal = [v for v in range(count) if tree.feature[v] >= 0]
    order = sorted(internal, key=lambda v: tree.child0[v])
    frontier = [0]
    rows = []
    for node in order:
        if node not in frontier:
            raise ValueError(f"tree was not grown by successive leaf splits: node {node} split out of order")
        f = int(tree.feature[node])
        rows.append({"leaves": len(frontier), "node": node, "feature": f,
                     "selected_score": weight[node] * influence[node, f],
                     "best_score": float(best[frontier].max()),
                     "influence_gap": float(influence[node].max() - influence[node, f]),
                     "cost": float(total[frontier].sum()), "error": float(err[frontier].sum())})
        frontier.remove(node)
        frontier += [tree.child0[node], tree.child1[node]]
    rows.append({"leaves": len(frontier), "node": -1, "feature": -1, "selected_score": np.nan,
                 "best_score": float(best[frontier].max()), "influence_gap": np.nan,
                 "cost": float(total[frontier].sum()), "error": float(err[frontier].sum())})
    return pd.DataFrame(rows)


def exact_replay(trace: pd.DataFrame, table: np.ndarray, dist: ProductDistribution,
                 kind: str = "rerandomised") -> pd.DataFrame:
    """Replay a grown tree's splits and measure every intermediate bare tree exactly.

    ``trace`` is a :func:`dtcore.grow.grow` trace (``node``/``feature`` per split). Before each
    split (and once at the end) the bare tree is measured with
    :func:`dtcore.analysis.leaf_statistics`, independently of the scorer that grew it: ``leaves``
    (j), ``cost``, ``error`` (of the f-completion), ``best_score`` (max over leaves of
    p_l max_i Inf_i(f_l)) and ``chosen_score`` (p_l Inf_i(f_l) of the split made; NaN at the end).
    Used for Lemmas 4.4-4.7 and Theorem 5.1's 1/4 rule along real runs (Moakhar et al. 2026).
    """
    measure = ExactMeasure(table, dist, kind)
    tree = DecisionTree(measure.n)
    rows = []
    splits = trace[trace["feature"] >= 0]
    nodes = list(splits["node"].astype(int)) if len(splits) else []
    for node, feature in zip(nodes + [-1], list(splits["feature"].astype(int)) + [-1]):
        stats = leaf_statistics(tree, table, dist, kind, measure=measure)
        row = {"leaves": len(stats["node"]), "cost": float(stats["cost"].sum()), "error": float(stats["error"].sum()),
               "best_score": float(stats["weighted_influence"].max()), "chosen_score": math.nan}
        if node >= 0:
            pos = int(np.flatnonzero(stats["node"] == node)[0])
            row["chosen_score"] = float(stats["weighted_influence"][pos, feature])
            tree.split(node, feature)
        rows.append(row)
    return pd.DataFrame(rows)


def audit_practical_run(result: PracticalResult, target: DecisionTree,
                        dist: ProductDistribution) -> dict[str, float]:
    """Exact errors of Algorithm 2's returned tree, measured against the target (Sec. 5.3).

    ``error``: error(T, f) of the returned labelled tree; ``best_error``: error(T*, f) of the best
    labelling of the same bare tree; ``previous_best_error``: error(T*, f) of the bare tree one
    split earlier (the last split undone; NaN for a one-leaf tree). Lemma 5.3 bounds
    error - best_error; Lemma 5.4 (Case 1) says the run should have stopped one step earlier if
    previous_best_error <= eps/2.
    """
    tree = result.tree
    masses = leaf_label_masses(tree, target, dist)
    labels = (tree.leaf_values() >= 0.5).astype(np.int64)
    best = np.minimum(masses[:, 0], masses[:, 1])
    out = {"leaves": float(tree.size), "error": float(masses[np.arange(len(labels)), 1 - labels].sum()),
           "best_error": float(best.sum()), "previous_best_error": math.nan}
    if tree.size > 1:  # the last split created the two newest nodes, both leaves
        leaves = tree.leaves()
        pos = [leaves.index(tree.node_count - 2), leaves.index(tree.node_count - 1)]
        merged = masses[pos].sum(axis=0)
        out["previous_best_error"] = float(best.sum() - best[pos].sum() + merged.min())
    return out


def exact_run_record(target: DecisionTree, dist: ProductDistribution, eps: float,
                     adversarial: bool = False) -> dict[str, float]:
    """Run Algorithm 1 exactly on a target tree and measure the run from the outside.

    The greedy rule (Moakhar et al. 2026, Algorithm 1) or Theorem 5.1's adversarial 1/4 rule.
    Every quantity is measured on the returned tree or on the replayed intermediate trees
    (:func:`exact_replay`), never read from the scorer: ``final_error`` (returned tree against
    f), ``splits`` (J_total), ``phase1_splits`` (J_1: splits until cost <= eps D_opt, Lemma 4.6),
    the smallest chosen/best score share (Theorem 5.1's premise), and the smallest ratio of the
    chosen score to each form of Lemmas 4.4 and 4.5 (printed, factor-2 corrected "Δ-form", and
    the provable "D-form" with D_opt in place of Delta_opt). D_opt, Delta_opt: the target's own.
    """
    f = target.truth_table()
    D, avg = float(target.depth), float(target.average_depth(dist))
    run = build_top_down_dt(f, eps=eps, dist=dist, kind="rerandomised",
                            select=select_quarter_adversarial if adversarial else select_best)
    rep = exact_replay(run.trace, f, dist)
    steps = rep.iloc[:-1]
    below = np.flatnonzero(rep["cost"].to_numpy() <= eps * D)
    splits = len(rep) - 1
    phase1 = int(below[0]) if below.size else splits
    row: dict[str, float] = {
        "D": D, "Delta": avg, "size": run.tree.size, "target_size": target.size, "splits": splits,
        "final_error": float(dist.point_weights() @ (run.tree.truth_table() != f)),
        "phase1_splits": phase1,
        "lemma46_bound": bounds.mgbh26_lemma46_phase1_steps(D, avg, eps),
        "lemma47_bound": bounds.mgbh26_lemma47_total_steps(max(phase1, 1), D, avg),
        "log10_thm11": bounds.mgbh26_log_size_bound(D, avg, eps, 1.0) / math.log(10),
        "log10_thm51": bounds.mgbh26_log_size_bound(D, avg, eps, 4.0) / math.log(10),
        "min_share": float((steps["chosen_score"] / steps["best_score"]).min()) if splits else math.nan,
        "max_greedy_gap": float((steps["best_score"] - steps["chosen_score"]).abs().max()) if splits else math.nan,
    }
    if splits and not adversarial:
        j, score, cost = steps["leaves"].to_numpy(), steps["chosen_score"].to_numpy(), steps["cost"].to_numpy()
        for form, paper in (("corrected", False), ("printed", True)):
            row[f"l44_{form}"] = float((score / bounds.mgbh26_lemma44_score_lower(eps, j, avg, paper)).min())
            row[f"l45_{form}"] = float((score / bounds.mgbh26_lemma45_score_lower(cost, j, D, avg, paper)).min())
        row["l44_Dform"] = float((score / bounds.mgbh26_lemma44_score_lower(eps, j, D)).min())
        row["l45_Dform"] = float((score / bounds.mgbh26_lemma45_score_lower(cost, j, D, D)).min())
    return row
