"""[MGBH26] Algorithm 2's guarantee at the edge of ε (stream ``ch04/stop_edge``): runs whose ε sits just below the
exact error of a tree the growth passes through, where the stop constant ¾ decides the outcome.

Algorithm 2 stops once its estimated error is at most ¾ε (line 16). On a chain target under the uniform measure
the growth passes through trees T_1, T_2, ... (T_j has j leaves: the first j − 1 queries of the chain) whose best
errors are known exactly. At ε = error(T_j)(1 − 10⁻⁶) the paper's rule stops at T_j only if its estimate falls
to ¾ε, a quarter of ε below the tree's error (many standard deviations at M_EE(j) points); a rule that stops at
ε would stop there about half the time and return a tree with error above ε. The guarantee (a run does not stop
with error above ε, with probability ≥ 1 − δ/2, Sec. 5.3) holds for every ε, so a count of runs with error above ε
against the binomial 99% quantile at rate δ/2 is a check with power against such a rule.

The edge is found by :func:`chain_prefix_errors`, on the target's truth table and the measure's point weights
(no sample, no code of the algorithm); the returned tree is measured by
:func:`dtcore.audit.replay.audit_practical_run`; the worse output, the tree the ε-stop rule returns on the
same draws, by :func:`eps_stop_output` from the run's own trace.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import binom

from dtcore import bounds
from dtcore.audit.oracles import leaf_label_masses
from dtcore.audit.replay import audit_practical_run, split_steps
from dtcore.cube import ProductDistribution
from dtcore.functions import path_tree
from dtcore.product import PracticalResult, practical_build_top_down_dt, tree_oracle
from dtcore.tree import LEAF, DecisionTree
from ...report import VerificationTable
from ...sweep import grid, sweep

EDGE_MARGIN = 1e-6
"""ε = error(T_j) (1 − EDGE_MARGIN): just below the edge tree's exact error."""


def chain_queries(target: DecisionTree) -> list[tuple[int, int]]:
    """The queries of a path (chain) target from the root: ``(variable, side that continues the chain)``.

    ``ValueError`` if ``target`` is not a chain (some query with two internal children).
    """
    if not isinstance(target, DecisionTree):
        raise ValueError(f"target must be a DecisionTree, got {type(target).__name__}")
    out, node = [], 0
    while target.feature[node] != LEAF:
        c0, c1 = target.child0[node], target.child1[node]
        inner0, inner1 = target.feature[c0] != LEAF, target.feature[c1] != LEAF
        if inner0 and inner1:
            raise ValueError(f"target must be a chain (path tree): node {node} has two internal children")
        side = 0 if inner0 else 1  # the last query has two leaves: either side will do
        out.append((int(target.feature[node]), side))
        node = c0 if side == 0 else c1
    return out


def chain_prefix_errors(target: DecisionTree, dist: ProductDistribution) -> np.ndarray:
    """Exact best-labelling errors of the trees along a chain: entry s is error(T*_{s+1}) for the tree asking the
    chain's first s queries (s = 0, ..., number of queries; the last is 0, the target itself).

    Computed on the target's truth table with the measure's point weights: the exits are pure, so a prefix tree
    errs only on its remaining region, min(Pr[region, f = 0], Pr[region, f = 1]).
    """
    if not isinstance(dist, ProductDistribution) or dist.n != target.n:
        raise ValueError(f"dist must be a ProductDistribution on n = {target.n} coordinates")
    f = np.asarray(target.truth_table()) >= 0.5
    w = dist.point_weights()
    points = np.arange(f.size)
    region = np.ones(f.size, dtype=bool)
    errors = []
    for variable, side in chain_queries(target) + [(-1, -1)]:
        errors.append(min(float(w[region & f].sum()), float(w[region & ~f].sum())))
        if variable >= 0:
            region &= ((points >> variable) & 1) == side
    return np.asarray(errors)


def edge_eps(edge_error: float, margin: float = EDGE_MARGIN) -> float:
    """ε just below a tree's exact error: ``edge_error (1 − margin)``; ``margin`` in (0, 1)."""
    if not 0.0 < margin < 1.0:
        raise ValueError(f"margin must be in (0, 1), got {margin}")
    if not 0.0 < edge_error < 1.0:
        raise ValueError(f"edge_error must be in (0, 1), got {edge_error}")
    return float(edge_error) * (1.0 - margin)


