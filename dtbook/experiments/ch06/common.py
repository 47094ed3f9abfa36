"""Chapter 6's data sets, folds and table display, shared by every section.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dtcore.estimators import ThresholdBinarizer
from dtcore.validate import check_int
from ... import figures, seeds
from ...chapter import styled_table


#: The chapter's data sets, in the order of its tables and figures.
DATASETS = ("breast cancer", "digits", "flchain", "wine", "diabetes", "whas500")


#: The short name of each data set in the chapter's glue names (``ch6_gap_cancer``, ...).
GLUE_KEYS = {"breast cancer": "cancer", "digits": "digits", "flchain": "flchain", "wine": "wine",
             "diabetes": "diabetes", "whas500": "whas500"}


Data = Mapping[str, tuple[pd.DataFrame, np.ndarray]]


def load_dataset(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """One of :data:`DATASETS` as a DataFrame of numbers and 0/1 labels (1 = the class the text names).

    breast cancer: label 1 = benign; digits: label 1 = digit >= 5; flchain: label 1 = died during
    follow-up, with the cause of death (it reveals the label) and creatinine (often missing) dropped;
    wine: label 1 = the first cultivar; diabetes: label 1 = disease progression after a year above
    its median; whas500 (Worcester heart attack study): label 1 = died during follow-up, with the
    follow-up length (it reveals the label) left out.
    """
    from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine

    if name == "breast cancer":
        X, y = load_breast_cancer(return_X_y=True, as_frame=True)
        return X, (y.to_numpy() == 1).astype(np.uint8)
    if name == "digits":
        X, y = load_digits(return_X_y=True, as_frame=True)
        return X, (y.to_numpy() >= 5).astype(np.uint8)
    if name == "flchain":
        from sksurv.datasets import load_flchain

        raw, outcome = load_flchain()
        X = pd.DataFrame({"age": raw["age"], "male": (raw["sex"] == "M").astype(int),
                          "kappa": raw["kappa"], "lambda": raw["lambda"],
                          "flc group": raw["flc.grp"].astype(int), "mgus": (raw["mgus"] == "yes").astype(int),
                          "sample year": raw["sample.yr"].astype(int)}).reset_index(drop=True)
        return X, outcome["death"].astype(np.uint8)
    if name == "wine":
        X, y = load_wine(return_X_y=True, as_frame=True)
        return X, (y.to_numpy() == 0).astype(np.uint8)
    if name == "diabetes":
        X, target = load_diabetes(return_X_y=True, as_frame=True, scaled=False)
        return X, (target.to_numpy() > np.median(target)).astype(np.uint8)
    if name == "whas500":
        from sksurv.datasets import load_whas500

        raw, outcome = load_whas500()
        X = raw.apply(lambda col: col.astype(int) if isinstance(col.dtype, pd.CategoricalDtype) else col)
        return X.reset_index(drop=True), outcome["fstat"].astype(np.uint8)
    raise ValueError(f"name must be one of {list(DATASETS)}, got {name!r}")


def load_datasets() -> dict[str, tuple[pd.DataFrame, np.ndarray]]:
    """Every data set of :data:`DATASETS`, by name."""
    return {name: load_dataset(name) for name in DATASETS}


def dataset_overview(data: Data, *, n_thresholds: int) -> pd.DataFrame:
    """Rows, columns, positive rate and number of Boolean features ([BGLT20]'s cube) of each data set."""
    n_thresholds = check_int("n_thresholds", n_thresholds, 1)
    return pd.DataFrame([{"data set": name, "rows": X.shape[0], "columns": X.shape[1],
                          "positive rate": float(y.mean()),
                          "Boolean features": ThresholdBinarizer(n_thresholds).fit(X.to_numpy()).n_features}
                         for name, (X, y) in data.items()])


def cv_splits(X: pd.DataFrame, y: np.ndarray, *, folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) row indices of stratified, shuffled ``folds``-fold cross-validation.

    The shuffle is keyed by ``"ch06/folds"``, so every experiment of the chapter sees the same folds.
    """
    from sklearn.model_selection import StratifiedKFold

    folds = check_int("folds", folds, 2)
    return list(StratifiedKFold(folds, shuffle=True, random_state=seeds.library_seed(seed, "ch06/folds")).split(X, y))


def learner_colour(learner: str) -> str:
    """The book's colour of a learner of this chapter (:func:`figures.method_colour`); CART on the raw
    features, a second CART, gets the palette's reddish purple, and TopDown_G the colour of TopDown."""
    if "raw" in learner and "CART" in learner:
        return figures.OKABE_ITO[4]
    name = learner.removeprefix("best-first ").removeprefix("scikit-learn's ")
    return figures.method_colour(name)


def log_x(ax: plt.Axes, ticks: Sequence[int]) -> None:
    # A log x-axis labelled only at the given sizes (no minor-tick clutter).
    ax.set_xscale("log")
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.xaxis.set_minor_locator(plt.NullLocator())


_SHOWN_HEADERS = {"estimated_error": "Est(t)", "ci_low": "interval low", "ci_high": "interval high",
                  "labels_new": "new labels", "labels_total": "labels so far", "label_fn_calls": "label calls"}


def shown(frame: pd.DataFrame, *, digits: int = 3) -> Any:
    """``frame`` as the page shows it (:func:`dtbook.chapter.styled_table`, Est's columns named in words)."""
    return styled_table(frame, _SHOWN_HEADERS, digits=digits)
