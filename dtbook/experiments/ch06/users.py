"""What the estimators' users rely on, checked on the real data sets, every fold (issue 36, item 2).

Each check compares the estimator with a computation that shares no code with it:

* the binariser's cut points ([BGLT20]'s cube from real columns, :class:`~dtcore.estimators.ThresholdBinarizer`)
  against NumPy's weighted quantiles (``numpy.quantile(..., method="inverted_cdf", weights=...)``) of
  the same column with the same weights, unit weights and a keyed draw of integer weights;
* where a missing value goes (the module docstring of :mod:`dtcore.estimators`) against a router
  written here from that docstring, on flchain with its creatinine column (NaN for some people) and
  with NaN put into the test rows of every column that had none in training;
* the multi-class OptimalTreeClassifier's training error ([BLT21] Lemma 3.1 with k classes) against
  pystreed's optimal tree of the same depth on the same Boolean features;
* ``predict_proba`` and ``feature_importances_`` against scikit-learn's best-first tree grown on the
  same Boolean features, on every fold where both grow the same tree.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from dtcore.estimators import OptimalTreeClassifier, ThresholdBinarizer, TopDownClassifier
from dtcore.validate import check_int
from ... import seeds
from ...report import VerificationTable
from .common import Data, cv_splits


def reference_features(X: np.ndarray, weight: np.ndarray, *, n_thresholds: int) -> tuple[np.ndarray, np.ndarray,
                                                                                           np.ndarray]:
    """(columns, cuts, missing) of the Boolean features the docstring of :mod:`dtcore.estimators` states,
    one column at a time from NumPy's weighted quantiles: a 0/1 column gives the cut 1/2; another
    column the midpoints between consecutive distinct values, all of them when there are at most
    ``n_thresholds``, else the midpoint just above each inverted-CDF quantile at the levels
    q/(n_thresholds + 1) (none above the largest value, no repeats); a column with NaN among the rows
    of positive weight one more feature, its missing-value indicator (cut NaN)."""
    n_thresholds = check_int("n_thresholds", n_thresholds, 1)
    columns: list[int] = []
    cuts: list[float] = []
    missing: list[bool] = []
    positive = weight > 0
    levels = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
    for j in range(X.shape[1]):  # one column at a time; the body is NumPy
        x, w = X[positive, j], weight[positive]
        seen = ~np.isnan(x)
        distinct = np.unique(x[seen])
        if distinct.size and np.isin(distinct, (0.0, 1.0)).all():
            c = np.array([0.5])
        else:
            mids = (distinct[:-1] + distinct[1:]) / 2
            if mids.size <= n_thresholds:
                c = mids
            else:
                q = np.quantile(x[seen], levels, method="inverted_cdf", weights=w[seen])
                at = np.searchsorted(distinct, q)
                c = mids[np.unique(at[at < mids.size])]
        columns += [j] * c.size
        cuts += c.tolist()
        missing += [False] * c.size
        if not seen.all():
            columns.append(j)
            cuts.append(np.nan)
            missing.append(True)
    return np.array(columns, dtype=np.int64), np.array(cuts, dtype=np.float64), np.array(missing, dtype=bool)


def cut_deviation(binarizer: ThresholdBinarizer, X: np.ndarray, weight: np.ndarray, *, n_thresholds: int) -> float:
    """0 when ``binarizer`` (fit on ``X`` with ``weight``) has exactly :func:`reference_features`' features;
    else the largest |cut difference| (inf when the lists of features differ)."""
    columns, cuts, missing = reference_features(X, weight, n_thresholds=n_thresholds)
    if (columns.size != binarizer.columns.size or not np.array_equal(columns, binarizer.columns)
            or not np.array_equal(missing, binarizer.missing)):
        return float("inf")
    both = ~missing
    return float(np.abs(cuts[both] - binarizer.cuts[both]).max(initial=0.0))


def binariser_cuts(data: Data, *, folds: int, n_thresholds: int, seed: int) -> pd.DataFrame:
    """The binariser fit on every training fold of every data set, with unit weights and with integer
    weights in {0, 1, 2, 3} (the stream ``"ch06/weights"``), against :func:`reference_features`."""
    rows = []
    for name, (X, y) in data.items():
        A = X.to_numpy(dtype=np.float64)
        draw = seeds.experiment_rng(seed, f"ch06/weights/{name}").integers(0, 4, len(A)).astype(np.float64)
        for fold, (train, _) in enumerate(cv_splits(X, y, folds=folds, seed=seed)):
            for weighting, w in (("unit", np.ones(train.size)), ("integer weights", draw[train])):
                b = ThresholdBinarizer(n_thresholds).fit(A[train], sample_weight=None if weighting == "unit" else w)
                rows.append({"data set": name, "fold": fold, "weights": weighting, "features": b.n_features,
                             "deviation": cut_deviation(b, A[train], w, n_thresholds=n_thresholds)})
    return pd.DataFrame(rows)


def reference_leaves(est: Any, X_train: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The leaf of ``est.boolean_tree_`` each row of ``X`` reaches by the docstring's rule for missing values,
    written from the raw values: a test of feature k reads column j = ``binarizer_.columns[k]``; an
    indicator goes right on NaN; a threshold goes right when x_j > cut; a NaN goes left (the ``<= cut``
    side) in a column with NaN in ``X_train``, and otherwise to the child more training rows reached
    (ties left), the rows counted here by routing ``X_train`` the same way."""
    tree, b = est.boolean_tree_, est.binarizer_
    feature = np.asarray(tree.feature)
    child0, child1 = np.asarray(tree.child0), np.asarray(tree.child1)
    had_nan = np.isnan(X_train).any(axis=0)

    def route(Z: np.ndarray, heavier_right: np.ndarray | None) -> np.ndarray:
        at = np.zeros(Z.shape[0], dtype=np.int64)
        for node in range(feature.size):  # nodes are numbered parents first; the body is NumPy
            k = feature[node]
            here = at == node
            if k < 0 or not here.any():
                continue
            x = Z[here, b.columns[k]]
            nan = np.isnan(x)
            if b.missing[k]:
                right = nan
            else:
                with np.errstate(invalid="ignore"):
                    right = x > b.cuts[k]
                if not had_nan[b.columns[k]] and heavier_right is not None:
                    right = np.where(nan, heavier_right[node], right)
            at[here] = np.where(right, child1[node], child0[node])
        return at

    counts = np.bincount(route(X_train, None), minlength=feature.size).astype(np.float64)
    for node in range(feature.size - 1, -1, -1):  # children after parents: sum the leaves' rows upwards
        if feature[node] >= 0:
            counts[node] = counts[child0[node]] + counts[child1[node]]
    heavier = np.where(feature >= 0, counts[child1] > counts[child0], False)
    return route(X, heavier)


