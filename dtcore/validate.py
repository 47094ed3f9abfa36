"""Argument checks shared by every public function: one clear ``ValueError`` per bad input."""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection

import numpy as np


def check_int(name: str, value: object, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as int if it is an integer in ``[low, high]``; raise ``ValueError`` otherwise."""
    if type(value) is int and (low is None or value >= low) and (high is None or value <= high):
        return value                         # the common case, without the abstract-class check
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value}")
    return value


def check_real(
    name: str,
    value: object,
    low: float,
    high: float,
    *,
    low_open: bool = True,
    high_open: bool = True,
) -> float:
    """Return ``value`` as float if it lies in the interval; raise ``ValueError`` naming it otherwise."""
    # a Python float (the common case, once per tree node) skips the abstract-class check
    if type(value) is not float and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    above = value > low if low_open else value >= low
    below = value < high if high_open else value <= high
    if not (above and below and math.isfinite(value)):
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return value


def check_choice(name: str, value: object, allowed: Collection[object]) -> object:
    """Return ``value`` if it is one of ``allowed``; raise ``ValueError`` naming the choices otherwise."""
    try:
        ok = value in allowed
    except TypeError:  # an unhashable value cannot be one of the choices
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, got {value!r}")
    return value


def check_binary_matrix(name: str, X: object, n: int | None = None) -> np.ndarray:
    """Return ``X`` as a ``(m, n)`` uint8 array of 0/1 values; raise ``ValueError`` otherwise."""
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of shape (m, n), got shape {arr.shape}")
    if n is not None and arr.shape[1] != n:
        raise ValueError(f"{name} must have {n} columns, got {arr.shape[1]}")
    if arr.dtype != np.uint8 and arr.dtype != np.bool_:
        if not np.isin(arr, (0, 1)).all():
            raise ValueError(f"{name} must hold only 0/1 values")
    elif arr.dtype == np.uint8 and arr.size and arr.max() > 1:
        raise ValueError(f"{name} must hold only 0/1 values, found {int(arr.max())}")
    return arr.astype(np.uint8, copy=False)


def check_labels(name: str, y: object, m: int | None = None) -> np.ndarray:
    """Return ``y`` as a 1-D uint8 array of 0/1 labels (of length ``m`` if given)."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of 0/1 labels, got shape {arr.shape}")
    if m is not None and arr.shape[0] != m:
        raise ValueError(f"{name} must have length {m} (one label per sample), got {arr.shape[0]}")
    if arr.dtype == np.uint8:  # the common case, checked without isin's cost
        if arr.size and arr.max() > 1:
            raise ValueError(f"{name} must hold only 0/1 labels")
    elif arr.dtype != np.bool_ and arr.size and not np.isin(arr, (0, 1)).all():
        raise ValueError(f"{name} must hold only 0/1 labels")
    return arr.astype(np.uint8, copy=False)


def check_rng(rng: object) -> np.random.Generator:
    """Require an explicit ``numpy.random.Generator`` (no global seeding anywhere in dtcore)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


# --- work budgets: a call that would exceed one is refused before it starts ------------------------
#: Most nodes a tree generator builds (a tree of 2^26 nodes holds about 2 GB of node arrays and takes
#: minutes to build one node at a time). Raise it with ``dtcore.validate.MAX_TREE_NODES = 2**28``.
MAX_TREE_NODES = 1 << 26
#: Most subproblems FIND may meet: every restriction of at most ``depth`` of its n Boolean features,
#: sum_{j <= min(depth, n)} C(n, j) 2^j (Lemma 3.2's n^O(d)); each costs up to a pass over its rows.
#: Raise it with ``dtcore.validate.MAX_FIND_SUBPROBLEMS = 2**36``.
MAX_FIND_SUBPROBLEMS = 1 << 34


#: Most bytes of the per-node restrictions a generated tree holds (every node of a DecisionTree on n
#: variables keeps an n-byte restriction): nodes x n. Raise it with ``dtcore.validate.MAX_TREE_BYTES = 2**33``.
MAX_TREE_BYTES = 1 << 31


def check_tree_budget(what: str, nodes: int, n: int, fix: str) -> None:
    """Refuse a generated tree of more than :data:`MAX_TREE_NODES` nodes, or whose nodes' restrictions
    (``nodes * n`` bytes) exceed :data:`MAX_TREE_BYTES`, before any node is built."""
    check_budget(f"{what}'s {nodes:,} nodes", nodes, "MAX_TREE_NODES", fix)
    check_budget(f"{what}'s {nodes:,} nodes x {n:,} variables (bytes of restrictions)", nodes * n,
                 "MAX_TREE_BYTES", fix + " or fewer variables n")


def check_budget(what: str, amount: int, budget: str, fix: str = "") -> None:
    """Refuse ``amount`` of work above the module-level budget named ``budget`` (read at call time,
    so a caller may raise it): a ``ValueError`` naming what asked for it, the budget and how to raise it."""
    limit = globals()[budget]
    if amount > limit:
        hint = f"{fix}, or raise the budget" if fix else "raise the budget"
        raise ValueError(f"{what} exceeds the budget dtcore.validate.{budget} = {limit:,} (got {amount:,}); "
                         f"{hint}: import dtcore.validate; dtcore.validate.{budget} = {amount:_}")
