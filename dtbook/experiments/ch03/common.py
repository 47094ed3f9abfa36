"""Chapter-wide helpers of chapter 3 ([BLT21]): the learners' names, the theorem-or-observation rule,
argument checks, timing, uniform bits, the rows two samples differ in, and the page's table style.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from dtcore.audit import worst_case
from dtcore.find import find
from ...chapter import styled_table
from ...report import Provenance, VerificationTable


#: The three learners of Table 1, in the order the page discusses them.
LEARNERS = ("FIND", "L2 (low-degree)", "L1 regression")


#: How the page names each adversary of :data:`dtcore.noise.ADVERSARIES` (words, not code names).
ADVERSARY_LABELS = {"random": "random flips", "find": "FIND's leaves", "moving": "moving rows",
                    "point_mass": "point mass", "subcube": "subcube"}
#: One colour per adversary from the book's Okabe–Ito palette, with no red/green pair among them.
ADVERSARY_COLOURS = {"random flips": "#000000", "FIND's leaves": "#0072B2", "moving rows": "#E69F00",
                     "point mass": "#CC79A7", "subcube": "#56B4E9"}


def adversary_label(name: str) -> str:
    """The page's name of an adversary (``"point_mass"`` -> ``"point mass"``); unknown names pass through."""
    return ADVERSARY_LABELS.get(str(name), str(name))


#: The label of the book's box restating each learner's theorem.
THEOREM_BOX = {"FIND": "thm-blt21-3", "L2 (low-degree)": "thm-blt21-4", "L1 regression": "thm-blt21-4"}


def positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def theorem_or_observation(table: VerificationTable, result: str, quantity: str, measured: float, bound: float, *,
                           reach: tuple[float, float], measured_by: Provenance, bound_by: Provenance, why: str,
                           box: str = "", tolerance: float = 0.0, worst_case: str = "",
                           fails_under: tuple[str, float] | None = None, why_no_power: str = "") -> None:
    """Add ``measured <= bound`` as a theorem row, or as an observation when the row cannot fail.

    ``reach`` is the quantity's real reach; a bound at or above its top cannot fail, so the row is
    then shown with ``why`` and not counted (the rule of :class:`dtbook.report.VerificationTable`).
    ``fails_under=(name, value)`` is the row's power: the same quantity at a named worse output. With
    ``why_no_power`` given, a row whose worse output passes the bound too is also shown, not counted,
    with ``why_no_power`` (which should give the worse output's value); without it, such a row stays a
    theorem row and the lint flags it (``no-power``).
    """
    worse_passes = (fails_under is not None and reach[0] - tolerance <= fails_under[1] <= bound + tolerance)
    if bound < reach[1] and not (why_no_power and worse_passes):
        table.theorem(result, quantity, measured, bound, reach=reach, measured_by=measured_by, bound_by=bound_by,
                      box=box, tolerance=tolerance, worst_case=worst_case, fails_under=fails_under)
    else:
        table.observation(result, quantity, measured, bound, box=box, worst_case=worst_case,
                          why=why if bound >= reach[1] else why_no_power)


def worst_root_errors(X: np.ndarray, y: np.ndarray, depth: int, sample_weight: np.ndarray | None = None) -> float:
    """The (weighted) training errors of the best depth-``depth`` tree whose root is the *worst* variable.

    [BLT21] Figure 2 with its root choice reversed (the fault "keep the split with the most errors" at the
    root only): for each variable, FIND at depth − 1 on both halves; the largest sum. A tree of depth ≤ d, so an
    admissible output of FIND's class whose errors exceed the least on most samples: the power of the Lemma 3.1
    and Corollary 4.1 rows. An empty half costs 0 (a leaf with no example); ``depth`` must be at least 1.
    """
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"depth must be an integer >= 1 (a root to choose), got {depth!r}")
    X, y = np.asarray(X), np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    worst_total = -math.inf
    for i in range(X.shape[1]):   # a loop over variables; each body is one FIND call per half
        total = 0.0
        for side in (0, 1):
            rows = X[:, i] == side
            if rows.any():
                total += float(find(X[rows], y[rows], depth=int(depth) - 1,
                                    sample_weight=None if sample_weight is None else w[rows]).errors)
        worst_total = max(worst_total, total)
    return worst_total


def time_best(fn: Callable[[], object], repeat: int = 3) -> float:
    """The least wall-clock time of ``repeat`` calls of ``fn``, in seconds."""
    repeat = positive_int("repeat", repeat)
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def random_bits(rng: np.random.Generator, shape: int | tuple[int, int]) -> np.ndarray:
    return (rng.random(shape) < 0.5).astype(np.uint8)


def rows_changed(X0: np.ndarray, y0: np.ndarray, X: np.ndarray, y: np.ndarray) -> int:
    # counted from the two samples, not from the adversary's own mask
    return int(((X != X0).any(axis=1) | (y != y0)).sum())


def styled(frame: pd.DataFrame, headers: dict[str, str], *, digits: int = 4, caption: str = "") -> Any:
    """``frame`` for the page (:func:`dtbook.chapter.styled_table`), with its caption."""
    return styled_table(frame, headers, digits=digits, caption=caption)
