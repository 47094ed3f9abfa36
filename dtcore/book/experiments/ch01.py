"""Chapter 1's experiments: BuildTopDownDT's guarantees and limitations (Blanc, Lange and Tan 2020, [BLT20]).

Every function takes its sizes as keyword parameters and returns data (DataFrames, dicts of
measured values or of glue values) or a figure; the notebook ``book/01_top_down_guarantees.ipynb``
runs them, shows the figures through :func:`dtcore.book.figures.show`, states the verification rows
and glues the numbers into its text. Every target is a truth table, so every error, cost and
influence below is exact. Every random draw comes from its experiment's stream (:mod:`dtcore.book.seeds`),
keyed by ``(seed, "ch01/<experiment>")``: lemma51, osss, lemma_runs (and lemma_runs_fixed for the
families that draw nothing), theorem3 and theorem3_corner.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from typing import Any

import matplotlib.ticker
import numpy as np
import pandas as pd
import seaborn as sns

from ... import analysis, bounds, exhaustive
from ...audit import replay, worst_case
from ...buildtopdown import build_top_down_dt
from ...cube import truth_table
from ...functions import (address, decoy_selector_parity, decoy_selector_parity_size, decoy_selector_parity_tree,
                          nested_decoy_parity, nested_decoy_parity_size, parity, random_tree, random_tree_of_depth)
from ...grow import GrowthResult
from ...tree import DecisionTree
from ...validate import check_int, check_real
from .. import figures, seeds
from ..report import worst
from ..sweep import grid, sweep

#: Kinds of random function of the Lemma 5.1 check.
LEMMA51_KINDS = ("random table", "random tree", "sparse")
#: Target families with an explicit tree of size s (Theorem 3, Lemmas 5.2 and 5.4).
THEOREM3_FAMILIES = ("random tree", "complete random tree", "parity", "multiplexer")
#: The constant errors of the decoy-selector family.
CONSTANT_EPS = (0.1, 0.05)
#: Block lengths k of both decoy families.
DECOY_BLOCKS = (1, 2, 3)


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def small_number_text(value: float) -> str:
    """A deviation for the prose: "exactly" when it is 0, else "to within 2.2 × 10⁻¹⁶" (no e-notation)."""
    if value == 0:
        return "exactly"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"to within {mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPTS)}"


def _glue_key(label: str) -> str:
    return label.replace(" ", "_")


# --- a traced run --------------------------------------------------------------------------------

def traced_run(eps: float, n: int = 6) -> tuple[GrowthResult, np.ndarray]:
    """BuildTopDownDT ([BLT20] Sec. 3) on the 2-address multiplexer of ``n`` variables: ``(run, f)``."""
    f = truth_table(lambda X: address(X, 2), n)
    return build_top_down_dt(f, eps=eps), f


def trace_table(trace: pd.DataFrame) -> Any:
    """The run's trace as a styled table; the last row is the returned tree, with no split ("—")."""
    shown = trace[["step", "leaves", "cost", "error", "feature", "score", "depth"]].copy()
    split = shown["feature"] >= 0  # the final row records the stop, not a split: its feature is -1
    shown["feature"] = [f"x{int(i)}" if ok else None for i, ok in zip(shown["feature"], split)]
    shown.loc[~split, ["score", "depth"]] = np.nan
    shown = shown.rename(columns={"leaves": "leaves before", "feature": "split on", "score": "score of the split",
                                  "depth": "depth of the split leaf"})
    return (shown.style.format({"cost": "{:.4f}", "error": "{:.4f}", "score of the split": "{:.4f}",
                                "depth of the split leaf": "{:.0f}"}, na_rep="—").hide(axis="index")
            .set_caption("BuildTopDownDT on the 2-address multiplexer, step by step"))


def fig_trace_tree(tree: DecisionTree) -> Any:
    """The tree BuildTopDownDT returns on the multiplexer."""
    fig, ax = figures.figure(1, height=3.2)
    tree.draw(ax=ax, fontsize=12)
    return fig


def fig_trace_cost(trace: pd.DataFrame, eps: float) -> Any:
    """Cost and error of the f-completion along the run: [BLT20] Lemma 5.1 in one picture."""
    fig, ax = figures.figure(1, height=3.4)
    ax.step(trace["leaves"], trace["cost"], where="post", label=r"cost$_f(T^\circ)$", lw=2)
    ax.step(trace["leaves"], trace["error"], where="post", label=r"error of the $f$-completion", lw=2)
    ax.axhline(eps, color="k", ls=":", label=f"ε = {eps}")
    ax.set_xlabel("number of leaves")
    ax.set_ylabel("cost, error")
    ax.legend(loc="upper right")
    return fig


def trace_glue(run: GrowthResult, f: np.ndarray) -> dict[str, Any]:
    """The traced run's numbers for the text: its size, first two splits and exactness."""
    first_features = run.trace["feature"].iloc[:2].tolist()
    exact = np.array_equal(run.tree.truth_table(), f)
    return {"ch1_trace_size": run.tree.size,
            "ch1_trace_first": ", ".join(f"x{int(i)}" for i in first_features),
            "ch1_trace_exact": "computes the multiplexer exactly" if exact else "approximates the multiplexer"}


# --- Lemma 5.1: the cost potential ---------------------------------------------------------------

def lemma51_task(rng: np.random.Generator, kind: str, n: int) -> dict[str, float]:
    """One random function-bare tree pair and one random split: [BLT20] Lemma 5.1 (1) and (2).

    ``kind`` is a random table with a random bias, a random tree of 2 to 64 leaves, or a sparse
    function (1 to 8 ones). Returns the error of the completion (measured on every point), the cost,
    the measured drop in cost after a random split of a random leaf, and its predicted score.
    """
    if kind == "random table":
        f = (rng.random(2**n) < rng.uniform(0.05, 0.95)).astype(np.uint8)
    elif kind == "random tree":
        f = random_tree(n, int(rng.integers(2, 65)), rng=rng).truth_table()
    elif kind == "sparse":  # a few ones
        f = np.zeros(2**n, dtype=np.uint8)
        f[rng.choice(2**n, size=int(rng.integers(1, 9)), replace=False)] = 1
    else:
        raise ValueError(f"kind must be one of {list(LEMMA51_KINDS)}, got {kind!r}")
    bare = random_tree(n, int(rng.integers(1, 25)), rng=rng, max_depth=n - 1)  # every leaf keeps a free variable
    before = analysis.leaf_statistics(bare, f)
    leaf_pos = int(rng.integers(bare.size))
    free = np.flatnonzero(bare.leaf_restrictions()[leaf_pos] < 0)
    feature = int(rng.choice(free))
    drop, score = analysis.split_cost_drop(bare, f, leaf_pos, feature)
    # the same score a second way: cut f_l out of the table and count its flip influences edge by edge
    # (analysis.influences), not through the ExactMeasure that computed the costs
    restriction = bare.leaf_restrictions()[leaf_pos]
    fixed = {int(i): int(b) for i, b in enumerate(restriction) if b >= 0}
    sub, sub_free = analysis.restrict(f, fixed)
    score_direct = 2.0 ** -len(fixed) * float(analysis.influences(sub)[sub_free.index(feature)])
    error = float(np.mean(analysis.complete(bare, f).truth_table() != f))  # measured on the completed tree
    return {"error": error, "cost": before["cost"].sum(), "drop": drop, "score": score, "score_direct": score_direct}


def lemma51_pairs(*, n: int, n_functions: int, seed: int, n_jobs: int | None = None) -> pd.DataFrame:
    """``n_functions`` pairs of each kind on ``n`` variables ([BLT20] Lemma 5.1): one row per pair.

    ``n`` is at least 6: the random trees have up to 64 leaves and the bare trees up to 24 leaves
    of depth at most n − 1.
    """
    n, n_functions = check_int("n", n, 6, 24), check_int("n_functions", n_functions, 1)
    return sweep(lemma51_task, grid(kind=list(LEMMA51_KINDS), n=[n]), repetitions=n_functions, seed=seed,
                 key="ch01/lemma51", n_jobs=n_jobs)


def lemma51_measures(lemma51: pd.DataFrame) -> dict[str, float]:
    """The worst cases of [BLT20] Lemma 5.1: max error/cost (cost > 0), max error at cost 0, max |drop − score|.

    ``drop_gap`` compares the drop with the score read from the same leaf statistics;
    ``drop_gap_direct`` with the score recomputed from the subfunction cut out of the table
    (NaN when the frame has no ``score_direct`` column).
    """
    positive = lemma51[lemma51["cost"] > 0]
    at_zero = lemma51.loc[lemma51["cost"] == 0, "error"]
    return {"error_over_cost": worst(positive["error"] / positive["cost"]),
            "error_at_zero_cost": worst(at_zero) if len(at_zero) else 0.0,
            "drop_gap": worst((lemma51["drop"] - lemma51["score"]).abs()),
            "drop_gap_direct": worst((lemma51["drop"] - lemma51["score_direct"]).abs())
            if "score_direct" in lemma51 else math.nan}


