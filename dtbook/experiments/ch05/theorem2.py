"""[BDM20] Theorem 2 (with its quantitative form, Theorem 12; book Theorem 5.3): ID3 on random
k-juntas under smoothed (α, c)-distributions, the zero-error rate over k, c and the smoothing
centre, and the sample size Theorem 12 asks for."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from dtcore import bounds
from dtcore.functions import junta, junta_tree, random_junta
from dtcore.id3 import id3
from dtcore.smoothed import lemma4_hypotheses, smoothed_distribution, smoothing_centre
from dtcore.tree import tree_disagreement
from ... import figures
from ...report import VerificationTable
from ...sweep import sweep
from .common import ZERO_ERROR, m_at, not_applicable, power_of_ten, split_features


def theorem2_task(panel: str, centre: str, k: int, cc: float, m: int, *, rng: np.random.Generator, n: int,
                  alpha: float, impurity: str) -> dict[str, object]:
    """One ID3 run of [BDM20] Theorem 2: a random k-junta under a smoothing of width ``cc`` around a
    centre of the given kind; exact error, depth and Lemma 4's hypotheses."""
    J, t = random_junta(n, k, rng=rng)
    D = smoothed_distribution(smoothing_centre(n, alpha, cc, centre, rng=rng), alpha, cc, rng=rng)
    X = D.sample(m, rng=rng)
    tree = id3(X, junta(X, J, t), impurity=impurity).tree
    err = tree_disagreement(tree, junta_tree(n, J, t), D)
    only_relevant, covered = lemma4_hypotheses(split_features(tree), X, J)
    return {"error": err, "zero_loss": err <= ZERO_ERROR, "depth": tree.depth, "only_relevant": only_relevant,
            "cells_covered": covered}


def theorem2_points(*, ks: Sequence[int], c: float, cs: Sequence[float],
                    m_grid: Sequence[int]) -> list[dict[str, object]]:
    """The three panels of the Theorem 2 grid: k and c (centre 1/2), and the centre (random, edge)."""
    k_max = ks[-1]
    return ([dict(panel="k", centre="1/2", k=k, cc=c, m=m) for k in ks for m in m_grid]
            + [dict(panel="c", centre="1/2", k=k_max, cc=cc, m=m) for cc in cs for m in m_grid]
            + [dict(panel="centre", centre=ce, k=k_max, cc=c, m=m) for ce in ("random", "edge") for m in m_grid])


def run_theorem2(*, ks: Sequence[int], n: int, alpha: float, c: float, cs: Sequence[float], m_grid: Sequence[int],
                 reps: int, impurity: str, seed: int, key: str = "ch05/theorem2",
                 n_jobs: int | None = None) -> pd.DataFrame:
    """:func:`theorem2_task` over :func:`theorem2_points`, ``reps`` runs each, on the stream ``(seed, key)``."""
    task = functools.partial(theorem2_task, n=n, alpha=alpha, impurity=impurity)
    return sweep(task, theorem2_points(ks=ks, c=c, cs=cs, m_grid=m_grid), repetitions=reps, seed=seed,
                 key=key, n_jobs=n_jobs)


def theorem2_figure(rate2: pd.DataFrame, *, c: float, k_max: int) -> Figure:
    """[BDM20] Theorem 2: zero-error rate (Pr[zero error]) over k × m (left) and c × m (right), centre 1/2."""
    fig, axes = figures.figure(2, height=3.5)
    for ax, panel, row in zip(axes, ["k", "c"], ["k", "cc"]):
        h = rate2[rate2.panel == panel].pivot_table(index=row, columns="m", values="zero_loss")
        # every cell is annotated with its rate, so no colour bar
        sns.heatmap(h, annot=True, fmt=".2f", vmin=0, vmax=1, cmap="viridis", ax=ax, annot_kws={"fontsize": 9},
                    cbar=False)
        ax.set(xlabel="sample size m", ylabel="junta size k" if panel == "k" else "smoothing width c",
               title=f"centre 1/2, {'c = ' + str(c) if panel == 'k' else 'k = ' + str(k_max)}")
    return fig


def centre_rates(rate2: pd.DataFrame, *, k_max: int) -> pd.DataFrame:
    """Zero-error rates at the largest k for the centres 1/2 (k panel), random and edge."""
    return pd.concat([rate2[(rate2.panel == "k") & (rate2.k == k_max)], rate2[rate2.panel == "centre"]])


