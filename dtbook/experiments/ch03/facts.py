"""[BLT21] Sec. 1.3: the chapter's stochastic target (Figure 1), its mean function, and Facts 1.1 and 1.2
on random stochastic trees.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dtcore.stochastic import bayes_optimal, error, mean_table, mean_table_by_coins, opt, random_stochastic_tree
from dtcore.tree import DecisionTree
from ... import figures
from ...report import VerificationTable, worst
from .common import positive_int
from .suprema import check_exhaustive


#: Standard deviations of the noise added to mu_T in the Fact 1.2 experiment.
FACT_NOISE_SCALES = (0.05, 0.1, 0.2, 0.4)


def target_figure(target: DecisionTree) -> Figure:
    """The chapter's random stochastic target drawn as a tree ([BLT21] Sec. 1, Figure 1)."""
    fig, ax = figures.figure(1, height=min(12.0, 0.72 * (target.depth + 1) + 0.6))
    target.draw(ax=ax, fontsize=10)
    return fig


def mean_histogram_figure(mu: np.ndarray) -> Figure:
    """Histogram of the mean function mu_T over the cube ([BLT21] Sec. 1.3; round(mu) switches at 1/2)."""
    mu = np.asarray(mu, dtype=np.float64)
    if mu.ndim != 1 or mu.size == 0:
        raise ValueError(f"mu must be a non-empty truth table (1-D), got shape {mu.shape}")
    fig, ax = figures.figure(1, height=3.0)
    ax.hist(mu, bins=np.linspace(0, 1, 41), color="C0", weights=np.full(mu.size, 1 / mu.size))
    ax.axvline(0.5, color="k", ls=":", label="round(μ) switches at 1/2")
    ax.set_xlabel(r"$\mu_T(x)$")
    ax.set_ylabel("fraction of the cube")
    ax.legend(loc="upper center")
    return fig


def target_glue(target: DecisionTree, mu: np.ndarray, *, n_stochastic: int, target_depth: int) -> dict[str, Any]:
    """The target's numbers for the text: size, coins, depth cap, opt_T ([BLT21] Fact 1.1), noisy share."""
    mu = np.asarray(mu, dtype=np.float64)
    return {"ch3_size": target.size, "ch3_coins": n_stochastic, "ch3_target_depth": target_depth,
            "ch3_opt": opt(mu), "ch3_frac_noisy": float(np.mean((mu > 0) & (mu < 1)))}


def fact_1_2_trees(*, n: int, size: int, n_stochastic: int, target_depth: int, rng: np.random.Generator,
                   n_trees: int = 40, noise_scales: Sequence[float] = FACT_NOISE_SCALES) -> pd.DataFrame:
    """[BLT21] Fact 1.2 (and Fact 1.1, Sec. 1.3) on ``n_trees`` random stochastic trees.

    For each tree, mu_T is computed twice (path products and enumeration of the coins) and opt_T
    twice (error of round(mu_T) and E min(mu_T, 1 - mu_T)); for each noise scale, h = clip(mu_T +
    noise) gives the excess of round(h) against the bound 2 E|mu_T - h|. One row per (tree, scale).
    """
    n_trees = positive_int("n_trees", n_trees)
    rows = []
    for k in range(n_trees):  # a loop over trees; each body is vectorised over the cube
        tree = random_stochastic_tree(n, size, n_stochastic, rng=rng, max_depth=target_depth)
        mu = mean_table(tree)
        coin_check = float(np.abs(mu - mean_table_by_coins(tree)).max())
        opt_check = abs(opt(mu) - float(np.minimum(mu, 1 - mu).mean()))
        for noise in noise_scales:
            h = np.clip(mu + rng.normal(0, noise, mu.size), 0, 1)
            rows.append({"tree": k, "noise": noise, "excess": error(mu, bayes_optimal(h)) - opt(mu),
                         "bound": 2 * np.abs(mu - h).mean(), "stochastic_excess": error(mu, h) - opt(mu),
                         "mu_two_ways": coin_check, "opt_two_ways": opt_check, "opt": opt(mu)})
    return pd.DataFrame(rows)


def fact_1_2_ratio(fact: pd.DataFrame) -> float:
    """The largest (error(round h) - opt) / 2 E|mu_T - h| of :func:`fact_1_2_trees` ([BLT21] Fact 1.2: <= 1)."""
    return float((fact["excess"] / fact["bound"]).max())


def fact_1_2_figure(fact: pd.DataFrame) -> Figure:
    """[BLT21] Fact 1.2: excess error of round(h) against the bound 2 E|mu_T - h|, one point per (tree, noise)."""
    import seaborn as sns

    fig, ax = figures.figure(1, height=4.5)
    sns.scatterplot(data=fact, x="bound", y="excess", hue="noise", palette="viridis", ax=ax, s=25)
    lim = fact["bound"].max() * 1.05
    ax.plot([0, lim], [0, lim], "k--", label=r"bound: $2\,E|\mu_T-h|$")
    ax.set_xlabel(r"$2\,\mathbb{E}_x|\mu_T(x)-h(x)|$")
    ax.set_ylabel(r"error(round$\circ h$) $-$ opt")
    ax.legend(title="noise scale", loc="upper left")
    return fig


def check_facts(table: VerificationTable, suprema: pd.DataFrame, fact: pd.DataFrame) -> None:
    """The rows of [BLT21] Facts 1.1 and 1.2 and the mean function (Sec. 1.3): each fact at its exhaustive
    supremum (:func:`suprema.check_exhaustive`, counted), the random trees of :func:`fact_1_2_trees` (shown),
    and the two computations of μ_T and of opt_T (identities)."""
    check_exhaustive(table, suprema, "Fact 1.1")
    check_exhaustive(table, suprema, "Fact 1.2")
    table.observation("Fact 1.2", "max over trees and noise of (error(round h) − opt) / 2E|μ_T − h|",
                      fact_1_2_ratio(fact), 1.0, box="lem-blt21-fact12",
                      why="random instances; the exhaustive supremum above is the check",
                      worst_case=f"{fact['tree'].nunique()} random stochastic trees × {fact['noise'].nunique()} "
                                 f"noise scales")
    table.identity("Sec. 1.3 (mean function)", "max |μ_T by path products − μ_T by enumerating the coins|",
                   worst(fact["mu_two_ways"]), 1e-12,
                   computed_by=("dtcore.stochastic.mean_table", "dtcore.stochastic.mean_table_by_coins"))
    table.identity("Fact 1.1", "max |error_T(round μ_T) − E_x min(μ_T, 1 − μ_T)|", worst(fact["opt_two_ways"]), 1e-12,
                   computed_by=("dtcore.stochastic.opt", "numpy: mean of min(μ_T; 1 − μ_T)"))
    table.observation("Fact 1.1", "max over stochastic h = clip(μ_T + noise) of opt / error_T(h)",
                      worst(fact["opt"] / (fact["opt"] + fact["stochastic_excess"])), 1.0,
                      why="random instances; the exhaustive supremum above is the check (here both sides also come "
                          "from dtcore.stochastic.error, opt being the error of round(μ_T))")
