"""The appendix's multi-class FIND rows and ID3Classifier's memory row (issue 38, item 4)."""

import numpy as np
import pytest

from dtbook.experiments.performance import multiclass


def test_cases_and_targets():
    assert [c["dataset"] for c in multiclass.multiclass_cases("quick")] == ["wine"]
    assert [c["dataset"] for c in multiclass.multiclass_cases("full")] == ["wine", "digits"]
    assert all(c["target"] == multiclass.MULTICLASS_TARGET for c in multiclass.multiclass_cases("full"))
    assert multiclass.id3_memory_rows("full") == 50_000
    with pytest.raises(ValueError, match="scale"):
        multiclass.multiclass_cases("huge")


def test_wine_row_agrees_with_streed():
    bench = multiclass.multiclass_benchmark(multiclass.multiclass_cases("quick")[0], repetitions=1, seed=0,
                                            scale="quick")
    row = bench.row
    assert row["same_result"] == "yes" and row["deviation"] == 0
    assert row["benchmark"].startswith("FIND via OptimalTreeClassifier (3 classes")
    assert row["target"] == multiclass.MULTICLASS_TARGET and row["ratio_pinned"] > 0


def test_memory_row_measures_both_sides():
    df = multiclass.id3_memory(np.random.default_rng(0), rows=300, features=5)
    row = df.iloc[0]
    assert row["dtcore_peak_MB"] > 10 and row["peer_peak_MB"] > 10      # a whole process: imports included
    assert row["ratio"] == pytest.approx(row["dtcore_peak_MB"] / row["peer_peak_MB"])
    assert row["target_met"] == ("yes" if row["ratio"] <= 2 else "no")
