"""Performance where users meet it: FIND on binarised real data, deep FIND, ID3 at a million rows,
exact BuildTopDownDT against its memory floor, and how FIND's and ID3's costs scale.

Every benchmark times dtcore and its peer **interleaved in one process** with
:func:`dtbook.timing.interleaved_times` (BLAS and OpenMP pinned to ``threads``; ``None`` is the
libraries' default), after one untimed warm-up call of each side, and returns a **tidy DataFrame**,
one row per thread setting, with the columns of :data:`ROW_COLUMNS`:

* ``workload`` (what ran), ``size`` (its dimensions), ``peer`` (what it was compared with),
  ``threads`` (1 or ``"default"``), ``reps``;
* ``ours_s``, ``peer_s``: median seconds; ``ratio`` = ours / peer (medians), ``ratio_min`` /
  ``ratio_max``: the extreme per-round ratios (two calls of a round saw the same load);
* ``same_result`` (``"yes"`` / ``"no"``), ``deviation`` (the size of the disagreement, 0 when the
  results agree) and ``check`` (what was compared);
* ``floor_s``, ``distance_to_floor`` (ours / floor) where a floor is stated, else NaN;
* ``load_1min``: the machine's one-minute load average when the row was measured (the 2-core
  machine is shared: a ratio is meaningful, an absolute time is not).

The scale functions time FIND and ID3 on a grid of rows, features and depth, with peak memory
(``tracemalloc``, which sees NumPy's buffers), and fit the exponents of time ~ m^a n^b
(:func:`fit_exponents`), so a user can predict a run before starting it.
"""

from __future__ import annotations

import gc
import os
import time
import tracemalloc
from collections.abc import Callable, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from dtcore.audit.compare import agreement_up_to_ties, tree_from_sklearn
from dtcore.buildtopdown import InfluenceScorer, build_top_down_dt
from dtcore.cube import all_points, truth_table
from dtcore.estimators import OptimalTreeClassifier, ThresholdBinarizer
from dtcore.find import find, training_errors
from dtcore.functions import junta, majority, random_tree_of_depth
from dtcore.grow import grow, select_best
from dtcore.id3 import id3
from dtcore.validate import check_choice, check_int, check_rng
from ...timing import interleaved_times, summarise

__all__ = [
    "ROW_COLUMNS", "DATASETS",
    "binarised_data", "boolean_tree_data", "junta_data",
    "find_vs_pystreed", "estimator_vs_pystreed", "id3_vs_sklearn", "buildtopdown_vs_floor",
    "peak_memory", "find_scale_grid", "id3_scale_grid", "fit_exponents", "scale_figure",
]

#: The columns of every benchmark row.
ROW_COLUMNS = ("workload", "size", "peer", "threads", "reps", "ours_s", "peer_s", "ratio", "ratio_min",
               "ratio_max", "same_result", "deviation", "check", "floor_s", "distance_to_floor", "load_1min")
#: Real-valued data sets :func:`binarised_data` knows.
DATASETS = ("breast_cancer", "make_classification")


