"""[BGLT20] Fact B.4 exhaustively: every monotone function on {0,1}^4 and every bare tree of at most six
leaves.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd

from dtcore.impurity import IMPURITIES, get_impurity, kappa
from ...report import VerificationTable
from .common import G_NAMES


def monotone_tables(n: int) -> np.ndarray:
    """Every monotone (non-decreasing) truth table on n <= 4 variables, from the exhaustive layer."""
    from dtcore import exhaustive

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
    from dtcore import exhaustive

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


def parity_table(n: int) -> np.ndarray:
    """The truth table of x0 ⊕ x1 on {0,1}^n (bit i of a point's index is x_i), as one row of 0/1."""
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n}")
    points = np.arange(2**n)
    return ((points & 1) ^ ((points >> 1) & 1))[None, :].astype(np.uint8)


def fact_b4_ratios(tables: np.ndarray, n: int, trees: list[tuple[int, ...]], impurity: str) -> tuple[np.ndarray, ...]:
    """Per (function, tree): the ratio of the leaves' summed best true gains to (kappa/32)(eps/log s)^2 of
    [BGLT20] Fact B.4 (s = f's minimum size, opt_s = 0, eps the completion's error), inf where the premise cannot
    hold (error 0 or s < 2); with the errors and the sizes."""
    from dtcore import exhaustive

    sub = exhaustive.subcubes(n)
    stats = exhaustive.subcube_statistics(tables)
    size = exhaustive.optimal_trees(tables).root_size.astype(float)
    membership = np.zeros((len(trees), sub.count))
    for k, leaves in enumerate(trees):
        membership[k, list(leaves)] = 1.0
    mean = stats.mean
    g = get_impurity(impurity)
    best = np.zeros_like(mean)
    for i in range(n):
        has = sub.free[:, i]
        c0, c1 = sub.children[has, i, 0], sub.children[has, i, 1]
        local = g(mean[:, has]) - 0.5 * g(mean[:, c0]) - 0.5 * g(mean[:, c1])
        best[:, has] = np.maximum(best[:, has], stats.p_reach[None, has] * local)
    error = stats.error @ membership.T          # (functions, trees): the f-completion's error
    gains = best @ membership.T
    log_s = np.log2(np.maximum(size, 2.0))[:, None]
    bound = kappa(impurity) / 32 * (error / log_s) ** 2
    ok = (error > 1e-12) & (size[:, None] >= 2)
    ratio = np.where(ok, gains / np.where(ok, bound, 1.0), np.inf)
    return ratio, error, size, ok


def fact_b4_exhaustive(n: int = 4, max_leaves: int = 6) -> pd.DataFrame:
    """[BGLT20] Fact B.4 on every monotone f on {0,1}^n and every bare tree with at most ``max_leaves``
    leaves, per impurity: with s = f's minimum size (opt_s = 0) and the strongest eps the premise allows
    (just below the completion's error), the least ratio of the leaves' summed best true gains to
    (kappa/32)(eps/log s)^2, and where it is attained. The row's power (``parity_min_ratio``): the same least
    ratio over the same trees for x0 ⊕ x1, which is not monotone."""
    tables = monotone_tables(n)
    trees = bare_trees(n, max_leaves)
    rows = []
    for name in IMPURITIES:
        ratio, error, size, ok = fact_b4_ratios(tables, n, trees, name)
        f_k, t_k = np.unravel_index(np.argmin(ratio), ratio.shape)
        parity_ratio = fact_b4_ratios(parity_table(n), n, trees, name)[0]
        rows.append({"impurity": name, "G": G_NAMES[name], "functions": len(tables), "trees": len(trees),
                     "pairs": int(ok.sum()), "min_ratio": float(ratio[f_k, t_k]), "s": int(size[f_k]),
                     "error": float(error[f_k, t_k]), "leaves": len(trees[t_k]),
                     "table": "".join(str(int(b)) for b in tables[f_k]),
                     "parity_min_ratio": float(parity_ratio.min())})
    return pd.DataFrame(rows)


def check_fact_b4_exhaustive(table: VerificationTable, b4: pd.DataFrame, *, n: int, max_leaves: int) -> None:
    """Fact B.4 at its worst (f, tree) over a whole small cube: one theorem row per impurity."""
    from dtcore import exhaustive

    for r in b4.itertuples():
        table.theorem("Fact B.4", f"least (sum of best true gains) / ((κ/32)(ε/log s)²) over every monotone f on "
                                  f"{{0,1}}^{n} and every tree of at most {max_leaves} leaves, {r.G}",
                      r.min_ratio, 1.0, relation=">=", reach=(0.0, math.inf), box="lem-bglt-b4",
                      measured_by=exhaustive.subcube_statistics, bound_by=kappa,
                      worst_case=f"all {r.pairs:,} (f, tree) pairs with error > 0 ({r.functions} functions, {r.trees:,} "
                                 f"trees); worst f = {r.table} (s = {r.s}), a tree of {r.leaves} leaves, error {r.error:.3f}",
                      fails_under=("x0 ⊕ x1, not monotone, over the same trees (the hypothesis dropped)",
                                   r.parity_min_ratio))


