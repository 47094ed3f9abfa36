"""Nasty noise (Blanc–Lange–Tan 2021, Definition 2; Bshouty–Eiron–Kushilevitz 2002).

An eta-adversary sees the whole clean sample S° = (X, y) and may replace any floor(eta m) of its
examples, both x and label, by anything it likes; the learner sees the result S. Each adversary
here returns a :class:`Corruption` holding S and the mask of replaced rows; each spends its whole
budget, exactly floor(eta m) changed rows (never more: that is checked on the way out, and the
chapter counts the changed rows again itself).

* :func:`random_label_flips` — a baseline: flip the labels of floor(eta m) uniformly chosen rows.
* :func:`find_adversary` — targets FIND: on the leaves of the clean depth-d optimum it flips the
  majority labels of the cheapest leaves until their empirical majority turns, so that FIND on S
  labels those regions wrongly (each flip buys about 2/m of true error, the source of the 2 eta).
* :func:`moving_adversary` — moves examples: takes rows from the largest leaves of the clean
  optimum and re-plants them, with the wrong label, inside the cheapest leaves (x changes).
* :func:`point_mass_adversary` — aims at L2 regression: every replaced row becomes one point x*
  with one label, chosen through the degree-d kernel so that the shifted fit flips round(p) where
  the clean fit is most confident (a leverage attack on the monomial features).
* :func:`subcube_adversary` — aims at L1 regression (a median, robust to a point mass): re-plants
  the rows, with the local minority label, inside the largest subcube of codimension d + 1 whose
  majority the budget can turn.
* :func:`equalizing_adversary` with :func:`indistinguishable_pair` — the information-theoretic
  construction: two targets that differ only on a region R, mu = 1/2 + t and 1/2 - t there, with
  t Pr[R] = eta. The adversary flips labels inside R until half of them are 1, so the corrupted
  samples of the two targets have the same distribution. Whatever h a learner outputs,
  (error_+(h) - opt_+) + (error_-(h) - opt_-) = 2 t Pr[R] = 2 eta: one of the two targets suffers
  excess error >= eta, and 2 eta when h is constant on R (e.g. R is a leaf of a proper learner).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .tree import DecisionTree
from .validate import check_binary_matrix, check_choice, check_int, check_labels, check_real, check_rng


@dataclass
class Corruption:
    """An eta-corrupted sample: the rows the learner sees and which of them the adversary replaced."""

    X: np.ndarray
    y: np.ndarray
    changed: np.ndarray   # bool (m,): row replaced (x and/or label differ from the clean row)
    budget: int           # floor(eta m)

    @property
    def n_changed(self) -> int:
        """Number of rows that differ from the clean sample."""
        return int(self.changed.sum())


def check_eta(eta: object) -> float:
    """eta must lie in [0, 1/2) (Definition 2; at 1/2 the adversary can erase the signal)."""
    return check_real("eta", eta, 0.0, 0.5, low_open=False, high_open=True)


def budget(eta: float, m: int) -> int:
    """floor(eta m): the number of examples an eta-adversary may replace."""
    return int(math.floor(check_eta(eta) * check_int("m", m, 0) + 1e-12))


def _prepare(X: object, y: object, eta: object) -> tuple[np.ndarray, np.ndarray, float, int]:
    X = check_binary_matrix("X", X)
    y = check_labels("y", y, X.shape[0])
    eta = check_eta(eta)
    return X, y, eta, budget(eta, X.shape[0])


def _finish(X: np.ndarray, y: np.ndarray, X2: np.ndarray, y2: np.ndarray, k: int) -> Corruption:
    changed = (X2 != X).any(axis=1) | (y2 != y)
    if changed.sum() > k:  # a guard, not a clip: an adversary over budget is a bug
        raise RuntimeError(f"adversary changed {int(changed.sum())} rows, budget floor(eta m) = {k}")
    return Corruption(X=X2, y=y2, changed=changed, budget=k)


def random_label_flips(X: np.ndarray, y: np.ndarray, eta: float, *, rng: np.random.Generator) -> Corruption:
    """Flip the labels of floor(eta m) uniformly random rows (random classification noise, fixed count)."""
    X, y, eta, k = _prepare(X, y, eta)
    rng = check_rng(rng)
    rows = rng.choice(X.shape[0], size=k, replace=False)
    y2 = y.copy()
    y2[rows] ^= 1
    return _finish(X, y, X.copy(), y2, k)


def _leaf_plan(X: np.ndarray, y: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, DecisionTree]:
    """Leaves of the clean FIND tree: leaf of each row, cost to turn each leaf's majority, and label."""
    from .find import find

    tree = find(X, y, depth=depth).tree
    leaf_ids = tree.apply(X)
    leaves = np.array(tree.leaves())
    pos = np.searchsorted(leaves, leaf_ids)
    n1 = np.bincount(pos, weights=y, minlength=leaves.size)
    n0 = np.bincount(pos, minlength=leaves.size) - n1
    majority = (n1 > n0).astype(np.uint8)
    cost = np.abs(n1 - n0).astype(np.int64) + 1  # flips of majority labels that turn the majority
    return pos, cost, majority, tree


