"""FIND: the minimum-training-error decision tree of depth at most d (Blanc–Lange–Tan 2021, Fig. 2).

FIND(X, d) tries every variable at the root, solves both halves with depth d - 1 and keeps the
best root (Lemma 3.1: it is optimal; Lemma 3.2: it takes n^O(d) |X| time). It simplifies FIND of
Mehta and Raghavan (2002). The implementation here returns exactly FIND's optimum, but counts
fast:

* **one signed count per cell.** With d_r = w_r (2 y_r - 1), a leaf on rows L errs
  (W(L) - |D(L)|) / 2 where D(L) = sum of d_r over L, so FIND maximises sum_leaves |D(leaf)|, and
  one BLAS product of the signed rows against the rows gives every pair count D(x_i = x_j = 1).
* **depth-1 subtrees from a range.** The best depth-<=1 subtree on a cell with D = t scores
  max(|t|, max_k |2 u_k - t|), u_k = D(cell, x_k = 1): only the largest and smallest u_k matter.
* **depth 2** from the pair counts and **depth 3** from the triple counts D(x_i = x_j = x_k = 1)
  (inclusion-exclusion gives the four cells (x_i, x_j) = (a, b)), all roots of all subproblems in
  a few vectorised reductions. Wide data (n large) stream the triple counts one root at a time,
  so they are never held whole; narrow data hold them and solve many subproblems in one batch.
* **depth 4** solves its 2n depth-3 halves in batches: the quadruple counts of the rows are one
  BLAS product of the pair products x_j x_k with themselves, the x_i = 0 halves are the parent's
  counts minus the x_i = 1 halves' (sibling subtraction).
* **depth >= 5** recurses on row-index subsets with **memoisation** keyed by the restriction (the
  set of fixed (variable, value) pairs), skipping a root whose first half already errs more than
  the best tree so far.

One search, three ways of counting. The recursion over roots (:class:`_Search`: the best of the
depth-(d - 1) optimum and every root with its two halves' optima, memoised by restriction) is one
implementation; below it a backend counts and solves the small depths directly:

* integer weights (a sample's multiplicities; equal weights act as unit weights): one signed count
  per cell (:class:`_SignedCounts`, the kernels above, depths <= 4), exact (float32 while the total
  weight is below 2^24, else float64), so "equal error" is exact;
* real-valued weights (e.g. ``population_find``'s): per-label float sums (:class:`_LabelSums`,
  depths <= 3), which decide near-equal errors by the sums the book's results were computed with;
* k classes (:func:`find_classes`, for :func:`dtcore.multiclass.multiclass_find`): least weighted
  misclassification from class counts; on integer weights :class:`_ClassCounts` (depths <= 3: one
  BLAS product per class, the depth-2 optima of the 2n halves in batches, roots skipped by bounds
  from the cells' class counts), else :class:`_ClassSums` (depths <= 2, float sums).

Ties: among trees of least error :func:`find` returns one with the fewest leaves, then the least
depth; the rest of the tie rule is the order of the search (see :func:`find`). The k-class search
keeps a tree unless another errs less by more than 1e-9 of the weight (the shallower budget, then
the smaller root, win near-ties).

Sample weights are supported (``sample_weight``), so FIND run on all 2^n points with the label-1
weight mu(x) 2^-n and the label-0 weight (1 - mu(x)) 2^-n returns the best depth-d tree under the
true distribution (used for the approximation term of Corollary 4.1).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .tree import DecisionTree
from .validate import check_binary_matrix, check_budget, check_int, check_labels

# Everything below works with the *signed* weight d_r = w_r (2 y_r - 1) of each example. A leaf on
# a set of rows L misclassifies min(W1(L), W0(L)) = (W(L) - |D(L)|) / 2 of weight, where
# D(L) = sum of d_r over L, so a tree's error is (W - sum over its leaves of |D(leaf)|) / 2 and
# FIND maximises the *score* sum_leaves |D(leaf)|: one signed count per cell instead of two label
# counts. Among trees of equal score FIND keeps the fewest leaves, then the least depth, then the
# tree the recursion meets first (a shallower budget before a deeper one, then the smaller root).
#
# A depth-1 subtree on rows L that splits on x_k scores |u| + |t - u| with t = D(L) and
# u = D(L and x_k = 1), and |u| + |t - u| = max(|t|, |2u - t|): the best x_k needs only the largest
# and the smallest u over k, and x_k beats the leaf (score |t|) exactly when |2u - t| > |t|. A
# variable that is constant on L has u in {0, t} and never beats the leaf, so the variables fixed on
# a branch need no mask below it.
_Node = tuple
_BIG = np.iinfo(np.int64).max
# element budgets that bound the temporary arrays (peak memory) of the counting steps
_PAIR_PRODUCT_BUDGET = 1 << 22      # rows x variable pairs of one chunk of the pair-product matrix
_QUADS_BUDGET = 1 << 23             # entries of the quadruple counts (variable pairs squared)
_TRIPLE_BATCH_BUDGET = 1 << 21      # entries of the triple counts of one batch of subproblems
_WHOLE_TRIPLES = 1 << 18            # n^3 up to which a depth-3 problem holds its triple counts whole


@dataclass(frozen=True)
class FindResult:
    """Output of :func:`find`: the optimal tree, its (weighted) training error and bookkeeping."""

    tree: DecisionTree
    errors: float          # weighted count of misclassified training examples
    error: float           # errors / total weight
    subproblems: int       # subproblems (restriction, depth budget) solved, one per kernel result


@dataclass(frozen=True)
class _Sol:
    """A solved subproblem: score = sum over leaves of |D(leaf)|, its size, and its structure."""

    score: float
    leaves: int
    depth: int
    build: object          # () -> structure: ("leaf", label) or ("split", i, left, right)


def _better(score: float, leaves: int, depth: int, than: _Sol) -> bool:
    """True when (score, leaves, depth) is strictly better than ``than``: higher score, then fewer
    leaves, then shallower."""
    return (-score, leaves, depth) < (-than.score, than.leaves, than.depth)


def _lex_best(score: np.ndarray, leaves: np.ndarray, depth: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Index along the last axis of the highest score, then fewest leaves, then least depth, then
    the first index, among ``valid`` entries; -1 where no entry is valid."""
    s = np.where(valid, score, -np.inf)
    top = valid & (s == s.max(axis=-1, keepdims=True))
    few = np.where(top, leaves, _BIG)
    top &= few == few.min(axis=-1, keepdims=True)
    shallow = np.where(top, depth, _BIG)
    return np.where(valid.any(axis=-1), np.argmin(shallow, axis=-1), -1)


