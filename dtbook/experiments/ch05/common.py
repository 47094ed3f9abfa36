"""Chapter 5's helpers shared by several of [BDM20]'s results: the two problem kinds of the traced
runs and the path audit, zero-error rates and the m at which 90% of runs are exact, and the page's
number formats."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from ...chapter import styled_table

from dtcore.cube import ProductDistribution
from dtcore.functions import random_junta
from dtcore.smoothed import alpha_c_distribution, smoothed_distribution
from dtcore.tree import DecisionTree
from dtcore.validate import check_real
from ...report import VerificationTable


#: The two problems of the traced runs and the path audit: a parity under an (α, c)-distribution
#: and a random junta under a smoothed uniform distribution.
PROBLEM_KINDS = ("parity, (alpha,c)", "random junta, smoothed")

ZERO_ERROR = 1e-12  # an exact error at or below this is zero up to float rounding


def split_features(tree: DecisionTree) -> np.ndarray:
    """Features of the tree's internal nodes (leaves carry LEAF = -1)."""
    f = np.asarray(tree.feature)
    return f[f >= 0]


def zero_error_rates(runs: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Fraction of runs with zero exact error per group ``by``: the probability [BDM20] Theorems 1
    and 2 bound."""
    return runs.groupby(list(by)).zero_loss.mean().reset_index()


def m_at(rates: pd.DataFrame, level: float = 0.9) -> float:
    """The smallest grid m at which a fraction >= level of the runs has zero error (inf: none)."""
    level = check_real("level", level, 0.0, 1.0, high_open=False)
    ok = rates[rates.zero_loss >= level]
    return float(ok.m.min()) if len(ok) else math.inf


def not_applicable(table: VerificationTable, result: str, quantity: str, box: str = "", *,
                   impurity: str) -> None:
    """An observation row for a bound that needs γ < ∞ when the impurity's γ is infinite."""
    table.observation(result, quantity, math.nan, box=box,
                      why=f"not applicable for {impurity}: its Lipschitz constant gamma is infinite, "
                          "so the bound is vacuous")


def _three_digits(value: float) -> str:
    """Three significant digits (1.52·10²⁷ for large values, never 1.52e+27); an m90 never reached in
    the grid reads as such, not as 'inf'."""
    if value == math.inf:
        return "not reached"
    return "—" if value != value else power_of_ten(float(value))


#: The book's old box numbers of chapter 5 and the paper's numbers they stand for (boxes are unnumbered now).
BOOK_TO_PAPER = {"Lemma 5.1": "Lemma 4", "Lemma 5.2": "Lemma 9", "Lemma 5.3": "Lemma 5", "Lemma 5.4": "Lemma 6",
                 "Lemma 5.5": "Lemma 8", "Lemma 5.6": "Lemma 11", "Theorem 5.1": "Theorem 1", "Theorem 5.2": "Theorem 7",
                 "Theorem 5.3": "Theorem 2", "Conjecture 5.1": "Conjecture 3", "Thm 5.1": "Theorem 1",
                 "Thm 5.3": "Theorem 2"}


def paper_names(text: str) -> str:
    """A header or label in the paper's numbers: "Theorem 5.1 as printed (paper's Theorem 10)" reads
    "[BDM20] Theorem 10 as printed", "Lemma 5.2's eps" reads "[BDM20] Lemma 9's eps"."""
    text = re.sub(r"(Lemma|Theorem|Conjecture) 5\.\d+ (.*?)\s*\(paper's (Lemmas?|Theorems?|Conjecture) ([\d, ]+)\)",
                  r"[BDM20] \3 \4 \2", str(text)).strip()
    for book, paper in BOOK_TO_PAPER.items():
        text = re.sub(re.escape(book) + r"(?![\d.])", "[BDM20] " + paper, text)
    return text.replace("[BDM20] [BDM20]", "[BDM20]")


def style_numbers(frame: pd.DataFrame, keep: Sequence[str] = (), *, caption: str = "") -> Styler:
    """``frame`` with every column but ``keep`` to three significant digits ("not reached" for an
    infinite m90, "—" for a missing value), in the book's one table style with the paper's numbers in
    its headers and ``caption`` above it."""
    shown = frame.copy()
    for col in shown.columns:
        if col not in keep:
            shown[col] = [_three_digits(v) for v in shown[col]]
    return styled_table(shown, {str(col): paper_names(str(col)) for col in shown.columns}, caption=caption)


def draw_problem(kind: str, *, rng: np.random.Generator, n: int, k: int, alpha: float,
                 c: float) -> tuple[np.ndarray, np.ndarray, ProductDistribution]:
    """A random k-junta target J, t and its distribution D: a parity under an (α, c)-distribution
    ([BDM20] Theorem 1's setting) or a random junta under a smoothed uniform one (Theorem 2's)."""
    if kind not in PROBLEM_KINDS:
        raise ValueError(f"kind must be one of {PROBLEM_KINDS}, got {kind!r}")
    if kind == "parity, (alpha,c)":
        J, t = random_junta(n, k, rng=rng, kind="parity")
        return J, t, alpha_c_distribution(n, alpha, c, rng=rng)
    J, t = random_junta(n, k, rng=rng)
    return J, t, smoothed_distribution(0.5, alpha, c, rng=rng, n=n)

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def power_of_ten(value: float, digits: int = 3) -> str:
    """``value`` as text for the page: 1.52·10²⁷ and 1·10⁻¹⁷ (Unicode exponents, never 1.52e+27),
    plain between 10⁻³ and 10⁴ and for integers below 10⁷ (with thousands separators); an infinite size (an impurity
    with γ = ∞) as "no finite size"."""
    if not math.isfinite(value):
        return "no finite size"
    if float(value).is_integer() and abs(value) < 1e7:
        return f"{int(value):,}"
    if 1e-3 <= abs(value) < 1e4:
        return f"{value:.{digits}g}"
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}·10{str(int(exponent)).translate(_SUPERSCRIPT)}"
