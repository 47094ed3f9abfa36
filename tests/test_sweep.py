"""dtcore.book.sweep: deterministic per-task seeds, independent of worker count and backend."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dtcore.book.sweep import SCHEDULER_ENV, grid, sweep, task_seeds


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


def _local_cluster(**options):
    """Two single-threaded Dask workers, no dashboard; closed by the ``with`` that opens it."""
    distributed = pytest.importorskip("dask.distributed")
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, **options)


@pytest.fixture(scope="module")
def dask_cluster():
    with _local_cluster(processes=False) as cluster:
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
    with _local_cluster(processes=True, host="127.0.0.1") as cluster:
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