# --- data ---------------------------------------------------------------------------------------
def binarised_data(dataset: str, *, cuts: int, rows: int | None = None,
                   rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(real X, Boolean features, labels) of a real-valued data set binarised at ``cuts`` quantile
    cut points per column (:class:`~dtcore.estimators.ThresholdBinarizer`, as
    :class:`~dtcore.estimators.OptimalTreeClassifier` does).

    ``"breast_cancer"``: scikit-learn's 569 x 30 (the first ``rows`` rows if given).
    ``"make_classification"``: ``rows`` x 30 from ``sklearn.datasets.make_classification`` with its
    default informative/redundant features, seeded from ``rng``.
    """
    check_choice("dataset", dataset, DATASETS)
    cuts = check_int("cuts", cuts, 1)
    if dataset == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
        if rows is not None:
            X, y = X[:check_int("rows", rows, 2, X.shape[0])], y[:rows]
    else:
        from sklearn.datasets import make_classification

        rng = check_rng(rng)
        rows = check_int("rows", 50_000 if rows is None else rows, 10)
        X, y = make_classification(n_samples=rows, n_features=30, random_state=int(rng.integers(2**31)))
    Xb = ThresholdBinarizer(cuts).fit(X).transform(X)
    return X, Xb, y.astype(np.uint8)


def boolean_tree_data(*, rows: int, features: int, depth: int, noise: float,
                      rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Uniform points of {0,1}^features labelled by a random depth-``depth`` tree, each label flipped
    with probability ``noise`` (the appendix's FIND workloads)."""
    rng = check_rng(rng)
    X = (rng.random((rows, features)) < 0.5).astype(np.uint8)
    y = random_tree_of_depth(features, depth, rng=rng).predict(X).astype(np.uint8)
    return X, y ^ (rng.random(rows) < noise).astype(np.uint8)


def junta_data(*, rows: int, features: int, noise: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The appendix's ID3 workload: uniform points, labels [sum_{j=1}^7 j x_{i_j} >= 14] on 7 random
    variables, each flipped with probability ``noise``."""
    rng = check_rng(rng)
    relevant = np.sort(rng.choice(features, 7, replace=False))
    table = (all_points(7) @ np.arange(1.0, 8.0) >= 14).astype(np.uint8)
    X = (rng.random((rows, features), dtype=np.float32) < 0.5).astype(np.uint8)
    y = junta(X, relevant, table).astype(np.uint8)
    return X, y ^ (rng.random(rows) < noise).astype(np.uint8)


# --- timing rows -----------------------------------------------------------------------------------
def _rows(workload: str, size: str, peer: str, ours: Callable[[], object], theirs: Callable[[], object] | None,
          compare: Callable[[object, object], tuple[bool, float, str]], *, repetitions: int,
          thread_settings: Sequence[int | None], floor: Callable[[], object] | None = None) -> pd.DataFrame:
    """Time ``ours`` against ``theirs`` (and a floor pass) interleaved; one row per thread setting."""
    repetitions = check_int("repetitions", repetitions, 1)
    candidates = {"ours": ours}
    if theirs is not None:
        candidates["peer"] = theirs
    if floor is not None:
        candidates["floor"] = floor
    out = []
    for threads in thread_settings:
        for fn in candidates.values():  # warm-up: first-call costs (imports, thread pools) untimed
            fn()
        times, results = interleaved_times(candidates, repetitions, threads=threads)
        medians = summarise(times).set_index("name")["median"]
        wide = times.pivot_table(index="rep", columns="name", values="seconds", aggfunc="first")
        same, deviation, check = compare(results["ours"], results.get("peer"))
        row = {"workload": workload, "size": size, "peer": peer, "threads": "default" if threads is None else threads,
               "reps": repetitions, "ours_s": float(medians["ours"]), "peer_s": np.nan, "ratio": np.nan,
               "ratio_min": np.nan, "ratio_max": np.nan, "same_result": "yes" if same else "no",
               "deviation": float(deviation), "check": check, "floor_s": np.nan, "distance_to_floor": np.nan,
               "load_1min": os.getloadavg()[0]}
        if theirs is not None:
            per_round = wide["ours"] / wide["peer"]
            row.update(peer_s=float(medians["peer"]), ratio=float(medians["ours"] / medians["peer"]),
                       ratio_min=float(per_round.min()), ratio_max=float(per_round.max()))
        if floor is not None:
            row.update(floor_s=float(medians["floor"]), distance_to_floor=float(medians["ours"] / medians["floor"]))
        out.append(row)
    return pd.DataFrame(out, columns=list(ROW_COLUMNS))


def _streed(depth: int):
    from pystreed import STreeDClassifier

    return STreeDClassifier(max_depth=depth, cost_complexity=0.0, random_seed=0)


def find_vs_pystreed(X: np.ndarray, y: np.ndarray, *, depth: int, workload: str, repetitions: int = 3,
                     thread_settings: Sequence[int | None] = (1,)) -> pd.DataFrame:
    """FIND (:func:`dtcore.find.find`) against pystreed's ``STreeDClassifier(max_depth=depth,
    cost_complexity=0)`` on the same Boolean features. Both are exact: the result is the same when
    the two trees' training errors, recomputed from their predictions, are equal (and equal to
    FIND's reported error)."""
    depth = check_int("depth", depth, 1)

    def compare(ours, theirs):
        mine = int(training_errors(ours.tree, X, y))
        peer = int((theirs.predict(X) != y).sum())
        dev = abs(mine - peer) + abs(mine - ours.errors)
        return dev == 0, dev, f"training errors {mine} / {peer}"

    return _rows(workload, f"{X.shape[0]}x{X.shape[1]} Boolean, d={depth}",
                 f"pystreed STreeDClassifier(max_depth={depth})", lambda: find(X, y, depth=depth),
                 lambda: _streed(depth).fit(X, y), compare, repetitions=repetitions, thread_settings=thread_settings)


def estimator_vs_pystreed(X_real: np.ndarray, y: np.ndarray, *, depth: int, cuts: int, workload: str,
                          repetitions: int = 3, thread_settings: Sequence[int | None] = (1,)) -> pd.DataFrame:
    """FIND as a user runs it on real-valued data: ``OptimalTreeClassifier(max_depth, n_thresholds=cuts)
    .fit`` (binarisation included in its time) against pystreed on the pre-binarised features (its
    own encoding inside ``fit`` is part of its time). Same result: equal training errors."""
    depth = check_int("depth", depth, 1)
    Xb = ThresholdBinarizer(cuts).fit(X_real).transform(X_real)

    def compare(ours, theirs):
        mine = int((ours.predict(X_real) != y).sum())
        peer = int((theirs.predict(Xb) != y).sum())
        return mine == peer, abs(mine - peer), f"training errors {mine} / {peer}"

    return _rows(workload, f"{X_real.shape[0]}x{X_real.shape[1]} real, {cuts} cuts ({Xb.shape[1]} Boolean), d={depth}",
                 f"pystreed STreeDClassifier(max_depth={depth}) on the binarised features",
                 lambda: OptimalTreeClassifier(max_depth=depth, n_thresholds=cuts).fit(X_real, y),
                 lambda: _streed(depth).fit(Xb, y), compare, repetitions=repetitions, thread_settings=thread_settings)


def id3_vs_sklearn(X: np.ndarray, y: np.ndarray, *, workload: str, repetitions: int = 3,
                   thread_settings: Sequence[int | None] = (1,)) -> pd.DataFrame:
    """ID3 (:func:`dtcore.id3.id3`, Gini, until pure) against scikit-learn's unrestricted
    ``DecisionTreeClassifier`` (fed a Fortran-ordered float32 copy made outside the timer). Same
    result: the two trees make the same split at every node except exact gain ties
    (:func:`dtcore.audit.compare.agreement_up_to_ties`)."""
    from sklearn.tree import DecisionTreeClassifier

    X_sk = np.asfortranarray(X, dtype=np.float32)

    def compare(ours, theirs):
        agreement = agreement_up_to_ties(ours.tree, tree_from_sklearn(theirs, X.shape[1]), X, y, "gini")
        return agreement.same, agreement.differences, (f"{agreement.matched} nodes agree, {agreement.ties} exact "
                                                       f"ties, {agreement.differences} differences")

    return _rows(workload, f"{X.shape[0]}x{X.shape[1]}", "sklearn DecisionTreeClassifier() (unrestricted)",
                 lambda: id3(X, y, impurity="gini"), lambda: DecisionTreeClassifier(random_state=0).fit(X_sk, y),
                 compare, repetitions=repetitions, thread_settings=thread_settings)


def buildtopdown_vs_floor(n: int, *, leaves: int, repetitions: int = 3, thread_settings: Sequence[int | None] = (1,),
                          one_leaf_at_a_time: bool = False) -> pd.DataFrame:
    """Exact BuildTopDownDT (:func:`dtcore.buildtopdown.build_top_down_dt`, uniform measure) on
    majority of n bits, grown to ``leaves`` leaves, against its **memory floor**.

    The floor: at every level of the tree the leaves partition the cube, and the influences of all
    of them need, for every variable i and every point x, whether f(x) != f(x xor e_i): the n flip
    tables, n 2^n / 8 bytes packed. The floor is one popcount pass over them per level
    (``numpy.bitwise_count`` summed), times the tree's depth. ``peer`` is optional: with
    ``one_leaf_at_a_time`` the row's peer is the same algorithm run by :func:`dtcore.grow.grow`,
    one :meth:`~dtcore.analysis.ExactMeasure.region` call per leaf (the same tree and trace).
    """
    n = check_int("n", n, 8, 26)
    leaves = check_int("leaves", leaves, 2, 2 ** (n - 1))
    table = truth_table(majority, n)
    depth = build_top_down_dt(table, eps=1e-12, size=leaves).tree.depth
    # the bytes a level must read, written (untouched pages would read as one shared zero page);
    # a popcount costs the same whatever the bits are
    flip_tables = np.arange(n * 2 ** (n - 6), dtype=np.uint64).reshape(n, -1) * np.uint64(0x9E3779B97F4A7C15)

    def floor():
        return [int(np.bitwise_count(flip_tables).sum(dtype=np.int64)) for _ in range(depth)]

    def reference():
        scorer = InfluenceScorer(table)
        return grow(scorer, stop=lambda fr: scorer.total_error <= 1e-12, n=n, size=leaves, select=select_best,
                    observe=lambda fr: {"cost": scorer.total_cost, "error": scorer.total_error})

    def compare(ours, theirs):
        pointwise = float(np.mean(ours.tree.truth_table() != table))
        dev = abs(float(ours.trace["error"].iloc[-1]) - pointwise)
        if theirs is not None:
            same_tree = (ours.tree.feature, ours.tree.value) == (theirs.tree.feature, theirs.tree.value)
            dev += 0.0 if same_tree and ours.trace.equals(theirs.trace) else 1.0
            return dev == 0, dev, "trace error - truth-table error, and tree and trace against grow()"
        return dev == 0, dev, "trace error - truth-table error"

    rows = _rows("BuildTopDownDT (exact, uniform)",
                 f"majority n={n}, {leaves} leaves, depth {depth}; floor reads n 2^n/8 = "
                 f"{flip_tables.nbytes / 2**20:.1f} MB per level",
                 "grow(), one leaf at a time" if one_leaf_at_a_time else "— (floor only)",
                 lambda: build_top_down_dt(table, eps=1e-12, size=leaves),
                 reference if one_leaf_at_a_time else None, compare, repetitions=repetitions,
                 thread_settings=thread_settings, floor=floor)
    rows["floor_bytes_per_level"] = flip_tables.nbytes
    return rows


# --- memory and scale ------------------------------------------------------------------------------
def peak_memory(fn: Callable[[], object]) -> int:
    """Peak bytes allocated while ``fn()`` runs (``tracemalloc``, which sees NumPy's buffers)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return int(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()


def _best_time(fn: Callable[[], object], repetitions: int) -> float:
    best = np.inf
    for _ in range(repetitions):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return float(best)


def find_scale_grid(*, rows: Sequence[int], features: Sequence[int], depths: Sequence[int], noise: float = 0.1,
                    repetitions: int = 2, rng: np.random.Generator) -> pd.DataFrame:
    """FIND's seconds (best of ``repetitions``, one BLAS thread) and peak memory on every (m, n, d)
    of the grid: m uniform points of {0,1}^n labelled by a random depth-d tree with ``noise``."""
    rng = check_rng(rng)
    out = []
    for d in depths:
        for n in features:
            for m in rows:
                X, y = boolean_tree_data(rows=int(m), features=int(n), depth=int(d), noise=noise, rng=rng)
                find(X, y, depth=int(d))
                out.append({"algorithm": "FIND", "m": int(m), "n": int(n), "d": int(d),
                            "seconds": _best_time(lambda: find(X, y, depth=int(d)), repetitions),
                            "peak_bytes": peak_memory(lambda: find(X, y, depth=int(d))),
                            "input_bytes": X.nbytes + y.nbytes, "load_1min": os.getloadavg()[0]})
    return pd.DataFrame(out)


def id3_scale_grid(*, rows: Sequence[int], features: Sequence[int], noise: float = 0.2, repetitions: int = 2,
                   rng: np.random.Generator) -> pd.DataFrame:
    """ID3's seconds (best of ``repetitions``) and peak memory on every (m, n) of the grid, on the
    junta workload with ``noise`` (:func:`junta_data`); ``leaves`` is the tree's size."""
    rng = check_rng(rng)
    out = []
    for n in features:
        for m in rows:
            X, y = junta_data(rows=int(m), features=int(n), noise=noise, rng=rng)
            leaves = id3(X, y).tree.size
            out.append({"algorithm": "ID3", "m": int(m), "n": int(n), "d": np.nan, "leaves": leaves,
                        "seconds": _best_time(lambda: id3(X, y), repetitions),
                        "peak_bytes": peak_memory(lambda: id3(X, y)),
                        "input_bytes": X.nbytes + y.nbytes, "load_1min": os.getloadavg()[0]})
    return pd.DataFrame(out)


def fit_exponents(grid: pd.DataFrame, *, value: str = "seconds", by: str | None = None) -> pd.DataFrame:
    """Least-squares fit of log(value) = c + a log m + b log n (per ``by`` group, e.g. depth):
    the exponents ``rows_exponent`` a and ``features_exponent`` b, the constant as ``at_1000x10``
    (the fitted value at m = 1000, n = 10) and the fit's R^2 on the log scale."""
    groups = [(None, grid)] if by is None else list(grid.groupby(by))
    out = []
    for key, part in groups:
        A = np.column_stack([np.ones(len(part)), np.log(part["m"]), np.log(part["n"])])
        target = np.log(part[value].to_numpy(float))
        if len(part) < 3 or np.linalg.matrix_rank(A) < 3:
            raise ValueError(f"grid must vary both m and n in every group, got {len(part)} points for {by}={key}")
        coef, *_ = np.linalg.lstsq(A, target, rcond=None)
        residual = target - A @ coef
        r2 = 1.0 - float(residual @ residual) / float(((target - target.mean()) ** 2).sum() or 1.0)
        out.append({**({} if by is None else {by: key}), "value": value, "rows_exponent": float(coef[1]),
                    "features_exponent": float(coef[2]),
                    "at_1000x10": float(np.exp(coef[0] + coef[1] * np.log(1000) + coef[2] * np.log(10))),
                    "r2_log": r2, "points": len(part)})
    return pd.DataFrame(out)


def scale_figure(grid: pd.DataFrame, *, value: str = "seconds") -> Figure:
    """Log-log panels of ``value`` against rows m (one line per n) and against features n (one
    line per m), one row of panels per depth (FIND) or a single row (ID3)."""
    depths = sorted(grid["d"].dropna().unique()) if grid["d"].notna().any() else [None]
    fig, axes = plt.subplots(len(depths), 2, figsize=(9, 3.2 * len(depths)), squeeze=False)
    for r, d in enumerate(depths):
        part = grid if d is None else grid[grid["d"] == d]
        label = part["algorithm"].iloc[0] + ("" if d is None else f", d={int(d)}")
        for n, sub in part.groupby("n"):
            axes[r, 0].loglog(sub["m"], sub[value], "o-", label=f"n={n}")
        for m, sub in part.groupby("m"):
            axes[r, 1].loglog(sub["n"], sub[value], "s-", label=f"m={m}")
        axes[r, 0].set(xlabel="rows m", ylabel=value, title=f"{label}: {value} against rows")
        axes[r, 1].set(xlabel="features n", ylabel=value, title=f"{label}: {value} against features")
        for ax in axes[r]:
            ax.legend(fontsize=8)
            ax.xaxis.set_minor_formatter(NullFormatter())   # decade labels only: no overlapping ticks
    fig.tight_layout()
    return fig
