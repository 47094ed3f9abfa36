"""FIND as it was before the signed-count kernels and before the one search (commit 10dd38f, kept
verbatim from ``dtcore/_find_real_weights.py`` at 44cc1c6): per-label counts, errors compared as
float sums, its own recursion. An independent reference, so the tests can fail:

* integer weights: :func:`dtcore.find.find`'s signed-count kernels must give the same tree (exact
  arithmetic: the same tie rule, other sums);
* real-valued weights: :func:`dtcore.find.find` (the search :class:`dtcore.find._Search` over the
  float-sum counting ``_LabelSums``) must make the same choices between near-equal trees, bit for
  bit, as this code did (the book's results were computed with them);
* k classes: :func:`dtcore.multiclass.multiclass_find` must return what ``multiclass._find`` did
  (:func:`reference_multiclass_find`, below).

Not library code: nothing in ``dtcore`` imports it."""

from __future__ import annotations

import numpy as np

from dtcore.find import _build
from dtcore.tree import DecisionTree


def reference_find(X: np.ndarray, y: np.ndarray, depth: int,
                   sample_weight: np.ndarray | None = None) -> tuple[float, DecisionTree]:
    """(weighted training errors, tree) of the reference FIND."""
    from threadpoolctl import threadpool_limits

    X = np.asarray(X, dtype=np.uint8)
    y = np.asarray(y, dtype=np.uint8)
    m, n = X.shape
    weight = np.ones(m) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    with threadpool_limits(1, user_api="blas"):
        errors, structure, _ = solve_real_weights(X, y, weight, depth)
    return errors, _build(n, structure)


# A solution is (error, leaves, depth, structure); structure is ("leaf", label) or
# ("split", i, left, right). Solutions are compared lexicographically on (error, leaves, depth):
# among trees of least training error FIND returns one with the fewest leaves, then the shallowest
# (so a leaf beats any split with the same error, and a split whose two subtrees agree never
# survives), then the smallest variable index.
_Node = tuple
_Solution = tuple


def _leaf(w1: float, w0: float) -> _Solution:
    label = 1 if w1 > w0 else 0
    return (min(w1, w0), 1, 0, ("leaf", label))


def _better(a: _Solution, b: _Solution) -> bool:
    """True when a is strictly better than b: less error, then fewer leaves, then shallower."""
    return a[:3] < b[:3]


def _lex_argmin(err: np.ndarray, leaves: np.ndarray, depth: np.ndarray, axis: int) -> np.ndarray:
    """Index of the least (error, leaves, depth) along ``axis``; the first one on a full tie."""
    best = err == err.min(axis=axis, keepdims=True)
    few = np.where(best, leaves, np.iinfo(np.int64).max)
    best &= few == few.min(axis=axis, keepdims=True)
    shallow = np.where(best, depth, np.iinfo(np.int64).max)
    return np.argmin(shallow, axis=axis)


