"""[BDM20] Lemma 9 (Sec. 2.3, book Lemma 5.2): the covariance of a parity's relevant coordinate under
an (α, c)-distribution is at least α²(2c)^(k−1), on random members and at its exhaustive supremum over
every parity on n ≤ 4 variables; Sec. 2.1's definition of I computed two ways."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from dtcore import bounds
from dtcore.audit import worst_case
from dtcore.functions import parity_table
from dtcore.smoothed import all_restrictions, alpha_c_distribution, covariance_by_enumeration, covariance_measure
from dtcore.validate import check_int, check_real
from ... import figures
from ...report import VerificationTable, worst


def lemma9_covariances(*, ks: Sequence[int], alpha: float, c: float, reps: int,
                       rng: np.random.Generator) -> tuple[pd.DataFrame, float]:
    """[BDM20] Lemma 9 exactly: for ``reps`` random and corner (α, c)-distributions per k, the smallest
    |I(D_w, j)| over all 3^k paths w and free j of the k-parity, and its ratio to α²(2c)^(k−1).

    Returns ``(frame, identity_dev)``: one row per distribution, and the largest difference between
    the multilinear form of I and the direct sum over the 2^k points (Sec. 2.1's definition).
    """
    reps = check_int("reps", reps, 1)
    rows, identity_dev = [], 0.0
    for member in ("random", "corner"):
        for k in ks:
            W = all_restrictions(k)
            t = parity_table(k)
            free = W < 0
            for r in range(reps):
                D = alpha_c_distribution(k, alpha, c, rng=rng, member=member)
                I = covariance_measure(t, D, W)
                identity_dev = max(identity_dev, float(np.abs(I - covariance_by_enumeration(t, D, W)).max()))
                vals = np.abs(I[free])
                rows.append({"member": member, "k": k, "rep": r, "min_abs_I": float(vals.min()),
                             "median_abs_I": float(np.median(vals)),
                             "bound": bounds.bdm20_lemma9_covariance_lower(alpha, c, k)})
    lem9 = pd.DataFrame(rows)
    lem9["ratio"] = lem9.min_abs_I / lem9.bound
    return lem9, identity_dev


def check_lemma9(table: VerificationTable, lem9: pd.DataFrame, identity_dev: float, *, alpha: float,
                 c: float) -> None:
    """Sec. 2.1's two forms of I agree; [BDM20] Lemma 9's bound holds for every member and k."""
    table.identity("Sec. 2.1 (definition of I)",
                   "max |I(D_w,i)|: multilinear form - direct sum over 2^k points, all w, i", identity_dev, 1e-12,
                   computed_by=(covariance_measure, covariance_by_enumeration))
    for (member, k), g in lem9.groupby(["member", "k"]):
        table.observation("Lemma 5.2 (paper's Lemma 9)", f"min over w, free j in J of |I(D_w,j)|, k={k}, {member} members",
                          worst(g.min_abs_I, "min"), bounds.bdm20_lemma9_covariance_lower(alpha, c, k), relation=">=",
                          box="lem-id3-9",
                          why="random instances; the exhaustive supremum (every parity on n <= 4 variables) is the check")


def lemma9_figure(lem9: pd.DataFrame, *, alpha: float) -> Figure:
    """Smallest covariance / [BDM20] Lemma 9's bound per distribution, against k, with the corner's limit."""
    fig, ax = figures.figure(1, height=3.8)
    sns.stripplot(data=lem9, x="k", y="ratio", hue="member", dodge=True, ax=ax, alpha=0.6, palette=[figures.OKABE_ITO[0], figures.OKABE_ITO[3]])
    ax.axhline(1.0, color="k", lw=1.5, label="Lemma 5.2's bound (ratio 1)")
    ax.axhline((1 - alpha) / alpha, color="k", ls=":", lw=1, label="$(1-\\alpha)/\\alpha$: the corner's limit")
    ax.set(yscale="log", xlabel="parity size k", ylabel="min $|\\mathcal{I}(\\mathcal{D}_w,j)|$ / bound")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), title="member")
    return fig


def lemma9_glue(lem9: pd.DataFrame, identity_dev: float, *, alpha: float) -> dict[str, float]:
    """The smallest ratios of random and corner members, the corner's limit (1 − α)/α, the identity's
    deviation, by glue name."""
    return {"ch5_lemma9_ratio": float(lem9[lem9.member == "random"].ratio.min()),
            "ch5_lemma9_ratio_corner": float(lem9[lem9.member == "corner"].ratio.min()),
            "ch5_lemma9_corner": (1 - alpha) / alpha, "ch5_identity_dev": identity_dev}


def exhaustive_lemma9(*, alpha_c: Sequence[tuple[float, float]], n: int = 4) -> pd.DataFrame:
    """[BDM20] Lemma 9 at its supremum over every parity on ``n`` ≤ 4 variables, every restriction w,
    every free j in J and the 4^n corner measures of each (α, c) (:func:`dtcore.audit.worst_case.parity_suprema`).

    One row per (α, c): ``sup_ratio`` (bound / |I(D_w, j)|, 1 = the bound), the verdict, the witness
    parity (``table`` in hex, its size ``k``) and measure, the covariance at the witness and the bound
    α²(2c)^(k−1) there, and the number of cases.
    """
    pairs = [(check_real("alpha", a, 0.0, 0.5), check_real("c", cc, 0.0, 0.5)) for a, cc in alpha_c]
    tracker = worst_case.parity_suprema(pairs, n)
    points = np.arange(2**n)
    rows = []
    for alpha, c in pairs:
        sup = tracker.best[("Lemma 9", f"alpha = {alpha:g}, c = {c:g}")]
        values = (sup.function >> points) & 1
        k = int(sum(np.any(values != values[points ^ (1 << i)]) for i in range(n)))  # the parity's relevant bits
        bound = bounds.bdm20_lemma9_covariance_lower(alpha, c, k)
        record = sup.row()
        rows.append({"alpha": alpha, "c": c, "sup_ratio": sup.ratio, "verdict": sup.verdict, "table": record["table"],
                     "k": k, "measure": record["measure"], "covariance": bound / sup.ratio, "bound": bound,
                     "cases": sup.cases})
    return pd.DataFrame(rows)


#: The exhaustive grid's corner p_j = α(1 + 1e-9), a hair inside the open class
#: (:func:`dtcore.audit.worst_case.parity_suprema`).
CORNER_INSET = 1e-9


def lemma9_infimum(alpha: float, c: float, k: int, *, inset: float = 0.0) -> float:
    """The infimum of |I(D_w, j)| over [BDM20] Lemma 9's class, from its proof's identity
    |I(D_w, j)| = p_j(1 − p_j) · Π_{i free, i ≠ j} 2|p_i − 1/2|: α(1 − α)(2c)^(k−1), approached at p_j → α
    and |p_i − 1/2| = c with every bit of J free; with ``inset`` > 0, its value at p_j = α(1 + inset)."""
    p = float(alpha) * (1.0 + float(inset))
    return p * (1.0 - p) * math.pow(2.0 * float(c), int(k) - 1)


def check_exhaustive_lemma9(table: VerificationTable, sup9: pd.DataFrame) -> None:
    """[BDM20] Lemma 9 over every parity on n ≤ 4, every path, free j and corner measure, per (α, c).

    The lemma holds by algebra: its proof writes |I(D_w, j)| in closed form, whose infimum over the class
    is α(1 − α)(2c)^(k−1) (:func:`lemma9_infimum`), above α²(2c)^(k−1) whenever α < 1/2, with room exactly
    (1 − α)/α. So the counted row is an identity, the enumerated least covariance (truth tables and
    product measures, no use of the proof's formula) against that closed form, largest relative
    deviation over the (α, c) pairs; each pair's room against the printed bound is shown as an
    observation."""
    closed = np.array([lemma9_infimum(r.alpha, r.c, int(r.k), inset=CORNER_INSET) for r in sup9.itertuples()])
    deviation = float(np.max(np.abs(sup9.covariance.to_numpy() - closed) / closed))
    table.identity("Lemma 5.2 (paper's Lemma 9)", "largest relative difference between the least |I(D_w,j)| over every "
                   f"parity, path w, free j and corner measure on n <= 4 variables and the proof's infimum "
                   f"alpha (1 - alpha) (2c)^(k-1) at the grid's corner alpha (1 + 1e-9), at the {len(sup9)} (alpha, c) pairs",
                   deviation, 1e-11, computed_by=(worst_case.parity_suprema, lemma9_infimum), box="lem-id3-9",
                   worst_case="; ".join(f"parity 0x{r.table} (k = {r.k}), p = {r.measure}" for r in sup9.itertuples()),
                   note=f"exhaustive over {int(sup9.cases.sum()):,} (parity, w, j, corner measure) cases")
    for r in sup9.itertuples():
        table.observation("Lemma 5.2 (paper's Lemma 9)", f"least |I(D_w,j)| over every parity on n <= 4 variables "
                          f"against the bound, alpha={r.alpha:g}, c={r.c:g}", r.covariance, r.bound, relation=">=",
                          box="lem-id3-9",
                          worst_case=f"parity 0x{r.table} (k = {r.k}), p = {r.measure}; exhaustive over {r.cases:,} cases",
                          why=f"holds by algebra: the least covariance is the proof's alpha (1 - alpha) (2c)^(k-1) "
                              f"(the identity above) and alpha (1 - alpha) > alpha^2 for alpha < 1/2; room exactly "
                              f"(1 - alpha)/alpha = {(1 - r.alpha) / r.alpha:.4g} at every k and c")


def lemma9_bound_as_printed(alpha: float, c: float, k: int) -> float:
    """[BDM20] Lemma 9's bound written afresh from the printed statement, |I(D_w, j)| > α²(2c)^(k−1)
    (a second evaluation beside :func:`dtcore.bounds.bdm20_lemma9_covariance_lower`)."""
    return float(alpha) * float(alpha) * math.pow(2.0 * float(c), int(k) - 1)


def check_lemma9_bound(table: VerificationTable, sup9: pd.DataFrame) -> None:
    """The bound of the Lemma 9 theorem rows computed twice: by :mod:`dtcore.bounds` and from the printed
    formula (:func:`lemma9_bound_as_printed`); an identity on their largest relative difference."""
    fresh = np.array([lemma9_bound_as_printed(r.alpha, r.c, r.k) for r in sup9.itertuples()])
    used = np.array([bounds.bdm20_lemma9_covariance_lower(r.alpha, r.c, int(r.k)) for r in sup9.itertuples()])
    table.identity("Lemma 5.2 (paper's Lemma 9)", "largest relative difference of the bound alpha^2 (2c)^(k-1) between "
                   f"dtcore.bounds and the printed formula, at the {len(sup9)} (alpha, c) pairs of the exhaustive rows",
                   float(np.max(np.abs(used - fresh) / fresh)), 1e-12,
                   computed_by=(bounds.bdm20_lemma9_covariance_lower, lemma9_bound_as_printed), box="lem-id3-9",
                   worst_case=", ".join(f"alpha={r.alpha:g}, c={r.c:g}, k={r.k}" for r in sup9.itertuples()),
                   note="e.g. alpha = 0.1, c = 0.15, k = 2: 0.01 x 0.3 = 0.003")


def exhaustive_lemma9_glue(sup9: pd.DataFrame, *, alpha: float, c: float) -> dict[str, object]:
    """Lemma 9's exhaustive supremum at the chapter's (α, c), its witness, and the largest over all pairs."""
    own = sup9[(sup9.alpha == alpha) & (sup9.c == c)].iloc[0]
    return {"ch5_ex9_ratio": float(own.sup_ratio), "ch5_ex9_witness": f"0x{own.table}", "ch5_ex9_k": int(own.k),
            "ch5_ex9_measure": own.measure, "ch5_ex9_pairs": len(sup9), "ch5_ex9_worst": float(sup9.sup_ratio.max()),
            "ch5_ex9_cases": f"{int(own.cases):,}"}
