"""Exact optimal depth-d trees on real-valued features: FIND over every threshold, at ConTree's speed.

:func:`dtcore.find.find` is FIND (Blanc–Lange–Tan 2021, Fig. 2) on Boolean features. On real-valued
features every threshold ``x_j > c`` (c halfway between consecutive distinct training values of
column j, the cut points CART considers) is a Boolean feature, so the binarised matrix has up to
m x p columns and FIND's n^O(d) |X| bound becomes (m p)^O(d) m. :func:`find_real` returns the tree
FIND returns on that binarised matrix -- least (weighted) training error, then fewest leaves, then
least depth, then the smallest feature (column, then cut) -- without building it, with the ideas of
ConTree (Briţa, van der Linden, Demirović 2025):

* **one sort per feature.** Every subproblem is a set of rows; its order along each column is
  read off the global sort by a membership mask (no sort after the first).
* **depth 2 by a sweep.** For a root column f the rows enter the left child in f-order, one at a
  time. For every other column g a segment tree over g's ranks holds, per pair of classes (c, c'),
  the running sum of w (e_c - e_c') and its largest and smallest prefix sums, so after each row the
  best depth-1 split of the left rows on g is max over (c, c') of A_c' + max_t (a_c(t) - a_c'(t)):
  O(log m) per row and column, never one Boolean column per threshold. The right child is the same
  sweep backwards. One D2 call is O(|S| p^2 log |S|) for k = 2 (k - 1 times that for k classes).
* **depth >= 3 by branch and bound over the root's thresholds.** Along a root column the left
  child's optimal error errL(i) never decreases and grows by at most the weight of the rows that
  move, and the right child's errR(i) the other way round; so two solved thresholds a < b bound
  every threshold between them, errL(k) + errR(k) >= max(errL(a), errL(b) - W(a..b)) + max(...),
  and an interval whose bound exceeds the best error found is skipped whole. The first root tried
  is the depth-2 optimum's root, whose error (with optimal subtrees) is a greedy upper bound.
  Ties: only intervals whose bound is *strictly* above the best error are skipped, so every
  threshold that could tie is solved and the tie rule above holds exactly.
* **a time limit.** The search checks the clock between subproblems; when it runs out it returns
  the best tree found so far with ``optimal=False``.

Memory is linear in m x p (the sorts, ranks and per-column segment trees). The kernels are compiled
with numba (a per-row, per-column loop with data-dependent prefix maxima has no vectorised NumPy
form at this cost).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from .tree import DecisionTree
from .validate import check_int

__all__ = ["FindRealResult", "find_real"]


@dataclass(frozen=True)
class FindRealResult:
    """Output of :func:`find_real`.

    ``tree`` is a :class:`~dtcore.tree.DecisionTree` on the Boolean features ``X[:, columns[k]] >
    cuts[k]`` (k = 0, 1, ..., only those the tree tests); ``errors`` its weighted training mistakes,
    ``error`` = errors / total weight; ``leaf_class[v]`` the class of leaf v (-1 at inner nodes);
    ``optimal`` is False when ``time_limit`` stopped the search before it proved the tree optimal;
    ``subproblems`` counts the depth-2 (or depth-1) subproblems solved.
    """

    tree: DecisionTree
    columns: np.ndarray
    cuts: np.ndarray
    errors: float
    error: float
    leaf_class: np.ndarray
    optimal: bool
    subproblems: int


# --------------------------------------------------------------------------------- kernels ------

@njit(cache=True)
def _subset_orders(rows, order, rank_global):
    """For the rows of a subset: each column's order of them (row ids) and their dense ranks along
    each column (by local position), from the global per-column order by a membership mask."""
    p, m = order.shape
    s = rows.size
    inset = np.zeros(m, np.bool_)
    loc = np.empty(m, np.int64)
    for i in range(s):
        inset[rows[i]] = True
        loc[rows[i]] = i
    sub = np.empty((p, s), np.int64)
    lrank = np.empty((p, s), np.int64)
    nd = np.empty(p, np.int64)
    for f in range(p):
        t = 0
        last = -1
        r = -1
        for q in range(m):
            row = order[f, q]
            if inset[row]:
                sub[f, t] = row
                g = rank_global[f, row]
                if g != last:
                    r += 1
                    last = g
                lrank[f, loc[row]] = r
                t += 1
        nd[f] = r + 1
    return sub, lrank, nd, loc


@njit(cache=True)
def _depth1(rows, order, rank_global, y, w, k):
    """Best depth-<=1 tree on ``rows``: (score, column, position) where score is the correctly
    classified weight, column -1 for a leaf, position = index in the column's subset order of the
    last row sent left. Ties: a leaf, then the first (column, position)."""
    sub, lrank, nd, loc = _subset_orders(rows, order, rank_global)
    p = order.shape[0]
    s = rows.size
    A = np.zeros(k)
    for i in range(s):
        A[y[rows[i]]] += w[rows[i]]
    leaf = A.max()
    best = leaf
    bf = -1
    bq = -1
    a = np.zeros(k)
    for f in range(p):
        a[:] = 0.0
        for q in range(s - 1):
            row = sub[f, q]
            a[y[row]] += w[row]
            if lrank[f, loc[sub[f, q + 1]]] == lrank[f, loc[row]]:
                continue
            lm = a.max()
            rm = -1.0
            for c in range(k):
                v = A[c] - a[c]
                if v > rm:
                    rm = v
            sc = lm + rm
            if sc > best:
                best = sc
                bf = f
                bq = q
    return best, bf, bq


@njit(cache=True)
def _sweep(sub, lrank, nd, loc, f, y, w, k, pa, pb, direction, out_score, out_split,
           tsum, tmax, tmin, offs, sizes):
    """One sweep of root column ``f``: after each row enters (in f-order forwards, or backwards),
    the best depth-<=1 score of the rows entered so far (``out_score[q]``, q the last row's
    position in f-order going forwards, the first row's going backwards) and whether a split beats
    the leaf there (``out_split``)."""
    p, s = sub.shape
    npairs = pa.size
    for g in range(p):
        o = offs[g]
        z = 2 * sizes[g]
        for c in range(npairs):
            for j in range(z):
                tsum[c, o + j] = 0.0
                tmax[c, o + j] = 0.0
                tmin[c, o + j] = 0.0
    A = np.zeros(k)
    for step in range(s):
        q = step if direction > 0 else s - 1 - step
        row = sub[f, q]
        c0 = y[row]
        wr = w[row]
        A[c0] += wr
        li = loc[row]
        for g in range(p):
            o = offs[g]
            size = sizes[g]
            pos = size + lrank[g, li]
            for c in range(npairs):
                if pa[c] == c0:
                    v = wr
                elif pb[c] == c0:
                    v = -wr
                else:
                    continue
                j = pos
                val = tsum[c, o + j] + v
                tsum[c, o + j] = val
                tmax[c, o + j] = val if val > 0.0 else 0.0
                tmin[c, o + j] = val if val < 0.0 else 0.0
                j >>= 1
                while j >= 1:
                    l = o + 2 * j
                    r = l + 1
                    sl = tsum[c, l]
                    tsum[c, o + j] = sl + tsum[c, r]
                    x1 = tmax[c, l]
                    x2 = sl + tmax[c, r]
                    tmax[c, o + j] = x1 if x1 > x2 else x2
                    y1 = tmin[c, l]
                    y2 = sl + tmin[c, r]
                    tmin[c, o + j] = y1 if y1 < y2 else y2
                    j >>= 1
        leaf = A.max()
        best = leaf
        for g in range(p):
            o = offs[g] + 1
            for c in range(npairs):
                v1 = tmax[c, o] + A[pb[c]]
                v2 = A[pa[c]] - tmin[c, o]
                if v1 > best:
                    best = v1
                if v2 > best:
                    best = v2
        out_score[q] = best
        out_split[q] = best > leaf


@njit(cache=True)
def _depth2(rows, order, rank_global, y, w, k, pa, pb):
    """Best depth-<=2 tree on ``rows``: (score, leaves, depth, column, position) with the tie rule
    of :func:`dtcore.find.find` (score, then fewer leaves, then shallower, then the first
    (column, position)); column -1 for a leaf."""
    sub, lrank, nd, loc = _subset_orders(rows, order, rank_global)
    p, s = sub.shape
    A = np.zeros(k)
    for i in range(s):
        A[y[rows[i]]] += w[rows[i]]
    leaf = A.max()
    if s < 2:
        return leaf, 1, 0, -1, -1
    offs = np.empty(p, np.int64)
    sizes = np.empty(p, np.int64)
    tot = 0
    for g in range(p):
        size = 1
        while size < nd[g]:
            size *= 2
        sizes[g] = size
        offs[g] = tot
        tot += 2 * size
    npairs = pa.size
    tsum = np.empty((npairs, tot))
    tmax = np.empty((npairs, tot))
    tmin = np.empty((npairs, tot))
    ls = np.empty(s)
    lsp = np.empty(s, np.bool_)
    rs = np.empty(s)
    rsp = np.empty(s, np.bool_)
    best_s = -1.0
    best_l = 0
    best_d = 0
    bf = -1
    bq = -1
    for f in range(p):
        if nd[f] < 2:
            continue
        _sweep(sub, lrank, nd, loc, f, y, w, k, pa, pb, 1, ls, lsp, tsum, tmax, tmin, offs, sizes)
        _sweep(sub, lrank, nd, loc, f, y, w, k, pa, pb, -1, rs, rsp, tsum, tmax, tmin, offs, sizes)
        for q in range(s - 1):
            if lrank[f, loc[sub[f, q + 1]]] == lrank[f, loc[sub[f, q]]]:
                continue
            sc = ls[q] + rs[q + 1]
            lv = 2 + (1 if lsp[q] else 0) + (1 if rsp[q + 1] else 0)
            dp = 2 if (lsp[q] or rsp[q + 1]) else 1
            if sc > best_s or (sc == best_s and (lv < best_l or (lv == best_l and dp < best_d))):
                best_s = sc
                best_l = lv
                best_d = dp
                bf = f
                bq = q
    if bf < 0 or not best_s > leaf:
        return leaf, 1, 0, -1, -1
    return best_s, best_l, best_d, bf, bq


# ------------------------------------------------------------------------------ the search -------

class _Timeout(Exception):
    pass


@dataclass
class _Node:
    """A solved subproblem: correctly classified weight, leaves, depth and its structure."""

    score: float
    leaves: int
    depth: int
    build: object   # () -> ("leaf", class) or ("split", column, position-row, left, right)


class _Search:
    def __init__(self, X, y, w, k, deadline):
        self.X = X
        self.y = y
        self.w = w
        self.k = k
        m, p = X.shape
        self.order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T)
        rank = np.empty((p, m), np.int64)
        sx = np.take_along_axis(X, self.order.T, axis=0).T          # (p, m) sorted values
        new = np.ones((p, m), bool)
        new[:, 1:] = sx[:, 1:] != sx[:, :-1]
        r = np.cumsum(new, axis=1) - 1
        np.put_along_axis(rank, self.order, r, axis=1)
        self.rank = rank
        self.distinct = [sx[f][new[f]] for f in range(p)]
        self.pa, self.pb = (np.array(v, dtype=np.int64) for v in np.triu_indices(k, 1))
        self.deadline = deadline
        self.solved = 0
        self.timed_out = False

    # -- helpers
    def clock(self):
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.timed_out = True
            raise _Timeout

    def leaf(self, rows):
        A = np.bincount(self.y[rows], weights=self.w[rows], minlength=self.k)
        return int(np.argmax(A))

    def f_order(self, rows, f):
        """``rows`` sorted along column f (stable: the global order)."""
        return rows[np.argsort(self.rank[f, rows], kind="stable")]

    def cut(self, f, row):
        """The cut halfway between the row's value of column f and the next distinct value."""
        vals = self.distinct[f]
        g = int(self.rank[f, row])
        return 0.5 * (vals[g] + vals[g + 1]), g

    def split_node(self, rows, f, q, below):
        srt = self.f_order(rows, f)
        return ("split", f, int(srt[q]), below(srt[:q + 1]), below(srt[q + 1:]))

    # -- solvers
    def depth1(self, rows) -> _Node:
        self.solved += 1
        sc, f, q = _depth1(rows, self.order, self.rank, self.y, self.w, self.k)
        if f < 0:
            return _Node(sc, 1, 0, lambda: ("leaf", self.leaf(rows)))
        return _Node(sc, 2, 1, lambda: self.split_node(rows, f, q, lambda r: ("leaf", self.leaf(r))))

    def depth2(self, rows) -> _Node:
        self.solved += 1
        sc, lv, dp, f, q = _depth2(rows, self.order, self.rank, self.y, self.w, self.k, self.pa, self.pb)
        if f < 0:
            return _Node(sc, 1, 0, lambda: ("leaf", self.leaf(rows)))
        return _Node(sc, int(lv), int(dp),
                     lambda: self.split_node(rows, f, q, lambda r: self.depth1(r).build()))

    def solve(self, rows, depth) -> _Node:
        if rows.size == 0:
            return _Node(0.0, 1, 0, lambda: ("leaf", 0))
        if depth == 0 or rows.size == 1:
            A = np.bincount(self.y[rows], weights=self.w[rows], minlength=self.k)
            return _Node(float(A.max()), 1, 0, lambda: ("leaf", int(np.argmax(A))))
        if depth == 1:
            return self.depth1(rows)
        if depth == 2:
            return self.depth2(rows)
        return self.deep(rows, depth)

    def deep(self, rows, depth, shallow: _Node | None = None, top: bool = False) -> _Node:
        """Depth >= 3: the (depth - 1)-optimum, then every root column's thresholds by branch and
        bound on the children's optimal errors (see the module docstring). ``top``: the incumbent
        is kept in ``self.incumbent`` for a timeout."""
        if shallow is None:
            shallow = self.solve(rows, depth - 1)
        W = float(self.w[rows].sum())
        # incumbent: (error, leaves, depth, column, position); the shallow optimum wins ties
        best = [W - shallow.score, shallow.leaves, shallow.depth, -1, -1]
        built = {"node": shallow}
        if top:
            self.incumbent = built
        p = self.X.shape[1]
        orders = [self.f_order(rows, f) for f in range(p)]

        def evaluate(f, srt, q):
            self.clock()
            left = self.solve(srt[:q + 1], depth - 1)
            right = self.solve(srt[q + 1:], depth - 1)
            wl = float(self.w[srt[:q + 1]].sum())
            el, er = wl - left.score, (W - wl) - right.score
            cand = [el + er, left.leaves + right.leaves, 1 + max(left.depth, right.depth), f, q]
            if cand < best:
                best[:] = cand
                built["node"] = _Node(W - cand[0], cand[1], cand[2],
                                      lambda: ("split", f, int(srt[q]), left.build(), right.build()))
            return el, er

        first = None
        sroot = shallow.build()
        if sroot[0] == "split":
            first = int(sroot[1])
        roots = ([first] if first is not None else []) + [f for f in range(p) if f != first]
        for f in roots:
            srt = orders[f]
            rk = self.rank[f, srt]
            cand = np.flatnonzero(rk[1:] != rk[:-1])          # positions q of the last left row
            if cand.size == 0:
                continue
            cw = np.cumsum(self.w[srt])[cand]                   # weight sent left at each candidate
            eL = np.full(cand.size, np.nan)
            eR = np.full(cand.size, np.nan)
            if f == first:  # the depth-2 optimum's root threshold first: a strong upper bound
                q0 = int(sroot[2])
                i0 = int(np.flatnonzero(srt[cand] == q0)[0]) if np.any(srt[cand] == q0) else 0
                eL[i0], eR[i0] = evaluate(f, srt, int(cand[i0]))
            for i in (0, cand.size - 1):
                if np.isnan(eL[i]):
                    eL[i], eR[i] = evaluate(f, srt, int(cand[i]))
            stack = []
            solved = np.flatnonzero(~np.isnan(eL))
            for a, b in zip(solved[:-1], solved[1:]):
                if b > a + 1:
                    stack.append((int(a), int(b)))
            while stack:  # loop over intervals of thresholds; the body solves one threshold
                a, b = stack.pop()
                inner = np.arange(a + 1, b)
                lb = (np.maximum(eL[a], eL[b] - (cw[b] - cw[inner]))
                      + np.maximum(eR[b], eR[a] - (cw[inner] - cw[a])))
                live = inner[lb <= best[0] + 1e-9 * max(W, 1.0)]
                if live.size == 0:
                    continue
                mid = int(live[live.size // 2])
                eL[mid], eR[mid] = evaluate(f, srt, int(cand[mid]))
                if mid > a + 1 and live[0] < mid:
                    stack.append((a, mid))
                if b > mid + 1 and live[-1] > mid:
                    stack.append((mid, b))
        return built["node"]


def _materialise(structure, X, search: _Search, n_classes: int):
    """The DecisionTree on the Boolean features the structure tests, their columns and cuts, and
    each leaf's class. Features are numbered in the order (column, cut) so that the smallest
    index is the smallest column, then the smallest cut, as in the binarised matrix."""
    feats: dict[tuple[int, int], float] = {}
    stack = [structure]
    while stack:
        s = stack.pop()
        if s[0] == "split":
            cut, g = search.cut(s[1], s[2])
            feats[(s[1], g)] = cut
            stack += [s[3], s[4]]
    keys = sorted(feats)
    index = {key: i for i, key in enumerate(keys)}
    columns = np.array([key[0] for key in keys], dtype=np.int64)
    cuts = np.array([feats[key] for key in keys], dtype=np.float64)
    tree = DecisionTree(max(len(keys), 1))
    leaf_class = [-1]
    stack = [(0, structure)]
    while stack:
        node, s = stack.pop()
        if s[0] == "leaf":
            leaf_class[node] = int(s[1])
            if n_classes <= 2:
                tree.set_value(node, float(s[1]))
        else:
            key = (s[1], int(search.rank[s[1], s[2]]))
            c0, c1 = tree.split(node, index[key])
            leaf_class += [-1, -1]
            stack += [(c0, s[3]), (c1, s[4])]
    return tree, columns, cuts, np.asarray(leaf_class, dtype=np.int64)


def find_real(X: np.ndarray, y: np.ndarray, *, depth: int, sample_weight: np.ndarray | None = None,
              n_classes: int | None = None, time_limit: float | None = None) -> FindRealResult:
    """The least-training-error tree of depth <= ``depth`` over every threshold of every column.

    FIND (Blanc–Lange–Tan 2021, Fig. 2; Lemma 3.1: optimal) run on the Boolean features
    ``x_j > c`` for every cut c halfway between consecutive distinct values of column j, without
    building them (see the module docstring for the algorithm). The result is the tree
    :func:`dtcore.find.find` returns on that binarised matrix (same tie rule: fewest leaves, then
    least depth, then the smallest column and cut), for any number of classes.

    Parameters
    ----------
    X : array of shape (m, p)
        Real values (finite).
    y : array of shape (m,)
        Class indices 0..n_classes-1.
    depth : int
        The depth budget d >= 0.
    sample_weight : array of shape (m,), optional
        Non-negative weights (default 1); equal errors are exact for integer weights.
    n_classes : int, optional
        k (default: max(y) + 1, at least 2).
    time_limit : float, optional
        Seconds; when reached, the best tree found so far is returned with ``optimal=False``.

    Returns
    -------
    FindRealResult

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.1, 5.0], [0.4, 3.0], [0.7, 1.0], [0.9, 4.0]])
    >>> r = find_real(X, np.array([0, 1, 1, 0]), depth=2)
    >>> r.errors, r.tree.depth
    (0.0, 2)
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a 2-D array with at least one row and column, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite (map missing values first)")
    m, p = X.shape
    y = np.asarray(y)
    if y.shape != (m,) or y.dtype.kind not in "biu" or (m and y.min() < 0):
        raise ValueError(f"y must be {m} non-negative class indices, got shape {y.shape}, dtype {y.dtype}")
    y = y.astype(np.int64)
    k = max(int(y.max()) + 1, 2) if n_classes is None else check_int("n_classes", n_classes, 2)
    if y.max() >= k:
        raise ValueError(f"y must be class indices below n_classes={k}, got {int(y.max())}")
    depth = check_int("depth", depth, 0)
    if sample_weight is None:
        w = np.ones(m)
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (m,) or not np.all(np.isfinite(w)) or (w < 0).any():
            raise ValueError(f"sample_weight must be {m} finite non-negative numbers, got shape {w.shape}")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise ValueError(f"time_limit must be None or a positive number of seconds, got {time_limit!r}")
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    keep = w > 0                       # rows of weight 0 neither count nor make cut points
    X, y, w = np.ascontiguousarray(X[keep]), y[keep], w[keep]
    search = _Search(X, y, w, k, deadline)
    total = float(w.sum())
    rows = np.arange(X.shape[0])
    # iterative deepening at the root: each budget's optimum is the next one's incumbent, so a
    # timeout always has a tree, the best found
    node = search.solve(rows, min(depth, 2))
    for d in range(3, depth + 1):
        try:
            node = search.deep(rows, d, shallow=node, top=True)
        except _Timeout:
            node = search.incumbent["node"]
            break
    structure = node.build()
    tree, columns, cuts, leaf_class = _materialise(structure, X, search, k)
    errors = max(total - node.score, 0.0)
    return FindRealResult(tree=tree, columns=columns, cuts=cuts, errors=errors,
                          error=errors / total if total > 0 else 0.0, leaf_class=leaf_class,
                          optimal=not search.timed_out, subproblems=search.solved)
