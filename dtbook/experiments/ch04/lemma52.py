"""[MGBH26] Lemma 5.2: the score estimator of Equation (1) is unbiased.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dtcore import analysis
from dtcore.buildtopdown import build_top_down_dt
from dtcore.cube import ProductDistribution
from dtcore.functions import balanced_tree
from dtcore.product import estimate_scores, tree_oracle
from ... import figures
from ...report import VerificationTable, worst


def lemma52_estimates(*, n: int, bias: float, repetitions: int, rng: np.random.Generator,
                      pair_counts: Sequence[int] = (250, 1000, 4000, 16000)) -> tuple[pd.DataFrame, pd.DataFrame]:
    """[MGBH26] Lemma 5.2: repeated estimates of Equation (1) against the exact scores of a 4-leaf tree.

    The tree is grown by Algorithm 1 on a balanced depth-3 target under p_i = ``bias``. Returns one
    row per pair count m (RMSE, binomial s.d., max |z| of the mean, median variance ratio, whether
    estimates vanish where the exact score does) and, per (leaf, variable), the exact score and the
    mean estimate with its 95% half-width at m = 4000.
    """
    dist = ProductDistribution(np.full(n, bias))
    target = balanced_tree(n, 3, rng=rng)
    f = target.truth_table()
    tree = build_top_down_dt(f, eps=1e-3, dist=dist, kind="rerandomised", size=4).tree
    exact = analysis.leaf_statistics(tree, f, dist, "rerandomised")["weighted_influence"]
    oracle = tree_oracle(target)
    live = exact > 0
    rows, scores = [], pd.DataFrame()
    for m in pair_counts:
        est = np.array([estimate_scores(tree, oracle, dist, m, rng=rng) for _ in range(repetitions)])
        mean, sd = est.mean(axis=0), est.std(axis=0, ddof=1)
        z = np.where(live, (mean - exact) / np.where(sd > 0, sd / math.sqrt(repetitions), np.inf), 0.0)
        binomial_var = exact * (1 - exact) / m
        rows.append({"m": m, "rmse": float(np.sqrt(((est - exact) ** 2).mean(axis=0)[live].mean())),
                     "theory_sd": float(np.sqrt(binomial_var[live].mean())),
                     "max_abs_z": float(np.abs(z).max()),
                     "var_ratio": float(np.median((sd[live] ** 2) / binomial_var[live])),
                     "zero_where_exact_zero": bool(np.all(est[:, ~live] == 0))})
        if m == 4000:
            scores = pd.DataFrame({"exact": exact.ravel(), "mean": mean.ravel(),
                                   "ci95": (1.96 * sd / math.sqrt(repetitions)).ravel()})
    return pd.DataFrame(rows), scores


def lemma52_figure(convergence: pd.DataFrame, scores: pd.DataFrame, repetitions: int) -> Figure:
    """[MGBH26] Lemma 5.2: mean estimate against the exact score, and RMSE against m beside 1/sqrt(m)."""
    fig, axes = figures.figure(1, 2, height=9.0)
    live = scores[scores["exact"] > 0]
    axes[0].errorbar(live["exact"], live["mean"], yerr=live["ci95"], fmt="o", ms=4, capsize=2,
                     label="mean ± 95% CI (m = 4000)")
    lim = float(scores["exact"].max()) * 1.1
    axes[0].plot([0, lim], [0, lim], "k--", lw=1, label="exact score")
    axes[0].set_xlabel(r"exact $p_\ell\,\mathrm{Inf}^\mu_i(f_\ell)$")
    axes[0].set_ylabel("mean estimate")
    axes[0].set_title(f"{repetitions} estimates each")
    figures.legend(axes[0], "below")
    axes[1].loglog(convergence["m"], convergence["rmse"], "o-", label="measured RMSE")
    axes[1].loglog(convergence["m"], convergence["theory_sd"], "k--", label=r"binomial s.d. $\sqrt{s(1-s)/m}$")
    axes[1].set_xlabel("pairs per variable m")
    axes[1].set_ylabel("RMSE")
    axes[1].set_title("Error against $m$")
    axes[1].legend(loc="lower left")
    return fig


def check_lemma52(table: VerificationTable, convergence: pd.DataFrame) -> None:
    """[MGBH26] Lemma 5.2: the mean estimate sits on the exact score, with a binomial spread, and 0 where it is 0."""
    # Lemma 5.2 says the estimator's mean is the exact score: two computations of one quantity, compared
    # in standard errors; the binomial spread is the same estimator's variance, compared within a factor 2
    table.identity("Lemma 5.2", "max |z| of mean estimate vs exact score (tolerance: 4.5 standard errors)",
                   worst(convergence["max_abs_z"]), 4.5, box="lem-mgbh-5-2",
                   computed_by=(estimate_scores, analysis.leaf_statistics))
    table.identity("Lemma 5.2", "max |log2(measured variance / binomial variance s(1 − s)/m)| (tolerance: factor 2)",
                   worst(np.abs(np.log2(convergence["var_ratio"]))), 1.0, box="lem-mgbh-5-2",
                   computed_by=(estimate_scores, analysis.leaf_statistics))
    table.identity("Lemma 5.2", "estimates where the exact score is 0: share not zero",
                   1.0 - float(convergence["zero_where_exact_zero"].all()), 0.0, box="lem-mgbh-5-2",
                   computed_by=(estimate_scores, analysis.leaf_statistics))


def lemma52_glue(convergence: pd.DataFrame, bias: float) -> dict[str, float]:
    """The bias of the Lemma 5.2 experiment and its largest |z| over the pair counts, for the text."""
    return {"ch4_l52_bias": bias, "ch4_l52_maxz": float(convergence["max_abs_z"].max())}
