"""Exact analysis of Boolean functions given by truth tables, under product measures.

Conventions. ``Var(f) = 4 mu (1 - mu)`` with ``mu = Pr[f = 1]`` is the variance of the
+-1 version of f (Blanc–Lange–Tan 2020; Moakhar et al. 2026, Lemma C.2). Two influences:

* ``kind="flip"``: Inf_i(f) = Pr_x[f(x) != f(x xor e_i)] (BLT 2020, uniform measure);
* ``kind="rerandomised"``: Inf_i(f) = Pr[f(x) != f(x^(i))] with x_i redrawn from mu_i
  (Moakhar et al. 2026, Section 1.1), which equals ``2 p_i (1 - p_i)`` times the flip influence.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .validate import check_int
from .cube import ProductDistribution, check_table, resolve_distribution, table_variables

InfluenceKind = Literal["flip", "rerandomised"]


def _check_kind(kind: str) -> str:
    if kind not in ("flip", "rerandomised"):
        raise ValueError(f"kind must be 'flip' or 'rerandomised', got {kind!r}")
    return kind


def as_tensor(values: np.ndarray, n: int, leading: int = 0) -> np.ndarray:
    """View a flat truth-table-ordered array as shape ``lead + (2,)*n`` with axis ``leading+i`` = x_i."""
    lead = values.shape[:leading]
    t = values.reshape(lead + (2,) * n)
    order = tuple(range(leading)) + tuple(leading + n - 1 - i for i in range(n))
    return t.transpose(order)


def flipped(table: np.ndarray, i: int) -> np.ndarray:
    """The table of x -> f(x xor e_i), a contiguous copy."""
    n = table_variables(table)
    i = check_int("i", i, 0, n - 1)
    return table.reshape(-1, 2, 2**i)[:, ::-1, :].reshape(-1)


def sensitivity(table: np.ndarray) -> np.ndarray:
    """``S[i, x] = [f(x) != f(x xor e_i)]`` as an ``(n, 2^n)`` bool array."""
    table = check_table(table)
    n = table_variables(table)
    out = np.empty((n, table.size), dtype=bool)
    for i in range(n):  # one vectorised comparison per coordinate
        np.not_equal(table, flipped(table, i), out=out[i])
    return out


def mean(table: np.ndarray, dist: ProductDistribution | None = None) -> float:
    """Pr_{x ~ dist}[f(x) = 1]."""
    table = check_table(table)
    dist = resolve_distribution(dist, table_variables(table))
    if dist.is_uniform:
        return float(np.count_nonzero(table)) / table.size
    return float(dist.point_weights() @ table)


def variance(table: np.ndarray, dist: ProductDistribution | None = None) -> float:
    """Var(f) = 4 mu (1 - mu): the variance of the +-1 version of f under ``dist``."""
    mu = mean(table, dist)
    return 4.0 * mu * (1.0 - mu)


def constant_error(table: np.ndarray, dist: ProductDistribution | None = None) -> float:
    """error(f, +-1): the distance from f to the closer constant, min(mu, 1 - mu)."""
    mu = mean(table, dist)
    return min(mu, 1.0 - mu)


def influence_factor(dist: ProductDistribution, kind: str) -> np.ndarray:
    """Per-coordinate factor turning flip influences into influences of ``kind``."""
    if _check_kind(kind) == "flip":
        return np.ones(dist.n)
    return 2.0 * dist.p * (1.0 - dist.p)


def influences(
    table: np.ndarray, dist: ProductDistribution | None = None, kind: InfluenceKind = "flip"
) -> np.ndarray:
    """Inf_i(f) for every coordinate i, exactly (BLT 2020 Sec. 2; Moakhar et al. 2026 Sec. 1.1)."""
    table = check_table(table)
    n = table_variables(table)
    dist = resolve_distribution(dist, n)
    sens = sensitivity(table)
    if dist.is_uniform:
        flip = np.count_nonzero(sens, axis=1) / table.size
    else:
        flip = sens.astype(np.float64) @ dist.point_weights()
    return flip * influence_factor(dist, kind)


def total_influence(
    table: np.ndarray, dist: ProductDistribution | None = None, kind: InfluenceKind = "flip"
) -> float:
    """Inf(f) = sum_i Inf_i(f)."""
    return float(influences(table, dist, kind).sum())


def restrict(table: np.ndarray, fixed: dict[int, int]) -> tuple[np.ndarray, list[int]]:
    """The subfunction f_rho for the restriction ``fixed = {i: b}``: its table and free variables.

    The returned table is over the free variables in increasing order (bit j = j-th free one).
    """
    table = check_table(table)
    n = table_variables(table)
    index: list[object] = [slice(None)] * n
    for i, b in fixed.items():
        check_int("variable index", i, 0, n - 1)
        if b not in (0, 1):
            raise ValueError(f"restriction value for x_{i} must be 0 or 1, got {b!r}")
        index[i] = b
    free = [i for i in range(n) if i not in fixed]
    sub = as_tensor(table, n)[tuple(index)]
    # back to flat order: bit j of the index is the j-th free variable
    flat = np.ascontiguousarray(sub.transpose(tuple(reversed(range(len(free)))))).reshape(-1)
    return flat, free


def walsh_hadamard(values: np.ndarray) -> np.ndarray:
    """Fourier coefficients under the uniform measure: hat g(S) = E_x[g(x) (-1)^{|S and x|}].

    ``values`` is a real function on the cube in truth-table order; the result is indexed by
    the subset bitmask S. Butterfly transform, one vectorised pass per variable.
    """
    g = np.asarray(values, dtype=np.float64)
    n = table_variables(g, "values")
    out = g.copy()
    for i in range(n):
        blocks = out.reshape(-1, 2, 2**i)
        a, b = blocks[:, 0, :].copy(), blocks[:, 1, :]
        blocks[:, 0, :] = a + b
        blocks[:, 1, :] = a - b
    return out / g.size


class ExactMeasure:
    """A truth table under a product measure, prepared for fast statistics of subcubes.

    A subcube (a leaf of a decision tree) is a restriction: an int array of length n with
    -1 for a free variable and 0/1 for a fixed one. For a region rho, :meth:`region` gives
    Pr[x in rho], Pr[x in rho, f(x) = 1] and, for every free i, Pr[x in rho] * Inf_i(f_rho)
    (of the chosen kind; 0 for fixed i), each summed straight from views of precomputed arrays.
    """

    def __init__(
        self, table: np.ndarray, dist: ProductDistribution | None = None, kind: InfluenceKind = "flip"
    ) -> None:
        self.table = check_table(table)
        self.n = table_variables(self.table)
        if self.n < 1:
            raise ValueError("table must have n >= 1 variables, got n = 0")
        self.dist = resolve_distribution(dist, self.n)
        self.kind = _check_kind(kind)
        self._factor = influence_factor(self.dist, kind)
        if self.dist.is_uniform:
            self._init_packed()
        else:
            self._init_weighted()

    def _init_weighted(self) -> None:
        weights = self.dist.point_weights()
        weighted_sens = sensitivity(self.table) * weights  # Pr[x] [f(x) != f(x xor e_i)]
        weighted_sens *= self._factor[:, None]
        self._weights = as_tensor(weights, self.n)
        self._mass_one = as_tensor(weights * self.table, self.n)
        self._weighted_sens = as_tensor(weighted_sens, self.n, leading=1)

    def _init_packed(self) -> None:
        # Uniform measure: every statistic is a count, so the table is packed 64 points to a
        # word (bit j of word w is the point w * 2^b + j) and counted with popcount.
        n = self.n
        b = min(n, 6)
        self._bits = b
        words = (self.table.reshape(-1, 2**b).astype(np.uint64) << np.arange(2**b, dtype=np.uint64)).sum(
            axis=1, dtype=np.uint64
        )
        positions = np.arange(2**b, dtype=np.uint64)
        bit_masks = []
        for i in range(b):  # positions whose bit i is 0
            zero = ((positions >> np.uint64(i)) & np.uint64(1)) == 0
            bit_masks.append(np.uint64((np.uint64(1) << positions[zero]).sum(dtype=np.uint64)))
        self._zero_masks = bit_masks
        self._full_mask = np.uint64((1 << 2**b) - 1) if b < 6 else np.uint64(2**64 - 1)
        diff = np.empty((n, words.size), dtype=np.uint64)
        for i in range(b):  # swap the two halves of every 2^(i+1)-bit block inside each word
            shift = np.uint64(2**i)
            m = bit_masks[i]
            diff[i] = words ^ (((words >> shift) & m) | ((words & m) << shift))
        for i in range(b, n):  # x_i lives in the word index: compare with the partner word
            diff[i] = words ^ words.reshape(-1, 2, 2 ** (i - b))[:, ::-1, :].reshape(-1)
        self._words = words  # flat: word w holds the points w * 2^b + j
        self._diff = diff
        self._scale = 2.0**-n

    def _index(self, restriction: np.ndarray) -> tuple[object, ...]:
        return tuple(slice(None) if r < 0 else int(r) for r in restriction)

    def region(self, restriction: np.ndarray) -> tuple[float, float, np.ndarray]:
        """(Pr[x in rho], Pr[x in rho and f = 1], Pr[x in rho] * Inf_i(f_rho) for each i)."""
        restriction = np.asarray(restriction)
        if restriction.shape != (self.n,):
            raise ValueError(f"restriction must have shape ({self.n},), got {restriction.shape}")
        if self.dist.is_uniform:
            p_reach, mass_one, scores = self._region_packed(restriction)
        else:
            p_reach, mass_one, scores = self._region_weighted(restriction)
        scores[restriction >= 0] = 0.0
        return p_reach, mass_one, scores

    def _region_weighted(self, restriction: np.ndarray) -> tuple[float, float, np.ndarray]:
        idx = self._index(restriction)
        p_reach = float(self._weights[idx].sum())
        mass_one = float(self._mass_one[idx].sum())
        sens = self._weighted_sens[(slice(None),) + idx]
        free_axes = tuple(range(1, sens.ndim))
        scores = sens.sum(axis=free_axes) if free_axes else sens.copy()
        return p_reach, mass_one, np.array(scores, dtype=np.float64)

    def _region_packed(self, restriction: np.ndarray) -> tuple[float, float, np.ndarray]:
        b = self._bits
        mask = self._full_mask
        for i in np.flatnonzero(restriction[:b] >= 0):
            zero = self._zero_masks[i]
            mask &= zero if restriction[i] == 0 else ~zero & self._full_mask
        # The words of the subcube as a strided view, one axis per run of consecutive free
        # word variables (few, long axes: no copy and fast ufunc loops).
        offset, shape, strides = 0, [], []
        start = None
        word_restriction = [int(v) for v in restriction[b:]] + [0]
        for j, v in enumerate(word_restriction):
            if v < 0:
                start = j if start is None else start
                continue
            if start is not None:
                shape.append(2 ** (j - start))
                strides.append(2**start * self._words.itemsize)
                start = None
            offset += v << j
        shape, strides = shape[::-1], strides[::-1]  # descending strides: C order
        words = as_strided(self._words[offset:], tuple(shape), tuple(strides))
        diff = as_strided(self._diff[:, offset:], (self.n, *shape), (self._diff.strides[0], *strides))
        if mask != self._full_mask:
            words, diff = words & mask, diff & mask
        p_reach = 2.0 ** -int((restriction >= 0).sum())
        mass_one = float(np.bitwise_count(words).sum(dtype=np.int64)) * self._scale
        counts = np.bitwise_count(diff).reshape(self.n, -1).sum(axis=1, dtype=np.int64)
        return p_reach, mass_one, counts * self._scale * self._factor


def leaf_statistics(tree, table: np.ndarray, dist: ProductDistribution | None = None,
                    kind: InfluenceKind = "flip", measure: ExactMeasure | None = None) -> dict[str, np.ndarray]:
    """Per-leaf exact statistics of f on the leaves of a bare tree (BLT 2020, Sec. 5).

    Returns arrays over the leaves (in ``tree.leaves()`` order): ``node``, ``depth``, ``p_reach``,
    ``mass_one``, ``error`` (p_reach * error(f_l, +-1)), ``variance`` (Var(f_l)),
    ``weighted_influence`` ((L, n): p_reach * Inf_i(f_l)), ``cost`` (p_reach * Inf(f_l)).
    Stochastic nodes are not allowed here (a bare tree is deterministic).
    """
    measure = measure if measure is not None else ExactMeasure(table, dist, kind)
    if tree.n != measure.n:
        raise ValueError(f"tree must be on n = {measure.n} variables to match the table, got {tree.n}")
    if tree.has_stochastic_nodes:
        raise ValueError("tree must not have stochastic nodes for leaf_statistics")
    nodes = tree.leaves()
    restrictions = tree.leaf_restrictions()
    stats = [measure.region(r) for r in restrictions]
    p_reach = np.array([s[0] for s in stats])
    mass_one = np.array([s[1] for s in stats])
    weighted_inf = np.array([s[2] for s in stats]).reshape(len(nodes), measure.n)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(p_reach > 0, mass_one / p_reach, 0.0)
    return {
        "node": np.array(nodes),
        "depth": (restrictions >= 0).sum(axis=1),
        "p_reach": p_reach,
        "mass_one": mass_one,
        "error": np.minimum(mass_one, p_reach - mass_one),
        "variance": 4.0 * q * (1.0 - q),
        "weighted_influence": weighted_inf,
        "cost": weighted_inf.sum(axis=1),
    }


def cost(tree, table: np.ndarray, dist: ProductDistribution | None = None,
         kind: InfluenceKind = "flip") -> float:
    """cost_f(T) = sum over leaves of Pr[x reaches l] * Inf(f_l) (BLT 2020, Lemma 5.1)."""
    return float(leaf_statistics(tree, table, dist, kind)["cost"].sum())


def completion_error(tree, table: np.ndarray, dist: ProductDistribution | None = None) -> float:
    """error(T, f): the error of the f-completion of the bare tree T (best label per leaf)."""
    return float(leaf_statistics(tree, table, dist)["error"].sum())


def complete(tree, table: np.ndarray, dist: ProductDistribution | None = None):
    """The f-completion of ``tree``: each leaf labelled by f's majority value on it (ties -> 1)."""
    stats = leaf_statistics(tree, table, dist)
    out = tree.copy()
    for node, p, one in zip(stats["node"], stats["p_reach"], stats["mass_one"]):
        out.set_value(int(node), 1.0 if one >= p - one else 0.0)
    return out


