"""Run one page of the book with papermill and say how it ended: the book's one runner.

:func:`run_chapter` executes ``book/<chapter>.ipynb`` in a papermill subprocess (its own kernel,
its own environment, a hard time limit) and returns a :class:`ChapterRun`: the executed notebook,
the wall time, the first error a cell raised (``ValueError: folds must be ...``) and the chapter's
verification table, read back from the JSON file that
:meth:`dtbook.report.VerificationTable.assert_all` writes. Whether the table passed is decided by
:func:`dtbook.report.failing_rows`, the one pass rule.

Its callers: the fault suite (:mod:`dtbook.faults`, a chapter run against a broken copy of
``dtcore``), ``make full`` (``scripts/run_full.py``, every chapter at full scale, with a progress
line per cell) and the notebook tests (``tests/test_notebooks.py``, other and bad parameters).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import yaml

from .chapter import REPO_ROOT
from .report import STOP_EARLY_ENV, VERIFICATION_JSON_ENV, failing_rows, read_verification

#: ``progress(cell, cells, seconds)``: called when cell number ``cell`` (1-based, of ``cells``) starts;
#: :func:`cell_sections` of the notebook names the section it is in.
Progress = Callable[[int, int, float], None]

_CELL_START = re.compile(r"^Executing Cell (\d+)-")


@dataclass(frozen=True, eq=False)
class ChapterRun:
    """How one papermill run of a chapter ended."""

    chapter: str
    notebook: pathlib.Path
    log: pathlib.Path
    returncode: int
    seconds: float
    error_name: str = ""
    error_value: str = ""
    error_where: str = ""  # the failing cell: its number, section and first line of code
    timed_out: bool = False
    verification: pd.DataFrame | None = None

    @property
    def error(self) -> str:
        """The cause of a failed run in one line (``""`` when it ran through)."""
        if self.error_name:
            return f"{self.error_name}: {self.error_value}"
        return self.error_value

    @property
    def failing(self) -> pd.DataFrame:
        """The verification rows that do not hold (empty when there is no table)."""
        if self.verification is None:
            return pd.DataFrame(columns=["kind", "result", "quantity", "holds"])
        return failing_rows(self.verification)

    @property
    def passed(self) -> bool:
        """Every cell ran and no counted verification row fails."""
        return self.returncode == 0 and not self.timed_out and self.failing.empty

    def read_notebook(self) -> dict[str, Any]:
        """The executed notebook as a dict (``{}`` when papermill wrote none)."""
        try:
            return json.loads(self.notebook.read_text())
        except (OSError, ValueError):
            return {}


def toc_chapters(root: str | os.PathLike[str] | None = None) -> list[str]:
    """The stems of the notebooks that ``_toc.yml`` lists, in book order (markdown pages left out)."""
    root = pathlib.Path(root) if root is not None else REPO_ROOT
    files: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node:
                files.append(str(node["file"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load((root / "_toc.yml").read_text()))
    return [pathlib.Path(f).name for f in files if (root / f"{f}.ipynb").is_file()]


def notebook_path(chapter: str, book_dir: pathlib.Path | None = None) -> pathlib.Path:
    """``<book_dir>/<chapter>.ipynb`` (``chapter`` with or without the suffix); ``ValueError`` if missing."""
    book_dir = pathlib.Path(book_dir) if book_dir is not None else REPO_ROOT / "book"
    path = book_dir / (chapter if chapter.endswith(".ipynb") else f"{chapter}.ipynb")
    if not path.is_file():
        raise ValueError(f"chapter must name a notebook of {book_dir}, got {chapter!r} (no {path.name})")
    return path


def first_error(notebook: Mapping[str, Any]) -> tuple[str, str]:
    """``(ename, evalue)`` of the first error output in an executed notebook, or ``("", "")``."""
    return first_error_at(notebook)[:2]


def first_error_at(notebook: Mapping[str, Any]) -> tuple[str, str, str]:
    """``(ename, evalue, where)`` of the first error output; ``where`` names the cell (papermill's
    1-based number), its section and its first line of code (the figure or row it builds)."""
    sections = cell_sections(notebook)
    for number, cell in enumerate(notebook.get("cells", []), start=1):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if output.get("output_type") == "error":
                source = "".join(cell.get("source", ""))
                code = next((line.strip() for line in source.splitlines()
                             if line.strip() and not line.strip().startswith("#")), "")
                where = f"cell {number} (section \"{sections[number - 1]}\"" + \
                    (f", `{code[:80]}`" if code else "") + ")"
                return str(output.get("ename", "")), str(output.get("evalue", "")), where
    return "", "", ""


def cell_sections(notebook: Mapping[str, Any]) -> list[str]:
    """For every cell, the title of the section it sits in: the last Markdown heading at or above it."""
    title, out = "start", []
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for line in "".join(cell.get("source", "")).splitlines():
                match = re.match(r"^(#{1,3})\s+(.*\S)", line)
                if match:
                    title = re.sub(r"[`*{}]|\(label:.*?\)", "", match.group(2)).strip()
        out.append(title)
    return out


def _last_error_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if "Error" in line or "Exception" in line]
    return (errors[-1] if errors else (lines[-1] if lines else "papermill exited without output"))[:300]


def run_chapter(
    chapter: str,
    output: str | os.PathLike[str],
    *,
    parameters: Mapping[str, Any] | None = None,
    book_dir: str | os.PathLike[str] | None = None,
    pythonpath: Sequence[str | os.PathLike[str]] = (),
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    cell_timeout: float | None = None,
    stop_at_first_failure: bool = False,
    progress: Progress | None = None,
) -> ChapterRun:
    """Execute ``<book_dir>/<chapter>.ipynb`` with papermill into ``output``; say how it ended.

    Parameters
    ----------
    chapter
        The notebook's stem (``"06_real_data"``), with or without ``.ipynb``.
    output
        Where the executed notebook goes; its log (every cell's output) is written beside it as
        ``<output stem>.log`` and the verification table as ``<output stem>.verification.json``.
    parameters
        Papermill parameters, passed as YAML (lists, booleans and strings keep their types).
    book_dir
        The folder holding the notebook and used as the working directory (default: the
        repository's ``book/``).
    pythonpath
        Folders put first on the kernel's ``PYTHONPATH`` (the fault suite's scratch ``dtcore``).
    env
        Further environment variables of the kernel.
    timeout
        Seconds for the whole run; past it the run is killed and reported as timed out.
    cell_timeout
        Seconds per cell (papermill's ``--execution-timeout``).
    stop_at_first_failure
        Make the chapter stop at its first failing verification row (the fault suite only needs
        to know which row caught a fault).
    progress
        Called with ``(cell, cells, seconds)`` as each cell starts.
    """
    notebook = notebook_path(chapter, None if book_dir is None else pathlib.Path(book_dir))
    output = pathlib.Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    log = output.with_suffix(".log")
    table_json = output.with_suffix(".verification.json")
    for stale in (output, table_json):
        stale.unlink(missing_ok=True)
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if cell_timeout is not None and not cell_timeout > 0:
        raise ValueError(f"cell_timeout must be a positive number of seconds, got {cell_timeout!r}")

    kernel_env = {**os.environ, **(env or {}), VERIFICATION_JSON_ENV: str(table_json)}
    kernel_env.pop(STOP_EARLY_ENV, None)
    if stop_at_first_failure:
        kernel_env[STOP_EARLY_ENV] = "1"
    kernel_env["PYTHONPATH"] = os.pathsep.join(
        [*(str(p) for p in pythonpath), *filter(None, [kernel_env.get("PYTHONPATH")])])
    command = [sys.executable, "-m", "papermill", str(notebook), str(output), "--cwd", str(notebook.parent),
               "--kernel", "python3", "--log-output", "--no-progress-bar", "--log-level", "INFO"]
    if parameters:
        command += ["-y", yaml.safe_dump(dict(parameters), default_flow_style=True)]
    if cell_timeout is not None:
        command += ["--execution-timeout", str(int(cell_timeout))]
    # papermill numbers every cell, markdown included, and its injected parameters cell too
    cells = len(json.loads(notebook.read_text())["cells"]) + (1 if parameters else 0)

    start = time.perf_counter()
    timed_out = False
    with open(log, "w") as log_file:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=kernel_env, start_new_session=True)  # its own group: a kill takes the kernel too

        def follow() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                log_file.write(line)
                match = _CELL_START.match(line)
                if match and progress is not None:
                    progress(int(match.group(1)), cells, time.perf_counter() - start)

        reader = threading.Thread(target=follow, name=f"papermill-{notebook.stem}", daemon=True)
        reader.start()
        try:
            returncode = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            returncode = proc.wait()
        reader.join(timeout=10)
    seconds = time.perf_counter() - start

    run = ChapterRun(chapter=notebook.stem, notebook=output, log=log, returncode=returncode, seconds=seconds,
                     timed_out=timed_out)
    ename, evalue, where = first_error_at(run.read_notebook())
    if timed_out:
        evalue = f"timed out after {timeout:.0f} s" + (f" ({ename}: {evalue})" if ename else "")
        ename = ""
    elif returncode != 0 and not ename:
        evalue = _last_error_line(log.read_text(errors="replace"))
    verification = read_verification(table_json) if table_json.is_file() else None
    return ChapterRun(chapter=run.chapter, notebook=output, log=log, returncode=returncode, seconds=seconds,
                      error_name=ename, error_value=evalue, error_where=where, timed_out=timed_out,
                      verification=verification)
