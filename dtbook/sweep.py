"""Run an experiment over a grid x repetitions in parallel, into a tidy DataFrame.

Each task (one grid point, one repetition) gets its own ``numpy.random.Generator`` seeded from
``SeedSequence(seed).spawn`` by its position in the task list, and the rows come back in task
order, so the result does not depend on the number of workers or on the backend: ``n_jobs=1``,
``n_jobs=2`` and a Dask cluster give the same DataFrame bit for bit. The backend is joblib
(both cores by default); with a Dask scheduler (argument ``scheduler``: an address such as
``"tcp://10.0.0.5:8786"`` or a ``distributed.Client``; or the environment variable
``DTCORE_DASK_SCHEDULER``) the same tasks are submitted to that cluster instead.

On a cluster a sweep fails rather than hangs: a scheduler that does not answer within
``CONNECT_TIMEOUT`` seconds raises a ``ConnectionError`` naming the address and where it came from
(the argument or ``DTCORE_DASK_SCHEDULER``); a cluster left without any worker for
``NO_WORKER_TIMEOUT`` seconds raises a ``RuntimeError`` saying so, with the number of tasks that had
finished; so does a scheduler that goes away mid-run (Dask cancels the tasks at once), and a task
that killed every worker that ran it.
"""

from __future__ import annotations

import itertools
import os
import re
from concurrent.futures import CancelledError
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dtcore.validate import check_int
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

    The root is :func:`dtbook.seeds.seed_sequence` ``(seed, key)`` when the sweep is named by
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


_ADDRESS = re.compile(r"(?:(?:tcp|tls|inproc|ucx|ws|wss)://)?(?:\[[0-9a-fA-F:.]+\]|[^\s/:\[\]]+)(?::\d+)?(?:/\S*)?")


def _resolve_scheduler(scheduler: object) -> tuple[object, str]:
    """The scheduler to use (None: local) and where it came from, for error messages."""
    source = "the scheduler argument"
    if scheduler is None:
        scheduler = os.environ.get(SCHEDULER_ENV) or None  # set but empty: local
        source = f"from {SCHEDULER_ENV}"
    if scheduler is None:
        return None, source
    if isinstance(scheduler, str):
        if not _ADDRESS.fullmatch(scheduler.strip()):
            name = SCHEDULER_ENV if source.startswith("from") else "scheduler"
            raise ValueError(f"{name} must be a Dask scheduler address such as 'tcp://127.0.0.1:8786', "
                             f"got {scheduler!r}")
        return scheduler.strip(), source
    if type(scheduler).__name__ == "Client" and hasattr(scheduler, "map"):
        return scheduler, source
    raise ValueError(
        f"scheduler must be a Dask scheduler address (str) or a distributed.Client, got {scheduler!r}"
    )


def _progress(it: Iterable[Any], total: int, enabled: bool) -> Iterable[Any]:
    if not enabled:
        return it
    from tqdm.auto import tqdm

    return tqdm(it, total=total, desc="sweep")


#: Seconds a Dask sweep waits for a scheduler to answer, and with no worker at all, before failing.
CONNECT_TIMEOUT = 20.0
NO_WORKER_TIMEOUT = 60.0
#: Seconds between two looks at the cluster while a Dask sweep waits for its tasks.
_WATCH_INTERVAL = 1.0

_HOW_TO_FIX = (f"start the scheduler and its workers first (README, 'Sweeps on more cores'), or unset "
               f"{SCHEDULER_ENV} to run the sweeps on the local cores")


