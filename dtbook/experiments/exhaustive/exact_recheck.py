"""A second exact computation of each confirmed violation, written afresh from the truth table.

:func:`dtcore.audit.worst_case.first_violations` rechecks every float violation in rational
arithmetic (:func:`dtcore.audit.worst_case.exact_lemma_ratio`, which reuses the subcube layer of
:mod:`dtcore.exhaustive`). This module recomputes the same ratios from nothing but the truth table and
the measure, in :class:`fractions.Fraction`, with its own subcubes (tuples with ``None`` for a free
variable), its own recursions for the least size, depth and average depth, its own influences
(straight from the definition: the probability that re-randomising x_i changes f) and its own
BuildTopDownDT run; the page's identity row fails when the two exact values differ. The bounds are
written from the papers' printed formulas ([MGBH26] Lemma C.1: Var / Δ, corrected Var / (2Δ); Lemma
4.4: 2ε / (tΔ), Δ-form ε / (tΔ), D-form ε / (tD)), not read from :mod:`dtcore.bounds`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import pandas as pd

from ...report import VerificationTable

Cube = tuple[int | None, ...]


class ExactFunction:
    """f on {0,1}^n (``table[index]``, bit i of the index is x_i) under the product measure ``p``."""

    def __init__(self, table: list[int] | tuple[int, ...], p: list[Fraction]) -> None:
        self.n = len(p)
        if len(table) != 2 ** self.n:
            raise ValueError(f"table must have 2^n = {2 ** self.n} entries, got {len(table)}")
        self.table = tuple(int(v) for v in table)
        self.p = list(p)
        self.points = [tuple((x >> i) & 1 for i in range(self.n)) for x in range(2 ** self.n)]
        self.weight = []
        for x in self.points:  # one exact product per point (at most 16)
            w = Fraction(1)
            for i, bit in enumerate(x):
                w *= self.p[i] if bit else 1 - self.p[i]
            self.weight.append(w)
        self.size = lru_cache(maxsize=None)(self._size)
        self.depth = lru_cache(maxsize=None)(self._depth)
        self.average_depth = lru_cache(maxsize=None)(self._average_depth)

    def inside(self, cube: Cube) -> list[int]:
        return [k for k, x in enumerate(self.points) if all(c is None or c == b for c, b in zip(cube, x))]

    def constant(self, cube: Cube) -> bool:
        return len({self.table[k] for k in self.inside(cube)}) == 1

    def children(self, cube: Cube, i: int) -> tuple[Cube, Cube]:
        return cube[:i] + (0,) + cube[i + 1:], cube[:i] + (1,) + cube[i + 1:]

    def free(self, cube: Cube) -> list[int]:
        return [i for i, c in enumerate(cube) if c is None]

    def _size(self, cube: Cube) -> int:
        if self.constant(cube):
            return 1
        return min(sum(self.size(c) for c in self.children(cube, i)) for i in self.free(cube))

    def _depth(self, cube: Cube) -> int:
        if self.constant(cube):
            return 0
        return 1 + min(max(self.depth(c) for c in self.children(cube, i)) for i in self.free(cube))

    def _average_depth(self, cube: Cube) -> Fraction:
        """The least expected depth, under the measure conditioned on ``cube``, of a tree computing f there."""
        if self.constant(cube):
            return Fraction(0)
        return min(1 + (1 - self.p[i]) * self.average_depth(c0) + self.p[i] * self.average_depth(c1)
                   for i in self.free(cube) for c0, c1 in [self.children(cube, i)])

    def mass(self, cube: Cube) -> tuple[Fraction, Fraction]:
        """(Pr[cube], Pr[cube and f = 1])."""
        ks = self.inside(cube)
        return sum((self.weight[k] for k in ks), Fraction(0)), sum((self.weight[k] for k in ks if self.table[k]),
                                                                   Fraction(0))

    def score(self, cube: Cube, i: int) -> Fraction:
        """Pr[cube] Inf_i(f restricted to cube): the probability of landing in the cube and of f changing
        when x_i is drawn again from its marginal."""
        total = Fraction(0)
        for k in self.inside(cube):  # at most 16 points
            x = self.points[k]
            flipped = k ^ (1 << i)
            if self.table[flipped] != self.table[k]:
                total += self.weight[k] * (1 - self.p[i] if x[i] else self.p[i])
        return total

    def root(self) -> Cube:
        return (None,) * self.n


def parse_measure(text: str, n: int) -> list[Fraction]:
    """The measure as the atlas prints it (``uniform`` or ``(0.05, 0.25, ...)``), read as exact decimals."""
    if text == "uniform":
        return [Fraction(1, 2)] * n
    return [Fraction(v.strip()) for v in text.strip("()").split(",")]


def table_bits(function: int, n: int) -> list[int]:
    """The truth table of function number ``function`` (bit k of the number is f at point k)."""
    return [(int(function) >> k) & 1 for k in range(2 ** n)]


def greedy_frontier(f: ExactFunction, leaves: int) -> list[Cube]:
    """The leaves of BuildTopDownDT's tree after ``leaves`` - 1 splits: each step splits the leaf and
    variable of the largest score Pr[leaf] Inf_i (ties: the oldest leaf, then the lowest i); a
    constant leaf is never split."""
    frontier: list[Cube] = [f.root()]
    while len(frontier) < leaves:  # one split per step
        best = None
        for pos, cube in enumerate(frontier):
            if f.constant(cube):
                continue
            for i in f.free(cube):
                s = f.score(cube, i)
                if best is None or s > best[0]:
                    best = (s, pos, i)
        if best is None:
            break
        _, pos, i = best
        cube = frontier.pop(pos)
        frontier += list(f.children(cube, i))
    return frontier


def fresh_ratio(result: str, form: str, function: int, n: int, measure: str, leaves: float | None) -> Fraction:
    """The exact measured/bound (bound/measured for lower bounds) of one atlas row, from the truth table."""
    f = ExactFunction(table_bits(function, n), parse_measure(measure, n))
    root = f.root()
    delta = f.average_depth(root)
    if result == "Lemma C.1":
        reach, ones = f.mass(root)
        mu = ones / reach
        variance = 4 * mu * (1 - mu)
        bound = variance / delta if form == "as printed" else variance / (2 * delta)
        return bound / max(f.score(root, i) for i in range(n))
    if result == "Lemma E.1":
        size, depth = f.size(root), f.depth(root)
        if size != 2 ** depth:
            raise ValueError(f"function {function:04x} has no complete minimum-size tree (s = {size}, D = {depth})")
        return Fraction(depth) / delta
    if result == "Lemma 4.4":
        t = int(leaves or 1)
        frontier = greedy_frontier(f, t)
        error = Fraction(0)
        best = Fraction(0)
        for cube in frontier:  # one leaf at a time
            reach, ones = f.mass(cube)
            error += min(ones, reach - ones)
            best = max([best] + [f.score(cube, i) for i in f.free(cube)])
        bound = {"as printed": 2 * error / (t * delta), "Delta-form (factor 2 fixed)": error / (t * delta)}.get(
            form, error / (t * f.depth(root)))
        return bound / best
    raise ValueError(f"result must be 'Lemma C.1', 'Lemma 4.4' or 'Lemma E.1', got {result!r}")


#: The ledger entry of each rechecked (result, form).
RECHECK_ENTRY = {("Lemma C.1", "as printed"): "[MGBH26] Lemma C.1", ("Lemma 4.4", "as printed"): "[MGBH26] Lemma 4.4",
                 ("Lemma 4.4", "Delta-form (factor 2 fixed)"): "[MGBH26] Lemma 4.4, Δ-form"}


def recheck_deviations(atlas_frame: pd.DataFrame) -> dict[str, tuple[float, int]]:
    """Per ledger entry: (largest |exact ratio of the atlas − fresh ratio|, rows compared) over its rows with an
    exact ratio (E.1's rows, outside its hypothesis, under [MGBH26] Appendix E.1)."""
    rows = atlas_frame[atlas_frame["exact_ratio"].notna()]
    out: dict[str, tuple[Fraction, int]] = {}
    for r in rows.itertuples():  # one exact recomputation per confirmed violation (a handful)
        leaves = None if pd.isna(r.leaves) else r.leaves
        fresh = fresh_ratio(r.result, r.form, int(r.function), int(r.n), r.measure, leaves)
        key = RECHECK_ENTRY.get((r.result, r.form), "[MGBH26] Appendix E.1" if r.result == "Lemma E.1" else None)
        if key is None:
            raise ValueError(f"atlas row must be one the recheck knows, got {(r.result, r.form)!r}")
        worst, count = out.get(key, (Fraction(0), 0))
        out[key] = (max(worst, abs(Fraction(str(r.exact_ratio)) - fresh)), count + 1)
    return {k: (float(v), n) for k, (v, n) in out.items()}


def check_recheck(table: VerificationTable, atlas_frame: pd.DataFrame) -> None:
    """One identity row per statement: each exact ratio the atlas reports equals a fresh exact computation."""
    for name, (deviation, count) in recheck_deviations(atlas_frame).items():
        outside = " (outside its hypothesis)" if name == "[MGBH26] Appendix E.1" else ""
        table.identity(f"{name}{outside}, exact recheck",
                       f"max |exact ratio (exact lemma ratio) − fresh exact ratio| over {count} rechecked "
                       f"witness{'es' if count > 1 else ''}", deviation, 0.0,
                       computed_by=("dtcore.audit.worst_case.exact_lemma_ratio",
                                    "dtbook.experiments.exhaustive.exact_recheck.fresh_ratio"))