def find_adversary(X: np.ndarray, y: np.ndarray, eta: float, depth: int,
                   *, rng: np.random.Generator) -> Corruption:
    """Flip labels where that moves FIND's empirical optimum most (targets FIND).

    On the leaves of the clean depth-``depth`` optimum, ordered by the number of flips needed to
    turn their empirical majority (cheapest first), flip ceil((margin + 1) / 2) majority labels of
    each leaf while the budget lasts; leftover budget flips majority labels of the next leaf.
    """
    X, y, eta, k = _prepare(X, y, eta)
    depth = check_int("depth", depth, 0)
    rng = check_rng(rng)
    pos, cost, majority, _ = _leaf_plan(X, y, depth)
    y2 = y.copy()
    left = k
    order = np.argsort(cost, kind="stable")
    for leaf in order:  # loop over leaves
        if left == 0:
            break
        need = int(math.ceil(cost[leaf] / 2))
        rows = np.flatnonzero((pos == leaf) & (y == majority[leaf]))
        take = rng.permutation(rows)[: min(need, left, rows.size)]
        y2[take] ^= 1
        left -= take.size
    if left > 0:  # every leaf turned: spend the rest on more majority labels, cheapest leaves first
        rank = np.empty(cost.size, dtype=np.int64)
        rank[order] = np.arange(cost.size)
        untouched = np.flatnonzero(y2 == y)
        wrong_way = (y[untouched] != majority[pos[untouched]]).astype(np.int64)  # minority rows last
        priority = untouched[np.lexsort((rng.random(untouched.size), rank[pos[untouched]], wrong_way))]
        y2[priority[:left]] ^= 1
    return _finish(X, y, X.copy(), y2, k)


def moving_adversary(X: np.ndarray, y: np.ndarray, eta: float, depth: int,
                     *, rng: np.random.Generator) -> Corruption:
    """Move examples: re-plant rows, with the minority label, inside the cheapest leaves.

    The moved rows are taken from the most populous leaves of the clean depth-``depth`` optimum
    (where losing a few barely matters) and get a new x drawn uniformly inside a target leaf
    region plus the label opposite to that leaf's majority. Changes x, not only y.
    """
    X, y, eta, k = _prepare(X, y, eta)
    depth = check_int("depth", depth, 0)
    rng = check_rng(rng)
    pos, cost, majority, tree = _leaf_plan(X, y, depth)
    restrictions = tree.leaf_restrictions()
    counts = np.bincount(pos, minlength=cost.size)
    # donors: rows of the most populous leaves first
    donor_order = np.argsort(-counts[pos], kind="stable")
    X2, y2 = X.copy(), y.copy()
    taken = np.zeros(X.shape[0], dtype=bool)
    used = 0
    order = np.argsort(cost, kind="stable")
    while used < k:  # every budget unit is spent: after the last leaf, start again at the cheapest
        progress = used
        for leaf in order:  # loop over leaves
            if used == k:
                break
            need = min(int(cost[leaf]), k - used)
            # a donor outside the target leaf always changes: its new x lies inside the leaf
            free = donor_order[~taken[donor_order] & (pos[donor_order] != leaf)]
            donors = free[:need]
            r = restrictions[leaf]
            fresh = rng.integers(0, 2, size=(donors.size, X.shape[1])).astype(np.uint8)
            fresh[:, r >= 0] = r[r >= 0]
            X2[donors] = fresh
            y2[donors] = 1 - majority[leaf]
            taken[donors] = True
            used += donors.size
        if used == progress:  # no donor left outside any leaf (a one-leaf optimum): flip labels instead
            rest = np.flatnonzero(~taken)[: k - used]
            y2[rest] ^= 1
            used += rest.size
    return _finish(X, y, X2, y2, k)


