"""ID3 as in Brutzkus–Daniely–Malach (COLT 2020), Algorithm 1, and exact errors of its trees.

ID3(S, A): if every example of S has the same label, return a leaf with that label; otherwise
split on j = argmax_{i in A} Gain(S, i) and recurse on S_{x_j=1}, S_{x_j=0} with A \\ {j}. It grows
depth-first until every leaf is pure — no size budget, no score threshold — so, as ARCHITECTURE.md says,
it stands apart from the best-first ``grow`` loop.

Gain(S, i) = C(P_S[y=1]) - P_S[x_i=1] C(P_S[y=1|x_i=1]) - P_S[x_i=0] C(P_S[y=1|x_i=0]) for an
impurity C from :mod:`dtcore.impurity`. All counts at a node come from two NumPy reductions over
the node's rows, for every feature at once; the only Python loop is over nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .impurity import get_impurity
from .tree import LEAF, DecisionTree
from .validate import check_binary_matrix, check_int, check_labels

Impurity = str | Callable[[np.ndarray], np.ndarray]


def _impurity(impurity: Impurity) -> Callable[[np.ndarray], np.ndarray]:
    if callable(impurity):
        return impurity
    if not isinstance(impurity, str):
        raise ValueError(f"impurity must be a name or a callable, got {type(impurity).__name__}")
    return get_impurity(impurity)


def _counts(Xs: np.ndarray, ys: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray]:
    """N, #(y=1), #(x_i=1) and #(x_i=1, y=1) for every column, vectorised over rows."""
    n1 = Xs.sum(axis=0, dtype=np.int64)
    pos = ys == 1
    n11 = Xs[pos].sum(axis=0, dtype=np.int64)
    return Xs.shape[0], int(np.count_nonzero(pos)), n1, n11


def gains(X: np.ndarray, y: np.ndarray, impurity: Impurity = "gini") -> np.ndarray:
    """Gain(S, i) for every column i of X (BDM 2020, Sec. 1.1); S = (X, y) must be non-empty."""
    X = check_binary_matrix("X", X)
    y = check_labels("y", y, X.shape[0])
    if X.shape[0] == 0:
        raise ValueError("X must have at least one row to define Gain(S, i), got 0 rows")
    N, ny, n1, n11 = _counts(X, y)
    return _batched_gains(np.array([N]), np.array([ny]), n1[None, :], n11[None, :], _impurity(impurity))[0]


@dataclass
class ID3Node:
    """One split of an ID3 run: the node, its path w (−1 free), |S_w|, the gains, I(S_w, ·), choice."""

    node: int
    restriction: np.ndarray
    size: int
    positives: int
    gains: np.ndarray          # Gain(S_w, i); NaN for features no longer in A
    covariance: np.ndarray     # I(S_w, i) for every feature
    feature: int


@dataclass(frozen=True)
class ID3Result:
    """The tree ID3 returned and, when traced, one :class:`ID3Node` per split in creation order."""

    tree: DecisionTree
    trace: list[ID3Node] = field(default_factory=list)
    empty_leaves: int = 0
    exhausted_leaves: int = 0
    depth_limited_leaves: int = 0


def _majority(ny: int, N: int) -> float:
    return 1.0 if 2 * ny >= N else 0.0


#: Gains within this of a node's best gain are ties, and ties go to the smallest index. A gain is a
#: difference of impurities of order 1, so float rounding leaves errors near 1e-16: gains equal in
#: exact arithmetic can differ by ~1e-16 and plain ``np.argmax`` would then pick a larger index.
GAIN_TIE_TOLERANCE = 1e-12
_GAIN_BLOCK = 1 << 14                     # nodes x features whose gains are computed at once
_PIECE = 255                              # rows an 8-bit lane can count without overflow
_LOW_BITS = np.uint64(0x0101010101010101)  # bit 0 of each of the 8 bytes of a word


