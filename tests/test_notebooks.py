"""Every notebook of the book runs with non-default parameters and rejects bad ones by name.

The notebooks run at their default (quick) parameters once, under nbmake (``make test``); here
each is re-run through papermill (:func:`dtbook.run.run_chapter`, the runner of the fault
suite and of ``make full``) with small non-default values (the run must pass its own verification
table, whose last cell asserts it), with bad values and with a misspelt name (the run must stop in
the cell after the parameters with a ``ValueError`` naming the parameter).
"""

import json
import pathlib

import pytest

from dtbook.run import ChapterRun, run_chapter, toc_chapters
from dtbook.specs import SPECS

#: Seconds a run may take before it counts as hanging (a bad parameter stops a chapter in seconds).
TIMEOUT = 900


def run(chapter: str, tmp_path: pathlib.Path, **parameters: object) -> ChapterRun:
    return run_chapter(chapter, tmp_path / chapter, parameters=parameters, timeout=TIMEOUT)


def expect_parameter_error(chapter: str, tmp_path: pathlib.Path, parameter: str, **parameters: object) -> str:
    """Run a chapter with bad parameters; assert it stops with a ValueError naming ``parameter``."""
    result = run(chapter, tmp_path, **parameters)
    assert result.returncode != 0, f"{chapter} ran through with {parameters}"
    assert result.error_name == "ValueError", f"expected a ValueError, got {result.error}"
    assert parameter in result.error_value, f"the error does not name {parameter!r}: {result.error_value}"
    return result.error_value

SHOWN_TABLE = "Theorem checks (a printed claim against a bound computed independently of the measurement)"

RUNS = {
    "01_top_down_guarantees.ipynb": (
        dict(seed=3, n=8, eps=0.1, eps_grid=[0.2, 0.1], sizes=[4, 8], n_functions=12, n_max_lower_bound=10),
        [SHOWN_TABLE, "ch1_verification_summary"]),
    "02_estimating_learnability.ipynb": (
        dict(seed=5, n=10, n_train=3000, sizes=[8, 16], batch_sizes=[8, 3000], dims=[8, 10], repetitions=1,
             eta=0.3, n_test=60, train_sizes=[1000, 4000]),
        ["checks that can fail"]),
    "03_stochastic_trees.ipynb": (
        dict(seed=4, n=6, size=4, n_stochastic=1, target_depth=2, m=300, depth=2, degree=1, eta_grid=[0.0, 0.1],
             repetitions=1, c_grid=[1, 3], lemma_draws=2, benchmark_m=300, pair_repetitions=4, deep_depth=3),
        ["rows are checks that can fail"]),
    "04_product_spaces.ipynb": (
        dict(seed=3, n_exact=6, n_functions=12, biases=[0.5, 0.2], eps=0.15, fig2_n=8, fig2_eps=[0.3],
             fig2_dims=[3], reps=1),
        [SHOWN_TABLE]),
    "05_id3_smoothed.ipynb": (
        dict(seed=7, n=8, ks=[2, 3], alpha=0.1, c=0.15, cs=[0.1, 0.2], reps=4, m_grid=[300, 3000],
             impurity="entropy"),
        # gamma is infinite for entropy: the rows that need it are marked, not dropped
        ["rows are checks that can fail", "not applicable for entropy"]),
    "06_real_data.ipynb": (
        dict(seed=2, folds=2, depths=[1, 2], leaf_sizes=[2, 4], n_thresholds=2, est_sizes=[2, 8], batch_size=16,
             n_test=300, n_heldout=300),
        ["rows are checks that can fail"]),
    "appendix_performance.ipynb": (
        dict(seed=2, repetitions=1, n_exact=8, exact_leaves=8, m_topdown=2000, n_topdown=10, t_topdown=8,
             m_find=300, m_id3=1500, n_id3=12, m_id3_large=1500, n_id3_large=10, local_sizes=[800],
             scale_rows=True, m_scale=3000),
        # compared with a peer: 2 TopDown_G + 4 FIND + 5 FIND on real-valued data (their quick sizes)
        # + 3 against ConTree + 1 against DL8.5 + 1 against GOSDT + 3 ID3 + 1 multi-class FIND (wine)
        # + 1 LocalLearner; self-consistent: the exact BuildTopDownDT row and the two scale rows
        ["the outputs agree in all 21 compared benchmark rows and 3 rows are self-consistent"]),
}

