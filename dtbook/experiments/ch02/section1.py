"""[BGLT20] Section 1: TopDown_G is scikit-learn's best-first CART (Section 1.1, on a random sample and on
the timing benchmark), and Est chooses the size parameter t from estimates alone (Section 1.2).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dtcore.audit.compare import splits_differing, tree_from_sklearn
from dtcore.cube import ProductDistribution, all_points
from dtcore.local import LabelOracle, SharedDraws, est, top_down_size_estimate
from dtcore.topdown import top_down
from ...report import VerificationTable
from .common import _cube_error, _tribes3
from .theorem3 import est_hoeffding


def cart_cross_check(n: int, n_train: int, *, rng: np.random.Generator, t: int = 24) -> pd.DataFrame:
    """Splits of TopDown_G ([BGLT20] Section 1.1, empirical weighting) that differ from scikit-learn's
    best-first ``DecisionTreeClassifier(max_leaf_nodes=t)``, for Gini and entropy, on one random
    product-distribution sample of min(n_train, 20000) points with a noisy linear-threshold label.
    scikit-learn's ``random_state`` (its order of the features, which breaks ties) is drawn from ``rng`` after
    the data, so the data are the same whatever it is."""
    from sklearn.tree import DecisionTreeClassifier

    X = ProductDistribution(rng.uniform(0.3, 0.7, n)).sample(min(n_train, 20000), rng=rng)
    w = rng.normal(size=n)
    y = ((X @ w + rng.normal(size=len(X))) > np.median(X @ w)).astype(np.uint8)
    random_state = int(rng.integers(2**31))
    rows = []
    for crit in ("gini", "entropy"):
        ours = top_down(X, y, size=t, impurity=crit).tree
        clf = DecisionTreeClassifier(criterion=crit, max_leaf_nodes=t, random_state=random_state).fit(X, y)
        rows.append({"criterion": crit, "splits": ours.size - 1,
                     "splits that differ": splits_differing(ours, tree_from_sklearn(clf, n))})
    return pd.DataFrame(rows)


def check_cart_cross_check(table: VerificationTable, cross: pd.DataFrame, t: int = 24) -> None:
    """Identity rows of [BGLT20] Section 1.1: no split differs from scikit-learn's."""
    for crit, differ in zip(cross["criterion"], cross["splits that differ"]):
        table.identity("Section 1.1 (TopDown_G = best-first CART)", f"splits differing from scikit-learn ({crit}, t = {t})",
                       differ, 0, box="alg-bglt-topdown",
                       computed_by=(top_down, "sklearn.tree.DecisionTreeClassifier"))


