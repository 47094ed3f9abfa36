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
                           box: str = "", tolerance: float = 0.0, worst_case: str = "") -> None:
    """Add ``measured <= bound`` as a theorem row, or as an observation when the bound is vacuous.

    ``reach`` is the quantity's real reach; a bound at or above its top cannot fail, so the row is
    then shown with ``why`` and not counted (the rule of :class:`dtbook.report.VerificationTable`).
    """
    if bound < reach[1]:
        table.theorem(result, quantity, measured, bound, reach=reach, measured_by=measured_by, bound_by=bound_by,
                      box=box, tolerance=tolerance, worst_case=worst_case)
    else:
        table.observation(result, quantity, measured, bound, box=box, why=why, worst_case=worst_case)


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
