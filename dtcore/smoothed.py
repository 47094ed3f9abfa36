"""(alpha, c)-distributions, smoothed product distributions and the covariance measure I(D_w, i).

Brutzkus–Daniely–Malach (COLT 2020): a product distribution with Pr[x_i = 1] = p_i is an
**(alpha, c)-distribution** when |p_i - 1/2| > c and p_i in (alpha, 1 - alpha) for every i (Sec.
1.2); a **smoothed (alpha, c)-distribution** has p_i = p_hat_i + Delta_i with p_hat_i in
(alpha + c, 1 - alpha - c) fixed and Delta_i ~ U[-c, c] i.i.d. The proofs (Sec. 2.1) track the
covariance between a coordinate and the label under D conditioned on a path w in {*, 0, 1}^n:

    I(D_w, i) = E_{D_w}[y x_i] - E_{D_w}[y] E_{D_w}[x_i] = p_i (1 - p_i) (F_w(x_i=1) - F_w(x_i=0)),

where F_w(.) = Pr_{D_w}[y = 1 | .] is the multilinear extension of f evaluated at z (z_i = w_i on
the path, p_i off it). It is 0 for coordinates on the path and for coordinates f ignores.
"""

from __future__ import annotations

import numpy as np

from .cube import MAX_TABLE_VARIABLES, ProductDistribution, check_table, table_variables
from .impurity import get_impurity
from .validate import check_binary_matrix, check_choice, check_int, check_labels, check_real, check_rng


def _check_alpha(alpha: float) -> float:
    return check_real("alpha", alpha, 0.0, 0.5)


def _check_c(c: float, alpha: float, smoothed: bool) -> float:
    c = check_real("c", c, 0.0, 0.5)
    if c >= 0.5 - alpha:
        what = "(alpha + c, 1 - alpha - c)" if smoothed else "the set |p - 1/2| > c, p in (alpha, 1 - alpha)"
        raise ValueError(f"c must be in (0, 1/2 - alpha) = (0, {0.5 - alpha:g}) so that {what} "
                         f"is non-empty, got {c!r}")
    return c


MEMBERS = ("random", "inner", "outer", "corner")
# Width of the "just inside the boundary" band, as a share of the admissible interval (c, 1/2 - alpha).
BOUNDARY_BAND = 0.02


def alpha_c_distribution(n: int, alpha: float, c: float, *, rng: np.random.Generator,
                         member: str = "random") -> ProductDistribution:
    """An (alpha, c)-distribution (BDM 2020, Sec. 1.2): p_i = 1/2 +- d_i with d_i in (c, 1/2 - alpha).

    Theorem 1 is a worst case over this class, so besides random members (``member="random"``,
    d_i ~ U(c, 1/2 - alpha)) we draw its extreme members:

    * ``"inner"``: every margin just above c (d_i uniform in the lowest ``BOUNDARY_BAND`` share of
      the interval), where parities are least biased (Lemma 9's (2c)^(k-1) factor is attained);
    * ``"outer"``: every p_i just inside (alpha, 1 - alpha) (the highest band), where some cells
      of a path have probability close to alpha^k (the alpha^(-2k) factor of Lemmas 5, 6 and 8);
    * ``"corner"``: coordinate 0 in the outer band, the others in the inner band, the corner at
      which Lemma 9's bound alpha^2 (2c)^(k-1) is closest to the truth.

    Signs are fair coins. Requires alpha in (0, 1/2) and c in (0, 1/2 - alpha).
    """
    n = check_int("n", n, 1)
    alpha = _check_alpha(alpha)
    c = _check_c(c, alpha, smoothed=False)
    rng = check_rng(rng)
    check_choice("member", member, MEMBERS)
    lo, hi = np.nextafter(c, 1.0), 0.5 - alpha
    band = BOUNDARY_BAND * (hi - lo)
    if member == "random":
        d = rng.uniform(lo, hi, size=n)  # in (c, 1/2 - alpha)
    else:
        u = rng.random(n)
        inner, outer = lo + band * u, hi - band * u  # u in [0, 1) keeps both inside the interval
        d = inner if member == "inner" else outer
        if member == "corner":
            d = inner.copy()
            d[0] = outer[0]
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return ProductDistribution(0.5 + sign * d)


