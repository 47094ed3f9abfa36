"""scikit-learn estimators for dtcore's learners: TopDown_G, MiniBatchTopDown_G, ID3 and FIND.

Each estimator is a ``BaseEstimator`` + ``ClassifierMixin`` for any number of classes. It works in a
``Pipeline``, ``cross_val_score`` and ``GridSearchCV``, takes ``sample_weight``, accepts missing
values (NaN), keeps DataFrame column names (``feature_names_in_``) and string labels, and exposes the
learned :class:`~dtcore.tree.DecisionTree` as ``tree_`` with scikit-learn's fitted-tree API:
``predict_proba``, ``apply``, ``decision_path``, ``get_depth``, ``get_n_leaves`` and
``feature_importances_``; :mod:`dtcore.export` prints (``export_text``) and draws (``plot_tree``) it.

**Binarisation.** The papers' learners read points of the Boolean cube {0,1}^n, so ``fit`` first
*binarises* the features with thresholds learned from the training X (no labels are used):

* a column whose training values are all 0 or 1 is used as is (one Boolean feature, ``x_j``);
* any other column j with distinct training values v_1 < ... < v_k gets Boolean features
  ``x_j > c`` for cut points c halfway between consecutive distinct values (the cut points CART
  considers). With ``n_thresholds=None`` every one of the k - 1 cut points is used; otherwise at most
  ``n_thresholds``: for the levels q = 1/(n_thresholds + 1), ..., n_thresholds/(n_thresholds + 1)
  the cut just above the (weighted, inverted-CDF) q-quantile of the column, without repeats.
  A cut above the largest value is never made, so no Boolean feature is constant on the sample.
  The greedy learners default to 255 cuts per column (as histogram gradient boosting bins), FIND,
  whose cost grows as n^d, to 8. A binarised training matrix larger than :data:`MAX_BINARY_CELLS`
  bytes (e.g. ``n_thresholds=None`` on 50,000 rows of continuous data) is refused with a
  ``ValueError`` before it is built.

Only training points with positive ``sample_weight`` (all points when no weight is given) define the
thresholds, and a weight of 2 acts as a repeated point, so weighting and duplicating agree.

**Missing values.** A column with NaN in training gets one more Boolean feature, ``x_j is missing``,
and a NaN is 0 in every threshold feature of its column; the learner then decides where missing
values go by splitting on the indicator (or sends them with the ``x_j <= c`` side). A NaN at predict
time in a column that had none in training goes, at each test of that column, to the child that
more training weight reached (ties: the ``<= c`` child), scikit-learn's rule for that case.

**Which learner runs.** On two classes without ``sample_weight`` the estimators call the papers'
kernels (:func:`dtcore.topdown.top_down`, :func:`~dtcore.topdown.minibatch_top_down`,
:func:`dtcore.id3.id3`, :func:`dtcore.find.find`, which also takes weights) unchanged. With three
or more classes, or weights for the greedy learners, they call :mod:`dtcore.multiclass`, which
builds the same trees on 0/1 labels with unit weights (k-class Gini/entropy for the greedy
learners, least k-class misclassification for FIND).

**Probabilities and labels.** Every node stores the weighted class totals of the training points
that reach it (``tree_value_``, one row per node of ``tree_``; an empty node takes its parent's).
``predict_proba`` is the leaf's training class proportions, as scikit-learn's tree computes it, and
``predict`` its most frequent class (ties: the first in ``classes_``). This is the learner's own
leaf label except on exact ties and for MiniBatchTopDown_G, which labels a leaf by its minibatch.

Example
-------
>>> import numpy as np
>>> from sklearn.model_selection import cross_val_score
>>> from dtcore.estimators import OptimalTreeClassifier
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(200, 3))
>>> y = np.where((X[:, 0] > 0) & (X[:, 1] > 0.5), "yes", "no")
>>> clf = OptimalTreeClassifier(max_depth=2, n_thresholds=8).fit(X, y)
>>> clf.classes_.tolist()
['no', 'yes']
>>> float(clf.score(X, y)) > 0.95
True
>>> float(cross_val_score(clf, X, y, cv=3).mean()) > 0.9
True
>>> proba = clf.predict_proba(X)  # training class proportions of each leaf
>>> bool(np.allclose(proba.sum(axis=1), 1.0))
True
"""

from __future__ import annotations

import numbers
from typing import Any
import textwrap
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from scipy.sparse import csr_matrix
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .find import find, find_subproblems
from .id3 import id3, id3_packed, label_order
from .impurity import IMPURITIES
from .grow import grow
from .multiclass import (_check_inputs, _WeightedScorer, impurity_k, multiclass_find, weighted_id3,
                         weighted_minibatch_top_down, weighted_top_down)
from .topdown import WEIGHTINGS, TopDownScorer, minibatch_top_down, top_down
from .tree import DecisionTree
from .validate import check_budget, check_choice

__all__ = ["ThresholdBinarizer", "TopDownClassifier", "ID3Classifier", "OptimalTreeClassifier"]


# --- binarisation ------------------------------------------------------------------------------

#: the largest binarised matrix (rows x Boolean features, one byte each) a fit may build
MAX_BINARY_CELLS = 1 << 30
_TRANSFORM_CELLS = 1 << 16  # values compared per step of transform: the step's copy of them stays in cache
_PACK_CELLS = 1 << 20       # Boolean cells of one block of transform_packed (1 MB of uint8 before packing)


def _check_n_thresholds(n_thresholds: object) -> int | None:
    if n_thresholds is None:
        return None
    if isinstance(n_thresholds, bool) or not isinstance(n_thresholds, numbers.Integral) or n_thresholds < 1:
        raise ValueError(f"n_thresholds must be None or an integer >= 1, got {n_thresholds!r}")
    return int(n_thresholds)