def _connect(address: str, source: str) -> Any:
    from dask.distributed import Client

    try:
        return Client(address, set_as_default=False, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise ConnectionError(
            f"no Dask scheduler answered at {address!r} ({source}) within {CONNECT_TIMEOUT:g} s: "
            f"{type(exc).__name__}: {exc}; {_HOW_TO_FIX}") from exc


def _wait_for_tasks(client: Any, futures: list[Any], address: str, progress: bool) -> None:
    """Wait until every task is done; fail, rather than hang, when the cluster has no worker left.

    A scheduler whose workers all died keeps the tasks queued forever; after
    ``NO_WORKER_TIMEOUT`` seconds without a worker (or without the scheduler) the tasks are
    cancelled and a ``RuntimeError`` says what happened and how many tasks had finished.
    """
    import time

    from dask.distributed import as_completed

    total = len(futures)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc="sweep")
    queue = as_completed(futures, loop=client.loop)
    done, lonely_since, next_look = 0, None, time.monotonic() + _WATCH_INTERVAL
    try:
        while done < total:
            if queue.has_ready():
                batch = queue.next_batch(block=False)
                done += len(batch)
                if bar is not None:
                    bar.update(len(batch))
                if any(f.status == "error" for f in batch):
                    return  # gather raises the task's own error
                continue
            now = time.monotonic()
            if now >= next_look:
                next_look = now + _WATCH_INTERVAL
                try:
                    workers = len(client.nthreads()) if client.status == "running" else 0
                except (OSError, TimeoutError):
                    workers = 0
                lonely_since = None if workers else (lonely_since or now)
                if lonely_since is not None and now - lonely_since >= NO_WORKER_TIMEOUT:
                    progress_text = f"with {done} of {total} sweep tasks finished; the sweep is abandoned"
                    if client.status == "running":
                        client.cancel(futures)
                        raise RuntimeError(
                            f"the Dask cluster at {address} has no worker left: none for {NO_WORKER_TIMEOUT:g} s "
                            f"(its workers died or were stopped), {progress_text}. Restart the workers and run "
                            f"again, or unset {SCHEDULER_ENV} to run on the local cores")
                    raise RuntimeError(
                        f"the sweep lost the Dask scheduler at {address} for {NO_WORKER_TIMEOUT:g} s, "
                        f"{progress_text}. Restart the scheduler and its workers and run again, or unset "
                        f"{SCHEDULER_ENV} to run on the local cores")
            time.sleep(0.02)
    finally:
        if bar is not None:
            bar.close()


def _run_dask(scheduler: object, args: list[tuple[Any, ...]], progress: bool, source: str) -> list[Any]:
    from dask.distributed import KilledWorker

    own = isinstance(scheduler, str)
    client = _connect(scheduler, source) if own else scheduler
    address = scheduler if own else getattr(client.scheduler, "address", repr(client))
    try:
        futures = client.map(_run_task, *zip(*args), pure=False)
        _wait_for_tasks(client, futures, address, progress)
        try:
            return client.gather(futures)  # in task order, whatever the completion order
        except KilledWorker as exc:
            raise RuntimeError(
                f"a sweep task killed every Dask worker that ran it (the cluster at {address} gave up on it "
                f"after {exc.args[2] if len(exc.args) > 2 else 'several'} tries): {exc}; a worker "
                f"process died while running it, e.g. out of memory") from exc
        except CancelledError as exc:  # the scheduler went away: Dask cancels every task
            raise RuntimeError(
                f"the sweep lost the Dask scheduler at {address} and its tasks were cancelled ({exc}); "
                f"restart the scheduler and its workers and run again, or unset {SCHEDULER_ENV} to run "
                f"on the local cores") from exc
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
    experiment's stable name, see :mod:`dtbook.seeds`), so the frame is the
    same for any ``n_jobs`` and backend. ``n_jobs`` defaults to 2 (this project's machines have
    2 cores); ``n_jobs=1`` runs in-process. ``scheduler`` (or $DTCORE_DASK_SCHEDULER) is a Dask
    scheduler address or ``distributed.Client``: the tasks then run on that cluster
    (``n_jobs`` is ignored; see the module docstring for how a lost cluster fails).
    ``progress=True`` shows a tqdm bar of completed tasks.
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
    address, source = _resolve_scheduler(scheduler)
    if address is not None:
        results = _run_dask(address, args, progress, source)
    elif n_jobs == 1:
        results = [_run_task(*a) for a in _progress(args, len(args), progress)]
    else:
        gen: Iterator[Any] = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_run_task)(*a) for a in args
        )
        results = list(_progress(gen, len(args), progress))
    return pd.DataFrame([row for rows in results for row in rows])
