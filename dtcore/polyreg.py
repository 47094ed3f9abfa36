"""Low-degree (L2) and L1 polynomial regression on Boolean monomials (Blanc–Lange–Tan 2021, Sec. 5).

Both fit a polynomial p of degree <= d to labelled examples, over the basis of characters
chi_S(x) = prod_{i in S} (-1)^{x_i}, |S| <= d (the same space as the monomials prod_{i in S} x_i;
the characters are orthonormal under the uniform measure, so the least-squares system is well
conditioned).

* :func:`low_degree_regression` — the low-degree algorithm of Linial–Mansour–Nisan 1993 in its L2
  regression form (Lemma 5.3): p* = argmin E_S[(p(x) - y)^2]; hypothesis round(trunc(p*)).
* :func:`l1_regression` — L1 polynomial regression of Kalai–Klivans–Mansour–Servedio 2008
  (Lemma 5.5): p* = argmin E_S|p(x) - y|, solved as a linear program with SciPy's HiGHS;
  hypothesis h(x) ~ Bernoulli(trunc(p*(x))), a stochastic hypothesis.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .validate import check_binary_matrix, check_int, check_labels, check_rng


def monomials(n: int, degree: int) -> list[tuple[int, ...]]:
    """All subsets S of [n] with |S| <= degree, by size then lexicographically."""
    n = check_int("n", n, 1)
    degree = check_int("degree", degree, 0)
    return [S for k in range(min(degree, n) + 1) for S in itertools.combinations(range(n), k)]


def n_monomials(n: int, degree: int) -> int:
    """sum_{k <= d} C(n, k): the number of coefficients of a degree-d polynomial on n variables."""
    n = check_int("n", n, 1)
    degree = check_int("degree", degree, 0)
    return sum(math.comb(n, k) for k in range(min(degree, n) + 1))


def features(X: np.ndarray, degree: int) -> np.ndarray:
    """The (m, K) matrix of characters chi_S(x) for every |S| <= degree (vectorised per level).

    Degree-k columns are built from degree-(k-1) columns times one more +-1 coordinate.
    """
    X = check_binary_matrix("X", X)
    degree = check_int("degree", degree, 0)
    m, n = X.shape
    signs = 1.0 - 2.0 * X                      # (-1)^{x_i}
    cols = [np.ones((m, 1))]
    level = [np.ones(m)]
    level_sets: list[tuple[int, ...]] = [()]
    for _ in range(min(degree, n)):  # loop over degrees; NumPy body per set
        new_cols, new_sets = [], []
        for S, col in zip(level_sets, level):
            start = S[-1] + 1 if S else 0
            if start < n:
                new_cols.append(col[:, None] * signs[:, start:])
                new_sets += [S + (j,) for j in range(start, n)]
        if not new_cols:
            break
        block = np.concatenate(new_cols, axis=1)
        cols.append(block)
        level = list(block.T)
        level_sets = new_sets
    return np.concatenate(cols, axis=1)


def trunc(values: np.ndarray) -> np.ndarray:
    """trunc(t) = min(1, max(0, t)) (Definition 6)."""
    return np.clip(np.asarray(values, dtype=np.float64), 0.0, 1.0)


@dataclass
class PolynomialHypothesis:
    """A fitted polynomial p = sum_S coef_S chi_S and the hypotheses built from it."""

    n: int
    degree: int
    coef: np.ndarray
    kind: str  # "l2" (deterministic round(trunc p)) or "l1" (stochastic Bernoulli(trunc p))

    def value(self, X: np.ndarray) -> np.ndarray:
        """p(x) for every row."""
        return features(check_binary_matrix("X", X, self.n), self.degree) @ self.coef

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Pr[h(x) = 1]: trunc(p(x)) for L1's stochastic hypothesis, round(trunc(p(x))) for L2's."""
        q = trunc(self.value(X))
        return q if self.kind == "l1" else (q >= 0.5).astype(np.float64)

    def predict(self, X: np.ndarray, *, rng: np.random.Generator | None = None) -> np.ndarray:
        """Labels h(x): round(trunc(p)) (L2), or Bernoulli(trunc(p)) draws with ``rng`` (L1)."""
        q = self.predict_proba(X)
        if self.kind == "l2":
            return q.astype(np.uint8)
        if rng is None:
            raise ValueError("rng must be a numpy.random.Generator for the L1 stochastic hypothesis, got None")
        return (check_rng(rng).random(q.shape[0]) < q).astype(np.uint8)

    @property
    def is_proper(self) -> bool:
        """False: a polynomial threshold / Bernoulli hypothesis is not a decision tree."""
        return False


