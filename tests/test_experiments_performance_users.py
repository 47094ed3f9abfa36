"""dtbook.experiments.performance.users at small size: row shape, agreement, floors, exponents."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from dtbook.experiments.performance import users as pu


def _is_row(df: pd.DataFrame, settings: int = 1) -> bool:
    return list(df.columns[: len(pu.ROW_COLUMNS)]) == list(pu.ROW_COLUMNS) and len(df) == settings


def test_find_on_binarised_breast_cancer_agrees_with_pystreed():
    X_real, Xb, y = pu.binarised_data("breast_cancer", cuts=2, rows=150)
    assert Xb.shape[0] == 150 and set(np.unique(Xb)) <= {0, 1} and Xb.shape[1] <= 60
    df = pu.find_vs_pystreed(Xb, y, depth=2, workload="FIND, breast cancer", repetitions=1,
                             thread_settings=(1, None))
    assert _is_row(df, 2) and (df["same_result"] == "yes").all() and (df["deviation"] == 0).all()
    assert df["threads"].tolist() == [1, "default"] and (df["ratio"] > 0).all() and df["floor_s"].isna().all()


def test_estimator_row_times_binarisation_and_agrees():
    X_real, _, y = pu.binarised_data("breast_cancer", cuts=2, rows=120)
    df = pu.estimator_vs_pystreed(X_real, y, depth=2, cuts=2, workload="OptimalTreeClassifier", repetitions=1)
    assert _is_row(df) and df["same_result"].iloc[0] == "yes" and "real" in df["size"].iloc[0]


def test_make_classification_needs_a_generator_and_is_reproducible():
    with pytest.raises(ValueError, match="rng"):
        pu.binarised_data("make_classification", cuts=2, rows=50)
    a = pu.binarised_data("make_classification", cuts=3, rows=60, rng=np.random.default_rng(1))
    b = pu.binarised_data("make_classification", cuts=3, rows=60, rng=np.random.default_rng(1))
    assert np.array_equal(a[1], b[1]) and a[1].shape == (60, 90)
    with pytest.raises(ValueError, match="dataset"):
        pu.binarised_data("iris", cuts=2)


def test_deep_find_row_on_boolean_data():
    X, y = pu.boolean_tree_data(rows=300, features=7, depth=5, noise=0.1, rng=np.random.default_rng(2))
    df = pu.find_vs_pystreed(X, y, depth=5, workload="FIND depth 5", repetitions=1)
    assert df["same_result"].iloc[0] == "yes"


def test_id3_row_agrees_with_sklearn_up_to_ties():
    X, y = pu.junta_data(rows=2000, features=12, noise=0.2, rng=np.random.default_rng(3))
    df = pu.id3_vs_sklearn(X, y, workload="ID3, 20% noise", repetitions=1)
    assert _is_row(df) and df["same_result"].iloc[0] == "yes" and "differences" in df["check"].iloc[0]


def test_buildtopdown_row_states_its_floor_and_matches_grow():
    df = pu.buildtopdown_vs_floor(9, leaves=24, repetitions=1, one_leaf_at_a_time=True)
    row = df.iloc[0]
    assert row["same_result"] == "yes" and row["floor_s"] > 0
    assert row["distance_to_floor"] == pytest.approx(row["ours_s"] / row["floor_s"])
    assert row["floor_bytes_per_level"] == 9 * 2**9 // 8
    alone = pu.buildtopdown_vs_floor(8, leaves=4, repetitions=1)
    assert np.isnan(alone["peer_s"].iloc[0]) and alone["same_result"].iloc[0] == "yes"


def test_fit_exponents_recovers_a_known_power_law():
    m, n = np.meshgrid([100, 400, 1600], [8, 16, 32])
    grid = pd.DataFrame({"m": m.ravel(), "n": n.ravel(), "d": 3})
    grid["seconds"] = 2e-6 * grid["m"] ** 1.0 * grid["n"] ** 2.5
    fit = pu.fit_exponents(grid, by="d").iloc[0]
    assert fit["rows_exponent"] == pytest.approx(1.0) and fit["features_exponent"] == pytest.approx(2.5)
    assert fit["r2_log"] == pytest.approx(1.0) and fit["at_1000x10"] == pytest.approx(2e-6 * 1000 * 10**2.5)
    with pytest.raises(ValueError, match="vary both"):
        pu.fit_exponents(grid[grid["n"] == 8])


def test_scale_grids_and_figure():
    rng = np.random.default_rng(4)
    find_grid = pu.find_scale_grid(rows=[200, 400], features=[6, 8], depths=[2, 3], repetitions=1, rng=rng)
    assert len(find_grid) == 8 and (find_grid["seconds"] > 0).all() and (find_grid["peak_bytes"] > 0).all()
    id3_grid = pu.id3_scale_grid(rows=[500, 1000], features=[8, 12], repetitions=1, rng=rng)
    assert len(id3_grid) == 4 and (id3_grid["leaves"] >= 1).all()
    assert set(pu.fit_exponents(find_grid, by="d")["d"]) == {2, 3}
    for grid, panels in ((find_grid, 4), (id3_grid, 2)):
        fig = pu.scale_figure(grid)
        assert isinstance(fig, Figure) and len(fig.axes) == panels
        plt.close(fig)


def test_peak_memory_sees_numpy_buffers():
    assert pu.peak_memory(lambda: np.ones(10**6)) >= 8 * 10**6
