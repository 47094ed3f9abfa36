"""Chapter 3 runs with tiny non-default parameters and rejects bad ones with a clear error."""

import json

import pytest

from tests.notebook_runner import expect_parameter_error, run_chapter

CHAPTER = "03_stochastic_trees.ipynb"


def test_runs_with_non_default_parameters(tmp_path):
    nb = run_chapter(CHAPTER, tmp_path, seed=4, n=6, size=4, n_stochastic=1, target_depth=2, m=300, depth=2,
                     degree=1, eta_grid=[0.0, 0.1], repetitions=1, c_grid=[1, 3], lemma_draws=2,
                     benchmark_m=300, pair_repetitions=4, deep_depth=3)
    outputs = json.dumps([c.get("outputs", []) for c in nb["cells"]])
    assert '"output_type": "error"' not in outputs
    assert "rows are checks that can fail" in outputs  # the glued verification summary


@pytest.mark.parametrize("bad, name", [
    ({"eta_grid": [0.5]}, "eta_grid[0]"), ({"eta_grid": [-0.1]}, "eta_grid[0]"), ({"eta_grid": [0.0, 0.7]}, "eta_grid[1]"),
    ({"depth": -1}, "depth"), ({"degree": -1}, "degree"), ({"scale": "huge"}, "scale"),
    ({"n_stochastic": 8}, "n_stochastic"), ({"c_grid": [0]}, "c_grid[0]"),
    ({"pair_repetitions": 1}, "pair_repetitions"), ({"deep_depth": 9}, "deep_depth"),
])
def test_rejects_bad_parameters(tmp_path, bad, name):
    message = expect_parameter_error(CHAPTER, tmp_path, name, **bad)
    assert "must be" in message
