"""Stochastic decision trees (Blanc–Lange–Tan, ICALP 2021): sampling, mu_T, Bayes optimum, Lemma 2.1.

A stochastic tree (:class:`~dtcore.tree.DecisionTree` with ``split_stochastic`` nodes) labels x by
a random T(x); its *mean function* is mu_T(x) = Pr[T(x) = 1]. The Bayes-optimal classifier is
round(mu_T) with round(t) = 1[t >= 1/2], and opt_T = E_x[min(mu_T, 1 - mu_T)] is its error
(Fact 1.1: no hypothesis does better). Everything here is exact on the cube (n <= 20 or so),
except :func:`sample`, which draws labelled examples.
"""

from __future__ import annotations

import math

import numpy as np

from .cube import ProductDistribution, all_points, table_variables
from .tree import LEAF, STOCHASTIC, DecisionTree
from .validate import check_int, check_real, check_rng


def _check_tree(tree: object) -> DecisionTree:
    if not isinstance(tree, DecisionTree):
        raise ValueError(f"tree must be a DecisionTree, got {type(tree).__name__}")
    return tree


def random_stochastic_tree(n: int, size: int, n_stochastic: int, *, rng: np.random.Generator,
                           max_depth: int | None = None, q_low: float = 0.1) -> DecisionTree:
    """A random stochastic tree with ``size`` leaves, ``n_stochastic`` of its internal nodes coins.

    Blanc–Lange–Tan 2021, Sec. 1 (Figure 1 shows one). The tree grows by splitting a uniformly
    chosen open leaf; the splits that are coins are a uniform ``n_stochastic``-subset of the
    ``size - 1`` splits and branch with q ~ Uniform[q_low, 1 - q_low]; the others query a uniform
    variable not on the path. ``max_depth`` caps the number of *queries* on a path. Leaf labels
    are random 0/1 with the two leaves below one node always different (no node is redundant).
    """
    n = check_int("n", n, 1)
    max_depth = n if max_depth is None else check_int("max_depth", max_depth, 1, n)
    size = check_int("size", size, 1)
    n_stochastic = check_int("n_stochastic", n_stochastic, 0, size - 1)
    q_low = check_real("q_low", q_low, 0.0, 0.5, low_open=False)
    rng = check_rng(rng)
    coin_steps = set(rng.choice(size - 1, size=n_stochastic, replace=False).tolist()) if size > 1 else set()
    if size - n_stochastic > 2**max_depth:
        raise ValueError(f"size - n_stochastic must be at most 2^max_depth = {2**max_depth}, "
                         f"got {size - n_stochastic}")
    tree = DecisionTree(n)
    open_leaves = [0]
    for step in range(size - 1):  # loop over splits (tree nodes), not samples
        if step in coin_steps:
            candidates = open_leaves
        else:
            candidates = [v for v in open_leaves if (tree.restriction(v) >= 0).sum() < max_depth]
            if not candidates:
                raise ValueError(f"max_depth = {max_depth} leaves no room for {size} leaves")
        leaf = candidates[int(rng.integers(len(candidates)))]
        open_leaves.remove(leaf)
        if step in coin_steps:
            c0, c1 = tree.split_stochastic(leaf, float(rng.uniform(q_low, 1.0 - q_low)))
        else:
            free = np.flatnonzero(tree.restriction(leaf) < 0)
            c0, c1 = tree.split(leaf, int(rng.choice(free)))
        open_leaves += [c0, c1]
    labels = rng.integers(0, 2, size=tree.node_count)
    for node, f in enumerate(tree.feature):  # sibling leaves get different labels
        c0, c1 = tree.child0[node], tree.child1[node]
        if f != LEAF and tree.feature[c0] == LEAF and tree.feature[c1] == LEAF:
            labels[c1] = 1 - labels[c0]
    for leaf in tree.leaves():
        tree.set_value(leaf, float(labels[leaf]))
    return tree


