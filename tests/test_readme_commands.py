"""Every command of the README runs as written (issue 39): the papermill examples at quick scale
(``-p scale full`` becomes ``-p scale quick``) and the ``make full`` examples with ``SCALE=quick``:
the one-chapter example for real, the whole-book ones with ``--dry-run`` (each chapter's parameters
and backend, nothing executed: running the whole book is ``make test``'s nbmake pass). They run in
a scratch copy of the clone (sharing its ``.venv``), so this clone's ``results/`` and ``_build/`` are
left alone. The README's Python snippets run in ``tests/test_wheel.py``; its Dask recipe in
``tests/test_dask_recipe.py``; its nbmake example is ``make test``'s own notebook pass.

Slow (marked): three chapter runs at quick scale (chapter 1 twice, chapter 4 once), about 25 s,
25 s and 50 s on the idle machine.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    """Every command line of the README's ``bash`` blocks (continuations joined, comments dropped)."""
    text = (REPO / "README.md").read_text()
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and " ".join(line.split()) not in commands:
                commands.append(" ".join(line.split()))
    return commands


def scratch_clone(tmp_path: Path) -> Path:
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("_toc.yml", "_config.yml", "Makefile", "requirements.txt", "pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, clone / name)  # copy2 keeps the times: make sees .venv up to date
    ignore = shutil.ignore_patterns("__pycache__", "_build", ".ipynb_checkpoints")
    for name in ("book", "dtcore", "scripts", "faults"):
        shutil.copytree(REPO / name, clone / name, ignore=ignore)
    (clone / ".venv").symlink_to(REPO / ".venv")
    return clone


def test_the_readme_commands_are_found():
    commands = readme_commands()
    assert sum(c.startswith(".venv/bin/papermill") for c in commands) == 2
    assert sum(c.startswith("make full") for c in commands) == 3


PAPERMILL = [c for c in readme_commands() if c.startswith(".venv/bin/papermill ")]


@pytest.mark.slow
@pytest.mark.parametrize("command", PAPERMILL, ids=[shlex.split(c)[1].split("/")[-1] for c in PAPERMILL])
def test_readme_papermill_example_runs_at_quick_scale(command, tmp_path):
    clone = scratch_clone(tmp_path)
    command = command.replace("-p scale full", "-p scale quick").replace(" /tmp/", f" {tmp_path}/")
    ran = subprocess.run(shlex.split(command), cwd=clone, capture_output=True, text=True, timeout=900)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "Passed unknown parameter" not in ran.stderr and "Unable to parse" not in ran.stderr
    if "save_results True" in command:  # the CSVs land in the clone being run
        chapter = Path(shlex.split(command)[1]).stem
        assert list((clone / "results" / chapter).glob("*.csv"))


MAKE_FULL = [c for c in readme_commands() if c.startswith("make full")]


@pytest.mark.slow
@pytest.mark.parametrize("command", MAKE_FULL)
def test_readme_make_full_example_runs_with_scale_quick(command, tmp_path):
    clone = scratch_clone(tmp_path)
    args = shlex.split(command)
    args = [a for a in args if not a.startswith("SCALE=")] + ["SCALE=quick"]
    one_chapter = any(a.startswith("CHAPTERS=") for a in args)
    if not one_chapter:  # the whole book: say what would run, run nothing
        given = next((a[len("ARGS="):] for a in args if a.startswith("ARGS=")), "")
        args = [a for a in args if not a.startswith("ARGS=")] + [f"ARGS={given} --dry-run".strip()]
    # -o: the shared .venv counts as up to date (the copies' times must never make it reinstall dtcore
    # from the scratch clone); make runs the README's command otherwise as written
    args = [args[0], "-o", ".venv/.installed", *args[1:]]
    ran = subprocess.run(args, cwd=clone, capture_output=True, text=True, timeout=900)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "pip install" not in ran.stdout
    if one_chapter:
        summary = (clone / "_build" / "full" / "summary.md").read_text()
        assert summary.startswith("# Run of 01_top_down_guarantees at scale='quick'")
        assert "| 01_top_down_guarantees | passed |" in summary and "joblib on the local cores" in summary
        assert "01_top_down_guarantees: Top-down induction" in ran.stdout  # progress by section
    else:
        lines = [line for line in ran.stdout.splitlines() if ": would run with " in line]
        assert len(lines) == 9 and not (clone / "_build" / "full").exists()
        if "seed" in command:
            assert all("seed=7" in line for line in lines if not line.startswith("appendix_faults"))
