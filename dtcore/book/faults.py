"""Fault injection: does a chapter's own verification catch a realistic bug in the code it checks?

A fault is an exact text replacement in one file of ``dtcore`` (``faults/<chapter>.toml`` lists
them). :func:`run_fault` copies ``dtcore`` and ``book`` to a scratch directory, applies the fault
there (the repository is never touched), runs the chapter at quick scale with papermill in a
kernel that imports the scratch ``dtcore``, and records how the chapter ended: a failing
verification row (the fault is *caught by a check*), a cell that raised (*caught by an error*), or a
clean run (*missed*). The verification table tells which rows failed through the JSON file named by
``DTCORE_VERIFICATION_JSON``.

Run from the shell: ``python -m dtcore.book.faults [--chapter 01_top_down_guarantees] [--fault ID]``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pandas as pd

from .chapter import REPO_ROOT
from .report import VERIFICATION_JSON_ENV, read_verification_json


@dataclass(frozen=True)
class Fault:
    """One realistic bug: replace ``find`` (which must occur exactly once) by ``replace`` in ``file``."""

    id: str
    chapter: str
    file: str
    find: str
    replace: str
    description: str
    quick: bool = False  # part of the quick-scale suite (make test, the quick book); else full scale only


def load_faults(directory: str | pathlib.Path | None = None, scale: str = "full") -> list[Fault]:
    """The faults of every ``<chapter>.toml`` in ``directory`` (default: the repository's ``faults/``).

    ``scale="quick"`` keeps the faults marked ``quick = true`` (a few per chapter, spread over the
    modules it verifies, so that ``make test`` stays within its time budget); ``"full"`` keeps all.
    """
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    directory = pathlib.Path(directory) if directory is not None else REPO_ROOT / "faults"
    faults = []
    for path in sorted(directory.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        for entry in data.get("fault", []):
            faults.append(Fault(id=entry["id"], chapter=data["chapter"], file=entry["file"], find=entry["find"],
                                replace=entry["replace"], description=entry["description"],
                                quick=bool(entry.get("quick", False))))
    if scale == "quick":
        faults = [f for f in faults if f.quick]
    ids = [f.id for f in faults]
    if len(set(ids)) != len(ids):
        raise ValueError(f"fault ids must be unique, got duplicates in {sorted(ids)}")
    return faults


def apply_fault(fault: Fault, root: str | pathlib.Path) -> None:
    """Apply ``fault`` to the copy of the repository at ``root`` (never to the repository itself)."""
    root = pathlib.Path(root).resolve()
    if root == REPO_ROOT:
        raise ValueError(f"root must be a scratch copy, got the repository itself ({root})")
    path = root / fault.file
    text = path.read_text()
    count = text.count(fault.find)
    if count != 1:
        raise ValueError(f"fault {fault.id}: the text to replace must occur exactly once in {fault.file}, "
                         f"found {count} times")
    path.write_text(text.replace(fault.find, fault.replace))


def run_chapter(chapter: str, root: pathlib.Path, *, timeout: float = 900.0,
                parameters: dict[str, object] | None = None) -> dict[str, object]:
    """Run ``book/<chapter>.ipynb`` of the tree at ``root`` and report how it ended."""
    report_path = root / "verification.json"
    report_path.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(root), VERIFICATION_JSON_ENV: str(report_path),
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "papermill", str(root / "book" / f"{chapter}.ipynb"), str(root / "out.ipynb"),
           "--cwd", str(root / "book"), "--no-progress-bar", "--log-level", "ERROR"]
    for key, value in (parameters or {}).items():
        cmd += ["-p", key, str(value)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        returncode, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired:
        returncode, stderr = -1, f"timed out after {timeout:.0f} s"
    seconds = time.perf_counter() - start
    failed_rows: list[dict[str, object]] = []
    if report_path.exists():
        rows = read_verification_json(report_path)
        failed_rows = [r for r in rows if r["kind"] != "observation" and not r["holds"]]
    if returncode == 0:
        outcome, caught_by = "missed", ""
    elif failed_rows:
        outcome = "caught by a check"
        caught_by = "; ".join(f"{r['result']}: {r['quantity']}" for r in failed_rows)
    else:
        outcome, caught_by = "caught by an error", _last_error(stderr)
    return {"outcome": outcome, "caught_by": caught_by, "failed_rows": len(failed_rows), "seconds": seconds}


def _last_error(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "Error" in ln or "Exception" in ln]
    return (errors[-1] if errors else (lines[-1] if lines else "non-zero exit"))[:200]


def run_fault(fault: Fault, *, repo_root: str | pathlib.Path | None = None, timeout: float = 900.0,
              parameters: dict[str, object] | None = None) -> dict[str, object]:
    """Apply ``fault`` in a scratch copy, run its chapter at quick scale, and say how it ended."""
    source = pathlib.Path(repo_root) if repo_root is not None else REPO_ROOT
    with tempfile.TemporaryDirectory(prefix=f"fault-{fault.id}-") as tmp:
        root = pathlib.Path(tmp)
        shutil.copytree(source / "dtcore", root / "dtcore", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(source / "book", root / "book", ignore=shutil.ignore_patterns("_build", "*.png"))
        apply_fault(fault, root)
        result = run_chapter(fault.chapter, root, timeout=timeout, parameters=parameters)
    return {"fault": fault.id, "chapter": fault.chapter, "file": fault.file, "description": fault.description,
            **result}


def run_faults(faults: Sequence[Fault], *, n_jobs: int = 2, **kwargs: object) -> pd.DataFrame:
    """Run every fault (``n_jobs`` chapters at a time); one row per fault, in the given order."""
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be >= 1, got {n_jobs}")
    with ThreadPoolExecutor(max_workers=n_jobs) as pool:
        rows = list(pool.map(lambda f: run_fault(f, **kwargs), faults))
    return pd.DataFrame(rows)


def missed(results: pd.DataFrame) -> pd.DataFrame:
    """The faults that their chapter did not catch."""
    return results[results["outcome"] == "missed"]


def assert_all_caught(results: pd.DataFrame) -> None:
    """Raise ``AssertionError`` naming every fault that went through its chapter unnoticed."""
    if results.empty:
        raise AssertionError("no fault was run")
    bad = missed(results)
    if len(bad):
        raise AssertionError("faults not caught by their chapter:\n" + bad[["fault", "chapter", "description"]]
                             .to_string(index=False))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", help="only this chapter's faults (e.g. 01_top_down_guarantees)")
    parser.add_argument("--fault", action="append", help="only these fault ids (repeatable)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--scale", choices=("quick", "full"), default="full",
                        help="quick: only the faults marked quick = true")
    args = parser.parse_args(argv)
    faults = [f for f in load_faults(scale=args.scale) if (args.chapter is None or f.chapter == args.chapter)
              and (not args.fault or f.id in args.fault)]
    results = run_faults(faults, n_jobs=args.jobs)
    with pd.option_context("display.max_colwidth", 80, "display.width", 200):
        print(results[["fault", "chapter", "outcome", "caught_by", "seconds"]].to_string(index=False))
    return 0 if missed(results).empty else 1


if __name__ == "__main__":
    raise SystemExit(main())
