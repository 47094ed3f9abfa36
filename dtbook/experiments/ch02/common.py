"""What every section of chapter 2 uses: the targets of [BGLT20] Theorem 1 (majority, tribes of width 3,
monotone decision lists), eq. (5)'s depth cap as :mod:`dtcore.bounds` writes it, the exact error of a tree
on the cube, the display names of the impurities, and the number formats of the prose.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from dtcore import bounds
from dtcore.cube import ProductDistribution
from dtcore.exact_size import monotone_decision_list, reduced_size
from dtcore.functions import majority, tribes
from dtcore.tree import DecisionTree


#: eq. (5)'s depth cap D as :mod:`dtcore.bounds` writes it, independently of the learner's
#: :func:`dtcore.topdown.depth_cap`: the bounds and the depth-cap rows read this one.
paper_depth_cap = bounds.bglt20_depth_cap


#: Display names of the impurity functions.
G_NAMES = {"entropy": "entropy", "gini": "Gini", "kearns_mansour": "Kearns–Mansour"}


#: The monotone targets of Theorem 1.
TARGETS = ("majority", "tribes", "monotone list")


def _tribes3(X: np.ndarray) -> np.ndarray:
    return tribes(X, 3)


def _cube_error(tree: DecisionTree, cube: np.ndarray, truth: np.ndarray) -> float:
    """Exact error of ``tree`` under the uniform distribution, from the cube and f's values on it."""
    return float(np.mean(tree.predict(cube) != truth))


def monotone_list_size(n: int) -> int:
    """Size s of the chapter's monotone decision lists on {0,1}^n: min(16, n + 1) (s - 1 variables)."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    return min(16, n + 1)


def make_target(kind: str, d: int, *, rng: np.random.Generator,
                s_mono: int) -> tuple[Callable[[np.ndarray], np.ndarray], float | None, float]:
    """A monotone target of [BGLT20] Theorem 1 on {0,1}^d as a vectorised function, with opt_s where it
    is known and the size of its tree after reduction (recomputed from the truth table) where a size
    is claimed: majority, tribes of width 3, or a random monotone decision list of minimum size
    ``s_mono`` (opt_s = 0)."""
    if kind == "majority":
        return (lambda X: majority(X, range(d - 1 + d % 2))), None, np.nan
    if kind == "tribes":
        return _tribes3, None, np.nan
    if kind != "monotone list":
        raise ValueError(f"kind must be one of {TARGETS}, got {kind!r}")
    tree = monotone_decision_list(d, s_mono, rng=rng)
    return tree.predict, 0.0, reduced_size(tree)  # minimum size exactly s_mono: opt_s = 0


def tribes_sample(n: int, m: int, *, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``m`` uniform points of {0,1}^n and their tribes (width 3) labels: the S° of Theorems 2 and 5."""
    X = ProductDistribution.uniform(n).sample(m, rng=rng)
    return X, tribes(X, 3)


def growth_exponent(x: Sequence[float], y: Sequence[float]) -> float:
    """The least-squares slope of log y against log x: a count growing like x^k has exponent k, a
    polylogarithmic count has an exponent that falls towards 0 as x grows, a constant one has 0."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2 or x.size != y.size or (x <= 0).any() or (y <= 0).any():
        raise ValueError(f"x and y must be positive and of one length >= 2, got sizes {x.size} and {y.size}")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci(value: float, digits: int = 1) -> str:
    """A number for prose in the form 6.0·10¹⁶ (never 6.0e+16); plain below 10⁴."""
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"value must be finite, got {value}")
    if value == 0 or 1e-3 <= abs(value) < 1e4:
        return f"{value:,.{digits}f}" if value != int(value) else f"{int(value):,}"
    exponent = int(math.floor(math.log10(abs(value))))
    return f"{value / 10**exponent:.{digits}f}·10{str(exponent).translate(_SUPERSCRIPT)}"


def probability_text(p: float, digits: int = 2) -> str:
    """A probability for prose and tables: two decimals from 0.01 on, else ``digits`` significant figures as
    2.6·10⁻³ (never 0.00 for a small positive number, never e-notation)."""
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1], got {p}")
    if p == 0.0:
        return "0"
    if p >= 0.01:
        return f"{p:.2f}"
    mantissa, exponent = f"{p:.{digits - 1}e}".split("e")
    return f"{mantissa}·10{str(int(exponent)).translate(_SUPERSCRIPT)}"