# mu_T is a sum over leaves of products of branch probabilities; in floating point the sum can
# leave [0, 1] by a few ulps (1.0000000000000002 on a deep tree). Excursions up to this size are
# rounding and are clipped; anything larger is a real error and raises.
ROUNDING_TOLERANCE = 1e-9


def clip_probabilities(mu: np.ndarray, name: str = "mu") -> np.ndarray:
    """``mu`` clipped to [0, 1] if it leaves that interval by at most ``ROUNDING_TOLERANCE``.

    A larger excursion (or a NaN) is not rounding but a bug, and raises ``ValueError``.
    """
    mu = np.asarray(mu, dtype=np.float64)
    if mu.size == 0:
        return mu
    if np.isnan(mu).any():
        raise ValueError(f"{name} must take values in [0, 1], got NaN")
    low, high = float(mu.min()), float(mu.max())
    if low < -ROUNDING_TOLERANCE or high > 1.0 + ROUNDING_TOLERANCE:
        raise ValueError(f"{name} must take values in [0, 1] (up to rounding {ROUNDING_TOLERANCE:g}), "
                         f"got values in [{low!r}, {high!r}]")
    return np.clip(mu, 0.0, 1.0)


def mean_table(tree: DecisionTree) -> np.ndarray:
    """mu_T on every point of the cube (truth-table order), exactly: Pr[T(x) = 1], in [0, 1].

    Floating-point rounding of the path products is clipped (:func:`clip_probabilities`), so the
    result always lies in [0, 1] and round(mu_T) is well defined (Sec. 1.3).
    """
    tree = _check_tree(tree)
    return clip_probabilities(tree.predict_proba(all_points(tree.n)), "mu_T")


def mean_table_by_coins(tree: DecisionTree, max_coins: int = 16) -> np.ndarray:
    """mu_T on the cube by enumerating every outcome of the coins (an independent computation).

    mu_T(x) = sum over coin outcomes r of Pr[r] * value of the leaf that x reaches in T(., r),
    where Pr[r] multiplies q (1-branch) or 1 - q (0-branch) over the coins that r sets; coins off
    x's path are summed out exactly because their two branches add to 1. Exponential in the
    number of coins (at most ``max_coins``): a check for :func:`mean_table`, not a replacement.
    """
    tree = _check_tree(tree)
    max_coins = check_int("max_coins", max_coins, 0, 30)
    coins = [v for v in range(tree.node_count) if tree.feature[v] == STOCHASTIC]
    if len(coins) > max_coins:
        raise ValueError(f"tree must have at most max_coins = {max_coins} coin nodes, got {len(coins)}")
    points = all_points(tree.n)
    total = np.zeros(points.shape[0])
    for outcome in range(2 ** len(coins)):  # loop over coin outcomes; NumPy body over the cube
        bits = {v: (outcome >> i) & 1 for i, v in enumerate(coins)}
        prob = 1.0
        for v, b in bits.items():
            prob *= tree.branch_prob[v] if b else 1.0 - tree.branch_prob[v]
        node = np.zeros(points.shape[0], dtype=np.int64)
        for _ in range(tree.node_count):  # at most node_count steps down any path
            feature = np.asarray(tree.feature)[node]
            internal = feature != LEAF
            if not internal.any():
                break
            go_right = np.zeros(points.shape[0], dtype=bool)
            query = internal & (feature >= 0)
            go_right[query] = points[query, feature[query]] == 1
            for v, b in bits.items():
                go_right[node == v] = bool(b)
            nxt = np.where(go_right, np.asarray(tree.child1)[node], np.asarray(tree.child0)[node])
            node = np.where(internal, nxt, node)
        total += prob * np.asarray(tree.value, dtype=np.float64)[node]
    return total