def eps_stop_output(result: PracticalResult, target: DecisionTree, dist: ProductDistribution,
                    eps: float) -> dict[str, float]:
    """The tree a rule stopping at estimated error ≤ ε (instead of ¾ε) returns on the same draws, measured exactly.

    Until it stops, that rule draws exactly what Algorithm 2 draws (the draws depend on the step and the tree, not
    on the stop constant), so it returns the first tree of ``result``'s trace whose error set has at most ε |S^EE|
    mistakes (the run's own tree if none). Returns ``leaves`` and ``best_error``, the exact error of that bare
    tree's best labelling (a lower bound on the error of its majority labelling).
    """
    trace = result.trace
    mistakes = np.rint(trace["estimated_error"].to_numpy() * trace["ee_samples"].to_numpy())
    stops = np.flatnonzero(mistakes <= eps * trace["ee_samples"].to_numpy())
    step = int(stops[0]) if stops.size else len(trace) - 1
    tree = DecisionTree(target.n)
    for _, node, feature in split_steps(result.tree, trace)[:step]:
        tree.split(node, feature)
    masses = leaf_label_masses(tree, target, dist)
    return {"leaves": float(tree.size), "best_error": float(masses.min(axis=1).sum())}


def eps_stop_rate(edge_error: float, j: int, eps: float, delta: float) -> float:
    """Probability that the ε-stop rule stops at the edge tree T_j:
    Pr[Bin(⌈M_EE(j)⌉, error(T_j)) ≤ ε ⌈M_EE(j)⌉].

    Exact binomial at the error set's size, given that the run reaches T_j along the chain with T_j's best
    labels; every tree before T_j on the chain errs more, so a run that stops earlier fails too: given that
    condition, a lower bound on the rule's failure rate (:func:`edge_power` counts only such runs).
    """
    m = math.ceil(bounds.mgbh26_error_points_needed(j, eps, delta))
    return float(binom.cdf(math.floor(eps * m), m, edge_error))


def edge_task(edge: int, n: int, leaves: int, delta: float, *, rng: np.random.Generator) -> dict[str, float]:
    """One run of Algorithm 2 on a random chain with ``leaves`` leaves, uniform μ on n bits, at ε just below the
    exact error of the chain's ``edge``-leaf tree. Exact errors of the returned tree and of the ε-stop rule's."""
    target = path_tree(n, leaves, rng=rng)
    dist = ProductDistribution.uniform(n)
    errors = chain_prefix_errors(target, dist)
    if not 1 <= edge < len(errors):
        raise ValueError(f"edge must be in [1, {len(errors) - 1}] for a chain with {leaves} leaves, got {edge}")
    eps = edge_eps(float(errors[edge - 1]))
    res = practical_build_top_down_dt(tree_oracle(target), dist, eps=eps, delta=delta, rng=rng)
    audit = audit_practical_run(res, target, dist)
    faulty = eps_stop_output(res, target, dist, eps)
    chain = [v for v, _ in chain_queries(target)]
    grown = res.trace.loc[res.trace["feature"] >= 0, "feature"].astype(int).tolist()
    return {"eps": eps, "edge_error": float(errors[edge - 1]), "next_error": float(errors[edge]),
            "error": audit["error"], "size": res.tree.size, "terminated": float(res.terminated), "followed_chain": float(grown == chain[:len(grown)]),
            "eps_stop_error": faulty["best_error"], "eps_stop_leaves": faulty["leaves"],
            "eps_stop_rate": eps_stop_rate(float(errors[edge - 1]), edge, eps, delta)}


def edge_runs(*, edges: Sequence[int] = (2, 3), n: int = 6, leaves: int = 6, delta: float, runs: int, seed: int,
              n_jobs: int | None = None) -> pd.DataFrame:
    """:func:`edge_task` ``runs`` times per edge (stream ``"ch04/stop_edge"`` under ``seed``)."""
    return sweep(edge_task, grid(edge=list(edges), n=[n], leaves=[leaves], delta=[delta]), repetitions=runs,
                 seed=seed, n_jobs=n_jobs, key="ch04/stop_edge")


