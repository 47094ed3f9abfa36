"""The one replay of a grown tree, every quantity recomputed from the truth table, not read from the scorer.

:func:`replay` reads the split order from the growth trace and re-measures every intermediate tree,
under the uniform measure (Blanc–Lange–Tan 2020, Lemmas 5.1, 5.2, 5.4) or a product measure
(Moakhar et al. 2026, Lemmas 4.4–4.7); :func:`exact_run_record` summarises such a run for
Theorems 1.1/5.1 and :func:`audit_practical_run` gives the exact errors of Algorithm 2's returned tree
(Lemmas 5.3, 5.4).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import bounds
from ..analysis import ExactMeasure, influences, restrict
from ..buildtopdown import build_top_down_dt
from ..cube import ProductDistribution, check_table, table_variables
from ..grow import select_best, select_quarter_adversarial
from ..product import PracticalResult
from ..tree import LEAF, DecisionTree
from .oracles import leaf_label_masses


def split_steps(tree: DecisionTree, trace: pd.DataFrame) -> list[tuple[list[int], int, int]]:
    """The walk every replay shares: ``(frontier, node, feature)`` before each split of ``trace``.

    Reads the order of the splits from the growth trace (its ``node``/``feature`` columns, one row
    per split; :func:`dtcore.grow.grow`), rebuilds the tree from them and checks it is ``tree``, then
    lists for each split the leaves of the bare tree just before it (in growth order: the split leaf
    leaves the list, its two children join at the end), and a last step ``(frontier, -1, -1)`` with
    the final leaves.
    """
    if not isinstance(trace, pd.DataFrame) or "feature" not in trace.columns:
        raise ValueError("trace must be a growth trace (a DataFrame with node and feature columns)")
    splits = trace[trace["feature"] >= 0]
    if len(splits) and "node" not in splits.columns:  # a run without splits has no node column
        raise ValueError("trace must be a growth trace (a DataFrame with node and feature columns)")
    order = [(int(v), int(f)) for v, f in zip(splits["node"], splits["feature"])] if len(splits) else []
    rebuilt = DecisionTree(tree.n)
    for node, feature in order:
        if node >= rebuilt.node_count or rebuilt.feature[node] != LEAF:
            raise ValueError(f"trace must list splits of leaves in growth order: node {node} is not a leaf")
        rebuilt.split(node, feature)
    if (rebuilt.feature, rebuilt.child0, rebuilt.child1) != (tree.feature, tree.child0, tree.child1):
        raise ValueError("trace does not rebuild tree: the trace and the tree come from different runs")
    frontier, steps = [0], []
    for node, feature in order + [(-1, -1)]:
        steps.append((list(frontier), node, feature))
        if node >= 0:
            frontier.remove(node)
            frontier += [tree.child0[node], tree.child1[node]]
    return steps


def replay(tree: DecisionTree, trace: pd.DataFrame, table: np.ndarray, dist: ProductDistribution | None = None,
           kind: str = "flip") -> pd.DataFrame:
    """Replay a best-first run split by split and measure every intermediate bare tree exactly.

    The one replay of the book: it reads the order of the splits from the growth ``trace`` (the
    ``node``/``feature`` columns of :func:`dtcore.grow.grow`'s trace, one row per split), rebuilds the
    tree from them, checks that the rebuilt tree is the returned ``tree``, and recomputes every
    quantity from the truth table, independently of the scorer that grew it. Under the uniform
    measure (``dist`` None) each node's subfunction is cut out of the table (:func:`restrict`) and its
    flip influences counted edge by edge (:func:`influences`), not through :class:`ExactMeasure`;
    under a product measure each node is measured by :meth:`ExactMeasure.region` with ``kind``.

    One row per split, before it is made: ``leaves`` (L), the split ``node`` and ``feature``,
    ``selected_score`` = p(node) Inf_feature(f_node), ``best_score`` = the largest p(l) max_i Inf_i(f_l)
    over the frontier, ``influence_gap`` = max_i Inf_i(f_node) - Inf_feature(f_node), ``cost`` = sum
    over the frontier of p(l) Inf(f_l) and ``error`` = sum of p(l) min(Pr[f_l = 1], Pr[f_l = 0]),
    with p(l) the probability of reaching l. A last row (``node = -1``) holds the final frontier.
    Used for BLT 2020's algorithm (Sec. 3) and Lemmas 5.1, 5.2, 5.4, and for Moakhar et al. 2026's
    Lemmas 4.4-4.7 and Theorem 5.1's 1/4 rule along real runs.
    """
    table = check_table(table)
    n = table_variables(table)
    if tree.n != n:
        raise ValueError(f"tree must be on n = {n} variables to match the table, got {tree.n}")
    steps = split_steps(tree, trace)
    uniform = dist is None
    count = tree.node_count
    weight, mass_one, total = np.empty(count), np.empty(count), np.empty(count)
    influence = np.zeros((count, n))  # p(node) Inf_i(f_node) under a product measure; Inf_i(f_node) if uniform
    measure = None if uniform else ExactMeasure(table, dist, kind)
    for node in range(count):  # one truth-table slice per node; the body is vectorised
        r = tree.restriction(node)
        if uniform:
            sub, free = restrict(table, {int(i): int(r[i]) for i in np.flatnonzero(r >= 0)})
            weight[node] = 2.0 ** -int((r >= 0).sum())
            if free:
                influence[node, free] = influences(sub)
            mass_one[node] = float(np.count_nonzero(sub)) / sub.size
        else:
            weight[node], mass_one[node], influence[node] = measure.region(r)
    if uniform:
        best = weight * influence.max(axis=1)
        total = weight * influence.sum(axis=1)
        err = weight * np.minimum(mass_one, 1.0 - mass_one)
        gap = influence.max(axis=1)[:, None] - influence
        chosen = weight[:, None] * influence
    else:
        best = influence.max(axis=1)
        total = influence.sum(axis=1)
        err = np.minimum(mass_one, weight - mass_one)
        with np.errstate(invalid="ignore", divide="ignore"):
            per_point = np.where(weight[:, None] > 0, influence / weight[:, None], 0.0)
        gap = per_point.max(axis=1)[:, None] - per_point
        chosen = influence
    rows = []
    for frontier, node, feature in steps:
        # sums over the frontier in node-id order (the order of tree.leaves()) under a product
        # measure, in growth order under the uniform one: each path's former summation order
        leaves = frontier if uniform else sorted(frontier)
        rows.append({"leaves": len(frontier), "node": node, "feature": feature,
                     "selected_score": float(chosen[node, feature]) if node >= 0 else np.nan,
                     "best_score": float(best[leaves].max()),
                     "influence_gap": float(gap[node, feature]) if node >= 0 else np.nan,
                     "cost": float(total[leaves].sum()), "error": float(err[leaves].sum())})
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
    (:func:`replay`), never read from the scorer: ``final_error`` (returned tree against
    f), ``splits`` (J_total), ``phase1_splits`` (J_1: splits until cost <= eps D_opt, Lemma 4.6),
    the smallest chosen/best score share (Theorem 5.1's premise), and the smallest ratio of the
    chosen score to each form of Lemmas 4.4 and 4.5 (printed, factor-2 corrected "Δ-form", and
    the provable "D-form" with D_opt in place of Delta_opt). D_opt, Delta_opt: the target's own.
    """
    f = target.truth_table()
    D, avg = float(target.depth), float(target.average_depth(dist))
    run = build_top_down_dt(f, eps=eps, dist=dist, kind="rerandomised",
                            select=select_quarter_adversarial if adversarial else select_best)
    rep = replay(run.tree, run.trace, f, dist, kind="rerandomised")
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
        "min_share": float((steps["selected_score"] / steps["best_score"]).min()) if splits else math.nan,
        "max_greedy_gap": float((steps["best_score"] - steps["selected_score"]).abs().max()) if splits else math.nan,
    }
    if splits and not adversarial:
        j, score, cost = steps["leaves"].to_numpy(), steps["selected_score"].to_numpy(), steps["cost"].to_numpy()
        for form, paper in (("corrected", False), ("printed", True)):
            row[f"l44_{form}"] = float((score / bounds.mgbh26_lemma44_score_lower(eps, j, avg, paper)).min())
            row[f"l45_{form}"] = float((score / bounds.mgbh26_lemma45_score_lower(cost, j, D, avg, paper)).min())
        row["l44_Dform"] = float((score / bounds.mgbh26_lemma44_score_lower(eps, j, D)).min())
        row["l45_Dform"] = float((score / bounds.mgbh26_lemma45_score_lower(cost, j, D, D)).min())
    return row