def _learn_features(XT: np.ndarray, weight: np.ndarray | None,
                    n_thresholds: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(columns, cuts, passthrough, missing) of the Boolean features of ``XT``, one row per input
    column (see the module docstring), found for all columns at once from one sort of each column.

    ``weight``: one positive weight per entry of a row, or None for unit weights. A column's
    cumulative weights are summed one distinct value at a time, each value's weights in the order of
    the rows, as the rule is stated, so that weighted cuts do not depend on how the work is laid out.
    """
    n, m = XT.shape
    if weight is not None and n_thresholds is not None:  # the order sends each row's weight to its value
        order = np.argsort(XT, axis=1)
        S = np.take_along_axis(XT, order, axis=1)
    else:
        S = np.sort(XT, axis=1)
    has_nan = np.isnan(S[:, -1])  # NaN sorts last
    # the runs of equal values among each column's sorted non-missing entries
    start = np.empty((n, m), dtype=bool)
    start[:, 0] = True
    np.not_equal(S[:, 1:], S[:, :-1], out=start[:, 1:])
    if has_nan.any():
        seen = m - np.count_nonzero(np.isnan(S), axis=1)  # non-missing values per column
        start &= np.arange(m) < seen[:, None]
    else:
        seen = np.full(n, m)
    distinct = np.count_nonzero(start, axis=1)
    values = S[start]  # each column's distinct values, ascending, one column after another
    first = np.cumsum(distinct) - distinct  # where each column's distinct values begin in ``values``
    # a column whose values are all 0 or 1 is one Boolean feature as it is
    binary = np.flatnonzero(distinct <= 2)
    if binary.size:
        low, high = S[binary, 0], S[binary, np.maximum(seen[binary] - 1, 0)]
        binary = binary[(seen[binary] > 0) & ((low == 0.0) | (low == 1.0)) & ((high == 0.0) | (high == 1.0))]
    # the midpoint between distinct values g and g + 1 of column j is mids[first[j] + g]; a spare last
    # entry keeps the index of a column without midpoints valid
    mids = np.append(0.5 * (values[:-1] + values[1:]), np.nan)
    n_mids = np.maximum(distinct - 1, 0)

    # slot[j, q]: the midpoint of column j that is its q-th cut. A column with at most n_thresholds
    # midpoints takes them all; any other, the midpoint just above its quantile at each level
    width = max(int(n_mids.max(initial=0)) if n_thresholds is None else n_thresholds, 1)
    slot = np.empty((n, width), dtype=np.int64)
    slot[:] = np.arange(width)
    thin = np.flatnonzero(n_mids > width)  # none when n_thresholds is None
    if thin.size:
        levels = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
        run = np.cumsum(start, axis=1)  # 1 + the rank of the distinct value at each sorted position
        if weight is None:
            # unit weights: the cumulative weight through a distinct value is the end of its run + 1,
            # so the first value whose weight reaches level * seen is the one at position ceil(.) - 1
            # (in [0, seen - 1], as 0 < level < 1)
            at = np.ceil(levels * seen[thin, None]).astype(np.int64) - 1
            slot[thin] = run[thin[:, None], at] - 1
        else:
            slot[thin] = _weighted_quantile_values(order, run - 1, seen, weight, distinct, first, thin, levels)
    keep = slot < n_mids[:, None]  # no cut above the largest value
    keep[:, 1:] &= slot[:, 1:] != slot[:, :-1]  # levels that meet on one distinct value give one cut
    cut = mids[np.minimum(first[:, None] + slot, mids.size - 1)]
    keep[binary] = False
    keep[binary, 0] = True
    cut[binary, 0] = 0.5
    if has_nan.any():  # a column's missing-value indicator is its last feature, cut NaN
        keep = np.concatenate([keep, has_nan[:, None]], axis=1)
        cut = np.concatenate([cut, np.full((n, 1), np.nan)], axis=1)
    columns, slots = np.nonzero(keep)
    missing = slots == width
    is_binary = np.zeros(n, dtype=bool)
    is_binary[binary] = True
    passthrough = is_binary[columns] & ~missing
    return columns, cut[keep], passthrough, missing


def _weighted_quantile_values(order: np.ndarray, run: np.ndarray, seen: np.ndarray, weight: np.ndarray,
                              distinct: np.ndarray, first: np.ndarray, thin: np.ndarray,
                              levels: np.ndarray) -> np.ndarray:
    """For each column in ``thin`` and each level: the rank of the first distinct value whose cumulative
    weight reaches level x the column's total weight (``np.searchsorted(cum, levels * cum[-1])``)."""
    n, m = run.shape
    total = int(distinct.sum())
    group = np.where(np.arange(m) < seen[:, None], first[:, None] + run, total)  # missing: a spare bin
    in_row_order = np.empty_like(group)
    np.put_along_axis(in_row_order, order, group, axis=1)
    # bincount adds the weights of a bin one at a time in the order given: the rows' order
    sums = np.bincount(in_row_order.ravel(), weights=np.tile(weight, n), minlength=total + 1)[:total]
    widest = int(distinct.max())
    per_value = np.zeros((n, widest))
    column_of = np.repeat(np.arange(n), distinct)
    per_value[column_of, np.arange(total) - first[column_of]] = sums
    cum = np.cumsum(per_value, axis=1)  # one addition at a time, left to right
    target = levels * cum[thin, distinct[thin] - 1][:, None]
    # one searchsorted for every column: keys ordered by (column, cumulative weight) as complex numbers,
    # which NumPy orders lexicographically; +inf after a column's last distinct value
    keys = np.empty((n, widest), dtype=np.complex128)
    keys.real = np.arange(n)[:, None]
    keys.imag = np.where(np.arange(widest) < distinct[:, None], cum, np.inf)
    wanted = np.empty(target.shape, dtype=np.complex128)
    wanted.real = thin[:, None]
    wanted.imag = target
    found = np.searchsorted(keys.ravel(), wanted.ravel(), side="left").reshape(target.shape)
    return found - (thin * widest)[:, None]


class ThresholdBinarizer:
    """Boolean features ``x_j > c`` (and ``x_j is missing``) learned on a training matrix (no labels used).

    See :mod:`dtcore.estimators` for the rule. Boolean feature k is ``X[:, columns[k]] > cuts[k]``
    (False for a missing value); ``passthrough[k]`` marks a 0/1 column used as is and ``missing[k]``
    a missing-value indicator, ``isnan(X[:, columns[k]])``, made for every column with NaN in training.

    Parameters
    ----------
    n_thresholds : int or None, default=16
        At most this many quantile cut points per real-valued column; None: every midpoint.
    """

    def __init__(self, n_thresholds: int | None = 16) -> None:
        self.n_thresholds = _check_n_thresholds(n_thresholds)

    def fit(self, X: np.ndarray, sample_weight: np.ndarray | None = None,
            feature_names: list[str] | None = None) -> "ThresholdBinarizer":
        """Learn the cut points of every column of ``X`` from the rows of positive weight.

        Parameters
        ----------
        X : array of shape (m, p)
            Real values; NaN marks a missing value (infinities are refused by the estimators).
        sample_weight : array of shape (m,), optional
            Non-negative weights (a weight of 2 acts as a repeated row, 0 as an absent one).
        feature_names : list of str, optional
            Names of the p columns (default ``x0, x1, ...``).

        Returns
        -------
        ThresholdBinarizer
            self.

        Raises
        ------
        ValueError
            When the binarised training matrix would exceed :data:`MAX_BINARY_CELLS` bytes (for
            instance ``n_thresholds=None`` on many rows of continuous data).
        """
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] < 1:
            raise ValueError(f"X must be a 2-D array with at least one row, got shape {X.shape}")
        weight = None
        if sample_weight is not None:
            weight = np.asarray(sample_weight, np.float64)
            keep = weight > 0
            if not keep.any():
                raise ValueError("sample_weight must have at least one positive entry")
            if not keep.all():
                X, weight = X[keep], weight[keep]
        self.n_input = X.shape[1]
        self._input_names = None if feature_names is None else list(feature_names)
        columns, cuts, passthrough, missing = _learn_features(np.ascontiguousarray(X.T), weight, self.n_thresholds)
        if not columns.size:  # every column constant: one constant-0 feature keeps the tree well defined
            columns, cuts, passthrough, missing = np.zeros(1, np.int64), np.array([np.inf]), np.zeros(1, bool), np.zeros(1, bool)
        cells = X.shape[0] * columns.size
        if cells > MAX_BINARY_CELLS:
            raise ValueError(
                f"n_thresholds={self.n_thresholds!r} gives {columns.size} Boolean features on {X.shape[0]} "
                f"rows, a {cells / 2**30:.1f} GiB binary matrix (the limit is {MAX_BINARY_CELLS / 2**30:.0f} GiB "
                f"= dtcore.estimators.MAX_BINARY_CELLS); pass an integer n_thresholds, e.g. 255")
        self.columns = columns.astype(np.int64)
        self.cuts = cuts
        self.passthrough = passthrough
        self.missing = missing
        self.missing_columns = self.columns[self.missing]  # one indicator per column, in column order
        return self

    @property
    def n_features(self) -> int:
        """Number of Boolean features."""
        return int(self.columns.size)

    @property
    def input_names(self) -> list[str]:
        """The names of the input columns (``x0, x1, ...`` unless ``fit`` was given names)."""
        given = self._input_names
        return list(given) if given is not None else [f"x{j}" for j in range(self.n_input)]

    def feature_name(self, k: int, decimals: int = 4) -> str:
        """The readable test of Boolean feature k: ``name``, ``name > cut`` or ``name is missing``.

        Parameters
        ----------
        k : int
            The Boolean feature's index.
        decimals : int, default=4
            Significant digits of the cut.

        Returns
        -------
        str
        """
        j = int(self.columns[k])
        name = self._input_names[j] if self._input_names is not None else f"x{j}"
        if self.missing[k]:
            return f"{name} is missing"
        return name if self.passthrough[k] else f"{name} > {self.cuts[k]:.{decimals}g}"

    @property
    def feature_names(self) -> list[str]:
        """A readable name per Boolean feature: ``name`` for a 0/1 column, ``name > cut`` or
        ``name is missing`` otherwise."""
        return [self.feature_name(k) for k in range(self.n_features)]

    def _check(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_input:
            raise ValueError(f"X must have shape (m, {self.n_input}), got {X.shape}")
        return X

    def transform(self, X: np.ndarray) -> np.ndarray:
        """The Boolean features of ``X``, built a block of rows at a time.

        A missing value is 1 in its column's indicator and 0 in every threshold feature.

        Parameters
        ----------
        X : array of shape (m, p)
            Real values, NaN for a missing one.

        Returns
        -------
        ndarray of shape (m, n_features), uint8
        """
        X = self._check(X)
        out = np.empty((X.shape[0], self.n_features), dtype=np.uint8)
        indicator = np.flatnonzero(self.missing)
        indicator_columns = self.columns[indicator]
        # x > c is False for a missing x and for an indicator's cut (NaN): indicators are set after
        step = max(1, _TRANSFORM_CELLS // self.n_features)  # rows per step: the step's values stay in cache
        for s in range(0, X.shape[0], step):
            rows = X[s:s + step]
            np.greater(rows.take(self.columns, axis=1), self.cuts, out=out[s:s + step])
            if indicator.size:
                out[s:s + step, indicator] = np.isnan(rows.take(indicator_columns, axis=1))
        return out

    def transform_packed(self, X: np.ndarray, order: np.ndarray) -> np.ndarray:
        """The Boolean features of the rows ``X[order]``, bit-packed 64 to a uint64 word (feature f is
        bit f % 64 of word f // 64, :func:`dtcore.id3.id3_packed`'s layout), built a block of rows at
        a time: an eighth of :meth:`transform`'s bytes, and the (m, n_features) matrix is never made.

        Parameters
        ----------
        X : array of shape (m, p)
            Real values, NaN for a missing one.
        order : array of int
            The rows to take, in order.

        Returns
        -------
        ndarray of shape (order.size, ceil(n_features / 64)), uint64
        """
        X = self._check(X)
        n = self.n_features
        out = np.zeros((order.size, 8 * -(-n // 64)), dtype=np.uint8)
        step = max(1, _PACK_CELLS // n)
        for s in range(0, order.size, step):  # loop over blocks of rows; NumPy body
            out[s:s + step, : -(-n // 8)] = np.packbits(self.transform(X[order[s:s + step]]), axis=1,
                                                         bitorder="little")
        return out.view(np.uint64)

    def values(self, X: np.ndarray, rows: np.ndarray, features: np.ndarray) -> np.ndarray:
        """Boolean feature ``features[r]`` of row ``rows[r]`` of ``X`` for every r, as :meth:`transform`
        would give it, without the whole matrix.

        Parameters
        ----------
        X : array of shape (m, p)
            Real values, NaN for a missing one (validated by the caller).
        rows, features : arrays of int of one shape
            The (row, Boolean feature) pairs to read.

        Returns
        -------
        ndarray of uint8, the shape of ``rows``
        """
        x = X[rows, self.columns[features]]
        with np.errstate(invalid="ignore"):
            return np.where(self.missing[features], np.isnan(x), x > self.cuts[features]).astype(np.uint8)

    def unseen_missing(self, X: np.ndarray) -> np.ndarray | None:
        """Where a missing value meets a column that had none in training.

        Parameters
        ----------
        X : array of shape (m, p)
            Real values, NaN for a missing one.

        Returns
        -------
        ndarray of shape (m, n_features), bool, or None
            True where the row's value of the feature's column is missing and the column had no
            missing value in training; None when there is no such value.
        """
        X = self._check(X)
        nan = np.isnan(X)
        if self.missing_columns.size:
            nan[:, self.missing_columns] = False
        if not nan.any():
            return None
        return nan[:, self.columns]


class _BinaryView:
    """The Boolean features of a real matrix as :meth:`ThresholdBinarizer.transform` gives them, read
    one (row, feature) pair at a time (``view[rows, features]``), so the matrix is never made."""

    def __init__(self, binarizer: ThresholdBinarizer, X: np.ndarray) -> None:
        self.binarizer, self.X = binarizer, X
        self.shape = (X.shape[0], binarizer.n_features)

    def __getitem__(self, index: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        rows, features = index
        return self.binarizer.values(self.X, np.asarray(rows), np.asarray(features))


# --- the shared estimator machinery --------------------------------------------------------------

def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    check_choice(name, value, allowed)
    return value


def _check_int_param(name: str, value: object, low: int, allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        allowed = f"an integer >= {low}" + (" or None" if allow_none else "")
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return int(value)


def _check_ccp_alpha(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value < np.inf:
        raise ValueError(f"ccp_alpha must be a real number >= 0, got {value!r}")
    return float(value)


def _check_leaf_limits(min_samples_leaf: object, min_weight_fraction_leaf: object) -> None:
    _check_int_param("min_samples_leaf", min_samples_leaf, 1)
    f = min_weight_fraction_leaf
    if isinstance(f, bool) or not isinstance(f, numbers.Real) or not 0 <= f <= 0.5:
        raise ValueError(f"min_weight_fraction_leaf must be a real number in [0, 0.5], got {f!r}")


def _check_class_weight(value: object) -> None:
    if not (value is None or value == "balanced" or isinstance(value, dict)):
        raise ValueError(f"class_weight must be None, 'balanced' or a dict {{class: weight}}, got {value!r}")


def _fit_doc(owner: str, *, action: str, labels: str, weights: str) -> str:
    """The docstring of ``owner.fit``: the three estimators' fits differ only in what they run and
    in what a label and a weight mean to them."""
    weights = textwrap.fill(weights, width=96, initial_indent=" " * 4, subsequent_indent=" " * 4)
    return f"""Binarise X and {action}.

Parameters
----------
X : array-like or DataFrame of shape (m, p)
    Training samples; NaN marks a missing value.
y : array-like of shape (m,)
    Class labels ({labels}).
sample_weight : array-like of shape (m,), optional
{weights}

Returns
-------
{owner}
    self.
"""


class _DepthCapped:
    """A scorer (:mod:`dtcore.grow`) whose leaves at depth ``max_depth`` are never split: the growth
    loop then splits the best of the other leaves, as scikit-learn's best-first tree does with
    ``max_leaf_nodes`` and ``max_depth``. States are (the scorer's state, its depth)."""

    def __init__(self, scorer: Any, max_depth: int) -> None:
        self.scorer, self.max_depth = scorer, max_depth

    def root(self):
        return self.scorer.root(), 0

    def label(self, state) -> float:
        return self.scorer.label(state[0])

    def best_split(self, state):
        return None if state[1] >= self.max_depth else self.scorer.best_split(state[0])

    def children(self, state, feature: int):
        s0, s1 = self.scorer.children(state[0], feature)
        return (s0, state[1] + 1), (s1, state[1] + 1)


class FittedTree:
    """A fitted estimator's tree in scikit-learn's layout (``clf.tree_``), over the input columns.

    Arrays of length ``node_count``, as ``sklearn.tree.DecisionTreeClassifier().tree_`` has them:
    ``feature`` (input column tested, -2 at a leaf), ``threshold`` (the sample goes left when its
    value is ``<= threshold``; 0.5 for a 0/1 column used as is; NaN for a split on a column's
    missing-value indicator, whose left child is "not missing"; -2 at a leaf), ``children_left`` /
    ``children_right`` (-1 at a leaf), ``value`` (shape (node_count, 1, n_classes): the weighted
    training class proportions, as scikit-learn >= 1.4 stores them), ``weighted_n_node_samples``,
    ``n_node_samples``, ``impurity`` (scikit-learn's Gini 1 - sum p^2), ``max_depth``,
    ``n_leaves``, ``n_outputs`` and ``n_classes``. ``binary_feature`` is the Boolean feature of
    each node (-1 at a leaf), an index into ``boolean.feature_names``.

    Everything else (``size``, ``depth``, ``child0``, ``feature_names``, ``to_text``, ``print``)
    is the :class:`~dtcore.tree.DecisionTree` over the Boolean features, ``boolean``
    (also ``clf.boolean_tree_``), whose ``feature`` and ``value`` are the Boolean feature index
    and the learner's leaf label.
    """

    def __init__(self, boolean: DecisionTree, binarizer: "ThresholdBinarizer", value: np.ndarray,
                 counts: np.ndarray) -> None:
        self.boolean = boolean
        f = np.asarray(boolean.feature, dtype=np.int64)
        inner = f >= 0
        k = np.where(inner, f, 0)
        self.node_count = int(f.size)
        self.binary_feature = np.where(inner, f, -1)
        self.feature = np.where(inner, binarizer.columns[k], -2).astype(np.int64)
        cut = np.where(binarizer.missing[k], np.nan, np.where(binarizer.passthrough[k], 0.5, binarizer.cuts[k]))
        self.threshold = np.where(inner, cut, -2.0).astype(np.float64)
        self.children_left = np.where(inner, np.asarray(boolean.child0), -1).astype(np.int64)
        self.children_right = np.where(inner, np.asarray(boolean.child1), -1).astype(np.int64)
        mass = value.sum(axis=1)
        proportions = value / np.where(mass > 0, mass, 1.0)[:, None]
        self.value = proportions[:, None, :]
        self.weighted_n_node_samples = mass
        self.n_node_samples = counts
        self.impurity = 1.0 - np.sum(proportions * proportions, axis=1)
        self.max_depth = int(boolean.depth)
        self.n_leaves = int(boolean.size)
        self.n_outputs = 1
        self.n_classes = np.array([value.shape[1]], dtype=np.intp)

    def __getattr__(self, name: str):
        if name.startswith("_"):  # pickling and copying look up dunders before __init__ ran
            raise AttributeError(name)
        return getattr(self.boolean, name)

    def __str__(self) -> str:
        return str(self.boolean)

    def __repr__(self) -> str:
        return f"FittedTree(node_count={self.node_count}, max_depth={self.max_depth}, n_leaves={self.n_leaves})"


def cost_complexity_path(children_left: np.ndarray, children_right: np.ndarray, weighted_n: np.ndarray,
                         impurity: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """scikit-learn's minimal cost-complexity pruning (Breiman et al. 1984, ch. 3) on a tree's arrays.

    With R(t) = impurity(t) W(t) / W(root), the weakest link is the internal node of least
    (R(t) - R(T_t)) / (|leaves(T_t)| - 1) (the first in node order on ties); it is pruned, and again,
    until the root is a leaf. Returns ``(ccp_alphas, impurities, pruned)``: the effective alphas (0
    first), the total leaf impurity sum R(leaves) after each step, and the nodes pruned in turn, as
    ``sklearn.tree.DecisionTreeClassifier.cost_complexity_pruning_path`` and ``_prune_tree`` compute them.
    """
    left, right = np.asarray(children_left), np.asarray(children_right)
    r_node = np.asarray(impurity, dtype=np.float64) * np.asarray(weighted_n, dtype=np.float64) / float(weighted_n[0])
    count = left.size
    parent = np.full(count, -1)
    inner = np.flatnonzero(left >= 0)
    parent[left[inner]], parent[right[inner]] = inner, inner
    order = []  # children after parents
    stack = [0]
    while stack:  # one step per node
        node = stack.pop()
        order.append(node)
        if left[node] >= 0:
            stack += [left[node], right[node]]
    leaves = np.ones(count, dtype=np.int64)
    r_branch = r_node.copy()
    for node in reversed(order):  # one step per node, children first
        if left[node] >= 0:
            leaves[node] = leaves[left[node]] + leaves[right[node]]
            r_branch[node] = r_branch[left[node]] + r_branch[right[node]]
    is_leaf = left < 0
    in_tree = np.ones(count, dtype=bool)
    alphas, impurities, pruned = [0.0], [float(r_branch[0])], []
    while not is_leaf[0]:  # one pruning per step
        candidates = np.flatnonzero(in_tree & ~is_leaf)
        alpha = (r_node[candidates] - r_branch[candidates]) / (leaves[candidates] - 1)
        best = int(candidates[int(np.argmin(alpha))])
        effective = float(alpha.min())
        drop, cut_leaves, cut_r = [best], leaves[best] - 1, r_branch[best] - r_node[best]
        while drop:  # take the pruned node's subtree out
            node = drop.pop()
            if left[node] >= 0:
                for child in (left[node], right[node]):
                    in_tree[child] = False
                    drop.append(child)
        is_leaf[best] = True
        leaves[best], r_branch[best] = 1, r_node[best]
        node = parent[best]
        while node >= 0:  # the ancestors lose the pruned leaves and their impurity
            leaves[node] -= cut_leaves
            r_branch[node] -= cut_r
            node = parent[node]
        alphas.append(effective)
        impurities.append(float(r_branch[0]))
        pruned.append(best)
    return np.array(alphas), np.array(impurities), pruned


class _TreeClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit/predict: validation, label encoding, binarisation, the tree and its fitted-tree API."""

    #: impurity used by ``feature_importances_`` (subclasses with an ``impurity`` parameter use theirs)
    _importance_impurity = "gini"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # missing values: see the module docstring
        return tags

    # subclasses: validate their own parameters and grow a DecisionTree on 0/1 features
    def _validate_params(self) -> None:
        raise NotImplementedError

    def _grow_binarised(self, X: np.ndarray, y: np.ndarray, n_classes: int, weight: np.ndarray | None) -> DecisionTree:
        """The learner on the Boolean features of ``X`` (``binarizer_`` is fitted): by default
        :meth:`_grow` on :meth:`ThresholdBinarizer.transform`'s matrix."""
        return self._grow(self.binarizer_.transform(X), y, n_classes, weight)

    def _grow(self, Xb: np.ndarray, y: np.ndarray, n_classes: int, weight: np.ndarray | None) -> DecisionTree:
        raise NotImplementedError

    def _grow_real(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray | None,
                   names: list[str] | None) -> tuple[ThresholdBinarizer, DecisionTree] | None:
        """With ``n_thresholds=None``: a learner that searches every threshold of the real-valued
        columns itself returns (binarizer of the cuts its tree tests, tree); None: binarise first."""
        return None

    def _fit(self, X, y, sample_weight=None):
        self._validate_params()
        n_thresholds = _check_n_thresholds(self.n_thresholds)
        X, y = self._validated(X, y)
        if y.dtype.kind not in "biu":  # integer and Boolean labels are always classes: skip the slow check
            check_classification_targets(y)
        weight = None if sample_weight is None else _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        if getattr(self, "class_weight", None) is not None:
            expanded = compute_sample_weight(self.class_weight, y)
            weight = expanded if weight is None else weight * expanded
        if weight is not None:
            positive = weight > 0
            if not positive.any():
                raise ValueError("sample_weight must have at least one positive entry")
            X, y, weight = X[positive], y[positive], weight[positive]
        self.classes_, y_index = np.unique(y, return_inverse=True)
        self.n_classes_ = int(self.classes_.size)
        names = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else None
        exact = self._grow_real(X, y_index.astype(np.int64), weight, names) if n_thresholds is None else None
        if exact is None:
            self.binarizer_ = ThresholdBinarizer(n_thresholds).fit(X, weight, names)
            tree = self._grow_binarised(X, y_index.astype(np.int64), self.n_classes_, weight)
        else:  # the learner searched every threshold itself: the binarizer holds the cuts the tree tests
            self.binarizer_, tree = exact
        Xb = _BinaryView(self.binarizer_, X)   # the node counts read only the features the tree tests
        tree.feature_names = None  # the Boolean features' names are attached on first use of tree_
        self._tree = tree
        self.n_binary_features_ = self.binarizer_.n_features
        # the class weights of the training points reaching every node: probabilities, importances.
        # bincount adds each node's weights in the rows' order, as the product path.T @ weights would
        rows, nodes, _ = self._visits(Xb, None)
        cells = nodes * self.n_classes_ + y_index[rows]
        value = np.bincount(cells, weights=None if weight is None else weight[rows],
                            minlength=tree.node_count * self.n_classes_)
        value = value.astype(np.float64).reshape(tree.node_count, self.n_classes_)
        for node in self._top_down_order():  # parents first: an empty node takes its parent's value
            for child in (tree.child0[node], tree.child1[node]):
                if child >= 0 and value[child].sum() <= 0:
                    value[child] = value[node]
        self.tree_value_ = value
        self._node_counts = np.bincount(nodes, minlength=tree.node_count)
        collapse = self._undone_splits()
        collapse += self._ccp_nodes(collapse)
        if collapse:
            self._collapse(collapse)
        self._view = FittedTree(self._tree, self.binarizer_, self.tree_value_, self._node_counts)
        return self

    #: whether a split that leaves every non-empty child's class proportions equal to its node's (zero
    #: gain under every strictly concave impurity) is undone: ID3's paper rule makes such splits
    _no_zero_gain = False

    def _undone_splits(self) -> list[int]:
        """The highest nodes whose split is undone after growth: zero gain (ID3Classifier: every
        non-empty child's class proportions equal the node's), or a child with fewer than
        ``min_samples_leaf`` training rows or less than ``min_weight_fraction_leaf`` of the weight."""
        tree, value = self._tree, self.tree_value_
        mass = value.sum(axis=1)
        share = value / np.where(mass > 0, mass, 1.0)[:, None]
        min_rows = getattr(self, "min_samples_leaf", 1)
        min_mass = getattr(self, "min_weight_fraction_leaf", 0.0) * mass[0]
        counts = self._node_counts
        out, stack = [], [0]
        while stack:  # one step per node, top-down: an undone split's subtree goes with it
            node = stack.pop()
            if tree.feature[node] < 0:
                continue
            children = (tree.child0[node], tree.child1[node])
            zero_gain = self._no_zero_gain and all(
                mass[c] <= 0 or np.all(np.abs(share[c] - share[node]) <= 1e-12) for c in children)
            small = any(counts[c] < min_rows or (min_mass > 0 and mass[c] < min_mass) for c in children)
            if zero_gain or small:
                out.append(node)
            else:
                stack += children
        return out

    def _ccp_nodes(self, collapsed: list[int]) -> list[int]:
        """The nodes minimal cost-complexity pruning with ``ccp_alpha`` turns into leaves."""
        alpha = getattr(self, "ccp_alpha", 0.0)
        if not alpha > 0:
            return []
        alphas, _, pruned = self._pruning_path(collapsed)
        out = []
        for effective, node in zip(alphas[1:], pruned):  # scikit-learn stops at the first alpha above
            if effective > alpha:
                break
            out.append(node)
        return out

    def _pruning_path(self, collapsed: list[int] = ()) -> tuple[np.ndarray, np.ndarray, list[int]]:
        tree, value = self._tree, self.tree_value_
        left, right = np.array(tree.child0), np.array(tree.child1)
        inner = np.asarray(tree.feature) >= 0
        inner[list(collapsed)] = False
        left, right = np.where(inner, left, -1), np.where(inner, right, -1)
        mass = value.sum(axis=1)
        share = value / np.where(mass > 0, mass, 1.0)[:, None]
        impurity = impurity_k(self._importance_impurity, share)
        if self._importance_impurity == "gini":
            impurity = impurity / 2.0  # scikit-learn's Gini, 1 - sum p^2 (impurity_k's is twice it)
        return cost_complexity_path(left, right, mass, impurity)

    def _collapse(self, nodes: list[int]) -> None:
        """Make each of ``nodes`` a leaf (dropping its subtree): the tree, its values and counts renumbered."""
        old, value, cut = self._tree, self.tree_value_, set(int(v) for v in nodes)
        new = DecisionTree(old.n)
        origin, stack = [0], [(0, 0)]
        while stack:  # one step per kept node, depth-first, the x = 0 child first
            was, now = stack.pop()
            if old.feature[was] >= 0 and was not in cut:
                c0, c1 = new.split(now, int(old.feature[was]))
                origin += [old.child0[was], old.child1[was]]
                stack += [(old.child1[was], c1), (old.child0[was], c0)]
            elif was in cut:  # the learner's 0/1 label: label 1 is classes_[1] (three or more: 0)
                share = value[was]
                new.set_value(now, float(share.size == 2 and share[1] > share[0]))
            else:
                new.set_value(now, float(old.value[was]))
        keep = np.array(origin)
        new.feature_names = None
        self._tree, self.tree_value_, self._node_counts = new, value[keep], self._node_counts[keep]

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The minimal cost-complexity pruning path of the tree ``fit`` grows (``ccp_alpha`` ignored),
        as ``sklearn.tree.DecisionTreeClassifier.cost_complexity_pruning_path`` returns it.

        Parameters
        ----------
        X, y, sample_weight
            As in ``fit``.

        Returns
        -------
        sklearn.utils.Bunch
            ``ccp_alphas`` (increasing effective alphas, 0 first) and ``impurities`` (the total
            leaf impurity, weighted by the leaves' training weight share, of the tree pruned at each).
        """
        from sklearn.base import clone
        from sklearn.utils import Bunch

        est = clone(self).set_params(ccp_alpha=0.0)
        est._fit(X, y, sample_weight)
        alphas, impurities, _ = est._pruning_path()
        return Bunch(ccp_alphas=alphas, impurities=impurities)

    def _validated(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        """``validate_data(self, X, y, dtype=float64, ensure_all_finite="allow-nan")``, which on a small
        sample costs a fifth of the fit (dataframe and array-API detection). Plain NumPy arrays of
        numbers, the usual input, get its checks and its bookkeeping for an input without column
        names here: ``n_features_in_`` set and a previous fit's ``feature_names_in_`` removed.
        Anything else, and any input it would refuse, goes through ``validate_data`` (its errors and
        conversions)."""
        plain = (type(X) is np.ndarray and type(y) is np.ndarray and X.ndim == 2 and y.ndim == 1
                 and X.dtype.kind in "biuf" and y.dtype.kind in "biu" and X.shape[0] == y.shape[0] >= 1
                 and X.shape[1] >= 1)
        if plain:
            X = X.astype(np.float64, copy=False)
            plain = not np.isinf(X).any()
        if not plain:
            return validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan")
        self.n_features_in_ = X.shape[1]
        self.__dict__.pop("feature_names_in_", None)
        return X, y

    @property
    def boolean_tree_(self) -> DecisionTree:
        """The fitted tree on the Boolean features, their names attached (see the subclasses' Attributes)."""
        tree = self._tree  # AttributeError before fit, as for any fitted attribute
        if tree.feature_names is None:  # named here, not in fit: fit need not build every name
            tree.feature_names = self.binarizer_.feature_names
        return tree

    @property
    def tree_(self) -> FittedTree:
        """The fitted tree in scikit-learn's layout (:class:`FittedTree`; ``tree_.boolean`` is
        ``boolean_tree_``)."""
        self.boolean_tree_  # noqa: B018 (names the Boolean features on first use)
        return self._view

    def _top_down_order(self) -> list[int]:
        order, stack = [], [0]
        while stack:  # one step per node
            node = stack.pop()
            order.append(node)
            if self._tree.feature[node] >= 0:
                stack += [self._tree.child0[node], self._tree.child1[node]]
        return order

    def _visits(self, Xb: np.ndarray, unseen: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, nodes, leaf): every (row, node) pair of the rows' root-to-leaf paths, level by level
        (each node's rows ascending), and each row's leaf.

        A row whose value is missing in a column that had no missing value in training (``unseen``)
        goes, at a test of that column, to the child that more training weight reached (ties: the
        ``<= cut`` child), as scikit-learn's trees do.
        """
        tree = self._tree
        feature = np.asarray(tree.feature)
        child0, child1 = np.asarray(tree.child0), np.asarray(tree.child1)
        m = Xb.shape[0]
        rows, nodes = [np.arange(m)], [np.zeros(m, dtype=np.int64)]
        if unseen is not None:
            mass = self.tree_value_.sum(axis=1)
            heavier_right = np.where(feature >= 0, mass[child1] > mass[child0], False)
        at = np.zeros(m, dtype=np.int64)
        active = np.flatnonzero(feature[at] >= 0)
        while active.size:  # one pass per tree level
            here = at[active]
            f = feature[here]
            right = Xb[active, f] == 1
            if unseen is not None:
                right = np.where(unseen[active, f], heavier_right[here], right)
            at[active] = np.where(right, child1[here], child0[here])
            rows.append(active)
            nodes.append(at[active])
            active = active[feature[at[active]] >= 0]
        return np.concatenate(rows), np.concatenate(nodes), at

    def _paths(self, Xb: np.ndarray, unseen: np.ndarray | None):
        """The (m, node_count) CSR indicator of the nodes each row visits (:meth:`_visits`), and each row's leaf."""
        r, c, at = self._visits(Xb, unseen)
        path = csr_matrix((np.ones(r.size, dtype=np.int64), (r, c)), shape=(Xb.shape[0], self._tree.node_count))
        path.sort_indices()
        return path, at

    def _input(self, X) -> tuple[np.ndarray, np.ndarray | None]:
        check_is_fitted(self, "tree_")
        X = validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite="allow-nan")
        # the tree reads only the features it tests: no (m, n_features) matrix
        return _BinaryView(self.binarizer_, X), self.binarizer_.unseen_missing(X)

    def decision_path(self, X):
        """The nodes each sample visits.

        Parameters
        ----------
        X : array-like of shape (m, n_features_in_)
            Samples (NaN allowed).

        Returns
        -------
        scipy.sparse.csr_matrix of shape (m, tree_.node_count)
            Entry (i, v) is 1 when sample i passes through node v of ``tree_``.
        """
        return self._paths(*self._input(X))[0]

    def apply(self, X) -> np.ndarray:
        """The id of the leaf (a node of ``tree_``) each sample reaches.

        Parameters
        ----------
        X : array-like of shape (m, n_features_in_)
            Samples (NaN allowed).

        Returns
        -------
        ndarray of shape (m,)
            Leaf node ids.
        """
        return self._leaves(X)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities: the (weighted) training class proportions in the sample's leaf.

        Parameters
        ----------
        X : array-like of shape (m, n_features_in_)
            Samples (NaN allowed).

        Returns
        -------
        ndarray of shape (m, n_classes)
            Columns in the order of ``classes_``; rows sum to 1.
        """
        check_is_fitted(self, "tree_")
        leaf = self._leaves(X)
        value = self.tree_value_[leaf]
        return value / value.sum(axis=1, keepdims=True)

    def _leaves(self, X) -> np.ndarray:
        return self._paths(*self._input(X))[1]

    def predict(self, X) -> np.ndarray:
        """The most probable class of every sample (ties: the first in ``classes_``), as scikit-learn's tree.

        Parameters
        ----------
        X : array-like of shape (m, n_features_in_)
            Samples (NaN allowed).

        Returns
        -------
        ndarray of shape (m,)
            Labels from ``classes_``.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def get_depth(self) -> int:
        """The depth of the fitted tree.

        Returns
        -------
        int
            The longest root-to-leaf path (0 for a single leaf).
        """
        check_is_fitted(self, "tree_")
        return int(self._tree.depth)

    def get_n_leaves(self) -> int:
        """The number of leaves of the fitted tree.

        Returns
        -------
        int
            ``tree_.size``.
        """
        check_is_fitted(self, "tree_")
        return int(self._tree.size)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity-based importance of each input column, normalised to sum to 1 (all 0 for one leaf).

        As scikit-learn defines it: the sum over the nodes testing the column (any of its thresholds or
        its missing indicator) of W(v) I(v) - W(v0) I(v0) - W(v1) I(v1), W the training weight reaching
        a node and I the k-class impurity (:func:`dtcore.multiclass.impurity_k`; Gini for FIND).
        """
        check_is_fitted(self, "tree_")
        tree, value = self._tree, self.tree_value_
        mass = value.sum(axis=1)
        impurity = impurity_k(self._importance_impurity, value / np.where(mass > 0, mass, 1.0)[:, None])
        feature = np.asarray(tree.feature)
        inner = np.flatnonzero(feature >= 0)
        c0, c1 = np.asarray(tree.child0)[inner], np.asarray(tree.child1)[inner]
        decrease = mass[inner] * impurity[inner] - mass[c0] * impurity[c0] - mass[c1] * impurity[c1]
        out = np.zeros(self.n_features_in_)
        np.add.at(out, self.binarizer_.columns[feature[inner]], np.clip(decrease, 0.0, None))
        total = out.sum()
        return out / total if total > 0 else out

    def export_text(self) -> str:
        """The fitted tree as indented text over its Boolean features, with the class names.

        One line per node: ``name > cut?`` at a query node, then its ``0 ->`` (false) and ``1 ->``
        (true) branches; a leaf shows the class ``predict`` gives there
        (:func:`dtcore.export.boolean_text`). :func:`dtcore.export.export_text` prints the layout of
        ``sklearn.tree.export_text`` instead (``name <= cut`` / ``name >  cut`` branches).

        Returns
        -------
        str
        """
        from .export import boolean_text

        return boolean_text(self)


class TopDownClassifier(_TreeClassifier):
    """TopDown_G (Blanc–Gupta–Lange–Tan, NeurIPS 2020, Sec. 1.1) as a scikit-learn classifier.

    Grows a tree best-first by purity gain to ``max_leaf_nodes`` leaves
    (:func:`dtcore.topdown.top_down`); with ``batch_size`` set, MiniBatchTopDown_G (BGLT 2020,
    Figure 1; :func:`dtcore.topdown.minibatch_top_down`) scores each leaf on a minibatch of that
    many points and never splits leaves deeper than D = floor(log2 t + log2 log2 t).

    Parameters
    ----------
    max_leaf_nodes : int or None, default=16
        The size t of the tree (>= 1); None grows until every leaf is pure or unsplittable.
    impurity : {"gini", "entropy", "kearns_mansour"}, default="gini"
        The impurity function G of the purity gain.
    weighting : {"empirical", "uniform"}, default="empirical"
        ``"empirical"`` is best-first CART (same tree as scikit-learn's
        ``DecisionTreeClassifier(max_leaf_nodes=t)`` on the same Boolean features up to ties);
        ``"uniform"`` weights a leaf by 2^-depth and its children 1/2-1/2 (BGLT 2020, Appendix A).
    batch_size : int or None, default=None
        Minibatch size b (>= 1) of MiniBatchTopDown_G; None uses the whole sample (TopDown_G).
    n_thresholds : int or None, default=255
        At most this many quantile cut points per real-valued column (see :mod:`dtcore.estimators`);
        None uses every midpoint.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the minibatches' shared random order (used only with ``batch_size``); None is seed 0
        so that fitting twice gives the same tree.
    class_weight, ccp_alpha, min_samples_leaf, min_weight_fraction_leaf
        As in :class:`ID3Classifier`.
    max_depth : int or None, default=None
        Leaves at this depth are never split (the loop splits the best other leaf instead, as
        scikit-learn's best-first tree does); None: no limit. Not with ``batch_size``, whose
        MiniBatchTopDown_G has its own depth cap D.

    Attributes
    ----------
    tree_ : FittedTree
        The learned tree in scikit-learn's layout over the input columns (``feature``,
        ``threshold``, ``children_left``, ``children_right``, ``value``, ...; see
        :class:`FittedTree`); any other attribute is that of ``boolean_tree_``.
    boolean_tree_ : DecisionTree
        The learned tree on the Boolean features (their names in ``feature_names``). With two
        classes its leaf values are the learner's 0/1 labels (1 is ``classes_[1]``); with three or
        more they are 0 and the classes are read from ``tree_value_``.
    tree_value_ : ndarray of shape (tree_.node_count, n_classes)
        Weighted class totals of the training points reaching each node.
    classes_ : ndarray of shape (n_classes,)
        The labels seen in ``fit``, sorted.
    n_classes_ : int
        Their number.
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Column names, when ``fit`` got a DataFrame with string column names.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Normalised impurity decrease per input column (see :meth:`feature_importances_`).
    binarizer_ : ThresholdBinarizer
        The learned cut points and missing-value indicators.
    n_binary_features_ : int
        Number of Boolean features the tree could query.

    Notes
    -----
    Two classes without ``sample_weight`` run :func:`dtcore.topdown.top_down` (or
    :func:`~dtcore.topdown.minibatch_top_down`) unchanged; otherwise
    :func:`dtcore.multiclass.weighted_top_down` (or ``weighted_minibatch_top_down``), whose gains
    weigh each point by its weight and use the k-class impurity.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from dtcore.estimators import TopDownClassifier
    >>> X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    >>> clf = TopDownClassifier(max_leaf_nodes=4).fit(X, y)
    >>> clf.tree_.size
    4
    >>> print(clf.export_text())
    worst radius > 16.77?
      0 -> worst concave points > 0.1358?
        0 -> class: 1
        1 -> worst texture > 25.52?
          0 -> class: 1
          1 -> class: 0
      1 -> class: 0
    >>> from dtcore.export import export_text
    >>> print(export_text(clf))  # scikit-learn's layout
    |--- worst radius <= 16.77
    |   |--- worst concave points <= 0.14
    |   |   |--- class: 1
    |   |--- worst concave points >  0.14
    |   |   |--- worst texture <= 25.52
    |   |   |   |--- class: 1
    |   |   |--- worst texture >  25.52
    |   |   |   |--- class: 0
    |--- worst radius >  16.77
    |   |--- class: 0
    """

    def __init__(self, max_leaf_nodes: int | None = 16, impurity: str = "gini",
                 weighting: str = "empirical", batch_size: int | None = None,
                 n_thresholds: int | None = 255, *, random_state=None, class_weight=None,
                 ccp_alpha: float = 0.0, min_samples_leaf: int = 1,
                 min_weight_fraction_leaf: float = 0.0, max_depth: int | None = None) -> None:
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.impurity = impurity
        self.weighting = weighting
        self.batch_size = batch_size
        self.n_thresholds = n_thresholds
        self.random_state = random_state

    def _validate_params(self) -> None:
        _check_int_param("max_leaf_nodes", self.max_leaf_nodes, 1, allow_none=True)
        _check_int_param("max_depth", self.max_depth, 0, allow_none=True)
        if self.max_depth is not None and self.batch_size is not None:
            raise ValueError(f"max_depth must be None with batch_size (MiniBatchTopDown_G caps the depth itself, "
                             f"D = floor(log2 t + log2 log2 t)), got max_depth={self.max_depth!r}, "
                             f"batch_size={self.batch_size!r}")
        _check_ccp_alpha(self.ccp_alpha)
        _check_class_weight(self.class_weight)
        _check_leaf_limits(self.min_samples_leaf, self.min_weight_fraction_leaf)
        _check_choice("impurity", self.impurity, tuple(IMPURITIES))
        _check_choice("weighting", self.weighting, WEIGHTINGS)
        _check_int_param("batch_size", self.batch_size, 1, allow_none=True)
        rs = self.random_state
        if not (rs is None or isinstance(rs, np.random.Generator)
                or (isinstance(rs, numbers.Integral) and not isinstance(rs, bool) and rs >= 0)):
            raise ValueError(f"random_state must be None, an integer >= 0 or a numpy.random.Generator, got {rs!r}")

    @property
    def _importance_impurity(self) -> str:
        return self.impurity

    def _grow(self, Xb, y, n_classes, weight) -> DecisionTree:
        t = Xb.shape[0] if self.max_leaf_nodes is None else int(self.max_leaf_nodes)
        if self.max_depth is not None:  # TopDown_G with leaves at max_depth left unsplit
            if n_classes <= 2 and weight is None:
                scorer = TopDownScorer(Xb, y.astype(np.uint8), self.impurity, self.weighting)
            else:
                Xc, Y = _check_inputs(Xb, y, n_classes, weight)
                scorer = _WeightedScorer(Xc, Y, self.impurity, self.weighting)
            return grow(_DepthCapped(scorer, int(self.max_depth)), stop=lambda fr: False, n=Xb.shape[1],
                        size=t).tree
        rng = None
        if self.batch_size is not None:
            rs = self.random_state
            rng = rs if isinstance(rs, np.random.Generator) else np.random.default_rng(0 if rs is None else rs)
        if n_classes <= 2 and weight is None:  # the papers' kernels: 0/1 labels, unit weights
            yb = y.astype(np.uint8)
            if self.batch_size is None:
                return top_down(Xb, yb, size=t, impurity=self.impurity, weighting=self.weighting).tree
            return minibatch_top_down(Xb, yb, size=t, batch_size=int(self.batch_size), impurity=self.impurity,
                                      rng=rng, weighting=self.weighting).tree
        if self.batch_size is None:
            return weighted_top_down(Xb, y, n_classes, size=t, sample_weight=weight, impurity=self.impurity,
                                     weighting=self.weighting).tree
        return weighted_minibatch_top_down(Xb, y, n_classes, size=t, batch_size=int(self.batch_size), rng=rng,
                                           sample_weight=weight, impurity=self.impurity,
                                           weighting=self.weighting).tree

    def fit(self, X, y, sample_weight=None) -> "TopDownClassifier":
        return self._fit(X, y, sample_weight)

    fit.__doc__ = _fit_doc("TopDownClassifier", action="grow the tree", labels="any number of classes",
                           weights="Non-negative weights; a weight multiplies the point's counts in every purity gain (an integer weight acts as that many copies of the point).")


class ID3Classifier(_TreeClassifier):
    """ID3 (Brutzkus–Daniely–Malach, COLT 2020, Algorithm 1; :func:`dtcore.id3.id3`) for scikit-learn.

    Depth-first: splits on the feature of largest gain until every leaf is pure or no split has
    positive gain. Unlike the paper's Algorithm 1 (:func:`dtcore.id3.id3`, which splits even at zero
    gain, e.g. on a constant or all-missing column), a split that leaves every non-empty child's class
    proportions equal to its node's is never made: such a node is a leaf (so XOR, whose every single
    split has zero gain, gives one leaf; use :class:`OptimalTreeClassifier` for it).

    **Depth.** ``max_depth`` is :func:`dtcore.id3.id3`'s ``depth``, :func:`dtcore.find.find`'s
    ``depth`` (:class:`OptimalTreeClassifier`) and a bound on the root-to-leaf queries in all three
    (a tree of depth d answers after at most d tests; the root alone has depth 0), as in scikit-learn.

    Parameters
    ----------
    impurity : {"gini", "entropy", "kearns_mansour"}, default="gini"
        The impurity C of the gain.
    max_depth : int or None, default=None
        Depth limit (>= 0), passed to :func:`dtcore.id3.id3` as ``depth``; None grows until pure.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied into ``sample_weight`` as scikit-learn does
        (``sklearn.utils.class_weight.compute_sample_weight``).
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning after growth, scikit-learn's rule
        (:func:`cost_complexity_path`; Gini as 1 - sum p^2, entropy in bits); 0 prunes nothing.
    min_samples_leaf, min_weight_fraction_leaf : int and float, defaults 1 and 0.0
        After growth, a split with a child of fewer training rows, or of less than this fraction
        of the training weight, is undone (the highest such node becomes a leaf). scikit-learn
        refuses such splits while growing and may split elsewhere instead, so the trees can differ.
    n_thresholds : int or None, default=255
        At most this many quantile cut points per real-valued column; None uses every midpoint.

    Attributes
    ----------
    tree_, tree_value_, classes_, n_classes_, n_features_in_, feature_names_in_, feature_importances_, \
binarizer_, n_binary_features_
        As in :class:`TopDownClassifier`.

    Notes
    -----
    Two classes without ``sample_weight`` run :func:`dtcore.id3.id3` unchanged; otherwise
    :func:`dtcore.multiclass.weighted_id3` (k-class impurity, weighted counts).

    Examples
    --------
    >>> import numpy as np
    >>> from dtcore.estimators import ID3Classifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    >>> clf = ID3Classifier().fit(X, X[:, 0] & X[:, 1])
    >>> clf.predict([[0, 1], [1, 1]]).tolist()
    [0, 1]
    >>> ID3Classifier().fit(X, X[:, 0] ^ X[:, 1]).get_n_leaves()  # no split has positive gain on XOR
    1
    """

    _no_zero_gain = True  # ID3's paper rule splits a node even at zero gain; the estimator does not

    def __init__(self, impurity: str = "gini", max_depth: int | None = None,
                 n_thresholds: int | None = 255, class_weight=None, ccp_alpha: float = 0.0,
                 min_samples_leaf: int = 1, min_weight_fraction_leaf: float = 0.0) -> None:
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.impurity = impurity
        self.max_depth = max_depth
        self.n_thresholds = n_thresholds

    def _validate_params(self) -> None:
        _check_choice("impurity", self.impurity, tuple(IMPURITIES))
        _check_int_param("max_depth", self.max_depth, 0, allow_none=True)
        _check_ccp_alpha(self.ccp_alpha)
        _check_class_weight(self.class_weight)
        _check_leaf_limits(self.min_samples_leaf, self.min_weight_fraction_leaf)

    @property
    def _importance_impurity(self) -> str:
        return self.impurity

    def _grow_binarised(self, X, y, n_classes, weight) -> DecisionTree:
        if n_classes <= 2 and weight is None:  # the paper's kernel on bit-packed blocks: no (m, n) matrix
            depth = None if self.max_depth is None else int(self.max_depth)
            Xo = self.binarizer_.transform_packed(X, label_order(y))
            return id3_packed(Xo, self.binarizer_.n_features, y.astype(np.uint8), impurity=self.impurity,
                              depth=depth).tree
        return super()._grow_binarised(X, y, n_classes, weight)

    def _grow(self, Xb, y, n_classes, weight) -> DecisionTree:
        depth = None if self.max_depth is None else int(self.max_depth)
        if n_classes <= 2 and weight is None:  # the paper's kernel: 0/1 labels, unit weights
            return id3(Xb, y.astype(np.uint8), impurity=self.impurity, depth=depth).tree
        return weighted_id3(Xb, y, n_classes, sample_weight=weight, impurity=self.impurity, depth=depth)

    def fit(self, X, y, sample_weight=None) -> "ID3Classifier":
        return self._fit(X, y, sample_weight)

    fit.__doc__ = _fit_doc("ID3Classifier", action="run ID3", labels="any number of classes",
                           weights="Non-negative weights multiplying each point's counts in the gains.")


class OptimalTreeClassifier(_TreeClassifier):
    """FIND (Blanc–Lange–Tan 2021, Figure 2; :func:`dtcore.find.find`): an optimal depth-d tree.

    Returns a tree of depth at most ``max_depth`` with the least (weighted) training error on the
    Boolean features, exactly (Lemma 3.1), in n^O(d) |X| time (Lemma 3.2) where n is the number of
    Boolean features, so keep ``n_thresholds`` small for d >= 3.

    Parameters
    ----------
    max_depth : int, default=2
        The depth d (>= 0), :func:`dtcore.find.find`'s ``depth``. FIND's work grows as n^d times the
        rows (n Boolean features); a fit beyond :data:`dtcore.validate.MAX_FIND_SUBPROBLEMS` is refused.
    n_thresholds : int or None, default=8
        At most this many quantile cut points per real-valued column. None searches every midpoint
        of every column exactly without binarising (:func:`dtcore.find_real.find_real`, ConTree's
        bounds; ``binarizer_`` then holds only the cuts the tree tests); with missing values
        present, None binarises every midpoint first.
    time_limit : float or None, default=None
        Seconds. When the search reaches it, the tree returned is the best found so far, not
        proven optimal: a ``ConvergenceWarning`` says so and ``optimal_`` is False.
    class_weight : dict, "balanced" or None, default=None
        As in :class:`ID3Classifier`. FIND's optimum is over every tree of the depth, so there is no
        pruning or leaf-size limit.

    Attributes
    ----------
    tree_, tree_value_, classes_, n_classes_, n_features_in_, feature_names_in_, feature_importances_, \
binarizer_, n_binary_features_
        As in :class:`TopDownClassifier` (importances use the Gini impurity).
    training_error_ : float
        FIND's optimal (weighted) training error fraction on the Boolean features.
    optimal_ : bool
        False when ``time_limit`` stopped the search before the tree was proven optimal.

    Notes
    -----
    Two classes run :func:`dtcore.find.find` unchanged (with the weights); three or more run
    :func:`dtcore.multiclass.multiclass_find`, exact least misclassification over the k classes.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from dtcore.estimators import OptimalTreeClassifier
    >>> X = pd.DataFrame({"age": [20, 30, 40, 50, 60, 70] * 2, "smoker": [0] * 6 + [1] * 6})
    >>> y = np.where((X["smoker"] == 1) | (X["age"] > 55), "high", "low")
    >>> clf = OptimalTreeClassifier(max_depth=2).fit(X, y)
    >>> clf.training_error_
    0.0
    >>> print(clf.export_text())
    age > 55?
      0 -> smoker?
        0 -> class: low
        1 -> class: high
      1 -> class: high
    >>> print(clf.tree_)  # the same tree; classes_[1] = "low" is label 1
    age > 55?
      0 -> smoker?
        0 -> leaf: 1
        1 -> leaf: 0
      1 -> leaf: 0
    """

    def __init__(self, max_depth: int = 2, n_thresholds: int | None = 8, class_weight=None,
                 time_limit: float | None = None) -> None:
        self.class_weight = class_weight
        self.max_depth = max_depth
        self.n_thresholds = n_thresholds
        self.time_limit = time_limit

    def _validate_params(self) -> None:
        _check_int_param("max_depth", self.max_depth, 0)
        _check_class_weight(self.class_weight)
        t = self.time_limit
        if t is not None and (isinstance(t, bool) or not isinstance(t, numbers.Real) or not t > 0):
            raise ValueError(f"time_limit must be None or a positive number of seconds, got {t!r}")

    def _exact(self, X, y, n_classes, weight):
        """:func:`dtcore.find_real.find_real` on real (or 0/1) columns; sets ``training_error_`` and
        ``optimal_`` and warns when the time limit stopped the search."""
        from .find_real import find_real   # compiled on first use: its import costs ~90 MB, unused by the others

        result = find_real(X, y, depth=int(self.max_depth), sample_weight=weight, n_classes=max(n_classes, 2),
                           time_limit=self.time_limit)
        self.training_error_ = float(result.error)
        self.optimal_ = bool(result.optimal)
        if not result.optimal:
            warnings.warn(f"OptimalTreeClassifier reached time_limit={self.time_limit!r} s: the tree is the best "
                          f"found (training error {result.error:.6g}), not proven optimal (optimal_ is False)",
                          ConvergenceWarning, stacklevel=4)
        return result

    def _grow_real(self, X, y, weight, names):
        if np.isnan(X).any():  # missing values: their indicators are Boolean features; binarise first
            return None
        result = self._exact(X, y, self.n_classes_, weight)
        binarizer = ThresholdBinarizer(None)
        binarizer.n_input = X.shape[1]
        binarizer._input_names = None if names is None else list(names)
        binarizer.columns, binarizer.cuts = result.columns, result.cuts
        if not result.columns.size:  # a single leaf: one constant-0 feature keeps the tree well defined
            binarizer.columns, binarizer.cuts = np.zeros(1, np.int64), np.array([np.inf])
        zero_one = np.all((X == 0.0) | (X == 1.0), axis=0)
        binarizer.passthrough = zero_one[binarizer.columns] & np.isfinite(binarizer.cuts)
        binarizer.missing = np.zeros(binarizer.columns.size, dtype=bool)
        binarizer.missing_columns = np.zeros(0, dtype=np.int64)
        return binarizer, result.tree

    def _grow(self, Xb, y, n_classes, weight) -> DecisionTree:
        n = Xb.shape[1]
        check_budget(f"OptimalTreeClassifier(max_depth={self.max_depth}) on {n} Boolean features (FIND's subproblems)",
                     find_subproblems(n, int(self.max_depth)), "MAX_FIND_SUBPROBLEMS",
                     "lower max_depth (a tree never needs more depth than Boolean features) or n_thresholds")
        if self.time_limit is not None:  # the same search on the Boolean features, under the clock
            result = self._exact(Xb.astype(np.float64), y, n_classes, weight)
            feature = np.asarray(result.tree.feature)
            mapped = np.where(feature >= 0, result.columns[np.maximum(feature, 0)], -1)
            return DecisionTree.from_arrays(Xb.shape[1], mapped, result.tree.child0, result.tree.child1,
                                            result.tree.value)
        self.optimal_ = True
        if n_classes <= 2:  # the paper's kernel: 0/1 labels (it takes weights)
            result = find(Xb, y.astype(np.uint8), depth=int(self.max_depth), sample_weight=weight)
            self.training_error_ = float(result.error)
            return result.tree
        result = multiclass_find(Xb, y, n_classes, depth=int(self.max_depth), sample_weight=weight)
        self.training_error_ = result.errors / (float(weight.sum()) if weight is not None else Xb.shape[0])
        return result.tree

    def fit(self, X, y, sample_weight=None) -> "OptimalTreeClassifier":
        return self._fit(X, y, sample_weight)

    fit.__doc__ = _fit_doc("OptimalTreeClassifier", action="run FIND", labels="any number of classes: least misclassification over all of them",
                           weights="Non-negative weights of each point's error.")
