"""[BDM20] Conjecture 3 (Sec. 1.3, book Conjecture 5.1): ID3 on depth-log n trees under smoothed
distributions, on a selector of lists of ours and on random trees of the same depth."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from dtcore.cube import ProductDistribution
from dtcore.functions import random_tree_of_depth, selector_of_lists
from dtcore.id3 import id3
from dtcore.smoothed import smoothed_distribution
from dtcore.tree import tree_disagreement
from dtcore.validate import check_int
from ... import figures
from ...report import VerificationTable
from ...sweep import grid, sweep
from .common import ZERO_ERROR, split_features


#: The two target families of the Conjecture 3 experiment.
CONJECTURE_FAMILIES = ("selector of lists (ours)", "random depth-d tree")


def conjecture3_shape(n: int) -> tuple[int, int, int, int]:
    """The selector-of-lists target for [BDM20] Conjecture 3, inside the conjecture's regime (depth
    at most log₂ n): ``(selectors, list_length, n_conj, depth)`` with depth d = ⌊log₂ n⌋ split as
    s = d − ⌊d/2⌋ selectors and L = ⌊d/2⌋ list entries (at least 1 each), on the n_conj ≥ n variables
    the tree reads (n_conj = n whenever the tree fits, as for every n ≥ 4)."""
    n = check_int("n", n, 2)
    depth = max(2, int(math.floor(math.log2(n))))
    list_length = max(1, depth // 2)
    selectors = depth - list_length
    return selectors, list_length, max(n, (2**selectors - 1) + 2**selectors * list_length), depth


def conjecture3_task(family: str, m: int, *, rng: np.random.Generator, n_conj: int, selectors: int,
                     list_length: int, depth: int, alpha: float, c: float, impurity: str) -> dict[str, object]:
    """One ID3 run on a depth-d target under a smoothed uniform distribution ([BDM20] Conjecture 3's
    setting), variables shuffled before ID3 sees them: exact error, depth, size, relevant variables."""
    if family not in CONJECTURE_FAMILIES:
        raise ValueError(f"family must be one of {CONJECTURE_FAMILIES}, got {family!r}")
    D = smoothed_distribution(0.5, alpha, c, rng=rng, n=n_conj)
    perm = rng.permutation(n_conj)
    T = selector_of_lists(n_conj, selectors, list_length) if family == CONJECTURE_FAMILIES[0] \
        else random_tree_of_depth(n_conj, depth, rng=rng)
    X = D.sample(m, rng=rng)
    Xp = X[:, perm]                       # hide the variable order from the tie-breaking
    tree = id3(Xp, T.predict(X), impurity=impurity).tree
    Tp = T.relabel_features(np.argsort(perm))   # Tp(x[perm]) = T(x)
    err = tree_disagreement(tree, Tp, ProductDistribution(D.p[perm]))
    return {"error": err, "zero_loss": err <= ZERO_ERROR, "depth": tree.depth, "size": tree.size,
            "target_relevant": int(np.unique(split_features(T)).size)}


def run_conjecture3(*, n_conj: int, selectors: int, list_length: int, depth: int, alpha: float, c: float,
                    impurity: str, m_grid: Sequence[int], reps: int, seed: int, key: str = "ch05/conjecture3",
                    n_jobs: int | None = None) -> pd.DataFrame:
    """:func:`conjecture3_task` for both :data:`CONJECTURE_FAMILIES` × ``m_grid``, max(4, reps // 2) runs each,
    on the stream ``(seed, key)``."""
    task = functools.partial(conjecture3_task, n_conj=n_conj, selectors=selectors, list_length=list_length,
                             depth=depth, alpha=alpha, c=c, impurity=impurity)
    return sweep(task, grid(family=list(CONJECTURE_FAMILIES), m=m_grid), repetitions=max(4, reps // 2), seed=seed,
                 key=key, n_jobs=n_jobs)


def conjecture3_figure(conj: pd.DataFrame, *, depth: int) -> Figure:
    """Exact error (left) and depth (right) of ID3's trees on the depth-d targets, against m."""
    fig, axes = figures.figure(2, height=4.2)
    sns.lineplot(data=conj, x="m", y="error", hue="family", marker="o", ax=axes[0], legend=False)
    axes[0].set(xscale="log", xlabel="sample size m", ylabel="exact error")
    sns.lineplot(data=conj, x="m", y="depth", hue="family", marker="o", ax=axes[1])
    axes[1].axhline(depth, color="k", ls="--", lw=1, label=f"target depth {depth}")
    axes[1].set(xscale="log", xlabel="sample size m", ylabel="ID3 tree depth")
    figures.legend(axes[1], "below", ncol=1)
    return fig


def conjecture3_glue(conj: pd.DataFrame, *, m_grid: Sequence[int], selectors: int, list_length: int, n_conj: int,
                     depth: int) -> dict[str, object]:
    """The numbers the text quotes about the Conjecture 3 experiment, by glue name."""
    sel = conj[conj.family == CONJECTURE_FAMILIES[0]]
    top = sel[sel.m == m_grid[-1]]
    prev = sel[sel.m == m_grid[-2]] if len(m_grid) > 1 else top
    rnd_top = conj[(conj.family == CONJECTURE_FAMILIES[1]) & (conj.m == m_grid[-1])]
    return {"ch5_conj_d": depth, "ch5_conj_s": selectors, "ch5_conj_L": list_length, "ch5_conj_n": n_conj,
            "ch5_conj_relevant": int(sel.target_relevant.iloc[0]),
            "ch5_conj_zero": f"{int(top.zero_loss.sum())} of {len(top)}",
            "ch5_conj_depth_range": f"{int(top.depth.min())}–{int(top.depth.max())}",
            "ch5_conj_depth_prev": float(prev.depth.mean()), "ch5_conj_depth_top": float(top.depth.mean()),
            "ch5_conj_err_top": float(top.error.mean()),
            "ch5_conj_rnd_zero": f"{int(rnd_top.zero_loss.sum())} of {len(rnd_top)}",
            "ch5_conj_rnd_depth": float(rnd_top.depth.mean()), "ch5_log2n": math.log2(n_conj)}


def check_conjecture3(table: VerificationTable, conj: pd.DataFrame, *, m_top: int, depth: int) -> None:
    """[BDM20] Conjecture 3: the zero-error fraction of the selector-of-lists runs, an observation only."""
    top = conj[(conj.family == CONJECTURE_FAMILIES[0]) & (conj.m == m_top)]
    table.observation("Conjecture 5.1 (paper's Conjecture 3)",
                      f"fraction of zero-error runs at m={m_top}, selector of lists (ours), depth {depth}",
                      float(top.zero_loss.mean()), box="conj-id3-3",
                      why="no theorem to check: a conjecture, and our target is a junta that Theorem 5.3 already covers")
