"""Chapter 1's shared helpers: prose formatting, provenance names and the target families.

The families have an explicit tree of size s; they serve [BLT20] Lemmas 5.2 and 5.4 (:mod:`.lemmas52_54`),
Theorem 3 (:mod:`.theorem3`) and our lower-bound constructions (:mod:`.lower_bound`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dtcore.cube import truth_table
from dtcore.functions import (address, decoy_selector_parity, decoy_selector_parity_size, nested_decoy_parity,
                           nested_decoy_parity_size, parity, random_tree, random_tree_of_depth)


#: Target families with an explicit tree of size s (Theorem 3, Lemmas 5.2 and 5.4).
THEOREM3_FAMILIES = ("random tree", "complete random tree", "parity", "multiplexer")
#: The constant errors of the decoy-selector family.
CONSTANT_EPS = (0.1, 0.05)
#: Block lengths k of both decoy families.
DECOY_BLOCKS = (1, 2, 3)


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def small_number_text(value: float) -> str:
    """A deviation for the prose: "exactly" when it is 0, else "to within 2.2 × 10⁻¹⁶" (no e-notation)."""
    if value == 0:
        return "exactly"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"to within {mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPTS)}"


def glue_key(label: str) -> str:
    """A glue-key fragment from a label: spaces become underscores."""
    return label.replace(" ", "_")


#: What computed a function's influences and its minimum tree size (provenance of the exhaustive rows).
INFLUENCES = "dtcore.exhaustive.SubcubeStatistics.influences"
OPTIMAL = "dtcore.exhaustive.optimal_trees"


# --- target families -----------------------------------------------------------------------------

def family_target(family: str, s: int, n: int, k: int = 0, t: int = 0, *,
                  rng: np.random.Generator) -> np.ndarray:
    """Truth table of a member of ``family`` with an explicit tree of size s (k, t: the decoy families).

    Families: "random tree" (size s), "complete random tree" (depth log2 s), "parity" (of log2 s
    random variables), "multiplexer" (log2 s − 1 address bits), "decoy selector" and "nested decoy"
    (the chapter's own lower-bound constructions, block length k and depth t).
    """
    log_s = int(round(math.log2(s)))
    if family == "random tree":
        return random_tree(n, s, rng=rng).truth_table()
    if family == "complete random tree":
        return random_tree_of_depth(n, log_s, rng=rng).truth_table()
    if family == "parity":
        return truth_table(lambda X: parity(X, list(rng.choice(n, size=log_s, replace=False))), n)
    if family == "multiplexer":  # log_s - 1 address bits, 2^(log_s - 1) data bits: s leaves
        return truth_table(lambda X: address(X, log_s - 1), n)
    if family == "decoy selector":
        return truth_table(lambda X: decoy_selector_parity(X, k, t), n)
    if family == "nested decoy":
        return truth_table(lambda X: nested_decoy_parity(X, k, t), n)
    raise ValueError(f"family must be a known target family, got {family!r}")


def fits(family: str, s: int, n: int) -> bool:
    """Whether a size-s member of the family exists on n variables."""
    log_s = int(round(math.log2(s)))
    if family in ("random tree",):
        return s <= 2**n
    if 2**log_s != s:
        return False
    if family == "multiplexer":
        return log_s >= 2 and (log_s - 1) + 2 ** (log_s - 1) <= n
    return log_s <= n


def decoy_instances(family: str, n: int) -> list[dict[str, Any]]:
    """The (k, t) members (t ≥ 1) of a decoy family on at most n variables, with their explicit sizes."""
    if family not in ("decoy selector", "nested decoy"):
        raise ValueError(f"family must be 'decoy selector' or 'nested decoy', got {family!r}")
    out = []
    for k in DECOY_BLOCKS:
        for t in range(1, 8):
            need = t * (k + 3) if family == "decoy selector" else k + t * (k + 2)
            if need > n:
                break
            size = decoy_selector_parity_size(k, t) if family == "decoy selector" else nested_decoy_parity_size(k, t)
            out.append({"family": family, "s": size, "k": k, "t": t})
    return out
