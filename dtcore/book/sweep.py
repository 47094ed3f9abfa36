"""Run an experiment over a grid x repetitions in parallel, into a tidy DataFrame.

Each task (one grid point, one repetition) gets its own ``numpy.random.Generator`` seeded from
``SeedSequence(seed).spawn`` by its position in the task list, and the rows come back in task
order, so the result does not depend on the number of workers or on the backend: ``n_jobs=1``,
``n_jobs=2`` and a Dask cluster give the same DataFrame bit for bit. The backend is joblib
(both cores by default); with a Dask scheduler (argument ``scheduler``: an address such as
``"tcp://10.0.0.5:8786"`` or a ``distributed.Client``; or the environment variable
``DTCORE_DASK_SCHEDULER``) the same tasks are submitted to that cluster instead.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..validate import check_int
from .seeds import seed_sequence

SCHEDULER_ENV = "DTCORE_DASK_SCHEDULER"

Task = Callable[..., Mapping[str, Any] | Iterable[Mapping[str, Any]]]


def grid(**axes: Iterable[Any]) -> list[dict[str, Any]]:
    """The Cartesian product of named axes as a list of dicts, in row-major order."""
    names = list(axes)
    values = [list(v) for v in axes.values()]
    for name, v in zip(names, values):
        if not v:
            raise ValueError(f"grid axis {name} must have at least one value, got none")
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def task_seeds(seed: int, count: int, key: str | None = None) -> list[np.random.SeedSequence]:
    """The per-task seed sequences: ``root.spawn(count)``, task k gets the k-th.

    The root is :func:`dtcore.book.seeds.seed_sequence` ``(seed, key)`` when the sweep is named by
    ``key`` (the book's rule), else ``SeedSequence(seed)``. A task's stream depends only on the root
    and its position in the task list (grid point major, repetition minor), never on the worker
    that runs it.
    """
    seed = check_int("seed", seed, 0)
    count = check_int("count", count, 0)
    root = np.random.SeedSequence(seed) if key is None else seed_sequence(seed, key)
    return root.spawn(count)


def _run_task(task: Task, params: Mapping[str, Any], rep: int,
              seed_seq: np.random.SeedSequence) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed_seq)
    out = task(rng=rng, **params)
    rows = [out] if isinstance(out, Mapping) else list(out)
    return [{**params, "rep": rep, **row} for row in rows]


def _resolve_scheduler(scheduler: object) -> object:
    if scheduler is None:
        scheduler = os.environ.get(SCHEDULER_ENV) or None
    if scheduler is None or isinstance(scheduler, str):
        if isinstance(scheduler, str) and not scheduler.strip():
            raise ValueError("scheduler must be a Dask scheduler address or a distributed.Client, got ''")
        return scheduler
    if type(scheduler).__name__ == "Client" and hasattr(scheduler, "map"):
        return scheduler
    raise ValueError(
        f"scheduler must be a Dask scheduler address (str) or a distributed.Client, got {scheduler!r}"
    )


def _progress(it: Iterable[Any], total: int, enabled: bool) -> Iterable[Any]:
    if not enabled:
        return it
    from tqdm.auto import tqdm

    return tqdm(it, total=total, desc="sweep")


def _run_dask(scheduler: object, args: list[tuple[Any, ...]], progress: bool) -> list[Any]:
    from dask.distributed import Client, as_completed

    own = isinstance(scheduler, str)
    client = Client(scheduler, set_as_default=False) if own else scheduler
    try:
        futures = client.map(_run_task, *zip(*args), pure=False)
        for _ in _progress(as_completed(futures, loop=client.loop), len(futures), progress):
            pass
        return client.gather(futures)  # in task order, whatever the completion order
    finally:
        if own:
            client.close()


def sweep(
    task: Task,
    points: list[dict[str, Any]],
    repetitions: int = 1,
    seed: int = 0,
    n_jobs: int | None = None,
    scheduler: object = None,
    progress: bool = False,
    key: str | None = None,
) -> pd.DataFrame:
    """Call ``task(rng=..., **point)`` for every grid point and repetition; concatenate the rows.

    ``task`` returns a dict (one row) or an iterable of dicts. Rows carry the point's parameters
    and ``rep``, in task order (point-major). Task k draws from
    ``default_rng(root.spawn(K)[k])`` (:func:`task_seeds`; the root is keyed by ``key``, the
    experiment's stable name, see :mod:`dtcore.book.seeds`), so the frame is the
    same for any ``n_jobs`` and backend. ``n_jobs`` defaults to 2 (this project's machines have
    2 cores); ``n_jobs=1`` runs in-process. ``scheduler`` (or $DTCORE_DASK_SCHEDULER) is a Dask
    scheduler address or ``distributed.Client``: the tasks then run on that cluster
    (``n_jobs`` is ignored). ``progress=True`` shows a tqdm bar of completed tasks.
    """
    from joblib import Parallel, delayed

    if not callable(task):
        raise ValueError(f"task must be callable, got {task!r}")
    repetitions = check_int("repetitions", repetitions, 1)
    seed = check_int("seed", seed, 0)
    n_jobs = 2 if n_jobs is None else check_int("n_jobs", n_jobs, 1)
    if isinstance(points, Mapping) or not isinstance(points, (list, tuple)) or not points:
        raise ValueError(f"points must be a non-empty list of dicts (see grid()), got {points!r}")
    for p in points:
        if not isinstance(p, Mapping):
            raise ValueError(f"points must hold dicts of task parameters, got {p!r}")
    progress = bool(progress)
    jobs = [(p, r) for p in points for r in range(repetitions)]
    args = [(task, p, r, s) for (p, r), s in zip(jobs, task_seeds(seed, len(jobs), key))]
    address = _resolve_scheduler(scheduler)
    if address is not None:
        results = _run_dask(address, args, progress)
    elif n_jobs == 1:
        results = [_run_task(*a) for a in _progress(args, len(args), progress)]
    else:
        gen: Iterator[Any] = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_run_task)(*a) for a in args
        )
        results = list(_progress(gen, len(args), progress))
    return pd.DataFrame([row for rows in results for row in rows])
