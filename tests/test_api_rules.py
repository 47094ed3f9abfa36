"""The documented API rules (ARCHITECTURE.md, Conventions), checked on the public API itself.

* **rng keyword-only.** Every public function or method of the algorithm and audit layers (the
  package ``dtcore`` and its public submodules, ``dtcore.audit`` too; the book's support
  ``dtbook`` is not library API) that *draws* takes its generator as the keyword-only
  parameter ``rng`` (``random_state`` on a scikit-learn estimator's ``__init__``, scikit-learn's
  name). A callable **draws** when it has a parameter named ``rng``, ``seed``, ``random_state`` or
  ``generator``, or when its code (docstring aside) calls a ``numpy.random.Generator`` method on a
  name ending in ``rng``, or anything under ``np.random`` (``default_rng``, the legacy global
  functions). ``EXEMPT`` lists the callables that take a generator without drawing (the
  validator ``check_rng``), each with its reason. A method may draw from a generator its object was given (``self.rng``,
  ``self.random_state``) when its class's ``__init__`` follows the rule.
* **No attribute hides a submodule.** ``dtcore.<name>`` of every public submodule is that module
  (``import dtcore.find as m`` gives the module, not a function of the same name).
* **dir(dtcore) shows the public names only**: ``__all__``, the public submodules and
  ``__version__``; no ``annotations``, no private module, no helper.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import re
import textwrap
import types

import numpy as np
import pytest

import dtcore

DRAW_PARAMETERS = {"rng", "seed", "random_state", "generator"}
# callables that take a generator without drawing from it, with the reason
EXEMPT = {"dtcore.validate.check_rng": "the validator: the generator is the value it checks, it draws nothing"}
GENERATOR_METHODS = {name for name in dir(np.random.Generator) if not name.startswith("_")}


def public_modules() -> list[types.ModuleType]:
    """dtcore and every public submodule of it, the book's support excepted."""
    out = [dtcore]
    for info in pkgutil.walk_packages(dtcore.__path__, prefix="dtcore."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts):
            continue
        out.append(importlib.import_module(info.name))
    return out


def public_callables() -> list[tuple[str, object, type | None]]:
    """(qualified name, function, owning class or None) of every public function and method
    defined in the public modules (``__init__`` counts as public)."""
    seen, out = set(), []
    for module in public_modules():
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name)
            if getattr(obj, "__module__", None) != module.__name__ or id(obj) in seen:
                continue
            seen.add(id(obj))
            if inspect.isfunction(obj):
                out.append((f"{module.__name__}.{name}", obj, None))
            elif inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if isinstance(member, (classmethod, staticmethod)):
                        member = member.__func__
                    if inspect.isfunction(member) and (attr == "__init__" or not attr.startswith("_")):
                        out.append((f"{module.__name__}.{name}.{attr}", member, obj))
    return out


def _code_without_docstrings(fn) -> ast.AST | None:
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            body[0] = ast.Pass()
    return tree


def draws_in_code(fn) -> set[str]:
    """How the code of ``fn`` draws: 'local' (a Generator method on a name ending in rng, or
    np.random.*), 'object' (through self.<...rng> or self.random_state)."""
    tree = _code_without_docstrings(fn)
    how: set[str] = set()
    if tree is None:
        return how
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        text = ast.unparse(node.func)
        receiver = ast.unparse(node.func.value)
        if text.startswith(("np.random.", "numpy.random.")) and not text.endswith((".Generator", ".SeedSequence")):
            how.add("local")
        elif node.func.attr in GENERATOR_METHODS and re.search(r"rng$", receiver):
            how.add("object" if receiver.startswith("self.") else "local")
    return how


