"""Impurity functions G: [0, 1] -> [0, 1] for top-down decision-tree heuristics.

Each is concave, symmetric (G(p) = G(1 - p)), zero at 0 and 1, and normalised to G(1/2) = 1
(Blanc–Gupta–Lange–Tan 2020, Sec. 1). ``p`` is Pr[label = 1]; functions act elementwise on arrays.

Brutzkus–Daniely–Malach (COLT 2020, Sec. 1.2) need an impurity C that is

* **beta-strongly concave**: C(t a + (1-t) b) >= t C(a) + (1-t) C(b) + (beta/2) t (1-t) (a-b)^2,
  i.e. -C'' >= beta on (0, 1) (used by their Lemma 6: relevant gains are large);
* **gamma-Lipschitz**: |C(a) - C(b)| <= gamma |a - b| (used by their Lemma 5: irrelevant gains
  are small).

Gini is both. Entropy and Kearns–Mansour are strongly concave but **not** Lipschitz: their
slopes blow up at 0 and 1 (H'(p) = log2((1-p)/p)). They are Lipschitz on [eta, 1 - eta], with
the constant given by :func:`lipschitz_constant`; BDM's Lemma 5 needs the constant only on the
interval between Pr_S[y=1] and Pr_S[y=1 | x_i = b], so for entropy the bound degrades as a node's
label frequencies approach 0 or 1.
"""

from __future__ import annotations

import math

import numpy as np

from .validate import check_choice, check_real

IMPURITIES = ("gini", "entropy", "kearns_mansour")


def gini(p: np.ndarray | float) -> np.ndarray:
    """Gini impurity 4 p (1 - p) (CART's 1 - p^2 - (1-p)^2, doubled so that G(1/2) = 1)."""
    p = np.asarray(p, dtype=np.float64)
    return 4.0 * p * (1.0 - p)


def entropy(p: np.ndarray | float) -> np.ndarray:
    """Binary entropy in bits, -p log2 p - (1-p) log2(1-p), with 0 log 0 = 0 (ID3, C4.5)."""
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log2(p) + (1.0 - p) * np.log2(1.0 - p))
    return np.where((p <= 0.0) | (p >= 1.0), 0.0, h)


def kearns_mansour(p: np.ndarray | float) -> np.ndarray:
    """Kearns–Mansour impurity 2 sqrt(p (1 - p)) (Kearns & Mansour 1999)."""
    p = np.asarray(p, dtype=np.float64)
    return 2.0 * np.sqrt(np.clip(p * (1.0 - p), 0.0, None))


def get_impurity(name: str):
    """The impurity function called ``name`` (one of :data:`IMPURITIES`)."""
    table = {"gini": gini, "entropy": entropy, "kearns_mansour": kearns_mansour}
    check_choice("impurity", name, IMPURITIES)
    return table[name]


def strong_concavity(name: str) -> float:
    """beta with -G'' >= beta on (0, 1) (BDM 2020, Lemma 6).

    Gini: -G'' = 8. Entropy (bits): -H'' = 1 / (p (1-p) ln 2) >= 4 / ln 2. Kearns–Mansour:
    -G'' = 1 / (2 (p (1-p))^{3/2}) >= 4. Each minimum is attained at p = 1/2.
    """
    get_impurity(name)
    return {"gini": 8.0, "entropy": 4.0 / math.log(2.0), "kearns_mansour": 4.0}[name]


def lipschitz_constant(name: str, eta: float = 0.0) -> float:
    """gamma with |G(a) - G(b)| <= gamma |a - b| for a, b in [eta, 1 - eta] (BDM 2020, Lemma 5).

    Gini: 4 (1 - 2 eta), so 4 on all of [0, 1]. Entropy: log2((1 - eta) / eta) and
    Kearns–Mansour: (1 - 2 eta) / sqrt(eta (1 - eta)); both are infinite at eta = 0 — the
    entropy caveat: entropy is not Lipschitz on [0, 1].
    """
    get_impurity(name)
    eta = check_real("eta", eta, 0.0, 0.5, low_open=False, high_open=True)
    if name == "gini":
        return 4.0 * (1.0 - 2.0 * eta)
    if eta == 0.0:
        return math.inf
    if name == "entropy":
        return math.log2((1.0 - eta) / eta)
    return (1.0 - 2.0 * eta) / math.sqrt(eta * (1.0 - eta))


# --- Blanc–Gupta–Lange–Tan (NeurIPS 2020): kappa and (C, alpha) of Definitions 3–4 -------------
#
# Definition 4 (kappa-strong concavity): (G(a) + G(b))/2 <= G((a+b)/2) - (kappa/2)(b-a)^2. When
# -G'' >= beta on (0, 1) the midpoint gap is at least beta (b-a)^2 / 8, so kappa = beta / 4; the
# constant is the best one because the gap tends to beta (b-a)^2 / 8 for a, b near 1/2, where -G''
# attains its minimum for all three functions. Definition 3 ((C, alpha)-Hölder): |G(a) - G(b)| <=
# C |a-b|^alpha. A concave, symmetric G with G(0) = 0 has |G(a) - G(b)| <= G(|a-b|), so the best C
# for a given alpha is sup_{0<h<=1} G(h) / h^alpha. The paper does not tabulate the constants;
# ours (each the best possible for its alpha):
#
#   G                  kappa      alpha   C
#   gini 4p(1-p)       2          1       4
#   entropy H(p)       1/ln 2     1/2     sup H(h)/sqrt(h) = 1.62288 (attained at h = 0.2415)
#   kearns_mansour     1          1/2     2
#
# Entropy is not Lipschitz at 0 (no alpha = 1 constant); any alpha < 1 works, we use 1/2.

HOLDER_ALPHA = {"gini": 1.0, "entropy": 0.5, "kearns_mansour": 0.5}


def kappa(name: str) -> float:
    """kappa of Definition 4 (BGLT 2020): kappa = (min -G'') / 4; gini 2, entropy 1/ln 2, KM 1."""
    return strong_concavity(name) / 4.0


def holder_constants(name: str) -> tuple[float, float]:
    """(C, alpha) of Definition 3 (BGLT 2020): the best C for our alpha (gini 1, others 1/2).

    C = sup_{0 < h <= 1/2} G(h) / h^alpha (the sup over (1/2, 1] is smaller because G
    decreases there); gini (4, 1), Kearns–Mansour (2, 1/2), entropy (1.62288..., 1/2).
    """
    from scipy.optimize import minimize_scalar

    g = get_impurity(name)
    alpha = HOLDER_ALPHA[name]
    if name == "gini":
        return 4.0, alpha
    if name == "kearns_mansour":
        return 2.0, alpha
    res = minimize_scalar(lambda h: -float(g(h)) / h**alpha, bounds=(1e-12, 0.5),
                          method="bounded", options={"xatol": 1e-14})
    return float(-res.fun), alpha


def strong_concavity_gap(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """G((a+b)/2) - (G(a)+G(b))/2 - (kappa/2)(b-a)^2: Definition 4 says this is >= 0."""
    g = get_impurity(name)
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return g((a + b) / 2) - (g(a) + g(b)) / 2 - kappa(name) / 2 * (b - a) ** 2


def holder_slack(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C |a-b|^alpha - |G(a) - G(b)|: Definition 3 says this is >= 0."""
    g = get_impurity(name)
    c, alpha = holder_constants(name)
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return c * np.abs(a - b) ** alpha - np.abs(g(a) - g(b))
