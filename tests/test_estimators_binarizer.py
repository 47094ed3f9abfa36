"""dtcore.estimators.ThresholdBinarizer: the vectorised fit learns the same features, to the last bit,
as the rule stated one column at a time (kept here as the reference), and the estimators' leaf class
totals are the sums the node-path product gives."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_classification

from dtcore.estimators import OptimalTreeClassifier, ThresholdBinarizer, TopDownClassifier
from dtcore.multiclass import class_weights


# --- the reference: the rule of the module docstring, one column at a time ---------------------------

def reference_column_cuts(column: np.ndarray, weight: np.ndarray, n_thresholds: int | None) -> np.ndarray:
    """Cut points of one real column; weight > 0 on every entry."""
    values, inverse = np.unique(column, return_inverse=True)
    if values.size < 2:
        return np.zeros(0)
    mids = 0.5 * (values[:-1] + values[1:])
    if n_thresholds is None or values.size - 1 <= n_thresholds:
        return mids
    # weighted inverted-CDF quantiles: the first distinct value whose cumulative weight reaches q
    cum = np.cumsum(np.bincount(inverse, weights=weight, minlength=values.size))
    levels = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
    at = np.searchsorted(cum, levels * cum[-1], side="left")
    at = np.unique(np.minimum(at, values.size - 1))
    at = at[at < values.size - 1]  # no cut above the largest value
    return mids[at]


def reference_features(X: np.ndarray, sample_weight: np.ndarray | None,
                       n_thresholds: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(columns, cuts, passthrough, missing) by the per-column rule."""
    X = np.asarray(X, dtype=np.float64)
    weight = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, np.float64)
    keep = weight > 0
    Xk, wk = X[keep], weight[keep]
    columns, cuts, passthrough, missing = [], [], [], []
    for j in range(X.shape[1]):
        col = Xk[:, j]
        seen = ~np.isnan(col)
        col, w = col[seen], wk[seen]
        if col.size and np.isin(col, (0.0, 1.0)).all():
            c, through = np.array([0.5]), True
        else:
            c, through = reference_column_cuts(col, w, n_thresholds), False
        columns += [j] * c.size
        cuts += c.tolist()
        passthrough += [through] * c.size
        missing += [False] * c.size
        if not seen.all():
            columns.append(j)
            cuts.append(np.nan)
            passthrough.append(False)
            missing.append(True)
    if not columns:
        columns, cuts, passthrough, missing = [0], [np.inf], [False], [False]
    return (np.asarray(columns, dtype=np.int64), np.asarray(cuts, dtype=np.float64),
            np.asarray(passthrough, dtype=bool), np.asarray(missing, dtype=bool))


def assert_same_features(X: np.ndarray, weight: np.ndarray | None, n_thresholds: int | None) -> None:
    got = ThresholdBinarizer(n_thresholds).fit(X, weight)
    columns, cuts, passthrough, missing = reference_features(X, weight, n_thresholds)
    assert got.columns.dtype == np.int64 and np.array_equal(got.columns, columns)
    assert got.cuts.dtype == np.float64 and got.cuts.shape == cuts.shape
    # bit for bit: the same float64 words (NaN marks an indicator, +inf the constant feature)
    assert np.array_equal(got.cuts.view(np.uint64), cuts.view(np.uint64))
    assert got.passthrough.dtype == bool and np.array_equal(got.passthrough, passthrough)
    assert got.missing.dtype == bool and np.array_equal(got.missing, missing)


# --- the data --------------------------------------------------------------------------------------

