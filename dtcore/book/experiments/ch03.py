"""Chapter 3's experiments: stochastic decision trees under nasty noise ([BLT21], Blanc–Lange–Tan 2021).

Each public function runs one experiment of the chapter, aggregates it, draws one of its figures, or
returns the values the page glues into its text. They take every parameter as an argument (nothing
is read from the notebook) and draw only from the generators they are given. The notebook
``book/03_stochastic_trees.ipynb`` calls them in order and adds the verification rows itself.

Experiments, in the page's order: the mean function and Fact 1.2 (:func:`fact_1_2_trees`), Facts 1.1, 1.2
and Lemma 2.1 at their suprema over every small stochastic tree (:func:`exhaustive_suprema`), Lemma 2.1's
stochastic-leaf stacks (:func:`lemma_2_1_stacks`), FIND against exhaustive search and pystreed
(:func:`find_crosscheck`) and its running time (:func:`find_timing`), Table 1 under nasty noise
(:func:`noisy_setting`, :func:`table1_runs`, :func:`table1_frame`), FIND's depth (:func:`depth_sweep`),
the indistinguishable pair (:func:`lower_bound_runs`), Proposition 5.1 (:func:`proposition_5_1`) and
the FIND-versus-pystreed benchmark (:func:`find_vs_pystreed`).

Randomness follows the book's rule (:mod:`dtcore.book.seeds`): each experiment draws from its own stream
keyed by the chapter seed and a stable name ("ch03/<experiment>"). Functions that draw once take that
generator (``rng``); functions that need one stream per repetition take ``seed`` and spawn the
repetitions' streams from their key (:func:`keyed_streams`), so adding an experiment never shifts another's.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ... import bounds
from ...analysis import walsh_hadamard
from ...audit import worst_case
from ...audit.oracles import brute_force_min_errors, count_trees
from ...cube import all_points
from ...find import FindResult, find, population_find, training_errors
from ...learnability import hoeffding_halfwidth
from ...noise import ADVERSARIES, corrupt, equalizing_adversary, indistinguishable_pair
from ...polyreg import l1_regression, low_degree_regression, n_monomials, trunc
from ...stochastic import (bayes_optimal, copies_mean_deviation, deterministic_depths, error, mean_table,
                           mean_table_by_coins, opt, sample,
                           random_stochastic_tree, stochastic_leaf_approximation, truncate_deterministic_depth)
from ...tree import DecisionTree
from .. import figures
from ..chapter import styled_table
from ..report import Provenance, VerificationTable, worst
from ..seeds import seed_sequence
from ..sweep import sweep

#: The three learners of Table 1, in the order the page discusses them.
LEARNERS = ("FIND", "L2 (low-degree)", "L1 regression")
#: Standard deviations of the noise added to mu_T in the Fact 1.2 experiment.
FACT_NOISE_SCALES = (0.05, 0.1, 0.2, 0.4)
#: Level of each learner's permutation test in the indistinguishable-pair experiment (three learners:
#: a family-wise level of 1.5%).
PAIR_ALPHA = 0.005
#: Permutations of each of those tests.
PAIR_PERMUTATIONS = 4999
#: What the Fact 4.3 chain compares, per learner.
CHAIN_RATIO = {"FIND": "err_S°(h) / (err_S°(FIND(S°)) + 2η)", "L2 (low-degree)": "L2_S°(trunc p*) / (L2_S°(q) + 2η)",
               "L1 regression": "L1_S°(trunc p*) / (L1_S°(q) + 2η)"}
#: The label of the book's box restating each learner's theorem.
THEOREM_BOX = {"FIND": "thm-blt21-3", "L2 (low-degree)": "thm-blt21-4", "L1 regression": "thm-blt21-4"}
#: Why the Fact 4.3 chain of each learner is shown, not counted: it holds by algebra on every sample.
CHAIN_WHY = {
    "FIND": "holds by algebra on every sample once FIND is optimal on S (checked against brute force and pystreed) "
            "and the two samples differ in at most ⌊ηm⌋ rows (the budget identity)",
    "L2 (low-degree)": "holds by algebra on every sample once the fit beats q on S (the optimality identity) and the two "
                       "samples differ in at most ⌊ηm⌋ rows: truncation only lowers a loss against labels in {0, 1}",
    "L1 regression": "holds by algebra on every sample once the fit beats q on S (the optimality identity) and the two "
                     "samples differ in at most ⌊ηm⌋ rows: truncation only lowers a loss against labels in {0, 1}"}
#: Why each learner's final error bound is shown, not counted: it follows from the rows that are.
FINAL_WHY = {
    "FIND": "follows by algebra from the two Lemma 4.2 rows: error(h) ≤ error(T*) + 2η + gap(h) + gap(T*) by "
            "FIND's optimality on S° and S and the budget, so it holds whenever they do",
    "L2 (low-degree)": "follows by algebra from the Lemma 5.2 and Hoeffding rows: with the fit's optimality on S they "
                       "bound E(trunc p* − μ_T)², and Fact 1.2 with Cauchy–Schwarz turns that into the error bound",
    "L1 regression": "follows by algebra from the Lemma 5.4 and Hoeffding rows: with the fit's optimality on S they "
                     "bound E|trunc p* − T| by q's loss + 2η + ε₅.₄, and q's loss is at most 2·opt + ε₁"}
_GUARANTEE_LABEL = {"FIND": "opt + 2η + ε", "L2 (low-degree)": "opt + 2√(2η + ε₂ + ε₅.₂ + γ₁)",
                    "L1 regression": "2·opt + 2η + ε₁ + ε₅.₄ + γ₁"}


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def theorem_or_observation(table: VerificationTable, result: str, quantity: str, measured: float, bound: float, *,
                           reach: tuple[float, float], measured_by: Provenance, bound_by: Provenance, why: str,
                           box: str = "", tolerance: float = 0.0, worst_case: str = "") -> None:
    """Add ``measured <= bound`` as a theorem row, or as an observation when the bound is vacuous.

    ``reach`` is the quantity's real reach; a bound at or above its top cannot fail, so the row is
    then shown with ``why`` and not counted (the rule of :class:`dtcore.book.report.VerificationTable`).
    """
    if bound < reach[1]:
        table.theorem(result, quantity, measured, bound, reach=reach, measured_by=measured_by, bound_by=bound_by,
                      box=box, tolerance=tolerance, worst_case=worst_case)
    else:
        table.observation(result, quantity, measured, bound, box=box, why=why, worst_case=worst_case)


def keyed_streams(seed: int, key: str, count: int) -> list[np.random.Generator]:
    """``count`` independent generators of experiment ``key`` under chapter seed ``seed``.

    Generator i is seeded by the i-th child of :func:`dtcore.book.seeds.seed_sequence` ``(seed, key)``, so
    it depends only on (seed, key, i): the same repetition gets the same stream whatever ``count`` is.
    """
    count = _positive_int("count", count)
    return [np.random.default_rng(child) for child in seed_sequence(seed, key).spawn(count)]


def time_best(fn: Callable[[], object], repeat: int = 3) -> float:
    """The least wall-clock time of ``repeat`` calls of ``fn``, in seconds."""
    repeat = _positive_int("repeat", repeat)
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


# --- the target and Fact 1.2 ----------------------------------------------------------------------

def target_figure(target: DecisionTree) -> Figure:
    """The chapter's random stochastic target drawn as a tree ([BLT21] Sec. 1, Figure 1)."""
    fig, ax = figures.figure(1, height=min(12.0, 0.9 * (target.depth + 1) + 0.6))
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
    n_trees = _positive_int("n_trees", n_trees)
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


# --- Facts 1.1, 1.2 and Lemma 2.1 over every small stochastic tree ---------------------------------

#: The rows of :func:`dtcore.audit.worst_case.stochastic_suprema`, keyed by the statement they check.
EXHAUSTIVE_FORMS = {"Fact 1.1": "every deterministic h", "Fact 1.2": "every h on the grid",
                    "Lemma 2.1": "the proof's expectation"}
#: Each statement's quantity (measured / bound, at most 1 where the statement holds) as the table names it.
EXHAUSTIVE_QUANTITY = {
    "Fact 1.1": "sup of opt_T / error_T(h) over every μ_T and every deterministic h",
    "Fact 1.2": "sup of Pr[round(h) ≠ T] / (opt_T + 2E|μ_T − h|) over every μ_T and every h on the grid",
    "Lemma 2.1": "sup of E_r E_x|mean of c copies − μ_T| · 2√c over every μ_T and c"}
#: Coin probabilities and copy counts of the search (those of the page "Every function on four variables").
EXHAUSTIVE_COINS = (0.1, 0.25, 0.5, 0.75, 0.9)
EXHAUSTIVE_COPIES = (1, 2, 3, 4, 9, 16, 25, 100)
#: The box of the page that states each one.
EXHAUSTIVE_BOX = {"Fact 1.1": "", "Fact 1.2": "lem-blt21-fact12", "Lemma 2.1": "lem-blt21-2-1"}


def exhaustive_suprema(*, depth: int = 3, coins: Sequence[float] = EXHAUSTIVE_COINS,
                       copies: Sequence[int] = EXHAUSTIVE_COPIES) -> tuple[pd.DataFrame, float]:
    """[BLT21] Facts 1.1, 1.2 and Lemma 2.1 at their suprema over every mean function, and the CPU seconds.

    The class: every mean function mu_T of a stochastic tree of depth <= ``depth`` on two variables
    whose coins take probabilities in ``coins`` (:func:`dtcore.audit.worst_case.stochastic_suprema`;
    the page "Every function on four variables" shows the same search). One row per statement,
    indexed by the result: ``sup_ratio`` (measured / bound; 1 is the bound), ``verdict``, ``table``
    (the witness) and ``cases``.
    """
    start = time.process_time()
    tracker = worst_case.stochastic_suprema(2, depth, tuple(coins), tuple(int(c) for c in copies))
    seconds = time.process_time() - start
    frame = pd.DataFrame([s.row() for s in tracker.best.values()]).set_index("result")
    return frame, seconds


def check_exhaustive(table: VerificationTable, suprema: pd.DataFrame, result: str, *,
                     copies: Sequence[int] = EXHAUSTIVE_COPIES) -> bool:
    """Add the counted row of ``result`` (a key of :data:`EXHAUSTIVE_FORMS`) at its exhaustive supremum.

    ``copies`` are the copy counts the search used (they fix the reach of Lemma 2.1's ratio).
    """
    if result not in EXHAUSTIVE_FORMS:
        raise ValueError(f"result must be one of {list(EXHAUSTIVE_FORMS)}, got {result!r}")
    row = suprema.loc[result]
    witness = f"{row['table']} ({row['note']}; {int(row['cases']):,} cases)"
    common = dict(box=EXHAUSTIVE_BOX[result], worst_case=witness, tolerance=worst_case.TIGHT_TOLERANCE)
    if result == "Lemma 2.1":
        # E_r|Binomial(c, μ)/c − μ| ≤ 2μ(1 − μ) ≤ 1/2 (Jensen over the copies), so the ratio is at most √c
        top = math.sqrt(max(int(c) for c in copies))
        return table.theorem(result, EXHAUSTIVE_QUANTITY[result], float(row["sup_ratio"]), 1.0, reach=(0.0, top),
                             measured_by=copies_mean_deviation, bound_by=bounds.blt21_lemma21_expected_l1, **common)
    return table.theorem(result, EXHAUSTIVE_QUANTITY[result], float(row["sup_ratio"]), 1.0, reach=(0.0, math.inf),
                         reach_why="a ratio of two probabilities: the bound side can be as close to 0 as one likes",
                         measured_by=worst_case.stochastic_suprema, bound_by=bayes_optimal, **common)