def rule_violation(qualname: str, fn, owner: type | None) -> str | None:
    """Why ``fn`` breaks the rng rule, or None."""
    params = inspect.signature(fn).parameters
    drawing = [p for p in params.values() if p.name in DRAW_PARAMETERS]
    estimator_init = owner is not None and fn.__name__ == "__init__" and hasattr(owner, "get_params")
    allowed = {"rng", "random_state"} if estimator_init else {"rng"}
    for p in drawing:
        if p.name not in allowed:
            return f"draws through a parameter named {p.name!r}: the name is rng"
        if p.kind is not p.KEYWORD_ONLY:
            return f"{p.name!r} is {p.kind.description}: it must be keyword-only"
    how = draws_in_code(fn)
    if "local" in how and not drawing:
        if owner is not None and _owner_holds_generator(owner):
            return None               # e.g. an estimator's fit, drawing from its random_state
        return "draws but takes no rng"
    if "object" in how and not drawing and not (owner is not None and _owner_holds_generator(owner)):
        return "draws from self's generator, but its class is not given one by keyword"
    return None


def _owner_holds_generator(owner: type) -> bool:
    init = inspect.signature(owner.__init__).parameters
    return any(p.name in ("rng", "random_state") and p.kind is p.KEYWORD_ONLY for p in init.values())


def test_the_walk_sees_the_drawing_api():
    """The walk reaches the modules and the drawing functions it is about (a rule that checked
    nothing would pass)."""
    names = {q for q, _, _ in public_callables()}
    for expected in ("dtcore.functions.random_tree", "dtcore.noise.corrupt", "dtcore.cube.ProductDistribution.sample",
                     "dtcore.local.SharedDraws.draw", "dtcore.audit.worst_case.local_search",
                     "dtcore.estimators.TopDownClassifier.__init__", "dtcore.stochastic.sample"):
        assert expected in names
    drawing = [q for q, fn, _ in public_callables()
               if DRAW_PARAMETERS & set(inspect.signature(fn).parameters) or draws_in_code(fn)]
    assert len(drawing) >= 30


def test_rng_is_keyword_only_on_every_public_function_that_draws():
    bad = {q: why for q, fn, owner in public_callables()
           if q not in EXEMPT and (why := rule_violation(q, fn, owner))}
    assert not bad, "\n".join(f"{q}: {why}" for q, why in sorted(bad.items()))


def test_the_rng_rule_fails_on_a_positional_or_missing_rng():
    def positional(n, rng):
        return rng.integers(0, 2, n)

    def missing(n):
        return np.random.default_rng(0).integers(0, 2, n)

    def named_seed(n, *, seed):
        return n

    def fine(n, *, rng):
        """>>> np.random.default_rng(0) in a docstring is not a draw"""
        return rng.integers(0, 2, n)

    assert "keyword-only" in rule_violation("positional", positional, None)
    assert rule_violation("missing", missing, None) == "draws but takes no rng"
    assert "named 'seed'" in rule_violation("named_seed", named_seed, None)
    assert rule_violation("fine", fine, None) is None


def test_no_package_attribute_hides_a_submodule():
    for module in public_modules()[1:]:
        parent_name, _, child = module.__name__.rpartition(".")
        parent = importlib.import_module(parent_name)
        assert getattr(parent, child) is module, f"{parent_name}.{child} is not the module {module.__name__}"
    import dtcore.find as find_module
    import dtcore.grow as grow_module
    import dtcore.id3 as id3_module
    assert all(isinstance(m, types.ModuleType) for m in (find_module, grow_module, id3_module))


def test_dir_of_the_package_shows_only_public_names():
    names = dir(dtcore)
    submodules = {m.__name__.split(".")[1] for m in public_modules()[1:] if m.__name__.count(".") == 1}
    assert set(names) == set(dtcore.__all__) | submodules | {"__version__"}
    assert "annotations" not in names and not [n for n in names if n.startswith("_") and n != "__version__"]
    for name in names:
        assert getattr(dtcore, name) is not None


@pytest.mark.parametrize("name", sorted(set(dtcore.__all__)))
def test_every_exported_name_is_not_a_module_name(name):
    assert not isinstance(getattr(dtcore, name), types.ModuleType)
    assert importlib.util.find_spec(f"dtcore.{name}") is None, f"dtcore.{name} would hide the module of that name"