def is_alpha_c_distribution(dist: ProductDistribution, alpha: float, c: float) -> bool:
    """Whether every p_i satisfies |p_i - 1/2| > c and alpha < p_i < 1 - alpha."""
    alpha = _check_alpha(alpha)
    c = check_real("c", c, 0.0, 0.5)
    p = dist.p
    return bool(np.all((np.abs(p - 0.5) > c) & (p > alpha) & (p < 1 - alpha)))


def smoothed_distribution(p_hat: np.ndarray | float, alpha: float, c: float, *, rng: np.random.Generator,
                          n: int | None = None) -> ProductDistribution:
    """A smoothed (alpha, c)-distribution (BDM 2020, Sec. 1.2): p_i = p_hat_i + Delta_i, Delta_i ~ U[-c, c].

    ``p_hat`` is an array, or a scalar repeated ``n`` times; every p_hat_i must lie in
    (alpha + c, 1 - alpha - c), so that p_i lies in (alpha, 1 - alpha).
    """
    alpha = _check_alpha(alpha)
    c = _check_c(c, alpha, smoothed=True)
    rng = check_rng(rng)
    ph = np.array(p_hat, dtype=np.float64, ndmin=1)
    if ph.size == 1 and n is not None:
        ph = np.full(check_int("n", n, 1), ph[0])
    if ph.ndim != 1 or ph.size == 0:
        raise ValueError(f"p_hat must be a scalar (with n) or a non-empty 1-D array, got shape {ph.shape}")
    bad = ~((ph > alpha + c) & (ph < 1 - alpha - c))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"p_hat[{i}] must be in (alpha + c, 1 - alpha - c) = "
                         f"({alpha + c:g}, {1 - alpha - c:g}), got {ph[i]!r}")
    return ProductDistribution(ph + rng.uniform(-c, c, size=ph.size))


CENTRES = ("1/2", "random", "edge")


def smoothing_centre(n: int, alpha: float, c: float, kind: str, *, rng: np.random.Generator) -> np.ndarray:
    """A centre p_hat in (alpha + c, 1 - alpha - c)^n for :func:`smoothed_distribution`.

    ``"1/2"``: the uniform distribution (smoothing is then the only source of bias);
    ``"random"``: p_hat_i ~ U(alpha + c, 1 - alpha - c); ``"edge"``: every p_hat_i just inside
    an end of that interval (the lowest or highest ``BOUNDARY_BAND`` share, end chosen by a fair
    coin), so p_i reaches alpha after smoothing and some cells have probability near alpha^k.
    """
    n = check_int("n", n, 1)
    alpha = _check_alpha(alpha)
    c = _check_c(c, alpha, smoothed=True)
    rng = check_rng(rng)
    check_choice("kind", kind, CENTRES)
    lo, hi = alpha + c, 1 - alpha - c
    if kind == "1/2":
        return np.full(n, 0.5)
    if kind == "random":
        return rng.uniform(lo, hi, size=n)
    band = BOUNDARY_BAND * (hi - lo)
    inset = band * (1.0 - rng.random(n))  # in (0, band], so p_hat stays strictly inside
    return np.where(rng.random(n) < 0.5, lo + inset, hi - inset)