def exhaustive_glue(suprema: pd.DataFrame) -> dict[str, Any]:
    """Each statement's supremum and witness for the text (keys ``ch3_exh_<fact11|fact12|lemma21>_sup|_witness``)."""
    out: dict[str, Any] = {}
    for result in EXHAUSTIVE_FORMS:
        key = "ch3_exh_" + {"Fact 1.1": "fact11", "Fact 1.2": "fact12", "Lemma 2.1": "lemma21"}[result]
        out[key + "_sup"] = float(suprema.loc[result, "sup_ratio"])
        out[key + "_witness"] = str(suprema.loc[result, "table"]).replace("mu_T", "μ_T")
        out[key + "_cases"] = f"{int(suprema.loc[result, 'cases']):,}"
    return out


# --- Lemma 2.1 ------------------------------------------------------------------------------------

def lemma_2_1_stacks(target: DecisionTree, *, c_grid: Sequence[int], lemma_draws: int,
                     rng: np.random.Generator) -> pd.DataFrame:
    """[BLT21] Lemma 2.1: ``lemma_draws`` stacks of c fixed-coin copies of ``target`` for every c.

    One row per (c, draw): the L1 distance of the stack's mean to mu_T with the lemma's bound
    1/(2 sqrt c), its size with the bound s^c (as c log2 s), the largest deviation of its mean from
    the average of the copies' truth tables, and whether a coin sits above an internal node.
    """
    lemma_draws = _positive_int("lemma_draws", lemma_draws)
    mu = mean_table(target)
    rows = []
    for c in c_grid:
        for draw in range(lemma_draws):
            stacked, copies = stochastic_leaf_approximation(target, c, rng=rng)
            mu_bar = mean_table(stacked)
            average = np.mean([cp.truth_table() for cp in copies], axis=0)
            rows.append({"c": c, "draw": draw, "l1": float(np.abs(mu_bar - mu).mean()),
                         "size": stacked.size, "max_copy_size": max(cp.size for cp in copies),
                         "stack_vs_average": float(np.abs(mu_bar - average).max()),
                         "coins_inside": stacked.has_stochastic_nodes})
    lemma = pd.DataFrame(rows)
    lemma["bound"] = [bounds.blt21_lemma21_expected_l1(c) for c in lemma["c"]]
    lemma["log2_size_bound"] = lemma["c"] * math.log2(target.size)
    return lemma


def lemma_2_1_summary(lemma: pd.DataFrame) -> pd.DataFrame:
    """Per c of [BLT21] Lemma 2.1: mean and best L1 distance, the bound, the largest stack and log2 s^c."""
    return lemma.groupby("c").agg(mean_l1=("l1", "mean"), best_l1=("l1", "min"), bound=("bound", "first"),
                                  max_size=("size", "max"), log2_size_bound=("log2_size_bound", "first"))


def lemma_2_1_figure(lemma: pd.DataFrame, summary: pd.DataFrame, *, n: int) -> Figure:
    """[BLT21] Lemma 2.1: L1 distance under 1/(2 sqrt c) (left) and log2 size under s^c and 2^n (right)."""
    import seaborn as sns

    fig, axes = figures.figure(2, height=4.0)
    ax = axes[0]
    sns.stripplot(data=lemma, x="c", y="l1", ax=ax, color="C0", alpha=0.5, size=4)
    ax.plot(range(len(summary)), summary["mean_l1"], "o-", color="C0", label="mean over draws")
    ax.plot(range(len(summary)), summary["bound"], "k--", label=r"bound $1/(2\sqrt{c})$")
    ax.set_xlabel("copies stacked, c")
    ax.set_ylabel(r"$\mathbb{E}_x|\mu_T - \mu_{\overline{T}}|$")
    ax.set_title("L1 distance to the target")
    ax.legend()
    ax = axes[1]
    ax.plot(summary.index, np.log2(summary["max_size"]), "o-", label="stack (max over draws)")
    ax.plot(summary.index, summary["log2_size_bound"], "k--", label=r"bound $s^c$")
    ax.axhline(n, color="grey", ls=":", label=r"$2^n$ (the most a tree has)")
    ax.set_xlabel("copies stacked, c")
    ax.set_ylabel(r"$\log_2$ size")
    ax.set_title("Size of the stack")
    ax.legend(loc="upper left")
    return fig


def lemma_2_1_glue(summary: pd.DataFrame, *, lemma_draws: int, c_grid: Sequence[int]) -> dict[str, Any]:
    """[BLT21] Lemma 2.1 at the largest c, for the text."""
    return {"ch3_lemma_draws": lemma_draws, "ch3_lemma_cmax": c_grid[-1],
            "ch3_lemma_l1_cmax": float(summary["mean_l1"].iloc[-1]),
            "ch3_lemma_bound_cmax": float(summary["bound"].iloc[-1]),
            "ch3_lemma_size_cmax": int(summary["max_size"].iloc[-1])}


# --- FIND: correctness and running time -----------------------------------------------------------

def _random_bits(rng: np.random.Generator, shape: int | tuple[int, int]) -> np.ndarray:
    return (rng.random(shape) < 0.5).astype(np.uint8)


def find_crosscheck(target: DecisionTree, *, m: int, rng: np.random.Generator, n_small_cases: int = 20,
                    n_target_samples: int = 3) -> pd.DataFrame:
    """[BLT21] Lemma 3.1: FIND's training errors against exhaustive search and against pystreed.

    ``n_small_cases`` random data sets on 2 to 4 variables are solved at every depth up to 3 by
    FIND and by brute force over all trees (:func:`dtcore.audit.oracles.brute_force_min_errors`);
    ``n_target_samples`` samples of ``target`` (at most 1500 rows, plus 4 uniform columns) at depths
    1 to 3 by FIND and by ``pystreed.STreeDClassifier``. One row per case with both error counts.
    """
    from pystreed import STreeDClassifier

    rows = []
    for _ in range(n_small_cases):
        n_small = int(rng.integers(2, 5))
        X = _random_bits(rng, (int(rng.integers(5, 60)), n_small))
        y = (rng.random(X.shape[0]) < rng.uniform(0.2, 0.8)).astype(np.uint8)
        for d in range(0, min(3, n_small) + 1):
            rows.append({"check": "brute force", "n": n_small, "m": X.shape[0], "d": d,
                         "find": find(X, y, depth=d).errors, "reference": brute_force_min_errors(X, y, d)})
    for _ in range(n_target_samples):
        X, y = sample(target, min(m, 1500), rng=rng)
        X = np.concatenate([X, _random_bits(rng, (X.shape[0], 4))], axis=1)  # + uniform noise columns
        for d in (1, 2, 3):
            clf = STreeDClassifier(max_depth=d)
            clf.fit(X, y)
            rows.append({"check": "pystreed", "n": X.shape[1], "m": X.shape[0], "d": d,
                         "find": find(X, y, depth=d).errors, "reference": int((clf.predict(X) != y).sum())})
    cross = pd.DataFrame(rows)
    cross["difference"] = cross["find"] - cross["reference"]
    return cross


def find_crosscheck_summary(cross: pd.DataFrame) -> pd.DataFrame:
    """Cases and largest |FIND - reference| per reference and depth ([BLT21] Lemma 3.1)."""
    return cross.groupby(["check", "d"]).agg(cases=("difference", "size"),
                                             max_abs_difference=("difference", lambda v: v.abs().max()))