def fig_lemma51(lemma51: pd.DataFrame) -> Any:
    """[BLT20] Lemma 5.1: error/cost against cost (left), measured against predicted cost drop (right)."""
    fig, axes = figures.figure(2, height=3.6)
    with_cost = lemma51[lemma51["cost"] > 0].assign(ratio=lambda d: d["error"] / d["cost"])
    sns.scatterplot(data=with_cost, x="cost", y="ratio", hue="kind", s=18, ax=axes[0])
    axes[0].axhline(1.0, color="k", ls="--", lw=1, label="the bound")
    axes[0].set(xscale="log", ylim=(0, 1.1), xlabel=r"cost$_f(T^\circ)$", ylabel="error / cost")
    axes[0].legend(loc="upper right", bbox_to_anchor=(1.0, 0.9), frameon=True)
    sns.scatterplot(data=lemma51, x="score", y="drop", hue="kind", s=18, ax=axes[1], legend=False)
    lim = float(lemma51["score"].max()) * 1.05 + 1e-3
    axes[1].plot([0, lim], [0, lim], "k--", lw=1)
    axes[1].set_xlabel(r"predicted drop $2^{-|\ell|}\,\mathrm{Inf}_i(f_\ell)$")
    axes[1].set_ylabel("measured drop in cost after the split")
    return fig


def lemma51_glue(lemma51: pd.DataFrame) -> dict[str, Any]:
    """The Lemma 5.1 numbers for the text: pairs, largest error/cost (overall and per kind), largest drop gap."""
    values: dict[str, Any] = {
        "ch1_l51_count": len(lemma51),
        "ch1_l51_ratio": float((lemma51["error"] / lemma51["cost"].where(lemma51["cost"] > 0)).max()),
        "ch1_l51_drop": float((lemma51["drop"] - lemma51["score"]).abs().max())}
    values["ch1_l51_drop_text"] = small_number_text(values["ch1_l51_drop"])
    with_cost = lemma51[lemma51["cost"] > 0]
    for kind, d in with_cost.groupby("kind"):
        values[f"ch1_l51_ratio_{_glue_key(kind)}"] = float((d["error"] / d["cost"]).max())
    return values


# --- every function on n <= 4 variables: the lemmas at their supremum ----------------------------

#: The chapter's deterministic results and their (result, form) in :func:`dtcore.audit.worst_case.uniform_suprema`.
EXHAUSTIVE_RESULTS = {"Lemma 5.1(1)": ("Lemma 5.1(1)", "as printed"),
                      "OSSS inequality": ("OSSS inequality", "size form (BLT20)"),
                      "Lemma 5.3": ("Lemma 5.3", "as printed"),
                      "Lemma 5.2": ("Lemma 5.2", "as printed"),
                      "Lemma 5.4": ("Lemma 5.4", "as printed")}
_INFLUENCES = "dtcore.exhaustive.SubcubeStatistics.influences"
_OPTIMAL = "dtcore.exhaustive.optimal_trees"
#: Per result: the quantity, the side of the bound, and what computed each side (the search itself,
#: uniform_suprema, walks every function and every step of BuildTopDownDT's run to zero error).
_EXHAUSTIVE_CHECKS = {
    "Lemma 5.1(1)": ("max over every f with cost > 0 of error / cost (one-leaf bare tree: a ratio of sums over "
                     "leaves is at most its largest term)", "<=",
                     "dtcore.exhaustive.SubcubeStatistics.error", _INFLUENCES),
    "OSSS inequality": ("min over every non-constant f of max_i Inf_i / (Var / log2 s), s its minimum tree size",
                        ">=", _INFLUENCES,
                        ("dtcore.bounds.osss05_max_influence_lower", "dtcore.exhaustive.SubcubeStatistics.variance",
                         _OPTIMAL)),
    "Lemma 5.3": ("max over every non-constant f of Inf / (Var log2(4s/Var)), s its minimum tree size", "<=",
                  _INFLUENCES, ("dtcore.bounds.blt20_lemma53_total_influence_upper",
                                "dtcore.exhaustive.SubcubeStatistics.variance", _OPTIMAL)),
    "Lemma 5.2": ("min over every f and every split of BuildTopDownDT's run of score / (ε/(L log2 s)), "
                  "ε just under the error", ">=", "dtcore.exhaustive.build_top_down_scores",
                  ("dtcore.bounds.blt20_lemma52_score_lower", "dtcore.exhaustive.SubcubeStatistics.error", _OPTIMAL)),
    "Lemma 5.4": ("min over every f and every split of BuildTopDownDT's run of score / bound, ε the largest "
                  "with cost ≥ ε log2(4s/ε)", ">=", "dtcore.exhaustive.build_top_down_scores",
                  ("dtcore.bounds.blt20_lemma54_score_lower", "dtcore.exhaustive.SubcubeStatistics.cost", _OPTIMAL)),
}


def _leaves_text(leaves: int) -> str:
    return "one-leaf" if leaves == 1 else f"{leaves}-leaf"


def exhaustive_suprema(n: int = 4) -> pd.DataFrame:
    """[BLT20] Lemmas 5.1(1)–5.4 and OSSS at their supremum over every Boolean function on ``n`` variables.

    Runs :func:`dtcore.audit.worst_case.uniform_suprema` (uniform measure; s and the trees are each
    function's minimum-size tree; Lemmas 5.2/5.4 at every step of BuildTopDownDT's run to zero error).
    One row per result of :data:`EXHAUSTIVE_RESULTS`: ``sup_ratio`` in the book's margin convention
    (1 = the bound, above 1 = violated), the witness (``table`` in hex, ``leaves`` of the witness bare
    tree), its minimum tree size ``s``, the ``verdict``, and ``cpu_seconds`` of the whole search.
    Functions on fewer variables are functions on ``n`` that ignore some, so ``n = 4`` covers n ≤ 4.
    """
    n = check_int("n", n, 2, exhaustive.MAX_ALL_FUNCTIONS_VARIABLES)
    start = time.process_time()
    tracker = worst_case.uniform_suprema(n)
    seconds = time.process_time() - start
    frame = pd.DataFrame([{"key": key, **tracker.best[found].row()} for key, found in EXHAUSTIVE_RESULTS.items()])
    witnesses = exhaustive.all_tables(n)[frame["function"].to_numpy()]
    frame["s"] = exhaustive.optimal_trees(witnesses).root_size.astype(int)
    frame["cpu_seconds"] = seconds
    return frame


def exhaustive_check(suprema: pd.DataFrame, key: str) -> dict[str, Any]:
    """The keyword arguments of ``table.theorem`` for one exhaustive supremum (all but ``box``).

    The measured value is in the orientation of the chapter's other rows (a max of measured/bound
    for an upper bound, a min of measured/bound for a lower bound); the bound is 1. Reaches, from
    facts outside the lemmas: error ≤ 1/2 and a positive cost is at least 2^(1−n) (one sensitive edge
    in a leaf), so error/cost ≤ 2^(n−2); Inf_i ≤ 2 min(Pr[f=0], Pr[f=1]) ≤ Var, so max_i Inf_i ≤ Var,
    OSSS's ratio is at most log2 s ≤ n and Lemma 5.3's at most n Var / (3 Var) = n/3 (log2(4s/Var) ≥ 3).
    So Lemma 5.3 can fail only from n = 4 on: at n ≤ 3 the table refuses its row as vacuous.
    """
    if key not in _EXHAUSTIVE_CHECKS:
        raise ValueError(f"key must be one of {list(_EXHAUSTIVE_CHECKS)}, got {key!r}")
    row = suprema.set_index("key").loc[key]
    quantity, relation, measured_by, bound_by = _EXHAUSTIVE_CHECKS[key]
    n = int(row["n"])
    ratio = float(row["sup_ratio"])
    measured = ratio if relation == "<=" else (1.0 / ratio if ratio > 0 else math.inf)
    reach = {"Lemma 5.1(1)": (0.0, 2.0 ** (n - 2)), "OSSS inequality": (0.0, float(n)),
             "Lemma 5.3": (0.0, n / 3)}.get(key, (0.0, math.inf))
    step = "" if pd.isna(row["leaves"]) else f", at the {_leaves_text(int(row['leaves']))} bare tree of BuildTopDownDT's run"
    worst_where = (f"f = {row['table']} (hex truth table, s = {int(row['s'])}), uniform measure{step}; exhaustive: "
                   f"all {2 ** 2 ** n:,} functions on n = {n} ({int(row['cases']):,} cases); verdict {row['verdict']}")
    return {"result": key, "quantity": f"{quantity}, n ≤ {n}", "measured": measured, "bound": 1.0,
            "relation": relation, "reach": reach, "measured_by": measured_by, "bound_by": bound_by,
            "worst_case": worst_where, "tolerance": 1e-12}


