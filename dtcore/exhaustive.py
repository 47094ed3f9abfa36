"""Every Boolean function on a few variables at once: exact optimal trees, spectra and greedy runs.

A batch of B truth tables on n <= 6 variables is held *packed*: one ``uint64`` per function whose
bit x is f(x) (bit i of x is x_i, as everywhere in dtcore). On n <= 4 the batch can be every
function, 2^(2^n) of them (65,536 at n = 4): :func:`all_tables`. Everything here is vectorised
over the functions; the Python loops run over variables, subcubes (3^n of them), levels of the
subcube lattice or the <= 2^n - 1 steps of a greedy run, never over functions or cube points.

* :func:`subcubes` - the 3^n subcubes (restrictions) of {0,1}^n, children and point masks.
* :func:`optimal_trees` - minimum size (leaves) and minimum depth of a decision tree computing f on
  every subcube, by dynamic programming over subcubes.
* :func:`minimum_average_depth` - minimum mu-average depth, optionally among trees of depth <= d.
* :func:`subcube_statistics` - Pr[x in rho], Pr[x in rho, f = 1] and Pr[x in rho] Inf_i(f_rho)
  under the uniform or any product measure (flip or re-randomised influence).
* :func:`fourier_spectra` - the coefficients of the +-1 version of f in the mu-biased orthonormal basis.
* :func:`best_first_runs` - a best-first growth (the loop of :mod:`dtcore.grow`) run for every function
  in lock-step, with the scores of BuildTopDownDT (:func:`build_top_down_scores`) or TopDown_G on
  the whole cube (:func:`top_down_scores`); :func:`id3_sizes` - ID3 on the full truth table.

The greedy runs reproduce the single-function learners' choices and tie rules (tests/test_exhaustive.py).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .cube import ProductDistribution, all_points, resolve_distribution
from .id3 import _batched_gains, first_best
from .impurity import get_impurity
from .tree import DecisionTree
from .validate import check_int

MAX_ALL_FUNCTIONS_VARIABLES = 4
"""Largest n for which :func:`all_tables` lists every function (2^16 tables at n = 4)."""
MAX_BATCH_VARIABLES = 6
"""Largest n of a packed batch (2^6 = 64 points: one uint64 word per function)."""


# --- truth tables, packed ------------------------------------------------------------------------

def all_tables(n: int) -> np.ndarray:
    """Every truth table on n <= 4 variables, ``(2^(2^n), 2^n)`` uint8; row k has f(x) = bit x of k."""
    n = check_int("n", n, 1, MAX_ALL_FUNCTIONS_VARIABLES)
    k = np.arange(2 ** (2**n), dtype=np.uint32)
    return ((k[:, None] >> np.arange(2**n, dtype=np.uint32)) & 1).astype(np.uint8)


def table_batch_variables(tables: np.ndarray) -> int:
    """n of a ``(B, 2^n)`` batch of 0/1 truth tables, n in [1, 6]; ``ValueError`` otherwise."""
    arr = np.asarray(tables)
    if arr.ndim != 2 or arr.shape[1] < 2 or arr.shape[1] & (arr.shape[1] - 1):
        raise ValueError(f"tables must have shape (B, 2^n) with n >= 1, got {arr.shape}")
    n = arr.shape[1].bit_length() - 1
    if n > MAX_BATCH_VARIABLES:
        raise ValueError(f"tables must be on n <= {MAX_BATCH_VARIABLES} variables, got n = {n}")
    if arr.dtype != np.bool_ and not np.isin(arr, (0, 1)).all():
        raise ValueError("tables must hold only 0/1 values")
    return n


def pack(tables: np.ndarray) -> np.ndarray:
    """A ``(B, 2^n)`` batch of truth tables as B uint64 words, bit x of word b = f_b(x)."""
    n = table_batch_variables(tables)
    bits = np.asarray(tables).astype(np.uint64)
    return (bits << np.arange(2**n, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)


def unpack(packed: np.ndarray, n: int) -> np.ndarray:
    """The ``(B, 2^n)`` uint8 truth tables of packed words (inverse of :func:`pack`)."""
    n = check_int("n", n, 1, MAX_BATCH_VARIABLES)
    words = np.asarray(packed, dtype=np.uint64)
    return ((words[:, None] >> np.arange(2**n, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)


def _as_packed(tables: np.ndarray) -> tuple[np.ndarray, int]:
    n = table_batch_variables(tables)
    return pack(tables), n


# --- the subcube lattice -----------------------------------------------------------------------

@dataclass(frozen=True)
class Subcubes:
    """The 3^n subcubes of {0,1}^n, ordered by their number of free variables (points first).

    ``restrictions[s]`` has -1 for a free and 0/1 for a fixed variable; ``masks[s]`` the packed set of
    its points; ``children[s, i, b]`` the subcube with x_i fixed to b (-1 when x_i is fixed in s);
    ``levels[k]`` the subcubes with k free variables; ``root`` the whole cube.
    """

    n: int
    restrictions: np.ndarray
    masks: np.ndarray
    children: np.ndarray
    free: np.ndarray
    levels: tuple[np.ndarray, ...]
    root: int

    @property
    def count(self) -> int:
        """3^n."""
        return int(self.masks.size)

    def index(self, restriction: np.ndarray | list[int]) -> int:
        """The position of a restriction (-1 free) in this ordering."""
        r = np.asarray(restriction)
        if r.shape != (self.n,) or not np.isin(r, (-1, 0, 1)).all():
            raise ValueError(f"restriction must have shape ({self.n},) with values in {{-1, 0, 1}}, got {r!r}")
        return int(np.flatnonzero((self.restrictions == r).all(axis=1))[0])


@functools.lru_cache(maxsize=None)
def subcubes(n: int) -> Subcubes:
    """The subcube lattice of {0,1}^n (cached): restrictions, point masks and children."""
    n = check_int("n", n, 1, MAX_BATCH_VARIABLES)
    powers = 3 ** np.arange(n)
    codes = np.arange(3**n)
    digits = (codes[:, None] // powers) % 3  # digit 2: free
    order = np.argsort((digits == 2).sum(axis=1), kind="stable")
    digits = digits[order]
    position = np.empty(3**n, dtype=np.int64)
    position[order] = np.arange(3**n)
    restrictions = np.where(digits == 2, -1, digits).astype(np.int8)
    free = restrictions < 0
    points = all_points(n)
    inside = ((restrictions[:, None, :] < 0) | (restrictions[:, None, :] == points[None, :, :])).all(axis=2)
    masks = (inside.astype(np.uint64) << np.arange(2**n, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    code = codes[order]
    children = np.full((3**n, n, 2), -1, dtype=np.int64)
    for i in range(n):  # one vectorised lookup per variable and value
        for b in (0, 1):
            child_code = code - (2 - b) * powers[i]
            children[:, i, b] = np.where(free[:, i], position[np.where(free[:, i], child_code, 0)], -1)
    count_free = free.sum(axis=1)
    levels = tuple(np.flatnonzero(count_free == k) for k in range(n + 1))
    for arr in (restrictions, masks, children, free):
        arr.setflags(write=False)
    return Subcubes(n, restrictions, masks, children, free, levels, int(levels[n][0]))


def _ones_by_subcube(packed: np.ndarray, n: int) -> np.ndarray:
    """#{x in rho : f(x) = 1}, subcube-major ``(3^n, B)`` (contiguous rows for the DP's gathers)."""
    sub = subcubes(n)
    words = np.asarray(packed, dtype=np.uint64)
    return np.bitwise_count(sub.masks[:, None] & words[None, :]).astype(np.int64)