def sample(tree: DecisionTree, m: int, *, rng: np.random.Generator,
           dist: ProductDistribution | None = None) -> tuple[np.ndarray, np.ndarray]:
    """m labelled examples (x, T(x)) with x uniform (or from ``dist``) and the coins of T fresh."""
    tree = _check_tree(tree)
    m = check_int("m", m, 0)
    rng = check_rng(rng)
    dist = ProductDistribution.uniform(tree.n) if dist is None else dist
    X = dist.sample(m, rng=rng)
    return X, tree.predict(X, rng=rng)


def bayes_optimal(mu: np.ndarray) -> np.ndarray:
    """round(mu) with round(t) = 1[t >= 1/2]: the Bayes-optimal classifier (Sec. 1.3)."""
    mu = clip_probabilities(mu, "mu")
    return (mu >= 0.5).astype(np.uint8)


def error(mu: np.ndarray, h: np.ndarray) -> float:
    """error_T(h) = E_x[Pr[h(x) != T(x)]] under the uniform measure, exactly.

    ``mu`` is mu_T on the cube; ``h`` is a hypothesis on the cube, either 0/1 or a stochastic one
    given by Pr[h(x) = 1] in [0, 1] (coins of h independent of T).
    """
    mu = clip_probabilities(mu, "mu")
    h = np.asarray(h, dtype=np.float64)
    table_variables(mu, "mu")
    if h.shape != mu.shape:
        raise ValueError(f"h must have shape {mu.shape} like mu, got {h.shape}")
    h = clip_probabilities(h, "h")
    return float(np.mean(mu * (1.0 - h) + (1.0 - mu) * h))


def opt(mu: np.ndarray) -> float:
    """opt_T = error_T(round(mu_T)) = E_x[min(mu_T, 1 - mu_T)] (Fact 1.1)."""
    mu = np.asarray(mu, dtype=np.float64)
    return error(mu, bayes_optimal(mu))


def fix_coins(tree: DecisionTree, *, rng: np.random.Generator) -> DecisionTree:
    """T(., r): the deterministic tree obtained by drawing every coin of T once (Lemma 2.1's r).

    Fractional leaf values are drawn too, so the result is an ordinary 0/1 tree of size <= size(T).
    """
    tree = _check_tree(tree)
    rng = check_rng(rng)
    bits = rng.random(tree.node_count)
    out = DecisionTree(tree.n)
    stack = [(0, 0)]
    while stack:  # loop over nodes
        src, dst = stack.pop()
        while tree.feature[src] == STOCHASTIC:
            src = tree.child1[src] if bits[src] < tree.branch_prob[src] else tree.child0[src]
        f = tree.feature[src]
        if f == LEAF:
            out.set_value(dst, float(bits[src] < tree.value[src]))
        else:
            c0, c1 = out.split(dst, f)
            stack += [(tree.child0[src], c0), (tree.child1[src], c1)]
    return out


def stack_trees(copies: list[DecisionTree]) -> DecisionTree:
    """The stochastic-leaf tree of Lemma 2.1: stack c deterministic trees, leaves get p_l = mean.

    Each leaf of copy i is replaced by copy i + 1, restricted to the path so far (a variable
    already fixed on the path is not queried again: its branch is followed). A final leaf l
    holds p_l = average over the copies of their labels at l, i.e. a stochastic leaf (written as
    a leaf with Pr[label = 1] = p_l, equivalent to a coin node above a 1-leaf and a 0-leaf).
    Its size is at most prod_i size(copy_i) <= s^c.
    """
    if not copies:
        raise ValueError("copies must hold at least one tree, got none")
    n = copies[0].n
    for t in copies:
        if _check_tree(t).n != n or not t.is_deterministic:
            raise ValueError("copies must be deterministic DecisionTrees on the same n variables")
    out = DecisionTree(n)
    c = len(copies)
    # work items: (node in out, copy index, node in that copy, sum of labels of finished copies)
    stack = [(0, 0, 0, 0.0)]
    while stack:  # loop over nodes of the stacked tree
        dst, i, src, total = stack.pop()
        t = copies[i]
        restriction = out.restriction(dst)
        while t.feature[src] != LEAF and restriction[t.feature[src]] >= 0:
            src = t.child1[src] if restriction[t.feature[src]] == 1 else t.child0[src]
        if t.feature[src] == LEAF:
            total += t.value[src]
            if i + 1 == c:
                out.set_value(dst, total / c)
            else:
                stack.append((dst, i + 1, 0, total))
        else:
            c0, c1 = out.split(dst, t.feature[src])
            stack += [(c0, i, t.child0[src], total), (c1, i, t.child1[src], total)]
    return out


