"""Chapter 1 runs with non-default parameters and rejects bad ones with a clear error."""

import json

import pytest

from tests.notebook_runner import expect_parameter_error, run_chapter

CHAPTER = "01_top_down_guarantees.ipynb"


def test_runs_with_non_default_parameters(tmp_path):
    nb = run_chapter(CHAPTER, tmp_path, seed=3, n=8, eps=0.1, eps_grid=[0.2, 0.1], sizes=[4, 8],
                     n_functions=12, n_max_lower_bound=10)
    # papermill raises if any cell fails, the last one being table.assert_all(); the table was shown
    text = json.dumps([c.get("outputs", []) for c in nb["cells"]])
    assert "Bounds (measured against an independently computed bound)" in text
    assert "ch1_verification_summary" in text


@pytest.mark.parametrize("bad, name", [({"eps": 0.7}, "eps"), ({"n": 0}, "n"), ({"scale": "huge"}, "scale"),
                                       ({"eps_grid": [0.1, 0.6]}, "eps_grid[1]"), ({"sizes": [1]}, "sizes[0]")])
def test_rejects_bad_parameters(tmp_path, bad, name):
    message = expect_parameter_error(CHAPTER, tmp_path, name, **bad)
    assert "must be" in message