def exhaustive_glue(suprema: pd.DataFrame) -> dict[str, Any]:
    """One sentence per result (supremum, witness, verdict) and the search's CPU time, for the text."""
    values: dict[str, Any] = {}
    for key in EXHAUSTIVE_RESULTS:
        check = exhaustive_check(suprema, key)
        row = suprema.set_index("key").loc[key]
        word = "largest" if check["relation"] == "<=" else "smallest"
        step = "" if pd.isna(row["leaves"]) else f" (the {_leaves_text(int(row['leaves']))} bare tree)"
        values[f"ch1_ex_{_glue_key(key).replace('.', '').replace('(', '').replace(')', '').lower()}"] = (
            f"the {word} value over all {2 ** 2 ** int(row['n']):,} functions on {int(row['n'])} variables is "
            f"{check['measured']:.4g}, at f = {row['table']}{step}, whose smallest tree has {int(row['s'])} leaves: "
            f"{row['verdict']}")
    values["ch1_ex_seconds"] = float(suprema["cpu_seconds"].iloc[0])
    return values


# --- OSSS and Lemma 5.3 --------------------------------------------------------------------------

def osss_task(rng: np.random.Generator, s: int, n: int) -> dict[str, float]:
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
        "s": "tree size s", "osss_min_ratio": "Theorem 1.1: smallest ratio", "osss_median_ratio": "Theorem 1.1: median",
        "lemma53_max_ratio": "Lemma 1.2: largest ratio", "lemma53_median_ratio": "Lemma 1.2: median"})
    return (shown.style.format({c: "{:.3f}" for c in shown.columns if c != "tree size s"}).hide(axis="index")
            .set_caption("How tight: measured / bound, by tree size (Theorem 1.1 must stay ≥ 1, Lemma 1.2 ≤ 1)"))


def osss_measures(osss: pd.DataFrame) -> dict[str, float]:
    """The worst cases: max Parseval gap, min OSSS ratio (must be ≥ 1), max [BLT20] Lemma 5.3 ratio (≤ 1)."""
    return {"parseval_gap": worst(osss["parseval_gap"]),
            "osss_ratio": worst(osss["osss_ratio"], "min"),
            "lemma53_ratio": worst(osss["lemma53_ratio"])}


def fig_osss(osss: pd.DataFrame) -> Any:
    """The OSSS ratio (left, must be ≥ 1) and the [BLT20] Lemma 5.3 ratio (right, must be ≤ 1) by size."""
    fig, axes = figures.figure(2, height=3.6)
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


# --- target families -----------------------------------------------------------------------------

def family_target(rng: np.random.Generator, family: str, s: int, n: int, k: int = 0, t: int = 0) -> np.ndarray:
    """Truth table of a member of ``family`` with an explicit tree of size s (k, t: the decoy families).

    Families: "random tree" (size s), "complete random tree" (depth log2 s), "parity" (of log2 s
    random variables), "multiplexer" (log2 s − 1 address bits), "decoy selector" and "nested decoy"
    (the chapter's own lower-bound constructions, block length k and depth t).
    """
    log_s = int(round(math.log2(s)))
    if family == "random tree":
        return random_tree(n, s, rng=rng).truth_table()
    if family == "complete random tree":
        return random_tree_of_depth(n, log_s, rng=rng).truth_table()
    if family == "parity":
        return truth_table(lambda X: parity(X, list(rng.choice(n, size=log_s, replace=False))), n)
    if family == "multiplexer":  # log_s - 1 address bits, 2^(log_s - 1) data bits: s leaves
        return truth_table(lambda X: address(X, log_s - 1), n)
    if family == "decoy selector":
        return truth_table(lambda X: decoy_selector_parity(X, k, t), n)
    if family == "nested decoy":
        return truth_table(lambda X: nested_decoy_parity(X, k, t), n)
    raise ValueError(f"family must be a known target family, got {family!r}")


def fits(family: str, s: int, n: int) -> bool:
    """Whether a size-s member of the family exists on n variables."""
    log_s = int(round(math.log2(s)))
    if family in ("random tree",):
        return s <= 2**n
    if 2**log_s != s:
        return False
    if family == "multiplexer":
        return log_s >= 2 and (log_s - 1) + 2 ** (log_s - 1) <= n
    return log_s <= n


def decoy_instances(family: str, n: int) -> list[dict[str, Any]]:
    """The (k, t) members (t ≥ 1) of a decoy family on at most n variables, with their explicit sizes."""
    if family not in ("decoy selector", "nested decoy"):
        raise ValueError(f"family must be 'decoy selector' or 'nested decoy', got {family!r}")
    out = []
    for k in DECOY_BLOCKS:
        for t in range(1, 8):
            need = t * (k + 3) if family == "decoy selector" else k + t * (k + 2)
            if need > n:
                break
            size = decoy_selector_parity_size(k, t) if family == "decoy selector" else nested_decoy_parity_size(k, t)
            out.append({"family": family, "s": size, "k": k, "t": t})
    return out


# --- Lemmas 5.2 and 5.4 along real runs ----------------------------------------------------------

RUN_COLUMNS = ["leaves", "node", "feature", "cost", "error", "score", "best_score", "greedy_gap", "lemma52_bound",
               "lemma54_bound", "final_size", "final_error", "error_before_last_split", "trace_gap", "stop_gap", "label_gap"]


def lemma_run_task(rng: np.random.Generator, family: str, s: int, n: int, eps: float, k: int = 0,
                   t: int = 0) -> list[dict[str, Any]]:
    """One BuildTopDownDT run, every split replayed from the returned tree: [BLT20] Lemmas 5.2, 5.4, Sec. 3.

    One row per split with the recomputed selected score, the Lemma 5.2 and 5.4 lower bounds (NaN
    where Lemma 5.4 does not apply), the greedy gap (best frontier score − selected, and the best
    influence of the split leaf − the queried one's), and, per run, the returned tree's size and
    exact error, the error before the last split, the gap between the scorer's running cost and
    error and the recomputed ones, ``stop_gap`` (splits between the first frontier whose recomputed
    error is ≤ ε and the one the run stopped at: 0 when the stop rule is obeyed) and ``label_gap``
    (|error of the returned tree on every point − recomputed error of its frontier|: 0 when every
    leaf carries the majority label). No row when the constant tree is already ε-close.
    """
    f = family_target(rng, family, s, n, k, t)
    run = build_top_down_dt(f, eps=eps)
    # Every quantity below is recomputed from the returned tree and the truth table, not read
    # from the scorer: replay.replay cuts each node's subfunction out of f.
    steps = replay.replay(run.tree, run.trace, f)
    trace_gap = max(float(np.abs(steps["cost"].to_numpy() - run.trace["cost"].to_numpy()).max()),
                    float(np.abs(steps["error"].to_numpy() - run.trace["error"].to_numpy()).max()))
    splits = steps[steps["node"] >= 0].copy()
    if splits.empty:  # the constant completion was already ε-close: no split to check
        return []
    splits["lemma52_bound"] = bounds.blt20_lemma52_score_lower(eps, splits["leaves"], s)
    active = splits["cost"] >= bounds.blt20_lemma54_threshold(eps, s)
    splits["lemma54_bound"] = np.where(
        active, bounds.blt20_lemma54_score_lower(splits["cost"], eps, splits["leaves"], s), np.nan)
    splits["greedy_gap"] = np.maximum(splits["best_score"] - splits["selected_score"], splits["influence_gap"])
    splits["final_size"] = run.tree.size
    splits["final_error"] = float(np.mean(run.tree.truth_table() != f))  # the returned tree on every point
    splits["error_before_last_split"] = float(splits["error"].iloc[-1])
    splits["trace_gap"] = trace_gap
    recomputed_error = steps["error"].to_numpy()  # one entry per frontier, the last the returned tree's
    within = recomputed_error <= eps + 1e-12
    first_within = int(np.argmax(within)) if within.any() else len(recomputed_error)
    splits["stop_gap"] = abs(len(recomputed_error) - 1 - first_within)
    splits["label_gap"] = abs(splits["final_error"].iloc[0] - float(recomputed_error[-1]))
    return splits.rename(columns={"selected_score": "score"})[RUN_COLUMNS].to_dict("records")


