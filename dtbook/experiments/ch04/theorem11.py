"""[MGBH26] Theorems 1.1 and 5.1 (the size of the tree) and Lemmas 4.6 and 4.7 (the two phases) on the
runs of :mod:`.lemma44`, on every function on four variables and on the gated majority.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dtcore import bounds, exhaustive
from dtcore.audit import worst_case
from dtcore.cube import ProductDistribution, table_variables
from dtcore.grow import select_quarter_adversarial
from ... import figures
from ...report import VerificationTable, worst
from .common import VACUOUS, VACUOUS_STEPS, PAPER_SHAPES


def _by_rule(runs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The greedy runs and the adversarial 1/4 runs."""
    return runs[runs["rule"] == "greedy"], runs[runs["rule"] != "greedy"]


def size_figure(runs: pd.DataFrame, eps: float) -> Figure:
    """[MGBH26] Theorems 1.1 and 5.1: mean size against the bias, and log10 bound minus log10 size."""
    fig, axes = figures.figure(1, 2, height=10.0)
    paper_shapes = runs[runs["family"].isin(PAPER_SHAPES)]
    for (family, rule), d in paper_shapes.groupby(["family", "rule"]):
        agg = d.groupby("bias", as_index=False).agg(size=("size", "mean"), sd=("size", "std"))
        axes[0].errorbar(agg["bias"], agg["size"], yerr=agg["sd"].fillna(0), marker="o", capsize=3,
                         label=f"{family}, {rule}")
    axes[0].set_xlabel("bias p")
    axes[0].set_ylabel("tree size (mean ± sd)")
    axes[0].set_title(f"Algorithm 1, ε = {eps:g}")
    figures.legend(axes[0], "below")
    for rule, column, name, style in (("greedy", "log10_thm11", "Theorem 1.1", dict(marker="o", s=22, facecolors="none",
                                                                                 edgecolors=figures.OKABE_ITO[0])),
                                      ("adversarial 1/4", "log10_thm51", "Theorem 5.1",
                                       dict(marker="x", s=18, color=figures.OKABE_ITO[3]))):
        d = runs[runs["rule"] == rule]
        axes[1].scatter(d["log10_size"], d[column] - d["log10_size"], label=f"{rule} against [MGBH26] {name}",
                        alpha=0.8, **style)
    axes[1].axhline(0, color="k", ls="--", lw=1, label="size = bound")
    axes[1].set_yscale("symlog", linthresh=1)
    axes[1].set_xlabel(r"$\log_{10}$ measured size")
    axes[1].set_ylabel(r"$\log_{10}$ bound $-\ \log_{10}$ size")
    axes[1].set_title("Gap to the size bound")
    figures.legend(axes[1], "below")
    return fig


def _bound_where_it_bites(table: VerificationTable, result: str, quantity: str, measured: pd.Series,
                          bound: np.ndarray, ceiling: float, box: str, why: str, *, measured_by: str,
                          bound_by: object, worst_case: str, worse: str, note: str = "") -> int:
    """A theorem row over the runs whose bound lies below the largest value the quantity can take.

    The reach of measured/bound is the largest ceiling/bound over those runs (a tree on n variables
    has at most 2^n leaves and 2^n - 1 splits). The row's worse output (``worse``, its name) is the
    output at that ceiling: the complete tree on the run's r relevant variables, which computes f
    exactly (so it is an ε-approximation) and has 2^r leaves after 2^r − 1 splits; where the bound
    bites it exceeds the bound. An observation (with ``why``) when no run has such a bound; returns
    the number of runs counted.
    """
    bound = np.asarray(bound, dtype=float)
    ceiling = np.broadcast_to(np.asarray(ceiling, dtype=float), bound.shape)
    bites = bound < ceiling
    ratio = np.asarray(measured, dtype=float) / bound
    if bites.any() and not worst(np.asarray(measured, dtype=float)[bites]) > 0:
        table.observation(result, f"{quantity}, {int(bites.sum())} of {bites.size} runs where the bound bites",
                          worst(ratio[bites]), 1.0, box=box, worst_case=worst_case,
                          why="the measured count is 0 in every run where the bound bites: no output of those runs "
                              "could exceed the bound, so the row cannot fail")
    elif bites.any():
        table.theorem(result, f"{quantity}, {int(bites.sum())} of {bites.size} runs where the bound bites",
                      worst(ratio[bites]), 1.0, reach=(0.0, worst(ceiling[bites] / bound[bites])), box=box,
                      measured_by=measured_by, bound_by=bound_by, worst_case=worst_case, note=note,
                      fails_under=(worse, worst(ceiling[bites] / bound[bites])))
    else:
        table.observation(result, quantity, worst(ratio), 1.0, why=why, box=box)
    return int(bites.sum())