def multilinear(table: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """F(z) = Pr_{x ~ prod Bernoulli(z_i)}[f(x) = 1] for every row z of Z (entries in [0, 1]).

    The weights of all 2^k points are built coordinate by coordinate (one NumPy outer product
    per coordinate, batched over the rows of Z), then contracted with the truth table.
    """
    table = check_table(table)
    k = table_variables(table)
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2 or Z.shape[1] != k:
        raise ValueError(f"Z must have shape (B, {k}) to match the table, got {Z.shape}")
    if Z.size and (Z.min() < 0 or Z.max() > 1):
        raise ValueError("Z must hold probabilities in [0, 1]")
    out = np.empty(Z.shape[0])
    step = max(1, 2**22 // 2**k)
    f = table.astype(np.float64)
    for s in range(0, Z.shape[0], step):  # chunks of rows; inner loop over coordinates
        z = Z[s:s + step]
        w = np.ones((z.shape[0], 1))
        for i in range(k):
            w = np.concatenate([w * (1.0 - z[:, i:i + 1]), w * z[:, i:i + 1]], axis=1)
        out[s:s + step] = w @ f
    return out


def _points(restrictions: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.where(restrictions >= 0, restrictions, p[None, :]).astype(np.float64)


def _check_restrictions(w: np.ndarray, k: int) -> np.ndarray:
    w = np.asarray(w)
    if w.ndim == 1:
        w = w[None, :]
    if w.ndim != 2 or w.shape[1] != k or (w.size and not np.isin(w, (-1, 0, 1)).all()):
        raise ValueError(f"w must have {k} entries in {{-1 (free), 0, 1}} per row, got shape {w.shape}")
    return w.astype(np.int8)


def covariance_measure(table: np.ndarray, dist: ProductDistribution,
                       w: np.ndarray | None = None) -> np.ndarray:
    """Exact I(D_w, i) for every coordinate i (BDM 2020, Sec. 2.1), f given by its truth table.

    ``w`` is one restriction (length k, −1 = free) or a (B, k) batch; the result has shape (k,)
    or (B, k). Coordinates on the path get exactly 0.
    """
    table = check_table(table)
    k = table_variables(table)
    if not isinstance(dist, ProductDistribution) or dist.n != k:
        raise ValueError(f"dist must be a ProductDistribution on k = {k} coordinates")
    single = w is None or np.asarray(w).ndim == 1
    W = _check_restrictions(np.full(k, -1) if w is None else w, k)
    Z = _points(W, dist.p)
    out = np.zeros(W.shape, dtype=np.float64)
    for i in range(k):  # one batched multilinear evaluation per coordinate
        free = W[:, i] < 0
        if not free.any():
            continue
        z1, z0 = Z[free].copy(), Z[free].copy()
        z1[:, i], z0[:, i] = 1.0, 0.0
        p = dist.p[i]
        out[free, i] = p * (1 - p) * (multilinear(table, z1) - multilinear(table, z0))
    return out[0] if single else out


def covariance_by_enumeration(table: np.ndarray, dist: ProductDistribution, w: np.ndarray) -> np.ndarray:
    """I(D_w, i) straight from its definition E[y x_i] - E[y] E[x_i], summing over the 2^k points.

    An independent computation of :func:`covariance_measure` (no multilinear extension): the
    points of X_w are weighted by their probability under D and renormalised. ``w`` is a (B, k)
    batch of restrictions (−1 = free); the result has shape (B, k).
    """
    table = check_table(table)
    k = table_variables(table)
    if not isinstance(dist, ProductDistribution) or dist.n != k:
        raise ValueError(f"dist must be a ProductDistribution on k = {k} coordinates")
    W = _check_restrictions(w, k)
    bits = ((np.arange(2**k)[:, None] >> np.arange(k)) & 1).astype(np.float64)
    consistent = ((W[:, None, :] < 0) | (W[:, None, :] == bits[None, :, :])).all(axis=2)
    weights = consistent * dist.point_weights()[None, :]
    weights /= weights.sum(axis=1, keepdims=True)
    f = table.astype(np.float64)
    e_y = weights @ f
    e_x = weights @ bits
    e_yx = weights @ (bits * f[:, None])
    out = e_yx - e_y[:, None] * e_x
    out[W >= 0] = 0.0  # x_i is constant on the path; remove rounding noise
    return out


def hoeffding_covariance_deviation(size: int | np.ndarray, delta: float | np.ndarray) -> np.ndarray:
    """An explicit form of BDM 2020 Lemma 8: |I(S_w, i) - I(D_w, i)| <= 3 t with probability >= 1 - delta.

    Given |S_w| = N, the examples of S_w are i.i.d. from D_w. Hoeffding's inequality bounds each
    of the three means E_S[y x_i], E_S[y], E_S[x_i] (values in [0, 1]) within
    t = sqrt(ln(6 / delta) / (2 N)) of its expectation with probability >= 1 - delta / 3, and
    |ab - a'b'| <= |a - a'| + |b - b'| for a, b in [0, 1]; so the covariance is within 3 t.
    (The paper states it with m >~ alpha^(-2k) eps^(-2) log(1/delta), through N >~ alpha^k m.)
    """
    N = np.asarray(size, dtype=np.float64)
    if N.size and N.min() < 1:
        raise ValueError(f"size must be >= 1 (a non-empty S_w), got {N.min():g}")
    d = np.asarray(delta, dtype=np.float64)
    if d.size and not ((d > 0) & (d < 1)).all():
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return 3.0 * np.sqrt(np.log(6.0 / d) / (2.0 * N))


def theorem7_epsilon(table: np.ndarray, dist: ProductDistribution) -> float:
    """The largest eps for which Theorem 7's hypothesis holds (BDM 2020, Theorem 7).

    The minimum, over paths w in {*, 0, 1}^k on which f is not constant, of the largest
    |I(D_w, i)| over the free relevant i. ``dist`` is the distribution of the k relevant
    coordinates. Returns inf when f is constant (no such path).
    """
    table = check_table(table)
    W = all_restrictions(table_variables(table))
    live = ~restriction_is_constant(table, W)
    if not live.any():
        return float("inf")
    return float(np.abs(covariance_measure(table, dist, W[live])).max(axis=1).min())


def lemma4_hypotheses(split_features: np.ndarray, X: np.ndarray, relevant: np.ndarray) -> tuple[bool, bool]:
    """The two hypotheses of BDM 2020 Lemma 4, read off a finished run.

    ``split_features`` are the features of the tree's internal nodes; ``relevant`` lists J.
    Returns (every split is on a relevant feature, every cell x_J in {0,1}^k holds an example).
    When both hold Lemma 4 says the tree has zero error.
    """
    X = check_binary_matrix("X", X)
    J = np.asarray(relevant, dtype=np.int64).reshape(-1)
    only_relevant = bool(np.isin(np.asarray(split_features, dtype=np.int64), J).all())
    cells = X[:, J].astype(np.int64) @ (1 << np.arange(J.size, dtype=np.int64))
    return only_relevant, bool(np.unique(cells).size == 2 ** J.size)


def all_restrictions(k: int) -> np.ndarray:
    """Every w in {*, 0, 1}^k as a (3^k, k) int8 array (−1 = *), the all-free row first."""
    k = check_int("k", k, 0, 12)
    digits = (np.arange(3**k)[:, None] // 3 ** np.arange(k)) % 3
    return (digits - 1).astype(np.int8)


def restriction_is_constant(table: np.ndarray, W: np.ndarray) -> np.ndarray:
    """For each restriction w (rows of W), whether f restricted to X_w is constant."""
    table = check_table(table)
    k = table_variables(table)
    W = _check_restrictions(W, k)
    bits = ((np.arange(2**k)[:, None] >> np.arange(k)) & 1).astype(np.int8)
    out = np.empty(W.shape[0], dtype=bool)
    step = max(1, 2**22 // (2**k * max(k, 1)))
    f = table.astype(bool)
    for s in range(0, W.shape[0], step):
        w = W[s:s + step]
        consistent = ((w[:, None, :] < 0) | (w[:, None, :] == bits[None, :, :])).all(axis=2)
        ones = (consistent & f[None, :]).any(axis=1)
        zeros = (consistent & ~f[None, :]).any(axis=1)
        out[s:s + step] = ~(ones & zeros)
    return out


def empirical_covariance(X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """I(S_w, i) = E_{S_w}[y x_i] - E_{S_w}[y] E_{S_w}[x_i] for every column (BDM 2020, Sec. 2.1).

    S_w is the set of rows consistent with the restriction ``w`` (length n, −1 = free; None = all
    rows). Vectorised over rows and columns. Raises ``ValueError`` when S_w is empty.
    """
    X = check_binary_matrix("X", X)
    y = check_labels("y", y, X.shape[0])
    if w is not None:
        W = _check_restrictions(w, X.shape[1])[0]
        fixed = np.flatnonzero(W >= 0)
        keep = (X[:, fixed] == W[fixed]).all(axis=1)
        X, y = X[keep], y[keep]
    if X.shape[0] == 0:
        raise ValueError("the sample S_w must be non-empty to define I(S_w, i), got 0 rows")
    N = X.shape[0]
    n1 = X.sum(axis=0, dtype=np.int64)
    n11 = X[y == 1].sum(axis=0, dtype=np.int64)
    return n11 / N - (np.count_nonzero(y) / N) * (n1 / N)


def population_gain(table: np.ndarray, dist: ProductDistribution, w: np.ndarray | None = None,
                    impurity: str = "gini") -> np.ndarray:
    """Gain(D_w, i) for every coordinate: the population version of ID3's gain (BDM 2020, Sec. 1.1)."""
    table = check_table(table)
    k = table_variables(table)
    if not isinstance(dist, ProductDistribution) or dist.n != k:
        raise ValueError(f"dist must be a ProductDistribution on k = {k} coordinates")
    C = get_impurity(impurity)
    W = _check_restrictions(np.full(k, -1) if w is None else w, k)[0]
    z = _points(W[None, :], dist.p)
    F = multilinear(table, z)[0]
    out = np.zeros(k)
    for i in np.flatnonzero(W < 0):
        z1, z0 = z.copy(), z.copy()
        z1[0, i], z0[0, i] = 1.0, 0.0
        F1, F0 = multilinear(table, z1)[0], multilinear(table, z0)[0]
        out[i] = C(F) - dist.p[i] * C(F1) - (1 - dist.p[i]) * C(F0)
    return out


def smoothed_covariance_failure(tables: np.ndarray, p_hat: np.ndarray, c: float, thresholds: np.ndarray,
                                *, rng: np.random.Generator, draws: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """Pr over the smoothing that |I(D, i)| <= t, for every function of a batch, coordinate i and t.

    BDM 2020, Lemma 11 at the root (w all free): p_l = p_hat_l + Delta_l with Delta_l ~ U[-c, c] i.i.d.
    and I(D, i) = p_i (1 - p_i) D_i(p), where D_i(p) = F(p, x_i = 1) - F(p, x_i = 0) is multilinear in
    the other coordinates. D_i is linear in each p_j, so the probability over p_j given the others is
    the length of an interval, exactly; the remaining coordinates are drawn ``draws`` times (common to
    every function). j is the first coordinate D_i depends on (any j gives an unbiased estimate; one
    D_i depends on gives a continuous one). Returns (estimate, standard error), each ``(T, B, k)``.
    The derivative tables D_i take values in {-1, 0, 1}, so the work runs over distinct tables only.
    """
    table = np.asarray(tables)
    if table.ndim != 2:
        raise ValueError(f"tables must have shape (B, 2^k), got {table.shape}")
    k = table_variables(table[0], "tables")
    check_binary_matrix("tables", table)
    rng = check_rng(rng)
    draws = check_int("draws", draws, 2, 10**6)
    c = check_real("c", c, 0.0, 0.5)
    ph = np.asarray(p_hat, dtype=np.float64)
    if ph.shape != (k,) or not ((ph - c > 0) & (ph + c < 1)).all():
        raise ValueError(f"p_hat must have {k} entries in (c, 1 - c) = ({c:g}, {1 - c:g}), got {p_hat!r}")
    t = np.asarray(thresholds, dtype=np.float64).reshape(-1)
    if t.size == 0 or (t < 0).any():
        raise ValueError(f"thresholds must be a non-empty array of values >= 0, got {thresholds!r}")
    p = ph + rng.uniform(-c, c, size=(draws, k))
    bits = (np.arange(2**k)[:, None] >> np.arange(k)) & 1
    f = table.astype(np.int8)
    estimate = np.zeros((t.size, table.shape[0], k))
    error = np.zeros_like(estimate)
    for i in range(k):  # one pass per coordinate; NumPy body over distinct derivative tables and draws
        others = [l for l in range(k) if l != i]
        deriv = f[:, bits[:, i] == 1] - f[:, bits[:, i] == 0]  # (B, 2^(k-1)), indexed by the others' bits
        distinct, inverse = np.unique(deriv, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        scale = p[:, i] * (1.0 - p[:, i])  # (N,)
        if k == 1:
            size = np.abs(distinct[:, 0]).astype(np.float64)[:, None] * scale[None, :]
            cond = [(size[None] <= t[:, None, None]).astype(np.float64)]
        else:
            sub_bits = (np.arange(2 ** (k - 1))[:, None] >> np.arange(k - 1)) & 1
            depends = np.stack([(distinct[:, sub_bits[:, m] == 1] != distinct[:, sub_bits[:, m] == 0]).any(axis=1)
                                for m in range(k - 1)], axis=1)
            choice = np.where(depends.any(axis=1), np.argmax(depends, axis=1), 0)
            cond = np.zeros((t.size, distinct.shape[0], draws))
            for m, j in enumerate(others):  # the coordinate integrated exactly
                rows = choice == m
                if not rows.any():
                    continue
                rest = [l for l in others if l != j]
                rest_bits = sub_bits[sub_bits[:, m] == 0][:, [others.index(l) for l in rest]]
                weights = np.ones((draws, rest_bits.shape[0]))
                for r, l in enumerate(rest):
                    weights *= np.where(rest_bits[:, r] == 1, p[:, l:l + 1], 1.0 - p[:, l:l + 1])
                a = distinct[rows][:, sub_bits[:, m] == 0].astype(np.float64) @ weights.T  # D_i at p_j = 0
                b = distinct[rows][:, sub_bits[:, m] == 1].astype(np.float64) @ weights.T - a
                lo, hi = ph[j] - c, ph[j] + c
                for ti, tv in enumerate(t):  # few thresholds
                    s = tv / scale[None, :]
                    with np.errstate(divide="ignore", invalid="ignore"):
                        y1, y2 = (-s - a) / b, (s - a) / b
                        length = np.clip(np.minimum(np.maximum(y1, y2), hi) - np.maximum(np.minimum(y1, y2), lo), 0.0, None)
                    cond[ti, rows] = np.where(b != 0, length / (hi - lo), (np.abs(a) <= s).astype(np.float64))
            cond = [cond]
        values = cond[0]
        estimate[:, :, i] = values.mean(axis=2)[:, inverse]
        error[:, :, i] = (values.std(axis=2, ddof=1) / np.sqrt(draws))[:, inverse]
    return estimate, error


__all__ = [
    "CENTRES", "MAX_TABLE_VARIABLES", "MEMBERS", "alpha_c_distribution", "all_restrictions", "covariance_by_enumeration",
    "covariance_measure", "empirical_covariance", "hoeffding_covariance_deviation",
    "is_alpha_c_distribution", "lemma4_hypotheses", "multilinear", "population_gain", "restriction_is_constant",
    "smoothed_covariance_failure", "smoothed_distribution", "smoothing_centre", "theorem7_epsilon",
]
