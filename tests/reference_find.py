"""The FIND implementation before the signed-count kernels (commit 10dd38f), as the reference the fast
path must reproduce: its counting lives on as the float-sum backend of :mod:`dtcore.find`
(``_LabelSums``, which still serves real-valued weights), so the tests compare the integer-weight
kernels of :func:`dtcore.find.find` with it."""

from __future__ import annotations

import numpy as np

from dtcore.find import _build, _find_label_sums
from dtcore.tree import DecisionTree


def reference_find(X: np.ndarray, y: np.ndarray, depth: int,
                   sample_weight: np.ndarray | None = None) -> tuple[float, DecisionTree]:
    """(weighted training errors, tree) of the reference FIND."""
    from threadpoolctl import threadpool_limits

    X = np.asarray(X, dtype=np.uint8)
    y = np.asarray(y, dtype=np.uint8)
    m, n = X.shape
    weight = np.ones(m) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    with threadpool_limits(1, user_api="blas"):
        errors, structure, _ = _find_label_sums(X, y, weight, depth)
    return errors, _build(n, structure)
