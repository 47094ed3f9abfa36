"""One interleaved timer for the whole book: fair wall-clock comparisons on a shared machine.

Timings on a loaded machine drift; a comparison is fair only when both sides see the same load and
the same thread budget. :func:`interleaved_times` therefore

* calls the candidates **alternately**: round r uses the order of round 0 rotated by r (for two
  candidates: a b, b a, a b, ...), so every candidate is first equally often;
* runs ``gc.collect()`` before every call, so one candidate's garbage is not collected on another's
  clock;
* pins BLAS and OpenMP thread pools to ``threads`` threads (``threadpoolctl.threadpool_limits``)
  for every call when ``threads`` is not None, so a multithreaded BLAS is not compared against a
  single-threaded peer by accident; ``threads=None`` measures the libraries' defaults.

:func:`summarise` turns the per-call times into the median and spread (min, max, quartiles) that
the book reports; :func:`ratio_table` pairs a candidate with a reference. Speed is measured, never
asserted (ARCHITECTURE.md).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from dtcore.validate import check_int

__all__ = ["interleaved_times", "summarise", "ratio_table"]


def _check_threads(threads: int | None) -> int | None:
    if threads is None:
        return None
    return check_int("threads", threads, 1, 1024)


def interleaved_times(candidates: Mapping[str, Callable[[], object]], repetitions: int,
                      threads: int | None = 1) -> tuple[pd.DataFrame, dict[str, object]]:
    """Wall-clock seconds of every candidate over ``repetitions`` interleaved rounds.

    Parameters
    ----------
    candidates
        name -> zero-argument callable; at least one. Every round calls each of them once.
    repetitions
        number of rounds (>= 1).
    threads
        BLAS/OpenMP threads during every call (``threadpoolctl.threadpool_limits``); ``None`` leaves
        the libraries at their defaults.

    Returns
    -------
    times
        tidy ``DataFrame`` with columns ``name``, ``rep``, ``position`` (0 = first in its round),
        ``threads`` (the limit, or ``"default"``) and ``seconds``.
    results
        name -> the value the candidate returned in the last round.

    Examples
    --------
    >>> times, out = interleaved_times({"sum": lambda: sum(range(100)), "len": lambda: len("ab")}, 3)
    >>> sorted(times["name"].unique()), out["sum"], len(times)
    (['len', 'sum'], 4950, 6)
    """
    if not isinstance(candidates, Mapping) or len(candidates) == 0:
        raise ValueError(f"candidates must be a non-empty mapping name -> callable, got {candidates!r}")
    for name, fn in candidates.items():
        if not callable(fn):
            raise ValueError(f"candidates[{name!r}] must be callable, got {type(fn).__name__}")
    repetitions = check_int("repetitions", repetitions, 1)
    threads = _check_threads(threads)
    names = list(candidates)
    records: list[dict] = []
    results: dict[str, object] = {}
    if threads is not None:
        from threadpoolctl import threadpool_limits

        limiter = threadpool_limits(limits=threads)
    try:
        for rep in range(repetitions):
            shift = rep % len(names)
            order = names[shift:] + names[:shift]
            for position, name in enumerate(order):
                gc.collect()
                start = time.perf_counter()
                results[name] = candidates[name]()
                seconds = time.perf_counter() - start
                records.append({"name": name, "rep": rep, "position": position,
                                "threads": "default" if threads is None else threads, "seconds": seconds})
    finally:
        if threads is not None:
            limiter.restore_original_limits()
    return pd.DataFrame.from_records(records), results


def summarise(times: pd.DataFrame, by: str | list[str] = "name") -> pd.DataFrame:
    """Median and spread of ``times['seconds']`` per group: n, median, min, q25, q75, max, IQR/median.

    ``times`` is the first output of :func:`interleaved_times` (or several concatenated, grouped by
    e.g. ``["name", "threads"]``).
    """
    keys = [by] if isinstance(by, str) else list(by)
    missing = [k for k in keys + ["seconds"] if k not in times.columns]
    if missing:
        raise ValueError(f"times must have the columns {keys + ['seconds']}, missing {missing}")
    grouped = times.groupby(keys, sort=False)["seconds"]
    out = grouped.agg(reps="size", median="median", min="min",
                      q25=lambda s: float(np.quantile(s, 0.25)), q75=lambda s: float(np.quantile(s, 0.75)),
                      max="max").reset_index()
    out["rel_iqr"] = (out["q75"] - out["q25"]) / out["median"]
    return out


def ratio_table(times: pd.DataFrame, numerator: str, denominator: str) -> dict[str, float]:
    """Median ratio ``numerator / denominator`` with a spread from the per-round ratios.

    Returns ``ratio`` (median over median), ``ratio_min`` and ``ratio_max`` (the smallest and largest
    ratio of the two calls within one round, which saw the same load).
    """
    for name in (numerator, denominator):
        if name not in set(times["name"]):
            raise ValueError(f"{name!r} must be a candidate in times, got {sorted(set(times['name']))}")
    wide = times.pivot_table(index="rep", columns="name", values="seconds", aggfunc="first")
    per_round = wide[numerator] / wide[denominator]
    med = times.groupby("name")["seconds"].median()
    return {"ratio": float(med[numerator] / med[denominator]),
            "ratio_min": float(per_round.min()), "ratio_max": float(per_round.max())}