def indistinguishable_pair(n: int, eta: float, region_codim: int) -> tuple[DecisionTree, DecisionTree, np.ndarray, float]:
    """Two stochastic trees an eta-adversary can make indistinguishable (the 2 eta lower bound).

    Both query x_0, ..., x_{c-1} (c = ``region_codim``) on one path down to the region
    R = {x_0 = ... = x_{c-1} = 1} of mass 2^-c; off that path leaves alternate 0/1 (shared).
    On R, T_+ has a stochastic leaf with mu = 1/2 + t and T_- one with mu = 1/2 - t, where
    t = eta 2^c (must be <= 1/2). Returns (T_+, T_-, region restriction, t).
    """
    n = check_int("n", n, 1)
    eta = check_eta(eta)
    c = check_int("region_codim", region_codim, 1, n)
    t = eta * 2**c
    if t > 0.5:
        raise ValueError(f"eta must be at most 2^-(region_codim+1) = {2.0**-(c + 1):g} for region_codim = {c}, got {eta}")
    trees = []
    for sign in (+1, -1):
        tree = DecisionTree(n)
        node = 0
        for i in range(c):
            c0, c1 = tree.split(node, i)
            tree.set_value(c0, float(i % 2))
            node = c1
        tree.set_value(node, 0.5 + sign * t)
        trees.append(tree)
    region = np.full(n, -1, dtype=np.int8)
    region[:c] = 1
    return trees[0], trees[1], region, t


def equalizing_adversary(X: np.ndarray, y: np.ndarray, eta: float, region: np.ndarray,
                         *, rng: np.random.Generator) -> Corruption:
    """Flip labels inside the region (a restriction: -1 free, 0/1 fixed) until half are 1.

    The flipped rows are uniformly random rows of the majority label, so the labels inside the
    region stay exchangeable; with an odd number of rows inside, a fair coin decides which label
    keeps the extra row. Given that the budget suffices, the corrupted labels inside the region are
    a uniformly random half/half arrangement whatever mu was there: samples of T_+ and T_- become
    identically distributed. The rest of the budget is spent flipping uniformly random rows
    outside the region, where the two targets agree, so it changes both laws in the same way.
    """
    X, y, eta, k = _prepare(X, y, eta)
    rng = check_rng(rng)
    region = np.asarray(region)
    if region.shape != (X.shape[1],) or not np.isin(region, (-1, 0, 1)).all():
        raise ValueError(f"region must be a length-{X.shape[1]} array of -1/0/1, got {region!r}")
    fixed = region >= 0
    in_region = (X[:, fixed] == region[fixed]).all(axis=1)
    inside = np.flatnonzero(in_region)
    ones = int(y[inside].sum())
    target_ones = inside.size // 2 + (int(rng.random() < 0.5) if inside.size % 2 else 0)
    excess = ones - target_ones                    # flips of 1 -> 0 needed (negative: 0 -> 1)
    need = min(abs(excess), k)
    majority = 1 if excess > 0 else 0
    rows = rng.permutation(inside[y[inside] == majority])[:need]
    y2 = y.copy()
    y2[rows] ^= 1
    rest = rng.permutation(np.flatnonzero(~in_region))[: k - need]
    y2[rest] ^= 1
    return _finish(X, y, X.copy(), y2, k)


