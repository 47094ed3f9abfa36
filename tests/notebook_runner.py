"""Run a chapter with papermill (shared by the per-chapter notebook tests)."""

from __future__ import annotations

import pathlib

import papermill as pm
import pytest

BOOK = pathlib.Path(__file__).resolve().parents[1] / "book"


def run_chapter(name: str, tmp_path: pathlib.Path, **parameters: object):
    """Execute ``book/<name>`` with the given parameters; return the executed notebook."""
    out = tmp_path / f"out_{name}"
    return pm.execute_notebook(
        str(BOOK / name), str(out), parameters=parameters, kernel_name="python3",
        cwd=str(BOOK), progress_bar=False,
    )


def expect_parameter_error(name: str, tmp_path: pathlib.Path, parameter: str, **parameters: object) -> str:
    """Run a chapter with bad parameters; assert it stops with a ValueError naming ``parameter``."""
    with pytest.raises(pm.PapermillExecutionError) as info:
        run_chapter(name, tmp_path, **parameters)
    err = info.value
    assert err.ename == "ValueError", f"expected ValueError, got {err.ename}: {err.evalue}"
    assert parameter in err.evalue, f"error does not name {parameter!r}: {err.evalue}"
    return err.evalue