def guarantee_failures_allowed(runs: int, delta: float) -> int:
    """99% quantile of the count of runs returning error > ε when each does so with probability at most δ/2
    (Algorithm 2's correctness, [MGBH26] Sec. 5.3; independent runs: at most binomial)."""
    return int(binom.ppf(0.99, runs, delta / 2))


def edge_power(runs: pd.DataFrame, allowed: int) -> float:
    """Probability that the count of runs above ε exceeds ``allowed`` when run r fails independently with its
    ``eps_stop_rate`` (a Poisson-binomial tail, by convolving one binomial per edge): the row's power. Only runs
    that grew along the chain count (the rate is a lower bound given that); the others count as passing."""
    pmf = np.ones(1)
    for rate, d in runs[runs["followed_chain"] == 1].groupby("eps_stop_rate"):
        pmf = np.convolve(pmf, binom.pmf(np.arange(len(d) + 1), len(d), float(rate)))
    return float(pmf[allowed + 1:].sum())


def edge_numbers(runs: pd.DataFrame, delta: float) -> dict[str, float]:
    """The row's numbers: runs, failures, the allowed count, the ε-stop rule's failures and the power."""
    # a run that stopped for want of a positive score left Algorithm 2 (which splits anyway): outside the guarantee
    done = runs[runs["terminated"] == 1]
    allowed = guarantee_failures_allowed(len(done), delta)
    return {"runs": len(done), "fails": int((done["error"] > done["eps"]).sum()), "allowed": allowed,
            "eps_stop_fails": int((done["eps_stop_error"] > done["eps"]).sum()),
            "power": edge_power(done, allowed), "rate_min": float(runs["eps_stop_rate"].min()),
            "chain": int(runs["followed_chain"].sum()), "unterminated": int((runs["terminated"] == 0).sum()),
            "worst_ratio": float((runs["error"] / runs["eps"]).max())}


def check_stop_edge(table: VerificationTable, runs: pd.DataFrame, delta: float) -> None:
    """[MGBH26] Sec. 5.3 at the edge of ε: runs above ε against the binomial 99% quantile at δ/2; its worse output
    the ε-stop rule on the same draws."""
    num = edge_numbers(runs, delta)
    by_edge = runs.groupby("edge")["edge_error"].first()  # in the order of the tree sizes
    edges = ", ".join(f"{e:.5f}" for e in by_edge)
    table.theorem("Algorithm 2 (Sec. 5.3)",
                  f"runs at the edge of ε with exact error > ε, of {num['runs']} "
                  f"(limit: binomial 99% quantile at δ/2; power {num['power']:.3f} against a stop at ε)", float(num["fails"]), float(num["allowed"]),
                  reach=(0.0, float(num["runs"])), box="alg-mgbh-2", measured_by=audit_practical_run,
                  bound_by=guarantee_failures_allowed,
                  worst_case=(f"chains with {int(runs['leaves'].iloc[0])} leaves, uniform μ on n = "
                              f"{int(runs['n'].iloc[0])}; ε = error(T_j)(1 − 10⁻⁶) just below the exact errors "
                              f"{edges} of the chain's trees with j = "
                              f"{', '.join(str(int(j)) for j in by_edge.index)} leaves (truth table)"),
                  fails_under=("the tree a stop at estimated error ≤ ε (not ¾ε) returns on the same draws",
                               float(num["eps_stop_fails"])))


def stop_edge_glue(runs: pd.DataFrame, delta: float) -> dict[str, object]:
    """Glue values of the edge runs."""
    num = edge_numbers(runs, delta)
    return {"ch4_edge_runs": num["runs"], "ch4_edge_fails": num["fails"], "ch4_edge_allowed": num["allowed"],
            "ch4_edge_eps_stop_fails": num["eps_stop_fails"], "ch4_edge_power": num["power"],
            "ch4_edge_rate": num["rate_min"], "ch4_edge_chain": num["chain"], "ch4_edge_unterminated": num["unterminated"], "ch4_edge_worst": num["worst_ratio"],
            "ch4_edge_errors": ", ".join(f"{e:.4f}" for e in runs.groupby("edge")["edge_error"].first()),
            "ch4_edge_leaves": int(runs["leaves"].iloc[0]), "ch4_edge_n": int(runs["n"].iloc[0]),
            "ch4_edge_sizes": " and ".join(str(int(e)) for e in sorted(runs["edge"].unique()))}
