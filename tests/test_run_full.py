"""scripts/run_full.py (`make full`): chapter list, check counting and the summary it writes."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run_full():
    spec = importlib.util.spec_from_file_location("run_full", REPO / "scripts" / "run_full.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_toc_chapters_are_the_notebooks_in_book_order(run_full):
    chapters = run_full.toc_chapters()
    assert chapters[0] == "01_top_down_guarantees"
    assert chapters == sorted(chapters, key=chapters.index)  # no duplicates, toc order kept
    assert all((REPO / "book" / f"{c}.ipynb").is_file() for c in chapters)
    assert "notation" not in chapters and "intro" not in chapters  # markdown pages are not run


def test_count_checks_by_kind_and_failing_rows(run_full):
    rows = [
        {"kind": "theorem", "result": "T1", "quantity": "a", "holds": True},
        {"kind": "theorem", "result": "T2", "quantity": "b", "holds": False},
        {"kind": "identity", "result": "L", "quantity": "c", "holds": True},
        {"kind": "counterexample", "result": "C", "quantity": "d", "holds": True},
        {"kind": "observation", "result": "O", "quantity": "e", "holds": True},
    ]
    counts = run_full.count_checks(pd.DataFrame(rows))
    assert counts["by_kind"] == {"theorem": 2, "counterexample": 1, "identity": 1, "observation": 1}
    assert counts["failing"] == ["T2: b"]
    with pytest.raises(ValueError, match="holds"):  # the one pass rule: no string "True"
        run_full.count_checks(pd.DataFrame([{"kind": "theorem", "result": "T", "quantity": "a", "holds": "True"}]))


def test_summary_names_commit_times_and_failures(run_full, tmp_path):
    meta = {"scale": "full", "commit": "abc", "started": "s", "finished": "f", "seconds": 3725.0,
            "machine": "m", "dask_scheduler": "", "extra_parameters": []}
    rows = [
        {"chapter": "01_x", "passed": True, "seconds": 61.0, "checks": {"by_kind": {"theorem": 3}, "rows": 3, "failing": []}},
        {"chapter": "02_y", "passed": False, "seconds": 5.0, "checks": None,
         "error": "ValueError: folds must be an integer in [2, 20], got 1"},
        {"chapter": "03_z", "passed": False, "seconds": 7.0,
         "checks": {"by_kind": {"theorem": 2}, "rows": 2, "failing": ["Theorem 1: error | bound"]},
         "error": "AssertionError: theorem checks failed:\n..."},
    ]
    text = run_full.write_summary(tmp_path, meta, rows)
    assert "| 01_x | passed | 1 min 01 s | theorem 3 | none | not recorded; backend not recorded | `abc`, s |" in text
    assert ("| 02_y | FAILED | 0 min 05 s | no verification table | "
            "ValueError: folds must be an integer in [2, 20], got 1 | not recorded; backend not recorded | `abc`, s |") in text
    assert ("| 03_z | FAILED | 0 min 07 s | theorem 2 | rows not holding: Theorem 1: error \\| bound | "
            "not recorded; backend not recorded | `abc`, s |") in text
    assert text.startswith("# Run of every chapter at scale='full'")
    assert "- commit: `abc`" in text
    assert "total wall time: 1 min 13 s" in text
    assert json.loads((tmp_path / "summary.json").read_text())["chapters"][1]["passed"] is False


def test_minutes_carry_rounded_seconds(run_full):
    assert run_full.minutes(599.6) == "10 min 00 s"
    assert run_full.minutes(61.4) == "1 min 01 s"


def test_unknown_chapter_is_refused(run_full):
    with pytest.raises(SystemExit):
        run_full.main(["--chapters", "no_such_chapter", "--out", "/tmp/unused"])


def test_a_partial_run_keeps_the_other_chapters_rows(run_full, tmp_path):
    meta = {"scale": "full", "commit": "old", "started": "s0", "finished": "f0", "seconds": 100.0,
            "machine": "m", "dask_scheduler": "", "extra_parameters": []}
    old = [{"chapter": c, "passed": True, "seconds": 10.0, "checks": None} for c in ("01_a", "02_b", "03_c")]
    run_full.write_summary(tmp_path, meta, old)
    new = [{"chapter": "02_b", "passed": True, "seconds": 20.0, "checks": None, "commit": "new", "started": "s1",
            "parameters": {"scale": "full", "seed": 7}, "backend": "Dask at tcp://h:8786"}]
    rows = run_full.merge_rows(tmp_path, "full", new, ["01_a", "02_b", "03_c"])
    assert [(r["chapter"], r["commit"], r["seconds"]) for r in rows] == [
        ("01_a", "old", 10.0), ("02_b", "new", 20.0), ("03_c", "old", 10.0)]
    text = run_full.write_summary(tmp_path, {**meta, "commit": "new", "ran": ["02_b"]}, rows)
    assert "commits: `new`, `old` (per chapter below)" in text
    assert text.startswith("# Run of 02_b (the rows of 01_a, 03_c kept from earlier runs) at scale='full'")
    assert ("| 02_b | passed | 0 min 20 s | no verification table | none | scale='full', seed=7; "
            "Dask at tcp://h:8786 | `new`, s1 |") in text
    # the kept rows keep their own run's parameters and backend, not this run's
    assert "| 01_a | passed | 0 min 10 s | no verification table | none | scale='full', save_results=True; joblib on the local cores |" in text
    # a summary of another scale is not merged
    assert [r["chapter"] for r in run_full.merge_rows(tmp_path, "quick", new, ["01_a", "02_b", "03_c"])] == ["02_b"]


def test_parameters_are_typed_as_papermill_types_them(run_full):
    given = run_full.parse_parameters([["seed", "7"], ["eps", "0.1"], ["save_results", "True"], ["impurity", "gini"]],
                                      ["sizes: [4, 8]"])
    assert given == {"sizes": [4, 8], "seed": 7, "eps": 0.1, "save_results": True, "impurity": "gini"}
    with pytest.raises(SystemExit, match="YAML mapping"):
        run_full.parse_parameters([], ["[4, 8]"])


def test_a_parameter_goes_to_the_chapters_that_have_it(run_full):
    ch1 = run_full.chapter_parameters("01_top_down_guarantees", "full", {"seed": 7, "n_functions": 10})
    assert ch1 == {"scale": "full", "save_results": True, "seed": 7, "n_functions": 10}
    faults = run_full.chapter_parameters("appendix_faults", "full", {"seed": 7, "jobs": 1})
    assert faults == {"scale": "full", "jobs": 1}  # no seed, no save_results: not its parameters
    run_full.check_parameters(["01_top_down_guarantees", "appendix_faults"], {"seed": 7, "jobs": 1})
    with pytest.raises(SystemExit, match="unknown parameter 'sead'.*did you mean 'seed'"):
        run_full.check_parameters(["01_top_down_guarantees"], {"sead": 7})
    with pytest.raises(SystemExit, match="unknown parameter 'jobs'"):
        run_full.check_parameters(["01_top_down_guarantees"], {"jobs": 1})


def test_progress_is_one_line_per_section_off_a_terminal(run_full, capsys):
    import sys

    progress = run_full.CellProgress("06_real_data", stream=sys.stdout, sections=["A", "B", "B", "C"], estimate=130)
    for cell, seconds in [(1, 0.4), (2, 65.2), (3, 70.0), (4, 80.0)]:
        progress(cell, 4, seconds)
    progress.close()
    assert capsys.readouterr().out.splitlines() == [
        "06_real_data: A (cell 1/4), 0 min 00 s elapsed of about 2 min 10 s (the last run)",
        "06_real_data: B (cell 2/4), 1 min 05 s elapsed of about 2 min 10 s (the last run)",
        "06_real_data: C (cell 4/4), 1 min 20 s elapsed of about 2 min 10 s (the last run)"]
    first = run_full.CellProgress("x", stream=sys.stdout)
    first(1, 2, 1.0)
    assert "no earlier run to estimate from" in capsys.readouterr().out


def test_sections_follow_the_notebook_with_the_injected_cell(run_full):
    sections = run_full.papermill_sections("04_product_spaces", injected=True)
    import json
    cells = json.loads((run_full.REPO / "book" / "04_product_spaces.ipynb").read_text())["cells"]
    assert len(sections) == len(cells) + 1 and sections[0] != "start"
    assert sections[-1] == run_full.cell_sections({"cells": cells})[-1]


def test_a_failed_cell_is_named_with_its_section_and_code():
    from dtbook.run import first_error_at
    notebook = {"cells": [
        {"cell_type": "markdown", "source": "## Figure 2: phases"},
        {"cell_type": "code", "source": "# draw it\nphases_figure(runs)\n", "outputs": [
            {"output_type": "error", "ename": "ValueError", "evalue": "Data cannot be log-scaled"}]}]}
    assert first_error_at(notebook) == ("ValueError", "Data cannot be log-scaled",
                                        'cell 2 (section "Figure 2: phases", `phases_figure(runs)`)')
