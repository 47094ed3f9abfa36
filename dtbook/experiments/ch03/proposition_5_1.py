"""[BLT21] Proposition 5.1 (Sec. 5): a stochastic tree cut at ⌈log2(s/ε)⌉ queries has degree at most that
and differs from the target on at most an ε share of the cube.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dtcore.analysis import walsh_hadamard
from dtcore.cube import all_points
from dtcore.stochastic import mean_table, random_stochastic_tree, truncate_deterministic_depth
from ... import figures
from ...report import VerificationTable, worst
from .common import positive_int, theorem_or_observation


def proposition_5_1(*, n: int, size: int, rng: np.random.Generator, trials: int = 8,
                    eps_grid: Sequence[float] = (0.5, 0.25, 0.125)) -> tuple[pd.DataFrame, pd.DataFrame]:
    """[BLT21] Proposition 5.1 on random stochastic trees of sizes s, 2s, 4s (``trials`` each).

    For each tree and ε, the tree cut at k = ceil(log2(s/ε)) queries: its largest Fourier coefficient
    above level k, the share of the cube where its mean differs from mu_T, and its range; and, the row's
    power, ``disagree_half``: the same share for the tree cut after only ⌊k/2⌋ queries (a cut too shallow for
    the proposition). Returns that frame and the Fourier weight of mu_T per level (one block per tree).
    """
    trials = positive_int("trials", trials)
    level = all_points(n).sum(axis=1, dtype=np.int64)   # |S| of every subset bitmask S
    rows, spectra = [], []
    for s in sorted({size, 2 * size, 4 * size}):
        for _ in range(trials):
            tree = random_stochastic_tree(n, s, max(1, s // 4), rng=rng)
            mu = mean_table(tree)
            for eps in eps_grid:
                k = math.ceil(math.log2(s / eps))
                mu_cut = mean_table(truncate_deterministic_depth(tree, k))
                coef = walsh_hadamard(mu_cut)
                mu_half = mean_table(truncate_deterministic_depth(tree, k // 2))
                rows.append({"s": s, "eps": eps, "k": k,
                             "max_coef_above_k": float(np.abs(coef[level > k]).max(initial=0.0)),
                             "disagree": float(np.mean(~np.isclose(mu_cut, mu))),
                             "disagree_half": float(np.mean(~np.isclose(mu_half, mu))),
                             "min": float(mu_cut.min()), "max": float(mu_cut.max())})
            weight = np.bincount(level, weights=walsh_hadamard(mu) ** 2, minlength=n + 1)
            spectra.append(pd.DataFrame({"s": s, "level": np.arange(n + 1), "weight": weight}))
    return pd.DataFrame(rows), pd.concat(spectra)


def proposition_5_1_worst(prop: pd.DataFrame, column: str = "disagree") -> float:
    """The largest Pr[mu_T' != mu_T] / ε of :func:`proposition_5_1` ([BLT21] Proposition 5.1: <= 1); ``column``
    ``"disagree_half"`` for the trees cut after ⌊k/2⌋ queries (the row's worse output)."""
    if column not in ("disagree", "disagree_half"):
        raise ValueError(f"column must be 'disagree' or 'disagree_half', got {column!r}")
    return float((prop[column] / prop["eps"]).max())


def proposition_5_1_figure(prop: pd.DataFrame, spectrum: pd.DataFrame) -> Figure:
    """[BLT21] Proposition 5.1: the Fourier weight of mu_T per level (left) and Pr[mu_T' != mu_T] / ε (right)."""
    import seaborn as sns

    fig, axes = figures.figure(2, height=4.2)
    sns.lineplot(data=spectrum[spectrum.level > 0], x="level", y="weight", hue="s", marker="o", ax=axes[0],
                 palette="crest")
    axes[0].set_yscale("log")
    axes[0].set_ylim(1e-8, 2)   # weights below 1e-8 are rounding noise of exact zeros
    axes[0].set_xlabel("level |S|")
    axes[0].set_ylabel(r"$\sum_{|S|=j}\hat\mu_T(S)^2$")
    axes[0].set_title(r"Spectrum of $\mu_T$")
    axes[0].legend(title="size s", ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    ratio = prop.assign(ratio=(prop["disagree"] / prop["eps"]).clip(lower=1e-3))
    sns.stripplot(data=ratio, x="eps", y="ratio", hue="s", dodge=True, ax=axes[1], palette="crest", legend=False)
    axes[1].axhline(1.0, color="k", ls="--", label="bound")
    axes[1].set_yscale("log")
    axes[1].set_xlabel("ε")
    axes[1].set_ylabel(r"$\Pr_x[\mu_{T'} \neq \mu_T]\,/\,\varepsilon$ (≥ 0.001)")
    axes[1].set_title(r"$T'$ cut at $\lceil\log_2(s/\varepsilon)\rceil$")
    axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)   # below the axes, not over the points
    return fig


def check_proposition_5_1(table: VerificationTable, prop: pd.DataFrame) -> None:
    """The rows of [BLT21] Proposition 5.1 on the trees of :func:`proposition_5_1`: the cut tree's Fourier degree,
    its disagreement with μ_T against ε, and its range."""
    # a tree cut at k queries is a polynomial of degree ≤ k by construction: the row guards the cut and the transform
    table.identity("Proposition 5.1", "max |Fourier coefficient of μ_T' above level k| (0 for a tree cut at k queries)",
                   worst(prop["max_coef_above_k"]), 1e-12, box="prop-blt21-5-1",
                   computed_by=("dtcore.stochastic.truncate_deterministic_depth",
                                "dtcore.analysis.walsh_hadamard (the cut tree's spectrum)"))
    half = proposition_5_1_worst(prop, "disagree_half")
    theorem_or_observation(table, "Proposition 5.1", "max over (s, ε) of Pr[μ_T' ≠ μ_T] / ε",
                           proposition_5_1_worst(prop), 1.0, reach=(0.0, 1.0 / prop["eps"].min()),
                           box="prop-blt21-5-1",
                           measured_by="dtcore.stochastic.truncate_deterministic_depth, dtcore.stochastic.mean_table",
                           bound_by="the proposition's ε with k = ⌈log2(s/ε)⌉",
                           worst_case=f"{len(prop)} (tree, ε) pairs: random trees of sizes s, 2s and 4s",
                           fails_under=("each tree cut after ⌊k/2⌋ queries, half the proposition's depth", half),
                           why="1/ε is at most 1 here, the largest ratio there is",
                           why_no_power=f"even the trees cut after ⌊k/2⌋ queries differ from μ_T on at most {half:.3f}·ε "
                                        f"of the cube: these trees are too shallow for any cut we can name to fail the row")
    table.observation("Proposition 5.1", "largest excursion of μ_T' outside [0, 1]",
                      max(0.0, -worst(prop["min"], "min"), worst(prop["max"]) - 1.0), box="prop-blt21-5-1",
                      why="mean_table clips rounding-sized excursions and raises on larger ones, so this is 0 whenever "
                          "the chapter runs")
