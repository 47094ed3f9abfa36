"""Fault injection: does a chapter's own verification catch a realistic bug in the code it checks?

A fault is an exact text replacement in one file of ``dtcore`` (``faults/<chapter>.toml`` lists
them). :func:`run_fault` copies ``dtcore`` and ``book`` to a scratch directory, applies the fault
there (the repository is never touched), runs the chapter at quick scale with
:func:`dtbook.run.run_chapter` in a kernel that imports the scratch ``dtcore``, and records how
the chapter ended: a failing verification row (the fault is *caught by a check*), a cell that
raised (*caught by an error*), or a clean run (*missed*).

Run from the shell: ``python -m dtbook.faults [--chapter 01_top_down_guarantees] [--fault ID]``.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import tempfile
import tomllib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pandas as pd

from .chapter import REPO_ROOT
from .run import ChapterRun, run_chapter
from .sweep import SCHEDULER_ENV

#: The environment of a fault's run. Two chapters run at once on two cores, so each kernel keeps to
#: one BLAS/OpenMP thread; and its sweeps stay local, since a Dask cluster's workers would import the
#: repository's dtcore instead of the patched copy (the fault would go unseen).
FAULT_RUN_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", SCHEDULER_ENV: ""}


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


def judge(run: ChapterRun) -> dict[str, object]:
    """How a chapter run against a fault ended: caught by a check, caught by an error, or missed."""
    failing = run.failing
    if run.returncode == 0 and not run.timed_out:
        outcome, caught_by = "missed", ""
    elif len(failing):
        outcome = "caught by a check"
        caught_by = "; ".join(f"{r['result']}: {r['quantity']}" for _, r in failing.iterrows())
    else:
        outcome, caught_by = "caught by an error", (run.error.splitlines() or ["non-zero exit"])[0][:200]
    return {"outcome": outcome, "caught_by": caught_by, "failed_rows": len(failing), "seconds": run.seconds}


def run_fault(fault: Fault, *, repo_root: str | pathlib.Path | None = None, timeout: float = 900.0,
              parameters: dict[str, object] | None = None) -> dict[str, object]:
    """Apply ``fault`` in a scratch copy, run its chapter at quick scale, and say how it ended."""
    source = pathlib.Path(repo_root) if repo_root is not None else REPO_ROOT
    with tempfile.TemporaryDirectory(prefix=f"fault-{fault.id}-") as tmp:
        root = pathlib.Path(tmp)
        shutil.copytree(source / "dtcore", root / "dtcore", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(source / "dtbook", root / "dtbook", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(source / "book", root / "book", ignore=shutil.ignore_patterns("_build", "*.png"))
        apply_fault(fault, root)
        run = run_chapter(fault.chapter, root / "out.ipynb", book_dir=root / "book", pythonpath=[root],
                          env=FAULT_RUN_ENV, parameters=parameters, timeout=timeout, stop_at_first_failure=True)
        result = judge(run)
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


# --------------------------------------------------------------------------------------------
# Display (the fault appendix): one Markdown table, each chapter a link
# --------------------------------------------------------------------------------------------


def round_seconds(seconds: float) -> str:
    """A duration as the page prints it: at most 4 significant digits (28.7, 523.2, 1234)."""
    seconds = float(seconds)
    if not seconds >= 0:
        raise ValueError(f"seconds must be a non-negative number, got {seconds!r}")
    return f"{seconds:.1f}" if seconds < 1000 else f"{seconds:.0f}"


def chapter_numbers(root: str | pathlib.Path | None = None) -> dict[str, int]:
    """The book's number of each numbered chapter notebook (``_toc.yml`` order, appendices left out)."""
    from .run import toc_chapters

    numbered = [c for c in toc_chapters(root if root is not None else REPO_ROOT) if c[:2].isdigit()]
    return {chapter: number for number, chapter in enumerate(numbered, start=1)}


def _cell(text: object) -> str:
    """Text safe inside a Markdown table cell (no pipe, no line break, no stray backtick)."""
    return " ".join(str(text).split()).replace("|", "\\|").replace("`", "'")


#: ASCII maths of the fault descriptions, in the reader's notation (the table is read, not run).
_ASCII_MATHS = ((" <= ", " ≤ "), (" >= ", " ≥ "), (" != ", " ≠ "), ("log2", "log₂"), ("sqrt", "√"), ("beta", "β"),
                ("alpha", "α"), ("delta", "δ"), ("gamma", "γ"), ("kappa", "κ"), ("eta", "η"), ("mu_", "μ_"))


def reader_maths(text: str) -> str:
    """A fault description with its ASCII maths in the reader's notation: ≤, ≥, log₂, Greek letters for
    their names, and powers ``a^b`` / ``a^(b)`` / ``a^-b`` typeset as superscripts (``$a^{b}$``)."""
    import re

    out = str(text)
    for ascii_text, maths in _ASCII_MATHS:
        out = re.sub(rf"(?<![A-Za-z]){re.escape(ascii_text.strip())}(?![a-z])", maths.strip(), out) \
            if ascii_text.strip().isalpha() or ascii_text.strip() in ("log2", "sqrt") else out.replace(ascii_text, maths)
    out = re.sub(r"\beps\b", "ε", out)
    group = r"\((?:[^()]|\([^()]*\))*\)"
    power = re.compile(rf"(\w+|{group})\^({group}|-?\|[^|]+\||-?\d+(?:\.\d+)?(?![\w(])|-?\w+(?:{group})?)")

    def typeset(m: re.Match) -> str:
        exponent = m.group(2)
        if exponent.startswith("(") and exponent.endswith(")"):
            exponent = exponent[1:-1]
        maths = f"{m.group(1)}^{{{exponent}}}".replace("|", r"\vert ")  # no pipe inside a table cell
        return f"${maths}$"

    return power.sub(typeset, out)


def outcomes_markdown(outcomes: pd.DataFrame, numbers: dict[str, int] | None = None) -> str:
    """The fault table as MyST Markdown: fault, chapter (a ``{doc}`` link), file, what goes wrong,
    outcome, the failed rows or the error, and seconds rounded to at most 4 significant digits."""
    required = ["fault", "chapter", "file", "description", "outcome", "caught_by", "seconds"]
    absent = [c for c in required if c not in outcomes.columns]
    if absent:
        raise ValueError(f"outcomes must have the columns {required}, missing {absent}")
    numbers = chapter_numbers() if numbers is None else numbers
    lines = ["| fault | chapter | file | what goes wrong | outcome | caught by (failed rows by the paper's numbering, or the error) | seconds |",
             "|---|---|---|---|---|---|---:|"]
    for row in outcomes.itertuples(index=False):
        label = f"Chapter {numbers[row.chapter]}" if row.chapter in numbers else row.chapter
        lines.append(" | ".join([
            f"| {_cell(row.fault)}", f"{{doc}}`{label} <{row.chapter}>`", f"`{_cell(row.file)}`",
            _cell(reader_maths(row.description)), _cell(row.outcome), _cell(row.caught_by) or "—",
            f"{round_seconds(row.seconds)} |"]))
    return "\n".join(lines)


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
