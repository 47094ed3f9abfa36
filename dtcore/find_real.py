"""Exact optimal depth-d trees on real-valued features: FIND over every threshold, with ConTree's bounds.

:func:`dtcore.find.find` is FIND (Blanc–Lange–Tan 2021, Fig. 2) on Boolean features. On real-valued
features every threshold ``x_j > c`` (c halfway between consecutive distinct training values of
column j, the cut points CART considers) is a Boolean feature, so the binarised matrix has up to
m x p columns and FIND's n^O(d) |X| bound becomes (m p)^O(d) m. :func:`find_real` returns the tree
FIND returns on that binarised matrix -- least (weighted) training error, then fewest leaves, then
least depth, then the smallest feature (column, then cut) -- without building it, with the ideas of
ConTree (Briţa, van der Linden, Demirović 2025):

* **one sort per feature.** Every subproblem is a set of rows; its order along each column is
  read off the global sort by a membership mask (no sort after the first); the depth-2 step reads
  its rows' classes, weights, value boundaries and depth-1 statistics in that same pass.
* **depth 2: one pass per column and root threshold.** For a root threshold of column f, one pass
  over every column g's order of the subset gives both children's best depth-<=1 trees (ConTree's
  specialised depth-2 step): O(|S| p) per root threshold and class pair, never one Boolean column
  per threshold. A depth-1 split's best score on a side with class totals A is max(max_c A_c, over
  the pairs c1 < c2 of present classes: A_c2 + max D, A_c1 - min D), D = a_c1 - a_c2 the running
  difference of the pair's counts left of the threshold; so the pass keeps, per pair, the running
  D of the rows the root sends left (a row's side is a multiplication, not a branch) and the
  complement over all rows for the right child, and tracks their extremes at the value
  boundaries. The sums are float64, exact for integral weights of total below 2^53 (float64
  ran the sweep faster than int64 on this machine). The pass stops early once both children
  reach their lower bounds. The root thresholds are searched by the branch and bound below,
  starting from the depth-1 optimum's threshold (a greedy upper bound), the columns in order of
  their depth-1 error.
* **branch and bound over a root's thresholds (depth >= 2).** Along a root column the left
  child's optimal error errL(i) never decreases and grows by at most the weight of the rows that
  move, and the right child's errR(i) the other way round; so two solved thresholds a < b bound
  every threshold between them, errL(k) + errR(k) >= max(errL(a), errL(b) - W(a..b)) + max(...),
  and an interval whose bound exceeds the best error found is skipped whole (the two ends of a column
  are virtual: nothing or everything sent left, bounded by the (d - 1)-optimum). A child is also
  bounded by the weight of its classes beyond the most its leaves can predict (two below a depth-2
  root, 2^(d-1) below a depth-d one). Depth >= 3 tries the (d - 1)-optimum's root first, solves
  the larger child first with the budget less the smaller child's lower bound, and gives the
  smaller one the budget left (widened by the weight to the interval's ends, so the neighbours stay
  bounded).
* **ties.** Only thresholds whose bound is *strictly* above the best error are skipped for their
  error. A threshold whose bound equals the incumbent's error can only win FIND's tie rule, so it
  is skipped when even the fewest leaves a tree there can have (2 when both children as leaves
  already reach the incumbent's error, 3 when one does beside the other's bound, else 4), with the
  least depth those leaves allow and the threshold's own (column, cut), loses to the incumbent.
  Below a depth-3 root the tie rule is passed down as a **leaf budget**: a tree at a root
  threshold that errs exactly the incumbent's error must have at most L leaves (the incumbent's,
  or one fewer when as many leaves, at the least depth they allow and this threshold's (column,
  cut), would still lose), so the larger child, when it errs its whole budget, may have at most
  L less the leaves the smaller child's classes need at its lower bound (a node erring at most e
  needs the fewest l whose l largest classes leave at most e), and the smaller child at most L
  less the larger one's leaves. A depth-2 subproblem skips every threshold that can only tie at
  its budget with more leaves than that (the fewest leaves as above), and reports the optimum
  only when it beats the budget's error or ties it within the leaves; otherwise a lower bound on
  its error, which still bounds the neighbours. When the larger child cannot win, the smaller
  one is solved for its error alone (a threshold is solved only when it could err strictly less
  than the best tree found). The children's subproblems compare error, leaves and depth only;
  the (column, cut) tie-break among their equal trees is decided when the final tree is built,
  by solving its subproblems again with the full rule (each with the leaves its optimum is known
  to have as its leaf budget). Every threshold that could win is solved, so the tie rule above
  holds exactly.
* **a time limit.** The search checks the clock between subproblems; when it runs out it returns
  the best tree found so far with ``optimal=False``.

Memory is linear in m x p (the sorts, ranks and per-subset copies of them; times the class pairs,
at most six, in the depth-2 pass, whose work buffers are allocated once per search; times the
classes k in the depth >= 3 root's cumulative class weights along every column). The kernels are
compiled with numba (``cache=True``): the per-threshold pass is a running sum over rows in each
column's order, read through the root's side of each row, which has no vectorised NumPy form at
this cost. A depth-3 subproblem's root search runs compiled as a whole (every column's order and
threshold statistics, the branch and bound above, the depth-2 children), so no Python runs per
threshold; a deeper root loops in Python over the same steps.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit, objmode

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

#: up to this many classes present in a subproblem the depth-2 step sweeps class pairs (k (k - 1) / 2
#: passes, branch-free); above it one pass with a vector of class counts per side
_PAIRED_K = 4

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
def _stump_score(a, A, k):
    """Correctly classified weight of a stump whose left side holds class weights ``a`` of the
    node's ``A``: each side predicts its majority class (weights are non-negative)."""
    lm = 0.0
    rm = 0.0
    for c in range(k):
        if a[c] > lm:
            lm = a[c]
        if A[c] - a[c] > rm:
            rm = A[c] - a[c]
    return lm + rm


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
            sc = _stump_score(a, A, k)
            if sc > best:
                best = sc
                bf = f
                bq = q
    return best, bf, bq


@njit(cache=True)
def _children(ys, ws, locs, bnd, posf, q, k, AL, AR, aL, aR):
    """Best depth-<=1 scores of the two children of the root split "f-position <= q": one pass
    over every column's order of the subset with running class counts on each side (the
    specialised depth-2 step of ConTree). Returns (scoreL, splitL, scoreR, splitR); a split wins
    only when it beats the leaf strictly."""
    p, s = ys.shape
    leafL = AL.max()
    leafR = AR.max()
    bestL = leafL
    bestR = leafR
    for g in range(p):
        for c in range(k):
            aL[c] = 0.0
            aR[c] = 0.0
        for t in range(s - 1):
            if posf[locs[g, t]] <= q:
                aL[ys[g, t]] += ws[g, t]
            else:
                aR[ys[g, t]] += ws[g, t]
            if not bnd[g, t]:
                continue
            bestL = max(bestL, _stump_score(aL, AL, k))
            bestR = max(bestR, _stump_score(aR, AR, k))
    return bestL, bestL > leafL, bestR, bestR > leafR


