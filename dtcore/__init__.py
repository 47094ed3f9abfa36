"""dtcore: the algorithms of five papers on top-down decision-tree learning, vectorised.

Modules: ``cube`` (the cube, product distributions, truth tables), ``analysis`` (exact variance,
influences, Fourier), ``tree`` (DecisionTree), ``functions`` (target families), ``grow`` (the
best-first loop and BuildTopDownDT), ``bounds`` (the theorems' bounds), ``sweep`` (parallel
experiments). See each chapter of the book for the paper behind each function.
"""

from .cube import ProductDistribution, all_points, truth_table
from .grow import build_top_down_dt, grow
from .tree import DecisionTree

__all__ = ["DecisionTree", "ProductDistribution", "all_points", "build_top_down_dt", "grow", "truth_table"]
__version__ = "0.1.0"