COMPLETE_TREE = "the complete tree on the target's r relevant variables (2^r leaves; it computes f exactly)"
COMPLETE_RUN = ("a run that splits in the worst order until its tree is complete on the r relevant variables "
                "(2^r − 1 splits)")
LONGEST_PHASE1 = "a run whose phase 1 lasts all 2^r − 1 splits on the r relevant variables (the most a run can make)"


def _size_bound(log10_bound: pd.Series) -> np.ndarray:
    """10^log10_bound, capped at 10^300 to stay finite."""
    return np.power(10.0, np.minimum(log10_bound, 300))


def check_size(table: VerificationTable, runs: pd.DataFrame, eps: float, n: int) -> None:
    """[MGBH26] Theorem 1.1 (error and size), Algorithm 1's greedy choice and Theorem 5.1's 1/4 rule, replayed."""
    g, a = _by_rule(runs)
    # Algorithm 1 stops when its summed leaf errors are <= eps: the exact error re-reads that stop rule,
    # so the row guards the code (truth table against the algorithm's bookkeeping), not Theorem 1.1
    excess = worst(runs.loc[runs["eps"] == eps, "final_error"]) - eps
    table.identity("Algorithm 1 (stop rule)", "max excess of the returned tree's exact error over ε",
                   max(excess, 0.0), 1e-12, box="alg-mgbh-1", reads_rule="stop rule",
                   computed_by=("dtcore.buildtopdown.build_top_down_dt", "dtcore.tree.DecisionTree.truth_table"),
                   note="the stop rule sums leaf errors, the truth table counts points: rounding apart")
    table.identity("Algorithm 1 (selection rule)", "max (best − chosen) exact score, greedy rule (replayed)",
                   worst(g["max_greedy_gap"].dropna()), 1e-12, box="alg-mgbh-1", reads_rule="selection rule",
                   computed_by=("dtcore.grow.select_best", "dtcore.audit.replay.replay"))
    # Theorem 5.1's premise is the 1/4 rule itself: replayed exact scores against the selector's choice
    share = worst(a["min_share"].dropna(), "min")
    table.identity("Theorem 5.1 (1/4 selection rule)", "max shortfall of min chosen/best exact score below 1/4, "
                   "adversarial rule (replayed)", max(0.25 - share, 0.0), 1e-12, box="alg-mgbh-robust",
                   reads_rule="selection rule", computed_by=(select_quarter_adversarial, "dtcore.audit.replay.replay"),
                   note=f"smallest share {share:.4f}")
    where = "balanced, path and shallow targets under each bias (random draws)"
    _bound_where_it_bites(table, "Theorem 1.1", "max size / bound, greedy", g["size"], _size_bound(g["log10_thm11"]),
                          2.0 ** g["relevant"], "thm-mgbh-1-1", VACUOUS, measured_by="dtcore.buildtopdown.build_top_down_dt",
                          bound_by=bounds.mgbh26_log_size_bound, worst_case=where, worse=COMPLETE_TREE)
    _bound_where_it_bites(table, "Theorem 5.1", "max size / bound, adversarial 1/4", a["size"],
                          _size_bound(a["log10_thm51"]), 2.0 ** a["relevant"], "thm-mgbh-5-1", VACUOUS,
                          measured_by="dtcore.buildtopdown.build_top_down_dt", bound_by=bounds.mgbh26_log_size_bound,
                          worst_case=where, worse=COMPLETE_TREE)