def _constant_by_subcube(packed: np.ndarray, n: int) -> np.ndarray:
    sub = subcubes(n)
    ones = _ones_by_subcube(packed, n)
    sizes = 2 ** sub.free.sum(axis=1)
    return (ones == 0) | (ones == sizes[:, None])


def ones_on_subcubes(packed: np.ndarray, n: int) -> np.ndarray:
    """#{x in rho : f(x) = 1} for every function and subcube, ``(B, 3^n)`` int64 (popcounts)."""
    return _ones_by_subcube(packed, n).T


def constant_on_subcubes(packed: np.ndarray, n: int) -> np.ndarray:
    """Whether f is constant on rho, ``(B, 3^n)`` bool."""
    return _constant_by_subcube(packed, n).T


# --- optimal trees by dynamic programming over subcubes -----------------------------------------

@dataclass(frozen=True)
class OptimalTrees:
    """Minimum size (leaves) and minimum depth of a tree computing f on each subcube, ``(B, 3^n)``."""

    n: int
    size: np.ndarray
    depth: np.ndarray

    @property
    def root_size(self) -> np.ndarray:
        """The minimum size s(f) of a decision tree computing f, ``(B,)``."""
        return self.size[:, subcubes(self.n).root]

    @property
    def root_depth(self) -> np.ndarray:
        """The minimum depth D(f), ``(B,)``."""
        return self.depth[:, subcubes(self.n).root]


