"""[BDM20] Lemmas 5 and 6 (Sec. 2.1, book Lemmas 5.3 and 5.4): an irrelevant feature's gain is at
most 2γ|I|, a relevant one's at least βε²/8, at every node of traced ID3 runs (the deterministic
cores), and at their exhaustive suprema over every function on n ≤ 4 variables."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from pandas.io.formats.style import Styler

from ...chapter import styled_table

from dtcore import bounds
from dtcore.audit import worst_case
from dtcore.cube import ProductDistribution
from dtcore.functions import junta
from dtcore.id3 import id3
from dtcore.impurity import get_impurity, strong_concavity
from dtcore.smoothed import covariance_measure
from dtcore.validate import check_rng
from ... import figures
from ...report import VerificationTable
from .common import PROBLEM_KINDS, draw_problem, not_applicable


def traced_runs(kind: str, m: int, runs: int, *, rng: np.random.Generator, n: int, k: int, alpha: float,
                c: float, impurity: str) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """``runs`` traced ID3 runs on :func:`draw_problem` with m examples: one row per (node, available
    feature) with its gain and |I(S_w, i)| ([BDM20] Lemmas 5 and 6's cores), and one row per node with
    ε_w = max_i |I(D_w, i)|, the gains of i* (the coordinate attaining it) and of the best relevant and
    irrelevant features, and |I(S_w, i*) − I(D_w, i*)| (Lemma 5.5's event)."""
    rng = check_rng(rng)
    rows, nodes = [], []
    for r in range(runs):
        J, t, D = draw_problem(kind, rng=rng, n=n, k=k, alpha=alpha, c=c)
        Dk = ProductDistribution(D.p[J])
        X = D.sample(m, rng=rng)
        res = id3(X, junta(X, J, t), impurity=impurity, trace=True)
        relevant = np.zeros(n, dtype=bool)
        relevant[J] = True
        for nd in res.trace:
            inside = bool(np.all(nd.restriction[~relevant] < 0))        # path uses only J
            I_exact = covariance_measure(t, Dk, nd.restriction[J])
            eps_w = float(np.abs(I_exact).max())
            A = ~np.isnan(nd.gains)
            for i in np.flatnonzero(A):
                rows.append({"kind": kind, "m": m, "run": r, "node": nd.node, "feature": int(i),
                             "relevant": bool(relevant[i]), "gain": float(nd.gains[i]),
                             "abs_I_S": float(abs(nd.covariance[i]))})
            j_star = int(np.argmax(np.abs(I_exact)))
            i_star = int(J[j_star])                                  # the coordinate attaining eps_w
            g_rel = nd.gains[relevant & A]
            g_irr = nd.gains[~relevant & A]
            nodes.append({"kind": kind, "m": m, "run": r, "node": nd.node, "inside_J": inside, "eps_w": eps_w,
                          "best_relevant_gain": float(np.nanmax(g_rel)) if g_rel.size else np.nan,
                          "max_irrelevant_gain": float(np.nanmax(g_irr)) if g_irr.size else np.nan,
                          "gain_of_argmax": float(nd.gains[i_star]), "size": int(nd.size),
                          "deviation_of_argmax": float(abs(nd.covariance[i_star] - I_exact[j_star])),
                          "chose_relevant": bool(relevant[nd.feature])})
    return rows, nodes


def trace_id3(*, n: int, k: int, alpha: float, c: float, impurity: str, sizes: Sequence[int], runs: int,
              rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`traced_runs` for both :data:`PROBLEM_KINDS` at each m of ``sizes``: ``(features, nodes)``."""
    feat_rows, node_rows = [], []
    for kind in PROBLEM_KINDS:
        for m in sizes:
            fr, nr = traced_runs(kind, m, runs, rng=rng, n=n, k=k, alpha=alpha, c=c, impurity=impurity)
            feat_rows += fr
            node_rows += nr
    return pd.DataFrame(feat_rows), pd.DataFrame(node_rows)


def check_gain_cores(table: VerificationTable, feats: pd.DataFrame, *, beta: float, gamma: float,
                     impurity: str) -> None:
    """The deterministic cores of [BDM20] Lemmas 5 and 6 at every traced node and feature:
    Gain(S_w, j) ≤ 2γ|I(S_w, j)| for irrelevant j (needs γ < ∞) and Gain(S_w, i) ≥ (β/2) I(S_w, i)².

    Observations: both hold by algebra for every sample (for Gini the first ratio is
    |F_w(x_j=1) − F_w(x_j=0)|/2 ≤ 1/2 and the second 1/(p̄(1 − p̄)) ≥ 4); the exhaustive suprema and the
    gain identity of :func:`check_path_audit` are the checks.
    """
    # pairs with I(S_w, i) = 0 have zero gain on both sides and are left out of the ratios
    nz = feats[feats.abs_I_S > 1e-12]
    lemma5 = "max over nodes, irrelevant j of Gain(S_w,j) / (2 gamma |I(S_w,j)|)"
    if math.isfinite(gamma):
        ratio = (nz.gain / (2 * gamma * nz.abs_I_S))[~nz.relevant]
        table.observation("Lemma 5.3 (paper's Lemma 5), deterministic core", lemma5, float(ratio.max()), 1.0, box="lem-id3-5",
                          why="holds by algebra for every sample (Gini: the ratio is |F_w(x_j=1) - F_w(x_j=0)|/2 "
                              "<= 1/2); the exhaustive supremum and the gain identity are the checks")
    else:
        not_applicable(table, "Lemma 5.3 (paper's Lemma 5), deterministic core", lemma5, "lem-id3-5", impurity=impurity)
    table.observation("Lemma 5.4 (paper's Lemma 6), deterministic core", "min over nodes, all i of Gain(S_w,i) / ((beta/2) I(S_w,i)^2)",
                      float((nz.gain / (beta / 2 * nz.abs_I_S**2)).min()), 1.0, relation=">=", box="lem-id3-6",
                      why="holds by algebra for every sample (strong concavity gives a ratio >= 1/(p(1-p)) >= 4; "
                          "Gini attains 4 at p = 1/2); the exhaustive supremum and the gain identity are the checks")


def lemma6_nodes(nodes: pd.DataFrame, *, beta: float) -> pd.DataFrame:
    """Traced nodes on paths inside J with ε_w > 0, with [BDM20] Lemma 6's level β ε_w²/8 (``lemma6``)."""
    inJ = nodes[nodes.inside_J & (nodes.eps_w > 0)].copy()
    inJ["lemma6"] = bounds.bdm20_lemma6_gain_lower(beta, inJ.eps_w)
    return inJ


def check_lemma6_nodes(table: VerificationTable, inJ: pd.DataFrame) -> tuple[int, float]:
    """[BDM20] Lemma 6 on the coordinate i* attaining ε_w, at the nodes inside J where Lemma 5.5's event
    |I(S_w, i*) − I(D_w, i*)| ≤ ε_w/2 holds. Returns (number of such nodes, min gain / level)."""
    eligible = inJ[inJ.deviation_of_argmax <= inJ.eps_w / 2]
    lem6_ratio = float((eligible.gain_of_argmax / eligible.lemma6).min()) if len(eligible) else math.nan
    if len(eligible):
        table.observation("Lemma 5.4 (paper's Lemma 6)", f"min Gain(S_w, i*) / (beta eps_w^2/8), i* attaining eps_w, {len(eligible)} "
                          "nodes inside J where Lemma 5.5's event |I(S_w,i*) - I(D_w,i*)| <= eps_w/2 holds", lem6_ratio,
                          1.0, relation=">=", box="lem-id3-6",
                          why="on Lemma 5.5's event it follows by algebra (|I(S_w,i*)| >= eps_w/2 and Gain >= 2 beta "
                              "I(S_w,i*)^2 give a ratio >= 4); the exhaustive supremum is the check")
    else:
        table.observation("Lemma 5.4 (paper's Lemma 6)", "min Gain(S_w, i*) / (beta eps_w^2/8)", math.nan, box="lem-id3-6",
                          why="Lemma 5.5's event holds at no traced node")
    return len(eligible), lem6_ratio


def lemma56_figure(feats: pd.DataFrame, inJ: pd.DataFrame, *, beta: float, gamma: float,
                   rng: np.random.Generator) -> Figure:
    """Left: every traced gain against |I(S_w, i)|, between [BDM20] Lemma 6's parabola and Lemma 5's
    line; right: at nodes inside J, the gain of i* and the largest irrelevant gain against Lemma 6's
    level. At most 6000 points of the left panel, drawn with ``rng``."""
    fig, axes = figures.figure(2, height=3.5)
    f = feats[(feats.abs_I_S > 1e-12) & (feats.gain > 1e-15)]   # leave out rounding noise
    sample = f.sample(min(len(f), 6000), random_state=rng).copy()
    sample["feature kind"] = np.where(sample.relevant, "relevant (in J)", "irrelevant")
    sns.scatterplot(data=sample, x="abs_I_S", y="gain", hue="feature kind", s=8, alpha=0.5, ax=axes[0],
                    palette={"relevant (in J)": "C0", "irrelevant": "C3"})
    xs = np.logspace(np.log10(sample.abs_I_S.min()), np.log10(sample.abs_I_S.max()), 50)
    if math.isfinite(gamma):
        axes[0].plot(xs, bounds.bdm20_lemma5_gain_upper(gamma, xs), "k--",
                     label="$2\\gamma|\\mathcal{I}|$ (Lemma 5.3 core)")
    axes[0].plot(xs, beta / 2 * xs**2, "k:", label="$\\frac{\\beta}{2}\\mathcal{I}^2$ (Lemma 5.4 core)")
    axes[0].set(xscale="log", yscale="log", xlabel="$|\\mathcal{I}(S_w,i)|$", ylabel="Gain$(S_w,i)$",
                title="every node, every feature")
    figures.legend(axes[0], "below", ncol=1)
    for col, colr, lab in (("gain_of_argmax", "C0", "gain of $i^*$ (attains $\\varepsilon_w$)"),
                           ("max_irrelevant_gain", "C3", "largest irrelevant gain")):
        axes[1].scatter(inJ.lemma6, inJ[col], s=10, alpha=0.5, color=colr, label=lab)
    lims = [inJ.lemma6.min() / 2, 1.5]
    axes[1].plot(lims, lims, "k--", lw=1, label="$\\beta\\varepsilon_w^2/8$ (Lemma 5.4)")
    axes[1].set(xscale="log", yscale="log", xlabel="$\\beta\\varepsilon_w^2/8$", ylabel="gain at the node",
                title="nodes on paths inside $J$")
    figures.legend(axes[1], "below", ncol=1)
    return fig


def trace_glue(nodes: pd.DataFrame, inJ: pd.DataFrame, *, eligible: int, lem6_ratio: float, m_mid: int,
               m_top: int) -> dict[str, object]:
    """The numbers the text quotes about the traced runs ([BDM20] Lemma 6 and Theorem 7's separation)."""
    chose = nodes.groupby("m").chose_relevant.mean()
    sep = inJ[inJ.m == m_top]
    return {"ch5_lem6_nodes": eligible, "ch5_lem6_nodes_all": len(inJ), "ch5_lem6_ratio": lem6_ratio,
            "ch5_chose_rel_small": float(chose.loc[m_mid]), "ch5_chose_rel_big": float(chose.loc[m_top]),
            "ch5_m_mid": m_mid,
            "ch5_sep_frac": float((sep.max_irrelevant_gain < sep.best_relevant_gain).mean()),
            "ch5_sep_argmax": float((sep.max_irrelevant_gain < sep.gain_of_argmax).mean()),
            "ch5_sep_paper": float((sep.max_irrelevant_gain < sep.lemma6).mean())}


#: The product measures of the exhaustive Lemma 5/6 suprema: two asymmetric vectors of page 7's grid (the
#: whole grid is page 7's), one with a coordinate at 1/2, where Gini's printed Lemma 6 ratio p(1 − p)/4 peaks.
#: Two, not three: each costs ~3 s of CPU (product_suprema evaluates [MGBH26]'s lemmas on the way).
EXHAUSTIVE_MEASURES: tuple[tuple[float, ...], ...] = ((0.1, 0.3, 0.7, 0.9), (0.05, 0.25, 0.5, 0.75))


#: The forms of :func:`dtcore.audit.worst_case.product_suprema`'s [BDM20] rows, by (result, form).
GINI_LEMMA5 = ("Lemma 5", "gini, the proof's bound (Gain <= 2 gamma |I|)")

GINI_LEMMA6_PRINTED = ("Lemma 6", "gini, printed (beta eps^2/8, eps = |I|)")

GINI_LEMMA6_STEP = ("Lemma 6", "gini, proof's step (beta I^2 / (2 p(1-p)))")

ENTROPY_LEMMA6_PRINTED = ("Lemma 6", "entropy, printed (beta eps^2/8, eps = |I|)")

ENTROPY_LEMMA6_STEP = ("Lemma 6", "entropy, proof's step (beta I^2 / (2 p(1-p)))")


#: Entropy's (bits, C(1/2) = 1) strong-concavity constant worked by hand: -H''(p) = 1/(ln 2 · p(1 − p)) is least at
#: p = 1/2, where it is 4/ln 2 = 5.770780 (the second evaluation of :func:`dtcore.impurity.strong_concavity`).
ENTROPY_BETA = 4.0 / 0.6931471805599453
#: The book's names of the paper's Lemmas 5 and 6 (the keys above are the audit layer's, in the paper's numbers).
_BOOK_LEMMA = {"Lemma 5": "Lemma 5.3 (paper's Lemma 5)", "Lemma 6": "Lemma 5.4 (paper's Lemma 6)"}


def exhaustive_gain_lemmas(*, measures: Sequence[Sequence[float]] = EXHAUSTIVE_MEASURES, n: int = 4) -> pd.DataFrame:
    """[BDM20] Lemmas 5 and 6 with the population D_w in place of S_w at their suprema over every function
    on ``n`` ≤ 4 variables, every subcube w, every free i and each of ``measures``
    (:func:`dtcore.audit.worst_case.product_suprema`): one row per (result, form) with ``sup_ratio``
    (measured/bound, 1 = the bound), the verdict and the witness (``table`` in hex, ``measure``)."""
    if not 1 <= len(measures) <= 3:
        raise ValueError(f"measures must hold 1 to 3 measures (the full grid is page 7's), got {len(measures)}")
    tracker = worst_case.product_suprema([ProductDistribution(np.asarray(p, dtype=np.float64)) for p in measures], n)
    worst_case.worse_outputs(tracker)  # the entropy row's worse output: the Kearns–Mansour gain at its witness
    return pd.DataFrame([s.row() for s in tracker.best.values() if s.paper == "BDM20"])


def _supremum(sup56: pd.DataFrame, key: tuple[str, str]) -> pd.Series:
    return sup56[(sup56.result == key[0]) & (sup56.form == key[1])].iloc[0]


def _witness(r: pd.Series) -> str:
    return f"f = 0x{r.table}, p = {r.measure}; every subcube w and free i ({int(r.cases):,} cases)"


def check_exhaustive_gains(table: VerificationTable, sup56: pd.DataFrame, *,
                           measures: Sequence[Sequence[float]] = EXHAUSTIVE_MEASURES) -> None:
    """[BDM20] Lemmas 5 and 6 at their exhaustive suprema (:func:`exhaustive_gain_lemmas`).

    For Gini the gain is exactly 4 I²/(p(1 − p)), so the three Gini suprema are known in closed form
    and are identities (Lemma 5: |F_w(x_i=1) − F_w(x_i=0)|/2, at most 1/2, reached by a dictator;
    Lemma 6 printed: p(1 − p)/4, at most 1/16 at p = 1/2; Lemma 6's proof step: 1 everywhere). For
    entropy the proof's step, Gain ≥ (β/2) I²/(p(1 − p)), tests the strong-concavity constant β: a
    theorem row; the printed form follows from it by p(1 − p) ≤ 1/4 (an observation).
    """
    p = np.concatenate([np.asarray(m, dtype=np.float64) for m in measures])
    exact = {GINI_LEMMA5: (0.5, "Gini algebra: Gain/(2 gamma |I|) = |F1 - F0|/2 (1/2 at a dictator)"),
             GINI_LEMMA6_PRINTED: (float((p * (1 - p)).max()) / 4,
                                   "Gini algebra: (beta I^2/8)/Gain = p(1-p)/4 at its largest p(1-p)"),
             GINI_LEMMA6_STEP: (1.0, "Gini algebra: Gain = 4 I^2/(p(1-p)) = (beta/2) I^2/(p(1-p)) with beta = 8")}
    for key, (value, algebra) in exact.items():
        r = _supremum(sup56, key)
        table.identity(f"{_BOOK_LEMMA[key[0]]}, exhaustive, Gini", f"sup over every f on n <= 4, w, i of {r.statement} as "
                       f"measured/bound ({key[1]}) against its closed form {value:.4g}", abs(r.sup_ratio - value),
                       worst_case.TIGHT_TOLERANCE, computed_by=(worst_case.product_suprema, algebra),
                       box="lem-id3-5" if key[0] == "Lemma 5" else "lem-id3-6", worst_case=_witness(r),
                       note=f"holds by algebra for every input, so it guards the code: {r.verdict}")
    beta = strong_concavity("entropy")
    table.identity("Lemma 5.4 (paper's Lemma 6), exhaustive, entropy", "relative difference of entropy's strong-concavity "
                   "constant beta between dtcore.impurity and -H''(1/2) worked by hand", abs(beta - ENTROPY_BETA) / ENTROPY_BETA,
                   1e-12, computed_by=(strong_concavity, "hand: -H''(p) = 1/(ln 2 p(1-p)), least at p = 1/2: 4/ln 2"),
                   box="lem-id3-6", note=f"4/ln 2 = 4/0.693147 = {ENTROPY_BETA:.6f}: the beta of the entropy rows")
    step = _supremum(sup56, ENTROPY_LEMMA6_STEP)
    table.theorem("Lemma 5.4 (paper's Lemma 6), exhaustive, entropy", "min over every f on n <= 4, w, i and measure of "
                  "Gain(D_w,i) / ((beta/2) I(D_w,i)^2 / (p_i(1-p_i))), the proof's step", 1 / step.sup_ratio, 1.0,
                  relation=">=", reach=(0.0, math.inf), tolerance=worst_case.TIGHT_TOLERANCE,
                  measured_by=(worst_case.product_suprema, get_impurity), bound_by=strong_concavity, box="lem-id3-6",
                  worst_case=_witness(step),
                  note=f"tests entropy's strong-concavity constant beta = {strong_concavity('entropy'):.4g} "
                       f"({step.verdict}; approached where the label frequency is near 1/2)",
                  fails_under=(step.worse_output, 1 / step.worse_ratio))
    printed = _supremum(sup56, ENTROPY_LEMMA6_PRINTED)
    table.observation("Lemma 5.4 (paper's Lemma 6), exhaustive, entropy", "min over every f on n <= 4, w, i and measure of "
                      "Gain(D_w,i) / (beta I(D_w,i)^2 / 8), the printed form", 1 / printed.sup_ratio, 1.0,
                      relation=">=", box="lem-id3-6", worst_case=_witness(printed),
                      why="follows from the proof-step row by p(1-p) <= 1/4, with room 16 at least "
                          f"({printed.verdict})")


def bound_power(sup56: pd.DataFrame, factors: Sequence[float] = (2.0,)) -> pd.DataFrame:
    """The power of the entropy row of :func:`check_exhaustive_gains` against its own bound: at its
    worst case, the ratio Gain / bound with the bound (β) multiplied by each factor — just above the
    smallest factor at which the row fails (the ratio itself, times 1 + 10⁻⁵ to clear the row's
    rounding tolerance), and ``factors`` (e.g. 2, a bound off by a factor of 2)."""
    ratio = 1 / float(_supremum(sup56, ENTROPY_LEMMA6_STEP).sup_ratio)
    rows = [{"bound multiplied by": 1.0, "Gain / bound at the worst case": ratio}]
    rows += [{"bound multiplied by": f, "Gain / bound at the worst case": ratio / f}
             for f in sorted({ratio * (1 + 1e-5), *factors})]   # just beyond the row's tolerance of 1e-6
    out = pd.DataFrame(rows)
    out["row"] = np.where(out["Gain / bound at the worst case"] >= 1 - worst_case.TIGHT_TOLERANCE, "passes", "fails")
    return out


def bound_power_glue(power: pd.DataFrame) -> dict[str, object]:
    """The entropy row's Gain / bound at its worst case (:func:`bound_power`'s first row): the factor
    by which its bound would have to grow for the row to fail, by glue name."""
    ratio = float(power["Gain / bound at the worst case"].iloc[0])
    return {"ch5_ex6_entropy_gain_ratio": ratio, "ch5_ex6_fail_factor": ratio}


def bound_power_table(power: pd.DataFrame) -> Styler:
    """:func:`bound_power` for the page: factors to 7 digits, ratios to 7."""
    return styled_table(power, digits=7, caption="Entropy's proof-step row with its bound enlarged: the factor at which "
                                                 "it starts to fail, and a factor of 2")


def exhaustive_gains_glue(sup56: pd.DataFrame) -> dict[str, object]:
    """Lemmas 5 and 6's exhaustive suprema and the entropy witness, by glue name."""
    step = _supremum(sup56, ENTROPY_LEMMA6_STEP)
    return {"ch5_ex5_gini": float(_supremum(sup56, GINI_LEMMA5).sup_ratio),
            "ch5_ex6_gini_printed": float(_supremum(sup56, GINI_LEMMA6_PRINTED).sup_ratio),
            "ch5_ex6_entropy_step": float(step.sup_ratio), "ch5_ex6_entropy_room": float(1 / step.sup_ratio - 1),
            "ch5_ex6_entropy_witness": f"0x{step.table}", "ch5_ex6_entropy_measure": step.measure,
            "ch5_ex6_entropy_printed": float(_supremum(sup56, ENTROPY_LEMMA6_PRINTED).sup_ratio),
            "ch5_ex56_cases": f"{int(step.cases):,}"}
