"""[BDM20] Sec. 2.1: the impurity functions C and the two properties Lemmas 5 and 6 ask of them,
β-strong concavity and γ-Lipschitz continuity."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from pandas.io.formats.style import Styler

from ...chapter import styled_table

from dtcore.impurity import IMPURITIES, get_impurity, lipschitz_constant, strong_concavity
from ... import figures


def impurity_constants() -> pd.DataFrame:
    """β (strong concavity) and γ (Lipschitz constant, on [0, 1] and on two inner intervals) of each
    impurity: the two properties [BDM20] Lemmas 5 and 6 ask of C."""
    return pd.DataFrame([{"impurity": name, "beta (strong concavity)": strong_concavity(name),
                          "gamma on [0, 1]": lipschitz_constant(name),
                          "gamma on [0.01, 0.99]": lipschitz_constant(name, 0.01),
                          "gamma on [0.1, 0.9]": lipschitz_constant(name, 0.1)} for name in IMPURITIES])


def impurity_table() -> Styler:
    """:func:`impurity_constants` for the page: three decimals, an infinite γ as ∞."""
    shown = impurity_constants().copy()
    for col in shown.columns[1:]:
        shown[col] = ["∞" if v == float("inf") else "—" if v != v else f"{v:.3f}" for v in shown[col]]
    shown.iloc[:, 0] = [IMPURITY_LABELS.get(v, v) for v in shown.iloc[:, 0]]
    return styled_table(shown, caption="The impurities, normalised to C(1/2) = 1: strong concavity β and Lipschitz "
                                       "constant γ, on [0, 1] and away from its ends")


#: The impurities' names as a reader reads them (the keys of :data:`figures.IMPURITY_COLOURS`).
IMPURITY_LABELS = {"gini": "Gini", "entropy": "entropy", "kearns_mansour": "Kearns–Mansour"}


def impurity_figure() -> Figure:
    """The impurities and their slopes: only Gini's slope is bounded ([BDM20] Lemma 5 needs γ < ∞)."""
    p = np.linspace(0, 1, 801)
    fig, axes = figures.figure(2, height=3.6)
    for name in IMPURITIES:
        C = get_impurity(name)
        label = IMPURITY_LABELS[name]
        colour = figures.IMPURITY_COLOURS[label]
        axes[0].plot(p, C(p), label=label, color=colour)
        axes[1].plot(p[1:-1], np.abs(np.gradient(C(p), p))[1:-1], label=label, color=colour)
    axes[0].set(xlabel="$p = \\Pr[y=1]$", ylabel="$C(p)$", title="impurities ($C(1/2)=1$)")
    axes[1].axhline(lipschitz_constant("gini"), color="k", ls="--", lw=1, label="Gini's $\\gamma = 4$")
    axes[1].set(xlabel="$p$", ylabel="$|C'(p)|$", yscale="log", title="slopes: only Gini's is bounded")
    figures.legend(axes[0], "below", ncol=2)
    figures.legend(axes[1], "below", ncol=2)
    return fig