def optimal_trees(tables: np.ndarray) -> OptimalTrees:
    """Exact minimum decision-tree size and depth of every function of a batch, on every subcube.

    s(rho) = 1 and D(rho) = 0 where f is constant on rho; otherwise s(rho) = min over free i of
    s(rho, x_i=0) + s(rho, x_i=1) and D(rho) = 1 + min_i max(D(rho, x_i=0), D(rho, x_i=1)). Subcubes
    are visited level by level (fewer free variables first), every function at once.
    """
    packed, n = _as_packed(tables)
    sub = subcubes(n)
    const = _constant_by_subcube(packed, n)
    size = np.ones((sub.count, packed.size), dtype=np.int16)
    depth = np.zeros((sub.count, packed.size), dtype=np.int16)
    big = np.iinfo(np.int16).max
    for level in sub.levels[1:]:  # loop over levels and variables; NumPy body over functions
        best_size = np.full((level.size, packed.size), big, dtype=np.int16)
        best_depth = np.full_like(best_size, big)
        for i in range(n):
            has = sub.free[level, i]
            c0, c1 = sub.children[level[has], i, 0], sub.children[level[has], i, 1]
            best_size[has] = np.minimum(best_size[has], size[c0] + size[c1])
            best_depth[has] = np.minimum(best_depth[has], 1 + np.maximum(depth[c0], depth[c1]))
        constant = const[level]
        size[level] = np.where(constant, 1, best_size)
        depth[level] = np.where(constant, 0, best_depth)
    return OptimalTrees(n, size.T, depth.T)


def minimum_average_depth(tables: np.ndarray, dist: ProductDistribution | None = None,
                          max_depth: int | None = None) -> np.ndarray:
    """min over trees T computing f of the mu-average depth Delta_mu(T) = sum_l Pr_mu[l] |l|, ``(B,)``.

    With ``max_depth = d`` the minimum runs over trees of depth <= d (inf when none computes f).
    Dynamic programming on subcubes under the conditional measure: A(rho) = 0 where f is constant,
    else min over free i of 1 + (1 - p_i) A(rho, x_i=0) + p_i A(rho, x_i=1) (Moakhar et al. 2026's
    Delta_opt, and the delta_i-weighted depth of O'Donnell et al. 2005).
    """
    return minimum_average_depth_by_cap(tables, dist)[-1 if max_depth is None else min(max_depth, 
                                        table_batch_variables(tables))]


def minimum_average_depth_by_cap(tables: np.ndarray, dist: ProductDistribution | None = None) -> np.ndarray:
    """:func:`minimum_average_depth` for every depth cap d = 0, ..., n at once, ``(n + 1, B)``.

    A_d(rho) = 0 where f is constant on rho, inf for d = 0 otherwise, else
    min_i 1 + (1 - p_i) A_{d-1}(rho, x_i=0) + p_i A_{d-1}(rho, x_i=1). A subcube with k free variables
    needs no cap above k, so one pass over the lattice, level by level, fills every cap.
    """
    packed, n = _as_packed(tables)
    dist = resolve_distribution(dist, n)
    sub = subcubes(n)
    const = _constant_by_subcube(packed, n)
    caps = np.where(const[None, :, :], 0.0, np.inf).repeat(n + 1, axis=0)  # (n + 1, S, B)
    for k, level in enumerate(sub.levels):  # loop over levels, caps and variables
        if k == 0:
            continue
        for d in range(1, n + 1):
            best = np.full((level.size, packed.size), np.inf)
            for i in range(n):
                has = sub.free[level, i]
                c0, c1 = sub.children[level[has], i, 0], sub.children[level[has], i, 1]
                p = dist.p[i]
                best[has] = np.minimum(best[has], 1.0 + (1.0 - p) * caps[d - 1, c0] + p * caps[d - 1, c1])
            caps[d, level] = np.where(const[level], 0.0, best)
    return caps[:, sub.root, :]


