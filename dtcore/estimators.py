"""scikit-learn estimators for dtcore's learners: TopDown_G, MiniBatchTopDown_G, ID3 and FIND.

Each estimator is a ``BaseEstimator`` + ``ClassifierMixin`` for **binary** classification (declared
through scikit-learn's tags: ``__sklearn_tags__().classifier_tags.multi_class`` is False; three or
more classes raise ``ValueError``). It works in a ``Pipeline``, ``cross_val_score`` and
``GridSearchCV``, keeps DataFrame column names (``feature_names_in_``) and exposes the learned
:class:`~dtcore.tree.DecisionTree` as ``tree_``.

The papers' learners read points of the Boolean cube {0,1}^n, so ``fit`` first *binarises* the
features with thresholds learned from the training X (no labels are used):

* a column whose training values are all 0 or 1 is used as is (one Boolean feature, ``x_j``);
* any other column j with distinct training values v_1 < ... < v_k gets Boolean features
  ``x_j > c`` for cut points c halfway between consecutive distinct values (the cut points CART
  considers). With ``n_thresholds=None`` every one of the k - 1 cut points is used; otherwise at most
  ``n_thresholds``: for the levels q = 1/(n_thresholds + 1), ..., n_thresholds/(n_thresholds + 1)
  the cut just above the (weighted, inverted-CDF) q-quantile of the column, without repeats.
  A cut above the largest value is never made, so no Boolean feature is constant on the sample.

Only training points with positive ``sample_weight`` (all points when no weight is given) define the
thresholds, and a weight of 2 acts as a repeated point, so weighting and duplicating agree.
``predict`` applies the same thresholds to new data. ``predict_proba`` is the tree's mu_T(x) for the
positive class, ``[1 - mu_T(x), mu_T(x)]``: the papers' trees have 0/1 leaves, so it is one-hot and
always agrees with ``predict``.

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
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .find import find
from .id3 import id3
from .impurity import IMPURITIES
from .topdown import WEIGHTINGS, minibatch_top_down, top_down
from .tree import DecisionTree
from .validate import check_choice

__all__ = ["ThresholdBinarizer", "TopDownClassifier", "ID3Classifier", "OptimalTreeClassifier"]


# --- binarisation ------------------------------------------------------------------------------

def _check_n_thresholds(n_thresholds: object) -> int | None:
    if n_thresholds is None:
        return None
    if isinstance(n_thresholds, bool) or not isinstance(n_thresholds, numbers.Integral) or n_thresholds < 1:
        raise ValueError(f"n_thresholds must be None or an integer >= 1, got {n_thresholds!r}")
    return int(n_thresholds)


def _column_cuts(column: np.ndarray, weight: np.ndarray, n_thresholds: int | None) -> np.ndarray:
    """Cut points of one real column (see the module docstring); weight > 0 on every entry."""
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


class ThresholdBinarizer:
    """Boolean features ``x_j > c`` from thresholds learned on a training matrix (no labels used).

    See :mod:`dtcore.estimators` for the rule. ``columns[k]`` and ``cuts[k]`` say that Boolean
    feature k is ``X[:, columns[k]] > cuts[k]``; ``passthrough[k]`` marks a 0/1 column used as is.
    """

    def __init__(self, n_thresholds: int | None = 16) -> None:
        self.n_thresholds = _check_n_thresholds(n_thresholds)

    def fit(self, X: np.ndarray, sample_weight: np.ndarray | None = None,
            feature_names: list[str] | None = None) -> "ThresholdBinarizer":
        """Learn the cut points of every column of ``X`` (2-D, finite) from rows of positive weight."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] < 1:
            raise ValueError(f"X must be a 2-D array with at least one row, got shape {X.shape}")
        n = X.shape[1]
        weight = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, np.float64)
        keep = weight > 0
        if not keep.any():
            raise ValueError("sample_weight must have at least one positive entry")
        Xk, wk = X[keep], weight[keep]
        self.n_input = n
        self.input_names = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(n)]
        columns, cuts, passthrough = [], [], []
        for j in range(n):  # one NumPy body per column
            col = Xk[:, j]
            if np.isin(col, (0.0, 1.0)).all():
                c, through = np.array([0.5]), True
            else:
                c, through = _column_cuts(col, wk, self.n_thresholds), False
            columns += [j] * c.size
            cuts += c.tolist()
            passthrough += [through] * c.size
        if not columns:  # every column constant: one constant-0 feature keeps the tree well defined
            columns, cuts, passthrough = [0], [np.inf], [False]
        self.columns = np.asarray(columns, dtype=np.int64)
        self.cuts = np.asarray(cuts, dtype=np.float64)
        self.passthrough = np.asarray(passthrough, dtype=bool)
        return self

    @property
    def n_features(self) -> int:
        """Number of Boolean features."""
        return int(self.columns.size)

    @property
    def feature_names(self) -> list[str]:
        """A readable name per Boolean feature: ``name`` for a 0/1 column, ``name > cut`` otherwise."""
        out = []
        for j, c, through in zip(self.columns, self.cuts, self.passthrough):
            name = self.input_names[j]
            out.append(name if through else f"{name} > {c:.4g}")
        return out

    def transform(self, X: np.ndarray) -> np.ndarray:
        """The (m, n_features) uint8 matrix of Boolean features of ``X``."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_input:
            raise ValueError(f"X must have shape (m, {self.n_input}), got {X.shape}")
        return np.ascontiguousarray((X[:, self.columns] > self.cuts[None, :]).astype(np.uint8))


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


class _BinaryTreeClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit/predict: validation, label encoding, binarisation, the tree and its rendering."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # the papers' learners are binary classifiers
        return tags

    # subclasses: validate their own parameters and grow a DecisionTree on 0/1 data
    def _validate_params(self) -> None:
        raise NotImplementedError

    def _grow(self, Xb: np.ndarray, yb: np.ndarray, weight: np.ndarray | None) -> DecisionTree:
        raise NotImplementedError

    def _fit(self, X, y, sample_weight=None):
        self._validate_params()
        n_thresholds = _check_n_thresholds(self.n_thresholds)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        weight = None if sample_weight is None else _check_sample_weight(sample_weight, X, ensure_non_negative=True)
        if weight is not None:
            positive = weight > 0
            if not positive.any():
                raise ValueError("sample_weight must have at least one positive entry")
            X, y, weight = X[positive], y[positive], weight[positive]
        classes = np.unique(y)
        if classes.size > 2:
            y_type = type_of_target(y, input_name="y", raise_unknown=True)
            raise ValueError(f"Only binary classification is supported. The type of the target is "
                             f"{y_type}: y has {classes.size} classes, {type(self).__name__} "
                             f"accepts at most 2")
        self.classes_ = classes
        names = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else None
        self.binarizer_ = ThresholdBinarizer(n_thresholds).fit(X, weight, names)
        Xb = self.binarizer_.transform(X)
        yb = (y == classes[-1]).astype(np.uint8) if classes.size == 2 else np.zeros(y.shape[0], np.uint8)
        tree = self._grow(Xb, yb, weight)
        tree.feature_names = self.binarizer_.feature_names
        self.tree_ = tree
        self.n_binary_features_ = self.binarizer_.n_features
        return self

    def _binary(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.binarizer_.transform(X)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities ``(m, n_classes)``: [1 - mu_T(x), mu_T(x)] (one-hot for 0/1 leaves)."""
        Xb = self._binary(X)
        mu = self.tree_.predict_proba(Xb)
        if self.classes_.size == 1:
            return np.ones((mu.size, 1))
        return np.column_stack([1.0 - mu, mu])

    def predict(self, X) -> np.ndarray:
        """The tree's label for every row, in the classes given to ``fit``."""
        Xb = self._binary(X)
        label = self.tree_.predict(Xb)
        if self.classes_.size == 1:
            return np.repeat(self.classes_, label.size)
        return self.classes_[label.astype(np.int64)]

    def export_text(self) -> str:
        """The fitted tree as indented text, with the Boolean features' names and the classes.

        Like ``sklearn.tree.export_text``: one line per node, ``name > cut?`` at a query node, then
        its ``0 ->`` (false) and ``1 ->`` (true) branches; leaves show the class label.
        """
        check_is_fitted(self, "tree_")
        text = self.tree_.to_text()
        if self.classes_.size == 2:
            zero, one = (str(c) for c in self.classes_)
            text = text.replace("leaf: 0", f"class: {zero}").replace("leaf: 1", f"class: {one}")
        else:
            text = text.replace("leaf: 0", f"class: {self.classes_[0]}")
        return text