def missing_routing(X: pd.DataFrame, y: np.ndarray, *, folds: int, depth: int, leaves: int, n_thresholds: int,
                    seed: int) -> pd.DataFrame:
    """On every fold of a data set with NaN: OptimalTreeClassifier (depth ``depth``) and TopDownClassifier
    (``leaves`` leaves) fit on the training rows; their ``apply`` on the test rows, with NaN put into
    a fifth of the test rows of every column that had none in training (stream ``"ch06/nan"``),
    against :func:`reference_leaves`. Columns: learner, fold, test rows with a NaN, of which in a
    column unseen with NaN, rows whose leaf differs."""
    A = X.to_numpy(dtype=np.float64)
    rng = seeds.experiment_rng(seed, "ch06/nan")
    rows = []
    for fold, (train, test) in enumerate(cv_splits(X, y, folds=folds, seed=seed)):
        T = A[test].copy()
        clean = ~np.isnan(A[train]).any(axis=0)
        holes = rng.random(T.shape) < 0.2
        holes[:, ~clean] = False
        T[holes] = np.nan
        for learner, est in (("OptimalTreeClassifier", OptimalTreeClassifier(max_depth=depth, n_thresholds=n_thresholds)),
                             ("TopDownClassifier", TopDownClassifier(max_leaf_nodes=leaves, n_thresholds=n_thresholds))):
            est.fit(A[train], y[train])
            ours = est.apply(T)
            ref = reference_leaves(est, A[train], T)
            rows.append({"learner": learner, "fold": fold, "rows with NaN": int(np.isnan(T).any(axis=1).sum()),
                         "rows with a new NaN": int(holes.any(axis=1).sum()),
                         "leaves differ": int((ours != ref).sum())})
    return pd.DataFrame(rows)


def multiclass_optimality(data: Data, *, folds: int, depth: int, n_thresholds: int, seed: int) -> pd.DataFrame:
    """The multi-class OptimalTreeClassifier's training errors on every fold against pystreed's optimal
    depth-``depth`` tree (``cost_complexity=0``) on the estimator's own Boolean features."""
    from pystreed import STreeDClassifier

    rows = []
    for name, (X, y) in data.items():
        for fold, (train, _) in enumerate(cv_splits(X, y, folds=folds, seed=seed)):
            X_train, y_train = X.iloc[train], y[train]
            est = OptimalTreeClassifier(max_depth=depth, n_thresholds=n_thresholds).fit(X_train, y_train)
            B = est.binarizer_.transform(X_train.to_numpy(dtype=np.float64))
            streed = STreeDClassifier(max_depth=depth, cost_complexity=0.0).fit(B, y_train)
            rows.append({"data set": name, "classes": int(np.unique(y).size), "fold": fold,
                         "estimator errors": int((est.predict(X_train) != y_train).sum()),
                         "pystreed errors": int((streed.predict(B) != y_train).sum())})
    return pd.DataFrame(rows)


