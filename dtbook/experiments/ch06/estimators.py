"""The estimators as a practitioner uses them: several classes, probabilities, missing values, feature
importances (against scikit-learn's on a tree both sides agree on) and a drawing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dtcore.estimators import OptimalTreeClassifier, TopDownClassifier
from ... import figures, seeds
from ...report import VerificationTable
from .common import Data, load_dataset


#: Multi-class versions of two data sets: every digit, every cultivar.
MULTICLASS_DATASETS = ("digits (10 classes)", "wine (3 cultivars)")


def load_multiclass(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """One of :data:`MULTICLASS_DATASETS` with its original class labels."""
    from sklearn.datasets import load_digits, load_wine

    loaders = {"digits (10 classes)": load_digits, "wine (3 cultivars)": load_wine}
    if name not in loaders:
        raise ValueError(f"name must be one of {list(MULTICLASS_DATASETS)}, got {name!r}")
    X, y = loaders[name](return_X_y=True, as_frame=True)
    return X, y.to_numpy()


def load_flchain_with_missing() -> tuple[pd.DataFrame, np.ndarray]:
    """flchain with its creatinine column, missing for some people (NaN), beside the other features."""
    from sksurv.datasets import load_flchain

    X, y = load_dataset("flchain")
    raw, _ = load_flchain()
    return X.assign(creatinine=raw["creatinine"].to_numpy()), y


def _learners(*, depth: int, n_thresholds: int, random_state: int) -> dict[str, Any]:
    from sklearn.tree import DecisionTreeClassifier

    from dtcore.estimators import ID3Classifier

    return {"FIND": OptimalTreeClassifier(max_depth=depth, n_thresholds=n_thresholds),
            "ID3": ID3Classifier(max_depth=depth, n_thresholds=n_thresholds),
            "TopDown_G": TopDownClassifier(max_leaf_nodes=2 ** depth, n_thresholds=n_thresholds),
            "CART (scikit-learn)": DecisionTreeClassifier(max_depth=depth, random_state=random_state)}


def practitioner_scores(data: Data, *, folds: int, depth: int, n_thresholds: int, seed: int) -> pd.DataFrame:
    """Cross-validated accuracy, and ROC-AUC (one against the rest for several classes) from
    ``predict_proba``, of the three estimators and scikit-learn's tree at depth ``depth`` (TopDown_G at
    2^depth leaves), on each data set of ``data`` (any number of classes, NaN allowed)."""
    from sklearn.model_selection import StratifiedKFold, cross_validate

    random_state = seeds.library_seed(seed, "ch06/practitioner")
    rows = []
    for name, (X, y) in data.items():
        splitter = StratifiedKFold(folds, shuffle=True, random_state=random_state)
        auc = "roc_auc" if np.unique(y).size == 2 else "roc_auc_ovr"
        for learner, est in _learners(depth=depth, n_thresholds=n_thresholds, random_state=random_state).items():
            scores = cross_validate(est, X, y, cv=splitter, scoring={"accuracy": "accuracy", "auc": auc})
            rows.append({"data set": name, "classes": int(np.unique(y).size), "learner": learner,
                         "accuracy": float(scores["test_accuracy"].mean()), "ROC-AUC": float(scores["test_auc"].mean()),
                         "fit seconds": float(np.median(scores["fit_time"]))})
    return pd.DataFrame(rows)


def importances_against_sklearn(X: pd.DataFrame, y: np.ndarray, *, size: int, n_thresholds: int,
                                seed: int) -> pd.DataFrame:
    """TopDown_G's ``feature_importances_`` beside scikit-learn's best-first tree grown on the same
    Boolean features, its importances summed back onto the original columns; ``same tree`` says
    whether the two trees cut the training points into the same parts by splits on the same Boolean
    features (then the importances must agree)."""
    from sklearn.tree import DecisionTreeClassifier

    ours = TopDownClassifier(max_leaf_nodes=size, n_thresholds=n_thresholds).fit(X, y)
    B = ours.binarizer_.transform(X.to_numpy())
    theirs = DecisionTreeClassifier(max_leaf_nodes=size, random_state=seeds.library_seed(seed, "ch06/importances"))
    theirs.fit(B, y)
    summed = np.zeros(X.shape[1])
    np.add.at(summed, ours.binarizer_.columns, theirs.feature_importances_)
    # one tree when the leaves cut the training points into the same parts (leaf numbers differ) by
    # splits on the same Boolean features (two columns may give one feature on the training data)
    pairs = pd.DataFrame({"ours": ours.apply(X), "theirs": theirs.apply(B)})
    same = (len(pairs.drop_duplicates()) == pairs["ours"].nunique() == pairs["theirs"].nunique()
            and sorted(f for f in ours.boolean_tree_.feature if f >= 0) == sorted(f for f in theirs.tree_.feature if f >= 0))
    frame = pd.DataFrame({"feature": X.columns, "dtcore": ours.feature_importances_, "scikit-learn": summed})
    frame["same tree"] = same
    return frame.sort_values("dtcore", ascending=False, kind="stable").reset_index(drop=True)


def largest_shared_tree(X: pd.DataFrame, y: np.ndarray, *, sizes: Sequence[int], n_thresholds: int,
                        seed: int) -> tuple[int, pd.DataFrame]:
    """The largest size of ``sizes`` at which TopDown_G and scikit-learn grow the same tree (else the
    smallest size), and :func:`importances_against_sklearn` there."""
    frames = {t: importances_against_sklearn(X, y, size=t, n_thresholds=n_thresholds, seed=seed) for t in sizes}
    shared = [t for t, f in frames.items() if bool(f["same tree"].iloc[0])]
    size = max(shared) if shared else min(sizes)
    return size, frames[size]


def check_practitioner(table: VerificationTable, scores: pd.DataFrame, importances: pd.DataFrame) -> None:
    """Importances as an identity (two implementations of scikit-learn's definition on one tree); the
    scores as observations (no theorem bounds held-out accuracy or ROC-AUC)."""
    if bool(importances["same tree"].iloc[0]):
        table.identity("TopDown_G, importances as scikit-learn's", "max |importance (dtcore) − importance (scikit-learn, same "
                       "tree)| over the columns of breast cancer", float((importances["dtcore"]
                                                                           - importances["scikit-learn"]).abs().max()),
                       1e-9, computed_by=("dtcore.estimators.TopDownClassifier.feature_importances_",
                                          "sklearn.tree.DecisionTreeClassifier.feature_importances_"))
    else:
        table.observation("TopDown_G, importances as scikit-learn's", "max |importance difference| over the columns",
                          float((importances["dtcore"] - importances["scikit-learn"]).abs().max()),
                          why="the two trees parted at a tie between equal gains, so they are different trees")
    for row in scores[scores["learner"] != "CART (scikit-learn)"].itertuples():
        cart = scores[(scores["data set"] == row._1) & (scores["learner"] == "CART (scikit-learn)")]
        table.observation(f"{row.learner.split(' ')[0]} against CART, ROC-AUC", f"{row._1}: ROC-AUC {row.learner} − CART at equal depth",
                          float(row._5 - cart["ROC-AUC"].iloc[0]),
                          why="ranking quality of two heuristics on held-out data; no paper bounds it")


def tree_drawing(X: pd.DataFrame, y: np.ndarray, *, depth: int, n_thresholds: int) -> plt.Figure:
    """FIND's optimal depth-``depth`` tree drawn by :func:`dtcore.export.plot_tree`, class names at the leaves."""
    from dtcore.export import plot_tree

    est = OptimalTreeClassifier(max_depth=depth, n_thresholds=n_thresholds).fit(X, np.where(y == 1, "benign",
                                                                                              "malignant"))
    fig, ax = figures.figure(height=2.2 + 1.1 * depth)
    plot_tree(est, ax=ax, fontsize=10)
    return fig


def practitioner_glue(scores: pd.DataFrame, importances: pd.DataFrame, *, size: int,
                             flchain: pd.DataFrame, comparison: pd.DataFrame) -> dict[str, Any]:
    """The numbers the practitioner section quotes: ROC-AUC on breast cancer per learner, the classes
    of the multi-class sets, the missing creatinine values, the importance comparison's size and top
    feature, and the largest accuracy gap to scikit-learn on the synthetic problem."""
    auc = scores.set_index(["data set", "learner"])["ROC-AUC"]
    values: dict[str, Any] = {f"ch6_auc_{key}": float(auc[("breast cancer", learner)]) for key, learner in
                              (("find", "FIND"), ("id3", "ID3"), ("td", "TopDown_G"), ("cart", "CART (scikit-learn)"))}
    values["ch6_missing_creatinine"] = f"{int(flchain['creatinine'].isna().sum()):,}"
    values["ch6_flchain_auc_td"] = float(auc[("flchain with creatinine", "TopDown_G")])
    values["ch6_flchain_auc_cart"] = float(auc[("flchain with creatinine", "CART (scikit-learn)")])
    acc = scores.set_index(["data set", "learner"])["accuracy"]
    values["ch6_digits10_find"] = float(acc[("digits (10 classes)", "FIND")])
    values["ch6_digits10_cart"] = float(acc[("digits (10 classes)", "CART (scikit-learn)")])
    values["ch6_importance_size"] = int(size)
    values["ch6_importance_top"] = str(importances["feature"].iloc[0])
    values["ch6_importance_top_value"] = float(importances["dtcore"].iloc[0])
    greedy = comparison[comparison["learner"] != "FIND"]
    values["ch6_sk_gap_max"] = float(greedy["gap_points"].abs().max())
    values["ch6_sk_fit_ratio_max"] = float((greedy["fit_s"] / greedy["sklearn_fit_s"]).max())
    return values
