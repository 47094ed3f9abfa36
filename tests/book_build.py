"""Building the HTML book for the tests that read it: from notebooks nbmake executed, or like `make book`.

`make test` runs ``pytest --nbmake`` over a copy of the book's sources, ``_executed/`` (made by
:func:`stage_book` as the session starts; nbmake's ``--overwrite`` writes the executed notebooks
into that copy, never into ``book/``). Once every notebook has run, :func:`build_book` builds
``_build/html`` from the copy with execution off (its ``_config.yml`` says
``execute_notebooks: "off"``), so each notebook runs once per test session. ``tests/conftest.py``
drives this. A session without the notebooks (``pytest tests/test_html.py``) reuses a fresh
``_build/html`` or builds it like `make book`, executing every notebook.

A build is serialised with a file lock and its outcome stamped in ``_build/html``
(``.build-ok`` or ``.build-failed``), so that a second pytest-xdist worker waits for the first
build and reuses it, failed or not.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import yaml

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "_build"
HTML = BUILD / "html"
#: The copy of the book's sources whose notebooks nbmake executes (not under ``_build``: nbmake
#: skips any notebook whose path has a ``_build`` folder).
EXECUTED = REPO / "_executed"
LOCK = BUILD / ".book-build.lock"

#: Files and folders whose change makes the built book stale.
BOOK_SOURCES: tuple[str, ...] = (
    "_config.yml",
    "_toc.yml",
    "_static",
    "book",
    "dtcore",
    "dtbook",
    "scripts/offline_mathjax.py",
    "scripts/bibtex_labels.py",
    "scripts/bibtex_backlinks.py",
    "scripts/ledger_pages.py",
)
#: What a build of the book reads: the configuration, the pages and the local Sphinx extensions.
STAGED: tuple[str, ...] = (
    "_config.yml", "_toc.yml", "_static", "book",
    "scripts/offline_mathjax.py", "scripts/bibtex_labels.py", "scripts/bibtex_backlinks.py",
    "scripts/ledger_pages.py",
)

#: The `make book` command line (kept in step with the Makefile). ``--all``: Sphinx would
#: otherwise re-read only changed pages, so a change in dtcore alone would leave stale outputs,
#: and warnings of pages it does not re-read would go unreported.
BUILD_ARGS: tuple[str, ...] = ("--all", "--builder", "html", "-W", "-n", "--keep-going")


def source_files(repo: Path = REPO) -> list[Path]:
    """The book's source files: tracked or new, not git-ignored (so test outputs do not count)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *BOOK_SOURCES],
            cwd=repo, capture_output=True, check=True,
        ).stdout.decode().split("\0")
        return [repo / name for name in listed if name and (repo / name).is_file()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: every file counts
        files = []
        for name in BOOK_SOURCES:
            path = repo / name
            files += [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
        return files


def newest_source_mtime(repo: Path = REPO) -> float:
    """Latest modification time over the book's sources (notebooks, markdown, dtcore, config)."""
    return max((f.stat().st_mtime for f in source_files(repo)), default=0.0)


def book_is_fresh(html: Path = HTML, repo: Path = REPO) -> bool:
    """True when a build newer than every source exists, whether it passed or failed.

    A failed build leaves ``.build-failed`` (its warnings) instead of ``.build-ok``; it is
    reused too, so that another test process does not build the same failing book again.
    """
    newest = newest_source_mtime(repo)
    return any(
        (html / name).is_file() and (html / name).stat().st_mtime >= newest
        for name in (".build-ok", ".build-failed")
    )


def stage_book(dest: Path = EXECUTED, repo: Path = REPO) -> list[Path]:
    """Copy the book's sources to ``dest`` for nbmake, execution off in its ``_config.yml``.

    Only the notebooks that ``_toc.yml`` lists are copied (nbmake runs every notebook it finds);
    they are returned. ``dest`` is emptied first, so no output of an earlier session survives.
    """
    from dtbook.run import toc_chapters

    chapters = toc_chapters(repo)

    def skipped(folder: str, names: list[str]) -> set[str]:
        junk = shutil.ignore_patterns("_build", ".ipynb_checkpoints", "*.out.ipynb", "__pycache__")(folder, names)
        return junk | {n for n in names if n.endswith(".ipynb") and n[: -len(".ipynb")] not in chapters}

    if dest.exists():
        shutil.rmtree(dest)
    for name in STAGED:
        source, target = repo / name, dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=skipped)
        else:
            shutil.copy2(source, target)
    config = yaml.safe_load((repo / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "off"  # nbmake executed them
    (dest / "_config.yml").write_text(
        "# Written by tests/book_build.py: the book's _config.yml with execution off.\n"
        + yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    return [dest / "book" / f"{chapter}.ipynb" for chapter in chapters]


def build_book(repo: Path = REPO, source: Path | None = None) -> str | None:
    """Build ``_build/html`` like `make book`; return None or why it failed.

    ``source`` None builds ``repo`` itself, executing every notebook (`make book`); a staged copy
    (:func:`stage_book`, notebooks already executed) is built without executing anything. With
    ``--keep-going`` every page is written even when a warning fails the build, so the page
    checks still run on it; the failure itself is reported by `test_book_builds_cleanly`. A
    passing build is stamped (``_build/html/.build-ok``) so later runs can reuse it.
    """
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH")])))
    log = repo / "_build" / "book-build.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    stamp = repo / "_build" / "html" / ".build-ok"
    failed = stamp.with_name(".build-failed")
    stamp.unlink(missing_ok=True)
    failed.unlink(missing_ok=True)
    where = ["."] if source is None else [str(source), "--path-output", str(repo)]
    start = time.perf_counter()
    with open(log, "w") as out:
        result = subprocess.run(
            [str(jupyter_book), "build", *where, *BUILD_ARGS], cwd=repo, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    if result.returncode != 0:
        lines = re.sub(r"\x1b\[[0-9;]*m", "", log.read_text(errors="replace")).splitlines()  # no colours
        problems = [line for line in lines if ("WARNING" in line or "ERROR" in line) and "[IPKernelApp]" not in line]
        failure = f"the book build failed (exit {result.returncode}, log {log}):\n" + "\n".join((problems or lines)[-30:])
        if failed.parent.is_dir():
            failed.write_text(failure)
        return failure
    how = "from the notebooks nbmake executed" if source is not None else "executing every notebook"
    stamp.write_text(f"built in {time.perf_counter() - start:.0f} s, {how}\n")
    return None


def acquire(lock: IO[str], timeout: float) -> None:
    """Take the build lock, waiting at most ``timeout`` seconds (a build holds it meanwhile)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the book build lock {LOCK} was held for over {timeout:.0f} s") from None
            time.sleep(0.5)