def _pack_rows(X: np.ndarray) -> np.ndarray:
    """The rows of a 0/1 matrix as uint64 words, 64 features per word (feature f is bit f % 64 of
    word f // 64): reordering rows then moves 8 bytes per 64 features."""
    m, n = X.shape
    words = -(-n // 64)
    packed = np.zeros((m, 8 * words), dtype=np.uint8)
    packed[:, : -(-n // 8)] = np.packbits(X, axis=1, bitorder="little")
    return packed.view(np.uint64)


def _segment_bit_sums(Xw: np.ndarray, starts: np.ndarray, lengths: np.ndarray, dtype: type = np.int64,
                      out: np.ndarray | None = None) -> np.ndarray:
    """Column sums of the row segments ``[starts[s], starts[s] + lengths[s])`` of a packed matrix.

    ``Xw`` is ``(rows, words)`` uint64 (:func:`_pack_rows`). For each shift t, ``(w >> t) & 0x01..01``
    holds feature 8k + t of the word in byte k, so one ``np.add.reduceat`` over pieces of at most
    255 rows sums 8 features at once without overflow; the pieces of a segment are then added.
    Returns ``(S, 64 * words)`` counts of ``dtype`` (int64; int32 holds counts below 2^31), written
    into ``out`` (C-contiguous, that shape and dtype) when given.
    """
    S, W = starts.size, Xw.shape[1]
    if out is None:
        out = np.zeros((S, W, 8, 8), dtype=dtype)      # [segment, word, byte k, shift t]
    else:
        out = out.reshape(S, W, 8, 8)
        out[:] = 0
    nonempty = np.flatnonzero(lengths > 0)
    if nonempty.size == 0:
        return out.reshape(S, 64 * W)
    pieces = -(-lengths[nonempty] // _PIECE)
    first_piece = np.concatenate([[0], np.cumsum(pieces)[:-1]])
    piece_starts = starts[nonempty]
    if piece_starts.size < pieces.sum():
        piece_starts = (np.repeat(piece_starts, pieces)
                        + _PIECE * (np.arange(pieces.sum()) - np.repeat(first_piece, pieces)))
    stop = int(starts[nonempty[-1]] + lengths[nonempty[-1]])
    masked = np.empty(stop, dtype=np.uint64)
    lanes = np.empty((8, piece_starts.size, 8), dtype=np.uint8)       # [shift t, piece, byte k]
    for w in range(W):  # loop over words; NumPy body
        column = np.ascontiguousarray(Xw[:stop, w])
        for t in range(8):  # the 8 bits of every byte; NumPy body
            np.right_shift(column, np.uint64(t), out=masked)
            np.bitwise_and(masked, _LOW_BITS, out=masked)
            lanes[t] = np.add.reduceat(masked, piece_starts).view(np.uint8).reshape(-1, 8)
        sums = (np.add.reduceat(lanes, first_piece, axis=1, dtype=np.int64)
                if piece_starts.size > nonempty.size else lanes)
        out[nonempty, w] = sums.transpose(1, 2, 0)
    return out.reshape(S, 64 * W)


_REORDER_WORDS = 8                        # words (a 64-byte cache line per row) moved per pass of _keep_rows


def _keep_rows(Xo: np.ndarray, take: np.ndarray) -> np.ndarray:
    """``Xo[take]`` written over the first ``take.size`` rows of ``Xo`` (in place: a few words of
    every row at a time go through a small copy), returned as a view, so a level's reordering never
    holds a second copy of the packed sample."""
    for w in range(0, Xo.shape[1], _REORDER_WORDS):  # loop over blocks of words; NumPy body
        Xo[:take.size, w:w + _REORDER_WORDS] = Xo[take, w:w + _REORDER_WORDS]
    return Xo[:take.size]


def first_best(g: np.ndarray, tolerance: float = GAIN_TIE_TOLERANCE) -> np.ndarray:
    """Per row of ``g`` (nodes x features; ``-inf`` marks features not in A), the smallest index
    whose gain is within ``tolerance`` of the row's best: Algorithm 1's argmax with ties to the
    smallest index, robust to the rounding of gains that are equal in exact arithmetic."""
    best = g.max(axis=1, keepdims=True)
    return np.argmax(g >= best - tolerance, axis=1)


def _batched_gains(N: np.ndarray, ny: np.ndarray, n1: np.ndarray, n11: np.ndarray,
                   C: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Gain(S_k, i) for a batch of nodes k (rows) and every feature i (BDM 2020, Sec. 1.1):
    C(Pr[y=1]) minus the children's impurities weighted by their shares."""
    N, ny = N[:, None], ny[:, None]
    # an empty child has no positives either (n11 <= n1, ny - n11 <= N - n1): its ratio is 0 / 1
    r1 = n11 / np.maximum(n1, 1)
    r0 = (ny - n11) / np.maximum(N - n1, 1)
    q = n1 / N
    weighted = q * C(r1)
    weighted += (1.0 - q) * C(r0)
    return C(ny / N) - weighted


def id3(X: np.ndarray, y: np.ndarray, *, impurity: Impurity = "gini",
        features: Sequence[int] | None = None, trace: bool = False,
        depth: int | None = None) -> ID3Result:
    """ID3(S, A) of Brutzkus–Daniely–Malach (COLT 2020), Algorithm 1, on S = (X, y).

    Parameters
    ----------
    X, y
        the sample: ``(m, n)`` 0/1 matrix (m >= 1) and ``m`` 0/1 labels.
    impurity
        the impurity C of Gain: ``"gini"``, ``"entropy"``, ``"kearns_mansour"`` or an elementwise
        callable.
    features
        A (default: every column, the paper's initial call ID3(S, [n])). Each split removes its
        feature from A for the subtree, so no feature is queried twice on a path.
    trace
        when True, the result lists for every split the node's restriction w, |S_w|, the gains and
        the empirical covariances I(S_w, i) (for Lemmas 5 and 6), in the order of a depth-first
        run (x_j = 1 branch first).
    depth
        None (the paper: grow until pure) or a depth limit d >= 0; a node at depth d that is still
        impure becomes a leaf with its majority label (counted in ``depth_limited_leaves``).

    Returns
    -------
    ID3Result
        the tree, the trace and the counts of empty, exhausted and depth-limited leaves.

    Notes
    -----
    * **Pure node**: all labels equal -> a leaf with that label (the paper's base case).
    * **Split**: j = argmax_{i in A} Gain(S, i); ties go to the smallest index. Gains within
      :data:`GAIN_TIE_TOLERANCE` (1e-12) of the best are ties (:func:`first_best`): gains equal in
      exact arithmetic differ by ~1e-16 after float rounding, which would otherwise send a tie to a
      larger index.
    * **Empty branch** (the paper leaves it undefined): the chosen x_j can be constant on S (its
      gain is then 0, so this happens only when no feature in A has positive gain); the child
      receiving no examples becomes a leaf labelled with the parent's majority label.
    * **Exhausted features** (A empty but labels mixed, possible only when S holds two equal x
      with different labels): a leaf with the majority label of S.
    Majority ties go to label 1. When y is a function of the features, the returned tree
    therefore labels every training example correctly.

    The tree is grown **level by level**: the rows of every open node of a level sit in one
    contiguous block of a reordered, bit-packed copy of X (sorted by node, then label; 64
    features per uint64 word), so the counts of all nodes and features of the level come from
    one segmented sum over the packed words, the gains from one vectorised expression (evaluated a
    block of nodes at a time, in cache) and the children's blocks from one stable partition that
    moves 8 bytes per 64 features of a row. Every node's choice depends
    only on its own counts, so the tree is the one the depth-first recursion of Algorithm 1 builds;
    it is numbered as that recursion numbers it.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.uint8)
    >>> res = id3(X, X[:, 0] ^ X[:, 1])
    >>> res.tree.size, res.tree.depth
    (4, 2)
    """
    X = check_binary_matrix("X", X)
    y = check_labels("y", y, X.shape[0])
    m, n = X.shape
    if m == 0:
        raise ValueError("X must have at least one row (ID3 needs a non-empty sample), got 0 rows")
    max_depth = None if depth is None else check_int("depth", depth, 0)
    C = _impurity(impurity)
    available = np.zeros(n, dtype=bool)
    if features is None:
        available[:] = True
    else:
        A = np.asarray(features, dtype=np.int64).reshape(-1)
        if A.size and (A.min() < 0 or A.max() >= n or np.unique(A).size != A.size):
            raise ValueError(f"features must be distinct indices in [0, {n - 1}], got {list(A)}")
        available[A] = True
    # rows of open nodes: by node, then label
    grown = _grow_levelwise(_pack_rows_of(X, label_order(y)), n, y, available, C, max_depth, trace)
    tree, nodes = _number_depth_first(grown, n, trace)
    return ID3Result(tree, nodes, *grown.leaf_kinds)


@dataclass
class _Grown:
    """A tree grown level by level, in breadth-first ids: feature (-1 leaf), children, values."""

    feature: np.ndarray
    child0: np.ndarray
    child1: np.ndarray
    leaf_value: np.ndarray
    child_value: np.ndarray      # the majority label a split node gives its children at creation
    leaf_kinds: tuple[int, int, int]
    traced: dict[int, tuple[int, int, np.ndarray, np.ndarray, np.ndarray]]
    levels: list[np.ndarray]     # the split nodes of each level, root level first


def label_order(y: np.ndarray) -> np.ndarray:
    """The rows with label 0, then those with label 1, each ascending: the order of the packed rows
    :func:`id3_packed` reads."""
    return np.concatenate([np.flatnonzero(y == 0), np.flatnonzero(y == 1)])


_PACK_CELLS = 1 << 22                     # rows x features of one block packed at a time


def _pack_rows_of(X: np.ndarray, order: np.ndarray) -> np.ndarray:
    """:func:`_pack_rows` of ``X[order]``, a block of rows at a time (no copy of X is made)."""
    m, n = order.size, X.shape[1]
    out = np.zeros((m, 8 * -(-n // 64)), dtype=np.uint8)
    step = max(1, _PACK_CELLS // max(n, 1))
    for s in range(0, m, step):  # loop over blocks of rows; NumPy body
        out[s:s + step, : -(-n // 8)] = np.packbits(X[order[s:s + step]], axis=1, bitorder="little")
    return out.view(np.uint64)


def id3_packed(Xo: np.ndarray, n: int, y: np.ndarray, *, impurity: Impurity = "gini",
               depth: int | None = None) -> ID3Result:
    """:func:`id3` on every feature, from the sample already bit-packed (:func:`_pack_rows` layout,
    64 features per uint64 word) with its rows in :func:`label_order` of ``y``: the same tree, without
    the (m, n) 0/1 matrix (:class:`dtcore.estimators.ID3Classifier` packs binarised blocks directly).
    ``Xo`` is reordered in place, level by level (its rows are left in an unspecified order)."""
    y = check_labels("y", y, Xo.shape[0])
    if Xo.shape[0] == 0:
        raise ValueError("Xo must have at least one row (ID3 needs a non-empty sample), got 0 rows")
    max_depth = None if depth is None else check_int("depth", depth, 0)
    grown = _grow_levelwise(Xo, n, y, np.ones(n, dtype=bool), _impurity(impurity), max_depth, False)
    tree, nodes = _number_depth_first(grown, n, False)
    return ID3Result(tree, nodes, *grown.leaf_kinds)


def _grow_levelwise(Xo: np.ndarray, n: int, y: np.ndarray, available: np.ndarray,
                    C: Callable[[np.ndarray], np.ndarray], max_depth: int | None, trace: bool) -> _Grown:
    """ID3 level by level on the packed rows ``Xo`` (rows in :func:`label_order`) of n features."""
    m = Xo.shape[0]
    words = Xo.shape[1]
    count_dtype = np.int32 if m < 2**31 else np.int64   # counts of rows: half the bytes of int64
    leaf_value: list[np.ndarray] = []          # per node, in breadth-first id order
    splits: list[tuple[np.ndarray, ...]] = []  # per level: (nodes, features, child ids, child value)
    traced: dict[int, tuple] = {}
    empty = exhausted = limited = 0

    # the root
    N_root, ny_root = m, int(y.sum())
    leaf_value.append(np.array([_majority(ny_root, N_root)]))
    if ny_root in (0, N_root):
        leaf_value[0][0] = float(ny_root == N_root)
        open_ids = np.zeros(0, dtype=np.int64)
    elif not available.any():
        exhausted += 1
        open_ids = np.zeros(0, dtype=np.int64)
    elif max_depth == 0:
        limited += 1
        open_ids = np.zeros(0, dtype=np.int64)
    else:
        open_ids = np.zeros(1, dtype=np.int64)
    N = np.array([N_root], dtype=np.int64)
    ny = np.array([ny_root], dtype=np.int64)
    used = np.zeros((1, n), dtype=bool)
    next_id, depth = 1, 0
    counted, derived = 1, None
    while open_ids.size:  # one NumPy body per level
        K = open_ids.size
        seg_len = np.stack([N - ny, ny], axis=1).reshape(2 * K)          # (node, label) blocks
        seg_start = np.concatenate([[0], np.cumsum(seg_len)[:-1]])
        # the first `counted` nodes are summed over their rows; each later one is its parent's
        # sums minus its (counted, smaller) sibling's: the sibling subtraction halves the work
        # counted straight into the level's array (64 columns a word; the first n are the features)
        words_sums = np.empty((2 * K, 64 * words), dtype=count_dtype)
        _segment_bit_sums(Xo, seg_start[:2 * counted], seg_len[:2 * counted], count_dtype,
                          out=words_sums[:2 * counted])
        sums = words_sums[:, :n]
        if counted < K:
            sibling_of, parent_sums = derived          # the parents of the derived nodes, in their order
            below = sums[2 * counted:].reshape(-1, 2, n)
            below[:] = parent_sums
            below -= sums[:2 * counted].reshape(-1, 2, n)[sibling_of]
        derived = None
        # the gains of a block of nodes at a time, so that the float temporaries stay in cache
        j = np.empty(K, dtype=np.int64)
        block = K if trace else max(1, _GAIN_BLOCK // n)
        for start in range(0, K, block):  # loop over blocks of nodes; NumPy body
            nodes = slice(start, start + block)
            n11 = sums[2 * start + 1: 2 * (start + block): 2]
            n1 = sums[2 * start: 2 * (start + block): 2] + n11
            allowed = available[None, :] & ~used[nodes]
            g = _batched_gains(N[nodes], ny[nodes], n1, n11, C)
            np.copyto(g, -np.inf, where=~allowed)   # every open node has an allowed feature
            j[nodes] = first_best(g)
        kk = np.arange(K)
        majority = (2 * ny >= N).astype(np.float64)
        # children (node k, branch b) in the order k, then b
        n11_j = sums[2 * kk + 1, j]
        n1_j = sums[2 * kk, j] + n11_j
        cN = np.stack([N - n1_j, n1_j], axis=1)
        cny = np.stack([ny - n11_j, n11_j], axis=1)
        ids = next_id + np.arange(2 * K).reshape(K, 2)
        next_id += 2 * K
        if trace:
            for k in range(K):  # loop over traced nodes; copies only
                traced[int(open_ids[k])] = (int(N[k]), int(ny[k]), np.where(allowed[k], g[k], np.nan),
                                            n1[k].copy(), n11[k].copy())
        c_used = np.repeat(used, 2, axis=0).reshape(K, 2, n)
        c_used[kk, :, j] = True
        is_empty = cN == 0
        is_pure = ~is_empty & ((cny == 0) | (cny == cN))
        no_features = ~(available[None, None, :] & ~c_used).any(axis=2)
        at_limit = max_depth is not None and depth + 1 >= max_depth
        is_exhausted = ~is_empty & ~is_pure & no_features
        is_limited = ~is_empty & ~is_pure & ~no_features & at_limit
        stays_open = ~is_empty & ~is_pure & ~no_features & (not at_limit)
        empty += int(is_empty.sum())
        exhausted += int(is_exhausted.sum())
        limited += int(is_limited.sum())
        maj_child = np.where(2 * cny >= cN, 1.0, 0.0)
        values = np.where(is_empty, majority[:, None], np.where(is_pure, (cny == cN).astype(float), maj_child))
        leaf_value.append(values.reshape(2 * K))
        splits.append((open_ids, j, ids, majority))
        # next level's nodes: children counted directly first (the smaller of two open siblings,
        # or an only open child), then the derived ones, each in (parent, branch) order
        keep_child = stays_open.reshape(2 * K)
        both = stays_open.all(axis=1)
        larger = (cN[:, 1] > cN[:, 0]).astype(np.int64)          # ties: count the x_j = 0 child
        is_derived = np.zeros((K, 2), dtype=bool)
        is_derived[kk[both], 1 - larger[both]] = True
        is_derived = is_derived.reshape(2 * K)
        next_order = np.concatenate([np.flatnonzero(keep_child & ~is_derived), np.flatnonzero(is_derived)])
        counted_next = int((keep_child & ~is_derived).sum())
        slot = np.full(2 * K, -1, dtype=np.int64)
        slot[next_order] = np.arange(next_order.size)
        derived_children = next_order[counted_next:]
        # only the parents of derived children keep their counts (one derived child per parent)
        derived = (slot[derived_children ^ 1], sums.reshape(-1, 2, n)[derived_children // 2])
        label0_len = (cN - cny).reshape(2 * K)
        # the new block of (segment s = 2k + label, bit b): kept children first, in next_order,
        # then the closed ones (their rows are dropped); within a block the rows keep their order
        child_len = cN.reshape(2 * K)
        closed = np.flatnonzero(~keep_child)
        layout = np.concatenate([next_order, closed])
        child_start = np.zeros(2 * K, dtype=np.int64)
        child_start[layout] = np.concatenate([[0], np.cumsum(child_len[layout])[:-1]])
        kept_rows = int(child_len[next_order].sum())
        seg_child = 2 * np.repeat(kk, 2)[:, None] + np.arange(2)[None, :]        # [s, b] -> child
        new_start = child_start[seg_child] + np.where((np.arange(2 * K) % 2 == 1)[:, None],
                                                      label0_len[seg_child], 0)
        # the row at index r of segment s, with bit b of its split feature and c ones among rows
        # 0..r of the level, goes to new_start[s, 1] + (c - c0(s) - 1) when b = 1 and to
        # new_start[s, 0] + (r - start(s)) - (c - c0(s)) when b = 0, c0(s) = ones before segment s
        rows = int(seg_len.sum())
        feature_of_row = np.repeat(np.repeat(j, 2), seg_len)
        if words == 1:
            bit = (Xo[:, 0] >> feature_of_row.astype(np.uint64)) & np.uint64(1)
        else:
            at = np.arange(rows, dtype=np.int64) * words + (feature_of_row >> 6)
            bit = (Xo.reshape(-1)[at] >> (feature_of_row & 63).astype(np.uint64)) & np.uint64(1)
        bit = bit.view(np.int64)
        ones = np.cumsum(bit)
        ones_at_start = np.concatenate([[0], ones])[seg_start]
        position = np.repeat(new_start[:, 0] - seg_start + ones_at_start, seg_len)
        position += np.arange(rows)
        position -= ones
        to_one = np.repeat(new_start[:, 1] - ones_at_start - 1, seg_len)
        to_one += ones
        np.copyto(position, to_one, where=bit == 1)
        order = np.empty(rows, dtype=np.int64)
        order[position] = np.arange(rows)
        Xo = _keep_rows(Xo, order[:kept_rows])
        open_ids = ids.reshape(2 * K)[next_order]
        N, ny = cN.reshape(2 * K)[next_order], cny.reshape(2 * K)[next_order]
        used = c_used.reshape(2 * K, n)[next_order]
        counted = counted_next
        depth += 1
    feature = np.full(next_id, LEAF, dtype=np.int64)
    child0 = np.full(next_id, -1, dtype=np.int64)
    child1 = np.full(next_id, -1, dtype=np.int64)
    child_value = np.zeros(next_id)
    for nodes, feats, kids, value in splits:  # one NumPy body per level
        feature[nodes], child0[nodes], child1[nodes], child_value[nodes] = feats, kids[:, 0], kids[:, 1], value
    return _Grown(feature, child0, child1, np.concatenate(leaf_value), child_value,
                  (empty, exhausted, limited), traced, [nodes for nodes, *_ in splits])


def _number_depth_first(grown: _Grown, n: int, trace: bool) -> tuple[DecisionTree, list[ID3Node]]:
    """Build the tree from a level-wise run, numbering nodes as the depth-first recursion of
    Algorithm 1 does (a stack; the x_j = 1 child is expanded first, children are numbered when their
    parent splits), with the values that recursion leaves on every node, and fill the trace in
    that order. The numbering needs no walk: a split's position in the recursion's order follows
    from the number of splits in its x_j = 1 sibling subtree, counted bottom-up one level at a time."""
    size = grown.feature.size
    # splits_below[v]: split nodes in the subtree of v, summed bottom-up one level at a time
    splits_below = np.zeros(size, dtype=np.int64)
    for nodes in reversed(grown.levels):  # one NumPy body per level
        splits_below[nodes] = 1 + splits_below[grown.child0[nodes]] + splits_below[grown.child1[nodes]]
    # rank[v]: when the recursion pops split v. The x_j = 1 child comes right after its parent, the
    # x_j = 0 child after the whole x_j = 1 subtree; the k-th popped split numbers its children 2k+1, 2k+2.
    rank = np.zeros(size, dtype=np.int64)
    for nodes in grown.levels:  # one NumPy body per level
        rank[grown.child1[nodes]] = rank[nodes] + 1
        rank[grown.child0[nodes]] = rank[nodes] + 1 + splits_below[grown.child1[nodes]]
    split = np.concatenate([np.zeros(0, dtype=np.int64), *grown.levels])
    split = split[np.argsort(rank[split], kind="stable")]
    new = np.zeros(size, dtype=np.int64)
    new[grown.child0[split]] = 2 * np.arange(split.size) + 1
    new[grown.child1[split]] = 2 * np.arange(split.size) + 2
    f = np.full(size, LEAF, dtype=np.int64)
    k0 = np.full(size, -1, dtype=np.int64)
    k1 = np.full(size, -1, dtype=np.int64)
    value = np.zeros(size)
    f[new[split]] = grown.feature[split]
    k0[new[split]] = new[grown.child0[split]]
    k1[new[split]] = new[grown.child1[split]]
    # a node is created with its parent's majority label; a leaf ends with its own value
    value[new[grown.child0[split]]] = grown.child_value[split]
    value[new[grown.child1[split]]] = grown.child_value[split]
    leaves = grown.feature == LEAF
    value[new[leaves]] = grown.leaf_value[leaves]
    tree = DecisionTree.from_arrays(n, f, k0, k1, value)
    nodes: list[ID3Node] = []
    if trace:
        for b in split.tolist():  # one trace entry per split, in the recursion's order
            N, ny, g, n1, n11 = grown.traced[b]
            node = int(new[b])
            nodes.append(ID3Node(node, tree.restriction(node), N, ny, g,
                                 n11 / N - (ny / N) * (n1 / N), int(grown.feature[b])))
    return tree, nodes


