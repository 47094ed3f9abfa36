"""Run an experiment over a grid x repetitions in parallel, into a tidy DataFrame.

Each task (one grid point, one repetition) gets its own ``numpy.random.Generator`` seeded from
``SeedSequence(seed).spawn`` by its position in the task list, so results do not depend on the
number of workers or on the backend. The backend is joblib (both cores by default); with a Dask
scheduler address (argument ``scheduler`` or environment variable ``DTCORE_DASK_SCHEDULER``)
the same tasks run on that Dask cluster through joblib's ``dask`` backend.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .validate import check_int

SCHEDULER_ENV = "DTCORE_DASK_SCHEDULER"


def grid(**axes: Iterable[Any]) -> list[dict[str, Any]]:
    """The Cartesian product of named axes as a list of dicts, in row-major order."""
    names = list(axes)
    values = [list(v) for v in axes.values()]
    for name, v in zip(names, values):
        if not v:
            raise ValueError(f"grid axis {name} must have at least one value, got none")
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def _run_task(task: Callable[..., Any], params: Mapping[str, Any], rep: int,
              seed_seq: np.random.SeedSequence) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed_seq)
    out = task(rng=rng, **params)
    rows = [out] if isinstance(out, Mapping) else list(out)
    return [{**params, "rep": rep, **row} for row in rows]


def sweep(
    task: Callable[..., Mapping[str, Any] | Iterable[Mapping[str, Any]]],
    points: list[dict[str, Any]],
    repetitions: int = 1,
    seed: int = 0,
    n_jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Call ``task(rng=..., **point)`` for every grid point and repetition; concatenate the rows.

    ``task`` returns a dict (one row) or an iterable of dicts. Rows carry the point's parameters
    and ``rep``. ``n_jobs`` defaults to 2 (this project's machines have 2 cores); ``n_jobs=1``
    runs in-process. ``scheduler`` (or $DTCORE_DASK_SCHEDULER) is a Dask scheduler address.
    """
    from joblib import Parallel, delayed, parallel_config

    repetitions = check_int("repetitions", repetitions, 1)
    seed = check_int("seed", seed, 0)
    n_jobs = 2 if n_jobs is None else check_int("n_jobs", n_jobs, 1)
    if not points:
        raise ValueError("points must list at least one grid point, got none")
    jobs = [(p, r) for p in points for r in range(repetitions)]
    seeds = np.random.SeedSequence(seed).spawn(len(jobs))
    calls = (delayed(_run_task)(task, p, r, s) for (p, r), s in zip(jobs, seeds))
    if progress:
        from tqdm.auto import tqdm

        calls = tqdm(calls, total=len(jobs), desc="sweep")
    address = scheduler or os.environ.get(SCHEDULER_ENV)
    if address:
        from dask.distributed import Client

        with Client(address), parallel_config(backend="dask"):
            results = Parallel()(calls)
    elif n_jobs == 1:
        results = [c[0](*c[1], **c[2]) for c in calls]
    else:
        results = Parallel(n_jobs=n_jobs)(calls)
    return pd.DataFrame([row for rows in results for row in rows])
