"""The layers of ARCHITECTURE.md: algorithms, audits and the book's support import only downwards."""

from __future__ import annotations

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "dtcore"
LEARNERS = {"buildtopdown", "topdown", "local", "product", "find", "id3", "grow", "estimators", "learnability",
            "polyreg", "smoothed", "stochastic", "noise"}


def dtcore_imports(path: pathlib.Path) -> set[str]:
    """Every dtcore module a file imports, as a dotted name (relative imports resolved)."""
    package = ["dtcore", *path.relative_to(PACKAGE).parent.parts]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith(("dtcore", "dtbook"))}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            if module.startswith(("dtcore", "dtbook")):
                found.add(module)
                found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "dtbook":  # the book's support: a package of the clone, outside the wheel
        return "book"
    return parts[1] if len(parts) > 1 and parts[1] == "audit" else "algorithms"


ALGORITHM_FILES = sorted(p for p in PACKAGE.glob("*.py"))
AUDIT_FILES = sorted((PACKAGE / "audit").glob("*.py"))


@pytest.mark.parametrize("path", ALGORITHM_FILES, ids=lambda p: p.name)
def test_algorithm_modules_import_neither_the_audits_nor_the_book_support(path):
    upward = sorted(m for m in dtcore_imports(path) if layer(m) != "algorithms")
    assert not upward, f"dtcore/{path.name} imports {upward}: algorithms may import only algorithms"


@pytest.mark.parametrize("path", AUDIT_FILES, ids=lambda p: p.name)
def test_audits_do_not_import_the_book_support(path):
    upward = sorted(m for m in dtcore_imports(path) if layer(m) == "book")
    assert not upward, f"dtcore/audit/{path.name} imports {upward}: audits may not import the book support"


def test_bounds_import_no_learner():
    learners = sorted(m for m in dtcore_imports(PACKAGE / "bounds.py") if m.split(".")[1] in LEARNERS)
    assert not learners, f"dtcore/bounds.py imports {learners}: a formula module must not sit on a learner"


def test_the_rule_is_enforced_on_a_violating_file(tmp_path, monkeypatch):
    # The checker itself must see an upward import, relative or absolute.
    bad = PACKAGE / "_probe_for_test.py"
    monkeypatch.setattr(pathlib.Path, "read_text", lambda self, *a, **k: "from dtbook.sweep import sweep\nimport dtcore.audit.replay\n")
    imports = dtcore_imports(bad)
    assert {"dtbook.sweep", "dtcore.audit.replay"} <= imports
    assert {layer(m) for m in imports} == {"book", "audit"}