def size_glue(runs: pd.DataFrame, n: int) -> dict[str, float]:
    """Glue values of the size experiment: gaps to the bounds, runs where they bite, size ratios."""
    g, a = _by_rule(runs)
    g_paper, a_paper = g[g["family"].isin(PAPER_SHAPES)], a[a["family"].isin(PAPER_SHAPES)]
    return {"ch4_t11_gap": worst(g_paper["log10_thm11"] - g_paper["log10_size"], "min"),
            "ch4_t51_gap": worst(a_paper["log10_thm51"] - a_paper["log10_size"], "min"),
            "ch4_adv_ratio": float(a_paper["size"].mean() / g_paper["size"].mean()),
            "ch4_max_ratio_target": worst(g_paper["size"] / g_paper["target_size"]),
            "ch4_t11_bites": int((_size_bound(g["log10_thm11"]) < 2.0 ** g["relevant"]).sum()),
            "ch4_t51_bites": int((_size_bound(a["log10_thm51"]) < 2.0 ** a["relevant"]).sum()),
            "ch4_size_runs": len(g),
            "ch4_bias_hi": float(g_paper["bias"].max()), "ch4_bias_lo": float(g_paper["bias"].min()),
            "ch4_size_hi": float(g_paper.loc[g_paper["bias"] == g_paper["bias"].max(), "size"].mean()),
            "ch4_size_lo": float(g_paper.loc[g_paper["bias"] == g_paper["bias"].min(), "size"].mean())}


PHASES = (("phase1_splits", "lemma46_bound"), ("splits", "lemma47_bound"))


def phases_figure(runs: pd.DataFrame, n: int) -> Figure:
    """[MGBH26] Lemmas 4.6 and 4.7: measured splits / bound for greedy runs whose bound is below 2^r - 1.

    When no run has such a bound (as at biases 0.5 and 0.2, or 0.3 alone), the figure says so in words
    instead of drawing empty logarithmic axes.
    """
    g, _ = _by_rule(runs)
    ceiling = 2.0 ** g["relevant"] - 1
    fig, ax = figures.figure(1, height=5.0)
    names = ("[MGBH26] Lemma 4.6: $J_1$ / bound", "[MGBH26] Lemma 4.7: $J_{total}$ / bound")
    biting = [g[bound_column] < ceiling for _, bound_column in PHASES]
    if not any(bites.any() for bites in biting):
        ax.text(0.5, 0.5, f"No greedy run ({len(g)} runs) has a phase bound below $2^r - 1$,\n"
                "the most splits on the target's r relevant variables:\nLemmas 4.8 and 4.9 bite nowhere, "
                "so there is nothing to draw.", transform=ax.transAxes, ha="center", va="center")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title("Phase bounds along greedy runs: none below $2^r - 1$")
        return fig
    for (column, bound_column), name, bites in zip(PHASES, names, biting):
        ax.scatter(g.loc[bites, bound_column], g.loc[bites, column] / g.loc[bites, bound_column], s=16, label=name)
    ax.axhline(1, color="k", ls="--", lw=1, label="ratio 1 (bound)")
    ax.set_xscale("log")
    ax.set_ylim(-0.05, 1.15)  # linear: most J_1 are 0, which a logarithmic axis cannot show
    ax.set_xlabel("bound (splits)")
    ax.set_ylabel("measured splits / bound")
    ax.set_title("Phase bounds along greedy runs, bound below $2^r - 1$")
    figures.legend(ax, "below")
    return fig


