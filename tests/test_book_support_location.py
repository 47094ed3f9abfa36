"""The book's support (dtbook) lives in the clone, not in the wheel: the book finds it from the checkout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_book_support_is_imported_from_this_clone() -> None:
    import dtbook
    import dtcore

    assert Path(dtbook.__file__).resolve().parent == REPO / "dtbook"
    assert Path(dtcore.__file__).resolve().parent == REPO / "dtcore"


def test_a_fresh_interpreter_of_the_venv_finds_it_from_any_folder(tmp_path: Path) -> None:
    """The Makefile's .pth (dtbook-checkout.pth) puts the clone on the path of every process of the
    venv: the kernels that run the chapters from book/, papermill, Sphinx's extensions."""
    out = subprocess.run([sys.executable, "-c", "import dtbook, sys; print(dtbook.__file__)"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr + " (run `make venv`: it writes dtbook-checkout.pth into the venv)"
    assert Path(out.stdout.strip()).resolve().parent == REPO / "dtbook"