def _depth2_batch(P1: np.ndarray, P0: np.ndarray, W1: np.ndarray, W0: np.ndarray,
                  allowed: np.ndarray, depth: int = 2):
    """Best depth-<=2 trees for a batch of subproblems given their pair counts.

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

    def structure(b: int) -> _Node:
        if use_leaf[b]:
            return _leaf(float(W1[b]), float(W0[b]))[3]
        i = int(root[b])
        sub = []
        for a in (0, 1):
            j = int(child[b, i, a])
            w1 = [float(c1[2 * a + x][b, i, j]) for x in (0, 1)]    # label weights at x_j = 0, 1
            w0 = [float(c0[2 * a + x][b, i, j]) for x in (0, 1)]
            if j == i:
                sub.append(_leaf(w1[a], w0[a])[3])
            else:
                sub.append(("split", j, _leaf(w1[0], w0[0])[3], _leaf(w1[1], w0[1])[3]))
        return ("split", i, sub[0], sub[1])

    return best, leaves, depths, structure
class _Solver:
    """FIND with memoisation; rows are kept apart by label (c = 1, 0) so counts are plain products."""

    def __init__(self, X: np.ndarray, y: np.ndarray, weight: np.ndarray) -> None:
        self.n = X.shape[1]
        keep = weight > 0
        exact32 = bool(np.all(weight == np.round(weight))) and weight.sum() < 2**24
        self.dtype = np.float32 if exact32 else np.float64
        self.X = [X[keep & (y == c)].astype(self.dtype) for c in (0, 1)]
        self.w = [weight[keep & (y == c)].astype(self.dtype) for c in (0, 1)]
        self.Xw = [self.X[c] * self.w[c][:, None] for c in (0, 1)]
        self.memo: dict[tuple, _Solution] = {}
        # counts of the depth-3 solves that a depth-4 solve splits further (popped when used)
        self.keep_triples: set[frozenset] = set()
        self.kept: dict[frozenset, tuple] = {}

    def totals(self, rows: tuple) -> tuple[float, float]:
        return float(self.w[1][rows[1]].sum()), float(self.w[0][rows[0]].sum())

    def pair_counts(self, rows: tuple) -> list[np.ndarray]:
        """P_c[i, j] = label-c weight with x_i = x_j = 1 (one BLAS product per class)."""
        return [(self.Xw[c][rows[c]].T @ self.X[c][rows[c]]).astype(np.float64) for c in (0, 1)]

    def triple_counts(self, rows: tuple) -> list[np.ndarray]:
        """T_c[i, j, k] = label-c weight with x_i = x_j = x_k = 1.

        T is symmetric in (i, j, k), so for each i one BLAS product over the rows with x_i = 1 gives
        only the block j, k >= i; the other entries are copied from the blocks of smaller i. This
        halves the products of the plain "every (i, j) pair against every k" count and never
        materialises the (rows, n^2) pair matrix.
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

    def solve(self, rows: tuple, depth: int, fixed: frozenset, allowed: np.ndarray,
              counts: tuple | None = None) -> _Solution:
        """Best tree of depth <= ``depth`` on ``rows``; ``counts`` = (pairs, triples) when known."""
        key = (depth, fixed)
        if key in self.memo:
            return self.memo[key]
        W1, W0 = self.totals(rows)
        leaf = _leaf(W1, W0)
        if depth == 0 or (rows[0].size + rows[1].size) == 0 or not allowed.any():
            out = leaf
        elif depth <= 2:
            out = self.solve2(self.pair_counts(rows), W1, W0, allowed, depth)
        elif depth == 3:
            pairs, triples = counts if counts is not None else (self.pair_counts(rows), None)
            shallow = self.memo.get((2, fixed))
            if shallow is None:
                shallow = self.memo[(2, fixed)] = self.solve2(pairs, W1, W0, allowed, 2)
            triples = triples if triples is not None else self.triple_counts(rows)
            if fixed in self.keep_triples:
                self.kept[fixed] = (pairs, triples)
            out = self.solve3(pairs, triples, W1, W0, allowed, shallow)
        else:
            if depth == 4:
                self.keep_triples.add(fixed)
            out = self.solve(rows, depth - 1, fixed, allowed)   # ties go to the smaller tree
            parent = self.kept.pop(fixed, None) if depth == 4 else None
            for i in np.flatnonzero(allowed):  # loop over features; NumPy body
                right = [self.X[c][rows[c], i] == 1 for c in (0, 1)]
                sub_allowed = allowed.copy()
                sub_allowed[i] = False
                halves = [(rows[0][~right[0]], rows[1][~right[1]]), (rows[0][right[0]], rows[1][right[1]])]
                keys = [fixed | {(int(i), 0)}, fixed | {(int(i), 1)}]
                child_counts = [None, None]
                if parent is not None and not all((3, k) in self.memo for k in keys):
                    child_counts = self.split_counts(parent, int(i), halves)
                left_sol = self.solve(halves[0], depth - 1, keys[0], sub_allowed, child_counts[0])
                if left_sol[0] > out[0]:                   # cannot beat the best so far
                    continue
                right_sol = self.solve(halves[1], depth - 1, keys[1], sub_allowed, child_counts[1])
                candidate = (left_sol[0] + right_sol[0], left_sol[1] + right_sol[1],
                             1 + max(left_sol[2], right_sol[2]), ("split", int(i), left_sol[3], right_sol[3]))
                if _better(candidate, out):
                    out = candidate
        self.memo[key] = out
        return out

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
               depth: int) -> _Solution:
        """Best depth-<=2 (or depth-1) tree from the pair counts."""
        P0, P1 = pairs
        best, leaves, depths, structure = _depth2_batch(P1[None], P0[None], np.array([W1]),
                                                        np.array([W0]), allowed[None], depth)
        return (float(best[0]), int(leaves[0]), int(depths[0]), structure(0))

    def solve3(self, pairs: list[np.ndarray], triples: list[np.ndarray], W1: float, W0: float,
               allowed: np.ndarray, shallow: _Solution) -> _Solution:
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
        best, leaves, depths, structure = _depth2_batch(sub1, sub0, sub_W1, sub_W0, sub_allowed)
        root_err = np.where(allowed, best.reshape(n, 2).sum(axis=1), np.inf)
        root_leaves = leaves.reshape(n, 2).sum(axis=1)
        root_depth = 1 + depths.reshape(n, 2).max(axis=1)
        i = int(_lex_argmin(root_err, root_leaves, root_depth, axis=0))
        candidate = (float(root_err[i]), int(root_leaves[i]), int(root_depth[i]),
                     ("split", i, structure(2 * i), structure(2 * i + 1)))
        return candidate if _better(candidate, shallow) else shallow