def lemma_runs(*, sizes: Sequence[int], n: int, eps: float, n_functions: int, seed: int,
               n_jobs: int | None = None) -> pd.DataFrame:
    """BuildTopDownDT on four families, every split against [BLT20] Lemmas 5.2 and 5.4.

    Random trees and parities (max(5, n_functions // 10) targets per size), one multiplexer per
    size and one run per decoy-selector instance. Adds ``lemma52_ratio`` and ``lemma54_ratio``
    (selected score / bound; each must be at least 1).
    """
    n, n_functions = check_int("n", n, 1, 24), check_int("n_functions", n_functions, 1)
    eps = check_real("eps", eps, 0.0, 0.5)
    random_families = [row for row in grid(family=["random tree", "parity"], s=list(sizes), n=[n], eps=[eps])
                       if fits(row["family"], row["s"], n)]
    fixed_families = ([row for row in grid(family=["multiplexer"], s=list(sizes), n=[n], eps=[eps])
                       if fits("multiplexer", row["s"], n)]
                      + [{**inst, "n": n, "eps": eps} for inst in decoy_instances("decoy selector", n)])
    runs = pd.concat([sweep(lemma_run_task, random_families, repetitions=max(5, n_functions // 10), seed=seed,
                            key="ch01/lemma_runs", n_jobs=n_jobs),
                      sweep(lemma_run_task, fixed_families, repetitions=1, seed=seed, key="ch01/lemma_runs_fixed",
                            n_jobs=n_jobs)],
                     ignore_index=True)
    runs["lemma52_ratio"] = runs["score"] / runs["lemma52_bound"]
    runs["lemma54_ratio"] = runs["score"] / runs["lemma54_bound"]
    return runs


def lemma_run_measures(runs: pd.DataFrame) -> dict[str, float]:
    """The worst cases along the runs: greedy and trace gaps ([BLT20] Sec. 3), Lemmas 5.2 and 5.4, the stop rule.

    ``final_error``, ``error_before_last_split``, ``trace_gap``, ``stop_gap`` and ``label_gap`` are
    taken once per run (the last two are NaN for a frame without those columns).
    """
    per_run = runs.groupby(["family", "s", "k", "t", "rep"], dropna=False).first()
    return {"greedy_gap": worst(runs["greedy_gap"]),
            "trace_gap": worst(per_run["trace_gap"]),
            "stop_gap": worst(per_run["stop_gap"]) if "stop_gap" in per_run else math.nan,
            "label_gap": worst(per_run["label_gap"]) if "label_gap" in per_run else math.nan,
            "runs": len(per_run),
            "lemma52_ratio": worst(runs["lemma52_ratio"], "min"),
            "lemma54_splits": int(runs["lemma54_ratio"].notna().sum()),
            "lemma54_ratio": worst(runs["lemma54_ratio"].dropna(), "min"),
            "final_error": worst(per_run["final_error"]),
            "error_before_last_split": worst(per_run["error_before_last_split"], "min")}


def closest_per_family(runs: pd.DataFrame) -> pd.DataFrame:
    """Per family: splits, the smallest score/bound of [BLT20] Lemma 5.2 and of Lemma 5.4 where it applies."""
    return runs.groupby("family").agg(splits=("score", "size"), lemma52_min=("lemma52_ratio", "min"),
                                      lemma54_splits=("lemma54_ratio", "count"),
                                      lemma54_min=("lemma54_ratio", "min"))


def closest_table(runs: pd.DataFrame) -> Any:
    """:func:`closest_per_family` with readable headers and book numbering, styled."""
    shown = closest_per_family(runs).reset_index().rename(columns={
        "family": "target family", "splits": "splits", "lemma52_min": "Lemma 1.3: smallest score / bound",
        "lemma54_splits": "splits where Lemma 1.4 applies", "lemma54_min": "Lemma 1.4: smallest score / bound"})
    return (shown.style.format({"Lemma 1.3: smallest score / bound": "{:.2f}", "Lemma 1.4: smallest score / bound": "{:.2f}"},
                               na_rep="—").hide(axis="index")
            .set_caption("Smallest selected score / bound per target family"))


def fig_lemmas(runs: pd.DataFrame, *, s: int, eps: float) -> Any:
    """[BLT20] Lemmas 5.2 and 5.4: one run on a random tree of size ``s`` (left), every split's ratio (right)."""
    example = runs[(runs["family"] == "random tree") & (runs["s"] == s) & (runs["rep"] == 0)]
    fig, axes = figures.figure(2, height=3.6)
    ax = axes[0]
    ax.plot(example["leaves"], example["score"], "o-", ms=3, label="selected score")
    ax.plot(example["leaves"], example["lemma52_bound"], "--", label="Lemma 1.3 bound")
    ax.plot(example["leaves"], example["lemma54_bound"], ":", lw=2.5, label="Lemma 1.4 bound")
    ax.set(yscale="log", xlabel="leaves L before the split", ylabel="score",
           title=f"one run: random tree, s = {s}, ε = {eps}")
    ax.set_ylim(top=20)
    ax.legend(loc="upper right")
    long = runs.melt(id_vars=["family"], value_vars=["lemma52_ratio", "lemma54_ratio"], var_name="lemma",
                     value_name="ratio").dropna()
    long["lemma"] = long["lemma"].map({"lemma52_ratio": "Lemma 1.3", "lemma54_ratio": "Lemma 1.4"})
    long["family"] = long["family"].str.replace(" ", "\n")
    sns.boxplot(data=long, y="family", x="ratio", hue="lemma", ax=axes[1], fliersize=2, orient="h")
    axes[1].axvline(1.0, color="k", ls="--", lw=1)
    axes[1].set(xscale="log", ylabel="", xlabel="selected score / lower bound (must stay ≥ 1)")
    axes[1].legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2)  # above the boxes, never on them
    return fig


def lemma_runs_glue(runs: pd.DataFrame) -> dict[str, Any]:
    """The Lemmas 5.2 and 5.4 numbers for the text: smallest ratios overall, per family, and where."""
    closest = closest_per_family(runs)
    values: dict[str, Any] = {}
    for fam, row in closest.iterrows():
        values[f"ch1_l52_min_{_glue_key(fam)}"] = float(row["lemma52_min"])
        values[f"ch1_l54_min_{_glue_key(fam)}"] = float(row["lemma54_min"])
    values["ch1_runs_steps"] = len(runs)
    values["ch1_runs_n54"] = int(runs["lemma54_ratio"].notna().sum())
    values["ch1_l52_min"] = float(runs["lemma52_ratio"].min())
    values["ch1_l54_min"] = float(runs["lemma54_ratio"].min())
    for lemma in ("52", "54"):
        at = runs.loc[runs[f"lemma{lemma}_ratio"].idxmin()]
        values[f"ch1_l{lemma}_argmin"] = f"{at['family']}, s = {int(at['s'])}, at a split with L = {int(at['leaves'])}"
    return values


# --- Theorem 3 -----------------------------------------------------------------------------------

def theorem3_task(rng: np.random.Generator, family: str, s: int, eps: float, n: int) -> dict[str, Any]:
    """One BuildTopDownDT run against the size bound of [BLT20] Theorem 3 (C0 = Inf(f) from f)."""
    f = family_target(rng, family, s, n)
    run = build_top_down_dt(f, eps=eps)
    initial_cost = analysis.total_influence(f)  # C0 = Inf(f), computed from f, not from the run
    return {"size": run.tree.size, "error": float(np.mean(run.tree.truth_table() != f)), "initial_cost": initial_cost,
            "log2_bound": bounds.blt20_theorem3_log2_size_bound(s, eps, initial_cost) if initial_cost > 0 else 0.0}


