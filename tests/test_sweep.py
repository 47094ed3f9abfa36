"""dtbook.sweep: deterministic per-task seeds, independent of worker count and backend."""

from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

import dtbook.sweep as sweep_module
from dtbook.sweep import SCHEDULER_ENV, grid, sweep, task_seeds

REPO = pathlib.Path(__file__).resolve().parents[1]


def noisy_task(rng: np.random.Generator, m: int, p: float) -> dict[str, float]:
    """A task whose output depends on every bit of its random stream."""
    x = rng.random(m) < p
    return {"mean": float(x.mean()), "first": float(rng.standard_normal()), "bits": int(x.sum())}


def multi_row_task(rng: np.random.Generator, k: int) -> list[dict[str, float]]:
    return [{"j": j, "u": float(rng.random())} for j in range(k)]


POINTS = grid(m=[10, 100, 1000], p=[0.1, 0.5])


def test_grid_row_major_and_empty_axis():
    g = grid(a=[1, 2], b="xy")
    assert g == [{"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"}]
    with pytest.raises(ValueError, match="b"):
        grid(a=[1], b=[])


def test_task_seeds_are_spawned_children():
    seeds = task_seeds(5, 3)
    ref = np.random.SeedSequence(5).spawn(3)
    for s, r in zip(seeds, ref):
        assert np.array_equal(s.generate_state(4), r.generate_state(4))
    with pytest.raises(ValueError, match="seed"):
        task_seeds(-1, 3)


def test_rows_carry_parameters_and_rep_in_task_order():
    df = sweep(noisy_task, POINTS, repetitions=3, seed=1, n_jobs=1)
    assert len(df) == len(POINTS) * 3
    assert list(df.columns[:3]) == ["m", "p", "rep"]
    assert df["rep"].tolist() == [0, 1, 2] * len(POINTS)
    assert df["m"].tolist() == [p["m"] for p in POINTS for _ in range(3)]
    # task k uses the k-th spawned seed: recompute task 4 by hand
    k = 4
    point = POINTS[k // 3]
    expect = noisy_task(np.random.default_rng(task_seeds(1, len(POINTS) * 3)[k]), **point)
    assert df.iloc[k][["mean", "first", "bits"]].to_dict() == expect


def test_tasks_are_independent_streams():
    df = sweep(noisy_task, [{"m": 10, "p": 0.5}], repetitions=20, seed=0, n_jobs=1)
    assert df["first"].nunique() == 20


def test_same_seed_same_frame_other_seed_other_frame():
    a = sweep(noisy_task, POINTS, repetitions=2, seed=3, n_jobs=1)
    b = sweep(noisy_task, POINTS, repetitions=2, seed=3, n_jobs=1)
    c = sweep(noisy_task, POINTS, repetitions=2, seed=4, n_jobs=1)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert not a["first"].equals(c["first"])


def test_n_jobs_1_and_2_bit_for_bit():
    one = sweep(noisy_task, POINTS, repetitions=3, seed=7, n_jobs=1)
    two = sweep(noisy_task, POINTS, repetitions=3, seed=7, n_jobs=2, progress=True)
    pd.testing.assert_frame_equal(one, two, check_exact=True)


def test_multi_row_tasks():
    df = sweep(multi_row_task, grid(k=[1, 3]), repetitions=2, seed=0, n_jobs=2)
    assert df["k"].tolist() == [1, 1, 3, 3, 3, 3, 3, 3]
    assert df["j"].tolist() == [0, 0, 0, 1, 2, 0, 1, 2]


def _local_cluster(n_workers: int = 2, *, processes: bool):
    """Single-threaded Dask workers; closed by the ``with`` that opens it.

    Every socket listens on 127.0.0.1 only: the workers talk over TCP on loopback (``processes``)
    or in-process, and the HTTP servers (which start even without a dashboard, and on 0.0.0.0:8787
    unless told otherwise) take a free loopback port.
    """
    distributed = pytest.importorskip("dask.distributed")
    loopback = {"host": "127.0.0.1"} if processes else {}
    return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=processes,
                                    dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0",
                                    **loopback)


def listening_addresses(pid: int) -> set[str]:
    """The addresses that a process and its descendants listen on."""
    import psutil

    root = psutil.Process(pid)
    found = set()
    for process in [root, *root.children(recursive=True)]:
        try:
            found |= {c.laddr.ip for c in process.net_connections("inet") if c.status == psutil.CONN_LISTEN}
        except psutil.Error:  # a process that ended meanwhile
            pass
    return found


@pytest.fixture(scope="module")
def dask_cluster():
    with _local_cluster(processes=False) as cluster:
        assert listening_addresses(os.getpid()) <= {"127.0.0.1"}
        yield cluster