class TopDownClassifier(_BinaryTreeClassifier):
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
    n_thresholds : int or None, default=16
        At most this many quantile cut points per real-valued column (see :mod:`dtcore.estimators`);
        None uses every midpoint.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the minibatches' shared random order (used only with ``batch_size``); None is seed 0
        so that fitting twice gives the same tree.

    Attributes
    ----------
    tree_ : DecisionTree
        The learned tree on the Boolean features (their names in ``tree_.feature_names``).
    classes_ : ndarray of shape (n_classes,)
        The labels seen in ``fit`` (one or two); ``classes_[1]`` is the positive class.
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Column names, when ``fit`` got a DataFrame with string column names.
    binarizer_ : ThresholdBinarizer
        The learned cut points.
    n_binary_features_ : int
        Number of Boolean features the tree could query.

    Notes
    -----
    ``fit`` takes no ``sample_weight``: TopDown_G's purity gains count sample points (BGLT 2020).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from dtcore.estimators import TopDownClassifier
    >>> X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    >>> clf = TopDownClassifier(max_leaf_nodes=4).fit(X, y)
    >>> clf.tree_.size
    4
    >>> print(clf.export_text())
    worst perimeter > 110.2?
      0 -> worst concave points > 0.1521?
        0 -> class: 1
        1 -> class: 0
      1 -> worst perimeter > 117.5?
        0 -> class: 0
        1 -> class: 0
    """

    def __init__(self, max_leaf_nodes: int | None = 16, impurity: str = "gini",
                 weighting: str = "empirical", batch_size: int | None = None,
                 n_thresholds: int | None = 16, random_state=None) -> None:
        self.max_leaf_nodes = max_leaf_nodes
        self.impurity = impurity
        self.weighting = weighting
        self.batch_size = batch_size
        self.n_thresholds = n_thresholds
        self.random_state = random_state

    def _validate_params(self) -> None:
        _check_int_param("max_leaf_nodes", self.max_leaf_nodes, 1, allow_none=True)
        _check_choice("impurity", self.impurity, tuple(IMPURITIES))
        _check_choice("weighting", self.weighting, WEIGHTINGS)
        _check_int_param("batch_size", self.batch_size, 1, allow_none=True)
        rs = self.random_state
        if not (rs is None or isinstance(rs, np.random.Generator)
                or (isinstance(rs, numbers.Integral) and not isinstance(rs, bool) and rs >= 0)):
            raise ValueError(f"random_state must be None, an integer >= 0 or a numpy.random.Generator, got {rs!r}")

    def _grow(self, Xb, yb, weight) -> DecisionTree:
        t = Xb.shape[0] if self.max_leaf_nodes is None else int(self.max_leaf_nodes)
        if self.batch_size is None:
            return top_down(Xb, yb, size=t, impurity=self.impurity, weighting=self.weighting).tree
        rs = self.random_state
        rng = rs if isinstance(rs, np.random.Generator) else np.random.default_rng(0 if rs is None else rs)
        return minibatch_top_down(Xb, yb, size=t, batch_size=int(self.batch_size), impurity=self.impurity, rng=rng,
                                  weighting=self.weighting).tree

    def fit(self, X, y) -> "TopDownClassifier":
        """Binarise X, encode y (two labels: ``classes_[1]`` is 1) and grow the tree."""
        return self._fit(X, y)


class ID3Classifier(_BinaryTreeClassifier):
    """ID3 (Brutzkus–Daniely–Malach, COLT 2020, Algorithm 1; :func:`dtcore.id3.id3`) for scikit-learn.

    Depth-first: splits on the feature of largest gain until every leaf is pure.

    Parameters
    ----------
    impurity : {"gini", "entropy", "kearns_mansour"}, default="gini"
        The impurity C of the gain.
    max_depth : int or None, default=None
        Depth limit (>= 0), passed to :func:`dtcore.id3.id3`; None grows until pure.
    n_thresholds : int or None, default=16
        At most this many quantile cut points per real-valued column; None uses every midpoint.

    Attributes
    ----------
    tree_, classes_, n_features_in_, feature_names_in_, binarizer_, n_binary_features_
        As in :class:`TopDownClassifier`.

    Notes
    -----
    ``fit`` takes no ``sample_weight``: ID3's gains count sample points.

    Examples
    --------
    >>> import numpy as np
    >>> from dtcore.estimators import ID3Classifier
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5)
    >>> y = X[:, 0] ^ X[:, 1]
    >>> clf = ID3Classifier().fit(X, y)
    >>> clf.predict([[0, 1], [1, 1]]).tolist()
    [1, 0]
    """

    def __init__(self, impurity: str = "gini", max_depth: int | None = None,
                 n_thresholds: int | None = 16) -> None:
        self.impurity = impurity
        self.max_depth = max_depth
        self.n_thresholds = n_thresholds

    def _validate_params(self) -> None:
        _check_choice("impurity", self.impurity, tuple(IMPURITIES))
        _check_int_param("max_depth", self.max_depth, 0, allow_none=True)

    def _grow(self, Xb, yb, weight) -> DecisionTree:
        depth = None if self.max_depth is None else int(self.max_depth)
        return id3(Xb, yb, impurity=self.impurity, depth=depth).tree

    def fit(self, X, y) -> "ID3Classifier":
        """Binarise X, encode y and run ID3."""
        return self._fit(X, y)


class OptimalTreeClassifier(_BinaryTreeClassifier):
    """FIND (Blanc–Lange–Tan 2021, Figure 2; :func:`dtcore.find.find`): an optimal depth-d tree.

    Returns a tree of depth at most ``max_depth`` with the least (weighted) training error on the
    Boolean features, exactly (Lemma 3.1), in n^O(d) |X| time (Lemma 3.2) where n is the number of
    Boolean features, so keep ``n_thresholds`` small for d >= 3.

    Parameters
    ----------
    max_depth : int, default=2
        The depth d (>= 0).
    n_thresholds : int or None, default=8
        At most this many quantile cut points per real-valued column; None uses every midpoint.

    Attributes
    ----------
    tree_, classes_, n_features_in_, feature_names_in_, binarizer_, n_binary_features_
        As in :class:`TopDownClassifier`.
    training_error_ : float
        FIND's optimal (weighted) training error fraction on the Boolean features.

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

    def __init__(self, max_depth: int = 2, n_thresholds: int | None = 8) -> None:
        self.max_depth = max_depth
        self.n_thresholds = n_thresholds

    def _validate_params(self) -> None:
        _check_int_param("max_depth", self.max_depth, 0)

    def _grow(self, Xb, yb, weight) -> DecisionTree:
        result = find(Xb, yb, depth=int(self.max_depth), sample_weight=weight)
        self.training_error_ = float(result.error)
        return result.tree

    def fit(self, X, y, sample_weight=None) -> "OptimalTreeClassifier":
        """Binarise X, encode y and run FIND; ``sample_weight`` weighs each point's error."""
        return self._fit(X, y, sample_weight)