def check_phases(table: VerificationTable, runs: pd.DataFrame, n: int) -> None:
    """[MGBH26] Lemma 4.6 (J_1) and Lemma 4.7 (J_total) along the greedy runs where the bound bites."""
    g, _ = _by_rule(runs)
    ceiling = 2.0 ** g["relevant"] - 1  # Algorithm 1 splits only on the r relevant variables: <= 2^r - 1 splits
    where = "balanced, path and shallow targets under each bias (random draws)"
    _bound_where_it_bites(table, "Lemma 4.6", "max J_1 / max((Δ/(εD))^(DΔ), 1), greedy runs", g["phase1_splits"],
                          g["lemma46_bound"], ceiling, "lem-mgbh-4-6", VACUOUS_STEPS,
                          measured_by="dtcore.audit.replay.replay", bound_by=bounds.mgbh26_lemma46_phase1_steps,
                          worst_case=where, worse=LONGEST_PHASE1)
    _bound_where_it_bites(table, "Lemma 4.7", "max J_total / (J_1·e^(ΔD)), greedy runs", g["splits"],
                          g["lemma47_bound"], ceiling, "lem-mgbh-4-7", VACUOUS_STEPS,
                          measured_by="dtcore.audit.replay.replay", bound_by=bounds.mgbh26_lemma47_total_steps,
                          worst_case=where, worse=COMPLETE_RUN, note="J_1 in the bound is the replayed phase-1 count: the lemma relates "
                                                 "two counts of one run")


def phases_glue(runs: pd.DataFrame, n: int) -> dict[str, float]:
    """Glue values of the phases: runs where each bound bites and the largest measured/bound there."""
    g, _ = _by_rule(runs)
    ceiling = 2.0 ** g["relevant"] - 1
    values: dict[str, float] = {}
    for (column, bound_column), lemma in zip(PHASES, ("l46", "l47")):
        bites = g[bound_column] < ceiling
        values[f"ch4_{lemma}_bites"] = int(bites.sum())
        values[f"ch4_{lemma}_ratio"] = (worst(g.loc[bites, column] / g.loc[bites, bound_column]) if bites.any()
                                        else 0.0)
    return values