def _mixed(seed: int, rows: int = 600) -> np.ndarray:
    """Rounded (tied) reals with NaN, 0/1 columns (one with NaN, one all 0), an all-NaN column, a
    constant column, signed zeros and a column with a few distinct values."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(rows, 12)), 1)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 1] = rng.integers(0, 2, rows)
    X[:, 2] = rng.integers(0, 2, rows)
    X[rng.random(rows) < 0.2, 2] = np.nan
    X[:, 3] = 0.0
    X[:, 4] = np.nan
    X[:, 5] = 7.0
    X[:, 6] = np.where(rng.random(rows) < 0.5, -0.0, 0.0)
    X[::3, 6] = 2.5
    X[:, 7] = rng.integers(0, 4, rows) * 0.5
    X[:, 8] = rng.integers(0, 3, rows)  # 0, 1, 2: not a 0/1 column
    return X


DATA = {
    "breast cancer": lambda: load_breast_cancer(return_X_y=True)[0],
    "make_classification": lambda: make_classification(n_samples=3000, n_features=30, random_state=0)[0],
    "NaN, 0/1 columns, ties": lambda: _mixed(0),
    "few rows": lambda: _mixed(1, rows=7),
    "one row": lambda: _mixed(2, rows=1),
    "constant": lambda: np.full((5, 3), 7.0),
}


def _weights(kind: str, rows: int, seed: int) -> np.ndarray | None:
    rng = np.random.default_rng(seed)
    if kind == "none":
        return None
    if kind == "integer":  # with zeros: absent rows
        return rng.integers(0, 4, rows).astype(float)
    w = rng.exponential(size=rows)  # real weights: their sums round, so the order of the additions shows
    w[rng.random(rows) < 0.1] = 0.0
    if not (w > 0).any():
        w[0] = 1.0
    return w


@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.parametrize("weights", ["none", "integer", "real"])
def test_vectorised_fit_equals_the_per_column_rule(data, weights):
    X = DATA[data]()
    w = _weights(weights, X.shape[0], seed=len(data))
    if w is not None and not (w > 0).any():
        w[0] = 1.0
    for n_thresholds in (1, 2, 3, 4, 8, 16, 255, None):
        assert_same_features(X, w, n_thresholds)


def test_real_weights_meeting_a_level_exactly_pick_the_same_cut():
    # cumulative weights that land on a level (0.1 + 0.2 + ... in floating point) are where a
    # different order of the additions would move a cut
    X = np.repeat(np.arange(10.0), 3)[:, None] * np.ones((1, 4))
    for w in (np.full(30, 0.1), np.tile([0.1, 0.2, 0.3], 10), np.tile([0.3, 0.2, 0.1], 10)):
        for n_thresholds in range(1, 9):
            assert_same_features(X, w, n_thresholds)


def test_transform_is_the_threshold_rule():
    X = _mixed(3)
    b = ThresholdBinarizer(6).fit(X)
    expected = np.where(b.missing, np.isnan(X[:, b.columns]), X[:, b.columns] > b.cuts).astype(np.uint8)
    assert np.array_equal(b.transform(X), expected)
    Y = _mixed(4, rows=5000)  # several steps of rows
    expected = np.where(b.missing, np.isnan(Y[:, b.columns]), Y[:, b.columns] > b.cuts).astype(np.uint8)
    assert np.array_equal(b.transform(Y), expected)


@pytest.mark.parametrize("make", [lambda: OptimalTreeClassifier(max_depth=2, n_thresholds=4),
                                  lambda: TopDownClassifier(max_leaf_nodes=6, n_thresholds=8)])
def test_node_class_totals_are_the_path_product(make):
    X, y = make_classification(n_samples=500, n_features=6, n_classes=3, n_informative=4, random_state=1)
    w = np.random.default_rng(0).exponential(size=500)
    for weight in (None, w):
        clf = make().fit(X, y, sample_weight=weight)
        path = clf.decision_path(X)
        expected = np.asarray(path.T @ class_weights(np.searchsorted(clf.classes_, y), clf.n_classes_, weight))
        for node in clf._top_down_order():  # an empty node takes its parent's totals
            for child in (clf.tree_.child0[node], clf.tree_.child1[node]):
                if child >= 0 and expected[child].sum() <= 0:
                    expected[child] = expected[node]
        assert np.array_equal(clf.tree_value_, expected)


def test_tree_names_its_features_on_first_use():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    clf = OptimalTreeClassifier(max_depth=2, n_thresholds=4).fit(X, y)
    assert clf.tree_.feature_names == clf.binarizer_.feature_names
    assert clf.tree_.feature_names[0].startswith("mean radius > ")


def test_plain_arrays_take_the_short_validation_with_scikit_learns_bookkeeping():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    clf = OptimalTreeClassifier(max_depth=2, n_thresholds=4).fit(X, y)
    assert list(clf.feature_names_in_) == list(X.columns)
    splits_from_frame = list(clf.tree_.feature)
    clf.fit(X.to_numpy(), y.to_numpy())  # a plain array: no column names any more
    assert not hasattr(clf, "feature_names_in_") and clf.n_features_in_ == 30
    assert list(clf.tree_.feature) == splits_from_frame and clf.tree_.feature_names[0].startswith("x0 > ")
    for X_as in (X.to_numpy(np.float32), X.to_numpy() > 10, X.to_numpy().astype(np.int64)):
        plain = OptimalTreeClassifier(max_depth=1, n_thresholds=4).fit(X_as, y.to_numpy())
        checked = OptimalTreeClassifier(max_depth=1, n_thresholds=4).fit(list(map(list, X_as)), list(y))
        assert np.array_equal(plain.binarizer_.cuts, checked.binarizer_.cuts, equal_nan=True)
        assert plain.tree_.to_text() == checked.tree_.to_text()
    bad = X.to_numpy().copy()
    bad[3, 4] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        OptimalTreeClassifier().fit(bad, y.to_numpy())
    with pytest.raises(ValueError, match="Unknown label type"):
        OptimalTreeClassifier().fit(X.to_numpy(), np.linspace(0, 1, len(y)))


def test_packed_transform_and_single_values_match_the_matrix():
    """ThresholdBinarizer.transform_packed is transform's matrix, rows in the given order, bit-packed
    64 features to a word; values reads the same bits one (row, feature) pair at a time, with missing
    values and their indicators."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 7))
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 2] = rng.integers(0, 2, 300)                      # a 0/1 column passes through
    binarizer = ThresholdBinarizer(40).fit(X)
    dense = binarizer.transform(X)
    order = rng.permutation(300)
    packed = binarizer.transform_packed(X, order).view(np.uint8)
    bits = np.unpackbits(packed, axis=1, bitorder="little")[:, :binarizer.n_features]
    assert np.array_equal(bits, dense[order])
    rows = rng.integers(0, 300, 500)
    features = rng.integers(0, binarizer.n_features, 500)
    assert np.array_equal(binarizer.values(X, rows, features), dense[rows, features])
