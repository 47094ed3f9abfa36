"""Run every notebook once under nbmake, then build the HTML book from them, beside the rest of the suite.

`make test` is ``pytest -n 2 --maxschedchunk 1 --nbmake --overwrite tests _executed/book``. As
the session starts, in the process that drives the xdist workers, this file

1. copies the book's sources to ``_executed/`` (``tests/book_build.py``: nbmake's ``--overwrite``
   writes the executed notebooks there, never into ``book/``);
2. takes the book-build lock, so that the tests that read the built book (``tests/test_html.py``,
   ``tests/test_browser.py``, through their ``built_book`` fixture) wait;
3. counts the notebooks' reports as the workers send them; when the last notebook is done it
   builds ``_build/html`` from ``_executed/`` with execution off (in a thread, while the workers
   go on with the other tests), then releases the lock.

The notebooks are collected first (the fault appendix, the longest, at the very front) and the
tests that read the book last, so the workers run everything else while the notebooks and the
build finish; ``--maxschedchunk 1`` (in the Makefile) hands out tests one or two at a time, so
that the notebooks spread over both workers instead of going to the first in one batch. A session that does not run every notebook of ``_executed/`` skips all this:
``built_book`` reuses a fresh ``_build/html`` or builds the book like `make book`, executing every
notebook (started at once when the whole suite runs without nbmake, as ``pytest -n 2 tests``).
"""

from __future__ import annotations

import fcntl
import pathlib
import threading
from typing import IO

import pytest

from tests.book_build import BUILD, EXECUTED, LOCK, book_is_fresh, build_book, stage_book

TESTS = pathlib.Path(__file__).resolve().parent
BOOK_READERS = {"test_html.py", "test_browser.py"}
#: The notebooks' order: the longest (the fault appendix, minutes) first, then the shortest, which
#: waits behind it on the same worker (xdist keeps two tests queued per worker), then the others
#: longest first; the notebooks not named here follow, by name.
NOTEBOOK_ORDER = ("appendix_faults", "06_real_data", "appendix_performance", "02_estimating_learnability")


def _runs_staged_notebooks(config: pytest.Config) -> bool:
    if not config.option.nbmake:
        return False
    for arg in config.args:
        path = pathlib.Path(arg.split("::")[0]).resolve()
        if path == EXECUTED or EXECUTED in path.parents:
            return True
    return False


def _is_staged_notebook(nodeid: str) -> bool:
    path = nodeid.split("::")[0]
    return path.endswith(".ipynb") and pathlib.PurePath(path).parts[:1] == (EXECUTED.name,)


class BookAfterNotebooks:
    """Holds the build lock until the session's notebooks are done, then builds the book from them."""

    def __init__(self, notebooks: list[pathlib.Path]) -> None:
        self.expected = {nb.name for nb in notebooks}
        self.done: set[str] = set()
        self.readers = False
        self.lock: IO[str] | None = open(LOCK, "w")
        fcntl.flock(self.lock, fcntl.LOCK_EX)  # taken before the workers start: they wait for this build
        self.started = False

    def release(self) -> None:
        if self.lock is not None:
            fcntl.flock(self.lock, fcntl.LOCK_UN)
            self.lock.close()
            self.lock = None

    def collected(self, nodeids: list[str]) -> None:
        """The session's test ids: build only if every staged notebook runs and someone reads the book."""
        names = {pathlib.PurePath(i.split("::")[0]).name for i in nodeids if _is_staged_notebook(i)}
        self.readers = any(pathlib.PurePath(i.split("::")[0]).name in BOOK_READERS for i in nodeids)
        if not self.readers or not self.expected <= names:
            self.release()  # built_book falls back to a fresh book, or builds one like `make book`

    def finished(self, nodeid: str) -> None:
        if self.lock is None or self.started or not _is_staged_notebook(nodeid):
            return
        self.done.add(pathlib.PurePath(nodeid.split("::")[0]).name)
        if self.expected <= self.done:
            self.started = True
            threading.Thread(target=self._build, name="book-build", daemon=True).start()

    def _build(self) -> None:
        try:
            build_book(source=EXECUTED)
        finally:
            self.release()

    # --- pytest hooks (in the controlling process only) ---------------------------------
    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        self.collected(ids)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not hasattr(session.config, "workerinput"):  # without xdist: this process collected
            self.collected([item.nodeid for item in session.items])

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when not in ("setup", "call"):  # teardown, or a crashed worker's "???"
            self.finished(report.nodeid)

    def pytest_sessionfinish(self) -> None:
        self.release()


def _reads_the_book(args: list[str]) -> bool:
    for arg in args:
        path = pathlib.Path(arg.split("::")[0]).resolve()
        if path == TESTS or path == TESTS.parent or path.name in BOOK_READERS:
            return True
    return False


def _build_like_make_book_now() -> None:
    """Without nbmake: start `make book`'s build (executing every notebook) as the session starts,
    so that it overlaps the other tests instead of starting when the first reader needs it."""
    lock = open(LOCK, "w")
    fcntl.flock(lock, fcntl.LOCK_EX)

    def build() -> None:
        try:
            build_book()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            lock.close()

    threading.Thread(target=build, name="book-build", daemon=True).start()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    subset = config.option.collectonly or config.option.keyword or config.option.markexpr
    if hasattr(config, "workerinput") or config.option.collectonly:
        return
    if _runs_staged_notebooks(config):
        BUILD.mkdir(exist_ok=True)
        notebooks = stage_book()  # before the workers start and collect _executed/
        config.pluginmanager.register(BookAfterNotebooks(notebooks), "book-after-notebooks")
    elif not subset and _reads_the_book(list(config.args)) and not book_is_fresh():
        BUILD.mkdir(exist_ok=True)
        _build_like_make_book_now()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Notebooks first, longest first, so that they and the build from them overlap the rest of
    # the suite; the tests that read the built book last, so that they wait as little as possible.
    def rank(item: pytest.Item) -> tuple[int, int, str]:
        if item.nodeid.split("::")[0].endswith(".ipynb"):
            stem = pathlib.PurePath(item.nodeid.split("::")[0]).stem
            return (0, NOTEBOOK_ORDER.index(stem) if stem in NOTEBOOK_ORDER else len(NOTEBOOK_ORDER), stem)
        return (2 if "built_book" in getattr(item, "fixturenames", ()) else 1, 0, "")

    items.sort(key=rank)