def theorem3_runs(*, sizes: Sequence[int], eps_grid: Sequence[float], n: int, n_functions: int, seed: int,
                  n_jobs: int | None = None) -> pd.DataFrame:
    """[BLT20] Theorem 3 on the main grid (four families × sizes × errors) and on a corner grid.

    The corner grid (random trees with s in {2, 3, 4, 5} at ε in {0.3, 0.4, 0.45}) is where the bound
    can bite: it is below 2^n, the size of the largest tree on n variables, only for very small s
    and large ε (its exponent grows like log(s/ε) log(1/ε)). ``bites`` marks those runs.
    """
    n, n_functions = check_int("n", n, 3, 24), check_int("n_functions", n_functions, 1)
    main_grid = [row for row in grid(family=list(THEOREM3_FAMILIES), s=list(sizes), eps=list(eps_grid), n=[n])
                 if fits(row["family"], row["s"], n)]
    corner_grid = grid(family=["random tree"], s=[2, 3, 4, 5], eps=[0.3, 0.4, 0.45], n=[n])
    repetitions = max(3, n_functions // 30)
    thm3 = pd.concat([sweep(theorem3_task, main_grid, repetitions=repetitions, seed=seed, key="ch01/theorem3",
                            n_jobs=n_jobs).assign(grid="main"),
                      sweep(theorem3_task, corner_grid, repetitions=repetitions, seed=seed, key="ch01/theorem3_corner",
                            n_jobs=n_jobs).assign(grid="corner")],
                     ignore_index=True)
    thm3["log2_size"] = np.log2(thm3["size"])
    thm3["bites"] = thm3["log2_bound"] < n
    return thm3


def theorem3_measures(thm3: pd.DataFrame, *, n: int) -> dict[str, float]:
    """The worst cases of [BLT20] Theorem 3: size/bound where the bound is below 2^n, the room elsewhere, error/ε.

    ``size_over_bound`` is NaN (and ``biting`` 0) when no bound is below 2^n; ``size_over_bound_high``
    is the largest value size/bound can take (2^n / smallest biting bound).
    """
    biting = thm3[thm3["bites"]]
    vacuous = thm3[~thm3["bites"]]
    out = {"biting": len(biting), "vacuous": len(vacuous), "size_over_bound": math.nan,
           "size_over_bound_high": math.nan,
           "vacuous_room_bits": worst(vacuous["log2_bound"] - vacuous["log2_size"], "min"),
           "error_over_eps": worst(thm3["error"] / thm3["eps"]),
           "error_over_eps_high": float(0.5 / thm3["eps"].min())}
    if len(biting):
        ratio = 2.0 ** (biting["log2_size"] - biting["log2_bound"])
        out["size_over_bound"] = worst(ratio)
        out["size_over_bound_high"] = float(2.0 ** (n - biting["log2_bound"].min()))
        at = biting.loc[ratio.idxmax()]
        where = ", ".join(f"{c} = {at[c]:g}" if isinstance(at[c], (int, float, np.number)) else f"{at[c]}"
                          for c in ("family", "s", "eps") if c in at.index)
        out["size_over_bound_at"] = f"{where} (the run with the largest size / bound among {len(biting)} random runs)"
    return out


def fig_theorem3(thm3: pd.DataFrame, *, eps_grid: Sequence[float]) -> Any:
    """[BLT20] Theorem 3: the room under the bound in bits per family (left), median size against 1/ε (right)."""
    main = thm3[thm3["grid"] == "main"]
    fig, axes = figures.figure(2, height=3.6)
    gap = main.assign(gap=main["log2_bound"] - main["log2_size"]).groupby(["family", "s"], as_index=False)["gap"].min()
    for fam, d in gap.groupby("family"):
        axes[0].plot(d["s"], d["gap"], "o-", label=fam)
    axes[0].axhline(0, color="k", ls="--", lw=1)
    axes[0].set(xscale="log", xlabel="target size s", ylabel=r"$\log_2$(bound) − $\log_2$(size)  [bits]",
                title="room under the Theorem 1.2 bound")
    axes[0].set_xscale("log", base=2)
    axes[0].set_ylim(top=1.7 * max(float(gap["gap"].max()), 1.0))  # the room rises with s: the legend goes on top
    axes[0].legend(loc="upper left")
    by_eps = main[main["family"] == "random tree"].groupby(["eps", "s"], as_index=False)["size"].median()
    for s_val, d in by_eps.groupby("s"):
        axes[1].plot(1 / d["eps"], d["size"], "o-", label=f"s = {s_val}")
    axes[1].set(xscale="log", yscale="log", xlabel=r"$1/\varepsilon$", ylabel="median size (random trees)")
    axes[1].yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axes[1].yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    axes[1].yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes[1].set_xticks([1 / e for e in eps_grid], [f"{1 / e:g}" for e in eps_grid])
    axes[1].xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes[1].legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2)
    return fig


def theorem3_glue(thm3: pd.DataFrame, *, n: int) -> dict[str, Any]:
    """The Theorem 3 numbers for the text: runs, where the bound bites and by how much, the room on the main grid."""
    biting = thm3[thm3["bites"]]
    main = thm3[thm3["grid"] == "main"]
    return {"ch1_t3_runs": len(thm3),
            "ch1_t3_biting": len(biting),
            "ch1_t3_biting_margin": float((2.0 ** (biting["log2_size"] - biting["log2_bound"])).max())
            if len(biting) else float("nan"),
            "ch1_t3_biting_pairs": ", ".join(f"(s = {s}, ε = {e})" for s, e in
                                             biting[["s", "eps"]].drop_duplicates().itertuples(index=False)),
            "ch1_t3_max_over_s": float((main["size"] / main["s"]).max()),
            "ch1_t3_min_gap": float((main["log2_bound"] - main["log2_size"]).min()),
            "ch1_n": n,
            "ch1_t3_min_bound_bits": float(main["log2_bound"].min())}


# --- Theorem 3's proof at its worst over every function on n <= 4 --------------------------------

_COST = "dtcore.exhaustive.SubcubeStatistics.cost"
#: The proof steps of [BLT20] Theorem 3 searched by :func:`dtcore.audit.worst_case.blt20_theorem3_phases`:
#: key -> (result, quantity, relation, measured_by, bound_by, the reach's high end as a function of n).
THEOREM3_STEPS = {
    "phase 1 drop": ("Theorem 3 (proof, phase 1)", "min over every split with cost ≥ εA of cost drop / (cost/(L A B)), "
                     "ε the largest the phase allows", ">=", _COST,
                     ("dtcore.bounds.blt20_lemma54_score_lower", _OPTIMAL), lambda n: math.inf),
    "phase 1 leaves": ("Theorem 3 (proof, phase 1)", "max over every f and ε of (leaves when phase 1 ends) / "
                       "⌈(C₀/(εA))^(AB)⌉, phases of two or more splits", "<=", "dtcore.exhaustive.best_first_runs",
                       ("dtcore.bounds.blt20_theorem3_phase1_leaves", _OPTIMAL), lambda n: float(2**n)),
    "phase 2 drop": ("Theorem 3 (proof, phase 2)", "min over every split with error > ε ≥ cost/A of cost drop / "
                     "(ε/(L B)), ε just under the error", ">=", _COST,
                     ("dtcore.bounds.blt20_lemma52_score_lower", _OPTIMAL), lambda n: math.inf),
    "phase 2 harmonic": ("Theorem 3 (proof, phase 2)", "max over every f and ε of (Σ 1/L over phase 2's splits but "
                         "the last) / (B (C_L1/ε − 1))", "<=", "dtcore.exhaustive.best_first_runs",
                         ("dtcore.bounds.blt20_theorem3_phase2_harmonic", _COST), lambda n: math.inf),
    "initial cost": ("Theorem 3 (C₀ ≤ log s)", "max over every non-constant f of Inf(f) / log2 s, s its minimum "
                     "tree size", "<=", _INFLUENCES, ("dtcore.bounds.blt20_initial_cost_upper", _OPTIMAL),
                     lambda n: float(n)),
}


def theorem3_phases(n: int = 4) -> pd.DataFrame:
    """[BLT20] Theorem 3's proof step by step at its worst over every function on ``n`` variables and every ε.

    Runs :func:`dtcore.audit.worst_case.blt20_theorem3_phases`; one row per step (its keys, plus
    ``"phase 1 leaves (one split)"`` and ``"error over variance"``) with ``sup_ratio`` in the book's
    margin convention, the witness ``table`` (hex), its minimum tree size ``s``, the search's ``note``
    (ε and the phase boundaries), ``cases`` and the search's ``cpu_seconds``.
    """
    n = check_int("n", n, 2, exhaustive.MAX_ALL_FUNCTIONS_VARIABLES)
    start = time.process_time()
    found = worst_case.blt20_theorem3_phases(n)
    seconds = time.process_time() - start
    frame = pd.DataFrame([{"key": key, **sup.row()} for key, sup in found.items()])
    frame["s"] = exhaustive.optimal_trees(exhaustive.all_tables(n)[frame["function"].to_numpy()]).root_size.astype(int)
    frame["cpu_seconds"] = seconds
    return frame


def theorem3_phase_check(phases: pd.DataFrame, key: str) -> dict[str, Any]:
    """The keyword arguments of ``table.theorem`` for one step of :data:`THEOREM3_STEPS` (all but ``box``)."""
    if key not in THEOREM3_STEPS:
        raise ValueError(f"key must be one of {list(THEOREM3_STEPS)}, got {key!r}")
    row = phases.set_index("key").loc[key]
    result, quantity, relation, measured_by, bound_by, high = THEOREM3_STEPS[key]
    n = int(row["n"])
    ratio = float(row["sup_ratio"])
    measured = ratio if relation == "<=" else (1.0 / ratio if ratio > 0 else math.inf)
    out = {"result": result, "quantity": f"{quantity}, n ≤ {n}", "measured": measured, "bound": 1.0,
           "relation": relation, "reach": (0.0, high(n)), "measured_by": measured_by, "bound_by": bound_by,
           "worst_case": (f"f = {row['table']} (hex truth table, s = {int(row['s'])}), {row['note']}; exhaustive: all "
                          f"{2 ** 2 ** n:,} functions on n = {n}, ε through every breakpoint of each run "
                          f"({int(row['cases']):,} cases); verdict {row['verdict']}"),
           "tolerance": 1e-9}
    if key == "phase 2 harmonic":
        out["reach_why"] = ("the bound B (C_L1/ε − 1) is positive but has no lower bound independent of ε, "
                            "so the ratio has no finite reach known")
    return out