def split_cost_drop(tree, table: np.ndarray, leaf_position: int, feature: int,
                    dist: ProductDistribution | None = None, kind: InfluenceKind = "flip") -> tuple[float, float]:
    """Both sides of BLT 2020 Lemma 5.1(2) for one split, computed independently.

    Splits a copy of the bare ``tree`` at its ``leaf_position``-th leaf (``tree.leaves()`` order) on
    the free variable ``feature`` and returns ``(drop, score)``: ``drop`` = cost_f before minus
    cost_f after, each summed over the leaves of its own tree; ``score`` = Pr[x reaches l] *
    Inf_feature(f_l) of the split leaf. The lemma says they are equal.
    """
    measure = ExactMeasure(table, dist, kind)
    before = leaf_statistics(tree, table, measure=measure)
    leaf_position = check_int("leaf_position", leaf_position, 0, len(before["node"]) - 1)
    restriction = tree.leaf_restrictions()[leaf_position]
    feature = check_int("feature", feature, 0, measure.n - 1)
    if restriction[feature] >= 0:
        raise ValueError(f"feature must be a free variable of the leaf, got x_{feature}, fixed to {restriction[feature]}")
    score = float(before["weighted_influence"][leaf_position, feature])
    split = tree.copy()
    split.split(int(before["node"][leaf_position]), feature)
    after = leaf_statistics(split, table, measure=measure)
    return float(before["cost"].sum() - after["cost"].sum()), score


