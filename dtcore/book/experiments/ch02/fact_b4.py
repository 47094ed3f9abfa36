"""[BGLT20] Fact B.4 exhaustively: every monotone function on {0,1}^4 and every bare tree of at most six
leaves.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ....impurity import IMPURITIES, get_impurity, kappa
from ...report import VerificationTable
from .common import G_NAMES


def monotone_tables(n: int) -> np.ndarray:
    """Every monotone (non-decreasing) truth table on n <= 4 variables, from the exhaustive layer."""
    from .... import exhaustive

    tables = exhaustive.all_tables(n)
    points = np.arange(2**n)
    keep = np.ones(len(tables), dtype=bool)
    for i in range(n):  # f(x) <= f(x with bit i set), for every x with bit i clear
        low = points[(points >> i) & 1 == 0]
        keep &= (tables[:, low] <= tables[:, low | (1 << i)]).all(axis=1)
    return tables[keep]


def bare_trees(n: int, max_leaves: int) -> list[tuple[int, ...]]:
    """Every bare tree on {0,1}^n with at most ``max_leaves`` leaves, as the sorted tuple of its leaves'
    subcube indices in :func:`dtcore.exhaustive.subcubes`."""
    from .... import exhaustive

    sub = exhaustive.subcubes(n)
    seen, frontier = {(sub.root,)}, [(sub.root,)]
    while frontier:
        nxt = []
        for leaves in frontier:
            if len(leaves) >= max_leaves:
                continue
            for k, leaf in enumerate(leaves):
                for i in np.flatnonzero(sub.free[leaf]):
                    new = tuple(sorted(leaves[:k] + leaves[k + 1:] + tuple(int(c) for c in sub.children[leaf, i])))
                    if new not in seen:
                        seen.add(new)
                        nxt.append(new)
        frontier = nxt
    return sorted(seen, key=len)


def fact_b4_exhaustive(n: int = 4, max_leaves: int = 6) -> pd.DataFrame:
    """[BGLT20] Fact B.4 on every monotone f on {0,1}^n and every bare tree with at most ``max_leaves``
    leaves, per impurity: with s = f's minimum size (opt_s = 0) and the strongest eps the premise allows
    (just below the completion's error), the least ratio of the leaves' summed best true gains to
    (kappa/32)(eps/log s)^2, and where it is attained."""
    from .... import exhaustive

    tables = monotone_tables(n)
    sub = exhaustive.subcubes(n)
    stats = exhaustive.subcube_statistics(tables)
    size = exhaustive.optimal_trees(tables).root_size.astype(float)
    trees = bare_trees(n, max_leaves)
    membership = np.zeros((len(trees), sub.count))
    for k, leaves in enumerate(trees):
        membership[k, list(leaves)] = 1.0
    mean = stats.mean
    rows = []
    for name in IMPURITIES:
        g = get_impurity(name)
        best = np.zeros_like(mean)
        for i in range(n):
            has = sub.free[:, i]
            c0, c1 = sub.children[has, i, 0], sub.children[has, i, 1]
            local = g(mean[:, has]) - 0.5 * g(mean[:, c0]) - 0.5 * g(mean[:, c1])
            best[:, has] = np.maximum(best[:, has], stats.p_reach[None, has] * local)
        error = stats.error @ membership.T          # (functions, trees): the f-completion's error
        gains = best @ membership.T
        log_s = np.log2(np.maximum(size, 2.0))[:, None]
        bound = kappa(name) / 32 * (error / log_s) ** 2
        ok = (error > 1e-12) & (size[:, None] >= 2)
        ratio = np.where(ok, gains / np.where(ok, bound, 1.0), np.inf)
        f_k, t_k = np.unravel_index(np.argmin(ratio), ratio.shape)
        rows.append({"impurity": name, "G": G_NAMES[name], "functions": len(tables), "trees": len(trees),
                     "pairs": int(ok.sum()), "min_ratio": float(ratio[f_k, t_k]), "s": int(size[f_k]),
                     "error": float(error[f_k, t_k]), "leaves": len(trees[t_k]),
                     "table": "".join(str(int(b)) for b in tables[f_k])})
    return pd.DataFrame(rows)


def check_fact_b4_exhaustive(table: VerificationTable, b4: pd.DataFrame, *, n: int, max_leaves: int) -> None:
    """Fact B.4 at its worst (f, tree) over a whole small cube: one theorem row per impurity."""
    from .... import exhaustive

    for r in b4.itertuples():
        table.theorem("Fact B.4", f"least (sum of best true gains) / ((κ/32)(ε/log s)²) over every monotone f on "
                                  f"{{0,1}}^{n} and every tree of at most {max_leaves} leaves, {r.G}",
                      r.min_ratio, 1.0, relation=">=", reach=(0.0, math.inf), box="lem-bglt-b4",
                      measured_by=exhaustive.subcube_statistics, bound_by=kappa,
                      worst_case=f"all {r.pairs:,} (f, tree) pairs with error > 0 ({r.functions} functions, {r.trees:,} "
                                 f"trees); worst f = {r.table} (s = {r.s}), a tree of {r.leaves} leaves, error {r.error:.3f}")