def _prepare(X: object, y: object, degree: object) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    X = check_binary_matrix("X", X)
    y = check_labels("y", y, X.shape[0])
    degree = check_int("degree", degree, 0)
    if X.shape[0] == 0:
        raise ValueError("X must hold at least one example, got 0 rows")
    return X, y, degree, features(X, degree)


def low_degree_regression(X: np.ndarray, y: np.ndarray, *, degree: int) -> PolynomialHypothesis:
    """The low-degree algorithm as L2 regression: p* = argmin_{deg p <= d} E_S[(p(x) - y)^2].

    Blanc–Lange–Tan 2021, Lemma 5.3 (after Linial–Mansour–Nisan 1993); least squares via LAPACK.
    Hypothesis: round(trunc(p*)), error <= opt + O(sqrt(eta)) + eps on eta-corrupted samples.

    Parameters
    ----------
    X : array of shape (m, n)
        The sample's points, 0/1.
    y : array of shape (m,)
        Their 0/1 labels.
    degree : int
        The largest degree d of a monomial, 0 <= d <= n.

    Returns
    -------
    PolynomialHypothesis
        The coefficients of p* on the monomials of degree <= d (``coef``) and its hypothesis
        (``predict``: round(trunc(p*(x)))).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, dtype=np.uint8)
    >>> p = low_degree_regression(X, X[:, 0] & X[:, 1], degree=2)
    >>> p.predict(X[:4]).tolist()
    [0, 0, 0, 1]
    """
    X, y, degree, Phi = _prepare(X, y, degree)
    coef, *_ = np.linalg.lstsq(Phi, y.astype(np.float64), rcond=None)
    return PolynomialHypothesis(n=X.shape[1], degree=degree, coef=coef, kind="l2")


def l1_regression(X: np.ndarray, y: np.ndarray, *, degree: int) -> PolynomialHypothesis:
    """L1 polynomial regression: p* = argmin_{deg p <= d} E_S|p(x) - y|, an LP solved by HiGHS.

    Blanc–Lange–Tan 2021, Lemma 5.5 (after Kalai–Klivans–Mansour–Servedio 2008). We solve the
    LP dual, max_lambda sum_i lambda_i y_i s.t. Phi^T lambda = 0, -1 <= lambda <= 1 (K equality
    rows instead of 2m inequality rows); the primal coefficients are its equality marginals.
    Hypothesis: h(x) ~ Bernoulli(trunc(p*(x))), error <= 2 opt + 2 eta + eps.

    Parameters
    ----------
    X : array of shape (m, n)
        The sample's points, 0/1.
    y : array of shape (m,)
        Their 0/1 labels.
    degree : int
        The largest degree d of a monomial, 0 <= d <= n.

    Returns
    -------
    PolynomialHypothesis
        The coefficients of p* (``coef``); its randomised hypothesis draws h(x) with
        Pr[h(x) = 1] = trunc(p*(x)).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, dtype=np.uint8)
    >>> p = l1_regression(X, X[:, 0] & X[:, 1], degree=2)
    >>> np.round(p.coef, 6).tolist()  # 1, x0, x1, x0 x1 in the ±1 basis: exactly x0 AND x1
    [0.25, -0.25, -0.25, 0.25]
    """
    from scipy.optimize import linprog

    X, y, degree, Phi = _prepare(X, y, degree)
    res = linprog(c=-y.astype(np.float64), A_eq=Phi.T, b_eq=np.zeros(Phi.shape[1]),
                  bounds=(-1.0, 1.0), method="highs")
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on the L1 regression LP: {res.message}")
    coef = np.asarray(res.eqlin.marginals, dtype=np.float64)
    # the sign convention of marginals: pick the one that attains the dual optimum
    if np.abs(Phi @ coef - y).sum() > np.abs(Phi @ -coef - y).sum():
        coef = -coef
    return PolynomialHypothesis(n=X.shape[1], degree=degree, coef=coef, kind="l1")


def l1_loss(p: PolynomialHypothesis, X: np.ndarray, y: np.ndarray, truncate: bool = False) -> float:
    """E_S|p(x) - y| (or with trunc(p))."""
    v = p.value(X)
    return float(np.mean(np.abs((trunc(v) if truncate else v) - check_labels("y", y, X.shape[0]))))


def l2_loss(p: PolynomialHypothesis, X: np.ndarray, y: np.ndarray, truncate: bool = False) -> float:
    """E_S[(p(x) - y)^2] (or with trunc(p))."""
    v = p.value(X)
    return float(np.mean(((trunc(v) if truncate else v) - check_labels("y", y, X.shape[0])) ** 2))


__all__ = ["monomials", "n_monomials", "features", "trunc", "PolynomialHypothesis",
           "low_degree_regression", "l1_regression", "l1_loss", "l2_loss"]
