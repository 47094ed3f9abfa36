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
                     "dtcore.find", "dtcore.polyreg", "dtcore.product", "dtcore.id3",
                     "dtcore.estimators", "dtcore.learnability"]


@pytest.mark.parametrize("name", DOCTESTED_MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0


def test_learners_exported_at_top_level():
    from dtcore import (ID3Classifier, OptimalTreeClassifier, TopDownClassifier,  # noqa: F401
                        build_top_down_dt, est, estimate_learnability, find_tree, id3_tree, local_learner,
                        minibatch_top_down, practical_build_top_down_dt, top_down, top_down_size_estimate)
    for name in dtcore.__all__:
        assert getattr(dtcore, name) is not None


def test_top_level_learners_are_plain_functions_that_pickle():
    import pickle

    import joblib

    from dtcore.find import find
    from dtcore.grow import grow
    from dtcore.id3 import id3
    assert dtcore.find_tree is find and dtcore.id3_tree is id3
    for function in (find, grow, id3):
        assert isinstance(function, types.FunctionType)
        assert pickle.loads(pickle.dumps(function)) is function
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 2, dtype=np.uint8)
    y = X[:, 0] ^ X[:, 1]
    errors = joblib.Parallel(n_jobs=2)(joblib.delayed(dtcore.find_tree)(X, y, depth=d) for d in (1, 2))
    assert [r.errors for r in errors] == [4.0, 0.0]
    assert dtcore.id3_tree(X, y).tree.size == 4


def _learner(name):
    """A learner by its name: top level, or the function of the same name in its module (grow)."""
    return getattr(dtcore, name) if name in dtcore.__all__ else getattr(importlib.import_module(f"dtcore.{name}"), name)


def test_learner_arguments_after_the_data_are_keyword_only():
    import inspect
    data = {"build_top_down_dt": 1, "grow": 1, "practical_build_top_down_dt": 2}
    for name in ("top_down", "minibatch_top_down", "build_top_down_dt", "find_tree", "id3_tree", "local_learner", "est",
                 "top_down_size_estimate", "practical_build_top_down_dt", "low_degree_regression", "l1_regression",
                 "grow"):
        params = list(inspect.signature(_learner(name)).parameters.values())
        positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert len(positional) == data.get(name, 2), (name, positional)
        assert not {"t", "max_leaves", "max_depth", "b"} & {p.name for p in params}, name


def test_help_lists_the_learners():
    text = pydoc.render_doc(dtcore, renderer=pydoc.plaintext)
    for word in ("topdown", "top_down", "find", "id3", "build_top_down_dt", "TopDownClassifier",
                 "estimate_learnability"):
        assert word in text


def test_print_tree_shows_the_tree_with_names():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, dtype=np.uint8)
    tree = dtcore.top_down(X, X[:, 0] & X[:, 1], size=3).tree
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


LEARNERS = ["build_top_down_dt", "est", "estimate_learnability", "find_tree", "grow", "id3_tree", "l1_regression",
            "local_learner", "low_degree_regression", "minibatch_top_down", "practical_build_top_down_dt",
            "top_down", "top_down_size_estimate"]


@pytest.mark.parametrize("name", LEARNERS)
def test_every_exported_learner_has_numpydoc_sections(name):
    import inspect
    doc = inspect.getdoc(_learner(name)) or ""
    for section in ("Parameters\n----------", "Returns\n-------", "Examples\n--------"):
        assert section in doc, f"dtcore.{name}'s docstring has no {section.splitlines()[0]} section"
