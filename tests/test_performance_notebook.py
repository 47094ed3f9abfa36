"""The performance appendix runs with tiny non-default parameters and rejects bad ones."""

import json

import pytest

from tests.notebook_runner import expect_parameter_error, run_chapter

APPENDIX = "appendix_performance.ipynb"


def test_runs_with_tiny_parameters(tmp_path):
    nb = run_chapter(APPENDIX, tmp_path, seed=2, repetitions=1, n_exact=8, exact_leaves=8, m_topdown=2000,
                     n_topdown=10, t_topdown=8, m_find=300, m_id3=1500, n_id3=12, m_id3_large=1500,
                     n_id3_large=10, local_sizes=[800], scale_rows=True, m_scale=3000)
    text = json.dumps(nb["cells"][-1]["outputs"])
    # compared with a peer: 2 TopDown_G + 4 FIND + 3 ID3 + 1 LocalLearner; self-consistent: the exact
    # BuildTopDownDT row and the two scale rows
    assert "the outputs agree in all 10 compared benchmark rows and 3 rows are self-consistent" in text


@pytest.mark.parametrize("bad, name", [({"scale": "huge"}, "scale"), ({"repetitions": 0}, "repetitions"),
                                       ({"exact_leaves": 1}, "exact_leaves"), ({"n_exact": 30}, "n_exact"),
                                       ({"local_sizes": [10]}, "local_sizes[0]"), ({"local_sizes": []}, "local_sizes"),
                                       ({"m_scale": 10}, "m_scale"), ({"scale_rows": "yes"}, "scale_rows")])
def test_rejects_bad_parameters(tmp_path, bad, name):
    message = expect_parameter_error(APPENDIX, tmp_path, name, **bad)
    assert "must" in message