def solve_real_weights(X: np.ndarray, y: np.ndarray, weight: np.ndarray, depth: int) -> tuple[float, tuple, int]:
    """(weighted training errors, structure, subproblems) of the best depth-``depth`` tree; the
    caller limits BLAS to one thread."""
    n = X.shape[1]
    solver = _Solver(X, y, weight)
    rows = (np.arange(solver.X[0].shape[0]), np.arange(solver.X[1].shape[0]))
    err, _, _, structure = solver.solve(rows, min(depth, n), frozenset(), np.ones(n, dtype=bool))
    return float(err), structure, len(solver.memo)


# --- k classes: multiclass._find as it was at 44cc1c6 (before the one search), verbatim ---------------

from dtcore.find import _count, _exact_dtype  # noqa: E402  (the shared counting helpers, unchanged)


def _leaf_error(total: np.ndarray) -> float:
    return float(total.sum() - total.max())


def _depth1(X: np.ndarray, rows: np.ndarray, Y: np.ndarray, total: np.ndarray) -> tuple[float, tuple]:
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


def _depth2(X: np.ndarray, rows: np.ndarray, Y: np.ndarray, total: np.ndarray) -> tuple[float, tuple]:
    """The best tree of depth <= 2 on ``rows`` from the pair counts of every two features."""
    best = _depth1(X, rows, Y, total)
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


def reference_multiclass_find(X: np.ndarray, rows: np.ndarray, Y: np.ndarray, depth: int) -> tuple[float, tuple]:
    total = Y[rows].sum(axis=0)
    if depth == 0 or rows.size == 0:
        return _leaf_error(total), ("leaf", int(np.argmax(total)))
    if depth == 1:
        return _depth1(X, rows, Y, total)
    if depth == 2:
        return _depth2(X, rows, Y, total)
    best = reference_multiclass_find(X, rows, Y, depth - 1)
    for i in range(X.shape[1]):  # loop over root features (n^(d-2) subproblems); NumPy body below
        mask = X[rows, i] == 1
        if mask.all() or not mask.any():
            continue
        e0, s0 = reference_multiclass_find(X, rows[~mask], Y, depth - 1)
        if e0 >= best[0]:
            continue
        e1, s1 = reference_multiclass_find(X, rows[mask], Y, depth - 1)
        if e0 + e1 < best[0] - 1e-9 * max(total.sum(), 1.0):
            best = (e0 + e1, ("split", i, s0, s1))
    return best