def against_sklearn_tree(data: Data, *, folds: int, leaves: int, n_thresholds: int, seed: int) -> pd.DataFrame:
    """On every fold: TopDownClassifier (``leaves`` leaves) and scikit-learn's best-first tree grown on
    the same Boolean features; where the two trees cut the training rows into the same parts by the
    same features, the largest |probability difference| on the test rows and |importance difference|
    (scikit-learn's summed back onto the original columns)."""
    from sklearn.tree import DecisionTreeClassifier

    rows = []
    for name, (X, y) in data.items():
        A = X.to_numpy(dtype=np.float64)
        for fold, (train, test) in enumerate(cv_splits(X, y, folds=folds, seed=seed)):
            ours = TopDownClassifier(max_leaf_nodes=leaves, n_thresholds=n_thresholds).fit(A[train], y[train])
            B_train, B_test = (ours.binarizer_.transform(A[rows_]) for rows_ in (train, test))
            theirs = DecisionTreeClassifier(max_leaf_nodes=leaves,
                                            random_state=seeds.library_seed(seed, "ch06/importances"))
            theirs.fit(B_train, y[train])
            pairs = pd.DataFrame({"ours": ours.apply(A[train]), "theirs": theirs.apply(B_train)})
            same = (len(pairs.drop_duplicates()) == pairs["ours"].nunique() == pairs["theirs"].nunique()
                    and sorted(f for f in ours.boolean_tree_.feature if f >= 0)
                    == sorted(f for f in theirs.tree_.feature if f >= 0))
            summed = np.zeros(A.shape[1])
            np.add.at(summed, ours.binarizer_.columns, theirs.feature_importances_)
            rows.append({"data set": name, "fold": fold, "same tree": bool(same),
                         "probability deviation": float(np.abs(ours.predict_proba(A[test])
                                                               - theirs.predict_proba(B_test)).max()),
                         "importance deviation": float(np.abs(ours.feature_importances_ - summed).max())})
    return pd.DataFrame(rows)


def check_users(table: VerificationTable, cuts: pd.DataFrame, routing: pd.DataFrame, multiclass: pd.DataFrame,
                sklearn_tree: pd.DataFrame) -> None:
    """Four identity rows, every data set and fold: the cuts, the routing of missing values, the
    multi-class training error, and probabilities and importances where both trees agree (the folds
    where they part at a tie are counted on the page, not checked)."""
    table.identity("the estimators' cut points",
                   f"max |cut − NumPy's weighted-quantile cut| over {len(cuts)} training folds × weightings "
                   "(inf when the features differ)", float(cuts["deviation"].max()), 0.0,
                   computed_by=("dtcore.estimators.ThresholdBinarizer.fit",
                                "numpy.quantile(method='inverted_cdf', weights)"))
    table.identity("the estimators' missing values",
                   f"test rows whose leaf differs from the docstring's routing, {len(routing)} fits, "
                   f"{int(routing['rows with a new NaN'].sum())} rows with a NaN unseen in training",
                   float(routing["leaves differ"].sum()), 0.0,
                   computed_by=("dtcore.estimators.OptimalTreeClassifier.apply, TopDownClassifier.apply",
                                "dtbook.experiments.ch06.users.reference_leaves"))
    table.identity("FIND with k classes (outside the lemma's two labels)",
                   f"max |training errors of OptimalTreeClassifier − pystreed's| over {len(multiclass)} "
                   "multi-class folds", float((multiclass["estimator errors"] - multiclass["pystreed errors"])
                                              .abs().max()), 0.0,
                   computed_by=("dtcore.multiclass.multiclass_find", "pystreed.STreeDClassifier"))
    same = sklearn_tree[sklearn_tree["same tree"]]
    if len(same):
        table.identity("TopDown_G, probabilities and importances as scikit-learn's",
                       f"max |probability or importance (dtcore) − scikit-learn's| on the {len(same)} of "
                       f"{len(sklearn_tree)} folds where both grow the same tree",
                       float(same[["probability deviation", "importance deviation"]].to_numpy().max()), 1e-9,
                       computed_by=("dtcore.estimators.TopDownClassifier.predict_proba, feature_importances_",
                                    "sklearn.tree.DecisionTreeClassifier"))
    else:
        table.observation("TopDown_G, probabilities and importances as scikit-learn's", "folds where TopDown_G and scikit-learn grow the same tree",
                          0.0, why="the two trees parted at a tie on every fold, so no fold compares one tree")


def users_glue(cuts: pd.DataFrame, routing: pd.DataFrame, multiclass: pd.DataFrame,
               sklearn_tree: pd.DataFrame) -> dict[str, object]:
    """The numbers the page quotes about these checks."""
    return {"ch6_users_cut_fits": len(cuts), "ch6_users_features": int(cuts["features"].sum()),
            "ch6_users_nan_rows": f"{int(routing['rows with NaN'].sum()):,}",
            "ch6_users_new_nan_rows": f"{int(routing['rows with a new NaN'].sum()):,}",
            "ch6_users_multiclass_folds": len(multiclass),
            "ch6_users_same_tree": int(sklearn_tree["same tree"].sum()), "ch6_users_folds": len(sklearn_tree)}

