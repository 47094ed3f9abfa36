"""dtbook.run: the one runner of a chapter (fault suite, make full, notebook tests), on a mini chapter."""

from __future__ import annotations

import json
import pathlib

import pytest

from dtbook.run import first_error, run_chapter, toc_chapters

MINI = """\
from dtbook.report import VerificationTable
if seed == 13:
    raise ValueError(f"seed must not be 13, got {seed}")
if seed == 99:
    import time
    time.sleep(600)
table = VerificationTable()
table.bound("Theorem 1", "error", 0.01 * seed, 0.1, value_range=(0, 1))
print("seed", seed)
"""


def mini_book(tmp_path: pathlib.Path) -> pathlib.Path:
    book = tmp_path / "book"
    book.mkdir()
    cells = [
        {"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# Mini"},
        {"cell_type": "code", "execution_count": None, "id": "p", "metadata": {"tags": ["parameters"]},
         "outputs": [], "source": "seed = 0\n"},
        {"cell_type": "code", "execution_count": None, "id": "c", "metadata": {}, "outputs": [], "source": MINI},
        {"cell_type": "code", "execution_count": None, "id": "a", "metadata": {}, "outputs": [],
         "source": "table.assert_all()"},
    ]
    nb = {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}
    (book / "mini.ipynb").write_text(json.dumps(nb))
    return book


def test_a_passing_run_reports_its_table_and_each_cell(tmp_path):
    seen = []
    run = run_chapter("mini", tmp_path / "out" / "mini.ipynb", book_dir=mini_book(tmp_path),
                      parameters={"seed": 2}, timeout=300, progress=lambda *a: seen.append(a))
    assert run.passed and run.returncode == 0 and run.error == ""
    assert list(run.verification["result"]) == ["Theorem 1"] and run.failing.empty
    assert [(cell, cells) for cell, cells, _ in seen] == [(k, 5) for k in range(1, 6)]  # 4 cells + papermill's
    assert "seed 2" in run.log.read_text()


def test_a_failing_run_names_the_error_a_cell_raised(tmp_path):
    run = run_chapter("mini.ipynb", tmp_path / "mini.ipynb", book_dir=mini_book(tmp_path), parameters={"seed": 13},
                      timeout=300)
    assert not run.passed and run.verification is None
    assert run.error == "ValueError: seed must not be 13, got 13"
    assert first_error(run.read_notebook()) == ("ValueError", "seed must not be 13, got 13")


def test_a_run_past_its_time_limit_is_killed_and_says_so(tmp_path):
    run = run_chapter("mini", tmp_path / "mini.ipynb", book_dir=mini_book(tmp_path), parameters={"seed": 99},
                      timeout=10)
    assert run.timed_out and not run.passed
    assert run.error.startswith("timed out after 10 s") and run.seconds < 60


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="chapter"):
        run_chapter("no_such_page", tmp_path / "x.ipynb", book_dir=mini_book(tmp_path))
    with pytest.raises(ValueError, match="timeout"):
        run_chapter("mini", tmp_path / "x.ipynb", book_dir=tmp_path / "book", timeout=0)


def test_toc_chapters_lists_the_notebooks_in_book_order():
    chapters = toc_chapters()
    assert chapters[0] == "01_top_down_guarantees" and "appendix_faults" in chapters
    assert "notation" not in chapters and "intro" not in chapters
