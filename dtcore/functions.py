"""Target families on {0,1}^n, each a vectorised function of an ``(m, n)`` 0/1 array.

Use :func:`dtcore.cube.truth_table` to tabulate one, e.g. ``truth_table(lambda X: majority(X), n)``.
Random decision trees are returned as :class:`~dtcore.tree.DecisionTree` objects.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

from .validate import check_binary_matrix, check_int, check_rng, check_tree_budget
from .cube import truth_table
from .tree import DecisionTree


def _columns(X: np.ndarray, variables: Sequence[int] | None) -> tuple[np.ndarray, np.ndarray]:
    X = check_binary_matrix("X", X)
    n = X.shape[1]
    if variables is None:
        return X, np.arange(n)
    v = np.asarray(variables, dtype=np.int64).reshape(-1)
    if v.size == 0 or v.min() < 0 or v.max() >= n or np.unique(v).size != v.size:
        raise ValueError(f"variables must be distinct indices in [0, {n - 1}], got {list(v)}")
    return X, v


def majority(X: np.ndarray, variables: Sequence[int] | None = None) -> np.ndarray:
    """Maj: 1 when more than half of the chosen variables are 1 (monotone)."""
    X, v = _columns(X, variables)
    return (2 * X[:, v].sum(axis=1, dtype=np.int64) > v.size).astype(np.uint8)


def threshold(X: np.ndarray, weights: Sequence[float], theta: float) -> np.ndarray:
    """Linear threshold: 1 when sum_i w_i x_i >= theta (monotone when every w_i >= 0)."""
    X = check_binary_matrix("X", X)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (X.shape[1],):
        raise ValueError(f"weights must have length n = {X.shape[1]}, got shape {w.shape}")
    if not np.isfinite(w).all():
        raise ValueError(f"weights must be finite real numbers, got {w.tolist()}")
    if isinstance(theta, bool) or not isinstance(theta, numbers.Real) or math.isnan(theta):
        raise ValueError(f"theta must be a real number (not NaN), got {theta!r}")
    return (X @ w >= theta).astype(np.uint8)


def parity(X: np.ndarray, variables: Sequence[int] | None = None) -> np.ndarray:
    """chi_J: the XOR of the chosen variables."""
    X, v = _columns(X, variables)
    return (X[:, v].sum(axis=1, dtype=np.int64) & 1).astype(np.uint8)


def tribes(X: np.ndarray, width: int, n_tribes: int | None = None) -> np.ndarray:
    """Tribes: OR over disjoint blocks of ``width`` consecutive variables of their AND (monotone)."""
    X = check_binary_matrix("X", X)
    width = check_int("width", width, 1, X.shape[1])
    max_tribes = X.shape[1] // width
    n_tribes = max_tribes if n_tribes is None else check_int("n_tribes", n_tribes, 1, max_tribes)
    blocks = X[:, : width * n_tribes].reshape(X.shape[0], n_tribes, width)
    return blocks.all(axis=2).any(axis=1).astype(np.uint8)


def address(X: np.ndarray, n_address: int) -> np.ndarray:
    """Multiplexer: the first k bits address one of the next 2^k data bits, which is the output."""
    X = check_binary_matrix("X", X)
    k = check_int("n_address", n_address, 1, max(1, X.shape[1].bit_length()))
    if k + 2**k > X.shape[1]:
        raise ValueError(f"n_address = {k} needs n >= {k + 2**k} variables, got n = {X.shape[1]}")
    a = X[:, :k].astype(np.int64) @ (1 << np.arange(k))
    return X[np.arange(X.shape[0]), k + a].astype(np.uint8)


def random_tree(n: int, size: int, *, rng: np.random.Generator, max_depth: int | None = None) -> DecisionTree:
    """A random decision tree with exactly ``size`` leaves.

    Grows by splitting a uniformly chosen leaf (with depth below ``max_depth``) on a uniformly
    chosen variable not yet on its path. Leaf labels are random, except that two sibling leaves
    always get different labels so that no split is redundant at the bottom level.
    """
    n = check_int("n", n, 1)
    max_depth = n if max_depth is None else check_int("max_depth", max_depth, 1, n)
    size = check_int("size", size, 1, 2**max_depth)
    check_tree_budget(f"random_tree(size={size})", 2 * size - 1, n, "ask for fewer leaves")
    rng = check_rng(rng)
    tree = DecisionTree(n)
    open_leaves = [0]
    while tree.size < size:
        pos = int(rng.integers(len(open_leaves)))
        leaf = open_leaves.pop(pos)
        free = np.flatnonzero(tree.restriction(leaf) < 0)
        c0, c1 = tree.split(leaf, int(rng.choice(free)))
        open_leaves += [c for c in (c0, c1) if tree.node_depth[c] < max_depth]
    _label_siblings_apart(tree, rng=rng)
    return tree


def random_tree_of_depth(n: int, depth: int, *, rng: np.random.Generator) -> DecisionTree:
    """A complete tree of the given depth, random distinct variables on each path, random labels."""
    n = check_int("n", n, 1)
    depth = check_int("depth", depth, 1, n)
    check_tree_budget(f"a complete tree of depth {depth}", 2 ** (depth + 1) - 1, n, "ask for a smaller depth")
    return random_tree(n, 2**depth, rng=check_rng(rng), max_depth=depth)


def _label_siblings_apart(tree: DecisionTree, *, rng: np.random.Generator) -> None:
    leaves = set(tree.leaves())
    labels = rng.integers(0, 2, size=tree.node_count)
    for node, f in enumerate(tree.feature):
        c0, c1 = tree.child0[node], tree.child1[node]
        if f >= 0 and c0 in leaves and c1 in leaves:
            labels[c1] = 1 - labels[c0]
    for leaf in leaves:
        tree.set_value(leaf, float(labels[leaf]))


# --- Chapter 1 (Blanc–Lange–Tan 2020): targets that fool BuildTopDownDT (our constructions) ---

def nested_decoy_parity(X: np.ndarray, k: int, t: int) -> np.ndarray:
    """Nested decoy parities F_t (our construction for the BLT 2020 lower bound, exact learning).

    F_0 = XOR of x_0..x_{k-1}; level j = 1..t reads the next k + 2 variables (a_j, b_j, then a
    block x^(j) of k decoys) and outputs F_{j-1} if a_j = b_j = 1, else XOR(x^(j)). Needs
    n >= k + t (k + 2) variables (the rest are ignored). An explicit tree of size (2t + 1) 2^k
    queries a_t, b_t first; each decoy has influence 3/4 against 1/4 for a_t, b_t, so the
    influence heuristic queries the decoys first and rebuilds F_{t-1} under each of their 2^k
    settings.
    """
    X = check_binary_matrix("X", X)
    k = check_int("k", k, 1)
    t = check_int("t", t, 0)
    need = k + t * (k + 2)
    if X.shape[1] < need:
        raise ValueError(f"nested_decoy_parity with k = {k}, t = {t} needs n >= {need} variables, got n = {X.shape[1]}")
    f = X[:, :k].sum(axis=1) & 1
    pos = k
    for _ in range(t):  # one level per decoy block; the body is vectorised over the points
        a, b = X[:, pos], X[:, pos + 1]
        decoy = X[:, pos + 2: pos + 2 + k].sum(axis=1) & 1
        f = np.where((a == 1) & (b == 1), f, decoy)
        pos += 2 + k
    return f.astype(np.uint8)


def nested_decoy_parity_size(k: int, t: int) -> int:
    """Leaves of the explicit tree for :func:`nested_decoy_parity`: (2t + 1) 2^k."""
    return (2 * check_int("t", t, 0) + 1) * 2 ** check_int("k", k, 1)


def decoy_selector_parity(X: np.ndarray, k: int, t: int) -> np.ndarray:
    """Decoy parities behind a two-way selector (our construction for BLT 2020's lower bound at constant eps).

    F_0 = 0. Level j = 1..t reads the next k + 3 variables: a block d^(j) of k decoys, then the
    selector bits a_j, c_j, e_j. It outputs XOR(d^(j)) on the decoy region
    R_j = {a_j = 0, c_j = 0} or {a_j = 1, e_j = 0} (probability 1/2) and F_{j-1} elsewhere. No
    selector bit is fixed on all of R_j, so every selector bit has influence 1/4 while every decoy
    has influence Pr[R_j] = 1/2 and every variable of F_{j-1} at most 1/4: the influence heuristic
    strictly prefers the decoys, with no help from tie-breaking. Needs n >= t (k + 3).
    """
    X = check_binary_matrix("X", X)
    k = check_int("k", k, 1)
    t = check_int("t", t, 0)
    need = t * (k + 3)
    if X.shape[1] < need:
        raise ValueError(f"decoy_selector_parity with k = {k}, t = {t} needs n >= {need} variables, got n = {X.shape[1]}")
    f = np.zeros(X.shape[0], dtype=np.int64)
    pos = 0
    for _ in range(t):  # one level per block; the body is vectorised over the points
        decoy = X[:, pos: pos + k].sum(axis=1) & 1
        a, c, e = X[:, pos + k], X[:, pos + k + 1], X[:, pos + k + 2]
        in_decoy_region = np.where(a == 0, c == 0, e == 0)
        f = np.where(in_decoy_region, decoy, f)
        pos += k + 3
    return f.astype(np.uint8)


def decoy_selector_parity_size(k: int, t: int) -> int:
    """Leaves of :func:`decoy_selector_parity_tree`: s_0 = 1, s_j = 2 * 2^k + 2 s_{j-1}."""
    k, t = check_int("k", k, 1), check_int("t", t, 0)
    s = 1
    for _ in range(t):
        s = 2 * 2**k + 2 * s
    return s


def decoy_selector_parity_tree(n: int, k: int, t: int) -> DecisionTree:
    """The explicit tree for :func:`decoy_selector_parity`: selectors first, each F_{j-1} built twice.

    Level t queries a_t, then c_t (if a_t = 0) or e_t (if a_t = 1); on the decoy region it computes
    XOR(d^(t)) with a complete tree of 2^k leaves, elsewhere it recurses into F_{t-1}.
    """
    n = check_int("n", n, 1)
    k, t = check_int("k", k, 1), check_int("t", t, 0)
    if n < t * (k + 3):
        raise ValueError(f"n must be >= {t * (k + 3)} for k = {k}, t = {t}, got n = {n}")
    check_tree_budget(f"decoy_selector_parity_tree(k={k}, t={t})", 2 * decoy_selector_parity_size(k, t) - 1, n,
                      "use a smaller k or t")
    tree = DecisionTree(n)

    def parity_below(node: int, variables: range) -> None:
        leaves, parities = [node], [0]
        for v in variables:  # complete tree on the block, one level per variable
            nxt, nxt_par = [], []
            for leaf, par in zip(leaves, parities):
                c0, c1 = tree.split(leaf, v)
                nxt += [c0, c1]
                nxt_par += [par, par ^ 1]
            leaves, parities = nxt, nxt_par
        for leaf, par in zip(leaves, parities):
            tree.set_value(leaf, float(par))

    def level(node: int, j: int) -> None:
        if j == 0:
            tree.set_value(node, 0.0)
            return
        pos = (j - 1) * (k + 3)
        decoys = range(pos, pos + k)
        a0, a1 = tree.split(node, pos + k)
        for side, selector in ((a0, pos + k + 1), (a1, pos + k + 2)):
            d, g = tree.split(side, selector)
            parity_below(d, decoys)
            level(g, j - 1)

    level(0, t)
    return tree


# --- Appendix D targets of Moakhar et al. 2026: balanced and path (chain) trees -------------

def balanced_tree(n: int, depth: int, *, rng: np.random.Generator) -> DecisionTree:
    """A full (balanced) tree of the given depth: 2^depth leaves (Moakhar et al. 2026, App. D/E.1).

    Every internal node queries a random variable not yet on its path; sibling leaves get
    different labels, the rest are random. D(T) = depth and Delta(T) = depth under every mu.
    """
    return random_tree_of_depth(n, depth, rng=rng)


def path_tree(n: int, leaves: int, *, rng: np.random.Generator,
              exit_sides: Sequence[int] | None = None) -> DecisionTree:
    """A path (chain, comb) tree with ``leaves`` leaves (Moakhar et al. 2026, App. D/E.2).

    The root queries a random variable; one child is a leaf (the *exit*), the other continues
    with a fresh variable, ``leaves - 1`` queries in all, the last one with two leaves. Exit
    sides are random bits unless ``exit_sides`` (length ``leaves - 1``) gives them; labels
    alternate along the chain, so every query matters. D(T) = leaves - 1, while Delta(T) stays
    bounded when the exits are likely (Appendix E.2).
    """
    n = check_int("n", n, 1)
    leaves = check_int("leaves", leaves, 2, n + 1)
    check_tree_budget(f"path_tree(leaves={leaves})", 2 * leaves - 1, n, "ask for fewer leaves")
    rng = check_rng(rng)
    k = leaves - 1
    if exit_sides is None:
        sides = rng.integers(0, 2, size=k)
    else:
        sides = np.asarray(exit_sides, dtype=np.int64).reshape(-1)
        if sides.shape != (k,) or not np.isin(sides, (0, 1)).all():
            raise ValueError(f"exit_sides must be {k} bits (one per query), got {list(sides)}")
    variables = rng.permutation(n)[:k]
    first = int(rng.integers(0, 2))
    tree = DecisionTree(n)
    node = 0
    for d in range(k):  # one query per level of the chain
        c0, c1 = tree.split(node, int(variables[d]))
        exit_leaf, cont = (c0, c1) if sides[d] == 0 else (c1, c0)
        tree.set_value(exit_leaf, float((first + d) % 2))
        tree.set_value(cont, float((first + d + 1) % 2))
        node = cont
    return tree


# --- juntas and k-parities (Brutzkus–Daniely–Malach, COLT 2020) -----------------------------

def junta(X: np.ndarray, variables: Sequence[int], table: np.ndarray) -> np.ndarray:
    """The k-junta f(x) = f~(x_J): ``table`` is f~'s truth table on the k = |J| chosen variables
    (bit t of its index is x_{variables[t]}) (BDM 2020, Sec. 1.1)."""
    X, v = _columns(X, variables)
    t = np.asarray(table)
    if t.shape != (2**v.size,) or not np.isin(t, (0, 1)).all():
        raise ValueError(f"table must be a 0/1 array of length 2^k = {2**v.size}, got shape {t.shape}")
    idx = X[:, v].astype(np.int64) @ (np.int64(1) << np.arange(v.size, dtype=np.int64))
    return t.astype(np.uint8)[idx]


def parity_table(k: int) -> np.ndarray:
    """Truth table of chi_[k] on k variables (1 when an odd number of bits are 1)."""
    return truth_table(parity, check_int("k", k, 1, 26))


def random_junta(n: int, k: int, *, rng: np.random.Generator,
                 kind: str = "random") -> tuple[np.ndarray, np.ndarray]:
    """A random k-junta on n variables: (J sorted, truth table of f~ on J) (BDM 2020).

    J is a uniform k-subset of [n]. ``kind="random"``: f~ uniform among the functions on k bits
    that depend on every one of them (rejection sampling; each try is one NumPy draw);
    ``kind="parity"``: f~ = chi_J, the k-parity. Requires 1 <= k <= n.
    """
    n = check_int("n", n, 1)
    k = check_int("k", k, 1, n)
    rng = check_rng(rng)
    if kind not in ("random", "parity"):
        raise ValueError(f"kind must be 'random' or 'parity', got {kind!r}")
    J = np.sort(rng.choice(n, size=k, replace=False)).astype(np.int64)
    if kind == "parity":
        return J, parity_table(k)
    idx = np.arange(2**k)
    while True:  # a uniformly random table depends on all k bits with probability > 1/2
        t = rng.integers(0, 2, size=2**k).astype(np.uint8)
        if all((t != t[idx ^ (1 << i)]).any() for i in range(k)):
            return J, t


def junta_tree(n: int, variables: Sequence[int], table: np.ndarray) -> DecisionTree:
    """The complete depth-k DecisionTree computing the junta (query J in order, leaves from table)."""
    n = check_int("n", n, 1)
    v = np.asarray(variables, dtype=np.int64).reshape(-1)
    if v.size == 0 or v.min() < 0 or v.max() >= n or np.unique(v).size != v.size:
        raise ValueError(f"variables must be distinct indices in [0, {n - 1}], got {list(v)}")
    t = np.asarray(table)
    if t.shape != (2**v.size,) or not np.isin(t, (0, 1)).all():
        raise ValueError(f"table must be a 0/1 array of length 2^k = {2**v.size}, got shape {t.shape}")
    tree = DecisionTree(n)
    level = [(0, 0)]  # (node, index bits so far)
    for depth, var in enumerate(v):  # one level per junta variable
        nxt = []
        for node, idx in level:
            c0, c1 = tree.split(node, int(var))
            nxt += [(c0, idx), (c1, idx | (1 << depth))]
        level = nxt
    for node, idx in level:
        tree.set_value(node, float(t[idx]))
    return tree


def random_monotone_tree(n: int, size: int, *, rng: np.random.Generator,
                         max_depth: int | None = None) -> DecisionTree:
    """A random decision tree of at most ``size`` leaves computing a monotone (non-decreasing) function.

    The shape and variables are those of :func:`random_tree`. The labels make the function
    monotone: leaf l precedes leaf l' when some x reaching l with x_i = 0 reaches l' once x_i is
    set to 1 (restrictions compatible off i, rho_i != 1, rho'_i != 0). Each leaf gets a random
    weight; a leaf is labelled 1 when the total weight of the leaves below it in the transitive
    closure of this order reaches the weighted median, so labels only increase along the order
    and f(x) <= f(x + e_i). Used as a monotone target family in chapter 2 (Blanc–Gupta–Lange–Tan
    2020 assume monotone targets); opt_s = 0 for it.
    """
    tree = random_tree(n, size, rng=rng, max_depth=max_depth)
    R = tree.leaf_restrictions().astype(np.int64)  # (L, n)
    L = R.shape[0]
    a, b = R[:, None, :], R[None, :, :]
    conflict = ((a == 0) & (b == 1)) | ((a == 1) & (b == 0))  # (L, L, n)
    n_conflicts = conflict.sum(axis=2)
    # edge l -> l' via variable i: the only conflict (if any) is at i, with rho_i = 0 or free on l
    # and rho'_i = 1 or free on l'
    up_ok = (a != 1) & (b != 0)  # (L, L, n)
    other_conflicts = n_conflicts[:, :, None] - conflict
    edge = (up_ok & (other_conflicts == 0)).any(axis=2)
    closure = edge | np.eye(L, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(L, 2)))) + 1)):  # repeated squaring
        closure = closure | ((closure.astype(np.int64) @ closure.astype(np.int64)) > 0)
    weight = rng.random(L)
    below = closure.T.astype(np.float64) @ weight  # total weight of leaves preceding each leaf
    prob = 2.0 ** -tree.leaf_depths().astype(np.float64)
    order = np.argsort(below, kind="stable")
    cum = np.cumsum(prob[order])
    theta = below[order][min(int(np.searchsorted(cum, 0.5)), L - 1)]
    for leaf, v in zip(tree.leaves(), below >= theta):
        tree.set_value(leaf, float(v))
    return tree


def is_monotone(table: np.ndarray) -> bool:
    """Whether a truth table is non-decreasing in every variable (f(x) <= f(x with x_i = 1))."""
    t = np.asarray(table)
    if t.ndim != 1 or t.size == 0 or t.size & (t.size - 1):
        raise ValueError(f"table must be a 1-D truth table of length 2^n, got shape {t.shape}")
    n = t.size.bit_length() - 1
    k = np.arange(t.size)
    for i in range(n):  # one vectorised comparison per variable
        low = k[(k >> i) & 1 == 0]
        if (t[low] > t[low | (1 << i)]).any():
            return False
    return True


def gated_majority_tree(k: int, n: int | None = None) -> DecisionTree:
    """x_0 = 0 -> 0; x_0 = 1 -> Maj(x_1..x_k), read in order until decided (k odd).

    Under a product measure with Pr[x_0 = 1] = q small the tree has small average depth
    (Delta = 1 + q * Delta(Maj tree)), while the subfunction at the leaf x_0 = 1 is a majority
    with average depth about k. Used in chapter 4 as a counterexample to Lemma 4.4 of
    Moakhar et al. 2026, whose proof assumes Delta(f_leaf) <= Delta_opt.
    """
    k = check_int("k", k, 1)
    if k % 2 == 0:
        raise ValueError(f"k must be odd (a majority without ties), got {k}")
    nodes = 4 * math.comb(k, k // 2 + 1) + 1  # 2 C(k, k//2+1) majority leaves, one x_0 = 0 leaf
    n = k + 1 if n is None else check_int("n", n, k + 1)
    check_tree_budget(f"gated_majority_tree(k={k})", nodes, n, "use a smaller k")
    tree = DecisionTree(n)
    c0, c1 = tree.split(0, 0)
    tree.set_value(c0, 0.0)
    need = k // 2 + 1
    stack = [(c1, 1, 0, 0)]  # node, next variable, ones seen, zeros seen
    while stack:  # one node per iteration (at most 2^k nodes)
        node, v, ones, zeros = stack.pop()
        if ones >= need or zeros >= need:
            tree.set_value(node, float(ones >= need))
            continue
        a, b = tree.split(node, v)
        stack += [(a, v + 1, ones, zeros + 1), (b, v + 1, ones + 1, zeros)]
    return tree


def selector_of_lists(n: int, selectors: int, list_length: int) -> DecisionTree:
    """A complete depth-``selectors`` tree of selector variables whose leaves each run a decision list.

    Our own family for chapter 5's Conjecture 3 section (Brutzkus–Daniely–Malach 2020, Conjecture 3;
    it is *not* the construction of Blanc–Lange–Qiao–Tan 2021). Variables are numbered in order of
    use: the ``2^selectors - 1`` selectors first (breadth first), then, for each selector leaf in
    order, the ``list_length`` variables of its list y_1 ? 1 : (y_2 ? 0 : (y_3 ? 1 : ...)), ending in
    the label of ``list_length`` even. Depth ``selectors + list_length``; every list has the same
    shape, so the target is a junta on ``2^selectors - 1 + 2^selectors * list_length`` variables,
    which must be at most ``n``.
    """
    selectors = check_int("selectors", selectors, 0, 20)
    list_length = check_int("list_length", list_length, 1)
    used = 2**selectors - 1 + 2**selectors * list_length
    n = check_int("n", n, used)
    check_tree_budget(f"selector_of_lists(selectors={selectors}, list_length={list_length})", 2 * used + 1, n,
                      "use fewer selectors or a shorter list_length")
    tree, nxt, level = DecisionTree(n), 0, [0]
    for _ in range(selectors):  # one level of selectors per iteration
        new: list[int] = []
        for node in level:
            new += list(tree.split(node, nxt))
            nxt += 1
        level = new
    for node in level:  # one decision list per selector leaf
        cur = node
        for j in range(list_length):
            c0, c1 = tree.split(cur, nxt)
            nxt += 1
            tree.set_value(c1, float(j % 2 == 0))
            cur = c0
        tree.set_value(cur, float(list_length % 2 == 0))
    return tree