@njit(cache=True)
def _pairs(A, out):
    """The pairs (c1, c2), c1 < c2, of the classes present (``A`` > 0): a depth-1 split's best
    score on a side with class totals A is max(max_c A_c, max over pairs of A_c2 + max D,
    A_c1 - min D), D = a_c1 - a_c2 the running difference of the pair's counts left of the
    threshold. A pair with an absent class scores no more than a leaf, so it is left out."""
    k = A.size
    present = 0
    for c in range(k):
        if A[c] > 0:
            present += 1
    pr = out[:present * (present - 1)].reshape((present * (present - 1) // 2, 2))
    j = 0
    for c1 in range(k):
        if A[c1] > 0:
            for c2 in range(c1 + 1, k):
                if A[c2] > 0:
                    pr[j, 0] = c1
                    pr[j, 1] = c2
                    j += 1
    return pr


@njit(cache=True)
def _carve(buf, off, n):
    """``buf[off:off + n]`` and the next offset: the kernels' work arrays are views of buffers
    allocated once per search (:func:`_work`), so a depth-2 call allocates nothing."""
    return buf[off:off + n], off + n


def _work(m, p, k):
    """The depth-2 kernel's work buffers for subsets of up to ``m`` rows of ``p`` columns and
    ``k`` classes: float64, int64, int32 and uint8 (the uint8 one zero: its first ``m`` entries
    are the membership mask, cleared after each call)."""
    J = min(6, k * (k - 1) // 2)
    nf = p * m * 2 + 2 * p * J * m + 5 * p * (m + 1) + 2 * (m + 1) + p + 6 * k + 4 * J + 8
    ni = k * k + 3 * p * (m + 1) + p * m + 3 * p + (m + 1) + (m + 1) + 2 * (2 * m + 4) + 8
    n32 = m + p * m + 8
    n8 = m + p * m + m + 8
    return np.empty(nf), np.empty(ni, np.int64), np.empty(n32, np.int32), np.zeros(n8, np.uint8)


@njit(cache=True)
def _side_score(A, pr, acc, o):
    """(best depth-<=1 score, leaf score) of one side from the pair extremes ``acc[:, o:o+2]``."""
    leaf = A[0]
    for c in range(A.size):
        if A[c] > leaf:
            leaf = A[c]
    best = leaf
    for j in range(pr.shape[0]):
        v = A[pr[j, 1]] + acc[j, o + 1]
        if v > best:
            best = v
        v = A[pr[j, 0]] - acc[j, o]
        if v > best:
            best = v
    return best, leaf


@njit(cache=True)
def _sweep_col3(g, s, lidx, sv, bm, bP, left, acc):
    """:func:`_sweep`'s pass over column g for three class pairs at once (the same extremes)."""
    mnL0 = acc[0, 0]
    mxL0 = acc[0, 1]
    mnR0 = acc[0, 2]
    mxR0 = acc[0, 3]
    mnL1 = acc[1, 0]
    mxL1 = acc[1, 1]
    mnR1 = acc[1, 2]
    mxR1 = acc[1, 3]
    mnL2 = acc[2, 0]
    mxL2 = acc[2, 1]
    mnR2 = acc[2, 2]
    mxR2 = acc[2, 3]
    d0 = acc[0, 0] * 0
    d1 = d0
    d2 = d0
    for t in range(s):
        lt = left[lidx[g, t]]
        b = bm[g, t]
        d0 += sv[g, 0, t] * lt
        d1 += sv[g, 1, t] * lt
        d2 += sv[g, 2, t] * lt
        x0 = b * d0
        x1 = b * d1
        x2 = b * d2
        y0 = bP[g, 0, t] - x0
        y1 = bP[g, 1, t] - x1
        y2 = bP[g, 2, t] - x2
        mnL0 = x0 if x0 < mnL0 else mnL0
        mxL0 = x0 if x0 > mxL0 else mxL0
        mnR0 = y0 if y0 < mnR0 else mnR0
        mxR0 = y0 if y0 > mxR0 else mxR0
        mnL1 = x1 if x1 < mnL1 else mnL1
        mxL1 = x1 if x1 > mxL1 else mxL1
        mnR1 = y1 if y1 < mnR1 else mnR1
        mxR1 = y1 if y1 > mxR1 else mxR1
        mnL2 = x2 if x2 < mnL2 else mnL2
        mxL2 = x2 if x2 > mxL2 else mxL2
        mnR2 = y2 if y2 < mnR2 else mnR2
        mxR2 = y2 if y2 > mxR2 else mxR2
    acc[0, 0] = mnL0
    acc[0, 1] = mxL0
    acc[0, 2] = mnR0
    acc[0, 3] = mxR0
    acc[1, 0] = mnL1
    acc[1, 1] = mxL1
    acc[1, 2] = mnR1
    acc[1, 3] = mxR1
    acc[2, 0] = mnL2
    acc[2, 1] = mxL2
    acc[2, 2] = mnR2
    acc[2, 3] = mxR2


@njit(cache=True)
def _sweep(lidx, sv, bm, bP, nd, left, acc, gorder, pr, AL, AR, goalL, goalR):
    """One pass over the columns g (in the order ``gorder``) and class pairs j of the subset's
    order with the running difference dL of the pair's counts among the rows sent left by the
    root (``left`` is 0/1 by local row); at each boundary (``bm`` = 1) the left child's
    difference is dL and the right child's P - dL (``bP`` = bm * P, P the difference over all
    rows so far). ``acc[j]`` gets (min left, max left, min right, max right) over the columns;
    non-boundaries count as 0, which the trivial thresholds (nothing sent left) already give.
    Branch-free: the side of a row is a multiplication, not a jump. Stops after a column once
    both children's best scores reach ``goalL``/``goalR`` (their weight minus a lower bound on
    their error: no column can do better)."""
    p, J, s = sv.shape
    z = sv[0, 0, 0] * 0
    acc[:, :] = z
    for gi in range(p):
        g = gorder[gi]
        if nd[g] < 2:
            continue
        if J == 3:    # three classes: the three pairs in one pass (each row's side read once)
            _sweep_col3(g, s, lidx, sv, bm, bP, left, acc)
            if _side_score(AL, pr, acc, 0)[0] >= goalL and _side_score(AR, pr, acc, 2)[0] >= goalR:
                break
            continue
        for j in range(J):
            mnL = acc[j, 0]
            mxL = acc[j, 1]
            mnR = acc[j, 2]
            mxR = acc[j, 3]
            dL = z
            for t in range(s):
                dL += sv[g, j, t] * left[lidx[g, t]]
                x = bm[g, t] * dL
                yv = bP[g, j, t] - x
                mnL = x if x < mnL else mnL
                mxL = x if x > mxL else mxL
                mnR = yv if yv < mnR else mnR
                mxR = yv if yv > mxR else mxR
            acc[j, 0] = mnL
            acc[j, 1] = mxL
            acc[j, 2] = mnR
            acc[j, 3] = mxR
        if _side_score(AL, pr, acc, 0)[0] >= goalL and _side_score(AR, pr, acc, 2)[0] >= goalR:
            break


@njit(cache=True)
def _lex_less(err, lv, dp, f, r, be, bl, bd, bfe, br, tol):
    """(err, leaves, depth, column, cut rank) < the incumbent's, errors equal within ``tol``."""
    if err < be - tol:
        return True
    if err > be + tol:
        return False
    if lv != bl:
        return lv < bl
    if dp != bd:
        return dp < bd
    if f != bfe:
        return f < bfe
    return r < br


@njit(cache=True)
def _min_leaves(lfL, lfR, lbL, lbR, e):
    """The fewest leaves a tree of two depth-<=1 children erring at most ``e`` in all can have:
    2 when both children as leaves (errors ``lfL``, ``lfR``) do, 3 when one as a leaf beside the
    other's lower bound does, else 4."""
    if lfL + lfR <= e:
        return 2
    if lfL + lbR <= e or lbL + lfR <= e:
        return 3
    return 4


@njit(cache=True)
def _candidate(i, lo, hi, eL, eR, cw, lfL, lfR, clL, clR, bound, tie, best_e, best_l, best_d, bf, brank, f, rk,
               tol, tie_e, lmax, loose, ttol):
    """Can root threshold i (between solved thresholds lo < i < hi) still win? Returns (state,
    lower bound): 0 its bound exceeds ``bound`` strictly; 1 only a tie can reach the incumbent's
    error and no tie can win FIND's tie rule; 2 it must be solved. The tie test (when ``tie``: the
    incumbent errs at most the budget) takes the fewest leaves a tree at i erring at most the
    incumbent can have: 2 when the two children as leaves already do (leaf errors ``lfL``,
    ``lfR``), 3 when one child as a leaf beside the other's lower bound does, else 4; and the
    least depth that number of leaves allows (``loose``: ties with equal leaves and depth are not
    wanted, whatever the column and cut). The leaf budget: a threshold that can only reach
    ``tie_e`` (within ``ttol``), not beat it, with more than ``lmax`` leaves is skipped. Without
    ``tie`` (the incumbent errs more than ``tie_e``: no tree is wanted, only the error) a threshold
    that cannot beat the incumbent's error strictly is skipped. Each child's bound is also at
    least ``clL[i]`` / ``clR[i]``, the weight of its classes beyond the most its leaves can
    predict."""
    l1 = eL[lo]
    l2 = eL[hi] - (cw[hi] - cw[i])
    r1 = eR[hi]
    r2 = eR[lo] - (cw[i] - cw[lo])
    lbL = l1 if l1 > l2 else l2
    lbR = r1 if r1 > r2 else r2
    if clL[i] > lbL:
        lbL = clL[i]
    if clR[i] > lbR:
        lbR = clR[i]
    lb = lbL + lbR
    if lb > bound:
        return 0, lb
    if not tie:
        if lb >= best_e - tol:    # no answer is wanted from a tie: only a lower error counts
            return 1, lb
        return 2, lb
    if lb >= best_e - tol:
        ml = _min_leaves(lfL[i], lfR[i], lbL, lbR, best_e + tol)
        if loose:    # the (column, cut) tie-break is not wanted: equal (leaves, depth) cannot win
            f, rk = bf, brank
        if not _lex_less(best_e, ml, 1 if ml == 2 else 2, f, rk, best_e, best_l, best_d, bf, brank, tol):
            return 1, lb
    if lb >= tie_e - ttol and _min_leaves(lfL[i], lfR[i], lbL, lbR, tie_e + ttol) > lmax:
        return 1, lb
    return 2, lb


@njit(cache=True)
def _interval(lo, hi, eL, eR, cw, lfL, lfR, clL, clR, crk, bound, tie, best_e, best_l, best_d, bf, brank, f, tol,
              live, tie_e, lmax, loose, ttol):
    """The thresholds strictly between solved thresholds lo and hi that must still be solved
    (:func:`_candidate`), written to ``live``: returns their number and the least bound of those
    skipped for their error. The error bound is tested first, inline (most thresholds stop there)."""
    n = 0
    lower = np.inf
    el_lo = eL[lo]
    el_hi = eL[hi] - cw[hi]
    er_hi = eR[hi]
    er_lo = eR[lo] + cw[lo]
    for i in range(lo + 1, hi):
        l2 = el_hi + cw[i]
        lbL = el_lo if el_lo > l2 else l2
        if clL[i] > lbL:
            lbL = clL[i]
        r2 = er_lo - cw[i]
        lbR = er_hi if er_hi > r2 else r2
        if clR[i] > lbR:
            lbR = clR[i]
        lb = lbL + lbR
        if lb > bound:
            if lb < lower:
                lower = lb
            continue
        if lb >= best_e - tol or (tie and lb >= tie_e - ttol):
            state, _ = _candidate(i, lo, hi, eL, eR, cw, lfL, lfR, clL, clR, bound, tie, best_e, best_l, best_d,
                                  bf, brank, f, crk[i], tol, tie_e, lmax, loose, ttol)
            if state != 2:
                continue
        live[n] = i
        n += 1
    return n, lower


@njit(cache=True)
def _depth2(rows, order, rank_global, y, w, k, ub, first_f, first_row, tie_e, lmax, loose, tie_tol,
            fbuf, ibuf, i32buf, u8buf):
    """Best depth-<=2 tree on ``rows`` by branch and bound over each root column's thresholds.

    Returns (error, leaves, depth, column, row, exact, lower): the tie rule of
    :func:`dtcore.find.find` (least error, fewer leaves, shallower, then the first (column, cut));
    column -1 for a leaf; ``row`` the last row (in the column's order) sent left. Thresholds whose
    bound exceeds min(incumbent, ``ub``) strictly are skipped. The result is ``exact`` (the
    optimum) when it errs less than ``tie_e`` or ties it (within max(tol, ``tie_tol``)) with at
    most ``lmax`` leaves; otherwise ``lower`` is a lower bound on the optimum's error (its error
    when that is at most ``ub``), see :func:`_candidate` for the thresholds the budget skips
    (``tie_e`` = ``ub``, ``lmax`` >= 4: the plain optimum within ``ub``; ``tie_e`` < 0: the
    error alone). ``loose``: the (column, cut) tie-break is left out (the tree returned has the
    optimum's error, leaves and depth). ``first_f``/``first_row``: a root to try first (-1: none).
    """
    p, m = order.shape
    s = rows.size
    of = 0
    oi = 0
    o32 = 0
    A, of = _carve(fbuf, of, k)
    A[:] = 0
    W = w[0] * 0
    for i in range(s):
        A[y[rows[i]]] += w[rows[i]]
        W += w[rows[i]]
    leaf = A.max()
    best_e = W - leaf
    best_l = 1
    best_d = 0
    bf = -1
    brow = -1
    if s < 2 or best_e <= 0:     # a pure leaf: no tree errs less or has fewer leaves
        return best_e, best_l, best_d, bf, brow, True, best_e, 0
    pr = _pairs(A, ibuf)
    oi = pr.size
    J = pr.shape[0]
    paired = J <= _PAIRED_K * (_PAIRED_K - 1) // 2
    if not paired:
        pr = pr[:1]
        J = 1
    inset = u8buf[:m]     # zero between calls
    loc, o32 = _carve(i32buf, o32, m)
    for i in range(s):
        inset[rows[i]] = 1
        loc[rows[i]] = i
    # one pass over every column's global order, keeping the subset's rows: their order (row ids
    # ``sub``, classes, weights, local indices), the value boundaries, the pair sweep's inputs
    # (each row's signed weight for each class pair, the boundary mask, and the mask times the
    # running difference over all rows: the right child's complement), and at each boundary the
    # depth-1 statistics: the depth-1 optimum (the bounds at the two ends of every root column;
    # columns are tried best first, each from its best threshold), each threshold's weight to the
    # left, its children's errors as leaves and class bounds. Thresholds 1..n of column g; 0 and
    # n + 1 are the virtual ends (nothing / everything left)
    # work arrays: views of the search's buffers, every entry read written first (sv and bP are
    # read only when paired, then written whole)
    v, oi = _carve(ibuf, oi, p * (s + 1))
    sub = v.reshape((p, s + 1))
    v, oi = _carve(ibuf, oi, p * s)
    ys = v.reshape((p, s))
    v, of = _carve(fbuf, of, p * s)
    ws = v.reshape((p, s))
    v, o32 = _carve(i32buf, o32, p * s)
    lidx = v.reshape((p, s))
    bnd = u8buf[m:m + p * s].reshape((p, s))
    left = u8buf[m + p * s:m + p * s + s]
    v, of = _carve(fbuf, of, p * s)
    bm = v.reshape((p, s))
    ps = p if paired else 1
    v, of = _carve(fbuf, of, ps * J * s)
    sv = v.reshape((ps, J, s))
    v, of = _carve(fbuf, of, ps * J * s)
    bP = v.reshape((ps, J, s))
    runj, of = _carve(fbuf, of, J)
    nd, oi = _carve(ibuf, oi, p)
    v, of = _carve(fbuf, of, 4 * J)
    acc = v.reshape((J, 4))
    e1 = best_e
    a, of = _carve(fbuf, of, k)
    eg, of = _carve(fbuf, of, p)
    eg[:] = W
    bt, oi = _carve(ibuf, oi, p)
    bt[:] = -1
    ncand, oi = _carve(ibuf, oi, p)
    v, oi = _carve(ibuf, oi, p * (s + 1))
    cand2 = v.reshape((p, s + 1))
    # five per-column grids of thresholds, one after the other in the float buffer
    v, of = _carve(fbuf, of, 5 * p * (s + 1))
    grids = v.reshape((5, p, s + 1))
    cw2, lf2L, lf2R, cl2L, cl2R = grids[0], grids[1], grids[2], grids[3], grids[4]
    v, oi = _carve(ibuf, oi, p * (s + 1))
    crk2 = v.reshape((p, s + 1))
    for g in range(p):
        # the subset's rows in column g's order, compacted without a branch per row
        t = 0
        for qq in range(m):
            row = order[g, qq]
            sub[g, t] = row
            t += inset[row]
        a[:] = 0
        runj[:] = 0
        n = 0
        run = W * 0
        last = -1
        egg = eg[g]
        btg = bt[g]
        for t in range(s):
            row = sub[g, t]
            r = rank_global[g, row]
            if t > 0:
                # row t - 1 ends a run of equal values when this row's value differs
                b = r != last
                bnd[g, t - 1] = b
                bm[g, t - 1] = 1 if b else 0
                if b:
                    n += 1
                    # the largest and second largest class weight on each side, in one pass (the
                    # classes beyond the two largest bound a depth-1 child's error)
                    if k == 3:    # the same sums and extremes, unrolled (the common case)
                        v0 = a[0]
                        v1 = a[1]
                        v2 = a[2]
                        u0 = A[0] - v0
                        u1 = A[1] - v1
                        u2 = A[2] - v2
                        tl = (v0 + v1) + v2
                        tr = (u0 + u1) + u2
                        m01 = max(v0, v1)
                        lm = max(m01, v2)
                        l2 = max(min(v0, v1), min(m01, v2))
                        m01 = max(u0, u1)
                        rm = max(m01, u2)
                        r2 = max(min(u0, u1), min(m01, u2))
                    else:
                        lm = a[0] * 0
                        l2 = lm
                        tl = lm
                        rm = lm
                        r2 = lm
                        tr = lm
                        for c in range(k):
                            v = a[c]
                            u = A[c] - v
                            tl += v
                            tr += u
                            l2 = max(l2, min(lm, v))
                            lm = max(lm, v)
                            r2 = max(r2, min(rm, u))
                            rm = max(rm, u)
                    if W - lm - rm < egg:
                        egg = W - lm - rm
                        btg = t - 1
                    cand2[g, n] = t - 1
                    cw2[g, n] = run
                    crk2[g, n] = last
                    lf2L[g, n] = run - lm
                    lf2R[g, n] = (W - run) - rm
                    if k > 2:
                        cl2L[g, n] = tl - lm - l2
                        cl2R[g, n] = tr - rm - r2
                    else:
                        cl2L[g, n] = 0.0
                        cl2R[g, n] = 0.0
            c = y[row]
            wt = w[row]
            ys[g, t] = c
            ws[g, t] = wt
            lidx[g, t] = loc[row]
            a[c] += wt
            run += wt
            last = r
        eg[g] = egg
        bt[g] = btg
        bnd[g, s - 1] = False
        bm[g, s - 1] = 0
        if paired:
            # each row's signed weight for each class pair, and at the boundaries the running
            # difference over all rows (0 elsewhere)
            for j in range(J):
                c1 = pr[j, 0]
                c2 = pr[j, 1]
                rj = W * 0
                for t in range(s):
                    c = ys[g, t]
                    v = ws[g, t] * ((1 if c == c1 else 0) - (1 if c == c2 else 0))
                    sv[g, j, t] = v
                    rj += v
                    bP[g, j, t] = rj if bnd[g, t] else 0
        nd[g] = n + 1
        ncand[g] = n
        cw2[g, 0] = 0.0
        lf2L[g, 0] = 0.0
        lf2R[g, 0] = W - leaf
        cw2[g, n + 1] = W
        lf2L[g, n + 1] = W - leaf
        lf2R[g, n + 1] = 0.0
        cl2L[g, 0] = 0.0
        cl2R[g, 0] = 0.0
        cl2L[g, n + 1] = 0.0
        cl2R[g, n + 1] = 0.0
        if eg[g] < e1:
            e1 = eg[g]
    for i in range(s):   # the membership mask is zero again for the next call
        inset[rows[i]] = 0
    roots = np.argsort(eg, kind="mergesort")
    if first_f < 0 and bt[roots[0]] >= 0:
        # no root given: the depth-1 optimum's threshold first, an upper bound from a greedy tree
        first_f = roots[0]
        first_row = sub[first_f, bt[first_f]]
    tol = 1e-9 * max(W, 1.0)
    ttol = max(tol, tie_tol)
    lower = np.inf
    posf, oi = _carve(ibuf, oi, s)
    AL, of = _carve(fbuf, of, k)
    AR, of = _carve(fbuf, of, k)
    aL, of = _carve(fbuf, of, k)
    aR, of = _carve(fbuf, of, k)
    eL, of = _carve(fbuf, of, s + 1)
    eR, of = _carve(fbuf, of, s + 1)
    lv_idx, oi = _carve(ibuf, oi, s + 1)
    v, oi = _carve(ibuf, oi, 2 * (2 * s + 4))
    stack = v.reshape((2 * s + 4, 2))
    nevals = 0
    for ff in range(-1, p):
        f = first_f if ff < 0 else roots[ff]
        if f < 0 or (ff >= 0 and f == first_f) or nd[f] < 2:
            continue
        if not paired:
            for t in range(s):
                posf[lidx[f, t]] = t
        n = ncand[f]
        cand = cand2[f]
        cw = cw2[f]
        lfL = lf2L[f]
        lfR = lf2R[f]
        clL = cl2L[f]
        clR = cl2R[f]
        crk = crk2[f]
        start_at = -1
        if ff < 0:
            for i in range(1, n + 1):
                if sub[f, cand[i]] == first_row:
                    start_at = i
                    break
        eL[0] = 0.0
        eR[0] = e1
        eL[n + 1] = e1
        eR[n + 1] = 0.0
        top = 0
        stack[0, 0] = 0
        stack[0, 1] = n + 1
        top = 1
        while top > 0:
            top -= 1
            lo = stack[top, 0]
            hi = stack[top, 1]
            bound = min(best_e, ub) + tol
            tie = best_e <= tie_e + ttol
            brank = rank_global[bf, brow] if bf >= 0 else -1
            nlive, low = _interval(lo, hi, eL, eR, cw, lfL, lfR, clL, clR, crk, bound, tie, best_e, best_l,
                                   best_d, bf, brank, f, tol, lv_idx, tie_e, lmax, loose, ttol)
            if low < lower:
                lower = low
            if nlive == 0:
                continue
            mid = lv_idx[nlive // 2]     # the median live candidate
            if start_at > 0 and lo < start_at < hi:
                for i in range(nlive):
                    if lv_idx[i] == start_at:
                        mid = start_at
                        start_at = -1
                        break
            q = cand[mid]
            AL[:] = 0
            for t in range(q + 1):
                AL[ys[f, t]] += ws[f, t]
            for c in range(k):
                AR[c] = A[c] - AL[c]
            if paired:
                for t in range(s):
                    left[lidx[f, t]] = 1 if t <= q else 0
                # the children's lower bounds from the neighbours: a sweep reaching both is final
                l1 = eL[lo]
                l2 = eL[hi] - (cw[hi] - cw[mid])
                r1 = eR[hi]
                r2 = eR[lo] - (cw[mid] - cw[lo])
                goalL = cw[mid] - max(l1, l2, clL[mid]) - tol
                goalR = (W - cw[mid]) - max(r1, r2, clR[mid]) - tol
                _sweep(lidx, sv, bm, bP, nd, left, acc, roots, pr, AL, AR, goalL, goalR)
                sL, leafL = _side_score(AL, pr, acc, 0)
                sR, leafR = _side_score(AR, pr, acc, 2)
                spL = sL > leafL
                spR = sR > leafR
            else:
                sL, spL, sR, spR = _children(ys, ws, lidx, bnd, posf, q, k, AL, AR, aL, aR)
            nevals += 1
            eL[mid] = cw[mid] - sL
            eR[mid] = (W - cw[mid]) - sR
            err = eL[mid] + eR[mid]
            lv = 2 + (1 if spL else 0) + (1 if spR else 0)
            dp = 2 if (spL or spR) else 1
            better = _lex_less(err, lv, dp, f, crk[mid], best_e, best_l, best_d, bf, brank, tol)
            if better:
                best_e = err
                best_l = lv
                best_d = dp
                bf = f
                brow = sub[f, q]
            top = _push_halves(stack, top, lo, mid, hi)
    if best_e < tie_e - ttol or (best_e <= tie_e + ttol and best_l <= lmax):
        return best_e, best_l, best_d, bf, brow, True, best_e, nevals
    return best_e, best_l, best_d, bf, brow, False, min(lower, best_e), nevals


@njit(cache=True)
def _push_halves(stack, top, lo, mid, hi):
    """Push the threshold intervals (lo, mid) and (mid, hi) that still hold an inner threshold onto
    the bisection ``stack`` of both root searches; return the new top."""
    if mid > lo + 1:
        stack[top, 0] = lo
        stack[top, 1] = mid
        top += 1
    if hi > mid + 1:
        stack[top, 0] = mid
        stack[top, 1] = hi
        top += 1
    return top


@njit(cache=True)
def _fewest_leaves(counts, e):
    """The fewest leaves a tree erring at most ``e`` on a node with class weights ``counts`` can
    have: each leaf predicts one class, so l leaves err at least the weight beyond the l largest."""
    srt = np.sort(counts)
    total = counts.sum()
    run = counts[0] * 0
    for l in range(1, counts.size + 1):
        run += srt[counts.size - l]
        if total - run <= e:
            return l
    return 1   # (unreachable for exact sums: all leaves err nothing)


@njit(cache=True)
def _solve2(rows, order, rank, y, w, k, ub, ff, frow, tie_e, lmax, tol, fbuf, ibuf, i32buf, u8buf, res):
    """:meth:`_Search.solve` at depth 2 (``loose``) inside the compiled loop: writes (error or lower
    bound, leaves, depth, exact, root column, root row, kind: 0 a leaf of at most one row, 1 a
    depth-2 subproblem) to ``res``; returns the evaluations (-1: no subproblem solved)."""
    if rows.size <= 1:   # a leaf errs nothing on at most one row
        res[0] = 0.0
        res[1] = 1
        res[2] = 0
        res[3] = 1
        res[4] = -1
        res[5] = -1
        res[6] = 0
        return -1
    # np.bool_, not the literal True: a literal argument would compile _depth2 a second time
    e, lv, dp, f, row, exact, lower, evals = _depth2(rows, order, rank, y, w, k, ub, ff, frow, tie_e,
                                                     min(lmax, 4), np.bool_(True), tol, fbuf, ibuf, i32buf, u8buf)
    res[0] = e if exact else lower
    res[1] = lv
    res[2] = dp
    res[3] = 1 if exact else 0
    res[4] = f
    res[5] = row
    res[6] = 1
    return evals


@njit(cache=True)
def _column3(f, srt, cand, cw, counts, counts_all, lfL, lfR, clL, clR, crk, eL, eR, start, ub, tol, best,
             order, rank, y, w, k, fbuf, ibuf, i32buf, u8buf, deadline, out):
    """The branch and bound over root column f's thresholds of a depth-3 subproblem (the loop of
    :meth:`_Search.deep`, compiled: each threshold's two depth-2 children are solved by
    :func:`_depth2` directly). ``best`` (error, leaves, depth, column, cut rank) is the incumbent,
    updated in place; when a threshold's tree beats it, ``out[:9]`` gets (position of the last row
    sent left, left child's error, column, row, kind, right child's error, column, row, kind) and
    ``out[10:12]`` the two children's leaves. Returns (least bound of the thresholds skipped for
    their error or not solved exactly, subproblems solved, evaluations, timed out, incumbent
    replaced)."""
    n = cand.size
    nrows = srt.size
    live = np.empty(n + 2, np.int64)
    stack = np.empty((2 * n + 8, 2), np.int64)
    stack[0, 0] = 0
    stack[0, 1] = n + 1
    top = 1
    lower = np.inf
    hL0 = -1
    hL1 = -1
    hR0 = -1
    hR1 = -1
    rb = np.empty(7)
    rs = np.empty(7)
    small_counts = np.empty(k)
    solved = 0
    evals = 0
    replaced = False
    while top > 0:
        top -= 1
        lo = stack[top, 0]
        hi = stack[top, 1]
        bound = min(best[0], ub) + tol
        tie_root = best[0] <= ub + tol
        nlive, low = _interval(lo, hi, eL, eR, cw, lfL, lfR, clL, clR, crk, bound, tie_root, best[0],
                               int(best[1]), int(best[2]), int(best[3]), int(best[4]), f, tol, live, ub,
                               np.int64(1 << 30), np.bool_(False), tol)
        if low < lower:
            lower = low
        if nlive == 0:
            continue
        mid = start if lo < start < hi else live[nlive // 2]
        if deadline < np.inf:
            with objmode(now="float64"):
                now = time.perf_counter()
            if now > deadline:
                return lower, solved, evals, True, replaced
        q = cand[mid - 1]
        left_rows = srt[:q + 1]
        right_rows = srt[q + 1:]
        big_left = q + 1 >= nrows - q - 1
        if big_left:
            lb_small = max(eR[hi], eR[lo] - (cw[mid] - cw[lo]), clR[mid])
        else:
            lb_small = max(eL[lo], eL[hi] - (cw[hi] - cw[mid]), clL[mid])
        lmax = 1 << 30
        if tie_root:
            L = int(best[1])
            dL = 0
            while (1 << dL) < L:
                dL += 1
            if _lex_less(best[0], L, dL, f, crk[mid], best[0], L, int(best[2]), int(best[3]), int(best[4]),
                         tol):
                lmax = L
            else:
                lmax = L - 1
        lmax_big = lmax - 1
        if lmax - k < 4:   # the small child's classes can limit the big one
            for c in range(k):
                small_counts[c] = counts_all[c] - counts[mid, c] if big_left else counts[mid, c]
            lmax_big = lmax - _fewest_leaves(small_counts, lb_small + tol)
        if big_left:
            big, small, hb0, hb1, hs0, hs1 = left_rows, right_rows, hL0, hL1, hR0, hR1
        else:
            big, small, hb0, hb1, hs0, hs1 = right_rows, left_rows, hR0, hR1, hL0, hL1
        ev = _solve2(big, order, rank, y, w, k, bound - lb_small, hb0, hb1, bound - tol - lb_small, lmax_big,
                     tol, fbuf, ibuf, i32buf, u8buf, rb)
        if ev >= 0:
            solved += 1
            evals += ev
        spread = max(cw[mid] - cw[lo], cw[hi] - cw[mid])
        budget = bound - rb[0] + spread
        tie_small = bound - tol - rb[0]
        lmax_small = lmax - int(rb[1])
        if rb[3] == 0:   # the threshold cannot win: the small child only bounds neighbours, cheaply
            budget = min(budget, bound)
            tie_small = -1.0
        if budget >= 0:
            ev = _solve2(small, order, rank, y, w, k, budget, hs0, hs1, tie_small, lmax_small, tol,
                         fbuf, ibuf, i32buf, u8buf, rs)
            if ev >= 0:
                solved += 1
                evals += ev
        else:
            rs[0] = lb_small
            rs[1] = 1
            rs[2] = 0
            rs[3] = 0
            rs[4] = -1
            rs[5] = -1
            rs[6] = 0
        rl, rr = (rb, rs) if big_left else (rs, rb)
        eL[mid] = rl[0]
        eR[mid] = rr[0]
        if rl[4] >= 0:
            hL0 = int(rl[4])
            hL1 = int(rl[5])
        if rr[4] >= 0:
            hR0 = int(rr[4])
            hR1 = int(rr[5])
        if rl[3] != 0 and rr[3] != 0:
            ce = rl[0] + rr[0]
            cl = int(rl[1] + rr[1])
            cd = 1 + int(max(rl[2], rr[2]))
            if ce < best[0] - tol or (ce <= best[0] + tol and (cl, cd, f, crk[mid]) < (
                    int(best[1]), int(best[2]), int(best[3]), int(best[4]))):
                best[0] = ce
                best[1] = cl
                best[2] = cd
                best[3] = f
                best[4] = crk[mid]
                out[0] = q
                out[1] = rl[0]
                out[2] = rl[4]
                out[3] = rl[5]
                out[4] = rl[6]
                out[5] = rr[0]
                out[6] = rr[4]
                out[7] = rr[5]
                out[8] = rr[6]
                out[10] = rl[1]
                out[11] = rr[1]
                replaced = True
        else:
            lower = min(lower, rl[0] + rr[0])
        top = _push_halves(stack, top, lo, mid, hi)
    return lower, solved, evals, False, replaced


@njit(cache=True)
def _root3(rows, everything, order, rank, y, w, k, W, counts_all, shallow_e, first_f, first_row, ub, tol,
           best, fbuf, ibuf, i32buf, u8buf, deadline, out):
    """Every root column of a depth-3 subproblem on ``rows`` (the (depth - 1)-optimum's root
    column ``first_f`` first): each column's order of the rows (the global sort when
    ``everything``: all rows), its thresholds' weights and class weights to the left, the
    children's errors as leaves and class bounds, then :func:`_column3`. ``best`` and ``out`` as
    there, ``out[9]`` the column of the incumbent's root when it was replaced. Returns (least lower
    bound of the thresholds not solved exactly, subproblems, evaluations, timed out, replaced)."""
    p, m = order.shape
    t4 = 4   # the most leaves a depth-2 child has: the classes beyond that many err
    lower = np.inf
    solved = 0
    evals = 0
    replaced = False
    for fi in range(-1, p):
        f = first_f if fi < 0 else fi
        if f < 0 or (fi >= 0 and f == first_f):
            continue
        if everything:
            srt = order[f]
        else:
            srt = rows[np.argsort(rank[f, rows], kind="mergesort")]
        s = srt.size
        n = 0
        for i in range(s - 1):
            if rank[f, srt[i + 1]] != rank[f, srt[i]]:
                n += 1
        if n == 0:
            continue
        cand = np.empty(n, np.int64)
        cw = np.empty(n + 2)
        counts = np.zeros((n + 2, k))
        crk = np.empty(n + 2, np.int64)
        a = np.zeros(k)
        run = W * 0
        j = 0
        for i in range(s - 1):
            row = srt[i]
            a[y[row]] += w[row]
            run += w[row]
            if rank[f, srt[i + 1]] != rank[f, row]:
                cand[j] = i
                cw[j + 1] = run
                counts[j + 1] = a
                crk[j + 1] = rank[f, row]
                j += 1
        cw[0] = 0.0
        cw[n + 1] = W
        counts[n + 1] = counts_all
        crk[0] = -1
        crk[n + 1] = -1
        lfL = np.empty(n + 2)
        lfR = np.empty(n + 2)
        clL = np.zeros(n + 2)
        clR = np.zeros(n + 2)
        rest = np.empty(k)
        for i in range(n + 2):
            lm = counts[i, 0]
            rm = counts_all[0] - counts[i, 0]
            for c in range(1, k):
                lm = max(lm, counts[i, c])
                rm = max(rm, counts_all[c] - counts[i, c])
            lfL[i] = cw[i] - lm
            lfR[i] = (W - cw[i]) - rm
            if k > t4 and 0 < i < n + 1:
                sl = np.sort(counts[i])
                for c in range(k):
                    rest[c] = counts_all[c] - counts[i, c]
                sr = np.sort(rest)
                vl = sl[0] * 0
                vr = vl
                for c in range(k - t4):
                    vl += sl[c]
                    vr += sr[c]
                clL[i] = vl
                clR[i] = vr
        eL = np.full(n + 2, np.nan)
        eR = np.full(n + 2, np.nan)
        eL[0] = 0.0
        eR[0] = shallow_e
        eL[n + 1] = shallow_e
        eR[n + 1] = 0.0
        start = -1
        if f == first_f:
            for i in range(n):
                if crk[i + 1] == rank[f, first_row]:
                    start = 1 + i
                    break
        low, sv, ev, timed_out, rep = _column3(f, srt, cand, cw, counts, counts_all, lfL, lfR, clL, clR, crk,
                                               eL, eR, start, ub, tol, best, order, rank, y, w, k, fbuf, ibuf,
                                               i32buf, u8buf, deadline, out)
        lower = min(lower, low)
        solved += sv
        evals += ev
        if rep:
            replaced = True
            out[9] = f
        if timed_out:
            return lower, solved, evals, True, replaced
    return lower, solved, evals, False, replaced


# ------------------------------------------------------------------------------ the search -------

class _Timeout(Exception):
    pass


@dataclass
class _Node:
    """A solved subproblem: its error (a lower bound when not ``exact``), leaves, depth, and a
    function building its structure ("leaf", class) or ("split", column, row, left, right), where
    ``row`` is the last row sent left (the cut is halfway above its value); ``root`` (column, row)
    of the best depth-2 tree found, a first root to try on a neighbouring threshold's child."""

    error: float
    leaves: int
    depth: int
    exact: bool
    build: object
    root: tuple = (-1, -1)


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
        np.put_along_axis(rank, self.order, np.cumsum(new, axis=1) - 1, axis=1)
        self.rank = rank
        self.work = _work(m, p, k)                                  # the depth-2 kernel's buffers
        self.srank = np.cumsum(new, axis=1) - 1                     # (p, m) ranks in each column's order
        self.top = {}                                               # per column: the top root's statistics
        self.distinct = [sx[f][new[f]] for f in range(p)]
        self.deadline = deadline
        self.solved = 0
        self.evaluations = 0
        self.timed_out = False
        self.incumbent = None

    def top_stats(self, f, W, counts_all):
        """Column f's order of all rows, its ranks, the positions of the last left row of each
        threshold, and each threshold's weight and class weights to the left (with the two virtual
        ends), from the global sort: the same sums in the same order as for any subset."""
        if not self.top:
            Y = self.y[self.order]
            Wt = self.w[self.order]
            self.top["cw"] = np.cumsum(Wt, axis=1)
            self.top["cc"] = np.cumsum((Y[:, :, None] == np.arange(self.k)) * Wt[:, :, None], axis=1)
        if f not in self.top:
            rk = self.srank[f]
            cand = np.flatnonzero(rk[1:] != rk[:-1])
            n = cand.size
            cw = np.empty(n + 2)
            cw[0], cw[-1] = 0.0, W
            cw[1:-1] = self.top["cw"][f, cand]
            counts = np.zeros((n + 2, self.k))
            counts[1:-1] = self.top["cc"][f, cand]
            counts[-1] = counts_all
            self.top[f] = (self.order[f], rk, cand, cw, counts)
        return self.top[f]

    def clock(self):
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.timed_out = True
            raise _Timeout

    def leaf(self, rows) -> int:
        if rows.size == 0:
            return 0
        return int(np.argmax(np.bincount(self.y[rows], weights=self.w[rows], minlength=self.k)))

    def cut(self, f, row):
        """The cut halfway between the row's value of column f and the next distinct value."""
        vals = self.distinct[f]
        g = int(self.rank[f, row])
        return 0.5 * (vals[g] + vals[g + 1]), g

    def halves(self, rows, f, row):
        left = self.rank[f, rows] <= self.rank[f, row]
        return rows[left], rows[~left]

    def depth1_structure(self, rows):
        self.solved += 1
        _, f, q = _depth1(rows, self.order, self.rank, self.y, self.w, self.k)
        if f < 0:
            return ("leaf", self.leaf(rows))
        row = int(rows[np.argsort(self.rank[f, rows], kind="stable")][q])
        left, right = self.halves(rows, f, row)
        return ("split", int(f), row, ("leaf", self.leaf(left)), ("leaf", self.leaf(right)))

    def depth2(self, rows, ub, first=(-1, -1), tie_e=None, lmax=4, loose=False, tie_tol=0.0) -> _Node:
        """``loose``: the (column, cut) tie-break among trees of equal error, leaves and depth is
        left to ``build``, which solves the subproblem again with it (only the final tree's
        subproblems are built; the search compares error, leaves and depth)."""
        self.solved += 1
        e, lv, dp, f, row, exact, lower, evals = _depth2(rows, self.order, self.rank, self.y, self.w, self.k,
                                                          float(ub), int(first[0]), int(first[1]),
                                                          float(ub if tie_e is None else tie_e), int(lmax), loose,
                                                          float(tie_tol), *self.work)
        self.evaluations += evals
        if not exact:
            return _Node(float(lower), int(lv), int(dp), False, None, (int(f), int(row)))
        if loose:
            return _Node(float(e), int(lv), int(dp), True,
                         lambda: self.depth2(rows, e, (f, row), lmax=int(lv)).build(), (int(f), int(row)))

        def build():
            if f < 0:
                return ("leaf", self.leaf(rows))
            left, right = self.halves(rows, f, row)
            return ("split", int(f), int(row), self.depth1_structure(left), self.depth1_structure(right))

        return _Node(float(e), int(lv), int(dp), True, build, (int(f), int(row)))

    def solve(self, rows, depth, ub=np.inf, first=(-1, -1), tie_e=None, lmax=1 << 30, loose=False,
              tie_tol=0.0) -> _Node:
        """The optimum of depth <= ``depth`` on ``rows`` when it errs at most ``ub`` (else a lower
        bound above ``ub``, not exact). Depth 2 with ``tie_e`` <= ``ub``: exact only when the
        optimum errs less than ``tie_e``, or ``tie_e`` with at most ``lmax`` leaves; otherwise a
        lower bound on its error, the error itself when that is at most ``ub`` (``tie_e`` < 0:
        only the error is wanted). ``loose``: see :meth:`depth2`."""
        if rows.size <= 1 or depth == 0:
            A = np.bincount(self.y[rows], weights=self.w[rows], minlength=self.k)
            err = float(A.sum() - A.max())
            return _Node(err, 1, 0, True, lambda: ("leaf", self.leaf(rows)))
        if depth == 1:
            sc, f, q = _depth1(rows, self.order, self.rank, self.y, self.w, self.k)
            self.solved += 1
            err = float(self.w[rows].sum() - sc)
            return _Node(err, 1 if f < 0 else 2, 0 if f < 0 else 1, True, lambda: self.depth1_structure(rows))
        if depth == 2:
            return self.depth2(rows, ub, first, tie_e, min(lmax, 4), loose, tie_tol)
        return self.deep(rows, depth, ub)

    def deep3(self, rows, ub, W, counts_all, tol, shallow_e, first, best, built):
        """Depth 3: every root column by :func:`_root3`, compiled; ``best`` (a list) and
        ``built["node"]`` are the incumbent, replaced when a threshold's tree beats it. Returns the
        least lower bound of the thresholds skipped or not solved exactly."""
        inc = np.array(best, np.float64)
        out = np.empty(12)
        deadline = np.inf if self.deadline is None else float(self.deadline)
        everything = rows.size == self.X.shape[0]
        lower, solved, evals, timed_out, replaced = _root3(
            rows, everything, self.order, self.rank, self.y, self.w, self.k, W, counts_all, float(shallow_e),
            int(first[0]), int(first[1]), float(ub), tol, inc, *self.work, deadline, out)
        self.solved += solved
        self.evaluations += evals
        if replaced:
            best[:] = [float(inc[0])] + [int(v) for v in inc[1:]]
            f, q = int(out[9]), int(out[0])
            srt = self.order[f] if everything else rows[np.argsort(self.rank[f, rows], kind="stable")]
            left = self.child(srt[:q + 1], out[1], int(out[10]), int(out[2]), int(out[3]), int(out[4]))
            right = self.child(srt[q + 1:], out[5], int(out[11]), int(out[6]), int(out[7]), int(out[8]))
            r = int(srt[q])
            built["node"] = _Node(best[0], best[1], best[2], True,
                                  lambda f=f, r=r, L=left, R=right: ("split", f, r, L(), R()), (f, r))
        if timed_out:
            self.timed_out = True
            raise _Timeout
        return float(lower)

    def child(self, rows, e, leaves, f, row, kind):
        """The function building a depth-2 child solved in :func:`_column3` (``kind`` 0: a leaf of
        at most one row; 1: the subproblem, solved again with the full tie rule)."""
        if kind == 0:
            return lambda: ("leaf", self.leaf(rows))
        return lambda: self.depth2(rows, float(e), (f, row), lmax=leaves).build()

    def deep(self, rows, depth, ub=np.inf, shallow: _Node | None = None, top: bool = False) -> _Node:
        """Depth >= 3: the (depth - 1)-optimum, then every root column's thresholds by branch and
        bound on the children's optimal errors (see the module docstring). ``top``: the incumbent
        is kept in ``self.incumbent`` for a timeout."""
        if shallow is None:
            shallow = self.solve(rows, depth - 1, ub, loose=True)
        if not shallow.exact:   # the (depth - 1)-optimum errs more than ub: only deeper trees can do
            shallow = self.solve(rows, depth - 1, loose=True)
        W = float(self.w[rows].sum())
        counts_all = np.bincount(self.y[rows], weights=self.w[rows], minlength=self.k)
        tol = 1e-9 * max(W, 1.0)
        # incumbent: (error, leaves, depth, column, cut rank); the shallow optimum wins ties
        best = [shallow.error, shallow.leaves, shallow.depth, -1, -1]
        built = {"node": shallow}
        if top:
            self.incumbent = built
        lower = np.inf
        # the (depth - 1)-optimum's root first (the tie rule's tree: a better start); at the top it
        # was solved with the full tie rule, so its root is known without building it
        if top:
            first = shallow.root
        else:
            sroot = shallow.build()
            first = (int(sroot[1]), int(sroot[2])) if sroot[0] == "split" else (-1, -1)
        m, p = self.X.shape
        columns = [first[0]] * (first[0] >= 0) + [f for f in range(p) if f != first[0]]
        if depth == 3:   # the children are depth-2 subproblems: the loop below, compiled
            lower = self.deep3(rows, ub, W, counts_all, tol, shallow.error, first, best, built)
            columns = []
        for f in columns:
            # the rows in column f's order (all rows at the top: the global sort, whose statistics
            # are computed once per search)
            if rows.size == m:
                srt, rk, cand, cw, counts = self.top_stats(f, W, counts_all)
            else:
                srt = rows[np.argsort(self.rank[f, rows], kind="stable")]
                rk = self.rank[f, srt]
                cand = np.flatnonzero(rk[1:] != rk[:-1])            # positions of the last left row
                cw = counts = None
                if cand.size:
                    cw = np.concatenate([[0.0], np.cumsum(self.w[srt])[cand], [W]])
                    # the children's class weights at each threshold (for the tie test)
                    counts = np.zeros((cand.size + 2, self.k))
                    counts[1:-1] = np.cumsum(np.eye(self.k)[self.y[srt]] * self.w[srt, None], axis=0)[cand]
                    counts[-1] = counts_all
            if cand.size == 0:
                continue
            n = cand.size
            lfL = cw - counts.max(axis=1)
            lfR = (W - cw) - (counts_all - counts).max(axis=1)
            crk = np.concatenate([[-1], rk[cand], [-1]])
            # a child of depth d - 1 has at most 2^(d-1) leaves: the classes beyond that many err
            t = 2 ** (depth - 1)
            if self.k > t:
                clL = np.sort(counts, axis=1)[:, :self.k - t].sum(axis=1)
                clR = np.sort(counts_all - counts, axis=1)[:, :self.k - t].sum(axis=1)
                clL[[0, -1]] = 0.0
                clR[[0, -1]] = 0.0
            else:
                clL = clR = np.zeros(n + 2)
            eL = np.full(n + 2, np.nan)
            eR = np.full(n + 2, np.nan)
            eL[0], eR[0], eL[-1], eR[-1] = 0.0, shallow.error, shallow.error, 0.0
            start = -1
            if f == first[0]:
                start = 1 + int(np.flatnonzero(rk[cand] == self.rank[f, first[1]])[0])
            stack = [(0, n + 1)]
            buf = np.empty(n + 2, np.int64)
            hintL = hintR = (-1, -1)
            # Python copies for the scalar reads below (the same float64 values)
            cwl, clLl, clRl, candl, rkl = cw.tolist(), clL.tolist(), clR.tolist(), cand.tolist(), rk.tolist()
            while stack:  # loop over intervals of thresholds; the body solves one threshold's children
                lo, hi = stack.pop()
                bound = min(best[0], ub) + tol
                tie_root = best[0] <= ub + tol
                nlive, low = _interval(lo, hi, eL, eR, cw, lfL, lfR, clL, clR, crk, bound, tie_root,
                                       best[0], best[1], best[2], best[3], best[4], f, tol, buf, ub, 1 << 30, False, tol)
                lower = min(lower, low)
                live = buf[:nlive]
                if live.size == 0:
                    continue
                mid = start if lo < start < hi else int(live[live.size // 2])
                self.clock()
                q = candl[mid - 1]
                left_rows, right_rows = srt[:q + 1], srt[q + 1:]
                # the larger child first: its error tightens the smaller child's budget, widened by
                # the weight to the interval's ends so that the bounds still prune the neighbours
                big, small = (left_rows, right_rows) if q + 1 >= srt.size - q - 1 else (right_rows, left_rows)
                lb_small = (max(eR[hi], eR[lo] - (cwl[mid] - cwl[lo]), clRl[mid]) if big is left_rows
                            else max(eL[lo], eL[hi] - (cwl[hi] - cwl[mid]), clLl[mid]))
                hint_big, hint_small = (hintL, hintR) if big is left_rows else (hintR, hintL)
                # leaf budgets: a tree here erring exactly the incumbent's error must have at most
                # lmax leaves to win the tie rule; the big child at its budget leaves the small one
                # its lower bound, which takes at least the leaves its classes need
                lmax = 1 << 30
                if tie_root:
                    L = best[1]
                    lmax = L if _lex_less(best[0], L, (L - 1).bit_length(), f, rkl[q], best[0], best[1],
                                          best[2], best[3], best[4], tol) else L - 1
                lmax_big = lmax - 1
                if lmax - self.k < 2 ** (depth - 1):   # the small child's classes can limit the big one
                    small_counts = counts[mid] if big is right_rows else counts_all - counts[mid]
                    lmax_big = lmax - _fewest_leaves(small_counts, lb_small + tol)
                nb = self.solve(big, depth - 1, bound - lb_small, hint_big, bound - tol - lb_small, lmax_big,
                                loose=True, tie_tol=tol)
                spread = max(cwl[mid] - cwl[lo], cwl[hi] - cwl[mid])
                budget = bound - nb.error + spread
                tie_small, lmax_small = bound - tol - nb.error, lmax - nb.leaves
                if not nb.exact:  # the threshold cannot win: the small child only bounds neighbours, cheaply
                    budget = min(budget, bound)
                    tie_small = -1.0
                if budget >= 0:
                    ns = self.solve(small, depth - 1, budget, hint_small, tie_small, lmax_small, loose=True,
                                    tie_tol=tol)
                else:
                    ns = _Node(lb_small, 1, 0, False, None)
                left, right = (nb, ns) if big is left_rows else (ns, nb)
                eL[mid], eR[mid] = left.error, right.error
                if left.root[0] >= 0:
                    hintL = left.root
                if right.root[0] >= 0:
                    hintR = right.root
                if left.exact and right.exact:
                    cand_key = [left.error + right.error, left.leaves + right.leaves,
                                1 + max(left.depth, right.depth), f, rkl[q]]
                    if cand_key[0] < best[0] - tol or (cand_key[0] <= best[0] + tol and cand_key[1:] < best[1:]):
                        best[:] = cand_key
                        built["node"] = _Node(cand_key[0], cand_key[1], cand_key[2], True,
                                              lambda f=f, r=int(srt[q]), L=left, R=right:
                                              ("split", f, r, L.build(), R.build()), (f, int(srt[q])))
                else:
                    lower = min(lower, left.error + right.error)
                if mid > lo + 1:
                    stack.append((lo, mid))
                if hi > mid + 1:
                    stack.append((mid, hi))
        node = built["node"]
        if node.error <= ub + tol:
            return node
        return _Node(min(lower, node.error), node.leaves, node.depth, False, None)


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
    >>> r.errors, r.tree.depth   # one threshold of column 1 separates the classes
    (0.0, 1)
    >>> r.columns.tolist(), r.cuts.tolist()
    ([1], [3.5])
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
    for d in range(3, min(depth, max(X.shape[0] - 1, 0)) + 1):
        try:
            node = search.deep(rows, d, shallow=node, top=True)
        except _Timeout:
            node = search.incumbent["node"]
            break
    structure = node.build()
    tree, columns, cuts, leaf_class = _materialise(structure, X, search, k)
    errors = max(node.error, 0.0)
    return FindRealResult(tree=tree, columns=columns, cuts=cuts, errors=errors,
                          error=errors / total if total > 0 else 0.0, leaf_class=leaf_class,
                          optimal=not search.timed_out, subproblems=search.solved)
