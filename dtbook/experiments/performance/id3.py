"""ID3 against scikit-learn's unrestricted tree ([BDM20] Algorithm 1) on juntas with and without label noise.
"""

from __future__ import annotations

import numpy as np

from dtcore.audit.compare import agreement_up_to_ties, tree_from_sklearn
from dtcore.cube import all_points
from dtcore.functions import junta
from dtcore.id3 import id3
from ... import seeds
from .common import Benchmark, QUICK_TARGET, benchmark_row, for_sklearn, timed


def id3_cases(*, m_id3: int, n_id3: int, m_id3_large: int, n_id3_large: int,
              scale: str = "full") -> list[tuple[str, int, int, float, float | None]]:
    """The ID3 workloads (name, m, n, label noise, target ratio): the junta without noise, with 10%
    noise (target 0.2), and on the larger sample with 20% noise (target 0.15); at quick scale the
    noisy rows' target is :data:`QUICK_TARGET`."""
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    quick = scale == "quick"
    return [("ID3 (7-junta)", m_id3, n_id3, 0.0, None),
            ("ID3 (7-junta, 10% noise)", m_id3, n_id3, 0.1, QUICK_TARGET if quick else 0.2),
            ("ID3 (7-junta, 20% noise)", m_id3_large, n_id3_large, 0.2, QUICK_TARGET if quick else 0.15)]


def junta_variables(rng: np.random.Generator, n: int) -> np.ndarray:
    """The 7 relevant variables of the ID3 junta, drawn among the first ``n``, sorted."""
    return np.sort(rng.choice(n, 7, replace=False))


def id3_data(rng: np.random.Generator, variables: np.ndarray, *, m: int, n: int,
             noise: float) -> tuple[np.ndarray, np.ndarray]:
    """``m`` uniform points of {0,1}^n labelled by the weighted threshold [sum_j j x_{i_j} >= 14] on the 7
    ``variables`` ([BDM20]'s monotone junta), each label flipped with probability ``noise``."""
    table = (all_points(7) @ np.arange(1.0, 8.0) >= 14).astype(np.uint8)
    X = (rng.random((m, n), dtype=np.float32) < 0.5).astype(np.uint8)
    y = junta(X, variables, table).astype(np.uint8) ^ (rng.random(m) < noise).astype(np.uint8)
    return X, y


def id3_benchmark(name: str, X: np.ndarray, y: np.ndarray, *, repetitions: int, seed: int,
                  target: float | None) -> Benchmark:
    """ID3 ([BDM20] Algorithm 1, Gini, grown until pure) against scikit-learn's unrestricted tree: the
    same split at every node up to exact gain ties (:func:`dtcore.audit.compare.agreement_up_to_ties`)."""
    from sklearn.tree import DecisionTreeClassifier

    X_sk = for_sklearn(X)
    peer_seed = seeds.library_seed(seed, f"performance/{name}/peer")

    def ours():
        return id3(X, y, impurity="gini")

    def peer():
        return DecisionTreeClassifier(criterion="gini", random_state=peer_seed).fit(X_sk, y)

    times, out = timed({"dtcore": ours, "peer": peer}, repetitions=repetitions)
    a, b = out["pinned"]["dtcore"].tree, tree_from_sklearn(out["pinned"]["peer"], X.shape[1])
    agreement = agreement_up_to_ties(a, b, X, y, "gini")
    return benchmark_row(name, f"{X.shape[0]}x{X.shape[1]}", "sklearn DecisionTreeClassifier() (unrestricted)", times,
                         same="yes" if agreement.same else "no",
                         check=f"{agreement.matched} nodes agree, {agreement.ties} exact ties, "
                               f"{agreement.differences} differences; leaves {a.size} / {b.size}",
                         deviation=agreement.differences, target=target, profile=ours)