def stochastic_leaf_approximation(tree: DecisionTree, c: int, *, rng: np.random.Generator,
                                  ) -> tuple[DecisionTree, list[DecisionTree]]:
    """Lemma 2.1: draw c copies T(., r_i) and stack them into a stochastic-leaf tree.

    Blanc–Lange–Tan 2021, Lemma 2.1 (c = 1/eps^2 gives E_r E_x|est - mu_T| <= eps / 2, so some
    draw achieves it; the bound is :func:`dtcore.bounds.blt21_lemma21_expected_l1`). Returns
    (stacked tree, the c copies); mu of the stacked tree equals the average of the copies' truth
    tables.
    """
    tree = _check_tree(tree)
    c = check_int("c", c, 1)
    rng = check_rng(rng)
    copies = [fix_coins(tree, rng=rng) for _ in range(c)]
    return stack_trees(copies), copies


def copies_mean_deviation(mu: np.ndarray, c: int) -> np.ndarray:
    """E_r |mean of T(x, r_1), ..., T(x, r_c) - mu_T(x)| for each value mu_T(x), exactly.

    The c copies of Lemma 2.1's proof (Blanc–Lange–Tan 2021) label x independently, each 1 with
    probability mu = mu_T(x): their mean is Binomial(c, mu) / c, and this is its mean absolute
    deviation, a sum over the c + 1 outcomes (vectorised over ``mu``).
    """
    mu = clip_probabilities(mu, "mu")
    c = check_int("c", c, 1, 10_000)
    k = np.arange(c + 1, dtype=np.float64)
    log_choose = math.lgamma(c + 1) - np.array([math.lgamma(j + 1) + math.lgamma(c - j + 1) for j in range(c + 1)])
    m = mu.reshape(-1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_pmf = log_choose + k * np.log(m) + (c - k) * np.log1p(-m)
    pmf = np.where(np.isnan(log_pmf), 0.0, np.exp(log_pmf))  # 0 * log 0 at mu in {0, 1}
    pmf[(m[:, 0] == 0.0), 0] = 1.0
    pmf[(m[:, 0] == 1.0), c] = 1.0
    return (pmf * np.abs(k / c - m)).sum(axis=1).reshape(mu.shape)


def deterministic_depths(tree: DecisionTree) -> np.ndarray:
    """Number of variable queries (not coins) on the path to each leaf, in ``leaves()`` order."""
    tree = _check_tree(tree)
    return (tree.leaf_restrictions() >= 0).sum(axis=1)


def truncate_deterministic_depth(tree: DecisionTree, k: int) -> DecisionTree:
    """T': T with every leaf of deterministic depth > k relabelled 0 (proof of Proposition 5.1).

    mu_{T'} is a polynomial of degree <= k with values in [0, 1] that differs from mu_T only on
    inputs that can reach a deep leaf (fraction <= s 2^-k).
    """
    tree = _check_tree(tree)
    k = check_int("k", k, 0)
    out = tree.copy()
    for leaf, depth in zip(out.leaves(), deterministic_depths(out)):
        if depth > k:
            out.set_value(leaf, 0.0)
    return out


__all__ = ["random_stochastic_tree", "mean_table", "mean_table_by_coins", "sample", "bayes_optimal", "error", "opt",
           "fix_coins", "stack_trees", "stochastic_leaf_approximation", "clip_probabilities",
           "deterministic_depths", "truncate_deterministic_depth", "copies_mean_deviation"]