def minimum_path_average_depth(tables: np.ndarray, dist: ProductDistribution | None = None) -> np.ndarray:
    """min over *path* trees computing f of the mu-average depth, ``(B,)`` (inf: f is no decision list).

    A path tree (Moakhar et al. 2026, App. E.2) queries one variable per level and has a leaf on one
    side of every query. P(rho) = 0 where f is constant, else min over free i and sides b with f
    constant on (rho, x_i = b) of 1 + Pr[x_i = 1 - b] P(rho, x_i = 1 - b); inf when no side is constant.
    """
    packed, n = _as_packed(tables)
    dist = resolve_distribution(dist, n)
    sub = subcubes(n)
    const = _constant_by_subcube(packed, n)
    path = np.where(const, 0.0, np.inf)
    for level in sub.levels[1:]:  # loop over levels and variables; NumPy body over functions
        best = np.full((level.size, packed.size), np.inf)
        for i in range(n):
            has = sub.free[level, i]
            c0, c1 = sub.children[level[has], i, 0], sub.children[level[has], i, 1]
            p = dist.p[i]
            exit0 = np.where(const[c0], 1.0 + p * path[c1], np.inf)  # leaf on x_i = 0, go on at x_i = 1
            exit1 = np.where(const[c1], 1.0 + (1.0 - p) * path[c0], np.inf)
            best[has] = np.minimum(best[has], np.minimum(exit0, exit1))
        path[level] = np.where(const[level], 0.0, best)
    return path[sub.root]


def stochastic_mean_tables(n: int, depth: int, coins: tuple[float, ...]) -> np.ndarray:
    """Every distinct mean function mu_T of a stochastic tree on n variables, ``(M, 2^n)``.

    The trees (Blanc–Lange–Tan 2021, Sec. 1) have 0/1 leaves and at most ``depth`` internal nodes on a
    path, each a query x_i (mu = x_i ? mu_1 : mu_0) or a coin of probability q in ``coins`` (mu = q mu_1 +
    (1 - q) mu_0). Built level by level from the constant tables, every pair of the previous level's
    tables combined at once; tables equal to 12 decimals are merged.
    """
    n = check_int("n", n, 1, 3)
    depth = check_int("depth", depth, 0, 3)
    q = np.asarray(coins, dtype=np.float64)
    if q.ndim != 1 or not ((q > 0) & (q < 1)).all():
        raise ValueError(f"coins must be probabilities in (0, 1), got {coins!r}")
    x = all_points(n).astype(bool)
    level = np.array([np.zeros(2**n), np.ones(2**n)])
    for _ in range(depth):  # loop over depth; each level combines every pair of tables at once
        one, zero = level[:, None, :], level[None, :, :]
        queries = [np.where(x[:, i], one, zero) for i in range(n)]
        mixtures = [qq * one + (1.0 - qq) * zero for qq in q]
        grown = np.concatenate([level] + [m.reshape(-1, 2**n) for m in queries + mixtures])
        level = np.unique(np.round(grown, 12), axis=0)
    return level


# --- statistics under a product measure ----------------------------------------------------------

def _flip_words(words: np.ndarray, n: int, i: int) -> np.ndarray:
    """The packed table of x -> f(x xor e_i): swap the two halves of every 2^(i+1)-bit block."""
    positions = np.arange(2**n, dtype=np.uint64)
    zero = ((positions >> np.uint64(i)) & np.uint64(1)) == 0
    m = np.uint64((np.uint64(1) << positions[zero]).sum(dtype=np.uint64))
    shift = np.uint64(2**i)
    return ((words >> shift) & m) | ((words & m) << shift)


