"""The README's Dask recipe, run as written (other ports): every socket listens on 127.0.0.1.

The scheduler and the workers open an HTTP server even with ``--no-dashboard``, on all interfaces
unless ``--dashboard-address`` says otherwise; this test runs the README's two ``dask`` commands,
lists the sockets that their processes (scheduler, nannies, workers) listen on, and runs a sweep
on the cluster through ``DTCORE_DASK_SCHEDULER``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dtbook.sweep import SCHEDULER_ENV, grid, sweep
from tests.test_sweep import free_port, listening_addresses

REPO = Path(__file__).resolve().parents[1]
SECTION = "## Sweeps on more cores: a Dask cluster"


def recipe_commands() -> dict[str, str]:
    """The ``dask scheduler`` and ``dask worker`` lines of the README's recipe (continuations joined)."""
    text = (REPO / "README.md").read_text()
    start = text.index(SECTION)
    block = re.search(r"```bash\n(.*?)```", text[start:text.index("\n## ", start + len(SECTION))], re.S).group(1)
    lines = block.replace("\\\n", " ").splitlines()
    commands = {}
    for line in lines:
        match = re.search(r"\bdask (scheduler|worker)\b", line)
        if match:
            commands[match.group(1)] = " ".join(line.split()).rstrip("&").strip()
    assert set(commands) == {"scheduler", "worker"}, f"the recipe has no dask scheduler/worker line: {block}"
    return commands


def as_run_here(command: str, port: int, http_port: int) -> str:
    """The README's command with this environment's bin folder and free ports instead of 8786/8787."""
    bin_dir = Path(sys.executable).parent
    command = command.replace(".venv/bin/", f"{bin_dir}/").replace(":8786", f":{port}").replace(":8787", f":{http_port}")
    command = command.replace("--port 8786", f"--port {port}")
    head, _, rest = command.partition(f"{bin_dir}/dask")
    return f"{head}exec {bin_dir}/dask{rest}"  # exec: the shell becomes the dask process


def recipe_task(rng: np.random.Generator, k: int) -> dict[str, float]:
    return {"pid": os.getpid(), "u": float(rng.random())}


def test_the_readme_commands_listen_on_loopback_only(monkeypatch):
    pytest.importorskip("dask.distributed")
    from dask.distributed import Client

    commands = recipe_commands()
    assert "127.0.0.1" in commands["scheduler"] and "--dashboard-address 127.0.0.1" in commands["worker"]
    port, http_port = free_port(), free_port()
    processes = []
    try:
        for role in ("scheduler", "worker"):
            processes.append(subprocess.Popen(
                ["bash", "-c", as_run_here(commands[role], port, http_port)], cwd=REPO,
                # the workers unpickle this module's task, so they need the clone on their path
                env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))},
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
            if role == "scheduler":
                time.sleep(1.0)  # the workers retry until the scheduler is up; this only spares retries
        address = f"tcp://127.0.0.1:{port}"
        with Client(address, set_as_default=False, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        scheduler, workers = (listening_addresses(p.pid) for p in processes)
        assert scheduler == {"127.0.0.1"} and workers == {"127.0.0.1"}, (scheduler, workers)
        monkeypatch.setenv(SCHEDULER_ENV, address)
        on_cluster = sweep(recipe_task, grid(k=range(4)), seed=1)
        assert os.getpid() not in set(on_cluster["pid"])  # the tasks ran in the workers
        monkeypatch.delenv(SCHEDULER_ENV)
        local = sweep(recipe_task, grid(k=range(4)), seed=1, n_jobs=1)
        assert on_cluster["u"].tolist() == local["u"].tolist()
    finally:
        for process in reversed(processes):  # the workers, then the scheduler, as the README does
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