#: Fact B.4 as printed ("for any f") fails without monotonicity: the witness, its parameters and the impurity.
XOR_WITNESS = {"n": 4, "s": 4, "eps": Fraction(49, 100), "impurity": "gini"}


def _gini_exact(p: Fraction) -> Fraction:
    """Gini's G(p) = 4p(1 − p), in exact arithmetic."""
    return 4 * p * (1 - p)


def fact_b4_xor_exact() -> dict[str, object]:
    """[BGLT20] Fact B.4 as printed, at f = x0 XOR x1 on {0,1}^4, in exact arithmetic (fractions, pure Python: no
    code shared with the exhaustive search over monotone functions nor with the library's impurity functions).

    The printed statement: for every f, s, partial tree T° and eps in (0, 1/2), if the f-completion of T° has error
    > opt_s + eps then sum over leaves of max_i PurityGain(l, i) > (kappa/32)(eps/log s)². At T° the single leaf,
    s = 4 and eps = 49/100, Gini (kappa = 2), each hypothesis is checked and both sides are computed."""
    n, s, eps = XOR_WITNESS["n"], XOR_WITNESS["s"], XOR_WITNESS["eps"]
    points = list(itertools.product((0, 1), repeat=n))  # x = (x0, ..., x_{n-1})
    f = {x: x[0] ^ x[1] for x in points}

    def mean(cond) -> Fraction:
        chosen = [f[x] for x in points if cond(x)]
        return Fraction(sum(chosen), len(chosen))

    # opt_s: a tree of s = 4 leaves (x0 at the root, x1 below both children) computes f exactly
    four_leaf = {x: (1 - x[1]) if x[0] else x[1] for x in points}
    opt_s = Fraction(sum(four_leaf[x] != f[x] for x in points), len(points))
    root_mean = mean(lambda x: True)
    completion_error = min(root_mean, 1 - root_mean)  # the one leaf labelled by f's majority
    gains = [_gini_exact(root_mean) - _gini_exact(mean(lambda x, i=i: x[i] == 0)) / 2
             - _gini_exact(mean(lambda x, i=i: x[i] == 1)) / 2 for i in range(n)]
    kappa_exact = Fraction(2)  # (min −G'')/4 = 8/4 for G = 4p(1 − p)
    log_s = Fraction(2)  # log2 4
    bound = kappa_exact / 32 * (eps / log_s) ** 2
    monotone = all(f[x] <= f[y] for x in points for y in points if all(a <= b for a, b in zip(x, y)))
    hypotheses = {"f maps {0,1}^4 to {0,1}": all(v in (0, 1) for v in f.values()),
                  "eps in (0, 1/2)": 0 < eps < Fraction(1, 2),
                  f"opt_s = 0 at s = {s} (a 4-leaf tree computes f)": opt_s == 0,
                  "completion error > opt_s + eps": completion_error > opt_s + eps,
                  "s >= 2 (log s > 0)": s >= 2}
    return {"gains": gains, "sum_best": sum(max(g, Fraction(0)) for g in gains), "bound": bound,
            "completion_error": completion_error, "opt_s": opt_s, "hypotheses": hypotheses, "monotone": monotone}


def check_fact_b4_counterexample(table: VerificationTable, xor: dict[str, object]) -> None:
    """Fact B.4 as printed (any f) refuted at x0 XOR x1 (a counterexample row that stands only if every hypothesis
    holds in exact arithmetic), and the exact gains against the library's float oracle (an identity)."""
    from dtcore.audit.oracles import exact_purity_gains

    failed = [name for name, ok in xor["hypotheses"].items() if not ok]
    n, s, eps = XOR_WITNESS["n"], XOR_WITNESS["s"], XOR_WITNESS["eps"]
    measured = float(xor["sum_best"]) if not failed else float("nan")
    table.counterexample("Fact B.4 (as printed: any f)",
                         f"sum of best true Gini gains at the one-leaf tree, f = x0 ⊕ x1 on {{0,1}}^{n}, s = {s}, "
                         f"ε = {float(eps)}, against (κ/32)(ε/log s)² = {float(xor['bound']):.6f}",
                         measured, float(xor["bound"]), relation=">=", reach=(0.0, 1.0), box="lem-bglt-b4",
                         worst_case=("every hypothesis checked in exact arithmetic: " + "; ".join(xor["hypotheses"])
                                     + f"; f is {'' if xor['monotone'] else 'not '}monotone"),
                         note=("hypotheses that fail: " + ", ".join(failed)) if failed else
                              f"completion error {xor['completion_error']} > opt_s + ε = {float(xor['opt_s'] + eps)}")
    table_f = np.array([((k & 1) ^ ((k >> 1) & 1)) for k in range(2**n)], dtype=np.float64)
    _, _, oracle = exact_purity_gains(table_f, np.full(n, -1), "gini")
    table.identity("Fact B.4 (as printed: any f)", "max |exact gain (fractions) − float oracle| at the root, x0 ⊕ x1",
                   float(np.max(np.abs(oracle - np.array([float(g) for g in xor["gains"]])))), 1e-12, box="lem-bglt-b4",
                   computed_by=(fact_b4_xor_exact, exact_purity_gains))
