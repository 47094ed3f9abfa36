"""OSSS (O'Donnell–Saks–Schramm–Servedio) and [BLT20] Lemma 5.3 on random trees (stream ``ch01/osss``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns

from dtcore import analysis, bounds
from dtcore.functions import random_tree
from dtcore.validate import check_int
from ... import figures
from ...chapter import styled_table
from ...report import VerificationTable, worst
from ...sweep import grid, sweep
from .suprema import exhaustive_check

def osss_task(s: int, n: int, *, rng: np.random.Generator) -> dict[str, float]:
    """A random tree of size ``s``: its variance and influences against OSSS and [BLT20] Lemma 5.3.

    ``parseval_gap`` compares the counted variance and influences with their Fourier (Parseval) values.
    """
    tree = random_tree(n, s, rng=rng)
    f = tree.truth_table()
    inf = analysis.influences(f)
    var = analysis.variance(f)
    fourier_var, fourier_inf = analysis.fourier_variance_and_influences(f)
    return {"variance": var, "max_inf": inf.max(), "total_inf": inf.sum(),
            "parseval_gap": max(abs(var - fourier_var), float(np.abs(inf - fourier_inf).max())),
            "osss_bound": bounds.osss05_max_influence_lower(var, s),
            "lemma53_bound": bounds.blt20_lemma53_total_influence_upper(var, s)}


def osss_trees(*, sizes: Sequence[int], n: int, n_functions: int, seed: int,
               n_jobs: int | None = None) -> pd.DataFrame:
    """``n_functions`` random trees per size, the non-constant ones, with the OSSS and Lemma 5.3 ratios.

    ``osss_ratio`` = max_i Inf_i / (Var/log2 s) must be at least 1 (OSSS, used by [BLT20]);
    ``lemma53_ratio`` = Inf / (Var log2(4s/Var)) at most 1 ([BLT20] Lemma 5.3).
    """
    n, n_functions = check_int("n", n, 1, 24), check_int("n_functions", n_functions, 1)
    osss = sweep(osss_task, grid(s=list(sizes), n=[n]), repetitions=n_functions, seed=seed, key="ch01/osss",
                 n_jobs=n_jobs)
    osss = osss[osss["variance"] > 0].copy()
    osss["osss_ratio"] = osss["max_inf"] / osss["osss_bound"]
    osss["lemma53_ratio"] = osss["total_inf"] / osss["lemma53_bound"]
    return osss


def osss_tightness(osss: pd.DataFrame) -> pd.DataFrame:
    """How tight OSSS and [BLT20] Lemma 5.3 are, by tree size: min/median and max/median of the ratios."""
    return osss.groupby("s").agg(osss_min_ratio=("osss_ratio", "min"), osss_median_ratio=("osss_ratio", "median"),
                                 lemma53_max_ratio=("lemma53_ratio", "max"),
                                 lemma53_median_ratio=("lemma53_ratio", "median"))


def osss_tightness_table(osss: pd.DataFrame) -> Any:
    """:func:`osss_tightness` with readable headers and book numbering, styled."""
    shown = osss_tightness(osss).reset_index().rename(columns={
        "s": "tree size s", "osss_min_ratio": "OSSS: smallest ratio", "osss_median_ratio": "OSSS: median",
        "lemma53_max_ratio": "[BLT20] Lemma 5.3: largest ratio", "lemma53_median_ratio": "[BLT20] Lemma 5.3: median"})
    return styled_table(shown, digits=3, caption="Random trees, measured / bound by tree size ([OSSS05] Theorem 1.1 "
                        "must stay ≥ 1, [BLT20] Lemma 5.3 ≤ 1)")


def osss_measures(osss: pd.DataFrame) -> dict[str, float]:
    """The worst cases: max Parseval gap, min OSSS ratio (must be ≥ 1), max [BLT20] Lemma 5.3 ratio (≤ 1)."""
    return {"parseval_gap": worst(osss["parseval_gap"]),
            "osss_ratio": worst(osss["osss_ratio"], "min"),
            "lemma53_ratio": worst(osss["lemma53_ratio"])}


def fig_osss(osss: pd.DataFrame) -> Any:
    """The OSSS ratio (left, must be ≥ 1) and the [BLT20] Lemma 5.3 ratio (right, must be ≤ 1) by size."""
    fig, axes = figures.figure(2, height=3.1)
    sns.boxplot(data=osss, x="s", y="osss_ratio", ax=axes[0], color="C0", fliersize=2)
    axes[0].axhline(1.0, color="k", ls="--", lw=1)
    axes[0].set(xlabel="tree size s", ylabel=r"$\max_i \mathrm{Inf}_i(f)\,/\,(\mathrm{Var}(f)/\log_2 s)$")
    sns.boxplot(data=osss, x="s", y="lemma53_ratio", ax=axes[1], color="C1", fliersize=2)
    axes[1].axhline(1.0, color="k", ls="--", lw=1)
    axes[1].set(xlabel="tree size s", ylim=(0, 1.1),
                ylabel=r"$\mathrm{Inf}(f)\,/\,(\mathrm{Var}\log_2(4s/\mathrm{Var}))$")
    return fig


def osss_glue(osss: pd.DataFrame) -> dict[str, Any]:
    """The OSSS and Lemma 5.3 numbers for the text (trees, extremes, the smallest and largest size)."""
    tight = osss_tightness(osss)
    return {"ch1_osss_count": len(osss),
            "ch1_osss_min": float(osss["osss_ratio"].min()),
            "ch1_l53_max": float(osss["lemma53_ratio"].max()),
            "ch1_osss_med_large": float(tight["osss_median_ratio"].iloc[-1]),
            "ch1_s_large": int(tight.index[-1]),
            "ch1_s_small": int(tight.index[0]),
            "ch1_osss_min_small": float(tight["osss_min_ratio"].iloc[0])}


def check_osss(table: VerificationTable, osss: pd.DataFrame, suprema: pd.DataFrame) -> None:
    """The rows of OSSS and [BLT20] Lemma 5.3: exhaustive suprema, the Parseval identity, the random trees."""
    table.theorem(**exhaustive_check(suprema, "OSSS inequality"), box="thm-blt-osss")
    table.theorem(**exhaustive_check(suprema, "Lemma 5.3"), box="lem-blt-5-3")
    m = osss_measures(osss)
    table.identity("Var and Inf (BLT Sec. 2)", "max |exact − Fourier (Parseval)| over Var and every Inf_i",
                   m["parseval_gap"], 1e-12,
                   computed_by=(("dtcore.analysis.variance", "dtcore.analysis.influences"),
                                "dtcore.analysis.fourier_variance_and_influences"))
    table.observation("OSSS inequality", "min over random trees of max_i Inf_i / (Var/log s)", m["osss_ratio"], 1.0,
                      relation=">=", box="thm-blt-osss",
                      why="random instances; the exhaustive supremum above is the check")
    table.observation("Lemma 5.3", "max over random trees of Inf / (Var log(4s/Var))", m["lemma53_ratio"], 1.0,
                      box="lem-blt-5-3", why="random instances; the exhaustive supremum above is the check")
