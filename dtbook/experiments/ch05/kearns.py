"""Kearns' observation ([BDM20] Sec. 1): a parity's population gains are all 0 under the uniform
distribution and positive under an (α, c)-distribution, and what ID3 then learns from samples."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from pandas.io.formats.style import Styler

from ...chapter import styled_table

from dtcore import bounds
from dtcore.cube import ProductDistribution
from dtcore.functions import junta, junta_tree, parity_table, random_junta
from dtcore.id3 import gains, id3
from dtcore.smoothed import alpha_c_distribution, population_gain
from dtcore.tree import tree_disagreement
from ... import figures
from ...report import VerificationTable, worst
from ...sweep import grid, sweep
from .common import power_of_ten


def population_gains(*, ks: Sequence[int], alpha: float, c: float, impurity: str,
                     rng: np.random.Generator) -> pd.DataFrame:
    """Exact root gains of a k-parity: all 0 under the uniform distribution (Kearns), positive under
    an (α, c)-distribution ([BDM20] Lemmas 6 and 9). One random (α, c)-distribution per k."""
    rows = []
    for k in ks:
        t = parity_table(k)
        U = ProductDistribution.uniform(k)
        D = alpha_c_distribution(k, alpha, c, rng=rng)
        rows.append({"k": k, "max |Gain| uniform": float(np.abs(population_gain(t, U, impurity=impurity)).max()),
                     "min Gain (alpha,c)": float(population_gain(t, D, impurity=impurity).min())})
    return pd.DataFrame(rows)


def check_population_gains(table: VerificationTable, pop: pd.DataFrame, *, alpha: float, c: float,
                           beta: float) -> None:
    """Kearns: every population gain of a parity (k ≥ 2) is 0 under the uniform distribution;
    [BDM20] Lemmas 6 + 9: a relevant gain is at least β ε²/8 with Lemma 9's ε = α²(2c)^(k−1)."""
    parities = pop["k"] >= 2
    kearns_max_gain = worst(pop["max |Gain| uniform"][parities], "max") if parities.any() else 0.0
    table.identity("Kearns (uniform, parity)", "max population |Gain| over k>=2, all i (exactly 0)",
                   kearns_max_gain, 1e-12, computed_by=(population_gain, "Kearns' balance argument (0 exactly)"),
                   note="every half-cube of a parity of >= 2 bits is balanced under the uniform distribution")
    for _, r in pop.iterrows():  # Lemma 6 at the population level with Lemma 9's epsilon
        eps = bounds.bdm20_lemma9_covariance_lower(alpha, c, int(r.k))
        table.observation("Lemmas 5.4 + 5.2 (paper's 6 + 9), (alpha, c) parity", f"min population Gain of a relevant i, k={int(r.k)}",
                          r["min Gain (alpha,c)"], float(bounds.bdm20_lemma6_gain_lower(beta, eps)), relation=">=",
                          box="lem-id3-6; lem-id3-9",
                          why="random instances; the exhaustive suprema of Lemmas 5.4 and 5.2 are the check (once "
                              "Lemma 5.2 holds this follows by algebra: Gain >= 2 beta I^2 for every input)")


def kearns_task(dist: str, m: int, *, rng: np.random.Generator, n: int, k: int, alpha: float, c: float,
                impurity: str) -> dict[str, float]:
    """One ID3 run on a random k-parity under the uniform or a random (α, c)-distribution (Kearns'
    observation against [BDM20] Theorem 1): tree size, depth, rank of the best relevant root gain
    among the n root gains, and the tree's exact error."""
    if dist not in ("uniform", "(alpha,c)"):
        raise ValueError(f"dist must be 'uniform' or '(alpha,c)', got {dist!r}")
    J, t = random_junta(n, k, rng=rng, kind="parity")
    D = ProductDistribution.uniform(n) if dist == "uniform" else alpha_c_distribution(n, alpha, c, rng=rng)
    X = D.sample(m, rng=rng)
    y = junta(X, J, t)
    tree = id3(X, y, impurity=impurity).tree
    g = gains(X, y, impurity)
    rank = int((g > g[J].max()).sum()) + 1          # rank of the best relevant root gain
    return {"size": tree.size, "depth": tree.depth, "root_rank": rank,
            "error": tree_disagreement(tree, junta_tree(n, J, t), D)}