def centres_figure(centres: pd.DataFrame, *, c: float, k_max: int) -> Figure:
    """[BDM20] Theorem 2 for three kinds of smoothing centre: zero-error rate against m."""
    fig, ax = figures.figure(1, height=3.6)
    sns.lineplot(data=centres, x="m", y="zero_loss", hue="centre", marker="o", ax=ax)
    ax.axhline(0.9, color="k", ls=":", lw=1)
    ax.set(xscale="log", xlabel="sample size m", ylabel="Pr[zero error]", title=f"random {k_max}-juntas, c = {c}")
    ax.legend(title="centre $\\hat p$", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def centres_glue(centres: pd.DataFrame, *, reps: int, grid_size: int) -> dict[str, object]:
    """Mean zero-error rate per centre, the hardest centre, the spread between centres against the
    binomial standard error of one mean over ``reps × grid_size`` runs, and a verdict in words."""
    mean_rate = centres.groupby("centre").zero_loss.mean()
    hardest = str(mean_rate.idxmin())
    spread = float(mean_rate.max() - mean_rate.min())
    centre_sd = float(np.sqrt(0.25 / (reps * grid_size)))   # binomial sd of one mean, at its largest
    separated = spread > 3 * np.sqrt(2) * centre_sd            # three standard errors of a difference
    verdict = ("larger than three standard errors of a difference, so the centres do differ at this scale" if separated
               else "within three standard errors of a difference, so the data do not separate the centres")
    return {"ch5_hardest_centre": "1/2" if hardest == "1/2" else hardest,
            "ch5_centre_half": float(mean_rate.loc["1/2"]), "ch5_centre_random": float(mean_rate.loc["random"]),
            "ch5_centre_edge": float(mean_rate.loc["edge"]), "ch5_centre_spread": spread, "ch5_centre_sd": centre_sd,
            "ch5_centre_verdict": verdict}


#: The column of :func:`theorem12_samples` with the proof's own constant: Lemma 5.6 at δ1/3^k on each of
#: the 3^k paths (a union bound), then Theorem 5.2.
THEOREM12_UNION = "proof's union bound over 3ᵏ paths (paper's Theorem 12)"


def theorem12_samples(rate2: pd.DataFrame, *, ks: Sequence[int], beta: float, gamma: float, alpha: float, c: float,
                      n: int) -> pd.DataFrame:
    """Per k: the m at which 90% of the runs are exact, and [BDM20] Theorem 5.3's sample size (B = 1,
    δ1 = δ2 = 0.05)."""
    rows = []
    for k in ks:
        rows.append({"k": k, "m90 (in the grid)": m_at(rate2[(rate2.panel == "k") & (rate2.k == k)]),
                     "Theorem 5.3 as printed, B = 1 (paper's Theorem 12)": bounds.bdm20_theorem12_samples(beta, gamma, alpha, c, k,
                                                                                            n, 0.05, 0.05),
                     THEOREM12_UNION: bounds.bdm20_theorem12_union_samples(beta, gamma, alpha, c, k, n, 0.05, 0.05)})
    return pd.DataFrame(rows)


def check_theorem2(table: VerificationTable, thm12: pd.DataFrame, *, gamma: float, impurity: str,
                   m_max: int, m_min: float = 1.0) -> None:
    """[BDM20] Theorem 2 (paper Thm 12): 90% exact runs within the grid per k; Theorem 5.3's sample size
    as an observation."""
    for _, row in thm12.iterrows():
        k, m90 = int(row.k), row["m90 (in the grid)"]
        table.observation("Theorem 5.3 (paper's Theorems 2, 12)",
                          f"m at which 90% of runs reach zero error, random {k}-juntas, centre 1/2"
                          if math.isfinite(m90) else
                          f"largest m of the grid, where fewer than 90% of runs reach zero error, random {k}-juntas",
                          m90 if math.isfinite(m90) else float(m_max), float(m_max), box="thm-id3-2",
                          why="an illustration: random members of the class, not its hardest, against the grid's "
                              "largest m (a bound of ours, not the paper's)")
        if not math.isfinite(m90):
            continue                     # no m90 to set against the theorem's sample size
        if math.isfinite(gamma):
            union = row[THEOREM12_UNION]
            table.observation("Theorem 5.3 (paper's Theorems 2, 12)", f"m90 against Theorem 5.3's printed sample size "
                              f"with B = 1, k={k}", m90, row["Theorem 5.3 as printed, B = 1 (paper's Theorem 12)"],
                              box="thm-id3-2",
                              why=f"the bound exceeds every sample size we can draw; B = 1 is ours: the proof's union "
                                  f"bound over the 3^k paths gives {power_of_ten(union)} (B = 6^8 = 1.68·10⁶ with a factor 1/16, in effect); the margin "
                                  "column is the ratio")
        else:
            not_applicable(table, "Theorem 5.3 (paper's Theorems 2, 12)", f"m90 against Theorem 5.3's sample size (B=1), k={k}",
                           "thm-id3-2", impurity=impurity)


def theorem2_glue(rate2: pd.DataFrame, *, ks: Sequence[int], cs: Sequence[float], m_top: int) -> dict[str, object]:
    """Zero-error rates at ``m_top`` for the smallest and largest k and the smallest c, by glue name."""
    top2 = rate2[(rate2.panel == "k") & (rate2.m == m_top)].set_index("k").zero_loss
    cmin = rate2[(rate2.panel == "c") & (rate2.m == m_top)].set_index("cc").zero_loss
    return {"ch5_thm2_success_kmax": float(top2.loc[ks[-1]]), "ch5_thm2_success_kmin": float(top2.loc[ks[0]]),
            "ch5_thm2_success_cmin": float(cmin.iloc[0]), "ch5_cmin": cs[0]}


def theorem12_glue(thm12: pd.DataFrame, *, k_max: int) -> dict[str, str]:
    """Theorem 5.3's two sample sizes at the largest k: as printed with B = 1 and as its proof's union
    bound over the 3^k paths gives it, as text."""
    row = thm12[thm12.k == k_max].iloc[0]
    return {"ch5_thm12_printed_kmax": power_of_ten(float(row["Theorem 5.3 as printed, B = 1 (paper's Theorem 12)"])),
            "ch5_thm12_union_kmax": power_of_ten(float(row[THEOREM12_UNION]))}
