"""The plain-Python API as an engineer meets it: top-level imports, modules not shadowed, printing,
help(dtcore), and every docstring example of the public learners (run as doctests)."""

from __future__ import annotations

import doctest
import importlib
import pydoc
import types

import numpy as np
import pytest

import dtcore

DOCTESTED_MODULES = ["dtcore", "dtcore.tree", "dtcore.topdown", "dtcore.grow", "dtcore.buildtopdown", "dtcore.local",
                     "dtcore.estimators", "dtcore.learnability"]


@pytest.mark.parametrize("name", DOCTESTED_MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0


def test_learners_exported_at_top_level():
    from dtcore import (ID3Classifier, OptimalTreeClassifier, TopDownClassifier,  # noqa: F401
                        build_top_down_dt, est, estimate_learnability, find, id3, local_learner,
                        minibatch_top_down, practical_build_top_down_dt, top_down, top_down_size_estimate)
    for name in dtcore.__all__:
        assert getattr(dtcore, name) is not None


def test_modules_are_not_shadowed_and_namesakes_are_callable():
    import dtcore.find
    import dtcore.grow
    import dtcore.id3
    for module, function in ((dtcore.grow, dtcore.grow.grow), (dtcore.find, dtcore.find.find),
                             (dtcore.id3, dtcore.id3.id3)):
        assert isinstance(module, types.ModuleType)
        assert callable(module) and callable(function)
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 2, dtype=np.uint8)
    y = X[:, 0] ^ X[:, 1]
    assert dtcore.find(X, y, 2).errors == dtcore.find.find(X, y, 2).errors == 0.0
    assert dtcore.id3(X, y).tree.size == 4
    from dtcore.buildtopdown import build_top_down_dt  # noqa: F401  (BuildTopDownDT has its own module)


def test_help_lists_the_learners():
    text = pydoc.render_doc(dtcore, renderer=pydoc.plaintext)
    for word in ("topdown", "top_down", "find", "id3", "build_top_down_dt", "TopDownClassifier",
                 "estimate_learnability"):
        assert word in text


def test_print_tree_shows_the_tree_with_names():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, dtype=np.uint8)
    tree = dtcore.top_down(X, X[:, 0] & X[:, 1], t=3).tree
    assert str(tree).splitlines()[0] == "x0?"
    assert repr(tree) == "DecisionTree(n=2, size=3, depth=2)"
    tree.feature_names = ["rain", "wind"]
    assert str(tree).splitlines()[0] == "rain?" and "wind?" in str(tree)
    assert tree.copy().feature_names == ["rain", "wind"]
    with pytest.raises(ValueError, match="feature_names"):
        tree.feature_names = ["only one"]


def test_import_dtcore_does_not_import_scikit_learn():
    import subprocess
    import sys
    code = ("import sys, dtcore; print('sklearn' in sys.modules); dtcore.TopDownClassifier; "
            "print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