#: How the page names each step (book numbering: Lemma 1.3 is paper Lemma 5.2, Lemma 1.4 paper Lemma 5.4).
_STEP_TEXT = {
    "phase 1 drop": ("phase 1: one split", "cost drop ≥ cost / (L A B)", "Lemmas 1.1(2), 1.4"),
    "phase 1 leaves": ("phase 1: its length", "ends within ⌈(C₀/(εA))^(AB)⌉ leaves", "phase 1 iterated"),
    "phase 2 drop": ("phase 2: one split", "cost drop ≥ ε / (L B)", "Lemmas 1.1(2), 1.3"),
    "phase 2 harmonic": ("phase 2: its length", "Σ 1/L < B (C_L1/ε − 1)", "phase 2 summed"),
    "initial cost": ("start", "C₀ = Inf(f) ≤ log₂ s", "average depth ≤ log₂ s"),
    "error over variance": ("Lemma 1.3's step", "error(g, ±1) ≤ Var(g)", "algebra"),
}


def theorem3_phase_table(phases: pd.DataFrame) -> Any:
    """The proof's steps at their worst over every function on n ≤ 4: a styled table with the room of each."""
    rows = []
    for key, (step, claim, uses) in _STEP_TEXT.items():
        row = phases.set_index("key").loc[key]
        ratio = float(row["sup_ratio"])
        rows.append({"step of the proof": step, "claim": claim, "from": uses,
                     "worst measured / bound": ratio,
                     "worst function (hex), s": f"{row['table']}, s = {int(row['s'])}",
                     "where": str(row["note"]).replace("eps", "ε")})
    return (pd.DataFrame(rows).style.format({"worst measured / bound": "{:.3f}"}).hide(axis="index")
            .set_caption("Theorem 1.2's proof at its worst over every function on n ≤ 4 and every ε "
                         "(1 = at the bound)"))


def theorem3_phase_glue(phases: pd.DataFrame) -> dict[str, Any]:
    """The numbers of the proof's steps for the text: each worst ratio and its room, the one-split phases, the time."""
    by_key = phases.set_index("key")
    values: dict[str, Any] = {f"ch1_t3p_{key.replace(' ', '_')}": float(by_key.loc[key, "sup_ratio"])
                              for key in _STEP_TEXT}
    for key in ("phase 1 drop", "phase 2 drop"):
        values[f"ch1_t3p_room_{key.replace(' ', '_')}"] = float(1 / by_key.loc[key, "sup_ratio"])
    values["ch1_t3p_phase1_room"] = float(1 / by_key.loc["phase 1 leaves", "sup_ratio"])
    initial = by_key.loc["initial cost"]
    values["ch1_t3p_initial_witness"] = f"f = {initial['table']}, where {initial['note'].replace(', ', ' and ')}"
    values["ch1_t3p_phase1_witness"] = f"{by_key.loc['phase 1 leaves', 'table']}, at {by_key.loc['phase 1 leaves', 'note']}".replace("eps", "ε")
    values["ch1_t3p_one_split"] = float(by_key.loc["phase 1 leaves (one split)", "sup_ratio"])
    values["ch1_t3p_seconds"] = float(phases["cpu_seconds"].iloc[0])
    return values


# --- lower bound, exact learning: nested decoy parities ------------------------------------------

def _top_features(tree: DecisionTree, k: int) -> list[int]:
    """The variables queried in the top ``k`` levels of ``tree``."""
    return [tree.feature[v] for v in range(tree.node_count) if tree.node_depth[v] < k]


def nested_decoy_runs(*, n_max: int, eps: float) -> pd.DataFrame:
    """BuildTopDownDT on nested decoy parities (our family for [BLT20]'s lower bound) on at most ``n_max`` variables.

    Each target is learned exactly (ε below 2^-n) and at the chapter's ``eps``; one row per (k, t),
    with the explicit and greedy sizes, exactness, whether the top k levels query only the level-t
    decoys, and ``ratio`` = greedy / explicit size.
    """
    n_max, eps = check_int("n_max", n_max, 1, 24), check_real("eps", eps, 0.0, 0.5)
    rows = []
    for k in DECOY_BLOCKS:
        for t in range(0, 8):
            n_lb = k + t * (k + 2)
            if n_lb > n_max:
                break
            f = truth_table(lambda X: nested_decoy_parity(X, k, t), n_lb)
            run = build_top_down_dt(f, eps=2.0 ** -(n_lb + 1))  # below 2^-n: only the exact tree stops it
            decoy_block = set(range(k + (t - 1) * (k + 2) + 2, k + (t - 1) * (k + 2) + 2 + k))
            top_features = _top_features(run.tree, k)
            at_eps = build_top_down_dt(f, eps=eps).tree.size  # the same target at the chapter's constant ε
            rows.append({"k": k, "t": t, "n": n_lb, "explicit_size": nested_decoy_parity_size(k, t),
                         "greedy_size": run.tree.size, "greedy_size_at_eps": at_eps,
                         "exact": bool(np.array_equal(run.tree.truth_table(), f)),
                         "decoys_first": all(i in decoy_block for i in top_features) if t > 0 else True})
    lower = pd.DataFrame(rows)
    lower["ratio"] = lower["greedy_size"] / lower["explicit_size"]
    return lower


def nested_decoy_table(lower: pd.DataFrame) -> Any:
    """The nested-decoy runs with readable headers (no True/False cells), styled."""
    shown = pd.DataFrame({
        "k": lower["k"], "t": lower["t"], "n": lower["n"], "explicit size s": lower["explicit_size"],
        "greedy leaves (exact)": lower["greedy_size"], "greedy / s": lower["ratio"],
        "greedy leaves at the chapter's ε": lower["greedy_size_at_eps"],
        "top k levels only decoys": np.where(lower["t"] > 0, np.where(lower["decoys_first"], "yes", "no"), "—")})
    return (shown.style.format({"greedy / s": "{:.1f}"}).hide(axis="index")
            .set_caption("Nested decoy parities: BuildTopDownDT learning them exactly, and at the chapter's ε"))


def nested_decoy_measures(lower: pd.DataFrame) -> dict[str, float]:
    """Fractions that must be 1: decoys first (t ≥ 1), exact greedy trees, k whose ratio grows strictly with t."""
    deep = lower[lower["t"] > 0]
    growth = [bool(np.all(np.diff(d.sort_values("t")["ratio"]) > 0)) for _, d in lower.groupby("k") if len(d) > 1]
    return {"decoys_first": float(deep["decoys_first"].mean()),
            "exact": float(lower["exact"].mean()),
            "ratio_grows": float(np.mean(growth))}


def fig_nested(lower: pd.DataFrame) -> Any:
    """Nested decoy parities learned exactly: greedy against explicit size (left), the exponent against t (right)."""
    fig, axes = figures.figure(2, height=3.6)
    for k, d in lower.groupby("k"):
        axes[0].plot(d["explicit_size"], d["greedy_size"], "o-")
    s_line = np.sort(lower["explicit_size"].unique())
    references = axes[0].plot(s_line, s_line, "k--", lw=1, label="explicit tree (size s)")
    references += axes[0].plot(s_line, s_line.astype(float) ** 2, "k:", lw=1, label=r"$s^2$")
    axes[0].set_xscale("log", base=2)
    axes[0].set_yscale("log", base=2)
    axes[0].set(xlabel="size s of the explicit tree", ylabel="leaves of the greedy tree (exact)")
    # the sizes rise with s, away from this corner
    axes[0].legend(handles=references, loc="upper left")
    for k, d in lower.groupby("k"):
        axes[1].plot(d["t"], np.log(d["greedy_size"]) / np.log(d["explicit_size"]), "o-", label=f"k = {k}")
    axes[1].axhline(1, color="k", ls="--", lw=1)
    axes[1].set(xlabel="nesting depth t", ylabel=r"exponent $\log(\mathrm{greedy}) / \log s$")
    axes[1].legend(loc="lower right")  # the exponents rise with t, away from this corner
    return fig


def nested_decoy_glue(lower: pd.DataFrame) -> dict[str, Any]:
    """The nested-decoy numbers for the text: the largest blow-up and the greedy sizes at the chapter's ε."""
    best = lower.loc[lower["ratio"].idxmax()]
    return {"ch1_lb_ratio": float(best["ratio"]),
            "ch1_lb_greedy": int(best["greedy_size"]),
            "ch1_lb_explicit": int(best["explicit_size"]),
            "ch1_lb_n": int(best["n"]),
            "ch1_lb_at_eps": "; ".join(
                f"k = {k}: " + ", ".join(str(v) for v in d.sort_values("t")["greedy_size_at_eps"])
                for k, d in lower[lower["t"] > 0].groupby("k"))}


# --- lower bound at constant ε: decoy parities behind a two-way selector -------------------------

#: Instances on at most this many variables are run under every order of their variables (6! = 720).
ALL_ORDERS_MAX_N = 6


