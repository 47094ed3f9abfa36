"""Chapter 4 runs with non-default parameters and rejects bad ones with a clear error."""

import json

import pytest

from tests.notebook_runner import expect_parameter_error, run_chapter

CHAPTER = "04_product_spaces.ipynb"


def test_runs_with_non_default_parameters(tmp_path):
    nb = run_chapter(CHAPTER, tmp_path, seed=3, n_exact=6, n_functions=12, biases=[0.5, 0.2], eps=0.15,
                     fig2_n=8, fig2_eps=[0.3], fig2_dims=[3], reps=1)
    text = json.dumps(nb["cells"][-1]) + json.dumps(nb["cells"][-3]["outputs"])
    assert "FAILS" not in text


@pytest.mark.parametrize("bad, name", [({"biases": [0.5, 1.0]}, "biases[1]"), ({"fig2_eps": [0.1, 1.2]}, "fig2_eps[1]"),
                                       ({"delta": 0.0}, "delta"), ({"biases": [0.0]}, "biases[0]"),
                                       ({"n_exact": 3}, "n_exact"), ({"scale": "huge"}, "scale"),
                                       ({"save_results": "false"}, "save_results"),
                                       ({"biases": "[0.5, 0.2]"}, "biases")])
def test_rejects_bad_parameters(tmp_path, bad, name):
    message = expect_parameter_error(CHAPTER, tmp_path, name, **bad)
    assert "must be" in message