def _child_scores(t: np.ndarray, umax: np.ndarray, umin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Best depth-<=1 score on a cell with signed weight t whose u = D(cell, x_k = 1) range over
    [umin, umax], and whether a split beats the leaf (ties go to the leaf)."""
    t = np.asarray(t, dtype=np.float64)
    gain = np.maximum(2.0 * umax - t, t - 2.0 * umin)
    split = gain > np.abs(t)
    return np.where(split, gain, np.abs(t)), split


@dataclass(frozen=True)
class _Batch:
    """Best trees of a batch of subproblems: score, leaves, depth and the choices that rebuild them.

    ``root`` is the root variable (-1: a leaf). For a depth-3 result ``below[b, a]`` is the root of
    the depth-<=2 subtree on the branch x_root = a (-1: a leaf); ``shallow[b]`` says the depth-<=2
    optimum won (its root is ``root``, ``below`` unused).
    """

    score: np.ndarray
    leaves: np.ndarray
    depth: np.ndarray
    root: np.ndarray
    below: np.ndarray | None = None
    shallow: np.ndarray | None = None


def _depth2(D0: np.ndarray, s: np.ndarray, P: np.ndarray, root_ok: np.ndarray,
            leaves_only: bool = False) -> _Batch:
    """Best depth-<=2 trees (depth <= 1 with ``leaves_only``) of a batch of subproblems.

    ``D0`` (B,) is each subproblem's signed weight, ``s[b, j]`` = D(x_j = 1), ``P[b, j, k]`` =
    D(x_j = x_k = 1) (so P's diagonal is s) and ``root_ok[b, j]`` whether x_j may be the root.
    """
    D0 = np.asarray(D0, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    t1, t0 = s, D0[:, None] - s                         # the two branches of root j
    if leaves_only:
        F1, F0 = np.abs(t1), np.abs(t0)
        split1 = split0 = np.zeros(s.shape, dtype=bool)
    else:
        P = np.asarray(P, dtype=np.float64)
        U0 = s[:, None, :] - P                          # D(x_j = 0, x_k = 1)
        F1, split1 = _child_scores(t1, P.max(axis=-1), P.min(axis=-1))
        F0, split0 = _child_scores(t0, U0.max(axis=-1), U0.min(axis=-1))
    score = F0 + F1
    leaves = 2 + split0.astype(np.int64) + split1
    depth = 1 + (split0 | split1).astype(np.int64)
    root = _lex_best(score, leaves, depth, root_ok)
    rows = np.arange(D0.size)
    at = np.maximum(root, 0)
    leaf = (root < 0) | (np.abs(D0) >= score[rows, at])   # a leaf wins ties
    return _Batch(np.where(leaf, np.abs(D0), score[rows, at]), np.where(leaf, 1, leaves[rows, at]),
                  np.where(leaf, 0, depth[rows, at]), np.where(leaf, -1, root))


def _cell_ranges_streamed(s: np.ndarray, P: np.ndarray, triples) -> tuple[np.ndarray, np.ndarray]:
    """Range of u_k = D(x_i = a, x_j = b, x_k = 1) over k for every cell (x_i, x_j) = (a, b),
    reading the triple counts one root at a time: ``triples(i)`` returns T[b, i, j, k] for j > i,
    shape (B, n - i - 1, n).

    The cell (x_i, x_j) = (a, b) is the cell (x_j, x_i) = (b, a), so the pairs i < j give all of
    them and T never needs to be held whole (the wide case: n large, one subproblem). Returns the
    ranges as (B, n, 2, n, 2) arrays [b, i, a, j, b]. (Counting only the block j, k > i and
    carrying running extremes for k < i halves the BLAS work but costs more NumPy calls than it
    saves at the sizes FIND meets.)
    """
    B, n = s.shape
    umax = np.zeros((B, n, n, 4), dtype=P.dtype)      # [b, i, j, 2a + b] for i < j
    umin = np.zeros((B, n, n, 4), dtype=P.dtype)
    P0 = s[:, None, :] - P                              # D(x_i = 0, x_k = 1)
    buf = np.empty((B, max(n - 1, 1), 4, n), dtype=P.dtype)
    for i in range(n - 1):  # loop over root variables; NumPy body over (subproblem, j, k)
        T = triples(i)
        u = buf[:, : n - i - 1]
        np.subtract(P[:, i + 1:, :], T, out=u[:, :, 1])           # (x_i, x_j) = (0, 1)
        np.subtract(P0[:, i, None, :], u[:, :, 1], out=u[:, :, 0])  # (0, 0)
        np.subtract(P[:, i, None, :], T, out=u[:, :, 2])            # (1, 0)
        u[:, :, 3] = T                                              # (1, 1)
        u.max(axis=-1, out=umax[:, i, i + 1:])
        u.min(axis=-1, out=umin[:, i, i + 1:])
    upper = (np.arange(n)[:, None] < np.arange(n)[None, :])[None, :, None, :, None]

    def full(a: np.ndarray) -> np.ndarray:
        """[b, p, alpha, q, beta] from the i < j half: the cell (x_p, x_q) = (alpha, beta)."""
        a = a.astype(np.float64).reshape(B, n, n, 2, 2)
        return np.where(upper, a.transpose(0, 1, 3, 2, 4), a.transpose(0, 2, 4, 1, 3))

    return full(umax), full(umin)


def _cell_ranges_whole(s: np.ndarray, P: np.ndarray, Tk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`_cell_ranges_streamed` from whole triple counts ``Tk[k, b, i, j]`` (T is symmetric,
    so any axis may be k): every (i, j) at once, each range a reduction over the leading axis k, an
    elementwise maximum of contiguous (b, i, j) slices (the batched case: n small, many
    subproblems). Returns the ranges as (B, n, 2, n, 2) arrays [b, i, a, j, b]."""
    B, n = s.shape
    Pk = P.transpose(2, 0, 1)                           # [k, b, i] = D(x_i = 1, x_k = 1)
    P0k = s.T[:, :, None] - Pk                          # [k, b, i] = D(x_i = 0, x_k = 1)
    umax = np.empty((B, n, 2, n, 2))
    umin = np.empty((B, n, 2, n, 2))
    u = np.empty_like(Tk)
    for a, b in ((1, 1), (1, 0), (0, 1), (0, 0)):  # the four cells, each from the one before
        if (a, b) == (1, 0):
            np.subtract(Pk[:, :, :, None], Tk, out=u)
        elif (a, b) == (0, 1):
            np.subtract(Pk[:, :, None, :], Tk, out=u)
        elif (a, b) == (0, 0):
            np.subtract(P0k[:, :, :, None], u, out=u)   # D(x_i = 0, x_k = 1) - D(x_i = 0, x_j = 1, x_k = 1)
        cell = Tk if (a, b) == (1, 1) else u
        umax[:, :, a, :, b] = cell.max(axis=0)
        umin[:, :, a, :, b] = cell.min(axis=0)
    return umax, umin


def _depth3(D0: np.ndarray, s: np.ndarray, P: np.ndarray, root_ok: np.ndarray, *,
            Tk: np.ndarray | None = None, ranges: tuple[np.ndarray, np.ndarray] | None = None) -> _Batch:
    """Best depth-<=3 trees of a batch of B subproblems from their triple counts.

    The triple counts T[b, i, j, k] = D(x_i = x_j = x_k = 1) come whole (``Tk``, see
    :func:`_cell_ranges_whole`), or their cell ranges are given (``ranges``, e.g. from
    :func:`_cell_ranges_streamed`). For each
    root x_i, branch a, second variable x_j and its branch b, the cell (x_i, x_j) = (a, b) has
    u_k = D(x_i = a, x_j = b, x_k = 1), by inclusion-exclusion from T, P and s; its best depth-<=1
    subtree needs only the range of u over k (:func:`_child_scores`).
    """
    D0 = np.asarray(D0, dtype=np.float64)
    B, n = s.shape
    umax, umin = _cell_ranges_whole(s, P, Tk) if ranges is None else ranges
    Pf = P.astype(np.float64)
    sf = s.astype(np.float64)
    t = np.empty((B, n, 2, n, 2))
    t[:, :, 1, :, 1] = Pf
    t[:, :, 1, :, 0] = sf[:, :, None] - Pf
    t[:, :, 0, :, 1] = sf[:, None, :] - Pf
    t[:, :, 0, :, 0] = D0[:, None, None] - sf[:, :, None] - sf[:, None, :] + Pf
    F, split = _child_scores(t, umax, umin)
    # the depth-<=2 subproblem (x_i = a) with root x_j: its two cells (a, 0) and (a, 1)
    G = F[..., 0] + F[..., 1]                                       # (B, i, a, j)
    G_leaves = 2 + split[..., 0].astype(np.int64) + split[..., 1]
    G_depth = 1 + (split[..., 0] | split[..., 1]).astype(np.int64)
    j_ok = (root_ok[:, None, :] & ~np.eye(n, dtype=bool)[None])[:, :, None, :]
    j_best = _lex_best(G, G_leaves, G_depth, np.broadcast_to(j_ok, G.shape))   # (B, i, a)
    b_, i_, a_ = np.indices(j_best.shape, sparse=True)
    at = np.maximum(j_best, 0)
    t_branch = np.stack([D0[:, None] - sf, sf], axis=-1)            # (B, i, a)
    sub_leaf = (j_best < 0) | (np.abs(t_branch) >= G[b_, i_, a_, at])
    sub_score = np.where(sub_leaf, np.abs(t_branch), G[b_, i_, a_, at])
    sub_leaves = np.where(sub_leaf, 1, G_leaves[b_, i_, a_, at])
    sub_depth = np.where(sub_leaf, 0, G_depth[b_, i_, a_, at])
    below = np.where(sub_leaf, -1, j_best)
    score = sub_score[..., 0] + sub_score[..., 1]
    leaves = sub_leaves[..., 0] + sub_leaves[..., 1]
    depth = 1 + np.maximum(sub_depth[..., 0], sub_depth[..., 1])
    root = _lex_best(score, leaves, depth, root_ok)
    rows = np.arange(B)
    at = np.maximum(root, 0)
    shallow = _depth2(D0, s, P, root_ok)
    deeper = (root >= 0) & ((score[rows, at] > shallow.score)
                            | ((score[rows, at] == shallow.score)
                               & ((leaves[rows, at] < shallow.leaves)
                                  | ((leaves[rows, at] == shallow.leaves) & (depth[rows, at] < shallow.depth)))))
    return _Batch(np.where(deeper, score[rows, at], shallow.score), np.where(deeper, leaves[rows, at], shallow.leaves),
                  np.where(deeper, depth[rows, at], shallow.depth), np.where(deeper, root, shallow.root),
                  below[rows, at], ~deeper)


class _Counting:
    """What :class:`_Search` asks of a counting besides its kernels; by default no split is skipped
    and no counts are handed from a subproblem to its halves (only :class:`_LabelSums` does)."""

    def skip(self, halves) -> bool:
        return False

    def before_roots(self, depth: int, fixed: frozenset) -> None:
        pass

    def parent_counts(self, depth: int, fixed: frozenset) -> None:
        return None

    def child_contexts(self, parent, i: int, halves, keys) -> tuple:
        return None, None


class _SignedCounts(_Counting):
    """FIND's counting on integer weights: one signed count per cell, exact (the kernels above
    solve depths <= 4; :class:`_Search` tries the roots above them)."""

    def __init__(self, X: np.ndarray, d: np.ndarray, dtype: type, cell_dtype: type) -> None:
        self.n = X.shape[1]
        self.X = X                                   # uint8, for selecting rows
        self.d = d                                   # float64 signed weights
        self.w = np.abs(d)
        self.dtype = dtype                           # of the BLAS products (exact for the weights)
        self.cell_dtype = cell_dtype                 # of the cell counts in the kernels (exact too)
        self.Xf = X.astype(dtype)
        self.Xd = self.Xf * d.astype(dtype)[:, None]
        self.memo: dict[tuple, _Sol] = {}
        self.solved = 0

    @functools.cached_property
    def _pairs(self) -> tuple[np.ndarray, np.ndarray]:
        # the pairs j <= k of the triple and quadruple counts: made on first use (depth >= 3 only)
        return np.triu_indices(self.n)

    @property
    def pairs_j(self) -> np.ndarray:
        """First variable of each pair j <= k."""
        return self._pairs[0]

    @property
    def pairs_k(self) -> np.ndarray:
        """Second variable of each pair j <= k."""
        return self._pairs[1]

    # --- counts ---------------------------------------------------------------------------------
    def split_rows(self, rows: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
        on = self.X[rows, i] == 1
        return rows[~on], rows[on]

    def pair_counts(self, rows: np.ndarray) -> np.ndarray:
        """P[j, k] = D(x_j = x_k = 1) on ``rows`` (one BLAS product)."""
        return self.Xd[rows].T @ self.Xf[rows]

    def pair_chunks(self, rows: np.ndarray) -> list[np.ndarray]:
        """``rows`` in chunks whose pair-product matrix fits the budget ([] when not even one row does)."""
        per_chunk = _PAIR_PRODUCT_BUDGET // self.pairs_j.size
        if per_chunk < 1:
            return []
        return [rows[start:start + per_chunk] for start in range(0, max(rows.size, 1), per_chunk)]

    def pair_products(self, rows: np.ndarray) -> np.ndarray:
        """Z[p, r] = x_j x_k on row r for the p-th pair j <= k (pairs by rows: each j is one
        contiguous product of the transposed rows)."""
        XT = np.ascontiguousarray(self.Xf[rows].T)
        Z = np.empty((self.pairs_j.size, rows.size), dtype=self.dtype)
        start = 0
        for j in range(self.n):  # loop over features; NumPy body over (k, rows)
            np.multiply(XT[j:], XT[j], out=Z[start:start + self.n - j])
            start += self.n - j
        return Z

    def triple_counts(self, rows: np.ndarray, out: np.ndarray) -> None:
        """T[j, k, l] = D(x_j = x_k = x_l = 1) on ``rows``, written into ``out`` (n, n, n).

        T is symmetric, so only j <= k is counted: one BLAS product of the pair products x_j x_k
        (j <= k) against the rows per chunk of rows, else (too many pairs for one row's chunk) one
        product per j over the rows with x_j = 1, restricted to the block k, l >= j, the other
        blocks being copies.
        """
        n = self.n
        chunks = self.pair_chunks(rows)
        if chunks:
            upper = sum(self.pair_products(chunk) @ self.Xd[chunk] for chunk in chunks)   # (pairs, n)
            out[self.pairs_j, self.pairs_k] = upper
            out[self.pairs_k, self.pairs_j] = upper
            return
        Xr, Xdr = self.Xf[rows], self.Xd[rows]
        on = Xr.astype(bool)
        for j in range(n):  # loop over features; BLAS body
            sel = on[:, j]
            out[j, j:, j:] = Xdr[sel, j:].T @ Xr[sel, j:]
            out[j, :j, :] = out[:j, j, :]
            out[j, j:, :j] = out[:j, j, j:].T

    # --- solutions ------------------------------------------------------------------------------
    def leaf_node(self, D: float) -> _Node:
        return ("leaf", 1 if D > 0 else 0)

    def depth1_node(self, rows: np.ndarray) -> _Node:
        """The best depth-<=1 tree on ``rows`` (the rule of :func:`_child_scores`)."""
        t = float(self.d[rows].sum())
        u = self.Xd[rows].sum(axis=0, dtype=np.float64)
        gain = np.abs(2.0 * u - t)
        k = int(np.argmax(gain)) if u.size else 0
        if u.size == 0 or not gain[k] > abs(t):
            return self.leaf_node(t)
        return ("split", k, self.leaf_node(t - u[k]), self.leaf_node(u[k]))

    def depth2_node(self, rows: np.ndarray, root: int) -> _Node:
        if root < 0:
            return self.leaf_node(float(self.d[rows].sum()))
        zero, one = self.split_rows(rows, root)
        return ("split", root, self.depth1_node(zero), self.depth1_node(one))

    def batch_node(self, rows: np.ndarray, batch: _Batch, b: int, depth: int) -> _Node:
        """Rebuild subproblem b of a kernel batch on its ``rows``."""
        root = int(batch.root[b])
        if depth == 1 and root >= 0:
            zero, one = self.split_rows(rows, root)
            return ("split", root, self.leaf_node(float(self.d[zero].sum())), self.leaf_node(float(self.d[one].sum())))
        if depth <= 2 or batch.shallow[b] or root < 0:
            return self.depth2_node(rows, root)
        zero, one = self.split_rows(rows, root)
        return ("split", root, self.depth2_node(zero, int(batch.below[b, 0])),
                self.depth2_node(one, int(batch.below[b, 1])))

    def from_batch(self, rows: np.ndarray, batch: _Batch, b: int, depth: int) -> _Sol:
        return _Sol(float(batch.score[b]), int(batch.leaves[b]), int(batch.depth[b]),
                    lambda: self.batch_node(rows, batch, b, depth))

    # --- the backend of _Search: depths <= 4 from the kernels ---------------------------------------
    kernel_depth = 4

    def weight(self, rows: np.ndarray) -> float:
        return float(self.w[rows].sum())

    def trivial(self, rows: np.ndarray, allowed: np.ndarray) -> bool:
        return rows.size == 0 or not allowed.any()

    def kernel(self, rows: np.ndarray, depth: int, fixed: frozenset, root_ok: np.ndarray, context) -> _Best:
        """Best tree of depth <= ``depth`` <= 4 on ``rows`` (or a leaf when no variable is left), as
        an error: a tree's error is (W - score) / 2, exact for the integer weights counted here."""
        D0 = float(self.d[rows].sum())
        if depth == 0 or rows.size == 0 or not root_ok.any():
            self.solved += 1
            out = _Sol(abs(D0), 1, 0, lambda: self.leaf_node(D0))
        elif depth <= 2:
            P = self.pair_counts(rows)
            batch = _depth2(np.array([D0]), np.diag(P)[None], P[None], root_ok[None], leaves_only=depth == 1)
            self.solved += 1
            out = self.from_batch(rows, batch, 0, depth)
        elif depth == 3:
            out = self.solve3(rows, D0, root_ok)
        else:
            out = self.solve4(rows, D0, root_ok)
        return _Best((self.weight(rows) - out.score) / 2, out.leaves, out.depth, out.build)

    split = split_rows

    def solve3(self, rows: np.ndarray, D0: float, root_ok: np.ndarray) -> _Sol:
        """Depth 3 on one subproblem: from whole triple counts when n is small, else from triple
        counts made one root at a time (never held whole)."""
        n = self.n
        if n ** 3 <= _WHOLE_TRIPLES and self.pair_chunks(rows):
            T = np.empty((n, n, n), dtype=self.cell_dtype)
            self.triple_counts(rows, T)
            P = np.ascontiguousarray(T[np.arange(n), np.arange(n)])
            batch = _depth3(np.array([D0]), np.diag(P)[None].copy(), P[None], root_ok[None], Tk=T[:, None])
        else:
            P = self.pair_counts(rows).astype(self.cell_dtype)
            batch = _depth3(np.array([D0]), np.diag(P)[None].copy(), P[None], root_ok[None],
                            ranges=self.streamed_ranges(rows, P))
        self.solved += 2
        return self.from_batch(rows, batch, 0, 3)

    def streamed_ranges(self, rows: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:func:`_cell_ranges_streamed` on ``rows``, counting the triples of root x_i over its
        smaller side: the rows with x_i = 1, or those with x_i = 0 and T[i] = P - D(x_i = 0, ...).

        Root i counts only the j > i block, so the variables are taken in increasing order of
        their smaller side (the cheapest counts get the widest blocks); the ranges are returned in
        the original order.
        """
        ones = self.X[rows].sum(axis=0, dtype=np.int64)
        order = np.argsort(np.minimum(ones, rows.size - ones), kind="stable")
        cols = np.ix_(rows, order)
        XT8 = np.ascontiguousarray(self.X[cols].T)                 # (n, rows): one row per variable
        Xf, Xd = self.Xf[cols], self.Xd[cols]
        Pp = P[np.ix_(order, order)]
        use_ones = ones[order] <= rows.size - ones[order]

        def triples(p: int) -> np.ndarray:
            sel = np.flatnonzero(XT8[p] if use_ones[p] else XT8[p] == 0)
            block = (np.take(Xd, sel, axis=0)[:, p + 1:].T @ np.take(Xf, sel, axis=0)).astype(Pp.dtype)
            return (block if use_ones[p] else Pp[p + 1:] - block)[None]

        umax, umin = _cell_ranges_streamed(np.diag(Pp)[None].copy(), Pp[None], triples)
        back = np.argsort(order)
        return umax[:, back][:, :, :, back], umin[:, back][:, :, :, back]

    def solve4(self, rows: np.ndarray, D0: float, root_ok: np.ndarray) -> _Sol:
        """Depth 4: the 2n depth-3 subproblems x_i = a are solved in batches by :func:`_depth3`.

        Their triple counts are the quadruple counts Q[i, j, k, l] = D(x_i = x_j = x_k = x_l = 1)
        of this subproblem (x_i = 1) and the triple counts minus them (x_i = 0, sibling
        subtraction); their pair counts and totals are slices of the triple counts. When Q is
        small, it is one BLAS product of the pair-product matrix with itself per chunk of rows;
        else the triple counts of each x_i = 1 half are counted on its rows.
        """
        n = self.n
        idx = np.arange(n)
        pair = np.empty((n, n), dtype=np.int64)          # index of the pair {j, k} among j <= k
        pair[self.pairs_j, self.pairs_k] = pair[self.pairs_k, self.pairs_j] = np.arange(self.pairs_j.size)
        quads = None
        chunks = self.pair_chunks(rows) if self.pairs_j.size ** 2 <= _QUADS_BUDGET else []
        if chunks:
            quads = np.zeros((self.pairs_j.size,) * 2, dtype=self.dtype)
            for chunk in chunks:  # loop over chunks of rows; BLAS body
                Z = self.pair_products(chunk)
                quads += (Z * self.d[chunk].astype(self.dtype)) @ Z.T          # (pairs, pairs)
            T = quads[pair[idx, idx][:, None, None], pair[None]].astype(self.cell_dtype)  # Q[j, j, k, l]
        else:
            T = np.empty((n, n, n), dtype=self.cell_dtype)
            self.triple_counts(rows, T)
        P = T[idx, idx]                                   # P[j, k] = T[j, j, k]
        s = np.diag(P).copy()
        out = self.from_batch(rows, _depth3(np.array([D0]), s[None], P[None], root_ok[None], Tk=T[:, None]), 0, 3)
        self.solved += 2
        roots = np.flatnonzero(root_ok)
        chunk = max(1, _TRIPLE_BATCH_BUDGET // (2 * n ** 3))
        for start in range(0, roots.size, chunk):  # loop over batches of roots; NumPy body
            block = roots[start:start + chunk]
            C = block.size
            Tc = np.empty((n, C, 2, n, n), dtype=self.cell_dtype)    # [k, c, a, i, j], T symmetric
            if quads is not None:
                Tc[:, :, 1] = quads[pair[block][None, :, :, None], pair.T[:, None, None, :]]
            else:
                for c, i in enumerate(block):  # loop over roots; BLAS body
                    self.triple_counts(self.split_rows(rows, int(i))[1], Tc[:, c, 1])
            np.subtract(T[:, None], Tc[:, :, 1], out=Tc[:, :, 0])
            Tc = Tc.reshape(n, 2 * C, n, n)
            Pc = np.stack([P[None] - T[block], T[block]], axis=1).reshape(2 * C, n, n)
            sc = np.stack([s[None] - P[block], P[block]], axis=1).reshape(2 * C, n)
            Dc = np.stack([D0 - s[block], s[block]], axis=1).reshape(2 * C)
            ok = np.repeat(root_ok[None] & (idx[None, :] != block[:, None]), 2, axis=0)
            batch = _depth3(Dc, sc, Pc, ok, Tk=Tc)
            self.solved += 4 * C
            score = batch.score.reshape(C, 2).sum(axis=1)
            leaves = batch.leaves.reshape(C, 2).sum(axis=1)
            depth = 1 + batch.depth.reshape(C, 2).max(axis=1)
            c = int(_lex_best(score, leaves, depth, np.ones(C, dtype=bool)))
            if _better(float(score[c]), int(leaves[c]), int(depth[c]), out):
                i = int(block[c])
                halves = self.split_rows(rows, i)
                children = [self.from_batch(halves[a], batch, 2 * c + a, 3) for a in (0, 1)]
                out = _Sol(float(score[c]), int(leaves[c]), int(depth[c]),
                           lambda i=i, l=children[0], r=children[1]: ("split", i, l.build(), r.build()))
        return out


# --- the search: one implementation of FIND's recursion, over three ways of counting ---------------

class _Best(NamedTuple):
    """A solved subproblem: its (weighted) error, leaves and depth, and how to build it."""

    err: float
    leaves: int
    depth: int
    build: Callable[[], _Node]


def _lex_better(candidate: _Best, than: _Best, rows) -> bool:
    """The tie rule of :func:`find`: less error, then fewer leaves, then shallower."""
    return candidate[:3] < than[:3]


class _Search:
    """FIND (BLT 2021, Fig. 2) above a backend's kernels: the best tree of depth <= d on a set of
    rows is the best of the depth-(d - 1) optimum and, for every root x_i not fixed on the branch,
    x_i with the depth-(d - 1) optima of its two halves; solutions are memoised by restriction.

    The backend counts (integer weights: :class:`_SignedCounts`; real-valued weights, the book's
    float sums: :class:`_LabelSums`; k classes: :class:`_ClassCounts`, :class:`_ClassSums`) and solves every depth up to
    its ``kernel_depth`` directly. ``better`` is the tie rule: :func:`_lex_better` (least error,
    fewest leaves, least depth; the earlier candidate on a full tie, so the smaller budget, then the
    smaller root) or the backend's own (``_ClassSums.better``: strictly less error by a relative
    1e-9). ``prune_ties`` skips a root whose first half errs at least as much as the best so far
    (else only more: with the lexicographic rule an equal error may still win on leaves).
    """

    def __init__(self, backend, better=_lex_better, prune_ties: bool = False) -> None:
        self.backend = backend
        self.better = better
        self.prune_ties = prune_ties
        self.memo: dict[tuple, _Best] = {}
        backend.memo = self.memo

    def solve(self, rows, depth: int, fixed: frozenset, allowed: np.ndarray, context=None) -> _Best:
        """Best tree of depth <= ``depth`` on ``rows``; ``fixed`` = the branch's (variable, value) pairs,
        ``allowed`` the variables it may query, ``context`` the counts a parent handed down."""
        key = (depth, fixed)
        if key in self.memo:
            return self.memo[key]
        backend = self.backend
        if depth <= backend.kernel_depth or backend.trivial(rows, allowed):
            out = backend.kernel(rows, depth, fixed, allowed, context)
        else:
            backend.before_roots(depth, fixed)
            out = self.solve(rows, depth - 1, fixed, allowed)     # ties go to the smaller budget
            parent = backend.parent_counts(depth, fixed)
            for i in np.flatnonzero(allowed):  # loop over features; NumPy body
                i = int(i)
                halves = backend.split(rows, i)
                if backend.skip(halves):
                    continue
                sub_allowed = allowed.copy()
                sub_allowed[i] = False
                keys = (fixed | {(i, 0)}, fixed | {(i, 1)})
                contexts = backend.child_contexts(parent, i, halves, keys)
                left = self.solve(halves[0], depth - 1, keys[0], sub_allowed, contexts[0])
                if left.err > out.err or (self.prune_ties and left.err >= out.err):
                    continue                                        # the first half alone errs too much
                right = self.solve(halves[1], depth - 1, keys[1], sub_allowed, contexts[1])
                candidate = _Best(left.err + right.err, left.leaves + right.leaves,
                                  1 + max(left.depth, right.depth),
                                  lambda i=i, l=left, r=right: ("split", i, l.build(), r.build()))
                if self.better(candidate, out, rows):
                    out = candidate
        self.memo[key] = out
        return out


def _leaf_best(w1: float, w0: float) -> _Best:
    """A leaf on label weights w1, w0 (ties to label 0), as the float-sum backend sees it."""
    structure = ("leaf", 1 if w1 > w0 else 0)
    return _Best(min(w1, w0), 1, 0, lambda: structure)


def _lex_argmin(err: np.ndarray, leaves: np.ndarray, depth: np.ndarray, axis: int) -> np.ndarray:
    """Index of the least (error, leaves, depth) along ``axis``; the first one on a full tie."""
    best = err == err.min(axis=axis, keepdims=True)
    few = np.where(best, leaves, _BIG)
    best &= few == few.min(axis=axis, keepdims=True)
    shallow = np.where(best, depth, _BIG)
    return np.argmin(shallow, axis=axis)


def _label_depth2(P1: np.ndarray, P0: np.ndarray, W1: np.ndarray, W0: np.ndarray,
                  allowed: np.ndarray, depth: int = 2):
    """Best depth-<=2 trees for a batch of subproblems from their per-label pair counts (the
    float-sum backend).

    ``P1[b, i, j]`` is the label-1 weight of subproblem b with x_i = x_j = 1 (diagonal: x_i = 1),
    likewise ``P0``; ``allowed[b, i]`` says whether x_i may be queried. Returns the best errors,
    leaf counts and depths (B,) and a function giving the structure of subproblem b.
    ``W1``/``W0`` are the (B,) label totals; ``depth=1`` allows only leaves below the root.
    Ties in error go to the tree with fewer leaves, then the shallower one, then the smaller index.
    """
    B, n, _ = P1.shape
    idx = np.arange(n)

    def cells(P: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, ...]:
        """Weights with (x_i, x_j) = (0, 0), (0, 1), (1, 0), (1, 1), each (B, i, j)."""
        s = P[:, idx, idx]                                  # (B, n)
        c10 = s[:, :, None] - P
        c01 = s[:, None, :] - P
        c00 = (W[:, None, None] - s[:, :, None]) - c01
        return c00, c01, c10, P

    c1, c0 = cells(P1, W1), cells(P0, W0)
    # err[b, i, a, j]: errors of the best leaves below x_i = a, x_j = 0 and x_j = 1
    err = np.empty((B, n, 2, n))
    for a in (0, 1):  # the two branches of the root; NumPy body
        lo, hi = 2 * a, 2 * a + 1
        np.add(np.minimum(c1[lo], c0[lo]), np.minimum(c1[hi], c0[hi]), out=err[:, :, a, :])
    eye = np.eye(n, dtype=bool)
    bad_child = ~allowed[:, None, :] & ~eye[None]           # (B, i, j): disallowed, not the leaf
    if depth == 1:
        bad_child = np.broadcast_to(~eye[None], bad_child.shape)
    err = np.where(bad_child[:, :, None, :], np.inf, err)
    diag = err[:, idx, :, idx].transpose(1, 0, 2)           # (B, i, a): leaf below branch a
    child = np.argmin(err, axis=3)                          # (B, i, a): every split child has 2 leaves
    child_err = np.take_along_axis(err, child[..., None], axis=3)[..., 0]
    child_is_leaf = diag <= child_err                       # a leaf wins ties (1 leaf, depth 0)
    child = np.where(child_is_leaf, idx[None, :, None], child)
    child_err = np.minimum(diag, child_err)
    root_err = np.where(allowed, child_err.sum(axis=2), np.inf)   # (B, i)
    root_leaves = np.where(child_is_leaf, 1, 2).sum(axis=2)
    root_depth = 1 + (~child_is_leaf).any(axis=2)
    root = _lex_argmin(root_err, root_leaves, root_depth, axis=1)
    rows = np.arange(B)
    best_root = root_err[rows, root]
    leaf_err = np.minimum(W1, W0)
    use_leaf = ~(leaf_err > best_root)
    best = np.where(use_leaf, leaf_err, best_root)
    leaves = np.where(use_leaf, 1, root_leaves[rows, root])
    depths = np.where(use_leaf, 0, root_depth[rows, root])

    def leaf(w1: float, w0: float) -> _Node:
        return ("leaf", 1 if w1 > w0 else 0)

    def structure(b: int) -> _Node:
        if use_leaf[b]:
            return leaf(float(W1[b]), float(W0[b]))
        i = int(root[b])
        sub = []
        for a in (0, 1):
            j = int(child[b, i, a])
            w1 = [float(c1[2 * a + x][b, i, j]) for x in (0, 1)]    # label weights at x_j = 0, 1
            w0 = [float(c0[2 * a + x][b, i, j]) for x in (0, 1)]
            if j == i:
                sub.append(leaf(w1[a], w0[a]))
            else:
                sub.append(("split", j, leaf(w1[0], w0[0]), leaf(w1[1], w0[1])))
        return ("split", i, sub[0], sub[1])

    return best, leaves, depths, structure


class _LabelSums(_Counting):
    """FIND's counting on real-valued weights, the book's tie rule: rows kept apart by label
    (c = 1, 0), errors compared as float sums of per-label counts.

    With real-valued weights (``population_find``'s mu(x) 2^-n) equal errors are equal only up to
    rounding, and the choice between near-equal trees depends on how the sums are formed; these
    are the sums the book's results were computed with: per-label pair and triple counts, every
    depth-2 tree's error from the same arrays its structure is read from, and the variables fixed
    on a branch masked out. Kernels up to depth 3; a depth-4 search hands its halves the pair and
    triple counts derived from its own (sibling subtraction).
    """

    kernel_depth = 3

    def __init__(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray) -> None:
        self.n = X.shape[1]
        keep = weight > 0
        exact32 = bool(np.all(weight == np.round(weight))) and weight.sum() < 2**24
        self.dtype = np.float32 if exact32 else np.float64
        self.X = [X[keep & (y == c)].astype(self.dtype) for c in (0, 1)]
        self.w = [weight[keep & (y == c)].astype(self.dtype) for c in (0, 1)]
        self.Xw = [self.X[c] * self.w[c][:, None] for c in (0, 1)]
        self.memo: dict[tuple, _Best] = {}
        # counts of the depth-3 solves that a depth-4 solve splits further (popped when used)
        self.keep_triples: set[frozenset] = set()
        self.kept: dict[frozenset, tuple] = {}

    def all_rows(self) -> tuple:
        return np.arange(self.X[0].shape[0]), np.arange(self.X[1].shape[0])

    def totals(self, rows: tuple) -> tuple[float, float]:
        return float(self.w[1][rows[1]].sum()), float(self.w[0][rows[0]].sum())

    def pair_counts(self, rows: tuple) -> list[np.ndarray]:
        """P_c[i, j] = label-c weight with x_i = x_j = 1 (one BLAS product per class)."""
        return [(self.Xw[c][rows[c]].T @ self.X[c][rows[c]]).astype(np.float64) for c in (0, 1)]

    def triple_counts(self, rows: tuple) -> list[np.ndarray]:
        """T_c[i, j, k] = label-c weight with x_i = x_j = x_k = 1.

        T is symmetric in (i, j, k), so for each i one BLAS product over the rows with x_i = 1 gives
        only the block j, k >= i; the other entries are copied from the blocks of smaller i.
        """
        n = self.n
        out = []
        for c in (0, 1):
            Xr, Xwr = self.X[c][rows[c]], self.Xw[c][rows[c]]
            on = Xr.astype(bool)
            T = np.empty((n, n, n))
            for i in range(n):  # loop over features; BLAS body
                sel = on[:, i]
                T[i, i:, i:] = Xwr[sel, i:].T @ Xr[sel, i:]
                T[i, :i, :] = T[:i, i, :]
                T[i, i:, :i] = T[:i, i, i:].T
            out.append(T)
        return out

    def trivial(self, rows: tuple, allowed: np.ndarray) -> bool:
        return (rows[0].size + rows[1].size) == 0 or not allowed.any()

    def kernel(self, rows: tuple, depth: int, fixed: frozenset, allowed: np.ndarray, counts) -> _Best:
        """Best tree of depth <= ``depth`` <= 3 on ``rows`` (a leaf when nothing is left to query);
        ``counts`` = (pairs, triples) when a depth-4 parent derived them."""
        W1, W0 = self.totals(rows)
        if depth == 0 or (rows[0].size + rows[1].size) == 0 or not allowed.any():
            return _leaf_best(W1, W0)
        if depth <= 2:
            return self.solve2(self.pair_counts(rows), W1, W0, allowed, depth)
        pairs, triples = counts if counts is not None else (self.pair_counts(rows), None)
        shallow = self.memo.get((2, fixed))
        if shallow is None:
            shallow = self.memo[(2, fixed)] = self.solve2(pairs, W1, W0, allowed, 2)
        triples = triples if triples is not None else self.triple_counts(rows)
        if fixed in self.keep_triples:
            self.kept[fixed] = (pairs, triples)
        return self.solve3(pairs, triples, W1, W0, allowed, shallow)

    def split(self, rows: tuple, i: int) -> list[tuple]:
        right = [self.X[c][rows[c], i] == 1 for c in (0, 1)]
        return [(rows[0][~right[0]], rows[1][~right[1]]), (rows[0][right[0]], rows[1][right[1]])]

    def before_roots(self, depth: int, fixed: frozenset) -> None:
        if depth == 4:
            self.keep_triples.add(fixed)

    def parent_counts(self, depth: int, fixed: frozenset):
        """A depth-4 subproblem's own pair and triple counts, kept by its depth-3 solve."""
        return self.kept.pop(fixed, None) if depth == 4 else None

    def child_contexts(self, parent, i: int, halves, keys) -> tuple:
        """The halves' counts derived from the parent's, unless both halves are solved already."""
        if parent is None or all((3, k) in self.memo for k in keys):
            return None, None
        return tuple(self.split_counts(parent, i, halves))

    def split_counts(self, parent: tuple, i: int, halves: list[tuple]) -> list[tuple]:
        """Pair and triple counts of the two halves x_i = 0, 1 of a subproblem with known counts.

        Pairs come free from the parent's triples (P[x_i = 1][j, k] = T[i, j, k]); the triples of the
        smaller half are counted on its rows and the other half's are the parent's minus them (sibling
        subtraction), so one depth-3 subproblem in two costs no pass over the data.
        """
        (P0, P1), (T0, T1) = parent
        pairs = [(P0 - T0[i], P1 - T1[i]), (T0[i], T1[i])]
        small = int(halves[1][0].size + halves[1][1].size <= halves[0][0].size + halves[0][1].size)
        counted = self.triple_counts(halves[small])
        derived = [T0 - counted[0], T1 - counted[1]]
        triples = [None, None]
        triples[small], triples[1 - small] = counted, derived
        return [(pairs[a], triples[a]) for a in (0, 1)]

    def solve2(self, pairs: list[np.ndarray], W1: float, W0: float, allowed: np.ndarray,
               depth: int) -> _Best:
        """Best depth-<=2 (or depth-1) tree from the pair counts."""
        P0, P1 = pairs
        best, leaves, depths, structure = _label_depth2(P1[None], P0[None], np.array([W1]),
                                                        np.array([W0]), allowed[None], depth)
        built = structure(0)
        return _Best(float(best[0]), int(leaves[0]), int(depths[0]), lambda: built)

    def solve3(self, pairs: list[np.ndarray], triples: list[np.ndarray], W1: float, W0: float,
               allowed: np.ndarray, shallow: _Best) -> _Best:
        """Depth 3 at once: every (root i, branch a) depth-2 subproblem from the triple counts."""
        n = self.n
        P0, P1 = pairs
        T0, T1 = triples
        s1, s0 = np.diag(P1), np.diag(P0)
        sub_W1 = np.stack([W1 - s1, s1], 1).reshape(2 * n)
        sub_W0 = np.stack([W0 - s0, s0], 1).reshape(2 * n)
        # subproblem (i, a): pair counts restricted to x_i = a
        sub1 = np.stack([P1[None] - T1, T1], 1).reshape(2 * n, n, n)
        sub0 = np.stack([P0[None] - T0, T0], 1).reshape(2 * n, n, n)
        sub_allowed = np.repeat(allowed[None] & ~np.eye(n, dtype=bool), 2, axis=0)
        best, leaves, depths, structure = _label_depth2(sub1, sub0, sub_W1, sub_W0, sub_allowed)
        root_err = np.where(allowed, best.reshape(n, 2).sum(axis=1), np.inf)
        root_leaves = leaves.reshape(n, 2).sum(axis=1)
        root_depth = 1 + depths.reshape(n, 2).max(axis=1)
        i = int(_lex_argmin(root_err, root_leaves, root_depth, axis=0))
        built = ("split", i, structure(2 * i), structure(2 * i + 1))
        candidate = _Best(float(root_err[i]), int(root_leaves[i]), int(root_depth[i]), lambda: built)
        return candidate if _lex_better(candidate, shallow, None) else shallow


# --- k classes: least weighted misclassification, the multi-class estimators' rule -----------------

_CHUNK_ELEMENTS = 1 << 22  # rows x features converted to float64 per counting step (32 MB)


def _exact_dtype(columns: np.ndarray) -> type:
    """float32 when every partial sum of ``columns`` is an integer below 2^24 (exact), else float64."""
    whole = bool(np.all(columns == np.round(columns))) and float(np.abs(columns).sum()) < 2**24
    return np.float32 if whole else np.float64


def _count(X: np.ndarray, rows: np.ndarray, columns: np.ndarray, dtype: type = np.float64) -> np.ndarray:
    """sum over ``rows`` of X[r, :]^T columns[r, :]: (n, c) float64, a chunk of rows at a time
    (each chunk's product in ``dtype``: float32 is exact for integer columns of small total)."""
    n = X.shape[1]
    out = np.zeros((n, columns.shape[1]))
    step = max(1, _CHUNK_ELEMENTS // max(n, 1))
    weights = columns.astype(dtype, copy=False)
    for s in range(0, rows.size, step):  # chunks of rows, each one BLAS product
        r = rows[s:s + step]
        out += X[r].astype(dtype).T @ weights[r]
    return out


def _shape(structure: _Node) -> tuple[int, int]:
    """(leaves, depth) of a structure."""
    if structure[0] == "leaf":
        return 1, 0
    (l0, d0), (l1, d1) = _shape(structure[2]), _shape(structure[3])
    return l0 + l1, 1 + max(d0, d1)


class _ClassSums(_Counting):
    """FIND's counting with k classes (class weights ``Y``, (m, k)): a leaf errs the weight outside
    its majority class. Kernels up to depth 2 from class counts of every feature and every pair of
    features; the tie rule (``better``) keeps a tree unless another errs less by more than 1e-9 of
    the rows' weight, so a shallower budget's optimum and then the smaller root win near-ties."""

    kernel_depth = 2

    def __init__(self, X: np.ndarray, Y: np.ndarray) -> None:
        self.X, self.Y = X, Y
        self.n = X.shape[1]
        self.memo: dict[tuple, _Best] = {}

    def all_rows(self) -> np.ndarray:
        return np.arange(self.X.shape[0])

    def trivial(self, rows: np.ndarray, allowed: np.ndarray) -> bool:
        return rows.size == 0

    def better(self, candidate: _Best, than: _Best, rows: np.ndarray) -> bool:
        total = self.Y[rows].sum(axis=0)
        return candidate.err < than.err - 1e-9 * max(total.sum(), 1.0)

    def kernel(self, rows: np.ndarray, depth: int, fixed: frozenset, allowed: np.ndarray, context) -> _Best:
        total = self.Y[rows].sum(axis=0)
        if depth == 0 or rows.size == 0:
            err, structure = _leaf_error(total), ("leaf", int(np.argmax(total)))
        elif depth == 1:
            err, structure = _class_depth1(self.X, rows, self.Y, total)
        else:
            err, structure = _class_depth2(self.X, rows, self.Y, total)
        return _Best(err, *_shape(structure), lambda: structure)

    def split(self, rows: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
        mask = self.X[rows, i] == 1
        return rows[~mask], rows[mask]

    def skip(self, halves) -> bool:
        return halves[0].size == 0 or halves[1].size == 0    # x_i constant on the rows


def _leaf_error(total: np.ndarray) -> float:
    return float(total.sum() - total.max())


def _class_depth1(X: np.ndarray, rows: np.ndarray, Y: np.ndarray, total: np.ndarray) -> tuple[float, tuple]:
    """The best tree of depth <= 1 on ``rows``: (error, structure)."""
    leaf = ("leaf", int(np.argmax(total)))
    best = (_leaf_error(total), leaf)
    if rows.size == 0:
        return best
    ones = _count(X, rows, Y)
    zeros = total[None, :] - ones
    err = total.sum() - ones.max(axis=1) - zeros.max(axis=1)
    j = int(np.argmin(err))
    if err[j] < best[0] - 1e-9 * max(total.sum(), 1.0):
        best = (float(err[j]), ("split", j, ("leaf", int(np.argmax(zeros[j]))), ("leaf", int(np.argmax(ones[j])))))
    return best


def _class_depth2(X: np.ndarray, rows: np.ndarray, Y: np.ndarray, total: np.ndarray) -> tuple[float, tuple]:
    """The best tree of depth <= 2 on ``rows`` from the pair counts of every two features."""
    best = _class_depth1(X, rows, Y, total)
    if rows.size == 0:
        return best
    n, k = X.shape[1], Y.shape[1]
    dtype = _exact_dtype(Y[rows])
    Xr = X[rows].astype(dtype)
    Yr = Y[rows].astype(dtype)
    ones = (Xr.T @ Yr).astype(np.float64)                  # (n, k): x_i = 1
    pair = np.empty((n, n, k))                             # (n, n, k): x_i = x_j = 1
    for c in range(k):  # one BLAS product per class
        pair[:, :, c] = (Xr * Yr[:, c:c + 1]).T @ Xr
    # the four cells of (x_i, x_j): 11 = pair, 10 = ones_i - pair, 01 = ones_j - pair, 00 = rest
    c11 = pair
    c10 = ones[:, None, :] - pair
    c01 = ones[None, :, :] - pair
    c00 = total[None, None, :] - ones[:, None, :] - ones[None, :, :] + pair
    right = ones.sum(axis=1)[:, None] - c11.max(axis=2) - c10.max(axis=2)      # error in x_i = 1, per j
    left = (total.sum() - ones.sum(axis=1))[:, None] - c01.max(axis=2) - c00.max(axis=2)
    j1, j0 = right.argmin(axis=1), left.argmin(axis=1)
    root_err = right[np.arange(n), j1] + left[np.arange(n), j0]
    i = int(np.argmin(root_err))
    tol = 1e-9 * max(total.sum(), 1.0)
    if root_err[i] < best[0] - tol:
        a, b = int(j0[i]), int(j1[i])
        side0, side1 = total - ones[i], ones[i]
        # a branch keeps a leaf unless its split errs strictly less (no split of equal error)
        sub0 = (("leaf", int(np.argmax(side0))) if left[i, a] >= _leaf_error(side0) - tol else
                ("split", a, ("leaf", int(np.argmax(c00[i, a]))), ("leaf", int(np.argmax(c01[i, a])))))
        sub1 = (("leaf", int(np.argmax(side1))) if right[i, b] >= _leaf_error(side1) - tol else
                ("split", b, ("leaf", int(np.argmax(c10[i, b]))), ("leaf", int(np.argmax(c11[i, b])))))
        best = (float(root_err[i]), ("split", i, sub0, sub1))
    return best


_CLASS_BATCH_BUDGET = 1 << 18   # entries (subproblems x classes x features^2) of one depth-2 batch (in cache)
_CLASS_PROBE_ROOTS = 4          # roots of least upper bound a depth-3 step solves first, in full


@dataclass(frozen=True)
class _ClassBatch:
    """Best depth-<=2 trees of a batch of k-class subproblems (:func:`_class_depth2_batch`): the
    errors and the choices that rebuild each tree (``-1``: no split)."""

    err: np.ndarray        # (B,) least weighted misclassification
    root: np.ndarray       # (B,) root feature, -1: a leaf or a depth-1 tree
    stump: np.ndarray      # (B,) the depth-1 tree's feature when root is -1 (-1: a leaf)
    below: np.ndarray      # (B, 2) feature of the split below branch a of the root (-1: a leaf)

    def shape(self, b: int) -> tuple:
        """Subproblem b's tree with unlabelled leaves (None)."""
        r = int(self.root[b])
        if r < 0:
            j = int(self.stump[b])
            return None if j < 0 else ("split", j, None, None)
        sub = [None if int(self.below[b, a]) < 0 else ("split", int(self.below[b, a]), None, None) for a in (0, 1)]
        return ("split", r, sub[0], sub[1])


def _class_depth2_batch(W: np.ndarray, s: np.ndarray, P: np.ndarray | None) -> _ClassBatch:
    """Best depth-<=2 trees (depth <= 1 when ``P`` is None) of a batch of k-class subproblems from
    their class counts, exact for integer weights and with :class:`_ClassSums`' choices.

    ``W[b, c]`` is subproblem b's class-c weight, ``s[b, c, j]`` its class-c weight with x_j = 1
    and ``P[b, c, j, l]`` with x_j = x_l = 1 (P's diagonal is s). A leaf errs its weight outside its
    majority class; a depth-1 tree (the first feature of least error) replaces the leaf only when it
    errs less by more than 1e-9 of the weight, a depth-2 tree (the first root of least error, below
    each branch the first feature of least error) the depth-1 optimum likewise, and a branch keeps a
    leaf unless its split errs less by as much. Classes are the second axis so that every maximum
    over classes is an elementwise maximum of contiguous slabs.
    """
    B, k, n = s.shape
    at = np.arange(B)
    W = np.asarray(W, dtype=np.float64)
    Wt = W.sum(axis=1)
    tol = 1e-9 * np.maximum(Wt, 1.0)
    leaf = Wt - W.max(axis=1)
    none = np.full((B, 2), -1, dtype=np.int64)
    if n == 0:
        return _ClassBatch(leaf, none[:, 0], none[:, 0], none)
    sf = s.astype(np.float64)
    err1 = Wt[:, None] - sf.max(axis=1) - (W[:, :, None] - sf).max(axis=1)       # (B, j)
    stump = err1.argmin(axis=1)
    use1 = err1[at, stump] < leaf - tol
    best = np.where(use1, err1[at, stump], leaf)
    stump = np.where(use1, stump, -1)
    if P is None:
        return _ClassBatch(best, np.full(B, -1, dtype=np.int64), stump, none)
    S1 = s.sum(axis=1, dtype=P.dtype)                                             # (B, i): weight with x_i = 1
    c11 = P.max(axis=1)                                                           # (B, i, j), symmetric
    cell = np.subtract(s[:, :, :, None], P)                                       # (x_i, x_j) = (1, 0)
    c10 = cell.max(axis=1)
    # (0, 0) = W - s_i - s_j + P = (W - s_j) - (s_i - P), symmetric
    np.subtract((W.astype(P.dtype)[:, :, None] - s)[:, :, None, :], cell, out=cell)
    c00 = cell.max(axis=1)
    del cell
    right = S1[:, :, None] - c11 - c10                                            # [b, i, j]: error in x_i = 1
    right_t = (Wt.astype(P.dtype)[:, None] - S1)[:, None, :] - c10 - c00          # [b, j, i]: error in x_i = 0
    e1 = right.min(axis=2).astype(np.float64)                                     # (B, i)
    e0 = right_t.min(axis=1).astype(np.float64)
    root_err = e1 + e0
    root = root_err.argmin(axis=1)
    use2 = root_err[at, root] < best - tol
    err = np.where(use2, root_err[at, root], best)
    j1 = right[at, root].argmin(axis=1)                                           # the first least, per branch
    j0 = right_t[at, :, root].argmin(axis=1)
    side1 = sf[at, :, root]                                                       # (B, k)
    side0 = W - side1
    keep0 = e0[at, root] < side0.sum(axis=1) - side0.max(axis=1) - tol
    keep1 = e1[at, root] < side1.sum(axis=1) - side1.max(axis=1) - tol
    below = np.stack([np.where(keep0, j0, -1), np.where(keep1, j1, -1)], axis=1)
    return _ClassBatch(err, np.where(use2, root, -1), stump, np.where(use2[:, None], below, none))


class _ClassCounts(_ClassSums):
    """FIND's counting with k classes on integer weights (class weights ``Y``, (m, k), one class a
    row), a :class:`_ClassSums` with its tie rule and choices, exactly, but fast:

    * the pair counts of one class are one BLAS product over that class's rows only (float32 while
      the total weight is below 2^24, exact), so k classes cost one pass over the rows, not k;
    * depth <= 2 from the pair counts in a few reductions over classes (:func:`_class_depth2_batch`);
    * **depth 3** at once: for every root x_i the pair counts of its smaller half are counted on
      its rows and the other half's are the subproblem's minus them (sibling subtraction); the 2n
      halves' depth-2 optima are solved in batches, and the roots are then taken in FIND's order
      with :class:`_Search`'s rule (a root wins when it errs less by more than 1e-9 of the weight).
    """

    kernel_depth = 3

    def __init__(self, X: np.ndarray, Y: np.ndarray) -> None:
        self.X, self.Y = X, Y
        self.n, self.k = X.shape[1], Y.shape[1]
        self.dtype = np.float32 if float(Y.sum()) < 2**24 else np.float64
        # the cells of the depth-2 step: int16 while every count fits (half the bytes to reduce)
        self.cell_dtype = np.int16 if float(Y.sum()) < 2**15 else self.dtype
        self.cls = Y.argmax(axis=1)
        weight = Y.sum(axis=1)
        self.Xf = X.astype(self.dtype)
        self.Xw = self.Xf if np.all(weight == 1) else self.Xf * weight.astype(self.dtype)[:, None]
        self.memo: dict[tuple, _Best] = {}

    def class_rows(self, rows: np.ndarray) -> list[np.ndarray]:
        cls = self.cls[rows]
        return [rows[cls == c] for c in range(self.k)]

    def ones(self, rows: np.ndarray) -> np.ndarray:
        """s[c, j] = class-c weight with x_j = 1, (k, n) float64."""
        out = np.zeros((self.k, self.n))
        for c, r in enumerate(self.class_rows(rows)):  # loop over classes; NumPy body
            out[c] = self.Xw[r].sum(axis=0, dtype=np.float64)
        return out

    def by_class(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` ordered by class (stable): a subset picked by a mask stays ordered."""
        return rows[np.argsort(self.cls[rows], kind="stable")]

    def pair_counts(self, rows: np.ndarray, out: np.ndarray) -> None:
        """out[c, j, l] = class-c weight with x_j = x_l = 1 on ``rows`` (ordered by class, see
        :meth:`by_class`): one gather of the rows and one BLAS product per class on its slice."""
        bounds = np.searchsorted(self.cls[rows], np.arange(self.k + 1))
        G = self.Xf[rows]
        Gw = G if self.Xw is self.Xf else self.Xw[rows]
        direct = out.dtype == self.dtype
        for c in range(self.k):  # loop over classes; BLAS body
            lo, hi = bounds[c], bounds[c + 1]
            if direct:
                np.matmul(Gw[lo:hi].T, G[lo:hi], out=out[c])
            else:
                out[c] = Gw[lo:hi].T @ G[lo:hi]

    def structure(self, rows: np.ndarray, shape) -> _Node:
        """A tree of unlabelled leaves (None) on ``rows``, each leaf labelled by its majority class."""
        if shape is None:
            return ("leaf", int(np.argmax(self.Y[rows].sum(axis=0))))
        zero, one = self.split(rows, shape[1])
        return ("split", shape[1], self.structure(zero, shape[2]), self.structure(one, shape[3]))

    def best(self, rows: np.ndarray, err: float, shape) -> _Best:
        structure = self.structure(rows, shape)
        return _Best(float(err), *_shape(structure), lambda: structure)

    def kernel(self, rows: np.ndarray, depth: int, fixed: frozenset, allowed: np.ndarray, context) -> _Best:
        if depth == 0 or rows.size == 0:
            total = self.Y[rows].sum(axis=0)
            return self.best(rows, _leaf_error(total), None)
        W = self.Y[rows].sum(axis=0)[None]
        if depth == 1:
            batch = _class_depth2_batch(W, self.ones(rows)[None], None)
            return self.best(rows, batch.err[0], batch.shape(0))
        P = np.empty((self.k, self.n, self.n), dtype=self.cell_dtype)
        rows = self.by_class(rows)
        self.pair_counts(rows, P)
        s = np.ascontiguousarray(P[:, np.arange(self.n), np.arange(self.n)])
        shallow = _class_depth2_batch(W, s[None], P[None])
        if depth == 2:
            return self.best(rows, shallow.err[0], shallow.shape(0))
        return self.solve3(rows, W[0], s, P, shallow)

    def solve3(self, rows: np.ndarray, W: np.ndarray, s: np.ndarray, P: np.ndarray, shallow: _ClassBatch) -> _Best:
        """Depth <= 3 on ``rows`` from the depth-2 optima of the halves x_i = a, skipping the roots
        that bounds show cannot win.

        A depth-2 tree on a half errs at least, for its best second feature x_j, the weight outside
        the two largest classes of each cell (x_i, x_j) = (a, b) (a depth-1 subtree has two
        leaves), and at most the weight outside the largest (leaves on the cells): both from the
        pair counts, for every root at once. On integer weights (errors then differ by 1 or more,
        above the 1e-9 tolerance) the winner is the first root of least error, so roots are taken
        best bound first: the few of least upper bound in full (a good tree early), then the larger
        half of every root whose lower bound is below the best error so far, then the other half
        where the larger half's error plus the other's bound still is; a root is skipped once its
        bound exceeds the best error (or equals it with a larger index). Every root that could win
        is solved exactly, so the choice is FIND's.
        """
        n, k = self.n, self.k
        X8 = self.X[rows]
        ones = X8.sum(axis=0, dtype=np.int64)
        roots = np.flatnonzero((ones > 0) & (ones < rows.size))
        counted = (2 * ones <= rows.size).astype(np.int64)    # the smaller half is counted, the other derived
        errs = np.full((n, 2), np.inf)
        found: dict[tuple[int, int], tuple[_ClassBatch, int]] = {}
        per_batch = max(1, _CLASS_BATCH_BUDGET // (k * n * n))
        Ph = np.empty((min(per_batch, 2 * max(roots.size, 1)), k, n, n), dtype=self.cell_dtype)
        tol = 1e-9 * max(float(W.sum()), 1.0)
        shallow_err = float(shallow.err[0])

        def solve(halves: list[tuple[int, int]]) -> None:
            """The depth-2 optima of the halves (root i, branch a), a batch at a time."""
            for start in range(0, len(halves), per_batch):  # loop over batches of halves; NumPy body
                block = halves[start:start + per_batch]
                Wh = np.empty((len(block), k))
                for h, (i, a) in enumerate(block):  # loop over halves; BLAS body
                    self.pair_counts(rows[X8[:, i] == counted[i]], Ph[h])
                    if a != counted[i]:
                        np.subtract(P, Ph[h], out=Ph[h])
                    Wh[h] = s[:, i] if a == 1 else W - s[:, i]
                B = len(block)
                sh = np.ascontiguousarray(Ph[:B][:, :, np.arange(n), np.arange(n)])
                batch = _class_depth2_batch(Wh, sh, Ph[:B])
                for h, (i, a) in enumerate(block):  # loop over halves; bookkeeping only
                    errs[i, a] = batch.err[h]
                    found[(i, a)] = (batch, h)

        if tol < 0.5 and roots.size > 1:
            upper, half_lb = self.half_bounds(W, s, P)
            inside = self.containment(W, s, P)    # inside[i, a, j, b]: half (i, a) within half (j, b)
            best = [shallow_err, -1]          # the least error found and its first root (-1: depth 2)

            def update(done: list[tuple[int, int]]) -> None:
                """Bounds after solving ``done``: a half's optimum bounds every half holding it (a
                tree errs no more on a subset of its rows), and the best root so far."""
                for i, a in done:  # loop over solved halves; NumPy body over (j, b)
                    np.maximum(half_lb, np.where(inside[i, a], errs[i, a], -np.inf), out=half_lb)
                cand = errs.sum(axis=1)
                if np.isfinite(cand).any():
                    i = int(np.argmin(cand))
                    if cand[i] < best[0] or (cand[i] == best[0] and 0 <= i < best[1]):
                        best[0], best[1] = float(cand[i]), i

            def alive(candidates: np.ndarray) -> np.ndarray:
                bound = half_lb[candidates].sum(axis=1)
                keep = (bound < best[0]) | ((bound == best[0]) & (best[1] >= 0) & (candidates < best[1]))
                return candidates[keep]

            probe = [(int(i), a) for i in roots[np.argsort(upper[roots].sum(axis=1), kind="stable")[:_CLASS_PROBE_ROOTS]]
                     for a in (0, 1)]
            solve(probe)
            update(probe)
            big = 1 - counted
            weight = np.stack([float(W.sum()) - s.sum(axis=0), s.sum(axis=0)], axis=1)   # (n, 2): weight of each half
            for side in (big, counted):  # the larger halves (smallest first: they bound the larger), then the others
                todo = roots[~np.isfinite(errs[roots, side[roots]])]
                todo = todo[np.argsort(weight[todo, side[todo]] if side is big else half_lb[todo].sum(axis=1),
                                       kind="stable")]
                while todo.size:  # loop over batches of halves; NumPy body
                    todo = alive(todo)
                    done = [(int(i), int(side[i])) for i in todo[:per_batch]]
                    solve(done)
                    todo = todo[per_batch:]
                    update(done)
        else:
            solve([(int(i), a) for i in roots for a in (0, 1)])
        # FIND's order: the depth-2 optimum, then every root, a root winning when it errs less by
        # more than 1e-9 of the weight (the rule of _Search with _ClassSums); skipped roots err inf
        best_err, best_root = shallow_err, -1
        for i in roots.tolist():  # loop over roots; scalars only
            left = errs[i, 0]
            if left >= best_err:
                continue
            candidate = left + errs[i, 1]
            if candidate < best_err - tol:
                best_err, best_root = candidate, i
        if best_root < 0:
            return self.best(rows, best_err, shallow.shape(0))
        halves = [found[(best_root, a)] for a in (0, 1)]
        return self.best(rows, best_err, ("split", best_root, halves[0][0].shape(halves[0][1]),
                                          halves[1][0].shape(halves[1][1])))

    def containment(self, W: np.ndarray, s: np.ndarray, P: np.ndarray) -> np.ndarray:
        """inside[i, a, j, b]: every row with x_i = a has x_j = b (the cell's weight is the half's;
        every weight is positive), from the pair counts summed over classes."""
        n = self.n
        S1 = s.sum(axis=0, dtype=np.float64)
        pair = P.sum(axis=0, dtype=np.float64)                      # (i, j): weight with x_i = x_j = 1
        total = float(W.sum())
        cell = np.empty((n, 2, n, 2))
        cell[:, 1, :, 1] = pair
        cell[:, 1, :, 0] = S1[:, None] - pair
        cell[:, 0, :, 1] = S1[None, :] - pair
        cell[:, 0, :, 0] = total - S1[:, None] - S1[None, :] + pair
        half = np.stack([total - S1, S1], axis=1)                    # (i, a)
        return cell == half[:, :, None, None]

    def half_bounds(self, W: np.ndarray, s: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Upper and lower bounds (n, 2) on the depth-2 error of every half x_i = a: over the second
        feature x_j, the least sum over the cells (x_i, x_j) = (a, b) of the weight outside the
        largest class (leaves on the cells) and outside the two largest (a depth-1 subtree on each)."""
        n, k = self.n, self.k
        Wc = W.astype(P.dtype)
        upper = np.empty((n, 2))
        lower = np.empty((n, 2))
        for a in (0, 1):  # the two branches of the root; NumPy body over (class, i, j)
            side = [None, None]
            for b in (0, 1):
                if (a, b) == (1, 1):
                    cell = P
                elif (a, b) == (1, 0):
                    cell = s[:, :, None] - P
                elif (a, b) == (0, 1):
                    cell = s[:, None, :] - P
                else:
                    cell = (Wc[:, None] - s)[:, :, None] - s[:, None, :] + P
                total = cell.sum(axis=0, dtype=np.float64)
                top1 = cell.max(axis=0).astype(np.float64)
                if k <= 2:
                    top2 = total
                elif k == 3:                                   # the two largest: all but the smallest
                    top2 = total - cell.min(axis=0)
                else:
                    top2 = np.partition(cell, k - 2, axis=0)[k - 2:].sum(axis=0, dtype=np.float64)
                side[b] = (total - top1, total - top2)
            upper[:, a] = (side[0][0] + side[1][0]).min(axis=1)
            lower[:, a] = (side[0][1] + side[1][1]).min(axis=1)
        return upper, lower


def find_classes(X: np.ndarray, Y: np.ndarray, depth: int) -> tuple[float, _Node]:
    """FIND with k classes on validated inputs (0/1 ``X``, class weights ``Y`` of shape (m, k)):
    (the least weighted misclassification of a depth-<= ``depth`` tree, its structure). The search
    of :func:`find` with the k-class counting and tie rule: :class:`_ClassCounts` on integer weights
    (exact counts, depth-3 kernel), :class:`_ClassSums` otherwise (the same choices up to float
    rounding of the sums); used by :func:`dtcore.multiclass.multiclass_find`."""
    whole = bool(np.all(Y == np.round(Y))) and float(Y.sum()) < 2**53
    backend = _ClassCounts(X, Y) if whole else _ClassSums(X, Y)
    search = _Search(backend, better=backend.better, prune_ties=True)
    with _one_blas_thread():
        best = search.solve(backend.all_rows(), depth, frozenset(), np.ones(X.shape[1], dtype=bool))
        structure = best.build()
    return float(best.err), structure


@functools.cache
def _blas_controller():
    """threadpoolctl's view of the loaded BLAS libraries, made once: scanning the process's
    libraries costs milliseconds, more than a small FIND run."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


def _one_blas_thread():
    """Limit BLAS to one thread for a ``with`` block (the products are small)."""
    return _blas_controller().limit(limits=1)


def _build(n: int, structure: _Node) -> DecisionTree:
    tree = DecisionTree(n)
    stack = [(0, structure)]
    while stack:
        node, s = stack.pop()
        if s[0] == "leaf":
            tree.set_value(node, float(s[1]))
        else:
            c0, c1 = tree.split(node, s[1])
            stack += [(c0, s[2]), (c1, s[3])]
    return tree


def find_subproblems(n: int, depth: int) -> int:
    """The subproblems FIND may meet on n Boolean features at depth budget d: the restrictions of at
    most min(d, n) features, sum_j C(n, j) 2^j (Lemma 3.2's n^O(d))."""
    return sum(math.comb(n, j) * 2**j for j in range(min(depth, n) + 1))


def _check_find_input(m: int, n: int, depth: int, sample_weight: object) -> np.ndarray:
    """FIND's input checks beyond the shapes: at least one row of positive weight, weights finite
    and non-negative, and its subproblems within :data:`dtcore.validate.MAX_FIND_SUBPROBLEMS`. Returns the weights."""
    if m == 0:
        raise ValueError("X must have at least one row, got 0 rows (FIND has nothing to fit)")
    if sample_weight is None:
        weight = np.ones(m)
    else:
        weight = np.asarray(sample_weight, dtype=np.float64)
        if weight.shape != (m,):
            raise ValueError(f"sample_weight must have shape ({m},), one weight per row, got shape {weight.shape}")
        bad = ~np.isfinite(weight) | (weight < 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"sample_weight must be finite and non-negative, got {float(weight[i])!r} at row {i} "
                             f"({int(bad.sum())} such rows)")
        if not (weight > 0).any():
            raise ValueError("sample_weight must have at least one positive entry, got all zeros")
    check_budget(f"FIND at depth {depth} on {n} features (its subproblems)", find_subproblems(n, depth),
                 "MAX_FIND_SUBPROBLEMS", "lower depth (or max_depth), or use fewer features (n_thresholds)")
    return weight


def _find_label_sums(X: np.ndarray, y: np.ndarray, weight: np.ndarray, depth: int) -> tuple[float, _Node, int]:
    """(weighted training errors, structure, subproblems) of the best depth-``depth`` tree with the
    float-sum counting (:class:`_LabelSums`, real-valued weights); the caller limits BLAS to one
    thread."""
    n = X.shape[1]
    backend = _LabelSums(X, y, weight)
    best = _Search(backend).solve(backend.all_rows(), min(depth, n), frozenset(), np.ones(n, dtype=bool))
    return float(best.err), best.build(), len(backend.memo)


def find(X: np.ndarray, y: np.ndarray, *, depth: int, sample_weight: np.ndarray | None = None) -> FindResult:
    """FIND(X, d): a decision tree of depth <= ``depth`` with the least (weighted) training error.

    Blanc–Lange–Tan 2021, Figure 2 (Lemma 3.1 correctness, Lemma 3.2 time n^O(d)|X|), after
    Mehta–Raghavan 2002. Among the trees of least training error it returns one with the fewest
    leaves, then the least depth; left with several, each node keeps the optimum of the next
    smaller depth budget if it is one of them, else splits on the smallest variable index (so a
    leaf is preferred to any split of equal error and no split has two identical subtrees). Equal
    positive weights act as unit weights.

    Parameters
    ----------
    X : array of shape (m, n)
        The sample's points, 0/1.
    y : array of shape (m,)
        Their 0/1 labels.
    depth : int
        The depth budget d >= 0.
    sample_weight : array of shape (m,), optional
        Non-negative weights of the examples (default: 1 each).

    Returns
    -------
    FindResult
        ``tree`` (depth <= d, least training error), ``errors`` (the weighted number of training
        mistakes), ``error`` (``errors`` over the total weight) and ``subproblems`` (distinct
        (restriction, depth) subproblems solved).

    See Also
    --------
    dtcore.estimators.OptimalTreeClassifier : the same learner for scikit-learn, on real-valued data.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, dtype=np.uint8)
    >>> y = X[:, 0] ^ X[:, 1]
    >>> find(X, y, depth=1).error  # no depth-1 tree computes parity
    0.5
    >>> print(find(X, y, depth=2).tree)
    x0?
      0 -> x1?
        0 -> leaf: 0
        1 -> leaf: 1
      1 -> x1?
        0 -> leaf: 1
        1 -> leaf: 0
    """
    X = check_binary_matrix("X", X)
    m, n = X.shape
    y = check_labels("y", y, m)
    depth = check_int("depth", depth, 0)
    weight = _check_find_input(m, n, depth, sample_weight)
    keep = weight > 0
    # equal weights are unit weights (exact integer arithmetic, the same tree as unweighted)
    unit = float(weight[keep][0]) if keep.any() and np.all(weight[keep] == weight[keep][0]) else 1.0
    scaled = weight[keep] / unit
    if not (np.all(scaled == np.round(scaled)) and scaled.sum() < 2**53):
        # real-valued weights: near-equal errors are decided by float sums, as they always were
        total = float(weight.sum())
        with _one_blas_thread():
            errors, structure, solved = _find_label_sums(X, y, weight, depth)
        return FindResult(tree=_build(n, structure), errors=errors, error=errors / total if total > 0 else 0.0,
                          subproblems=solved)
    X, y, weight = X[keep], y[keep], scaled
    total = float(weight.sum())
    # every count is the signed weight of a set of rows, at most the total weight in size: integer
    # weights are counted exactly in float32 below 2^24 and held in int16 / int32 cells
    count_dtype = np.float32 if total < 2**24 else np.float64
    cell_dtype = np.int16 if total < 2**15 else np.int32 if total < 2**31 else np.float64
    signed = np.where(y == 1, weight, -weight)
    # the products are small; one BLAS thread avoids oversubscription and thread start-up costs
    with _one_blas_thread():
        solver = _SignedCounts(X, signed, count_dtype, cell_dtype)
        best = _Search(solver).solve(np.arange(X.shape[0]), min(depth, n), frozenset(), np.ones(n, dtype=bool))
        structure = best.build()
    errors = max(best.err, 0.0) * unit
    return FindResult(tree=_build(n, structure), errors=errors,
                      error=errors / (total * unit) if total > 0 else 0.0, subproblems=solver.solved)


def training_errors(tree: DecisionTree, X: np.ndarray, y: np.ndarray,
                    sample_weight: np.ndarray | None = None) -> float:
    """Weighted number of training examples a deterministic tree misclassifies."""
    X = check_binary_matrix("X", X, tree.n)
    y = check_labels("y", y, X.shape[0])
    wrong = tree.predict(X) != y
    return float(wrong.sum() if sample_weight is None else np.asarray(sample_weight, float)[wrong].sum())


def population_find(mu: np.ndarray, depth: int) -> FindResult:
    """The best depth-d deterministic tree under the uniform distribution for a mean function mu.

    FIND on all 2^n points, each twice: label 1 with weight mu(x) 2^-n and label 0 with weight
    (1 - mu(x)) 2^-n; the returned ``error`` is then Pr_x[T(x) != f(x)] of the best depth-d tree
    (the comparator T*_trunc of Corollary 4.1 when the Bayes classifier has depth <= d).
    """
    from .cube import all_points, table_variables

    mu = np.asarray(mu, dtype=np.float64)
    n = table_variables(mu, "mu")
    if mu.size and ((mu < 0) | (mu > 1)).any():
        raise ValueError("mu must take values in [0, 1]")
    pts = all_points(n)
    X = np.concatenate([pts, pts])
    y = np.concatenate([np.ones(2**n, np.uint8), np.zeros(2**n, np.uint8)])
    w = np.concatenate([mu, 1.0 - mu]) / 2**n
    return find(X, y, depth=depth, sample_weight=w)


__all__ = ["FindResult", "find", "population_find", "training_errors"]
