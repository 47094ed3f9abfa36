"""Chapter 4's shared helpers: the reaches and reasons its rows share, the dictator, the paper's targets.
"""

from __future__ import annotations

import math

from scipy.stats import binom

import numpy as np

from dtcore.cube import table_variables, truth_table
from dtcore.functions import balanced_tree, path_tree
from dtcore.tree import DecisionTree


UNBOUNDED = (0.0, math.inf)  # the range of a ratio of two non-negative quantities
VACUOUS = ("the bound exceeds 2^r, the most leaves a greedy tree on the target's r relevant variables can have, "
           "in every run")
VACUOUS_STEPS = "the bound exceeds 2^r − 1, the most splits on the target's r relevant variables, in every run"
PAPER_SHAPES = ("balanced", "path")
RANDOM_INSTANCES = "random instances; the exhaustive supremum above is the check"


def dictator_table() -> np.ndarray:
    """The truth table of x0 on 3 variables."""
    return truth_table(lambda X: X[:, 0], 3)


def target_tree(family: str, n: int, depth: int, leaves: int, *, rng: np.random.Generator) -> DecisionTree:
    """A balanced target of the given depth or a path target with the given leaves ([MGBH26] App. D)."""
    return balanced_tree(n, depth, rng=rng) if family == "balanced" else path_tree(n, leaves, rng=rng)


def relevant_variables(table: np.ndarray) -> int:
    """Number of variables f depends on: Algorithm 1 splits only on these, so it grows at most 2^r leaves."""
    n = table_variables(table)
    points = np.arange(table.size)
    return int(sum(bool((table != table[points ^ (1 << i)]).any()) for i in range(n)))


def count_row_power(runs: int, allowed: int, rate: float) -> float:
    """Probability that a count row (pass with at most ``allowed`` failures among ``runs``) fails when each run
    fails independently at ``rate``: its power against that rate (issue 35: a row below 0.8 is an observation)."""
    return float(binom.sf(allowed, runs, rate)) if runs > 0 else 0.0
