"""dtcore: the algorithms of five papers on top-down decision-tree learning, vectorised.

Inputs are 0/1 matrices ``X`` of shape (m, n) and 0/1 labels ``y``; every learner returns a
:class:`DecisionTree` (``print(tree)`` shows it as text). For real-valued data and any two labels,
use the scikit-learn estimators of :mod:`dtcore.estimators`.

Learners (all importable from ``dtcore`` directly)
--------------------------------------------------
build_top_down_dt
    BuildTopDownDT from an exact truth table (Blanc–Lange–Tan 2020; Moakhar et al. 2026, Alg. 1).
practical_build_top_down_dt
    PracticalBuildTopDownDT from samples and a label oracle (Moakhar et al. 2026, Alg. 2).
top_down, minibatch_top_down
    TopDown_G and MiniBatchTopDown_G (Blanc–Gupta–Lange–Tan 2020), module ``dtcore.topdown``.
top_down_size_estimate, local_learner, est
    TopDownSizeEstimate_G, LocalLearner_G and Est_G (BGLT 2020), module ``dtcore.local``.
estimate_learnability
    Est_G over a grid of sizes t with labels counted (module ``dtcore.learnability``).
find_tree
    FIND, the optimal depth-d tree (Blanc–Lange–Tan 2021): ``dtcore.find.find``.
id3_tree
    ID3 (Brutzkus–Daniely–Malach 2020, Alg. 1): ``dtcore.id3.id3``.
low_degree_regression, l1_regression
    The low-degree and L1 polynomial regression baselines (BLT 2021), module ``dtcore.polyreg``.
TopDownClassifier, ID3Classifier, OptimalTreeClassifier
    scikit-learn estimators (module ``dtcore.estimators``; imported on first use).

``dtcore.find``, ``dtcore.id3`` and ``dtcore.grow`` are the modules (no package attribute hides a
submodule); their functions are ``from dtcore.find import find``, ``from dtcore.id3 import id3`` and
``from dtcore.grow import grow``, and at top level ``find_tree`` and ``id3_tree`` (the same function
objects; they pickle, so they run under joblib or Dask). Every public module is an attribute of the
package, imported on first use (``dtcore.estimators``), and ``dir(dtcore)`` lists the public names only.

Modules: ``cube`` (the cube, product distributions, truth tables), ``analysis`` (exact variance,
influences, Fourier), ``tree`` (DecisionTree), ``functions`` (target families), ``grow`` (the
best-first loop, its scorer protocol and leaf-selection rules), ``buildtopdown`` (BuildTopDownDT), ``topdown``, ``local``, ``find``, ``id3``, ``product``,
``polyreg``, ``stochastic``, ``noise``, ``smoothed``, ``impurity``, ``bounds`` (the theorems'
bounds), ``estimators``, ``learnability``. Runs are audited from the outside in ``dtcore.audit``; the
book's support (specs, sweeps, figures, experiments) is ``dtbook``. The layers and what may
import what: ARCHITECTURE.md. See each chapter of the book for the paper behind each function.

Examples
--------
>>> import numpy as np
>>> from dtcore import top_down
>>> from dtcore.find import find
>>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, dtype=np.uint8)
>>> y = X[:, 0] & X[:, 1]
>>> print(top_down(X, y, size=3).tree)
x0?
  0 -> leaf: 0
  1 -> x1?
    0 -> leaf: 0
    1 -> leaf: 1
>>> find(X, y, depth=2).errors
0.0
"""

import importlib as _importlib

from .buildtopdown import build_top_down_dt
from .cube import ProductDistribution, all_points, truth_table
from .find import find as find_tree
from .id3 import id3 as id3_tree
from .local import est, local_learner, top_down_size_estimate
from .polyreg import l1_regression, low_degree_regression
from .product import practical_build_top_down_dt
from .topdown import minibatch_top_down, top_down
from .tree import DecisionTree

_LAZY = {  # imported on first use: they need scikit-learn
    "TopDownClassifier": "estimators", "ID3Classifier": "estimators",
    "OptimalTreeClassifier": "estimators", "estimate_learnability": "learnability",
}

#: The public modules, attributes of the package (imported on first use where not yet imported).
_SUBMODULES = ("analysis", "audit", "bounds", "buildtopdown", "cube", "estimators", "exact_size", "exhaustive",
           "export", "find", "find_real", "functions", "grow", "id3", "impurity", "learnability", "local", "multiclass",
           "noise", "polyreg", "product", "smoothed", "stochastic", "topdown", "tree", "validate")


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(_importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return _importlib.import_module(f".{name}", __name__)   # sets the attribute as a side effect
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(__all__) | set(_SUBMODULES) | {"__version__"})


__all__ = [
    "DecisionTree", "ID3Classifier", "OptimalTreeClassifier", "ProductDistribution", "TopDownClassifier",
    "all_points", "build_top_down_dt", "est", "estimate_learnability", "find_tree", "id3_tree",
    "l1_regression", "local_learner", "low_degree_regression", "minibatch_top_down",
    "practical_build_top_down_dt", "top_down", "top_down_size_estimate", "truth_table",
]
__version__ = "0.1.0"
