"""The fault-injection machinery: faults apply exactly once, in a copy, and a missed fault fails the suite."""

import json
import pathlib
import shutil

import pytest

from dtbook.chapter import REPO_ROOT
from dtbook.faults import Fault, apply_fault, assert_all_caught, load_faults, run_faults

MINI_CHAPTER = """\
from dtcore.analysis import variance
from dtbook.report import VerificationTable
import numpy as np
table = VerificationTable()
xor = np.array([0, 1, 1, 0], dtype=np.uint8)
table.identity("Var", "variance of XOR against 1", abs(variance(xor) - 1.0), 1e-12)
table.assert_all()
"""


def mini_repo(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "repo"
    shutil.copytree(REPO_ROOT / "dtcore", root / "dtcore", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO_ROOT / "dtbook", root / "dtbook", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "book").mkdir()
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {"tags": ["parameters"]},
                     "outputs": [], "source": "seed = 0\n"},
                    {"cell_type": "code", "execution_count": None, "id": "c2", "metadata": {}, "outputs": [],
                     "source": MINI_CHAPTER}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (root / "book" / "mini.ipynb").write_text(json.dumps(nb))
    return root


CAUGHT = Fault("variance-half", "mini", "dtcore/analysis.py", "return 4.0 * mu * (1.0 - mu)",
               "return 2.0 * mu * (1.0 - mu)", "variance normalised by 2 instead of 4")
HARMLESS = Fault("docstring", "mini", "dtcore/analysis.py", "the distance from f to the closer constant",
                 "the distance to the nearer constant", "a docstring edit: no check can see it")


def test_a_caught_fault_passes_and_a_missed_one_fails_the_suite(tmp_path):
    results = run_faults([CAUGHT, HARMLESS], repo_root=mini_repo(tmp_path), n_jobs=2, timeout=300)
    assert list(results["outcome"]) == ["caught by a check", "missed"]
    assert "Var: variance of XOR against 1" in results.loc[0, "caught_by"]
    with pytest.raises(AssertionError, match="docstring"):
        assert_all_caught(results)
    assert_all_caught(results.iloc[:1])


def test_a_fault_applies_exactly_once_and_never_to_the_repository(tmp_path):
    root = mini_repo(tmp_path)
    apply_fault(CAUGHT, root)
    assert "return 2.0 * mu" in (root / "dtcore" / "analysis.py").read_text()
    with pytest.raises(ValueError, match="exactly once"):
        apply_fault(CAUGHT, root)  # already applied: the text is gone
    with pytest.raises(ValueError, match="scratch copy"):
        apply_fault(CAUGHT, REPO_ROOT)


def test_the_catalogue_is_well_formed():
    faults = load_faults()
    for fault in faults:
        text = (REPO_ROOT / fault.file).read_text()
        assert text.count(fault.find) == 1, f"{fault.id}: its text must occur once in {fault.file}"
        assert fault.find != fault.replace and fault.description
        assert (REPO_ROOT / "book" / f"{fault.chapter}.ipynb").exists(), fault.chapter


def test_fault_descriptions_typeset_their_maths() -> None:
    """The fault table shows no ASCII maths: powers as superscripts, ≤ and log₂, no pipe inside maths."""
    from dtbook.faults import _cell, reader_maths

    assert reader_maths("x^0.5 and 2^n") == "$x^{0.5}$ and $2^{n}$"
    assert reader_maths("n^O(log(s/eps))") == "$n^{O(log(s/ε))}$"
    assert "|" not in _cell(reader_maths("the leaf weight 2^-|l|")).replace("\\|", "")
    assert reader_maths("a <= 2 eps / (L log2 s)") == "a ≤ 2 ε / (L log₂ s)"
