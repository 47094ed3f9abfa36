"""[MGBH26] Lemma C.1 and Lemma 4.4 as printed: every printed hypothesis checked on the search's witness, in exact
arithmetic, by code independent of the search (:mod:`dtcore.exhaustive`, :mod:`dtcore.audit.worst_case`).

Everything here works on Fractions: the measure's p_i read as the decimals they were written as, the truth
table's points weighted by the product measure, influences summed over every point and both redrawn values,
the least average depth by a memoised recursion over subcubes, Algorithm 1 replayed leaf by leaf. The
arrays are NumPy object arrays of Fractions (16 points on four variables), so nothing is rounded.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Sequence

import numpy as np
import pandas as pd

from ...report import VerificationTable


def _bits(hex_table: str, n: int) -> np.ndarray:
    """f(x) for every point x (bit i of the point's index is x_i), from the hexadecimal truth table."""
    return (int(hex_table, 16) >> np.arange(2 ** n)) & 1


def _points(n: int) -> np.ndarray:
    return (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1  # (2^n, n)


def _weights(p: Sequence[Fraction], n: int) -> np.ndarray:
    """μ(x) for every point, as Fractions."""
    x = _points(n)
    probs = np.array(p, dtype=object)
    return np.prod(np.where(x == 1, probs[None, :], 1 - probs[None, :]), axis=1)


def _in(fixed: tuple[tuple[int, int], ...], n: int) -> np.ndarray:
    x = _points(n)
    mask = np.ones(2 ** n, dtype=bool)
    for i, b in fixed:
        mask &= x[:, i] == b
    return mask


def subcube_statistics(f: np.ndarray, p: Sequence[Fraction], fixed: tuple[tuple[int, int], ...] = ()
                       ) -> tuple[Fraction, Fraction, list[Fraction]]:
    """(mass, mass of f = 1, [Inf^μ_i(f_ρ)]) on the subcube ρ = ``fixed``, exactly.

    Inf^μ_i(f_ρ) = Σ_x μ(x | ρ) Σ_b μ_i(b) [f(x) ≠ f(x with x_i = b)] for a free i, 0 for a fixed one.
    """
    n = len(p)
    w, mask, index = _weights(p, n), _in(fixed, n), np.arange(2 ** n)
    mass = sum(w[mask], Fraction(0))
    ones = sum(w[mask & (f == 1)], Fraction(0))
    free = {i for i in range(n)} - {i for i, _ in fixed}
    infs = []
    for i in range(n):  # loop over variables; every point at once
        if i not in free or mass == 0:
            infs.append(Fraction(0))
            continue
        to1, to0 = index | (1 << i), index & ~(1 << i)
        moved = np.where(f != f[to1], p[i], 0) + np.where(f != f[to0], 1 - p[i], 0)
        infs.append(sum(w[mask] * moved[mask], Fraction(0)) / mass)
    return mass, ones, infs


def least_average_depth(f: np.ndarray, p: Sequence[Fraction]) -> Fraction:
    """The least μ-average depth of a decision tree computing f: 0 on a subcube where f is constant, else
    min over free i of 1 + (1 − p_i) A(ρ, x_i = 0) + p_i A(ρ, x_i = 1). Every leaf of the tree the recursion
    describes is a subcube on which f is constant, so that tree computes f."""
    n = len(p)

    @cache
    def depth(fixed: tuple[tuple[int, int], ...]) -> Fraction:
        values = f[_in(fixed, n)]
        if values.min() == values.max():
            return Fraction(0)
        free = sorted(set(range(n)) - {i for i, _ in fixed})
        return min(1 + (1 - p[i]) * depth(tuple(sorted(fixed + ((i, 0),))))
                   + p[i] * depth(tuple(sorted(fixed + ((i, 1),)))) for i in free)

    return depth(())


def greedy_frontier(f: np.ndarray, p: Sequence[Fraction], leaves: int) -> list[tuple[tuple[int, int], ...]]:
    """[MGBH26] Algorithm 1 replayed exactly: the leaves (as fixed coordinates) after ``leaves − 1`` splits, each
    split on the leaf of largest p_ℓ max_i Inf^μ_i(f_ℓ) and its most influential variable (first on ties)."""
    frontier: list[tuple[tuple[int, int], ...]] = [()]
    while len(frontier) < leaves:
        scored = []
        for leaf in frontier:
            mass, _, infs = subcube_statistics(f, p, leaf)
            scored.append((mass * max(infs), leaf, int(np.argmax(np.array(infs, dtype=object)))))
        best = max(scored, key=lambda s: s[0])
        frontier.remove(best[1])
        frontier += [tuple(sorted(best[1] + ((best[2], b),))) for b in (0, 1)]
    return frontier


def _fraction_measure(measure: str, n: int) -> list[Fraction]:
    text = str(measure).strip()
    if text in ("uniform", ""):
        return [Fraction(1, 2)] * n
    return [Fraction(v.strip()) for v in text.strip("()").split(",") if v.strip()]


def c1_printed_hypotheses(hex_table: str, measure: str, n: int = 4) -> pd.DataFrame:
    """[MGBH26] Lemma C.1 as printed (max_i Inf^μ_i(f) ≥ Var(f)/Δ) at a witness: each hypothesis and the claim."""
    p, f = _fraction_measure(measure, n), _bits(hex_table, n)
    mass, ones, infs = subcube_statistics(f, p)
    mu = ones / mass
    var, delta = 4 * mu * (1 - mu), least_average_depth(f, p)
    return pd.DataFrame([
        {"item": "μ is a product measure with every p_i in (0, 1)", "holds": all(0 < q < 1 for q in p),
         "value": ", ".join(str(q) for q in p)},
        {"item": "f : {0,1}^n → {0,1} is not constant (Var(f) > 0)", "holds": var > 0, "value": str(var)},
        {"item": "a decision tree of μ-average depth Δ computes f (the least such Δ)", "holds": delta > 0,
         "value": str(delta)},
        {"item": "claim fails: maxᵢ Infᵢ^μ(f) < Var(f)/Δ", "holds": max(infs) < var / delta,
         "value": f"{max(infs)} < {var / delta}", "ratio": (var / delta) / max(infs)},
    ])


def l44_printed_hypotheses(hex_table: str, measure: str, leaves: int, n: int = 4,
                           shortfall: Fraction = Fraction(1, 1000)) -> pd.DataFrame:
    """[MGBH26] Lemma 4.4 as printed (chosen score ≥ 2ε/(jΔ_opt) while error > ε) at a witness: each hypothesis
    and the claim, with ε = (1 − ``shortfall``) × the error of Algorithm 1's ``leaves``-leaf tree."""
    p, f = _fraction_measure(measure, n), _bits(hex_table, n)
    frontier = greedy_frontier(f, p, leaves)
    stats = [subcube_statistics(f, p, leaf) for leaf in frontier]
    error = sum((min(o, m - o) for m, o, _ in stats), Fraction(0))
    eps = (1 - shortfall) * error
    score = max(m * max(i) for m, _, i in stats)
    delta = least_average_depth(f, p)
    bound = 2 * eps / (len(frontier) * delta)
    return pd.DataFrame([
        {"item": "μ is a product measure with every p_i in (0, 1)", "holds": all(0 < q < 1 for q in p),
         "value": ", ".join(str(q) for q in p)},
        {"item": "a decision tree of μ-average depth Δ_opt computes f (the least such Δ)", "holds": delta > 0,
         "value": str(delta)},
        {"item": "ε ∈ (0, 1/2)", "holds": 0 < eps < Fraction(1, 2), "value": str(eps)},
        {"item": f"T° is Algorithm 1's tree with j = {len(frontier)} leaves (replayed exactly)",
         "holds": len(frontier) == leaves, "value": str(len(frontier))},
        {"item": "the completion of T° has error > ε", "holds": error > eps, "value": f"{error} > {eps}"},
        {"item": "claim fails: the chosen leaf's score < 2ε/(jΔ_opt)", "holds": score < bound,
         "value": f"{score} < {bound}", "ratio": bound / score},
    ])


def check_witness_hypotheses(table: VerificationTable, frame: pd.DataFrame, exhaustive: pd.DataFrame) -> None:
    """One identity row per refuted printed statement: its hypotheses that fail at the witness (0 when every one
    holds), and the exact ratio of the independent recomputation against the search's rational recomputation."""
    for result, name, box in (("Lemma C.1", "Lemma C.1 (printed)", "lem-mgbh-c-1"),
                              ("Lemma 4.4", "Lemma 4.4 (printed)", "lem-mgbh-4-4")):
        sub = frame[frame["result"] == result]
        row = exhaustive[(exhaustive["result"] == result) & (exhaustive["form"] == "as printed")].iloc[0]
        witness = f"f = 0x{row['table']}, p = {row['measure']}"
        table.identity(name, f"printed hypotheses (and the failed claim) that do not hold at the witness, of "
                       f"{len(sub)}, in exact arithmetic", float((~sub["holds"].astype(bool)).sum()), 0.0,
                       computed_by=("dtbook.experiments.ch04.witnesses (Fractions, every point)",
                                    "the printed statement's hypotheses"), box=box, worst_case=witness)
        ratio = sub["ratio"].dropna().iloc[0]
        table.identity(name, "|independent exact ratio at the witness − the search's exact ratio| (ε → error)",
                       abs(float(ratio) - float(row["exact"])), 0.01 if result == "Lemma 4.4" else 1e-12,
                       computed_by=("dtbook.experiments.ch04.witnesses", "dtcore.audit.worst_case.exact_lemma_ratio"),
                       box=box, worst_case=witness,
                       note="Lemma 4.4 at ε = 0.999 × the error: the ratio is 0.999 of its limit")


def witness_hypotheses(exhaustive: pd.DataFrame) -> pd.DataFrame:
    """Both refuted printed statements at their search witnesses: one row per hypothesis (and the failed claim)."""
    frames = []
    for result, fn in (("Lemma C.1", c1_printed_hypotheses), ("Lemma 4.4", l44_printed_hypotheses)):
        row = exhaustive[(exhaustive["result"] == result) & (exhaustive["form"] == "as printed")].iloc[0]
        args = (str(row["table"]), str(row["measure"]))
        out = fn(*args, int(row["leaves"]), int(row["n"])) if result == "Lemma 4.4" else fn(*args, int(row["n"]))
        out.insert(0, "result", result)
        frames.append(out)
    return pd.concat(frames, ignore_index=True)
