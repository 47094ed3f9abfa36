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

from .validate import check_real

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
    if name not in table:
        raise ValueError(f"impurity must be one of {IMPURITIES}, got {name!r}")
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

    Gini: 4 on all of [0, 1] (``eta`` may be 0). Entropy: log2((1 - eta) / eta) and
    Kearns–Mansour: (1 - 2 eta) / sqrt(eta (1 - eta)); both are infinite at eta = 0 — the
    entropy caveat: entropy is not Lipschitz on [0, 1].
    """
    get_impurity(name)
    eta = check_real("eta", eta, 0.0, 0.5, low_open=False, high_open=True)
    if name == "gini":
        return 4.0
    if eta == 0.0:
        return math.inf
    if name == "entropy":
        return math.log2((1.0 - eta) / eta)
    return (1.0 - 2.0 * eta) / math.sqrt(eta * (1.0 - eta))