def theorem11_sizes(tables: np.ndarray, dist: ProductDistribution, runs: "exhaustive.GreedyRuns",
                     eps_grid: Sequence[float], opt: "exhaustive.OptimalTrees") -> pd.DataFrame:
    """[MGBH26] Theorem 1.1 on every function: Algorithm 1's size at each eps against the bound and against 2^r.

    D is the least depth and Delta the least mu-average depth of a tree computing f; r the number of
    relevant variables, so 2^r is the most leaves Algorithm 1 can grow (it splits only on variables
    with positive influence). Per eps: the function with the largest size/bound and the smallest
    log(bound / 2^r) over all functions.
    """
    n = table_variables(tables[0])
    live = opt.root_size >= 2
    D = opt.root_depth.astype(float)
    avg = exhaustive.minimum_average_depth_by_cap(tables, dist)[-1]
    points = np.arange(2 ** n)
    relevant = np.stack([(tables != tables[:, points ^ (1 << i)]).any(axis=1) for i in range(n)]).sum(axis=0)
    rows = []
    for eps in eps_grid:
        size = runs.size_at("error", eps).astype(float)
        log_bound = np.full(len(tables), np.inf)
        k = np.where(live, avg * D, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            # ln of max((e Delta/(eps D))^(Delta D), e^(Delta D)): bounds.mgbh26_log_size_bound, vectorised
            log_bound = np.where(live, np.maximum(k * np.log(np.e * avg / (eps * D)), k), np.inf)
        ratio = np.where(live, np.log(size) - log_bound, -np.inf)
        room = np.where(live, log_bound - relevant * math.log(2), np.inf)
        b, c = int(np.argmax(ratio)), int(np.argmin(room))
        rows.append({"measure": tuple(float(v) for v in dist.p), "eps": eps, "function": b, "size": size[b],
                     "log10_size_over_bound": ratio[b] / math.log(10), "D": D[b], "Delta": avg[b],
                     "log10_bound_over_2r": room[c] / math.log(10), "closest": c, "r": int(relevant[c])})
    return pd.DataFrame(rows)


def theorem11_gated(gated: pd.DataFrame) -> pd.DataFrame:
    """[MGBH26] Theorem 1.1 on the gated majority: greedy size, the bound, and 2^(k+1), the most leaves possible."""
    out = gated[["k", "q", "D_opt", "Delta_opt", "eps", "greedy size"]].copy()
    log10_bound = [bounds.mgbh26_log_size_bound(d, a, e) / math.log(10)
                   for d, a, e in zip(gated["D_opt"], gated["Delta_opt"], gated["eps"])]
    out["log10 bound"] = log10_bound
    out["log10 2^(k+1)"] = (gated["k"] + 1) * math.log10(2)
    return out


def full_tree_bite_depth(eps: float, factor: float = 1.0, max_depth: int = 64) -> int:
    """Smallest depth D at which the bound of Theorem 1.1 (``factor`` 1) or 5.1 (4) for a complete depth-D tree
    with 2^D − 1 distinct variables falls below 2^(2^D − 1), the most leaves a greedy tree on them can have."""
    for depth in range(1, max_depth + 1):
        if bounds.mgbh26_log_size_bound(depth, depth, eps, factor) < (2 ** depth - 1) * math.log(2):
            return depth
    raise ValueError(f"no depth up to max_depth = {max_depth} makes the bound bite at eps = {eps}")


def check_theorem11_hardest(table: VerificationTable, sizes: pd.DataFrame, t11_gated: pd.DataFrame, eps: float) -> None:
    """[MGBH26] Theorem 1.1 at the worst functions on 4 variables and on the gated majority: observations with reasons."""
    worst_row = sizes.loc[sizes["log10_size_over_bound"].idxmax()]
    closest = sizes.loc[sizes["log10_bound_over_2r"].idxmin()]
    depth = full_tree_bite_depth(eps)
    table.observation("Theorem 1.1", "sup size / bound over every function on 4 variables, 3 measures, ε ∈ "
                      f"{{{', '.join(f'{e:g}' for e in sorted(sizes['eps'].unique()))}}}",
                      float(10 ** worst_row["log10_size_over_bound"]), 1.0, box="thm-mgbh-1-1",
                      worst_case=f"f = 0x{worst_row['table']}, p = {worst_row['measure']}, ε = {worst_row['eps']:g}",
                      why=(f"the bound exceeds 2^r, the most leaves a greedy tree on the target's r relevant variables "
                           f"can have, for every such function (by a factor ≥ {10 ** closest['log10_bound_over_2r']:.2f}); "
                           f"a complete tree first makes it bite at depth {depth} (ε = {eps:g}), "
                           f"{2 ** depth - 1:,} variables"))
    ratio = 10 ** (np.log10(t11_gated["greedy size"]) - t11_gated["log10 bound"])
    table.observation("Theorem 1.1", "gated majority x0 ∧ Maj_k: max size / bound", worst(ratio), 1.0,
                      box="thm-mgbh-1-1", worst_case="k, q of the table above",
                      why="r = D_opt = k + 1 and Δ_opt ≥ 1, so the bound is at least e^(k+1) > 2^(k+1), the most leaves "
                          "possible: it cannot bite on this family at any k")


def theorem11_hardest_glue(sizes: pd.DataFrame, t11_gated: pd.DataFrame, eps: float) -> dict[str, object]:
    """Theorem 1.1 at the worst functions on 4 variables and on the gated majority, and where a complete tree
    first makes Theorems 1.1 and 5.1 bite: the numbers for the text."""
    worst_size = sizes.loc[sizes["log10_size_over_bound"].idxmax()]
    return {"ch4_t11_ex_ratio": float(10 ** worst_size["log10_size_over_bound"]),
            "ch4_t11_ex_witness": f"0x{worst_size['table']} (a dictator), ε = {worst_size['eps']:g}",
            "ch4_t11_ex_room": float(10 ** sizes["log10_bound_over_2r"].min()),
            "ch4_t11_gm_ratio": float((t11_gated["greedy size"] / 10 ** t11_gated["log10 bound"]).max()),
            "ch4_t11_bite_depth": full_tree_bite_depth(eps),
            "ch4_t51_bite_depth": full_tree_bite_depth(eps, 4.0)}
