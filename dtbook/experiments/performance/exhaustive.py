"""The exhaustive layer's throughput: functions per second of each pass over every function on n <= 4.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from dtcore import exhaustive
from dtcore.audit import worst_case
from dtcore.cube import ProductDistribution
from dtcore.validate import check_int
from ...timing import interleaved_times, summarise


#: The passes of the exhaustive layer timed by :func:`exhaustive_throughput`, each over every function.
EXHAUSTIVE_PASSES = ("minimum size and depth (DP over subcubes)", "influences on every subcube, uniform",
                     "influences on every subcube, a product measure", "Fourier spectra, uniform",
                     "BuildTopDownDT on every function", "TopDown_G (Gini) on every function")


def exhaustive_throughput(*, n: int = 4, repetitions: int) -> pd.DataFrame:
    """Functions per second of each pass of the exhaustive layer over every Boolean function on ``n``
    variables (issue 22's budget; the page "Every function on four variables"): pinned to one thread,
    interleaved rounds, the median and the spread of each pass. No peer computes these quantities for
    every function at once, so there is no ratio: the row reports the throughput and the time of one
    whole pass."""
    n = check_int("n", n, 1, exhaustive.MAX_ALL_FUNCTIONS_VARIABLES)
    tables = exhaustive.all_tables(n)
    skewed = ProductDistribution(np.linspace(0.1, 0.9, n))
    passes: dict[str, Callable[[], object]] = dict(zip(EXHAUSTIVE_PASSES, (
        lambda: exhaustive.optimal_trees(tables),
        lambda: exhaustive.subcube_statistics(tables),
        lambda: exhaustive.subcube_statistics(tables, skewed, "rerandomised"),
        lambda: exhaustive.fourier_spectra(tables),
        lambda: worst_case.heuristic_sizes(tables, "BuildTopDownDT"),
        lambda: worst_case.heuristic_sizes(tables, "TopDown_G gini"),
    )))
    times, _ = interleaved_times(passes, repetitions=check_int("repetitions", repetitions, 1), threads=1)
    out = summarise(times).rename(columns={"name": "pass"})
    out["functions"] = len(tables)
    out["functions per second"] = len(tables) / out["median"]
    return out[["pass", "functions", "median", "min", "max", "functions per second"]]


def exhaustive_style(throughput: pd.DataFrame):
    """The throughput table with readable headers and rounded numbers."""
    shown = throughput.rename(columns={"median": "median s", "min": "fastest s", "max": "slowest s"})
    shown["thousand functions per s"] = shown.pop("functions per second") / 1000
    return shown.style.format({"median s": "{:.3f}", "fastest s": "{:.3f}", "slowest s": "{:.3f}",
                               "thousand functions per s": "{:,.0f}", "functions": "{:,}"}).hide(axis="index")