@dataclass(frozen=True)
class SubcubeStatistics:
    """Exact statistics of every function of a batch on every subcube rho under a product measure.

    ``p_reach[s]`` = Pr[x in rho]; ``mass_one[b, s]`` = Pr[x in rho, f(x) = 1];
    ``by_variable[i, b, s]`` = Pr[x in rho] Inf_i(f_rho) (0 for x_i fixed in rho), of ``kind``.
    The same quantities as :meth:`dtcore.analysis.ExactMeasure.region`, for all (f, rho) at once.
    """

    n: int
    dist: ProductDistribution
    kind: str
    p_reach: np.ndarray
    mass_one: np.ndarray
    by_variable: np.ndarray

    @property
    def weighted_influence(self) -> np.ndarray:
        """Pr[x in rho] Inf_i(f_rho) as ``(B, S, n)`` (a view of ``by_variable``)."""
        return np.moveaxis(self.by_variable, 0, 2)

    @property
    def error(self) -> np.ndarray:
        """Pr[x in rho] error(f_rho, +-1) = min(mass of 1s, mass of 0s), ``(B, S)``."""
        return np.minimum(self.mass_one, self.p_reach[None, :] - self.mass_one)

    @property
    def cost(self) -> np.ndarray:
        """Pr[x in rho] Inf(f_rho), a leaf's share of cost_f(T), ``(B, S)``."""
        return self.by_variable.sum(axis=0)

    @property
    def mean(self) -> np.ndarray:
        """Pr[f = 1 | x in rho], ``(B, S)``."""
        return self.mass_one / self.p_reach[None, :]

    @property
    def variance(self) -> np.ndarray:
        """Var(f_rho) = 4 q (1 - q) under the conditional measure, ``(B, S)``."""
        q = self.mean
        return 4.0 * q * (1.0 - q)

    @property
    def influences(self) -> np.ndarray:
        """Inf_i(f_rho) under the conditional measure, ``(B, S, n)``."""
        return self.weighted_influence / self.p_reach[None, :, None]


def subcube_statistics(tables: np.ndarray, dist: ProductDistribution | None = None,
                       kind: str = "flip") -> SubcubeStatistics:
    """Pr[rho], Pr[rho, f = 1] and Pr[rho] Inf_i(f_rho) for every function of a batch and subcube rho.

    ``kind="flip"``: Inf_i = Pr[f(x) != f(x xor e_i)] (Blanc–Lange–Tan 2020); ``"rerandomised"``:
    x_i redrawn from mu_i (Moakhar et al. 2026), 2 p_i (1 - p_i) times the flip one. Under the
    uniform measure every statistic is a popcount times 2^-n (exact); otherwise a product of the
    0/1 tables with the ``(2^n, 3^n)`` matrix of point weights inside each subcube.
    """
    packed, n = _as_packed(tables)
    dist = resolve_distribution(dist, n)
    if kind not in ("flip", "rerandomised"):
        raise ValueError(f"kind must be 'flip' or 'rerandomised', got {kind!r}")
    sub = subcubes(n)
    factor = np.ones(n) if kind == "flip" else 2.0 * dist.p * (1.0 - dist.p)
    weighted = np.zeros((n, packed.size, sub.count))
    if dist.is_uniform:
        scale = 2.0**-n
        p_reach = 2.0 ** -(~sub.free).sum(axis=1).astype(np.float64)
        mass_one = ones_on_subcubes(packed, n) * scale
        for i in range(n):  # one popcount pass per variable
            diff = packed ^ _flip_words(packed, n, i)
            counts = np.bitwise_count(diff[:, None] & sub.masks[None, sub.free[:, i]])
            weighted[i][:, sub.free[:, i]] = counts * scale * factor[i]
    else:
        members = unpack(sub.masks, n).T.astype(np.float64)  # (2^n, S): x in rho
        weights = dist.point_weights()[:, None] * members
        p_reach = weights.sum(axis=0)
        bits = unpack(packed, n).astype(np.float64)
        mass_one = bits @ weights
        for i in range(n):  # one matrix product per variable
            flipped = bits.reshape(-1, 2 ** (n - 1 - i), 2, 2**i)[:, :, ::-1, :].reshape(bits.shape)
            sens = (bits != flipped).astype(np.float64)
            weighted[i] = (sens @ weights) * (sub.free[:, i] * factor[i])
    return SubcubeStatistics(n, dist, kind, p_reach, mass_one, weighted)