def candidate_sizes(sizes: Sequence[int]) -> list[int]:
    """The size parameters t among which the application chooses (more with a longer ``sizes`` grid)."""
    return sorted(set([4, 8, 16, 32, 64, 128][: 4 + len(sizes) // 2]))


def choose_t_by_est(n: int, n_train: int, *, n_test: int, candidates: Sequence[int], b: int,
                    rng: np.random.Generator) -> pd.DataFrame:
    """[BGLT20] Section 1.2: Est's estimate for each candidate t beside the true error of the tree trained
    on all labels, for tribes of width 3 (whose best tree has far more leaves than the largest candidate,
    so the candidates' true errors differ by more than the regret row's bound and a wrong choice shows);
    one label oracle shared across all t, so ``labels so far`` counts each point once."""
    X = ProductDistribution.uniform(n).sample(n_train, rng=rng)
    X_test = ProductDistribution.uniform(n).sample(n_test, rng=rng)
    y_test = _tribes3(X_test)
    cube = all_points(n)
    truth = _tribes3(cube)
    oracle = LabelOracle.from_function(X, _tribes3)
    rows = []
    for t in candidates:
        draws = SharedDraws.draw(n_train, n, b, rng=rng)
        out = est(X, oracle, size=t, batch_size=b, X_test=X_test, y_test=y_test, draws=draws)
        trained = top_down_size_estimate(X, LabelOracle.from_function(X, _tribes3), size=t, batch_size=b, draws=draws)
        rows.append({"t": t, "estimated error": out.error, "true error": _cube_error(trained.tree, cube, truth),
                     "labels so far": oracle.labelled, "requests so far": oracle.requests})
    return pd.DataFrame(rows)


def choice_summary(app: pd.DataFrame) -> dict[str, float]:
    """The t Est chooses, the t full training chooses, and the true-error regret of Est's choice."""
    t_by_est = int(app.loc[app["estimated error"].idxmin(), "t"])
    return {"t_by_est": t_by_est, "t_by_truth": int(app.loc[app["true error"].idxmin(), "t"]),
            "regret": float(app.loc[app["t"] == t_by_est, "true error"].iloc[0] - app["true error"].min())}


def inverted_choice_regret(app: pd.DataFrame) -> float:
    """The true-error regret of the t that Est would choose with every answer complemented (its estimate 1 − Est,
    so it picks the candidate of largest estimated error): the worse output of Section 1.2's row."""
    t_inverted = int(app.loc[app["estimated error"].idxmax(), "t"])
    return float(app.loc[app["t"] == t_inverted, "true error"].iloc[0] - app["true error"].min())


def check_choice(table: VerificationTable, app: pd.DataFrame, *, n_test: int, delta: float) -> None:
    """Row of [BGLT20] Section 1.2: the regret of the t chosen by Est is at most twice Hoeffding's
    half-width with a union bound over the candidates."""
    bound = 2 * est_hoeffding(n_test, delta, len(app))
    spread = float(app["true error"].max() - app["true error"].min())
    if spread <= bound:
        table.observation("Section 1.2 (choosing t)", f"true-error regret of the t chosen by Est (2 × Hoeffding, union over "
                                                      f"{len(app)} t)", choice_summary(app)["regret"], bound,
                          box="thm-bglt-3", why=f"the candidates' true errors differ by at most {spread:.3f}, within "
                                                 f"the bound: no choice could fail the row")
        return
    table.theorem("Section 1.2 (choosing t)", f"true-error regret of the t chosen by Est (2 × Hoeffding, union over {len(app)} t)",
                  choice_summary(app)["regret"], bound, reach=(0.0, spread), box="thm-bglt-3",
                  measured_by=(est, _cube_error), bound_by=est_hoeffding,
                  worst_case="tribes of width 3, where the candidates' true errors differ by up to "
                             f"{spread:.3f}",
                  fails_under=("the t chosen by Est answered by the label-inverted tree (the largest estimate: the fault "
                               "ch2-local-label-flipped)", inverted_choice_regret(app)))


def choice_glue(app: pd.DataFrame) -> dict[str, object]:
    """The numbers the text of the application quotes, by glue name."""
    s = choice_summary(app)
    return {"ch2_app_t_est": s["t_by_est"], "ch2_app_t_true": s["t_by_truth"], "ch2_app_regret": s["regret"],
            "ch2_app_spread": float(app["true error"].max() - app["true error"].min()),
            "ch2_app_worst_t": int(app.loc[app["true error"].idxmax(), "t"]),
            "ch2_app_labels": int(app["labels so far"].iloc[-1]), "ch2_app_requests": int(app["requests so far"].iloc[-1]),
            "ch2_app_inverted_regret": inverted_choice_regret(app)}


def speed_benchmark(m: int, d: int, t: int, *, rng: np.random.Generator) -> pd.DataFrame:
    """TopDown_G ([BGLT20] Section 1.1, Gini) and scikit-learn's best-first tree timed on the same
    ``m`` x ``d`` Boolean data with a noisy linear-threshold label, and the splits where they differ.
    scikit-learn's ``random_state`` is drawn from ``rng`` after the data."""
    from sklearn.tree import DecisionTreeClassifier

    X = (rng.random((m, d)) < 0.5).astype(np.uint8)
    w = rng.normal(size=d)
    y = ((X @ w + rng.normal(size=m)) > w.sum() / 2).astype(np.uint8)
    random_state = int(rng.integers(2**31))
    start = time.perf_counter()
    ours = top_down(X, y, size=t, impurity="gini")
    time_ours = time.perf_counter() - start
    start = time.perf_counter()
    clf = DecisionTreeClassifier(criterion="gini", max_leaf_nodes=t, random_state=random_state).fit(X, y)
    time_sklearn = time.perf_counter() - start
    return pd.DataFrame([{"m": m, "d": d, "t": t, "dtcore_s": time_ours, "sklearn_s": time_sklearn,
                          "splits_differing": splits_differing(ours.tree, tree_from_sklearn(clf, d))}])


def _benchmark_shape(speed: pd.DataFrame) -> tuple[int, int, int]:
    return int(speed["m"].iloc[0]), int(speed["d"].iloc[0]), int(speed["t"].iloc[0])


def check_speed(table: VerificationTable, speed: pd.DataFrame) -> None:
    """Identity row of [BGLT20] Section 1.1 on the benchmark: the two trees make the same splits."""
    m, d, t = _benchmark_shape(speed)
    table.identity("Section 1.1 (TopDown_G = best-first CART)",
                   f"splits differing from scikit-learn (benchmark, {m} x {d}, t = {t})",
                   int(speed["splits_differing"].iloc[0]), 0, box="alg-bglt-topdown",
                   computed_by=(top_down, "sklearn.tree.DecisionTreeClassifier"))


def speed_glue(speed: pd.DataFrame) -> dict[str, object]:
    """The timings the text quotes, by glue name."""
    m, d, t = _benchmark_shape(speed)
    ours, sklearn = float(speed["dtcore_s"].iloc[0]), float(speed["sklearn_s"].iloc[0])
    return {"ch2_speed_ratio": sklearn / ours, "ch2_speed_ours": ours, "ch2_speed_sklearn": sklearn,
            "ch2_speed_shape": f"{m:,} × {d}, t = {t}"}
