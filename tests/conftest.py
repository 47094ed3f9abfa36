"""Start the book build as the test session begins, so it overlaps the rest of the suite.

`make test` executes every chapter once, inside the book build (tests/test_html.py); the build is
serial and takes most of the run. Started here, in the process that drives the xdist workers, it
holds the build lock from the first moment, and the workers' ``built_book`` fixtures wait for it
and reuse its outcome. It starts only when the session covers the tests that read the book.
"""

from __future__ import annotations

import fcntl
import pathlib
import threading

import pytest

TESTS = pathlib.Path(__file__).resolve().parent
BOOK_READERS = {"test_html.py", "test_browser.py"}


def _reads_the_book(args: list[str]) -> bool:
    for arg in args:
        path = pathlib.Path(arg.split("::")[0]).resolve()
        if path == TESTS or path == TESTS.parent or path.name in BOOK_READERS:
            return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    subset = config.option.collectonly or config.option.keyword or config.option.markexpr
    if hasattr(config, "workerinput") or subset or not _reads_the_book(list(config.args)):
        return
    from tests.test_html import BUILD, book_is_fresh, build_book

    if book_is_fresh():
        return
    BUILD.mkdir(exist_ok=True)
    lock = open(BUILD / ".book-build.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)  # taken before the workers start: they wait for this build

    def build() -> None:
        try:
            build_book()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            lock.close()

    threading.Thread(target=build, name="book-build", daemon=True).start()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Tests that read the built book go last, so that the xdist workers run everything else while
    # the build started above is still going, instead of waiting for it from the start.
    items.sort(key=lambda item: "built_book" in getattr(item, "fixturenames", ()))