def test_dask_cluster_equals_joblib_bit_for_bit(dask_cluster, monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    joblib_run = sweep(noisy_task, POINTS, repetitions=3, seed=11, n_jobs=2)
    dask_run = sweep(noisy_task, POINTS, repetitions=3, seed=11, scheduler=dask_cluster.scheduler_address,
                     progress=True)
    pd.testing.assert_frame_equal(joblib_run, dask_run, check_exact=True)
    # the work really went to both workers' cluster: the scheduler saw the tasks
    from dask.distributed import Client

    with Client(dask_cluster.scheduler_address, set_as_default=False) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        # passing a Client object works the same way
        via_client = sweep(noisy_task, POINTS, repetitions=3, seed=11, scheduler=client)
    pd.testing.assert_frame_equal(joblib_run, via_client, check_exact=True)


def test_dask_via_environment_variable(dask_cluster, monkeypatch):
    monkeypatch.setenv(SCHEDULER_ENV, dask_cluster.scheduler_address)
    env_run = sweep(multi_row_task, grid(k=[2, 4]), repetitions=2, seed=5)
    monkeypatch.delenv(SCHEDULER_ENV)
    local = sweep(multi_row_task, grid(k=[2, 4]), repetitions=2, seed=5, n_jobs=1)
    pd.testing.assert_frame_equal(env_run, local, check_exact=True)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"repetitions": 0}, "repetitions"),
        ({"seed": -1}, "seed"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"points": []}, "points"),
        ({"points": {"m": 10}}, "points"),
        ({"points": [3]}, "points"),
        ({"scheduler": 42}, "scheduler"),
        ({"scheduler": "  "}, "scheduler"),
        ({"task": 3}, "task"),
    ],
)
def test_bad_arguments(kwargs, name, monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    args = {"task": noisy_task, "points": POINTS, **kwargs}
    with pytest.raises(ValueError, match=name):
        sweep(**args)


def pid_task(rng: np.random.Generator, k: int) -> dict[str, float]:
    """Reports the process that ran it, so the test can see the work left this process."""
    import os

    return {"pid": os.getpid(), "u": float(rng.random())}


@pytest.fixture(scope="module")
def dask_process_cluster():
    """Two worker processes on loopback, as on a real cluster (pickled tasks, separate imports)."""
    with _local_cluster(processes=True) as cluster:
        assert listening_addresses(os.getpid()) <= {"127.0.0.1"}  # this process and the worker processes
        yield cluster


def test_multiprocess_dask_cluster_equals_joblib_bit_for_bit(dask_process_cluster, monkeypatch):
    import os

    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    address = dask_process_cluster.scheduler_address
    assert address.startswith("tcp://127.0.0.1:")
    joblib_run = sweep(noisy_task, POINTS, repetitions=3, seed=11, n_jobs=2)
    dask_run = sweep(noisy_task, POINTS, repetitions=3, seed=11, scheduler=address)
    pd.testing.assert_frame_equal(joblib_run, dask_run, check_exact=True)

    monkeypatch.setenv(SCHEDULER_ENV, address)
    on_cluster = sweep(pid_task, grid(k=range(8)), repetitions=2, seed=3)
    monkeypatch.delenv(SCHEDULER_ENV)
    local = sweep(pid_task, grid(k=range(8)), repetitions=2, seed=3, n_jobs=1)
    pd.testing.assert_series_equal(on_cluster["u"], local["u"], check_exact=True)
    from dask.distributed import Client

    with Client(address, set_as_default=False) as client:
        worker_pids = set(client.run(os.getpid).values())
    assert len(worker_pids) == 2 and os.getpid() not in worker_pids
    assert set(on_cluster["pid"]) <= worker_pids  # every task ran in a worker process


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_wrong_address_names_the_variable_it_came_from(monkeypatch):
    monkeypatch.setattr(sweep_module, "CONNECT_TIMEOUT", 2.0)
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    monkeypatch.setenv(SCHEDULER_ENV, address)
    started = time.monotonic()
    with pytest.raises(ConnectionError, match=f"no Dask scheduler answered at '{address}' \\(from {SCHEDULER_ENV}\\)"):
        sweep(noisy_task, POINTS)
    assert time.monotonic() - started < 30
    monkeypatch.setenv(SCHEDULER_ENV, "http://head node:8786")
    with pytest.raises(ValueError, match=f"{SCHEDULER_ENV} must be a Dask scheduler address"):
        sweep(noisy_task, POINTS)
    monkeypatch.setenv(SCHEDULER_ENV, "")  # set but empty: the sweep stays local
    assert len(sweep(noisy_task, POINTS, n_jobs=1)) == len(POINTS)


def slow_task(rng: np.random.Generator, k: int) -> dict[str, float]:
    time.sleep(0.3)
    return {"u": float(rng.random())}


def test_a_sweep_fails_in_bounded_time_when_every_worker_dies(monkeypatch):
    """The issue's case: the workers die mid-run and the scheduler would keep the tasks forever."""
    monkeypatch.setattr(sweep_module, "NO_WORKER_TIMEOUT", 3.0)
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    from dask.distributed import Client

    with _local_cluster(n_workers=0, processes=True) as cluster:  # the scheduler alone, over TCP on 127.0.0.1
        address = cluster.scheduler_address
        # the README's worker command: two worker processes under one `dask worker`, on loopback
        workers = subprocess.Popen(
            [str(pathlib.Path(sys.executable).with_name("dask")), "worker", address, "--nworkers", "2",
             "--nthreads", "1", "--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"],
            env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            with Client(address, set_as_default=False) as client:
                client.wait_for_workers(2, timeout=120)
                killed: list[float] = []

                def kill_when_running() -> None:
                    while not client.processing() or not any(client.processing().values()):
                        time.sleep(0.05)
                    time.sleep(0.5)
                    os.killpg(workers.pid, signal.SIGKILL)  # every worker process and its nanny at once
                    killed.append(time.monotonic())

                killer = threading.Thread(target=kill_when_running, daemon=True)
                killer.start()
                with pytest.raises(RuntimeError, match="has no worker left") as info:
                    sweep(slow_task, grid(k=range(200)), scheduler=address)
                failed = time.monotonic()
                killer.join(timeout=10)
            assert killed and failed - killed[0] < 3.0 + 15, "the sweep did not fail soon after the workers died"
            assert address in str(info.value) and "of 200 sweep tasks finished" in str(info.value)
        finally:
            if workers.poll() is None:
                os.killpg(workers.pid, signal.SIGKILL)
            workers.wait(timeout=30)