def fourier_variance_and_influences(table: np.ndarray) -> tuple[float, np.ndarray]:
    """Var(f) and every Inf_i(f) from the Fourier spectrum of the +-1 version of f (uniform measure).

    Parseval gives Var(f) = sum over S != {} of hat f(S)^2 and Inf_i(f) = sum over S containing i
    of hat f(S)^2 (O'Donnell, *Analysis of Boolean Functions*, Prop. 1.13 and Thm. 2.20): a second,
    independent computation of :func:`variance` and :func:`influences` (flip influence), used to
    check them in BLT 2020's chapter.
    """
    table = check_table(table)
    n = table_variables(table)
    power = walsh_hadamard(1.0 - 2.0 * table.astype(np.float64)) ** 2
    masks = np.arange(table.size)
    inf = np.array([power[(masks >> i) & 1 == 1].sum() for i in range(n)])  # one masked sum per variable
    return float(power[1:].sum()), inf


def _permute_variables(table: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The truth table of f with its variables renumbered: bit k of the new index is x_order[k].

    Runs of variables that stay consecutive move as one axis, so the copy is a transpose of a
    tensor with few axes (a 2-D transpose when a block of variables moves to the front)."""
    n = table_variables(table)
    order = [int(v) for v in order]
    runs = []                                           # runs of consecutive old variables, in new order
    for v in order:
        if runs and runs[-1][-1] + 1 == v:
            runs[-1].append(v)
        else:
            runs.append([v])
    by_old = sorted(range(len(runs)), key=lambda r: runs[r][0])
    # C order: the first axis is the most significant, i.e. the highest variables
    shape = [2 ** len(runs[r]) for r in reversed(by_old)]
    axis_of_run = {r: len(runs) - 1 - k for k, r in enumerate(by_old)}
    axes = [axis_of_run[r] for r in reversed(range(len(runs)))]
    return np.ascontiguousarray(table.reshape(shape).transpose(axes)).reshape(-1)


class WordLevelCounts:
    """Exact counts of many disjoint subcubes at once under the uniform measure.

    :class:`ExactMeasure` answers one subcube per call. A top-down learner needs the statistics
    of every leaf of a tree, and the leaves partition the cube, so one pass over the n flip tables
    can serve them all. Here the truth table is packed 64 points to a word with six chosen
    ``inword`` variables inside each word and the other variables in the word index; a subcube
    that fixes none of the in-word variables is then a set of whole words. The object keeps a map
    word -> subcube id for a family of such subcubes (id 0: words of no tracked subcube), splits
    many of them at once on word-index variables (one pass over the map) and counts, for every id,
    the points with f = 1 and, for every variable i, the points x with f(x) != f(x xor e_i): one
    weighted ``bincount`` over the per-word popcounts of each flip table, precomputed once.
    """

    def __init__(self, table: np.ndarray, inword: np.ndarray) -> None:
        table = check_table(table)
        n = table_variables(table)
        inword = np.asarray(inword, dtype=np.int64).reshape(-1)
        if n < 7 or inword.size != 6 or np.unique(inword).size != 6 or inword.min() < 0 or inword.max() >= n:
            raise ValueError(f"inword must be 6 distinct variables of a table on n >= 7 variables, got {inword} (n = {n})")
        self.n = n
        rest = np.setdiff1d(np.arange(n), inword)
        self.order = np.concatenate([inword, rest])        # bit k of the packed index is x_order[k]
        self.position = np.argsort(self.order)             # bit of the packed index holding x_v
        if np.array_equal(inword, np.arange(6)):        # the table's own order: 64 consecutive points
            words = np.packbits(table.reshape(-1, 64), axis=1, bitorder="little").view(np.uint64).reshape(-1)
        else:
            # the in-word variables on top, so each word is a column of a (64, words) matrix: packing
            # along axis 0 needs no transpose of the bytes (none at all when they are the top six)
            on_top = _permute_variables(table, np.concatenate([rest, inword])).reshape(8, 8, -1)
            # bit k of byte b of each word is row 8b + k: eight shifted ORs of whole rows (numpy's
            # packbits along the first axis walks the matrix with a stride, about eight times slower)
            packed = on_top[:, 0].copy()
            for k in range(1, 8):
                packed |= on_top[:, k] << np.uint8(k)
            words = np.ascontiguousarray(packed.T).view(np.uint64).reshape(-1)
        self.words = words.size
        flips = np.empty((n, words.size), dtype=np.uint8)   # popcount of each word's flip table
        positions = np.arange(64, dtype=np.uint64)
        for k in range(6):  # in-word bit: swap the two halves of every 2^(k+1)-bit block
            zero = np.uint64((np.uint64(1) << positions[((positions >> np.uint64(k)) & np.uint64(1)) == 0])
                             .sum(dtype=np.uint64))
            shift = np.uint64(2**k)
            flips[k] = np.bitwise_count(words ^ (((words >> shift) & zero) | ((words & zero) << shift)))
        for k in range(6, n):  # word-index bit: compare with the partner word
            flips[k] = np.bitwise_count(words ^ words.reshape(-1, 2, 2 ** (k - 6))[:, ::-1, :].reshape(-1))
        self.flips = flips
        self.ones = np.bitwise_count(words)
        self.word_leaf = np.ones(words.size, dtype=np.int64)   # every word in subcube 1 (the cube)
        self._word_index = np.arange(words.size, dtype=np.int64)

    def is_word_variable(self, variable: int) -> bool:
        """Whether x_variable lives in the word index (a split on it keeps subcubes whole words)."""
        return bool(self.position[variable] >= 6)

    def split(self, ids: np.ndarray, variables: np.ndarray, first_child: np.ndarray) -> None:
        """Split subcubes ``ids`` on word variables ``variables``: the x = 0 half becomes id
        ``first_child``, the x = 1 half ``first_child + 1``; ``variables[t] = -1`` drops subcube
        ``ids[t]`` from the map instead (its words go to id 0)."""
        ids, variables = np.asarray(ids), np.asarray(variables)
        size = int(max(self.word_leaf.max(), np.max(ids, initial=0))) + 1
        bit = np.full(size, -1, dtype=np.int64)        # word-index bit a subcube splits on
        child = np.zeros(size, dtype=np.int64)
        dropped = variables < 0
        bit[ids[~dropped]] = self.position[variables[~dropped]] - 6
        child[ids] = np.where(dropped, 0, first_child)
        gone = np.zeros(size, dtype=bool)
        gone[ids[dropped]] = True
        at = bit[self.word_leaf]
        leaving = gone[self.word_leaf]
        moved = np.flatnonzero(at >= 0)
        self.word_leaf[moved] = child[self.word_leaf[moved]] + ((moved >> at[moved]) & 1)
        self.word_leaf[leaving] = 0

    def counts(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(#points with f = 1, #points x with f(x) != f(x xor e_i) for every i in the original
        variable order) of subcubes ``ids`` (tracked by the map): int64 arrays (L,) and (L, n).

        Only the words of ``ids`` are read: they are sorted by subcube (a stable sort of 16-bit
        keys is a radix sort, linear in the words), gathered and summed run by run."""
        ids = np.asarray(ids, dtype=np.int64)
        member = np.zeros(int(max(self.word_leaf.max(), ids.max(initial=0))) + 1, dtype=bool)
        member[ids] = True
        chosen = np.flatnonzero(member[self.word_leaf])
        keys = self.word_leaf[chosen]
        keys = keys.astype(np.uint16) if keys.size and keys.max() < 2**16 else keys
        chosen = chosen[np.argsort(keys, kind="stable")]
        leaf_sorted = self.word_leaf[chosen]
        start = np.searchsorted(leaf_sorted, ids)
        if (np.searchsorted(leaf_sorted, ids, side="right") <= start).any():
            raise ValueError("ids must be subcubes tracked by the word map")
        order = np.argsort(start, kind="stable")           # reduceat needs increasing starts
        ones = np.empty(ids.size, dtype=np.int64)
        ones[order] = np.add.reduceat(np.take(self.ones, chosen), start[order], dtype=np.int64)
        flips = np.add.reduceat(np.take(self.flips, chosen, axis=1), start[order], axis=1, dtype=np.int32)
        out = np.empty((ids.size, self.n), dtype=np.int64)
        out[order] = flips.T[:, self.position]
        return ones, out
