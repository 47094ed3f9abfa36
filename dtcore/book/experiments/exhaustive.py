"""Experiments of the page "Every function on four variables" (book/07_every_function.ipynb).

Each function takes explicit keyword parameters and returns tidy DataFrames; the page runs them,
shows them and turns them into verification rows.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ... import bounds, exhaustive as ex
from ...audit import worst_case as wc
from ...buildtopdown import build_top_down_dt
from ...cube import ProductDistribution, all_points
from ...id3 import id3
from ...topdown import top_down
from ..figures import figure

FIXED_MEASURES: tuple[tuple[float, ...], ...] = (
    (0.5, 0.5, 0.5, 0.5), (0.3, 0.3, 0.3, 0.3), (0.1, 0.1, 0.1, 0.1), (0.05, 0.05, 0.05, 0.05),
    (0.9, 0.9, 0.9, 0.9), (0.95, 0.95, 0.95, 0.95), (0.05, 0.5, 0.5, 0.5), (0.1, 0.5, 0.5, 0.5),
    (0.9, 0.5, 0.5, 0.5), (0.1, 0.3, 0.7, 0.9), (0.05, 0.25, 0.5, 0.75), (0.02, 0.5, 0.5, 0.98),
)
"""The fixed part of the measure grid: p = 1/2, biases <= 0.1 and >= 0.9, asymmetric vectors."""


def measure_grid(*, n_random: int, rng: np.random.Generator, n: int = 4) -> list[ProductDistribution]:
    """The fixed measures plus ``n_random`` draws of p in [0.02, 0.98]^n rounded to two decimals.

    Two decimals keep every p_i an exact decimal fraction, so a violation can be rechecked in
    rational arithmetic from the printed p.
    """
    draws = np.round(rng.uniform(0.02, 0.98, size=(n_random, n)), 2)
    return [ProductDistribution(p) for p in (*FIXED_MEASURES, *draws)]


def atlas(*, measures: Sequence[ProductDistribution], alpha_c: Sequence[tuple[float, float]],
          impurity_grid: int = 2001, lemma11_draws: int = 256,
          rng: np.random.Generator | None = None) -> tuple[pd.DataFrame, dict[str, float], dict[str, float]]:
    """Every supremum: (suprema, identity deviations, CPU seconds per part).

    Violations are confirmed in rational arithmetic before they are reported. ``rng`` drives the
    Monte Carlo part of BDM20 Lemma 11 (``lemma11_draws`` draws per centre); without it that part is skipped.
    """
    seconds: dict[str, float] = {}
    tracker = wc.Tracker()
    parts = [("uniform", lambda: wc.uniform_suprema(4, tracker)),
             ("product measures", lambda: wc.product_suprema(measures, 4, tracker)),
             ("parities", lambda: wc.parity_suprema(alpha_c, 4, tracker)),
             ("impurities", lambda: wc.impurity_suprema(impurity_grid, tracker)),
             ("stochastic trees", lambda: wc.stochastic_suprema(tracker=tracker))]
    if rng is not None:
        parts.append(("smoothed juntas", lambda: wc.smoothed_suprema(alpha_c, rng=rng, draws=lemma11_draws,
                                                                     tracker=tracker)))
    for name, run in parts:
        start = time.process_time()
        run()
        seconds[name] = time.process_time() - start
    wc.first_violations(tracker)
    frame = pd.DataFrame([s.row() for s in tracker.best.values()])
    return frame, dict(tracker.deviations), seconds


def spectral_identity(*, measures: Sequence[ProductDistribution]) -> float:
    """Largest |Inf_i from the mu-biased spectrum - Inf_i from subcube statistics| over every function and measure."""
    tables = ex.all_tables(4)
    worst = 0.0
    root = ex.subcubes(4).root
    for dist in measures:  # loop over measures; every function at once
        _, spectral = ex.spectral_influences(ex.fourier_spectra(tables, dist), dist, "rerandomised")
        direct = ex.subcube_statistics(tables, dist, "rerandomised").influences[:, root]
        worst = max(worst, float(np.abs(spectral - direct).max()))
    return worst


def heuristic_sizes(*, eps_grid: Sequence[float]) -> pd.DataFrame:
    """One row per function on four variables: optimal size and depth, and each heuristic's size."""
    tables = ex.all_tables(4)
    opt = ex.optimal_trees(tables)
    out = {"function": np.arange(tables.shape[0]), "s": opt.root_size.astype(int), "D": opt.root_depth.astype(int)}
    stats = ex.subcube_statistics(tables)
    runs = ex.best_first_runs(*ex.build_top_down_scores(stats), 4, totals={"error": stats.error})
    for eps in eps_grid:
        out[f"BuildTopDownDT eps={eps:g}"] = runs.size_at("error", eps)
    for name in wc.HEURISTICS[1:]:
        out[name] = wc.heuristic_sizes(tables, name)
    return pd.DataFrame(out)