def run_kearns(*, n: int, k: int, alpha: float, c: float, impurity: str, m_grid: Sequence[int], reps: int,
               seed: int, key: str = "ch05/kearns", n_jobs: int | None = None) -> pd.DataFrame:
    """:func:`kearns_task` over both distributions × ``m_grid``, ``reps`` runs each, on the stream
    ``(seed, key)`` (``n_jobs``: see :func:`dtbook.sweep.sweep`)."""
    task = functools.partial(kearns_task, n=n, k=k, alpha=alpha, c=c, impurity=impurity)
    return sweep(task, grid(dist=["uniform", "(alpha,c)"], m=m_grid), repetitions=reps, seed=seed, key=key,
                 n_jobs=n_jobs)


def kearns_summary(kearns: pd.DataFrame) -> pd.DataFrame:
    """Mean size, error and root rank of :func:`run_kearns`'s trees per distribution and m."""
    return kearns.groupby(["dist", "m"]).agg(size=("size", "mean"), error=("error", "mean"),
                                              root_rank=("root_rank", "mean")).reset_index()


def kearns_table(summary: pd.DataFrame) -> Styler:
    """:func:`kearns_summary` for the page: readable headers, rounded numbers."""
    show = summary.rename(columns={"dist": "distribution", "m": "sample size m", "size": "mean tree size (leaves)",
                                   "error": "mean exact error", "root_rank": "rank of the best relevant root gain"})
    show["distribution"] = show["distribution"].map(DIST_TABLE_LABELS)
    return styled_table(show, digits=2, caption="ID3 on a parity of the largest k: mean tree size, exact error and the "
                                                "rank of the best relevant coordinate among the root gains")


def population_table(pop: pd.DataFrame) -> Styler:
    """:func:`population_gains` for the page: readable headers, three significant digits."""
    show = pop.rename(columns={"max |Gain| uniform": "largest |Gain| under the uniform distribution",
                               "min Gain (alpha,c)": "smallest relevant Gain under an (α, c)-distribution"})
    for col in show.columns[1:]:
        show[col] = show[col].map(power_of_ten)
    return styled_table(show, caption="Population gains: exactly 0 under the uniform distribution, bounded away from 0 "
                                      "under an (α, c)-distribution")


#: The distributions of :func:`run_kearns` as a reader reads them.
DIST_LABELS = {"uniform": "uniform", "(alpha,c)": "$(\\alpha, c)$-distribution"}
#: The same names in a table cell (MathJax typesets a page's outputs only between \\( and \\)).
DIST_TABLE_LABELS = {"uniform": "uniform", "(alpha,c)": "(α, c)-distribution"}


def kearns_figure(kearns: pd.DataFrame, *, n: int, k: int, m_grid: Sequence[int]) -> Figure:
    """Size and exact error of ID3's trees on a k-parity against m (Kearns vs [BDM20] Theorem 1)."""
    fig, axes = figures.figure(2, height=3.5)
    kearns = kearns.assign(dist=kearns["dist"].map(DIST_LABELS))
    palette = {label: figures.OKABE_ITO[i] for i, label in enumerate(DIST_LABELS.values())}
    sns.lineplot(data=kearns, x="m", y="size", hue="dist", marker="o", ax=axes[0], palette=palette)
    axes[0].plot(m_grid, m_grid, "k:", lw=1, label="size $= m$")
    axes[0].axhline(2**k, color="k", ls="--", lw=1, label=f"target size $2^{k}$")
    axes[0].set(xscale="log", yscale="log", xlabel="sample size $m$", ylabel="ID3 tree size (leaves)")
    sns.lineplot(data=kearns, x="m", y="error", hue="dist", marker="o", ax=axes[1], palette=palette)
    axes[1].axhline(0.5, color="k", ls=":", lw=1, label="coin flip")
    axes[1].set(xscale="log", xlabel="sample size $m$", ylabel="exact error $L_\\mathcal{D}(T)$")
    for ax in axes:
        figures.legend(ax, "below", ncol=2)
    fig.suptitle(f"${k}$-parity on $n = {n}$ features")
    return fig


def kearns_glue(kearns: pd.DataFrame, *, m_top: int) -> dict[str, object]:
    """Mean error, size and root rank at ``m_top`` under each distribution, by glue name."""
    u_top = kearns[(kearns.dist == "uniform") & (kearns.m == m_top)]
    a_top = kearns[(kearns.dist == "(alpha,c)") & (kearns.m == m_top)]
    return {"ch5_kearns_uniform_error": float(u_top.error.mean()),
            "ch5_kearns_uniform_size": float(u_top["size"].mean()),
            "ch5_kearns_ac_error": float(a_top.error.mean()), "ch5_kearns_ac_size": float(a_top["size"].mean()),
            "ch5_kearns_uniform_rank": float(u_top.root_rank.mean()),
            "ch5_kearns_ac_rank": float(a_top.root_rank.mean()), "ch5_m_top": m_top}