def variable_orders(n: int, n_orders: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """Orders of the n variables to run a target under: ``(orders, all_orders)``, the identity first.

    Every order (n! of them) when n <= :data:`ALL_ORDERS_MAX_N`, else the identity and
    ``n_orders - 1`` orders drawn uniformly from ``rng``. Row j of ``orders`` lists, for each new
    variable, the original variable it stands for.
    """
    n, n_orders = check_int("n", n, 1, 24), check_int("n_orders", n_orders, 1)
    if n <= ALL_ORDERS_MAX_N:
        return np.array(list(itertools.permutations(range(n))), dtype=np.int64), True
    drawn = [rng.permutation(n) for _ in range(n_orders - 1)]
    return np.array([np.arange(n)] + drawn, dtype=np.int64).reshape(-1, n), False


def permute_variables(f: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """The truth tables g_o(y) = f(x) with x_{orders[o, j]} = y_j, one row per order: ``(P, 2^n)``.

    BuildTopDownDT breaks ties between variables towards the lowest index, so running it on g_o
    is running it on f with the ties broken in the order ``orders[o]``.
    """
    orders = np.atleast_2d(np.asarray(orders, dtype=np.int64))
    n = orders.shape[1]
    if np.asarray(f).size != 2**n:
        raise ValueError(f"f must have 2^n = {2 ** n} entries for orders of {n} variables, got {np.asarray(f).size}")
    bits = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1  # (2^n, n): y_j of every point
    return np.asarray(f)[(bits @ (1 << orders.T)).T]


def _greedy_sizes_every_order(tables: np.ndarray, eps_values: Sequence[float], k: int,
                              decoys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """BuildTopDownDT on every table at once (lock-step, :mod:`dtcore.exhaustive`): sizes ``(P, E)``, decoys first ``(P,)``.

    ``decoys[o]`` are the positions of the level-t decoys in table o; "decoys first" means every
    split at depth < k of the run at the smallest error queries one of them.
    """
    n = exhaustive.table_batch_variables(tables)
    stats = exhaustive.subcube_statistics(tables)
    runs = exhaustive.best_first_runs(*exhaustive.build_top_down_scores(stats), n, totals={"error": stats.error})
    sizes = np.stack([runs.size_at("error", e) for e in eps_values], axis=1)
    fixed = (~exhaustive.subcubes(n).free).sum(axis=1)  # depth of every subcube
    taken = np.arange(runs.chosen.shape[1])[None, :] < (sizes.min(axis=1) - 1)[:, None]  # splits of the smallest-ε run
    top = taken & (fixed[np.maximum(runs.chosen, 0)] < k)
    on_decoy = (runs.feature[:, :, None] == decoys[:, None, :]).any(axis=2)
    return sizes, ~(top & ~on_decoy).any(axis=1)


def selector_runs(*, n_max: int, seed: int, n_orders: int,
                  eps_values: Sequence[float] = CONSTANT_EPS) -> pd.DataFrame:
    """BuildTopDownDT on the decoy-selector family (our lower-bound family for [BLT20]) under many variable orders.

    One row per instance (k, t) on at most ``n_max`` variables, variable order and error: the
    explicit and greedy sizes, whether the greedy tree's top k levels query only level-t decoys,
    ``order`` (0 = the identity), ``all_orders`` (every order was run, else ``n_orders`` of them,
    drawn from the ``(seed, "ch01/orders")`` stream), ``explicit_gap`` (points where the explicit tree
    differs from f + |its size − the recursion's|), ``error`` of the identity-order tree on every point
    (NaN for the other orders), ``ratio`` = greedy / explicit and ``exponent`` = log(greedy) / log(explicit).
    Every order at n <= ALL_ORDERS_MAX_N runs in lock-step; above, each order is one run at the smallest
    error, whose prefix is the run at each larger error (the stop rule is checked before every split).
    """
    n_max = check_int("n_max", n_max, 4, 24)  # the smallest instance (k = 1, t = 1) has 4 variables
    n_orders = check_int("n_orders", n_orders, 1, 10**5)
    eps_values = [check_real(f"eps_values[{i}]", e, 0.0, 0.5) for i, e in enumerate(eps_values)]
    rng = seeds.experiment_rng(seed, "ch01/orders")
    rows = []
    for inst in decoy_instances("decoy selector", n_max):
        k, t = inst["k"], inst["t"]
        n_lb = t * (k + 3)
        f = truth_table(lambda X: decoy_selector_parity(X, k, t), n_lb)
        explicit = decoy_selector_parity_tree(n_lb, k, t)
        # the explicit tree must compute f exactly and have the size the recursion gives
        explicit_gap = int(np.count_nonzero(explicit.truth_table() != f)) + abs(explicit.size - inst["s"])
        orders, every = variable_orders(n_lb, n_orders, rng)
        block = np.arange((t - 1) * (k + 3), (t - 1) * (k + 3) + k)  # the decoys of level t
        positions = np.argsort(orders, axis=1)[:, block]  # where each order puts them
        tables = permute_variables(f, orders)
        if every:
            sizes, first = _greedy_sizes_every_order(tables, eps_values, k, positions)
        else:
            sizes, first = np.zeros((len(orders), len(eps_values)), dtype=np.int64), np.zeros(len(orders), dtype=bool)
            for o, g in enumerate(tables):  # one run per sampled order, at the smallest error
                run = build_top_down_dt(g, eps=min(eps_values))
                leaves, error = run.trace["leaves"].to_numpy(), run.trace["error"].to_numpy()
                sizes[o] = [leaves[np.argmax(error <= e)] for e in eps_values]
                first[o] = set(_top_features(run.tree, k)) <= set(positions[o].tolist())
        identity_error = {e: float(np.mean(build_top_down_dt(f, eps=e).tree.truth_table() != f)) for e in eps_values}
        for o in range(len(orders)):
            for j, e in enumerate(eps_values):
                rows.append({"k": k, "t": t, "n": n_lb, "eps": e, "order": o, "all_orders": every,
                             "orders_run": len(orders), "explicit_size": explicit.size,
                             "greedy_size": int(sizes[o, j]), "decoys_first": bool(first[o]),
                             "error": identity_error[e] if o == 0 else math.nan, "explicit_gap": explicit_gap})
    constant = pd.DataFrame(rows)
    constant["ratio"] = constant["greedy_size"] / constant["explicit_size"]
    constant["exponent"] = np.log(constant["greedy_size"]) / np.log(constant["explicit_size"])
    return constant


def selector_ranges(constant: pd.DataFrame) -> pd.DataFrame:
    """Per instance and error, the range over variable orders of the greedy size, ratio and exponent."""
    return (constant.groupby(["eps", "k", "t"], as_index=False, sort=False)
            .agg(n=("n", "first"), explicit_size=("explicit_size", "first"), orders_run=("orders_run", "first"),
                 all_orders=("all_orders", "first"), size_min=("greedy_size", "min"),
                 size_max=("greedy_size", "max"), ratio_min=("ratio", "min"), ratio_max=("ratio", "max"),
                 exponent_min=("exponent", "min"), exponent_max=("exponent", "max")))


def _span(low: float, high: float, fmt: str) -> str:
    return format(low, fmt) if format(low, fmt) == format(high, fmt) else f"{low:{fmt}}–{high:{fmt}}"


def selector_size_table(constant: pd.DataFrame) -> Any:
    """Greedy sizes and greedy / explicit as ranges over variable orders, per instance (rows) and error, styled."""
    ranges = selector_ranges(constant)
    table = ranges[ranges["eps"] == ranges["eps"].iloc[0]][["k", "t", "explicit_size", "orders_run", "all_orders"]]
    table = table.assign(orders=[f"all {o:,}" if a else f"{o} drawn" for o, a in
                                 zip(table["orders_run"], table["all_orders"])]).drop(columns=["orders_run", "all_orders"])
    for e, d in ranges.groupby("eps", sort=False):
        d = d.set_index(["k", "t"]).loc[list(zip(table["k"], table["t"]))]
        table[f"leaves, ε = {e}"] = [_span(a, b, "d") for a, b in zip(d["size_min"], d["size_max"])]
        table[f"greedy / s, ε = {e}"] = [_span(a, b, ".2f") for a, b in zip(d["ratio_min"], d["ratio_max"])]
    table = table.rename(columns={"explicit_size": "explicit size s", "orders": "variable orders"})
    return (table.style.hide(axis="index")
            .set_caption("BuildTopDownDT's tree against the explicit tree: ranges over the orders of the variables"))


def selector_measures(constant: pd.DataFrame) -> dict[str, Any]:
    """The decoy-selector checks: explicit-tree gap, fraction of runs (every order) with decoys first,
    max error/ε of the identity-order runs (and its largest possible value), and ``largest_ratio``:
    {ε: (smallest, largest) over orders of the greedy / explicit size at the instance with the largest ratio}."""
    ranges = selector_ranges(constant)
    largest = {}
    for e, d in ranges.groupby("eps", sort=False):
        top = d.loc[d["ratio_max"].idxmax()]
        largest[e] = (float(top["ratio_min"]), float(top["ratio_max"]))
    identity = constant[constant["order"] == 0]
    return {"explicit_gap": float(constant["explicit_gap"].max()),
            "decoys_first": float(constant["decoys_first"].mean()),
            "runs": len(constant.drop_duplicates(["k", "t", "order"])),
            "error_over_eps": worst(identity["error"] / identity["eps"]),
            "error_over_eps_high": 0.5 / float(constant["eps"].min()),
            "largest_ratio": largest}


def fig_constant_eps(constant: pd.DataFrame) -> Any:
    """Decoy selector: greedy against explicit size, one panel per constant ε, one band per k (range over orders)."""
    ranges = selector_ranges(constant)
    eps_values = list(dict.fromkeys(ranges["eps"].tolist()))
    fig, axes = figures.figure(len(eps_values), height=3.6, sharey=True, squeeze=False)
    axes = axes[0]
    s_line = np.sort(ranges["explicit_size"].unique())
    for ax, e in zip(axes, eps_values):
        d = ranges[ranges["eps"] == e]
        for k, dk in d.groupby("k"):
            line, = ax.plot(dk["explicit_size"], dk["size_max"], "o-", label=f"k = {k}")
            ax.plot(dk["explicit_size"], dk["size_min"], "o--", color=line.get_color(), mfc="white")
            ax.fill_between(dk["explicit_size"], dk["size_min"], dk["size_max"], color=line.get_color(), alpha=0.15)
        ax.plot(s_line, s_line, "k:", lw=1, label="explicit tree (size s)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set(xlabel="size s of the explicit tree", title=f"ε = {e}")
    axes[0].set_ylabel("leaves of BuildTopDownDT's tree")
    axes[0].legend(loc="upper left", fontsize="small")  # at the larger ε the sizes stay low on the left: this corner is free
    return fig


def exponent_trends(constant: pd.DataFrame, lower: pd.DataFrame) -> pd.DataFrame:
    """The measured exponent log(greedy size) / log s against log2 s, with a least-squares line per series.

    Series: the decoy-selector family at each constant ε (every run, every order) and the nested
    family learned exactly. One row per series: ``slope`` (rise of the exponent per doubling of s),
    ``intercept``, the range of s and of the exponent.
    """
    series = [(f"decoy selector, ε = {e}", d["explicit_size"].to_numpy(float), d["exponent"].to_numpy(float))
              for e, d in constant.groupby("eps", sort=False)]
    exact = lower[lower["t"] > 0]
    series.append(("nested decoys, exact", exact["explicit_size"].to_numpy(float),
                   (np.log(exact["greedy_size"]) / np.log(exact["explicit_size"])).to_numpy(float)))
    rows = []
    for name, s, exponent in series:
        slope, intercept = np.polyfit(np.log2(s), exponent, 1)
        rows.append({"series": name, "slope": float(slope), "intercept": float(intercept), "s_min": s.min(),
                     "s_max": s.max(), "exponent_min": exponent.min(), "exponent_max": exponent.max()})
    return pd.DataFrame(rows)


def fig_exponent(constant: pd.DataFrame, lower: pd.DataFrame) -> Any:
    """The exponent log(greedy) / log s against s: each family's measurements (ranges over orders) and its trend."""
    trends = exponent_trends(constant, lower).set_index("series")
    ranges = selector_ranges(constant)
    fig, ax = figures.figure(1, height=3.8)
    handles = []
    for j, (e, d) in enumerate(ranges.groupby("eps", sort=False)):
        mid = (d["exponent_min"] + d["exponent_max"]) / 2
        handles.append(ax.errorbar(d["explicit_size"], mid, yerr=[mid - d["exponent_min"], d["exponent_max"] - mid],
                                   fmt="o", color=f"C{j}", capsize=3, ms=4,
                                   label=f"decoy selector, ε = {e} (range over orders)"))
        handles += ax.plot([], [], "-", color=f"C{j}", lw=1)  # its trend, drawn below
    exact = lower[lower["t"] > 0]
    handles += ax.plot(exact["explicit_size"], np.log(exact["greedy_size"]) / np.log(exact["explicit_size"]), "s",
                       color="C3", ms=4, label="nested decoys, learned exactly")
    handles += ax.plot([], [], "-", color="C3", lw=1)
    s_all = np.geomspace(min(ranges["explicit_size"].min(), exact["explicit_size"].min()),
                         max(ranges["explicit_size"].max(), exact["explicit_size"].max()), 50)
    for j, name in enumerate(trends.index):  # series order: each ε, then the nested family
        row = trends.loc[name]
        colour = "C3" if name.startswith("nested") else f"C{j}"
        ax.plot(s_all, row["intercept"] + row["slope"] * np.log2(s_all), "-", color=colour, lw=1)
        handles[2 * j + 1].set_label(f"its trend: {row['slope']:+.2f} per doubling of s")
    ax.axhline(1, color="k", ls=":", lw=1)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())  # 8, 16, 32, 64: plain numbers
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set(xlabel="size s of the explicit tree", ylabel=r"exponent $\log(\mathrm{greedy\ size}) / \log s$")
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize="small")
    return fig


def _instances(pairs: Sequence[tuple[int, int]]) -> str:
    return "(k, t) = " + ", ".join(f"({k}, {t})" for k, t in pairs)


def selector_glue(constant: pd.DataFrame, lower: pd.DataFrame | None = None) -> dict[str, Any]:
    """The decoy-selector numbers and sentences for the text, per ε (key: 100 ε on three digits).

    Per ε: the largest blow-up over orders (sizes, instance, ratio under the worst and the best
    order, exponent), where the greedy tree is larger than the explicit one under every order, smaller
    under every order, or either, and along which k the ratio grows with t under every order; the
    orders run; and, with ``lower``, each series' trend of the exponent.
    """
    ranges = selector_ranges(constant)
    values: dict[str, Any] = {}
    for e, d in ranges.groupby("eps", sort=False):
        key = f"{int(round(100 * e)):03d}"
        best = d.loc[d["ratio_max"].idxmax()]
        values[f"ch1_ce_ratio_{key}"] = float(best["ratio_max"])
        values[f"ch1_ce_ratio_best_order_{key}"] = float(best["ratio_min"])
        values[f"ch1_ce_greedy_{key}"] = _span(int(best["size_min"]), int(best["size_max"]), "d")
        values[f"ch1_ce_explicit_{key}"] = int(best["explicit_size"])
        values[f"ch1_ce_kt_{key}"] = f"k = {int(best['k'])}, t = {int(best['t'])}"
        values[f"ch1_ce_exponent_{key}"] = float(d["exponent_max"].max())
        pairs = list(zip(d["k"], d["t"]))
        larger = [p for p, lo in zip(pairs, d["ratio_min"]) if lo > 1]
        smaller = [p for p, hi in zip(pairs, d["ratio_max"]) if hi < 1]
        either = [p for p in pairs if p not in larger and p not in smaller]
        parts = []
        if larger:
            parts.append(f"larger than the explicit tree under every order at {_instances(larger)}")
        if smaller:
            parts.append(f"smaller under every order at {_instances(smaller)}")
        if either:
            parts.append(f"larger or smaller depending on the order at {_instances(either)}")
        values[f"ch1_ce_where_{key}"] = "; ".join(parts)
        rising, not_rising = [], []
        for k, dk in d.sort_values("t").groupby("k"):
            if len(dk) < 2:
                continue
            grows = bool(np.all(dk["ratio_min"].to_numpy()[1:] > dk["ratio_max"].to_numpy()[:-1]))
            (rising if grows else not_rising).append(int(k))
        growth = []
        if rising:
            growth.append(f"rises with t under every order for k = {', '.join(map(str, rising))}")
        if not_rising:
            growth.append(f"does not for k = {', '.join(map(str, not_rising))} (its ranges at consecutive t overlap "
                          "or fall)")
        values[f"ch1_ce_growth_{key}"] = ", and ".join(growth) or "has a single t per k"
    sampled = ranges[~ranges["all_orders"]]
    every = ranges[ranges["all_orders"]]
    values["ch1_ce_orders"] = ", and ".join(
        ([f"every order of its variables for each instance on at most {int(every['n'].max())} variables"]
         if len(every) else [])
        + ([f"the identity order and {int(sampled['orders_run'].iloc[0]) - 1} orders drawn uniformly at random for "
            "the larger instances"] if len(sampled) else []))
    values["ch1_ce_n_max"] = int(constant["n"].max())
    if lower is not None:
        trends = exponent_trends(constant, lower).set_index("series")
        for e in dict.fromkeys(constant["eps"].tolist()):
            values[f"ch1_ce_slope_{int(round(100 * e)):03d}"] = float(trends.loc[f"decoy selector, ε = {e}", "slope"])
        values["ch1_lb_slope_exact"] = float(trends.loc["nested decoys, exact", "slope"])
    return values
