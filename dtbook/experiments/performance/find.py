"""FIND against STreeD ([BLT21] Lemma 3.1): on Boolean data and, through OptimalTreeClassifier, on
real-valued data binarised at quantiles.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dtcore.estimators import OptimalTreeClassifier
from dtcore.find import find, training_errors
from dtcore.functions import random_tree_of_depth
from ... import seeds
from .users import binarised_data, peak_memory as traced_peak_bytes
from .common import Benchmark, QUICK_TARGET, benchmark_row, timed, workload_rng


#: The speed targets of the FIND rows (pinned ratio dtcore / STreeD) at full scale.
FIND_TARGETS = {(4, 32): 0.35, (3, 64): 0.35, (3, 32): 2.0, (5, 16): 0.5}


#: The target of the FIND rows on real-valued data binarised at quantiles (issue 29), full scale.
USER_FIND_TARGET = 0.5


def find_cases(scale: str) -> list[tuple[int, int]]:
    """The (depth, features) of the FIND rows at ``scale``."""
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    return [(3, 32), (4, 32), (3, 64), (5, 16)] if scale == "full" else [(3, 12), (4, 10), (3, 16), (5, 8)]


def find_target(scale: str, depth: int, n: int) -> float | None:
    """The speed target of the FIND row (depth, n): :data:`FIND_TARGETS` at full scale,
    :data:`QUICK_TARGET` at quick."""
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    return FIND_TARGETS.get((depth, n)) if scale == "full" else QUICK_TARGET


def find_data(rng: np.random.Generator, *, m: int, n: int, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """``m`` uniform points of {0,1}^n labelled by a random complete tree of ``depth``, 10% label noise."""
    X = (rng.random((m, n)) < 0.5).astype(np.uint8)
    y = random_tree_of_depth(n, depth, rng=rng).predict(X).astype(np.uint8)
    y ^= (rng.random(m) < 0.1).astype(np.uint8)
    return X, y


def find_benchmark(X: np.ndarray, y: np.ndarray, *, depth: int, repetitions: int, seed: int,
                   target: float | None = None, name: str | None = None, size: str | None = None) -> Benchmark:
    """FIND ([BLT21] Lemma 3.1: least training error at depth d) against pystreed's exact solver with no
    complexity penalty: the two trees' recomputed training errors and FIND's reported one must agree.
    ``name`` and ``size`` label the row (default ``"FIND (d=...)"`` and ``"m x n"``)."""
    from pystreed import STreeDClassifier

    peer_seed = seeds.library_seed(seed, f"performance/find-d{depth}-n{X.shape[1]}/peer")

    def ours():
        return find(X, y, depth=depth)

    def peer():
        return STreeDClassifier(max_depth=depth, cost_complexity=0.0, random_seed=peer_seed).fit(X, y)

    times, out = timed({"dtcore": ours, "peer": peer}, repetitions=repetitions)
    res, streed = out["pinned"]["dtcore"], out["pinned"]["peer"]
    find_err = int(training_errors(res.tree, X, y))
    streed_err = int((streed.predict(X) != y).sum())
    same = find_err == streed_err == int(round(res.errors))
    return benchmark_row(name or f"FIND (d={depth})", size or f"{X.shape[0]}x{X.shape[1]}",
                         f"pystreed STreeDClassifier(max_depth={depth})", times, same="yes" if same else "no",
                         check=f"training errors {find_err} / {streed_err}",
                         deviation=abs(find_err - streed_err) + abs(find_err - res.errors), target=target,
                         profile=ours)


#: The data sets of the rows on real-valued data, as the page names them.
DATASET_NAMES = {"breast_cancer": "breast cancer", "make_classification": "make_classification"}


def user_find_cases(scale: str) -> list[dict[str, Any]]:
    """The FIND rows on real-valued data binarised at quantile cut points (issue 29), at ``scale``.

    Each case: ``dataset``, ``rows`` (None: all), ``cuts`` per column, ``depth``, ``via``
    (``"features"``: FIND on the pre-binarised features; ``"estimator"``:
    ``OptimalTreeClassifier.fit`` on the real-valued data, binarisation on its clock) and
    ``target`` (:data:`USER_FIND_TARGET` at full scale, :data:`QUICK_TARGET` at quick, except the
    estimator at depth 2 on breast cancer, whose workload is the same at both scales and is judged
    against :data:`USER_FIND_TARGET` at both). Full scale: breast cancer (569 x 30) at depth 2 and 3
    with 4 and 8 cuts, both ways, and make_classification 50,000 x 30 at 8 cuts, depth 3, through the
    estimator. Quick scale keeps the cases whose peer takes well under a second: breast cancer at 4
    cuts, depth 3, both ways, the estimator at depth 2 with 4 and 8 cuts, and make_classification
    1,000 x 30 at 4 cuts, depth 3, through the estimator."""
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    if scale == "full":
        grid = [("breast_cancer", None, cuts, depth, via) for via in ("features", "estimator")
                for cuts in (4, 8) for depth in (2, 3)]
        grid.append(("make_classification", 50_000, 8, 3, "estimator"))
    else:
        grid = [("breast_cancer", None, 4, 3, "features"), ("breast_cancer", None, 4, 3, "estimator"),
                ("breast_cancer", None, 4, 2, "estimator"), ("breast_cancer", None, 8, 2, "estimator"),
                ("make_classification", 1_000, 4, 3, "estimator")]

    def target(dataset: str, depth: int, via: str) -> float:
        same_at_both_scales = dataset == "breast_cancer" and depth == 2 and via == "estimator"
        return USER_FIND_TARGET if scale == "full" or same_at_both_scales else QUICK_TARGET

    return [{"dataset": d, "rows": r, "cuts": c, "depth": k, "via": v, "target": target(d, k, v)}
            for d, r, c, k, v in grid]


def user_find_benchmark(case: Mapping[str, Any], *, repetitions: int, seed: int) -> Benchmark:
    """One case of :func:`user_find_cases` against pystreed's ``STreeDClassifier(max_depth=d,
    cost_complexity=0)`` on the same binarised features (its own encoding inside ``fit`` is part of its
    time). The same result: equal training errors, recomputed from both trees' predictions. Through
    the estimator, the row also records the peak memory of one ``fit`` (``tracemalloc``) as
    ``peak_MB``."""
    from pystreed import STreeDClassifier

    dataset, cuts, depth, via = case["dataset"], int(case["cuts"]), int(case["depth"]), case["via"]
    if via not in ("features", "estimator"):
        raise ValueError(f"via must be 'features' or 'estimator', got {via!r}")
    X_real, Xb, y = binarised_data(dataset, cuts=cuts, rows=case["rows"],
                                   rng=workload_rng(seed, f"user-{dataset}-{case['rows']}"))
    label = f"{DATASET_NAMES[dataset]} {X_real.shape[0]:,}×{X_real.shape[1]}, {cuts} cuts ({Xb.shape[1]} features)"
    if via == "features":
        return find_benchmark(Xb, y, depth=depth, repetitions=repetitions, seed=seed, target=case["target"],
                              name=f"FIND (d={depth}), binarised", size=label)
    peer_seed = seeds.library_seed(seed, f"performance/user-{dataset}-c{cuts}-d{depth}/peer")

    def ours():
        return OptimalTreeClassifier(max_depth=depth, n_thresholds=cuts).fit(X_real, y)

    def peer():
        return STreeDClassifier(max_depth=depth, cost_complexity=0.0, random_seed=peer_seed).fit(Xb, y)

    times, out = timed({"dtcore": ours, "peer": peer}, repetitions=repetitions)
    mine = int((out["pinned"]["dtcore"].predict(X_real) != y).sum())
    theirs = int((out["pinned"]["peer"].predict(Xb) != y).sum())
    peak = traced_peak_bytes(ours) / 2**20
    bench = benchmark_row(f"FIND via OptimalTreeClassifier (d={depth})", label + ", real-valued input",
                          f"pystreed STreeDClassifier(max_depth={depth}) on the binarised features", times,
                          same="yes" if mine == theirs else "no",
                          check=f"training errors {mine} / {theirs}; peak memory of fit {peak:.0f} MB",
                          deviation=abs(mine - theirs), target=case["target"], profile=ours)
    bench.row["peak_MB"] = peak
    return bench
