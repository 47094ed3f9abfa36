"""Chapter 5 runs with non-default parameters (including an impurity with infinite gamma) and
rejects bad ones with a clear error."""

import json

import pytest

from tests.notebook_runner import expect_parameter_error, run_chapter

CHAPTER = "05_id3_smoothed.ipynb"


def test_runs_with_non_default_parameters(tmp_path):
    nb = run_chapter(CHAPTER, tmp_path, seed=7, n=8, ks=[2, 3], alpha=0.1, c=0.15, cs=[0.1, 0.2], reps=4,
                     m_grid=[300, 3000], impurity="entropy")
    text = json.dumps(nb["cells"])
    assert "rows are checks that can fail" in text
    assert "not applicable for entropy" in text  # gamma is infinite for entropy: rows marked, not dropped


@pytest.mark.parametrize("bad, name", [({"alpha": 0.7}, "alpha"), ({"c": 0.45}, "c"), ({"ks": [2, 9]}, "ks[1]"),
                                       ({"impurity": "hinge"}, "impurity"), ({"reps": 1}, "reps"),
                                       ({"m_grid": "[100, 1000]"}, "m_grid"), ({"save_results": "false"}, "save_results"),
                                       ({"scale": "huge"}, "scale")])
def test_rejects_bad_parameters(tmp_path, bad, name):
    message = expect_parameter_error(CHAPTER, tmp_path, name, **bad)
    assert "must be" in message
