"""[BDM20] Lemma 8 (Sec. 2.2, book Lemma 5.5): the empirical covariance I(S_w, i) is within 3t of
I(D_w, i) on every path inside J, on fresh samples; ID3's gain against its rebuild from I(S_w, i)
(Sec. 1.1), and Lemmas 5 and 6 on the same paths."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dtcore import bounds
from dtcore.cube import ProductDistribution
from dtcore.functions import junta
from dtcore.id3 import gains
from dtcore.impurity import get_impurity
from dtcore.smoothed import all_restrictions, covariance_measure, empirical_covariance, hoeffding_covariance_deviation
from dtcore.validate import check_real, check_rng
from ...report import VerificationTable
from .common import PROBLEM_KINDS, draw_problem, not_applicable


def audit_paths(kind: str, m: int, runs: int, *, rng: np.random.Generator, n: int, k: int, alpha: float, c: float,
                impurity: str) -> pd.DataFrame:
    """Every path w inside J of ``runs`` fresh problems (:func:`draw_problem`, m examples): |S_w|, and
    for each free coordinate i, I(S_w, i), I(D_w, i) and Gain(S_w, i) ([BDM20] Lemmas 5, 6 and 8), the
    covariance ``I_S_inverted`` of the same sample with its labels inverted (y ↦ 1 − y, Lemma 8's worse output),
    with the sample frequencies ``p_bar`` = Pr_S_w[x_i = 1] and ``y_bar`` = Pr_S_w[y = 1] (for
    :func:`gain_identity_deviation`). An empty S_w gives one row with size 0."""
    rng = check_rng(rng)
    rows = []
    W = all_restrictions(k)
    for r in range(runs):
        J, t, D = draw_problem(kind, rng=rng, n=n, k=k, alpha=alpha, c=c)
        X = D.sample(m, rng=rng)
        y = junta(X, J, t)
        exact = np.zeros((W.shape[0], n))
        exact[:, J] = covariance_measure(t, ProductDistribution(D.p[J]), W)
        relevant = np.isin(np.arange(n), J)
        for p_idx, w in enumerate(W):  # one NumPy pass over the sample per path
            fixed = w >= 0
            rows_w = (X[:, J[fixed]] == w[fixed]).all(axis=1)
            N = int(rows_w.sum())
            if N == 0:
                rows.append({"kind": kind, "run": r, "path": p_idx, "size": 0})
                continue
            Xw, yw = X[rows_w], y[rows_w]
            I_S = empirical_covariance(Xw, yw)
            I_inverted = empirical_covariance(Xw, 1 - yw)  # the label-inverted sample: the row's worse output
            g = gains(Xw, yw, impurity)
            p_bar, y_bar = Xw.mean(axis=0), float(yw.mean())
            free = np.ones(n, dtype=bool)
            free[J[fixed]] = False
            for i in np.flatnonzero(free):
                rows.append({"kind": kind, "run": r, "path": p_idx, "size": N, "feature": int(i),
                             "relevant": bool(relevant[i]), "I_S": float(I_S[i]),
                             "I_S_inverted": float(I_inverted[i]), "I_D": float(exact[p_idx, i]),
                             "gain": float(g[i]), "p_bar": float(p_bar[i]), "y_bar": y_bar})
    return pd.DataFrame(rows)


def run_path_audit(*, n: int, k: int, alpha: float, c: float, impurity: str, m: int, runs: int,
                   rng: np.random.Generator) -> pd.DataFrame:
    """:func:`audit_paths` for both :data:`PROBLEM_KINDS`, one frame."""
    return pd.concat([audit_paths(kind, m, runs, rng=rng, n=n, k=k, alpha=alpha, c=c, impurity=impurity)
                      for kind in PROBLEM_KINDS], ignore_index=True)


def audit_deviations(audit: pd.DataFrame, *, delta: float) -> tuple[pd.DataFrame, int]:
    """The audit's non-empty paths with the Hoeffding deviation 3t of [BDM20] Lemma 8 (column
    ``hoeffding``) at δ / (number of (run, path, coordinate) triples), a union bound over all of them.
    Returns ``(frame, triples)``."""
    delta = check_real("delta", delta, 0.0, 1.0)
    triples = int(audit.feature.notna().sum())
    filled = audit[audit["size"] > 0].copy()
    filled["hoeffding"] = hoeffding_covariance_deviation(filled["size"], delta / triples)
    return filled, triples


def gain_identity_deviation(filled: pd.DataFrame, *, impurity: str) -> tuple[float, int]:
    """Largest |Gain(S_w, i) − G_I| over the audited (path, coordinate) pairs whose x_i is not constant on S_w.

    ``Gain`` is ID3's (:func:`dtcore.id3.gains`, from its label and feature counts); ``G_I`` rebuilds it from
    the empirical covariance (:func:`dtcore.smoothed.empirical_covariance`) alone: the conditional label
    frequencies are ȳ + I/p̄ and ȳ − I/(1 − p̄), so G_I = C(ȳ) − p̄ C(ȳ + I/p̄) − (1 − p̄) C(ȳ − I/(1 − p̄))
    (for Gini, 4 I²/(p̄(1 − p̄))). Returns ``(deviation, pairs compared)``.
    """
    both = filled[(filled.p_bar > 0) & (filled.p_bar < 1)]
    if not len(both):
        return 0.0, 0
    C = get_impurity(impurity)
    p, y, cov = both.p_bar.to_numpy(), both.y_bar.to_numpy(), both.I_S.to_numpy()
    # clip the rebuilt frequencies into [0, 1]: float rounding can step a pure child's 0 or 1 over the edge
    rebuilt = C(y) - p * C(np.clip(y + cov / p, 0.0, 1.0)) - (1 - p) * C(np.clip(y - cov / (1 - p), 0.0, 1.0))
    return float(np.abs(both.gain.to_numpy() - rebuilt).max()), len(both)


def hoeffding_as_printed(size: np.ndarray, delta: float) -> np.ndarray:
    """Lemma 8's deviation written afresh (a second evaluation beside
    :func:`dtcore.smoothed.hoeffding_covariance_deviation`): three Hoeffding intervals of half-width
    t = sqrt(ln(2 / (δ/3)) / (2N)) = sqrt(ln(6/δ) / (2N)), one per mean, and 3t for the covariance."""
    t = np.sqrt(np.log(2.0 / (delta / 3.0)) / (2.0 * np.asarray(size, dtype=np.float64)))
    return t + t + t


def _lemma8_event(filled: pd.DataFrame) -> pd.DataFrame:
    # relevant (w, i) with I(D_w, i) != 0 where |I(S_w, i) - I(D_w, i)| <= |I(D_w, i)| / 2
    return filled[filled.relevant & (np.abs(filled.I_S - filled.I_D) <= np.abs(filled.I_D) / 2) & (filled.I_D != 0)]


def _deviation_ratio(filled: pd.DataFrame, column: str = "I_S") -> float:
    return float((np.abs(filled[column] - filled.I_D) / filled.hoeffding).max())


#: [BDM20] Lemma 8's worse output: the covariance estimate of the label-inverted sample (−I(S_w, i)).
LEMMA8_WORSE = "the covariance of the label-inverted sample (y ↦ 1 − y), every audited path"


def check_path_audit(table: VerificationTable, filled: pd.DataFrame, triples: int, *, beta: float, gamma: float,
                     impurity: str, delta: float, m: int) -> None:
    """[BDM20] Lemma 8 (|I(S_w, i) − I(D_w, i)| ≤ 3t everywhere, a theorem check at confidence 1 − δ),
    ID3's gains against their rebuild from the covariance (an identity), and, as observations since they
    follow from those two by algebra, Lemma 5 (irrelevant gains ≤ 2γ·3t) and Lemma 6 (relevant gains
    ≥ β I(D_w, i)²/8 where Lemma 5.5's event holds) on every path inside J."""
    # |I(S_w,i) - I(D_w,i)| <= 1/2 (both covariances lie in [-1/4, 1/4]): the ratio's reach at the smallest 3t
    reach_high = 0.5 / float(filled.hoeffding.min())
    quantity = f"max over runs, paths w inside J, i of |I(S_w,i) - I(D_w,i)| / (3t), m={m}"
    note = f"t = sqrt(ln(6/delta)/(2|S_w|)), delta = {delta:g} / {triples} triples (a union bound)"
    if reach_high > 1.0:
        table.theorem("Lemma 5.5 (paper's Lemma 8)", quantity, _deviation_ratio(filled), 1.0, reach=(0.0, reach_high), box="lem-id3-8",
                      measured_by=(empirical_covariance, covariance_measure), bound_by=hoeffding_covariance_deviation,
                      worst_case=f"every path inside J of {filled.run.nunique()} runs per problem kind, fresh samples",
                      note=note + "; fails with probability <= delta on correct code",
                      fails_under=(LEMMA8_WORSE, _deviation_ratio(filled, "I_S_inverted")))
    else:
        table.observation("Lemma 5.5 (paper's Lemma 8)", quantity, _deviation_ratio(filled), 1.0, box="lem-id3-8",
                          why=f"vacuous at this m: every |I(S_w,i) - I(D_w,i)| <= 1/2 is within 3t ({note})")
    fresh = hoeffding_as_printed(filled["size"].to_numpy(), delta / triples)
    table.identity("Lemma 5.5 (paper's Lemma 8)", "largest relative difference of the deviation 3t between "
                   "dtcore.smoothed and the formula 3 sqrt(ln(6/delta)/(2|S_w|)) written afresh, every audited path",
                   float(np.max(np.abs(filled.hoeffding.to_numpy() - fresh) / fresh)), 1e-12,
                   computed_by=(hoeffding_covariance_deviation, hoeffding_as_printed), box="lem-id3-8",
                   worst_case=f"{len(filled)} (run, path, coordinate) rows, |S_w| from {int(filled['size'].min())} to "
                              f"{int(filled['size'].max()):,}",
                   note="e.g. |S_w| = 100, delta = 0.05: 3 sqrt(ln(120)/200) = 3 sqrt(0.023937) = 0.4642")
    dev, pairs = gain_identity_deviation(filled, impurity=impurity)
    table.identity("ID3's gain (Sec. 1.1)", f"max |Gain(S_w,i) - its rebuild from I(S_w,i)| over {pairs} audited (w, i) "
                   f"pairs, {impurity}", dev, 1e-9, computed_by=(gains, empirical_covariance), box="alg-id3-1",
                   note="the rebuild: C(y) - p C(y + I/p) - (1-p) C(y - I/(1-p)) with p, y the sample frequencies "
                        "of x_i = 1 and y = 1 on S_w (for Gini 4 I^2/(p(1-p)))")
    irr = filled[~filled.relevant]
    if math.isfinite(gamma):
        table.observation("Lemma 5.3 (paper's Lemma 5)", f"max over irrelevant j of Gain(S_w,j) / (2 gamma 3t), all paths inside J, m={m}",
                          float((irr.gain / bounds.bdm20_lemma5_gain_upper(gamma, irr.hoeffding)).max()), 1.0,
                          box="lem-id3-5",
                          why="follows by algebra from Lemma 5.5's row: Gain <= 2 gamma |I(S_w,j)| for every sample and "
                              "I(D_w,j) = 0 for irrelevant j (the gain identity guards the gains)")
    else:
        not_applicable(table, "Lemma 5.3 (paper's Lemma 5)", "max over irrelevant j of Gain(S_w,j) / (2 gamma 3t)", "lem-id3-5",
                       impurity=impurity)
    strong = _lemma8_event(filled)
    if len(strong):
        table.observation("Lemma 5.4 (paper's Lemma 6)", f"min Gain(S_w,i) / (beta I(D_w,i)^2/8) over relevant (w, i) where Lemma 5.5's "
                          f"event |I(S_w,i) - I(D_w,i)| <= |I(D_w,i)|/2 holds ({len(strong)} of "
                          f"{int(filled.relevant.sum())}), m={m}",
                          float((strong.gain / bounds.bdm20_lemma6_gain_lower(beta, np.abs(strong.I_D))).min()), 1.0,
                          relation=">=", box="lem-id3-6",
                          why="on Lemma 5.5's event it follows by algebra (|I(S_w,i)| >= |I(D_w,i)|/2 and Gain >= 2 beta "
                              "I(S_w,i)^2 give a ratio >= 4); the exhaustive supremum is the check")


def path_audit_glue(audit: pd.DataFrame, filled: pd.DataFrame, *, delta: float) -> dict[str, object]:
    """The numbers the text quotes about the path audit, by glue name."""
    return {"ch5_audit_delta": f"{delta:g}", "ch5_audit_dev": _deviation_ratio(filled),
            "ch5_audit_inverted": _deviation_ratio(filled, "I_S_inverted"),
            "ch5_audit_empty": float((audit["size"] == 0).mean()), "ch5_audit_strong": len(_lemma8_event(filled)),
            "ch5_audit_premise": float((filled.relevant & (np.abs(filled.I_D) >= 2 * filled.hoeffding)).sum()),
            "ch5_audit_relevant": int(filled.relevant.sum())}
