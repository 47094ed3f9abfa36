"""dtcore.learnability.estimate_learnability: Est_G over a grid of sizes, labels counted, inputs checked."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dtcore.estimators import ThresholdBinarizer
from dtcore.learnability import estimate_learnability, hoeffding_halfwidth
from dtcore.local import LabelOracle, SharedDraws, top_down_size_estimate


def _target(rows) -> np.ndarray:
    rows = np.asarray(rows, dtype=float)
    return ((rows[:, 0] > 0.2) & (rows[:, 1] < 0.5) | (rows[:, 2] > 1.0)).astype(np.uint8)


def _data(seed: int = 0, N: int = 4000, n: int = 5, m_test: int = 200):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(N, n)), rng.normal(size=(m_test, n))


class CountingLabeller:
    """A label function that records every point it was asked to label."""

    def __init__(self, pool: np.ndarray) -> None:
        self.pool = pool
        self.calls = 0
        self.seen: list[np.ndarray] = []

    def __call__(self, rows):
        self.calls += 1
        rows = np.asarray(rows)
        self.seen.append(rows)
        return _target(rows)


def test_estimate_equals_test_error_of_the_full_tree_and_labels_are_few():
    pool, test_X = _data(1)
    labeller = CountingLabeller(pool)
    sizes = [8, 2, 4]
    table = estimate_learnability(pool, labeller, sizes, test_X, rng=np.random.default_rng(5),
                                  batch_size=16, n_thresholds=6)
    assert list(table["t"]) == [2, 4, 8]
    assert table["labels_new"].sum() == table["labels_total"].iloc[-1]
    assert table["labels_total"].iloc[-1] < pool.shape[0] // 2
    # test labels came from one call; pool labels: each pool point at most once
    assert table["test_labels"].iloc[0] == test_X.shape[0]
    assert labeller.calls == table["label_fn_calls"].iloc[-1]
    pool_rows = np.concatenate(labeller.seen[1:])
    assert pool_rows.shape[0] == table["labels_total"].iloc[-1]
    assert np.unique(pool_rows, axis=0).shape[0] == pool_rows.shape[0]
    # identity: Est equals the test error of TopDownSizeEstimate's tree built with every label
    binarizer = ThresholdBinarizer(6).fit(pool)
    Xb, Xb_test = binarizer.transform(pool), binarizer.transform(test_X)
    draws = SharedDraws.draw(pool.shape[0], Xb.shape[1], 16, rng=np.random.default_rng(5))
    y_test = _target(test_X)
    for row in table.itertuples():
        full = top_down_size_estimate(Xb, LabelOracle.from_labels(_target(pool)), size=row.t, batch_size=16, draws=draws)
        assert row.estimated_error == pytest.approx(np.mean(full.tree.predict(Xb_test) != y_test), abs=0)
        half = hoeffding_halfwidth(len(test_X), 0.05)
        assert row.ci_low == pytest.approx(max(0, row.estimated_error - half))
        assert row.ci_high == pytest.approx(min(1, row.estimated_error + half))


def test_dataframe_pool_and_given_test_labels():
    pool, test_X = _data(2, N=2000)
    cols = [f"f{i}" for i in range(pool.shape[1])]
    pool_df, test_df = pd.DataFrame(pool, columns=cols), pd.DataFrame(test_X, columns=cols)
    got_types = []

    def label_fn(rows):
        got_types.append(type(rows))
        return _target(rows.to_numpy()).astype(bool)

    table = estimate_learnability(pool_df, label_fn, [4], test_df, _target(test_X),
                                  rng=np.random.default_rng(0), batch_size=8)
    assert set(got_types) == {pd.DataFrame}
    assert table["test_labels"].iloc[0] == 0
    same = estimate_learnability(pool, lambda r: _target(r), [4], test_X, _target(test_X),
                                 rng=np.random.default_rng(0), batch_size=8)
    pd.testing.assert_frame_equal(table, same)


@pytest.mark.parametrize("name, kwargs", [
    ("pool", {"pool": np.zeros(5)}), ("pool", {"pool": np.full((5, 2), np.nan)}),
    ("label_fn", {"label_fn": 3}), ("sizes", {"sizes": []}), ("sizes", {"sizes": [0, 2]}),
    ("sizes", {"sizes": [2, 2]}), ("sizes", {"sizes": 4}), ("test_X", {"test_X": np.zeros((4, 3))}),
    ("test_y", {"test_y": np.array([0, 2] * 10)}), ("test_y", {"test_y": np.zeros(3)}),
    ("rng", {"rng": 0}), ("batch_size", {"batch_size": 0}), ("n_strands", {"n_strands": 0}),
    ("impurity", {"impurity": "mse"}), ("weighting", {"weighting": "w"}),
    ("n_thresholds", {"n_thresholds": 0}), ("delta", {"delta": 1.0}),
    ("label_fn", {"label_fn": lambda rows: np.full(len(rows), 3)}),
])
def test_every_argument_validated(name, kwargs):
    rng = np.random.default_rng(0)
    args = {"pool": rng.normal(size=(50, 2)), "label_fn": lambda r: (r[:, 0] > 0).astype(int),
            "sizes": [2], "test_X": rng.normal(size=(20, 2)), "test_y": None, "rng": rng}
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        estimate_learnability(**args)