def fourier_spectra(tables: np.ndarray, dist: ProductDistribution | None = None) -> np.ndarray:
    """Coefficients of g = 1 - 2f in the mu-biased orthonormal basis, ``(B, 2^n)`` indexed by S.

    phi_S(x) = prod_{i in S} (p_i - x_i) / sqrt(p_i (1 - p_i)), which under the uniform measure is
    (-1)^{|S and x|}: the coefficients of :func:`dtcore.analysis.walsh_hadamard`. By Parseval the
    squares sum to 1, Var(f) = sum_{S != {}} hat g(S)^2 and sum_{S containing i} hat g(S)^2 =
    4 p_i (1 - p_i) Pr[f(x) != f(x xor e_i)] (O'Donnell, *Analysis of Boolean Functions*, Ch. 8).
    One butterfly pass per variable.
    """
    n = table_batch_variables(tables)
    dist = resolve_distribution(dist, n)
    g = 1.0 - 2.0 * np.asarray(tables, dtype=np.float64)
    for i in range(n):  # one vectorised butterfly per variable
        p = dist.p[i]
        sigma = np.sqrt(p * (1.0 - p))
        blocks = g.reshape(g.shape[0], -1, 2, 2**i)
        a, b = blocks[:, :, 0, :].copy(), blocks[:, :, 1, :].copy()
        blocks[:, :, 0, :] = (1.0 - p) * a + p * b
        blocks[:, :, 1, :] = sigma * (a - b)
    return g


def spectral_influences(coefficients: np.ndarray, dist: ProductDistribution | None = None,
                        kind: str = "flip") -> tuple[np.ndarray, np.ndarray]:
    """(Var(f), Inf_i(f)) of every function from its mu-biased spectrum: ``(B,)`` and ``(B, n)``.

    sum over S containing i of hat g(S)^2 is 4 p_i (1 - p_i) times the flip influence, i.e. twice
    the re-randomised one: an independent computation of :func:`subcube_statistics` at the root.
    """
    coefficients = np.asarray(coefficients, dtype=np.float64)
    n = table_batch_variables(np.zeros((1, coefficients.shape[1]), dtype=np.uint8))
    dist = resolve_distribution(dist, n)
    power = coefficients**2
    masks = np.arange(2**n)
    spread = np.stack([power[:, (masks >> i) & 1 == 1].sum(axis=1) for i in range(n)], axis=1)
    if kind == "flip":
        inf = spread / (4.0 * dist.p * (1.0 - dist.p))
    elif kind == "rerandomised":
        inf = spread / 2.0
    else:
        raise ValueError(f"kind must be 'flip' or 'rerandomised', got {kind!r}")
    return power[:, 1:].sum(axis=1), inf


# --- greedy heuristics, every function in lock-step ----------------------------------------------

def build_top_down_scores(stats: SubcubeStatistics) -> tuple[np.ndarray, np.ndarray]:
    """BuildTopDownDT's leaf scores Pr[rho] max_i Inf_i(f_rho) and split variables, ``(B, S)`` each.

    As :class:`dtcore.buildtopdown.InfluenceScorer`: ties between variables go to the lowest index,
    and a leaf whose best score is not positive is never split (score -inf here).
    """
    feature = np.argmax(stats.by_variable, axis=0)
    score = np.max(stats.by_variable, axis=0)
    return np.where(score > 0, score, -np.inf), feature