def _replant(X: np.ndarray, y: np.ndarray, k: int, new_x: np.ndarray, new_y: np.ndarray,
             *, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Replace k uniformly random rows that differ from their replacement (so each one counts)."""
    X2, y2 = X.copy(), y.copy()
    differs = (X != new_x).any(axis=1) | (y != new_y)
    rows = rng.permutation(np.flatnonzero(differs))[:k]
    X2[rows], y2[rows] = new_x[rows], new_y[rows]
    return X2, y2


def point_mass_adversary(X: np.ndarray, y: np.ndarray, eta: float, degree: int, *, rng: np.random.Generator,
                         candidates: int = 64) -> Corruption:
    """A point-mass (leverage) attack on the monomial features, aimed at L2 regression.

    All floor(eta m) replaced rows become one point x* with one label y*. A point mass of weight
    eta moves the least-squares fit by about
    eta (y* - p(x*)) K_d(x, x*) / (1 + eta K_d(x*, x*)), K_d(x, x*) = sum_{|S| <= d} chi_S(x) chi_S(x*)
    (the reproducing kernel of degree-d polynomials under the uniform measure). Among
    ``candidates`` distinct sample points (and both labels) the adversary picks the one whose
    predicted shift flips round(p) on the clean sample where the clean fit is most confident, i.e.
    maximises the mean of 1[flip] |2 p(x) - 1| over the clean sample.
    """
    from .polyreg import features, low_degree_regression

    X, y, eta, k = _prepare(X, y, eta)
    degree = check_int("degree", degree, 0)
    candidates = check_int("candidates", candidates, 1)
    rng = check_rng(rng)
    fit = low_degree_regression(X, y, degree=degree)
    p = fit.value(X)
    pool = rng.permutation(np.unique(X, axis=0))[:candidates]
    Phi, Phi_c = features(X, fit.degree), features(pool, fit.degree)   # the fit's own basis
    kernel = Phi @ Phi_c.T                                    # (m, C): K_d(x_i, candidate)
    k0 = Phi_c.shape[1]                                       # K_d(x*, x*) = number of characters
    p_c = Phi_c @ fit.coef
    best, best_damage = (0, 0), -1.0
    for label in (0, 1):  # two labels, NumPy body over all candidates at once
        shift = eta * (label - p_c)[None, :] * kernel / (1.0 + eta * k0)
        flips = ((p[:, None] - 0.5) * (p[:, None] + shift - 0.5)) < 0
        damage = (flips * np.abs(2.0 * p - 1.0)[:, None]).mean(axis=0)
        j = int(np.argmax(damage))
        if damage[j] > best_damage:
            best, best_damage = (j, label), float(damage[j])
    j, label = best
    new_x = np.broadcast_to(pool[j], X.shape)
    new_y = np.full(y.shape, label, dtype=np.uint8)
    X2, y2 = _replant(X, y, k, new_x, new_y, rng=rng)
    return _finish(X, y, X2, y2, k)


def subcube_adversary(X: np.ndarray, y: np.ndarray, eta: float, degree: int, *, rng: np.random.Generator
                      ) -> Corruption:
    """Aimed at L1 regression: turn the empirical median of one subcube of codimension degree + 1.

    L1 regression behaves like a median, so a point mass barely moves it; what moves it is a
    region whose local majority turns. Over the subcubes fixing ``degree + 1`` coordinates (all
    sign patterns), the adversary picks the one with the most clean rows among those it can turn
    with its budget (turning costs |#1 - #0| + 1 planted rows), and re-plants floor(eta m)
    uniformly random rows, with the local minority label, at uniform points inside it.
    """
    X, y, eta, k = _prepare(X, y, eta)
    degree = check_int("degree", degree, 0)
    rng = check_rng(rng)
    n = X.shape[1]
    c = min(degree + 1, n)
    weights = 1 << np.arange(c)
    best, best_gain = None, -math.inf
    for S in itertools.combinations(range(n), c):  # loop over coordinate sets, NumPy body
        codes = X[:, list(S)] @ weights
        ones = np.bincount(codes, weights=y, minlength=2**c)
        count = np.bincount(codes, minlength=2**c)
        margin = np.abs(2 * ones - count)
        # rows whose label turns wrong if the budget can turn the subcube; else prefer the cheapest
        gain = np.where(margin + 1 <= k, margin, -1.0 - margin / (count.sum() + 1.0))
        j = int(np.argmax(gain))
        if gain[j] > best_gain:
            best, best_gain = (S, j, int(2 * ones[j] >= count[j])), float(gain[j])
    S, pattern, majority = best
    new_x = rng.integers(0, 2, size=X.shape).astype(np.uint8)
    new_x[:, list(S)] = (pattern >> np.arange(c)) & 1
    new_y = np.full(y.shape, 1 - majority, dtype=np.uint8)
    X2, y2 = _replant(X, y, k, new_x, new_y, rng=rng)
    return _finish(X, y, X2, y2, k)


ADVERSARIES = ("random", "find", "moving", "point_mass", "subcube")


def corrupt(kind: str, X: np.ndarray, y: np.ndarray, eta: float, *, rng: np.random.Generator,
            depth: int = 2, degree: int = 2) -> Corruption:
    """Dispatch to an adversary by name (one of ``ADVERSARIES``).

    ``depth`` is the depth of FIND's clean optimum (for 'find' and 'moving'), ``degree`` that of the
    regressions' features (for 'point_mass' and 'subcube').
    """
    if kind == "random":
        return random_label_flips(X, y, eta, rng=rng)
    if kind == "find":
        return find_adversary(X, y, eta, depth, rng=rng)
    if kind == "moving":
        return moving_adversary(X, y, eta, depth, rng=rng)
    if kind == "point_mass":
        return point_mass_adversary(X, y, eta, degree, rng=rng)
    if kind == "subcube":
        return subcube_adversary(X, y, eta, degree, rng=rng)
    check_choice("kind", kind, ADVERSARIES)
    raise AssertionError(f"adversary {kind!r} is listed but not dispatched")


__all__ = ["Corruption", "check_eta", "budget", "random_label_flips", "find_adversary",
           "moving_adversary", "point_mass_adversary", "subcube_adversary", "indistinguishable_pair",
           "equalizing_adversary", "corrupt", "ADVERSARIES"]