def heuristic_summary(sizes: pd.DataFrame) -> pd.DataFrame:
    """Per heuristic: worst size / optimal size, its witness, functions learned at optimal size."""
    rows = []
    learned = sizes[sizes["s"] > 1]
    for col in sizes.columns[3:]:
        ratio = learned[col] / learned["s"]
        k = int(ratio.to_numpy().argmax())
        witness = learned.iloc[k]
        eps = float(col.split("=")[1]) if "eps=" in col else None
        rows.append({"heuristic": col, "worst ratio": float(ratio.iloc[k]), "witness": format(int(witness["function"]), "04x"),
                     "size": int(witness[col]), "optimal size": int(witness["s"]),
                     "optimal count": int((sizes[col] == sizes["s"]).sum()), "functions": len(sizes),
                     "mean ratio": float(ratio.mean()),
                     "Theorem 3 bound": (bounds.blt20_theorem3_size_bound(max(int(witness["s"]), 2), eps)
                                         if eps is not None else np.nan)})
    return pd.DataFrame(rows)


def learner_agreement(sizes: pd.DataFrame, functions: Sequence[int], eps_grid: Sequence[float]) -> int:
    """Largest |lock-step size - single-function learner's size| over ``functions`` and every heuristic."""
    tables = ex.all_tables(4)
    X = all_points(4)
    worst = 0
    for f in functions:  # the single-function learners, one function at a time
        row = sizes.iloc[int(f)]
        t = tables[int(f)]
        found = {f"BuildTopDownDT eps={e:g}": build_top_down_dt(t, eps=e).tree.size for e in eps_grid}
        for imp in ("gini", "entropy"):
            found[f"TopDown_G {imp}"] = top_down(X, t, size=16, impurity=imp).tree.size
            found[f"ID3 {imp}"] = id3(X, t, impurity=imp).tree.size
        worst = max(worst, max(abs(int(row[k]) - v) for k, v in found.items()))
    return worst


def local_searches(*, ns: Sequence[int], heuristics: Sequence[str], budget: int, restarts: int,
                   extremal: dict[str, int], rng: np.random.Generator) -> pd.DataFrame:
    """Hill climbing past n = 4 from the n = 4 extremal functions lifted and random restarts."""
    tables = ex.all_tables(4)
    rows = []
    for n in ns:
        for h in heuristics:
            start = time.process_time()
            lifted = np.concatenate([wc.lift(tables[[extremal[h]]], n, onto) for onto in ("last", "first")])
            res = wc.local_search(n, h, lifted, rng=rng, budget=budget, restarts=restarts)
            rows.append({"n": n, "heuristic": h, "worst ratio found": res.ratio, "size": res.size,
                         "optimal size": res.optimum, "evaluations": res.evaluations,
                         "table": "".join(map(str, res.table[::-1])), "cpu seconds": time.process_time() - start})
    return pd.DataFrame(rows)


def draw_witnesses(witnesses: Sequence[tuple[str, int]]):
    """A figure with the minimum-size tree of each witness function (title: its label)."""
    fig, axes = figure(len(witnesses), 1, height=2.8)
    axes = np.atleast_1d(axes)
    tables = ex.all_tables(4)
    for ax, (label, f) in zip(axes, witnesses):
        ex.optimal_tree(tables[f]).draw(ax=ax, fontsize=9)
        ax.set_title(label, fontsize=10)
    return fig