def top_down_scores(tables: np.ndarray, impurity: str = "gini") -> tuple[np.ndarray, np.ndarray]:
    """TopDown_G's leaf scores and split variables with the whole cube as its sample, ``(B, S)`` each.

    The purity gain with empirical weights (BGLT 2020, Sec. 1.1) on the 2^n points of the cube, each
    once: w(rho) (G(q) - sum_b Pr[x_i = b | rho] G(q_b)), computed in the order
    :func:`dtcore.topdown.local_gains` computes it; pure leaves are never split (-inf), variables
    fixed in rho are not candidates, ties go to the lowest index.
    """
    packed, n = _as_packed(tables)
    sub = subcubes(n)
    G = get_impurity(impurity)
    ones = ones_on_subcubes(packed, n).astype(np.float64)
    count = (2.0 ** sub.free.sum(axis=1))[None, :]
    gains = np.full((n, packed.size, sub.count), -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        parent = count * G(ones / count)
        for i in range(n):  # one vectorised gain per variable
            has = sub.free[:, i]
            n1 = count[:, has] / 2.0
            n0 = count[:, has] - n1
            p1 = ones[:, sub.children[has, i, 1]]
            p0 = ones[:, has] - p1
            gains[i][:, has] = (parent[:, has] - n1 * G(p1 / n1) - n0 * G(p0 / n0)) / count[:, has]
    feature = np.argmax(gains, axis=0)
    best = np.max(gains, axis=0)
    score = (count / 2.0**n) * best
    pure = (ones == 0) | (ones == count)
    return np.where(pure, -np.inf, score), feature


@dataclass(frozen=True)
class GreedyRuns:
    """Lock-step best-first runs: one row per function, one column per step (step t: t + 1 leaves).

    ``chosen[b, t]``/``feature[b, t]`` are the subcube split and its variable at step t (-1 once the
    run has stopped), ``score[b, t]`` the chosen (largest) score (NaN once stopped), ``totals[name][b, t]``
    the sum over the current leaves of a per-subcube quantity before step t, ``size[b]`` the final
    number of leaves.
    """

    n: int
    chosen: np.ndarray
    feature: np.ndarray
    score: np.ndarray
    totals: dict[str, np.ndarray] = field(default_factory=dict)
    size: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def leaves(self) -> np.ndarray:
        """Number of leaves before each step, ``(T,)``."""
        return np.arange(1, self.chosen.shape[1] + 1)

    def size_at(self, name: str, eps: float) -> np.ndarray:
        """Leaves at the first step whose ``totals[name]`` is <= eps (the final size if never), ``(B,)``.

        With ``name="error"`` this is BuildTopDownDT's size at ``eps``: its stop rule is checked
        before every split, so the run at eps is a prefix of the run to zero error.
        """
        below = self.totals[name] <= eps
        first = np.where(below.any(axis=1), np.argmax(below, axis=1) + 1, self.size)
        return np.minimum(first, self.size)

    def frontier(self, function: int, step: int) -> list[int]:
        """The leaves (subcube positions, in the frontier's order) of one run before ``step``."""
        sub = subcubes(self.n)
        leaves = [sub.root]
        for t in range(step):  # replay of one run: at most 2^n - 1 splits
            rho = int(self.chosen[function, t])
            i = int(self.feature[function, t])
            leaves.remove(rho)
            leaves += [int(sub.children[rho, i, 0]), int(sub.children[rho, i, 1])]
        return leaves


def best_first_runs(score: np.ndarray, feature: np.ndarray, n: int,
                    totals: Mapping[str, np.ndarray] | None = None,
                    size: int | None = None) -> GreedyRuns:
    """Run :func:`dtcore.grow.grow`'s best-first loop for every function at once.

    ``score[b, s]``/``feature[b, s]``: the best split of subcube s for function b (-inf: never split).
    Each step splits, in every run that can still split, the leaf of highest score (ties: the
    earliest-created leaf, as :func:`dtcore.grow.select_best`), replacing it by its two children
    appended at the end of the frontier. Runs stop when no leaf can be split or at ``size`` leaves.
    """
    n = check_int("n", n, 1, MAX_BATCH_VARIABLES)
    sub = subcubes(n)
    score = np.asarray(score, dtype=np.float64)
    if score.ndim != 2 or score.shape[1] != sub.count or np.shape(feature) != score.shape:
        raise ValueError(f"score and feature must both have shape (B, {sub.count}), got {score.shape}, "
                         f"{np.shape(feature)}")
    limit = 2**n if size is None else check_int("size", size, 1, 2**n)
    B = score.shape[0]
    totals = {name: np.ascontiguousarray(values, dtype=np.float64).reshape(-1) for name, values in (totals or {}).items()}
    rows = np.arange(B)
    base = (rows * sub.count)[:, None]  # flat indexing: faster than take_along_axis here
    score_flat = score.reshape(-1)
    frontier = np.full((B, limit + 1), sub.root, dtype=np.int64)
    count = np.ones(B, dtype=np.int64)
    out_chosen = np.full((B, limit), -1, dtype=np.int64)
    out_feature = np.full((B, limit), -1, dtype=np.int64)
    out_score = np.full((B, limit), np.nan)
    out_totals = {name: np.full((B, limit), np.nan) for name in totals}
    slots = np.arange(limit + 1)[None, :]
    for t in range(limit):  # loop over greedy steps; NumPy body over functions
        live = slots < count[:, None]
        for name, values in totals.items():
            out_totals[name][:, t] = np.where(live, values[frontier + base], 0.0).sum(axis=1)
        flat = frontier + base
        leaf_scores = np.where(live, score_flat[flat], -np.inf)
        pos = np.argmax(leaf_scores, axis=1)
        best = leaf_scores[rows, pos]
        active = np.isfinite(best) & (count < limit)
        rho = frontier[rows, pos]
        i = feature[rows, rho]
        out_chosen[active, t], out_feature[active, t], out_score[active, t] = rho[active], i[active], best[active]
        shifted = frontier[rows[:, None], np.minimum(slots + (slots >= pos[:, None]), limit)]
        shifted[rows, count - 1] = sub.children[rho, i, 0]
        shifted[rows, count] = sub.children[rho, i, 1]
        frontier = np.where(active[:, None], shifted, frontier)
        count = count + active
    return GreedyRuns(n, out_chosen, out_feature, out_score, out_totals, count)


def id3_sizes(tables: np.ndarray, impurity: str = "entropy") -> tuple[np.ndarray, np.ndarray]:
    """Size and depth of ID3's tree on the full truth table (BDM 2020, Algorithm 1), ``(B,)`` each.

    ID3 splits a node (a subcube) on the free variable of largest Gain (ties: lowest index) until it
    is pure, so its size obeys size(rho) = 1 if f is constant on rho, else the sum over the two
    children on the chosen variable: one pass over the subcube lattice, fewer free variables first,
    each level's subcubes and functions in one batch. The gains come from :mod:`dtcore.id3`'s own
    gain formula, so ties resolve exactly as there.
    """
    packed, n = _as_packed(tables)
    sub = subcubes(n)
    C = get_impurity(impurity)
    B = packed.size
    ones = _ones_by_subcube(packed, n)
    const = _constant_by_subcube(packed, n)
    size = np.ones((sub.count, B), dtype=np.int64)
    depth = np.zeros((sub.count, B), dtype=np.int64)
    columns = np.arange(B)[None, :]
    for k, level in enumerate(sub.levels):  # loop over levels; NumPy body over subcubes and functions
        if k == 0:
            continue
        free = np.stack([np.flatnonzero(sub.free[s]) for s in level])  # (L, k), ascending
        child1 = sub.children[level[:, None], free, 1]  # (L, k)
        n11 = ones[child1].transpose(0, 2, 1).reshape(-1, k)  # (L * B, k)
        N = np.full(n11.shape[0], 2**k, dtype=np.int64)
        n1 = np.full(n11.shape, 2 ** (k - 1), dtype=np.int64)
        g = _batched_gains(N, ones[level].reshape(-1), n1, n11, C)
        choice = free[np.arange(level.size)[:, None], first_best(g).reshape(level.size, B)]  # (L, B)
        c0 = sub.children[level[:, None], choice, 0]
        c1 = sub.children[level[:, None], choice, 1]
        size[level] = np.where(const[level], 1, size[c0, columns] + size[c1, columns])
        depth[level] = np.where(const[level], 0, 1 + np.maximum(depth[c0, columns], depth[c1, columns]))
    return size[sub.root], depth[sub.root]


# --- one function: an optimal tree to show --------------------------------------------------------

def optimal_tree(table: np.ndarray, objective: str = "size") -> DecisionTree:
    """A decision tree of minimum size (``"size"``) or depth (``"depth"``) computing one function.

    Rebuilt from :func:`optimal_trees`' tables (ties between variables: the lowest index), for
    showing a witness; leaves carry f's constant value on them.
    """
    if objective not in ("size", "depth"):
        raise ValueError(f"objective must be 'size' or 'depth', got {objective!r}")
    tables = np.asarray(table, dtype=np.uint8)[None, :]
    opt = optimal_trees(tables)
    n = opt.n
    sub = subcubes(n)
    value = opt.size[0] if objective == "size" else opt.depth[0]
    ones = ones_on_subcubes(pack(tables), n)[0]
    tree = DecisionTree(n)
    stack = [(0, sub.root)]
    while stack:  # one iteration per node of the (at most 2^n-leaf) tree
        node, s = stack.pop()
        if value[s] == (1 if objective == "size" else 0):
            tree.set_value(node, 1.0 if ones[s] > 0 else 0.0)
            continue
        for i in np.flatnonzero(sub.free[s]):
            c0, c1 = sub.children[s, i]
            total = value[c0] + value[c1] if objective == "size" else 1 + max(value[c0], value[c1])
            if total == value[s]:
                k0, k1 = tree.split(node, int(i))
                stack += [(k0, int(c0)), (k1, int(c1))]
                break
    return tree
