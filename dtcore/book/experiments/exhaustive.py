"""Experiments of the page "Every function on four variables" (book/07_every_function.ipynb).

Each function takes explicit keyword parameters and returns tidy DataFrames; the page runs them,
shows them and turns them into verification rows.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction

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


# --- the atlas as verification rows ------------------------------------------------------------

_STATS = "dtcore.exhaustive.SubcubeStatistics"
_INFLUENCES, _ERROR, _VARIANCE, _COST = (f"{_STATS}.influences", f"{_STATS}.error", f"{_STATS}.variance",
                                         f"{_STATS}.cost")
_SCORES = "dtcore.exhaustive.build_top_down_scores"
_OPTIMUM = "dtcore.exhaustive.optimal_trees"
_AVG_DEPTH = "dtcore.exhaustive.minimum_average_depth_by_cap"
_GAIN = "dtcore.impurity.get_impurity"  # the gains are impurity differences of the subcube means

ATLAS_PROVENANCE: dict[tuple[str, str | None], tuple[str, str]] = {
    ("OSSS inequality", None): (_INFLUENCES, f"dtcore.bounds.osss05_max_influence_lower, {_OPTIMUM}, "
                                             "dtcore.exhaustive.minimum_average_depth"),
    ("Lemma 5.3", None): (_INFLUENCES, f"dtcore.bounds.blt20_lemma53_total_influence_upper, {_OPTIMUM}"),
    ("Lemma 5.1(1)", None): (_ERROR, _COST),
    ("Lemma 4.1", None): (_ERROR, _COST),
    ("Lemma 5.2", None): (_SCORES, f"dtcore.bounds.blt20_lemma52_score_lower, dtcore.exhaustive.best_first_runs"),
    ("Lemma 5.4", None): (_SCORES, f"dtcore.bounds.blt20_lemma54_score_lower, dtcore.exhaustive.best_first_runs"),
    ("Lemma C.1", None): (_INFLUENCES, f"dtcore.bounds.mgbh26_lemma_c1_max_influence_lower, {_AVG_DEPTH}"),
    ("Lemma C.2", "first inequality"): (_INFLUENCES, _ERROR),
    ("Lemma C.2", "second inequality"): (_ERROR, _VARIANCE),
    ("Lemma 4.2", None): (_INFLUENCES, f"{_VARIANCE}, {_OPTIMUM}, {_AVG_DEPTH}"),
    ("Lemma 4.4", None): (_SCORES, f"dtcore.bounds.mgbh26_lemma44_score_lower, {_AVG_DEPTH}, {_OPTIMUM}"),
    ("Lemma 4.5", None): (_SCORES, f"dtcore.bounds.mgbh26_lemma45_score_lower, {_AVG_DEPTH}, {_OPTIMUM}"),
    ("Lemma 5", None): (_GAIN, "dtcore.bounds.bdm20_lemma5_gain_upper, dtcore.impurity.lipschitz_constant"),
    ("Lemma 6", None): (_GAIN, "dtcore.bounds.bdm20_lemma6_gain_lower, dtcore.impurity.strong_concavity"),
    ("Lemma 9", None): ("dtcore.exhaustive.subcube_statistics", "dtcore.bounds.bdm20_lemma9_covariance_lower"),
    ("Definition 3", None): ("dtcore.audit.worst_case.impurity_suprema", "dtcore.impurity.lipschitz_constant"),
    ("Definition 4", None): ("dtcore.audit.worst_case.impurity_suprema", "dtcore.impurity.strong_concavity"),
}
"""What computed each side of an atlas ratio, by (result, form) or (result, None) for every form."""

ATLAS_BOXES: dict[str, str] = {
    "OSSS inequality": "thm-blt-osss", "Lemma 5.1(1)": "lem-blt-5-1", "Lemma 5.2": "lem-blt-5-2",
    "Lemma 5.3": "lem-blt-5-3", "Lemma 5.4": "lem-blt-5-4", "Lemma C.1": "lem-mgbh-c-1", "Lemma C.2": "lem-mgbh-c-2",
    "Lemma 4.1": "lem-mgbh-4-1", "Lemma 4.2": "lem-mgbh-4-2", "Lemma 4.3": "lem-mgbh-4-3", "Lemma 4.4": "lem-mgbh-4-4",
    "Lemma 4.5": "lem-mgbh-4-5", "Lemma 5": "lem-id3-5", "Lemma 6": "lem-id3-6", "Lemma 9": "lem-id3-9",
    "Lemma 11": "lem-id3-11", "Fact 1.2": "lem-blt21-fact12", "Lemma 2.1": "lem-blt21-2-1",
}
"""The book box (in chapters 1–5) that states each result the atlas evaluates."""

ALGEBRAIC_EQUALITIES: dict[tuple[str, str], str] = {
    ("Lemma 6", "gini, proof's step (beta I^2 / (2 p(1-p)))"):
        "for Gini the gain equals 4 I² / (p(1 − p)) = β I² / (2 p(1 − p)) by algebra, for every input",
}
"""Atlas rows that hold with equality for every input: shown, never counted."""

RATIO_REACH_WHY = ("a supremum of measured / bound over every function: where the bound side is small the ratio "
                   "has no finite reach")


def atlas_provenance(result: str, form: str) -> tuple[str, str]:
    """(measured_by, bound_by) of an atlas row: the computations whose fault would move each side."""
    found = ATLAS_PROVENANCE.get((result, form)) or ATLAS_PROVENANCE.get((result, None))
    if found is None:
        raise ValueError(f"result must be one the atlas knows, got {result!r} ({form!r})")
    return found


def atlas_rows(table, atlas_frame: pd.DataFrame, *, known_equalities: set[tuple[str, str]],
               own_rows: set[str]) -> None:
    """Turn each atlas supremum into verification rows of ``table`` (a :class:`VerificationTable`).

    A supremum above 1, confirmed exactly, is a counterexample; otherwise a theorem row (the
    supremum of measured/bound must stay at or below 1), plus an identity pinning the attainment
    where the bound is attained or known by hand to be (a bound loosened by a constant would no
    longer be attained). Results in ``own_rows`` are written by the page itself.
    """
    tight = wc.TIGHT_TOLERANCE
    for r in atlas_frame[~atlas_frame["result"].isin(own_rows)].itertuples():
        name = f"[{r.paper}] {r.result} ({r.form})"
        where = f"sup over every function, witness {r.table}, μ = {r.measure}"
        box = ATLAS_BOXES.get(r.result, "")
        if r.verdict == "violated":
            table.counterexample(name, f"{r.statement}: exact measured/bound", float(Fraction(r.exact_ratio)), 1.0,
                                 relation="<=", reach=(0.0, float("inf")), worst_case=where, box=box)
            continue
        algebra = ALGEBRAIC_EQUALITIES.get((r.result, r.form))
        if algebra:
            table.observation(name, f"{r.statement}: sup of measured / bound", r.sup_ratio, 1.0, why=algebra,
                              worst_case=where, box=box)
            continue
        measured_by, bound_by = atlas_provenance(r.result, r.form)
        table.theorem(name, f"{r.statement}: sup of measured / bound", r.sup_ratio, 1.0,
                      reach=(0.0, float("inf")), reach_why=RATIO_REACH_WHY, measured_by=measured_by,
                      bound_by=bound_by, worst_case=where, box=box, tolerance=tight)
        if r.verdict == "tight" or (r.result, r.form) in known_equalities:
            table.identity(name, "|1 − sup of measured / bound|: the bound is attained on n ≤ 4",
                           abs(1.0 - r.sup_ratio), tight, computed_by=(measured_by, bound_by),
                           worst_case=where, box=box)
