"""Chapter 6 runs with non-default parameters and rejects bad ones with a clear error."""

import json

import pytest

from tests.notebook_runner import expect_parameter_error, run_chapter

CHAPTER = "06_real_data.ipynb"


def test_runs_with_non_default_parameters(tmp_path):
    nb = run_chapter(CHAPTER, tmp_path, seed=2, folds=2, depths=[1, 2], leaf_sizes=[2, 4], n_thresholds=2,
                     est_sizes=[2, 8], batch_size=16, n_test=300, n_heldout=300)
    text = json.dumps([cell.get("outputs", []) for cell in nb["cells"]])
    assert "rows are checks that can fail" in text and "FAILS" not in text


@pytest.mark.parametrize("bad, name", [({"delta": 1.5}, "delta"), ({"depths": [0]}, "depths[0]"),
                                       ({"folds": 1}, "folds"), ({"n_heldout": 3000, "n_test": 3000}, "n_heldout"),
                                       ({"scale": "huge"}, "scale")])
def test_rejects_bad_parameters(tmp_path, bad, name):
    message = expect_parameter_error(CHAPTER, tmp_path, name, **bad)
    assert "must be" in message