BAD = [
    ("01_top_down_guarantees.ipynb", {"eps": 0.7}, "eps"),
    ("01_top_down_guarantees.ipynb", {"n": 0}, "n"),
    ("01_top_down_guarantees.ipynb", {"eps_grid": [0.1, 0.6]}, "eps_grid[1]"),
    ("01_top_down_guarantees.ipynb", {"sizes": [1]}, "sizes[0]"),
    ("02_estimating_learnability.ipynb", {"batch_sizes": [0, 4]}, "batch_sizes[0]"),
    ("02_estimating_learnability.ipynb", {"sizes": [0]}, "sizes[0]"),
    ("02_estimating_learnability.ipynb", {"eta": 0.5}, "eta"),
    ("02_estimating_learnability.ipynb", {"delta": 0.7}, "delta"),
    ("03_stochastic_trees.ipynb", {"eta_grid": [0.0, 0.7]}, "eta_grid[1]"),
    ("03_stochastic_trees.ipynb", {"depth": -1}, "depth"),
    ("03_stochastic_trees.ipynb", {"n_stochastic": 8}, "n_stochastic"),
    ("03_stochastic_trees.ipynb", {"c_grid": [0]}, "c_grid[0]"),
    ("03_stochastic_trees.ipynb", {"pair_repetitions": 1}, "pair_repetitions"),
    ("03_stochastic_trees.ipynb", {"deep_depth": 9}, "deep_depth"),
    ("04_product_spaces.ipynb", {"biases": [0.5, 1.0]}, "biases[1]"),
    ("04_product_spaces.ipynb", {"delta": 0.0}, "delta"),
    ("04_product_spaces.ipynb", {"save_results": "false"}, "save_results"),
    ("04_product_spaces.ipynb", {"biases": "[0.5, 0.2]"}, "biases"),
    ("05_id3_smoothed.ipynb", {"c": 0.45}, "c"),
    ("05_id3_smoothed.ipynb", {"ks": [2, 9]}, "ks[1]"),
    ("05_id3_smoothed.ipynb", {"impurity": "hinge"}, "impurity"),
    ("05_id3_smoothed.ipynb", {"m_grid": "[100, 1000]"}, "m_grid"),
    ("06_real_data.ipynb", {"depths": [0]}, "depths[0]"),
    ("06_real_data.ipynb", {"n_heldout": 3000, "n_test": 3000}, "n_heldout"),
    ("appendix_performance.ipynb", {"exact_leaves": 1}, "exact_leaves"),
    ("appendix_performance.ipynb", {"local_sizes": []}, "local_sizes"),
    ("appendix_performance.ipynb", {"scale_rows": "yes"}, "scale_rows"),
    ("appendix_faults.ipynb", {"scale": "huge"}, "scale"),
] + [(chapter, {"scale": "huge"}, "scale") for chapter in RUNS]


@pytest.mark.parametrize("chapter", sorted(RUNS))
def test_runs_with_non_default_parameters(tmp_path, chapter):
    parameters, expected = RUNS[chapter]
    result = run(chapter, tmp_path, **parameters)
    # a cell that raises fails the run, the last one being table.assert_all()
    assert result.passed, f"{chapter}: {result.error} (log {result.log})"
    text = json.dumps([cell.get("outputs", []) for cell in result.read_notebook()["cells"]])
    assert "FAILS" not in text
    for phrase in expected:
        assert phrase in text, f"{chapter}: {phrase!r} not in the outputs"


@pytest.mark.parametrize("chapter, bad, name", BAD)
def test_rejects_bad_parameters(tmp_path, chapter, bad, name):
    message = expect_parameter_error(chapter, tmp_path, name, **bad)
    assert "must" in message


def test_every_page_of_the_book_has_a_parameter_spec():
    pages = {f"{chapter}.ipynb" for chapter in toc_chapters()}
    assert pages == {f"{chapter}.ipynb" for chapter in SPECS}


# A misspelt name, one run per page (the cases on chapters 1 and 3 and the faults appendix).
# ``scale: huge`` makes a page that ignored the unknown name stop at once with the wrong error,
# instead of running whole: the unknown name must be reported first.
SEAD = "unknown parameter 'sead'; did you mean 'seed'?"
MISSPELT = {
    "01_top_down_guarantees": ({"sead": 7, "n_function": 10},
                               [SEAD, "unknown parameter 'n_function'; did you mean 'n_functions'?"]),
    "03_stochastic_trees": ({"eta": 0.5, "sead": 7}, ["unknown parameter 'eta'; did you mean 'eta_grid'?", SEAD]),
    "appendix_faults": ({"repetitions": 0, "job": 1},
                        ["unknown parameter 'repetitions'.", "unknown parameter 'job'; did you mean 'jobs'?",
                         "The parameters of appendix_faults are scale, chapters, jobs."]),
}
MISSPELT.update({chapter: ({"sead": 7}, [SEAD]) for chapter in SPECS if chapter not in MISSPELT})


@pytest.mark.parametrize("chapter", sorted(MISSPELT))
def test_a_misspelt_parameter_stops_the_page_with_the_closest_name(tmp_path, chapter):
    misspelt, messages = MISSPELT[chapter]
    error = expect_parameter_error(chapter, tmp_path, messages[0], **misspelt, scale="huge")
    for message in messages[1:]:
        assert message in error
    assert "scale must" not in error


def test_every_page_is_covered_by_the_misspelling_test():
    assert set(MISSPELT) == set(SPECS) == set(toc_chapters())