def find_timing(*, benchmark_m: int, rng: np.random.Generator, depths: Sequence[int] = (1, 2, 3),
                dims: Sequence[int] = (8, 16, 32)) -> pd.DataFrame:
    """[BLT21] Lemma 3.2: FIND's time (best of two) on uniform data over depth x n x |X|.

    The sample sizes are 1/5, 2/5 and 4/5 of ``benchmark_m``. One row per (d, n, m) with seconds.
    """
    benchmark_m = _positive_int("benchmark_m", benchmark_m)
    rows = []
    for d in depths:
        for n in dims:
            for m in (benchmark_m // 5, 2 * benchmark_m // 5, 4 * benchmark_m // 5):
                X = _random_bits(rng, (m, n))
                y = _random_bits(rng, m)
                rows.append({"d": d, "n": n, "m": m, "seconds": time_best(lambda: find(X, y, depth=d), 2)})
    return pd.DataFrame(rows)


def find_timing_slopes(timing: pd.DataFrame, *, benchmark_m: int) -> tuple[float, float]:
    """Fitted log-log slopes of FIND's time at depth 3 in |X| (n = 32) and in n (largest |X|) ([BLT21] Lemma 3.2)."""
    by_m = timing[(timing.d == 3) & (timing.n == 32)].sort_values("m")
    slope_m = float(np.polyfit(np.log(by_m["m"]), np.log(by_m["seconds"]), 1)[0])
    by_n = timing[(timing.d == 3) & (timing.m == 4 * benchmark_m // 5)].sort_values("n")
    slope_n = float(np.polyfit(np.log(by_n["n"]), np.log(by_n["seconds"]), 1)[0])
    return slope_m, slope_n


def find_timing_figure(timing: pd.DataFrame, *, benchmark_m: int) -> Figure:
    """[BLT21] Lemma 3.2: FIND's time against |X| at n = 32 and against n at the largest |X|, log-log."""
    fig, axes = figures.figure(2, height=4.0)
    for d, grp in timing[timing["n"] == 32].groupby("d"):
        axes[0].plot(grp["m"], grp["seconds"], "o-", label=f"d = {d}")
    ref_m = np.array([benchmark_m // 5, 4 * benchmark_m // 5])
    axes[0].plot(ref_m, timing[(timing.n == 32) & (timing.d == 3)]["seconds"].iloc[0] * ref_m / ref_m[0], "k--",
                 label="slope 1")
    axes[0].set_xscale("log")
    axes[0].set_yscale("log")
    sizes = sorted(timing["m"].unique())
    axes[0].set_xticks(sizes, [str(v) for v in sizes])
    axes[0].minorticks_off()
    axes[0].set_xlabel("sample size |X|")
    axes[0].set_ylabel("seconds")
    axes[0].set_title("n = 32")
    axes[0].legend(loc="upper left")
    m_big = 4 * benchmark_m // 5
    for d, grp in timing[timing["m"] == m_big].groupby("d"):
        axes[1].plot(grp["n"], grp["seconds"], "o-", label=f"d = {d}")
    ref_n = np.array([8, 32])
    axes[1].plot(ref_n, timing[(timing.m == m_big) & (timing.d == 3)]["seconds"].iloc[0] * (ref_n / 8.0) ** 3, "k--",
                 label=r"slope 3 ($n^3$)")
    axes[1].set_xscale("log", base=2)
    axes[1].set_yscale("log")
    axes[1].set_xlabel("number of variables n")
    axes[1].set_title(f"|X| = {m_big}")
    axes[1].legend(loc="upper left")
    return fig


# --- Table 1: the three learners under nasty noise -----------------------------------------------

@dataclass(frozen=True)
class NoisySetting:
    """What every Table 1 run shares: the target, the sizes, and each lemma's ε for this m ([BLT21] Sec. 4-5).

    ``approx`` is the best depth-``depth`` tree under the true distribution, ``q_tree`` the paper's
    comparator polynomial mu_T' (the target cut at deterministic depth ``degree``), ``a2``/``a1`` its
    exact squared/absolute distances to mu_T, ``var_term`` E mu_T(1 - mu_T).
    """

    target: DecisionTree
    m: int
    depth: int
    degree: int
    delta: float
    opt: float
    approx: FindResult
    gamma: float
    gamma_1: float
    eps_52: float
    eps_54: float
    q_tree: DecisionTree
    a2: float
    a1: float
    var_term: float

    @property
    def approx_excess(self) -> float:
        """Error of the best depth-d tree minus opt_T."""
        return self.approx.error - self.opt

    @property
    def eps_find(self) -> float:
        """FIND's ε: the approximation excess plus Lemma 4.2's 2γ."""
        return self.approx_excess + 2 * self.gamma

    def final_bounds(self, eta: float) -> dict[str, float]:
        """[BLT21] Theorems 1/3/4 at corruption ``eta`` with every ε from the lemmas (no measured gap inside)."""
        return {"FIND": bounds.blt21_find_error_bound(self.opt, eta, self.eps_find),
                "L2 (low-degree)": bounds.blt21_low_degree_error_bound(self.opt, eta,
                                                                       self.a2 + self.eps_52 + self.gamma_1),
                "L1 regression": bounds.blt21_l1_error_bound(self.opt, eta, self.a1 + self.eps_54 + self.gamma_1)}


def noisy_setting(target: DecisionTree, *, m: int, depth: int, degree: int, delta: float) -> NoisySetting:
    """The shared quantities of Table 1: [BLT21] Lemma 4.2's γ, Lemmas 5.2/5.4's ε, the comparator q."""
    mu = mean_table(target)
    n = target.n
    q_tree = truncate_deterministic_depth(target, degree)
    q_cube = mean_table(q_tree)
    n_coef = n_monomials(n, degree)
    return NoisySetting(
        target=target, m=m, depth=depth, degree=degree, delta=delta, opt=opt(mu),
        approx=population_find(mu, depth),
        gamma=bounds.blt21_lemma42_uniform_deviation(count_trees(n, depth), m, delta),  # all depth-d trees
        gamma_1=bounds.blt21_lemma42_uniform_deviation(1, m, delta),                    # one fixed function (q)
        eps_52=bounds.blt21_lemma52_eps(m, n_coef, delta), eps_54=bounds.blt21_lemma54_eps(m, n_coef, delta),
        q_tree=q_tree, a2=float(np.mean((q_cube - mu) ** 2)), a1=float(np.mean(np.abs(q_cube - mu))),
        var_term=float(np.mean(mu * (1 - mu))))


def _rows_changed(X0: np.ndarray, y0: np.ndarray, X: np.ndarray, y: np.ndarray) -> int:
    # counted from the two samples, not from the adversary's own mask
    return int(((X != X0).any(axis=1) | (y != y0)).sum())


def run_learners(rng: np.random.Generator, rep: int, adversary: str, eta: float, *, setting: NoisySetting,
                 seed: int) -> list[dict[str, Any]]:
    """One Table 1 run ([BLT21] Theorems 1, 3, 4): corrupt a clean sample, fit FIND, L2 and L1 on it.

    The clean sample of repetition ``rep`` is the same for every (adversary, eta): it comes from
    stream ``rep`` of key "ch03/table1_clean" (:func:`keyed_streams`); the adversary draws from
    ``rng``. One row per learner: exact error, whether it is a tree, both sides of the
    Fact 4.3 chain on the clean sample, the final bound, the uniform-convergence gaps at the returned
    hypothesis and at the fixed comparator, and (regressions) the optimality ratio on the corrupted
    sample; with the rows changed and the budget.
    """
    target, m, depth, degree = setting.target, setting.m, setting.depth, setting.degree
    points = all_points(target.n)
    mu = mean_table(target)
    q_cube = mean_table(setting.q_tree)
    X0, y0 = sample(target, m, rng=keyed_streams(seed, "ch03/table1_clean", rep + 1)[rep])
    c = corrupt(adversary, X0, y0, eta, rng=rng, depth=depth, degree=degree)
    changed, allowed = _rows_changed(X0, y0, c.X, c.y), math.floor(eta * m + 1e-12)
    eta_k = changed / m
    final = setting.final_bounds(eta)
    clean_tree = find(X0, y0, depth=depth).tree
    h_tree = find(c.X, c.y, depth=depth).tree
    err_find = error(mu, h_tree.predict(points).astype(float))
    rows = [{"algorithm": "FIND", "error": err_find, "proper": isinstance(h_tree, DecisionTree),
             "sample_lhs": training_errors(h_tree, X0, y0) / m,
             "sample_rhs": training_errors(clean_tree, X0, y0) / m + 2 * eta_k, "bound": final["FIND"],
             # Lemma 4.2: clean-sample error vs true error of the returned tree and of the best depth-d tree
             "gap_fit": abs(training_errors(h_tree, X0, y0) / m - err_find),
             "gap_q": abs(training_errors(setting.approx.tree, X0, y0) / m - setting.approx.error),
             "optimality_ratio": np.nan, "optimality_excess": np.nan}]   # FIND's: against brute force and pystreed
    q_clean = setting.q_tree.predict_proba(X0)
    fitted = {"L2 (low-degree)": low_degree_regression(c.X, c.y, degree=degree),
              "L1 regression": l1_regression(c.X, c.y, degree=degree)}
    q_seen = setting.q_tree.predict_proba(c.X)
    seen_loss = {"L2 (low-degree)": lambda v: float(np.mean((v - c.y) ** 2)),
                 "L1 regression": lambda v: float(np.mean(np.abs(v - c.y)))}
    # each regression must beat every other degree-k polynomial on the sample it saw: the other fit and q
    opt_ratio, opt_excess = {}, {}
    for k, own in fitted.items():
        rivals = [seen_loss[k](q_seen), *(seen_loss[k](f.value(c.X)) for other, f in fitted.items() if other != k)]
        opt_ratio[k] = seen_loss[k](own.value(c.X)) / min(rivals)
        opt_excess[k] = max(0.0, seen_loss[k](own.value(c.X)) - min(rivals))
    population_loss = {"L2 (low-degree)": lambda f: float(np.mean((f - mu) ** 2)) + setting.var_term,
                       "L1 regression": lambda f: float(np.mean(mu * (1 - f) + (1 - mu) * f))}
    for name, loss in (("L2 (low-degree)", lambda v: (v - y0) ** 2), ("L1 regression", lambda v: np.abs(v - y0))):
        p = fitted[name]
        tp_sample, tp_cube = trunc(p.value(X0)), trunc(p.value(points))
        lhs, rhs = float(loss(tp_sample).mean()), float(loss(q_clean).mean()) + 2 * eta_k
        rows.append({"algorithm": name, "error": error(mu, p.predict_proba(points)),
                     "proper": isinstance(p, DecisionTree), "sample_lhs": lhs, "sample_rhs": rhs, "bound": final[name],
                     # Lemma 5.2 / 5.4 at the fitted polynomial, and Hoeffding at the fixed q
                     "gap_fit": abs(lhs - population_loss[name](tp_cube)),
                     "gap_q": abs(float(loss(q_clean).mean()) - population_loss[name](q_cube)),
                     "optimality_ratio": opt_ratio[name], "optimality_excess": opt_excess[name]})
    for row in rows:
        row.update(changed=changed, budget=allowed)
    return rows


def table1_runs(setting: NoisySetting, *, eta_grid: Sequence[float], repetitions: int, seed: int,
                n_jobs: int | None = None) -> pd.DataFrame:
    """Every Table 1 run ([BLT21] Theorems 1, 3, 4): repetitions x adversaries x eta (eta = 0 once).

    Rows of :func:`run_learners` with the excess over opt_T added. The adversaries' streams are the sweep's,
    keyed "ch03/table1"; ``n_jobs`` as in :func:`dtcore.book.sweep.sweep` (the rows do not depend on it).
    """
    repetitions = _positive_int("repetitions", repetitions)
    points = [dict(rep=r, adversary=a, eta=e) for r in range(repetitions) for a in ADVERSARIES for e in eta_grid
              if e > 0 or a == ADVERSARIES[0]]
    runs = sweep(functools.partial(run_learners, setting=setting, seed=seed), points, repetitions=1, seed=seed,
                 key="ch03/table1", n_jobs=n_jobs)
    runs["excess"] = runs["error"] - setting.opt
    return runs


def noisy_setting_glue(setting: NoisySetting, runs: pd.DataFrame) -> dict[str, Any]:
    """FIND's depth, the degree, m, δ, the approximation excess, 2γ and Lemmas 5.2/5.4's ε, for the text."""
    n, size = setting.target.n, setting.target.size
    theory_degree = math.ceil(math.log2(size / 0.1))   # the theorem's degree log(s/ε) at ε = 0.1
    return {"ch3_n": n, "ch3_coefs": n_monomials(n, setting.degree), "ch3_theory_degree": theory_degree,
            "ch3_theory_coefs": f"{n_monomials(n, min(n, theory_degree)):,}",
            "ch3_depth": setting.depth, "ch3_degree": setting.degree, "ch3_m": setting.m, "ch3_delta": setting.delta,
            "ch3_approx_F": setting.approx_excess, "ch3_two_gamma": 2 * setting.gamma, "ch3_eps52": setting.eps_52,
            "ch3_eps54": setting.eps_54, "ch3_n_runs": len(runs)}


def table1_figure(runs: pd.DataFrame, setting: NoisySetting, *, eta_grid: Sequence[float]) -> Figure:
    """[BLT21] Table 1 on data: each learner's excess against η per adversary (one panel per learner, one
    above the other) under its guarantee − opt, drawn up to the largest excess there is (1 − opt)."""
    import seaborn as sns

    eta_axis = np.linspace(0, max(eta_grid), 100)
    fig, axes = figures.figure(1, 3, height=10.5)
    reach = 1.0 - setting.opt
    for ax, name in zip(axes, LEARNERS):
        sns.lineplot(data=runs[runs["algorithm"] == name], x="eta", y="excess", hue="adversary", style="adversary",
                     markers=True, errorbar=("pi", 100), ax=ax, legend=name == LEARNERS[-1])
        curve = np.array([setting.final_bounds(e)[name] for e in eta_axis]) - setting.opt
        ax.plot(eta_axis, np.minimum(curve, reach), "k--", label="guarantee − opt")
        top = min(reach, max(float(curve.max()), float(runs["excess"].max()))) * 1.08
        if curve.min() >= reach:
            ax.annotate(f"guarantee − opt ≥ 1 − opt = {reach:.2f} at every η:\nthe bound says nothing here",
                        xy=(0.03, 0.80), xycoords="axes fraction", ha="left", va="top")
        ax.set_ylim(0, top)
        ax.set_title(f"{name}: {_GUARANTEE_LABEL[name]}")
        ax.set_xlabel(r"corruption rate $\eta$")
        ax.set_ylabel(r"error$_T(h)$ − opt")
    axes[-1].legend(title="adversary", loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=3)
    return fig


def learner_worsts(runs: pd.DataFrame) -> pd.DataFrame:
    """Per learner, the worst of each Table 1 check ([BLT21] Fact 4.3 chain, Lemmas 4.2/5.2/5.4, 5.3/5.5).

    Columns: ``chain`` (largest sample_lhs / sample_rhs over eta > 0), ``optimality`` (largest
    optimality ratio; NaN for FIND, which has none), ``optimality_excess`` (largest amount by which a
    rival polynomial beat the fit on the sample it saw, 0 for an optimal solver), ``gap_fit`` and
    ``gap_q`` (largest uniform-convergence gaps). A NaN among a learner's values makes its worst NaN,
    so the row fails.
    """
    rows = {}
    for name in LEARNERS:
        grp = runs[runs.algorithm == name]
        positive = grp[grp.eta > 0]
        ratio = grp["optimality_ratio"].to_numpy(dtype=np.float64)
        rows[name] = {"chain": float(np.max((positive["sample_lhs"] / positive["sample_rhs"]).to_numpy())),
                      "optimality": float(ratio.max()),
                      "optimality_excess": float(grp["optimality_excess"].to_numpy(dtype=np.float64).max()),
                      "gap_fit": float(grp["gap_fit"].to_numpy().max()),
                      "gap_q": float(grp["gap_q"].to_numpy().max())}
    return pd.DataFrame.from_dict(rows, orient="index")


def uniform_convergence_bounds(setting: NoisySetting) -> pd.DataFrame:
    """Per learner, the lemma whose ε bounds its clean-sample gap ([BLT21] Lemmas 4.2, 5.2, 5.4) and the
    bound at its fixed comparator (the best depth-d tree for FIND, Hoeffding's γ₁ at q for the regressions),
    with the functions that computed each side (``fit_by``, ``comparator_by``, ``eps_by``)."""
    return pd.DataFrame({
        "lemma": ["Lemma 4.2", "Lemma 5.2", "Lemma 5.4"],
        "eps": [setting.gamma, setting.eps_52, setting.eps_54],
        "comparator": ["the best depth-d tree", "q", "q"],
        "comparator_result": ["Lemma 4.2", "Hoeffding (fixed q)", "Hoeffding (fixed q)"],
        "comparator_bound": [setting.gamma, setting.gamma_1, setting.gamma_1],
        "box": ["lem-blt21-4-1", "thm-blt21-4", "thm-blt21-4"],
        # the measured gaps come from the learner's fit, the clean sample's loss and the exact loss on the cube
        "fit_by": ["dtcore.find.find, dtcore.find.training_errors, dtcore.stochastic.error",
                   "dtcore.polyreg.low_degree_regression, dtcore.stochastic.mean_table",
                   "dtcore.polyreg.l1_regression, dtcore.stochastic.mean_table"],
        "comparator_by": ["dtcore.find.population_find, dtcore.find.training_errors",
                          "dtcore.stochastic.truncate_deterministic_depth, dtcore.stochastic.mean_table",
                          "dtcore.stochastic.truncate_deterministic_depth, dtcore.stochastic.mean_table"],
        "eps_by": ["dtcore.bounds.blt21_lemma42_uniform_deviation", "dtcore.bounds.blt21_lemma52_eps",
                   "dtcore.bounds.blt21_lemma54_eps"]}, index=list(LEARNERS))


def final_error_bounds(runs: pd.DataFrame, setting: NoisySetting) -> pd.DataFrame:
    """Per (learner, eta): the worst exact error and its final bound ([BLT21] Theorems 1, 3 and 4).

    The bound is :meth:`NoisySetting.final_bounds`; ``result`` names the theorem (Theorem 1 for FIND at
    eta = 0). Rows in the order of ``runs.groupby(["algorithm", "eta"])``.
    """
    rows = []
    for (name, eta), grp in runs.groupby(["algorithm", "eta"]):
        rows.append({"algorithm": name, "eta": eta,
                     "result": {"FIND": "Theorem 1" if eta == 0 else "Theorem 3"}.get(name, "Theorem 4"),
                     "box": THEOREM_BOX[name], "worst_error": grp["error"].max(),
                     "bound": setting.final_bounds(eta)[name]})
    return pd.DataFrame(rows)


def learner_seconds(target: DecisionTree, *, m: int, depth: int, degree: int,
                    rng: np.random.Generator) -> dict[tuple[str, str], float]:
    """Table 1's measured running times: each learner on one clean sample at n and at n + 4 variables.

    The sample has min(m, 2000) rows; the 4 extra columns are uniform. Best of three for FIND and L2,
    one run of L1's linear program. Keys: (learner, "n" or "n+4").
    """
    X, y = sample(target, min(m, 2000), rng=rng)
    X_wide = np.concatenate([X, _random_bits(rng, (X.shape[0], 4))], axis=1)
    fits = {"FIND": lambda X, y: find(X, y, depth=depth), "L2 (low-degree)": lambda X, y: low_degree_regression(X, y, degree=degree),
            "L1 regression": lambda X, y: l1_regression(X, y, degree=degree)}
    seconds = {}
    for name, fit in fits.items():
        for label, X_t in (("n", X), ("n+4", X_wide)):
            seconds[name, label] = time_best(lambda: fit(X_t, y), 1 if name == "L1 regression" else 3)
    return seconds


def table1_frame(runs: pd.DataFrame, seconds: dict[tuple[str, str], float], *, n: int,
                 eta_grid: Sequence[float]) -> pd.DataFrame:
    """[BLT21] Table 1: the paper's four rows as stated, with what we measured beside them.

    Measured: whether each learner returns a tree, its time at n and n + 4 and the exponent in n,
    and its worst exact error at every eta. The [CM19] row is not run.
    """
    table1 = pd.DataFrame({
        "algorithm": ["L2 regression (low-degree) [LMN93]", "L1 polynomial regression [KKMS08]",
                      "Learning mixtures of subcubes [CM19]", "FIND on a stochastic-leaf approximation (this paper)"],
        "key": ["L2 (low-degree)", "L1 regression", "CM19", "FIND"],
        "running time (as stated in the paper)": ["n^O(log(s/ε))", "n^O(log(s/ε))", "O_s(1)·n^O(log s)·poly(1/ε)",
                                                  "n^O(log(s/ε)/ε²)"],
        "guarantee (as stated in the paper)": ["opt + O(√η) + ε", "2·opt + 2η + ε", "opt + ε (η = 0 only)",
                                               "opt + 2η + ε"],
    })
    proper = runs.groupby("algorithm")["proper"].all()
    worst_err = runs.groupby(["algorithm", "eta"])["error"].max().unstack()
    table1["returns a tree"] = [bool(proper[k]) if k in proper else False for k in table1["key"]]
    table1[f"seconds at n={n}"] = [seconds.get((k, "n"), np.nan) for k in table1["key"]]
    table1[f"seconds at n={n + 4}"] = [seconds.get((k, "n+4"), np.nan) for k in table1["key"]]
    table1["time exponent in n"] = (np.log(table1[f"seconds at n={n + 4}"] / table1[f"seconds at n={n}"])
                                    / math.log((n + 4) / n))
    for e in eta_grid:
        table1[f"worst error, η={e:g}"] = [worst_err.loc[k, e] if k in worst_err.index else np.nan
                                           for k in table1["key"]]
    return table1.drop(columns="key")


def table1_style(table1: pd.DataFrame) -> Any:
    """:func:`table1_frame` for the page, transposed so that it stays narrow at any η grid: one column per
    algorithm, one row per statement or measurement (errors to 4 places, seconds to 3, "not run" for gaps,
    "yes"/"no" for whether the output is a tree)."""
    short = {"L2 regression (low-degree) [LMN93]": "L2 [LMN93]", "L1 polynomial regression [KKMS08]": "L1 [KKMS08]",
             "Learning mixtures of subcubes [CM19]": "subcubes [CM19]",
             "FIND on a stochastic-leaf approximation (this paper)": "FIND (this paper)"}

    def cell(column: str, value: object) -> str:
        if isinstance(value, str):
            return value
        if column == "returns a tree":
            return "yes" if value else "no"
        if value is None or not np.isfinite(value):
            return "not run"
        return f"{value:.3f}" if column.startswith("seconds") else f"{value:.2f}" if column.startswith("time") \
            else f"{value:.4f}"

    shown = pd.DataFrame({short[row["algorithm"]]: {c: cell(c, row[c]) for c in table1.columns if c != "algorithm"}
                          for _, row in table1.iterrows()})
    shown.index = [c.replace(" (as stated in the paper)", ", as stated").replace("η=", "η = ") for c in shown.index]
    return shown.style.set_table_attributes('style="font-size: 90%"')


def table1_glue(runs: pd.DataFrame, seconds: dict[tuple[str, str], float], setting: NoisySetting, *,
                eta_grid: Sequence[float]) -> dict[str, Any]:
    """[BLT21] Table 1 for the text: worst excesses at the largest eta, time exponents, the strongest
    adversaries and the largest uniform-convergence gaps."""
    n = setting.target.n
    e_max = max(eta_grid)
    worst_err = runs.groupby(["algorithm", "eta"])["error"].max().unstack()
    values: dict[str, Any] = {"ch3_etamax": e_max, "ch3_n_time": n, "ch3_n_time_wide": n + 4}
    for name, tag in zip(LEARNERS, ("F", "L2", "L1")):
        values[f"ch3_excess_{tag}"] = float(worst_err.loc[name, e_max] - setting.opt)
        values[f"ch3_time_exp_{tag}"] = float(math.log(seconds[name, "n+4"] / seconds[name, "n"]) / math.log((n + 4) / n))
    at_max = runs[runs.eta == e_max]
    find_max = at_max[at_max.algorithm == "FIND"].groupby("adversary")["excess"].max()
    values["ch3_strongest_adv"] = str(find_max.idxmax())
    values["ch3_strongest_ratio"] = float(find_max.max() / (2 * e_max)) if e_max > 0 else 0.0
    for name, tag in zip(LEARNERS[1:], ("L2", "L1")):
        values[f"ch3_strongest_adv_{tag}"] = str(at_max[at_max.algorithm == name].groupby("adversary")["excess"]
                                                 .max().idxmax())
        values[f"ch3_max_gap_{tag}"] = float(runs.loc[runs.algorithm == name, "gap_fit"].max())
    return values


# --- the depth FIND needs -------------------------------------------------------------------------

def deep_target(*, n: int, deep_depth: int, rng: np.random.Generator, tries: int = 200) -> DecisionTree:
    """A stochastic-leaf target of query depth ``deep_depth`` for [BLT21] Corollary 4.1 and Lemma 4.2.

    A random tree with S = 2^(D-2) + D leaves and no coins, drawn again until a leaf sits at query depth
    exactly D (at most ``tries`` draws), so that Corollary 4.1's ε = S 2^-D = 1/4 + D 2^-D lies in (0, 1/2)
    for D >= 4; its sibling leaves get probabilities on opposite sides of 1/2 (in [0.7, 0.95] for a 1-leaf,
    [0.05, 0.3] for a 0-leaf), so round(mu_T) needs the full depth on its deepest paths.
    """
    tries = _positive_int("tries", tries)
    for _ in range(tries):   # rejection over whole trees
        deep = random_stochastic_tree(n, 2 ** (deep_depth - 2) + deep_depth, 0, rng=rng, max_depth=deep_depth)
        if int(deterministic_depths(deep).max()) == deep_depth:
            break
    else:
        raise ValueError(f"no tree of {2 ** (deep_depth - 2) + deep_depth} leaves reached query depth {deep_depth} "
                         f"in {tries} draws")
    for leaf in deep.leaves():   # a loop over leaves
        high = deep.value[leaf] == 1
        deep.set_value(leaf, float(rng.uniform(0.7, 0.95) if high else rng.uniform(0.05, 0.3)))
    return deep


def depth_sweep(deep: DecisionTree, *, m: int, deep_depth: int, repetitions: int, delta: float,
                seed: int) -> pd.DataFrame:
    """[BLT21] Corollary 4.1 and Lemma 4.2 over FIND's depth d = 1..D on the deep target.

    At each depth: the exact excess of the best depth-d tree, the truncation mass of Corollary 4.1
    (and the paper's count S 2^-d), 2γ_d of Lemma 4.2, the excess of the best constant (no depth-d
    tree does worse, so it is the reach of the best excess) and opt_T, and FIND's exact excess on ``repetitions``
    clean samples of m examples (the same samples at every depth: sample ``rep`` comes from stream
    ``rep`` of key "ch03/depth_sweep"). One row per (d, rep).
    """
    repetitions = _positive_int("repetitions", repetitions)
    n = deep.n
    points = all_points(n)
    mu = mean_table(deep)
    opt_deep = opt(mu)
    constant_excess = min(float(mu.mean()), 1.0 - float(mu.mean())) - opt_deep   # a depth-0 tree is a depth-d tree
    leaf_depths = deterministic_depths(deep)
    samples = [sample(deep, m, rng=rng) for rng in keyed_streams(seed, "ch03/depth_sweep", repetitions)]
    rows = []
    for d in range(1, deep_depth + 1):
        best = population_find(mu, d)
        gamma_d = bounds.blt21_lemma42_uniform_deviation(count_trees(n, d), m, delta)
        for rep, (X, y) in enumerate(samples):
            h = find(X, y, depth=d).tree
            rows.append({"d": d, "rep": rep, "find_excess": error(mu, h.predict(points).astype(float)) - opt_deep,
                         "best_excess": max(0.0, best.error - opt_deep),
                         "truncation_bound": bounds.blt21_corollary41_truncation(leaf_depths, d),
                         "paper_count_bound": deep.size * 2.0 ** -d, "two_gamma": 2 * gamma_d,
                         "constant_excess": constant_excess, "opt": opt_deep})
    sweep_frame = pd.DataFrame(rows)
    sweep_frame["find_bound"] = sweep_frame["best_excess"] + sweep_frame["two_gamma"]
    return sweep_frame


def depth_sweep_summary(sweep_frame: pd.DataFrame) -> pd.DataFrame:
    """Per depth d: FIND's worst excess, the best tree's excess, the bounds of [BLT21] Cor. 4.1 / Lemma 4.2,
    the best constant's excess and opt_T."""
    return sweep_frame.groupby("d").agg(find_excess=("find_excess", "max"), best_excess=("best_excess", "first"),
                                        truncation_bound=("truncation_bound", "first"),
                                        paper_count_bound=("paper_count_bound", "first"),
                                        find_bound=("find_bound", "first"),
                                        constant_excess=("constant_excess", "first"), opt=("opt", "first"))


def depth_sweep_figure(sweep_frame: pd.DataFrame, per_d: pd.DataFrame) -> Figure:
    """[BLT21] Corollary 4.1 (left: best depth-d excess under the cut mass) and Lemma 4.2 (right:
    FIND's excess under best depth-d + 2γ_d) against FIND's depth."""
    fig, axes = figures.figure(2, height=4.2)
    ax = axes[0]
    ax.plot(per_d.index, per_d["best_excess"], "o-", color="C0", label="best depth-d tree")
    ax.plot(per_d.index, per_d["truncation_bound"].clip(upper=0.6), "s--", color="k", label="mass cut at depth d")
    ax.set_ylim(0, 0.6)
    ax.set_xlabel("depth d")
    ax.set_ylabel("excess error over opt")
    ax.set_title("Cutting at depth d (Cor. 4.1)")
    ax.set_xticks(per_d.index)
    ax.legend(loc="lower left")
    ax = axes[1]
    ax.scatter(sweep_frame["d"], sweep_frame["find_excess"], color="C1", alpha=0.5, s=20)
    ax.plot(per_d.index, per_d["find_excess"], "o-", color="C1", label="FIND (worst rep)")
    ax.plot(per_d.index, per_d["find_bound"], "k:", marker="^", label=r"best + $2\gamma_d$")
    ax.plot(per_d.index, per_d["best_excess"], "-", color="C0", alpha=0.6, label="best depth-d tree")
    ax.set_xlabel("depth d")
    ax.set_title("FIND vs best depth-d (Lemma 4.2)")
    ax.set_xticks(per_d.index)
    ax.set_ylim(-0.01, 0.45)
    ax.legend(loc="upper right")
    return fig


def depth_sweep_glue(deep: DecisionTree, per_d: pd.DataFrame, *, deep_depth: int, repetitions: int) -> dict[str, Any]:
    """The depth sweep for the text: D, ε = S 2^-D, repetitions, the target's size and three excesses."""
    return {"ch3_deep_depth": deep_depth, "ch3_deep_eps": deep.size * 2.0 ** -deep_depth,
            "ch3_deep_reps": repetitions, "ch3_deep_size": deep.size,
            "ch3_deep_best_d3": float(per_d.loc[min(3, deep_depth), "best_excess"]),
            "ch3_deep_find_dmax": float(per_d.loc[deep_depth, "find_excess"]),
            "ch3_deep_find_best_d": int(per_d["find_excess"].idxmin())}


# --- the indistinguishable pair (the 2η minimum) -------------------------------------------------

@dataclass(frozen=True)
class PairSetting:
    """The indistinguishable-pair experiment ([BLT21] Sec. 1.1, after [BEK02]).

    ``eta`` is the adversary's rate, ``eta_pair`` = 0.75 eta the pair's η' (so the budget suffices
    despite sampling fluctuations), ``codim`` the codimension c of the region R (FIND's depth, so R
    can be a leaf of FIND's tree); ``m`` the sample size.
    """

    n: int
    m: int
    eta: float
    eta_pair: float
    codim: int
    depth: int
    degree: int


#: The pair's t (μ = 1/2 ± t on R): large, so that the disputed excess 2t·Pr[R] is a visible share of R's mass.
PAIR_T = 0.4


def pair_setting(*, n: int, m: int, eta_grid: Sequence[float], depth: int, degree: int) -> PairSetting:
    """The pair's sizes: R of codimension c = min(depth, n), FIND's own depth, so that R can be one of FIND's
    leaves and FIND's output on R is one label; t = :data:`PAIR_T`, η' = t 2^-c, η = η' / 0.75 (so the budget
    covers the flips a sample needs with high probability) and m = min(m, 1500) (the two laws agree exactly
    at every m; a smaller m keeps the fits cheap). With no positive η in ``eta_grid`` there is no attack (η = 0)."""
    codim = max(1, min(n, depth))
    eta_pair = PAIR_T * 2.0 ** -codim
    eta = eta_pair / 0.75 if max(eta_grid) > 0 else 0.0
    return PairSetting(n=n, m=min(m, 1500), eta=eta, eta_pair=eta_pair, codim=codim, depth=depth, degree=degree)


def run_pair(rng: np.random.Generator, rep: int, sign: str, *, setting: PairSetting) -> list[dict[str, Any]]:
    """One sample of T_+ or T_- (``sign``), corrupted by the equalizing adversary, with every learner on it.

    [BLT21] Sec. 1.1: one row per learner with a_R(h) = E_{x in R} Pr[h(x) = 1], the excess the
    hypothesis pays on its own target, the labels in R minus half after the attack (``balanced``: at
    most a half), the rows changed (counted from the two samples) and the budget. From the clean
    sample alone: ``budget_covers`` (the budget covers the flips R needs whatever the fair coin of an
    odd count decides: the attack must balance R) and ``budget_short`` (it covers them under neither
    outcome: the attack cannot). The two corrupted laws agree on the samples the budget covers, an event
    of the same probability for both targets.
    """
    if sign not in ("+", "-"):
        raise ValueError(f"sign must be '+' or '-', got {sign!r}")
    t_plus, t_minus, region, _ = indistinguishable_pair(setting.n, setting.eta_pair, setting.codim)
    tree = t_plus if sign == "+" else t_minus
    points = all_points(setting.n)
    mu = mean_table(tree)
    in_R = (points[:, :setting.codim] == 1).all(axis=1)
    X0, y0 = sample(tree, setting.m, rng=rng)
    budget = math.floor(setting.eta * setting.m + 1e-12)
    clean_inside = (X0[:, :setting.codim] == 1).all(axis=1)
    imbalance = abs(float(y0[clean_inside].sum()) - clean_inside.sum() / 2)   # flips needed, up to the coin's half
    coin_half = 0.5 if clean_inside.sum() % 2 else 0.0
    c = equalizing_adversary(X0, y0, setting.eta, region, rng=rng)
    inside = (c.X[:, :setting.codim] == 1).all(axis=1)
    hyps = {"FIND": find(c.X, c.y, depth=setting.depth).tree.predict(points).astype(float),
            "L2 (low-degree)": low_degree_regression(c.X, c.y, degree=setting.degree).predict_proba(points),
            "L1 regression": l1_regression(c.X, c.y, degree=setting.degree).predict_proba(points)}
    ones_minus_half = float(c.y[inside].sum() - inside.sum() / 2)
    common = {"ones_in_R_minus_half": ones_minus_half, "balanced": abs(ones_minus_half) <= 0.5,
              "budget_covers": imbalance + coin_half <= budget, "budget_short": imbalance - coin_half > budget,
              "changed": _rows_changed(X0, y0, c.X, c.y), "budget": budget}
    return [{"algorithm": name, "a_R": float(h[in_R].mean()), "excess_own": error(mu, h) - opt(mu),
             "constant_on_R": bool(np.ptp(h[in_R]) == 0 and h[in_R][0] in (0.0, 1.0)), **common}
            for name, h in hyps.items()]


def lower_bound_runs(setting: PairSetting, *, pair_repetitions: int, seed: int,
                     n_jobs: int | None = None) -> pd.DataFrame:
    """``pair_repetitions`` corrupted samples of each of T_+ and T_- ([BLT21] Sec. 1.1): rows of :func:`run_pair`.

    The streams are the sweep's, keyed "ch03/lower_bound"; ``n_jobs`` as in :func:`dtcore.book.sweep.sweep`
    (the rows do not depend on it).
    """
    pair_repetitions = _positive_int("pair_repetitions", pair_repetitions)
    if setting.eta <= 0:
        raise ValueError(f"setting.eta must be positive (an adversary with no budget has nothing to equalize), "
                         f"got {setting.eta}")
    points = [dict(rep=r, sign=s) for r in range(pair_repetitions) for s in "+-"]
    return sweep(functools.partial(run_pair, setting=setting), points, repetitions=1, seed=seed, key="ch03/lower_bound",
                 n_jobs=n_jobs)


def pair_balance(pair: pd.DataFrame) -> dict[str, int]:
    """How the attack fared on the corrupted samples of :func:`lower_bound_runs` ([BLT21] Sec. 1.1).

    ``samples`` in all; ``covered`` those whose clean imbalance in R the budget covers, per target
    (``covered_plus``, ``covered_minus``); ``balanced`` those balanced after the attack; and
    ``contradictions``: samples the budget covers that the attack left unbalanced, plus samples it
    could not cover that came out balanced (0 for a correct attack: the balance after the attack,
    counted on the corrupted sample, must agree with the clean sample's count against the budget).
    """
    per_sample = pair[pair["algorithm"] == pair["algorithm"].iloc[0]]
    covers, short, balanced = (per_sample[c].to_numpy(dtype=bool) for c in ("budget_covers", "budget_short", "balanced"))
    sign = per_sample["sign"].to_numpy()
    return {"samples": len(per_sample), "covered": int(covers.sum()), "balanced": int(balanced.sum()),
            "covered_plus": int((covers & (sign == "+")).sum()), "covered_minus": int((covers & (sign == "-")).sum()),
            "contradictions": int((covers & ~balanced).sum() + (short & balanced).sum())}


def covered_samples(pair: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`lower_bound_runs` whose clean imbalance in R the budget covers (the experiment's premise)."""
    return pair[pair["budget_covers"].to_numpy(dtype=bool)]


def lower_bound_tests(pair: pd.DataFrame, setting: PairSetting, *, seed: int) -> pd.DataFrame:
    """Per learner: a permutation test of a_R on T_+ versus T_- samples, and the mean excess of each target.

    [BLT21] Sec. 1.1: on the samples whose imbalance in R the budget covers (:func:`covered_samples`)
    the corrupted samples have the same law, so the learners' outputs must too; only those enter.
    ``worse / η'`` is the larger mean excess in units of η'; ``samples of T±`` the samples used (the
    p-value is NaN when a target has fewer than two). Learner
    i's permutations come from stream i of key "ch03/lower_bound_tests".
    """
    from scipy.stats import permutation_test

    pair = covered_samples(pair)
    rows = []
    for name, perm_rng in zip(LEARNERS, keyed_streams(seed, "ch03/lower_bound_tests", len(LEARNERS))):
        mine = pair[pair.algorithm == name]
        a_plus = mine.loc[mine.sign == "+", "a_R"].to_numpy()
        a_minus = mine.loc[mine.sign == "-", "a_R"].to_numpy()
        if min(a_plus.size, a_minus.size) < 2:
            p_value = math.nan  # a target with fewer than two covered samples: nothing to test
        else:
            p_value = float(permutation_test((a_plus, a_minus), _mean_difference, vectorized=True,
                                             n_resamples=PAIR_PERMUTATIONS, rng=perm_rng).pvalue)
        ex_plus = float(mine.loc[mine.sign == "+", "excess_own"].mean())
        ex_minus = float(mine.loc[mine.sign == "-", "excess_own"].mean())
        constant = mine["constant_on_R"] if "constant_on_R" in mine else pd.Series(dtype=float)
        rows.append({"algorithm": name, "samples of T+": a_plus.size, "samples of T-": a_minus.size,
                     "mean a_R on T+ samples": a_plus.mean() if a_plus.size else math.nan,
                     "mean a_R on T- samples": a_minus.mean() if a_minus.size else math.nan,
                     "p-value": p_value, "mean excess of T+": ex_plus, "mean excess of T-": ex_minus,
                     "worse / η'": max(ex_plus, ex_minus) / setting.eta_pair,
                     "constant on R": float(constant.mean()) if len(constant) else math.nan})
    return pd.DataFrame(rows)


def _mean_difference(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    """Difference of the means along ``axis`` (the permutation tests' statistic, vectorised over resamples)."""
    return np.mean(a, axis=axis) - np.mean(b, axis=axis)


def pair_sum_bound(eta_pair: float, *, delta: float, pair_repetitions: int) -> float:
    """The least sum of the two mean excesses [BLT21] Sec. 1.1 allows: 2η' less Hoeffding's slack.

    Each mean excess of ``pair_repetitions`` runs lies within 2 sqrt(ln(4/δ) / (2 reps)) η' of its
    expectation for both targets at once (Hoeffding at δ/2 each, range 2η'); clipped at 0.
    """
    slack = 2 * hoeffding_halfwidth(pair_repetitions, delta / 2)
    return 2 * eta_pair * max(0.0, 1 - slack)


def lower_bound_figure(pair: pd.DataFrame, pair_tests: pd.DataFrame, *, eta_pair: float) -> Figure:
    """[BLT21] Sec. 1.1: a_R of every hypothesis per target's samples (left) and each target's mean
    excess in units of η' (right) against η' and 2η'."""
    import seaborn as sns

    fig, axes = figures.figure(2, height=4.6)
    sns.stripplot(data=pair, x="algorithm", y="a_R", hue="sign", dodge=True, jitter=0.15, ax=axes[0],
                  palette={"+": "C3", "-": "C0"}, size=5, alpha=0.7)
    axes[0].set_ylabel(r"$a_R(h) = \mathbb{E}_{x\in R}\,\Pr[h(x)=1]$")
    axes[0].set_title("Output on R")
    axes[0].legend(title="samples of", loc="best")
    long = pair_tests.melt(id_vars="algorithm", value_vars=["mean excess of T+", "mean excess of T-"],
                           var_name="target", value_name="excess")
    long["excess / η'"] = long["excess"] / eta_pair
    sns.barplot(data=long, x="algorithm", y="excess / η'", hue="target", ax=axes[1], palette=["C3", "C0"])
    axes[1].axhline(1, color="k", ls=":", label="η'")
    axes[1].axhline(2, color="k", ls="--", label="2η'")
    axes[1].set_ylim(0, 2.9)
    axes[1].set_ylabel("mean excess / η'")
    axes[1].set_title("Excess each target pays")
    axes[1].legend(loc="upper center", ncol=2, fontsize=9)
    for ax in axes:
        ax.set_xlabel("")
        ax.set_xticks(ax.get_xticks(), [lbl.get_text().split(" (")[0].replace(" regression", "")
                                        for lbl in ax.get_xticklabels()])
    return fig


def lower_bound_glue(pair_tests: pd.DataFrame | None, *, setting: PairSetting, pair_repetitions: int,
                     sum_bound: float, balance: dict[str, int] | None = None) -> dict[str, Any]:
    """The pair experiment for the text; the measured values are NaN when there was no corruption to run.

    ``balance`` is :func:`pair_balance` of the runs: how many samples there were and how many the budget covered.
    """
    values: dict[str, Any] = {"ch3_pair_eta": setting.eta, "ch3_pair_reps": pair_repetitions, "ch3_pair_m": setting.m,
                              "ch3_pair_perms": PAIR_PERMUTATIONS, "ch3_pair_alpha": PAIR_ALPHA}
    if pair_tests is None:
        return values | {key: float("nan") for key in ("ch3_lb_find_ratio", "ch3_lb_min_ratio", "ch3_lb_min_p",
                                                      "ch3_lb_sum_bound", "ch3_lb_eta_pair", "ch3_lb_samples",
                                                      "ch3_lb_covered", "ch3_lb_find_constant", "ch3_lb_codim")}
    if balance is not None:
        values |= {"ch3_lb_samples": balance["samples"], "ch3_lb_covered": balance["covered"]}
    return values | {"ch3_lb_find_ratio": float(pair_tests.set_index("algorithm").loc["FIND", "worse / η'"]),
                     "ch3_lb_find_constant": float(pair_tests.set_index("algorithm").loc["FIND", "constant on R"]),
                     "ch3_lb_codim": setting.codim,
                     "ch3_lb_min_ratio": float(pair_tests["worse / η'"].min()),
                     "ch3_lb_min_p": float(pair_tests["p-value"].min()),
                     "ch3_lb_sum_bound": sum_bound / setting.eta_pair, "ch3_lb_eta_pair": setting.eta_pair}


# --- Proposition 5.1 ------------------------------------------------------------------------------

def proposition_5_1(*, n: int, size: int, rng: np.random.Generator, trials: int = 8,
                    eps_grid: Sequence[float] = (0.5, 0.25, 0.125)) -> tuple[pd.DataFrame, pd.DataFrame]:
    """[BLT21] Proposition 5.1 on random stochastic trees of sizes s, 2s, 4s (``trials`` each).

    For each tree and ε, the tree cut at k = ceil(log2(s/ε)) queries: its largest Fourier coefficient
    above level k, the share of the cube where its mean differs from mu_T, and its range. Returns that
    frame and the Fourier weight of mu_T per level (one block per tree).
    """
    trials = _positive_int("trials", trials)
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
                rows.append({"s": s, "eps": eps, "k": k,
                             "max_coef_above_k": float(np.abs(coef[level > k]).max(initial=0.0)),
                             "disagree": float(np.mean(~np.isclose(mu_cut, mu))),
                             "min": float(mu_cut.min()), "max": float(mu_cut.max())})
            weight = np.bincount(level, weights=walsh_hadamard(mu) ** 2, minlength=n + 1)
            spectra.append(pd.DataFrame({"s": s, "level": np.arange(n + 1), "weight": weight}))
    return pd.DataFrame(rows), pd.concat(spectra)


def proposition_5_1_worst(prop: pd.DataFrame) -> float:
    """The largest Pr[mu_T' != mu_T] / ε of :func:`proposition_5_1` ([BLT21] Proposition 5.1: <= 1)."""
    return float((prop["disagree"] / prop["eps"]).max())


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
    axes[0].legend(title="size s")
    ratio = prop.assign(ratio=(prop["disagree"] / prop["eps"]).clip(lower=1e-3))
    sns.stripplot(data=ratio, x="eps", y="ratio", hue="s", dodge=True, ax=axes[1], palette="crest", legend=False)
    axes[1].axhline(1.0, color="k", ls="--", label="bound")
    axes[1].set_yscale("log")
    axes[1].set_xlabel("ε")
    axes[1].set_ylabel(r"$\Pr_x[\mu_{T'} \neq \mu_T]\,/\,\varepsilon$ (≥ 0.001)")
    axes[1].set_title(r"$T'$ cut at $\lceil\log_2(s/\varepsilon)\rceil$")
    axes[1].legend(loc="center left")
    return fig


# --- FIND beside pystreed -------------------------------------------------------------------------

def find_vs_pystreed(*, benchmark_m: int, rng: np.random.Generator,
                     cases: Sequence[tuple[int, int]] = ((32, 3), (16, 4))) -> pd.DataFrame:
    """FIND ([BLT21] Figure 2, Lemma 3.1) beside pystreed's STreeDClassifier on uniform data.

    For each (n, d) in ``cases``: best-of-three seconds of each, their ratio, and both error counts
    (Lemma 3.1: they must agree). One row per case.
    """
    from pystreed import STreeDClassifier

    benchmark_m = _positive_int("benchmark_m", benchmark_m)
    rows = []
    for n, d in cases:
        X = _random_bits(rng, (benchmark_m, n))
        y = _random_bits(rng, benchmark_m)
        find(X[:200], y[:200], depth=2)  # warm-up
        t_find = time_best(lambda: find(X, y, depth=d))
        clf = STreeDClassifier(max_depth=d)
        t_streed = time_best(lambda: clf.fit(X, y))
        rows.append({"m": benchmark_m, "n": n, "d": d, "FIND seconds": t_find, "pystreed seconds": t_streed,
                     "ratio FIND / pystreed": t_find / t_streed, "FIND errors": find(X, y, depth=d).errors,
                     "pystreed errors": int((clf.predict(X) != y).sum())})
    return pd.DataFrame(rows)


def find_vs_pystreed_glue(bench: pd.DataFrame) -> dict[str, Any]:
    """The benchmark for the text: m, both ratios, and both times at depth 3."""
    return {"ch3_bench_m": int(bench["m"].iloc[0]), "ch3_ratio_d3": float(bench["ratio FIND / pystreed"].iloc[0]),
            "ch3_ratio_d4": float(bench["ratio FIND / pystreed"].iloc[1]),
            "ch3_find_d3": float(bench["FIND seconds"].iloc[0]), "ch3_streed_d3": float(bench["pystreed seconds"].iloc[0])}


def check_pair(table: VerificationTable, *, pair: pd.DataFrame, balance: dict[str, Any], pair_tests: pd.DataFrame,
               covered_reps: int, sum_bound: float, pair_setting: Any) -> None:
    """The rows of the indistinguishable pair ([BLT21] Sec. 1.1, the 2η minimum; Definition 2's budget):
    the attack's balance identity, the samples the budget covers, and per learner the permutation test
    and the sum of the two targets' mean excesses, counted only on the covered samples."""
    table.identity("Sec. 1.1 (2η minimum)", "samples whose balance in R after the attack contradicts the clean sample's "
                   "imbalance against the budget", balance["contradictions"], 0.0, box="prop-blt21-lower",
                   reads_rule="the attack's stop rule (half of R's labels 1)",
                   computed_by=("dtcore.noise.equalizing_adversary", "clean sample: |ones in R − half| against ⌊ηm⌋"))
    table.observation("Sec. 1.1 (2η minimum)", "corrupted samples whose imbalance in R the budget covers "
                      "(the rows below use only these)", balance["covered"], balance["samples"], box="prop-blt21-lower",
                      why="the budget ⌊ηm⌋ covers a sample's imbalance in R only with high probability; on the covered "
                          "samples, an event as likely for either target, the two corrupted laws agree")
    enough = covered_reps >= 2
    for _, row in pair_tests.iterrows():
        quantity = f"{row['algorithm']}: p-value, a_R(h) on T+ vs T− samples"
        used = f"{row['samples of T+']} + {row['samples of T-']} covered samples"
        if enough:
            table.theorem("Sec. 1.1 (2η minimum)", quantity, row["p-value"], PAIR_ALPHA, relation=">=",
                          reach=(0.0, 1.0), measured_by="scipy.stats.permutation_test",
                          bound_by="the test's level PAIR_ALPHA", worst_case=used, box="prop-blt21-lower")
        else:
            table.observation("Sec. 1.1 (2η minimum)", quantity, row["p-value"], PAIR_ALPHA, relation=">=",
                              box="prop-blt21-lower", why=f"{used}: too few to test")
        quantity = f"{row['algorithm']}: mean excess of T+ + mean excess of T−"
        total = row["mean excess of T+"] + row["mean excess of T-"]
        if enough and sum_bound > 0:
            table.theorem("Sec. 1.1 (2η minimum)", quantity, total, sum_bound, relation=">=", reach=(0.0, 2.0),
                          measured_by="dtcore.stochastic.error",
                          bound_by="dtcore.book.experiments.ch03.pair_sum_bound, dtcore.learnability.hoeffding_halfwidth",
                          worst_case=used, box="prop-blt21-lower")
        else:
            table.observation("Sec. 1.1 (2η minimum)", quantity, total, 2 * pair_setting.eta_pair, relation=">=",
                              box="prop-blt21-lower",
                              why=f"{used}: too few for Hoeffding's slack to leave a positive bound")
    table.identity("Definition 2 (budget)", "equalizing adversary: max |rows changed − ⌊ηm⌋|",
                   worst(np.abs(pair["changed"] - pair["budget"])), 0.0, box="def-blt21-nasty", reads_rule="budget rule",
                   computed_by=("dtcore.book.experiments.ch03._rows_changed", "math.floor (⌊ηm⌋ of Definition 2)"))

# --- Theorems 1 and 3 at the hardest member found ---------------------------------------------------

def coins_above_internal_nodes(tree: DecisionTree) -> int:
    """How many coins of ``tree`` have a child that is not a leaf (coins *inside* the tree, not at its leaves)."""
    from ...tree import LEAF, STOCHASTIC

    return sum(1 for node, f in enumerate(tree.feature)
               if f == STOCHASTIC and LEAF not in (tree.feature[tree.child0[node]], tree.feature[tree.child1[node]]))


def hard_target(*, n: int, size: int, n_stochastic: int, query_depth: int, rng: np.random.Generator,
                tries: int = 200) -> DecisionTree:
    """A member of the class of [BLT21] Theorems 1 and 3 where the approximation term is not zero.

    A random stochastic tree of ``size`` leaves and ``n_stochastic`` coins (:func:`random_stochastic_tree`)
    with at least one coin above an internal node and a leaf at query depth exactly ``query_depth``
    (drawn again until both hold, at most ``tries`` times), so that FIND at a smaller depth cannot
    represent round(mu_T) and Lemma 2.1's stacking is needed to remove the coins.
    """
    tries = _positive_int("tries", tries)
    if n_stochastic < 1:
        raise ValueError(f"n_stochastic must be >= 1 (a coin inside the tree), got {n_stochastic}")
    for _ in range(tries):   # rejection over whole trees, each drawn vectorised over its splits
        tree = random_stochastic_tree(n, size, n_stochastic, rng=rng, max_depth=query_depth)
        if coins_above_internal_nodes(tree) >= 1 and int(deterministic_depths(tree).max()) == query_depth:
            return tree
    raise ValueError(f"no tree with {size} leaves, {n_stochastic} coins and query depth {query_depth} had a coin "
                     f"inside after {tries} draws; raise size or n_stochastic")


def mutate_target(tree: DecisionTree, rng: np.random.Generator) -> DecisionTree:
    """One local-search step in the class: a copy of ``tree`` with one coin's probability redrawn in
    [0.1, 0.9] or one leaf's label flipped (the shape, hence size and query depth, is kept)."""
    from ...tree import LEAF, STOCHASTIC

    out = tree.copy()
    nodes = [v for v, f in enumerate(out.feature) if f in (LEAF, STOCHASTIC)]
    node = nodes[int(rng.integers(len(nodes)))]
    if out.feature[node] == STOCHASTIC:
        out.branch_prob[node] = float(rng.uniform(0.1, 0.9))
    else:
        out.set_value(node, 1.0 - float(out.value[node]))
    return out


@dataclass(frozen=True)
class TheoremMember:
    """One member of the class of [BLT21] Theorems 1/3: a target, its opt and its best depth-d excess (exact)."""

    target: DecisionTree
    opt: float
    best_excess: float


def theorem_member(target: DecisionTree, depth: int) -> TheoremMember:
    """opt_T and the excess of the best depth-``depth`` tree, both exact on the cube ([BLT21] Corollary 4.1's term)."""
    mu = mean_table(target)
    o = opt(mu)
    return TheoremMember(target=target, opt=o, best_excess=max(0.0, population_find(mu, depth).error - o))


def theorem_epsilon(member: TheoremMember, *, n: int, depth: int, m: int, delta: float) -> float:
    """The ε of [BLT21] Theorems 1/3 at FIND's depth d: the best depth-d tree's excess (Corollary 4.1's
    approximation term, exact) plus Lemma 4.2's 2γ_d at confidence ``delta``."""
    return member.best_excess + 2 * bounds.blt21_lemma42_uniform_deviation(count_trees(n, depth), m, delta)


def evaluate_member(member: TheoremMember, *, X0: np.ndarray, y0: np.ndarray, etas: Sequence[float], depth: int,
                    degree: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """FIND's exact error on one clean sample (Theorem 1) and under every adversary at every η (Theorem 3)."""
    points = all_points(member.target.n)
    mu = mean_table(member.target)
    rows = [{"adversary": "none", "eta": 0.0,
             "error": error(mu, find(X0, y0, depth=depth).tree.predict(points).astype(float))}]
    for eta in etas:
        for adversary in ADVERSARIES:
            c = corrupt(adversary, X0, y0, eta, rng=rng, depth=depth, degree=degree)
            rows.append({"adversary": adversary, "eta": float(eta),
                         "error": error(mu, find(c.X, c.y, depth=depth).tree.predict(points).astype(float))})
    return rows


def theorem_search(*, n: int, size: int, n_stochastic: int, depth: int, degree: int, m: int, etas: Sequence[float],
                   delta: float, restarts: int, steps: int, seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Search the class of [BLT21] Theorems 1 and 3 for the member that does worst against the bound.

    Members: targets of :func:`hard_target` (query depth ``depth + 2``, coins inside) and, for Theorem 3,
    every adversary of :data:`dtcore.noise.ADVERSARIES` at every η of ``etas``. Score of a member: the
    share of the allowance it uses, (error − opt) / (bound − opt), on one clean sample. ``restarts``
    random targets, then ``steps`` steps of :func:`mutate_target` from the Theorem 3 leader (a step is
    kept when its score is at least the leader's). Returns every evaluation (one row per target and
    (adversary, η); ``target`` numbers them, ``phase`` says restart or step) and the worst member
    found per theorem: ``{"Theorem 1": (member, "none", 0.0), "Theorem 3": (member, adversary, η)}``.
    """
    restarts, steps = _positive_int("restarts", restarts), int(steps)
    streams = keyed_streams(seed, "ch03/theorem_search", restarts + steps)
    rows, members = [], []

    def score(frame: pd.DataFrame, member: TheoremMember) -> pd.Series:
        eps = theorem_epsilon(member, n=n, depth=depth, m=m, delta=delta)
        return (frame["error"] - member.opt) / (2 * frame["eta"] + eps)

    def run(member: TheoremMember, rng: np.random.Generator, phase: str) -> pd.DataFrame:
        X0, y0 = sample(member.target, m, rng=rng)
        frame = pd.DataFrame(evaluate_member(member, X0=X0, y0=y0, etas=etas, depth=depth, degree=degree, rng=rng))
        frame["allowance_share"] = score(frame, member)
        frame = frame.assign(target=len(members), phase=phase, opt=member.opt, best_excess=member.best_excess)
        members.append(member)
        rows.append(frame)
        return frame

    leader, leader_score = None, -math.inf
    for rng in streams[:restarts]:
        member = theorem_member(hard_target(n=n, size=size, n_stochastic=n_stochastic, query_depth=min(n, depth + 2),
                                            rng=rng), depth)
        s = float(run(member, rng, "restart").query("eta > 0")["allowance_share"].max())
        if s > leader_score:
            leader, leader_score = member, s
    for rng in streams[restarts:]:
        member = theorem_member(mutate_target(leader.target, rng), depth)
        s = float(run(member, rng, "step").query("eta > 0")["allowance_share"].max())
        if s >= leader_score:
            leader, leader_score = member, s
    evaluations = pd.concat(rows, ignore_index=True)
    worst_members = {}
    for theorem, mask in (("Theorem 1", evaluations["eta"] == 0), ("Theorem 3", evaluations["eta"] > 0)):
        row = evaluations[mask].loc[evaluations[mask]["allowance_share"].idxmax()]
        worst_members[theorem] = (members[int(row["target"])], str(row["adversary"]), float(row["eta"]))
    return evaluations, worst_members


def theorem_confirm(member: TheoremMember, *, adversary: str, eta: float, depth: int, degree: int, m: int,
                    reps: int, seed: int, key: str) -> np.ndarray:
    """FIND's exact error at one member on ``reps`` fresh samples (stream i of ``key`` for sample i)."""
    points = all_points(member.target.n)
    mu = mean_table(member.target)
    errors = []
    for rng in keyed_streams(seed, key, reps):   # a loop over repetitions; each body is vectorised
        X0, y0 = sample(member.target, m, rng=rng)
        if adversary != "none":
            c = corrupt(adversary, X0, y0, eta, rng=rng, depth=depth, degree=degree)
            X0, y0 = c.X, c.y
        errors.append(error(mu, find(X0, y0, depth=depth).tree.predict(points).astype(float)))
    return np.asarray(errors)


def theorem_rows(worst_members: dict[str, tuple[TheoremMember, str, float]], *, n: int, depth: int, degree: int,
                 m: int, delta: float, reps: int, restarts: int, steps: int, seed: int) -> pd.DataFrame:
    """[BLT21] Theorems 1 and 3 at the worst member found: the largest error over ``reps`` fresh samples
    against opt + 2η + ε, with ε = the best depth-d excess + 2γ_d at δ / reps (so the largest of the
    ``reps`` runs is within the bound with probability ≥ 1 − δ, the theorem's own confidence)."""
    rows = []
    for theorem, (member, adversary, eta) in worst_members.items():
        errors = theorem_confirm(member, adversary=adversary, eta=eta, depth=depth, degree=degree, m=m, reps=reps,
                                 seed=seed, key=f"ch03/{theorem.replace(' ', '_').lower()}_confirm")
        eps = theorem_epsilon(member, n=n, depth=depth, m=m, delta=delta / reps)
        where = (f"target {member.target.size} leaves, {coins_above_internal_nodes(member.target)} coin(s) inside, "
                 f"query depth {int(deterministic_depths(member.target).max())}, opt {member.opt:.3f}, "
                 f"best depth-{depth} excess {member.best_excess:.3f}"
                 + ("" if adversary == "none" else f"; '{adversary}' adversary at η = {eta:g}")
                 + f" ({restarts} random restarts + {steps} local steps; worst of {reps} fresh samples)")
        rows.append({"result": theorem, "adversary": adversary, "eta": eta, "worst_error": float(errors.max()),
                     "mean_error": float(errors.mean()), "opt": member.opt, "best_excess": member.best_excess,
                     "eps": eps, "bound": bounds.blt21_find_error_bound(member.opt, eta, eps), "worst_case": where})
    return pd.DataFrame(rows)


def check_theorems(table: VerificationTable, rows: pd.DataFrame) -> None:
    """The counted rows of [BLT21] Theorems 1 and 3 at the worst member found (:func:`theorem_rows`)."""
    for _, r in rows.iterrows():
        theorem_or_observation(
            table, r["result"], "FIND's worst exact error at the worst member found" + (
                "" if r["adversary"] == "none" else f" (η = {r['eta']:g})"),
            r["worst_error"], r["bound"], reach=(0.0, 1.0), box="thm-blt21-3",
            measured_by="dtcore.find.find, dtcore.stochastic.error",
            bound_by="dtcore.bounds.blt21_find_error_bound, dtcore.find.population_find, "
                     "dtcore.bounds.blt21_lemma42_uniform_deviation",
            worst_case=r["worst_case"], why="opt + 2η + ε is at least 1, the largest error there is")


def theorem_glue(rows: pd.DataFrame, evaluations: pd.DataFrame, *, size: int, depth: int) -> dict[str, Any]:
    """Theorems 1 and 3 at the worst member, for the text: errors, bounds, margins, the factor at which each
    row would fail, the search's size and the depth Lemma 2.1 with Corollary 4.1 asks for."""
    t1, t3 = (rows.set_index("result").loc[k] for k in ("Theorem 1", "Theorem 3"))
    eps_half = 0.49   # the largest ε in (0, 1/2): the smallest depth the corollary asks for
    copies = math.ceil(1 / eps_half ** 2)
    values = {"ch3_thm_targets": int(evaluations["target"].nunique()), "ch3_thm_evals": len(evaluations),
              "ch3_thm_cor_depth": math.ceil(math.log2(size ** copies / eps_half)), "ch3_thm_cor_copies": copies}
    for tag, r in (("1", t1), ("3", t3)):
        values |= {f"ch3_thm{tag}_error": float(r["worst_error"]), f"ch3_thm{tag}_bound": float(r["bound"]),
                   f"ch3_thm{tag}_opt": float(r["opt"]), f"ch3_thm{tag}_best": float(r["best_excess"]),
                   f"ch3_thm{tag}_margin": float(r["worst_error"] / r["bound"]),
                   f"ch3_thm{tag}_fail_factor": float(r["bound"] / r["worst_error"]),
                   f"ch3_thm{tag}_half": "fail" if r["worst_error"] > r["bound"] / 2 else "still hold",
                   f"ch3_thm{tag}_third": "fail" if r["worst_error"] > r["bound"] / 3 else "still hold"}
    values |= {"ch3_thm3_adv": str(t3["adversary"]), "ch3_thm3_eta": float(t3["eta"])}
    return values


# --- the exponent of the excess in η, per learner, at its strongest adversary --------------------------

def strongest_adversaries(runs: pd.DataFrame) -> dict[str, str]:
    """Per learner, the adversary of :data:`dtcore.noise.ADVERSARIES` with the largest mean excess at the
    largest η of the Table 1 runs (the search over the adversary family)."""
    at_max = runs[runs.eta == runs.eta.max()]
    return {name: str(at_max[at_max.algorithm == name].groupby("adversary")["excess"].mean().idxmax())
            for name in LEARNERS}


def _fit_learner(name: str, X: np.ndarray, y: np.ndarray, *, depth: int, degree: int) -> np.ndarray:
    """The learner's hypothesis on the cube: Pr[h(x) = 1] at every point."""
    points = all_points(X.shape[1])
    if name == "FIND":
        return find(X, y, depth=depth).tree.predict(points).astype(float)
    fit = low_degree_regression if name == "L2 (low-degree)" else l1_regression
    return fit(X, y, degree=degree).predict_proba(points)


def exponent_runs(setting: NoisySetting, *, etas: Sequence[float], reps: int, adversaries: dict[str, str],
                  seed: int) -> pd.DataFrame:
    """Each learner's exact excess over opt at every η of ``etas`` under its strongest adversary ([BLT21] Table 1).

    Clean sample ``rep`` comes from stream ``rep`` of key "ch03/exponent_clean" (the same at every η and for
    every learner); the adversary of (learner, η, rep) from its own stream of key "ch03/exponent_attack".
    One row per (learner, η, rep).
    """
    reps = _positive_int("reps", reps)
    mu = mean_table(setting.target)
    clean = [sample(setting.target, setting.m, rng=rng) for rng in keyed_streams(seed, "ch03/exponent_clean", reps)]
    attacks = iter(keyed_streams(seed, "ch03/exponent_attack", len(LEARNERS) * len(etas) * reps))
    rows = []
    for name in LEARNERS:   # loops over learners, η and repetitions; every fit is vectorised over its sample
        for eta in etas:
            for rep, (X0, y0) in enumerate(clean):
                c = corrupt(adversaries[name], X0, y0, eta, rng=next(attacks), depth=setting.depth, degree=setting.degree)
                h = _fit_learner(name, c.X, c.y, depth=setting.depth, degree=setting.degree)
                rows.append({"algorithm": name, "adversary": adversaries[name], "eta": float(eta), "rep": rep,
                             "excess": error(mu, h) - setting.opt})
    return pd.DataFrame(rows)


def exponent_fits(runs: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Per learner, the least-squares slope of log(excess) on log(η) over the runs with a positive excess,
    with its ``level`` confidence interval (t distribution, runs − 2 degrees of freedom), and how many
    runs had no excess (left out: log 0 has no value). No clipping."""
    from scipy import stats

    rows = []
    for name, grp in runs.groupby("algorithm", sort=False):
        positive = grp[grp["excess"] > 0]
        row = {"algorithm": name, "adversary": grp["adversary"].iloc[0], "runs": len(grp),
               "zero excess": int((grp["excess"] <= 0).sum()), "η values": positive["eta"].nunique(),
               "exponent": math.nan, "low": math.nan, "high": math.nan}
        if positive["eta"].nunique() >= 2 and len(positive) >= 3:
            fit = stats.linregress(np.log(positive["eta"]), np.log(positive["excess"]))
            half = stats.t.ppf(0.5 + level / 2, len(positive) - 2) * fit.stderr
            row |= {"exponent": fit.slope, "low": fit.slope - half, "high": fit.slope + half}
        rows.append(row)
    return pd.DataFrame(rows)


def exponent_figure(runs: pd.DataFrame, fits: pd.DataFrame) -> Figure:
    """Each learner's excess against η on log-log axes (runs with a positive excess) with its fitted line,
    beside the guarantees' noise terms 2√(2η) (L2) and 2η (FIND, L1)."""
    fig, ax = figures.figure(1, height=5.2)
    etas = np.array(sorted(runs["eta"].unique()))
    for i, (name, grp) in enumerate(runs.groupby("algorithm", sort=False)):
        positive = grp[grp["excess"] > 0]
        f = fits.set_index("algorithm").loc[name]
        ax.scatter(positive["eta"], positive["excess"], color=f"C{i}", s=18, alpha=0.6)
        label = f"{name.split()[0]} ({f['adversary']}): "
        if np.isfinite(f["exponent"]):
            line = np.exp(np.polyfit(np.log(positive["eta"]), np.log(positive["excess"]), 1)[1]) * etas ** f["exponent"]
            ax.plot(etas, line, "-", color=f"C{i}", label=label + f"{f['exponent']:.2f} [{f['low']:.2f}, {f['high']:.2f}]")
        else:
            ax.plot([], [], "-", color=f"C{i}", label=label + "too few positive excesses")
    ax.plot(etas, 2 * np.sqrt(2 * etas), "k--", label=r"$2\sqrt{2\eta}$")
    ax.plot(etas, 2 * etas, "k:", label=r"$2\eta$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(etas, [f"{e:g}" for e in etas])
    ax.minorticks_off()
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))   # 0.01, 0.1, 1 rather than powers of ten
    ax.set_xlabel(r"corruption rate $\eta$")
    ax.set_ylabel(r"excess error over opt")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, title="learner (adversary): exponent [95% CI]")
    return fig


def exponent_glue(fits: pd.DataFrame, *, reps: int, etas: Sequence[float]) -> dict[str, Any]:
    """The exponent fits for the text: per learner the exponent, its interval and the zero count."""
    values: dict[str, Any] = {"ch3_exp_reps": reps, "ch3_exp_n_etas": len(etas),
                              "ch3_exp_etas": ", ".join(f"{e:g}" for e in etas)}
    for _, f in fits.iterrows():
        tag = f["algorithm"].split()[0]
        values |= {f"ch3_exp_{tag}": float(f["exponent"]), f"ch3_exp_{tag}_low": float(f["low"]),
                   f"ch3_exp_{tag}_high": float(f["high"]), f"ch3_exp_{tag}_zero": int(f["zero excess"]),
                   f"ch3_exp_{tag}_adv": str(f["adversary"])}
    parts, short = [], []
    for _, f in fits.iterrows():
        name = f["algorithm"].split()[0]
        if np.isfinite(f["exponent"]):
            parts.append(f"{name}'s, under the '{f['adversary']}' adversary, is {f['exponent']:.2f} (95% interval "
                         f"{f['low']:.2f} to {f['high']:.2f}; {f['zero excess']} of {f['runs']} runs without excess)")
            short.append(f"{f['exponent']:.2f} ({name})")
        else:
            parts.append(f"{name}'s, under the '{f['adversary']}' adversary, cannot be fitted: {f['zero excess']} of "
                         f"{f['runs']} runs had no excess at all")
            short.append(f"no fit ({name}: {f['zero excess']} of {f['runs']} runs without excess)")
    values["ch3_exp_sentence"] = "; ".join(parts)
    values["ch3_exp_short"] = ", ".join(short)
    l2 = fits.set_index("algorithm").loc["L2 (low-degree)"]
    if not np.isfinite(l2["low"]):
        verdict = "too few positive excesses to fit L2's exponent"
    elif l2["high"] < 0.5:
        verdict = ("L2's interval lies below 1/2: near η = 0 its excess rises more steeply than √η, so the √η term "
                   "is not a proof artefact on this range")
    elif l2["low"] > 0.5:
        verdict = ("L2's interval lies above 1/2: under the strongest adversary we found its excess grows faster "
                   "than √η on this range — a √η growth is not realised here, which does not show it cannot be")
    else:
        verdict = ("L2's interval contains 1/2: the data cannot tell a √η growth from the other exponents in it")
    values["ch3_exp_verdict"] = verdict
    return values


# --- Theorem 4's L2 guarantee at the m where Lemma 5.2's ε falls below 0.1 ---------------------------

#: The ε of Lemma 5.2 at which Theorem 4's L2 bound can say something (issue: the m that reaches it).
L2_TARGET_EPS = 0.1


def lemma52_sample_size(n_coefficients: int, delta: float, target_eps: float = L2_TARGET_EPS) -> int:
    """The least m at which [BLT21] Lemma 5.2's ε (:func:`dtcore.bounds.blt21_lemma52_eps`) is below ``target_eps``."""
    if not 0 < target_eps < 1:
        raise ValueError(f"target_eps must be in (0, 1), got {target_eps!r}")
    low, high = 1, 1
    while bounds.blt21_lemma52_eps(high, n_coefficients, delta) >= target_eps:   # doubling, then bisection
        low, high = high, 2 * high
    while low < high:
        mid = (low + high) // 2
        if bounds.blt21_lemma52_eps(mid, n_coefficients, delta) < target_eps:
            high = mid
        else:
            low = mid + 1
    return high


def l2_large_sample(setting: NoisySetting, *, m: int, eta: float, adversary: str, seed: int) -> dict[str, Any]:
    """[BLT21] Theorem 4 (L2 part, Lemma 5.3) at sample size ``m``: one clean sample of the chapter's target
    (key "ch03/l2_large"), corrupted by ``adversary`` at rate ``eta``, the low-degree fit's exact error and the
    bound opt + 2√(2η + ε₂ + ε₅.₂ + γ₁) with every ε at this m."""
    rng = seeds_rng(seed, "ch03/l2_large")
    X0, y0 = sample(setting.target, m, rng=rng)
    c = corrupt(adversary, X0, y0, eta, rng=rng, depth=setting.depth, degree=setting.degree)
    del X0, y0
    p = low_degree_regression(c.X, c.y, degree=setting.degree)
    mu = mean_table(setting.target)
    n_coef = n_monomials(setting.target.n, setting.degree)
    eps52 = bounds.blt21_lemma52_eps(m, n_coef, setting.delta)
    gamma1 = bounds.blt21_lemma42_uniform_deviation(1, m, setting.delta)
    return {"m": m, "eta": eta, "adversary": adversary, "error": error(mu, p.predict_proba(all_points(setting.target.n))),
            "opt": setting.opt, "eps52": eps52, "a2": setting.a2, "gamma1": gamma1,
            "bound": bounds.blt21_low_degree_error_bound(setting.opt, eta, setting.a2 + eps52 + gamma1)}


def seeds_rng(seed: int, key: str) -> np.random.Generator:
    """The generator of experiment ``key`` under chapter seed ``seed`` (:func:`dtcore.book.seeds.seed_sequence`)."""
    return np.random.default_rng(seed_sequence(seed, key))


# --- the page's tables ---------------------------------------------------------------------------

def styled(frame: pd.DataFrame, headers: dict[str, str], *, digits: int = 4) -> Any:
    """``frame`` for the page (:func:`dtcore.book.chapter.styled_table`)."""
    return styled_table(frame, headers, digits=digits)
